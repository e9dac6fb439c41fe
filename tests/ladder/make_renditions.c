/*
 * make_renditions: three deterministic renditions of a raw YUV clip, the distorted files of
 * the ladder tests (ladder_test.sh, ladder_errors.sh).
 *
 *   make_renditions IN WIDTH HEIGHT 420|422|444 BITDEPTH FRAMES BLUR NOISE QUANT
 *
 * IN holds planar frames (Y, U, V), one byte a sample at 8 bits, a little-endian 16-bit word
 * above; BITDEPTH is 8..16, and IN must be a whole number of frames, at least FRAMES. The
 * first FRAMES frames are written, each plane as:
 *   BLUR   [1 2 1]/4 horizontally then vertically, edges repeated, rounded to nearest;
 *   NOISE  plus a uniform integer in [-A, A], A = 3 << (BITDEPTH - 8), from a fixed seed,
 *          clamped to [0, 2^BITDEPTH - 1];
 *   QUANT  rounded to the nearest multiple of 2^(BITDEPTH - 5), clamped likewise.
 * Input samples above 2^BITDEPTH - 1 are clamped first. Bad arguments: one line on stderr and
 * exit status 2; an I/O error: one line and exit status 1.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { BLUR, NOISE, QUANT, N_OUT };

typedef struct Clip {
    unsigned w, h, bpc, frames;
    unsigned pw[3], ph[3]; /* plane sizes */
    size_t bytes;          /* bytes per sample */
    size_t frame_bytes;
    unsigned max;
    uint64_t rng;
} Clip;

/* A whole decimal number in [lo, hi], or -EINVAL. */
static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    errno = 0;
    const unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || errno || *s == '-' || v < lo || v > hi) return -EINVAL;
    *out = (unsigned)v;
    return 0;
}

/* xorshift64*: the same stream on every platform */
static uint32_t next_rand(Clip *c)
{
    c->rng ^= c->rng >> 12;
    c->rng ^= c->rng << 25;
    c->rng ^= c->rng >> 27;
    return (uint32_t)((c->rng * 2685821657736338717ull) >> 32);
}

static unsigned clamp(long v, unsigned max)
{
    return v < 0 ? 0 : v > (long)max ? max : (unsigned)v;
}

static unsigned get(const Clip *c, const uint8_t *p, size_t i)
{
    const unsigned v = c->bytes == 1 ? p[i] : (unsigned)p[2 * i] | (unsigned)p[2 * i + 1] << 8;
    return v > c->max ? c->max : v;
}

static void put(const Clip *c, uint8_t *p, size_t i, unsigned v)
{
    if (c->bytes == 1) {
        p[i] = (uint8_t)v;
    } else {
        p[2 * i] = (uint8_t)(v & 0xff);
        p[2 * i + 1] = (uint8_t)(v >> 8);
    }
}

/* One plane of w x h samples: in -> the three renditions; tmp holds w * h unsigneds. */
static void plane(Clip *c, const uint8_t *in, uint8_t *out[N_OUT], unsigned w, unsigned h,
                  unsigned *tmp)
{
    const unsigned step = 1u << (c->bpc - 5), amp = 3u << (c->bpc - 8);
    for (unsigned y = 0; y < h; y++) {
        for (unsigned x = 0; x < w; x++) {
            const size_t i = (size_t)y * w + x;
            const unsigned l = get(c, in, y * (size_t)w + (x ? x - 1 : 0));
            const unsigned r = get(c, in, y * (size_t)w + (x + 1 < w ? x + 1 : x));
            const unsigned v = get(c, in, i);
            tmp[i] = l + 2 * v + r; /* the horizontal pass, times 4 */
            const long noise = (long)(next_rand(c) % (2 * amp + 1)) - (long)amp;
            put(c, out[NOISE], i, clamp((long)v + noise, c->max));
            put(c, out[QUANT], i, clamp((long)((v + step / 2) / step * step), c->max));
        }
    }
    for (unsigned y = 0; y < h; y++) {
        const unsigned *up = tmp + (size_t)(y ? y - 1 : 0) * w;
        const unsigned *mid = tmp + (size_t)y * w;
        const unsigned *down = tmp + (size_t)(y + 1 < h ? y + 1 : y) * w;
        for (unsigned x = 0; x < w; x++)
            put(c, out[BLUR], (size_t)y * w + x, (up[x] + 2 * mid[x] + down[x] + 8) / 16);
    }
}

