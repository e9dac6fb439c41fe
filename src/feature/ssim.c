/*
 * Twin VMAF — the SSIM building blocks shared by float_ssim and float_ms_ssim (ssim.h
 * describes the arithmetic).
 *
 * The reference filters whole planes (a horizontal pass into a cache, then a vertical pass,
 * per quantity). Here each input row is filtered horizontally once into a ring of the last
 * 11 rows per quantity, and each output row is made from the ring as soon as its 11 rows are
 * in; every output sum still receives its products in tap order, in double, so the bits are
 * the reference's. The compiler vectorizes across outputs (float products widened to double,
 * no reassociation). The per-pixel terms are summed in ssim_device.h's order (segments,
 * rows, lanes), which the GPU twin reproduces; the reference's single serial sum differs from
 * it by a few ulps of a double, below the float rounding of the means on every golden run.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ssim.h"
#include "ssim_device.h"

enum { QUANTITIES = 5 }; /* ref, cmp, ref*ref, cmp*cmp, ref*cmp */

int vmaf_ssim_plane_alloc(VmafSsimPlane *p, int w, int h)
{
    memset(p, 0, sizeof(*p));
    if (w <= 0 || h <= 0) return -EINVAL;
    p->w = w;
    p->h = h;
    /* rows of a multiple of 8 floats, the margins included */
    p->stride = ((ptrdiff_t)w + 2 * VMAF_SSIM_MARGIN + 7) / 8 * 8;
    p->buf = malloc((size_t)p->stride * (size_t)h * sizeof(float));
    if (!p->buf) return -ENOMEM;
    p->data = p->buf + VMAF_SSIM_MARGIN;
    return 0;
}

void vmaf_ssim_plane_free(VmafSsimPlane *p)
{
    free(p->buf);
    memset(p, 0, sizeof(*p));
}

void vmaf_ssim_plane_fill_margins(VmafSsimPlane *p)
{
    for (int y = 0; y < p->h; y++) {
        float *row = p->data + y * p->stride;
        for (int q = 1; q <= VMAF_SSIM_MARGIN; q++) {
            row[-q] = row[vmaf_ssim_reflect(-q, p->w)];
            row[p->w - 1 + q] = row[vmaf_ssim_reflect(p->w - 1 + q, p->w)];
        }
    }
}

int vmaf_ssim_workspace_init(VmafSsimWorkspace *ws, int max_w)
{
    memset(ws, 0, sizeof(*ws));
    if (max_w <= 0) return -EINVAL;
    const size_t n = (size_t)max_w + 1;
    ws->max_w = max_w;
    ws->acc = malloc(n * sizeof(double));
    ws->ring = malloc(QUANTITIES * VMAF_SSIM_WINDOW * n * sizeof(float));
    ws->prod = malloc(3 * n * sizeof(float));
    ws->win = malloc(QUANTITIES * n * sizeof(float));
    ws->terms = malloc(3 * n * sizeof(double));
    if (!ws->acc || !ws->ring || !ws->prod || !ws->win || !ws->terms) {
        vmaf_ssim_workspace_close(ws);
        return -ENOMEM;
    }
    return 0;
}

void vmaf_ssim_workspace_close(VmafSsimWorkspace *ws)
{
    free(ws->acc);
    free(ws->ring);
    free(ws->prod);
    free(ws->win);
    free(ws->terms);
    memset(ws, 0, sizeof(*ws));
}

void vmaf_ssim_means_from_sums(const double sums[4], int nw, int nh, VmafSsimMeans *out)
{
    /* the reference's int product; 64-bit here so that huge planes do not overflow */
    const double count = (double)((long long)nw * nh);
    out->ssim = (float)(sums[0] / count);
    out->l = (float)(sums[1] / count);
    out->c = (float)(sums[2] / count);
    out->s = (float)(sums[3] / count);
}

/* ---- kernels (inlined into a plain and an AVX2 build) -------------------------------- */

