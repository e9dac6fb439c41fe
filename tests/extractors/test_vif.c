/*
 * Unit test of the integer VIF kernels (src/feature/vif.c) and the "vif" extractor.
 *
 * 1. Every build of vmaf_vif_compute() (plain, AVX2 where the CPU has it) against a
 *    deliberately naive evaluation written in the reference's structure: whole images,
 *    64-bit sums in the reference's order, each subsampled scale filtered at every pixel
 *    and then decimated, the log2 table built with log2f, one pixel at a time. Seeded
 *    frames (random, correlated, amplified, extreme, identical, flat) at 8..16 bits, odd
 *    sizes, strides with garbage padding, and the option variants; the four integer sums
 *    of every scale must be equal.
 * 2. Values written by reference libvmaf 3.2.0 for frames this test generates (anchors).
 * 3. Identical reference and distorted frames. Reference libvmaf does NOT give exactly 1:
 *    int64(g*g*sigma) truncates to sigma - 1 on the log path, and pixels below the noise
 *    variance lose sigma_yy / (16384 * 65025) on the other. Flat frames give exactly 1;
 *    textured ones a little less, never more.
 * 4. The extractor through the public API: debug outputs on flat frames.
 *
 * Exit status 0 when every check passes; the seed and the case are printed on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/vif.h"
#include "libvmaf/libvmaf.h"

#include "test_util.h"

/* ------------------------------------------------------------------------------------- */
/* Naive evaluation                                                                      */

static const int filter_width[4] = { 17, 9, 5, 3 };
static const uint64_t filter[4][17] = {
    { 489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640,
      935, 489 },
    { 1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244 },
    { 3571, 16004, 26386, 16004, 3571 },
    { 10904, 43728, 10904 },
};

typedef struct Image {
    int w, h;
    uint32_t *v; /* w * h values, rows packed */
} Image;

static Image image_new(int w, int h)
{
    Image im = { w, h, calloc((size_t)(w > 0 ? w : 1) * (h > 0 ? h : 1), sizeof(uint32_t)) };
    if (!im.v) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return im;
}

static uint32_t at(const Image *im, int i, int j)
{
    return im->v[(size_t)test_reflect(i, im->h) * im->w + test_reflect(j, im->w)];
}

/* 2048 log2 as the reference tabulates it: log2f, rounded half away from zero. */
static uint16_t log2_table_naive[65536];

static void log2_table_naive_init(void)
{
    for (unsigned i = 32767; i < 65536; i++)
        log2_table_naive[i] = (uint16_t)round(log2f((float)i) * 2048);
}

static int64_t log2_naive(uint64_t v)
{
    int bits = 0;
    for (uint64_t t = v; t; t >>= 1)
        bits++;
    const int k = bits - 16;
    return log2_table_naive[v >> k] + 2048 * (int64_t)k;
}

