// float_vif twin. Per scale: (decimate) filter s on scale s-1 at its even rows and columns;
// (stats) the five filtered quantities (from the tile's samples staged in shared memory,
// for filters up to 17 taps), the statistic of float_vif.h per pixel into num/den planes;
// (rows) each row's num and den added in float left to right (row_sums.cuh). The rows are
// added on the host in row order. Every output gets the CPU's products and sums in the
// CPU's order: the vertical pass of a tile column is the CPU's column of its row pass, the
// margins are the same reflection (float_filter.h).
#include <stdint.h>

#include "feature/twins/kernel_args.h"
#include "feature/cuda/row_sums.cuh"
#include "feature/float_vif.h"
#include "feature/cuda/float_src.cuh"

enum { TW = FLOAT_VIF_CUDA_TILE_W, TH = FLOAT_VIF_CUDA_TILE_H };

__device__ float *load_filter(const FloatVifCudaArgs &a, float *smem)
{
    for (int i = threadIdx.x; i < a.fw; i += blockDim.x) smem[i] = ((const float *)a.filter)[i];
    __syncthreads();
    return smem;
}

// grid: tiles of TW x TH outputs of the scale (src_w x src_h)
template <class Src>
__device__ void vif_stats(const FloatVifCudaArgs &a)
{
    extern __shared__ float smem[];
    const float *f = load_filter(a, smem);
    float *v = smem + FLOAT_VIF_CUDA_FILTER;
    const int w = (int)a.src_w, h = (int)a.src_h, fw = a.fw, R = fw / 2;
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
    const int tw = min(TW, w - x0), th = min(TH, h - y0), cw = tw + 2 * R;
    // the samples of the tile and its margin, converted once (sample (pic, rr, c) is the
    // sample at row reflect(y0 - R + rr), column reflect(x0 - R + c): the vertical pass's
    // tap k of row r is rr = r + k, so the pass reads the same values as from global memory)
    const bool staged = FLOAT_VIF_CUDA_STAGED(R);
    const int sr = th + 2 * R;
    float *stage = v + 5 * TH * (TW + 2 * R);
    if (staged) {
        for (int i = threadIdx.x; i < 2 * sr * cw; i += blockDim.x) {
            const int pic = i / (sr * cw), rr = (i / cw) % sr, c = i % cw;
            stage[i] = Src::at(a, pic, vmaf_reflect101(y0 - R + rr, h),
                               vmaf_reflect101(x0 - R + c, w));
        }
        __syncthreads();
    }
    for (int i = threadIdx.x; i < th * cw; i += blockDim.x) {
        const int r = i / cw, c = i % cw;
        float acc[5] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
        if (staged) {
            const float *ref = stage + r * cw + c, *dis = ref + sr * cw;
            for (int k = 0; k < fw; k++) vmaf_float_vif_tap(f[k], ref[k * cw], dis[k * cw], acc);
        } else {
            const int x = vmaf_reflect101(x0 - R + c, w);
            for (int k = 0; k < fw; k++) {
                const int y = vmaf_reflect101(y0 + r - R + k, h);
                vmaf_float_vif_tap(f[k], Src::at(a, 0, y, x), Src::at(a, 1, y, x), acc);
            }
        }
        for (int q = 0; q < 5; q++) v[(q * TH + r) * cw + c] = acc[q];
    }
    __syncthreads();
    const VmafFloatVifStatConst sc = { a.sigma_nsq, a.sigma_max_inv, a.gain_limit };
    for (int i = threadIdx.x; i < th * tw; i += blockDim.x) {
        const int r = i / tw, c = i % tw;
        float o[5];
        for (int q = 0; q < 5; q++) o[q] = vmaf_float_taps(f, fw, v + (q * TH + r) * cw + c);
        float num, den;
        vmaf_float_vif_pixel(&sc, o[0], o[1], o[2], o[3], o[4], &num, &den);
        const size_t at = (size_t)(y0 + r) * a.dst_stride + x0 + c;
        ((float *)a.dst[0])[at] = num;
        ((float *)a.dst[1])[at] = den;
    }
}

