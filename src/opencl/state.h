/* The OpenCL device state: the loaded API, a context and an in-order queue on one device, and
 * the programs built on it so far. */
#ifndef VMAF_OPENCL_STATE_H
#define VMAF_OPENCL_STATE_H

#include <pthread.h>
#include <stdatomic.h>

#include "libvmaf/libvmaf_opencl.h"

#include "opencl/command_buffer.h"
#include "opencl/division.h"
#include "opencl/loader.h"

#define VMAF_OPENCL_MAX_PROGRAMS 32

/** A program's embedded source; text must begin with "#pragma OPENCL FP_CONTRACT OFF". */
typedef struct VmafOpenCLSource {
    const char *name; /* for messages */
    const char *text;
    int fp64_free; /* exact without the device's double: the program's own line
                    * `#define VMAF_OPENCL_FP64_FREE 1` (feature/f64.h), read by the build */
} VmafOpenCLSource;

struct VmafOpenCLState {
    VmafOpenCLApi api;
    cl_platform_id platform;
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    VmafOpenCLDeviceInfo info;
    int index;
    int fp64; /* the programs compute in the device's double (vmaf_opencl_uses_fp64) */
    enum VmafOpenCLDivision division; /* how fp32 division and sqrt are exact */
    char build_options[192];   /* the same for every program of the state: division's, and
                                * VMAF_OPENCL_SOFT_F64_OPTIONS where fp64 is 0 */
    pthread_mutex_t lock;      /* the program table */
    struct {
        const VmafOpenCLSource *source;
        cl_program program; /* NULL: its build failed (err), which is not tried again */
        int err;
    } program[VMAF_OPENCL_MAX_PROGRAMS];
    unsigned program_cnt;
    /* what the binary cache did (read by the tests): built from source, entries loaded,
     * entries found damaged or foreign (and rebuilt), entries written */
    atomic_uint source_builds, cache_loads, cache_rejects, cache_writes;
    atomic_int refs;           /* the creator + every context that imported it */
    size_t max_parameter_size; /* CL_DEVICE_MAX_PARAMETER_SIZE */
    /* cl_khr_command_buffer where usable (version 0: not), else why not */
    VmafOpenCLCommandBufferApi command_buffer;
    char command_buffer_why[160];
};

/** A reference for a context (import); unref frees the state with the last one. */
void vmaf_opencl_state_ref(VmafOpenCLState *s);
void vmaf_opencl_state_unref(VmafOpenCLState *s);

/**
 * Find device `index` (all platforms, their order): its platform and id. api loaded.
 * -ENODEV with a message when there are fewer devices.
 */
int vmaf_opencl_find_device(const VmafOpenCLApi *api, int index, cl_platform_id *platform,
                            cl_device_id *device);

/** Fill info for a device found by vmaf_opencl_find_device(). */
int vmaf_opencl_describe(const VmafOpenCLApi *api, cl_platform_id platform, cl_device_id device,
                         VmafOpenCLDeviceInfo *info);

/**
 * The program built from src on the state's device: built (or loaded from the binary cache)
 * on first use, then kept until the state is freed. Thread-safe. -EINVAL for a source that
 * does not start with the FP_CONTRACT OFF pragma; -EIO (with the build log) for one that does
 * not build.
 */
int vmaf_opencl_program(VmafOpenCLState *s, const VmafOpenCLSource *src, cl_program *program);

#endif /* VMAF_OPENCL_STATE_H */
