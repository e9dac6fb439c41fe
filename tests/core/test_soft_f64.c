/*
 * The software binary64 (src/feature/soft_f64.h) against the host's hardware double, bit for
 * bit, operation by operation (tests/core/soft_f64_cases.h: the operands and the rule), after
 * its integer helpers against the compiler's (portable 64x64 multiply-high against unsigned
 * __int128, portable leading-zero count against the builtin). Prints, per operation, the
 * cases, the failures, the NaN results whose payload differs from the hardware's (not a
 * failure), and how many results of add, mul and the int64 conversion were exact ties.
 *   test_soft_f64 [--count N] [--seed S]
 * Built with -ffp-contract=off (CMake's flags); the host must round to nearest. The same
 * source built with -DVMAF_SOFT_F64_MUTANT_TIES or _SUBNORMAL must fail (ctest: WILL_FAIL).
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#define TEST_MAX_PRINTED 40
#include "soft_f64_cases.h"

#define CHUNK 4096

/* whether the exact result x + err (err the rounding error, exact) is halfway between x and
 * its neighbour: the tie that the rounding decided */
static int is_tie(double x, double err)
{
    if (err == 0 || !isfinite(x) || !isfinite(err)) return 0;
    const double next = nextafter(x, err > 0 ? INFINITY : -INFINITY);
    return isfinite(next) && next - x == 2 * err;
}

static void helpers(void)
{
    static const uint64_t edges[] = { 0, 1, 2, 0xffffffff, 0x100000000ull, 0x8000000000000000ull,
                                      0xffffffffffffffffull, 0x7fffffffffffffffull,
                                      0xfffffffe00000001ull };
    unsigned bad_mul = 0, bad_clz = 0;
    for (unsigned i = 0; i < 200000; i++) {
        uint64_t a = rng64() >> (rng() % 64), b = rng64() >> (rng() % 64);
        if (i < 81) {
            a = edges[i % 9];
            b = edges[i / 9];
        }
        const unsigned __int128 p = (unsigned __int128)a * b;
        bad_mul += vmaf_f64_mul_hi_portable(a, b) != (uint64_t)(p >> 64);
        bad_mul += vmaf_f64_mul_hi(a, b) != (uint64_t)(p >> 64);
        const int want = a ? __builtin_clzll(a) : 64;
        bad_clz += vmaf_f64_clz64_portable(a) != want || vmaf_f64_clz64(a) != want;
    }
    printf("helpers: 200000 multiply-high and leading-zero counts: %u / %u wrong\n", bad_mul,
           bad_clz);
    CHECK(!bad_mul && !bad_clz, "helpers: %u multiply-high, %u leading zeros wrong", bad_mul,
          bad_clz);
}

int main(int argc, char **argv)
{
    uint64_t count = 1u << 21;
    rng_state = 0x2545f4914f6cdd1dull;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            errno = 0;
            count = strtoull(argv[++i], &end, 0);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            errno = 0;
            rng_state = strtoull(argv[++i], &end, 0);
        } else {
            fprintf(stderr, "usage: %s [--count N] [--seed S]\n", argv[0]);
            return 2;
        }
        if (errno || !end || *end) {
            fprintf(stderr, "%s: not a number: %s\n", argv[0], argv[i]);
            return 2;
        }
    }
    if (!rng_state) rng_state = 1;
    const uint64_t seed = rng_state;
    printf("seed %#" PRIx64 ", %" PRIu64 " cases x %d operations", seed, count, SOFT_F64_OPS);
#if defined(VMAF_SOFT_F64_MUTANT_TIES)
    printf(" (mutant: ties away from zero; must fail)");
#elif defined(VMAF_SOFT_F64_MUTANT_SUBNORMAL)
    printf(" (mutant: subnormal results lose their sticky bits; must fail)");
#endif
    printf("\n");
    CHECK(soft_f64_host_rounds_to_nearest(), "the host does not round to nearest");
    CHECK(FLT_EVAL_METHOD == 0, "FLT_EVAL_METHOD %d: double is not evaluated as double",
          (int)FLT_EVAL_METHOD);
    helpers();

    static SoftF64Case cases[CHUNK];
    static uint64_t got[CHUNK][SOFT_F64_OPS], want[CHUNK][SOFT_F64_OPS];
    uint64_t fails[SOFT_F64_OPS] = { 0 }, payloads[SOFT_F64_OPS] = { 0 };
    uint64_t ties_add = 0, ties_mul = 0, ties_i64 = 0;
    const clock_t start = clock();
    for (uint64_t done = 0; done < count;) {
        const size_t n = count - done < CHUNK ? (size_t)(count - done) : CHUNK;
        for (size_t j = 0; j < n; j++) soft_f64_case(done + j, &cases[j]);
        for (size_t j = 0; j < n; j++) soft_f64_apply(cases[j], got[j]);
        for (size_t j = 0; j < n; j++) soft_f64_reference(&cases[j], want[j]);
        for (size_t j = 0; j < n; j++) {
            const SoftF64Case *k = &cases[j];
            const double a = test_double_of_bits(k->a), b = test_double_of_bits(k->b);
            const double s = a + b, bb = s - a, p = a * b;
            ties_add += isfinite(a) && isfinite(b) && is_tie(s, (a - (s - bb)) + (b - bb));
            ties_mul += fabs(p) >= 0x1p-960 && is_tie(p, fma(a, b, -p));
            const int64_t iv = (int64_t)k->i;
            const double ci = (double)iv;
            ties_i64 += fabs(ci) < 0x1p62 && is_tie(ci, (double)(iv - (int64_t)ci));
            for (int op = 0; op < SOFT_F64_OPS; op++) {
                int payload;
                const int bad = soft_f64_differs(op, got[j][op], want[j][op], &payload);
                payloads[op] += payload;
                if (!bad) continue;
                fails[op]++;
                CHECK(0, "%s case %" PRIu64 ": a %#" PRIx64 " b %#" PRIx64 " c %#" PRIx64
                      " i %#" PRIx64 " f %#x n %d: soft %#" PRIx64 ", hardware %#" PRIx64,
                      soft_f64_op_name[op], done + j, k->a, k->b, k->c, k->i, k->f, k->n,
                      got[j][op], want[j][op]);
            }
        }
        done += n;
        checks += (int)(n > 0);
    }
    const double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    uint64_t total_fails = 0;
    for (int op = 0; op < SOFT_F64_OPS; op++) {
        printf("  %-10s %" PRIu64 " cases, %" PRIu64 " wrong, %" PRIu64
               " NaNs with other payloads\n", soft_f64_op_name[op], count, fails[op],
               payloads[op]);
        total_fails += fails[op];
    }
    printf("exact ties: %" PRIu64 " sums, %" PRIu64 " products, %" PRIu64
           " int64 conversions\n", ties_add, ties_mul, ties_i64);
    /* the generators must reach the ties (a sample too small to have them proves little) */
    if (count >= 10000)
        CHECK(ties_add * 100 >= count && ties_mul * 100 >= count && ties_i64 * 100 >= count,
              "too few ties: %" PRIu64 " / %" PRIu64 " / %" PRIu64, ties_add, ties_mul,
              ties_i64);
    printf("%" PRIu64 " operations in %.1f s (seed %#" PRIx64 "): %" PRIu64
           " wrong; %d checks, %d failures\n", count * SOFT_F64_OPS, seconds, seed,
           total_fails, checks, failures);
    return failures != 0;
}
