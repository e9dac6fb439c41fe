// exact_sum on the GPU: the serial float sum of non-negative terms (feature/exact_sum.h), bit
// for bit, in two launches on one stream and no host round trip (graph-safe: no allocation,
// no memset, no data-dependent launch shape).
//
//   vmaf_exact_sum_tiles  grid (tiles, arrays) x 256 threads. One block per tile of 4096 terms,
//                         16 consecutive terms (a chunk) per thread. The block finds the tile's
//                         window [lo, identity_from) from its float sum and largest term, then
//                         summarises the tile for every binade of the window (at most 26): each
//                         thread adds its chunk in float from the binade's lowest even start
//                         (and odd start, only in warps where some term is a tie in that
//                         binade), the warp combines the chunk runs (a plain integer sum when
//                         no lane has a tie), and the 8 warp runs are combined in order.
//                         Cost: ~(window) x 16 FADDs per thread; memory: one read of the terms.
//   vmaf_exact_sum_walk   grid (arrays) x 256 threads, one block per sum. It walks the tiles in
//                         pages of 4096 tiles (16 per thread): every thread fetches its tiles'
//                         runs for the accumulator's binade (identity above the window, a
//                         "crossing" marker below it), a block scan finds the first tile whose
//                         run would leave the binade, and everything before it is applied at
//                         once. That tile is walked by chunks the same way (a block scan of the
//                         256 chunk runs, recomputed in registers for the current binade), and
//                         the chunk that crosses is added term by term in float. Then the scan
//                         resumes after the tile, in the new binade. Each crossing costs a few
//                         dependent global loads and block scans (~2 us); a plane has one per
//                         doubling of the sum after the first tile (~12 for 11M terms).
//
// Include from exactly one .cu per module (it defines the two kernels). Build with
// --fmad=false and without fast math: flushing denormals would change the sums.
#ifndef VMAF_FEATURE_CUDA_EXACT_SUM_CUH
#define VMAF_FEATURE_CUDA_EXACT_SUM_CUH

#include <stdint.h>

#include "../exact_sum.h"

#define EXACT_SUM_FULL 0xffffffffu

enum {
    EXACT_SUM_WARPS = EXACT_SUM_CHUNKS / 32,
    EXACT_SUM_WALK_TILES_PER_THREAD = 16,
    EXACT_SUM_PAGE = EXACT_SUM_WALK_THREADS * EXACT_SUM_WALK_TILES_PER_THREAD,
    EXACT_SUM_CANDIDATE_GROUP = 4, /* binades simulated together (independent FADD chains) */
};

static_assert(EXACT_SUM_CHUNKS % 32 == 0 && (int)EXACT_SUM_WALK_THREADS == (int)EXACT_SUM_CHUNKS,
              "the walker scans one chunk run per thread");
static_assert(EXACT_SUM_WINDOW <= 32, "tie masks are 32-bit");

/* -------------------------------------------------------------------------------------- */
/* Layout of an array's scratch                                                           */

struct ExactSumScratch {
    uint2 *summary;  /* [tile][EXACT_SUM_WINDOW]: add_even, add_odd */
    uint32_t *word;  /* [tile]: exact_sum_tile_word */
};

static __device__ __forceinline__ ExactSumScratch exact_sum_scratch(unsigned long long base,
                                                                    unsigned long long tiles)
{
    ExactSumScratch s;
    s.summary = (uint2 *)base;
    s.word = (uint32_t *)(s.summary + tiles * EXACT_SUM_WINDOW);
    return s;
}

/* Array i of the launch, without indexing the parameter block dynamically (which would copy
 * it to local memory). */
template <typename T>
static __device__ __forceinline__ T exact_sum_pick(const T v[EXACT_SUM_MAX_ARRAYS], unsigned i)
{
    return i == 0 ? v[0] : i == 1 ? v[1] : v[2];
}

static __device__ __forceinline__ ExactSumRun exact_sum_run_of(uint2 v)
{
    ExactSumRun r;
    r.add_even = v.x;
    r.add_odd = v.y;
    return r;
}

/* -------------------------------------------------------------------------------------- */
/* Ordered warp and block combination of runs                                             */

static __device__ __forceinline__ ExactSumRun exact_sum_shfl_down(ExactSumRun r, int d)
{
    r.add_even = __shfl_down_sync(EXACT_SUM_FULL, r.add_even, d);
    r.add_odd = __shfl_down_sync(EXACT_SUM_FULL, r.add_odd, d);
    return r;
}

