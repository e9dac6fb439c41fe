/*
 * Unit tests of the integer ADM stages (src/feature/adm*.c, arithmetic in adm.h).
 *
 * Each vectorizable stage is compared with a direct, unoptimized evaluation of its
 * definition (64-bit integers, explicit floor division, explicit index tables, one output at
 * a time) on seeded random data at several bit depths and odd sizes, including the column
 * rules that reproduce the reference's AVX-512 build. Whole-pipeline properties: constant
 * and identical frames (with values reference libvmaf writes for them), independence from
 * what the buffers held before, and tiny pictures. Exit status 0 when every check passes;
 * failures print the seed and the case.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm.h"

#define TEST_MAX_PRINTED 40
#include "test_util.h"

static uint64_t seed = 0x2545f4914f6cdd1dull;

/* uniform in [-(2^bits - 1), 2^bits - 1] */
static int32_t rng_signed(int bits)
{
    const int64_t range = ((int64_t)1 << bits) - 1;
    return (int32_t)((int64_t)(rng() % (uint64_t)(2 * range + 1)) - range);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static const int64_t lo_taps[4] = { 15826, 27411, 7345, -4240 };
static const int64_t hi_taps[4] = { -4240, -7345, 27411, -15826 };

/* The reference's index table for a line of n samples, built the way it builds it: the
 * first entry fixed, straight entries, then the last two entries (loop counter unsigned,
 * so it does not run for n < 3) mirrored past the end. */
static void index_table(int n, int (*table)[4])
{
    const int half = (n + 1) / 2;
    table[0][0] = 1;
    table[0][1] = 0;
    table[0][2] = 1;
    table[0][3] = 2;
    for (int j = 1; j < half - 2; j++)
        for (int k = 0; k < 4; k++)
            table[j][k] = 2 * j - 1 + k;
    for (unsigned j = (unsigned)half - 2; j < (unsigned)half; j++)
        for (int k = 0; k < 4; k++) {
            int p = 2 * (int)j - 1 + k;
            if (p >= n)
                p = 2 * n - p - 1;
            table[j][k] = p;
        }
}

static void test_helpers(void)
{
    for (int32_t d = 1; d <= 32768; d++) {
        const int32_t q = (int32_t)(1073741824 / d);
        CHECK(vmaf_adm_reciprocal(d) == q && vmaf_adm_reciprocal(-d) == -q, "reciprocal %d",
              d);
    }
    CHECK(vmaf_adm_to_u32(5.0422225 * 4294967296.0) == 0xFFFFFFFFu, "u32 saturates high");
    CHECK(vmaf_adm_to_u32(-1.0) == 0xFFFFFFFFu, "u32 saturates at -1");
    CHECK(vmaf_adm_to_u32(-0.5) == 0, "u32 truncates -0.5 to 0");
    CHECK(vmaf_adm_to_u32(123.9) == 123, "u32 truncates");
    CHECK(vmaf_adm_to_u32(NAN) == 0xFFFFFFFFu, "u32 of NaN");
    CHECK(vmaf_adm_to_u32(INFINITY) == 0xFFFFFFFFu, "u32 of inf");
    CHECK(vmaf_adm_to_u16(70000.7) == (70000 & 0xFFFF), "u16 wraps through int32");
    CHECK(vmaf_adm_to_u16(-22.0 * 2097152.0) == 0, "u16 of a negative multiple of 2^16");
    CHECK(vmaf_adm_to_u16(3e9) == 0, "u16 out of the int32 range");

    int table[64][4];
    for (int n = 1; n <= 120; n++) {
        index_table(n, table);
        for (int j = 0; j < (n + 1) / 2; j++)
            for (int k = 0; k < 4; k++)
                CHECK(vmaf_adm_tap(j, k, n) == table[j][k], "tap n=%d j=%d k=%d: %d != %d", n,
                      j, k, vmaf_adm_tap(j, k, n), table[j][k]);
    }

    /* every Watson/blend weight is positive and finite; Barten above 1 saturates Q32 */
    VmafAdmOptions o = { .csf_scale = 1, .csf_diag_scale = 1, .dlm_weight = 0.5,
                         .enhn_gain_limit = 100, .norm_view_dist = 3,
                         .ref_display_height = 1080, .noise_weight = 0.03125 };
    VmafAdmScaleFactors f[VMAF_ADM_SCALES];
    vmaf_adm_scale_factors(&o, f);
    CHECK(f[0].i_rfactor[0] == 36453 && f[0].i_rfactor[2] == 49417, "default scale-0 weights");
    for (int s = 0; s < 4; s++)
        CHECK(f[s].rfactor[0] > 0 && f[s].rfactor[2] > 0 && isfinite(f[s].rfactor[0]),
              "watson weight of scale %d", s);
    o.csf_mode = VMAF_ADM_CSF_BARTEN;
    vmaf_adm_scale_factors(&o, f);
    CHECK(f[1].rfactor[0] > 1.0f && f[1].i_rfactor[0] == 0xFFFFFFFFu,
          "barten scale-1 weight %g saturates", f[1].rfactor[0]);
    o.csf_mode = VMAF_ADM_CSF_BLEND;
    o.ref_display_height = 1200; /* no table: the reference's -EINVAL becomes the weight */
    vmaf_adm_scale_factors(&o, f);
    CHECK(f[2].rfactor[0] == -22.0f && f[0].i_rfactor[0] == 0 && f[2].i_rfactor[0] == 0,
          "blend weight without a table");
}

/* ------------------------------------------------------------------------------------- */
/* Work buffers for the stage tests                                                       */

typedef struct Plane {
    unsigned w, h, bpc;
    ptrdiff_t stride; /* bytes */
    unsigned char *data;
} Plane;

static int plane_alloc(Plane *p, unsigned w, unsigned h, unsigned bpc)
{
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->stride = (ptrdiff_t)((w + 3) * (bpc > 8 ? 2 : 1));
    p->data = calloc((size_t)p->stride, h);
    return p->data ? 0 : -1;
}

static unsigned plane_get(const Plane *p, int i, int j)
{
    const unsigned char *row = p->data + (ptrdiff_t)i * p->stride;
    if (p->bpc == 8)
        return row[j];
    uint16_t v;
    memcpy(&v, row + 2 * (size_t)j, 2);
    return v;
}

static void plane_set(Plane *p, int i, int j, unsigned v)
{
    unsigned char *row = p->data + (ptrdiff_t)i * p->stride;
    if (p->bpc == 8) {
        row[j] = (unsigned char)v;
    } else {
        const uint16_t s = (uint16_t)v;
        memcpy(row + 2 * (size_t)j, &s, 2);
    }
}

/* ------------------------------------------------------------------------------------- */
/* DWT                                                                                    */

/* Scale-0 DWT of one plane, the direct way. Where the reference's AVX-512 kernel reaches the
 * last column unmirrored (half - 1 a multiple of 32 for 8-bit, 64 above), its taps read on
 * from the low line into the high line, and past the high line (zeros in fresh buffers). */
static void naive_dwt0(const Plane *p, int32_t *a, int32_t *v, int32_t *hb, int32_t *d)
{
    const int w = (int)p->w, h = (int)p->h, b = (int)p->bpc;
    const int half_w = (w + 1) / 2, half_h = (h + 1) / 2;
    const int group = b == 8 ? 32 : 64;
    const int straight = half_w > group && (half_w - 1) % group == 0;
    int rows[64][4], cols[512][4];
    index_table(h, rows);
    index_table(w, cols);
    int64_t *line = calloc((size_t)(4 * w + 8), sizeof(*line)); /* lo | hi | zeros */
    for (int i = 0; i < half_h; i++) {
        for (int x = 0; x < w; x++) {
            int64_t lo = 0, hi = 0;
            for (int k = 0; k < 4; k++) {
                const int64_t s = plane_get(p, rows[i][k], x);
                lo += lo_taps[k] * s;
                hi += hi_taps[k] * s;
            }
            const int64_t half_range = (int64_t)1 << (b - 1);
            line[x] = floor_div(lo - 46342 * half_range + half_range, (int64_t)1 << b);
            line[w + x] = floor_div(hi + half_range, (int64_t)1 << b);
        }
        for (int j = 0; j < half_w; j++) {
            int64_t sa = 0, sv = 0, sh = 0, sd = 0;
            for (int k = 0; k < 4; k++) {
                const int pos = (straight && j == half_w - 1) ? 2 * j - 1 + k : cols[j][k];
                sa += lo_taps[k] * line[pos];
                sv += hi_taps[k] * line[pos];
                sh += lo_taps[k] * line[w + pos];
                sd += hi_taps[k] * line[w + pos];
            }
            const size_t o = (size_t)i * half_w + j;
            a[o] = (int32_t)floor_div(sa + 32768, 65536);
            v[o] = (int32_t)floor_div(sv + 32768, 65536);
            hb[o] = (int32_t)floor_div(sh + 32768, 65536);
            d[o] = (int32_t)floor_div(sd + 32768, 65536);
        }
    }
    free(line);
}

static void fill_plane(Plane *p, int pattern)
{
    const unsigned max = (1u << p->bpc) - 1;
    for (unsigned i = 0; i < p->h; i++)
        for (unsigned j = 0; j < p->w; j++) {
            unsigned v;
            switch (pattern) {
            case 0: v = rng() & max; break;                       /* noise */
            case 1: v = (rng() & 1) ? max : 0; break;              /* extremes */
            default: v = (unsigned)((i * 37 + j * 11) % (max + 1)); /* ramps */
            }
            plane_set(p, (int)i, (int)j, v);
        }
}

static void test_dwt0(void)
{
    static const unsigned sizes[][2] = { { 17, 17 }, { 33, 21 }, { 64, 9 }, { 65, 9 },
                                         { 130, 7 }, { 129, 6 }, { 5, 5 }, { 40, 33 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 16 };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        for (size_t di = 0; di < sizeof(depths) / sizeof(depths[0]); di++) {
            for (int pattern = 0; pattern < 3; pattern++) {
                const unsigned w = sizes[si][0], h = sizes[si][1], bpc = depths[di];
                Plane p;
                VmafAdmBuffers b;
                if (plane_alloc(&p, w, h, bpc) || vmaf_adm_buffers_alloc(&b, w, h)) {
                    fprintf(stderr, "out of memory\n");
                    exit(2);
                }
                fill_plane(&p, pattern);
                const int half_w = (int)(w + 1) / 2, half_h = (int)(h + 1) / 2;
                const size_t n = (size_t)half_w * half_h;
                int32_t *e[4];
                for (int k = 0; k < 4; k++)
                    e[k] = malloc(n * sizeof(int32_t));
                naive_dwt0(&p, e[0], e[1], e[2], e[3]);
                vmaf_adm_dwt_scale0(p.data, p.stride, bpc, (int)w, (int)h,
                                    (int16_t *)b.rows, &b.ref16, b.ref32.a, b.stride, false);
                const size_t n16 = b.stride * (size_t)half_h;
                int16_t *a16 = malloc(n16 * sizeof(int16_t));
                for (size_t k = 0; k < n16; k++)
                    a16[k] = (int16_t)b.ref32.a[k];
                const int16_t *got[4] = { a16, b.ref16.v, b.ref16.h, b.ref16.d };
                int bad = 0;
                for (int i = 0; i < half_h && !bad; i++)
                    for (int j = 0; j < half_w && !bad; j++)
                        for (int k = 0; k < 4; k++)
                            if (got[k][(size_t)i * b.stride + j] !=
                                e[k][(size_t)i * half_w + j]) {
                                CHECK(0, "dwt0 %ux%u %u-bit pattern %d band %d at (%d,%d): "
                                      "%d != %d", w, h, bpc, pattern, k, i, j,
                                      got[k][(size_t)i * b.stride + j],
                                      e[k][(size_t)i * half_w + j]);
                                bad = 1;
                                break;
                            }
                for (int k = 0; k < 4; k++)
                    free(e[k]);
                free(a16);
                free(p.data);
                vmaf_adm_buffers_free(&b);
            }
        }
    }
}

/* A constant picture has no detail: H = V = D = 0 and A is the same everywhere - except in
 * the column the reference computes unmirrored, whose taps read into the high line. */
static void test_dwt0_constant(void)
{
    static const unsigned sizes[][2] = { { 64, 48 }, { 17, 17 }, { 33, 21 }, { 65, 9 } };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        for (unsigned bpc = 8; bpc <= 16; bpc += 2) {
            const unsigned w = sizes[si][0], h = sizes[si][1];
            const unsigned c = (1u << bpc) / 3;
            Plane p;
            VmafAdmBuffers b;
            if (plane_alloc(&p, w, h, bpc) || vmaf_adm_buffers_alloc(&b, w, h))
                exit(2);
            for (unsigned i = 0; i < h; i++)
                for (unsigned j = 0; j < w; j++)
                    plane_set(&p, (int)i, (int)j, c);
            vmaf_adm_dwt_scale0(p.data, p.stride, bpc, (int)w, (int)h, (int16_t *)b.rows,
                                &b.ref16, b.ref32.a, b.stride, false);
            const int64_t r = (int64_t)1 << (bpc - 1);
            const int64_t line = floor_div(46342 * (int64_t)c - 46342 * r + r, 2 * r);
            const int16_t a = (int16_t)floor_div(46342 * line + 32768, 65536);
            const int half_w = (int)(w + 1) / 2;
            const int quirk = bpc == 8 && half_w > 32 && (half_w - 1) % 32 == 0;
            for (int i = 0; i < (int)(h + 1) / 2; i++)
                for (int j = 0; j < half_w; j++) {
                    const size_t o = (size_t)i * b.stride + j;
                    const int last = quirk && j == half_w - 1;
                    /* the unmirrored last column reads (line, line, 0, 0) for an odd width */
                    const int16_t a_last =
                        (int16_t)floor_div((15826 + 27411) * line + 32768, 65536);
                    CHECK(b.ref32.a[o] == (last ? a_last : a),
                          "constant %ux%u %u-bit: A(%d,%d) = %d, expected %d", w, h, bpc, i, j,
                          b.ref32.a[o], last ? a_last : a);
                    CHECK(b.ref16.h[o] == 0 && b.ref16.d[o] == 0 && (last || !b.ref16.v[o]),
                          "constant %ux%u %u-bit: detail at (%d,%d)", w, h, bpc, i, j);
                }
            free(p.data);
            vmaf_adm_buffers_free(&b);
        }
    }
}

