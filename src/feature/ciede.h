/*
 * Twin VMAF — CIEDE2000 (extractor "ciede", output "ciede2000"), as reference libvmaf 3.2.0
 * computes it (its port of av-metrics' ciede2000).
 *
 * Per pixel, the reference and distorted colours (Y, U, V) — chroma upsampled to the luma
 * grid as below — go to CIELAB (vmaf_ciede_lab) and their CIEDE2000 difference (kL = 0.65,
 * kC = 1, kH = 4; vmaf_ciede2000) is summed in double in row-major order:
 *   ciede2000 = 45 - 20 log10(sum / (w h))
 *
 * Colour conversion, in double unless marked float, with d = 2^(bpc-8):
 *   y' = (Y - 16 d) (1 / (219 d)), u' = (U - 128 d) (1 / (224 d)), v' likewise
 *   R = y' + 1.28033 v',  G = y' - 0.21482 u' - 0.38059 v',  B = y' + 2.12798 u'  (BT.709)
 *   each c of R, G, B: c > 10/255 ? pow((c + 0.055) (1 / 1.055), 2.4) : c (1 / 12.92)
 *   X, Y, Z = the sRGB D65 matrix (below) times (R, G, B), left to right
 *   f(t) = float(t > 216/24389 ? pow(t, 1/3) : (24389/27 t + 16) (1 / 116))
 *   L = float(116 f(Y) - 16), a = float(500 (f(X/0.95047) - f(Y))), b = float(200 (f(Y) -
 *   f(Z/1.08883)))   (X/0.95047 as X (1 / 0.95047))
 * The difference follows Sharma et al. (2005) with the reference's float/double mix: each
 * named intermediate is a float, each expression is evaluated in double where a double
 * constant or a double function takes part (see vmaf_ciede2000 for the exact order). Two
 * departures from the textbook formula are the reference's and are kept: the mean hue is
 * (h1 + h2)/2 (+ pi when |h1 - h2| > pi) also when a chroma is 0, and dh is 0 only when one
 * of the unprimed chromas is 0.
 *
 * Chroma upsampling (the reference's nearest-neighbour copy to a 4:4:4 picture):
 * - 4:4:4: the planes as they are.
 * - 4:2:0: pixel (i, j) takes chroma sample (i/2, j/2). For odd sizes the reference reads
 *   past the plane there (column w/2 lies in the row padding, row h/2 past the plane; its
 *   values vary from run to run): Twin VMAF takes sample (min(i/2, h/2 - 1), min(j/2,
 *   w/2 - 1)), i.e. repeats the last chroma column and row — the same as the reference for
 *   every even size.
 * - 4:2:2: the reference upsamples it as if it were subsampled vertically: pixel (i, j) takes
 *   position (i/2) S + j of the chroma plane's memory, S = the plane's stride in samples
 *   (its width rounded up to 32, as vmaf_picture_alloc lays it out). Columns past the plane's
 *   width fall in the row padding, which is 0 in the reference's zeroed pictures, and then in
 *   the next row. Twin VMAF reproduces exactly that, reading the padding as 0 whatever the
 *   picture holds there, and reads 0 for positions past the plane's last row (frames of one
 *   row).
 * - Planes of 0 samples (width or height 1 in 4:2:0) read as 0. 4:0:0 is refused.
 */
#ifndef VMAF_FEATURE_CIEDE_H
#define VMAF_FEATURE_CIEDE_H

#include "f64.h"
#if !VMAF_DIALECT_OPENCL
#include <math.h>
#endif

/* The functions of the colour conversion and the difference are xmath.h's, the same on every
 * host and on the GPU: exp, pow, sin, cos with glibc 2.36's bits, atan2 correctly rounded (its
 * float rounding equals glibc's but in astronomically rare cases, see xmath.h); powf(x, 7) is
 * xpowf.h's (glibc's FMA build's bits).
 * VMAF_CIEDE_LIBM (tests only) selects the host's libm instead, to compare with. */
