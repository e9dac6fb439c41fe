// psnr twin: per-plane sum of squared differences. Integer sums are exact in any order.
//
// A block takes every gridDim.x-th row of one plane (blockIdx.y); its threads take 16-byte
// chunks of the row. Where the plane's addresses and stride are 16-byte aligned (the
// backend's slots always are), a whole chunk is one vector load per input: 8-bit samples
// give |e| per byte (__vabsdiffu4) and e^2 summed four at a time (__dp4a), 16-bit samples
// two squares per word. The row's tail, and planes that are not aligned, go sample by sample.
// Per thread, 8-bit squares add up in 32 bits within a row (a thread's share of a row stays
// below 2^32 / 65025 samples for rows under 16 million samples), then in 64 bits.
#include <stdint.h>

#include "feature/twins/kernel_args.h"

__device__ static unsigned sse_word_8(unsigned r, unsigned d, unsigned acc)
{
    const unsigned e = __vabsdiffu4(r, d);
    return __dp4a(e, e, acc);
}

__device__ static unsigned long long sse_word_16(unsigned r, unsigned d)
{
    const int e0 = (int)(r & 0xffffu) - (int)(d & 0xffffu), e1 = (int)(r >> 16) - (int)(d >> 16);
    return (unsigned long long)((long long)e0 * e0) + (unsigned long long)((long long)e1 * e1);
}

// element p of a parameter array, selected without indexing it (an indexed parameter array
// is copied to the stack)
template <typename A>
__device__ static A pick(const A v[3], unsigned p)
{
    return p == 0 ? v[0] : p == 1 ? v[1] : v[2];
}

template <typename T>
__device__ void psnr_sse(const PsnrCudaArgs &a)
{
    const unsigned p = blockIdx.y;
    if (p >= a.n_planes) return;
    const unsigned w = pick(a.w, p), h = pick(a.h, p);
    const vmaf_devptr ref = pick(a.ref, p), dist = pick(a.dist, p);
    const unsigned long long stride = pick(a.stride, p);
    constexpr unsigned PER = 16 / sizeof(T); // samples per chunk
    const bool aligned = !((ref | dist | stride) & 15);
    const unsigned full = aligned ? w / PER : 0; // whole chunks per row, vector loads
    unsigned long long sum = 0;
    for (unsigned y = blockIdx.x; y < h; y += gridDim.x) {
        const T *r = (const T *)(ref + y * stride);
        const T *d = (const T *)(dist + y * stride);
        unsigned row = 0;
        for (unsigned c = threadIdx.x; c < full; c += blockDim.x) {
            const uint4 rv = ((const uint4 *)r)[c], dv = ((const uint4 *)d)[c];
            if (sizeof(T) == 1) {
                row = sse_word_8(rv.x, dv.x, row);
                row = sse_word_8(rv.y, dv.y, row);
                row = sse_word_8(rv.z, dv.z, row);
                row = sse_word_8(rv.w, dv.w, row);
            } else {
                sum += sse_word_16(rv.x, dv.x) + sse_word_16(rv.y, dv.y) +
                       sse_word_16(rv.z, dv.z) + sse_word_16(rv.w, dv.w);
            }
        }
        for (unsigned x = full * PER + threadIdx.x; x < w; x += blockDim.x) {
            const long long e = (long long)r[x] - (long long)d[x];
            sum += (unsigned long long)(e * e);
        }
        sum += row;
    }
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
    __shared__ unsigned long long warp_sum[PSNR_CUDA_THREADS / 32];
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (unsigned i = 0; i < blockDim.x / 32; i++) total += warp_sum[i];
        atomicAdd((unsigned long long *)a.sse + p, total);
    }
}

extern "C" __global__ void __launch_bounds__(PSNR_CUDA_THREADS) vmaf_psnr_sse_8(PsnrCudaArgs a)
{
    psnr_sse<uint8_t>(a);
}

extern "C" __global__ void __launch_bounds__(PSNR_CUDA_THREADS) vmaf_psnr_sse_16(PsnrCudaArgs a)
{
    psnr_sse<uint16_t>(a);
}