/* Scales 1..3 on int32 band A, the direct way: the lines of both pictures lie one after the
 * other (ref lo | ref hi | dis lo | dis hi | zeros), and the unmirrored last column (half - 1
 * a multiple of 8) reads on into the next line. */
static void naive_dwt123(const int32_t *ref, const int32_t *dis, int w, int h, unsigned s,
                         int32_t *out[8])
{
    static const int64_t rv[3] = { 0, 32768, 32768 }, rh[3] = { 16384, 32768, 16384 };
    static const int sv[3] = { 0, 16, 16 }, sh[3] = { 15, 16, 15 };
    const int half_w = (w + 1) / 2, half_h = (h + 1) / 2;
    const int straight = half_w > 8 && (half_w - 1) % 8 == 0;
    int rows[64][4], cols[512][4];
    index_table(h, rows);
    index_table(w, cols);
    int64_t *line = calloc((size_t)(4 * w + 8), sizeof(*line));
    for (int i = 0; i < half_h; i++) {
        for (int x = 0; x < w; x++) {
            int64_t l[4] = { 0, 0, 0, 0 };
            for (int k = 0; k < 4; k++) {
                const int64_t a = ref[(size_t)rows[i][k] * w + x];
                const int64_t c = dis[(size_t)rows[i][k] * w + x];
                l[0] += lo_taps[k] * a;
                l[1] += hi_taps[k] * a;
                l[2] += lo_taps[k] * c;
                l[3] += hi_taps[k] * c;
            }
            for (int q = 0; q < 4; q++)
                line[(size_t)q * w + x] =
                    (int32_t)floor_div(l[q] + rv[s - 1], (int64_t)1 << sv[s - 1]);
        }
        for (int j = 0; j < half_w; j++)
            for (int pic = 0; pic < 2; pic++) {
                int64_t acc[4] = { 0, 0, 0, 0 }; /* a v h d */
                for (int k = 0; k < 4; k++) {
                    const int pos = (straight && j == half_w - 1) ? 2 * j - 1 + k : cols[j][k];
                    const int64_t lo = line[(size_t)(2 * pic) * w + pos];
                    const int64_t hi = line[(size_t)(2 * pic + 1) * w + pos];
                    acc[0] += lo_taps[k] * lo;
                    acc[1] += hi_taps[k] * lo;
                    acc[2] += lo_taps[k] * hi;
                    acc[3] += hi_taps[k] * hi;
                }
                for (int q = 0; q < 4; q++)
                    out[4 * pic + q][(size_t)i * half_w + j] =
                        (int32_t)floor_div(acc[q] + rh[s - 1], (int64_t)1 << sh[s - 1]);
            }
    }
    free(line);
}

static void test_dwt123(void)
{
    static const int sizes[][2] = { { 17, 17 }, { 33, 21 }, { 20, 13 }, { 9, 5 }, { 130, 7 } };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (unsigned s = 1; s <= 3; s++)
            for (int bits = 16; bits <= 30; bits += 7) {
                const int w = sizes[si][0], h = sizes[si][1];
                VmafAdmBuffers b;
                if (vmaf_adm_buffers_alloc(&b, 2 * (unsigned)w, 2 * (unsigned)h))
                    exit(2);
                int32_t *ref = malloc((size_t)w * h * 4), *dis = malloc((size_t)w * h * 4);
                for (int i = 0; i < h; i++)
                    for (int x = 0; x < w; x++) {
                        ref[(size_t)i * w + x] = rng_signed(bits);
                        dis[(size_t)i * w + x] = rng_signed(bits);
                        b.ref32.a[(size_t)i * b.stride + x] = ref[(size_t)i * w + x];
                        b.dis32.a[(size_t)i * b.stride + x] = dis[(size_t)i * w + x];
                    }
                const int half_w = (w + 1) / 2, half_h = (h + 1) / 2;
                int32_t *e[8];
                for (int q = 0; q < 8; q++)
                    e[q] = malloc((size_t)half_w * half_h * 4);
                naive_dwt123(ref, dis, w, h, s, e);
                vmaf_adm_dwt_scale123(&b.ref32, &b.dis32, b.rows, w, h, b.stride, s);
                const int32_t *got[8] = { b.ref32.a, b.ref32.v, b.ref32.h, b.ref32.d,
                                          b.dis32.a, b.dis32.v, b.dis32.h, b.dis32.d };
                int bad = 0;
                for (int i = 0; i < half_h && !bad; i++)
                    for (int j = 0; j < half_w && !bad; j++)
                        for (int q = 0; q < 8; q++)
                            if (got[q][(size_t)i * b.stride + j] !=
                                e[q][(size_t)i * half_w + j]) {
                                CHECK(0, "dwt%u %dx%d (%d bits) band %d at (%d,%d): %d != %d",
                                      s, w, h, bits, q, i, j, got[q][(size_t)i * b.stride + j],
                                      e[q][(size_t)i * half_w + j]);
                                bad = 1;
                                break;
                            }
                for (int q = 0; q < 8; q++)
                    free(e[q]);
                free(ref);
                free(dis);
                vmaf_adm_buffers_free(&b);
            }
}

