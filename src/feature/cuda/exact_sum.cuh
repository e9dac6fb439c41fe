// exact_sum on the GPU: the serial float sum of non-negative terms (feature/exact_sum.h), bit
// for bit, in two launches on one stream and no host round trip (graph-safe: no allocation,
// no memset, no data-dependent launch shape). Up to three independent sums per launch pair.
//
//   vmaf_exact_sum_tiles  grid (tiles, arrays) x 128 threads. One block per tile of 4096 terms,
//                         32 consecutive terms per thread, one read of the terms. The block
//                         finds the tile's window [lo, identity_from) from its float sum and
//                         largest term and summarises the tile for every binade of the window
//                         (at most 25; ~20 on psnr_hvs-like data): each thread adds its terms in
//                         float from the binade's lowest even start (and from the odd start,
//                         only in warps where some term is a tie in that binade), the warp adds
//                         the runs up (one REDUX when no lane has a tie, else an ordered
//                         reduction), and the 4 warp runs are combined in order. The packed runs
//                         go to summary[binade][tile]. Cost: ~window FADDs per term; it is
//                         bound by instruction issue.
//   vmaf_exact_sum_walk   grid (arrays) x 256 threads, one block per sum, bound by latency. It
//                         walks the tiles in pages of 4096: the page's runs for the
//                         accumulator's binade (identity above a tile's window, "crosses" below
//                         it) are loaded (coalesced: one binade's runs are contiguous) and
//                         published to shared memory, a block scan finds the first tile whose
//                         run leaves the binade, and all tiles before it are applied at once.
//                         That tile is walked by chunks of 16 terms the same way (a block scan
//                         of 256 chunk runs simulated in registers); the chunk that crosses is
//                         added term by term in float, and its warp finishes its own 32 chunks
//                         with warp scans before the block rescans the rest. The page scan then
//                         resumes after the tile in the new binade, whose runs were requested
//                         (as binade + 1) before the walk. A plane walks one tile per doubling
//                         of its sum after the first tile (12 for 11M psnr_hvs-like terms).
//
// Include from exactly one .cu per module (it defines the two kernels). Build with
// --fmad=false and without fast math: flushing denormals would change the sums.
// -DEXACT_SUM_PROFILE counts the walk's steps and cycles into exact_sum_profile[].
#ifndef VMAF_FEATURE_CUDA_EXACT_SUM_CUH
#define VMAF_FEATURE_CUDA_EXACT_SUM_CUH

#include <stdint.h>

#include "../exact_sum.h"

#define EXACT_SUM_FULL 0xffffffffu

enum {
    EXACT_SUM_TILE_PER_THREAD = EXACT_SUM_TILE / EXACT_SUM_TILES_THREADS, /* 32 */
    EXACT_SUM_TILES_WARPS = EXACT_SUM_TILES_THREADS / 32,
    EXACT_SUM_WALK_WARPS = EXACT_SUM_WALK_THREADS / 32,
    EXACT_SUM_PAGE_PER_THREAD = 16,
    EXACT_SUM_PAGE = EXACT_SUM_WALK_THREADS * EXACT_SUM_PAGE_PER_THREAD, /* tiles */
    EXACT_SUM_GROUP = 4, /* binades simulated together (independent FADD chains) */
};

static_assert((int)EXACT_SUM_WALK_THREADS == (int)EXACT_SUM_CHUNKS,
              "the walker simulates one chunk per thread");
static_assert(EXACT_SUM_TILE_PER_THREAD % 4 == 0 && EXACT_SUM_CHUNK % 4 == 0, "float4 loads");
static_assert(EXACT_SUM_WINDOW + EXACT_SUM_GROUP <= 32, "tie masks are 32-bit");
static_assert(EXACT_SUM_PAGE_PER_THREAD == 16, "page_index assumes 16 tiles per thread");

#ifdef EXACT_SUM_PROFILE
/* Totals of the walk, for tuning (see exact_sum_gpu_test --profile builds). */
__device__ unsigned long long exact_sum_profile[12];
#endif

