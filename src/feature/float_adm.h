/*
 * Twin VMAF — float ADM (extractor "float_adm"), as reference libvmaf 3.2.0 computes it
 * for the vmaf_float_* models.
 *
 * Input: the luma planes as floats (float_filter.h: v / 2^(bpc-8) - 128). Four scales; at
 * scale s the images are the reference and distorted band A of scale s-1 (the planes at
 * scale 0), w x h, and every band of the scale is ceil(w/2) x ceil(h/2). In float, every
 * product and sum rounded in the order written:
 *
 *  1. DWT (db2, taps VMAF_FLOAT_ADM_DWT_LO/HI). Output row i reads rows 2i-1 .. 2i+2, output
 *     column j columns 2j-1 .. 2j+2, each index p mapped to -p below 0 and 2n-1-p past the
 *     end (n the line length). Vertical pass: lo = 0 + L0 s0 + L1 s1 + L2 s2 + L3 s3 and
 *     hi with H; horizontal: A = L * lo, V = H * lo, H = L * hi, D = H * hi.
 *  2. Regions of a band of w x h: inner [l, w-l) x [t, h-t) with l = (int)(w*0.1 - 0.5),
 *     t likewise; outer [max(l',0), min(w-l'+2, w)) with l' = (int)(w*0.1 - 1.5).
 *  3. Decouple (outer region), per band H, V, D with reference o and distorted t:
 *       k = clamp(t * rcp(o + 1e-30f), 0, 1), r = k o,
 *     rcp the x86 RCPSS approximation refined by one Newton step (vmaf_float_adm_rcp);
 *     if the (H, V) angles agree within 1 degree (dot >= 0 and dot^2 >= cos^2(1 deg)
 *     |o|^2 |t|^2, all float), r > 0 becomes min(r * egl, t) and r < 0 max(r * egl, t)
 *     (in double, rounded to float); a = t - r.
 *  4. CSF (outer region): c = f_b * x for x in r and a, f_b the band's weight
 *     (H, V: factor 1, D: factor 2); m = (float)(0.0333333351 * |c|) (a double product).
 *  5. Masking (inner region, the reference's visiting order: row 0, rows 1 .. h-2, row h-1;
 *     in each, column 0, columns 1 .. w-2, column w-1, each only where the inner region
 *     reaches it): for a pixel, per band the threshold adds, over the 3x3 neighbourhood
 *     (rows i-1, i, i+1 with -1 -> 1 and h -> h-1, columns likewise), the m values of the
 *     other part, except the centre, which adds 0.0666666701 * |c| of the other part in
 *     double; the bands' sums are added H, V, D. x = max(|c| - threshold, 0), summed as
 *     x^3 (x*x*x; powf(x, (float)p) for p != 3) per row in float, the rows in float.
 *     num (DLM) scores c of r against the masks of a; aim (AIM) c of a against the masks
 *     of r, with noise weight 0.
 *  6. Per band, powf(sum, 1/p) + powf((float)(area * noise_weight), 1/p) (area of the inner
 *     region, 1/p = (float)(1.0f / p)); the scale's value is H + V + D. The denominator
 *     does the same with |f_b * reference band| and no masking.
 *  powf is glibc's (the golden files' bits): vmaf_xpowf (xpowf.h), on the CPU and the GPU.
 *  num and den sum the scales in double; each below 1e-10 * w * h / (1920 * 1080) is 0;
 *  adm2 = num / den (1 when den is 0), aim = min(aim_num / aim_den, 1), adm3 = max(adm2 *
 *  dlmw + (1 - aim)(1 - dlmw), min) (with adm_adm3_apply_hm: max(2 adm2 aim / (adm2 + aim),
 *  min)).
 *
 * Reciprocal. On x86 the reference divides through _mm_rcp_ss (RCPSS, a 12-bit estimate)
 * refined by one Newton step, so its float_adm scores depend on the CPU's RCPSS. Twin VMAF
 * computes Intel's RCPSS in software, on every machine: the output mantissa is
 * round(2^25 / (4097 + 2k)) - 4096 (12 bits) for the top 11 input mantissa bits k, zero and
 * subnormal inputs give inf, inf gives 0, results below the normal range are flushed to 0
 * (checked against an Intel CPU on all 2^32 inputs). With it, every score equals reference
 * libvmaf's built and run on an Intel CPU (checked on all the shared clips). The golden
 * files were made on a CPU whose RCPSS differs (an AMD CPU with AVX-512, most likely):
 * 50 of their 126 frames differ from Intel's in the last bits of adm2/aim/adm_scaleN.
 *
 * Sizes and undefined cases (the reference reads outside its buffers or leaves the value
 * uninitialised; Twin VMAF defines them):
 *   - lines of 1 sample: DWT and mask indices are clamped into the line;
 *   - den = 0 (nothing measurable): adm2 = 1 as in the reference, and aim = 0 (the
 *     reference writes an uninitialised value).
 */
