/*
 * psnr_hvs: PSNR-HVS per plane (psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr) and their weighted
 * combination (psnr_hvs = 0.8 Y + 0.1 Cb + 0.1 Cr, combined before the dB conversion).
 *
 * Exactness. The scores must equal reference libvmaf's bit for bit, so every float/double
 * choice and every accumulation order below is deliberate:
 *   - block statistics (means, variances, masking energies) and the error sum are float;
 *     the masking weight is computed in double and narrowed; the block threshold takes a
 *     double square root of a float product and is narrowed back to float;
 *   - each float sum adds its terms in raster order within the block (a quadrant sum in
 *     raster order within the quadrant), and the per-plane error sum adds blocks in raster
 *     order of their corners, then coefficients in raster order;
 *   - the DCT is integer and exact.
 * Speed comes from scoring PSNR_HVS_LANES horizontally adjacent blocks at once with the
 * block index as the innermost (vectorizable) loop; that changes no rounding, since lanes
 * never mix. Only the final per-plane sum is serial.
 *
 * Bit depth. bpc 8 means uint8 samples, anything deeper uint16 samples. The error is
 * normalised by (2^bpc - 1)^2 at every depth, which is what the reference does for 8, 10 and
 * 12 bits and extends naturally to 9 and 11. Above 12 bits the integer transform and the
 * integer products of the masking sum could overflow, so deeper input is refused at init
 * (as the reference refuses it).
 *
 * Small planes. A plane narrower or shorter than 8 samples holds no block: nothing is read,
 * the error sum is 0/0 and the plane's score is NaN (written as such, null in JSON), and so
 * is the combined psnr_hvs. This is what the reference yields for such planes.
 *
 * 4:0:0. The metric is defined over three planes and its combined score weights the chroma
 * planes; with no chroma there is no meaningful psnr_hvs (and psnr_hvs_cb/cr could not be
 * written). Like the reference, init refuses YUV400P; unlike the reference, it says why.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature_extractor.h"
#include "libvmaf/picture.h"
#include "psnr_hvs.h"

/** Blocks scored together; a multiple of every SIMD width the compiler may use. */
#define PSNR_HVS_LANES 8

/* The block helpers are inlined into each compiled variant of the plane loop, so that each
 * variant vectorizes them for its own instruction set. */
#if defined(__GNUC__)
#define INLINE inline __attribute__((always_inline))
#else
#define INLINE inline
#endif

/* On x86 a second copy of the plane loop is compiled for AVX2 (8-wide int32 multiplies make
 * the integer DCT much cheaper than SSE2's emulated ones) and picked at init when the CPU
 * has it. Both copies run the same C source with no reassociation and no contraction, so
 * they give identical results; only the vector width differs. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define PSNR_HVS_X86_DISPATCH 1
#else
#define PSNR_HVS_X86_DISPATCH 0
#endif

/** One plane of one picture. */
typedef struct PlaneView {
    const uint8_t *data;
    ptrdiff_t stride; /**< bytes */
    int wide;         /**< 1 for uint16 samples */
} PlaneView;

typedef float (*PlaneErrorFn)(const PlaneView *ref, const PlaneView *dis, int w, int h,
                              unsigned bpc, const float *csf, const float *mask);

typedef struct PsnrHvsState {
    float mask[3][PSNR_HVS_COEFFS]; /**< masking weight per plane and coefficient */
    PlaneErrorFn plane_error;       /**< best variant for this CPU, chosen at init */
} PsnrHvsState;

/** Working set for PSNR_HVS_LANES blocks; coefficient-major, lane-minor. */
typedef struct BlockBatch {
    int32_t ref[PSNR_HVS_COEFFS][PSNR_HVS_LANES];
    int32_t dis[PSNR_HVS_COEFFS][PSNR_HVS_LANES];
    int32_t tmp[PSNR_HVS_COEFFS][PSNR_HVS_LANES];
    float ratio_ref[PSNR_HVS_LANES], ratio_dis[PSNR_HVS_LANES];
    float threshold[PSNR_HVS_LANES];
    float term[PSNR_HVS_COEFFS][PSNR_HVS_LANES];
} BlockBatch;

