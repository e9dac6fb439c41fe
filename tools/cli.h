/* Command line of the `vmaf` tool (CONTRACT.md §2). */
#ifndef VMAF_TOOLS_CLI_H
#define VMAF_TOOLS_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "libvmaf/libvmaf.h"

#define CLI_MAX_ENTRIES 32
#define CLI_MAX_SEGMENTS 64 /* --split N, --cuda_devices entries */
#define CLI_MAX_DISTORTED 256 /* -d of one ladder */

typedef struct CliFeature {
    char *name;                       /* points into buf */
    VmafFeatureDictionary *opts;
    char *buf;
} CliFeature;

typedef struct CliOverload {
    char *feature;                    /* extractor name before the '.' */
    VmafFeatureDictionary *opts;
} CliOverload;

typedef struct CliModel {
    const char *name;                 /* "vmaf" unless name= */
    const char *path, *version;
    bool disable_clip, enable_transform;
    CliOverload overload[CLI_MAX_ENTRIES];
    unsigned overload_cnt;
    char *buf;
} CliModel;

enum CliBackend {
    CLI_BACKEND_AUTO = 0, /* CUDA when a device exists, else an OpenCL GPU, else the CPU */
    CLI_BACKEND_CPU,
    CLI_BACKEND_CUDA,
    CLI_BACKEND_OPENCL,
};

typedef struct CliSettings {
    const char *path_ref, *path_dist;  /* path_dist: the first -d */
    const char *dist_path[CLI_MAX_DISTORTED]; /* every -d, in order (several: a ladder) */
    unsigned dist_cnt;
    const char *output_list[CLI_MAX_DISTORTED]; /* every -o, in order (output_path: the last) */
    unsigned output_cnt;
    bool use_yuv;
    unsigned width, height, bitdepth;
    enum VmafPixelFormat pix_fmt;
    const char *output_path;
    enum VmafOutputFormat output_fmt;
    int precision;                    /* < 0: reference format; 1..17: %.Ng */
    CliModel model[CLI_MAX_ENTRIES];
    unsigned model_cnt;
    CliFeature feature[CLI_MAX_ENTRIES];
    unsigned feature_cnt;
    unsigned threads, subsample;
    uint64_t cpumask, gpumask;
    unsigned frame_cnt, frame_skip_ref, frame_skip_dist;
    bool no_prediction, quiet, common_bitdepth;
    enum CliBackend backend;
    int opencl_device;                /* --opencl_device N; -1: not given */
    int opencl_gpu;                   /* --backend auto: the first OpenCL GPU, -1: none; found
                                       * once, before segments run in threads (main) */
    bool segment;                     /* --segment A:B: score frames [A, B), write a part */
    unsigned segment_first, segment_last;
    bool merge;                       /* --merge PART...: merge parts into -o */
    char *const *merge_part;          /* points into argv */
    unsigned merge_cnt;
    unsigned split;                   /* --split N (or the --cuda_devices count): the title as
                                       * N segments scored at once in this process; 0: one */
    int cuda_device[CLI_MAX_SEGMENTS]; /* --cuda_devices: segment i's CUDA device */
    unsigned cuda_device_cnt;
    bool opencl_list;                 /* --opencl_list: list the OpenCL devices and exit */
    const char *batch;                /* --batch FILE: its jobs, in this process */
    const char *report;               /* --report FILE: the HTML report, written after -o */
    bool report_from;                 /* --report-from JSON...: the report of output files */
    char *const *report_json;         /* points into argv */
    unsigned report_json_cnt;
    unsigned report_fps_num, report_fps_den; /* --report-fps, else (main) the Y4M header's F;
                                       * report_fps_den 0: unknown */
} CliSettings;

/**
 * Parse argv. Usage errors print the reason and the usage text and exit(1); -v prints the
 * version and exits 0. Unknown long options are warned about by getopt and ignored.
 */
void cli_parse(int argc, char *const *argv, CliSettings *settings);

void cli_free(CliSettings *settings);

/**
 * copy = s with dictionaries of its own (a run takes them over; --split runs several): its
 * strings still point into s, which must outlive it. 0 or -ENOMEM (copy then needs no free).
 */
int cli_copy(const CliSettings *s, CliSettings *copy);

/** Free what cli_copy() made. */
void cli_copy_free(CliSettings *copy);

#endif /* VMAF_TOOLS_CLI_H */
