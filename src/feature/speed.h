/*
 * Twin VMAF — SpEED (extractors "speed_chroma" and "speed_temporal").
 *
 * SpEED scores the difference in local entropy between a reference and a distorted image,
 * estimated with a Gaussian scale mixture model over 5x5 blocks. speed_chroma scores the U
 * and V planes of each frame; speed_temporal scores the luma difference of consecutive
 * frames (reference: ref[n-1] - ref[n]; distorted: dis[n-1] - dis[n], or dis[n-1] - ref[n]
 * with speed_use_ref_diff).
 *
 * Per image (all arithmetic in float unless noted; the order is part of the definition):
 *   1. Samples become floats  s / 2^(bpc-8) - 128  (exact for every bpc 8..16).
 *   2. When speed_prescale is not within 1e-3 of 1, the image is resampled to
 *      (int)(w * prescale + 0.5) x (int)(h * prescale + 0.5) (speed_scale.c).
 *   3. A Gaussian anti-aliasing filter (separable, reflect-101 borders) and a decimation
 *      by 16 in both directions; then a second Gaussian filter whose output is subtracted
 *      (local mean removal).
 *   4. The 25x25 covariance matrix K of the 25 shifted (h-4)x(w-4) windows of the
 *      truncated image (dimensions rounded down to multiples of 5), its eigenvalues
 *      (Householder tridiagonalisation + implicit QR, in float), and, when every eigenvalue
 *      is at least 1e-6, the solution X of K X = Y (Householder QR) where column b of Y is
 *      block b in raster order.
 *      When K is singular (an eigenvalue below 1e-6, or a pivot of the QR below 1e-6), X = 0.
 *   5. Per block: variance S = sum_k X[k][b] * Y[k][b] / 25 and entropy
 *      E = sum over eigenvalues L of log2(max(L,0) * S + sigma_nn) + log2(2 pi e).
 *   6. The score is the mean over blocks of |E_ref f(S) - E_dis g(S)| (f, g per
 *      speed_weight_var_mode), skipping blocks where both entropies are below
 *      25 * (log2((1 + nn_floor) sigma_nn) + log2(2 pi e)); it is 0 when exactly one of the
 *      two images had a singular K.
 *
 * Definitions where reference libvmaf 3.2.0 is undefined (documented in speed.c):
 *   - speed_temporal with speed_prescale > 1 scores the resampled frame difference (the
 *     reference overruns its frame buffers there).
 *   - bit depths other than 8, 10, 12 and 16 use the same normalisation s / 2^(bpc-8) (the
 *     reference misreads them as 8-bit samples).
 *   - with speed_prescale within 1e-3 of 1 but a rounded size that differs from the plane,
 *     the extra columns/rows read as 0 (the reference reads uninitialised memory there).
 *
 * The x86 kernels (AVX2, AVX2+FMA, AVX-512) compute the same values as the portable C ones;
 * building with -DVMAF_SPEED_NO_SIMD keeps only the portable kernels (to test them).
 *
 * The CUDA twins (feature/cuda/speed.cu, speed_twin.c) compute every stage with the element
 * functions of speed_device.h (the eigenvalue sweep and Householder steps are the CPU's own);
 * their collect() finishes through vmaf_speed_report / _entropies / _pair and the stores below.
 */
#ifndef VMAF_FEATURE_SPEED_H
#define VMAF_FEATURE_SPEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libvmaf/libvmaf.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VMAF_SPEED_BLOCK = 5,                      /**< side of the GSM blocks */
    VMAF_SPEED_BLOCK_ELEMS = 25,               /**< VMAF_SPEED_BLOCK^2: size of K */
    VMAF_SPEED_NUM_SCALES = 4,                 /**< decimation by 2^4 = 16 */
    VMAF_SPEED_DECIMATION = 1 << VMAF_SPEED_NUM_SCALES,
    VMAF_SPEED_EIGEN_MAX_ITERS = 500,          /**< QR sweeps before giving up */
    VMAF_SPEED_MAX_FILTER = 128,               /**< room for any filter of a valid kernelscale */
    VMAF_SPEED_LANCZOS_A = 4,                  /**< lanczos4: 2a+1 = 9 taps */
};

