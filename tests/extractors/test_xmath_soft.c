/*
 * Twin VMAF — xmath.h and ciede.h on the software binary64 against the same source on the
 * host's double, bit for bit (tests/extractors/xmath_probe.c, built both ways): what an OpenCL
 * program built without fp64 computes against what the CPU computes, without a device. Every
 * xmath function over its whole supported domain and beyond it (each branch of each function
 * on purpose: tiny, table, reduction and special arguments, subnormal and overflowing
 * results, NaN and infinities), and ciede's per-colour functions on the values ciede feeds
 * them. NaN results must be NaN in both (payloads are counted, not failed: f64.h).
 * Also the double constants that ciede.h and xmath.h write folded (VMAF_DCONST) against the
 * expressions C folds (M_PI / 6.0, -1.0 / 7, ...).
 *
 *   test_xmath_soft [--count N]   (N random inputs per function and domain; default 20000)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/ciede.h"
#include "feature/xmath.h"
#include "xmath_probe.h"

#include "test_util.h"

static unsigned count = 20000;
static long payloads;

static int is_nan_bits(uint64_t u)
{
    return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}

/* Equal bits, or NaN in both (a payload difference counted). */
static int same_d(uint64_t a, uint64_t b)
{
    if (a == b) return 1;
    if (is_nan_bits(a) && is_nan_bits(b)) return payloads++, 1;
    return 0;
}

static int same_f(float a, float b)
{
    if (test_bits_of_float(a) == test_bits_of_float(b)) return 1;
    if (a != a && b != b) return payloads++, 1;
    return 0;
}

/* a uniform double in [lo, hi) */
static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rng64() >> 11) * 0x1p-53);
}

/* a double of any class: random bits, an exponent near 0, a small integer, subnormal, or one
 * of the special values */
static double any_double(void)
{
    static const uint64_t special[] = {
        0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
        0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
        0x7ff4000000000001ull, 0x0000000000000001ull, 0x000fffffffffffffull,
        0x0010000000000000ull, 0x7fefffffffffffffull, 0x3ff0000000000000ull,
        0xbff0000000000000ull, 0x3fe0000000000000ull,
    };
    switch (rng() % 6) {
    case 0: return test_double_of_bits(rng64());
    case 1:
        return test_double_of_bits((rng64() & 0x800fffffffffffffull) |
                                   (uint64_t)(1003 + rng() % 40) << 52);
    case 2: return (double)(int32_t)(rng() % 4001) - 2000.0;
    case 3:
        return test_double_of_bits((rng64() & 0x800fffffffffffffull) | (uint64_t)(rng() % 3) << 52);
    case 4: return test_double_of_bits(special[rng() % (sizeof special / sizeof special[0])]);
    default: return (double)(int32_t)rng() * 0x1p-20;
    }
}

/* ---- exp ---------------------------------------------------------------------------- */

static void test_exp(void)
{
    long bad = 0, n = 0;
    for (unsigned i = 0; i < 8 * count; i++) {
        double x;
        switch (i % 8) {
        case 0: x = any_double(); break;
        case 1: x = uniform(-1100.0, 1100.0); break;      /* overflow and underflow */
        case 2: x = uniform(-745.2, -708.0); break;       /* subnormal results */
        case 3: x = uniform(-1024.0, -512.0); break;      /* the special scale, negative */
        case 4: x = uniform(512.0, 709.8); break;         /* the special scale, positive */
        case 5: /* tiny */
            x = test_double_of_bits((rng64() >> 12) | (uint64_t)(rng() % 0x3ca) << 52);
            break;
        case 6: { /* ciede's exp(-(t * t)), t a float */
            const float t = (float)uniform(-12.0, 12.0);
            x = -(double)(t * t);
            break;
        }
        default: x = uniform(-40.0, 40.0); break;
        }
        if (i & 8) x = -x;
        n++;
        const uint64_t a = plain_exp(test_bits_of_double(x)), b = soft_exp(test_bits_of_double(x));
        if (!same_d(a, b) && bad++ < 5)
            printf("  exp(%a): %a, soft %a\n", x, test_double_of_bits(a), test_double_of_bits(b));
    }
    printf("exp: %ld inputs, %ld differ\n", n, bad);
    CHECK(bad == 0, "exp: %ld of %ld differ", bad, n);
}

