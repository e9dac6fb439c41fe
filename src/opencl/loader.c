#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "opencl/loader.h"

/* The loader's SONAME: present wherever an OpenCL runtime is installed (ocl-icd, Khronos). */
#define OPENCL_LIBRARY "libOpenCL.so.1"

int vmaf_opencl_api_load(VmafOpenCLApi *api)
{
    memset(api, 0, sizeof(*api));
    const char *path = getenv("VMAF_OPENCL_LIBRARY");
    if (!path || !*path) path = OPENCL_LIBRARY;
    /* never unloaded: the loader keeps its vendors' platforms for the process, and an ICD
     * unloaded while its own threads or exit handlers are live would crash at exit */
    api->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!api->lib) {
        const char *why = dlerror();
        vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_ERROR,
                 "opencl: cannot load the OpenCL ICD loader %s: %s\n", path,
                 why ? why : "not found");
        return -ENODEV;
    }
#define VMAF_OPENCL_RESOLVE(name)                                                          \
    {                                                                                      \
        void *fn = dlsym(api->lib, #name);                                                 \
        if (!fn) {                                                                         \
            vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_ERROR,                        \
                     "opencl: the OpenCL library %s has no %s\n", path, #name);            \
            goto fail;                                                                     \
        }                                                                                  \
        memcpy(&api->name, &fn, sizeof(fn));                                               \
    }
    VMAF_OPENCL_FUNCTIONS(VMAF_OPENCL_RESOLVE)
#undef VMAF_OPENCL_RESOLVE
    return 0;
fail:
    vmaf_opencl_api_unload(api);
    return -ENODEV;
}

void vmaf_opencl_api_unload(VmafOpenCLApi *api)
{
    if (api->lib) dlclose(api->lib);
    memset(api, 0, sizeof(*api));
}

const char *vmaf_opencl_error_name(cl_int err)
{
    switch (err) {
#define N(code) case code: return #code;
    N(CL_SUCCESS) N(CL_DEVICE_NOT_FOUND) N(CL_DEVICE_NOT_AVAILABLE)
    N(CL_COMPILER_NOT_AVAILABLE) N(CL_MEM_OBJECT_ALLOCATION_FAILURE) N(CL_OUT_OF_RESOURCES)
    N(CL_OUT_OF_HOST_MEMORY) N(CL_PROFILING_INFO_NOT_AVAILABLE) N(CL_MEM_COPY_OVERLAP)
    N(CL_IMAGE_FORMAT_MISMATCH) N(CL_IMAGE_FORMAT_NOT_SUPPORTED) N(CL_BUILD_PROGRAM_FAILURE)
    N(CL_MAP_FAILURE) N(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    N(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) N(CL_COMPILE_PROGRAM_FAILURE)
    N(CL_LINKER_NOT_AVAILABLE) N(CL_LINK_PROGRAM_FAILURE) N(CL_DEVICE_PARTITION_FAILED)
    N(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) N(CL_INVALID_VALUE) N(CL_INVALID_DEVICE_TYPE)
    N(CL_INVALID_PLATFORM) N(CL_INVALID_DEVICE) N(CL_INVALID_CONTEXT)
    N(CL_INVALID_QUEUE_PROPERTIES) N(CL_INVALID_COMMAND_QUEUE) N(CL_INVALID_HOST_PTR)
    N(CL_INVALID_MEM_OBJECT) N(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) N(CL_INVALID_IMAGE_SIZE)
    N(CL_INVALID_SAMPLER) N(CL_INVALID_BINARY) N(CL_INVALID_BUILD_OPTIONS)
    N(CL_INVALID_PROGRAM) N(CL_INVALID_PROGRAM_EXECUTABLE) N(CL_INVALID_KERNEL_NAME)
    N(CL_INVALID_KERNEL_DEFINITION) N(CL_INVALID_KERNEL) N(CL_INVALID_ARG_INDEX)
    N(CL_INVALID_ARG_VALUE) N(CL_INVALID_ARG_SIZE) N(CL_INVALID_KERNEL_ARGS)
    N(CL_INVALID_WORK_DIMENSION) N(CL_INVALID_WORK_GROUP_SIZE) N(CL_INVALID_WORK_ITEM_SIZE)
    N(CL_INVALID_GLOBAL_OFFSET) N(CL_INVALID_EVENT_WAIT_LIST) N(CL_INVALID_EVENT)
    N(CL_INVALID_OPERATION) N(CL_INVALID_GL_OBJECT) N(CL_INVALID_BUFFER_SIZE)
    N(CL_INVALID_MIP_LEVEL) N(CL_INVALID_GLOBAL_WORK_SIZE) N(CL_INVALID_PROPERTY)
    N(CL_INVALID_IMAGE_DESCRIPTOR) N(CL_INVALID_COMPILER_OPTIONS) N(CL_INVALID_LINKER_OPTIONS)
    N(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef N
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "CL_UNKNOWN_ERROR";
    }
}

int vmaf_opencl_result(cl_int err, const char *what)
{
    if (err == CL_SUCCESS) return 0;
    vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_ERROR, "opencl: %s: %s (%d)\n", what,
             vmaf_opencl_error_name(err), (int)err);
    switch (err) {
    case CL_OUT_OF_HOST_MEMORY:
    case CL_OUT_OF_RESOURCES:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return -ENOMEM;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case -1001: return -ENODEV;
    case CL_INVALID_VALUE:
    case CL_INVALID_ARG_INDEX:
    case CL_INVALID_ARG_VALUE:
    case CL_INVALID_ARG_SIZE:
    case CL_INVALID_BUFFER_SIZE:
    case CL_INVALID_WORK_GROUP_SIZE:
    case CL_INVALID_GLOBAL_WORK_SIZE: return -EINVAL;
    default: return -EIO;
    }
}
