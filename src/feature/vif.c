/*
 * Twin VMAF — integer VIF: extractor "vif" (vif.h describes the arithmetic).
 *
 * Per scale, each output row is made in three steps: a vertical pass over the filter's rows
 * (mirrored row pointers; nothing is padded in memory) into row buffers with mirrored
 * margins, a horizontal pass from those into three sigma rows, and a scalar pass that
 * accumulates the log and non-log sums. Subsampling makes only the even rows and the even
 * columns that the decimation keeps. Every pass reads 16-bit samples: 8-bit input is
 * widened row by row as the passes reach it (a ring of rows, vif_internal.h).
 *
 * Integer ranges. The reference sums the squares in 64 bits; here the filters run in
 * uint32 lanes, which vectorize well. A square (or product) of two 16-bit values, and a
 * vertical square sum, is split into 2^16 hi + lo; the two halves are filtered separately
 * (each sum stays below 2^32 because the filters sum to 2^16) and recombined with the
 * rounding shift q <= 16:  (2^16 A + B + r) >> q = (A << (16 - q)) + ((B + r) >> q),
 * exact because 2^16 A is a multiple of 2^q. The vertical pass stores the squares already
 * split, for the horizontal one. Plain uint32 sums are used where they cannot wrap: the
 * means, and the 8-bit squares at scale 0 (below 2^16 * 255^2).
 *
 * Vectorization. gcc -O2 vectorizes loops with a constant trip count, so every pass works
 * on fixed blocks of columns (the rest of a row goes through the same code one column at a
 * time), keeps its accumulators in small local arrays (at most eight vectors), and stores
 * through restrict-qualified parameters. That is the plain build and VMAF_VIF_IMPL_AVX2; on
 * x86-64 most passes also have hand-written AVX2/AVX-512 forms with 16-bit multiply-adds
 * (see vif_simd.c), which vmaf_vif_compute() uses where the CPU runs them.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "feature_extractor.h"
#include "libvmaf/picture.h"
#include "vif.h"

#include "vif_internal.h"


/* ------------------------------------------------------------------------------------- */
/* Log2 table                                                                            */

void vmaf_vif_log2_table_fill(uint16_t table[VMAF_VIF_LOG2_TABLE_LEN])
{
    for (unsigned n = 0; n < VMAF_VIF_LOG2_TABLE_LEN; n++) {
        const unsigned i = VMAF_VIF_LOG2_TABLE_FIRST + n;
        /* log2 rounded once to float (correctly rounded here; glibc's log2f is off by an
         * ulp for a few i, which changes no entry), scaled exactly, rounded half away */
        const float l = (float)log2((double)i);
        table[n] = (uint16_t)round(l * 2048.0f);
    }
}

static enum VmafVifImpl vif_best_impl(void);

/* ------------------------------------------------------------------------------------- */
/* Workspace                                                                             */

/* struct VmafVifWorkspace: vif_internal.h */

int vmaf_vif_workspace_alloc(VmafVifWorkspace **out, unsigned w, unsigned h, unsigned bpc)
{
    if (!out || !w || !h || bpc < 8 || bpc > 16 || w > (1u << 24) || h > (1u << 24))
        return -EINVAL;
    *out = NULL;

    VmafVifWorkspace *ws = calloc(1, sizeof(*ws));
    if (!ws)
        return -ENOMEM;
    ws->w = w;
    ws->h = h;
    ws->bpc = bpc;

    const size_t row = (size_t)w + 2 * PAD;
    const size_t split_row = (size_t)w / 2 + 1 + 2 * SUB_PAD;
    size_t img = 0;
    for (int s = 1; s < VMAF_VIF_SCALES; s++)
        img += (size_t)(w >> s) * (h >> s);
    const size_t n32 = 10 * row + 4 * split_row + 3 * (size_t)w;
    ws->block = malloc(n32 * sizeof(uint32_t) + 2 * img * sizeof(uint16_t));
    if (!ws->block) {
        free(ws);
        return -ENOMEM;
    }

    uint32_t *p = ws->block;
    uint32_t **rows[] = { &ws->mu1,   &ws->mu2,   &ws->xx_hi,    &ws->xx_lo,   &ws->yy_hi,
                          &ws->yy_lo, &ws->xy_hi, &ws->xy_lo, &ws->conv_ref, &ws->conv_dis };
    for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++, p += row)
        *rows[r] = p + PAD;
    uint32_t **split_rows[] = { &ws->even_ref, &ws->odd_ref, &ws->even_dis, &ws->odd_dis };
    for (size_t r = 0; r < sizeof(split_rows) / sizeof(split_rows[0]); r++, p += split_row)
        *split_rows[r] = p + SUB_PAD;
    ws->sigma_xx = (int32_t *)p;
    ws->sigma_yy = (int32_t *)p + w;
    ws->sigma_xy = (int32_t *)p + 2 * (size_t)w;
    p += 3 * (size_t)w;

    uint16_t *q = (uint16_t *)p;
    for (int s = 1; s < VMAF_VIF_SCALES; s++) {
        const size_t n = (size_t)(w >> s) * (h >> s);
        ws->img_ref[s] = q;
        ws->img_dis[s] = q + n;
        q += 2 * n;
    }
    {
        const size_t row16 = (size_t)w + 2 * MARGIN16;
        ws->block16 = calloc(8 * row16, sizeof(uint16_t));
        if (!ws->block16) {
            free(ws->block);
            free(ws);
            return -ENOMEM;
        }
        for (int r = 0; r < 8; r++)
            ws->row16[r] = (uint16_t *)ws->block16 + r * row16 + MARGIN16;
    }
    if (bpc == 8) {
        const size_t pitch = ((size_t)w + 31) / 32 * 32;
        ws->ring_block = calloc(2 * VIF_RING_ROWS * pitch, sizeof(uint16_t));
        if (!ws->ring_block) {
            vmaf_vif_workspace_free(&ws);
            return -ENOMEM;
        }
        ws->ring_ref.rows = ws->ring_block;
        ws->ring_dis.rows = ws->ring_ref.rows + VIF_RING_ROWS * pitch;
        ws->ring_ref.pitch = ws->ring_dis.pitch = pitch;
    }
    ws->best = vif_best_impl();
    vmaf_vif_log2_table_fill(ws->log2_table);
    *out = ws;
    return 0;
}

