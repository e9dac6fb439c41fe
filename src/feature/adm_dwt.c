/*
 * Twin VMAF — integer ADM: one level of the db2 wavelet per scale (see adm.h).
 *
 * Each output row i filters input rows tap(i, 0..3) vertically into a low and a high line
 * (the row buffer), then each output column j filters line positions tap(j, 0..3):
 *   A = lo(lo line)  V = hi(lo line)  H = lo(hi line)  D = hi(hi line).
 *
 * Scale 0, b-bit samples s (int32 arithmetic, wrapping like the reference for b = 16):
 *   lo line = (sum lo_k s_k - 46342 * 2^(b-1) + 2^(b-1)) >> b     (centres the range)
 *   hi line = (sum hi_k s_k + 2^(b-1)) >> b
 *   band    = (sum f_k line_k + 2^15) >> 16                         all int16
 * Scales 1..3 (int64 sums of int32 band A values, results int32):
 *   line = (sum f_k a_k + rv) >> sv     band = (sum f_k line_k + rh) >> sh
 *   with (rv, sv, rh, sh) = (0, 0, 2^14, 15), (2^15, 16, 2^15, 16), (2^15, 16, 2^14, 15).
 */
#include <stdint.h>
#include <string.h>

#include "adm.h"
#include "adm_device.h"
#include "adm_simd.h"

#define LO vmaf_adm_filter_lo
#define HI vmaf_adm_filter_hi

bool vmaf_adm_simd_available(void)
{
#if ADM_HAVE_HAND
    return adm_use_avx2();
#else
    return false;
#endif
}

/* The per-element arithmetic (taps, roundings, the index rules at the edges, the unmirrored
 * last column of the reference's vector kernels, the picture rows of scale 0) is
 * adm_device.h's, shared with the GPU twin. */

/* Vertical pass of scale 0 over x in [0, w), for 8-bit (T = uint8_t) or wider samples. */
#define DEFINE_VPASS0(NAME, T)                                                           \
    ADM_INLINE void NAME(const T *restrict r0, const T *restrict r1, const T *restrict r2, \
                         const T *restrict r3, int w, unsigned bpc, int16_t *restrict lo,  \
                         int16_t *restrict hi)                                           \
    {                                                                                    \
        for (int x = 0; x < w; x++) {                                                    \
            int16_t l, g;                                                                \
            vmaf_adm_vpass0(r0[x], r1[x], r2[x], r3[x], bpc, &l, &g);                    \
            lo[x] = l;                                                                   \
            hi[x] = g;                                                                   \
        }                                                                                \
    }

DEFINE_VPASS0(vpass0_u8, uint8_t)
DEFINE_VPASS0(vpass0_u16, uint16_t)

/* One scale-0 output column from explicit line positions (any j; positions may lie outside
 * [0, w): they read the neighbouring parts of the row buffer, as the reference does). */
static void column0(const int16_t *line, int w, const int p[4], size_t j,
                    const VmafAdmBands16 *dst, int32_t *a, size_t off, bool lo_only)
{
    int16_t lo[4], hi[4];
    for (int k = 0; k < 4; k++) {
        memcpy(&lo[k], line + p[k], sizeof(int16_t));
        memcpy(&hi[k], line + w + p[k], sizeof(int16_t));
    }
    if (lo_only)
        a[off + j] = vmaf_adm_taps16(0, lo[0], lo[1], lo[2], lo[3]);
    else
        vmaf_adm_dwt0_plain(lo, hi, &a[off + j], &dst->v[off + j], &dst->h[off + j],
                            &dst->d[off + j]);
}

/* Columns [j0, j1) where every tap lies inside the line: positions 2j-1 .. 2j+2 (the
 * outputs go through locals: stores through restrict pointers keep the loop vectorizable). */
