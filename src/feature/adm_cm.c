/*
 * Twin VMAF — integer ADM: contrast-masked numerator and denominator sums (see adm.h).
 *
 * Numerator of a scale, per orientation t in (H, V, D), over the inner region:
 *   x    = |csf weight * src| - mask,  mask = sum of the 3x3 mask values around the pixel
 *          (all three orientations) with the centre replaced by |csf output| / 15
 *   sum  = sum over rows of round(sum over the row of round(round(x^2) x) / 2^cs) / 2^ci
 *   num  = cbrt(sum / 2^k) + cbrt(area * noise_weight), added over the orientations (float)
 * with shift counts that depend on the band size. Neighbours past the band edge are
 * mirrored (1, 0, 1) at the top/left and repeated (n-2, n-1, n-1) at the bottom/right; the
 * rows and columns at the band edge are only visited when the region reaches them.
 *
 * Denominator: the same region's sum of |reference band|^3 (no masking), weighted by the
 * cubed CSF weight, cube-rooted, plus the noise term.
 */
#include <math.h>
#include <stdint.h>

#include "adm.h"
#include "adm_device.h"
#include "adm_simd.h"

/* Shift counts come from ceil(log2(n) - c) converted like the reference (adm.h: counts
 * below -1 saturate to 0xFFFFFFFF); a 64-bit shift by such a count acts as x86 does
 * (mod 64). Their rounding constants 2^(count - 1) saturate too when count is 0. */
static uint32_t shift_count(double x)
{
    return vmaf_adm_to_u32(ceil(x));
}

static uint32_t half_of_power(uint32_t shift)
{
    return vmaf_adm_to_u32(pow(2, (uint32_t)(shift - 1)));
}

/* The per-element terms (mask centres, cubes, denominator terms, the row totals, the spare
 * lanes) and the visited rows and columns are adm_device.h's, shared with the GPU twin. The
 * reference sums in int64, which wraps for the extreme values of tiny bands; the sums here
 * are uint64 (defined wrap-around) and become int64 for the arithmetic shifts. */

/* The visited pixels: a row group (top row, interior rows, bottom row) and, per row, the
 * column set. `up/mid/down` are row offsets of the 3x3 neighbourhood. */
typedef struct Neighbourhood {
    ptrdiff_t up, mid, down;
} Neighbourhood;

/* ------------------------------------------------------------------------------------- */
/* Scale 0                                                                               */

typedef struct Cm0 {
    const int16_t *src[3], *csf[3], *mask[3];
    uint32_t weight[3];
    VmafAdmCmParams prm;
} Cm0;

/* A pixel at a band edge: explicit neighbour columns jl, jc, jr (scalar code). */
static void pixel0(const Cm0 *c, const Neighbourhood *n, int jl, int jc, int jr, uint64_t acc[3])
{
    vmaf_adm_cm0_position(c->src, c->csf, c->mask, n->up, n->mid, n->down, jl, jc, jr, 0,
                          c->weight, &c->prm, acc);
}

enum { SPAN = 64 };

/* Columns [j0, j1) of a row whose neighbours j-1 and j+1 lie inside the band. The mask is
 * the 3-column sum of the 3-row column sums, less the centre values, plus the centre terms
 * (the same integers as summing the nine terms; the sums wrap mod 2^32 either way). */
