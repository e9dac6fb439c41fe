/*
 * Unit tests of CAMBI's building blocks (src/feature/cambi.h) against direct evaluations of
 * their definitions and hand-computed answers: the reciprocal table, the EOTFs and the
 * visibility thresholds, the window and mask-threshold formulas, the spatial mask, the
 * decimation, the mode filter, the histogram c-values (including a synthetic banding step
 * with a known c-value) and the top-k pooling; and setup's refusals.
 */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/cambi.h"
#include "test_util.h"

static VmafCambiOptions default_options(void)
{
    return (VmafCambiOptions){
        .max_val = VMAF_CAMBI_DEFAULT_MAX_VAL,
        .window_size = VMAF_CAMBI_DEFAULT_WINDOW_SIZE,
        .topk = VMAF_CAMBI_DEFAULT_TOPK,
        .cambi_topk = VMAF_CAMBI_DEFAULT_TOPK,
        .tvi_threshold = VMAF_CAMBI_DEFAULT_TVI,
        .vis_lum_threshold = VMAF_CAMBI_DEFAULT_VLT,
        .max_log_contrast = VMAF_CAMBI_DEFAULT_MAX_LOG_CONTRAST,
        .eotf = VMAF_CAMBI_DEFAULT_EOTF,
        .cambi_eotf = VMAF_CAMBI_DEFAULT_EOTF,
    };
}

static void test_reciprocal_table(void)
{
    setlocale(LC_NUMERIC, "C");
    CHECK(vmaf_cambi_reciprocal[0] == 0.0f, "entry 0 is %g", vmaf_cambi_reciprocal[0]);
    unsigned differ = 0;
    for (int n = 1; n < VMAF_CAMBI_RECIPROCAL_LUT_SIZE; n++) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%.9g", 1.0 / n);
        const float want = strtof(buf, NULL);
        CHECK(vmaf_cambi_reciprocal[n] == want, "1/%d: %a, want %a", n,
              (double)vmaf_cambi_reciprocal[n], (double)want);
        differ += vmaf_cambi_reciprocal[n] != 1.0f / (float)n;
    }
    /* the reason the table is not simply 1.0f / n */
    CHECK(differ == 42, "%u entries differ from 1.0f/n", differ);
}

static bool visible(int s, int d, double tvi, enum VmafCambiEotf e)
{
    const double l = vmaf_cambi_luminance(s, e);
    return vmaf_cambi_luminance(s + d, e) - l > tvi * l;
}

