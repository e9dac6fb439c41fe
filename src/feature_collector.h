/*
 * Scores by feature name and frame index, plus per-sequence aggregates.
 *
 * Output lists metrics in the order reference libvmaf stores them (with its usual worker
 * thread). Every store carries an order key (phase, frame index of the call, extractor rank:
 * TEMPORAL extractors first, then registration order, sequence within the call); a metric's
 * position is the smallest key it was stored with, so the order is the same with any number
 * of threads.
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
    uint32_t phase, index, ext, seq;
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

int vmaf_feature_collector_init(VmafFeatureCollector **fc, enum VmafLogLevel log_level);
void vmaf_feature_collector_destroy(VmafFeatureCollector *fc);

int vmaf_feature_collector_append(VmafFeatureCollector *fc, const char *name, double value,
                                  unsigned index, VmafStoreOrder order);
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

/** CPU seconds between the first and the last store (for the fps field). */
double vmaf_feature_collector_cpu_seconds(VmafFeatureCollector *fc);

#endif /* VMAF_SRC_FEATURE_COLLECTOR_H */
