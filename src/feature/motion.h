/*
 * Twin VMAF — integer motion (extractors "motion" and "motion_v2").
 *
 * Shared pieces of the motion metric that other back ends (a GPU twin, the unit test) need:
 * the smoothing kernel, the option set and the per-frame SAD of two luma planes.
 *
 * Per frame the metric low-pass filters the difference of two reference luma planes
 * (current minus previous, or minus the one two back with the five-frame window) with a
 * separable 5-tap kernel and sums the absolute values:
 *
 *   d(i,j)  = prev(i,j) - cur(i,j)
 *   v(i,j)  = (sum_k K[k] * d(m_h(i+k-2), j) + 2^(s-1)) >> s     s = 8 for bpc 8, else bpc
 *   x(i,j)  = (sum_k K[k] * v(i, m_w(j+k-2)) + 2^15) >> 16
 *   sad     = sum_i (uint32 sum_j |x(i,j)|)                      each row wraps mod 2^32
 *   score   = min(sad / 256 / (w*h) * fps_weight, max_val)
 *
 * where >> is an arithmetic (flooring) shift and m_n mirrors an index into [0, n) without
 * repeating the edge sample (reflect-101: -1 -> 1, n -> n-2). The kernel sums to 2^16.
 */
#ifndef VMAF_FEATURE_MOTION_H
#define VMAF_FEATURE_MOTION_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#include "reflect.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The symmetric 5-tap kernel: K = {OUTER, INNER, CENTER, INNER, OUTER}, sum 65536. */
enum {
    VMAF_MOTION_TAPS = 5,
    VMAF_MOTION_RADIUS = 2,
    VMAF_MOTION_K_OUTER = 3571,
    VMAF_MOTION_K_INNER = 16004,
    VMAF_MOTION_K_CENTER = 26386,
    VMAF_MOTION_K_SHIFT = 16, /**< log2 of the kernel sum; the horizontal pass shift */
};

/** Shift of the vertical pass: 8 for 8-bit samples, bpc above. */
VMAF_DEVICE_FN int vmaf_motion_vertical_shift(unsigned bpc)
{
    return bpc == 8 ? 8 : (int)bpc;
}

/* Host only from here to the twin's part: no kernel reads these, and a program built without
 * fp64 names no double. */
#if !VMAF_DIALECT_OPENCL
/** The extractor options (names and aliases in motion.c's option table; those it shares with
 *  float_motion in motion_options.h). */
typedef struct VmafMotionOptions {
    bool force_zero;         /**< motion_force_zero (force_0): write 0 for every frame */
    double blend_factor;     /**< motion_blend_factor (mbf), [0,1], default 1 */
    double blend_offset;     /**< motion_blend_offset (mbo), [0,1000], default 40 */
    double fps_weight;       /**< motion_fps_weight (mfw), [0,5], default 1 */
    double max_val;          /**< motion_max_val (mmxv), [0,10000], default 10000 */
    bool five_frame_window;  /**< motion_five_frame_window (mffw): compare with index-2 */
    bool moving_average;     /**< motion_moving_average (mma): average motion3 with the last */
    bool debug;              /**< also write the motion_score */
} VmafMotionOptions;

/** Number of int32 elements the SAD function needs as scratch for a plane of width w. */
#define VMAF_MOTION_ROW_BUF_LEN(w) ((size_t)(w) + 2 * VMAF_MOTION_RADIUS)

/**
 * SAD of the filtered difference of two luma planes (see the top of this file).
 *
 * @param prev, cur        plane data: uint8 samples when bpc == 8, else uint16
 * @param prev_stride, cur_stride  bytes per row
 * @param w, h             plane size, both nonzero
 * @param bpc              8..16
 * @param row_buf          scratch of VMAF_MOTION_ROW_BUF_LEN(w) int32 elements
 * @return the sum, in units of 2^-8 per sample (divide by 256*w*h for the mean)
 */
uint64_t vmaf_motion_sad(const void *prev, ptrdiff_t prev_stride,
                         const void *cur, ptrdiff_t cur_stride,
                         unsigned w, unsigned h, unsigned bpc, int32_t *row_buf);

/** Per-frame score from a SAD, exactly as the reference evaluates it. */
static inline double vmaf_motion_score_from_sad(uint64_t sad, unsigned w, unsigned h,
                                                double fps_weight, double max_val)
{
    const unsigned n_px = w * h;
    const double score = (double)sad / 256. / n_px * fps_weight;
    return score < max_val ? score : max_val;
}

/** Blend a motion score towards min(offset, score): score*f + (1-f)*min(offset, score). */
static inline double vmaf_motion_blend(double score, double factor, double offset)
{
    const double low = offset < score ? offset : score;
    return score * factor + (1 - factor) * low;
}
#endif

/* ---- for the CUDA twin: the extractor state and how a SAD becomes scores ---- */
#if VMAF_DIALECT_C
#include "feature_extractor.h"

typedef struct MotionState {
    VmafMotionOptions opt;
    unsigned w, h, bpc;
    int32_t *row_buf;
    enum VmafLogLevel log_level;
} MotionState;

/** The unsuffixed feature names one extractor writes. */
typedef struct MotionNames {
    const char *sad, *motion, *motion2, *motion3;
} MotionNames;

extern const MotionNames vmaf_motion_names_v1, vmaf_motion_names_v2;

/** Whether frame `index` is compared with an earlier one (else its score is 0). */
bool vmaf_motion_needs_sad(const MotionState *s, unsigned index);

/** Write frame `index`'s scores from its SAD (ignored when no SAD is needed). */
int vmaf_motion_store(const MotionState *s, const MotionNames *names, uint64_t sad,
                      unsigned index, VmafFeatureSink *sink);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_MOTION_H */
