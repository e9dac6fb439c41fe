/*
 * Scores by feature name and frame index, plus per-sequence aggregates.
 *
 * Output lists metrics in the order reference libvmaf first stores them (CONTRACT.md §3).
 * Every store carries where it came from (phase, frame index of the call, extractor position,
 * TEMPORAL or not, sequence within the call); the collector turns that into a sort key for its
 * threading mode, and a metric's position is the smallest key it was stored with, so the
 * order does not depend on which thread stored first:
 *  - single-threaded (n_threads == 0): frame by frame, extractors in registration order;
 *    flush in registration order.
 *  - threaded (n_threads >= 1): the reference runs TEMPORAL extractors in the caller's thread
 *    and the others on its workers. With one worker, the caller has usually scored the TEMPORAL
 *    extractors of frame i+1 before the worker finishes frame i (frame 1 of float_motion stores
 *    motion3 of frame 0), so a TEMPORAL store of call i sorts with frame i-1, ahead of that
 *    frame's worker stores; flush runs TEMPORAL extractors first.
 */
#ifndef VMAF_SRC_FEATURE_COLLECTOR_H
#define VMAF_SRC_FEATURE_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "libvmaf/libvmaf.h"

enum VmafStorePhase {
    VMAF_STORE_PHASE_EXTRACT = 0,
    VMAF_STORE_PHASE_FLUSH = 1,
    VMAF_STORE_PHASE_LATE = 2, /* imports and model scores, in call order */
};

typedef struct VmafStoreOrder {
    uint32_t phase;
    uint32_t index;  /* frame index of the extract call (0 at flush) */
    uint32_t ext;    /* position of the extractor among the registered ones */
    uint32_t seq;    /* stores before this one in the same call */
    bool temporal;   /* from a TEMPORAL extractor */
} VmafStoreOrder;

typedef struct VmafFeatureVector {
    char *name;
    VmafStoreOrder order;
    double *value;
    uint8_t *written;
    unsigned capacity;
} VmafFeatureVector;

typedef struct VmafAggregate {
    char *name;
    double value;
    VmafStoreOrder order;
} VmafAggregate;

typedef struct VmafFeatureCollector VmafFeatureCollector;

struct VmafFeatureSink {
    VmafFeatureCollector *fc;
    const char *const *provided; /* the extractor's unsuffixed names */
    char *const *mapped;         /* their option-suffixed output names */
    VmafStoreOrder order;        /* seq advances with every store */
};

/** threaded: the context has worker threads (n_threads >= 1); it selects the output order. */
int vmaf_feature_collector_init(VmafFeatureCollector **fc, enum VmafLogLevel log_level,
                                bool threaded);
void vmaf_feature_collector_destroy(VmafFeatureCollector *fc);

int vmaf_feature_collector_append(VmafFeatureCollector *fc, const char *name, double value,
                                  unsigned index, VmafStoreOrder order);
/**
 * Copy every later EXTRACT store of the extractor at position src_ext into dst, as if dst's
 * extractor at position dst_ext had made it (same index and sequence: the same place in
 * dst's output order). dst must forward nothing itself. A ladder's shared reference-only
 * extractors reach their rungs this way (their flush runs in each rung).
 */
int vmaf_feature_collector_forward(VmafFeatureCollector *fc, unsigned src_ext,
                                   VmafFeatureCollector *dst, unsigned dst_ext);
/** Stop every forward into dst (returns once no store is being copied into it). */
void vmaf_feature_collector_unforward(VmafFeatureCollector *fc, const VmafFeatureCollector *dst);

/** A store in the LATE phase, ordered after everything before it. */
int vmaf_feature_collector_append_late(VmafFeatureCollector *fc, const char *name,
                                       double value, unsigned index);
int vmaf_feature_collector_get_score(VmafFeatureCollector *fc, const char *name,
                                     double *value, unsigned index);
int vmaf_feature_collector_set_aggregate(VmafFeatureCollector *fc, const char *name,
                                         double value, VmafStoreOrder order);

/**
 * A snapshot for output: vectors and aggregates sorted by order key. The pointers stay
 * valid until the collector is written to again or destroyed. Free the arrays with free().
 */
int vmaf_feature_collector_sorted(VmafFeatureCollector *fc, VmafFeatureVector ***vec,
                                  unsigned *cnt, VmafAggregate ***agg, unsigned *agg_cnt);

/** CPU seconds between the first and the last store (for the fps field), or as set. */
double vmaf_feature_collector_cpu_seconds(VmafFeatureCollector *fc);

/** A segment's collector: scores outside [first, last) and every aggregate are dropped. */
void vmaf_feature_collector_keep(VmafFeatureCollector *fc, unsigned first, unsigned last);
bool vmaf_feature_collector_keeps(VmafFeatureCollector *fc, unsigned index);
bool vmaf_feature_collector_threaded(const VmafFeatureCollector *fc);
/** A merge's fps: the parts' CPU seconds, summed. */
void vmaf_feature_collector_set_cpu_seconds(VmafFeatureCollector *fc, double seconds);

#endif /* VMAF_SRC_FEATURE_COLLECTOR_H */
