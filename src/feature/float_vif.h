/*
 * Twin VMAF — float VIF (extractor "float_vif"), as reference libvmaf 3.2.0 computes it for
 * the vmaf_float_* models.
 *
 * Input: the luma planes as floats (float_filter.h: v / 2^(bpc-8) - 128), resampled to
 * (int)(w * vif_prescale + 0.5) x (int)(h * vif_prescale + 0.5) with vif_prescale_method
 * when that differs from w x h (the resamplers of speed.h, which are the reference's).
 *
 * Filters. Scale s (0..3) uses a Gaussian of width W_s = max(odd_ceil((float)(2^(4-s) + 1)
 * * ks), 3), ks = vif_kernelscale, sigma = W_s / 5.0f, each tap exp(-x^2/2sigma^2) (double)
 * divided by the rounded 1/(sigma sqrt(2 pi)), all taps then divided by their float sum.
 * All filtering is the separable reflected float filter of float_filter.h.
 *
 * Scale s > 0 is scale s-1 filtered with filter s and decimated (even rows and columns,
 * floor(w/2) x floor(h/2)). At every scale, with filter s:
 *   mu1 = F ref, mu2 = F dis, xx = F (ref*ref), yy = F (dis*dis), xy = F (ref*dis)
 * (the squares and the product are taken per sample before the vertical pass), and per
 * pixel, in float unless marked:
 *   s1 = max(xx - mu1^2, 0), s2 = max(yy - mu2^2, 0), s12 = xy - mu1 mu2
 *   g = s12 / (s1 + 1e-10f),  sv = s2 - g s12
 *   s1 < 1e-10f: g = 0, sv = s2, s1 = 0;   s2 < 1e-10f: g = 0, sv = 0;   g < 0: sv = s2, g = 0
 *   sv = max(sv, 1e-10f),  g = min(g, (float)vif_enhn_gain_limit)
 *   num = L(1 + (g g s1) / (sv + N))   den = L(1 + s1 / N)     (the quotients in double)
 *   s12 < 0: num = 0
 *   s1 < N:  num = 1 - s2 * (float)(powf(N, 2) / 255^2),  den = 1
 * N = vif_sigma_nsq (a double) and L the reference's polynomial log2 approximation
 * (vmaf_float_vif_log2). num and den are summed in float per row, the row sums in float.
 * scale s score = num_s / den_s (double); scales 1..3 are raised to their min_val options.
 * vif_skip_scale0 skips scale 0 (score 0).
 *
 * Sizes. Where a plane is narrower than a filter the reference reads outside it; Twin VMAF
 * reflects periodically (float_filter.h). A scale with no samples has num = den = 0: its
 * score is NaN at scale 0 and min_val at scales 1..3 (max(NaN, min) keeps min).
 */
#ifndef VMAF_FEATURE_FLOAT_VIF_H
#define VMAF_FEATURE_FLOAT_VIF_H

#include "dialect.h"
#include "f64.h"
#if !VMAF_DIALECT_OPENCL
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#include "float_filter.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VMAF_FLOAT_VIF_SCALES = 4,
    /** Room for the widest filter a valid kernelscale gives (17 * 4 rounded to odd: 69). */
    VMAF_FLOAT_VIF_MAX_FILTER = 128,
    VMAF_FLOAT_VIF_NUM_KERNELSCALES = 21,
    /** Widest prescaled plane the bilinear method accepts (the reference's limit). */
    VMAF_FLOAT_VIF_BILINEAR_MAX_WIDTH = 7680,
};

/** Default of vif_enhn_gain_limit, also its upper bound (1.0 disables enhancement gain). */
#define VMAF_FLOAT_VIF_DEFAULT_ENHN_GAIN_LIMIT 100.0
#define VMAF_FLOAT_VIF_DEFAULT_KERNELSCALE 1.0
#define VMAF_FLOAT_VIF_DEFAULT_PRESCALE 1.0
#define VMAF_FLOAT_VIF_DEFAULT_PRESCALE_METHOD "nearest"
#define VMAF_FLOAT_VIF_DEFAULT_SIGMA_NSQ 2.0
/** The "no variance" threshold of the statistic. */
#define VMAF_FLOAT_VIF_EPS 1.0e-10f
/** A kernelscale within this of a listed value is valid. */
#define VMAF_FLOAT_VIF_KERNELSCALE_TOLERANCE 1e-3