/* -------------------------------------------------------------------------------------- */
/* Small helpers                                                                          */

/* Array i of the launch, without indexing the parameter block dynamically (which would copy
 * it to local memory). */
template <typename T>
static __device__ __forceinline__ T exact_sum_pick(const T v[EXACT_SUM_MAX_ARRAYS], unsigned i)
{
    return i == 0 ? v[0] : i == 1 ? v[1] : v[2];
}

/** r[i] for a runtime i < N, by selects (no local-memory copy of the array). */
template <int N>
static __device__ __forceinline__ ExactSumRun exact_sum_pick_run(const ExactSumRun r[N], int i)
{
    ExactSumRun v = r[0];
#pragma unroll
    for (int j = 1; j < N; j++)
        if (i == j) v = r[j];
    return v;
}

/** Scratch of one array: summary[binade * tiles + tile] (packed runs), then word[tile]. */
struct ExactSumScratch {
    uint32_t *summary;
    uint32_t *word;
    unsigned long long tiles;
};

static __device__ __forceinline__ ExactSumScratch exact_sum_scratch(unsigned long long base,
                                                                    unsigned long long tiles)
{
    ExactSumScratch s;
    s.summary = (uint32_t *)base;
    s.word = s.summary + tiles * 255;
    s.tiles = tiles;
    return s;
}

/** n terms from `first` into registers; zeros past the end (they add nothing to acc >= 0). */
template <int N>
static __device__ __forceinline__ void exact_sum_load(float t[N], const float *terms,
                                                      unsigned long long n,
                                                      unsigned long long first)
{
    if (first + N <= n && ((uintptr_t)(terms + first) & 15) == 0) {
        const float4 *v = (const float4 *)(terms + first);
#pragma unroll
        for (int q = 0; q < N / 4; q++) {
            const float4 x = v[q];
            t[4 * q] = x.x;
            t[4 * q + 1] = x.y;
            t[4 * q + 2] = x.z;
            t[4 * q + 3] = x.w;
        }
    } else {
#pragma unroll
        for (int i = 0; i < N; i++) t[i] = first + i < n ? terms[first + i] : 0.f;
    }
}

/* -------------------------------------------------------------------------------------- */
/* Ordered combination of runs across a warp and a block                                  */

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

/** Runs of lanes 0..31 combined in lane order; valid in lane 0. */
static __device__ __forceinline__ ExactSumRun exact_sum_warp_reduce(ExactSumRun r, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const ExactSumRun next = exact_sum_shfl_down(r, d);
        if ((lane & (2 * d - 1)) == 0) r = exact_sum_combine(r, next);
    }
    return r;
}

/* -------------------------------------------------------------------------------------- */
/* Kernel 1: tile summaries                                                               */

