#pragma OPENCL FP_CONTRACT OFF
// psnr_hvs twin in OpenCL C: the kernels of feature/cuda/psnr_hvs.cu with the same names,
// arguments and launches. The per-block arithmetic of psnr_hvs.c, one thread per 8x8 block,
// writing each block's 64 terms where the CPU's serial sum would meet them, with the same
// float choices and the same order inside every sum as the CPU (no contraction; its one
// double expression has an exact float form, psnr_hvs_mask_amplitude);
// then each plane's serial float sum, reproduced exactly (exact_sum.clh).
#define VMAF_OPENCL_FP64_FREE 1

#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/psnr_hvs.h"

static float psnr_hvs_texture_ratio(const int *px)
{
    int gsum = 0, qsum[4] = { 0, 0, 0, 0 };
    for (int k = 0; k < 64; k++) {
        const int q = ((k >> 3) >= 4) + 2 * ((k & 7) >= 4);
        gsum += px[k];
        qsum[q] += px[k];
    }
    const float gmean = vmaf_fdiv((float)gsum, 64.f);
    float qmean[4];
    for (int q = 0; q < 4; q++) qmean[q] = vmaf_fdiv((float)qsum[q], 16.f);
    float gvar = 0.f, qvar[4] = { 0.f, 0.f, 0.f, 0.f };
    for (int k = 0; k < 64; k++) {
        const int q = ((k >> 3) >= 4) + 2 * ((k & 7) >= 4);
        const float v = (float)px[k];
        const float dg = v - gmean;
        const float dq = v - qmean[q];
        gvar += dg * dg;
        qvar[q] += dq * dq;
    }
    const float unbias64 = vmaf_fdiv(1, 63.f) * 64;
    const float unbias16 = vmaf_fdiv(1, 15.f) * 16;
    const float g = gvar * unbias64;
    const float q0 = qvar[0] * unbias16, q1 = qvar[1] * unbias16;
    const float q2 = qvar[2] * unbias16, q3 = qvar[3] * unbias16;
    return vmaf_fdiv(q0 + q1 + q2 + q3, g > 0 ? g : 1.f);
}

// columns first, then rows: px[v * 8 + u] = vertical frequency v, horizontal frequency u
static void psnr_hvs_fdct8x8(int *px)
{
    int tmp[64];
    for (int i = 0; i < 8; i++) psnr_hvs_fdct8(&tmp[i * 8], 1, &px[i], 8);
    for (int i = 0; i < 8; i++) psnr_hvs_fdct8(&px[i * 8], 1, &tmp[i], 8);
}

// The CPU's (float)(sqrt((double)x) / 32.0) of the float x = energy * ratio (>= 0: a sum of
// squares times non-negative weights, times a ratio of variances), in float with the same
// bits, on every device (no fp64 needed):
//  - y = sqrt((double)x), rounded to double, is 0, +inf or in [2^-75, 2^64] (x is a float,
//    at least 2^-149 where not 0 and below 2^128), so y / 32.0 is exact (a power of two,
//    far above double's subnormals);
//  - rounding to float commutes with that scaling: y and y / 32 both lie inside float's
//    normal range ([2^-126, 2^128)), where (float)(y * 2^-5) == (float)y * 2^-5, exactly;
//  - (float)y, the double root rounded again to float, is the root of x correctly rounded
//    to float (double rounding is innocuous for a square root when 53 >= 2 * 24 + 2; the
//    argument of dialect.h's vmaf_fsqrt), which is what vmaf_fsqrt gives in every build.
// So the result is vmaf_fsqrt(x) * 0.03125f, the product exact.
static float psnr_hvs_mask_amplitude(const int *coef, float ratio, const __global float *mask)
{
    float energy = 0.f;
    for (int k = 1; k < 64; k++) {
        const int sq = coef[k] * coef[k];
        energy += (float)sq * mask[k];
    }
    return vmaf_fsqrt(energy * ratio) * 0.03125f;
}

// the 8x8 samples at (x, y) of a plane of uint8_t (T = uchar) or uint16_t (T = ushort)
#define PSNR_HVS_LOAD(T, px, base, stride, x, y)                                              \
    for (int r = 0; r < 8; r++) {                                                             \
        const __global T *row = VMAF_PTR(const T, (base) + (ulong)((y) + r) * (stride)) + (x); \
        for (int c = 0; c < 8; c++) (px)[r * 8 + c] = row[c];                                 \
    }

VMAF_KERNEL(vmaf_psnr_hvs_terms, PsnrHvsCudaArgs)
{
    const long block = (long)vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0);
    if (block >= (long)a.nbx * a.nby) return;
    const int bx = (int)(block % a.nbx), by = (int)(block / a.nbx);
    const int x = bx * PSNR_HVS_STEP, y = by * PSNR_HVS_STEP;
    const __global float *csf = VMAF_PTR(const float, a.tables), *mask = csf + 64;
    int ref[64], dis[64];
    if (a.wide) {
        PSNR_HVS_LOAD(ushort, ref, a.ref, a.stride, x, y)
        PSNR_HVS_LOAD(ushort, dis, a.dist, a.stride, x, y)
    } else {
        PSNR_HVS_LOAD(uchar, ref, a.ref, a.stride, x, y)
        PSNR_HVS_LOAD(uchar, dis, a.dist, a.stride, x, y)
    }
    const float ratio_ref = psnr_hvs_texture_ratio(ref), ratio_dis = psnr_hvs_texture_ratio(dis);
    psnr_hvs_fdct8x8(ref);
    psnr_hvs_fdct8x8(dis);
    const float amp_ref = psnr_hvs_mask_amplitude(ref, ratio_ref, mask);
    const float amp_dis = psnr_hvs_mask_amplitude(dis, ratio_dis, mask);
    const float threshold = amp_dis > amp_ref ? amp_dis : amp_ref;

    __global float *out = VMAF_PTR(float, a.terms) + block * 64;
    {
        // abs() of an int is a uint in OpenCL C: the same value (|difference| < 2^31)
        const float err = (float)abs(ref[0] - dis[0]);
        const float we = err * csf[0];
        out[0] = we * we;
    }
    for (int k = 1; k < 64; k++) {
        const float diff = (float)abs(ref[k] - dis[k]);
        const float thr = vmaf_fdiv(threshold, mask[k]);
        const float excess = diff - thr;
        const float err = excess > 0.f ? excess : 0.f;
        const float we = err * csf[k];
        out[k] = we * we;
    }
}

// The plane's serial float sum, reproduced exactly in parallel (see exact_sum.h).
#include "feature/opencl/exact_sum.clh"
