/*
 * Sample range check: every sample of a picture of bpc bits must be at most (1 << bpc) - 1.
 * Extractors assume it (psnr_hvs overflows, psnr goes negative), so the readers of the CLI
 * and vmaf_read_pictures refuse a plane that breaks it. Header-only so that the CLI readers
 * (tools/) share it without linking the library.
 *
 * 8-bit and 16-bit planes cannot break it (uint8/uint16 hold nothing larger) and are not
 * scanned. Other depths are scanned row by row with an OR reduction (vectorised by the
 * compiler); only a failing row is searched for the exact sample.
 */
#ifndef VMAF_SRC_SAMPLE_RANGE_H
#define VMAF_SRC_SAMPLE_RANGE_H

#include <stddef.h>
#include <stdint.h>

/** Where a plane holds a sample above its maximum: column x, row y, the value. */
typedef struct VmafSampleRangeError {
    unsigned x, y, value;
} VmafSampleRangeError;

/** Does a plane of this depth need scanning at all? */
static inline int vmaf_sample_range_needs_check(unsigned bpc)
{
    return bpc > 8 && bpc < 16;
}

/**
 * Scan a w x h plane of uint16 samples (stride in bytes). 0 when every sample fits in bpc
 * bits; 1 with *e set to the first sample (in raster order) that does not.
 */
static inline int vmaf_sample_range_scan(const void *data, ptrdiff_t stride, unsigned w,
                                         unsigned h, unsigned bpc, VmafSampleRangeError *e)
{
    if (!vmaf_sample_range_needs_check(bpc)) return 0;
    const uint16_t limit = (uint16_t)(0xffffu << bpc);
    for (unsigned y = 0; y < h; y++) {
        const uint16_t *row = (const uint16_t *)((const uint8_t *)data + (ptrdiff_t)y * stride);
        uint16_t acc = 0;
        for (unsigned x = 0; x < w; x++) acc |= row[x];
        if (!(acc & limit)) continue;
        for (unsigned x = 0; x < w; x++) {
            if (!(row[x] & limit)) continue;
            e->x = x;
            e->y = y;
            e->value = row[x];
            return 1;
        }
    }
    return 0;
}

#endif /* VMAF_SRC_SAMPLE_RANGE_H */