/* Statistic of scale s over images x (ref) and y (dis). */
static VmafVifSums naive_statistic(const Image *x, const Image *y, int s, unsigned bpc,
                                   double egl)
{
    const int w = x->w, h = x->h, fw = filter_width[s], half = fw / 2;
    const uint64_t *f = filter[s];
    const int mu_shift = s == 0 ? (int)bpc : 16;
    const int q = s == 0 ? 2 * ((int)bpc - 8) : 16;
    VmafVifSums sums = { 0, 0, 0, 0 };
    if (w <= 0 || h <= 0)
        return sums;

    Image vm1 = image_new(w, h), vm2 = image_new(w, h);
    Image vxx = image_new(w, h), vyy = image_new(w, h), vxy = image_new(w, h);
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
            uint64_t m1 = 0, m2 = 0, xx = 0, yy = 0, xy = 0;
            for (int k = 0; k < fw; k++) {
                const uint64_t a = at(x, i - half + k, j), b = at(y, i - half + k, j);
                m1 += f[k] * a;
                m2 += f[k] * b;
                xx += f[k] * a * a;
                yy += f[k] * b * b;
                xy += f[k] * a * b;
            }
            const size_t o = (size_t)i * w + j;
            vm1.v[o] = (uint32_t)((m1 + (1ull << (mu_shift - 1))) >> mu_shift);
            vm2.v[o] = (uint32_t)((m2 + (1ull << (mu_shift - 1))) >> mu_shift);
            const uint64_t r = q ? 1ull << (q - 1) : 0;
            vxx.v[o] = (uint32_t)((xx + r) >> q);
            vyy.v[o] = (uint32_t)((yy + r) >> q);
            vxy.v[o] = (uint32_t)((xy + r) >> q);
        }
    }
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
            uint64_t m1 = 0, m2 = 0, xx = 0, yy = 0, xy = 0;
            for (int k = 0; k < fw; k++) {
                m1 += f[k] * at(&vm1, i, j - half + k);
                m2 += f[k] * at(&vm2, i, j - half + k);
                xx += f[k] * at(&vxx, i, j - half + k);
                yy += f[k] * at(&vyy, i, j - half + k);
                xy += f[k] * at(&vxy, i, j - half + k);
            }
            const uint32_t mu1 = (uint32_t)m1, mu2 = (uint32_t)m2;
            const uint32_t mu1_sq = (uint32_t)(((uint64_t)mu1 * mu1 + 2147483648ull) >> 32);
            const uint32_t mu2_sq = (uint32_t)(((uint64_t)mu2 * mu2 + 2147483648ull) >> 32);
            const uint32_t mu1_mu2 = (uint32_t)(((uint64_t)mu1 * mu2 + 2147483648ull) >> 32);
            const uint32_t exx = (uint32_t)((xx + 32768) >> 16);
            const uint32_t eyy = (uint32_t)((yy + 32768) >> 16);
            const uint32_t exy = (uint32_t)((xy + 32768) >> 16);
            const int32_t sigma1 = (int32_t)(exx - mu1_sq);
            int32_t sigma2 = (int32_t)(eyy - mu2_sq);
            const int32_t sigma12 = (int32_t)(exy - mu1_mu2);
            if (sigma2 < 0)
                sigma2 = 0;
            if (sigma1 >= 131072) {
                sums.den_log += log2_naive((uint64_t)(131072 + sigma1)) - 2048 * 17;
                if (sigma12 > 0 && sigma2 > 0) {
                    double g = sigma12 / (sigma1 + 65536 * 1.0e-10);
                    int32_t sv = (int32_t)(sigma2 - g * sigma12);
                    if (sv < 0)
                        sv = 0;
                    if (g > egl)
                        g = egl;
                    const uint64_t n1 = (uint64_t)sv + 131072;
                    const uint64_t n2 = (uint64_t)(int64_t)(g * g * sigma1) + n1;
                    sums.num_log += log2_naive(n2) - log2_naive(n1);
                }
            } else {
                sums.num_non_log += sigma2;
                sums.den_non_log++;
            }
        }
    }
    free(vm1.v);
    free(vm2.v);
    free(vxx.v);
    free(vyy.v);
    free(vxy.v);
    return sums;
}

/* Filter x with filter s+1 everywhere, then keep even rows and columns. */
static Image naive_subsample(const Image *x, int s, unsigned bpc)
{
    const int w = x->w, h = x->h, fw = filter_width[s + 1], half = fw / 2;
    const uint64_t *f = filter[s + 1];
    const int shift = s == 0 ? (int)bpc : 16;
    Image v = image_new(w, h), full = image_new(w, h), out = image_new(w / 2, h / 2);
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            uint64_t a = 0;
            for (int k = 0; k < fw; k++)
                a += f[k] * at(x, i - half + k, j);
            v.v[(size_t)i * w + j] = (uint32_t)((a + (1ull << (shift - 1))) >> shift);
        }
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            uint64_t a = 0;
            for (int k = 0; k < fw; k++)
                a += f[k] * at(&v, i, j - half + k);
            full.v[(size_t)i * w + j] = (uint16_t)((a + 32768) >> 16);
        }
    for (int i = 0; i < h / 2; i++)
        for (int j = 0; j < w / 2; j++)
            out.v[(size_t)i * (w / 2) + j] = full.v[(size_t)(2 * i) * w + 2 * j];
    free(v.v);
    free(full.v);
    return out;
}

static void naive_vif(const Image *ref, const Image *dis, unsigned bpc, double egl, int skip0,
                      VmafVifSums sums[4])
{
    Image x = *ref, y = *dis;
    for (int s = 0; s < 4; s++) {
        if (s > 0) {
            Image x2 = naive_subsample(&x, s - 1, bpc), y2 = naive_subsample(&y, s - 1, bpc);
            if (s > 1) {
                free(x.v);
                free(y.v);
            }
            x = x2;
            y = y2;
        }
        const VmafVifSums zero = { 0, 0, 0, 0 };
        sums[s] = (s == 0 && skip0) ? zero : naive_statistic(&x, &y, s, bpc, egl);
    }
    free(x.v);
    free(y.v);
}

