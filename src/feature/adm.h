/*
 * Twin VMAF — integer ADM (extractor "adm"): the detail-loss / additive-impairment measure.
 *
 * Shared pieces other back ends (a GPU twin, tests/extractors/test_adm.c) need: constants, tables,
 * options, the work-buffer layout and one entry point per stage.
 *
 * Pipeline per frame (luma only), for scale s = 0..3:
 *   1. DWT: one level of a 4-tap Daubechies wavelet (filters VMAF_ADM_FILTER_LO/HI) on the
 *      reference and the distorted band A of the previous scale (the pictures at scale 0),
 *      giving bands A (lo-lo), V (lo-hi: low-pass vertically, high-pass horizontally),
 *      H (hi-lo) and D (hi-hi), each ceil(w/2) x ceil(h/2). Scale 0 works in int16,
 *      scales 1..3 in int32 with scale-dependent rounding shifts.
 *   2. Decouple: per pixel, the distorted detail (H, V, D) is split into the part explained by
 *      the reference, r = clamp(t/o, 0, 1) * o (with an enhancement allowance when the
 *      (H,V) angles agree within 1 degree), and the additive rest a = t - r.
 *   3. CSF: r and a are weighted by a contrast sensitivity factor per band orientation.
 *   4. Contrast masking: num = sum over a central region of max(|csf(r)| - mask, 0)^3,
 *      where mask is a 3x3 sum of |csf(a)|/30 (the centre |csf(a)|/15), cube-rooted;
 *      den = the same sum of |reference band|^3 without masking. AIM swaps r and a.
 *   adm2 = sum(num) / sum(den), aim = sum(aim num) / sum(den),
 *   adm3 = max(adm2 * dlmw + (1 - aim) * (1 - dlmw), min_val).
 *
 * Exactness. The golden scores come from reference libvmaf 3.2.0 built with its AVX-512
 * kernels, which differ from its scalar C code in a few places. Twin VMAF reproduces that
 * build. Most differences are per column group: a kernel processes columns in groups of G
 * starting at the left edge of its region and hands the remaining columns (fewer than G) to
 * scalar code. Inside groups ("vector columns"):
 *   - decouple, scale 0 (G = 16): the dot products of the angle test are int32 (wrapping),
 *     and the enhanced value r * gain is rounded to nearest-even instead of truncated;
 *   - decouple, scales 1..3 (G = 16): r * gain is rounded to nearest-even;
 *   - CSF, scale 0 (G = 16): the mask value is taken from the CSF output before its int16
 *     truncation;
 *   - CSF and masking, scales 1..3 (G = 16 and 6): the Q32 CSF weight is used as a signed
 *     int32, and masking keeps 64-bit intermediates;
 *   - masking, scale 0 (G = 14, only when the region lies strictly inside the band): the
 *     centre term of the mask is not truncated to int16;
 *   - masking (both): each group is computed in 16 (scale 0) or 8 lanes, and the spare lanes
 *     add the bare rounding term of the cube, which is not 0 when that term saturated.
 * Conversions in the AVX-512 code saturate (vmaf_adm_to_u32()): Barten weights above 1
 * become 0xFFFFFFFF and some rounding terms 2^-1 or 2^huge become 0xFFFFFFFF; the constant
 * weight -22 of an unsupported blend geometry is folded to 0 by the reference's compiler.
 * The DWT kernels compute output columns 1 .. in groups of 32 (scale 0, 8-bit), 64 (scale 0,
 * 9..16-bit) or 8 (scales 1..3) with unmirrored input positions. When the groups reach the
 * last output column (half - 1 a multiple of G) that column reads past the end of its input
 * line into the next line of the work row buffer. The work buffers below keep the
 * reference's layout so those reads (and the reads of row/column -1 the reference's index
 * tables make for lines of 3 or 4 samples) see the same values; all buffers start zeroed,
 * which is what the golden scores reflect. Past the last line of the row buffer the scale-0
 * DWT reads zeros (cleared per DWT) and scales 1..3 what the previous scale's last row left,
 * so a frame's scores never depend on an earlier frame (nor on the thread count). Reference libvmaf crashes on pictures of 16 rows
 * or columns or fewer; Twin VMAF scores them with the same rules, reading only its own
 * buffers (the picture rows those rules would read outside the picture are reflected).
 */
#ifndef VMAF_FEATURE_ADM_H
#define VMAF_FEATURE_ADM_H

