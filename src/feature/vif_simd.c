/*
 * Twin VMAF — integer VIF: the hand-written AVX2 and AVX-512 passes (moved from vif.c;
 * vif.h describes the arithmetic, vif.c the plain kernels). Nothing is compiled here
 * where vif_internal.h does not define VIF_HAVE_AVX2.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vif_internal.h"

/* ------------------------------------------------------------------------------------- */
/* Hand-written AVX2 and AVX-512 (VMAF_VIF_IMPL_AVX2_MADD, VMAF_VIF_IMPL_AVX512)          */

/*
 * Built on _mm256_madd_epi16 (two 16 x 16-bit products summed in 32 bits: one instruction
 * for what costs four with 32-bit multiplies). Its operands are signed, so every unsigned
 * 16-bit value v in [0, 65535] enters as v - 32768 (the bit pattern v ^ 0x8000). A filter
 * sum then comes out short by 32768 times the sum of the coefficients, 32768 * 2^16 = 2^31;
 * the sums are kept mod 2^32 (every true sum is below 2^32) and the 2^31 is added back
 * (flipping the top bit, or folded into the rounding constant). No madd can overflow: the
 * coefficients (and pairs of them) are below 2^15 except the 3-tap filter's centre, 43728,
 * so that filter (scale 3 and the subsampling into it, 1/64 of the pixels) stays with the
 * compiler-vectorized C; a pair of products stays below 2 * 26386 * 32768 < 2^31.
 *
 * Vertical passes, 16 columns: rows k and fw-1-k share coefficient f[k], so their values
 * are interleaved and multiplied by (f[k], f[k]); the centre row goes with (f[half], 0).
 * 8-bit samples (scale 0): squares and products x*y <= 255^2 fit 16 bits unsigned
 * (_mm256_mullo_epi16), and the means take the pair sums x_k + x_(16-k) (<= 510, no bias)
 * of two taps at a time. 16-bit values: a product is split into its 16-bit halves
 * (_mm256_mulhi_epu16, _mm256_mullo_epi16), each filtered on its own, and recombined with
 * the shift q as in the C passes. Interleaving works within 128-bit lanes, and
 * _mm256_packus_epi32 of the two halves restores the column order. A statistic's vertical
 * pass stores eight biased 16-bit rows: the two means and the 16-bit halves of the three
 * square sums.
 *
 * Horizontal passes, 16 output columns j .. j+15 as even and odd ones: a load at column p
 * multiplied by (f[t], f[t+1]) adds f[t] v[p+2i] + f[t+1] v[p+2i+1] to lane i, so the loads
 * at j-half+2u (u = 0..half, f[fw] = 0) make the even outputs and the loads one column
 * further the odd ones, with no shuffles. The sigma rows then hold a block's columns as its
 * eight even columns followed by its eight odd ones; the per-pixel sums do not depend on
 * the order. Subsampling needs only the even outputs: the same loads at 2m-half+2u.
 *
 * VMAF_VIF_IMPL_AVX512 runs the 8-bit scale 0 on 32 columns with the same arithmetic in
 * 512-bit vectors, and the per-pixel sums of every hand-written statistic 8 columns at a
 * time (stat_accumulate_avx512). Columns that do not fill a block go through scalar code
 * on the same rows. VMAF_VIF_IMPL_AVX512_VNNI is that with each multiply-add and its sum
 * fused into one vpdpwssd (vif_z512.h).
 */
#ifdef VIF_HAVE_AVX2


/* The biased rows of a pass (vif_internal.h's modes): the reference side makes rows 0
 * (m_x), 2 and 3 (q_xx), the distorted side rows 1 (m_y) and 4 to 7 (q_yy, q_xy). */
static inline bool makes_row(int mode, int r)
{
    const bool ref_row = r == 0 || r == 2 || r == 3;
    return mode == VIF_FUSED || (mode == VIF_REF) == ref_row;
}

/* The scalar form of the vertical pass for column c: the biased rows of the mode (dr
 * unread in VIF_REF). */
static void s0_vertical_column(const uint16_t *const *rr, const uint16_t *const *dr,
                               uint16_t *const *row16, int c, int mode)
{
    const uint16_t *f = vmaf_vif_filter[0];
    uint32_t m1 = 0, m2 = 0, xx = 0, yy = 0, xy = 0;
    for (int k = 0; k < 17; k++) {
        const uint32_t x = rr[k][c], y = mode != VIF_REF ? dr[k][c] : 0;
        m1 += f[k] * x;
        m2 += f[k] * y;
        xx += f[k] * (x * x);
        yy += f[k] * (y * y);
        xy += f[k] * (x * y);
    }
    const uint32_t v[8] = { (m1 + 128) >> 8, (m2 + 128) >> 8, xx >> 16, xx & LO16,
                            yy >> 16,        yy & LO16,       xy >> 16, xy & LO16 };
    for (int r = 0; r < 8; r++)
        if (makes_row(mode, r))
            row16[r][c] = (uint16_t)(v[r] ^ 0x8000);
}

/* The sigmas of one column from the eight horizontal sums (see store_sigmas). */
static void s0_sigma(const uint32_t *a, int32_t *sxx, int32_t *syy, int32_t *sxy)
{
    const uint32_t exx = a[2] + ((a[3] + 0x8000u) >> 16);
    const uint32_t eyy = a[4] + ((a[5] + 0x8000u) >> 16);
    const uint32_t exy = a[6] + ((a[7] + 0x8000u) >> 16);
    const uint32_t mu1_sq = (uint32_t)(((uint64_t)a[0] * a[0] + 0x80000000u) >> 32);
    const uint32_t mu2_sq = (uint32_t)(((uint64_t)a[1] * a[1] + 0x80000000u) >> 32);
    const uint32_t mu1_mu2 = (uint32_t)(((uint64_t)a[0] * a[1] + 0x80000000u) >> 32);
    const int32_t y = (int32_t)(eyy - mu2_sq);
    *sxx = (int32_t)(exx - mu1_sq);
    *syy = y > 0 ? y : 0;
    *sxy = (int32_t)(exy - mu1_mu2);
}

/* The scalar form of the horizontal pass for column c: the sigmas (VIF_FUSED), mu_x and
 * sigma_xx into the side rows (VIF_REF), or sigma_yy and sigma_xy with the side's mu_x
 * (VIF_DIS). */
