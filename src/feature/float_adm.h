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
 *     x^3 (x*x*x; powf(x, p) for p != 3) per row in float, the rows in float.
 *     num (DLM) scores c of r against the masks of a; aim (AIM) c of a against the masks
 *     of r, with noise weight 0.
 *  6. Per band, powf(sum, 1/p) + powf((float)(area * noise_weight), 1/p) (area of the inner
 *     region); the scale's value is H + V + D. The denominator does the same with
 *     |f_b * reference band| and no masking.
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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "float_filter.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VMAF_FLOAT_ADM_SCALES = 4,
    VMAF_FLOAT_ADM_TAPS = 4,
    VMAF_FLOAT_ADM_RCP_ENTRIES = 2048, /**< 11 input mantissa bits */
};

/* Constants the reference writes as double literals (rounded to float where it stores a
 * float). */
#define VMAF_FLOAT_ADM_BORDER_FACTOR 0.1
#define VMAF_FLOAT_ADM_ONE_BY_30 0.0333333351
#define VMAF_FLOAT_ADM_ONE_BY_15 0.0666666701
#define VMAF_FLOAT_ADM_EPS 1e-30f
/** Luminance (cd/m^2) the Barten CSF is evaluated at. */
#define VMAF_FLOAT_ADM_LUMINANCE 100.0

static const float vmaf_float_adm_dwt_lo[VMAF_FLOAT_ADM_TAPS] = {
    0.482962913144690, 0.836516303737469, 0.224143868041857, -0.129409522550921,
};
static const float vmaf_float_adm_dwt_hi[VMAF_FLOAT_ADM_TAPS] = {
    -0.129409522550921, -0.224143868041857, 0.836516303737469, -0.482962913144690,
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

/** Mantissa (23-bit field) of RCPSS(1 + k/2048), the x86 reciprocal approximation. */
static inline uint32_t vmaf_float_adm_rcp_mantissa(uint32_t k)
{
    const uint64_t d = 4097 + 2 * (uint64_t)k;
    return (uint32_t)(((1ull << 26) + d) / (2 * d) - 4096) << 11;
}

/**
 * RCPSS of x: the 12-bit reciprocal approximation of x86 (Intel), from a table of
 * vmaf_float_adm_rcp_mantissa values.
 */
static inline float vmaf_float_adm_rcpss(const uint32_t *table, float x)
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
static inline float vmaf_float_adm_rcp(const uint32_t *table, float x)
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

/**
 * The four scales of float planes ref and dis of the workspace's size (stride in floats),
 * computed by the build `impl` (float_filter.h). With skip_scale0, scale 0 gives num 0,
 * den 1e-10f, aim_num 0 as in the reference. 0, or -ENOTSUP for a build this CPU lacks.
 */
int vmaf_float_adm_scales(enum VmafFloatImpl impl, VmafFloatAdmWorkspace *ws,
                          const VmafFloatAdmParams *p, const float *ref, const float *dis,
                          ptrdiff_t stride, VmafFloatAdmScale out[VMAF_FLOAT_ADM_SCALES]);

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
static inline int vmaf_float_adm_dwt_index(int p, int n)
{
    if (p < 0) p = -p;
    else if (p >= n) p = 2 * n - p - 1;
    return p < 0 ? 0 : (p >= n ? n - 1 : p);
}

/**
 * One DWT level of a w x h float image (stride in floats) into ceil(w/2) x ceil(h/2)
 * bands (stride dst_stride). lo_only computes band A only. src may be dst->a (in place, as
 * the reference does from scale 1 on): each output row is written after the rows it reads.
 * lo and hi are rows of w floats.
 */
void vmaf_float_adm_dwt(const float *src, ptrdiff_t src_stride, int w, int h,
                        const VmafFloatAdmBands *dst, ptrdiff_t dst_stride, bool lo_only,
                        float *lo, float *hi);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_FLOAT_ADM_H */
