/*
 * Unit test of the ciede extractor and its building blocks (src/feature/ciede.h).
 *
 * 1. CIEDE2000 with kL = kC = kH = 1 on the 34 published test pairs of Sharma, Wu and Dalal
 *    (2005), to their 4 decimals.
 * 2. sRGB to CIELAB on known colours (white, black, the primaries, mid grey; D65).
 * 3. Y'CbCr to CIELAB: limited-range white and black at 8 and 10 bits.
 * 4. Identical colours differ by exactly 0 (random colours, achromatic ones included); a
 *    lightness-only difference follows the textbook formula with kL = 0.65.
 * 5. Through the API: identical frames give +infinity; 4:2:0 equals 4:4:4 upsampled by
 *    nearest neighbour (odd sizes: last chroma row and column repeated); 4:2:2 equals 4:4:4
 *    made with the reference's mapping (row i/2, position j in the plane's memory, padding
 *    read as 0) whatever the picture holds in its padding; 8 and 16 bits; 4:0:0 refused.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/ciede.h"
#include "libvmaf/libvmaf.h"

#include "test_util.h"

/* ---- 1. Sharma et al. 2005 ----------------------------------------------------------- */

static void test_sharma(void)
{
    static const double pairs[34][7] = {
        { 50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425 },
        { 50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615 },
        { 50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412 },
        { 50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000 },
        { 50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000 },
        { 50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000 },
        { 50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669 },
        { 50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669 },
        { 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792 },
        { 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792 },
        { 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195 },
        { 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195 },
        { 50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045 },
        { 50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045 },
        { 50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461 },
        { 50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065 },
        { 50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492 },
        { 50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977 },
        { 50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030 },
        { 50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535 },
        { 50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000 },
        { 50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000 },
        { 50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000 },
        { 50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000 },
        { 60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644 },
        { 63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630 },
        { 61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731 },
        { 35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645 },
        { 22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373 },
        { 36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146 },
        { 90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441 },
        { 90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381 },
        { 6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377 },
        { 2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082 },
    };
    for (int i = 0; i < 34; i++) {
        const double *p = pairs[i];
        const VmafCiedeLab a = { (float)p[0], (float)p[1], (float)p[2] };
        const VmafCiedeLab b = { (float)p[3], (float)p[4], (float)p[5] };
        const float de = vmaf_ciede2000_weighted(a, b, 1.0f, 1.0f, 1.0f);
        CHECK(fabs(de - p[6]) < 1.5e-4, "Sharma pair %d: %.6f, published %.4f", i + 1, de, p[6]);
    }
}

/* ---- 2/3. colour conversion ---------------------------------------------------------- */

static void check_lab(const char *what, VmafCiedeLab got, double l, double a, double b,
                      double tolerance)
{
    CHECK(fabs(got.l - l) < tolerance && fabs(got.a - a) < tolerance &&
              fabs(got.b - b) < tolerance,
          "%s: Lab (%.5f, %.5f, %.5f), expected (%.4f, %.4f, %.4f)", what, got.l, got.a, got.b, l,
          a, b);
}

static void test_conversion(void)
{
    check_lab("sRGB white", vmaf_ciede_lab_from_rgb(1, 1, 1), 100, 0, 0, 1e-3);
    check_lab("sRGB black", vmaf_ciede_lab_from_rgb(0, 0, 0), 0, 0, 0, 1e-4);
    check_lab("sRGB red", vmaf_ciede_lab_from_rgb(1, 0, 0), 53.2408, 80.0925, 67.2032, 2e-3);
    check_lab("sRGB green", vmaf_ciede_lab_from_rgb(0, 1, 0), 87.7347, -86.1827, 83.1793, 2e-3);
    check_lab("sRGB blue", vmaf_ciede_lab_from_rgb(0, 0, 1), 32.2970, 79.1875, -107.8602, 2e-3);
    check_lab("sRGB grey 0.5", vmaf_ciede_lab_from_rgb(0.5, 0.5, 0.5), 53.3890, 0, 0, 2e-3);
    /* the linear segment near black: (kappa * Y + 16) / 116 with Y = c / 12.92 */
    {
        const double c = 0.02, y = c / 12.92;
        const double l = 116.0 * ((24389.0 / 27.0 * y + 16.0) / 116.0) - 16.0;
        check_lab("sRGB dark grey", vmaf_ciede_lab_from_rgb(c, c, c), l, 0, 0, 1e-4);
    }
    check_lab("Y'CbCr white 8-bit", vmaf_ciede_lab(235, 128, 128, 8), 100, 0, 0, 1e-3);
    check_lab("Y'CbCr black 8-bit", vmaf_ciede_lab(16, 128, 128, 8), 0, 0, 0, 1e-4);
    check_lab("Y'CbCr white 10-bit", vmaf_ciede_lab(940, 512, 512, 10), 100, 0, 0, 1e-3);
    check_lab("Y'CbCr black 16-bit", vmaf_ciede_lab(16 << 8, 128 << 8, 128 << 8, 16), 0, 0, 0,
              1e-4);
    const VmafCiedeLab a8 = vmaf_ciede_lab(100, 90, 170, 8);
    const VmafCiedeLab a12 = vmaf_ciede_lab(100 << 4, 90 << 4, 170 << 4, 12);
    check_lab("8 vs 12 bits", a12, a8.l, a8.a, a8.b, 1e-4);
    /* a reddish Y'CbCr sample has positive a, a bluish one negative b */
    CHECK(a8.a > 10, "reddish a = %g", a8.a);
    const VmafCiedeLab blue = vmaf_ciede_lab(60, 200, 110, 8);
    CHECK(blue.b < -20, "bluish b = %g", blue.b);
}

