/*
 * The CLI's frame reader (tools/frame_reader.c) in its parallel mode, where workers share each
 * frame in bands of rows, against in-order video_input_read: every frame of raw and Y4M files
 * (odd sizes, 8 and 10 bit, 4:2:0 / 4:2:2 / 4:4:4 / 4:0:0, frames larger than one band, after
 * skips), for 1..9 workers and depths 1..5, with max_frames; luma_only leaves the chroma of
 * 8-bit inputs untouched (and reads it at 10 bit); inputs of different lengths end on the
 * shorter one; an out-of-range sample in both inputs of one frame gives both inputs' errors
 * (the first sample in read order of each), printed once when that frame is reached, with
 * the frames before it delivered intact; a prepare hook (the pinned pool's registration)
 * runs once per buffer, after its first fill. N inputs (3 and 5: a reference and the rungs
 * of a ladder, each rung its own context and pool), in both modes: each input's pictures
 * equal its file's frames and come from its context's pool, sized by
 * frame_reader_pool_pictures; an input that ends, is cut short, has a sample out of range or
 * whose pool fails gives 0 from then on while the others go on to their own end, each error
 * printed once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "frame_reader.h"
#include "picture.h"
#include "picture_pool.h"
#include "video_input.h"

#include "test_util.h"

#define EXPECT(c) CHECK(c, "(the case follows)")

typedef struct Geo {
    unsigned w, h, bpc;
    enum VmafPixelFormat fmt;
} Geo;

static const char *fmt_tag(const Geo *g)
{
    switch (g->fmt) {
    case VMAF_PIX_FMT_YUV422P: return g->bpc == 8 ? "422" : "422p10";
    case VMAF_PIX_FMT_YUV444P: return g->bpc == 8 ? "444" : "444p10";
    case VMAF_PIX_FMT_YUV400P: return g->bpc == 8 ? "mono" : "mono10";
    default: return g->bpc == 8 ? "420jpeg" : "420p10";
    }
}

/* Samples of one file frame (ceil-sized chroma) */
static size_t frame_samples(const Geo *g)
{
    const unsigned sx = g->fmt == VMAF_PIX_FMT_YUV444P ? 0 : 1;
    const unsigned sy = g->fmt == VMAF_PIX_FMT_YUV420P ? 1 : 0;
    const size_t cw = (g->w + sx) >> sx, ch = (g->h + sy) >> sy;
    return (size_t)g->w * g->h + (g->fmt == VMAF_PIX_FMT_YUV400P ? 0 : 2 * cw * ch);
}

/* n frames of a per-file, per-frame pattern; bad >= 0: that sample of frame bad_frame is
 * (1 << bpc) (out of range, 10 bit only) */
static void write_file_params(const char *path, const Geo *g, unsigned n, int y4m, unsigned seed,
                              long bad_frame, size_t bad, bool frame_params)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    if (y4m) fprintf(f, "YUV4MPEG2 W%u H%u F25:1 C%s\n", g->w, g->h, fmt_tag(g));
    const size_t samples = frame_samples(g);
    for (unsigned k = 0; k < n; k++) {
        if (y4m) fputs(frame_params ? "FRAME Ip\n" : "FRAME\n", f);
        for (size_t i = 0; i < samples; i++) {
            unsigned v = (unsigned)((i * 7 + k * 131 + seed * 29 + (i >> 9)) % (1u << g->bpc));
            if ((long)k == bad_frame && i == bad) v = 1u << g->bpc;
            if (g->bpc == 8) fputc((int)v, f);
            else {
                fputc((int)(v & 0xff), f);
                fputc((int)(v >> 8), f);
            }
        }
    }
    fclose(f);
}

static void write_file(const char *path, const Geo *g, unsigned n, int y4m, unsigned seed,
                       long bad_frame, size_t bad)
{
    write_file_params(path, g, n, y4m, seed, bad_frame, bad, false);
}

static VideoInput *open_input(const char *path, const Geo *g, int y4m)
{
    char err[512];
    VideoInput *in = NULL;
    const VideoInfo raw = { .w = g->w, .h = g->h, .bpc = g->bpc, .pix_fmt = g->fmt };
    if (video_input_open(&in, path, y4m ? NULL : &raw, err, sizeof(err))) {
        fprintf(stderr, "open %s: %s\n", path, err);
        exit(2);
    }
    return in;
}

