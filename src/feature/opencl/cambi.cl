#pragma OPENCL FP_CONTRACT OFF
#define VMAF_OPENCL_FP64_FREE 1
// cambi twin in OpenCL C: the kernels of cuda/cambi.cu, with the same names, arguments,
// launches and per-thread work (feature/cambi_device.h). Every sum is an integer (counts,
// units: any order is exact) and a c-value is a max of finite non-negative floats (any order
// is exact), so only the thread mapping differs where OpenCL C 1.2 needs it:
//   - a pixel's 8 contrast lanes meet through __local memory and a barrier instead of warp
//     shuffles;
//   - the select kernel copies the level's bins into __local memory first (the select reads
//     its bins and chunk sums from one address space).

#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/cambi_device.h"

#define CAMBI_GTID (vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0))

VMAF_KERNEL(vmaf_cambi_preprocess, CambiPreArgs)
{
    cambi_dev_preprocess(&a, VMAF_PTR(const uchar, a.luma), VMAF_PTR(const uint, a.pos_x),
                         VMAF_PTR(const uint, a.pos_y), VMAF_PTR(ushort, a.image), CAMBI_GTID);
}

VMAF_KERNEL(vmaf_cambi_flat, CambiFlatArgs)
{
    cambi_dev_flat(&a, VMAF_PTR(const ushort, a.image), VMAF_PTR(uchar, a.flat), CAMBI_GTID);
}

VMAF_KERNEL(vmaf_cambi_mask, CambiFlatArgs)
{
    cambi_dev_mask(&a, VMAF_PTR(const uchar, a.flat), VMAF_PTR(uchar, a.mask), CAMBI_GTID);
}

VMAF_KERNEL(vmaf_cambi_scale, CambiScaleArgs)
{
    cambi_dev_scale(&a, VMAF_PTR(const ushort, a.src_image), VMAF_PTR(const uchar, a.src_mask),
                    VMAF_PTR(ushort, a.image), VMAF_PTR(uchar, a.mask), VMAF_PTR(ushort, a.keys),
                    CAMBI_GTID);
}

// One work-group per (strip, segment): the histogram in __local memory, built for the first
// row, then slid down; per row, the lanes' c-values meet in lane_c and the first lane of each
// pixel takes their max.
VMAF_KERNEL(vmaf_cambi_cvalues, CambiCvArgs)
{
    VMAF_LOCAL uint hist[CAMBI_DEV_MAX_BAND * CAMBI_DEV_WORDS];
    VMAF_LOCAL float lane_c[CAMBI_DEV_CV_THREADS];
    const __global CambiDevDiffs *df = VMAF_PTR(const CambiDevDiffs, a.diffs);
    const __global float *recip = VMAF_PTR(const float, a.recip);
    const __global ushort *keys = VMAF_PTR(const ushort, a.keys);
    __global float *out = VMAF_PTR(float, a.c_values);
    const unsigned t = vmaf_tid(0), n = CAMBI_DEV_CV_THREADS;
    const CambiDevStrip s = cambi_dev_strip(&a, vmaf_bid(0), vmaf_bid(1));
    cambi_dev_hist_clear(hist, df->size, t, n);
    VMAF_BARRIER();
    cambi_dev_hist_init(&a, &s, keys, hist, t, n);
    for (int i = s.r0; i < s.r1; i++) {
        if (i > s.r0) cambi_dev_hist_slide(&a, &s, keys, hist, i, t, n);
        VMAF_BARRIER();
        lane_c[t] = cambi_dev_c_lane(&a, &s, df, recip, keys, hist, i, t);
        VMAF_BARRIER();
        const int j = s.c0 + (int)(t / CAMBI_DEV_DLANES);
        if (t % CAMBI_DEV_DLANES == 0 && j < s.c1) {
            float c = lane_c[t];
            for (unsigned l = 1; l < CAMBI_DEV_DLANES; l++)
                if (lane_c[t + l] > c) c = lane_c[t + l];
            out[(size_t)i * a.w + j] = c;
        }
        VMAF_BARRIER();
    }
}

