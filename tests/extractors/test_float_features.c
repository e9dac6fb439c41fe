/*
 * Unit test of the float extractors (float_vif, float_adm, float_motion) and their kernels.
 *
 * 1. The separable filter (every build: plain, AVX2 where the CPU has it) against a naive
 *    filter written in the reference's structure (whole-image vertical pass per row, then a
 *    horizontal pass, each sum from 0 in tap order, single reflection at the borders), at
 *    odd sizes, with the VIF filters of several kernelscales and the motion kernels, with
 *    and without keeping every other row and column.
 * 2. The VIF scales against a naive evaluation on whole images (five filtered planes per
 *    scale, decimation after a full filter, the statistic with the reference's overrides in
 *    the reference's order), bit for bit, on random, correlated, amplified, identical and
 *    flat frames at odd sizes.
 * 3. The ADM scales against a naive evaluation in the reference's structure (index tables
 *    for the DWT, the three row blocks and per-pixel neighbour cases of the masking), bit
 *    for bit, including the in-place DWT of scales 1..3, at odd sizes and with options.
 * 4. The RCPSS model: special values, Intel's value at 1.0, and, on an Intel CPU, every
 *    mantissa prefix and random inputs against the instruction itself.
 * 5. The log2 approximation: exact at powers of two, close to log2 elsewhere.
 * 6. The extractors through the public API: the same frames at 8, 9, 10, 12 and 16 bits
 *    give identical scores; identical frames give VIF and ADM close to 1 and motion 0;
 *    motion2/motion3 follow from motion; vif_skip_scale0 and motion_force_zero; frames down
 *    to 1x1 give every output without error.
 * 7. float_psnr equals the integer psnr_y at 8 bits and its cap on identical frames;
 *    float_moment equals exact sums.
 *
 * Exit status 0 when every check passes; the seed and the case are printed on failure.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "feature/float_adm.h"
#include "feature/float_filter.h"
#include "feature/float_motion.h"
#include "feature/float_vif.h"
#include "libvmaf/libvmaf.h"

#include "test_util.h"

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* Bitwise equality (NaN equal to the same NaN). */
static bool same(float a, float b)
{
    return bits_of(a) == bits_of(b);
}

static const enum VmafFloatImpl impls[] = { VMAF_FLOAT_IMPL_PLAIN, VMAF_FLOAT_IMPL_AVX2 };
static const char *const impl_name[] = { "best", "plain", "avx2" };

/* ------------------------------------------------------------------------------------- */
/* Naive filter                                                                          */

/* The reference's reflection (-1 -> 1, n -> n-2), repeated while the index is still
 * outside (the documented extension for planes narrower than the filter). */
static int mirror(int i, int n)
{
    if (n == 1) return 0;
    while (i < 0 || i >= n) {
        if (i < 0) i = -i;
        if (i >= n) i = 2 * n - i - 2;
    }
    return i;
}

enum { PLAIN, SQUARE, PRODUCT };

/* Whole-plane filter of a (or a*a, a*b), vertical pass per row then horizontal. */
static void naive_filter(const float *f, int fw, int kind, const float *a, const float *b,
                         int w, int h, int stride, float *dst)
{
    const int r = fw / 2;
    float *tmp = malloc((size_t)w * sizeof(float) + 1);
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
            float accum = 0;
            for (int k = 0; k < fw; k++) {
                const int ii = mirror(i - r + k, h);
                const float x = a[ii * stride + j];
                const float y = kind == PRODUCT ? b[ii * stride + j] : x;
                accum += kind == PLAIN ? f[k] * x : f[k] * (x * y);
            }
            tmp[j] = accum;
        }
        for (int j = 0; j < w; j++) {
            float accum = 0;
            for (int k = 0; k < fw; k++)
                accum += f[k] * tmp[mirror(j - r + k, w)];
            dst[i * stride + j] = accum;
        }
    }
    free(tmp);
}

static float *random_plane(int h, int stride, float lo, float hi)
{
    float *p = malloc(((size_t)stride * h + 1) * sizeof(float));
    for (int i = 0; i < stride * h; i++)
        p[i] = lo + (hi - lo) * (float)(rng() % 65536) / 65535.0f;
    return p;
}

static void test_filter(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 2, 3 }, { 3, 2 }, { 5, 7 }, { 8, 9 },
                                    { 17, 11 }, { 33, 4 }, { 37, 23 }, { 70, 40 } };
    static const float kernelscales[] = { 1.0f, 0.5f, 2.0f, 1.0f / 2.25f, 3.0f };
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        const int w = sizes[z][0], h = sizes[z][1], stride = w + 3;
        for (size_t q = 0; q < sizeof(kernelscales) / sizeof(kernelscales[0]) + 2; q++) {
            float f[VMAF_FLOAT_VIF_MAX_FILTER];
            int fw;
            if (q < sizeof(kernelscales) / sizeof(kernelscales[0])) {
                const int scale = (int)(q % 4);
                fw = vmaf_float_vif_filter_width(scale, kernelscales[q]);
                vmaf_float_vif_filter(f, scale, kernelscales[q]);
            } else {
                const float *k = vmaf_float_motion_kernel(q % 2 ? 3 : 5, &fw);
                memcpy(f, k, (size_t)fw * sizeof(float));
            }
            const uint64_t seed = rng_state;
            float *src = random_plane(h, stride, -128.0f, 127.0f);
            float *want = calloc((size_t)stride * h + 1, sizeof(float));
            float *got = calloc((size_t)stride * h + 1, sizeof(float));
            float *row = malloc(((size_t)w + fw) * sizeof(float));
            naive_filter(f, fw, PLAIN, src, NULL, w, h, stride, want);
            for (int step = 1; step <= 2; step++) {
                for (size_t m = 0; m < sizeof(impls) / sizeof(impls[0]); m++) {
                    memset(got, 0, ((size_t)stride * h + 1) * sizeof(float));
                    const int err = vmaf_float_filter_plane(impls[m], f, fw, src, stride, w, h,
                                                            step, got, stride, row);
                    if (err == -ENOTSUP) continue;
                    CHECK(!err, "filter_plane %s", impl_name[impls[m]]);
                    int bad = 0;
                    for (int i = 0; i < h / step; i++)
                        for (int j = 0; j < w / step; j++)
                            bad += !same(got[i * stride + j],
                                         want[(i * step) * stride + j * step]);
                    CHECK(!bad, "filter %dx%d taps %d step %d %s: %d samples differ (seed %llu)",
                          w, h, fw, step, impl_name[impls[m]], bad, (unsigned long long)seed);
                }
            }
            free(src);
            free(want);
            free(got);
            free(row);
        }
    }
}

