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

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stddef.h>
#include <stdint.h>
#endif

#include "f64.h"
#include "float_filter.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VMAF_FLOAT_ANSNR_REF_WIDTH = 3,
    VMAF_FLOAT_ANSNR_DIS_WIDTH = 5,
};

/* Host and CUDA only down to the per-element arithmetic: the OpenCL kernels get the filter
 * kernels through their arguments (the host copies these), and a program built without fp64
 * names no double (the quotients below would be float ones there). */
#if !VMAF_DIALECT_OPENCL
/* The kernels as the reference writes them (double quotients rounded to float). */
static VMAF_CONSTANT const float vmaf_float_ansnr_ref_kernel[3 * 3] = {
    1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0,
    2.0 / 16.0, 4.0 / 16.0, 2.0 / 16.0,
    1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0,
};
static VMAF_CONSTANT const float vmaf_float_ansnr_dis_kernel[5 * 5] = {
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
#endif

/* ---- per-element arithmetic shared with the CUDA twins (host and device) --------------- */

/** ANSNR's border rule: -p for p < 0, 2n-1-p for p >= n, then kept inside [0, n). */
VMAF_DEVICE_FN int vmaf_float_ansnr_index(int p, int n)
{
    if (p < 0) p = -p;
    else if (p >= n) p = 2 * n - p - 1;
    return p < 0 ? 0 : (p >= n ? n - 1 : p);
}

/**
 * One output of ANSNR's 2-D filter from its kw x kw window (win[u kw + v] = the source at
 * row index(i - kw/2 + u), column index(j - kw/2 + v)): 0 + the kernel rows' sums (each
 * 0 + its products left to right) in kernel-row order.
 */
VMAF_DEVICE_FN float vmaf_float_ansnr_filter_window(const float *k, int kw, const float *win)
{
    float acc = 0.0f;
    for (int u = 0; u < kw; u++) {
        float row = 0.0f;
        for (int v = 0; v < kw; v++)
            row += k[u * kw + v] * win[u * kw + v];
        acc += row;
    }
    return acc;
}

/** ANSNR's float sums over one row of the filtered planes, left to right. */
VMAF_DEVICE_FN void vmaf_float_ansnr_row_sums(const VMAF_GLOBAL float *r,
                                              const VMAF_GLOBAL float *d, unsigned w,
                                              float *sig, float *noise)
{
    float row_sig = 0.0f, row_noise = 0.0f;
    for (unsigned j = 0; j < w; j++) {
        row_sig += r[j] * r[j];
        row_noise += (r[j] - d[j]) * (r[j] - d[j]);
    }
    *sig = row_sig;
    *noise = row_noise;
}

/** float_psnr's term of one sample pair (a float square, added to a double by the CPU). */
VMAF_DEVICE_FN float vmaf_float_psnr_term(float r, float d)
{
    const float diff = r - d;
    return diff * diff;
}

/*
 * The double sums of float_psnr and float_moment, exactly, in any order. Every term is a
 * float >= 0 that is a multiple of 2^-q: q = bpc - 8 for a sample (float_moment's first
 * moments), 2 (bpc - 8) for a square of samples or of their difference (a float square of
 * k 2^-s is k^2 2^-2s rounded to 24 bits, still a multiple of 2^-2s). So each term is an
 * integer number of units 2^-q, below 2^32, and the CPU's serial double sum is exact (equal
 * to the integer sum of the units times 2^-q) as long as every partial sum stays below
 * 2^53 units: the partial sums only grow, so whenever the total is below 2^53 units. Beyond
 * (only possible above 12 bits with bright, large planes) the sum is finished serially from
 * the first row where the exact prefix of whole rows would reach 2^53 units.
 */
#define VMAF_FLOAT_STATS_EXACT_UNITS (1ull << 53)

/**
 * A term in units of 2^-q (exact: the term is a multiple of 2^-q below 2^32 units), 0 <= q
 * <= 63. In float, and equal to (uint64_t)((double)t * (double)(1ull << q)) wherever that is
 * defined (its product below 2^64, not NaN): the factor 2^q is exact in float as in double;
 * the exact product t 2^q is then below 2^64, far under FLT_MAX, and a float times a power of
 * two that does not overflow is exact, so both products are that value and both conversions
 * truncate it alike. Only a subnormal t could lose bits in float (flushed to zero where
 * denormals are not kept), and then t 2^q < 2^-126 2^63 < 1 truncates to 0 either way.
 */
VMAF_DEVICE_FN uint64_t vmaf_float_stats_units(float t, int q)
{
    return (uint64_t)(t * (float)(1ull << q));
}

/** Units back to the double the CPU's sum holds (exact below 2^53 units). */
VMAF_DEVICE_FN vmaf_double vmaf_float_stats_from_units(uint64_t units, int q)
{
    return vmaf_ddiv(vmaf_dfrom_u64(units), vmaf_dfrom_u64(1ull << q));
}

/**
 * The finish of one such sum from its per-row unit sums. Returns 1 with *sum the CPU's
 * value when the whole sum stays below 2^53 units; else 0, with *row the first row whose
 * addition would reach 2^53 units and *sum the exact (CPU's) sum of the rows before it:
 * the CPU's sum then continues serially, term by term in double, from that row.
 */
VMAF_DEVICE_FN int vmaf_float_stats_finish(const VMAF_GLOBAL uint64_t *row_units, unsigned h,
                                           int q, vmaf_double *sum, unsigned *row)
{
    uint64_t total = 0;
    for (unsigned i = 0; i < h; i++) {
        if (total + row_units[i] >= VMAF_FLOAT_STATS_EXACT_UNITS) {
            *row = i;
            *sum = vmaf_float_stats_from_units(total, q);
            return 0;
        }
        total += row_units[i];
    }
    *row = h;
    *sum = vmaf_float_stats_from_units(total, q);
    return 1;
}

/** The unit exponent q of float_moment's sum m (0: ref1st, 1: dis1st, 2: ref2nd, 3: dis2nd). */
VMAF_DEVICE_FN int vmaf_float_moment_unit(int m, unsigned bpc)
{
    return m < 2 ? (int)bpc - 8 : 2 * ((int)bpc - 8);
}

/**
 * ANSNR's 2-D filter of a w x h float plane (strides in floats) with kernel k of width kw;
 * border indices: -p for p < 0, 2n-1-p for p >= n (then kept inside the plane). scratch
 * holds 3 w + 2 kw floats.
 */
void vmaf_float_ansnr_filter(const float *k, int kw, const float *src, ptrdiff_t src_stride,
                             int w, int h, float *dst, ptrdiff_t dst_stride, float *scratch);

#if VMAF_DIALECT_C
#include "feature_extractor.h"

/* The scores from the sums (the extractors' and the twins' common final step). */
int vmaf_float_psnr_store(unsigned w, unsigned h, unsigned bpc, double noise, unsigned index,
                          VmafFeatureSink *sink);
int vmaf_float_ansnr_store(unsigned w, unsigned h, unsigned bpc, float sig, float noise,
                           unsigned index, VmafFeatureSink *sink);
/** sums: ref1st, dis1st, ref2nd, dis2nd, each the CPU's double sum before the division. */
int vmaf_float_moment_store(unsigned w, unsigned h, const double sums[4], unsigned index,
                            VmafFeatureSink *sink);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_FLOAT_STATS_H */
