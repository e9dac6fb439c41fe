/*
 * Twin VMAF — float motion (extractor "float_motion"), as reference libvmaf 3.2.0 computes
 * it for the vmaf_float_* models.
 *
 * Per frame i the reference luma is converted to float (float_filter.h, offset -128) and
 * blurred with a 5-tap kernel (option motion_filter_size: 3 picks the 3-tap kernel, 1 a
 * pass-through 5-tap kernel, anything else the 5-tap one) by the separable float filter of
 * float_filter.h. With B_i the blurred frame and
 *   sad(P, Q) = (float)(S / (float)(w * h)),  S = sum over rows (float) of the row sums
 *               (float, left to right) of |P - Q|
 * (plus, with motion_add_scale1, the same mean over both planes scaled to half size with
 * the bilinear resampler; with motion_add_uv, the chroma planes' values are added in
 * double), the extractor writes, clipping every value to motion_max_val and with
 * m(x) = x * motion_fps_weight, blend(x) = x * bf + (1 - bf) * min(bo, x):
 *   frame 0:   motion2[0] = 0, motion[0] = 0
 *   frame 1:   s1 = sad(B_0, B_1); motion[1] = m(s1); motion3[0] = blend(m(s1))
 *   frame i>1: s = sad(B_{i-1}, B_i); motion[i] = m(s);
 *              s2 = min(sad(B_{i-1}, B_{i-2}), s);
 *              motion2[i-1] = m(s2); motion3[i-1] = blend(m(s2))
 *   flush:     last frame n-1 > 0: motion2[n-1] = m(s_{n-1}), motion3[n-1] = blend(m(...));
 *              a single frame: motion3[0] = 0.
 * motion_force_zero writes 0 for motion2, motion3 (and motion) at every frame and nothing
 * at flush. motion is written only with debug, which is on by default for this extractor.
 *
 * The extractor is TEMPORAL: it keeps the last three blurred frames (slot index % 3).
 *
 * Reference quirk kept: with both motion_add_uv and motion_add_scale1, the reference
 * resamples each chroma plane reading its rows with the stride of a plane of the chroma
 * width, while the plane is stored with the luma plane's row stride; Twin VMAF stores and
 * reads the chroma planes the same way, so the scores are the reference's.
 */
#ifndef VMAF_FEATURE_FLOAT_MOTION_H
#define VMAF_FEATURE_FLOAT_MOTION_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#endif

#include "float_filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The blur kernels (motion_filter_size 5, the default, 3, and 1). */
/* The reference writes these as double literals rounded to float; so do we (a float
 * literal is rounded once from decimal and could differ in the last bit). */
static VMAF_CONSTANT const float vmaf_float_motion_filter5[5] = {
    0.054488685, 0.244201342, 0.402619947, 0.244201342, 0.054488685,
};
static VMAF_CONSTANT const float vmaf_float_motion_filter3[3] = {
    0.166378498, 0.667243004, 0.166378498,
};
static VMAF_CONSTANT const float vmaf_float_motion_filter_pass[5] = { 0.0, 0.0, 1.0, 0.0, 0.0 };

/** Default of motion_filter_size. */
#define VMAF_FLOAT_MOTION_DEFAULT_FILTER_SIZE 5
/** Widest half-size plane motion_add_scale1 accepts (the reference's bilinear limit). */
#define VMAF_FLOAT_MOTION_MAX_SCALED_WIDTH 7680

/** The extractor options (names and aliases in float_motion.c's option table; those it shares
 *  with motion in motion_options.h). Host only: no kernel reads them, and a program built
 *  without fp64 names no double. */
