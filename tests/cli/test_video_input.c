/*
 * Twin VMAF — tests of the CLI input readers (tools/video_input.c).
 *
 * Usage: test_video_input SCRATCH_DIR
 *
 * Writes small raw YUV and Y4M files with known sample patterns into SCRATCH_DIR, reads them back
 * and checks every sample, the floor-sized chroma crop of odd sizes, untouched stride padding,
 * clean end of file, skipping, FIFO input, and every error case. Standalone: pictures are
 * allocated here with the library's convention (floor chroma, stride rounded up to 32 samples).
 * Returns 0 when every check passes.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "video_input.h"
#include "test_util.h"

static const char *scratch;

#define PAD 0xA5

/* ---------------------------------------------------------------------------------------- */
/* Geometry and pictures                                                                      */

typedef struct Geo {
    enum VmafPixelFormat fmt;
    unsigned bpc, w, h;
} Geo;

static unsigned nplanes(enum VmafPixelFormat f) { return f == VMAF_PIX_FMT_YUV400P ? 1 : 3; }
static unsigned ssx(enum VmafPixelFormat f) { return f == VMAF_PIX_FMT_YUV420P || f == VMAF_PIX_FMT_YUV422P; }
static unsigned ssy(enum VmafPixelFormat f) { return f == VMAF_PIX_FMT_YUV420P; }

static void file_plane(const Geo *g, unsigned p, unsigned *w, unsigned *h)
{
    *w = p ? (g->w + ssx(g->fmt)) >> ssx(g->fmt) : g->w;
    *h = p ? (g->h + ssy(g->fmt)) >> ssy(g->fmt) : g->h;
}

static size_t frame_size(const Geo *g)
{
    size_t s = 0;
    for (unsigned p = 0; p < nplanes(g->fmt); p++) {
        unsigned w, h;
        file_plane(g, p, &w, &h);
        s += (size_t)w * h * (g->bpc > 8 ? 2 : 1);
    }
    return s;
}

/* Library convention: floor chroma, stride = ((w + 31) & ~31) * bytes per sample.
 * Each plane gets its own allocation, filled with PAD so that writes outside w x h show up. */
static int pic_alloc(VmafPicture *pic, const Geo *g)
{
    memset(pic, 0, sizeof(*pic));
    pic->pix_fmt = g->fmt;
    pic->bpc = g->bpc;
    const unsigned bps = g->bpc > 8 ? 2 : 1;
    for (unsigned p = 0; p < nplanes(g->fmt); p++) {
        const unsigned w = p ? g->w >> ssx(g->fmt) : g->w;
        const unsigned h = p ? g->h >> ssy(g->fmt) : g->h;
        pic->w[p] = w;
        pic->h[p] = h;
        pic->stride[p] = (ptrdiff_t)(((w + 31) & ~31u) * bps);
        const size_t sz = (size_t)pic->stride[p] * h;
        if (!sz)
            continue;
        pic->data[p] = malloc(sz);
        if (!pic->data[p])
            return -1;
        memset(pic->data[p], PAD, sz);
    }
    return 0;
}

static void pic_free(VmafPicture *pic)
{
    for (unsigned p = 0; p < 3; p++)
        free(pic->data[p]);
    memset(pic, 0, sizeof(*pic));
}

/* Sample value of plane p at file position (x, y) of frame f: a hash, so that any offset,
 * transposition or byte-order error changes the value. */
static unsigned sample(const Geo *g, unsigned p, unsigned x, unsigned y, unsigned f)
{
    uint32_t v = x * 2654435761u ^ (y + 1) * 40503u ^ (p + 1) * 977u ^ (f + 1) * 2246822519u;
    v ^= v >> 15;
    v *= 2246822507u;
    v ^= v >> 13;
    return v & ((1u << g->bpc) - 1);
}

static void put_frame(unsigned char *buf, const Geo *g, unsigned f)
{
    const unsigned bps = g->bpc > 8 ? 2 : 1;
    for (unsigned p = 0; p < nplanes(g->fmt); p++) {
        unsigned w, h;
        file_plane(g, p, &w, &h);
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++) {
                const unsigned v = sample(g, p, x, y, f);
                *buf++ = (unsigned char)(v & 0xff);
                if (bps == 2)
                    *buf++ = (unsigned char)(v >> 8);
            }
    }
}

/* Checks every sample of the floor-sized region, and that the stride padding is untouched. */
static int check_frame(const VmafPicture *pic, const Geo *g, unsigned f, const char *what)
{
    const unsigned bps = g->bpc > 8 ? 2 : 1;
    int bad = 0;
    for (unsigned p = 0; p < nplanes(g->fmt) && !bad; p++) {
        const unsigned char *d = pic->data[p];
        for (unsigned y = 0; y < pic->h[p] && !bad; y++) {
            const unsigned char *row = d + (ptrdiff_t)y * pic->stride[p];
            for (unsigned x = 0; x < pic->w[p] && !bad; x++) {
                const unsigned got = bps == 2 ? (unsigned)(row[2 * x] | row[2 * x + 1] << 8) : row[x];
                const unsigned want = sample(g, p, x, y, f);
                if (got != want) {
                    CHECK(got == want, "%s frame %u plane %u (%u,%u): got %u want %u",
                          what, f, p, x, y, got, want);
                    bad = 1;
                }
            }
            for (size_t b = (size_t)pic->w[p] * bps; b < (size_t)pic->stride[p] && !bad; b++)
                if (row[b] != PAD) {
                    CHECK(row[b] == PAD, "%s frame %u plane %u row %u: padding byte %zu written",
                          what, f, p, y, b);
                    bad = 1;
                }
        }
    }
    checks++;
    return bad;
}

