// The serial double sum of floats by one block (feature/seq_sum_device.h explains why it gives
// the loop's bits; vmaf_seq_sum_emulate there is this function's order on the host).
//
// Contract: x is 16-byte aligned; one block of SEQ_SUM_THREADS threads calls it (all of them);
// *out receives the loop's sum of x[0..n). Elements past n are never read.
#ifndef VMAF_FEATURE_CUDA_SEQ_SUM_CUH
#define VMAF_FEATURE_CUDA_SEQ_SUM_CUH

#include "feature/seq_sum_device.h"

// L2 prefetch distance in chunks (0: none): one block reads at one SM's rate, so DRAM latency
// is hidden by prefetching into L2 ahead of the register double buffer.
#ifndef SEQ_SUM_PREFETCH
#define SEQ_SUM_PREFETCH 4
#endif

static_assert(SEQ_SUM_THREADS % 32 == 0 && SEQ_SUM_THREADS <= 1024, "SEQ_SUM_THREADS");
static_assert(SEQ_SUM_K % 4 == 0, "SEQ_SUM_K");

__device__ __forceinline__ SeqSumMap seq_sum_shfl_up(SeqSumMap m, unsigned d)
{
    SeqSumMap o;
    o.r[0] = __shfl_up_sync(0xffffffffu, (unsigned long long)m.r[0], d);
    o.r[1] = __shfl_up_sync(0xffffffffu, (unsigned long long)m.r[1], d);
    return o;
}

__device__ __forceinline__ SeqSumMap seq_sum_shfl(SeqSumMap m, int lane)
{
    SeqSumMap o;
    o.r[0] = __shfl_sync(0xffffffffu, (unsigned long long)m.r[0], lane);
    o.r[1] = __shfl_sync(0xffffffffu, (unsigned long long)m.r[1], lane);
    return o;
}

// Inclusive scan over the warp's lanes in lane order.
__device__ __forceinline__ SeqSumMap seq_sum_warp_scan(SeqSumMap v, int lane)
{
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
        const SeqSumMap o = seq_sum_shfl_up(v, d);
        if (lane >= (int)d) v = seq_sum_combine(o, v);
    }
    return v;
}

// The thread's segment of a chunk: SEQ_SUM_K floats from x[seg], zeros past n.
__device__ __forceinline__ void seq_sum_load(const float *x, unsigned long long n,
                                             unsigned long long seg, float v[SEQ_SUM_K])
{
    if (seg + SEQ_SUM_K <= n) {
        const float4 *p = (const float4 *)(x + seg);
#pragma unroll
        for (int i = 0; i < SEQ_SUM_K / 4; i++) {
            const float4 q = __ldg(p + i);
            v[4 * i] = q.x;
            v[4 * i + 1] = q.y;
            v[4 * i + 2] = q.z;
            v[4 * i + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < SEQ_SUM_K; j++) v[j] = seg + j < n ? x[seg + j] : 0.f;
    }
}

// The loop itself from s over x[from..n) (thread 0): invalid elements or a broken invariant.
__device__ __forceinline__ void seq_sum_serial(const float *x, unsigned long long from,
                                               unsigned long long n, double s, double *out)
{
    if (threadIdx.x) return;
    for (unsigned long long k = from; k < n; k++) s += (double)x[k];
    *out = s;
}

__device__ void vmaf_seq_sum_block(const float *x, unsigned long long n, double *out)
{
    __shared__ SeqSumMap warp_total[SEQ_SUM_WARPS], warp_excl[SEQ_SUM_WARPS];
    __shared__ SeqSumMap chunk_total;
    __shared__ SeqSumState next_state;
    __shared__ int next_pos;
    const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5;
    SeqSumState st = seq_sum_zero(); // the same in every thread
    float cur[SEQ_SUM_K], nxt[SEQ_SUM_K];
    seq_sum_load(x, n, (unsigned long long)tid * SEQ_SUM_K, cur);
    for (unsigned long long base = 0; base < n; base += SEQ_SUM_CHUNK) {
        const unsigned long long seg = base + (unsigned long long)tid * SEQ_SUM_K;
        if (SEQ_SUM_PREFETCH) { // the 128-byte lines of the chunk SEQ_SUM_PREFETCH ahead
            const unsigned long long ahead = base + (unsigned long long)SEQ_SUM_PREFETCH * SEQ_SUM_CHUNK;
            for (unsigned long long e = ahead + (unsigned long long)tid * 32; e < n && e < ahead + SEQ_SUM_CHUNK;
                 e += (unsigned long long)SEQ_SUM_THREADS * 32)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(x + e));
        }
        if (base + SEQ_SUM_CHUNK < n) seq_sum_load(x, n, seg + SEQ_SUM_CHUNK, nxt);
        const int count = seg >= n ? 0 : n - seg < SEQ_SUM_K ? (int)(n - seg) : SEQ_SUM_K;
        int pos = 0; // chunk elements already added
        for (;;) {
            int bad;
            const SeqSumMap own = seq_sum_segment_map(cur, pos - tid * SEQ_SUM_K, count, st.exp, &bad);
            const SeqSumMap inc = seq_sum_warp_scan(own, lane);
            if (lane == 31) warp_total[warp] = inc;
            if (__syncthreads_or(bad)) {
                seq_sum_serial(x, base + (unsigned long long)pos, n, seq_sum_value(st), out);
                return;
            }
            if (warp == 0) {
                const SeqSumMap t = lane < SEQ_SUM_WARPS ? warp_total[lane] : seq_sum_identity();
                const SeqSumMap scan = seq_sum_warp_scan(t, lane);
                const SeqSumMap before = seq_sum_shfl_up(scan, 1);
                if (lane < SEQ_SUM_WARPS) warp_excl[lane] = lane ? before : seq_sum_identity();
                if (lane == 31) chunk_total = scan;
                if (lane == 0) next_pos = -1; // stays so if no segment walks (cannot happen)
            }
            __syncthreads();
            const uint64_t end = seq_sum_apply(chunk_total, st.units);
            if (end < SEQ_SUM_TOP) {
                st.units = end;
                break;
            }
            // a crossing in this chunk: the one segment whose prefix starts below the top and
            // ends at or above it walks to it
            const SeqSumMap lane_before = seq_sum_shfl_up(inc, 1);
            const SeqSumMap before =
                lane ? seq_sum_combine(warp_excl[warp], lane_before) : warp_excl[warp];
            const SeqSumMap upto = seq_sum_combine(warp_excl[warp], inc);
            const uint64_t start = seq_sum_apply(before, st.units);
            if (start < SEQ_SUM_TOP && seq_sum_apply(upto, st.units) >= SEQ_SUM_TOP) {
                SeqSumState at = { start, st.exp };
                const int first = pos - tid * SEQ_SUM_K > 0 ? pos - tid * SEQ_SUM_K : 0;
                const int j = seq_sum_walk(x + seg, first, count, &at);
                next_state = at;
                next_pos = j < 0 ? -1 : tid * SEQ_SUM_K + j + 1;
            }
            __syncthreads();
            if (next_pos < 0) { // cannot happen (seq_sum_walk)
                seq_sum_serial(x, base + (unsigned long long)pos, n, seq_sum_value(st), out);
                return;
            }
            st = next_state;
            pos = next_pos;
        }
#pragma unroll
        for (int j = 0; j < SEQ_SUM_K; j++) cur[j] = nxt[j];
    }
    if (tid == 0) *out = seq_sum_value(st);
}

#endif // VMAF_FEATURE_CUDA_SEQ_SUM_CUH
