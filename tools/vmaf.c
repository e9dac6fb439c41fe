/* The `vmaf` command line tool: reads two videos into pool pictures and scores them. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/libvmaf_opencl.h"

#include "cli.h"
#include "cli_run.h"
#include "context.h"
#include "dict.h"
#include "frame_reader.h"
#include "model.h"
#include "feature/feature_extractor.h"
#include "file_write.h"
#include "output.h"
#include "title_fingerprint.h"
#include "video_input.h"

/* Frames each input is read ahead of scoring. */
#define READ_AHEAD 2       /* frames read ahead by the in-order readers (Y4M, pipes) */
/* frames read ahead by the pread workers, which share each frame (bands of rows): one being
 * read, the next ones ready, while the caller scores. With CUDA the workers read a pair in
 * about the time the device scores one, and each frame ahead is two more pool pictures to
 * pin in the first frames: 2 pin about a third fewer pictures than 4 and were not slower.
 * To re-measure: bench/bench_cli on a 4K clip with VMAF_READ_DEPTH=2/3/4 (the override
 * below); VMAF_CUDA_PROFILE=1 prints the pictures pinned and their cost. */
#define READ_DEPTH 4
#define READ_DEPTH_CUDA 2
#define MAX_READ_WORKERS 16 /* pread workers for raw files (16 reach the page-cache bound) */
/* ... on the CPU path: one worker reads a pair several times faster than 16 CPU threads score
 * it (4K: ~3.5 against ~19 ms), so 2 workers keep far ahead (bench/bench_cli with
 * VMAF_READ_WORKERS=N compares counts) */
#define MAX_CPU_READ_WORKERS 2
/* ... with CUDA: the device scores and uploads a frame faster than one worker reads it, and
 * reading from the page cache scales to about 12 workers (bench/bench_cli with
 * VMAF_READ_WORKERS=N; the pool's pictures depend on READ_DEPTH, not on the workers, since
 * they share frames) */
#define MAX_CUDA_READ_WORKERS 12

/*
 * The CUDA driver gives each context CUDA_DEVICE_MAX_CONNECTIONS hardware work queues (default
 * 8), and making and tearing them down is most of its fixed cost per process: on an H200 a
 * context with 1 queue is made in about half the time of one with 8, and released in about
 * a third (bench/startup_probe.sh measures it). The CLI's frames run on 6 slot streams, each
 * frame one graph after its uploads, and one queue did not slow them beyond the runs' noise
 * (bench/bench_cli, whole processes, run with CUDA_DEVICE_MAX_CONNECTIONS=1 and then =2 in
 * its environment). So the CLI asks for 1 unless the user's environment says otherwise (the
 * library never sets it).
 */
#define CLI_CUDA_CONNECTIONS "1"

/* A benchmark override: the variable's value N in 1..max, or 0 when unset or not such a number.
 * VMAF_READ_WORKERS=N (1..16) replaces the caps above, VMAF_READ_DEPTH=N (1..16) READ_DEPTH
 * and READ_DEPTH_CUDA. */
static unsigned env_override(const char *name, unsigned max)
{
    const char *env = getenv(name);
    if (!env || !*env) return 0;
    char *end;
    const unsigned long n = strtoul(env, &end, 10);
    return *end || n < 1 || n > max ? 0 : (unsigned)n;
}

/* pread workers for raw regular files: one per online CPU, 2..MAX_READ_WORKERS. */
static unsigned read_workers(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 2 ? 2 : n > MAX_READ_WORKERS ? MAX_READ_WORKERS : (unsigned)n;
}

static bool parallel_read(const VideoInput *ref, const VideoInput *dist)
{
    return video_input_can_read_at(ref) && video_input_can_read_at(dist);
}

/* A read or flush error err = -errno exits with (-errno) & 0xff, as the reference's
 * `return err;` from main does (-EINVAL: 234). */
int cli_read_status(int err)
{
    return (int)((unsigned)err & 0xffu);
}

static const char *pix_fmt_name(enum VmafPixelFormat f)
{
    switch (f) {
    case VMAF_PIX_FMT_YUV420P: return "420";
    case VMAF_PIX_FMT_YUV422P: return "422";
    case VMAF_PIX_FMT_YUV444P: return "444";
    case VMAF_PIX_FMT_YUV400P: return "400";
    default: return "unknown";
    }
}

int cli_open_input(const CliSettings *c, const char *path, VideoInput **in, FILE *msg)
{
    char text[512];
    const VideoInfo raw = {
        .w = c->width, .h = c->height, .bpc = c->bitdepth, .pix_fmt = c->pix_fmt,
    };
    int err = video_input_open(in, path, c->use_yuv ? &raw : NULL, text, sizeof(text));
    if (err) fprintf(msg, "%s\n", text);
    return err;
}

/* common_bitdepth (--aom_ctc v6.0+): the depths may differ; both are scored at the larger */
int cli_check_compatible(VideoInput *ref, VideoInput *dist, bool common_bitdepth)
{
    VideoInfo a, b;
    video_input_info(ref, &a);
    video_input_info(dist, &b);
    if (a.w == b.w && a.h == b.h && a.pix_fmt == b.pix_fmt && (a.bpc == b.bpc || common_bitdepth))
        return 0;
    fprintf(stderr, "videos are incompatible: reference %ux%u %s %u-bit, distorted %ux%u %s %u-bit\n",
            a.w, a.h, pix_fmt_name(a.pix_fmt), a.bpc, b.w, b.h, pix_fmt_name(b.pix_fmt), b.bpc);
    return -EINVAL;
}

/*
 * Signals while a file is written: one that ends the process while the writer's temporary
 * file exists would leave that file behind. From hold_signals() to release_signals() the
 * signals that end a process by default (those not ignored already) are caught and the first
 * is remembered, then delivered as it came once the file is whole or removed. The handler
 * does not restart system calls, so a write that may block for ever (a FIFO without a reader,
 * a stopped terminal) still ends when one arrives: the library retries only its temporary
 * files' interrupted writes (file_write.h). One that lands in another thread is passed to the
 * writing thread for that. SIGPIPE is ignored meanwhile: a reader gone is the write's EPIPE.
 * Process-wide state: used by the main thread only, one hold at a time.
 */
static const int held_signals[] = { SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGALRM,
                                    SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF };
#define HELD_CNT (sizeof(held_signals) / sizeof(held_signals[0]))

typedef struct SignalHold {
    struct sigaction old[HELD_CNT], old_pipe;
} SignalHold;

