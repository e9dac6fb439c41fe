/*
 * Twin VMAF — a serial double sum of floats, evaluated in parallel with the same bits.
 *
 *     double s = 0.;  for (k = 0; k < n; k++) s += x[k];
 *
 * ciede (ciede.c) sums its per-pixel differences this way (~8.3M adds per 4K frame; the golden
 * files depend on the order). The CUDA twin (cuda/seq_sum.cuh, one block of SEQ_SUM_THREADS
 * per sum) must give exactly this double for any input. This header holds the arithmetic the
 * kernel and its host emulation (vmaf_seq_sum_emulate, run by tests/twins/test_seq_sum.c against
 * the loop above) share. Plain C, no libm (so C and C++ compilations agree); every conversion
 * is written out.
 *
 * 1. Inside a binade. Let s = A u with u = 2^(E - 1075) (E: s's biased exponent field) and A
 *    an integer in [2^52, 2^53): s lies in the binade [2^(E-1023), 2^(E-1022)), where doubles
 *    are the multiples of u (both ends included: the top is 2^53 u). For a float x >= 0,
 *    x / u is exact (a power-of-two scaling of x's 24-bit significand). Let r be x / u
 *    rounded to the nearest integer, and on a tie (x / u = q + 1/2) the one of q, q + 1 that
 *    makes A + r even. If A + r < 2^53 then x / u <= r + 1/2 gives s + x < 2^53 u: the exact
 *    sum lies in the same binade, where round-to-nearest-even picks the nearest multiple of u
 *    and on a tie the one with an even significand, i.e. an even multiple of u. So
 *    fl(s + x) = (A + r) u. Whenever A + r >= 2^53 the step is called a crossing and done as
 *    a real double addition (what the loop does, by definition), which also covers results
 *    that round up to exactly 2^53 u. (Such a result would be right on the grid too: the
 *    next binade's spacing is 2u, and a sum within u/2 of 2^53 u rounds to it; but there is
 *    no need to rely on it.)
 * 2. The state. What a step does depends on the element and on the parity of A only (and on
 *    E, fixed between crossings). An element is a map p -> r(p) (the units it adds from parity
 *    p; p' = (p + r) & 1). Maps compose: (f then g)(p) = f(p) + g((p + f(p)) & 1). Composition
 *    is associative, so the maps of a run of elements can be combined in any tree, by a warp
 *    scan. Units saturate at SEQ_SUM_TOP = 2^53 (min(., 2^53) commutes with adding
 *    non-negative numbers, so saturation keeps associativity; a saturated prefix means "this
 *    run crosses from any start", as A + 2^53 >= 2^53). Two states of one parity add the
 *    same units step by step, so if the lower one crosses in a run, so does the higher.
 * 3. Crossings. The partial sums never decrease (x >= 0), so the units a prefix adds never
 *    decrease along the array, and "A + prefix >= 2^53" is false up to the first crossing
 *    element and true from there: one search finds it. That element is added as a double, s
 *    gets its new exponent and the rest continues. s only grows, so there are at most ~320
 *    crossings in any sum of floats (2^-149 <= s < 2^170); about 30 for a 4K frame of ciede.
 * 4. The start. s = +0 is the state E = SEQ_SUM_ZERO_EXP, A = 0, where every nonzero element
 *    saturates: the first nonzero x is a crossing (0. + x = x exactly), zeros (and -0) add 0.
 *    s is never subnormal afterwards (a float is >= 2^-149, far above 2^-1022) and never
 *    overflows (n floats sum to below n 2^128).
 * 5. Anything else — NaN, +-inf, a negative element (other than -0) — and the loop itself
 *    finishes the sum from the current s, which is exactly the loop's partial sum there.
 * 6. Cheap maps. seq_sum_elem is the rule of 1. in integers (the definition, which the tests
 *    use); the kernel gets a segment's map with two chains of double additions from the
 *    lowest even and odd states of the binade (seq_sum_segment_map: one conversion and two
 *    additions per element), and walks a crossing segment with plain double additions until
 *    the sum leaves the binade (seq_sum_walk).
 *
 * 7. Without fp64. The doubles here are f64.h's vmaf_double. On the software binary64 (an
 *    OpenCL program built without fp64) a segment's map comes from the integer rule instead of
 *    the chains of 6. (seq_sum_segment_map: seq_sum_segment_map_exact, saturated where the
 *    chains would leave the binade, i.e. the value 6. proves the chains give), no double
 *    addition at all; the walk and the loop's fallback add in the software double, whose
 *    additions are the IEEE ones.
 *
 * Blocking (cuda/seq_sum.cuh, and vmaf_seq_sum_emulate in the same order): chunks of
 * SEQ_SUM_CHUNK = SEQ_SUM_THREADS x SEQ_SUM_K elements; thread t owns the contiguous segment
 * [t K, t K + K) of a chunk and computes its map (seq_sum_segment_map), a warp scan and a scan
 * of the warp totals give every segment's prefix and the chunk's total. If
 * A + total(A & 1) < 2^53 the chunk adds total units (the common case: two barriers per
 * chunk). Otherwise the one thread whose exclusive prefix does not cross and inclusive prefix
 * does walks its segment (seq_sum_walk), adding the crossing element as a double, and the
 * chunk is redone from the element after it (the elements before it masked out). A chunk is
 * redone once per crossing, so a sum costs (chunks + crossings) passes.
 */