/* ------------------------------------------------------------------------------------- */
/* Decouple                                                                               */

static double cos2_1deg(void)
{
    return (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
}

static double f4096(int64_t v)
{
    return (double)(float)v / 4096.0;
}

/* Columns [left, left + 16n) are vector columns of the reference's AVX-512 build. */
static int vector_column(int j, int left, int right, int group)
{
    return j < right - (right - left) % group;
}

static void outer_region(int w, int h, int *left, int *top, int *right, int *bottom)
{
    const int l = (int)(w * 0.1 - 0.5 - 1), t = (int)(h * 0.1 - 0.5 - 1);
    *left = l < 0 ? 0 : l;
    *top = t < 0 ? 0 : t;
    *right = w - l + 2 > w ? w : w - l + 2;
    *bottom = h - t + 2 > h ? h : h - t + 2;
}

/* The enhancement: min/max of r * gain and t, rounded to nearest-even in vector columns and
 * truncated in scalar ones. */
static int64_t naive_enhance(int64_t o, int64_t r, int64_t t, double gain, int vector)
{
    const double g = (double)r * gain;
    if (vector) {
        const int64_t gi = (int64_t)nearbyint(g);
        return o > 0 ? (gi < t ? gi : t) : (gi > t ? gi : t);
    }
    const double m = o > 0 ? (g < (double)t ? g : (double)t) : (g > (double)t ? g : (double)t);
    return (int64_t)m;
}

static void naive_decouple0(int16_t *const ref[3], int16_t *const dis[3], int16_t *r[3],
                            int16_t *a[3], int w, int h, size_t stride, double gain)
{
    int left, top, right, bottom;
    outer_region(w, h, &left, &top, &right, &bottom);
    const double cos2 = cos2_1deg();
    for (int i = top; i < bottom; i++)
        for (int j = left; j < right; j++) {
            const size_t p = (size_t)i * stride + j;
            const int vec = vector_column(j, left, right, 16);
            const int64_t oh = ref[0][p], ov = ref[1][p], th = dis[0][p], tv = dis[1][p];
            int64_t dot = oh * th + ov * tv, osq = oh * oh + ov * ov, tsq = th * th + tv * tv;
            if (vec) { /* 32-bit dot products */
                dot = (int32_t)(uint32_t)dot;
                osq = (int32_t)(uint32_t)osq;
                tsq = (int32_t)(uint32_t)tsq;
            }
            const double d = f4096(dot);
            const int close = d >= 0.0 && (vec ? d * d >= f4096(osq) * f4096(tsq) * cos2
                                               : d * d >= cos2 * f4096(osq) * f4096(tsq));
            for (int q = 0; q < 3; q++) {
                const int64_t o = ref[q][p], t = dis[q][p];
                int64_t k = 32768;
                if (o != 0) {
                    const int64_t recip = (o < 0 ? -1 : 1) * (1073741824 / (o < 0 ? -o : o));
                    k = (int32_t)floor_div(recip * t + 16384, 32768);
                    k = k < 0 ? 0 : (k > 32768 ? 32768 : k);
                }
                int64_t rst = floor_div(k * o + 16384, 32768);
                if (close && k > 0 && o != 0)
                    rst = naive_enhance(o, rst, t, gain, vec);
                r[q][p] = (int16_t)rst;
                a[q][p] = (int16_t)(t - rst);
            }
        }
}

static void naive_decouple123(int32_t *const ref[3], int32_t *const dis[3], int32_t *r[3],
                              int32_t *a[3], int w, int h, size_t stride, double gain)
{
    int left, top, right, bottom;
    outer_region(w, h, &left, &top, &right, &bottom);
    const double cos2 = cos2_1deg();
    for (int i = top; i < bottom; i++)
        for (int j = left; j < right; j++) {
            const size_t p = (size_t)i * stride + j;
            const int vec = vector_column(j, left, right, 16);
            const int64_t oh = ref[0][p], ov = ref[1][p], th = dis[0][p], tv = dis[1][p];
            const double d = f4096(oh * th + ov * tv);
            const int close = d >= 0.0 && d * d >= cos2 * f4096(oh * oh + ov * ov) *
                                                       f4096(th * th + tv * tv);
            for (int q = 0; q < 3; q++) {
                const int64_t o = ref[q][p], t = dis[q][p];
                int64_t k = 32768;
                if (o != 0) {
                    /* |o| reduced to 15 significant bits, rounding half up */
                    const int64_t mag = o < 0 ? -o : o;
                    int length = 0; /* bits of |o| */
                    while ((mag >> length) != 0)
                        length++;
                    const int shift = length > 15 ? length - 15 : 0;
                    const int64_t top_bits =
                        shift ? (mag + ((int64_t)1 << (shift - 1))) >> shift : mag;
                    const int64_t recip = 1073741824 / top_bits;
                    k = floor_div(recip * t * (o < 0 ? -1 : 1) + ((int64_t)1 << (14 + shift)),
                                  (int64_t)1 << (15 + shift));
                    k = k < 0 ? 0 : (k > 32768 ? 32768 : k);
                }
                int64_t rst = (int32_t)floor_div(k * o + 16384, 32768);
                if (close && k > 0 && o != 0)
                    rst = (int32_t)naive_enhance(o, rst, t, gain, vec);
                r[q][p] = (int32_t)rst;
                a[q][p] = (int32_t)(uint32_t)(t - rst);
            }
        }
}

/* Random reference detail and a distorted version that is often a scaled copy (so the angle
 * test passes) with noise; magnitudes drawn from `bits`. */
static void fill_detail(int64_t *o, int64_t *t, const int *bits, int nbits)
{
    static const double scales[] = { 0.0, 0.5, 0.97, 1.0, 1.0, 1.03, 1.5, 1.6, 3.0, -1.0 };
    const int b = bits[rng() % (unsigned)nbits];
    const double sc = scales[rng() % 10];
    const int noisy = rng() % 3 == 0;
    const int unrelated = rng() % 8 == 0; /* small reference, large distorted detail */
    for (int q = 0; q < 3; q++) {
        o[q] = rng() % 7 == 0 ? 0 : rng_signed(b);
        double v = o[q] * sc;
        if (noisy)
            v += rng_signed(b > 4 ? b - 4 : 1);
        if (rng() % 11 == 0)
            v = rng_signed(b);
        if (unrelated) {
            o[q] = rng_signed(bits[0] + 4);
            v = rng_signed(bits[nbits - 1 - (int)(rng() % 3)]);
        }
        t[q] = (int64_t)v;
    }
}

static void test_decouple(void)
{
    /* widths whose last partial column group is 8 or more columns, and others */
    static const int sizes[][2] = { { 40, 30 }, { 17, 9 }, { 33, 21 }, { 100, 5 }, { 3, 3 },
                                    { 30, 20 }, { 50, 11 }, { 61, 4 } };
    static const double gains[] = { 100.0, 1.0, 1.2, 1.7, 3.3 };
    static const int bits16[] = { 4, 8, 12, 15 };
    static const int bits32[] = { 8, 14, 15, 16, 20, 23, 24, 26, 27, 30 };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (size_t gi = 0; gi < sizeof(gains) / sizeof(gains[0]); gi++) {
            const int w = sizes[si][0], h = sizes[si][1];
            VmafAdmBuffers b, e;
            if (vmaf_adm_buffers_alloc(&b, 2 * (unsigned)w, 2 * (unsigned)h) ||
                vmaf_adm_buffers_alloc(&e, 2 * (unsigned)w, 2 * (unsigned)h))
                exit(2);
            const size_t s = b.stride;
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++) {
                    int64_t o[3], t[3];
                    const size_t p = (size_t)i * s + j;
                    fill_detail(o, t, bits16, 4);
                    int16_t *r16[3] = { b.ref16.h, b.ref16.v, b.ref16.d };
                    int16_t *d16[3] = { b.dis16.h, b.dis16.v, b.dis16.d };
                    for (int q = 0; q < 3; q++) {
                        r16[q][p] = (int16_t)(o[q] > 32767 ? 32767 : o[q]);
                        d16[q][p] = (int16_t)(t[q] > 32767 ? 32767 : t[q] < -32768 ? -32768 : t[q]);
                    }
                    fill_detail(o, t, bits32, 10);
                    int32_t *r32[3] = { b.ref32.h, b.ref32.v, b.ref32.d };
                    int32_t *d32[3] = { b.dis32.h, b.dis32.v, b.dis32.d };
                    for (int q = 0; q < 3; q++) {
                        r32[q][p] = (int32_t)o[q];
                        d32[q][p] = (int32_t)(t[q] > INT32_MAX ? INT32_MAX
                                              : t[q] < -INT32_MAX ? -INT32_MAX : t[q]);
                    }
                }
            /* the extreme scale-0 vectors whose 32-bit dot products wrap */
            for (int i = 0; i < h; i += 2) {
                const size_t p = (size_t)i * s + (size_t)(i % w);
                b.ref16.h[p] = b.ref16.v[p] = b.dis16.h[p] = b.dis16.v[p] = -32768;
                b.ref16.d[p] = -20000; /* enhanced only when the angle test passes */
                b.dis16.d[p] = -30000;
            }
            const double g = gains[gi];
            vmaf_adm_decouple_scale0(&b.ref16, &b.dis16, &b.r16, &b.a16, w, h, s, g);
            vmaf_adm_decouple_scale123(&b.ref32, &b.dis32, &b.r32, &b.a32, w, h, s, g);
            int16_t *ref16[3] = { b.ref16.h, b.ref16.v, b.ref16.d };
            int16_t *dis16[3] = { b.dis16.h, b.dis16.v, b.dis16.d };
            int16_t *er16[3] = { e.r16.h, e.r16.v, e.r16.d };
            int16_t *ea16[3] = { e.a16.h, e.a16.v, e.a16.d };
            int32_t *ref32[3] = { b.ref32.h, b.ref32.v, b.ref32.d };
            int32_t *dis32[3] = { b.dis32.h, b.dis32.v, b.dis32.d };
            int32_t *er32[3] = { e.r32.h, e.r32.v, e.r32.d };
            int32_t *ea32[3] = { e.a32.h, e.a32.v, e.a32.d };
            naive_decouple0(ref16, dis16, er16, ea16, w, h, s, g);
            naive_decouple123(ref32, dis32, er32, ea32, w, h, s, g);
            const int16_t *gr16[3] = { b.r16.h, b.r16.v, b.r16.d };
            const int16_t *ga16[3] = { b.a16.h, b.a16.v, b.a16.d };
            const int32_t *gr32[3] = { b.r32.h, b.r32.v, b.r32.d };
            const int32_t *ga32[3] = { b.a32.h, b.a32.v, b.a32.d };
            int bad0 = 0, bad1 = 0;
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++)
                    for (int q = 0; q < 3; q++) {
                        const size_t p = (size_t)i * s + j;
                        if (!bad0 && (gr16[q][p] != er16[q][p] || ga16[q][p] != ea16[q][p])) {
                            CHECK(0, "decouple0 %dx%d gain %g at (%d,%d) band %d: o %d t %d -> "
                                  "r %d a %d, expected r %d a %d", w, h, g, i, j, q,
                                  ref16[q][p], dis16[q][p], gr16[q][p], ga16[q][p],
                                  er16[q][p], ea16[q][p]);
                            bad0 = 1;
                        }
                        if (!bad1 && (gr32[q][p] != er32[q][p] || ga32[q][p] != ea32[q][p])) {
                            CHECK(0, "decouple123 %dx%d gain %g at (%d,%d) band %d: o %d t %d -> "
                                  "r %d a %d, expected r %d a %d", w, h, g, i, j, q,
                                  ref32[q][p], dis32[q][p], gr32[q][p], ga32[q][p],
                                  er32[q][p], ea32[q][p]);
                            bad1 = 1;
                        }
                    }
            vmaf_adm_buffers_free(&b);
            vmaf_adm_buffers_free(&e);
        }
}