/* ------------------------------------------------------------------------------------- */
/* Frames                                                                                */

static void fill(Image *ref, Image *dis, unsigned bpc, enum PairPattern pat)
{
    const int32_t max = (int32_t)((1u << bpc) - 1);
    const int32_t flat = (int32_t)(rng() % (uint32_t)(max + 1));
    for (int i = 0; i < ref->h; i++) {
        for (int j = 0; j < ref->w; j++) {
            int32_t r, d;
            test_pattern_pair(pat, max, flat, (unsigned)i, (unsigned)j, &r, &d);
            ref->v[(size_t)i * ref->w + j] = (uint32_t)r;
            dis->v[(size_t)i * dis->w + j] = (uint32_t)d;
        }
    }
}

/* Pack an image into a plane of bpc-bit samples with `extra` samples of garbage per row. */
static unsigned char *pack(const Image *im, unsigned bpc, int extra, ptrdiff_t *stride)
{
    const size_t bytes = bpc > 8 ? 2 : 1;
    *stride = (ptrdiff_t)((size_t)(im->w + extra) * bytes);
    unsigned char *p = malloc((size_t)*stride * (size_t)im->h + 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t k = 0; k < (size_t)*stride * (size_t)im->h; k++)
        p[k] = (unsigned char)rng();
    for (int i = 0; i < im->h; i++)
        for (int j = 0; j < im->w; j++) {
            const uint32_t v = im->v[(size_t)i * im->w + j];
            unsigned char *row = p + (size_t)i * (size_t)*stride;
            if (bpc == 8) {
                row[j] = (unsigned char)v;
            } else {
                const uint16_t s = (uint16_t)v;
                memcpy(row + 2 * (size_t)j, &s, sizeof(s));
            }
        }
    return p;
}

static int sums_equal(const VmafVifSums *a, const VmafVifSums *b)
{
    return a->num_log == b->num_log && a->den_log == b->den_log &&
           a->num_non_log == b->num_non_log && a->den_non_log == b->den_non_log;
}

/* ------------------------------------------------------------------------------------- */
/* 1. Every build against the naive evaluation                                           */

static const enum VmafVifImpl impls[] = { VMAF_VIF_IMPL_PLAIN, VMAF_VIF_IMPL_AVX2,
                                           VMAF_VIF_IMPL_AVX2_MADD, VMAF_VIF_IMPL_AVX512,
                                           VMAF_VIF_IMPL_AVX512_VNNI, VMAF_VIF_IMPL_BEST };
static const char *const impl_name[] = { "best",      "plain",  "avx2",
                                         "avx2_madd", "avx512", "avx512_vnni" };

static void run_case(int w, int h, unsigned bpc, enum PairPattern pat, double egl, int skip0,
                     uint64_t seed)
{
    rng_state = seed;
    Image ref = image_new(w, h), dis = image_new(w, h);
    fill(&ref, &dis, bpc, pat);
    ptrdiff_t rs, ds;
    unsigned char *rp = pack(&ref, bpc, (int)(rng() % 7), &rs);
    unsigned char *dp = pack(&dis, bpc, (int)(rng() % 7), &ds);

    VmafVifSums want[4];
    naive_vif(&ref, &dis, bpc, egl, skip0, want);

    VmafVifWorkspace *ws = NULL;
    CHECK(!vmaf_vif_workspace_alloc(&ws, (unsigned)w, (unsigned)h, bpc), "alloc %dx%d", w, h);
    for (size_t k = 0; ws && k < sizeof(impls) / sizeof(impls[0]); k++) {
        VmafVifSums got[4];
        memset(got, 0x5a, sizeof(got));
        const int err = vmaf_vif_compute_with(impls[k], ws, rp, rs, dp, ds, egl, skip0, got);
        if (err == -ENOTSUP)
            continue;
        CHECK(!err, "compute %s", impl_name[impls[k]]);
        /* twice: nothing may depend on what the previous frame left in the workspace */
        for (int pass = 0; pass < 2; pass++) {
            for (int s = 0; s < 4; s++) {
                CHECK(sums_equal(&got[s], &want[s]),
                      "seed %" PRIu64 " %dx%d %u-bit %s egl %g skip %d %s scale %d: "
                      "got %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 ", want %" PRId64
                      " %" PRId64 " %" PRId64 " %" PRId64,
                      seed, w, h, bpc, pair_pattern_name[pat], egl, skip0, impl_name[impls[k]], s,
                      got[s].num_log, got[s].den_log, got[s].num_non_log, got[s].den_non_log,
                      want[s].num_log, want[s].den_log, want[s].num_non_log,
                      want[s].den_non_log);
            }
            vmaf_vif_compute_with(impls[k], ws, rp, rs, dp, ds, egl, skip0, got);
        }
    }
    vmaf_vif_workspace_free(&ws);
    CHECK(!ws, "freed");
    free(rp);
    free(dp);
    free(ref.v);
    free(dis.v);
}