/* Every frame of path read in order into pictures (the expected ones) */
static unsigned read_all(const char *path, const Geo *g, int y4m, VmafPicture *out, unsigned max)
{
    VideoInput *in = open_input(path, g, y4m);
    unsigned n = 0;
    char err[512];
    while (n < max) {
        if (vmaf_picture_alloc(&out[n], g->fmt, g->bpc, g->w, g->h)) exit(2);
        const int r = video_input_read(in, &out[n], err, sizeof(err));
        if (r != 1) {
            vmaf_picture_unref(&out[n]);
            break;
        }
        n++;
    }
    video_input_close(in);
    return n;
}

static int same_plane(const VmafPicture *a, const VmafPicture *b, unsigned p)
{
    const size_t row = (size_t)a->w[p] * (a->bpc > 8 ? 2 : 1);
    for (unsigned y = 0; y < a->h[p]; y++)
        if (memcmp((const uint8_t *)a->data[p] + (ptrdiff_t)y * a->stride[p],
                   (const uint8_t *)b->data[p] + (ptrdiff_t)y * b->stride[p], row))
            return 0;
    return 1;
}

static int zero_plane(const VmafPicture *a, unsigned p)
{
    const size_t row = (size_t)a->w[p] * (a->bpc > 8 ? 2 : 1);
    for (unsigned y = 0; y < a->h[p]; y++)
        for (size_t x = 0; x < row; x++)
            if (((const uint8_t *)a->data[p])[(ptrdiff_t)y * a->stride[p] + x]) return 0;
    return 1;
}

/* A prepare hook standing in for the pinned pool's registration: counts per buffer (the
 * two inputs' pictures of a frame are prepared by two workers at once: a lock) */
typedef struct Prep {
    pthread_mutex_t lock;
    void *buf[64];
    unsigned n[64], cnt, calls;
} Prep;

static int count_prepare(void *cookie, void *buf, size_t size)
{
    (void)size;
    Prep *p = cookie;
    pthread_mutex_lock(&p->lock);
    p->calls++;
    unsigned i = 0;
    while (i < p->cnt && p->buf[i] != buf) i++;
    if (i == p->cnt && p->cnt < 64) p->buf[p->cnt++] = buf;
    if (i < 64) p->n[i]++;
    pthread_mutex_unlock(&p->lock);
    return 0;
}

static int map_alloc(void *cookie, size_t size, void **buf)
{
    (void)cookie;
    return vmaf_picture_map(size, buf);
}

static void map_free(void *cookie, void *buf, size_t size)
{
    (void)cookie;
    vmaf_picture_unmap(buf, size);
}

typedef struct Case {
    Geo g;
    int y4m;
    unsigned n_ref, n_dist, skip, max_frames, workers, depth;
    bool luma_only;
} Case;