static void s0_horizontal_column(uint16_t *const *row16, int fw, VmafVifWorkspace *ws, int c,
                                 int mode, uint32_t *side_mu1, int32_t *side_sxx)
{
    const uint16_t *f = filter_of_width(fw);
    const int half = fw / 2;
    uint32_t a[8] = { 0 };
    for (int r = 0; r < 8; r++) {
        if (!makes_row(mode, r))
            continue;
        uint32_t acc = 0;
        for (int t = 0; t < fw; t++)
            acc += f[t] * (uint32_t)(row16[r][c + t - half] ^ 0x8000);
        a[r] = acc;
    }
    if (mode == VIF_FUSED) {
        s0_sigma(a, &ws->sigma_xx[c], &ws->sigma_yy[c], &ws->sigma_xy[c]);
        return;
    }
    if (mode == VIF_DIS)
        a[0] = side_mu1[c];
    int32_t sxx, syy, sxy;
    s0_sigma(a, &sxx, &syy, &sxy);
    if (mode == VIF_REF) {
        side_mu1[c] = a[0];
        side_sxx[c] = sxx;
    } else {
        ws->sigma_yy[c] = syy;
        ws->sigma_xy[c] = sxy;
    }
}

/* Pack two halves of 32-bit values (0 .. 65535, unpack lane order) into biased 16 bits. */
VIF_AVX2 static inline void s0_store16(uint16_t *out, __m256i lo, __m256i hi)
{
    const __m256i v = _mm256_packus_epi32(lo, hi);
    _mm256_storeu_si256((__m256i *)out, _mm256_xor_si256(v, _mm256_set1_epi16((short)0x8000)));
}

/* A square sum (biased by -2^31) as its two biased 16-bit halves. */
VIF_AVX2 static inline void s0_store_split(uint16_t *out_hi, uint16_t *out_lo, __m256i lo,
                                           __m256i hi)
{
    const __m256i top = _mm256_set1_epi32((int)0x80000000u), mask = _mm256_set1_epi32(LO16);
    lo = _mm256_xor_si256(lo, top);
    hi = _mm256_xor_si256(hi, top);
    s0_store16(out_hi, _mm256_srli_epi32(lo, 16), _mm256_srli_epi32(hi, 16));
    s0_store16(out_lo, _mm256_and_si256(lo, mask), _mm256_and_si256(hi, mask));
}

VIF_AVX2 static inline __m256i s0_load(const uint16_t *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

/* Vertical pass over columns j .. j+15, in two parts that each keep their sums in
 * registers: the means and the ref squares, then the dis squares and the products. The
 * reference side is m_x and the ref squares of the first part; the distorted side the rest
 * (mode, vif_internal.h). */
VIF_AVX2 VIF_INLINE void s0_vertical_block(const uint16_t *const *rr,
                                           const uint16_t *const *dr,
                                           uint16_t *const *row16, int j, const int mode)
{
    const bool ref = mode != VIF_DIS, dis = mode != VIF_REF;
    const uint16_t *f = vmaf_vif_filter[0];
    const __m256i bias = _mm256_set1_epi16((short)0x8000);
    __m256i m1l = _mm256_setzero_si256(), m1h = m1l, m2l = m1l, m2h = m1l, xxl = m1l, xxh = m1l;
    __m256i sx_prev = m1l, sy_prev = m1l;

#pragma GCC unroll 9
    for (int k = 0; k <= 8; k++) {
        const __m256i xa = s0_load(rr[k] + j), xb = s0_load(rr[16 - k] + j);
        /* squares, pair (f[k], f[k]); the centre (f[8], 0) */
        const __m256i fk = k < 8 ? _mm256_set1_epi32(f[k] | (uint32_t)f[k] << 16)
                                 : _mm256_set1_epi32(f[8]);
        if (ref) {
            const __m256i xa2 = _mm256_xor_si256(_mm256_mullo_epi16(xa, xa), bias);
            const __m256i xb2 = _mm256_xor_si256(_mm256_mullo_epi16(xb, xb), bias);
            xxl = _mm256_add_epi32(xxl, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa2, xb2), fk));
            xxh = _mm256_add_epi32(xxh, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa2, xb2), fk));
        }
        /* means: pair sums of taps k-1 and k, coefficients (f[k-1], f[k]); the centre
         * alone (its pair sum would count it twice), coefficients (f[8], 0) */
        const __m256i ya = dis ? s0_load(dr[k] + j) : xa, yb = dis ? s0_load(dr[16 - k] + j) : xb;
        const __m256i sx = k < 8 ? _mm256_add_epi16(xa, xb) : xa;
        const __m256i sy = k < 8 ? _mm256_add_epi16(ya, yb) : ya;
        if (k & 1) {
            const __m256i fp = _mm256_set1_epi32(f[k - 1] | (uint32_t)f[k] << 16);
            if (ref) {
                m1l = _mm256_add_epi32(m1l,
                                       _mm256_madd_epi16(_mm256_unpacklo_epi16(sx_prev, sx), fp));
                m1h = _mm256_add_epi32(m1h,
                                       _mm256_madd_epi16(_mm256_unpackhi_epi16(sx_prev, sx), fp));
            }
            if (dis) {
                m2l = _mm256_add_epi32(m2l,
                                       _mm256_madd_epi16(_mm256_unpacklo_epi16(sy_prev, sy), fp));
                m2h = _mm256_add_epi32(m2h,
                                       _mm256_madd_epi16(_mm256_unpackhi_epi16(sy_prev, sy), fp));
            }
        } else if (k == 8) {
            if (ref) {
                m1l = _mm256_add_epi32(m1l, _mm256_madd_epi16(_mm256_unpacklo_epi16(sx, sx), fk));
                m1h = _mm256_add_epi32(m1h, _mm256_madd_epi16(_mm256_unpackhi_epi16(sx, sx), fk));
            }
            if (dis) {
                m2l = _mm256_add_epi32(m2l, _mm256_madd_epi16(_mm256_unpacklo_epi16(sy, sy), fk));
                m2h = _mm256_add_epi32(m2h, _mm256_madd_epi16(_mm256_unpackhi_epi16(sy, sy), fk));
            }
        }
        sx_prev = sx;
        sy_prev = sy;
    }
    const __m256i rnd = _mm256_set1_epi32(128);
    if (ref) {
        s0_store16(row16[0] + j, _mm256_srli_epi32(_mm256_add_epi32(m1l, rnd), 8),
                   _mm256_srli_epi32(_mm256_add_epi32(m1h, rnd), 8));
        s0_store_split(row16[2] + j, row16[3] + j, xxl, xxh);
    }
    if (dis)
        s0_store16(row16[1] + j, _mm256_srli_epi32(_mm256_add_epi32(m2l, rnd), 8),
                   _mm256_srli_epi32(_mm256_add_epi32(m2h, rnd), 8));
    if (!dis)
        return;

    __m256i yyl = _mm256_setzero_si256(), yyh = yyl, xyl = yyl, xyh = yyl;
