/*
 * Twin VMAF — CAMBI, the contrast-aware multiscale banding index (extractor "cambi").
 *
 * Per picture (the distorted one; with full_ref also the reference), all in integers unless
 * noted, the order being part of the definition:
 *   1. Luma is resampled (nearest, float position arithmetic) to the encoding size and
 *      brought to 10 bits: 8-bit and below shift left, 9-bit shifts left by one, 10..16 bits
 *      round (v + 2^(s-1)) >> s. With an encoding depth below 10, a 2x2 box average
 *      (anti-dithering; the last row and column average two samples) follows.
 *   2. Spatial mask: a pixel is "flat" when it equals its right and lower neighbours (the
 *      frame edge counts as equal); mask = (flat pixels in the 7x7 window, clipped to the
 *      frame) > a threshold that grows with log2 of the frame area.
 *   3. Five scales: from the second on (from the first with cambi_high_res_speedup), image and
 *      mask are decimated by 2 (top-left sample, sizes rounded up). At each scale a 3x3
 *      separable mode filter (rows/columns at the frame edge kept) is applied, then for every
 *      masked pixel of value v the c-value
 *          max over d = 1..2^max_log_contrast, v + 2^mlc <= tvi[d], v + 2^mlc + d > vlt:
 *              (float)(w_d p0 pmax) * (1/(p0 + pmax))
 *      where p0, p+ and p- count masked pixels of value v, v+d, v-d in the window (of the
 *      adjusted window size, clipped to the frame), pmax = max(p+, p-), w_d the contrast
 *      weights and 1/n a float table (cambi_lut.c).
 *   4. Each scale is pooled as the double mean of its top-k c-values (in the order a
 *      quickselect leaves them); the score is sum(scale score * 16,8,4,2,1) divided by the
 *      number of pixels in the window, then clipped to cambi_max_val.
 * tvi[d] is the largest 10-bit sample at which a step of d is visible by the EOTF (bt1886
 * or pq), i.e. L(s+d) - L(s) > tvi_threshold L(s); vlt is the smallest sample whose luminance
 * reaches cambi_vis_lum_threshold.
 *
 * Decisions where reference libvmaf 3.2.0 is undefined (also in cambi.c):
 *   - frames in which half the adjusted window exceeds a side at some scale are refused at
 *     init. There the reference reads rows beyond the scaled picture and writes before its
 *     c-value buffer (it crashes: seen for 1920x40 and 2000x16), or, for widths, scores the
 *     stale samples right of the scaled picture (e.g. 40x1920).
 *   - 10-bit input with full_ref and a src_width/src_height larger than the picture is
 *     copied row by row; the reference copies it as one block with the wrong stride.
 */
#ifndef VMAF_FEATURE_CAMBI_H
#define VMAF_FEATURE_CAMBI_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VMAF_CAMBI_NUM_SCALES = 5,
    VMAF_CAMBI_MASK_FILTER_SIZE = 7,
    VMAF_CAMBI_MIN_WIDTH_HEIGHT = 216, /**< refused when both sides are below */
    VMAF_CAMBI_4K_WIDTH = 3840,
    VMAF_CAMBI_4K_HEIGHT = 2160,
    VMAF_CAMBI_RECIPROCAL_LUT_SIZE = 4226, /**< window_size^2 must stay below it */
    VMAF_CAMBI_MAX_DIFFS = 32,             /**< 2^max_log_contrast, max_log_contrast <= 5 */
    VMAF_CAMBI_LUMA_FOOT = 64,             /**< 10-bit limited range */
    VMAF_CAMBI_LUMA_HEAD = 940,
};

/* Option defaults (names, aliases and ranges in cambi.c's option table). */
#define VMAF_CAMBI_DEFAULT_MAX_VAL 1000.0
#define VMAF_CAMBI_DEFAULT_WINDOW_SIZE 65
#define VMAF_CAMBI_DEFAULT_TOPK 0.6
#define VMAF_CAMBI_DEFAULT_TVI 0.019
#define VMAF_CAMBI_DEFAULT_VLT 0.0
#define VMAF_CAMBI_DEFAULT_MAX_LOG_CONTRAST 2
#define VMAF_CAMBI_DEFAULT_EOTF "bt1886"

/* The tables (cambi.c, cambi_lut.c) are the host's: an OpenCL program links with none of
 * our .c files. */