static void test_against_naive(void)
{
    /* sizes the reference handles (>= 16), odd ones, and tiny ones where Twin VMAF defines
     * the edge by periodic reflection (vif.h) */
    static const int sizes[][2] = { { 17, 17 }, { 33, 21 }, { 16, 16 }, { 40, 19 }, { 71, 64 },
                                    { 3, 3 },   { 1, 1 },   { 9, 15 },  { 15, 8 },  { 2, 40 },
                                    /* the hand-written builds: blocks of 32 and 16 columns
                                     * at scales 0..2, with and without leftover columns */
                                    { 120, 33 }, { 96, 20 }, { 134, 18 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 16 };
    uint64_t seed = 1;
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (size_t b = 0; b < sizeof(depths) / sizeof(depths[0]); b++)
            for (int p = 0; p < PAIR_COUNT; p++, seed++) {
                const double egl = seed % 3 == 0 ? 1.0 : seed % 3 == 1 ? 100.0 : 2.5;
                run_case(sizes[z][0], sizes[z][1], depths[b], (enum PairPattern)p, egl,
                         seed % 5 == 0, seed * 0x9e3779b97f4a7c15ull);
            }
    /* the remaining depths on one size */
    for (unsigned bpc = 13; bpc <= 15; bpc++)
        for (int p = 0; p < PAIR_COUNT; p++, seed++)
            run_case(33, 21, bpc, (enum PairPattern)p, 100.0, 0, seed * 0x9e3779b97f4a7c15ull);
}

/* ------------------------------------------------------------------------------------- */
/* 2. Anchors: what reference libvmaf 3.2.0 writes for frames made here                  */

/* The frames of an anchor: the NEAR pattern from a seed of the depth, or (same) a frame of
 * faint noise (mid-grey plus 0 or 1 in 8-bit units) against itself, where most pixels take
 * the non-log path with a small nonzero variance. */
static void anchor_frames(unsigned bpc, int same, Image *ref, Image *dis)
{
    rng_state = 1000 + (uint64_t)bpc;
    fill(ref, dis, bpc, PAIR_NEAR);
    if (!same)
        return;
    for (size_t k = 0; k < (size_t)ref->w * (size_t)ref->h; k++)
        ref->v[k] = dis->v[k] = (1u << (bpc - 1)) + ((rng() & 1) << (bpc - 8));
}

/* num and den of each scale as reference libvmaf 3.2.0 (C path) reported them (debug=true)
 * for the frames of --dump-anchors. */
static const struct {
    int w, h;
    unsigned bpc;
    int same;
    double egl;
    float num[4], den[4];
} anchors[] = {
    { 48, 40, 8, 0, 100.0, { 13308.1914f, 4161.31299f, 980.492676f, 207.233887f },
      { 20100.4199f, 4299.2041f, 996.893066f, 209.481934f } },
    { 48, 40, 8, 1, 100.0, { 1919.97205f, 479.998718f, 119.999359f, 29.999855f },
      { 1920.f, 480.f, 120.f, 30.f } },
    { 37, 29, 10, 0, 100.0, { 7451.55908f, 2157.41211f, 509.375f, 84.4897461f },
      { 11164.4512f, 2225.30176f, 515.514648f, 84.8681641f } },
    { 33, 21, 12, 0, 1.0, { 4841.20557f, 1383.74707f, 334.20459f, 53.9648438f },
      { 7229.96533f, 1428.05518f, 338.786621f, 54.3681641f } },
    { 20, 17, 16, 0, 2.5, { 2347.21143f, 703.28418f, 165.527344f, 33.4428711f },
      { 3552.84961f, 720.807129f, 167.189941f, 33.7216797f } },
    { 64, 48, 16, 1, 100.0, { 3071.95288f, 767.997131f, 191.999054f, 47.9996414f },
      { 3072.f, 768.f, 192.f, 48.f } },
};

static void test_anchors(void)
{
    for (size_t a = 0; a < sizeof(anchors) / sizeof(anchors[0]); a++) {
        const int w = anchors[a].w, h = anchors[a].h;
        const unsigned bpc = anchors[a].bpc;
        Image ref = image_new(w, h), dis = image_new(w, h);
        anchor_frames(bpc, anchors[a].same, &ref, &dis);
        ptrdiff_t rs, ds;
        unsigned char *rp = pack(&ref, bpc, 0, &rs), *dp = pack(&dis, bpc, 0, &ds);
        VmafVifWorkspace *ws = NULL;
        CHECK(!vmaf_vif_workspace_alloc(&ws, (unsigned)w, (unsigned)h, bpc), "alloc");
        VmafVifSums sums[4];
        vmaf_vif_compute(ws, rp, rs, dp, ds, anchors[a].egl, false, sums);
        for (int s = 0; s < 4; s++) {
            CHECK(vmaf_vif_num(&sums[s]) == anchors[a].num[s] &&
                      vmaf_vif_den(&sums[s]) == anchors[a].den[s],
                  "anchor %dx%d %u-bit same %d egl %g scale %d: num %.9g den %.9g, "
                  "reference %.9g %.9g",
                  w, h, bpc, anchors[a].same, anchors[a].egl, s, vmaf_vif_num(&sums[s]),
                  vmaf_vif_den(&sums[s]), anchors[a].num[s], anchors[a].den[s]);
        }
        vmaf_vif_workspace_free(&ws);
        free(rp);
        free(dp);
        free(ref.v);
        free(dis.v);
    }
}

/* Write the anchor frames as raw planes, to score them with reference libvmaf. */
static int dump_anchor(const char *dir, int w, int h, unsigned bpc, int same)
{
    Image ref = image_new(w, h), dis = image_new(w, h);
    anchor_frames(bpc, same, &ref, &dis);
    for (int k = 0; k < 2; k++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/anchor_%dx%d_%u_%d_%s.raw", dir, w, h, bpc, same,
                 k ? "dis" : "ref");
        FILE *f = fopen(path, "wb");
        if (!f)
            return 1;
        ptrdiff_t stride;
        unsigned char *p = pack(k ? &dis : &ref, bpc, 0, &stride);
        fwrite(p, 1, (size_t)stride * (size_t)h, f);
        fclose(f);
        free(p);
    }
    free(ref.v);
    free(dis.v);
    return 0;
}