static void test_luminance_and_tvi(void)
{
    /* BT.1886 black and white levels, PQ's peak, clipping below the foot */
    CHECK(fabs(vmaf_cambi_luminance(64, VMAF_CAMBI_EOTF_BT1886) - 0.01) < 1e-12, "bt1886 black %.17g",
          vmaf_cambi_luminance(64, VMAF_CAMBI_EOTF_BT1886));
    CHECK(fabs(vmaf_cambi_luminance(940, VMAF_CAMBI_EOTF_BT1886) - 300.0) < 1e-9, "bt1886 white %.17g",
          vmaf_cambi_luminance(940, VMAF_CAMBI_EOTF_BT1886));
    CHECK(vmaf_cambi_luminance(0, VMAF_CAMBI_EOTF_BT1886) ==
              vmaf_cambi_luminance(64, VMAF_CAMBI_EOTF_BT1886), "clipped below the foot");
    CHECK(vmaf_cambi_luminance(64, VMAF_CAMBI_EOTF_PQ) == 0.0, "pq black %.17g",
          vmaf_cambi_luminance(64, VMAF_CAMBI_EOTF_PQ));
    CHECK(fabs(vmaf_cambi_luminance(940, VMAF_CAMBI_EOTF_PQ) - 10000.0) < 1e-6, "pq peak %.17g",
          vmaf_cambi_luminance(940, VMAF_CAMBI_EOTF_PQ));

    /* tvi: the bisection finds the crossing a linear scan finds, and it grows with d */
    static const double thresholds[] = { 0.0001, 0.005, 0.012, 0.019, 0.05, 0.2, 1.0 };
    for (int e = 0; e < 2; e++) {
        for (unsigned t = 0; t < sizeof(thresholds) / sizeof(thresholds[0]); t++) {
            int prev = -1;
            for (int d = 1; d <= VMAF_CAMBI_MAX_DIFFS; d++) {
                const int got = vmaf_cambi_tvi_for_diff(d, thresholds[t], (enum VmafCambiEotf)e);
                int want;
                const int head = 940 - d - 1;
                if (!visible(64, d, thresholds[t], e)) {
                    want = 0;
                } else if (visible(head, d, thresholds[t], e) && visible(head + 1, d, thresholds[t], e)) {
                    want = 1023;
                } else {
                    want = 64;
                    while (want < head && visible(want + 1, d, thresholds[t], e)) want++;
                }
                CHECK(got == want, "eotf %d tvi %g d %d: %d, want %d", e, thresholds[t], d, got, want);
                CHECK(got >= prev, "eotf %d tvi %g: tvi(%d) = %d below tvi(%d) = %d", e,
                      thresholds[t], d, got, d - 1, prev);
                prev = got;
            }
        }
    }
    /* the default bt1886 thresholds for the contrasts 1..4 */
    const int tvi1 = vmaf_cambi_tvi_for_diff(1, 0.019, VMAF_CAMBI_EOTF_BT1886);
    CHECK(visible(tvi1, 1, 0.019, 0) && !visible(tvi1 + 1, 1, 0.019, 0), "tvi(1) = %d", tvi1);

    /* vlt: 0 for a threshold at or below black, else the first sample reaching it */
    CHECK(vmaf_cambi_vlt_luma(0.0, VMAF_CAMBI_EOTF_BT1886) == 0, "vlt 0");
    int s = 64;
    while (vmaf_cambi_luminance(s, VMAF_CAMBI_EOTF_BT1886) < 0.06) s++;
    CHECK(vmaf_cambi_vlt_luma(0.06, VMAF_CAMBI_EOTF_BT1886) == s, "vlt 0.06: %d, want %d",
          vmaf_cambi_vlt_luma(0.06, VMAF_CAMBI_EOTF_BT1886), s);
    CHECK(vmaf_cambi_vlt_luma(400.0, VMAF_CAMBI_EOTF_BT1886) < 0, "above bt1886's peak refused");
    CHECK(vmaf_cambi_vlt_luma(300.0, VMAF_CAMBI_EOTF_PQ) > 64, "pq reaches 300");
}

static void test_window_and_mask_index(void)
{
    CHECK(vmaf_cambi_adjust_window(65, 1920, 1080, false) == 33, "1080p: %u",
          vmaf_cambi_adjust_window(65, 1920, 1080, false));
    CHECK(vmaf_cambi_adjust_window(65, 1920, 1080, true) == 17, "1080p speed-up: %u",
          vmaf_cambi_adjust_window(65, 1920, 1080, true));
    CHECK(vmaf_cambi_adjust_window(65, 3840, 2160, false) == 65, "4K");
    CHECK(vmaf_cambi_adjust_window(65, 576, 324, false) == 9, "576x324: %u",
          vmaf_cambi_adjust_window(65, 576, 324, false));
    CHECK(vmaf_cambi_adjust_window(31, 480, 270, false) == 3, "480x270 ws 31: %u",
          vmaf_cambi_adjust_window(31, 480, 270, false));
    /* (49 + 3 (ceil_log2((w >> 6)(h >> 6)) - 11) - 1) >> 1 */
    CHECK(vmaf_cambi_mask_index(576, 324, 7) == 16, "576x324: %u", vmaf_cambi_mask_index(576, 324, 7));
    CHECK(vmaf_cambi_mask_index(1920, 1080, 7) == 21, "1080p: %u", vmaf_cambi_mask_index(1920, 1080, 7));
    CHECK(vmaf_cambi_mask_index(3840, 2160, 7) == 24, "4K: %u", vmaf_cambi_mask_index(3840, 2160, 7));
    CHECK(vmaf_cambi_mask_index(40, 40, 7) == 7, "tiny: %u", vmaf_cambi_mask_index(40, 40, 7));
}