ADM_INLINE void hpass0_interior(const int16_t *restrict lo, const int16_t *restrict hi, int j0,
                                int j1, int32_t *restrict a, int16_t *restrict v,
                                int16_t *restrict h, int16_t *restrict d)
{
    for (int j = j0; j < j1; j++) {
        int32_t aj;
        int16_t vj, hj, dj;
        vmaf_adm_dwt0_plain(lo + 2 * j - 1, hi + 2 * j - 1, &aj, &vj, &hj, &dj);
        a[j] = aj;
        v[j] = vj;
        h[j] = hj;
        d[j] = dj;
    }
}

ADM_INLINE void hpass0_interior_a(const int16_t *restrict lo, int j1, int32_t *restrict a)
{
    for (int j = 1; j < j1; j++)
        a[j] = vmaf_adm_taps16(0, lo[2 * j - 1], lo[2 * j], lo[2 * j + 1], lo[2 * j + 2]);
}

#if ADM_HAVE_HAND
/* Hand-written AVX2 versions (the same integers): pairs of int16 samples times pairs of taps
 * with vpmaddwd. Every sum fits int32 (the taps' magnitudes add up to 54822, so a line of
 * int16 values stays below 2^31), and every result fits int16, so packs is exact. */
ADM_TARGET_AVX2 static inline __m256i taps_pair(int16_t a, int16_t b)
{
    return _mm256_set1_epi32((int32_t)(((uint32_t)(uint16_t)b << 16) | (uint16_t)a));
}

ADM_TARGET_AVX2 static void vpass0_u8_hand(const uint8_t *restrict r0, const uint8_t *restrict r1,
                                           const uint8_t *restrict r2,
                                           const uint8_t *restrict r3, int w,
                                           int16_t *restrict lo, int16_t *restrict hi)
{
    const __m256i lo01 = taps_pair(LO[0], LO[1]), lo23 = taps_pair(LO[2], LO[3]);
    const __m256i hi01 = taps_pair(HI[0], HI[1]), hi23 = taps_pair(HI[2], HI[3]);
    /* lo: - 46342 * 128 + 128, hi: + 128 (8-bit) */
    const __m256i lo_add = _mm256_set1_epi32(128 - VMAF_ADM_FILTER_LO_SUM * 128);
    const __m256i hi_add = _mm256_set1_epi32(128);
    int x = 0;
    for (; x + 16 <= w; x += 16) {
        const __m256i s0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r0 + x)));
        const __m256i s1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r1 + x)));
        const __m256i s2 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r2 + x)));
        const __m256i s3 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r3 + x)));
        /* lane-local interleave: pixels 0-3 | 8-11 (lo halves), 4-7 | 12-15 (hi halves) */
        const __m256i p01l = _mm256_unpacklo_epi16(s0, s1), p01h = _mm256_unpackhi_epi16(s0, s1);
        const __m256i p23l = _mm256_unpacklo_epi16(s2, s3), p23h = _mm256_unpackhi_epi16(s2, s3);
        __m256i ll = _mm256_add_epi32(_mm256_madd_epi16(p01l, lo01), _mm256_madd_epi16(p23l, lo23));
        __m256i lh = _mm256_add_epi32(_mm256_madd_epi16(p01h, lo01), _mm256_madd_epi16(p23h, lo23));
        __m256i gl = _mm256_add_epi32(_mm256_madd_epi16(p01l, hi01), _mm256_madd_epi16(p23l, hi23));
        __m256i gh = _mm256_add_epi32(_mm256_madd_epi16(p01h, hi01), _mm256_madd_epi16(p23h, hi23));
        ll = _mm256_srai_epi32(_mm256_add_epi32(ll, lo_add), 8);
        lh = _mm256_srai_epi32(_mm256_add_epi32(lh, lo_add), 8);
        gl = _mm256_srai_epi32(_mm256_add_epi32(gl, hi_add), 8);
        gh = _mm256_srai_epi32(_mm256_add_epi32(gh, hi_add), 8);
        /* packs undoes the unpack order lane by lane */
        _mm256_storeu_si256((__m256i *)(lo + x), _mm256_packs_epi32(ll, lh));
        _mm256_storeu_si256((__m256i *)(hi + x), _mm256_packs_epi32(gl, gh));
    }
    if (x < w)
        vpass0_u8(r0 + x, r1 + x, r2 + x, r3 + x, w - x, 8, lo + x, hi + x);
}

