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
 *
 * Reference side. Every pass also runs in two halves (vif_internal.h's modes): one of the
 * reference alone (mu_x, sigma_xx, the den sums, the reference images of scales 1..3) and
 * one of the rest, so that a reference scored against several distorted planes (a ladder)
 * makes its half once; the extractor keeps it with the picture (vif_from_side below).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature_extractor.h"
#include "libvmaf/picture.h"
#include "picture.h"
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

/* What a vertical pass sums: the means m_x, m_y and the square sums q_xx, q_yy, q_xy. The
 * fused pass makes them in two parts (A: M1 | M2 | XX, B: YY | XY), the reference side in
 * one (M1 | XX) and the distorted side in one or two (M2 | YY | XY: at most three plain or
 * four split sums per part stay within the vector registers). */
enum { Q_M1 = 1, Q_M2 = 2, Q_XX = 4, Q_YY = 8, Q_XY = 16 };

/*
 * Statistic, vertical pass, 8-bit samples (q = 0), over columns [j0, j0 + n): the sums in
 * `what`, as plain uint32 sums. rr/dr are the fw ref/dis row pointers (dr unread when what
 * has only M1 and XX).
 */
VIF_INLINE void stat_vertical_plain(const uint16_t *const *rr, const uint16_t *const *dr,
                                    const int fw, const int what, const int mu_shift,
                                    const VmafVifWorkspace *ws, const int j0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t m1[BLOCK_V] = { 0 }, m2[BLOCK_V] = { 0 }, xx[BLOCK_V] = { 0 };
    uint32_t yy[BLOCK_V] = { 0 }, xy[BLOCK_V] = { 0 };
    const bool reads_dis = what & (Q_M2 | Q_YY | Q_XY);

    for (int k = 0; k <= half; k++) {
        /* 8-bit samples: pair sums and products fit 16 bits, so each term is a 16 x 16 ->
         * 32-bit multiply (cheaper than a 32-bit one); sums of two squares need 17 bits */
        const uint16_t fk = (uint16_t)pair_coefficient(f, k, half);
        const uint16_t *ra = rr[k] + j0, *rb = rr[fw - 1 - k] + j0;
        const uint16_t *da = reads_dis ? dr[k] + j0 : ra;
        const uint16_t *db = reads_dis ? dr[fw - 1 - k] + j0 : rb;
        for (int t = 0; t < n; t++) {
            const uint16_t xa = ra[t], xb = rb[t], ya = da[t], yb = db[t];
            if (what & Q_M1)
                m1[t] += MUL16(fk, xa + xb);
            if (what & Q_M2)
                m2[t] += MUL16(fk, ya + yb);
            if (what & Q_XX)
                xx[t] += MUL16(fk, xa * xa) + MUL16(fk, xb * xb);
            if (what & Q_YY)
                yy[t] += MUL16(fk, ya * ya) + MUL16(fk, yb * yb);
            if (what & Q_XY)
                xy[t] += MUL16(fk, xa * ya) + MUL16(fk, xb * yb);
        }
    }
    if (what & Q_M1)
        store_shifted(m1, ws->mu1 + j0, mu_shift, n);
    if (what & Q_M2)
        store_shifted(m2, ws->mu2 + j0, mu_shift, n);
    if (what & Q_XX)
        store_halves(xx, ws->xx_hi + j0, ws->xx_lo + j0, n);
    if (what & Q_YY)
        store_halves(yy, ws->yy_hi + j0, ws->yy_lo + j0, n);
    if (what & Q_XY)
        store_halves(xy, ws->xy_hi + j0, ws->xy_lo + j0, n);
}

/* Split sums of products a*b of 16-bit values: hi += f (a b >> 16), lo += f (a b & 0xffff);
 * for a pair of rows the halves of both products are added first. */
#define SPLIT_PRODUCT_PAIR(hi, lo, fk, a0, b0, a1, b1)                                   \
    do {                                                                                 \
        const uint32_t p0 = (a0) * (b0), p1 = (a1) * (b1);                               \
        hi += (fk) * ((p0 >> 16) + (p1 >> 16));                                          \
        lo += (fk) * ((p0 & LO16) + (p1 & LO16));                                        \
    } while (0)

/* Statistic, vertical pass, 16-bit values: the sums in `what`, the squares split. */
VIF_INLINE void stat_vertical_split(const uint16_t *const *rr, const uint16_t *const *dr,
                                    const int fw, const int what, const int mu_shift,
                                    const int q, const VmafVifWorkspace *ws, const int j0,
                                    const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t m1[BLOCK_V] = { 0 }, m2[BLOCK_V] = { 0 }, xh[BLOCK_V] = { 0 }, xl[BLOCK_V] = { 0 };
    uint32_t yh[BLOCK_V] = { 0 }, yl[BLOCK_V] = { 0 }, ch[BLOCK_V] = { 0 }, cl[BLOCK_V] = { 0 };
    const bool reads_dis = what & (Q_M2 | Q_YY | Q_XY);

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const uint16_t *ra = rr[k] + j0, *rb = rr[fw - 1 - k] + j0;
        const uint16_t *da = reads_dis ? dr[k] + j0 : ra;
        const uint16_t *db = reads_dis ? dr[fw - 1 - k] + j0 : rb;
        for (int t = 0; t < n; t++) {
            const uint32_t xa = ra[t], xb = rb[t], ya = da[t], yb = db[t];
            if (what & Q_M1)
                m1[t] += fk * (xa + xb);
            if (what & Q_M2)
                m2[t] += fk * (ya + yb);
            if (what & Q_XX)
                SPLIT_PRODUCT_PAIR(xh[t], xl[t], fk, xa, xa, xb, xb);
            if (what & Q_YY)
                SPLIT_PRODUCT_PAIR(yh[t], yl[t], fk, ya, ya, yb, yb);
            if (what & Q_XY)
                SPLIT_PRODUCT_PAIR(ch[t], cl[t], fk, xa, ya, xb, yb);
        }
    }
    if (what & Q_M1)
        store_shifted(m1, ws->mu1 + j0, mu_shift, n);
    if (what & Q_M2)
        store_shifted(m2, ws->mu2 + j0, mu_shift, n);
    if (what & Q_XX)
        store_split(xh, xl, ws->xx_hi + j0, ws->xx_lo + j0, q, n);
    if (what & Q_YY)
        store_split(yh, yl, ws->yy_hi + j0, ws->yy_lo + j0, q, n);
    if (what & Q_XY)
        store_split(ch, cl, ws->xy_hi + j0, ws->xy_lo + j0, q, n);
}