#ifndef VMAF_FEATURE_FLOAT_ADM_H
#define VMAF_FEATURE_FLOAT_ADM_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#include "f64.h"
#include "float_filter.h"
#include "xpowf.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VMAF_FLOAT_ADM_SCALES = 4,
    VMAF_FLOAT_ADM_TAPS = 4,
    VMAF_FLOAT_ADM_RCP_ENTRIES = 2048, /**< 11 input mantissa bits */
};

/* Constants the reference writes as double literals (rounded to float where it stores a
 * float); the two of the masking are doubles of the kernels too (f64.h). */
#define VMAF_FLOAT_ADM_BORDER_FACTOR 0.1
#define VMAF_FLOAT_ADM_ONE_BY_30 VMAF_DCONST(0.0333333351, 0x3fa11111203e01fc)
#define VMAF_FLOAT_ADM_ONE_BY_15 VMAF_DCONST(0.0666666701, 0x3fb111111fd00e7d)
#define VMAF_FLOAT_ADM_EPS 1e-30f
/** Luminance (cd/m^2) the Barten CSF is evaluated at. */
#define VMAF_FLOAT_ADM_LUMINANCE 100.0

/* The db2 taps as floats: each decimal's nearest float, which is also the float nearest its
 * double (the reference writes them as double literals stored in floats; test_float_adm_f64
 * checks both roundings agree). */
#define VMAF_FLOAT_ADM_DWT_LO_TAPS                                                        \
    0.482962913144690f, 0.836516303737469f, 0.224143868041857f, -0.129409522550921f
#define VMAF_FLOAT_ADM_DWT_HI_TAPS                                                        \
    -0.129409522550921f, -0.224143868041857f, 0.836516303737469f, -0.482962913144690f
static VMAF_CONSTANT const float vmaf_float_adm_dwt_lo[VMAF_FLOAT_ADM_TAPS] = {
    VMAF_FLOAT_ADM_DWT_LO_TAPS
};
static VMAF_CONSTANT const float vmaf_float_adm_dwt_hi[VMAF_FLOAT_ADM_TAPS] = {
    VMAF_FLOAT_ADM_DWT_HI_TAPS
};

/** Contrast sensitivity functions (option adm_csf_mode; other values act as WATSON97). */
enum VmafFloatAdmCsfMode {
    VMAF_FLOAT_ADM_CSF_WATSON97 = 0,
    VMAF_FLOAT_ADM_CSF_BARTEN = 1,
    VMAF_FLOAT_ADM_CSF_NATIVE = 2, /**< the CSF of the DLM paper (Li et al. 2011) */
};

/* Option defaults. */
#define VMAF_FLOAT_ADM_DEFAULT_ENHN_GAIN_LIMIT 100.0
#define VMAF_FLOAT_ADM_DEFAULT_NORM_VIEW_DIST 3.0
#define VMAF_FLOAT_ADM_DEFAULT_REF_DISPLAY_HEIGHT 1080
#define VMAF_FLOAT_ADM_DEFAULT_NOISE_WEIGHT 0.03125
#define VMAF_FLOAT_ADM_DEFAULT_P_NORM 3.0
#define VMAF_FLOAT_ADM_DEFAULT_DLM_WEIGHT 0.5

