/*
 * The self-test program's arithmetic against the host's C, bit for bit: float and double
 * division, sqrt and the unfused a*b+c (FP_CONTRACT OFF on the device, -ffp-contract=off
 * here), on random operands (random bit patterns and random normal numbers) and every pair of
 * edge cases (signed zeros, subnormals, the extremes, infinities, NaN, products that are exact
 * ties). Two NaNs count as equal whatever their bits (OpenCL does not define NaN payloads);
 * how many such pairs there were is printed.
 * --report-only prints the differences without failing (for devices whose fp32 division and
 * sqrt are not correctly rounded).
 *
 * Then the kernels' spelling, vmaf_fdiv / vmaf_fsqrt (feature/dialect.h), must equal C's a / b
 * and sqrtf(a) exactly (whatever --report-only says), on --exact-cases random operands (4 Mi
 * by default) of eight kinds (any bits; normal numbers near 1; any exponents; subnormal
 * operands and results; subnormal results that are exact ties; quotients and roots within
 * 2^-44 of a float midpoint, down to about 2^-49, the closest a quotient or root of floats
 * gets without being one;
 * huge over tiny) plus every pair of edges: built with the state's options, and built with
 * -D VMAF_OPENCL_DIV_VIA_DOUBLE=1 alone (no -cl-fp32-correctly-rounded-divide-sqrt) where
 * the device has fp64 and fp32 denormals. The plain form built with neither (what a device
 * without correctly rounded division would run) is reported, not checked: on such a device
 * its differences show what the check catches.
 *   test_opencl_arith [--platform SUBSTRING] [--seed N] [--report-only] [--exact-cases N]
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "feature/bitcast.h"
#include "opencl/selftest.h"
#include "opencl/state.h"

#include "cl_device.h"
#define TEST_MAX_PRINTED 30
#include "test_util.h"

#define RANDOM_CASES 65536

static const char *const op_name[3] = { "a / b", "sqrt(a)", "a * b + c" };

static const uint32_t edge32[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00400000, 0x00800000,
    0x3f800000, 0xbf800000, 0x40400000, 0x3dcccccd, 0x3f800800 /* 1 + 2^-12 */,
    0x3f800001, 0x3fffffff, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
    0x0d000000, 0x72800000, 0x40e00000, 0x3f000001, 0x3fc00000,
};
static const uint64_t edge64[] = {
    0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001,
    0x000fffffffffffff, 0x0008000000000000, 0x0010000000000000, 0x3ff0000000000000,
    0xbff0000000000000, 0x4008000000000000, 0x3fb999999999999a,
    0x3ff0000008000000 /* 1 + 2^-27 */, 0x3ff0000000000001, 0x3fffffffffffffff,
    0x7fefffffffffffff, 0xffefffffffffffff, 0x7ff0000000000000, 0xfff0000000000000,
    0x7ff8000000000000, 0x1a00000000000000, 0x5fe0000000000000, 0x401c000000000000,
    0x3fe0000000000001, 0x3ff8000000000000,
};
#define EDGES (sizeof(edge32) / sizeof(edge32[0]))
_Static_assert(sizeof(edge64) / sizeof(edge64[0]) == EDGES, "edge lists");

static unsigned nan_pairs;

/* Compare n results of one operation; the number that differ. */
static unsigned compare(int fp64, int op, const void *a, const void *b, const void *c,
                        const void *dev, const void *host, size_t n, int report_only)
{
    unsigned diff = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = 0, y = 0, va = 0, vb = 0, vc = 0;
        int nan_x, nan_y;
        const size_t sz = fp64 ? 8 : 4;
        memcpy(&x, (const char *)dev + i * sz, sz);
        memcpy(&y, (const char *)host + i * sz, sz);
        memcpy(&va, (const char *)a + i * sz, sz);
        memcpy(&vb, (const char *)b + i * sz, sz);
        memcpy(&vc, (const char *)c + i * sz, sz);
        if (fp64) {
            nan_x = isnan(vmaf_double_of_bits(x));
            nan_y = isnan(vmaf_double_of_bits(y));
        } else {
            nan_x = isnan(vmaf_float_of_bits((uint32_t)x));
            nan_y = isnan(vmaf_float_of_bits((uint32_t)y));
        }
        if (nan_x && nan_y) {
            nan_pairs += x != y;
            continue;
        }
        if (x == y) continue;
        diff++;
        if (report_only && diff > 5) continue;
        CHECK(report_only, "%s %s: a %#llx b %#llx c %#llx: device %#llx, C %#llx",
              fp64 ? "double" : "float", op_name[op], (unsigned long long)va,
              (unsigned long long)vb, (unsigned long long)vc, (unsigned long long)x,
              (unsigned long long)y);
        if (report_only)
            printf("  %s %s: a %#llx b %#llx c %#llx: device %#llx, C %#llx\n",
                   fp64 ? "double" : "float", op_name[op], (unsigned long long)va,
                   (unsigned long long)vb, (unsigned long long)vc, (unsigned long long)x,
                   (unsigned long long)y);
    }
    return diff;
}

