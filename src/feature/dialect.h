/*
 * Twin VMAF — the one place that knows which language a shared header is being compiled as.
 *
 * The per-element arithmetic of every extractor is written once, in headers under
 * src/feature/, and compiled as three dialects:
 *   - C11 (and C++ in tests/twins/test_device_lang.cc): the CPU extractors and the host tests
 *     that replay a twin's kernels in their order;
 *   - CUDA C++ (nvcc, __CUDACC__): the CUDA twins' kernels, and the host side of those .cu files;
 *   - OpenCL C (__OPENCL_C_VERSION__ or __OPENCL_VERSION__): reserved for an OpenCL backend.
 * Those headers test the VMAF_DIALECT_* macros below instead of the compilers' own, and qualify
 * their functions with the VMAF_DEVICE_FN* macros, so that a new dialect is added here only.
 * Code that is truly one dialect's (CUDA intrinsics under __CUDA_ARCH__, kernels in .cu/.cuh)
 * stays where it is.
 */
#ifndef VMAF_FEATURE_DIALECT_H
#define VMAF_FEATURE_DIALECT_H

/* Exactly one of these is 1. VMAF_DIALECT_C also guards what only the host C build has
 * (extractor states, feature_extractor.h, <stdio.h>, plans that allocate). OpenCL C is
 * recognised by either macro: runtime compilers define both, clang (-x cl) only the first. */
#if defined(__OPENCL_C_VERSION__) || defined(__OPENCL_VERSION__)
#define VMAF_DIALECT_C 0
#define VMAF_DIALECT_CUDA 0
#define VMAF_DIALECT_OPENCL 1
#elif defined(__CUDACC__)
#define VMAF_DIALECT_C 0
#define VMAF_DIALECT_CUDA 1
#define VMAF_DIALECT_OPENCL 0
#else
#define VMAF_DIALECT_C 1
#define VMAF_DIALECT_CUDA 0
#define VMAF_DIALECT_OPENCL 0
#endif

/*
 * What OpenCL C lacks of the C headers the shared headers use: a runtime compiler has no
 * <stdint.h>, <stddef.h>, <stdbool.h>, <string.h>, <math.h> or <errno.h>, so the shared
 * headers include those only outside OpenCL, and OpenCL C gets the names here. Its own types
 * have the fixed widths (char 8, short 16, int 32, long 64 bits); size_t, ptrdiff_t, intptr_t,
 * bool, true, false and the <limits.h> macros are built in. The errno values (those the
 * shared functions return) are Linux's, the host build's.
 */
#if VMAF_DIALECT_OPENCL
typedef char int8_t;
typedef uchar uint8_t;
typedef short int16_t;
typedef ushort uint16_t;
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;
#define INT64_C(x) (x##L)
#define UINT64_C(x) (x##UL)
#define UINT32_C(x) (x##U)
#define EINVAL 22
#endif

/* memcpy and memset, which OpenCL C lacks, on private memory (where the shared headers use
 * them: bit casts of locals, clearing a local struct): byte loops the compiler folds. */
#if VMAF_DIALECT_OPENCL
static inline void vmaf_private_memcpy(void *dst, const void *src, size_t n)
{
    uchar *d = (uchar *)dst;
    const uchar *s = (const uchar *)src;
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
}
static inline void vmaf_private_memset(void *dst, int c, size_t n)
{
    uchar *d = (uchar *)dst;
    for (size_t i = 0; i < n; i++)
        d[i] = (uchar)c;
}
#define memcpy vmaf_private_memcpy
#define memset vmaf_private_memset
#endif

/* fabsf: C's and CUDA's spelling; OpenCL C's fabs is overloaded for float, and has no fabsf.
 * The same function: |x| for a float, exact. */
#if VMAF_DIALECT_OPENCL
#define vmaf_fabsf(x) fabs((float)(x))
#else
#define vmaf_fabsf(x) fabsf(x)
#endif

