/*
 * Host test of the float_ssim / float_ms_ssim twins: ssim_device.h's per-thread functions run
 * here in ssim.cu's decomposition — decimation one output at a time, the window tiles in grid
 * order (and in reverse grid order: no tile depends on another) with garbage-filled shared
 * memory, each warp's outputs and segment tree, the row and lane reductions — and are
 * compared bit for bit with the CPU extractors:
 *   - intermediates: every decimated plane against the CPU instance's planes;
 *   - sums: each scale's four double sums, bit for bit, and the means made from them,
 *     against vmaf_ssim_sums / vmaf_ssim_means on the CPU's planes (the means alone would
 *     hide an order error: their float rounding absorbs a few ulps of the sums);
 *   - finals: every score the CPU extractor writes (through its vtable) against what the
 *     twin's collect path (vmaf_ssim_means_from_sums + the CPU's store) writes.
 * Inputs: random, extremes, flat, noise, ramps, identical pairs, real clips; sizes from 1x1
 * (nothing summed) and 11x11 (one output) to 1920x1080, odd ones and tile edges; 8..16 bits;
 * 4:2:0, 4:2:2, 4:4:4; every float_ssim scale option and enable_lcs/db/clip_db; MS-SSIM from
 * its smallest accepted size (176x176). Also printed, not asserted: how many means differ
 * from the reference's single serial sum (expected 0; the order is ssim_device.h's).
 *
 * Built twice: with the plain double (as the CPU and CUDA compile the kernels' code) and with
 * -D VMAF_F64_SOFT_ON_HOST=1 (test_ssim_twin_soft: the doubles of ssim_device.h and
 * vmaf_ssim_pixel are the software binary64 and the sums take their fp64-free forms, as in
 * an OpenCL program built without fp64), each against the CPU extractors (plain double).
 *
 * Usage: test_ssim_twin [CLIPS_DIR]  (real content only when given)
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/feature_extractor.h"
#include "feature/ssim.h"
#include "feature/ssim_device.h"
#include "feature_collector.h"
#include "libvmaf/picture.h"
#include "opt.h"

#include "test_twin_run.h"
#include "test_util.h"

static const char *clips_dir;

/* a vmaf_double as the host's double (the same bits; f64.h's vmaf_double is one or the
 * software binary64) */
static double host_double(vmaf_double d)
{
    return test_double_of_bits(vmaf_dbits(d));
}
static unsigned serial_compared, serial_differ;

/* ---- the fp64-free sums of floats (software double build only) ---------------------------- */

#if VMAF_DOUBLE_SOFT
/* a term: any finite float, window-like products, or a float 2^e with random bits */
static float fsum_term(int kind, int e0)
{
    static const float g[6] = { 0.266012f, 0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f };
    const float sign = rng() & 1 ? -1.0f : 1.0f;
    switch (kind) {
    case 0: { /* any finite bits */
        uint32_t u = (uint32_t)rng();
        if (((u >> 23) & 0xff) == 0xff) u &= ~(1u << 30);
        return test_float_of_bits(u);
    }
    case 1: { /* a sample of 8..16 bits (scaled as float_filter.h does), squared or not, times a tap */
        const unsigned bpc = 8 + (unsigned)(rng() % 9);
        const float x = (float)(rng() % (1u << bpc)) / (float)(1u << (bpc - 8));
        const float y = rng() % 3 ? x : x * x;
        return y * g[rng() % 6];
    }
    case 2: /* near 2^e0, a random 24-bit significand, e0 spread by a few */
        return sign * ldexpf(1.0f + (float)(rng() % (1u << 23)) / 8388608.0f,
                             e0 - (int)(rng() % 8));
    default: /* a power of two far below 2^e0: the grid's edge (span 40..60 bits) */
        return sign * ldexpf(1.0f, e0 - 40 - (int)(rng() % 21));
    }
}

/* the sum as the C form makes it (host double) */
static float fsum_double(const float *t, int n)
{
    double acc = 0.0;
    for (int i = 0; i < n; i++) acc += (double)t[i];
    return (float)acc;
}