#include "dialect.h"
#include "f64.h" /* VMAF_DOUBLE_SOFT: the kernels' forms without fp64 */
#if !VMAF_DIALECT_OPENCL
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------- */
/* Constants                                                                             */

enum {
    VMAF_ADM_SCALES = 4,
    VMAF_ADM_TAPS = 4,
    VMAF_ADM_FILTER_LO_SUM = 46342, /**< sum of the low-pass taps */
    VMAF_ADM_ONE_BY_15 = 8738,      /**< 2^17 / 15, scale-0 mask centre */
    VMAF_ADM_FIX_ONE_BY_30 = 4369,  /**< 2^17 / 30, scale-0 mask */
    VMAF_ADM_I4_ONE_BY_15 = 286331153, /**< 2^32 / 15, scales 1..3 mask centre */
    VMAF_ADM_I4_FIX_ONE_BY_30 = 143165577, /**< 2^32 / 30, scales 1..3 mask */
    VMAF_ADM_MIN_VIEW_PRODUCT = 3240, /**< smallest norm_view_dist * ref_display_height */
};

/** Low- and high-pass taps of the db2 wavelet in Q15 (a line of length 4 per output), as
 *  initialisers (for the arrays below and for device code). */
#define VMAF_ADM_FILTER_LO_TAPS { 15826, 27411, 7345, -4240 }
#define VMAF_ADM_FILTER_HI_TAPS { -4240, -7345, 27411, -15826 }
/* These tables and those below (adm_tables.c) are the host's: an OpenCL program links with
 * none of our .c files. */
#if !VMAF_DIALECT_OPENCL
extern const int16_t vmaf_adm_filter_lo[VMAF_ADM_TAPS];
extern const int16_t vmaf_adm_filter_hi[VMAF_ADM_TAPS];
#endif

/** Share of each side of a band left out of the scores. */
#define VMAF_ADM_BORDER_FACTOR 0.1
/** Luminance (cd/m^2) the Barten CSF is evaluated at. */
#define VMAF_ADM_CSF_LUMINANCE 100.0

/** Contrast sensitivity functions (option adm_csf_mode). */
enum VmafAdmCsfMode {
    VMAF_ADM_CSF_WATSON97 = 0,     /**< Watson et al. 1997 wavelet quantization thresholds */
    VMAF_ADM_CSF_BARTEN = 1,       /**< Barten's CSF as simplified in HDR-VDP-2 */
    VMAF_ADM_CSF_BLEND = 2,        /**< tabulated Barten/Watson blend (v1.0.16 models) */
    VMAF_ADM_CSF_BLEND_MAE = 3,    /**< the same blend refitted (v1.0.17+ models) */
};

/* Option defaults (and the bounds the option table enforces). */
#define VMAF_ADM_DEFAULT_CSF_SCALE 1.0
#define VMAF_ADM_DEFAULT_CSF_DIAG_SCALE 1.0
#define VMAF_ADM_DEFAULT_DLM_WEIGHT 0.5
#define VMAF_ADM_DEFAULT_ENHN_GAIN_LIMIT 100.0
#define VMAF_ADM_DEFAULT_NORM_VIEW_DIST 3.0
#define VMAF_ADM_DEFAULT_REF_DISPLAY_HEIGHT 1080
#define VMAF_ADM_DEFAULT_NOISE_WEIGHT 0.03125
#define VMAF_ADM_DEFAULT_MIN_VAL 0.0

/* Host only from here to the work buffers: no kernel reads the options, tables or scale
 * factors (the host passes the kernels what they need), and a program built without fp64
 * names no double. */
#if !VMAF_DIALECT_OPENCL
/* ------------------------------------------------------------------------------------- */
/* Tables (adm_tables.c)                                                                 */

/** Watson 1997 noise-floor model of luma: a, k, f0 and g per orientation (LL, LH, HH, HL). */
typedef struct VmafAdmWatsonParams {
    float a, k, f0, g[4];
} VmafAdmWatsonParams;
extern const VmafAdmWatsonParams vmaf_adm_watson_luma;
/** Basis function amplitudes A(lambda, theta) of the 7-9 biorthogonal wavelet. */
extern const float vmaf_adm_watson_amplitude[6][4];