/* mu_x^2, mu_y^2 and mu_x mu_y as vif.h rounds them: (a b + 2^31) >> 32. */
static inline uint32_t mul_hi_rounded(uint32_t a, uint32_t b)
{
    return (uint32_t)(((uint64_t)a * b + 0x80000000u) >> 32);
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
        const uint32_t mu1_sq = mul_hi_rounded(m1[t], m1[t]);
        const uint32_t mu2_sq = mul_hi_rounded(m2[t], m2[t]);
        const uint32_t mu1_mu2 = mul_hi_rounded(m1[t], m2[t]);
        const int32_t syy = (int32_t)(eyy - mu2_sq);
        sigma_xx[t] = (int32_t)(exx - mu1_sq);
        sigma_yy[t] = syy > 0 ? syy : 0;
        sigma_xy[t] = (int32_t)(exy - mu1_mu2);
    }
}

/* The reference side of store_sigmas: mu_x and sigma_xx. */
VIF_INLINE void store_ref_side(const uint32_t *m1, const uint32_t *xh, const uint32_t *xl,
                               uint32_t *restrict mu1, int32_t *restrict sigma_xx, int n)
{
    for (int t = 0; t < n; t++) {
        const uint32_t exx = xh[t] + ((xl[t] + 0x8000u) >> 16);
        mu1[t] = m1[t];
        sigma_xx[t] = (int32_t)(exx - mul_hi_rounded(m1[t], m1[t]));
    }
}

/* The distorted side of store_sigmas, with mu_x from the reference side. */
VIF_INLINE void store_dis_sigmas(const uint32_t *m1, const uint32_t *m2, const uint32_t *yh,
                                 const uint32_t *yl, const uint32_t *ch, const uint32_t *cl,
                                 int32_t *restrict sigma_yy, int32_t *restrict sigma_xy, int n)
{
    for (int t = 0; t < n; t++) {
        const uint32_t eyy = yh[t] + ((yl[t] + 0x8000u) >> 16);
        const uint32_t exy = ch[t] + ((cl[t] + 0x8000u) >> 16);
        const int32_t syy = (int32_t)(eyy - mul_hi_rounded(m2[t], m2[t]));
        sigma_yy[t] = syy > 0 ? syy : 0;
        sigma_xy[t] = (int32_t)(exy - mul_hi_rounded(m1[t], m2[t]));
    }
}

