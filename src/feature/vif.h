/*
 * Twin VMAF — integer VIF (extractor "vif").
 *
 * Visual information fidelity of the luma plane at four scales, in the fixed-point form of
 * reference libvmaf 3.2.0. Shared here: the filters, the log2 table, the option set, the
 * per-scale sums and the function that computes them, so that a GPU twin and the unit test
 * use the same constants.
 *
 * Scale s works on an image I_s. I_0 is the input plane (bpc-bit samples); I_{s+1} is I_s
 * filtered with filter s+1 and decimated (even rows and columns, floor(w/2) x floor(h/2)),
 * held as 16-bit values. Every filtering is separable, vertical pass first, and extends the
 * plane by reflection without repeating the edge sample (reflect-101: -1 -> 1, n -> n-2),
 * periodically when the plane is narrower than the filter; a plane of one sample repeats it.
 * All shifts below round down (>>); "k" is bpc at scale 0 and 16 at the others.
 *
 * Statistic of scale s, filter F = filter s, x = ref and y = dis samples of I_s:
 *   vertical     m_x  = (sum F x + 2^(k-1)) >> k                        (same for m_y)
 *                q_xx = (sum F x*x + r) >> q    q = 2(bpc-8) at scale 0, else 16,
 *                                               r = 2^(q-1), or 0 when q = 0
 *                (same for q_yy and q_xy = sum F x*y)
 *   horizontal   mu_x = sum F m_x                                       (uint32, unshifted)
 *                e_xx = (sum F q_xx + 2^15) >> 16                       (uint32)
 *   sigma_xx = int32(e_xx - ((mu_x^2 + 2^31) >> 32))                    (difference mod 2^32)
 *   sigma_yy = max(0, int32(e_yy - ((mu_y^2 + 2^31) >> 32)))
 *   sigma_xy = int32(e_xy - ((mu_x mu_y + 2^31) >> 32))
 * then per pixel, with N = 2^17 (noise variance 2 in units of 2^16):
 *   sigma_xx >= N:  den_log += L(N + sigma_xx) - 17*2048
 *                   if sigma_xy > 0 and sigma_yy > 0, in double:
 *                     g  = sigma_xy / (sigma_xx + 65536e-10)
 *                     sv = max(0, int32(sigma_yy - g * sigma_xy))            (truncated)
 *                     g  = min(g, enhn_gain_limit)
 *                     num_log += L(int64(g * g * sigma_xx) + sv + N) - L(sv + N)
 *   otherwise:      num_non_log += sigma_yy;  den_non_log += 1
 * where L(v) = T[v >> b] + 2048 b, b = (bit length of v) - 16, and T is the log2 table.
 * The scale's score is the float quotient of vmaf_vif_num() and vmaf_vif_den().
 *
 * Subsampling I_s -> I_{s+1}, filter F = filter s+1:
 *   v = (sum_rows F x + 2^(k-1)) >> k,  I_{s+1}(i, j) = (sum_cols F v + 2^15) >> 16
 * evaluated at row 2i, column 2j of I_s.
 *
 * Sizes. Reference libvmaf needs every scale to be at least 2x2 (w and h >= 16): below that it
 * reads stale buffer contents, and for h < 8 it crashes. Twin VMAF defines those cases with the
 * periodic reflection above; a scale with no samples has zero sums, so its score is NaN (0/0),
 * which is what the reference also writes for a scale of width 0.
 */
#ifndef VMAF_FEATURE_VIF_H
#define VMAF_FEATURE_VIF_H

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
    VMAF_VIF_SCALES = 4,
    VMAF_VIF_MAX_FILTER_WIDTH = 17,
    /** The noise variance N: 2.0 in the units of sigma (2^16). */
    VMAF_VIF_SIGMA_NSQ = 1 << 17,
    /** The log2 table covers [FIRST, FIRST + LEN): every 16-bit value with its top bit set. */
    VMAF_VIF_LOG2_TABLE_FIRST = 1 << 15,
    VMAF_VIF_LOG2_TABLE_LEN = 1 << 15,
    /** log2 values are in units of 2^-11. */
    VMAF_VIF_LOG2_ONE = 2048,
};