/* ---- pow ---------------------------------------------------------------------------- */

static void test_pow(void)
{
    static const double ys[] = { 2.4, 1.0 / 3.0, 7.0, -1.75, 0.5, 2.0, -1.0, 1.0, 0x1p-65,
                                 0x1.fffffffffffffp62, 1e-12, 300.0, -300.0 };
    long bad = 0, n = 0;
    for (unsigned i = 0; i < 8 * count; i++) {
        double x, y;
        switch (i % 6) {
        case 0: x = test_double_of_bits((rng64() >> 12) | 0x3ff0000000000000ull) *
                    ldexp(1.0, (int)(rng() % 11) - 8); break; /* ciede's range */
        case 1:
            x = test_double_of_bits((rng64() >> 12) | (uint64_t)(1 + rng() % 2046) << 52);
            break;
        case 2: x = test_double_of_bits(rng64() >> 12); break;                /* subnormal */
        case 3: x = 1.0 + uniform(-0x1p-20, 0x1p-20); break;                 /* near 1 */
        case 4: x = (double)(float)uniform(0.0, 2048.0); break;              /* pow(c, 7) */
        default: x = any_double(); break;
        }
        switch (i % 4) {
        case 0:
        case 1: y = ys[rng() % (sizeof ys / sizeof ys[0])]; break;
        case 2: y = test_double_of_bits((rng64() & 0x800fffffffffffffull) |
                                        (uint64_t)(0x3be + rng() % (0x43e - 0x3be)) << 52); break;
        default: y = (i & 16) ? any_double() : uniform(-50.0, 50.0); break;
        }
        n++;
        const uint64_t a = plain_pow(test_bits_of_double(x), test_bits_of_double(y));
        const uint64_t b = soft_pow(test_bits_of_double(x), test_bits_of_double(y));
        if (!same_d(a, b) && bad++ < 5)
            printf("  pow(%a, %a): %a, soft %a\n", x, y, test_double_of_bits(a),
                   test_double_of_bits(b));
    }
    /* the domain's edges */
    static const double xs[] = { 0.0, -0.0, 1.0, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp1023,
                                 -1.0, INFINITY, NAN };
    for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++)
        for (unsigned j = 0; j < sizeof ys / sizeof ys[0]; j++) {
            n++;
            const uint64_t a = plain_pow(test_bits_of_double(xs[i]), test_bits_of_double(ys[j]));
            const uint64_t b = soft_pow(test_bits_of_double(xs[i]), test_bits_of_double(ys[j]));
            if (!same_d(a, b) && bad++ < 5) printf("  pow(%a, %a)\n", xs[i], ys[j]);
        }
    printf("pow: %ld inputs, %ld differ\n", n, bad);
    CHECK(bad == 0, "pow: %ld of %ld differ", bad, n);
}

/* ---- sin, cos ----------------------------------------------------------------------- */

