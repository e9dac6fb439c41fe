/*
 * The feature extractor interface.
 *
 * An extractor is a `static const VmafFeatureExtractor` descriptor: callbacks, an option
 * table into its private state, the features it provides and its flags. The framework
 * allocates the private state (priv_size bytes, zeroed), fills the options, calls init once
 * the geometry is known, extract per frame, flush once at the end, and close.
 *
 * With n_threads > 1 each worker thread has its own instance of every non-TEMPORAL
 * extractor, so extract must depend only on the frame it is given (and, for PREV_REF, the
 * previous reference pictures). State that spans frames belongs to TEMPORAL extractors,
 * which always run in frame order on one instance. flush runs on the registered instance.
 */
#ifndef VMAF_FEATURE_EXTRACTOR_H
#define VMAF_FEATURE_EXTRACTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/picture.h"

#include "log.h"
#include "opt.h"

enum VmafFeatureExtractorFlags {
    /** Frames arrive in order on one instance; never subsampled. */
    VMAF_FEATURE_EXTRACTOR_TEMPORAL = 1 << 0,
    /** Needs the previous reference pictures (frame.prev_ref / prev_prev_ref); never subsampled. */
    VMAF_FEATURE_EXTRACTOR_PREV_REF = 1 << 1,
};

typedef struct VmafFeatureGeometry {
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
    enum VmafLogLevel log_level; /**< for vmaf_log() from the extractor */
    /** A worker thread's copy of a registered instance, initialised after that instance
     *  (e.g. files the registered instance created must be reopened, not truncated). */
    bool worker_copy;
} VmafFeatureGeometry;

typedef struct VmafFeatureFrame {
    const VmafPicture *ref, *dist;
    /** PREV_REF extractors only: reference at index-1 and index-2, NULL when absent. */
    const VmafPicture *prev_ref, *prev_prev_ref;
    unsigned index;
} VmafFeatureFrame;

/** Where an extractor writes its scores (see feature_collector.h). */
typedef struct VmafFeatureSink VmafFeatureSink;

typedef struct VmafFeatureExtractor {
    const char *name;
    size_t priv_size;
    const VmafOption *options;           /**< terminated by an entry with name NULL */
    const char *const *provided_features; /**< NULL-terminated, unsuffixed names */
    uint64_t flags;

    /** Optional. Geometry of all coming frames; allocate buffers, reject what is unsupported. */
    int (*init)(void *priv, const VmafFeatureGeometry *geometry);
    /** Score one frame pair and append the results to sink. */
    int (*extract)(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink);
    /** Optional. Called once after the last frame (also when no frame came). */
    int (*flush)(void *priv, VmafFeatureSink *sink);
    /** Optional. Free what init allocated; called even if init failed or never ran. */
    void (*close)(void *priv);
} VmafFeatureExtractor;

/**
 * Append a score. `name` is the unsuffixed name; when it is one of the extractor's provided
 * features, the framework writes it under its option-suffixed name (CONTRACT.md §4).
 * Writing the same name twice at one index is an error.
 */
int vmaf_feature_sink_append(VmafFeatureSink *sink, const char *name, double value,
                             unsigned index);

/** Read back a score this extractor wrote (same name mapping). -EINVAL if absent. */
int vmaf_feature_sink_get(VmafFeatureSink *sink, const char *name, double *value,
                          unsigned index);

/** Set an aggregate (one value per sequence, e.g. apsnr_y). */
int vmaf_feature_sink_set_aggregate(VmafFeatureSink *sink, const char *name, double value);

/** Look up an extractor by name; NULL if unknown. */
const VmafFeatureExtractor *vmaf_feature_extractor_by_name(const char *name);

/** The extractor that provides the (unsuffixed) feature `feature_name`; NULL if none. */
const VmafFeatureExtractor *vmaf_feature_extractor_by_feature_name(const char *feature_name);

#endif /* VMAF_FEATURE_EXTRACTOR_H */
