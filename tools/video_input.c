/*
 * Twin VMAF — raw YUV and Y4M input readers (see video_input.h).
 *
 * Both formats share one reader: a buffered stdio stream, a per-plane geometry table (file
 * planes ceil-sized, picture planes floor-sized) and a frame-header hook for Y4M. Planes are read
 * straight into the picture: one fread per plane when the picture rows are contiguous and the
 * file has no extra chroma column, else one fread per row; the extra column/row of odd-size
 * chroma is consumed from the stream buffer and dropped.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "video_input.h"
#include "sample_range.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define VI_MAX_DIM 16384u            /* largest accepted width or height */
/* stdio buffer. Large plane reads bypass it (glibc reads them straight into the picture); it
 * serves the row-by-row path and Y4M FRAME lines. On 1080p from the page cache 32-128 KiB
 * is best; 1 MiB is ~15% slower and 4 MiB ~35% slower (the buffer leaves L2). To re-measure:
 * bench/bench_cli on a Y4M clip, rebuilt with another VI_STDIO_BUF. */
#define VI_STDIO_BUF (1u << 16)
#define VI_Y4M_HEADER_MAX 4096u      /* stream header line, including the newline */
#define VI_Y4M_FRAME_HEADER_MAX 1024u /* FRAME line, including the newline */
#define VI_SCRATCH 4096u             /* discard buffer */

struct VideoInput {
    FILE *f;
    char *vbuf;
    char *path;
    VideoInfo info;
    int y4m;
    int regular;              /* regular file: size known, seekable */
    off_t file_size;          /* regular files only */
    unsigned nplanes;
    unsigned bps;             /* bytes per sample */
    unsigned pic_bpc;         /* depth of the pictures read into (the stream's unless set) */
    unsigned fw[3], fh[3];    /* plane size in the file (ceil-sized chroma) */
    unsigned pw[3], ph[3];    /* plane size in the picture (floor-sized chroma) */
    uint64_t frame_bytes;     /* payload bytes of one frame (no Y4M FRAME header) */
    uint64_t frame_idx;       /* index of the next frame */
    uint64_t raw_frames;      /* raw regular files: number of frames in the file */
    /* Y4M regular files whose frames all start with a bare "FRAME\n" (checked for the first
     * and the last frame at open, and for each frame when it is read): read_at works */
    int y4m_fixed;
    off_t y4m_data;           /* offset of the first FRAME header */
    uint64_t y4m_frames;
    unsigned fps_num, fps_den; /* Y4M F tag; fps_den 0: unknown */
    unsigned char scratch[VI_SCRATCH];
};

/* ------------------------------------------------------------------------------------------ */

static void set_err(char *err, size_t err_sz, const char *fmt, ...)
{
    if (!err || !err_sz)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_sz, fmt, ap);
    va_end(ap);
    /* one line: a path with a newline in it must not break the message */
    for (char *p = err; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

static int host_is_big_endian(void)
{
    const union { uint16_t u; unsigned char c[2]; } x = { 1 };
    return x.c[0] == 0;
}

static void swap16(void *p, size_t n)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++, b += 2) {
        const unsigned char t = b[0];
        b[0] = b[1];
        b[1] = t;
    }
}

static const char *fmt_name(enum VmafPixelFormat f)
{
    switch (f) {
    case VMAF_PIX_FMT_YUV420P: return "420p";
    case VMAF_PIX_FMT_YUV422P: return "422p";
    case VMAF_PIX_FMT_YUV444P: return "444p";
    case VMAF_PIX_FMT_YUV400P: return "400p";
    default:                   return "unknown";
    }
}

/* Fills the plane tables and frame size from in->info (already validated). */
static void setup_geometry(VideoInput *in)
{
    const VideoInfo *i = &in->info;
    unsigned ssx = 0, ssy = 0;
    in->nplanes = 3;
    switch (i->pix_fmt) {
    case VMAF_PIX_FMT_YUV420P: ssx = ssy = 1; break;
    case VMAF_PIX_FMT_YUV422P: ssx = 1; break;
    case VMAF_PIX_FMT_YUV444P: break;
    default: in->nplanes = 1; break;
    }
    in->bps = i->bpc > 8 ? 2 : 1;
    in->fw[0] = in->pw[0] = i->w;
    in->fh[0] = in->ph[0] = i->h;
    for (unsigned p = 1; p < 3; p++) {
        if (p < in->nplanes) {
            in->fw[p] = (i->w + ssx) >> ssx;
            in->fh[p] = (i->h + ssy) >> ssy;
            in->pw[p] = i->w >> ssx;
            in->ph[p] = i->h >> ssy;
        } else {
            in->fw[p] = in->fh[p] = in->pw[p] = in->ph[p] = 0;
        }
    }
    uint64_t sz = 0;
    for (unsigned p = 0; p < in->nplanes; p++)
        sz += (uint64_t)in->fw[p] * in->fh[p] * in->bps;
    in->frame_bytes = sz;
}

