#pragma OPENCL FP_CONTRACT OFF
// float_psnr, float_moment and float_ansnr twins (float_stats.cu's OpenCL form; float_stats.h
// has the arithmetic). psnr/moment: per-row integer unit sums (exact in any order), then one
// work-item finishes each sum, serially in double in the CPU's order past 2^53 units (f64.h:
// the device's double or the software one; the sums buffer holds binary64 either way).
// ansnr: the filtered planes, then each row's float sums by one work-item, left to right.
#define VMAF_OPENCL_FP64_FREE 1
#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/float_stats.h"
#include "feature/opencl/block_sum.clh"

// Per sample type (bits 8: uchar, 16: ushort): the sample at (i, j) as a float, and the term
// of sum m at (i, j).
#define STATS_FUNCS(bits, T)                                                                 \
    static inline float stats_sample_##bits(VMAF_ARENA_PARAM vmaf_devptr base, ulong stride, \
                                            unsigned i, unsigned j, float scale,            \
                                            float offset)                                   \
    {                                                                                        \
        return vmaf_float_sample(VMAF_PTR(const T, base + i * stride)[j], scale, offset);    \
    }                                                                                        \
    static inline float stats_term_##bits(VMAF_ARENA_PARAM const FloatStatsCudaArgs *a,      \
                                          unsigned m, unsigned i, unsigned j, float scale)   \
    {                                                                                        \
        if (a->kind == FLOAT_STATS_PSNR)                                                     \
            return vmaf_float_psnr_term(                                                     \
                stats_sample_##bits(VMAF_ARENA_ARG a->ref, a->stride, i, j, scale, 0.0f),    \
                stats_sample_##bits(VMAF_ARENA_ARG a->dist, a->stride, i, j, scale, 0.0f));  \
        const float p = stats_sample_##bits(VMAF_ARENA_ARG (m & 1) ? a->dist : a->ref,      \
                                            a->stride, i, j, scale, 0.0f);                   \
        return m < 2 ? p : p * p;                                                            \
    }

STATS_FUNCS(8, uchar)
STATS_FUNCS(16, ushort)

static inline int stats_unit(const FloatStatsCudaArgs *a, unsigned m)
{
    return a->kind == FLOAT_STATS_PSNR ? 2 * ((int)a->bpc - 8)
                                       : vmaf_float_moment_unit((int)m, a->bpc);
}

// one work-group per (row, sum): the row's units
#define STATS_ROWS(bits)                                                                     \
    {                                                                                        \
        VMAF_LOCAL ulong part[FLOAT_STATS_CUDA_THREADS];                                     \
        const unsigned i = vmaf_bid(0), m = vmaf_bid(1);                                     \
        const int q = stats_unit(&a, m);                                                     \
        const float scale = vmaf_fdiv(1.0f, vmaf_float_sample_divisor(a.bpc));               \
        ulong units = 0;                                                                     \
        for (unsigned j = vmaf_tid(0); j < a.w; j += vmaf_bdim(0))                           \
            units += vmaf_float_stats_units(stats_term_##bits(VMAF_ARENA_ARG & a, m, i, j,   \
                                                              scale), q);                    \
        units = vmaf_block_sum_u64(part, units);                                             \
        if (vmaf_tid(0) == 0) VMAF_PTR(ulong, a.row_units)[m * a.h + i] = units;             \
    }

// one work-group per sum: the total; the serial double finish where it reaches 2^53 units
#define STATS_FINISH(bits)                                                                   \
    {                                                                                        \
        VMAF_LOCAL ulong part[FLOAT_STATS_CUDA_THREADS];                                     \
        const unsigned m = vmaf_bid(0);                                                      \
        const int q = stats_unit(&a, m);                                                     \
        __global const ulong *rows = VMAF_PTR(const ulong, a.row_units) + m * a.h;           \
        ulong total = 0;                                                                     \
        for (unsigned i = vmaf_tid(0); i < a.h; i += vmaf_bdim(0)) total += rows[i];         \
        total = vmaf_block_sum_u64(part, total);                                             \
        if (vmaf_tid(0)) return;                                                             \
        __global vmaf_double *out = VMAF_PTR(vmaf_double, a.sums) + m;                       \
        if (total < VMAF_FLOAT_STATS_EXACT_UNITS) {                                          \
            *out = vmaf_float_stats_from_units(total, q);                                    \
            return;                                                                          \
        }                                                                                    \
        vmaf_double sum;                                                                     \
        unsigned row;                                                                        \
        vmaf_float_stats_finish(rows, a.h, q, &sum, &row);                                   \
        const float scale = vmaf_fdiv(1.0f, vmaf_float_sample_divisor(a.bpc));               \
        for (unsigned i = row; i < a.h; i++)                                                 \
            for (unsigned j = 0; j < a.w; j++)                                               \
                sum = vmaf_dadd(sum, vmaf_dfrom_float(stats_term_##bits(VMAF_ARENA_ARG & a,  \
                                                                        m, i, j, scale)));   \
        *out = sum;                                                                          \
    }