/** The kernelscales the filters are defined for (as the reference lists them, in float).
 *  Host only (no kernel reads it; vmaf_fdiv is no constant on the software double). */
#if !VMAF_DIALECT_OPENCL
static VMAF_CONSTANT const float vmaf_float_vif_kernelscales[VMAF_FLOAT_VIF_NUM_KERNELSCALES] = {
    1.0, vmaf_fdiv(1.0f, 2.0f), vmaf_fdiv(3.0f, 2.0f), 2.0f, vmaf_fdiv(2.0f, 3.0f),
    vmaf_fdiv(24.0f, 10.0f), vmaf_fdiv(360.0f, 97.0f), vmaf_fdiv(4.0f, 3.0f),
    vmaf_fdiv(3.5f, 3.0f), vmaf_fdiv(3.75f, 3.0f), vmaf_fdiv(4.25f, 3.0f), vmaf_fdiv(5.0f, 3.0f),
    3.0f, vmaf_fdiv(1.0f, 2.25f),
    1.4746f, 1.54f, 1.6f, 1.06667f, 0.711111f, 0.740740f, 1.111111f,
};
#endif

/** Coefficients of the log2 approximation, highest power first (Horner in float). */
#define VMAF_FLOAT_VIF_LOG2_POLY                                                          \
    -0.012671635276421, 0.064841182402670, -0.157048836463065, 0.257167726303123,        \
        -0.353800560300520, 0.480131410397451, -0.721314327952201, 1.442694803896991, 0
static VMAF_CONSTANT const float vmaf_float_vif_log2_poly[9] = { VMAF_FLOAT_VIF_LOG2_POLY };

/**
 * The reference's log2 approximation: exponent + P(mantissa - 1), P the polynomial above
 * evaluated by Horner's rule in float. -inf at 0, NaN below.
 */
VMAF_DEVICE_FN float vmaf_float_vif_log2(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof(bits));
    const uint32_t exponent = (bits & 0x7F800000u) >> 23;
    const uint32_t mantissa_bits = (bits & 0x007FFFFFu) | 0x3F800000u;
    float mantissa;
    memcpy(&mantissa, &mantissa_bits, sizeof(mantissa));
    const float t = mantissa - 1.0f;
    const float poly[9] = { VMAF_FLOAT_VIF_LOG2_POLY }; /* also on the GPU */
    float p = 0;
    for (int i = 0; i < 9; i++)
        p = p * t + poly[i];
    const float l = (float)((int32_t)exponent - 127) + p;
    /* selects rather than early returns, so that callers' loops vectorize */
    return x == 0 ? -(float)INFINITY : (x < 0 ? (float)NAN : l);
}

/** Constants of the per-pixel statistic, fixed for a run. */
typedef struct VmafFloatVifStatConst {
    vmaf_double sigma_nsq; /**< N (a double: f64.h) */
    float sigma_max_inv;   /**< (float)(powf(N, 2) / (255.0 * 255.0)) */
    float gain_limit;      /**< (float)vif_enhn_gain_limit */
} VmafFloatVifStatConst;