/* CSF: weight, round back to Q16 (scale 0: >> 15, 15, 17; scales 1..3: Q32 >> 28) and the
 * mask value |csf| / 30. Vector columns take the scale-0 mask from the value before its
 * int16 truncation, and multiply by the scale-1..3 weight read as a signed int32. */
static void test_csf(void)
{
    static const int sizes[][2] = { { 40, 30 }, { 17, 9 }, { 3, 3 }, { 100, 5 } };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (int trial = 0; trial < 4; trial++) {
            const int w = sizes[si][0], h = sizes[si][1];
            VmafAdmBuffers b;
            if (vmaf_adm_buffers_alloc(&b, 2 * (unsigned)w, 2 * (unsigned)h))
                exit(2);
            const size_t s = b.stride;
            int16_t *in16[3] = { b.a16.h, b.a16.v, b.a16.d };
            int32_t *in32[3] = { b.a32.h, b.a32.v, b.a32.d };
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++)
                    for (int q = 0; q < 3; q++) {
                        in16[q][(size_t)i * s + j] = (int16_t)rng_signed(trial ? 15 : 10);
                        in32[q][(size_t)i * s + j] = rng_signed(trial ? 31 : 20);
                    }
            VmafAdmScaleFactors f = { .i_rfactor = { 36453, 36453, 49417 } };
            if (trial >= 2)
                for (int t = 0; t < 3; t++)
                    f.i_rfactor[t] = rng() & 0xFFFF;
            vmaf_adm_csf_scale0(&b.a16, &b.csf16, &b.mask16, w, h, s, &f);
            VmafAdmScaleFactors g = { .i_rfactor = { 137373792, 137373792, 61414028 } };
            if (trial >= 2)
                for (int t = 0; t < 3; t++)
                    g.i_rfactor[t] = trial == 3 ? 0xFFFFFFFFu : (uint32_t)rng() << 1 | 1;
            vmaf_adm_csf_scale123(&b.a32, &b.csf32, &b.mask32, w, h, s, &g);

            static const int shift0[3] = { 15, 15, 17 }, round0[3] = { 16384, 16384, 65535 };
            const int16_t *o16[3] = { b.csf16.h, b.csf16.v, b.csf16.d };
            const int16_t *m16[3] = { b.mask16.h, b.mask16.v, b.mask16.d };
            const int32_t *o32[3] = { b.csf32.h, b.csf32.v, b.csf32.d };
            const int32_t *m32[3] = { b.mask32.h, b.mask32.v, b.mask32.d };
            int left, top, right, bottom, bad = 0;
            outer_region(w, h, &left, &top, &right, &bottom);
            for (int i = top; i < bottom && !bad; i++)
                for (int j = left; j < right && !bad; j++)
                    for (int q = 0; q < 3; q++) {
                        const size_t p = (size_t)i * s + j;
                        const int vec = vector_column(j, left, right, 16);
                        const int64_t v = floor_div((int64_t)f.i_rfactor[q] * in16[q][p] +
                                                    round0[q], (int64_t)1 << shift0[q]);
                        const int64_t mv = vec ? v : (int16_t)v;
                        const int16_t e_mask = (int16_t)((4369 * (mv < 0 ? -mv : mv) + 2048) >> 12);
                        const int64_t wq = vec ? (int64_t)(int32_t)g.i_rfactor[q] : g.i_rfactor[q];
                        const int32_t v32 =
                            (int32_t)floor_div(wq * in32[q][p] + (1 << 27), 1 << 28);
                        const int64_t a32 = (int32_t)(uint32_t)(v32 < 0 ? -(int64_t)v32 : v32);
                        const int32_t e_mask32 =
                            (int32_t)floor_div(143165577 * a32 - 2147483648LL, (int64_t)1 << 32);
                        if (o16[q][p] != (int16_t)v || m16[q][p] != e_mask ||
                            o32[q][p] != v32 || m32[q][p] != e_mask32) {
                            CHECK(0, "csf %dx%d trial %d at (%d,%d) band %d: %d/%d %d/%d, "
                                  "expected %d/%d %d/%d", w, h, trial, i, j, q, o16[q][p],
                                  m16[q][p], o32[q][p], m32[q][p], (int16_t)v, e_mask, v32,
                                  e_mask32);
                            bad = 1;
                            break;
                        }
                    }
            vmaf_adm_buffers_free(&b);
        }
}

/* ------------------------------------------------------------------------------------- */
/* Masked sums and denominators                                                           */

static void inner_region(int w, int h, int *left, int *top, int *right, int *bottom)
{
    *left = (int)(w * 0.1 - 0.5);
    *top = (int)(h * 0.1 - 0.5);
    *right = w - *left;
    *bottom = h - *top;
}

/* The band values of a masked sum: src (scored), csf (mask centres) and mask, as int64. */
typedef struct CmInput {
    int w, h;
    size_t stride;
    int64_t (*src)(const void *ctx, int t, size_t p);
    int64_t (*csf)(const void *ctx, int t, size_t p);
    int64_t (*mask)(const void *ctx, int t, size_t p);
    const void *ctx;
} CmInput;

typedef struct CmBands16 {
    const int16_t *src[3], *csf[3], *mask[3];
} CmBands16;
typedef struct CmBands32 {
    const int32_t *src[3], *csf[3], *mask[3];
} CmBands32;

static int64_t src16(const void *c, int t, size_t p) { return ((const CmBands16 *)c)->src[t][p]; }
static int64_t csf16(const void *c, int t, size_t p) { return ((const CmBands16 *)c)->csf[t][p]; }
static int64_t mask16(const void *c, int t, size_t p) { return ((const CmBands16 *)c)->mask[t][p]; }
static int64_t src32(const void *c, int t, size_t p) { return ((const CmBands32 *)c)->src[t][p]; }
static int64_t csf32(const void *c, int t, size_t p) { return ((const CmBands32 *)c)->csf[t][p]; }
static int64_t mask32(const void *c, int t, size_t p) { return ((const CmBands32 *)c)->mask[t][p]; }

