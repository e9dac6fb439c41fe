/*
 * The integer ADM's default options (adm.c's option table's defaults) as one VmafAdmOptions,
 * for the tests that start from them (adm_cases.h's option sets, the adm twin). Include after
 * feature/adm.h.
 */
#ifndef VMAF_TESTS_ADM_OPTIONS_H
#define VMAF_TESTS_ADM_OPTIONS_H

static inline VmafAdmOptions adm_default_options(void)
{
    const VmafAdmOptions o = {
        .csf_scale = VMAF_ADM_DEFAULT_CSF_SCALE,
        .csf_diag_scale = VMAF_ADM_DEFAULT_CSF_DIAG_SCALE,
        .dlm_weight = VMAF_ADM_DEFAULT_DLM_WEIGHT,
        .enhn_gain_limit = VMAF_ADM_DEFAULT_ENHN_GAIN_LIMIT,
        .norm_view_dist = VMAF_ADM_DEFAULT_NORM_VIEW_DIST,
        .ref_display_height = VMAF_ADM_DEFAULT_REF_DISPLAY_HEIGHT,
        .csf_mode = VMAF_ADM_CSF_WATSON97,
        .noise_weight = VMAF_ADM_DEFAULT_NOISE_WEIGHT,
        .min_val = VMAF_ADM_DEFAULT_MIN_VAL,
    };
    return o;
}

#endif /* VMAF_TESTS_ADM_OPTIONS_H */