#if !VMAF_DIALECT_OPENCL
/** Scale weights of the final score, scale 0 first. */
extern const int vmaf_cambi_scale_weights[VMAF_CAMBI_NUM_SCALES];
/** Suprathreshold contrast response w_d, index d - 1. */
extern const int vmaf_cambi_contrast_weights[VMAF_CAMBI_MAX_DIFFS];
/**
 * 1/n as the float nearest to the 9-significant-digit decimal of the double 1/n (not always
 * 1.0f/n: 42 entries differ), index 0 holding 0. Generated; see cambi_lut.c.
 */
extern const float vmaf_cambi_reciprocal[VMAF_CAMBI_RECIPROCAL_LUT_SIZE];
#endif

enum VmafCambiEotf {
    VMAF_CAMBI_EOTF_BT1886,
    VMAF_CAMBI_EOTF_PQ,
};

#if !VMAF_DIALECT_OPENCL /* host only: a program built without fp64 names no double */
/** Luminance (cd/m^2) of a 10-bit limited-range sample (clipped to [64, 940]). */
double vmaf_cambi_luminance(int sample, enum VmafCambiEotf eotf);

/** Largest 10-bit sample at which a step of diff is visible (0 or 1023 at the ends). */
int vmaf_cambi_tvi_for_diff(int diff, double tvi_threshold, enum VmafCambiEotf eotf);

/**
 * Smallest sample whose luminance reaches threshold, 0 when that is the foot (64).
 * -ERANGE when no sample reaches it (the reference loops forever there).
 */
int vmaf_cambi_vlt_luma(double threshold, enum VmafCambiEotf eotf);
#endif

/** The window size used for a w x h encode (odd; halved with the high-res speed-up). */
unsigned vmaf_cambi_adjust_window(unsigned window_size, unsigned w, unsigned h,
                                  bool high_res_speedup);

/** The spatial-mask threshold for a w x h picture and a filter_size window. */
unsigned vmaf_cambi_mask_index(unsigned w, unsigned h, unsigned filter_size);

/** Everything one scale pass needs that does not change between frames. */
typedef struct VmafCambiParams {
    unsigned num_diffs;                          /**< 2^max_log_contrast */
    uint16_t tvi_for_diff[VMAF_CAMBI_MAX_DIFFS]; /**< tvi[d] + num_diffs, index d - 1 */
    uint16_t vlt_luma;
    uint16_t band_base, band_size; /**< samples that can matter: [base, base + size) */
} VmafCambiParams;

/** Fill the derived band from num_diffs, tvi_for_diff and vlt_luma. */
void vmaf_cambi_params_finish(VmafCambiParams *p);

/**
 * Work buffers for pictures up to max_w x max_h: histograms (band_size x max_w uint16 and
 * guard rows), the histogram row of every pixel, the mode filter's three rows, the mask's
 * column sums.
 */
typedef struct VmafCambiScratch {
    uint16_t *histograms;
    uint16_t *keys;
    uint16_t *mode_rows;
    uint32_t *column_sums;
    uint16_t *flat_row;
    unsigned max_w, band_size;
} VmafCambiScratch;

int vmaf_cambi_scratch_alloc(VmafCambiScratch *s, unsigned max_w, unsigned max_h,
                             unsigned band_size);
void vmaf_cambi_scratch_free(VmafCambiScratch *s);

#if !VMAF_DIALECT_OPENCL /* host only, as above */
/** The options (cambi.c's table writes them). */
typedef struct VmafCambiOptions {
    double max_val;
    int enc_width, enc_height, enc_bitdepth;
    int src_width, src_height;
    int window_size;
    double topk, cambi_topk;
    double tvi_threshold;
    double vis_lum_threshold;
    int max_log_contrast;
    const char *eotf, *cambi_eotf;
    int high_res_speedup;
    const char *heatmaps_path;
    bool full_ref;
} VmafCambiOptions;

/** What init derives from the options and the geometry, for one CPU or GPU instance. */
typedef struct VmafCambiSetup {
    unsigned enc_w, enc_h, enc_bitdepth; /**< the distorted picture is scored at enc_w x enc_h */
    unsigned src_w, src_h;               /**< the reference (full_ref) at src_w x src_h */
    unsigned window, src_window;         /**< adjusted window sizes */
    bool high_res_speedup;               /**< decimate before the first scale too */
    double topk;                         /**< topk when not default, else cambi_topk */
    unsigned alloc_w, alloc_h;           /**< largest picture scored */
    VmafCambiParams params;
} VmafCambiSetup;

