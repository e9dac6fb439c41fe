/*
 * exact_sum: the binade method (feature/exact_sum.h) against the serial float loop, bit for
 * bit, on seeded sequences built to break it: zeros, huge dynamic range, deliberate ties in
 * the accumulator's binade, terms that land the accumulator exactly on a power of two,
 * subnormals, overflow to +inf, psnr_hvs-like squares, terms outside the contract. Also the
 * pieces: the integer rounding of one term against a real float addition, the branch-free tie
 * mask against the tie binade, chunk simulations against composed terms and their 32-bit
 * packing. And that the method is exercised: summaries used, few tiles walked on a plane.
 *
 *   test_exact_sum [--seed N] [--cases N] [--long N]
 *
 * On failure it prints the base seed and the case index, seed, kind and size; rerun with
 * --seed to reproduce. tests/checktwin/exact_sum_gpu_test.cu includes this file (with
 * EXACT_SUM_TEST_NO_MAIN) to feed the GPU the same sequences.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/exact_sum.h"

typedef struct ExactSumRng {
    uint64_t s;
} ExactSumRng;

static uint64_t es_next(ExactSumRng *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t es_below(ExactSumRng *r, uint32_t n) /* n >= 1 */
{
    return (uint32_t)(es_next(r) % n);
}

static float es_uniform(ExactSumRng *r) /* [0, 1) */
{
    return (float)(es_next(r) >> 40) * (1.f / 16777216.f);
}

/** A float of magnitude 2^[lo_exp, hi_exp) with random significand. */
static float es_log_uniform(ExactSumRng *r, int lo_exp, int hi_exp)
{
    const int e = lo_exp + (int)es_below(r, (uint32_t)(hi_exp - lo_exp));
    return ldexpf(1.f + es_uniform(r), e);
}

enum ExactSumKind {
    ES_ZEROS,        /* +0 and -0 only */
    ES_LEADING_ZEROS, /* a long run of zeros, then psnr_hvs-like terms */
    ES_RANGE,        /* magnitudes 1e-30 .. 1e30, some zeros */
    ES_TIES,         /* (m + 1/2) ulps of the running accumulator, built deliberately */
    ES_FEW_BITS,     /* odd * 2^k: ties in many binades, both parities */
    ES_BOUNDARY,     /* land exactly on powers of two, half ulps, the doubling step */
    ES_SUBNORMAL,    /* subnormal terms (and the first normal binade) */
    ES_PSNR,         /* squares of weighted DCT differences: blocks of 64, many zeros */
    ES_BITS,         /* uniform non-negative finite bit patterns: overflows to +inf */
    ES_BIG_SMALL,    /* a few huge terms among small ones: absorption, identity tiles */
    ES_NEAR_HALF,    /* just below / at / above half an ulp of the accumulator */
    ES_NEGATIVE,     /* outside the contract: a few negative terms (serial fallback) */
    ES_KINDS
};

static const char *const es_kind_name[ES_KINDS] = {
    "zeros", "leading_zeros", "range", "ties", "few_bits", "boundary",
    "subnormal", "psnr", "bits", "big_small", "near_half", "negative",
};

typedef struct ExactSumCase {
    uint64_t seed;
    int kind;
    size_t n;
    float acc0;
} ExactSumCase;

/** One psnr_hvs-like term: (weighted excess)^2 in float, or 0. */
static float es_psnr_term(ExactSumRng *r, int k, float scale)
{
    const float csf = 0.1f + 2.5f * es_uniform(r);
    if (k == 0) { /* DC: plain difference, never masked */
        const float err = (float)es_below(r, 64);
        const float we = err * csf;
        return we * we;
    }
    if (es_below(r, 10) < 7) return 0.f; /* masked */
    const float err = scale * es_uniform(r);
    const float we = err * csf;
    return we * we;
}

/** Units of the running accumulator's binade, as a float (ulp), for builders that aim. */
static float es_ulp_of(float acc)
{
    const uint32_t b = vmaf_bits_of_float(acc);
    return exact_sum_walkable(b) ? exact_sum_ulp(exact_sum_binade(b)) : 1.f;
}

