/*
 * VMAF_BACKEND: the opt-in that gives an unmodified client (FFmpeg's libvmaf filter, ab-av1,
 * anything linked against libvmaf.so that passes host pictures and never calls a backend API)
 * a device backend, read once at vmaf_init():
 *   unset, "" or "cpu"  nothing changes;
 *   "cuda"              a CUDA state on device 0, else vmaf_init fails;
 *   "opencl"            OpenCL device $VMAF_OPENCL_DEVICE (default 0), else vmaf_init fails;
 *   "auto"              CUDA if a device answers, else the first OpenCL GPU, else the CPU,
 *                       silently (a CPU OpenCL device only when VMAF_OPENCL_DEVICE names it).
 * The scores are the CPU path's bits either way. A client that imports a state itself
 * replaces the one attached here.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/libvmaf_opencl.h"

#include "context.h"
#include "log.h"

static int parse_index(const char *s, int *out)
{
    char *end;
    if (!s || !*s || *s == '-' || *s == '+') return -EINVAL;
    const long v = strtol(s, &end, 10);
    if (*end || v < 0 || v > INT_MAX) return -EINVAL;
    *out = (int)v;
    return 0;
}

/* The first OpenCL device that is a GPU, or -1. */
static int first_opencl_gpu(void)
{
    int n = 0;
    if (vmaf_opencl_device_count(&n)) return -1;
    for (int i = 0; i < n; i++) {
        VmafOpenCLDeviceInfo info;
        if (!vmaf_opencl_device_info(i, &info) && info.type == VMAF_OPENCL_DEVICE_GPU) return i;
    }
    return -1;
}

static int attach_opencl(VmafContext *vmaf, int index, bool required, enum VmafLogLevel level)
{
    VmafOpenCLState *s = NULL;
    int err = vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = index });
    if (err) {
        if (!required) return 0;
        vmaf_log(level, VMAF_LOG_LEVEL_ERROR,
                 "VMAF_BACKEND=opencl: no usable OpenCL device %d (%s)\n", index, strerror(-err));
        return err;
    }
    err = vmaf_opencl_import_state(vmaf, s);
    vmaf_opencl_state_free(s); /* the context holds its own reference */
    return err;
}

int vmaf_context_attach_from_env(VmafContext *vmaf)
{
    const enum VmafLogLevel level = vmaf->cfg.log_level;
    const char *want = getenv("VMAF_BACKEND");
    if (!want || !*want || !strcmp(want, "cpu")) return 0;
    const bool cuda = !strcmp(want, "cuda"), opencl = !strcmp(want, "opencl");
    const bool any = !strcmp(want, "auto");
    if (!cuda && !opencl && !any) {
        vmaf_log(level, VMAF_LOG_LEVEL_ERROR,
                 "VMAF_BACKEND=%s: expected cpu, cuda, opencl or auto\n", want);
        return -EINVAL;
    }
    const char *dev = getenv("VMAF_OPENCL_DEVICE");
    int index = 0;
    if (dev && parse_index(dev, &index)) {
        vmaf_log(level, VMAF_LOG_LEVEL_ERROR,
                 "VMAF_OPENCL_DEVICE=%s: expected a device index (0, 1, ...)\n", dev);
        return -EINVAL;
    }
    int err = 0;
    if (cuda || any) {
        VmafCudaState *s = NULL;
        err = vmaf_cuda_state_init(&s, (VmafCudaConfiguration){ 0 });
        if (!err) {
            err = vmaf_cuda_import_state(vmaf, s);
            vmaf_cuda_state_free(s);
            if (!err) vmaf->device_from_env = true;
            return err;
        }
        if (cuda) {
            vmaf_log(level, VMAF_LOG_LEVEL_ERROR,
                     "VMAF_BACKEND=cuda: no usable CUDA device (%s)\n", strerror(-err));
            return err;
        }
    }
    if (any && !dev) index = first_opencl_gpu();
    if (index < 0) return 0;
    err = attach_opencl(vmaf, index, opencl, level);
    if (!err) vmaf->device_from_env = vmaf->device_state != NULL;
    return err;
}
