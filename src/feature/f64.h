/*
 * Twin VMAF — one spelling for "a double value" in the shared per-element code that OpenCL
 * kernels compile, so that a twin computing in double gives the CPU's bits also on a device
 * without fp64. Include after dialect.h (it includes it).
 *
 *   C, CUDA, OpenCL with the device's double: vmaf_double is `double`, and each operation
 *        below is the plain operator in a function the compiler inlines (always, on the host:
 *        the CPU loops keep their code, bits and vectorization).
 *   OpenCL built with -D VMAF_OPENCL_SOFT_F64=1 (a device without cl_khr_fp64, or
 *        VMAF_OPENCL_FP64=0; opencl/division.h): vmaf_double is the software binary64
 *        vmaf_f64 (soft_f64.h), whose operations are the IEEE double ones bit for bit.
 *
 * The rule for converting a site, cheapest exact means first: where the values are integers
 * (or a fixed number of binary places) and every partial result is provably exact in double,
 * an integer form (both forms then give the same bits; no vmaf_double needed); where a
 * written proof shows an fp32 form equal, that; otherwise the site's double expression is
 * rewritten on these functions, one function per C operation and in the C order, the implicit
 * conversions made explicit (a float operand of a double operation: vmaf_dfrom_float; a
 * double narrowed to float: vmaf_dto_float). Nothing else may change: the C/CUDA form must
 * stay the same expression.
 *
 * Constants: VMAF_DCONST(literal, bits) is a double constant, the literal in C/CUDA/native
 * OpenCL and its bit pattern on the software double (where a literal would be narrowed to
 * float); VMAF_DCONST_INIT the same for initializers (tables). tests/core/f64_constants.sh
 * checks every such pair in src/ (the literal, as the C compiler reads it, has those bits).
 *
 * Host tests: -D VMAF_F64_SOFT_ON_HOST=1 makes vmaf_double the software binary64 in C too, so
 * that a converted header's per-element functions can be run both ways on the CPU and compared
 * bit for bit, without an OpenCL device (the library itself never defines it).
 *
 * A program (src/feature/opencl/<family>.cl) that is exact built so declares it with the
 * line `#define VMAF_OPENCL_FP64_FREE 1` before its includes; the build reads that line
 * into the program table and the backend builds only such programs where the device's double
 * is not used (the others' extractors run on the CPU there, with a message). In such a build
 * dialect.h makes the name `double` an error, and tests/opencl/fp64_free_programs.sh compiles
 * every declared program for a target without fp64 with warnings as errors (an unsuffixed
 * constant there would be single precision).
 */
#ifndef VMAF_FEATURE_F64_H
#define VMAF_FEATURE_F64_H

#include "dialect.h"
#include "bitcast.h"
#if !VMAF_DIALECT_OPENCL
#include <math.h>
#include <stdint.h>
#endif

#if (VMAF_DIALECT_OPENCL && defined(VMAF_OPENCL_SOFT_F64) && VMAF_OPENCL_SOFT_F64) || \
    (VMAF_DIALECT_C && defined(VMAF_F64_SOFT_ON_HOST) && VMAF_F64_SOFT_ON_HOST)
#define VMAF_DOUBLE_SOFT 1
#else
#define VMAF_DOUBLE_SOFT 0
#endif

#if VMAF_DOUBLE_SOFT

#include "soft_f64.h"

typedef vmaf_f64 vmaf_double;

