/*
 * Twin VMAF — vmaf_xpowf(x, y): powf with the bits of glibc 2.36's powf on x86-64 CPUs with
 * FMA, on every machine and on the GPU (C11, CUDA and OpenCL C, no libm call except fma()).
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
 *
 * The doubles are f64.h's vmaf_double, each operation written as its vmaf_d* function in the
 * algorithm's order: the plain double (and its operators) in C, CUDA and OpenCL with fp64;
 * the software binary64 in an OpenCL program built without fp64 (the same bits, at dozens of
 * integer operations per step). There, vmaf_xpowf first tries vmaf_xpowf_fixed below, which
 * needs no double at all, and runs the double steps only where it cannot decide.
 *
 * vmaf_xpowf_fixed: the same result from a fixed-point evaluation (64-bit integers) of the
 * same formula, taken only where a bound proves it equal to the double path's float.
 *   Definitions. u = 2^-53. t* = y l*, l* = k + log2 c + P(r*), r* = z/c - 1 exactly (no
 *   rounding), P the log2 polynomial; t_d the double path's t; Q(r) = 1 + C2 r + C1 r^2 +
 *   C0 r^3; for a given j, M = 2^(j mod 32 / 32) (the table's value Tm in [1, 2)) times Q.
 *   The double path's result is the float nearest fl(Tm Q_d) 2^floor(j/32), Q_d its rounded
 *   2^r at r_d = t_d - j/32 (exact: t_d and j/32 are multiples of ulp(t_d) and |r_d| <= 1/64).
 *   Fixed-point steps (floor(a b / 2^64) is a signed multiply-high; every floor loses < 1 unit):
 *   1. R = floor(r* 2^64) exactly: z 2^24 (25 bits) times 1/c 2^53 (54 bits, table
 *      VMAF_XPOWF_LOG2_FIXED, 1/c and log2 c of the double table scaled, exact) in two 32-bit
 *      halves, less 2^77, is r* 2^77 exactly; the sum wraps modulo 2^64 but its true value
 *      |r*| 2^64 < 2^59 (|r*| <= 0.0313: test_xpowf checks every subinterval's ends).
 *   2. P(r*) 2^62 by Horner, A0..A4 at 2^62 (exact integers: their last bits lie at or above
 *      2^-57). With |r*| <= 0.0313 and each partial |h| < 1.47 x 2^62, a step's error e'
 *      <= |r*| e + 1.47/4 + 1 (R's floor and the product's): e < 1.42 units of 2^-62.
 *   3. l = k + log2 c + P at 2^55 (|k| <= 149: |l| 2^55 < 2^62.3): floor, error < 1.012 x 2^-55.
 *   4. t = y l at 2^55: |y| < 2^8 (else not decided), y's 24-bit significand times l's 32-bit
 *      halves (each product below 2^56), shifted by y's exponent: two floors, < 2 units; an
 *      operand that would pass 2^62 means |t| >= 128 - 2^-15 (not decided). So
 *      |t_A - t*| <= |y| 1.012 x 2^-55 + 2 x 2^-55 < 65.2 u.
 *   5. The double path's error. Writing Y0 = |k + log2 c|, each fma, product, sum or rounding
 *      of its log2 adds u times its result: |l_d - l*| <= u (4 Y0 + 4 A4 |r*| + 1.5 r*^2 +
 *      0.01) <= u (4 Y0 + 0.2) (the r^2 and r^4 terms contribute < 0.01 u). With Y0 <= |k| +
 *      0.4843 and |k| <= |l*| + 0.517 (|log2 c + P| <= 0.517 on z's range), and t_d = fl(y
 *      l_d): |t_d - t*| <= u (|y| (4 Y0 + 0.2) + |t*|) <= u (5 |t*| + 4.21 |y|) < 1710 u for
 *      |t*| < 125 and |y| < 2^8. Together: dt = |t_A - t_d| < 1776 u < 2000 u = 8000 x 2^-55.
 *   6. j = round(32 t_A); decided only if |t_A - j/32| < 1/64 - 2^14 x 2^-55 (> dt), so that
 *      t_d rounds to the same j, with no tie (VMAF_XPOWF_FIXED_MARGIN_T); |t_A| < 125, so
 *      |t_d| < 126 takes no special case and the result is a normal float.
 *   7. Q(r_A) 2^62, r_A = t_A - j/32 exactly at 2^64 (|r_A| < 1/64): error < 1.02 units; M at
 *      2^62 = floor(Tm 2^63 x Q 2^63 / 2^64): error < 3.04 units, M in [0.989, 1.979).
 *   8. The double path's M: |Q_d - Q(r_d)| <= 2.03 u (its four roundings), |Q(r_A) - Q(r_d)|
 *      <= 0.71 dt (|Q'| <= 0.7007 on |r| <= 1/64), fl() of Tm Q_d moves it by <= u (M < 2). So
 *      |M_A - fl(Tm Q_d)| 2^62 <= 3.04 + (1.9572 (2.1 u + 0.71 dt) + u) 2^62 < 1.43 x 10^6
 *      units < 2^21 (VMAF_XPOWF_FIXED_MARGIN_M).
 *   9. Decided only where M_A lies more than 2^21 units from every float midpoint (the
 *      midpoints are doubles): fl(Tm Q_d) then lies on the same side of each, strictly, so its
 *      float is M_A's nearest float (the nearest midpoints across the binade boundary at 1 lie
 *      2^37 units away), scaled by 2^floor(j/32) exactly, with the sign of the double path.
 *   Not decided (0): |y| >= 2^8, |t| >= 125, or a margin missed (about 1 call in 2^16 of those
 *   that reach M). tests/extractors/test_xpowf_f64.c compares the fixed path and the software
 *   binary64 build with the plain double steps bit for bit and checks every bound above on its
 *   inputs (observed: |t_A - t_d| <= 1745 x 2^-55, |M_A - M_d| <= 281927 x 2^-62);
 *   tests/opencl/test_opencl_xpowf.c runs the header as OpenCL C without fp64 against them.
 */
