/*
 * Twin VMAF — vmaf_xpowf(x, y): powf with the bits of glibc 2.36's powf on x86-64 CPUs with
 * FMA, on every machine and on the GPU (C11 and CUDA, no libm call except fma()).
 *
 * Why. Reference libvmaf's float ADM raises every masked coefficient to adm_p_norm and every
 * band sum to 1/p with powf, so its scores carry the C library's powf bits. The golden files
 * were made with glibc on an AVX-512 CPU, where glibc's ifunc picks its FMA build of powf
 * (__powf_fma); CUDA's powf gives other bits, and other C libraries (or glibc on a CPU
 * without FMA, which runs the same code without fused steps) give others again.
 *
 * The algorithm (glibc's since 2.28, from Arm's optimized-routines), in double:
 *   log2(x): x = 2^k z with z in [0x3f330000, 2 x 0x3f330000) as bits; the 16 subintervals of
 *     that range (the top 4 mantissa bits of ix - 0x3f330000) each have a c near their middle,
 *     tabulated as 1/c and log2(c). r = z/c - 1 = fma(z, 1/c, -1) and
 *     log2(x) = k + log2(c) + A0 r^5 + A1 r^4 + A2 r^3 + A3 r^2 + A4 r, evaluated as
 *     (A0 r + A1) r^4 + ((A2 r + A3) r^2 + (A4 r + k + log2 c)), each "a b + c" one fma.
 *   2^t, t = y log2(x) (one double product): t = j/32 + r with j = round(32 t) found by adding
 *     and subtracting 1.5 x 2^47; 2^(j/32) is the table entry of j mod 32 with j/32's integer
 *     part added into the exponent field (and the sign bit for a negative x with an odd
 *     integer y); 2^r = (C0 r + C1) r^2 + (C2 r + 1); the product rounded once to float.
 *   Special cases as glibc: y = +-0 or x = 1 give 1 (unless the other is a signalling NaN);
 *   NaNs propagate as the x86 `addss`/`mulss` of glibc's code propagate them (first operand
 *   first, quietened); x = +-0, +-inf; a negative finite x needs an integer y (odd: negative
 *   result) and otherwise gives x86's default NaN 0xffc00000; subnormal x is normalised first;
 *   |t| >= 126 checks overflow (inf), underflow (t <= -150: 0; t < -149: the smallest
 *   subnormal, glibc's "may underflow" value), with the sign of the result.
 *   Rounding to nearest is assumed (the library never changes the rounding mode).
 *
 * Constants. The polynomial coefficients and the shift are the published algorithm's (minimax
 * fits; they cannot be derived, only copied as numbers). The tables are ours: 1/c is the double
 * nearest 1 / (the middle of the floats of a subinterval), except the subinterval holding 1,
 * where c = 1 (exact near 1), and the one above it, whose c the algorithm moves (constant
 * below); log2(c) and 2^(i/32) are correctly rounded doubles. tests/extractors/test_xpowf.c
 * derives the tables and checks xpowf_tables.h (`test_xpowf --tables` writes it), and
 * compares vmaf_xpowf with the host's powf bit for bit where the host is glibc's FMA build.
 */
#ifndef VMAF_FEATURE_XPOWF_H
#define VMAF_FEATURE_XPOWF_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <math.h>
#include <stdint.h>
#include <string.h>
#endif

#include "xpowf_tables.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VMAF_XPOWF_LOG2_BITS = 4,  /**< 16 subintervals for log2 */
    VMAF_XPOWF_EXP2_BITS = 5,  /**< 32 table entries for exp2 */
};

/** Where log2's subintervals start (as float bits: 0x1.66p-1). */
#define VMAF_XPOWF_LOG2_OFF 0x3f330000u
/** 1/c of subinterval 10 (the one above 1), as the algorithm places it. */
#define VMAF_XPOWF_INVC_10 0x1.e608cfd9a47acp-1

/* log2(1 + r) ~ A0 r^5 + A1 r^4 + A2 r^3 + A3 r^2 + A4 r, |r| < 0.0313 */
#define VMAF_XPOWF_A0 0x1.27616c9496e0bp-2
#define VMAF_XPOWF_A1 -0x1.71969a075c67ap-2
#define VMAF_XPOWF_A2 0x1.ec70a6ca7baddp-2
#define VMAF_XPOWF_A3 -0x1.7154748bef6c8p-1
#define VMAF_XPOWF_A4 0x1.71547652ab82bp0
/* 2^r ~ C0 r^3 + C1 r^2 + C2 r + 1, |r| <= 1/64 */
#define VMAF_XPOWF_C0 0x1.c6af84b912394p-5
#define VMAF_XPOWF_C1 0x1.ebfce50fac4f3p-3
#define VMAF_XPOWF_C2 0x1.62e42ff0c52d6p-1
/** 1.5 x 2^52 / 32: adding it rounds to a multiple of 1/32, the multiple in the low bits. */
#define VMAF_XPOWF_SHIFT 0x1.8p+47
/** Above this y log2(x), |x^y| rounds to infinity. */
#define VMAF_XPOWF_OVERFLOW 0x1.fffffffd1d571p+6

