/*
 * Twin VMAF — float motion: extractor "float_motion" (float_motion.h describes the scores).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature_extractor.h"
#include "float_filter.h"
#include "float_motion.h"
#include "motion.h"
#include "motion_options.h"
#include "picture.h"
#include "speed.h"

enum { SLOTS = VMAF_FLOAT_MOTION_SLOTS };

#define OPT_AT(field) (offsetof(FloatMotionState, opt) + offsetof(VmafFloatMotionOptions, field))

static const VmafOption float_motion_options[] = {
    VMAF_MOTION_OPTION_DEBUG(OPT_AT(debug), true),
    VMAF_MOTION_OPTION_FORCE_ZERO(OPT_AT(force_zero)),
    VMAF_MOTION_OPTION_FPS_WEIGHT(OPT_AT(fps_weight)),
    VMAF_MOTION_OPTION_BLEND_FACTOR(OPT_AT(blend_factor)),
    VMAF_MOTION_OPTION_BLEND_OFFSET(OPT_AT(blend_offset)),
    {
        .name = "motion_add_scale1",
        .alias = "mdc",
        .help = "add the mean difference of the half-size planes",
        .offset = OPT_AT(add_scale1),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_filter_size",
        .alias = "mfs",
        .help = "blur kernel: 5 taps, 3 taps, or 1 (no blur)",
        .offset = OPT_AT(filter_size),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = VMAF_FLOAT_MOTION_DEFAULT_FILTER_SIZE,
        .min = 0,
        .max = 9,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "motion_add_uv",
        .alias = "mau",
        .help = "add the chroma planes' scores",
        .offset = OPT_AT(add_uv),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    VMAF_MOTION_OPTION_MAX_VAL(OPT_AT(max_val)),
    { 0 },
};

const float *vmaf_float_motion_kernel(int filter_size, int *width)
{
    if (filter_size == 1) {
        *width = 5;
        return vmaf_float_motion_filter_pass;
    }
    if (filter_size == 3) {
        *width = 3;
        return vmaf_float_motion_filter3;
    }
    *width = 5;
    return vmaf_float_motion_filter5;
}

float vmaf_float_motion_mean_abs_diff(const float *a, const float *b, ptrdiff_t stride,
                                      unsigned w, unsigned h)
{
    float total = 0.0f;
    for (unsigned i = 0; i < h; i++)
        total += vmaf_float_motion_row_sum(a + i * stride, b + i * stride, w);
    return total / (float)(w * h);
}

static void float_motion_close(void *priv)
{
    FloatMotionState *s = priv;
    free(s->plane);
    free(s->row);
    free(s->scaled_a);
    free(s->scaled_b);
    for (unsigned p = 0; p < 3; p++) {
        for (unsigned k = 0; k < SLOTS; k++) {
            free(s->blur[p][k]);
            s->blur[p][k] = NULL;
        }
        vmaf_speed_scaler_close(&s->scaler[p]);
    }
    s->plane = s->row = s->scaled_a = s->scaled_b = NULL;
}

static unsigned half_size(unsigned n)
{
    return (unsigned)(int)(n * 0.5 + 0.5);
}

static int float_motion_init(void *priv, const VmafFeatureGeometry *g)
{
    FloatMotionState *s = priv;
    const VmafFloatMotionOptions *o = &s->opt;
    s->log_level = g->log_level;
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_motion: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    if (o->add_uv && g->pix_fmt == VMAF_PIX_FMT_YUV400P) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_motion: motion_add_uv needs chroma planes\n");
        return -EINVAL;
    }
    if (o->add_scale1 && half_size(g->w) > VMAF_FLOAT_MOTION_MAX_SCALED_WIDTH) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_motion: motion_add_scale1 supports half-size widths up to %d\n",
                 VMAF_FLOAT_MOTION_MAX_SCALED_WIDTH);
        return -EINVAL;
    }
    s->kernel = vmaf_float_motion_kernel(o->filter_size, &s->kernel_width);

    s->n_planes = o->add_uv ? 3 : 1;
    const unsigned ss_x = g->pix_fmt == VMAF_PIX_FMT_YUV444P ? 0 : 1;
    const unsigned ss_y = g->pix_fmt == VMAF_PIX_FMT_YUV420P ? 1 : 0;
    for (unsigned p = 0; p < 3; p++) {
        s->w[p] = p ? g->w >> ss_x : g->w;
        s->h[p] = p ? g->h >> ss_y : g->h;
    }
    s->stride = vmaf_float_stride(g->w);
    const size_t luma_bytes = s->stride * g->h * sizeof(float);
    s->plane = malloc(luma_bytes);
    s->row = malloc((g->w + s->kernel_width) * sizeof(float));
    if (!s->plane || !s->row) return -ENOMEM;
    for (unsigned p = 0; p < s->n_planes; p++) {
        if (!s->w[p] || !s->h[p]) {
            vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                     "float_motion: chroma planes of %ux%u are empty\n", g->w, g->h);
            return -EINVAL;
        }
        for (unsigned k = 0; k < SLOTS; k++) {
            s->blur[p][k] = calloc(s->stride * s->h[p], sizeof(float));
            if (!s->blur[p][k]) return -ENOMEM;
        }
    }
    if (o->add_scale1) {
        s->scaled_stride = vmaf_float_stride(half_size(g->w));
        const size_t bytes = s->scaled_stride * half_size(g->h) * sizeof(float);
        s->scaled_a = malloc(bytes);
        s->scaled_b = malloc(bytes);
        if (!s->scaled_a || !s->scaled_b) return -ENOMEM;
        for (unsigned p = 0; p < s->n_planes; p++) {
            int err = vmaf_speed_scaler_init(&s->scaler[p], VMAF_SPEED_SCALE_BILINEAR, s->w[p],
                                             s->h[p], half_size(s->w[p]), half_size(s->h[p]));
            if (err) return err;
        }
    }
    return 0;
}

/* Half-size copy of a blurred plane, read with the row stride of a plane of its own width
 * (the reference's layout assumption; see float_motion.h). */
