/*
 * Twin VMAF — integer VIF: the AVX-512 passes of scale 0 at 8 bits (vif_simd.c), written
 * once and compiled twice there: with Z_MADD_ACC a 16-bit multiply-add and a separate
 * 32-bit add (AVX-512 BW), and with the fused multiply-add-accumulate of AVX-512 VNNI
 * (vpdpwssd: the same products, the same wrapping 32-bit sums, so the same bits).
 * The includer defines Z_FN(name) (the names of one compilation), Z_TARGET (the passes'
 * instruction sets), Z_TARGET_ACC (the statistic's, with stat_accumulate's) and Z_MADD_ACC.
 * No include guard: meant to be included more than once.
 */

/* lo, hi += the 16-bit pairs of a and b interleaved (their low, high halves), times w */
#define Z_MADD_PAIR(lo, hi, a, b, w)                                                        \
    do {                                                                                    \
        Z_MADD_ACC(lo, _mm512_unpacklo_epi16(a, b), w);                                     \
        Z_MADD_ACC(hi, _mm512_unpackhi_epi16(a, b), w);                                     \
    } while (0)

/* The weight of tap pair k of the 17-tap filter for a pair (row k, row 16 - k): (f[k], f[k]);
 * the centre (k = 8) alone: (f[8], 0). */
Z_TARGET VIF_INLINE __m512i Z_FN(z_tap)(int k)
{
    const uint16_t *f = vmaf_vif_filter[0];
    return k < 8 ? _mm512_set1_epi32(f[k] | (uint32_t)f[k] << 16) : _mm512_set1_epi32(f[8]);
}

/* Tap k of a mean (m_x or m_y) into m = { low, high }: s is the sum of rows k and 16 - k
 * (the centre row alone at k = 8), s_prev tap k - 1's. Odd k adds the pair (s_prev, s) with
 * (f[k - 1], f[k]); the centre adds (s, s) with (f[8], 0) (its pair sum would count it twice). */
Z_TARGET VIF_INLINE void Z_FN(z_mean_tap)(int k, __m512i s_prev, __m512i s, __m512i m[2])
{
    const uint16_t *f = vmaf_vif_filter[0];
    if (k & 1)
        Z_MADD_PAIR(m[0], m[1], s_prev, s,
                    _mm512_set1_epi32(f[k - 1] | (uint32_t)f[k] << 16));
    else if (k == 8)
        Z_MADD_PAIR(m[0], m[1], s, s, Z_FN(z_tap)(8));
}

/* Tap k of the q_yy and q_xy sums (z_vertical_block's second part): the products y*y and
 * x*y of rows k and 16 - k (rr: reference, dr: distorted; columns j .. j+31), biased to
 * signed 16 bits, weighted by tap k, into q = { yy low, yy high, xy low, xy high }. */
Z_TARGET VIF_INLINE void Z_FN(z_products_tap)(const uint16_t *const *rr,
                                              const uint16_t *const *dr, int j, int k,
                                              __m512i q[4])
{
    const __m512i xa = z_load(rr[k] + j), xb = z_load(rr[16 - k] + j);
    const __m512i ya = z_load(dr[k] + j), yb = z_load(dr[16 - k] + j);
    const __m512i fk = Z_FN(z_tap)(k);
    const __m512i bias = _mm512_set1_epi16((short)0x8000);
    const __m512i ya2 = _mm512_xor_si512(_mm512_mullo_epi16(ya, ya), bias);
    const __m512i yb2 = _mm512_xor_si512(_mm512_mullo_epi16(yb, yb), bias);
    const __m512i ca = _mm512_xor_si512(_mm512_mullo_epi16(xa, ya), bias);
    const __m512i cb = _mm512_xor_si512(_mm512_mullo_epi16(xb, yb), bias);
    Z_MADD_PAIR(q[0], q[1], ya2, yb2, fk);
    Z_MADD_PAIR(q[2], q[3], ca, cb, fk);
}

/* The rounded means of m = { low, high } as 16 bits into dst. */
Z_TARGET VIF_INLINE void Z_FN(z_store_mean)(uint16_t *dst, const __m512i m[2])
{
    const __m512i rnd = _mm512_set1_epi32(128);
    z_store16(dst, _mm512_srli_epi32(_mm512_add_epi32(m[0], rnd), 8),
              _mm512_srli_epi32(_mm512_add_epi32(m[1], rnd), 8));
}