static int check_info(const VideoInfo *i, const char *path, int raw, char *err, size_t err_sz)
{
    const char *what = raw ? "" : "Y4M header: ";
    if (!i->w || !i->h || i->w > VI_MAX_DIM || i->h > VI_MAX_DIM) {
        set_err(err, err_sz, "%s: %sframe size %ux%u is out of range (1..%u each)",
                path, what, i->w, i->h, VI_MAX_DIM);
        return -EINVAL;
    }
    if (i->bpc < 8 || i->bpc > 16) {
        set_err(err, err_sz, "%s: %sbit depth %u is not supported (8..16)", path, what, i->bpc);
        return -EINVAL;
    }
    switch (i->pix_fmt) {
    case VMAF_PIX_FMT_YUV420P:
    case VMAF_PIX_FMT_YUV422P:
    case VMAF_PIX_FMT_YUV444P:
    case VMAF_PIX_FMT_YUV400P:
        break;
    default:
        set_err(err, err_sz, "%s: %spixel format %d is not supported (420, 422, 444 or 400)",
                path, what, (int)i->pix_fmt);
        return -EINVAL;
    }
    return 0;
}

/* Describes the end of a short read: read error (with errno) or truncation. */
static int short_read(VideoInput *in, const char *what, char *err, size_t err_sz)
{
    if (ferror(in->f)) {
        const int e = errno ? errno : EIO;
        set_err(err, err_sz, "%s: read error in %s %" PRIu64 ": %s",
                in->path, what, in->frame_idx, strerror(e));
        return -e;
    }
    set_err(err, err_sz, "%s: truncated %s %" PRIu64, in->path, what, in->frame_idx);
    return -EIO;
}

/* Reads exactly n bytes into dst; 0 on success, else an error from short_read(). */
static int read_exact(VideoInput *in, void *dst, size_t n, char *err, size_t err_sz)
{
    errno = 0;
    if (fread(dst, 1, n, in->f) == n)
        return 0;
    return short_read(in, "frame", err, err_sz);
}

/* Consumes n bytes by reading (works on pipes and detects truncation). */
static int discard(VideoInput *in, uint64_t n, char *err, size_t err_sz)
{
    while (n) {
        const size_t k = n < sizeof(in->scratch) ? (size_t)n : sizeof(in->scratch);
        int r = read_exact(in, in->scratch, k, err, err_sz);
        if (r)
            return r;
        n -= k;
    }
    return 0;
}

/* 1: a byte is available, 0: clean end of file, <0: read error. */
static int peek_more(VideoInput *in, char *err, size_t err_sz)
{
    errno = 0;
    const int c = getc(in->f);
    if (c == EOF) {
        if (ferror(in->f)) {
            const int e = errno ? errno : EIO;
            set_err(err, err_sz, "%s: read error before frame %" PRIu64 ": %s",
                    in->path, in->frame_idx, strerror(e));
            return -e;
        }
        return 0;
    }
    ungetc(c, in->f);
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Y4M headers                                                                                 */

static int parse_dim(const char *s, size_t n, unsigned *out)
{
    if (!n || n > 9)
        return -1;
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return 0;
}

/* "n:d" with nonnegative decimal integers, into *a and *b */
static int parse_ratio(const char *s, size_t n, unsigned *a, unsigned *b)
{
    const char *colon = memchr(s, ':', n);
    if (!colon)
        return -1;
    const size_t l = (size_t)(colon - s);
    return parse_dim(s, l, a) || parse_dim(colon + 1, n - l - 1, b) ? -1 : 0;
}

static int tok_eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && !memcmp(s, lit, n);
}