/* ------------------------------------------------------------------------------------- */
/* Naive VIF                                                                             */

/* The statistic of one pixel, overrides applied in the reference's order. */
static void naive_vif_pixel(float mu1, float mu2, float xx, float yy, float xy, double nsq,
                            float gain_limit, float *num, float *den)
{
    const float eps = 1.0e-10f;
    const float sigma_max_inv = (float)(powf((float)nsq, 2.0f) / (255.0 * 255.0));
    float s1 = xx - mu1 * mu1, s2 = yy - mu2 * mu2, s12 = xy - mu1 * mu2;
    s1 = s1 > 0.0f ? s1 : 0.0f;
    s2 = s2 > 0.0f ? s2 : 0.0f;
    float g = s12 / (s1 + eps);
    float sv = s2 - g * s12;
    if (s1 < eps) {
        g = 0.0f;
        sv = s2;
        s1 = 0.0f;
    }
    if (s2 < eps) {
        g = 0.0f;
        sv = 0.0f;
    }
    if (g < 0.0f) {
        sv = s2;
        g = 0.0f;
    }
    sv = sv > eps ? sv : eps;
    g = g < gain_limit ? g : gain_limit;
    float n = vmaf_float_vif_log2((float)(1.0f + (g * g * s1) / (sv + nsq)));
    float d = vmaf_float_vif_log2((float)(1.0f + s1 / nsq));
    if (s12 < 0.0f) n = 0.0f;
    if (s1 < nsq) {
        n = 1.0f - s2 * sigma_max_inv;
        d = 1.0f;
    }
    *num = n;
    *den = d;
}

static void naive_vif(const float *ref, const float *dis, int w, int h, int stride,
                      float kernelscale, double nsq, float gain_limit, bool skip0,
                      float num[4], float den[4])
{
    const size_t n = (size_t)stride * h + 1;
    float *cur_r = malloc(n * sizeof(float)), *cur_d = malloc(n * sizeof(float));
    float *mu1 = malloc(n * sizeof(float)), *mu2 = malloc(n * sizeof(float));
    float *xx = malloc(n * sizeof(float)), *yy = malloc(n * sizeof(float));
    float *xy = malloc(n * sizeof(float));
    memcpy(cur_r, ref, n * sizeof(float));
    memcpy(cur_d, dis, n * sizeof(float));
    for (int s = 0; s < 4; s++) {
        float f[VMAF_FLOAT_VIF_MAX_FILTER];
        const int fw = vmaf_float_vif_filter_width(s, kernelscale);
        vmaf_float_vif_filter(f, s, kernelscale);
        if (s > 0) {
            naive_filter(f, fw, PLAIN, cur_r, NULL, w, h, stride, mu1);
            naive_filter(f, fw, PLAIN, cur_d, NULL, w, h, stride, mu2);
            for (int i = 0; i < h / 2; i++)
                for (int j = 0; j < w / 2; j++) {
                    cur_r[i * stride + j] = mu1[2 * i * stride + 2 * j];
                    cur_d[i * stride + j] = mu2[2 * i * stride + 2 * j];
                }
            w /= 2;
            h /= 2;
        }
        if (s == 0 && skip0) continue;
        naive_filter(f, fw, PLAIN, cur_r, NULL, w, h, stride, mu1);
        naive_filter(f, fw, PLAIN, cur_d, NULL, w, h, stride, mu2);
        naive_filter(f, fw, SQUARE, cur_r, NULL, w, h, stride, xx);
        naive_filter(f, fw, SQUARE, cur_d, NULL, w, h, stride, yy);
        naive_filter(f, fw, PRODUCT, cur_r, cur_d, w, h, stride, xy);
        float acc_num = 0, acc_den = 0;
        for (int i = 0; i < h; i++) {
            float row_num = 0, row_den = 0;
            for (int j = 0; j < w; j++) {
                const int x = i * stride + j;
                float a, b;
                naive_vif_pixel(mu1[x], mu2[x], xx[x], yy[x], xy[x], nsq, gain_limit, &a, &b);
                row_num += a;
                row_den += b;
            }
            acc_num += row_num;
            acc_den += row_den;
        }
        num[s] = acc_num;
        den[s] = acc_den;
    }
    free(cur_r);
    free(cur_d);
    free(mu1);
    free(mu2);
    free(xx);
    free(yy);
    free(xy);
}

/* Frame pairs of several kinds; samples are 8-bit values minus 128, as the extractors see
 * them. */
enum { RANDOM, CORRELATED, AMPLIFIED, IDENTICAL, FLAT, KINDS };
static const char *const kind_name[] = { "random", "correlated", "amplified", "identical",
                                         "flat" };

static void make_pair(int kind, int h, int stride, float **ref, float **dis)
{
    *ref = malloc(((size_t)stride * h + 1) * sizeof(float));
    *dis = malloc(((size_t)stride * h + 1) * sizeof(float));
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < stride; j++) {
            const int x = i * stride + j;
            int r = (int)(rng() % 256), d;
            if (kind == FLAT) r = 77;
            if (kind == CORRELATED || kind == AMPLIFIED) /* smooth content */
                r = (int)(128 + 100 * sin(0.3 * i + 0.2 * j) + (int)(rng() % 9) - 4);
            switch (kind) {
            case RANDOM: d = (int)(rng() % 256); break;
            case CORRELATED: d = r + (int)(rng() % 21) - 10; break;
            case AMPLIFIED: d = 128 + (r - 128) * 5 / 4; break;
            default: d = r; break;
            }
            r = r < 0 ? 0 : (r > 255 ? 255 : r);
            d = d < 0 ? 0 : (d > 255 ? 255 : d);
            (*ref)[x] = (float)r - 128.0f;
            (*dis)[x] = (float)d - 128.0f;
        }
    }
}

