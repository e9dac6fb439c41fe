// adm twin: the integer ADM stages on the GPU, each thread running the CPU's per-element
// arithmetic from src/feature/cuda/adm_kernels.h (tested on the host by
// tests/twins/test_adm_twin.c).
// The sums are integers (uint64, wrapping like the CPU's): per-row totals are formed in a
// block, then added with one atomic per row and orientation, in any order.
#include <stdint.h>

#include "feature/cuda/adm_kernels.h"

static_assert(ADM_CUDA_TX == 32, "a warp is one row of a block");

// A warp per strip of output columns and a run of output rows (adm_kernels.h's mapping):
// each lane keeps the 4 picture rows of its two columns in registers, loading 2 new rows per
// output row (consecutive output rows share 2 of their 4 taps: tap k of row i+1 is tap k+2
// of row i, the same reflected row), and passes its vertical values to its neighbours.
template <typename T, int PIC>
__device__ void adm_dwt0_pic(const AdmDwt0CudaArgs &a)
{
    const int wide = sizeof(T) == 2;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int strip = blockIdx.x * ADM_DWT0_WARPS + warp;
    const int half_w = (a.w + 1) / 2, half_h = (a.h_pic + 1) / 2;
    if (strip * ADM_DWT0_STRIP >= half_w) return; // the whole warp
    const int j = vmaf_adm_k_dwt0_lane_col(strip, lane);
    const int c0 = 2 * j, c1 = 2 * j + 1;
    const bool in0 = c0 >= 0 && c0 < a.w, in1 = c1 >= 0 && c1 < a.w;
    const unsigned char *pic = (const unsigned char *)(uintptr_t)a.pic[PIC];
    const unsigned long long stride = a.pic_stride[PIC];
    const int i0 = blockIdx.y * ADM_DWT0_ROWS, i1 = min(i0 + ADM_DWT0_ROWS, half_h);
    uint32_t s0[4] = { 0, 0, 0, 0 }, s1[4] = { 0, 0, 0, 0 };
    for (int i = i0; i < i1; i++) {
        int k = 2;
        if (i == i0) {
            k = 0;
        } else {
            s0[0] = s0[2], s0[1] = s0[3], s1[0] = s1[2], s1[1] = s1[3];
        }
        for (; k < 4; k++) {
            const unsigned char *row = pic + (unsigned long long)vmaf_adm_picture_row(i, k, a.h_pic) * stride;
            if (in0) s0[k] = vmaf_adm_sample(row, c0, wide);
            if (in1) s1[k] = vmaf_adm_sample(row, c1, wide);
        }
        int16_t lo[2] = { 0, 0 }, hi[2] = { 0, 0 }, prev[2], next[2];
        if (in0) vmaf_adm_vpass0(s0[0], s0[1], s0[2], s0[3], a.bpc, &lo[0], &hi[0]);
        if (in1) vmaf_adm_vpass0(s1[0], s1[1], s1[2], s1[3], a.bpc, &lo[1], &hi[1]);
        prev[0] = (int16_t)__shfl_up_sync(0xffffffffu, (int)lo[1], 1);
        prev[1] = (int16_t)__shfl_up_sync(0xffffffffu, (int)hi[1], 1);
        next[0] = (int16_t)__shfl_down_sync(0xffffffffu, (int)lo[0], 1);
        next[1] = (int16_t)__shfl_down_sync(0xffffffffu, (int)hi[0], 1);
        if (vmaf_adm_k_dwt0_lane_writes(lane))
            vmaf_adm_k_dwt0_finish(&a, PIC, i, j, wide, prev, lo, hi, next);
    }
}

template <typename T>
__device__ void adm_dwt0(const AdmDwt0CudaArgs &a)
{
    // constant picture indices keep the argument arrays in registers (no local copy)
    if (blockIdx.z == 0)
        adm_dwt0_pic<T, 0>(a);
    else
        adm_dwt0_pic<T, 1>(a);
}

extern "C" __global__ void __launch_bounds__(32 * ADM_DWT0_WARPS)
    vmaf_adm_dwt0_8(AdmDwt0CudaArgs a)
{
    adm_dwt0<uint8_t>(a);
}

extern "C" __global__ void __launch_bounds__(32 * ADM_DWT0_WARPS)
    vmaf_adm_dwt0_16(AdmDwt0CudaArgs a)
{
    adm_dwt0<uint16_t>(a);
}

#define ADM_XY                                                                                 \
    const int j = blockIdx.x * blockDim.x + threadIdx.x;                                       \
    const int i = blockIdx.y * blockDim.y + threadIdx.y

extern "C" __global__ void __launch_bounds__(ADM_CUDA_TX * ADM_CUDA_TY)
    vmaf_adm_dwt123(AdmDwt123CudaArgs a)
{
    ADM_XY;
    const int lane = threadIdx.x;
    int32_t own0[4], own1[4], prev[4], next[4];
    vmaf_adm_k_dwt123_at(&a, i, 2 * j, own0);
    vmaf_adm_k_dwt123_at(&a, i, 2 * j + 1, own1);
    for (int l = 0; l < 4; l++) {
        prev[l] = __shfl_up_sync(0xffffffffu, own1[l], 1);
        next[l] = __shfl_down_sync(0xffffffffu, own0[l], 1);
    }
    if (lane == 0) vmaf_adm_k_dwt123_at(&a, i, 2 * j - 1, prev);
    if (lane == 31) vmaf_adm_k_dwt123_at(&a, i, 2 * j + 2, next);
    vmaf_adm_k_dwt123_finish(&a, i, j, prev, own0, own1, next);
}