static void scale_half(const FloatMotionState *s, unsigned p, const float *src, float *dst)
{
    const VmafSpeedScaler *sc = &s->scaler[p];
    const ptrdiff_t src_stride = (ptrdiff_t)vmaf_float_stride(s->w[p]);
    for (unsigned y = 0; y < sc->dst_h; y++)
        vmaf_speed_scale_row(sc, src, src_stride, y, dst + y * s->scaled_stride);
}

/* The score of one plane between two blurred frames. */
static float plane_score(FloatMotionState *s, unsigned p, const float *a, const float *b)
{
    const float scale0 = vmaf_float_motion_mean_abs_diff(a, b, s->stride, s->w[p], s->h[p]);
    if (!s->opt.add_scale1) return scale0;
    const VmafSpeedScaler *sc = &s->scaler[p];
    scale_half(s, p, a, s->scaled_a);
    scale_half(s, p, b, s->scaled_b);
    const float scale1 = vmaf_float_motion_mean_abs_diff(s->scaled_a, s->scaled_b,
                                                         s->scaled_stride, sc->dst_w, sc->dst_h);
    return scale0 + scale1;
}

/* The score between the frames in two slots: luma, plus chroma with motion_add_uv. */
static double frame_score(FloatMotionState *s, unsigned slot_a, unsigned slot_b)
{
    double score = plane_score(s, 0, s->blur[0][slot_a], s->blur[0][slot_b]);
    for (unsigned p = 1; p < s->n_planes; p++)
        score += plane_score(s, p, s->blur[p][slot_a], s->blur[p][slot_b]);
    return score;
}

static double clip_max(double v, double max_val)
{
    return v < max_val ? v : max_val;
}

int vmaf_float_motion_store(FloatMotionState *s, double score, unsigned index,
                            VmafFeatureSink *sink)
{
    const VmafFloatMotionOptions *o = &s->opt;
    int err;
    if (o->force_zero) {
        err = vmaf_feature_sink_append(sink, "VMAF_feature_motion2_score", 0., index);
        if (!err) err = vmaf_feature_sink_append(sink, "VMAF_feature_motion3_score", 0., index);
        if (!err && o->debug)
            err = vmaf_feature_sink_append(sink, "VMAF_feature_motion_score", 0., index);
        return err;
    }
    s->index = index;
    s->seen = true;
    if (index == 0) {
        err = vmaf_feature_sink_append(sink, "VMAF_feature_motion2_score", 0., index);
        if (!err && o->debug)
            err = vmaf_feature_sink_append(sink, "VMAF_feature_motion_score", 0., index);
        return err;
    }

    if (o->debug) {
        err = vmaf_feature_sink_append(sink, "VMAF_feature_motion_score",
                                       clip_max(score * o->fps_weight, o->max_val), index);
        if (err) return err;
    }
    /* the reference recomputes sad(B_{i-1}, B_{i-2}); it is the previous frame's score */
    const double previous = s->score;
    s->score = score;

    if (index == 1) {
        const double blended =
            vmaf_motion_blend(score * o->fps_weight, o->blend_factor, o->blend_offset);
        return vmaf_feature_sink_append(sink, "VMAF_feature_motion3_score",
                                        clip_max(blended, o->max_val), 0);
    }

    const double score2 = previous < score ? previous : score;
    err = vmaf_feature_sink_append(sink, "VMAF_feature_motion2_score",
                                   clip_max(score2 * o->fps_weight, o->max_val), index - 1);
    if (err) return err;
    const double blended =
        vmaf_motion_blend(score2 * o->fps_weight, o->blend_factor, o->blend_offset);
    return vmaf_feature_sink_append(sink, "VMAF_feature_motion3_score",
                                    clip_max(blended, o->max_val), index - 1);
}

