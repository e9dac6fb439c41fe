#include <string.h>

#include "feature_extractor.h"

extern const VmafFeatureExtractor vmaf_fex_psnr;
extern const VmafFeatureExtractor vmaf_fex_psnr_hvs;
extern const VmafFeatureExtractor vmaf_fex_motion;
extern const VmafFeatureExtractor vmaf_fex_motion_v2;
extern const VmafFeatureExtractor vmaf_fex_vif;
extern const VmafFeatureExtractor vmaf_fex_speed_chroma;
extern const VmafFeatureExtractor vmaf_fex_speed_temporal;
extern const VmafFeatureExtractor vmaf_fex_adm;
extern const VmafFeatureExtractor vmaf_fex_float_motion;
extern const VmafFeatureExtractor vmaf_fex_float_vif;
extern const VmafFeatureExtractor vmaf_fex_float_adm;
extern const VmafFeatureExtractor vmaf_fex_float_psnr;
extern const VmafFeatureExtractor vmaf_fex_float_ansnr;
extern const VmafFeatureExtractor vmaf_fex_float_moment;
extern const VmafFeatureExtractor vmaf_fex_float_ssim;
extern const VmafFeatureExtractor vmaf_fex_float_ms_ssim;
extern const VmafFeatureExtractor vmaf_fex_ciede;
extern const VmafFeatureExtractor vmaf_fex_cambi;

static const VmafFeatureExtractor *const extractors[] = {
    &vmaf_fex_psnr,
    &vmaf_fex_psnr_hvs,
    &vmaf_fex_motion,
    &vmaf_fex_motion_v2,
    &vmaf_fex_vif,
    &vmaf_fex_speed_chroma,
    &vmaf_fex_speed_temporal,
    &vmaf_fex_adm,
    &vmaf_fex_float_motion,
    &vmaf_fex_float_vif,
    &vmaf_fex_float_adm,
    &vmaf_fex_float_psnr,
    &vmaf_fex_float_ansnr,
    &vmaf_fex_float_moment,
    &vmaf_fex_float_ssim,
    &vmaf_fex_float_ms_ssim,
    &vmaf_fex_ciede,
    &vmaf_fex_cambi,
    NULL,
};

const VmafFeatureExtractor *vmaf_feature_extractor_by_name(const char *name)
{
    if (!name) return NULL;
    for (unsigned i = 0; extractors[i]; i++)
        if (!strcmp(extractors[i]->name, name)) return extractors[i];
    return NULL;
}

const VmafFeatureExtractor *vmaf_feature_extractor_by_feature_name(const char *feature_name)
{
    if (!feature_name) return NULL;
    for (unsigned i = 0; extractors[i]; i++) {
        const char *const *provided = extractors[i]->provided_features;
        for (unsigned j = 0; provided && provided[j]; j++)
            if (!strcmp(provided[j], feature_name)) return extractors[i];
    }
    return NULL;
}
