/*
 * The operands of the software binary64 tests and the host's hardware results they are
 * compared with (test_soft_f64 on the host, test_opencl_soft_f64 on OpenCL devices).
 *
 * Case k of a run is of kind k % SOFT_F64_KINDS (see soft_f64_case): random bit patterns;
 * normal numbers near 1; any finite exponent; tiny and subnormal; huge, and products and
 * quotients at the overflow and underflow thresholds; pairs of edge values (signed zeros,
 * subnormal extremes, min/max normal, infinities, quiet and signalling NaNs, conversion
 * boundaries) and their neighbours; cancellations (b within a few ulps of a, c within a few
 * ulps of -a b); sums that are exact ties; products that are exact ties (normal and
 * subnormal), fma on such products with c keeping or breaking the tie; subnormal quotients
 * that are exact ties and normal quotients within about 2^-53 ulp of a midpoint; square roots
 * within about 2^-54 ulp of a midpoint. Independently of the kind: integers of every length,
 * exact ties of the int64/uint64 conversions; floats of every class; doubles that are ties
 * of the conversion to float (float subnormals and the overflow threshold included) and of
 * rint; ldexp exponents that make subnormal results.
 *
 * The rule: a result equals the hardware's bit for bit, except that where the hardware gives
 * a NaN the library's must be a quiet NaN (payloads are counted, not checked: the hardware's
 * depend on operand order the compiler picks). neg and abs are exact bit operations: compared
 * bit for bit, NaNs included. Conversions to int32/int64 outside their range (and NaN) must
 * give INT32_MIN / INT64_MIN (the library's documented rule; C leaves it undefined).
 */
#ifndef VMAF_TESTS_SOFT_F64_CASES_H
#define VMAF_TESTS_SOFT_F64_CASES_H

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "soft_f64_ops.h"
#include "test_util.h"

#define SOFT_F64_KINDS 12

static const char *const soft_f64_op_name[SOFT_F64_OPS] = {
    "add", "sub", "mul", "div", "sqrt", "fma", "neg", "abs", "eq", "lt", "le",
    "from_i32", "from_u32", "from_i64", "from_u64", "from_f32", "to_f32", "to_i32", "to_i64",
    "trunc", "floor", "ceil", "rint", "ldexp", "frexp", "frexp_exp", "sqrt(b)", "b/a",
};

static const uint64_t soft_f64_edges[] = {
    0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001,
    0x000fffffffffffff, 0x800fffffffffffff, 0x0010000000000000, 0x8010000000000000,
    0x0010000000000001, 0x000ffffffffffffe, 0x0008000000000000, 0x7fefffffffffffff,
    0xffefffffffffffff, 0x7fe0000000000000, 0x7ff0000000000000, 0xfff0000000000000,
    0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001, 0x7ff4000000000000,
    0x3ff0000000000000, 0xbff0000000000000, 0x4000000000000000, 0x3fe0000000000000,
    0x3ff0000000000001, 0x3fefffffffffffff, 0x4008000000000000, 0x3fb999999999999a,
    0x5fe0000000000000, 0x2000000000000000, 0x1ff0000000000000, 0x3cb0000000000000,
    0x41dfffffffc00000, 0x41dfffffffe00000, 0x41e0000000000000, 0xc1e0000000000000,
    0xc1e0000000100000, 0xc1e0000000200000, 0x43e0000000000000, 0xc3e0000000000000,
    0x43dfffffffffffff, 0x4330000000000000, 0x432fffffffffffff, 0x4330000000000001,
    0x47efffffe0000000, 0x47effffff0000000, 0x47effffff0000001, 0x47efffffefffffff,
    0x36a0000000000000, 0x3690000000000000, 0x36a8000000000000, 0x3810000000000000,
    0x380fffffffffffff, 0x3e70000000000000, 0x0340000000000000, 0x7c90000000000000,
};
#define SOFT_F64_EDGES (sizeof(soft_f64_edges) / sizeof(soft_f64_edges[0]))