ADM_INLINE void span0(const Cm0 *c, const Neighbourhood *n, int j0, int j1, bool vector,
                      uint64_t acc[3])
{
    const int16_t *const *m = c->mask;
    for (int jb = j0; jb < j1; jb += SPAN) {
        const int len = j1 - jb < SPAN ? j1 - jb : SPAN;
        uint32_t col[SPAN + 2], thr[SPAN];
        for (int k = 0; k < len + 2; k++) {
            const ptrdiff_t j = jb - 1 + k;
            uint32_t sum = 0;
            for (int t = 0; t < 3; t++)
                sum += (uint32_t)(m[t][n->up + j] + m[t][n->mid + j] + m[t][n->down + j]);
            col[k] = sum;
        }
        for (int k = 0; k < len; k++) {
            const ptrdiff_t j = jb + k;
            uint32_t centre = 0;
            for (int t = 0; t < 3; t++)
                centre += (uint32_t)(vmaf_adm_centre0(c->csf[t][n->mid + j], vector) -
                                     m[t][n->mid + j]);
            thr[k] = col[k] + col[k + 1] + col[k + 2] + centre;
        }
        for (int t = 0; t < 3; t++) {
            const int16_t *restrict src = c->src[t] + n->mid + jb;
            const int32_t weight = (int32_t)c->weight[t];
            const uint32_t cr = c->prm.cub_round[t], cs = c->prm.cub_shift[t];
            uint64_t sum = 0;
            for (int k = 0; k < len; k++)
                sum += (uint64_t)vmaf_adm_cube0(src[k], weight, thr[k], t, cr, cs);
            acc[t] += sum;
        }
    }
}

/* One visited row: optional left corner, columns [start_col, end_col) (vector ones, in a
 * middle row, up to vend0), optional right corner. */
ADM_INLINE void row0(const Cm0 *c, const VmafAdmCmRows *r, const Neighbourhood *n, int w,
                     bool middle, uint64_t acc[3])
{
    const int vend = middle && r->inside ? r->vend0 : r->start_col;
    if (r->left_corner)
        pixel0(c, n, 1, 0, 1, acc);
    span0(c, n, r->start_col, vend, true, acc);
    /* the reference computes each group of 14 vector columns in 16 lanes; the 2 spare lanes
     * (weight 0, mask 0) add the bare rounding term, which is not 0 when the saturated
     * 0xFFFFFFFF rounding meets a shift of 0 (bands 15 or 16 wide) */
    for (int t = 0; t < 3; t++)
        acc[t] += vmaf_adm_cm_spare(r, middle, 1, c->prm.cub_round[t], c->prm.cub_shift[t]);
    span0(c, n, vend > r->start_col ? vend : r->start_col, r->end_col, false, acc);
    if (r->right_corner)
        pixel0(c, n, w - 2, w - 1, w - 1, acc);
}

void vmaf_adm_cm_params(int w, int h, unsigned scale, VmafAdmCmParams *p)
{
    if (scale == 0) {
        p->cub_shift[0] = p->cub_shift[1] = shift_count(log2(w) - 4);
        p->cub_shift[2] = shift_count(log2(w) - 3);
    } else {
        p->cub_shift[0] = p->cub_shift[1] = p->cub_shift[2] = shift_count(log2(w));
    }
    for (int t = 0; t < 3; t++)
        p->cub_round[t] = half_of_power(p->cub_shift[t]);
    p->row_shift = shift_count(log2(h));
    p->row_round = half_of_power(p->row_shift);
}

ADM_INLINE void vmaf_adm_masked_totals_scale0_impl(const VmafAdmBands16 *src,
                                                   const VmafAdmBands16 *csf,
                                                   const VmafAdmBands16 *mask, int w, int h,
                                                   size_t stride, const VmafAdmScaleFactors *f,
                                                   uint64_t total[3])
{
    Cm0 c = {
        .src = { src->h, src->v, src->d },
        .csf = { csf->h, csf->v, csf->d },
        .mask = { mask->h, mask->v, mask->d },
    };
    for (int t = 0; t < 3; t++)
        c.weight[t] = f->i_rfactor[t];
    vmaf_adm_cm_params(w, h, 0, &c.prm);
    const VmafAdmCmRows rows = vmaf_adm_cm_rows(w, h);
    const int slots = vmaf_adm_cm_slots(&rows);
    const ptrdiff_t s = (ptrdiff_t)stride;

    total[0] = total[1] = total[2] = 0;
    for (int slot = 0; slot < slots; slot++) {
        int up, mid, down, middle;
        uint64_t acc[3] = { 0, 0, 0 };
        if (vmaf_adm_cm_slot_rows(&rows, h, slot, &up, &mid, &down, &middle)) {
            const Neighbourhood n = { up * s, mid * s, down * s };
            row0(&c, &rows, &n, w, middle, acc);
        }
        for (int t = 0; t < 3; t++)
            total[t] += vmaf_adm_cm_row_total(acc[t], c.prm.row_round, c.prm.row_shift);
    }
}

