/* Segment results (segment.c writes them, segment_merge.c merges them). */
#ifndef VMAF_SRC_SEGMENT_H
#define VMAF_SRC_SEGMENT_H

#include <stdio.h>

#include "context.h"
#include "libvmaf/model.h"

#define VMAF_SEGMENT_MAGIC "twin_vmaf_segment"
#define VMAF_SEGMENT_FORMAT 1
#define VMAF_SEGMENT_FINGERPRINT_MAX 255 /* characters of vmaf_segment_set_fingerprint() */

/** Whether s is a fingerprint the library records: 1..255 printable ASCII characters. */
bool vmaf_segment_fingerprint_ok(const char *s);

/** The largest context before and after over the registered extractors. */
void vmaf_segment_context_of(VmafContext *vmaf, unsigned *before, unsigned *after);

/**
 * Called by vmaf_segment_merge_memory() with the merged context after the flush and the model
 * scores (the single run's state before it writes its output), and the models the merge
 * loaded again, in the parts' registration order; what it returns, the merge returns.
 */
typedef int (*VmafSegmentMergedFn)(void *arg, VmafContext *merged, VmafModel *const *models,
                                   VmafModelCollection *const *collections, unsigned model_cnt);

/**
 * vmaf_segment_merge_buffers() that hands the merged context to `merged` instead of writing
 * (the vmaf CLI's --split: it writes and reports as a single run does). fmt is checked
 * against the metric names (vmaf_output_check_names), as the merge does before writing.
 */
int vmaf_segment_merge_memory(const char *const *data, const size_t *size,
                              const char *const *names, unsigned n_parts,
                              enum VmafOutputFormat fmt, VmafSegmentMergedFn merged, void *arg);

/** A JSON string literal. */
void vmaf_segment_put_string(FILE *f, const char *s);

#endif /* VMAF_SRC_SEGMENT_H */