/* The contribution of one pixel and orientation (scale 0 or scales 1..3). */
typedef struct CmRules {
    int scale;
    uint32_t weight[3];
    uint32_t cub_shift[3], cub_round[3];
} CmRules;

static int64_t naive_centre(const CmRules *r, int64_t c, int vector)
{
    if (r->scale == 0) {
        const int64_t v = (8738 * (c < 0 ? -c : c) + 2048) >> 12;
        return vector ? v : (int16_t)v;
    }
    const int64_t ac = (int32_t)(uint32_t)(c < 0 ? -c : c);
    return floor_div(286331153 * ac - 2147483648LL, (int64_t)1 << 32);
}

static int64_t naive_cube(const CmRules *r, int t, int64_t v, int64_t thr, int vector)
{
    int64_t x;
    if (r->scale == 0) {
        static const int sub[3] = { 10, 10, 12 }, sq[3] = { 29, 29, 30 };
        const int64_t wv = v * r->weight[t];
        x = (int32_t)(uint32_t)((wv < 0 ? -wv : wv) - (int64_t)((uint32_t)thr << sub[t]));
        x = x < 0 ? 0 : x;
        const int64_t x_sq = (int32_t)floor_div(x * x + ((int64_t)1 << (sq[t] - 1)),
                                                (int64_t)1 << sq[t]);
        return (x_sq * x + r->cub_round[t]) >> (r->cub_shift[t] & 63);
    }
    if (vector) {
        const int64_t xv = floor_div(v * (int32_t)r->weight[t] + (1 << 27), 1 << 28);
        x = (xv < 0 ? -xv : xv) - thr;
        x = (int32_t)(x < 0 ? 0 : x);
    } else {
        const int64_t xs = (int32_t)floor_div(v * (int64_t)r->weight[t] + (1 << 27), 1 << 28);
        x = (int32_t)(uint32_t)((xs < 0 ? -xs : xs) - (uint32_t)thr);
        x = x < 0 ? 0 : x;
    }
    const int64_t x_sq = (int32_t)floor_div(x * x + (1 << 29), 1 << 30);
    return floor_div(x_sq * x + r->cub_round[t], (int64_t)1 << (r->cub_shift[t] & 63));
}

/* Sum over the pixels the reference visits, row group by row group; returns the three
 * orientation totals. Neighbours: rows (1,0,1) in the top row, (h-2,h-1,h-1) in the bottom
 * row; columns (1,0,1) at the left corner, (w-2,w-1,w-1) at the right one. */
static void naive_masked_totals(const CmInput *in, const CmRules *r, uint32_t row_shift,
                                uint32_t row_round, uint64_t total[3])
{
    const int w = in->w, h = in->h;
    int left, top, right, bottom;
    inner_region(w, h, &left, &top, &right, &bottom);
    const int start_col = left > 1 ? left : 1, end_col = right < w - 1 ? right : w - 1;
    const int start_row = top > 1 ? top : 1, end_row = bottom < h - 1 ? bottom : h - 1;
    const int inside = left > 0 && right <= w - 1;
    const int group = r->scale == 0 ? 14 : 6;
    const int vend = end_col - (end_col - start_col) % group;

    for (int t = 0; t < 3; t++)
        total[t] = 0;
    for (int g = 0; g < 3; g++) { /* top row, interior rows, bottom row */
        int first = 0, last = 0;
        if (g == 0) {
            first = 0;
            last = top <= 0 ? 1 : 0;
        } else if (g == 1) {
            first = start_row;
            last = end_row;
        } else {
            first = h - 1;
            last = bottom > h - 1 ? h : h - 1;
        }
        if (g != 1 && first >= last) { /* an empty group still adds its rounded zero */
            for (int t = 0; t < 3; t++)
                total[t] += (uint64_t)((int64_t)row_round >> row_shift);
            continue;
        }
        for (int i = first; i < last; i++) {
            const int rows[3] = { g == 0 ? 1 : g == 1 ? i - 1 : h - 2, i,
                                  g == 0 ? 1 : g == 1 ? i + 1 : h - 1 };
            uint64_t acc[3] = { 0, 0, 0 }; /* int64 sums that wrap, as the reference's */
            for (int j = left <= 0 ? -1 : start_col; j < end_col + (right > w - 1 ? 1 : 0);
                 j++) {
                int cols[3];
                if (j == -1) {
                    cols[0] = 1, cols[1] = 0, cols[2] = 1;
                } else if (j == end_col) {
                    cols[0] = w - 2, cols[1] = w - 1, cols[2] = w - 1;
                } else {
                    if (j < start_col)
                        continue;
                    cols[0] = j - 1, cols[1] = j, cols[2] = j + 1;
                }
                const int vector = g == 1 && inside && j >= start_col && j < vend;
                int64_t thr = 0;
                for (int t = 0; t < 3; t++)
                    for (int a = 0; a < 3; a++)
                        for (int c = 0; c < 3; c++) {
                            const size_t p = (size_t)rows[a] * in->stride + cols[c];
                            thr += (a == 1 && c == 1)
                                       ? naive_centre(r, in->csf(in->ctx, t, p), vector)
                                       : in->mask(in->ctx, t, p);
                        }
                if (r->scale == 0 || !vector)
                    thr = (int32_t)(uint32_t)thr;
                const size_t centre = (size_t)i * in->stride + cols[1];
                for (int t = 0; t < 3; t++)
                    acc[t] += (uint64_t)naive_cube(r, t, in->src(in->ctx, t, centre), thr, vector);
            }
            /* the reference computes each group of vector columns in 16 (scale 0) or 8 lanes,
             * whose spare lanes (weight and mask 0) add the bare rounding term */
            if (g == 1 && inside && vend > start_col)
                for (int t = 0; t < 3; t++)
                    acc[t] += (uint64_t)(2 * ((vend - start_col) / group)) *
                              (uint64_t)((int64_t)r->cub_round[t] >> (r->cub_shift[t] & 63));
            for (int t = 0; t < 3; t++)
                total[t] += (uint64_t)((int64_t)(acc[t] + row_round) >> row_shift);
        }
    }
}

static uint32_t u32_shift(double x)
{
    return vmaf_adm_to_u32(ceil(x));
}

static uint32_t u32_round(uint32_t shift)
{
    return vmaf_adm_to_u32(pow(2, (uint32_t)(shift - 1)));
}

static float naive_masked_sum(const CmInput *in, int scale, const uint32_t weight[3],
                              double noise_weight)
{
    const int w = in->w, h = in->h;
    CmRules r = { .scale = scale };
    for (int t = 0; t < 3; t++)
        r.weight[t] = weight[t];
    if (scale == 0) {
        r.cub_shift[0] = r.cub_shift[1] = u32_shift(log2(w) - 4);
        r.cub_shift[2] = u32_shift(log2(w) - 3);
    } else {
        r.cub_shift[0] = r.cub_shift[1] = r.cub_shift[2] = u32_shift(log2(w));
    }
    for (int t = 0; t < 3; t++)
        r.cub_round[t] = u32_round(r.cub_shift[t]);
    const uint32_t row_shift = u32_shift(log2(h)), row_round = u32_round(row_shift);
    uint64_t total[3];
    naive_masked_totals(in, &r, row_shift, row_round, total);

    int left, top, right, bottom;
    inner_region(w, h, &left, &top, &right, &bottom);
    const float noise = powf((float)((bottom - top) * (right - left) * noise_weight), 1.0f / 3);
    float f[3];
    if (scale == 0) {
        f[0] = (float)((float)(int64_t)total[0] /
                       pow(2, (uint32_t)(52 - r.cub_shift[0] - row_shift)));
        f[1] = (float)((int64_t)total[1] / pow(2, (uint32_t)(52 - r.cub_shift[1] - row_shift)));
        f[2] = (float)((int64_t)total[2] / pow(2, (uint32_t)(57 - r.cub_shift[2] - row_shift)));
    } else {
        static const uint32_t base[3] = { 45, 39, 36 };
        const float div = (float)pow(2, (uint32_t)(base[scale - 1] - r.cub_shift[0] - row_shift));
        for (int t = 0; t < 3; t++)
            f[t] = (float)(int64_t)total[t] / div;
    }
    const float n0 = powf(f[0], 1.0f / 3) + noise, n1 = powf(f[1], 1.0f / 3) + noise;
    const float n2 = powf(f[2], 1.0f / 3) + noise;
    return n0 + n1 + n2;
}

static int same_float(float a, float b)
{
    return a == b || (a != a && b != b);
}

