/*
 * Exact parallel evaluation of a serial float sum of non-negative terms.
 *
 *     float acc = acc0;  for (i = 0; i < n; i++) acc += t[i];
 *
 * psnr_hvs accumulates ~11 million terms per 4K plane this way; a GPU twin must give the same
 * bits. This header holds the arithmetic both sides share (plain C, usable from CUDA) and a
 * host reference of the parallel method; the device kernels are in cuda/exact_sum.cuh.
 *
 * Units and binades. Every float x >= 0 lies in a binade b = max(biased exponent, 1), where
 * the spacing of floats (the ulp) is u_b = 2^(b - 150); b = 1 holds 0, the subnormals and
 * [2^-126, 2^-125), which share u_1 = 2^-149. In units of u_b, x = A with A an integer in
 * [2^23, 2^24) (or [0, 2^24) for b = 1), and the bit pattern of x is ((b - 1) << 23) + A.
 *
 * One addition inside a binade. If acc = A u_b and t >= 0, then acc + t = (A + t/u_b) u_b
 * with t/u_b exact (scaling by a power of two). While the exact sum stays below the top of
 * the binade, round-to-nearest-even gives fl(acc + t) = (A + r) u_b, where r is t/u_b rounded
 * to the nearest integer, and on a tie (t/u_b = m + 1/2) r is the one of m, m + 1 that makes
 * A + r even. So, inside a binade, what an addition does depends on the term and on the
 * parity of A only. A run of terms is summarised by a "run": the units it adds when it starts
 * at an even A and when it starts at an odd A (the parity after a run is that of A plus what
 * it added). Runs compose associatively, so they can be scanned in parallel.
 *
 * Where a run is valid. A run computed for binade b applies to a start A whenever
 * A + added < 2^24: the terms are non-negative, so every partial sum then stayed inside the
 * binade. Otherwise the run contains the step that leaves the binade (a "crossing"); that one
 * step is done as a plain float addition and the rest continues in the new binade. acc never
 * decreases, so a whole sum has at most ~280 crossings (fewer than 40 in practice).
 *
 * Computing runs cheaply. The run of a chunk of terms for binade b is obtained by simply
 * adding the terms in float, starting from the lowest A of each parity (2^23 and 2^23 + 1;
 * 0 and 1 for b = 1): the float additions do exactly the rounding described above, and by
 * monotonicity of rounding, if the simulation leaves the binade then so does any real start
 * (the run is then "saturated": EXACT_SUM_SAT). A term t is a tie in exactly one binade,
 * exact_sum_tie_binade(t); where no term of a chunk is a tie, both parities add the same
 * units and one simulated chain is enough.
 *
 * Tiles and windows. The terms are cut into tiles of EXACT_SUM_TILE. For each tile the
 * parallel pass summarises the tile for a window of binades [lo, hi):
 *   - hi: from binade hi up, every term of the tile is below half an ulp, so the tile adds
 *     nothing at all (it is the identity) — this is exact, not an estimate;
 *   - lo: the binade of the tile's own (float) sum T; an accumulator in a lower binade is
 *     below T, so it certainly crosses inside this tile (lo only affects speed).
 * hi - lo <= EXACT_SUM_WINDOW always holds, so every binade an accumulator can be in without
 * crossing has a summary. The serial pass then walks the tiles: identity, summary, or — when
 * the summary says the tile crosses (or the tile holds a term that is negative or NaN) — the
 * tile is walked chunk by chunk, and a chunk that crosses is added term by term in float.
 *
 * Inputs outside the contract (negative terms, NaN, an accumulator that becomes negative or
 * NaN) are still summed exactly as the serial loop does, by the serial fallback; only speed
 * suffers. +inf sums are exact too. NaN results are NaN on both sides but their payload is
 * the hardware's. Denormals must not be flushed (never build this with fast math).
 */
