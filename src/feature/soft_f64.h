/*
 * Twin VMAF — software binary64: IEEE 754 double arithmetic on 32/64-bit integers only, for
 * devices without fp64 (cl_khr_fp64 absent: Intel Arc and iGPUs, Apple, mobile GPUs), where a
 * twin that computes in double must still give the CPU's bits. The same header builds as C11,
 * C++/CUDA (nvcc) and OpenCL C 1.2; its OpenCL form names no `double` at all (build with
 * -D VMAF_SOFT_F64_NO_DOUBLE to have the compiler prove it: `double` is then an undeclared
 * name inside this header).
 *
 * The value type vmaf_f64 is a struct holding the binary64 bit pattern, not a bare integer:
 * `x + y` on two vmaf_f64 must not compile as an integer addition when a double expression is
 * rewritten on this library; the struct makes every such slip a compile error and costs
 * nothing (one 64-bit register). vmaf_f64_from_bits / vmaf_f64_bits convert, VMAF_F64_INIT
 * initializes a constant.
 *
 * Integer helpers, public for the other fp64-free forms (ssim_device.h, vif_device.h):
 * vmaf_f64_clz64 (leading zeros of a uint64_t, 64 for 0) and vmaf_f64_mul_hi (the high 64 bits
 * of a 64x64-bit product), each the dialect's instruction where there is one; their
 * _portable forms are what the tests compare those with. Names vmaf_f64_impl_* are this
 * header's own: nothing outside it calls them.
 *
 * Results. Every operation is the IEEE 754 operation of the C/CUDA `double`, bit for bit, in
 * round-to-nearest-even: add, sub, mul, div, sqrt, fma (one rounding), the conversions, ldexp
 * (rounded once when the result is subnormal), rint; subnormal operands and results, signed
 * zeros (x - x is +0; -0 + -0 is -0; fma(+0 * -1) + +0 is +0), infinities, overflow to
 * infinity. neg and abs only change the sign bit (of a NaN too). NaN results are quiet; their
 * payloads follow x86-64 SSE, deterministically: the first NaN operand (a, then b, then c)
 * quieted, or for an invalid operation (inf - inf, 0 * inf, 0 / 0, inf / inf, sqrt of a
 * negative) the default NaN 0xfff8000000000000. Hardware agrees on "is NaN" and "quiet", not
 * on payloads (compilers reorder commutative operands; GPUs' default NaNs differ), so the
 * tests compare those two properties and report payload differences without failing.
 * Conversions to int32/int64 truncate as C does where the truncated value fits; NaN and values
 * out of range give INT32_MIN / INT64_MIN (x86's "integer indefinite"; C leaves it undefined,
 * CUDA's conversions saturate instead). Comparisons are IEEE's: NaN is unordered (eq, lt, le
 * all false), -0 == +0.
 *
 * Rounding. Each operation forms the exact result's sign, exponent and a 64-bit significand
 * with the leading bit at bit 62 and at least one bit below the last kept one that is "sticky"
 * (the OR of every bit of the exact result below it), then vmaf_f64_impl_round_pack rounds:
 * 10 bits below the 53 kept ones; add half an ulp (0x200); on an exact tie (the 10 bits are
 * exactly 0x200, sticky included) clear the last bit (to even). A subnormal result is first
 * shifted right with the shifted-out bits ORed into bit 0, so it is rounded once, at its own
 * precision. Overflow carries into the exponent field (the largest finite's successor is the
 * infinity's bit pattern).
 *
 * Division: exact long division, not an approximation. The significands A, B in [2^52, 2^53)
 * (A doubled when A < B, so that A / B is in [1, 2)) give Q = floor(A 2^54 / B) in
 * [2^54, 2^55) and the remainder R, in five steps of 64-bit integer division: (A << 10) / B,
 * then four times 11 more quotient bits from (R << 11) / B (R < B < 2^53, so R << 11 fits in
 * 64 bits). Q has 55 bits, two beyond the 53 kept ones, and R != 0 is the sticky bit, so
 * Q | sticky places the exact quotient in the same interval between neighbouring multiples of
 * half an ulp as the true quotient and the rounding above is that of the exact value.
 * Square root: the exponent is made even (the significand doubled when odd), so the operand
 * is S 2^e with S in [2^52, 2^54); the classical restoring digit-by-digit integer square root
 * of N = S 2^56 gives R = floor(sqrt N) in [2^54, 2^55) and the exact remainder N - R^2 (the
 * invariant 0 <= rem <= 2 R holds at every step, so it fits in 64 bits); sticky = rem != 0
 * as for division. (A square root of a double is never a tie, but the same argument covers
 * it.)
 * fma: the exact product (106 bits, from a 64x64->128 multiplication through 32-bit halves,
 * or mul_hi / __umul64hi on the devices) and c are aligned in 128 bits and added exactly; when
 * the exponents differ so much that bits of the smaller one fall off, they are ORed into bit 0
 * (the larger operand's bit 0 is zero, so the sum is odd there and the exact sum lies strictly
 * between the same two even neighbours: no rounding position at bit 1 or above sees a
 * difference), and the sum then has its leading bit within four bits of the top, far above it.
 *
 * Tests: tests/core/test_soft_f64.c compares every operation with the host's hardware double
 * (random bit patterns, ranges near 1, huge, tiny, subnormal, edge values, constructed ties
 * and near-ties, cancellations, overflow and underflow boundaries) and with a build that breaks
 * the tie rule or the subnormal rounding (VMAF_SOFT_F64_MUTANT_TIES / _SUBNORMAL: ctest
 * expects those to fail); tests/opencl/test_opencl_soft_f64.c runs the same cases as OpenCL C
 * built without fp64 on PoCL (and Intel's CPU runtime), tests/opencl/soft_f64_no_fp64.sh
 * builds it with clang for 32/64-bit targets whose fp64 is off, and
 * tests/cuda/test_cuda_soft_f64.cu compiles it with nvcc (and runs it where there is a GPU).
 *
 * Cost: add, sub, mul, fma, the conversions and rounding are a few dozen integer operations;
 * div is five 64-bit integer divisions (emulated on GPUs) and sqrt a 55-step loop: the two
 * places where a faster method (a reciprocal or root estimate refined with the same exact
 * remainder check) would pay, if a kernel's profile ever shows them.
 */