/* The options and the run's parameters: host only (no kernel reads them; a program built
 * without fp64 names no double). */
#if !VMAF_DIALECT_OPENCL
/** The extractor options (names and aliases in float_adm.c's option table). */
typedef struct VmafFloatAdmOptions {
    bool debug;                 /**< also write adm, adm_num/den and per scale */
    double enhn_gain_limit;     /**< adm_enhn_gain_limit (egl), [1,100], default 100 */
    double norm_view_dist;      /**< adm_norm_view_dist (nvd), [0.75,24], default 3 */
    double noise_weight;        /**< adm_noise_weight (nw), [0,1500], default 0.03125 */
    double csf_scale;           /**< adm_csf_scale (scf), [0,50], default 1 */
    double csf_diag_scale;      /**< adm_csf_diag_scale (scfd), [0,50], default 1 */
    int ref_display_height;     /**< adm_ref_display_height (rdf), [1,4320], default 1080 */
    int csf_mode;               /**< adm_csf_mode (csf), [0,9], default 0 */
    int bypass_cm;              /**< adm_bypass_cm (bcm), [0,1]: masking threshold 0 */
    bool adm3_apply_hm;         /**< adm_adm3_apply_hm (aah): harmonic mean for adm3 */
    double p_norm;              /**< adm_p_norm (apn), [1,20], default 3 */
    double dlm_weight;          /**< adm_dlm_weight (dlmw), [0,1], default 0.5 */
    double min_val;             /**< adm_min_val (min), [0,1], default 0: floor of adm3 */
    double factor1[VMAF_FLOAT_ADM_SCALES]; /**< adm_f1s0..3 (f1sN), [-1,10]: H/V weight
                                                override when >= 0 */
    double factor2[VMAF_FLOAT_ADM_SCALES]; /**< adm_f2s0..3 (f2sN): D weight override */
    int skip_aim_scale;         /**< adm_skip_aim_scale (sasc), default -1: a scale left out
                                     of the AIM sums */
    bool skip_scale0;           /**< adm_skip_scale0 (ssz): scale 0 contributes nothing */
} VmafFloatAdmOptions;

/** What the per-scale stages need, fixed for a run. */
typedef struct VmafFloatAdmParams {
    float rfactor[VMAF_FLOAT_ADM_SCALES][3]; /**< CSF weight of H, V, D per scale */
    double enhn_gain_limit;
    double noise_weight;
    double p_norm;
    bool bypass_cm;
    bool skip_scale0;
} VmafFloatAdmParams;

/** The CSF weights of every scale for the options, as the reference evaluates them. */
void vmaf_float_adm_params(const VmafFloatAdmOptions *opt, VmafFloatAdmParams *p);
#endif

/** Mantissa (23-bit field) of RCPSS(1 + k/2048), the x86 reciprocal approximation. */
VMAF_DEVICE_FN uint32_t vmaf_float_adm_rcp_mantissa(uint32_t k)
{
    const uint64_t d = 4097 + 2 * (uint64_t)k;
    return (uint32_t)(((1ull << 26) + d) / (2 * d) - 4096) << 11;
}

/**
 * RCPSS of x: the 12-bit reciprocal approximation of x86 (Intel), from a table of
 * vmaf_float_adm_rcp_mantissa values (in device-global memory in OpenCL C: VMAF_GLOBAL, as
 * are the threshold's planes below).
 */
VMAF_DEVICE_FN float vmaf_float_adm_rcpss(const VMAF_GLOBAL uint32_t *table, float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof(u));
    const uint32_t sign = u & 0x80000000u, exponent = (u >> 23) & 0xFF;
    uint32_t r;
    if (exponent == 0xFF) {
        r = (u & 0x007FFFFFu) ? (u | 0x00400000u) : sign; /* NaN stays (quiet), inf -> 0 */
    } else if (exponent == 0) {
        r = sign | 0x7F800000u; /* zero and subnormals -> inf */
    } else {
        const int e = 253 - (int)exponent; /* the table's values lie in [0.5, 1) */
        r = e <= 0 ? sign : sign | ((uint32_t)e << 23) | table[(u >> 12) & 0x7FF];
    }
    float f;
    memcpy(&f, &r, sizeof(f));
    return f;
}

