/*
 * The CUDA driver API, loaded at run time (libcuda.so.1), so that one library binary runs
 * with and without an NVIDIA driver. Types come from the toolkit's cuda.h.
 */
#ifndef VMAF_CUDA_DRIVER_H
#define VMAF_CUDA_DRIVER_H

#include <cuda.h>

#include "libvmaf/libvmaf.h"

/* X(name): every entry point we use, resolved by base name through cuGetProcAddress. */
#define VMAF_CUDA_DRIVER_FUNCTIONS(X) \
    X(cuInit) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName) \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxPushCurrent) \
    X(cuCtxPopCurrent) X(cuCtxGetDevice) X(cuCtxSynchronize) X(cuGetErrorName) \
    X(cuGetErrorString) X(cuMemAlloc) X(cuMemFree) X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemHostRegister) X(cuMemHostUnregister) \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemcpy2DAsync) \
    X(cuMemcpy2D) X(cuMemsetD8Async) X(cuStreamCreate) X(cuStreamDestroy) \
    X(cuStreamSynchronize) X(cuStreamWaitEvent) X(cuEventCreate) X(cuEventDestroy) \
    X(cuEventRecord) X(cuEventQuery) X(cuEventSynchronize) X(cuEventElapsedTime) X(cuModuleLoadData) \
    X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel) X(cuGraphCreate) \
    X(cuGraphDestroy) X(cuGraphAddKernelNode) X(cuGraphAddMemcpyNode) X(cuGraphAddMemsetNode) \
    X(cuGraphInstantiateWithFlags) X(cuGraphExecDestroy) \
    X(cuGraphLaunch)

typedef struct VmafCudaDriver {
    void *lib;
    /* optional (driver 12.4+; NULL where missing): list a module's kernels by name */
    __typeof__(&cuModuleGetFunctionCount) cuModuleGetFunctionCount;
    __typeof__(&cuModuleEnumerateFunctions) cuModuleEnumerateFunctions;
    __typeof__(&cuFuncGetName) cuFuncGetName;
#define VMAF_CUDA_DRIVER_MEMBER(name) __typeof__(&name) name;
    VMAF_CUDA_DRIVER_FUNCTIONS(VMAF_CUDA_DRIVER_MEMBER)
#undef VMAF_CUDA_DRIVER_MEMBER
} VmafCudaDriver;

/** Load libcuda and resolve every entry point. -ENODEV when there is no usable driver. */
int vmaf_cuda_driver_load(VmafCudaDriver *drv);
void vmaf_cuda_driver_unload(VmafCudaDriver *drv);

/**
 * Turn a CUresult into 0 or a negative errno, logging "cuda: WHAT: NAME: description" once
 * for a failure (at log level ERROR).
 */
int vmaf_cuda_result(const VmafCudaDriver *drv, CUresult res, const char *what);

#define VMAF_CUDA_TRY(drv, call)                                  \
    do {                                                          \
        const int vmaf_cuda_err_ = vmaf_cuda_result((drv), (call), #call); \
        if (vmaf_cuda_err_) return vmaf_cuda_err_;                \
    } while (0)

#endif /* VMAF_CUDA_DRIVER_H */
