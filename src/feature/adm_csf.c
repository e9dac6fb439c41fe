/*
 * Twin VMAF — integer ADM: contrast sensitivity weights and the CSF stage (see adm.h).
 *
 * The weights are evaluated once per run in the reference's float/double mix: every
 * intermediate that the reference keeps in a float is rounded to float here too.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "adm.h"
#include "adm_device.h"
#include "adm_simd.h"

/* Display visual resolution in pixels per degree (56.55 for 1080 lines at 3 H). */
static float pixels_per_degree(const VmafAdmOptions *opt)
{
    return (float)(opt->norm_view_dist * opt->ref_display_height * M_PI / 180.0);
}

/* Watson's quantization step of band theta at level lambda; its inverse is the weight. */
static float watson_step(unsigned lambda, unsigned theta, const VmafAdmOptions *opt)
{
    const VmafAdmWatsonParams *p = &vmaf_adm_watson_luma;
    const float r = pixels_per_degree(opt);
    const float t = (float)log10(pow(2.0, lambda + 1) * p->f0 * p->g[theta] / r);
    const float kt2 = p->k * t * t;
    return (float)(2.0 * p->a * pow(10.0, kt2) / vmaf_adm_watson_amplitude[lambda][theta]);
}

static float lerp_float(float x0, float y0, float x1, float y1, float x)
{
    return y0 + ((y1 - y0) / (x1 - x0)) * (x - x0);
}

static float barten_mtf(float freq)
{
    float mtf = 0.0f;
    for (int i = 0; i < 4; i++) {
        const float e = -vmaf_adm_barten_mtf_b[i] * freq;
        mtf = (float)(mtf + vmaf_adm_barten_mtf_a[i] * exp(e));
    }
    return mtf;
}

static float barten_rod_cone(float luminance)
{
    const float *sa = vmaf_adm_barten_sa;
    const float ratio = sa[1] / luminance;
    const float drop = -sa[3];
    return (float)(sa[0] * pow(pow(ratio, sa[2]) + 1, drop));
}

static float barten_weight(unsigned lambda, const VmafAdmOptions *opt, double scale)
{
    const float freq = (float)(pixels_per_degree(opt) / pow(2, lambda + 1));
    const double lum = VMAF_ADM_CSF_LUMINANCE;
    const float *anchor = vmaf_adm_barten_anchor;

    /* the anchor interval holding the (clamped) luminance */
    const double clamped = lum > anchor[5] ? anchor[5] : (lum < anchor[0] ? anchor[0] : lum);
    int lo = 0, hi = 0;
    for (int i = 0; i < 5; i++) {
        if (clamped >= anchor[i] && clamped <= anchor[i + 1]) {
            lo = i;
            hi = i + 1;
            break;
        }
    }
    const float x0 = (float)log10(anchor[lo]);
    const float x1 = (float)log10(anchor[hi]);
    const float x = (float)log10(clamped);
    float p[4];
    for (int k = 0; k < 4; k++)
        p[k] = lerp_float(x0, vmaf_adm_barten_param[lo][k + 1], x1,
                          vmaf_adm_barten_param[hi][k + 1], x);

    const float p0f = p[0] * freq;
    const float a = (float)(1.0f + pow(p0f, p[1]));
    const float f7 = freq / 7;
    const float b = (float)(1.0f / pow(1 - exp(-pow(f7, 2)), p[2]));
    const float ab = a * b;
    const float csf = (float)(p[3] / pow(ab, 0.5));
    const float mtf = barten_mtf(freq);
    const float rod = barten_rod_cone((float)lum);
    const float product = csf * mtf * rod;
    return (float)(product * scale);
}

static float blend_weight(const VmafAdmBlendTable *table, unsigned lambda, unsigned orient,
                          const VmafAdmOptions *opt)
{
    for (const VmafAdmBlendTable *t = table; t->ref_display_height; t++) {
        if (opt->ref_display_height == t->ref_display_height &&
            opt->norm_view_dist == t->norm_view_dist)
            return t->weight[orient][lambda];
    }
    return -22.0f; /* the reference returns -EINVAL as the weight */
}