static void test_vif_scales(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 4, 3 }, { 17, 17 }, { 33, 9 }, { 37, 23 },
                                    { 64, 48 } };
    static const struct {
        float kernelscale;
        double nsq, gain;
        bool skip0;
    } opts[] = { { 1.0f, 2.0, 100.0, false }, { 1.5f, 2.0, 1.0, true },
                 { 0.5f, 0.0, 100.0, false }, { 1.0f, 5.0, 1.2, false } };
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        const int w = sizes[z][0], h = sizes[z][1], stride = w + 5;
        for (int kind = 0; kind < KINDS; kind++) {
            for (size_t o = 0; o < sizeof(opts) / sizeof(opts[0]); o++) {
                const uint64_t seed = rng_state;
                float *ref, *dis;
                make_pair(kind, h, stride, &ref, &dis);
                float want_num[4] = { 0 }, want_den[4] = { 0 };
                naive_vif(ref, dis, w, h, stride, opts[o].kernelscale, opts[o].nsq,
                          (float)opts[o].gain, opts[o].skip0, want_num, want_den);
                VmafFloatVifWorkspace ws;
                CHECK(!vmaf_float_vif_workspace_init(&ws, w, h, opts[o].kernelscale), "ws");
                const VmafFloatVifStatConst c = {
                    .sigma_nsq = opts[o].nsq,
                    .sigma_max_inv = (float)(powf((float)opts[o].nsq, 2.0f) / (255.0 * 255.0)),
                    .gain_limit = (float)opts[o].gain,
                };
                for (size_t m = 0; m < sizeof(impls) / sizeof(impls[0]); m++) {
                    float num[4] = { 0 }, den[4] = { 0 };
                    const int err = vmaf_float_vif_scales(impls[m], &ws, &c, ref, dis, stride,
                                                          opts[o].skip0, num, den);
                    if (err == -ENOTSUP) continue;
                    CHECK(!err, "vif_scales");
                    for (int s = 0; s < 4; s++)
                        CHECK(same(num[s], want_num[s]) && same(den[s], want_den[s]),
                              "vif %dx%d %s opts %zu %s scale %d: num %.9g/%.9g den %.9g/%.9g "
                              "(seed %llu)",
                              w, h, kind_name[kind], o, impl_name[impls[m]], s, num[s],
                              want_num[s], den[s], want_den[s], (unsigned long long)seed);
                }
                vmaf_float_vif_workspace_close(&ws);
                free(ref);
                free(dis);
            }
        }
    }
}

/* ------------------------------------------------------------------------------------- */
/* Naive ADM                                                                             */

typedef struct Bands {
    float *a, *h, *v, *d;
} Bands;

static int dwt_index(int p, int n)
{
    if (p < 0) p = -p;
    else if (p >= n) p = 2 * n - p - 1;
    if (p >= n) p = n - 1; /* lines of one sample */
    if (p < 0) p = 0;
    return p;
}

/* One DWT level with index tables, vertical pass of a whole output row, then horizontal. */
static void naive_dwt(const float *src, int stride, int w, int h, Bands *dst, int dst_stride)
{
    const float *lo_f = vmaf_float_adm_dwt_lo, *hi_f = vmaf_float_adm_dwt_hi;
    float *lo = malloc((size_t)w * sizeof(float)), *hi = malloc((size_t)w * sizeof(float));
    for (int i = 0; i < (h + 1) / 2; i++) {
        int iy[4];
        for (int k = 0; k < 4; k++)
            iy[k] = dwt_index(2 * i - 1 + k, h);
        for (int j = 0; j < w; j++) {
            float s[4], accum;
            for (int k = 0; k < 4; k++)
                s[k] = src[iy[k] * stride + j];
            accum = 0;
            for (int k = 0; k < 4; k++)
                accum += lo_f[k] * s[k];
            lo[j] = accum;
            accum = 0;
            for (int k = 0; k < 4; k++)
                accum += hi_f[k] * s[k];
            hi[j] = accum;
        }
        for (int j = 0; j < (w + 1) / 2; j++) {
            int ix[4];
            float sl[4], sh[4], a = 0, v = 0, hh = 0, d = 0;
            for (int k = 0; k < 4; k++) {
                ix[k] = dwt_index(2 * j - 1 + k, w);
                sl[k] = lo[ix[k]];
                sh[k] = hi[ix[k]];
            }
            for (int k = 0; k < 4; k++) a += lo_f[k] * sl[k];
            for (int k = 0; k < 4; k++) v += hi_f[k] * sl[k];
            for (int k = 0; k < 4; k++) hh += lo_f[k] * sh[k];
            for (int k = 0; k < 4; k++) d += hi_f[k] * sh[k];
            dst->a[i * dst_stride + j] = a;
            dst->v[i * dst_stride + j] = v;
            dst->h[i * dst_stride + j] = hh;
            dst->d[i * dst_stride + j] = d;
        }
    }
    free(lo);
    free(hi);
}

/* powf as glibc computes it (tests/extractors/test_xpowf.c checks vmaf_xpowf against glibc) */
static float naive_power(float x, double p)
{
    return p == 3.0 ? x * x * x : vmaf_xpowf(x, (float)p);
}

typedef struct NaiveAdm {
    int w, h, stride;
    const float *const *x;                  /* scored CSF bands H V D */
    const float *const *c, *const *m;       /* the other part's CSF and masks */
    bool bypass;
    double p;
} NaiveAdm;

