/*
 * Twin VMAF — extractors "float_psnr", "float_ansnr" and "float_moment" (float_stats.h
 * describes the arithmetic).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "feature_extractor.h"
#include "float_filter.h"
#include "float_stats.h"

/* State shared by the three: the converted luma planes. */
typedef struct FloatStatsState {
    unsigned w, h, bpc;
    size_t stride;
    float *ref, *dis;
    float *ref_filtered, *dis_filtered; /* float_ansnr */
    float *scratch;                     /* float_ansnr: the filter's rows */
} FloatStatsState;

static void float_stats_close(void *priv)
{
    FloatStatsState *s = priv;
    free(s->ref);
    free(s->dis);
    free(s->ref_filtered);
    free(s->dis_filtered);
    free(s->scratch);
    s->ref = s->dis = s->ref_filtered = s->dis_filtered = s->scratch = NULL;
}

static int stats_init(FloatStatsState *s, const VmafFeatureGeometry *g, const char *name,
                      int filtered)
{
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR, "%s: unsupported picture (%ux%u, %u bits)\n",
                 name, g->w, g->h, g->bpc);
        return -EINVAL;
    }
    s->w = g->w;
    s->h = g->h;
    s->bpc = g->bpc;
    s->stride = vmaf_float_stride(g->w);
    const size_t bytes = s->stride * g->h * sizeof(float);
    s->ref = malloc(bytes);
    s->dis = malloc(bytes);
    if (!s->ref || !s->dis) return -ENOMEM;
    if (filtered) {
        s->ref_filtered = malloc(bytes);
        s->dis_filtered = malloc(bytes);
        s->scratch = malloc((3 * (size_t)g->w + 2 * VMAF_FLOAT_ANSNR_DIS_WIDTH) * sizeof(float));
        if (!s->ref_filtered || !s->dis_filtered || !s->scratch) return -ENOMEM;
    }
    return 0;
}

static int convert(FloatStatsState *s, const VmafFeatureFrame *frame, float offset)
{
    const VmafPicture *ref = frame->ref, *dis = frame->dist;
    if (!ref || !dis || ref->w[0] != s->w || ref->h[0] != s->h || dis->w[0] != s->w ||
        dis->h[0] != s->h)
        return -EINVAL;
    vmaf_float_plane_from_picture(ref, 0, offset, s->ref, (ptrdiff_t)s->stride);
    vmaf_float_plane_from_picture(dis, 0, offset, s->dis, (ptrdiff_t)s->stride);
    return 0;
}

/* ---- float_psnr ------------------------------------------------------------------------ */

static int float_psnr_init(void *priv, const VmafFeatureGeometry *g)
{
    return stats_init(priv, g, "float_psnr", 0);
}

int vmaf_float_psnr_store(unsigned w, unsigned h, unsigned bpc, double noise, unsigned index,
                          VmafFeatureSink *sink)
{
    noise /= (w * h);
    const double peak = vmaf_float_stats_peak(bpc);
    const double psnr_max = vmaf_float_stats_psnr_max(bpc);
    const double psnr = 10 * log10(peak * peak / (noise > 1e-10 ? noise : 1e-10));
    return vmaf_feature_sink_append(sink, "float_psnr", psnr < psnr_max ? psnr : psnr_max, index);
}

static int float_psnr_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    FloatStatsState *s = priv;
    int err = convert(s, frame, 0.0f);
    if (err) return err;
    double noise = 0;
    for (unsigned i = 0; i < s->h; i++) {
        const float *r = s->ref + i * s->stride, *d = s->dis + i * s->stride;
        for (unsigned j = 0; j < s->w; j++)
            noise += vmaf_float_psnr_term(r[j], d[j]);
    }
    return vmaf_float_psnr_store(s->w, s->h, s->bpc, noise, frame->index, sink);
}

/* ---- float_ansnr ----------------------------------------------------------------------- */

void vmaf_float_ansnr_filter(const float *k, int kw, const float *src, ptrdiff_t src_stride,
                             int w, int h, float *dst, ptrdiff_t dst_stride, float *scratch)
{
    /* per output row: each kernel row's source row padded with the border rule, then
     * row sums (over the kernel row) added in kernel-row order, one column at a time in
     * the reference's order but whole rows per loop */
    const int radius = kw / 2, padded = w + 2 * radius;
    float *pad = scratch;                 /* one padded source row */
    float *row_sum = scratch + padded;    /* w */
    float *acc = row_sum + w;             /* w */
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++)
            acc[j] = 0;
        for (int u = 0; u < kw; u++) {
            const float *line = src + vmaf_float_ansnr_index(i - radius + u, h) * src_stride;
            for (int q = 0; q < padded; q++)
                pad[q] = line[vmaf_float_ansnr_index(q - radius, w)];
            for (int j = 0; j < w; j++)
                row_sum[j] = 0;
            for (int v = 0; v < kw; v++) {
                const float kv = k[u * kw + v];
                for (int j = 0; j < w; j++)
                    row_sum[j] += kv * pad[j + v];
            }
            for (int j = 0; j < w; j++)
                acc[j] += row_sum[j];
        }
        for (int j = 0; j < w; j++)
            dst[i * dst_stride + j] = acc[j];
    }
}