#ifndef VMAF_FEATURE_EXACT_SUM_H
#define VMAF_FEATURE_EXACT_SUM_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#include "bitcast.h"

enum {
    EXACT_SUM_UNITS_END = 1 << 24, /**< units of a binade lie in [0, 2^24) */
    EXACT_SUM_SAT = 1 << 24,       /**< a saturated run: it leaves the binade from any start */
    EXACT_SUM_CHUNK = 16,          /**< terms per chunk (one GPU thread's serial share) */
    EXACT_SUM_CHUNKS = 256,        /**< chunks per tile (the GPU walker: one per thread) */
    EXACT_SUM_TILE = EXACT_SUM_CHUNK * EXACT_SUM_CHUNKS,
    EXACT_SUM_WINDOW = 25,         /**< binades summarised per tile: hi - lo never exceeds it */
    EXACT_SUM_MAX_ARRAYS = 3,      /**< independent sums per GPU launch (e.g. Y, Cb, Cr) */
};

/** Bits of +inf. (For floats >= +0 other than NaN, bit patterns order like the values.) */
#define EXACT_SUM_INF_BITS 0x7f800000u

/* ---------------------------------------------------------------------------------------- */
/* Bits and binades                                                                          */



/** Whether an accumulator can be walked by binades: +0 <= acc < +inf. */
VMAF_DEVICE_FN_INLINE_HOST int exact_sum_walkable(uint32_t acc_bits)
{
    return acc_bits < EXACT_SUM_INF_BITS;
}

/** A term the binade method cannot take (NaN, or negative other than -0); +inf is fine. */
VMAF_DEVICE_FN_INLINE_HOST int exact_sum_term_invalid(uint32_t t_bits)
{
    return t_bits > EXACT_SUM_INF_BITS && t_bits != 0x80000000u;
}

/** Binade of a walkable accumulator (1 .. 254); its ulp is 2^(binade - 150). */
VMAF_DEVICE_FN_INLINE_HOST int exact_sum_binade(uint32_t acc_bits)
{
    const int e = (int)(acc_bits >> 23);
    return e ? e : 1;
}

/** The accumulator in ulps of its binade. */
VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_units(uint32_t acc_bits, int binade)
{
    return acc_bits - ((uint32_t)(binade - 1) << 23);
}

/** Inverse of exact_sum_units; units == 2^24 gives the bottom of the next binade, exactly. */
VMAF_DEVICE_FN_INLINE_HOST float exact_sum_from_units(int binade, uint32_t units)
{
    return vmaf_float_of_bits(((uint32_t)(binade - 1) << 23) + units);
}

/** ulp of a binade, as a float (2^-149 .. 2^104). */
VMAF_DEVICE_FN_INLINE_HOST float exact_sum_ulp(int binade)
{
    return binade <= 24 ? vmaf_float_of_bits(1u << (binade - 1))
                        : vmaf_float_of_bits((uint32_t)(binade - 23) << 23);
}

/** Lowest accumulator of the given parity in a binade, as bits: where simulations start. */
VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_start_bits(int binade, int parity)
{
    return (binade >= 2 ? (uint32_t)binade << 23 : 0u) + (uint32_t)parity;
}

/** Units a simulation added, from its start to its end (both as bits); saturated if it left. */
VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_units_added(uint32_t end_bits, uint32_t start_bits,
                                                          int binade)
{
    return end_bits >= (uint32_t)(binade + 1) << 23 ? (uint32_t)EXACT_SUM_SAT
                                                   : end_bits - start_bits;
}

VMAF_DEVICE_FN_INLINE_HOST int exact_sum_ctz(uint32_t m) /* m != 0 */
{
#if defined(__CUDA_ARCH__)
    return __ffs((int)m) - 1;
#elif VMAF_DIALECT_OPENCL
    return 31 - (int)clz(m & (0u - m)); /* ctz() is OpenCL C 2.0 */
#elif defined(__GNUC__)
    return __builtin_ctz(m);
#else
    int n = 0;
    while (!(m & 1)) { m >>= 1; n++; }
    return n;
#endif
}