static volatile sig_atomic_t held_signal;
static pthread_t writing_thread;

static void hold_signal(int sig)
{
    if (!pthread_equal(pthread_self(), writing_thread)) {
        pthread_kill(writing_thread, sig);
        return;
    }
    if (!held_signal) held_signal = sig;
}

static void hold_signals(SignalHold *h)
{
    writing_thread = pthread_self();
    held_signal = 0;
    struct sigaction hold = { .sa_handler = hold_signal }; /* no SA_RESTART: see above */
    sigemptyset(&hold.sa_mask);
    for (unsigned i = 0; i < HELD_CNT; i++) sigaddset(&hold.sa_mask, held_signals[i]);
    for (unsigned i = 0; i < HELD_CNT; i++) {
        sigaction(held_signals[i], NULL, &h->old[i]);
        if (h->old[i].sa_handler != SIG_IGN) sigaction(held_signals[i], &hold, NULL);
    }
    const struct sigaction ignore = { .sa_handler = SIG_IGN };
    sigaction(SIGPIPE, &ignore, &h->old_pipe);
}

static void release_signals(SignalHold *h)
{
    for (unsigned i = 0; i < HELD_CNT; i++) sigaction(held_signals[i], &h->old[i], NULL);
    sigaction(SIGPIPE, &h->old_pipe, NULL);
    if (held_signal) raise(held_signal);
}

int cli_held(int (*fn)(void *), void *arg)
{
    SignalHold hold;
    hold_signals(&hold);
    const int err = fn(arg);
    release_signals(&hold);
    return err;
}

/*
 * Output must be writable before hours of scoring, not after: checked the way the library
 * writes it (file_write.h), its trial temporary file under the signal hold.
 */
int cli_check_output_writable(const char *path)
{
    SignalHold hold;
    bool beside;
    hold_signals(&hold);
    const int err = vmaf_file_check_writable(path, &beside);
    release_signals(&hold);
    if (err == -EISDIR)
        fprintf(stderr, "cannot write output file %s: it is a directory\n", path);
    else if (err && beside)
        fprintf(stderr, "cannot write output file %s: cannot create a file beside it (%s)\n",
                path, strerror(-err));
    else if (err)
        fprintf(stderr, "cannot write output file %s: %s\n", path, strerror(-err));
    return err;
}

/* Every cambi heatmaps_path of the run (--feature cambi=..., -m ...:cambi.heatmaps_path=...):
 * calls fn(folder, arg) for each until one returns non-zero, which is returned. */
static int each_heatmaps_path(const CliSettings *c, int (*fn)(const char *, void *), void *arg)
{
    int err = 0;
    for (unsigned i = 0; !err && i < c->feature_cnt; i++) {
        const VmafDictionaryEntry *e =
            strcmp(c->feature[i].name, "cambi")
                ? NULL
                : vmaf_dictionary_get(c->feature[i].opts, "heatmaps_path");
        if (e) err = fn(e->val, arg);
    }
    for (unsigned i = 0; !err && i < c->model_cnt; i++)
        for (unsigned j = 0; !err && j < c->model[i].overload_cnt; j++) {
            const CliOverload *o = &c->model[i].overload[j];
            const VmafDictionaryEntry *e =
                strcmp(o->feature, "cambi") ? NULL : vmaf_dictionary_get(o->opts, "heatmaps_path");
            if (e) err = fn(e->val, arg);
        }
    return err;
}

typedef struct HeatmapInputs {
    const char *const *path; /* the reference first, then the distorted inputs */
    unsigned n;
} HeatmapInputs;

/* A heatmap file already in the folder that is an input (a hard link; cambi refuses symbolic
 * links and hard-linked files itself, this names the input) */
static int check_heatmaps_not_input(const char *dir, void *arg)
{
    const HeatmapInputs *in = arg;
    DIR *d = opendir(dir);
    if (!d) return 0; /* made by cambi, or its error */
    int err = 0;
    for (struct dirent *e; !err && (e = readdir(d));) {
        if (strncmp(e->d_name, "cambi_heatmap_scale_", 20)) continue;
        const size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(n);
        if (!path) break;
        snprintf(path, n, "%s/%s", dir, e->d_name);
        const int same = vmaf_file_find_same(path, in->path, in->n);
        if (same >= 0) {
            fprintf(stderr, "cambi heatmap %s is the %s input %s: refusing to overwrite it\n",
                    path, same ? "distorted" : "reference", in->path[same]);
            err = -EINVAL;
        }
        free(path);
    }
    closedir(d);
    return err;
}

static int heatmaps_given(const char *dir, void *arg)
{
    (void)dir, (void)arg;
    return 1;
}

int cli_check_heatmaps(const CliSettings *c, const char *const *inputs, unsigned n)
{
    if (n > 2 && each_heatmaps_path(c, heatmaps_given, NULL)) {
        fprintf(stderr, "several -d: cambi's heatmaps_path is not supported (every distorted "
                "input would write the same heatmap files); score those inputs one by one\n");
        return -EINVAL;
    }
    HeatmapInputs in = { inputs, n };
    return each_heatmaps_path(c, check_heatmaps_not_input, &in);
}

/* -o (or a heatmap) naming an input (the same file, also through links) would overwrite it. */
static int check_output_not_input(const CliSettings *c)
{
    const char *const inputs[2] = { c->path_ref, c->path_dist };
    const int same = c->output_path ? vmaf_file_find_same(c->output_path, inputs, 2) : -1;
    if (same >= 0) {
        fprintf(stderr, "output file %s is the %s input %s: refusing to overwrite it\n",
                c->output_path, same ? "distorted" : "reference", inputs[same]);
        return -EINVAL;
    }
    return cli_check_heatmaps(c, inputs, 2);
}

static int write_output(VmafContext *vmaf, const CliSettings *c)
{
    SignalHold hold;
    hold_signals(&hold);
    const int err = vmaf_write_output_with_precision(vmaf, c->output_path, c->output_fmt,
                                                     c->precision);
    if (err)
        fprintf(stderr, "problem writing output file %s: %s\n", c->output_path, strerror(-err));
    release_signals(&hold);
    return err;
}

/*
 * Scores that are not numbers (VIF of frames too small for its scales, as in the reference)
 * print as null or nan: say so once, with the metrics.
 */