#if defined(VMAF_CIEDE_LIBM)
#define VMAF_CIEDE_POW pow
#define VMAF_CIEDE_EXP exp
#define VMAF_CIEDE_SIN sin
#define VMAF_CIEDE_COS cos
#define VMAF_CIEDE_ATAN2 atan2
#define VMAF_CIEDE_POWF powf
#else
#include "xmath.h"
#define VMAF_CIEDE_POW vmaf_xm_pow
#define VMAF_CIEDE_EXP vmaf_xm_exp
#define VMAF_CIEDE_SIN vmaf_xm_sin
#define VMAF_CIEDE_COS vmaf_xm_cos
#define VMAF_CIEDE_ATAN2 vmaf_xm_atan2
#include "xpowf.h"
#define VMAF_CIEDE_POWF vmaf_xpowf
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The header is compiled as C (the CPU extractor), as C++ (nvcc, the twin) and as OpenCL C.
 * Its double arithmetic is written on f64.h's vmaf_double, one function per C operation in the
 * C order, every conversion explicit (vmaf_dfrom_float where a float meets a double,
 * vmaf_dto_float where a double is rounded to float): plain double operators in C, CUDA and
 * OpenCL with fp64 (so C++ cannot pick a float overload of sqrt or fabs either; tests/
 * test_ciede_cxx.cc compares the two compilations), the software binary64 in an OpenCL
 * program built without fp64. Every double constant is VMAF_DCONST, the folded ones (a
 * quotient or product of literals in the formulas) as the double C folds them to, which
 * tests/extractors/test_xmath_soft.c checks against the expressions (and both forms of every
 * function against each other). */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The formulas' constants: 10/255, 0.055, 1/1.055, 2.4, 1/12.92 (sRGB); 24389/27, 216/24389,
 * 1/3, 1/116 (CIELAB's f); 1/0.95047, 1/1.08883 (the white point); the folded multiples of
 * pi (2 pi, pi/6, pi/30, 7 pi/20, 180/pi, pi/180) and 1/25. */
#define VMAF_CIEDE_SRGB_KNEE VMAF_DCONST(0.0392156862745098, 0x3fa4141414141414)
#define VMAF_CIEDE_SRGB_OFFSET VMAF_DCONST(0.055, 0x3fac28f5c28f5c29)
#define VMAF_CIEDE_SRGB_INV_SCALE VMAF_DCONST(0.9478672985781991, 0x3fee54edcd0aeb60)
#define VMAF_CIEDE_SRGB_GAMMA VMAF_DCONST(2.4, 0x4003333333333333)
#define VMAF_CIEDE_SRGB_INV_SLOPE VMAF_DCONST(0.07739938080495357, 0x3fb3d0722149b580)
#define VMAF_CIEDE_LAB_KAPPA VMAF_DCONST(903.2962962962963, 0x408c3a5ed097b426)
#define VMAF_CIEDE_LAB_EPSILON VMAF_DCONST(0.008856451679035631, 0x3f822354d28f7cd6)
#define VMAF_CIEDE_THIRD VMAF_DCONST(0.3333333333333333, 0x3fd5555555555555)
#define VMAF_CIEDE_INV_116 VMAF_DCONST(0.008620689655172414, 0x3f81a7b9611a7b96)
#define VMAF_CIEDE_INV_XN VMAF_DCONST(1.0521110608435826, 0x3ff0d57268615430)
#define VMAF_CIEDE_INV_ZN VMAF_DCONST(0.9184170164304805, 0x3fed63ac153514f5)
#define VMAF_CIEDE_PI VMAF_DCONST(3.141592653589793, 0x400921fb54442d18)
#define VMAF_CIEDE_2PI VMAF_DCONST(6.283185307179586, 0x401921fb54442d18)
#define VMAF_CIEDE_PI_6 VMAF_DCONST(0.5235987755982988, 0x3fe0c152382d7365)
#define VMAF_CIEDE_PI_30 VMAF_DCONST(0.10471975511965977, 0x3fbacee9f37bebd5)
#define VMAF_CIEDE_7PI_20 VMAF_DCONST(1.0995574287564276, 0x3ff197c987c952c4)
#define VMAF_CIEDE_180_PI VMAF_DCONST(57.29577951308232, 0x404ca5dc1a63c1f8)
#define VMAF_CIEDE_PI_180 VMAF_DCONST(0.017453292519943295, 0x3f91df46a2529d39)
#define VMAF_CIEDE_INV_25 VMAF_DCONST(0.04, 0x3fa47ae147ae147b)
/* 1/219 and 1/224 (the software double's form of the range scaling, vmaf_ciede_lab) */
#define VMAF_CIEDE_INV_219 VMAF_DCONST(0.0045662100456621, 0x3f72b404ad012b40)
#define VMAF_CIEDE_INV_224 VMAF_DCONST(0.004464285714285714, 0x3f72492492492492)
#define VMAF_CIEDE_ZERO VMAF_DCONST(0.0, 0x0000000000000000)
#define VMAF_CIEDE_ONE VMAF_DCONST(1.0, 0x3ff0000000000000)
#define VMAF_CIEDE_TWO VMAF_DCONST(2.0, 0x4000000000000000)

/** x / 2.0 in double. C and CUDA divide, as written; the software double multiplies by 0.5,
 * the same double: x / 2 and x * 0.5 have the same exact value, and each operation rounds the
 * exact value once (NaN: both return x quieted). Saves a software division. */
VMAF_DEVICE_FN vmaf_double vmaf_ciede_half(vmaf_double x)
{
#if VMAF_DOUBLE_SOFT
    return vmaf_dmul(x, VMAF_DCONST(0.5, 0x3fe0000000000000));
#else
    return vmaf_ddiv(x, VMAF_CIEDE_TWO);
#endif
}

/** A CIELAB colour (floats, as the reference keeps it). */
typedef struct VmafCiedeLab {
    float l, a, b;
} VmafCiedeLab;

/** sRGB transfer inverse: a non-linear R, G or B to linear light. */
VMAF_DEVICE_FN vmaf_double vmaf_ciede_linear(vmaf_double c)
{
    /* c > 10. / 255. ? pow((c + 0.055) * (1.0 / 1.055), 2.4) : c * (1.0 / 12.92) */
    if (vmaf_dlt(VMAF_CIEDE_SRGB_KNEE, c))
        return VMAF_CIEDE_POW(
            vmaf_dmul(vmaf_dadd(c, VMAF_CIEDE_SRGB_OFFSET), VMAF_CIEDE_SRGB_INV_SCALE),
            VMAF_CIEDE_SRGB_GAMMA);
    return vmaf_dmul(c, VMAF_CIEDE_SRGB_INV_SLOPE);
}

/** The CIELAB companding f(t), rounded to float. */
VMAF_DEVICE_FN float vmaf_ciede_lab_f(vmaf_double t)
{
    /* kappa = 24389.0 / 27.0, epsilon = 216.0 / 24389.0:
     * (float)(t > epsilon ? pow(t, 1.0 / 3.0) : (kappa * t + 16.0) * (1.0 / 116.0)) */
    if (vmaf_dlt(VMAF_CIEDE_LAB_EPSILON, t))
        return vmaf_dto_float(VMAF_CIEDE_POW(t, VMAF_CIEDE_THIRD));
    return vmaf_dto_float(vmaf_dmul(
        vmaf_dadd(vmaf_dmul(VMAF_CIEDE_LAB_KAPPA, t), VMAF_DCONST(16.0, 0x4030000000000000)),
        VMAF_CIEDE_INV_116));
}

/** r c0 + g c1 + b c2, left to right. */
VMAF_DEVICE_FN vmaf_double vmaf_ciede_dot3(vmaf_double r, vmaf_double g, vmaf_double b,
                                           vmaf_double c0, vmaf_double c1, vmaf_double c2)
{
    return vmaf_dadd(vmaf_dadd(vmaf_dmul(r, c0), vmaf_dmul(g, c1)), vmaf_dmul(b, c2));
}

/** CIELAB (D65) of a non-linear sRGB colour, components nominally in [0, 1]. */
VMAF_DEVICE_FN VmafCiedeLab vmaf_ciede_lab_from_rgb(vmaf_double r_nl, vmaf_double g_nl,
                                                    vmaf_double b_nl)
{
    const vmaf_double r = vmaf_ciede_linear(r_nl);
    const vmaf_double g = vmaf_ciede_linear(g_nl);
    const vmaf_double b = vmaf_ciede_linear(b_nl);

    const vmaf_double x_lin = vmaf_ciede_dot3(r, g, b,
                                              VMAF_DCONST(0.4124564390896921, 0x3fda65afb13a8ccc),
                                              VMAF_DCONST(0.357576077643909, 0x3fd6e286c5d400c0),
                                              VMAF_DCONST(0.18043748326639894, 0x3fc7189350cd0583));
    const vmaf_double y_lin = vmaf_ciede_dot3(r, g, b,
                                              VMAF_DCONST(0.21267285140562248, 0x3fcb38dd2ec46132),
                                              VMAF_DCONST(0.715152155287818, 0x3fe6e286c5d400c0),
                                              VMAF_DCONST(0.07217499330655958, 0x3fb27a0f73d7379c));
    const vmaf_double z_lin = vmaf_ciede_dot3(r, g, b,
                                              VMAF_DCONST(0.019333895582329317, 0x3f93cc43c4ebe999),
                                              VMAF_DCONST(0.119192025881303, 0x3fbe835e5d1aabab),
                                              VMAF_DCONST(0.9503040785363677, 0x3fee68e419523630));

    /* fx, fy, fz: floats widened to double, as the reference keeps them */
    const vmaf_double fx = vmaf_dfrom_float(vmaf_ciede_lab_f(vmaf_dmul(x_lin, VMAF_CIEDE_INV_XN)));
    const vmaf_double fy = vmaf_dfrom_float(vmaf_ciede_lab_f(y_lin));
    const vmaf_double fz = vmaf_dfrom_float(vmaf_ciede_lab_f(vmaf_dmul(z_lin, VMAF_CIEDE_INV_ZN)));
    VmafCiedeLab lab;
    /* (float)((116.0 * fy) - 16.0), (float)(500.0 * (fx - fy)), (float)(200.0 * (fy - fz)) */
    lab.l = vmaf_dto_float(vmaf_dsub(vmaf_dmul(VMAF_DCONST(116.0, 0x405d000000000000), fy),
                                     VMAF_DCONST(16.0, 0x4030000000000000)));
    lab.a = vmaf_dto_float(vmaf_dmul(VMAF_DCONST(500.0, 0x407f400000000000), vmaf_dsub(fx, fy)));
    lab.b = vmaf_dto_float(vmaf_dmul(VMAF_DCONST(200.0, 0x4069000000000000), vmaf_dsub(fy, fz)));
    return lab;
}

/** 1. / (k * d) for d = 2^s (s = bpc - 8 in [0, 8]) and inv_k = 1. / k (k = 219 or 224). C and
 * CUDA divide, as written; the software double scales inv_k by 2^-s, the same double: k d is
 * exact, and 1 / (k 2^s) is 1 / k scaled by 2^-s exactly; both quotients lie in the normal
 * range (>= 2^-16), where rounding to nearest commutes with scaling by a power of two. Saves
 * a software division. */
VMAF_DEVICE_FN vmaf_double vmaf_ciede_inv_range(vmaf_double k, vmaf_double inv_k, vmaf_double d,
                                                unsigned s)
{
#if VMAF_DOUBLE_SOFT
    (void)k;
    (void)d;
    return vmaf_dldexp(inv_k, -(int)s);
#else
    (void)inv_k;
    (void)s;
    return vmaf_ddiv(VMAF_CIEDE_ONE, vmaf_dmul(k, d));
#endif
}

/** CIELAB of a Y'CbCr sample triple of bpc bits (limited range, BT.709 as the reference). */
VMAF_DEVICE_FN VmafCiedeLab vmaf_ciede_lab(vmaf_double y, vmaf_double u, vmaf_double v,
                                           unsigned bpc)
{
    /* d = (double)(1 << (bpc - 8));
     * y = (y - 16. * d) * (1. / (219. * d)); u = (u - 128. * d) * (1. / (224. * d)); v too */
    const vmaf_double d = vmaf_dfrom_i32(1 << (bpc - 8));
    const vmaf_double c128 = vmaf_dmul(VMAF_DCONST(128.0, 0x4060000000000000), d);
    const vmaf_double inv224 = vmaf_ciede_inv_range(VMAF_DCONST(224.0, 0x406c000000000000),
                                                    VMAF_CIEDE_INV_224, d, bpc - 8);
    y = vmaf_dmul(vmaf_dsub(y, vmaf_dmul(VMAF_DCONST(16.0, 0x4030000000000000), d)),
                  vmaf_ciede_inv_range(VMAF_DCONST(219.0, 0x406b600000000000),
                                       VMAF_CIEDE_INV_219, d, bpc - 8));
    u = vmaf_dmul(vmaf_dsub(u, c128), inv224);
    v = vmaf_dmul(vmaf_dsub(v, c128), inv224);
    /* R = y + 1.28033 v, G = y - 0.21482 u - 0.38059 v, B = y + 2.12798 u */
    return vmaf_ciede_lab_from_rgb(
        vmaf_dadd(y, vmaf_dmul(VMAF_DCONST(1.28033, 0x3ff47c3b4f616723), v)),
        vmaf_dsub(vmaf_dsub(y, vmaf_dmul(VMAF_DCONST(0.21482, 0x3fcb7f38c5436b90), u)),
                  vmaf_dmul(VMAF_DCONST(0.38059, 0x3fd85b9628cbd124), v)),
        vmaf_dadd(y, vmaf_dmul(VMAF_DCONST(2.12798, 0x4001061a60d4562e), u)));
}

/** x * x of a float in double (exact; what pow(x, 2) gives). */
VMAF_DEVICE_FN vmaf_double vmaf_ciede_square(float x)
{
    return vmaf_dmul(vmaf_dfrom_float(x), vmaf_dfrom_float(x));
}

/** Hue angle atan2(b, a') in [0, 2 pi), 0 for the achromatic (0, 0). */
VMAF_DEVICE_FN float vmaf_ciede_hue(float b, float a_prime)
{
    /* b == 0.0 && a_prime == 0.0: 0; h = (float)atan2(b, a_prime), (float)(h + 2. * M_PI)
     * when h < 0.0 */
    if (vmaf_deq(vmaf_dfrom_float(b), VMAF_CIEDE_ZERO) &&
        vmaf_deq(vmaf_dfrom_float(a_prime), VMAF_CIEDE_ZERO))
        return 0.0f;
    float h = vmaf_dto_float(VMAF_CIEDE_ATAN2(vmaf_dfrom_float(b), vmaf_dfrom_float(a_prime)));
    if (vmaf_dlt(vmaf_dfrom_float(h), VMAF_CIEDE_ZERO))
        h = vmaf_dto_float(vmaf_dadd(vmaf_dfrom_float(h), VMAF_CIEDE_2PI));
    return h;
}

/** The hue difference dh' (0 when one of the unprimed chromas is 0). */
VMAF_DEVICE_FN float vmaf_ciede_delta_hue(float c1, float c2, float h1, float h2)
{
    /* c1 == 0.0 || c2 == 0.0: 0; fabsf(h1 - h2) <= M_PI: h2 - h1; else (float)((h2 - h1) +
     * 2. * M_PI) when h2 <= h1, (float)((h2 - h1) - 2. * M_PI) otherwise */
    if (vmaf_deq(vmaf_dfrom_float(c1), VMAF_CIEDE_ZERO) ||
        vmaf_deq(vmaf_dfrom_float(c2), VMAF_CIEDE_ZERO))
        return 0.0f;
    if (vmaf_dle(vmaf_dfrom_float(vmaf_fabsf(h1 - h2)), VMAF_CIEDE_PI)) return h2 - h1;
    if (h2 <= h1) return vmaf_dto_float(vmaf_dadd(vmaf_dfrom_float(h2 - h1), VMAF_CIEDE_2PI));
    return vmaf_dto_float(vmaf_dsub(vmaf_dfrom_float(h2 - h1), VMAF_CIEDE_2PI));
}

/** The mean hue H-bar'. */
VMAF_DEVICE_FN float vmaf_ciede_mean_hue(float h1, float h2)
{
    /* fabs((double)(h1 - h2)) > M_PI ? (float)(((h1 + h2) + 2.0 * M_PI) / 2.0)
     *                                 : (float)((h1 + h2) / 2.0) */
    if (vmaf_dlt(VMAF_CIEDE_PI, vmaf_dabs(vmaf_dfrom_float(h1 - h2))))
        return vmaf_dto_float(
            vmaf_ciede_half(vmaf_dadd(vmaf_dfrom_float(h1 + h2), VMAF_CIEDE_2PI)));
    return vmaf_dto_float(vmaf_ciede_half(vmaf_dfrom_float(h1 + h2)));
}

/** The hue weighting T of the mean hue. */
VMAF_DEVICE_FN float vmaf_ciede_t(float h)
{
    /* (float)(1.0 - 0.17 cos(h - M_PI / 6.0) + 0.24 cos(2.0 h) + 0.32 cos(3.0 h + M_PI / 30.0)
     *         - 0.20 cos(4.0 h - 7.0 * M_PI / 20.0)), left to right */
    const vmaf_double hd = vmaf_dfrom_float(h);
    const vmaf_double c1 = VMAF_CIEDE_COS(vmaf_dsub(hd, VMAF_CIEDE_PI_6));
    const vmaf_double c2 = VMAF_CIEDE_COS(vmaf_dmul(VMAF_CIEDE_TWO, hd));
    const vmaf_double c3 = VMAF_CIEDE_COS(
        vmaf_dadd(vmaf_dmul(VMAF_DCONST(3.0, 0x4008000000000000), hd), VMAF_CIEDE_PI_30));
    const vmaf_double c4 = VMAF_CIEDE_COS(
        vmaf_dsub(vmaf_dmul(VMAF_DCONST(4.0, 0x4010000000000000), hd), VMAF_CIEDE_7PI_20));
    vmaf_double t = vmaf_dsub(VMAF_CIEDE_ONE, vmaf_dmul(VMAF_DCONST(0.17, 0x3fc5c28f5c28f5c3), c1));
    t = vmaf_dadd(t, vmaf_dmul(VMAF_DCONST(0.24, 0x3fceb851eb851eb8), c2));
    t = vmaf_dadd(t, vmaf_dmul(VMAF_DCONST(0.32, 0x3fd47ae147ae147b), c3));
    t = vmaf_dsub(t, vmaf_dmul(VMAF_DCONST(0.20, 0x3fc999999999999a), c4));
    return vmaf_dto_float(t);
}

/** The rotation angle (radians) of R_T, a function of the mean hue alone. */
VMAF_DEVICE_FN float vmaf_ciede_theta(float h_bar_prime)
{
    /* h_degrees = (float)(h_bar_prime * (180.0 / M_PI)); t = (float)((h_degrees - 275.0) *
     * (1.0 / 25.0)); theta_degrees = (float)(60.0 * exp(-(t * t))) (t * t in float);
     * (float)(theta_degrees * (M_PI / 180.0)) */
    const float h_degrees =
        vmaf_dto_float(vmaf_dmul(vmaf_dfrom_float(h_bar_prime), VMAF_CIEDE_180_PI));
    const float t = vmaf_dto_float(vmaf_dmul(
        vmaf_dsub(vmaf_dfrom_float(h_degrees), VMAF_DCONST(275.0, 0x4071300000000000)),
        VMAF_CIEDE_INV_25));
    const float theta_degrees = vmaf_dto_float(vmaf_dmul(
        VMAF_DCONST(60.0, 0x404e000000000000), VMAF_CIEDE_EXP(vmaf_dfrom_float(-(t * t)))));
    return vmaf_dto_float(vmaf_dmul(vmaf_dfrom_float(theta_degrees), VMAF_CIEDE_PI_180));
}

/** The rotation term R_T. */
VMAF_DEVICE_FN float vmaf_ciede_rotation(float c_bar_prime, float h_bar_prime)
{
    /* (float)(-2.0 * sqrt((double)(c7 / (c7 + powf(25.0f, 7.0f)))) * sin(theta)) */
    const float c7 = VMAF_CIEDE_POWF(c_bar_prime, 7);
    const float theta = vmaf_ciede_theta(h_bar_prime);
    return vmaf_dto_float(vmaf_dmul(
        vmaf_dmul(VMAF_DCONST(-2.0, 0xc000000000000000),
                  vmaf_dsqrt(vmaf_dfrom_float(vmaf_fdiv(c7, c7 + VMAF_CIEDE_POWF(25.0f, 7.0f))))),
        VMAF_CIEDE_SIN(vmaf_dfrom_float(theta))));
}

/** (float)sqrt(x^2 + y^2) of floats, the squares and their sum in double. */
VMAF_DEVICE_FN float vmaf_ciede_hypot(float x, float y)
{
    return vmaf_dto_float(vmaf_dsqrt(vmaf_dadd(vmaf_ciede_square(x), vmaf_ciede_square(y))));
}

/** CIEDE2000 difference of two colours with weights k_l, k_c, k_h (float, as the reference). */
VMAF_DEVICE_FN float vmaf_ciede2000_weighted(VmafCiedeLab p, VmafCiedeLab q, float k_l, float k_c,
                                             float k_h)
{
    const float delta_l = q.l - p.l;
    const float l_bar = vmaf_fdiv(p.l + q.l, 2);
    const float c1 = vmaf_ciede_hypot(p.a, p.b);
    const float c2 = vmaf_ciede_hypot(q.a, q.b);
    const float c_bar = vmaf_fdiv(c1 + c2, 2);
    /* c_bar7 = pow(c_bar, 7); g = 1 - sqrt(c_bar7 / (c_bar7 + 25^7)) */
    const vmaf_double c_bar7 =
        VMAF_CIEDE_POW(vmaf_dfrom_float(c_bar), VMAF_DCONST(7.0, 0x401c000000000000));
    const vmaf_double g = vmaf_dsub(
        VMAF_CIEDE_ONE,
        vmaf_dsqrt(vmaf_ddiv(c_bar7,
                             vmaf_dadd(c_bar7, VMAF_DCONST(6103515625.0, 0x41f6bcc41e900000)))));
    /* a1 = (float)(p.a + (p.a / 2) * g), a2 likewise (the halves in float) */
    const float a1 = vmaf_dto_float(
        vmaf_dadd(vmaf_dfrom_float(p.a), vmaf_dmul(vmaf_dfrom_float(vmaf_fdiv(p.a, 2)), g)));
    const float a2 = vmaf_dto_float(
        vmaf_dadd(vmaf_dfrom_float(q.a), vmaf_dmul(vmaf_dfrom_float(vmaf_fdiv(q.a, 2)), g)));
    const float c1p = vmaf_ciede_hypot(a1, p.b);
    const float c2p = vmaf_ciede_hypot(a2, q.b);
    const float c_bar_prime = vmaf_fdiv(c1p + c2p, 2);
    const float delta_c = c2p - c1p;
    /* s_l = (float)(1. + ((0.015 * l50) / sqrt(20 + l50))), s_c = (float)(1. + 0.045 c_bar') */
    const vmaf_double l50 = vmaf_ciede_square(l_bar - 50);
    const float s_l = vmaf_dto_float(vmaf_dadd(
        VMAF_CIEDE_ONE,
        vmaf_ddiv(vmaf_dmul(VMAF_DCONST(0.015, 0x3f8eb851eb851eb8), l50),
                  vmaf_dsqrt(vmaf_dadd(VMAF_DCONST(20.0, 0x4034000000000000), l50)))));
    const float s_c = vmaf_dto_float(vmaf_dadd(
        VMAF_CIEDE_ONE,
        vmaf_dmul(VMAF_DCONST(0.045, 0x3fa70a3d70a3d70a), vmaf_dfrom_float(c_bar_prime))));
    const float h1 = vmaf_ciede_hue(p.b, a1);
    const float h2 = vmaf_ciede_hue(q.b, a2);
    const float dh = vmaf_ciede_delta_hue(c1, c2, h1, h2);
    /* (float)(2.0 * sqrt((double)(c1p * c2p)) * sin(dh / 2.0)) */
    const float delta_h = vmaf_dto_float(
        vmaf_dmul(vmaf_dmul(VMAF_CIEDE_TWO, vmaf_dsqrt(vmaf_dfrom_float(c1p * c2p))),
                  VMAF_CIEDE_SIN(vmaf_ciede_half(vmaf_dfrom_float(dh)))));
    const float h_bar = vmaf_ciede_mean_hue(h1, h2);
    const float t = vmaf_ciede_t(h_bar);
    /* (float)(1.0 + 0.015 * c_bar_prime * t) */
    const float s_h = vmaf_dto_float(vmaf_dadd(
        VMAF_CIEDE_ONE, vmaf_dmul(vmaf_dmul(VMAF_DCONST(0.015, 0x3f8eb851eb851eb8),
                                            vmaf_dfrom_float(c_bar_prime)),
                                  vmaf_dfrom_float(t))));
    const float r_t = vmaf_ciede_rotation(c_bar_prime, h_bar);
    const float lightness = vmaf_fdiv(delta_l, k_l * s_l);
    const float chroma = vmaf_fdiv(delta_c, k_c * s_c);
    const float hue = vmaf_fdiv(delta_h, k_h * s_h);
    /* (float)sqrt(lightness^2 + chroma^2 + hue^2 + r_t * chroma * hue), the last product in
     * float */
    return vmaf_dto_float(vmaf_dsqrt(vmaf_dadd(
        vmaf_dadd(vmaf_dadd(vmaf_ciede_square(lightness), vmaf_ciede_square(chroma)),
                  vmaf_ciede_square(hue)),
        vmaf_dfrom_float(r_t * chroma * hue))));
}

/** CIEDE2000 as the extractor uses it: kL = 0.65, kC = 1, kH = 4. */
VMAF_DEVICE_FN float vmaf_ciede2000(VmafCiedeLab p, VmafCiedeLab q)
{
    /* 0.65f is (float)0.65, the reference's weight: the float nearest 0.65 either way */
    return vmaf_ciede2000_weighted(p, q, 0.65f, 1.0f, 4.0f);
}

#if !VMAF_DIALECT_OPENCL
/** The frame score from the sum of the per-pixel differences over n pixels (host only). */
VMAF_DEVICE_FN double vmaf_ciede_score(double sum, double n)
{
    return 45. - 20. * log10(sum / n);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_CIEDE_H */
