/*
 * What every device backend does the same way around its twins (src/cuda/backend.c,
 * src/opencl/backend.c): which twins a frame runs, where a slot's pictures lie, and how a
 * twin's results enter the collector, so that no backend can order scores differently.
 */
#ifndef VMAF_GPU_BACKEND_UTIL_H
#define VMAF_GPU_BACKEND_UTIL_H

#include <stdbool.h>

#include "feature_collector.h"
#include "feature_instance.h"
#include "gpu/twin.h"
#include "picture.h"

/** A twin that subsampling may skip: neither temporal nor reading the previous reference. */
static inline bool vmaf_gpu_twin_subsampled(const VmafFeatureInstance *inst)
{
    return !(inst->fex->flags & (VMAF_FEATURE_EXTRACTOR_TEMPORAL | VMAF_FEATURE_EXTRACTOR_PREV_REF));
}

/** Whether the frame at index runs every twin (else only those that see every frame); with
 *  no subsampled twin both sets are one. */
static inline bool vmaf_gpu_runs_every_twin(unsigned n_subsample, unsigned index,
                                            unsigned n_every_frame, unsigned n_twins)
{
    return n_subsample <= 1 || !(index % n_subsample) || n_every_frame == n_twins;
}

/** A slot picture at device address base in layout l. */
static inline void vmaf_gpu_set_picture(VmafGpuPicture *p, VmafGpuPtr base,
                                        const VmafPictureLayout *l, unsigned bpc)
{
    for (int i = 0; i < 3; i++) {
        p->data[i] = l->h[i] ? base + l->offset[i] : 0;
        p->stride[i] = (size_t)l->stride[i];
        p->w[i] = l->w[i];
        p->h[i] = l->h[i];
    }
    p->bpc = bpc;
}

/** Collect one twin's results of the frame at index (in slot) as its CPU extractor stores
 *  them (instance ext of the context, its store order); a failure is logged, naming backend. */
static inline int vmaf_gpu_collect_twin(const VmafGpuTwin *twin, void *priv,
                                        VmafFeatureInstance *inst, unsigned ext,
                                        VmafGpuDevice *dev, unsigned slot, unsigned index,
                                        VmafFeatureCollector *fc, enum VmafLogLevel level)
{
    const VmafFeatureFrame frame = { .index = index };
    VmafFeatureSink sink = {
        .fc = fc,
        .provided = inst->fex->provided_features,
        .mapped = inst->mapped,
        .order = vmaf_store_order(VMAF_STORE_PHASE_EXTRACT, inst->fex, ext, index),
    };
    const int err = twin->collect(priv, inst->priv, dev, slot, &frame, &sink);
    if (err)
        vmaf_log(level, VMAF_LOG_LEVEL_ERROR, "%s (%s): frame %u failed\n", inst->fex->name,
                 dev->ops->name, index);
    return err;
}

#endif /* VMAF_GPU_BACKEND_UTIL_H */
