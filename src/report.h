/*
 * The HTML report of a run or a ladder (README "Reports"): one self-contained file (inline
 * SVG, CSS and script; nothing is fetched) with, per metric, one curve per rung (a rung: a
 * distorted input, or one JSON output file) and its pooled lines, the pooled scores of every
 * rung in a sortable table, the worst frames of each rung linked to their place on the
 * curve, and the run's parameters.
 *
 * The rules the file states (and tests/report/report_tool.py checks):
 * - Decimation: a curve of at most VMAF_REPORT_MAX_POINTS finite values is drawn whole.
 *   A longer one is cut into VMAF_REPORT_BUCKETS buckets of consecutive frames (bucket b
 *   holds the curve's finite values at positions [b*n/B, (b+1)*n/B), n of them, B buckets)
 *   and each bucket is drawn by its minimum and its maximum (the first frame of each on a
 *   tie), in frame order, so every drop stays visible; every worst frame of the primary
 *   metric is drawn exactly as well. Frames whose value is not a number are not drawn.
 * - Percentiles: nearest rank over the rung's finite values of the metric, sorted
 *   ascending: the p-th percentile is the value of rank ceil(p * n / 100) (at least 1).
 * - Primary metric: the first model score (in output order), else the first metric; its
 *   VMAF_REPORT_WORST lowest finite values per rung (ties: the earlier frame first) are
 *   the worst frames.
 * - Mean, harmonic mean, minimum and maximum are the source's pooled values (what the
 *   output file holds), absent where the source has none.
 * - Numbers in attributes (curve points, data-v) are the values exactly: the shortest of
 *   %.15g, %.16g and %.17g that reads back as the same double.
 */
#ifndef VMAF_SRC_REPORT_H
#define VMAF_SRC_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "libvmaf/libvmaf.h"

#include "json.h"

#define VMAF_REPORT_MAX_POINTS 2000
#define VMAF_REPORT_BUCKETS (VMAF_REPORT_MAX_POINTS / 2)
#define VMAF_REPORT_WORST 20
#define VMAF_REPORT_MAX_METRICS 4096 /* of one JSON file (names are matched by search) */

typedef struct VmafReportMetric {
    char *name;               /* as the output file writes it (aliased) */
    bool model;               /* a model's score */
    double *value;            /* one per frame of the rung; NAN where the frame has none */
    bool pooled[VMAF_POOL_METHOD_NB]; /* the source's pooled value by method is known */
    double pool[VMAF_POOL_METHOD_NB];
} VmafReportMetric;

typedef struct VmafReportRung {
    char *name;               /* shown: the source's file name */
    char *source;             /* the distorted input or the JSON file */
    char *output;             /* the run's output file of this rung, or NULL */
    char *version;            /* the library version the scores came from, or NULL */
    unsigned *frame;          /* frame numbers, ascending */
    unsigned frame_cnt;
    VmafReportMetric *metric;
    unsigned metric_cnt;
    char **agg_name;          /* aggregate metrics (apsnr, ...) */
    double *agg_value;
    unsigned agg_cnt;
} VmafReportRung;

typedef struct VmafReport {
    VmafReportRung *rung;
    unsigned rung_cnt;
    char **param;             /* the run's parameters: key, value, key, value, ... */
    unsigned param_cnt;       /* pairs */
    unsigned fps_num, fps_den; /* frame rate for time codes; fps_den 0: unknown */
} VmafReport;

/** Append a parameter row (copied). 0 or -ENOMEM. */
int vmaf_report_add_param(VmafReport *r, const char *key, const char *value);

/**
 * Append a rung holding the scores of a context after its flush and prediction: the frames,
 * metrics (output order and names), pooled values and aggregates its output file holds.
 * source: its distorted input; output: its output file or NULL. 0 or a negative errno.
 */
int vmaf_report_add_context(VmafReport *r, VmafContext *vmaf, const char *source,
                            const char *output);

/**
 * Append a rung from a parsed JSON output file (ours, CONTRACT.md §3, or reference libvmaf's):
 * frames in ascending frameNum, metrics in order of first appearance; a metric is a model
 * score when its name is "vmaf" or starts with "vmaf_", or when no feature extractor of this
 * library writes it (a score named by --model ...:name=); a model named like a feature (its
 * name an extractor's or a feature's, alone or followed by '_') is taken for a feature.
 * 0, or -EINVAL with the reason in err.
 */
int vmaf_report_add_json(VmafReport *r, const VmafJson *root, const char *source, char *err,
                         size_t err_sz);

/**
 * Write the report to path through vmaf_file_write() (atomic; refused when path is one of
 * keep[0..keep_cnt)). 0 or a negative errno (logged at log_level).
 */
int vmaf_report_write(const VmafReport *r, const char *path, const char *const *keep,
                      unsigned keep_cnt, enum VmafLogLevel log_level);

/**
 * The report of JSON output files, one rung each, written to path (never one of them):
 * what vmaf_report_from_json() and `vmaf --report-from` do. 0 or a negative errno, the
 * reason logged at log_level.
 */
int vmaf_report_json_files(const char *const *json_path, unsigned n, const char *path,
                           unsigned fps_num, unsigned fps_den, enum VmafLogLevel log_level);

void vmaf_report_free(VmafReport *r);

#endif /* VMAF_SRC_REPORT_H */
