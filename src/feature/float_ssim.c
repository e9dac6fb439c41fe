/*
 * Twin VMAF — extractor "float_ssim": SSIM of the luma planes (ssim.h), optionally after
 * decimation by the scale option (0 = auto), with the mean l, c, s (enable_lcs) and the
 * score in dB (enable_db, clip_db).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "feature_extractor.h"
#include "picture.h"
#include "ssim.h"

static const VmafOption float_ssim_options[] = {
    { .name = "enable_lcs", .help = "also write the mean luminance, contrast and structure",
      .offset = offsetof(FloatSsimState, enable_lcs), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false },
    { .name = "enable_db", .help = "write SSIM as dB, -10 log10(1 - ssim)",
      .offset = offsetof(FloatSsimState, enable_db), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false },
    { .name = "clip_db", .help = "cap the dB score by the picture size and bit depth",
      .offset = offsetof(FloatSsimState, clip_db), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false },
    { .name = "scale", .help = "decimation factor: 0 = auto (min(w, h) / 256), 1 = none, 2..10",
      .offset = offsetof(FloatSsimState, scale_option), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = 0, .min = 0, .max = VMAF_SSIM_MAX_FACTOR },
    { 0 },
};

static void float_ssim_close(void *priv)
{
    FloatSsimState *s = priv;
    vmaf_ssim_plane_free(&s->ref);
    vmaf_ssim_plane_free(&s->cmp);
    vmaf_ssim_plane_free(&s->ref_dec);
    vmaf_ssim_plane_free(&s->cmp_dec);
    vmaf_ssim_workspace_close(&s->ws);
}

static int float_ssim_init(void *priv, const VmafFeatureGeometry *g)
{
    FloatSsimState *s = priv;
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h || g->w > (1u << 20) || g->h > (1u << 20)) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_ssim: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    s->w = (int)g->w;
    s->h = (int)g->h;
    s->max_db = vmaf_ssim_max_db(s->clip_db, g->bpc, g->w, g->h);
    s->scale = vmaf_ssim_scale(s->scale_option, s->w, s->h);
    int err = vmaf_ssim_plane_alloc(&s->ref, s->w, s->h);
    if (!err) err = vmaf_ssim_plane_alloc(&s->cmp, s->w, s->h);
    if (!err) err = vmaf_ssim_workspace_init(&s->ws, s->w);
    if (err || s->scale == 1) return err;

    const int dw = vmaf_ssim_decimated(s->w, s->scale);
    const int dh = vmaf_ssim_decimated(s->h, s->scale);
    s->dec_w = dw;
    s->dec_h = dh;
    if (!dw || !dh) return 0; /* scored as an empty plane, as the reference does */
    err = vmaf_ssim_plane_alloc(&s->ref_dec, dw, dh);
    if (!err) err = vmaf_ssim_plane_alloc(&s->cmp_dec, dw, dh);
    if (err) return err;
    const float tap = 1.0f / (s->scale * s->scale);
    for (int i = 0; i < s->scale * s->scale; i++)
        s->kernel_taps[i] = tap;
    return 0;
}

static void load_luma(const VmafPicture *pic, VmafSsimPlane *p)
{
    vmaf_float_plane_from_picture(pic, 0, 0.0f, p->data, p->stride);
    vmaf_ssim_plane_fill_margins(p);
}

int vmaf_float_ssim_store(const FloatSsimState *s, const VmafSsimMeans *m, unsigned index,
                          VmafFeatureSink *sink)
{
    double score = m->ssim;
    if (s->enable_db) score = vmaf_ssim_to_db(score, s->max_db);
    int err = vmaf_feature_sink_append(sink, "float_ssim", score, index);
    if (err || !s->enable_lcs) return err;
    err = vmaf_feature_sink_append(sink, "float_ssim_l", m->l, index);
    if (!err) err = vmaf_feature_sink_append(sink, "float_ssim_c", m->c, index);
    if (!err) err = vmaf_feature_sink_append(sink, "float_ssim_s", m->s, index);
    return err;
}

