// cambi twin: the kernels of cambi_device.h's decomposition. The per-thread work is
// cambi_device.h's (shared with the CPU extractor and the host test); here only the thread
// mapping, the barriers, the shared memory and the reductions. Every sum is an integer
// (counts, units): any order is exact; the c-values are a max of floats. --fmad=false.
#include <stdint.h>

#include "feature/cambi_device.h"

#define GTID (blockIdx.x * blockDim.x + threadIdx.x)

extern "C" __global__ void __launch_bounds__(CAMBI_DEV_THREADS)
    vmaf_cambi_preprocess(CambiPreArgs a)
{
    cambi_dev_preprocess(&a, (const uint8_t *)a.luma, (const unsigned *)a.pos_x,
                         (const unsigned *)a.pos_y, (uint16_t *)a.image, GTID);
}

extern "C" __global__ void __launch_bounds__(CAMBI_DEV_THREADS) vmaf_cambi_flat(CambiFlatArgs a)
{
    cambi_dev_flat(&a, (const uint16_t *)a.image, (uint8_t *)a.flat, GTID);
}

extern "C" __global__ void __launch_bounds__(CAMBI_DEV_THREADS) vmaf_cambi_mask(CambiFlatArgs a)
{
    cambi_dev_mask(&a, (const uint8_t *)a.flat, (uint8_t *)a.mask, GTID);
}

extern "C" __global__ void __launch_bounds__(CAMBI_DEV_THREADS)
    vmaf_cambi_scale(CambiScaleArgs a)
{
    cambi_dev_scale(&a, (const uint16_t *)a.src_image, (const uint8_t *)a.src_mask,
                    (uint16_t *)a.image, (uint8_t *)a.mask, (uint16_t *)a.keys, GTID);
}

// One block per (strip, segment): the histogram in shared memory, built for the first row,
// then slid down; 2 barriers per row.
extern "C" __global__ void __launch_bounds__(CAMBI_DEV_CV_THREADS)
    vmaf_cambi_cvalues(CambiCvArgs a)
{
    __shared__ uint32_t hist[CAMBI_DEV_MAX_BAND * CAMBI_DEV_WORDS];
    const CambiDevDiffs *df = (const CambiDevDiffs *)a.diffs;
    const float *recip = (const float *)a.recip;
    const uint16_t *keys = (const uint16_t *)a.keys;
    float *out = (float *)a.c_values;
    const unsigned t = threadIdx.x, n = CAMBI_DEV_CV_THREADS;
    const CambiDevStrip s = cambi_dev_strip(&a, blockIdx.x, blockIdx.y);
    cambi_dev_hist_clear(hist, df->size, t, n);
    __syncthreads();
    cambi_dev_hist_init(&a, &s, keys, hist, t, n);
    for (int i = s.r0; i < s.r1; i++) {
        if (i > s.r0) cambi_dev_hist_slide(&a, &s, keys, hist, i, t, n);
        __syncthreads();
        float c = cambi_dev_c_lane(&a, &s, df, recip, keys, hist, i, t);
        // the lanes of one pixel are consecutive threads of one warp
#pragma unroll
        for (int o = CAMBI_DEV_DLANES / 2; o > 0; o >>= 1) {
            const float other = __shfl_down_sync(0xffffffffu, c, o, CAMBI_DEV_DLANES);
            if (other > c) c = other;
        }
        const int j = s.c0 + (int)(t / CAMBI_DEV_DLANES);
        if (t % CAMBI_DEV_DLANES == 0 && j < s.c1) out[(size_t)i * a.w + j] = c;
        __syncthreads();
    }
}

