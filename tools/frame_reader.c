#include <errno.h>
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

/* Parallel mode (both inputs raw regular files): workers take frame indices in order, fetch
 * that frame's two pool pictures in frame order (fetch_turn), then read both with pread
 * concurrently with the other workers; the caller takes frames in order from the rings. */
typedef struct Parallel {
    unsigned n_workers;
    pthread_t *thread;
    unsigned started;
    unsigned long long next;       /* next frame index a worker takes */
    unsigned long long fetch_turn; /* frame whose pictures are fetched next */
    unsigned long long base[2];    /* file index of frame 0 of each input (after skips) */
    bool *ready;                   /* [depth]: frame k % depth is in both rings */
} Parallel;

struct FrameReader {
    VmafContext *vmaf;
    FILE *msg;                    /* where read errors are printed */
    unsigned max_frames, depth;
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
            if (e.status != 1) vmaf_picture_unref(&e.pic);
            /* the reader checked every sample while the rows were in cache */
            else vmaf_picture_mark_range_checked(&e.pic);
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

static int read_side_at(Side *s, unsigned long long k, Entry *e)
{
    char msg[512];
    e->status = video_input_read_at(s->in, s->r->par.base[s->which] + k, &e->pic, msg, sizeof(msg));
    if (e->status < 0) fprintf(s->r->msg, "%s\n", msg);
    if (e->status != 1) vmaf_picture_unref(&e->pic);
    return e->status;
}

static void *worker_main(void *arg)
{
    FrameReader *r = arg;
    Parallel *par = &r->par;
    for (;;) {
        pthread_mutex_lock(&r->lock);
        while (!r->stop && par->next - r->consumed >= r->depth)
            pthread_cond_wait(&r->changed, &r->lock);
        if (r->stop) {
            pthread_mutex_unlock(&r->lock);
            break;
        }
        const unsigned long long k = par->next++;
        /* pictures in frame order: frame k never waits for a picture a later frame holds */
        while (!r->stop && par->fetch_turn != k) pthread_cond_wait(&r->changed, &r->lock);
        const bool stop = r->stop;
        pthread_mutex_unlock(&r->lock);
        if (stop) break;

        Entry e[2] = { { .status = 0 }, { .status = 0 } };
        const bool want = !r->max_frames || k < r->max_frames;
        const double t0 = reader_now_ms();
        for (int i = 0; want && i < 2; i++) {
            e[i].status = vmaf_fetch_preallocated_picture(r->vmaf, &e[i].pic);
            if (e[i].status) {
                fprintf(r->msg, "could not get a picture from the pool: %s\n",
                        strerror(-e[i].status));
                if (i) vmaf_picture_unref(&e[0].pic);
                e[0].status = e[1].status;
                break;
            }
            e[i].status = 1;
        }
        const double t1 = reader_now_ms();
        pthread_mutex_lock(&r->lock);
        par->fetch_turn++;
        r->stats.fetch_ms += t1 - t0;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);

        if (want && e[0].status == 1) {
            read_side_at(&r->side[0], k, &e[0]);
            read_side_at(&r->side[1], k, &e[1]);
        }
        const double t2 = reader_now_ms();
        pthread_mutex_lock(&r->lock);
        r->stats.read_ms += t2 - t1;
        r->side[0].ring[k % r->depth] = e[0];
        r->side[1].ring[k % r->depth] = e[1];
        par->ready[k % r->depth] = true;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);
    }
    return NULL;
}

static int start_parallel(FrameReader *r, unsigned n_workers)
{
    Parallel *par = &r->par;
    par->base[0] = video_input_next_index(r->side[0].in);
    par->base[1] = video_input_next_index(r->side[1].in);
    par->ready = calloc(r->depth, sizeof(*par->ready));
    par->thread = calloc(n_workers, sizeof(*par->thread));
    if (!par->ready || !par->thread) return -ENOMEM;
    par->n_workers = n_workers;
    for (unsigned i = 0; i < n_workers; i++) {
        if (pthread_create(&par->thread[i], NULL, worker_main, r)) return -ENOMEM;
        par->started++;
    }
    return 0;
}

int frame_reader_start(FrameReader **out, VmafContext *vmaf, VideoInput *ref, VideoInput *dist,
                       unsigned max_frames, unsigned depth, unsigned workers, FILE *msg)
{
    FrameReader *r = calloc(1, sizeof(*r));
    if (!r) return -ENOMEM;
    r->vmaf = vmaf;
    r->msg = msg ? msg : stderr;
    r->max_frames = max_frames;
    r->depth = depth ? depth : 1;
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
        const int err = start_parallel(r, workers);
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
        while (!r->par.ready[k % r->depth]) pthread_cond_wait(&r->changed, &r->lock);
        r->stats.wait_ms += reader_now_ms() - t0;
        for (int i = 0; i < 2; i++) {
            Entry *e = &r->side[i].ring[k % r->depth];
            *pic[i] = e->pic;
            *status[i] = e->status;
            memset(e, 0, sizeof(*e));
        }
        r->par.ready[k % r->depth] = false;
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
    free(r->par.ready);
    for (int i = 0; i < 2; i++) {
        Side *s = &r->side[i];
        for (unsigned j = 0; s->ring && j < r->depth; j++)
            if (s->ring[j].status == 1 && s->ring[j].pic.ref) vmaf_picture_unref(&s->ring[j].pic);
        free(s->ring);
    }
    pthread_cond_destroy(&r->changed);
    pthread_mutex_destroy(&r->lock);
    free(r);
}
