/*
 * The OpenCL API, loaded at run time from the ICD loader (libOpenCL.so.1, or
 * $VMAF_OPENCL_LIBRARY), so that one library binary runs with and without OpenCL. Types come
 * from the system's CL/cl.h, at the OpenCL 1.2 API level.
 */
#ifndef VMAF_OPENCL_LOADER_H
#define VMAF_OPENCL_LOADER_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* X(name): every entry point we use, each looked up by name; a missing one is an error. */
#define VMAF_OPENCL_FUNCTIONS(X)                                                           \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)          \
    X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue)                         \
    X(clReleaseCommandQueue) X(clCreateProgramWithSource) X(clCreateProgramWithBinary)     \
    X(clBuildProgram) X(clGetProgramInfo) X(clGetProgramBuildInfo) X(clReleaseProgram)     \
    X(clCreateKernel) X(clReleaseKernel) X(clSetKernelArg) X(clCreateBuffer)               \
    X(clReleaseMemObject) X(clEnqueueWriteBuffer) X(clEnqueueReadBuffer)                   \
    X(clEnqueueNDRangeKernel) X(clFinish) X(clFlush) X(clWaitForEvents) X(clReleaseEvent)     \
    X(clEnqueueMarkerWithWaitList) X(clEnqueueFillBuffer) X(clGetKernelWorkGroupInfo)        \
    X(clEnqueueMapBuffer) X(clEnqueueUnmapMemObject) X(clGetEventProfilingInfo)             \
    X(clGetExtensionFunctionAddressForPlatform) X(clEnqueueCopyBuffer)

typedef struct VmafOpenCLApi {
    void *lib;
#define VMAF_OPENCL_MEMBER(name) __typeof__(&name) name;
    VMAF_OPENCL_FUNCTIONS(VMAF_OPENCL_MEMBER)
#undef VMAF_OPENCL_MEMBER
} VmafOpenCLApi;

/**
 * Open the ICD loader and look every entry point up. -ENODEV (logged: which library or
 * which symbol) when it cannot be opened or lacks one; api is then all zero.
 */
int vmaf_opencl_api_load(VmafOpenCLApi *api);
void vmaf_opencl_api_unload(VmafOpenCLApi *api);

/** The name of an OpenCL error code ("CL_INVALID_VALUE"), or "CL_UNKNOWN_ERROR". */
const char *vmaf_opencl_error_name(cl_int err);

/**
 * Turn a cl_int into 0 or a negative errno, logging "opencl: WHAT: NAME (code)" for a failure
 * (at log level ERROR).
 */
int vmaf_opencl_result(cl_int err, const char *what);

#define VMAF_OPENCL_TRY(call)                                                 \
    do {                                                                      \
        const int vmaf_opencl_err_ = vmaf_opencl_result((call), #call);       \
        if (vmaf_opencl_err_) return vmaf_opencl_err_;                        \
    } while (0)

#endif /* VMAF_OPENCL_LOADER_H */