/** Quadrant (0..3) of the sample at raster position k: +1 for the lower half, +2 right. */
static INLINE int quadrant_of(int k)
{
    return ((k >> 3) >= 4) + 2 * ((k & 7) >= 4);
}

/* Copy the 8x8 block with top-left corner (x, y) into lane `lane`. */
static INLINE void load_block(int32_t dst[PSNR_HVS_COEFFS][PSNR_HVS_LANES], int lane,
                              const PlaneView *pv, int x, int y)
{
    const uint8_t *row = pv->data + (ptrdiff_t)y * pv->stride;
    if (pv->wide) {
        for (int r = 0; r < PSNR_HVS_BLOCK; r++, row += pv->stride) {
            const uint8_t *p = row + 2 * (ptrdiff_t)x;
            for (int c = 0; c < PSNR_HVS_BLOCK; c++)
                dst[r * 8 + c][lane] = (int32_t)(p[2 * c] | (p[2 * c + 1] << 8));
        }
    } else {
        for (int r = 0; r < PSNR_HVS_BLOCK; r++, row += pv->stride) {
            const uint8_t *p = row + x;
            for (int c = 0; c < PSNR_HVS_BLOCK; c++)
                dst[r * 8 + c][lane] = p[c];
        }
    }
}

/*
 * Texture ratio of each lane's block: the sum of the four 4x4-quadrant variances over the
 * whole-block variance (both unbiased), or 0 for a flat block.
 */
static INLINE void texture_ratio(float ratio[PSNR_HVS_LANES],
                                 int32_t px[PSNR_HVS_COEFFS][PSNR_HVS_LANES])
{
    /* The means are sums of at most 64 integers below 2^12: exact in float, so summing in
     * int32 and converting once gives the same value as a running float sum. */
    int32_t gsum[PSNR_HVS_LANES] = {0};
    int32_t qsum[4][PSNR_HVS_LANES] = {{0}};
#if defined(__GNUC__)
#pragma GCC unroll 64
#endif
    for (int k = 0; k < PSNR_HVS_COEFFS; k++) {
        const int q = quadrant_of(k);
        for (int l = 0; l < PSNR_HVS_LANES; l++) {
            gsum[l] += px[k][l];
            qsum[q][l] += px[k][l];
        }
    }

    float gmean[PSNR_HVS_LANES], qmean[4][PSNR_HVS_LANES];
    for (int l = 0; l < PSNR_HVS_LANES; l++)
        gmean[l] = (float)gsum[l] / 64.f;
    for (int q = 0; q < 4; q++)
        for (int l = 0; l < PSNR_HVS_LANES; l++)
            qmean[q][l] = (float)qsum[q][l] / 16.f;

    float gvar[PSNR_HVS_LANES] = {0};
    float qvar[4][PSNR_HVS_LANES] = {{0}};
    /* Fully unrolled, the quadrant of each k is a constant and the accumulators stay in
     * registers instead of making a store-to-load chain through memory. */
#if defined(__GNUC__)
#pragma GCC unroll 64
#endif
    for (int k = 0; k < PSNR_HVS_COEFFS; k++) {
        const int q = quadrant_of(k);
        for (int l = 0; l < PSNR_HVS_LANES; l++) {
            const float v = (float)px[k][l];
            const float dg = v - gmean[l];
            const float dq = v - qmean[q][l];
            gvar[l] += dg * dg;
            qvar[q][l] += dq * dq;
        }
    }

    /* n/(n-1) correction with the factor rounded to float first, as the reference has it. */
    const float unbias64 = 1 / 63.f * 64;
    const float unbias16 = 1 / 15.f * 16;
    for (int l = 0; l < PSNR_HVS_LANES; l++) {
        const float g = gvar[l] * unbias64;
        const float q0 = qvar[0][l] * unbias16;
        const float q1 = qvar[1][l] * unbias16;
        const float q2 = qvar[2][l] * unbias16;
        const float q3 = qvar[3][l] * unbias16;
        /* The reference keeps g (= 0) for a flat block. A flat block also has four zero
         * quadrant variances, so dividing by 1 instead yields that same +0, and the
         * division needs no branch. */
        ratio[l] = (q0 + q1 + q2 + q3) / (g > 0 ? g : 1.f);
    }
}

