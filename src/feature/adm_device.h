/*
 * Twin VMAF — integer ADM per element: the arithmetic of the CPU stages (adm_dwt.c,
 * adm_decouple.c, adm_csf.c, adm_cm.c, including the AVX-512 rules of adm.h) as functions of
 * one output element or one band row, valid C11 and CUDA. The CPU stages call them in their
 * loops (their hand-written AVX2 paths compute the same integers eight at a time), the GPU
 * twin (src/feature/cuda/adm*.cu) and its host test (tests/twins/test_adm_twin.c) per thread.
 *
 * Work buffers. The twin keeps the band block layout of the CPU's instances
 * (vmaf_adm_layout_compact(): the full vmaf_adm_layout() below 64x64, where the index rules
 * read outside a band — rows -1 / past the end of band A for inputs of 1..4 rows, the 3x3
 * neighbours of 1-row bands — so those reads see the same memory; from 64x64 up no read
 * leaves a band and bands whose values are dead share memory). The CPU's vertical-pass row
 * buffer is not kept: what it holds at a position is modelled (vmaf_adm_rowbuf*()):
 *   - scale 0: int16 lines lo | hi of the picture width w; index -1 is the zeroed guard;
 *     the two values past 2w (read by the hi line's unmirrored last column) are zeroed by
 *     the CPU before each scale-0 DWT;
 *   - scales 1..3: int32 lines ref lo | ref hi | dis lo | dis hi of the input width w;
 *     index -1 is 0; past 4w is what the previous scale's last row left there (the twin
 *     keeps those rows: `last` below), or 0 where no scale of the frame wrote it (the CPU
 *     keeps its degenerate-row copies beyond every scale's lines, adm_dwt.c).
 * So a frame's values never depend on an earlier frame, on the CPU or here.
 */
#ifndef VMAF_FEATURE_ADM_DEVICE_H
#define VMAF_FEATURE_ADM_DEVICE_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stdint.h>
#endif

#include "adm.h"

#if VMAF_DIALECT_CUDA
#define VMAF_ADM_RINT(x) rint(x)
#define VMAF_ADM_CLZ(x) __clz((int)(x))
#elif VMAF_DIALECT_OPENCL
/* the same functions as C's below: rint of the double, clz of the 32-bit word as an int */
#define VMAF_ADM_RINT(x) rint((double)(x))
#define VMAF_ADM_CLZ(x) ((int)clz((uint)(x)))
#else
#include <math.h>
#define VMAF_ADM_RINT(x) __builtin_rint(x)
#define VMAF_ADM_CLZ(x) __builtin_clz(x)
#endif

/* ------------------------------------------------------------------------------------- */
/* DWT                                                                                   */

/** Output columns from 1 on are computed in groups of G (adm.h); the last column is
 *  unmirrored when the groups reach it. */
VMAF_DEVICE_FN int vmaf_adm_straight_last(int half_w, int group)
{
    return half_w > group && (half_w - 1) % group == 0;
}

/** Group of the scale-0 DWT for bpc-bit samples. */
VMAF_DEVICE_FN int vmaf_adm_dwt0_group(unsigned bpc)
{
    return bpc == 8 ? 32 : 64;
}

/** Line position of tap k of output column j (may lie outside [0, w)). */
VMAF_DEVICE_FN int vmaf_adm_dwt_pos(int j, int k, int w, int half_w, int straight_last)
{
    if (j > 0 && j == half_w - 1 && straight_last)
        return 2 * half_w - 3 + k;
    return vmaf_adm_tap(j, k, w);
}

/** Picture row of tap k of output row i at scale 0 (index rules, reflected inside). */
VMAF_DEVICE_FN int vmaf_adm_picture_row(int i, int k, int h)
{
    int r = vmaf_adm_tap(i, k, h);
    if (r < 0)
        r = -r;
    if (r >= h)
        r = 2 * h - r - 1;
    return r < 0 ? 0 : r;
}

/** Scale-0 vertical pass of one column: 4 samples of bpc bits -> lo, hi (int32 wrapping). */
VMAF_DEVICE_FN void vmaf_adm_vpass0(uint32_t s0, uint32_t s1, uint32_t s2, uint32_t s3,
                                    unsigned bpc, int16_t *lo, int16_t *hi)
{
    const int32_t fl[4] = VMAF_ADM_FILTER_LO_TAPS, fh[4] = VMAF_ADM_FILTER_HI_TAPS;
    const int32_t x0 = (int32_t)s0, x1 = (int32_t)s1, x2 = (int32_t)s2, x3 = (int32_t)s3;
    const uint32_t round = 1u << (bpc - 1);
    const uint32_t centre = (uint32_t)VMAF_ADM_FILTER_LO_SUM * round;
    const uint32_t l = (uint32_t)(fl[0] * x0) + (uint32_t)(fl[1] * x1) +
                       (uint32_t)(fl[2] * x2) + (uint32_t)(fl[3] * x3);
    const uint32_t g = (uint32_t)(fh[0] * x0) + (uint32_t)(fh[1] * x1) +
                       (uint32_t)(fh[2] * x2) + (uint32_t)(fh[3] * x3);
    *lo = (int16_t)((int32_t)(l - centre + round) >> bpc);
    *hi = (int16_t)((int32_t)(g + round) >> bpc);
}

/**
 * Where the scale-0 row buffer index of tap position p of line `line` (0 lo, 1 hi) lies:
 * returns 1 and the line / column holding it, or 0 when the buffer holds 0 there.
 */
VMAF_DEVICE_FN int vmaf_adm_rowbuf0(int line, int p, int w, int *src_line, int *col)
{
    if (p >= 0 && p < w) { /* the usual case, without a division */
        *src_line = line;
        *col = p;
        return 1;
    }
    const int idx = line * w + p;
    if (idx < 0 || idx >= 2 * w)
        return 0;
    *src_line = idx / w;
    *col = idx % w;
    return 1;
}