static void run_case(const char *dir, const Case *c)
{
    char ref_path[512], dist_path[512];
    snprintf(ref_path, sizeof(ref_path), "%s/fr_ref.%s", dir, c->y4m ? "y4m" : "yuv");
    snprintf(dist_path, sizeof(dist_path), "%s/fr_dist.%s", dir, c->y4m ? "y4m" : "yuv");
    write_file(ref_path, &c->g, c->n_ref, c->y4m, 1, -1, 0);
    write_file(dist_path, &c->g, c->n_dist, c->y4m, 2, -1, 0);
    enum { MAXF = 16 };
    VmafPicture want[2][MAXF];
    const unsigned have[2] = { read_all(ref_path, &c->g, c->y4m, want[0], MAXF),
                               read_all(dist_path, &c->g, c->y4m, want[1], MAXF) };

    VmafContext *vmaf;
    EXPECT(!vmaf_init(&vmaf, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_NONE }));
    Prep prep = { .lock = PTHREAD_MUTEX_INITIALIZER, .cnt = 0 };
    const VmafPicturePoolConfig pc = {
        .pic_cnt = 2 * c->depth + 2, .pix_fmt = c->g.fmt, .bpc = c->g.bpc, .w = c->g.w,
        .h = c->g.h, .alloc = map_alloc, .free = map_free, .alloc_zeroes = true,
        .prepare = count_prepare, .cookie = &prep, .memory = VMAF_PICTURE_MEMORY_HOST,
    };
    EXPECT(!vmaf_picture_pool_init(&vmaf->pic_pool, pc));
    VideoInput *ref = open_input(ref_path, &c->g, c->y4m);
    VideoInput *dist = open_input(dist_path, &c->g, c->y4m);
    char err[512];
    EXPECT(video_input_skip(ref, c->skip, err, sizeof(err)) == (int)c->skip);
    EXPECT(video_input_skip(dist, c->skip, err, sizeof(err)) == (int)c->skip);
    FrameReader *r;
    EXPECT(!frame_reader_start(&r, vmaf, ref, dist, c->max_frames, c->depth, c->workers,
                               c->luma_only, stderr));
    const bool skip_chroma = c->luma_only && c->g.bpc == 8 && c->g.fmt != VMAF_PIX_FMT_YUV400P;
    unsigned k = 0;
    for (;; k++) {
        VmafPicture pic[2];
        int st[2];
        frame_reader_next(r, &pic[0], &st[0], &pic[1], &st[1]);
        for (int i = 0; i < 2; i++) {
            const unsigned idx = c->skip + k;
            const bool expected = idx < have[i] && (!c->max_frames || k < c->max_frames);
            EXPECT(st[i] == (expected ? 1 : 0));
            if (st[i] != 1) continue;
            EXPECT(same_plane(&pic[i], &want[i][idx], 0));
            for (unsigned p = 1; p < 3 && pic[i].data[p]; p++)
                EXPECT(skip_chroma ? zero_plane(&pic[i], p) : same_plane(&pic[i], &want[i][idx], p));
            EXPECT(vmaf_picture_range_checked(&pic[i]));
            vmaf_picture_unref(&pic[i]);
        }
        if (st[0] != 1 || st[1] != 1) break;
    }
    FrameReaderStats stats;
    frame_reader_stats(r, &stats);
    EXPECT(stats.workers == c->workers && stats.luma_only == skip_chroma);
    frame_reader_stop(r);
    unsigned n_min = have[0] < have[1] ? have[0] : have[1];
    n_min = n_min > c->skip ? n_min - c->skip : 0;
    if (c->max_frames && c->max_frames < n_min) n_min = c->max_frames;
    EXPECT(k == n_min);
    for (unsigned i = 0; i < prep.cnt; i++) EXPECT(prep.n[i] == 1); /* once per buffer */
    EXPECT(prep.cnt >= (k ? 2u : 0u) && prep.cnt <= pc.pic_cnt);
    for (int i = 0; i < 2; i++)
        for (unsigned j = 0; j < have[i]; j++) vmaf_picture_unref(&want[i][j]);
    video_input_close(ref);
    video_input_close(dist);
    vmaf_close(vmaf);
    if (failures)
        fprintf(stderr, "  in case %ux%u %u-bit fmt %d %s, %u/%u frames, skip %u, max %u, "
                "%u workers, depth %u, luma_only %d\n", c->g.w, c->g.h, c->g.bpc, c->g.fmt,
                c->y4m ? "y4m" : "raw", c->n_ref, c->n_dist, c->skip, c->max_frames,
                c->workers, c->depth, c->luma_only);
}

/* Both inputs carry an out-of-range sample in frame 2: the reference in its V plane, the
 * distorted in two places of its Y plane (rows in different bands: the first is named). */