void cli_warn_not_numbers(VmafContext *vmaf, const VideoInfo *info, unsigned frames)
{
    VmafFeatureVector **vec;
    VmafAggregate **agg;
    unsigned cnt, agg_cnt;
    if (vmaf_feature_collector_sorted(vmaf->fc, &vec, &cnt, &agg, &agg_cnt)) return;
    char list[400];
    size_t len = 0;
    unsigned bad = 0, worst = 0;
    list[0] = '\0';
    for (unsigned j = 0; j < cnt; j++) {
        unsigned n = 0;
        for (unsigned i = 0; i < vec[j]->capacity; i++)
            n += vec[j]->written[i] && !isfinite(vec[j]->value[i]);
        if (!n) continue;
        if (n > worst) worst = n;
        if (bad++ < 6 && len < sizeof(list)) {
            const int w = snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
                                   vmaf_feature_name_alias(vec[j]->name));
            if (w > 0) len += (size_t)w;
        }
    }
    free(vec);
    free(agg);
    if (!bad) return;
    const bool small = info->w <= 16 || info->h <= 16;
    fprintf(stderr, "warning: %u metric%s not a number in up to %u of %u frames (%s%s)%s\n", bad,
            bad > 1 ? "s are" : " is", worst, frames, list, bad > 6 ? ", ..." : "",
            small ? "; the frames are too small for them" : "");
}

/* frames the OpenCL backend holds until their results are collected (its slot ring) */
#define OPENCL_FRAMES_IN_FLIGHT 4

/* --backend opencl (required: the device of --opencl_device, default 0) or auto (the first
 * OpenCL GPU, or the --opencl_device named): 1 attached, 0 none (auto), < 0 error. */
static int attach_opencl(VmafContext *vmaf, const CliSettings *c, CliDeviceShare *share,
                         FILE *msg)
{
    const bool required = c->backend == CLI_BACKEND_OPENCL;
    int index = c->opencl_device;
    if (index < 0 && required) index = 0;
    if (index < 0) index = c->opencl_gpu; /* auto: a GPU only */
    if (index < 0) return 0;
    VmafOpenCLState *state = NULL;
    int err = vmaf_opencl_state_init(&state, (VmafOpenCLConfiguration){ .device = index });
    if (err) {
        if (!required && c->opencl_device < 0) return 0;
        fprintf(msg, "--backend opencl: no usable OpenCL device %d (%s)\n", index,
                strerror(-err));
        return err;
    }
    err = vmaf_opencl_import_state(vmaf, state);
    if (share && !err) share->opencl = state; /* the share keeps this reference */
    else vmaf_opencl_state_free(state);       /* the context holds its own reference */
    if (err) {
        fprintf(msg, "problem attaching the OpenCL state: %s\n", strerror(-err));
        return err;
    }
    return 1;
}

/* --backend: attach a CUDA state (cuda: required; auto: when a device exists), else an OpenCL
 * one (opencl: required; auto: a GPU), then make the picture pool the reader fills: pinned
 * host memory with CUDA, so uploads start from it. */
static int setup_backend(VmafContext *vmaf, const CliSettings *c, const VideoInfo *info,
                         bool parallel, unsigned extra_pictures, CliDeviceShare *share,
                         unsigned *depth, unsigned *workers, bool *cuda, const CliJob *job)
{
    FILE *msg = job->msg;
    VmafCudaState *state = NULL;
    int err = 0;
    bool opencl = false;
    if (share && share->decided) { /* a later rung of a ladder: the first rung's device */
        if (share->cuda) err = vmaf_cuda_import_state(vmaf, share->cuda);
        else if (share->opencl) err = vmaf_opencl_import_state(vmaf, share->opencl);
        if (err) {
            fprintf(msg, "problem attaching the device state: %s\n", strerror(-err));
            return err;
        }
        state = share->cuda;
        opencl = share->opencl != NULL;
        goto pool;
    }
    if (c->backend != CLI_BACKEND_CPU && c->backend != CLI_BACKEND_OPENCL && !c->gpumask) {
        /* Where the GPU is required (--backend cuda, --cuda_devices), the context is made
         * while the models load and the readers read the first frames (bench/startup_probe.sh
         * measures what that hides);
         * --backend auto must know at once whether to fall back to the CPU. */
        const bool async = c->backend == CLI_BACKEND_CUDA || job->device >= 0;
        err = async ? vmaf_cuda_state_init_async(&state, job->device >= 0 ? job->device : 0)
              : vmaf_cuda_state_init(&state, (VmafCudaConfiguration){ 0 });
        if (err && job->device >= 0) {
            fprintf(msg, "--cuda_devices: no usable CUDA device %d (%s)\n", job->device,
                    strerror(-err));
            return err;
        }
        if (err && c->backend == CLI_BACKEND_CUDA) {
            fprintf(msg, "--backend cuda: no usable CUDA device (%s)\n", strerror(-err));
            return err;
        }
        if (!err) {
            err = vmaf_cuda_import_state(vmaf, state);
            if (share && !err) share->cuda = state; /* the share keeps this reference */
            else vmaf_cuda_state_free(state);      /* the context holds its own reference */
            if (err) {
                fprintf(msg, "problem attaching the CUDA state: %s\n", strerror(-err));
                return err;
            }
        } else {
            state = NULL;
        }
    }
    if (!state && !c->gpumask &&
        (c->backend == CLI_BACKEND_OPENCL || c->backend == CLI_BACKEND_AUTO)) {
        err = attach_opencl(vmaf, c, share, msg);
        if (err < 0) return err;
        opencl = err > 0;
        err = 0;
    }
    if (share) share->decided = true;
pool:;
    const unsigned forced = env_override("VMAF_READ_WORKERS", MAX_READ_WORKERS);
    const unsigned cap = forced ? forced : state ? MAX_CUDA_READ_WORKERS : MAX_CPU_READ_WORKERS;
    const unsigned n = job->read_workers ? job->read_workers : read_workers();
    *workers = parallel ? (n < cap ? n : cap) : 1;
    const unsigned forced_depth = env_override("VMAF_READ_DEPTH", 16);
    *depth = !parallel       ? READ_AHEAD
             : forced_depth ? forced_depth
             : state        ? READ_DEPTH_CUDA
                            : READ_DEPTH;
    /* the context keeps 2 (threads + 1) + 1 (or 4 without threads); the readers 2 per frame
     * in flight. Buffers are allocated on demand, so a short run pays for few. */
    const unsigned cpu_pictures =
        (c->threads ? 2 * (c->threads + 1) + 1 : 4) + 2 * *depth + extra_pictures;
    if (state) {
        const VmafCudaPictureConfiguration cfg = {
            .pic_params = { .w = info->w, .h = info->h, .bpc = info->bpc, .pix_fmt = info->pix_fmt },
            .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
        };
        err = vmaf_cuda_preallocate_pictures(vmaf, cfg);
    } else if (opencl) { /* the device's pinned host memory, which it reads at full speed */
        const VmafPictureConfiguration cfg = {
            .pic_params = { .w = info->w, .h = info->h, .bpc = info->bpc, .pix_fmt = info->pix_fmt },
            .pic_cnt = cpu_pictures + OPENCL_FRAMES_IN_FLIGHT * 2,
        };
        err = vmaf_opencl_preallocate_pictures(vmaf, cfg);
    } else {
        const VmafPictureConfiguration cfg = {
            .pic_params = { .w = info->w, .h = info->h, .bpc = info->bpc, .pix_fmt = info->pix_fmt },
            .pic_cnt = cpu_pictures,
        };
        err = vmaf_preallocate_pictures(vmaf, cfg);
    }
    if (err) {
        fprintf(msg, "problem preallocating pictures: %s\n", strerror(-err));
        return err;
    }
    if (job->verbose)
        fprintf(stderr, "backend: %s\n", state ? "cuda (pinned picture pool)"
                                          : opencl ? "opencl (pinned picture pool)" : "cpu");
    *cuda = state != NULL;
    return 0;
}

