/*
 * Unit test of float_ssim's and float_ms_ssim's reference side (src/feature/ssim.c,
 * float_ssim.c, float_ms_ssim.c: the reference plane, pyramid, and its window outputs mu1
 * and xx made once for the contexts that score one reference).
 *
 * 1. Kernels: in every build this CPU runs, vmaf_ssim_sums_from_windows() with the windows
 *    of vmaf_ssim_ref_windows() gives vmaf_ssim_sums()'s four sums, bit for bit: planes of
 *    random values and of a few textures, sizes from 1x1 (nothing summed) to odd sizes above
 *    the window, the reference and distorted planes at different strides, the side rows
 *    at a wider stride and full of garbage first, three distorted planes against one side.
 * 2. Through the API: ladders of rungs scoring float_ssim and float_ms_ssim with different
 *    options against single contexts of the same pairs, every output byte for byte
 *    (tests/extractors/side_ladder.h), at 8..16 bits, odd sizes, n_threads 0, 1 and 2; the
 *    reference pictures of rungs with the same key have one side product.
 *
 * Exit status 0 when every check passes; the case is printed on failure.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/ssim.h"

#define TEST_MAX_PRINTED 40
#include "test_util.h"

#include "side_ladder.h"

/* ------------------------------------------------------------------------------------- */
/* 1. Kernels                                                                            */

static float *plane(int h, ptrdiff_t stride, int kind)
{
    float *p = malloc(((size_t)stride * (size_t)(h ? h : 1) + 16) * sizeof(float));
    if (!p) exit(2);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < stride; x++) {
            float v;
            switch (kind) {
            case 0: v = (float)(rng() % 256); break;
            case 1: v = (float)((x * 7 + y * 3) % 256) + (float)(rng() % 4) / 4.0f; break;
            case 2: v = ((x / 3 + y / 2) & 1) ? 255.0f : 0.0f; break;
            default: v = (float)(rng() % 65536) / 257.0f; break;
            }
            p[(size_t)y * (size_t)stride + (size_t)x] = v;
        }
    return p;
}

static void kernel_case(enum VmafFloatImpl impl, int w, int h, int kind)
{
    VmafSsimWorkspace ws;
    CHECK(!vmaf_ssim_workspace_init(&ws, w > 0 ? w : 1), "workspace");
    const ptrdiff_t rs = w + 3 + (int)(rng() % 9), ds = w + (int)(rng() % 5);
    float *ref = plane(h, rs, kind);
    const int nw = w - 10, nh = h - 10;
    const ptrdiff_t ss = (nw > 0 ? nw : 0) + 1 + (int)(rng() % 17);
    const size_t side_n = (size_t)ss * (size_t)(nh > 0 ? nh : 1) + 8;
    float *mu = malloc(side_n * sizeof(float)), *xx = malloc(side_n * sizeof(float));
    if (!mu || !xx) exit(2);
    for (size_t k = 0; k < side_n; k++) {
        uint32_t u = rng();
        memcpy(&mu[k], &u, sizeof(u));
        u = rng();
        memcpy(&xx[k], &u, sizeof(u));
    }
    CHECK(!vmaf_ssim_ref_windows(impl, &ws, ref, rs, w, h, mu, xx, ss), "ref windows");
    for (int n = 0; n < 3; n++) {
        float *dis = plane(h, ds, (kind + n) % 4);
        if (n == 2) /* the reference itself (same stride) */
            for (int y = 0; y < h; y++)
                memcpy(dis + (size_t)y * (size_t)ds, ref + (size_t)y * (size_t)rs,
                       (size_t)w * sizeof(float));
        float *dis_same = malloc(((size_t)rs * (size_t)(h ? h : 1) + 16) * sizeof(float));
        if (!dis_same) exit(2);
        for (int y = 0; y < h; y++) /* vmaf_ssim_sums takes one stride for both */
            memcpy(dis_same + (size_t)y * (size_t)rs, dis + (size_t)y * (size_t)ds,
                   (size_t)w * sizeof(float));
        double a[4], b[4];
        CHECK(!vmaf_ssim_sums(impl, &ws, ref, dis_same, rs, w, h, a), "sums");
        memset(b, 0x5a, sizeof(b));
        CHECK(!vmaf_ssim_sums_from_windows(impl, &ws, ref, rs, dis, ds, w, h, mu, xx, ss, b),
              "sums from windows");
        for (int q = 0; q < 4; q++)
            CHECK(test_bits_of_double(a[q]) == test_bits_of_double(b[q]),
                  "impl %d %dx%d kind %d dis %d sum %d: %.17g vs %.17g", (int)impl, w, h, kind, n,
                  q, a[q], b[q]);
        free(dis);
        free(dis_same);
    }
    CHECK(vmaf_ssim_ref_windows(impl, &ws, ref, rs, w, h, mu, xx, nw - 1) == -EINVAL,
          "a short side stride refused");
    free(ref);
    free(mu);
    free(xx);
    vmaf_ssim_workspace_close(&ws);
}

