#pragma OPENCL FP_CONTRACT OFF
#define VMAF_OPENCL_FP64_FREE 1
// float_vif twin, OpenCL C (feature/cuda/float_vif.cu, the same kernels, arguments and
// local-memory layout). Per scale: (decimate) filter s on scale s-1 at its even rows and
// columns; (stats) the five filtered quantities (from the tile's samples staged in local
// memory, for filters up to 17 taps), the statistic of float_vif.h per pixel into num/den
// planes; (rows) each row's num and den added in float left to right (row_sums.clh). Every
// output gets the CPU's products and sums in the CPU's order.
#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/float_vif.h"
#include "feature/opencl/float_filter.clh"
#include "feature/opencl/float_src.clh"
#include "feature/opencl/row_sums.clh"

enum { TW = FLOAT_VIF_CUDA_TILE_W, TH = FLOAT_VIF_CUDA_TILE_H };

// the filter's taps into the first FLOAT_VIF_CUDA_FILTER floats of local memory
static inline __local float *load_filter(VMAF_ARENA_PARAM const FloatVifCudaArgs *a,
                                         __local float *smem)
{
    __global const float *filter = VMAF_PTR(const float, a->filter);
    for (int i = vmaf_tid(0); i < a->fw; i += vmaf_bdim(0)) smem[i] = filter[i];
    VMAF_BARRIER();
    return smem;
}

// grid: tiles of TW x TH outputs of the scale (src_w x src_h); kind: float_src.clh's
static inline void vif_stats(VMAF_ARENA_PARAM const FloatVifCudaArgs *a, int kind,
                             __local float *smem)
{
    __local const float *f = load_filter(VMAF_ARENA_ARG a, smem);
    __local float *v = smem + FLOAT_VIF_CUDA_FILTER;
    const int w = (int)a->src_w, h = (int)a->src_h, fw = a->fw, R = fw / 2;
    const int x0 = vmaf_bid(0) * TW, y0 = vmaf_bid(1) * TH;
    const int tw = min((int)TW, w - x0), th = min((int)TH, h - y0), cw = tw + 2 * R;
    // the samples of the tile and its margin, converted once (sample (pic, rr, c) is the
    // sample at row reflect(y0 - R + rr), column reflect(x0 - R + c))
    const bool staged = FLOAT_VIF_CUDA_STAGED(R);
    const int sr = th + 2 * R;
    __local float *stage = v + 5 * TH * (TW + 2 * R);
    if (staged) {
        for (int i = vmaf_tid(0); i < 2 * sr * cw; i += vmaf_bdim(0)) {
            const int pic = i / (sr * cw), rr = (i / cw) % sr, c = i % cw;
            stage[i] = VMAF_FLOAT_SRC_AT(kind, *a, pic, vmaf_reflect101(y0 - R + rr, h),
                                         vmaf_reflect101(x0 - R + c, w));
        }
    }
    VMAF_BARRIER(); // outside the branch: every group meets the same barriers
    for (int i = vmaf_tid(0); i < th * cw; i += vmaf_bdim(0)) {
        const int r = i / cw, c = i % cw;
        float acc[5] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
        if (staged) {
            __local const float *ref = stage + r * cw + c, *dis = ref + sr * cw;
            for (int k = 0; k < fw; k++) vmaf_float_vif_tap(f[k], ref[k * cw], dis[k * cw], acc);
        } else {
            const int x = vmaf_reflect101(x0 - R + c, w);
            for (int k = 0; k < fw; k++) {
                const int y = vmaf_reflect101(y0 + r - R + k, h);
                vmaf_float_vif_tap(f[k], VMAF_FLOAT_SRC_AT(kind, *a, 0, y, x),
                                   VMAF_FLOAT_SRC_AT(kind, *a, 1, y, x), acc);
            }
        }
        for (int q = 0; q < 5; q++) v[(q * TH + r) * cw + c] = acc[q];
    }
    VMAF_BARRIER();
    const VmafFloatVifStatConst sc = { a->sigma_nsq, a->sigma_max_inv, a->gain_limit };
    __global float *num_plane = VMAF_PTR(float, a->dst[0]);
    __global float *den_plane = VMAF_PTR(float, a->dst[1]);
    for (int i = vmaf_tid(0); i < th * tw; i += vmaf_bdim(0)) {
        const int r = i / tw, c = i % tw;
        float o[5];
        for (int q = 0; q < 5; q++) o[q] = vmaf_float_taps_lf(f, fw, v + (q * TH + r) * cw + c);
        float num, den;
        vmaf_float_vif_pixel(&sc, o[0], o[1], o[2], o[3], o[4], &num, &den);
        const vmaf_u64 at = (vmaf_u64)(y0 + r) * a->dst_stride + x0 + c;
        num_plane[at] = num;
        den_plane[at] = den;
    }
}

