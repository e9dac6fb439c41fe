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
#include "adm_device.h"
#include "adm_simd.h"

/* cos^2(1 degree), computed in double and kept as a float like the reference. */
static float cos_1deg_squared(void)
{
    return (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0));
}

double vmaf_adm_cos2_1deg(void)
{
    return cos_1deg_squared();
}

static inline int vector_end(const VmafAdmRegion *r)
{
    return r->right - (r->right - r->left) % 16;
}

/* The per-pixel arithmetic is adm_device.h's (shared with the GPU twin); its comparisons
 * are combined with & rather than && so that the vector loops below stay free of branches
 * (the compiler may not speculate floating-point operations behind a branch). */
/* ------------------------------------------------------------------------------------- */
/* Scale 0                                                                               */

/* Scalar columns [j0, j1) of the row at offset o. */
static void decouple0_scalar(const VmafAdmBands16 *ref, const VmafAdmBands16 *dis,
                             const VmafAdmBands16 *r, const VmafAdmBands16 *a, size_t o, int j0,
                             int j1, double gain, double cos2)
{
    const int16_t *const rb[3] = { ref->h + o, ref->v + o, ref->d + o };
    const int16_t *const db[3] = { dis->h + o, dis->v + o, dis->d + o };
    for (int j = j0; j < j1; j++) {
        int16_t x[3], y[3];
        vmaf_adm_decouple0_pixel(rb, db, (size_t)j, 0, gain, cos2, x, y);
        r->h[o + j] = x[0];
        r->v[o + j] = x[1];
        r->d[o + j] = x[2];
        a->h[o + j] = y[0];
        a->v[o + j] = y[1];
        a->d[o + j] = y[2];
    }
}

/* Vector columns: the angle test with 32-bit (wrapping) dot products and |o|^2 |t|^2
 * multiplied first. */
ADM_INLINE void angle0_vector(const int16_t *restrict oh, const int16_t *restrict ov,
                              const int16_t *restrict th, const int16_t *restrict tv,
                              int32_t *restrict close, int n, double cos2)
{
    for (int j = 0; j < n; j++)
        close[j] = vmaf_adm_angle_close(oh[j], ov[j], th[j], tv[j], 1, cos2);
}

ADM_INLINE void explain0_vector(const int16_t *restrict o, const int16_t *restrict t,
                                const int32_t *restrict close, int16_t *restrict r,
                                int16_t *restrict a, int n, double gain)
{
    for (int j = 0; j < n; j++) {
        const int16_t x = vmaf_adm_explained0(o[j], t[j], close[j], gain, 1);
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
        decouple0_scalar(ref, dis, r, a, o, vend, reg.right, gain_limit, cos2);
    }
}

ADM_DISPATCH_VOID(vmaf_adm_decouple_scale0,
                  (const VmafAdmBands16 *ref, const VmafAdmBands16 *dis,
                   const VmafAdmBands16 *r, const VmafAdmBands16 *a, int w, int h,
                   size_t stride, double gain_limit),
                  (ref, dis, r, a, w, h, stride, gain_limit))

#if ADM_HAVE_HAND
/* Hand-written AVX2 scale 0: eight pixels per step in int32 lanes, the ratio and the angle
 * test in double (4 lanes), each step the same integer/double operations as
 * vmaf_adm_explained0()/angle0_vector(). Quotients that are exact in double: q * t < 2^45, and
 * scaling by powers of two (2^-12, 2^-15) is exact, so floor((q t + 2^14) 2^-15) is the
 * int64 shift of the plain code. */

/* 8 x int16 at p, sign-extended to int32. */
ADM_TARGET_AVX2 static inline __m256i load8_i16(const int16_t *p)
{
    return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p));
}

/* Low 16 bits of eight int32 lanes (a truncating int16 conversion) stored at p. */
ADM_TARGET_AVX2 static inline void store8_i16(int16_t *p, __m256i v)
{
    const __m256i lo = _mm256_and_si256(v, _mm256_set1_epi32(0xFFFF));
    const __m128i packed =
        _mm_packus_epi32(_mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1));
    _mm_storeu_si128((__m128i *)p, packed);
}

