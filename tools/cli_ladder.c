/*
 * Several -d: a ladder. The reference is read once and scored against every distorted input
 * in one pass (libvmaf.h, vmaf_ladder_*): rung k is the context its single run would make,
 * from a copy of the settings with its own -d and -o, and writes the file that run writes.
 *
 * Before any frame: every output is checked (none is an input or another rung's output, each
 * writable), every input opened, and a distorted input of another geometry or format than
 * the reference (or, raw, of no whole number of frames) refuses the run, naming it. A
 * distorted input that cannot be opened or read,
 * or whose scoring fails, fails alone: its output is not written, the others go on, and the
 * exit status is that of the first failure (in frame order, then -d order), as its single
 * run would exit. A distorted input shorter than the reference ends its rung there, as a
 * single run ends at its shorter input.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libvmaf/libvmaf.h"

#include "cli.h"
#include "cli_run.h"
#include "context.h"
#include "file_write.h"
#include "frame_reader.h"
#include "video_input.h"

typedef struct Rung {
    const char *dist_path;
    char *output;        /* NULL: none */
    VideoInput *in;
    CliSettings set;     /* a cli_copy() of the run's settings, with this rung's -d and -o */
    bool copied;
    CliJob job;
    VmafContext *vmaf;
    CliModels models;
    int status;          /* 0, or the exit status of its failure */
    unsigned frames;     /* frames it scored */
    bool ended;          /* its input ended, failed, or its scoring failed */
} Rung;

typedef struct Ladder {
    CliSettings *c;
    Rung *rung;
    unsigned n;
    int first_status; /* the first failure's exit status */
} Ladder;

static void fail(Ladder *l, Rung *r, int status)
{
    if (r->status) return;
    r->status = status;
    r->ended = true;
    if (!l->first_status) l->first_status = status;
}

/* The file name of path without directory and last extension. */
static void base_name(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    snprintf(out, size, "%s", slash ? slash + 1 : path);
    char *dot = strrchr(out, '.');
    if (dot && dot != out) *dot = '\0';
}

/* The template with {n} and {name} replaced for input k (from 0) at path. */
static char *expand(const char *tpl, unsigned k, const char *path)
{
    char name[PATH_MAX], num[16];
    base_name(path, name, sizeof(name));
    snprintf(num, sizeof(num), "%u", k + 1);
    size_t cap = strlen(tpl) + 1, len = 0;
    for (const char *p = tpl; *p; p++) cap += strlen(name) + strlen(num);
    char *out = malloc(cap);
    if (!out) return NULL;
    for (const char *p = tpl; *p;) {
        const char *v = !strncmp(p, "{n}", 3) ? num : !strncmp(p, "{name}", 6) ? name : NULL;
        if (v) {
            memcpy(out + len, v, strlen(v));
            len += strlen(v);
            p += v == num ? 3 : 6;
        } else {
            out[len++] = *p++;
        }
    }
    out[len] = '\0';
    return out;
}