#ifndef VMAF_FEATURE_SEQ_SUM_DEVICE_H
#define VMAF_FEATURE_SEQ_SUM_DEVICE_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#include "f64.h"

/* Block shape (compile-time; tests/checktwin/seq_sum_gpu_test.cu may be built with others):
 * SEQ_SUM_THREADS a multiple of 32 up to 1024, SEQ_SUM_K a multiple of 4 (float4 loads). */
#ifndef SEQ_SUM_THREADS
#define SEQ_SUM_THREADS 512
#endif
#ifndef SEQ_SUM_K
#define SEQ_SUM_K 16
#endif
#define SEQ_SUM_WARPS (SEQ_SUM_THREADS / 32)
#define SEQ_SUM_CHUNK (SEQ_SUM_THREADS * SEQ_SUM_K)

/** Units of the top of a binade, and the saturation value of maps. */
#define SEQ_SUM_TOP (UINT64_C(1) << 53)
/** The exponent field standing for s = +0 (so low that every nonzero float saturates). */
#define SEQ_SUM_ZERO_EXP (-4096)

/** s = units * 2^(exp - 1075), units in [2^52, 2^53); or exp = SEQ_SUM_ZERO_EXP, units = 0. */
typedef struct SeqSumState {
    uint64_t units;
    int exp;
} SeqSumState;

/** Units added from an even (r[0]) and an odd (r[1]) start, each <= SEQ_SUM_TOP. */
typedef struct SeqSumMap {
    uint64_t r[2];
} SeqSumMap;




VMAF_DEVICE_FN SeqSumState seq_sum_zero(void)
{
    SeqSumState st = { 0, SEQ_SUM_ZERO_EXP };
    return st;
}