static void test_masked_sums(void)
{
    static const int sizes[][2] = { { 40, 30 }, { 12, 9 }, { 9, 9 }, { 15, 16 }, { 37, 3 },
                                    { 100, 7 }, { 2, 2 }, { 26, 26 } };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (int trial = 0; trial < 6; trial++) {
            const int w = sizes[si][0], h = sizes[si][1];
            VmafAdmBuffers b;
            if (vmaf_adm_buffers_alloc(&b, 2 * (unsigned)w, 2 * (unsigned)h))
                exit(2);
            const size_t s = b.stride;
            const int big = trial >= 4; /* extremes: wrap-arounds and saturations */
            const int big_centres = trial == 1; /* large CSF values, small masks */
            int16_t *s16[9] = { b.r16.h, b.r16.v, b.r16.d, b.csf16.h, b.csf16.v, b.csf16.d,
                                b.mask16.h, b.mask16.v, b.mask16.d };
            int32_t *s32[9] = { b.r32.h, b.r32.v, b.r32.d, b.csf32.h, b.csf32.v, b.csf32.d,
                                b.mask32.h, b.mask32.v, b.mask32.d };
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++)
                    for (int q = 0; q < 9; q++) {
                        const size_t p = (size_t)i * s + j;
                        const int wide = big || (big_centres && q < 6);
                        s16[q][p] = (int16_t)rng_signed(wide ? 15 : q < 6 ? 11 : 7);
                        s32[q][p] = rng_signed(wide ? 30 : q < 6 ? 22 : 17);
                        if (q >= 6 && !big) { /* masks are magnitudes / 30 */
                            s16[q][p] = (int16_t)(s16[q][p] < 0 ? -s16[q][p] : s16[q][p]);
                            s32[q][p] = s32[q][p] < 0 ? -s32[q][p] : s32[q][p];
                        }
                    }
            const double nw = trial & 1 ? 0.0 : 0.03125;
            VmafAdmScaleFactors f0 = { .rfactor = { 0.0173815377f, 0.0173815377f, 0.005890687f },
                                       .i_rfactor = { 36453, 36453, 49417 } };
            if (trial >= 2)
                for (int t = 0; t < 3; t++)
                    f0.i_rfactor[t] = rng() & 0xFFFF;
            const float got0 =
                vmaf_adm_masked_sum_scale0(&b.r16, &b.csf16, &b.mask16, w, h, s, &f0, nw);
            const CmBands16 c16 = { { b.r16.h, b.r16.v, b.r16.d },
                                    { b.csf16.h, b.csf16.v, b.csf16.d },
                                    { b.mask16.h, b.mask16.v, b.mask16.d } };
            const CmInput in16 = { w, h, s, src16, csf16, mask16, &c16 };
            const float want0 = naive_masked_sum(&in16, 0, f0.i_rfactor, nw);
            CHECK(same_float(got0, want0), "masked sum scale 0 %dx%d trial %d: %.9g != %.9g",
                  w, h, trial, got0, want0);

            const CmBands32 c32 = { { b.r32.h, b.r32.v, b.r32.d },
                                    { b.csf32.h, b.csf32.v, b.csf32.d },
                                    { b.mask32.h, b.mask32.v, b.mask32.d } };
            const CmInput in32 = { w, h, s, src32, csf32, mask32, &c32 };
            for (unsigned scale = 1; scale <= 3; scale++) {
                VmafAdmScaleFactors f = { .i_rfactor = { 137373792, 137373792, 61414028 } };
                if (trial >= 2) /* signed/unsigned matters from 2^31 up */
                    for (int t = 0; t < 3; t++)
                        f.i_rfactor[t] =
                            trial == 3 ? 0xFFFFFFFFu : (uint32_t)rng() << 1 | (rng() & 1);
                const float got = vmaf_adm_masked_sum_scale123(&b.r32, &b.csf32, &b.mask32, w,
                                                               h, s, &f, scale, nw);
                const float want = naive_masked_sum(&in32, (int)scale, f.i_rfactor, nw);
                CHECK(same_float(got, want),
                      "masked sum scale %u %dx%d trial %d: %.9g != %.9g", scale, w, h, trial,
                      got, want);
            }

            /* denominators */
            int left, top, right, bottom;
            inner_region(w, h, &left, &top, &right, &bottom);
            const int area = (bottom - top) * (right - left);
            int32_t shift = (int32_t)ceil(log2(area) - 20);
            shift = shift > 0 ? shift : 0;
            float want_den0 = 0.0f;
            for (int t = 0; t < 3; t++) {
                uint64_t acc = 0;
                for (int i = top; i < bottom; i++) {
                    uint64_t row = 0;
                    for (int j = left; j < right; j++) {
                        const uint64_t a = (uint64_t)llabs(s16[t][(size_t)i * s + j]);
                        row += a * a * a;
                    }
                    acc += (row + (shift ? (uint64_t)1 << (shift - 1) : 0)) >> shift;
                }
                const double csf = (double)(acc / pow(2, 18 - shift)) * pow(f0.rfactor[t], 3);
                const float dt = powf((float)csf, 1.0f / 3) + powf((float)(area * nw), 1.0f / 3);
                want_den0 = t ? want_den0 + dt : dt;
            }
            const VmafAdmBands16 ref16 = { NULL, b.r16.h, b.r16.v, b.r16.d };
            const float got_den0 = vmaf_adm_den_scale0(&ref16, w, h, s, &f0, nw);
            CHECK(same_float(got_den0, want_den0), "den scale 0 %dx%d: %.9g != %.9g", w, h,
                  got_den0, want_den0);
            for (unsigned scale = 1; scale <= 3; scale++) {
                static const int sq[3] = { 31, 30, 31 }, fin[3] = { 32, 27, 23 };
                const uint32_t cs = u32_shift(log2(right - left)), cr = u32_round(cs);
                const uint32_t rs = u32_shift(log2(bottom - top)), rr = u32_round(rs);
                VmafAdmScaleFactors f = { .rfactor = { 0.03f, 0.03f, 0.014f } };
                float want = 0.0f;
                for (int t = 0; t < 3; t++) {
                    uint64_t acc = 0;
                    for (int i = top; i < bottom; i++) {
                        uint64_t row = 0;
                        for (int j = left; j < right; j++) {
                            const uint64_t a = (uint64_t)llabs(s32[t][(size_t)i * s + j]);
                            const uint64_t a2 = (a * a + ((uint64_t)1 << sq[scale - 1])) >>
                                                sq[scale - 1];
                            row += (a2 * a + cr) >> cs;
                        }
                        acc += (row + rr) >> rs;
                    }
                    const double csf =
                        (double)(acc / pow(2, (uint32_t)(fin[scale - 1] - rs - cs))) *
                        pow(f.rfactor[t], 3);
                    const float dt = powf((float)csf, 1.0f / 3) +
                                     powf((float)(area * nw), 1.0f / 3);
                    want = t ? want + dt : dt;
                }
                const VmafAdmBands32 ref32 = { NULL, b.r32.h, b.r32.v, b.r32.d };
                const float got = vmaf_adm_den_scale123(&ref32, w, h, s, &f, scale, nw);
                CHECK(same_float(got, want), "den scale %u %dx%d: %.9g != %.9g", scale, w, h,
                      got, want);
            }
            vmaf_adm_buffers_free(&b);
        }
}

/* ------------------------------------------------------------------------------------- */
/* Whole frames                                                                           */

static VmafAdmOptions default_options(void)
{
    const VmafAdmOptions o = {
        .csf_scale = 1.0, .csf_diag_scale = 1.0, .dlm_weight = 0.5, .enhn_gain_limit = 100.0,
        .norm_view_dist = 3.0, .ref_display_height = 1080, .csf_mode = 0,
        .noise_weight = 0.03125, .min_val = 0.0,
    };
    return o;
}

static int score(const Plane *ref, const Plane *dis, const VmafAdmOptions *o,
                 VmafAdmBuffers *b, VmafAdmScores *out)
{
    VmafAdmScaleFactors f[VMAF_ADM_SCALES];
    vmaf_adm_scale_factors(o, f);
    VmafAdmBuffers own;
    if (!b) {
        if (vmaf_adm_buffers_alloc(&own, ref->w, ref->h))
            return -1;
        b = &own;
    }
    memset(out, 0, sizeof(*out));
    vmaf_adm_score(b, o, f, ref->data, ref->stride, dis->data, dis->stride, ref->bpc, out);
    if (b == &own)
        vmaf_adm_buffers_free(&own);
    return 0;
}

static int same_double(double a, double b)
{
    return a == b || (a != a && b != b);
}

static int same_scores(const VmafAdmScores *a, const VmafAdmScores *b)
{
    int same = same_double(a->adm2, b->adm2) && same_double(a->aim, b->aim) &&
               same_double(a->adm3, b->adm3) && same_double(a->num, b->num) &&
               same_double(a->den, b->den);
    for (int s = 0; s < VMAF_ADM_SCALES; s++)
        same = same && same_double(a->num_scale[s], b->num_scale[s]) &&
               same_double(a->den_scale[s], b->den_scale[s]);
    return same;
}

/* Identical pictures, with the values reference libvmaf writes for them: a constant picture
 * scores exactly 1 on every scale; other contents score close to 1 with aim 0, except where
 * the reference's unmirrored last columns make reference and distorted bands differ (the
 * 65-wide constant picture, whose scale-1 band is 17 wide). */