extern "C" __global__ void __launch_bounds__(ADM_CUDA_TX * ADM_CUDA_TY)
    vmaf_adm_copy(AdmCopyCudaArgs a)
{
    ADM_XY;
    vmaf_adm_k_copy(&a, i, j);
}

extern "C" __global__ void __launch_bounds__(ADM_CUDA_TX * ADM_CUDA_TY)
    vmaf_adm_decouple0(AdmDecoupleCudaArgs a)
{
    ADM_XY;
    vmaf_adm_k_decouple0(&a, i, j);
}

extern "C" __global__ void __launch_bounds__(ADM_CUDA_TX * ADM_CUDA_TY)
    vmaf_adm_decouple123(AdmDecoupleCudaArgs a)
{
    ADM_XY;
    vmaf_adm_k_decouple123(&a, i, j);
}

extern "C" __global__ void __launch_bounds__(ADM_CUDA_TX * ADM_CUDA_TY)
    vmaf_adm_csf0(AdmCsfCudaArgs a)
{
    ADM_XY;
    if (blockIdx.z == 0) vmaf_adm_k_csf0(&a, 0, i, j);
    else if (blockIdx.z == 1) vmaf_adm_k_csf0(&a, 1, i, j);
    else vmaf_adm_k_csf0(&a, 2, i, j);
}

extern "C" __global__ void __launch_bounds__(ADM_CUDA_TX * ADM_CUDA_TY)
    vmaf_adm_csf123(AdmCsfCudaArgs a)
{
    ADM_XY;
    if (blockIdx.z == 0) vmaf_adm_k_csf123(&a, 0, i, j);
    else if (blockIdx.z == 1) vmaf_adm_k_csf123(&a, 1, i, j);
    else vmaf_adm_k_csf123(&a, 2, i, j);
}

// Block sum of n values per thread (uint64, wrapping); the result is valid in thread 0.
template <int N>
__device__ void adm_block_sum(unsigned long long v[N])
{
    __shared__ unsigned long long part[N][ADM_CUDA_ROW_THREADS / 32];
    for (int t = 0; t < N; t++)
        for (int o = 16; o > 0; o >>= 1) v[t] += __shfl_down_sync(0xffffffffu, v[t], o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        for (int t = 0; t < N; t++) part[t][warp] = v[t];
    __syncthreads();
    if (threadIdx.x == 0)
        for (int t = 0; t < N; t++) {
            unsigned long long s = 0;
            for (int k = 0; k < ADM_CUDA_ROW_THREADS / 32; k++) s += part[t][k];
            v[t] = s;
        }
}

template <int SCALE0>
__device__ void adm_cm(const AdmCmCudaArgs &a)
{
    const int slot = blockIdx.x;
    const VmafAdmCmRows c = vmaf_adm_cm_rows(a.w, a.h);
    const int n = vmaf_adm_cm_positions(&c);
    const VmafAdmCmParams p = vmaf_adm_k_cm_params(&a);
    uint64_t acc[3] = { 0, 0, 0 };
    for (int q = threadIdx.x; q < n; q += ADM_CUDA_ROW_THREADS)
        vmaf_adm_k_cm_pos(&a, &c, &p, SCALE0, slot, q, acc);
    unsigned long long v[3] = { acc[0], acc[1], acc[2] };
    adm_block_sum<3>(v);
    if (threadIdx.x == 0) {
        const uint64_t sum[3] = { v[0], v[1], v[2] };
        uint64_t row[3];
        vmaf_adm_k_cm_row(&a, SCALE0, slot, sum, row);
        unsigned long long *total = (unsigned long long *)a.total;
        for (int t = 0; t < 3; t++)
            if (row[t]) atomicAdd(total + t, (unsigned long long)row[t]);
    }
}

extern "C" __global__ void __launch_bounds__(ADM_CUDA_ROW_THREADS) vmaf_adm_cm0(AdmCmCudaArgs a)
{
    adm_cm<1>(a);
}

extern "C" __global__ void __launch_bounds__(ADM_CUDA_ROW_THREADS) vmaf_adm_cm123(AdmCmCudaArgs a)
{
    adm_cm<0>(a);
}

template <int SCALE0>
__device__ void adm_den(const AdmDenCudaArgs &a)
{
    const int i = blockIdx.x, t = blockIdx.y;
    const int n = a.right - a.left;
    unsigned long long v[1] = { 0 };
    for (int j = threadIdx.x; j < n; j += ADM_CUDA_ROW_THREADS) {
        if (t == 0) v[0] += vmaf_adm_k_den_term(&a, SCALE0, 0, i, j);
        else if (t == 1) v[0] += vmaf_adm_k_den_term(&a, SCALE0, 1, i, j);
        else v[0] += vmaf_adm_k_den_term(&a, SCALE0, 2, i, j);
    }
    adm_block_sum<1>(v);
    if (threadIdx.x == 0) {
        const uint64_t row = vmaf_adm_k_den_row(&a, SCALE0, v[0]);
        if (row) atomicAdd((unsigned long long *)a.total + t, (unsigned long long)row);
    }
}

extern "C" __global__ void __launch_bounds__(ADM_CUDA_ROW_THREADS) vmaf_adm_den0(AdmDenCudaArgs a)
{
    adm_den<1>(a);
}

extern "C" __global__ void __launch_bounds__(ADM_CUDA_ROW_THREADS) vmaf_adm_den123(AdmDenCudaArgs a)
{
    adm_den<0>(a);
}