/**
 * Derive the setup for a w x h, bpc-bit input; -EINVAL with msg filled for what the
 * extractor refuses (frames too small, inconsistent sizes, unknown EOTF, window too large).
 */
int vmaf_cambi_setup(VmafCambiSetup *setup, const VmafCambiOptions *opt, unsigned w,
                     unsigned h, unsigned bpc, char *msg, size_t msg_size);
#endif

/*
 * The building blocks. Pictures are uint16 planes with a stride in samples.
 */

/** The 10-bit picture's spatial mask (0/1) into mask (same stride). */
void vmaf_cambi_spatial_mask(const uint16_t *image, uint16_t *mask, ptrdiff_t stride,
                             unsigned w, unsigned h, VmafCambiScratch *scratch);

/** In place: plane[i][j] = plane[2i][2j] for i < h, j < w (the decimated size). */
void vmaf_cambi_decimate(uint16_t *plane, ptrdiff_t stride, unsigned w, unsigned h);

/** In place 3x3 separable mode filter; first/last row and column pass through. */
void vmaf_cambi_filter_mode(uint16_t *image, ptrdiff_t stride, unsigned w, unsigned h,
                            VmafCambiScratch *scratch);

/** c-values of one scale into c_values (w x h, packed), for a window of window_size. */
void vmaf_cambi_c_values(const uint16_t *image, const uint16_t *mask, ptrdiff_t stride,
                         unsigned w, unsigned h, unsigned window_size,
                         const VmafCambiParams *p, float *c_values,
                         VmafCambiScratch *scratch);

#if !VMAF_DIALECT_OPENCL /* host only, as above */
/**
 * Mean (double) of the top-k of n c-values, k = clip((int)(topk n), 1, n), summed in the
 * order the reference's quickselect leaves them. Reorders c_values.
 */
double vmaf_cambi_spatial_pooling(float *c_values, double topk, unsigned n);

/** The reference's own order: quickselect of the k largest, then their double sum / k. */
double vmaf_cambi_spatial_pooling_reference(float *c_values, int k, unsigned n);

/** k of the top-k pooling of n c-values: clip((int)(topk n), 1, n). */
int vmaf_cambi_topk_count(double topk, unsigned n);

/** The exact path's mean: a top-k sum of `units` 2^-24 units (below 2^53) over k. */
double vmaf_cambi_units_mean(uint64_t units, int k);

/** The score from the five scales' pooled means, for a window of window_size. */
double vmaf_cambi_combine(const double per_scale[VMAF_CAMBI_NUM_SCALES], unsigned window_size);
#endif

/** Nearest-neighbour resampling positions from in to out samples (the reference's floats). */
void vmaf_cambi_resample_positions(unsigned in, unsigned out, unsigned *pos);

#if VMAF_DIALECT_C
#include <stdio.h>

#include "feature_extractor.h"

/** The extractor's state (cambi.c); a GPU twin reads opt and setup. */
typedef struct VmafCambiState {
    VmafCambiOptions opt;
    VmafCambiSetup setup;
    enum VmafLogLevel log_level;
    uint16_t *image, *mask;
    ptrdiff_t stride;
    float *c_values;
    unsigned *pos_x, *pos_y;
    VmafCambiScratch scratch;
    FILE *heatmaps[VMAF_CAMBI_NUM_SCALES];
} VmafCambiState;

/**
 * The luma of pic resampled to out_w x out_h (pos_x/pos_y: scratch of out_w/out_h entries),
 * brought to 10 bits and, for enc_bitdepth below 10, anti-dithered.
 */
void vmaf_cambi_preprocess(const VmafPicture *pic, uint16_t *out, ptrdiff_t stride,
                           unsigned out_w, unsigned out_h, unsigned enc_bitdepth,
                           unsigned *pos_x, unsigned *pos_y);

/**
 * Write a frame's scores: the distorted picture's (clipped to max_val) and, with src (full_ref),
 * cambi_source and cambi_full_reference.
 */
int vmaf_cambi_store(const VmafCambiOptions *opt, double dist, const double *src,
                     unsigned index, VmafFeatureSink *sink);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_CAMBI_H */