/* 1: a frame is in pic; 0: end of file; < 0: error (message printed). */
static int fetch_frame(VmafContext *vmaf, VideoInput *in, VmafPicture *pic, FILE *msg)
{
    int err = vmaf_fetch_preallocated_picture(vmaf, pic);
    if (err) {
        fprintf(msg, "could not get a picture from the pool: %s\n", strerror(-err));
        return err;
    }
    char text[512];
    const int ret = video_input_read(in, pic, text, sizeof(text));
    if (ret < 0) fprintf(msg, "%s\n", text);
    if (ret != 1) vmaf_picture_unref(pic);
    return ret;
}

int cli_skip_frames(VmafContext *vmaf, VideoInput *in, unsigned n, FILE *msg)
{
    for (unsigned i = 0; i < n; i++) {
        VmafPicture pic;
        const int ret = fetch_frame(vmaf, in, &pic, msg);
        if (ret < 0) return ret;
        if (!ret) break;
        vmaf_picture_unref(&pic);
    }
    return 0;
}

/* Skip n frames without reading them (seeking where the file allows). */
static int seek_frames(VideoInput *in, unsigned n, FILE *msg)
{
    char text[512];
    const int got = video_input_skip(in, n, text, sizeof(text));
    if (got < 0) fprintf(msg, "%s\n", text);
    return got < 0 ? got : 0;
}

static const char *model_label(const CliModel *m)
{
    return m->version ? m->version : m->path;
}

void cli_free_models(CliModels *models)
{
    for (unsigned i = 0; i < models->cnt; i++) {
        vmaf_model_destroy(models->model[i]);
        vmaf_model_collection_destroy(models->collection[i]);
    }
    models->cnt = 0;
}

/* Whether --model names a readable file or a built-in version. */
static bool model_exists(const CliModel *m)
{
    if (m->path) return !access(m->path, R_OK);
    const char *const *v = vmaf_model_builtin_versions();
    while (*v && strcmp(*v, m->version)) v++;
    return *v != NULL;
}

/* A model collection (e.g. vmaf_b_v0.6.3) where the file holds no single model. */
static int load_collection(VmafContext *vmaf, CliModel *m, VmafModelConfig *cfg,
                           VmafModel **model, VmafModelCollection **collection, FILE *msg)
{
    int err = m->version ? vmaf_model_collection_load(model, collection, cfg, m->version)
                         : vmaf_model_collection_load_from_path(model, collection, cfg, m->path);
    if (err) {
        fprintf(msg, "problem loading model: %s\n", model_label(m));
        return err;
    }
    for (unsigned j = 0; j < m->overload_cnt; j++) {
        err = vmaf_model_collection_feature_overload(*model, collection, m->overload[j].feature,
                                                     m->overload[j].opts);
        m->overload[j].opts = NULL; /* taken over, also on failure */
        if (err) {
            fprintf(msg, "problem overloading feature extractors from model collection: %s\n",
                    model_label(m));
            return err;
        }
    }
    err = vmaf_use_features_from_model_collection(vmaf, *collection);
    if (err)
        fprintf(msg, "problem loading feature extractors from model collection: %s\n",
                model_label(m));
    return err;
}

/* Each --model: a single model if the file holds one, else a model collection. */
static int load_models(VmafContext *vmaf, CliSettings *c, CliModels *models, FILE *msg)
{
    for (unsigned i = 0; i < c->model_cnt; i++) {
        CliModel *m = &c->model[i];
        VmafModelConfig cfg = {
            .name = m->name,
            .flags = (m->disable_clip ? VMAF_MODEL_FLAG_DISABLE_CLIP : 0) |
                     (m->enable_transform ? VMAF_MODEL_FLAG_ENABLE_TRANSFORM : 0),
        };
        VmafModel **model = &models->model[i];
        models->cnt = i + 1;
        int err = m->version ? vmaf_model_load(model, &cfg, m->version)
                             : vmaf_model_load_from_path(model, &cfg, m->path);
        /* -EINVAL: not a usable single model; it may be a collection, unless there is no
         * such file or built-in version (the library has said so once already) */
        if (err == -EINVAL && model_exists(m)) {
            err = load_collection(vmaf, m, &cfg, model, &models->collection[i], msg);
            if (err) return err;
            continue;
        }
        if (err) {
            fprintf(msg, "problem loading model: %s\n", model_label(m));
            return err;
        }
        for (unsigned j = 0; j < m->overload_cnt; j++) {
            err = vmaf_model_feature_overload(*model, m->overload[j].feature, m->overload[j].opts);
            m->overload[j].opts = NULL; /* taken over, also on failure */
            if (err) {
                fprintf(msg, "problem overloading feature extractors from model: %s\n",
                        model_label(m));
                return err;
            }
        }
        err = vmaf_use_features_from_model(vmaf, *model);
        if (err) {
            fprintf(msg, "problem loading feature extractors from model: %s\n",
                    model_label(m));
            return err;
        }
    }
    return 0;
}

/*
 * Pool every model over all frames (this predicts and stores each frame's score, so the
 * output lists the model scores after the features), then every collection.
 */
