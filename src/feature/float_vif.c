/*
 * Twin VMAF — float VIF: extractor "float_vif" (float_vif.h describes the arithmetic).
 *
 * Per scale, each output row is made in three steps: a vertical pass of the five filtered
 * quantities (means, squares, product) into row buffers with reflected margins, a
 * horizontal pass of each into an output row, and the per-pixel statistic summed along the
 * row. Only rows are buffered; the decimation into the next scale computes just the even
 * rows and columns it keeps.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "feature_extractor.h"
#include "float_filter.h"
#include "float_vif.h"
#include "speed.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------------------------------- */
/* Filters                                                                               */

bool vmaf_float_vif_kernelscale_valid(float kernelscale)
{
    for (int i = 0; i < VMAF_FLOAT_VIF_NUM_KERNELSCALES; i++)
        if (fabsf(kernelscale - vmaf_float_vif_kernelscales[i]) <
            VMAF_FLOAT_VIF_KERNELSCALE_TOLERANCE)
            return true;
    return false;
}

/* ceil, then up to the next odd integer */
static int odd_ceil(float x)
{
    const int c = (int)ceil(x);
    return (c % 2 == 0) ? c + 1 : c;
}

int vmaf_float_vif_filter_width(int scale, float kernelscale)
{
    const int base = (1 << (4 - scale)) + 1;
    const int width = odd_ceil(base * kernelscale);
    return width > 3 ? width : 3;
}

/* Each tap: the density exp(-x^2 / 2 sigma^2) (in double, rounded to float) divided by
 * the normalizer 1 / (sigma sqrt(2 pi)) rounded to float; then all taps are divided by
 * their float sum. */
static void gaussian(float *out, int width, float sigma)
{
    const int half = (width - 1) / 2;
    float total = 0;
    for (int i = 0; i < width; i++) {
        const float x = (float)(i - half);
        const float density = (float)exp(-0.5 * x / sigma * x / sigma);
        const float normalizer = (float)(1 / (sigma * sqrt(2 * M_PI)));
        out[i] = density / normalizer;
        total += out[i];
    }
    for (int i = 0; i < width; i++)
        out[i] /= total;
}

void vmaf_float_vif_filter(float *out, int scale, float kernelscale)
{
    const int width = vmaf_float_vif_filter_width(scale, kernelscale);
    gaussian(out, width, width / 5.0f);
}

/* ------------------------------------------------------------------------------------- */
/* Scales                                                                                */

enum { QUANTITIES = 5 }; /* mu1, mu2, xx, yy, xy */

void vmaf_float_vif_workspace_close(VmafFloatVifWorkspace *ws)
{
    for (int s = 0; s < VMAF_FLOAT_VIF_SCALES; s++) {
        free(ws->ref[s]);
        free(ws->dis[s]);
        ws->ref[s] = ws->dis[s] = NULL;
    }
    free(ws->rows);
    free(ws->out);
    free(ws->terms);
    ws->rows = ws->out = ws->terms = NULL;
}

int vmaf_float_vif_workspace_init(VmafFloatVifWorkspace *ws, unsigned w, unsigned h,
                                  float kernelscale)
{
    memset(ws, 0, sizeof(*ws));
    for (int s = 0; s < VMAF_FLOAT_VIF_SCALES; s++) {
        ws->w[s] = s ? ws->w[s - 1] / 2 : w;
        ws->h[s] = s ? ws->h[s - 1] / 2 : h;
        ws->width[s] = vmaf_float_vif_filter_width(s, kernelscale);
        if (ws->width[s] > VMAF_FLOAT_VIF_MAX_FILTER) return -EINVAL;
        vmaf_float_vif_filter(ws->filter[s], s, kernelscale);
        if (ws->width[s] / 2 > ws->max_radius) ws->max_radius = ws->width[s] / 2;
        if (!s) continue;
        ws->stride[s] = vmaf_float_stride(ws->w[s]);
        const size_t n = ws->stride[s] * ws->h[s] + 1;
        ws->ref[s] = malloc(n * sizeof(float));
        ws->dis[s] = malloc(n * sizeof(float));
        if (!ws->ref[s] || !ws->dis[s]) goto fail;
    }
    ws->row_len = w + 2 * (size_t)ws->max_radius;
    ws->rows = malloc(QUANTITIES * ws->row_len * sizeof(float));
    ws->out = malloc(QUANTITIES * (size_t)w * sizeof(float) + sizeof(float));
    ws->terms = malloc(2 * (size_t)w * sizeof(float) + sizeof(float));
    if (!ws->rows || !ws->out || !ws->terms) goto fail;
    return 0;
fail:
    vmaf_float_vif_workspace_close(ws);
    return -ENOMEM;
}