/** The statistic of one pixel (see the top of this file). */
VMAF_DEVICE_FN void vmaf_float_vif_pixel(const VmafFloatVifStatConst *c, float mu1, float mu2,
                                         float xx, float yy, float xy, float *num, float *den)
{
    const float eps = VMAF_FLOAT_VIF_EPS;
    float s1 = xx - mu1 * mu1;
    float s2 = yy - mu2 * mu2;
    const float s12 = xy - mu1 * mu2;
    s1 = s1 > 0.0f ? s1 : 0.0f;
    s2 = s2 > 0.0f ? s2 : 0.0f;
    const bool no_ref_variance = s1 < eps;
    if (no_ref_variance) s1 = 0.0f;
    if (vmaf_dlt(vmaf_dfrom_float(s1), c->sigma_nsq)) { /* s1 < N */
        /* the override the reference applies last: its logs would be unused */
        *num = 1.0f - s2 * c->sigma_max_inv;
        *den = 1.0f;
        return;
    }
    float g = 0.0f, sv = s2;
    if (!no_ref_variance) {
        g = vmaf_fdiv(s12, s1 + eps);
        sv = s2 - g * s12;
    }
    if (s2 < eps) {
        g = 0.0f;
        sv = 0.0f;
    }
    if (g < 0.0f) {
        sv = s2;
        g = 0.0f;
    }
    sv = sv > eps ? sv : eps;
    g = g < c->gain_limit ? g : c->gain_limit;
    /* num: (float)(1.0f + (g * g * s1) / (sv + N)), den: (float)(1.0f + s1 / N), the
     * divisions and additions in double (f64.h) */
    const vmaf_double one = vmaf_dfrom_float(1.0f);
    *num = s12 < 0.0f ? 0.0f
                      : vmaf_float_vif_log2(vmaf_dto_float(vmaf_dadd(
                            one, vmaf_ddiv(vmaf_dfrom_float(g * g * s1),
                                           vmaf_dadd(vmaf_dfrom_float(sv), c->sigma_nsq)))));
    *den = vmaf_float_vif_log2(
        vmaf_dto_float(vmaf_dadd(one, vmaf_ddiv(vmaf_dfrom_float(s1), c->sigma_nsq))));
}

/**
 * One tap of the vertical pass of the five quantities (mu1, mu2, xx, yy, xy) at one
 * column: a and b the reference and distorted samples of the tap's row. The sums start at 0
 * and take their taps in order (float_vif.c's row loops, one column at a time).
 */
VMAF_DEVICE_FN void vmaf_float_vif_tap(float fk, float a, float b, float acc[5])
{
    acc[0] += fk * a;
    acc[1] += fk * b;
    acc[2] += fk * (a * a);
    acc[3] += fk * (b * b);
    acc[4] += fk * (a * b);
}

/** A row's float sums of the per-pixel num and den, left to right. */
VMAF_DEVICE_FN void vmaf_float_vif_row_sums(const float *num, const float *den, unsigned w,
                                            float *line_num, float *line_den)
{
    float n = 0.0f, d = 0.0f;
    for (unsigned j = 0; j < w; j++) {
        n += num[j];
        d += den[j];
    }
    *line_num = n;
    *line_den = d;
}

/** The extractor options (names and aliases in float_vif.c's option table). Host only: no
 *  kernel reads them, and a program built without fp64 names no double. */
#if !VMAF_DIALECT_OPENCL
typedef struct VmafFloatVifOptions {
    bool debug;                  /**< also write vif, vif_num/den and per scale */
    double enhn_gain_limit;      /**< vif_enhn_gain_limit (egl), [1,100], default 100 */
    double kernelscale;          /**< vif_kernelscale (ks), [0.1,4], default 1, listed values */
    double prescale;             /**< vif_prescale (ps), [0.1,4], default 1 */
    double scale1_min_val;       /**< vif_scale1_min_val (s1miv), [0,1], default 0 */
    double scale2_min_val;       /**< vif_scale2_min_val (s2miv), [0,1], default 0 */
    double scale3_min_val;       /**< vif_scale3_min_val (s3miv), [0,1], default 0 */
    const char *prescale_method; /**< vif_prescale_method (pm): nearest (default), bilinear,
                                      bicubic, lanczos4 */
    double sigma_nsq;            /**< vif_sigma_nsq (snsq), [0,5], default 2 */
    bool skip_scale0;            /**< vif_skip_scale0 (ssclz) */
} VmafFloatVifOptions;
#endif

/** Whether kernelscale is one of vmaf_float_vif_kernelscales (within the tolerance). */
bool vmaf_float_vif_kernelscale_valid(float kernelscale);