extern "C" __global__ void __launch_bounds__(EXACT_SUM_TILES_THREADS)
vmaf_exact_sum_tiles(ExactSumCudaArgs a)
{
    __shared__ float warp_sum[EXACT_SUM_TILES_WARPS];
    __shared__ uint32_t warp_max[EXACT_SUM_TILES_WARPS], warp_invalid[EXACT_SUM_TILES_WARPS];
    __shared__ ExactSumRun warp_run[EXACT_SUM_WINDOW + EXACT_SUM_GROUP][EXACT_SUM_TILES_WARPS];

    const unsigned arr = blockIdx.y;
    const unsigned long long n = exact_sum_pick(a.n, arr), tiles = exact_sum_tiles(n);
    const unsigned long long tile = blockIdx.x;
    if (tile >= tiles) return;
    const float *terms = (const float *)exact_sum_pick(a.terms, arr);
    const ExactSumScratch s = exact_sum_scratch(exact_sum_pick(a.scratch, arr), tiles);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    float t[EXACT_SUM_TILE_PER_THREAD];
    exact_sum_load<EXACT_SUM_TILE_PER_THREAD>(
        t, terms, n,
        tile * EXACT_SUM_TILE + (unsigned long long)threadIdx.x * EXACT_SUM_TILE_PER_THREAD);

    /* The window: float sum (in a fixed order, so the window is reproducible), largest term,
     * and whether any term is outside the contract. */
    float sum = 0.f;
    uint32_t max_bits = 0, invalid = 0;
#pragma unroll
    for (int i = 0; i < EXACT_SUM_TILE_PER_THREAD; i++) {
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
    for (int w = 0; w < EXACT_SUM_TILES_WARPS; w++) {
        sum += warp_sum[w];
        max_bits = max(max_bits, warp_max[w]);
        invalid |= warp_invalid[w];
    }
    int lo, identity_from;
    exact_sum_window(sum, max_bits, &lo, &identity_from);
    if (threadIdx.x == 0) s.word[tile] = exact_sum_tile_word(lo, identity_from, invalid);
    if (invalid) return; /* the walker adds this tile serially */
    const int width = exact_sum_summary_end(lo, identity_from) - lo;

    /* Binades in which some term of this warp is a tie (bit binade - lo). */
    uint32_t ties = 0;
#pragma unroll
    for (int i = 0; i < EXACT_SUM_TILE_PER_THREAD; i++)
        ties |= exact_sum_tie_bit(__float_as_uint(t[i]), lo);
    ties = __reduce_or_sync(EXACT_SUM_FULL, ties);

    for (int c0 = 0; c0 < width; c0 += EXACT_SUM_GROUP) {
        /* one independent chain per binade of the group (binades past the window are
         * simulated too, and dropped) */
        uint32_t start[EXACT_SUM_GROUP], add[EXACT_SUM_GROUP], total[EXACT_SUM_GROUP];
        float even[EXACT_SUM_GROUP];
#pragma unroll
        for (int g = 0; g < EXACT_SUM_GROUP; g++) {
            start[g] = exact_sum_start_bits(min(lo + c0 + g, 254), 0);
            even[g] = __uint_as_float(start[g]);
        }
#pragma unroll
        for (int i = 0; i < EXACT_SUM_TILE_PER_THREAD; i++)
#pragma unroll
            for (int g = 0; g < EXACT_SUM_GROUP; g++) even[g] += t[i];
#pragma unroll
        for (int g = 0; g < EXACT_SUM_GROUP; g++) {
            add[g] = exact_sum_units_added(__float_as_uint(even[g]), start[g],
                                           min(lo + c0 + g, 254));
            total[g] = __reduce_add_sync(EXACT_SUM_FULL, add[g]); /* <= 32 * 2^24 */
        }
#pragma unroll
        for (int g = 0; g < EXACT_SUM_GROUP; g++) {
            const int c = c0 + g;
            ExactSumRun run;
            if ((ties >> c) & 1) { /* warp-uniform: some lane has a tie in this binade */
                float odd = __uint_as_float(start[g] + 1);
#pragma unroll
                for (int i = 0; i < EXACT_SUM_TILE_PER_THREAD; i++) odd += t[i];
                run.add_even = add[g];
                run.add_odd = exact_sum_units_added(__float_as_uint(odd), start[g] + 1,
                                                    min(lo + c, 254));
                run = exact_sum_warp_reduce(run, lane);
            } else { /* both parities add the same: runs compose by plain addition */
                run.add_even = run.add_odd = min(total[g], (uint32_t)EXACT_SUM_SAT);
            }
            if (lane == 0) warp_run[c][warp] = run;
        }
    }
    __syncthreads();
    if ((int)threadIdx.x < width) {
        ExactSumRun run = warp_run[threadIdx.x][0];
#pragma unroll
        for (int w = 1; w < EXACT_SUM_TILES_WARPS; w++)
            run = exact_sum_combine(run, warp_run[threadIdx.x][w]);
        s.summary[(lo + threadIdx.x) * tiles + tile] = exact_sum_run_pack(run);
    }
}

/* -------------------------------------------------------------------------------------- */
/* Kernel 2: the walk                                                                     */

/** Inclusive scan of runs over a warp, in lane order. */
static __device__ __forceinline__ ExactSumRun exact_sum_warp_scan(ExactSumRun r, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const ExactSumRun prev = exact_sum_shfl_up(r, d);
        if (lane >= d) r = exact_sum_combine(prev, r);
    }
    return r;
}