/* Per-pixel num and den of one row of filtered values (summed afterwards, in order). */
VMAF_FLOAT_INLINE void row_terms(const VmafFloatVifStatConst *c, float *const *o, unsigned w,
                                 float *VMAF_FLOAT_RESTRICT num, float *VMAF_FLOAT_RESTRICT den)
{
    const float *VMAF_FLOAT_RESTRICT mu1 = o[0];
    const float *VMAF_FLOAT_RESTRICT mu2 = o[1];
    const float *VMAF_FLOAT_RESTRICT xx = o[2];
    const float *VMAF_FLOAT_RESTRICT yy = o[3];
    const float *VMAF_FLOAT_RESTRICT xy = o[4];
    for (unsigned j = 0; j < w; j++)
        vmaf_float_vif_pixel(c, mu1[j], mu2[j], xx[j], yy[j], xy[j], &num[j], &den[j]);
}

/* The num and den sums of one scale: planes ref and dis of w x h (stride in floats). */
VMAF_FLOAT_INLINE void scale_sums(VmafFloatVifWorkspace *ws, const VmafFloatVifStatConst *c,
                                  int s, const float *ref, const float *dis, ptrdiff_t stride,
                                  float *num, float *den)
{
    const unsigned w = ws->w[s];
    unsigned h = ws->h[s];
    const int fw = ws->width[s], radius = fw / 2;
    const float *f = ws->filter[s];
    float *t[QUANTITIES], *o[QUANTITIES];
    for (int q = 0; q < QUANTITIES; q++) {
        t[q] = ws->rows + q * ws->row_len + ws->max_radius;
        o[q] = ws->out + q * (size_t)w;
    }
    float *row_num = ws->terms, *row_den = ws->terms + w;
    float sum_num = 0.0f, sum_den = 0.0f;
    if (!w) h = 0; /* an empty scale: both sums 0 */
    for (unsigned i = 0; i < h; i++) {
        /* vertical pass, tap by tap over whole rows (each sum still in tap order) */
        for (int q = 0; q < QUANTITIES; q++)
            for (unsigned j = 0; j < w; j++)
                t[q][j] = 0.0f;
        for (int k = 0; k < fw; k++) {
            const int y = vmaf_reflect101((int)i - radius + k, (int)h);
            const float *a = ref + y * stride, *b = dis + y * stride;
            vmaf_float_accumulate(t[0], a, f[k], w);
            vmaf_float_accumulate(t[1], b, f[k], w);
            vmaf_float_accumulate_square(t[2], a, f[k], w);
            vmaf_float_accumulate_square(t[3], b, f[k], w);
            vmaf_float_accumulate_product(t[4], a, b, f[k], w);
        }
        for (int q = 0; q < QUANTITIES; q++) {
            vmaf_float_reflect_margins(t[q], w, radius);
            vmaf_float_filter_row(f, fw, t[q], w, 1, o[q]);
        }
        row_terms(c, o, w, row_num, row_den);
        /* the sums in the reference's order: along the row, then the rows */
        float line_num, line_den;
        vmaf_float_vif_row_sums(row_num, row_den, w, &line_num, &line_den);
        sum_num += line_num;
        sum_den += line_den;
    }
    *num = sum_num;
    *den = sum_den;
}

VMAF_FLOAT_INLINE void scales_kernel(VmafFloatVifWorkspace *ws, const VmafFloatVifStatConst *c,
                                     const float *ref, const float *dis, ptrdiff_t stride,
                                     bool skip_scale0, float *num, float *den)
{
    const float *cur_ref = ref, *cur_dis = dis;
    ptrdiff_t cur_stride = stride;
    for (int s = 0; s < VMAF_FLOAT_VIF_SCALES; s++) {
        if (s > 0) {
            /* filter s on scale s-1, keeping the even rows and columns */
            vmaf_float_filter_plane_kernel(ws->filter[s], ws->width[s], cur_ref, cur_stride,
                                           ws->w[s - 1], ws->h[s - 1], 2, ws->ref[s],
                                           (ptrdiff_t)ws->stride[s], ws->rows);
            vmaf_float_filter_plane_kernel(ws->filter[s], ws->width[s], cur_dis, cur_stride,
                                           ws->w[s - 1], ws->h[s - 1], 2, ws->dis[s],
                                           (ptrdiff_t)ws->stride[s], ws->rows);
            cur_ref = ws->ref[s];
            cur_dis = ws->dis[s];
            cur_stride = (ptrdiff_t)ws->stride[s];
        } else if (skip_scale0) {
            continue;
        }
        scale_sums(ws, c, s, cur_ref, cur_dis, cur_stride, &num[s], &den[s]);
    }
}

