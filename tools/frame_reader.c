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

/* One input's picture of one frame. The parallel mode also keeps the frame's reading state
 * per input here: its tasks left, its first failing task and that task's message. */
typedef struct Entry {
    VmafPicture pic;
    int status;
    unsigned left;     /* tasks handed out or not yet, unfinished */
    unsigned err_task; /* the first failing task in read order (UINT_MAX: none) */
    char msg[512];     /* and that task's message */
} Entry;

typedef struct Side {
    FrameReader *r;
    unsigned which;       /* its input: 0 the reference, 1.. the distorted */
    VmafContext *pool;    /* the context whose pool its pictures come from */
    VideoInput *in;
    Entry *ring;          /* depth entries, frame k at k % depth */
    unsigned long long produced;
    bool done;            /* the thread stopped after its last entry */
    pthread_t thread;
    bool started;
    bool gone;            /* the caller got its last picture: 0 or an error was handed over */
    /* parallel mode */
    unsigned long long base;    /* file index of frame 0 (after skips) */
    unsigned long long fail_at; /* first frame known to have failed (ULLONG_MAX: none): later
                                 * frames are not read */
    bool read_next;             /* frame `next` of the workers: whether this input has it */
} Side;

/*
 * Parallel mode (every input a regular file read at an index): a frame is split into tasks,
 * a band of rows of one plane of one input each (~CHUNK_BYTES), and the workers take the
 * tasks of frame k in order, then those of k + 1, ..., at most `depth` frames ahead of the
 * caller. The first task of a frame waits until the worker that took it has fetched the
 * frame's pool pictures, one per input (frames fetch in order: frame k never waits for a
 * picture a later frame holds). The worker that finishes the last task of one input's
 * picture prepares (pins) that picture, so the inputs' are pinned in parallel; the frame is
 * ready once every input's is handed over. Errors are kept with the frame (per input, the
 * first in read order, as a reader in order would meet it) and printed when the caller
 * reaches that frame; frames of that input fetched after the failure are not read, and
 * those already under way are dropped when handed to the caller.
 */
#define CHUNK_BYTES ((size_t)1 << 20)

typedef struct Task {
    unsigned side, plane;
    unsigned y0, y1;
} Task;

typedef struct FrameSlot {
    bool ready;
    unsigned pending; /* inputs not handed over yet */
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
    FrameSlot *slot;               /* [depth]: frame k at k % depth */
    bool luma_only;                /* the tasks leave chroma unread */
} Parallel;

struct FrameReader {
    FILE *msg;                    /* where read errors are printed */
    unsigned n;                   /* inputs */
    unsigned max_frames, depth;
    bool prepare_luma;            /* every extractor reads luma only: prepare (pin) just that */
    Parallel par;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned long long turn;      /* fetch ticket of the in-order mode: n k + input */
    unsigned n_done;              /* in-order threads stopped */
    unsigned long long consumed;  /* frames handed to the caller */
    bool stop;
    Side *side;                   /* [n] */
    FrameReaderStats stats;       /* under lock */
};

static double reader_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double since(double t0)
{
    return reader_now_ms() - t0;
}