static void fill_random(uint16_t *p, ptrdiff_t stride, unsigned w, unsigned h, unsigned base,
                        unsigned spread)
{
    for (unsigned i = 0; i < h; i++)
        for (unsigned j = 0; j < w; j++) p[i * stride + j] = (uint16_t)(base + rng() % spread);
}

static void test_spatial_mask(void)
{
    static const unsigned sizes[][2] = { { 1, 1 }, { 2, 9 }, { 9, 2 }, { 13, 11 }, { 64, 70 }, { 257, 37 } };
    for (unsigned t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
        const unsigned w = sizes[t][0], h = sizes[t][1];
        const ptrdiff_t stride = w + 5;
        uint16_t *img = calloc(stride * h, 2), *mask = calloc(stride * h, 2);
        VmafCambiScratch sc;
        CHECK(!vmaf_cambi_scratch_alloc(&sc, w, h, 8), "alloc");
        rng_state = 0x1234 + t;
        fill_random(img, stride, w, h, 100, t % 2 ? 2 : 3);
        vmaf_cambi_spatial_mask(img, mask, stride, w, h, &sc);
        const unsigned threshold = vmaf_cambi_mask_index(w, h, 7);
        unsigned bad = 0;
        for (int i = 0; i < (int)h; i++) {
            for (int j = 0; j < (int)w; j++) {
                unsigned n = 0;
                for (int y = i - 3; y <= i + 3; y++)
                    for (int x = j - 3; x <= j + 3; x++) {
                        if (y < 0 || x < 0 || y >= (int)h || x >= (int)w) continue;
                        const uint16_t v = img[y * stride + x];
                        const bool right = x == (int)w - 1 || v == img[y * stride + x + 1];
                        const bool down = y == (int)h - 1 || v == img[(y + 1) * stride + x];
                        n += right && down;
                    }
                bad += mask[i * stride + j] != (n > threshold);
            }
        }
        CHECK(!bad, "%ux%u: %u mask samples differ", w, h, bad);
        vmaf_cambi_scratch_free(&sc);
        free(img);
        free(mask);
    }
}

static void test_decimate(void)
{
    uint16_t p[6 * 8];
    for (unsigned i = 0; i < 6 * 8; i++) p[i] = (uint16_t)i;
    /* a 7x5 picture (stride 8) becomes 4x3: (i, j) = (2i, 2j) */
    vmaf_cambi_decimate(p, 8, 4, 3);
    unsigned bad = 0;
    for (unsigned i = 0; i < 3; i++)
        for (unsigned j = 0; j < 4; j++) bad += p[i * 8 + j] != (uint16_t)(2 * i * 8 + 2 * j);
    CHECK(!bad, "%u decimated samples wrong", bad);
}

static uint16_t mode3_ref(uint16_t a, uint16_t b, uint16_t c)
{
    if (a == b || a == c) return a;
    if (b == c) return b;
    uint16_t m = a < b ? a : b;
    return m < c ? m : c;
}

