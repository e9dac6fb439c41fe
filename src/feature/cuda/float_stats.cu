// float_psnr, float_moment and float_ansnr twins (float_stats.h has the arithmetic).
// psnr/moment: each term is a whole number of units 2^-q, so per-row integer sums are exact
// in any order and give the CPU's serial double sum while it stays below 2^53 units; past
// that point (bright 13..16-bit planes of millions of samples) one thread finishes the sum
// in double in the CPU's order. ansnr: the filtered planes, then each row's float sums by
// one thread, left to right; the rows are added on the host in row order.
#include <stdint.h>

#include "feature/twins/kernel_args.h"
#include "feature/float_stats.h"

template <typename T>
__device__ float stats_sample(vmaf_devptr base, unsigned long long stride, unsigned i,
                              unsigned j, float scale, float offset)
{
    const T *row = (const T *)(base + i * stride);
    return vmaf_float_sample(row[j], scale, offset);
}

// term of sum m at (i, j) and its unit exponent
template <typename T>
__device__ float stats_term(const FloatStatsCudaArgs &a, unsigned m, unsigned i, unsigned j,
                            float scale)
{
    if (a.kind == FLOAT_STATS_PSNR)
        return vmaf_float_psnr_term(stats_sample<T>(a.ref, a.stride, i, j, scale, 0.0f),
                                    stats_sample<T>(a.dist, a.stride, i, j, scale, 0.0f));
    const float p = stats_sample<T>(m & 1 ? a.dist : a.ref, a.stride, i, j, scale, 0.0f);
    return m < 2 ? p : p * p;
}

__device__ int stats_unit(const FloatStatsCudaArgs &a, unsigned m)
{
    return a.kind == FLOAT_STATS_PSNR ? 2 * ((int)a.bpc - 8) : vmaf_float_moment_unit(m, a.bpc);
}

__device__ unsigned long long block_sum(unsigned long long v)
{
    __shared__ unsigned long long warp[FLOAT_STATS_CUDA_THREADS / 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) warp[threadIdx.x >> 5] = v;
    __syncthreads();
    unsigned long long total = 0;
    if (threadIdx.x == 0)
        for (unsigned k = 0; k < blockDim.x / 32; k++) total += warp[k];
    return total; // valid in thread 0
}

// one block per (row, sum): the row's units
template <typename T>
__device__ void stats_rows(const FloatStatsCudaArgs &a)
{
    const unsigned i = blockIdx.x, m = blockIdx.y;
    const int q = stats_unit(a, m);
    const float scale = 1.0f / vmaf_float_sample_divisor(a.bpc);
    unsigned long long units = 0;
    for (unsigned j = threadIdx.x; j < a.w; j += blockDim.x)
        units += vmaf_float_stats_units(stats_term<T>(a, m, i, j, scale), q);
    units = block_sum(units);
    if (threadIdx.x == 0) ((unsigned long long *)a.row_units)[m * a.h + i] = units;
}

// one block per sum: the total; the serial double finish where it reaches 2^53 units
template <typename T>
__device__ void stats_finish(const FloatStatsCudaArgs &a)
{
    const unsigned m = blockIdx.x;
    const int q = stats_unit(a, m);
    const uint64_t *rows = (const uint64_t *)a.row_units + m * a.h;
    unsigned long long total = 0;
    for (unsigned i = threadIdx.x; i < a.h; i += blockDim.x) total += rows[i];
    total = block_sum(total);
    if (threadIdx.x) return;
    double *out = (double *)a.sums + m;
    if (total < VMAF_FLOAT_STATS_EXACT_UNITS) {
        *out = vmaf_float_stats_from_units(total, q);
        return;
    }
    double sum;
    unsigned row;
    vmaf_float_stats_finish(rows, a.h, q, &sum, &row);
    const float scale = 1.0f / vmaf_float_sample_divisor(a.bpc);
    for (unsigned i = row; i < a.h; i++)
        for (unsigned j = 0; j < a.w; j++) sum += stats_term<T>(a, m, i, j, scale);
    *out = sum;
}

// float_ansnr: one thread per output sample of both filtered planes
template <typename T>
__device__ void ansnr_filter(const FloatStatsCudaArgs &a)
{
    const unsigned j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= a.w) return;
    const int w = (int)a.w, h = (int)a.h;
    const float scale = 1.0f / vmaf_float_sample_divisor(a.bpc);
    float win[VMAF_FLOAT_ANSNR_DIS_WIDTH * VMAF_FLOAT_ANSNR_DIS_WIDTH];
    float *out = (float *)a.filtered;
    for (int plane = 0; plane < 2; plane++) {
        const int kw = plane ? VMAF_FLOAT_ANSNR_DIS_WIDTH : VMAF_FLOAT_ANSNR_REF_WIDTH;
        const float *k = plane ? a.dis_kernel : a.ref_kernel;
        const vmaf_devptr src = plane ? a.dist : a.ref;
        const int r = kw / 2;
        for (int u = 0; u < kw; u++) {
            const unsigned y = (unsigned)vmaf_float_ansnr_index((int)i - r + u, h);
            for (int v = 0; v < kw; v++) {
                const unsigned x = (unsigned)vmaf_float_ansnr_index((int)j - r + v, w);
                win[u * kw + v] =
                    stats_sample<T>(src, a.stride, y, x, scale, VMAF_FLOAT_SAMPLE_OFFSET);
            }
        }
        out[((size_t)plane * a.h + i) * a.w + j] = vmaf_float_ansnr_filter_window(k, kw, win);
    }
}

__device__ void ansnr_rows(const FloatStatsCudaArgs &a)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.h) return;
    const float *r = (const float *)a.filtered + (size_t)i * a.w;
    const float *d = r + (size_t)a.h * a.w;
    float *rows = (float *)a.rows;
    vmaf_float_ansnr_row_sums(r, d, a.w, &rows[2 * i], &rows[2 * i + 1]);
}

#define STATS_KERNELS(bits, T)                                                                 \
    extern "C" __global__ void __launch_bounds__(FLOAT_STATS_CUDA_THREADS)                      \
        vmaf_float_stats_rows_##bits(FloatStatsCudaArgs a) { stats_rows<T>(a); }               \
    extern "C" __global__ void __launch_bounds__(FLOAT_STATS_CUDA_THREADS)                      \
        vmaf_float_stats_finish_##bits(FloatStatsCudaArgs a) { stats_finish<T>(a); }           \
    extern "C" __global__ void __launch_bounds__(FLOAT_STATS_CUDA_THREADS)                      \
        vmaf_float_ansnr_filter_##bits(FloatStatsCudaArgs a) { ansnr_filter<T>(a); }

STATS_KERNELS(8, uint8_t)
STATS_KERNELS(16, uint16_t)

extern "C" __global__ void __launch_bounds__(FLOAT_STATS_CUDA_THREADS)
    vmaf_float_ansnr_rows(FloatStatsCudaArgs a)
{
    ansnr_rows(a);
}
