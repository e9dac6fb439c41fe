/*
 * vmaf_xpowf's forms without a hardware double against its plain double steps (what the CPU
 * and CUDA run, glibc's bits: test_xpowf), bit for bit:
 *   - vmaf_xpowf_fixed (xpowf.h's fixed-point path) wherever it decides, on many inputs (the
 *     ADM's and CIEDE's exponents over a sweep of x, x near 1, random pairs); every bound of
 *     its proof is checked on the inputs it reaches (t within the margin of the double
 *     path's t, M within the margin of the double path's M), and the share it leaves to the
 *     double steps is printed;
 *   - the whole function built with the software binary64 (xpowf_soft.c, as an OpenCL program
 *     without fp64 computes it), with and without the fixed path, on special values and
 *     random inputs;
 *   - the integer pieces: the 2^62 coefficients against their doubles, |r*| <= 0.0313 on every
 *     log2 subinterval, the portable multiply-highs against the compiler's 128-bit ones.
 *   test_xpowf_f64 [--exhaustive Y...]
 * --exhaustive: the fixed path (and its double fallback) on every one of the 2^32 x for each
 * exponent Y (a float, or "1/P" for (float)(1.0f / P)), with the bounds; a few minutes each.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/xpowf.h"

#include "test_util.h"

float test_xpowf_soft(float x, float y, int fixed);

typedef struct Stats {
    uint64_t compared, differ, undecided, bounded, margin_missed;
    int64_t max_dt;    /* |t_fixed - t_double| at 2^55 */
    uint64_t max_dm;   /* |M_fixed - M_double| at 2^62 */
    uint64_t bound_failures;
} Stats;

static int print_budget = 20;

static void report(const char *what, float x, float y, uint32_t want, uint32_t got)
{
    if (print_budget-- > 0)
        fprintf(stderr, "%s: xpowf(%a [%08x], %a [%08x]): double %08x, got %08x\n", what, x,
                test_bits_of_float(x), y, test_bits_of_float(y), want, got);
}

/* The double path's t and M (fl(Tm Q_d)) for a positive normal x, as vmaf_xpowf_exp2 forms
 * them, for the bounds of the fixed path's proof. */
static void double_t_m(uint32_t ix, float y, int64_t j, double *t, double *m)
{
    *t = vmaf_dmul(vmaf_dfrom_float(y), vmaf_xpowf_log2(ix));
    const double r = *t - (double)j / 32;
    const unsigned jm = (unsigned)((uint64_t)j % 32);
    const double tm = test_double_of_bits(vmaf_xpowf_host_exp2[jm] + ((uint64_t)jm << 47));
    const double z = fma(r, VMAF_XPOWF_C0, VMAF_XPOWF_C1);
    const double r2 = r * r;
    double q = fma(r, VMAF_XPOWF_C2, 1.0);
    q = fma(z, r2, q);
    *m = q * tm;
}

/* The fixed path (with the double steps where it does not decide) against the double steps. */
static void check_fixed(Stats *s, float x, float y)
{
    const uint32_t want = test_bits_of_float(vmaf_xpowf_with(x, y, 0));
    const uint32_t got = test_bits_of_float(vmaf_xpowf_with(x, y, 1));
    s->compared++;
    if (want != got) {
        s->differ++;
        report("fixed", x, y, want, got);
    }
    /* the proof's bounds, for positive normal x and finite non-zero y */
    const uint32_t ix = test_bits_of_float(x), iy = test_bits_of_float(y);
    if (ix - 0x00800000u >= 0x7f800000u - 0x00800000u || vmaf_xpowf_zero_inf_nan(iy))
        return;
    VmafXpowfFixedTrace tr;
    float out;
    const int decided = vmaf_xpowf_fixed(ix, iy, 0, &out, &tr);
    if (!decided)
        s->undecided++;
    if (!decided && tr.m)
        s->margin_missed++;
    if (!tr.m)
        return; /* stopped before M: |y| >= 2^8, |t| >= 125 or near a rounding of 32 t */
    double t, m;
    double_t_m(ix, y, tr.j, &t, &m);
    /* t 2^55 (truncated where |t| < 1/8), M 2^62 (an integer: M >= 0.98 has its last bit at
     * or above 2^-53) */
    const int64_t dt = llabs(tr.t - (int64_t)ldexp(t, 55));
    const uint64_t md = (uint64_t)ldexp(m, 62);
    const uint64_t dm = tr.m > md ? tr.m - md : md - tr.m;
    s->bounded++;
    if (dt > s->max_dt)
        s->max_dt = dt;
    if (dm > s->max_dm)
        s->max_dm = dm;
    /* the proof: dt < 8000 units of 2^-55, |M_A - M_d| < 1.43e6 units of 2^-62 */
    if (dt >= 8000 || dm >= 1430000) {
        if (s->bound_failures++ < 10)
            fprintf(stderr, "bound: x %a y %a: dt %lld, dm %llu\n", x, y, (long long)dt,
                    (unsigned long long)dm);
    }
}