#pragma GCC unroll 9
    for (int k = 0; k <= 8; k++) {
        const __m256i xa = s0_load(rr[k] + j), xb = s0_load(rr[16 - k] + j);
        const __m256i ya = s0_load(dr[k] + j), yb = s0_load(dr[16 - k] + j);
        const __m256i fk = k < 8 ? _mm256_set1_epi32(f[k] | (uint32_t)f[k] << 16)
                                 : _mm256_set1_epi32(f[8]);
        const __m256i ya2 = _mm256_xor_si256(_mm256_mullo_epi16(ya, ya), bias);
        const __m256i yb2 = _mm256_xor_si256(_mm256_mullo_epi16(yb, yb), bias);
        const __m256i ca = _mm256_xor_si256(_mm256_mullo_epi16(xa, ya), bias);
        const __m256i cb = _mm256_xor_si256(_mm256_mullo_epi16(xb, yb), bias);
        yyl = _mm256_add_epi32(yyl, _mm256_madd_epi16(_mm256_unpacklo_epi16(ya2, yb2), fk));
        yyh = _mm256_add_epi32(yyh, _mm256_madd_epi16(_mm256_unpackhi_epi16(ya2, yb2), fk));
        xyl = _mm256_add_epi32(xyl, _mm256_madd_epi16(_mm256_unpacklo_epi16(ca, cb), fk));
        xyh = _mm256_add_epi32(xyh, _mm256_madd_epi16(_mm256_unpackhi_epi16(ca, cb), fk));
    }
    s0_store_split(row16[4] + j, row16[5] + j, yyl, yyh);
    s0_store_split(row16[6] + j, row16[7] + j, xyl, xyh);
}

/* Horizontal sums of one biased row at output columns j+2i (*ev) and j+2i+1 (*od), true
 * values (mod 2^32). */
VIF_AVX2 VIF_INLINE void s0_hsum(const uint16_t *row, const __m256i *cp, const int half,
                                 int j, __m256i *ev, __m256i *od)
{
    __m256i e = _mm256_setzero_si256(), o = e;
#pragma GCC unroll 9
    for (int u = 0; u <= half; u++) {
        e = _mm256_add_epi32(e, _mm256_madd_epi16(s0_load(row + j - half + 2 * u), cp[u]));
        o = _mm256_add_epi32(o, _mm256_madd_epi16(s0_load(row + j - half + 1 + 2 * u), cp[u]));
    }
    const __m256i top = _mm256_set1_epi32((int)0x80000000u);
    *ev = _mm256_xor_si256(e, top);
    *od = _mm256_xor_si256(o, top);
}

/* (a b + 2^31) >> 32 of the uint32 lanes. */
VIF_AVX2 static inline __m256i s0_mul_hi(__m256i a, __m256i b)
{
    const __m256i rnd = _mm256_set1_epi64x(0x80000000ll);
    const __m256i pe = _mm256_add_epi64(_mm256_mul_epu32(a, b), rnd);
    const __m256i po = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), rnd);
    return _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xaa);
}

/* e = hi + ((lo + 2^15) >> 16) */
VIF_AVX2 static inline __m256i s0_join(__m256i hi, __m256i lo)
{
    return _mm256_add_epi32(
        hi, _mm256_srli_epi32(_mm256_add_epi32(lo, _mm256_set1_epi32(0x8000)), 16));
}

VIF_AVX2 static inline void s0_sigmas(__m256i m1, __m256i m2, __m256i exx, __m256i eyy,
                                      __m256i exy, int32_t *sxx, int32_t *syy, int32_t *sxy)
{
    const __m256i vxx = _mm256_sub_epi32(exx, s0_mul_hi(m1, m1));
    const __m256i vyy = _mm256_sub_epi32(eyy, s0_mul_hi(m2, m2));
    const __m256i vxy = _mm256_sub_epi32(exy, s0_mul_hi(m1, m2));
    _mm256_storeu_si256((__m256i *)sxx, vxx);
    _mm256_storeu_si256((__m256i *)syy, _mm256_max_epi32(vyy, _mm256_setzero_si256()));
    _mm256_storeu_si256((__m256i *)sxy, vxy);
}

/* The reference side of s0_sigmas: mu_x as it is, sigma_xx. */
VIF_AVX2 static inline void s0_ref_side(__m256i m1, __m256i exx, uint32_t *mu1, int32_t *sxx)
{
    _mm256_storeu_si256((__m256i *)mu1, m1);
    _mm256_storeu_si256((__m256i *)sxx, _mm256_sub_epi32(exx, s0_mul_hi(m1, m1)));
}

/* The distorted side of s0_sigmas, mu_x read from the reference side. */
VIF_AVX2 static inline void s0_dis_sigmas(const uint32_t *mu1, __m256i m2, __m256i eyy,
                                          __m256i exy, int32_t *syy, int32_t *sxy)
{
    const __m256i m1 = _mm256_loadu_si256((const __m256i *)mu1);
    const __m256i vyy = _mm256_sub_epi32(eyy, s0_mul_hi(m2, m2));
    _mm256_storeu_si256((__m256i *)syy, _mm256_max_epi32(vyy, _mm256_setzero_si256()));
    _mm256_storeu_si256((__m256i *)sxy, _mm256_sub_epi32(exy, s0_mul_hi(m1, m2)));
}

/* Horizontal pass over columns j .. j+15 (sigma rows: even columns, then odd ones), of
 * the mode's rows: the sigma rows (VIF_FUSED), the side rows' mu_x and sigma_xx in the
 * same column order (VIF_REF), or sigma_yy and sigma_xy with the side's mu_x (VIF_DIS). */
