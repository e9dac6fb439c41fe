/*
 * Host test of the integer VIF twin (src/feature/cuda/vif.cu) without a GPU.
 *
 * The kernels are thin: thread mapping, barriers and a block reduction around the phase
 * functions of src/feature/vif_device.h. This test runs those same functions in the
 * kernels' decomposition: the launch plan and the kernel arguments of the twin's host glue
 * (vif_dev_plan, vif_dev_scale_args), every scale's grid of blocks, each block's three
 * phases for all VIF_CUDA_THREADS threads in turn (as the barriers order them), the tile in
 * "shared memory" filled with garbage before each block (a read of anything the block did
 * not write shows up), per-thread sums added into per-block sums and those into the
 * scale's (the kernel's atomic adds). It then
 * compares with the CPU extractor (vmaf_vif_compute_with, plain and best builds): the
 * subsampled images of scales 1..3 sample for sample, and the four int64 sums of every scale.
 *
 * Inputs: seeded synthetic frames (random, correlated, amplified, extreme, identical, flat,
 * maximal) at sizes 1x1 .. 4096 wide (odd, tiny, tile-edge ones) and every depth 8..16, the
 * option variants (enhancement gain limit, skip scale 0); and real content, the shared clips
 * (argv[1]: the decompressed clips) at their own size and resampled to others (up to
 * 3840 wide), against their own distorted file and synthetic blur, noise and quantisation.
 *
 *   test_vif_twin CLIPS_DIR [--quick]
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/vif.h"
#include "feature/vif_device.h"
#include "feature/vif_internal.h"

#include "test_util.h"

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* ------------------------------------------------------------------------------------- */
/* The device, on the host                                                               */

/* One scale kernel (vif.cu's vif_scale<FW, SUB_FW, T>) over its grid. */
static void run_scale_kernel(const VifCudaArgs *in, int k, unsigned grid_x, unsigned grid_y,
                             int wide, VifDevTile *tile)
{
    const int fw = vmaf_vif_filter_width[k];
    const int sub_fw = k + 1 < VMAF_VIF_SCALES ? vmaf_vif_filter_width[k + 1] : 0;
    const int sub = sub_fw ? sub_fw : 1;
    uint32_t f[VMAF_VIF_MAX_FILTER_WIDTH], sub_f[9];
    for (int i = 0; i < fw; i++)
        f[i] = in->filter[i];
    for (int i = 0; i < sub; i++)
        sub_f[i] = sub_fw ? in->sub_filter[i] : 0;
    VifCudaArgs a = *in;
    if (!sub_fw)
        a.sub = 0;
    for (unsigned by = 0; by < grid_y; by++) {
        for (unsigned bx = 0; bx < grid_x; bx++) {
            memset(tile, 0xa5, sizeof(*tile));
            for (int tid = 0; tid < VIF_CUDA_THREADS; tid++)
                vif_dev_phase_load(tile, &a, fw, wide, (int)bx, (int)by, tid);
            for (int tid = 0; tid < VIF_CUDA_THREADS; tid++)
                vif_dev_phase_vertical(tile, &a, f, fw, sub_f, sub, !wide, tid);
            VmafVifSums block = { 0, 0, 0, 0 };
            for (int tid = 0; tid < VIF_CUDA_THREADS; tid++) {
                VmafVifSums acc = { 0, 0, 0, 0 };
                vif_dev_phase_horizontal(tile, &a, f, fw, sub_f, sub, (int)bx, (int)by, tid,
                                         &acc);
                block.num_log += acc.num_log;
                block.den_log += acc.den_log;
                block.num_non_log += acc.num_non_log;
                block.den_non_log += acc.den_non_log;
            }
            if (a.stat) { /* thread 0's atomic adds */
                VmafVifSums *sums = (VmafVifSums *)(uintptr_t)a.sums;
                sums->num_log += block.num_log;
                sums->den_log += block.den_log;
                sums->num_non_log += block.num_non_log;
                sums->den_non_log += block.den_non_log;
            }
        }
    }
}

typedef struct TwinRun {
    VifDevPlan plan;
    unsigned char *images; /* the slot's images, plan layout */
    VmafVifSums sums[VMAF_VIF_SCALES];
} TwinRun;