/** Default of vif_enhn_gain_limit, also its upper bound (1.0 disables enhancement gain). */
#define VMAF_VIF_DEFAULT_ENHN_GAIN_LIMIT 100.0

/** Filter width of each scale (statistic of scale s; subsampling into scale s uses it too). */
static VMAF_CONSTANT const int vmaf_vif_filter_width[VMAF_VIF_SCALES] = { 17, 9, 5, 3 };

/** The symmetric filters, each summing to 2^16; unused entries are 0. Every centre
 * coefficient is even, so the centre tap equals a pair of taps at half of it (vif.c sums
 * every filter over such pairs). */
static VMAF_CONSTANT const uint16_t vmaf_vif_filter[VMAF_VIF_SCALES][VMAF_VIF_MAX_FILTER_WIDTH] = {
    { 489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784,
      7455, 6547, 5274, 3896, 2640, 1640, 935, 489 },
    { 1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244 },
    { 3571, 16004, 26386, 16004, 3571 },
    { 10904, 43728, 10904 },
};

/** The extractor options (names and aliases in vif.c's option table). Host only, as the
 *  functions below the sums: no kernel reads them, and a program built without fp64 names no
 *  double (the kernels take the gain limit in VifCudaArgs). */
#if !VMAF_DIALECT_OPENCL
typedef struct VmafVifOptions {
    double enhn_gain_limit; /**< vif_enhn_gain_limit (egl), [1,100], default 100 */
    bool skip_scale0;       /**< vif_skip_scale0 (ssclz): scale 0 is not computed, scores 0 */
    bool debug;             /**< debug: also write integer_vif, num/den totals and per scale */
} VmafVifOptions;
#endif

/** The integer sums of one scale (see the top of this file). */
typedef struct VmafVifSums {
    int64_t num_log, den_log;
    int64_t num_non_log, den_non_log;
} VmafVifSums;

#if !VMAF_DIALECT_OPENCL

/** The scale's numerator, rounded to float as the reference stores it. */
static inline float vmaf_vif_num(const VmafVifSums *s)
{
    return (float)(s->num_log / 2048.0 +
                   (s->den_non_log - (s->num_non_log / 16384.0) / 65025.0));
}

/** The scale's denominator, rounded to float as the reference stores it. */
static inline float vmaf_vif_den(const VmafVifSums *s)
{
    return (float)(s->den_log / 2048.0 + s->den_non_log);
}

/**
 * Fill the log2 table: table[i - VMAF_VIF_LOG2_TABLE_FIRST] = round(2048 * log2f(i)) for
 * the VMAF_VIF_LOG2_TABLE_LEN values of i, with log2 first rounded to float (nearest) and
 * the product rounded half away from zero, as the reference builds it.
 */
void vmaf_vif_log2_table_fill(uint16_t table[VMAF_VIF_LOG2_TABLE_LEN]);

/** Buffers for one geometry; not shared between threads. */
typedef struct VmafVifWorkspace VmafVifWorkspace;

/**
 * Allocate a workspace for w x h planes of bpc bits (8..16; w, h >= 1).
 * @return 0, -EINVAL or -ENOMEM
 */
int vmaf_vif_workspace_alloc(VmafVifWorkspace **ws, unsigned w, unsigned h, unsigned bpc);

void vmaf_vif_workspace_free(VmafVifWorkspace **ws);

/**
 * The sums of all four scales for one pair of luma planes.
 *
 * @param ref, dis          plane data: uint8 samples when bpc == 8, else uint16
 * @param ref_stride, dis_stride  bytes per row
 * @param enhn_gain_limit   in [1, 100]
 * @param skip_scale0       leave sums[0] zero and skip its statistic (the subsampling into
 *                          scale 1 still reads scale 0)
 */
void vmaf_vif_compute(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                      const void *dis, ptrdiff_t dis_stride, double enhn_gain_limit,
                      bool skip_scale0, VmafVifSums sums[VMAF_VIF_SCALES]);