void vmaf_vif_workspace_free(VmafVifWorkspace **ws)
{
    if (!ws || !*ws)
        return;
    free((*ws)->block);
    free((*ws)->block16);
    free((*ws)->ring_block);
    free(*ws);
    *ws = NULL;
}

/* ------------------------------------------------------------------------------------- */
/* Kernels                                                                               */

/* Plane, mirror(), gather_rows(), filter_of_width(): vif_internal.h */

/* Fill `margin` columns on both sides of a row of n >= 1 values by reflection. */
static void mirror_margins(uint32_t *row, int n, int margin)
{
    for (int k = 1; k <= margin; k++) {
        row[-k] = row[mirror(-k, n)];
        row[n - 1 + k] = row[mirror(n - 1 + k, n)];
    }
}

/*
 * The filters are symmetric, so every pass sums over tap pairs: rows (or columns) k and
 * fw-1-k with coefficient f[k], for k = 0 .. half. The last pair is the centre with itself
 * at half its coefficient, exact because every centre coefficient is even. One loop shape
 * for all taps keeps the compiler from unrolling a separate centre step into scalar code.
 */
static uint32_t pair_coefficient(const uint16_t *f, int k, int half)
{
    return k < half ? f[k] : f[half] / 2u;
}

/* A new frame's 8-bit plane behind a ring: no slot holds one of its rows yet. */
static void ring_start(VifRowRing *r, const void *src, ptrdiff_t stride)
{
    r->src = src;
    r->stride = stride;
    for (int k = 0; k < VIF_RING_ROWS; k++)
        r->row_of[k] = -1;
}

/* Rounding shift of n vertical sums into a row. */
VIF_INLINE void store_shifted(const uint32_t *sum, uint32_t *restrict out, int shift, int n)
{
    const uint32_t rnd = shift ? 1u << (shift - 1) : 0;
    for (int t = 0; t < n; t++)
        out[t] = (sum[t] + rnd) >> shift;
}

/* Store n uint32 values as their 16-bit halves, ready for the horizontal pass. */
VIF_INLINE void store_halves(const uint32_t *v, uint32_t *restrict out_hi,
                             uint32_t *restrict out_lo, int n)
{
    for (int t = 0; t < n; t++) {
        out_hi[t] = v[t] >> 16;
        out_lo[t] = v[t] & LO16;
    }
}

/* Recombine n split sums (hi, lo) with the rounding shift q (see the top of this file) and
 * store the result as its 16-bit halves. */
VIF_INLINE void store_split(const uint32_t *hi, const uint32_t *lo, uint32_t *restrict out_hi,
                            uint32_t *restrict out_lo, int q, int n)
{
    const uint32_t rnd = 1u << (q - 1);
    for (int t = 0; t < n; t++) {
        const uint32_t v = (hi[t] << (16 - q)) + ((lo[t] + rnd) >> q);
        out_hi[t] = v >> 16;
        out_lo[t] = v & LO16;
    }
}

/* The uint32 product of two values that fit 16 bits, written so that the compiler sees
 * 16-bit operands. */
#define MUL16(a, b) ((uint32_t)(uint16_t)(a) * (uint16_t)(b))