/* ---------------------------------------------------------------------------------------- */
/* File writers                                                                               */

static char *path_of(const char *name)
{
    /* a few rotating buffers: callers keep at most two results at a time */
    static char buf[4][4096];
    static unsigned k;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof(buf[0]), "%s/%s", scratch, name);
    return b;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
}

/* Builds a stream in memory: optional Y4M header, then nframes frames (each preceded by
 * frame_hdr when given), then cut `cut` bytes from the end. */
static unsigned char *build(const Geo *g, const char *y4m_hdr, const char *frame_hdr,
                            unsigned nframes, size_t cut, size_t *len)
{
    const size_t fs = frame_size(g);
    const size_t hl = y4m_hdr ? strlen(y4m_hdr) : 0, fl = frame_hdr ? strlen(frame_hdr) : 0;
    const size_t total = hl + nframes * (fl + fs);
    unsigned char *buf = malloc(total + 1);
    if (!buf)
        exit(2);
    unsigned char *p = buf;
    memcpy(p, y4m_hdr ? y4m_hdr : "", hl);
    p += hl;
    for (unsigned f = 0; f < nframes; f++) {
        memcpy(p, frame_hdr ? frame_hdr : "", fl);
        p += fl;
        put_frame(p, g, f);
        p += fs;
    }
    *len = total - (cut < total ? cut : total);
    return buf;
}

static void make(const char *path, const Geo *g, const char *y4m_hdr, const char *frame_hdr,
                 unsigned nframes, size_t cut)
{
    size_t len;
    unsigned char *b = build(g, y4m_hdr, frame_hdr, nframes, cut, &len);
    write_file(path, b, len);
    free(b);
}

/* ---------------------------------------------------------------------------------------- */
/* Round trips                                                                                */

static const char *fmt_s(enum VmafPixelFormat f)
{
    return f == VMAF_PIX_FMT_YUV420P ? "420" : f == VMAF_PIX_FMT_YUV422P ? "422" :
           f == VMAF_PIX_FMT_YUV444P ? "444" : "400";
}

/* Opens path, checks the geometry, reads every frame and checks it, then a clean EOF. */
static void read_all(const char *path, const Geo *g, int raw, unsigned nframes, const char *what)
{
    char err[512];
    VideoInput *in = NULL;
    const VideoInfo ri = { g->w, g->h, g->bpc, g->fmt };
    int r = video_input_open(&in, path, raw ? &ri : NULL, err, sizeof(err));
    CHECK(r == 0, "%s: open: %d %s", what, r, err);
    if (r)
        return;
    VideoInfo info;
    video_input_info(in, &info);
    CHECK(info.w == g->w && info.h == g->h && info.bpc == g->bpc && info.pix_fmt == g->fmt,
          "%s: info %ux%u %u-bit fmt %d", what, info.w, info.h, info.bpc, (int)info.pix_fmt);
    VmafPicture pic;
    if (pic_alloc(&pic, g))
        exit(2);
    for (unsigned f = 0; f < nframes; f++) {
        r = video_input_read(in, &pic, err, sizeof(err));
        CHECK(r == 1, "%s: read frame %u: %d %s", what, f, r, err);
        if (r != 1)
            break;
        check_frame(&pic, g, f, what);
    }
    r = video_input_read(in, &pic, err, sizeof(err));
    CHECK(r == 0, "%s: expected EOF, got %d %s", what, r, err);
    r = video_input_read(in, &pic, err, sizeof(err));
    CHECK(r == 0, "%s: expected EOF again, got %d %s", what, r, err);
    r = video_input_skip(in, 3, err, sizeof(err));
    CHECK(r == 0, "%s: skip at EOF: %d %s", what, r, err);
    pic_free(&pic);
    video_input_close(in);
}

/* Skip 2, read frame 2, skip past the end. */
static void skip_test(const char *path, const Geo *g, int raw, unsigned nframes, const char *what)
{
    char err[512];
    VideoInput *in = NULL;
    const VideoInfo ri = { g->w, g->h, g->bpc, g->fmt };
    int r = video_input_open(&in, path, raw ? &ri : NULL, err, sizeof(err));
    CHECK(r == 0, "%s: open: %d %s", what, r, err);
    if (r)
        return;
    VmafPicture pic;
    if (pic_alloc(&pic, g))
        exit(2);
    r = video_input_skip(in, 0, err, sizeof(err));
    CHECK(r == 0, "%s: skip 0: %d %s", what, r, err);
    r = video_input_skip(in, 2, err, sizeof(err));
    CHECK(r == 2, "%s: skip 2: %d %s", what, r, err);
    r = video_input_read(in, &pic, err, sizeof(err));
    CHECK(r == 1, "%s: read after skip: %d %s", what, r, err);
    if (r == 1)
        check_frame(&pic, g, 2, what);
    r = video_input_skip(in, 1000, err, sizeof(err));
    CHECK(r == (int)nframes - 3, "%s: skip past end: %d (want %u) %s", what, r, nframes - 3, err);
    r = video_input_read(in, &pic, err, sizeof(err));
    CHECK(r == 0, "%s: EOF after skip: %d %s", what, r, err);
    pic_free(&pic);
    video_input_close(in);
}

