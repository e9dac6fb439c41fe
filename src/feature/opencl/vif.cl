#pragma OPENCL FP_CONTRACT OFF
/* vif twin, OpenCL: the kernels of src/feature/cuda/vif.cu (one per scale: the statistic of
 * the scale and its part of the next scale), the per-thread work of each phase vif_device.h's,
 * as there. The block's sums are integers (int64 added modulo 2^64): reduced through __local
 * memory in a tree instead of the CUDA form's warp shuffles, any order giving the same bits;
 * thread 0 adds them to the scale's sums with 64-bit atomics. The args carry doubles (the
 * filter as doubles, the gain limit; vmaf_double, f64.h), and the per-pixel arithmetic is
 * double with the device's fp64, or its integer form without (vif_device.h). */
#define VMAF_OPENCL_FP64_FREE 1
#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/vif_device.h"

/* A block's __local memory: the tile while the phases run, then the reduction's partial sums
 * (the tile is dead by then; together they would pass the 48 KiB of static shared memory
 * some devices allow). */
typedef union VifClShared {
    VifDevTile tile;
    long sum[4][VIF_CUDA_THREADS];
} VifClShared;

/* The block's sums of acc, added by thread 0 to *sums. Every thread of the block calls it. */
static inline void vif_cl_block_sum_add(__local VifClShared *sh, VmafVifSums acc,
                                        __global VmafVifSums *sums, int tid)
{
    VMAF_BARRIER(); /* the last phase's reads of the tile are done */
    sh->sum[0][tid] = acc.num_log;
    sh->sum[1][tid] = acc.den_log;
    sh->sum[2][tid] = acc.num_non_log;
    sh->sum[3][tid] = acc.den_non_log;
    VMAF_BARRIER();
    for (int o = VIF_CUDA_THREADS / 2; o > 0; o >>= 1) {
        if (tid < o)
            for (int i = 0; i < 4; i++)
                sh->sum[i][tid] = (long)((ulong)sh->sum[i][tid] + (ulong)sh->sum[i][tid + o]);
        VMAF_BARRIER();
    }
    if (tid == 0) {
        /* two's complement: the unsigned sum modulo 2^64 is the signed one */
        vmaf_atomic_add_u64(&sums->num_log, sh->sum[0][0]);
        vmaf_atomic_add_u64(&sums->den_log, sh->sum[1][0]);
        vmaf_atomic_add_u64(&sums->num_non_log, sh->sum[2][0]);
        vmaf_atomic_add_u64(&sums->den_non_log, sh->sum[3][0]);
    }
}

/* fw: the scale's filter width; sub_fw: the next scale's (0 at scale 3); wide: uint16
 * samples. Constants at every call, so each kernel gets its own unrolled copy, as the CUDA
 * template's instances. */
static inline void vif_cl_scale(VMAF_ARENA_PARAM __local VifClShared *sh, VifCudaArgs a,
                                const int fw, const int sub_fw, const int wide)
{
    const int sub = sub_fw ? sub_fw : 1;
    uint32_t f[VMAF_VIF_MAX_FILTER_WIDTH], sub_f[VMAF_VIF_MAX_FILTER_WIDTH / 2 + 1];
    VMAF_UNROLL
    for (int k = 0; k < VMAF_VIF_MAX_FILTER_WIDTH; k++)
        f[k] = k < fw ? a.filter[k] : 0;
    VMAF_UNROLL
    for (int k = 0; k < VMAF_VIF_MAX_FILTER_WIDTH / 2 + 1; k++)
        sub_f[k] = sub_fw && k < sub ? a.sub_filter[k] : 0;
    if (!sub_fw)
        a.sub = 0;
    const int tid = (int)vmaf_tid(0), bx = (int)vmaf_bid(0), by = (int)vmaf_bid(1);

    vif_dev_phase_load(VIF_DEV_ARENA_ARG &sh->tile, &a, fw, wide, bx, by, tid);
    VMAF_BARRIER();
    vif_dev_phase_vertical(&sh->tile, &a, f, fw, sub_f, sub, !wide, tid);
    VMAF_BARRIER();
    VmafVifSums acc = { 0, 0, 0, 0 };
    vif_dev_phase_horizontal(VIF_DEV_ARENA_ARG &sh->tile, &a, f, fw, sub_f, sub, bx, by, tid,
                             &acc);
    if (a.stat) /* the same for the whole block: every thread reaches the barriers */
        vif_cl_block_sum_add(sh, acc, VMAF_PTR(VmafVifSums, a.sums), tid);
}

VMAF_KERNEL(vmaf_vif_scale0_8, VifCudaArgs)
{
    __local VifClShared sh;
    vif_cl_scale(VMAF_ARENA_ARG &sh, a, 17, 9, 0);
}

VMAF_KERNEL(vmaf_vif_scale0_16, VifCudaArgs)
{
    __local VifClShared sh;
    vif_cl_scale(VMAF_ARENA_ARG &sh, a, 17, 9, 1);
}

VMAF_KERNEL(vmaf_vif_scale1, VifCudaArgs)
{
    __local VifClShared sh;
    vif_cl_scale(VMAF_ARENA_ARG &sh, a, 9, 5, 1);
}

VMAF_KERNEL(vmaf_vif_scale2, VifCudaArgs)
{
    __local VifClShared sh;
    vif_cl_scale(VMAF_ARENA_ARG &sh, a, 5, 3, 1);
}

VMAF_KERNEL(vmaf_vif_scale3, VifCudaArgs)
{
    __local VifClShared sh;
    vif_cl_scale(VMAF_ARENA_ARG &sh, a, 3, 0, 1);
}