/** Barten CSF: luminance anchors, their fitted parameters and the MTF / rod-cone terms. */
extern const float vmaf_adm_barten_anchor[6];
extern const float vmaf_adm_barten_param[6][5];
extern const float vmaf_adm_barten_sa[4];
extern const float vmaf_adm_barten_mtf_a[4];
extern const float vmaf_adm_barten_mtf_b[4];

/** One tabulated blend CSF: weights [0 = H/V, 1 = D][scale] for a display geometry. */
typedef struct VmafAdmBlendTable {
    int ref_display_height;
    double norm_view_dist;
    float weight[2][VMAF_ADM_SCALES];
} VmafAdmBlendTable;
extern const VmafAdmBlendTable vmaf_adm_blend[];      /**< NULL-height terminated */
extern const VmafAdmBlendTable vmaf_adm_blend_mae[];  /**< NULL-height terminated */

/* ------------------------------------------------------------------------------------- */
/* Options and derived per-scale factors                                                 */

/** The extractor options (names and aliases in adm.c's option table). */
typedef struct VmafAdmOptions {
    bool debug;                  /**< also write num/den per scale */
    double csf_scale;            /**< adm_csf_scale (scf), [0,50], default 1 (Barten H/V) */
    double csf_diag_scale;       /**< adm_csf_diag_scale (scfd), [0,50], default 1 (Barten D) */
    double dlm_weight;           /**< adm_dlm_weight (dlmw), [0,1], default 0.5 */
    double enhn_gain_limit;      /**< adm_enhn_gain_limit (egl), [1,100], default 100 */
    double norm_view_dist;       /**< adm_norm_view_dist (nvd), [0.75,24], default 3 */
    int ref_display_height;      /**< adm_ref_display_height (rdh), [1,4320], default 1080 */
    int csf_mode;                /**< adm_csf_mode (csf), enum VmafAdmCsfMode, default 0 */
    double noise_weight;         /**< adm_noise_weight (nw), [0,1500], default 0.03125 */
    bool skip_aim;               /**< adm_skip_aim: write aim = 0 without computing it */
    bool skip_scale0;            /**< adm_skip_scale0 (ssz): scale 0 contributes nothing */
    double min_val;              /**< adm_min_val (min), [0,1], default 0: floor of adm3 */
} VmafAdmOptions;

/** Constants of one scale, fixed for a run. */
typedef struct VmafAdmScaleFactors {
    float rfactor[3];   /**< CSF weight of H, V, D (float, as the den sums use it) */
    /** Fixed-point CSF weight: scale 0 uint16 in Q21 (H, V) / Q23 (D); scales 1..3 Q32. */
    uint32_t i_rfactor[3];
} VmafAdmScaleFactors;

/**
 * CSF weights of one scale for H/V (*hv) and D (*d), in float as the reference computes
 * them. An unsupported display geometry for the blend modes gives -22 (the reference's
 * -EINVAL read as a weight); vmaf_adm_scale_factors() then makes the fixed-point weights 0,
 * as the reference's compiler folds that constant's conversion.
 */
void vmaf_adm_csf_weights(const VmafAdmOptions *opt, unsigned scale, float *hv, float *d);

/** All per-scale factors for the options. */
void vmaf_adm_scale_factors(const VmafAdmOptions *opt, VmafAdmScaleFactors f[VMAF_ADM_SCALES]);
#endif /* !VMAF_DIALECT_OPENCL */

/* ------------------------------------------------------------------------------------- */
/* Work buffers                                                                          */

typedef struct VmafAdmBands16 {
    int16_t *a, *h, *v, *d;
} VmafAdmBands16;

typedef struct VmafAdmBands32 {
    int32_t *a, *h, *v, *d;
} VmafAdmBands32;

/**
 * Band buffers of one extractor instance, in the reference's order inside one zeroed block:
 * scale-0 (int16) ref A,H,V,D, dis A,H,V,D, decoupled r H,V,D and a H,V,D, CSF-of-a H,V,D,
 * mask H,V,D; then the same ten groups in int32 for scales 1..3. Every band has
 * ceil(h/2) rows of `stride` elements (the same element stride for int16 and int32 bands).
 */