VIF_AVX2 VIF_INLINE void s0_horizontal_block(uint16_t *const *row16, const __m256i *cp,
                                             const int half, VmafVifWorkspace *ws, int j,
                                             const int mode, uint32_t *side_mu1,
                                             int32_t *side_sxx)
{
    __m256i m1e, m1o, m2e, m2o, he, ho, le, lo;
    if (mode == VIF_REF) {
        s0_hsum(row16[0], cp, half, j, &m1e, &m1o);
        s0_hsum(row16[2], cp, half, j, &he, &ho);
        s0_hsum(row16[3], cp, half, j, &le, &lo);
        s0_ref_side(m1e, s0_join(he, le), side_mu1 + j, side_sxx + j);
        s0_ref_side(m1o, s0_join(ho, lo), side_mu1 + j + 8, side_sxx + j + 8);
        return;
    }
    if (mode == VIF_DIS) {
        s0_hsum(row16[1], cp, half, j, &m2e, &m2o);
        s0_hsum(row16[4], cp, half, j, &he, &ho);
        s0_hsum(row16[5], cp, half, j, &le, &lo);
        const __m256i eyy_e = s0_join(he, le), eyy_o = s0_join(ho, lo);
        s0_hsum(row16[6], cp, half, j, &he, &ho);
        s0_hsum(row16[7], cp, half, j, &le, &lo);
        s0_dis_sigmas(side_mu1 + j, m2e, eyy_e, s0_join(he, le), ws->sigma_yy + j,
                      ws->sigma_xy + j);
        s0_dis_sigmas(side_mu1 + j + 8, m2o, eyy_o, s0_join(ho, lo), ws->sigma_yy + j + 8,
                      ws->sigma_xy + j + 8);
        return;
    }
    s0_hsum(row16[0], cp, half, j, &m1e, &m1o);
    s0_hsum(row16[1], cp, half, j, &m2e, &m2o);
    s0_hsum(row16[2], cp, half, j, &he, &ho);
    s0_hsum(row16[3], cp, half, j, &le, &lo);
    const __m256i exx_e = s0_join(he, le), exx_o = s0_join(ho, lo);
    s0_hsum(row16[4], cp, half, j, &he, &ho);
    s0_hsum(row16[5], cp, half, j, &le, &lo);
    const __m256i eyy_e = s0_join(he, le), eyy_o = s0_join(ho, lo);
    s0_hsum(row16[6], cp, half, j, &he, &ho);
    s0_hsum(row16[7], cp, half, j, &le, &lo);
    const __m256i exy_e = s0_join(he, le), exy_o = s0_join(ho, lo);
    s0_sigmas(m1e, m2e, exx_e, eyy_e, exy_e, ws->sigma_xx + j, ws->sigma_yy + j,
              ws->sigma_xy + j);
    s0_sigmas(m1o, m2o, exx_o, eyy_o, exy_o, ws->sigma_xx + j + 8, ws->sigma_yy + j + 8,
              ws->sigma_xy + j + 8);
}

/* Fill the margins of a biased 16-bit row (MARGIN16 on both sides) from the mirrored
 * indices: left[k - 1] = mirror(-k), right[k - 1] = mirror(n - 1 + k). */
static void s0_mirror16(uint16_t *row, int n, const int *left, const int *right)
{
    for (int k = 1; k <= MARGIN16; k++) {
        row[-k] = row[left[k - 1]];
        row[n - 1 + k] = row[right[k - 1]];
    }
}

/* The scalar vertical pass of 16-bit values for column c (see stat_vertical_split): the
 * biased rows of the mode (dr unread in VIF_REF). */
static void hbd_vertical_column(const uint16_t *const *rr, const uint16_t *const *dr, int fw,
                                int mu_shift, int q, uint16_t *const *row16, int c, int mode)
{
    const uint16_t *f = filter_of_width(fw);
    const uint32_t mrnd = 1u << (mu_shift - 1), qrnd = 1u << (q - 1);
    uint32_t m1 = 0, m2 = 0, h[3] = { 0 }, l[3] = { 0 };
    for (int k = 0; k < fw; k++) {
        const uint32_t x = rr[k][c], y = mode != VIF_REF ? dr[k][c] : 0;
        const uint32_t p[3] = { x * x, y * y, x * y };
        m1 += f[k] * x;
        m2 += f[k] * y;
        for (int r = 0; r < 3; r++) {
            h[r] += f[k] * (p[r] >> 16);
            l[r] += f[k] * (p[r] & LO16);
        }
    }
    uint32_t v[8] = { (m1 + mrnd) >> mu_shift, (m2 + mrnd) >> mu_shift };
    for (int r = 0; r < 3; r++) {
        const uint32_t p = (h[r] << (16 - q)) + ((l[r] + qrnd) >> q);
        v[2 + 2 * r] = p >> 16;
        v[3 + 2 * r] = p & LO16;
    }
    for (int r = 0; r < 8; r++)
        if (makes_row(mode, r))
            row16[r][c] = (uint16_t)(v[r] ^ 0x8000);
}

/* Coefficient pair (f[k], f[fw-1-k]) = (f[k], f[k]) of the vertical pass, (f[half], 0) at
 * the centre. */
VIF_AVX2 VIF_INLINE __m256i hbd_pair(const uint16_t *f, int k, int half)
{
    return k < half ? _mm256_set1_epi32(f[k] | (uint32_t)f[k] << 16) : _mm256_set1_epi32(f[half]);
}

/* Vertical pass of 16-bit values over columns j .. j+15: the means (biased inputs), m_x
 * unless VIF_DIS, m_y unless VIF_REF. */
VIF_AVX2 VIF_INLINE void hbd_vertical_means(const uint16_t *const *rr, const uint16_t *const *dr,
                                            const int fw, const int mu_shift,
                                            uint16_t *const *row16, int j, const int mode)
{
    const bool ref = mode != VIF_DIS, dis = mode != VIF_REF;
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    const __m256i bias = _mm256_set1_epi16((short)0x8000);
    __m256i al = _mm256_setzero_si256(), ah = al, bl = al, bh = al;
#pragma GCC unroll 9
    for (int k = 0; k <= half; k++) {
        const __m256i fk = hbd_pair(f, k, half);
        if (ref) {
            const __m256i xa = _mm256_xor_si256(s0_load(rr[k] + j), bias);
            const __m256i xb = _mm256_xor_si256(s0_load(rr[fw - 1 - k] + j), bias);
            al = _mm256_add_epi32(al, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb), fk));
            ah = _mm256_add_epi32(ah, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb), fk));
        }
        if (dis) {
            const __m256i ya = _mm256_xor_si256(s0_load(dr[k] + j), bias);
            const __m256i yb = _mm256_xor_si256(s0_load(dr[fw - 1 - k] + j), bias);
            bl = _mm256_add_epi32(bl, _mm256_madd_epi16(_mm256_unpacklo_epi16(ya, yb), fk));
            bh = _mm256_add_epi32(bh, _mm256_madd_epi16(_mm256_unpackhi_epi16(ya, yb), fk));
        }
    }
    /* undo the bias (+2^31), round, shift */
    const __m256i rnd = _mm256_set1_epi32((int)(0x80000000u + (1u << (mu_shift - 1))));
    const __m128i sh = _mm_cvtsi32_si128(mu_shift);
    if (ref)
        s0_store16(row16[0] + j, _mm256_srl_epi32(_mm256_add_epi32(al, rnd), sh),
                   _mm256_srl_epi32(_mm256_add_epi32(ah, rnd), sh));
    if (dis)
        s0_store16(row16[1] + j, _mm256_srl_epi32(_mm256_add_epi32(bl, rnd), sh),
                   _mm256_srl_epi32(_mm256_add_epi32(bh, rnd), sh));
}

/* Vertical pass of 16-bit values over columns j .. j+15: the split sums of the products
 * a*b (a, b: rows of ref or dis), stored to rows out_hi, out_lo. */
VIF_AVX2 VIF_INLINE void hbd_vertical_products(const uint16_t *const *ar,
                                               const uint16_t *const *br, const int fw,
                                               const int q, uint16_t *out_hi,
                                               uint16_t *out_lo, int j)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    const __m256i bias = _mm256_set1_epi16((short)0x8000);
    __m256i hl = _mm256_setzero_si256(), hh = hl, ll = hl, lh = hl;