/* Parses a Y4M colorspace (text after 'C'). 0, -EINVAL (unknown) or -ENOTSUP (known, rejected). */
static int parse_colorspace(const char *s, size_t n, VideoInfo *info, const char **why)
{
    *why = NULL;
    if (tok_eq(s, n, "420jpeg") || tok_eq(s, n, "420mpeg2") || tok_eq(s, n, "420paldv") ||
        tok_eq(s, n, "420")) {
        info->pix_fmt = VMAF_PIX_FMT_YUV420P;
        info->bpc = 8;
        return 0;
    }
    if (tok_eq(s, n, "422")) {
        info->pix_fmt = VMAF_PIX_FMT_YUV422P;
        info->bpc = 8;
        return 0;
    }
    if (tok_eq(s, n, "444")) {
        info->pix_fmt = VMAF_PIX_FMT_YUV444P;
        info->bpc = 8;
        return 0;
    }
    if (tok_eq(s, n, "mono")) {
        info->pix_fmt = VMAF_PIX_FMT_YUV400P;
        info->bpc = 8;
        return 0;
    }
    if (tok_eq(s, n, "411")) {
        *why = "4:1:1 chroma subsampling";
        return -ENOTSUP;
    }
    if (tok_eq(s, n, "444alpha")) {
        *why = "alpha channel";
        return -ENOTSUP;
    }
    /* 420pN, 422pN, 444pN, monoN with N = 9..16 */
    enum VmafPixelFormat f = VMAF_PIX_FMT_UNKNOWN;
    size_t k = 0;
    if (n > 4 && (!memcmp(s, "420p", 4) || !memcmp(s, "422p", 4) || !memcmp(s, "444p", 4))) {
        f = s[1] == '2' ? (s[2] == '0' ? VMAF_PIX_FMT_YUV420P : VMAF_PIX_FMT_YUV422P)
                        : VMAF_PIX_FMT_YUV444P;
        k = 4;
    } else if (n > 4 && !memcmp(s, "mono", 4)) {
        f = VMAF_PIX_FMT_YUV400P;
        k = 4;
    }
    unsigned bits;
    if (f != VMAF_PIX_FMT_UNKNOWN && !parse_dim(s + k, n - k, &bits) && s[k] != '0' &&
        bits >= 9 && bits <= 16) {
        info->pix_fmt = f;
        info->bpc = bits;
        return 0;
    }
    return -EINVAL;
}

static int y4m_parse_header(VideoInput *in, char *err, size_t err_sz)
{
    char line[VI_Y4M_HEADER_MAX + 1];
    static const char magic[] = "YUV4MPEG2";
    const size_t mlen = sizeof(magic) - 1;
    size_t len = 0;
    int c = 0;

    errno = 0;
    while (len < VI_Y4M_HEADER_MAX && (c = getc(in->f)) != EOF && c != '\n') {
        line[len++] = (char)c;
        if (len <= mlen && line[len - 1] != magic[len - 1])
            break; /* not Y4M: don't read on */
    }
    if (c == EOF && ferror(in->f)) {
        const int e = errno ? errno : EIO;
        set_err(err, err_sz, "%s: read error in the Y4M header: %s", in->path, strerror(e));
        return -e;
    }
    if (len == 0 && c == EOF) {
        set_err(err, err_sz, "%s: empty file (no Y4M header)", in->path);
        return -EINVAL;
    }
    if (len < mlen || memcmp(line, magic, mlen) || (len > mlen && line[mlen] != ' ')) {
        set_err(err, err_sz, "%s: not a Y4M file (no YUV4MPEG2 signature); "
                "for raw YUV give --width, --height, --pixel_format and --bitdepth", in->path);
        return -EINVAL;
    }
    if (c == EOF) {
        set_err(err, err_sz, "%s: truncated Y4M header (end of file before the newline)",
                in->path);
        return -EINVAL;
    }
    if (c != '\n') {
        set_err(err, err_sz, "%s: Y4M header longer than %u bytes without a newline",
                in->path, VI_Y4M_HEADER_MAX);
        return -EINVAL;
    }
    /* name the real problem, not the tag it happens to end up in */
    const char *nul = memchr(line, '\0', len);
    if (nul) {
        set_err(err, err_sz, "%s: Y4M header holds a NUL byte (at byte %zu)", in->path,
                (size_t)(nul - line));
        return -EINVAL;
    }
    if (line[len - 1] == '\r') {
        set_err(err, err_sz, "%s: Y4M header ends with CR LF (a DOS line ending); Y4M lines "
                "end with LF only", in->path);
        return -EINVAL;
    }
    line[len] = '\0';

    VideoInfo info = { 0, 0, 8, VMAF_PIX_FMT_YUV420P };
    int got_w = 0, got_h = 0;
    for (size_t p = mlen; p < len;) {
        if (line[p] == ' ') {
            p++;
            continue;
        }
        size_t q = p;
        while (q < len && line[q] != ' ')
            q++;
        const char *t = line + p, *v = line + p + 1;
        const size_t tn = q - p, vn = tn - 1;
        const int tw = tn > 40 ? 40 : (int)tn; /* token width in messages */
        switch (t[0]) {
        case 'W':
        case 'H': {
            unsigned d;
            if (parse_dim(v, vn, &d) || !d || d > VI_MAX_DIM) {
                set_err(err, err_sz, "%s: Y4M header: bad %s '%.*s' (must be 1..%u)", in->path,
                        t[0] == 'W' ? "width" : "height", tw, t, VI_MAX_DIM);
                return -EINVAL;
            }
            if (t[0] == 'W') {
                info.w = d;
                got_w = 1;
            } else {
                info.h = d;
                got_h = 1;
            }
            break;
        }
        case 'F':
        case 'A': {
            unsigned a, b;
            if (parse_ratio(v, vn, &a, &b)) {
                set_err(err, err_sz, "%s: Y4M header: bad %s '%.*s' (expected %c<n>:<d>)",
                        in->path, t[0] == 'F' ? "frame rate" : "aspect ratio", tw, t, t[0]);
                return -EINVAL;
            }
            if (t[0] == 'F' && a && b) { /* F0:0 and the like: unknown */
                in->fps_num = a;
                in->fps_den = b;
            }
            break;
        }
        case 'I':
            if (vn != 1 || !strchr("ptbm?", v[0])) {
                set_err(err, err_sz, "%s: Y4M header: bad interlacing '%.*s' "
                        "(expected Ip, It, Ib, Im or I?)", in->path, tw, t);
                return -EINVAL;
            }
            break; /* interlaced frames are read as woven progressive frames */
        case 'C': {
            const char *why;
            const int r = parse_colorspace(v, vn, &info, &why);
            if (r == -ENOTSUP) {
                set_err(err, err_sz, "%s: Y4M colorspace '%.*s' is not supported (%s)",
                        in->path, tw, t, why);
                return r;
            }
            if (r) {
                set_err(err, err_sz, "%s: Y4M header: unknown colorspace '%.*s' (supported: "
                        "420jpeg, 420mpeg2, 420paldv, 420, 422, 444, mono, "
                        "420pN, 422pN, 444pN, monoN with N = 9..16)", in->path, tw, t);
                return r;
            }
            break;
        }
        case 'X':
            break;
        default:
            if (t[0] >= 'A' && t[0] <= 'Z')
                break; /* unknown tag: ignored, as the format asks */
            set_err(err, err_sz, "%s: Y4M header: malformed tag '%.*s'", in->path, tw, t);
            return -EINVAL;
        }
        p = q;
    }
    if (!got_w || !got_h) {
        set_err(err, err_sz, "%s: Y4M header: missing %s", in->path,
                !got_w && !got_h ? "width and height (W and H tags)" :
                !got_w ? "width (W tag)" : "height (H tag)");
        return -EINVAL;
    }
    in->info = info;
    return 0;
}

