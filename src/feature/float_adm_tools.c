/*
 * Twin VMAF — float ADM: the per-scale stages (float_adm.h describes the arithmetic).
 *
 * The bands of a scale live in one allocation; decouple, CSF and the mask values cover the
 * outer region, masking and the denominator the inner one. The reference's four-way
 * special-casing of the masking neighbourhood (first/last row and column) is one index
 * rule here; the visiting order of the pixels, which fixes the float sums, is the
 * reference's.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "adm.h"
#include "float_adm.h"
#include "float_filter.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------------------------------- */
/* CSF weights                                                                           */

/* The CSF of the DLM paper for band orientation theta (0, or 45 for the diagonal band). */
static float native_csf(int lambda, double norm_view_dist, int ref_display_height, int theta)
{
    const float pixels_per_degree = (float)(norm_view_dist * ref_display_height * M_PI / 180.0);
    float frequency = (float)(pixels_per_degree / pow(2, lambda + 1));
    if (theta == 45) frequency = (float)(frequency / 0.7); /* oblique effect */
    return (float)((0.31 + 0.69 * frequency) * exp(-0.29 * frequency));
}

void vmaf_float_adm_params(const VmafFloatAdmOptions *o, VmafFloatAdmParams *p)
{
    /* Watson and Barten weights are the integer ADM's (same formulas, same roundings). */
    VmafAdmOptions csf = {
        .csf_mode = o->csf_mode == VMAF_FLOAT_ADM_CSF_BARTEN ? VMAF_ADM_CSF_BARTEN
                                                             : VMAF_ADM_CSF_WATSON97,
        .csf_scale = o->csf_scale,
        .csf_diag_scale = o->csf_diag_scale,
        .norm_view_dist = o->norm_view_dist,
        .ref_display_height = o->ref_display_height,
    };
    for (int s = 0; s < VMAF_FLOAT_ADM_SCALES; s++) {
        float f1, f2;
        if (o->csf_mode == VMAF_FLOAT_ADM_CSF_NATIVE) {
            f1 = native_csf(s, o->norm_view_dist, o->ref_display_height, 0);
            f2 = native_csf(s, o->norm_view_dist, o->ref_display_height, 45);
        } else {
            vmaf_adm_csf_weights(&csf, (unsigned)s, &f1, &f2);
        }
        if (o->factor1[s] >= 0) f1 = (float)o->factor1[s];
        if (o->factor2[s] >= 0) f2 = (float)o->factor2[s];
        p->rfactor[s][0] = f1;
        p->rfactor[s][1] = f1;
        p->rfactor[s][2] = f2;
    }
    p->enhn_gain_limit = o->enhn_gain_limit;
    p->noise_weight = o->noise_weight;
    p->p_norm = o->p_norm;
    p->bypass_cm = o->bypass_cm != 0;
    p->skip_scale0 = o->skip_scale0;
}

/* ------------------------------------------------------------------------------------- */
/* Workspace                                                                             */

enum { BAND_PLANES = 4 + 4 + 3 * 6 }; /* ref, dis (A H V D); r, a, csf_r, csf_a, masks */

void vmaf_float_adm_workspace_close(VmafFloatAdmWorkspace *ws)
{
    free(ws->block);
    free(ws->lo);
    free(ws->terms);
    ws->block = NULL;
    ws->lo = ws->hi = ws->terms = NULL;
}

static float *take(float **next, size_t n)
{
    float *p = *next;
    *next += n;
    return p;
}

static void take_bands(VmafFloatAdmBands *b, float **next, size_t n, bool with_a)
{
    b->a = with_a ? take(next, n) : NULL;
    b->h = take(next, n);
    b->v = take(next, n);
    b->d = take(next, n);
}

