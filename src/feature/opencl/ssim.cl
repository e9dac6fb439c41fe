#pragma OPENCL FP_CONTRACT OFF
#define VMAF_OPENCL_FP64_FREE 1
// float_ssim / float_ms_ssim twins in OpenCL C: the kernels of feature/cuda/ssim.cu with the
// same names, arguments and launches. Per plane pair: (decimate) one thread per output of the
// decimated planes; (tile) one work-group per 32 x 32 window outputs: the inputs, the
// horizontal pass of the five quantities, then per output row 32 outputs' terms added by
// vmaf_ssim_tree(); (rows) one thread per (sum, row) adding the row's segments; (plane) one
// group of 32 threads per sum: lanes of rows, then the tree. The warp shuffles of the CUDA
// form become __local arrays read by one thread, which adds them in the tree's order
// (ssim_device.h: the shuffle tree and vmaf_ssim_tree() are one order). The doubles are
// f64.h's vmaf_double: the device's, or the software binary64 where it has none.

#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/ssim_device.h"

enum {
    SSIM_WARPS = VMAF_SSIM_THREADS / VMAF_SSIM_SEGMENT, /* output rows made at once */
};

/* The tile kernel's __local memory: the tile, and the terms of one output row per group of
 * 32 threads, which overlay the tile's inputs (read only before the horizontal pass ends). */
typedef union SsimTileMem {
    VmafSsimTile tile;
    struct {
        vmaf_double terms[SSIM_WARPS][VMAF_SSIM_SUMS][VMAF_SSIM_SEGMENT];
    } row;
} SsimTileMem;

typedef char ssim_terms_overlay_inputs[sizeof(((SsimTileMem *)0)->row) <=
                                               sizeof(((VmafSsimTile *)0)->in)
                                           ? 1
                                           : -1];

static VmafSsimSource ssim_source(VMAF_ARENA_PARAM const SsimCudaArgs *a, int p)
{
    VmafSsimSource s;
    s.data = VMAF_PTR(const uchar, a->src[p]);
    s.stride = (ptrdiff_t)a->src_stride;
    s.kind = a->src_kind;
    s.scale = a->src_scale;
    return s;
}

/* v[0..n) (n >= 1, at most 32) added by the tree, from __local memory */
static vmaf_double ssim_tree_local(const __local vmaf_double *v, int n)
{
    vmaf_double p[VMAF_SSIM_SEGMENT];
    for (int j = 0; j < VMAF_SSIM_SEGMENT; j++) p[j] = j < n ? v[j] : VMAF_DCONST(0.0, 0x0);
    return vmaf_ssim_tree(p, n);
}

// grid: (dst_w / 32, dst_h / 8) rounded up, block (32, 8)
VMAF_KERNEL(vmaf_ssim_decimate, SsimCudaArgs)
{
    VMAF_LOCAL float taps[VMAF_SSIM_MAX_TAPS];
    const int t = (int)(vmaf_tid(1) * VMAF_SSIM_DEC_TX + vmaf_tid(0));
    for (int i = t; i < a.kw * a.kw; i += VMAF_SSIM_DEC_TX * VMAF_SSIM_DEC_TY) taps[i] = a.taps[i];
    VMAF_BARRIER();
    const int x = (int)(vmaf_bid(0) * VMAF_SSIM_DEC_TX + vmaf_tid(0));
    const int y = (int)(vmaf_bid(1) * VMAF_SSIM_DEC_TY + vmaf_tid(1));
    if (x >= a.dst_w || y >= a.dst_h) return;
    for (int p = 0; p < 2; p++) {
        const VmafSsimSource s = ssim_source(VMAF_ARENA_ARG &a, p);
        __global float *row = VMAF_PTR(float, a.dst[p] + (ulong)y * a.dst_stride);
        row[x] = vmaf_ssim_decimate_at(&s, a.w, a.h, a.factor, taps, a.kw, y, x);
    }
}