typedef struct VmafAdmBuffers {
    unsigned w, h;        /**< picture size */
    size_t stride;        /**< elements per band row */
    size_t band_bytes;    /**< bytes of one int32 band (int16 bands take half) */
    void *block;          /**< the band allocation (with guards) */
    size_t block_bytes;   /**< its size */
    void *row_block;      /**< the row-buffer allocation (with a guard) */
    /** Vertical-pass rows: scale 0 uses int16 lo|hi of w each, scales 1..3 int32
     *  ref lo|ref hi|dis lo|dis hi of the scale's width each. */
    int32_t *rows;
    size_t row_bytes;     /**< usable bytes of `rows` */
    /** Use the hand-written SIMD stages (*_simd); set by vmaf_adm_buffers_alloc() from
     *  vmaf_adm_simd_available(), and may be cleared to run the plain stages. */
    bool simd;
    VmafAdmBands16 ref16, dis16, r16, a16, csf16, mask16; /**< A unused for the last four */
    VmafAdmBands32 ref32, dis32, r32, a32, csf32, mask32;
} VmafAdmBuffers;

int vmaf_adm_buffers_alloc(VmafAdmBuffers *b, unsigned w, unsigned h);
/** The same pipeline in under half the memory (what the extractor's instances use): from
 *  64x64 up, csf and mask take the bands of dis and ref (dead by then), and the int32 bands
 *  of scales 1..3 other than A share the memory of the (dead) scale-0 int16 bands, so the
 *  block no longer has vmaf_adm_layout()'s offsets; the totals are the same. Smaller
 *  pictures get vmaf_adm_buffers_alloc()'s block. */
int vmaf_adm_buffers_alloc_compact(VmafAdmBuffers *b, unsigned w, unsigned h);
void vmaf_adm_buffers_free(VmafAdmBuffers *b);
/** Zero every buffer (done per frame for pictures of 4 rows or columns or fewer, whose
 *  index tables reach into buffer content left by an earlier frame). */
void vmaf_adm_buffers_clear(VmafAdmBuffers *b);

/* ------------------------------------------------------------------------------------- */
/* Stages                                                                                */

/**
 * Index of tap k (0..3) of output position j (0 <= j < ceil(n/2)) in a line of n samples,
 * as the reference's index tables give it: 2j-1+k, mirrored (p -> 2n-1-p) past the end; the
 * first output uses 1,0,1,2, except for n = 3 or 4, where it uses -1,0,1,2.
 */
VMAF_DEVICE_FN int vmaf_adm_tap(int j, int k, int n)
{
    if (j == 0)
        return k ? k - 1 : ((n + 1) / 2 == 2 ? -1 : 1);
    const int p = 2 * j - 1 + k;
    return p < n ? p : 2 * n - p - 1;
}

/**
 * Scale-0 DWT of one picture plane (w x h samples of bpc bits: uint8 when bpc == 8, else
 * uint16; stride in bytes) into the int16 bands H, V, D of dst and band A, whose int16
 * values go straight to the int32 band_a that scale 1 reads (dst->a is not written).
 * lo_only computes band A only, with mirrored taps throughout (the reference's
 * adm_skip_scale0 path). `rows` is the buffers' row buffer.
 */
void vmaf_adm_dwt_scale0(const void *src, ptrdiff_t stride, unsigned bpc, int w, int h,
                         int16_t *rows, const VmafAdmBands16 *dst, int32_t *band_a,
                         size_t dst_stride, bool lo_only);

/**
 * DWT of scale s (1..3) of the reference and distorted band A (w x h, in place in ref->a and
 * dis->a) into int32 bands. Either may be NULL (a reference side, vmaf_adm_ref_side_*):
 * that picture's lines of `rows` are then neither written nor its bands; a straight last
 * column (adm_device.h) of the other still reads those lines as they are.
 */
void vmaf_adm_dwt_scale123(const VmafAdmBands32 *ref, const VmafAdmBands32 *dis,
                           int32_t *rows, int w, int h, size_t stride, unsigned scale);

/** Region a stage works on: columns [left, right), rows [top, bottom). */
typedef struct VmafAdmRegion {
    int left, top, right, bottom;
} VmafAdmRegion;