/* Two masks of 4 x 64-bit lanes (pixels 0..3, 4..7) as one of 8 x 32-bit lanes. */
ADM_TARGET_AVX2 static inline __m256i mask64_to_32(__m256d lo, __m256d hi)
{
    const __m256 s = _mm256_shuffle_ps(_mm256_castpd_ps(lo), _mm256_castpd_ps(hi),
                                       _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_permute4x64_epi64(_mm256_castps_si256(s), _MM_SHUFFLE(3, 1, 2, 0));
}

/* (double)(float)v / 4096 of 8 int32 lanes, as two 4-lane halves. */
ADM_TARGET_AVX2 static inline void over_4096_x8(__m256i v, __m256d *lo, __m256d *hi)
{
    const __m256 f = _mm256_cvtepi32_ps(v);
    const __m256d scale = _mm256_set1_pd(1.0 / 4096.0);
    *lo = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(f)), scale);
    *hi = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)), scale);
}

/* angle0_vector() for 4 pixels. */
ADM_TARGET_AVX2 static inline __m256d close4(__m256d d, __m256d o_sq, __m256d t_sq,
                                             __m256d cos2)
{
    const __m256d pos = _mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_GE_OQ);
    const __m256d rhs = _mm256_mul_pd(_mm256_mul_pd(o_sq, t_sq), cos2);
    return _mm256_and_pd(pos, _mm256_cmp_pd(_mm256_mul_pd(d, d), rhs, _CMP_GE_OQ));
}

/* ratio_q15() for 4 pixels: |o| (0 read as 1) and t with the sign of o applied. */
ADM_TARGET_AVX2 static inline __m128i ratio4(__m128i m, __m128i ts)
{
    const __m256d q = _mm256_round_pd(
        _mm256_div_pd(_mm256_set1_pd(1073741824.0), _mm256_cvtepi32_pd(m)),
        _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256d p = _mm256_add_pd(_mm256_mul_pd(q, _mm256_cvtepi32_pd(ts)),
                                    _mm256_set1_pd(16384.0));
    const __m256d k = _mm256_floor_pd(_mm256_mul_pd(p, _mm256_set1_pd(1.0 / 32768.0)));
    const __m256d kc = _mm256_min_pd(_mm256_max_pd(k, _mm256_setzero_pd()),
                                     _mm256_set1_pd(32768.0));
    return _mm256_cvttpd_epi32(kc);
}

/* vmaf_adm_enhanced() (vector) for 4 pixels: rint of r * gain clamped to the int32 range. */
ADM_TARGET_AVX2 static inline __m128i gained4(__m128i r, __m256d gain)
{
    const __m256d g0 = _mm256_mul_pd(_mm256_cvtepi32_pd(r), gain);
    const __m256d g = _mm256_min_pd(_mm256_max_pd(g0, _mm256_set1_pd(-2147483648.0)),
                                    _mm256_set1_pd(2147483647.0));
    return _mm256_cvtpd_epi32(g); /* rounds to nearest-even, as rint() */
}

/* vmaf_adm_explained0() (vector) for 8 pixels. */
ADM_TARGET_AVX2 static inline __m256i explain0_x8(__m256i o, __m256i t, __m256i close,
                                                  __m256d gain)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i m = _mm256_max_epi32(_mm256_abs_epi32(o), _mm256_set1_epi32(1));
    const __m256i ts = _mm256_sign_epi32(t, o); /* o = 0: k is replaced below */
    const __m128i k_lo = ratio4(_mm256_castsi256_si128(m), _mm256_castsi256_si128(ts));
    const __m128i k_hi =
        ratio4(_mm256_extracti128_si256(m, 1), _mm256_extracti128_si256(ts, 1));
    const __m256i o_zero = _mm256_cmpeq_epi32(o, zero);
    const __m256i k = _mm256_blendv_epi8(_mm256_set_m128i(k_hi, k_lo),
                                         _mm256_set1_epi32(32768), o_zero);
    const __m256i r = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_mullo_epi32(k, o), _mm256_set1_epi32(16384)), 15);
    const __m256i g = _mm256_set_m128i(gained4(_mm256_extracti128_si256(r, 1), gain),
                                       gained4(_mm256_castsi256_si128(r), gain));
    const __m256i e = _mm256_blendv_epi8(_mm256_max_epi32(g, t), _mm256_min_epi32(g, t),
                                         _mm256_cmpgt_epi32(o, zero));
    const __m256i use = _mm256_andnot_si256(
        o_zero, _mm256_and_si256(close, _mm256_cmpgt_epi32(k, zero)));
    return _mm256_blendv_epi8(r, e, use);
}