/* ---- 4. differences ------------------------------------------------------------------ */

static void test_differences(void)
{
    rng_state = 9;
    int nonzero = 0;
    for (int i = 0; i < 2000; i++) {
        const unsigned y = rng() % 256, u = i % 7 ? rng() % 256 : 128, v = i % 7 ? rng() % 256 : 128;
        const VmafCiedeLab c = vmaf_ciede_lab(y, u, v, 8);
        nonzero += vmaf_ciede2000(c, c) != 0.0f;
    }
    CHECK(!nonzero, "identical colours: %d nonzero differences", nonzero);

    /* lightness only: dE = |dL| / (0.65 S_L) */
    const VmafCiedeLab p = vmaf_ciede_lab(100, 128, 128, 8), q = vmaf_ciede_lab(110, 128, 128, 8);
    const double lbar = (p.l + q.l) / 2.0 - 50.0;
    const double sl = 1.0 + 0.015 * lbar * lbar / sqrt(20.0 + lbar * lbar);
    const double want = fabs(q.l - p.l) / (0.65 * sl);
    CHECK(fabs(vmaf_ciede2000(p, q) - want) < 1e-5, "grey pair %.7f, expected %.7f",
          vmaf_ciede2000(p, q), want);
    CHECK(fabs(vmaf_ciede2000(q, p) - want) < 1e-5, "grey pair reversed");
}

/* ---- 5. through the API -------------------------------------------------------------- */

typedef unsigned (*Pattern)(unsigned p, unsigned i, unsigned j, unsigned frame);

static unsigned pattern_ref(unsigned p, unsigned i, unsigned j, unsigned f)
{
    return (unsigned)(128 + 90 * sin(0.3 * i + 0.2 * j + p + f)) & 255u;
}

static unsigned pattern_dis(unsigned p, unsigned i, unsigned j, unsigned f)
{
    return (pattern_ref(p, i, j, f) + (i * 7 + j * 3 + p) % 9) & 255u;
}

static void put(VmafPicture *pic, unsigned p, unsigned i, unsigned j, unsigned v)
{
    uint8_t *row = (uint8_t *)pic->data[p] + (ptrdiff_t)i * pic->stride[p];
    if (pic->bpc > 8)
        ((uint16_t *)row)[j] = (uint16_t)(v << (pic->bpc - 8));
    else
        row[j] = (uint8_t)v;
}

/* Fill pic with the pattern; garbage != 0 also fills each row's padding with it. */
static void fill(VmafPicture *pic, Pattern pat, unsigned frame, unsigned garbage)
{
    for (unsigned p = 0; p < 3 && pic->data[p]; p++) {
        const unsigned bytes = pic->bpc > 8 ? 2 : 1;
        for (unsigned i = 0; i < pic->h[p]; i++) {
            uint8_t *row = (uint8_t *)pic->data[p] + (ptrdiff_t)i * pic->stride[p];
            if (garbage)
                memset(row + pic->w[p] * bytes, (int)garbage,
                       (size_t)pic->stride[p] - pic->w[p] * bytes);
            for (unsigned j = 0; j < pic->w[p]; j++)
                put(pic, p, i, j, pat(p, i, j, frame));
        }
    }
}

/* 4:4:4 picture from a subsampled pattern by the mapping the extractor documents. */
static void fill_upsampled(VmafPicture *pic, enum VmafPixelFormat from, unsigned w, unsigned h,
                           Pattern pat, unsigned frame)
{
    const unsigned cw = w >> 1, ch = from == VMAF_PIX_FMT_YUV420P ? h >> 1 : h;
    const unsigned stride = (cw + 31u) & ~31u;
    for (unsigned i = 0; i < h; i++) {
        for (unsigned j = 0; j < w; j++) {
            put(pic, 0, i, j, pat(0, i, j, frame));
            for (unsigned p = 1; p < 3; p++) {
                unsigned v = 0;
                if (!cw || !ch) {
                    v = 0; /* no chroma samples */
                } else if (from == VMAF_PIX_FMT_YUV420P) {
                    const unsigned r = i / 2 < ch ? i / 2 : ch - 1, c = j / 2 < cw ? j / 2 : cw - 1;
                    v = pat(p, r, c, frame);
                } else {
                    const unsigned pos = (i / 2) * stride + j, r = pos / stride, c = pos % stride;
                    v = (r < ch && c < cw) ? pat(p, r, c, frame) : 0;
                }
                put(pic, p, i, j, v);
            }
        }
    }
}

