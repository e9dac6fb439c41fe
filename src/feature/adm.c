/*
 * Twin VMAF — integer ADM: work buffers, the per-frame pipeline and the "adm" extractor
 * (see adm.h for the arithmetic).
 */
#include <errno.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adm.h"
#include "feature_extractor.h"

/* ------------------------------------------------------------------------------------- */
/* Buffers                                                                               */

enum {
    BUFFER_ALIGN = 32,
    BANDS_16 = 20, /* ref A,H,V,D + dis A,H,V,D + 4 x (H,V,D) */
    BANDS_32 = 20,
};

static size_t align_up(size_t x)
{
    return (x + BUFFER_ALIGN - 1) / BUFFER_ALIGN * BUFFER_ALIGN;
}

static void *carve(char **top, size_t bytes)
{
    void *p = *top;
    *top += bytes;
    return p;
}

static void carve16(VmafAdmBands16 *b, char **top, size_t bytes, bool with_a)
{
    b->a = with_a ? carve(top, bytes) : NULL;
    b->h = carve(top, bytes);
    b->v = carve(top, bytes);
    b->d = carve(top, bytes);
}

static void carve32(VmafAdmBands32 *b, char **top, size_t bytes, bool with_a)
{
    b->a = with_a ? carve(top, bytes) : NULL;
    b->h = carve(top, bytes);
    b->v = carve(top, bytes);
    b->d = carve(top, bytes);
}

int vmaf_adm_buffers_alloc(VmafAdmBuffers *b, unsigned w, unsigned h)
{
    memset(b, 0, sizeof(*b));
    if (!w || !h || w > 32768 || h > 32768)
        return -EINVAL;
    const size_t half_w = (w + 1) / 2, half_h = (h + 1) / 2;
    const size_t row_bytes = align_up(half_w * sizeof(int32_t));
    b->w = w;
    b->h = h;
    b->simd = vmaf_adm_simd_available();
    b->stride = row_bytes / sizeof(int32_t);
    b->band_bytes = row_bytes * half_h;

    /* two guard rows on each side keep the index rules' reads inside the allocation */
    const size_t guard = 2 * row_bytes;
    const size_t bands = b->band_bytes / 2 * BANDS_16 + b->band_bytes * BANDS_32;
    b->block = calloc(1, guard + bands + guard);
    /* row buffer: the reference's 4 lines of the picture width in int32, at least 12 lines
     * of the scale-1 width (+2) for the degenerate-row copies, and a guard in front */
    const size_t lines = align_up(w * sizeof(int32_t)) * 4;
    const size_t copies = (12 * half_w + 4) * sizeof(int32_t);
    b->row_bytes = lines > copies ? lines : copies;
    b->row_block = calloc(1, BUFFER_ALIGN + b->row_bytes);
    if (!b->block || !b->row_block) {
        vmaf_adm_buffers_free(b);
        return -ENOMEM;
    }
    b->rows = (int32_t *)((char *)b->row_block + BUFFER_ALIGN);

    char *top = (char *)b->block + guard;
    const size_t half_bytes = b->band_bytes / 2;
    carve16(&b->ref16, &top, half_bytes, true);
    carve16(&b->dis16, &top, half_bytes, true);
    carve16(&b->r16, &top, half_bytes, false);
    carve16(&b->a16, &top, half_bytes, false);
    carve16(&b->csf16, &top, half_bytes, false);
    carve16(&b->mask16, &top, half_bytes, false);
    carve32(&b->ref32, &top, b->band_bytes, true);
    carve32(&b->dis32, &top, b->band_bytes, true);
    carve32(&b->r32, &top, b->band_bytes, false);
    carve32(&b->a32, &top, b->band_bytes, false);
    carve32(&b->csf32, &top, b->band_bytes, false);
    carve32(&b->mask32, &top, b->band_bytes, false);
    return 0;
}

void vmaf_adm_buffers_free(VmafAdmBuffers *b)
{
    free(b->block);
    free(b->row_block);
    memset(b, 0, sizeof(*b));
}

void vmaf_adm_buffers_clear(VmafAdmBuffers *b)
{
    const size_t row_bytes = b->stride * sizeof(int32_t);
    const size_t bands = b->band_bytes / 2 * BANDS_16 + b->band_bytes * BANDS_32;
    memset(b->block, 0, 4 * row_bytes + bands);
    memset(b->row_block, 0, BUFFER_ALIGN + b->row_bytes);
}