/* vif_twin.c's record(), for one frame. */
static void twin_frame(TwinRun *run, const void *ref, const void *dis, ptrdiff_t stride,
                       unsigned w, unsigned h, unsigned bpc, const VmafVifOptions *o,
                       const uint16_t *table)
{
    VifDevPlan *p = &run->plan;
    vif_dev_plan(p, w, h);
    run->images = xmalloc(p->image_bytes + 16);
    memset(run->images, 0x3c, p->image_bytes + 16);
    memset(run->sums, 0, sizeof(run->sums)); /* the frame's memset */
    VifDevTile *tile = xmalloc(sizeof(*tile));
    for (int k = 0; k < VMAF_VIF_SCALES && p->w[k]; k++) {
        VifCudaArgs a;
        const int work = vif_dev_scale_args(
            &a, p, k, bpc, o, (vmaf_devptr)(uintptr_t)ref, (vmaf_devptr)(uintptr_t)dis,
            (unsigned long long)stride, (vmaf_devptr)(uintptr_t)run->images,
            (vmaf_devptr)(uintptr_t)run->sums, (vmaf_devptr)(uintptr_t)table);
        if (work)
            run_scale_kernel(&a, k, p->grid_x[k], p->grid_y[k], k > 0 || bpc > 8, tile);
    }
    free(tile);
}

/* ------------------------------------------------------------------------------------- */
/* Comparison with the CPU extractor                                                     */

static int sums_equal(const VmafVifSums *a, const VmafVifSums *b)
{
    return a->num_log == b->num_log && a->den_log == b->den_log &&
           a->num_non_log == b->num_non_log && a->den_non_log == b->den_non_log;
}

static unsigned n_frames;

/* ref/dis: bpc-bit planes (uint8 or uint16 samples) with `stride` bytes per row. */
static void compare_frame(const char *what, const void *ref, const void *dis, ptrdiff_t stride,
                          unsigned w, unsigned h, unsigned bpc, const VmafVifOptions *o,
                          const uint16_t *table)
{
    n_frames++;
    VmafVifWorkspace *ws = NULL;
    if (vmaf_vif_workspace_alloc(&ws, w, h, bpc)) {
        CHECK(0, "%s: workspace %ux%u %u-bit", what, w, h, bpc);
        return;
    }
    VmafVifSums want[VMAF_VIF_SCALES], best[VMAF_VIF_SCALES];
    CHECK(!vmaf_vif_compute_with(VMAF_VIF_IMPL_BEST, ws, ref, stride, dis, stride,
                                 o->enhn_gain_limit, o->skip_scale0, best),
          "%s: best", what);
    /* plain last: its images stay in the workspace */
    CHECK(!vmaf_vif_compute_with(VMAF_VIF_IMPL_PLAIN, ws, ref, stride, dis, stride,
                                 o->enhn_gain_limit, o->skip_scale0, want),
          "%s: plain", what);

    TwinRun run;
    twin_frame(&run, ref, dis, stride, w, h, bpc, o, table);
    const VifDevPlan *p = &run.plan;
    for (int k = 1; k < VMAF_VIF_SCALES && p->w[k]; k++) {
        const size_t n = (size_t)p->w[k] * p->h[k];
        const uint16_t *img_ref = (const uint16_t *)(run.images + p->image_offset[k]);
        const uint16_t *img_dis = img_ref + n;
        size_t bad = n;
        for (size_t i = 0; i < n && bad == n; i++)
            if (img_ref[i] != ws->img_ref[k][i] || img_dis[i] != ws->img_dis[k][i])
                bad = i;
        CHECK(bad == n,
              "%s %ux%u %u-bit: scale %d image differs at (%zu, %zu): ref %u/%u dis %u/%u",
              what, w, h, bpc, k, bad / p->w[k], bad % p->w[k], img_ref[bad],
              ws->img_ref[k][bad], img_dis[bad], ws->img_dis[k][bad]);
    }
    for (int k = 0; k < VMAF_VIF_SCALES; k++) {
        const VmafVifSums *g = &run.sums[k], *c = &want[k];
        CHECK(sums_equal(g, c) && sums_equal(g, &best[k]),
              "%s %ux%u %u-bit egl %g skip %d scale %d: twin %" PRId64 " %" PRId64 " %" PRId64
              " %" PRId64 ", cpu %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64,
              what, w, h, bpc, o->enhn_gain_limit, o->skip_scale0, k, g->num_log, g->den_log,
              g->num_non_log, g->den_non_log, c->num_log, c->den_log, c->num_non_log,
              c->den_non_log);
    }
    free(run.images);
    vmaf_vif_workspace_free(&ws);
}

