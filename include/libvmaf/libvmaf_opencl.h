/*
 * Twin VMAF — the OpenCL runtime (device enumeration and the device state).
 *
 * The OpenCL ICD loader (libOpenCL.so.1) is loaded at run time, so that one library binary runs
 * with and without OpenCL: without a loader every call here fails with -ENODEV (and a message)
 * and the library works on the CPU as before. Built without the OpenCL headers, every call
 * returns -ENOSYS.
 *
 * Devices are numbered 0, 1, ... across all platforms: the platforms in the loader's order,
 * each platform's devices (of every type) in its order.
 *
 * Programs are built from source embedded in the library the first time a state needs them,
 * with `#pragma OPENCL FP_CONTRACT OFF` and never a relaxed-math option
 * (`-cl-fp32-correctly-rounded-divide-sqrt` where the device supports it). Their binaries are
 * cached per device and driver:
 *   VMAF_OPENCL_CACHE=0        no cache (always build from source)
 *   VMAF_OPENCL_CACHE_DIR=DIR  the cache's folder (default $XDG_CACHE_HOME/twinvmaf/opencl, or
 *                              ~/.cache/twinvmaf/opencl); a folder that cannot be written only
 *                              means no caching; a damaged or foreign entry is rebuilt
 *   VMAF_OPENCL_LIBRARY=PATH   the ICD loader to open instead of libOpenCL.so.1
 */
#ifndef VMAF_LIBVMAF_OPENCL_H
#define VMAF_LIBVMAF_OPENCL_H

#include <stddef.h>
#include <stdint.h>

#include "libvmaf/libvmaf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VmafOpenCLState VmafOpenCLState;

enum VmafOpenCLDeviceType {
    VMAF_OPENCL_DEVICE_OTHER = 0,
    VMAF_OPENCL_DEVICE_GPU,
    VMAF_OPENCL_DEVICE_CPU,
    VMAF_OPENCL_DEVICE_ACCELERATOR,
};

/** What one OpenCL device is and can do. Strings are NUL-terminated (cut if longer). */
typedef struct VmafOpenCLDeviceInfo {
    char platform[128];          /**< CL_PLATFORM_NAME */
    char name[128];              /**< CL_DEVICE_NAME */
    char vendor[128];            /**< CL_DEVICE_VENDOR */
    char driver_version[128];    /**< CL_DRIVER_VERSION */
    char device_version[128];    /**< CL_DEVICE_VERSION ("OpenCL M.N ...") */
    char opencl_c_version[128];  /**< CL_DEVICE_OPENCL_C_VERSION ("OpenCL C M.N ...") */
    enum VmafOpenCLDeviceType type;
    int fp64;                    /**< 1: double precision (cl_khr_fp64 or a nonzero
                                      CL_DEVICE_DOUBLE_FP_CONFIG) */
    int correctly_rounded_divide_sqrt; /**< 1: fp32 division and sqrt can be correctly
                                            rounded (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT in
                                            CL_DEVICE_SINGLE_FP_CONFIG) */
    int fp32_denormals;          /**< 1: fp32 subnormals are kept (CL_FP_DENORM) */
    int int64_atomics;           /**< 1: cl_khr_int64_base_atomics */
    size_t max_work_group_size;  /**< CL_DEVICE_MAX_WORK_GROUP_SIZE */
    uint64_t local_mem_size;     /**< CL_DEVICE_LOCAL_MEM_SIZE, bytes */
    uint64_t global_mem_size;    /**< CL_DEVICE_GLOBAL_MEM_SIZE, bytes */
} VmafOpenCLDeviceInfo;

typedef struct VmafOpenCLConfiguration {
    int device; /**< the device's index (0-based, as vmaf_opencl_device_info() numbers them) */
} VmafOpenCLConfiguration;

/**
 * The number of OpenCL devices of all platforms.
 * @return 0 (also with no platform or no device: *count is then 0); -ENODEV (no ICD loader
 *         could be loaded, or it lacks an entry point), -ENOSYS (built without OpenCL),
 *         -EINVAL (NULL count), -EIO (the loader failed otherwise)
 */
int vmaf_opencl_device_count(int *count);

/**
 * Describe device `index`.
 * @return 0; -EINVAL (NULL info or negative index), -ENODEV (no loader, or fewer devices),
 *         -ENOSYS, -EIO as above
 */
int vmaf_opencl_device_info(int index, VmafOpenCLDeviceInfo *info);

/**
 * Open device cfg.device: a context and an in-order command queue on it.
 * @return 0; -EINVAL (NULL state or negative device), -ENODEV (no loader, or fewer
 *         devices), -ENOMEM, -ENOSYS, -EIO (any other OpenCL failure; logged with the call
 *         and the OpenCL error name)
 */
int vmaf_opencl_state_init(VmafOpenCLState **cl_state, VmafOpenCLConfiguration cfg);

/** Release the state, its programs, queue and context (once no context holds it: each
 *  context that imported it keeps a reference). NULL is a no-op. @return 0 */
int vmaf_opencl_state_free(VmafOpenCLState *cl_state);

/**
 * Score this context's features that have OpenCL twins on the state's device, with the same
 * bits as the CPU path; the others (and every feature on a device that lacks what exactness
 * needs: 64-bit integer atomics; double precision for the twins computing in it) run on the
 * CPU. Before the first picture only; the context keeps its own reference (free the state
 * when convenient). Pictures are host pictures (vmaf_picture_alloc or a pool).
 * @return 0; -EINVAL (NULL argument, pictures already read, a state already imported),
 *         -ENOSYS (built without OpenCL)
 */
int vmaf_opencl_import_state(VmafContext *vmaf, VmafOpenCLState *cl_state);

/**
 * A pool of cfg.pic_cnt pictures in the device's pinned host memory (CL_MEM_ALLOC_HOST_PTR,
 * mapped), from which the device reads at full speed; fetch them with
 * vmaf_fetch_preallocated_picture(). After vmaf_opencl_import_state().
 * @return 0; -EINVAL (NULL context, no OpenCL state imported, a pool already made), -ENOSYS
 */
int vmaf_opencl_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_LIBVMAF_OPENCL_H */