static __device__ __forceinline__ ExactSumRun exact_sum_shfl_up(ExactSumRun r, int d)
{
    r.add_even = __shfl_up_sync(EXACT_SUM_FULL, r.add_even, d);
    r.add_odd = __shfl_up_sync(EXACT_SUM_FULL, r.add_odd, d);
    return r;
}

/** Runs of lanes 0..31 combined in lane order; the result is valid in lane 0. */
static __device__ __forceinline__ ExactSumRun exact_sum_warp_reduce(ExactSumRun r, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const ExactSumRun next = exact_sum_shfl_down(r, d);
        if ((lane & (2 * d - 1)) == 0) r = exact_sum_combine(r, next);
    }
    return r;
}

/**
 * Exclusive scan of one run per thread, in thread order, over a block of EXACT_SUM_CHUNKS
 * threads; *total gets the whole block's run. Every thread must call it.
 */
static __device__ ExactSumRun exact_sum_block_scan(ExactSumRun r, ExactSumRun *total)
{
    __shared__ ExactSumRun warp_total[EXACT_SUM_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    ExactSumRun incl = r;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const ExactSumRun prev = exact_sum_shfl_up(incl, d);
        if (lane >= d) incl = exact_sum_combine(prev, incl);
    }
    ExactSumRun excl = exact_sum_shfl_up(incl, 1);
    if (lane == 0) excl = exact_sum_run_identity();
    if (lane == 31) warp_total[warp] = incl;
    __syncthreads();
    ExactSumRun before = exact_sum_run_identity(), all = exact_sum_run_identity();
#pragma unroll
    for (int w = 0; w < EXACT_SUM_WARPS; w++) {
        if (w == warp) before = all;
        all = exact_sum_combine(all, warp_total[w]);
    }
    __syncthreads(); /* warp_total is reused by the next call */
    *total = all;
    return exact_sum_combine(before, excl);
}

/* -------------------------------------------------------------------------------------- */
/* Chunks in registers                                                                    */

/** This thread's chunk of a tile (zeros past n: they add nothing to an accumulator >= +0). */
static __device__ __forceinline__ void exact_sum_load_chunk(float t[EXACT_SUM_CHUNK],
                                                            const float *terms,
                                                            unsigned long long n,
                                                            unsigned long long first)
{
    if (first + EXACT_SUM_CHUNK <= n && ((uintptr_t)(terms + first) & 15) == 0) {
        const float4 *v = (const float4 *)(terms + first);
#pragma unroll
        for (int q = 0; q < EXACT_SUM_CHUNK / 4; q++) {
            const float4 x = v[q];
            t[4 * q] = x.x;
            t[4 * q + 1] = x.y;
            t[4 * q + 2] = x.z;
            t[4 * q + 3] = x.w;
        }
    } else {
#pragma unroll
        for (int i = 0; i < EXACT_SUM_CHUNK; i++) t[i] = first + i < n ? terms[first + i] : 0.f;
    }
}

/** Both chains of a chunk for one binade (exact_sum_chunk_run on registers). */
static __device__ __forceinline__ ExactSumRun exact_sum_chunk_run_regs(const float t[EXACT_SUM_CHUNK],
                                                                       int binade)
{
    const uint32_t start = exact_sum_start_bits(binade, 0);
    float even = __uint_as_float(start), odd = __uint_as_float(start + 1);
#pragma unroll
    for (int i = 0; i < EXACT_SUM_CHUNK; i++) {
        even += t[i];
        odd += t[i];
    }
    ExactSumRun r;
    r.add_even = exact_sum_units_added(__float_as_uint(even), start, binade);
    r.add_odd = exact_sum_units_added(__float_as_uint(odd), start + 1, binade);
    return r;
}

/* -------------------------------------------------------------------------------------- */
/* Kernel 1: tile summaries                                                               */