/*
 * Statistic, vertical pass, 8-bit samples (q = 0), over columns [j0, j0 + n): the means
 * and the ref squares (part a) or the dis squares and the products (part b), as plain
 * uint32 sums. rr/dr are the fw ref/dis row pointers. Two parts of at most three sums each
 * stay within the vector registers.
 */
VIF_INLINE void stat_vertical_plain(const uint16_t *const *rr, const uint16_t *const *dr,
                                    const int fw, const int part_b, const int mu_shift,
                                    const VmafVifWorkspace *ws, const int j0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t s0[BLOCK_V] = { 0 }, s1[BLOCK_V] = { 0 }, s2[BLOCK_V] = { 0 };

    for (int k = 0; k <= half; k++) {
        /* 8-bit samples: pair sums and products fit 16 bits, so each term is a 16 x 16 ->
         * 32-bit multiply (cheaper than a 32-bit one); sums of two squares need 17 bits */
        const uint16_t fk = (uint16_t)pair_coefficient(f, k, half);
        const uint16_t *ra = rr[k] + j0, *rb = rr[fw - 1 - k] + j0;
        const uint16_t *da = dr[k] + j0, *db = dr[fw - 1 - k] + j0;
        for (int t = 0; t < n; t++) {
            const uint16_t xa = ra[t], xb = rb[t], ya = da[t], yb = db[t];
            if (part_b) {
                s0[t] += MUL16(fk, ya * ya) + MUL16(fk, yb * yb);
                s1[t] += MUL16(fk, xa * ya) + MUL16(fk, xb * yb);
            } else {
                s0[t] += MUL16(fk, xa + xb);
                s1[t] += MUL16(fk, ya + yb);
                s2[t] += MUL16(fk, xa * xa) + MUL16(fk, xb * xb);
            }
        }
    }
    if (part_b) {
        store_halves(s0, ws->yy_hi + j0, ws->yy_lo + j0, n);
        store_halves(s1, ws->xy_hi + j0, ws->xy_lo + j0, n);
    } else {
        store_shifted(s0, ws->mu1 + j0, mu_shift, n);
        store_shifted(s1, ws->mu2 + j0, mu_shift, n);
        store_halves(s2, ws->xx_hi + j0, ws->xx_lo + j0, n);
    }
}

/* Split sums of products a*b of 16-bit values: hi += f (a b >> 16), lo += f (a b & 0xffff);
 * for a pair of rows the halves of both products are added first. */
#define SPLIT_PRODUCT_PAIR(hi, lo, fk, a0, b0, a1, b1)                                   \
    do {                                                                                 \
        const uint32_t p0 = (a0) * (b0), p1 = (a1) * (b1);                               \
        hi += (fk) * ((p0 >> 16) + (p1 >> 16));                                          \
        lo += (fk) * ((p0 & LO16) + (p1 & LO16));                                        \
    } while (0)

/*
 * Statistic, vertical pass, 16-bit values, first half: the means and the ref squares.
 * Split into two passes of four sums each to stay within the vector registers.
 */
VIF_INLINE void stat_vertical_split_a(const uint16_t *const *rr, const uint16_t *const *dr,
                                      const int fw, const int mu_shift, const int q,
                                      const VmafVifWorkspace *ws, const int j0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t m1[BLOCK_V] = { 0 }, m2[BLOCK_V] = { 0 }, hi[BLOCK_V] = { 0 }, lo[BLOCK_V] = { 0 };

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const uint16_t *ra = rr[k] + j0, *rb = rr[fw - 1 - k] + j0;
        const uint16_t *da = dr[k] + j0, *db = dr[fw - 1 - k] + j0;
        for (int t = 0; t < n; t++) {
            const uint32_t xa = ra[t], xb = rb[t], ya = da[t], yb = db[t];
            m1[t] += fk * (xa + xb);
            m2[t] += fk * (ya + yb);
            SPLIT_PRODUCT_PAIR(hi[t], lo[t], fk, xa, xa, xb, xb);
        }
    }
    store_shifted(m1, ws->mu1 + j0, mu_shift, n);
    store_shifted(m2, ws->mu2 + j0, mu_shift, n);
    store_split(hi, lo, ws->xx_hi + j0, ws->xx_lo + j0, q, n);
}

/* Statistic, vertical pass, 16-bit values, second half: the dis squares and the products. */
VIF_INLINE void stat_vertical_split_b(const uint16_t *const *rr, const uint16_t *const *dr,
                                      const int fw, const int q, const VmafVifWorkspace *ws,
                                      const int j0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t yh[BLOCK_V] = { 0 }, yl[BLOCK_V] = { 0 }, ch[BLOCK_V] = { 0 }, cl[BLOCK_V] = { 0 };

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const uint16_t *ra = rr[k] + j0, *rb = rr[fw - 1 - k] + j0;
        const uint16_t *da = dr[k] + j0, *db = dr[fw - 1 - k] + j0;
        for (int t = 0; t < n; t++) {
            const uint32_t xa = ra[t], xb = rb[t], ya = da[t], yb = db[t];
            SPLIT_PRODUCT_PAIR(yh[t], yl[t], fk, ya, ya, yb, yb);
            SPLIT_PRODUCT_PAIR(ch[t], cl[t], fk, xa, ya, xb, yb);
        }
    }
    store_split(yh, yl, ws->yy_hi + j0, ws->yy_lo + j0, q, n);
    store_split(ch, cl, ws->xy_hi + j0, ws->xy_lo + j0, q, n);
}