/** A term that is exactly (m + 1/2) ulps of acc's binade, or 0 if not representable. */
static float es_tie_for(ExactSumRng *r, float acc)
{
    const uint32_t bits = vmaf_bits_of_float(acc);
    if (!exact_sum_walkable(bits) || exact_sum_binade(bits) < 2) return 0.f;
    const float half_ulp = es_ulp_of(acc) * 0.5f;
    /* mostly small m; large m (terms comparable to acc) rarely, or acc would overflow */
    const uint32_t pick = es_below(r, 1u << 16);
    const uint32_t m = pick == 0 ? es_below(r, 1u << 22)
                     : pick < 64 ? es_below(r, 4096)
                     : pick < 32768 ? 0 : es_below(r, 8);
    return (float)(2 * m + 1) * half_ulp; /* exact: 2m + 1 < 2^24, times a power of two */
}

static void es_case_fill(const ExactSumCase *c, float *t)
{
    ExactSumRng r = { c->seed ^ 0x5bd1e995ull };
    const size_t n = c->n;
    float acc = c->acc0; /* running serial sum, for builders that aim at it */
    float scale = es_log_uniform(&r, -4, 12);
    size_t i;
    switch (c->kind) {
    case ES_ZEROS:
        for (i = 0; i < n; i++) t[i] = es_below(&r, 8) ? 0.f : -0.f;
        return;
    case ES_LEADING_ZEROS: {
        const size_t z = n ? es_below(&r, (uint32_t)n + 1) : 0;
        for (i = 0; i < n; i++) t[i] = i < z ? 0.f : es_psnr_term(&r, (int)(i & 63), scale);
        return;
    }
    case ES_RANGE:
        for (i = 0; i < n; i++)
            t[i] = es_below(&r, 5) ? es_log_uniform(&r, -100, 100) : 0.f;
        return;
    case ES_PSNR:
        for (i = 0; i < n; i++) {
            if ((i & 63) == 0 && es_below(&r, 64) == 0) scale = es_log_uniform(&r, -4, 12);
            t[i] = es_psnr_term(&r, (int)(i & 63), scale);
        }
        return;
    case ES_FEW_BITS: {
        const int base = (int)es_below(&r, 60) - 30;
        for (i = 0; i < n; i++) {
            const uint32_t odd = 2 * es_below(&r, es_below(&r, 2) ? 4 : 512) + 1;
            t[i] = es_below(&r, 6) ? ldexpf((float)odd, base + (int)es_below(&r, 24)) : 0.f;
        }
        return;
    }
    case ES_SUBNORMAL:
        for (i = 0; i < n; i++) {
            const uint32_t pick = es_below(&r, 16);
            uint32_t bits = pick < 10 ? 1 + es_below(&r, 1u << (1 + es_below(&r, 23)))
                          : pick < 13 ? 0 : 0x800000u + es_below(&r, 0x1000000u);
            t[i] = vmaf_float_of_bits(bits);
        }
        return;
    case ES_BITS: { /* half the cases reach +inf, half stay below 1e35 */
        const uint32_t top = es_below(&r, 2) ? EXACT_SUM_INF_BITS : vmaf_bits_of_float(1e30f);
        for (i = 0; i < n; i++) t[i] = vmaf_float_of_bits((uint32_t)(es_next(&r) % top));
        return;
    }
    case ES_BIG_SMALL: {
        const uint32_t every = 1 + es_below(&r, 50000);
        for (i = 0; i < n; i++)
            t[i] = es_below(&r, every) ? es_log_uniform(&r, -10, 10) : es_log_uniform(&r, 30, 90);
        return;
    }
    case ES_NEGATIVE:
        for (i = 0; i < n; i++) {
            t[i] = es_psnr_term(&r, (int)(i & 63), scale);
            if (es_below(&r, 5000) == 0) t[i] = -es_log_uniform(&r, -20, 20);
        }
        return;
    default: /* builders that follow the serial accumulator */
        break;
    }
    for (i = 0; i < n; i++) {
        const float u = es_ulp_of(acc);
        float v = 0.f;
        if (c->kind == ES_TIES) {
            v = es_below(&r, 3) ? es_tie_for(&r, acc) : es_psnr_term(&r, (int)(i & 63), scale);
        } else if (c->kind == ES_NEAR_HALF) {
            const float half = u * 0.5f;
            switch (es_below(&r, 6)) {
            case 0: v = half; break;
            case 1: v = nextafterf(half, 0.f); break;
            case 2: v = nextafterf(half, INFINITY); break;
            case 3: v = half * 3.f; break;
            case 4: v = 0.f; break;
            default: v = es_log_uniform(&r, -8, 8); break;
            }
        } else { /* ES_BOUNDARY */
            const uint32_t bits = vmaf_bits_of_float(acc);
            const int walk = exact_sum_walkable(bits);
            const int b = walk ? exact_sum_binade(bits) : 1;
            const uint32_t units = walk ? exact_sum_units(bits, b) : 0;
            const float top = walk ? exact_sum_from_units(b, EXACT_SUM_UNITS_END) : 1.f;
            /* each event that lands on the top (or doubles) climbs a binade: they are kept
             * rare enough (1 in 1024 terms) that 100000 terms stay finite */
            static const int land[4] = { 0, 1, 4, 7 }, aim[9] = { 2, 3, 5, 6, 8, 17, 18, 3, 2 };
            const int event = es_below(&r, 1024) == 0 ? land[es_below(&r, 4)]
                            : es_below(&r, 4) == 0    ? aim[es_below(&r, 9)]
                                                      : 9;
            switch (event) {
            case 0: v = top - acc; break;                   /* exactly onto 2^k */
            case 1: v = acc; break;                         /* doubling */
            case 2: v = u; break;
            case 3: v = u * 0.5f; break;                    /* tie, m = 0 */
            case 4: v = (top - acc) - u * 0.5f; break;      /* tie just below the top */
            case 5: v = ldexpf(1.f, (int)es_below(&r, 40) - 30); break;
            case 6: v = walk && units > (1u << 23) + 2 ? u * 2.f : u; break;
            case 7: v = nextafterf(top - acc, 0.f); break;  /* one ulp short of the top */
            case 8: v = 0.f; break;
            case 17: v = u * 1.5f; break;                   /* tie, m = 1 */
            case 18: v = nextafterf(u * 0.5f, 0.f); break;
            default: v = es_log_uniform(&r, -6, 6); break;
            }
            if (!(v >= 0.f) || isinf(v)) v = 0.f;
        }
        t[i] = v;
        acc += v;
    }
}

