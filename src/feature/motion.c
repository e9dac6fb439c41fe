/*
 * Twin VMAF — integer motion: extractors "motion" and "motion_v2".
 *
 * Both run the same arithmetic (motion.h describes it) and differ only in the names of the
 * features they write. extract() writes the per-frame SAD score; motion2 and motion3 need
 * the next frame's score, so flush() derives them for every frame from the stored scores.
 *
 * Integer ranges. A filtered difference fits 17 bits signed (|v| <= 65535), so the
 * weighted sum of five of them (at most 65535 * 2^16) can exceed int32. Instead of widening
 * to int64 the kernels stay in int32, which vectorizes well:
 *   - vertical pass, bpc <= 15: the sum is below 2^31 and is computed directly;
 *   - vertical pass, bpc 16, and horizontal pass on rows holding a |v| >= 2^15: each input
 *     is split into 256*hi + lo and both halves are filtered separately, then recombined
 *     with the rounding shift (exact, see taps_split());
 *   - horizontal pass on other rows: the sum is below 2^31 and is computed directly.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature_extractor.h"
#include "libvmaf/picture.h"
#include "motion.h"
#include "motion_options.h"

/* ------------------------------------------------------------------------------------- */
/* Kernels                                                                               */

#if defined(__GNUC__)
#define MOTION_INLINE static inline __attribute__((always_inline))
#else
#define MOTION_INLINE static inline
#endif

/* Work in fixed blocks of samples: a loop with a constant trip count is one the compiler
 * vectorizes at -O2; the remainder of a row goes through the same code one by one. The sizes
 * are tuned for 256-bit vectors (32 lanes of 8-bit samples, 16 of 16-bit or int32 ones). */
#define BLOCK_U8 32  /* vertical pass, 8-bit samples */
#define BLOCK_U16 16 /* vertical pass, 16-bit samples */
#define BLOCK_H 16   /* horizontal pass */

enum {
    KO = VMAF_MOTION_K_OUTER,
    KI = VMAF_MOTION_K_INNER,
    KC = VMAF_MOTION_K_CENTER,
    PAD = VMAF_MOTION_RADIUS,
};

static int mirror_index(int i, int n)
{
    return vmaf_reflect101(i, n);
}

/* The kernel on five consecutive values a..e; exact in int32 when the true sum fits. */
MOTION_INLINE int32_t taps32(int32_t a, int32_t b, int32_t c, int32_t d, int32_t e)
{
    return KO * (a + e) + KI * (b + d) + KC * c;
}

/* (kernel on a..e + rnd) >> shift, for |a..e| < 2^17, rnd >= 0 and shift >= 8, exact in
 * int32. With x = 256*(x >> 8) + (x & 255) for every pair/centre term, the sum is
 * S = 256*hi + lo, and floor((S + rnd) / 2^shift)
 *   = floor((hi + floor((lo + rnd) / 256)) / 2^(shift-8)).
 * |hi| <= 2^25 and 0 <= lo < 2^24, so nothing overflows. */
MOTION_INLINE int32_t taps_split(int32_t a, int32_t b, int32_t c, int32_t d, int32_t e,
                                 int32_t rnd, int shift)
{
    const int32_t outer = a + e, inner = b + d;
    const int32_t hi = KO * (outer >> 8) + KI * (inner >> 8) + KC * (c >> 8);
    const int32_t lo = KO * (outer & 255) + KI * (inner & 255) + KC * (c & 255);
    return (hi + ((lo + rnd) >> 8)) >> (shift - 8);
}

/* Per-row summaries of the filtered values v: whether any is nonzero, and the OR of
 * v ^ (v >> 31) (v, or -v-1 when negative), which is below 2^15 iff every v lies in
 * [-2^15, 2^15). The block loops gather them (and the horizontal sums) in one accumulator
 * per lane, reduced once per row, so no block ends in a horizontal reduction. */
typedef struct RowStats {
    int32_t any, mag;
} RowStats;

/*
 * Vertical pass: out[j] = filtered (p - c) over the five rows p0..p4 / c0..c4, j in [0, w),
 * rounded and shifted right by shift. split = 0: direct int32 sum (8-bit samples, or 16-bit
 * ones at bpc <= 15); split = 1: split arithmetic (bpc 16). Callers pass split as a
 * constant, so each inlined copy has a single branch-free loop.
 */