/* ------------------------------------------------------------------------------------- */
/* 3. Identical frames                                                                   */

static void test_identical(void)
{
    for (unsigned bpc = 8; bpc <= 16; bpc++) {
        for (int pat = PAIR_SAME; pat <= PAIR_FLAT; pat++) {
            const int w = 37, h = 29;
            rng_state = 77 + bpc;
            Image ref = image_new(w, h), dis = image_new(w, h);
            fill(&ref, &dis, bpc, (enum PairPattern)pat);
            ptrdiff_t stride;
            unsigned char *p = pack(&ref, bpc, 3, &stride);
            VmafVifWorkspace *ws = NULL;
            CHECK(!vmaf_vif_workspace_alloc(&ws, w, h, bpc), "alloc");
            VmafVifSums sums[4];
            vmaf_vif_compute(ws, p, stride, p, stride, 100.0, false, sums);
            for (int s = 0; s < 4; s++) {
                const float num = vmaf_vif_num(&sums[s]), den = vmaf_vif_den(&sums[s]);
                const double score = num / den;
                if (pat == PAIR_FLAT) {
                    CHECK(score == 1.0 && sums[s].den_non_log == (int64_t)(w >> s) * (h >> s),
                          "%u-bit flat, scale %d: %.17g", bpc, s, score);
                } else {
                    CHECK(sums[s].num_log <= sums[s].den_log && score <= 1.0 &&
                              score > 0.9999,
                          "%u-bit identical, scale %d: %.17g", bpc, s, score);
                }
            }
            vmaf_vif_workspace_free(&ws);
            free(p);
            free(ref.v);
            free(dis.v);
        }
    }
}

/* ------------------------------------------------------------------------------------- */
/* 4. The extractor through the public API                                               */

/* Flat frames of w x h at bpc bits through the extractor, debug on, optionally skipping
 * scale 0. Every pixel takes the non-log path with sigma 0, so each scale's numerator and
 * denominator count its pixels; a skipped scale reports 0, num 0 and den -1 and is left
 * out of the totals. */