/* Eight outputs j .. j+7 of one line: taps 0,1 from the pairs at 2j-1, taps 2,3 from 2j+1. */
ADM_TARGET_AVX2 static inline __m256i hfilter8(__m256i at, __m256i next, __m256i f01,
                                               __m256i f23, __m256i round)
{
    const __m256i s = _mm256_add_epi32(_mm256_madd_epi16(at, f01), _mm256_madd_epi16(next, f23));
    return _mm256_srai_epi32(_mm256_add_epi32(s, round), 16);
}

ADM_TARGET_AVX2 static void hpass0_interior_hand(const int16_t *restrict lo,
                                                 const int16_t *restrict hi, int j1,
                                                 int32_t *restrict a, int16_t *restrict v,
                                                 int16_t *restrict h, int16_t *restrict d)
{
    const __m256i lo01 = taps_pair(LO[0], LO[1]), lo23 = taps_pair(LO[2], LO[3]);
    const __m256i hi01 = taps_pair(HI[0], HI[1]), hi23 = taps_pair(HI[2], HI[3]);
    const __m256i round = _mm256_set1_epi32(32768);
    int j = 1;
    /* outputs j .. j+15 read line positions 2j-1 .. 2j+32, inside [0, 2 j1) */
    for (; j + 16 <= j1; j += 16) {
        const int16_t *pl = lo + 2 * j - 1, *ph = hi + 2 * j - 1;
        const __m256i l0 = _mm256_loadu_si256((const __m256i *)pl);
        const __m256i l1 = _mm256_loadu_si256((const __m256i *)(pl + 2));
        const __m256i l2 = _mm256_loadu_si256((const __m256i *)(pl + 16));
        const __m256i l3 = _mm256_loadu_si256((const __m256i *)(pl + 18));
        const __m256i h0 = _mm256_loadu_si256((const __m256i *)ph);
        const __m256i h1 = _mm256_loadu_si256((const __m256i *)(ph + 2));
        const __m256i h2 = _mm256_loadu_si256((const __m256i *)(ph + 16));
        const __m256i h3 = _mm256_loadu_si256((const __m256i *)(ph + 18));
        const __m256i a0 = hfilter8(l0, l1, lo01, lo23, round);
        const __m256i a1 = hfilter8(l2, l3, lo01, lo23, round);
        _mm256_storeu_si256((__m256i *)(a + j), a0);
        _mm256_storeu_si256((__m256i *)(a + j + 8), a1);
        const __m256i v0 = hfilter8(l0, l1, hi01, hi23, round);
        const __m256i v1 = hfilter8(l2, l3, hi01, hi23, round);
        const __m256i h0o = hfilter8(h0, h1, lo01, lo23, round);
        const __m256i h1o = hfilter8(h2, h3, lo01, lo23, round);
        const __m256i d0 = hfilter8(h0, h1, hi01, hi23, round);
        const __m256i d1 = hfilter8(h2, h3, hi01, hi23, round);
        _mm256_storeu_si256((__m256i *)(v + j),
                            _mm256_permute4x64_epi64(_mm256_packs_epi32(v0, v1), 0xD8));
        _mm256_storeu_si256((__m256i *)(h + j),
                            _mm256_permute4x64_epi64(_mm256_packs_epi32(h0o, h1o), 0xD8));
        _mm256_storeu_si256((__m256i *)(d + j),
                            _mm256_permute4x64_epi64(_mm256_packs_epi32(d0, d1), 0xD8));
    }
    hpass0_interior(lo, hi, j, j1, a, v, h, d);
}
#define ADM_HAND(call) call
#else
#define ADM_HAND(call) ((void)0)
#endif