/* One masked pixel: the neighbourhood of the reference's nine cases. */
static void naive_masked_pixel(const NaiveAdm *a, int i, int j, float acc[3])
{
    int r0 = i - 1, r2 = i + 1, c0 = j - 1, c2 = j + 1;
    if (i == 0) r0 = 1;
    if (i == a->h - 1) r2 = a->h - 1;
    if (j == 0) c0 = 1;
    if (j == a->w - 1) c2 = a->w - 1;
    if (r0 >= a->h) r0 = a->h - 1;
    if (c0 >= a->w) c0 = a->w - 1;
    const int rows[3] = { r0, i, r2 }, cols[3] = { c0, j, c2 };
    float thr = 0.0f;
    if (!a->bypass) {
        for (int b = 0; b < 3; b++) {
            float sum = 0;
            for (int u = 0; u < 3; u++) {
                for (int v = 0; v < 3; v++) {
                    if (u == 1 && v == 1)
                        sum += 0.0666666701 * fabsf(a->c[b][i * a->stride + j]);
                    else
                        sum += a->m[b][rows[u] * a->stride + cols[v]];
                }
            }
            thr += sum;
        }
    }
    for (int b = 0; b < 3; b++) {
        float x = fabsf(a->x[b][i * a->stride + j]) - thr;
        x = x < 0.0f ? 0.0f : x;
        acc[b] += naive_power(x, a->p);
    }
}

static float naive_masked(const NaiveAdm *a, double noise_weight)
{
    const int left = (int)(a->w * 0.1 - 0.5), top = (int)(a->h * 0.1 - 0.5);
    const int right = a->w - left, bottom = a->h - top;
    const int start_col = left > 1 ? left : 1, end_col = right < a->w - 1 ? right : a->w - 1;
    const int start_row = top > 1 ? top : 1, end_row = bottom < a->h - 1 ? bottom : a->h - 1;
    float accum[3] = { 0, 0, 0 }, inner[3] = { 0, 0, 0 };
    /* row 0 */
    if (top <= 0 && left <= 0) naive_masked_pixel(a, 0, 0, inner);
    if (top <= 0)
        for (int j = start_col; j < end_col; j++) naive_masked_pixel(a, 0, j, inner);
    if (top <= 0 && right > a->w - 1) naive_masked_pixel(a, 0, a->w - 1, inner);
    for (int b = 0; b < 3; b++) accum[b] += inner[b];
    /* inner rows */
    for (int i = start_row; i < end_row; i++) {
        float row[3] = { 0, 0, 0 };
        if (left <= 0) naive_masked_pixel(a, i, 0, row);
        for (int j = start_col; j < end_col; j++) naive_masked_pixel(a, i, j, row);
        if (right > a->w - 1) naive_masked_pixel(a, i, a->w - 1, row);
        for (int b = 0; b < 3; b++) accum[b] += row[b];
    }
    /* row h-1 */
    float last[3] = { 0, 0, 0 };
    if (bottom > a->h - 1 && left <= 0) naive_masked_pixel(a, a->h - 1, 0, last);
    if (bottom > a->h - 1)
        for (int j = start_col; j < end_col; j++) naive_masked_pixel(a, a->h - 1, j, last);
    if (bottom > a->h - 1 && right > a->w - 1) naive_masked_pixel(a, a->h - 1, a->w - 1, last);
    for (int b = 0; b < 3; b++) accum[b] += last[b];
    const float noise = vmaf_xpowf((float)((right - left) * (bottom - top) * noise_weight),
                                   (float)(1.0f / a->p));
    float total = 0;
    float v[3];
    for (int b = 0; b < 3; b++) v[b] = vmaf_xpowf(accum[b], (float)(1.0f / a->p)) + noise;
    total = v[0] + v[1] + v[2];
    return total;
}