static int score_models(VmafContext *vmaf, const CliSettings *c, VmafModel *const *model,
                        VmafModelCollection *const *collection, unsigned model_cnt,
                        unsigned frames, bool show, FILE *msg)
{
    for (unsigned i = 0; i < model_cnt; i++) {
        double score;
        int err = vmaf_score_pooled(vmaf, model[i], VMAF_POOL_METHOD_MEAN, &score, 0,
                                    frames - 1);
        if (err) {
            fprintf(msg, "problem generating pooled VMAF score\n");
            return err;
        }
        if (show) fprintf(msg, "%s: %f\n", model_label(&c->model[i]), score);
    }
    for (unsigned i = 0; i < model_cnt; i++) {
        if (!collection[i]) continue;
        VmafModelCollectionScore score = { 0 };
        int err = vmaf_score_pooled_model_collection(vmaf, collection[i],
                                                     VMAF_POOL_METHOD_MEAN, &score, 0, frames - 1);
        if (err) {
            fprintf(msg, "problem generating pooled VMAF score\n");
            return err;
        }
        if (show && score.type == VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP)
            fprintf(msg, "%s: %f, ci.p95: [%f, %f], stddev: %f\n", model_label(&c->model[i]),
                    score.bootstrap.bagging_score, score.bootstrap.ci.p95.lo,
                    score.bootstrap.ci.p95.hi, score.bootstrap.stddev);
    }
    return 0;
}

static int use_features(VmafContext *vmaf, CliSettings *c, FILE *msg)
{
    for (unsigned i = 0; i < c->feature_cnt; i++) {
        CliFeature *f = &c->feature[i];
        /* the context owns the options now, unless it does not know the extractor */
        const bool known = vmaf_feature_extractor_by_name(f->name) != NULL;
        const int err = vmaf_use_feature(vmaf, f->name, f->opts);
        if (known) f->opts = NULL;
        if (err) {
            fprintf(msg, "problem loading feature extractor: %s\n", f->name);
            return err;
        }
    }
    return 0;
}

void cli_show_progress(unsigned index, clock_t t0, double *fps)
{
    static const char spinner[] = "|/-\\";
    if (index > 0 && !(index % 10))
        *fps = (index + 1) / ((double)(clock() - t0) / CLOCKS_PER_SEC);
    fprintf(stderr, "\r%u frame%s %c %.2f FPS\033[K", index + 1, index ? "s" : " ",
            spinner[index % 4], *fps);
    fflush(stderr);
}

/* Phases of the run, printed to stderr with VMAF_CUDA_PROFILE=1 (start-up analysis). */
enum Phase { PH_MAIN, PH_INPUTS, PH_INIT, PH_BACKEND, PH_MODELS, PH_READERS, PH_FIRST_FRAME,
             PH_FIRST_SCORED, PH_LOOP, PH_FLUSH, PH_PREDICT, PH_WRITE, PH_CLOSE, PH_COUNT };
enum { PH_EARLY = 16 }; /* frames whose scoring time the profile prints one by one */
struct Phases {
    bool on;
    double t[PH_COUNT];
    double early[PH_EARLY]; /* when vmaf_read_pictures returned for the first frames */
    double last;
    unsigned frames;
    double wall_main; /* CLOCK_REALTIME at main's start (s), for what lies outside main */
};

static double mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void phase(Phases *p, enum Phase which)
{
    if (!p || !p->on) return;
    p->t[which] = mono_ms();
    if (which == PH_MAIN) p->wall_main = wall_s();
}

static void print_phases(const Phases *p)
{
    if (!p->on) return;
    static const char *const names[PH_COUNT] = {
        "main", "parse + open inputs", "vmaf_init", "backend (cuda state, picture pool)",
        "models + features", "readers started", "first frame read", "first frame submitted",
        "remaining frames", "flush", "model prediction", "output written",
        "closed (context, device state)",
    };
    fprintf(stderr, "cli phases (ms since the previous one):");
    double prev = p->t[PH_MAIN];
    for (int i = 1; i < PH_COUNT; i++) {
        if (!p->t[i]) continue;
        fprintf(stderr, "%s %s %.1f", i > 1 ? "," : "", names[i], p->t[i] - prev);
        prev = p->t[i];
    }
    fprintf(stderr, "; total %.1f ms\n", prev - p->t[PH_MAIN]);
    /* wall clock, so that a caller timing the process can tell exec + loading (before main)
     * and exit (after this line) apart */
    fprintf(stderr, "cli clock (CLOCK_REALTIME, s): main entered %.6f, phases printed %.6f\n",
            p->wall_main, wall_s());
    if (p->frames < 2) return;
    /* where the loop's time goes: the first frames one by one (pinning, first launches, the
     * device's ramp), then the steady rate */
    const unsigned early = p->frames < PH_EARLY ? p->frames : PH_EARLY;
    fprintf(stderr, "cli frames (ms each, after the first):");
    for (unsigned i = 1; i < early; i++) fprintf(stderr, " %.2f", p->early[i] - p->early[i - 1]);
    if (p->frames > PH_EARLY)
        fprintf(stderr, "; frames %u-%u: %.3f ms each", PH_EARLY, p->frames - 1,
                (p->last - p->early[PH_EARLY - 1]) / (p->frames - PH_EARLY));
    fprintf(stderr, "\n");
}

static void phase_frame(Phases *p)
{
    if (!p || !p->on) return;
    p->last = mono_ms();
    if (p->frames < PH_EARLY) p->early[p->frames] = p->last;
    p->frames++;
}

/*
 * --segment A:B: declare the segment, seek both inputs to its first frame of context and say
 * how many frames to read (0: to the end of the input). -EINVAL with a message when A is past
 * the title, or B past --frame_cnt.
 */