/* The tables (xpowf_tables.h), once for the host and once in device constant memory (in
 * OpenCL C the first copy is that: VMAF_CONSTANT). */
static VMAF_CONSTANT const double vmaf_xpowf_host_log2[2 << VMAF_XPOWF_LOG2_BITS] = {
    VMAF_XPOWF_LOG2_TABLE
};
static VMAF_CONSTANT const uint64_t vmaf_xpowf_host_exp2[1 << VMAF_XPOWF_EXP2_BITS] = {
    VMAF_XPOWF_EXP2_TABLE
};
#if VMAF_DIALECT_CUDA
static __constant__ const double vmaf_xpowf_device_log2[2 << VMAF_XPOWF_LOG2_BITS] = {
    VMAF_XPOWF_LOG2_TABLE
};
static __constant__ const uint64_t vmaf_xpowf_device_exp2[1 << VMAF_XPOWF_EXP2_BITS] = {
    VMAF_XPOWF_EXP2_TABLE
};
#endif
#if defined(__CUDA_ARCH__)
#define VMAF_XPOWF_LOG2 vmaf_xpowf_device_log2
#define VMAF_XPOWF_EXP2 vmaf_xpowf_device_exp2
#else
#define VMAF_XPOWF_LOG2 vmaf_xpowf_host_log2
#define VMAF_XPOWF_EXP2 vmaf_xpowf_host_exp2
#endif

VMAF_DEVICE_FN uint32_t vmaf_xpowf_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

VMAF_DEVICE_FN float vmaf_xpowf_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/** 1 when the bits are +-0, +-inf or a NaN. */
VMAF_DEVICE_FN int vmaf_xpowf_zero_inf_nan(uint32_t u)
{
    return 2u * u - 1u >= 2u * 0x7f800000u - 1u;
}

VMAF_DEVICE_FN int vmaf_xpowf_is_nan(uint32_t u)
{
    return 2u * u > 2u * 0x7f800000u;
}

VMAF_DEVICE_FN int vmaf_xpowf_is_signalling(uint32_t u)
{
    return vmaf_xpowf_is_nan(u) && !(u & 0x00400000u);
}

/** x86's a + b (or a * b) when one of them is a NaN: the first NaN, quietened. */
VMAF_DEVICE_FN float vmaf_xpowf_nan_of(uint32_t a, uint32_t b)
{
    return vmaf_xpowf_from_bits((vmaf_xpowf_is_nan(a) ? a : b) | 0x00400000u);
}

/** 0: y is not an integer, 1: an odd integer, 2: an even one (y finite, not zero). */
VMAF_DEVICE_FN int vmaf_xpowf_integer_kind(uint32_t iy)
{
    const int e = (int)(iy >> 23 & 0xff);
    if (e < 0x7f)
        return 0;
    if (e > 0x7f + 23)
        return 2;
    if (iy & ((1u << (0x7f + 23 - e)) - 1u))
        return 0;
    return (iy & (1u << (0x7f + 23 - e))) ? 1 : 2;
}

/** log2 of the positive normal float with bits ix (or of a normalised subnormal), in double. */
VMAF_DEVICE_FN double vmaf_xpowf_log2(uint32_t ix)
{
    const uint32_t tmp = ix - VMAF_XPOWF_LOG2_OFF;
    const unsigned i = (tmp >> (23 - VMAF_XPOWF_LOG2_BITS)) % (1u << VMAF_XPOWF_LOG2_BITS);
    const uint32_t top = tmp & 0xff800000u;
    const uint32_t iz = ix - top;
    /* the exponent as a signed 9-bit field of tmp */
    const int k = (int)(top >> 23) - ((top & 0x80000000u) ? 512 : 0);
    const double invc = VMAF_XPOWF_LOG2[2 * i], logc = VMAF_XPOWF_LOG2[2 * i + 1];
    const double z = (double)vmaf_xpowf_from_bits(iz);

    const double r = fma(z, invc, -1.0);
    const double y0 = logc + (double)k;
    const double r2 = r * r;
    double y = fma(r, VMAF_XPOWF_A0, VMAF_XPOWF_A1);
    const double p = fma(r, VMAF_XPOWF_A2, VMAF_XPOWF_A3);
    const double r4 = r2 * r2;
    double q = fma(r, VMAF_XPOWF_A4, y0);
    q = fma(r2, p, q);
    y = fma(y, r4, q);
    return y;
}

