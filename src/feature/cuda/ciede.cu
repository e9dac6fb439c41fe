// ciede twin: the per-pixel CIEDE2000 differences (ciede_device.h, the CPU's own functions),
// then their double sum in the CPU's row-major order, by one block that gives the serial
// loop's bits (seq_sum.cuh; adding the exact zeros of equal pixels changes nothing, as on the
// CPU, where they are skipped).
#include <stdint.h>

#include "feature/ciede_device.h"
#include "feature/twins/kernel_args.h"
#include "feature/cuda/seq_sum.cuh"

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

// one block of SEQ_SUM_THREADS: sum += diff in row-major order, as ciede.c (diff: 16-byte aligned)
extern "C" __global__ void __launch_bounds__(SEQ_SUM_THREADS) vmaf_ciede_sum(CiedeCudaArgs a)
{
    vmaf_seq_sum_block((const float *)a.diff, (unsigned long long)a.w * a.h, (double *)a.sum);
}