/** (f . x + 2^15) >> 16 in int16: the scale-0 horizontal filter. */
VMAF_DEVICE_FN int16_t vmaf_adm_taps16(int hi_pass, int32_t a, int32_t b, int32_t c, int32_t d)
{
    const int32_t fl[4] = VMAF_ADM_FILTER_LO_TAPS, fh[4] = VMAF_ADM_FILTER_HI_TAPS;
    const int32_t *f = hi_pass ? fh : fl;
    return (int16_t)((f[0] * a + f[1] * b + f[2] * c + f[3] * d + 32768) >> 16);
}

/** Rounding of scales 1..3: vertical (rv, sv) and horizontal (rh, sh) per scale 1..3. */
VMAF_DEVICE_FN void vmaf_adm_dwt123_rounding(unsigned scale, int32_t *rv, int *sv, int32_t *rh,
                                             int *sh)
{
    *rv = scale == 1 ? 0 : 32768;
    *sv = scale == 1 ? 0 : 16;
    *rh = scale == 2 ? 32768 : 16384;
    *sh = scale == 2 ? 16 : 15;
}

/** (f . x + round) >> shift of int32 values in int64, kept mod 2^32. */
VMAF_DEVICE_FN int32_t vmaf_adm_taps32(int hi_pass, int32_t a, int32_t b, int32_t c, int32_t d,
                                       int32_t round, int shift)
{
    const int32_t fl[4] = VMAF_ADM_FILTER_LO_TAPS, fh[4] = VMAF_ADM_FILTER_HI_TAPS;
    const int32_t *f = hi_pass ? fh : fl;
    const int64_t acc = (int64_t)f[0] * a + (int64_t)f[1] * b + (int64_t)f[2] * c +
                        (int64_t)f[3] * d;
    return (int32_t)(uint32_t)(uint64_t)((acc + round) >> shift);
}

/** The outputs A, V, H, D of one scales-1..3 column from the lo and hi line values at its
 *  four tap positions (horizontal rounding round, shift). */
VMAF_DEVICE_FN void vmaf_adm_dwt123_hpass(const int32_t lo[4], const int32_t hi[4], int32_t round,
                                          int shift, int32_t out[4])
{
    out[0] = vmaf_adm_taps32(0, lo[0], lo[1], lo[2], lo[3], round, shift);
    out[1] = vmaf_adm_taps32(1, lo[0], lo[1], lo[2], lo[3], round, shift);
    out[2] = vmaf_adm_taps32(0, hi[0], hi[1], hi[2], hi[3], round, shift);
    out[3] = vmaf_adm_taps32(1, hi[0], hi[1], hi[2], hi[3], round, shift);
}

/**
 * Scales 1..3 row buffer index line * w + p (lines ref lo, ref hi, dis lo, dis hi):
 * returns 1 with the line and column when it is inside the four lines of this row, 2 when
 * it holds a value an earlier scale's last row left (read `last` at idx), 0 when it holds 0.
 */
VMAF_DEVICE_FN int vmaf_adm_rowbuf123(int line, int p, int w, int *src_line, int *col)
{
    if (p >= 0 && p < w) { /* the usual case, without a division */
        *src_line = line;
        *col = p;
        return 1;
    }
    const int idx = line * w + p;
    if (idx < 0)
        return 0;
    if (idx < 4 * w) {
        *src_line = idx / w;
        *col = idx % w;
        return 1;
    }
    return 2;
}

/** Which earlier scale's last row holds row buffer index idx at scale `scale` (widths of the
 *  scales' inputs in w_in[1..3]): that scale, or 0 when none of the frame's scales wrote it. */