/*
 * Statistic, horizontal pass over columns [j0, j0 + n) of the vertical rows (margins
 * filled): the sigma rows (VIF_FUSED), the side rows' mu_x and sigma_xx (VIF_REF), or
 * sigma_yy and sigma_xy with the side rows' mu_x (VIF_DIS). The squares arrive as 16-bit
 * halves; each half is filtered on its own (see the top of this file).
 */
VIF_INLINE void stat_horizontal(const int fw, const VmafVifWorkspace *ws, const int j0,
                                const int n, const int mode, uint32_t *side_mu1,
                                int32_t *side_sxx)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    const uint32_t *m1 = ws->mu1 + j0, *m2 = ws->mu2 + j0;
    const uint32_t *xh = ws->xx_hi + j0, *xl = ws->xx_lo + j0;
    const uint32_t *yh = ws->yy_hi + j0, *yl = ws->yy_lo + j0;
    const uint32_t *ch = ws->xy_hi + j0, *cl = ws->xy_lo + j0;
    const bool ref = mode != VIF_DIS, dis = mode != VIF_REF;
    uint32_t acc[8][BLOCK_H] = { { 0 } };

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const int a = k - half, b = half - k;
        for (int t = 0; t < n; t++) {
            if (ref) {
                acc[0][t] += fk * (m1[t + a] + m1[t + b]);
                acc[2][t] += fk * (xh[t + a] + xh[t + b]);
                acc[3][t] += fk * (xl[t + a] + xl[t + b]);
            }
            if (dis) {
                acc[1][t] += fk * (m2[t + a] + m2[t + b]);
                acc[4][t] += fk * (yh[t + a] + yh[t + b]);
                acc[5][t] += fk * (yl[t + a] + yl[t + b]);
                acc[6][t] += fk * (ch[t + a] + ch[t + b]);
                acc[7][t] += fk * (cl[t + a] + cl[t + b]);
            }
        }
    }
    if (mode == VIF_FUSED)
        store_sigmas(acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7],
                     ws->sigma_xx + j0, ws->sigma_yy + j0, ws->sigma_xy + j0, n);
    else if (mode == VIF_REF)
        store_ref_side(acc[0], acc[2], acc[3], side_mu1 + j0, side_sxx + j0, n);
    else
        store_dis_sigmas(side_mu1 + j0, acc[1], acc[4], acc[5], acc[6], acc[7],
                         ws->sigma_yy + j0, ws->sigma_xy + j0, n);
}

/* stat_accumulate_part(), stat_accumulate(): vif_internal.h */

/* The vertical pass of one block of columns: the fused pass's two parts, or the side's. */
VIF_INLINE void stat_vertical(const uint16_t *const *rr, const uint16_t *const *dr,
                              const int fw, const int split, const int mu_shift, const int q,
                              const VmafVifWorkspace *ws, const int j, const int n,
                              const int mode)
{
    /* the fused pass in two parts; the distorted side (five sums) too, split ones in two */
    const int a = mode == VIF_FUSED ? Q_M1 | Q_M2 | Q_XX
                  : mode == VIF_REF ? Q_M1 | Q_XX
                  : split           ? Q_M2 | Q_YY
                                    : Q_M2 | Q_YY | Q_XY;
    const int b = mode == VIF_FUSED ? Q_YY | Q_XY : mode == VIF_DIS && split ? Q_XY : 0;
    if (split) {
        stat_vertical_split(rr, dr, fw, a, mu_shift, q, ws, j, n);
        if (b)
            stat_vertical_split(rr, dr, fw, b, mu_shift, q, ws, j, n);
    } else {
        stat_vertical_plain(rr, dr, fw, a, mu_shift, ws, j, n);
        if (b)
            stat_vertical_plain(rr, dr, fw, b, mu_shift, ws, j, n);
    }
}

/*
 * Statistic of one scale. fw: filter width; split: 16-bit values (else 8-bit samples, with
 * plain square sums); mu_shift and q: the vertical shifts of vif.h. mode: VIF_FUSED, or
 * VIF_REF (dis unread; mu_x and sigma_xx into side, the den sums into sums) or VIF_DIS
 * (mu_x and sigma_xx from side, the num sums into sums).
 */
