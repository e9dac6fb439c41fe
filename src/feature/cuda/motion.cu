// motion twin: the SAD of the filtered difference of two luma planes, as the CPU computes it.
// Every intermediate is an exact integer (arithmetic shifts floor like the CPU's), and a
// row's sum of absolute values stays below 2^32 for widths up to 32768, so summing all rows
// in 64 bits in any order equals the CPU's per-row 32-bit sums added in row order.
//
// Decomposition: a warp owns a strip of MOTION_CUDA_STRIP output columns and
// MOTION_CUDA_ROWS rows. Its 32 lanes hold the strip's columns plus the 2 mirrored columns
// on either side; each lane slides down its column keeping the differences of the last 5
// rows in registers (the vertical pass), and the horizontal pass reads the 4 neighbours'
// vertical values by warp shuffles. No shared memory and no barrier until the block's sum.
//
// Ranges: |prev - cur| < 2^bpc. Vertical sums: |sum| <= (2^bpc - 1) * 2^16, below 2^31 up to
// 15 bits (int32), 64 bits at 16; after the shift |v| <= 2^16, so a pair of neighbours fits
// int32 and the horizontal sums take 64 bits (32 x 32 -> 64-bit products).
#include <stdint.h>

#include "feature/twins/kernel_args.h"
#include "feature/motion.h"

template <typename T, typename V>
__device__ void motion_sad(const MotionCudaArgs &a)
{
    __shared__ unsigned long long warp_sum[MOTION_CUDA_THREADS / 32];
    const int w = (int)a.w, h = (int)a.h;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int strip = blockIdx.x * (MOTION_CUDA_THREADS / 32) + warp;
    const int x = strip * MOTION_CUDA_STRIP - VMAF_MOTION_RADIUS + lane; // >= -2
    // lanes past the right margin read a valid column whose value no output uses
    const int col = vmaf_reflect101(min(x, w - 1 + VMAF_MOTION_RADIUS), w);
    const bool out = lane >= VMAF_MOTION_RADIUS && lane < VMAF_MOTION_RADIUS + MOTION_CUDA_STRIP &&
                     x < w;
    const int y0 = blockIdx.y * MOTION_CUDA_ROWS, y1 = min(y0 + MOTION_CUDA_ROWS, h);
    const int shift = vmaf_motion_vertical_shift(a.bpc);
    const V rnd = (V)1 << (shift - 1);
    unsigned sum = 0;
    if (strip * MOTION_CUDA_STRIP < w) { // uniform per warp
        V d[5];
        // rows y0-2 .. y0+1, then one new row per output row
        for (int t = 0; t < 4; t++) {
            const unsigned long long r = (unsigned long long)vmaf_reflect101(y0 - VMAF_MOTION_RADIUS + t, h);
            d[t + 1] = (V)((const T *)(a.prev + r * a.stride))[col] -
                       (V)((const T *)(a.cur + r * a.stride))[col];
        }
        for (int y = y0; y < y1; y++) {
            d[0] = d[1], d[1] = d[2], d[2] = d[3], d[3] = d[4];
            const unsigned long long r = (unsigned long long)vmaf_reflect101(y + VMAF_MOTION_RADIUS, h);
            d[4] = (V)((const T *)(a.prev + r * a.stride))[col] -
                   (V)((const T *)(a.cur + r * a.stride))[col];
            const V acc = (V)VMAF_MOTION_K_OUTER * (d[0] + d[4]) +
                          (V)VMAF_MOTION_K_INNER * (d[1] + d[3]) + (V)VMAF_MOTION_K_CENTER * d[2];
            const int v = (int)((acc + rnd) >> shift);
            const int vm2 = __shfl_up_sync(0xffffffffu, v, 2), vm1 = __shfl_up_sync(0xffffffffu, v, 1);
            const int vp1 = __shfl_down_sync(0xffffffffu, v, 1), vp2 = __shfl_down_sync(0xffffffffu, v, 2);
            const long long hacc = (long long)VMAF_MOTION_K_OUTER * (vm2 + vp2) +
                                   (long long)VMAF_MOTION_K_INNER * (vm1 + vp1) +
                                   (long long)VMAF_MOTION_K_CENTER * v;
            const long long s = (hacc + (1ll << (VMAF_MOTION_K_SHIFT - 1))) >> VMAF_MOTION_K_SHIFT;
            if (out) sum += (unsigned)(s < 0 ? -s : s);
        }
    }
    unsigned long long total = sum;
    for (int o = 16; o > 0; o >>= 1) total += __shfl_down_sync(0xffffffffu, total, o);
    if (lane == 0) warp_sum[warp] = total;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long block = 0;
        for (int i = 0; i < MOTION_CUDA_THREADS / 32; i++) block += warp_sum[i];
        if (block) atomicAdd((unsigned long long *)a.sad, block);
    }
}

extern "C" __global__ void __launch_bounds__(MOTION_CUDA_THREADS) vmaf_motion_sad_8(MotionCudaArgs a)
{
    motion_sad<uint8_t, int>(a);
}

// 9..15 bits: the vertical sums fit int32
extern "C" __global__ void __launch_bounds__(MOTION_CUDA_THREADS) vmaf_motion_sad_16(MotionCudaArgs a)
{
    motion_sad<uint16_t, int>(a);
}

// 16 bits: the vertical sums take 64 bits
extern "C" __global__ void __launch_bounds__(MOTION_CUDA_THREADS) vmaf_motion_sad_16_wide(MotionCudaArgs a)
{
    motion_sad<uint16_t, long long>(a);
}