static void test_sin_cos(void)
{
    long bad = 0, n = 0;
    for (unsigned i = 0; i < 8 * count; i++) {
        double x;
        switch (i % 7) {
        case 0: /* tiny */
            x = test_double_of_bits((rng64() >> 12) | (uint64_t)(rng() % 0x3e6) << 52);
            break;
        case 1: x = uniform(0.0, 0.126); break;             /* Taylor */
        case 2: x = uniform(0.126, 0.855469); break;        /* table */
        case 3: x = uniform(0.855469, 2.426265); break;     /* pi/2 - |x| */
        case 4: x = uniform(2.426265, 40.0); break;         /* reduction */
        case 5: x = uniform(40.0, 105414350.0); break;
        default: x = any_double(); break;                  /* beyond, NaN, inf */
        }
        if (i & 8) x = -x;
        n += 2;
        uint64_t a = plain_sin(test_bits_of_double(x)), b = soft_sin(test_bits_of_double(x));
        if (!same_d(a, b) && bad++ < 5)
            printf("  sin(%a): %a, soft %a\n", x, test_double_of_bits(a), test_double_of_bits(b));
        a = plain_cos(test_bits_of_double(x)), b = soft_cos(test_bits_of_double(x));
        if (!same_d(a, b) && bad++ < 5)
            printf("  cos(%a): %a, soft %a\n", x, test_double_of_bits(a), test_double_of_bits(b));
    }
    /* the branch boundaries, each side */
    static const uint64_t tops[] = { 0x3e400000ull, 0x3e500000ull, 0x3feb6000ull, 0x400368fdull,
                                     0x419921fbull };
    for (unsigned k = 0; k < sizeof tops / sizeof tops[0]; k++)
        for (int d = -2; d <= 2; d++) {
            const double x = test_double_of_bits((uint64_t)tops[k] << 32) +
                             d * 1e-9 * test_double_of_bits((uint64_t)tops[k] << 32);
            n += 2;
            if (!same_d(plain_sin(test_bits_of_double(x)), soft_sin(test_bits_of_double(x))) &&
                bad++ < 5)
                printf("  sin(%a)\n", x);
            if (!same_d(plain_cos(test_bits_of_double(x)), soft_cos(test_bits_of_double(x))) &&
                bad++ < 5)
                printf("  cos(%a)\n", x);
        }
    printf("sin/cos: %ld inputs, %ld differ\n", n, bad);
    CHECK(bad == 0, "sin/cos: %ld of %ld differ", bad, n);
}

/* ---- atan2 -------------------------------------------------------------------------- */

static float random_float(void)
{
    const float m = (float)(rng() & 0xffffff) * 0x1p-24f;
    const float f = ldexpf(m, (int)(rng() % 40) - 30);
    return (rng() & 1) ? -f : f;
}

static void test_atan2(void)
{
    long bad = 0, n = 0;
    for (unsigned i = 0; i < 8 * count; i++) {
        double y, x;
        switch (i % 5) {
        case 0: y = random_float(), x = random_float(); break; /* ciede's operands */
        case 1: y = uniform(-4.0, 4.0), x = uniform(-4.0, 4.0); break;
        case 2: /* extreme ratios: exponents 50..70 apart */
            y = test_double_of_bits((rng64() & 0x800fffffffffffffull) |
                                    (uint64_t)(1023 + rng() % 8) << 52);
            x = ldexp(uniform(-1.0, 1.0), (int)(rng() % 21) - 70 + (int)(rng() % 2) * 140);
            if (rng() & 1) { const double t = x; x = y; y = t; }
            break;
        case 3: /* near and past 2^+-500 */
            y = ldexp(uniform(-1.0, 1.0), (int)(rng() % 60) - 530 + (int)(rng() % 2) * 1000);
            x = ldexp(uniform(-1.0, 1.0), (int)(rng() % 60) - 530 + (int)(rng() % 2) * 1000);
            break;
        default: y = any_double(), x = (i & 8) ? any_double() : uniform(-3.0, 3.0); break;
        }
        if (i % 32 == 0) y = (i & 64) ? -0.0 : 0.0;
        if (i % 32 == 1) x = (i & 64) ? -0.0 : 0.0;
        n++;
        const uint64_t a = plain_atan2(test_bits_of_double(y), test_bits_of_double(x));
        const uint64_t b = soft_atan2(test_bits_of_double(y), test_bits_of_double(x));
        if (!same_d(a, b) && bad++ < 5)
            printf("  atan2(%a, %a): %a, soft %a\n", y, x, test_double_of_bits(a),
                   test_double_of_bits(b));
    }
    printf("atan2: %ld inputs, %ld differ\n", n, bad);
    CHECK(bad == 0, "atan2: %ld of %ld differ", bad, n);
}

/* ---- ciede -------------------------------------------------------------------------- */

static int same_lab(XmProbeLab p, XmProbeLab q)
{
    return same_f(p.l, q.l) && same_f(p.a, q.a) && same_f(p.b, q.b);
}

static XmProbeLab lab_both(double y, double u, double v, unsigned bpc, long *bad)
{
    const XmProbeLab p =
        plain_lab(test_bits_of_double(y), test_bits_of_double(u), test_bits_of_double(v), bpc);
    const XmProbeLab q =
        soft_lab(test_bits_of_double(y), test_bits_of_double(u), test_bits_of_double(v), bpc);
    if (!same_lab(p, q) && (*bad)++ < 5) printf("  lab(%g, %g, %g) %u bits\n", y, u, v, bpc);
    return p;
}