#ifndef VMAF_FEATURE_SOFT_F64_H
#define VMAF_FEATURE_SOFT_F64_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stdint.h>
#include <string.h>
#endif

#if defined(VMAF_SOFT_F64_NO_DOUBLE)
#define double vmaf_soft_f64_must_not_use_double
#endif

/** A binary64 value: its IEEE 754 bit pattern. */
typedef struct VmafF64 {
    uint64_t bits;
} vmaf_f64;

/** An initializer of a vmaf_f64 from its bit pattern (tables, constants). */
#define VMAF_F64_INIT(bits) { (uint64_t)(bits) }

#define VMAF_F64_SIGN UINT64_C(0x8000000000000000)
#define VMAF_F64_FRAC UINT64_C(0x000fffffffffffff)
#define VMAF_F64_QUIET UINT64_C(0x0008000000000000)
#define VMAF_F64_DEFAULT_NAN UINT64_C(0xfff8000000000000)

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_from_bits(uint64_t bits)
{
    vmaf_f64 r;
    r.bits = bits;
    return r;
}

VMAF_DEVICE_FN uint64_t vmaf_f64_bits(vmaf_f64 x)
{
    return x.bits;
}

/* ---- integer helpers ------------------------------------------------------------------- */

/** Leading zeros of a 64-bit value, 64 for 0: the portable form (tests compare the others
 * with it), and the one the library uses (the dialect's instruction where there is one). */
VMAF_DEVICE_FN int vmaf_f64_clz64_portable(uint64_t x)
{
    int n = 0;
    if (!x) return 64;
    if (!(x >> 32)) n += 32, x <<= 32;
    if (!(x >> 48)) n += 16, x <<= 16;
    if (!(x >> 56)) n += 8, x <<= 8;
    if (!(x >> 60)) n += 4, x <<= 4;
    if (!(x >> 62)) n += 2, x <<= 2;
    if (!(x >> 63)) n += 1;
    return n;
}

VMAF_DEVICE_FN int vmaf_f64_clz64(uint64_t x)
{
#if defined(__CUDA_ARCH__)
    return __clzll((long long)x);
#elif VMAF_DIALECT_OPENCL
    return (int)clz(x);
#elif defined(__GNUC__) && !defined(VMAF_SOFT_F64_PORTABLE)
    return x ? __builtin_clzll(x) : 64;
#else
    return vmaf_f64_clz64_portable(x);
#endif
}

/** The high 64 bits of a * b: through 32-bit halves (what a device without a 64-bit
 * multiply-high runs, and the host's form), or the devices' own instructions. */