#define VPASS_ONE(j, lane)                                                               \
    do {                                                                                 \
        const int32_t d0 = (int32_t)p0[j] - (int32_t)c0[j];                              \
        const int32_t d1 = (int32_t)p1[j] - (int32_t)c1[j];                              \
        const int32_t d2 = (int32_t)p2[j] - (int32_t)c2[j];                              \
        const int32_t d3 = (int32_t)p3[j] - (int32_t)c3[j];                              \
        const int32_t d4 = (int32_t)p4[j] - (int32_t)c4[j];                              \
        const int32_t v = split ? taps_split(d0, d1, d2, d3, d4, rnd, shift)             \
                                : (taps32(d0, d1, d2, d3, d4) + rnd) >> shift;           \
        out[j] = v;                                                                      \
        any[lane] |= v;                                                                  \
        mag[lane] |= v ^ (v >> 31);                                                      \
    } while (0)

#define DEFINE_VPASS(NAME, T, BLOCK)                                                     \
    MOTION_INLINE RowStats NAME(const T *restrict p0, const T *restrict p1,              \
                                const T *restrict p2, const T *restrict p3,              \
                                const T *restrict p4, const T *restrict c0,              \
                                const T *restrict c1, const T *restrict c2,              \
                                const T *restrict c3, const T *restrict c4,              \
                                int32_t *restrict out, size_t w, int split, int shift)   \
    {                                                                                    \
        const int32_t rnd = (int32_t)1 << (shift - 1);                                   \
        int32_t any[BLOCK] = { 0 }, mag[BLOCK] = { 0 };                                  \
        size_t j0 = 0;                                                                   \
        for (; j0 + BLOCK <= w; j0 += BLOCK) {                                           \
            for (size_t t = 0; t < BLOCK; t++)                                           \
                VPASS_ONE(j0 + t, t);                                                    \
        }                                                                                \
        for (size_t j = j0; j < w; j++)                                                  \
            VPASS_ONE(j, 0);                                                             \
        RowStats st = { 0, 0 };                                                          \
        for (size_t t = 0; t < BLOCK; t++) {                                             \
            st.any |= any[t];                                                            \
            st.mag |= mag[t];                                                            \
        }                                                                                \
        return st;                                                                       \
    }

DEFINE_VPASS(vpass_u8, uint8_t, BLOCK_U8)
DEFINE_VPASS(vpass_u16, uint16_t, BLOCK_U16)

/*
 * Horizontal pass over buf[0 .. w+4), the filtered row with its mirrored margins: the sum
 * over j in [0, w) of |filtered buf around j+2|, wrapping mod 2^32 like the reference's
 * per-row accumulator (lane sums wrap the same way). split selects the arithmetic for rows
 * with large values.
 */
#define HPASS_ONE(j, lane)                                                               \
    do {                                                                                 \
        const int32_t *q = buf + (j);                                                    \
        const int32_t x = split ? taps_split(q[0], q[1], q[2], q[3], q[4], 1 << 15, 16)  \
                                : (taps32(q[0], q[1], q[2], q[3], q[4]) + (1 << 15)) >> 16; \
        sum[lane] += (uint32_t)(x < 0 ? -x : x);                                         \
    } while (0)

MOTION_INLINE uint32_t hpass(const int32_t *restrict buf, size_t w, int split)
{
    uint32_t sum[BLOCK_H] = { 0 };
    size_t j0 = 0;
    for (; j0 + BLOCK_H <= w; j0 += BLOCK_H) {
        for (size_t t = 0; t < BLOCK_H; t++)
            HPASS_ONE(j0 + t, t);
    }
    for (size_t j = j0; j < w; j++)
        HPASS_ONE(j, 0);
    uint32_t total = 0;
    for (size_t t = 0; t < BLOCK_H; t++)
        total += sum[t];
    return total;
}

