/*
 * The ADM extractor's compact buffers (vmaf_adm_buffers_alloc_compact: the int32 bands of
 * scales 1..3 share the scale-0 int16 region) give the totals of the full layout
 * (vmaf_adm_buffers_alloc, the layout the CUDA twin copies), exactly, at many sizes, bit
 * depths, options and contents, with the hand-written and the plain stages, over consecutive
 * frames, and also when every byte of the compact block is garbage before a frame (so no
 * stage reads band memory it has not written in that frame).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm.h"

#define TEST_MAX_PRINTED 40
#include "test_util.h"

typedef struct Pic {
    unsigned w, h, bpc;
    size_t stride; /* bytes */
    void *data;
} Pic;

static int pic_alloc(Pic *p, unsigned w, unsigned h, unsigned bpc)
{
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->stride = ((size_t)w * (bpc > 8 ? 2 : 1) + 63) / 64 * 64;
    p->data = malloc(p->stride * h);
    return p->data ? 0 : -1;
}

static void put(Pic *p, unsigned x, unsigned y, unsigned v)
{
    const unsigned max = (1u << p->bpc) - 1;
    if (v > max) v = max;
    if (p->bpc > 8)
        ((uint16_t *)(void *)((char *)p->data + y * p->stride))[x] = (uint16_t)v;
    else
        ((uint8_t *)p->data + y * p->stride)[x] = (uint8_t)v;
}

static unsigned get(const Pic *p, unsigned x, unsigned y)
{
    if (p->bpc > 8) return ((const uint16_t *)(const void *)((const char *)p->data + y * p->stride))[x];
    return ((const uint8_t *)p->data + y * p->stride)[x];
}

/* content kinds: noise, a smooth pattern with edges, extremes, and the pattern's
 * distortions (noise, quantisation, identical) */
static void make(Pic *ref, Pic *dis, int kind, int frame)
{
    const unsigned max = (1u << ref->bpc) - 1;
    for (unsigned y = 0; y < ref->h; y++)
        for (unsigned x = 0; x < ref->w; x++) {
            unsigned r;
            switch (kind) {
            case 0: r = rng() % (max + 1); break;
            case 1: r = ((x + 3 * (unsigned)frame) * 7 + y * 3) % (max + 1); break;
            case 2: r = ((x / 5 + y / 3 + (unsigned)frame) & 1) ? max : 0; break;
            default: {
                const unsigned band = (x * 13 + y * 5 + (unsigned)frame * 11) % 97;
                r = (band * max / 96 + (x > ref->w / 2 ? max / 4 : 0)) % (max + 1);
            }
            }
            put(ref, x, y, r);
        }
    for (unsigned y = 0; y < ref->h; y++)
        for (unsigned x = 0; x < ref->w; x++) {
            const unsigned r = get(ref, x, y);
            unsigned d;
            switch ((kind + frame) % 4) {
            case 0: d = r + rng() % (max / 8 + 1); break;
            case 1: d = r / (max / 16 + 1) * (max / 16 + 1); break;
            case 2: d = r; break;
            default: d = (r + get(ref, x ? x - 1 : x, y) + 1) / 2; break;
            }
            put(dis, x, y, d);
        }
}

static VmafAdmOptions options(int k)
{
    VmafAdmOptions o = {
        .csf_scale = VMAF_ADM_DEFAULT_CSF_SCALE,
        .csf_diag_scale = VMAF_ADM_DEFAULT_CSF_DIAG_SCALE,
        .dlm_weight = VMAF_ADM_DEFAULT_DLM_WEIGHT,
        .enhn_gain_limit = VMAF_ADM_DEFAULT_ENHN_GAIN_LIMIT,
        .norm_view_dist = VMAF_ADM_DEFAULT_NORM_VIEW_DIST,
        .ref_display_height = VMAF_ADM_DEFAULT_REF_DISPLAY_HEIGHT,
        .noise_weight = VMAF_ADM_DEFAULT_NOISE_WEIGHT,
        .min_val = VMAF_ADM_DEFAULT_MIN_VAL,
    };
    if (k == 1) o.enhn_gain_limit = 1.0;
    if (k == 2) o.skip_aim = true;
    if (k == 3) o.skip_scale0 = true;
    return o;
}