#if !VMAF_DIALECT_OPENCL
typedef struct VmafFloatMotionOptions {
    bool debug;             /**< debug: write motion (default true) */
    bool force_zero;        /**< motion_force_zero (force_0): every score 0 */
    double fps_weight;      /**< motion_fps_weight (mfw), [0,5], default 1 */
    double blend_factor;    /**< motion_blend_factor (mbf), [0,1], default 1 */
    double blend_offset;    /**< motion_blend_offset (mbo), [0,1000], default 40 */
    bool add_scale1;        /**< motion_add_scale1 (mdc): add the half-size SAD */
    int filter_size;        /**< motion_filter_size (mfs), [0,9], default 5 */
    bool add_uv;            /**< motion_add_uv (mau): add the chroma planes' SADs */
    double max_val;         /**< motion_max_val (mmxv), [0,10000], default 10000 */
} VmafFloatMotionOptions;
#endif

/* ---- per-element arithmetic shared with the CUDA twin (host and device) ---------------- */

/** The term of a sample pair: |a - b| in float. */
VMAF_DEVICE_FN float vmaf_float_motion_term(float a, float b)
{
    return vmaf_fabsf(a - b);
}

/** A row's float sum of |a - b|, left to right (the reference adds fabs() in double to a
 * float; a float sum of two floats rounded through double equals the float sum). */
VMAF_DEVICE_FN float vmaf_float_motion_row_sum(const float *a, const float *b, unsigned w)
{
    float line = 0.0f;
    for (unsigned j = 0; j < w; j++)
        line += vmaf_float_motion_term(a[j], b[j]);
    return line;
}

/** The mean from the row sums: added in a float in row order, divided in float by w*h. */
VMAF_DEVICE_FN float vmaf_float_motion_mean_from_rows(const float *rows, unsigned w, unsigned h)
{
    float total = 0.0f;
    for (unsigned i = 0; i < h; i++)
        total += rows[i];
    return vmaf_fdiv(total, (float)(w * h));
}

/** One output of the bilinear half-size resampler (speed_scale.c's, term for term). */
VMAF_DEVICE_FN float vmaf_float_motion_bilinear(const VMAF_GLOBAL float *r1,
                                                const VMAF_GLOBAL float *r2, int x1, int x2,
                                                float dx, float dy)
{
    return vmaf_float_bilinear(r1, r2, x1, x2, dx, dy);
}

/** The kernel and its width for a motion_filter_size value. */
const float *vmaf_float_motion_kernel(int filter_size, int *width);

/**
 * Mean absolute difference of two w x h float planes (strides in floats) as the reference
 * sums it: a float sum per row, the row sums added in a float, divided in float by w*h.
 */
float vmaf_float_motion_mean_abs_diff(const float *a, const float *b, ptrdiff_t stride,
                                      unsigned w, unsigned h);

#if VMAF_DIALECT_C
#include "feature_extractor.h"
#include "speed.h"

enum { VMAF_FLOAT_MOTION_SLOTS = 3 };

/** The extractor's state (shared with its CUDA twin, which reads the geometry and options). */
typedef struct FloatMotionState {
    VmafFloatMotionOptions opt;
    unsigned n_planes;
    unsigned w[3], h[3];
    size_t stride;                 /* floats per row of every plane: the luma layout */
    const float *kernel;
    int kernel_width;
    float *plane;                  /* the converted plane before the blur */
    float *blur[3][VMAF_FLOAT_MOTION_SLOTS]; /* [plane][index % 3] */
    float *row;                    /* filter scratch */
    /* motion_add_scale1 */
    VmafSpeedScaler scaler[3];
    float *scaled_a, *scaled_b;    /* one half-size plane each */
    size_t scaled_stride;
    /* between frames */
    unsigned index;
    double score;
    bool seen;
    enum VmafLogLevel log_level;
} FloatMotionState;

/**
 * The scores of frame `index` from score = the frame's SAD sum against the previous frame
 * (luma plus chroma, each plane's mean plus its half-size mean; unused for frame 0 and with
 * motion_force_zero). Frames in order. The score of the frame pair before is the one of the
 * previous call (|a - b| is symmetric, so it equals the reference's recomputation).
 */
int vmaf_float_motion_store(FloatMotionState *s, double score, unsigned index,
                            VmafFeatureSink *sink);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_FLOAT_MOTION_H */