/*
 * A reference scored by several contexts (a ladder's rungs, picture.h): the plane SSIM
 * scores (converted, and decimated when scale > 1) and its window outputs mu1 and xx
 * (vmaf_ssim_ref_windows) are computed once, as a side product of the picture, by the first
 * instance that needs them (with its own planes and workspace), and each instance computes
 * the rest from them: the same sums, bit for bit. The key holds the build and the scale
 * (the geometry and bit depth are the picture's). About 12 bytes per pixel of the scored
 * plane (scale 1); at 1080p the auto scale is 4 and the product about 1.6 MB.
 */
typedef struct SsimSide {
    int w, h, scale, impl;
    ptrdiff_t stride, side_stride; /* of the plane (margins included), of mu and xx */
    size_t plane_at, mu_at, xx_at;
} SsimSide;

static size_t align64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

/* The layout of the side of a w x h scored plane (side NULL: the size only). */
static size_t ssim_side_layout(SsimSide *side, int w, int h)
{
    const ptrdiff_t stride = ((ptrdiff_t)w + 2 * VMAF_SSIM_MARGIN + 7) / 8 * 8;
    const int nw = w - (VMAF_SSIM_WINDOW - 1), nh = h - (VMAF_SSIM_WINDOW - 1);
    const ptrdiff_t side_stride = nw > 0 ? ((ptrdiff_t)nw + 7) / 8 * 8 : 0;
    const size_t win = nw > 0 && nh > 0 ? (size_t)side_stride * (size_t)nh * sizeof(float) : 0;
    size_t at = align64(sizeof(SsimSide));
    const size_t plane_at = at;
    at += align64((size_t)stride * (size_t)h * sizeof(float));
    const size_t mu_at = at;
    at += align64(win);
    const size_t xx_at = at;
    at += align64(win);
    if (side) {
        side->w = w;
        side->h = h;
        side->stride = stride;
        side->side_stride = side_stride;
        side->plane_at = plane_at;
        side->mu_at = mu_at;
        side->xx_at = xx_at;
    }
    return at;
}

static VmafSsimPlane side_plane(const SsimSide *side)
{
    VmafSsimPlane p = { 0 };
    p.buf = (float *)(void *)((char *)side + side->plane_at);
    p.data = p.buf + VMAF_SSIM_MARGIN;
    p.w = side->w;
    p.h = side->h;
    p.stride = side->stride;
    return p;
}

typedef struct SsimSideArgs {
    FloatSsimState *s;
    const VmafPicture *ref;
    enum VmafFloatImpl impl;
} SsimSideArgs;

static int ssim_side_compute(void *data, size_t size, void *arg)
{
    const SsimSideArgs *a = arg;
    FloatSsimState *s = a->s;
    const int w = s->scale > 1 ? s->dec_w : s->w, h = s->scale > 1 ? s->dec_h : s->h;
    SsimSide *side = data;
    if (size < ssim_side_layout(NULL, w, h)) return -EINVAL;
    memset(side, 0, sizeof(*side));
    ssim_side_layout(side, w, h);
    side->scale = s->scale;
    side->impl = (int)a->impl;
    VmafSsimPlane p = side_plane(side);
    int err = 0;
    if (s->scale > 1) {
        load_luma(a->ref, &s->ref);
        err = vmaf_ssim_decimate(a->impl, &s->ws, &s->ref, s->scale, s->kernel_taps, s->scale,
                                 &p);
    } else {
        load_luma(a->ref, &p);
    }
    if (err) return err;
    return vmaf_ssim_ref_windows(a->impl, &s->ws, p.data, p.stride, w, h,
                                 (float *)(void *)((char *)side + side->mu_at),
                                 (float *)(void *)((char *)side + side->xx_at),
                                 side->side_stride);
}

