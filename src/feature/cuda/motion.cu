// motion twin: the SAD of the filtered difference of two luma planes, as the CPU computes it.
// Every intermediate is exact in 64-bit integers (arithmetic shifts floor like the CPU's), and
// a row's sum of absolute values stays below 2^32 for widths up to 32768, so summing all rows
// in 64 bits in any order equals the CPU's per-row 32-bit sums added in row order.
#include <stdint.h>

#include "feature/cuda/kernel_args.h"
#include "feature/motion.h"

template <typename T>
__device__ void motion_sad(const MotionCudaArgs &a)
{
    __shared__ long long v[MOTION_CUDA_TILE + 2 * VMAF_MOTION_RADIUS];
    __shared__ unsigned long long warp_sum[MOTION_CUDA_THREADS / 32];
    const int w = (int)a.w, h = (int)a.h;
    const int row = blockIdx.y;
    const int x0 = blockIdx.x * MOTION_CUDA_TILE;
    const int n = min(MOTION_CUDA_TILE, w - x0);
    const int shift = vmaf_motion_vertical_shift(a.bpc);
    const long long rnd = 1ll << (shift - 1);
    const long long k[5] = { VMAF_MOTION_K_OUTER, VMAF_MOTION_K_INNER, VMAF_MOTION_K_CENTER,
                             VMAF_MOTION_K_INNER, VMAF_MOTION_K_OUTER };
    const T *prow[5], *crow[5];
    for (int t = 0; t < 5; t++) {
        const int r = vmaf_reflect101(row - VMAF_MOTION_RADIUS + t, h);
        prow[t] = (const T *)(a.prev + (unsigned long long)r * a.stride);
        crow[t] = (const T *)(a.cur + (unsigned long long)r * a.stride);
    }
    // vertical pass for columns x0-2 .. x0+n+1 (mirrored)
    for (int i = threadIdx.x; i < n + 2 * VMAF_MOTION_RADIUS; i += blockDim.x) {
        const int x = vmaf_reflect101(x0 - VMAF_MOTION_RADIUS + i, w);
        long long acc = 0;
        for (int t = 0; t < 5; t++) acc += k[t] * ((long long)prow[t][x] - (long long)crow[t][x]);
        v[i] = (acc + rnd) >> shift;
    }
    __syncthreads();
    unsigned long long sum = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        long long acc = 0;
        for (int t = 0; t < 5; t++) acc += k[t] * v[i + t];
        const long long s = (acc + (1ll << (VMAF_MOTION_K_SHIFT - 1))) >> VMAF_MOTION_K_SHIFT;
        sum += (unsigned long long)(s < 0 ? -s : s);
    }
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (unsigned i = 0; i < blockDim.x / 32; i++) total += warp_sum[i];
        if (total) atomicAdd((unsigned long long *)a.sad, total);
    }
}

extern "C" __global__ void __launch_bounds__(MOTION_CUDA_THREADS) vmaf_motion_sad_8(MotionCudaArgs a)
{
    motion_sad<uint8_t>(a);
}

extern "C" __global__ void __launch_bounds__(MOTION_CUDA_THREADS) vmaf_motion_sad_16(MotionCudaArgs a)
{
    motion_sad<uint16_t>(a);
}