/* out[x] = (float) sum_u (double)(float)(in[x + u] g[u]), x < n. The tap loop is innermost
 * with a constant trip count, so it unrolls and the x loop vectorizes, with each sum kept in
 * a register in tap order. */
VMAF_FLOAT_INLINE void window_row(const float *g, const float *VMAF_FLOAT_RESTRICT in, int n,
                                  float *VMAF_FLOAT_RESTRICT out)
{
    float t[VMAF_SSIM_WINDOW];
    for (int u = 0; u < VMAF_SSIM_WINDOW; u++)
        t[u] = g[u];
    for (int x = 0; x < n; x++) {
        double sum = 0.0;
        for (int u = 0; u < VMAF_SSIM_WINDOW; u++)
            sum += (double)(in[x + u] * t[u]);
        out[x] = (float)sum;
    }
}

/* out[x] = (float) sum_v (double)(float)(rows[v][x] g[v]), x < n. */
VMAF_FLOAT_INLINE void window_column(const float *g, const float *const *rows, int n,
                                     float *VMAF_FLOAT_RESTRICT out)
{
    float t[VMAF_SSIM_WINDOW];
    const float *r[VMAF_SSIM_WINDOW];
    for (int v = 0; v < VMAF_SSIM_WINDOW; v++) {
        t[v] = g[v];
        r[v] = rows[v];
    }
    for (int x = 0; x < n; x++) {
        double sum = 0.0;
        for (int v = 0; v < VMAF_SSIM_WINDOW; v++)
            sum += (double)(r[v][x] * t[v]);
        out[x] = (float)sum;
    }
}

VMAF_FLOAT_INLINE void pixel_row(const VmafSsimConst *k, const float *const *win, int n,
                                 double *VMAF_FLOAT_RESTRICT l, double *VMAF_FLOAT_RESTRICT c,
                                 double *VMAF_FLOAT_RESTRICT s)
{
    const float *VMAF_FLOAT_RESTRICT mu1 = win[0];
    const float *VMAF_FLOAT_RESTRICT mu2 = win[1];
    const float *VMAF_FLOAT_RESTRICT xx = win[2];
    const float *VMAF_FLOAT_RESTRICT yy = win[3];
    const float *VMAF_FLOAT_RESTRICT xy = win[4];
    for (int x = 0; x < n; x++)
        vmaf_ssim_pixel(k, mu1[x], mu2[x], xx[x], yy[x], xy[x], &l[x], &c[x], &s[x]);
}

VMAF_FLOAT_INLINE void products_row(const float *VMAF_FLOAT_RESTRICT a,
                                    const float *VMAF_FLOAT_RESTRICT b, int n,
                                    float *VMAF_FLOAT_RESTRICT aa,
                                    float *VMAF_FLOAT_RESTRICT bb,
                                    float *VMAF_FLOAT_RESTRICT ab)
{
    for (int x = 0; x < n; x++) {
        aa[x] = a[x] * a[x];
        bb[x] = b[x] * b[x];
        ab[x] = a[x] * b[x];
    }
}

/* The passes of sums_kernel: both planes (FUSED); the reference's window outputs mu1 and
 * xx only, into side rows (REF: cmp unread, no sums); the rest with mu1 and xx from side
 * rows (DIS). The same functions on the same values, so the same bits. */
enum { SSIM_FUSED, SSIM_REF, SSIM_DIS };