/* The distorted side of z_vertical_block in one loop, each row loaded once: m_y as in the
 * first part, q_yy and q_xy as in the second (the rows read here for m_y are
 * z_products_tap's own: once inlined, the same loads). */
Z_TARGET VIF_INLINE void Z_FN(z_vertical_block_dis)(const uint16_t *const *rr,
                                                    const uint16_t *const *dr,
                                                    uint16_t *const *row16, int j)
{
    const __m512i zero = _mm512_setzero_si512();
    __m512i m2[2] = { zero, zero }, sy_prev = zero;
    __m512i q[4] = { zero, zero, zero, zero }; /* q_yy, q_xy: low, high halves */
#pragma GCC unroll 9
    for (int k = 0; k <= 8; k++) {
        Z_FN(z_products_tap)(rr, dr, j, k, q);
        const __m512i ya = z_load(dr[k] + j), yb = z_load(dr[16 - k] + j);
        const __m512i sy = k < 8 ? _mm512_add_epi16(ya, yb) : ya;
        Z_FN(z_mean_tap)(k, sy_prev, sy, m2);
        sy_prev = sy;
    }
    Z_FN(z_store_mean)(row16[1] + j, m2);
    z_store_split(row16[4] + j, row16[5] + j, q[0], q[1]);
    z_store_split(row16[6] + j, row16[7] + j, q[2], q[3]);
}

/* Vertical pass over columns j .. j+31 (see s0_vertical_block; the same parts by mode). */
Z_TARGET VIF_INLINE void Z_FN(z_vertical_block)(const uint16_t *const *rr,
                                                const uint16_t *const *dr,
                                                uint16_t *const *row16, int j, const int mode)
{
    if (mode == VIF_DIS) {
        Z_FN(z_vertical_block_dis)(rr, dr, row16, j);
        return;
    }
    const bool dis = mode != VIF_REF; /* VIF_FUSED or VIF_REF: the reference side is made */
    const __m512i bias = _mm512_set1_epi16((short)0x8000), zero = _mm512_setzero_si512();
    __m512i m1[2] = { zero, zero }, m2[2] = { zero, zero }, xxl = zero, xxh = zero;
    __m512i sx_prev = zero, sy_prev = zero;

#pragma GCC unroll 9
    for (int k = 0; k <= 8; k++) {
        const __m512i xa = z_load(rr[k] + j), xb = z_load(rr[16 - k] + j);
        const __m512i xa2 = _mm512_xor_si512(_mm512_mullo_epi16(xa, xa), bias);
        const __m512i xb2 = _mm512_xor_si512(_mm512_mullo_epi16(xb, xb), bias);
        Z_MADD_PAIR(xxl, xxh, xa2, xb2, Z_FN(z_tap)(k));
        const __m512i sx = k < 8 ? _mm512_add_epi16(xa, xb) : xa;
        Z_FN(z_mean_tap)(k, sx_prev, sx, m1);
        sx_prev = sx;
        if (dis) {
            const __m512i ya = z_load(dr[k] + j), yb = z_load(dr[16 - k] + j);
            const __m512i sy = k < 8 ? _mm512_add_epi16(ya, yb) : ya;
            Z_FN(z_mean_tap)(k, sy_prev, sy, m2);
            sy_prev = sy;
        }
    }
    Z_FN(z_store_mean)(row16[0] + j, m1);
    z_store_split(row16[2] + j, row16[3] + j, xxl, xxh);
    if (!dis)
        return;
    Z_FN(z_store_mean)(row16[1] + j, m2);

    __m512i q[4] = { zero, zero, zero, zero }; /* q_yy, q_xy: low, high halves */
#pragma GCC unroll 9
    for (int k = 0; k <= 8; k++)
        Z_FN(z_products_tap)(rr, dr, j, k, q);
    z_store_split(row16[4] + j, row16[5] + j, q[0], q[1]);
    z_store_split(row16[6] + j, row16[7] + j, q[2], q[3]);
}