/* The operands: every pair of edges (c cycling through them), then random ones. */
static size_t operands(int fp64, void *a, void *b, void *c)
{
    size_t n = 0;
    for (size_t i = 0; i < EDGES; i++)
        for (size_t j = 0; j < EDGES; j++, n++) {
            const size_t k = (i * 7 + j * 3) % EDGES;
            if (fp64) {
                ((double *)a)[n] = vmaf_double_of_bits(edge64[i]);
                ((double *)b)[n] = vmaf_double_of_bits(edge64[j]);
                ((double *)c)[n] = vmaf_double_of_bits(edge64[k]) * (k & 1 ? -1 : 1);
            } else {
                ((float *)a)[n] = vmaf_float_of_bits(edge32[i]);
                ((float *)b)[n] = vmaf_float_of_bits(edge32[j]);
                ((float *)c)[n] = vmaf_float_of_bits(edge32[k]) * (k & 1 ? -1 : 1);
            }
        }
    for (size_t r = 0; r < RANDOM_CASES; r++, n++) {
        const int any_bits = r & 1; /* any pattern, or a normal number near 1 */
        for (int w = 0; w < 3; w++) {
            void *dst = w == 0 ? a : w == 1 ? b : c;
            if (fp64) {
                uint64_t bits = (uint64_t)rng() << 32 | rng();
                if (!any_bits) bits = (bits & 0x800fffffffffffffull) | (uint64_t)(0x3f0 + rng() % 32) << 52;
                ((double *)dst)[n] = vmaf_double_of_bits(bits);
            } else {
                uint32_t bits = rng() << 16 ^ rng();
                if (!any_bits) bits = (bits & 0x807fffffu) | (uint32_t)(112 + rng() % 32) << 23;
                ((float *)dst)[n] = vmaf_float_of_bits(bits);
            }
        }
    }
    return n;
}

static int run(VmafOpenCLState *s, int fp64, int report_only, unsigned diff[3])
{
    const size_t cap = EDGES * EDGES + RANDOM_CASES, sz = fp64 ? 8 : 4;
    char *mem = calloc(9 * cap, sz);
    if (!mem) return -ENOMEM;
    char *a = mem, *b = a + cap * sz, *c = b + cap * sz, *dev[3], *host[3];
    for (int i = 0; i < 3; i++) {
        dev[i] = c + (1 + i) * cap * sz;
        host[i] = c + (4 + i) * cap * sz;
    }
    const size_t n = operands(fp64, a, b, c);
    for (size_t i = 0; i < n; i++) {
        if (fp64) {
            const double x = ((double *)a)[i], y = ((double *)b)[i], z = ((double *)c)[i];
            ((double *)host[0])[i] = x / y;
            ((double *)host[1])[i] = sqrt(x);
            ((double *)host[2])[i] = x * y + z;
        } else {
            const float x = ((float *)a)[i], y = ((float *)b)[i], z = ((float *)c)[i];
            ((float *)host[0])[i] = x / y;
            ((float *)host[1])[i] = sqrtf(x);
            ((float *)host[2])[i] = x * y + z;
        }
    }
    const int kind = fp64 ? VMAF_OPENCL_SELFTEST_DOUBLE : VMAF_OPENCL_SELFTEST_FLOAT;
    const int err = vmaf_opencl_selftest(s, kind, a, b, c, dev[0], dev[1], dev[2], n);
    if (!err)
        for (int op = 0; op < 3; op++)
            diff[op] = compare(fp64, op, a, b, c, dev[op], host[op], n, report_only);
    printf("%s: %zu cases: %u / %u / %u differ (%s / %s / %s)%s\n", fp64 ? "double" : "float",
           n, diff[0], diff[1], diff[2], op_name[0], op_name[1], op_name[2],
           err ? " (did not run)" : "");
    free(mem);
    return err;
}

