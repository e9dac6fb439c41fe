/*
 * A GPU twin: the device counterpart of one CPU feature extractor, giving the same bits, on
 * any device backend (CUDA, OpenCL). A twin's host glue is written once, against this header:
 * it names its kernels, allocates its buffers, and records each frame's kernel launches,
 * clears and result downloads through the backend-neutral recorder; each backend implements
 * the device and recorder operations below (src/cuda/, src/opencl/).
 *
 * A twin never uploads pictures: it reads the shared device frame, a ring of slots each holding
 * one frame's reference and distorted pictures (luma always, chroma when some twin asks) in
 * the host picture layout. It records its work once per slot; after the frame completes,
 * collect() turns the downloaded results into scores through the CPU extractor's own code
 * (with the CPU instance's state), so the arithmetic after the device part is shared, not
 * copied.
 *
 * Device addresses (VmafGpuPtr) are what a kernel argument struct carries: a CUDA device
 * address, or an OpenCL byte offset into the backend's one device buffer (its arena; every
 * OpenCL kernel takes the arena first, the argument struct second). Twins compute with them
 * only by adding byte offsets.
 */
#ifndef VMAF_GPU_TWIN_H
#define VMAF_GPU_TWIN_H

#include <stdbool.h>
#include <stddef.h>

#include "feature/feature_extractor.h"

typedef unsigned long long VmafGpuPtr;
typedef struct VmafGpuKernelHandle *VmafGpuKernel; /* a backend's kernel, opaque */

/** A kernel launch: CUDA's grid of blocks; OpenCL's NDRange is grid * block work-items in
 *  work-groups of block. shared_bytes: dynamic shared (CUDA) / __local (OpenCL, the third
 *  kernel argument) memory, 0 for none. */
typedef struct VmafGpuLaunch {
    unsigned grid[3], block[3];
    unsigned shared_bytes;
} VmafGpuLaunch;

/** The device a twin runs on (its backend's operations). */
typedef struct VmafGpuDevice VmafGpuDevice;
typedef struct VmafGpuDeviceOps {
    const char *name; /* "cuda", "opencl": for messages */
    int (*kernel)(VmafGpuDevice *d, const char *name, VmafGpuKernel *k);
    int (*alloc)(VmafGpuDevice *d, size_t bytes, VmafGpuPtr *p);
    void (*free)(VmafGpuDevice *d, VmafGpuPtr p);
    int (*host_alloc)(VmafGpuDevice *d, size_t bytes, void **p);
    void (*host_free)(VmafGpuDevice *d, void *p);
    int (*write)(VmafGpuDevice *d, VmafGpuPtr dst, const void *src, size_t bytes);
    int (*clear)(VmafGpuDevice *d, VmafGpuPtr dst, size_t bytes);
    int (*read)(VmafGpuDevice *d, void *dst, VmafGpuPtr src, size_t bytes);
    /** Optional: the most work-items a group of k may have here (NULL: no limit below the
     *  twins' blocks, as on CUDA, where each kernel is built for its own block). */
    int (*max_block)(VmafGpuDevice *d, VmafGpuKernel k, unsigned *threads);
} VmafGpuDeviceOps;

struct VmafGpuDevice {
    const VmafGpuDeviceOps *ops;
};

/** A kernel by its name (CUDA: extern "C"; OpenCL: __kernel), for this device. */
static inline int vmaf_gpu_kernel(VmafGpuDevice *d, const char *name, VmafGpuKernel *k)
{
    return d->ops->kernel(d, name, k);
}

/**
 * The block of a kernel whose device form may run with fewer work-items than its CUDA block
 * (`threads`; each work-item then plays several of the CUDA form's threads, in the same order
 * of every floating-point operation): `threads` where the device takes that many per group
 * (always on CUDA: its launches never change), else the largest multiple of `step` it takes.
 * Where not even `step` fits, `threads`: the backend's trial recording then refuses the
 * launch and the twin stays on the CPU.
 */
static inline int vmaf_gpu_fit_block(VmafGpuDevice *d, VmafGpuKernel k, unsigned threads,
                                     unsigned step, unsigned *block)
{
    *block = threads;
    if (!d->ops->max_block) return 0;
    unsigned most = 0;
    const int err = d->ops->max_block(d, k, &most);
    if (err) return err;
    if (most < threads && most >= step) *block = most / step * step;
    return 0;
}

/** Device memory, freed with vmaf_gpu_free (0 is never a valid address). Contents undefined. */
static inline int vmaf_gpu_alloc(VmafGpuDevice *d, size_t bytes, VmafGpuPtr *p)
{
    return d->ops->alloc(d, bytes, p);
}

static inline void vmaf_gpu_free(VmafGpuDevice *d, VmafGpuPtr p)
{
    if (p) d->ops->free(d, p);
}