/* Reads a FRAME line. 1: frame follows, 0: clean end of file, <0: error. */
static int y4m_frame_header(VideoInput *in, char *err, size_t err_sz)
{
    static const char magic[] = "FRAME";
    size_t len = 0;
    int c;
    errno = 0;
    while ((c = getc(in->f)) != EOF) {
        if (c == '\n') {
            if (len < 5)
                goto bad;
            return 1;
        }
        if (len < 5 ? c != magic[len] : (len == 5 && c != ' '))
            goto bad;
        if (++len >= VI_Y4M_FRAME_HEADER_MAX) {
            set_err(err, err_sz, "%s: FRAME header of frame %" PRIu64
                    " is longer than %u bytes", in->path, in->frame_idx,
                    VI_Y4M_FRAME_HEADER_MAX);
            return -EINVAL;
        }
    }
    if (ferror(in->f))
        return short_read(in, "FRAME header of frame", err, err_sz);
    if (len == 0)
        return 0;
    set_err(err, err_sz, "%s: truncated frame %" PRIu64 " (end of file in its FRAME header)",
            in->path, in->frame_idx);
    return -EIO;
bad:
    if (c == '\r')
        set_err(err, err_sz, "%s: FRAME header of frame %" PRIu64 " ends with CR LF (a DOS "
                "line ending); Y4M lines end with LF only", in->path, in->frame_idx);
    else
        set_err(err, err_sz, "%s: bad FRAME header at frame %" PRIu64
                " (expected \"FRAME\" and a newline)", in->path, in->frame_idx);
    return -EINVAL;
}

/* Whether every frame of a regular Y4M file is "FRAME\n" + payload, so that frame k is at a
 * computed offset: the data after the header must be a whole number of such frames, and the
 * first and the last of them must start with a bare FRAME line. */