ADM_TARGET_AVX2 void vmaf_adm_decouple_scale0_simd(const VmafAdmBands16 *ref,
                                                   const VmafAdmBands16 *dis,
                                                   const VmafAdmBands16 *r,
                                                   const VmafAdmBands16 *a, int w, int h,
                                                   size_t stride, double gain_limit)
{
    const VmafAdmRegion reg = vmaf_adm_region_outer(w, h);
    const int vend = vector_end(&reg);
    const double cos2s = cos_1deg_squared();
    const __m256d cos2 = _mm256_set1_pd(cos2s);
    const __m256d gain = _mm256_set1_pd(gain_limit);
    for (int i = reg.top; i < reg.bottom; i++) {
        const size_t o = (size_t)i * stride;
        /* vend - left is a multiple of 16 */
        for (int j = reg.left; j < vend; j += 8) {
            const size_t x = o + (size_t)j;
            const __m256i o_h = load8_i16(ref->h + x), o_v = load8_i16(ref->v + x);
            const __m256i t_h = load8_i16(dis->h + x), t_v = load8_i16(dis->v + x);
            const __m256i dot = _mm256_add_epi32(_mm256_mullo_epi32(o_h, t_h),
                                                 _mm256_mullo_epi32(o_v, t_v));
            const __m256i o_sq = _mm256_add_epi32(_mm256_mullo_epi32(o_h, o_h),
                                                  _mm256_mullo_epi32(o_v, o_v));
            const __m256i t_sq = _mm256_add_epi32(_mm256_mullo_epi32(t_h, t_h),
                                                  _mm256_mullo_epi32(t_v, t_v));
            __m256d d_lo, d_hi, o_lo, o_hi, t_lo, t_hi;
            over_4096_x8(dot, &d_lo, &d_hi);
            over_4096_x8(o_sq, &o_lo, &o_hi);
            over_4096_x8(t_sq, &t_lo, &t_hi);
            const __m256i close = mask64_to_32(close4(d_lo, o_lo, t_lo, cos2),
                                               close4(d_hi, o_hi, t_hi, cos2));

            const __m256i x_h = explain0_x8(o_h, t_h, close, gain);
            store8_i16(r->h + x, x_h);
            store8_i16(a->h + x, _mm256_sub_epi32(t_h, x_h));
            const __m256i x_v = explain0_x8(o_v, t_v, close, gain);
            store8_i16(r->v + x, x_v);
            store8_i16(a->v + x, _mm256_sub_epi32(t_v, x_v));
            const __m256i o_d = load8_i16(ref->d + x), t_d = load8_i16(dis->d + x);
            const __m256i x_d = explain0_x8(o_d, t_d, close, gain);
            store8_i16(r->d + x, x_d);
            store8_i16(a->d + x, _mm256_sub_epi32(t_d, x_d));
        }
        decouple0_scalar(ref, dis, r, a, o, vend, reg.right, gain_limit, cos2s);
    }
}
#else
void vmaf_adm_decouple_scale0_simd(const VmafAdmBands16 *ref, const VmafAdmBands16 *dis,
                                   const VmafAdmBands16 *r, const VmafAdmBands16 *a, int w,
                                   int h, size_t stride, double gain_limit)
{
    vmaf_adm_decouple_scale0(ref, dis, r, a, w, h, stride, gain_limit);
}
#endif