static void test_ciede(void)
{
    long bad = 0, n = 0;
    /* CIELAB: strided 8-bit triples, and random and edge ones at 10, 12 and 16 bits */
    const uint32_t stride = 16777259u / (4 * count) | 1;
    for (uint32_t yuv = 0; yuv < (1u << 24); yuv += stride, n++)
        lab_both(yuv >> 16, (yuv >> 8) & 255, yuv & 255, 8, &bad);
    static const unsigned depths[3] = { 10, 12, 16 };
    for (int k = 0; k < 3; k++) {
        const unsigned bpc = depths[k], max = (1u << bpc) - 1, d = 1u << (bpc - 8);
        const unsigned edge[7] = { 0, 16 * d - 1, 16 * d, 128 * d, 235 * d, 240 * d, max };
        for (int i = 0; i < 7 * 7 * 7; i++, n++)
            lab_both(edge[i % 7], edge[i / 7 % 7], edge[i / 49], bpc, &bad);
        for (unsigned i = 0; i < count; i++, n++)
            lab_both(rng() & max, rng() & max, rng() & max, bpc, &bad);
    }
    /* the difference of colour pairs, near each other as in real frames, or anywhere */
    for (unsigned i = 0; i < 2 * count; i++) {
        const unsigned bpc = i % 2 ? 8 : 10, max = (1u << bpc) - 1;
        const int spread = i % 3 == 0 ? (int)max : 7;
        const int y = (int)(rng() & max), u = (int)(rng() & max), v = (int)(rng() & max);
        int c[3] = { y, u, v };
        for (int k = 0; k < 3; k++) {
            c[k] += (int)(rng() % (unsigned)(2 * spread + 1)) - spread;
            c[k] = c[k] < 0 ? 0 : c[k] > (int)max ? (int)max : c[k];
        }
        const XmProbeLab p = lab_both(y, u, v, bpc, &bad);
        const XmProbeLab q = lab_both(c[0], c[1], c[2], bpc, &bad);
        n += 3;
        if (!same_f(plain_ciede2000(p, q), soft_ciede2000(p, q)) && bad++ < 5)
            printf("  ciede2000 of (%d %d %d) (%d %d %d) at %u bits\n", y, u, v, c[0], c[1],
                   c[2], bpc);
    }
    /* the hue functions on every kind of float, and T, theta, R_T over [0, 2 pi] */
    for (unsigned i = 0; i < 4 * count; i++) {
        float b = random_float(), a = random_float();
        if (i % 16 == 0) b = 0.0f;
        if (i % 16 == 1) a = 0.0f;
        if (i % 16 == 2) a = -0.0f;
        const float h1 = (float)uniform(0.0, 6.2832), h2 = (float)uniform(0.0, 6.2832);
        const float c1 = i % 8 == 3 ? 0.0f : (float)uniform(0.0, 200.0);
        const float c2 = i % 8 == 4 ? 0.0f : (float)uniform(0.0, 200.0);
        n += 7;
        if (!same_f(plain_hue(b, a), soft_hue(b, a)) && bad++ < 5) printf("  hue(%a, %a)\n", b, a);
        if (!same_f(plain_delta_hue(c1, c2, h1, h2), soft_delta_hue(c1, c2, h1, h2)) && bad++ < 5)
            printf("  delta_hue(%a, %a, %a, %a)\n", c1, c2, h1, h2);
        if (!same_f(plain_mean_hue(h1, h2), soft_mean_hue(h1, h2)) && bad++ < 5)
            printf("  mean_hue(%a, %a)\n", h1, h2);
        if (!same_f(plain_t(h1), soft_t(h1)) && bad++ < 5) printf("  T(%a)\n", h1);
        if (!same_f(plain_theta(h1), soft_theta(h1)) && bad++ < 5) printf("  theta(%a)\n", h1);
        if (!same_f(plain_rotation(c1, h1), soft_rotation(c1, h1)) && bad++ < 5)
            printf("  R_T(%a, %a)\n", c1, h1);
        /* the top of the range */
        const float h = test_float_of_bits(test_bits_of_float(6.2832f) - rng() % 64u);
        if (!same_f(plain_t(h), soft_t(h)) && bad++ < 5) printf("  T(%a)\n", h);
    }
    printf("ciede: %ld values, %ld differ\n", n, bad);
    CHECK(bad == 0, "ciede: %ld of %ld differ", bad, n);
}

