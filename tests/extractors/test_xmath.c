/*
 * Twin VMAF — src/feature/xmath.h against the host's libm, and ciede's arithmetic built on it
 * against the same arithmetic built on the host's libm (tests/extractors/ciede_libm_ref.c).
 *
 * Meaningful only where the host's libm is glibc's x86-64 FMA build (glibc selects it on every
 * CPU with FMA; the golden files were made with it): elsewhere the test is skipped (77).
 * Default (ctest): every function on strided float domains and random doubles, a few seconds.
 * `test_xmath --exhaustive`: every input ciede can produce where that is one float:
 *   - cos of the four arguments of T(h) and sin of theta(h) (theta itself too, it holds exp),
 *     for every float h in [0, 2 pi]; sin(dh / 2) for every float |dh| <= 3.2;
 *   - pow(c, 7) for every float c in [0, 2048);
 *   - CIELAB of every 8-bit (Y, U, V) (pow(., 2.4), pow(., 1/3)), and 2^24 random triples plus
 *     the edges at 10, 12 and 16 bits;
 * and larger random samples of the rest (3 10^8 atan2 over float pairs: the float result, which is
 * what ciede uses, must be equal; differences of the double are counted, see xmath.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include "ciede_libm_ref.h"
#include "feature/ciede.h"
#include "feature/xmath.h"

#include "test_util.h"

static int exhaustive;

static uint64_t rnd64(void)
{
    return (uint64_t)rng() << 32 ^ rng();
}

static int same_d(double a, double b)
{
    return !memcmp(&a, &b, sizeof a);
}

static int same_f(float a, float b)
{
    return !memcmp(&a, &b, sizeof a);
}

static float f_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t u_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Every float in [lo, hi] (both >= 0) with the stride, as bit patterns. */
#define FOR_FLOATS(var, lo, hi, stride)                                                    \
    for (uint32_t var##_u = u_of(lo); var##_u <= u_of(hi); var##_u += (stride))           \
        for (float var = f_of(var##_u), var##_once = 1; var##_once; var##_once = 0)

static void test_exp_pow(unsigned stride)
{
    long bad = 0, n = 0;
    FOR_FLOATS(x, 0.0f, 511.0f, stride) { /* exp(-(t t)) and beyond */
        const double e = -(double)x;
        n++;
        if (!same_d(vmaf_xm_exp(e), exp(e)) && bad++ < 5) printf("  exp(%a)\n", e);
        if (!same_d(vmaf_xm_exp(x), exp(x)) && bad++ < 5) printf("  exp(%a)\n", (double)x);
    }
    FOR_FLOATS(c, 0.0f, 2048.0f, stride) { /* pow(c_bar, 7) */
        n++;
        if (!same_d(vmaf_xm_pow(c, 7), pow(c, 7)) && bad++ < 5) printf("  pow(%a, 7)\n", c);
    }
    const unsigned nr = exhaustive ? 200000000u : 500000u;
    for (unsigned i = 0; i < nr; i++) {
        /* random doubles in [2^-8, 8) for the three exponents ciede uses, and others */
        const double x = vmaf_double_of_bits((rnd64() >> 12) | 0x3ff0000000000000ull) *
                         ldexp(1.0, (int)(rng() % 11) - 8);
        static const double ys[4] = { 2.4, 1.0 / 3.0, 7.0, -1.75 };
        const double y = ys[i % 4];
        n++;
        if (!same_d(vmaf_xm_pow(x, y), pow(x, y)) && bad++ < 5) printf("  pow(%a, %a)\n", x, y);
        const double e = (double)(int64_t)(rnd64() >> 10) * 0x1p-45;
        if (!same_d(vmaf_xm_exp(e), exp(e)) && bad++ < 5) printf("  exp(%a)\n", e);
    }
    printf("exp/pow: %ld inputs, %ld differ\n", n, bad);
    CHECK(bad == 0, "exp/pow: %ld of %ld differ from the host's", bad, n);
    CHECK(vmaf_xm_pow(0.0, 7) == 0.0 && isnan(vmaf_xm_pow(-1.0, 2.4)) &&
              vmaf_xm_exp(1000.0) == INFINITY && vmaf_xm_exp(-1000.0) == 0.0 &&
              vmaf_xm_exp(0.0) == 1.0,
          "edges of the supported domain");
}

static void test_sin_cos(unsigned stride)
{
    long bad = 0, n = 0;
    FOR_FLOATS(h, 0.0f, 6.2832f, stride) { /* the arguments of T(h) and theta(h) */
        const double args[4] = { h - M_PI / 6.0, 2.0 * h, 3.0 * h + M_PI / 30.0,
                                 4.0 * h - 7.0 * M_PI / 20.0 };
        for (int k = 0; k < 4; k++) {
            n++;
            if (!same_d(vmaf_xm_cos(args[k]), cos(args[k])) && bad++ < 5)
                printf("  cos(%a)\n", args[k]);
        }
        const float th = vmaf_ciede_theta(h);
        n++;
        if ((!same_f(th, ciede_ref_theta(h)) || !same_d(vmaf_xm_sin(th), sin(th))) &&
            bad++ < 5)
            printf("  theta(%a) or its sin\n", h);
        n++;
        if (!same_f(vmaf_ciede_t(h), ciede_ref_t(h)) && bad++ < 5) printf("  T(%a)\n", h);
    }
    FOR_FLOATS(d, 0.0f, 3.2f, stride) { /* sin(dh / 2) */
        n += 2;
        if (!same_d(vmaf_xm_sin(d / 2.0), sin(d / 2.0)) && bad++ < 5) printf("  sin(%a)\n", d);
        if (!same_d(vmaf_xm_sin(-d / 2.0), sin(-d / 2.0)) && bad++ < 5) printf("  sin(-%a)\n", d);
    }
    const unsigned nr = exhaustive ? 200000000u : 500000u;
    for (unsigned i = 0; i < nr; i++) {
        const double x = (double)(int64_t)rnd64() * 0x1p-58; /* |x| < 32 */
        n += 2;
        if (!same_d(vmaf_xm_sin(x), sin(x)) && bad++ < 5) printf("  sin(%a)\n", x);
        if (!same_d(vmaf_xm_cos(x), cos(x)) && bad++ < 5) printf("  cos(%a)\n", x);
    }
    printf("sin/cos (and T, theta): %ld inputs, %ld differ\n", n, bad);
    CHECK(bad == 0, "sin/cos: %ld of %ld differ from the host's", bad, n);
}

static float random_float(void)
{
    const float m = (float)(rng() & 0xffffff) * 0x1p-24f;
    const float f = ldexpf(m, (int)(rng() % 40) - 30);
    return (rng() & 1) ? -f : f;
}

static void test_atan2(void)
{
    const unsigned n = exhaustive ? 300000000u : 1000000u;
    long bad_float = 0, bad_double = 0;
    for (unsigned i = 0; i < n; i++) {
        float b = random_float(), a = random_float();
        if (i % 16 == 0) b = 0.0f;
        if (i % 16 == 1) a = 0.0f;
        const double mine = vmaf_xm_atan2(b, a), host = atan2(b, a);
        bad_double += !same_d(mine, host);
        if (!same_f((float)mine, (float)host) && bad_float++ < 5)
            printf("  atan2(%a, %a): %a %a\n", b, a, mine, host);
        if (!same_f(vmaf_ciede_hue(b, a), ciede_ref_hue(b, a)) && bad_float++ < 5)
            printf("  hue(%a, %a)\n", b, a);
    }
    printf("atan2: %u float pairs, the double differs in %ld (the host's misroundings), "
           "the float in %ld\n",
           n, bad_double, bad_float);
    CHECK(bad_float == 0, "atan2 rounded to float: %ld differ", bad_float);
    CHECK(bad_double < n / 500, "atan2: %ld doubles differ, more than glibc's rate", bad_double);
}

static int same_lab(VmafCiedeLab p, VmafCiedeLab q)
{
    return same_f(p.l, q.l) && same_f(p.a, q.a) && same_f(p.b, q.b);
}

static void test_lab(unsigned stride)
{
    long bad = 0, n = 0;
    for (uint32_t yuv = 0; yuv < (1u << 24); yuv += stride) {
        const double y = yuv >> 16, u = (yuv >> 8) & 255, v = yuv & 255;
        n++;
        if (!same_lab(vmaf_ciede_lab(y, u, v, 8), ciede_ref_lab(y, u, v, 8)) && bad++ < 5)
            printf("  lab(%g, %g, %g) 8 bits\n", y, u, v);
    }
    static const unsigned depths[3] = { 10, 12, 16 };
    for (int k = 0; k < 3; k++) {
        const unsigned bpc = depths[k], max = (1u << bpc) - 1, d = 1u << (bpc - 8);
        const unsigned edge[9] = { 0,       1,       16 * d - 1, 16 * d, 128 * d,
                                   235 * d, 240 * d, max - 1,    max };
        for (int i = 0; i < 9 * 9 * 9; i++) {
            const double y = edge[i % 9], u = edge[i / 9 % 9], v = edge[i / 81];
            n++;
            if (!same_lab(vmaf_ciede_lab(y, u, v, bpc), ciede_ref_lab(y, u, v, bpc)) && bad++ < 5)
                printf("  lab(%g, %g, %g) %u bits\n", y, u, v, bpc);
        }
        const unsigned nr = (1u << 24) / stride;
        for (unsigned i = 0; i < nr; i++) {
            const double y = rng() & max, u = rng() & max, v = rng() & max;
            n++;
            if (!same_lab(vmaf_ciede_lab(y, u, v, bpc), ciede_ref_lab(y, u, v, bpc)) && bad++ < 5)
                printf("  lab(%g, %g, %g) %u bits\n", y, u, v, bpc);
        }
    }
    printf("CIELAB: %ld triples, %ld differ\n", n, bad);
    CHECK(bad == 0, "CIELAB: %ld of %ld triples differ from the host libm's", bad, n);
}

static void test_ciede2000(void)
{
    const unsigned n = exhaustive ? 100000000u : 300000u;
    long bad = 0;
    for (unsigned i = 0; i < n; i++) {
        const unsigned bpc = i % 2 ? 8 : 10, max = (1u << bpc) - 1;
        const double y = rng() & max, u = rng() & max, v = rng() & max;
        /* the distorted colour near the reference one, as in real frames, or anywhere */
        const unsigned spread = i % 3 == 0 ? max : 7;
        const double y2 = fmin(max, fmax(0, y + (double)(rng() % (2 * spread + 1)) - spread));
        const double u2 = fmin(max, fmax(0, u + (double)(rng() % (2 * spread + 1)) - spread));
        const double v2 = fmin(max, fmax(0, v + (double)(rng() % (2 * spread + 1)) - spread));
        const VmafCiedeLab p = vmaf_ciede_lab(y, u, v, bpc), q = vmaf_ciede_lab(y2, u2, v2, bpc);
        if (!same_f(vmaf_ciede2000(p, q), ciede_ref_2000(p, q)) && bad++ < 5)
            printf("  ciede2000 of (%g %g %g) (%g %g %g) at %u bits\n", y, u, v, y2, u2, v2, bpc);
    }
    printf("ciede2000: %u colour pairs, %ld differ\n", n, bad);
    CHECK(bad == 0, "ciede2000: %ld of %u pairs differ from the host libm's", bad, n);
}

int main(int argc, char **argv)
{
    exhaustive = argc > 1 && !strcmp(argv[1], "--exhaustive");
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("fma") || !__builtin_cpu_supports("avx2")) {
        printf("SKIP: the host's libm is not glibc's FMA build (no FMA/AVX2)\n");
        return 77;
    }
    printf("glibc %s\n", gnu_get_libc_version());
#else
    printf("SKIP: the host's libm is not glibc on x86-64\n");
    return 77;
#endif
    rng_state = 0x9E3779B97F4A7C15ull;
    const unsigned stride = exhaustive ? 1 : 997;
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_lab(exhaustive ? 1 : 61);
    test_sin_cos(stride);
    test_exp_pow(stride);
    test_ciede2000();
    test_atan2();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