/* The three sigmas of n columns from the horizontal sums (split ones for the squares). */
VIF_INLINE void store_sigmas(const uint32_t *m1, const uint32_t *m2, const uint32_t *xh,
                             const uint32_t *xl, const uint32_t *yh, const uint32_t *yl,
                             const uint32_t *ch, const uint32_t *cl,
                             int32_t *restrict sigma_xx, int32_t *restrict sigma_yy,
                             int32_t *restrict sigma_xy, int n)
{
    for (int t = 0; t < n; t++) {
        const uint32_t exx = xh[t] + ((xl[t] + 0x8000u) >> 16);
        const uint32_t eyy = yh[t] + ((yl[t] + 0x8000u) >> 16);
        const uint32_t exy = ch[t] + ((cl[t] + 0x8000u) >> 16);
        const uint32_t mu1_sq = (uint32_t)(((uint64_t)m1[t] * m1[t] + 0x80000000u) >> 32);
        const uint32_t mu2_sq = (uint32_t)(((uint64_t)m2[t] * m2[t] + 0x80000000u) >> 32);
        const uint32_t mu1_mu2 = (uint32_t)(((uint64_t)m1[t] * m2[t] + 0x80000000u) >> 32);
        const int32_t syy = (int32_t)(eyy - mu2_sq);
        sigma_xx[t] = (int32_t)(exx - mu1_sq);
        sigma_yy[t] = syy > 0 ? syy : 0;
        sigma_xy[t] = (int32_t)(exy - mu1_mu2);
    }
}

/*
 * Statistic, horizontal pass over columns [j0, j0 + n) of the vertical rows (margins
 * filled): the sigma rows. The squares arrive as 16-bit halves; each half is filtered on
 * its own (see the top of this file).
 */
VIF_INLINE void stat_horizontal(const int fw, const VmafVifWorkspace *ws, const int j0,
                                const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    const uint32_t *m1 = ws->mu1 + j0, *m2 = ws->mu2 + j0;
    const uint32_t *xh = ws->xx_hi + j0, *xl = ws->xx_lo + j0;
    const uint32_t *yh = ws->yy_hi + j0, *yl = ws->yy_lo + j0;
    const uint32_t *ch = ws->xy_hi + j0, *cl = ws->xy_lo + j0;
    uint32_t acc[8][BLOCK_H] = { { 0 } };

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const int a = k - half, b = half - k;
        for (int t = 0; t < n; t++) {
            acc[0][t] += fk * (m1[t + a] + m1[t + b]);
            acc[1][t] += fk * (m2[t + a] + m2[t + b]);
            acc[2][t] += fk * (xh[t + a] + xh[t + b]);
            acc[3][t] += fk * (xl[t + a] + xl[t + b]);
            acc[4][t] += fk * (yh[t + a] + yh[t + b]);
            acc[5][t] += fk * (yl[t + a] + yl[t + b]);
            acc[6][t] += fk * (ch[t + a] + ch[t + b]);
            acc[7][t] += fk * (cl[t + a] + cl[t + b]);
        }
    }
    store_sigmas(acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7],
                 ws->sigma_xx + j0, ws->sigma_yy + j0, ws->sigma_xy + j0, n);
}

/* stat_accumulate_part(), stat_accumulate(): vif_internal.h */

/*
 * Statistic of one scale. fw: filter width; split: 16-bit values (else 8-bit samples, with
 * plain square sums); mu_shift and q: the vertical shifts of vif.h.
 */