static void scales_plain(VmafFloatVifWorkspace *ws, const VmafFloatVifStatConst *c,
                         const float *ref, const float *dis, ptrdiff_t stride, bool skip_scale0,
                         float *num, float *den)
{
    scales_kernel(ws, c, ref, dis, stride, skip_scale0, num, den);
}

#ifdef VMAF_FLOAT_HAVE_AVX2
VMAF_FLOAT_TARGET_AVX2
static void scales_avx2(VmafFloatVifWorkspace *ws, const VmafFloatVifStatConst *c,
                        const float *ref, const float *dis, ptrdiff_t stride, bool skip_scale0,
                        float *num, float *den)
{
    scales_kernel(ws, c, ref, dis, stride, skip_scale0, num, den);
}
#endif

int vmaf_float_vif_scales(enum VmafFloatImpl impl, VmafFloatVifWorkspace *ws,
                          const VmafFloatVifStatConst *c, const float *ref, const float *dis,
                          ptrdiff_t stride, bool skip_scale0, float num[VMAF_FLOAT_VIF_SCALES],
                          float den[VMAF_FLOAT_VIF_SCALES])
{
    const int err = vmaf_float_impl_resolve(&impl);
    if (err) return err;
#ifdef VMAF_FLOAT_HAVE_AVX2
    if (impl == VMAF_FLOAT_IMPL_AVX2) {
        scales_avx2(ws, c, ref, dis, stride, skip_scale0, num, den);
        return 0;
    }
#endif
    scales_plain(ws, c, ref, dis, stride, skip_scale0, num, den);
    return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Extractor                                                                             */

#define OPT_AT(field) (offsetof(FloatVifState, opt) + offsetof(VmafFloatVifOptions, field))

static const VmafOption float_vif_options[] = {
    {
        .name = "debug",
        .help = "also write vif, vif_num, vif_den and the per-scale num/den",
        .offset = OPT_AT(debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "vif_enhn_gain_limit",
        .alias = "egl",
        .help = "enhancement gain limit (>= 1; 1 disables the gain)",
        .offset = OPT_AT(enhn_gain_limit),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_FLOAT_VIF_DEFAULT_ENHN_GAIN_LIMIT,
        .min = 1.0,
        .max = VMAF_FLOAT_VIF_DEFAULT_ENHN_GAIN_LIMIT,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_kernelscale",
        .alias = "ks",
        .help = "scale of the Gaussian filters (2 doubles sigma and width)",
        .offset = OPT_AT(kernelscale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_FLOAT_VIF_DEFAULT_KERNELSCALE,
        .min = 0.1,
        .max = 4.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_prescale",
        .alias = "ps",
        .help = "resample the frame by this factor first",
        .offset = OPT_AT(prescale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_FLOAT_VIF_DEFAULT_PRESCALE,
        .min = 0.1,
        .max = 4.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_scale1_min_val",
        .alias = "s1miv",
        .help = "lowest scale-1 score written",
        .offset = OPT_AT(scale1_min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_scale2_min_val",
        .alias = "s2miv",
        .help = "lowest scale-2 score written",
        .offset = OPT_AT(scale2_min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_scale3_min_val",
        .alias = "s3miv",
        .help = "lowest scale-3 score written",
        .offset = OPT_AT(scale3_min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_prescale_method",
        .alias = "pm",
        .help = "resampler of vif_prescale: nearest, bilinear, bicubic, lanczos4",
        .offset = OPT_AT(prescale_method),
        .type = VMAF_OPT_TYPE_STRING,
        .default_val.s = VMAF_FLOAT_VIF_DEFAULT_PRESCALE_METHOD,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_sigma_nsq",
        .alias = "snsq",
        .help = "neural noise variance",
        .offset = OPT_AT(sigma_nsq),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_FLOAT_VIF_DEFAULT_SIGMA_NSQ,
        .min = 0.0,
        .max = 5.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_skip_scale0",
        .alias = "ssclz",
        .help = "do not compute scale 0 (its score is 0)",
        .offset = OPT_AT(skip_scale0),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 },
};

static void float_vif_close(void *priv)
{
    FloatVifState *s = priv;
    free(s->ref);
    free(s->dis);
    free(s->ref_scaled);
    free(s->dis_scaled);
    s->ref = s->dis = s->ref_scaled = s->dis_scaled = NULL;
    vmaf_speed_scaler_close(&s->scaler);
    vmaf_float_vif_workspace_close(&s->ws);
}

static int float_vif_init(void *priv, const VmafFeatureGeometry *g)
{
    FloatVifState *s = priv;
    const VmafFloatVifOptions *o = &s->opt;
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_vif: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    enum VmafSpeedScaleMethod method;
    if (vmaf_speed_scale_method(o->prescale_method, &method)) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_vif: invalid vif_prescale_method %s (nearest, bilinear, bicubic, "
                 "lanczos4)\n", o->prescale_method ? o->prescale_method : "(null)");
        return -EINVAL;
    }
    if (!vmaf_float_vif_kernelscale_valid((float)o->kernelscale)) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR, "float_vif: invalid vif_kernelscale %g\n",
                 o->kernelscale);
        return -EINVAL;
    }
    const unsigned scaled_w = (unsigned)(int)(g->w * o->prescale + 0.5);
    const unsigned scaled_h = (unsigned)(int)(g->h * o->prescale + 0.5);
    if (method == VMAF_SPEED_SCALE_BILINEAR && scaled_w > VMAF_FLOAT_VIF_BILINEAR_MAX_WIDTH) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_vif: bilinear prescaling supports widths up to %d\n",
                 VMAF_FLOAT_VIF_BILINEAR_MAX_WIDTH);
        return -EINVAL;
    }
    if (!scaled_w || !scaled_h) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_vif: %ux%u is empty after vif_prescale %g\n", g->w, g->h, o->prescale);
        return -EINVAL;
    }

    s->w = g->w;
    s->h = g->h;
    s->stride = vmaf_float_stride(g->w);
    s->ref = malloc(s->stride * g->h * sizeof(float));
    s->dis = malloc(s->stride * g->h * sizeof(float));
    if (!s->ref || !s->dis) return -ENOMEM;
    s->resample = scaled_w != g->w || scaled_h != g->h;
    if (s->resample) {
        int err = vmaf_speed_scaler_init(&s->scaler, method, g->w, g->h, scaled_w, scaled_h);
        if (err) return err;
        s->scaled_stride = vmaf_float_stride(scaled_w);
        s->ref_scaled = malloc(s->scaled_stride * scaled_h * sizeof(float));
        s->dis_scaled = malloc(s->scaled_stride * scaled_h * sizeof(float));
        if (!s->ref_scaled || !s->dis_scaled) return -ENOMEM;
    }
    int err = vmaf_float_vif_workspace_init(&s->ws, scaled_w, scaled_h, (float)o->kernelscale);
    if (err) return err;

    s->stat.sigma_nsq = o->sigma_nsq;
    s->stat.sigma_max_inv = (float)(powf((float)o->sigma_nsq, 2.0f) / (255.0 * 255.0));
    s->stat.gain_limit = (float)o->enhn_gain_limit;
    return 0;
}

static void resample(const FloatVifState *s, const float *src, float *dst)
{
    for (unsigned y = 0; y < s->scaler.dst_h; y++)
        vmaf_speed_scale_row(&s->scaler, src, (ptrdiff_t)s->stride, y,
                             dst + y * s->scaled_stride);
}

static int float_vif_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    FloatVifState *s = priv;
    const VmafFloatVifOptions *o = &s->opt;
    const VmafPicture *ref = frame->ref, *dis = frame->dist;
    if (!ref || !dis || ref->w[0] != s->w || ref->h[0] != s->h || dis->w[0] != s->w ||
        dis->h[0] != s->h)
        return -EINVAL;

    vmaf_float_plane_from_picture(ref, 0, VMAF_FLOAT_SAMPLE_OFFSET, s->ref, s->stride);
    vmaf_float_plane_from_picture(dis, 0, VMAF_FLOAT_SAMPLE_OFFSET, s->dis, s->stride);
    const float *ref_plane = s->ref, *dis_plane = s->dis;
    ptrdiff_t stride = (ptrdiff_t)s->stride;
    if (s->resample) {
        resample(s, s->ref, s->ref_scaled);
        resample(s, s->dis, s->dis_scaled);
        ref_plane = s->ref_scaled;
        dis_plane = s->dis_scaled;
        stride = (ptrdiff_t)s->scaled_stride;
    }

    float num[VMAF_FLOAT_VIF_SCALES] = { 0 }, den[VMAF_FLOAT_VIF_SCALES] = { 0 };
    int err = vmaf_float_vif_scales(VMAF_FLOAT_IMPL_BEST, &s->ws, &s->stat, ref_plane,
                                    dis_plane, stride, o->skip_scale0, num, den);
    if (err) return err;
    return vmaf_float_vif_store(s, num, den, frame->index, sink);
}