VMAF_FLOAT_INLINE void sums_kernel(VmafSsimWorkspace *ws, const float *ref, ptrdiff_t ref_stride,
                                   const float *cmp, ptrdiff_t cmp_stride, int w, int h,
                                   double sums[4], const int mode, float *side_mu,
                                   float *side_xx, ptrdiff_t side_stride)
{
    const int nw = w - (VMAF_SSIM_WINDOW - 1), nh = h - (VMAF_SSIM_WINDOW - 1);
    const VmafSsimConst k = vmaf_ssim_const();
    float g[VMAF_SSIM_WINDOW];
    vmaf_ssim_window(g);
    for (int q = 0; q < VMAF_SSIM_SUMS; q++)
        sums[q] = 0.0;
    double lanes[VMAF_SSIM_SUMS][VMAF_SSIM_LANES] = { { 0.0 } };

    if (nw > 0 && nh > 0) {
        const size_t n = (size_t)ws->max_w + 1;
        float *ring[QUANTITIES][VMAF_SSIM_WINDOW];
        for (int q = 0; q < QUANTITIES; q++)
            for (int v = 0; v < VMAF_SSIM_WINDOW; v++)
                ring[q][v] = ws->ring + (q * VMAF_SSIM_WINDOW + v) * n;
        float *prod[3] = { ws->prod, ws->prod + n, ws->prod + 2 * n };
        float *win[QUANTITIES];
        for (int q = 0; q < QUANTITIES; q++)
            win[q] = ws->win + q * n;
        double *tl = ws->terms, *tc = ws->terms + n, *ts = ws->terms + 2 * n;
        /* the quantities each pass filters: ref and ref*ref (0, 2) are the reference's */
        const bool ref_q = mode != SSIM_DIS, dis_q = mode != SSIM_REF;

        for (int r = 0; r < h; r++) {
            const float *a = ref + r * ref_stride;
            const int slot = r % VMAF_SSIM_WINDOW;
            if (mode == SSIM_REF) {
                for (int x = 0; x < w; x++)
                    prod[0][x] = a[x] * a[x];
            } else {
                const float *b = cmp + r * cmp_stride;
                products_row(a, b, w, prod[0], prod[1], prod[2]);
                window_row(g, b, nw, ring[1][slot]);
                window_row(g, prod[1], nw, ring[3][slot]);
                window_row(g, prod[2], nw, ring[4][slot]);
            }
            if (ref_q) {
                window_row(g, a, nw, ring[0][slot]);
                window_row(g, prod[0], nw, ring[2][slot]);
            }
            if (r < VMAF_SSIM_WINDOW - 1) continue;

            const int y = r - (VMAF_SSIM_WINDOW - 1); /* output row: input rows y .. r */
            for (int q = 0; q < QUANTITIES; q++) {
                const bool of_ref = q == 0 || q == 2;
                if (of_ref ? !ref_q : !dis_q) continue;
                const float *rows[VMAF_SSIM_WINDOW];
                for (int v = 0; v < VMAF_SSIM_WINDOW; v++)
                    rows[v] = ring[q][(y + v) % VMAF_SSIM_WINDOW];
                float *out = win[q];
                if (mode == SSIM_REF)
                    out = (q ? side_xx : side_mu) + y * side_stride;
                window_column(g, rows, nw, out);
            }
            if (mode == SSIM_REF) continue;
            const float *wins[QUANTITIES] = { win[0], win[1], win[2], win[3], win[4] };
            if (mode == SSIM_DIS) {
                wins[0] = side_mu + y * side_stride;
                wins[2] = side_xx + y * side_stride;
            }
            pixel_row(&k, wins, nw, tl, tc, ts);
            /* ssim_device.h's order: segments by the tree, rows serially, rows into lanes */
            double row[VMAF_SSIM_SUMS] = { 0.0, 0.0, 0.0, 0.0 };
            for (int x0 = 0; x0 < nw; x0 += VMAF_SSIM_SEGMENT) {
                const int cnt = nw - x0 < VMAF_SSIM_SEGMENT ? nw - x0 : VMAF_SSIM_SEGMENT;
                double v[VMAF_SSIM_SUMS][VMAF_SSIM_SEGMENT];
                for (int j = 0; j < cnt; j++) {
                    const int x = x0 + j;
                    v[0][j] = tl[x] * tc[x] * ts[x];
                    v[1][j] = tl[x];
                    v[2][j] = tc[x];
                    v[3][j] = ts[x];
                }
                for (int q = 0; q < VMAF_SSIM_SUMS; q++)
                    row[q] += vmaf_ssim_tree(v[q], cnt);
            }
            for (int q = 0; q < VMAF_SSIM_SUMS; q++)
                lanes[q][y % VMAF_SSIM_LANES] += row[q];
        }
        const int n_lanes = nh < VMAF_SSIM_LANES ? nh : VMAF_SSIM_LANES;
        if (mode != SSIM_REF)
            for (int q = 0; q < VMAF_SSIM_SUMS; q++)
                sums[q] = vmaf_ssim_tree(lanes[q], n_lanes);
    }
}