/** Eigenvalue threshold: regularity, deflation and the triangular-solve pivot test. */
#define VMAF_SPEED_EIGEN_EPS 1e-6
/** |prescale - 1| below this means "no resampling". */
#define VMAF_SPEED_PRESCALE_TOLERANCE 1.0e-3
/** |kernelscale - valid| below this accepts a kernelscale. */
#define VMAF_SPEED_KERNELSCALE_TOLERANCE 1e-3

/* Option defaults (names, aliases and ranges in speed.c's option tables). */
#define VMAF_SPEED_DEFAULT_KERNELSCALE 1.0
#define VMAF_SPEED_DEFAULT_PRESCALE 1.0
#define VMAF_SPEED_DEFAULT_PRESCALE_METHOD "nearest"
#define VMAF_SPEED_DEFAULT_SIGMA_NN 0.29
#define VMAF_SPEED_DEFAULT_NN_FLOOR 0.0
#define VMAF_SPEED_DEFAULT_MAX_VAL 1000.0
#define VMAF_SPEED_DEFAULT_WEIGHT_VAR_MODE 0

/** The kernelscales speed_kernelscale accepts (the values VIF's filters are defined for). */
#define VMAF_SPEED_NUM_KERNELSCALES 21
static const float vmaf_speed_kernelscales[VMAF_SPEED_NUM_KERNELSCALES] = {
    1.0f,          1.0f / 2.0f,   3.0f / 2.0f,   2.0f,        2.0f / 3.0f,   24.0f / 10.0f,
    360.0f / 97.0f, 4.0f / 3.0f,  3.5f / 3.0f,   3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f,
    3.0f,          1.0f / 2.25f,  1.4746f,       1.54f,       1.6f,          1.06667f,
    0.711111f,     0.740740f,     1.111111f,
};

enum VmafSpeedScaleMethod {
    VMAF_SPEED_SCALE_NEAREST,
    VMAF_SPEED_SCALE_BILINEAR,
    VMAF_SPEED_SCALE_BICUBIC,
    VMAF_SPEED_SCALE_LANCZOS4,
};

/** The options of both extractors (speed_chroma ignores use_ref_diff; speed_temporal
 *  ignores weight_var_mode, which stays 0, and max_val, which it never applies). */
typedef struct VmafSpeedOptions {
    double kernelscale;          /**< speed_kernelscale (ks) */
    double prescale;             /**< speed_prescale (ps) */
    const char *prescale_method; /**< speed_prescale_method (psm) */
    double sigma_nn;             /**< speed_sigma_nn (snn) */
    double nn_floor;             /**< speed_nn_floor (nnf) */
    double max_val;              /**< speed_max_val (mxv) */
    int weight_var_mode;         /**< speed_weight_var_mode (wvm), 0..6 */
    bool use_ref_diff;           /**< speed_use_ref_diff (urd) */
} VmafSpeedOptions;

/** Sizes of every stage for one plane size and prescale. */
typedef struct VmafSpeedDims {
    unsigned plane_w, plane_h;     /**< input plane */
    unsigned scaled_w, scaled_h;   /**< after the prescale (rounded) */
    bool resample;                 /**< prescale not within tolerance of 1 */
    unsigned down_w, down_h;       /**< scaled >> 4 */
    unsigned trunc_w, trunc_h;     /**< down rounded down to multiples of 5 */
    unsigned blocks_w, blocks_h, num_blocks;
    unsigned sub_w, sub_h;         /**< covariance windows: trunc - 4 */
} VmafSpeedDims;

/** @return 0, or -EINVAL when the image is too small (a truncated side would be 0). */
int vmaf_speed_dims_init(VmafSpeedDims *d, unsigned w, unsigned h, double prescale);

/* ---- filters and resampling (speed_scale.c) ------------------------------------------ */