/** Exponent field (>= 1) and integer significand of a term: t = significand * 2^(e - 150). */
VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_significand(uint32_t t_bits, int *e)
{
    const uint32_t mag = t_bits & 0x7fffffffu;
    const int field = (int)(mag >> 23);
    *e = field ? field : 1;
    return (mag & 0x7fffffu) | (field ? 0x800000u : 0u);
}

/**
 * The one binade in which t / ulp ends in exactly one half (where adding t is a tie), or 0
 * for t = 0. t = M 2^(e - 150) with M's lowest set bit at k: t / u_b = M 2^(e - b) has
 * fraction 1/2 exactly when e - b = -(k + 1). Can exceed 254 (then it never matters).
 */
VMAF_DEVICE_FN_INLINE_HOST int exact_sum_tie_binade(uint32_t t_bits)
{
    int e;
    const uint32_t m = exact_sum_significand(t_bits, &e);
    return m ? e + exact_sum_ctz(m) + 1 : 0;
}

/**
 * The tie binade of a term as a bit of a mask relative to lo: bit (tie binade - lo), or no bit
 * when it is below lo. Valid for terms whose exponent field is at most lo + 1 (every term of
 * a tile, see exact_sum_window); a zero term sets a spurious bit (harmless: it only asks for
 * a parity check that finds nothing), -0 sets none. Branch-free, cheaper than a ctz on GPUs:
 * 2^ctz(significand) = lowest set bit of (bits | 2^23) for any nonzero term.
 */
VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_tie_bit(uint32_t t_bits, int lo)
{
    const uint32_t m = t_bits | 0x800000u;
    const int e = (int)(t_bits >> 23) > 1 ? (int)(t_bits >> 23) : 1;
    const uint32_t low4 = (m & (0u - m)) << 2;
    const unsigned shift = (unsigned)(lo + 1 - e); /* huge (clamped) for -0 */
#if defined(__CUDA_ARCH__)
    return __funnelshift_rc(low4, 0u, shift);
#else
    return shift >= 32 ? 0u : low4 >> shift;
#endif
}

/**
 * t / u_binade rounded to the nearest integer, for a term t >= 0 (-0 allowed). On a tie the
 * lower integer m is returned and *tie is set: the caller picks m or m + 1 by parity.
 * Saturates at EXACT_SUM_SAT.
 */
VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_round_term(uint32_t t_bits, int binade, int *tie)
{
    int e;
    const uint32_t m = exact_sum_significand(t_bits, &e);
    const int shift = e - binade; /* t / u = m * 2^shift */
    *tie = 0;
    if (!m) return 0;
    if (shift >= 2) return EXACT_SUM_SAT; /* e >= 3: normal, m >= 2^23, so m * 4 >= 2^25 */
    if (shift >= 0) {
        const uint32_t v = m << shift;
        return v < (uint32_t)EXACT_SUM_SAT ? v : (uint32_t)EXACT_SUM_SAT;
    }
    const int s = -shift;
    if (s > 25) return 0; /* m < 2^24 < half */
    const uint32_t halfway = 1u << (s - 1), rem = m & ((1u << s) - 1);
    *tie = rem == halfway;
    return (m >> s) + (rem > halfway);
}

/* ---------------------------------------------------------------------------------------- */
/* Runs: the monoid                                                                          */

/** What a run of terms adds, in ulps of one binade, starting from an even / odd accumulator. */
typedef struct ExactSumRun {
    uint32_t add_even, add_odd; /**< each <= EXACT_SUM_SAT; EXACT_SUM_SAT means "leaves" */
} ExactSumRun;

VMAF_DEVICE_FN_INLINE_HOST ExactSumRun exact_sum_run_identity(void)
{
    ExactSumRun r = { 0, 0 };
    return r;
}