VIF_INLINE void stat_scale(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                           const int fw, const int split, const int mu_shift, const int q,
                           double egl, VmafVifSums *sums)
{
    const int w = ref->w, h = ref->h, half = fw / 2;
    const uint16_t *rr[VMAF_VIF_MAX_FILTER_WIDTH], *dr[VMAF_VIF_MAX_FILTER_WIDTH];

    for (int i = 0; i < h; i++) {
        gather_rows(ref, i, fw, rr);
        gather_rows(dis, i, fw, dr);
        int j = 0;
        if (split) {
            for (; j + BLOCK_V <= w; j += BLOCK_V) {
                stat_vertical_split_a(rr, dr, fw, mu_shift, q, ws, j, BLOCK_V);
                stat_vertical_split_b(rr, dr, fw, q, ws, j, BLOCK_V);
            }
            for (; j < w; j++) {
                stat_vertical_split_a(rr, dr, fw, mu_shift, q, ws, j, 1);
                stat_vertical_split_b(rr, dr, fw, q, ws, j, 1);
            }
        } else {
            for (; j + BLOCK_V <= w; j += BLOCK_V) {
                stat_vertical_plain(rr, dr, fw, 0, mu_shift, ws, j, BLOCK_V);
                stat_vertical_plain(rr, dr, fw, 1, mu_shift, ws, j, BLOCK_V);
            }
            for (; j < w; j++) {
                stat_vertical_plain(rr, dr, fw, 0, mu_shift, ws, j, 1);
                stat_vertical_plain(rr, dr, fw, 1, mu_shift, ws, j, 1);
            }
        }

        uint32_t *const rows[] = { ws->mu1,   ws->mu2,   ws->xx_hi, ws->xx_lo,
                                   ws->yy_hi, ws->yy_lo, ws->xy_hi, ws->xy_lo };
        for (int r = 0; r < 8; r++)
            mirror_margins(rows[r], w, half);

        for (j = 0; j + BLOCK_H <= w; j += BLOCK_H)
            stat_horizontal(fw, ws, j, BLOCK_H);
        for (; j < w; j++)
            stat_horizontal(fw, ws, j, 1);

        stat_accumulate(ws, w, egl, sums);
    }
}

/* Subsampling, vertical pass over columns [j0, j0 + n) of both planes. */
VIF_INLINE void sub_vertical(const uint16_t *const *rr, const uint16_t *const *dr,
                             const int fw, const int shift, const VmafVifWorkspace *ws,
                             const int j0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t ar[BLOCK_V] = { 0 }, ad[BLOCK_V] = { 0 };

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const uint16_t *ra = rr[k] + j0, *rb = rr[fw - 1 - k] + j0;
        const uint16_t *da = dr[k] + j0, *db = dr[fw - 1 - k] + j0;
        for (int t = 0; t < n; t++) {
            ar[t] += fk * ((uint32_t)ra[t] + rb[t]);
            ad[t] += fk * ((uint32_t)da[t] + db[t]);
        }
    }
    store_shifted(ar, ws->conv_ref + j0, shift, n);
    store_shifted(ad, ws->conv_dis + j0, shift, n);
}

VIF_INLINE void store_sub(const uint32_t *acc, uint16_t *restrict out, int n)
{
    for (int t = 0; t < n; t++)
        out[t] = (uint16_t)((acc[t] + 0x8000u) >> 16);
}

/*
 * Subsampling, horizontal pass: output columns [m0, m0 + n), i.e. input columns 2m. The
 * input row is split into its even and odd columns (ev[m] = v[2m], od[m] = v[2m + 1]), so
 * every tap is a contiguous load: offset 2e reads ev[m + e], offset 2e + 1 reads od[m + e].
 */
VIF_INLINE void sub_horizontal(const int fw, const uint32_t *ev, const uint32_t *od,
                               uint16_t *out, const int m0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t acc[BLOCK_H] = { 0 };

    for (int d = 0; d <= half; d++) {
        const uint32_t fk = pair_coefficient(f, half - d, half);
        /* offsets -d and +d */
        const uint32_t *lo = d & 1 ? od - (d + 1) / 2 : ev - d / 2;
        const uint32_t *hi = d & 1 ? od + (d - 1) / 2 : ev + d / 2;
        for (int t = 0; t < n; t++)
            acc[t] += fk * (lo[m0 + t] + hi[m0 + t]);
    }
    store_sub(acc, out + m0, n);
}

/* Split row[-2 SUB_PAD .. 2 (n + SUB_PAD)) into its even and odd columns. */
static void deinterleave(const uint32_t *row, uint32_t *restrict ev, uint32_t *restrict od,
                         int n)
{
    for (int m = -SUB_PAD; m < n + SUB_PAD; m++) {
        ev[m] = row[2 * m];
        od[m] = row[2 * m + 1];
    }
}