static void test_filter_mode(void)
{
    /* known answer: isolated spikes vanish, rows/columns at the edge stay */
    uint16_t k[5 * 5] = {
        1, 1, 1, 1, 1,
        1, 1, 9, 1, 1,
        1, 1, 1, 1, 7,
        3, 4, 5, 6, 6,
        2, 2, 2, 2, 2,
    };
    VmafCambiScratch sc;
    CHECK(!vmaf_cambi_scratch_alloc(&sc, 300, 40, 8), "alloc");
    vmaf_cambi_filter_mode(k, 5, 5, 5, &sc);
    /* rows 1..3: mode of the row-filtered rows 3 3 4 6 6 etc.; (3, 4) = min(7, 6, 2) */
    static const uint16_t want[5 * 5] = {
        1, 1, 1, 1, 1,
        1, 1, 1, 1, 1,
        1, 1, 1, 1, 1,
        1, 1, 1, 1, 2,
        2, 2, 2, 2, 2,
    };
    CHECK(!memcmp(k, want, sizeof(want)), "known 5x5 answer");
    /* the known answer's spike at (1, 2) is gone, the first row is untouched */

    static const unsigned sizes[][2] = { { 1, 5 }, { 2, 4 }, { 3, 3 }, { 17, 9 }, { 40, 33 }, { 299, 7 } };
    for (unsigned t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
        const unsigned w = sizes[t][0], h = sizes[t][1];
        const ptrdiff_t stride = w + 3;
        uint16_t *img = calloc(stride * h, 2), *orig = calloc(stride * h, 2), *hor = calloc(w * h, 2);
        rng_state = 0x777 + t;
        fill_random(img, stride, w, h, 500, 4);
        memcpy(orig, img, stride * h * 2);
        for (unsigned i = 0; i < h; i++)
            for (unsigned j = 0; j < w; j++)
                hor[i * w + j] = (j == 0 || j + 1 == w)
                                     ? orig[i * stride + j]
                                     : mode3_ref(orig[i * stride + j - 1], orig[i * stride + j],
                                                 orig[i * stride + j + 1]);
        vmaf_cambi_filter_mode(img, stride, w, h, &sc);
        unsigned bad = 0;
        for (unsigned i = 0; i < h; i++)
            for (unsigned j = 0; j < w; j++) {
                const uint16_t want_v = (i == 0 || i + 1 == h)
                                            ? orig[i * stride + j]
                                            : mode3_ref(hor[(i - 1) * w + j], hor[i * w + j],
                                                        hor[(i + 1) * w + j]);
                bad += img[i * stride + j] != want_v;
            }
        CHECK(!bad, "%ux%u: %u samples differ", w, h, bad);
        free(img);
        free(orig);
        free(hor);
    }
    vmaf_cambi_scratch_free(&sc);
}

/* c-values by counting each window directly */
static void c_values_direct(const uint16_t *img, const uint16_t *mask, ptrdiff_t stride, int w,
                            int h, int window, const VmafCambiParams *p, float *out)
{
    const int pad = window >> 1;
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            float c = 0.0f;
            const int v = img[i * stride + j];
            const bool in_band = v >= p->band_base && v < p->band_base + p->band_size;
            if (mask[i * stride + j] && in_band) {
                for (int d = 1; d <= (int)p->num_diffs; d++) {
                    const int value = v + (int)p->num_diffs;
                    if (value > p->tvi_for_diff[d - 1] || value + d <= p->vlt_luma) continue;
                    unsigned n0 = 0, np = 0, nm = 0;
                    for (int y = i - pad; y <= i + pad; y++)
                        for (int x = j - pad; x <= j + pad; x++) {
                            if (y < 0 || x < 0 || y >= h || x >= w || !mask[y * stride + x]) continue;
                            const int u = img[y * stride + x];
                            n0 += u == v;
                            np += u == v + d && u < p->band_base + p->band_size;
                            nm += u == v - d && u >= p->band_base;
                        }
                    const unsigned pm = np > nm ? np : nm;
                    const float val = (float)(int)(vmaf_cambi_contrast_weights[d - 1] * n0 * pm) *
                                      vmaf_cambi_reciprocal[n0 + pm];
                    if (val > c) c = val;
                }
            }
            out[i * w + j] = c;
        }
}