ADM_DISPATCH_VOID(vmaf_adm_masked_totals_scale0,
                  (const VmafAdmBands16 *src, const VmafAdmBands16 *csf,
                   const VmafAdmBands16 *mask, int w, int h, size_t stride,
                   const VmafAdmScaleFactors *f, uint64_t total[3]),
                  (src, csf, mask, w, h, stride, f, total))

float vmaf_adm_masked_finish_scale0(const uint64_t total[3], int w, int h, double noise_weight)
{
    VmafAdmCmParams c;
    vmaf_adm_cm_params(w, h, 0, &c);
    const uint32_t row_shift = c.row_shift;
    const VmafAdmRegion r = vmaf_adm_region_inner(w, h);
    /* the reference's AVX-512 code rounds the H total to float before scaling it */
    const float f_h = (float)((float)(int64_t)total[0] /
                              pow(2, (uint32_t)(52 - c.cub_shift[0] - row_shift)));
    const float f_v =
        (float)((int64_t)total[1] / pow(2, (uint32_t)(52 - c.cub_shift[1] - row_shift)));
    const float f_d =
        (float)((int64_t)total[2] / pow(2, (uint32_t)(57 - c.cub_shift[2] - row_shift)));
    const float noise = powf((float)((r.bottom - r.top) * (r.right - r.left) * noise_weight),
                             1.0f / 3.0f);
    const float n_h = powf(f_h, 1.0f / 3.0f) + noise;
    const float n_v = powf(f_v, 1.0f / 3.0f) + noise;
    const float n_d = powf(f_d, 1.0f / 3.0f) + noise;
    return n_h + n_v + n_d;
}

float vmaf_adm_masked_sum_scale0(const VmafAdmBands16 *src, const VmafAdmBands16 *csf,
                                 const VmafAdmBands16 *mask, int w, int h, size_t stride,
                                 const VmafAdmScaleFactors *f, double noise_weight)
{
    uint64_t total[3];
    vmaf_adm_masked_totals_scale0(src, csf, mask, w, h, stride, f, total);
    return vmaf_adm_masked_finish_scale0(total, w, h, noise_weight);
}

/* ------------------------------------------------------------------------------------- */
/* Scales 1..3                                                                           */

typedef struct Cm123 {
    const int32_t *src[3], *csf[3], *mask[3];
    uint32_t weight[3];
    VmafAdmCmParams prm; /* one cube shift and rounding: [0] */
} Cm123;

static void pixel123(const Cm123 *c, const Neighbourhood *n, int jl, int jc, int jr,
                     uint64_t acc[3])
{
    vmaf_adm_cm123_position(c->src, c->csf, c->mask, n->up, n->mid, n->down, jl, jc, jr, 0,
                            c->weight, &c->prm, acc);
}

ADM_INLINE void span123(const Cm123 *c, const Neighbourhood *n, int j0, int j1, bool vector,
                        uint64_t acc[3])
{
    const int32_t *const *m = c->mask;
    for (int jb = j0; jb < j1; jb += SPAN) {
        const int len = j1 - jb < SPAN ? j1 - jb : SPAN;
        int64_t col[SPAN + 2], thr[SPAN];
        for (int k = 0; k < len + 2; k++) {
            const ptrdiff_t j = jb - 1 + k;
            int64_t sum = 0;
            for (int t = 0; t < 3; t++)
                sum += (int64_t)m[t][n->up + j] + m[t][n->mid + j] + m[t][n->down + j];
            col[k] = sum;
        }
        for (int k = 0; k < len; k++) {
            const ptrdiff_t j = jb + k;
            int64_t centre = 0;
            for (int t = 0; t < 3; t++)
                centre += vmaf_adm_centre123(c->csf[t][n->mid + j]) - m[t][n->mid + j];
            thr[k] = col[k] + col[k + 1] + col[k + 2] + centre;
        }
        for (int t = 0; t < 3; t++) {
            const int32_t *restrict src = c->src[t] + n->mid + jb;
            const uint32_t weight = c->weight[t];
            const uint32_t cr = c->prm.cub_round[0], cs = c->prm.cub_shift[0];
            uint64_t sum = 0;
            for (int k = 0; k < len; k++)
                sum += (uint64_t)vmaf_adm_cube123(src[k], weight, thr[k], vector, cr, cs);
            acc[t] += sum;
        }
    }
}

