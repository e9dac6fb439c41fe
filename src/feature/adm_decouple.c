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

/* Angle test in the scalar order: (cos^2 * |o|^2) * |t|^2. */
ADM_INLINE bool angle_close(int64_t dot, int64_t o_sq, int64_t t_sq, double cos2)
{
    const double d = over_4096(dot);
    return d >= 0.0 && d * d >= cos2 * over_4096(o_sq) * over_4096(t_sq);
}

static inline int vector_end(const VmafAdmRegion *r)
{
    return r->right - (r->right - r->left) % 16;
}

/* Enhanced r when the angles agree: min/max of gain * r and t, rounded to nearest-even
 * (vector) or truncated (scalar). Only used when k > 0 and o != 0, so sign(r) = sign(o). */
ADM_INLINE int64_t enhanced(int32_t o, int32_t r, int32_t t, double gain, bool vector)
{
    const double g = r * gain;
    if (vector) {
        const int64_t gi = (int64_t)__builtin_rint(g);
        return o > 0 ? (gi < t ? gi : t) : (gi > t ? gi : t);
    }
    const double m = o > 0 ? (g < t ? g : t) : (g > t ? g : t);
    return (int64_t)m;
}

/* ------------------------------------------------------------------------------------- */
/* Scale 0                                                                               */

ADM_INLINE int32_t ratio_q15(int32_t o, int32_t t)
{
    /* o = 0 divides by 1 and is replaced by 32768 below (kept branch-free) */
    const int32_t m = o < 0 ? -o : o;
    const int32_t q = (int32_t)(1073741824.0 / (double)(m ? m : 1));
    const int32_t recip = o < 0 ? -q : q;
    const int32_t k = (int32_t)(((int64_t)recip * t + 16384) >> 15);
    const int32_t kc = k < 0 ? 0 : (k > 32768 ? 32768 : k);
    return o == 0 ? 32768 : kc;
}

ADM_INLINE int16_t explained0(int32_t o, int32_t t, bool close, double gain, bool vector)
{
    const int32_t k = ratio_q15(o, t);
    const int32_t r = (k * o + 16384) >> 15;
    const int32_t e = (int32_t)enhanced(o, r, t, gain, vector);
    return (int16_t)(close && k > 0 && o != 0 ? e : r);
}

ADM_INLINE void decouple0_line(const int16_t *restrict oh, const int16_t *restrict ov,
                               const int16_t *restrict od, const int16_t *restrict th,
                               const int16_t *restrict tv, const int16_t *restrict td,
                               int16_t *restrict rh, int16_t *restrict rv,
                               int16_t *restrict rd, int16_t *restrict ah,
                               int16_t *restrict av, int16_t *restrict ad, int j0, int j1,
                               double gain, double cos2, bool vector)
{
    for (int j = j0; j < j1; j++) {
        const int32_t o_h = oh[j], o_v = ov[j], o_d = od[j];
        const int32_t t_h = th[j], t_v = tv[j], t_d = td[j];
        bool close;
        if (vector) {
            /* 32-bit dot products (wrapping), and |o|^2 |t|^2 multiplied first */
            const int32_t dot = (int32_t)((uint32_t)(o_h * t_h) + (uint32_t)(o_v * t_v));
            const int32_t o_sq = (int32_t)((uint32_t)(o_h * o_h) + (uint32_t)(o_v * o_v));
            const int32_t t_sq = (int32_t)((uint32_t)(t_h * t_h) + (uint32_t)(t_v * t_v));
            const double d = over_4096(dot);
            close = d >= 0.0 && d * d >= over_4096(o_sq) * over_4096(t_sq) * cos2;
        } else {
            const int64_t dot = (int64_t)o_h * t_h + (int64_t)o_v * t_v;
            const int64_t o_sq = (int64_t)o_h * o_h + (int64_t)o_v * o_v;
            const int64_t t_sq = (int64_t)t_h * t_h + (int64_t)t_v * t_v;
            close = angle_close(dot, o_sq, t_sq, cos2);
        }
        const int16_t r_h = explained0(o_h, t_h, close, gain, vector);
        const int16_t r_v = explained0(o_v, t_v, close, gain, vector);
        const int16_t r_d = explained0(o_d, t_d, close, gain, vector);
        rh[j] = r_h;
        rv[j] = r_v;
        rd[j] = r_d;
        ah[j] = (int16_t)(t_h - r_h);
        av[j] = (int16_t)(t_v - r_v);
        ad[j] = (int16_t)(t_d - r_d);
    }
}

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
        decouple0_line(ref->h + o, ref->v + o, ref->d + o, dis->h + o, dis->v + o, dis->d + o,
                       r->h + o, r->v + o, r->d + o, a->h + o, a->v + o, a->d + o, reg.left,
                       vend, gain_limit, cos2, true);
        decouple0_line(ref->h + o, ref->v + o, ref->d + o, dis->h + o, dis->v + o, dis->d + o,
                       r->h + o, r->v + o, r->d + o, a->h + o, a->v + o, a->d + o, vend,
                       reg.right, gain_limit, cos2, false);
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