/* ---- vmaf_fdiv / vmaf_fsqrt: exact under every build option ------------------------------ */

#define EXACT_CHUNK (1u << 18)

/* s with s^2 == r (mod 2^k), s odd; r == 1 (mod 8), k >= 3 (Hensel: bit by bit) */
static uint64_t sqrt_mod_pow2(uint64_t r, int k)
{
    uint64_t s = 1;
    for (int i = 3; i < k; i++)
        if (((s * s - r) >> i) & 1) s += (uint64_t)1 << (i - 1);
    return s & (((uint64_t)1 << k) - 1);
}

/* a float with the integer significand m (< 2^24) times 2^e, e such that it stays finite */
static float scaled(uint64_t m, int e)
{
    return ldexpf((float)m, e);
}

/* A float of random sign and significand with the exponent field e (0: subnormal or zero). */
static float with_exponent(uint32_t e)
{
    return vmaf_float_of_bits(((rng() << 16 ^ rng()) & 0x807fffffu) | e << 23);
}

/* One operand triple of kind `kind` (see the top of this file). */
static void exact_operands(unsigned kind, float *a, float *b, float *c)
{
    *c = vmaf_float_of_bits(rng() << 16 ^ rng());
    switch (kind) {
    case 0: /* any bits: NaN, infinities, zeros, subnormals included */
        *a = vmaf_float_of_bits(rng() << 16 ^ rng());
        *b = vmaf_float_of_bits(rng() << 16 ^ rng());
        break;
    case 1: /* normal numbers near 1 */
        *a = with_exponent(112 + rng() % 32);
        *b = with_exponent(112 + rng() % 32);
        break;
    case 2: /* any finite exponents, subnormal ones included: overflow and underflow */
        *a = with_exponent(rng() % 255);
        *b = with_exponent(rng() % 255);
        break;
    case 3: /* subnormal or tiny over normal: subnormal quotients, roots of subnormals */
        *a = with_exponent(rng() % 8);
        *b = with_exponent(100 + rng() % 60);
        break;
    case 4: { /* k 2^-149 / 2^j: subnormal results that are exact ties (to even) */
        const uint32_t k = 1 + rng() % 4096;
        *a = vmaf_float_of_bits(k | (rng() & 1) << 31);
        *b = vmaf_float_of_bits((127u + 1 + rng() % 6) << 23 | (rng() & 1) << 31);
        break;
    }
    case 5: { /* a / b within about 2^-49 of a midpoint M 2^-25: a 2^25 = M b + r, r odd,
               * small */
        uint64_t bi, m;
        int64_t r;
        do {
            bi = (1u << 23) | (rng() & 0x7fffffu) | 1; /* odd: invertible mod 2^25 */
            r = (int64_t)(rng() % 15) - 7;
            r |= 1;
            uint64_t inv = 1; /* b^-1 mod 2^25 by Newton */
            for (int i = 0; i < 5; i++) inv *= 2 - bi * inv;
            m = ((uint64_t)(-r) * inv) & ((1u << 25) - 1);
        } while (m < (1u << 24)); /* a 25-bit odd M: a float midpoint */
        const uint64_t ai = (m * bi + (uint64_t)r) >> 25; /* exact: M b + r = 0 mod 2^25 */
        const int ea = (int)(rng() % 150) - 90, eb = (int)(rng() % 80) - 40;
        *a = scaled(ai, ea);
        *b = scaled(bi, eb);
        if (rng() & 1) *a = -*a;
        break;
    }
    case 6: { /* sqrt(a) within about 2^-49 of a midpoint: M^2 = a 2^26 + r, r = 1 (mod 8) small */
        uint64_t m, ai;
        do {
            const int64_t r = 1 + 8 * ((int64_t)(rng() % 5) - 2);
            m = sqrt_mod_pow2((uint64_t)r & ((1ull << 26) - 1), 26);
            if (m >= (1u << 25)) m = (1ull << 26) - m; /* -m: a root below 2^25 */
            if (m < (1u << 24)) m = (1u << 25) - m;    /* 2^25 - m: one of 25 bits */
            ai = (m * m - (uint64_t)r) >> 26;          /* exact, below 2^24 */
        } while (!ai);
        *a = scaled(ai, 2 * ((int)(rng() % 110) - 60));
        *b = with_exponent(112 + rng() % 32);
        break;
    }
    default: /* huge over tiny and tiny over huge, near the overflow threshold */
        *a = vmaf_float_of_bits((rng() & 0x7fffffu) | (240 + rng() % 15) << 23);
        *b = vmaf_float_of_bits((rng() & 0x7fffffu) | (rng() % 130) << 23);
        if (rng() & 1) {
            const float t = *a;
            *a = *b;
            *b = t;
        }
        if (rng() & 1) *b = vmaf_float_of_bits(0x3f7fffffu - rng() % 4); /* FLT_MAX / (1-) */
        break;
    }
}