/* ------------------------------------------------------------------------------------- */
/* Pipeline                                                                              */

void vmaf_adm_score(VmafAdmBuffers *b, const VmafAdmOptions *opt,
                    const VmafAdmScaleFactors f[VMAF_ADM_SCALES],
                    const void *ref, ptrdiff_t ref_stride,
                    const void *dis, ptrdiff_t dis_stride, unsigned bpc,
                    VmafAdmScores *out)
{
    const int full_w = (int)b->w, full_h = (int)b->h;
    const size_t stride = b->stride;
    int w = full_w, h = full_h;
    double num = 0.0, den = 0.0, aim_num = 0.0;

    if (b->w <= 4 || b->h <= 4)
        vmaf_adm_buffers_clear(b);

    for (unsigned s = 0; s < VMAF_ADM_SCALES; s++) {
        float num_s = 0.0f, den_s = 0.0f, aim_s = 0.0f;
        if (s == 0) {
            int16_t *rows16 = (int16_t *)b->rows;
            const bool lo_only = opt->skip_scale0;
            void (*dwt0)(const void *, ptrdiff_t, unsigned, int, int, int16_t *,
                         const VmafAdmBands16 *, int32_t *, size_t, bool) =
                b->simd ? vmaf_adm_dwt_scale0_simd : vmaf_adm_dwt_scale0;
            dwt0(ref, ref_stride, bpc, w, h, rows16, &b->ref16, b->ref32.a, stride, lo_only);
            dwt0(dis, dis_stride, bpc, w, h, rows16, &b->dis16, b->dis32.a, stride, lo_only);
            w = (w + 1) / 2;
            h = (h + 1) / 2;
            if (lo_only) {
                den_s = 1e-10f; /* keeps the scale-0 ratio finite */
            } else {
                (b->simd ? vmaf_adm_decouple_scale0_simd : vmaf_adm_decouple_scale0)(
                    &b->ref16, &b->dis16, &b->r16, &b->a16, w, h, stride, opt->enhn_gain_limit);
                den_s = vmaf_adm_den_scale0(&b->ref16, w, h, stride, &f[0], opt->noise_weight);
                vmaf_adm_csf_scale0(&b->a16, &b->csf16, &b->mask16, w, h, stride, &f[0]);
                num_s = vmaf_adm_masked_sum_scale0(&b->r16, &b->csf16, &b->mask16, w, h,
                                                   stride, &f[0], opt->noise_weight);
                if (!opt->skip_aim) {
                    vmaf_adm_csf_scale0(&b->r16, &b->mask16, &b->csf16, w, h, stride, &f[0]);
                    aim_s = vmaf_adm_masked_sum_scale0(&b->a16, &b->mask16, &b->csf16, w, h,
                                                       stride, &f[0], 0.0);
                }
            }
        } else {
            (b->simd ? vmaf_adm_dwt_scale123_simd : vmaf_adm_dwt_scale123)(&b->ref32, &b->dis32, b->rows, w, h, stride, s);
            w = (w + 1) / 2;
            h = (h + 1) / 2;
            (b->simd ? vmaf_adm_decouple_scale123_simd : vmaf_adm_decouple_scale123)(
                &b->ref32, &b->dis32, &b->r32, &b->a32, w, h, stride, opt->enhn_gain_limit);
            den_s = vmaf_adm_den_scale123(&b->ref32, w, h, stride, &f[s], s, opt->noise_weight);
            vmaf_adm_csf_scale123(&b->a32, &b->csf32, &b->mask32, w, h, stride, &f[s]);
            num_s = vmaf_adm_masked_sum_scale123(&b->r32, &b->csf32, &b->mask32, w, h, stride,
                                                 &f[s], s, opt->noise_weight);
            if (!opt->skip_aim) {
                vmaf_adm_csf_scale123(&b->r32, &b->mask32, &b->csf32, w, h, stride, &f[s]);
                aim_s = vmaf_adm_masked_sum_scale123(&b->a32, &b->mask32, &b->csf32, w, h,
                                                     stride, &f[s], s, 0.0);
            }
        }
        num += num_s;
        den += den_s;
        aim_num += aim_s;
        out->num_scale[s] = num_s;
        out->den_scale[s] = den_s;
    }

    const double limit = 1e-10 * (full_w * full_h) / (1920.0 * 1080.0);
    num = num < limit ? 0.0 : num;
    den = den < limit ? 0.0 : den;
    if (den == 0.0) {
        /* the reference leaves aim unset here; Twin VMAF writes 0 */
        out->adm2 = 1.0;
        out->aim = 0.0;
    } else {
        out->adm2 = num / den;
        out->aim = aim_num / den;
    }
    out->num = num;
    out->den = den;
    const double adm3 =
        out->adm2 * opt->dlm_weight + (1 - out->aim) * (1 - opt->dlm_weight);
    out->adm3 = adm3 > opt->min_val ? adm3 : opt->min_val; /* a NaN adm3 gives min_val */
}