#pragma GCC unroll 9
    for (int k = 0; k <= half; k++) {
        const __m256i fk = hbd_pair(f, k, half);
        const __m256i a0 = s0_load(ar[k] + j), a1 = s0_load(ar[fw - 1 - k] + j);
        const __m256i b0 = s0_load(br[k] + j), b1 = s0_load(br[fw - 1 - k] + j);
        const __m256i h0 = _mm256_xor_si256(_mm256_mulhi_epu16(a0, b0), bias);
        const __m256i h1 = _mm256_xor_si256(_mm256_mulhi_epu16(a1, b1), bias);
        const __m256i l0 = _mm256_xor_si256(_mm256_mullo_epi16(a0, b0), bias);
        const __m256i l1 = _mm256_xor_si256(_mm256_mullo_epi16(a1, b1), bias);
        hl = _mm256_add_epi32(hl, _mm256_madd_epi16(_mm256_unpacklo_epi16(h0, h1), fk));
        hh = _mm256_add_epi32(hh, _mm256_madd_epi16(_mm256_unpackhi_epi16(h0, h1), fk));
        ll = _mm256_add_epi32(ll, _mm256_madd_epi16(_mm256_unpacklo_epi16(l0, l1), fk));
        lh = _mm256_add_epi32(lh, _mm256_madd_epi16(_mm256_unpackhi_epi16(l0, l1), fk));
    }
    /* v = (hi << (16 - q)) + ((lo + r) >> q), both sums with the bias undone */
    const __m256i top = _mm256_set1_epi32((int)0x80000000u);
    const __m256i rnd = _mm256_set1_epi32((int)(0x80000000u + (1u << (q - 1))));
    const __m128i shl = _mm_cvtsi32_si128(16 - q), shr = _mm_cvtsi32_si128(q);
    const __m256i vl = _mm256_add_epi32(_mm256_sll_epi32(_mm256_xor_si256(hl, top), shl),
                                        _mm256_srl_epi32(_mm256_add_epi32(ll, rnd), shr));
    const __m256i vh = _mm256_add_epi32(_mm256_sll_epi32(_mm256_xor_si256(hh, top), shl),
                                        _mm256_srl_epi32(_mm256_add_epi32(lh, rnd), shr));
    /* s0_store_split expects sums biased by -2^31 */
    s0_store_split(out_hi + j, out_lo + j, _mm256_xor_si256(vl, top), _mm256_xor_si256(vh, top));
}

/*
 * The statistic of one scale with the hand-written passes. eight: 8-bit samples (the
 * widened planes of scale 0, fw 17); else 16-bit values with the shifts mu_shift and
 * q >= 1 of vif.h. fw is 17, 9 or 5 (the 3-tap filter's centre coefficient does not fit
 * a signed 16-bit operand).
 */
static void stat_accumulate_avx512(const uint16_t *table, const int32_t *sigma_xx,
                                   const int32_t *sigma_yy, const int32_t *sigma_xy, int w,
                                   double egl, int mode, VmafVifSums *sums);

/* The per-pixel sums of a row (stat_accumulate() of the mode), with stat_accumulate_avx512()
 * when acc512. */
VIF_AVX2 VIF_INLINE void accumulate_row(const VmafVifWorkspace *ws, int w, double egl,
                                        const int acc512, const int mode,
                                        const int32_t *side_sxx, VmafVifSums *sums)
{
    if (acc512)
        stat_accumulate_avx512(ws->log2_table, mode == VIF_FUSED ? ws->sigma_xx : side_sxx,
                               ws->sigma_yy, ws->sigma_xy, w, egl, mode, sums);
    else
        stat_accumulate(ws, w, egl, mode, side_sxx, sums);
}

/* acc512: sum with stat_accumulate_avx512() (the CPU has what VMAF_VIF_IMPL_AVX512 needs);
 * mode and side: vif_internal.h (VIF_REF reads no dis row) */
VIF_AVX2 VIF_INLINE void stat_scale_avx2(VmafVifWorkspace *ws, const Plane *ref,
                                         const Plane *dis, const int fw, const int eight,
                                         const int mu_shift, const int q, const int acc512,
                                         double egl, VmafVifSums *sums, const int mode,
                                         VifSideRows side)
{
    const int w = ref->w, h = ref->h, half = fw / 2;
    const int wb = w & ~15; /* columns in blocks of 16 */
    const uint16_t *f = filter_of_width(fw);
    /* dr stays NULL where a pass reads no dis row (VIF_REF) */
    const uint16_t *rr[VMAF_VIF_MAX_FILTER_WIDTH] = { 0 };
    const uint16_t *dr[VMAF_VIF_MAX_FILTER_WIDTH] = { 0 };
    uint16_t *const *row16 = ws->row16;
    __m256i cp[9];
    for (int u = 0; u <= half; u++)
        cp[u] = _mm256_set1_epi32(f[2 * u] | (u < half ? (uint32_t)f[2 * u + 1] << 16 : 0));
    int left[MARGIN16], right[MARGIN16];
    for (int k = 1; k <= MARGIN16; k++) {
        left[k - 1] = mirror(-k, w);
        right[k - 1] = mirror(w - 1 + k, w);
    }

    for (int i = 0; i < h; i++) {
        uint32_t *const side_mu1 = mode == VIF_FUSED ? NULL : side.mu1 + (size_t)i * w;
        int32_t *const side_sxx = mode == VIF_FUSED ? NULL : side.sxx + (size_t)i * w;
        gather_rows(ref, i, fw, rr);
        if (mode != VIF_REF)
            gather_rows(dis, i, fw, dr);
        if (eight) {
            for (int j = 0; j < wb; j += 16)
                s0_vertical_block(rr, dr, row16, j, mode);
            for (int j = wb; j < w; j++)
                s0_vertical_column(rr, dr, row16, j, mode);
        } else {
            for (int j = 0; j < wb; j += 16) {
                hbd_vertical_means(rr, dr, fw, mu_shift, row16, j, mode);
                if (mode != VIF_DIS)
                    hbd_vertical_products(rr, rr, fw, q, row16[2], row16[3], j);
                if (mode != VIF_REF) {
                    hbd_vertical_products(dr, dr, fw, q, row16[4], row16[5], j);
                    hbd_vertical_products(rr, dr, fw, q, row16[6], row16[7], j);
                }
            }
            for (int j = wb; j < w; j++)
                hbd_vertical_column(rr, dr, fw, mu_shift, q, row16, j, mode);
        }
        for (int r = 0; r < 8; r++)
            if (makes_row(mode, r))
                s0_mirror16(row16[r], w, left, right);
        for (int j = 0; j < wb; j += 16)
            s0_horizontal_block(row16, cp, half, ws, j, mode, side_mu1, side_sxx);
        for (int j = wb; j < w; j++)
            s0_horizontal_column(row16, fw, ws, j, mode, side_mu1, side_sxx);
        accumulate_row(ws, w, egl, acc512, mode, side_sxx, sums);
    }
}

