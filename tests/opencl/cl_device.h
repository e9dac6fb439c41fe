/* The OpenCL tests' device choice: the first device whose platform name contains a given
 * string (PoCL's "Portable Computing Language", Intel's "Intel(R) OpenCL"). */
#ifndef VMAF_TESTS_OPENCL_DEVICE_H
#define VMAF_TESTS_OPENCL_DEVICE_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libvmaf/libvmaf_opencl.h"

/* The device's index, or -1 (with a SKIP line) when there is none. */
static int test_opencl_device(const char *platform, VmafOpenCLDeviceInfo *info)
{
    int count = 0;
    const int err = vmaf_opencl_device_count(&count);
    if (err == -ENOSYS) {
        printf("SKIP: built without the OpenCL headers (CL/cl.h)\n");
        return -1;
    }
    for (int i = 0; !err && i < count; i++)
        if (!vmaf_opencl_device_info(i, info) && strstr(info->platform, platform)) return i;
    printf("SKIP: no OpenCL device on a platform named like \"%s\" (%s; %d device%s)\n",
           platform, err ? "no ICD loader" : "loader found", count, count == 1 ? "" : "s");
    return -1;
}

#endif /* VMAF_TESTS_OPENCL_DEVICE_H */
