// vif twin: one kernel per scale (statistic of the scale + its part of the next scale). The
// arithmetic and the per-thread work of each phase are vif_device.h's (shared with the host
// test); here only the thread mapping, the barriers and the block reduction, whose result
// thread 0 adds to the scale's sums (4 atomic adds per block, integers: any order is exact).
// Compiled with --fmad=false (no contraction of the per-pixel double arithmetic).
#include <stdint.h>

#include "feature/twins/kernel_args.h"
#include "feature/vif_device.h"

__device__ static void block_sum_add(VmafVifSums acc, VmafVifSums *sums)
{
    __shared__ long long warp_sum[VIF_CUDA_THREADS / 32][4];
    long long v[4] = { acc.num_log, acc.den_log, acc.num_non_log, acc.den_non_log };
#pragma unroll
    for (int i = 0; i < 4; i++)
        for (int o = 16; o > 0; o >>= 1) v[i] += __shfl_down_sync(0xffffffffu, v[i], o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
#pragma unroll
        for (int i = 0; i < 4; i++) warp_sum[warp][i] = v[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        long long s[4] = { 0, 0, 0, 0 };
        for (int k = 0; k < VIF_CUDA_THREADS / 32; k++)
#pragma unroll
            for (int i = 0; i < 4; i++) s[i] += warp_sum[k][i];
        // two's complement: the unsigned sum modulo 2^64 is the signed one
        atomicAdd((unsigned long long *)&sums->num_log, (unsigned long long)s[0]);
        atomicAdd((unsigned long long *)&sums->den_log, (unsigned long long)s[1]);
        atomicAdd((unsigned long long *)&sums->num_non_log, (unsigned long long)s[2]);
        atomicAdd((unsigned long long *)&sums->den_non_log, (unsigned long long)s[3]);
    }
}

// FW: the scale's filter width; SUB_FW: the next scale's (0 at scale 3); T: the sample type.
template <int FW, int SUB_FW, typename T>
__device__ static void vif_scale(const VifCudaArgs &a)
{
    __shared__ VifDevTile tile;
    constexpr int SUB = SUB_FW ? SUB_FW : 1;
    constexpr int WIDE = sizeof(T) > 1;
    uint32_t f[FW], sub_f[SUB];
#pragma unroll
    for (int k = 0; k < FW; k++) f[k] = a.filter[k];
#pragma unroll
    for (int k = 0; k < SUB; k++) sub_f[k] = SUB_FW ? a.sub_filter[k] : 0;
    VifCudaArgs args = a;
    if (!SUB_FW) args.sub = 0;
    const int tid = threadIdx.x, bx = blockIdx.x, by = blockIdx.y;

    vif_dev_phase_load(&tile, &args, FW, WIDE, bx, by, tid);
    __syncthreads();
    vif_dev_phase_vertical(&tile, &args, f, FW, sub_f, SUB, !WIDE, tid);
    __syncthreads();
    VmafVifSums acc = { 0, 0, 0, 0 };
    vif_dev_phase_horizontal(&tile, &args, f, FW, sub_f, SUB, bx, by, tid, &acc);
    if (args.stat) block_sum_add(acc, (VmafVifSums *)(uintptr_t)args.sums);
}

extern "C" __global__ void __launch_bounds__(VIF_CUDA_THREADS, VIF_CUDA_MIN_BLOCKS)
    vmaf_vif_scale0_8(VifCudaArgs a)
{
    vif_scale<17, 9, uint8_t>(a);
}

extern "C" __global__ void __launch_bounds__(VIF_CUDA_THREADS, VIF_CUDA_MIN_BLOCKS)
    vmaf_vif_scale0_16(VifCudaArgs a)
{
    vif_scale<17, 9, uint16_t>(a);
}

extern "C" __global__ void __launch_bounds__(VIF_CUDA_THREADS, VIF_CUDA_MIN_BLOCKS)
    vmaf_vif_scale1(VifCudaArgs a)
{
    vif_scale<9, 5, uint16_t>(a);
}

extern "C" __global__ void __launch_bounds__(VIF_CUDA_THREADS, VIF_CUDA_MIN_BLOCKS)
    vmaf_vif_scale2(VifCudaArgs a)
{
    vif_scale<5, 3, uint16_t>(a);
}

extern "C" __global__ void __launch_bounds__(VIF_CUDA_THREADS, VIF_CUDA_MIN_BLOCKS)
    vmaf_vif_scale3(VifCudaArgs a)
{
    vif_scale<3, 0, uint16_t>(a);
}
