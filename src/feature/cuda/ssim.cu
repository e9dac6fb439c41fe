// float_ssim / float_ms_ssim twins. Per plane pair: (decimate) one thread per output of the
// decimated planes; (tile) one block per 32 x 32 window outputs: the inputs, the horizontal
// pass of the five quantities, then per output row a warp making 32 outputs' terms and
// adding them by the tree; (rows) one thread per (sum, row) adding the row's segments;
// (plane) one warp per sum: lanes of rows, then the tree. The per-thread code is
// ssim_device.h's, which the CPU extractor and tests/twins/test_ssim_twin.c share.
#include <stdint.h>

#include "feature/twins/kernel_args.h"
#include "feature/ssim_device.h"

static_assert(VMAF_SSIM_TILE_W == 32 && VMAF_SSIM_SEGMENT == 32 && VMAF_SSIM_LANES == 32,
              "a tile row, a segment and the lanes are one warp");

__device__ static VmafSsimSource source(const SsimCudaArgs &a, int p)
{
    VmafSsimSource s;
    s.data = (const uint8_t *)a.src[p];
    s.stride = (ptrdiff_t)a.src_stride;
    s.kind = a.src_kind;
    s.scale = a.src_scale;
    return s;
}

// v: this lane's value; the first n lanes are added as vmaf_ssim_tree() adds them
__device__ static double warp_tree(double v, int n)
{
    const unsigned lane = threadIdx.x % 32;
    for (int off = 16; off >= 1; off /= 2) {
        const double other = __shfl_down_sync(0xffffffffu, v, off);
        if ((int)lane < off && (int)lane + off < n) v += other;
    }
    return v;
}

// grid: (dst_w / 32, dst_h / 8) rounded up, block (32, 8)
extern "C" __global__ void __launch_bounds__(VMAF_SSIM_DEC_TX * VMAF_SSIM_DEC_TY)
    vmaf_ssim_decimate(SsimCudaArgs a)
{
    __shared__ float taps[VMAF_SSIM_MAX_TAPS];
    const int t = threadIdx.y * VMAF_SSIM_DEC_TX + threadIdx.x;
    for (int i = t; i < a.kw * a.kw; i += VMAF_SSIM_DEC_TX * VMAF_SSIM_DEC_TY) taps[i] = a.taps[i];
    __syncthreads();
    const int x = blockIdx.x * VMAF_SSIM_DEC_TX + threadIdx.x;
    const int y = blockIdx.y * VMAF_SSIM_DEC_TY + threadIdx.y;
    if (x >= a.dst_w || y >= a.dst_h) return;
    for (int p = 0; p < 2; p++) {
        const VmafSsimSource s = source(a, p);
        float *row = (float *)(a.dst[p] + (unsigned long long)y * a.dst_stride);
        row[x] = vmaf_ssim_decimate_at(&s, a.w, a.h, a.factor, taps, a.kw, y, x);
    }
}

// grid: (n_seg, (h - 10) / 32 rounded up), block VMAF_SSIM_THREADS
extern "C" __global__ void __launch_bounds__(VMAF_SSIM_THREADS) vmaf_ssim_tile(SsimCudaArgs a)
{
    __shared__ VmafSsimTile tile;
    __shared__ float g[VMAF_SSIM_WINDOW];
    if (threadIdx.x == 0) vmaf_ssim_window(g);
    const VmafSsimSource ref = source(a, 0), cmp = source(a, 1);
    const int x0 = blockIdx.x * VMAF_SSIM_TILE_W, y0 = blockIdx.y * VMAF_SSIM_TILE_H;
    const int nw = a.w - (VMAF_SSIM_WINDOW - 1), nh = a.h - (VMAF_SSIM_WINDOW - 1);
    for (int i = threadIdx.x; i < VMAF_SSIM_IN_H * VMAF_SSIM_IN_W; i += VMAF_SSIM_THREADS)
        vmaf_ssim_tile_load(&tile, &ref, &cmp, a.w, a.h, y0, x0, i);
    __syncthreads();
    for (int i = threadIdx.x; i < VMAF_SSIM_IN_H * VMAF_SSIM_TILE_W; i += VMAF_SSIM_THREADS)
        vmaf_ssim_tile_horizontal(&tile, g, i);
    __syncthreads();
    const VmafSsimConst k = vmaf_ssim_const();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int n = min(VMAF_SSIM_SEGMENT, nw - x0);
    double *partials = (double *)a.partials;
    for (int r = warp; r < VMAF_SSIM_TILE_H && y0 + r < nh; r += VMAF_SSIM_THREADS / 32) {
        double t[VMAF_SSIM_SUMS] = { 0.0, 0.0, 0.0, 0.0 };
        if (lane < n) vmaf_ssim_tile_terms(&tile, g, &k, r, lane, t);
        for (int q = 0; q < VMAF_SSIM_SUMS; q++) {
            const double v = warp_tree(t[q], n);
            if (lane == 0) partials[((size_t)q * nh + y0 + r) * a.n_seg + blockIdx.x] = v;
        }
    }
}

// grid: ((h - 10) / 128 rounded up, 4), block VMAF_SSIM_ROW_THREADS
extern "C" __global__ void __launch_bounds__(VMAF_SSIM_ROW_THREADS) vmaf_ssim_rows(SsimCudaArgs a)
{
    const int nh = a.h - (VMAF_SSIM_WINDOW - 1);
    const int y = blockIdx.x * VMAF_SSIM_ROW_THREADS + threadIdx.x, q = blockIdx.y;
    if (y >= nh) return;
    ((double *)a.rows)[(size_t)q * nh + y] =
        vmaf_ssim_row_sum((const double *)a.partials, nh, a.n_seg, q, y);
}

// grid 1, block 32 x VMAF_SSIM_SUMS: warp q sums quantity q
extern "C" __global__ void __launch_bounds__(32 * VMAF_SSIM_SUMS) vmaf_ssim_plane(SsimCudaArgs a)
{
    const int nh = a.h - (VMAF_SSIM_WINDOW - 1);
    const int q = threadIdx.x / 32, lane = threadIdx.x % 32;
    const double v = vmaf_ssim_lane_sum((const double *)a.rows + (size_t)q * nh, nh, lane);
    const double sum = warp_tree(v, min(VMAF_SSIM_LANES, nh));
    if (lane == 0) ((double *)a.sums)[q] = sum;
}