/* ------------------------------------------------------------------------------------- */
/* Frames                                                                                */

typedef struct Frame {
    unsigned w, h, bpc;
    ptrdiff_t stride; /* bytes */
    unsigned char *ref, *dis;
} Frame;

static Frame frame_new(unsigned w, unsigned h, unsigned bpc)
{
    Frame f = { w, h, bpc, 0, NULL, NULL };
    const unsigned extra = rng() % 9; /* garbage after each row */
    f.stride = (ptrdiff_t)((w + extra) * (bpc > 8 ? 2 : 1));
    const size_t bytes = (size_t)f.stride * h;
    f.ref = xmalloc(bytes);
    f.dis = xmalloc(bytes);
    for (size_t i = 0; i < bytes; i++) {
        f.ref[i] = (unsigned char)rng();
        f.dis[i] = (unsigned char)rng();
    }
    return f;
}

static void frame_free(Frame *f)
{
    free(f->ref);
    free(f->dis);
}

static void put(const Frame *f, unsigned char *plane, unsigned i, unsigned j, int32_t v)
{
    const int32_t max = (int32_t)((1u << f->bpc) - 1);
    v = v < 0 ? 0 : v > max ? max : v;
    unsigned char *row = plane + (size_t)i * f->stride;
    if (f->bpc == 8)
        row[j] = (unsigned char)v;
    else
        ((uint16_t *)row)[j] = (uint16_t)v;
}

static uint32_t get(const Frame *f, const unsigned char *plane, unsigned i, unsigned j)
{
    const unsigned char *row = plane + (size_t)i * f->stride;
    return f->bpc == 8 ? row[j] : ((const uint16_t *)row)[j];
}

static void fill_pattern(Frame *f, enum PairPattern pat)
{
    const int32_t max = (int32_t)((1u << f->bpc) - 1);
    const int32_t flat = (int32_t)(rng() % (uint32_t)(max + 1));
    for (unsigned i = 0; i < f->h; i++) {
        for (unsigned j = 0; j < f->w; j++) {
            int32_t r, d;
            test_pattern_pair(pat, max, flat, i, j, &r, &d);
            put(f, f->ref, i, j, r);
            put(f, f->dis, i, j, d);
        }
    }
}

static const VmafVifOptions option_sets[] = {
    { VMAF_VIF_DEFAULT_ENHN_GAIN_LIMIT, false, false },
    { 1.0, false, false },
    { 1.5, true, false },
    { VMAF_VIF_DEFAULT_ENHN_GAIN_LIMIT, true, false },
};
enum { N_OPTION_SETS = sizeof(option_sets) / sizeof(option_sets[0]) };

static void synthetic_case(unsigned w, unsigned h, unsigned bpc, enum PairPattern pat,
                           const VmafVifOptions *o, uint64_t seed, const uint16_t *table)
{
    rng_state = seed;
    Frame f = frame_new(w, h, bpc);
    fill_pattern(&f, pat);
    char what[128];
    snprintf(what, sizeof(what), "seed %" PRIu64 " %s", seed, pair_pattern_name[pat]);
    compare_frame(what, f.ref, f.dis, f.stride, w, h, bpc, o, table);
    frame_free(&f);
}

static void test_synthetic(const uint16_t *table, int quick)
{
    /* tiny (periodic reflection, empty scales), around the tile size (32 x 16) and the
     * filter margins, odd, and large */
    static const unsigned sizes[][2] = {
        { 1, 1 },   { 1, 9 },    { 9, 1 },    { 2, 2 },   { 3, 3 },    { 4, 5 },   { 7, 16 },
        { 15, 8 },  { 16, 16 },  { 17, 17 },  { 31, 15 }, { 32, 16 },  { 33, 17 }, { 33, 21 },
        { 40, 19 }, { 64, 64 },  { 65, 33 },  { 96, 48 }, { 130, 70 }, { 257, 145 },
        { 1025, 3 }, { 3, 1025 }, { 320, 181 },
    };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    const size_t n_sizes = sizeof(sizes) / sizeof(sizes[0]);
    uint64_t seed = 1;
    for (size_t z = 0; z < n_sizes; z++)
        for (size_t b = 0; b < sizeof(depths) / sizeof(depths[0]); b++)
            for (int p = 0; p < PAIR_COUNT; p++, seed++) {
                /* every depth at every size; each (size, depth) a few patterns */
                if ((seed % 3) && !(p == PAIR_RANDOM || p == PAIR_NEAR))
                    continue;
                if (quick && seed % 4)
                    continue;
                synthetic_case(sizes[z][0], sizes[z][1], depths[b], (enum PairPattern)p,
                               &option_sets[seed % N_OPTION_SETS],
                               seed * 0x9e3779b97f4a7c15ull, table);
            }
    /* large planes: many blocks, and every scale with several tiles */
    synthetic_case(1921, 1081, 10, PAIR_NEAR, &option_sets[0], 77, table);
    if (!quick) {
        synthetic_case(4096, 72, 8, PAIR_NEAR, &option_sets[2], 78, table);
        synthetic_case(72, 2160, 16, PAIR_NEAR, &option_sets[1], 79, table);
    }
}

