/*
 * Twin VMAF — integer ADM: decoupling of the distorted detail bands (see adm.h).
 *
 * For each orientation with reference value o and distorted value t:
 *   k   = clamp(round(t / o) in Q15, 0, 1)       (1 when o = 0), by a reciprocal in Q30
 *   r   = round(k * o)                           detail the reference explains
 *   if the (H, V) vectors of o and t are within 1 degree (dot >= 0 and
 *   dot^2 >= cos^2(1 deg) |o|^2 |t|^2, evaluated in floating point on values / 4096):
 *       r = min(r * gain, t) when r > 0, max(r * gain, t) when r < 0   (enhancement)
 *   a   = t - r                                  additive impairment
 * Scales 1..3 work in int32: |o| >= 2^15 is first reduced to 15 significant bits.
 *
 * The vector-column kernels (adm.h) are written without branches so that they vectorize;
 * the scalar-column kernels handle the few columns left at the end of each row.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "adm.h"
#include "adm_simd.h"

/* cos^2(1 degree), computed in double and kept as a float like the reference. */
static float cos_1deg_squared(void)
{
    return (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
}

/* v / 4096 after rounding v to float (the scaling itself is exact). */
ADM_INLINE double over_4096(int64_t v)
{
    return (double)(float)v / 4096.0;
}

ADM_INLINE double over_4096_32(int32_t v)
{
    return (double)(float)v / 4096.0;
}

/* Angle test in the scalar order: (cos^2 * |o|^2) * |t|^2. */
ADM_INLINE bool angle_close(int64_t dot, int64_t o_sq, int64_t t_sq, double cos2)
{
    const double d = over_4096(dot);
    return (d >= 0.0) & (d * d >= cos2 * over_4096(o_sq) * over_4096(t_sq));
}

static inline int vector_end(const VmafAdmRegion *r)
{
    return r->right - (r->right - r->left) % 16;
}

/* Enhanced r when the angles agree: min/max of gain * r and t, rounded to nearest-even
 * (vector) or truncated (scalar). Only used when k > 0 and o != 0, so sign(r) = sign(o).
 * gain * r is clamped to the int32 range first, which leaves min(., t) and max(., t)
 * unchanged and lets it convert through int32. */
ADM_INLINE int32_t enhanced(int32_t o, int32_t r, int32_t t, double gain, bool vector)
{
    const double g0 = r * gain;
    const double g1 = g0 < -2147483648.0 ? -2147483648.0 : g0;
    const double g = g1 > 2147483647.0 ? 2147483647.0 : g1;
    if (vector) {
        const int32_t gi = (int32_t)__builtin_rint(g);
        return o > 0 ? (gi < t ? gi : t) : (gi > t ? gi : t);
    }
    const double m = o > 0 ? (g < t ? g : t) : (g > t ? g : t);
    return (int32_t)m;
}

/* Comparisons combined with & rather than && keep the vector kernels free of branches (the
 * compiler may not speculate floating-point operations behind a branch). */
/* ------------------------------------------------------------------------------------- */
/* Scale 0                                                                               */

ADM_INLINE int32_t ratio_q15(int32_t o, int32_t t)
{
    /* o = 0 divides by 1 and is replaced by 32768 below (kept branch-free) */
    const int32_t m = o < 0 ? -o : o;
    const int32_t q = (int32_t)(1073741824.0 / (double)(m + (m == 0)));
    const int32_t recip = o < 0 ? -q : q;
    const int32_t k = (int32_t)(((int64_t)recip * t + 16384) >> 15);
    const int32_t kc = k < 0 ? 0 : (k > 32768 ? 32768 : k);
    return o == 0 ? 32768 : kc;
}

ADM_INLINE int16_t explained0(int32_t o, int32_t t, int32_t close, double gain, bool vector)
{
    const int32_t k = ratio_q15(o, t);
    const int32_t r = (k * o + 16384) >> 15;
    const int32_t e = enhanced(o, r, t, gain, vector);
    /* a bit mask rather than ?: keeps e from being sunk into a branch */
    const int32_t use = -(int32_t)(close & (k > 0) & (o != 0));
    return (int16_t)((e & use) | (r & ~use));
}

/* Scalar columns [j0, j1). */
static void decouple0_scalar(const int16_t *oh, const int16_t *ov, const int16_t *od,
                             const int16_t *th, const int16_t *tv, const int16_t *td,
                             int16_t *rh, int16_t *rv, int16_t *rd, int16_t *ah, int16_t *av,
                             int16_t *ad, int j0, int j1, double gain, double cos2)
{
    for (int j = j0; j < j1; j++) {
        const int32_t o_h = oh[j], o_v = ov[j], o_d = od[j];
        const int32_t t_h = th[j], t_v = tv[j], t_d = td[j];
        const int64_t dot = (int64_t)o_h * t_h + (int64_t)o_v * t_v;
        const int64_t o_sq = (int64_t)o_h * o_h + (int64_t)o_v * o_v;
        const int64_t t_sq = (int64_t)t_h * t_h + (int64_t)t_v * t_v;
        const int32_t close = angle_close(dot, o_sq, t_sq, cos2);
        rh[j] = explained0(o_h, t_h, close, gain, false);
        rv[j] = explained0(o_v, t_v, close, gain, false);
        rd[j] = explained0(o_d, t_d, close, gain, false);
        ah[j] = (int16_t)(t_h - rh[j]);
        av[j] = (int16_t)(t_v - rv[j]);
        ad[j] = (int16_t)(t_d - rd[j]);
    }
}

/* Vector columns: the angle test with 32-bit (wrapping) dot products and |o|^2 |t|^2
 * multiplied first. */
ADM_INLINE void angle0_vector(const int16_t *restrict oh, const int16_t *restrict ov,
                              const int16_t *restrict th, const int16_t *restrict tv,
                              int32_t *restrict close, int n, double cos2)
{
    for (int j = 0; j < n; j++) {
        const int32_t o_h = oh[j], o_v = ov[j], t_h = th[j], t_v = tv[j];
        const int32_t dot = (int32_t)((uint32_t)(o_h * t_h) + (uint32_t)(o_v * t_v));
        const int32_t o_sq = (int32_t)((uint32_t)(o_h * o_h) + (uint32_t)(o_v * o_v));
        const int32_t t_sq = (int32_t)((uint32_t)(t_h * t_h) + (uint32_t)(t_v * t_v));
        const double d = over_4096_32(dot);
        close[j] = (d >= 0.0) & (d * d >= over_4096_32(o_sq) * over_4096_32(t_sq) * cos2);
    }
}

ADM_INLINE void explain0_vector(const int16_t *restrict o, const int16_t *restrict t,
                                const int32_t *restrict close, int16_t *restrict r,
                                int16_t *restrict a, int n, double gain)
{
    for (int j = 0; j < n; j++) {
        const int16_t x = explained0(o[j], t[j], close[j], gain, true);
        r[j] = x;
        a[j] = (int16_t)(t[j] - x);
    }
}

/* The angle flags and the three orientations are separate passes over spans of columns:
 * kept apart, each loop vectorizes (together, their mix of mask widths does not). */
enum { DECOUPLE_SPAN = 64 };

ADM_INLINE void vmaf_adm_decouple_scale0_impl(const VmafAdmBands16 *ref,
                                              const VmafAdmBands16 *dis,
                                              const VmafAdmBands16 *r,
                                              const VmafAdmBands16 *a, int w, int h,
                                              size_t stride, double gain_limit)
{
    const VmafAdmRegion reg = vmaf_adm_region_outer(w, h);
    const int vend = vector_end(&reg);
    const double cos2 = cos_1deg_squared();
    for (int i = reg.top; i < reg.bottom; i++) {
        const size_t o = (size_t)i * stride;
        for (int jb = reg.left; jb < vend; jb += DECOUPLE_SPAN) {
            const int n = vend - jb < DECOUPLE_SPAN ? vend - jb : DECOUPLE_SPAN;
            const size_t x = o + (size_t)jb;
            int32_t close[DECOUPLE_SPAN];
            angle0_vector(ref->h + x, ref->v + x, dis->h + x, dis->v + x, close, n, cos2);
            explain0_vector(ref->h + x, dis->h + x, close, r->h + x, a->h + x, n, gain_limit);
            explain0_vector(ref->v + x, dis->v + x, close, r->v + x, a->v + x, n, gain_limit);
            explain0_vector(ref->d + x, dis->d + x, close, r->d + x, a->d + x, n, gain_limit);
        }
        decouple0_scalar(ref->h + o, ref->v + o, ref->d + o, dis->h + o, dis->v + o,
                         dis->d + o, r->h + o, r->v + o, r->d + o, a->h + o, a->v + o,
                         a->d + o, vend, reg.right, gain_limit, cos2);
    }
}

ADM_DISPATCH_VOID(vmaf_adm_decouple_scale0,
                  (const VmafAdmBands16 *ref, const VmafAdmBands16 *dis,
                   const VmafAdmBands16 *r, const VmafAdmBands16 *a, int w, int h,
                   size_t stride, double gain_limit),
                  (ref, dis, r, a, w, h, stride, gain_limit))

/* ------------------------------------------------------------------------------------- */
/* Scales 1..3                                                                           */

/* t / o in Q15, clamped to [0, 1]: |o| >= 2^15 is rounded to its top 15 bits first. */
static int64_t ratio_q15_wide(int32_t o, int32_t t)
{
    if (o == 0)
        return 32768;
    const uint32_t mag = o < 0 ? 0u - (uint32_t)o : (uint32_t)o;
    int shift = 0;
    uint32_t top = mag;
    if (mag >= 32768) {
        shift = 17 - __builtin_clz(mag);
        top = (uint16_t)((mag + (1u << (shift - 1))) >> shift);
    }
    const int64_t sign = o < 0 ? -1 : 1;
    /* the rounding constant is an int shift in the reference: 2^31 wraps negative */
    const int64_t round = (int32_t)(1u << (14 + shift));
    const int64_t k = (((int64_t)vmaf_adm_reciprocal((int32_t)top) * t) * sign + round) >>
                      (15 + shift);
    return k < 0 ? 0 : (k > 32768 ? 32768 : k);
}

static int32_t explained123_wide(int32_t o, int32_t t, bool close, double gain, bool vector)
{
    const int64_t k = ratio_q15_wide(o, t);
    const int32_t r = (int32_t)((k * o + 16384) >> 15);
    return close && k > 0 && o != 0 ? enhanced(o, r, t, gain, vector) : r;
}

/* An integral double d with |d| < 2^51 as an int64, without a double -> int64 conversion
 * instruction (AVX2 has none): adding 1.5 * 2^52 places d in the low mantissa bits. */
ADM_INLINE int64_t integral_to_int64(double d)
{
    const double biased = d + 6755399441055744.0;
    int64_t b;
    memcpy(&b, &biased, sizeof(b));
    return b - 0x4338000000000000LL;
}

/* floor(y) for |y| < 2^51, by round-to-nearest and a correction (the compiler vectorizes
 * neither floor() nor a ?: on doubles here without speculating floating-point branches). */
ADM_INLINE int64_t floor_to_int64(double y)
{
    const double n = __builtin_rint(y);
    return integral_to_int64(n) - (int64_t)(n > y);
}

/* Clamp to [0, 32768] by arithmetic (a ?: would be turned into branches). */
ADM_INLINE int32_t clamp_q15(int64_t k)
{
    const int64_t pos = k & ~(k >> 63);
    const int64_t over = pos - 32768;
    return (int32_t)(32768 + (over & (over >> 63)));
}

/*
 * The vector kernels of scales 1..3 evaluate in double what the reference evaluates in
 * int64. While |o| and |t| stay below 2^26 (`exact`, per pixel; the other pixels are redone
 * by the scalar code) this gives the same integers: the angle products are exact, and the
 * reciprocal times t is exact unless it exceeds 2^53, which takes |t / o| > 2^20, where k
 * clamps to 0 or 1 whatever the rounding. Every step is also free of undefined behaviour
 * for the pixels whose results are discarded.
 */
ADM_INLINE int32_t explained123_fast(int32_t o, int32_t t, int32_t close, double gain,
                                     bool vector)
{
    const int32_t neg = o >> 31; /* 0 or -1 */
    const uint32_t mag = ((uint32_t)o ^ (uint32_t)neg) - (uint32_t)neg;
    /* shift that leaves 15 significant bits: the number of bits of |o| above bit 14 */
    int32_t sh = 0;
    for (int b = 15; b < 26; b++)
        sh += (int32_t)((0u - (mag >> b)) >> 31);
    const uint32_t top = (mag + ((1u << sh) >> 1)) >> sh;
    const double q = (double)(int32_t)(1073741824.0 / (double)(int32_t)(top + (top == 0)));
    const double p = q * (double)t * (double)(neg | 1); /* the reciprocal times t, exact */
    const double scale = (double)(1 << (15 + sh));
    const int32_t k = clamp_q15(floor_to_int64((p + scale * 0.5) / scale));
    /* o = 0 (where the reference sets k = 1) gives r = 0 and no enhancement whatever k is */
    const int32_t r = (int32_t)floor_to_int64(((double)k * o + 16384.0) / 32768.0);
    const int32_t e = enhanced(o, r, t, gain, vector);
    /* a bit mask rather than ?: keeps e from being sunk into a branch */
    const int32_t use = -(int32_t)(close & (k > 0) & (o != 0));
    return (e & use) | (r & ~use);
}

/* In the exact range the angle products are exact in double, so rounding them to float
 * gives what the reference's int64 -> float conversions give. */
ADM_INLINE double exact_over_4096(double v)
{
    return (double)(float)v / 4096.0;
}

ADM_INLINE int32_t below(int32_t v, uint32_t limit)
{
    return (uint32_t)v + (limit - 1) < 2 * limit - 1; /* |v| < limit */
}

ADM_INLINE void angle123_fast(const int32_t *restrict oh, const int32_t *restrict ov,
                              const int32_t *restrict od, const int32_t *restrict th,
                              const int32_t *restrict tv, const int32_t *restrict td,
                              int32_t *restrict close, int32_t *restrict exact, int n,
                              double cos2)
{
    for (int j = 0; j < n; j++) {
        const int32_t o_h = oh[j], o_v = ov[j], t_h = th[j], t_v = tv[j];
        const double dot = (double)o_h * t_h + (double)o_v * t_v;
        const double o_sq = (double)o_h * o_h + (double)o_v * o_v;
        const double t_sq = (double)t_h * t_h + (double)t_v * t_v;
        const double d = exact_over_4096(dot);
        close[j] =
            (d >= 0.0) & (d * d >= cos2 * exact_over_4096(o_sq) * exact_over_4096(t_sq));
        const uint32_t l26 = 1u << 26;
        exact[j] = below(o_h, l26) & below(o_v, l26) & below(od[j], l26) & below(t_h, l26) &
                   below(t_v, l26) & below(td[j], l26);
    }
}

ADM_INLINE void explain123_fast(const int32_t *restrict o, const int32_t *restrict t,
                                const int32_t *restrict close, int32_t *restrict r,
                                int32_t *restrict a, int n, double gain, bool vector)
{
    for (int j = 0; j < n; j++) {
        const int32_t x = explained123_fast(o[j], t[j], close[j], gain, vector);
        r[j] = x;
        a[j] = (int32_t)((uint32_t)t[j] - (uint32_t)x);
    }
}

/* One pixel the scalar way (int64 throughout). */
static void decouple123_pixel(const int32_t *oh, const int32_t *ov, const int32_t *od,
                              const int32_t *th, const int32_t *tv, const int32_t *td,
                              int32_t *rh, int32_t *rv, int32_t *rd, int32_t *ah, int32_t *av,
                              int32_t *ad, int j, double gain, double cos2, bool vector)
{
    const int32_t o_h = oh[j], o_v = ov[j], o_d = od[j];
    const int32_t t_h = th[j], t_v = tv[j], t_d = td[j];
    const int64_t dot = (int64_t)o_h * t_h + (int64_t)o_v * t_v;
    const int64_t o_sq = (int64_t)o_h * o_h + (int64_t)o_v * o_v;
    const int64_t t_sq = (int64_t)t_h * t_h + (int64_t)t_v * t_v;
    const bool close = angle_close(dot, o_sq, t_sq, cos2);
    rh[j] = explained123_wide(o_h, t_h, close, gain, vector);
    rv[j] = explained123_wide(o_v, t_v, close, gain, vector);
    rd[j] = explained123_wide(o_d, t_d, close, gain, vector);
    ah[j] = (int32_t)((uint32_t)t_h - (uint32_t)rh[j]);
    av[j] = (int32_t)((uint32_t)t_v - (uint32_t)rv[j]);
    ad[j] = (int32_t)((uint32_t)t_d - (uint32_t)rd[j]);
}

ADM_INLINE void decouple123_line(const int32_t *oh, const int32_t *ov, const int32_t *od,
                                 const int32_t *th, const int32_t *tv, const int32_t *td,
                                 int32_t *rh, int32_t *rv, int32_t *rd, int32_t *ah,
                                 int32_t *av, int32_t *ad, int j0, int j1, double gain,
                                 double cos2, bool vector)
{
    for (int jb = j0; jb < j1; jb += DECOUPLE_SPAN) {
        const int n = j1 - jb < DECOUPLE_SPAN ? j1 - jb : DECOUPLE_SPAN;
        int32_t close[DECOUPLE_SPAN], exact[DECOUPLE_SPAN];
        angle123_fast(oh + jb, ov + jb, od + jb, th + jb, tv + jb, td + jb, close, exact, n,
                      cos2);
        explain123_fast(oh + jb, th + jb, close, rh + jb, ah + jb, n, gain, vector);
        explain123_fast(ov + jb, tv + jb, close, rv + jb, av + jb, n, gain, vector);
        explain123_fast(od + jb, td + jb, close, rd + jb, ad + jb, n, gain, vector);
        for (int k = 0; k < n; k++)
            if (!exact[k])
                decouple123_pixel(oh, ov, od, th, tv, td, rh, rv, rd, ah, av, ad, jb + k, gain,
                                  cos2, vector);
    }
}

ADM_INLINE void vmaf_adm_decouple_scale123_impl(const VmafAdmBands32 *ref,
                                                const VmafAdmBands32 *dis,
                                                const VmafAdmBands32 *r,
                                                const VmafAdmBands32 *a, int w, int h,
                                                size_t stride, double gain_limit)
{
    const VmafAdmRegion reg = vmaf_adm_region_outer(w, h);
    const int vend = vector_end(&reg);
    const double cos2 = cos_1deg_squared();
    for (int i = reg.top; i < reg.bottom; i++) {
        const size_t o = (size_t)i * stride;
        decouple123_line(ref->h + o, ref->v + o, ref->d + o, dis->h + o, dis->v + o,
                         dis->d + o, r->h + o, r->v + o, r->d + o, a->h + o, a->v + o,
                         a->d + o, reg.left, vend, gain_limit, cos2, true);
        decouple123_line(ref->h + o, ref->v + o, ref->d + o, dis->h + o, dis->v + o,
                         dis->d + o, r->h + o, r->v + o, r->d + o, a->h + o, a->v + o,
                         a->d + o, vend, reg.right, gain_limit, cos2, false);
    }
}

ADM_DISPATCH_VOID(vmaf_adm_decouple_scale123,
                  (const VmafAdmBands32 *ref, const VmafAdmBands32 *dis,
                   const VmafAdmBands32 *r, const VmafAdmBands32 *a, int w, int h,
                   size_t stride, double gain_limit),
                  (ref, dis, r, a, w, h, stride, gain_limit))
