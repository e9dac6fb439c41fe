/* One configured extractor: its descriptor, options, private state and output names. */
#ifndef VMAF_SRC_FEATURE_INSTANCE_H
#define VMAF_SRC_FEATURE_INSTANCE_H

#include <stdbool.h>

#include "dict.h"
#include "feature_collector.h"
#include "feature/feature_extractor.h"

typedef struct VmafFeatureInstance {
    const VmafFeatureExtractor *fex;
    VmafDictionary *opts;  /* owned; STRING options point into it */
    void *priv;
    char **mapped;         /* output name of each provided feature */
    char *ident;           /* extractor name + option suffix: equal idents are duplicates */
    bool initialized, init_failed;
    bool on_gpu;           /* its CUDA twin runs it; the CPU instance keeps state and flushes */
    bool shared;           /* a ladder's reference context runs it for this rung (ladder.c) */
} VmafFeatureInstance;

/**
 * Create an instance; takes ownership of opts (also on failure). A bad option value gives
 * -EINVAL with a message naming the extractor, option and value. Unknown keys are ignored
 * here; vmaf_feature_instance_warn_unknown() names them.
 */
int vmaf_feature_instance_create(VmafFeatureInstance **inst, const VmafFeatureExtractor *fex,
                                 VmafDictionary *opts, enum VmafLogLevel log_level);

/** Warn about each option key the extractor does not have (once per registered instance,
 * when scoring starts). */
void vmaf_feature_instance_warn_unknown(const VmafFeatureInstance *inst,
                                        enum VmafLogLevel log_level);

/** A fresh instance with the same descriptor and options (for worker threads). */
int vmaf_feature_instance_clone(VmafFeatureInstance **inst, const VmafFeatureInstance *src);

/** Run init once; later calls return its first result. */
int vmaf_feature_instance_init(VmafFeatureInstance *inst, const VmafFeatureGeometry *geo);

void vmaf_feature_instance_destroy(VmafFeatureInstance *inst);

/** Where a store of this extractor comes from, for the output order (feature_collector.h). */
static inline VmafStoreOrder vmaf_store_order(enum VmafStorePhase phase,
                                              const VmafFeatureExtractor *fex, unsigned ext,
                                              unsigned index)
{
    return (VmafStoreOrder){ .phase = phase, .index = index, .ext = ext,
                             .temporal = (fex->flags & VMAF_FEATURE_EXTRACTOR_TEMPORAL) != 0 };
}

/** Output alias of an internal feature name (e.g. VMAF_integer_feature_adm2_score -> integer_adm2). */
const char *vmaf_feature_name_alias(const char *name);

#endif /* VMAF_SRC_FEATURE_INSTANCE_H */