// grid: tiles of TW x TH outputs of the decimated planes (dst_w x dst_h)
template <class Src>
__device__ void vif_decimate(const FloatVifCudaArgs &a)
{
    extern __shared__ float smem[];
    const float *f = load_filter(a, smem);
    float *v = smem + FLOAT_VIF_CUDA_FILTER;
    const int w = (int)a.src_w, h = (int)a.src_h, fw = a.fw, R = fw / 2;
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
    const int tw = min(TW, (int)a.dst_w - x0), th = min(TH, (int)a.dst_h - y0);
    const int cw = 2 * tw + 2 * R; // columns 2 x0 - R ...
    for (int i = threadIdx.x; i < 2 * th * cw; i += blockDim.x) {
        const int pic = i / (th * cw), r = (i / cw) % th, c = i % cw;
        const int x = vmaf_reflect101(2 * x0 - R + c, w);
        float acc = 0.0f;
        for (int k = 0; k < fw; k++)
            acc += f[k] * Src::at(a, pic, vmaf_reflect101(2 * (y0 + r) - R + k, h), x);
        v[(pic * TH + r) * cw + c] = acc;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 2 * th * tw; i += blockDim.x) {
        const int pic = i / (th * tw), r = (i / tw) % th, c = i % tw;
        ((float *)a.dst[pic])[(size_t)(y0 + r) * a.dst_stride + x0 + c] =
            vmaf_float_taps(f, fw, v + (pic * TH + r) * cw + 2 * c);
    }
}

#define VIF_KERNELS(name, SRC)                                                                 \
    extern "C" __global__ void __launch_bounds__(FLOAT_VIF_CUDA_THREADS)                        \
        vmaf_float_vif_stats_##name(FloatVifCudaArgs a) { vif_stats<SRC>(a); }                 \
    extern "C" __global__ void __launch_bounds__(FLOAT_VIF_CUDA_THREADS)                        \
        vmaf_float_vif_decimate_##name(FloatVifCudaArgs a) { vif_decimate<SRC>(a); }

VIF_KERNELS(8, SampleSrc<uint8_t>)
VIF_KERNELS(16, SampleSrc<uint16_t>)
VIF_KERNELS(f, FloatSrc)

// num and den of a pixel, the terms of vmaf_float_vif_row_sums
struct VifTerms {
    const float *num, *den;
    unsigned long long stride;
    __device__ void operator()(unsigned i, unsigned j, float out[2]) const
    {
        const size_t at = (size_t)i * stride + j;
        out[0] = num[at];
        out[1] = den[at];
    }
};

// the rows of the num/den planes (row_sums.cuh: each row's serial sums, coalesced loads)
extern "C" __global__ void __launch_bounds__(FLOAT_ROW_SUM_THREADS)
    vmaf_float_vif_rows(FloatVifCudaArgs a)
{
    const VifTerms terms = { (const float *)a.dst[0], (const float *)a.dst[1], a.dst_stride };
    float *rows = (float *)a.rows;
    float *const out[2] = { rows, rows + a.dst_h };
    vmaf_row_sums<2>(a.dst_w, a.dst_h, terms, out);
}

// vif_prescale: the samples as float planes (src_w x src_h, dst_stride floats)
template <typename T>
__device__ void vif_convert(const FloatVifCudaArgs &a)
{
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= a.src_w) return;
    ((float *)a.dst[blockIdx.z])[(size_t)y * a.dst_stride + x] =
        SampleSrc<T>::at(a, blockIdx.z, (int)y, (int)x);
}

extern "C" __global__ void __launch_bounds__(FLOAT_VIF_CUDA_THREADS)
    vmaf_float_vif_convert_8(FloatVifCudaArgs a)
{
    vif_convert<uint8_t>(a);
}

extern "C" __global__ void __launch_bounds__(FLOAT_VIF_CUDA_THREADS)
    vmaf_float_vif_convert_16(FloatVifCudaArgs a)
{
    vif_convert<uint16_t>(a);
}

// then resampled by the CPU scaler's tables (src: the converted planes, src_stride bytes)
extern "C" __global__ void __launch_bounds__(FLOAT_VIF_CUDA_THREADS)
    vmaf_float_vif_resample(FloatVifCudaArgs a)
{
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= a.dst_w) return;
    const int t = a.taps;
    ((float *)a.dst[blockIdx.z])[(size_t)y * a.dst_stride + x] = vmaf_float_resample_at(
        a.method, (const float *)a.src[blockIdx.z], (ptrdiff_t)(a.src_stride / sizeof(float)),
        (const int *)a.row_index + t * y, (const float *)a.row_weight + t * y,
        (const int *)a.col_index + t * x, (const float *)a.col_weight + t * x);
}
