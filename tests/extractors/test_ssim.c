/*
 * Unit test of float_ssim and float_ms_ssim and their building blocks (src/feature/ssim.h).
 *
 * 1. The Gaussian window equals the normalised Gaussian of sigma 1.5 to the table's 6
 *    decimals; the MS-SSIM low-pass kernel is symmetric, sums to 1 and is the outer product
 *    of the CDF 9/7 analysis low-pass filter to the table's precision.
 * 2. Reflection and the reference's rounding and auto scale on known values.
 * 3. Decimation: the box kernel on integer planes gives the exact block means (known
 *    answers, reflected at the borders, odd sizes where the last centre lies on the
 *    border); the 9x9 kernel equals a naive evaluation in the reference's structure, bit
 *    for bit, in every build.
 * 4. The SSIM means equal a naive evaluation in the reference's structure (whole-plane
 *    horizontal pass, then vertical, then the per-pixel terms written out again; the sums
 *    in ssim_device.h's order, written out again), bit for bit, in every build, at sizes from 1x1 (nothing summed: 0/(n_w n_h) with its sign, or
 *    NaN) to odd sizes above the window.
 * 5. Known answers: identical black frames give ssim = l = c = s = 1 exactly; identical
 *    textured frames give 1 to float precision; enable_db on identical frames gives
 *    infinity, and with clip_db the cap ceil(10 log10(peak^2 2 w h)).
 * 6. Through the API: outputs at 8, 10 and 16 bits are equal (the samples are scaled to
 *    8-bit range); float_ms_ssim refuses frames too small for five scales and accepts the
 *    smallest that fits; options give the documented outputs.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/ssim.h"
#include "libvmaf/libvmaf.h"

#include "test_util.h"

static const enum VmafFloatImpl impls[] = { VMAF_FLOAT_IMPL_PLAIN, VMAF_FLOAT_IMPL_AVX2 };
static const char *const impl_name[] = { "best", "plain", "avx2" };

static bool same(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

/* ---- 1. kernels ---------------------------------------------------------------------- */

static void test_kernels(void)
{
    float g[VMAF_SSIM_WINDOW];
    vmaf_ssim_window(g);
    double norm = 0.0, exact[VMAF_SSIM_WINDOW], sum = 0.0;
    for (int i = 0; i < VMAF_SSIM_WINDOW; i++) {
        const double x = i - 5;
        exact[i] = exp(-x * x / (2 * 1.5 * 1.5));
        norm += exact[i];
    }
    for (int i = 0; i < VMAF_SSIM_WINDOW; i++) {
        CHECK(fabs(g[i] - exact[i] / norm) < 6e-7, "window tap %d: %.7f, Gaussian %.7f", i, g[i],
              exact[i] / norm);
        CHECK(g[i] == g[VMAF_SSIM_WINDOW - 1 - i], "window tap %d symmetric", i);
        sum += g[i];
    }
    CHECK(fabs(sum - 1.0) < 6e-6, "window sum %.8f", sum);

    /* CDF 9/7 analysis low-pass, normalised to sum 1 (centre tap first); the kernel is the
     * outer product of a 6-decimal rounding of it */
    static const double cdf97[5] = { 0.6029490182363579, 0.2668641184428723,
                                     -0.07822326652898785, -0.01686411844287495,
                                     0.02674875741080976 };
    static const double rounded[5] = { 0.602914, 0.266846, -0.078201, -0.016828, 0.026727 };
    for (int i = 0; i < 5; i++)
        CHECK(fabs(rounded[i] - cdf97[i]) < 5e-5, "1-D tap %d", i);
    float k[VMAF_SSIM_LPF * VMAF_SSIM_LPF];
    vmaf_ssim_lpf(k);
    sum = 0.0;
    for (int i = 0; i < VMAF_SSIM_LPF; i++) {
        for (int j = 0; j < VMAF_SSIM_LPF; j++) {
            const float v = k[i * VMAF_SSIM_LPF + j];
            const double outer = rounded[abs(i - 4)] * rounded[abs(j - 4)];
            CHECK(fabs(v - outer) < 1e-6, "lpf[%d][%d] = %.6f, outer product %.6f", i, j, v, outer);
            CHECK(v == k[j * VMAF_SSIM_LPF + i] && v == k[(8 - i) * VMAF_SSIM_LPF + j] &&
                      v == k[i * VMAF_SSIM_LPF + 8 - j],
                  "lpf[%d][%d] symmetric", i, j);
            sum += v;
        }
    }
    CHECK(fabs(sum - 1.0) < 1e-4, "lpf sum %.6f", sum);
}