static void raw_case(unsigned w, unsigned h, unsigned bpc, enum VmafPixelFormat fmt, unsigned nf)
{
    const Geo g = { fmt, bpc, w, h };
    char name[128], what[128];
    snprintf(name, sizeof(name), "raw_%ux%u_%sp%u.yuv", w, h, fmt_s(fmt), bpc);
    snprintf(what, sizeof(what), "raw %ux%u %s %u-bit", w, h, fmt_s(fmt), bpc);
    const char *path = path_of(name);
    make(path, &g, NULL, NULL, nf, 0);
    read_all(path, &g, 1, nf, what);
    if (nf >= 3)
        skip_test(path, &g, 1, nf, what);
}

static void y4m_case(const char *hdr, const char *frame_hdr, unsigned w, unsigned h,
                     unsigned bpc, enum VmafPixelFormat fmt, unsigned nf)
{
    const Geo g = { fmt, bpc, w, h };
    static unsigned k;
    char name[64], what[256];
    snprintf(name, sizeof(name), "y4m_%u.y4m", k++);
    snprintf(what, sizeof(what), "y4m [%.*s]", (int)strcspn(hdr, "\n"), hdr);
    const char *path = path_of(name);
    make(path, &g, hdr, frame_hdr ? frame_hdr : "FRAME\n", nf, 0);
    read_all(path, &g, 0, nf, what);
    if (nf >= 3)
        skip_test(path, &g, 0, nf, what);
}

/* A stream read into a deeper picture once declared (mixed depths, --aom_ctc v6.0+):
 * samples << shift, padding untouched; refused without the declaration. */
static void widen_case(const char *hdr, unsigned w, unsigned h, unsigned bpc, unsigned pic_bpc,
                       enum VmafPixelFormat fmt)
{
    const Geo g = { fmt, bpc, w, h }, pg = { fmt, pic_bpc, w, h };
    static unsigned k;
    char name[64], err[512];
    snprintf(name, sizeof(name), "widen_%u.y4m", k++);
    const char *path = path_of(name);
    make(path, &g, hdr, "FRAME\n", 2, 0);
    VideoInput *in = NULL;
    int r = video_input_open(&in, path, NULL, err, sizeof(err));
    CHECK(r == 0, "widen %u->%u: open: %d %s", bpc, pic_bpc, r, err);
    if (r) return;
    CHECK(video_input_set_picture_depth(in, bpc - 1) == -EINVAL, "shallower depth accepted");
    CHECK(video_input_set_picture_depth(in, 17) == -EINVAL, "17 bits accepted");
    CHECK(video_input_set_picture_depth(in, pic_bpc) == 0, "set depth %u", pic_bpc);
    for (unsigned f = 0; f < 2; f++) {
        VmafPicture pic;
        CHECK(pic_alloc(&pic, &pg) == 0, "alloc");
        r = video_input_read(in, &pic, err, sizeof(err));
        CHECK(r == 1, "widen %u->%u frame %u: %d %s", bpc, pic_bpc, f, r, err);
        unsigned bad = 0;
        for (unsigned p = 0; p < nplanes(fmt) && r == 1; p++)
            for (unsigned y = 0; y < pic.h[p]; y++) {
                const unsigned char *row = (const unsigned char *)pic.data[p] + (ptrdiff_t)y * pic.stride[p];
                for (unsigned x = 0; x < pic.w[p]; x++)
                    bad += (unsigned)(row[2 * x] | row[2 * x + 1] << 8) !=
                           sample(&g, p, x, y, f) << (pic_bpc - bpc);
                for (size_t b = (size_t)pic.w[p] * 2; b < (size_t)pic.stride[p]; b++) bad += row[b] != PAD;
            }
        CHECK(!bad, "widen %u->%u frame %u: %u samples wrong", bpc, pic_bpc, f, bad);
        pic_free(&pic);
    }
    video_input_close(in);
    /* without the declaration, a deeper picture is refused */
    r = video_input_open(&in, path, NULL, err, sizeof(err));
    if (!r) {
        VmafPicture pic;
        CHECK(pic_alloc(&pic, &pg) == 0, "alloc");
        r = video_input_read(in, &pic, err, sizeof(err));
        CHECK(r == -EINVAL, "a %u-bit picture for a %u-bit stream: %d", pic_bpc, bpc, r);
        pic_free(&pic);
    } else {
        in = NULL;
    }
    if (in) video_input_close(in);
}

/* ---------------------------------------------------------------------------------------- */
/* Errors                                                                                     */