/** @return 0, or -EINVAL when kernelscale is not in vmaf_speed_kernelscales. */
int vmaf_speed_check_kernelscale(float kernelscale);

/** @return 0, or -EINVAL for a name other than nearest, bilinear, bicubic, lanczos4. */
int vmaf_speed_scale_method(const char *name, enum VmafSpeedScaleMethod *method);

/** Width of VIF's Gaussian filter at scale (0..4) for kernelscale (odd, >= 3). */
int vmaf_speed_filter_width(int scale, float kernelscale);

/** The local-mean filter (VIF's scale-4 filter); out holds vmaf_speed_filter_width(4, ks). */
void vmaf_speed_mean_filter(float *out, float kernelscale);

/** The anti-aliasing filter: scale-1 width, sigma of scale 4; width(1, ks) taps. */
void vmaf_speed_antialias_filter(float *out, float kernelscale);

/** Column/row tables of a resampler for one source and destination size. */
typedef struct VmafSpeedScaler {
    enum VmafSpeedScaleMethod method;
    unsigned src_w, src_h, dst_w, dst_h;
    bool copy;        /**< same size: the rows are copied */
    int taps;         /**< per output sample and direction: 1, 2, 4 or 9 */
    int *col_index;   /**< dst_w * taps source columns */
    float *col_weight; /**< dst_w * taps (bilinear: dst_w fractions) */
    int *row_index;   /**< dst_h * taps */
    float *row_weight; /**< dst_h * taps */
} VmafSpeedScaler;

int vmaf_speed_scaler_init(VmafSpeedScaler *s, enum VmafSpeedScaleMethod method,
                           unsigned src_w, unsigned src_h, unsigned dst_w, unsigned dst_h);
void vmaf_speed_scaler_close(VmafSpeedScaler *s);

/** Destination row y from the whole source image (stride in floats). */
void vmaf_speed_scale_row(const VmafSpeedScaler *s, const float *src, ptrdiff_t src_stride,
                          unsigned y, float *dst);

/**
 * Separable filter with reflect-101 borders, evaluated only at (step*i, step*j) for
 * i < h/step, j < w/step. Rows of src that the filter reaches must be valid; tmp holds w
 * floats. step 1 is the plain filter.
 */
void vmaf_speed_filter_decimate(const float *filter, int width, const float *src,
                                ptrdiff_t src_stride, unsigned w, unsigned h, unsigned step,
                                float *dst, ptrdiff_t dst_stride, float *tmp);

/**
 * The horizontal half of vmaf_speed_filter_decimate: out[j] = sum over taps k, in order, of
 * filter[k] * tmp[reflect(step*j - width/2 + k)] for j < w/step (each sum starts at 0).
 */
void vmaf_speed_filter_kept_columns(const float *filter, int width, const float *tmp,
                                    unsigned w, unsigned step, float *out);

/** Reflect-101 index into [0, n) (-1 -> 1, n -> n-2), defined for any i when n >= 1. */
int vmaf_speed_reflect(int i, int n);

/** Mark the rows (of h) that vmaf_speed_filter_decimate reads at this step and width. */
void vmaf_speed_rows_needed(uint8_t *needed, unsigned h, unsigned step, int width);

/* ---- linear algebra (speed_linalg.c) -------------------------------------------------- */

/** Floats of scratch vmaf_speed_eigenvalues needs for an n x n matrix. */
#define VMAF_SPEED_EIGEN_SCRATCH(n) ((size_t)(n) * (n) + 4 * (size_t)(n))
/** Floats of scratch vmaf_speed_solve needs for n x n and b_cols right-hand sides. */
#define VMAF_SPEED_SOLVE_SCRATCH(n, b_cols) (5 * (size_t)(n) * (n) + (size_t)(n) * (b_cols))

/**
 * Eigenvalues of a symmetric n x n matrix (row-major, not modified), unsorted, in the
 * reference's float arithmetic. @return 0, or 1 when the QR iteration stopped after
 * VMAF_SPEED_EIGEN_MAX_ITERS sweeps (the values are then approximate).
 */
