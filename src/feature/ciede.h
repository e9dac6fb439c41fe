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

#include "dialect.h"
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

/* The header is compiled as C (the CPU extractor) and as C++ (nvcc, the twin): every libm call
 * takes a double argument written as such, since C++ would pick the float overload of sqrt or
 * fabs for a float argument (a float square root where C takes the double one; tests/
 * test_ciede_cxx.cc compares the two compilations). */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/** A CIELAB colour (floats, as the reference keeps it). */
typedef struct VmafCiedeLab {
    float l, a, b;
} VmafCiedeLab;

/** sRGB transfer inverse: a non-linear R, G or B to linear light. */
VMAF_DEVICE_FN double vmaf_ciede_linear(double c)
{
    if (c > 10. / 255.) return VMAF_CIEDE_POW((c + 0.055) * (1.0 / 1.055), 2.4);
    return c * (1.0 / 12.92);
}

/** The CIELAB companding f(t), rounded to float. */
VMAF_DEVICE_FN float vmaf_ciede_lab_f(double t)
{
    const double kappa = 24389.0 / 27.0;
    const double epsilon = 216.0 / 24389.0;
    if (t > epsilon) return (float)VMAF_CIEDE_POW(t, 1.0 / 3.0);
    return (float)((kappa * t + 16.0) * (1.0 / 116.0));
}

/** CIELAB (D65) of a non-linear sRGB colour, components nominally in [0, 1]. */
VMAF_DEVICE_FN VmafCiedeLab vmaf_ciede_lab_from_rgb(double r_nl, double g_nl, double b_nl)
{
    const double r = vmaf_ciede_linear(r_nl);
    const double g = vmaf_ciede_linear(g_nl);
    const double b = vmaf_ciede_linear(b_nl);

    const double x_lin = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
    const double y_lin = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
    const double z_lin = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;

    const double fx = vmaf_ciede_lab_f(x_lin * (1.0 / 0.95047));
    const double fy = vmaf_ciede_lab_f(y_lin);
    const double fz = vmaf_ciede_lab_f(z_lin * (1.0 / 1.08883));
    VmafCiedeLab lab;
    lab.l = (float)((116.0 * fy) - 16.0);
    lab.a = (float)(500.0 * (fx - fy));
    lab.b = (float)(200.0 * (fy - fz));
    return lab;
}

/** CIELAB of a Y'CbCr sample triple of bpc bits (limited range, BT.709 as the reference). */
VMAF_DEVICE_FN VmafCiedeLab vmaf_ciede_lab(double y, double u, double v, unsigned bpc)
{
    const double d = (double)(1 << (bpc - 8));
    y = (y - 16. * d) * (1. / (219. * d));
    u = (u - 128. * d) * (1. / (224. * d));
    v = (v - 128. * d) * (1. / (224. * d));
    return vmaf_ciede_lab_from_rgb(y + 1.28033 * v, y - 0.21482 * u - 0.38059 * v,
                                   y + 2.12798 * u);
}

/** x * x of a float in double (exact; what pow(x, 2) gives). */
VMAF_DEVICE_FN double vmaf_ciede_square(float x)
{
    return (double)x * (double)x;
}

/** Hue angle atan2(b, a') in [0, 2 pi), 0 for the achromatic (0, 0). */
VMAF_DEVICE_FN float vmaf_ciede_hue(float b, float a_prime)
{
    if (b == 0.0 && a_prime == 0.0) return 0.0f;
    float h = (float)VMAF_CIEDE_ATAN2(b, a_prime);
    if (h < 0.0) h = (float)(h + 2. * M_PI);
    return h;
}

/** The hue difference dh' (0 when one of the unprimed chromas is 0). */
VMAF_DEVICE_FN float vmaf_ciede_delta_hue(float c1, float c2, float h1, float h2)
{
    if (c1 == 0.0 || c2 == 0.0) return 0.0f;
    if (vmaf_fabsf(h1 - h2) <= M_PI) return h2 - h1;
    if (h2 <= h1) return (float)((h2 - h1) + 2. * M_PI);
    return (float)((h2 - h1) - 2. * M_PI);
}

/** The mean hue H-bar'. */
VMAF_DEVICE_FN float vmaf_ciede_mean_hue(float h1, float h2)
{
    if (fabs((double)(h1 - h2)) > M_PI) return (float)(((h1 + h2) + 2.0 * M_PI) / 2.0);
    return (float)((h1 + h2) / 2.0);
}

