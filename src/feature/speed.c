/*
 * Twin VMAF — the SpEED extractors "speed_chroma" and "speed_temporal" (see speed.h for the
 * metric).
 *
 * speed_chroma scores U and V of every frame independently (per-frame, so worker threads
 * each run their own instance) and writes speed_chroma_u, _v and _uv, each clipped to
 * speed_max_val. When exactly one channel's covariance matrix is singular, uv takes the
 * other channel's score; otherwise it is their mean.
 *
 * speed_temporal (TEMPORAL) scores the luma difference between consecutive frames. It
 * keeps a copy of the previous reference and distorted luma; the first frame (and index 0)
 * scores 0. Its speed_max_val is accepted but, as in the reference, not applied.
 *
 * Decisions where the reference is undefined or crashes:
 *   - 4:0:0 input: speed_chroma refuses it (the reference returns -EINVAL silently).
 *   - A plane too small to give one 5x5 block after decimation by 16 (and the prescale) is
 *     refused at init with "image too small" (the reference logs that, then crashes).
 *   - speed_temporal with speed_prescale > 1: the frame difference is resampled and scored
 *     like any image; the reference's frame buffers are sized for the unscaled frame and it
 *     overruns them.
 *   - bit depths 9, 11, 13..15: samples are normalised by 2^(bpc-8) like 10, 12 and 16 bit.
 *   - a first frame with a nonzero index scores 0 (the reference reads uninitialised memory).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "feature_extractor.h"
#include "speed.h"

/* ---- options ------------------------------------------------------------------------------ */

#define SPEED_OPTION_KERNELSCALE(STATE)                                                      \
    { .name = "speed_kernelscale", .alias = "ks",                                          \
      .help = "scale of the Gaussian kernels (2.0 doubles sigma and the kernel size)",     \
      .offset = offsetof(STATE, opt.kernelscale), .type = VMAF_OPT_TYPE_DOUBLE,            \
      .default_val.d = VMAF_SPEED_DEFAULT_KERNELSCALE, .min = 0.1, .max = 4.0,             \
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM }
#define SPEED_OPTION_PRESCALE(STATE)                                                         \
    { .name = "speed_prescale", .alias = "ps",                                             \
      .help = "resize factor applied to the image first (2.0: twice as large each way)",   \
      .offset = offsetof(STATE, opt.prescale), .type = VMAF_OPT_TYPE_DOUBLE,               \
      .default_val.d = VMAF_SPEED_DEFAULT_PRESCALE, .min = 0.1, .max = 4.0,                \
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM }
#define SPEED_OPTION_PRESCALE_METHOD(STATE)                                                  \
    { .name = "speed_prescale_method", .alias = "psm",                                     \
      .help = "resampler for speed_prescale: nearest, bilinear, bicubic or lanczos4",      \
      .offset = offsetof(STATE, opt.prescale_method), .type = VMAF_OPT_TYPE_STRING,        \
      .default_val.s = VMAF_SPEED_DEFAULT_PRESCALE_METHOD,                                 \
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM }
#define SPEED_OPTION_SIGMA_NN(STATE)                                                         \
    { .name = "speed_sigma_nn", .alias = "snn",                                            \
      .help = "standard deviation of the neural noise",                                    \
      .offset = offsetof(STATE, opt.sigma_nn), .type = VMAF_OPT_TYPE_DOUBLE,               \
      .default_val.d = VMAF_SPEED_DEFAULT_SIGMA_NN, .min = 0.1, .max = 2.0,                \
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM }
#define SPEED_OPTION_NN_FLOOR(STATE)                                                         \
    { .name = "speed_nn_floor", .alias = "nnf",                                            \
      .help = "neural noise floor, as a fraction of speed_sigma_nn",                       \
      .offset = offsetof(STATE, opt.nn_floor), .type = VMAF_OPT_TYPE_DOUBLE,               \
      .default_val.d = VMAF_SPEED_DEFAULT_NN_FLOOR, .min = 0.0, .max = 1.0,                \
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM }
#define SPEED_OPTION_MAX_VAL(STATE)                                                          \
    { .name = "speed_max_val", .alias = "mxv",                                             \
      .help = "largest score written; larger ones are clipped",                            \
      .offset = offsetof(STATE, opt.max_val), .type = VMAF_OPT_TYPE_DOUBLE,                \
      .default_val.d = VMAF_SPEED_DEFAULT_MAX_VAL, .min = 0.0, .max = 1000.0,              \
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM }

