// psnr twin: per-plane sum of squared differences. Integer sums are exact in any order.
#include <stdint.h>

#include "feature/cuda/kernel_args.h"

template <typename T>
__device__ void psnr_sse(const PsnrCudaArgs &a)
{
    const unsigned p = blockIdx.y;
    if (p >= a.n_planes) return;
    const unsigned w = a.w[p], h = a.h[p];
    unsigned long long sum = 0;
    for (unsigned y = blockIdx.x; y < h; y += gridDim.x) {
        const T *r = (const T *)(a.ref[p] + y * a.stride[p]);
        const T *d = (const T *)(a.dist[p] + y * a.stride[p]);
        for (unsigned x = threadIdx.x; x < w; x += blockDim.x) {
            const int e = (int)r[x] - (int)d[x];
            sum += (unsigned)(e * e);
        }
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