/* ---- 2. small helpers ---------------------------------------------------------------- */

static void test_helpers(void)
{
    static const int reflect_cases[][3] = {
        { -1, 5, 0 }, { -2, 5, 1 }, { 0, 5, 0 }, { 4, 5, 4 }, { 5, 5, 4 }, { 6, 5, 3 },
        { -3, 2, 1 }, { 7, 2, 0 }, { -1, 1, 0 }, { 3, 1, 0 },
    };
    for (size_t i = 0; i < sizeof(reflect_cases) / sizeof(reflect_cases[0]); i++) {
        const int *c = reflect_cases[i];
        CHECK(vmaf_ssim_reflect(c[0], c[1]) == c[2], "reflect(%d, %d) = %d, expected %d", c[0],
              c[1], vmaf_ssim_reflect(c[0], c[1]), c[2]);
    }
    CHECK(vmaf_ssim_round(2.5f) == 3 && vmaf_ssim_round(2.49f) == 2 &&
              vmaf_ssim_round(0.4f) == 0 && vmaf_ssim_round(4.21875f) == 4,
          "round");
    /* auto: max(1, round(min(w, h) / 256)) */
    CHECK(vmaf_ssim_scale(0, 1920, 1080) == 4, "auto scale 1080p: %d", vmaf_ssim_scale(0, 1920, 1080));
    CHECK(vmaf_ssim_scale(0, 3840, 2160) == 8, "auto scale 2160p");
    CHECK(vmaf_ssim_scale(0, 576, 324) == 1, "auto scale 324 lines");
    CHECK(vmaf_ssim_scale(0, 1280, 384) == 2, "auto scale 384 lines (1.5 rounds up)");
    CHECK(vmaf_ssim_scale(0, 17, 17) == 1, "auto scale tiny");
    CHECK(vmaf_ssim_scale(3, 1920, 1080) == 3, "explicit scale");
    CHECK(vmaf_ssim_decimated(17, 2) == 9 && vmaf_ssim_decimated(9, 3) == 4 &&
              vmaf_ssim_decimated(10, 3) == 3 && vmaf_ssim_decimated(1080, 4) == 270,
          "decimated sizes");
    const VmafSsimConst k = vmaf_ssim_const();
    CHECK(fabsf(k.c1 - 6.5025f) < 1e-5f && fabsf(k.c2 - 58.5225f) < 1e-4f && k.c3 == k.c2 / 2,
          "constants %g %g %g", k.c1, k.c2, k.c3);
}

/* ---- 3. decimation ------------------------------------------------------------------- */

static int plane_from(VmafSsimPlane *p, int w, int h, const float *src)
{
    if (vmaf_ssim_plane_alloc(p, w, h)) return -1;
    for (int y = 0; y < h; y++)
        memcpy(p->data + y * p->stride, src + y * w, (size_t)w * sizeof(float));
    vmaf_ssim_plane_fill_margins(p);
    return 0;
}

/* the reference's KBND_SYMMETRIC, for in-range overshoots */
static int symmetric(int i, int n)
{
    if (i < 0) return -1 - i;
    if (i >= n) return 2 * n - 1 - i;
    return i;
}