static void run_errors(const char *dir, unsigned workers)
{
    const Geo g = { 700, 1600, 10, VMAF_PIX_FMT_YUV420P }; /* Y: 1400 B rows, 1.1 MB: 2 bands */
    char ref_path[512], dist_path[512], msg_path[512];
    snprintf(ref_path, sizeof(ref_path), "%s/fe_ref.yuv", dir);
    snprintf(dist_path, sizeof(dist_path), "%s/fe_dist.yuv", dir);
    snprintf(msg_path, sizeof(msg_path), "%s/fe_msg.txt", dir);
    const size_t luma = (size_t)g.w * g.h, chroma = (size_t)350 * 800;
    write_file(ref_path, &g, 4, 0, 1, 2, luma + chroma + 5 * 350 + 7); /* V, x=7, y=5 */
    /* the distorted: two bad samples in frame 2 (the later band's written first) */
    write_file(dist_path, &g, 4, 0, 2, 2, (size_t)1500 * g.w + 3);
    FILE *f = fopen(dist_path, "r+b");
    const long at = (long)(2 * frame_samples(&g) + (size_t)20 * g.w + 9) * 2;
    fseek(f, at, SEEK_SET);
    fputc(0, f);
    fputc(4, f); /* 1024 */
    fclose(f);

    VmafContext *vmaf;
    EXPECT(!vmaf_init(&vmaf, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_NONE }));
    EXPECT(!vmaf_preallocate_pictures(vmaf, (VmafPictureConfiguration){
        .pic_params = { .w = g.w, .h = g.h, .bpc = g.bpc, .pix_fmt = g.fmt }, .pic_cnt = 10 }));
    VideoInput *ref = open_input(ref_path, &g, 0), *dist = open_input(dist_path, &g, 0);
    FILE *msg = fopen(msg_path, "w+");
    FrameReader *r;
    EXPECT(!frame_reader_start(&r, vmaf, ref, dist, 0, 3, workers, false, msg));
    int st[2];
    for (unsigned k = 0; k < 3; k++) {
        VmafPicture pic[2];
        frame_reader_next(r, &pic[0], &st[0], &pic[1], &st[1]);
        if (k < 2) {
            EXPECT(st[0] == 1 && st[1] == 1);
            fflush(msg);
            EXPECT(ftell(msg) == 0); /* nothing printed before the failing frame */
            for (int i = 0; i < 2; i++)
                if (st[i] == 1) vmaf_picture_unref(&pic[i]);
        }
    }
    EXPECT(st[0] == -EINVAL && st[1] == -EINVAL);
    frame_reader_stop(r);
    char text[2048] = "";
    rewind(msg);
    const size_t got = fread(text, 1, sizeof(text) - 1, msg);
    text[got] = '\0';
    fclose(msg);
    EXPECT(strstr(text, "fe_ref.yuv: frame 2, plane 2 (V): sample 1024 at x=7, y=5 is above") != NULL);
    EXPECT(strstr(text, "fe_dist.yuv: frame 2, plane 0 (Y): sample 1024 at x=9, y=20 is above") != NULL);
    EXPECT(strstr(text, "fe_ref.yuv") < strstr(text, "fe_dist.yuv")); /* read order */
    EXPECT(!strstr(text, "y=1500"));
    unsigned lines = 0;
    for (const char *p = text; *p; p++) lines += *p == '\n';
    EXPECT(lines == 2);
    if (failures) fprintf(stderr, "  in the error case, %u workers; printed:\n%s", workers, text);
    video_input_close(ref);
    video_input_close(dist);
    vmaf_close(vmaf);
}

/* ---- N inputs (frame_reader_start_multi): a reference and K distorted, rung k's context
 * serving the distorted k + 1, rung 0's also the reference ---- */

/* A context's pool: the buffers it allocated (a picture of input i must be one of its
 * context's) and how often each was prepared; fail_alloc: its allocations fail. */
typedef struct Pool {
    pthread_mutex_t lock;
    void *buf[64];
    unsigned n_buf, prepared[64];
    bool fail_alloc;
} Pool;

static int pool_alloc(void *cookie, size_t size, void **buf)
{
    Pool *p = cookie;
    pthread_mutex_lock(&p->lock);
    const bool fail = p->fail_alloc;
    pthread_mutex_unlock(&p->lock);
    if (fail) return -ENOMEM;
    const int err = vmaf_picture_map(size, buf);
    if (err) return err;
    pthread_mutex_lock(&p->lock);
    if (p->n_buf < 64) p->buf[p->n_buf++] = *buf;
    pthread_mutex_unlock(&p->lock);
    return 0;
}

