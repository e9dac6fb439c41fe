/*
 * Unit test of integer ADM's reference side (src/feature/adm.c, adm.h: the reference's DWT
 * bands and denominator totals made once for the contexts that score one reference).
 *
 * 1. Kernels: vmaf_adm_score_totals_from_side() with a side of vmaf_adm_ref_side_compute()
 *    gives vmaf_adm_score_totals()'s totals, every integer: seeded frame pairs of four kinds
 *    (adm_cases.h, whose walk over sizes, depths, stages and options test_adm_compact.c
 *    shares) at 8..16 bits, odd sizes and sizes whose band widths put a straight last column
 *    (adm_device.h) at a scale outside the scored region, every option, the hand-written and
 *    the plain stages, over consecutive frames, two distorted pictures against one side read
 *    by the instance that made it and by another, side memory and band blocks full of
 *    garbage first. Sizes where the split is not exact (below 64, or a straight last column
 *    the stages read) are refused, and so is a side of other stages, bit depth or
 *    skip_scale0.
 * 2. Through the API: a ladder of rungs scoring "adm" with different options (debug on, so
 *    every output) against single contexts of the same pairs, every output byte for byte, at
 *    n_threads 0, 1 and 2; the reference pictures of rungs with the same key have one side
 *    product, computed once (none where the split does not apply).
 *
 * Exit status 0 when every check passes; the case is printed on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm.h"

#define TEST_MAX_PRINTED 40
#include "test_util.h"

#include "adm_cases.h"
#include "side_ladder.h"

/* ------------------------------------------------------------------------------------- */
/* 1. Kernels                                                                            */

static void garbage(void *p, size_t n)
{
    for (size_t k = 0; k < n; k++)
        ((unsigned char *)p)[k] = (unsigned char)rng();
}

static void alloc_buffers(VmafAdmBuffers *b, unsigned w, unsigned h, bool simd)
{
    if (vmaf_adm_buffers_alloc_compact(b, w, h)) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    b->simd = b->simd && simd;
}

static void run_case(unsigned w, unsigned h, unsigned bpc, int kind, int opt, bool simd)
{
    CHECK(vmaf_adm_ref_side_applies(w, h), "%ux%u: the split applies", w, h);
    AdmPic ref, dis[2];
    adm_pic_alloc(&ref, w, h, bpc);
    adm_pic_alloc(&dis[0], w, h, bpc);
    adm_pic_alloc(&dis[1], w, h, bpc);
    /* fused; the side's maker (then scoring dis[0] from it); another reader (dis[1]) */
    VmafAdmBuffers fused, maker, other;
    alloc_buffers(&fused, w, h, simd);
    alloc_buffers(&maker, w, h, simd);
    alloc_buffers(&other, w, h, simd);
    const VmafAdmOptions o = adm_option_set(opt);
    VmafAdmScaleFactors f[VMAF_ADM_SCALES];
    vmaf_adm_scale_factors(&o, f);
    const size_t size = vmaf_adm_ref_side_size(w, h);
    CHECK(size > 0 && size < (size_t)w * h * 5 + 4096, "%ux%u: side of %zu bytes", w, h, size);
    void *side = aligned_alloc(64, (size + 63) & ~(size_t)63);
    if (!side)
        exit(2);
    for (int frame = 0; frame < 3; frame++) {
        adm_make_ref(&ref, kind, frame);
        adm_make_dis(&ref, &dis[0], kind + frame);
        adm_make_dis(&ref, &dis[1], kind + frame + 1);
        garbage(side, size);
        if (frame == 1) { /* every band block full of garbage (not the row buffers: no stage
                           * of either path writes the parts the straight columns read) */
            garbage(maker.block, maker.block_bytes);
            garbage(other.block, other.block_bytes);
        }
        CHECK(!vmaf_adm_ref_side_compute(&maker, o.skip_scale0, side, size, ref.data,
                                         (ptrdiff_t)ref.stride, bpc),
              "%ux%u: compute", w, h);
        for (int n = 0; n < 2; n++) {
            VmafAdmTotals a, b;
            vmaf_adm_score_totals(&fused, &o, f, ref.data, (ptrdiff_t)ref.stride, dis[n].data,
                                  (ptrdiff_t)dis[n].stride, bpc, &a);
            memset(&b, 0x5a, sizeof(b));
            CHECK(!vmaf_adm_score_totals_from_side(n ? &other : &maker, &o, f, side,
                                                   dis[n].data, (ptrdiff_t)dis[n].stride, bpc,
                                                   &b),
                  "from side");
            CHECK(!memcmp(&a, &b, sizeof(a)),
                  "%ux%u %u-bit content %d options %d simd %d frame %d dis %d: totals differ",
                  w, h, bpc, kind, opt, simd, frame, n);
        }
    }
    /* a side of other stages, bit depth or skip_scale0 is refused */
    VmafAdmTotals t;
    VmafAdmOptions o2 = o;
    o2.skip_scale0 = !o.skip_scale0;
    CHECK(vmaf_adm_score_totals_from_side(&other, &o2, f, side, dis[0].data,
                                          (ptrdiff_t)dis[0].stride, bpc, &t) == -EINVAL,
          "skip_scale0 refused");
    CHECK(vmaf_adm_score_totals_from_side(&other, &o, f, side, dis[0].data,
                                          (ptrdiff_t)dis[0].stride, bpc == 8 ? 10 : 8,
                                          &t) == -EINVAL,
          "bit depth refused");
    if (vmaf_adm_simd_available()) {
        other.simd = !other.simd;
        CHECK(vmaf_adm_score_totals_from_side(&other, &o, f, side, dis[0].data,
                                              (ptrdiff_t)dis[0].stride, bpc, &t) == -EINVAL,
              "stages refused");
    }
    CHECK(vmaf_adm_ref_side_compute(&maker, o.skip_scale0, side, size - 1, ref.data,
                                    (ptrdiff_t)ref.stride, bpc) == -EINVAL,
          "short side refused");
    free(side);
    vmaf_adm_buffers_free(&fused);
    vmaf_adm_buffers_free(&maker);
    vmaf_adm_buffers_free(&other);
    free(ref.data);
    free(dis[0].data);
    free(dis[1].data);
}