#ifndef VMAF_FEATURE_XPOWF_H
#define VMAF_FEATURE_XPOWF_H

#include "dialect.h"
#include "f64.h"
#if !VMAF_DIALECT_OPENCL
#include <math.h>
#include <stdint.h>
#include <string.h>
#endif

#include "xpowf_tables.h"

#ifdef __cplusplus
extern "C" {
#endif

/** 1: vmaf_xpowf tries vmaf_xpowf_fixed first (the default where doubles are software; tests
 *  may set it either way: both give the same bits). */
#ifndef VMAF_XPOWF_FIXED
#define VMAF_XPOWF_FIXED VMAF_DOUBLE_SOFT
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
#define VMAF_XPOWF_A0 VMAF_DCONST(0x1.27616c9496e0bp-2, 0x3fd27616c9496e0b)
#define VMAF_XPOWF_A1 VMAF_DCONST(-0x1.71969a075c67ap-2, 0xbfd71969a075c67a)
#define VMAF_XPOWF_A2 VMAF_DCONST(0x1.ec70a6ca7baddp-2, 0x3fdec70a6ca7badd)
#define VMAF_XPOWF_A3 VMAF_DCONST(-0x1.7154748bef6c8p-1, 0xbfe7154748bef6c8)
#define VMAF_XPOWF_A4 VMAF_DCONST(0x1.71547652ab82bp0, 0x3ff71547652ab82b)
/* 2^r ~ C0 r^3 + C1 r^2 + C2 r + 1, |r| <= 1/64 */
#define VMAF_XPOWF_C0 VMAF_DCONST(0x1.c6af84b912394p-5, 0x3fac6af84b912394)
#define VMAF_XPOWF_C1 VMAF_DCONST(0x1.ebfce50fac4f3p-3, 0x3fcebfce50fac4f3)
#define VMAF_XPOWF_C2 VMAF_DCONST(0x1.62e42ff0c52d6p-1, 0x3fe62e42ff0c52d6)
/** 1.5 x 2^52 / 32: adding it rounds to a multiple of 1/32, the multiple in the low bits. */
#define VMAF_XPOWF_SHIFT VMAF_DCONST(0x1.8p+47, 0x42e8000000000000)
/** Above this y log2(x), |x^y| rounds to infinity. */
#define VMAF_XPOWF_OVERFLOW VMAF_DCONST(0x1.fffffffd1d571p+6, 0x405fffffffd1d571)

/* The same coefficients times 2^62 (exact integers; test_xpowf_f64 checks each against its
 * double), for vmaf_xpowf_fixed. */
#define VMAF_XPOWF_A0_Q62 INT64_C(1330275793710746368)
#define VMAF_XPOWF_A1_Q62 INT64_C(-1664477675181734400)
#define VMAF_XPOWF_A2_Q62 INT64_C(2217752803290045696)
#define VMAF_XPOWF_A3_Q62 INT64_C(-3326628030300655616)
#define VMAF_XPOWF_A4_Q62 INT64_C(6653256548868992000)
#define VMAF_XPOWF_C0_Q62 INT64_C(255965248004321920)
#define VMAF_XPOWF_C1_Q62 INT64_C(1107858194444745088)
#define VMAF_XPOWF_C2_Q62 INT64_C(3196577161907907584)
/** vmaf_xpowf_fixed's margins (see above): t at 2^55 from a rounding boundary of 32 t; M at
 *  2^62 from a float midpoint. */
#define VMAF_XPOWF_FIXED_MARGIN_T INT64_C(16384)
#define VMAF_XPOWF_FIXED_MARGIN_M UINT64_C(2097152)

/* The tables (xpowf_tables.h), once for the host and once in device constant memory (in
 * OpenCL C the first copy is that: VMAF_CONSTANT). */
static VMAF_CONSTANT const vmaf_double vmaf_xpowf_host_log2[2 << VMAF_XPOWF_LOG2_BITS] = {
    VMAF_XPOWF_LOG2_TABLE
};
static VMAF_CONSTANT const uint64_t vmaf_xpowf_host_exp2[1 << VMAF_XPOWF_EXP2_BITS] = {
    VMAF_XPOWF_EXP2_TABLE
};
static VMAF_CONSTANT const int64_t vmaf_xpowf_host_log2_fixed[2 << VMAF_XPOWF_LOG2_BITS] = {
    VMAF_XPOWF_LOG2_FIXED_TABLE
};
#if VMAF_DIALECT_CUDA
static __constant__ const vmaf_double vmaf_xpowf_device_log2[2 << VMAF_XPOWF_LOG2_BITS] = {
    VMAF_XPOWF_LOG2_TABLE
};
static __constant__ const uint64_t vmaf_xpowf_device_exp2[1 << VMAF_XPOWF_EXP2_BITS] = {
    VMAF_XPOWF_EXP2_TABLE
};
static __constant__ const int64_t vmaf_xpowf_device_log2_fixed[2 << VMAF_XPOWF_LOG2_BITS] = {
    VMAF_XPOWF_LOG2_FIXED_TABLE
};
#endif
#if defined(__CUDA_ARCH__)
#define VMAF_XPOWF_LOG2 vmaf_xpowf_device_log2
#define VMAF_XPOWF_EXP2 vmaf_xpowf_device_exp2
#define VMAF_XPOWF_LOG2_FIXED vmaf_xpowf_device_log2_fixed
#else
#define VMAF_XPOWF_LOG2 vmaf_xpowf_host_log2
#define VMAF_XPOWF_EXP2 vmaf_xpowf_host_exp2
#define VMAF_XPOWF_LOG2_FIXED vmaf_xpowf_host_log2_fixed
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
VMAF_DEVICE_FN vmaf_double vmaf_xpowf_log2(uint32_t ix)
{
    const uint32_t tmp = ix - VMAF_XPOWF_LOG2_OFF;
    const unsigned i = (tmp >> (23 - VMAF_XPOWF_LOG2_BITS)) % (1u << VMAF_XPOWF_LOG2_BITS);
    const uint32_t top = tmp & 0xff800000u;
    const uint32_t iz = ix - top;
    /* the exponent as a signed 9-bit field of tmp */
    const int k = (int)(top >> 23) - ((top & 0x80000000u) ? 512 : 0);
    const vmaf_double invc = VMAF_XPOWF_LOG2[2 * i], logc = VMAF_XPOWF_LOG2[2 * i + 1];
    const vmaf_double z = vmaf_dfrom_float(vmaf_xpowf_from_bits(iz));

    const vmaf_double r = vmaf_dfma(z, invc, VMAF_DCONST(-1.0, 0xbff0000000000000));
    const vmaf_double y0 = vmaf_dadd(logc, vmaf_dfrom_i32(k));
    const vmaf_double r2 = vmaf_dmul(r, r);
    vmaf_double y = vmaf_dfma(r, VMAF_XPOWF_A0, VMAF_XPOWF_A1);
    const vmaf_double p = vmaf_dfma(r, VMAF_XPOWF_A2, VMAF_XPOWF_A3);
    const vmaf_double r4 = vmaf_dmul(r2, r2);
    vmaf_double q = vmaf_dfma(r, VMAF_XPOWF_A4, y0);
    q = vmaf_dfma(r2, p, q);
    y = vmaf_dfma(y, r4, q);
    return y;
}

/** 2^t rounded to float, |t| < 150 (t within the range the caller checked); sign_bias 0 or
 *  1 << (VMAF_XPOWF_EXP2_BITS + 11) for a negative result. */
VMAF_DEVICE_FN float vmaf_xpowf_exp2(vmaf_double t, uint64_t sign_bias)
{
    vmaf_double kd = vmaf_dadd(t, VMAF_XPOWF_SHIFT);
    const uint64_t ki = vmaf_dbits(kd);
    kd = vmaf_dsub(kd, VMAF_XPOWF_SHIFT);
    const vmaf_double r = vmaf_dsub(t, kd);
    uint64_t bits = VMAF_XPOWF_EXP2[ki % (1u << VMAF_XPOWF_EXP2_BITS)];
    bits += (ki + sign_bias) << (52 - VMAF_XPOWF_EXP2_BITS);
    const vmaf_double s = vmaf_dof_bits(bits);
    const vmaf_double z = vmaf_dfma(r, VMAF_XPOWF_C0, VMAF_XPOWF_C1);
    const vmaf_double r2 = vmaf_dmul(r, r);
    vmaf_double y = vmaf_dfma(r, VMAF_XPOWF_C2, VMAF_DCONST(1.0, 0x3ff0000000000000));
    y = vmaf_dfma(z, r2, y);
    y = vmaf_dmul(y, s);
    return vmaf_dto_float(y);
}

/* ---- the fixed-point path (see the header comment) ------------------------------------- */

/** floor(v / 2^n), 0 <= n <= 63: the arithmetic shift of every compiler the project builds
 *  with (GCC, Clang, nvcc; OpenCL C defines it so). */
VMAF_DEVICE_FN int64_t vmaf_xpowf_asr(int64_t v, int n)
{
    return v >> n;
}

/** The two's complement int64 of u's bits. */
VMAF_DEVICE_FN int64_t vmaf_xpowf_signed(uint64_t u)
{
    return u >> 63 ? -(int64_t)(~u) - 1 : (int64_t)u;
}

/** floor(a b / 2^64) for uint64: through 32-bit halves (tests compare it with the others). */
VMAF_DEVICE_FN uint64_t vmaf_xpowf_umulhi_portable(uint64_t a, uint64_t b)
{
    const uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/** floor(a b / 2^64) for int64, from the unsigned high word: a's bits read as unsigned are
 *  a + 2^64 when a < 0, so the unsigned product exceeds a b by 2^64 (b or a) for each
 *  negative operand (modulo 2^64). */
VMAF_DEVICE_FN int64_t vmaf_xpowf_mulhi_portable(int64_t a, int64_t b)
{
    uint64_t h = vmaf_xpowf_umulhi_portable((uint64_t)a, (uint64_t)b);
    if (a < 0) h -= (uint64_t)b;
    if (b < 0) h -= (uint64_t)a;
    return vmaf_xpowf_signed(h);
}

VMAF_DEVICE_FN uint64_t vmaf_xpowf_umulhi(uint64_t a, uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#elif VMAF_DIALECT_OPENCL
    return mul_hi(a, b);
#elif defined(__SIZEOF_INT128__) && !defined(VMAF_XPOWF_PORTABLE)
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#else
    return vmaf_xpowf_umulhi_portable(a, b);
#endif
}

VMAF_DEVICE_FN int64_t vmaf_xpowf_mulhi(int64_t a, int64_t b)
{
#if defined(__CUDA_ARCH__)
    return __mul64hi(a, b);
#elif VMAF_DIALECT_OPENCL
    return mul_hi(a, b);
#elif defined(__SIZEOF_INT128__) && !defined(VMAF_XPOWF_PORTABLE)
    return (int64_t)(((__int128)a * b) >> 64);
#else
    return vmaf_xpowf_mulhi_portable(a, b);
#endif
}

/** What vmaf_xpowf_fixed computed, for tests: t 2^55, j, and M 2^62 (0 where it stopped
 *  before). */
typedef struct VmafXpowfFixedTrace {
    int64_t t, j;
    uint64_t m;
} VmafXpowfFixedTrace;

/**
 * x^y for x with bits ix (positive normal, or a normalised subnormal as vmaf_xpowf makes it)
 * and y with bits iy (finite, not zero), negated when negative: 1 with *out the double path's
 * float, or 0 where the bounds cannot decide it (trace, if not NULL, gets the intermediate
 * values).
 */
VMAF_DEVICE_FN int vmaf_xpowf_fixed(uint32_t ix, uint32_t iy, int negative, float *out,
                                    VmafXpowfFixedTrace *trace)
{
    const int ey = (int)(iy >> 23 & 0xff);
    if (trace) {
        trace->t = 0;
        trace->j = 0;
        trace->m = 0;
    }
    if (ey >= 0x7f + 8) /* |y| >= 2^8 */
        return 0;
    /* log2: the double path's decomposition */
    const uint32_t tmp = ix - VMAF_XPOWF_LOG2_OFF;
    const unsigned i = (tmp >> (23 - VMAF_XPOWF_LOG2_BITS)) % (1u << VMAF_XPOWF_LOG2_BITS);
    const uint32_t top = tmp & 0xff800000u;
    const uint32_t iz = ix - top;
    const int k = (int)(top >> 23) - ((top & 0x80000000u) ? 512 : 0);
    /* 1. r* 2^64, floor: z 2^24 (iz's exponent field is 126 or 127) times 1/c 2^53 */
    const uint64_t zs = (uint64_t)((iz & 0x007fffffu) | 0x00800000u) << ((iz >> 23) - 126u);
    const uint64_t invc = (uint64_t)VMAF_XPOWF_LOG2_FIXED[2 * i];
    const int64_t logc = VMAF_XPOWF_LOG2_FIXED[2 * i + 1];
    const int64_t r = vmaf_xpowf_signed(((zs * (invc >> 32)) << 19) +
                                        ((zs * (invc & 0xffffffffu)) >> 13));
    /* 2. P(r) 2^62 */
    int64_t h = VMAF_XPOWF_A1_Q62 + vmaf_xpowf_mulhi(r, VMAF_XPOWF_A0_Q62);
    h = VMAF_XPOWF_A2_Q62 + vmaf_xpowf_mulhi(r, h);
    h = VMAF_XPOWF_A3_Q62 + vmaf_xpowf_mulhi(r, h);
    h = VMAF_XPOWF_A4_Q62 + vmaf_xpowf_mulhi(r, h);
    const int64_t p = vmaf_xpowf_mulhi(r, h);
    /* 3. l 2^55 */
    const int64_t l = (int64_t)k * (INT64_C(1) << 55) + vmaf_xpowf_asr(logc + p, 7);
    /* 4. t 2^55 = y l 2^55 = ym l 2^(ey - 150) (a subnormal y: no hidden bit, ey as 1) */
    const int64_t ym = (int64_t)((iy & 0x007fffffu) | (ey ? 0x00800000u : 0u));
    const int64_t ys = (iy >> 31) ? -ym : ym;
    const int s = 150 - (ey ? ey : 1); /* >= 16 */
    const int64_t a = ys * vmaf_xpowf_asr(l, 32);             /* |a| < 2^55 */
    const int64_t b = ys * (int64_t)((uint64_t)l & 0xffffffffu); /* |b| < 2^56 */
    int64_t t;
    if (s >= 32) {
        t = vmaf_xpowf_asr(a, s - 32 < 63 ? s - 32 : 63) + vmaf_xpowf_asr(b, s < 63 ? s : 63);
    } else {
        const int64_t limit = INT64_C(1) << (30 + s); /* a 2^(32 - s) below 2^62 */
        if (a >= limit || a <= -limit)
            return 0;
        t = a * (INT64_C(1) << (32 - s)) + vmaf_xpowf_asr(b, s);
    }
    if (trace)
        trace->t = t;
    const int64_t t_max = INT64_C(125) << 55;
    if (t >= t_max || t <= -t_max)
        return 0;
    /* 6. j = round(32 t), away from the half-way points by the margin */
    const int64_t j = vmaf_xpowf_asr(t + (INT64_C(1) << 49), 50);
    const int64_t rho = t - j * (INT64_C(1) << 50); /* (t - j/32) 2^55, in [-2^49, 2^49) */
    const int64_t room = (INT64_C(1) << 49) - VMAF_XPOWF_FIXED_MARGIN_T;
    if (rho >= room || rho <= -room)
        return 0;
    /* 7. Q(r) 2^62 with r 2^64; M = Tm Q at 2^62 */
    const int64_t rx = rho * 512;
    int64_t g = VMAF_XPOWF_C1_Q62 + vmaf_xpowf_mulhi(rx, VMAF_XPOWF_C0_Q62);
    g = VMAF_XPOWF_C2_Q62 + vmaf_xpowf_mulhi(rx, g);
    const int64_t q = (INT64_C(1) << 62) + vmaf_xpowf_mulhi(rx, g);
    const unsigned jm = (unsigned)((uint64_t)j % (1u << VMAF_XPOWF_EXP2_BITS));
    const uint64_t tm = ((VMAF_XPOWF_EXP2[jm] + ((uint64_t)jm << (52 - VMAF_XPOWF_EXP2_BITS))) &
                         UINT64_C(0x000fffffffffffff)) | UINT64_C(0x0010000000000000);
    const uint64_t m = vmaf_xpowf_umulhi(tm << 11, (uint64_t)q << 1);
    if (trace) {
        trace->j = j;
        trace->m = m;
    }
    /* 9. the float nearest M 2^floor(j/32), decided away from the midpoints */
    int e = (int)vmaf_xpowf_asr(j, VMAF_XPOWF_EXP2_BITS);
    const int upper = m >= (UINT64_C(1) << 62);
    const int drop = upper ? 39 : 38;
    if (!upper)
        e--;
    const uint64_t rem = m & ((UINT64_C(1) << drop) - 1), mid = UINT64_C(1) << (drop - 1);
    if (rem - mid + VMAF_XPOWF_FIXED_MARGIN_M <= 2 * VMAF_XPOWF_FIXED_MARGIN_M)
        return 0; /* |rem - mid| <= the margin (unsigned wrap-around) */
    const uint32_t bits = ((uint32_t)(e + 126) << 23) + (uint32_t)(m >> drop) + (rem > mid);
    *out = vmaf_xpowf_from_bits(bits | (negative ? 0x80000000u : 0u));
    return 1;
}

/** x^y with glibc 2.36's powf bits (its FMA build on x86-64); fixed: try vmaf_xpowf_fixed
 *  first (the same bits either way). */
VMAF_DEVICE_FN float vmaf_xpowf_with(float x, float y, int fixed)
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
    if (fixed) {
        float out;
        if (vmaf_xpowf_fixed(ix, iy, negative, &out, (VmafXpowfFixedTrace *)0))
            return out;
    }
    const vmaf_double t = vmaf_dmul(vmaf_dfrom_float(y), vmaf_xpowf_log2(ix));
    const uint64_t tb = vmaf_dbits(t);
    if ((tb >> 47 & 0xffff) >= 0x80bf) { /* |t| >= 126 */
        const uint32_t sign = negative ? 0x80000000u : 0u;
        if (vmaf_dlt(VMAF_XPOWF_OVERFLOW, t)) /* t > the threshold */
            return vmaf_xpowf_from_bits(sign | 0x7f800000u);
        if (vmaf_dle(t, VMAF_DCONST(-150.0, 0xc062c00000000000)))
            return vmaf_xpowf_from_bits(sign);
        if (vmaf_dlt(t, VMAF_DCONST(-149.0, 0xc062a00000000000)))
            return vmaf_xpowf_from_bits(sign | 1u);
    }
    return vmaf_xpowf_exp2(t, sign_bias);
}

/** x^y with glibc 2.36's powf bits (its FMA build on x86-64). */
VMAF_DEVICE_FN float vmaf_xpowf(float x, float y)
{
    return vmaf_xpowf_with(x, y, VMAF_XPOWF_FIXED);
}

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_XPOWF_H */