static int float_ansnr_init(void *priv, const VmafFeatureGeometry *g)
{
    return stats_init(priv, g, "float_ansnr", 1);
}

static int float_ansnr_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    FloatStatsState *s = priv;
    int err = convert(s, frame, VMAF_FLOAT_SAMPLE_OFFSET);
    if (err) return err;
    const ptrdiff_t stride = (ptrdiff_t)s->stride;
    vmaf_float_ansnr_filter(vmaf_float_ansnr_ref_kernel, VMAF_FLOAT_ANSNR_REF_WIDTH, s->ref,
                            stride, (int)s->w, (int)s->h, s->ref_filtered, stride, s->scratch);
    vmaf_float_ansnr_filter(vmaf_float_ansnr_dis_kernel, VMAF_FLOAT_ANSNR_DIS_WIDTH, s->dis,
                            stride, (int)s->w, (int)s->h, s->dis_filtered, stride, s->scratch);
    float sig = 0, noise = 0;
    for (unsigned i = 0; i < s->h; i++) {
        float row_sig, row_noise;
        vmaf_float_ansnr_row_sums(s->ref_filtered + i * stride, s->dis_filtered + i * stride,
                                  s->w, &row_sig, &row_noise);
        sig += row_sig;
        noise += row_noise;
    }
    return vmaf_float_ansnr_store(s->w, s->h, s->bpc, sig, noise, frame->index, sink);
}

int vmaf_float_ansnr_store(unsigned w, unsigned h, unsigned bpc, float sig, float noise,
                           unsigned index, VmafFeatureSink *sink)
{
    const double peak = vmaf_float_stats_peak(bpc);
    const double psnr_max = vmaf_float_stats_psnr_max(bpc);
    const double ansnr = noise == 0 ? psnr_max : 10.0 * log10(sig / noise);
    const double floor_noise = noise > 1e-10 ? noise : 1e-10;
    const double anpsnr = 10 * log10(peak * peak * w * h / floor_noise);
    int err = vmaf_feature_sink_append(sink, "float_ansnr", ansnr, index);
    if (err) return err;
    return vmaf_feature_sink_append(sink, "float_anpsnr", anpsnr < psnr_max ? anpsnr : psnr_max,
                                    index);
}

/* ---- float_moment ---------------------------------------------------------------------- */

static int float_moment_init(void *priv, const VmafFeatureGeometry *g)
{
    return stats_init(priv, g, "float_moment", 0);
}

static double moment(const FloatStatsState *s, const float *plane, int order)
{
    double sum = 0;
    for (unsigned i = 0; i < s->h; i++) {
        const float *p = plane + i * s->stride;
        for (unsigned j = 0; j < s->w; j++)
            sum += order == 1 ? p[j] : p[j] * p[j];
    }
    return sum;
}

int vmaf_float_moment_store(unsigned w, unsigned h, const double sums[4], unsigned index,
                            VmafFeatureSink *sink)
{
    static const char *const name[4] = {
        "float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd",
        "float_moment_dis2nd",
    };
    int err = 0;
    for (int k = 0; !err && k < 4; k++)
        err = vmaf_feature_sink_append(sink, name[k], sums[k] / (w * h), index);
    return err;
}

static int float_moment_extract(void *priv, const VmafFeatureFrame *frame,
                                VmafFeatureSink *sink)
{
    FloatStatsState *s = priv;
    int err = convert(s, frame, 0.0f);
    if (err) return err;
    const double sums[4] = { moment(s, s->ref, 1), moment(s, s->dis, 1), moment(s, s->ref, 2),
                             moment(s, s->dis, 2) };
    return vmaf_float_moment_store(s->w, s->h, sums, frame->index, sink);
}

/* ---- descriptors ----------------------------------------------------------------------- */

static const VmafOption no_options[] = { { 0 } };
static const char *const float_psnr_features[] = { "float_psnr", NULL };
static const char *const float_ansnr_features[] = { "float_ansnr", NULL };
static const char *const float_moment_features[] = { "float_moment", NULL };

const VmafFeatureExtractor vmaf_fex_float_psnr = {
    .name = "float_psnr",
    .priv_size = sizeof(FloatStatsState),
    .options = no_options,
    .provided_features = float_psnr_features,
    .flags = VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = float_psnr_init,
    .extract = float_psnr_extract,
    .close = float_stats_close,
};

const VmafFeatureExtractor vmaf_fex_float_ansnr = {
    .name = "float_ansnr",
    .priv_size = sizeof(FloatStatsState),
    .options = no_options,
    .provided_features = float_ansnr_features,
    .flags = VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = float_ansnr_init,
    .extract = float_ansnr_extract,
    .close = float_stats_close,
};

const VmafFeatureExtractor vmaf_fex_float_moment = {
    .name = "float_moment",
    .priv_size = sizeof(FloatStatsState),
    .options = no_options,
    .provided_features = float_moment_features,
    .flags = VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = float_moment_init,
    .extract = float_moment_extract,
    .close = float_stats_close,
};