/* A straight last column (band width 1 mod 8, above 8) of scale s in 1..3 inside the
 * decouple region: the sizes the split must refuse. */
static bool straight_read(unsigned w, unsigned h)
{
    unsigned bw = (w + 1) / 2, bh = (h + 1) / 2;
    for (unsigned s = 1; s < VMAF_ADM_SCALES; s++) {
        bw = (bw + 1) / 2;
        bh = (bh + 1) / 2;
        const int left = (int)(bw * 0.1 - 1.5);
        if (bw > 8 && (bw - 1) % 8 == 0 && (int)bw - left + 2 > (int)bw - 1)
            return true;
    }
    return false;
}

/* A case of the walk; drawn sizes only where the split applies (the listed ones must). */
static void side_case(const AdmCase *c)
{
    if (!c->drawn || !straight_read(c->w, c->h))
        run_case(c->w, c->h, c->bpc, c->kind, c->opt, c->simd);
}

static void test_kernels(void)
{
    rng_state = 0x2545f4914f6cdd1dull;
    /* 227, 451, 777: a straight last column (band width 57, 57, 49) at scale 1, 2, 3, outside
     * the region; the others odd and even sizes of every remainder */
    static const unsigned sizes[][2] = {
        { 64, 64 },   { 73, 67 },   { 75, 71 },   { 101, 81 },  { 127, 64 }, { 128, 129 },
        { 227, 70 },  { 191, 113 }, { 255, 143 }, { 275, 99 },  { 320, 180 }, { 353, 89 },
        { 451, 66 },  { 777, 65 },  { 576, 324 },
    };
    adm_each_case(sizes, sizeof(sizes) / sizeof(sizes[0]), 12, 500, 200, side_case);

    /* where the split is not exact it is refused */
    unsigned refused = 0;
    for (unsigned w = 1; w < 1200; w++) {
        const bool want = w >= 64 && !straight_read(w, 64);
        refused += !want;
        CHECK(vmaf_adm_ref_side_applies(w, 64) == want, "width %u: applies %d", w,
              vmaf_adm_ref_side_applies(w, 64));
    }
    CHECK(refused > 63, "%u widths refused", refused);
    CHECK(!vmaf_adm_ref_side_applies(64, 63) && !vmaf_adm_ref_side_applies(130, 77),
          "63 rows, 130 columns refused");
    VmafAdmBuffers b;
    alloc_buffers(&b, 130, 77, true);
    const size_t size = vmaf_adm_ref_side_size(130, 77);
    void *side = aligned_alloc(64, (size + 63) & ~(size_t)63);
    AdmPic ref;
    adm_pic_alloc(&ref, 130, 77, 8);
    adm_make_ref(&ref, 1, 0);
    CHECK(side && vmaf_adm_ref_side_compute(&b, false, side, size, ref.data,
                                            (ptrdiff_t)ref.stride, 8) == -EINVAL,
          "130x77 refused");
    free(side);
    free(ref.data);
    vmaf_adm_buffers_free(&b);
}

/* ------------------------------------------------------------------------------------- */
/* 2. Through the API                                                                    */

/* Rungs 0 and 1 alike, 2 with a gain limit and Barten's CSF (not in the key: one side for
 * 0..2), 3 skipping scale 0 (another side). */
static VmafFeatureDictionary *rung_options(int k)
{
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "debug", "true");
    if (k == 2) {
        vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "1.5");
        vmaf_feature_dictionary_set(&d, "adm_csf_mode", "1");
    }
    if (k == 3)
        vmaf_feature_dictionary_set(&d, "adm_skip_scale0", "true");
    return d;
}

static void test_api(void)
{
    static const unsigned cases[][3] = { { 64, 64, 8 }, { 101, 81, 10 }, { 227, 70, 12 },
                                         { 75, 66, 16 }, { 130, 77, 8 }, { 48, 40, 8 } };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const unsigned w = cases[c][0], h = cases[c][1];
        for (unsigned threads = 0; threads <= 2; threads++)
            side_ladder_case("adm", rung_options, w, h, cases[c][2], threads,
                             vmaf_adm_ref_side_applies(w, h) ? 2 : 0);
    }
}

int main(void)
{
    test_kernels();
    test_api();
    printf("adm_side: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
