/*
 * Twin VMAF — integer ADM: how the stage kernels are compiled (internal to adm*.c).
 *
 * Each kernel is written once as an always-inline body in plain C and compiled twice: for the
 * baseline ISA and, on x86-64 with GCC or Clang, for AVX2, chosen at run time. The integer
 * results are the same by construction; the floating-point parts use neither FMA (the AVX2
 * target does not enable it, and -ffp-contract=off forbids contraction) nor reassociation,
 * so they are the same too.
 */
#ifndef VMAF_FEATURE_ADM_SIMD_H
#define VMAF_FEATURE_ADM_SIMD_H

#if defined(__GNUC__)
#define ADM_INLINE static inline __attribute__((always_inline))
#else
#define ADM_INLINE static inline
#endif

/* GCC at -O2 vectorizes only loops whose trip count is a known multiple of the vector width
 * ("very cheap" cost model); the kernels ask for its full cost model, as at -O3. */
#if defined(__GNUC__) && !defined(__clang__)
#define ADM_VECTORIZE __attribute__((optimize("vect-cost-model=dynamic")))
#else
#define ADM_VECTORIZE
#endif

#if defined(__GNUC__) && defined(__x86_64__) && !defined(VMAF_ADM_NO_AVX2)
#define ADM_TARGET_AVX2 __attribute__((target("avx2")))
/* Hand-written AVX2 kernels (the *_simd entry points in adm.h) are compiled. */
#define ADM_HAVE_HAND 1
#include <immintrin.h>

static inline int adm_use_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}

/* Public `void NAME PARAMS` running NAME##_impl ARGS in the best build for the CPU. */
#define ADM_DISPATCH_VOID(NAME, PARAMS, ARGS)                                            \
    ADM_VECTORIZE static void NAME##_plain PARAMS { NAME##_impl ARGS; }                  \
    ADM_VECTORIZE ADM_TARGET_AVX2 static void NAME##_avx2 PARAMS { NAME##_impl ARGS; }   \
    void NAME PARAMS                                                                     \
    {                                                                                    \
        if (adm_use_avx2())                                                              \
            NAME##_avx2 ARGS;                                                            \
        else                                                                             \
            NAME##_plain ARGS;                                                           \
    }

/* The same for a function returning RET. */
#define ADM_DISPATCH(RET, NAME, PARAMS, ARGS)                                            \
    ADM_VECTORIZE static RET NAME##_plain PARAMS { return NAME##_impl ARGS; }            \
    ADM_VECTORIZE ADM_TARGET_AVX2 static RET NAME##_avx2 PARAMS                          \
    {                                                                                    \
        return NAME##_impl ARGS;                                                         \
    }                                                                                    \
    RET NAME PARAMS                                                                      \
    {                                                                                    \
        return adm_use_avx2() ? NAME##_avx2 ARGS : NAME##_plain ARGS;                    \
    }
#else
#define ADM_HAVE_HAND 0
#define ADM_DISPATCH_VOID(NAME, PARAMS, ARGS)                                            \
    ADM_VECTORIZE void NAME PARAMS { NAME##_impl ARGS; }
#define ADM_DISPATCH(RET, NAME, PARAMS, ARGS)                                            \
    ADM_VECTORIZE RET NAME PARAMS { return NAME##_impl ARGS; }
#endif

#endif /* VMAF_FEATURE_ADM_SIMD_H */