static void naive_adm(const float *ref, const float *dis, int w, int h, int stride,
                      const VmafFloatAdmParams *p, VmafFloatAdmScale out[4])
{
    const int bs = (w + 1) / 2 + 3; /* band stride */
    const size_t n = (size_t)bs * ((h + 1) / 2) + 1;
    float *mem = calloc(n * 26, sizeof(float));
    float *next = mem;
#define TAKE() (next += n, next - n)
    Bands rb = { TAKE(), TAKE(), TAKE(), TAKE() }, db = { TAKE(), TAKE(), TAKE(), TAKE() };
    float *r[3] = { TAKE(), TAKE(), TAKE() }, *ad[3] = { TAKE(), TAKE(), TAKE() };
    float *cr[3] = { TAKE(), TAKE(), TAKE() }, *ca[3] = { TAKE(), TAKE(), TAKE() };
    float *mr[3] = { TAKE(), TAKE(), TAKE() }, *ma[3] = { TAKE(), TAKE(), TAKE() };
#undef TAKE
    uint32_t rcp_table[VMAF_FLOAT_ADM_RCP_ENTRIES];
    for (uint32_t k = 0; k < VMAF_FLOAT_ADM_RCP_ENTRIES; k++)
        rcp_table[k] = vmaf_float_adm_rcp_mantissa(k);
    const float cos_1deg_sq = (float)(cos(1.0 * M_PI / 180.0) * cos(1.0 * M_PI / 180.0));

    /* the input into a band-strided copy, so that every scale reads the same layout */
    const float *cur_r = ref, *cur_d = dis;
    int cur_stride = stride;
    for (int s = 0; s < 4; s++) {
        Bands tr = rb, td = db;
        float *tmp_r = malloc(n * 4 * sizeof(float)), *tmp_d = malloc(n * 4 * sizeof(float));
        /* out of place here (the extractor works in place from scale 1 on) */
        Bands or_ = { tmp_r, tmp_r + n, tmp_r + 2 * n, tmp_r + 3 * n };
        Bands od = { tmp_d, tmp_d + n, tmp_d + 2 * n, tmp_d + 3 * n };
        naive_dwt(cur_r, cur_stride, w, h, &or_, bs);
        naive_dwt(cur_d, cur_stride, w, h, &od, bs);
        memcpy(tr.a, or_.a, n * sizeof(float));
        memcpy(tr.h, or_.h, n * sizeof(float));
        memcpy(tr.v, or_.v, n * sizeof(float));
        memcpy(tr.d, or_.d, n * sizeof(float));
        memcpy(td.a, od.a, n * sizeof(float));
        memcpy(td.h, od.h, n * sizeof(float));
        memcpy(td.v, od.v, n * sizeof(float));
        memcpy(td.d, od.d, n * sizeof(float));
        free(tmp_r);
        free(tmp_d);
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        cur_r = rb.a;
        cur_d = db.a;
        cur_stride = bs;
        if (s == 0 && p->skip_scale0) {
            out[s] = (VmafFloatAdmScale){ 0.0f, 1e-10f, 0.0f };
            continue;
        }
        /* outer region */
        int ol = (int)(w * 0.1 - 0.5 - 1), ot = (int)(h * 0.1 - 0.5 - 1);
        int orr = w - ol + 2, ob = h - ot + 2;
        ol = ol < 0 ? 0 : ol;
        ot = ot < 0 ? 0 : ot;
        orr = orr > w ? w : orr;
        ob = ob > h ? h : ob;
        const float *o3[3] = { rb.h, rb.v, rb.d }, *t3[3] = { db.h, db.v, db.d };
        for (int i = ot; i < ob; i++) {
            for (int j = ol; j < orr; j++) {
                const int x = i * bs + j;
                const float oh = o3[0][x], ov = o3[1][x], th = t3[0][x], tv = t3[1][x];
                const float dot = oh * th + ov * tv;
                const bool angle = dot >= 0.0f &&
                                   dot * dot >= cos_1deg_sq * (oh * oh + ov * ov) *
                                                    (th * th + tv * tv);
                for (int b = 0; b < 3; b++) {
                    const float o = o3[b][x], t = t3[b][x];
                    float k = t * vmaf_float_adm_rcp(rcp_table, o + 1e-30f);
                    k = k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k);
                    float rr = k * o;
                    if (angle && rr > 0.0) {
                        const double g = rr * p->enhn_gain_limit;
                        rr = (float)(g < t ? g : t);
                    }
                    if (angle && rr < 0.0) {
                        const double g = rr * p->enhn_gain_limit;
                        rr = (float)(g > t ? g : t);
                    }
                    r[b][x] = rr;
                    ad[b][x] = t - rr;
                }
            }
        }
        for (int b = 0; b < 3; b++) {
            for (int i = ot; i < ob; i++) {
                for (int j = ol; j < orr; j++) {
                    const int x = i * bs + j;
                    cr[b][x] = p->rfactor[s][b] * r[b][x];
                    mr[b][x] = (float)(0.0333333351 * fabsf(cr[b][x]));
                    ca[b][x] = p->rfactor[s][b] * ad[b][x];
                    ma[b][x] = (float)(0.0333333351 * fabsf(ca[b][x]));
                }
            }
        }
        /* denominator */
        const int left = (int)(w * 0.1 - 0.5), top = (int)(h * 0.1 - 0.5);
        float dacc[3] = { 0, 0, 0 };
        for (int i = top; i < h - top; i++) {
            float row[3] = { 0, 0, 0 };
            for (int j = left; j < w - left; j++)
                for (int b = 0; b < 3; b++)
                    row[b] += naive_power(fabsf(p->rfactor[s][b] * o3[b][i * bs + j]), p->p_norm);
            for (int b = 0; b < 3; b++) dacc[b] += row[b];
        }
        const float dnoise = vmaf_xpowf((float)((w - 2 * left) * (h - 2 * top) * p->noise_weight),
                                        (float)(1.0f / p->p_norm));
        float dv[3];
        for (int b = 0; b < 3; b++) dv[b] = vmaf_xpowf(dacc[b], (float)(1.0f / p->p_norm)) + dnoise;
        out[s].den = dv[0] + dv[1] + dv[2];
        const float *xr[3] = { cr[0], cr[1], cr[2] }, *xa[3] = { ca[0], ca[1], ca[2] };
        const float *mr3[3] = { mr[0], mr[1], mr[2] }, *ma3[3] = { ma[0], ma[1], ma[2] };
        const NaiveAdm dlm = { w, h, bs, xr, xa, ma3, p->bypass_cm, p->p_norm };
        const NaiveAdm aim = { w, h, bs, xa, xr, mr3, p->bypass_cm, p->p_norm };
        out[s].num = naive_masked(&dlm, p->noise_weight);
        out[s].aim_num = naive_masked(&aim, 0.0);
    }
    free(mem);
}