static void test_identical(void)
{
    static const struct {
        unsigned w, h, bpc;
        int pattern; /* 0: constant 117; 1, 2: ramps */
        double noise_weight;
        double expect[7]; /* adm2, aim, adm3, scale0..3 (NaN: 0/0) */
    } cases[] = {
        { 64, 48, 8, 0, 0.03125, { 1, 0, 1, 1, 1, 1, 1 } },
        { 65, 37, 8, 0, 0.03125,
          { 0.99999484900544078, 0, 0.99999742450272033, 1, 0.99999990631675229,
            0.99998739940621417, 0.99998922078087704 } },
        { 64, 48, 8, 1, 0.03125,
          { 1.0000030537767708, 0, 1.0000015268883855, 1.0000231110556523,
            1.0000002226555593, 1.0000003304286817, 1.0000005171227755 } },
        { 33, 21, 10, 2, 0.03125,
          { 0.99004767323170373, 0, 0.99502383661585192, 1.0000257792469818,
            0.99020503298598672, 1.0000003707642318, 0.97618073046662068 } },
        /* no detail and no noise floor: den is 0, adm2 is 1 by definition; the reference
         * leaves aim undefined here, Twin VMAF writes 0 */
        { 64, 48, 8, 0, 0.0, { 1, 0, 1, NAN, NAN, NAN, NAN } },
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        Plane p;
        if (plane_alloc(&p, cases[c].w, cases[c].h, cases[c].bpc))
            exit(2);
        for (unsigned y = 0; y < p.h; y++)
            for (unsigned x = 0; x < p.w; x++)
                plane_set(&p, (int)y, (int)x,
                          cases[c].pattern == 0   ? 117
                          : cases[c].pattern == 1 ? (x * 7 + y * 13) % 200 + 20
                                                  : (x * 37 + y * 91) % 1000 + 10);
        VmafAdmOptions o = default_options();
        o.noise_weight = cases[c].noise_weight;
        VmafAdmScores s;
        if (score(&p, &p, &o, NULL, &s))
            exit(2);
        const double got[7] = { s.adm2, s.aim, s.adm3, s.num_scale[0] / s.den_scale[0],
                                s.num_scale[1] / s.den_scale[1], s.num_scale[2] / s.den_scale[2],
                                s.num_scale[3] / s.den_scale[3] };
        for (int k = 0; k < 7; k++)
            CHECK(same_double(got[k], cases[c].expect[k]),
                  "identical %ux%u %u-bit case %zu value %d: %.17g != %.17g", p.w, p.h, p.bpc,
                  c, k, got[k], cases[c].expect[k]);
        free(p.data);
    }
}

/* A frame's scores do not depend on what the buffers held before (so any thread count gives
 * the same results), including sizes whose index rules read stale buffer regions. */
static void test_reuse(void)
{
    static const unsigned sizes[][3] = { { 3, 3, 8 }, { 4, 7, 8 }, { 8, 5, 10 }, { 17, 17, 8 },
                                         { 65, 37, 8 }, { 130, 20, 16 }, { 33, 33, 12 } };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        const unsigned w = sizes[si][0], h = sizes[si][1], bpc = sizes[si][2];
        Plane a_ref, a_dis, b_ref, b_dis;
        if (plane_alloc(&a_ref, w, h, bpc) || plane_alloc(&a_dis, w, h, bpc) ||
            plane_alloc(&b_ref, w, h, bpc) || plane_alloc(&b_dis, w, h, bpc))
            exit(2);
        fill_plane(&a_ref, 0);
        fill_plane(&a_dis, 0);
        fill_plane(&b_ref, 2);
        fill_plane(&b_dis, 1);
        VmafAdmOptions o = default_options();
        o.enhn_gain_limit = 1.2;
        VmafAdmBuffers buf;
        if (vmaf_adm_buffers_alloc(&buf, w, h))
            exit(2);
        VmafAdmScores first, second, again, fresh;
        score(&a_ref, &a_dis, &o, &buf, &first);
        score(&b_ref, &b_dis, &o, &buf, &second);
        score(&a_ref, &a_dis, &o, &buf, &again);
        score(&b_ref, &b_dis, &o, NULL, &fresh);
        CHECK(same_scores(&first, &again), "%ux%u %u-bit: a frame scores differently after "
              "another (adm2 %.17g then %.17g)", w, h, bpc, first.adm2, again.adm2);
        CHECK(same_scores(&second, &fresh), "%ux%u %u-bit: reused buffers score differently "
              "from fresh ones (adm2 %.17g, %.17g)", w, h, bpc, second.adm2, fresh.adm2);
        vmaf_adm_buffers_free(&buf);
        free(a_ref.data);
        free(a_dis.data);
        free(b_ref.data);
        free(b_dis.data);
    }
}

/* Pictures down to 1x1 are scored without reading outside the buffers (run under ASan) and
 * deterministically; the scores are numbers or NaN. */
static void test_tiny(void)
{
    for (unsigned w = 1; w <= 9; w++)
        for (unsigned h = 1; h <= 9; h++)
            for (unsigned bpc = 8; bpc <= 16; bpc += 8) {
                Plane r, d;
                if (plane_alloc(&r, w, h, bpc) || plane_alloc(&d, w, h, bpc))
                    exit(2);
                fill_plane(&r, 0);
                fill_plane(&d, 0);
                const VmafAdmOptions o = default_options();
                VmafAdmScores s1, s2;
                score(&r, &d, &o, NULL, &s1);
                score(&r, &d, &o, NULL, &s2);
                CHECK(same_scores(&s1, &s2), "%ux%u %u-bit: not deterministic", w, h, bpc);
                CHECK(!isinf(s1.adm2) && !isinf(s1.aim), "%ux%u %u-bit: infinite score", w, h,
                      bpc);
                free(r.data);
                free(d.data);
            }
}

/* ------------------------------------------------------------------------------------- */
/* Hand-written SIMD stages against the plain ones                                        */

static int same_band32(const int32_t *a, const int32_t *b, int w, int h, size_t stride)
{
    for (int i = 0; i < h; i++)
        if (memcmp(a + (size_t)i * stride, b + (size_t)i * stride, (size_t)w * sizeof(int32_t)))
            return 0;
    return 1;
}

static int same_band16(const int16_t *a, const int16_t *b, int w, int h, size_t stride)
{
    for (int i = 0; i < h; i++)
        if (memcmp(a + (size_t)i * stride, b + (size_t)i * stride, (size_t)w * sizeof(int16_t)))
            return 0;
    return 1;
}

static void fill_pair(Plane *ref, Plane *dis, int pattern)
{
    const unsigned max = (1u << ref->bpc) - 1;
    for (unsigned i = 0; i < ref->h; i++)
        for (unsigned j = 0; j < ref->w; j++) {
            unsigned r, d;
            switch (pattern) {
            case 0: r = rng() & max; d = rng() & max; break;              /* unrelated */
            case 1: r = (rng() & 1) ? max : 0; d = (rng() & 3) ? r : max - r; break;
            case 2: {                                                     /* distorted copy */
                r = (unsigned)((i * 37 + j * 11 + (rng() & 15)) % (max + 1));
                const int64_t n = (int64_t)r + (int64_t)(rng() % 9) - 4;
                d = (unsigned)(n < 0 ? 0 : (n > max ? max : n));
                break;
            }
            default: {                                                    /* enhanced copy */
                r = (unsigned)(((i / 3) * 53 + (j / 2) * 29) % (max + 1));
                const int64_t n = (int64_t)r * 5 / 4 - (max >> 4);
                d = (unsigned)(n < 0 ? 0 : (n > max ? max : n));
            }
            }
            plane_set(ref, (int)i, (int)j, r);
            plane_set(dis, (int)i, (int)j, d);
        }
}

/* Direct comparison of the SIMD decouple stages with the plain ones on random detail bands
 * (full int16 range, extremes, zeros, related and unrelated pairs), odd sizes and gains. */
