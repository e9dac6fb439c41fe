#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frame_reader.h"
#include "picture.h"

typedef struct Entry {
    VmafPicture pic;
    int status;
} Entry;

typedef struct Side {
    FrameReader *r;
    int which;            /* 0 ref, 1 dist */
    VideoInput *in;
    Entry *ring;          /* depth entries, frame k at k % depth */
    unsigned long long produced;
    bool done;            /* the thread stopped after its last entry */
    pthread_t thread;
    bool started;
} Side;

/*
 * Parallel mode (both inputs regular files read at an index): a frame is split into tasks,
 * a band of rows of one plane of one input each (~CHUNK_BYTES), and the workers take the
 * tasks of frame k in order, then those of k + 1, ..., at most `depth` frames ahead of the
 * caller. The first task of a frame waits until the worker that took it has fetched the
 * frame's two pool pictures (frames fetch in order: frame k never waits for a picture a
 * later frame holds). The worker that finishes the last task of one input's picture prepares
 * (pins) that picture, so the two inputs' are pinned in parallel; the frame is ready once
 * both are handed over. Errors are kept with the frame (per input, the first in read
 * order, as a reader in order would meet it) and printed when the caller reaches that frame.
 */
#define CHUNK_BYTES ((size_t)1 << 20)

typedef struct Task {
    unsigned char side, plane;
    unsigned y0, y1;
} Task;

typedef struct FrameSlot {
    bool ready;
    unsigned left[2];     /* per input: tasks handed out or not yet, unfinished */
    unsigned pending;     /* inputs not handed over yet */
    unsigned err_task[2]; /* per input: its first failing task in read order (UINT_MAX: none) */
    char msg[2][512];     /* and that task's message */
} FrameSlot;

typedef struct Parallel {
    unsigned n_workers;
    pthread_t *thread;
    unsigned started;
    Task *task;                    /* a frame's tasks, in read order */
    unsigned n_tasks;
    unsigned long long next;       /* frame whose tasks are handed out */
    unsigned next_task;            /* its next task; 0: its pictures are not fetched yet */
    bool fetching;                 /* a worker is fetching frame `next`'s pictures */
    bool go;                       /* every worker is created: reading may start (thread
                                    * creation maps stacks, which waits for the workers'
                                    * page faults and pinning while they run) */
    unsigned long long base[2];    /* file index of frame 0 of each input (after skips) */
    FrameSlot *slot;               /* [depth]: frame k at k % depth */
    bool side_read[2];             /* frame `next`: whether each input has it (tasks run) */
    bool luma_only;                /* the tasks leave chroma unread */
} Parallel;

struct FrameReader {
    VmafContext *vmaf;
    FILE *msg;                    /* where read errors are printed */
    unsigned max_frames, depth;
    bool prepare_luma;            /* every extractor reads luma only: prepare (pin) just that */
    Parallel par;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned long long turn;      /* fetch ticket: 2k + side */
    unsigned long long consumed;  /* frames handed to the caller */
    bool stop;
    Side side[2];
    FrameReaderStats stats;       /* under lock */
};

static double reader_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Tickets of a finished side are skipped. Call with the lock held. */
static void skip_finished_turns(FrameReader *r)
{
    while (r->side[r->turn & 1].done && !r->side[(r->turn + 1) & 1].done) r->turn++;
}

/* A picture read whole, before it goes to the caller: its samples were checked against the
 * depth as they were read, and a pinned pool's buffer is registered (once; its luma plane
 * only when nothing reads chroma). 1, or a negative errno with the message in msg. */
static int hand_over(const FrameReader *r, VmafPicture *pic, char *msg, size_t msg_size)
{
    vmaf_picture_mark_range_checked(pic);
    const int err = vmaf_picture_prepare_planes(pic, r->prepare_luma);
    if (!err) return 1;
    snprintf(msg, msg_size, "could not pin a picture of the pool: %s", strerror(-err));
    return err;
}

