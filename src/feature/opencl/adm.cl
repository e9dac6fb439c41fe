#pragma OPENCL FP_CONTRACT OFF
/* adm twin, OpenCL: the kernels of src/feature/cuda/adm.cu, each thread running the CPU's
 * per-element arithmetic (adm_device.h) through adm_kernels.clh, the OpenCL form of
 * adm_kernels.h. What the CUDA kernels pass between the lanes of a warp (the DWTs' vertical
 * passes at the neighbours' columns) goes through __local memory here, the same values; the
 * sums are integers (uint64, wrapping like the CPU's), reduced in a block in any order and
 * added with one atomic per row and orientation. Decouple's arithmetic is double where the
 * device has it (feature/f64.h enables cl_khr_fp64); without it adm_device.h's integer and
 * float forms, proven equal there, give the same results. */
#define VMAF_OPENCL_FP64_FREE 1
/* Two kernels are named as adm_device.h's element functions (CUDA C++ tells an extern "C"
 * kernel from an overload; OpenCL C has no overloading): the functions get other names in this
 * program, the kernels keep theirs, which the host glue looks up. */
#define vmaf_adm_csf0 vmaf_adm_csf0_element
#define vmaf_adm_csf123 vmaf_adm_csf123_element
#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/opencl/adm_kernels.clh"
#undef vmaf_adm_csf0
#undef vmaf_adm_csf123

/* The CUDA kernels treat a row of ADM_CUDA_TX threads of a block as one warp (vmaf_adm_dwt123)
 * and ADM_DWT0_WARPS warps of 32 (vmaf_adm_dwt0_*); the exchanges below index lanes so. */
typedef char adm_cl_warp_check[ADM_CUDA_TX == 32 ? 1 : -1];

enum { ADM_CL_DWT0_THREADS = 32 * ADM_DWT0_WARPS, ADM_CL_DWT123_THREADS = ADM_CUDA_TX * ADM_CUDA_TY };

/*
 * Scale-0 DWT of picture `pic` (adm.cu's adm_dwt0_pic): a warp of 32 lanes per strip of
 * output columns and a run of output rows, each lane keeping the 4 picture rows of its two
 * columns and taking its neighbours' vertical passes. The CUDA warp shuffles become a
 * __local exchange of every lane's lo/hi at its two columns, double-buffered by row parity
 * so that one barrier per row suffices (a buffer is written again only after the next row's
 * barrier, which every thread reaches after its reads of it). A warp whose strip lies past
 * the picture returns in CUDA; here it stays for the barriers and writes nothing. Lane 0's
 * `prev` and lane 31's `next` are its own values as a CUDA shuffle gives them (neither lane
 * writes a column).
 */
static inline void adm_cl_dwt0(VMAF_ARENA_PARAM const AdmDwt0CudaArgs *a, int pic, int wide,
                               __local int16_t (*ex)[4][ADM_CL_DWT0_THREADS])
{
    const int tid = (int)vmaf_tid(0);
    const int lane = tid & 31, warp = tid >> 5;
    const int strip = (int)vmaf_bid(0) * ADM_DWT0_WARPS + warp;
    const int half_w = (a->w + 1) / 2, half_h = (a->h_pic + 1) / 2;
    const int active = strip * ADM_DWT0_STRIP < half_w; /* the whole warp */
    const int j = vmaf_adm_k_dwt0_lane_col(strip, lane);
    const int c0 = 2 * j, c1 = 2 * j + 1;
    const bool in0 = active && c0 >= 0 && c0 < a->w, in1 = active && c1 >= 0 && c1 < a->w;
    const __global unsigned char *pic_base = VMAF_PTR(const unsigned char, a->pic[pic]);
    const ulong stride = a->pic_stride[pic];
    const int i0 = (int)vmaf_bid(1) * ADM_DWT0_ROWS;
    const int i1 = min(i0 + ADM_DWT0_ROWS, half_h);
    const int up = lane > 0 ? tid - 1 : tid, down = lane < 31 ? tid + 1 : tid;
    uint32_t s0[4] = { 0, 0, 0, 0 }, s1[4] = { 0, 0, 0, 0 };
    for (int i = i0; i < i1; i++) {
        int k = 2;
        if (i == i0) {
            k = 0;
        } else {
            s0[0] = s0[2], s0[1] = s0[3], s1[0] = s1[2], s1[1] = s1[3];
        }
        for (; k < 4; k++) {
            const __global unsigned char *row =
                pic_base + (ulong)vmaf_adm_picture_row(i, k, a->h_pic) * stride;
            if (in0)
                s0[k] = vmaf_adm_sample(row, c0, wide);
            if (in1)
                s1[k] = vmaf_adm_sample(row, c1, wide);
        }
        int16_t lo[2] = { 0, 0 }, hi[2] = { 0, 0 }, prev[2], next[2];
        if (in0)
            vmaf_adm_vpass0(s0[0], s0[1], s0[2], s0[3], a->bpc, &lo[0], &hi[0]);
        if (in1)
            vmaf_adm_vpass0(s1[0], s1[1], s1[2], s1[3], a->bpc, &lo[1], &hi[1]);
        __local int16_t(*e)[ADM_CL_DWT0_THREADS] = ex[i & 1];
        e[0][tid] = lo[0];
        e[1][tid] = lo[1];
        e[2][tid] = hi[0];
        e[3][tid] = hi[1];
        VMAF_BARRIER();
        prev[0] = e[1][up];   /* lo at column c1 of the lane before */
        prev[1] = e[3][up];   /* hi there */
        next[0] = e[0][down]; /* lo at column c0 of the lane after */
        next[1] = e[2][down]; /* hi there */
        if (active && vmaf_adm_k_dwt0_lane_writes(lane))
            vmaf_adm_k_dwt0_finish(VMAF_ARENA_ARG a, pic, i, j, wide, prev, lo, hi, next);
    }
}