static int pool_prepare(void *cookie, void *buf, size_t size)
{
    (void)size;
    Pool *p = cookie;
    pthread_mutex_lock(&p->lock);
    for (unsigned i = 0; i < p->n_buf; i++)
        if (p->buf[i] == buf) p->prepared[i]++;
    pthread_mutex_unlock(&p->lock);
    return 0;
}

/* How often pic's buffer was prepared, or -1 when p did not allocate it */
static int pool_prepared(Pool *p, const VmafPicture *pic)
{
    const void *buf = ((const VmafPicturePrivate *)pic->priv)->buf;
    pthread_mutex_lock(&p->lock);
    int found = -1;
    for (unsigned i = 0; i < p->n_buf; i++)
        if (p->buf[i] == buf) found = (int)p->prepared[i];
    pthread_mutex_unlock(&p->lock);
    return found;
}

enum { ERR_NONE, ERR_RANGE, ERR_TRUNC, ERR_POOL, MAX_INPUTS = 5 };

/* One input: frames in its file (after skip: frames - skip), err at frame err_frame (counted
 * after skip): ERR_RANGE an out-of-range luma sample (10 bit), ERR_TRUNC the file cut in
 * the middle of that frame once opened, ERR_POOL its context's allocations fail (frame 0, an
 * input with a context of its own). params: Y4M FRAME lines with a parameter (not readable
 * at an index: the in-order mode whatever the workers). */
typedef struct Input {
    unsigned frames;
    int err;
    unsigned err_frame;
    bool params;
} Input;

typedef struct MultiCase {
    Geo g;
    int y4m;
    unsigned n, skip, max_frames, workers, depth;
    bool luma_only;
    Input in[MAX_INPUTS];
} MultiCase;

/* What frame_reader_next_multi must give input i at frame k: 1, 0 or -1 (an error) */
static int expected_status(const MultiCase *c, unsigned i, unsigned k)
{
    const Input *in = &c->in[i];
    if (c->max_frames && k >= c->max_frames) return 0;
    if (in->err && k >= in->err_frame) return k == in->err_frame ? -1 : 0;
    return c->skip + k < in->frames ? 1 : 0;
}

/* Cut input p's file in the middle of its frame err_frame (after the skip) */
static void truncate_in_frame(const char *path, const MultiCase *c, const Input *p)
{
    char head[128];
    const size_t header = c->y4m ? (size_t)snprintf(head, sizeof(head),
                                                    "YUV4MPEG2 W%u H%u F25:1 C%s\n", c->g.w,
                                                    c->g.h, fmt_tag(&c->g))
                                 : 0;
    const size_t per_frame = frame_samples(&c->g) * (c->g.bpc > 8 ? 2 : 1) +
                             (c->y4m ? (p->params ? 9 : 6) : 0); /* "FRAME Ip\n", "FRAME\n" */
    EXPECT(!truncate(path, (off_t)(header + (c->skip + p->err_frame) * per_frame +
                                   per_frame / 2)));
}