static void *reader_main(void *arg)
{
    Side *s = arg;
    FrameReader *r = s->r;
    for (unsigned long long k = 0;; k++) {
        Entry e = { .status = 0 };
        pthread_mutex_lock(&r->lock);
        while (!r->stop && (k - r->consumed >= r->depth || r->turn != 2 * k + (unsigned)s->which)) {
            skip_finished_turns(r);
            if (r->turn == 2 * k + (unsigned)s->which && k - r->consumed < r->depth) break;
            pthread_cond_wait(&r->changed, &r->lock);
        }
        const bool stop = r->stop;
        pthread_mutex_unlock(&r->lock);
        if (stop) break;

        if (!r->max_frames || k < r->max_frames) {
            e.status = vmaf_fetch_preallocated_picture(r->vmaf, &e.pic);
            if (e.status) fprintf(r->msg, "could not get a picture from the pool: %s\n",
                                  strerror(-e.status));
        }
        pthread_mutex_lock(&r->lock);
        r->turn++;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);

        if (!e.status && e.pic.ref) {
            char msg[512];
            e.status = video_input_read(s->in, &e.pic, msg, sizeof(msg));
            if (e.status < 0) fprintf(r->msg, "%s\n", msg);
            char pin_msg[128];
            if (e.status == 1 && (e.status = hand_over(r, &e.pic, pin_msg, sizeof(pin_msg))) < 0)
                fprintf(r->msg, "%s\n", pin_msg);
            if (e.status != 1) vmaf_picture_unref(&e.pic);
        }
        pthread_mutex_lock(&r->lock);
        s->ring[k % r->depth] = e;
        s->produced = k + 1;
        if (e.status != 1) s->done = true;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);
        if (e.status != 1) break;
    }
    return NULL;
}

static double since(double t0)
{
    return reader_now_ms() - t0;
}

/* The frame's pictures (frame `next`, lock not held, par->fetching set by the caller). */
static void fetch_frame_pictures(FrameReader *r, unsigned long long k, FrameSlot *fs)
{
    Parallel *par = &r->par;
    const bool want = !r->max_frames || k < r->max_frames;
    for (int i = 0; i < 2; i++) memset(&r->side[i].ring[k % r->depth], 0, sizeof(Entry));
    for (int i = 0; i < 2; i++) {
        Entry *e = &r->side[i].ring[k % r->depth];
        unsigned long long frames = 0;
        video_input_frames_known(r->side[i].in, &frames);
        par->side_read[i] = want && par->base[i] + k < frames;
        if (!par->side_read[i]) continue; /* status 0: the input ended (or max_frames) */
        e->status = vmaf_fetch_preallocated_picture(r->vmaf, &e->pic);
        if (!e->status) {
            e->status = 1;
            continue;
        }
        snprintf(fs->msg[i], sizeof(fs->msg[i]), "could not get a picture from the pool: %s",
                 strerror(-e->status));
        fs->err_task[i] = 0;
        for (int j = 0; j < i; j++) { /* no tasks for this frame: the error is its status */
            Entry *o = &r->side[j].ring[k % r->depth];
            if (o->status == 1) vmaf_picture_unref(&o->pic);
            o->status = 0;
        }
        par->side_read[0] = par->side_read[1] = false;
        break;
    }
}

/* One input of the frame is handed over; the frame is ready once both are. Lock held. */
static void side_handed_over(FrameReader *r, FrameSlot *fs)
{
    if (!--fs->pending) {
        fs->ready = true;
        pthread_cond_broadcast(&r->changed);
    }
}

/* Input i of frame k is read: its picture is prepared (pinned) and handed over, by the
 * worker that finished its last task (the two inputs' in parallel). Lock held on entry and
 * exit, released around the preparation. */
static void finish_side(FrameReader *r, unsigned long long k, FrameSlot *fs, int i)
{
    Entry *e = &r->side[i].ring[k % r->depth];
    pthread_mutex_unlock(&r->lock);
    const double t0 = reader_now_ms();
    if (e->status != 1) {
        if (e->pic.ref) vmaf_picture_unref(&e->pic);
    } else if ((e->status = hand_over(r, &e->pic, fs->msg[i], sizeof(fs->msg[i]))) != 1) {
        vmaf_picture_unref(&e->pic);
        fs->err_task[i] = 0;
    }
    pthread_mutex_lock(&r->lock);
    r->stats.prepare_ms += since(t0);
    side_handed_over(r, fs);
}