/** 2^t rounded to float, |t| < 150 (t within the range the caller checked); sign_bias 0 or
 *  1 << (VMAF_XPOWF_EXP2_BITS + 11) for a negative result. */
VMAF_DEVICE_FN float vmaf_xpowf_exp2(double t, uint64_t sign_bias)
{
    double kd = t + VMAF_XPOWF_SHIFT;
    uint64_t ki;
    memcpy(&ki, &kd, sizeof(ki));
    kd -= VMAF_XPOWF_SHIFT;
    const double r = t - kd;
    uint64_t bits = VMAF_XPOWF_EXP2[ki % (1u << VMAF_XPOWF_EXP2_BITS)];
    bits += (ki + sign_bias) << (52 - VMAF_XPOWF_EXP2_BITS);
    double s;
    memcpy(&s, &bits, sizeof(s));
    const double z = fma(r, VMAF_XPOWF_C0, VMAF_XPOWF_C1);
    const double r2 = r * r;
    double y = fma(r, VMAF_XPOWF_C2, 1.0);
    y = fma(z, r2, y);
    y = y * s;
    return (float)y;
}

/** x^y with glibc 2.36's powf bits (its FMA build on x86-64). */
VMAF_DEVICE_FN float vmaf_xpowf(float x, float y)
{
    uint32_t ix = vmaf_xpowf_to_bits(x);
    const uint32_t iy = vmaf_xpowf_to_bits(y);
    uint64_t sign_bias = 0;
    int negative = 0;

    if (ix - 0x00800000u >= 0x7f800000u - 0x00800000u || vmaf_xpowf_zero_inf_nan(iy)) {
        /* x is below the normal range, negative, inf or NaN, or y is 0, inf or NaN */
        if (vmaf_xpowf_zero_inf_nan(iy)) {
            if (2u * iy == 0)
                return vmaf_xpowf_is_signalling(ix) ? vmaf_xpowf_nan_of(ix, iy) : 1.0f;
            if (ix == 0x3f800000u)
                return vmaf_xpowf_is_signalling(iy) ? vmaf_xpowf_nan_of(ix, iy) : 1.0f;
            if (vmaf_xpowf_is_nan(ix) || vmaf_xpowf_is_nan(iy))
                return vmaf_xpowf_nan_of(ix, iy);
            if (2u * ix == 2u * 0x3f800000u)
                return 1.0f; /* (-1)^+-inf */
            if ((2u * ix < 2u * 0x3f800000u) == !(iy & 0x80000000u))
                return 0.0f; /* |x| < 1 and y = inf, or |x| > 1 and y = -inf */
            return vmaf_xpowf_from_bits(0x7f800000u);
        }
        if (vmaf_xpowf_zero_inf_nan(ix)) {
            /* x*x: +0, +inf, or the NaN quietened; negated for a negative x and odd y */
            uint32_t x2 = vmaf_xpowf_is_nan(ix) ? (ix | 0x00400000u)
                                                : (2u * ix == 0 ? 0u : 0x7f800000u);
            if ((ix & 0x80000000u) && vmaf_xpowf_integer_kind(iy) == 1)
                x2 ^= 0x80000000u;
            if (!vmaf_xpowf_is_nan(x2) && (iy & 0x80000000u))
                x2 ^= 0x7f800000u; /* 1/x2: +-0 <-> +-inf */
            return vmaf_xpowf_from_bits(x2);
        }
        /* x and y are finite and not zero */
        if (ix & 0x80000000u) {
            const int kind = vmaf_xpowf_integer_kind(iy);
            if (kind == 0)
                return vmaf_xpowf_from_bits(0xffc00000u); /* x86's 0/0 */
            if (kind == 1) {
                sign_bias = (uint64_t)1 << (VMAF_XPOWF_EXP2_BITS + 11);
                negative = 1;
            }
            ix &= 0x7fffffffu;
        }
        if (ix < 0x00800000u) {
            /* subnormal: scale by 2^23 (exact) and take 23 off the exponent field */
            ix = vmaf_xpowf_to_bits(vmaf_xpowf_from_bits(ix) * 0x1p23f) & 0x7fffffffu;
            ix -= 23u << 23;
        }
    }
    const double t = (double)y * vmaf_xpowf_log2(ix);
    uint64_t tb;
    memcpy(&tb, &t, sizeof(tb));
    if ((tb >> 47 & 0xffff) >= 0x80bf) { /* |t| >= 126 */
        const uint32_t sign = negative ? 0x80000000u : 0u;
        if (t > VMAF_XPOWF_OVERFLOW)
            return vmaf_xpowf_from_bits(sign | 0x7f800000u);
        if (t <= -150.0)
            return vmaf_xpowf_from_bits(sign);
        if (t < -149.0)
            return vmaf_xpowf_from_bits(sign | 1u);
    }
    return vmaf_xpowf_exp2(t, sign_bias);
}

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_XPOWF_H */
