/* The device state: driver, context, kernels; shared by any number of VmafContexts. */
#ifndef VMAF_CUDA_STATE_H
#define VMAF_CUDA_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "cuda/driver.h"

#define VMAF_CUDA_MAX_MODULES 16

struct VmafCudaState {
    VmafCudaDriver drv;
    CUdevice dev;
    CUcontext ctx;
    int dev_index;          /* the device's index in the driver's order (0 for cu_ctx) */
    bool own_primary;       /* we retained the device's primary context */
    CUmodule module[VMAF_CUDA_MAX_MODULES];
    unsigned module_cnt;
    /* every kernel of the modules by name, where the driver can list them (no failing
     * cuModuleGetFunction probes then: compute-sanitizer reports each as an API error) */
    struct VmafCudaKernelName {
        const char *name;
        CUfunction fn;
    } *kernel;
    unsigned kernel_cnt;
    atomic_int refs;        /* the creator + every context that imported it */
    /* start-up phases of vmaf_cuda_state_init (ms), printed with VMAF_CUDA_PROFILE=1 */
    double init_driver_ms, init_context_ms, init_modules_ms;
    /* picture buffers registered (pinned) so far and the time spent registering them */
    atomic_uint pinned_allocs;
    atomic_ullong pinned_alloc_us;
    atomic_uint unpinned;          /* picture buffers unregistered, and the time it took */
    atomic_ullong unpinned_us;
    atomic_ullong backend_close_us; /* backends destroyed on this state (VMAF_CUDA_PROFILE) */
    /* The warm-up: a thread started by vmaf_cuda_state_init makes the context's first
     * device and pinned allocations, memset and sync while the client loads models and
     * reads its first frame, so that the first twin's set-up does not pay for them
     * (VMAF_CUDA_PROFILE=1 prints the warm-up and each twin's set-up). vmaf_cuda_state_warm()
     * waits for it (first backend, teardown). */
    pthread_t warm_thread;
    pthread_mutex_t warm_lock;
    bool warming;
    double warm_ms;
    /* vmaf_cuda_state_init_async(): the same thread first retains the primary context and
     * loads the modules (the opening), then warms up. open_state is 0 while it opens, 1 once
     * the context is usable (at once for the other inits), or the opening's negative errno;
     * vmaf_cuda_push() waits on open_cond (under open_lock: warm_lock is held while the
     * thread is joined) while it is 0. */
    pthread_mutex_t open_lock;
    pthread_cond_t open_cond;
    atomic_int open_state;
    bool opened_async;
    enum VmafLogLevel log_level;  /* the creating thread's, for the opening's messages */
    atomic_ullong open_wait_us;   /* how long callers waited for the opening (summed) */
};

/** Milliseconds of CLOCK_MONOTONIC (for the start-up and host-phase profile). */
double vmaf_cuda_now_ms(void);

/** Wait until the warm-up thread (if any) is done; then warm_ms is set. */
void vmaf_cuda_state_warm(VmafCudaState *s);

/**
 * Make the state's context current on this thread (push) / restore the previous (pop). A
 * state still opening (vmaf_cuda_state_init_async) is waited for first; if its opening
 * failed, push returns that error.
 */
int vmaf_cuda_push(VmafCudaState *s);
int vmaf_cuda_pop(VmafCudaState *s);

/** A kernel by its extern "C" name, from any loaded module. */
int vmaf_cuda_kernel(VmafCudaState *s, const char *name, CUfunction *fn);

/** Pinned host memory (for picture pools and result buffers). Context must be current. */
int vmaf_cuda_host_alloc(VmafCudaState *s, size_t size, void **buf);
void vmaf_cuda_host_free(VmafCudaState *s, void *buf);

/**
 * Pin a picture mapping (vmaf_picture_map) that its reader has filled (its writes faulted
 * the pages in, in parallel with other readers): cuMemHostRegister, holding the driver's lock;
 * pages nobody wrote are touched first. Its cost per picture (bench/pin_probe alone;
 * VMAF_CUDA_PROFILE=1 in a CLI run, where readers fault other buffers in meanwhile) is why
 * pools pin each buffer once and reuse it. size: the bytes from buf's start to pin (the
 * whole picture, or its luma plane), rounded up to the mapping's 2 MiB pages. Unregister
 * before unmapping. Context current.
 */
int vmaf_cuda_host_register(VmafCudaState *s, void *buf, size_t size);
void vmaf_cuda_host_unregister(VmafCudaState *s, void *buf);

void vmaf_cuda_state_ref(VmafCudaState *s);
void vmaf_cuda_state_unref(VmafCudaState *s);

#endif /* VMAF_CUDA_STATE_H */