static void test_c_values(void)
{
    VmafCambiSetup st;
    VmafCambiOptions opt = default_options();
    char msg[256];
    CHECK(!vmaf_cambi_setup(&st, &opt, 1920, 1080, 8, msg, sizeof(msg)), "setup: %s", msg);
    const VmafCambiParams *p = &st.params;
    CHECK(p->num_diffs == 4 && p->band_base == 0, "num_diffs %u band_base %u", p->num_diffs,
          p->band_base);

    /* a banding step: 40x20, columns < 20 at 100, the rest at 101; full mask; window 9 */
    {
        enum { W = 40, H = 20 };
        uint16_t img[W * H], mask[W * H];
        float c[W * H];
        for (int i = 0; i < W * H; i++) {
            img[i] = (i % W) < 20 ? 100 : 101;
            mask[i] = 1;
        }
        VmafCambiScratch sc;
        CHECK(!vmaf_cambi_scratch_alloc(&sc, W, H, p->band_size), "alloc");
        vmaf_cambi_c_values(img, mask, W, W, H, 9, p, c, &sc);
        /* (10, 19): window columns 15..23, rows 6..14: 45 samples at 100, 36 at 101 */
        const float want = (float)(45 * 36) * vmaf_cambi_reciprocal[81];
        CHECK(c[10 * W + 19] == want, "c(10,19) = %.9g, want %.9g (= 20)", c[10 * W + 19], want);
        CHECK(fabsf(want - 20.0f) < 1e-5f, "45*36/81 = %.9g", want);
        /* far from the step there is no contrast */
        CHECK(c[10 * W + 5] == 0.0f && c[10 * W + 34] == 0.0f, "flat areas %g %g", c[10 * W + 5],
              c[10 * W + 34]);
        /* at the top the window is clipped to rows 0..4: at (0, 20), value 101, columns
         * 16..19 hold 20 samples of 100 and 20..24 hold 25 of 101 */
        const float corner = (float)(25 * 20) * vmaf_cambi_reciprocal[45];
        CHECK(c[20] == corner, "c(0,20) = %.9g, want %.9g", c[20], corner);
        vmaf_cambi_scratch_free(&sc);
    }

    /* random pictures of few values and random masks against the direct count */
    static const unsigned sizes[][3] = { { 9, 9, 9 }, { 31, 17, 5 }, { 64, 48, 17 }, { 100, 23, 33 },
                                         { 23, 100, 33 }, { 33, 33, 65 } };
    for (unsigned t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
        const unsigned w = sizes[t][0], h = sizes[t][1], window = sizes[t][2];
        const ptrdiff_t stride = w + 7;
        uint16_t *img = calloc(stride * h, 2), *mask = calloc(stride * h, 2);
        float *got = calloc(w * h, 4), *want = calloc(w * h, 4);
        rng_state = 0xabc + t;
        /* values around 200 plus a few far outside the band */
        for (unsigned i = 0; i < h; i++)
            for (unsigned j = 0; j < w; j++) {
                img[i * stride + j] = (uint16_t)(rng() % 16 == 0 ? 1000 : 200 + rng() % 7);
                mask[i * stride + j] = rng() % 4 != 0;
            }
        VmafCambiScratch sc;
        CHECK(!vmaf_cambi_scratch_alloc(&sc, w, h, p->band_size), "alloc");
        vmaf_cambi_c_values(img, mask, stride, w, h, window, p, got, &sc);
        c_values_direct(img, mask, stride, (int)w, (int)h, (int)window, p, want);
        unsigned bad = 0, nonzero = 0;
        for (unsigned i = 0; i < w * h; i++) {
            bad += got[i] != want[i];
            nonzero += want[i] != 0.0f;
        }
        CHECK(!bad, "%ux%u window %u: %u c-values differ", w, h, window, bad);
        CHECK(nonzero > w * h / 4, "%ux%u: only %u nonzero c-values", w, h, nonzero);
        vmaf_cambi_scratch_free(&sc);
        free(img);
        free(mask);
        free(got);
        free(want);
    }
}

