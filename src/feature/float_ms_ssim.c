/*
 * Twin VMAF — extractor "float_ms_ssim": MS-SSIM of the luma planes over five scales
 * (ssim.h), with the per-scale means (enable_lcs) and the score in dB (enable_db, clip_db).
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

static const VmafOption float_ms_ssim_options[] = {
    { .name = "enable_lcs", .help = "also write the luminance, contrast and structure per scale",
      .offset = offsetof(FloatMsSsimState, enable_lcs), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false },
    { .name = "enable_db", .help = "write MS-SSIM as dB, -10 log10(1 - ms_ssim)",
      .offset = offsetof(FloatMsSsimState, enable_db), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false },
    { .name = "clip_db", .help = "cap the dB score by the picture size and bit depth",
      .offset = offsetof(FloatMsSsimState, clip_db), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false },
    { 0 },
};

/** The smallest side float_ms_ssim accepts: every scale (floor halving) at least 11. */
static bool ms_ssim_size_ok(int w, int h)
{
    for (int k = 0; k < VMAF_SSIM_SCALES; k++, w /= 2, h /= 2)
        if (w < VMAF_SSIM_WINDOW || h < VMAF_SSIM_WINDOW) return false;
    return true;
}

static void float_ms_ssim_close(void *priv)
{
    FloatMsSsimState *s = priv;
    for (int k = 0; k < VMAF_SSIM_SCALES; k++) {
        vmaf_ssim_plane_free(&s->ref[k]);
        vmaf_ssim_plane_free(&s->cmp[k]);
    }
    vmaf_ssim_workspace_close(&s->ws);
}

static int float_ms_ssim_init(void *priv, const VmafFeatureGeometry *g)
{
    FloatMsSsimState *s = priv;
    if (g->bpc < 8 || g->bpc > 16 || g->w > (1u << 20) || g->h > (1u << 20)) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_ms_ssim: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    if (!ms_ssim_size_ok((int)g->w, (int)g->h)) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_ms_ssim: %ux%u is too small for its %d scales (needs at least %dx%d)\n",
                 g->w, g->h, VMAF_SSIM_SCALES, VMAF_SSIM_WINDOW << (VMAF_SSIM_SCALES - 1),
                 VMAF_SSIM_WINDOW << (VMAF_SSIM_SCALES - 1));
        return -EINVAL;
    }
    s->w = (int)g->w;
    s->h = (int)g->h;
    s->log_level = g->log_level;
    s->max_db = vmaf_ssim_max_db(s->clip_db, g->bpc, g->w, g->h);
    vmaf_ssim_lpf(s->lpf);
    int w = s->w, h = s->h, err = 0;
    for (int k = 0; !err && k < VMAF_SSIM_SCALES; k++) {
        err = vmaf_ssim_plane_alloc(&s->ref[k], w, h);
        if (!err) err = vmaf_ssim_plane_alloc(&s->cmp[k], w, h);
        w = vmaf_ssim_decimated(w, 2);
        h = vmaf_ssim_decimated(h, 2);
    }
    if (!err) err = vmaf_ssim_workspace_init(&s->ws, s->w);
    return err;
}

/*
 * A reference scored by several contexts (a ladder's rungs, picture.h): its pyramid (the five
 * planes) and their window outputs mu1 and xx (vmaf_ssim_ref_windows) are computed once, as
 * a side product of the picture, by the first instance that needs them (with its own
 * workspace), and each instance computes the distorted pyramid and the rest from them: the
 * same sums, bit for bit. The key holds the build (the geometry and bit depth are the
 * picture's). About 16 bytes per pixel of the picture (33 MB at 1080p).
 */
typedef struct MsSsimSide {
    int w, h, impl;
    ptrdiff_t stride[VMAF_SSIM_SCALES], side_stride[VMAF_SSIM_SCALES];
    int sw[VMAF_SSIM_SCALES], sh[VMAF_SSIM_SCALES];
    size_t plane_at[VMAF_SSIM_SCALES], mu_at[VMAF_SSIM_SCALES], xx_at[VMAF_SSIM_SCALES];
} MsSsimSide;

static size_t align64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

/* The layout of the side of a w x h picture (side NULL: the size only). */
static size_t ms_side_layout(MsSsimSide *side, int w, int h)
{
    MsSsimSide l;
    memset(&l, 0, sizeof(l));
    l.w = w;
    l.h = h;
    size_t at = align64(sizeof(MsSsimSide));
    for (int k = 0; k < VMAF_SSIM_SCALES; k++) {
        const int nw = w - (VMAF_SSIM_WINDOW - 1), nh = h - (VMAF_SSIM_WINDOW - 1);
        l.sw[k] = w;
        l.sh[k] = h;
        l.stride[k] = ((ptrdiff_t)w + 2 * VMAF_SSIM_MARGIN + 7) / 8 * 8;
        l.side_stride[k] = nw > 0 ? ((ptrdiff_t)nw + 7) / 8 * 8 : 0;
        const size_t win =
            nw > 0 && nh > 0 ? (size_t)l.side_stride[k] * (size_t)nh * sizeof(float) : 0;
        l.plane_at[k] = at;
        at += align64((size_t)l.stride[k] * (size_t)h * sizeof(float));
        l.mu_at[k] = at;
        at += align64(win);
        l.xx_at[k] = at;
        at += align64(win);
        w = vmaf_ssim_decimated(w, 2);
        h = vmaf_ssim_decimated(h, 2);
    }
    if (side) *side = l;
    return at;
}