MOTION_INLINE uint64_t motion_sad_impl(const void *prev, ptrdiff_t prev_stride,
                                       const void *cur, ptrdiff_t cur_stride,
                                       unsigned w, unsigned h, unsigned bpc,
                                       int32_t *row_buf)
{
    const int wide = bpc > 8;
    const int split_vertical = bpc >= 16;
    const int shift = (int)bpc;
    const unsigned char *const pb = prev, *const cb = cur;
    int32_t *const mid = row_buf + PAD;
    uint64_t sad = 0;

    for (unsigned i = 0; i < h; i++) {
        const unsigned char *pr[VMAF_MOTION_TAPS], *cr[VMAF_MOTION_TAPS];
        for (int k = 0; k < VMAF_MOTION_TAPS; k++) {
            const ptrdiff_t r = mirror_index((int)i - PAD + k, (int)h);
            pr[k] = pb + r * prev_stride;
            cr[k] = cb + r * cur_stride;
        }

        RowStats st;
        if (!wide) {
            st = vpass_u8((const uint8_t *)pr[0], (const uint8_t *)pr[1],
                          (const uint8_t *)pr[2], (const uint8_t *)pr[3],
                          (const uint8_t *)pr[4], (const uint8_t *)cr[0],
                          (const uint8_t *)cr[1], (const uint8_t *)cr[2],
                          (const uint8_t *)cr[3], (const uint8_t *)cr[4], mid, w, 0, 8);
        } else {
            const uint16_t *p16[VMAF_MOTION_TAPS], *c16[VMAF_MOTION_TAPS];
            for (int k = 0; k < VMAF_MOTION_TAPS; k++) {
                p16[k] = (const uint16_t *)(const void *)pr[k];
                c16[k] = (const uint16_t *)(const void *)cr[k];
            }
            if (split_vertical)
                st = vpass_u16(p16[0], p16[1], p16[2], p16[3], p16[4], c16[0], c16[1],
                               c16[2], c16[3], c16[4], mid, w, 1, 16);
            else
                st = vpass_u16(p16[0], p16[1], p16[2], p16[3], p16[4], c16[0], c16[1],
                               c16[2], c16[3], c16[4], mid, w, 0, shift);
        }

        if (!st.any)
            continue; /* an all-zero row adds nothing */

        for (int k = 1; k <= PAD; k++) {
            mid[-k] = mid[mirror_index(-k, (int)w)];
            mid[(int)w - 1 + k] = mid[mirror_index((int)w - 1 + k, (int)w)];
        }
        if (st.mag < (1 << 15))
            sad += hpass(row_buf, w, 0);
        else
            sad += hpass(row_buf, w, 1);
    }
    return sad;
}

/* One plain build of the kernel, and on x86-64 with GCC/Clang a second one for AVX2,
 * chosen at run time. Both compute the same integers. */