VMAF_FLOAT_INLINE void decimate_kernel(VmafSsimWorkspace *ws, const VmafSsimPlane *src,
                                       int factor, const float *k, int kw, VmafSsimPlane *dst)
{
    const int radius = kw / 2, last = radius - (kw % 2 == 0 ? 1 : 0);
    double *VMAF_FLOAT_RESTRICT acc = ws->acc;
    const int sw = dst->w;
    for (int y = 0; y < dst->h; y++) {
        for (int x = 0; x < sw; x++)
            acc[x] = 0.0;
        const float *kv = k;
        for (int v = -radius; v <= last; v++) {
            const float *row = src->data + vmaf_ssim_reflect(y * factor + v, src->h) * src->stride;
            for (int u = -radius; u <= last; u++, kv++) {
                const float ku = *kv;
                const float *VMAF_FLOAT_RESTRICT in = row + u;
                if (factor == 2) {
                    for (int x = 0; x < sw; x++)
                        acc[x] += (double)(in[2 * x] * ku);
                } else {
                    for (int x = 0; x < sw; x++)
                        acc[x] += (double)(in[x * factor] * ku);
                }
            }
        }
        float *out = dst->data + y * dst->stride;
        for (int x = 0; x < sw; x++)
            out[x] = (float)acc[x];
    }
}

/* ---- builds ------------------------------------------------------------------------- */

/* Every pass in each build, the mode a constant of each. */
#define DEFINE_SUMS(NAME, MODE, TARGET)                                                      \
    TARGET static void NAME(VmafSsimWorkspace *ws, const float *ref, ptrdiff_t ref_stride,   \
                            const float *cmp, ptrdiff_t cmp_stride, int w, int h,            \
                            double sums[4], float *mu, float *xx, ptrdiff_t side_stride)     \
    {                                                                                        \
        sums_kernel(ws, ref, ref_stride, cmp, cmp_stride, w, h, sums, MODE, mu, xx,          \
                    side_stride);                                                            \
    }

typedef void (*SumsFn)(VmafSsimWorkspace *, const float *, ptrdiff_t, const float *, ptrdiff_t,
                       int, int, double *, float *, float *, ptrdiff_t);

DEFINE_SUMS(sums_plain, SSIM_FUSED, )
DEFINE_SUMS(sums_plain_ref, SSIM_REF, )
DEFINE_SUMS(sums_plain_dis, SSIM_DIS, )

static void decimate_plain(VmafSsimWorkspace *ws, const VmafSsimPlane *src, int factor,
                           const float *k, int kw, VmafSsimPlane *dst)
{
    decimate_kernel(ws, src, factor, k, kw, dst);
}

#ifdef VMAF_FLOAT_HAVE_AVX2
DEFINE_SUMS(sums_avx2, SSIM_FUSED, VMAF_FLOAT_TARGET_AVX2)
DEFINE_SUMS(sums_avx2_ref, SSIM_REF, VMAF_FLOAT_TARGET_AVX2)
DEFINE_SUMS(sums_avx2_dis, SSIM_DIS, VMAF_FLOAT_TARGET_AVX2)

VMAF_FLOAT_TARGET_AVX2
static void decimate_avx2(VmafSsimWorkspace *ws, const VmafSsimPlane *src, int factor,
                          const float *k, int kw, VmafSsimPlane *dst)
{
    decimate_kernel(ws, src, factor, k, kw, dst);
}
#endif

/* The build of impl (resolved) for a pass. */
static SumsFn sums_fn(enum VmafFloatImpl impl, int mode)
{
#ifdef VMAF_FLOAT_HAVE_AVX2
    if (impl == VMAF_FLOAT_IMPL_AVX2)
        return mode == SSIM_REF ? sums_avx2_ref : mode == SSIM_DIS ? sums_avx2_dis : sums_avx2;
#else
    (void)impl;
#endif
    return mode == SSIM_REF ? sums_plain_ref : mode == SSIM_DIS ? sums_plain_dis : sums_plain;
}