/*
 * A reference scored by several contexts (a ladder's rungs, picture.h): the blurred planes
 * of a frame depend on the reference picture, the kernel and the planes alone, so they are
 * computed once, as a side product of the picture, by the first instance that needs them
 * (with its own conversion buffer and filter scratch), and every instance copies them into
 * its own slot (its frames before, which it scores against, stay its own) and scores as a
 * single run does. The key holds what changes the blur: the kernel (motion_filter_size: 1,
 * 3, or 5 for every other value), the planes (motion_add_uv) and the filter's build; the
 * geometry is the picture's. The product's planes have rows of their own width's stride;
 * the copy writes the w columns of each row that the filter writes, so the slot is the
 * same bit for bit (its other columns, which the add_uv + add_scale1 quirk reads, keep the
 * zeros they were allocated with). A picture of one context never gets here: the copy
 * would cost without saving. The product is 4 bytes per sample of the planes blurred
 * (8.3 MB for 1080p luma).
 */
typedef struct MotionSide {
    unsigned n_planes, w[3], h[3];
    const float *kernel;
    int impl;
    size_t stride[3]; /* floats per row */
    size_t at[3];     /* byte offset of each plane */
} MotionSide;

typedef struct MotionSideArgs {
    FloatMotionState *s;
    const VmafPicture *ref;
    enum VmafFloatImpl impl;
} MotionSideArgs;

static size_t align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

/* The product's size for s's planes; with side, its header written too. */
static size_t motion_side_layout(MotionSide *side, const FloatMotionState *s)
{
    size_t at = align64(sizeof(MotionSide));
    if (side) {
        memset(side, 0, sizeof(*side));
        side->n_planes = s->n_planes;
        side->kernel = s->kernel;
    }
    for (unsigned p = 0; p < s->n_planes; p++) {
        const size_t stride = vmaf_float_stride(s->w[p]);
        if (side) {
            side->w[p] = s->w[p];
            side->h[p] = s->h[p];
            side->stride[p] = stride;
            side->at[p] = at;
        }
        at += align64(stride * s->h[p] * sizeof(float));
    }
    return at;
}

static int motion_side_compute(void *data, size_t size, void *arg)
{
    const MotionSideArgs *a = arg;
    FloatMotionState *s = a->s;
    if (size < motion_side_layout(NULL, s)) return -EINVAL;
    MotionSide *side = data;
    motion_side_layout(side, s);
    side->impl = (int)a->impl;
    for (unsigned p = 0; p < s->n_planes; p++) {
        vmaf_float_plane_from_picture(a->ref, p, VMAF_FLOAT_SAMPLE_OFFSET, s->plane, s->stride);
        const int err = vmaf_float_filter_plane(a->impl, s->kernel, s->kernel_width, s->plane,
                                                s->stride, s->w[p], s->h[p], 1,
                                                (float *)(void *)((char *)data + side->at[p]),
                                                side->stride[p], s->row);
        if (err) return err;
    }
    return 0;
}

/* The blurred planes of frame's reference into slot from its side product: 0, -EAGAIN
 * (another reader makes it now and side_nowait: nothing done), or another error (nothing
 * written: blur here). */