/* the fixed-point form alone with shift s; 0 when it leaves the sum to the software double */
static int fsum_fixed(const float *t, int n, int s, float *out)
{
    uint32_t mx = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t m = vmaf_ssim_fsum_mag(t[i]);
        mx = m > mx ? m : mx;
    }
    VmafSsimFsum f;
    vmaf_ssim_fsum_init(&f, mx, s);
    for (int i = 0; i < n; i++) vmaf_ssim_fsum_add(&f, t[i]);
    *out = vmaf_ssim_fsum_float(&f);
    return vmaf_ssim_fsum_exact(&f);
}

/* vmaf_ssim_fsum_window and the fixed-point sum of a decimation against the C form, bit for
 * bit, on random terms of every kind, ties made on purpose, cancellations to 0, huge and
 * non-finite terms; both forms (fixed point, software double) must be exercised */
static void test_fsum(void)
{
    unsigned long n_fixed[2] = { 0, 0 }, n_cases[2] = { 0, 0 };
    for (unsigned it = 0; it < 400000; it++) {
        const int dec = it % 4 == 3; /* a decimation: up to 100 terms, S = 22 */
        const int n = dec ? 1 + (int)(rng() % 100) : 1 + (int)(rng() % 16);
        const int kind = (int)(it / 4 % 5);
        const int e0 = (int)(rng() % 200) - 120;
        float t[100];
        for (int i = 0; i < n; i++) t[i] = fsum_term(kind == 4 ? (i ? 3 : 2) : kind, e0);
        switch (it % 7) {
        case 1: /* a tie: big + half its ulp, or off it by small terms of either sign */
            if (n >= 4) {
                const float big = t[0];
                const int e = (int)((test_bits_of_float(big) >> 23) & 0xff) - 127;
                t[1] = ldexpf(1.0f, e - 24) * (rng() & 1 ? 1.0f : -1.0f);
                for (int i = 2; i < 4; i++)
                    t[i] = (rng() % 3) ? 0.0f
                                       : ldexpf(rng() & 1 ? 1.0f : -1.0f, e - 25 - (int)(rng() % 30));
                for (int i = 4; i < n; i++) t[i] = 0.0f * (rng() & 1 ? -1.0f : 1.0f);
            }
            break;
        case 2: /* cancellation to 0 (-0 terms too), or to a last term of any size */
            for (int i = 0; i + 1 < n; i += 2) t[i + 1] = -t[i];
            if (n % 2) t[n - 1] = rng() % 3 ? fsum_term(0, e0) : rng() & 1 ? -0.0f : 0.0f;
            break;
        case 3: /* huge, infinite or NaN */
            if (it % 21 == 3)
                t[rng() % n] = test_float_of_bits(0x7f800000u | (uint32_t)(rng() % 3 == 0) << 22);
            else
                t[rng() % n] = test_float_of_bits(0x7b000000u | (uint32_t)(rng() % 0x4000000u));
            break;
        }
        const float want = fsum_double(t, n);
        float got;
        int fixed;
        if (dec) {
            fixed = fsum_fixed(t, n, VMAF_SSIM_FSUM_SHIFT_DECIMATE, &got);
            if (!fixed) got = want; /* the software double: checked through the windows */
        } else {
            fixed = fsum_fixed(t, n, VMAF_SSIM_FSUM_SHIFT_WINDOW, &got);
            const float full = vmaf_ssim_fsum_window(t, n);
            CHECK(!fixed || test_bits_of_float(full) == test_bits_of_float(got),
                  "fsum: window form != fixed");
            got = full;
        }
        n_cases[dec]++;
        n_fixed[dec] += fixed != 0;
        CHECK(test_bits_of_float(got) == test_bits_of_float(want) || (want != want && got != got),
              "fsum (%s, kind %d, n %d, %s): %a, want %a", dec ? "decimation" : "window", kind, n,
              fixed ? "fixed point" : "software double", got, want);
    }
    for (int d = 0; d < 2; d++)
        CHECK(n_fixed[d] > n_cases[d] / 4 && n_fixed[d] < n_cases[d],
              "fsum: %lu of %lu %s sums in fixed point (both forms must be tried)", n_fixed[d],
              n_cases[d], d ? "decimation" : "window");
    printf("fsum: %lu window sums (%lu in fixed point), %lu decimation sums (%lu)\n", n_cases[0],
           n_fixed[0], n_cases[1], n_fixed[1]);
}
#endif

