#pragma OPENCL FP_CONTRACT OFF
#define VMAF_OPENCL_FP64_FREE 1
// float_motion twin, OpenCL C (feature/cuda/float_motion.cu, the same kernels and arguments):
// per plane, the blur of the previous and the current reference (tiles of float_filter.h
// with their reflected halo), the rows' float sums of |prev - cur| left to right
// (row_sums.clh); with motion_add_scale1 the half-size planes by the CPU scaler's tables and
// their row sums. The rows are added on the host in row order.
#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/float_motion.h"
#include "feature/opencl/float_filter.clh"
#include "feature/opencl/row_sums.clh"

enum {
    TW = FLOAT_MOTION_CUDA_TILE_W,
    TH = FLOAT_MOTION_CUDA_TILE_H,
    SW = TW + 2 * FLOAT_MOTION_CUDA_RADIUS, // tile row stride in local memory
};

// grid: (tiles across, tiles down, picture); src and v: the kernel's local tiles
static inline void motion_blur(VMAF_ARENA_PARAM const FloatMotionCudaArgs *a, int wide,
                               __local float *src, __local float *v)
{
    const int w = (int)a->w, h = (int)a->h, R = a->fw / 2;
    const int x0 = vmaf_bid(0) * TW, y0 = vmaf_bid(1) * TH, pic = vmaf_bid(2);
    const int tw = min(TW, w - x0), th = min(TH, h - y0);
    const int cw = tw + 2 * R;
    const float scale = vmaf_fdiv(1.0f, vmaf_float_sample_divisor(a->bpc));
    const vmaf_devptr base = a->src[pic];
    for (int i = vmaf_tid(0); i < (th + 2 * R) * cw; i += vmaf_bdim(0)) {
        const int r = i / cw, c = i % cw;
        const int y = vmaf_reflect101(y0 - R + r, h), x = vmaf_reflect101(x0 - R + c, w);
        const vmaf_devptr row = base + (vmaf_u64)y * a->src_stride;
        const unsigned s = wide ? (unsigned)VMAF_PTR(const ushort, row)[x]
                                : (unsigned)VMAF_PTR(const uchar, row)[x];
        src[r * SW + c] = vmaf_float_sample(s, scale, VMAF_FLOAT_SAMPLE_OFFSET);
    }
    VMAF_BARRIER();
    for (int i = vmaf_tid(0); i < th * cw; i += vmaf_bdim(0)) {
        const int r = i / cw, c = i % cw;
        v[r * SW + c] = vmaf_float_tile_vertical_pf(a->f, a->fw, src, SW, r, c);
    }
    VMAF_BARRIER();
    __global float *out = VMAF_PTR(float, a->blur[pic]);
    for (int i = vmaf_tid(0); i < th * tw; i += vmaf_bdim(0)) {
        const int r = i / tw, c = i % tw;
        out[(vmaf_u64)(y0 + r) * a->stride + x0 + c] =
            vmaf_float_taps_pf(a->f, a->fw, v + r * SW + c);
    }
}

#define MOTION_BLUR_TILES                                                                      \
    VMAF_LOCAL float src[(TH + 2 * FLOAT_MOTION_CUDA_RADIUS) * SW];                            \
    VMAF_LOCAL float v[TH * SW]

VMAF_KERNEL(vmaf_float_motion_blur_8, FloatMotionCudaArgs)
{
    MOTION_BLUR_TILES;
    motion_blur(VMAF_ARENA_ARG &a, 0, src, v);
}

VMAF_KERNEL(vmaf_float_motion_blur_16, FloatMotionCudaArgs)
{
    MOTION_BLUR_TILES;
    motion_blur(VMAF_ARENA_ARG &a, 1, src, v);
}

// the rows of the blurred planes
VMAF_KERNEL(vmaf_float_motion_rows, FloatMotionCudaArgs)
{
    VMAF_ROW_SUMS_TILE(tile, 1);
    vmaf_row_sums(VMAF_ARENA_ARG tile, ROW_TERMS_ABS_DIFF, a.w, a.h, a.blur[0], a.blur[1],
                  a.stride, a.rows, 0);
}

// grid: (columns / threads, dst_h, picture); the blurred plane is read with read_stride
VMAF_KERNEL(vmaf_float_motion_scale, FloatMotionCudaArgs)
{
    const unsigned x = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0), y = vmaf_bid(1);
    if (x >= a.dst_w) return;
    __global const float *src = VMAF_PTR(const float, a.blur[vmaf_bid(2)]);
    __global float *dst = VMAF_PTR(float, a.scaled[vmaf_bid(2)]) + (vmaf_u64)y * a.scaled_stride;
    if (a.copy) {
        dst[x] = src[(vmaf_u64)y * a.read_stride + x];
        return;
    }
    __global const int *ri = VMAF_PTR(const int, a.row_index);
    __global const int *ci = VMAF_PTR(const int, a.col_index);
    __global const float *rw = VMAF_PTR(const float, a.row_weight);
    __global const float *cw = VMAF_PTR(const float, a.col_weight);
    __global const float *r1 = src + (vmaf_u64)ri[2 * y] * a.read_stride;
    __global const float *r2 = src + (vmaf_u64)ri[2 * y + 1] * a.read_stride;
    dst[x] = vmaf_float_motion_bilinear(r1, r2, ci[2 * x], ci[2 * x + 1], cw[2 * x], rw[2 * y]);
}

VMAF_KERNEL(vmaf_float_motion_scaled_rows, FloatMotionCudaArgs)
{
    VMAF_ROW_SUMS_TILE(tile, 1);
    vmaf_row_sums(VMAF_ARENA_ARG tile, ROW_TERMS_ABS_DIFF, a.dst_w, a.dst_h, a.scaled[0],
                  a.scaled[1], a.scaled_stride, a.scaled_rows, 0);
}