int vmaf_float_vif_store(const FloatVifState *s, const float num_in[VMAF_FLOAT_VIF_SCALES],
                         const float den_in[VMAF_FLOAT_VIF_SCALES], unsigned index,
                         VmafFeatureSink *sink)
{
    const VmafFloatVifOptions *o = &s->opt;
    float num[VMAF_FLOAT_VIF_SCALES], den[VMAF_FLOAT_VIF_SCALES];
    for (int k = 0; k < VMAF_FLOAT_VIF_SCALES; k++) {
        num[k] = num_in[k];
        den[k] = den_in[k];
    }
    if (o->skip_scale0) num[0] = den[0] = 0; /* as the extractor leaves them */
    int err;
    double scores[2 * VMAF_FLOAT_VIF_SCALES];
    for (int k = 0; k < VMAF_FLOAT_VIF_SCALES; k++) {
        scores[2 * k] = num[k];
        scores[2 * k + 1] = den[k];
    }
    const int first = o->skip_scale0 ? 1 : 0;
    double total_num = 0.0, total_den = 0.0;
    for (int k = first; k < VMAF_FLOAT_VIF_SCALES; k++) {
        total_num += scores[2 * k];
        total_den += scores[2 * k + 1];
    }
    const double total = total_den == 0.0 ? 1.0 : total_num / total_den;

    const double min_val[VMAF_FLOAT_VIF_SCALES] = { 0.0, o->scale1_min_val, o->scale2_min_val,
                                                    o->scale3_min_val };
    static const char *const score_name[VMAF_FLOAT_VIF_SCALES] = {
        "VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score",
        "VMAF_feature_vif_scale2_score", "VMAF_feature_vif_scale3_score",
    };
    err = vmaf_feature_sink_append(sink, score_name[0],
                                       o->skip_scale0 ? 0.0 : scores[0] / scores[1],
                                       index);
    for (int k = 1; !err && k < VMAF_FLOAT_VIF_SCALES; k++) {
        const double v = scores[2 * k] / scores[2 * k + 1];
        err = vmaf_feature_sink_append(sink, score_name[k], v > min_val[k] ? v : min_val[k],
                                       index);
    }
    if (err || !o->debug) return err;

    static const char *const num_name[VMAF_FLOAT_VIF_SCALES] = {
        "vif_num_scale0", "vif_num_scale1", "vif_num_scale2", "vif_num_scale3",
    };
    static const char *const den_name[VMAF_FLOAT_VIF_SCALES] = {
        "vif_den_scale0", "vif_den_scale1", "vif_den_scale2", "vif_den_scale3",
    };
    if (o->skip_scale0) { /* what the reference writes for the skipped scale */
        scores[0] = 0.0;
        scores[1] = -1.0;
    }
    err = vmaf_feature_sink_append(sink, "vif", total, index);
    if (!err) err = vmaf_feature_sink_append(sink, "vif_num", total_num, index);
    if (!err) err = vmaf_feature_sink_append(sink, "vif_den", total_den, index);
    for (int k = 0; !err && k < VMAF_FLOAT_VIF_SCALES; k++) {
        err = vmaf_feature_sink_append(sink, num_name[k], scores[2 * k], index);
        if (!err) err = vmaf_feature_sink_append(sink, den_name[k], scores[2 * k + 1],
                                                 index);
    }
    return err;
}

static const char *const float_vif_features[] = {
    "VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score",
    "VMAF_feature_vif_scale2_score", "VMAF_feature_vif_scale3_score",
    "vif", "vif_num", "vif_den",
    "vif_num_scale0", "vif_den_scale0", "vif_num_scale1", "vif_den_scale1",
    "vif_num_scale2", "vif_den_scale2", "vif_num_scale3", "vif_den_scale3",
    NULL,
};

const VmafFeatureExtractor vmaf_fex_float_vif = {
    .name = "float_vif",
    .priv_size = sizeof(FloatVifState),
    .options = float_vif_options,
    .provided_features = float_vif_features,
    .flags = VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = float_vif_init,
    .extract = float_vif_extract,
    .close = float_vif_close,
};