static int start_segment(VmafContext *vmaf, const CliSettings *c, VideoInput *ref_in,
                         VideoInput *dist_in, unsigned *first_index, unsigned *frame_limit,
                         bool *probe, FILE *msg)
{
    const unsigned a = c->segment_first, b = c->segment_last;
    if (c->frame_cnt && b > c->frame_cnt) {
        fprintf(msg, "--segment %u:%u ends after the title's last frame (--frame_cnt %u)\n",
                a, b, c->frame_cnt);
        return -EINVAL;
    }
    unsigned before, after;
    int err = vmaf_segment_context(vmaf, &before, &after);
    if (!err) err = vmaf_segment_set(vmaf, a, b);
    if (!err && c->no_prediction) err = vmaf_segment_set_prediction(vmaf, 0);
    if (err) {
        fprintf(msg, "problem setting up segment %u:%u: %s\n", a, b, strerror(-err));
        return -EINVAL;
    }
    /* the merge refuses parts of another title (a pipe has none: its part merges only with
     * parts without one) */
    char fingerprint[256], why[512];
    err = title_fingerprint(c->path_ref, c->path_dist, c->frame_skip_ref, c->frame_skip_dist,
                            fingerprint, sizeof(fingerprint), why, sizeof(why));
    if (err < 0) {
        fprintf(msg, "%s\n", why);
        return err;
    }
    if (err == 0 && vmaf_segment_set_fingerprint(vmaf, fingerprint)) return -EINVAL;
    const unsigned start = a - (before < a ? before : a);
    unsigned end = b + after < b ? UINT32_MAX : b + after; /* at most the title's end */
    if (c->frame_cnt && end > c->frame_cnt) end = c->frame_cnt;
    VideoInput *const in[2] = { ref_in, dist_in };
    for (unsigned i = 0; i < 2; i++) {
        char text[512];
        const int n = video_input_skip(in[i], start, text, sizeof(text));
        if (n < 0) {
            fprintf(msg, "%s\n", text);
            return n;
        }
        if ((unsigned)n < start) {
            fprintf(msg, "--segment %u:%u starts after the last frame of the %s input "
                    "(it has %d frames after any --frame_skip)\n", a, b,
                    i ? "distorted" : "reference", n);
            return -EINVAL;
        }
    }
    *first_index = start;
    /* one frame more, when the title may go on: not scored, it says whether it does */
    *probe = !c->frame_cnt || end < c->frame_cnt;
    *frame_limit = end - start + *probe;
    return 0;
}

CliJob cli_job_default(const CliSettings *c, int istty)
{
    return (CliJob){
        .msg = stderr,
        .log_level = VMAF_LOG_LEVEL_INFO,
        .verbose = istty && !c->quiet,
        .show_scores = istty && (!c->quiet || !c->output_path),
        .device = -1,
    };
}

/* --split: whether an earlier segment failed (this one's result is not needed then). */
static bool job_cancelled(CliJob *job)
{
    if (!job->failed || atomic_load(job->failed) >= job->index) return false;
    job->cancelled = true;
    return true;
}

/* The part of --segment: to its file, or (--split) into the job. */
static int write_part(VmafContext *vmaf, const CliSettings *c, CliJob *job, unsigned frames,
                      bool exact)
{
    int err = vmaf_segment_set_title_frames(vmaf, frames, exact);
    if (err) {
        fprintf(job->msg, "problem recording the title's length: %s\n", strerror(-err));
        return EXIT_SETUP;
    }
    if (job->part_in_memory) {
        err = vmaf_segment_write_buffer(vmaf, &job->part, &job->part_size);
        if (err)
            fprintf(job->msg, "problem keeping the result of segment %u:%u: %s\n",
                    c->segment_first, c->segment_last, strerror(-err));
        return err ? EXIT_SETUP : 0;
    }
    SignalHold hold; /* --segment without --split: the main thread */
    hold_signals(&hold);
    err = vmaf_segment_write(vmaf, c->output_path);
    if (err)
        fprintf(job->msg, "problem writing segment result %s: %s\n", c->output_path,
                strerror(-err));
    release_signals(&hold);
    return err ? EXIT_SETUP : 0;
}

int cli_rung_setup(CliSettings *c, const VideoInfo *info, bool parallel,
                   unsigned extra_pictures, CliDeviceShare *share, const CliJob *job,
                   Phases *ph, VmafContext **vmaf_out, CliModels *models, unsigned *depth,
                   unsigned *workers, bool *cuda)
{
    FILE *msg = job->msg;
    const VmafConfiguration cfg = {
        .log_level = job->log_level,
        .n_threads = c->threads,
        .n_subsample = c->subsample,
        .cpumask = c->cpumask,
        .gpumask = c->gpumask,
    };
    VmafContext *vmaf;
    int err = vmaf_init(&vmaf, cfg);
    if (err) {
        fprintf(msg, "problem initializing VMAF context: %s\n", strerror(-err));
        return EXIT_SETUP;
    }
    phase(ph, PH_INIT);
    models->cnt = 0;
    if (setup_backend(vmaf, c, info, parallel, extra_pictures, share, depth, workers, cuda,
                      job))
        goto fail;
    phase(ph, PH_BACKEND);
    if (load_models(vmaf, c, models, msg) || use_features(vmaf, c, msg) ||
        (c->output_path && vmaf_output_check_names(vmaf, c->output_fmt)))
        goto fail;
    phase(ph, PH_MODELS);
    *vmaf_out = vmaf;
    return 0;
fail:
    cli_free_models(models);
    vmaf_close(vmaf);
    return EXIT_SETUP;
}

int cli_rung_finish(VmafContext *vmaf, const CliSettings *c, CliModels *models,
                    const VideoInfo *info, unsigned frames, const CliJob *job, Phases *ph)
{
    if (!c->no_prediction &&
        score_models(vmaf, c, models->model, models->collection, models->cnt, frames,
                     job->show_scores, job->msg))
        return EXIT_SETUP;
    phase(ph, PH_PREDICT);
    cli_warn_not_numbers(vmaf, info, frames);
    const int status = c->output_path && write_output(vmaf, c) ? EXIT_SETUP : 0;
    phase(ph, PH_WRITE);
    return status;
}