int vmaf_speed_eigenvalues(const float *a, int n, float *eigenvalues, float *scratch);

/** Every eigenvalue is at least VMAF_SPEED_EIGEN_EPS. */
bool vmaf_speed_is_regular(const float *eigenvalues, int n);

/**
 * Solve A X = B (A n x n, B and X n x b_cols, row-major) by Householder QR and back
 * substitution. @return 0, or -EINVAL when a pivot of R is below VMAF_SPEED_EIGEN_EPS in
 * magnitude (X is then partly written).
 */
int vmaf_speed_solve(const float *a, int n, const float *b, int b_cols, float *x,
                     float *scratch);

/** Doubles of work vmaf_speed_covariance needs: the 25 centred windows. */
#define VMAF_SPEED_COV_WORK(d) ((size_t)VMAF_SPEED_BLOCK_ELEMS * (d)->sub_w * (d)->sub_h)

/**
 * Means (25) and covariance matrix (25x25) of the 25 shifted sub_w x sub_h windows of an
 * image whose truncated size is d->trunc_w x d->trunc_h (stride in floats). Each mean is a
 * float sum in row-major order divided by the count; each covariance is
 * vmaf_speed_cov_sum of the two centred windows divided by the count, rounded to float.
 */
void vmaf_speed_covariance(const VmafSpeedDims *d, const float *img, ptrdiff_t stride,
                           float *means, float *cov, double *work);

/**
 * Sum of x[k] * y[k] over two w x h arrays (tight rows) in the reference's order: per row,
 * groups of 16 columns go to 16 fused multiply-add lanes, a following group of 8 to lanes
 * 0..7, the rest to a serial unfused tail; the lanes are folded 8+8, 4+4, 2+2, 1+1, then
 * the tail is added.
 */
double vmaf_speed_cov_sum(const double *x, const double *y, unsigned w, unsigned h);

/** n sums of x with ys[0..n), each as vmaf_speed_cov_sum, into out[0..n). */
typedef void (*VmafSpeedCovSumsFn)(const double *x, const double *const *ys, unsigned n,
                                   unsigned w, unsigned h, double *out);

/** The implementations this CPU can run, portable C first, best last (for tests).
 *  @return how many were written (at most max) */
int vmaf_speed_cov_sums_impls(VmafSpeedCovSumsFn *fns, const char **names, int max);

/* ---- the per-image model and the score (speed_core.c) -------------------------------- */

/** Where sample rows come from: one plane, or the difference a - b of two planes. */
typedef struct VmafSpeedSource {
    const void *a, *b;       /**< b NULL: no difference */
    ptrdiff_t a_stride, b_stride; /**< bytes */
    unsigned bpc;            /**< 8: uint8 samples, else uint16 */
} VmafSpeedSource;

typedef struct VmafSpeedResult {
    float *entropies, *variances; /**< num_blocks each */
} VmafSpeedResult;

/** Everything one image size and option set needs; one per extractor instance. */
typedef struct VmafSpeedEngine {
    VmafSpeedDims dims;
    float sigma_nn, nn_floor;
    int weight_var_mode;
    int aa_width, mean_width;
    float aa_filter[VMAF_SPEED_MAX_FILTER];
    float mean_filter[VMAF_SPEED_MAX_FILTER];
    VmafSpeedScaler scaler;  /**< when dims.resample */
    float *plane;            /**< plane_w x plane_h, when dims.resample */
    bool direct;             /**< filter straight from the samples (no resampling) */
    float *image;            /**< scaled_w x scaled_h, unless direct; only needed rows filled */
    uint8_t *rows_needed;    /**< scaled_h */
    float *row_tmp;          /**< scaled_w (>= down_w) */
    float *down, *mean;      /**< down_w x down_h */
    float *means, *cov, *eigenvalues;
    double *centered;        /**< VMAF_SPEED_COV_WORK */
    float *indep, *solution; /**< 25 x num_blocks */
    float *scratch;
    VmafSpeedResult ref, dis;
    const char *who;         /**< extractor name for messages */
    enum VmafLogLevel log_level;
    unsigned stalled;        /**< eigenvalue iterations that hit the sweep limit */
    unsigned singular;       /**< singular covariance matrices */
    bool debug;              /**< VMAF_SPEED_TWIN_DEBUG set at init */
    unsigned debug_seq;      /**< images modelled, for the debug lines */
} VmafSpeedEngine;