extern "C" __global__ void __launch_bounds__(EXACT_SUM_CHUNKS)
vmaf_exact_sum_tiles(ExactSumCudaArgs a)
{
    __shared__ float warp_sum[EXACT_SUM_WARPS];
    __shared__ uint32_t warp_max[EXACT_SUM_WARPS], warp_invalid[EXACT_SUM_WARPS];
    __shared__ ExactSumRun warp_run[EXACT_SUM_WINDOW + EXACT_SUM_CANDIDATE_GROUP][EXACT_SUM_WARPS];

    const unsigned arr = blockIdx.y;
    const unsigned long long n = exact_sum_pick(a.n, arr), tiles = exact_sum_tiles(n);
    const unsigned long long tile = blockIdx.x;
    if (tile >= tiles) return;
    const float *terms = (const float *)exact_sum_pick(a.terms, arr);
    const ExactSumScratch s = exact_sum_scratch(exact_sum_pick(a.scratch, arr), tiles);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    float t[EXACT_SUM_CHUNK];
    exact_sum_load_chunk(t, terms, n,
                         tile * EXACT_SUM_TILE + (unsigned long long)threadIdx.x * EXACT_SUM_CHUNK);

    /* The window: float sum (a fixed order, so the window is reproducible), largest term,
     * and whether any term is outside the contract. */
    float sum = 0.f;
    uint32_t max_bits = 0, invalid = 0;
#pragma unroll
    for (int i = 0; i < EXACT_SUM_CHUNK; i++) {
        const uint32_t b = __float_as_uint(t[i]);
        invalid |= exact_sum_term_invalid(b);
        max_bits = max(max_bits, b & 0x7fffffffu);
        sum += t[i];
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(EXACT_SUM_FULL, sum, d);
    max_bits = __reduce_max_sync(EXACT_SUM_FULL, max_bits);
    invalid = __any_sync(EXACT_SUM_FULL, invalid);
    if (lane == 0) {
        warp_sum[warp] = sum;
        warp_max[warp] = max_bits;
        warp_invalid[warp] = invalid;
    }
    __syncthreads();
    sum = 0.f;
    max_bits = 0;
    invalid = 0;
#pragma unroll
    for (int w = 0; w < EXACT_SUM_WARPS; w++) {
        sum += warp_sum[w];
        max_bits = max(max_bits, warp_max[w]);
        invalid |= warp_invalid[w];
    }
    int lo, identity_from;
    exact_sum_window(sum, max_bits, &lo, &identity_from);
    if (threadIdx.x == 0) s.word[tile] = exact_sum_tile_word(lo, identity_from, invalid);
    if (invalid) return; /* the walker adds this tile serially */
    const int width = exact_sum_summary_end(lo, identity_from) - lo;

    /* Binades (relative to lo) in which some term of this warp is a tie. */
    uint32_t ties = 0;
#pragma unroll
    for (int i = 0; i < EXACT_SUM_CHUNK; i++) {
        const unsigned slot = (unsigned)(exact_sum_tie_binade(__float_as_uint(t[i])) - lo);
        if (slot < (unsigned)width) ties |= 1u << slot;
    }
    ties = __reduce_or_sync(EXACT_SUM_FULL, ties);

    for (int c0 = 0; c0 < width; c0 += EXACT_SUM_CANDIDATE_GROUP) {
        /* independent chains, one per binade of the group (a binade past the window is
         * simulated too and ignored) */
        uint32_t start[EXACT_SUM_CANDIDATE_GROUP];
        float even[EXACT_SUM_CANDIDATE_GROUP];
#pragma unroll
        for (int g = 0; g < EXACT_SUM_CANDIDATE_GROUP; g++) {
            start[g] = exact_sum_start_bits(min(lo + c0 + g, 254), 0);
            even[g] = __uint_as_float(start[g]);
        }
#pragma unroll
        for (int i = 0; i < EXACT_SUM_CHUNK; i++)
#pragma unroll
            for (int g = 0; g < EXACT_SUM_CANDIDATE_GROUP; g++) even[g] += t[i];
#pragma unroll
        for (int g = 0; g < EXACT_SUM_CANDIDATE_GROUP; g++) {
            const int c = c0 + g, binade = min(lo + c, 254);
            const uint32_t add = exact_sum_units_added(__float_as_uint(even[g]), start[g], binade);
            ExactSumRun run;
            if ((ties >> c) & 1) { /* warp-uniform: some lane has a tie in this binade */
                float odd = __uint_as_float(start[g] + 1);
#pragma unroll
                for (int i = 0; i < EXACT_SUM_CHUNK; i++) odd += t[i];
                run.add_even = add;
                run.add_odd = exact_sum_units_added(__float_as_uint(odd), start[g] + 1, binade);
                run = exact_sum_warp_reduce(run, lane);
            } else { /* both parities add the same: runs compose by plain addition */
                const uint32_t total = __reduce_add_sync(EXACT_SUM_FULL, add); /* <= 2^29 */
                run.add_even = run.add_odd = min(total, (uint32_t)EXACT_SUM_SAT);
            }
            if (lane == 0) warp_run[c][warp] = run;
        }
    }
    __syncthreads();
    if ((int)threadIdx.x < width) {
        ExactSumRun run = warp_run[threadIdx.x][0];
#pragma unroll
        for (int w = 1; w < EXACT_SUM_WARPS; w++)
            run = exact_sum_combine(run, warp_run[threadIdx.x][w]);
        s.summary[tile * EXACT_SUM_WINDOW + threadIdx.x] = make_uint2(run.add_even, run.add_odd);
    }
}

/* -------------------------------------------------------------------------------------- */
/* Kernel 2: the walk                                                                     */

struct ExactSumWalk {
    const float *terms;
    unsigned long long n, tiles;
    ExactSumScratch scratch;
};

/** Thread 0 adds terms [first, last) in float to the shared accumulator (the fallback for
 * inputs outside the contract; exact by definition). */
static __device__ void exact_sum_serial(const ExactSumWalk *w, unsigned long long first,
                                        unsigned long long last, float *acc)
{
    __syncthreads(); /* every thread has read *acc */
    if (threadIdx.x == 0) {
        float x = *acc;
        for (unsigned long long i = first; i < last && i < w->n; i++) x += w->terms[i];
        *acc = x;
    }
    __syncthreads();
}

/**
 * Add one tile to the shared accumulator (walkable on entry), chunk by chunk: a block scan of
 * the chunk runs in the current binade finds the first chunk that leaves it; the chunks
 * before it are applied at once, that chunk is added in float, and the rest is rescanned in
 * the new binade.
 */
static __device__ void exact_sum_walk_tile(const ExactSumWalk *w, unsigned long long tile,
                                           float *acc)
{
    __shared__ int next_chunk;
    const unsigned long long first = tile * EXACT_SUM_TILE;
    if ((w->scratch.word[tile] >> 16) & 1) { /* holds NaN or negative terms */
        exact_sum_serial(w, first, first + EXACT_SUM_TILE, acc);
        return;
    }
    float t[EXACT_SUM_CHUNK];
    exact_sum_load_chunk(t, w->terms, w->n, first + (unsigned long long)threadIdx.x * EXACT_SUM_CHUNK);
    int done = 0; /* chunks already added */
    for (;;) {
        const uint32_t bits = __float_as_uint(*acc);
        if (!exact_sum_walkable(bits)) { /* overflowed to +inf */
            exact_sum_serial(w, first + (unsigned long long)done * EXACT_SUM_CHUNK,
                             first + EXACT_SUM_TILE, acc);
            return;
        }
        const int binade = exact_sum_binade(bits);
        const uint32_t units = exact_sum_units(bits, binade);
        const ExactSumRun run = (int)threadIdx.x >= done ? exact_sum_chunk_run_regs(t, binade)
                                                          : exact_sum_run_identity();
        ExactSumRun total;
        const ExactSumRun before = exact_sum_block_scan(run, &total);
        const uint32_t end = exact_sum_apply(total, units);
        if (end < EXACT_SUM_UNITS_END) { /* the rest of the tile stays in this binade */
            __syncthreads();
            if (threadIdx.x == 0) *acc = exact_sum_from_units(binade, end);
            __syncthreads();
            return;
        }
        const uint32_t here = exact_sum_apply(before, units);
        if (here < EXACT_SUM_UNITS_END && exact_sum_apply(run, here) >= EXACT_SUM_UNITS_END) {
            float x = exact_sum_from_units(binade, here); /* exactly the serial value here */
#pragma unroll
            for (int i = 0; i < EXACT_SUM_CHUNK; i++) x += t[i];
            *acc = x;
            next_chunk = threadIdx.x + 1;
        }
        __syncthreads();
        done = next_chunk;
        if (done >= EXACT_SUM_CHUNKS) return;
    }
}

/** The first tile in [from, to) of this page (this thread owns tiles mine0 .. +16) whose word
 * is flagged invalid, or `to`. */
static __device__ unsigned long long exact_sum_first_invalid(const uint32_t word[],
                                                             unsigned long long mine0,
                                                             unsigned long long from,
                                                             unsigned long long to)
{
    __shared__ unsigned long long first;
    if (threadIdx.x == 0) first = to;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < EXACT_SUM_WALK_TILES_PER_THREAD; i++) {
        const unsigned long long tile = mine0 + i;
        if (tile >= from && tile < to && ((word[i] >> 16) & 1)) {
            atomicMin(&first, tile);
            break;
        }
    }
    __syncthreads();
    const unsigned long long r = first;
    __syncthreads();
    return r;
}