static uint64_t motion_sad_plain(const void *prev, ptrdiff_t prev_stride, const void *cur,
                                 ptrdiff_t cur_stride, unsigned w, unsigned h, unsigned bpc,
                                 int32_t *row_buf)
{
    return motion_sad_impl(prev, prev_stride, cur, cur_stride, w, h, bpc, row_buf);
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(VMAF_MOTION_NO_AVX2)
#define MOTION_HAVE_AVX2 1
__attribute__((target("avx2")))
static uint64_t motion_sad_avx2(const void *prev, ptrdiff_t prev_stride, const void *cur,
                                ptrdiff_t cur_stride, unsigned w, unsigned h, unsigned bpc,
                                int32_t *row_buf)
{
    return motion_sad_impl(prev, prev_stride, cur, cur_stride, w, h, bpc, row_buf);
}
#endif

uint64_t vmaf_motion_sad(const void *prev, ptrdiff_t prev_stride,
                         const void *cur, ptrdiff_t cur_stride,
                         unsigned w, unsigned h, unsigned bpc, int32_t *row_buf)
{
#ifdef MOTION_HAVE_AVX2
    if (__builtin_cpu_supports("avx2"))
        return motion_sad_avx2(prev, prev_stride, cur, cur_stride, w, h, bpc, row_buf);
#endif
    return motion_sad_plain(prev, prev_stride, cur, cur_stride, w, h, bpc, row_buf);
}

/* ------------------------------------------------------------------------------------- */
/* Extractors                                                                            */


const MotionNames vmaf_motion_names_v1 = {
    .sad = "VMAF_integer_feature_motion_sad_score",
    .motion = "VMAF_integer_feature_motion_score",
    .motion2 = "VMAF_integer_feature_motion2_score",
    .motion3 = "VMAF_integer_feature_motion3_score",
};

const MotionNames vmaf_motion_names_v2 = {
    .sad = "VMAF_integer_feature_motion_v2_sad_score",
    .motion = "VMAF_integer_feature_motion_v2_score",
    .motion2 = "VMAF_integer_feature_motion2_v2_score",
    .motion3 = "VMAF_integer_feature_motion3_v2_score",
};

static const char *const provided_v1[] = {
    "VMAF_integer_feature_motion_sad_score",
    "VMAF_integer_feature_motion_score",
    "VMAF_integer_feature_motion2_score",
    "VMAF_integer_feature_motion3_score",
    NULL,
};

static const char *const provided_v2[] = {
    "VMAF_integer_feature_motion_v2_sad_score",
    "VMAF_integer_feature_motion_v2_score",
    "VMAF_integer_feature_motion2_v2_score",
    "VMAF_integer_feature_motion3_v2_score",
    NULL,
};

#define OPT_AT(field) (offsetof(MotionState, opt) + offsetof(VmafMotionOptions, field))

static const VmafOption motion_options[] = {
    VMAF_MOTION_OPTION_FORCE_ZERO(OPT_AT(force_zero)),
    VMAF_MOTION_OPTION_BLEND_FACTOR(OPT_AT(blend_factor)),
    VMAF_MOTION_OPTION_BLEND_OFFSET(OPT_AT(blend_offset)),
    VMAF_MOTION_OPTION_FPS_WEIGHT(OPT_AT(fps_weight)),
    VMAF_MOTION_OPTION_MAX_VAL(OPT_AT(max_val)),
    {
        .name = "motion_five_frame_window",
        .alias = "mffw",
        .help = "compare each frame with the one two frames back",
        .offset = OPT_AT(five_frame_window),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_moving_average",
        .alias = "mma",
        .help = "average each motion3 score with the previous frame's",
        .offset = OPT_AT(moving_average),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    VMAF_MOTION_OPTION_DEBUG(OPT_AT(debug), false),
    { 0 },
};

static int motion_init(void *priv, const VmafFeatureGeometry *g)
{
    MotionState *s = priv;
    s->log_level = g->log_level;
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "motion: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    s->w = g->w;
    s->h = g->h;
    s->bpc = g->bpc;
    s->row_buf = malloc(VMAF_MOTION_ROW_BUF_LEN(g->w) * sizeof(*s->row_buf));
    return s->row_buf ? 0 : -ENOMEM;
}

static void motion_close(void *priv)
{
    MotionState *s = priv;
    free(s->row_buf);
    s->row_buf = NULL;
}

static int luma_matches(const MotionState *s, const VmafPicture *pic)
{
    return pic->data[0] && pic->w[0] == s->w && pic->h[0] == s->h && pic->bpc == s->bpc;
}

bool vmaf_motion_needs_sad(const MotionState *s, unsigned index)
{
    return !s->opt.force_zero && index >= (s->opt.five_frame_window ? 2u : 1u);
}

int vmaf_motion_store(const MotionState *s, const MotionNames *names, uint64_t sad,
                      unsigned index, VmafFeatureSink *sink)
{
    const VmafMotionOptions *o = &s->opt;
    double score = 0.;
    if (vmaf_motion_needs_sad(s, index))
        score = vmaf_motion_score_from_sad(sad, s->w, s->h, o->fps_weight, o->max_val);
    int err = vmaf_feature_sink_append(sink, names->sad, score, index);
    if (!err && o->debug) err = vmaf_feature_sink_append(sink, names->motion, score, index);
    return err;
}

static int motion_extract(MotionState *s, const MotionNames *names,
                          const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    uint64_t sad = 0;
    if (vmaf_motion_needs_sad(s, frame->index)) {
        const VmafPicture *cur = frame->ref;
        const VmafPicture *prev = s->opt.five_frame_window ? frame->prev_prev_ref : frame->prev_ref;
        /* the first context frames of a segment have no earlier frame; their score is dropped */
        if (!prev && !vmaf_feature_sink_keeps(sink, frame->index))
            return vmaf_motion_store(s, names, 0, frame->index, sink);
        if (!prev || !cur || !s->row_buf || !luma_matches(s, cur) || !luma_matches(s, prev))
            return -EINVAL;
        sad = vmaf_motion_sad(prev->data[0], prev->stride[0], cur->data[0], cur->stride[0],
                              s->w, s->h, s->bpc, s->row_buf);
    }
    return vmaf_motion_store(s, names, sad, frame->index, sink);
}

static double clip_max(double v, double max_val)
{
    return v < max_val ? v : max_val;
}

/*
 * motion2 of frame i is the smaller of the scores around it; motion3 is motion2 blended,
 * clipped and optionally averaged with its predecessor's. Frames before the first scored
 * one get motion2 = 0 and, as motion3, the blended and clipped score of that first scored
 * frame (its own score, not its motion2); the moving average starts from that value.
 */
static int motion_flush(MotionState *s, const MotionNames *names, VmafFeatureSink *sink)
{
    const VmafMotionOptions *o = &s->opt;
    const unsigned first = o->five_frame_window ? 2 : 1; /* first scored index */
    const unsigned back = first - 1; /* how far before i the lower neighbour lies */
    double v;

    unsigned n = 0;
    while (!vmaf_feature_sink_get(sink, names->sad, &v, n))
        n++;
    if (!n)
        return 0;

    double lead_in = 0.;
    if (n > first && !vmaf_feature_sink_get(sink, names->sad, &v, first))
        lead_in = clip_max(vmaf_motion_blend(v, o->blend_factor, o->blend_offset), o->max_val);

    double last = 0.;
    for (unsigned i = 0; i < n; i++) {
        double motion2 = 0., motion3, here = 0., next = 0., low = 0.;
        (void)vmaf_feature_sink_get(sink, names->sad, &here, i);

        if (i >= first) {
            if (vmaf_feature_sink_get(sink, names->sad, &next, i + 1)) {
                motion2 = here;
            } else if (i - back >= first) {
                (void)vmaf_feature_sink_get(sink, names->sad, &low, i - back);
                motion2 = low < next ? low : next;
            } else {
                motion2 = next;
            }
        }
        int err = vmaf_feature_sink_append(sink, names->motion2, motion2, i);
        if (err)
            return err;

        if (i < first) {
            motion3 = lead_in;
            last = lead_in;
        } else {
            const double processed =
                clip_max(vmaf_motion_blend(motion2, o->blend_factor, o->blend_offset),
                         o->max_val);
            motion3 = o->moving_average ? (processed + last) / 2.0 : processed;
            last = processed;
        }
        err = vmaf_feature_sink_append(sink, names->motion3, motion3, i);
        if (err)
            return err;
    }
    return 0;
}

/* A kept frame needs the frame it is compared with (one back, two with the five-frame
 * window); motion2/motion3 come from the merged SADs at the merge (FLUSH_AT_MERGE). */
static void motion_context(const void *priv, unsigned *before, unsigned *after)
{
    const MotionState *s = priv;
    *before = s->opt.force_zero ? 0 : s->opt.five_frame_window ? 2 : 1;
    *after = 0;
}

static int extract_v1(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    return motion_extract(priv, &vmaf_motion_names_v1, frame, sink);
}

static int extract_v2(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    return motion_extract(priv, &vmaf_motion_names_v2, frame, sink);
}

static int flush_v1(void *priv, VmafFeatureSink *sink)
{
    return motion_flush(priv, &vmaf_motion_names_v1, sink);
}

static int flush_v2(void *priv, VmafFeatureSink *sink)
{
    return motion_flush(priv, &vmaf_motion_names_v2, sink);
}

const VmafFeatureExtractor vmaf_fex_motion = {
    .name = "motion",
    .priv_size = sizeof(MotionState),
    .options = motion_options,
    .provided_features = provided_v1,
    .flags = VMAF_FEATURE_EXTRACTOR_PREV_REF | VMAF_FEATURE_EXTRACTOR_FLUSH_AT_MERGE |
             VMAF_FEATURE_EXTRACTOR_LUMA_ONLY | VMAF_FEATURE_EXTRACTOR_REF_ONLY,
    .init = motion_init,
    .extract = extract_v1,
    .flush = flush_v1,
    .close = motion_close,
    .context = motion_context,
};

const VmafFeatureExtractor vmaf_fex_motion_v2 = {
    .name = "motion_v2",
    .priv_size = sizeof(MotionState),
    .options = motion_options,
    .provided_features = provided_v2,
    .flags = VMAF_FEATURE_EXTRACTOR_PREV_REF | VMAF_FEATURE_EXTRACTOR_FLUSH_AT_MERGE |
             VMAF_FEATURE_EXTRACTOR_LUMA_ONLY | VMAF_FEATURE_EXTRACTOR_REF_ONLY,
    .init = motion_init,
    .extract = extract_v2,
    .flush = flush_v2,
    .close = motion_close,
    .context = motion_context,
};
