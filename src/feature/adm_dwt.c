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
#include "adm_simd.h"

#define LO vmaf_adm_filter_lo
#define HI vmaf_adm_filter_hi

/* The reference's vector kernels compute output columns 1 .. in groups of `group`
 * positions without mirroring; they reach the last column when half - 1 is a multiple of
 * the group, and then read its taps past the end of the line (adm.h). */
static bool last_column_unmirrored(int half, int group)
{
    return half > group && (half - 1) % group == 0;
}

/* Picture rows for the scale-0 vertical taps. The index rules reach row -1 (3 or 4 rows)
 * or rows past the end (1 or 2 rows), which for a picture lie outside it: those are
 * reflected back inside instead (the reference reads memory around the picture there). */
static int picture_row(int i, int k, int h)
{
    int r = vmaf_adm_tap(i, k, h);
    if (r < 0)
        r = -r;
    if (r >= h)
        r = 2 * h - r - 1;
    return r < 0 ? 0 : r;
}

/* Vertical pass of scale 0 over x in [0, w), for 8-bit (T = uint8_t) or wider samples. */
#define DEFINE_VPASS0(NAME, T)                                                           \
    ADM_INLINE void NAME(const T *restrict r0, const T *restrict r1, const T *restrict r2, \
                         const T *restrict r3, int w, unsigned bpc, int16_t *restrict lo,  \
                         int16_t *restrict hi)                                           \
    {                                                                                    \
        const uint32_t round = 1u << (bpc - 1);                                          \
        const uint32_t centre = (uint32_t)VMAF_ADM_FILTER_LO_SUM * round;                \
        for (int x = 0; x < w; x++) {                                                    \
            const int32_t s0 = r0[x], s1 = r1[x], s2 = r2[x], s3 = r3[x];                \
            /* products fit int32; their sums may not at 16 bits and wrap */             \
            const uint32_t l = (uint32_t)(LO[0] * s0) + (uint32_t)(LO[1] * s1) +         \
                               (uint32_t)(LO[2] * s2) + (uint32_t)(LO[3] * s3);          \
            const uint32_t g = (uint32_t)(HI[0] * s0) + (uint32_t)(HI[1] * s1) +         \
                               (uint32_t)(HI[2] * s2) + (uint32_t)(HI[3] * s3);          \
            lo[x] = (int16_t)((int32_t)(l - centre + round) >> bpc);                     \
            hi[x] = (int16_t)((int32_t)(g + round) >> bpc);                              \
        }                                                                                \
    }

DEFINE_VPASS0(vpass0_u8, uint8_t)
DEFINE_VPASS0(vpass0_u16, uint16_t)

ADM_INLINE int16_t taps16(const int16_t *f, int32_t a, int32_t b, int32_t c, int32_t d)
{
    return (int16_t)((f[0] * a + f[1] * b + f[2] * c + f[3] * d + 32768) >> 16);
}

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
    a[off + j] = taps16(LO, lo[0], lo[1], lo[2], lo[3]);
    if (lo_only)
        return;
    dst->v[off + j] = taps16(HI, lo[0], lo[1], lo[2], lo[3]);
    dst->h[off + j] = taps16(LO, hi[0], hi[1], hi[2], hi[3]);
    dst->d[off + j] = taps16(HI, hi[0], hi[1], hi[2], hi[3]);
}

/* Columns [1, j1) where every tap lies inside the line: positions 2j-1 .. 2j+2. */
ADM_INLINE void hpass0_interior(const int16_t *restrict lo, const int16_t *restrict hi, int j1,
                                int32_t *restrict a, int16_t *restrict v, int16_t *restrict h,
                                int16_t *restrict d)
{
    for (int j = 1; j < j1; j++) {
        const int32_t l0 = lo[2 * j - 1], l1 = lo[2 * j], l2 = lo[2 * j + 1], l3 = lo[2 * j + 2];
        const int32_t h0 = hi[2 * j - 1], h1 = hi[2 * j], h2 = hi[2 * j + 1], h3 = hi[2 * j + 2];
        a[j] = taps16(LO, l0, l1, l2, l3);
        v[j] = taps16(HI, l0, l1, l2, l3);
        h[j] = taps16(LO, h0, h1, h2, h3);
        d[j] = taps16(HI, h0, h1, h2, h3);
    }
}

ADM_INLINE void hpass0_interior_a(const int16_t *restrict lo, int j1, int32_t *restrict a)
{
    for (int j = 1; j < j1; j++)
        a[j] = taps16(LO, lo[2 * j - 1], lo[2 * j], lo[2 * j + 1], lo[2 * j + 2]);
}

ADM_INLINE void vmaf_adm_dwt_scale0_impl(const void *src, ptrdiff_t stride, unsigned bpc, int w,
                                         int h, int16_t *rows, const VmafAdmBands16 *dst,
                                         int32_t *band_a, size_t dst_stride, bool lo_only)
{
    const int half_w = (w + 1) / 2, half_h = (h + 1) / 2;
    int16_t *lo = rows, *hi = rows + w;
    const bool straight_last =
        !lo_only && last_column_unmirrored(half_w, bpc == 8 ? 32 : 64);

    for (int i = 0; i < half_h; i++) {
        const unsigned char *r[4];
        for (int k = 0; k < 4; k++)
            r[k] = (const unsigned char *)src + (ptrdiff_t)picture_row(i, k, h) * stride;
        if (bpc == 8)
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
        else
            hpass0_interior(lo, hi, half_w - 1, band_a + off, dst->v + off, dst->h + off,
                            dst->d + off);
        for (int k = 0; k < 4; k++)
            p[k] = straight_last ? 2 * half_w - 3 + k : vmaf_adm_tap(half_w - 1, k, w);
        column0(rows, w, p, (size_t)half_w - 1, dst, band_a, off, lo_only);
    }
}