static inline void adm_cl_dwt0_kernel(VMAF_ARENA_PARAM const AdmDwt0CudaArgs *a, int wide,
                                      __local int16_t (*ex)[4][ADM_CL_DWT0_THREADS])
{
    /* grid z: the picture (uniform in a block, as the barriers want) */
    if (vmaf_bid(2) == 0)
        adm_cl_dwt0(VMAF_ARENA_ARG a, 0, wide, ex);
    else
        adm_cl_dwt0(VMAF_ARENA_ARG a, 1, wide, ex);
}

VMAF_KERNEL(vmaf_adm_dwt0_8, AdmDwt0CudaArgs)
{
    __local int16_t ex[2][4][ADM_CL_DWT0_THREADS];
    adm_cl_dwt0_kernel(VMAF_ARENA_ARG &a, 0, ex);
}

VMAF_KERNEL(vmaf_adm_dwt0_16, AdmDwt0CudaArgs)
{
    __local int16_t ex[2][4][ADM_CL_DWT0_THREADS];
    adm_cl_dwt0_kernel(VMAF_ARENA_ARG &a, 1, ex);
}

/* Thread (threadIdx.x, threadIdx.y) of a block at output (i, j) of a band. */
#define ADM_XY                                                                                 \
    const int j = (int)(vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0));                             \
    const int i = (int)(vmaf_bid(1) * vmaf_bdim(1) + vmaf_tid(1))

/* Scales 1..3 DWT: each thread the vertical passes at its two columns; the lane before's
 * second and the lane after's first through __local memory (a row of the block is the CUDA
 * warp); lanes 0 and 31 compute the one outside their row themselves, as in CUDA. */
VMAF_KERNEL(vmaf_adm_dwt123, AdmDwt123CudaArgs)
{
    __local int32_t own_first[4][ADM_CL_DWT123_THREADS], own_second[4][ADM_CL_DWT123_THREADS];
    ADM_XY;
    const int lane = (int)vmaf_tid(0);
    const int tid = (int)vmaf_tid(1) * ADM_CUDA_TX + lane;
    int32_t own0[4], own1[4], prev[4], next[4];
    vmaf_adm_k_dwt123_at(VMAF_ARENA_ARG &a, i, 2 * j, own0);
    vmaf_adm_k_dwt123_at(VMAF_ARENA_ARG &a, i, 2 * j + 1, own1);
    for (int l = 0; l < 4; l++) {
        own_first[l][tid] = own0[l];
        own_second[l][tid] = own1[l];
    }
    VMAF_BARRIER();
    if (lane == 0)
        vmaf_adm_k_dwt123_at(VMAF_ARENA_ARG &a, i, 2 * j - 1, prev);
    else
        for (int l = 0; l < 4; l++)
            prev[l] = own_second[l][tid - 1];
    if (lane == 31)
        vmaf_adm_k_dwt123_at(VMAF_ARENA_ARG &a, i, 2 * j + 2, next);
    else
        for (int l = 0; l < 4; l++)
            next[l] = own_first[l][tid + 1];
    vmaf_adm_k_dwt123_finish(VMAF_ARENA_ARG &a, i, j, prev, own0, own1, next);
}

VMAF_KERNEL(vmaf_adm_copy, AdmCopyCudaArgs)
{
    ADM_XY;
    vmaf_adm_k_copy(VMAF_ARENA_ARG &a, i, j);
}

VMAF_KERNEL(vmaf_adm_decouple0, AdmDecoupleCudaArgs)
{
    ADM_XY;
    vmaf_adm_k_decouple0(VMAF_ARENA_ARG &a, i, j);
}