/* ------------------------------------------------------------------------------------- */
/* Real content                                                                          */

typedef struct Clip {
    const char *name;
    unsigned w, h, bpc, frames, chroma_div; /* chroma samples = luma / chroma_div (ceil) */
} Clip;

static const Clip clips[] = {
    { "boats_576x324_420p", 576, 324, 8, 24, 4 },
    { "forest_576x324_420p10", 576, 324, 10, 24, 4 },
    { "leaf_480x270_422p12", 480, 270, 12, 16, 2 },
    { "cups_352x288_444p", 352, 288, 8, 16, 1 },
    { "jetty_1920x1080_420p", 1920, 1080, 8, 10, 4 },
    { "kite_257x145_420p", 257, 145, 8, 12, 4 },
    { "tiny_33x33_420p", 33, 33, 8, 8, 4 },
    { "tiny_17x17_420p", 17, 17, 8, 8, 4 },
    { "deep_320x180_420p16", 320, 180, 16, 8, 4 },
};

/* Frame `index`'s luma of a clip file as uint16 values, or NULL. */
static uint16_t *read_luma(const char *dir, const Clip *c, const char *which, unsigned index)
{
    const size_t bytes = c->bpc > 8 ? 2 : 1;
    size_t cw, ch; /* ceil-sized chroma */
    if (c->chroma_div == 1) {
        cw = c->w;
        ch = c->h;
    } else if (c->chroma_div == 2) {
        cw = (c->w + 1) / 2;
        ch = c->h;
    } else {
        cw = (c->w + 1) / 2;
        ch = (c->h + 1) / 2;
    }
    const size_t luma = (size_t)c->w * c->h;
    const size_t frame = (luma + 2 * cw * ch) * bytes;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s_%s.yuv", dir, c->name, which);
    FILE *in = fopen(path, "rb");
    if (!in)
        return NULL;
    uint16_t *out = xmalloc(luma * sizeof(uint16_t));
    unsigned char *raw = xmalloc(luma * bytes);
    const int ok = !fseek(in, (long)(frame * (index % c->frames)), SEEK_SET) &&
                   fread(raw, bytes, luma, in) == luma;
    fclose(in);
    for (size_t i = 0; ok && i < luma; i++)
        out[i] = bytes == 1 ? raw[i] : (uint16_t)(raw[2 * i] | raw[2 * i + 1] << 8);
    free(raw);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

enum Distortion { DIST_CODEC, DIST_BLUR, DIST_NOISE, DIST_QUANT, DIST_COUNT };
static const char *const dist_name[DIST_COUNT] = { "codec", "blur", "noise", "quant" };

/* The clip's frame resampled (nearest: crop or repeat) to f's size and depth; dis from the
 * clip's distorted frame, or a distortion of the reference. */
static void fill_real(Frame *f, const Clip *c, const uint16_t *ref, const uint16_t *dis,
                      enum Distortion d)
{
    for (unsigned i = 0; i < f->h; i++) {
        const unsigned si = (unsigned)((uint64_t)i * c->h / f->h);
        for (unsigned j = 0; j < f->w; j++) {
            const unsigned sj = (unsigned)((uint64_t)j * c->w / f->w);
            const size_t o = (size_t)si * c->w + sj;
            const int up = (int)f->bpc - (int)c->bpc;
            const uint32_t r = up >= 0 ? (uint32_t)ref[o] << up : (uint32_t)ref[o] >> -up;
            const uint32_t v = up >= 0 ? (uint32_t)dis[o] << up : (uint32_t)dis[o] >> -up;
            put(f, f->ref, i, j, (int32_t)r);
            if (d == DIST_CODEC)
                put(f, f->dis, i, j, (int32_t)v);
        }
    }
    if (d == DIST_CODEC)
        return;
    const int32_t max = (int32_t)((1u << f->bpc) - 1);
    for (unsigned i = 0; i < f->h; i++) {
        for (unsigned j = 0; j < f->w; j++) {
            int32_t v = (int32_t)get(f, f->ref, i, j);
            if (d == DIST_BLUR) {
                int32_t sum = 0;
                for (int di = -1; di <= 1; di++)
                    for (int dj = -1; dj <= 1; dj++) {
                        const int ii = (int)i + di < 0 ? 0 : (int)i + di >= (int)f->h ? (int)f->h - 1 : (int)i + di;
                        const int jj = (int)j + dj < 0 ? 0 : (int)j + dj >= (int)f->w ? (int)f->w - 1 : (int)j + dj;
                        sum += (int32_t)get(f, f->ref, (unsigned)ii, (unsigned)jj);
                    }
                v = (sum + 4) / 9;
            } else if (d == DIST_NOISE) {
                const int32_t amp = max / 16 + 1;
                v += (int32_t)(rng() % (uint32_t)(2 * amp + 1)) - amp;
            } else {
                const int32_t step = (max + 1) / 16;
                v = v / step * step + step / 2;
            }
            put(f, f->dis, i, j, v);
        }
    }
}

static void real_case(const char *dir, const Clip *c, unsigned index, unsigned w, unsigned h,
                      unsigned bpc, enum Distortion d, const VmafVifOptions *o,
                      const uint16_t *table)
{
    uint16_t *ref = read_luma(dir, c, "ref", index), *dis = read_luma(dir, c, "dis", index);
    CHECK(ref && dis, "cannot read %s/%s frame %u", dir, c->name, index);
    if (ref && dis) {
        rng_state = 0x5eed + index + w * 31 + h;
        Frame f = frame_new(w, h, bpc);
        fill_real(&f, c, ref, dis, d);
        char what[160];
        snprintf(what, sizeof(what), "%s frame %u %s", c->name, index, dist_name[d]);
        compare_frame(what, f.ref, f.dis, f.stride, w, h, bpc, o, table);
        frame_free(&f);
    }
    free(ref);
    free(dis);
}

static void test_real(const char *dir, const uint16_t *table, int quick)
{
    const size_t n_clips = sizeof(clips) / sizeof(clips[0]);
    unsigned variant = 0;
    for (size_t i = 0; i < n_clips; i++) {
        const Clip *c = &clips[i];
        /* the clip at its own size and depth: its codec distortion and the synthetic ones */
        for (int d = 0; d < DIST_COUNT; d++, variant++) {
            if (c->w * c->h > 1000000 && d) /* the large clip once */
                continue;
            real_case(dir, c, (unsigned)d * 3 + 1, c->w, c->h, c->bpc, (enum Distortion)d,
                      &option_sets[variant % N_OPTION_SETS], table);
        }
        if (quick)
            continue;
        /* resampled: other sizes and depths */
        static const unsigned sizes[][3] = { { 33, 19, 9 }, { 161, 97, 11 }, { 800, 450, 8 },
                                             { 70, 300, 14 }, { 513, 129, 16 } };
        const unsigned (*z)[3] = &sizes[i % 5];
        real_case(dir, c, 2, (*z)[0], (*z)[1], (*z)[2], (enum Distortion)(i % DIST_COUNT),
                  &option_sets[i % N_OPTION_SETS], table);
    }
    if (!quick) /* the 4K width from the 1080p clip, 10-bit (4K height: the synthetic 72x2160) */
        real_case(dir, &clips[4], 5, 3840, 400, 10, DIST_CODEC, &option_sets[0], table);
}

/* ------------------------------------------------------------------------------------- */
/* The integer form of the per-pixel doubles (built with VMAF_F64_SOFT_ON_HOST)            */
#if VMAF_DOUBLE_SOFT
#include <float.h>

/* vif.h's per-pixel doubles, as the CPU (vif_internal.h) writes them */
static void pixel_double(int32_t sxx, int32_t syy, int32_t sxy, double egl, uint32_t *sv,
                         int64_t *gain, double *t)
{
    const double eps = 65536 * 1.0e-10;
    double g = sxy / (sxx + eps);
    *t = g * sxy;
    const double sv_d = syy - g * sxy;
    *sv = sv_d > 0 ? (uint32_t)(int32_t)sv_d : 0;
    g = g < egl ? g : egl;
    *gain = (int64_t)(g * g * sxx);
}

static long pixel_cases;

/* A value with a random bit length in [lo_bits, 31], at least lo. */
static int32_t log_uniform(int lo_bits, int32_t lo)
{
    const int b = lo_bits + (int)(rng() % (unsigned)(32 - lo_bits));
    const int32_t v = (int32_t)(((uint64_t)rng() << 32 | rng()) & ((UINT64_C(1) << b) - 1));
    const int32_t top = b >= 31 ? 0 : (int32_t)1 << (b - 1);
    const int32_t r = (v | top) & INT32_MAX;
    return r < lo ? lo : r;
}

/* S 2^e as a double (S <= 2^53: exact) */
static double sig_exp(uint64_t s, int e)
{
    return ldexp((double)s, e);
}

/* The steps of the integer form one by one against the double operation they stand for:
 * sensitive to one ulp (the sums rarely are: a wrong last bit of g or t seldom moves a
 * truncation). */
static void test_pixel_steps(long n)
{
    /* eps's significand and exponent as vif_device.h takes them */
    const uint64_t eps_bits = test_bits_of_double(65536 * 1.0e-10);
    CHECK(((eps_bits & UINT64_C(0xfffffffffffff)) | UINT64_C(1) << 52) == VIF_DEV_EPS_SIG &&
              (int)(eps_bits >> 52) - 1023 == -18,
          "eps = 65536 * 1.0e-10 is not VIF_DEV_EPS_SIG 2^-70");
    rng_state = 0x57e9;
    long bad_quot = 0, bad_mul = 0, bad_sq = 0, ties_mul = 0, ties_sq = 0;
    for (long i = 0; i < n; i++) {
        /* g = c / (x + eps) */
        const int32_t x = log_uniform(18, 1 << 17), c = log_uniform(1, 1);
        int eg;
        const uint64_t g = vif_dev_quot((uint32_t)x, (uint32_t)c, vif_dev_bit_length32((uint32_t)c), &eg);
        const double eps = 65536 * 1.0e-10, want = c / (x + eps);
        bad_quot += (g >> 52) != 1 || sig_exp(g, eg - 52) != want;
        /* RNE(s v), s in [2^52, 2^53]; every other one an exact tie (v odd: s's low bits
         * chosen so that s v has exactly half an ulp below its 53 bits) */
        uint64_t sv = (UINT64_C(1) << 52) | (((uint64_t)rng() << 32 | rng()) >> 12);
        const uint32_t v = (uint32_t)log_uniform(1, 1) | (uint32_t)(i & 1);
        if ((i & 1) && v > 1) {
            /* the bits dropped from s v: bitlen(s v) - 53 */
            const unsigned __int128 prod = (unsigned __int128)sv * v;
            int len = 0;
            for (unsigned __int128 p2 = prod; p2; p2 >>= 1)
                len++;
            const int drop = len - 53;
            if (drop > 0) {
                uint32_t inv = v; /* v^-1 mod 2^32 (Newton: v odd) */
                for (int it = 0; it < 5; it++)
                    inv *= 2 - v * inv;
                const uint64_t mask = (UINT64_C(1) << drop) - 1;
                const uint64_t low = ((UINT64_C(1) << (drop - 1)) * (uint64_t)inv) & mask;
                const uint64_t s2 = (sv & ~mask) | low;
                if (s2 >> 52 == 1)
                    sv = s2, ties_mul++;
            }
        }
        int sh;
        const uint64_t t = vif_dev_mul_round(sv, v, vif_dev_bit_length32(v), &sh);
        bad_mul += sig_exp(t, sh) != (double)sv * (double)v;
        /* RNE(g^2); every other one a tie: g = odd 2^26 above sqrt(2) 2^52 (such a tie
         * always rounds down: odd^2 >> 1 is even) */
        uint64_t gq = (UINT64_C(1) << 52) | (((uint64_t)rng() << 32 | rng()) >> 12);
        if (i & 1) {
            gq = ((UINT64_C(1) << 26) + 2 * (rng() % (1u << 25)) + 1) << 26;
            ties_sq += gq >= UINT64_C(6369051672525773); /* > sqrt(2) 2^52 */
        }
        const uint64_t p = vif_dev_sq_round(gq, &sh);
        const double gd = sig_exp(gq, -52);
        bad_sq += sig_exp(p, sh - 104) != gd * gd;
    }
    CHECK(!bad_quot, "%ld of %ld quotients differ from the double c / (x + eps)", bad_quot, n);
    CHECK(!bad_mul, "%ld of %ld products differ from the double s * v", bad_mul, n);
    CHECK(!bad_sq, "%ld of %ld squares differ from the double g * g", bad_sq, n);
    CHECK(ties_mul > n / 8 && ties_sq > n / 8, "too few ties: %ld products, %ld squares",
          ties_mul, ties_sq);
}

static void pixel_case(int32_t x, int32_t y, int32_t c, double egl)
{
    uint32_t sv_want, sv;
    int64_t gain_want, gain;
    double t;
    pixel_double(x, y, c, egl, &sv_want, &gain_want, &t);
    vif_dev_pixel_int((uint32_t)x, (uint32_t)y, (uint32_t)c, test_bits_of_double(egl), &sv, &gain);
    pixel_cases++;
    CHECK(sv == sv_want && gain == gain_want,
          "pixel x %" PRId32 " y %" PRId32 " c %" PRId32 " egl %.17g: int sv %" PRIu32
          " gain %" PRId64 ", double sv %" PRIu32 " gain %" PRId64,
          x, y, c, egl, sv, gain, sv_want, gain_want);
}

static void test_pixel_int(int quick)
{
    const long n = quick ? 200000 : 4000000;
    const double egls[] = { 100.0, 1.0, 1.5, 37.25 };
    test_pixel_steps(n);
    rng_state = 0x51f;
    /* random operands: uniform bit lengths, with the sigmas' typical relations */
    for (long i = 0; i < n; i++) {
        const int32_t x = log_uniform(18, 1 << 17);
        int32_t y = log_uniform(1, 1), c = log_uniform(1, 1);
        const unsigned kind = rng() % 6;
        if (kind == 1) /* identical planes: sigma_xy = sigma_yy = sigma_xx */
            c = y = x;
        else if (kind == 2) /* sigma_xy^2 near sigma_xx sigma_yy: u near 0 */
            c = (int32_t)fmin(sqrt((double)x * y) - (double)(rng() % 4), (double)INT32_MAX);
        else if (kind == 3) /* small sigma_xy: g tiny, t with many fraction bits */
            c = 1 + (int32_t)(rng() % 1000);
        else if (kind == 4) /* gains above the limit */
            c = (int32_t)fmin((double)x * (1.0 + rng() % 200), (double)INT32_MAX);
        if (c < 1) c = 1;
        const double egl = (rng() & 1) ? egls[rng() % 4] : 1.0 + (rng() % 99000) / 1000.0;
        pixel_case(x, y, c, egl);
    }
    /* the binades' edges of sigma_xx, extreme operands */
    for (int k = 17; k <= 30; k++) {
        const int32_t xs[] = { (int32_t)1 << k, ((int32_t)1 << k) + 1,
                               (int32_t)(((int64_t)1 << (k + 1)) - 1) };
        const int32_t vs[] = { 1, 2, 3, 1 << 17, 65535, INT32_MAX, INT32_MAX - 1, 1 << 30 };
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 8; b++)
                for (int d = 0; d < 8; d++)
                    for (int e = 0; e < 4; e++)
                        pixel_case(xs[a], vs[b], vs[d], egls[e]);
    }
    /* the truncation of u: y placed so that the threshold of the rounding of y - t to
     * n + 1 (2^(E-53), E the exponent of n) lies just below or above t's fraction */
    long placed = 0;
    for (long i = 0; i < n; i++) {
        int32_t x = log_uniform(18, 1 << 17), c = log_uniform(1, 1);
        if (i & 1) {
            /* t just above an integer: c^2 = m x + j with small m, j (t ~ m + (j - m eps) / x,
             * a fraction that random operands almost never have) */
            const int64_t m = 1 + rng() % 64;
            const double c_lo = (double)m * 4096, c_hi = sqrt((double)m * 2147483647.0);
            c = (int32_t)(c_lo + (c_hi - c_lo) * (rng() / 4294967296.0));
            x = (int32_t)((int64_t)c * c / m);
        }
        const double eps = 65536 * 1.0e-10;
        const double t = (c / (x + eps)) * c;
        const double ti = floor(t), f0 = t - ti;
        if (f0 == 0 || t >= (double)INT32_MAX - 2)
            continue;
        int e0;
        frexp(f0, &e0); /* f0 in [2^(e0-1), 2^e0) */
        for (int E = e0 + 52; E <= e0 + 53; E++) {
            if (E < 0 || E > 29)
                continue;
            const double n_lo = ldexp(1.0, E), y = ti + 1 + n_lo + (rng() % 3);
            if (y >= (double)INT32_MAX)
                continue;
            pixel_case(x, (int32_t)y, c, 100.0);
            placed++;
        }
        /* and y around t itself: u near 0 and 1 */
        for (int dy = -1; dy <= 2; dy++)
            if (ti + dy >= 1)
                pixel_case(x, (int32_t)(ti + dy), c, 100.0);
    }
    CHECK(placed > n / 4, "only %ld operands placed at the rounding threshold of u", placed);
    /* the gain limit: at g, its neighbours, and limits whose square is a tie (significand
     * odd 2^26) */
    for (long i = 0; i < n / 4; i++) {
        const int32_t x = log_uniform(18, 1 << 17);
        const int32_t c = (int32_t)fmin((double)x * (1.0 + rng() % 120), (double)INT32_MAX);
        const int32_t y = log_uniform(1, 1);
        const double eps = 65536 * 1.0e-10, g = c / (x + eps);
        if (g >= 1.0 && g <= 100.0) {
            pixel_case(x, y, c, g);
            pixel_case(x, y, c, nextafter(g, 0.0));
            pixel_case(x, y, c, nextafter(g, 200.0));
        }
        const double tie = ldexp((double)((UINT64_C(1) << 26) + 2 * (rng() % (1u << 25)) + 1) *
                                     67108864.0, -52) * ldexp(1.0, (int)(rng() % 6));
        if (tie <= 100.0)
            pixel_case(x, y, c, tie);
    }
    printf("test_vif_twin: %ld per-pixel operand sets in the integer form\n", pixel_cases);
}
#endif

