/*
 * --split N and --cuda_devices LIST: the title cut into N contiguous segments, each scored at
 * once by its own thread with its own context, input readers and (with CUDA) device state,
 * as `vmaf --segment A:B` would score it; the segment results stay in memory and are merged
 * (vmaf_segment_merge_memory) into the output file one run of the whole title writes.
 *
 * The title's length is counted first (raw files and Y4M files of bare FRAME lines from their
 * size, other Y4M files by reading their FRAME lines in step, as one run reads them), so the
 * cut and the end-of-input message are those of one run. Every segment's messages are kept;
 * when segments fail, the run fails with the status and messages of the first failed one
 * (the frame one run would have stopped at), later segments stop early, nothing is written.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "cli.h"
#include "cli_run.h"
#include "dict.h"
#include "segment.h"
#include "video_input.h"

#define MAX_READ_WORKERS 16

typedef struct Segment {
    CliSettings c;        /* the run's settings as --segment first:last (own dictionaries) */
    bool copied;
    CliJob job;
    char *msg_buf;        /* the segment's messages (job.msg writes here) */
    size_t msg_len;
    pthread_t thread;
    bool started;
    int status;
} Segment;

typedef struct Split {
    Segment seg[CLI_MAX_SEGMENTS];
    unsigned n;
    atomic_uint failed;   /* lowest failed segment, UINT_MAX while none */
    CliGate gate;
} Split;

void cli_mark_failed(atomic_uint *failed, unsigned index)
{
    unsigned cur = atomic_load(failed);
    while (index < cur && !atomic_compare_exchange_weak(failed, &cur, index)) {}
}

void cli_gate_open(CliGate *gate)
{
    pthread_mutex_lock(&gate->lock);
    gate->open = true;
    pthread_cond_broadcast(&gate->opened);
    pthread_mutex_unlock(&gate->lock);
}

void cli_gate_wait(CliGate *gate)
{
    pthread_mutex_lock(&gate->lock);
    while (!gate->open) pthread_cond_wait(&gate->opened, &gate->lock);
    pthread_mutex_unlock(&gate->lock);
}

static void *segment_main(void *arg)
{
    Segment *s = arg;
    VideoInput *ref = NULL, *dist = NULL;
    s->status = EXIT_SETUP;
    if (!cli_open_input(&s->c, s->c.path_ref, &ref, s->job.msg) &&
        !cli_open_input(&s->c, s->c.path_dist, &dist, s->job.msg))
        s->status = cli_score(&s->c, ref, dist, &s->job, NULL);
    video_input_close(ref);
    video_input_close(dist);
    if (s->status) cli_mark_failed(s->job.failed, s->job.index);
    if (!s->job.index) cli_gate_open(s->job.gate); /* also when it never got to a frame */
    return NULL;
}

/* --backend cuda (or --cuda_devices): every listed device must exist, before any scoring. */
static int check_devices(const CliSettings *c)
{
    if (c->backend != CLI_BACKEND_CUDA || c->gpumask) return 0;
    const char *opt = c->cuda_device_cnt ? "--cuda_devices" : "--backend cuda";
    int count = 0;
    const int err = vmaf_cuda_device_count(&count);
    if (err || count <= 0) {
        fprintf(stderr, "%s: no usable CUDA device (%s)\n", opt,
                err == -ENOSYS ? "this build has no CUDA backend"
                : err          ? "no CUDA driver could be loaded"
                               : "the CUDA driver sees no device");
        return EXIT_SETUP;
    }
    for (unsigned i = 0; i < c->cuda_device_cnt; i++) {
        if (c->cuda_device[i] < count) continue;
        fprintf(stderr, "--cuda_devices: there is no CUDA device %d (the driver sees %d: "
                "ordinals 0..%d)\n", c->cuda_device[i], count, count - 1);
        return EXIT_SETUP;
    }
    return 0;
}

/* Both inputs are opened again by every segment: they must be files, not pipes. */
static int check_regular(const CliSettings *c)
{
    const char *const path[2] = { c->path_ref, c->path_dist };
    for (unsigned i = 0; i < 2; i++) {
        struct stat st;
        if (!stat(path[i], &st) && S_ISREG(st.st_mode)) continue;
        fprintf(stderr, "--split: the %s input %s is not a regular file; its segments are read "
                "by opening it once per segment (a pipe can be read only once)\n",
                i ? "distorted" : "reference", path[i]);
        return EXIT_SETUP;
    }
    return 0;
}

/* cambi's heatmaps_path: every segment's instance would create (truncate) the same files
 * while the others write into them. */