int cli_score(CliSettings *c, VideoInput *ref_in, VideoInput *dist_in, CliJob *job, Phases *ph)
{
    FILE *msg = job->msg;
    VideoInfo info, dist_info;
    video_input_info(ref_in, &info);
    video_input_info(dist_in, &dist_info);
    if (dist_info.bpc != info.bpc) { /* --aom_ctc v6.0+: both at the larger depth */
        if (dist_info.bpc > info.bpc) info.bpc = dist_info.bpc;
        if (video_input_set_picture_depth(ref_in, info.bpc) ||
            video_input_set_picture_depth(dist_in, info.bpc))
            return EXIT_SETUP;
    }

    VmafContext *vmaf;
    int status = 0;
    CliModels models = { .cnt = 0 };
    unsigned depth, workers;
    bool cuda = false;
    status = cli_rung_setup(c, &info, parallel_read(ref_in, dist_in), 0, NULL, job, ph, &vmaf,
                            &models, &depth, &workers, &cuda);
    if (status) return status;
    int err;

    if (job->failed && job->index) { /* --split: segment 0 reads (checks) the skipped frames */
        err = seek_frames(ref_in, c->frame_skip_ref, msg);
        if (!err) err = seek_frames(dist_in, c->frame_skip_dist, msg);
    } else {
        err = cli_skip_frames(vmaf, ref_in, c->frame_skip_ref, msg);
        if (!err) err = cli_skip_frames(vmaf, dist_in, c->frame_skip_dist, msg);
    }
    if (err) {
        status = cli_read_status(err);
        goto close;
    }
    /* --segment A:B: frames [A - before, B + after) of the title, within it */
    unsigned first_index = 0, frame_limit = c->frame_cnt;
    bool title_continues = false, probe = false;
    if (c->segment) {
        err = start_segment(vmaf, c, ref_in, dist_in, &first_index, &frame_limit, &probe, msg);
        if (err) {
            status = err == -EINVAL ? EXIT_SETUP : cli_read_status(err);
            goto close;
        }
    }

    /* both inputs are read ahead on their own threads, into pool pictures */
    FrameReader *reader;
    err = frame_reader_start(&reader, vmaf, ref_in, dist_in, frame_limit, depth, workers,
                             vmaf_context_luma_only(vmaf), msg);
    if (err) {
        fprintf(msg, "could not start the input readers: %s\n", strerror(-err));
        status = EXIT_SETUP;
        goto close;
    }
    phase(ph, PH_READERS);
    const clock_t t0 = clock();
    double fps = 0.;
    unsigned index = first_index;
    for (;; index++) {
        if (frame_limit && index - first_index >= frame_limit) break;
        if (job_cancelled(job)) {
            status = EXIT_SETUP;
            break;
        }
        VmafPicture ref, dist;
        int r1, r2;
        frame_reader_next(reader, &ref, &r1, &dist, &r2);
        if (!index) phase(ph, PH_FIRST_FRAME);
        if (r1 < 0 || r2 < 0) {
            if (r1 == 1) vmaf_picture_unref(&ref);
            if (r2 == 1) vmaf_picture_unref(&dist);
            status = cli_read_status(r1 < 0 ? r1 : r2);
            break;
        }
        if (!r1 || !r2) {
            if (r1 != r2)
                fprintf(msg, "\"%s\" ended before \"%s\".\n", r1 ? c->path_dist : c->path_ref,
                        r1 ? c->path_ref : c->path_dist);
            if (r1 == 1) vmaf_picture_unref(&ref);
            if (r2 == 1) vmaf_picture_unref(&dist);
            break;
        }
        if (probe && index - first_index == frame_limit - 1) {
            /* the probe frame (start_segment): the title is longer than what was read */
            vmaf_picture_unref(&ref);
            vmaf_picture_unref(&dist);
            title_continues = true;
            break;
        }
        if (job->verbose) cli_show_progress(index, t0, &fps);
        const bool first = index == first_index;
        if (first && job->gate && job->index) { /* --split: after segment 0's first frame */
            cli_gate_wait(job->gate);
            if (job_cancelled(job)) {
                vmaf_picture_unref(&ref);
                vmaf_picture_unref(&dist);
                status = EXIT_SETUP;
                break;
            }
        }
        err = vmaf_read_pictures(vmaf, &ref, &dist, index);
        if (!index) phase(ph, PH_FIRST_SCORED);
        phase_frame(ph);
        if (first && job->gate && !job->index) {
            if (err) cli_mark_failed(job->failed, 0);
            cli_gate_open(job->gate);
        }
        if (err) {
            /* some failures leave the pictures with the caller, as the reference's do */
            if (ref.ref) vmaf_picture_unref(&ref);
            if (dist.ref) vmaf_picture_unref(&dist);
            fprintf(msg, "%sproblem scoring frame %u: %s\n", job->verbose ? "\n" : "", index,
                    strerror(-err));
            status = cli_read_status(err);
            break;
        }
    }
    if (ph && ph->on) {
        FrameReaderStats st;
        frame_reader_stats(reader, &st);
        if (st.workers)
            fprintf(msg, "cli readers: %u workers, %u frames ahead, %u tasks per frame%s; "
                    "workers fetching pictures %.1f ms, reading %.1f ms, pinning %.1f ms "
                    "(summed); scorer waiting for frames %.1f ms\n", st.workers, st.depth,
                    st.tasks, st.luma_only ? " (luma only)" : "", st.fetch_ms, st.read_ms,
                    st.prepare_ms, st.wait_ms);
        if (vmaf->pic_pool) {
            unsigned allocated, prepared;
            size_t bytes;
            vmaf_picture_pool_stats(vmaf->pic_pool, &allocated, &prepared, &bytes);
            fprintf(msg, "cli pool: %u pictures allocated, %u prepared (pinned) covering %.1f MiB\n",
                    allocated, prepared, bytes / 1048576.0);
        }
    }
    frame_reader_stop(reader);
    phase(ph, PH_LOOP);
    if (job->verbose) fprintf(msg, "\n");
    if (status) goto close;
    if (c->segment && index < c->segment_last) {
        fprintf(msg, "--segment %u:%u ends after the last frame of the input (it has %u "
                "frames after any --frame_skip)\n", c->segment_first, c->segment_last, index);
        status = EXIT_SETUP;
        goto close;
    }
    if (index == first_index) {
        fprintf(msg, "no frames to score\n");
        status = EXIT_SETUP;
        goto close;
    }

    err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    if (err) {
        fprintf(msg, "problem flushing context: %s\n", strerror(-err));
        status = cli_read_status(err);
        goto close;
    }
    phase(ph, PH_FLUSH);

    if (c->segment) { /* the merge predicts and pools, over the whole title */
        status = write_part(vmaf, c, job, title_continues ? index + 1 : index, !title_continues);
        goto close;
    }

    status = cli_rung_finish(vmaf, c, &models, &info, index, job, ph);
    if (!status)
        status = cli_write_report(c, &vmaf, &c->path_dist, (const char *const *)&c->output_path,
                                  1, &info, NULL, 0);
close:
    cli_free_models(&models);
    /* Scored on CUDA and the process ends next: what the context holds goes with the exit.
     * The driver tears a process's contexts down at exit whether or not they were released;
     * releasing first (vmaf_close: context release, unpinning, frees) paid for much of that
     * twice, so whole processes end sooner with it left (bench/startup_probe.sh's "release"
     * and "exit" lines; VMAF_CUDA_PROFILE=1 prints the close). The output is written and
     * closed; the context's threads are idle. Not under --split (segments are jobs of one
     * process), nor after a failure. */
    if (status == 0 && cuda && job->exit_after) {
        phase(ph, PH_CLOSE);
        if (ph && ph->on) {
            vmaf_context_print_device_profile(vmaf);
            fprintf(msg, "cli close: CUDA context and buffers left to the exit\n");
        }
        return status;
    }
    vmaf_close(vmaf);
    phase(ph, PH_CLOSE);
    return status;
}