/** The state of a double; 0 if s is not +0 or a positive normal finite number. */
VMAF_DEVICE_FN int seq_sum_state_of(vmaf_double s, SeqSumState *st)
{
    const uint64_t b = vmaf_dbits(s);
    const int e = (int)(b >> 52); /* includes the sign bit */
    if (!b) {
        *st = seq_sum_zero();
        return 1;
    }
    if (e < 1 || e > 2046) return 0; /* subnormal, negative, inf or NaN */
    st->exp = e;
    st->units = (b & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
    return 1;
}

/** The double of a state (exact). */
VMAF_DEVICE_FN vmaf_double seq_sum_value(SeqSumState st)
{
    if (st.exp == SEQ_SUM_ZERO_EXP) return VMAF_DCONST(0.0, 0x0000000000000000);
    return vmaf_dof_bits((uint64_t)st.exp << 52 | (st.units - (UINT64_C(1) << 52)));
}

VMAF_DEVICE_FN SeqSumMap seq_sum_identity(void)
{
    SeqSumMap m = { { 0, 0 } };
    return m;
}

VMAF_DEVICE_FN uint64_t seq_sum_sat(uint64_t v)
{
    return v < SEQ_SUM_TOP ? v : SEQ_SUM_TOP;
}

/**
 * The map of one valid element (seq_sum_bad_float false) for an accumulator of exponent field
 * exp: x / u rounded to the nearest integer, both tie choices (1. in the header comment).
 */
VMAF_DEVICE_FN SeqSumMap seq_sum_elem(uint32_t x_bits, int exp)
{
    const uint32_t mag = x_bits & 0x7fffffffu;
    const int field = (int)(mag >> 23);
    const uint32_t m = (mag & 0x7fffffu) | (field ? 0x800000u : 0u); /* x = m 2^(e - 150) */
    const int e = field ? field : 1;
    const int shift = e - exp + 925; /* x / u = m 2^shift, u = 2^(exp - 1075) */
    SeqSumMap r;
    if (!m) return seq_sum_identity();
    if (shift >= 0) { /* an integer number of units */
        const uint64_t v = shift >= 53 || m >= (UINT64_C(1) << (53 - shift))
                               ? SEQ_SUM_TOP
                               : (uint64_t)m << shift;
        r.r[0] = r.r[1] = v;
        return r;
    }
    if (shift <= -25) return seq_sum_identity(); /* m < 2^24 <= half a unit's 2^-shift */
    const int t = -shift;                          /* 1..24 */
    const uint32_t halfway = 1u << (t - 1), rem = m & ((1u << t) - 1);
    const uint64_t q = m >> t;
    if (rem == halfway) { /* a tie: make A + r even */
        r.r[0] = q + (q & 1);
        r.r[1] = q + ((q + 1) & 1);
#if defined(SEQ_SUM_TEST_MUTANT) && SEQ_SUM_TEST_MUTANT == 2 /* tests: a wrong tie rule */
        r.r[0] = r.r[1] = q + 1;
#endif
    } else {
        r.r[0] = r.r[1] = q + (rem > halfway);
    }
    return r;
}

/** first, then second. */
VMAF_DEVICE_FN SeqSumMap seq_sum_combine(SeqSumMap first, SeqSumMap second)
{
    SeqSumMap m;
    m.r[0] = seq_sum_sat(first.r[0] + second.r[first.r[0] & 1]);
    m.r[1] = seq_sum_sat(first.r[1] + second.r[(first.r[1] + 1) & 1]);
    return m;
}

/** Units a map adds to a state, and whether the result stays in the binade. */
VMAF_DEVICE_FN uint64_t seq_sum_apply(SeqSumMap m, uint64_t units)
{
    return units + m.r[units & 1]; /* >= SEQ_SUM_TOP: crosses */
}

/** Bits of the lowest state of a parity in a binade (where simulations start). */
VMAF_DEVICE_FN uint64_t seq_sum_start_bits(int exp, int parity)
{
    return exp == SEQ_SUM_ZERO_EXP ? 0 : (uint64_t)exp << 52 | (uint64_t)parity;
}

/** Bits from which a sum has left the binade (for s = +0: any positive sum). */
VMAF_DEVICE_FN uint64_t seq_sum_top_bits(int exp)
{
    return exp == SEQ_SUM_ZERO_EXP ? 1 : (uint64_t)(exp + 1) << 52;
}

/** An element the method does not take: NaN, +-inf, negative other than -0. */
VMAF_DEVICE_FN int seq_sum_bad_float(float x)
{
    return !(x >= 0.f && x <= 3.40282346638528859812e+38f);
}

/**
 * The definition of a segment's map: its elements' maps (seq_sum_elem) composed, elements j
 * with first <= j < count (the others: already added, or past the array). The tests compare
 * seq_sum_segment_map with it.
 */
VMAF_DEVICE_FN SeqSumMap seq_sum_segment_map_exact(const float *v, int first, int count, int exp)
{
    SeqSumMap acc = seq_sum_identity();
    for (int j = first > 0 ? first : 0; j < count; j++)
        acc = seq_sum_combine(acc, seq_sum_elem(vmaf_bits_of_float(v[j]), exp));
    return acc;
}

/**
 * The map of a thread's segment v[0..SEQ_SUM_K) for exponent exp, elements j with
 * first <= j < count, computed cheaply: by adding them in double from the lowest state of
 * each parity (2^52 u and (2^52 + 1) u; +0 for s = +0). While such a chain stays in the
 * binade, each double addition is the step of 1. in the header comment (a step with
 * A + r >= 2^53 gives a double >= 2^53 u, as the exact sum is then >= (2^53 - 1/2) u), so
 * the units it added are the map's; if it leaves, every state of that parity (all at least
 * as high) crosses inside the segment, and the map saturates (SEQ_SUM_TOP). So r[p] is the
 * exact map's value where that is below 2^52 - p, and SEQ_SUM_TOP otherwise: a value that
 * large crosses from every state of parity p anyway, so the composition and the crossing
 * test treat both the same. *bad is set if a live element is invalid (the map is then
 * meaningless). On the software double the same value comes from the integer rule (7. in the
 * header comment).
 */
VMAF_DEVICE_FN SeqSumMap seq_sum_segment_map(const float *v, int first, int count, int exp,
                                             int *bad)
{
#if VMAF_DOUBLE_SOFT
    SeqSumMap m = seq_sum_segment_map_exact(v, first, count, exp);
    int invalid = 0;
    for (int j = 0; j < SEQ_SUM_K; j++)
        invalid |= j >= first && j < count && seq_sum_bad_float(v[j]);
    *bad = invalid;
    for (int p = 0; p < 2; p++)
        if (m.r[p] >= (UINT64_C(1) << 52) - (uint64_t)p) m.r[p] = SEQ_SUM_TOP;
    return m;
#else
    const uint64_t start0 = seq_sum_start_bits(exp, 0);
#if defined(SEQ_SUM_TEST_MUTANT) && SEQ_SUM_TEST_MUTANT == 1 /* tests: ties ignore parity */
    const uint64_t start1 = start0;
#else
    const uint64_t start1 = exp == SEQ_SUM_ZERO_EXP ? 0 : start0 | 1;
#endif
    const uint64_t top = seq_sum_top_bits(exp);
    double c0 = vmaf_double_of_bits(start0), c1 = vmaf_double_of_bits(start1);
    uint32_t high = 0; /* the largest bit pattern: above FLT_MAX's only for NaN, inf or a sign */
    if (first <= 0 && count >= SEQ_SUM_K) { /* every element live: the common case */
        VMAF_UNROLL
        for (int j = 0; j < SEQ_SUM_K; j++) {
            const uint32_t b = vmaf_bits_of_float(v[j]);
            const double d = (double)v[j];
            high = b > high ? b : high;
            c0 += d;
            c1 += d;
        }
    } else {
        VMAF_UNROLL
        for (int j = 0; j < SEQ_SUM_K; j++) {
            const float x = j >= first && j < count ? v[j] : 0.f;
            const uint32_t b = vmaf_bits_of_float(x);
            const double d = (double)x;
            high = b > high ? b : high;
            c0 += d;
            c1 += d;
        }
    }
    int invalid = 0;
    if (high > 0x7f7fffffu) { /* -0 (fine) or an invalid element: look closer */
        VMAF_UNROLL
        for (int j = 0; j < SEQ_SUM_K; j++)
            invalid |= j >= first && j < count && seq_sum_bad_float(v[j]);
    }
    *bad = invalid;
    const uint64_t b0 = vmaf_bits_of_double(c0), b1 = vmaf_bits_of_double(c1);
    SeqSumMap m;
    m.r[0] = b0 >= top ? SEQ_SUM_TOP : b0 - start0;
    m.r[1] = b1 >= top ? SEQ_SUM_TOP : b1 - start1;
    return m;
#endif
}

/**
 * The walk of the crossing segment: from state *st (the segment's exclusive prefix applied),
 * elements v[first..count) added in double, as the loop does, until the sum leaves the binade
 * (the crossing). Returns the crossing element's index (and *st after it), or -1 if none
 * crosses, an element is invalid or the new sum is not a state (none of these can happen in
 * a crossing segment of valid elements; the caller then finishes by the loop).
 */
VMAF_DEVICE_FN int seq_sum_walk(const float *v, int first, int count, SeqSumState *st)
{
    const uint64_t top = seq_sum_top_bits(st->exp);
    vmaf_double s = seq_sum_value(*st);
    for (int j = first; j < count; j++) {
        if (seq_sum_bad_float(v[j])) return -1;
        s = vmaf_dadd(s, vmaf_dfrom_float(v[j])); /* s += (double)v[j] */
        if (vmaf_dbits(s) >= top) return seq_sum_state_of(s, st) ? j : -1;
    }
    return -1;
}

/* ---------------------------------------------------------------------------------------- */
/* Host emulation of cuda/seq_sum.cuh (host only)                                            */

/* Plain static inline: under nvcc these are host functions; OpenCL C has no host side. */
#if !VMAF_DIALECT_OPENCL

/** A state's value as the host's double (vmaf_double may be the software one in host tests). */
static inline double seq_sum_host_value(SeqSumState st)
{
    return vmaf_double_of_bits(vmaf_dbits(seq_sum_value(st)));
}

/** The definition: the loop, from s over x[from..n). */
static inline double vmaf_seq_sum_serial(const float *x, size_t from, size_t n, double s)
{
    for (size_t k = from; k < n; k++) s += (double)x[k];
    return s;
}

/** What the emulation did (tests: the method must be exercised, not just the fallback). */
typedef struct SeqSumStats {
    uint64_t chunks, passes, crossings, fallbacks, tie_segments;
    uint64_t errors; /**< a broken invariant (no or two walkers): the result is then NaN */
} SeqSumStats;

/**
 * The kernel's computation on the host, chunk by chunk, with its thread segments, warp scans
 * (in lane order; associative, so the same as the device's tree), warp-total scan, crossing
 * test and walk. `scan` is scratch of 2 * SEQ_SUM_THREADS maps. stats may be NULL.
 */
static inline double vmaf_seq_sum_emulate(const float *x, size_t n, SeqSumMap *scan,
                                          SeqSumStats *stats)
{
    SeqSumStats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof(*stats));
    SeqSumMap *inc = scan, *own = scan + SEQ_SUM_THREADS; /* per thread */
    SeqSumState st = seq_sum_zero();
    for (size_t base = 0; base < n; base += SEQ_SUM_CHUNK) {
        int pos = 0; /* chunk elements already added */
        stats->chunks++;
        for (;;) {
            stats->passes++;
            int bad = 0;
            for (int t = 0; t < SEQ_SUM_THREADS; t++) {
                const size_t seg = base + (size_t)t * SEQ_SUM_K;
                float v[SEQ_SUM_K];
                const int count = seg >= n ? 0 : n - seg < SEQ_SUM_K ? (int)(n - seg) : SEQ_SUM_K;
                for (int j = 0; j < SEQ_SUM_K; j++) v[j] = j < count ? x[seg + j] : 0.f;
                int b;
                own[t] = seq_sum_segment_map(v, pos - t * SEQ_SUM_K, count, st.exp, &b);
                bad |= b;
                stats->tie_segments += own[t].r[0] != own[t].r[1];
            }
            if (bad) {
                stats->fallbacks++;
                return vmaf_seq_sum_serial(x, base + (size_t)pos, n, seq_sum_host_value(st));
            }
            SeqSumMap warp_excl[SEQ_SUM_WARPS], total = seq_sum_identity();
            for (int w = 0; w < SEQ_SUM_WARPS; w++) {
                SeqSumMap run = seq_sum_identity();
                for (int l = 0; l < 32; l++) inc[w * 32 + l] = run = seq_sum_combine(run, own[w * 32 + l]);
                warp_excl[w] = total;
                total = seq_sum_combine(total, run);
            }
            const uint64_t end = seq_sum_apply(total, st.units);
            if (end < SEQ_SUM_TOP) {
                st.units = end;
                break;
            }
            stats->crossings++;
            int walker = -1;
            SeqSumState at = st;
            for (int t = 0; t < SEQ_SUM_THREADS; t++) {
                const int w = t / 32, l = t % 32;
                const SeqSumMap before = l ? seq_sum_combine(warp_excl[w], inc[t - 1]) : warp_excl[w];
                const SeqSumMap upto = seq_sum_combine(warp_excl[w], inc[t]);
                if (seq_sum_apply(before, st.units) < SEQ_SUM_TOP &&
                    seq_sum_apply(upto, st.units) >= SEQ_SUM_TOP) {
                    if (walker >= 0) { /* two walkers: the monotony argument broke */
                        stats->errors++;
                        return vmaf_double_of_bits(UINT64_C(0x7ff8000000000000));
                    }
                    walker = t;
                    at.units = seq_sum_apply(before, st.units);
                }
            }
            if (walker < 0) { /* no walker: cannot happen */
                stats->errors++;
                return vmaf_double_of_bits(UINT64_C(0x7ff8000000000000));
            }
            const size_t seg = base + (size_t)walker * SEQ_SUM_K;
            const int count = n - seg < SEQ_SUM_K ? (int)(n - seg) : SEQ_SUM_K;
            const int first = pos - walker * SEQ_SUM_K > 0 ? pos - walker * SEQ_SUM_K : 0;
            const int j = seq_sum_walk(x + seg, first, count, &at);
            if (j < 0) { /* cannot happen either; the kernel then takes the loop */
                stats->errors++;
                return vmaf_seq_sum_serial(x, base + (size_t)pos, n, seq_sum_host_value(st));
            }
            st = at;
            pos = walker * SEQ_SUM_K + j + 1;
        }
    }
    return seq_sum_host_value(st);
}

#endif /* !VMAF_DIALECT_OPENCL */

#endif /* VMAF_FEATURE_SEQ_SUM_DEVICE_H */