static void check_extractor_debug(unsigned bpc, int skip0)
{
    const unsigned w = 64, h = 40;
    const char *suffix = skip0 ? "_ssclz" : ""; /* the option-suffixed names */
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    CHECK(!vmaf_init(&v, cfg), "init");
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "debug", "true");
    if (skip0)
        vmaf_feature_dictionary_set(&d, "vif_skip_scale0", "true");
    CHECK(!vmaf_use_feature(v, "vif", d), "use vif");
    for (unsigned i = 0; i < 2; i++) {
        VmafPicture pic[2];
        for (int k = 0; k < 2; k++) {
            CHECK(!vmaf_picture_alloc(&pic[k], VMAF_PIX_FMT_YUV420P, bpc, w, h), "alloc");
            for (unsigned y = 0; y < h; y++)
                for (unsigned x = 0; x < w; x++) {
                    unsigned char *row = (unsigned char *)pic[k].data[0] + y * pic[k].stride[0];
                    if (bpc == 8)
                        row[x] = 100;
                    else
                        ((uint16_t *)(void *)row)[x] = 400;
                }
        }
        CHECK(!read_pictures_or_release(v, &pic[0], &pic[1], i), "read %u", i);
    }
    CHECK(!vmaf_read_pictures(v, NULL, NULL, 0), "flush");

    double total = 0.;
    for (int s = 0; s < 4; s++) {
        char name[96];
        double score = -2, num = -2, den = -2;
        const double pixels = (double)((w >> s) * (h >> s));
        if (skip0)
            snprintf(name, sizeof(name), "integer_vif_scale%d%s", s, suffix);
        else
            snprintf(name, sizeof(name), "VMAF_integer_feature_vif_scale%d_score", s);
        CHECK(!vmaf_feature_score_at_index(v, name, &score, 1), "%s", name);
        snprintf(name, sizeof(name), "integer_vif_num_scale%d%s", s, suffix);
        CHECK(!vmaf_feature_score_at_index(v, name, &num, 1), "%s", name);
        snprintf(name, sizeof(name), "integer_vif_den_scale%d%s", s, suffix);
        CHECK(!vmaf_feature_score_at_index(v, name, &den, 1), "%s", name);
        if (s == 0 && skip0) {
            CHECK(score == 0.0 && num == 0.0 && den == -1.0, "%u-bit skipped scale 0: %g %g %g",
                  bpc, score, num, den);
        } else {
            CHECK(score == 1.0 && num == pixels && den == pixels, "%u-bit scale %d: %g %g %g",
                  bpc, s, score, num, den);
            total += pixels;
        }
    }
    char name[64];
    double vif = -2, num = -2, den = -2;
    snprintf(name, sizeof(name), "integer_vif%s", suffix);
    CHECK(!vmaf_feature_score_at_index(v, name, &vif, 0), "%s", name);
    snprintf(name, sizeof(name), "integer_vif_num%s", suffix);
    CHECK(!vmaf_feature_score_at_index(v, name, &num, 0), "%s", name);
    snprintf(name, sizeof(name), "integer_vif_den%s", suffix);
    CHECK(!vmaf_feature_score_at_index(v, name, &den, 0), "%s", name);
    CHECK(vif == 1.0 && num == total && den == total, "%u-bit skip %d totals %g %g %g", bpc,
          skip0, vif, num, den);
    vmaf_close(v);
}

static void test_extractor_debug(void)
{
    for (int skip0 = 0; skip0 <= 1; skip0++) {
        check_extractor_debug(8, skip0);
        check_extractor_debug(10, skip0);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--dump-anchors")) {
        /* the frames of the anchor table; score them with reference libvmaf to refresh it */
        for (size_t k = 0; k < sizeof(anchors) / sizeof(anchors[0]); k++)
            if (dump_anchor(argv[2], anchors[k].w, anchors[k].h, anchors[k].bpc,
                            anchors[k].same))
                return 1;
        return 0;
    }
    log2_table_naive_init();

    uint16_t table[VMAF_VIF_LOG2_TABLE_LEN];
    vmaf_vif_log2_table_fill(table);
    int same = 1;
    for (unsigned i = 0; i < VMAF_VIF_LOG2_TABLE_LEN; i++)
        same &= table[i] == log2_table_naive[VMAF_VIF_LOG2_TABLE_FIRST + i];
    CHECK(same, "log2 table differs from round(2048 log2f(i))");

    test_against_naive();
    test_anchors();
    test_identical();
    test_extractor_debug();
    printf("vif: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
