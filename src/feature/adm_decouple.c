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
 */
#include <math.h>
#include <stdint.h>

#include "adm.h"

/* cos^2(1 degree), computed in double and kept as a float like the reference. */
static float cos_1deg_squared(void)
{
    return (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
}

static inline double over_4096(int64_t v)
{
    return (double)(float)v / 4096.0;
}

/* Angle test in the scalar order: (cos^2 * |o|^2) * |t|^2. */
static inline bool angle_close(int64_t dot, int64_t o_sq, int64_t t_sq, float cos2)
{
    const double d = over_4096(dot);
    return d >= 0.0 && d * d >= cos2 * over_4096(o_sq) * over_4096(t_sq);
}

static inline int vector_end(const VmafAdmRegion *r)
{
    return r->right - (r->right - r->left) % 16;
}

/* ------------------------------------------------------------------------------------- */
/* Scale 0                                                                               */

static inline int32_t ratio_q15(int32_t o, int32_t t)
{
    if (o == 0)
        return 32768;
    const int32_t k = (int32_t)(((int64_t)vmaf_adm_reciprocal(o) * t + 16384) >> 15);
    return k < 0 ? 0 : (k > 32768 ? 32768 : k);
}

/* One orientation of scale 0; `vector` selects the rounding of the gain (adm.h). */
static inline int32_t explained0(int32_t o, int32_t t, bool close, double gain, bool vector)
{
    const int32_t k = ratio_q15(o, t);
    const int32_t r = (k * o + 16384) >> 15;
    if (!close || k == 0 || o == 0)
        return r;
    const double g = r * gain;
    if (vector) {
        const int32_t gi = (int32_t)lrint(g);
        return o > 0 ? (gi < t ? gi : t) : (gi > t ? gi : t);
    }
    const double m = o > 0 ? (g < t ? g : t) : (g > t ? g : t);
    return (int32_t)m;
}

static inline void decouple0_line(const int16_t *oh, const int16_t *ov, const int16_t *od,
                                  const int16_t *th, const int16_t *tv, const int16_t *td,
                                  int16_t *rh, int16_t *rv, int16_t *rd, int16_t *ah,
                                  int16_t *av, int16_t *ad, int j0, int j1, double gain,
                                  float cos2, bool vector)
{
    const double cos2d = cos2;
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
            close = d >= 0.0 && d * d >= over_4096(o_sq) * over_4096(t_sq) * cos2d;
        } else {
            const int64_t dot = (int64_t)o_h * t_h + (int64_t)o_v * t_v;
            const int64_t o_sq = (int64_t)o_h * o_h + (int64_t)o_v * o_v;
            const int64_t t_sq = (int64_t)t_h * t_h + (int64_t)t_v * t_v;
            close = angle_close(dot, o_sq, t_sq, cos2);
        }
        const int16_t r_h = (int16_t)explained0(o_h, t_h, close, gain, vector);
        const int16_t r_v = (int16_t)explained0(o_v, t_v, close, gain, vector);
        const int16_t r_d = (int16_t)explained0(o_d, t_d, close, gain, vector);
        rh[j] = r_h;
        rv[j] = r_v;
        rd[j] = r_d;
        ah[j] = (int16_t)(t_h - r_h);
        av[j] = (int16_t)(t_v - r_v);
        ad[j] = (int16_t)(t_d - r_d);
    }
}

void vmaf_adm_decouple_scale0(const VmafAdmBands16 *ref, const VmafAdmBands16 *dis,
                              const VmafAdmBands16 *r, const VmafAdmBands16 *a,
                              int w, int h, size_t stride, double gain_limit)
{
    const VmafAdmRegion reg = vmaf_adm_region_outer(w, h);
    const int vend = vector_end(&reg);
    const float cos2 = cos_1deg_squared();
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

/* ------------------------------------------------------------------------------------- */
/* Scales 1..3                                                                           */

/* t / o in Q15, clamped to [0, 1]: |o| >= 2^15 is rounded to its top 15 bits first. */
static inline int64_t ratio_q15_wide(int32_t o, int32_t t)
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

static inline int32_t explained123(int32_t o, int32_t t, bool close, double gain, bool vector)
{
    const int64_t k = ratio_q15_wide(o, t);
    const int32_t r = (int32_t)((k * o + 16384) >> 15);
    if (!close || k == 0 || o == 0)
        return r;
    const double g = r * gain;
    if (vector) {
        const int64_t gi = (int64_t)llrint(g);
        return (int32_t)(o > 0 ? (gi < t ? gi : t) : (gi > t ? gi : t));
    }
    const double m = o > 0 ? (g < t ? g : t) : (g > t ? g : t);
    return (int32_t)m;
}

static inline void decouple123_line(const int32_t *oh, const int32_t *ov, const int32_t *od,
                                    const int32_t *th, const int32_t *tv, const int32_t *td,
                                    int32_t *rh, int32_t *rv, int32_t *rd, int32_t *ah,
                                    int32_t *av, int32_t *ad, int j0, int j1, double gain,
                                    float cos2, bool vector)
{
    for (int j = j0; j < j1; j++) {
        const int32_t o_h = oh[j], o_v = ov[j], o_d = od[j];
        const int32_t t_h = th[j], t_v = tv[j], t_d = td[j];
        const int64_t dot = (int64_t)o_h * t_h + (int64_t)o_v * t_v;
        const int64_t o_sq = (int64_t)o_h * o_h + (int64_t)o_v * o_v;
        const int64_t t_sq = (int64_t)t_h * t_h + (int64_t)t_v * t_v;
        const bool close = angle_close(dot, o_sq, t_sq, cos2);
        const int32_t r_h = explained123(o_h, t_h, close, gain, vector);
        const int32_t r_v = explained123(o_v, t_v, close, gain, vector);
        const int32_t r_d = explained123(o_d, t_d, close, gain, vector);
        rh[j] = r_h;
        rv[j] = r_v;
        rd[j] = r_d;
        ah[j] = (int32_t)((uint32_t)t_h - (uint32_t)r_h);
        av[j] = (int32_t)((uint32_t)t_v - (uint32_t)r_v);
        ad[j] = (int32_t)((uint32_t)t_d - (uint32_t)r_d);
    }
}

void vmaf_adm_decouple_scale123(const VmafAdmBands32 *ref, const VmafAdmBands32 *dis,
                                const VmafAdmBands32 *r, const VmafAdmBands32 *a,
                                int w, int h, size_t stride, double gain_limit)
{
    const VmafAdmRegion reg = vmaf_adm_region_outer(w, h);
    const int vend = vector_end(&reg);
    const float cos2 = cos_1deg_squared();
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