/* Whether q (a normal float's range) lies within 2^-44 relative of a float midpoint without
 * being one: the cases that kinds 5 and 6 aim at, where a rounding in between would matter. */
static int near_midpoint(double q)
{
    q = fabs(q);
    if (!(q >= FLT_MIN && q <= FLT_MAX)) return 0;
    int e;
    frexp(q, &e);                   /* q in [2^(e-1), 2^e) */
    const double half_ulp = ldexp(1.0, e - 1 - 24); /* float midpoints: odd multiples */
    const double k = floor(q / half_ulp);           /* exact: a power-of-two scaling */
    const double below = k * half_ulp, above = below + half_ulp;
    const double mid = fmod(k, 2.0) == 1.0 ? below : above;
    return q != mid && fabs(q - mid) <= ldexp(q, -44);
}

/* vmaf_fdiv / vmaf_fsqrt on device dev built with `options` (a fresh state, so that no
 * program built with other options is reused): the number of results unlike C's. */
static int exact_run(int dev, const char *options, size_t cases, const char *label, int check,
                     unsigned *differ)
{
    VmafOpenCLState *s = NULL;
    int err = vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = dev });
    if (err) return err;
    snprintf(s->build_options, sizeof(s->build_options), "%s", options);
    float *mem = calloc((size_t)9 * EXACT_CHUNK, sizeof(float));
    if (!mem) {
        vmaf_opencl_state_free(s);
        return -ENOMEM;
    }
    float *a = mem, *b = a + EXACT_CHUNK, *c = b + EXACT_CHUNK, *dev_out[3], *host[3];
    for (int i = 0; i < 3; i++) {
        dev_out[i] = c + (1 + i) * EXACT_CHUNK;
        host[i] = c + (4 + i) * EXACT_CHUNK;
    }
    unsigned diff[3] = { 0 };
    size_t near[2] = { 0, 0 }, aimed[2] = { 0, 0 };
    const uint64_t seed = rng_state;
    size_t done = 0;
    for (int first = 1; !err && (first || done < cases); first = 0) {
        size_t n = 0;
        if (first) { /* every pair of edges, and their negations */
            for (size_t i = 0; i < EDGES; i++)
                for (size_t j = 0; j < EDGES; j++, n++) {
                    a[n] = vmaf_float_of_bits(edge32[i]);
                    b[n] = vmaf_float_of_bits(edge32[j] ^ (i & 1u) << 31);
                    c[n] = vmaf_float_of_bits(edge32[(i * 7 + j * 3) % EDGES]);
                }
        }
        for (; n < EXACT_CHUNK && done < cases; n++, done++) {
            const unsigned kind = done % 8;
            exact_operands(kind, &a[n], &b[n], &c[n]);
            if (kind == 5) near[0] += near_midpoint((double)a[n] / b[n]), aimed[0]++;
            if (kind == 6) near[1] += near_midpoint(sqrt((double)a[n])), aimed[1]++;
        }
        for (size_t i = 0; i < n; i++) {
            host[0][i] = a[i] / b[i];
            host[1][i] = sqrtf(a[i]);
            host[2][i] = a[i] * b[i] + c[i];
        }
        err = vmaf_opencl_selftest(s, VMAF_OPENCL_SELFTEST_FDIV, a, b, c, dev_out[0], dev_out[1],
                                   dev_out[2], n);
        for (int op = 0; !err && op < 3; op++)
            diff[op] += compare(0, op, a, b, c, dev_out[op], host[op], n, !check);
    }
    printf("vmaf_fdiv/vmaf_fsqrt %s (\"%s\"): %zu random cases (seed %#llx) and %zu edge "
           "pairs: %u / %u / %u differ (%s / %s / %s)%s%s\n",
           label, options, cases, (unsigned long long)seed, EDGES * EDGES, diff[0], diff[1],
           diff[2], op_name[0], op_name[1], op_name[2], check ? "" : " (reported only)",
           err ? " (did not run)" : "");
    printf("  within 2^-44 of a float midpoint: %zu of %zu quotients, %zu of %zu roots aimed "
           "there\n", near[0], aimed[0], near[1], aimed[1]);
    /* the generators must reach the hard cases (some of the scaled ones turn subnormal) */
    CHECK(near[0] * 2 >= aimed[0] && near[1] * 2 >= aimed[1],
          "near-midpoint cases: %zu / %zu, %zu / %zu", near[0], aimed[0], near[1], aimed[1]);
    *differ = diff[0] + diff[1] + diff[2];
    free(mem);
    vmaf_opencl_state_free(s);
    return err;
}