static void check_soft(Stats *s, float x, float y)
{
    const uint32_t want = test_bits_of_float(vmaf_xpowf_with(x, y, 0));
    for (int fixed = 0; fixed < 2; fixed++) {
        const uint32_t got = test_bits_of_float(test_xpowf_soft(x, y, fixed));
        s->compared++;
        if (want != got) {
            s->differ++;
            report(fixed ? "soft, fixed first" : "soft", x, y, want, got);
        }
    }
}

static int parse_exponent(const char *s, float *y)
{
    char *end;
    errno = 0;
    const int root = strncmp(s, "1/", 2) == 0;
    const double v = strtod(root ? s + 2 : s, &end);
    if (errno || end == s || *end || (root && v == 0))
        return -EINVAL;
    *y = root ? (float)(1.0f / v) : (float)v;
    return 0;
}

static int check_pieces(void)
{
    int failed = 0;
    const struct {
        const char *name;
        double d;
        int64_t q;
    } coef[] = {
        { "A0", VMAF_XPOWF_A0, VMAF_XPOWF_A0_Q62 }, { "A1", VMAF_XPOWF_A1, VMAF_XPOWF_A1_Q62 },
        { "A2", VMAF_XPOWF_A2, VMAF_XPOWF_A2_Q62 }, { "A3", VMAF_XPOWF_A3, VMAF_XPOWF_A3_Q62 },
        { "A4", VMAF_XPOWF_A4, VMAF_XPOWF_A4_Q62 }, { "C0", VMAF_XPOWF_C0, VMAF_XPOWF_C0_Q62 },
        { "C1", VMAF_XPOWF_C1, VMAF_XPOWF_C1_Q62 }, { "C2", VMAF_XPOWF_C2, VMAF_XPOWF_C2_Q62 },
    };
    for (size_t i = 0; i < sizeof(coef) / sizeof(coef[0]); i++) {
        const double v = ldexp(coef[i].d, 62);
        if (v != floor(v) || v != (double)coef[i].q || (int64_t)v != coef[i].q) {
            fprintf(stderr, "%s_Q62 is not %a 2^62\n", coef[i].name, coef[i].d);
            failed++;
        }
    }
    /* |r*| = |z/c - 1| on each subinterval's first and last z (monotone in z) */
    long double max_r = 0;
    for (unsigned i = 0; i < 16; i++) {
        const uint32_t first = VMAF_XPOWF_LOG2_OFF + (i << 19), last = first + (1u << 19) - 1;
        for (int e = 0; e < 2; e++) {
            const uint32_t ix = e ? last : first;
            const uint32_t top = (ix - VMAF_XPOWF_LOG2_OFF) & 0xff800000u;
            const long double z = test_float_of_bits(ix - top);
            const long double r = fabsl(z * (long double)vmaf_xpowf_host_log2[2 * i] - 1);
            if (r > max_r)
                max_r = r;
        }
    }
    if (!(max_r <= 0.0313L)) {
        fprintf(stderr, "max |r*| %Lg above 0.0313\n", max_r);
        failed++;
    }
    uint64_t seed = 0x5eed;
    for (int i = 0; i < 1000000; i++) {
        uint64_t a = test_splitmix64(&seed), b = test_splitmix64(&seed);
        if (i % 4 == 1) a >>= test_splitmix64(&seed) % 64;
        if (i % 4 == 2) b = ~(b >> (test_splitmix64(&seed) % 64));
        if (vmaf_xpowf_umulhi_portable(a, b) != (uint64_t)(((unsigned __int128)a * b) >> 64) ||
            vmaf_xpowf_mulhi_portable((int64_t)a, (int64_t)b) !=
                (int64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64)) {
            if (failed++ < 10)
                fprintf(stderr, "multiply-high of %016llx %016llx\n", (unsigned long long)a,
                        (unsigned long long)b);
        }
    }
    printf("pieces: 8 coefficients, max |r*| %.6Lf, 1000000 multiply-highs: %s\n", max_r,
           failed ? "FAILED" : "ok");
    return failed;
}

/* The ADM's exponents (p and 1/p) and CIEDE's 7. */
static const char *const exponents[] = {
    "1/3", "3", "1", "2", "2.5", "4", "20", "1/1", "1/2", "1/2.5", "1/4", "1/20", "1.5", "1/1.5", "7",
};

