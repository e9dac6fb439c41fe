/*
 * Unit test of vmaf_motion_sad() (src/feature/motion.c) against a direct, unoptimized
 * evaluation of the definition in motion.h: 64-bit sums, explicit floor division and an
 * explicit mirror, one output sample at a time.
 *
 * Seeded random frames at odd sizes and every interesting depth, plus extreme frames
 * (all 0 against all max and back, 0/max noise, stripes) and a row wide enough for its
 * 32-bit row sum to wrap. Exit status 0 when every case matches.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/motion.h"

#include "test_util.h"

static const int64_t kernel[5] = {
    VMAF_MOTION_K_OUTER, VMAF_MOTION_K_INNER, VMAF_MOTION_K_CENTER,
    VMAF_MOTION_K_INNER, VMAF_MOTION_K_OUTER,
};

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

typedef struct Frame {
    unsigned w, h, bpc;
    ptrdiff_t stride; /* bytes */
    unsigned char *data;
} Frame;

static unsigned sample(const Frame *f, int i, int j)
{
    const unsigned char *row = f->data + (ptrdiff_t)i * f->stride;
    if (f->bpc == 8)
        return row[j];
    uint16_t v;
    memcpy(&v, row + 2 * (size_t)j, sizeof(v));
    return v;
}

static void set_sample(Frame *f, int i, int j, unsigned v)
{
    unsigned char *row = f->data + (ptrdiff_t)i * f->stride;
    if (f->bpc == 8) {
        row[j] = (unsigned char)v;
    } else {
        const uint16_t s = (uint16_t)v;
        memcpy(row + 2 * (size_t)j, &s, sizeof(s));
    }
}

static int frame_alloc(Frame *f, unsigned w, unsigned h, unsigned bpc, unsigned extra)
{
    f->w = w;
    f->h = h;
    f->bpc = bpc;
    f->stride = (ptrdiff_t)((w + extra) * (bpc > 8 ? 2 : 1));
    f->data = malloc((size_t)f->stride * h);
    if (!f->data)
        return -1;
    /* fill the row padding with garbage: it must not be read */
    for (size_t k = 0; k < (size_t)f->stride * h; k++)
        f->data[k] = (unsigned char)rng();
    return 0;
}

static uint64_t naive_sad(const Frame *prev, const Frame *cur)
{
    const int w = (int)prev->w, h = (int)prev->h;
    const int shift = prev->bpc == 8 ? 8 : (int)prev->bpc;
    int64_t *v = malloc(sizeof(*v) * (size_t)w * (size_t)h);
    if (!v) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
            int64_t acc = 0;
            for (int k = 0; k < 5; k++) {
                const int r = test_reflect(i + k - 2, h);
                acc += kernel[k] * ((int64_t)sample(prev, r, j) - (int64_t)sample(cur, r, j));
            }
            v[(size_t)i * w + j] = floor_div(acc + ((int64_t)1 << (shift - 1)),
                                             (int64_t)1 << shift);
        }
    }
    uint64_t sad = 0;
    for (int i = 0; i < h; i++) {
        uint32_t row = 0;
        for (int j = 0; j < w; j++) {
            int64_t acc = 0;
            for (int k = 0; k < 5; k++)
                acc += kernel[k] * v[(size_t)i * w + test_reflect(j + k - 2, w)];
            const int64_t x = floor_div(acc + 32768, 65536);
            row += (uint32_t)(x < 0 ? -x : x);
        }
        sad += row;
    }
    free(v);
    return sad;
}

enum Pattern {
    PAT_RANDOM,     /* both frames uniform over the full range */
    PAT_NEAR,       /* cur = prev + small noise */
    PAT_BINARY,     /* each sample 0 or max */
    PAT_ZERO_MAX,   /* prev all 0, cur all max */
    PAT_MAX_ZERO,   /* prev all max, cur all 0 */
    PAT_STRIPES,    /* prev columns alternate 0/max, cur the opposite */
    PAT_EQUAL,      /* identical frames */
    PAT_COUNT,
};

static const char *pattern_name[PAT_COUNT] = {
    "random", "near", "binary", "zero-max", "max-zero", "stripes", "equal",
};