// Radix levels: a block histogram in shared memory added to the level's bins; level 0 also
// totals the units of every nonzero value and flags a value that is not whole in units.
extern "C" __global__ void __launch_bounds__(CAMBI_DEV_POOL_THREADS)
    vmaf_cambi_pool_hist(CambiPoolArgs a)
{
    __shared__ unsigned bins[CAMBI_DEV_BINS];
    __shared__ unsigned long long units_sum;
    __shared__ unsigned bad;
    CambiDevPool *p = (CambiDevPool *)a.pool;
    const uint32_t *c = (const uint32_t *)a.c_values;
    const unsigned nb = a.level == 2 ? 256 : CAMBI_DEV_BINS;
    for (unsigned b = threadIdx.x; b < nb; b += blockDim.x) bins[b] = 0;
    if (threadIdx.x == 0) {
        units_sum = 0;
        bad = 0;
    }
    __syncthreads();
    const unsigned prefix = p->prefix;
    unsigned long long mine = 0;
    unsigned my_bad = 0;
    for (unsigned e = GTID; e < a.n; e += gridDim.x * blockDim.x) {
        const uint32_t bits = c[e];
        const int b = cambi_dev_bucket(bits, a.level, prefix);
        if (b < 0) continue;
        atomicAdd(&bins[b], 1u);
        if (a.level == 0) {
            unsigned long long u = 0;
            if (cambi_dev_units(bits, &u)) mine += u;
            else my_bad = 1;
        }
    }
    if (a.level == 0) {
        if (mine) atomicAdd(&units_sum, mine);
        if (my_bad) atomicOr(&bad, 1u);
    }
    __syncthreads();
    unsigned *dst = a.level == 2 ? p->hist2 : p->hist[a.level];
    for (unsigned b = threadIdx.x; b < nb; b += blockDim.x)
        if (bins[b]) atomicAdd(&dst[b], bins[b]);
    if (threadIdx.x == 0 && a.level == 0) {
        if (units_sum) atomicAdd(&p->total_units, units_sum);
        if (bad) atomicOr(&p->bad, 1u);
    }
}

// One block: chunk sums in parallel, then thread 0 picks the chunk and the bin.
extern "C" __global__ void __launch_bounds__(CAMBI_DEV_POOL_THREADS)
    vmaf_cambi_pool_select(CambiPoolArgs a)
{
    __shared__ unsigned chunk_sums[CAMBI_DEV_POOL_THREADS];
    CambiDevPool *p = (CambiDevPool *)a.pool;
    const unsigned nb = a.level == 2 ? 256 : CAMBI_DEV_BINS;
    const unsigned per = nb / CAMBI_DEV_POOL_THREADS;
    const unsigned *bins = a.level == 2 ? p->hist2 : p->hist[a.level];
    unsigned sum = 0;
    for (unsigned b = 0; b < per; b++) sum += bins[threadIdx.x * per + b];
    chunk_sums[threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        if (a.level == 0) p->remaining = a.k;
        unsigned prefix = p->prefix, remaining = p->remaining;
        cambi_dev_select_finish(bins, chunk_sums, CAMBI_DEV_POOL_THREADS, per,
                                a.level == 2 ? 8 : 12, &prefix, &remaining);
        p->prefix = prefix;
        p->remaining = remaining;
    }
}

// The units of the values above the k-th largest (bits prefix).
extern "C" __global__ void __launch_bounds__(CAMBI_DEV_POOL_THREADS)
    vmaf_cambi_pool_sum(CambiPoolArgs a)
{
    __shared__ unsigned long long block_sum;
    CambiDevPool *p = (CambiDevPool *)a.pool;
    const uint32_t *c = (const uint32_t *)a.c_values;
    if (threadIdx.x == 0) block_sum = 0;
    __syncthreads();
    const uint32_t kth = p->prefix;
    unsigned long long mine = 0;
    for (unsigned e = GTID; e < a.n; e += gridDim.x * blockDim.x) {
        const uint32_t bits = c[e];
        unsigned long long u = 0;
        if (bits > kth && cambi_dev_units(bits, &u)) mine += u;
    }
    if (mine) atomicAdd(&block_sum, mine);
    __syncthreads();
    if (threadIdx.x == 0 && block_sum) atomicAdd(&p->gt_units, block_sum);
}

// The result: units above + remaining copies of the k-th largest.
extern "C" __global__ void vmaf_cambi_pool_finish(CambiPoolArgs a)
{
    const CambiDevPool *p = (const CambiDevPool *)a.pool;
    CambiDevResult *r = (CambiDevResult *)a.result;
    unsigned long long u = 0;
    cambi_dev_units(p->prefix, &u);
    r->topk_units = p->gt_units + (unsigned long long)p->remaining * u;
    r->total_units = p->total_units;
    r->bad = p->bad;
    r->pad = 0;
}