/** The reference's reciprocal: RCPSS refined by one Newton step, in float. */
VMAF_DEVICE_FN float vmaf_float_adm_rcp(const VMAF_GLOBAL uint32_t *table, float x)
{
    const float xi = vmaf_float_adm_rcpss(table, x);
    return xi + xi * (1.0f - x * xi);
}

/** Band planes of one scale; A is absent for the decoupled, CSF and mask bands. */
typedef struct VmafFloatAdmBands {
    float *a, *h, *v, *d;
} VmafFloatAdmBands;

/** Buffers for one picture size; not shared between threads. */
typedef struct VmafFloatAdmWorkspace {
    unsigned w, h;                 /**< picture size */
    size_t stride;                 /**< floats per band row */
    VmafFloatAdmBands ref, dis;    /**< DWT bands (A of a scale is the next scale's input) */
    VmafFloatAdmBands r, a;        /**< decoupled: restored and additive parts */
    VmafFloatAdmBands csf_r, csf_a, mask_r, mask_a;
    float *lo, *hi;                /**< DWT vertical-pass rows */
    float *terms;                  /**< masking terms of a row (3 bands + thresholds) */
    uint32_t rcp[VMAF_FLOAT_ADM_RCP_ENTRIES];
    void *block;                   /**< the band allocation */
} VmafFloatAdmWorkspace;

int vmaf_float_adm_workspace_init(VmafFloatAdmWorkspace *ws, unsigned w, unsigned h);
void vmaf_float_adm_workspace_close(VmafFloatAdmWorkspace *ws);

/** The per-scale values: DLM numerator, denominator and AIM numerator. */
typedef struct VmafFloatAdmScale {
    float num, den, aim_num;
} VmafFloatAdmScale;

#if !VMAF_DIALECT_OPENCL
/**
 * The four scales of float planes ref and dis of the workspace's size (stride in floats),
 * computed by the build `impl` (float_filter.h). With skip_scale0, scale 0 gives num 0,
 * den 1e-10f, aim_num 0 as in the reference. 0, or -ENOTSUP for a build this CPU lacks.
 */
int vmaf_float_adm_scales(enum VmafFloatImpl impl, VmafFloatAdmWorkspace *ws,
                          const VmafFloatAdmParams *p, const float *ref, const float *dis,
                          ptrdiff_t stride, VmafFloatAdmScale out[VMAF_FLOAT_ADM_SCALES]);
#endif

/* ---- the stages (float_adm_tools.c), for the unit test and the GPU twin ---- */

/** Region [left, right) x [top, bottom) of a band. */
typedef struct VmafFloatAdmRegion {
    int left, top, right, bottom;
} VmafFloatAdmRegion;

/** Where decouple and CSF work (one sample around the scored region). */
VmafFloatAdmRegion vmaf_float_adm_region_outer(int w, int h);
/** Where masking and the denominator sum. */
VmafFloatAdmRegion vmaf_float_adm_region_inner(int w, int h);

/** DWT tap index: p < 0 -> -p, p >= n -> 2n-1-p, then clamped into [0, n). */
VMAF_DEVICE_FN int vmaf_float_adm_dwt_index(int p, int n)
{
    if (p < 0) p = -p;
    else if (p >= n) p = 2 * n - p - 1;
    return p < 0 ? 0 : (p >= n ? n - 1 : p);
}

/* ---- per-element arithmetic shared with the CUDA twin (host and device) ---------------- */

/** 0 + f0 s0 + f1 s1 + f2 s2 + f3 s3 in float. */
VMAF_DEVICE_FN float vmaf_float_adm_taps4(const float *f, float s0, float s1, float s2, float s3)
{
    float acc = 0.0f;
    acc += f[0] * s0;
    acc += f[1] * s1;
    acc += f[2] * s2;
    acc += f[3] * s3;
    return acc;
}

/**
 * The four bands at one output of a DWT level from its 4 x 4 window (win[k][u] = the
 * source at row index(2i-1+k), column index(2j-1+u)): out = A, V, H, D (lo_only: A only).
 */
