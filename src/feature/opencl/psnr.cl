#pragma OPENCL FP_CONTRACT OFF
#define VMAF_OPENCL_FP64_FREE 1
// psnr twin: per-plane sum of squared differences (psnr.cu's OpenCL form). Integer sums are
// exact in any order.
//
// A work-group takes every vmaf_gdim(0)-th row of one plane (vmaf_bid(1)); its work-items take
// 16-byte chunks of the row (vloadn: no alignment needed beyond the sample's), then the row's
// tail sample by sample. Each work-item's squares add up in 64 bits.
#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/opencl/block_sum.clh"

static inline ulong psnr_chunk_8(__global const uchar *r, __global const uchar *d, unsigned c)
{
    const uint16 e = convert_uint16(abs_diff(vload16(c, r), vload16(c, d)));
    const uint16 s = e * e; // <= 65025
    const uint8 s8 = s.lo + s.hi;
    const uint4 s4 = s8.lo + s8.hi;
    return (ulong)(s4.x + s4.y + s4.z + s4.w); // <= 16 * 65025
}

static inline ulong psnr_chunk_16(__global const ushort *r, __global const ushort *d, unsigned c)
{
    const uint8 e = convert_uint8(abs_diff(vload8(c, r), vload8(c, d)));
    const ulong8 s = convert_ulong8(e * e); // each square < 2^32
    const ulong4 s4 = s.lo + s.hi;
    return s4.x + s4.y + s4.z + s4.w;
}

// the plane's SSE, added into a.sse[p]; T the sample type, PER samples per 16-byte chunk
#define PSNR_SSE(T, PER, CHUNK)                                                              \
    {                                                                                        \
        VMAF_LOCAL ulong part[PSNR_CUDA_THREADS];                                            \
        const unsigned p = vmaf_bid(1);                                                      \
        if (p >= a.n_planes) return;                                                         \
        const unsigned w = a.w[p], h = a.h[p];                                               \
        const vmaf_devptr ref = a.ref[p], dist = a.dist[p];                                  \
        const ulong stride = a.stride[p];                                                    \
        const unsigned full = w / (PER);                                                     \
        ulong sum = 0;                                                                       \
        for (unsigned y = vmaf_bid(0); y < h; y += vmaf_gdim(0)) {                           \
            __global const T *r = VMAF_PTR(const T, ref + y * stride);                       \
            __global const T *d = VMAF_PTR(const T, dist + y * stride);                      \
            for (unsigned c = vmaf_tid(0); c < full; c += vmaf_bdim(0))                      \
                sum += CHUNK(r, d, c);                                                       \
            for (unsigned x = full * (PER) + vmaf_tid(0); x < w; x += vmaf_bdim(0)) {        \
                const long e = (long)r[x] - (long)d[x];                                      \
                sum += (ulong)(e * e);                                                       \
            }                                                                                \
        }                                                                                    \
        const ulong total = vmaf_block_sum_u64(part, sum);                                   \
        if (vmaf_tid(0) == 0) vmaf_atomic_add_u64(VMAF_PTR(ulong, a.sse) + p, total);        \
    }

__attribute__((reqd_work_group_size(PSNR_CUDA_THREADS, 1, 1)))
VMAF_KERNEL(vmaf_psnr_sse_8, PsnrCudaArgs)
PSNR_SSE(uchar, 16, psnr_chunk_8)

__attribute__((reqd_work_group_size(PSNR_CUDA_THREADS, 1, 1)))
VMAF_KERNEL(vmaf_psnr_sse_16, PsnrCudaArgs)
PSNR_SSE(ushort, 8, psnr_chunk_16)