void vmaf_adm_csf_weights(const VmafAdmOptions *opt, unsigned scale, float *hv, float *d)
{
    switch (opt->csf_mode) {
    case VMAF_ADM_CSF_BARTEN:
        *hv = barten_weight(scale, opt, opt->csf_scale);
        *d = barten_weight(scale, opt, opt->csf_diag_scale);
        break;
    case VMAF_ADM_CSF_BLEND:
        *hv = blend_weight(vmaf_adm_blend, scale, 0, opt);
        *d = blend_weight(vmaf_adm_blend, scale, 1, opt);
        break;
    case VMAF_ADM_CSF_BLEND_MAE:
        *hv = blend_weight(vmaf_adm_blend_mae, scale, 0, opt);
        *d = blend_weight(vmaf_adm_blend_mae, scale, 1, opt);
        break;
    default:
        *hv = 1.0f / watson_step(scale, 1, opt);
        *d = 1.0f / watson_step(scale, 2, opt);
        break;
    }
}

/* Whether a blend mode has no table for the display geometry. */
static bool blend_missing(const VmafAdmOptions *opt)
{
    const VmafAdmBlendTable *table = opt->csf_mode == VMAF_ADM_CSF_BLEND     ? vmaf_adm_blend
                                     : opt->csf_mode == VMAF_ADM_CSF_BLEND_MAE ? vmaf_adm_blend_mae
                                                                               : NULL;
    if (!table)
        return false;
    for (const VmafAdmBlendTable *t = table; t->ref_display_height; t++)
        if (opt->ref_display_height == t->ref_display_height &&
            opt->norm_view_dist == t->norm_view_dist)
            return false;
    return true;
}

void vmaf_adm_scale_factors(const VmafAdmOptions *opt, VmafAdmScaleFactors f[VMAF_ADM_SCALES])
{
    for (unsigned s = 0; s < VMAF_ADM_SCALES; s++) {
        float hv, d;
        vmaf_adm_csf_weights(opt, s, &hv, &d);
        f[s].rfactor[0] = hv;
        f[s].rfactor[1] = hv;
        f[s].rfactor[2] = d;
        if (blend_missing(opt)) {
            /* the weight is the constant -22 there, whose conversion the reference's
             * compiler folds to 0 (the lower bound) instead of converting at run time */
            f[s].i_rfactor[0] = f[s].i_rfactor[1] = f[s].i_rfactor[2] = 0;
        } else if (s == 0) {
            const double view = opt->norm_view_dist * opt->ref_display_height;
            const double default_view =
                VMAF_ADM_DEFAULT_NORM_VIEW_DIST * VMAF_ADM_DEFAULT_REF_DISPLAY_HEIGHT;
            if (fabs(view - default_view) < 1.0e-8 && opt->csf_mode == VMAF_ADM_CSF_WATSON97) {
                /* the reference's rounded constants for the default geometry */
                f[s].i_rfactor[0] = 36453;
                f[s].i_rfactor[1] = 36453;
                f[s].i_rfactor[2] = 49417;
            } else {
                f[s].i_rfactor[0] = vmaf_adm_to_u16(hv * pow(2, 21));
                f[s].i_rfactor[1] = vmaf_adm_to_u16(hv * pow(2, 21));
                f[s].i_rfactor[2] = vmaf_adm_to_u16(d * pow(2, 23));
            }
        } else {
            f[s].i_rfactor[0] = vmaf_adm_to_u32(hv * pow(2, 32));
            f[s].i_rfactor[1] = vmaf_adm_to_u32(hv * pow(2, 32));
            f[s].i_rfactor[2] = vmaf_adm_to_u32(d * pow(2, 32));
        }
    }
}

/* ------------------------------------------------------------------------------------- */
/* CSF stage                                                                             */

/* Columns [left, left + 16 * n) are vector columns (adm.h). */
static inline int vector_end(const VmafAdmRegion *r, int group)
{
    return r->right - (r->right - r->left) % group;
}