ADM_INLINE void dwt_scale0_body(const void *src, ptrdiff_t stride, unsigned bpc, int w, int h,
                                int16_t *rows, const VmafAdmBands16 *dst, int32_t *band_a,
                                size_t dst_stride, bool lo_only, bool hand)
{
    const int half_w = (w + 1) / 2, half_h = (h + 1) / 2;
    int16_t *lo = rows, *hi = rows + w;
    /* the unmirrored last column reads the two values after the hi line; nothing of this
     * frame writes them, so they are zeroed (as in a fresh buffer) rather than left to what
     * an earlier frame's scales 1..3 left there: a frame's scores never depend on another */
    rows[2 * w] = rows[2 * w + 1] = 0;
    const bool straight_last =
        !lo_only && vmaf_adm_straight_last(half_w, vmaf_adm_dwt0_group(bpc));

    for (int i = 0; i < half_h; i++) {
        const unsigned char *r[4];
        for (int k = 0; k < 4; k++)
            r[k] = (const unsigned char *)src +
                   (ptrdiff_t)vmaf_adm_picture_row(i, k, h) * stride;
        if (bpc == 8 && hand)
            ADM_HAND(vpass0_u8_hand(r[0], r[1], r[2], r[3], w, lo, hi));
        else if (bpc == 8)
            vpass0_u8(r[0], r[1], r[2], r[3], w, 8, lo, hi);
        else
            vpass0_u16((const uint16_t *)(const void *)r[0], (const uint16_t *)(const void *)r[1],
                       (const uint16_t *)(const void *)r[2], (const uint16_t *)(const void *)r[3],
                       w, bpc, lo, hi);

        const size_t off = (size_t)i * dst_stride;
        int p[4];
        for (int k = 0; k < 4; k++)
            p[k] = vmaf_adm_tap(0, k, w);
        column0(rows, w, p, 0, dst, band_a, off, lo_only);
        if (half_w < 2)
            continue;
        if (lo_only)
            hpass0_interior_a(lo, half_w - 1, band_a + off);
        else if (hand)
            ADM_HAND(hpass0_interior_hand(lo, hi, half_w - 1, band_a + off, dst->v + off,
                                          dst->h + off, dst->d + off));
        else
            hpass0_interior(lo, hi, 1, half_w - 1, band_a + off, dst->v + off, dst->h + off,
                            dst->d + off);
        for (int k = 0; k < 4; k++)
            p[k] = vmaf_adm_dwt_pos(half_w - 1, k, w, half_w, straight_last);
        column0(rows, w, p, (size_t)half_w - 1, dst, band_a, off, lo_only);
    }
}

ADM_INLINE void vmaf_adm_dwt_scale0_impl(const void *src, ptrdiff_t stride, unsigned bpc, int w,
                                         int h, int16_t *rows, const VmafAdmBands16 *dst,
                                         int32_t *band_a, size_t dst_stride, bool lo_only)
{
    dwt_scale0_body(src, stride, bpc, w, h, rows, dst, band_a, dst_stride, lo_only, false);
}

#if ADM_HAVE_HAND
ADM_TARGET_AVX2 void vmaf_adm_dwt_scale0_simd(const void *src, ptrdiff_t stride, unsigned bpc,
                                              int w, int h, int16_t *rows,
                                              const VmafAdmBands16 *dst, int32_t *band_a,
                                              size_t dst_stride, bool lo_only)
{
    dwt_scale0_body(src, stride, bpc, w, h, rows, dst, band_a, dst_stride, lo_only, true);
}
#else
void vmaf_adm_dwt_scale0_simd(const void *src, ptrdiff_t stride, unsigned bpc, int w, int h,
                              int16_t *rows, const VmafAdmBands16 *dst, int32_t *band_a,
                              size_t dst_stride, bool lo_only)
{
    vmaf_adm_dwt_scale0(src, stride, bpc, w, h, rows, dst, band_a, dst_stride, lo_only);
}
#endif

ADM_DISPATCH_VOID(vmaf_adm_dwt_scale0,
                  (const void *src, ptrdiff_t stride, unsigned bpc, int w, int h, int16_t *rows,
                   const VmafAdmBands16 *dst, int32_t *band_a, size_t dst_stride,
                   bool lo_only),
                  (src, stride, bpc, w, h, rows, dst, band_a, dst_stride, lo_only))