// grid: tiles of TW x TH outputs of the decimated planes (dst_w x dst_h)
static inline void vif_decimate(VMAF_ARENA_PARAM const FloatVifCudaArgs *a, int kind,
                                __local float *smem)
{
    __local const float *f = load_filter(VMAF_ARENA_ARG a, smem);
    __local float *v = smem + FLOAT_VIF_CUDA_FILTER;
    const int w = (int)a->src_w, h = (int)a->src_h, fw = a->fw, R = fw / 2;
    const int x0 = vmaf_bid(0) * TW, y0 = vmaf_bid(1) * TH;
    const int tw = min((int)TW, (int)a->dst_w - x0), th = min((int)TH, (int)a->dst_h - y0);
    const int cw = 2 * tw + 2 * R; // columns 2 x0 - R ...
    for (int i = vmaf_tid(0); i < 2 * th * cw; i += vmaf_bdim(0)) {
        const int pic = i / (th * cw), r = (i / cw) % th, c = i % cw;
        const int x = vmaf_reflect101(2 * x0 - R + c, w);
        float acc = 0.0f;
        for (int k = 0; k < fw; k++)
            acc += f[k] * VMAF_FLOAT_SRC_AT(kind, *a, pic,
                                            vmaf_reflect101(2 * (y0 + r) - R + k, h), x);
        v[(pic * TH + r) * cw + c] = acc;
    }
    VMAF_BARRIER();
    for (int i = vmaf_tid(0); i < 2 * th * tw; i += vmaf_bdim(0)) {
        const int pic = i / (th * tw), r = (i / tw) % th, c = i % tw;
        VMAF_PTR(float, a->dst[pic])[(vmaf_u64)(y0 + r) * a->dst_stride + x0 + c] =
            vmaf_float_taps_lf(f, fw, v + (pic * TH + r) * cw + 2 * c);
    }
}

#define VIF_KERNELS(name, KIND)                                                                \
    VMAF_KERNEL_SHARED(vmaf_float_vif_stats_##name, FloatVifCudaArgs)                          \
    {                                                                                          \
        VMAF_SHARED_DECL                                                                       \
        vif_stats(VMAF_ARENA_ARG &a, KIND, (__local float *)vmaf_shared);                      \
    }                                                                                          \
    VMAF_KERNEL_SHARED(vmaf_float_vif_decimate_##name, FloatVifCudaArgs)                       \
    {                                                                                          \
        VMAF_SHARED_DECL                                                                       \
        vif_decimate(VMAF_ARENA_ARG &a, KIND, (__local float *)vmaf_shared);                   \
    }

VIF_KERNELS(8, FLOAT_SRC_U8)
VIF_KERNELS(16, FLOAT_SRC_U16)
VIF_KERNELS(f, FLOAT_SRC_FLOAT)

// the rows of the num/den planes (row_sums.clh: each row's serial sums, coalesced loads)
VMAF_KERNEL(vmaf_float_vif_rows, FloatVifCudaArgs)
{
    VMAF_ROW_SUMS_TILE(tile, 2);
    vmaf_row_sums(VMAF_ARENA_ARG tile, ROW_TERMS_PAIR, a.dst_w, a.dst_h, a.dst[0], a.dst[1],
                  a.dst_stride, a.rows, a.rows + (vmaf_u64)a.dst_h * sizeof(float));
}

// vif_prescale: the samples as float planes (src_w x src_h, dst_stride floats)
static inline void vif_convert(VMAF_ARENA_PARAM const FloatVifCudaArgs *a, int kind)
{
    const unsigned x = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0), y = vmaf_bid(1);
    if (x >= a->src_w) return;
    VMAF_PTR(float, a->dst[vmaf_bid(2)])[(vmaf_u64)y * a->dst_stride + x] =
        VMAF_FLOAT_SRC_AT(kind, *a, vmaf_bid(2), (int)y, (int)x);
}

VMAF_KERNEL(vmaf_float_vif_convert_8, FloatVifCudaArgs)
{
    vif_convert(VMAF_ARENA_ARG &a, FLOAT_SRC_U8);
}

VMAF_KERNEL(vmaf_float_vif_convert_16, FloatVifCudaArgs)
{
    vif_convert(VMAF_ARENA_ARG &a, FLOAT_SRC_U16);
}

// then resampled by the CPU scaler's tables (src: the converted planes, src_stride bytes)
VMAF_KERNEL(vmaf_float_vif_resample, FloatVifCudaArgs)
{
    const unsigned x = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0), y = vmaf_bid(1);
    if (x >= a.dst_w) return;
    const int t = a.taps;
    VMAF_PTR(float, a.dst[vmaf_bid(2)])[(vmaf_u64)y * a.dst_stride + x] = vmaf_float_resample_at(
        a.method, VMAF_PTR(const float, a.src[vmaf_bid(2)]),
        (ptrdiff_t)(a.src_stride / sizeof(float)), VMAF_PTR(const int, a.row_index) + t * y,
        VMAF_PTR(const float, a.row_weight) + t * y, VMAF_PTR(const int, a.col_index) + t * x,
        VMAF_PTR(const float, a.col_weight) + t * x);
}