static void y4m_check_fixed(VideoInput *in)
{
    const off_t start = ftello(in->f);
    const uint64_t stride = 6 + in->frame_bytes;
    if (start < 0 || in->file_size <= start || (uint64_t)(in->file_size - start) % stride)
        return;
    const uint64_t n = (uint64_t)(in->file_size - start) / stride;
    char a[6], b[6];
    const int fd = fileno(in->f);
    if (pread(fd, a, 6, start) != 6 || pread(fd, b, 6, start + (off_t)((n - 1) * stride)) != 6)
        return;
    if (memcmp(a, "FRAME\n", 6) || memcmp(b, "FRAME\n", 6))
        return;
    in->y4m_fixed = 1;
    in->y4m_data = start;
    in->y4m_frames = n;
}

/* 1: a frame follows, 0: clean end of file, <0: error. */
static int next_frame(VideoInput *in, char *err, size_t err_sz)
{
    if (in->y4m)
        return y4m_frame_header(in, err, err_sz);
    if (in->regular && in->frame_idx >= in->raw_frames)
        return 0;
    return peek_more(in, err, err_sz);
}

/* ------------------------------------------------------------------------------------------ */

int video_input_open(VideoInput **out, const char *path, const VideoInfo *raw,
                     char *err, size_t err_sz)
{
    if (err && err_sz)
        err[0] = '\0';
    if (!out || !path) {
        set_err(err, err_sz, "video_input_open: no %s", out ? "path" : "output pointer");
        return -EINVAL;
    }
    if (raw) {
        const int r = check_info(raw, path, 1, err, err_sz);
        if (r)
            return r;
    }

    VideoInput *in = calloc(1, sizeof(*in));
    if (!in) {
        set_err(err, err_sz, "%s: out of memory", path);
        return -ENOMEM;
    }
    int r;
    const size_t plen = strlen(path);
    in->path = malloc(plen + 1);
    in->vbuf = malloc(VI_STDIO_BUF);
    if (!in->path || !in->vbuf) {
        set_err(err, err_sz, "%s: out of memory", path);
        r = -ENOMEM;
        goto fail;
    }
    memcpy(in->path, path, plen + 1);

    errno = 0;
    in->f = fopen(path, "rb");
    if (!in->f) {
        r = errno ? -errno : -EIO;
        set_err(err, err_sz, "%s: cannot open: %s", path, strerror(-r));
        goto fail;
    }
    setvbuf(in->f, in->vbuf, _IOFBF, VI_STDIO_BUF);

    struct stat st;
    if (fstat(fileno(in->f), &st)) {
        r = errno ? -errno : -EIO;
        set_err(err, err_sz, "%s: cannot stat: %s", path, strerror(-r));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        set_err(err, err_sz, "%s: is a directory", path);
        r = -EISDIR;
        goto fail;
    }
    in->regular = S_ISREG(st.st_mode);
    if (in->regular) /* advisory: larger readahead for cold files; failure is harmless */
        (void)posix_fadvise(fileno(in->f), 0, 0, POSIX_FADV_SEQUENTIAL);
    in->file_size = st.st_size;

    if (raw) {
        in->info = *raw;
        setup_geometry(in);
        if (in->regular) {
            if (st.st_size == 0) {
                set_err(err, err_sz, "%s: empty file (no frames)", path);
                r = -EINVAL;
                goto fail;
            }
            if ((uint64_t)st.st_size % in->frame_bytes) {
                set_err(err, err_sz, "%s: file size %lld is not a multiple of the frame size "
                        "%" PRIu64 " (%ux%u %s %u-bit)", path, (long long)st.st_size,
                        in->frame_bytes, in->info.w, in->info.h, fmt_name(in->info.pix_fmt),
                        in->info.bpc);
                r = -EINVAL;
                goto fail;
            }
            in->raw_frames = (uint64_t)st.st_size / in->frame_bytes;
        }
    } else {
        in->y4m = 1;
        r = y4m_parse_header(in, err, err_sz);
        if (r)
            goto fail;
        r = check_info(&in->info, path, 0, err, err_sz);
        if (r)
            goto fail;
        setup_geometry(in);
        if (in->regular)
            y4m_check_fixed(in);
    }

    r = peek_more(in, err, err_sz);
    if (r < 0)
        goto fail;
    if (r == 0) {
        set_err(err, err_sz, "%s: no frames%s", path, in->y4m ? " after the Y4M header" : "");
        r = -EINVAL;
        goto fail;
    }
    *out = in;
    return 0;

fail:
    video_input_close(in);
    return r;
}

void video_input_info(const VideoInput *in, VideoInfo *info)
{
    if (!info)
        return;
    if (!in) {
        memset(info, 0, sizeof(*info));
        return;
    }
    *info = in->info;
}

