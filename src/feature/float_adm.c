/*
 * Twin VMAF — float ADM: extractor "float_adm" (float_adm.h describes the arithmetic; the
 * stages are in float_adm_tools.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "feature_extractor.h"
#include "float_adm.h"
#include "float_filter.h"

#define OPT_AT(field) (offsetof(FloatAdmState, opt) + offsetof(VmafFloatAdmOptions, field))

#define FACTOR_OPTION(which, n)                                                             \
    {                                                                                       \
        .name = "adm_f" #which "s" #n,                                                      \
        .alias = "f" #which "s" #n,                                                         \
        .help = "CSF weight of scale " #n " (" #which ": H/V, 2: D) when >= 0",             \
        .offset = OPT_AT(factor##which[n]),                                                 \
        .type = VMAF_OPT_TYPE_DOUBLE,                                                       \
        .default_val.d = -1.0,                                                              \
        .min = -1.0,                                                                        \
        .max = 10.0,                                                                        \
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                                               \
    }

static const VmafOption float_adm_options[] = {
    {
        .name = "debug",
        .help = "also write adm, adm_num, adm_den and the per-scale num/den",
        .offset = OPT_AT(debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "adm_enhn_gain_limit",
        .alias = "egl",
        .help = "enhancement gain limit (>= 1; 1 disables the gain)",
        .offset = OPT_AT(enhn_gain_limit),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_FLOAT_ADM_DEFAULT_ENHN_GAIN_LIMIT,
        .min = 1.0,
        .max = VMAF_FLOAT_ADM_DEFAULT_ENHN_GAIN_LIMIT,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_norm_view_dist",
        .alias = "nvd",
        .help = "viewing distance / display height",
        .offset = OPT_AT(norm_view_dist),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_FLOAT_ADM_DEFAULT_NORM_VIEW_DIST,
        .min = 0.75,
        .max = 24.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_noise_weight",
        .alias = "nw",
        .help = "weight of the noise floor",
        .offset = OPT_AT(noise_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_FLOAT_ADM_DEFAULT_NOISE_WEIGHT,
        .min = 0.0,
        .max = 1500.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_scale",
        .alias = "scf",
        .help = "scale of the Barten CSF (H and V bands)",
        .offset = OPT_AT(csf_scale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.0,
        .max = 50.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_diag_scale",
        .alias = "scfd",
        .help = "scale of the Barten CSF (D band)",
        .offset = OPT_AT(csf_diag_scale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 1.0,
        .min = 0.0,
        .max = 50.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_ref_display_height",
        .alias = "rdf",
        .help = "display height in pixels",
        .offset = OPT_AT(ref_display_height),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = VMAF_FLOAT_ADM_DEFAULT_REF_DISPLAY_HEIGHT,
        .min = 1,
        .max = 4320,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_mode",
        .alias = "csf",
        .help = "contrast sensitivity function: 0 Watson, 1 Barten, 2 DLM paper",
        .offset = OPT_AT(csf_mode),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = VMAF_FLOAT_ADM_CSF_WATSON97,
        .min = 0,
        .max = 9,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_bypass_cm",
        .alias = "bcm",
        .help = "no contrast masking",
        .offset = OPT_AT(bypass_cm),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = 0,
        .min = 0,
        .max = 1,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_adm3_apply_hm",
        .alias = "aah",
        .help = "combine DLM and AIM into adm3 by harmonic mean",
        .offset = OPT_AT(adm3_apply_hm),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_p_norm",
        .alias = "apn",
        .help = "p of the p-norm over the bands",
        .offset = OPT_AT(p_norm),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_FLOAT_ADM_DEFAULT_P_NORM,
        .min = 1.0,
        .max = 20.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_dlm_weight",
        .alias = "dlmw",
        .help = "weight of DLM against AIM in adm3 (1: DLM only)",
        .offset = OPT_AT(dlm_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_FLOAT_ADM_DEFAULT_DLM_WEIGHT,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_min_val",
        .alias = "min",
        .help = "lowest adm3 written",
        .offset = OPT_AT(min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    FACTOR_OPTION(1, 0),
    FACTOR_OPTION(1, 1),
    FACTOR_OPTION(1, 2),
    FACTOR_OPTION(1, 3),
    FACTOR_OPTION(2, 0),
    FACTOR_OPTION(2, 1),
    FACTOR_OPTION(2, 2),
    FACTOR_OPTION(2, 3),
    {
        .name = "adm_skip_aim_scale",
        .alias = "sasc",
        .help = "leave this scale out of the AIM sums",
        .offset = OPT_AT(skip_aim_scale),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = -1,
        .min = 0,
        .max = 3,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_skip_scale0",
        .alias = "ssz",
        .help = "do not compute scale 0",
        .offset = OPT_AT(skip_scale0),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 },
};

static void float_adm_close(void *priv)
{
    FloatAdmState *s = priv;
    free(s->ref);
    free(s->dis);
    s->ref = s->dis = NULL;
    vmaf_float_adm_workspace_close(&s->ws);
}

static int float_adm_init(void *priv, const VmafFeatureGeometry *g)
{
    FloatAdmState *s = priv;
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "float_adm: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    s->w = g->w;
    s->h = g->h;
    s->stride = vmaf_float_stride(g->w);
    s->ref = malloc(s->stride * g->h * sizeof(float));
    s->dis = malloc(s->stride * g->h * sizeof(float));
    if (!s->ref || !s->dis) return -ENOMEM;
    vmaf_float_adm_params(&s->opt, &s->params);
    return vmaf_float_adm_workspace_init(&s->ws, g->w, g->h);
}

static int float_adm_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    FloatAdmState *s = priv;
    const VmafPicture *ref = frame->ref, *dis = frame->dist;
    if (!ref || !dis || ref->w[0] != s->w || ref->h[0] != s->h || dis->w[0] != s->w ||
        dis->h[0] != s->h)
        return -EINVAL;

    vmaf_float_plane_from_picture(ref, 0, VMAF_FLOAT_SAMPLE_OFFSET, s->ref, s->stride);
    vmaf_float_plane_from_picture(dis, 0, VMAF_FLOAT_SAMPLE_OFFSET, s->dis, s->stride);
    VmafFloatAdmScale scale[VMAF_FLOAT_ADM_SCALES];
    int err = vmaf_float_adm_scales(VMAF_FLOAT_IMPL_BEST, &s->ws, &s->params, s->ref, s->dis,
                                    (ptrdiff_t)s->stride, scale);
    if (err) return err;
    return vmaf_float_adm_store(s, scale, frame->index, sink);
}

int vmaf_float_adm_store(const FloatAdmState *s, const VmafFloatAdmScale scale[VMAF_FLOAT_ADM_SCALES],
                         unsigned index, VmafFeatureSink *sink)
{
    const VmafFloatAdmOptions *o = &s->opt;
    int err;
    double num = 0.0, den = 0.0, aim_num = 0.0, aim_den = 0.0;
    for (int k = 0; k < VMAF_FLOAT_ADM_SCALES; k++) {
        num += scale[k].num;
        den += scale[k].den;
        if (o->skip_aim_scale != k) {
            aim_den += scale[k].den;
            aim_num += scale[k].aim_num;
        }
    }
    const double limit = 1e-10 * (s->w * s->h) / (1920.0 * 1080.0);
    num = num < limit ? 0 : num;
    den = den < limit ? 0 : den;
    double adm2 = 1.0, aim = 0.0; /* aim of an empty measure: see float_adm.h */
    if (den != 0.0) {
        const double ratio = aim_num / aim_den;
        aim = ratio < 1.0f ? ratio : 1.0f;
        adm2 = num / den;
    }
    double adm3;
    if (o->adm3_apply_hm)
        adm3 = 2 * adm2 * aim / (adm2 + aim);
    else
        adm3 = adm2 * o->dlm_weight + (1 - aim) * (1 - o->dlm_weight);
    adm3 = adm3 > o->min_val ? adm3 : o->min_val;

    static const char *const scale_name[VMAF_FLOAT_ADM_SCALES] = {
        "VMAF_feature_adm_scale0_score", "VMAF_feature_adm_scale1_score",
        "VMAF_feature_adm_scale2_score", "VMAF_feature_adm_scale3_score",
    };
    err = vmaf_feature_sink_append(sink, "VMAF_feature_adm2_score", adm2, index);
    if (!err) err = vmaf_feature_sink_append(sink, "VMAF_feature_aim_score", aim, index);
    if (!err) err = vmaf_feature_sink_append(sink, "VMAF_feature_adm3_score", adm3, index);
    for (int k = 0; !err && k < VMAF_FLOAT_ADM_SCALES; k++)
        err = vmaf_feature_sink_append(sink, scale_name[k],
                                       (double)scale[k].num / (double)scale[k].den, index);
    if (err || !o->debug) return err;

    static const char *const num_name[VMAF_FLOAT_ADM_SCALES] = {
        "adm_num_scale0", "adm_num_scale1", "adm_num_scale2", "adm_num_scale3",
    };
    static const char *const den_name[VMAF_FLOAT_ADM_SCALES] = {
        "adm_den_scale0", "adm_den_scale1", "adm_den_scale2", "adm_den_scale3",
    };
    err = vmaf_feature_sink_append(sink, "adm", adm2, index);
    if (!err) err = vmaf_feature_sink_append(sink, "adm_num", num, index);
    if (!err) err = vmaf_feature_sink_append(sink, "adm_den", den, index);
    for (int k = 0; !err && k < VMAF_FLOAT_ADM_SCALES; k++) {
        err = vmaf_feature_sink_append(sink, num_name[k], scale[k].num, index);
        if (!err) err = vmaf_feature_sink_append(sink, den_name[k], scale[k].den, index);
    }
    return err;
}

/* As the reference lists them (including "adm_scale0", which it never writes). */
static const char *const float_adm_features[] = {
    "VMAF_feature_adm2_score", "VMAF_feature_aim_score", "VMAF_feature_adm3_score",
    "VMAF_feature_adm_scale0_score", "VMAF_feature_adm_scale1_score",
    "VMAF_feature_adm_scale2_score", "VMAF_feature_adm_scale3_score",
    "adm_num", "adm_den", "adm_scale0",
    "adm_num_scale0", "adm_den_scale0", "adm_num_scale1", "adm_den_scale1",
    "adm_num_scale2", "adm_den_scale2", "adm_num_scale3", "adm_den_scale3",
    NULL,
};

const VmafFeatureExtractor vmaf_fex_float_adm = {
    .name = "float_adm",
    .priv_size = sizeof(FloatAdmState),
    .options = float_adm_options,
    .provided_features = float_adm_features,
    .flags = VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = float_adm_init,
    .extract = float_adm_extract,
    .close = float_adm_close,
};