VMAF_DEVICE_FN void vmaf_float_adm_dwt_at(const float win[4][4], int lo_only, float out[4])
{
    const float L[4] = { VMAF_FLOAT_ADM_DWT_LO_TAPS }, H[4] = { VMAF_FLOAT_ADM_DWT_HI_TAPS };
    float lo[4], hi[4];
    for (int u = 0; u < 4; u++) {
        lo[u] = vmaf_float_adm_taps4(L, win[0][u], win[1][u], win[2][u], win[3][u]);
        hi[u] = vmaf_float_adm_taps4(H, win[0][u], win[1][u], win[2][u], win[3][u]);
    }
    out[0] = vmaf_float_adm_taps4(L, lo[0], lo[1], lo[2], lo[3]);
    if (lo_only) return;
    out[1] = vmaf_float_adm_taps4(H, lo[0], lo[1], lo[2], lo[3]);
    out[2] = vmaf_float_adm_taps4(L, hi[0], hi[1], hi[2], hi[3]);
    out[3] = vmaf_float_adm_taps4(H, hi[0], hi[1], hi[2], hi[3]);
}

/**
 * r enhanced by the gain limit egl where the angles agree: r > 0 becomes (float)min(r egl, t),
 * r < 0 (float)max(r egl, t), in double (the second test sees the first's result).
 *
 * Where doubles are software and egl is a float (the default 100 and every option with at
 * most 24 significant bits), in fp32: r egl (two floats) is exact in double, so the double
 * path rounds once, (float)min(r egl, t) = min(RN(r egl), t) (rounding to nearest is monotone
 * and t is a float), and RN(r egl) is the fp32 product r * egl; (double)r > 0.0 is r > 0.0f.
 * Otherwise the double steps on f64.h.
 */
VMAF_DEVICE_FN float vmaf_float_adm_enhance(float r, float t, vmaf_double gain_limit)
{
#if VMAF_DOUBLE_SOFT
    const uint64_t gb = vmaf_dbits(gain_limit);
    const int ge = (int)(gb >> 52 & 0x7ff) - 1023;
    if (!(gb & UINT64_C(0x1fffffff)) && !(gb >> 63) && ge >= -126 && ge <= 127) {
        /* egl's bits as a float's: sign 0, exponent rebiased, the top 23 fraction bits */
        const float egl = vmaf_float_of_bits((uint32_t)(ge + 127) << 23 |
                                             (uint32_t)(gb >> 29 & 0x7fffff));
        if (r > 0.0f) {
            const float g = r * egl;
            r = g < t ? g : t;
        }
        if (r < 0.0f) {
            const float g = r * egl;
            r = g > t ? g : t;
        }
        return r;
    }
#endif
    const vmaf_double zero = VMAF_DCONST(0.0, 0x0000000000000000);
    if (vmaf_dlt(zero, vmaf_dfrom_float(r))) { /* r > 0.0 */
        const vmaf_double g = vmaf_dmul(vmaf_dfrom_float(r), gain_limit);
        const vmaf_double td = vmaf_dfrom_float(t);
        r = vmaf_dto_float(vmaf_dlt(g, td) ? g : td);
    }
    if (vmaf_dlt(vmaf_dfrom_float(r), zero)) { /* r < 0.0 */
        const vmaf_double g = vmaf_dmul(vmaf_dfrom_float(r), gain_limit);
        const vmaf_double td = vmaf_dfrom_float(t);
        r = vmaf_dto_float(vmaf_dlt(td, g) ? g : td); /* g > t */
    }
    return r;
}

/** The restored part of one band sample (reference o, distorted t), enhanced where the
 * angles agree. */
VMAF_DEVICE_FN float vmaf_float_adm_restore(const VMAF_GLOBAL uint32_t *rcp, float o, float t,
                                            bool angle_flag, vmaf_double gain_limit)
{
    float k = t * vmaf_float_adm_rcp(rcp, o + VMAF_FLOAT_ADM_EPS);
    k = k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k);
    float r = k * o;
    if (angle_flag)
        r = vmaf_float_adm_enhance(r, t, gain_limit);
    return r;
}