static int check_picture(const VideoInput *in, const VmafPicture *pic, char *err, size_t err_sz)
{
    const VideoInfo *i = &in->info;
    const unsigned want_bpc = in->pic_bpc ? in->pic_bpc : i->bpc;
    if (!pic || pic->pix_fmt != i->pix_fmt || pic->bpc != want_bpc) {
        set_err(err, err_sz, "%s: picture does not match the input (%ux%u %s %u-bit)",
                in->path, i->w, i->h, fmt_name(i->pix_fmt), i->bpc);
        return -EINVAL;
    }
    const size_t pic_bps = pic->bpc > 8 ? 2 : 1;
    for (unsigned p = 0; p < in->nplanes; p++) {
        const size_t row = (size_t)in->pw[p] * pic_bps;
        if (pic->w[p] != in->pw[p] || pic->h[p] != in->ph[p] ||
            (row && in->ph[p] && (!pic->data[p] || pic->stride[p] < (ptrdiff_t)row))) {
            set_err(err, err_sz, "%s: picture plane %u does not match the input "
                    "(%ux%u %s %u-bit)", in->path, p, i->w, i->h, fmt_name(i->pix_fmt), i->bpc);
            return -EINVAL;
        }
    }
    return 0;
}

/* Rows y0 .. y0 + n of plane p of frame `frame`, at dst: -EINVAL with a message naming file,
 * frame, plane and position (in the plane) when a sample is above the depth's maximum. */
static int scan_rows(const VideoInput *in, uint64_t frame, unsigned p, const unsigned char *dst,
                     ptrdiff_t stride, unsigned y0, unsigned n, char *err, size_t err_sz)
{
    VmafSampleRangeError e;
    if (!vmaf_sample_range_scan(dst, stride, in->pw[p], n, in->info.bpc, &e))
        return 0;
    static const char *const plane_name[3] = { "Y", "U", "V" };
    set_err(err, err_sz, "%s: frame %" PRIu64 ", plane %u (%s): sample %u at x=%u, y=%u is "
            "above the %u-bit maximum %u", in->path, frame, p, plane_name[p], e.value, e.x,
            e.y + y0, in->info.bpc, (1u << in->info.bpc) - 1);
    return -EINVAL;
}

static int read_plane(VideoInput *in, unsigned p, unsigned char *dst, ptrdiff_t stride,
                      char *err, size_t err_sz)
{
    const size_t row = (size_t)in->pw[p] * in->bps;
    const size_t frow = (size_t)in->fw[p] * in->bps;
    const unsigned h = in->ph[p];
    int r;

    if (!row || !h) /* nothing to keep (e.g. 1-pixel-wide 4:2:x): drop the whole plane */
        return discard(in, (uint64_t)frow * in->fh[p], err, err_sz);

    if (row == frow && stride == (ptrdiff_t)row) {
        if ((r = read_exact(in, dst, row * h, err, err_sz)))
            return r;
        if (in->bps == 2 && host_is_big_endian())
            swap16(dst, row * h / 2);
    } else {
        for (unsigned y = 0; y < h; y++) {
            unsigned char *d = dst + (ptrdiff_t)y * stride;
            if ((r = read_exact(in, d, row, err, err_sz)))
                return r;
            if (frow > row && (r = read_exact(in, in->scratch, frow - row, err, err_sz)))
                return r;
            if (in->bps == 2 && host_is_big_endian())
                swap16(d, row / 2);
        }
    }
    /* out-of-range samples would give wrong scores: refused while the plane is in cache */
    if ((r = scan_rows(in, in->frame_idx, p, dst, stride, 0, h, err, err_sz)))
        return r;
    if (in->fh[p] > h)
        return discard(in, (uint64_t)frow * (in->fh[p] - h), err, err_sz);
    return 0;
}

/* A plane read into a deeper picture: little-endian samples << shift, as uint16. */
static int read_plane_widened(VideoInput *in, unsigned p, unsigned char *dst, ptrdiff_t stride,
                              unsigned shift, char *err, size_t err_sz)
{
    const size_t n = in->pw[p], bps = in->bps;
    const size_t frow = (size_t)in->fw[p] * bps;
    const unsigned h = in->ph[p];
    int r;
    if (!n || !h) return discard(in, (uint64_t)frow * in->fh[p], err, err_sz);
    for (unsigned y = 0; y < h; y++) {
        uint16_t *d = (uint16_t *)(dst + (ptrdiff_t)y * stride);
        for (size_t done = 0; done < n;) {
            const size_t k = n - done < VI_SCRATCH / bps ? n - done : VI_SCRATCH / bps;
            if ((r = read_exact(in, in->scratch, k * bps, err, err_sz))) return r;
            const unsigned char *b = in->scratch;
            for (size_t t = 0; t < k; t++) {
                const unsigned v = bps == 1 ? b[t] : (unsigned)b[2 * t] | (unsigned)b[2 * t + 1] << 8;
                d[done + t] = (uint16_t)(v << shift);
            }
            done += k;
        }
        if (frow > n * bps && (r = discard(in, frow - n * bps, err, err_sz))) return r;
    }
    if (in->fh[p] > h) return discard(in, (uint64_t)frow * (in->fh[p] - h), err, err_sz);
    return 0;
}

