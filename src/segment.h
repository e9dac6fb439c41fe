/* Segment results (segment.c writes them, segment_merge.c merges them). */
#ifndef VMAF_SRC_SEGMENT_H
#define VMAF_SRC_SEGMENT_H

#include <stdio.h>

#include "context.h"

#define VMAF_SEGMENT_MAGIC "twin_vmaf_segment"
#define VMAF_SEGMENT_FORMAT 1

/** The largest context before and after over the registered extractors. */
void vmaf_segment_context_of(VmafContext *vmaf, unsigned *before, unsigned *after);

/** A JSON string literal. */
void vmaf_segment_put_string(FILE *f, const char *s);

#endif /* VMAF_SRC_SEGMENT_H */