Z_TARGET VIF_INLINE void Z_FN(z_hsum)(const uint16_t *row, const __m512i *cp, int j, __m512i *ev,
                                      __m512i *od)
{
    __m512i e = _mm512_setzero_si512(), o = e;
#pragma GCC unroll 9
    for (int u = 0; u <= 8; u++) {
        Z_MADD_ACC(e, z_load(row + j - 8 + 2 * u), cp[u]);
        Z_MADD_ACC(o, z_load(row + j - 7 + 2 * u), cp[u]);
    }
    const __m512i top = _mm512_set1_epi32((int)0x80000000u);
    *ev = _mm512_xor_si512(e, top);
    *od = _mm512_xor_si512(o, top);
}
/* Horizontal pass over columns j .. j+31 (sigma rows: 16 even columns, then 16 odd), of
 * the mode's rows (see s0_horizontal_block). */
Z_TARGET VIF_INLINE void Z_FN(z_horizontal_block)(uint16_t *const *row16, const __m512i *cp,
                                                  VmafVifWorkspace *ws, int j, const int mode,
                                                  uint32_t *side_mu1, int32_t *side_sxx)
{
    __m512i m1e, m1o, m2e, m2o, he, ho, le, lo;
    if (mode == VIF_REF) {
        Z_FN(z_hsum)(row16[0], cp, j, &m1e, &m1o);
        Z_FN(z_hsum)(row16[2], cp, j, &he, &ho);
        Z_FN(z_hsum)(row16[3], cp, j, &le, &lo);
        const __m512i exx_e = z_join(he, le), exx_o = z_join(ho, lo);
        _mm512_storeu_si512((void *)(side_mu1 + j), m1e);
        _mm512_storeu_si512((void *)(side_mu1 + j + 16), m1o);
        _mm512_storeu_si512((void *)(side_sxx + j),
                            _mm512_sub_epi32(exx_e, z_mul_hi(m1e, m1e)));
        _mm512_storeu_si512((void *)(side_sxx + j + 16),
                            _mm512_sub_epi32(exx_o, z_mul_hi(m1o, m1o)));
        return;
    }
    if (mode == VIF_DIS) {
        Z_FN(z_hsum)(row16[1], cp, j, &m2e, &m2o);
        Z_FN(z_hsum)(row16[4], cp, j, &he, &ho);
        Z_FN(z_hsum)(row16[5], cp, j, &le, &lo);
        const __m512i eyy_e = z_join(he, le), eyy_o = z_join(ho, lo);
        Z_FN(z_hsum)(row16[6], cp, j, &he, &ho);
        Z_FN(z_hsum)(row16[7], cp, j, &le, &lo);
        const __m512i exy_e = z_join(he, le), exy_o = z_join(ho, lo);
        m1e = _mm512_loadu_si512((const void *)(side_mu1 + j));
        m1o = _mm512_loadu_si512((const void *)(side_mu1 + j + 16));
        const __m512i zero = _mm512_setzero_si512();
        _mm512_storeu_si512((void *)(ws->sigma_yy + j),
                            _mm512_max_epi32(_mm512_sub_epi32(eyy_e, z_mul_hi(m2e, m2e)), zero));
        _mm512_storeu_si512((void *)(ws->sigma_yy + j + 16),
                            _mm512_max_epi32(_mm512_sub_epi32(eyy_o, z_mul_hi(m2o, m2o)), zero));
        _mm512_storeu_si512((void *)(ws->sigma_xy + j),
                            _mm512_sub_epi32(exy_e, z_mul_hi(m1e, m2e)));
        _mm512_storeu_si512((void *)(ws->sigma_xy + j + 16),
                            _mm512_sub_epi32(exy_o, z_mul_hi(m1o, m2o)));
        return;
    }
    Z_FN(z_hsum)(row16[0], cp, j, &m1e, &m1o);
    Z_FN(z_hsum)(row16[1], cp, j, &m2e, &m2o);
    Z_FN(z_hsum)(row16[2], cp, j, &he, &ho);
    Z_FN(z_hsum)(row16[3], cp, j, &le, &lo);
    const __m512i exx_e = z_join(he, le), exx_o = z_join(ho, lo);
    Z_FN(z_hsum)(row16[4], cp, j, &he, &ho);
    Z_FN(z_hsum)(row16[5], cp, j, &le, &lo);
    const __m512i eyy_e = z_join(he, le), eyy_o = z_join(ho, lo);
    Z_FN(z_hsum)(row16[6], cp, j, &he, &ho);
    Z_FN(z_hsum)(row16[7], cp, j, &le, &lo);
    const __m512i exy_e = z_join(he, le), exy_o = z_join(ho, lo);
    z_sigmas(m1e, m2e, exx_e, eyy_e, exy_e, ws->sigma_xx + j, ws->sigma_yy + j,
             ws->sigma_xy + j);
    z_sigmas(m1o, m2o, exx_o, eyy_o, exy_o, ws->sigma_xx + j + 16, ws->sigma_yy + j + 16,
             ws->sigma_xy + j + 16);
}