/* a random sign, random fraction, exponent field e */
static inline uint64_t with_exp(uint64_t e)
{
    return (rng64() & 0x800fffffffffffffull) | (e & 0x7ff) << 52;
}

/* the double m 2^e for an integer m < 2^53 (exact while it stays a normal or subnormal
 * double that holds m's bits) */
static inline uint64_t scaled(uint64_t m, int e)
{
    return test_bits_of_double(ldexp((double)m, e));
}

/* s odd with s^2 == r (mod 2^k), r == 1 (mod 8), 3 <= k <= 63 (Hensel, bit by bit) */
static inline uint64_t sqrt_mod_pow2(uint64_t r, int k)
{
    uint64_t s = 1;
    for (int i = 3; i < k; i++)
        if (((s * s - r) >> i) & 1) s += (uint64_t)1 << (i - 1);
    return s & (((uint64_t)1 << k) - 1);
}

/* x^-1 mod 2^64 for odd x (Newton) */
static inline uint64_t inverse_mod_2_64(uint64_t x)
{
    uint64_t inv = x;
    for (int i = 0; i < 6; i++) inv *= 2 - x * inv;
    return inv;
}

static inline uint64_t perturb(uint64_t u)
{
    switch (rng() % 4) {
    case 0: return u;
    case 1: return u + 1 + rng() % 3;
    case 2: return u - 1 - rng() % 3;
    default: return u ^ 0x8000000000000000ull;
    }
}

/* The integer operand: every length, and exact ties of the 64-bit conversions. */
static inline uint64_t soft_f64_int_operand(void)
{
    const unsigned v = rng() % 4;
    if (v == 0) return rng64();
    if (v == 1) return rng64() >> (rng() % 64);
    /* 54 significant bits, the last one set (a tie), or 55 with "10" / "11" / "01" */
    const unsigned bits = 54 + (v == 3);
    uint64_t m = (rng64() >> (64 - bits)) | (uint64_t)1 << (bits - 1) | 1;
    return m << (rng() % (65 - bits));
}

/* The float operand: every class. */
static inline uint32_t soft_f64_float_operand(void)
{
    static const uint32_t e[] = { 0x00000000, 0x80000000, 0x00000001, 0x007fffff, 0x00800000,
                                  0x7f7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001,
                                  0xffa00000, 0x3f800000 };
    switch (rng() % 4) {
    case 0: return e[rng() % (sizeof(e) / sizeof(e[0]))];
    case 1: return rng() & 0x807fffffu; /* subnormal */
    default: return rng();
    }
}

/* A double for the conversions to float and to integers and for rint: float ties, rint ties,
 * or values near the integer conversions' limits. Returns 0 to keep the kind's a. */
static inline int soft_f64_convert_operand(uint64_t *a)
{
    switch (rng() % 6) {
    case 0: { /* 25 significant bits ending in 1: a float tie, float-normal exponents up to
               * the overflow threshold, or float-subnormal ones */
        const uint64_t m = (rng() & 0xffffffu) | 0x1000000u | 1;
        const int e = (int)(rng() % 310) - 175 - 24;
        *a = scaled(m, e) ^ (uint64_t)(rng() & 1) << 63;
        return 1;
    }
    case 1: { /* k + 0.5: rint, floor and ceil ties */
        const uint64_t k = rng64() >> (12 + rng() % 52);
        *a = test_bits_of_double(((double)(2 * k + 1)) / 2.0) ^ (uint64_t)(rng() & 1) << 63;
        return 1;
    }
    case 2: /* the int32/int64 limits and their neighbours */
        *a = perturb(soft_f64_edges[32 + rng() % 11]);
        return 1;
    default:
        return 0;
    }
}

/* ldexp's exponent: any, or one that makes a subnormal (or just normal) result of a. */
static inline int32_t soft_f64_ldexp_operand(uint64_t a)
{
    const int e = (int)(a >> 52) & 0x7ff;
    if (rng() & 1) return (int32_t)(rng() % 4400) - 2200;
    return -e - (int32_t)(rng() % 56) + 2;
}