static void naive_decimate(const float *img, int w, int h, int f, const float *k, int kw,
                           float *out)
{
    const int sw = w / f + (w & 1), sh = h / f + (h & 1);
    const int c = kw / 2, even = kw % 2 == 0;
    for (int y = 0; y < sh; y++) {
        for (int x = 0; x < sw; x++) {
            double sum = 0.0;
            int t = 0;
            for (int v = -c; v <= c - even; v++)
                for (int u = -c; u <= c - even; u++, t++)
                    sum += img[symmetric(y * f + v, h) * w + symmetric(x * f + u, w)] * k[t];
            out[y * sw + x] = (float)sum;
        }
    }
}

static void test_decimate(void)
{
    VmafSsimWorkspace ws;
    CHECK(!vmaf_ssim_workspace_init(&ws, 64), "workspace");
    rng_state = 3;

    /* box kernel 2x2 of 0.25 on integers: exact means of pixels 2y-1..2y x 2x-1..2x */
    {
        const int w = 7, h = 5;
        float img[7 * 5];
        for (int i = 0; i < w * h; i++)
            img[i] = (float)(rng() % 256);
        const float box[4] = { 0.25f, 0.25f, 0.25f, 0.25f };
        VmafSsimPlane src, dst;
        CHECK(!plane_from(&src, w, h, img), "plane");
        CHECK(!vmaf_ssim_plane_alloc(&dst, 4, 3), "plane");
        for (size_t m = 0; m < 2; m++) {
            const int err = vmaf_ssim_decimate(impls[m], &ws, &src, 2, box, 2, &dst);
            if (err == -ENOTSUP) continue;
            CHECK(!err, "decimate box");
            for (int y = 0; y < 3; y++) {
                for (int x = 0; x < 4; x++) {
                    const int r0 = y ? 2 * y - 1 : 0, c0 = x ? 2 * x - 1 : 0;
                    const int r1 = 2 * y < h ? 2 * y : h - 1, c1 = 2 * x < w ? 2 * x : w - 1;
                    const double mean = (img[r0 * w + c0] + img[r0 * w + c1] + img[r1 * w + c0] +
                                         img[r1 * w + c1]) / 4.0;
                    CHECK(dst.data[y * dst.stride + x] == (float)mean,
                          "%s box (%d,%d): %g, expected %g", impl_name[impls[m]], x, y,
                          dst.data[y * dst.stride + x], mean);
                }
            }
        }
        /* a wrong output size is refused */
        VmafSsimPlane wrong;
        CHECK(!vmaf_ssim_plane_alloc(&wrong, 3, 3), "plane");
        CHECK(vmaf_ssim_decimate(VMAF_FLOAT_IMPL_BEST, &ws, &src, 2, box, 2, &wrong) == -EINVAL,
              "size mismatch refused");
        vmaf_ssim_plane_free(&wrong);
        vmaf_ssim_plane_free(&src);
        vmaf_ssim_plane_free(&dst);
    }

    /* the 9x9 low-pass and box kernels of every factor against the naive evaluation */
    float lpf[VMAF_SSIM_LPF * VMAF_SSIM_LPF];
    vmaf_ssim_lpf(lpf);
    static const int sizes[][2] = { { 9, 9 }, { 17, 12 }, { 33, 31 }, { 64, 45 } };
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        float *img = malloc((size_t)w * h * sizeof(float));
        float *want = malloc((size_t)w * h * sizeof(float));
        for (int i = 0; i < w * h; i++)
            img[i] = (float)(rng() % 65536) / 256.0f;
        VmafSsimPlane src;
        CHECK(!plane_from(&src, w, h, img), "plane");
        for (int f = 2; f <= VMAF_SSIM_MAX_FACTOR + 1; f++) {
            const bool use_lpf = f == VMAF_SSIM_MAX_FACTOR + 1;
            const int factor = use_lpf ? 2 : f, kw = use_lpf ? VMAF_SSIM_LPF : f;
            if (!use_lpf && (f / 2 > w || f / 2 > h)) continue; /* the reference reads outside */
            float box[VMAF_SSIM_MAX_FACTOR * VMAF_SSIM_MAX_FACTOR];
            for (int i = 0; i < f * f && !use_lpf; i++)
                box[i] = 1.0f / (f * f);
            const float *k = use_lpf ? lpf : box;
            naive_decimate(img, w, h, factor, k, kw, want);
            VmafSsimPlane dst;
            const int sw = vmaf_ssim_decimated(w, factor), sh = vmaf_ssim_decimated(h, factor);
            CHECK(!vmaf_ssim_plane_alloc(&dst, sw, sh), "plane");
            for (size_t m = 0; m < 2; m++) {
                const int err = vmaf_ssim_decimate(impls[m], &ws, &src, factor, k, kw, &dst);
                if (err == -ENOTSUP) continue;
                CHECK(!err, "decimate");
                int bad = 0;
                for (int y = 0; y < sh; y++)
                    for (int x = 0; x < sw; x++)
                        bad += dst.data[y * dst.stride + x] != want[y * sw + x];
                CHECK(!bad, "%s %dx%d factor %d %s: %d samples differ", impl_name[impls[m]], w,
                      h, factor, use_lpf ? "lpf" : "box", bad);
            }
            vmaf_ssim_plane_free(&dst);
        }
        vmaf_ssim_plane_free(&src);
        free(img);
        free(want);
    }
    vmaf_ssim_workspace_close(&ws);
}