int cli_check_setup(CliSettings *c)
{
    VmafContext *vmaf;
    int err = vmaf_init(&vmaf, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_INFO,
                                                     .n_threads = c->threads,
                                                     .n_subsample = c->subsample,
                                                     .cpumask = c->cpumask });
    if (err) {
        fprintf(stderr, "problem initializing VMAF context: %s\n", strerror(-err));
        return EXIT_SETUP;
    }
    CliModels models = { .cnt = 0 };
    const int status = load_models(vmaf, c, &models, stderr) || use_features(vmaf, c, stderr) ||
                               (c->output_path && vmaf_output_check_names(vmaf, c->output_fmt))
                           ? EXIT_SETUP
                           : 0;
    cli_free_models(&models);
    vmaf_close(vmaf);
    return status;
}

int cli_finish_merged(VmafContext *merged, const CliSettings *c, VmafModel *const *model,
                      VmafModelCollection *const *collection, unsigned model_cnt,
                      const VideoInfo *info, unsigned frames, bool show)
{
    /* the merge pooled every model already; this reads the same scores back to show them */
    if (show && !c->no_prediction &&
        score_models(merged, c, model, collection, model_cnt, frames, true, stderr))
        return EXIT_SETUP;
    cli_warn_not_numbers(merged, info, frames);
    if (c->output_path && write_output(merged, c)) return EXIT_SETUP;
    return cli_write_report(c, &merged, &c->path_dist, (const char *const *)&c->output_path, 1,
                            info, NULL, 0);
}

/* --merge PART... -o OUTPUT: the library checks the parts and writes OUTPUT (never one of the
 * parts), under the signal hold. */
static int merge_parts(const CliSettings *c)
{
    const int same = vmaf_file_find_same(c->output_path, (const char *const *)c->merge_part,
                                         c->merge_cnt);
    if (same >= 0) {
        fprintf(stderr, "output file %s is the segment result %s: refusing to overwrite it\n",
                c->output_path, c->merge_part[same]);
        return EXIT_SETUP;
    }
    if (cli_check_output_writable(c->output_path)) return EXIT_SETUP;
    SignalHold hold;
    hold_signals(&hold);
    const int err = vmaf_segment_merge_with_precision((const char *const *)c->merge_part,
                                                      c->merge_cnt, c->output_path,
                                                      c->output_fmt, c->precision);
    if (err)
        fprintf(stderr, "could not merge the %u segment result%s into %s: %s\n", c->merge_cnt,
                c->merge_cnt > 1 ? "s" : "", c->output_path, strerror(-err));
    release_signals(&hold);
    return err ? EXIT_SETUP : 0;
}

int main(int argc, char *argv[])
{
    const char *profile = getenv("VMAF_CUDA_PROFILE");
    Phases ph = { .on = profile && *profile && strcmp(profile, "0") };
    phase(&ph, PH_MAIN);
    const int istty = isatty(fileno(stderr));
    CliSettings c;
    cli_parse(argc, argv, &c);
    c.opencl_gpu = -1;
    if (c.backend == CLI_BACKEND_AUTO && c.opencl_device < 0 && !c.gpumask && !c.opencl_list &&
        !c.merge) {
        /* enumerated once, here: --split's segments open their states in threads, and some
         * OpenCL implementations do not describe devices safely from several at once */
        int n = 0;
        if (!vmaf_opencl_device_count(&n)) {
            for (int i = 0; i < n && c.opencl_gpu < 0; i++) {
                VmafOpenCLDeviceInfo info;
                if (!vmaf_opencl_device_info(i, &info) && info.type == VMAF_OPENCL_DEVICE_GPU)
                    c.opencl_gpu = i;
            }
        }
    }
    if (istty && !c.quiet) fprintf(stderr, "VMAF version %s\n", vmaf_version());

    /* Past the file size limit (ulimit -f) a write then fails with EFBIG, reported like a full
     * disk, instead of SIGXFSZ ending the process with a temporary file left (file_write.h) */
    const struct sigaction ignore = { .sa_handler = SIG_IGN };
    sigaction(SIGXFSZ, &ignore, NULL);
    int status = EXIT_SETUP;
    VideoInput *ref = NULL, *dist = NULL;
    if (c.merge) {
        status = merge_parts(&c);
        goto done;
    }
    if (c.report_from) {
        status = cli_report_from(&c);
        goto done;
    }
    if (c.opencl_list) {
        status = cli_opencl_list(stdout, stderr);
        goto done;
    }
    /* before any thread and any driver call: read when the driver starts */
    if (c.backend != CLI_BACKEND_CPU) setenv("CUDA_DEVICE_MAX_CONNECTIONS", CLI_CUDA_CONNECTIONS, 0);
    if (c.batch) {
        status = cli_batch_run(argc, argv, &c, istty);
        goto done;
    }
    if (c.dist_cnt > 1) { /* a ladder: it opens and checks its inputs and outputs */
        status = cli_ladder_run(&c, istty, NULL, NULL);
        goto done;
    }
    if (check_output_not_input(&c) || (c.output_path && cli_check_output_writable(c.output_path)))
        goto done;
    const char *const inputs[2] = { c.path_ref, c.path_dist };
    if (cli_report_check(&c, inputs, 2, (const char *const *)&c.output_path, 1)) goto done;
    if (cli_open_input(&c, c.path_ref, &ref, stderr) ||
        cli_open_input(&c, c.path_dist, &dist, stderr))
        goto done;
    cli_report_frame_rate(&c, ref, dist);
    if (cli_check_compatible(ref, dist, c.common_bitdepth)) goto done;
    if (c.split) { /* the inputs are counted here; each segment opens its own */
        status = cli_split_run(&c, ref, dist, istty);
        goto done;
    }
    phase(&ph, PH_INPUTS);
    CliJob job = cli_job_default(&c, istty);
    job.exit_after = true;
    status = cli_score(&c, ref, dist, &job, &ph);
    print_phases(&ph);
done:
    if (ref) video_input_close(ref);
    if (dist) video_input_close(dist);
    cli_free(&c);
    return status;
}