/** Case number `index` of a run (the kind is index % SOFT_F64_KINDS), from rng(). */
static inline void soft_f64_case(uint64_t index, SoftF64Case *k)
{
    const unsigned kind = (unsigned)(index % SOFT_F64_KINDS);
    uint64_t a = rng64(), b = rng64(), c = rng64();
    switch (kind) {
    case 0: /* any bits */
        break;
    case 1: /* near 1 */
        a = with_exp(0x3f0 + rng() % 32);
        b = with_exp(0x3f0 + rng() % 32);
        c = with_exp(0x3e0 + rng() % 64);
        break;
    case 2: /* any finite exponent, subnormals included */
        a = with_exp(rng() % 0x7ff);
        b = with_exp(rng() % 0x7ff);
        c = with_exp(rng() % 0x7ff);
        break;
    case 3: /* tiny and subnormal */
        a = with_exp(rng() % 64);
        b = with_exp(rng() & 1 ? rng() % 64 : 0x3c0 + rng() % 128);
        c = with_exp(rng() % 128);
        break;
    case 4: { /* huge; products and quotients at the overflow and underflow thresholds */
        const unsigned ea = 1 + rng() % 0x7fe;
        a = with_exp(ea);
        switch (rng() % 4) {
        case 0: b = with_exp(0x7fe - ea + 0x3ff + rng() % 5 - 2); break;   /* a b ~ 2^1024 */
        case 1: b = with_exp(0x3ff + 1 - ea + 0x3ff + rng() % 5 - 2); break; /* a b ~ 2^-1022 */
        case 2: b = with_exp(ea - 0x3ff - 0x3fe + rng() % 5); break;         /* a / b ~ 2^1024 */
        default: b = with_exp(ea + 0x3fe - rng() % 60); break;               /* a / b tiny */
        }
        c = with_exp(rng() & 1 ? 0x7f0 + rng() % 15 : rng() % 40);
        break;
    }
    case 5: /* edges, and their neighbours */
        a = soft_f64_edges[rng() % SOFT_F64_EDGES];
        b = soft_f64_edges[rng() % SOFT_F64_EDGES];
        c = soft_f64_edges[rng() % SOFT_F64_EDGES];
        if (rng() & 1) a = perturb(a);
        if (rng() & 1) b = perturb(b);
        break;
    case 6: { /* cancellations: b ~ a, c ~ -a b */
        a = with_exp(rng() % 0x7ff);
        b = (a + (rng() % 9) - 4) ^ (uint64_t)(rng() & 1) << 63;
        if (rng() & 1) b = a + (rng64() >> (rng() % 63 + 1)); /* closer or farther */
        const double p = test_double_of_bits(a) * test_double_of_bits(b);
        c = (test_bits_of_double(p) + (rng() % 5) - 2) ^ 0x8000000000000000ull;
        break;
    }
    case 7: { /* a + b an exact tie: b = m ulp(a) / 2, m odd */
        const unsigned ea = 54 + rng() % (0x7fe - 54);
        a = with_exp(ea);
        const uint64_t m = (rng() % 32) | 1;
        b = scaled(m, (int)ea - 1075 - 1) ^ (uint64_t)(rng() & 1) << 63;
        if (rng() & 1) { const uint64_t t = a; a = b; b = t; }
        c = with_exp(rng() % 0x7ff);
        break;
    }
    case 8: { /* a b an exact tie (54-bit odd products), normal or subnormal; fma's c keeps
               * or breaks it */
        const uint64_t ma = (rng() & 0x3ffffffu) | 0x4000000u | 1;
        const uint64_t mb = (rng() & 0x3ffffffu) | 0x4000000u | 1;
        int ka, kb;
        if (rng() & 1) { /* subnormal: the product's last bit at 2^-1075 */
            kb = -1 - (int)(rng() % 60);
            ka = -1075 - kb;
        } else {
            ka = (int)(rng() % 1800) - 900;
            kb = (int)(rng() % 200) - 100;
        }
        a = scaled(ma, ka) ^ (uint64_t)(rng() & 1) << 63;
        b = scaled(mb, kb) ^ (uint64_t)(rng() & 1) << 63;
        const int ulp = ka + kb + 1; /* the product's ulp when it has 54 bits */
        switch (rng() % 4) {
        case 0: c = 0; break;
        case 1: c = scaled(1 + rng() % 64, ulp); break;          /* keeps a tie */
        case 2: c = scaled(1, ulp - 60 - (int)(rng() % 100)); break; /* breaks it */
        default: c = scaled(1, ulp + 53 + (int)(rng() % 3)); break;  /* another binade */
        }
        c ^= (uint64_t)(rng() & 1) << 63;
        break;
    }
    case 9:
        if (rng() & 1) { /* k d 2^-1074 / (d 2^j): subnormal quotients k 2^-j, ties at j = 1 */
            const uint64_t d = (rng() % 8) * 2 + 1, kk = (rng() & 0xfffffu) | 1;
            a = (kk * d) ^ (uint64_t)(rng() & 1) << 63;
            b = scaled(d, 1 + (int)(rng() % 5)) ^ (uint64_t)(rng() & 1) << 63;
        } else { /* a / b within about 2^-53 ulp of a midpoint M 2^-54: a 2^54 = M b + r */
            uint64_t bi, m;
            int64_t r;
            do {
                bi = (rng64() >> 11) | 0x10000000000000ull | 1;
                r = ((int64_t)(rng() % 15) - 7) | 1;
                m = ((uint64_t)(-r) * inverse_mod_2_64(bi)) & ((1ull << 54) - 1);
            } while (m < (1ull << 53));
            const unsigned __int128 num = (unsigned __int128)m * bi + (unsigned __int128)r;
            const uint64_t ai = (uint64_t)(num >> 54);
            a = scaled(ai, (int)(rng() % 1600) - 800);
            b = scaled(bi, (int)(rng() % 200) - 100);
            a ^= (uint64_t)(rng() & 1) << 63;
        }
        c = with_exp(rng() % 0x7ff);
        break;
    case 10: { /* sqrt(a) within about 2^-54 ulp of a midpoint: M^2 = a 2^55 + r */
        uint64_t m, ai;
        do {
            const int64_t r = 1 + 8 * ((int64_t)(rng() % 5) - 2);
            m = sqrt_mod_pow2((uint64_t)r & ((1ull << 55) - 1), 55);
            if (m >= (1ull << 54)) m = (1ull << 55) - m;
            if (m < (1ull << 53)) m = (1ull << 54) - m; /* 54 bits, odd: a midpoint */
            const unsigned __int128 sq = (unsigned __int128)m * m - (unsigned __int128)r;
            ai = (uint64_t)(sq >> 55);
        } while (!ai);
        a = scaled(ai, 55 + 2 * ((int)(rng() % 1000) - 520)); /* sqrt: M 2^j */
        b = with_exp(rng() % 0x7ff) & 0x7fffffffffffffffull;
        break;
    }
    default: /* 11: the operands of the conversions in a, any b, c */
        a = with_exp(0x380 + rng() % 0x100);
        soft_f64_convert_operand(&a);
        break;
    }
    if (kind != 11 && rng() % 8 == 0) soft_f64_convert_operand(&a);
    k->a = a;
    k->b = b;
    k->c = c;
    k->i = soft_f64_int_operand();
    k->f = soft_f64_float_operand();
    k->n = soft_f64_ldexp_operand(a);
}