/* ---- 4. SSIM means ------------------------------------------------------------------- */

/* the reference's valid convolution: whole-plane horizontal pass, then vertical */
static void naive_convolve(const float *img, int w, int h, const float *g, float *out)
{
    const int dw = w - 10, dh = h - 10;
    float *cache = calloc((size_t)w * h, sizeof(float));
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < dw; x++) {
            double sum = 0.0;
            for (int u = 0; u < 11; u++)
                sum += img[y * w + x + u] * g[u];
            cache[y * w + x] = (float)sum;
        }
    }
    for (int x = 0; x < dw; x++) {
        for (int y = 0; y < dh; y++) {
            double sum = 0.0;
            for (int v = 0; v < 11; v++)
                sum += cache[(y + v) * w + x] * g[v];
            out[y * dw + x] = (float)sum;
        }
    }
    free(cache);
}

/* ssim_device.h's order, written out: segments of 32 by the tree, rows serially, rows into
 * 32 lanes by y mod 32, the lanes by the tree. */
static double tree32(double *v, int n)
{
    for (int off = 16; off >= 1; off /= 2)
        for (int j = 0; j < off; j++)
            if (j + off < n) v[j] += v[j + off];
    return v[0];
}

static double order_sum(const double *t, int dw, int dh)
{
    double lanes[32] = { 0 };
    for (int y = 0; y < dh; y++) {
        double row = 0.0;
        for (int x0 = 0; x0 < dw; x0 += 32) {
            const int n = dw - x0 < 32 ? dw - x0 : 32;
            double v[32];
            for (int j = 0; j < n; j++)
                v[j] = t[y * dw + x0 + j];
            row += tree32(v, n);
        }
        lanes[y % 32] += row;
    }
    return tree32(lanes, dh < 32 ? dh : 32);
}