static int blur_from_side(FloatMotionState *s, const VmafFeatureFrame *frame, unsigned slot)
{
    if (!vmaf_picture_side_shared(frame->ref)) return -ENOENT;
    enum VmafFloatImpl impl = VMAF_FLOAT_IMPL_BEST;
    int err = vmaf_float_impl_resolve(&impl);
    if (err) return err;
    const int fs = s->opt.filter_size;
    char key[48];
    snprintf(key, sizeof(key), "float_motion/%d/%u/%d", fs == 1 || fs == 3 ? fs : 5,
             s->n_planes, (int)impl);
    MotionSideArgs args = { s, frame->ref, impl };
    const void *data;
    err = vmaf_picture_side_acquire(frame->ref, key, motion_side_layout(NULL, s),
                                    motion_side_compute, &args, frame->side_nowait, &data);
    if (err) return err;
    const MotionSide *side = data;
    bool same = side->n_planes == s->n_planes && side->kernel == s->kernel &&
                side->impl == (int)impl;
    for (unsigned p = 0; same && p < s->n_planes; p++)
        same = side->w[p] == s->w[p] && side->h[p] == s->h[p];
    for (unsigned p = 0; same && p < s->n_planes; p++) {
        const float *src = (const float *)(const void *)((const char *)data + side->at[p]);
        for (unsigned i = 0; i < s->h[p]; i++)
            memcpy(s->blur[p][slot] + i * s->stride, src + i * side->stride[p],
                   s->w[p] * sizeof(float));
    }
    vmaf_picture_side_put(frame->ref, data);
    return same ? 0 : -EINVAL;
}

static int float_motion_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    FloatMotionState *s = priv;
    const unsigned index = frame->index;
    if (s->opt.force_zero) return vmaf_float_motion_store(s, 0., index, sink);

    const VmafPicture *ref = frame->ref;
    if (!ref || ref->w[0] != s->w[0] || ref->h[0] != s->h[0]) return -EINVAL;
    const unsigned cur = index % SLOTS, back1 = (index + 2) % SLOTS;
    const int side_err = blur_from_side(s, frame, cur);
    if (side_err == -EAGAIN) return side_err; /* asked again later (side_nowait) */
    for (unsigned p = 0; side_err && p < s->n_planes; p++) {
        vmaf_float_plane_from_picture(ref, p, VMAF_FLOAT_SAMPLE_OFFSET, s->plane, s->stride);
        int err = vmaf_float_filter_plane(VMAF_FLOAT_IMPL_BEST, s->kernel, s->kernel_width,
                                          s->plane, s->stride, s->w[p], s->h[p], 1,
                                          s->blur[p][cur], s->stride, s->row);
        if (err) return err;
    }
    const double score = index ? frame_score(s, back1, cur) : 0.;
    return vmaf_float_motion_store(s, score, index, sink);
}

static int float_motion_flush(void *priv, VmafFeatureSink *sink)
{
    FloatMotionState *s = priv;
    const VmafFloatMotionOptions *o = &s->opt;
    if (o->force_zero || !s->seen) return 0;
    if (s->index == 0)
        return vmaf_feature_sink_append(sink, "VMAF_feature_motion3_score", 0., 0);
    int err = vmaf_feature_sink_append(sink, "VMAF_feature_motion2_score",
                                       clip_max(s->score * o->fps_weight, o->max_val), s->index);
    if (err) return err;
    const double blended =
        vmaf_motion_blend(s->score * o->fps_weight, o->blend_factor, o->blend_offset);
    return vmaf_feature_sink_append(sink, "VMAF_feature_motion3_score",
                                    clip_max(blended, o->max_val), s->index);
}

/*
 * A frame's score compares its blur with the previous frame's (one before); motion2 of frame
 * i is the smaller of the scores of i and i+1, stored when frame i+1 is scored (one after).
 * The last frame's comes from flush, which a segment ending inside the title replaces by its
 * frame after (the flush's store then falls on that dropped frame).
 */
static void float_motion_context(const void *priv, unsigned *before, unsigned *after)
{
    const FloatMotionState *s = priv;
    *before = *after = s->opt.force_zero ? 0 : 1;
}

static const char *const float_motion_features[] = {
    "VMAF_feature_motion_score",
    "VMAF_feature_motion2_score",
    "VMAF_feature_motion3_score",
    NULL,
};

static bool float_motion_luma_only(const void *priv)
{
    return !((const FloatMotionState *)priv)->opt.add_uv;
}

const VmafFeatureExtractor vmaf_fex_float_motion = {
    .name = "float_motion",
    .priv_size = sizeof(FloatMotionState),
    .options = float_motion_options,
    .provided_features = float_motion_features,
    .flags = VMAF_FEATURE_EXTRACTOR_TEMPORAL | VMAF_FEATURE_EXTRACTOR_REF_ONLY,
    .init = float_motion_init,
    .extract = float_motion_extract,
    .flush = float_motion_flush,
    .close = float_motion_close,
    .context = float_motion_context,
    .luma_only = float_motion_luma_only,
};
