/*
 * One scoring run of the vmaf CLI (vmaf.c) and the pieces --split (multi_segment.c) shares
 * with it: a run of the whole title, or of one segment whose result is written to -o or kept
 * in memory.
 */
#ifndef VMAF_TOOLS_CLI_RUN_H
#define VMAF_TOOLS_CLI_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <time.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/libvmaf_opencl.h"
#include "libvmaf/model.h"

#include "cli.h"
#include "video_input.h"

/* Exit statuses (CONTRACT.md §2). */
#define EXIT_USAGE 1
#define EXIT_SETUP 255

typedef struct Phases Phases;

/*
 * --split: the other segments send their first frame only after the first segment's first
 * frame was scored, so that what every segment would refuse there (an extractor's init on
 * the first picture: frame too small, unsupported depth, ...) is refused, and said, once.
 */
typedef struct CliGate {
    pthread_mutex_t lock;
    pthread_cond_t opened;
    bool open;
} CliGate;

void cli_gate_open(CliGate *gate);
void cli_gate_wait(CliGate *gate);

/** Record that segment index failed: *failed becomes the lowest failed segment. */
void cli_mark_failed(atomic_uint *failed, unsigned index);

/* What differs between the one-stream run and a segment of --split. */
typedef struct CliJob {
    FILE *msg;                  /* the CLI's messages (stderr; a buffer per --split segment) */
    enum VmafLogLevel log_level;
    bool verbose;               /* progress and the backend line (stderr a TTY, no -q) */
    bool show_scores;           /* the per-model pooled line */
    int device;                 /* CUDA device of the state; < 0: --backend decides (device 0) */
    unsigned read_workers;      /* pread workers of the raw/Y4M readers; 0: one per CPU */
    /* --split: the segment result stays in memory (part, part_size: vmaf_segment_buffer_free) */
    bool part_in_memory;
    char *part;
    size_t part_size;
    unsigned index;             /* this segment of --split */
    atomic_uint *failed;        /* lowest failed segment (UINT_MAX none): later ones stop */
    CliGate *gate;              /* opened by segment 0 after its first frame; NULL: none */
    bool cancelled;             /* out: stopped because an earlier segment failed */
    /* the process ends after this job (main's): a run that scored on CUDA leaves its
     * context, device buffers and pinned pictures to the exit instead of vmaf_close() */
    bool exit_after;
} CliJob;

/* The models of --model, in order; collection[i] is set where model i is a collection. */
typedef struct CliModels {
    VmafModel *model[CLI_MAX_ENTRIES];
    VmafModelCollection *collection[CLI_MAX_ENTRIES];
    unsigned cnt;
} CliModels;

void cli_free_models(CliModels *models);

/* A ladder's rungs share one device state: the first rung's setup decides and keeps a
 * reference (released by the caller), the later ones import it. */
typedef struct CliDeviceShare {
    bool decided;
    VmafCudaState *cuda;
    VmafOpenCLState *opencl;
    struct VmafThreadPool *pool; /* the rungs' workers (kept across a batch's ladders) */
    unsigned pool_threads;
} CliDeviceShare;

/**
 * A context set up for one run: vmaf_init, the backend and its picture pool (extra_pictures
 * beyond a single run's; share: NULL, or a ladder's shared device), the models and features,
 * the output names checked. 0, or EXIT_SETUP with the message on job->msg (nothing kept).
 */
int cli_rung_setup(CliSettings *c, const VideoInfo *info, bool parallel,
                   unsigned extra_pictures, CliDeviceShare *share, const CliJob *job,
                   Phases *ph, VmafContext **vmaf, CliModels *models, unsigned *depth,
                   unsigned *workers, bool *cuda);

/** After the flush: pooled model scores (shown when the job says), the warning about
 *  scores that are not numbers, -o written. The exit status. */
int cli_rung_finish(VmafContext *vmaf, const CliSettings *c, CliModels *models,
                    const VideoInfo *info, unsigned frames, const CliJob *job, Phases *ph);

/* Pieces of a run (vmaf.c) the ladder shares. */
int cli_read_status(int err);
int cli_check_compatible(VideoInput *ref, VideoInput *dist, bool common_bitdepth);
int cli_check_output_writable(const char *path);
/** cambi's heatmaps_path folders: none holding an input's file (inputs[0] the reference, then
 *  the distorted), and none at all with several distorted (n > 2): they would all write the
 *  same files. 0, or -EINVAL with the message printed. */