static int run(Clip *c, FILE *in, FILE *out[N_OUT], const char *names[N_OUT])
{
    uint8_t *src = malloc(c->frame_bytes), *dst[N_OUT];
    unsigned *tmp = malloc((size_t)c->w * c->h * sizeof(*tmp));
    int ret = src && tmp ? 0 : -ENOMEM;
    for (int k = 0; k < N_OUT; k++)
        if (!(dst[k] = malloc(c->frame_bytes))) ret = -ENOMEM;
    for (unsigned f = 0; !ret && f < c->frames; f++) {
        if (fread(src, 1, c->frame_bytes, in) != c->frame_bytes) {
            fprintf(stderr, "make_renditions: cannot read frame %u\n", f);
            ret = -EIO;
            break;
        }
        size_t off = 0;
        for (int p = 0; p < 3; p++) {
            uint8_t *o[N_OUT] = { dst[0] + off, dst[1] + off, dst[2] + off };
            plane(c, src + off, o, c->pw[p], c->ph[p], tmp);
            off += (size_t)c->pw[p] * c->ph[p] * c->bytes;
        }
        for (int k = 0; !ret && k < N_OUT; k++) {
            if (fwrite(dst[k], 1, c->frame_bytes, out[k]) != c->frame_bytes) {
                fprintf(stderr, "make_renditions: cannot write %s: %s\n", names[k],
                        strerror(errno));
                ret = -EIO;
            }
        }
    }
    for (int k = 0; k < N_OUT; k++) free(dst[k]);
    free(src);
    free(tmp);
    if (ret == -ENOMEM) fprintf(stderr, "make_renditions: out of memory\n");
    return ret;
}

int main(int argc, char **argv)
{
    if (argc != 10) {
        fprintf(stderr, "usage: make_renditions IN WIDTH HEIGHT 420|422|444 BITDEPTH FRAMES "
                        "BLUR NOISE QUANT\n");
        return 2;
    }
    Clip c = { .rng = 0x9e3779b97f4a7c15ull };
    unsigned fmt;
    if (parse_uint(argv[2], 1, 16384, &c.w) || parse_uint(argv[3], 1, 16384, &c.h) ||
        parse_uint(argv[4], 420, 444, &fmt) || (fmt != 420 && fmt != 422 && fmt != 444) ||
        parse_uint(argv[5], 8, 16, &c.bpc) || parse_uint(argv[6], 1, 1u << 20, &c.frames)) {
        fprintf(stderr, "make_renditions: bad WIDTH, HEIGHT (1..16384), format (420, 422, 444), "
                        "BITDEPTH (8..16) or FRAMES (1..2^20)\n");
        return 2;
    }
    const char *names[N_OUT] = { argv[7], argv[8], argv[9] };
    for (int k = 0; k < N_OUT; k++) {
        for (int j = 0; j <= k; j++) {
            if (!strcmp(names[k], j < k ? names[j] : argv[1])) {
                fprintf(stderr, "make_renditions: %s named twice\n", names[k]);
                return 2;
            }
        }
    }
    c.bytes = c.bpc > 8 ? 2 : 1;
    c.max = (1u << c.bpc) - 1;
    const unsigned cw = fmt == 444 ? c.w : (c.w + 1) / 2, ch = fmt == 420 ? (c.h + 1) / 2 : c.h;
    c.pw[0] = c.w, c.ph[0] = c.h;
    c.pw[1] = c.pw[2] = cw, c.ph[1] = c.ph[2] = ch;
    c.frame_bytes = ((size_t)c.w * c.h + 2 * (size_t)cw * ch) * c.bytes;

    FILE *in = fopen(argv[1], "rb");
    struct stat st;
    if (!in || fstat(fileno(in), &st)) {
        fprintf(stderr, "make_renditions: cannot open %s: %s\n", argv[1], strerror(errno));
        if (in) fclose(in);
        return 1;
    }
    const uint64_t size = (uint64_t)st.st_size;
    if (size % c.frame_bytes || size / c.frame_bytes < c.frames) {
        fprintf(stderr, "make_renditions: %s (%llu bytes) is not a whole number of %zu-byte "
                        "frames, at least %u\n", argv[1], (unsigned long long)size,
                c.frame_bytes, c.frames);
        fclose(in);
        return 2;
    }
    FILE *out[N_OUT] = { NULL, NULL, NULL };
    int ret = 0;
    for (int k = 0; !ret && k < N_OUT; k++) {
        if (!(out[k] = fopen(names[k], "wb"))) {
            fprintf(stderr, "make_renditions: cannot create %s: %s\n", names[k],
                    strerror(errno));
            ret = -EIO;
        }
    }
    if (!ret) ret = run(&c, in, out, names);
    for (int k = 0; k < N_OUT; k++) {
        if (out[k] && fclose(out[k]) && !ret) {
            fprintf(stderr, "make_renditions: cannot write %s: %s\n", names[k], strerror(errno));
            ret = -EIO;
        }
    }
    fclose(in);
    if (ret)
        for (int k = 0; k < N_OUT; k++) remove(names[k]); /* nothing half-written */
    return ret ? 1 : 0;
}