int video_input_set_picture_depth(VideoInput *in, unsigned bpc)
{
    if (!in || bpc < in->info.bpc || bpc > 16) return -EINVAL;
    in->pic_bpc = bpc;
    return 0;
}

int video_input_read(VideoInput *in, VmafPicture *pic, char *err, size_t err_sz)
{
    if (err && err_sz)
        err[0] = '\0';
    if (!in) {
        set_err(err, err_sz, "video_input_read: no input");
        return -EINVAL;
    }
    int r = check_picture(in, pic, err, err_sz);
    if (r)
        return r;
    r = next_frame(in, err, err_sz);
    if (r <= 0)
        return r;
    const unsigned shift = pic->bpc - in->info.bpc;
    for (unsigned p = 0; p < in->nplanes; p++) {
        r = shift ? read_plane_widened(in, p, pic->data[p], pic->stride[p], shift, err, err_sz)
                  : read_plane(in, p, pic->data[p], pic->stride[p], err, err_sz);
        if (r)
            return r;
    }
    in->frame_idx++;
    return 1;
}

int video_input_skip(VideoInput *in, unsigned n, char *err, size_t err_sz)
{
    if (err && err_sz)
        err[0] = '\0';
    if (!in) {
        set_err(err, err_sz, "video_input_skip: no input");
        return -EINVAL;
    }
    if (n > INT_MAX)
        n = INT_MAX;

    if (!in->y4m && in->regular) {
        const uint64_t left = in->raw_frames - in->frame_idx;
        const uint64_t k = n < left ? n : left;
        if (k && fseeko(in->f, (off_t)(k * in->frame_bytes), SEEK_CUR)) {
            const int e = errno ? errno : EIO;
            set_err(err, err_sz, "%s: cannot seek past frame %" PRIu64 ": %s",
                    in->path, in->frame_idx, strerror(e));
            return -e;
        }
        in->frame_idx += k;
        return (int)k;
    }

    unsigned done = 0;
    for (; done < n; done++) {
        int r = next_frame(in, err, err_sz);
        if (r < 0)
            return r;
        if (r == 0)
            break;
        if (in->regular) { /* Y4M regular file: seek over the payload */
            if (fseeko(in->f, (off_t)in->frame_bytes, SEEK_CUR)) {
                const int e = errno ? errno : EIO;
                set_err(err, err_sz, "%s: cannot seek past frame %" PRIu64 ": %s",
                        in->path, in->frame_idx, strerror(e));
                return -e;
            }
            const off_t pos = ftello(in->f);
            if (pos < 0 || pos > in->file_size) {
                set_err(err, err_sz, "%s: truncated frame %" PRIu64, in->path, in->frame_idx);
                return -EIO;
            }
        } else if ((r = discard(in, in->frame_bytes, err, err_sz))) {
            return r;
        }
        in->frame_idx++;
    }
    return (int)done;
}

int video_input_can_read_at(const VideoInput *in)
{
    /* pictures deeper than the file (mixed-depth presets) are widened in order only */
    const int widened = in && in->pic_bpc && in->pic_bpc != in->info.bpc;
    return in && in->regular && (!in->y4m || in->y4m_fixed) && !widened;
}

int video_input_frames_known(const VideoInput *in, unsigned long long *frames)
{
    if (!in || !frames || !in->regular || (in->y4m && !in->y4m_fixed))
        return 0;
    *frames = in->y4m ? in->y4m_frames : in->raw_frames;
    return 1;
}

unsigned long long video_input_next_index(const VideoInput *in)
{
    return in ? in->frame_idx : 0;
}

/* pread exactly n bytes at off; 0, or an error naming the frame. */
static int pread_exact(const VideoInput *in, void *dst, size_t n, off_t off,
                       unsigned long long index, char *err, size_t err_sz)
{
    const int fd = fileno(in->f);
    unsigned char *d = dst;
    while (n) {
        const ssize_t got = pread(fd, d, n, off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            const int e = got < 0 ? errno : EIO;
            if (got < 0)
                set_err(err, err_sz, "%s: read error in frame %llu: %s", in->path, index,
                        strerror(e));
            else
                set_err(err, err_sz, "%s: truncated frame %llu", in->path, index);
            return -e;
        }
        d += got;
        off += got;
        n -= (size_t)got;
    }
    return 0;
}

