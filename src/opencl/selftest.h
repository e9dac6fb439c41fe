/* The runtime's self-test program (selftest.cl): proves that embedded source builds, is cached
 * and runs, and gives the device's division, sqrt and unfused a*b+c for comparison with C. */
#ifndef VMAF_OPENCL_SELFTEST_H
#define VMAF_OPENCL_SELFTEST_H

#include <stddef.h>

#include "opencl/state.h"

extern const VmafOpenCLSource vmaf_opencl_selftest_source;

/**
 * For i < n: quotient[i] = a[i] / b[i], root[i] = sqrt(a[i]), mad[i] = a[i] * b[i] + c[i] on
 * the device, in float (fp64 == 0) or double (fp64 == 1; -ENOTSUP where the device has none).
 * Blocks until the results are back.
 */
int vmaf_opencl_selftest(VmafOpenCLState *s, int fp64, const void *a, const void *b,
                         const void *c, void *quotient, void *root, void *mad, size_t n);

#endif /* VMAF_OPENCL_SELFTEST_H */