/* ------------------------------------------------------------------------------------- */
/* Scales 1..3                                                                           */

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
    const int32_t e = vmaf_adm_enhanced(o, r, t, gain, vector);
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
    const int32_t *const rb[3] = { oh, ov, od }, *const db[3] = { th, tv, td };
    int32_t x[3], y[3];
    vmaf_adm_decouple123_pixel(rb, db, (size_t)j, vector, gain, cos2, x, y);
    rh[j] = x[0];
    rv[j] = x[1];
    rd[j] = x[2];
    ah[j] = y[0];
    av[j] = y[1];
    ad[j] = y[2];
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

#if ADM_HAVE_HAND
/* Hand-written AVX2 scales 1..3: eight pixels per step, the same double operations as
 * angle123_fast()/explained123_fast() (divisions by powers of two done as the exactly
 * equal multiplications); pixels outside the exact range are redone by
 * decouple123_pixel() as in decouple123_line(). */

ADM_TARGET_AVX2 static inline __m256d lo_pd(__m256i v)
{
    return _mm256_cvtepi32_pd(_mm256_castsi256_si128(v));
}

ADM_TARGET_AVX2 static inline __m256d hi_pd(__m256i v)
{
    return _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1));
}

/* exact_over_4096() of 4 doubles. */
ADM_TARGET_AVX2 static inline __m256d exact_over_4096_x4(__m256d v)
{
    return _mm256_mul_pd(_mm256_cvtps_pd(_mm256_cvtpd_ps(v)), _mm256_set1_pd(1.0 / 4096.0));
}

/* angle123_fast()'s flag for 4 pixels. */
ADM_TARGET_AVX2 static inline __m256d close123_x4(__m256d oh, __m256d ov, __m256d th,
                                                  __m256d tv, __m256d cos2)
{
    const __m256d dot = _mm256_add_pd(_mm256_mul_pd(oh, th), _mm256_mul_pd(ov, tv));
    const __m256d o_sq = _mm256_add_pd(_mm256_mul_pd(oh, oh), _mm256_mul_pd(ov, ov));
    const __m256d t_sq = _mm256_add_pd(_mm256_mul_pd(th, th), _mm256_mul_pd(tv, tv));
    const __m256d d = exact_over_4096_x4(dot);
    const __m256d rhs = _mm256_mul_pd(_mm256_mul_pd(cos2, exact_over_4096_x4(o_sq)),
                                      exact_over_4096_x4(t_sq));
    const __m256d pos = _mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_GE_OQ);
    return _mm256_and_pd(pos, _mm256_cmp_pd(_mm256_mul_pd(d, d), rhs, _CMP_GE_OQ));
}

/* 2^(e + n) as doubles for 4 int32 n (e + n a normal exponent). */
ADM_TARGET_AVX2 static inline __m256d pow2_x4(__m128i n, int e)
{
    const __m256i b = _mm256_add_epi64(_mm256_cvtepi32_epi64(n), _mm256_set1_epi64x(1023 + e));
    return _mm256_castsi256_pd(_mm256_slli_epi64(b, 52));
}