/* ---- speed_chroma --------------------------------------------------------------------------- */

static const VmafOption speed_chroma_options[] = {
    SPEED_OPTION_KERNELSCALE(SpeedChromaState),
    SPEED_OPTION_PRESCALE(SpeedChromaState),
    SPEED_OPTION_PRESCALE_METHOD(SpeedChromaState),
    SPEED_OPTION_SIGMA_NN(SpeedChromaState),
    SPEED_OPTION_NN_FLOOR(SpeedChromaState),
    SPEED_OPTION_MAX_VAL(SpeedChromaState),
    { .name = "speed_weight_var_mode", .alias = "wvm",
      .help = "variance weighting of the entropies (0..6)",
      .offset = offsetof(SpeedChromaState, opt.weight_var_mode), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = VMAF_SPEED_DEFAULT_WEIGHT_VAR_MODE, .min = 0, .max = 6,
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { 0 },
};

static int speed_chroma_init(void *priv, const VmafFeatureGeometry *g)
{
    SpeedChromaState *s = priv;
    unsigned w = g->w, h = g->h;
    switch (g->pix_fmt) {
    case VMAF_PIX_FMT_YUV420P: w /= 2; h /= 2; break;
    case VMAF_PIX_FMT_YUV422P: w /= 2; break;
    case VMAF_PIX_FMT_YUV444P: break;
    case VMAF_PIX_FMT_YUV400P:
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "speed_chroma: 4:0:0 input has no chroma planes to score\n");
        return -EINVAL;
    default:
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR, "speed_chroma: unknown pixel format\n");
        return -EINVAL;
    }
    return vmaf_speed_engine_init(&s->engine, &s->opt, w, h, "speed_chroma", g->log_level);
}

static VmafSpeedSource plane_source(const VmafPicture *pic, unsigned plane)
{
    return (VmafSpeedSource){ .a = pic->data[plane], .a_stride = pic->stride[plane],
                              .bpc = pic->bpc };
}

static int speed_chroma_extract(void *priv, const VmafFeatureFrame *f, VmafFeatureSink *sink)
{
    SpeedChromaState *s = priv;
    float score[2];
    int singular[2];
    for (unsigned c = 0; c < 2; c++) {
        const VmafSpeedSource ref = plane_source(f->ref, c + 1);
        const VmafSpeedSource dis = plane_source(f->dist, c + 1);
        singular[c] = vmaf_speed_score(&s->engine, &ref, &dis, &score[c]);
    }
    return vmaf_speed_chroma_store(s, score, singular, f->index, sink);
}

int vmaf_speed_chroma_store(const SpeedChromaState *s, const float channel[2],
                            const int singular[2], unsigned index, VmafFeatureSink *sink)
{
    static const char *const names[3] = {
        "Speed_chroma_feature_speed_chroma_u_score",
        "Speed_chroma_feature_speed_chroma_v_score",
        "Speed_chroma_feature_speed_chroma_uv_score",
    };
    float score[3] = { channel[0], channel[1], 0.0f };
    if (singular[0] && !singular[1]) score[2] = score[1];
    else if (singular[1] && !singular[0]) score[2] = score[0];
    else score[2] = (float)((score[0] + score[1]) / 2.0);

    for (unsigned i = 0; i < 3; i++) {
        const double v = score[i] < s->opt.max_val ? score[i] : s->opt.max_val;
        const int err = vmaf_feature_sink_append(sink, names[i], v, index);
        if (err) return err;
    }
    return 0;
}

static void speed_chroma_close(void *priv)
{
    SpeedChromaState *s = priv;
    vmaf_speed_engine_close(&s->engine);
}

static const char *const speed_chroma_features[] = {
    "Speed_chroma_feature_speed_chroma_u_score",
    "Speed_chroma_feature_speed_chroma_v_score",
    "Speed_chroma_feature_speed_chroma_uv_score",
    NULL,
};

const VmafFeatureExtractor vmaf_fex_speed_chroma = {
    .name = "speed_chroma",
    .priv_size = sizeof(SpeedChromaState),
    .options = speed_chroma_options,
    .provided_features = speed_chroma_features,
    .init = speed_chroma_init,
    .extract = speed_chroma_extract,
    .close = speed_chroma_close,
};

/* ---- speed_temporal ----------------------------------------------------------------------- */

