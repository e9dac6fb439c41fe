#include <string.h>

#include "gpu/twin.h"

extern const VmafGpuTwin vmaf_twin_psnr;
extern const VmafGpuTwin vmaf_twin_motion;
extern const VmafGpuTwin vmaf_twin_motion_v2;
extern const VmafGpuTwin vmaf_twin_psnr_hvs;
extern const VmafGpuTwin vmaf_twin_vif;
extern const VmafGpuTwin vmaf_twin_adm;
extern const VmafGpuTwin vmaf_twin_speed_chroma;
extern const VmafGpuTwin vmaf_twin_speed_temporal;
extern const VmafGpuTwin vmaf_twin_float_psnr, vmaf_twin_float_ansnr, vmaf_twin_float_moment;
extern const VmafGpuTwin vmaf_twin_float_motion, vmaf_twin_float_vif, vmaf_twin_float_adm;
extern const VmafGpuTwin vmaf_twin_float_ssim, vmaf_twin_float_ms_ssim;
extern const VmafGpuTwin vmaf_twin_cambi;
extern const VmafGpuTwin vmaf_twin_ciede;

static const VmafGpuTwin *const twins[] = {
    &vmaf_twin_psnr,
    &vmaf_twin_motion,
    &vmaf_twin_motion_v2,
    &vmaf_twin_psnr_hvs,
    &vmaf_twin_vif,
    &vmaf_twin_adm,
    &vmaf_twin_speed_chroma,
    &vmaf_twin_speed_temporal,
    &vmaf_twin_float_psnr, &vmaf_twin_float_ansnr, &vmaf_twin_float_moment,
    &vmaf_twin_float_motion, &vmaf_twin_float_vif, &vmaf_twin_float_adm,
    &vmaf_twin_float_ssim, &vmaf_twin_float_ms_ssim,
    &vmaf_twin_cambi,
    &vmaf_twin_ciede,
    NULL,
};

const VmafGpuTwin *vmaf_gpu_twin_for(const char *extractor_name)
{
    for (unsigned i = 0; twins[i]; i++)
        if (!strcmp(twins[i]->name, extractor_name)) return twins[i];
    return NULL;
}
