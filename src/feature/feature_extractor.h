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
    /**
     * flush() reads only the scores in the sink, the options and the flush counters: a
     * segment does not call it; the segment merge calls it once over the merged scores of the
     * whole title (after adding up every part's counters with add_counters).
     */
    VMAF_FEATURE_EXTRACTOR_FLUSH_AT_MERGE = 1 << 2,
    /**
     * Reads only plane 0 (luma) of its pictures, whatever its options (those whose options
     * decide it set luma_only instead): the CLI's readers then leave the chroma planes of
     * 8-bit inputs unread when every registered extractor is so.
     */
    VMAF_FEATURE_EXTRACTOR_LUMA_ONLY = 1 << 3,
    /**
     * Reads only the reference pictures (frame.ref, prev_ref, prev_prev_ref), never
     * frame.dist, and its scores depend on nothing else. With FLUSH_AT_MERGE and no
     * counters, a ladder (several distorted against one reference) runs its extract once for
     * every rung with equal options, and each rung's flush makes the rest from those scores,
     * wherever that rung's distorted ends.
     */
    VMAF_FEATURE_EXTRACTOR_REF_ONLY = 1 << 4,
};

/** Most flush counters an extractor keeps (VmafFeatureExtractor.n_counters). */
#define VMAF_FEATURE_MAX_COUNTERS 8

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
    /** A side product of ref (picture.h) that another reader is computing right now is not
     *  waited for: extract then returns -EAGAIN having stored nothing, and is called again
     *  for the frame later with side_nowait false (the worker scores the rung's other
     *  extractors meanwhile instead of idling). */
    bool side_nowait;
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

    /**
     * Optional (NULL: none). Frames of context a segment needs around its frames for this
     * extractor's kept scores to equal a whole run's, with the options in priv (called
     * before init): `before` frames preceding the segment, `after` frames following it.
     */
    void (*context)(const void *priv, unsigned *before, unsigned *after);

    /** Optional: whether, with the options in priv (called before init), only plane 0 is
     *  read. NULL: the LUMA_ONLY flag says. */
    bool (*luma_only)(const void *priv);

    /**
     * FLUSH_AT_MERGE only, optional: n_counters cross-frame sums that flush needs, gathered
     * over the kept frames only (vmaf_feature_sink_keeps). get_counters reads them after a
     * segment; add_counters adds a part's into a fresh instance before the merge's flush.
     * Integer sums, so their order does not matter.
     */
    unsigned n_counters;
    void (*get_counters)(const void *priv, uint64_t *counters);
    void (*add_counters)(void *priv, const uint64_t *counters);
} VmafFeatureExtractor;

/** The context an extractor instance needs (0 and 0 when it declares none). */
static inline void vmaf_feature_extractor_context(const VmafFeatureExtractor *fex,
                                                  const void *priv, unsigned *before,
                                                  unsigned *after)
{
    *before = *after = 0;
    if (fex->context) fex->context(priv, before, after);
}

/** Whether an instance with these options reads only the luma plane. */
static inline bool vmaf_feature_extractor_luma_only(const VmafFeatureExtractor *fex,
                                                    const void *priv)
{
    if (fex->luma_only) return fex->luma_only(priv);
    return (fex->flags & VMAF_FEATURE_EXTRACTOR_LUMA_ONLY) != 0;
}

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

/**
 * Whether a score at `index` is kept: false for the context frames of a segment (their
 * scores are dropped). Extractors that sum over frames for flush sum only kept frames.
 */
bool vmaf_feature_sink_keeps(const VmafFeatureSink *sink, unsigned index);

/** Set an aggregate (one value per sequence, e.g. apsnr_y). */
int vmaf_feature_sink_set_aggregate(VmafFeatureSink *sink, const char *name, double value);

/** Look up an extractor by name; NULL if unknown. */
const VmafFeatureExtractor *vmaf_feature_extractor_by_name(const char *name);

/** The extractor that provides the (unsuffixed) feature `feature_name`; NULL if none. */
const VmafFeatureExtractor *vmaf_feature_extractor_by_feature_name(const char *feature_name);

#endif /* VMAF_FEATURE_EXTRACTOR_H */