static void fill(Frame *prev, Frame *cur, enum Pattern pat)
{
    const unsigned max = (1u << prev->bpc) - 1;
    for (int i = 0; i < (int)prev->h; i++) {
        for (int j = 0; j < (int)prev->w; j++) {
            unsigned a = 0, b = 0;
            switch (pat) {
            case PAT_RANDOM:
                a = rng() & max;
                b = rng() & max;
                break;
            case PAT_NEAR: {
                a = rng() & max;
                const int n = (int)(rng() % 9) - 4;
                const int t = (int)a + n;
                b = t < 0 ? 0 : t > (int)max ? max : (unsigned)t;
                break;
            }
            case PAT_BINARY:
                a = rng() & 1 ? max : 0;
                b = rng() & 1 ? max : 0;
                break;
            case PAT_ZERO_MAX:
                b = max;
                break;
            case PAT_MAX_ZERO:
                a = max;
                break;
            case PAT_STRIPES:
                a = j & 1 ? max : 0;
                b = max - a;
                break;
            case PAT_EQUAL:
            default:
                a = b = rng() & max;
                break;
            }
            set_sample(prev, i, j, a);
            set_sample(cur, i, j, b);
        }
    }
}

static int run_case(unsigned w, unsigned h, unsigned bpc, enum Pattern pat)
{
    Frame prev, cur;
    if (frame_alloc(&prev, w, h, bpc, 3) || frame_alloc(&cur, w, h, bpc, 7)) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    fill(&prev, &cur, pat);

    int32_t *buf = malloc(sizeof(*buf) * VMAF_MOTION_ROW_BUF_LEN(w));
    if (!buf) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    const uint64_t got = vmaf_motion_sad(prev.data, prev.stride, cur.data, cur.stride,
                                         w, h, bpc, buf);
    const uint64_t want = naive_sad(&prev, &cur);
    free(buf);
    free(prev.data);
    free(cur.data);

    if (got != want) {
        fprintf(stderr, "FAIL %ux%u bpc %u %s: got %" PRIu64 ", want %" PRIu64 "\n",
                w, h, bpc, pattern_name[pat], got, want);
        return 1;
    }
    return 0;
}

int main(void)
{
    static const unsigned sizes[][2] = {
        { 1, 1 }, { 2, 2 }, { 1, 6 }, { 6, 2 }, { 3, 3 }, { 5, 7 }, { 7, 5 },
        { 16, 4 }, { 17, 17 }, { 33, 18 }, { 63, 9 }, { 257, 145 },
    };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 15, 16 };
    rng_state = 0x9e3779b97f4a7c15ull;

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
            for (int p = 0; p < PAT_COUNT; p++) {
                failures += run_case(sizes[s][0], sizes[s][1], depths[d], (enum Pattern)p);
                checks++;
            }
        }
    }

    /* A row of 70000 samples of |65535| sums to more than 2^32: the per-row sum wraps. */
    failures += run_case(70000, 3, 16, PAT_ZERO_MAX);
    failures += run_case(70000, 3, 16, PAT_MAX_ZERO);
    failures += run_case(70001, 4, 8, PAT_BINARY);
    checks += 3;

    /* Identical frames give exactly 0, and the score of a known SAD. */
    {
        const double s = vmaf_motion_score_from_sad(256u * 6u, 3, 2, 1.0, 10000.0);
        if (s != 1.0) {
            fprintf(stderr, "FAIL score_from_sad: %g\n", s);
            failures++;
        }
        const double c = vmaf_motion_score_from_sad(256u * 600u, 3, 2, 1.0, 18.0);
        if (c != 18.0) {
            fprintf(stderr, "FAIL score_from_sad clip: %g\n", c);
            failures++;
        }
        const double b = vmaf_motion_blend(20.0, 0.5, 10.0);
        if (b != 15.0) {
            fprintf(stderr, "FAIL blend: %g\n", b);
            failures++;
        }
        checks += 3;
    }

    printf("test_motion: %d/%d checks passed\n", checks - failures, checks);
    return failures != 0;
}