// Radix levels: a work-group histogram in __local memory added to the level's bins; level 0
// also totals the units of every nonzero value and flags a value that is not whole in units.
VMAF_KERNEL(vmaf_cambi_pool_hist, CambiPoolArgs)
{
    VMAF_LOCAL uint bins[CAMBI_DEV_BINS];
    VMAF_LOCAL ulong units_sum;
    VMAF_LOCAL uint bad;
    __global CambiDevPool *p = VMAF_PTR(CambiDevPool, a.pool);
    const __global uint *c = VMAF_PTR(const uint, a.c_values);
    const unsigned nb = a.level == 2 ? 256 : CAMBI_DEV_BINS;
    for (unsigned b = vmaf_tid(0); b < nb; b += vmaf_bdim(0)) bins[b] = 0;
    if (vmaf_tid(0) == 0) {
        units_sum = 0;
        bad = 0;
    }
    VMAF_BARRIER();
    const unsigned prefix = p->prefix;
    ulong mine = 0;
    unsigned my_bad = 0;
    for (unsigned e = CAMBI_GTID; e < a.n; e += vmaf_gdim(0) * vmaf_bdim(0)) {
        const uint bits = c[e];
        const int b = cambi_dev_bucket(bits, a.level, prefix);
        if (b < 0) continue;
        atomic_add(&bins[b], 1u);
        if (a.level == 0) {
            vmaf_u64 u = 0;
            if (cambi_dev_units(bits, &u)) mine += u;
            else my_bad = 1;
        }
    }
    if (a.level == 0) {
        if (mine) atom_add(&units_sum, mine);
        if (my_bad) atomic_or(&bad, 1u);
    }
    VMAF_BARRIER();
    __global uint *dst = a.level == 2 ? p->hist2 : p->hist[a.level];
    for (unsigned b = vmaf_tid(0); b < nb; b += vmaf_bdim(0))
        if (bins[b]) atomic_add(&dst[b], bins[b]);
    if (vmaf_tid(0) == 0 && a.level == 0) {
        if (units_sum) vmaf_atomic_add_u64(&p->total_units, units_sum);
        if (bad) atomic_or(&p->bad, 1u);
    }
}

// One work-group: the level's bins into __local memory, chunk sums in parallel, then
// work-item 0 picks the chunk and the bin.
VMAF_KERNEL(vmaf_cambi_pool_select, CambiPoolArgs)
{
    VMAF_LOCAL uint bins[CAMBI_DEV_BINS];
    VMAF_LOCAL uint chunk_sums[CAMBI_DEV_POOL_THREADS];
    __global CambiDevPool *p = VMAF_PTR(CambiDevPool, a.pool);
    const unsigned nb = a.level == 2 ? 256 : CAMBI_DEV_BINS;
    const unsigned per = nb / CAMBI_DEV_POOL_THREADS;
    const __global uint *level_bins = a.level == 2 ? p->hist2 : p->hist[a.level];
    const unsigned t = vmaf_tid(0);
    for (unsigned b = t; b < nb; b += CAMBI_DEV_POOL_THREADS) bins[b] = level_bins[b];
    VMAF_BARRIER();
    unsigned sum = 0;
    for (unsigned b = 0; b < per; b++) sum += bins[t * per + b];
    chunk_sums[t] = sum;
    VMAF_BARRIER();
    if (t == 0) {
        if (a.level == 0) p->remaining = a.k;
        unsigned prefix = p->prefix, remaining = p->remaining;
        cambi_dev_select_finish(bins, chunk_sums, CAMBI_DEV_POOL_THREADS, per,
                                a.level == 2 ? 8 : 12, &prefix, &remaining);
        p->prefix = prefix;
        p->remaining = remaining;
    }
}

// The units of the values above the k-th largest (bits prefix).
VMAF_KERNEL(vmaf_cambi_pool_sum, CambiPoolArgs)
{
    VMAF_LOCAL ulong block_sum;
    __global CambiDevPool *p = VMAF_PTR(CambiDevPool, a.pool);
    const __global uint *c = VMAF_PTR(const uint, a.c_values);
    if (vmaf_tid(0) == 0) block_sum = 0;
    VMAF_BARRIER();
    const uint kth = p->prefix;
    ulong mine = 0;
    for (unsigned e = CAMBI_GTID; e < a.n; e += vmaf_gdim(0) * vmaf_bdim(0)) {
        const uint bits = c[e];
        vmaf_u64 u = 0;
        if (bits > kth && cambi_dev_units(bits, &u)) mine += u;
    }
    if (mine) atom_add(&block_sum, mine);
    VMAF_BARRIER();
    if (vmaf_tid(0) == 0 && block_sum) vmaf_atomic_add_u64(&p->gt_units, block_sum);
}

// The result: units above + remaining copies of the k-th largest.
VMAF_KERNEL(vmaf_cambi_pool_finish, CambiPoolArgs)
{
    const __global CambiDevPool *p = VMAF_PTR(const CambiDevPool, a.pool);
    __global CambiDevResult *r = VMAF_PTR(CambiDevResult, a.result);
    vmaf_u64 u = 0;
    cambi_dev_units(p->prefix, &u);
    r->topk_units = p->gt_units + (vmaf_u64)p->remaining * u;
    r->total_units = p->total_units;
    r->bad = p->bad;
    r->pad = 0;
}