// float_ansnr: one work-item per output sample of both filtered planes
#define ANSNR_FILTER(bits)                                                                   \
    {                                                                                        \
        const unsigned j = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0), i = vmaf_bid(1);        \
        if (j >= a.w) return;                                                                \
        const int w = (int)a.w, h = (int)a.h;                                                \
        const float scale = vmaf_fdiv(1.0f, vmaf_float_sample_divisor(a.bpc));               \
        float win[VMAF_FLOAT_ANSNR_DIS_WIDTH * VMAF_FLOAT_ANSNR_DIS_WIDTH];                  \
        __global float *out = VMAF_PTR(float, a.filtered);                                   \
        for (int plane = 0; plane < 2; plane++) {                                            \
            const int kw = plane ? VMAF_FLOAT_ANSNR_DIS_WIDTH : VMAF_FLOAT_ANSNR_REF_WIDTH;  \
            const float *k = plane ? a.dis_kernel : a.ref_kernel;                            \
            const vmaf_devptr src = plane ? a.dist : a.ref;                                  \
            const int r = kw / 2;                                                            \
            for (int u = 0; u < kw; u++) {                                                   \
                const unsigned y = (unsigned)vmaf_float_ansnr_index((int)i - r + u, h);      \
                for (int v = 0; v < kw; v++) {                                               \
                    const unsigned x = (unsigned)vmaf_float_ansnr_index((int)j - r + v, w);  \
                    win[u * kw + v] = stats_sample_##bits(VMAF_ARENA_ARG src, a.stride, y,   \
                                                          x, scale,                          \
                                                          VMAF_FLOAT_SAMPLE_OFFSET);         \
                }                                                                            \
            }                                                                                \
            out[((size_t)plane * a.h + i) * a.w + j] =                                       \
                vmaf_float_ansnr_filter_window(k, kw, win);                                  \
        }                                                                                    \
    }

__attribute__((reqd_work_group_size(FLOAT_STATS_CUDA_THREADS, 1, 1)))
VMAF_KERNEL(vmaf_float_stats_rows_8, FloatStatsCudaArgs) STATS_ROWS(8)
__attribute__((reqd_work_group_size(FLOAT_STATS_CUDA_THREADS, 1, 1)))
VMAF_KERNEL(vmaf_float_stats_rows_16, FloatStatsCudaArgs) STATS_ROWS(16)
__attribute__((reqd_work_group_size(FLOAT_STATS_CUDA_THREADS, 1, 1)))
VMAF_KERNEL(vmaf_float_stats_finish_8, FloatStatsCudaArgs) STATS_FINISH(8)
__attribute__((reqd_work_group_size(FLOAT_STATS_CUDA_THREADS, 1, 1)))
VMAF_KERNEL(vmaf_float_stats_finish_16, FloatStatsCudaArgs) STATS_FINISH(16)
VMAF_KERNEL(vmaf_float_ansnr_filter_8, FloatStatsCudaArgs) ANSNR_FILTER(8)
VMAF_KERNEL(vmaf_float_ansnr_filter_16, FloatStatsCudaArgs) ANSNR_FILTER(16)

VMAF_KERNEL(vmaf_float_ansnr_rows, FloatStatsCudaArgs)
{
    const unsigned i = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0);
    if (i >= a.h) return;
    __global const float *r = VMAF_PTR(const float, a.filtered) + (size_t)i * a.w;
    __global const float *d = r + (size_t)a.h * a.w;
    __global float *rows = VMAF_PTR(float, a.rows);
    float sig, noise;
    vmaf_float_ansnr_row_sums(r, d, a.w, &sig, &noise);
    rows[2 * i] = sig;
    rows[2 * i + 1] = noise;
}