/* k and r of explained123_fast() for 4 pixels. */
ADM_TARGET_AVX2 static inline __m128i explained123_x4(__m128i o, __m128i t, __m128i top,
                                                      __m128i sgn, __m128i sh, __m128i *k_out)
{
    const __m256d q = _mm256_round_pd(
        _mm256_div_pd(_mm256_set1_pd(1073741824.0), _mm256_cvtepi32_pd(top)),
        _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256d p =
        _mm256_mul_pd(_mm256_mul_pd(q, _mm256_cvtepi32_pd(t)), _mm256_cvtepi32_pd(sgn));
    const __m256d y = _mm256_mul_pd(_mm256_add_pd(p, pow2_x4(sh, 14)), pow2_x4(
                                        _mm_sub_epi32(_mm_setzero_si128(), sh), -15));
    const __m256d kd = _mm256_min_pd(
        _mm256_max_pd(_mm256_floor_pd(y), _mm256_setzero_pd()), _mm256_set1_pd(32768.0));
    *k_out = _mm256_cvttpd_epi32(kd);
    const __m256d rd = _mm256_floor_pd(
        _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(kd, _mm256_cvtepi32_pd(o)),
                                    _mm256_set1_pd(16384.0)),
                      _mm256_set1_pd(1.0 / 32768.0)));
    return _mm256_cvttpd_epi32(rd);
}

/* explained123_fast() (vector) for 8 pixels. */
ADM_TARGET_AVX2 static inline __m256i explain123_x8(__m256i o, __m256i t, __m256i close,
                                                    __m256d gain)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i mag = _mm256_abs_epi32(o); /* as uint32 */
    /* bits of |o| above bit 14 (exact for |o| < 2^26: |o| >> 8 converts exactly) */
    const __m256i ex = _mm256_srli_epi32(
        _mm256_castps_si256(_mm256_cvtepi32_ps(_mm256_srli_epi32(mag, 8))), 23);
    const __m256i sh = _mm256_max_epi32(_mm256_sub_epi32(ex, _mm256_set1_epi32(133)), zero);
    const __m256i half = _mm256_srli_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), sh), 1);
    const __m256i top0 = _mm256_srlv_epi32(_mm256_add_epi32(mag, half), sh);
    const __m256i top = _mm256_max_epi32(top0, _mm256_set1_epi32(1));
    const __m256i sgn = _mm256_or_si256(_mm256_srai_epi32(o, 31), _mm256_set1_epi32(1));
    __m128i k_lo, k_hi;
    const __m128i r_lo = explained123_x4(
        _mm256_castsi256_si128(o), _mm256_castsi256_si128(t), _mm256_castsi256_si128(top),
        _mm256_castsi256_si128(sgn), _mm256_castsi256_si128(sh), &k_lo);
    const __m128i r_hi = explained123_x4(
        _mm256_extracti128_si256(o, 1), _mm256_extracti128_si256(t, 1),
        _mm256_extracti128_si256(top, 1), _mm256_extracti128_si256(sgn, 1),
        _mm256_extracti128_si256(sh, 1), &k_hi);
    const __m256i r = _mm256_set_m128i(r_hi, r_lo);
    const __m256i k = _mm256_set_m128i(k_hi, k_lo);
    const __m256i g = _mm256_set_m128i(gained4(r_hi, gain), gained4(r_lo, gain));
    const __m256i e = _mm256_blendv_epi8(_mm256_max_epi32(g, t), _mm256_min_epi32(g, t),
                                         _mm256_cmpgt_epi32(o, zero));
    const __m256i use = _mm256_andnot_si256(
        _mm256_cmpeq_epi32(o, zero), _mm256_and_si256(close, _mm256_cmpgt_epi32(k, zero)));
    return _mm256_blendv_epi8(r, e, use);
}