VMAF_DEVICE_FN int vmaf_adm_rowbuf123_owner(int idx, unsigned scale, const int w_in[4])
{
    for (int t = (int)scale - 1; t >= 1; t--)
        if (idx < 4 * w_in[t])
            return t;
    return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Decouple                                                                              */

/** Whether column j of region [left, right) is a vector column (groups of `group`). */
VMAF_DEVICE_FN int vmaf_adm_vector_col(int j, int left, int right, int group)
{
    return j < right - (right - left) % group;
}

#if !VMAF_DOUBLE_SOFT
/** v / 4096 after rounding v to float (the int64 -> float conversion rounds once). */
VMAF_DEVICE_FN double vmaf_adm_over_4096(int64_t v)
{
    return (double)(float)v / 4096.0;
}

/** The same of an int32 (converted to float directly: vectorizable on the CPU). */
VMAF_DEVICE_FN double vmaf_adm_over_4096_32(int32_t v)
{
    return (double)(float)v / 4096.0;
}

/** Enhanced r when the angles agree: min/max of gain * r and t, rounded to nearest-even
 *  (vector) or truncated (scalar). Used when k > 0 and o != 0, so sign(r) = sign(o);
 *  gain * r is clamped to the int32 range first, which leaves min(., t) and max(., t)
 *  unchanged and lets it convert through int32. */
VMAF_DEVICE_FN int32_t vmaf_adm_enhanced(int32_t o, int32_t r, int32_t t, double gain, int vector)
{
    const double g0 = r * gain;
    const double g1 = g0 < -2147483648.0 ? -2147483648.0 : g0;
    const double g = g1 > 2147483647.0 ? 2147483647.0 : g1;
    if (vector) {
        const int32_t gi = (int32_t)VMAF_ADM_RINT(g);
        return o > 0 ? (gi < t ? gi : t) : (gi > t ? gi : t);
    }
    const double m = o > 0 ? (g < t ? g : t) : (g > t ? g : t);
    return (int32_t)m;
}

/** The angle test: vector columns of scale 0 use int32 (wrapping) products and multiply
 *  |o|^2 |t|^2 first; everything else int64 and the scalar order. */
VMAF_DEVICE_FN int vmaf_adm_angle_close(int32_t o_h, int32_t o_v, int32_t t_h, int32_t t_v,
                                        int scale0_vector, double cos2)
{
    if (scale0_vector) {
        const int32_t dot = (int32_t)((uint32_t)(o_h * t_h) + (uint32_t)(o_v * t_v));
        const int32_t o_sq = (int32_t)((uint32_t)(o_h * o_h) + (uint32_t)(o_v * o_v));
        const int32_t t_sq = (int32_t)((uint32_t)(t_h * t_h) + (uint32_t)(t_v * t_v));
        const double d = vmaf_adm_over_4096_32(dot);
        return (d >= 0.0) &
               (d * d >= vmaf_adm_over_4096_32(o_sq) * vmaf_adm_over_4096_32(t_sq) * cos2);
    }
    const int64_t dot = (int64_t)o_h * t_h + (int64_t)o_v * t_v;
    const int64_t o_sq = (int64_t)o_h * o_h + (int64_t)o_v * o_v;
    const int64_t t_sq = (int64_t)t_h * t_h + (int64_t)t_v * t_v;
    const double d = vmaf_adm_over_4096(dot);
    return (d >= 0.0) & (d * d >= cos2 * vmaf_adm_over_4096(o_sq) * vmaf_adm_over_4096(t_sq));
}

#else /* VMAF_DOUBLE_SOFT: the same results without fp64 */

/*
 * vmaf_adm_enhanced() without fp64. A gain whose significand has at most 21 bits and which lies
 * in [2^-42, 2^20) (the models' 100 and 1, and any gain of few binary places: 1.5, 2.75) is M
 * 2^-s with the integer M = its 53-bit significand >> 32 < 2^21 and 1 <= s <= 62. Then N = r M
 * is exact in int64 (|N| < 2^31 2^21 = 2^52) and so is the double product: r * gain = N 2^-s,
 * representable (|N| < 2^53), so the rounding leaves it. The clamp bounds are integers and rint
 * and trunc are monotone and keep integers, so rint(clamp(x)) = clamp(rint(x)) (trunc alike),
 * and since t is an integer, trunc(min(g, t)) = min(trunc(g), t) (max alike): the result is the
 * clamped integer rounding of N 2^-s (to nearest-even in vector columns, toward zero in scalar
 * ones) taken min/max with t, as the integers below compute it. Any other gain takes the double
 * expression on the software double.
 */
VMAF_DEVICE_FN int32_t vmaf_adm_enhanced(int32_t o, int32_t r, int32_t t, vmaf_double gain,
                                         int vector)
{
    const uint64_t b = vmaf_dbits(gain);
    const int be = (int)(b >> 52); /* sign 0 and the biased exponent */
    int64_t q;
    if ((b & 0xFFFFFFFFu) == 0 && be >= 981 && be <= 1042) {
        const int s = 1043 - be; /* gain = M 2^(be - 1075 + 32) */
        const int64_t m = (int64_t)(((b & 0xFFFFFFFFFFFFFull) | 0x10000000000000ull) >> 32);
        const int64_t n = (int64_t)r * m;
        const uint64_t frac = (uint64_t)n & ((1ull << s) - 1u); /* n - floor(n 2^-s) 2^s */
        q = n >> s;                                             /* floor */
        if (vector) {
            const uint64_t tie = 1ull << (s - 1); /* a half */
            q += (int64_t)(frac > tie || (frac == tie && (q & 1)));
        } else {
            q += (int64_t)(n < 0 && frac != 0);
        }
        q = q < -2147483648LL ? -2147483648LL : (q > 2147483647LL ? 2147483647LL : q);
    } else {
        const vmaf_double lo = VMAF_DCONST(-2147483648.0, 0xc1e0000000000000);
        const vmaf_double hi = VMAF_DCONST(2147483647.0, 0x41dfffffffc00000);
        const vmaf_double g0 = vmaf_dmul(vmaf_dfrom_i32(r), gain);
        const vmaf_double g1 = vmaf_dlt(g0, lo) ? lo : g0;
        const vmaf_double g = vmaf_dlt(hi, g1) ? hi : g1;
        if (vector) {
            q = vmaf_dto_i32(vmaf_drint(g));
        } else {
            const vmaf_double td = vmaf_dfrom_i32(t);
            const vmaf_double m = o > 0 ? (vmaf_dlt(g, td) ? g : td) : (vmaf_dlt(td, g) ? g : td);
            return vmaf_dto_i32(m);
        }
    }
    const int32_t gi = (int32_t)q;
    return o > 0 ? (gi < t ? gi : t) : (gi > t ? gi : t);
}

/*
 * vmaf_adm_angle_close() without fp64, from the float conversions fd, fa, fb of the dot
 * product, |o|^2 and |t|^2 (which the double form converts the same way). The double form
 * tests d >= 0 and d^2 >= X with d = fd / 4096, X = cos2 A B, A = fa / 4096, B = fb / 4096.
 * cos2 is a float c in [1/2, 1) (vmaf_adm_cos2_1deg(); checked below), so c A and A B are
 * products of two 24-bit significands, exact in double, and both orders round the exact
 * P = c fa fb 2^-24 once: X = round53(P); d^2 = fd^2 2^-24 is exact. Scaling by 2^24 changes
 * nothing (|fd|, |fa|, |fb| are 0 or in [1, 2^63]: every value lies far inside double's
 * normal range), so the test is fd >= 0 and fd^2 >= round53(c fa fb). When c fa fb <= 0 the
 * second part holds. Otherwise the float products Lf = fl(fd fd) and Rf = fl(fl(c fa) fb)
 * (normal, below 2^127) carry relative errors of at most 2^-24 and (1 + 2^-24)^2 - 1. If Rf's
 * bit pattern lies 4 or more above Lf's (positive floats order as their bits, and a step is
 * at least Lf 2^-24), then Rf > Lf (1 + 2^-22), so
 * P > fd^2 (1 + 2^-22)(1 - 2^-24) / (1 + 2^-24)^2 > fd^2 (1 + 2^-25) and
 * round53(P) >= P (1 - 2^-53) > fd^2: not close. Symmetrically, Lf's pattern 4 or more above
 * Rf's gives fd^2 > P (1 + 2^-25) >= round53(P): close. In between (|Lf / Rf - 1| below about
 * 2^-21, rare) and for any other cos2, the double expression is evaluated on the software
 * double, in its order (x / 4096 written as the equal x * 2^-12). tests/extractors/
 * test_adm_f64.c compares this with the double form near the boundary too.
 */
VMAF_DEVICE_FN int vmaf_adm_angle_close_f(float fd, float fa, float fb, int scale0_vector,
                                          vmaf_double cos2)
{
    if (!(fd >= 0.0f))
        return 0;
    const uint64_t cb = vmaf_dbits(cos2);
    /* a float (29 low zero bits) in [1/2, 1) (sign 0, biased exponent 1022) */
    if ((cb & 0x1FFFFFFFu) == 0 && (cb >> 52) == 1022) {
        const float c = vmaf_dto_float(cos2); /* exact */
        const float lf = fd * fd;
        const float rf = c * fa * fb;
        if (!(rf > 0.0f))
            return 1;
        const int32_t lb = (int32_t)vmaf_bits_of_float(lf), rb = (int32_t)vmaf_bits_of_float(rf);
        if (lb - rb >= 4)
            return 1;
        if (rb - lb >= 4)
            return 0;
    }
    const vmaf_double k = VMAF_DCONST(0.000244140625, 0x3f30000000000000); /* 2^-12 */
    const vmaf_double d = vmaf_dmul(vmaf_dfrom_float(fd), k);
    const vmaf_double a = vmaf_dmul(vmaf_dfrom_float(fa), k);
    const vmaf_double bb = vmaf_dmul(vmaf_dfrom_float(fb), k);
    const vmaf_double x =
        scale0_vector ? vmaf_dmul(vmaf_dmul(a, bb), cos2) : vmaf_dmul(vmaf_dmul(cos2, a), bb);
    return vmaf_dle(x, vmaf_dmul(d, d));
}

VMAF_DEVICE_FN int vmaf_adm_angle_close(int32_t o_h, int32_t o_v, int32_t t_h, int32_t t_v,
                                        int scale0_vector, vmaf_double cos2)
{
    if (scale0_vector) {
        const int32_t dot = (int32_t)((uint32_t)(o_h * t_h) + (uint32_t)(o_v * t_v));
        const int32_t o_sq = (int32_t)((uint32_t)(o_h * o_h) + (uint32_t)(o_v * o_v));
        const int32_t t_sq = (int32_t)((uint32_t)(t_h * t_h) + (uint32_t)(t_v * t_v));
        return vmaf_adm_angle_close_f((float)dot, (float)o_sq, (float)t_sq, 1, cos2);
    }
    const int64_t dot = (int64_t)o_h * t_h + (int64_t)o_v * t_v;
    const int64_t o_sq = (int64_t)o_h * o_h + (int64_t)o_v * o_v;
    const int64_t t_sq = (int64_t)t_h * t_h + (int64_t)t_v * t_v;
    return vmaf_adm_angle_close_f((float)dot, (float)o_sq, (float)t_sq, 0, cos2);
}
#endif /* VMAF_DOUBLE_SOFT */

/** Scale 0: the explained part r of t given reference o (a = t - r in int16). Written
 *  without branches (o = 0 divides by 1 and then takes k = 1; the enhanced value is chosen
 *  by a bit mask, which keeps it from being sunk into a branch), so that the CPU's vector
 *  columns (adm_decouple.c) vectorize. */
VMAF_DEVICE_FN int16_t vmaf_adm_explained0(int32_t o, int32_t t, int close, vmaf_double gain,
                                            int vector)
{
    const int32_t m = o < 0 ? -o : o;
#if VMAF_DOUBLE_SOFT /* the integer quotient: equal (vmaf_adm_reciprocal(), 1 <= m <= 32768) */
    const int32_t q = (int32_t)(1073741824u / (uint32_t)(m + (m == 0)));
#else
    const int32_t q = (int32_t)(1073741824.0 / (double)(m + (m == 0)));
#endif
    const int32_t recip = o < 0 ? -q : q;
    const int32_t kk = (int32_t)(((int64_t)recip * t + 16384) >> 15);
    const int32_t kc = kk < 0 ? 0 : (kk > 32768 ? 32768 : kk);
    const int32_t k = o == 0 ? 32768 : kc;
    const int32_t r = (k * o + 16384) >> 15;
#if VMAF_DOUBLE_SOFT /* a branch: the enhanced value only where it is used */
    if (close & (k > 0) & (o != 0))
        return (int16_t)vmaf_adm_enhanced(o, r, t, gain, vector);
    return (int16_t)r;
#else
    const int32_t e = vmaf_adm_enhanced(o, r, t, gain, vector);
    const int32_t use = -(int32_t)(close & (k > 0) & (o != 0));
    return (int16_t)((e & use) | (r & ~use));
#endif
}

/** Scales 1..3 (int64; |o| >= 2^15 reduced to 15 significant bits). */
VMAF_DEVICE_FN int32_t vmaf_adm_explained123(int32_t o, int32_t t, int close, vmaf_double gain,
                                             int vector)
{
    int64_t k = 32768;
    if (o != 0) {
        const uint32_t mag = o < 0 ? 0u - (uint32_t)o : (uint32_t)o;
        int shift = 0;
        uint32_t top = mag;
        if (mag >= 32768) {
            shift = 17 - VMAF_ADM_CLZ(mag);
            top = (uint16_t)((mag + (1u << (shift - 1))) >> shift);
        }
        const int64_t sign = o < 0 ? -1 : 1;
        const int64_t round = (int32_t)(1u << (14 + shift));
        const int64_t kk =
            (((int64_t)vmaf_adm_reciprocal((int32_t)top) * t) * sign + round) >> (15 + shift);
        k = kk < 0 ? 0 : (kk > 32768 ? 32768 : kk);
    }
    const int32_t r = (int32_t)((k * o + 16384) >> 15);
    return close && k > 0 && o != 0 ? vmaf_adm_enhanced(o, r, t, gain, vector) : r;
}

/* ------------------------------------------------------------------------------------- */
/* CSF                                                                                   */

/** Scale 0 CSF of one value of orientation `orient` (0 H, 1 V, 2 D): output and mask. */
VMAF_DEVICE_FN void vmaf_adm_csf0(int16_t src, int orient, uint16_t weight, int vector,
                                  int16_t *dst, int16_t *mask)
{
    const int shift = orient == 2 ? 17 : 15;
    const int32_t round = orient == 2 ? 65535 : 16384;
    const int32_t v = (weight * (int32_t)src + round) >> shift;
    const int16_t v16 = (int16_t)v;
    *dst = v16;
    const int32_t m = vector ? v : v16;
    const int32_t am = m < 0 ? -m : m;
    *mask = (int16_t)((VMAF_ADM_FIX_ONE_BY_30 * am + 2048) >> 12);
}

/** Scales 1..3 CSF of one value: vector columns read the Q32 weight as int32. */
VMAF_DEVICE_FN void vmaf_adm_csf123(int32_t src, uint32_t weight, int vector, int32_t *dst,
                                    int32_t *mask)
{
    const int64_t wt = vector ? (int64_t)(int32_t)weight : (int64_t)weight;
    const int32_t v = (int32_t)(uint32_t)(uint64_t)((wt * src + (1 << 27)) >> 28);
    *dst = v;
    const int32_t av = (int32_t)(v < 0 ? 0u - (uint32_t)v : (uint32_t)v);
    *mask = (int32_t)(((int64_t)VMAF_ADM_I4_FIX_ONE_BY_30 * av - 2147483648LL) >> 32);
}

/* ------------------------------------------------------------------------------------- */
/* Contrast masking: one visited row of the numerator                                    */

/**
 * The rows and columns a masked sum visits for a w x h band (adm_cm.c): row slot 0 is the
 * top row (visited when top_row), slots 1 .. n_mid the rows start_row.., the last slot the
 * bottom row (visited when bottom_row); every slot adds its row total, visited or not.
 */
typedef struct VmafAdmCmRows {
    int start_col, end_col, start_row, end_row;
    int left_corner, right_corner, top_row, bottom_row, inside;
    int vend0, vend123; /* end of the vector columns of middle rows (when inside) */
} VmafAdmCmRows;

VMAF_DEVICE_FN VmafAdmCmRows vmaf_adm_cm_rows(int w, int h)
{
    const VmafAdmRegion r = vmaf_adm_region_inner(w, h);
    VmafAdmCmRows c;
    c.start_col = r.left > 1 ? r.left : 1;
    c.end_col = r.right < w - 1 ? r.right : w - 1;
    c.start_row = r.top > 1 ? r.top : 1;
    c.end_row = r.bottom < h - 1 ? r.bottom : h - 1;
    c.left_corner = r.left <= 0;
    c.right_corner = r.right > w - 1;
    c.top_row = r.top <= 0;
    c.bottom_row = r.bottom > h - 1;
    c.inside = r.left > 0 && r.right <= w - 1;
    c.vend0 = c.end_col - (c.end_col - c.start_col) % 14;
    c.vend123 = c.end_col - (c.end_col - c.start_col) % 6;
    return c;
}

/** Number of row slots (top, middle rows, bottom). */
VMAF_DEVICE_FN int vmaf_adm_cm_slots(const VmafAdmCmRows *c)
{
    const int mid = c->end_row > c->start_row ? c->end_row - c->start_row : 0;
    return mid + 2;
}

/** Row offsets (in rows) of the 3x3 neighbourhood of slot `slot`, and whether the slot is
 *  visited and is a middle row. */
VMAF_DEVICE_FN int vmaf_adm_cm_slot_rows(const VmafAdmCmRows *c, int h, int slot, int *up, int *mid,
                                         int *down, int *middle)
{
    const int n = vmaf_adm_cm_slots(c);
    *middle = 0;
    if (slot == 0) {
        *up = 1;
        *mid = 0;
        *down = 1;
        return c->top_row;
    }
    if (slot == n - 1) {
        *up = h - 2;
        *mid = h - 1;
        *down = h - 1;
        return c->bottom_row;
    }
    const int i = c->start_row + slot - 1;
    *up = i - 1;
    *mid = i;
    *down = i + 1;
    *middle = 1;
    return 1;
}

/** Number of visited positions of a row: left corner, columns [start_col, end_col), right
 *  corner. Position q -> neighbour columns jl, jc, jr. */
VMAF_DEVICE_FN int vmaf_adm_cm_positions(const VmafAdmCmRows *c)
{
    const int cols = c->end_col > c->start_col ? c->end_col - c->start_col : 0;
    return c->left_corner + cols + c->right_corner;
}

/** Position q of a row: its columns, and whether it is interior (edge pixels use the
 *  scalar rules). Returns the centre column. */
VMAF_DEVICE_FN int vmaf_adm_cm_position(const VmafAdmCmRows *c, int w, int q, int *jl, int *jr,
                                        int *edge)
{
    const int cols = c->end_col > c->start_col ? c->end_col - c->start_col : 0;
    *edge = 0;
    if (c->left_corner) {
        if (q == 0) {
            *jl = 1;
            *jr = 1;
            *edge = 1;
            return 0;
        }
        q--;
    }
    if (q < cols) {
        const int j = c->start_col + q;
        *jl = j - 1;
        *jr = j + 1;
        return j;
    }
    *jl = w - 2;
    *jr = w - 1;
    *edge = 1;
    return w - 1;
}

/** Whether centre column j of a middle row is a vector column (scale 0: groups of 14,
 *  scales 1..3: groups of 6). */
VMAF_DEVICE_FN int vmaf_adm_cm_vector(const VmafAdmCmRows *c, int middle, int edge, int j,
                                      int scale0)
{
    if (!middle || edge || !c->inside)
        return 0;
    return j >= c->start_col && j < (scale0 ? c->vend0 : c->vend123);
}

/** The spare-lane rounding terms a visited row adds per orientation: the vector groups of
 *  the row times 2 lanes times the bare rounding term. */
VMAF_DEVICE_FN uint64_t vmaf_adm_cm_spare(const VmafAdmCmRows *c, int middle, int scale0,
                                          uint32_t cub_round, uint32_t cub_shift)
{
    if (!middle || !c->inside)
        return 0;
    const int vend = scale0 ? c->vend0 : c->vend123;
    if (vend <= c->start_col)
        return 0;
    const int groups = (vend - c->start_col) / (scale0 ? 14 : 6);
    return (uint64_t)(2 * groups) * (uint64_t)((int64_t)cub_round >> (cub_shift & 63));
}

/** A row's total: (acc + round) >> shift in int64 (acc wraps mod 2^64). */
VMAF_DEVICE_FN uint64_t vmaf_adm_cm_row_total(uint64_t acc, uint32_t round, uint32_t shift)
{
    return (uint64_t)((int64_t)(acc + round) >> shift);
}

/** Scale-0 mask centre |csf| / 15 (the scalar code truncates it to int16). */
VMAF_DEVICE_FN int32_t vmaf_adm_centre0(int32_t c, int vector)
{
    const int32_t scaled = (VMAF_ADM_ONE_BY_15 * (c < 0 ? -c : c) + 2048) >> 12;
    return vector ? scaled : (int16_t)scaled;
}

/** Scale-0 cube term of orientation t with mask sum thr. */
VMAF_DEVICE_FN int64_t vmaf_adm_cube0(int32_t src, int32_t weight, uint32_t thr, int t,
                                      uint32_t cub_round, uint32_t cub_shift)
{
    const int sub = t == 2 ? 12 : 10;
    const int sq_shift = t == 2 ? 30 : 29;
    const uint64_t sq_round = t == 2 ? (1u << 29) : (1u << 28);
    const int32_t v = src * weight;
    const uint32_t s = thr << sub;
    int32_t x = (int32_t)((uint32_t)(v < 0 ? -v : v) - s);
    x = x < 0 ? 0 : x;
    const int32_t x_sq =
        (int32_t)(((uint64_t)(uint32_t)x * (uint32_t)x + sq_round) >> sq_shift);
    return ((int64_t)x_sq * x + cub_round) >> (cub_shift & 63);
}

VMAF_DEVICE_FN int64_t vmaf_adm_centre123(int32_t c)
{
    const int32_t ac = (int32_t)(c < 0 ? 0u - (uint32_t)c : (uint32_t)c);
    return ((int64_t)VMAF_ADM_I4_ONE_BY_15 * ac - 2147483648LL) >> 32;
}

VMAF_DEVICE_FN int64_t vmaf_adm_cube123(int32_t v, uint32_t weight, int64_t thr64, int vector,
                                        uint32_t cub_round, uint32_t cub_shift)
{
    int32_t x;
    if (vector) {
        const int64_t xv = ((int64_t)v * (int32_t)weight + (1 << 27)) >> 28;
        const int64_t d = (xv < 0 ? -xv : xv) - thr64;
        x = (int32_t)(d < 0 ? 0 : d);
    } else {
        const int32_t xs = (int32_t)(uint32_t)(uint64_t)(((int64_t)v * weight + (1 << 27)) >> 28);
        const uint32_t ax = xs < 0 ? 0u - (uint32_t)xs : (uint32_t)xs;
        x = (int32_t)(ax - (uint32_t)thr64);
        x = x < 0 ? 0 : x;
    }
    const int32_t x_sq = (int32_t)(((int64_t)x * x + (1 << 29)) >> 30);
    return ((int64_t)x_sq * x + cub_round) >> (cub_shift & 63);
}

/* ------------------------------------------------------------------------------------- */
/* Denominator terms                                                                     */

VMAF_DEVICE_FN uint64_t vmaf_adm_den0_term(int16_t x)
{
    const uint32_t a = (uint32_t)(x < 0 ? -x : x);
    return (uint64_t)(a * a) * a;
}

VMAF_DEVICE_FN uint64_t vmaf_adm_den123_term(int32_t x, uint32_t sq_shift, uint64_t sq_round,
                                             uint64_t cub_round, uint32_t cub_shift)
{
    const uint64_t a = x < 0 ? 0u - (uint32_t)x : (uint32_t)x;
    return (((a * a + sq_round) >> sq_shift) * a + cub_round) >> (cub_shift & 63);
}

/* ------------------------------------------------------------------------------------- */
/* Whole elements (what one GPU thread computes)                                         */

/** Sample x of a picture row (uint8 or, when wide, uint16). */
VMAF_DEVICE_FN uint32_t vmaf_adm_sample(const VMAF_GLOBAL unsigned char *row, int x, int wide)
{
    return wide ? ((const VMAF_GLOBAL uint16_t *)(const VMAF_GLOBAL void *)row)[x] : row[x];
}

/**
 * Scale-0 DWT output (i, j) of a w x h picture: *a (band A, stored in int32) and, unless
 * lo_only, *v, *hh, *d. pic/stride (bytes) address the picture; wide: uint16 samples.
 */
VMAF_DEVICE_FN void vmaf_adm_dwt0_output(const VMAF_GLOBAL unsigned char *pic, ptrdiff_t stride,
                                         int wide,
                                         unsigned bpc, int w, int h, int i, int j, int lo_only,
                                         int32_t *a, int16_t *v, int16_t *hh, int16_t *d)
{
    const int half_w = (w + 1) / 2;
    const int straight = !lo_only && vmaf_adm_straight_last(half_w, vmaf_adm_dwt0_group(bpc));
    const VMAF_GLOBAL unsigned char *r[4];
    for (int k = 0; k < 4; k++)
        r[k] = pic + (ptrdiff_t)vmaf_adm_picture_row(i, k, h) * stride;
    int16_t line[2][4];
    for (int k = 0; k < 4; k++) {
        const int p = vmaf_adm_dwt_pos(j, k, w, half_w, straight);
        int done_col = -1, src = 0, col = 0;
        int16_t lo = 0, hi = 0;
        for (int l = 0; l < 2; l++) {
            if (!vmaf_adm_rowbuf0(l, p, w, &src, &col)) {
                line[l][k] = 0;
                continue;
            }
            if (col != done_col) {
                vmaf_adm_vpass0(vmaf_adm_sample(r[0], col, wide), vmaf_adm_sample(r[1], col, wide),
                                vmaf_adm_sample(r[2], col, wide), vmaf_adm_sample(r[3], col, wide),
                                bpc, &lo, &hi);
                done_col = col;
            }
            line[l][k] = src ? hi : lo;
        }
    }
    *a = vmaf_adm_taps16(0, line[0][0], line[0][1], line[0][2], line[0][3]);
    if (lo_only)
        return;
    *v = vmaf_adm_taps16(1, line[0][0], line[0][1], line[0][2], line[0][3]);
    *hh = vmaf_adm_taps16(0, line[1][0], line[1][1], line[1][2], line[1][3]);
    *d = vmaf_adm_taps16(1, line[1][0], line[1][1], line[1][2], line[1][3]);
}

/** Scale-0 vertical pass at picture column col of output row i: lo and hi. */
VMAF_DEVICE_FN void vmaf_adm_vpass0_at(const VMAF_GLOBAL unsigned char *pic, ptrdiff_t stride,
                                       int wide,
                                       unsigned bpc, int h, int i, int col, int16_t *lo,
                                       int16_t *hi)
{
    const VMAF_GLOBAL unsigned char *r[4];
    for (int k = 0; k < 4; k++)
        r[k] = pic + (ptrdiff_t)vmaf_adm_picture_row(i, k, h) * stride;
    vmaf_adm_vpass0(vmaf_adm_sample(r[0], col, wide), vmaf_adm_sample(r[1], col, wide),
                    vmaf_adm_sample(r[2], col, wide), vmaf_adm_sample(r[3], col, wide), bpc,
                    lo, hi);
}

/** Whether output column j of a scale-0 row takes the line positions 2j-1 .. 2j+2 as they
 *  are (every column but the first and the last). */
VMAF_DEVICE_FN int vmaf_adm_dwt0_plain_col(int j, int w)
{
    return j >= 1 && j < (w + 1) / 2 - 1;
}

/** A plain column's outputs from the lo/hi values at positions 2j-1 .. 2j+2. */
VMAF_DEVICE_FN void vmaf_adm_dwt0_plain(const int16_t lo[4], const int16_t hi[4], int32_t *a,
                                        int16_t *v, int16_t *hh, int16_t *d)
{
    *a = vmaf_adm_taps16(0, lo[0], lo[1], lo[2], lo[3]);
    *v = vmaf_adm_taps16(1, lo[0], lo[1], lo[2], lo[3]);
    *hh = vmaf_adm_taps16(0, hi[0], hi[1], hi[2], hi[3]);
    *d = vmaf_adm_taps16(1, hi[0], hi[1], hi[2], hi[3]);
}

/** Scales 1..3 vertical pass of column x of output row i: lines ref lo, ref hi, dis lo,
 *  dis hi. ref/dis are band A of the scale's input (rows may be read outside [0, h)). */
VMAF_DEVICE_FN void vmaf_adm_vpass123(const VMAF_GLOBAL int32_t *ref,
                                      const VMAF_GLOBAL int32_t *dis, ptrdiff_t stride,
                                      int h, int i, int x, unsigned scale, int32_t out[4])
{
    int32_t rv, rh;
    int sv, sh;
    vmaf_adm_dwt123_rounding(scale, &rv, &sv, &rh, &sh);
    int32_t sr[4], sd[4];
    for (int k = 0; k < 4; k++) {
        const ptrdiff_t row = (ptrdiff_t)vmaf_adm_tap(i, k, h) * stride;
        sr[k] = ref[row + x];
        sd[k] = dis[row + x];
    }
    out[0] = vmaf_adm_taps32(0, sr[0], sr[1], sr[2], sr[3], rv, sv);
    out[1] = vmaf_adm_taps32(1, sr[0], sr[1], sr[2], sr[3], rv, sv);
    out[2] = vmaf_adm_taps32(0, sd[0], sd[1], sd[2], sd[3], rv, sv);
    out[3] = vmaf_adm_taps32(1, sd[0], sd[1], sd[2], sd[3], rv, sv);
}

/**
 * Scales 1..3 DWT output (i, j) of a w x h input: out[0..3] = ref A, V, H, D and
 * out[4..7] = dis A, V, H, D. last[t] (t = 1, 2) holds the row buffer scale t's last row
 * left (4 lines of w_in[t]); w_in[t] is the input width of scale t.
 */
VMAF_DEVICE_FN void vmaf_adm_dwt123_output(const VMAF_GLOBAL int32_t *ref,
                                           const VMAF_GLOBAL int32_t *dis, ptrdiff_t stride,
                                           int w, int h, int i, int j, unsigned scale,
                                           const VMAF_GLOBAL int32_t *const last[3],
                                           const int w_in[4],
                                           int32_t out[8])
{
    int32_t rv, rh;
    int sv, sh;
    vmaf_adm_dwt123_rounding(scale, &rv, &sv, &rh, &sh);
    const int half_w = (w + 1) / 2;
    const int straight = vmaf_adm_straight_last(half_w, 8);
    int32_t line[4][4];
    for (int k = 0; k < 4; k++) {
        const int p = vmaf_adm_dwt_pos(j, k, w, half_w, straight);
        int done_col = -1;
        int32_t v4[4] = { 0, 0, 0, 0 };
        for (int l = 0; l < 4; l++) {
            const int idx = l * w + p;
            int src = 0, col = 0;
            const int where = vmaf_adm_rowbuf123(l, p, w, &src, &col);
            if (where == 0) {
                line[l][k] = 0;
            } else if (where == 2) {
                const int t = vmaf_adm_rowbuf123_owner(idx, scale, w_in);
                line[l][k] = t ? last[t][idx] : 0;
            } else {
                if (col != done_col) {
                    vmaf_adm_vpass123(ref, dis, stride, h, i, col, scale, v4);
                    done_col = col;
                }
                line[l][k] = v4[src];
            }
        }
    }
    for (int n = 0; n < 2; n++)
        vmaf_adm_dwt123_hpass(line[2 * n], line[2 * n + 1], rh, sh, out + 4 * n);
}

/** Decouple of one scale-0 pixel at offset off: r[3], a[3] (H, V, D). */
VMAF_DEVICE_FN void vmaf_adm_decouple0_pixel(const VMAF_GLOBAL int16_t *const ref[3],
                                             const VMAF_GLOBAL int16_t *const dis[3], size_t off,
                                             int vector,
                                             vmaf_double gain, vmaf_double cos2, int16_t r[3],
                                             int16_t a[3])
{
    const int32_t oh = ref[0][off], ov = ref[1][off];
    const int32_t th = dis[0][off], tv = dis[1][off];
    const int close = vmaf_adm_angle_close(oh, ov, th, tv, vector, cos2);
    for (int t = 0; t < 3; t++) {
        const int32_t o = ref[t][off], x = dis[t][off];
        r[t] = vmaf_adm_explained0(o, x, close, gain, vector);
        a[t] = (int16_t)(x - r[t]);
    }
}

/** The same for scales 1..3. */
VMAF_DEVICE_FN void vmaf_adm_decouple123_pixel(const VMAF_GLOBAL int32_t *const ref[3],
                                               const VMAF_GLOBAL int32_t *const dis[3], size_t off,
                                               int vector,
                                               vmaf_double gain, vmaf_double cos2, int32_t r[3],
                                               int32_t a[3])
{
    const int32_t oh = ref[0][off], ov = ref[1][off];
    const int32_t th = dis[0][off], tv = dis[1][off];
    const int close = vmaf_adm_angle_close(oh, ov, th, tv, 0, cos2);
    for (int t = 0; t < 3; t++) {
        const int32_t o = ref[t][off], x = dis[t][off];
        r[t] = vmaf_adm_explained123(o, x, close, gain, vector);
        a[t] = (int32_t)((uint32_t)x - (uint32_t)r[t]);
    }
}

/**
 * Cube terms (added to acc[0..2]) of one visited position of a scale-0 masked sum: rows
 * up/mid/down (element offsets), columns jl/jc/jr.
 */
VMAF_DEVICE_FN void vmaf_adm_cm0_position(const VMAF_GLOBAL int16_t *const src[3],
                                          const VMAF_GLOBAL int16_t *const csf[3],
                                          const VMAF_GLOBAL int16_t *const mask[3], ptrdiff_t up,
                                          ptrdiff_t mid,
                                          ptrdiff_t down, int jl, int jc, int jr, int vector,
                                          const uint32_t weight[3], const VmafAdmCmParams *p,
                                          uint64_t acc[3])
{
    uint32_t thr = 0;
    for (int t = 0; t < 3; t++) {
        const VMAF_GLOBAL int16_t *m = mask[t];
        thr += (uint32_t)(m[up + jl] + m[up + jc] + m[up + jr]);
        thr += (uint32_t)(m[mid + jl] + vmaf_adm_centre0(csf[t][mid + jc], vector) + m[mid + jr]);
        thr += (uint32_t)(m[down + jl] + m[down + jc] + m[down + jr]);
    }
    for (int t = 0; t < 3; t++)
        acc[t] += (uint64_t)vmaf_adm_cube0(src[t][mid + jc], (int32_t)weight[t], thr, t,
                                           p->cub_round[t], p->cub_shift[t]);
}

VMAF_DEVICE_FN void vmaf_adm_cm123_position(const VMAF_GLOBAL int32_t *const src[3],
                                            const VMAF_GLOBAL int32_t *const csf[3],
                                            const VMAF_GLOBAL int32_t *const mask[3], ptrdiff_t up,
                                            ptrdiff_t mid, ptrdiff_t down, int jl, int jc, int jr,
                                            int vector, const uint32_t weight[3],
                                            const VmafAdmCmParams *p, uint64_t acc[3])
{
    int64_t thr = 0;
    for (int t = 0; t < 3; t++) {
        const VMAF_GLOBAL int32_t *m = mask[t];
        thr += (int64_t)m[up + jl] + m[up + jc] + m[up + jr] + m[mid + jl] + m[mid + jr] +
               m[down + jl] + m[down + jc] + m[down + jr] + vmaf_adm_centre123(csf[t][mid + jc]);
    }
    for (int t = 0; t < 3; t++)
        acc[t] += (uint64_t)vmaf_adm_cube123(src[t][mid + jc], weight[t], thr, vector,
                                             p->cub_round[0], p->cub_shift[0]);
}

#endif /* VMAF_FEATURE_ADM_DEVICE_H */