static void test_kernels(void)
{
    rng_state = 0x5851f42d4c957f2dull;
    static const int sizes[][2] = { { 1, 1 },   { 10, 30 },  { 11, 11 }, { 12, 11 },
                                    { 11, 25 }, { 13, 17 },  { 31, 23 }, { 64, 48 },
                                    { 67, 41 }, { 100, 13 }, { 257, 31 } };
    const enum VmafFloatImpl impls[] = { VMAF_FLOAT_IMPL_PLAIN, VMAF_FLOAT_IMPL_AVX2 };
    for (size_t i = 0; i < sizeof(impls) / sizeof(impls[0]); i++) {
        enum VmafFloatImpl r = impls[i];
        if (vmaf_float_impl_resolve(&r)) continue; /* not in this build or CPU */
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            for (int kind = 0; kind < 4; kind++)
                kernel_case(impls[i], sizes[s][0], sizes[s][1], kind);
    }
}

/* ------------------------------------------------------------------------------------- */
/* 2. Through the API                                                                    */

/* float_ssim: rungs 0, 1 alike, 2 with enable_lcs and enable_db (not in the key), 3 with
 * another scale (another product). */
static int ssim_scale3;

static VmafFeatureDictionary *ssim_options(int k)
{
    VmafFeatureDictionary *d = NULL;
    if (k == 2) {
        vmaf_feature_dictionary_set(&d, "enable_lcs", "true");
        vmaf_feature_dictionary_set(&d, "enable_db", "true");
    }
    if (k == 3) {
        char v[8];
        snprintf(v, sizeof(v), "%d", ssim_scale3);
        vmaf_feature_dictionary_set(&d, "scale", v);
    }
    return d;
}

/* float_ms_ssim: one key; rungs 2 and 3 with enable_lcs, clip_db. */
static VmafFeatureDictionary *ms_options(int k)
{
    VmafFeatureDictionary *d = NULL;
    if (k == 2) vmaf_feature_dictionary_set(&d, "enable_lcs", "true");
    if (k == 3) {
        vmaf_feature_dictionary_set(&d, "enable_db", "true");
        vmaf_feature_dictionary_set(&d, "clip_db", "true");
    }
    return d;
}

static void test_api(void)
{
    /* w, h, bpc, rung 3's scale (the others: auto, 1 below 384, 2 from 384 to 639; 8 wide at
     * scale 10 decimates to nothing: no product) */
    static const int ssim_cases[][4] = { { 64, 48, 8, 2 },    { 37, 29, 10, 3 },
                                         { 131, 77, 12, 2 },  { 23, 19, 16, 2 },
                                         { 401, 389, 10, 1 }, { 8, 41, 8, 10 } };
    for (size_t c = 0; c < sizeof(ssim_cases) / sizeof(ssim_cases[0]); c++) {
        ssim_scale3 = ssim_cases[c][3];
        for (unsigned threads = 0; threads <= 2; threads++)
            side_ladder_case("float_ssim", ssim_options, (unsigned)ssim_cases[c][0],
                             (unsigned)ssim_cases[c][1], (unsigned)ssim_cases[c][2], threads,
                             ssim_cases[c][3] == 10 ? 1 : 2);
    }
    static const unsigned ms_cases[][3] = { { 176, 176, 8 }, { 181, 195, 10 }, { 203, 177, 12 },
                                            { 177, 181, 16 } };
    for (size_t c = 0; c < sizeof(ms_cases) / sizeof(ms_cases[0]); c++)
        for (unsigned threads = 0; threads <= 2; threads++)
            side_ladder_case("float_ms_ssim", ms_options, ms_cases[c][0], ms_cases[c][1],
                             ms_cases[c][2], threads, 1);
}

int main(void)
{
    test_kernels();
    test_api();
    printf("ssim_side: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
