/* cl_khr_command_buffer's versions and entry points (see command_buffer.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl/command_buffer.h"
#include "opencl/describe.h"

/* OpenCL 3.0 and cl_khr_command_buffer's values (the OpenCL 1.2 headers lack them) */
#define DEVICE_EXTENSIONS_WITH_VERSION 0x1060
#define DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES 0x12AA
#define NAME_VERSION_MAX_NAME_SIZE 64

typedef struct NameVersion { /* cl_name_version */
    cl_uint version;
    char name[NAME_VERSION_MAX_NAME_SIZE];
} NameVersion;

typedef cl_ulong Properties; /* cl_properties: every properties list of the extension */
typedef cl_uint SyncPoint;   /* cl_sync_point_khr */
typedef void *MutableCommand; /* cl_mutable_command_khr */

typedef VmafClCommandBuffer(CL_API_CALL *CreateFn)(cl_uint, const cl_command_queue *,
                                                   const Properties *, cl_int *);
typedef cl_int(CL_API_CALL *BufferFn)(VmafClCommandBuffer);
typedef cl_int(CL_API_CALL *EnqueueFn)(cl_uint, cl_command_queue *, VmafClCommandBuffer,
                                       cl_uint, const cl_event *, cl_event *);
typedef cl_int(CL_API_CALL *NDRangeFn)(VmafClCommandBuffer, cl_command_queue, const Properties *,
                                       cl_kernel, cl_uint, const size_t *, const size_t *,
                                       const size_t *, cl_uint, const SyncPoint *, SyncPoint *,
                                       MutableCommand *);
/* 0.9.0 to 0.9.4 */
typedef cl_int(CL_API_CALL *FillFn)(VmafClCommandBuffer, cl_command_queue, cl_mem, const void *,
                                    size_t, size_t, size_t, cl_uint, const SyncPoint *,
                                    SyncPoint *, MutableCommand *);
typedef cl_int(CL_API_CALL *CopyFn)(VmafClCommandBuffer, cl_command_queue, cl_mem, cl_mem, size_t,
                                    size_t, size_t, cl_uint, const SyncPoint *, SyncPoint *,
                                    MutableCommand *);
/* 0.9.5 on: a properties list after the queue */
typedef cl_int(CL_API_CALL *FillPropsFn)(VmafClCommandBuffer, cl_command_queue, const Properties *,
                                         cl_mem, const void *, size_t, size_t, size_t, cl_uint,
                                         const SyncPoint *, SyncPoint *, MutableCommand *);
typedef cl_int(CL_API_CALL *CopyPropsFn)(VmafClCommandBuffer, cl_command_queue, const Properties *,
                                         cl_mem, cl_mem, size_t, size_t, size_t, cl_uint,
                                         const SyncPoint *, SyncPoint *, MutableCommand *);

/* A function pointer from the void * it is kept as. */
#define FN(type, p) (*(type *)memcpy(&(type){ 0 }, &(p), sizeof(p)))

static bool has_extension(const char *list, const char *ext)
{
    const size_t n = strlen(ext);
    for (const char *p = list; (p = strstr(p, ext)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

/* Whether the device's extension list holds the name: 1 or 0, or a negative errno (a list
 * that cannot be read is an error, as where the device is described). */
static int offers(const VmafOpenCLApi *api, cl_device_id device, const char *name)
{
    size_t len = 0;
    int err = vmaf_opencl_result(api->clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &len),
                                 "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)");
    if (err) return err;
    char *ext = malloc(len + 1);
    if (!ext) return -ENOMEM;
    err = vmaf_opencl_result(api->clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, len, ext, NULL),
                             "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)");
    ext[len] = '\0';
    const int r = err ? err : has_extension(ext, name);
    free(ext);
    return r;
}

/* The extension's version from CL_DEVICE_EXTENSIONS_WITH_VERSION; 0 when not said. */
static cl_uint version_of(const VmafOpenCLApi *api, cl_device_id device, const char *name)
{
    size_t bytes = 0;
    if (api->clGetDeviceInfo(device, DEVICE_EXTENSIONS_WITH_VERSION, 0, NULL, &bytes) !=
            CL_SUCCESS ||
        !bytes || bytes % sizeof(NameVersion))
        return 0;
    NameVersion *list = malloc(bytes);
    if (!list) return 0;
    cl_uint version = 0;
    if (api->clGetDeviceInfo(device, DEVICE_EXTENSIONS_WITH_VERSION, bytes, list, NULL) ==
        CL_SUCCESS) {
        for (size_t i = 0; i < bytes / sizeof(*list); i++) {
            list[i].name[NAME_VERSION_MAX_NAME_SIZE - 1] = '\0';
            if (!strcmp(list[i].name, name)) version = list[i].version;
        }
    }
    free(list);
    return version;
}

int vmaf_opencl_command_buffer_probe(const VmafOpenCLApi *api, cl_platform_id platform,
                                     cl_device_id device, VmafOpenCLCommandBufferApi *cb,
                                     char *why, size_t why_size)
{
    memset(cb, 0, sizeof(*cb));
    snprintf(why, why_size, "not probed");
    const int offered = offers(api, device, "cl_khr_command_buffer");
    if (offered < 0) return offered;
    if (!offered) {
        snprintf(why, why_size, "no cl_khr_command_buffer");
        return 0;
    }
    const cl_uint v = version_of(api, device, "cl_khr_command_buffer");
    if (!v) {
        snprintf(why, why_size, "cl_khr_command_buffer of unknown version (no "
                                "CL_DEVICE_EXTENSIONS_WITH_VERSION)");
        return 0;
    }
    if (v < VMAF_CL_COMMAND_BUFFER_FIRST || v > VMAF_CL_COMMAND_BUFFER_LAST) {
        snprintf(why, why_size, "cl_khr_command_buffer %u.%u.%u, not one of the versions "
                                "implemented (0.9.0 to 0.9.8)",
                 VMAF_CL_VERSION_MAJOR(v), VMAF_CL_VERSION_MINOR(v), VMAF_CL_VERSION_PATCH(v));
        return 0;
    }
    /* the frames' queue has no properties (profiling runs without command buffers) */
    cl_command_queue_properties required = 0;
    if (api->clGetDeviceInfo(device, DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES,
                             sizeof(required), &required, NULL) != CL_SUCCESS) {
        snprintf(why, why_size, "the queue properties cl_khr_command_buffer needs could not "
                                "be read");
        return 0;
    }
    if (required) {
        snprintf(why, why_size, "cl_khr_command_buffer needs queue properties 0x%llx",
                 (unsigned long long)required);
        return 0;
    }
    static const char *const names[] = {
        "clCreateCommandBufferKHR", "clFinalizeCommandBufferKHR", "clReleaseCommandBufferKHR",
        "clEnqueueCommandBufferKHR", "clCommandNDRangeKernelKHR", "clCommandFillBufferKHR",
        "clCommandCopyBufferKHR",
    };
    void *fn[sizeof(names) / sizeof(names[0])];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        fn[i] = api->clGetExtensionFunctionAddressForPlatform(platform, names[i]);
        if (!fn[i]) {
            snprintf(why, why_size, "the platform has no %s", names[i]);
            return 0;
        }
    }
    cb->create = fn[0], cb->finalize = fn[1], cb->release = fn[2], cb->enqueue = fn[3];
    cb->ndrange = fn[4], cb->fill = fn[5], cb->copy = fn[6];
    cb->version = v;
    snprintf(why, why_size, "cl_khr_command_buffer %u.%u.%u", VMAF_CL_VERSION_MAJOR(v),
             VMAF_CL_VERSION_MINOR(v), VMAF_CL_VERSION_PATCH(v));
    return 0;
}