static void test_adm_scales(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 3, 5 }, { 17, 17 }, { 33, 9 }, { 40, 31 },
                                    { 96, 54 } };
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        const int w = sizes[z][0], h = sizes[z][1], stride = w + 2;
        for (int kind = 0; kind < KINDS; kind++) {
            for (int variant = 0; variant < 4; variant++) {
                VmafFloatAdmOptions o = {
                    .enhn_gain_limit = variant == 1 ? 1.2 : 100.0,
                    .norm_view_dist = 3.0, .noise_weight = 0.03125, .csf_scale = 1.0,
                    .csf_diag_scale = 1.0, .ref_display_height = 1080,
                    .csf_mode = variant == 2 ? 1 : (variant == 3 ? 2 : 0),
                    .bypass_cm = variant == 3, .p_norm = variant == 2 ? 2.5 : 3.0,
                    .dlm_weight = 0.5, .skip_aim_scale = -1, .skip_scale0 = variant == 1,
                };
                for (int s = 0; s < 4; s++)
                    o.factor1[s] = o.factor2[s] = -1.0;
                if (variant == 3) o.factor2[1] = 0.25;
                VmafFloatAdmParams p;
                vmaf_float_adm_params(&o, &p);
                const uint64_t seed = rng_state;
                float *ref, *dis;
                make_pair(kind, h, stride, &ref, &dis);
                VmafFloatAdmScale want[4];
                naive_adm(ref, dis, w, h, stride, &p, want);
                VmafFloatAdmWorkspace ws;
                CHECK(!vmaf_float_adm_workspace_init(&ws, w, h), "ws");
                for (size_t m = 0; m < sizeof(impls) / sizeof(impls[0]); m++) {
                    VmafFloatAdmScale got[4];
                    const int err = vmaf_float_adm_scales(impls[m], &ws, &p, ref, dis, stride, got);
                    if (err == -ENOTSUP) continue;
                    CHECK(!err, "adm_scales");
                    for (int s = 0; s < 4; s++)
                        CHECK(same(got[s].num, want[s].num) && same(got[s].den, want[s].den) &&
                                  same(got[s].aim_num, want[s].aim_num),
                              "adm %dx%d %s variant %d %s scale %d: num %.9g/%.9g den "
                              "%.9g/%.9g aim %.9g/%.9g (seed %llu)",
                              w, h, kind_name[kind], variant, impl_name[impls[m]], s, got[s].num,
                              want[s].num, got[s].den, want[s].den, got[s].aim_num,
                              want[s].aim_num, (unsigned long long)seed);
                }
                vmaf_float_adm_workspace_close(&ws);
                free(ref);
                free(dis);
            }
        }
    }
}

/* ------------------------------------------------------------------------------------- */
/* RCPSS model and log2                                                                  */

static bool genuine_intel(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return false;
    return b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e; /* "GenuineIntel" */
#else
    return false;
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
static float hardware_rcpss(float x)
{
    return _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x)));
}
#endif

static void test_rcp(void)
{
    uint32_t t[VMAF_FLOAT_ADM_RCP_ENTRIES];
    for (uint32_t k = 0; k < VMAF_FLOAT_ADM_RCP_ENTRIES; k++)
        t[k] = vmaf_float_adm_rcp_mantissa(k);
    CHECK(bits_of(vmaf_float_adm_rcpss(t, 1.0f)) == 0x3F7FF000, "rcpss(1) = 0.999756");
    CHECK(bits_of(vmaf_float_adm_rcpss(t, -2.0f)) == 0xBEFFF000, "rcpss(-2)");
    CHECK(bits_of(vmaf_float_adm_rcpss(t, 0.0f)) == 0x7F800000, "rcpss(0) = inf");
    CHECK(bits_of(vmaf_float_adm_rcpss(t, -0.0f)) == 0xFF800000, "rcpss(-0) = -inf");
    CHECK(bits_of(vmaf_float_adm_rcpss(t, float_of(0x00000001))) == 0x7F800000,
          "subnormal as 0");
    CHECK(bits_of(vmaf_float_adm_rcpss(t, (float)INFINITY)) == 0, "rcpss(inf) = 0");
    CHECK(bits_of(vmaf_float_adm_rcpss(t, float_of(0x7E800000))) == 0, "tiny result flushed");
    CHECK(isnan(vmaf_float_adm_rcpss(t, (float)NAN)), "NaN");
    for (uint32_t k = 0; k < VMAF_FLOAT_ADM_RCP_ENTRIES; k++) {
        const float x = float_of(0x3F800000u | (k << 12));
        const double rel = fabs(vmaf_float_adm_rcpss(t, x) * (double)x - 1.0);
        if (rel > 1.5 / 4096) {
            CHECK(0, "rcpss relative error %g at k %u", rel, k);
            break;
        }
    }
    /* Newton refinement brings it within 2 ulps of 1/x */
    rng_state = 99;
    for (int i = 0; i < 10000; i++) {
        const float x = float_of(0x3F800000u | (rng() & 0x7FFFFF)) * (float)(1 + rng() % 1000);
        const float y = vmaf_float_adm_rcp(t, x);
        const float e = 1.0f / x;
        const int32_t ulps = (int32_t)bits_of(y) - (int32_t)bits_of(e);
        if (ulps < -2 || ulps > 2) {
            CHECK(0, "rcp(%a) = %a, 1/x = %a", x, y, e);
            break;
        }
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if (genuine_intel()) {
        int bad = 0;
        for (uint32_t k = 0; k < VMAF_FLOAT_ADM_RCP_ENTRIES; k++) {
            const float x = float_of(0x3F800000u | (k << 12) | (rng() & 0xFFF));
            bad += !same(vmaf_float_adm_rcpss(t, x), hardware_rcpss(x));
        }
        for (int i = 0; i < 1000000; i++) {
            const float x = float_of(rng() | (rng() << 16));
            if (isnan(x)) continue;
            bad += !same(vmaf_float_adm_rcpss(t, x), hardware_rcpss(x));
        }
        CHECK(!bad, "RCPSS model differs from this Intel CPU at %d inputs", bad);
    } else {
        printf("note: not an Intel CPU; the RCPSS model is not compared with the hardware\n");
    }
#endif
}

static void test_log2(void)
{
    for (int k = -60; k <= 60; k++)
        CHECK(vmaf_float_vif_log2(ldexpf(1.0f, k)) == (float)k, "log2(2^%d)", k);
    CHECK(vmaf_float_vif_log2(0.0f) == -(float)INFINITY, "log2(0)");
    CHECK(isnan(vmaf_float_vif_log2(-1.0f)), "log2(-1)");
    float worst = 0;
    for (int i = 1; i < 100000; i++) {
        const float x = 1.0f + (float)i * 0.37f;
        const float e = fabsf(vmaf_float_vif_log2(x) - log2f(x));
        worst = e > worst ? e : worst;
    }
    CHECK(worst < 1e-4f, "log2 approximation error %g", worst);
}

/* ------------------------------------------------------------------------------------- */
/* Through the public API                                                                */

typedef struct Clip {
    int w, h, n;
    uint8_t *ref, *dis; /* n frames of 8-bit luma */
} Clip;

static Clip make_clip(int w, int h, int n, bool static_content)
{
    Clip c = { w, h, n, malloc((size_t)w * h * n + 1), malloc((size_t)w * h * n + 1) };
    for (int f = 0; f < n; f++) {
        for (int i = 0; i < h; i++) {
            for (int j = 0; j < w; j++) {
                const int shift = static_content ? 0 : 2 * f;
                const int warp = static_content ? 1 : 1 + f % 3;
                int v = (int)(128 + 90 * sin(0.21 * (i + shift) + 0.13 * j) +
                              30 * cos(0.05 * i * j / warp));
                v = v < 0 ? 0 : (v > 255 ? 255 : v);
                int d = v + (int)(rng() % 31) - 15;
                d = d < 0 ? 0 : (d > 255 ? 255 : d);
                c.ref[(size_t)f * w * h + i * w + j] = (uint8_t)v;
                c.dis[(size_t)f * w * h + i * w + j] = (uint8_t)(static_content ? v : d);
            }
        }
    }
    return c;
}

static void fill_picture(VmafPicture *p, const uint8_t *src, int w, int h, unsigned bpc)
{
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
            const unsigned v = src[i * w + j];
            if (bpc == 8)
                ((uint8_t *)p->data[0] + i * p->stride[0])[j] = (uint8_t)v;
            else
                ((uint16_t *)((uint8_t *)p->data[0] + i * p->stride[0]))[j] =
                    (uint16_t)(v << (bpc - 8));
        }
    }
}