/* One 8-point pass over every lane: dst row i = transform of src column i. */
static INLINE void fdct_pass(int32_t dst[restrict PSNR_HVS_COEFFS][PSNR_HVS_LANES],
                             int32_t src[restrict PSNR_HVS_COEFFS][PSNR_HVS_LANES])
{
    for (int i = 0; i < PSNR_HVS_BLOCK; i++)
        for (int l = 0; l < PSNR_HVS_LANES; l++)
            psnr_hvs_fdct8(&dst[i * 8][l], PSNR_HVS_LANES,
                           &src[i][l], 8 * PSNR_HVS_LANES);
}

/* 2-D forward DCT of every lane, in place: columns first (into tmp), then rows. Afterwards
 * px[v * 8 + u] holds vertical frequency v, horizontal frequency u. */
static INLINE void fdct8x8(int32_t px[restrict PSNR_HVS_COEFFS][PSNR_HVS_LANES],
                           int32_t tmp[restrict PSNR_HVS_COEFFS][PSNR_HVS_LANES])
{
    fdct_pass(tmp, px);
    fdct_pass(px, tmp);
}

/* Masking amplitude of each lane: sqrt(weighted AC energy * texture ratio) / 32. */
static INLINE void mask_amplitude(float amp[PSNR_HVS_LANES],
                                  int32_t coef[PSNR_HVS_COEFFS][PSNR_HVS_LANES],
                                  const float ratio[PSNR_HVS_LANES], const float *mask)
{
    float energy[PSNR_HVS_LANES] = {0};
#if defined(__GNUC__)
#pragma GCC unroll 64
#endif
    for (int k = 1; k < PSNR_HVS_COEFFS; k++) {
        for (int l = 0; l < PSNR_HVS_LANES; l++) {
            /* The square is an int32 product, rounded to float before the weighting. */
            const int32_t sq = coef[k][l] * coef[k][l];
            energy[l] += (float)sq * mask[k];
        }
    }
    for (int l = 0; l < PSNR_HVS_LANES; l++)
        amp[l] = (float)(sqrt((double)(energy[l] * ratio[l])) / 32.0);
}

/* Score the batch: DCT both sides, derive each block's threshold, and fill term[][] with
 * the squared weighted excess error of every coefficient. */
static INLINE void score_batch(BlockBatch *b, const float *csf, const float *mask)
{
    float amp_dis[PSNR_HVS_LANES];

    texture_ratio(b->ratio_ref, b->ref);
    texture_ratio(b->ratio_dis, b->dis);
    fdct8x8(b->ref, b->tmp);
    fdct8x8(b->dis, b->tmp);
    mask_amplitude(b->threshold, b->ref, b->ratio_ref, mask);
    mask_amplitude(amp_dis, b->dis, b->ratio_dis, mask);
    for (int l = 0; l < PSNR_HVS_LANES; l++) {
        const float amp_ref = b->threshold[l];
        b->threshold[l] = amp_dis[l] > amp_ref ? amp_dis[l] : amp_ref;
    }

    /* DC: the plain difference, never masked. */
    for (int l = 0; l < PSNR_HVS_LANES; l++) {
        const float err = (float)abs(b->ref[0][l] - b->dis[0][l]);
        const float we = err * csf[0];
        b->term[0][l] = we * we;
    }
    for (int k = 1; k < PSNR_HVS_COEFFS; k++) {
        for (int l = 0; l < PSNR_HVS_LANES; l++) {
            const float diff = (float)abs(b->ref[k][l] - b->dis[k][l]);
            const float thr = b->threshold[l] / mask[k];
            /* The reference's "diff < thr ? 0 : diff - thr", written as a clamp of the
             * difference so that it vectorizes: diff - thr is negative exactly when
             * diff < thr, and +0 when they are equal. */
            const float excess = diff - thr;
            const float err = excess > 0.f ? excess : 0.f;
            const float we = err * csf[k];
            b->term[k][l] = we * we;
        }
    }
}