int main(int argc, char **argv)
{
    const char *platform = "Portable Computing Language";
    int report_only = 0;
    size_t exact_cases = (size_t)1 << 22;
    rng_state = 0x9e3779b97f4a7c15ull;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--platform") && i + 1 < argc) platform = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng_state = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--report-only")) report_only = 1;
        else if (!strcmp(argv[i], "--exact-cases") && i + 1 < argc)
            exact_cases = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s [--platform S] [--seed N] [--report-only] "
                            "[--exact-cases N]\n", argv[0]);
            return 2;
        }
    }
    if (!rng_state) rng_state = 1;
    printf("seed %#llx\n", (unsigned long long)rng_state);
    VmafOpenCLDeviceInfo info;
    const int dev = test_opencl_device(platform, &info);
    if (dev < 0) return 77;
    printf("device %d: %s / %s, driver %s, fp64 %d, correctly rounded div/sqrt %d, "
           "fp32 denormals %d\n", dev, info.platform, info.name, info.driver_version, info.fp64,
           info.correctly_rounded_divide_sqrt, info.fp32_denormals);
    VmafOpenCLState *s = NULL;
    int err = vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = dev });
    CHECK(!err, "state_init: %d", err);
    if (err) return 1;
    unsigned d32[3] = { 0 }, d64[3] = { 0 };
    err = run(s, 0, report_only, d32);
    CHECK(!err, "float self-test: %d", err);
    if (info.fp64) {
        err = run(s, 1, report_only, d64);
        CHECK(!err, "double self-test: %d", err);
    } else {
        printf("double: not run (the device has no fp64)\n");
    }
    const enum VmafOpenCLDivision division = s->division;
    vmaf_opencl_state_free(s);

    printf("division: %s\n", vmaf_opencl_division_name(division));
    unsigned differ = 0;
    err = exact_run(dev, vmaf_opencl_division_options(division), exact_cases,
                    "with the state's options", 1, &differ);
    CHECK(!err && !differ, "vmaf_fdiv/vmaf_fsqrt with the state's options: %d, %u differ",
          err, differ);
    /* the form of a device with neither correctly rounded division nor fp64: on any device */
    err = exact_run(dev, vmaf_opencl_division_options(VMAF_OPENCL_DIVISION_VIA_SOFT_F64),
                    exact_cases / 4, "via software double", 1, &differ);
    CHECK(!err && !differ, "vmaf_fdiv/vmaf_fsqrt via software double: %d, %u differ", err,
          differ);
    if (info.fp64 && info.fp32_denormals) {
        err = exact_run(dev, vmaf_opencl_division_options(VMAF_OPENCL_DIVISION_VIA_DOUBLE),
                        exact_cases, "via double", 1, &differ);
        CHECK(!err && !differ, "vmaf_fdiv/vmaf_fsqrt via double: %d, %u differ", err, differ);
    } else {
        printf("vmaf_fdiv/vmaf_fsqrt via double: not run (fp64 %d, fp32 denormals %d)\n",
               info.fp64, info.fp32_denormals);
    }
    err = exact_run(dev, "", exact_cases, "plain, no option", 0, &differ);
    CHECK(!err, "vmaf_fdiv/vmaf_fsqrt plain: %d", err);
    printf("NaN results with other bits than C's (not counted): %u\n", nan_pairs);
    printf("%s: float %u differences, double %u%s; %d checks, %d failures\n", info.name,
           d32[0] + d32[1] + d32[2], d64[0] + d64[1] + d64[2],
           report_only ? " (reported only)" : "", checks, failures);
    return failures != 0;
}