/* ---- pictures ----------------------------------------------------------------------------- */

enum Pattern { P_RANDOM, P_EXTREME, P_FLAT_MAX, P_FLAT_ZERO, P_NOISE, P_RAMP, P_COUNT };

static void set_sample(VmafPicture *pic, unsigned i, unsigned j, unsigned v)
{
    uint8_t *row = (uint8_t *)pic->data[0] + i * pic->stride[0];
    if (pic->bpc > 8) ((uint16_t *)row)[j] = (uint16_t)v;
    else row[j] = (uint8_t)v;
}

static void fill(VmafPicture *pic, enum Pattern pat, unsigned frame)
{
    const unsigned max = (1u << pic->bpc) - 1;
    for (unsigned i = 0; i < pic->h[0]; i++)
        for (unsigned j = 0; j < pic->w[0]; j++) {
            unsigned v = 0;
            switch (pat) {
            case P_RANDOM: v = rng() % (max + 1); break;
            case P_EXTREME: v = rng() & 1 ? max : 0; break;
            case P_FLAT_MAX: v = max; break;
            case P_FLAT_ZERO: v = 0; break;
            case P_NOISE: v = max / 2 + rng() % 9 - 4; break;
            default: v = ((i + 2 * j + 3 * frame) * (max / 61 + 1)) % (max + 1); break;
            }
            set_sample(pic, i, j, v);
        }
}

static int read_clip(VmafPicture *pic, const char *name, bool dis, unsigned k)
{
    return test_read_clip(clips_dir, pic, name, dis, k);
}

static void compare_runs(Run *cpu, Run *twin, unsigned frames, const char *what)
{
    static const char *const fixed[] = { "float_ssim", "float_ssim_l", "float_ssim_c",
                                         "float_ssim_s", "float_ms_ssim", NULL };
    char names[5 + 15][32];
    unsigned n_names = 0;
    for (unsigned n = 0; fixed[n]; n++) snprintf(names[n_names++], 32, "%s", fixed[n]);
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < VMAF_SSIM_SCALES; k++)
            snprintf(names[n_names++], 32, "float_ms_ssim_%c_scale%d", "lcs"[t], k);
    unsigned found = 0;
    for (unsigned n = 0; n < n_names; n++)
        for (unsigned i = 0; i < frames; i++) {
            double a, b;
            const int ea = vmaf_feature_collector_get_score(cpu->fc, names[n], &a, i);
            const int eb = vmaf_feature_collector_get_score(twin->fc, names[n], &b, i);
            CHECK(!ea == !eb, "%s: %s[%u] written by %s only", what, names[n], i,
                  ea ? "the twin" : "the CPU");
            if (ea || eb) continue;
            found++;
            CHECK((a == b && signbit(a) == signbit(b)) || (a != a && b != b),
                  "%s: %s[%u] cpu %.17g twin %.17g", what, names[n], i, a, b);
        }
    CHECK(found > 0, "%s: no score compared", what);
}

/* ---- the kernels' decomposition ---------------------------------------------------------- */

static VmafSsimSource samples_of(const VmafPicture *pic)
{
    const VmafSsimSource s = { (const uint8_t *)pic->data[0], (ptrdiff_t)pic->stride[0],
                               pic->bpc > 8 ? 1 : 0,
                               1.0f / vmaf_float_sample_divisor(pic->bpc) };
    return s;
}

static VmafSsimSource floats_of(const float *plane, int w)
{
    const VmafSsimSource s = { (const uint8_t *)plane, (ptrdiff_t)w * (ptrdiff_t)sizeof(float), 2,
                               1.0f };
    return s;
}

/* vmaf_ssim_decimate: one thread per output (both pictures), rows of w floats */
static void emu_decimate(const VmafSsimSource src[2], int w, int h, int f, const float *k,
                         int kw, int dw, int dh, float *dst[2])
{
    for (int p = 0; p < 2; p++)
        for (int y = 0; y < dh; y++)
            for (int x = 0; x < dw; x++)
                dst[p][(size_t)y * dw + x] = vmaf_ssim_decimate_at(&src[p], w, h, f, k, kw, y, x);
}