float vmaf_psnr_hvs_normalize(float sum, int w, int h, unsigned bpc)
{
    /* coeffs == 0 (no block fits) gives 0/0 = NaN, on purpose: see the top of the file.
     * The count is converted to float exactly as the reference's int count is. */
    const int64_t coeffs =
        (int64_t)vmaf_psnr_hvs_blocks(w) * vmaf_psnr_hvs_blocks(h) * PSNR_HVS_COEFFS;
    sum /= (float)coeffs;
    const int32_t peak = (int32_t)((1u << bpc) - 1);
    sum /= (float)(peak * peak);
    return sum;
}

/*
 * Normalised masked error of one plane (the value whose -10 log10 is the plane's score):
 * mean over all used coefficients of the squared weighted excess, over (2^bpc - 1)^2.
 */
static INLINE float plane_error_body(const PlaneView *ref, const PlaneView *dis, int w, int h,
                                     unsigned bpc, const float *csf, const float *mask)
{
    BlockBatch b;
    float sum = 0.f;
    /* Converted to float for the mean exactly as the reference's int count is; 64-bit only
     * so that no frame size can overflow it. */
    int64_t coeffs = 0;

    /* Corners x = 0, 7, 14, ... while x < w - 7 (a block must fit). */
    const int nbx = vmaf_psnr_hvs_blocks(w);

    for (int y = 0; y < h - (PSNR_HVS_BLOCK - 1); y += PSNR_HVS_STEP) {
        for (int bx = 0; bx < nbx; bx += PSNR_HVS_LANES) {
            const int n = nbx - bx < PSNR_HVS_LANES ? nbx - bx : PSNR_HVS_LANES;
            /* Unused lanes of the last batch repeat its last block; their terms are dropped. */
            for (int l = 0; l < PSNR_HVS_LANES; l++) {
                const int x = PSNR_HVS_STEP * (bx + (l < n ? l : n - 1));
                load_block(b.ref, l, ref, x, y);
                load_block(b.dis, l, dis, x, y);
            }
            score_batch(&b, csf, mask);
            /* The one serial chain: blocks left to right, coefficients in raster order. */
            for (int l = 0; l < n; l++)
                for (int k = 0; k < PSNR_HVS_COEFFS; k++)
                    sum += b.term[k][l];
            coeffs += n * PSNR_HVS_COEFFS;
        }
    }

    (void)coeffs;
    return vmaf_psnr_hvs_normalize(sum, w, h, bpc);
}

static float plane_error_default(const PlaneView *ref, const PlaneView *dis, int w, int h,
                                 unsigned bpc, const float *csf, const float *mask)
{
    return plane_error_body(ref, dis, w, h, bpc, csf, mask);
}

#if PSNR_HVS_X86_DISPATCH
__attribute__((target("avx2")))
static float plane_error_avx2(const PlaneView *ref, const PlaneView *dis, int w, int h,
                              unsigned bpc, const float *csf, const float *mask)
{
    return plane_error_body(ref, dis, w, h, bpc, csf, mask);
}
#endif

