/* feature/float_adm.h's per-element functions built with the software binary64 on the host
 * (VMAF_F64_SOFT_ON_HOST: what an OpenCL program without fp64 computes), for
 * test_float_adm_f64. */
#include "feature/float_adm.h"

#if !VMAF_DOUBLE_SOFT
#error "float_adm_soft.c must be built with VMAF_F64_SOFT_ON_HOST=1"
#endif

float test_fadm_soft_enhance(float r, float t, uint64_t gain_limit_bits);
float test_fadm_soft_mask(float c);
float test_fadm_soft_scaled15(float x);
float test_fadm_soft_add_centre(float s, float x);
float test_fadm_soft_threshold(const float *const mask[3], const float *const csf[3],
                               ptrdiff_t stride, int w, int h, int i, int j);

float test_fadm_soft_enhance(float r, float t, uint64_t gain_limit_bits)
{
    return vmaf_float_adm_enhance(r, t, vmaf_dof_bits(gain_limit_bits));
}

float test_fadm_soft_mask(float c)
{
    return vmaf_float_adm_mask_value(c);
}

float test_fadm_soft_scaled15(float x)
{
    return vmaf_float_adm_scaled(VMAF_FLOAT_ADM_ONE_BY_15, VMAF_FLOAT_ADM_ONE_BY_15_HI,
                                 VMAF_FLOAT_ADM_ONE_BY_15_LO, x);
}

float test_fadm_soft_add_centre(float s, float x)
{
    return vmaf_float_adm_add_centre(s, x);
}

float test_fadm_soft_threshold(const float *const mask[3], const float *const csf[3],
                               ptrdiff_t stride, int w, int h, int i, int j)
{
    return vmaf_float_adm_threshold(mask, csf, stride, w, h, i, j);
}
