// ciede twin: the per-pixel CIEDE2000 differences (ciede_device.h, the CPU's own functions),
// then their double sum by one thread in the CPU's row-major order (exact by construction;
// adding the exact zeros of equal pixels changes nothing, as on the CPU).
#include <stdint.h>

#include "feature/ciede_device.h"
#include "feature/cuda/kernel_args.h"

__device__ VmafCiedePlanes ciede_planes(const CiedeCudaArgs &a, int dist)
{
    VmafCiedePlanes p;
    for (int k = 0; k < 3; k++) {
        p.data[k] = (const unsigned char *)(dist ? a.dist[k] : a.ref[k]);
        p.stride[k] = (size_t)a.stride[k];
        p.w[k] = a.pw[k];
        p.h[k] = a.ph[k];
    }
    return p;
}

// grid (ceil(w / CIEDE_CUDA_THREADS), h): pixel (blockIdx.y, blockIdx.x * blockDim.x + x)
extern "C" __global__ void __launch_bounds__(CIEDE_CUDA_THREADS) vmaf_ciede_diff(CiedeCudaArgs a)
{
    const unsigned j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= a.w) return;
    const VmafCiedePlanes ref = ciede_planes(a, 0), dis = ciede_planes(a, 1);
    ((float *)a.diff)[(size_t)i * a.w + j] = vmaf_ciede_pixel(&ref, &dis, a.bpc, a.layout, i, j);
}

// one thread: sum += diff in row-major order, as ciede.c
extern "C" __global__ void vmaf_ciede_sum(CiedeCudaArgs a)
{
    if (threadIdx.x || blockIdx.x) return;
    const float *d = (const float *)a.diff;
    const size_t n = (size_t)a.w * a.h;
    double sum = 0.;
    for (size_t k = 0; k < n; k++) sum += d[k];
    *(double *)a.sum = sum;
}
