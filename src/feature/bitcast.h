/*
 * Twin VMAF — bit patterns of floats and doubles, the same on the host (memcpy), in CUDA
 * device code (the intrinsics) and in OpenCL C (as_type), for the headers shared by the CPU
 * extractors and the twins (xmath.h, exact_sum.h, seq_sum_device.h).
 */
#ifndef VMAF_FEATURE_BITCAST_H
#define VMAF_FEATURE_BITCAST_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stdint.h>
#include <string.h>
#endif

VMAF_DEVICE_FN uint32_t vmaf_bits_of_float(float f)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#elif VMAF_DIALECT_OPENCL
    return as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
#endif
}

VMAF_DEVICE_FN float vmaf_float_of_bits(uint32_t u)
{
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

/* the double casts: not where a program's doubles are the software binary64 (f64.h), whose
 * vmaf_dbits / vmaf_dof_bits are these there */
#if !(VMAF_DIALECT_OPENCL && defined(VMAF_OPENCL_SOFT_F64) && VMAF_OPENCL_SOFT_F64)
VMAF_DEVICE_FN uint64_t vmaf_bits_of_double(double d)
{
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(d);
#elif VMAF_DIALECT_OPENCL
    return as_ulong(d);
#else
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    return u;
#endif
}

VMAF_DEVICE_FN double vmaf_double_of_bits(uint64_t u)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)u);
#elif VMAF_DIALECT_OPENCL
    return as_double(u);
#else
    double d;
    memcpy(&d, &u, sizeof(d));
    return d;
#endif
}

#endif

#endif /* VMAF_FEATURE_BITCAST_H */