/* ------------------------------------------------------------------------------------- */
/* Scales 1..3                                                                           */

/*
 * vmaf_adm_taps32() in int32 lanes (twice as many per vector as int64): with
 * a = 65536 * high + low, low in [-2^15, 2^15), the filter sums of the highs and of the lows
 * each fit int32 (the taps' magnitudes add up to 54822 < 2^16), and a rounding shift of 0,
 * 15 or 16 distributes:
 * (65536 H + L + r) >> s = (H << (16 - s)) + ((L + r) >> s). Only the result mod 2^32 is
 * kept, as the reference's (int32_t) cast keeps it.
 */
typedef struct Split {
    int32_t high, low;
} Split;

ADM_INLINE Split split(int32_t a)
{
    const int32_t u = a & 0xFFFF;
    const int32_t b15 = u >> 15;
    const Split s = { (a >> 16) + b15, u - (b15 << 16) };
    return s;
}

ADM_INLINE int32_t taps_split(const int16_t *f, Split a, Split b, Split c, Split d,
                              int32_t round, int shift)
{
    const int32_t high = f[0] * a.high + f[1] * b.high + f[2] * c.high + f[3] * d.high;
    const int32_t low = f[0] * a.low + f[1] * b.low + f[2] * c.low + f[3] * d.low;
    return (int32_t)(((uint32_t)high << (16 - shift)) + (uint32_t)((low + round) >> shift));
}

ADM_INLINE void vpass123(const int32_t *restrict r0, const int32_t *restrict r1,
                         const int32_t *restrict r2, const int32_t *restrict r3, int w,
                         int32_t *restrict lo, int32_t *restrict hi, int32_t round, int shift)
{
    for (int x = 0; x < w; x++) {
        const Split s0 = split(r0[x]), s1 = split(r1[x]), s2 = split(r2[x]), s3 = split(r3[x]);
        lo[x] = taps_split(LO, s0, s1, s2, s3, round, shift);
        hi[x] = taps_split(HI, s0, s1, s2, s3, round, shift);
    }
}

ADM_INLINE void hpass123_interior(const int32_t *restrict lo, const int32_t *restrict hi,
                                  int j0, int j1, int32_t *restrict a, int32_t *restrict v,
                                  int32_t *restrict h, int32_t *restrict d, int32_t round,
                                  int shift)
{
    for (int j = j0; j < j1; j++) {
        const Split l0 = split(lo[2 * j - 1]), l1 = split(lo[2 * j]), l2 = split(lo[2 * j + 1]),
                    l3 = split(lo[2 * j + 2]);
        const Split h0 = split(hi[2 * j - 1]), h1 = split(hi[2 * j]), h2 = split(hi[2 * j + 1]),
                    h3 = split(hi[2 * j + 2]);
        a[j] = taps_split(LO, l0, l1, l2, l3, round, shift);
        v[j] = taps_split(HI, l0, l1, l2, l3, round, shift);
        h[j] = taps_split(LO, h0, h1, h2, h3, round, shift);
        d[j] = taps_split(HI, h0, h1, h2, h3, round, shift);
    }
}

/* Output column j of both pictures from explicit positions into the four lines. */
static void column123(const int32_t *rows, int w, const int p[4], size_t idx,
                      const VmafAdmBands32 *ref, const VmafAdmBands32 *dis, int32_t round,
                      int shift)
{
    int32_t t[4][4]; /* [line][tap]: ref lo, ref hi, dis lo, dis hi */
    for (int l = 0; l < 4; l++)
        for (int k = 0; k < 4; k++)
            memcpy(&t[l][k], rows + (ptrdiff_t)l * w + p[k], sizeof(int32_t));
    const VmafAdmBands32 *b[2] = { ref, dis };
    for (int n = 0; n < 2; n++) {
        if (!b[n])
            continue;
        int32_t out[4];
        vmaf_adm_dwt123_hpass(t[2 * n], t[2 * n + 1], round, shift, out);
        b[n]->a[idx] = out[0];
        b[n]->v[idx] = out[1];
        b[n]->h[idx] = out[2];
        b[n]->d[idx] = out[3];
    }
}