static __device__ __forceinline__ ExactSumRun exact_sum_shfl(ExactSumRun r, int src)
{
    r.add_even = __shfl_sync(EXACT_SUM_FULL, r.add_even, src);
    r.add_odd = __shfl_sync(EXACT_SUM_FULL, r.add_odd, src);
    return r;
}

/**
 * Exclusive scan of one run per thread, in thread order, over the walker's block; *total gets
 * the whole block's run. Every thread calls it with the same *phase, which it flips: the two
 * phases use separate shared buffers, so one barrier per call is enough.
 */
static __device__ ExactSumRun exact_sum_block_scan(ExactSumRun r, ExactSumRun *total, int *phase)
{
    __shared__ ExactSumRun warp_total[2][EXACT_SUM_WALK_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, p = *phase;
    *phase = p ^ 1;
    const ExactSumRun incl = exact_sum_warp_scan(r, lane);
    ExactSumRun excl = exact_sum_shfl_up(incl, 1);
    if (lane == 0) excl = exact_sum_run_identity();
    if (lane == 31) warp_total[p][warp] = incl;
    __syncthreads();
    /* the warp totals, scanned by the first EXACT_SUM_WALK_WARPS lanes of every warp */
    ExactSumRun wt = lane < EXACT_SUM_WALK_WARPS ? warp_total[p][lane] : exact_sum_run_identity();
#pragma unroll
    for (int d = 1; d < EXACT_SUM_WALK_WARPS; d <<= 1) {
        const ExactSumRun prev = exact_sum_shfl_up(wt, d);
        if (lane >= d) wt = exact_sum_combine(prev, wt);
    }
    *total = exact_sum_shfl(wt, EXACT_SUM_WALK_WARPS - 1);
    ExactSumRun before = exact_sum_shfl(wt, warp > 0 ? warp - 1 : 0);
    if (warp == 0) before = exact_sum_run_identity();
    return exact_sum_combine(before, excl);
}

struct ExactSumWalk {
    const float *terms;
    unsigned long long n, tiles;
    ExactSumScratch scratch;
    float *acc;  /* shared: the accumulator between tiles, uniform after every barrier */
    int phase;   /* of exact_sum_block_scan */
#ifdef EXACT_SUM_PROFILE
    unsigned long long *prof; /* shared, thread 0 */
#endif
};

#ifdef EXACT_SUM_PROFILE
#define EXACT_SUM_PROF(w, i, v) (threadIdx.x == 0 ? (void)((w)->prof[i] += (v)) : (void)0)
#else
#define EXACT_SUM_PROF(w, i, v) ((void)0)
#endif

/** Thread 0 adds terms [first, last) to *w->acc in float: the fallback for inputs outside
 * the contract and for an accumulator that overflowed (exact by definition). */
static __device__ void exact_sum_serial(ExactSumWalk *w, unsigned long long first,
                                        unsigned long long last)
{
    __syncthreads(); /* every thread has read *acc */
    if (threadIdx.x == 0) {
        float x = *w->acc;
        for (unsigned long long i = first; i < last && i < w->n; i++) x += w->terms[i];
        *w->acc = x;
    }
    __syncthreads();
}

/** Run of this thread's chunk in a binade (both parities simulated). */
static __device__ __forceinline__ ExactSumRun
exact_sum_chunk_run_regs(const float t[EXACT_SUM_CHUNK], int binade)
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

/**
 * Add one tile to *w->acc (walkable on entry), by chunks of 16 terms, one per thread: a block
 * scan of the chunk runs in the accumulator's binade finds the first chunk that leaves it;
 * the chunks before it are applied at once and that chunk is added in float. Its warp then
 * carries on alone to the end of its 32 chunks the same way, with warp scans (the first tile
 * of a plane crosses many binades within its first few hundred terms); then the block
 * rescans the rest in the new binade.
 */
static __device__ void exact_sum_walk_tile(ExactSumWalk *w, unsigned long long tile)
{
    __shared__ float tile_acc[2]; /* double-buffered: one barrier per round */
    __shared__ int tile_done[2];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned long long first = tile * EXACT_SUM_TILE;
    if ((w->scratch.word[tile] >> 16) & 1) { /* holds NaN or negative terms */
        exact_sum_serial(w, first, first + EXACT_SUM_TILE);
        return;
    }
    float t[EXACT_SUM_CHUNK];
    exact_sum_load<EXACT_SUM_CHUNK>(t, w->terms, w->n,
                                    first + (unsigned long long)threadIdx.x * EXACT_SUM_CHUNK);
    if (threadIdx.x == 0) {
        tile_acc[0] = *w->acc;
        tile_done[0] = 0;
    }
    __syncthreads();
    for (int r = 0;; r ^= 1) {
        EXACT_SUM_PROF(w, 4, 1);
        const float acc = tile_acc[r];
        const int done = tile_done[r]; /* chunks already added */
        const uint32_t bits = __float_as_uint(acc);
        if (!exact_sum_walkable(bits)) { /* overflowed to +inf */
            if (threadIdx.x == 0) *w->acc = acc;
            exact_sum_serial(w, first + (unsigned long long)done * EXACT_SUM_CHUNK,
                             first + EXACT_SUM_TILE);
            return;
        }
        const int binade = exact_sum_binade(bits);
        const uint32_t units = exact_sum_units(bits, binade);
        const ExactSumRun run = (int)threadIdx.x >= done ? exact_sum_chunk_run_regs(t, binade)
                                                          : exact_sum_run_identity();
        ExactSumRun total;
        const ExactSumRun before = exact_sum_block_scan(run, &total, &w->phase);
        const uint32_t end = exact_sum_apply(total, units);
        if (end < EXACT_SUM_UNITS_END) { /* the rest of the tile stays in this binade */
            if (threadIdx.x == 0) *w->acc = exact_sum_from_units(binade, end);
            __syncthreads();
            return;
        }
        const uint32_t here = exact_sum_apply(before, units);
        const bool crosses = (int)threadIdx.x >= done && here < EXACT_SUM_UNITS_END &&
                             exact_sum_apply(run, here) >= EXACT_SUM_UNITS_END;
        const unsigned who = __ballot_sync(EXACT_SUM_FULL, crosses);
        if (who) { /* this warp holds the crossing chunk */
            int last = __ffs(who) - 1; /* lanes up to `last` are added */
            float x = exact_sum_from_units(binade, here); /* exactly the serial value here */
            if (crosses)
#pragma unroll
                for (int i = 0; i < EXACT_SUM_CHUNK; i++) x += t[i];
            x = __shfl_sync(EXACT_SUM_FULL, x, last);
            while (last < 31 && exact_sum_walkable(__float_as_uint(x))) {
                EXACT_SUM_PROF(w, 11, 1);
                const int b = exact_sum_binade(__float_as_uint(x));
                const uint32_t u = exact_sum_units(__float_as_uint(x), b);
                const ExactSumRun wr = lane > last ? exact_sum_chunk_run_regs(t, b)
                                                   : exact_sum_run_identity();
                const ExactSumRun incl = exact_sum_warp_scan(wr, lane);
                const uint32_t wend = exact_sum_apply(exact_sum_shfl(incl, 31), u);
                if (wend < EXACT_SUM_UNITS_END) {
                    x = exact_sum_from_units(b, wend);
                    last = 31;
                    break;
                }
                ExactSumRun wex = exact_sum_shfl_up(incl, 1);
                if (lane == 0) wex = exact_sum_run_identity();
                const uint32_t h = exact_sum_apply(wex, u);
                const bool c = lane > last && h < EXACT_SUM_UNITS_END &&
                               exact_sum_apply(wr, h) >= EXACT_SUM_UNITS_END;
                last = __ffs(__ballot_sync(EXACT_SUM_FULL, c)) - 1;
                float y = exact_sum_from_units(b, h);
                if (c)
#pragma unroll
                    for (int i = 0; i < EXACT_SUM_CHUNK; i++) y += t[i];
                x = __shfl_sync(EXACT_SUM_FULL, y, last);
            }
            if (lane == 0) {
                tile_acc[r ^ 1] = x;
                tile_done[r ^ 1] = 32 * warp + last + 1;
            }
        }
        __syncthreads();
        if (tile_done[r ^ 1] >= EXACT_SUM_CHUNKS) {
            if (threadIdx.x == 0) *w->acc = tile_acc[r ^ 1];
            __syncthreads();
            return;
        }
    }
}

/*
 * A page's runs for one binade are fetched "transposed": load slot i of thread tid is tile
 * page + EXACT_SUM_WALK_THREADS * i + tid (coalesced: the summaries of one binade are
 * contiguous), then published to shared memory, from which the scan gives each thread 16
 * consecutive tiles. The padding keeps both access patterns free of bank conflicts.
 */
static __device__ __forceinline__ int exact_sum_page_index(int x)
{
    return x + (x >> 4);
}

enum { EXACT_SUM_PAGE_PADDED = EXACT_SUM_PAGE + EXACT_SUM_PAGE / 16 };

/** Runs of this thread's transposed tiles for one binade, as loads in flight: nothing reads
 * `raw` until the page is published. */
struct ExactSumFetch {
    uint32_t raw[EXACT_SUM_PAGE_PER_THREAD]; /* packed runs */
    uint32_t actions;                        /* 2 bits per tile: enum ExactSumTileAction */
    int binade;
};

/** Fetch the runs of the page's tiles for a binade; tiles before `from` count as added. */
static __device__ __forceinline__ void exact_sum_fetch(ExactSumFetch *f, const ExactSumWalk *w,
                                                       const uint32_t word[],
                                                       unsigned long long page,
                                                       unsigned long long from, int binade)
{
    f->binade = binade;
    f->actions = 0;
#pragma unroll
    for (int i = 0; i < EXACT_SUM_PAGE_PER_THREAD; i++) {
        const unsigned long long tile = page + EXACT_SUM_WALK_THREADS * i + threadIdx.x;
        const int action = tile < from ? EXACT_SUM_TILE_IDENTITY
                                       : exact_sum_tile_action(binade, word[i] & 0xff,
                                                               (word[i] >> 8) & 0xff,
                                                               (word[i] >> 16) & 1);
        f->actions |= (uint32_t)action << (2 * i);
        /* an unconditional load (entry 0 always exists), so that no select waits for it */
        const unsigned long long at =
            action == EXACT_SUM_TILE_SUMMARY ? (unsigned long long)binade * w->tiles + tile : 0;
        f->raw[i] = w->scratch.summary[at];
    }
}

/** The first tile >= from of the page whose word is flagged invalid, or `to`. */
static __device__ unsigned long long exact_sum_first_invalid(const uint32_t word[],
                                                             unsigned long long page,
                                                             unsigned long long from,
                                                             unsigned long long to)
{
    __shared__ unsigned long long first;
    __syncthreads();
    if (threadIdx.x == 0) first = to;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < EXACT_SUM_PAGE_PER_THREAD; i++) {
        const unsigned long long tile = page + EXACT_SUM_WALK_THREADS * i + threadIdx.x;
        if (tile >= from && tile < to && ((word[i] >> 16) & 1)) atomicMin(&first, tile);
    }
    __syncthreads();
    return first;
}