#define vmaf_dadd vmaf_f64_add
#define vmaf_dsub vmaf_f64_sub
#define vmaf_dmul vmaf_f64_mul
#define vmaf_ddiv vmaf_f64_div
#define vmaf_dsqrt vmaf_f64_sqrt
#define vmaf_dneg vmaf_f64_neg
#define vmaf_dlt vmaf_f64_lt
#define vmaf_dle vmaf_f64_le
#define vmaf_deq vmaf_f64_eq
#define vmaf_dfrom_float vmaf_f64_from_float
#define vmaf_dto_float vmaf_f64_to_float
#define vmaf_dfrom_i32 vmaf_f64_from_i32
#define vmaf_dfrom_u32 vmaf_f64_from_u32
#define vmaf_dfrom_i64 vmaf_f64_from_i64
#define vmaf_dfrom_u64 vmaf_f64_from_u64
#define vmaf_dto_i32 vmaf_f64_to_i32
#define vmaf_dto_i64 vmaf_f64_to_i64
#define vmaf_dfma vmaf_f64_fma
#define vmaf_dabs vmaf_f64_abs
#define vmaf_disnan vmaf_f64_isnan
#define vmaf_drint vmaf_f64_rint
#define vmaf_dtrunc vmaf_f64_trunc
#define vmaf_dfloor vmaf_f64_floor
#define vmaf_dceil vmaf_f64_ceil
#define vmaf_dldexp vmaf_f64_ldexp
#define vmaf_dfrexp vmaf_f64_frexp
#define vmaf_dbits vmaf_f64_bits
#define vmaf_dof_bits vmaf_f64_from_bits
#define VMAF_DCONST(literal, bits) vmaf_f64_from_bits((uint64_t)(bits))
#define VMAF_DCONST_INIT(literal, bits) VMAF_F64_INIT(bits)

#else

#if VMAF_DIALECT_OPENCL
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

typedef double vmaf_double;

VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dadd(vmaf_double a, vmaf_double b) { return a + b; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dsub(vmaf_double a, vmaf_double b) { return a - b; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dmul(vmaf_double a, vmaf_double b) { return a * b; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_ddiv(vmaf_double a, vmaf_double b) { return a / b; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dsqrt(vmaf_double a) { return sqrt(a); }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dneg(vmaf_double a) { return -a; }
VMAF_DEVICE_FN_INLINE_HOST int vmaf_dlt(vmaf_double a, vmaf_double b) { return a < b; }
VMAF_DEVICE_FN_INLINE_HOST int vmaf_dle(vmaf_double a, vmaf_double b) { return a <= b; }
VMAF_DEVICE_FN_INLINE_HOST int vmaf_deq(vmaf_double a, vmaf_double b) { return a == b; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dfrom_float(float a) { return (double)a; }
VMAF_DEVICE_FN_INLINE_HOST float vmaf_dto_float(vmaf_double a) { return (float)a; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dfrom_i32(int32_t a) { return (double)a; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dfrom_u32(uint32_t a) { return (double)a; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dfrom_i64(int64_t a) { return (double)a; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dfrom_u64(uint64_t a) { return (double)a; }
VMAF_DEVICE_FN_INLINE_HOST int32_t vmaf_dto_i32(vmaf_double a) { return (int32_t)a; }
VMAF_DEVICE_FN_INLINE_HOST int64_t vmaf_dto_i64(vmaf_double a) { return (int64_t)a; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dfma(vmaf_double a, vmaf_double b, vmaf_double c)
{
    return fma(a, b, c);
}
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dabs(vmaf_double a) { return fabs(a); }
VMAF_DEVICE_FN_INLINE_HOST int vmaf_disnan(vmaf_double a) { return a != a; }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_drint(vmaf_double a) { return rint(a); }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dtrunc(vmaf_double a) { return trunc(a); }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dfloor(vmaf_double a) { return floor(a); }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dceil(vmaf_double a) { return ceil(a); }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dldexp(vmaf_double a, int n) { return ldexp(a, n); }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dfrexp(vmaf_double a, int *e) { return frexp(a, e); }
/* the bit pattern of a double and back (bitcast.h's casts) */
VMAF_DEVICE_FN_INLINE_HOST uint64_t vmaf_dbits(vmaf_double a) { return vmaf_bits_of_double(a); }
VMAF_DEVICE_FN_INLINE_HOST vmaf_double vmaf_dof_bits(uint64_t u) { return vmaf_double_of_bits(u); }
#define VMAF_DCONST(literal, bits) ((double)(literal))
#define VMAF_DCONST_INIT(literal, bits) (literal)

#endif

#endif /* VMAF_FEATURE_F64_H */
