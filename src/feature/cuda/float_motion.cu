// float_motion twin: per plane, the blur of the previous and the current reference (tiles of
// float_filter.h with their reflected halo), then one thread per row adding |prev - cur| in
// float left to right (float_motion.h); with motion_add_scale1 the half-size planes by the
// CPU scaler's tables and their row sums. The rows are added on the host in row order.
// The row sums are row_sums.cuh's: each row's serial sum, with coalesced loads.
#include <stdint.h>

#include "feature/twins/kernel_args.h"
#include "feature/cuda/row_sums.cuh"
#include "feature/float_motion.h"

enum {
    TW = FLOAT_MOTION_CUDA_TILE_W,
    TH = FLOAT_MOTION_CUDA_TILE_H,
    SW = TW + 2 * FLOAT_MOTION_CUDA_RADIUS, // tile row stride in shared memory
};

// grid: (tiles across, tiles down, picture)
template <typename T>
__device__ void motion_blur(const FloatMotionCudaArgs &a)
{
    __shared__ float src[(TH + 2 * FLOAT_MOTION_CUDA_RADIUS) * SW];
    __shared__ float v[TH * SW];
    const int w = (int)a.w, h = (int)a.h, R = a.fw / 2;
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH, pic = blockIdx.z;
    const int tw = min(TW, w - x0), th = min(TH, h - y0);
    const int cw = tw + 2 * R;
    const float scale = 1.0f / vmaf_float_sample_divisor(a.bpc);
    const vmaf_devptr base = a.src[pic];
    for (int i = threadIdx.x; i < (th + 2 * R) * cw; i += blockDim.x) {
        const int r = i / cw, c = i % cw;
        const int y = vmaf_reflect101(y0 - R + r, h), x = vmaf_reflect101(x0 - R + c, w);
        const T *row = (const T *)(base + (unsigned long long)y * a.src_stride);
        src[r * SW + c] = vmaf_float_sample(row[x], scale, VMAF_FLOAT_SAMPLE_OFFSET);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < th * cw; i += blockDim.x) {
        const int r = i / cw, c = i % cw;
        v[r * SW + c] = vmaf_float_tile_vertical(a.f, a.fw, src, SW, r, c);
    }
    __syncthreads();
    float *out = (float *)a.blur[pic];
    for (int i = threadIdx.x; i < th * tw; i += blockDim.x) {
        const int r = i / tw, c = i % tw;
        out[(size_t)(y0 + r) * a.stride + x0 + c] = vmaf_float_tile_horizontal(a.f, a.fw, v, SW, r, c);
    }
}

extern "C" __global__ void __launch_bounds__(FLOAT_MOTION_CUDA_THREADS)
    vmaf_float_motion_blur_8(FloatMotionCudaArgs a)
{
    motion_blur<uint8_t>(a);
}

extern "C" __global__ void __launch_bounds__(FLOAT_MOTION_CUDA_THREADS)
    vmaf_float_motion_blur_16(FloatMotionCudaArgs a)
{
    motion_blur<uint16_t>(a);
}

// |prev - cur| of two planes, the terms of vmaf_float_motion_row_sum
struct MotionTerms {
    const float *prev, *cur;
    unsigned long long stride;
    __device__ void operator()(unsigned i, unsigned j, float out[1]) const
    {
        const size_t at = (size_t)i * stride + j;
        out[0] = vmaf_float_motion_term(prev[at], cur[at]);
    }
};

// the rows of the blurred planes
extern "C" __global__ void __launch_bounds__(FLOAT_ROW_SUM_THREADS)
    vmaf_float_motion_rows(FloatMotionCudaArgs a)
{
    const MotionTerms terms = { (const float *)a.blur[0], (const float *)a.blur[1], a.stride };
    float *const out[1] = { (float *)a.rows };
    vmaf_row_sums<1>(a.w, a.h, terms, out);
}

// grid: (columns / threads, dst_h, picture); the blurred plane is read with read_stride
extern "C" __global__ void __launch_bounds__(FLOAT_MOTION_CUDA_THREADS)
    vmaf_float_motion_scale(FloatMotionCudaArgs a)
{
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= a.dst_w) return;
    const float *src = (const float *)a.blur[blockIdx.z];
    float *dst = (float *)a.scaled[blockIdx.z] + (size_t)y * a.scaled_stride;
    if (a.copy) {
        dst[x] = src[(size_t)y * a.read_stride + x];
        return;
    }
    const int *ri = (const int *)a.row_index, *ci = (const int *)a.col_index;
    const float *rw = (const float *)a.row_weight, *cw = (const float *)a.col_weight;
    const float *r1 = src + (size_t)ri[2 * y] * a.read_stride;
    const float *r2 = src + (size_t)ri[2 * y + 1] * a.read_stride;
    dst[x] = vmaf_float_motion_bilinear(r1, r2, ci[2 * x], ci[2 * x + 1], cw[2 * x], rw[2 * y]);
}

extern "C" __global__ void __launch_bounds__(FLOAT_ROW_SUM_THREADS)
    vmaf_float_motion_scaled_rows(FloatMotionCudaArgs a)
{
    const MotionTerms terms = { (const float *)a.scaled[0], (const float *)a.scaled[1],
                                a.scaled_stride };
    float *const out[1] = { (float *)a.scaled_rows };
    vmaf_row_sums<1>(a.dst_w, a.dst_h, terms, out);
}