/* Row r of band A (r may be -1 or past the end for 1..4-row inputs: it is read wherever the
 * buffer layout puts it, through memcpy since it can belong to an int16 band). */
static const int32_t *input_row(const int32_t *band, int r, int h, size_t stride, int w,
                                int32_t *scratch)
{
    const int32_t *p = band + (ptrdiff_t)r * (ptrdiff_t)stride;
    if (r >= 0 && r < h)
        return p;
    memcpy(scratch, p, (size_t)w * sizeof(int32_t));
    return scratch;
}

#if ADM_HAVE_HAND
/* Hand-written AVX2 versions: 64-bit products of int32 samples (vpmuldq on the even lanes,
 * and on the odd lanes shifted down), summed in int64 like vmaf_adm_taps32(). The shifts
 * are at most 16, so a logical 64-bit shift leaves the same low 32 bits as the arithmetic
 * one. */
ADM_TARGET_AVX2 static inline __m256i taps64(__m256i x0, __m256i x1, __m256i x2, __m256i x3,
                                             const int16_t *f, __m256i round, int shift)
{
    __m256i acc = _mm256_mul_epi32(x0, _mm256_set1_epi64x(f[0]));
    acc = _mm256_add_epi64(acc, _mm256_mul_epi32(x1, _mm256_set1_epi64x(f[1])));
    acc = _mm256_add_epi64(acc, _mm256_mul_epi32(x2, _mm256_set1_epi64x(f[2])));
    acc = _mm256_add_epi64(acc, _mm256_mul_epi32(x3, _mm256_set1_epi64x(f[3])));
    return _mm256_srli_epi64(_mm256_add_epi64(acc, round), shift);
}