static const uint32_t special_bits[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x00800001,
    0x3f800000, 0xbf800000, 0x3f7fffff, 0x3f800001, 0x40000000, 0xc0000000, 0x3f000000,
    0x3eaaaaab, 0x40400000, 0xc0400000, 0x3f330000, 0x3f32ffff, 0x3f7b0000, 0x3f830000,
    0x3fb30000, 0x4b000001, 0xcb000001, 0x7f7fffff, 0xff7fffff, 0x42fc0000, 0x43160000,
    0xc3160000, 0x43150000, 0xc3150000, 0x42fe0000, 0x43000000, 0x42f80000, 0xc2f80000,
    0x42fa0000, 0xc2fa0000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffffffff,
    0x41a00000, 0x3d4ccccd, 0x3e800000, 0x41c80000, 0x40e00000, 0x437f0000, 0x43800000,
    0x437fffff, 0xc37fffff, 0x00000100,
};

int main(int argc, char **argv)
{
    int a = 1;
    Stats fx = { 0 }, sf = { 0 };
    if (a < argc && !strcmp(argv[a], "--exhaustive")) {
        for (a++; a < argc; a++) {
            float y;
            if (parse_exponent(argv[a], &y) < 0) {
                fprintf(stderr, "bad exponent '%s'\n", argv[a]);
                return 2;
            }
            const uint64_t before = fx.differ, und = fx.undecided;
            for (uint64_t u = 0; u < (1ull << 32); u++)
                check_fixed(&fx, test_float_of_bits((uint32_t)u), y);
            printf("y = %s: all 2^32 x, %llu differ, %llu left to the double steps\n", argv[a],
                   (unsigned long long)(fx.differ - before),
                   (unsigned long long)(fx.undecided - und));
            fflush(stdout);
        }
    } else if (a < argc) {
        fprintf(stderr, "usage: test_xpowf_f64 [--exhaustive Y...]\n");
        return 2;
    } else {
        int failed = check_pieces();
        const size_t n_special = sizeof(special_bits) / sizeof(special_bits[0]);
        for (size_t i = 0; i < n_special; i++)
            for (size_t j = 0; j < n_special; j++) {
                const float x = test_float_of_bits(special_bits[i]);
                const float y = test_float_of_bits(special_bits[j]);
                check_fixed(&fx, x, y);
                check_soft(&sf, x, y);
            }
        for (size_t e = 0; e < sizeof(exponents) / sizeof(exponents[0]); e++) {
            float y;
            if (parse_exponent(exponents[e], &y) < 0)
                return 2;
            for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
                check_fixed(&fx, test_float_of_bits((uint32_t)u), y);
                if (u % (4099 * 64) == 0)
                    check_soft(&sf, test_float_of_bits((uint32_t)u), y);
            }
            for (uint32_t u = 0x3f7f0000; u < 0x3f810000; u++) /* around 1 */
                check_fixed(&fx, test_float_of_bits(u), y);
        }
        uint64_t seed = 0x7077f;
        for (int i = 0; i < 2000000; i++) {
            const uint64_t r = test_splitmix64(&seed);
            const float rx = test_float_of_bits((uint32_t)r);
            const float ry = test_float_of_bits((uint32_t)(r >> 32));
            const float x = test_float_of_bits((uint32_t)test_splitmix64(&seed) & 0x7fffffffu);
            const float y = (float)((double)(test_splitmix64(&seed) >> 11) * 0x1p-53 * 64 - 32);
            const float yi = (float)(int)(r % 61) - 30;
            check_fixed(&fx, rx, ry);
            check_fixed(&fx, x, y);   /* positive x, y in [-32, 32) */
            check_fixed(&fx, -x, yi); /* integer y on negative x */
            if (i % 16 == 0) {
                check_soft(&sf, rx, ry);
                check_soft(&sf, x, y);
                check_soft(&sf, -x, yi);
            }
        }
        printf("soft binary64: %llu compared, %llu differ\n", (unsigned long long)sf.compared,
               (unsigned long long)sf.differ);
        CHECK(!failed, "%d integer pieces wrong", failed);
        CHECK(!sf.differ, "the software binary64: %llu differ", (unsigned long long)sf.differ);
    }
    printf("fixed path: %llu compared, %llu differ; %llu left to the double steps (%llu of the "
           "%llu that reach M: near a float midpoint); max |dt| %lld x 2^-55 (bound 8000), max "
           "|dM| %llu x 2^-62 (bound 1.43e6), %llu beyond\n",
           (unsigned long long)fx.compared, (unsigned long long)fx.differ,
           (unsigned long long)fx.undecided, (unsigned long long)fx.margin_missed,
           (unsigned long long)fx.bounded,
           (long long)fx.max_dt, (unsigned long long)fx.max_dm,
           (unsigned long long)fx.bound_failures);
    CHECK(!fx.differ && !fx.bound_failures, "the fixed path: %llu differ, %llu beyond a bound",
          (unsigned long long)fx.differ, (unsigned long long)fx.bound_failures);
    return failures != 0;
}