static VmafSsimPlane ms_side_plane(const MsSsimSide *side, int k)
{
    VmafSsimPlane p = { 0 };
    p.buf = (float *)(void *)((char *)side + side->plane_at[k]);
    p.data = p.buf + VMAF_SSIM_MARGIN;
    p.w = side->sw[k];
    p.h = side->sh[k];
    p.stride = side->stride[k];
    return p;
}

typedef struct MsSsimSideArgs {
    FloatMsSsimState *s;
    const VmafPicture *ref;
    enum VmafFloatImpl impl;
} MsSsimSideArgs;

static int ms_side_compute(void *data, size_t size, void *arg)
{
    const MsSsimSideArgs *a = arg;
    FloatMsSsimState *s = a->s;
    MsSsimSide *side = data;
    if (size < ms_side_layout(NULL, s->w, s->h)) return -EINVAL;
    ms_side_layout(side, s->w, s->h);
    side->impl = (int)a->impl;
    VmafSsimPlane p[VMAF_SSIM_SCALES];
    for (int k = 0; k < VMAF_SSIM_SCALES; k++)
        p[k] = ms_side_plane(side, k);
    vmaf_float_plane_from_picture(a->ref, 0, 0.0f, p[0].data, p[0].stride);
    vmaf_ssim_plane_fill_margins(&p[0]);
    int err = 0;
    for (int k = 1; !err && k < VMAF_SSIM_SCALES; k++)
        err = vmaf_ssim_decimate(a->impl, &s->ws, &p[k - 1], 2, s->lpf, VMAF_SSIM_LPF, &p[k]);
    for (int k = 0; !err && k < VMAF_SSIM_SCALES; k++)
        err = vmaf_ssim_ref_windows(a->impl, &s->ws, p[k].data, p[k].stride, p[k].w, p[k].h,
                                    (float *)(void *)((char *)side + side->mu_at[k]),
                                    (float *)(void *)((char *)side + side->xx_at[k]),
                                    side->side_stride[k]);
    return err;
}

/* The means of the five scales from the reference's side: 0, or an error (compute fused). */
static int ms_from_side(FloatMsSsimState *s, const VmafPicture *ref, const VmafPicture *dis,
                        bool nowait, VmafSsimMeans m[VMAF_SSIM_SCALES])
{
    if (!vmaf_picture_side_shared(ref)) return -ENOENT;
    enum VmafFloatImpl impl = VMAF_FLOAT_IMPL_BEST;
    int err = vmaf_float_impl_resolve(&impl);
    if (err) return err;
    char key[40];
    snprintf(key, sizeof(key), "float_ms_ssim/%d", (int)impl);
    MsSsimSideArgs args = { s, ref, impl };
    const void *data;
    err = vmaf_picture_side_acquire(ref, key, ms_side_layout(NULL, s->w, s->h), ms_side_compute,
                                    &args, nowait, &data);
    if (err) return err;
    const MsSsimSide *side = data;
    if (side->w != s->w || side->h != s->h || side->impl != (int)impl) err = -EINVAL;
    if (!err) {
        vmaf_float_plane_from_picture(dis, 0, 0.0f, s->cmp[0].data, s->cmp[0].stride);
        vmaf_ssim_plane_fill_margins(&s->cmp[0]);
    }
    for (int k = 1; !err && k < VMAF_SSIM_SCALES; k++)
        err = vmaf_ssim_decimate(impl, &s->ws, &s->cmp[k - 1], 2, s->lpf, VMAF_SSIM_LPF,
                                 &s->cmp[k]);
    for (int k = 0; !err && k < VMAF_SSIM_SCALES; k++) {
        const VmafSsimPlane a = ms_side_plane(side, k);
        double sums[4]; /* l c s, l, c, s */
        err = vmaf_ssim_sums_from_windows(
            impl, &s->ws, a.data, a.stride, s->cmp[k].data, s->cmp[k].stride, a.w, a.h,
            (const float *)(const void *)((const char *)side + side->mu_at[k]),
            (const float *)(const void *)((const char *)side + side->xx_at[k]),
            side->side_stride[k], sums);
        if (!err)
            vmaf_ssim_means_from_sums(sums, a.w - (VMAF_SSIM_WINDOW - 1),
                                      a.h - (VMAF_SSIM_WINDOW - 1), &m[k]);
    }
    vmaf_picture_side_put(ref, data);
    return err;
}