static void naive_means(const float *ref, const float *cmp, int w, int h, VmafSsimMeans *m)
{
    float g[11];
    vmaf_ssim_window(g);
    const float C1 = (0.01f * 255) * (0.01f * 255), C2 = (0.03f * 255) * (0.03f * 255);
    const float C3 = C2 / 2.0f;
    const int dw = w - 10, dh = h - 10;
    double sum = 0.0, ls = 0.0, cs = 0.0, ss = 0.0;
    if (dw > 0 && dh > 0) {
        const size_t n = (size_t)w * h;
        float *q[5], *o[5];
        for (int k = 0; k < 5; k++) {
            q[k] = malloc(n * sizeof(float));
            o[k] = malloc(n * sizeof(float));
        }
        for (size_t i = 0; i < n; i++) {
            q[0][i] = ref[i];
            q[1][i] = cmp[i];
            q[2][i] = ref[i] * ref[i];
            q[3][i] = cmp[i] * cmp[i];
            q[4][i] = ref[i] * cmp[i];
        }
        for (int k = 0; k < 5; k++)
            naive_convolve(q[k], w, h, g, o[k]);
        double *t[4];
        for (int k = 0; k < 4; k++)
            t[k] = malloc((size_t)dw * dh * sizeof(double));
        for (int i = 0; i < dw * dh; i++) {
            float a = o[2][i], b = o[3][i], ab = o[4][i];
            a -= o[0][i] * o[0][i];
            b -= o[1][i] * o[1][i];
            a = 0.0 > a ? 0.0f : a; /* MAX(0.0, a) */
            b = 0.0 > b ? 0.0f : b;
            ab -= o[0][i] * o[1][i];
            const float r = (float)sqrt(a * b);
            const double l = (2.0 * o[0][i] * o[1][i] + C1) /
                             (o[0][i] * o[0][i] + o[1][i] * o[1][i] + C1);
            const double c = (2.0 * r + C2) / (a + b + C2);
            const float abc = (ab < 0.0f && r <= 0.0f) ? 0.0f : ab;
            const double s = (abc + C3) / (r + C3);
            t[0][i] = l * c * s;
            t[1][i] = l;
            t[2][i] = c;
            t[3][i] = s;
        }
        sum = order_sum(t[0], dw, dh);
        ls = order_sum(t[1], dw, dh);
        cs = order_sum(t[2], dw, dh);
        ss = order_sum(t[3], dw, dh);
        for (int k = 0; k < 5; k++) {
            free(q[k]);
            free(o[k]);
        }
        for (int k = 0; k < 4; k++)
            free(t[k]);
    }
    m->ssim = (float)(sum / (double)(dw * dh));
    m->l = (float)(ls / (double)(dw * dh));
    m->c = (float)(cs / (double)(dw * dh));
    m->s = (float)(ss / (double)(dw * dh));
}