static void test_pooling(void)
{
    float v[10] = { 3, 9, 1, 10, 5, 2, 8, 4, 7, 6 };
    CHECK(vmaf_cambi_spatial_pooling(v, 0.3, 10) == 9.0, "top 3 of 1..10");
    float u[10] = { 3, 9, 1, 10, 5, 2, 8, 4, 7, 6 };
    CHECK(vmaf_cambi_spatial_pooling(u, 0.0001, 10) == 10.0, "k clipped up to 1");
    float a[10] = { 3, 9, 1, 10, 5, 2, 8, 4, 7, 6 };
    CHECK(vmaf_cambi_spatial_pooling(a, 1.0, 10) == 5.5, "k = n: the mean");
    /* random: the k largest end up first, whatever their order */
    enum { N = 1001 };
    float r[N], s[N];
    rng_state = 99;
    for (int i = 0; i < N; i++) r[i] = s[i] = (float)(rng() % 50);
    const double got = vmaf_cambi_spatial_pooling(r, 0.6, N);
    /* sort s descending, mean of the first 600 (integers: any order sums exactly) */
    for (int i = 1; i < N; i++) {
        float x = s[i];
        int j = i;
        for (; j > 0 && s[j - 1] < x; j--) s[j] = s[j - 1];
        s[j] = x;
    }
    double sum = 0;
    for (int i = 0; i < 600; i++) sum += s[i];
    CHECK(got == sum / 600, "top 600 of 1001: %.17g, want %.17g", got, sum / 600);
}

/* realistic c-values: w_d p0 pmax / (p0 + pmax) as the extractor forms them */
static float random_c_value(void)
{
    const unsigned p0 = 1 + rng() % 1000, pm = 1 + rng() % 1000, d = rng() % 4;
    return (float)(int)(vmaf_cambi_contrast_weights[d] * p0 * pm) * vmaf_cambi_reciprocal[p0 + pm];
}

static void test_pooling_fast_path(void)
{
    /* the integer fast path against the reference's quickselect order */
    static const struct { unsigned n; unsigned nonzero_percent; double topk; } cases[] = {
        { 100000, 2, 0.6 }, { 100000, 90, 0.6 }, { 50000, 50, 0.2 }, { 777, 100, 1.0 },
        { 5000, 30, 0.0001 }, { 3, 100, 0.5 },
    };
    for (unsigned t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
        const unsigned n = cases[t].n;
        float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
        rng_state = 0x5eed + t;
        for (unsigned i = 0; i < n; i++)
            a[i] = b[i] = rng() % 100 < cases[t].nonzero_percent ? random_c_value() : 0.0f;
        int k = (int)(cases[t].topk * n);
        if (k < 1) k = 1;
        const double fast = vmaf_cambi_spatial_pooling(a, cases[t].topk, n);
        const double ref = vmaf_cambi_spatial_pooling_reference(b, k, n);
        CHECK(fast == ref, "n %u nonzero %u%% topk %g: %.17g, reference %.17g", n,
              cases[t].nonzero_percent, cases[t].topk, fast, ref);
        free(a);
        free(b);
    }
    /* values that are not whole multiples of 2^-24 take the reference path */
    float x[5] = { 1e-9f, 3.0f, 0.1f, 2.5f, 0.0f }, y[5] = { 1e-9f, 3.0f, 0.1f, 2.5f, 0.0f };
    CHECK(vmaf_cambi_spatial_pooling(x, 0.6, 5) == vmaf_cambi_spatial_pooling_reference(y, 3, 5),
          "tiny values");
}