ADM_TARGET_AVX2 void vmaf_adm_decouple_scale123_simd(const VmafAdmBands32 *ref,
                                                     const VmafAdmBands32 *dis,
                                                     const VmafAdmBands32 *r,
                                                     const VmafAdmBands32 *a, int w, int h,
                                                     size_t stride, double gain_limit)
{
    const VmafAdmRegion reg = vmaf_adm_region_outer(w, h);
    const int vend = vector_end(&reg);
    const double cos2s = cos_1deg_squared();
    const __m256d cos2 = _mm256_set1_pd(cos2s);
    const __m256d gain = _mm256_set1_pd(gain_limit);
    for (int i = reg.top; i < reg.bottom; i++) {
        const size_t o = (size_t)i * stride;
        const int32_t *oh = ref->h + o, *ov = ref->v + o, *od = ref->d + o;
        const int32_t *th = dis->h + o, *tv = dis->v + o, *td = dis->d + o;
        int32_t *rh = r->h + o, *rv = r->v + o, *rd = r->d + o;
        int32_t *ah = a->h + o, *av = a->v + o, *ad = a->d + o;
        for (int j = reg.left; j < vend; j += 8) {
            const __m256i o_h = _mm256_loadu_si256((const __m256i *)(oh + j));
            const __m256i o_v = _mm256_loadu_si256((const __m256i *)(ov + j));
            const __m256i o_d = _mm256_loadu_si256((const __m256i *)(od + j));
            const __m256i t_h = _mm256_loadu_si256((const __m256i *)(th + j));
            const __m256i t_v = _mm256_loadu_si256((const __m256i *)(tv + j));
            const __m256i t_d = _mm256_loadu_si256((const __m256i *)(td + j));
            const __m256i any = _mm256_or_si256(
                _mm256_or_si256(_mm256_or_si256(_mm256_abs_epi32(o_h), _mm256_abs_epi32(o_v)),
                                _mm256_or_si256(_mm256_abs_epi32(o_d), _mm256_abs_epi32(t_h))),
                _mm256_or_si256(_mm256_abs_epi32(t_v), _mm256_abs_epi32(t_d)));
            const int inexact = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(
                                    _mm256_srli_epi32(any, 26), _mm256_setzero_si256()))) ^
                                0xFF;
            const __m256i close =
                mask64_to_32(close123_x4(lo_pd(o_h), lo_pd(o_v), lo_pd(t_h), lo_pd(t_v), cos2),
                             close123_x4(hi_pd(o_h), hi_pd(o_v), hi_pd(t_h), hi_pd(t_v), cos2));
            const __m256i x_h = explain123_x8(o_h, t_h, close, gain);
            _mm256_storeu_si256((__m256i *)(rh + j), x_h);
            _mm256_storeu_si256((__m256i *)(ah + j), _mm256_sub_epi32(t_h, x_h));
            const __m256i x_v = explain123_x8(o_v, t_v, close, gain);
            _mm256_storeu_si256((__m256i *)(rv + j), x_v);
            _mm256_storeu_si256((__m256i *)(av + j), _mm256_sub_epi32(t_v, x_v));
            const __m256i x_d = explain123_x8(o_d, t_d, close, gain);
            _mm256_storeu_si256((__m256i *)(rd + j), x_d);
            _mm256_storeu_si256((__m256i *)(ad + j), _mm256_sub_epi32(t_d, x_d));
            for (int k = 0; inexact && k < 8; k++)
                if (inexact & (1 << k))
                    decouple123_pixel(oh, ov, od, th, tv, td, rh, rv, rd, ah, av, ad, j + k,
                                      gain_limit, cos2s, true);
        }
        decouple123_line(oh, ov, od, th, tv, td, rh, rv, rd, ah, av, ad, vend, reg.right,
                         gain_limit, cos2s, false);
    }
}
#else
void vmaf_adm_decouple_scale123_simd(const VmafAdmBands32 *ref, const VmafAdmBands32 *dis,
                                     const VmafAdmBands32 *r, const VmafAdmBands32 *a, int w,
                                     int h, size_t stride, double gain_limit)
{
    vmaf_adm_decouple_scale123(ref, dis, r, a, w, h, stride, gain_limit);
}
#endif

ADM_DISPATCH_VOID(vmaf_adm_decouple_scale123,
                  (const VmafAdmBands32 *ref, const VmafAdmBands32 *dis,
                   const VmafAdmBands32 *r, const VmafAdmBands32 *a, int w, int h,
                   size_t stride, double gain_limit),
                  (ref, dis, r, a, w, h, stride, gain_limit))
