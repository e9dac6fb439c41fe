/* One configured extractor: its descriptor, options, private state and output names. */
#ifndef VMAF_SRC_FEATURE_INSTANCE_H
#define VMAF_SRC_FEATURE_INSTANCE_H

#include <stdbool.h>

#include "dict.h"
#include "feature/feature_extractor.h"

typedef struct VmafFeatureInstance {
    const VmafFeatureExtractor *fex;
    VmafDictionary *opts;  /* owned; STRING options point into it */
    void *priv;
    char **mapped;         /* output name of each provided feature */
    char *ident;           /* extractor name + option suffix: equal idents are duplicates */
    bool initialized, init_failed;
    bool on_gpu;           /* its CUDA twin runs it; the CPU instance keeps state and flushes */
} VmafFeatureInstance;

/**
 * Create an instance; takes ownership of opts (also on failure). A bad option value gives
 * -EINVAL with a message naming the extractor, option and value.
 */
int vmaf_feature_instance_create(VmafFeatureInstance **inst, const VmafFeatureExtractor *fex,
                                 VmafDictionary *opts, enum VmafLogLevel log_level);

/** A fresh instance with the same descriptor and options (for worker threads). */
int vmaf_feature_instance_clone(VmafFeatureInstance **inst, const VmafFeatureInstance *src);

/** Run init once; later calls return its first result. */
int vmaf_feature_instance_init(VmafFeatureInstance *inst, const VmafFeatureGeometry *geo);

void vmaf_feature_instance_destroy(VmafFeatureInstance *inst);

/**
 * Position of an extractor's stores among those of one frame (and at flush). With worker
 * threads, reference libvmaf runs TEMPORAL extractors in the calling thread before it hands
 * the frame to its workers, so their metrics come first, then registration order; without
 * (n_threads == 0) every extractor runs in registration order.
 */
static inline uint32_t vmaf_store_rank(const VmafFeatureExtractor *fex, unsigned ext,
                                       bool threaded)
{
    if (!threaded) return ext;
    return ((fex->flags & VMAF_FEATURE_EXTRACTOR_TEMPORAL) ? 0u : 1u << 16) | ext;
}

/** Output alias of an internal feature name (e.g. VMAF_integer_feature_adm2_score -> integer_adm2). */
const char *vmaf_feature_name_alias(const char *name);

#endif /* VMAF_SRC_FEATURE_INSTANCE_H */