/*
 * The border (int)(n * 0.1 - 0.5 - off) of a side of n >= 0 samples (off = 1 outer, none
 * inner), as the double expression gives it, is (n - 5 - 10 off) / 10 in C's int division
 * (truncation toward zero), for 0 <= n < 2^31. Proof: let v = n / 10 and x the double result
 * before the truncation. The double 0.1 is 0.1 (1 + 2^-54) exactly (3602879701896397 / 2^55),
 * so n * 0.1 = v (1 + 2^-54) before rounding. (a) n = 5 mod 10: v = m + 1/2 is a double (v <
 * 2^28), and v 2^-54 is under half an ulp of v (ulp(v) > v 2^-53), so the product rounds to v;
 * v - 0.5 and - 1 are then exact, and x = (n - 5 - 10 off) / 10, an integer. (b) otherwise v -
 * 0.5 - off lies at least 0.1 from every integer, and 0.1's error v 2^-54 and the three roundings
 * (each under 2^-24 for values below 2^28) move it less: x truncates to the same integer as
 * the exact value, which is what the integer division gives (both truncate toward zero).
 * Without fp64 the integer form is used (a literal would be single precision there).
 */
#if VMAF_DOUBLE_SOFT
#define VMAF_ADM_BORDER_OUTER(n) (((n) - 15) / 10)
#define VMAF_ADM_BORDER_INNER(n) (((n) - 5) / 10)
#else
#define VMAF_ADM_BORDER_OUTER(n) ((int)((n) * VMAF_ADM_BORDER_FACTOR - 0.5 - 1))
#define VMAF_ADM_BORDER_INNER(n) ((int)((n) * VMAF_ADM_BORDER_FACTOR - 0.5))
#endif

/** Region of decouple and CSF (one sample wider than the scored region for the 3x3 mask). */
VMAF_DEVICE_FN VmafAdmRegion vmaf_adm_region_outer(int w, int h)
{
    /* the reference computes right/bottom from the unclamped left/top */
    const int left = VMAF_ADM_BORDER_OUTER(w);
    const int top = VMAF_ADM_BORDER_OUTER(h);
    VmafAdmRegion r = { left, top, w - left + 2, h - top + 2 };
    if (r.left < 0) r.left = 0;
    if (r.right > w) r.right = w;
    if (r.top < 0) r.top = 0;
    if (r.bottom > h) r.bottom = h;
    return r;
}

/** Region that is scored. */
VMAF_DEVICE_FN VmafAdmRegion vmaf_adm_region_inner(int w, int h)
{
    const int left = VMAF_ADM_BORDER_INNER(w);
    const int top = VMAF_ADM_BORDER_INNER(h);
    const VmafAdmRegion r = { left, top, w - left, h - top };
    return r;
}

/* Host only (to the shift parameters): the stages' entry points. */
#if !VMAF_DIALECT_OPENCL
/** cos^2(1 degree) as the angle test uses it (a float, computed in double). */
double vmaf_adm_cos2_1deg(void);

/** Decouple scale 0 over the outer region of a w x h band. */
void vmaf_adm_decouple_scale0(const VmafAdmBands16 *ref, const VmafAdmBands16 *dis,
                              const VmafAdmBands16 *r, const VmafAdmBands16 *a,
                              int w, int h, size_t stride, double gain_limit);
/** Decouple scales 1..3. */
void vmaf_adm_decouple_scale123(const VmafAdmBands32 *ref, const VmafAdmBands32 *dis,
                                const VmafAdmBands32 *r, const VmafAdmBands32 *a,
                                int w, int h, size_t stride, double gain_limit);

/** CSF of src (H, V, D) into dst, and its mask values into mask, over the outer region. */
void vmaf_adm_csf_scale0(const VmafAdmBands16 *src, const VmafAdmBands16 *dst,
                         const VmafAdmBands16 *mask, int w, int h, size_t stride,
                         const VmafAdmScaleFactors *f);
void vmaf_adm_csf_scale123(const VmafAdmBands32 *src, const VmafAdmBands32 *dst,
                           const VmafAdmBands32 *mask, int w, int h, size_t stride,
                           const VmafAdmScaleFactors *f);

/**
 * Masked sum (the numerator of a scale): src are the decoupled bands scored, csf and mask
 * the CSF output and mask values of the other part.
 */
float vmaf_adm_masked_sum_scale0(const VmafAdmBands16 *src, const VmafAdmBands16 *csf,
                                 const VmafAdmBands16 *mask, int w, int h, size_t stride,
                                 const VmafAdmScaleFactors *f, double noise_weight);
float vmaf_adm_masked_sum_scale123(const VmafAdmBands32 *src, const VmafAdmBands32 *csf,
                                   const VmafAdmBands32 *mask, int w, int h, size_t stride,
                                   const VmafAdmScaleFactors *f, unsigned scale,
                                   double noise_weight);

