/* vmaf --opencl_list: one line per OpenCL device, as the library numbers them. */
#include <errno.h>
#include <stdio.h>

#include "libvmaf/libvmaf_opencl.h"

#include "cli_run.h"
#include "log.h"
#include "opencl/describe.h"
#include "opencl/division.h"

static const char *type_name(enum VmafOpenCLDeviceType type)
{
    switch (type) {
    case VMAF_OPENCL_DEVICE_GPU: return "gpu";
    case VMAF_OPENCL_DEVICE_CPU: return "cpu";
    case VMAF_OPENCL_DEVICE_ACCELERATOR: return "accelerator";
    default: return "other";
    }
}

int cli_opencl_list(FILE *out, FILE *msg)
{
    int count = 0;
    /* the one line below says why; the library's own message would be a second */
    const enum VmafLogLevel level = vmaf_log_thread_level();
    vmaf_log_set_thread_level(VMAF_LOG_LEVEL_NONE);
    int err = vmaf_opencl_device_count(&count);
    vmaf_log_set_thread_level(level);
    if (err == -ENOSYS) {
        fprintf(msg, "no OpenCL: this vmaf was built without the OpenCL headers (CL/cl.h)\n");
        return EXIT_SETUP;
    }
    if (err == -ENODEV) {
        fprintf(msg, "no OpenCL: the OpenCL ICD loader (libOpenCL.so.1) could not be loaded\n");
        return EXIT_SETUP;
    }
    if (err) {
        fprintf(msg, "no OpenCL: the ICD loader failed to list platforms (error %d)\n", err);
        return EXIT_SETUP;
    }
    if (!count) {
        fprintf(msg, "no OpenCL device: the ICD loader found no platform with a device "
                     "(no OpenCL driver installed)\n");
        return EXIT_SETUP;
    }
    for (int i = 0; i < count; i++) {
        VmafOpenCLDeviceInfo d;
        if ((err = vmaf_opencl_device_info(i, &d))) {
            fprintf(msg, "OpenCL device %d could not be described (error %d)\n", i, err);
            return EXIT_SETUP;
        }
        const int fp64 = vmaf_opencl_uses_fp64(&d);
        /* where the extension's version says whether its entry points are ours to call */
        char command_buffer[224];
        if ((err = vmaf_opencl_command_buffer_text(i, command_buffer, sizeof(command_buffer)))) {
            fprintf(msg, "OpenCL device %d could not be described (error %d)\n", i, err);
            return EXIT_SETUP;
        }
        fprintf(out, "%d: platform \"%s\", device \"%s\", %s, driver \"%s\", %s, fp64 %s, "
                     "fp32 divide/sqrt %s, %s\n",
                i, d.platform, d.name, type_name(d.type), d.driver_version, d.opencl_c_version,
                fp64     ? "yes"
                : d.fp64 ? "yes, off by VMAF_OPENCL_FP64=0 (doubles in software)"
                         : "no (doubles in software)",
                vmaf_opencl_division_name(vmaf_opencl_division(&d, fp64)), command_buffer);
    }
    return 0;
}