ADM_INLINE void row123(const Cm123 *c, const VmafAdmCmRows *r, const Neighbourhood *n, int w,
                       bool middle, uint64_t acc[3])
{
    const int vend = middle && r->inside ? r->vend123 : r->start_col;
    if (r->left_corner)
        pixel123(c, n, 1, 0, 1, acc);
    span123(c, n, r->start_col, vend, true, acc);
    /* groups of 6 vector columns in 8 lanes: the 2 spare lanes add the bare rounding term
     * (0 here in practice: vector columns need bands 15 or more wide) */
    const uint64_t spare =
        vmaf_adm_cm_spare(r, middle, 0, c->prm.cub_round[0], c->prm.cub_shift[0]);
    for (int t = 0; t < 3; t++)
        acc[t] += spare;
    span123(c, n, vend > r->start_col ? vend : r->start_col, r->end_col, false, acc);
    if (r->right_corner)
        pixel123(c, n, w - 2, w - 1, w - 1, acc);
}

static const uint32_t cm123_final[3] = { 45, 39, 36 };

ADM_INLINE void vmaf_adm_masked_totals_scale123_impl(const VmafAdmBands32 *src,
                                                     const VmafAdmBands32 *csf,
                                                     const VmafAdmBands32 *mask, int w, int h,
                                                     size_t stride,
                                                     const VmafAdmScaleFactors *f,
                                                     uint64_t total[3])
{
    Cm123 c = {
        .src = { src->h, src->v, src->d },
        .csf = { csf->h, csf->v, csf->d },
        .mask = { mask->h, mask->v, mask->d },
    };
    for (int t = 0; t < 3; t++)
        c.weight[t] = f->i_rfactor[t];
    vmaf_adm_cm_params(w, h, 1, &c.prm);
    const VmafAdmCmRows rows = vmaf_adm_cm_rows(w, h);
    const int slots = vmaf_adm_cm_slots(&rows);
    const ptrdiff_t s = (ptrdiff_t)stride;

    total[0] = total[1] = total[2] = 0;
    for (int slot = 0; slot < slots; slot++) {
        int up, mid, down, middle;
        uint64_t acc[3] = { 0, 0, 0 };
        if (vmaf_adm_cm_slot_rows(&rows, h, slot, &up, &mid, &down, &middle)) {
            const Neighbourhood n = { up * s, mid * s, down * s };
            row123(&c, &rows, &n, w, middle, acc);
        }
        for (int t = 0; t < 3; t++)
            total[t] += vmaf_adm_cm_row_total(acc[t], c.prm.row_round, c.prm.row_shift);
    }
}

ADM_DISPATCH_VOID(vmaf_adm_masked_totals_scale123,
                  (const VmafAdmBands32 *src, const VmafAdmBands32 *csf,
                   const VmafAdmBands32 *mask, int w, int h, size_t stride,
                   const VmafAdmScaleFactors *f, uint64_t total[3]),
                  (src, csf, mask, w, h, stride, f, total))

