/*
 * Every operation of feature/soft_f64.h on one operand record, in C (test_soft_f64) and as
 * OpenCL C (test_opencl_soft_f64 builds it into its program): the same code on both sides.
 */
#ifndef VMAF_TESTS_SOFT_F64_OPS_H
#define VMAF_TESTS_SOFT_F64_OPS_H

#include "feature/soft_f64.h"

/** The operands: doubles a, b, c (bit patterns), an integer i, a float f (bits), an
 * exponent n. The layout is the same in C and OpenCL C (40 bytes). */
typedef struct SoftF64Case {
    uint64_t a, b, c, i;
    uint32_t f;
    int32_t n;
} SoftF64Case;

enum {
    SOFT_F64_ADD, SOFT_F64_SUB, SOFT_F64_MUL, SOFT_F64_DIV, SOFT_F64_SQRT, SOFT_F64_FMA,
    SOFT_F64_NEG, SOFT_F64_ABS, SOFT_F64_EQ, SOFT_F64_LT, SOFT_F64_LE,
    SOFT_F64_FROM_I32, SOFT_F64_FROM_U32, SOFT_F64_FROM_I64, SOFT_F64_FROM_U64,
    SOFT_F64_FROM_F32, SOFT_F64_TO_F32, SOFT_F64_TO_I32, SOFT_F64_TO_I64,
    SOFT_F64_TRUNC, SOFT_F64_FLOOR, SOFT_F64_CEIL, SOFT_F64_RINT, SOFT_F64_LDEXP,
    SOFT_F64_FREXP, SOFT_F64_FREXP_EXP, SOFT_F64_SQRT_B, SOFT_F64_DIV_BA,
    SOFT_F64_OPS
};

/** out[op] for every op: a result as its bit pattern (a float's in the low 32 bits, an
 * integer's two's complement, a comparison's 0 or 1). */
VMAF_DEVICE_FN void soft_f64_apply(SoftF64Case k, uint64_t *out)
{
    const vmaf_f64 a = vmaf_f64_from_bits(k.a), b = vmaf_f64_from_bits(k.b),
                   c = vmaf_f64_from_bits(k.c);
    out[SOFT_F64_ADD] = vmaf_f64_add(a, b).bits;
    out[SOFT_F64_SUB] = vmaf_f64_sub(a, b).bits;
    out[SOFT_F64_MUL] = vmaf_f64_mul(a, b).bits;
    out[SOFT_F64_DIV] = vmaf_f64_div(a, b).bits;
    out[SOFT_F64_SQRT] = vmaf_f64_sqrt(a).bits;
    out[SOFT_F64_FMA] = vmaf_f64_fma(a, b, c).bits;
    out[SOFT_F64_NEG] = vmaf_f64_neg(a).bits;
    out[SOFT_F64_ABS] = vmaf_f64_abs(a).bits;
    out[SOFT_F64_EQ] = (uint64_t)vmaf_f64_eq(a, b);
    out[SOFT_F64_LT] = (uint64_t)vmaf_f64_lt(a, b);
    out[SOFT_F64_LE] = (uint64_t)vmaf_f64_le(a, b);
    out[SOFT_F64_FROM_I32] = vmaf_f64_from_i32((int32_t)(uint32_t)k.i).bits;
    out[SOFT_F64_FROM_U32] = vmaf_f64_from_u32((uint32_t)k.i).bits;
    out[SOFT_F64_FROM_I64] = vmaf_f64_from_i64((int64_t)k.i).bits;
    out[SOFT_F64_FROM_U64] = vmaf_f64_from_u64(k.i).bits;
    out[SOFT_F64_FROM_F32] = vmaf_f64_from_f32_bits(k.f).bits;
    out[SOFT_F64_TO_F32] = vmaf_f64_to_f32_bits(a);
    out[SOFT_F64_TO_I32] = (uint64_t)(int64_t)vmaf_f64_to_i32(a);
    out[SOFT_F64_TO_I64] = (uint64_t)vmaf_f64_to_i64(a);
    out[SOFT_F64_TRUNC] = vmaf_f64_trunc(a).bits;
    out[SOFT_F64_FLOOR] = vmaf_f64_floor(a).bits;
    out[SOFT_F64_CEIL] = vmaf_f64_ceil(a).bits;
    out[SOFT_F64_RINT] = vmaf_f64_rint(a).bits;
    out[SOFT_F64_LDEXP] = vmaf_f64_ldexp(a, k.n).bits;
    int e = 0;
    out[SOFT_F64_FREXP] = vmaf_f64_frexp(a, &e).bits;
    out[SOFT_F64_FREXP_EXP] = (uint64_t)(int64_t)e;
    out[SOFT_F64_SQRT_B] = vmaf_f64_sqrt(b).bits;
    out[SOFT_F64_DIV_BA] = vmaf_f64_div(b, a).bits;
}

#endif /* VMAF_TESTS_SOFT_F64_OPS_H */