/** Denominator of a scale from the reference bands. */
float vmaf_adm_den_scale0(const VmafAdmBands16 *ref, int w, int h, size_t stride,
                          const VmafAdmScaleFactors *f, double noise_weight);
float vmaf_adm_den_scale123(const VmafAdmBands32 *ref, int w, int h, size_t stride,
                            const VmafAdmScaleFactors *f, unsigned scale,
                            double noise_weight);

/*
 * The sums above in two steps: the integer totals per orientation (H, V, D) of a scale, then
 * the floating-point finish the reference applies to them. vmaf_adm_masked_sum_* and
 * vmaf_adm_den_* are totals + finish; a GPU twin computes the totals on the device and
 * finishes them with these same functions.
 */
void vmaf_adm_masked_totals_scale0(const VmafAdmBands16 *src, const VmafAdmBands16 *csf,
                                   const VmafAdmBands16 *mask, int w, int h, size_t stride,
                                   const VmafAdmScaleFactors *f, uint64_t total[3]);
void vmaf_adm_masked_totals_scale123(const VmafAdmBands32 *src, const VmafAdmBands32 *csf,
                                     const VmafAdmBands32 *mask, int w, int h, size_t stride,
                                     const VmafAdmScaleFactors *f, uint64_t total[3]);
float vmaf_adm_masked_finish_scale0(const uint64_t total[3], int w, int h, double noise_weight);
float vmaf_adm_masked_finish_scale123(const uint64_t total[3], int w, int h, unsigned scale,
                                      double noise_weight);
void vmaf_adm_den_totals_scale0(const VmafAdmBands16 *ref, int w, int h, size_t stride,
                                uint64_t total[3]);
void vmaf_adm_den_totals_scale123(const VmafAdmBands32 *ref, int w, int h, size_t stride,
                                  unsigned scale, uint64_t total[3]);
float vmaf_adm_den_finish_scale0(const uint64_t total[3], int w, int h,
                                 const VmafAdmScaleFactors *f, double noise_weight);
float vmaf_adm_den_finish_scale123(const uint64_t total[3], int w, int h,
                                   const VmafAdmScaleFactors *f, unsigned scale,
                                   double noise_weight);
#endif /* !VMAF_DIALECT_OPENCL */

/**
 * Shift counts and rounding terms of the masked sum of a w x h band (scale 0, or any of
 * 1..3): per orientation the cube's, and the per-row total's. Counts saturate like the
 * reference's conversions (a 64-bit shift by a count acts mod 64).
 */
typedef struct VmafAdmCmParams {
    uint32_t cub_shift[3], cub_round[3];
    uint32_t row_shift, row_round;
} VmafAdmCmParams;
void vmaf_adm_cm_params(int w, int h, unsigned scale, VmafAdmCmParams *p);

/** The same for the denominator (scale 0 uses only row_shift / row_round). */
typedef struct VmafAdmDenParams {
    uint32_t sq_shift, cub_shift, row_shift;
    uint64_t sq_round, cub_round, row_round;
} VmafAdmDenParams;
void vmaf_adm_den_params(int w, int h, unsigned scale, VmafAdmDenParams *p);

/* Host only (to the integer helpers): the frame's scores, the layout, the state and the SIMD
 * stages. */
#if !VMAF_DIALECT_OPENCL

/** A frame's integer totals, [scale][orientation H, V, D]. */
typedef struct VmafAdmTotals {
    uint64_t num[VMAF_ADM_SCALES][3];
    uint64_t aim[VMAF_ADM_SCALES][3];
    uint64_t den[VMAF_ADM_SCALES][3];
} VmafAdmTotals;

/** Per-frame results. */
typedef struct VmafAdmScores {
    double adm2, aim, adm3;
    double num, den;               /**< sums over the scales (after the noise floor) */
    double num_scale[VMAF_ADM_SCALES], den_scale[VMAF_ADM_SCALES];
} VmafAdmScores;

/**
 * Score one frame pair (luma planes of w x h, bpc bits, strides in bytes) with buffers
 * allocated for w x h.
 */
void vmaf_adm_score(VmafAdmBuffers *b, const VmafAdmOptions *opt,
                    const VmafAdmScaleFactors f[VMAF_ADM_SCALES],
                    const void *ref, ptrdiff_t ref_stride,
                    const void *dis, ptrdiff_t dis_stride, unsigned bpc,
                    VmafAdmScores *out);