/** The builds of the kernels; all compute the same sums. */
enum VmafVifImpl {
    VMAF_VIF_IMPL_BEST = 0, /**< what vmaf_vif_compute() uses: the best one this CPU runs */
    VMAF_VIF_IMPL_PLAIN,    /**< baseline instruction set */
    VMAF_VIF_IMPL_AVX2,     /**< x86-64 with AVX2, compiler-vectorized */
    /** VMAF_VIF_IMPL_AVX2 with hand-written AVX2 (16-bit multiply-add) for scale 0 of
     * 8-bit input; vmaf_vif_compute()'s choice where AVX2 runs */
    VMAF_VIF_IMPL_AVX2_MADD,
    /** VMAF_VIF_IMPL_AVX2_MADD with scale 0 of 8-bit input in AVX-512 (F + BW); the choice
     * where those run without VNNI */
    VMAF_VIF_IMPL_AVX512,
    /** VMAF_VIF_IMPL_AVX512 whose scale 0 fuses each multiply-add with its sum (AVX-512
     * VNNI); the choice where that runs */
    VMAF_VIF_IMPL_AVX512_VNNI,
};

/**
 * vmaf_vif_compute() with a chosen build, for tests and benchmarks.
 * @return 0, or -ENOTSUP when this binary or CPU lacks that build
 */
int vmaf_vif_compute_with(enum VmafVifImpl impl, VmafVifWorkspace *ws, const void *ref,
                          ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride,
                          double enhn_gain_limit, bool skip_scale0,
                          VmafVifSums sums[VMAF_VIF_SCALES]);

/*
 * The same sums in two parts, for a reference scored against several distorted planes:
 * the reference side (per scale mu_x, sigma_xx and the den sums; the reference images of
 * scales 1..3) once, then the rest for each distorted plane. Integer parts of the one
 * computation, so the sums are vmaf_vif_compute_with()'s bit for bit (vif_internal.h).
 */

/** Bytes of a reference side of w x h planes (about 8 per pixel of scale 0, 11 in all). */
size_t vmaf_vif_ref_side_size(unsigned w, unsigned h);

/**
 * The reference side of ref (the workspace's geometry) into mem (size bytes at least
 * vmaf_vif_ref_side_size(), 8-byte aligned); skip_scale0 leaves scale 0's rows unmade.
 * @return 0, -EINVAL, or -ENOTSUP when this binary or CPU lacks that build
 */
int vmaf_vif_ref_side_compute_with(enum VmafVifImpl impl, VmafVifWorkspace *ws, void *mem,
                                   size_t size, const void *ref, ptrdiff_t ref_stride,
                                   bool skip_scale0);

/**
 * vmaf_vif_compute_with() from a reference side made of the same ref plane with the same
 * build (the column order of its rows is the build's) and geometry, and scale 0 unless
 * skip_scale0.
 * @return 0, -EINVAL (a side of another build, geometry or without a needed scale 0), or
 *         -ENOTSUP
 */
int vmaf_vif_compute_from_side_with(enum VmafVifImpl impl, VmafVifWorkspace *ws,
                                    const void *side, const void *ref, ptrdiff_t ref_stride,
                                    const void *dis, ptrdiff_t dis_stride,
                                    double enhn_gain_limit, bool skip_scale0,
                                    VmafVifSums sums[VMAF_VIF_SCALES]);
#endif /* !VMAF_DIALECT_OPENCL */

/* ---- for the CUDA twin: the extractor state and how the sums become scores ---- */
#if VMAF_DIALECT_C
#include "feature_extractor.h"

/** The "vif" extractor's state (its priv); the twin reads the options. */
typedef struct VifState {
    VmafVifOptions opt;
    VmafVifWorkspace *ws;
    unsigned w, h, bpc;
    enum VmafLogLevel log_level;
} VifState;

/**
 * Write frame `index`'s outputs from the sums of its four scales, as the extractor does:
 * the four scale scores, and with opt->debug integer_vif, its num/den and those of every
 * scale (the skipped scale 0 reports num 0, den -1 and score 0).
 * @return 0 or the sink's error
 */
int vmaf_vif_store(const VmafVifOptions *opt, const VmafVifSums sums[VMAF_VIF_SCALES],
                   unsigned index, VmafFeatureSink *sink);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_VIF_H */