cl_int vmaf_opencl_command_buffer_create(const VmafOpenCLCommandBufferApi *cb,
                                         cl_command_queue queue, VmafClCommandBuffer *out)
{
    cl_int res = CL_SUCCESS;
    *out = FN(CreateFn, cb->create)(1, &queue, NULL, &res);
    if (res != CL_SUCCESS) *out = NULL;
    else if (!*out) res = CL_OUT_OF_HOST_MEMORY;
    return res;
}

cl_int vmaf_opencl_command_buffer_kernel(const VmafOpenCLCommandBufferApi *cb,
                                         VmafClCommandBuffer buf, cl_kernel kernel,
                                         const size_t global[3], const size_t local[3])
{
    return FN(NDRangeFn, cb->ndrange)(buf, NULL, NULL, kernel, 3, NULL, global, local, 0, NULL,
                                      NULL, NULL);
}

cl_int vmaf_opencl_command_buffer_fill_zero(const VmafOpenCLCommandBufferApi *cb,
                                            VmafClCommandBuffer buf, cl_mem mem, size_t offset,
                                            size_t bytes)
{
    const cl_uchar zero = 0;
    if (cb->version >= VMAF_CL_COMMAND_BUFFER_PROPERTIES)
        return FN(FillPropsFn, cb->fill)(buf, NULL, NULL, mem, &zero, 1, offset, bytes, 0, NULL,
                                         NULL, NULL);
    return FN(FillFn, cb->fill)(buf, NULL, mem, &zero, 1, offset, bytes, 0, NULL, NULL, NULL);
}

cl_int vmaf_opencl_command_buffer_copy(const VmafOpenCLCommandBufferApi *cb,
                                       VmafClCommandBuffer buf, cl_mem src, cl_mem dst,
                                       size_t src_offset, size_t dst_offset, size_t bytes)
{
    if (cb->version >= VMAF_CL_COMMAND_BUFFER_PROPERTIES)
        return FN(CopyPropsFn, cb->copy)(buf, NULL, NULL, src, dst, src_offset, dst_offset, bytes,
                                         0, NULL, NULL, NULL);
    return FN(CopyFn, cb->copy)(buf, NULL, src, dst, src_offset, dst_offset, bytes, 0, NULL, NULL,
                                NULL);
}

cl_int vmaf_opencl_command_buffer_finalize(const VmafOpenCLCommandBufferApi *cb,
                                           VmafClCommandBuffer buf)
{
    return FN(BufferFn, cb->finalize)(buf);
}

cl_int vmaf_opencl_command_buffer_enqueue(const VmafOpenCLCommandBufferApi *cb,
                                          VmafClCommandBuffer buf, cl_uint n_wait,
                                          const cl_event *wait, cl_event *event)
{
    /* no queues: the one it was recorded for */
    return FN(EnqueueFn, cb->enqueue)(0, NULL, buf, n_wait, wait, event);
}

void vmaf_opencl_command_buffer_release(const VmafOpenCLCommandBufferApi *cb,
                                        VmafClCommandBuffer buf)
{
    if (buf) FN(BufferFn, cb->release)(buf);
}

bool vmaf_opencl_command_buffer_wanted(void)
{
    const char *env = getenv("VMAF_OPENCL_COMMAND_BUFFER");
    return !env || strcmp(env, "0");
}
