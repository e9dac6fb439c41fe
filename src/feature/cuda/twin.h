/*
 * A GPU twin: the CUDA counterpart of one CPU feature extractor, giving the same bits.
 *
 * A twin never uploads pictures: it reads the shared device frame, a ring of slots each holding
 * one frame's reference and distorted pictures (luma always, chroma when some twin asks) in
 * the host picture layout. It records its kernels and result downloads once per slot; after
 * the frame completes, collect() turns the downloaded results into scores through the CPU
 * extractor's own code (with the CPU instance's state), so the arithmetic after the device
 * part is shared, not copied.
 */
#ifndef VMAF_FEATURE_CUDA_TWIN_H
#define VMAF_FEATURE_CUDA_TWIN_H

#include <stdbool.h>
#include <stddef.h>

#include "cuda/recorder.h"
#include "cuda/state.h"
#include "feature/feature_extractor.h"

/** One picture in a slot (device addresses, host picture layout). */
typedef struct VmafCudaPicture {
    CUdeviceptr data[3];
    size_t stride[3];
    unsigned w[3], h[3];
    unsigned bpc;
} VmafCudaPicture;

/** What a frame in a slot can read: itself and the slots of the two frames before it. */
typedef struct VmafCudaSlotView {
    unsigned slot;
    const VmafCudaPicture *ref, *dist;
    const VmafCudaPicture *prev_ref, *prev_prev_ref; /* contents valid when those frames exist */
    const VmafCudaPicture *prev_dist;                /* the previous frame's distorted picture */
} VmafCudaSlotView;

typedef struct VmafCudaTwinSetup {
    VmafCudaState *state;
    VmafFeatureGeometry geometry;
    unsigned n_slots;
    bool needs_chroma; /* out: the twin reads chroma */
} VmafCudaTwinSetup;

typedef struct VmafCudaTwin {
    const char *name; /* the CPU extractor it replaces */
    size_t priv_size;
    /** Allocate per-slot buffers; the state's context is current. */
    int (*init)(void *priv, const void *cpu_priv, VmafCudaTwinSetup *setup);
    /** Record this twin's work for a frame in view->slot. */
    int (*record)(void *priv, const void *cpu_priv, VmafCudaRecorder *rec,
                  const VmafCudaSlotView *view);
    /** The frame in `slot` is complete: write its scores as the CPU extractor would. */
    int (*collect)(void *priv, void *cpu_priv, unsigned slot, const VmafFeatureFrame *frame,
                   VmafFeatureSink *sink);
    /** Free; the state's context is current. Called even if init failed. */
    void (*close)(void *priv, VmafCudaState *state);
} VmafCudaTwin;

/** The twin of a CPU extractor, or NULL. */
const VmafCudaTwin *vmaf_cuda_twin_for(const char *extractor_name);

/** Device memory helpers for twins (context current). */
int vmaf_cuda_twin_alloc(VmafCudaState *s, size_t bytes, CUdeviceptr *ptr);
void vmaf_cuda_twin_free(VmafCudaState *s, CUdeviceptr ptr);

#endif /* VMAF_FEATURE_CUDA_TWIN_H */