unsigned video_input_plane_rows(const VideoInput *in, unsigned rows[3], size_t row_bytes[3])
{
    for (unsigned p = 0; p < 3; p++) {
        const int kept = p < in->nplanes && in->pw[p] && in->ph[p];
        rows[p] = kept ? in->ph[p] : 0;
        row_bytes[p] = kept ? (size_t)in->fw[p] * in->bps : 0;
    }
    return in->nplanes;
}

int video_input_read_rows_at(VideoInput *in, unsigned long long index, VmafPicture *pic,
                             unsigned p, unsigned y0, unsigned y1, char *err, size_t err_sz)
{
    if (err && err_sz)
        err[0] = '\0';
    if (!video_input_can_read_at(in)) {
        set_err(err, err_sz, "video_input_read_at: %s",
                in ? "frames of this input cannot be read at an index" : "no input");
        return -EINVAL;
    }
    if (p >= in->nplanes || y0 > y1 || y1 > in->ph[p]) {
        set_err(err, err_sz, "%s: no rows %u..%u in plane %u", in->path, y0, y1, p);
        return -EINVAL;
    }
    int r = check_picture(in, pic, err, err_sz);
    if (r)
        return r;
    off_t off;
    if (in->y4m) {
        if (index >= in->y4m_frames)
            return 0;
        off = in->y4m_data + (off_t)(index * (6 + in->frame_bytes));
        if (p == 0 && y0 == 0) { /* the frame's first rows check its FRAME line */
            char hdr[6];
            r = pread_exact(in, hdr, 6, off, index, err, err_sz);
            if (r)
                return r;
            if (memcmp(hdr, "FRAME\n", 6)) {
                set_err(err, err_sz, "%s: bad FRAME header at frame %llu (expected a bare "
                        "\"FRAME\" line like every other frame of this file)", in->path, index);
                return -EINVAL;
            }
        }
        off += 6;
    } else {
        if (index >= in->raw_frames)
            return 0;
        off = (off_t)(index * in->frame_bytes);
    }
    for (unsigned q = 0; q < p; q++)
        off += (off_t)((uint64_t)in->fw[q] * in->bps * in->fh[q]);
    const size_t row = (size_t)in->pw[p] * in->bps;
    const size_t frow = (size_t)in->fw[p] * in->bps;
    if (!row || y0 == y1)
        return 1;
    off += (off_t)((uint64_t)y0 * frow);
    const ptrdiff_t stride = pic->stride[p];
    unsigned char *dst = (unsigned char *)pic->data[p] + (ptrdiff_t)y0 * stride;
    const unsigned n = y1 - y0;
    if (row == frow && stride == (ptrdiff_t)row) {
        r = pread_exact(in, dst, row * n, off, index, err, err_sz);
    } else {
        for (unsigned y = 0; !r && y < n; y++)
            r = pread_exact(in, dst + (ptrdiff_t)y * stride, row, off + (off_t)(y * frow), index,
                            err, err_sz);
    }
    if (r)
        return r;
    if (in->bps == 2 && host_is_big_endian())
        for (unsigned y = 0; y < n; y++)
            swap16(dst + (ptrdiff_t)y * stride, row / 2);
    /* out-of-range samples would give wrong scores (as read_plane refuses them) */
    r = scan_rows(in, index, p, dst, stride, y0, n, err, err_sz);
    return r ? r : 1;
}

int video_input_read_at(VideoInput *in, unsigned long long index, VmafPicture *pic, char *err,
                        size_t err_sz)
{
    const unsigned planes = in && video_input_can_read_at(in) ? in->nplanes : 1;
    for (unsigned p = 0; p < planes; p++) {
        const int r = video_input_read_rows_at(in, index, pic, p, 0, in ? in->ph[p] : 0, err,
                                               err_sz);
        if (r != 1)
            return r;
    }
    return 1;
}

int video_input_frame_rate(const VideoInput *in, unsigned *num, unsigned *den)
{
    if (!in->fps_den)
        return 0;
    *num = in->fps_num;
    *den = in->fps_den;
    return 1;
}

const char *video_input_path(const VideoInput *in)
{
    return in ? in->path : "";
}

void video_input_close(VideoInput *in)
{
    if (!in)
        return;
    if (in->f)
        fclose(in->f);
    free(in->vbuf);
    free(in->path);
    free(in);
}