int vmaf_float_adm_workspace_init(VmafFloatAdmWorkspace *ws, unsigned w, unsigned h)
{
    memset(ws, 0, sizeof(*ws));
    ws->w = w;
    ws->h = h;
    ws->stride = vmaf_float_stride((w + 1) / 2);
    const size_t plane = ws->stride * ((h + 1) / 2);
    ws->block = calloc(plane * BAND_PLANES + 1, sizeof(float));
    ws->lo = malloc(2 * ((size_t)w + 1) * sizeof(float));
    ws->terms = malloc(4 * ((size_t)(w + 1) / 2 + 1) * sizeof(float));
    if (!ws->block || !ws->lo || !ws->terms) {
        vmaf_float_adm_workspace_close(ws);
        return -ENOMEM;
    }
    ws->hi = ws->lo + w + 1;
    float *next = ws->block;
    take_bands(&ws->ref, &next, plane, true);
    take_bands(&ws->dis, &next, plane, true);
    take_bands(&ws->r, &next, plane, false);
    take_bands(&ws->a, &next, plane, false);
    take_bands(&ws->csf_r, &next, plane, false);
    take_bands(&ws->csf_a, &next, plane, false);
    take_bands(&ws->mask_r, &next, plane, false);
    take_bands(&ws->mask_a, &next, plane, false);
    for (uint32_t k = 0; k < VMAF_FLOAT_ADM_RCP_ENTRIES; k++)
        ws->rcp[k] = vmaf_float_adm_rcp_mantissa(k);
    return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Regions                                                                               */

VmafFloatAdmRegion vmaf_float_adm_region_inner(int w, int h)
{
    const int left = (int)(w * VMAF_FLOAT_ADM_BORDER_FACTOR - 0.5);
    const int top = (int)(h * VMAF_FLOAT_ADM_BORDER_FACTOR - 0.5);
    return (VmafFloatAdmRegion){
        .left = left, .top = top, .right = w - left, .bottom = h - top,
    };
}

VmafFloatAdmRegion vmaf_float_adm_region_outer(int w, int h)
{
    /* one more sample on each side for the 3x3 mask; right and bottom use the unclamped
     * left and top, as the reference computes them */
    const int left = (int)(w * VMAF_FLOAT_ADM_BORDER_FACTOR - 0.5 - 1);
    const int top = (int)(h * VMAF_FLOAT_ADM_BORDER_FACTOR - 0.5 - 1);
    const int right = w - left + 2, bottom = h - top + 2;
    return (VmafFloatAdmRegion){
        .left = left < 0 ? 0 : left,
        .top = top < 0 ? 0 : top,
        .right = right > w ? w : right,
        .bottom = bottom > h ? h : bottom,
    };
}

/* ------------------------------------------------------------------------------------- */
/* DWT                                                                                   */

#define taps4 vmaf_float_adm_taps4

VMAF_FLOAT_INLINE void dwt_vertical(const float *VMAF_FLOAT_RESTRICT r0,
                                    const float *VMAF_FLOAT_RESTRICT r1,
                                    const float *VMAF_FLOAT_RESTRICT r2,
                                    const float *VMAF_FLOAT_RESTRICT r3, int w, bool lo_only,
                                    float *VMAF_FLOAT_RESTRICT lo,
                                    float *VMAF_FLOAT_RESTRICT hi)
{
    const float *L = vmaf_float_adm_dwt_lo, *H = vmaf_float_adm_dwt_hi;
    for (int j = 0; j < w; j++)
        lo[j] = taps4(L, r0[j], r1[j], r2[j], r3[j]);
    if (lo_only) return;
    for (int j = 0; j < w; j++)
        hi[j] = taps4(H, r0[j], r1[j], r2[j], r3[j]);
}

VMAF_FLOAT_INLINE void dwt_kernel(const float *src, ptrdiff_t src_stride, int w, int h,
                                  const VmafFloatAdmBands *dst, ptrdiff_t dst_stride,
                                  bool lo_only, float *lo, float *hi)
{
    const float *L = vmaf_float_adm_dwt_lo, *H = vmaf_float_adm_dwt_hi;
    const int out_w = (w + 1) / 2, out_h = (h + 1) / 2;
    for (int i = 0; i < out_h; i++) {
        const float *r[VMAF_FLOAT_ADM_TAPS];
        for (int k = 0; k < VMAF_FLOAT_ADM_TAPS; k++)
            r[k] = src + vmaf_float_adm_dwt_index(2 * i - 1 + k, h) * src_stride;
        dwt_vertical(r[0], r[1], r[2], r[3], w, lo_only, lo, hi);

        float *band_a = dst->a + i * dst_stride;
        float *band_v = lo_only ? NULL : dst->v + i * dst_stride;
        float *band_h = lo_only ? NULL : dst->h + i * dst_stride;
        float *band_d = lo_only ? NULL : dst->d + i * dst_stride;
        for (int j = 0; j < out_w; j++) {
            int c[VMAF_FLOAT_ADM_TAPS];
            for (int k = 0; k < VMAF_FLOAT_ADM_TAPS; k++)
                c[k] = vmaf_float_adm_dwt_index(2 * j - 1 + k, w);
            band_a[j] = taps4(L, lo[c[0]], lo[c[1]], lo[c[2]], lo[c[3]]);
            if (lo_only) continue;
            band_v[j] = taps4(H, lo[c[0]], lo[c[1]], lo[c[2]], lo[c[3]]);
            band_h[j] = taps4(L, hi[c[0]], hi[c[1]], hi[c[2]], hi[c[3]]);
            band_d[j] = taps4(H, hi[c[0]], hi[c[1]], hi[c[2]], hi[c[3]]);
        }
    }
}

void vmaf_float_adm_dwt(const float *src, ptrdiff_t src_stride, int w, int h,
                        const VmafFloatAdmBands *dst, ptrdiff_t dst_stride, bool lo_only,
                        float *lo, float *hi)
{
    dwt_kernel(src, src_stride, w, h, dst, dst_stride, lo_only, lo, hi);
}

/* ------------------------------------------------------------------------------------- */
/* Decouple                                                                              */

float vmaf_float_adm_cos_1deg_sq(void)
{
    return (float)(cos(1.0 * M_PI / 180.0) * cos(1.0 * M_PI / 180.0));
}

VMAF_FLOAT_INLINE void decouple(VmafFloatAdmWorkspace *ws, const VmafFloatAdmParams *p, int w,
                                int h)
{
    const VmafFloatAdmRegion rg = vmaf_float_adm_region_outer(w, h);
    const float cos_1deg_sq = vmaf_float_adm_cos_1deg_sq();
    const ptrdiff_t stride = (ptrdiff_t)ws->stride;
    for (int i = rg.top; i < rg.bottom; i++) {
        const ptrdiff_t row = i * stride;
        for (int j = rg.left; j < rg.right; j++) {
            const ptrdiff_t x = row + j;
            const float oh = ws->ref.h[x], ov = ws->ref.v[x], od = ws->ref.d[x];
            const float th = ws->dis.h[x], tv = ws->dis.v[x], td = ws->dis.d[x];
            const bool angle_flag = vmaf_float_adm_angle_flag(oh, ov, th, tv, cos_1deg_sq);
            const float rh = vmaf_float_adm_restore(ws->rcp, oh, th, angle_flag, p->enhn_gain_limit);
            const float rv = vmaf_float_adm_restore(ws->rcp, ov, tv, angle_flag, p->enhn_gain_limit);
            const float rd = vmaf_float_adm_restore(ws->rcp, od, td, angle_flag, p->enhn_gain_limit);
            ws->r.h[x] = rh;
            ws->r.v[x] = rv;
            ws->r.d[x] = rd;
            ws->a.h[x] = th - rh;
            ws->a.v[x] = tv - rv;
            ws->a.d[x] = td - rd;
        }
    }
}

/* ------------------------------------------------------------------------------------- */
/* CSF                                                                                   */

VMAF_FLOAT_INLINE void csf(const VmafFloatAdmWorkspace *ws, const float rfactor[3],
                const VmafFloatAdmBands *src, const VmafFloatAdmBands *out,
                const VmafFloatAdmBands *mask, int w, int h)
{
    const VmafFloatAdmRegion rg = vmaf_float_adm_region_outer(w, h);
    const ptrdiff_t stride = (ptrdiff_t)ws->stride;
    const float *s[3] = { src->h, src->v, src->d };
    float *c[3] = { out->h, out->v, out->d };
    float *m[3] = { mask->h, mask->v, mask->d };
    for (int b = 0; b < 3; b++) {
        for (int i = rg.top; i < rg.bottom; i++) {
            const float *sr = s[b] + i * stride;
            float *cr = c[b] + i * stride, *mr = m[b] + i * stride;
            for (int j = rg.left; j < rg.right; j++) {
                const float v = rfactor[b] * sr[j];
                cr[j] = v;
                mr[j] = vmaf_float_adm_mask_value(v);
            }
        }
    }
}

/* ------------------------------------------------------------------------------------- */
/* Masking and the denominator                                                           */

/* Noise floor of a region: powf(area * weight, 1/p), rounded as the reference passes it. */
static float noise_floor(int w, int h, double weight, double p_norm)
{
    return vmaf_xpowf((float)(w * h * weight), (float)(1.0f / p_norm));
}

float vmaf_float_adm_band_value(const float total[3], int area_w, int area_h,
                                double noise_weight, double p_norm)
{
    const float root = (float)(1.0f / p_norm);
    const float floor = noise_floor(area_w, area_h, noise_weight, p_norm);
    float value[3];
    for (int b = 0; b < 3; b++)
        value[b] = vmaf_xpowf(total[b], root) + floor;
    return value[0] + value[1] + value[2];
}

VMAF_FLOAT_INLINE float power(float x, double p_norm)
{
    return vmaf_float_adm_power(x, p_norm == 3.0, (float)p_norm);
}

/* Sources of one masked sum: the scored CSF values and the other part's CSF and masks. */
typedef struct MaskedSum {
    const float *scored[3];
    const float *other_csf[3], *other_mask[3];
    ptrdiff_t stride;
    int w, h;
    bool bypass;
    double p_norm;
    float *terms; /**< scratch: 4 rows of w (3 bands' terms, the thresholds) */
} MaskedSum;

VMAF_FLOAT_INLINE float mask_threshold(const MaskedSum *m, int i, int j)
{
    return vmaf_float_adm_threshold(m->other_mask, m->other_csf, m->stride, m->w, m->h, i, j);
}

/* Adds the pixel's three band terms to the row sums. */
VMAF_FLOAT_INLINE void masked_pixel(const MaskedSum *m, int i, int j, float acc[3])
{
    const float threshold = m->bypass ? 0.0f : mask_threshold(m, i, j);
    for (int b = 0; b < 3; b++) {
        float x = fabsf(m->scored[b][i * m->stride + j]) - threshold;
        x = x < 0.0f ? 0.0f : x;
        acc[b] += power(x, m->p_norm);
    }
}

/* The terms of pixels (i, j) for j in [start, end) of a row with both neighbours inside
 * the band (0 < i < h-1, 0 < start, end < w): mask_threshold and masked_pixel without the
 * edge cases, one band term per pixel into terms[b][j - start], so that it vectorizes. */
VMAF_FLOAT_INLINE void inner_terms(const MaskedSum *m, int i, int start, int end,
                                   float *const terms[3], float *VMAF_FLOAT_RESTRICT thr)
{
    const ptrdiff_t st = m->stride;
    const int n = end - start;
    for (int k = 0; k < n; k++)
        thr[k] = 0.0f;
    if (!m->bypass) {
        for (int b = 0; b < 3; b++) {
            const float *VMAF_FLOAT_RESTRICT m0 = m->other_mask[b] + (i - 1) * st + start;
            const float *VMAF_FLOAT_RESTRICT m1 = m->other_mask[b] + i * st + start;
            const float *VMAF_FLOAT_RESTRICT m2 = m->other_mask[b] + (i + 1) * st + start;
            const float *VMAF_FLOAT_RESTRICT c1 = m->other_csf[b] + i * st + start;
            for (int k = 0; k < n; k++) {
                float sum = 0.0f;
                sum += m0[k - 1];
                sum += m0[k];
                sum += m0[k + 1];
                sum += m1[k - 1];
                sum = (float)(sum + VMAF_FLOAT_ADM_ONE_BY_15 * fabsf(c1[k]));
                sum += m1[k + 1];
                sum += m2[k - 1];
                sum += m2[k];
                sum += m2[k + 1];
                thr[k] += sum;
            }
        }
    }
    for (int b = 0; b < 3; b++) {
        const float *VMAF_FLOAT_RESTRICT x = m->scored[b] + i * st + start;
        float *VMAF_FLOAT_RESTRICT out = terms[b];
        for (int k = 0; k < n; k++) {
            float v = fabsf(x[k]) - thr[k];
            v = v < 0.0f ? 0.0f : v;
            out[k] = m->p_norm == 3.0 ? v * v * v : v;
        }
        if (m->p_norm != 3.0)
            for (int k = 0; k < n; k++)
                out[k] = vmaf_xpowf(out[k], (float)m->p_norm);
    }
}

/* One row's sums in the reference's order: column 0, the inner columns, column w-1. */
VMAF_FLOAT_INLINE void masked_row(const MaskedSum *m, const VmafFloatAdmRegion *rg, int i,
                                  float acc[3])
{
    const int start = rg->left > 1 ? rg->left : 1;
    const int end = rg->right < m->w - 1 ? rg->right : m->w - 1;
    if (rg->left <= 0) masked_pixel(m, i, 0, acc);
    if (i > 0 && i < m->h - 1 && end > start) {
        float *const terms[3] = { m->terms, m->terms + m->w, m->terms + 2 * m->w };
        inner_terms(m, i, start, end, terms, m->terms + 3 * m->w);
        for (int k = 0; k < end - start; k++)
            for (int b = 0; b < 3; b++)
                acc[b] += terms[b][k];
    } else {
        for (int j = start; j < end; j++)
            masked_pixel(m, i, j, acc);
    }
    if (rg->right > m->w - 1) masked_pixel(m, i, m->w - 1, acc);
}

VMAF_FLOAT_INLINE void add_masked_row(const MaskedSum *m, const VmafFloatAdmRegion *rg, int i,
                           float total[3])
{
    float acc[3] = { 0.0f, 0.0f, 0.0f };
    masked_row(m, rg, i, acc);
    for (int b = 0; b < 3; b++)
        total[b] += acc[b];
}

VMAF_FLOAT_INLINE float masked_sum(const MaskedSum *m, double noise_weight)
{
    const VmafFloatAdmRegion rg = vmaf_float_adm_region_inner(m->w, m->h);
    float total[3] = { 0.0f, 0.0f, 0.0f };
    /* row 0, the inner rows, row h-1 (for one row, row 0 is visited twice, as in the
     * reference) */
    const int start = rg.top > 1 ? rg.top : 1;
    const int end = rg.bottom < m->h - 1 ? rg.bottom : m->h - 1;
    if (rg.top <= 0) add_masked_row(m, &rg, 0, total);
    for (int i = start; i < end; i++)
        add_masked_row(m, &rg, i, total);
    if (rg.bottom > m->h - 1) add_masked_row(m, &rg, m->h - 1, total);

    return vmaf_float_adm_band_value(total, rg.right - rg.left, rg.bottom - rg.top,
                                     noise_weight, m->p_norm);
}

VMAF_FLOAT_INLINE float denominator(const VmafFloatAdmWorkspace *ws, const VmafFloatAdmParams *p,
                         const float rfactor[3], int w, int h)
{
    const VmafFloatAdmRegion rg = vmaf_float_adm_region_inner(w, h);
    const ptrdiff_t stride = (ptrdiff_t)ws->stride;
    const float *band[3] = { ws->ref.h, ws->ref.v, ws->ref.d };
    float total[3] = { 0.0f, 0.0f, 0.0f };
    for (int i = rg.top; i < rg.bottom; i++) {
        float acc[3] = { 0.0f, 0.0f, 0.0f };
        for (int j = rg.left; j < rg.right; j++) {
            for (int b = 0; b < 3; b++) {
                const float x = fabsf(rfactor[b] * band[b][i * stride + j]);
                acc[b] += power(x, p->p_norm);
            }
        }
        for (int b = 0; b < 3; b++)
            total[b] += acc[b];
    }
    return vmaf_float_adm_band_value(total, rg.right - rg.left, rg.bottom - rg.top,
                                     p->noise_weight, p->p_norm);
}

/* ------------------------------------------------------------------------------------- */
/* Scales                                                                                */

VMAF_FLOAT_INLINE void scales_kernel(VmafFloatAdmWorkspace *ws, const VmafFloatAdmParams *p,
                                     const float *ref, const float *dis, ptrdiff_t stride,
                                     VmafFloatAdmScale *out)
{
    const ptrdiff_t band_stride = (ptrdiff_t)ws->stride;
    int w = (int)ws->w, h = (int)ws->h;
    const float *cur_ref = ref, *cur_dis = dis;
    ptrdiff_t cur_stride = stride;
    for (int s = 0; s < VMAF_FLOAT_ADM_SCALES; s++) {
        const bool lo_only = s == 0 && p->skip_scale0;
        dwt_kernel(cur_ref, cur_stride, w, h, &ws->ref, band_stride, lo_only, ws->lo, ws->hi);
        dwt_kernel(cur_dis, cur_stride, w, h, &ws->dis, band_stride, lo_only, ws->lo, ws->hi);
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        cur_ref = ws->ref.a;
        cur_dis = ws->dis.a;
        cur_stride = band_stride;
        if (lo_only) {
            out[s] = (VmafFloatAdmScale){ .num = 0.0f, .den = 1e-10f, .aim_num = 0.0f };
            continue;
        }
        const float *rfactor = p->rfactor[s];
        decouple(ws, p, w, h);
        out[s].den = denominator(ws, p, rfactor, w, h);
        csf(ws, rfactor, &ws->a, &ws->csf_a, &ws->mask_a, w, h);
        csf(ws, rfactor, &ws->r, &ws->csf_r, &ws->mask_r, w, h);
        const MaskedSum dlm = {
            .scored = { ws->csf_r.h, ws->csf_r.v, ws->csf_r.d },
            .other_csf = { ws->csf_a.h, ws->csf_a.v, ws->csf_a.d },
            .other_mask = { ws->mask_a.h, ws->mask_a.v, ws->mask_a.d },
            .stride = band_stride, .w = w, .h = h, .bypass = p->bypass_cm,
            .p_norm = p->p_norm, .terms = ws->terms,
        };
        out[s].num = masked_sum(&dlm, p->noise_weight);
        const MaskedSum aim = {
            .scored = { ws->csf_a.h, ws->csf_a.v, ws->csf_a.d },
            .other_csf = { ws->csf_r.h, ws->csf_r.v, ws->csf_r.d },
            .other_mask = { ws->mask_r.h, ws->mask_r.v, ws->mask_r.d },
            .stride = band_stride, .w = w, .h = h, .bypass = p->bypass_cm,
            .p_norm = p->p_norm, .terms = ws->terms,
        };
        out[s].aim_num = masked_sum(&aim, 0.0);
    }
}

static void scales_plain(VmafFloatAdmWorkspace *ws, const VmafFloatAdmParams *p,
                         const float *ref, const float *dis, ptrdiff_t stride,
                         VmafFloatAdmScale *out)
{
    scales_kernel(ws, p, ref, dis, stride, out);
}

#ifdef VMAF_FLOAT_HAVE_AVX2
VMAF_FLOAT_TARGET_AVX2
static void scales_avx2(VmafFloatAdmWorkspace *ws, const VmafFloatAdmParams *p,
                        const float *ref, const float *dis, ptrdiff_t stride,
                        VmafFloatAdmScale *out)
{
    scales_kernel(ws, p, ref, dis, stride, out);
}
#endif

int vmaf_float_adm_scales(enum VmafFloatImpl impl, VmafFloatAdmWorkspace *ws,
                          const VmafFloatAdmParams *p, const float *ref, const float *dis,
                          ptrdiff_t stride, VmafFloatAdmScale out[VMAF_FLOAT_ADM_SCALES])
{
    const int err = vmaf_float_impl_resolve(&impl);
    if (err) return err;
#ifdef VMAF_FLOAT_HAVE_AVX2
    if (impl == VMAF_FLOAT_IMPL_AVX2) {
        scales_avx2(ws, p, ref, dis, stride, out);
        return 0;
    }
#endif
    scales_plain(ws, p, ref, dis, stride, out);
    return 0;
}