static void run_multi(const char *dir, const MultiCase *c)
{
    const unsigned n = c->n;
    const char *ext = c->y4m ? "y4m" : "yuv";
    char path[MAX_INPUTS][512], msg_path[512];
    VideoInput *in[MAX_INPUTS], *check[MAX_INPUTS]; /* check: read in order, the expectation */
    VmafPicture want[MAX_INPUTS];
    bool parallel = c->workers > 1, all_8bit = c->g.bpc == 8;
    unsigned errors = 0, frames_out = 0; /* errors the caller meets; frames until all ended */
    for (unsigned i = 0; i < n; i++) {
        const Input *p = &c->in[i];
        snprintf(path[i], sizeof(path[i]), "%s/fm_%u.%s", dir, i, ext);
        const long bad_frame = p->err == ERR_RANGE ? (long)(c->skip + p->err_frame) : -1;
        write_file_params(path[i], &c->g, p->frames, c->y4m, 3 + i, bad_frame,
                          (size_t)(c->g.h / 2) * c->g.w + 3, p->params);
        /* ERR_TRUNC: the file cut in the middle of the frame: before it is opened where the
         * input is read in order anyway (a truncated last frame), else once opened (a raw
         * file's size must be whole frames, and a Y4M file read at an index must be made of
         * whole frames: the reads meet a file that shrank) */
        if (p->err == ERR_TRUNC && p->params) truncate_in_frame(path[i], c, p);
        in[i] = open_input(path[i], &c->g, c->y4m);
        check[i] = open_input(path[i], &c->g, c->y4m);
        if (p->err == ERR_TRUNC && !p->params) truncate_in_frame(path[i], c, p);
        parallel = parallel && !p->params;
        char err[512];
        EXPECT(video_input_skip(in[i], c->skip, err, sizeof(err)) == (int)c->skip);
        EXPECT(video_input_skip(check[i], c->skip, err, sizeof(err)) == (int)c->skip);
        if (vmaf_picture_alloc(&want[i], c->g.fmt, c->g.bpc, c->g.w, c->g.h)) exit(2);
        unsigned last = 0; /* frames input i delivers or fails at */
        for (unsigned k = 0; k < 64; k++)
            if (expected_status(c, i, k)) last = k + 1;
        if (last > frames_out) frames_out = last;
        errors += last && expected_status(c, i, last - 1) < 0;
    }
    const bool skip_chroma = parallel && c->luma_only && all_8bit &&
                             c->g.fmt != VMAF_PIX_FMT_YUV400P;

    /* rung k's context: rung 0's serves inputs 0 and 1, rung k's input k + 1 */
    VmafContext *ctx[MAX_INPUTS - 1] = { NULL }, *pool_ctx[MAX_INPUTS] = { NULL };
    Pool pool[MAX_INPUTS - 1];
    VmafPicture held[MAX_INPUTS - 1]; /* ERR_POOL: the buffer made at init, kept out */
    bool holding[MAX_INPUTS - 1] = { false };
    for (unsigned r = 0; r + 1 < n; r++) {
        EXPECT(!vmaf_init(&ctx[r], (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_NONE }));
        pool_ctx[r + 1] = ctx[r];
    }
    pool_ctx[0] = ctx[0];
    for (unsigned r = 0; r + 1 < n; r++) {
        pool[r] = (Pool){ .lock = PTHREAD_MUTEX_INITIALIZER, .n_buf = 0 };
        /* exactly what the reader may hold (the caller's pictures are back before each call;
         * its picture of a frame makes the fetch of frame + depth wait for it, no more) */
        const unsigned need = frame_reader_pool_pictures(pool_ctx, n, c->depth, ctx[r]);
        EXPECT(need == (r ? 1u : 2u) * c->depth);
        const VmafPicturePoolConfig pc = {
            .pic_cnt = need, .pix_fmt = c->g.fmt, .bpc = c->g.bpc, .w = c->g.w,
            .h = c->g.h, .alloc = pool_alloc, .free = map_free, .alloc_zeroes = true,
            .prepare = pool_prepare, .cookie = &pool[r], .memory = VMAF_PICTURE_MEMORY_HOST,
        };
        EXPECT(!vmaf_picture_pool_init(&ctx[r]->pic_pool, pc));
        if (c->in[r + 1].err == ERR_POOL) {
            EXPECT(!vmaf_fetch_preallocated_picture(ctx[r], &held[r]));
            holding[r] = true;
            pthread_mutex_lock(&pool[r].lock);
            pool[r].fail_alloc = true;
            pthread_mutex_unlock(&pool[r].lock);
        }
    }
    EXPECT(frame_reader_pool_pictures(pool_ctx, n, c->depth, NULL) == 0);

    snprintf(msg_path, sizeof(msg_path), "%s/fm_msg.txt", dir);
    FILE *msg = fopen(msg_path, "w+");
    FrameReader *reader;
    EXPECT(!frame_reader_start_multi(&reader, pool_ctx, in, n, c->max_frames, c->depth,
                                     c->workers, c->luma_only, msg));
    unsigned k = 0;
    for (; k < frames_out + 2; k++) { /* and two frames after every input ended */
        VmafPicture pic[MAX_INPUTS];
        int st[MAX_INPUTS];
        frame_reader_next_multi(reader, pic, st);
        for (unsigned i = 0; i < n; i++) {
            const int e = expected_status(c, i, k);
            EXPECT(e < 0 ? st[i] < 0 : st[i] == e);
            if (e < 0 && c->in[i].err == ERR_POOL) EXPECT(st[i] == -ENOMEM);
            if (e == 1) {
                char err[512];
                EXPECT(video_input_read(check[i], &want[i], err, sizeof(err)) == 1);
            }
            if (st[i] != 1) continue;
            /* from its context's pool, prepared (once) */
            EXPECT(pool_prepared(&pool[i ? i - 1 : 0], &pic[i]) == 1);
            EXPECT(same_plane(&pic[i], &want[i], 0));
            for (unsigned p = 1; p < 3 && pic[i].data[p]; p++)
                EXPECT(skip_chroma ? zero_plane(&pic[i], p) : same_plane(&pic[i], &want[i], p));
            EXPECT(vmaf_picture_range_checked(&pic[i]));
            vmaf_picture_unref(&pic[i]);
        }
    }
    FrameReaderStats stats;
    frame_reader_stats(reader, &stats);
    EXPECT(stats.workers == (parallel ? c->workers : 0) && stats.luma_only == skip_chroma);
    EXPECT(parallel ? stats.tasks >= n : stats.tasks == 0);
    frame_reader_stop(reader);

    /* each error printed once, naming its input */
    char text[4096] = "";
    rewind(msg);
    const size_t got = fread(text, 1, sizeof(text) - 1, msg);
    text[got] = '\0';
    fclose(msg);
    unsigned lines = 0;
    for (const char *p = text; *p; p++) lines += *p == '\n';
    EXPECT(lines == errors);
    for (unsigned i = 0; i < n; i++) {
        const int e = c->in[i].err;
        const bool met = e && expected_status(c, i, c->in[i].err_frame) < 0;
        if (e == ERR_POOL) EXPECT(!met || strstr(text, "could not get a picture from the pool"));
        else if (e) EXPECT((strstr(text, path[i]) != NULL) == met);
        else EXPECT(!strstr(text, path[i]));
    }
    for (unsigned r = 0; r + 1 < n; r++) {
        if (holding[r]) vmaf_picture_unref(&held[r]);
        pthread_mutex_lock(&pool[r].lock);
        /* at most once per buffer (a picture whose read failed is not prepared) */
        EXPECT(pool[r].n_buf >= 1 && pool[r].n_buf <= frame_reader_pool_pictures(
                                                          pool_ctx, n, c->depth, ctx[r]));
        for (unsigned j = 0; j < pool[r].n_buf; j++) EXPECT(pool[r].prepared[j] <= 1);
        pthread_mutex_unlock(&pool[r].lock);
        vmaf_close(ctx[r]);
    }
    for (unsigned i = 0; i < n; i++) {
        vmaf_picture_unref(&want[i]);
        video_input_close(in[i]);
        video_input_close(check[i]);
    }
    if (failures) {
        fprintf(stderr, "  in the %u-input case %ux%u %u-bit fmt %d %s, skip %u, max %u, "
                "%u workers, depth %u, luma_only %d; inputs:", n, c->g.w, c->g.h, c->g.bpc,
                c->g.fmt, c->y4m ? "y4m" : "raw", c->skip, c->max_frames, c->workers, c->depth,
                c->luma_only);
        for (unsigned i = 0; i < n; i++)
            fprintf(stderr, " %u frames err %d at %u%s;", c->in[i].frames, c->in[i].err,
                    c->in[i].err_frame, c->in[i].params ? " (params)" : "");
        fprintf(stderr, "\nprinted:\n%s", text);
        exit(1);
    }
}

