/*
 * The CUDA side of a VmafContext: twins of the registered extractors, the shared device frame
 * (a ring of slots, fenced by events), one recorded graph per slot, and result collection.
 * Without CUDA in the build every entry point reports -ENOSYS.
 *
 * A frame's uploads (luma always, chroma when a twin asks) and its `uploaded` event are issued
 * on the slot's stream directly, before the slot's graph: other slots' streams wait on that
 * event (cuStreamWaitEvent), and only an event so recorded captures the uploads at the moment
 * of a wait or a query. An upload into a slot waits for the frames that still read it; a
 * frame waits for the uploads of the two frames before it (temporal twins read their slots).
 * The graph has one branch per twin (twins are independent). The host pictures go back to
 * their pool once `uploaded` has completed (queried at each submit), not when the frame's
 * results are collected, N_SLOTS frames later; the host waits once per frame, when it reuses
 * that frame's slot. Pinned-pool pictures not yet prepared are prepared (pinned) at submit,
 * luma only when no twin needs chroma, so uploads never start from pageable memory.
 */
#ifndef VMAF_CUDA_BACKEND_H
#define VMAF_CUDA_BACKEND_H

#include "libvmaf/libvmaf.h"

#include "feature_collector.h"
#include "feature_instance.h"
#include "picture_pool.h"

typedef struct VmafCudaState VmafCudaState;
typedef struct VmafCudaBackend VmafCudaBackend;

/**
 * The reference frames of backends that score the same reference pictures, frame by frame,
 * from one thread (a ladder's rungs): uploaded once per frame for all (backend.c says how).
 * Made empty; a backend created with it joins it if its geometry and planes match the
 * first member's (else it keeps its own reference buffers). Reference counted: the creator's
 * reference, and one per member.
 */
typedef struct VmafCudaRefGroup VmafCudaRefGroup;

int vmaf_cuda_ref_group_create(VmafCudaRefGroup **group, VmafCudaState *state);
void vmaf_cuda_ref_group_ref(VmafCudaRefGroup *group);
void vmaf_cuda_ref_group_unref(VmafCudaRefGroup *group);
/** References uploaded into the group so far (statistics, tests). */
unsigned long long vmaf_cuda_ref_group_uploads(const VmafCudaRefGroup *group);

/**
 * Create twins for every instance that has one (setting inst[i]->on_gpu), and the device frame
 * ring for this geometry (its reference frames from group where it joins one; group may be
 * NULL). With no twin among the instances, *backend stays NULL.
 */
int vmaf_cuda_backend_create(VmafCudaBackend **backend, VmafCudaState *state,
                             const VmafFeatureGeometry *geometry, VmafFeatureInstance **inst,
                             unsigned inst_cnt, unsigned n_subsample,
                             VmafFeatureCollector *fc, VmafCudaRefGroup *group);

/** Enqueue a frame (holding references to both pictures until it is collected). */
int vmaf_cuda_backend_submit(VmafCudaBackend *backend, const VmafPicture *ref,
                             const VmafPicture *dist, unsigned index);

/** Wait for and collect every frame in flight. */
int vmaf_cuda_backend_flush(VmafCudaBackend *backend);

void vmaf_cuda_backend_destroy(VmafCudaBackend *backend);

/** With VMAF_CUDA_PROFILE: print the start-up and per-frame profile now (destroy prints it
 *  too; for a client that leaves the backend to the process exit). NULL: nothing. */
void vmaf_cuda_backend_print_profile(const VmafCudaBackend *backend);

void vmaf_cuda_state_ref(VmafCudaState *s);
void vmaf_cuda_state_unref(VmafCudaState *s);

/** The pool callbacks for vmaf_cuda_preallocate_pictures (pinned host / device memory):
 *  alloc, free, prepare, unprepare and alloc_zeroes of pc. */
int vmaf_cuda_pool_config(VmafCudaState *s, int device_memory, VmafPicturePoolConfig *pc);

#endif /* VMAF_CUDA_BACKEND_H */
