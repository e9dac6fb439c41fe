/*
 * libFuzzer: segment results (vmaf_segment_merge_memory). The input is up to 8 parts separated
 * by NUL bytes; they are merged as the vmaf CLI's --merge merges parts, and a merge that
 * succeeds pools a few of the merged scores. The fuzz build's version is "fuzz": the seeds
 * (corpus/segment) are parts of the CLI with that version, whole and tampered.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "segment.h"

#define MAX_PARTS 8

static int merged(void *arg, VmafContext *vmaf, VmafModel *const *models,
                  VmafModelCollection *const *collections, unsigned model_cnt)
{
    (void)arg;
    (void)models;
    (void)collections;
    (void)model_cnt;
    static const char *const names[] = { "psnr_y", "motion2", "integer_motion2", "float_motion" };
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        double score;
        vmaf_feature_score_pooled(vmaf, names[i], VMAF_POOL_METHOD_MEAN, &score, 0, 0);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *part[MAX_PARTS];
    size_t len[MAX_PARTS];
    unsigned n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && n < MAX_PARTS; i++) {
        if (i < size && data[i]) continue;
        part[n] = (const char *)data + start;
        len[n++] = i - start;
        start = i + 1;
    }
    vmaf_segment_merge_memory(part, len, NULL, n, VMAF_OUTPUT_FORMAT_JSON, merged, NULL);
    return 0;
}