/* Run the clip through the given features; NULL on failure. */
static VmafContext *run_clip(const Clip *c, unsigned bpc, const char *const *features,
                             const char *opt_key, const char *opt_val, unsigned threads)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = threads };
    if (vmaf_init(&v, cfg)) return NULL;
    for (int k = 0; features[k]; k++) {
        VmafFeatureDictionary *d = NULL;
        if (opt_key) vmaf_feature_dictionary_set(&d, opt_key, opt_val);
        if (vmaf_use_feature(v, features[k], d)) goto fail;
    }
    for (int f = 0; f < c->n; f++) {
        VmafPicture r, d;
        if (vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, bpc, c->w, c->h)) goto fail;
        if (vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, bpc, c->w, c->h)) {
            vmaf_picture_unref(&r);
            goto fail;
        }
        fill_picture(&r, c->ref + (size_t)f * c->w * c->h, c->w, c->h, bpc);
        fill_picture(&d, c->dis + (size_t)f * c->w * c->h, c->w, c->h, bpc);
        if (read_pictures_or_release(v, &r, &d, (unsigned)f)) goto fail;
    }
    if (vmaf_read_pictures(v, NULL, NULL, 0)) goto fail;
    return v;
fail:
    vmaf_close(v);
    return NULL;
}

static const char *const all_features[] = { "float_vif", "float_adm", "float_motion", NULL };
static const char *const outputs[] = {
    "VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score",
    "VMAF_feature_vif_scale2_score", "VMAF_feature_vif_scale3_score",
    "VMAF_feature_adm2_score", "VMAF_feature_aim_score", "VMAF_feature_adm3_score",
    "VMAF_feature_adm_scale0_score", "VMAF_feature_adm_scale1_score",
    "VMAF_feature_adm_scale2_score", "VMAF_feature_adm_scale3_score",
    "VMAF_feature_motion_score", "VMAF_feature_motion2_score", "VMAF_feature_motion3_score",
    NULL,
};

static void test_depths(void)
{
    rng_state = 7;
    const Clip c = make_clip(41, 29, 4, false);
    VmafContext *base = run_clip(&c, 8, all_features, NULL, NULL, 0);
    CHECK(base, "8-bit run");
    static const unsigned depths[] = { 9, 10, 12, 16 };
    for (size_t k = 0; base && k < sizeof(depths) / sizeof(depths[0]); k++) {
        VmafContext *v = run_clip(&c, depths[k], all_features, NULL, NULL, 1);
        CHECK(v, "%u-bit run", depths[k]);
        for (int o = 0; v && outputs[o]; o++) {
            for (int f = 0; f < c.n; f++) {
                double a = -1, b = -2;
                const int ea = vmaf_feature_score_at_index(base, outputs[o], &a, f);
                const int eb = vmaf_feature_score_at_index(v, outputs[o], &b, f);
                CHECK(!ea && !eb && (a == b || (isnan(a) && isnan(b))),
                      "%s frame %d: 8-bit %.17g, %u-bit %.17g", outputs[o], f, a, depths[k], b);
            }
        }
        vmaf_close(v);
    }
    vmaf_close(base);
    free(c.ref);
    free(c.dis);
}

static double score(VmafContext *v, const char *name, int index)
{
    double s = NAN;
    if (vmaf_feature_score_at_index(v, name, &s, (unsigned)index)) return NAN;
    return s;
}