VMAF_DEVICE_FN_INLINE_HOST ExactSumRun exact_sum_run_saturated(void)
{
    ExactSumRun r = { EXACT_SUM_SAT, EXACT_SUM_SAT };
    return r;
}

VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_sat_add(uint32_t a, uint32_t b)
{
    const uint32_t s = a + b; /* both <= 2^24: no overflow */
    return s < (uint32_t)EXACT_SUM_SAT ? s : (uint32_t)EXACT_SUM_SAT;
}

/** Units added by a run from a start of the given parity. */
VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_run_add(ExactSumRun r, uint32_t parity)
{
    return parity & 1 ? r.add_odd : r.add_even;
}

/** first, then second. */
VMAF_DEVICE_FN_INLINE_HOST ExactSumRun exact_sum_combine(ExactSumRun first, ExactSumRun second)
{
    ExactSumRun r;
    r.add_even = exact_sum_sat_add(first.add_even, exact_sum_run_add(second, first.add_even));
    r.add_odd = exact_sum_sat_add(first.add_odd, exact_sum_run_add(second, first.add_odd + 1));
    return r;
}

/**
 * A run in 32 bits (the GPU stores tile summaries this way): add_even in bits 0..24, and how
 * add_odd differs in bits 25..26: 0 same, 1 one more, 2 one less, 3 saturated. Exact for every
 * run of the float simulation, where add_odd is add_even +- 1 (the first tie rounds the other
 * way) unless only the odd start leaves the binade.
 */
VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_run_pack(ExactSumRun r)
{
    const uint32_t e = r.add_even, o = r.add_odd;
    const uint32_t code = o == e ? 0u : o == e + 1 ? 1u : o + 1 == e ? 2u : 3u;
    return e | code << 25;
}

VMAF_DEVICE_FN_INLINE_HOST ExactSumRun exact_sum_run_unpack(uint32_t v)
{
    const uint32_t e = v & 0x1ffffffu, code = v >> 25;
    ExactSumRun r;
    r.add_even = e;
    r.add_odd = code == 0 ? e : code == 1 ? e + 1 : code == 2 ? e - 1 : (uint32_t)EXACT_SUM_SAT;
    return r;
}

/** Accumulator units after the run; >= EXACT_SUM_UNITS_END means the run crosses. */
VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_apply(ExactSumRun r, uint32_t units)
{
    return units + exact_sum_run_add(r, units);
}

/** The run of one term, from the integer rounding (the definition; the tests check the
 * float simulation against it). */
VMAF_DEVICE_FN_INLINE_HOST ExactSumRun exact_sum_term_run(uint32_t t_bits, int binade)
{
    int tie;
    const uint32_t m = exact_sum_round_term(t_bits, binade, &tie);
    ExactSumRun r;
    if (!tie) {
        r.add_even = r.add_odd = m;
    } else { /* make A + r even */
        r.add_even = m + (m & 1);
        r.add_odd = m + ((m + 1) & 1);
    }
    return r;
}

/**
 * The run of n consecutive terms for a binade, by simulating the float additions from the
 * lowest start of each parity. with_odd = 0 skips the odd chain when the caller knows no term
 * is a tie in this binade (then both parities add the same).
 */
VMAF_DEVICE_FN_INLINE_HOST ExactSumRun exact_sum_chunk_run(const float *t, int n, int binade,
                                                           int with_odd)
{
    const uint32_t start_even = exact_sum_start_bits(binade, 0);
    float even = vmaf_float_of_bits(start_even), odd = vmaf_float_of_bits(start_even + 1);
    ExactSumRun r;
    for (int i = 0; i < n; i++) even += t[i];
    r.add_even = exact_sum_units_added(vmaf_bits_of_float(even), start_even, binade);
    if (with_odd) {
        for (int i = 0; i < n; i++) odd += t[i];
        r.add_odd = exact_sum_units_added(vmaf_bits_of_float(odd), start_even + 1, binade);
    } else {
        r.add_odd = r.add_even;
    }
    return r;
}