float vmaf_adm_masked_finish_scale123(const uint64_t total[3], int w, int h, unsigned scale,
                                      double noise_weight)
{
    VmafAdmCmParams c;
    vmaf_adm_cm_params(w, h, scale, &c);
    const float final_shift =
        (float)pow(2, (uint32_t)(cm123_final[scale - 1] - c.cub_shift[0] - c.row_shift));
    const VmafAdmRegion r = vmaf_adm_region_inner(w, h);
    const float noise = powf((float)((r.bottom - r.top) * (r.right - r.left) * noise_weight),
                             1.0f / 3.0f);
    float sum = 0.0f;
    for (int t = 0; t < 3; t++) {
        const float ft = (float)(int64_t)total[t] / final_shift;
        const float nt = powf(ft, 1.0f / 3.0f) + noise;
        sum = t ? sum + nt : nt;
    }
    return sum;
}

float vmaf_adm_masked_sum_scale123(const VmafAdmBands32 *src, const VmafAdmBands32 *csf,
                                   const VmafAdmBands32 *mask, int w, int h, size_t stride,
                                   const VmafAdmScaleFactors *f, unsigned scale,
                                   double noise_weight)
{
    uint64_t total[3];
    vmaf_adm_masked_totals_scale123(src, csf, mask, w, h, stride, f, total);
    return vmaf_adm_masked_finish_scale123(total, w, h, scale, noise_weight);
}

/* ------------------------------------------------------------------------------------- */
/* Denominators                                                                          */

static const uint32_t den123_sq_shift[3] = { 31, 30, 31 };
static const uint32_t den123_final[3] = { 32, 27, 23 };

/* Sum of |x|^3 over a row (|x| <= 2^15, so the square fits 32 bits). */
ADM_INLINE uint64_t cubes16(const int16_t *restrict p, int j0, int j1)
{
    uint64_t row = 0;
    for (int j = j0; j < j1; j++)
        row += vmaf_adm_den0_term(p[j]);
    return row;
}

void vmaf_adm_den_params(int w, int h, unsigned scale, VmafAdmDenParams *p)
{
    const VmafAdmRegion r = vmaf_adm_region_inner(w, h);
    if (scale == 0) {
        const int area = (r.bottom - r.top) * (r.right - r.left);
        int32_t shift = (int32_t)ceil(log2(area) - 20);
        shift = shift > 0 ? shift : 0;
        p->sq_shift = 0;
        p->sq_round = 0;
        p->cub_shift = 0;
        p->cub_round = 0;
        p->row_shift = (uint32_t)shift;
        p->row_round = shift > 0 ? (uint64_t)1 << (shift - 1) : 0;
        return;
    }
    p->sq_shift = den123_sq_shift[scale - 1];
    p->sq_round = (uint64_t)(1u << p->sq_shift); /* the reference adds 2^shift */
    p->cub_shift = shift_count(log2(r.right - r.left));
    p->cub_round = half_of_power(p->cub_shift);
    p->row_shift = shift_count(log2(r.bottom - r.top));
    p->row_round = half_of_power(p->row_shift);
}

ADM_INLINE void vmaf_adm_den_totals_scale0_impl(const VmafAdmBands16 *ref, int w, int h,
                                                size_t stride, uint64_t total[3])
{
    const VmafAdmRegion r = vmaf_adm_region_inner(w, h);
    VmafAdmDenParams p;
    vmaf_adm_den_params(w, h, 0, &p);
    const uint32_t shift = p.row_shift;
    const uint64_t round = p.row_round;
    const int16_t *band[3] = { ref->h, ref->v, ref->d };
    for (int t = 0; t < 3; t++) {
        uint64_t acc = 0;
        for (int i = r.top; i < r.bottom; i++)
            acc += (cubes16(band[t] + (size_t)i * stride, r.left, r.right) + round) >> shift;
        total[t] = acc;
    }
}

ADM_DISPATCH_VOID(vmaf_adm_den_totals_scale0,
                  (const VmafAdmBands16 *ref, int w, int h, size_t stride, uint64_t total[3]),
                  (ref, w, h, stride, total))

