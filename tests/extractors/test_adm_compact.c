/*
 * The ADM extractor's compact buffers (vmaf_adm_buffers_alloc_compact: the int32 bands of
 * scales 1..3 share the scale-0 int16 region) give the totals of the full layout
 * (vmaf_adm_buffers_alloc, the layout the CUDA twin copies), exactly, at many sizes, bit
 * depths, options and contents (adm_cases.h), with the hand-written and the plain stages,
 * over consecutive frames, and also when every byte of the compact block is garbage before a frame (so no
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

#include "adm_cases.h"

static void run_case(unsigned w, unsigned h, unsigned bpc, int kind, int opt, bool simd)
{
    AdmPic ref, dis;
    VmafAdmBuffers full, compact;
    adm_pic_alloc(&ref, w, h, bpc);
    adm_pic_alloc(&dis, w, h, bpc);
    if (vmaf_adm_buffers_alloc(&full, w, h) || vmaf_adm_buffers_alloc_compact(&compact, w, h)) {
        CHECK(0, "allocation %ux%u", w, h);
        exit(2);
    }
    full.simd = full.simd && simd;
    compact.simd = compact.simd && simd;
    CHECK(compact.block_bytes < full.block_bytes, "%ux%u: compact block %zu >= full %zu", w, h,
          compact.block_bytes, full.block_bytes);
    const VmafAdmOptions o = adm_option_set(opt);
    VmafAdmScaleFactors f[VMAF_ADM_SCALES];
    vmaf_adm_scale_factors(&o, f);
    for (int frame = 0; frame < 3; frame++) {
        adm_make_ref(&ref, kind, frame);
        adm_make_dis(&ref, &dis, kind + frame);
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

/* A case of the walk; at 10 bits a listed size again with the next content and the
 * default options. */
static void compact_case(const AdmCase *c)
{
    run_case(c->w, c->h, c->bpc, c->kind, c->opt, c->simd);
    if (c->bpc == 10 && !c->drawn)
        run_case(c->w, c->h, c->bpc, (c->kind + 1) % 4, 0, c->simd);
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
    adm_each_case(sizes, sizeof(sizes) / sizeof(sizes[0]), 24, 400, 300, compact_case);
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