static void test_means(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 10, 40 }, { 9, 9 }, { 11, 11 }, { 12, 30 },
                                    { 37, 23 }, { 64, 64 }, { 101, 19 }, { 120, 77 },
                                    { 75, 43 } };
    VmafSsimWorkspace ws;
    CHECK(!vmaf_ssim_workspace_init(&ws, 128), "workspace");
    rng_state = 5;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        for (int kind = 0; kind < 3; kind++) { /* random, correlated, identical */
            float *a = malloc((size_t)w * h * sizeof(float));
            float *b = malloc((size_t)w * h * sizeof(float));
            for (int i = 0; i < w * h; i++) {
                a[i] = (float)(rng() % 1024) / 4.0f;
                b[i] = kind == 0 ? (float)(rng() % 1024) / 4.0f
                     : kind == 1 ? a[i] + (float)((int)(rng() % 21) - 10)
                                 : a[i];
            }
            VmafSsimPlane pa, pb;
            CHECK(!plane_from(&pa, w, h, a) && !plane_from(&pb, w, h, b), "planes");
            VmafSsimMeans want, got;
            naive_means(a, b, w, h, &want);
            for (size_t m = 0; m < 2; m++) {
                const int err = vmaf_ssim_means(impls[m], &ws, pa.data, pb.data, pa.stride, w, h,
                                                &got);
                if (err == -ENOTSUP) continue;
                CHECK(!err, "means");
                CHECK(same(got.ssim, want.ssim) && same(got.l, want.l) && same(got.c, want.c) &&
                          same(got.s, want.s),
                      "%s %dx%d kind %d: ssim %.9g/%.9g l %.9g/%.9g c %.9g/%.9g s %.9g/%.9g",
                      impl_name[impls[m]], w, h, kind, got.ssim, want.ssim, got.l, want.l, got.c,
                      want.c, got.s, want.s);
            }
            if (kind == 2 && w > 10 && h > 10)
                CHECK(fabsf(got.ssim - 1.0f) < 1e-5f, "identical %dx%d: ssim %.9g", w, h,
                      got.ssim);
            vmaf_ssim_plane_free(&pa);
            vmaf_ssim_plane_free(&pb);
            free(a);
            free(b);
        }
    }
    /* planes narrower than the window: 0 / (n_w n_h) */
    {
        float z[9 * 20] = { 0 };
        VmafSsimMeans m;
        CHECK(!vmaf_ssim_means(VMAF_FLOAT_IMPL_BEST, &ws, z, z, 9, 9, 9, &m), "9x9");
        CHECK(m.ssim == 0.0f && !signbit(m.ssim), "9x9: +0 (n_w n_h = 1), got %g", m.ssim);
        CHECK(!vmaf_ssim_means(VMAF_FLOAT_IMPL_BEST, &ws, z, z, 9, 9, 20, &m), "9x20");
        CHECK(m.ssim == 0.0f && signbit(m.ssim), "9x20: -0 (n_w n_h = -10), got %g", m.ssim);
        CHECK(!vmaf_ssim_means(VMAF_FLOAT_IMPL_BEST, &ws, z, z, 9, 9, 10, &m), "9x10");
        CHECK(isnan(m.ssim), "9x10: NaN (n_w n_h = 0), got %g", m.ssim);
    }
    /* identical black planes: every term exactly 1 */
    {
        float *z = calloc(40 * 30, sizeof(float));
        VmafSsimMeans m;
        CHECK(!vmaf_ssim_means(VMAF_FLOAT_IMPL_BEST, &ws, z, z, 40, 40, 30, &m), "black");
        CHECK(m.ssim == 1.0f && m.l == 1.0f && m.c == 1.0f && m.s == 1.0f,
              "black: %g %g %g %g", m.ssim, m.l, m.c, m.s);
        free(z);
    }
    vmaf_ssim_workspace_close(&ws);
}

/* ---- 5/6. through the API ------------------------------------------------------------ */

static void fill(VmafPicture *p, int w, int h, unsigned bpc, uint32_t seed, int noise)
{
    uint64_t st = seed;
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            int v = (int)(128 + 80 * sin(0.17 * i + 0.11 * j)) +
                    (noise ? (int)((st >> 20) % (2 * noise + 1)) - noise : 0);
            v = v < 0 ? 0 : v > 255 ? 255 : v;
            if (bpc == 8)
                ((uint8_t *)p->data[0] + i * p->stride[0])[j] = (uint8_t)v;
            else
                ((uint16_t *)((uint8_t *)p->data[0] + i * p->stride[0]))[j] =
                    (uint16_t)(v << (bpc - 8));
        }
    }
}

/* Score n frames (ref noise 0, dist noise `noise`, or identical with noise < 0); returns the
 * context (flushed) or NULL; *read_err gets the first read error. */
static VmafContext *run(const char *feature, const char *const *opts, int w, int h,
                        unsigned bpc, int noise, int n, int *read_err)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    *read_err = 0;
    if (vmaf_init(&v, cfg)) return NULL;
    VmafFeatureDictionary *d = NULL;
    for (int i = 0; opts && opts[i]; i += 2)
        vmaf_feature_dictionary_set(&d, opts[i], opts[i + 1]);
    if (vmaf_use_feature(v, feature, d)) {
        vmaf_close(v);
        return NULL;
    }
    for (int f = 0; f < n; f++) {
        VmafPicture r, t;
        if (vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, bpc, w, h) ||
            vmaf_picture_alloc(&t, VMAF_PIX_FMT_YUV420P, bpc, w, h))
            break;
        fill(&r, w, h, bpc, 1 + f, 0);
        fill(&t, w, h, bpc, noise < 0 ? 1 + f : 100 + f, noise < 0 ? 0 : noise);
        const int err = read_pictures_or_release(v, &r, &t, (unsigned)f);
        if (err) {
            *read_err = err;
            break;
        }
    }
    if (!*read_err) *read_err = vmaf_read_pictures(v, NULL, NULL, 0);
    return v;
}