/* ---------------------------------------------------------------------------------------- */
/* Tiles                                                                                     */

/**
 * Window of a tile, from the float sum of its terms (in any order) and the largest term's
 * bits: summaries are kept for binades [lo, summary_end), summary_end = min(identity_from,
 * lo + EXACT_SUM_WINDOW), and from identity_from up the tile adds nothing. identity_from is
 * exact: every term t < 2^(e - 126) <= u_b / 2 once b >= e + 25 (e: exponent field of the
 * largest term, at least 1). lo only affects speed: an accumulator in a lower binade is below
 * the tile's sum T, so the tile takes it past its binade (rounding loses at most half an ulp
 * per term, far less than T, and T's float error is ~2^-12 relative). Since the float sum is
 * at least the largest term, identity_from - lo <= 25 = EXACT_SUM_WINDOW.
 */
VMAF_DEVICE_FN_INLINE_HOST void exact_sum_window(float tile_sum, uint32_t max_bits, int *lo,
                                                 int *identity_from)
{
    const int sum_binade = exact_sum_binade(vmaf_bits_of_float(tile_sum) & 0x7fffffffu);
    int max_e;
    const uint32_t m = exact_sum_significand(max_bits, &max_e);
    *lo = sum_binade;
    *identity_from = !m ? 1 : max_e + 25 < 255 ? max_e + 25 : 255;
}

VMAF_DEVICE_FN_INLINE_HOST int exact_sum_summary_end(int lo, int identity_from)
{
    const int end = identity_from < lo + EXACT_SUM_WINDOW ? identity_from : lo + EXACT_SUM_WINDOW;
    return end > lo ? end : lo;
}

/** Per-tile word of the GPU scratch: lo | identity_from << 8 | invalid << 16. */
VMAF_DEVICE_FN_INLINE_HOST uint32_t exact_sum_tile_word(int lo, int identity_from, int invalid)
{
    return (uint32_t)lo | (uint32_t)identity_from << 8 | (uint32_t)!!invalid << 16;
}

enum ExactSumTileAction {
    EXACT_SUM_TILE_IDENTITY, /**< the tile adds nothing in this binade */
    EXACT_SUM_TILE_SUMMARY,  /**< apply the tile's summary for this binade */
    EXACT_SUM_TILE_WALK,     /**< walk it by chunks (crosses, or holds invalid terms) */
};

/** What to do with a tile (its window as exact_sum_window gives it) for an accumulator in
 * `binade`. */
VMAF_DEVICE_FN_INLINE_HOST int exact_sum_tile_action(int binade, int lo, int identity_from,
                                                     int invalid)
{
    if (invalid) return EXACT_SUM_TILE_WALK;
    if (binade >= identity_from) return EXACT_SUM_TILE_IDENTITY;
    if (binade >= lo && binade < exact_sum_summary_end(lo, identity_from))
        return EXACT_SUM_TILE_SUMMARY;
    return EXACT_SUM_TILE_WALK;
}

/* ---------------------------------------------------------------------------------------- */
/* GPU launch description (host glue in C, kernels in cuda/exact_sum.cuh)                    */

enum {
    EXACT_SUM_TILES_THREADS = 128, /**< block of vmaf_exact_sum_tiles: 32 terms per thread */
    EXACT_SUM_WALK_THREADS = EXACT_SUM_CHUNKS, /**< block of vmaf_exact_sum_walk */
};

/**
 * Arguments of the two kernels (by value, device addresses as integers). Up to
 * EXACT_SUM_MAX_ARRAYS independent sums are reduced by one pair of launches:
 *   vmaf_exact_sum_tiles: grid (max_i exact_sum_tiles(n[i]), n_arrays) x
 *                         EXACT_SUM_TILES_THREADS (skip the launch when every n[i] is 0);
 *   vmaf_exact_sum_walk:  grid (n_arrays) x EXACT_SUM_WALK_THREADS;
 * on one stream, in that order. result[i] receives the serial sum of terms[i][0 .. n[i]).
 * The scratch needs no initialisation and may be reused by the next launch pair on the stream.
 */