static void test_setup(void)
{
    VmafCambiSetup st;
    char msg[256];
    VmafCambiOptions opt = default_options();
    CHECK(vmaf_cambi_setup(&st, &opt, 200, 200, 8, msg, sizeof(msg)) < 0, "200x200 accepted");
    CHECK(!vmaf_cambi_setup(&st, &opt, 257, 145, 8, msg, sizeof(msg)), "257x145: %s", msg);
    CHECK(st.window == 5, "257x145 window %u", st.window);
    CHECK(vmaf_cambi_setup(&st, &opt, 1920, 100, 8, msg, sizeof(msg)) < 0, "1920x100 accepted");
    CHECK(strstr(msg, "scale 4") != NULL, "message: %s", msg);

    opt.enc_width = 480;
    opt.enc_height = 270;
    CHECK(!vmaf_cambi_setup(&st, &opt, 576, 324, 8, msg, sizeof(msg)), "enc 480x270: %s", msg);
    CHECK(st.enc_w == 480 && st.enc_h == 270 && st.alloc_w == 480, "enc %ux%u", st.enc_w, st.enc_h);
    opt.full_ref = true;
    CHECK(!vmaf_cambi_setup(&st, &opt, 576, 324, 8, msg, sizeof(msg)), "full_ref: %s", msg);
    CHECK(st.alloc_w == 576 && st.alloc_h == 324 && st.src_w == 576, "alloc %ux%u", st.alloc_w,
          st.alloc_h);
    opt.enc_width = 1920; /* larger than the picture: the picture size is used */
    opt.enc_height = 1080;
    CHECK(!vmaf_cambi_setup(&st, &opt, 576, 324, 8, msg, sizeof(msg)), "enc > picture: %s", msg);
    CHECK(st.enc_w == 576 && st.enc_h == 324, "enc %ux%u", st.enc_w, st.enc_h);
    opt.enc_width = 500;
    opt.enc_height = 324;
    opt.src_width = 400;
    opt.src_height = 400;
    CHECK(vmaf_cambi_setup(&st, &opt, 576, 324, 8, msg, sizeof(msg)) < 0, "opposite scaling");

    opt = default_options();
    opt.eotf = "srgb";
    CHECK(vmaf_cambi_setup(&st, &opt, 576, 324, 8, msg, sizeof(msg)) < 0, "unknown eotf");
    opt.cambi_eotf = "pq"; /* cambi_eotf wins */
    CHECK(!vmaf_cambi_setup(&st, &opt, 576, 324, 8, msg, sizeof(msg)), "cambi_eotf pq: %s", msg);
    opt = default_options();
    opt.window_size = 127;
    CHECK(vmaf_cambi_setup(&st, &opt, 3840, 2160, 10, msg, sizeof(msg)) < 0, "ws 127 at 4K");
    opt.window_size = 65;
    opt.high_res_speedup = 1080;
    CHECK(!vmaf_cambi_setup(&st, &opt, 1920, 1080, 8, msg, sizeof(msg)) && st.high_res_speedup &&
              st.window == 17, "speed-up at 1080p");
    CHECK(!vmaf_cambi_setup(&st, &opt, 1280, 720, 8, msg, sizeof(msg)) && !st.high_res_speedup,
          "no speed-up below 1080p");
    opt.topk = 0.2;
    opt.cambi_topk = 0.5;
    CHECK(!vmaf_cambi_setup(&st, &opt, 576, 324, 8, msg, sizeof(msg)) && st.topk == 0.2, "topk wins");
    opt.topk = VMAF_CAMBI_DEFAULT_TOPK;
    CHECK(!vmaf_cambi_setup(&st, &opt, 576, 324, 8, msg, sizeof(msg)) && st.topk == 0.5, "cambi_topk");
}

int main(void)
{
    test_reciprocal_table();
    test_luminance_and_tvi();
    test_window_and_mask_index();
    test_spatial_mask();
    test_decimate();
    test_filter_mode();
    test_c_values();
    test_pooling();
    test_pooling_fast_path();
    test_setup();
    printf("cambi: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