/* Whether two output paths name one file: the same file now, or the same directory and name. */
static bool same_output(const char *a, const char *b)
{
    if (!strcmp(a, b) || vmaf_file_find_same(a, &b, 1) == 0) return true;
    char da[PATH_MAX], db[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
    snprintf(da, sizeof(da), "%s", a);
    snprintf(db, sizeof(db), "%s", b);
    const char *fa = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
    const char *fb = strrchr(b, '/') ? strrchr(b, '/') + 1 : b;
    if (strcmp(fa, fb)) return false;
    return realpath(dirname(da), ra) && realpath(dirname(db), rb) && !strcmp(ra, rb);
}

/* The outputs: named, distinct, none an input, each writable. 0 or EXIT_SETUP. */
static int plan_outputs(Ladder *l)
{
    CliSettings *c = l->c;
    for (unsigned k = 0; k < l->n; k++) {
        Rung *r = &l->rung[k];
        if (!c->output_cnt) continue;
        r->output = c->output_cnt == l->n ? strdup(c->output_list[k])
                                          : expand(c->output_path, k, r->dist_path);
        if (!r->output) {
            fprintf(stderr, "out of memory\n");
            return EXIT_SETUP;
        }
        for (unsigned j = 0; j < k; j++)
            if (same_output(r->output, l->rung[j].output)) {
                fprintf(stderr, "distorted inputs %s and %s would both write output file %s\n",
                        l->rung[j].dist_path, r->dist_path, r->output);
                return EXIT_SETUP;
            }
        const char *inputs[CLI_MAX_DISTORTED + 1];
        inputs[0] = c->path_ref;
        for (unsigned j = 0; j < l->n; j++) inputs[j + 1] = l->rung[j].dist_path;
        const int same = vmaf_file_find_same(r->output, inputs, l->n + 1);
        if (same >= 0) {
            fprintf(stderr, "output file %s is the %s input %s: refusing to overwrite it\n",
                    r->output, same ? "distorted" : "reference", inputs[same]);
            return EXIT_SETUP;
        }
    }
    for (unsigned k = 0; k < l->n; k++)
        if (l->rung[k].output && cli_check_output_writable(l->rung[k].output)) return EXIT_SETUP;
    const char *inputs[CLI_MAX_DISTORTED + 1], *outputs[CLI_MAX_DISTORTED];
    inputs[0] = c->path_ref;
    for (unsigned k = 0; k < l->n; k++) {
        inputs[k + 1] = l->rung[k].dist_path;
        outputs[k] = l->rung[k].output;
    }
    if (cli_check_heatmaps(c, inputs, l->n + 1)) return EXIT_SETUP;
    return cli_report_check(c, inputs, l->n + 1, outputs, l->n);
}

/* --report: one report of every rung that scored, after their outputs. */
static int write_report(Ladder *l, const VideoInfo *info)
{
    VmafContext *ctx[CLI_MAX_DISTORTED];
    const char *dist[CLI_MAX_DISTORTED], *output[CLI_MAX_DISTORTED], *failed[CLI_MAX_DISTORTED];
    unsigned n = 0, n_failed = 0;
    for (unsigned k = 0; k < l->n; k++) {
        Rung *r = &l->rung[k];
        if (!r->vmaf || r->status) {
            failed[n_failed++] = r->dist_path;
            continue;
        }
        ctx[n] = r->vmaf;
        dist[n] = r->dist_path;
        output[n++] = r->output;
    }
    if (!n) return 0; /* every rung failed: said already */
    return cli_write_report(l->c, ctx, dist, output, n, info, failed, n_failed);
}

/* Every distorted input opened (one that cannot be fails alone) and compatible with the
 * reference (one that is not refuses the run); all at one depth. 0 or EXIT_SETUP. */
static int open_inputs(Ladder *l, VideoInput *ref, VideoInfo *info)
{
    CliSettings *c = l->c;
    video_input_info(ref, info);
    unsigned depth = 0;
    for (unsigned k = 0; k < l->n; k++) {
        Rung *r = &l->rung[k];
        const int err = cli_open_input(c, r->dist_path, &r->in, stderr);
        if (err == -EINVAL) return EXIT_SETUP; /* not of the reference's format (said) */
        if (err) { /* cannot be opened or read: fails alone */
            fail(l, r, EXIT_SETUP);
            continue;
        }
        if (cli_check_compatible(ref, r->in, c->common_bitdepth)) {
            fprintf(stderr, "distorted input %s does not match the reference %s\n",
                    r->dist_path, c->path_ref);
            return EXIT_SETUP;
        }
        VideoInfo d;
        video_input_info(r->in, &d);
        /* --aom_ctc v6.0+ scores a pair at the larger depth: one depth for every rung */
        const unsigned bpc = d.bpc > info->bpc ? d.bpc : info->bpc;
        if (depth && bpc != depth) {
            fprintf(stderr, "distorted input %s would be scored at %u bits, others at %u: "
                    "score inputs of different depths in separate runs\n", r->dist_path, bpc,
                    depth);
            return EXIT_SETUP;
        }
        depth = bpc;
    }
    if (depth && depth != info->bpc) {
        info->bpc = depth;
        if (video_input_set_picture_depth(ref, depth)) return EXIT_SETUP;
    }
    for (unsigned k = 0; k < l->n; k++)
        if (l->rung[k].in && video_input_set_picture_depth(l->rung[k].in, info->bpc))
            return EXIT_SETUP;
    return 0;
}

static bool all_read_at(const Ladder *l, VideoInput *ref)
{
    if (!video_input_can_read_at(ref)) return false;
    for (unsigned k = 0; k < l->n; k++)
        if (l->rung[k].in && !video_input_can_read_at(l->rung[k].in)) return false;
    return true;
}

/* A rung's result from the ladder (status of its read or flush). */
static void rung_result(Ladder *l, Rung *r, int err, unsigned index, bool flush)
{
    if (!err || err == -ENOENT || r->status) return;
    if (flush)
        fprintf(stderr, "%s: problem flushing context: %s\n", r->dist_path, strerror(-err));
    else
        fprintf(stderr, "%s: problem scoring frame %u: %s\n", r->dist_path, index,
                strerror(-err));
    fail(l, r, cli_read_status(err));
}

/* The frames: read once for the reference, scored by every rung still in. */
/* The rungs' workers: share's pool, made once for the --threads of the first ladder that
 * needs one and kept while the threads asked for stay the same (a batch's ladders). */
static int share_workers(CliDeviceShare *share, VmafContext *const *rungs, unsigned n,
                         unsigned threads)
{
    if (!threads) return 0;
    if (share->pool && share->pool_threads != threads) {
        vmaf_thread_pool_unref(share->pool);
        share->pool = NULL;
    }
    if (!share->pool) {
        const int err = vmaf_context_create_workers(&share->pool, threads, 4 * threads);
        if (err) return err;
        share->pool_threads = threads;
    }
    for (unsigned i = 0; i < n; i++) {
        const int err = vmaf_context_use_workers(rungs[i], share->pool);
        if (err) return err;
    }
    return 0;
}

static int score_frames(Ladder *l, VideoInput *ref, unsigned depth, unsigned workers,
                        const CliJob *job, CliDeviceShare *share, unsigned *frames)
{
    CliSettings *c = l->c;
    unsigned live[CLI_MAX_DISTORTED], nl = 0;
    for (unsigned k = 0; k < l->n; k++)
        if (l->rung[k].vmaf) live[nl++] = k;
    VmafContext *rungs[CLI_MAX_DISTORTED], *pool[CLI_MAX_DISTORTED + 1];
    VideoInput *in[CLI_MAX_DISTORTED + 1];
    for (unsigned i = 0; i < nl; i++) {
        rungs[i] = l->rung[live[i]].vmaf;
        pool[i + 1] = rungs[i];
        in[i + 1] = l->rung[live[i]].in;
    }
    pool[0] = rungs[0]; /* the reference's pictures: the first rung's pool */
    in[0] = ref;
    VmafLadder *ladder;
    int err = share_workers(share, rungs, nl, c->threads);
    if (!err) err = vmaf_ladder_init(&ladder, rungs, nl);
    if (err) {
        fprintf(stderr, "problem making the ladder: %s\n", strerror(-err));
        return EXIT_SETUP;
    }
    FrameReader *reader;
    err = frame_reader_start_multi(&reader, pool, in, nl + 1, c->frame_cnt, depth, workers,
                                   vmaf_context_luma_only(rungs[0]), stderr);
    if (err) {
        fprintf(stderr, "could not start the input readers: %s\n", strerror(-err));
        vmaf_ladder_close(ladder);
        return EXIT_SETUP;
    }
    const clock_t t0 = clock();
    double fps = 0.;
    unsigned index = 0;
    VmafPicture pics[CLI_MAX_DISTORTED + 1];
    int st[CLI_MAX_DISTORTED + 1], status[CLI_MAX_DISTORTED];
    int ref_status = 0;
    for (;; index++) {
        if (!vmaf_ladder_rungs_left(ladder)) break;
        frame_reader_next_multi(reader, pics, st);
        if (st[0] <= 0) { /* the reference ended (or failed): so does every rung */
            for (unsigned i = 0; i < nl; i++) {
                Rung *r = &l->rung[live[i]];
                if (st[i + 1] == 1) {
                    vmaf_picture_unref(&pics[i + 1]);
                    if (!st[0] && !r->ended)
                        fprintf(stderr, "\"%s\" ended before \"%s\".\n", c->path_ref,
                                r->dist_path);
                }
            }
            if (st[0] < 0) ref_status = cli_read_status(st[0]);
            break;
        }
        if (job->verbose) cli_show_progress(index, t0, &fps);
        VmafPicture dist[CLI_MAX_DISTORTED];
        bool given[CLI_MAX_DISTORTED];
        for (unsigned i = 0; i < nl; i++) {
            Rung *r = &l->rung[live[i]];
            memset(&dist[i], 0, sizeof(dist[i]));
            given[i] = st[i + 1] == 1 && !r->ended;
            if (given[i]) {
                dist[i] = pics[i + 1];
                continue;
            }
            if (st[i + 1] == 1) vmaf_picture_unref(&pics[i + 1]);
            if (r->ended) continue;
            r->ended = true;
            if (st[i + 1] < 0) fail(l, r, cli_read_status(st[i + 1]));
            else fprintf(stderr, "\"%s\" ended before \"%s\".\n", r->dist_path, c->path_ref);
        }
        vmaf_ladder_read_pictures(ladder, &pics[0], dist, status, index);
        for (unsigned i = 0; i < nl; i++) {
            Rung *r = &l->rung[live[i]];
            rung_result(l, r, status[i], index, !given[i]);
            if (!r->status && given[i]) r->frames = index + 1;
        }
    }
    frame_reader_stop(reader);
    if (job->verbose) fprintf(stderr, "\n");
    if (ref_status) { /* as every single run would exit */
        for (unsigned i = 0; i < nl; i++) fail(l, &l->rung[live[i]], ref_status);
    } else if (!index) {
        fprintf(stderr, "no frames to score\n");
        for (unsigned i = 0; i < nl; i++) fail(l, &l->rung[live[i]], EXIT_SETUP);
    } else {
        vmaf_ladder_read_pictures(ladder, NULL, NULL, status, 0);
        for (unsigned i = 0; i < nl; i++) rung_result(l, &l->rung[live[i]], status[i], 0, true);
    }
    vmaf_ladder_close(ladder);
    *frames = index;
    return 0;
}

static int run(Ladder *l, VideoInput *ref, int istty, CliDeviceShare *share)
{
    CliSettings *c = l->c;
    VideoInfo info;
    int status = plan_outputs(l);
    if (!status) status = open_inputs(l, ref, &info);
    if (status) return status;
    const bool parallel = all_read_at(l, ref);
    unsigned depth = 0, workers = 0, first = l->n;
    for (unsigned k = 0; k < l->n && !status; k++) {
        Rung *r = &l->rung[k];
        if (r->status) continue;
        if (cli_copy(c, &r->set)) {
            fprintf(stderr, "out of memory\n");
            status = EXIT_SETUP;
            break;
        }
        r->copied = true;
        r->set.path_dist = r->dist_path;
        r->set.output_path = r->output;
        r->job = cli_job_default(&r->set, istty);
        r->job.show_scores = istty && (!c->quiet || !c->output_cnt);
        /* the first rung's pool also holds the reference pictures every rung shares */
        bool cuda;
        status = cli_rung_setup(&r->set, &info, parallel, first == l->n ? 4 : 0, share,
                                &r->job, NULL, &r->vmaf, &r->models, &depth, &workers, &cuda);
        if (!status && first == l->n) first = k;
    }
    if (!status && first == l->n) status = l->first_status; /* no input could be opened */
    if (!status) status = cli_skip_frames(l->rung[first].vmaf, ref, c->frame_skip_ref, stderr)
                              ? EXIT_SETUP : 0;
    unsigned frames = 0;
    if (!status) {
        for (unsigned k = 0; k < l->n; k++) {
            Rung *r = &l->rung[k];
            if (!r->vmaf) continue;
            const int err = cli_skip_frames(r->vmaf, r->in, c->frame_skip_dist, stderr);
            if (err) fail(l, r, cli_read_status(err));
        }
        status = score_frames(l, ref, depth, workers, &l->rung[first].job, share, &frames);
    }
    for (unsigned k = 0; !status && k < l->n; k++) {
        Rung *r = &l->rung[k];
        if (!r->vmaf || r->status) continue;
        if (r->job.show_scores) fprintf(stderr, "%s:\n", r->dist_path);
        const int s = cli_rung_finish(r->vmaf, &r->set, &r->models, &info, r->frames, &r->job,
                                      NULL);
        if (s) fail(l, r, s);
    }
    if (!status && c->report) {
        const int s = write_report(l, &info);
        if (s && !l->first_status) l->first_status = s;
        if (s) status = s;
    }
    return status;
}

int cli_ladder_run(CliSettings *c, int istty, CliDeviceShare *keep, int *rung_status)
{
    CliDeviceShare own = { .decided = false };
    CliDeviceShare *share = keep ? keep : &own;
    Ladder l = { .c = c, .n = c->dist_cnt };
    l.rung = calloc(l.n, sizeof(*l.rung));
    if (!l.rung) {
        fprintf(stderr, "out of memory\n");
        return EXIT_SETUP;
    }
    for (unsigned k = 0; k < l.n; k++) l.rung[k].dist_path = c->dist_path[k];
    VideoInput *ref = NULL;
    const int opened = cli_open_input(c, c->path_ref, &ref, stderr);
    if (!opened) cli_report_frame_rate(c, ref, NULL);
    const int run_status = opened ? EXIT_SETUP : run(&l, ref, istty, share);
    int status = run_status;
    unsigned failed = 0;
    for (unsigned k = 0; k < l.n; k++) failed += l.rung[k].status != 0;
    if (!status && failed) {
        fprintf(stderr, "%u of %u distorted inputs scored; failed:", l.n - failed, l.n);
        for (unsigned k = 0; k < l.n; k++)
            if (l.rung[k].status) fprintf(stderr, " %s", l.rung[k].dist_path);
        fprintf(stderr, "\n");
        status = l.first_status;
    }
    for (unsigned k = 0; k < l.n; k++) {
        Rung *r = &l.rung[k];
        if (rung_status) rung_status[k] = run_status ? run_status : r->status;
        if (r->vmaf) vmaf_close(r->vmaf);
        cli_free_models(&r->models);
        if (r->copied) cli_copy_free(&r->set);
        if (r->in) video_input_close(r->in);
        free(r->output);
    }
    if (ref) video_input_close(ref);
    free(l.rung);
    if (own.cuda) vmaf_cuda_state_free(own.cuda);
    if (own.opencl) vmaf_opencl_state_free(own.opencl);
    vmaf_thread_pool_unref(own.pool);
    return status;
}