extern "C" __global__ void __launch_bounds__(EXACT_SUM_WALK_THREADS)
vmaf_exact_sum_walk(ExactSumCudaArgs a)
{
    __shared__ float acc;
    __shared__ unsigned long long crossing_tile;
    __shared__ uint32_t page_run[EXACT_SUM_PAGE_PADDED]; /* packed */
    const unsigned arr = blockIdx.x;
    ExactSumWalk w;
    w.terms = (const float *)exact_sum_pick(a.terms, arr);
    w.n = exact_sum_pick(a.n, arr);
    w.tiles = exact_sum_tiles(w.n);
    w.scratch = exact_sum_scratch(exact_sum_pick(a.scratch, arr), w.tiles);
    w.acc = &acc;
    w.phase = 0;
#ifdef EXACT_SUM_PROFILE
    __shared__ unsigned long long prof[12];
    w.prof = prof;
    if (threadIdx.x < 12) prof[threadIdx.x] = 0;
#endif
    if (threadIdx.x == 0) acc = exact_sum_pick(a.acc0, arr);
    __syncthreads();

    for (unsigned long long page = 0; page < w.tiles; page += EXACT_SUM_PAGE) {
        const unsigned long long page_end = min(page + EXACT_SUM_PAGE, w.tiles);
        uint32_t word[EXACT_SUM_PAGE_PER_THREAD]; /* transposed */
#pragma unroll
        for (int i = 0; i < EXACT_SUM_PAGE_PER_THREAD; i++) {
            const unsigned long long tile = page + EXACT_SUM_WALK_THREADS * i + threadIdx.x;
            word[i] = tile < page_end ? w.scratch.word[tile] : exact_sum_tile_word(1, 1, 0);
        }
        ExactSumFetch fetch;
        fetch.binade = 0; /* nothing fetched */
        unsigned long long next = page; /* first tile of the page not yet added */
        while (next < page_end) {
            const uint32_t bits = __float_as_uint(acc);
            if (!exact_sum_walkable(bits)) {
                if ((bits & 0x7fffffffu) > EXACT_SUM_INF_BITS) { /* NaN stays NaN */
                    next = page_end;
                    page = w.tiles;
                } else if (bits == EXACT_SUM_INF_BITS) { /* +inf: only NaN / -inf change it */
                    const unsigned long long bad =
                        exact_sum_first_invalid(word, page, next, page_end);
                    if (bad < page_end)
                        exact_sum_serial(&w, bad * EXACT_SUM_TILE, (bad + 1) * EXACT_SUM_TILE);
                    next = bad + 1;
                } else { /* negative (only from terms outside the contract, or acc0 = -0) */
                    exact_sum_serial(&w, next * EXACT_SUM_TILE, (next + 1) * EXACT_SUM_TILE);
                    next++;
                }
                continue;
            }
            const int binade = exact_sum_binade(bits);
            const uint32_t units = exact_sum_units(bits, binade);
#ifdef EXACT_SUM_PROFILE
            const long long t0 = clock64();
#endif
            EXACT_SUM_PROF(&w, 0, 1);
            if (fetch.binade != binade) {
                EXACT_SUM_PROF(&w, 6, 1);
                exact_sum_fetch(&fetch, &w, word, page, next, binade);
            }
            /* Publish the page's runs (tiles already added are the identity). */
#pragma unroll
            for (int i = 0; i < EXACT_SUM_PAGE_PER_THREAD; i++) {
                const int x = EXACT_SUM_WALK_THREADS * i + threadIdx.x;
                const int action = (fetch.actions >> (2 * i)) & 3;
                uint32_t v = fetch.raw[i];
                if (page + x < next || action == EXACT_SUM_TILE_IDENTITY) v = 0;
                else if (action == EXACT_SUM_TILE_WALK) v = EXACT_SUM_SAT; /* both parities */
                page_run[exact_sum_page_index(x)] = v;
            }
            __syncthreads();
#ifdef EXACT_SUM_PROFILE
            const long long ta = clock64();
            EXACT_SUM_PROF(&w, 5, ta - t0);
#endif
            /* This thread's 16 tiles, composed as a tree that the search below descends. */
            const unsigned long long mine0 = page + EXACT_SUM_PAGE_PER_THREAD * threadIdx.x;
            ExactSumRun run[EXACT_SUM_PAGE_PER_THREAD], pair[8], quad[4], oct[2];
#pragma unroll
            for (int i = 0; i < EXACT_SUM_PAGE_PER_THREAD; i++)
                run[i] = exact_sum_run_unpack(
                    page_run[exact_sum_page_index(EXACT_SUM_PAGE_PER_THREAD * threadIdx.x + i)]);
#pragma unroll
            for (int i = 0; i < 8; i++) pair[i] = exact_sum_combine(run[2 * i], run[2 * i + 1]);
#pragma unroll
            for (int i = 0; i < 4; i++) quad[i] = exact_sum_combine(pair[2 * i], pair[2 * i + 1]);
#pragma unroll
            for (int i = 0; i < 2; i++) oct[i] = exact_sum_combine(quad[2 * i], quad[2 * i + 1]);
            const ExactSumRun mine = exact_sum_combine(oct[0], oct[1]);
            ExactSumRun total;
            const ExactSumRun before = exact_sum_block_scan(mine, &total, &w.phase);
            const uint32_t end = exact_sum_apply(total, units);
#ifdef EXACT_SUM_PROFILE
            const long long tb = clock64();
            EXACT_SUM_PROF(&w, 7, tb - ta);
#endif
            if (end < EXACT_SUM_UNITS_END) { /* the rest of the page stays in this binade */
                __syncthreads(); /* every thread has read acc and page_run */
                if (threadIdx.x == 0) acc = exact_sum_from_units(binade, end);
                __syncthreads();
                next = page_end;
                continue;
            }
            /* Exactly one thread holds the first tile that leaves the binade; it finds it by
             * descending its tree. */
            uint32_t here = exact_sum_apply(before, units);
            if (here < EXACT_SUM_UNITS_END && exact_sum_apply(mine, here) >= EXACT_SUM_UNITS_END) {
                int at = 0;
                uint32_t h = exact_sum_apply(oct[0], here);
                if (h < EXACT_SUM_UNITS_END) { here = h; at = 8; }
                h = exact_sum_apply(at ? quad[2] : quad[0], here);
                if (h < EXACT_SUM_UNITS_END) { here = h; at += 4; }
                h = exact_sum_apply(exact_sum_pick_run<8>(pair, at >> 1), here);
                if (h < EXACT_SUM_UNITS_END) { here = h; at += 2; }
                h = exact_sum_apply(exact_sum_pick_run<16>(run, at), here);
                if (h < EXACT_SUM_UNITS_END) { here = h; at += 1; }
                crossing_tile = mine0 + at;
                acc = exact_sum_from_units(binade, here);
            }
            __syncthreads();
#ifdef EXACT_SUM_PROFILE
            EXACT_SUM_PROF(&w, 8, clock64() - tb);
#endif
            const unsigned long long tile = crossing_tile;
            /* The walk most likely leaves the accumulator one binade up: fetch that binade's
             * runs (register loads, consumed only at the next publish). */
            if (binade < 254) exact_sum_fetch(&fetch, &w, word, page, tile + 1, binade + 1);
#ifdef EXACT_SUM_PROFILE
            const long long t1 = clock64();
            EXACT_SUM_PROF(&w, 1, t1 - t0);
            EXACT_SUM_PROF(&w, 2, 1);
#endif
            exact_sum_walk_tile(&w, tile);
#ifdef EXACT_SUM_PROFILE
            EXACT_SUM_PROF(&w, 3, clock64() - t1);
#endif
            next = tile + 1;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) ((float *)a.result)[arr] = acc;
#ifdef EXACT_SUM_PROFILE
    if (threadIdx.x < 12) exact_sum_profile[threadIdx.x] += prof[threadIdx.x];
#endif
}

#endif /* VMAF_FEATURE_CUDA_EXACT_SUM_CUH */
