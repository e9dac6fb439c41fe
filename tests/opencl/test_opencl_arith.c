/*
 * The self-test program's arithmetic against the host's C, bit for bit: float and double
 * division, sqrt and the unfused a*b+c (FP_CONTRACT OFF on the device, -ffp-contract=off
 * here), on random operands (random bit patterns and random normal numbers) and every pair of
 * edge cases (signed zeros, subnormals, the extremes, infinities, NaN, products that are exact
 * ties). Two NaNs count as equal whatever their bits (OpenCL does not define NaN payloads);
 * how many such pairs there were is printed.
 *   test_opencl_arith [--platform SUBSTRING] [--seed N] [--report-only]
 * --report-only prints the differences without failing (for devices whose fp32 division and
 * sqrt are not correctly rounded).
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
    const int err = vmaf_opencl_selftest(s, fp64, a, b, c, dev[0], dev[1], dev[2], n);
    if (!err)
        for (int op = 0; op < 3; op++)
            diff[op] = compare(fp64, op, a, b, c, dev[op], host[op], n, report_only);
    printf("%s: %zu cases: %u / %u / %u differ (%s / %s / %s)%s\n", fp64 ? "double" : "float",
           n, diff[0], diff[1], diff[2], op_name[0], op_name[1], op_name[2],
           err ? " (did not run)" : "");
    free(mem);
    return err;
}

int main(int argc, char **argv)
{
    const char *platform = "Portable Computing Language";
    int report_only = 0;
    rng_state = 0x9e3779b97f4a7c15ull;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--platform") && i + 1 < argc) platform = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng_state = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--report-only")) report_only = 1;
        else {
            fprintf(stderr, "usage: %s [--platform S] [--seed N] [--report-only]\n", argv[0]);
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
    vmaf_opencl_state_free(s);
    printf("NaN results with other bits than C's (not counted): %u\n", nan_pairs);
    printf("%s: float %u differences, double %u%s; %d checks, %d failures\n", info.name,
           d32[0] + d32[1] + d32[2], d64[0] + d64[1] + d64[2],
           report_only ? " (reported only)" : "", checks, failures);
    return failures != 0;
}