/** Width of the filter of scale s for a kernelscale (odd, at least 3). */
int vmaf_float_vif_filter_width(int scale, float kernelscale);

/** The filter of scale s: vmaf_float_vif_filter_width(s, ks) taps. */
void vmaf_float_vif_filter(float *out, int scale, float kernelscale);

/** Buffers and filters for one plane size; not shared between threads. */
typedef struct VmafFloatVifWorkspace {
    unsigned w[VMAF_FLOAT_VIF_SCALES], h[VMAF_FLOAT_VIF_SCALES]; /**< plane size per scale */
    size_t stride[VMAF_FLOAT_VIF_SCALES];     /**< floats per row (scales 1..3) */
    float *ref[VMAF_FLOAT_VIF_SCALES], *dis[VMAF_FLOAT_VIF_SCALES]; /**< scales 1..3 */
    int width[VMAF_FLOAT_VIF_SCALES];         /**< filter width per scale */
    float filter[VMAF_FLOAT_VIF_SCALES][VMAF_FLOAT_VIF_MAX_FILTER];
    int max_radius;
    float *rows;   /**< 5 vertical-pass rows with margins */
    float *out;    /**< 5 filtered rows */
    float *terms;  /**< the per-pixel num and den of a row */
    size_t row_len;
} VmafFloatVifWorkspace;

/** Allocate for w x h planes (after any prescale) and a valid kernelscale. */
int vmaf_float_vif_workspace_init(VmafFloatVifWorkspace *ws, unsigned w, unsigned h,
                                  float kernelscale);
void vmaf_float_vif_workspace_close(VmafFloatVifWorkspace *ws);

/**
 * num[s] and den[s] of the four scales for float planes ref and dis of the workspace's size
 * (stride in floats), computed by the build `impl` (float_filter.h). Skipped scales (scale
 * 0 with skip_scale0) are left untouched. 0, or -ENOTSUP for a build this CPU lacks.
 */
int vmaf_float_vif_scales(enum VmafFloatImpl impl, VmafFloatVifWorkspace *ws,
                          const VmafFloatVifStatConst *c, const float *ref, const float *dis,
                          ptrdiff_t stride, bool skip_scale0, float num[VMAF_FLOAT_VIF_SCALES],
                          float den[VMAF_FLOAT_VIF_SCALES]);

#if VMAF_DIALECT_C
#include "feature_extractor.h"
#include "speed.h"

_Static_assert((int)VMAF_SPEED_SCALE_NEAREST == (int)VMAF_FLOAT_RESAMPLE_NEAREST &&
                   (int)VMAF_SPEED_SCALE_BILINEAR == (int)VMAF_FLOAT_RESAMPLE_BILINEAR &&
                   (int)VMAF_SPEED_SCALE_BICUBIC == (int)VMAF_FLOAT_RESAMPLE_BICUBIC &&
                   (int)VMAF_SPEED_SCALE_LANCZOS4 == (int)VMAF_FLOAT_RESAMPLE_LANCZOS4 &&
                   2 * (int)VMAF_SPEED_LANCZOS_A + 1 == (int)VMAF_FLOAT_RESAMPLE_LANCZOS_TAPS,
               "float_filter.h's resampler follows speed.h");

/** The extractor's state (shared with its CUDA twin, which reads the geometry and filters). */
typedef struct FloatVifState {
    VmafFloatVifOptions opt;
    unsigned w, h;
    size_t stride;
    float *ref, *dis;               /* converted luma */
    bool resample;
    VmafSpeedScaler scaler;
    size_t scaled_stride;
    float *ref_scaled, *dis_scaled; /* when resampling */
    VmafFloatVifWorkspace ws;
    VmafFloatVifStatConst stat;
} FloatVifState;

/** The scores from the scales' float sums (skipped scales: anything). */
int vmaf_float_vif_store(const FloatVifState *s, const float num[VMAF_FLOAT_VIF_SCALES],
                         const float den[VMAF_FLOAT_VIF_SCALES], unsigned index,
                         VmafFeatureSink *sink);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_FLOAT_VIF_H */
