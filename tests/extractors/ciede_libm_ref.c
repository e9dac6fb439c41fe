/*
 * Twin VMAF — ciede.h's arithmetic with the host's libm (VMAF_CIEDE_LIBM), for
 * tests/extractors/test_xmath.c to compare the xmath.h build with: the same formulas, other
 * functions.
 */
#define VMAF_CIEDE_LIBM 1
#include "feature/ciede.h"

#include "ciede_libm_ref.h"

VmafCiedeLab ciede_ref_lab(double y, double u, double v, unsigned bpc)
{
    return vmaf_ciede_lab(y, u, v, bpc);
}

float ciede_ref_t(float h)
{
    return vmaf_ciede_t(h);
}

float ciede_ref_theta(float h)
{
    return vmaf_ciede_theta(h);
}

float ciede_ref_rotation(float c, float h)
{
    return vmaf_ciede_rotation(c, h);
}

float ciede_ref_hue(float b, float a)
{
    return vmaf_ciede_hue(b, a);
}

float ciede_ref_2000(VmafCiedeLab p, VmafCiedeLab q)
{
    return vmaf_ciede2000(p, q);
}