/* Scale 0: Q21/Q23 weights, rounded back to the Q16 of the DWT output. */
/* Columns [j0, j1) of orientation t: vmaf_adm_csf0() (vector columns derive the mask from
 * the value before it is truncated to int16), through locals so that the loop vectorizes. */
ADM_INLINE void csf0_line(const int16_t *restrict src, int16_t *restrict dst,
                          int16_t *restrict mask, int j0, int j1, uint16_t weight, int t,
                          bool vector)
{
    for (int j = j0; j < j1; j++) {
        int16_t v, m;
        vmaf_adm_csf0(src[j], t, weight, vector, &v, &m);
        dst[j] = v;
        mask[j] = m;
    }
}

ADM_INLINE void vmaf_adm_csf_scale0_impl(const VmafAdmBands16 *src, const VmafAdmBands16 *dst,
                                         const VmafAdmBands16 *mask, int w, int h,
                                         size_t stride, const VmafAdmScaleFactors *f)
{
    const VmafAdmRegion r = vmaf_adm_region_outer(w, h);
    const int vend = vector_end(&r, 16);
    const int16_t *s[3] = { src->h, src->v, src->d };
    int16_t *o[3] = { dst->h, dst->v, dst->d };
    int16_t *m[3] = { mask->h, mask->v, mask->d };

    for (int t = 0; t < 3; t++) {
        const uint16_t weight = (uint16_t)f->i_rfactor[t];
        for (int i = r.top; i < r.bottom; i++) {
            const size_t off = (size_t)i * stride;
            csf0_line(s[t] + off, o[t] + off, m[t] + off, r.left, vend, weight, t, true);
            csf0_line(s[t] + off, o[t] + off, m[t] + off, vend, r.right, weight, t, false);
        }
    }
}

ADM_DISPATCH_VOID(vmaf_adm_csf_scale0,
                  (const VmafAdmBands16 *src, const VmafAdmBands16 *dst,
                   const VmafAdmBands16 *mask, int w, int h, size_t stride,
                   const VmafAdmScaleFactors *f),
                  (src, dst, mask, w, h, stride, f))

/* Scales 1..3: Q32 weights, rounded by 2^28; the mask rounds with -2^31 before >> 32
 * (the reference's rounding constant 1u << 31 stored in an int32). */
ADM_INLINE void csf123_line(const int32_t *restrict src, int32_t *restrict dst,
                            int32_t *restrict mask, int j0, int j1, uint32_t weight,
                            bool vector)
{
    for (int j = j0; j < j1; j++) {
        int32_t v, m;
        vmaf_adm_csf123(src[j], weight, vector, &v, &m);
        dst[j] = v;
        mask[j] = m;
    }
}

ADM_INLINE void vmaf_adm_csf_scale123_impl(const VmafAdmBands32 *src,
                                           const VmafAdmBands32 *dst,
                                           const VmafAdmBands32 *mask, int w, int h,
                                           size_t stride, const VmafAdmScaleFactors *f)
{
    const VmafAdmRegion r = vmaf_adm_region_outer(w, h);
    const int vend = vector_end(&r, 16);
    const int32_t *s[3] = { src->h, src->v, src->d };
    int32_t *o[3] = { dst->h, dst->v, dst->d };
    int32_t *m[3] = { mask->h, mask->v, mask->d };

    for (int t = 0; t < 3; t++) {
        /* vector columns multiply by the weight read as a signed int32 */
        const uint32_t weight = f->i_rfactor[t];
        for (int i = r.top; i < r.bottom; i++) {
            const size_t off = (size_t)i * stride;
            csf123_line(s[t] + off, o[t] + off, m[t] + off, r.left, vend, weight, true);
            csf123_line(s[t] + off, o[t] + off, m[t] + off, vend, r.right, weight, false);
        }
    }
}

ADM_DISPATCH_VOID(vmaf_adm_csf_scale123,
                  (const VmafAdmBands32 *src, const VmafAdmBands32 *dst,
                   const VmafAdmBands32 *mask, int w, int h, size_t stride,
                   const VmafAdmScaleFactors *f),
                  (src, dst, mask, w, h, stride, f))