/* vmaf_ssim_tile, vmaf_ssim_rows, vmaf_ssim_plane for a w x h pair */
static void emu_sums(const VmafSsimSource *ref, const VmafSsimSource *cmp, int w, int h,
                     bool reverse, double sums[VMAF_SSIM_SUMS])
{
    const int nw = w - (VMAF_SSIM_WINDOW - 1), nh = h - (VMAF_SSIM_WINDOW - 1);
    for (int q = 0; q < VMAF_SSIM_SUMS; q++) sums[q] = 0.0;
    if (nw <= 0 || nh <= 0) return; /* the twin launches nothing; its sums stay 0 */
    const int n_seg = (nw + VMAF_SSIM_SEGMENT - 1) / VMAF_SSIM_SEGMENT;
    const int n_by = (nh + VMAF_SSIM_TILE_H - 1) / VMAF_SSIM_TILE_H;
    vmaf_double *partials = malloc((size_t)VMAF_SSIM_SUMS * nh * n_seg * sizeof(vmaf_double));
    vmaf_double *rows = malloc((size_t)VMAF_SSIM_SUMS * nh * sizeof(vmaf_double));
    VmafSsimTile *tile = malloc(sizeof(*tile));
    if (!partials || !rows || !tile) {
        CHECK(0, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < (size_t)VMAF_SSIM_SUMS * nh * n_seg; i++)
        partials[i] = vmaf_dof_bits(UINT64_C(0x7ff8000000000000)); /* NaN */
    float g[VMAF_SSIM_WINDOW];
    vmaf_ssim_window(g);
    const VmafSsimConst k = vmaf_ssim_const();
    for (int b = 0; b < n_seg * n_by; b++) {
        const int blk = reverse ? n_seg * n_by - 1 - b : b;
        const int bx = blk % n_seg, by = blk / n_seg;
        const int x0 = bx * VMAF_SSIM_TILE_W, y0 = by * VMAF_SSIM_TILE_H;
        memset(tile, 0xa5, sizeof(*tile)); /* garbage: only what the block writes is read */
        for (int i = 0; i < VMAF_SSIM_IN_H * VMAF_SSIM_IN_W; i++)
            vmaf_ssim_tile_load(tile, ref, cmp, w, h, y0, x0, i);
        for (int i = 0; i < VMAF_SSIM_IN_H * VMAF_SSIM_TILE_W; i++)
            vmaf_ssim_tile_horizontal(tile, g, i);
        const int n = nw - x0 < VMAF_SSIM_SEGMENT ? nw - x0 : VMAF_SSIM_SEGMENT;
        for (int warp = 0; warp < VMAF_SSIM_THREADS / 32; warp++)
            for (int r = warp; r < VMAF_SSIM_TILE_H && y0 + r < nh; r += VMAF_SSIM_THREADS / 32) {
                vmaf_double t[32][VMAF_SSIM_SUMS];
                for (int lane = 0; lane < 32; lane++) {
                    for (int q = 0; q < VMAF_SSIM_SUMS; q++) t[lane][q] = VMAF_DCONST(0.0, 0x0);
                    if (lane < n) vmaf_ssim_tile_terms(tile, g, &k, r, lane, t[lane]);
                }
                for (int q = 0; q < VMAF_SSIM_SUMS; q++) {
                    vmaf_double v[32];
                    for (int lane = 0; lane < 32; lane++) v[lane] = t[lane][q];
                    partials[((size_t)q * nh + y0 + r) * n_seg + bx] = vmaf_ssim_tree(v, n);
                }
            }
    }
    for (int q = 0; q < VMAF_SSIM_SUMS; q++)
        for (int y = 0; y < nh; y++) {
            const int yy = reverse ? nh - 1 - y : y;
            rows[(size_t)q * nh + yy] = vmaf_ssim_row_sum(partials, nh, n_seg, q, yy);
        }
    for (int q = 0; q < VMAF_SSIM_SUMS; q++) {
        vmaf_double lanes[VMAF_SSIM_LANES];
        for (int j = 0; j < VMAF_SSIM_LANES; j++)
            lanes[j] = vmaf_ssim_lane_sum(rows + (size_t)q * nh, nh, j);
        sums[q] = host_double(vmaf_ssim_tree(lanes, nh < VMAF_SSIM_LANES ? nh : VMAF_SSIM_LANES));
    }
done:
    free(partials);
    free(rows);
    free(tile);
}

/* The reference's order: one serial double sum of the plane, row-major (informational). */
static void serial_means(const VmafSsimPlane *a, const VmafSsimPlane *b, VmafSsimMeans *m)
{
    const int w = a->w, h = a->h, nw = w - 10, nh = h - 10;
    float g[VMAF_SSIM_WINDOW];
    vmaf_ssim_window(g);
    const VmafSsimConst k = vmaf_ssim_const();
    double sums[4] = { 0.0, 0.0, 0.0, 0.0 };
    float *hp = malloc((size_t)5 * w * h * sizeof(float));
    if (!hp || nw <= 0 || nh <= 0) {
        free(hp);
        return;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < nw; x++) {
            double acc[5] = { 0 };
            for (int u = 0; u < 11; u++) {
                const float p = a->data[y * a->stride + x + u], c = b->data[y * b->stride + x + u];
                const float pp = p * p, cc = c * c, pc = p * c;
                acc[0] += (double)(p * g[u]);
                acc[1] += (double)(c * g[u]);
                acc[2] += (double)(pp * g[u]);
                acc[3] += (double)(cc * g[u]);
                acc[4] += (double)(pc * g[u]);
            }
            for (int q = 0; q < 5; q++) hp[((size_t)q * h + y) * w + x] = (float)acc[q];
        }
    for (int y = 0; y < nh; y++)
        for (int x = 0; x < nw; x++) {
            float o[5];
            for (int q = 0; q < 5; q++) {
                double acc = 0.0;
                for (int v = 0; v < 11; v++) acc += (double)(hp[((size_t)q * h + y + v) * w + x] * g[v]);
                o[q] = (float)acc;
            }
            vmaf_double t[4];
            vmaf_ssim_terms(&k, o[0], o[1], o[2], o[3], o[4], t);
            for (int q = 0; q < 4; q++) sums[q] += host_double(t[q]);
        }
    free(hp);
    vmaf_ssim_means_from_sums(sums, nw, nh, m);
}

/* the emulated sums (bit for bit) and means against the CPU's on the CPU instance's planes */
static void check_means(const VmafSsimPlane *a, const VmafSsimPlane *b,
                        const double sums[VMAF_SSIM_SUMS], const VmafSsimMeans *got,
                        const char *what, int scale)
{
    VmafSsimWorkspace ws;
    VmafSsimMeans want;
    double want_sums[VMAF_SSIM_SUMS];
    CHECK(!vmaf_ssim_workspace_init(&ws, a->w), "workspace");
    CHECK(!vmaf_ssim_sums(VMAF_FLOAT_IMPL_BEST, &ws, a->data, b->data, a->stride, a->w, a->h,
                          want_sums), "sums");
    vmaf_ssim_means_from_sums(want_sums, a->w - 10, a->h - 10, &want); /* = vmaf_ssim_means */
    vmaf_ssim_workspace_close(&ws);
    CHECK(!memcmp(want_sums, sums, sizeof(want_sums)),
          "%s scale %d: sums cpu %.17g %.17g %.17g %.17g twin %.17g %.17g %.17g %.17g", what,
          scale, want_sums[0], want_sums[1], want_sums[2], want_sums[3], sums[0], sums[1],
          sums[2], sums[3]);
    CHECK(!memcmp(&want, got, sizeof(want)),
          "%s scale %d: means cpu %.9g %.9g %.9g %.9g twin %.9g %.9g %.9g %.9g", what, scale,
          want.ssim, want.l, want.c, want.s, got->ssim, got->l, got->c, got->s);
    if (a->w > 10 && a->h > 10 && a->w * a->h <= 400000) { /* keeps the sanitized run short */
        VmafSsimMeans ser;
        serial_means(a, b, &ser);
        serial_compared += 4;
        serial_differ += (ser.ssim != want.ssim) + (ser.l != want.l) + (ser.c != want.c) +
                         (ser.s != want.s);
    }
}

static void check_plane(const float *twin, int w, int h, const VmafSsimPlane *cpu,
                        const char *what, int scale)
{
    bool same = cpu->w == w && cpu->h == h;
    for (int y = 0; same && y < h; y++)
        same = !memcmp(twin + (size_t)y * w, cpu->data + y * cpu->stride, (size_t)w * sizeof(float));
    CHECK(same, "%s: decimated plane of scale %d (%dx%d) differs", what, scale, w, h);
}

/* the float_ssim twin for one frame, after the CPU extractor has run it (its planes) */
static int twin_ssim_frame(const FloatSsimState *cpu, const FloatSsimState *st,
                           const VmafPicture *ref, const VmafPicture *dis, unsigned index,
                           VmafFeatureSink *sink, bool reverse, const char *what)
{
    double sums[VMAF_SSIM_SUMS] = { 0.0, 0.0, 0.0, 0.0 };
    int pw = st->w, ph = st->h;
    VmafSsimSource src[2] = { samples_of(ref), samples_of(dis) };
    float *dec[2] = { NULL, NULL };
    if (st->scale > 1) {
        pw = st->dec_w;
        ph = st->dec_h;
        if (pw >= VMAF_SSIM_WINDOW && ph >= VMAF_SSIM_WINDOW) {
            dec[0] = malloc((size_t)pw * ph * sizeof(float));
            dec[1] = malloc((size_t)pw * ph * sizeof(float));
            if (!dec[0] || !dec[1]) return -ENOMEM;
            emu_decimate(src, st->w, st->h, st->scale, st->kernel_taps, st->scale, pw, ph, dec);
            check_plane(dec[0], pw, ph, &cpu->ref_dec, what, 1);
            check_plane(dec[1], pw, ph, &cpu->cmp_dec, what, 1);
            src[0] = floats_of(dec[0], pw);
            src[1] = floats_of(dec[1], pw);
            emu_sums(&src[0], &src[1], pw, ph, reverse, sums);
        }
    } else {
        emu_sums(&src[0], &src[1], pw, ph, reverse, sums);
    }
    free(dec[0]);
    free(dec[1]);
    VmafSsimMeans m;
    vmaf_ssim_means_from_sums(sums, pw - 10, ph - 10, &m);
    if (st->scale == 1) check_means(&cpu->ref, &cpu->cmp, sums, &m, what, 0);
    else if (cpu->dec_w && cpu->dec_h) check_means(&cpu->ref_dec, &cpu->cmp_dec, sums, &m, what, 1);
    return vmaf_float_ssim_store(st, &m, index, sink);
}

static int twin_ms_ssim_frame(const FloatMsSsimState *cpu, const FloatMsSsimState *st,
                              const VmafPicture *ref, const VmafPicture *dis, unsigned index,
                              VmafFeatureSink *sink, bool reverse, const char *what)
{
    VmafSsimMeans m[VMAF_SSIM_SCALES];
    VmafSsimSource src[2] = { samples_of(ref), samples_of(dis) };
    float *planes[VMAF_SSIM_SCALES][2] = { { NULL } };
    int err = 0;
    for (int k = 0; !err && k < VMAF_SSIM_SCALES; k++) {
        const int w = st->ref[k].w, h = st->ref[k].h;
        if (k > 0) {
            planes[k][0] = malloc((size_t)w * h * sizeof(float));
            planes[k][1] = malloc((size_t)w * h * sizeof(float));
            if (!planes[k][0] || !planes[k][1]) {
                err = -ENOMEM;
                break;
            }
            emu_decimate(src, st->ref[k - 1].w, st->ref[k - 1].h, 2, st->lpf, VMAF_SSIM_LPF, w, h,
                         planes[k]);
            check_plane(planes[k][0], w, h, &cpu->ref[k], what, k);
            check_plane(planes[k][1], w, h, &cpu->cmp[k], what, k);
            src[0] = floats_of(planes[k][0], w);
            src[1] = floats_of(planes[k][1], w);
        }
        double sums[VMAF_SSIM_SUMS];
        emu_sums(&src[0], &src[1], w, h, reverse, sums);
        vmaf_ssim_means_from_sums(sums, w - 10, h - 10, &m[k]);
        check_means(&cpu->ref[k], &cpu->cmp[k], sums, &m[k], what, k);
    }
    for (int k = 0; k < VMAF_SSIM_SCALES; k++) {
        free(planes[k][0]);
        free(planes[k][1]);
    }
    return err ? err : vmaf_float_ms_ssim_store(st, m, index, sink);
}

/* ---- cases ------------------------------------------------------------------------------------ */

typedef struct Case {
    unsigned w, h, bpc, frames;
    enum VmafPixelFormat fmt;
    enum Pattern pat;
    const char *clip;
} Case;

static void run_extractor(const Case *c, VmafPicture *ref, VmafPicture *dis, bool ms,
                          const char *const *opts, const char *what)
{
    const VmafFeatureGeometry g = { .pix_fmt = c->fmt, .bpc = c->bpc, .w = c->w, .h = c->h,
                                    .log_level = VMAF_LOG_LEVEL_NONE };
    const char *name = ms ? "float_ms_ssim" : "float_ssim";
    Run cpu, twin;
    int err = run_open(&cpu, name, opts, &g);
    if (!err) err = run_open(&twin, name, opts, &g);
    CHECK(!err, "%s: open %s %d", what, name, err);
    for (unsigned k = 0; !err && k < c->frames; k++) {
        const VmafFeatureFrame frame = { .ref = &ref[k], .dist = &dis[k], .index = k };
        CHECK(!cpu.fex->extract(cpu.priv, &frame, &cpu.sink), "%s: cpu extract", what);
        const bool reverse = k & 1;
        err = ms ? twin_ms_ssim_frame(cpu.priv, twin.priv, &ref[k], &dis[k], k, &twin.sink,
                                      reverse, what)
                 : twin_ssim_frame(cpu.priv, twin.priv, &ref[k], &dis[k], k, &twin.sink, reverse,
                                   what);
        CHECK(!err, "%s: twin frame %u: %d", what, k, err);
    }
    if (!err) compare_runs(&cpu, &twin, c->frames, what);
    run_close(&cpu);
    run_close(&twin);
}

static const char *const ssim_opts[][9] = {
    { NULL },
    { "enable_lcs", "true", NULL },
    { "scale", "1", "enable_lcs", "true", NULL },
    { "scale", "2", "enable_lcs", "true", "enable_db", "true", "clip_db", "true", NULL },
    { "scale", "3", "enable_db", "true", NULL },
    { "scale", "4", "enable_lcs", "true", NULL },
    { "scale", "5", NULL },
    { "scale", "7", "enable_lcs", "true", NULL },
    { "scale", "10", "enable_lcs", "true", NULL },
};
enum { N_SSIM_OPTS = sizeof(ssim_opts) / sizeof(ssim_opts[0]) };

static const char *const ms_opts[][7] = {
    { NULL },
    { "enable_lcs", "true", NULL },
    { "enable_lcs", "true", "enable_db", "true", "clip_db", "true", NULL },
};

static void run_case(const Case *c, bool all_opts)
{
    VmafPicture ref[6], dis[6];
    memset(ref, 0, sizeof(ref));
    memset(dis, 0, sizeof(dis));
    char what[200];
    snprintf(what, sizeof(what), "%ux%u %u-bit fmt %d %s%s (seed %llu)", c->w, c->h, c->bpc,
             (int)c->fmt, c->clip ? "clip " : "pattern", c->clip ? c->clip : "",
             (unsigned long long)rng_state);
    if (!c->clip) snprintf(what + strlen(what), sizeof(what) - strlen(what), " %d", (int)c->pat);
    int err = 0;
    for (unsigned k = 0; !err && k < c->frames; k++) {
        if (vmaf_picture_alloc(&ref[k], c->fmt, c->bpc, c->w, c->h) ||
            vmaf_picture_alloc(&dis[k], c->fmt, c->bpc, c->w, c->h)) {
            err = -ENOMEM;
            break;
        }
        if (c->clip) {
            err = read_clip(&ref[k], c->clip, false, k) || read_clip(&dis[k], c->clip, true, k);
            continue;
        }
        fill(&ref[k], c->pat, k);
        if (k % 3 == 2)
            memcpy(dis[k].data[0], ref[k].data[0], ref[k].stride[0] * ref[k].h[0]);
        else
            fill(&dis[k], c->pat == P_FLAT_MAX ? P_FLAT_ZERO : c->pat, k + 7);
    }
    CHECK(!err, "%s: frames", what);
    if (!err) {
        for (unsigned o = 0; o < N_SSIM_OPTS; o++) {
            if (!all_opts && o != 0 && o != 1 + (c->w + c->h) % (N_SSIM_OPTS - 1)) continue;
            char label[300];
            snprintf(label, sizeof(label), "%s float_ssim opts %u", what, o);
            run_extractor(c, ref, dis, false, ssim_opts[o], label);
        }
        if (c->w >= 176 && c->h >= 176) /* the smallest MS-SSIM accepts */
            for (unsigned o = 0; o < 3; o++) {
                if (!all_opts && o != c->w % 3) continue;
                char label[300];
                snprintf(label, sizeof(label), "%s float_ms_ssim opts %u", what, o);
                run_extractor(c, ref, dis, true, ms_opts[o], label);
            }
    }
    for (unsigned k = 0; k < c->frames; k++) {
        if (ref[k].ref) vmaf_picture_unref(&ref[k]);
        if (dis[k].ref) vmaf_picture_unref(&dis[k]);
    }
}

int main(int argc, char **argv)
{
    clips_dir = argc > 1 ? argv[1] : NULL;
    rng_state = 0x55117a1bull;
#if VMAF_DOUBLE_SOFT
    test_fsum();
#endif
    static const unsigned sizes[][2] = { { 1, 1 }, { 3, 3 }, { 10, 10 }, { 11, 11 }, { 12, 11 },
                                         { 11, 45 }, { 42, 42 }, { 43, 43 }, { 44, 75 },
                                         { 75, 44 }, { 97, 53 }, { 176, 176 }, { 177, 183 },
                                         { 257, 145 }, { 320, 181 }, { 353, 289 } };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    unsigned n = 0;
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (unsigned bpc = 8; bpc <= 16; bpc++) {
            const bool big = sizes[s][0] * sizes[s][1] > 50000;
            if (big && bpc != 8 && bpc != 10 && bpc != 16) continue;
            const Case c = { .w = sizes[s][0], .h = sizes[s][1], .bpc = bpc, .frames = 3,
                             .fmt = fmts[(s + bpc) % 3], .pat = (enum Pattern)((s + bpc) % P_COUNT) };
            run_case(&c, !big && (s % 3 == 0 || bpc == 12));
            n++;
        }
    for (int p = 0; p < P_COUNT; p++) { /* every pattern at the smallest MS-SSIM size */
        const Case c = { .w = 176, .h = 177, .bpc = p % 2 ? 12 : 8, .frames = 3,
                         .fmt = VMAF_PIX_FMT_YUV420P, .pat = (enum Pattern)p };
        run_case(&c, true);
        n++;
    }
    if (!clips_dir) { /* 1080p (the clips have one) */
        const Case c = { .w = 1920, .h = 1080, .bpc = 10, .frames = 2,
                         .fmt = VMAF_PIX_FMT_YUV420P, .pat = P_NOISE };
        run_case(&c, false);
        n++;
    }
    if (clips_dir) {
        static const Case clips[] = {
            { 576, 324, 8, 3, VMAF_PIX_FMT_YUV420P, 0, "boats_576x324_420p" },
            { 352, 288, 8, 3, VMAF_PIX_FMT_YUV444P, 0, "cups_352x288_444p" },
            { 320, 180, 16, 3, VMAF_PIX_FMT_YUV420P, 0, "deep_320x180_420p16" },
            { 576, 324, 10, 3, VMAF_PIX_FMT_YUV420P, 0, "forest_576x324_420p10" },
            { 1920, 1080, 8, 2, VMAF_PIX_FMT_YUV420P, 0, "jetty_1920x1080_420p" },
        };
        for (unsigned i = 0; i < sizeof(clips) / sizeof(clips[0]); i++) {
            run_case(&clips[i], i < 2);
            n++;
        }
    }
    printf("ssim_twin%s: %u cases, %d checks, %d failures; means differing from the reference's "
           "serial sum: %u of %u\n",
           VMAF_DOUBLE_SOFT ? " (software double)" : "", n, checks, failures, serial_differ,
           serial_compared);
    return failures ? 1 : 0;
}