/* Tickets of a finished input are skipped. Call with the lock held. */
static void skip_finished_turns(FrameReader *r)
{
    while (r->n_done < r->n && r->side[r->turn % r->n].done) r->turn++;
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

/* In-order mode: one input read frame after frame, its pictures fetched in ticket order. */
static void *reader_main(void *arg)
{
    Side *s = arg;
    FrameReader *r = s->r;
    for (unsigned long long k = 0;; k++) {
        Entry e = { .status = 0 };
        const unsigned long long ticket = k * r->n + s->which;
        pthread_mutex_lock(&r->lock);
        while (!r->stop && (k - r->consumed >= r->depth || r->turn != ticket)) {
            skip_finished_turns(r);
            if (r->turn == ticket && k - r->consumed < r->depth) break;
            pthread_cond_wait(&r->changed, &r->lock);
        }
        const bool stop = r->stop;
        pthread_mutex_unlock(&r->lock);
        if (stop) break;

        if (!r->max_frames || k < r->max_frames) {
            e.status = vmaf_fetch_preallocated_picture(s->pool, &e.pic);
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
        s->ring[k % r->depth].pic = e.pic;
        s->ring[k % r->depth].status = e.status;
        s->produced = k + 1;
        if (e.status != 1) {
            s->done = true;
            r->n_done++;
        }
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);
        if (e.status != 1) break;
    }
    return NULL;
}

/* Input i of frame k failed (its entry holds the status and message): later frames of it
 * are not read. Lock held. */
static void side_failed(Side *s, unsigned long long k)
{
    if (k < s->fail_at) s->fail_at = k;
}

/* One input of the frame is handed over; the frame is ready once every input is. Lock held. */
static void side_handed_over(FrameReader *r, FrameSlot *fs)
{
    if (!--fs->pending) {
        fs->ready = true;
        pthread_cond_broadcast(&r->changed);
    }
}

/*
 * Frame k's first task (k = par->next): which inputs have the frame, their pool pictures
 * (fetched in input order, with par->fetching set: no other worker starts a frame meanwhile)
 * and their tasks counted; the inputs with nothing to read are handed over at once. Lock
 * held on entry and exit, released around the fetches. false: no input has anything to read
 * in frame k (the frame is ready).
 */
static bool start_frame(FrameReader *r, unsigned long long k, FrameSlot *fs)
{
    Parallel *par = &r->par;
    const bool want = !r->max_frames || k < r->max_frames;
    par->fetching = true;
    *fs = (FrameSlot){ .pending = r->n };
    for (unsigned i = 0; i < r->n; i++) {
        Side *s = &r->side[i];
        Entry *e = &s->ring[k % r->depth];
        e->pic = (VmafPicture){ 0 };
        e->status = 0;
        e->left = 0;
        e->err_task = UINT_MAX;
        e->msg[0] = '\0';
        unsigned long long frames = 0;
        video_input_frames_known(s->in, &frames);
        /* not read: status 0 (the input ended, max_frames, or an earlier frame failed) */
        s->read_next = want && k < s->fail_at && s->base + k < frames;
    }
    pthread_mutex_unlock(&r->lock);
    const double t0 = reader_now_ms();
    for (unsigned i = 0; i < r->n; i++) {
        Side *s = &r->side[i];
        if (!s->read_next) continue;
        Entry *e = &s->ring[k % r->depth];
        e->status = vmaf_fetch_preallocated_picture(s->pool, &e->pic);
        if (!e->status) {
            e->status = 1;
            continue;
        }
        snprintf(e->msg, sizeof(e->msg), "could not get a picture from the pool: %s",
                 strerror(-e->status));
        e->err_task = 0;
        s->read_next = false; /* no tasks: the error is its status */
    }
    pthread_mutex_lock(&r->lock);
    r->stats.fetch_ms += since(t0);
    par->fetching = false;
    pthread_cond_broadcast(&r->changed);
    for (unsigned t = 0; t < par->n_tasks; t++) {
        Side *s = &r->side[par->task[t].side];
        s->ring[k % r->depth].left += s->read_next;
    }
    /* an input with nothing to read (its status, 0 or an error, says why) is done now,
     * without releasing the lock: the frame's tasks are not handed out yet */
    bool any = false;
    for (unsigned i = 0; i < r->n; i++) {
        Side *s = &r->side[i];
        Entry *e = &s->ring[k % r->depth];
        if (e->left) {
            any = true;
            continue;
        }
        if (e->pic.ref) vmaf_picture_unref(&e->pic);
        if (e->status < 0) side_failed(s, k);
        side_handed_over(r, fs);
    }
    return any;
}

/* Input i of frame k is read: its picture is prepared (pinned) and handed over, by the
 * worker that finished its last task (the inputs' in parallel). Lock held on entry and
 * exit, released around the preparation. */
static void finish_side(FrameReader *r, unsigned long long k, FrameSlot *fs, unsigned i)
{
    Side *s = &r->side[i];
    Entry *e = &s->ring[k % r->depth];
    pthread_mutex_unlock(&r->lock);
    const double t0 = reader_now_ms();
    if (e->status != 1) {
        if (e->pic.ref) vmaf_picture_unref(&e->pic);
    } else if ((e->status = hand_over(r, &e->pic, e->msg, sizeof(e->msg))) != 1) {
        vmaf_picture_unref(&e->pic);
        e->err_task = 0;
    }
    pthread_mutex_lock(&r->lock);
    r->stats.prepare_ms += since(t0);
    if (e->status < 0) side_failed(s, k);
    side_handed_over(r, fs);
}

/* Whether frame `next`'s task t reads an input that has the frame. Lock held. */
static bool task_live(const FrameReader *r, unsigned t)
{
    return r->side[r->par.task[t].side].read_next;
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
        if (!par->next_task && !start_frame(r, k, fs)) { /* ended, failed or no pictures */
            par->next++;
            continue;
        }
        /* the next task of frame k that reads an input having it */
        while (!task_live(r, par->next_task)) par->next_task++;
        const unsigned t = par->next_task++;
        while (par->next_task < par->n_tasks && !task_live(r, par->next_task)) par->next_task++;
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
        const int got = video_input_read_rows_at(side->in, side->base + k, &e->pic, task->plane,
                                                 task->y0, task->y1, msg, sizeof(msg));
        pthread_mutex_lock(&r->lock);
        r->stats.read_ms += since(t0);
        if (got != 1 && t < e->err_task) { /* 0: the file shrank since open */
            e->err_task = t;
            if (got < 0) snprintf(e->msg, sizeof(e->msg), "%s", msg);
            else snprintf(e->msg, sizeof(e->msg), "%s: truncated frame %llu",
                          video_input_path(side->in), side->base + k);
            e->status = got < 0 ? got : -EIO;
            side_failed(side, k);
        }
        if (!--e->left) finish_side(r, k, fs, task->side);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* The tasks of one frame: bands of ~CHUNK_BYTES of each plane read (luma only when
 * luma_only and every input is 8-bit: no chroma sample can be out of range there), input by
 * input (the reference's planes first). */
static int plan_tasks(FrameReader *r, bool luma_only)
{
    Parallel *par = &r->par;
    unsigned rows[3];
    size_t row_bytes[3];
    bool all_8bit = true;
    for (unsigned i = 0; i < r->n; i++) {
        VideoInfo info;
        video_input_info(r->side[i].in, &info);
        all_8bit = all_8bit && info.bpc == 8;
    }
    par->luma_only = luma_only && all_8bit && video_input_plane_rows(r->side[0].in, rows,
                                                                     row_bytes) > 1;
    unsigned n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned side = 0; side < r->n; side++) {
            unsigned planes = video_input_plane_rows(r->side[side].in, rows, row_bytes);
            if (par->luma_only) planes = 1;
            for (unsigned p = 0; p < planes; p++) {
                if (!rows[p]) continue;
                unsigned band = (unsigned)(CHUNK_BYTES / row_bytes[p]);
                if (!band) band = 1;
                for (unsigned y0 = 0; y0 < rows[p]; y0 += band) {
                    if (pass)
                        par->task[n] = (Task){ .side = side, .plane = p, .y0 = y0,
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
    for (unsigned i = 0; i < r->n; i++) r->side[i].base = video_input_next_index(r->side[i].in);
    par->slot = calloc(r->depth, sizeof(*par->slot));
    par->thread = calloc(n_workers, sizeof(*par->thread));
    if (!par->slot || !par->thread) return -ENOMEM;
    int err = plan_tasks(r, luma_only);
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

int frame_reader_start_multi(FrameReader **out, VmafContext *const *pool_ctx,
                             VideoInput *const *in, unsigned n, unsigned max_frames,
                             unsigned depth, unsigned workers, bool luma_only, FILE *msg)
{
    if (!out || !pool_ctx || !in || n < 2) return -EINVAL;
    for (unsigned i = 0; i < n; i++)
        if (!pool_ctx[i] || !in[i]) return -EINVAL;
    FrameReader *r = calloc(1, sizeof(*r));
    if (!r) return -ENOMEM;
    r->msg = msg ? msg : stderr;
    r->max_frames = max_frames;
    r->depth = depth ? depth : 1;
    r->prepare_luma = luma_only;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->changed, NULL);
    r->side = calloc(n, sizeof(*r->side));
    if (!r->side) {
        frame_reader_stop(r);
        return -ENOMEM;
    }
    r->n = n;
    bool can_read_at = true;
    for (unsigned i = 0; i < n; i++) {
        Side *s = &r->side[i];
        s->r = r;
        s->which = i;
        s->pool = pool_ctx[i];
        s->in = in[i];
        s->fail_at = ULLONG_MAX;
        s->ring = calloc(r->depth, sizeof(*s->ring));
        if (!s->ring) {
            frame_reader_stop(r);
            return -ENOMEM;
        }
        can_read_at = can_read_at && video_input_can_read_at(in[i]);
    }
    if (workers > 1 && can_read_at) {
        const int err = start_parallel(r, workers, luma_only);
        if (err) {
            frame_reader_stop(r);
            return err;
        }
        *out = r;
        return 0;
    }
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&r->side[i].thread, NULL, reader_main, &r->side[i])) {
            frame_reader_stop(r);
            return -ENOMEM;
        }
        r->side[i].started = true;
    }
    *out = r;
    return 0;
}

int frame_reader_start(FrameReader **out, VmafContext *vmaf, VideoInput *ref, VideoInput *dist,
                       unsigned max_frames, unsigned depth, unsigned workers, bool luma_only,
                       FILE *msg)
{
    VmafContext *const pool_ctx[2] = { vmaf, vmaf };
    VideoInput *const in[2] = { ref, dist };
    return frame_reader_start_multi(out, pool_ctx, in, 2, max_frames, depth, workers, luma_only,
                                    msg);
}

unsigned frame_reader_pool_pictures(VmafContext *const *pool_ctx, unsigned n, unsigned depth,
                                    const VmafContext *ctx)
{
    unsigned inputs = 0;
    for (unsigned i = 0; i < n; i++) inputs += pool_ctx[i] == ctx;
    return inputs * (depth ? depth : 1);
}

/* Input i's picture of the frame the caller takes (lock held): an input that gave 0 or an
 * error before gives 0 (a picture read ahead is released, an error of it is not printed);
 * an error is printed unless an earlier input of this frame printed the same message (one
 * cause, such as pinning on the device). */
static void deliver(FrameReader *r, unsigned i, Entry *e, VmafPicture *pics, int *status,
                    bool print)
{
    Side *s = &r->side[i];
    pics[i] = e->pic;
    status[i] = e->status;
    e->pic = (VmafPicture){ 0 };
    e->status = 0;
    if (s->gone) {
        if (status[i] == 1) vmaf_picture_unref(&pics[i]);
        pics[i] = (VmafPicture){ 0 };
        status[i] = 0;
        return;
    }
    if (status[i] != 1) s->gone = true;
    if (status[i] >= 0 || !print) return;
    const unsigned slot = (unsigned)(r->consumed % r->depth);
    for (unsigned j = 0; j < i; j++)
        if (status[j] < 0 && !strcmp(r->side[j].ring[slot].msg, e->msg)) return;
    fprintf(r->msg, "%s\n", e->msg);
}

void frame_reader_next_multi(FrameReader *r, VmafPicture *pics, int *status)
{
    const unsigned long long k = r->consumed;
    pthread_mutex_lock(&r->lock);
    if (r->par.n_workers) {
        const double t0 = reader_now_ms();
        FrameSlot *fs = &r->par.slot[k % r->depth];
        while (!fs->ready) pthread_cond_wait(&r->changed, &r->lock);
        r->stats.wait_ms += since(t0);
        for (unsigned i = 0; i < r->n; i++)
            deliver(r, i, &r->side[i].ring[k % r->depth], pics, status, true);
        fs->ready = false;
    } else {
        for (unsigned i = 0; i < r->n; i++) {
            Side *s = &r->side[i];
            while (s->produced <= k && !s->done) pthread_cond_wait(&r->changed, &r->lock);
            if (s->produced > k) {
                deliver(r, i, &s->ring[k % r->depth], pics, status, false);
            } else { /* ended earlier */
                pics[i] = (VmafPicture){ 0 };
                status[i] = 0;
            }
        }
    }
    r->consumed = k + 1;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
}

void frame_reader_next(FrameReader *r, VmafPicture *ref, int *ref_status, VmafPicture *dist,
                       int *dist_status)
{
    VmafPicture pics[2];
    int status[2];
    frame_reader_next_multi(r, pics, status);
    *ref = pics[0];
    *ref_status = status[0];
    *dist = pics[1];
    *dist_status = status[1];
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
    for (unsigned i = 0; i < r->n; i++)
        if (r->side[i].started) pthread_join(r->side[i].thread, NULL);
    for (unsigned i = 0; i < r->par.started; i++) pthread_join(r->par.thread[i], NULL);
    free(r->par.thread);
    free(r->par.slot);
    free(r->par.task);
    /* Every picture still in a ring goes back to its pool, whatever its status: in the
     * parallel mode a frame whose tasks were cut short by the stop can hold a picture with
     * an error status (a task already failed; the input's last task, which releases it,
     * never ran). The threads are joined: nothing else touches the rings now. */
    for (unsigned i = 0; i < r->n; i++) {
        Side *s = &r->side[i];
        for (unsigned j = 0; s->ring && j < r->depth; j++)
            if (s->ring[j].pic.ref) vmaf_picture_unref(&s->ring[j].pic);
        free(s->ring);
    }
    free(r->side);
    pthread_cond_destroy(&r->changed);
    pthread_mutex_destroy(&r->lock);
    free(r);
}
