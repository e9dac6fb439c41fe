#pragma OPENCL FP_CONTRACT OFF
#define VMAF_OPENCL_FP64_FREE 1
// ciede twin (ciede.cu's OpenCL form): the per-pixel CIEDE2000 differences (ciede_device.h,
// the CPU's own functions), then their double sum in the CPU's row-major order, by one
// work-group that gives the serial loop's bits (seq_sum.clh; adding the exact zeros of equal
// pixels changes nothing, as on the CPU, where they are skipped). Its doubles are f64.h's
// vmaf_double: the device's double, or the software binary64 where that is not used.
#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/ciede_device.h"
#include "feature/opencl/seq_sum.clh"

static inline VmafCiedePlanes ciede_planes(VMAF_ARENA_PARAM const CiedeCudaArgs *a, int dist)
{
    VmafCiedePlanes p;
    for (int k = 0; k < 3; k++) {
        p.data[k] = VMAF_PTR(const uchar, dist ? a->dist[k] : a->ref[k]);
        p.stride[k] = (size_t)a->stride[k];
        p.w[k] = a->pw[k];
        p.h[k] = a->ph[k];
    }
    return p;
}

// grid (ceil(w / CIEDE_CUDA_THREADS), h): pixel (vmaf_bid(1), vmaf_bid(0) * vmaf_bdim(0) + x)
VMAF_KERNEL(vmaf_ciede_diff, CiedeCudaArgs)
{
    const unsigned j = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0), i = vmaf_bid(1);
    if (j >= a.w) return;
    const VmafCiedePlanes ref = ciede_planes(VMAF_ARENA_ARG & a, 0);
    const VmafCiedePlanes dis = ciede_planes(VMAF_ARENA_ARG & a, 1);
    VMAF_PTR(float, a.diff)[(size_t)i * a.w + j] = vmaf_ciede_pixel(&ref, &dis, a.bpc, a.layout,
                                                                     i, j);
}

// one work-group of SEQ_SUM_THREADS work-items, or fewer where the device takes fewer
// (seq_sum.clh): sum += diff in row-major order, as ciede.c
VMAF_KERNEL(vmaf_ciede_sum, CiedeCudaArgs)
{
    VMAF_LOCAL SeqSumLocal seq;
    vmaf_seq_sum_block(&seq, VMAF_PTR(const float, a.diff), (ulong)a.w * a.h,
                       VMAF_PTR(vmaf_double, a.sum));
}
