/*
 * How the OpenCL programs get exact fp32 division and square root on a device (see
 * vmaf_fdiv / vmaf_fsqrt in feature/dialect.h): the rule the state builds with, the backend
 * decides by and --opencl_list shows. Only the public device description, so that the CLI
 * includes it with or without the OpenCL headers.
 */
#ifndef VMAF_OPENCL_DIVISION_H
#define VMAF_OPENCL_DIVISION_H

#include "libvmaf/libvmaf_opencl.h"

enum VmafOpenCLDivision {
    /** the device's own, built with -cl-fp32-correctly-rounded-divide-sqrt */
    VMAF_OPENCL_DIVISION_DEVICE,
    /** in double, rounded once to float: exact given fp64 and fp32 denormals (built with
     *  -D VMAF_OPENCL_DIV_VIA_DOUBLE=1) */
    VMAF_OPENCL_DIVISION_VIA_DOUBLE,
    /** neither: OpenCL only promises 2.5 ulp (division) and 3 ulp (sqrt); no twin runs */
    VMAF_OPENCL_DIVISION_INEXACT,
};

static inline enum VmafOpenCLDivision vmaf_opencl_division(const VmafOpenCLDeviceInfo *info)
{
    if (info->correctly_rounded_divide_sqrt) return VMAF_OPENCL_DIVISION_DEVICE;
    if (info->fp64 && info->fp32_denormals) return VMAF_OPENCL_DIVISION_VIA_DOUBLE;
    return VMAF_OPENCL_DIVISION_INEXACT;
}

static inline const char *vmaf_opencl_division_name(enum VmafOpenCLDivision division)
{
    switch (division) {
    case VMAF_OPENCL_DIVISION_DEVICE: return "correctly rounded (device)";
    case VMAF_OPENCL_DIVISION_VIA_DOUBLE: return "via double (exact)";
    default: return "not exact: twins run on the CPU";
    }
}

/** The build options of every program on a device with that division. */
static inline const char *vmaf_opencl_division_options(enum VmafOpenCLDivision division)
{
    switch (division) {
    case VMAF_OPENCL_DIVISION_DEVICE: return "-cl-fp32-correctly-rounded-divide-sqrt";
    case VMAF_OPENCL_DIVISION_VIA_DOUBLE: return "-D VMAF_OPENCL_DIV_VIA_DOUBLE=1";
    default: return "";
    }
}

#endif /* VMAF_OPENCL_DIVISION_H */