static int check_heatmaps(const CliSettings *c)
{
    bool heatmaps = false;
    for (unsigned i = 0; i < c->feature_cnt; i++)
        heatmaps |= !strcmp(c->feature[i].name, "cambi") &&
                    vmaf_dictionary_get(c->feature[i].opts, "heatmaps_path");
    for (unsigned i = 0; i < c->model_cnt; i++)
        for (unsigned j = 0; j < c->model[i].overload_cnt; j++)
            heatmaps |= !strcmp(c->model[i].overload[j].feature, "cambi") &&
                        vmaf_dictionary_get(c->model[i].overload[j].opts, "heatmaps_path");
    if (!heatmaps) return 0;
    fprintf(stderr, "--split: cambi's heatmaps_path is not supported (the segments would each "
            "create the same heatmap files); score it as one stream\n");
    return EXIT_SETUP;
}

/* A read or skip error err = -errno exits as one run's read error does. */
static int read_status(int err)
{
    return (int)((unsigned)err & 0xffu);
}

/*
 * Frames one run scores: min of the inputs' frames after their --frame_skip, at most
 * --frame_cnt. *ended: -1 none, 0 the reference ended first, 1 the distorted (one run says
 * "A ended before B" then). Known sizes are computed; otherwise both inputs are stepped
 * through their FRAME lines together, meeting the errors one run would meet there.
 */
static int count_title(const CliSettings *c, VideoInput *ref, VideoInput *dist,
                       unsigned *frames, int *ended)
{
    VideoInput *const in[2] = { ref, dist };
    const unsigned skip[2] = { c->frame_skip_ref, c->frame_skip_dist };
    char text[512];
    for (unsigned i = 0; i < 2; i++) {
        const int n = video_input_skip(in[i], skip[i], text, sizeof(text));
        if (n < 0) {
            fprintf(stderr, "%s\n", text);
            return read_status(n);
        }
    }
    unsigned long long total[2];
    unsigned long long left[2] = { 0, 0 };
    *ended = -1;
    if (video_input_frames_known(ref, &total[0]) && video_input_frames_known(dist, &total[1])) {
        for (unsigned i = 0; i < 2; i++) {
            const unsigned long long at = video_input_next_index(in[i]);
            left[i] = total[i] > at ? total[i] - at : 0;
        }
        unsigned long long n = left[0] < left[1] ? left[0] : left[1];
        if (c->frame_cnt && n >= c->frame_cnt) n = c->frame_cnt;
        else if (left[0] != left[1]) *ended = left[0] < left[1] ? 0 : 1;
        if (n > UINT_MAX - 1) n = UINT_MAX - 1;
        *frames = (unsigned)n;
        return 0;
    }
    unsigned n = 0;
    for (; n < UINT_MAX - 1 && (!c->frame_cnt || n < c->frame_cnt); n++) {
        int got[2];
        for (unsigned i = 0; i < 2; i++) {
            got[i] = video_input_skip(in[i], 1, text, sizeof(text));
            if (got[i] < 0) {
                fprintf(stderr, "%s\n", text);
                return read_status(got[i]);
            }
        }
        if (got[0] && got[1]) continue;
        if (got[0] != got[1]) *ended = got[0] ? 1 : 0;
        break;
    }
    *frames = n;
    return 0;
}

static void print_ended(const CliSettings *c, int ended)
{
    if (ended >= 0)
        fprintf(stderr, "\"%s\" ended before \"%s\".\n", ended ? c->path_dist : c->path_ref,
                ended ? c->path_ref : c->path_dist);
}

/* pread workers per segment: the CPUs shared out, 2..MAX_READ_WORKERS each. */
static unsigned segment_read_workers(unsigned segments)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const long n = (cpus > 0 ? cpus : 2) / (long)segments;
    return n < 2 ? 2 : n > MAX_READ_WORKERS ? MAX_READ_WORKERS : (unsigned)n;
}

typedef struct Finish {
    const CliSettings *c;
    VideoInfo info;
    unsigned frames;
    bool show;
    bool called;
    int status;
} Finish;

static int finish(void *arg, VmafContext *merged, VmafModel *const *model,
                  VmafModelCollection *const *collection, unsigned model_cnt)
{
    Finish *f = arg;
    f->called = true;
    f->status = cli_finish_merged(merged, f->c, model, collection, model_cnt, &f->info,
                                  f->frames, f->show);
    return f->status ? -EIO : 0;
}

/* Start every segment, wait for all; the first failed one's status and messages. */
static int run_segments(Split *sp)
{
    int status = 0;
    for (unsigned i = 0; i < sp->n; i++) {
        Segment *s = &sp->seg[i];
        if (pthread_create(&s->thread, NULL, segment_main, s)) {
            fprintf(stderr, "--split: could not start the thread of segment %u\n", i);
            cli_mark_failed(&sp->failed, 0); /* stops the others */
            cli_gate_open(&sp->gate);
            status = EXIT_SETUP;
            break;
        }
        s->started = true;
    }
    for (unsigned i = 0; i < sp->n; i++)
        if (sp->seg[i].started) pthread_join(sp->seg[i].thread, NULL);
    for (unsigned i = 0; i < sp->n; i++) {
        Segment *s = &sp->seg[i];
        fclose(s->job.msg);
        s->job.msg = NULL;
        if (status || !s->started || !s->status) continue;
        if (s->msg_len) fwrite(s->msg_buf, 1, s->msg_len, stderr);
        status = s->status;
    }
    return status;
}

