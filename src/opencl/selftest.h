/* The runtime's self-test program (selftest.cl): proves that embedded source builds, is cached
 * and runs, and gives the device's division, sqrt and unfused a*b+c for comparison with C. */
#ifndef VMAF_OPENCL_SELFTEST_H
#define VMAF_OPENCL_SELFTEST_H

#include <stddef.h>

#include "opencl/state.h"

extern const VmafOpenCLSource vmaf_opencl_selftest_source;

enum {
    VMAF_OPENCL_SELFTEST_FLOAT = 0,  /**< float: the device's own `/` and sqrt */
    VMAF_OPENCL_SELFTEST_DOUBLE = 1, /**< double (-ENOTSUP where the device has none) */
    VMAF_OPENCL_SELFTEST_FDIV = 2,   /**< float through vmaf_fdiv / vmaf_fsqrt (dialect.h) */
};

/**
 * For i < n: quotient[i] = a[i] / b[i], root[i] = sqrt(a[i]), mad[i] = a[i] * b[i] + c[i] on
 * the device, computed as `kind` says (VMAF_OPENCL_SELFTEST_*), with the state's build
 * options. Blocks until the results are back.
 */
int vmaf_opencl_selftest(VmafOpenCLState *s, int kind, const void *a, const void *b,
                         const void *c, void *quotient, void *root, void *mad, size_t n);

#endif /* VMAF_OPENCL_SELFTEST_H */