/** The host's hardware results, in soft_f64_apply's layout. */
static inline void soft_f64_reference(const SoftF64Case *k, uint64_t *out)
{
    const double a = test_double_of_bits(k->a), b = test_double_of_bits(k->b);
    const double c = test_double_of_bits(k->c);
    out[SOFT_F64_ADD] = test_bits_of_double(a + b);
    out[SOFT_F64_SUB] = test_bits_of_double(a - b);
    out[SOFT_F64_MUL] = test_bits_of_double(a * b);
    out[SOFT_F64_DIV] = test_bits_of_double(a / b);
    out[SOFT_F64_SQRT] = test_bits_of_double(sqrt(a));
    out[SOFT_F64_FMA] = test_bits_of_double(fma(a, b, c));
    out[SOFT_F64_NEG] = k->a ^ 0x8000000000000000ull; /* -a: the sign bit, as IEEE says */
    out[SOFT_F64_ABS] = k->a & 0x7fffffffffffffffull;
    out[SOFT_F64_EQ] = a == b;
    out[SOFT_F64_LT] = a < b;
    out[SOFT_F64_LE] = a <= b;
    out[SOFT_F64_FROM_I32] = test_bits_of_double((double)(int32_t)(uint32_t)k->i);
    out[SOFT_F64_FROM_U32] = test_bits_of_double((double)(uint32_t)k->i);
    out[SOFT_F64_FROM_I64] = test_bits_of_double((double)(int64_t)k->i);
    out[SOFT_F64_FROM_U64] = test_bits_of_double((double)k->i);
    out[SOFT_F64_FROM_F32] = test_bits_of_double((double)test_float_of_bits(k->f));
    out[SOFT_F64_TO_F32] = test_bits_of_float((float)a);
    const double t = trunc(a);
    out[SOFT_F64_TO_I32] = t >= -2147483648.0 && t <= 2147483647.0
                               ? (uint64_t)(int64_t)(int32_t)a : (uint64_t)(int64_t)INT32_MIN;
    out[SOFT_F64_TO_I64] = t >= -9223372036854775808.0 && t < 9223372036854775808.0
                               ? (uint64_t)(int64_t)a : (uint64_t)INT64_MIN;
    out[SOFT_F64_TRUNC] = test_bits_of_double(t);
    out[SOFT_F64_FLOOR] = test_bits_of_double(floor(a));
    out[SOFT_F64_CEIL] = test_bits_of_double(ceil(a));
    out[SOFT_F64_RINT] = test_bits_of_double(rint(a));
    out[SOFT_F64_LDEXP] = test_bits_of_double(ldexp(a, k->n));
    int e = 0;
    out[SOFT_F64_FREXP] = test_bits_of_double(frexp(a, &e));
    out[SOFT_F64_FREXP_EXP] = isfinite(a) ? (uint64_t)(int64_t)e : 0; /* unspecified: ours 0 */
    out[SOFT_F64_SQRT_B] = test_bits_of_double(sqrt(b));
    out[SOFT_F64_DIV_BA] = test_bits_of_double(b / a);
}

