/*
 * Twin VMAF — xmath.h's functions and ciede.h's per-colour arithmetic behind plain entry
 * points, for tests/extractors/test_xmath_soft.c. Built twice: as the CPU builds them
 * (XMATH_PROBE = plain: vmaf_double is double) and with -D VMAF_F64_SOFT_ON_HOST=1
 * (XMATH_PROBE = soft: vmaf_double is the software binary64, as in an OpenCL program built
 * without fp64). Doubles cross the boundary as bit patterns.
 */
#include <stdint.h>

#include "feature/ciede.h"
#include "feature/xmath.h"

#include "xmath_probe.h"

#define XP_CAT_(a, b) a##_##b
#define XP_CAT(a, b) XP_CAT_(a, b)
#define XP(name) XP_CAT(XMATH_PROBE, name)

static vmaf_double in(uint64_t u)
{
    return vmaf_dof_bits(u);
}

uint64_t XP(exp)(uint64_t x)
{
    return vmaf_dbits(vmaf_xm_exp(in(x)));
}

uint64_t XP(pow)(uint64_t x, uint64_t y)
{
    return vmaf_dbits(vmaf_xm_pow(in(x), in(y)));
}

uint64_t XP(sin)(uint64_t x)
{
    return vmaf_dbits(vmaf_xm_sin(in(x)));
}

uint64_t XP(cos)(uint64_t x)
{
    return vmaf_dbits(vmaf_xm_cos(in(x)));
}

uint64_t XP(atan2)(uint64_t y, uint64_t x)
{
    return vmaf_dbits(vmaf_xm_atan2(in(y), in(x)));
}

XmProbeLab XP(lab)(uint64_t y, uint64_t u, uint64_t v, unsigned bpc)
{
    const VmafCiedeLab c = vmaf_ciede_lab(in(y), in(u), in(v), bpc);
    XmProbeLab r = { c.l, c.a, c.b };
    return r;
}

float XP(ciede2000)(XmProbeLab p, XmProbeLab q)
{
    const VmafCiedeLab a = { p.l, p.a, p.b }, b = { q.l, q.a, q.b };
    return vmaf_ciede2000(a, b);
}

float XP(hue)(float b, float a)
{
    return vmaf_ciede_hue(b, a);
}

float XP(delta_hue)(float c1, float c2, float h1, float h2)
{
    return vmaf_ciede_delta_hue(c1, c2, h1, h2);
}

float XP(mean_hue)(float h1, float h2)
{
    return vmaf_ciede_mean_hue(h1, h2);
}

float XP(t)(float h)
{
    return vmaf_ciede_t(h);
}

float XP(theta)(float h)
{
    return vmaf_ciede_theta(h);
}

float XP(rotation)(float c, float h)
{
    return vmaf_ciede_rotation(c, h);
}

int XP(is_soft)(void)
{
    return VMAF_DOUBLE_SOFT;
}