/** The case_index-th case of a run: kind, size and start drawn from the base seed. */
static ExactSumCase es_case_make(uint64_t base_seed, unsigned case_index)
{
    ExactSumRng r = { base_seed * 0x100000001b3ull + case_index };
    ExactSumCase c;
    c.seed = es_next(&r);
    c.kind = (int)(case_index % ES_KINDS);
    switch (es_below(&r, 6)) {
    case 0: c.n = es_below(&r, 101); break;
    case 1: c.n = (size_t)EXACT_SUM_TILE * (1 + es_below(&r, 24)) + es_below(&r, 3) - 1; break;
    case 2: c.n = (size_t)EXACT_SUM_CHUNK * es_below(&r, 600) + es_below(&r, 2); break;
    default: c.n = es_below(&r, 100001); break;
    }
    c.acc0 = 0.f;
    switch (es_below(&r, 8)) {
    case 0: c.acc0 = es_log_uniform(&r, -20, 40); break;
    case 1: c.acc0 = vmaf_float_of_bits(es_below(&r, EXACT_SUM_INF_BITS)); break;
    case 2: c.acc0 = -0.f; break;
    default: break;
    }
    return c;
}

/** A case of n terms (the long runs). */
static ExactSumCase es_case_long(uint64_t base_seed, unsigned index, size_t n)
{
    static const int kinds[] = { ES_PSNR, ES_TIES, ES_RANGE, ES_LEADING_ZEROS, ES_FEW_BITS };
    ExactSumCase c = es_case_make(base_seed ^ 0xabcdefull, index);
    c.kind = kinds[index % (sizeof(kinds) / sizeof(kinds[0]))];
    c.n = n;
    c.acc0 = 0.f;
    return c;
}

