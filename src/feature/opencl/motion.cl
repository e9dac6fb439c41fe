#pragma OPENCL FP_CONTRACT OFF
#define VMAF_OPENCL_FP64_FREE 1
// motion twin: the SAD of the filtered difference of two luma planes (motion.cu's OpenCL
// form; motion.cu says why every intermediate is an exact integer and why the sums may be
// added in any order).
//
// Decomposition as in motion.cu: each 32 work-items of a group own a strip of
// MOTION_CUDA_STRIP output columns and MOTION_CUDA_ROWS rows, holding the strip's columns plus
// the 2 mirrored columns on either side; each slides down its column keeping the differences
// of the last 5 rows in registers (the vertical pass). The horizontal pass reads the 4
// neighbours' vertical values through local memory (where motion.cu shuffles), with the
// shuffles' edge rule: a neighbour outside the 32 gives the work-item's own value (only
// columns whose outputs are not used take it). Every work-item runs every row of the group,
// so the barriers are uniform; strips past the plane compute nothing.
#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/motion.h"
#include "feature/opencl/block_sum.clh"

// prev - cur at row r, column c
#define MOTION_DIFF(T, V, r, c)                                                              \
    ((V)VMAF_PTR(const T, a.prev + (r) * a.stride)[c] -                                      \
     (V)VMAF_PTR(const T, a.cur + (r) * a.stride)[c])

// T: the sample type; V: the vertical sums' type (int up to 15 bits, long at 16)
#define MOTION_SAD(T, V)                                                                     \
    {                                                                                        \
        VMAF_LOCAL int vals[MOTION_CUDA_THREADS];                                            \
        VMAF_LOCAL ulong part[MOTION_CUDA_THREADS];                                          \
        const int w = (int)a.w, h = (int)a.h;                                                \
        const int tid = (int)vmaf_tid(0), lane = tid & 31, warp = tid >> 5;                  \
        const int strip = (int)vmaf_bid(0) * (MOTION_CUDA_THREADS / 32) + warp;              \
        const int x = strip * MOTION_CUDA_STRIP - VMAF_MOTION_RADIUS + lane; /* >= -2 */     \
        /* columns past the right margin read a valid column whose value no output uses */  \
        const int col = vmaf_reflect101(min(x, w - 1 + VMAF_MOTION_RADIUS), w);              \
        const bool out = lane >= VMAF_MOTION_RADIUS &&                                       \
                         lane < VMAF_MOTION_RADIUS + MOTION_CUDA_STRIP && x < w;             \
        const int y0 = (int)vmaf_bid(1) * MOTION_CUDA_ROWS;                                  \
        const int y1 = min(y0 + MOTION_CUDA_ROWS, h);                                        \
        const int shift = vmaf_motion_vertical_shift(a.bpc);                                 \
        const V rnd = (V)1 << (shift - 1);                                                   \
        const bool live = strip * MOTION_CUDA_STRIP < w; /* the same for the 32 */           \
        unsigned sum = 0;                                                                    \
        V d[5] = { 0, 0, 0, 0, 0 };                                                          \
        if (live) { /* rows y0-2 .. y0+1, then one new row per output row */                 \
            for (int t = 0; t < 4; t++) {                                                    \
                const ulong r = (ulong)vmaf_reflect101(y0 - VMAF_MOTION_RADIUS + t, h);      \
                d[t + 1] = MOTION_DIFF(T, V, r, col);                                    \
            }                                                                                \
        }                                                                                    \
        for (int y = y0; y < y1; y++) {                                                      \
            int v = 0;                                                                       \
            if (live) {                                                                      \
                d[0] = d[1], d[1] = d[2], d[2] = d[3], d[3] = d[4];                          \
                const ulong r = (ulong)vmaf_reflect101(y + VMAF_MOTION_RADIUS, h);           \
                d[4] = MOTION_DIFF(T, V, r, col);                                        \
                const V acc = (V)VMAF_MOTION_K_OUTER * (d[0] + d[4]) +                       \
                              (V)VMAF_MOTION_K_INNER * (d[1] + d[3]) +                       \
                              (V)VMAF_MOTION_K_CENTER * d[2];                                \
                v = (int)((acc + rnd) >> shift);                                             \
            }                                                                                \
            vals[tid] = v;                                                                   \
            VMAF_BARRIER();                                                                  \
            if (live) {                                                                      \
                const int vm2 = lane >= 2 ? vals[tid - 2] : v;                               \
                const int vm1 = lane >= 1 ? vals[tid - 1] : v;                               \
                const int vp1 = lane <= 30 ? vals[tid + 1] : v;                              \
                const int vp2 = lane <= 29 ? vals[tid + 2] : v;                              \
                const long hacc = (long)VMAF_MOTION_K_OUTER * (vm2 + vp2) +                  \
                                  (long)VMAF_MOTION_K_INNER * (vm1 + vp1) +                  \
                                  (long)VMAF_MOTION_K_CENTER * v;                            \
                const long s = (hacc + (1L << (VMAF_MOTION_K_SHIFT - 1))) >>                 \
                               VMAF_MOTION_K_SHIFT;                                          \
                if (out) sum += (unsigned)(s < 0 ? -s : s);                                  \
            }                                                                                \
            VMAF_BARRIER();                                                                  \
        }                                                                                    \
        const ulong block = vmaf_block_sum_u64(part, sum);                                   \
        if (tid == 0 && block) vmaf_atomic_add_u64(VMAF_PTR(ulong, a.sad), block);           \
    }

__attribute__((reqd_work_group_size(MOTION_CUDA_THREADS, 1, 1)))
VMAF_KERNEL(vmaf_motion_sad_8, MotionCudaArgs)
MOTION_SAD(uchar, int)

// 9..15 bits: the vertical sums fit int32
__attribute__((reqd_work_group_size(MOTION_CUDA_THREADS, 1, 1)))
VMAF_KERNEL(vmaf_motion_sad_16, MotionCudaArgs)
MOTION_SAD(ushort, int)

// 16 bits: the vertical sums take 64 bits
__attribute__((reqd_work_group_size(MOTION_CUDA_THREADS, 1, 1)))
VMAF_KERNEL(vmaf_motion_sad_16_wide, MotionCudaArgs)
MOTION_SAD(ushort, long)