/* Subsample src (w x h) into dst images of (w/2) x (h/2); filter width fw, vertical shift. */
VIF_INLINE void subsample(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                          uint16_t *dst_ref, uint16_t *dst_dis, const int fw, const int shift)
{
    const int w = ref->w, h = ref->h;
    const int w2 = w / 2, h2 = h / 2;
    const uint16_t *rr[VMAF_VIF_MAX_FILTER_WIDTH], *dr[VMAF_VIF_MAX_FILTER_WIDTH];

    for (int i2 = 0; i2 < h2; i2++) {
        gather_rows(ref, 2 * i2, fw, rr);
        gather_rows(dis, 2 * i2, fw, dr);
        int j = 0;
        for (; j + BLOCK_V <= w; j += BLOCK_V)
            sub_vertical(rr, dr, fw, shift, ws, j, BLOCK_V);
        for (; j < w; j++)
            sub_vertical(rr, dr, fw, shift, ws, j, 1);
        /* full margins, so that the split rows are defined wherever they are read */
        mirror_margins(ws->conv_ref, w, PAD);
        mirror_margins(ws->conv_dis, w, PAD);
        deinterleave(ws->conv_ref, ws->even_ref, ws->odd_ref, w2);
        deinterleave(ws->conv_dis, ws->even_dis, ws->odd_dis, w2);

        uint16_t *const out_r = dst_ref + (size_t)i2 * w2;
        uint16_t *const out_d = dst_dis + (size_t)i2 * w2;
        int m = 0;
        for (; m + BLOCK_H <= w2; m += BLOCK_H) {
            sub_horizontal(fw, ws->even_ref, ws->odd_ref, out_r, m, BLOCK_H);
            sub_horizontal(fw, ws->even_dis, ws->odd_dis, out_d, m, BLOCK_H);
        }
        for (; m < w2; m++) {
            sub_horizontal(fw, ws->even_ref, ws->odd_ref, out_r, m, 1);
            sub_horizontal(fw, ws->even_dis, ws->odd_dis, out_d, m, 1);
        }
    }
}

/* The hand-written AVX2 and AVX-512 passes (VMAF_VIF_IMPL_AVX2_MADD, VMAF_VIF_IMPL_AVX512)
 * are in vif_simd.c. */


VIF_INLINE void vif_compute_kernels(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                                 const void *dis, ptrdiff_t dis_stride, double egl,
                                 bool skip_scale0, VmafVifSums *sums, const int fast)
{
    const int bpc = (int)ws->bpc, w = (int)ws->w, h = (int)ws->h;
    Plane pr, pd;

    if (bpc == 8) {
        ring_start(&ws->ring_ref, ref, ref_stride);
        ring_start(&ws->ring_dis, dis, dis_stride);
        pr = (Plane){ NULL, 0, w, h, &ws->ring_ref };
        pd = (Plane){ NULL, 0, w, h, &ws->ring_dis };
    } else {
        pr = (Plane){ ref, ref_stride / 2, w, h, NULL };
        pd = (Plane){ dis, dis_stride / 2, w, h, NULL };
    }

    memset(sums, 0, VMAF_VIF_SCALES * sizeof(*sums));
    if (!skip_scale0) {
        if (bpc == 8 && fast) {
#ifdef VIF_HAVE_AVX2
            if (fast == 2)
                vmaf_vif_stat_scale0_8_avx512(ws, &pr, &pd, egl, &sums[0]);
            else
                vmaf_vif_stat_scale0_8_avx2(ws, &pr, &pd, egl, &sums[0]);
#endif
        } else if (bpc == 8) {
            stat_scale(ws, &pr, &pd, 17, 0, 8, 0, egl, &sums[0]);
        } else if (fast) {
#ifdef VIF_HAVE_AVX2
            vmaf_vif_stat_scale16_avx2(ws, &pr, &pd, 17, bpc, 2 * (bpc - 8), fast == 2, egl,
                                       &sums[0]);
#endif
        } else {
            stat_scale(ws, &pr, &pd, 17, 1, bpc, 2 * (bpc - 8), egl, &sums[0]);
        }
    }

    for (int s = 1; s < VMAF_VIF_SCALES; s++) {
        const int w2 = pr.w / 2, h2 = pr.h / 2;
        if (w2 <= 0 || h2 <= 0)
            break; /* an empty scale, and all after it: their sums stay zero */
        const int fw = vmaf_vif_filter_width[s];
        const int shift = s == 1 ? bpc : 16;
        if (fast && fw != 3) {
#ifdef VIF_HAVE_AVX2
            vmaf_vif_subsample_avx2_any(ws, &pr, &pd, ws->img_ref[s], ws->img_dis[s], fw,
                                        s == 1 && bpc == 8, shift);
#endif
        } else if (fw == 9)
            subsample(ws, &pr, &pd, ws->img_ref[s], ws->img_dis[s], 9, shift);
        else if (fw == 5)
            subsample(ws, &pr, &pd, ws->img_ref[s], ws->img_dis[s], 5, shift);
        else
            subsample(ws, &pr, &pd, ws->img_ref[s], ws->img_dis[s], 3, shift);
        pr = (Plane){ ws->img_ref[s], w2, w2, h2, NULL };
        pd = (Plane){ ws->img_dis[s], w2, w2, h2, NULL };

        if (fast && fw != 3) {
#ifdef VIF_HAVE_AVX2
            vmaf_vif_stat_scale16_avx2(ws, &pr, &pd, fw, 16, 16, fast == 2, egl, &sums[s]);
#endif
        } else if (fw == 9)
            stat_scale(ws, &pr, &pd, 9, 1, 16, 16, egl, &sums[s]);
        else if (fw == 5)
            stat_scale(ws, &pr, &pd, 5, 1, 16, 16, egl, &sums[s]);
        else
            stat_scale(ws, &pr, &pd, 3, 1, 16, 16, egl, &sums[s]);
    }
}

