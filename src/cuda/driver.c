#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "cuda/driver.h"
#include "log.h"

typedef CUresult (*GetProcAddressFn)(const char *, void **, int, cuuint64_t,
                                     CUdriverProcAddressQueryResult *);

int vmaf_cuda_driver_load(VmafCudaDriver *drv)
{
    memset(drv, 0, sizeof(*drv));
    drv->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!drv->lib) return -ENODEV;
    GetProcAddressFn get = (GetProcAddressFn)dlsym(drv->lib, "cuGetProcAddress_v2");
    if (!get) goto fail;
    /* ask for the 12.0 ABI of every entry point: what cuda.h's macros name */
#define VMAF_CUDA_DRIVER_RESOLVE(name)                                                   \
    {                                                                                    \
        void *fn = NULL;                                                                 \
        CUdriverProcAddressQueryResult found;                                            \
        if (get(#name, &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS ||  \
            !fn)                                                                         \
            goto fail;                                                                   \
        memcpy(&drv->name, &fn, sizeof(fn));                                             \
    }
    VMAF_CUDA_DRIVER_FUNCTIONS(VMAF_CUDA_DRIVER_RESOLVE)
#undef VMAF_CUDA_DRIVER_RESOLVE
#define VMAF_CUDA_DRIVER_OPTIONAL(name)                                                  \
    {                                                                                    \
        void *fn = NULL;                                                                 \
        CUdriverProcAddressQueryResult found;                                            \
        if (get(#name, &fn, 12040, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS) \
            fn = NULL;                                                                   \
        memcpy(&drv->name, &fn, sizeof(fn));                                             \
    }
    VMAF_CUDA_DRIVER_OPTIONAL(cuModuleGetFunctionCount)
    VMAF_CUDA_DRIVER_OPTIONAL(cuModuleEnumerateFunctions)
    VMAF_CUDA_DRIVER_OPTIONAL(cuFuncGetName)
#undef VMAF_CUDA_DRIVER_OPTIONAL
    if (drv->cuInit(0) != CUDA_SUCCESS) goto fail;
    return 0;
fail:
    vmaf_cuda_driver_unload(drv);
    return -ENODEV;
}

void vmaf_cuda_driver_unload(VmafCudaDriver *drv)
{
    if (drv->lib) dlclose(drv->lib);
    memset(drv, 0, sizeof(*drv));
}

int vmaf_cuda_result(const VmafCudaDriver *drv, CUresult res, const char *what)
{
    if (res == CUDA_SUCCESS) return 0;
    const char *name = "?", *desc = "?";
    if (drv->cuGetErrorName) drv->cuGetErrorName(res, &name);
    if (drv->cuGetErrorString) drv->cuGetErrorString(res, &desc);
    vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_ERROR, "cuda: %s: %s: %s\n", what, name, desc);
    switch (res) {
    case CUDA_ERROR_OUT_OF_MEMORY: return -ENOMEM;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE: return -ENODEV;
    case CUDA_ERROR_INVALID_VALUE: return -EINVAL;
    default: return -EIO;
    }
}