/** Host memory that downloads land in (pinned where the backend can). */
static inline int vmaf_gpu_host_alloc(VmafGpuDevice *d, size_t bytes, void **p)
{
    return d->ops->host_alloc(d, bytes, p);
}

static inline void vmaf_gpu_host_free(VmafGpuDevice *d, void *p)
{
    if (p) d->ops->host_free(d, p);
}

/**
 * Set-up writes (tables, initial contents), from init(): bytes of src copied now (src may be
 * freed on return), in place before the first frame's work. clear() writes zeros.
 */
static inline int vmaf_gpu_write(VmafGpuDevice *d, VmafGpuPtr dst, const void *src, size_t bytes)
{
    return d->ops->write(d, dst, src, bytes);
}

static inline int vmaf_gpu_clear(VmafGpuDevice *d, VmafGpuPtr dst, size_t bytes)
{
    return d->ops->clear(d, dst, bytes);
}

/** Read device memory now, after all the work issued so far (from collect(); slow: it waits). */
static inline int vmaf_gpu_read(VmafGpuDevice *d, void *dst, VmafGpuPtr src, size_t bytes)
{
    return d->ops->read(d, dst, src, bytes);
}

/** One frame's device work as a list of operations, recorded once per slot, replayed. */
typedef struct VmafGpuRecorder VmafGpuRecorder;
typedef struct VmafGpuRecorderOps {
    int (*kernel)(VmafGpuRecorder *r, VmafGpuKernel k, VmafGpuLaunch launch, const void *args,
                  size_t args_size, const char *label);
    int (*memset)(VmafGpuRecorder *r, VmafGpuPtr dst, size_t bytes, const char *label);
    int (*download)(VmafGpuRecorder *r, void *host, VmafGpuPtr src, size_t bytes,
                    const char *label);
} VmafGpuRecorderOps;

struct VmafGpuRecorder {
    const VmafGpuRecorderOps *ops;
};

/** A kernel taking one struct argument by value (args, args_size bytes, copied now); label
 *  names the operation in the profile. */
static inline int vmaf_gpu_rec_kernel(VmafGpuRecorder *r, VmafGpuKernel k, VmafGpuLaunch launch,
                                      const void *args, size_t args_size, const char *label)
{
    return r->ops->kernel(r, k, launch, args, args_size, label);
}

/** Zero device memory. */
static inline int vmaf_gpu_rec_memset(VmafGpuRecorder *r, VmafGpuPtr dst, size_t bytes,
                                      const char *label)
{
    return r->ops->memset(r, dst, bytes, label);
}

/** Copy results to host memory from vmaf_gpu_host_alloc. */
static inline int vmaf_gpu_rec_download(VmafGpuRecorder *r, void *host, VmafGpuPtr src,
                                        size_t bytes, const char *label)
{
    return r->ops->download(r, host, src, bytes, label);
}

/** One picture in a slot (device addresses, host picture layout). */
typedef struct VmafGpuPicture {
    VmafGpuPtr data[3];
    size_t stride[3];
    unsigned w[3], h[3];
    unsigned bpc;
} VmafGpuPicture;

/** What a frame in a slot can read: itself and the slots of the two frames before it. */
typedef struct VmafGpuSlotView {
    unsigned slot;
    const VmafGpuPicture *ref, *dist;
    const VmafGpuPicture *prev_ref, *prev_prev_ref; /* contents valid when those frames exist */
    const VmafGpuPicture *prev_dist;                /* the previous frame's distorted picture */
} VmafGpuSlotView;

typedef struct VmafGpuTwinSetup {
    VmafGpuDevice *dev;
    VmafFeatureGeometry geometry;
    unsigned n_slots;
    bool needs_chroma; /* out: the twin reads chroma */
} VmafGpuTwinSetup;

typedef struct VmafGpuTwin {
    const char *name; /* the CPU extractor it replaces */
    size_t priv_size;
    /** Allocate per-slot buffers, find kernels, write tables. */
    int (*init)(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup);
    /** Record this twin's work for a frame in view->slot. */
    int (*record)(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                  const VmafGpuSlotView *view);
    /** The frame in `slot` is complete: write its scores as the CPU extractor would. */
    int (*collect)(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                   const VmafFeatureFrame *frame, VmafFeatureSink *sink);
    /** Free what init allocated. Called even if init failed (priv starts zeroed). */
    void (*close)(void *priv, VmafGpuDevice *dev);
} VmafGpuTwin;

/** The twin of a CPU extractor, or NULL (whether a backend runs it is the backend's). */
const VmafGpuTwin *vmaf_gpu_twin_for(const char *extractor_name);

#endif /* VMAF_GPU_TWIN_H */