// grid: (n_seg, (h - 10) / 32 rounded up), block VMAF_SSIM_THREADS
VMAF_KERNEL(vmaf_ssim_tile, SsimCudaArgs)
{
    VMAF_LOCAL SsimTileMem mem;
    VMAF_LOCAL float g[VMAF_SSIM_WINDOW];
    const int tid = (int)vmaf_tid(0);
    if (tid == 0) {
        float w[VMAF_SSIM_WINDOW];
        vmaf_ssim_window(w);
        for (int i = 0; i < VMAF_SSIM_WINDOW; i++) g[i] = w[i];
    }
    const VmafSsimSource ref = ssim_source(VMAF_ARENA_ARG &a, 0);
    const VmafSsimSource cmp = ssim_source(VMAF_ARENA_ARG &a, 1);
    const int x0 = (int)vmaf_bid(0) * VMAF_SSIM_TILE_W, y0 = (int)vmaf_bid(1) * VMAF_SSIM_TILE_H;
    const int nw = a.w - (VMAF_SSIM_WINDOW - 1), nh = a.h - (VMAF_SSIM_WINDOW - 1);
    for (int i = tid; i < VMAF_SSIM_IN_H * VMAF_SSIM_IN_W; i += VMAF_SSIM_THREADS)
        vmaf_ssim_tile_load(&mem.tile, &ref, &cmp, a.w, a.h, y0, x0, i);
    VMAF_BARRIER();
    for (int i = tid; i < VMAF_SSIM_IN_H * VMAF_SSIM_TILE_W; i += VMAF_SSIM_THREADS)
        vmaf_ssim_tile_horizontal(&mem.tile, g, i);
    VMAF_BARRIER();
    const VmafSsimConst k = vmaf_ssim_const();
    const int warp = tid / VMAF_SSIM_SEGMENT, lane = tid % VMAF_SSIM_SEGMENT;
    const int n = min(VMAF_SSIM_SEGMENT, nw - x0);
    __global vmaf_double *partials = VMAF_PTR(vmaf_double, a.partials);
    // every thread runs every round (the barriers); a group's row past the plane only idles
    for (int r0 = 0; r0 < VMAF_SSIM_TILE_H; r0 += SSIM_WARPS) {
        const int r = r0 + warp;
        const int active = y0 + r < nh;
        vmaf_double t[VMAF_SSIM_SUMS];
        for (int q = 0; q < VMAF_SSIM_SUMS; q++) t[q] = VMAF_DCONST(0.0, 0x0);
        if (active && lane < n) vmaf_ssim_tile_terms(&mem.tile, g, &k, r, lane, t);
        for (int q = 0; q < VMAF_SSIM_SUMS; q++) mem.row.terms[warp][q][lane] = t[q];
        VMAF_BARRIER();
        if (active && lane < VMAF_SSIM_SUMS) {
            const int q = lane;
            partials[((size_t)q * nh + y0 + r) * a.n_seg + vmaf_bid(0)] =
                ssim_tree_local(mem.row.terms[warp][q], n);
        }
        VMAF_BARRIER();
    }
}

// grid: ((h - 10) / 128 rounded up, 4), block VMAF_SSIM_ROW_THREADS
VMAF_KERNEL(vmaf_ssim_rows, SsimCudaArgs)
{
    const int nh = a.h - (VMAF_SSIM_WINDOW - 1);
    const int y = (int)(vmaf_bid(0) * VMAF_SSIM_ROW_THREADS + vmaf_tid(0)), q = (int)vmaf_bid(1);
    if (y >= nh) return;
    VMAF_PTR(vmaf_double, a.rows)[(size_t)q * nh + y] =
        vmaf_ssim_row_sum(VMAF_PTR(const vmaf_double, a.partials), nh, a.n_seg, q, y);
}

// grid 1, block 32 x VMAF_SSIM_SUMS: threads 32 q .. 32 q + 31 sum quantity q
VMAF_KERNEL(vmaf_ssim_plane, SsimCudaArgs)
{
    VMAF_LOCAL vmaf_double lanes[VMAF_SSIM_SUMS][VMAF_SSIM_LANES];
    const int nh = a.h - (VMAF_SSIM_WINDOW - 1);
    const int q = (int)vmaf_tid(0) / VMAF_SSIM_LANES, lane = (int)vmaf_tid(0) % VMAF_SSIM_LANES;
    lanes[q][lane] =
        vmaf_ssim_lane_sum(VMAF_PTR(const vmaf_double, a.rows) + (size_t)q * nh, nh, lane);
    VMAF_BARRIER();
    if (lane == 0)
        VMAF_PTR(vmaf_double, a.sums)[q] = ssim_tree_local(lanes[q], min((int)VMAF_SSIM_LANES, nh));
}