static void *worker_main(void *arg)
{
    FrameReader *r = arg;
    Parallel *par = &r->par;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (!r->stop && (!par->go || par->next - r->consumed >= r->depth || par->fetching))
            pthread_cond_wait(&r->changed, &r->lock);
        if (r->stop) break;
        const unsigned long long k = par->next;
        FrameSlot *fs = &par->slot[k % r->depth];
        if (!par->next_task) { /* the frame's first task: its pictures, in frame order */
            par->fetching = true;
            *fs = (FrameSlot){ .err_task = { UINT_MAX, UINT_MAX } };
            pthread_mutex_unlock(&r->lock);
            const double t0 = reader_now_ms();
            fetch_frame_pictures(r, k, fs);
            pthread_mutex_lock(&r->lock);
            r->stats.fetch_ms += since(t0);
            par->fetching = false;
            pthread_cond_broadcast(&r->changed);
            fs->pending = 2;
            for (unsigned t = 0; t < par->n_tasks; t++)
                fs->left[par->task[t].side] += par->side_read[par->task[t].side];
            /* an input with nothing to read (its status, 0 or an error, says why) is done
             * now, without releasing the lock: the frame's tasks are not handed out yet */
            for (int i = 0; i < 2; i++) {
                if (fs->left[i]) continue;
                Entry *e = &r->side[i].ring[k % r->depth];
                if (e->pic.ref) vmaf_picture_unref(&e->pic);
                side_handed_over(r, fs);
            }
            if (!fs->left[0] && !fs->left[1]) { /* nothing to read: ended, or the fetch failed */
                par->next++;
                continue;
            }
        }
        /* the next task of frame k that reads an input having it */
        while (!par->side_read[par->task[par->next_task].side]) par->next_task++;
        const unsigned t = par->next_task++;
        while (par->next_task < par->n_tasks && !par->side_read[par->task[par->next_task].side])
            par->next_task++;
        if (par->next_task == par->n_tasks) {
            par->next++;
            par->next_task = 0;
        }
        const Task *task = &par->task[t];
        Side *side = &r->side[task->side];
        Entry *e = &side->ring[k % r->depth];
        pthread_mutex_unlock(&r->lock);

        const double t0 = reader_now_ms();
        char msg[512];
        const int got = video_input_read_rows_at(side->in, par->base[task->side] + k, &e->pic,
                                                 task->plane, task->y0, task->y1, msg,
                                                 sizeof(msg));
        pthread_mutex_lock(&r->lock);
        r->stats.read_ms += since(t0);
        if (got != 1 && t < fs->err_task[task->side]) { /* 0: the file shrank since open */
            fs->err_task[task->side] = t;
            if (got < 0) snprintf(fs->msg[task->side], sizeof(fs->msg[0]), "%s", msg);
            else snprintf(fs->msg[task->side], sizeof(fs->msg[0]), "%s: truncated frame %llu",
                          video_input_path(side->in), par->base[task->side] + k);
            e->status = got < 0 ? got : -EIO;
        }
        if (!--fs->left[task->side]) finish_side(r, k, fs, task->side);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* The tasks of one frame: bands of ~CHUNK_BYTES of each plane read (luma only when
 * luma_only and both inputs are 8-bit: no chroma sample can be out of range there), the
 * reference's planes first. */
static int plan_tasks(Parallel *par, VideoInput *ref, VideoInput *dist, bool luma_only)
{
    unsigned rows[3];
    size_t row_bytes[3];
    VideoInfo a, b;
    video_input_info(ref, &a);
    video_input_info(dist, &b);
    unsigned planes = video_input_plane_rows(ref, rows, row_bytes);
    par->luma_only = luma_only && a.bpc == 8 && b.bpc == 8 && planes > 1;
    if (par->luma_only) planes = 1;
    unsigned n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned side = 0; side < 2; side++) {
            for (unsigned p = 0; p < planes; p++) {
                if (!rows[p]) continue;
                unsigned band = (unsigned)(CHUNK_BYTES / row_bytes[p]);
                if (!band) band = 1;
                for (unsigned y0 = 0; y0 < rows[p]; y0 += band) {
                    if (pass)
                        par->task[n] = (Task){ .side = (unsigned char)side,
                                               .plane = (unsigned char)p, .y0 = y0,
                                               .y1 = rows[p] - y0 < band ? rows[p] : y0 + band };
                    n++;
                }
            }
        }
        if (!pass) {
            par->task = calloc(n ? n : 1, sizeof(*par->task));
            if (!par->task) return -ENOMEM;
            par->n_tasks = n;
            n = 0;
        }
    }
    return n ? 0 : -EINVAL;
}

static int start_parallel(FrameReader *r, unsigned n_workers, bool luma_only)
{
    Parallel *par = &r->par;
    par->base[0] = video_input_next_index(r->side[0].in);
    par->base[1] = video_input_next_index(r->side[1].in);
    par->slot = calloc(r->depth, sizeof(*par->slot));
    par->thread = calloc(n_workers, sizeof(*par->thread));
    if (!par->slot || !par->thread) return -ENOMEM;
    int err = plan_tasks(par, r->side[0].in, r->side[1].in, luma_only);
    if (err) return err;
    par->n_workers = n_workers;
    for (unsigned i = 0; i < n_workers; i++) {
        if (pthread_create(&par->thread[i], NULL, worker_main, r)) return -ENOMEM;
        par->started++;
    }
    pthread_mutex_lock(&r->lock);
    par->go = true;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
    return 0;
}