/** Whether the (H, V) angles of reference and distorted agree within 1 degree. */
VMAF_DEVICE_FN bool vmaf_float_adm_angle_flag(float oh, float ov, float th, float tv,
                                              float cos_1deg_sq)
{
    const float ot_dp = oh * th + ov * tv;
    const float o_mag_sq = oh * oh + ov * ov;
    const float t_mag_sq = th * th + tv * tv;
    return ot_dp >= 0.0f && ot_dp * ot_dp >= cos_1deg_sq * o_mag_sq * t_mag_sq;
}

/* The masking constants as float pairs, exactly: 0.0333333351 (as a double) = ONE_BY_30_HI +
 * ONE_BY_30_LO and 0.0666666701 = ONE_BY_15_HI + ONE_BY_15_LO (test_float_adm_f64 checks). */
#define VMAF_FLOAT_ADM_ONE_BY_30_HI 0x1.111112p-5f
#define VMAF_FLOAT_ADM_ONE_BY_30_LO 0x1.f00fep-36f
#define VMAF_FLOAT_ADM_ONE_BY_15_HI 0x1.111112p-4f
#define VMAF_FLOAT_ADM_ONE_BY_15_LO -0x1.7f8c18p-35f

/* a b + c rounded once, in fp32 (OpenCL's fma of floats; C's fmaf) */
#if VMAF_DIALECT_OPENCL
#define VMAF_FLOAT_ADM_FMAF(a, b, c) fma((float)(a), (float)(b), (float)(c))
#else
#define VMAF_FLOAT_ADM_FMAF(a, b, c) fmaf(a, b, c)
#endif

/**
 * (float)(d x) for x = |c| >= 0 and the double d = hi + lo of a pair above, as
 * fma(hi, x, lo x) in fp32 where x is in [2^-60, FLT_MAX]: test_float_adm_f64 compares the two
 * on every float of [1, 4); across that range every operation and result is a normal float
 * (lo x >= 2^-96, the result >= 2^-65), so both forms scale exactly with x's exponent and the
 * binades checked stand for all. Below 2^-60, inf and NaN: the double steps (f64.h).
 */
VMAF_DEVICE_FN float vmaf_float_adm_scaled(vmaf_double d, float hi, float lo, float x)
{
#if VMAF_DOUBLE_SOFT
    if (x >= 0x1p-60f && x <= 0x1.fffffep127f)
        return VMAF_FLOAT_ADM_FMAF(hi, x, lo * x);
#else
    (void)hi;
    (void)lo;
#endif
    return vmaf_dto_float(vmaf_dmul(d, vmaf_dfrom_float(x)));
}

/** The masking value of a CSF value: (float)(0.0333333351 |c|), the product in double. */
VMAF_DEVICE_FN float vmaf_float_adm_mask_value(float c)
{
    return vmaf_float_adm_scaled(VMAF_FLOAT_ADM_ONE_BY_30, VMAF_FLOAT_ADM_ONE_BY_30_HI,
                                 VMAF_FLOAT_ADM_ONE_BY_30_LO, vmaf_fabsf(c));
}

/**
 * (float)(s + 0.0666666701 x), the product and the sum in double (the threshold's centre).
 *
 * Where doubles are software, for s and x each 0 or in [2^-60, 2^100], in fp32 (every value
 * a normal float or 0 below). x = 0: s + x (IEEE's signed zeros, as the double sum's). s = 0:
 * the double sum is the product, whose float vmaf_float_adm_scaled gives. Otherwise, with
 * d = H + L exactly (ONE_BY_15_HI, _LO) and V = s + d x:
 *   p = H x, e = fma(H, x, -p) (H x = p + e exactly), q = L x; (a, b) = TwoSum(s, p) (s + p =
 *   a + b exactly); c = e + q; dd = b + c; f = a + dd; res = dd - (f - a) (Fast2Sum, |dd| <=
 *   |a|: a + dd = f + res exactly). With u = 2^-24 each rounding: a + dd - V = u1 L x +
 *   u2 (e + q) + u3 (b + c), |L x| <= 1.41 2^-31 |H x|, |e| <= 2^-24 |p|, |b| <= 2^-24 |a|:
 *   |a + dd - V| <= 3.05 x 2^-48 V. The double path's W = fl(s + fl(d x)) has |W - V| <= 2^-52
 *   V. So |W - (f + res)| <= 2^-46.2 |f|, and where |res| < h (1 - 2^-19), h half the gap
 *   between f and its neighbour on res's side (2^(e_f - 24), halved below a power of two),
 *   W lies strictly inside f's rounding interval (2^-19 h >= 2^-44 |f|): the result is f.
 * Otherwise (and where doubles are hardware) the double steps (f64.h).
 */