float vmaf_adm_den_finish_scale0(const uint64_t total[3], int w, int h,
                                 const VmafAdmScaleFactors *f, double noise_weight)
{
    const VmafAdmRegion r = vmaf_adm_region_inner(w, h);
    const int area = (r.bottom - r.top) * (r.right - r.left);
    VmafAdmDenParams p;
    vmaf_adm_den_params(w, h, 0, &p);
    const int32_t shift = (int32_t)p.row_shift;
    float sum = 0.0f;
    for (int t = 0; t < 3; t++) {
        const uint64_t acc = total[t];
        const double csf = (double)(acc / pow(2, 18 - shift)) * pow(f->rfactor[t], 3);
        const float noise = powf((float)(area * noise_weight), 1.0f / 3.0f);
        const float dt = powf((float)csf, 1.0f / 3.0f) + noise;
        sum = t ? sum + dt : dt;
    }
    return sum;
}

float vmaf_adm_den_scale0(const VmafAdmBands16 *ref, int w, int h, size_t stride,
                          const VmafAdmScaleFactors *f, double noise_weight)
{
    uint64_t total[3];
    vmaf_adm_den_totals_scale0(ref, w, h, stride, total);
    return vmaf_adm_den_finish_scale0(total, w, h, f, noise_weight);
}

ADM_INLINE void vmaf_adm_den_totals_scale123_impl(const VmafAdmBands32 *ref, int w, int h,
                                                  size_t stride, unsigned scale,
                                                  uint64_t total[3])
{
    const VmafAdmRegion r = vmaf_adm_region_inner(w, h);
    VmafAdmDenParams p;
    vmaf_adm_den_params(w, h, scale, &p);
    const uint32_t sq_shift = p.sq_shift, cub_shift = p.cub_shift, row_shift = p.row_shift;
    const uint64_t sq_round = p.sq_round, cub_round = p.cub_round, row_round = p.row_round;
    const int32_t *band[3] = { ref->h, ref->v, ref->d };
    for (int t = 0; t < 3; t++) {
        uint64_t acc = 0;
        for (int i = r.top; i < r.bottom; i++) {
            const int32_t *q = band[t] + (size_t)i * stride;
            uint64_t row = 0;
            for (int j = r.left; j < r.right; j++)
                row += vmaf_adm_den123_term(q[j], sq_shift, sq_round, cub_round, cub_shift);
            acc += (row + row_round) >> (row_shift & 63);
        }
        total[t] = acc;
    }
}

ADM_DISPATCH_VOID(vmaf_adm_den_totals_scale123,
                  (const VmafAdmBands32 *ref, int w, int h, size_t stride, unsigned scale,
                   uint64_t total[3]),
                  (ref, w, h, stride, scale, total))

float vmaf_adm_den_finish_scale123(const uint64_t total[3], int w, int h,
                                   const VmafAdmScaleFactors *f, unsigned scale,
                                   double noise_weight)
{
    const VmafAdmRegion r = vmaf_adm_region_inner(w, h);
    VmafAdmDenParams p;
    vmaf_adm_den_params(w, h, scale, &p);
    const double final_shift =
        pow(2, (uint32_t)(den123_final[scale - 1] - p.row_shift - p.cub_shift));
    const float noise = powf((float)((r.bottom - r.top) * (r.right - r.left) * noise_weight),
                             1.0f / 3.0f);
    float sum = 0.0f;
    for (int t = 0; t < 3; t++) {
        const double csf = (double)(total[t] / final_shift) * pow(f->rfactor[t], 3);
        const float dt = powf((float)csf, 1.0f / 3.0f) + noise;
        sum = t ? sum + dt : dt;
    }
    return sum;
}

float vmaf_adm_den_scale123(const VmafAdmBands32 *ref, int w, int h, size_t stride,
                            const VmafAdmScaleFactors *f, unsigned scale, double noise_weight)
{
    uint64_t total[3];
    vmaf_adm_den_totals_scale123(ref, w, h, stride, scale, total);
    return vmaf_adm_den_finish_scale123(total, w, h, f, scale, noise_weight);
}