Z_TARGET_ACC VIF_INLINE void Z_FN(stat_scale0_8_avx512)(VmafVifWorkspace *ws, const Plane *ref,
                                                        const Plane *dis, double egl,
                                                        VmafVifSums *sums, const int mode,
                                                        VifSideRows side)
{
    const int w = ref->w, h = ref->h;
    const int wz = w & ~31, wb = w & ~15;
    const uint16_t *f = vmaf_vif_filter[0];
    /* dr stays NULL where a pass reads no dis row (VIF_REF) */
    const uint16_t *rr[VMAF_VIF_MAX_FILTER_WIDTH] = { 0 };
    const uint16_t *dr[VMAF_VIF_MAX_FILTER_WIDTH] = { 0 };
    uint16_t *const *row16 = ws->row16;
    __m512i zp[9];
    __m256i cp[9];
    for (int u = 0; u <= 8; u++) {
        const uint32_t c = f[2 * u] | (u < 8 ? (uint32_t)f[2 * u + 1] << 16 : 0);
        zp[u] = _mm512_set1_epi32((int)c);
        cp[u] = _mm256_set1_epi32((int)c);
    }
    int left[MARGIN16], right[MARGIN16];
    for (int k = 1; k <= MARGIN16; k++) {
        left[k - 1] = mirror(-k, w);
        right[k - 1] = mirror(w - 1 + k, w);
    }

    for (int i = 0; i < h; i++) {
        uint32_t *const side_mu1 = mode == VIF_FUSED ? NULL : side.mu1 + (size_t)i * w;
        int32_t *const side_sxx = mode == VIF_FUSED ? NULL : side.sxx + (size_t)i * w;
        gather_rows(ref, i, 17, rr);
        if (mode != VIF_REF)
            gather_rows(dis, i, 17, dr);
        for (int j = 0; j < wz; j += 32)
            Z_FN(z_vertical_block)(rr, dr, row16, j, mode);
        for (int j = wz; j < wb; j += 16)
            s0_vertical_block(rr, dr, row16, j, mode);
        for (int j = wb; j < w; j++)
            s0_vertical_column(rr, dr, row16, j, mode);
        for (int r = 0; r < 8; r++)
            if (makes_row(mode, r))
                s0_mirror16(row16[r], w, left, right);
        for (int j = 0; j < wz; j += 32)
            Z_FN(z_horizontal_block)(row16, zp, ws, j, mode, side_mu1, side_sxx);
        for (int j = wz; j < wb; j += 16)
            s0_horizontal_block(row16, cp, 8, ws, j, mode, side_mu1, side_sxx);
        for (int j = wb; j < w; j++)
            s0_horizontal_column(row16, 17, ws, j, mode, side_mu1, side_sxx);
        accumulate512(ws->log2_table, mode == VIF_FUSED ? ws->sigma_xx : side_sxx,
                      ws->sigma_yy, ws->sigma_xy, w, egl, mode, sums);
    }
}

Z_TARGET_ACC __attribute__((noinline)) void
Z_FN(vmaf_vif_stat_scale0_8_avx512)(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                                    double egl, VmafVifSums *sums, int mode, VifSideRows side)
{
#define CALL(m) Z_FN(stat_scale0_8_avx512)(ws, ref, dis, egl, sums, m, side)
    VIF_BY_MODE(mode, CALL);
#undef CALL
}

#undef Z_MADD_PAIR