VIF_INLINE void stat_scale(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                           const int fw, const int split, const int mu_shift, const int q,
                           double egl, VmafVifSums *sums, const int mode, VifSideRows side)
{
    const int w = ref->w, h = ref->h, half = fw / 2;
    /* dr stays NULL where a pass reads no dis row (VIF_REF) */
    const uint16_t *rr[VMAF_VIF_MAX_FILTER_WIDTH] = { 0 };
    const uint16_t *dr[VMAF_VIF_MAX_FILTER_WIDTH] = { 0 };

    for (int i = 0; i < h; i++) {
        uint32_t *const side_mu1 = mode == VIF_FUSED ? NULL : side.mu1 + (size_t)i * w;
        int32_t *const side_sxx = mode == VIF_FUSED ? NULL : side.sxx + (size_t)i * w;
        gather_rows(ref, i, fw, rr);
        if (mode != VIF_REF)
            gather_rows(dis, i, fw, dr);
        int j = 0;
        for (; j + BLOCK_V <= w; j += BLOCK_V)
            stat_vertical(rr, dr, fw, split, mu_shift, q, ws, j, BLOCK_V, mode);
        for (; j < w; j++)
            stat_vertical(rr, dr, fw, split, mu_shift, q, ws, j, 1, mode);

        uint32_t *const rows[] = { ws->mu1,   ws->xx_hi, ws->xx_lo, ws->mu2,
                                   ws->yy_hi, ws->yy_lo, ws->xy_hi, ws->xy_lo };
        for (int r = mode == VIF_DIS ? 3 : 0; r < (mode == VIF_REF ? 3 : 8); r++)
            mirror_margins(rows[r], w, half);

        for (j = 0; j + BLOCK_H <= w; j += BLOCK_H)
            stat_horizontal(fw, ws, j, BLOCK_H, mode, side_mu1, side_sxx);
        for (; j < w; j++)
            stat_horizontal(fw, ws, j, 1, mode, side_mu1, side_sxx);

        stat_accumulate(ws, w, egl, mode, side_sxx, sums);
    }
}

/* Subsampling, vertical pass over columns [j0, j0 + n) of the planes in `planes`. */
enum { P_REF = 1, P_DIS = 2 };
VIF_INLINE void sub_vertical(const uint16_t *const *rr, const uint16_t *const *dr,
                             const int fw, const int shift, const VmafVifWorkspace *ws,
                             const int j0, const int n, const int planes)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t ar[BLOCK_V] = { 0 }, ad[BLOCK_V] = { 0 };

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const uint16_t *ra = planes & P_REF ? rr[k] + j0 : NULL;
        const uint16_t *rb = planes & P_REF ? rr[fw - 1 - k] + j0 : NULL;
        const uint16_t *da = planes & P_DIS ? dr[k] + j0 : NULL;
        const uint16_t *db = planes & P_DIS ? dr[fw - 1 - k] + j0 : NULL;
        for (int t = 0; t < n; t++) {
            if (planes & P_REF)
                ar[t] += fk * ((uint32_t)ra[t] + rb[t]);
            if (planes & P_DIS)
                ad[t] += fk * ((uint32_t)da[t] + db[t]);
        }
    }
    if (planes & P_REF)
        store_shifted(ar, ws->conv_ref + j0, shift, n);
    if (planes & P_DIS)
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

/* Subsample src (w x h) into dst images of (w/2) x (h/2); filter width fw, vertical shift;
 * the planes in `planes` (a plane left out is not read, its dst not written). */
