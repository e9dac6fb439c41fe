#pragma OPENCL FP_CONTRACT OFF
/*
 * The runtime's self-test: division, square root and an unfused a*b+c, element by element,
 * for comparison with the host's C on the same operands (tests/opencl/test_opencl_arith.c).
 * With FP_CONTRACT OFF, a*b+c is two roundings, as the host's -ffp-contract=off.
 * selftest_f32 uses the device's own float `/` and sqrt; selftest_fdiv the kernels' spelling,
 * vmaf_fdiv and vmaf_fsqrt, which must be exact under every option the state builds with.
 */
#include "feature/dialect.h"

__kernel void selftest_f32(__global const float *a, __global const float *b,
                           __global const float *c, __global float *quotient,
                           __global float *root, __global float *mad, uint n)
{
    const size_t i = get_global_id(0);
    if (i >= n) return;
    quotient[i] = a[i] / b[i];
    root[i] = sqrt(a[i]);
    mad[i] = a[i] * b[i] + c[i];
}

__kernel void selftest_fdiv(__global const float *a, __global const float *b,
                            __global const float *c, __global float *quotient,
                            __global float *root, __global float *mad, uint n)
{
    const size_t i = get_global_id(0);
    if (i >= n) return;
    quotient[i] = vmaf_fdiv(a[i], b[i]);
    root[i] = vmaf_fsqrt(a[i]);
    mad[i] = a[i] * b[i] + c[i];
}

/* the device's double, unless the state builds without it (feature/dialect.h) */
#if defined(cl_khr_fp64) && !(defined(VMAF_OPENCL_SOFT_F64) && VMAF_OPENCL_SOFT_F64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void selftest_f64(__global const double *a, __global const double *b,
                           __global const double *c, __global double *quotient,
                           __global double *root, __global double *mad, uint n)
{
    const size_t i = get_global_id(0);
    if (i >= n) return;
    quotient[i] = a[i] / b[i];
    root[i] = sqrt(a[i]);
    mad[i] = a[i] * b[i] + c[i];
}
#endif