VMAF_DEVICE_FN uint64_t vmaf_f64_mul_hi_portable(uint64_t a, uint64_t b)
{
    const uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

VMAF_DEVICE_FN uint64_t vmaf_f64_mul_hi(uint64_t a, uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#elif VMAF_DIALECT_OPENCL
    return mul_hi(a, b);
#else
    return vmaf_f64_mul_hi_portable(a, b);
#endif
}

/** x >> dist, with bit 0 set when a bit shifted out was 1 (dist >= 0, any size). */
VMAF_DEVICE_FN uint64_t vmaf_f64_impl_shift_right_jam(uint64_t x, int dist)
{
    if (dist <= 0) return x;
    if (dist >= 63) return x != 0;
    return x >> dist | (uint64_t)((x << (64 - dist)) != 0);
}

/** A NaN operand, quieted. */
VMAF_DEVICE_FN int vmaf_f64_impl_is_nan(uint64_t u)
{
    return (u & ~VMAF_F64_SIGN) > UINT64_C(0x7ff0000000000000);
}

/** sign ? -value : value as a bit pattern: sign bit, then exp << 52 added (so that a
 * significand's bit 52 carries into the exponent field). */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_impl_pack(uint64_t sign, int exp, uint64_t sig)
{
    return vmaf_f64_from_bits((sign << 63) + ((uint64_t)exp << 52) + sig);
}

/**
 * Round sig * 2^(exp - 1084) (sig < 2^63, normally in [2^62, 2^63): the leading bit at 62 and
 * 10 bits below the 53 kept ones) to nearest even, with subnormal results and overflow.
 */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_impl_round_pack(uint64_t sign, int exp, uint64_t sig)
{
    if (exp < 0) {
#if defined(VMAF_SOFT_F64_MUTANT_SUBNORMAL)
        sig = -exp < 64 ? sig >> -exp : 0; /* deliberately wrong (tests): bits lost */
#else
        sig = vmaf_f64_impl_shift_right_jam(sig, -exp);
#endif
        exp = 0;
    } else if (exp >= 0x7fe) {
        return vmaf_f64_from_bits(sign << 63 | UINT64_C(0x7ff0000000000000));
    }
    const uint64_t round_bits = sig & 0x3ff;
    sig = (sig + 0x200) >> 10;
#if !defined(VMAF_SOFT_F64_MUTANT_TIES)
    sig &= ~(uint64_t)(round_bits == 0x200 ? 1 : 0); /* a tie: to even */
#else
    (void)round_bits; /* deliberately wrong (tests): ties away from zero */
#endif
    if (!sig) exp = 0;
    return vmaf_f64_impl_pack(sign, exp, sig);
}

/** round_pack of a sig with its leading bit anywhere (or 0), exact when it fits. */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_impl_norm_round_pack(uint64_t sign, int exp, uint64_t sig)
{
    const int shift = vmaf_f64_clz64(sig) - 1;
    if (shift < 0) return vmaf_f64_impl_round_pack(sign, exp + 1, vmaf_f64_impl_shift_right_jam(sig, 1));
    exp -= shift;
    if (shift >= 10 && exp >= 0 && exp < 0x7fd)
        return vmaf_f64_impl_pack(sign, sig ? exp : 0, sig << (shift - 10));
    return vmaf_f64_impl_round_pack(sign, exp, sig << shift);
}

/** a's NaN if it is one, else b's, quieted (x86's rule). */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_impl_nan2(uint64_t a, uint64_t b)
{
    return vmaf_f64_from_bits((vmaf_f64_impl_is_nan(a) ? a : b) | VMAF_F64_QUIET);
}

/* The field decomposition: exponent field and fraction, and a subnormal's normalization
 * (fraction shifted up to bit 52, exponent 1 - shift, which may be <= 0). */
#define VMAF_F64_EXP(u) ((int)((u) >> 52) & 0x7ff)
#define VMAF_F64_NORMALIZE(exp, sig)                                                      \
    do {                                                                                  \
        const int vmaf_f64_shift_ = vmaf_f64_clz64(sig) - 11;                        \
        (exp) = 1 - vmaf_f64_shift_;                                                      \
        (sig) <<= vmaf_f64_shift_;                                                        \
    } while (0)

/* ---- sign, classification, comparison --------------------------------------------------- */

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_neg(vmaf_f64 x)
{
    return vmaf_f64_from_bits(x.bits ^ VMAF_F64_SIGN);
}

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_abs(vmaf_f64 x)
{
    return vmaf_f64_from_bits(x.bits & ~VMAF_F64_SIGN);
}

VMAF_DEVICE_FN int vmaf_f64_isnan(vmaf_f64 x)
{
    return vmaf_f64_impl_is_nan(x.bits);
}

/** a == b: false with a NaN, true for -0 == +0. */
VMAF_DEVICE_FN int vmaf_f64_eq(vmaf_f64 a, vmaf_f64 b)
{
    if (vmaf_f64_impl_is_nan(a.bits) || vmaf_f64_impl_is_nan(b.bits)) return 0;
    return a.bits == b.bits || !((a.bits | b.bits) << 1);
}

/** a < b: false with a NaN. */
VMAF_DEVICE_FN int vmaf_f64_lt(vmaf_f64 a, vmaf_f64 b)
{
    if (vmaf_f64_impl_is_nan(a.bits) || vmaf_f64_impl_is_nan(b.bits)) return 0;
    const int sa = (int)(a.bits >> 63), sb = (int)(b.bits >> 63);
    if (sa != sb) return sa && ((a.bits | b.bits) << 1) != 0;
    return a.bits != b.bits && (sa ^ (a.bits < b.bits));
}

/** a <= b: false with a NaN. */
VMAF_DEVICE_FN int vmaf_f64_le(vmaf_f64 a, vmaf_f64 b)
{
    if (vmaf_f64_impl_is_nan(a.bits) || vmaf_f64_impl_is_nan(b.bits)) return 0;
    const int sa = (int)(a.bits >> 63), sb = (int)(b.bits >> 63);
    if (sa != sb) return sa || !((a.bits | b.bits) << 1);
    return a.bits == b.bits || (sa ^ (a.bits < b.bits));
}

/* ---- add, sub -------------------------------------------------------------------------- */

/** |a| + |b| with the sign `sign`. */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_impl_add_mags(uint64_t ua, uint64_t ub, uint64_t sign)
{
    int ea = VMAF_F64_EXP(ua), eb = VMAF_F64_EXP(ub);
    uint64_t sa = ua & VMAF_F64_FRAC, sb = ub & VMAF_F64_FRAC;
    const int diff = ea - eb;
    if (!diff) {
        if (!ea) return vmaf_f64_impl_pack(sign, 0, sa + sb); /* exact; may carry to normal */
        if (ea == 0x7ff) {
            if (sa | sb) return vmaf_f64_impl_nan2(ua, ub);
            return vmaf_f64_from_bits(ua);
        }
        /* both hidden bits: (2^53 + sa + sb) in [2^53, 2^54), at bit 62 after << 9 */
        return vmaf_f64_impl_round_pack(sign, ea, (UINT64_C(0x0020000000000000) + sa + sb) << 9);
    }
    sa <<= 9;
    sb <<= 9;
    int exp;
    if (diff < 0) {
        if (eb == 0x7ff) {
            if (sb) return vmaf_f64_impl_nan2(ua, ub);
            return vmaf_f64_impl_pack(sign, 0x7ff, 0);
        }
        exp = eb;
        sa = ea ? sa + UINT64_C(0x2000000000000000) : sa << 1;
        sa = vmaf_f64_impl_shift_right_jam(sa, -diff);
    } else {
        if (ea == 0x7ff) {
            if (sa) return vmaf_f64_impl_nan2(ua, ub);
            return vmaf_f64_from_bits(ua);
        }
        exp = ea;
        sb = eb ? sb + UINT64_C(0x2000000000000000) : sb << 1;
        sb = vmaf_f64_impl_shift_right_jam(sb, diff);
    }
    uint64_t sig = UINT64_C(0x2000000000000000) + sa + sb; /* in [2^61, 2^63) */
    if (sig < UINT64_C(0x4000000000000000)) {
        exp--;
        sig <<= 1;
    }
    return vmaf_f64_impl_round_pack(sign, exp, sig);
}

/** |a| - |b| with a's sign `sign` (negated when |b| > |a|). */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_impl_sub_mags(uint64_t ua, uint64_t ub, uint64_t sign)
{
    int ea = VMAF_F64_EXP(ua), eb = VMAF_F64_EXP(ub);
    uint64_t sa = ua & VMAF_F64_FRAC, sb = ub & VMAF_F64_FRAC;
    const int diff = ea - eb;
    if (!diff) {
        if (ea == 0x7ff) {
            if (sa | sb) return vmaf_f64_impl_nan2(ua, ub);
            return vmaf_f64_from_bits(VMAF_F64_DEFAULT_NAN); /* inf - inf */
        }
        int64_t d = (int64_t)sa - (int64_t)sb; /* the hidden bits cancel: exact */
        if (!d) return vmaf_f64_from_bits(0);  /* x - x = +0 */
        if (ea) ea--;
        if (d < 0) {
            sign ^= 1;
            d = -d;
        }
        int shift = vmaf_f64_clz64((uint64_t)d) - 11;
        int exp = ea - shift;
        if (exp < 0) {
            shift = ea;
            exp = 0;
        }
        return vmaf_f64_impl_pack(sign, exp, (uint64_t)d << shift);
    }
    sa <<= 10;
    sb <<= 10;
    int exp;
    uint64_t sig;
    if (diff < 0) {
        sign ^= 1;
        if (eb == 0x7ff) {
            if (sb) return vmaf_f64_impl_nan2(ua, ub);
            return vmaf_f64_impl_pack(sign, 0x7ff, 0);
        }
        sa = ea ? sa + UINT64_C(0x4000000000000000) : sa << 1;
        sa = vmaf_f64_impl_shift_right_jam(sa, -diff);
        exp = eb;
        sig = (sb | UINT64_C(0x4000000000000000)) - sa;
    } else {
        if (ea == 0x7ff) {
            if (sa) return vmaf_f64_impl_nan2(ua, ub);
            return vmaf_f64_from_bits(ua);
        }
        sb = eb ? sb + UINT64_C(0x4000000000000000) : sb << 1;
        sb = vmaf_f64_impl_shift_right_jam(sb, diff);
        exp = ea;
        sig = (sa | UINT64_C(0x4000000000000000)) - sb;
    }
    return vmaf_f64_impl_norm_round_pack(sign, exp - 1, sig);
}

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_add(vmaf_f64 a, vmaf_f64 b)
{
    const uint64_t sa = a.bits >> 63, sb = b.bits >> 63;
    if (sa == sb) return vmaf_f64_impl_add_mags(a.bits, b.bits, sa);
    return vmaf_f64_impl_sub_mags(a.bits, b.bits, sa);
}

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_sub(vmaf_f64 a, vmaf_f64 b)
{
    const uint64_t sa = a.bits >> 63, sb = b.bits >> 63;
    if (sa != sb) return vmaf_f64_impl_add_mags(a.bits, b.bits, sa);
    return vmaf_f64_impl_sub_mags(a.bits, b.bits, sa);
}

/* ---- mul, div, sqrt -------------------------------------------------------------------- */

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_mul(vmaf_f64 a, vmaf_f64 b)
{
    const uint64_t ua = a.bits, ub = b.bits, sign = (ua ^ ub) >> 63;
    int ea = VMAF_F64_EXP(ua), eb = VMAF_F64_EXP(ub);
    uint64_t sa = ua & VMAF_F64_FRAC, sb = ub & VMAF_F64_FRAC;
    if (ea == 0x7ff || eb == 0x7ff) {
        if (vmaf_f64_impl_is_nan(ua) || vmaf_f64_impl_is_nan(ub))
            return vmaf_f64_impl_nan2(ua, ub);
        if (!(ua << 1) || !(ub << 1)) return vmaf_f64_from_bits(VMAF_F64_DEFAULT_NAN);
        return vmaf_f64_impl_pack(sign, 0x7ff, 0);
    }
    if (!(ua << 1) || !(ub << 1)) return vmaf_f64_impl_pack(sign, 0, 0);
    if (!ea) VMAF_F64_NORMALIZE(ea, sa);
    if (!eb) VMAF_F64_NORMALIZE(eb, sb);
    int exp = ea + eb - 0x3ff;
    sa = (sa | UINT64_C(0x0010000000000000)) << 10;
    sb = (sb | UINT64_C(0x0010000000000000)) << 11;
    /* sa sb in [2^125, 2^127): its high half in [2^61, 2^63), the low half sticky */
    uint64_t sig = vmaf_f64_mul_hi(sa, sb) | (uint64_t)((sa * sb) != 0);
    if (sig < UINT64_C(0x4000000000000000)) {
        exp--;
        sig <<= 1;
    }
    return vmaf_f64_impl_round_pack(sign, exp, sig);
}

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_div(vmaf_f64 a, vmaf_f64 b)
{
    const uint64_t ua = a.bits, ub = b.bits, sign = (ua ^ ub) >> 63;
    int ea = VMAF_F64_EXP(ua), eb = VMAF_F64_EXP(ub);
    uint64_t sa = ua & VMAF_F64_FRAC, sb = ub & VMAF_F64_FRAC;
    if (vmaf_f64_impl_is_nan(ua) || vmaf_f64_impl_is_nan(ub)) return vmaf_f64_impl_nan2(ua, ub);
    if (ea == 0x7ff) {
        if (eb == 0x7ff) return vmaf_f64_from_bits(VMAF_F64_DEFAULT_NAN); /* inf / inf */
        return vmaf_f64_impl_pack(sign, 0x7ff, 0);
    }
    if (eb == 0x7ff) return vmaf_f64_impl_pack(sign, 0, 0);
    if (!(ub << 1)) {
        if (!(ua << 1)) return vmaf_f64_from_bits(VMAF_F64_DEFAULT_NAN); /* 0 / 0 */
        return vmaf_f64_impl_pack(sign, 0x7ff, 0);
    }
    if (!(ua << 1)) return vmaf_f64_impl_pack(sign, 0, 0);
    if (!ea) VMAF_F64_NORMALIZE(ea, sa);
    if (!eb) VMAF_F64_NORMALIZE(eb, sb);
    int exp = ea - eb + 0x3fe;
    sa |= UINT64_C(0x0010000000000000);
    sb |= UINT64_C(0x0010000000000000);
    if (sa < sb) {
        exp--;
        sa <<= 1;
    }
    /* long division: Q = floor(sa 2^54 / sb), 11 bits at a time after the first 11 */
    uint64_t x = sa << 10, q = x / sb, r = x - q * sb;
    for (int i = 0; i < 4; i++) {
        x = r << 11;
        const uint64_t d = x / sb;
        q = q << 11 | d;
        r = x - d * sb;
    }
    return vmaf_f64_impl_round_pack(sign, exp, q << 8 | (uint64_t)(r != 0));
}

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_sqrt(vmaf_f64 a)
{
    const uint64_t ua = a.bits;
    int ea = VMAF_F64_EXP(ua);
    uint64_t sa = ua & VMAF_F64_FRAC;
    if (vmaf_f64_impl_is_nan(ua)) return vmaf_f64_from_bits(ua | VMAF_F64_QUIET);
    if (!(ua << 1)) return a; /* sqrt(-0) = -0 */
    if (ua >> 63) return vmaf_f64_from_bits(VMAF_F64_DEFAULT_NAN);
    if (ea == 0x7ff) return a;
    if (!ea) VMAF_F64_NORMALIZE(ea, sa);
    sa |= UINT64_C(0x0010000000000000);
    /* a = sa 2^e with e = ea - 1075 made even */
    int e = ea - 1075;
    if (e & 1) {
        sa <<= 1;
        e--;
    }
    /* R = floor(sqrt(sa 2^56)), two bits of N = sa 2^56 brought down per root bit; the
     * pairs below bit 56 are zeros */
    uint64_t root = 0, rem = 0;
    for (int i = 54; i >= 0; i--) {
        const uint64_t pair = i >= 28 ? (sa >> (2 * i - 56)) & 3 : 0;
        rem = rem << 2 | pair;
        const uint64_t trial = root << 2 | 1;
        root <<= 1;
        if (rem >= trial) {
            rem -= trial;
            root |= 1;
        }
    }
    return vmaf_f64_impl_round_pack(0, (e - 56) / 2 + 1076, root << 8 | (uint64_t)(rem != 0));
}

/* ---- fma ------------------------------------------------------------------------------- */

/** (hi, lo) >> dist with the shifted-out bits ORed into bit 0 (dist >= 0, any size). */
#define VMAF_F64_SHR_JAM128(hi, lo, dist)                                                 \
    do {                                                                                  \
        const int d_ = (dist);                                                            \
        if (d_ >= 128) {                                                                  \
            (lo) = (uint64_t)(((hi) | (lo)) != 0);                                        \
            (hi) = 0;                                                                     \
        } else if (d_ >= 64) {                                                            \
            const int e_ = d_ - 64;                                                       \
            const uint64_t sticky_ = (uint64_t)((lo) != 0) |                              \
                                     (uint64_t)(e_ && ((hi) << (64 - e_)) != 0);          \
            (lo) = (e_ ? (hi) >> e_ : (hi)) | sticky_;                                    \
            (hi) = 0;                                                                     \
        } else if (d_ > 0) {                                                              \
            const uint64_t sticky_ = (uint64_t)(((lo) << (64 - d_)) != 0);                \
            (lo) = ((lo) >> d_ | (hi) << (64 - d_)) | sticky_;                            \
            (hi) >>= d_;                                                                  \
        }                                                                                 \
    } while (0)

/** a * b + c with one rounding. */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_fma(vmaf_f64 a, vmaf_f64 b, vmaf_f64 c)
{
    const uint64_t ua = a.bits, ub = b.bits, uc = c.bits;
    const uint64_t sp = (ua ^ ub) >> 63, sc = uc >> 63;
    int ea = VMAF_F64_EXP(ua), eb = VMAF_F64_EXP(ub), ec = VMAF_F64_EXP(uc);
    uint64_t fa = ua & VMAF_F64_FRAC, fb = ub & VMAF_F64_FRAC, fc = uc & VMAF_F64_FRAC;
    if (vmaf_f64_impl_is_nan(ua) || vmaf_f64_impl_is_nan(ub) || vmaf_f64_impl_is_nan(uc)) {
        const uint64_t n = vmaf_f64_impl_is_nan(ua) ? ua : vmaf_f64_impl_is_nan(ub) ? ub : uc;
        return vmaf_f64_from_bits(n | VMAF_F64_QUIET);
    }
    const int zero_a = !(ua << 1), zero_b = !(ub << 1), zero_c = !(uc << 1);
    if (ea == 0x7ff || eb == 0x7ff) {
        if (zero_a || zero_b) return vmaf_f64_from_bits(VMAF_F64_DEFAULT_NAN); /* 0 * inf */
        if (ec == 0x7ff && sc != sp) return vmaf_f64_from_bits(VMAF_F64_DEFAULT_NAN);
        return vmaf_f64_impl_pack(sp, 0x7ff, 0);
    }
    if (ec == 0x7ff) return c;
    if (zero_a || zero_b) /* an exact zero product: +0 unless both zeros are -0 */
        return zero_c ? vmaf_f64_impl_pack(sp & sc, 0, 0) : c;
    if (zero_c) return vmaf_f64_mul(a, b); /* the exact product is not 0: its rounding */
    if (!ea) VMAF_F64_NORMALIZE(ea, fa);
    if (!eb) VMAF_F64_NORMALIZE(eb, fb);
    if (!ec) VMAF_F64_NORMALIZE(ec, fc);
    fa |= UINT64_C(0x0010000000000000);
    fb |= UINT64_C(0x0010000000000000);
    fc |= UINT64_C(0x0010000000000000);
    /* product P = fa fb in [2^104, 2^106), held as P 2^20: leading bit at 124 or 125,
     * value P 2^(ep); c as fc 2^72: leading bit at 124, value 2^(ecs) */
    const uint64_t pl = fa * fb, ph = vmaf_f64_mul_hi(fa, fb);
    uint64_t xh = ph << 20 | pl >> 44, xl = pl << 20;
    uint64_t yh = fc << 8, yl = 0;
    const int ep = ea + eb - 2150 - 20, ecs = ec - 1075 - 72;
    int ez;
    if (ep >= ecs) {
        VMAF_F64_SHR_JAM128(yh, yl, ep - ecs);
        ez = ep;
    } else {
        VMAF_F64_SHR_JAM128(xh, xl, ecs - ep);
        ez = ecs;
    }
    uint64_t zh, zl, sign = sp;
    if (sp == sc) {
        zl = xl + yl;
        zh = xh + yh + (uint64_t)(zl < xl);
    } else {
        zl = xl - yl;
        zh = xh - yh - (uint64_t)(xl < yl);
        if (zh >> 63) { /* |c| > |a b|: negate */
            zl = ~zl + 1;
            zh = ~zh + (uint64_t)(zl == 0);
            sign = sc;
        }
        if (!(zh | zl)) return vmaf_f64_from_bits(0); /* exact cancellation: +0 */
    }
    /* leading bit to bit 126 (bit 62 of the high word), the rest sticky */
    const int lz = zh ? vmaf_f64_clz64(zh) : 64 + vmaf_f64_clz64(zl);
    const int s = lz - 1; /* >= 0: the sum is below 2^127 */
    if (s >= 64) {
        zh = zl << (s - 64);
        zl = 0;
    } else if (s > 0) {
        zh = zh << s | zl >> (64 - s);
        zl <<= s;
    }
    return vmaf_f64_impl_round_pack(sign, ez - s + 64 + 1084, zh | (uint64_t)(zl != 0));
}

/* ---- conversions ------------------------------------------------------------------------ */

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_from_u64(uint64_t v)
{
    return vmaf_f64_impl_norm_round_pack(0, 0x43c, v);
}

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_from_i64(int64_t v)
{
    const uint64_t sign = v < 0;
    return vmaf_f64_impl_norm_round_pack(sign, 0x43c, sign ? 0 - (uint64_t)v : (uint64_t)v);
}

/** Exact. */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_from_i32(int32_t v)
{
    return vmaf_f64_from_i64(v);
}

/** Exact. */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_from_u32(uint32_t v)
{
    return vmaf_f64_from_u64(v);
}

/** The binary32 with bit pattern `bits`, exactly (a NaN quieted, its payload kept). */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_from_f32_bits(uint32_t bits)
{
    const uint64_t sign = bits >> 31;
    int e = (int)(bits >> 23) & 0xff;
    uint64_t f = bits & 0x7fffff;
    if (e == 0xff) {
        if (f) return vmaf_f64_from_bits(sign << 63 | UINT64_C(0x7ff8000000000000) | f << 29);
        return vmaf_f64_impl_pack(sign, 0x7ff, 0);
    }
    if (!e) {
        if (!f) return vmaf_f64_impl_pack(sign, 0, 0);
        const int shift = vmaf_f64_clz64(f) - 40; /* the leading bit to bit 23 */
        e = 1 - shift;
        f = (f << shift) & 0x7fffff;
    }
    return vmaf_f64_impl_pack(sign, e + 0x380, f << 29);
}

/** The binary32 nearest x (ties to even) as its bit pattern: overflow to infinity, subnormal
 * results rounded once, a NaN quieted with the top of its payload. */
VMAF_DEVICE_FN uint32_t vmaf_f64_to_f32_bits(vmaf_f64 x)
{
    const uint64_t u = x.bits;
    const uint32_t sign = (uint32_t)(u >> 63) << 31;
    int e = VMAF_F64_EXP(u);
    const uint64_t f = u & VMAF_F64_FRAC;
    if (e == 0x7ff) {
        if (f) return sign | 0x7fc00000u | (uint32_t)(f >> 29);
        return sign | 0x7f800000u;
    }
    /* 30 bits with the leading one at bit 30 after the hidden bit: 7 bits to round */
    uint64_t sig = vmaf_f64_impl_shift_right_jam(f, 22);
    if (!(e | (int)sig)) return sign;
    sig |= 0x40000000;
    e -= 0x381;
    if (e < 0) {
        sig = vmaf_f64_impl_shift_right_jam(sig, -e);
        e = 0;
    } else if (e >= 0xfe) {
        return sign | 0x7f800000u;
    }
    const uint32_t round_bits = (uint32_t)sig & 0x7f;
    uint32_t s32 = (uint32_t)((sig + 0x40) >> 7);
#if !defined(VMAF_SOFT_F64_MUTANT_TIES)
    s32 &= ~(uint32_t)(round_bits == 0x40 ? 1 : 0); /* a tie: to even */
#else
    (void)round_bits;
#endif
    if (!s32) e = 0;
    return sign + ((uint32_t)e << 23) + s32;
}

/** Truncation toward zero as C converts; NaN and results outside int32 give INT32_MIN. */
VMAF_DEVICE_FN int32_t vmaf_f64_to_i32(vmaf_f64 x)
{
    const uint64_t u = x.bits;
    const int e = VMAF_F64_EXP(u);
    if (e < 0x3ff) return 0; /* |x| < 1 */
    if (e > 0x41e) return (int32_t)0x80000000u; /* |x| >= 2^32, inf, NaN */
    const uint64_t m = ((u & VMAF_F64_FRAC) | UINT64_C(0x0010000000000000)) >> (0x433 - e);
    if (u >> 63) return m <= 0x80000000u ? (int32_t)(0u - (uint32_t)m) : (int32_t)0x80000000u;
    return m <= 0x7fffffffu ? (int32_t)m : (int32_t)0x80000000u;
}

/** Truncation toward zero as C converts; NaN and results outside int64 give INT64_MIN. */
VMAF_DEVICE_FN int64_t vmaf_f64_to_i64(vmaf_f64 x)
{
    const uint64_t u = x.bits;
    const int e = VMAF_F64_EXP(u);
    const uint64_t min = UINT64_C(0x8000000000000000);
    if (e < 0x3ff) return 0;
    if (e > 0x43e) return (int64_t)min;
    const uint64_t sig = (u & VMAF_F64_FRAC) | UINT64_C(0x0010000000000000);
    const uint64_t m = e >= 0x433 ? sig << (e - 0x433) : sig >> (0x433 - e);
    if (u >> 63) return m <= min ? (int64_t)(0 - m) : (int64_t)min;
    return m < min ? (int64_t)m : (int64_t)min;
}

/* ---- rounding to integers, scaling ----------------------------------------------------- */

enum { VMAF_F64_RINT, VMAF_F64_TRUNC, VMAF_F64_FLOOR, VMAF_F64_CEIL };

/** x rounded to an integer in direction mode (VMAF_F64_RINT: nearest even). */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_impl_round_int(vmaf_f64 x, int mode)
{
    uint64_t u = x.bits;
    const int e = VMAF_F64_EXP(u);
    const uint64_t sign = u >> 63;
    if (e >= 0x433) /* integers already, infinities, NaN */
        return vmaf_f64_from_bits(vmaf_f64_impl_is_nan(u) ? u | VMAF_F64_QUIET : u);
    if (e < 0x3ff) { /* |x| < 1 */
        if (!(u << 1)) return x;
        int one = 0;
        if (mode == VMAF_F64_RINT) one = e == 0x3fe && (u & VMAF_F64_FRAC); /* > 0.5 */
        else if (mode == VMAF_F64_FLOOR) one = (int)sign;
        else if (mode == VMAF_F64_CEIL) one = !sign;
        return vmaf_f64_from_bits(sign << 63 | (one ? UINT64_C(0x3ff0000000000000) : 0));
    }
    const uint64_t last = (uint64_t)1 << (0x433 - e), below = last - 1;
    if (mode == VMAF_F64_RINT) {
        u += last >> 1;
        if (!(u & below)) u &= ~last; /* a tie: to even */
    } else if ((mode == VMAF_F64_FLOOR && sign) || (mode == VMAF_F64_CEIL && !sign)) {
        u += below; /* away from zero when not an integer */
    }
    return vmaf_f64_from_bits(u & ~below);
}

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_rint(vmaf_f64 x)
{
    return vmaf_f64_impl_round_int(x, VMAF_F64_RINT);
}
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_trunc(vmaf_f64 x)
{
    return vmaf_f64_impl_round_int(x, VMAF_F64_TRUNC);
}
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_floor(vmaf_f64 x)
{
    return vmaf_f64_impl_round_int(x, VMAF_F64_FLOOR);
}
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_ceil(vmaf_f64 x)
{
    return vmaf_f64_impl_round_int(x, VMAF_F64_CEIL);
}

/** x 2^n, rounded once (a subnormal result), overflow to infinity; NaN quieted. */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_ldexp(vmaf_f64 x, int n)
{
    const uint64_t u = x.bits;
    int e = VMAF_F64_EXP(u);
    uint64_t f = u & VMAF_F64_FRAC;
    if (e == 0x7ff) return vmaf_f64_from_bits(vmaf_f64_impl_is_nan(u) ? u | VMAF_F64_QUIET : u);
    if (!(u << 1)) return x;
    if (!e) VMAF_F64_NORMALIZE(e, f);
    n = n > 4000 ? 4000 : n < -4000 ? -4000 : n; /* beyond either end anyway */
    return vmaf_f64_impl_round_pack(u >> 63, e + n - 1,
                                    (f | UINT64_C(0x0010000000000000)) << 10);
}

/** frexp: x = m 2^(*exp) with |m| in [0.5, 1); zero, infinity and NaN (quieted) give
 * themselves and *exp = 0. */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_frexp(vmaf_f64 x, int *exp)
{
    const uint64_t u = x.bits;
    int e = VMAF_F64_EXP(u);
    uint64_t f = u & VMAF_F64_FRAC;
    *exp = 0;
    if (e == 0x7ff) return vmaf_f64_from_bits(vmaf_f64_impl_is_nan(u) ? u | VMAF_F64_QUIET : u);
    if (!(u << 1)) return x;
    if (!e) VMAF_F64_NORMALIZE(e, f);
    *exp = e - 0x3fe;
    return vmaf_f64_from_bits((u & VMAF_F64_SIGN) | UINT64_C(0x3fe0000000000000) |
                              (f & VMAF_F64_FRAC));
}

/* ---- the dialects' own float and double ------------------------------------------------- */

VMAF_DEVICE_FN vmaf_f64 vmaf_f64_from_float(float f)
{
#if defined(__CUDA_ARCH__)
    return vmaf_f64_from_f32_bits(__float_as_uint(f));
#elif VMAF_DIALECT_OPENCL
    return vmaf_f64_from_f32_bits(as_uint(f));
#else
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return vmaf_f64_from_f32_bits(u);
#endif
}

VMAF_DEVICE_FN float vmaf_f64_to_float(vmaf_f64 x)
{
    const uint32_t u = vmaf_f64_to_f32_bits(x);
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#elif VMAF_DIALECT_OPENCL
    return as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
#endif
}

#if !VMAF_DIALECT_OPENCL && !defined(VMAF_SOFT_F64_NO_DOUBLE)
/** The host's (and CUDA's) double, bit for bit: for tests and host-side tables. */
VMAF_DEVICE_FN vmaf_f64 vmaf_f64_from_double(double d)
{
#if defined(__CUDA_ARCH__)
    return vmaf_f64_from_bits((uint64_t)__double_as_longlong(d));
#else
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    return vmaf_f64_from_bits(u);
#endif
}

VMAF_DEVICE_FN double vmaf_f64_to_double(vmaf_f64 x)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)x.bits);
#else
    double d;
    memcpy(&d, &x.bits, sizeof(d));
    return d;
#endif
}
#endif

#if defined(VMAF_SOFT_F64_NO_DOUBLE)
#undef double
#endif

#endif /* VMAF_FEATURE_SOFT_F64_H */
