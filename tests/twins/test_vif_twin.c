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
