/*
 * The seam between a VmafContext and a device backend (CUDA in src/cuda/, OpenCL in
 * src/opencl/). The context holds the state a client imported (or VMAF_BACKEND attached at
 * vmaf_init) and, from the first picture on, a backend made from it: twins of the registered
 * extractors (each instance with one gets inst->on_gpu), fed every frame, collected in order.
 * Nothing in the core names a backend beyond this table.
 */
#ifndef VMAF_SRC_DEVICE_H
#define VMAF_SRC_DEVICE_H

#include <stdbool.h>

#include "libvmaf/libvmaf.h"

#include "feature_collector.h"
#include "feature_instance.h"

typedef struct VmafDeviceBackend VmafDeviceBackend;

typedef struct VmafDeviceKind {
    const char *name; /* "CUDA", "OpenCL": for messages */
    /** Twins for every instance that has one on this device; NULL *backend when none. */
    int (*create)(VmafDeviceBackend **backend, void *state, const VmafFeatureGeometry *geometry,
                  VmafFeatureInstance **inst, unsigned inst_cnt, unsigned n_subsample,
                  VmafFeatureCollector *fc, void *ref_group);
    /** Enqueue a frame (holding references to both pictures until it is collected). */
    int (*submit)(VmafDeviceBackend *backend, const VmafPicture *ref, const VmafPicture *dist,
                  unsigned index);
    /** Wait for and collect every frame in flight. */
    int (*flush)(VmafDeviceBackend *backend);
    void (*destroy)(VmafDeviceBackend *backend);
    /** The backend's profile, where it keeps one (may be NULL). */
    void (*print_profile)(const VmafDeviceBackend *backend);
    /** Drop the context's reference to the state. */
    void (*unref_state)(void *state);
    /**
     * Optional (NULL: none): a group of backends on one state that score the same reference
     * pictures frame by frame from one thread (a ladder's rungs, ladder.c): each frame's
     * reference is uploaded once for all. A context holds one in ref_group (context.h) and
     * hands it to create.
     */
    int (*ref_group_create)(void **group, void *state);
    void (*ref_group_ref)(void *group);
    void (*ref_group_unref)(void *group);
    bool device_pictures; /* pictures in this device's memory may be scored */
} VmafDeviceKind;

extern const VmafDeviceKind vmaf_cuda_device_kind;
extern const VmafDeviceKind vmaf_opencl_device_kind;

#endif /* VMAF_SRC_DEVICE_H */