VIF_INLINE void subsample(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                          uint16_t *dst_ref, uint16_t *dst_dis, const int fw, const int shift,
                          const int planes)
{
    const Plane *any = planes & P_REF ? ref : dis;
    const int w = any->w, h = any->h;
    const int w2 = w / 2, h2 = h / 2;
    /* dr stays NULL where a pass reads no dis row (VIF_REF) */
    const uint16_t *rr[VMAF_VIF_MAX_FILTER_WIDTH] = { 0 };
    const uint16_t *dr[VMAF_VIF_MAX_FILTER_WIDTH] = { 0 };

    for (int i2 = 0; i2 < h2; i2++) {
        if (planes & P_REF)
            gather_rows(ref, 2 * i2, fw, rr);
        if (planes & P_DIS)
            gather_rows(dis, 2 * i2, fw, dr);
        int j = 0;
        for (; j + BLOCK_V <= w; j += BLOCK_V)
            sub_vertical(rr, dr, fw, shift, ws, j, BLOCK_V, planes);
        for (; j < w; j++)
            sub_vertical(rr, dr, fw, shift, ws, j, 1, planes);
        /* full margins, so that the split rows are defined wherever they are read */
        if (planes & P_REF) {
            mirror_margins(ws->conv_ref, w, PAD);
            deinterleave(ws->conv_ref, ws->even_ref, ws->odd_ref, w2);
        }
        if (planes & P_DIS) {
            mirror_margins(ws->conv_dis, w, PAD);
            deinterleave(ws->conv_dis, ws->even_dis, ws->odd_dis, w2);
        }

        uint16_t *const out_r = planes & P_REF ? dst_ref + (size_t)i2 * w2 : NULL;
        uint16_t *const out_d = planes & P_DIS ? dst_dis + (size_t)i2 * w2 : NULL;
        int m = 0;
        for (; m + BLOCK_H <= w2; m += BLOCK_H) {
            if (planes & P_REF)
                sub_horizontal(fw, ws->even_ref, ws->odd_ref, out_r, m, BLOCK_H);
            if (planes & P_DIS)
                sub_horizontal(fw, ws->even_dis, ws->odd_dis, out_d, m, BLOCK_H);
        }
        for (; m < w2; m++) {
            if (planes & P_REF)
                sub_horizontal(fw, ws->even_ref, ws->odd_ref, out_r, m, 1);
            if (planes & P_DIS)
                sub_horizontal(fw, ws->even_dis, ws->odd_dis, out_d, m, 1);
        }
    }
}

/* The hand-written AVX2 and AVX-512 passes (VMAF_VIF_IMPL_AVX2_MADD, VMAF_VIF_IMPL_AVX512)
 * are in vif_simd.c. */


/* One frame's passes: both sides (VIF_FUSED), the reference side into side (VIF_REF: dis
 * unread, the den sums in sums) or the distorted side from it (VIF_DIS: the num sums). */
