/*
 * One side of test_adm_f64: adm_device.h's per-element functions that have a form without
 * fp64, exported under the prefix ADM_F64_SIDE (built once with the plain double, as the CPU
 * and CUDA compile them, and once with -D VMAF_F64_SOFT_ON_HOST=1, as an OpenCL program
 * built without fp64 does). Doubles cross as their bit patterns.
 */
#include <stdint.h>

#include "feature/adm_device.h"

#define ADM_F64_CAT2(a, b) a##_##b
#define ADM_F64_CAT(a, b) ADM_F64_CAT2(a, b)
#define ADM_F64_NAME(x) ADM_F64_CAT(ADM_F64_SIDE, x)

int ADM_F64_NAME(angle)(int32_t oh, int32_t ov, int32_t th, int32_t tv, int vector,
                        uint64_t cos2);
int32_t ADM_F64_NAME(enhanced)(int32_t o, int32_t r, int32_t t, uint64_t gain, int vector);
int32_t ADM_F64_NAME(explained0)(int32_t o, int32_t t, int close, uint64_t gain, int vector);
int32_t ADM_F64_NAME(explained123)(int32_t o, int32_t t, int close, uint64_t gain,
                                   int vector);
int32_t ADM_F64_NAME(reciprocal)(int32_t d);
void ADM_F64_NAME(regions)(int w, int h, int out[8]);

int ADM_F64_NAME(angle)(int32_t oh, int32_t ov, int32_t th, int32_t tv, int vector,
                        uint64_t cos2)
{
    return vmaf_adm_angle_close(oh, ov, th, tv, vector, vmaf_dof_bits(cos2));
}

int32_t ADM_F64_NAME(enhanced)(int32_t o, int32_t r, int32_t t, uint64_t gain, int vector)
{
    return vmaf_adm_enhanced(o, r, t, vmaf_dof_bits(gain), vector);
}

int32_t ADM_F64_NAME(explained0)(int32_t o, int32_t t, int close, uint64_t gain, int vector)
{
    return vmaf_adm_explained0(o, t, close, vmaf_dof_bits(gain), vector);
}

int32_t ADM_F64_NAME(explained123)(int32_t o, int32_t t, int close, uint64_t gain, int vector)
{
    return vmaf_adm_explained123(o, t, close, vmaf_dof_bits(gain), vector);
}

int32_t ADM_F64_NAME(reciprocal)(int32_t d)
{
    return vmaf_adm_reciprocal(d);
}

void ADM_F64_NAME(regions)(int w, int h, int out[8])
{
    const VmafAdmRegion o = vmaf_adm_region_outer(w, h), i = vmaf_adm_region_inner(w, h);
    out[0] = o.left, out[1] = o.top, out[2] = o.right, out[3] = o.bottom;
    out[4] = i.left, out[5] = i.top, out[6] = i.right, out[7] = i.bottom;
}