static const VmafOption speed_temporal_options[] = {
    SPEED_OPTION_KERNELSCALE(SpeedTemporalState),
    SPEED_OPTION_PRESCALE(SpeedTemporalState),
    SPEED_OPTION_PRESCALE_METHOD(SpeedTemporalState),
    SPEED_OPTION_SIGMA_NN(SpeedTemporalState),
    SPEED_OPTION_NN_FLOOR(SpeedTemporalState),
    SPEED_OPTION_MAX_VAL(SpeedTemporalState),
    { .name = "speed_use_ref_diff", .alias = "urd",
      .help = "score the distorted frame against the current reference frame",
      .offset = offsetof(SpeedTemporalState, opt.use_ref_diff), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { 0 },
};

static int speed_temporal_init(void *priv, const VmafFeatureGeometry *g)
{
    SpeedTemporalState *s = priv;
    s->opt.weight_var_mode = 0; /* not an option of speed_temporal */
    int err = vmaf_speed_engine_init(&s->engine, &s->opt, g->w, g->h, "speed_temporal",
                                     g->log_level);
    if (err) return err;
    s->w = g->w;
    s->h = g->h;
    s->bpc = g->bpc;
    s->row_bytes = (size_t)g->w * (g->bpc > 8 ? 2 : 1);
    s->prev_ref = malloc(s->row_bytes * g->h);
    s->prev_dis = malloc(s->row_bytes * g->h);
    return (s->prev_ref && s->prev_dis) ? 0 : -ENOMEM;
}

/* Copy the luma rows the next frame's difference will read (all when resampling). */
static void keep_luma(uint8_t *dst, size_t row_bytes, const VmafPicture *pic, unsigned h,
                      const VmafSpeedEngine *e)
{
    const uint8_t *src = pic->data[0];
    for (unsigned y = 0; y < h; y++)
        if (!e->direct || e->rows_needed[y])
            memcpy(dst + y * row_bytes, src + y * pic->stride[0], row_bytes);
}

static int speed_temporal_extract(void *priv, const VmafFeatureFrame *f,
                                  VmafFeatureSink *sink)
{
    SpeedTemporalState *s = priv;
    double value = 0.0;

    if (f->index != 0 && s->have_prev) {
        const VmafPicture *dis_now = s->opt.use_ref_diff ? f->ref : f->dist;
        const VmafSpeedSource ref = {
            .a = s->prev_ref, .a_stride = (ptrdiff_t)s->row_bytes,
            .b = f->ref->data[0], .b_stride = f->ref->stride[0], .bpc = s->bpc,
        };
        const VmafSpeedSource dis = {
            .a = s->prev_dis, .a_stride = (ptrdiff_t)s->row_bytes,
            .b = dis_now->data[0], .b_stride = dis_now->stride[0], .bpc = s->bpc,
        };
        float score;
        vmaf_speed_score(&s->engine, &ref, &dis, &score);
        value = score;
    }
    keep_luma(s->prev_ref, s->row_bytes, f->ref, s->h, &s->engine);
    keep_luma(s->prev_dis, s->row_bytes, f->dist, s->h, &s->engine);
    s->have_prev = true;
    return vmaf_speed_temporal_store(value, f->index, sink);
}

int vmaf_speed_temporal_store(double value, unsigned index, VmafFeatureSink *sink)
{
    return vmaf_feature_sink_append(sink, "Speed_temporal_feature_speed_temporal_score", value,
                                    index);
}

static void speed_temporal_close(void *priv)
{
    SpeedTemporalState *s = priv;
    vmaf_speed_engine_close(&s->engine);
    free(s->prev_ref);
    free(s->prev_dis);
    s->prev_ref = s->prev_dis = NULL;
}

/* A frame is compared with the previous one (the first frame a context sees scores 0). */
static void speed_temporal_context(const void *priv, unsigned *before, unsigned *after)
{
    (void)priv;
    *before = 1;
    *after = 0;
}

static const char *const speed_temporal_features[] = {
    "Speed_temporal_feature_speed_temporal_score",
    NULL,
};

const VmafFeatureExtractor vmaf_fex_speed_temporal = {
    .name = "speed_temporal",
    .priv_size = sizeof(SpeedTemporalState),
    .options = speed_temporal_options,
    .provided_features = speed_temporal_features,
    .flags = VMAF_FEATURE_EXTRACTOR_TEMPORAL | VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = speed_temporal_init,
    .extract = speed_temporal_extract,
    .close = speed_temporal_close,
    .context = speed_temporal_context,
};