/* The N-input cases, each in the in-order mode (1 worker) and the parallel one (2..8). */
static void run_multi_cases(const char *dir)
{
    static const MultiCase cases[] = {
        /* 3 inputs: the distorted 1 ends early, the distorted 2 is cut in frame 4 */
        { .g = { 1100, 1000, 8, VMAF_PIX_FMT_YUV420P }, .n = 3, .depth = 2,
          .in = { { 6 }, { 3 }, { 7, ERR_TRUNC, 4 } } },
        /* 3 inputs, Y4M 10 bit: the distorted 1 longer than the reference, the distorted 2
         * with a sample out of range in frame 2; luma_only reads chroma at 10 bit */
        { .g = { 800, 700, 10, VMAF_PIX_FMT_YUV420P }, .y4m = 1, .n = 3, .depth = 3,
          .luma_only = true, .in = { { 5 }, { 7 }, { 5, ERR_RANGE, 2 } } },
        /* 5 inputs after a skip: one short, one out of range, one whose pool fails */
        { .g = { 641, 361, 10, VMAF_PIX_FMT_YUV420P }, .n = 5, .skip = 1, .depth = 2,
          .in = { { 7 }, { 7 }, { 3 }, { 7, ERR_RANGE, 3 }, { 7, ERR_POOL, 0 } } },
        /* 5 inputs, Y4M 8 bit luma only: the reference cut in frame 1 (the distorted go on),
         * the rest of different lengths, max_frames 6 */
        { .g = { 1100, 1000, 8, VMAF_PIX_FMT_YUV420P }, .y4m = 1, .n = 5, .depth = 1,
          .max_frames = 6, .luma_only = true,
          .in = { { 4, ERR_TRUNC, 1 }, { 8 }, { 5 }, { 8 }, { 1 } } },
        /* 5 inputs, odd 4:4:4: everything ends at once but one, raw; max_frames 2 before an
         * error (never met) */
        { .g = { 33, 17, 8, VMAF_PIX_FMT_YUV444P }, .n = 5, .depth = 4, .max_frames = 2,
          .in = { { 4 }, { 4 }, { 4, ERR_TRUNC, 3 }, { 4 }, { 2 } } },
        /* 3 inputs, one Y4M with FRAME parameters: in order whatever the workers */
        { .g = { 96, 64, 8, VMAF_PIX_FMT_YUV422P }, .y4m = 1, .n = 3, .depth = 2,
          .in = { { 5 }, { 5, ERR_TRUNC, 2, true }, { 3 } } },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        for (unsigned w = 0; w < 3; w++) {
            MultiCase c = cases[i];
            c.workers = w == 0 ? 1 : w == 1 ? 2 + i : 8;
            if (w == 2) c.depth = 1 + (c.depth % 4);
            run_multi(dir, &c);
        }
    }
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    static const Geo geos[] = {
        { 1500, 1000, 8, VMAF_PIX_FMT_YUV420P },  /* luma 1.5 MB: two bands */
        { 641, 361, 10, VMAF_PIX_FMT_YUV420P },   /* odd, 10 bit */
        { 33, 17, 8, VMAF_PIX_FMT_YUV422P },
        { 1024, 1100, 10, VMAF_PIX_FMT_YUV444P }, /* every plane 2.25 MB: three bands */
        { 96, 64, 8, VMAF_PIX_FMT_YUV400P },
        { 1, 1, 8, VMAF_PIX_FMT_YUV420P },        /* chroma planes empty */
    };
    unsigned n = 0;
    for (unsigned gi = 0; gi < sizeof(geos) / sizeof(geos[0]); gi++) {
        for (int y4m = 0; y4m < 2; y4m++) {
            const unsigned big = geos[gi].w * geos[gi].h > 100000;
            Case c = { .g = geos[gi], .y4m = y4m, .n_ref = big ? 5 : 9, .n_dist = big ? 5 : 9,
                       .workers = 2 + (n % 8), .depth = 1 + (n % 5) };
            run_case(dir, &c);
            c.luma_only = true;
            c.skip = 1;
            c.workers = 9 - (n % 7);
            run_case(dir, &c);
            c.luma_only = (n & 1) != 0;
            c.skip = 0;
            c.n_ref = c.n_dist - 2; /* the reference ends first */
            c.max_frames = n % 3 ? 0 : 2;
            c.depth = 2;
            run_case(dir, &c);
            c.n_ref = c.n_dist + 1;
            c.n_dist -= 1; /* the distorted ends first */
            c.max_frames = 0;
            run_case(dir, &c);
            n++;
        }
    }
    for (unsigned w = 2; w <= 8; w += 3) run_errors(dir, w);
    run_multi_cases(dir);
    printf("frame_reader: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