static int es_same(float a, float b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

#ifndef EXACT_SUM_TEST_NO_MAIN

#define TEST_MAX_PRINTED 20
#include "test_util.h"

/* One addition in a binade: the run of one term applied to an accumulator must be the float
 * addition whenever it stays in the binade, and must say "crosses" otherwise. */
static void test_one_term(uint64_t seed)
{
    ExactSumRng r = { seed };
    unsigned ties = 0, crossings = 0;
    for (int k = 0; k < 2000000; k++) {
        const int b = 1 + (int)es_below(&r, 254);
        const uint32_t lo_units = b == 1 ? 0 : 1u << 23;
        const uint32_t units = lo_units + es_below(&r, EXACT_SUM_UNITS_END - lo_units);
        const float acc = exact_sum_from_units(b, units);
        float t;
        const float u = exact_sum_ulp(b);
        switch (es_below(&r, 5)) {
        case 0: t = vmaf_float_of_bits(es_below(&r, EXACT_SUM_INF_BITS)); break;
        case 1: t = u * (float)es_below(&r, 64) * 0.5f; break;            /* ties and integers */
        case 2: t = ldexpf((float)(2 * es_below(&r, 1u << 20) + 1),        /* tie of any m */
                           (int)es_below(&r, 50) - 25) * u; break;
        case 3: t = u * ldexpf(1.f + es_uniform(&r), (int)es_below(&r, 30) - 24); break;
        default: t = 0.f; break;
        }
        if (!(t >= 0.f) || isinf(t)) t = 0.f;
        const uint32_t tb = vmaf_bits_of_float(t);
        int tie;
        exact_sum_round_term(tb, b, &tie);
        CHECK(tie == (exact_sum_tie_binade(tb) == b && tb != 0), "tie binade t=%a b=%d", t, b);
        ties += tie;
        /* the branch-free tie mask the tile summaries use, for any lo the term can meet */
        if (tb) {
            int e;
            exact_sum_significand(tb, &e);
            const int lo = e - 1 + (int)es_below(&r, 30);
            const uint32_t mask = exact_sum_tie_bit(tb, lo);
            const int want = exact_sum_tie_binade(tb) - lo;
            CHECK(want < 0 || want >= 32 ? mask == 0 : mask == 1u << want,
                  "tie bit t=%a lo=%d: 0x%x", t, lo, mask);
        }
        CHECK(exact_sum_tie_bit(0x80000000u, b) == 0, "tie bit of -0");
        const ExactSumRun run = exact_sum_term_run(tb, b);
        const uint32_t end = exact_sum_apply(run, units);
        const float sum = acc + t;
        if (end < EXACT_SUM_UNITS_END) {
            CHECK(es_same(exact_sum_from_units(b, end), sum), "acc=%a t=%a b=%d", acc, t, b);
            /* and the simulation from the lowest start agrees */
            const ExactSumRun sim = exact_sum_chunk_run(&t, 1, b, 1);
            CHECK(sim.add_even == run.add_even && sim.add_odd == run.add_odd,
                  "sim t=%a b=%d: %u/%u vs %u/%u", t, b, sim.add_even, sim.add_odd,
                  run.add_even, run.add_odd);
        } else {
            crossings++;
            CHECK(vmaf_bits_of_float(sum) >= ((uint32_t)b + 1) << 23, "no crossing acc=%a t=%a", acc,
                  t);
        }
    }
    CHECK(ties > 10000 && crossings > 10000, "weak coverage: %u ties, %u crossings", ties,
          crossings);
}

/* A chunk simulated in float equals its terms' runs composed (where it stays in the binade),
 * and with_odd = 0 is only a shortcut where no term is a tie. */
static void test_chunks(uint64_t seed)
{
    ExactSumRng r = { seed };
    float t[EXACT_SUM_CHUNK];
    unsigned differ = 0;
    for (int k = 0; k < 300000; k++) {
        const int b = 1 + (int)es_below(&r, 254);
        const float u = exact_sum_ulp(b);
        const int n = 1 + (int)es_below(&r, EXACT_SUM_CHUNK);
        int tie_here = 0;
        const int mode = (int)es_below(&r, 3);
        for (int i = 0; i < n; i++) {
            const uint32_t odd = 2 * es_below(&r, mode == 0 ? 8 : 1u << 18) + 1;
            t[i] = mode == 2 ? u * es_uniform(&r) * 64.f
                             : ldexpf((float)odd, (int)es_below(&r, 8) - 4) * u * 0.5f;
            if (es_below(&r, 4) == 0) t[i] = 0.f;
            tie_here |= exact_sum_tie_binade(vmaf_bits_of_float(t[i])) == b;
        }
        ExactSumRun composed = exact_sum_run_identity();
        for (int i = 0; i < n; i++)
            composed = exact_sum_combine(composed, exact_sum_term_run(vmaf_bits_of_float(t[i]), b));
        const ExactSumRun sim = exact_sum_chunk_run(t, n, b, 1);
        const uint32_t lowest = b == 1 ? 0 : 1u << 23;
        for (int p = 0; p < 2; p++) {
            const uint32_t s = exact_sum_run_add(sim, (uint32_t)p);
            const uint32_t c = exact_sum_run_add(composed, (uint32_t)p);
            if (s < EXACT_SUM_SAT) CHECK(s == c, "chunk b=%d p=%d: %u vs %u", b, p, s, c);
            else CHECK(lowest + p + c >= EXACT_SUM_UNITS_END, "saturation b=%d p=%d", b, p);
        }
        differ += sim.add_even != sim.add_odd;
        const ExactSumRun packed = exact_sum_run_unpack(exact_sum_run_pack(sim));
        CHECK(packed.add_even == sim.add_even && packed.add_odd == sim.add_odd,
              "pack b=%d: %u/%u", b, sim.add_even, sim.add_odd);
        if (!tie_here) {
            const ExactSumRun fast = exact_sum_chunk_run(t, n, b, 0);
            CHECK(fast.add_odd == sim.add_odd || sim.add_odd == EXACT_SUM_SAT,
                  "no-tie shortcut b=%d", b);
        }
    }
    CHECK(differ > 1000, "weak coverage: %u parity-dependent chunks", differ);
}

static void test_sequences(uint64_t base_seed, unsigned cases, unsigned long_cases)
{
    size_t cap = 11000000;
    float *t = (float *)malloc(cap * sizeof(*t));
    ExactSumStats total, st;
    memset(&total, 0, sizeof(total));
    if (!t) {
        CHECK(0, "out of memory");
        return;
    }
    for (unsigned i = 0; i < cases + long_cases; i++) {
        const ExactSumCase c = i < cases ? es_case_make(base_seed, i)
                                         : es_case_long(base_seed, i - cases, 11000000);
        es_case_fill(&c, t);
        const float want = vmaf_exact_sum_serial(t, c.n, c.acc0);
        const float got = vmaf_exact_sum_binade_stats(t, c.n, c.acc0, &st);
        CHECK(es_same(want, got),
              "base seed %llu case %u (seed %llu, %s, n %zu, acc0 %a): serial %a (0x%08x), "
              "binade %a (0x%08x)", (unsigned long long)base_seed, i,
              (unsigned long long)c.seed, es_kind_name[c.kind], c.n, c.acc0, want,
              vmaf_bits_of_float(want), got, vmaf_bits_of_float(got));
        total.tiles_identity += st.tiles_identity;
        total.tiles_summary += st.tiles_summary;
        total.tiles_walked += st.tiles_walked;
        total.chunks_run += st.chunks_run;
        total.chunks_serial += st.chunks_serial;
        total.tie_runs += st.tie_runs;
        total.serial_terms += st.serial_terms;
        /* a realistic plane walks only the tiles where the sum doubles */
        if (i >= cases && c.kind == ES_PSNR)
            CHECK(st.tiles_walked <= 64, "psnr-like, %zu terms: %llu tiles walked", c.n,
                  (unsigned long long)st.tiles_walked);
    }
    free(t);
    printf("exact_sum: %u sequences; tiles: %llu identity, %llu summary, %llu walked "
           "(%llu chunks by run, %llu crossing); %llu parity-dependent runs; %llu serial terms\n",
           cases + long_cases, (unsigned long long)total.tiles_identity,
           (unsigned long long)total.tiles_summary, (unsigned long long)total.tiles_walked,
           (unsigned long long)total.chunks_run, (unsigned long long)total.chunks_serial,
           (unsigned long long)total.tie_runs, (unsigned long long)total.serial_terms);
    /* The method must actually be exercised, not fall back to the serial loop. */
    CHECK(total.tiles_summary + total.tiles_identity > total.tiles_walked, "summaries rarely used");
    CHECK(total.chunks_run > total.chunks_serial, "walked tiles mostly serial");
    CHECK(total.chunks_serial > 1000 && total.tie_runs > 1000, "weak coverage");
}

int main(int argc, char **argv)
{
    uint64_t seed = 20240611;
    unsigned cases = 6000, long_cases = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--long") && i + 1 < argc) long_cases = (unsigned)atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--seed N] [--cases N] [--long N]\n", argv[0]);
            return 2;
        }
    }
    test_one_term(seed);
    test_chunks(seed + 1);
    test_sequences(seed, cases, long_cases);
    if (failures) {
        fprintf(stderr, "exact_sum: %d failures (seed %llu)\n", failures, (unsigned long long)seed);
        return 1;
    }
    printf("exact_sum: ok (seed %llu)\n", (unsigned long long)seed);
    return 0;
}

#endif /* EXACT_SUM_TEST_NO_MAIN */