VMAF_DEVICE_FN float vmaf_float_adm_add_centre(float s, float x)
{
#if VMAF_DOUBLE_SOFT
    if ((s == 0.0f || (s >= 0x1p-60f && s <= 0x1p100f)) &&
        (x == 0.0f || (x >= 0x1p-60f && x <= 0x1p100f))) {
        if (x == 0.0f)
            return s + x;
        if (s == 0.0f)
            return vmaf_float_adm_scaled(VMAF_FLOAT_ADM_ONE_BY_15, VMAF_FLOAT_ADM_ONE_BY_15_HI,
                                         VMAF_FLOAT_ADM_ONE_BY_15_LO, x);
        const float hi = VMAF_FLOAT_ADM_ONE_BY_15_HI, lo = VMAF_FLOAT_ADM_ONE_BY_15_LO;
        const float p = hi * x, e = VMAF_FLOAT_ADM_FMAF(hi, x, -p), q = lo * x;
        const float a = s + p, v = a - s, b = (s - (a - v)) + (p - v);
        const float dd = b + (e + q);
        const float f = a + dd, res = dd - (f - a);
        const uint32_t fb = vmaf_bits_of_float(f);
        float h = vmaf_float_of_bits((fb & 0x7f800000u) - (24u << 23)); /* 2^(e_f - 24) */
        if (res < 0.0f && !(fb & 0x007fffffu))
            h *= 0.5f;
        if (vmaf_fabsf(res) < h - h * 0x1p-19f)
            return f;
    }
#endif
    return vmaf_dto_float(vmaf_dadd(vmaf_dfrom_float(s),
                                    vmaf_dmul(VMAF_FLOAT_ADM_ONE_BY_15,
                                              vmaf_dfrom_float(x))));
}

/**
 * The masking threshold at (i, j) of a w x h band: per band b, the 3x3 mask values of the
 * other part (neighbours -1 -> 1 and n -> n-1, kept in the band) with the centre replaced
 * by 0.0666666701 |c| in double, added in the reference's order; the bands added H, V, D.
 */
VMAF_DEVICE_FN float vmaf_float_adm_threshold(const VMAF_GLOBAL float *const mask[3],
                                              const VMAF_GLOBAL float *const csf[3],
                                              ptrdiff_t stride, int w, int h, int i, int j)
{
    int rows[3] = { i == 0 ? 1 : i - 1, i, i == h - 1 ? h - 1 : i + 1 };
    int cols[3] = { j == 0 ? 1 : j - 1, j, j == w - 1 ? w - 1 : j + 1 };
    for (int k = 0; k < 3; k++) {
        if (rows[k] >= h) rows[k] = h - 1;
        if (cols[k] >= w) cols[k] = w - 1;
    }
    float threshold = 0.0f;
    for (int b = 0; b < 3; b++) {
        const VMAF_GLOBAL float *m0 = mask[b] + rows[0] * stride;
        const VMAF_GLOBAL float *m1 = mask[b] + rows[1] * stride;
        const VMAF_GLOBAL float *m2 = mask[b] + rows[2] * stride;
        const float centre = csf[b][rows[1] * stride + cols[1]];
        float sum = 0.0f;
        sum += m0[cols[0]];
        sum += m0[cols[1]];
        sum += m0[cols[2]];
        sum += m1[cols[0]];
        sum = vmaf_float_adm_add_centre(sum, vmaf_fabsf(centre));
        sum += m1[cols[2]];
        sum += m2[cols[0]];
        sum += m2[cols[1]];
        sum += m2[cols[2]];
        threshold += sum;
    }
    return threshold;
}