/* ---- the folded constants ----------------------------------------------------------- */

#define CONST_IS(c, expr)                                                                      \
    CHECK(test_bits_of_double(c) == test_bits_of_double(expr), "%s is %a, %s is %a", #c,       \
          (double)(c), #expr, (double)(expr))

static void test_constants(void)
{
    /* the plain build's VMAF_DCONST is the literal: the folded constants' values in C */
    CONST_IS(VMAF_XM_Q7, -1.0 / 7);
    CONST_IS(VMAF_XM_Q9, 1.0 / 9);
    CONST_IS(VMAF_XM_Q11, -1.0 / 11);
    CONST_IS(VMAF_XM_Q13, 1.0 / 13);
    CONST_IS(VMAF_XM_Q15, -1.0 / 15);
    CONST_IS(VMAF_XM_Q17, 1.0 / 17);
    CONST_IS(VMAF_CIEDE_SRGB_KNEE, 10. / 255.);
    CONST_IS(VMAF_CIEDE_SRGB_INV_SCALE, 1.0 / 1.055);
    CONST_IS(VMAF_CIEDE_SRGB_INV_SLOPE, 1.0 / 12.92);
    CONST_IS(VMAF_CIEDE_LAB_KAPPA, 24389.0 / 27.0);
    CONST_IS(VMAF_CIEDE_LAB_EPSILON, 216.0 / 24389.0);
    CONST_IS(VMAF_CIEDE_THIRD, 1.0 / 3.0);
    CONST_IS(VMAF_CIEDE_INV_116, 1.0 / 116.0);
    CONST_IS(VMAF_CIEDE_INV_XN, 1.0 / 0.95047);
    CONST_IS(VMAF_CIEDE_INV_ZN, 1.0 / 1.08883);
    CONST_IS(VMAF_CIEDE_PI, M_PI);
    CONST_IS(VMAF_CIEDE_2PI, 2. * M_PI);
    CONST_IS(VMAF_CIEDE_PI_6, M_PI / 6.0);
    CONST_IS(VMAF_CIEDE_PI_30, M_PI / 30.0);
    CONST_IS(VMAF_CIEDE_7PI_20, 7.0 * M_PI / 20.0);
    CONST_IS(VMAF_CIEDE_180_PI, 180.0 / M_PI);
    CONST_IS(VMAF_CIEDE_PI_180, M_PI / 180.0);
    CONST_IS(VMAF_CIEDE_INV_25, 1.0 / 25.0);
    CONST_IS(VMAF_CIEDE_INV_219, 1.0 / 219.0);
    CONST_IS(VMAF_CIEDE_INV_224, 1.0 / 224.0);
    CHECK(test_bits_of_float(0.65f) == test_bits_of_float((float)0.65), "0.65f is (float)0.65");
    /* the software double's form of 1. / (k d) (ciede.h, vmaf_ciede_inv_range) */
    for (unsigned s = 0; s <= 8; s++) {
        const double d = (double)(1 << s);
        CHECK(test_bits_of_double(1. / (219. * d)) ==
                  test_bits_of_double(ldexp(1.0 / 219.0, -(int)s)),
              "219 2^%u", s);
        CHECK(test_bits_of_double(1. / (224. * d)) ==
                  test_bits_of_double(ldexp(1.0 / 224.0, -(int)s)),
              "224 2^%u", s);
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--count")) count = (unsigned)strtoul(argv[++i], NULL, 0);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rng_state = 0x9E3779B97F4A7C15ull;
    CHECK(!plain_is_soft() && soft_is_soft(), "the probes are built as plain and soft");
    test_constants();
    test_exp();
    test_pow();
    test_sin_cos();
    test_atan2();
    test_ciede();
    printf("NaN payloads differing (not failed): %ld\n", payloads);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