/* Subsampling, vertical pass of one plane over columns j .. j+15 into a biased row:
 * (sum F x + 2^(shift-1)) >> shift. eight: 8-bit samples, whose pair sums x_k + x_(fw-1-k)
 * fit 16 bits and go two taps to a madd; else biased 16-bit values, a pair of rows to a
 * madd. */
VIF_AVX2 VIF_INLINE void sub_vertical_block(const uint16_t *const *rows, const int fw,
                                            const int eight, const int shift, uint16_t *out,
                                            int j)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    const __m256i bias = _mm256_set1_epi16((short)0x8000);
    __m256i al = _mm256_setzero_si256(), ah = al;
    if (eight) {
        __m256i prev = al;
#pragma GCC unroll 9
        for (int k = 0; k <= half; k++) {
            const __m256i xa = s0_load(rows[k] + j);
            const __m256i sk = k < half ? _mm256_add_epi16(xa, s0_load(rows[fw - 1 - k] + j)) : xa;
            if (k & 1) {
                const __m256i fp = _mm256_set1_epi32(f[k - 1] | (uint32_t)f[k] << 16);
                al = _mm256_add_epi32(al, _mm256_madd_epi16(_mm256_unpacklo_epi16(prev, sk), fp));
                ah = _mm256_add_epi32(ah, _mm256_madd_epi16(_mm256_unpackhi_epi16(prev, sk), fp));
            } else if (k == half) {
                const __m256i fp = _mm256_set1_epi32(f[k]);
                al = _mm256_add_epi32(al, _mm256_madd_epi16(_mm256_unpacklo_epi16(sk, sk), fp));
                ah = _mm256_add_epi32(ah, _mm256_madd_epi16(_mm256_unpackhi_epi16(sk, sk), fp));
            }
            prev = sk;
        }
    } else {
#pragma GCC unroll 9
        for (int k = 0; k <= half; k++) {
            const __m256i fk = hbd_pair(f, k, half);
            const __m256i xa = _mm256_xor_si256(s0_load(rows[k] + j), bias);
            const __m256i xb = _mm256_xor_si256(s0_load(rows[fw - 1 - k] + j), bias);
            al = _mm256_add_epi32(al, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb), fk));
            ah = _mm256_add_epi32(ah, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb), fk));
        }
    }
    const __m256i rnd = _mm256_set1_epi32(
        (int)((eight ? 0u : 0x80000000u) + (1u << (shift - 1))));
    const __m128i sh = _mm_cvtsi32_si128(shift);
    s0_store16(out + j, _mm256_srl_epi32(_mm256_add_epi32(al, rnd), sh),
               _mm256_srl_epi32(_mm256_add_epi32(ah, rnd), sh));
}

/* Subsampling, horizontal pass: outputs m0 .. m0+15 (input columns 2m) from a biased row.
 * A load at 2 m0 - half + 2u times (f[2u], f[2u+1]) adds both taps to the outputs of its
 * lanes, so no shuffles are needed. */
VIF_AVX2 VIF_INLINE void sub_horizontal_block(const uint16_t *row, const __m256i *cp,
                                              const int half, uint16_t *out, int m0)
{
    __m256i a = _mm256_setzero_si256(), b = a;
    const uint16_t *p = row + 2 * m0 - half;
#pragma GCC unroll 9
    for (int u = 0; u <= half; u++) {
        a = _mm256_add_epi32(a, _mm256_madd_epi16(s0_load(p + 2 * u), cp[u]));
        b = _mm256_add_epi32(b, _mm256_madd_epi16(s0_load(p + 16 + 2 * u), cp[u]));
    }
    const __m256i rnd = _mm256_set1_epi32((int)(0x80000000u + 0x8000u));
    a = _mm256_srli_epi32(_mm256_add_epi32(a, rnd), 16);
    b = _mm256_srli_epi32(_mm256_add_epi32(b, rnd), 16);
    const __m256i v = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    _mm256_storeu_si256((__m256i *)(out + m0), v);
}

/* Subsample src (w x h) into (w/2) x (h/2) images with the hand-written passes; fw 9 or 5
 * (see stat_scale_avx2), eight: 8-bit samples; ref only (VIF_REF), dis only (VIF_DIS) or
 * both. */
VIF_AVX2 VIF_INLINE void subsample_avx2(VmafVifWorkspace *ws, const Plane *ref,
                                        const Plane *dis, uint16_t *dst_ref,
                                        uint16_t *dst_dis, const int fw, const int eight,
                                        const int shift, const int mode)
{
    const int w = ref->w, h = ref->h, half = fw / 2;
    const int w2 = w / 2, h2 = h / 2;
    const int wb = w & ~15, w2b = w2 & ~15;
    const uint16_t *f = filter_of_width(fw);
    const uint16_t *rows[2][VMAF_VIF_MAX_FILTER_WIDTH];
    const Plane *planes[2] = { ref, dis };
    uint16_t *dst[2] = { dst_ref, dst_dis };
    uint16_t *const *row16 = ws->row16;
    const uint32_t rnd = 1u << (shift - 1);
    __m256i cp[9];
    for (int u = 0; u <= half; u++)
        cp[u] = _mm256_set1_epi32(f[2 * u] | (u < half ? (uint32_t)f[2 * u + 1] << 16 : 0));
    int left[MARGIN16], right[MARGIN16];
    for (int k = 1; k <= MARGIN16; k++) {
        left[k - 1] = mirror(-k, w);
        right[k - 1] = mirror(w - 1 + k, w);
    }

    for (int i2 = 0; i2 < h2; i2++) {
        for (int pl = mode == VIF_DIS; pl < (mode == VIF_REF ? 1 : 2); pl++) {
            const uint16_t **rr = rows[pl];
            uint16_t *row = row16[pl];
            gather_rows(planes[pl], 2 * i2, fw, rr);
            for (int j = 0; j < wb; j += 16)
                sub_vertical_block(rr, fw, eight, shift, row, j);
            for (int j = wb; j < w; j++) {
                uint32_t acc = 0;
                for (int k = 0; k < fw; k++)
                    acc += f[k] * (uint32_t)rr[k][j];
                row[j] = (uint16_t)(((acc + rnd) >> shift) ^ 0x8000);
            }
            s0_mirror16(row, w, left, right);
            uint16_t *out = dst[pl] + (size_t)i2 * w2;
            for (int m = 0; m < w2b; m += 16)
                sub_horizontal_block(row, cp, half, out, m);
            for (int m = w2b; m < w2; m++) {
                uint32_t acc = 0;
                for (int t = 0; t < fw; t++)
                    acc += f[t] * (uint32_t)(row[2 * m + t - half] ^ 0x8000);
                out[m] = (uint16_t)((acc + 0x8000u) >> 16);
            }
        }
    }
}