static void free_split(Split *sp)
{
    for (unsigned i = 0; i < sp->n; i++) {
        Segment *s = &sp->seg[i];
        if (s->job.msg) fclose(s->job.msg);
        free(s->msg_buf);
        vmaf_segment_buffer_free(s->job.part);
        if (s->copied) cli_copy_free(&s->c);
    }
    pthread_mutex_destroy(&sp->gate.lock);
    pthread_cond_destroy(&sp->gate.opened);
    free(sp);
}

static int setup_segments(Split *sp, const CliSettings *c, unsigned frames)
{
    const unsigned workers = segment_read_workers(sp->n);
    for (unsigned i = 0; i < sp->n; i++) {
        Segment *s = &sp->seg[i];
        if (cli_copy(c, &s->c)) return -ENOMEM;
        s->copied = true;
        s->c.split = 0;
        s->c.segment = true;
        s->c.segment_first = (unsigned)((unsigned long long)i * frames / sp->n);
        s->c.segment_last = (unsigned)((unsigned long long)(i + 1) * frames / sp->n);
        s->c.frame_cnt = frames; /* the title as counted: no segment reads past it */
        s->job = (CliJob){
            /* the first segment warns (e.g. unknown options); the others only on errors */
            .log_level = i ? VMAF_LOG_LEVEL_ERROR : VMAF_LOG_LEVEL_INFO,
            .device = c->cuda_device_cnt ? c->cuda_device[i] : -1,
            .read_workers = workers,
            .part_in_memory = true,
            .index = i,
            .failed = &sp->failed,
            .gate = &sp->gate,
        };
        s->job.msg = open_memstream(&s->msg_buf, &s->msg_len);
        if (!s->job.msg) return -ENOMEM;
    }
    return 0;
}

int cli_split_run(CliSettings *c, VideoInput *ref, VideoInput *dist, int istty)
{
    int status = check_devices(c);
    if (!status) status = check_regular(c);
    if (!status) status = check_heatmaps(c);
    if (!status) { /* what every segment would refuse (models, features, names): once */
        CliSettings probe;
        if (cli_copy(c, &probe)) {
            fprintf(stderr, "--split: out of memory\n");
            return EXIT_SETUP;
        }
        status = cli_check_setup(&probe);
        cli_copy_free(&probe);
    }
    if (status) return status;

    VideoInfo info, dist_info;
    video_input_info(ref, &info);
    video_input_info(dist, &dist_info);
    if (dist_info.bpc > info.bpc) info.bpc = dist_info.bpc;
    unsigned frames = 0;
    int ended = -1;
    status = count_title(c, ref, dist, &frames, &ended);
    if (status) return status;
    if (!frames) {
        print_ended(c, ended);
        fprintf(stderr, "no frames to score\n");
        return EXIT_SETUP;
    }

    Split *sp = calloc(1, sizeof(*sp));
    if (!sp) {
        fprintf(stderr, "--split: out of memory\n");
        return EXIT_SETUP;
    }
    /* a title shorter than the segments asked for: one segment per frame */
    sp->n = c->split < frames ? c->split : frames;
    atomic_init(&sp->failed, UINT_MAX);
    pthread_mutex_init(&sp->gate.lock, NULL);
    pthread_cond_init(&sp->gate.opened, NULL);
    if (setup_segments(sp, c, frames)) {
        fprintf(stderr, "--split: out of memory\n");
        free_split(sp);
        return EXIT_SETUP;
    }
    if (istty && !c->quiet)
        fprintf(stderr, "split: %u frames as %u segments at once%s\n", frames, sp->n,
                c->cuda_device_cnt ? " (one CUDA state each)" : "");
    status = run_segments(sp);
    if (status) {
        free_split(sp);
        return status;
    }
    print_ended(c, ended);

    const char *data[CLI_MAX_SEGMENTS];
    size_t size[CLI_MAX_SEGMENTS];
    for (unsigned i = 0; i < sp->n; i++) {
        data[i] = sp->seg[i].job.part;
        size[i] = sp->seg[i].job.part_size;
    }
    Finish f = { .c = c, .info = info, .frames = frames,
                 .show = istty && (!c->quiet || !c->output_path) };
    const unsigned n = sp->n;
    const int err = vmaf_segment_merge_memory(data, size, NULL, n, c->output_fmt, finish, &f);
    free_split(sp);
    if (f.called) return f.status;
    if (err) {
        fprintf(stderr, "--split: could not merge the %u segments: %s\n", n, strerror(-err));
        return EXIT_SETUP;
    }
    return 0;
}