static PlaneErrorFn pick_plane_error(void)
{
#if PSNR_HVS_X86_DISPATCH
    if (__builtin_cpu_supports("avx2"))
        return plane_error_avx2;
#endif
    return plane_error_default;
}

static double to_db(double err)
{
    return 10 * (-1 * log10(err));
}

static int init(void *priv, const VmafFeatureGeometry *geometry)
{
    PsnrHvsState *s = priv;

    if (geometry->bpc < 8 || geometry->bpc > PSNR_HVS_MAX_BPC) {
        vmaf_log(geometry->log_level, VMAF_LOG_LEVEL_ERROR,
                 "psnr_hvs: unsupported bit depth %u, must be 8 to %d\n",
                 geometry->bpc, PSNR_HVS_MAX_BPC);
        return -EINVAL;
    }
    if (geometry->pix_fmt == VMAF_PIX_FMT_YUV400P) {
        vmaf_log(geometry->log_level, VMAF_LOG_LEVEL_ERROR,
                 "psnr_hvs: 4:0:0 input is not supported, the metric needs chroma planes\n");
        return -EINVAL;
    }
    if (geometry->pix_fmt != VMAF_PIX_FMT_YUV420P &&
        geometry->pix_fmt != VMAF_PIX_FMT_YUV422P &&
        geometry->pix_fmt != VMAF_PIX_FMT_YUV444P) {
        vmaf_log(geometry->log_level, VMAF_LOG_LEVEL_ERROR,
                 "psnr_hvs: unknown pixel format %d\n", (int)geometry->pix_fmt);
        return -EINVAL;
    }

    for (int p = 0; p < 3; p++)
        for (int k = 0; k < PSNR_HVS_COEFFS; k++)
            s->mask[p][k] = psnr_hvs_mask_weight(psnr_hvs_csf[p][k]);
    s->plane_error = pick_plane_error();
    return 0;
}

static int extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    const PsnrHvsState *s = priv;
    const VmafPicture *ref = frame->ref, *dis = frame->dist;
    if (!ref || !dis)
        return -EINVAL;
    const unsigned bpc = ref->bpc;
    if (bpc < 8 || bpc > PSNR_HVS_MAX_BPC || dis->bpc != bpc)
        return -EINVAL;

    double err[3];
    for (int p = 0; p < 3; p++) {
        if (!ref->data[p] || !dis->data[p] || ref->w[p] > INT32_MAX / 2 ||
            ref->h[p] > INT32_MAX / 2 || dis->w[p] < ref->w[p] || dis->h[p] < ref->h[p])
            return -EINVAL;
        const PlaneView rv = { ref->data[p], ref->stride[p], bpc > 8 };
        const PlaneView dv = { dis->data[p], dis->stride[p], bpc > 8 };
        err[p] = s->plane_error(&rv, &dv, (int)ref->w[p], (int)ref->h[p], bpc,
                                psnr_hvs_csf[p], s->mask[p]);
    }

    return vmaf_psnr_hvs_store(err, frame->index, sink);
}

int vmaf_psnr_hvs_store(const double err[3], unsigned index, VmafFeatureSink *sink)
{
    static const char *const plane_names[3] = { "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr" };
    for (int p = 0; p < 3; p++) {
        const int rc = vmaf_feature_sink_append(sink, plane_names[p], to_db(err[p]), index);
        if (rc)
            return rc;
    }
    const double combined = err[0] * .8 + .1 * (err[1] + err[2]);
    return vmaf_feature_sink_append(sink, "psnr_hvs", to_db(combined), index);
}

static const char *const provided_features[] = {
    "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs", NULL,
};

static const VmafOption options[] = {
    { .name = NULL },
};

const VmafFeatureExtractor vmaf_fex_psnr_hvs = {
    .name = "psnr_hvs",
    .priv_size = sizeof(PsnrHvsState),
    .options = options,
    .provided_features = provided_features,
    .init = init,
    .extract = extract,
};