int cli_check_heatmaps(const CliSettings *c, const char *const *inputs, unsigned n);
void cli_warn_not_numbers(VmafContext *vmaf, const VideoInfo *info, unsigned frames);
void cli_show_progress(unsigned index, clock_t t0, double *fps);
int cli_skip_frames(VmafContext *vmaf, VideoInput *in, unsigned n, FILE *msg);

/**
 * Several -d (cli_ladder.c): the reference read once and scored against every distorted,
 * each written to its own output as its single run writes it. The exit status: the first
 * failure's, as its single run would exit. share: NULL, or a device state kept across runs
 * (--batch; released by the caller). rung_status: NULL, or one exit status per -d (0 scored).
 */
int cli_ladder_run(CliSettings *c, int istty, CliDeviceShare *share, int *rung_status);

/** Run fn(arg) with the signals that would end the process held (a file is being written:
 *  vmaf.c's hold); fn's result. */
int cli_held(int (*fn)(void *), void *arg);

/* --report and --report-from (cli_report.c). */

/** The report's frame rate when --report-fps gave none: the reference's Y4M F tag, else the
 *  distorted's (dist may be NULL). */
void cli_report_frame_rate(CliSettings *c, const VideoInput *ref, const VideoInput *dist);

/** Before any frame: the report is no input, no output, and writable. 0 or EXIT_SETUP. */
int cli_report_check(const CliSettings *c, const char *const *inputs, unsigned input_cnt,
                     const char *const *outputs, unsigned output_cnt);

/**
 * After -o: the report of ctx[0..n) (each scored, flushed and predicted; dist and output per
 * context; failed: the distorted inputs left out) to --report. 0, or EXIT_SETUP with a
 * message. Nothing without --report.
 */
int cli_write_report(const CliSettings *c, VmafContext *const *ctx, const char *const *dist,
                     const char *const *output, unsigned n, const VideoInfo *info,
                     const char *const *failed, unsigned failed_cnt);

/** --report-from JSON... -o OUT: the exit status. */
int cli_report_from(const CliSettings *c);

/** --batch FILE (cli_batch.c): every job of the file in this process; the exit status. */
int cli_batch_run(int argc, char *const *argv, const CliSettings *c, int istty);

/** The one-stream job: messages on stderr, INFO, device by --backend. */
CliJob cli_job_default(const CliSettings *c, int istty);

/** Open an input of the settings (raw geometry or Y4M); the message goes to msg. */
int cli_open_input(const CliSettings *c, const char *path, VideoInput **in, FILE *msg);

/**
 * Score the inputs (opened, compatible) as one run or, with c->segment, one segment; write -o
 * (or the part into job). Returns the exit status (CONTRACT.md §2). ph may be NULL.
 */
int cli_score(CliSettings *c, VideoInput *ref_in, VideoInput *dist_in, CliJob *job,
              Phases *ph);

/**
 * Register the models and features of the settings with a context that will never score,
 * and check the output names: what the run would refuse there, refused once (messages on
 * stderr). It takes the settings' dictionaries over, as a run does: pass a cli_copy().
 * 0 or EXIT_SETUP.
 */
int cli_check_setup(CliSettings *c);

/**
 * What a run does after the flush, on the merged context of --split: the per-model pooled
 * lines (show), the warning about scores that are not numbers, writing -o. The exit status.
 */
int cli_finish_merged(VmafContext *merged, const CliSettings *c, VmafModel *const *model,
                      VmafModelCollection *const *collection, unsigned model_cnt,
                      const VideoInfo *info, unsigned frames, bool show);

/** --split N / --cuda_devices (multi_segment.c): the whole run; the exit status. */
int cli_split_run(CliSettings *c, VideoInput *ref, VideoInput *dist, int istty);

/**
 * --opencl_list (opencl_list.c): one line per OpenCL device on out; 0, or EXIT_SETUP with one
 * line on msg when there is no ICD loader, no platform or no device.
 */
int cli_opencl_list(FILE *out, FILE *msg);

#endif /* VMAF_TOOLS_CLI_RUN_H */
