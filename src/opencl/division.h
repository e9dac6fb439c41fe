/*
 * How the OpenCL programs get exact fp32 division and square root on a device (see
 * vmaf_fdiv / vmaf_fsqrt in feature/dialect.h), and whether they compute in the device's
 * double or in the software binary64 (feature/f64.h): the rules the state builds with, the
 * backend decides by and --opencl_list shows. Only the public device description, so that
 * the CLI includes it with or without the OpenCL headers.
 */
#ifndef VMAF_OPENCL_DIVISION_H
#define VMAF_OPENCL_DIVISION_H

#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf_opencl.h"

/**
 * Whether the programs on this device compute in its double (cl_khr_fp64): where it has
 * fp64, unless the environment says VMAF_OPENCL_FP64=0, which forces the fp64-free forms on
 * any device (to test them, or to measure their cost). Read when a state is made (and by
 * --opencl_list); the state keeps the answer.
 */
static inline int vmaf_opencl_uses_fp64(const VmafOpenCLDeviceInfo *info)
{
    const char *env = getenv("VMAF_OPENCL_FP64");
    return info->fp64 && !(env && !strcmp(env, "0"));
}

enum VmafOpenCLDivision {
    /** the device's own, built with -cl-fp32-correctly-rounded-divide-sqrt */
    VMAF_OPENCL_DIVISION_DEVICE,
    /** in double, rounded once to float: exact given fp64 and fp32 denormals (built with
     *  -D VMAF_OPENCL_DIV_VIA_DOUBLE=1) */
    VMAF_OPENCL_DIVISION_VIA_DOUBLE,
    /** in the software binary64 (feature/soft_f64.h), rounded once to float: exact on every
     *  device, the slowest (built with -D VMAF_OPENCL_DIV_VIA_SOFT_F64=1) */
    VMAF_OPENCL_DIVISION_VIA_SOFT_F64,
};

/** fp64: vmaf_opencl_uses_fp64() of the device (0: its double is not used). */
static inline enum VmafOpenCLDivision vmaf_opencl_division(const VmafOpenCLDeviceInfo *info,
                                                           int fp64)
{
    if (info->correctly_rounded_divide_sqrt) return VMAF_OPENCL_DIVISION_DEVICE;
    if (fp64 && info->fp64 && info->fp32_denormals) return VMAF_OPENCL_DIVISION_VIA_DOUBLE;
    return VMAF_OPENCL_DIVISION_VIA_SOFT_F64;
}

static inline const char *vmaf_opencl_division_name(enum VmafOpenCLDivision division)
{
    switch (division) {
    case VMAF_OPENCL_DIVISION_DEVICE: return "correctly rounded (device)";
    case VMAF_OPENCL_DIVISION_VIA_DOUBLE: return "via double (exact)";
    default: return "via software double (exact)";
    }
}

/** The build options of every program on a device with that division. */
static inline const char *vmaf_opencl_division_options(enum VmafOpenCLDivision division)
{
    switch (division) {
    case VMAF_OPENCL_DIVISION_DEVICE: return "-cl-fp32-correctly-rounded-divide-sqrt";
    case VMAF_OPENCL_DIVISION_VIA_DOUBLE: return "-D VMAF_OPENCL_DIV_VIA_DOUBLE=1";
    default: return "-D VMAF_OPENCL_DIV_VIA_SOFT_F64=1";
    }
}

/**
 * Added to every program's options where the device's double is not used: the programs
 * compute their doubles in the software binary64 (feature/f64.h), and unsuffixed floating
 * constants are single precision, as a compiler for a device without fp64 makes them (so
 * that a forced run on a device with fp64 builds what such a device would).
 */
#define VMAF_OPENCL_SOFT_F64_OPTIONS "-D VMAF_OPENCL_SOFT_F64=1 -cl-single-precision-constant"

#endif /* VMAF_OPENCL_DIVISION_H */