int main(int argc, char **argv)
{
    const char *clips_dir = argc > 1 ? argv[1] : NULL;
    const int quick = argc > 2 && !strcmp(argv[2], "--quick");
    uint16_t *full = xmalloc(VMAF_VIF_LOG2_TABLE_LEN * sizeof(uint16_t));
    uint16_t *table = xmalloc(VIF_DEV_LOG2_PACKED_LEN * sizeof(uint16_t));
    vmaf_vif_log2_table_fill(full);
    /* the kernels' packed table gives the CPU's L(v) at every index and every shift */
    CHECK(!vif_dev_log2_pack(full, table), "log2 table: not a staircase of 1-high steps");
    int bad_log2 = 0;
    for (uint32_t i = 0; i < VMAF_VIF_LOG2_TABLE_LEN; i++) {
        for (int b = 2; b <= 47; b += 15) { /* v = (2^15 + i) << b, plus low bits */
            const uint64_t v = ((uint64_t)(VMAF_VIF_LOG2_TABLE_FIRST + i) << b) | ((1ull << b) - 1);
            const int32_t want = (int32_t)full[i] + VMAF_VIF_LOG2_ONE * b;
            bad_log2 += vif_dev_log2_packed(table, v) != want || vif_dev_log2(full, v) != want;
        }
    }
    CHECK(!bad_log2, "log2 table: %d packed lookups differ from the table", bad_log2);
    /* and a staircase with a step of 2 or a step back is refused */
    full[100] += 2;
    CHECK(vif_dev_log2_pack(full, table) == -EINVAL, "log2 table: a 2-high step accepted");
    full[100] -= 2;
    CHECK(!vif_dev_log2_pack(full, table), "log2 table: repacking");

#if VMAF_DOUBLE_SOFT
    test_pixel_int(quick);
#endif
    test_synthetic(table, quick);
    if (clips_dir)
        test_real(clips_dir, table, quick);
    else
        printf("test_vif_twin: no clips directory: real content not tested\n");

    free(table);
    free(full);
    printf("test_vif_twin: %u frames, %d checks, %d failed\n", n_frames, checks, failures);
    return failures ? 1 : 0;
}