/** The hue weighting T of the mean hue. */
VMAF_DEVICE_FN float vmaf_ciede_t(float h)
{
    return (float)(1.0 - 0.17 * VMAF_CIEDE_COS(h - M_PI / 6.0) + 0.24 * VMAF_CIEDE_COS(2.0 * h) +
                   0.32 * VMAF_CIEDE_COS(3.0 * h + M_PI / 30.0) -
                   0.20 * VMAF_CIEDE_COS(4.0 * h - 7.0 * M_PI / 20.0));
}

/** The rotation angle (radians) of R_T, a function of the mean hue alone. */
VMAF_DEVICE_FN float vmaf_ciede_theta(float h_bar_prime)
{
    const float h_degrees = (float)(h_bar_prime * (180.0 / M_PI));
    const float t = (float)((h_degrees - 275.0) * (1.0 / 25.0));
    const float theta_degrees = (float)(60.0 * VMAF_CIEDE_EXP(-(t * t)));
    return (float)(theta_degrees * (M_PI / 180.0));
}

/** The rotation term R_T. */
VMAF_DEVICE_FN float vmaf_ciede_rotation(float c_bar_prime, float h_bar_prime)
{
    const float c7 = VMAF_CIEDE_POWF(c_bar_prime, 7);
    const float theta = vmaf_ciede_theta(h_bar_prime);
    return (float)(-2.0 * sqrt((double)vmaf_fdiv(c7, c7 + VMAF_CIEDE_POWF(25.0f, 7.0f))) *
                   VMAF_CIEDE_SIN(theta));
}

/** CIEDE2000 difference of two colours with weights k_l, k_c, k_h (float, as the reference). */
VMAF_DEVICE_FN float vmaf_ciede2000_weighted(VmafCiedeLab p, VmafCiedeLab q, float k_l, float k_c,
                                             float k_h)
{
    const float delta_l = q.l - p.l;
    const float l_bar = vmaf_fdiv(p.l + q.l, 2);
    const float c1 = (float)sqrt(vmaf_ciede_square(p.a) + vmaf_ciede_square(p.b));
    const float c2 = (float)sqrt(vmaf_ciede_square(q.a) + vmaf_ciede_square(q.b));
    const float c_bar = vmaf_fdiv(c1 + c2, 2);
    const double c_bar7 = VMAF_CIEDE_POW(c_bar, 7);
    const double g = 1 - sqrt(c_bar7 / (c_bar7 + 6103515625.0 /* 25^7, exact */));
    const float a1 = (float)(p.a + vmaf_fdiv(p.a, 2) * g);
    const float a2 = (float)(q.a + vmaf_fdiv(q.a, 2) * g);
    const float c1p = (float)sqrt(vmaf_ciede_square(a1) + vmaf_ciede_square(p.b));
    const float c2p = (float)sqrt(vmaf_ciede_square(a2) + vmaf_ciede_square(q.b));
    const float c_bar_prime = vmaf_fdiv(c1p + c2p, 2);
    const float delta_c = c2p - c1p;
    const double l50 = vmaf_ciede_square(l_bar - 50);
    const float s_l = (float)(1. + ((0.015 * l50) / sqrt(20 + l50)));
    const float s_c = (float)(1. + 0.045 * c_bar_prime);
    const float h1 = vmaf_ciede_hue(p.b, a1);
    const float h2 = vmaf_ciede_hue(q.b, a2);
    const float dh = vmaf_ciede_delta_hue(c1, c2, h1, h2);
    const float delta_h = (float)(2.0 * sqrt((double)(c1p * c2p)) * VMAF_CIEDE_SIN(dh / 2.0));
    const float h_bar = vmaf_ciede_mean_hue(h1, h2);
    const float t = vmaf_ciede_t(h_bar);
    const float s_h = (float)(1.0 + 0.015 * c_bar_prime * t);
    const float r_t = vmaf_ciede_rotation(c_bar_prime, h_bar);
    const float lightness = vmaf_fdiv(delta_l, k_l * s_l);
    const float chroma = vmaf_fdiv(delta_c, k_c * s_c);
    const float hue = vmaf_fdiv(delta_h, k_h * s_h);
    return (float)sqrt(vmaf_ciede_square(lightness) + vmaf_ciede_square(chroma) +
                       vmaf_ciede_square(hue) + r_t * chroma * hue);
}

/** CIEDE2000 as the extractor uses it: kL = 0.65, kC = 1, kH = 4. */
VMAF_DEVICE_FN float vmaf_ciede2000(VmafCiedeLab p, VmafCiedeLab q)
{
    return vmaf_ciede2000_weighted(p, q, (float)0.65, 1.0f, 4.0f);
}

/** The frame score from the sum of the per-pixel differences over n pixels. */
VMAF_DEVICE_FN double vmaf_ciede_score(double sum, double n)
{
    return 45. - 20. * log10(sum / n);
}

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_CIEDE_H */