/**
 * x^p as the reference raises a masked or denominator term: x * x * x when adm_p_norm is
 * 3.0 (cube), else powf(x, (float)adm_p_norm), with glibc's bits (xpowf.h).
 */
VMAF_DEVICE_FN float vmaf_float_adm_power(float x, bool cube, float p)
{
    return cube ? x * x * x : vmaf_xpowf(x, p);
}

/** A masked term: max(|c| - threshold, 0)^p (vmaf_float_adm_power). */
VMAF_DEVICE_FN float vmaf_float_adm_term(float c, float threshold, bool cube, float p)
{
    float x = vmaf_fabsf(c) - threshold;
    x = x < 0.0f ? 0.0f : x;
    return vmaf_float_adm_power(x, cube, p);
}

/**
 * The reference's visiting order of the masked sums along one axis of a band of n lines
 * with the inner region [lo, hi): line 0 (if lo <= 0), lines max(lo,1) .. min(hi,n-1)-1,
 * line n-1 (if hi > n-1); a line can come twice (n = 1).
 */
typedef struct VmafFloatAdmVisit {
    int first, start, end, last, n;
} VmafFloatAdmVisit;

VMAF_DEVICE_FN VmafFloatAdmVisit vmaf_float_adm_visit(int lo, int hi, int n)
{
    VmafFloatAdmVisit v;
    v.first = lo <= 0;
    v.start = lo > 1 ? lo : 1;
    v.end = hi < n - 1 ? hi : n - 1;
    v.last = hi > n - 1;
    v.n = n;
    return v;
}

VMAF_DEVICE_FN int vmaf_float_adm_visit_count(VmafFloatAdmVisit v)
{
    return v.first + (v.end > v.start ? v.end - v.start : 0) + v.last;
}

/** The line of visit k. */
VMAF_DEVICE_FN int vmaf_float_adm_visit_at(VmafFloatAdmVisit v, int k)
{
    if (v.first) {
        if (k == 0) return 0;
        k--;
    }
    const int span = v.end > v.start ? v.end - v.start : 0;
    return k < span ? v.start + k : v.n - 1;
}

/** (float)(cos^2 1 degree), the angle test's constant. */
float vmaf_float_adm_cos_1deg_sq(void);

#if !VMAF_DIALECT_OPENCL
/**
 * A scale's value from the three bands' float sums: powf(sum, 1/p) + the noise floor
 * powf((float)(area_w area_h noise_weight), 1/p), added H + V + D (on the host).
 */
float vmaf_float_adm_band_value(const float total[3], int area_w, int area_h,
                                double noise_weight, double p_norm);
#endif

/**
 * One DWT level of a w x h float image (stride in floats) into ceil(w/2) x ceil(h/2)
 * bands (stride dst_stride). lo_only computes band A only. src may be dst->a (in place, as
 * the reference does from scale 1 on): each output row is written after the rows it reads.
 * lo and hi are rows of w floats.
 */
void vmaf_float_adm_dwt(const float *src, ptrdiff_t src_stride, int w, int h,
                        const VmafFloatAdmBands *dst, ptrdiff_t dst_stride, bool lo_only,
                        float *lo, float *hi);

#if VMAF_DIALECT_C
#include "feature_extractor.h"

/** The extractor's state (shared with its CUDA twin). */
typedef struct FloatAdmState {
    VmafFloatAdmOptions opt;
    unsigned w, h;
    size_t stride;
    float *ref, *dis;
    VmafFloatAdmParams params;
    VmafFloatAdmWorkspace ws;
} FloatAdmState;

/** The scores from the four scales' values. */
int vmaf_float_adm_store(const FloatAdmState *s, const VmafFloatAdmScale scale[VMAF_FLOAT_ADM_SCALES],
                         unsigned index, VmafFeatureSink *sink);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_FLOAT_ADM_H */