int frame_reader_start(FrameReader **out, VmafContext *vmaf, VideoInput *ref, VideoInput *dist,
                       unsigned max_frames, unsigned depth, unsigned workers, bool luma_only,
                       FILE *msg)
{
    FrameReader *r = calloc(1, sizeof(*r));
    if (!r) return -ENOMEM;
    r->vmaf = vmaf;
    r->msg = msg ? msg : stderr;
    r->max_frames = max_frames;
    r->depth = depth ? depth : 1;
    r->prepare_luma = luma_only;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->changed, NULL);
    VideoInput *in[2] = { ref, dist };
    for (int i = 0; i < 2; i++) {
        Side *s = &r->side[i];
        s->r = r;
        s->which = i;
        s->in = in[i];
        s->ring = calloc(r->depth, sizeof(*s->ring));
        if (!s->ring) {
            frame_reader_stop(r);
            return -ENOMEM;
        }
    }
    if (workers > 1 && video_input_can_read_at(ref) && video_input_can_read_at(dist)) {
        const int err = start_parallel(r, workers, luma_only);
        if (err) {
            frame_reader_stop(r);
            return err;
        }
        *out = r;
        return 0;
    }
    for (int i = 0; i < 2; i++) {
        if (pthread_create(&r->side[i].thread, NULL, reader_main, &r->side[i])) {
            frame_reader_stop(r);
            return -ENOMEM;
        }
        r->side[i].started = true;
    }
    *out = r;
    return 0;
}

void frame_reader_next(FrameReader *r, VmafPicture *ref, int *ref_status, VmafPicture *dist,
                       int *dist_status)
{
    const unsigned long long k = r->consumed;
    VmafPicture *pic[2] = { ref, dist };
    int *status[2] = { ref_status, dist_status };
    pthread_mutex_lock(&r->lock);
    if (r->par.n_workers) {
        const double t0 = reader_now_ms();
        FrameSlot *fs = &r->par.slot[k % r->depth];
        while (!fs->ready) pthread_cond_wait(&r->changed, &r->lock);
        r->stats.wait_ms += since(t0);
        for (int i = 0; i < 2; i++) {
            Entry *e = &r->side[i].ring[k % r->depth];
            *pic[i] = e->pic;
            *status[i] = e->status;
            memset(e, 0, sizeof(*e));
            /* a failure of both inputs' same cause (pinning: the device) is said once */
            if (*status[i] < 0 && !(i && *status[0] < 0 && !strcmp(fs->msg[0], fs->msg[1])))
                fprintf(r->msg, "%s\n", fs->msg[i]);
        }
        fs->ready = false;
        r->consumed = k + 1;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);
        return;
    }
    for (int i = 0; i < 2; i++) {
        Side *s = &r->side[i];
        while (s->produced <= k && !s->done) pthread_cond_wait(&r->changed, &r->lock);
        if (s->produced > k) {
            const Entry e = s->ring[k % r->depth];
            *pic[i] = e.pic;
            *status[i] = e.status;
            memset(&s->ring[k % r->depth], 0, sizeof(Entry));
        } else {
            *status[i] = 0; /* ended earlier */
        }
    }
    r->consumed = k + 1;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
}

void frame_reader_stats(FrameReader *r, FrameReaderStats *stats)
{
    pthread_mutex_lock(&r->lock);
    *stats = r->stats;
    stats->workers = r->par.n_workers;
    stats->depth = r->depth;
    stats->tasks = r->par.n_tasks;
    stats->luma_only = r->par.luma_only;
    pthread_mutex_unlock(&r->lock);
}

void frame_reader_stop(FrameReader *r)
{
    if (!r) return;
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
    for (int i = 0; i < 2; i++)
        if (r->side[i].started) pthread_join(r->side[i].thread, NULL);
    for (unsigned i = 0; i < r->par.started; i++) pthread_join(r->par.thread[i], NULL);
    free(r->par.thread);
    free(r->par.slot);
    free(r->par.task);
    /* Every picture still in a ring goes back to the pool, whatever its status: in the
     * parallel mode a frame whose tasks were cut short by the stop can hold a picture with
     * an error status (a task already failed; the side's last task, which releases it, never
     * ran). The threads are joined: nothing else touches the rings now. */
    for (int i = 0; i < 2; i++) {
        Side *s = &r->side[i];
        for (unsigned j = 0; s->ring && j < r->depth; j++)
            if (s->ring[j].pic.ref) vmaf_picture_unref(&s->ring[j].pic);
        free(s->ring);
    }
    pthread_cond_destroy(&r->changed);
    pthread_mutex_destroy(&r->lock);
    free(r);
}