extern "C" __global__ void __launch_bounds__(EXACT_SUM_WALK_THREADS)
vmaf_exact_sum_walk(ExactSumCudaArgs a)
{
    __shared__ float acc;
    __shared__ unsigned long long crossing_tile;
    const unsigned arr = blockIdx.x;
    ExactSumWalk w;
    w.terms = (const float *)exact_sum_pick(a.terms, arr);
    w.n = exact_sum_pick(a.n, arr);
    w.tiles = exact_sum_tiles(w.n);
    w.scratch = exact_sum_scratch(exact_sum_pick(a.scratch, arr), w.tiles);
    if (threadIdx.x == 0) acc = exact_sum_pick(a.acc0, arr);
    __syncthreads();

    for (unsigned long long page = 0; page < w.tiles; page += EXACT_SUM_PAGE) {
        const unsigned long long page_end = min(page + EXACT_SUM_PAGE, w.tiles);
        const unsigned long long mine0 =
            page + (unsigned long long)threadIdx.x * EXACT_SUM_WALK_TILES_PER_THREAD;
        uint32_t word[EXACT_SUM_WALK_TILES_PER_THREAD];
#pragma unroll
        for (int i = 0; i < EXACT_SUM_WALK_TILES_PER_THREAD; i++)
            word[i] = mine0 + i < page_end ? w.scratch.word[mine0 + i]
                                           : exact_sum_tile_word(1, 1, 0); /* identity */

        unsigned long long next = page; /* first tile of the page not yet added */
        while (next < page_end) {
            const uint32_t bits = __float_as_uint(acc);
            if (!exact_sum_walkable(bits)) {
                if ((bits & 0x7fffffffu) > EXACT_SUM_INF_BITS) { /* NaN stays NaN */
                    next = page_end;
                    page = w.tiles;
                } else if (bits == EXACT_SUM_INF_BITS) { /* +inf: only NaN / -inf can change it */
                    const unsigned long long bad = exact_sum_first_invalid(word, mine0, next, page_end);
                    if (bad < page_end)
                        exact_sum_serial(&w, bad * EXACT_SUM_TILE, (bad + 1) * EXACT_SUM_TILE, &acc);
                    next = bad + (bad < page_end);
                } else { /* negative (only from terms outside the contract, or acc0 = -0) */
                    exact_sum_serial(&w, next * EXACT_SUM_TILE, (next + 1) * EXACT_SUM_TILE, &acc);
                    next++;
                }
                continue;
            }
            const int binade = exact_sum_binade(bits);
            const uint32_t units = exact_sum_units(bits, binade);

            /* This thread's tiles in the current binade. */
            ExactSumRun run[EXACT_SUM_WALK_TILES_PER_THREAD];
#pragma unroll
            for (int i = 0; i < EXACT_SUM_WALK_TILES_PER_THREAD; i++) {
                const unsigned long long tile = mine0 + i;
                const int lo = word[i] & 0xff, identity_from = (word[i] >> 8) & 0xff;
                const int action = tile < next ? EXACT_SUM_TILE_IDENTITY
                                               : exact_sum_tile_action(binade, lo, identity_from,
                                                                       (word[i] >> 16) & 1);
                run[i] = action == EXACT_SUM_TILE_IDENTITY ? exact_sum_run_identity()
                       : action == EXACT_SUM_TILE_WALK     ? exact_sum_run_saturated()
                       : exact_sum_run_of(w.scratch.summary[tile * EXACT_SUM_WINDOW + (binade - lo)]);
            }
            ExactSumRun mine = run[0];
#pragma unroll
            for (int i = 1; i < EXACT_SUM_WALK_TILES_PER_THREAD; i++)
                mine = exact_sum_combine(mine, run[i]);
            ExactSumRun total;
            const ExactSumRun before = exact_sum_block_scan(mine, &total);
            const uint32_t end = exact_sum_apply(total, units);
            if (end < EXACT_SUM_UNITS_END) { /* the rest of the page stays in this binade */
                if (threadIdx.x == 0) acc = exact_sum_from_units(binade, end);
                __syncthreads();
                next = page_end;
                continue;
            }
            /* Exactly one thread holds the first tile that leaves the binade. */
            uint32_t here = exact_sum_apply(before, units);
            if (here < EXACT_SUM_UNITS_END && exact_sum_apply(mine, here) >= EXACT_SUM_UNITS_END) {
#pragma unroll
                for (int i = 0; i < EXACT_SUM_WALK_TILES_PER_THREAD; i++) {
                    const uint32_t after = exact_sum_apply(run[i], here);
                    if (after >= EXACT_SUM_UNITS_END) {
                        crossing_tile = mine0 + i;
                        acc = exact_sum_from_units(binade, here);
                        break;
                    }
                    here = after;
                }
            }
            __syncthreads();
            const unsigned long long tile = crossing_tile;
            exact_sum_walk_tile(&w, tile, &acc);
            next = tile + 1;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) ((float *)a.result)[arr] = acc;
}

#endif /* VMAF_FEATURE_CUDA_EXACT_SUM_CUH */