/* ------------------------------------------------------------------------------------- */
/* Extractor                                                                             */

typedef struct AdmState {
    VmafAdmOptions opt;
    VmafAdmScaleFactors factors[VMAF_ADM_SCALES];
    VmafAdmBuffers buf;
    unsigned w, h, bpc;
} AdmState;

#define OPT_AT(field) (offsetof(AdmState, opt) + offsetof(VmafAdmOptions, field))

static const VmafOption adm_options[] = {
    {
        .name = "debug",
        .help = "also write adm, num, den and num/den per scale",
        .offset = OPT_AT(debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "adm_csf_scale",
        .alias = "scf",
        .help = "scale of the horizontal and vertical CSF terms (Barten)",
        .offset = OPT_AT(csf_scale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_CSF_SCALE,
        .min = 0.0,
        .max = 50.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_diag_scale",
        .alias = "scfd",
        .help = "scale of the diagonal CSF term (Barten)",
        .offset = OPT_AT(csf_diag_scale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_CSF_DIAG_SCALE,
        .min = 0.0,
        .max = 50.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_dlm_weight",
        .alias = "dlmw",
        .help = "weight of DLM against AIM in adm3; 1 is DLM only",
        .offset = OPT_AT(dlm_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_DLM_WEIGHT,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_enhn_gain_limit",
        .alias = "egl",
        .help = "largest enhancement gain credited; 1 disables enhancement",
        .offset = OPT_AT(enhn_gain_limit),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_ENHN_GAIN_LIMIT,
        .min = 1.0,
        .max = VMAF_ADM_DEFAULT_ENHN_GAIN_LIMIT,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_norm_view_dist",
        .alias = "nvd",
        .help = "viewing distance over the display's physical height",
        .offset = OPT_AT(norm_view_dist),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_NORM_VIEW_DIST,
        .min = 0.75,
        .max = 24.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_ref_display_height",
        .alias = "rdh",
        .help = "height of the reference display in pixels",
        .offset = OPT_AT(ref_display_height),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = VMAF_ADM_DEFAULT_REF_DISPLAY_HEIGHT,
        .min = 1,
        .max = 4320,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_mode",
        .alias = "csf",
        .help = "contrast sensitivity function: 0 Watson, 1 Barten, 2 blend, 3 blend (MAE)",
        .offset = OPT_AT(csf_mode),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = VMAF_ADM_CSF_WATSON97,
        .min = 0,
        .max = 3,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_noise_weight",
        .alias = "nw",
        .help = "weight of the noise floor added to numerator and denominator",
        .offset = OPT_AT(noise_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_NOISE_WEIGHT,
        .min = 0.0,
        .max = 1500.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_skip_aim",
        .help = "do not compute AIM (aim is written as 0)",
        .offset = OPT_AT(skip_aim),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "adm_skip_scale0",
        .alias = "ssz",
        .help = "leave scale 0 out of the scores",
        .offset = OPT_AT(skip_scale0),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_min_val",
        .alias = "min",
        .help = "smallest adm3 written; lower values are raised to it",
        .offset = OPT_AT(min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_MIN_VAL,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 },
};

static int adm_init(void *priv, const VmafFeatureGeometry *g)
{
    AdmState *s = priv;
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h || g->w > 32768 || g->h > 32768) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "adm: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    /* the 16-bit data path cannot represent angular frequencies below 1080 lines at 3 H */
    const double view = s->opt.norm_view_dist * s->opt.ref_display_height;
    if (view < VMAF_ADM_DEFAULT_NORM_VIEW_DIST * VMAF_ADM_DEFAULT_REF_DISPLAY_HEIGHT) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "adm: adm_norm_view_dist * adm_ref_display_height is %g, must be at least "
                 "%d\n", view, VMAF_ADM_MIN_VIEW_PRODUCT);
        return -EINVAL;
    }
    s->w = g->w;
    s->h = g->h;
    s->bpc = g->bpc;
    vmaf_adm_scale_factors(&s->opt, s->factors);
    return vmaf_adm_buffers_alloc(&s->buf, g->w, g->h);
}

static void adm_close(void *priv)
{
    AdmState *s = priv;
    vmaf_adm_buffers_free(&s->buf);
}

static int luma_matches(const AdmState *s, const VmafPicture *p)
{
    return p && p->data[0] && p->w[0] == s->w && p->h[0] == s->h && p->bpc == s->bpc;
}

static const char *const debug_names[2 * VMAF_ADM_SCALES] = {
    "integer_adm_num_scale0", "integer_adm_den_scale0", "integer_adm_num_scale1",
    "integer_adm_den_scale1", "integer_adm_num_scale2", "integer_adm_den_scale2",
    "integer_adm_num_scale3", "integer_adm_den_scale3",
};

static const char *const scale_names[VMAF_ADM_SCALES] = {
    "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3",
};

static int adm_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    AdmState *s = priv;
    if (!s->buf.block || !luma_matches(s, frame->ref) || !luma_matches(s, frame->dist))
        return -EINVAL;

    VmafAdmScores sc;
    vmaf_adm_score(&s->buf, &s->opt, s->factors, frame->ref->data[0], frame->ref->stride[0],
                   frame->dist->data[0], frame->dist->stride[0], s->bpc, &sc);

    const unsigned idx = frame->index;
    int err = vmaf_feature_sink_append(sink, "VMAF_integer_feature_adm2_score", sc.adm2, idx);
    if (!err)
        err = vmaf_feature_sink_append(sink, "VMAF_integer_feature_aim_score", sc.aim, idx);
    if (!err)
        err = vmaf_feature_sink_append(sink, "VMAF_integer_feature_adm3_score", sc.adm3, idx);
    for (unsigned k = 0; !err && k < VMAF_ADM_SCALES; k++)
        err = vmaf_feature_sink_append(sink, scale_names[k],
                                       sc.num_scale[k] / sc.den_scale[k], idx);
    if (err || !s->opt.debug)
        return err;

    err = vmaf_feature_sink_append(sink, "integer_adm", sc.adm2, idx);
    if (!err)
        err = vmaf_feature_sink_append(sink, "integer_adm_num", sc.num, idx);
    if (!err)
        err = vmaf_feature_sink_append(sink, "integer_adm_den", sc.den, idx);
    for (unsigned k = 0; !err && k < VMAF_ADM_SCALES; k++) {
        err = vmaf_feature_sink_append(sink, debug_names[2 * k], sc.num_scale[k], idx);
        if (!err)
            err = vmaf_feature_sink_append(sink, debug_names[2 * k + 1], sc.den_scale[k], idx);
    }
    return err;
}

static const char *const adm_features[] = {
    "VMAF_integer_feature_adm2_score",
    "VMAF_integer_feature_aim_score",
    "VMAF_integer_feature_adm3_score",
    "integer_adm_scale0",
    "integer_adm_scale1",
    "integer_adm_scale2",
    "integer_adm_scale3",
    "integer_adm",
    "integer_adm_num",
    "integer_adm_den",
    "integer_adm_num_scale0",
    "integer_adm_den_scale0",
    "integer_adm_num_scale1",
    "integer_adm_den_scale1",
    "integer_adm_num_scale2",
    "integer_adm_den_scale2",
    "integer_adm_num_scale3",
    "integer_adm_den_scale3",
    NULL,
};

const VmafFeatureExtractor vmaf_fex_adm = {
    .name = "adm",
    .priv_size = sizeof(AdmState),
    .options = adm_options,
    .provided_features = adm_features,
    .init = adm_init,
    .extract = adm_extract,
    .close = adm_close,
};