/*
 * Float division and square root, correctly rounded in every dialect: every float `/` (and
 * `/=`) and every square root of a float in code an OpenCL kernel compiles (the shared headers
 * and src/feature/opencl/) is written vmaf_fdiv(a, b) / vmaf_fsqrt(x); double ones stay `/`
 * and sqrt (OpenCL's fp64 division and sqrt are correctly rounded by the specification).
 *
 *   C, CUDA: exactly a / b and sqrtf(x), the IEEE operations (nvcc's default -prec-div and
 *            -prec-sqrt; no fast math anywhere).
 *   OpenCL:  `/` and sqrt on a float, which OpenCL promises correctly rounded only when the
 *            program is built with -cl-fp32-correctly-rounded-divide-sqrt (the state does so
 *            where the device reports CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT); otherwise 2.5 and
 *            3 ulp. On a device without it but with fp64 and fp32 denormals, the state builds
 *            with -D VMAF_OPENCL_DIV_VIA_DOUBLE=1 and both are evaluated in double:
 *            (float)((double)a / (double)b) and (float)sqrt((double)x).
 *
 * Why the double form is the correctly rounded float result: the operands are floats (p = 24
 * bits), exact in double (q = 53 bits), and the quotient or root of floats lies far inside
 * double's normal range (|a / b| within [2^-277, 2^277]), so the double result is the exact
 * one correctly rounded to 53 bits. Rounding that again to float gives the exact value
 * correctly rounded to float whenever q >= 2p + 2 (Figueroa, "When is double rounding
 * innocuous?", SIGNUM Newsletter 1995: for +, -, *, / and sqrt of p-bit operands, both
 * roundings to nearest): such an exact result that is not itself a float midpoint lies too
 * far from every midpoint for the 53-bit rounding to reach or cross one. A float subnormal
 * result is a rounding to fewer than p bits, where the theorem holds a fortiori; the overflow
 * threshold (FLT_MAX + half an ulp) is such a midpoint too. Conditions:
 * round to nearest even in both roundings (OpenCL's default, and its only rounding for a
 * double-to-float conversion without a _rt* suffix), and float subnormals kept, neither
 * flushed on the way in nor out (the device reports CL_FP_DENORM and the program is never
 * built with -cl-denorms-are-zero or relaxed math). Infinities, NaN, zero signs and division
 * by zero go through the double operations unchanged. tests/opencl/test_opencl_arith.c checks
 * both forms against C on millions of operands; tests/opencl/fdiv_sites.sh (clang's AST of
 * every kernel program and shared header) that no float `/` or sqrt is written otherwise.
 *
 * The operands are converted to float first, as the usual arithmetic conversions of a float
 * division do (an int operand too); vmaf_fdiv of constants is a constant expression in every
 * dialect, so it also serves in a table's initializer.
 */
#if VMAF_DIALECT_OPENCL && defined(VMAF_OPENCL_DIV_VIA_DOUBLE) && VMAF_OPENCL_DIV_VIA_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define vmaf_fdiv(a, b) ((float)((double)(float)(a) / (double)(float)(b)))
#define vmaf_fsqrt(x) ((float)sqrt((double)(float)(x)))
#elif VMAF_DIALECT_OPENCL && defined(VMAF_OPENCL_DIV_VIA_SOFT_F64) && VMAF_OPENCL_DIV_VIA_SOFT_F64
/* the same double rounding on the software binary64 (soft_f64.h, included at the end of this
 * file): its division and square root are correctly rounded binary64 operations, so the
 * argument above holds unchanged, and it needs neither fp64 nor fp32 denormals (the operands'
 * bits are read and the result's bits written as integers) */
#define vmaf_fdiv(a, b) \
    vmaf_f64_to_float(vmaf_f64_div(vmaf_f64_from_float((float)(a)), vmaf_f64_from_float((float)(b))))
#define vmaf_fsqrt(x) vmaf_f64_to_float(vmaf_f64_sqrt(vmaf_f64_from_float((float)(x))))
#elif VMAF_DIALECT_OPENCL
#define vmaf_fdiv(a, b) ((float)(a) / (float)(b))
#define vmaf_fsqrt(x) sqrt((float)(x))
#else
#define vmaf_fdiv(a, b) ((a) / (b))
#define vmaf_fsqrt(x) sqrtf(x)
#endif