/* The same for |o| < 2^15, without branches. */
ADM_INLINE int64_t ratio_q15_narrow(int32_t o, int32_t t)
{
    const int32_t m = o < 0 ? -o : o;
    const int32_t q = (int32_t)(1073741824.0 / (double)(m ? m : 1));
    const int64_t k = ((int64_t)q * t * (o < 0 ? -1 : 1) + 16384) >> 15;
    const int64_t kc = k < 0 ? 0 : (k > 32768 ? 32768 : k);
    return o == 0 ? 32768 : kc;
}

ADM_INLINE int32_t explained123(int32_t o, int32_t t, bool close, double gain, bool vector,
                                bool narrow)
{
    const int64_t k = narrow ? ratio_q15_narrow(o, t) : ratio_q15_wide(o, t);
    const int32_t r = (int32_t)((k * o + 16384) >> 15);
    const int32_t e = (int32_t)enhanced(o, r, t, gain, vector);
    return close && k > 0 && o != 0 ? e : r;
}

ADM_INLINE void decouple123_span(const int32_t *restrict oh, const int32_t *restrict ov,
                                 const int32_t *restrict od, const int32_t *restrict th,
                                 const int32_t *restrict tv, const int32_t *restrict td,
                                 int32_t *restrict rh, int32_t *restrict rv,
                                 int32_t *restrict rd, int32_t *restrict ah,
                                 int32_t *restrict av, int32_t *restrict ad, int j0, int j1,
                                 double gain, double cos2, bool vector, bool narrow)
{
    for (int j = j0; j < j1; j++) {
        const int32_t o_h = oh[j], o_v = ov[j], o_d = od[j];
        const int32_t t_h = th[j], t_v = tv[j], t_d = td[j];
        const int64_t dot = (int64_t)o_h * t_h + (int64_t)o_v * t_v;
        const int64_t o_sq = (int64_t)o_h * o_h + (int64_t)o_v * o_v;
        const int64_t t_sq = (int64_t)t_h * t_h + (int64_t)t_v * t_v;
        const bool close = angle_close(dot, o_sq, t_sq, cos2);
        const int32_t r_h = explained123(o_h, t_h, close, gain, vector, narrow);
        const int32_t r_v = explained123(o_v, t_v, close, gain, vector, narrow);
        const int32_t r_d = explained123(o_d, t_d, close, gain, vector, narrow);
        rh[j] = r_h;
        rv[j] = r_v;
        rd[j] = r_d;
        ah[j] = (int32_t)((uint32_t)t_h - (uint32_t)r_h);
        av[j] = (int32_t)((uint32_t)t_v - (uint32_t)r_v);
        ad[j] = (int32_t)((uint32_t)t_d - (uint32_t)r_d);
    }
}

/* Whether every reference value in [j0, j1) has |o| < 2^15 (the common case). */
ADM_INLINE bool all_narrow(const int32_t *restrict oh, const int32_t *restrict ov,
                           const int32_t *restrict od, int j0, int j1)
{
    uint32_t any = 0;
    for (int j = j0; j < j1; j++)
        any |= ((uint32_t)oh[j] + 32767u) | ((uint32_t)ov[j] + 32767u) |
               ((uint32_t)od[j] + 32767u);
    return any < 65535; /* then every o + 32767 lies in [0, 65534] */
}

enum { DECOUPLE_SPAN = 32 };

ADM_INLINE void decouple123_line(const int32_t *oh, const int32_t *ov, const int32_t *od,
                                 const int32_t *th, const int32_t *tv, const int32_t *td,
                                 int32_t *rh, int32_t *rv, int32_t *rd, int32_t *ah,
                                 int32_t *av, int32_t *ad, int j0, int j1, double gain,
                                 double cos2, bool vector)
{
    for (int jb = j0; jb < j1; jb += DECOUPLE_SPAN) {
        const int je = j1 - jb < DECOUPLE_SPAN ? j1 : jb + DECOUPLE_SPAN;
        if (all_narrow(oh, ov, od, jb, je))
            decouple123_span(oh, ov, od, th, tv, td, rh, rv, rd, ah, av, ad, jb, je, gain,
                             cos2, vector, true);
        else
            decouple123_span(oh, ov, od, th, tv, td, rh, rv, rd, ah, av, ad, jb, je, gain,
                             cos2, vector, false);
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