static int float_ms_ssim_extract(void *priv, const VmafFeatureFrame *frame,
                                 VmafFeatureSink *sink)
{
    FloatMsSsimState *s = priv;
    const VmafPicture *ref = frame->ref, *dis = frame->dist;
    if (!ref || !dis || (int)ref->w[0] != s->w || (int)ref->h[0] != s->h ||
        (int)dis->w[0] != s->w || (int)dis->h[0] != s->h)
        return -EINVAL;
    VmafSsimMeans ms[VMAF_SSIM_SCALES];
    const int side_err = ms_from_side(s, ref, dis, frame->side_nowait, ms);
    if (!side_err) return vmaf_float_ms_ssim_store(s, ms, frame->index, sink);
    if (side_err == -EAGAIN) return side_err;

    vmaf_float_plane_from_picture(ref, 0, 0.0f, s->ref[0].data, s->ref[0].stride);
    vmaf_float_plane_from_picture(dis, 0, 0.0f, s->cmp[0].data, s->cmp[0].stride);
    vmaf_ssim_plane_fill_margins(&s->ref[0]);
    vmaf_ssim_plane_fill_margins(&s->cmp[0]);
    int err = 0;
    for (int k = 1; !err && k < VMAF_SSIM_SCALES; k++) {
        err = vmaf_ssim_decimate(VMAF_FLOAT_IMPL_BEST, &s->ws, &s->ref[k - 1], 2, s->lpf,
                                 VMAF_SSIM_LPF, &s->ref[k]);
        if (!err)
            err = vmaf_ssim_decimate(VMAF_FLOAT_IMPL_BEST, &s->ws, &s->cmp[k - 1], 2, s->lpf,
                                     VMAF_SSIM_LPF, &s->cmp[k]);
    }
    if (err) return err;

    VmafSsimMeans m[VMAF_SSIM_SCALES];
    for (int k = 0; k < VMAF_SSIM_SCALES; k++) {
        err = vmaf_ssim_means(VMAF_FLOAT_IMPL_BEST, &s->ws, s->ref[k].data, s->cmp[k].data,
                              s->ref[k].stride, s->ref[k].w, s->ref[k].h, &m[k]);
        if (err) return err;
    }
    return vmaf_float_ms_ssim_store(s, m, frame->index, sink);
}

int vmaf_float_ms_ssim_store(const FloatMsSsimState *s, const VmafSsimMeans m[VMAF_SSIM_SCALES],
                             unsigned index, VmafFeatureSink *sink)
{
    double msssim = 1.0;
    double l[VMAF_SSIM_SCALES], c[VMAF_SSIM_SCALES], cs[VMAF_SSIM_SCALES];
    for (int k = 0; k < VMAF_SSIM_SCALES; k++) {
        msssim *= pow(m[k].l, vmaf_ms_ssim_alpha[k]) * pow(m[k].c, vmaf_ms_ssim_beta[k]) *
                  pow(m[k].s, vmaf_ms_ssim_gamma[k]);
        l[k] = m[k].l;
        c[k] = m[k].c;
        cs[k] = m[k].s;
        if (msssim == INFINITY) { /* the reference's error case */
            vmaf_log(s->log_level, VMAF_LOG_LEVEL_ERROR,
                     "float_ms_ssim: infinite score at frame %u\n", index);
            return -EINVAL;
        }
    }

    double score = msssim;
    if (s->enable_db) score = vmaf_ssim_to_db(score, s->max_db);
    int err = vmaf_feature_sink_append(sink, "float_ms_ssim", score, index);
    if (err || !s->enable_lcs) return err;
    const double *terms[3] = { l, c, cs };
    static const char letter[3] = { 'l', 'c', 's' };
    for (int t = 0; !err && t < 3; t++) {
        for (int k = 0; !err && k < VMAF_SSIM_SCALES; k++) {
            char name[32];
            snprintf(name, sizeof(name), "float_ms_ssim_%c_scale%d", letter[t], k);
            err = vmaf_feature_sink_append(sink, name, terms[t][k], index);
        }
    }
    return err;
}

static const char *const float_ms_ssim_features[] = { "float_ms_ssim", NULL };

const VmafFeatureExtractor vmaf_fex_float_ms_ssim = {
    .name = "float_ms_ssim",
    .priv_size = sizeof(FloatMsSsimState),
    .options = float_ms_ssim_options,
    .provided_features = float_ms_ssim_features,
    .flags = VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = float_ms_ssim_init,
    .extract = float_ms_ssim_extract,
    .close = float_ms_ssim_close,
};