/* Even 32-bit slots of e (outputs 0..3) and of o (outputs 4..7) in order. */
ADM_TARGET_AVX2 static inline __m256i merge_even(__m256i e, __m256i o)
{
    const __m256i mixed = _mm256_blend_epi32(e, _mm256_slli_epi64(o, 32), 0xAA);
    return _mm256_permutevar8x32_epi32(mixed, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
}

ADM_TARGET_AVX2 static void vpass123_hand(const int32_t *restrict r0, const int32_t *restrict r1,
                                          const int32_t *restrict r2, const int32_t *restrict r3,
                                          int w, int32_t *restrict lo, int32_t *restrict hi,
                                          int32_t round, int shift)
{
    const __m256i rnd = _mm256_set1_epi64x(round);
    int x = 0;
    for (; x + 8 <= w; x += 8) {
        const __m256i e0 = _mm256_loadu_si256((const __m256i *)(r0 + x));
        const __m256i e1 = _mm256_loadu_si256((const __m256i *)(r1 + x));
        const __m256i e2 = _mm256_loadu_si256((const __m256i *)(r2 + x));
        const __m256i e3 = _mm256_loadu_si256((const __m256i *)(r3 + x));
        const __m256i o0 = _mm256_srli_epi64(e0, 32), o1 = _mm256_srli_epi64(e1, 32);
        const __m256i o2 = _mm256_srli_epi64(e2, 32), o3 = _mm256_srli_epi64(e3, 32);
        const __m256i le = taps64(e0, e1, e2, e3, LO, rnd, shift);
        const __m256i lo_ = taps64(o0, o1, o2, o3, LO, rnd, shift);
        const __m256i he = taps64(e0, e1, e2, e3, HI, rnd, shift);
        const __m256i ho = taps64(o0, o1, o2, o3, HI, rnd, shift);
        _mm256_storeu_si256((__m256i *)(lo + x),
                            _mm256_blend_epi32(le, _mm256_slli_epi64(lo_, 32), 0xAA));
        _mm256_storeu_si256((__m256i *)(hi + x),
                            _mm256_blend_epi32(he, _mm256_slli_epi64(ho, 32), 0xAA));
    }
    if (x < w)
        vpass123(r0 + x, r1 + x, r2 + x, r3 + x, w - x, lo + x, hi + x, round, shift);
}

/* Output columns [1, j1): outputs j..j+3 take the even slots of the line at 2j-1 (taps 0, 1)
 * and 2j+1 (taps 2, 3); j+4..j+7 the same 8 positions further. */
ADM_TARGET_AVX2 static void hpass123_hand(const int32_t *restrict lo, const int32_t *restrict hi,
                                          int j1, int32_t *restrict a, int32_t *restrict v,
                                          int32_t *restrict h, int32_t *restrict d,
                                          int32_t round, int shift)
{
    const __m256i rnd = _mm256_set1_epi64x(round);
    int j = 1;
    /* outputs j .. j+7 read positions 2j-1 .. 2j+16, inside [0, 2 j1) */
    for (; j + 8 <= j1; j += 8) {
        const int32_t *line[2] = { lo + 2 * j - 1, hi + 2 * j - 1 };
        int32_t *out_lo[2] = { a, h }, *out_hi[2] = { v, d };
        for (int n = 0; n < 2; n++) {
            const int32_t *p = line[n];
            const __m256i x0 = _mm256_loadu_si256((const __m256i *)p);
            const __m256i x2 = _mm256_loadu_si256((const __m256i *)(p + 2));
            const __m256i y0 = _mm256_loadu_si256((const __m256i *)(p + 8));
            const __m256i y2 = _mm256_loadu_si256((const __m256i *)(p + 10));
            const __m256i x1 = _mm256_srli_epi64(x0, 32), x3 = _mm256_srli_epi64(x2, 32);
            const __m256i y1 = _mm256_srli_epi64(y0, 32), y3 = _mm256_srli_epi64(y2, 32);
            const __m256i fl = merge_even(taps64(x0, x1, x2, x3, LO, rnd, shift),
                                          taps64(y0, y1, y2, y3, LO, rnd, shift));
            const __m256i fh = merge_even(taps64(x0, x1, x2, x3, HI, rnd, shift),
                                          taps64(y0, y1, y2, y3, HI, rnd, shift));
            _mm256_storeu_si256((__m256i *)(out_lo[n] + j), fl);
            _mm256_storeu_si256((__m256i *)(out_hi[n] + j), fh);
        }
    }
    if (j < j1)
        hpass123_interior(lo, hi, j, j1, a, v, h, d, round, shift);
}
#define ADM_HAND123(call) call
#else
#define ADM_HAND123(call) ((void)0)
#endif

ADM_INLINE void dwt_scale123_body(const VmafAdmBands32 *ref, const VmafAdmBands32 *dis,
                                   int32_t *rows, int w, int h, size_t stride, unsigned scale,
                                   bool hand)
{
    const int half_w = (w + 1) / 2, half_h = (h + 1) / 2;
    int32_t rv, rh;
    int sv, sh;
    vmaf_adm_dwt123_rounding(scale, &rv, &sv, &rh, &sh);
    int32_t *lo_ref = rows, *hi_ref = rows + w, *lo_dis = rows + 2 * w, *hi_dis = rows + 3 * w;
    /* degenerate input rows are copied past the four lines of scale 1, the widest (and past
     * what its straight last column reads: 4 w1 + 1; stride >= w1): no scale's lines or
     * past-the-end reads reach them, so no frame sees an earlier frame's copies */
    int32_t *scratch = rows + 4 * stride + 2;
    const bool straight_last = vmaf_adm_straight_last(half_w, 8);

    for (int i = 0; i < half_h; i++) {
        const int32_t *rr[4] = { NULL }, *rd[4] = { NULL }; /* set for the sides given */
        for (int k = 0; k < 4; k++) {
            const int row = vmaf_adm_tap(i, k, h);
            if (ref)
                rr[k] = input_row(ref->a, row, h, stride, w, scratch + (size_t)(2 * k) * w);
            if (dis)
                rd[k] = input_row(dis->a, row, h, stride, w,
                                  scratch + (size_t)(2 * k + 1) * w);
        }
        if (hand) {
            if (ref)
                ADM_HAND123(
                    vpass123_hand(rr[0], rr[1], rr[2], rr[3], w, lo_ref, hi_ref, rv, sv));
            if (dis)
                ADM_HAND123(
                    vpass123_hand(rd[0], rd[1], rd[2], rd[3], w, lo_dis, hi_dis, rv, sv));
        } else {
            if (ref)
                vpass123(rr[0], rr[1], rr[2], rr[3], w, lo_ref, hi_ref, rv, sv);
            if (dis)
                vpass123(rd[0], rd[1], rd[2], rd[3], w, lo_dis, hi_dis, rv, sv);
        }

        const size_t off = (size_t)i * stride;
        VmafAdmBands32 out_ref = { 0 }, out_dis = { 0 };
        if (ref)
            out_ref = (VmafAdmBands32){ ref->a + off, ref->h + off, ref->v + off, ref->d + off };
        if (dis)
            out_dis = (VmafAdmBands32){ dis->a + off, dis->h + off, dis->v + off, dis->d + off };
        const VmafAdmBands32 *pr = ref ? &out_ref : NULL, *pd = dis ? &out_dis : NULL;
        int p[4];
        for (int k = 0; k < 4; k++)
            p[k] = vmaf_adm_tap(0, k, w);
        column123(rows, w, p, 0, pr, pd, rh, sh);
        if (half_w < 2)
            continue;
        if (hand) {
            if (ref)
                ADM_HAND123(hpass123_hand(lo_ref, hi_ref, half_w - 1, out_ref.a, out_ref.v,
                                          out_ref.h, out_ref.d, rh, sh));
            if (dis)
                ADM_HAND123(hpass123_hand(lo_dis, hi_dis, half_w - 1, out_dis.a, out_dis.v,
                                          out_dis.h, out_dis.d, rh, sh));
        } else {
            if (ref)
                hpass123_interior(lo_ref, hi_ref, 1, half_w - 1, out_ref.a, out_ref.v,
                                  out_ref.h, out_ref.d, rh, sh);
            if (dis)
                hpass123_interior(lo_dis, hi_dis, 1, half_w - 1, out_dis.a, out_dis.v,
                                  out_dis.h, out_dis.d, rh, sh);
        }
        for (int k = 0; k < 4; k++)
            p[k] = straight_last ? 2 * half_w - 3 + k : vmaf_adm_tap(half_w - 1, k, w);
        column123(rows, w, p, (size_t)half_w - 1, pr, pd, rh, sh);
    }
}

ADM_INLINE void vmaf_adm_dwt_scale123_impl(const VmafAdmBands32 *ref,
                                           const VmafAdmBands32 *dis, int32_t *rows, int w,
                                           int h, size_t stride, unsigned scale)
{
    dwt_scale123_body(ref, dis, rows, w, h, stride, scale, false);
}

#if ADM_HAVE_HAND
ADM_TARGET_AVX2 void vmaf_adm_dwt_scale123_simd(const VmafAdmBands32 *ref,
                                                const VmafAdmBands32 *dis, int32_t *rows,
                                                int w, int h, size_t stride, unsigned scale)
{
    dwt_scale123_body(ref, dis, rows, w, h, stride, scale, true);
}
#else
void vmaf_adm_dwt_scale123_simd(const VmafAdmBands32 *ref, const VmafAdmBands32 *dis,
                                int32_t *rows, int w, int h, size_t stride, unsigned scale)
{
    vmaf_adm_dwt_scale123(ref, dis, rows, w, h, stride, scale);
}
#endif

ADM_DISPATCH_VOID(vmaf_adm_dwt_scale123,
                  (const VmafAdmBands32 *ref, const VmafAdmBands32 *dis, int32_t *rows, int w,
                   int h, size_t stride, unsigned scale),
                  (ref, dis, rows, w, h, stride, scale))