static void test_properties(void)
{
    rng_state = 11;
    /* identical, static frames */
    Clip c = make_clip(64, 36, 3, true);
    VmafContext *v = run_clip(&c, 8, all_features, NULL, NULL, 0);
    CHECK(v, "static run");
    for (int f = 0; v && f < c.n; f++) {
        for (int s = 0; s < 4; s++) {
            char name[64];
            snprintf(name, sizeof(name), "VMAF_feature_vif_scale%d_score", s);
            CHECK(fabs(score(v, name, f) - 1.0) < 1e-4, "identical: %s = %.17g", name,
                  score(v, name, f));
        }
        CHECK(fabs(score(v, "VMAF_feature_adm2_score", f) - 1.0) < 1e-4, "identical: adm2 %.17g",
              score(v, "VMAF_feature_adm2_score", f));
        CHECK(score(v, "VMAF_feature_motion_score", f) == 0.0, "static: motion");
        CHECK(score(v, "VMAF_feature_motion2_score", f) == 0.0, "static: motion2");
    }
    vmaf_close(v);
    free(c.ref);
    free(c.dis);

    /* moving content: motion2 and motion3 follow from motion */
    c = make_clip(48, 32, 6, false);
    v = run_clip(&c, 8, all_features, NULL, NULL, 2);
    CHECK(v, "moving run");
    for (int f = 0; v && f < c.n; f++) {
        const double m = score(v, "VMAF_feature_motion_score", f);
        const double next = f + 1 < c.n ? score(v, "VMAF_feature_motion_score", f + 1) : m;
        const double m2 = score(v, "VMAF_feature_motion2_score", f);
        const double m3 = score(v, "VMAF_feature_motion3_score", f);
        if (f == 0) {
            CHECK(m == 0.0 && m2 == 0.0, "frame 0: motion %g motion2 %g", m, m2);
            CHECK(m3 == score(v, "VMAF_feature_motion_score", 1), "frame 0: motion3 %g", m3);
        } else {
            CHECK(m > 0.0, "frame %d: motion %g", f, m);
            CHECK(m2 == (m < next ? m : next), "frame %d: motion2 %g, motion %g/%g", f, m2, m,
                  next);
            CHECK(m3 == m2, "frame %d: motion3 %g motion2 %g", f, m3, m2);
        }
    }

    /* vif_skip_scale0: scale 0 is 0, the other scales unchanged */
    const char *const vif_only[] = { "float_vif", NULL };
    VmafContext *skip = run_clip(&c, 8, vif_only, "vif_skip_scale0", "true", 0);
    CHECK(skip, "skip run");
    for (int f = 0; v && skip && f < c.n; f++) {
        /* option-suffixed features are stored under their aliased names */
        CHECK(score(skip, "vif_scale0_ssclz", f) == 0.0, "skip: scale0");
        for (int s = 1; s < 4; s++) {
            char a[64], b[64];
            snprintf(a, sizeof(a), "VMAF_feature_vif_scale%d_score", s);
            snprintf(b, sizeof(b), "vif_scale%d_ssclz", s);
            CHECK(score(v, a, f) == score(skip, b, f), "skip: %s", b);
        }
    }
    vmaf_close(skip);

    /* motion_force_zero */
    const char *const motion_only[] = { "float_motion", NULL };
    VmafContext *zero = run_clip(&c, 8, motion_only, "motion_force_zero", "true", 0);
    CHECK(zero, "force_zero run");
    for (int f = 0; zero && f < c.n; f++) {
        CHECK(score(zero, "motion2_force_0", f) == 0.0, "force_0 motion2");
        CHECK(score(zero, "motion3_force_0", f) == 0.0, "force_0 motion3");
        CHECK(score(zero, "motion_force_0", f) == 0.0, "force_0 motion");
    }
    vmaf_close(zero);
    vmaf_close(v);
    free(c.ref);
    free(c.dis);
}

/* float_psnr, float_ansnr and float_moment */
static void test_stats(void)
{
    rng_state = 21;
    Clip c = make_clip(45, 27, 3, false);
    const char *const features[] = { "float_psnr", "float_ansnr", "float_moment", "psnr",
                                     NULL };
    VmafContext *v = run_clip(&c, 8, features, NULL, NULL, 0);
    CHECK(v, "stats run");
    for (int f = 0; v && f < c.n; f++) {
        /* 8-bit: the float squares of integer differences are exact, so the integer psnr's
         * value comes out bit for bit */
        CHECK(score(v, "float_psnr", f) == score(v, "psnr_y", f), "float_psnr %.17g psnr_y %.17g",
              score(v, "float_psnr", f), score(v, "psnr_y", f));
        double sum = 0, sum2 = 0;
        for (int i = 0; i < c.w * c.h; i++) {
            const double x = c.ref[(size_t)f * c.w * c.h + i];
            sum += x;
            sum2 += x * x;
        }
        CHECK(score(v, "float_moment_ref1st", f) == sum / (c.w * c.h), "ref1st");
        CHECK(score(v, "float_moment_ref2nd", f) == sum2 / (c.w * c.h), "ref2nd");
        const double ansnr = score(v, "float_ansnr", f);
        CHECK(ansnr > 0 && ansnr < 60, "ansnr %g", ansnr);
    }
    vmaf_close(v);
    free(c.ref);
    free(c.dis);

    /* identical frames: no noise, float_psnr at its cap (60 at 8 bits, 72 at 10); ANSNR
     * filters the two with different kernels, so it has noise even here */
    c = make_clip(33, 21, 2, true);
    for (unsigned bpc = 8; bpc <= 10; bpc += 2) {
        v = run_clip(&c, bpc, features, NULL, NULL, 0);
        CHECK(v, "identical stats run");
        const double cap = bpc == 8 ? 60.0 : 72.0;
        for (int f = 0; v && f < c.n; f++) {
            CHECK(score(v, "float_psnr", f) == cap, "identical: psnr");
            CHECK(score(v, "float_moment_ref1st", f) == score(v, "float_moment_dis1st", f),
                  "identical: moments");
        }
        vmaf_close(v);
    }
    free(c.ref);
    free(c.dis);
}

static void test_tiny_frames(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 5, 4 }, { 7, 16 } };
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        rng_state = 5 + z;
        const Clip c = make_clip(sizes[z][0], sizes[z][1], 3, false);
        VmafContext *v = run_clip(&c, 8, all_features, NULL, NULL, 0);
        CHECK(v, "%dx%d run", c.w, c.h);
        for (int o = 0; v && outputs[o]; o++)
            for (int f = 0; f < c.n; f++) {
                double s;
                CHECK(!vmaf_feature_score_at_index(v, outputs[o], &s, (unsigned)f),
                      "%dx%d: %s at %d", c.w, c.h, outputs[o], f);
            }
        vmaf_close(v);
        free(c.ref);
        free(c.dis);
    }
}

int main(void)
{
    rng_state = 0x9E3779B97F4A7C15ull;
    test_filter();
    test_vif_scales();
    test_adm_scales();
    test_rcp();
    test_log2();
    test_depths();
    test_properties();
    test_stats();
    test_tiny_frames();
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