/** The integer part of vmaf_adm_score(): the frame's totals (the buffers hold every band). */
void vmaf_adm_score_totals(VmafAdmBuffers *b, const VmafAdmOptions *opt,
                           const VmafAdmScaleFactors f[VMAF_ADM_SCALES],
                           const void *ref, ptrdiff_t ref_stride,
                           const void *dis, ptrdiff_t dis_stride, unsigned bpc,
                           VmafAdmTotals *t);

/*
 * The reference side: what a frame's pipeline computes from the reference alone (its DWT
 * bands H, V, D at every scale and the denominator totals), made once for the contexts that
 * score one reference (a ladder's rungs, picture.h), and the rest of the pipeline from it:
 * the same totals as vmaf_adm_score_totals(), bit for bit, where vmaf_adm_ref_side_applies().
 *
 * Where the split is exact. The DWT of scales 1..3 runs both pictures' vertical passes into
 * one row buffer (lines ref lo | ref hi | dis lo | dis hi); a straight last column (band
 * width 1 mod 8, above 8) of the reference's hi line reads the first one or two values of
 * the distorted lo line, so the reference's H and D bands of that column depend on the
 * distorted picture. Nothing reads that column when it lies outside the decouple region
 * (vmaf_adm_region_outer; the denominator and masked sums stay inside it), which holds for
 * band widths of 45 and more. The distorted picture's own straight last column reads
 * what the previous scale left past its four lines: its own lo line there (or, at scale 1,
 * a part of the row buffer no stage writes), the same with or without the reference's
 * lines. Pictures under 64 rows or columns are left out (their index rules read outside
 * the bands, and their buffers are not the compact ones).
 */
/** Whether a w x h picture's totals split exactly into a reference side and the rest. */
bool vmaf_adm_ref_side_applies(unsigned w, unsigned h);
/** Bytes of a w x h picture's reference side. */
size_t vmaf_adm_ref_side_size(unsigned w, unsigned h);
/**
 * The reference side of ref (luma, w x h of b, bpc bits, stride in bytes) into mem (size
 * bytes, 64-byte aligned), with b's row buffer and reference A band as work space (b's
 * other bands are left as they are); lo_only as opt->skip_scale0 (then scale 0 has no
 * bands). Records b->simd: a side is read only with the same stages.
 * @return 0, or -EINVAL (size too small, or a picture the split does not apply to)
 */
int vmaf_adm_ref_side_compute(VmafAdmBuffers *b, bool lo_only, void *mem, size_t size,
                              const void *ref, ptrdiff_t ref_stride, unsigned bpc);
/**
 * vmaf_adm_score_totals() with the reference's part from side (read only).
 * @return 0, or -EINVAL (a side of another geometry, bit depth, stages or lo_only: nothing
 *         written)
 */
int vmaf_adm_score_totals_from_side(VmafAdmBuffers *b, const VmafAdmOptions *opt,
                                    const VmafAdmScaleFactors f[VMAF_ADM_SCALES],
                                    const void *side, const void *dis, ptrdiff_t dis_stride,
                                    unsigned bpc, VmafAdmTotals *t);

/** Scores of a frame from its totals (the floating-point part of vmaf_adm_score()). */
void vmaf_adm_scores_from_totals(const VmafAdmOptions *opt,
                                 const VmafAdmScaleFactors f[VMAF_ADM_SCALES], unsigned w,
                                 unsigned h, const VmafAdmTotals *t, VmafAdmScores *out);

/**
 * Byte offsets of the bands inside the buffers' block (VmafAdmBuffers.block), for a device
 * copy of the same layout: [group][band A, H, V, D], groups ref, dis, r, a, csf, mask; A is
 * present only for ref and dis (SIZE_MAX otherwise).
 */
typedef struct VmafAdmLayout {
    size_t stride;          /**< elements per band row */
    size_t band_bytes;      /**< bytes of one int32 band */
    size_t block_bytes;     /**< bytes of the whole block (guards included) */
    size_t off16[6][4], off32[6][4];
} VmafAdmLayout;
int vmaf_adm_layout(unsigned w, unsigned h, VmafAdmLayout *l);
/** The layout of vmaf_adm_buffers_alloc_compact()'s block (the full one below 64x64): what
 *  the extractor's instances use, so what their GPU twin uses. */
int vmaf_adm_layout_compact(unsigned w, unsigned h, VmafAdmLayout *l);