/* The means from the reference's side: 0, or an error (nothing written: compute fused). */
static int ssim_from_side(FloatSsimState *s, const VmafPicture *ref, const VmafPicture *dis,
                          bool nowait, VmafSsimMeans *m)
{
    if (!vmaf_picture_side_shared(ref) || (s->scale > 1 && (!s->dec_w || !s->dec_h)))
        return -ENOENT;
    enum VmafFloatImpl impl = VMAF_FLOAT_IMPL_BEST;
    int err = vmaf_float_impl_resolve(&impl);
    if (err) return err;
    const int w = s->scale > 1 ? s->dec_w : s->w, h = s->scale > 1 ? s->dec_h : s->h;
    char key[40];
    snprintf(key, sizeof(key), "float_ssim/%d/%d", (int)impl, s->scale);
    SsimSideArgs args = { s, ref, impl };
    const void *data;
    err = vmaf_picture_side_acquire(ref, key, ssim_side_layout(NULL, w, h), ssim_side_compute,
                                    &args, nowait, &data);
    if (err) return err;
    const SsimSide *side = data;
    const VmafSsimPlane a = side_plane(side);
    load_luma(dis, &s->cmp);
    const VmafSsimPlane *b = &s->cmp;
    if (side->w != w || side->h != h || side->scale != s->scale || side->impl != (int)impl)
        err = -EINVAL;
    if (!err && s->scale > 1) {
        err = vmaf_ssim_decimate(impl, &s->ws, &s->cmp, s->scale, s->kernel_taps, s->scale,
                                 &s->cmp_dec);
        b = &s->cmp_dec;
    }
    double sums[4]; /* l c s, l, c, s */
    if (!err)
        err = vmaf_ssim_sums_from_windows(
            impl, &s->ws, a.data, a.stride, b->data, b->stride, w, h,
            (const float *)(const void *)((const char *)side + side->mu_at),
            (const float *)(const void *)((const char *)side + side->xx_at), side->side_stride,
            sums);
    vmaf_picture_side_put(ref, data);
    if (!err)
        vmaf_ssim_means_from_sums(sums, w - (VMAF_SSIM_WINDOW - 1), h - (VMAF_SSIM_WINDOW - 1),
                                  m);
    return err;
}

static int float_ssim_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    FloatSsimState *s = priv;
    const VmafPicture *ref = frame->ref, *dis = frame->dist;
    if (!ref || !dis || (int)ref->w[0] != s->w || (int)ref->h[0] != s->h ||
        (int)dis->w[0] != s->w || (int)dis->h[0] != s->h)
        return -EINVAL;

    VmafSsimMeans m;
    const int side_err = ssim_from_side(s, ref, dis, frame->side_nowait, &m);
    if (!side_err) return vmaf_float_ssim_store(s, &m, frame->index, sink);
    if (side_err == -EAGAIN) return side_err;
    load_luma(ref, &s->ref);
    load_luma(dis, &s->cmp);
    const VmafSsimPlane *a = &s->ref, *b = &s->cmp;
    int err = 0;
    if (s->scale > 1 && (!s->dec_w || !s->dec_h)) {
        err = vmaf_ssim_means(VMAF_FLOAT_IMPL_BEST, &s->ws, NULL, NULL, 0, s->dec_w, s->dec_h, &m);
        if (err) return err;
        return vmaf_float_ssim_store(s, &m, frame->index, sink);
    }
    if (s->scale > 1) {
        err = vmaf_ssim_decimate(VMAF_FLOAT_IMPL_BEST, &s->ws, &s->ref, s->scale,
                                 s->kernel_taps, s->scale, &s->ref_dec);
        if (!err)
            err = vmaf_ssim_decimate(VMAF_FLOAT_IMPL_BEST, &s->ws, &s->cmp, s->scale,
                                     s->kernel_taps, s->scale, &s->cmp_dec);
        if (err) return err;
        a = &s->ref_dec;
        b = &s->cmp_dec;
    }
    err = vmaf_ssim_means(VMAF_FLOAT_IMPL_BEST, &s->ws, a->data, b->data, a->stride, a->w, a->h,
                          &m);
    if (err) return err;
    return vmaf_float_ssim_store(s, &m, frame->index, sink);
}

static const char *const float_ssim_features[] = { "float_ssim", NULL };

const VmafFeatureExtractor vmaf_fex_float_ssim = {
    .name = "float_ssim",
    .priv_size = sizeof(FloatSsimState),
    .options = float_ssim_options,
    .provided_features = float_ssim_features,
    .flags = VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = float_ssim_init,
    .extract = float_ssim_extract,
    .close = float_ssim_close,
};
