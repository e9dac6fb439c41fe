/*
 * feature/float_adm.h's per-element functions without a hardware double (float_adm_soft.c:
 * the software binary64 on the host, with the fp32 forms that build takes) against the plain
 * double (what the CPU and CUDA compute), bit for bit:
 *   - the masking products (float)(d x): the fp32 form fma(hi, x, lo x) on every float of
 *     [1, 4) for both constants (the header's scaling argument extends it to [2^-60, FLT_MAX]),
 *     and random x of every class; --exhaustive: every float of [2^-60, FLT_MAX] instead;
 *   - the gain limit's enhancement on random (r, t) for gain limits that are floats (fp32
 *     form) and that are not (the double steps);
 *   - the threshold's centre (float)(s + 0.0666666701 x) on random (s, x) of every magnitude
 *     and on sums near their float's rounding boundaries; the masking threshold on random
 *     bands, at every position;
 *   - the constants: the float pairs sum exactly to the doubles, the db2 taps' floats are
 *     their doubles rounded.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/float_adm.h"

#define TEST_MAX_PRINTED 20
#define TEST_COUNT long long /* --exhaustive: 3.2e9 checks */
#include "test_util.h"

float test_fadm_soft_enhance(float r, float t, uint64_t gain_limit_bits);
float test_fadm_soft_mask(float c);
float test_fadm_soft_scaled15(float x);
float test_fadm_soft_add_centre(float s, float x);
float test_fadm_soft_threshold(const float *const mask[3], const float *const csf[3],
                               ptrdiff_t stride, int w, int h, int i, int j);

static void same(const char *what, float want, float got, float a, float b)
{
    CHECK(test_bits_of_float(want) == test_bits_of_float(got) || (isnan(want) && isnan(got)),
          "%s(%a, %a): double %a [%08x], without fp64 %a [%08x]", what, a, b, want,
          test_bits_of_float(want), got, test_bits_of_float(got));
}

/* any float: random bits, near 1, small integers, tiny */
static float any_float(void)
{
    switch (rng64() % 4) {
    case 0: return test_float_of_bits((uint32_t)rng64());
    case 1:
        return test_float_of_bits(((uint32_t)rng64() & 0x807fffffu) |
                                  (uint32_t)(120 + rng64() % 14) << 23);
    case 2: return (float)((int)(rng64() % 2001) - 1000) / 8.0f;
    default: return test_float_of_bits((uint32_t)rng64() & 0x87ffffffu);
    }
}

static void check_constants(void)
{
    static const char *const taps[8] = {
        "0.482962913144690", "0.836516303737469", "0.224143868041857", "-0.129409522550921",
        "-0.129409522550921", "-0.224143868041857", "0.836516303737469", "-0.482962913144690",
    };
    for (int k = 0; k < 8; k++) {
        const float header = k < 4 ? vmaf_float_adm_dwt_lo[k] : vmaf_float_adm_dwt_hi[k - 4];
        same("db2 tap (float)(double)", (float)strtod(taps[k], NULL), header, (float)k, 0);
        same("db2 tap nearest float", strtof(taps[k], NULL), header, (float)k, 0);
    }
    CHECK((double)VMAF_FLOAT_ADM_ONE_BY_30_HI + (double)VMAF_FLOAT_ADM_ONE_BY_30_LO ==
              VMAF_FLOAT_ADM_ONE_BY_30,
          "the float pair of ONE_BY_30 does not sum to its double");
    CHECK((double)VMAF_FLOAT_ADM_ONE_BY_15_HI + (double)VMAF_FLOAT_ADM_ONE_BY_15_LO ==
              VMAF_FLOAT_ADM_ONE_BY_15,
          "the float pair of ONE_BY_15 does not sum to its double");
}

static void check_scaled(float x)
{
    same("mask (float)(0.0333333351 |x|)", (float)(VMAF_FLOAT_ADM_ONE_BY_30 * (double)fabsf(x)),
         test_fadm_soft_mask(x), x, 0);
    same("(float)(0.0666666701 x)", (float)(VMAF_FLOAT_ADM_ONE_BY_15 * (double)x),
         test_fadm_soft_scaled15(x), x, 0);
}