/* fw 9 (into scale 1; eight: 8-bit input) or 5 (into scale 2). */
VIF_AVX2 __attribute__((noinline)) void
vmaf_vif_subsample_avx2_any(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                            uint16_t *dst_ref, uint16_t *dst_dis, int fw, int eight,
                            int shift, int mode)
{
    if (fw == 9 && eight)
        subsample_avx2(ws, ref, dis, dst_ref, dst_dis, 9, 1, shift, mode);
    else if (fw == 9)
        subsample_avx2(ws, ref, dis, dst_ref, dst_dis, 9, 0, shift, mode);
    else
        subsample_avx2(ws, ref, dis, dst_ref, dst_dis, 5, 0, shift, mode);
}

/* f(..., mode) with the mode as a constant. */
#define VIF_BY_MODE(mode, call_with_mode)                                                  \
    do {                                                                                   \
        if ((mode) == VIF_REF)                                                             \
            call_with_mode(VIF_REF);                                                       \
        else if ((mode) == VIF_DIS)                                                        \
            call_with_mode(VIF_DIS);                                                       \
        else                                                                               \
            call_with_mode(VIF_FUSED);                                                     \
    } while (0)

VIF_AVX2 __attribute__((noinline)) void
vmaf_vif_stat_scale0_8_avx2(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                            double egl, VmafVifSums *sums, int mode, VifSideRows side)
{
#define CALL(m) stat_scale_avx2(ws, ref, dis, 17, 1, 8, 0, 0, egl, sums, m, side)
    VIF_BY_MODE(mode, CALL);
#undef CALL
}

/* fw 17 (scale 0 above 8 bits), 9 or 5. */
VIF_AVX2 __attribute__((noinline)) void
vmaf_vif_stat_scale16_avx2(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis, int fw,
                           int mu_shift, int q, int acc512, double egl, VmafVifSums *sums,
                           int mode, VifSideRows side)
{
#define CALL17(m) stat_scale_avx2(ws, ref, dis, 17, 0, mu_shift, q, acc512, egl, sums, m, side)
#define CALL9(m) stat_scale_avx2(ws, ref, dis, 9, 0, mu_shift, q, acc512, egl, sums, m, side)
#define CALL5(m) stat_scale_avx2(ws, ref, dis, 5, 0, mu_shift, q, acc512, egl, sums, m, side)
    if (fw == 17)
        VIF_BY_MODE(mode, CALL17);
    else if (fw == 9)
        VIF_BY_MODE(mode, CALL9);
    else
        VIF_BY_MODE(mode, CALL5);
#undef CALL17
#undef CALL9
#undef CALL5
}

/* ------------------------------------------------------------------------------------- */
/* Hand-written AVX-512 (BW): the statistic of scale 0 at 8 bits                         */

/* The AVX2 passes above on 32 columns: the same arithmetic in 512-bit vectors (unpack and
 * pack work within 128-bit lanes here too). Blocks of 16 left over go through the AVX2
 * passes, the rest through the scalar ones. */
#define VIF_AVX512 __attribute__((target("avx2,avx512f,avx512bw")))
#define VIF_AVX512_VNNI __attribute__((target("avx2,avx512f,avx512bw,avx512vnni")))

VIF_AVX512 static inline __m512i z_load(const uint16_t *p)
{
    return _mm512_loadu_si512((const void *)p);
}

VIF_AVX512 static inline void z_store16(uint16_t *out, __m512i lo, __m512i hi)
{
    const __m512i v = _mm512_packus_epi32(lo, hi);
    _mm512_storeu_si512((void *)out, _mm512_xor_si512(v, _mm512_set1_epi16((short)0x8000)));
}

VIF_AVX512 static inline void z_store_split(uint16_t *out_hi, uint16_t *out_lo, __m512i lo,
                                            __m512i hi)
{
    const __m512i top = _mm512_set1_epi32((int)0x80000000u), mask = _mm512_set1_epi32(LO16);
    lo = _mm512_xor_si512(lo, top);
    hi = _mm512_xor_si512(hi, top);
    z_store16(out_hi, _mm512_srli_epi32(lo, 16), _mm512_srli_epi32(hi, 16));
    z_store16(out_lo, _mm512_and_si512(lo, mask), _mm512_and_si512(hi, mask));
}



VIF_AVX512 static inline __m512i z_mul_hi(__m512i a, __m512i b)
{
    const __m512i rnd = _mm512_set1_epi64(0x80000000ll);
    const __m512i pe = _mm512_add_epi64(_mm512_mul_epu32(a, b), rnd);
    const __m512i po = _mm512_add_epi64(
        _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), rnd);
    return _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(pe, 32), po);
}

VIF_AVX512 static inline __m512i z_join(__m512i hi, __m512i lo)
{
    return _mm512_add_epi32(
        hi, _mm512_srli_epi32(_mm512_add_epi32(lo, _mm512_set1_epi32(0x8000)), 16));
}

VIF_AVX512 static inline void z_sigmas(__m512i m1, __m512i m2, __m512i exx, __m512i eyy,
                                       __m512i exy, int32_t *sxx, int32_t *syy, int32_t *sxy)
{
    _mm512_storeu_si512((void *)sxx, _mm512_sub_epi32(exx, z_mul_hi(m1, m1)));
    _mm512_storeu_si512((void *)syy, _mm512_max_epi32(_mm512_sub_epi32(eyy, z_mul_hi(m2, m2)),
                                                      _mm512_setzero_si512()));
    _mm512_storeu_si512((void *)sxy, _mm512_sub_epi32(exy, z_mul_hi(m1, m2)));
}

/* stat_accumulate() on 8 columns at a time (AVX-512 F, DQ, CD, VL): the same integer and
 * double operations per pixel, lanes outside a branch masked off (gathers too), sums in
 * 64-bit lanes. The 32-bit gathers read two bytes past a table entry; log2_table has
 * room for that. */
/* VIF_AVX512_ACC: vif_internal.h */

/* L(v) of 32-bit lanes v >= 2^17 (lanes in m only). */
VIF_AVX512_ACC static inline __m256i z_log2_32(const uint16_t *table, __mmask8 m, __m256i v)
{
    const __m256i b = _mm256_sub_epi32(_mm256_set1_epi32(16), _mm256_lzcnt_epi32(v));
    const __m256i idx =
        _mm256_sub_epi32(_mm256_srlv_epi32(v, b), _mm256_set1_epi32(VMAF_VIF_LOG2_TABLE_FIRST));
    const __m256i t = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), m, idx, table, 2);
    return _mm256_add_epi32(_mm256_and_si256(t, _mm256_set1_epi32(LO16)),
                            _mm256_slli_epi32(b, 11));
}