VMAF_KERNEL(vmaf_adm_decouple123, AdmDecoupleCudaArgs)
{
    ADM_XY;
    vmaf_adm_k_decouple123(VMAF_ARENA_ARG &a, i, j);
}

VMAF_KERNEL(vmaf_adm_csf0, AdmCsfCudaArgs)
{
    ADM_XY;
    vmaf_adm_k_csf0(VMAF_ARENA_ARG &a, (int)vmaf_bid(2), i, j);
}

VMAF_KERNEL(vmaf_adm_csf123, AdmCsfCudaArgs)
{
    ADM_XY;
    vmaf_adm_k_csf123(VMAF_ARENA_ARG &a, (int)vmaf_bid(2), i, j);
}

/* Block sum of n values per thread (uint64, wrapping: any order), valid in v of thread 0.
 * Every thread of the block calls it; part: [n][ADM_CUDA_ROW_THREADS] at kernel scope. */
static inline void adm_cl_block_sum(__local ulong (*part)[ADM_CUDA_ROW_THREADS], ulong *v, int n)
{
    const int tid = (int)vmaf_tid(0);
    for (int t = 0; t < n; t++)
        part[t][tid] = v[t];
    VMAF_BARRIER();
    for (int o = ADM_CUDA_ROW_THREADS / 2; o > 0; o >>= 1) {
        if (tid < o)
            for (int t = 0; t < n; t++)
                part[t][tid] += part[t][tid + o];
        VMAF_BARRIER();
    }
    for (int t = 0; t < n; t++)
        v[t] = part[t][0];
}

static inline void adm_cl_cm(VMAF_ARENA_PARAM const AdmCmCudaArgs *a, int scale0,
                             __local ulong (*part)[ADM_CUDA_ROW_THREADS])
{
    const int slot = (int)vmaf_bid(0);
    const VmafAdmCmRows c = vmaf_adm_cm_rows(a->w, a->h);
    const int n = vmaf_adm_cm_positions(&c);
    const VmafAdmCmParams p = vmaf_adm_k_cm_params(a);
    uint64_t acc[3] = { 0, 0, 0 };
    for (int q = (int)vmaf_tid(0); q < n; q += ADM_CUDA_ROW_THREADS)
        vmaf_adm_k_cm_pos(VMAF_ARENA_ARG a, &c, &p, scale0, slot, q, acc);
    adm_cl_block_sum(part, acc, 3);
    if (vmaf_tid(0) == 0) {
        uint64_t row[3];
        vmaf_adm_k_cm_row(a, scale0, slot, acc, row);
        __global uint64_t *total = VMAF_PTR(uint64_t, a->total);
        for (int t = 0; t < 3; t++)
            if (row[t])
                vmaf_atomic_add_u64(total + t, row[t]);
    }
}

VMAF_KERNEL(vmaf_adm_cm0, AdmCmCudaArgs)
{
    __local ulong part[3][ADM_CUDA_ROW_THREADS];
    adm_cl_cm(VMAF_ARENA_ARG &a, 1, part);
}

VMAF_KERNEL(vmaf_adm_cm123, AdmCmCudaArgs)
{
    __local ulong part[3][ADM_CUDA_ROW_THREADS];
    adm_cl_cm(VMAF_ARENA_ARG &a, 0, part);
}

static inline void adm_cl_den(VMAF_ARENA_PARAM const AdmDenCudaArgs *a, int scale0,
                              __local ulong (*part)[ADM_CUDA_ROW_THREADS])
{
    const int i = (int)vmaf_bid(0), t = (int)vmaf_bid(1);
    const int n = a->right - a->left;
    uint64_t v[1] = { 0 };
    for (int j = (int)vmaf_tid(0); j < n; j += ADM_CUDA_ROW_THREADS)
        v[0] += vmaf_adm_k_den_term(VMAF_ARENA_ARG a, scale0, t, i, j);
    adm_cl_block_sum(part, v, 1);
    if (vmaf_tid(0) == 0) {
        const uint64_t row = vmaf_adm_k_den_row(a, scale0, v[0]);
        if (row)
            vmaf_atomic_add_u64(VMAF_PTR(uint64_t, a->total) + t, row);
    }
}

VMAF_KERNEL(vmaf_adm_den0, AdmDenCudaArgs)
{
    __local ulong part[1][ADM_CUDA_ROW_THREADS];
    adm_cl_den(VMAF_ARENA_ARG &a, 1, part);
}

VMAF_KERNEL(vmaf_adm_den123, AdmDenCudaArgs)
{
    __local ulong part[1][ADM_CUDA_ROW_THREADS];
    adm_cl_den(VMAF_ARENA_ARG &a, 0, part);
}