typedef struct ExactSumCudaArgs {
    vmaf_devptr terms[EXACT_SUM_MAX_ARRAYS];   /**< const float * (16-byte aligned for vector
                                                    loads) */
    vmaf_u64 n[EXACT_SUM_MAX_ARRAYS];
    vmaf_devptr scratch[EXACT_SUM_MAX_ARRAYS]; /**< exact_sum_scratch_bytes(n[i]) each,
                                                    4-byte aligned */
    vmaf_devptr result;                        /**< float[n_arrays] */
    float acc0[EXACT_SUM_MAX_ARRAYS];          /**< starting values (usually 0) */
    unsigned n_arrays;
} ExactSumCudaArgs;

VMAF_DEVICE_FN_INLINE_HOST vmaf_u64 exact_sum_tiles(vmaf_u64 n)
{
    return (n + EXACT_SUM_TILE - 1) / EXACT_SUM_TILE;
}

/**
 * Device scratch per array: packed tile summaries indexed by absolute binade,
 * summary[binade][tile] for binades 0..254 (only each tile's window is written; indexing by
 * binade makes the walker's loads for one binade contiguous), then one word per tile.
 * About 1 KiB per 4096 terms.
 */
VMAF_DEVICE_FN_INLINE_HOST vmaf_u64 exact_sum_scratch_bytes(vmaf_u64 n)
{
    const vmaf_u64 tiles = exact_sum_tiles(n);
    return tiles * 255 * sizeof(uint32_t) + tiles * sizeof(uint32_t);
}

/* ---------------------------------------------------------------------------------------- */
/* Host reference                                                                            */

/* Host only (plain static inline: under nvcc these are host functions); OpenCL C has no host
 * side. */
#if !VMAF_DIALECT_OPENCL

/** The definition: the plain serial loop. */
static inline float vmaf_exact_sum_serial(const float *t, size_t n, float acc0)
{
    float acc = acc0;
    for (size_t i = 0; i < n; i++) acc += t[i];
    return acc;
}

/** How vmaf_exact_sum_binade got its answer (for tests and benchmarks). */
typedef struct ExactSumStats {
    uint64_t tiles_identity, tiles_summary, tiles_walked;
    uint64_t chunks_run, chunks_serial; /**< chunks of walked tiles */
    uint64_t tie_runs;                  /**< summaries/runs whose two parities differed */
    uint64_t serial_terms;              /**< terms added by the non-binade fallback */
} ExactSumStats;

/** The window and summaries of one tile, as the GPU's first kernel computes them. */
static inline void exact_sum_summarize_tile(const float *t, size_t len, int *lo,
                                            int *identity_from, int *invalid,
                                            ExactSumRun summary[EXACT_SUM_WINDOW],
                                            ExactSumStats *stats)
{
    float sum = 0.f;
    uint32_t max_bits = 0;
    *invalid = 0;
    for (size_t i = 0; i < len; i++) {
        const uint32_t b = vmaf_bits_of_float(t[i]);
        if (exact_sum_term_invalid(b)) *invalid = 1;
        if ((b & 0x7fffffffu) > max_bits) max_bits = b & 0x7fffffffu;
        sum += t[i];
    }
    exact_sum_window(sum, max_bits, lo, identity_from);
    const int width = exact_sum_summary_end(*lo, *identity_from) - *lo;
    for (int c = 0; c < width; c++) summary[c] = exact_sum_run_identity();
    if (*invalid) return;
    for (size_t c0 = 0; c0 < len; c0 += EXACT_SUM_CHUNK) {
        const int clen =
            len - c0 < (size_t)EXACT_SUM_CHUNK ? (int)(len - c0) : (int)EXACT_SUM_CHUNK;
        uint32_t ties = 0; /* bit c: some term is a tie in binade lo + c */
        for (int i = 0; i < clen; i++) ties |= exact_sum_tie_bit(vmaf_bits_of_float(t[c0 + i]), *lo);
        for (int c = 0; c < width; c++) {
            const ExactSumRun r = exact_sum_chunk_run(t + c0, clen, *lo + c, (ties >> c) & 1);
            summary[c] = exact_sum_combine(summary[c], r);
        }
    }
    for (int c = 0; c < width; c++) {
        summary[c] = exact_sum_run_unpack(exact_sum_run_pack(summary[c])); /* as stored */
        if (stats) stats->tie_runs += summary[c].add_even != summary[c].add_odd;
    }
}