/* ciede2000 of `frames` frames; a 4:4:4 upsampled copy when upsample_from is set. */
static int run(enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h, int identical,
               enum VmafPixelFormat upsample_from, unsigned garbage, double *scores, int frames)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    if (vmaf_init(&v, cfg)) return -1;
    int err = vmaf_use_feature(v, "ciede", NULL);
    for (int f = 0; !err && f < frames; f++) {
        VmafPicture r, d;
        if (vmaf_picture_alloc(&r, fmt, bpc, w, h)) {
            err = -ENOMEM;
            break;
        }
        if (vmaf_picture_alloc(&d, fmt, bpc, w, h)) {
            vmaf_picture_unref(&r);
            err = -ENOMEM;
            break;
        }
        if (upsample_from) {
            fill_upsampled(&r, upsample_from, w, h, pattern_ref, (unsigned)f);
            fill_upsampled(&d, upsample_from, w, h, identical ? pattern_ref : pattern_dis,
                           (unsigned)f);
        } else {
            fill(&r, pattern_ref, (unsigned)f, garbage);
            fill(&d, identical ? pattern_ref : pattern_dis, (unsigned)f, garbage);
        }
        err = read_pictures_or_release(v, &r, &d, (unsigned)f);
    }
    if (!err) err = vmaf_read_pictures(v, NULL, NULL, 0);
    for (int f = 0; !err && f < frames; f++)
        err = vmaf_feature_score_at_index(v, "ciede2000", &scores[f], (unsigned)f);
    vmaf_close(v);
    return err;
}

static void test_api(void)
{
    double a[2] = { 0 }, b[2] = { 0 };
    CHECK(!run(VMAF_PIX_FMT_YUV420P, 8, 32, 18, 1, 0, 0, a, 1), "identical run");
    CHECK(isinf(a[0]) && a[0] > 0, "identical frames: %g", a[0]);

    static const unsigned sizes[][2] = { { 32, 18 }, { 33, 19 }, { 64, 1 }, { 3, 3 }, { 1, 1 },
                                         { 70, 40 } };
    static const unsigned depths[] = { 8, 16 };
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const unsigned w = sizes[s][0], h = sizes[s][1];
        for (int k = 0; k < 2; k++) {
            const unsigned bpc = depths[k];
            CHECK(!run(VMAF_PIX_FMT_YUV420P, bpc, w, h, 0, 0, 0, a, 2), "4:2:0 %ux%u", w, h);
            CHECK(!run(VMAF_PIX_FMT_YUV444P, bpc, w, h, 0, VMAF_PIX_FMT_YUV420P, 0, b, 2),
                  "4:4:4 from 4:2:0 %ux%u", w, h);
            CHECK(a[0] == b[0] && a[1] == b[1], "%u-bit %ux%u 4:2:0 %.17g, upsampled %.17g", bpc,
                  w, h, a[0], b[0]);
            if (w * h > 1) /* a 1x1 pair here is identical */
                CHECK(isfinite(a[0]) && a[0] > 10, "%ux%u 4:2:0 score %g", w, h, a[0]);

            CHECK(!run(VMAF_PIX_FMT_YUV422P, bpc, w, h, 0, 0, 0, a, 2), "4:2:2 %ux%u", w, h);
            CHECK(!run(VMAF_PIX_FMT_YUV444P, bpc, w, h, 0, VMAF_PIX_FMT_YUV422P, 0, b, 2),
                  "4:4:4 from 4:2:2 %ux%u", w, h);
            CHECK(a[0] == b[0] && a[1] == b[1], "%u-bit %ux%u 4:2:2 %.17g, mapped %.17g", bpc, w,
                  h, a[0], b[0]);
            CHECK(!run(VMAF_PIX_FMT_YUV422P, bpc, w, h, 0, 0, 0x5a, b, 2), "4:2:2 garbage");
            CHECK(a[0] == b[0] && a[1] == b[1], "%u-bit %ux%u 4:2:2 padding changed the score",
                  bpc, w, h);
        }
    }
    /* 8 and 16 bits of the same content are close (not equal: the scaling rounds) */
    CHECK(!run(VMAF_PIX_FMT_YUV420P, 8, 70, 40, 0, 0, 0, a, 1), "8-bit");
    CHECK(!run(VMAF_PIX_FMT_YUV420P, 16, 70, 40, 0, 0, 0, b, 1), "16-bit");
    CHECK(fabs(a[0] - b[0]) < 1e-3, "8-bit %.9g, 16-bit %.9g", a[0], b[0]);

    CHECK(run(VMAF_PIX_FMT_YUV400P, 8, 32, 18, 0, 0, 0, a, 1) == -EINVAL, "4:0:0 refused");
}

int main(void)
{
    test_sharma();
    test_conversion();
    test_differences();
    test_api();
    printf("test_ciede: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
