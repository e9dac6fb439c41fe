/*
 * Twin VMAF — the CUDA backend.
 *
 * A VmafCudaState holds a CUDA context (created on device 0, or the caller's CUcontext) and the
 * loaded kernels. Import it into a VmafContext and every registered feature extractor that has
 * a GPU twin runs on the device, giving the same bits as the CPU path; the others stay on the
 * CPU. The CUDA driver is loaded at run time: without one, vmaf_cuda_state_init() fails with
 * -ENODEV and the library works on the CPU as before.
 *
 * Environment: VMAF_CUDA_NO_GRAPH=1 runs each frame's copies and kernels directly instead of
 * replaying a recorded CUDA graph; VMAF_CUDA_PROFILE=1 prints per-copy and per-kernel device
 * times and host phase times per frame and on average (to stderr, when the context closes).
 */
#ifndef VMAF_LIBVMAF_CUDA_H
#define VMAF_LIBVMAF_CUDA_H

#include "libvmaf/libvmaf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VmafCudaState VmafCudaState;

typedef struct VmafCudaConfiguration {
    void *cu_ctx; /**< a CUcontext to use, or NULL to use device 0's primary context */
} VmafCudaConfiguration;

/**
 * Load the CUDA driver, pick the context, load the kernels.
 * @return 0; -ENODEV (no driver or no device), -ENOSYS (built without CUDA), -EIO, -ENOMEM
 */
int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg);

/**
 * Twin VMAF extension: a state on the primary context of CUDA device `device` (0-based, in
 * the driver's order), for running one context per GPU of a host.
 * @return 0; -EINVAL (negative device), -ENODEV (no driver, or fewer devices), as above
 */
int vmaf_cuda_state_init_device(VmafCudaState **cu_state, int device);

/**
 * Twin VMAF extension: vmaf_cuda_state_init_device() that returns before the context exists.
 * The driver is loaded and the device looked up first (the same errors as above); the
 * primary context is then retained and the kernels loaded on a thread of the state, while
 * the caller goes on (imports the state, loads models, reads its first frames: ~50 ms of an
 * H200's start-up). The first call that needs the device waits for that thread; if it
 * failed, that call and every later one that needs the device return its error (logged
 * once). Use vmaf_cuda_state_init_device() where a failure must be known at once, to fall
 * back to the CPU.
 * @return as vmaf_cuda_state_init_device()
 */
int vmaf_cuda_state_init_async(VmafCudaState **cu_state, int device);

/**
 * Twin VMAF extension: the number of CUDA devices the driver sees (*count 0 on failure).
 * @return 0 (also when the driver sees no device); -ENODEV (no driver could be loaded),
 *         -ENOSYS (built without CUDA), -EINVAL (NULL count)
 */
int vmaf_cuda_device_count(int *count);

/**
 * Attach a state to a context (before the first picture). Twins then replace their CPU
 * extractors unless cfg.gpumask is nonzero. One state may serve several contexts, of any
 * geometry, at once; each context keeps its own device frames and streams.
 */
int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state);

/**
 * Release the caller's reference to a state (Twin VMAF extension). The state lives on while
 * contexts that imported it are open.
 */
int vmaf_cuda_state_free(VmafCudaState *cu_state);

enum VmafCudaPicturePreallocationMethod {
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE = 0,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,      /**< pictures in device memory */
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST,        /**< pageable host memory */
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED, /**< pinned host memory (fastest upload) */
};

typedef struct VmafCudaPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    enum VmafCudaPicturePreallocationMethod pic_prealloc_method;
} VmafCudaPictureConfiguration;

/**
 * Create the context's picture pool in the given memory. The pool holds enough pictures to
 * keep the device's frame ring full. Needs an imported state (except for HOST).
 */
int vmaf_cuda_preallocate_pictures(VmafContext *vmaf, VmafCudaPictureConfiguration cfg);

/** Take a picture from that pool; blocks until one is free. */
int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_LIBVMAF_CUDA_H */
