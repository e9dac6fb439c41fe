/*
 * Twin VMAF — the small float extractors of reference libvmaf 3.2.0: "float_psnr",
 * "float_ansnr" and "float_moment" (luma only, no options).
 *
 * Samples become floats as in float_filter.h, with offset 0 for float_psnr and
 * float_moment and -128 for float_ansnr. In float unless marked, sums in the order written:
 *
 * float_psnr:  noise = sum over rows and columns (double) of the float squares (r - d)^2,
 *              / (w*h); psnr = min(10 log10(peak^2 / max(noise, 1e-10)), psnr_max).
 * float_ansnr: R = ref filtered with the 3x3 kernel, D = dis with the 5x5 one (2-D, each
 *              sample 0 + sum over kernel rows of (0 + the row's products in order), borders
 *              reflected with -1 -> 1 and n -> n-1); sig = sum R^2, noise = sum (R - D)^2
 *              (float per row, rows in float); ansnr = noise == 0 ? psnr_max
 *              : 10 log10(sig / noise) (the quotient in float); anpsnr = min(10 log10(peak^2
 *              w h / max(noise, 1e-10)), psnr_max).
 * float_moment: ref1st/dis1st = sum (double) of the samples / (w*h), ref2nd/dis2nd the same
 *              of the float squares.
 * peak = (2^bpc - 1) / 2^(bpc-8) and psnr_max = 6 bpc + 12: 255 and 60 at 8 bits, 255.75
 * and 72 at 10, 255.9375 and 84 at 12, 255.99609375 and 108 at 16, which are the
 * reference's values. The reference refuses the other depths; Twin VMAF uses the same
 * formulas for them.
 */
#ifndef VMAF_FEATURE_FLOAT_STATS_H
#define VMAF_FEATURE_FLOAT_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VMAF_FLOAT_ANSNR_REF_WIDTH = 3,
    VMAF_FLOAT_ANSNR_DIS_WIDTH = 5,
};

/* The kernels as the reference writes them (double quotients rounded to float). */
static const float vmaf_float_ansnr_ref_kernel[3 * 3] = {
    1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0,
    2.0 / 16.0, 4.0 / 16.0, 2.0 / 16.0,
    1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0,
};
static const float vmaf_float_ansnr_dis_kernel[5 * 5] = {
    2.0 / 571.0,  7.0 / 571.0,  12.0 / 571.0,  7.0 / 571.0,  2.0 / 571.0,
    7.0 / 571.0,  31.0 / 571.0, 52.0 / 571.0,  31.0 / 571.0, 7.0 / 571.0,
    12.0 / 571.0, 52.0 / 571.0, 127.0 / 571.0, 52.0 / 571.0, 12.0 / 571.0,
    7.0 / 571.0,  31.0 / 571.0, 52.0 / 571.0,  31.0 / 571.0, 7.0 / 571.0,
    2.0 / 571.0,  7.0 / 571.0,  12.0 / 571.0,  7.0 / 571.0,  2.0 / 571.0,
};

/** Peak sample value (after the depth scaling) and PSNR cap for a depth. */
static inline double vmaf_float_stats_peak(unsigned bpc)
{
    return (double)((1u << bpc) - 1) / (double)(1u << (bpc - 8));
}

static inline double vmaf_float_stats_psnr_max(unsigned bpc)
{
    return 6.0 * bpc + 12.0;
}

/**
 * ANSNR's 2-D filter of a w x h float plane (strides in floats) with kernel k of width kw;
 * border indices: -p for p < 0, 2n-1-p for p >= n (then kept inside the plane). scratch
 * holds 3 w + 2 kw floats.
 */
void vmaf_float_ansnr_filter(const float *k, int kw, const float *src, ptrdiff_t src_stride,
                             int w, int h, float *dst, ptrdiff_t dst_stride, float *scratch);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_FLOAT_STATS_H */