/* L(v) of 64-bit lanes v >= 2^17 (lanes in m only), as 32-bit lanes. */
VIF_AVX512_ACC static inline __m256i z_log2_64(const uint16_t *table, __mmask8 m, __m512i v)
{
    const __m512i b = _mm512_sub_epi64(_mm512_set1_epi64(48), _mm512_lzcnt_epi64(v));
    const __m512i idx =
        _mm512_sub_epi64(_mm512_srlv_epi64(v, b), _mm512_set1_epi64(VMAF_VIF_LOG2_TABLE_FIRST));
    const __m256i t = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), m, idx, table, 2);
    return _mm256_add_epi32(_mm256_and_si256(t, _mm256_set1_epi32(LO16)),
                            _mm256_slli_epi32(_mm512_cvtepi64_epi32(b), 11));
}

/* The sums of a row by mode (stat_accumulate_part's): VIF_REF reads sigma_xx only. */
VIF_AVX512_ACC VIF_INLINE void accumulate512(const uint16_t *table, const int32_t *sigma_xx,
                                             const int32_t *sigma_yy, const int32_t *sigma_xy,
                                             int w, double egl, const int mode,
                                             VmafVifSums *sums)
{
    const __m256i nsq = _mm256_set1_epi32(VMAF_VIF_SIGMA_NSQ), zero = _mm256_setzero_si256();
    const __m512d eps = _mm512_set1_pd(65536 * 1.0e-10), egl_v = _mm512_set1_pd(egl);
    __m512i num_log = _mm512_setzero_si512(), den_log = num_log, num_non_log = num_log;
    int64_t den_non_log = 0;
    int j = 0;
    for (; j + 8 <= w; j += 8) {
        const __m256i sxx = _mm256_loadu_si256((const __m256i *)(sigma_xx + j));
        const __mmask8 lg = _mm256_cmpge_epi32_mask(sxx, nsq);
        /* non-log lanes */
        __m256i syy = zero;
        if (mode != VIF_REF) {
            syy = _mm256_loadu_si256((const __m256i *)(sigma_yy + j));
            num_non_log = _mm512_mask_add_epi64(num_non_log, (__mmask8)~lg, num_non_log,
                                                _mm512_cvtepi32_epi64(syy));
        }
        if (mode != VIF_DIS)
            den_non_log += 8 - __builtin_popcount(lg);
        if (!lg)
            continue;
        if (mode != VIF_DIS) {
            /* den_log: L(N + sxx) - 17 * 2048 */
            const __m256i dl =
                _mm256_sub_epi32(z_log2_32(table, lg, _mm256_add_epi32(nsq, sxx)),
                                 _mm256_set1_epi32(17 * VMAF_VIF_LOG2_ONE));
            den_log = _mm512_mask_add_epi64(den_log, lg, den_log, _mm512_cvtepi32_epi64(dl));
        }
        if (mode == VIF_REF)
            continue;
        const __m256i sxy = _mm256_loadu_si256((const __m256i *)(sigma_xy + j));
        const __mmask8 nl = lg & _mm256_cmpgt_epi32_mask(sxy, zero) &
                            _mm256_cmpgt_epi32_mask(syy, zero);
        if (!nl)
            continue;
        const __m512d dxx = _mm512_cvtepi32_pd(sxx), dyy = _mm512_cvtepi32_pd(syy);
        const __m512d dxy = _mm512_cvtepi32_pd(sxy);
        __m512d g = _mm512_div_pd(dxy, _mm512_add_pd(dxx, eps));
        const __m512d sv_d = _mm512_sub_pd(dyy, _mm512_mul_pd(g, dxy));
        /* truncated; anything not positive gives 0 */
        const __m256i sv = _mm256_max_epi32(_mm512_cvttpd_epi32(sv_d), zero);
        g = _mm512_min_pd(g, egl_v);
        const __m512i gain = _mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_mul_pd(g, g), dxx));
        const __m256i numer = _mm256_add_epi32(sv, nsq);
        const __m512i sum = _mm512_add_epi64(gain, _mm512_cvtepu32_epi64(numer));
        const __m256i d = _mm256_sub_epi32(z_log2_64(table, nl, sum),
                                           z_log2_32(table, nl, numer));
        num_log = _mm512_mask_add_epi64(num_log, nl, num_log, _mm512_cvtepi32_epi64(d));
    }
    sums->num_log += _mm512_reduce_add_epi64(num_log);
    sums->den_log += _mm512_reduce_add_epi64(den_log);
    sums->num_non_log += _mm512_reduce_add_epi64(num_non_log);
    sums->den_non_log += den_non_log;
    if (j < w) {
        /* the leftover columns, through the scalar code */
        VmafVifSums rest = { 0 };
        stat_accumulate_part(table, sigma_xx, sigma_yy, sigma_xy, j, w, egl, mode, &rest);
        sums->num_log += rest.num_log;
        sums->den_log += rest.den_log;
        sums->num_non_log += rest.num_non_log;
        sums->den_non_log += rest.den_non_log;
    }
}

VIF_AVX512_ACC __attribute__((noinline)) static void
stat_accumulate_avx512(const uint16_t *table, const int32_t *sigma_xx,
                       const int32_t *sigma_yy, const int32_t *sigma_xy, int w, double egl,
                       int mode, VmafVifSums *sums)
{
#define CALL(m) accumulate512(table, sigma_xx, sigma_yy, sigma_xy, w, egl, m, sums)
    VIF_BY_MODE(mode, CALL);
#undef CALL
}


/* The scale-0 passes, twice (vif_z512.h): AVX-512 BW, then with AVX-512 VNNI. */
#define Z_FN(name) name
#define Z_TARGET VIF_AVX512
#define Z_TARGET_ACC VIF_AVX512_ACC
#define Z_MADD_ACC(acc, a, b) acc = _mm512_add_epi32(acc, _mm512_madd_epi16(a, b))
#include "vif_z512.h"
#undef Z_FN
#undef Z_TARGET
#undef Z_TARGET_ACC
#undef Z_MADD_ACC

#define Z_FN(name) name##_vnni
#define Z_TARGET VIF_AVX512_VNNI
#define Z_TARGET_ACC VIF_AVX512_ACC_VNNI
#define Z_MADD_ACC(acc, a, b) acc = _mm512_dpwssd_epi32(acc, a, b)
#include "vif_z512.h"
#undef Z_FN
#undef Z_TARGET
#undef Z_TARGET_ACC
#undef Z_MADD_ACC

#endif /* VIF_HAVE_AVX2 */