static int has(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

static void check_msg(const char *err, const char *path, const char *what)
{
    CHECK(err[0] != '\0', "%s: empty message", what);
    CHECK(!strchr(err, '\n'), "%s: message has a newline: %s", what, err);
    CHECK(!strncmp(err, path, strlen(path)), "%s: message does not start with the path: %s",
          what, err);
}

/* Expects open to fail with rc (0 = any negative) and a message containing sub1 and sub2. */
static void open_fails(const char *path, const VideoInfo *raw, int rc, const char *sub1,
                       const char *sub2, const char *what)
{
    char err[512];
    VideoInput *in = (VideoInput *)&failures; /* must stay untouched */
    int r = video_input_open(&in, path, raw, err, sizeof(err));
    CHECK(r < 0 && (!rc || r == rc), "%s: open returned %d (want %d): %s", what, r, rc, err);
    CHECK(in == (VideoInput *)&failures, "%s: *in written on failure", what);
    if (r >= 0) {
        video_input_close(in);
        return;
    }
    check_msg(err, path, what);
    CHECK(!sub1 || has(err, sub1), "%s: message lacks \"%s\": %s", what, sub1, err);
    CHECK(!sub2 || has(err, sub2), "%s: message lacks \"%s\": %s", what, sub2, err);
}

static void y4m_header_fails(const char *hdr_bytes, size_t n, int rc, const char *sub,
                             const char *what)
{
    static unsigned k;
    char name[64];
    snprintf(name, sizeof(name), "bad_hdr_%u.y4m", k++);
    const char *path = path_of(name);
    write_file(path, hdr_bytes, n);
    open_fails(path, NULL, rc, sub, NULL, what);
}

/* A file whose frame `bad` fails to read with rc (0 = any negative) and a message with sub. */
static void read_fails(const char *path, const Geo *g, int raw, unsigned bad, int rc,
                       const char *sub, const char *what)
{
    char err[512];
    VideoInput *in = NULL;
    const VideoInfo ri = { g->w, g->h, g->bpc, g->fmt };
    int r = video_input_open(&in, path, raw ? &ri : NULL, err, sizeof(err));
    CHECK(r == 0, "%s: open: %d %s", what, r, err);
    if (r)
        return;
    VmafPicture pic;
    if (pic_alloc(&pic, g))
        exit(2);
    for (unsigned f = 0; f < bad; f++) {
        r = video_input_read(in, &pic, err, sizeof(err));
        CHECK(r == 1, "%s: read frame %u: %d %s", what, f, r, err);
        if (r == 1)
            check_frame(&pic, g, f, what);
    }
    r = video_input_read(in, &pic, err, sizeof(err));
    CHECK(r < 0 && (!rc || r == rc), "%s: read of frame %u returned %d (want %d): %s",
          what, bad, r, rc, err);
    if (r < 0) {
        check_msg(err, path, what);
        CHECK(!sub || has(err, sub), "%s: message lacks \"%s\": %s", what, sub, err);
    }
    pic_free(&pic);
    video_input_close(in);
}

static void error_tests(void)
{
    char err[512], want[128];
    const Geo g8 = { VMAF_PIX_FMT_YUV420P, 8, 17, 17 };
    const VideoInfo r8 = { 17, 17, 8, VMAF_PIX_FMT_YUV420P };

    /* open errors common to both */
    char missing[4200], raw17[4200];
    snprintf(missing, sizeof(missing), "%s", path_of("does_not_exist.yuv"));
    open_fails(missing, &r8, -ENOENT, "cannot open", strerror(ENOENT), "missing raw file");
    open_fails(missing, NULL, -ENOENT, strerror(ENOENT), NULL, "missing y4m file");
    open_fails(scratch, &r8, -EISDIR, "directory", NULL, "directory");

    /* raw geometry */
    snprintf(raw17, sizeof(raw17), "%s", path_of("raw_17x17_420p8.yuv"));
    const VideoInfo badgeo[] = {
        { 0, 17, 8, VMAF_PIX_FMT_YUV420P }, { 17, 0, 8, VMAF_PIX_FMT_YUV420P },
        { 16385, 17, 8, VMAF_PIX_FMT_YUV420P }, { 17, 100000, 8, VMAF_PIX_FMT_YUV420P },
        { 17, 17, 7, VMAF_PIX_FMT_YUV420P }, { 17, 17, 17, VMAF_PIX_FMT_YUV420P },
        { 17, 17, 0, VMAF_PIX_FMT_YUV420P }, { 17, 17, 8, VMAF_PIX_FMT_UNKNOWN },
        { 17, 17, 8, (enum VmafPixelFormat)42 },
    };
    for (unsigned i = 0; i < sizeof(badgeo) / sizeof(badgeo[0]); i++) {
        char what[64];
        snprintf(what, sizeof(what), "raw bad geometry %u", i);
        open_fails(raw17, &badgeo[i], -EINVAL, NULL, NULL, what);
    }

    /* raw size checks */
    const char *odd = path_of("size_1000.yuv");
    unsigned char junk[4096];
    memset(junk, 0x10, sizeof(junk));
    write_file(odd, junk, 1000);
    const VideoInfo boats = { 576, 324, 8, VMAF_PIX_FMT_YUV420P };
    open_fails(odd, &boats, -EINVAL, "file size 1000 is not a multiple of the frame size 279936",
               "576x324 420p 8-bit", "size not multiple");
    const VideoInfo kite10 = { 257, 145, 10, VMAF_PIX_FMT_YUV420P };
    snprintf(want, sizeof(want), "%zu", frame_size(&(Geo){ VMAF_PIX_FMT_YUV420P, 10, 257, 145 }));
    open_fails(odd, &kite10, -EINVAL, want, "257x145 420p 10-bit", "size not multiple (10-bit)");
    /* ceil-chroma frame size: 56099 for 257x145 420p; a floor-chroma sized file is rejected */
    const Geo kite = { VMAF_PIX_FMT_YUV420P, 8, 257, 145 };
    CHECK(frame_size(&kite) == 56099, "kite frame size %zu", frame_size(&kite));
    {
        const char *fl = path_of("floor_sized.yuv");
        const size_t n = 257 * 145 + 2 * 128 * 72;
        unsigned char *b = calloc(1, n);
        write_file(fl, b, n);
        free(b);
        const VideoInfo ki = { 257, 145, 8, VMAF_PIX_FMT_YUV420P };
        open_fails(fl, &ki, -EINVAL, "56099", NULL, "floor-sized file");
    }
    const char *empty = path_of("empty.yuv");
    write_file(empty, "", 0);
    open_fails(empty, &r8, -EINVAL, "no frames", NULL, "empty raw file");
    open_fails(empty, NULL, -EINVAL, "empty", NULL, "empty y4m file");

    /* raw picture mismatch */
    {
        VideoInput *in = NULL;
        int r = video_input_open(&in, raw17, &r8, err, sizeof(err));
        CHECK(r == 0, "open raw17: %d %s", r, err);
        if (!r) {
            const Geo other[] = {
                { VMAF_PIX_FMT_YUV420P, 8, 18, 17 }, { VMAF_PIX_FMT_YUV420P, 8, 17, 16 },
                { VMAF_PIX_FMT_YUV420P, 10, 17, 17 }, { VMAF_PIX_FMT_YUV444P, 8, 17, 17 },
            };
            for (unsigned i = 0; i < 4; i++) {
                VmafPicture pic;
                pic_alloc(&pic, &other[i]);
                r = video_input_read(in, &pic, err, sizeof(err));
                CHECK(r == -EINVAL, "mismatched picture %u: %d %s", i, r, err);
                if (r == -EINVAL)
                    check_msg(err, raw17, "mismatched picture");
                pic_free(&pic);
            }
            VmafPicture pic;
            pic_alloc(&pic, &g8);
            pic.stride[1] = 4; /* too small a stride */
            r = video_input_read(in, &pic, err, sizeof(err));
            CHECK(r == -EINVAL, "small stride: %d %s", r, err);
            pic.stride[1] = 32;
            void *u = pic.data[2];
            pic.data[2] = NULL;
            r = video_input_read(in, &pic, err, sizeof(err));
            CHECK(r == -EINVAL, "NULL plane: %d %s", r, err);
            pic.data[2] = u;
            r = video_input_read(in, NULL, err, sizeof(err));
            CHECK(r == -EINVAL, "NULL picture: %d %s", r, err);
            /* nothing consumed by the failed calls: frame 0 still comes first */
            r = video_input_read(in, &pic, err, sizeof(err));
            CHECK(r == 1, "read after mismatch: %d %s", r, err);
            if (r == 1)
                check_frame(&pic, &g8, 0, "read after mismatch");
            /* NULL err buffer is allowed */
            r = video_input_read(in, NULL, NULL, 0);
            CHECK(r == -EINVAL, "NULL err: %d", r);
            pic_free(&pic);
            video_input_close(in);
        }
        video_input_close(NULL);
    }

    /* samples above (1 << bpc) - 1 are refused (never a score from them), naming frame,
     * plane and position; a 16-bit file cannot hold one, and the dropped ceil column of odd
     * chroma is not looked at */
    {
        const Geo g10 = { VMAF_PIX_FMT_YUV420P, 10, 17, 17 };
        size_t len;
        unsigned char *b = build(&g10, NULL, NULL, 3, 0, &len);
        const size_t v_plane = frame_size(&g10) + 17 * 17 * 2 + 9 * 9 * 2;
        b[v_plane + (2 * 9 + 8) * 2] = 0xff; /* frame 1, V, x=8 (dropped column), y=2 */
        b[v_plane + (2 * 9 + 8) * 2 + 1] = 0xff;
        const char *hi = path_of("range10.yuv");
        write_file(hi, b, len);
        read_all(hi, &g10, 1, 3, "10-bit, out of range only in the dropped column");
        b[v_plane + (2 * 9 + 3) * 2] = 0x00; /* frame 1, V, x=3, y=2: 1024 */
        b[v_plane + (2 * 9 + 3) * 2 + 1] = 0x04;
        write_file(hi, b, len);
        read_fails(hi, &g10, 1, 1, -EINVAL, "frame 1, plane 2 (V): sample 1024 at x=3, y=2",
                   "10-bit sample 1024");
        free(b);
        const Geo g16 = { VMAF_PIX_FMT_YUV420P, 16, 17, 17 };
        b = build(&g16, NULL, NULL, 2, 0, &len);
        memset(b, 0xff, len);
        write_file(hi, b, len);
        VideoInput *in = NULL;
        const VideoInfo r16 = { 17, 17, 16, VMAF_PIX_FMT_YUV420P };
        CHECK(!video_input_open(&in, hi, &r16, err, sizeof(err)), "16-bit open: %s", err);
        VmafPicture pic;
        if (in && !pic_alloc(&pic, &g16)) {
            CHECK(video_input_read(in, &pic, err, sizeof(err)) == 1, "16-bit 0xffff read: %s", err);
            pic_free(&pic);
        }
        video_input_close(in);
        free(b);
    }

    /* Y4M truncated frames */
    const char *hdr17 = "YUV4MPEG2 W17 H17 F25:1 Ip A1:1 C420jpeg\n";
    const char *tr = path_of("trunc_payload.y4m");
    make(tr, &g8, hdr17, "FRAME\n", 3, 5);
    read_fails(tr, &g8, 0, 2, -EIO, "truncated frame 2", "y4m truncated payload");
    make(tr, &g8, hdr17, "FRAME\n", 3, frame_size(&g8)); /* ends right after "FRAME\n" */
    read_fails(tr, &g8, 0, 2, -EIO, "truncated frame 2", "y4m payload missing");
    {
        /* ends inside the FRAME header */
        size_t len;
        unsigned char *b = build(&g8, hdr17, "FRAME\n", 2, 0, &len);
        unsigned char *b2 = malloc(len + 3);
        memcpy(b2, b, len);
        memcpy(b2 + len, "FRA", 3);
        write_file(tr, b2, len + 3);
        read_fails(tr, &g8, 0, 2, -EIO, "truncated frame 2", "y4m truncated FRAME header");
        /* bad FRAME header at frame 1 */
        const size_t off = strlen(hdr17) + 6 + frame_size(&g8);
        memcpy(b2, b, len);
        memcpy(b2 + off, "FRAMX", 5);
        write_file(tr, b2, len);
        read_fails(tr, &g8, 0, 1, -EINVAL, "bad FRAME header at frame 1", "y4m FRAMX");
        memcpy(b2 + off, "FRAME", 5);
        b2[off + 5] = 'X'; /* "FRAMEX" */
        write_file(tr, b2, len);
        read_fails(tr, &g8, 0, 1, -EINVAL, "bad FRAME header", "y4m FRAMEX");
        free(b);
        free(b2);
        /* FRAME header without newline for too long */
        b = build(&g8, hdr17, "FRAME\n", 1, 0, &len);
        b2 = malloc(len + 5000);
        memcpy(b2, b, len);
        memcpy(b2 + len, "FRAME ", 6);
        memset(b2 + len + 6, 'x', 4994);
        write_file(tr, b2, len + 5000);
        read_fails(tr, &g8, 0, 1, -EINVAL, "longer than", "y4m long FRAME header");
        /* a frame header in the wrong place: data where FRAME should be */
        memcpy(b2, b, len);
        memset(b2 + len, 0x80, 100);
        write_file(tr, b2, len + 100);
        read_fails(tr, &g8, 0, 1, -EINVAL, "bad FRAME header", "y4m garbage frame");
        free(b);
        free(b2);
    }
    /* skip over a truncated Y4M frame */
    {
        make(tr, &g8, hdr17, "FRAME\n", 3, 5);
        VideoInput *in = NULL;
        int r = video_input_open(&in, tr, NULL, err, sizeof(err));
        CHECK(r == 0, "open: %d %s", r, err);
        if (!r) {
            r = video_input_skip(in, 5, err, sizeof(err));
            CHECK(r == -EIO && has(err, "truncated frame 2"), "skip truncated: %d %s", r, err);
            video_input_close(in);
        }
    }
    /* raw truncated: covered through a FIFO (regular files are size-checked at open) */

    /* Y4M header errors */
    struct { const char *hdr; int rc; const char *sub; } bad[] = {
        { "YUV4MPEG3 W17 H17\n", -EINVAL, "not a Y4M file" },
        { "YUV4MPEG2W17 H17\n", -EINVAL, "not a Y4M file" },
        { "RIFF....WAVEfmt \n", -EINVAL, "not a Y4M file" },
        { "YUV4MPEG2 H17 F25:1\n", -EINVAL, "missing width" },
        { "YUV4MPEG2 W17 F25:1\n", -EINVAL, "missing height" },
        { "YUV4MPEG2 F25:1\n", -EINVAL, "missing width and height" },
        { "YUV4MPEG2\n", -EINVAL, "missing width and height" },
        { "YUV4MPEG2 W0 H17\n", -EINVAL, "bad width" },
        { "YUV4MPEG2 W17 H0\n", -EINVAL, "bad height" },
        { "YUV4MPEG2 W16385 H17\n", -EINVAL, "bad width" },
        { "YUV4MPEG2 W17 H99999999999\n", -EINVAL, "bad height" },
        { "YUV4MPEG2 W17a H17\n", -EINVAL, "bad width" },
        { "YUV4MPEG2 W-17 H17\n", -EINVAL, "bad width" },
        { "YUV4MPEG2 W H17\n", -EINVAL, "bad width" },
        { "YUV4MPEG2 W17 H17 F25\n", -EINVAL, "bad frame rate" },
        { "YUV4MPEG2 W17 H17 Fx:1\n", -EINVAL, "bad frame rate" },
        { "YUV4MPEG2 W17 H17 A1\n", -EINVAL, "bad aspect ratio" },
        { "YUV4MPEG2 W17 H17 Iz\n", -EINVAL, "bad interlacing" },
        { "YUV4MPEG2 W17 H17 @@@\n", -EINVAL, "malformed tag" },
        { "YUV4MPEG2 W17 H17 w17\n", -EINVAL, "malformed tag" },
        { "YUV4MPEG2 W17 H17 Cfoo\n", -EINVAL, "unknown colorspace 'Cfoo'" },
        { "YUV4MPEG2 W17 H17 C\n", -EINVAL, "unknown colorspace" },
        { "YUV4MPEG2 W17 H17 C420p8\n", -EINVAL, "unknown colorspace" },
        { "YUV4MPEG2 W17 H17 C420p17\n", -EINVAL, "unknown colorspace" },
        { "YUV4MPEG2 W17 H17 C420p\n", -EINVAL, "unknown colorspace" },
        { "YUV4MPEG2 W17 H17 C420p010\n", -EINVAL, "unknown colorspace" },
        { "YUV4MPEG2 W17 H17 Cmono7\n", -EINVAL, "unknown colorspace" },
        { "YUV4MPEG2 W17 H17 C411\n", -ENOTSUP, "'C411' is not supported (4:1:1" },
        { "YUV4MPEG2 W17 H17 C444alpha\n", -ENOTSUP, "'C444alpha' is not supported (alpha" },
        { "YUV4MPEG2 W17 H17 C420jpeg", -EINVAL, "truncated Y4M header" },
        { "YUV4MPEG2 W17 H17 C420jpeg\n", -EINVAL, "no frames after the Y4M header" },
        { "YUV4MPEG2 W17 H17\tC420jpeg\n", -EINVAL, "bad height" },
        { "YUV4MPEG2 W17 H17 C420jpeg\r\nFRAME\n", -EINVAL, "CR LF" },
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char what[128];
        snprintf(what, sizeof(what), "y4m header [%.*s]", (int)strcspn(bad[i].hdr, "\n"), bad[i].hdr);
        y4m_header_fails(bad[i].hdr, strlen(bad[i].hdr), bad[i].rc, bad[i].sub, what);
    }
    {
        /* header too long without a newline */
        char big[6000];
        memcpy(big, "YUV4MPEG2 W17 H17 X", 19);
        memset(big + 19, 'y', sizeof(big) - 19);
        y4m_header_fails(big, sizeof(big), -EINVAL, "without a newline", "y4m long header");
        /* a NUL inside the header is named as such, not as a bad tag */
        static const char nul_hdr[] = "YUV4MPEG2 W17\0 H17 C420jpeg\nFRAME\n";
        y4m_header_fails(nul_hdr, sizeof(nul_hdr) - 1, -EINVAL, "NUL byte", "y4m NUL in header");
        /* a raw YUV file given without geometry */
        y4m_header_fails((const char *)junk, sizeof(junk), -EINVAL, "not a Y4M file",
                         "raw file as y4m");
    }
    /* a message truncated to a small buffer stays a terminated string */
    {
        char small[16];
        memset(small, 'Z', sizeof(small));
        VideoInput *in = NULL;
        int r = video_input_open(&in, missing, &r8, small, sizeof(small));
        CHECK(r == -ENOENT && small[15] == '\0' && strlen(small) == 15, "small err: %d", r);
        r = video_input_open(&in, missing, &r8, NULL, 0);
        CHECK(r == -ENOENT, "NULL err: %d", r);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* FIFO input (no size check, no seeking)                                                     */

static void fifo_case(const Geo *g, const char *y4m_hdr, unsigned nf, size_t cut, int skip,
                      const char *what)
{
    char err[512];
    const char *fifo = path_of("fifo");
    unlink(fifo);
    if (mkfifo(fifo, 0600)) {
        fprintf(stderr, "mkfifo %s: %s\n", fifo, strerror(errno));
        exit(2);
    }
    size_t len;
    unsigned char *b = build(g, y4m_hdr, y4m_hdr ? "FRAME\n" : NULL, nf, cut, &len);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        exit(2);
    if (pid == 0) {
        FILE *f = fopen(fifo, "wb");
        if (f) {
            fwrite(b, 1, len, f);
            fclose(f);
        }
        _exit(0);
    }
    VideoInput *in = NULL;
    const VideoInfo ri = { g->w, g->h, g->bpc, g->fmt };
    int r = video_input_open(&in, fifo, y4m_hdr ? NULL : &ri, err, sizeof(err));
    CHECK(r == 0, "%s: open: %d %s", what, r, err);
    if (!r) {
        VmafPicture pic;
        if (pic_alloc(&pic, g))
            exit(2);
        unsigned f = 0;
        if (skip) {
            r = video_input_skip(in, 2, err, sizeof(err));
            CHECK(r == 2, "%s: skip: %d %s", what, r, err);
            f = 2;
        }
        for (;; f++) {
            r = video_input_read(in, &pic, err, sizeof(err));
            if (r != 1)
                break;
            check_frame(&pic, g, f, what);
        }
        if (cut) {
            char want[64];
            snprintf(want, sizeof(want), "truncated frame %u", nf - 1);
            CHECK(r == -EIO && f == nf - 1 && has(err, want), "%s: truncated: %d after %u: %s",
                  what, r, f, err);
        } else {
            CHECK(r == 0 && f == nf, "%s: end: %d after %u frames: %s", what, r, f, err);
        }
        pic_free(&pic);
        video_input_close(in);
    }
    int st;
    waitpid(pid, &st, 0);
    free(b);
    unlink(fifo);
}

/* ---------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
        return 2;
    }
    scratch = argv[1];
    mkdir(scratch, 0700);
    struct stat st;
    if (stat(scratch, &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: not a directory\n", scratch);
        return 2;
    }

    const enum VmafPixelFormat F420 = VMAF_PIX_FMT_YUV420P, F422 = VMAF_PIX_FMT_YUV422P,
                               F444 = VMAF_PIX_FMT_YUV444P, F400 = VMAF_PIX_FMT_YUV400P;

    /* raw: odd and even sizes, every bit depth class, every format */
    raw_case(17, 17, 8, F420, 4);
    raw_case(257, 145, 8, F420, 3);
    raw_case(257, 145, 10, F420, 3);
    raw_case(257, 145, 12, F422, 3);
    raw_case(257, 145, 16, F444, 3);
    raw_case(17, 17, 16, F422, 4);
    raw_case(17, 17, 10, F444, 3);
    raw_case(33, 9, 8, F400, 3);
    raw_case(64, 32, 8, F420, 3);   /* contiguous planes: one fread per plane */
    raw_case(64, 32, 10, F420, 3);
    raw_case(16, 8, 9, F422, 3);    /* stride > row: row by row, no extra column */
    raw_case(1, 1, 8, F420, 3);     /* 0x0 picture chroma, 1x1 in the file */
    raw_case(1, 7, 10, F422, 3);
    raw_case(2, 1, 8, F420, 3);
    raw_case(1920, 2, 8, F420, 2);

    /* Y4M: every colorspace family, odd sizes, tags, frame parameters */
    y4m_case("YUV4MPEG2 W17 H17 F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n", NULL, 17, 17, 8, F420, 4);
    y4m_case("YUV4MPEG2 W257 H145 F30000:1001 Ip A0:0 C420mpeg2\n", NULL, 257, 145, 8, F420, 3);
    y4m_case("YUV4MPEG2 W257 H145 F25:1\n", NULL, 257, 145, 8, F420, 3); /* default C420jpeg */
    y4m_case("YUV4MPEG2 W18 H10 C420paldv\n", NULL, 18, 10, 8, F420, 3);
    y4m_case("YUV4MPEG2 W17 H5 C420\n", NULL, 17, 5, 8, F420, 3);
    y4m_case("YUV4MPEG2 W257 H145 F25:1 Ip C420p10 XYSCSS=420P10\n", NULL, 257, 145, 10, F420, 3);
    y4m_case("YUV4MPEG2 W17 H17 C420p12\n", NULL, 17, 17, 12, F420, 3);
    widen_case("YUV4MPEG2 W257 H145 C420jpeg\n", 257, 145, 8, 10, F420);
    widen_case("YUV4MPEG2 W33 H9 C444p10\n", 33, 9, 10, 16, F444);
    widen_case("YUV4MPEG2 W3000 H2 C422p12\n", 3000, 2, 12, 14, F422);
    y4m_case("YUV4MPEG2 W17 H17 C420p14\n", NULL, 17, 17, 14, F420, 3);
    y4m_case("YUV4MPEG2 W17 H17 C420p16\n", NULL, 17, 17, 16, F420, 3);
    y4m_case("YUV4MPEG2 W17 H17 C420p9\n", NULL, 17, 17, 9, F420, 3);
    y4m_case("YUV4MPEG2 W17 H17 C422\n", NULL, 17, 17, 8, F422, 3);
    y4m_case("YUV4MPEG2 W257 H145 C422p10\n", NULL, 257, 145, 10, F422, 3);
    y4m_case("YUV4MPEG2 W257 H145 C422p12\n", NULL, 257, 145, 12, F422, 3);
    y4m_case("YUV4MPEG2 W17 H17 C422p16\n", NULL, 17, 17, 16, F422, 3);
    y4m_case("YUV4MPEG2 W17 H17 C444\n", NULL, 17, 17, 8, F444, 3);
    y4m_case("YUV4MPEG2 W257 H145 C444p10\n", NULL, 257, 145, 10, F444, 3);
    y4m_case("YUV4MPEG2 W17 H17 C444p12\n", NULL, 17, 17, 12, F444, 3);
    y4m_case("YUV4MPEG2 W17 H17 C444p16\n", NULL, 17, 17, 16, F444, 3);
    y4m_case("YUV4MPEG2 W33 H9 Cmono\n", NULL, 33, 9, 8, F400, 3);
    y4m_case("YUV4MPEG2 W17 H17 Cmono10\n", NULL, 17, 17, 10, F400, 3);
    y4m_case("YUV4MPEG2 W17 H17 Cmono12\n", NULL, 17, 17, 12, F400, 3);
    y4m_case("YUV4MPEG2 W17 H17 Cmono16\n", NULL, 17, 17, 16, F400, 3);
    y4m_case("YUV4MPEG2 W17 H17 It C420jpeg\n", NULL, 17, 17, 8, F420, 3);      /* interlaced */
    y4m_case("YUV4MPEG2 W17 H17 Ib Im C420jpeg\n", NULL, 17, 17, 8, F420, 3);
    y4m_case("YUV4MPEG2  W17   H17 I? Zunknown C420jpeg \n", NULL, 17, 17, 8, F420, 3);
    y4m_case("YUV4MPEG2 C444p10 H145 W257 C420p16\n", NULL, 257, 145, 16, F420, 3); /* last wins */
    y4m_case("YUV4MPEG2 W17 H17 C420jpeg\n", "FRAME Ixyz Xparam\n", 17, 17, 8, F420, 3);
    y4m_case("YUV4MPEG2 W17 H17 C420jpeg\n", "FRAME \n", 17, 17, 8, F420, 3);
    y4m_case("YUV4MPEG2 W1 H1 C420jpeg\n", NULL, 1, 1, 8, F420, 3);
    y4m_case("YUV4MPEG2 W16384 H1 C444p16\n", NULL, 16384, 1, 16, F444, 3);

    /* FIFOs: raw and Y4M, complete and truncated, with skipping by reading */
    const Geo k8 = { F420, 8, 257, 145 }, k10 = { F420, 10, 257, 145 };
    fifo_case(&k8, NULL, 4, 0, 0, "fifo raw");
    fifo_case(&k10, NULL, 4, 0, 1, "fifo raw skip");
    fifo_case(&k8, NULL, 3, 7, 0, "fifo raw truncated");
    fifo_case(&k10, "YUV4MPEG2 W257 H145 C420p10\n", 4, 0, 1, "fifo y4m skip");
    fifo_case(&k8, "YUV4MPEG2 W257 H145 C420jpeg\n", 3, 1, 0, "fifo y4m truncated");
    fifo_case(&k8, "YUV4MPEG2 W257 H145 C420jpeg\n", 3, frame_size(&k8) + 2, 1,
              "fifo y4m truncated FRAME");

    error_tests();

    fprintf(stderr, "test_video_input: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