VIF_INLINE void vif_compute_kernels(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                                    const void *dis, ptrdiff_t dis_stride, double egl,
                                    bool skip_scale0, VmafVifSums *sums, const int fast,
                                    const int mode, VifRefSide *side)
{
    const int bpc = (int)ws->bpc, w = (int)ws->w, h = (int)ws->h;
    const int planes = mode == VIF_REF ? P_REF : mode == VIF_DIS ? P_DIS : P_REF | P_DIS;
    const VifSideRows none = { NULL, NULL };
    Plane pr, pd = { NULL, 0, w, h, NULL };

    if (bpc == 8) {
        ring_start(&ws->ring_ref, ref, ref_stride);
        pr = (Plane){ NULL, 0, w, h, &ws->ring_ref };
        if (mode != VIF_REF) {
            ring_start(&ws->ring_dis, dis, dis_stride);
            pd = (Plane){ NULL, 0, w, h, &ws->ring_dis };
        }
    } else {
        pr = (Plane){ ref, ref_stride / 2, w, h, NULL };
        if (mode != VIF_REF)
            pd = (Plane){ dis, dis_stride / 2, w, h, NULL };
    }

    memset(sums, 0, VMAF_VIF_SCALES * sizeof(*sums));
    if (!skip_scale0) {
        const VifSideRows sr = mode == VIF_FUSED ? none : side->rows[0];
        if (bpc == 8 && fast) {
#ifdef VIF_HAVE_AVX2
            if (fast == 3)
                vmaf_vif_stat_scale0_8_avx512_vnni(ws, &pr, &pd, egl, &sums[0], mode, sr);
            else if (fast == 2)
                vmaf_vif_stat_scale0_8_avx512(ws, &pr, &pd, egl, &sums[0], mode, sr);
            else
                vmaf_vif_stat_scale0_8_avx2(ws, &pr, &pd, egl, &sums[0], mode, sr);
#endif
        } else if (bpc == 8) {
            stat_scale(ws, &pr, &pd, 17, 0, 8, 0, egl, &sums[0], mode, sr);
        } else if (fast) {
#ifdef VIF_HAVE_AVX2
            vmaf_vif_stat_scale16_avx2(ws, &pr, &pd, 17, bpc, 2 * (bpc - 8), fast >= 2, egl,
                                       &sums[0], mode, sr);
#endif
        } else {
            stat_scale(ws, &pr, &pd, 17, 1, bpc, 2 * (bpc - 8), egl, &sums[0], mode, sr);
        }
    }

    for (int s = 1; s < VMAF_VIF_SCALES; s++) {
        const int w2 = pr.w / 2, h2 = pr.h / 2;
        if (w2 <= 0 || h2 <= 0)
            break; /* an empty scale, and all after it: their sums stay zero */
        const int fw = vmaf_vif_filter_width[s];
        const int shift = s == 1 ? bpc : 16;
        /* the reference images: the side's (made by VIF_REF, read by VIF_DIS) */
        uint16_t *const img_ref = mode == VIF_FUSED ? ws->img_ref[s] : side->img[s];
        const VifSideRows sr = mode == VIF_FUSED ? none : side->rows[s];
        if (fast && fw != 3) {
#ifdef VIF_HAVE_AVX2
            vmaf_vif_subsample_avx2_any(ws, &pr, &pd, img_ref, ws->img_dis[s], fw,
                                        s == 1 && bpc == 8, shift, mode);
#endif
        } else if (fw == 9)
            subsample(ws, &pr, &pd, img_ref, ws->img_dis[s], 9, shift, planes);
        else if (fw == 5)
            subsample(ws, &pr, &pd, img_ref, ws->img_dis[s], 5, shift, planes);
        else
            subsample(ws, &pr, &pd, img_ref, ws->img_dis[s], 3, shift, planes);
        pr = (Plane){ img_ref, w2, w2, h2, NULL };
        pd = (Plane){ ws->img_dis[s], w2, w2, h2, NULL };

        if (fast && fw != 3) {
#ifdef VIF_HAVE_AVX2
            vmaf_vif_stat_scale16_avx2(ws, &pr, &pd, fw, 16, 16, fast >= 2, egl, &sums[s],
                                       mode, sr);
#endif
        } else if (fw == 9)
            stat_scale(ws, &pr, &pd, 9, 1, 16, 16, egl, &sums[s], mode, sr);
        else if (fw == 5)
            stat_scale(ws, &pr, &pd, 5, 1, 16, 16, egl, &sums[s], mode, sr);
        else
            stat_scale(ws, &pr, &pd, 3, 1, 16, 16, egl, &sums[s], mode, sr);
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

/* The arguments of one frame's passes. */
typedef struct VifCall {
    VmafVifWorkspace *ws;
    const void *ref, *dis;
    ptrdiff_t ref_stride, dis_stride;
    double egl;
    bool skip_scale0;
    VmafVifSums *sums;
    int mode;
    VifRefSide *side;
} VifCall;

/* vif_compute_kernels() with fast and the mode as constants. */
#define VIF_KERNELS(c, fast, mode)                                                         \
    vif_compute_kernels((c)->ws, (c)->ref, (c)->ref_stride, (c)->dis, (c)->dis_stride,     \
                        (c)->egl, (c)->skip_scale0, (c)->sums, fast, mode, (c)->side)

VIF_NO_UNROLL_JAM
static void vif_compute_plain(const VifCall *c)
{
    if (c->mode == VIF_REF)
        VIF_KERNELS(c, 0, VIF_REF);
    else if (c->mode == VIF_DIS)
        VIF_KERNELS(c, 0, VIF_DIS);
    else
        VIF_KERNELS(c, 0, VIF_FUSED);
}

#ifdef VIF_HAVE_AVX2
/* fast: the hand-written passes (1: VMAF_VIF_IMPL_AVX2_MADD, 2: VMAF_VIF_IMPL_AVX512,
 * 3: VMAF_VIF_IMPL_AVX512_VNNI) */
__attribute__((target("avx2"))) VIF_NO_UNROLL_JAM
static void vif_compute_avx2(const VifCall *c, int fast)
{
#define VIF_KERNELS_MODES(fast)                                                            \
    do {                                                                                   \
        if (c->mode == VIF_REF)                                                            \
            VIF_KERNELS(c, fast, VIF_REF);                                                 \
        else if (c->mode == VIF_DIS)                                                       \
            VIF_KERNELS(c, fast, VIF_DIS);                                                 \
        else                                                                               \
            VIF_KERNELS(c, fast, VIF_FUSED);                                               \
    } while (0)
    if (fast == 3)
        VIF_KERNELS_MODES(3);
    else if (fast == 2)
        VIF_KERNELS_MODES(2);
    else if (fast)
        VIF_KERNELS_MODES(1);
    else
        VIF_KERNELS_MODES(0);
#undef VIF_KERNELS_MODES
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

static bool vif_cpu_has_avx512_vnni(void)
{
#ifdef VIF_HAVE_AVX2
    return vif_cpu_has_avx512() && __builtin_cpu_supports("avx512vnni");
#else
    return false;
#endif
}

static enum VmafVifImpl vif_best_impl(void)
{
    return vif_cpu_has_avx512_vnni() ? VMAF_VIF_IMPL_AVX512_VNNI
           : vif_cpu_has_avx512()    ? VMAF_VIF_IMPL_AVX512
           : vif_cpu_has_avx2() ? VMAF_VIF_IMPL_AVX2_MADD
                                : VMAF_VIF_IMPL_PLAIN;
}

/* The build that runs impl here: 0 with *resolved set, -ENOTSUP or -EINVAL. */
static int vif_resolve(const VmafVifWorkspace *ws, enum VmafVifImpl impl,
                       enum VmafVifImpl *resolved)
{
    if (impl == VMAF_VIF_IMPL_BEST)
        impl = ws->best; /* chosen once, when the workspace was allocated */
    switch (impl) {
    case VMAF_VIF_IMPL_PLAIN:
        break;
    case VMAF_VIF_IMPL_AVX2:
    case VMAF_VIF_IMPL_AVX2_MADD:
        if (!vif_cpu_has_avx2())
            return -ENOTSUP;
        break;
    case VMAF_VIF_IMPL_AVX512:
        if (!vif_cpu_has_avx512())
            return -ENOTSUP;
        break;
    case VMAF_VIF_IMPL_AVX512_VNNI:
        if (!vif_cpu_has_avx512_vnni())
            return -ENOTSUP;
        break;
    default:
        return -EINVAL;
    }
    *resolved = impl;
    return 0;
}

/* The passes of c with a resolved build. */
static void vif_run(enum VmafVifImpl impl, const VifCall *c)
{
#ifdef VIF_HAVE_AVX2
    if (impl != VMAF_VIF_IMPL_PLAIN) {
        vif_compute_avx2(c, impl == VMAF_VIF_IMPL_AVX512_VNNI ? 3
                            : impl == VMAF_VIF_IMPL_AVX512    ? 2
                            : impl == VMAF_VIF_IMPL_AVX2_MADD ? 1
                                                              : 0);
        return;
    }
#endif
    vif_compute_plain(c);
}

int vmaf_vif_compute_with(enum VmafVifImpl impl, VmafVifWorkspace *ws, const void *ref,
                          ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride,
                          double enhn_gain_limit, bool skip_scale0,
                          VmafVifSums sums[VMAF_VIF_SCALES])
{
    const int err = vif_resolve(ws, impl, &impl);
    if (err)
        return err;
    const VifCall c = { ws, ref, dis, ref_stride, dis_stride, enhn_gain_limit, skip_scale0,
                        sums, VIF_FUSED, NULL };
    vif_run(impl, &c);
    return 0;
}

void vmaf_vif_compute(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                      const void *dis, ptrdiff_t dis_stride, double enhn_gain_limit,
                      bool skip_scale0, VmafVifSums sums[VMAF_VIF_SCALES])
{
    (void)vmaf_vif_compute_with(VMAF_VIF_IMPL_BEST, ws, ref, ref_stride, dis, dis_stride,
                                enhn_gain_limit, skip_scale0, sums);
}

/* ------------------------------------------------------------------------------------- */
/* The reference side (vif_internal.h)                                                   */

static size_t align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

/* The block's layout; mem NULL: only its size. */
static size_t ref_side_layout(void *mem, unsigned w, unsigned h)
{
    VifRefSide *side = mem;
    size_t at = align64(sizeof(VifRefSide));
    for (int s = 0; s < VMAF_VIF_SCALES; s++) {
        const size_t n = (size_t)(w >> s) * (h >> s);
        if (side) {
            side->rows[s].mu1 = (uint32_t *)((char *)mem + at);
            side->rows[s].sxx = (int32_t *)((char *)mem + at + align64(n * 4));
            side->img[s] = s ? (uint16_t *)((char *)mem + at + 2 * align64(n * 4)) : NULL;
        }
        at += 2 * align64(n * 4) + (s ? align64(n * 2) : 0);
    }
    return at;
}

size_t vmaf_vif_ref_side_size(unsigned w, unsigned h)
{
    return ref_side_layout(NULL, w, h);
}

int vmaf_vif_ref_side_compute_with(enum VmafVifImpl impl, VmafVifWorkspace *ws, void *mem,
                                   size_t size, const void *ref, ptrdiff_t ref_stride,
                                   bool skip_scale0)
{
    if (!ws || !mem || !ref || size < vmaf_vif_ref_side_size(ws->w, ws->h))
        return -EINVAL;
    const int err = vif_resolve(ws, impl, &impl);
    if (err)
        return err;
    VifRefSide *side = mem;
    memset(side, 0, sizeof(*side));
    ref_side_layout(mem, ws->w, ws->h);
    side->w = ws->w;
    side->h = ws->h;
    side->bpc = ws->bpc;
    side->impl = (int)impl;
    side->skip_scale0 = skip_scale0;
    const VifCall c = { ws, ref, NULL, ref_stride, 0, 1.0, skip_scale0, side->den, VIF_REF,
                        side };
    vif_run(impl, &c);
    return 0;
}

int vmaf_vif_compute_from_side_with(enum VmafVifImpl impl, VmafVifWorkspace *ws,
                                    const void *mem, const void *ref, ptrdiff_t ref_stride,
                                    const void *dis, ptrdiff_t dis_stride,
                                    double enhn_gain_limit, bool skip_scale0,
                                    VmafVifSums sums[VMAF_VIF_SCALES])
{
    if (!ws || !mem)
        return -EINVAL;
    int err = vif_resolve(ws, impl, &impl);
    if (err)
        return err;
    /* the side read as made: VIF_DIS only reads it (the cast drops no promise) */
    VifRefSide *side = (VifRefSide *)mem;
    if (side->w != ws->w || side->h != ws->h || side->bpc != ws->bpc ||
        side->impl != (int)impl || (side->skip_scale0 && !skip_scale0))
        return -EINVAL;
    const VifCall c = { ws, ref, dis, ref_stride, dis_stride, enhn_gain_limit, skip_scale0,
                        sums, VIF_DIS, side };
    vif_run(impl, &c);
    for (int s = 0; s < VMAF_VIF_SCALES; s++) {
        if (s == 0 && skip_scale0)
            continue;
        sums[s].den_log = side->den[s].den_log;
        sums[s].den_non_log = side->den[s].den_non_log;
    }
    return 0;
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

/*
 * A reference scored by several contexts (a ladder's rungs, picture.h): its side is computed
 * once, as a side product of the picture, by the first instance that needs it (with its own
 * workspace), and every instance computes the rest from it: the same sums as the fused
 * pass, bit for bit (vif_internal.h). The key holds what changes the side: the build (its
 * column order) and whether scale 0 is made; the geometry is the picture's. A picture of
 * one context never gets here: the two passes cost more than the fused one, and the side
 * about 11 bytes per pixel (23 MB for 1080p), kept while the frame's rungs read it.
 */
typedef struct VifSideArgs {
    VmafVifWorkspace *ws;
    const VmafPicture *ref;
    bool skip_scale0;
} VifSideArgs;

static int vif_side_compute(void *data, size_t size, void *arg)
{
    const VifSideArgs *a = arg;
    return vmaf_vif_ref_side_compute_with(VMAF_VIF_IMPL_BEST, a->ws, data, size,
                                          a->ref->data[0], a->ref->stride[0], a->skip_scale0);
}

/* The sums from the reference's side: 0, or an error (nothing written: compute them fused). */
static int vif_from_side(VifState *s, const VmafFeatureFrame *frame,
                         VmafVifSums sums[VMAF_VIF_SCALES])
{
    const VmafPicture *ref = frame->ref, *dis = frame->dist;
    const VmafVifOptions *o = &s->opt;
    if (!vmaf_picture_side_shared(ref))
        return -ENOENT;
    char key[32];
    snprintf(key, sizeof(key), "vif/%d/%d", (int)s->ws->best, (int)o->skip_scale0);
    VifSideArgs args = { s->ws, ref, o->skip_scale0 };
    const void *side;
    int err = vmaf_picture_side_acquire(ref, key, vmaf_vif_ref_side_size(s->w, s->h),
                                        vif_side_compute, &args, frame->side_nowait, &side);
    if (err)
        return err;
    err = vmaf_vif_compute_from_side_with(VMAF_VIF_IMPL_BEST, s->ws, side, ref->data[0],
                                          ref->stride[0], dis->data[0], dis->stride[0],
                                          o->enhn_gain_limit, o->skip_scale0, sums);
    vmaf_picture_side_put(ref, side);
    return err;
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
    const int side_err = vif_from_side(s, frame, sums);
    if (!side_err)
        return vmaf_vif_store(o, sums, frame->index, sink);
    if (side_err == -EAGAIN)
        return side_err;
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
