/*
 * Twin VMAF — ciede per pixel, shared by the CPU extractor (ciede.c), its CUDA twin
 * (cuda/ciede.cu) and tests/twins/test_ciede_twin.c: the chroma upsampling of ciede.h (one sample
 * position per pixel) and the pixel's CIEDE2000 difference (exactly 0 where the reference and
 * distorted triples are equal, as every term of the formula then is).
 */
#ifndef VMAF_FEATURE_CIEDE_DEVICE_H
#define VMAF_FEATURE_CIEDE_DEVICE_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stddef.h>
#include <stdint.h>
#endif

#include "ciede.h"
#if VMAF_DIALECT_C
#include "libvmaf/picture.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** How chroma reaches the luma grid (ciede.h). */
enum { VMAF_CIEDE_444 = 0, VMAF_CIEDE_420 = 1, VMAF_CIEDE_422 = 2 };

/** One picture's planes (host or device addresses; strides in bytes). */
typedef struct VmafCiedePlanes {
    const VMAF_GLOBAL unsigned char *data[3];
    size_t stride[3];
    unsigned w[3], h[3];
} VmafCiedePlanes;

VMAF_DEVICE_FN unsigned vmaf_ciede_sample_at(const VmafCiedePlanes *p, unsigned plane, unsigned bpc,
                                             unsigned r, unsigned c)
{
    const VMAF_GLOBAL unsigned char *row = p->data[plane] + (size_t)r * p->stride[plane];
    return bpc > 8 ? ((const VMAF_GLOBAL uint16_t *)row)[c] : row[c];
}

/** Chroma plane `plane` (1 or 2) at luma pixel (i, j), as ciede.h maps it. */
VMAF_DEVICE_FN float vmaf_ciede_chroma_at(const VmafCiedePlanes *p, unsigned plane, unsigned bpc,
                                          unsigned layout, unsigned i, unsigned j)
{
    const unsigned cw = p->w[plane], ch = p->h[plane];
    if (!cw || !ch) return 0.0f;
    if (layout == VMAF_CIEDE_444) return (float)vmaf_ciede_sample_at(p, plane, bpc, i, j);
    if (layout == VMAF_CIEDE_420) {
        const unsigned r = i / 2 < ch ? i / 2 : ch - 1, c = j / 2 < cw ? j / 2 : cw - 1;
        return (float)vmaf_ciede_sample_at(p, plane, bpc, r, c);
    }
    const unsigned stride = (cw + 31u) & ~31u; /* 4:2:2, read as the reference reads it */
    const unsigned r = i / 2 + j / stride, c = j % stride;
    return (r < ch && c < cw) ? (float)vmaf_ciede_sample_at(p, plane, bpc, r, c) : 0.0f;
}

/** The CIEDE2000 difference at pixel (i, j) of a frame of bpc bits. */
VMAF_DEVICE_FN float vmaf_ciede_pixel(const VmafCiedePlanes *ref, const VmafCiedePlanes *dis,
                                      unsigned bpc, unsigned layout, unsigned i, unsigned j)
{
    const float ry = (float)vmaf_ciede_sample_at(ref, 0, bpc, i, j);
    const float dy = (float)vmaf_ciede_sample_at(dis, 0, bpc, i, j);
    const float ru = vmaf_ciede_chroma_at(ref, 1, bpc, layout, i, j);
    const float rv = vmaf_ciede_chroma_at(ref, 2, bpc, layout, i, j);
    const float du = vmaf_ciede_chroma_at(dis, 1, bpc, layout, i, j);
    const float dv = vmaf_ciede_chroma_at(dis, 2, bpc, layout, i, j);
    if (ry == dy && ru == du && rv == dv) return 0.0f;
    return vmaf_ciede2000(vmaf_ciede_lab(vmaf_dfrom_float(ry), vmaf_dfrom_float(ru),
                                         vmaf_dfrom_float(rv), bpc),
                          vmaf_ciede_lab(vmaf_dfrom_float(dy), vmaf_dfrom_float(du),
                                         vmaf_dfrom_float(dv), bpc));
}

#if VMAF_DIALECT_C
/** The chroma layout of a pixel format (4:0:0 is refused before this is asked). */
static inline unsigned vmaf_ciede_layout(enum VmafPixelFormat fmt)
{
    return fmt == VMAF_PIX_FMT_YUV444P   ? VMAF_CIEDE_444
           : fmt == VMAF_PIX_FMT_YUV420P ? VMAF_CIEDE_420
                                         : VMAF_CIEDE_422;
}

/** A host picture's planes. */
static inline VmafCiedePlanes vmaf_ciede_planes_of(const VmafPicture *pic)
{
    VmafCiedePlanes p;
    for (int k = 0; k < 3; k++) {
        p.data[k] = (const unsigned char *)pic->data[k];
        p.stride[k] = (size_t)pic->stride[k];
        p.w[k] = pic->w[k];
        p.h[k] = pic->h[k];
    }
    return p;
}

struct VmafFeatureSink;
/** Writes the frame's score from the row-major double sum of the differences (ciede.c). */
int vmaf_ciede_store(unsigned w, unsigned h, double sum, unsigned index,
                     struct VmafFeatureSink *sink);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_CIEDE_DEVICE_H */