/*
 * Function qualifiers of the shared per-element functions (callable from the host and from
 * device code):
 *   VMAF_DEVICE_FN              the default: inlined at the compilers' discretion;
 *   VMAF_DEVICE_FN_INLINE_DEVICE  always inlined in CUDA device code: the twins' per-thread
 *                               phases (vif_device.h, cambi_device.h), whose local arrays must
 *                               stay in registers; plain inline on the host;
 *   VMAF_DEVICE_FN_INLINE_HOST  always inlined by the host C compiler: the CPU loops that call
 *                               them vectorize only once they are inlined (exact_sum.h,
 *                               psnr_hvs.h); plain inline under nvcc, as before.
 * OpenCL C (1.2 and later) has no host side: all three are `static inline`.
 */
#if VMAF_DIALECT_CUDA
#define VMAF_DEVICE_FN static inline __host__ __device__
#define VMAF_DEVICE_FN_INLINE_DEVICE static __forceinline__ __host__ __device__
#define VMAF_DEVICE_FN_INLINE_HOST static inline __host__ __device__
#elif VMAF_DIALECT_OPENCL
#define VMAF_DEVICE_FN static inline
#define VMAF_DEVICE_FN_INLINE_DEVICE static inline
#define VMAF_DEVICE_FN_INLINE_HOST static inline
#else
#define VMAF_DEVICE_FN static inline
#define VMAF_DEVICE_FN_INLINE_DEVICE static inline
#if defined(__GNUC__)
#define VMAF_DEVICE_FN_INLINE_HOST static inline __attribute__((always_inline))
#else
#define VMAF_DEVICE_FN_INLINE_HOST static inline
#endif
#endif

/* Unroll the loop that follows completely (its trip count is a compile-time constant); a
 * hint, never needed for the result. The host C build leaves the choice to the compiler. */
#if VMAF_DIALECT_CUDA || VMAF_DIALECT_OPENCL
#define VMAF_UNROLL _Pragma("unroll")
#else
#define VMAF_UNROLL
#endif

/* The address space of a pointer to device-global memory (an image, a sum buffer): OpenCL C
 * must name it; CUDA and C have one flat address space. */
#if VMAF_DIALECT_OPENCL
#define VMAF_GLOBAL __global
#else
#define VMAF_GLOBAL
#endif

/* A table at program scope in a shared header: OpenCL C puts every program-scope variable in
 * the __constant address space; in C and CUDA (where these are the host's tables) nothing. */
#if VMAF_DIALECT_OPENCL
#define VMAF_CONSTANT __constant
#else
#define VMAF_CONSTANT
#endif

/* A device address as kernel arguments carry it: a 64-bit integer, the same layout for the
 * host glue that fills the arguments and for the kernels that read them. */
#if VMAF_DIALECT_OPENCL
typedef ulong vmaf_devptr;
typedef ulong vmaf_u64;
#else
typedef unsigned long long vmaf_devptr;
typedef unsigned long long vmaf_u64; /* a 64-bit argument field (OpenCL C has no long long) */
#endif

/*
 * OpenCL programs built for a device whose double is not used (-D VMAF_OPENCL_SOFT_F64=1: a
 * device without cl_khr_fp64, or VMAF_OPENCL_FP64=0) compute their doubles in the software
 * binary64 (f64.h), and must name no `double`: the name is made an error here, so that a
 * forced run on a device with fp64 cannot pass with a double left in a kernel. The programs
 * that have such a form say so (VMAF_OPENCL_FP64_FREE, see f64.h); the others are not built
 * there.
 */
#if VMAF_DIALECT_OPENCL && ((defined(VMAF_OPENCL_DIV_VIA_SOFT_F64) && VMAF_OPENCL_DIV_VIA_SOFT_F64) \
                            || (defined(VMAF_OPENCL_SOFT_F64) && VMAF_OPENCL_SOFT_F64))
#include "soft_f64.h"
#endif
#if VMAF_DIALECT_OPENCL && defined(VMAF_OPENCL_SOFT_F64) && VMAF_OPENCL_SOFT_F64
#define double vmaf_double_is_not_available_without_fp64
#endif

#endif /* VMAF_FEATURE_DIALECT_H */