static void check_enhance(void)
{
    static const double gains[] = { 100.0, 1.0, 37.25, 99.99999237060547, 1.1, 42.0000001,
                                    3.0e-39, 1e300 };
    for (int n = 0; n < 1000000; n++) {
        const double g = n % 10 < 8 ? gains[n % 8] : 1.0 + 99.0 * (double)(rng64() >> 11) * 0x1p-53;
        float r = any_float(), t = any_float();
        if (n % 3 == 0) t = r * (float)g * (1.0f + (float)((int)(rng64() % 5) - 2) * 0x1p-23f);
        const float want = vmaf_float_adm_enhance(r, t, g);
        same("enhance", want, test_fadm_soft_enhance(r, t, test_bits_of_double(g)), r, t);
    }
}

/* a positive float 2^e m, e in [lo, hi) */
static float positive(int lo, int hi)
{
    return ldexpf(1.0f + (float)(rng64() & 0x7fffff) * 0x1p-23f,
                  lo + (int)(rng64() % (unsigned)(hi - lo)));
}

static void check_add_centre(void)
{
    for (int n = 0; n < 4000000; n++) {
        float s, x;
        switch (n % 6) {
        case 0: s = positive(-70, 110), x = positive(-70, 110); break; /* both ranges' ends */
        case 1: s = positive(-8, 12), x = positive(-8, 12); break;
        case 2: s = n % 12 < 6 ? 0.0f : positive(-10, 10), x = n % 12 < 6 ? positive(-10, 10) : 0.0f; break;
        case 3: s = any_float(), x = any_float(); break;
        case 4: /* s + 0.0666666701 x near a float of s's size */
            x = positive(-6, 10);
            s = ldexpf(1.0f + (float)(rng64() & 0x7fffff) * 0x1p-23f, (int)(rng64() % 4)) *
                (float)(0.0666666701 * x);
            break;
        default: /* integers and halves: exact sums, ties of the float rounding */
            s = (float)(rng64() % 100000) * 0.5f, x = (float)(rng64() % 1000000) * 0.25f; break;
        }
        const float want = vmaf_float_adm_add_centre(s, x);
        same("add_centre", want, test_fadm_soft_add_centre(s, x), s, x);
    }
}

static void check_threshold(void)
{
    enum { W = 7, H = 5, S = 9 };
    float m[3][H * S], c[3][H * S];
    for (int rep = 0; rep < 20000; rep++) {
        const int w = 1 + (int)(rng64() % W), h = 1 + (int)(rng64() % H);
        for (int b = 0; b < 3; b++)
            for (int k = 0; k < H * S; k++) {
                c[b][k] = rep % 4 ? (float)((int)(rng64() % 4001) - 2000) * 0x1p-7f : any_float();
                m[b][k] = vmaf_float_adm_mask_value(c[b][k]);
            }
        const float *const mp[3] = { m[0], m[1], m[2] }, *const cp[3] = { c[0], c[1], c[2] };
        for (int i = 0; i < h; i++)
            for (int j = 0; j < w; j++)
                same("threshold", vmaf_float_adm_threshold(mp, cp, S, w, h, i, j),
                     test_fadm_soft_threshold(mp, cp, S, w, h, i, j), (float)i, (float)j);
    }
}

int main(int argc, char **argv)
{
    const int exhaustive = argc > 1 && !strcmp(argv[1], "--exhaustive");
    rng_state = 0x2545f4914f6cdd1dull;
    check_constants();
    /* [1, 4), or every float from 2^-60 to FLT_MAX */
    const uint32_t first = exhaustive ? 0x21800000u : 0x3f800000u;
    const uint32_t end = exhaustive ? 0x7f800000u : 0x40800000u;
    for (uint32_t u = first; u < end; u++)
        check_scaled(test_float_of_bits(u));
    for (int n = 0; n < 2000000; n++)
        check_scaled(any_float());
    check_enhance();
    check_add_centre();
    check_threshold();
    printf("float_adm without fp64: %lld checks, %lld differ from the double\n", checks,
           failures);
    return failures != 0;
}