int vmaf_ssim_ref_windows(enum VmafFloatImpl impl, VmafSsimWorkspace *ws, const float *ref,
                          ptrdiff_t stride, int w, int h, float *mu, float *xx,
                          ptrdiff_t side_stride)
{
    const int err = vmaf_float_impl_resolve(&impl);
    if (err) return err;
    if (w > ws->max_w || w < 0 || h < 0 || side_stride < w - (VMAF_SSIM_WINDOW - 1))
        return -EINVAL;
    double sums[VMAF_SSIM_SUMS];
    sums_fn(impl, SSIM_REF)(ws, ref, stride, NULL, 0, w, h, sums, mu, xx, side_stride);
    return 0;
}

int vmaf_ssim_sums_from_windows(enum VmafFloatImpl impl, VmafSsimWorkspace *ws,
                                const float *ref, ptrdiff_t ref_stride, const float *cmp,
                                ptrdiff_t cmp_stride, int w, int h, const float *mu,
                                const float *xx, ptrdiff_t side_stride, double sums[4])
{
    const int err = vmaf_float_impl_resolve(&impl);
    if (err) return err;
    if (w > ws->max_w || w < 0 || h < 0 || side_stride < w - (VMAF_SSIM_WINDOW - 1))
        return -EINVAL;
    /* the DIS pass only reads the side rows (the casts drop no promise) */
    sums_fn(impl, SSIM_DIS)(ws, ref, ref_stride, cmp, cmp_stride, w, h, sums, (float *)mu,
                            (float *)xx, side_stride);
    return 0;
}

int vmaf_ssim_sums(enum VmafFloatImpl impl, VmafSsimWorkspace *ws, const float *ref,
                   const float *cmp, ptrdiff_t stride, int w, int h, double sums[4])
{
    const int err = vmaf_float_impl_resolve(&impl);
    if (err) return err;
    if (w > ws->max_w || w < 0 || h < 0) return -EINVAL; /* 0 rows or columns: empty */
    sums_fn(impl, SSIM_FUSED)(ws, ref, stride, cmp, stride, w, h, sums, NULL, NULL, 0);
    return 0;
}

int vmaf_ssim_means(enum VmafFloatImpl impl, VmafSsimWorkspace *ws, const float *ref,
                    const float *cmp, ptrdiff_t stride, int w, int h, VmafSsimMeans *out)
{
    double sums[VMAF_SSIM_SUMS];
    const int err = vmaf_ssim_sums(impl, ws, ref, cmp, stride, w, h, sums);
    if (!err)
        vmaf_ssim_means_from_sums(sums, w - (VMAF_SSIM_WINDOW - 1), h - (VMAF_SSIM_WINDOW - 1),
                                  out);
    return err;
}

int vmaf_ssim_decimate(enum VmafFloatImpl impl, VmafSsimWorkspace *ws, const VmafSsimPlane *src,
                       int factor, const float *k, int kw, VmafSsimPlane *dst)
{
    const int err = vmaf_float_impl_resolve(&impl);
    if (err) return err;
    if (factor < 1 || kw < 1 || kw / 2 > VMAF_SSIM_MARGIN || dst->w > ws->max_w ||
        dst->w != vmaf_ssim_decimated(src->w, factor) ||
        dst->h != vmaf_ssim_decimated(src->h, factor))
        return -EINVAL;
#ifdef VMAF_FLOAT_HAVE_AVX2
    if (impl == VMAF_FLOAT_IMPL_AVX2) {
        decimate_avx2(ws, src, factor, k, kw, dst);
        vmaf_ssim_plane_fill_margins(dst);
        return 0;
    }
#endif
    decimate_plain(ws, src, factor, k, kw, dst);
    vmaf_ssim_plane_fill_margins(dst);
    return 0;
}