/* One plain build of the kernels, and on x86-64 with GCC/Clang a second one for AVX2,
 * chosen at run time. Both compute the same integers and doubles (no contraction).
 * gcc -O3 would unroll-and-jam pairs of tap iterations into the lane loops, which then run
 * out of vector registers (30 % slower: bench/bench_frames --backend cpu --features vif
 * compares builds), so the builds opt out of that one transformation. */
#if defined(__GNUC__) && !defined(__clang__)
#define VIF_NO_UNROLL_JAM __attribute__((optimize("no-loop-unroll-and-jam")))
#else
#define VIF_NO_UNROLL_JAM
#endif

VIF_NO_UNROLL_JAM
static void vif_compute_plain(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                              const void *dis, ptrdiff_t dis_stride, double egl,
                              bool skip_scale0, VmafVifSums *sums)
{
    vif_compute_kernels(ws, ref, ref_stride, dis, dis_stride, egl, skip_scale0, sums, 0);
}

#ifdef VIF_HAVE_AVX2
/* fast: the hand-written scale 0 of 8-bit input (VMAF_VIF_IMPL_AVX2_MADD) */
__attribute__((target("avx2"))) VIF_NO_UNROLL_JAM
static void vif_compute_avx2(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                             const void *dis, ptrdiff_t dis_stride, double egl,
                             bool skip_scale0, VmafVifSums *sums, int fast)
{
    if (fast == 2)
        vif_compute_kernels(ws, ref, ref_stride, dis, dis_stride, egl, skip_scale0, sums, 2);
    else if (fast)
        vif_compute_kernels(ws, ref, ref_stride, dis, dis_stride, egl, skip_scale0, sums, 1);
    else
        vif_compute_kernels(ws, ref, ref_stride, dis, dis_stride, egl, skip_scale0, sums, 0);
}
#endif