/** The extractor's private state (also read by its GPU twin). */
typedef struct VmafAdmState {
    VmafAdmOptions opt;
    VmafAdmScaleFactors factors[VMAF_ADM_SCALES];
    VmafAdmBuffers buf;
    unsigned w, h, bpc;
} VmafAdmState;

struct VmafFeatureSink;
/** Write a frame's scores as the extractor does (every output name, debug included). */
int vmaf_adm_store(const VmafAdmState *s, const VmafAdmScores *sc, unsigned index,
                   struct VmafFeatureSink *sink);

/* ------------------------------------------------------------------------------------- */
/* Hand-written SIMD stages (AVX2 on x86-64 with GCC or Clang)                           */

/** Whether the CPU runs the *_simd stages (false where they are not compiled: they then
 *  run the plain stages). */
bool vmaf_adm_simd_available(void);

/** The same as the stage without the suffix, bit for bit; only where
 *  vmaf_adm_simd_available(). */
void vmaf_adm_dwt_scale0_simd(const void *src, ptrdiff_t stride, unsigned bpc, int w, int h,
                              int16_t *rows, const VmafAdmBands16 *dst, int32_t *band_a,
                              size_t dst_stride, bool lo_only);
void vmaf_adm_dwt_scale123_simd(const VmafAdmBands32 *ref, const VmafAdmBands32 *dis,
                                int32_t *rows, int w, int h, size_t stride, unsigned scale);
void vmaf_adm_decouple_scale0_simd(const VmafAdmBands16 *ref, const VmafAdmBands16 *dis,
                                   const VmafAdmBands16 *r, const VmafAdmBands16 *a,
                                   int w, int h, size_t stride, double gain_limit);
void vmaf_adm_decouple_scale123_simd(const VmafAdmBands32 *ref, const VmafAdmBands32 *dis,
                                     const VmafAdmBands32 *r, const VmafAdmBands32 *a,
                                     int w, int h, size_t stride, double gain_limit);
#endif /* !VMAF_DIALECT_OPENCL */

/* ------------------------------------------------------------------------------------- */
/* Integer helpers shared by the stages                                                  */

/*
 * 2^30 / |d| with the sign of d, for 1 <= |d| <= 32768. The double quotient truncated is the
 * integer quotient q = floor(2^30 / m), m = |d|: 2^30 = q m + r with 0 <= r < m; for r = 0
 * the quotient q < 2^31 is exact, otherwise 2^30 / m lies at least 1/m >= 2^-15 from q and
 * from q + 1, and its double rounding moves it at most 2^-23 (half an ulp below 2^30), so it
 * truncates to q. Without fp64 the integer division gives q (VMAF_DOUBLE_SOFT; also in
 * vmaf_adm_explained0()).
 */
VMAF_DEVICE_FN int32_t vmaf_adm_reciprocal(int32_t d)
{
    const int32_t m = d < 0 ? -d : d;
#if VMAF_DOUBLE_SOFT
    const int32_t q = (int32_t)(1073741824u / (uint32_t)m);
#else
    const int32_t q = (int32_t)(1073741824.0 / (double)m);
#endif
    return d < 0 ? -q : q;
}

#if !VMAF_DIALECT_OPENCL

/**
 * double -> uint32 as the reference's AVX-512 code converts it (vcvttsd2usi): truncation,
 * and 0xFFFFFFFF for NaN and values out of range (>= 2^32, or <= -1). This saturation is why
 * Barten weights above 1 become 0xFFFFFFFF (-1 when the vector code reads them as int32),
 * and why 2^-1 and 2^huge rounding constants become 0xFFFFFFFF for bands of width 9..16
 * (scale 0) or of 1 sample.
 */
VMAF_DEVICE_FN uint32_t vmaf_adm_to_u32(double x)
{
    if (!(x > -1.0 && x < 4294967296.0))
        return 0xFFFFFFFFu;
    return (uint32_t)x;
}

/** double -> uint16 as x86-64 code converts it (through int32: out of range gives 0). */
VMAF_DEVICE_FN uint16_t vmaf_adm_to_u16(double x)
{
    if (!(x > -2147483649.0 && x < 2147483648.0))
        return 0;
    return (uint16_t)(uint32_t)(int32_t)x;
}
#endif /* !VMAF_DIALECT_OPENCL */

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_ADM_H */