/**
 * Check the options, size every stage for a w x h plane and allocate. `who` names the
 * extractor in error messages. @return 0, -EINVAL (message logged) or -ENOMEM.
 */
int vmaf_speed_engine_init(VmafSpeedEngine *e, const VmafSpeedOptions *opt, unsigned w,
                           unsigned h, const char *who, enum VmafLogLevel log_level);
void vmaf_speed_engine_close(VmafSpeedEngine *e);

/**
 * Filter, decimate and model one image into *out. @return 0, or 1 when the covariance
 * matrix is singular (the reference's "cannot invert"; variances are then 0).
 */
int vmaf_speed_model_image(VmafSpeedEngine *e, const VmafSpeedSource *src,
                           VmafSpeedResult *out);

/**
 * SpEED of a reference/distorted pair: *score and @return as the reference's
 * speed_extract_score (0, or 1 when either image was singular; when exactly one was, the
 * score is 0).
 */
int vmaf_speed_score(VmafSpeedEngine *e, const VmafSpeedSource *ref,
                     const VmafSpeedSource *dis, float *score);

/* The last steps of vmaf_speed_model_image / vmaf_speed_score, also run by the CUDA twin's
 * collect() on the device's eigenvalues and variances. */

/** Log (once per engine each) a stalled eigenvalue iteration and a singular matrix. */
void vmaf_speed_report(VmafSpeedEngine *e, int stalled, int singular);

/** out->entropies from the eigenvalues and out->variances (log2 in double, as the CPU). */
void vmaf_speed_entropies(const VmafSpeedEngine *e, const float *eigenvalues,
                          VmafSpeedResult *out);

/** The pair score of e->ref and e->dis given each image's singular flag; @return as
 *  vmaf_speed_score. */
int vmaf_speed_pair(const VmafSpeedEngine *e, int singular_ref, int singular_dis, float *score);

/**
 * With VMAF_SPEED_TWIN_DEBUG set, each modelled image prints one stderr line of checksums of
 * its stages (centred image, means, covariance, eigenvalues, singular flag, variances), from
 * the CPU engine and from the CUDA twin alike: diff the two to find the first stage that
 * differs.
 */
void vmaf_speed_debug_line(const char *backend, const char *who, unsigned seq,
                           const float *centred, size_t n_centred, const float *means,
                           const float *cov, const float *eigenvalues, int singular,
                           const float *variances, size_t num_blocks);

/* ---- the extractors' state (speed.c), read by the CUDA twins ---------------------------- */

typedef struct VmafFeatureSink VmafFeatureSink;

typedef struct SpeedChromaState {
    VmafSpeedOptions opt;
    VmafSpeedEngine engine;
} SpeedChromaState;

typedef struct SpeedTemporalState {
    VmafSpeedOptions opt;
    VmafSpeedEngine engine;
    uint8_t *prev_ref, *prev_dis; /* previous luma, rows of row_bytes */
    size_t row_bytes;
    unsigned w, h, bpc;
    bool have_prev;
} SpeedTemporalState;

/** speed_chroma's u, v and uv scores from the two channels' scores and singular flags. */
int vmaf_speed_chroma_store(const SpeedChromaState *s, const float score[2],
                            const int singular[2], unsigned index, VmafFeatureSink *sink);

/** speed_temporal's score of a frame. */
int vmaf_speed_temporal_store(double value, unsigned index, VmafFeatureSink *sink);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_SPEED_H */