static bool vif_cpu_has_avx2(void)
{
#ifdef VIF_HAVE_AVX2
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

static bool vif_cpu_has_avx512(void)
{
#ifdef VIF_HAVE_AVX2
    return vif_cpu_has_avx2() && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
}

static enum VmafVifImpl vif_best_impl(void)
{
    return vif_cpu_has_avx512() ? VMAF_VIF_IMPL_AVX512
           : vif_cpu_has_avx2() ? VMAF_VIF_IMPL_AVX2_MADD
                                : VMAF_VIF_IMPL_PLAIN;
}

int vmaf_vif_compute_with(enum VmafVifImpl impl, VmafVifWorkspace *ws, const void *ref,
                          ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride,
                          double enhn_gain_limit, bool skip_scale0,
                          VmafVifSums sums[VMAF_VIF_SCALES])
{
    if (impl == VMAF_VIF_IMPL_BEST)
        impl = ws->best; /* chosen once, when the workspace was allocated */
    switch (impl) {
    case VMAF_VIF_IMPL_PLAIN:
        vif_compute_plain(ws, ref, ref_stride, dis, dis_stride, enhn_gain_limit, skip_scale0,
                          sums);
        return 0;
    case VMAF_VIF_IMPL_AVX2:
    case VMAF_VIF_IMPL_AVX2_MADD:
#ifdef VIF_HAVE_AVX2
        if (vif_cpu_has_avx2()) {
            vif_compute_avx2(ws, ref, ref_stride, dis, dis_stride, enhn_gain_limit,
                             skip_scale0, sums, impl == VMAF_VIF_IMPL_AVX2_MADD);
            return 0;
        }
#endif
        return -ENOTSUP;
    case VMAF_VIF_IMPL_AVX512:
#ifdef VIF_HAVE_AVX2
        if (vif_cpu_has_avx512()) {
            vif_compute_avx2(ws, ref, ref_stride, dis, dis_stride, enhn_gain_limit,
                             skip_scale0, sums, 2);
            return 0;
        }
#endif
        return -ENOTSUP;
    default:
        return -EINVAL;
    }
}

void vmaf_vif_compute(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                      const void *dis, ptrdiff_t dis_stride, double enhn_gain_limit,
                      bool skip_scale0, VmafVifSums sums[VMAF_VIF_SCALES])
{
    (void)vmaf_vif_compute_with(VMAF_VIF_IMPL_BEST, ws, ref, ref_stride, dis, dis_stride,
                                enhn_gain_limit, skip_scale0, sums);
}

/* ------------------------------------------------------------------------------------- */
/* Extractor                                                                             */

/* VifState: vif.h */

#define OPT_AT(field) (offsetof(VifState, opt) + offsetof(VmafVifOptions, field))

static const VmafOption vif_options[] = {
    {
        .name = "debug",
        .help = "also write integer_vif and the numerators and denominators",
        .offset = OPT_AT(debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "vif_enhn_gain_limit",
        .alias = "egl",
        .help = "largest enhancement gain credited to the distorted signal "
                "(1.0 credits none)",
        .offset = OPT_AT(enhn_gain_limit),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_VIF_DEFAULT_ENHN_GAIN_LIMIT,
        .min = 1.0,
        .max = VMAF_VIF_DEFAULT_ENHN_GAIN_LIMIT,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_skip_scale0",
        .alias = "ssclz",
        .help = "skip scale 0 and write 0 as its score",
        .offset = OPT_AT(skip_scale0),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 },
};

static const char *const vif_features[] = {
    "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
    "integer_vif", "integer_vif_num", "integer_vif_den",
    "integer_vif_num_scale0", "integer_vif_den_scale0",
    "integer_vif_num_scale1", "integer_vif_den_scale1",
    "integer_vif_num_scale2", "integer_vif_den_scale2",
    "integer_vif_num_scale3", "integer_vif_den_scale3",
    NULL,
};

static int vif_init(void *priv, const VmafFeatureGeometry *g)
{
    VifState *s = priv;
    s->log_level = g->log_level;
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "vif: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    s->w = g->w;
    s->h = g->h;
    s->bpc = g->bpc;
    const int err = vmaf_vif_workspace_alloc(&s->ws, g->w, g->h, g->bpc);
    if (err)
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR, "vif: cannot allocate buffers\n");
    return err;
}

static void vif_close(void *priv)
{
    VifState *s = priv;
    vmaf_vif_workspace_free(&s->ws);
}

static int append(VmafFeatureSink *sink, const char *name, double v, unsigned index, int err)
{
    return err ? err : vmaf_feature_sink_append(sink, name, v, index);
}

static int vif_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    VifState *s = priv;
    const VmafVifOptions *o = &s->opt;
    const VmafPicture *ref = frame->ref, *dis = frame->dist;
    if (!s->ws || !ref || !dis || !ref->data[0] || !dis->data[0] || ref->bpc != s->bpc ||
        dis->bpc != s->bpc || ref->w[0] != s->w || ref->h[0] != s->h || dis->w[0] != s->w ||
        dis->h[0] != s->h) {
        vmaf_log(s->log_level, VMAF_LOG_LEVEL_ERROR,
                 "vif: pictures do not match the initialised geometry\n");
        return -EINVAL;
    }

    VmafVifSums sums[VMAF_VIF_SCALES];
    vmaf_vif_compute(s->ws, ref->data[0], ref->stride[0], dis->data[0], dis->stride[0],
                     o->enhn_gain_limit, o->skip_scale0, sums);
    return vmaf_vif_store(o, sums, frame->index, sink);
}

int vmaf_vif_store(const VmafVifOptions *o, const VmafVifSums sums[VMAF_VIF_SCALES],
                   unsigned idx, VmafFeatureSink *sink)
{
    float num[VMAF_VIF_SCALES], den[VMAF_VIF_SCALES];
    for (int k = 0; k < VMAF_VIF_SCALES; k++) {
        num[k] = vmaf_vif_num(&sums[k]);
        den[k] = vmaf_vif_den(&sums[k]);
    }
    if (o->skip_scale0) { /* what the reference reports for the skipped scale */
        num[0] = 0.0f;
        den[0] = -1.0f;
    }

    int err = 0;
    err = append(sink, vif_features[0], o->skip_scale0 ? 0.0f : num[0] / den[0], idx, err);
    for (int k = 1; k < VMAF_VIF_SCALES; k++)
        err = append(sink, vif_features[k], num[k] / den[k], idx, err);
    if (err || !o->debug)
        return err;

    /* the totals leave the skipped scale out */
    double score_num = 0., score_den = 0.;
    for (int k = o->skip_scale0 ? 1 : 0; k < VMAF_VIF_SCALES; k++) {
        score_num += (double)num[k];
        score_den += (double)den[k];
    }
    const double score = score_den == 0.0 ? 1.0 : score_num / score_den;
    err = append(sink, "integer_vif", score, idx, err);
    err = append(sink, "integer_vif_num", score_num, idx, err);
    err = append(sink, "integer_vif_den", score_den, idx, err);
    for (int k = 0; k < VMAF_VIF_SCALES; k++) {
        err = append(sink, vif_features[7 + 2 * k], num[k], idx, err);
        err = append(sink, vif_features[8 + 2 * k], den[k], idx, err);
    }
    return err;
}

const VmafFeatureExtractor vmaf_fex_vif = {
    .name = "vif",
    .priv_size = sizeof(VifState),
    .options = vif_options,
    .provided_features = vif_features,
    .flags = VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = vif_init,
    .extract = vif_extract,
    .close = vif_close,
};