static double score(VmafContext *v, const char *name, unsigned index)
{
    double s = -12345;
    if (vmaf_feature_score_at_index(v, name, &s, index)) return -12345;
    return s;
}

static void test_api(void)
{
    int err;
    /* depth independence */
    static const char *const lcs[] = { "enable_lcs", "true", NULL };
    static const char *const names[] = { "float_ssim", "float_ssim_l", "float_ssim_c",
                                         "float_ssim_s", NULL };
    VmafContext *base = run("float_ssim", lcs, 300, 200, 8, 6, 2, &err);
    CHECK(base && !err, "8-bit float_ssim");
    const unsigned depths[] = { 10, 16 };
    for (int k = 0; k < 2; k++) {
        VmafContext *v = run("float_ssim", lcs, 300, 200, depths[k], 6, 2, &err);
        CHECK(v && !err, "%u-bit float_ssim", depths[k]);
        for (int o = 0; v && names[o]; o++)
            for (unsigned f = 0; f < 2; f++)
                CHECK(score(base, names[o], f) == score(v, names[o], f),
                      "%s frame %u: 8-bit %.17g, %u-bit %.17g", names[o], f,
                      score(base, names[o], f), depths[k], score(v, names[o], f));
        vmaf_close(v);
    }
    const double noisy = score(base, "float_ssim", 0);
    CHECK(noisy > 0.5 && noisy < 0.999, "noisy ssim %g", noisy);
    vmaf_close(base);

    /* identical frames: ssim ~1; in dB infinity, with clip_db the cap */
    static const char *const db[] = { "enable_db", "true", NULL };
    static const char *const db_clip[] = { "enable_db", "true", "clip_db", "true", NULL };
    VmafContext *v = run("float_ssim", NULL, 64, 48, 8, -1, 1, &err);
    CHECK(v && !err && fabs(score(v, "float_ssim", 0) - 1.0) < 1e-6, "identical: %.9g",
          v ? score(v, "float_ssim", 0) : 0);
    vmaf_close(v);
    v = run("float_ms_ssim", NULL, 176, 176, 8, -1, 1, &err);
    CHECK(v && !err && fabs(score(v, "float_ms_ssim", 0) - 1.0) < 1e-5,
          "identical ms_ssim: %.9g", v ? score(v, "float_ms_ssim", 0) : 0);
    vmaf_close(v);
    v = run("float_ssim", db_clip, 64, 48, 10, 3, 1, &err);
    const double noisy_db = v ? score(v, "float_ssim", 0) : 0;
    CHECK(v && !err && noisy_db > 3 && noisy_db < 40, "noisy dB %g", noisy_db);
    vmaf_close(v);
    /* identical black frames: ssim exactly 1, so dB infinity, or the cap with clip_db */
    {
        VmafContext *ctx = NULL;
        VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
        CHECK(!vmaf_init(&ctx, cfg), "init");
        VmafFeatureDictionary *d1 = NULL, *d2 = NULL;
        vmaf_feature_dictionary_set(&d1, "enable_db", "true");
        vmaf_feature_dictionary_set(&d2, "enable_db", "true");
        vmaf_feature_dictionary_set(&d2, "clip_db", "true");
        vmaf_feature_dictionary_set(&d2, "scale", "2");
        CHECK(!vmaf_use_feature(ctx, "float_ssim", d1), "use");
        CHECK(!vmaf_use_feature(ctx, "float_ms_ssim", d2), "use");
        VmafPicture r, t;
        CHECK(!vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 12, 200, 180), "alloc");
        CHECK(!vmaf_picture_alloc(&t, VMAF_PIX_FMT_YUV420P, 12, 200, 180), "alloc");
        CHECK(!read_pictures_or_release(ctx, &r, &t, 0) && !vmaf_read_pictures(ctx, NULL, NULL, 0),
              "read");
        const double cap = ceil(10. * log10(4095.0 * 4095.0 / (0.5 / (200 * 180))));
        CHECK(isinf(score(ctx, "float_ssim", 0)), "black dB: %g", score(ctx, "float_ssim", 0));
        CHECK(score(ctx, "float_ms_ssim", 0) == cap, "black ms dB clipped: %g, cap %g",
              score(ctx, "float_ms_ssim", 0), cap);
        vmaf_close(ctx);
    }
    (void)db;

    /* float_ms_ssim: too small for five scales is refused, the smallest that fits works */
    static const int small[][2] = { { 175, 176 }, { 176, 175 }, { 33, 33 }, { 257, 145 } };
    for (int k = 0; k < 4; k++) {
        v = run("float_ms_ssim", NULL, small[k][0], small[k][1], 8, 4, 1, &err);
        CHECK(v && err == -EINVAL, "%dx%d refused: %d", small[k][0], small[k][1], err);
        vmaf_close(v);
    }
    static const char *const ms_lcs[] = { "enable_lcs", "true", NULL };
    v = run("float_ms_ssim", ms_lcs, 176, 176, 8, 4, 1, &err);
    CHECK(v && !err, "176x176 accepted: %d", err);
    const double ms = v ? score(v, "float_ms_ssim", 0) : 0;
    CHECK(ms > 0.5 && ms < 1.0, "176x176 ms_ssim %g", ms);
    /* msssim = prod l^a c^b s^g of the written per-scale terms */
    double prod = 1.0;
    for (int k = 0; v && k < VMAF_SSIM_SCALES; k++) {
        char nl[40], nc[40], ns[40];
        snprintf(nl, sizeof(nl), "float_ms_ssim_l_scale%d", k);
        snprintf(nc, sizeof(nc), "float_ms_ssim_c_scale%d", k);
        snprintf(ns, sizeof(ns), "float_ms_ssim_s_scale%d", k);
        prod *= pow(score(v, nl, 0), vmaf_ms_ssim_alpha[k]) *
                pow(score(v, nc, 0), vmaf_ms_ssim_beta[k]) *
                pow(score(v, ns, 0), vmaf_ms_ssim_gamma[k]);
    }
    CHECK(prod == ms, "ms_ssim %.17g from its terms %.17g", ms, prod);
    vmaf_close(v);

    /* float_ssim with scale 2 on a tiny frame: nothing fits, 0 as the reference writes */
    static const char *const scale2[] = { "scale", "2", NULL };
    v = run("float_ssim", scale2, 17, 17, 8, 4, 1, &err);
    CHECK(v && !err && score(v, "float_ssim", 0) == 0.0, "17x17 scale 2: %g",
          v ? score(v, "float_ssim", 0) : 0);
    vmaf_close(v);
    /* 1x1 frames work, also with decimation kernels wider than the frame */
    v = run("float_ssim", NULL, 1, 1, 8, 4, 1, &err);
    CHECK(v && !err, "1x1: %d", err);
    vmaf_close(v);
    static const char *const scale10[] = { "scale", "10", NULL };
    static const int tiny[][2] = { { 3, 3 }, { 5, 2 }, { 1, 7 }, { 23, 12 } };
    for (int k = 0; k < 4; k++) {
        v = run("float_ssim", scale10, tiny[k][0], tiny[k][1], 8, 4, 1, &err);
        CHECK(v && !err, "%dx%d scale 10: %d", tiny[k][0], tiny[k][1], err);
        if (k == 1) { /* decimated to 1x0: (-9)(-10) window positions, score +0 */
            const double z = v ? score(v, "float_ssim", 0) : -1;
            CHECK(z == 0.0 && !signbit(z), "5x2 scale 10: %g", z);
        }
        vmaf_close(v);
    }
}

int main(void)
{
    test_kernels();
    test_helpers();
    test_decimate();
    test_means();
    test_api();
    printf("test_ssim: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