/**
 * The serial sum, computed the way the GPU does it: tile summaries for a window of binades,
 * tiles walked by chunks where the accumulator crosses a binade, crossing chunks added in
 * float. Bit-identical to vmaf_exact_sum_serial for every input. stats may be NULL.
 */
static inline float vmaf_exact_sum_binade_stats(const float *t, size_t n, float acc0,
                                                ExactSumStats *stats)
{
    ExactSumStats local;
    ExactSumRun summary[EXACT_SUM_WINDOW];
    float acc = acc0;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof(*stats));

    for (size_t base = 0; base < n; base += EXACT_SUM_TILE) {
        const size_t len = n - base < (size_t)EXACT_SUM_TILE ? n - base : (size_t)EXACT_SUM_TILE;
        const float *tile = t + base;
        int lo, identity_from, invalid;
        exact_sum_summarize_tile(tile, len, &lo, &identity_from, &invalid, summary, stats);

        uint32_t bits = vmaf_bits_of_float(acc);
        if (exact_sum_walkable(bits)) {
            const int b = exact_sum_binade(bits);
            const int action = exact_sum_tile_action(b, lo, identity_from, invalid);
            if (action == EXACT_SUM_TILE_IDENTITY) {
                stats->tiles_identity++;
                continue;
            }
            if (action == EXACT_SUM_TILE_SUMMARY) {
                const uint32_t end = exact_sum_apply(summary[b - lo], exact_sum_units(bits, b));
                if (end < EXACT_SUM_UNITS_END) {
                    acc = exact_sum_from_units(b, end);
                    stats->tiles_summary++;
                    continue;
                }
            }
        }
        stats->tiles_walked++;
        for (size_t c0 = 0; c0 < len; c0 += EXACT_SUM_CHUNK) {
            const int clen =
                len - c0 < (size_t)EXACT_SUM_CHUNK ? (int)(len - c0) : (int)EXACT_SUM_CHUNK;
            bits = vmaf_bits_of_float(acc);
            if (!invalid && exact_sum_walkable(bits)) {
                const int b = exact_sum_binade(bits);
                const ExactSumRun r = exact_sum_chunk_run(tile + c0, clen, b, 1);
                const uint32_t end = exact_sum_apply(r, exact_sum_units(bits, b));
                stats->tie_runs += r.add_even != r.add_odd;
                if (end < EXACT_SUM_UNITS_END) {
                    acc = exact_sum_from_units(b, end);
                    stats->chunks_run++;
                    continue;
                }
                stats->chunks_serial++;
            } else {
                stats->serial_terms += (uint64_t)clen;
            }
            for (int i = 0; i < clen; i++) acc += tile[c0 + i];
        }
    }
    return acc;
}

static inline float vmaf_exact_sum_binade(const float *t, size_t n, float acc0)
{
    return vmaf_exact_sum_binade_stats(t, n, acc0, NULL);
}

#endif /* !VMAF_DIALECT_OPENCL */

#endif /* VMAF_FEATURE_EXACT_SUM_H */