static void test_simd_decouple(void)
{
    static const int sizes[][2] = { { 3, 3 },   { 17, 9 },  { 21, 20 }, { 33, 21 }, { 40, 30 },
                                    { 47, 13 }, { 63, 7 },  { 80, 11 }, { 101, 5 }, { 131, 17 } };
    static const double gains[] = { 100.0, 1.0, 1.2, 1.7, 3.3, 1e9 };
    static const int bits16[] = { 4, 8, 12, 15, 16 };
    static const int bits32[] = { 8, 14, 15, 16, 20, 23, 24, 26, 27, 30, 31 };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (size_t gi = 0; gi < sizeof(gains) / sizeof(gains[0]); gi++) {
            const int w = sizes[si][0], h = sizes[si][1];
            VmafAdmBuffers b, e;
            if (vmaf_adm_buffers_alloc(&b, 2 * (unsigned)w, 2 * (unsigned)h) ||
                vmaf_adm_buffers_alloc(&e, 2 * (unsigned)w, 2 * (unsigned)h))
                exit(2);
            const size_t s = b.stride;
            int16_t *b16[6] = { b.ref16.h, b.ref16.v, b.ref16.d, b.dis16.h, b.dis16.v, b.dis16.d };
            int16_t *e16[6] = { e.ref16.h, e.ref16.v, e.ref16.d, e.dis16.h, e.dis16.v, e.dis16.d };
            int32_t *b32[6] = { b.ref32.h, b.ref32.v, b.ref32.d, b.dis32.h, b.dis32.v, b.dis32.d };
            int32_t *e32[6] = { e.ref32.h, e.ref32.v, e.ref32.d, e.dis32.h, e.dis32.v, e.dis32.d };
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++) {
                    const size_t p = (size_t)i * s + j;
                    int64_t o[3], t[3];
                    fill_detail(o, t, bits16, 5);
                    for (int q = 0; q < 3; q++) {
                        int64_t v[2] = { o[q], t[q] };
                        for (int n = 0; n < 2; n++) {
                            if (rng() % 53 == 0)
                                v[n] = (rng() & 1) ? -32768 : 32767;
                            v[n] = v[n] > 32767 ? 32767 : v[n] < -32768 ? -32768 : v[n];
                            b16[3 * n + q][p] = e16[3 * n + q][p] = (int16_t)v[n];
                        }
                    }
                    fill_detail(o, t, bits32, 11);
                    for (int q = 0; q < 3; q++) {
                        int64_t v[2] = { o[q], t[q] };
                        for (int n = 0; n < 2; n++) {
                            if (rng() % 53 == 0)
                                v[n] = (rng() & 1) ? -INT32_MAX : INT32_MAX; /* sums of two squares fit int64 */
                            v[n] = v[n] > INT32_MAX ? INT32_MAX : v[n] < -INT32_MAX ? -INT32_MAX : v[n];
                            b32[3 * n + q][p] = e32[3 * n + q][p] = (int32_t)v[n];
                        }
                    }
                }
            const double g = gains[gi];
            vmaf_adm_decouple_scale0_simd(&b.ref16, &b.dis16, &b.r16, &b.a16, w, h, s, g);
            vmaf_adm_decouple_scale0(&e.ref16, &e.dis16, &e.r16, &e.a16, w, h, s, g);
            const int same0 = same_band16(b.r16.h, e.r16.h, w, h, s) &&
                              same_band16(b.r16.v, e.r16.v, w, h, s) &&
                              same_band16(b.r16.d, e.r16.d, w, h, s) &&
                              same_band16(b.a16.h, e.a16.h, w, h, s) &&
                              same_band16(b.a16.v, e.a16.v, w, h, s) &&
                              same_band16(b.a16.d, e.a16.d, w, h, s);
            CHECK(same0, "simd decouple0 %dx%d gain %g", w, h, g);
            vmaf_adm_decouple_scale123_simd(&b.ref32, &b.dis32, &b.r32, &b.a32, w, h, s, g);
            vmaf_adm_decouple_scale123(&e.ref32, &e.dis32, &e.r32, &e.a32, w, h, s, g);
            const int same1 = same_band32(b.r32.h, e.r32.h, w, h, s) &&
                              same_band32(b.r32.v, e.r32.v, w, h, s) &&
                              same_band32(b.r32.d, e.r32.d, w, h, s) &&
                              same_band32(b.a32.h, e.a32.h, w, h, s) &&
                              same_band32(b.a32.v, e.a32.v, w, h, s) &&
                              same_band32(b.a32.d, e.a32.d, w, h, s);
            CHECK(same1, "simd decouple123 %dx%d gain %g", w, h, g);
            vmaf_adm_buffers_free(&b);
            vmaf_adm_buffers_free(&e);
        }
}

static void test_simd_paths(void)
{
    if (!vmaf_adm_simd_available()) {
        printf("test_adm: SIMD stages not available, skipped\n");
        return;
    }
    test_simd_decouple();
    static const unsigned sizes[][2] = { { 2, 2 },    { 3, 5 },    { 5, 5 },     { 9, 17 },
                                         { 17, 17 },  { 33, 21 },  { 40, 33 },   { 65, 9 },
                                         { 65, 37 },  { 130, 7 },  { 129, 66 },  { 131, 67 },
                                         { 161, 45 }, { 258, 35 }, { 301, 171 }, { 514, 19 } };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        for (unsigned bpc = 8; bpc <= 16; bpc++) {
            for (int pattern = 0; pattern < 4; pattern++) {
                const unsigned w = sizes[si][0], h = sizes[si][1];
                Plane ref, dis;
                VmafAdmBuffers b, e;
                if (plane_alloc(&ref, w, h, bpc) || plane_alloc(&dis, w, h, bpc) ||
                    vmaf_adm_buffers_alloc(&b, w, h) || vmaf_adm_buffers_alloc(&e, w, h))
                    exit(2);
                e.simd = false;
                CHECK(b.simd, "simd not chosen at allocation");
                fill_pair(&ref, &dis, pattern);
                const int hw = (int)(w + 1) / 2, hh = (int)(h + 1) / 2;

                /* scale-0 DWT, both modes */
                for (int lo_only = 0; lo_only < 2; lo_only++) {
                    vmaf_adm_dwt_scale0_simd(ref.data, ref.stride, bpc, (int)w, (int)h,
                                             (int16_t *)b.rows, &b.ref16, b.ref32.a, b.stride,
                                             lo_only);
                    vmaf_adm_dwt_scale0(ref.data, ref.stride, bpc, (int)w, (int)h,
                                        (int16_t *)e.rows, &e.ref16, e.ref32.a, e.stride,
                                        lo_only);
                    int same = same_band32(b.ref32.a, e.ref32.a, hw, hh, b.stride);
                    if (!lo_only)
                        same = same && same_band16(b.ref16.h, e.ref16.h, hw, hh, b.stride) &&
                               same_band16(b.ref16.v, e.ref16.v, hw, hh, b.stride) &&
                               same_band16(b.ref16.d, e.ref16.d, hw, hh, b.stride);
                    CHECK(same, "simd dwt0 %ux%u %u-bit pattern %d lo_only %d", w, h, bpc,
                          pattern, lo_only);
                }

                /* whole frames (every stage the SIMD path replaces), default and variants */
                for (int variant = 0; variant < 3; variant++) {
                    VmafAdmOptions o = default_options();
                    if (variant == 1)
                        o.skip_scale0 = true;
                    if (variant == 2) {
                        o.csf_mode = VMAF_ADM_CSF_BARTEN;
                        o.enhn_gain_limit = 1.0;
                    }
                    VmafAdmScores sb, se;
                    score(&ref, &dis, &o, &b, &sb);
                    score(&ref, &dis, &o, &e, &se);
                    CHECK(same_scores(&sb, &se),
                          "simd scores %ux%u %u-bit pattern %d variant %d: adm2 %.17g != %.17g",
                          w, h, bpc, pattern, variant, sb.adm2, se.adm2);
                }
                free(ref.data);
                free(dis.data);
                vmaf_adm_buffers_free(&b);
                vmaf_adm_buffers_free(&e);
            }
        }
    }

    /* scales 1..3 DWT on full-range int32 band A (the int64 sums and their wrap) */
    static const int sizes123[][2] = { { 3, 3 },   { 8, 5 },   { 17, 9 },  { 18, 18 },
                                       { 33, 11 }, { 34, 7 },  { 35, 13 }, { 99, 21 } };
    for (size_t si = 0; si < sizeof(sizes123) / sizeof(sizes123[0]); si++) {
        for (unsigned scale = 1; scale <= 3; scale++) {
            for (int bits = 15; bits <= 31; bits += 8) {
                const int w = sizes123[si][0], h = sizes123[si][1];
                VmafAdmBuffers b, e;
                if (vmaf_adm_buffers_alloc(&b, 2 * (unsigned)w, 2 * (unsigned)h) ||
                    vmaf_adm_buffers_alloc(&e, 2 * (unsigned)w, 2 * (unsigned)h))
                    exit(2);
                for (int i = 0; i < h; i++)
                    for (int j = 0; j < w; j++) {
                        const size_t o = (size_t)i * b.stride + j;
                        const int32_t x = rng_signed(bits), y = rng_signed(bits);
                        b.ref32.a[o] = e.ref32.a[o] = (rng() & 7) ? x : INT32_MIN;
                        b.dis32.a[o] = e.dis32.a[o] = y;
                    }
                vmaf_adm_dwt_scale123_simd(&b.ref32, &b.dis32, b.rows, w, h, b.stride, scale);
                vmaf_adm_dwt_scale123(&e.ref32, &e.dis32, e.rows, w, h, e.stride, scale);
                const int hw = (w + 1) / 2, hh = (h + 1) / 2;
                const VmafAdmBands32 *pb[2] = { &b.ref32, &b.dis32 },
                                     *pe[2] = { &e.ref32, &e.dis32 };
                int same = 1;
                for (int n = 0; n < 2; n++)
                    same = same && same_band32(pb[n]->a, pe[n]->a, hw, hh, b.stride) &&
                           same_band32(pb[n]->h, pe[n]->h, hw, hh, b.stride) &&
                           same_band32(pb[n]->v, pe[n]->v, hw, hh, b.stride) &&
                           same_band32(pb[n]->d, pe[n]->d, hw, hh, b.stride);
                CHECK(same, "simd dwt123 %dx%d scale %u bits %d", w, h, scale, bits);
                vmaf_adm_buffers_free(&b);
                vmaf_adm_buffers_free(&e);
            }
        }
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        seed = strtoull(argv[1], NULL, 0);
    rng_state = seed ? seed : 1;

    test_helpers();
    test_dwt0();
    test_dwt0_constant();
    test_dwt123();
    test_decouple();
    test_csf();
    test_masked_sums();
    test_identical();
    test_reuse();
    test_tiny();
    test_simd_paths();

    if (failures) {
        fprintf(stderr, "test_adm: %d failure(s) (seed %" PRIu64 ")\n", failures, seed);
        return 1;
    }
    printf("test_adm: %d checks passed (seed %" PRIu64 ")\n", checks, seed);
    return 0;
}