/** 0 when `got` passes for op against the hardware's `want`; 1 when it fails. *payload is
 * set when both are NaNs of different bits. */
static inline int soft_f64_differs(int op, uint64_t got, uint64_t want, int *payload)
{
    *payload = 0;
    if (op == SOFT_F64_TO_F32) {
        const uint32_t g = (uint32_t)got, w = (uint32_t)want;
        if ((w & 0x7fffffffu) > 0x7f800000u) {
            *payload = g != w;
            return !((g & 0x7fffffffu) > 0x7f800000u && (g & 0x00400000u)) || got >> 32;
        }
        return got != want;
    }
    const int is_double = op != SOFT_F64_EQ && op != SOFT_F64_LT && op != SOFT_F64_LE &&
                          op != SOFT_F64_TO_I32 && op != SOFT_F64_TO_I64 &&
                          op != SOFT_F64_FREXP_EXP && op != SOFT_F64_NEG && op != SOFT_F64_ABS;
    if (is_double && (want & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) {
        *payload = got != want;
        return !((got & 0x7fffffffffffffffull) > 0x7ff0000000000000ull &&
                 (got & 0x0008000000000000ull));
    }
    return got != want;
}

/** The host's rounding must be to nearest for the references to mean anything. */
static inline int soft_f64_host_rounds_to_nearest(void)
{
    return fegetround() == FE_TONEAREST;
}

#endif /* VMAF_TESTS_SOFT_F64_CASES_H */