static void run_case(unsigned w, unsigned h, unsigned bpc, int kind, int opt, bool simd)
{
    Pic ref, dis;
    VmafAdmBuffers full, compact;
    if (pic_alloc(&ref, w, h, bpc) || pic_alloc(&dis, w, h, bpc) ||
        vmaf_adm_buffers_alloc(&full, w, h) || vmaf_adm_buffers_alloc_compact(&compact, w, h)) {
        CHECK(0, "allocation %ux%u", w, h);
        exit(2);
    }
    full.simd = full.simd && simd;
    compact.simd = compact.simd && simd;
    CHECK(compact.block_bytes < full.block_bytes, "%ux%u: compact block %zu >= full %zu", w, h,
          compact.block_bytes, full.block_bytes);
    const VmafAdmOptions o = options(opt);
    VmafAdmScaleFactors f[VMAF_ADM_SCALES];
    vmaf_adm_scale_factors(&o, f);
    for (int frame = 0; frame < 3; frame++) {
        make(&ref, &dis, kind, frame);
        if (frame == 2) /* garbage everywhere in the compact block */
            for (size_t k = 0; k < compact.block_bytes; k++)
                ((unsigned char *)compact.block)[k] = (unsigned char)rng();
        VmafAdmTotals a, b;
        vmaf_adm_score_totals(&full, &o, f, ref.data, (ptrdiff_t)ref.stride, dis.data,
                              (ptrdiff_t)dis.stride, bpc, &a);
        vmaf_adm_score_totals(&compact, &o, f, ref.data, (ptrdiff_t)ref.stride, dis.data,
                              (ptrdiff_t)dis.stride, bpc, &b);
        CHECK(!memcmp(&a, &b, sizeof(a)),
              "%ux%u %u-bit content %d options %d simd %d frame %d: totals differ", w, h, bpc,
              kind, opt, simd, frame);
    }
    vmaf_adm_buffers_free(&full);
    vmaf_adm_buffers_free(&compact);
    free(ref.data);
    free(dis.data);
}

int main(void)
{
    rng_state = 0x9e3779b97f4a7c15ull;
    static const unsigned sizes[][2] = {
        { 64, 64 },   { 65, 64 },   { 64, 67 },   { 66, 70 },   { 67, 71 },   { 68, 65 },
        { 72, 96 },   { 97, 81 },   { 127, 64 },  { 128, 128 }, { 129, 131 }, { 130, 77 },
        { 131, 66 },  { 132, 99 },  { 160, 90 },  { 176, 144 }, { 191, 113 }, { 255, 143 },
        { 257, 145 }, { 263, 130 }, { 320, 180 }, { 353, 289 }, { 576, 324 }, { 641, 361 },
    };
    const size_t n_sizes = sizeof(sizes) / sizeof(sizes[0]);
    for (size_t i = 0; i < n_sizes; i++)
        for (int simd = 0; simd < 2; simd++)
            for (unsigned bpc = 8; bpc <= 16; bpc += 2) {
                const int kind = (int)((i + bpc + (unsigned)simd) % 4);
                const int opt = (int)((i + (unsigned)simd) % 4);
                run_case(sizes[i][0], sizes[i][1], bpc, kind, opt, simd);
                if (bpc == 10) run_case(sizes[i][0], sizes[i][1], bpc, (kind + 1) % 4, 0, simd);
            }
    /* random sizes */
    for (int k = 0; k < 24; k++) {
        const unsigned w = 64 + rng() % 400, h = 64 + rng() % 300;
        run_case(w, h, k % 3 ? 8 : 10, k % 4, k % 4, k % 2);
    }
    run_case(1920, 1080, 8, 3, 0, true);
    run_case(1280, 720, 10, 0, 0, true);
    /* below 64 the compact call gives the full block */
    VmafAdmBuffers a, b;
    if (!vmaf_adm_buffers_alloc(&a, 63, 200) && !vmaf_adm_buffers_alloc_compact(&b, 63, 200)) {
        CHECK(a.block_bytes == b.block_bytes, "63x200: the full block");
        vmaf_adm_buffers_free(&a);
        vmaf_adm_buffers_free(&b);
    }
    printf("adm_compact: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