ADM_DISPATCH_VOID(vmaf_adm_dwt_scale0,
                  (const void *src, ptrdiff_t stride, unsigned bpc, int w, int h, int16_t *rows,
                   const VmafAdmBands16 *dst, int32_t *band_a, size_t dst_stride,
                   bool lo_only),
                  (src, stride, bpc, w, h, rows, dst, band_a, dst_stride, lo_only))

/* ------------------------------------------------------------------------------------- */
/* Scales 1..3                                                                           */

static const int32_t round_v123[3] = { 0, 32768, 32768 };
static const int shift_v123[3] = { 0, 16, 16 };
static const int32_t round_h123[3] = { 16384, 32768, 16384 };
static const int shift_h123[3] = { 15, 16, 15 };

ADM_INLINE int32_t taps32(const int16_t *f, int32_t a, int32_t b, int32_t c, int32_t d,
                          int32_t round, int shift)
{
    const int64_t acc = (int64_t)f[0] * a + (int64_t)f[1] * b + (int64_t)f[2] * c +
                        (int64_t)f[3] * d;
    return (int32_t)((acc + round) >> shift);
}

/*
 * The same in int32 lanes (twice as many per vector as int64): with a = 65536 * high + low,
 * low in [-2^15, 2^15), the filter sums of the highs and of the lows each fit int32 (the
 * taps' magnitudes add up to 54822 < 2^16), and a rounding shift of 0, 15 or 16 distributes:
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
        const int32_t *lo = t[2 * n], *hi = t[2 * n + 1];
        b[n]->a[idx] = taps32(LO, lo[0], lo[1], lo[2], lo[3], round, shift);
        b[n]->v[idx] = taps32(HI, lo[0], lo[1], lo[2], lo[3], round, shift);
        b[n]->h[idx] = taps32(LO, hi[0], hi[1], hi[2], hi[3], round, shift);
        b[n]->d[idx] = taps32(HI, hi[0], hi[1], hi[2], hi[3], round, shift);
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

ADM_INLINE void vmaf_adm_dwt_scale123_impl(const VmafAdmBands32 *ref,
                                           const VmafAdmBands32 *dis, int32_t *rows, int w,
                                           int h, size_t stride, unsigned scale)
{
    const int half_w = (w + 1) / 2, half_h = (h + 1) / 2;
    const int32_t rv = round_v123[scale - 1], rh = round_h123[scale - 1];
    const int sv = shift_v123[scale - 1], sh = shift_h123[scale - 1];
    int32_t *lo_ref = rows, *hi_ref = rows + w, *lo_dis = rows + 2 * w, *hi_dis = rows + 3 * w;
    /* degenerate input rows are copied past the four lines (and past what the straight
     * last column reads: 4w + 1) */
    int32_t *scratch = rows + 4 * w + 2;
    const bool straight_last = last_column_unmirrored(half_w, 8);

    for (int i = 0; i < half_h; i++) {
        const int32_t *rr[4], *rd[4];
        for (int k = 0; k < 4; k++) {
            const int row = vmaf_adm_tap(i, k, h);
            rr[k] = input_row(ref->a, row, h, stride, w, scratch + (size_t)(2 * k) * w);
            rd[k] = input_row(dis->a, row, h, stride, w, scratch + (size_t)(2 * k + 1) * w);
        }
        vpass123(rr[0], rr[1], rr[2], rr[3], w, lo_ref, hi_ref, rv, sv);
        vpass123(rd[0], rd[1], rd[2], rd[3], w, lo_dis, hi_dis, rv, sv);

        const size_t off = (size_t)i * stride;
        const VmafAdmBands32 out_ref = { ref->a + off, ref->h + off, ref->v + off, ref->d + off };
        const VmafAdmBands32 out_dis = { dis->a + off, dis->h + off, dis->v + off, dis->d + off };
        int p[4];
        for (int k = 0; k < 4; k++)
            p[k] = vmaf_adm_tap(0, k, w);
        column123(rows, w, p, 0, &out_ref, &out_dis, rh, sh);
        if (half_w < 2)
            continue;
        hpass123_interior(lo_ref, hi_ref, 1, half_w - 1, out_ref.a, out_ref.v, out_ref.h,
                          out_ref.d, rh, sh);
        hpass123_interior(lo_dis, hi_dis, 1, half_w - 1, out_dis.a, out_dis.v, out_dis.h,
                          out_dis.d, rh, sh);
        for (int k = 0; k < 4; k++)
            p[k] = straight_last ? 2 * half_w - 3 + k : vmaf_adm_tap(half_w - 1, k, w);
        column123(rows, w, p, (size_t)half_w - 1, &out_ref, &out_dis, rh, sh);
    }
}

ADM_DISPATCH_VOID(vmaf_adm_dwt_scale123,
                  (const VmafAdmBands32 *ref, const VmafAdmBands32 *dis, int32_t *rows, int w,
                   int h, size_t stride, unsigned scale),
                  (ref, dis, rows, w, h, stride, scale))
