/*
 * Twin VMAF — integer ADM on the GPU: the frame's launches in the CPU's stage order (see
 * adm_plan.h and adm_device.h).
 */
#include <errno.h>
#include <string.h>

#include "feature/adm_device.h"
#include "feature/adm_plan.h"

size_t vmaf_adm_temp_bytes(unsigned w, unsigned h)
{
    VmafAdmLayout l;
    if (vmaf_adm_layout(w, h, &l))
        return 0;
    const size_t rows = ((h + 1) / 2 + 1) / 2; /* scale-1 output rows (the most) */
    return 8 * l.stride * sizeof(int32_t) * rows;
}

size_t vmaf_adm_last_bytes(unsigned w, unsigned scale)
{
    for (unsigned s = 0; s < scale; s++)
        w = (w + 1) / 2;
    return 4 * (size_t)w * sizeof(int32_t);
}

typedef struct Planner {
    VmafAdmOp *ops;
    int n;
} Planner;

static VmafAdmOp *add(Planner *p, int kind, const char *label)
{
    VmafAdmOp *op = &p->ops[p->n++];
    memset(op, 0, sizeof(*op));
    op->kind = kind;
    op->label = label;
    op->block[0] = ADM_CUDA_TX;
    op->block[1] = ADM_CUDA_TY;
    op->block[2] = 1;
    return op;
}

static unsigned cdiv(int n, unsigned d)
{
    return n <= 0 ? 0 : ((unsigned)n + d - 1) / d;
}

static void grid2(VmafAdmOp *op, int w, int h, unsigned z)
{
    op->grid[0] = cdiv(w, ADM_CUDA_TX);
    op->grid[1] = cdiv(h, ADM_CUDA_TY);
    op->grid[2] = z;
}

static void rows_grid(VmafAdmOp *op, int rows, unsigned y)
{
    op->grid[0] = rows > 0 ? (unsigned)rows : 0;
    op->grid[1] = y;
    op->grid[2] = 1;
    op->block[0] = ADM_CUDA_ROW_THREADS;
    op->block[1] = 1;
}

/* Drop a launch with an empty grid (a region of no pixels). */
static void keep_if_nonempty(Planner *p)
{
    const VmafAdmOp *op = &p->ops[p->n - 1];
    if (!op->grid[0] || !op->grid[1] || !op->grid[2])
        p->n--;
}

#define BAND16(b, l, g, k) ((b)->block + (l)->off16[g][k])
#define BAND32(b, l, g, k) ((b)->block + (l)->off32[g][k])
enum { G_REF, G_DIS, G_R, G_A, G_CSF, G_MASK };
enum { K_A, K_H, K_V, K_D };

static void hvd(vmaf_devptr out[3], const VmafAdmDeviceBuffers *b, const VmafAdmLayout *l,
                int g, int wide32)
{
    for (int t = 0; t < 3; t++)
        out[t] = wide32 ? BAND32(b, l, g, K_H + t) : BAND16(b, l, g, K_H + t);
}

/* The decoupling, then at each element the CSF of its impairment a into csf and mask (the
 * scale's first CSF: same region, same element). */
static void add_decouple_csf(Planner *p, const VmafAdmDeviceBuffers *b, const VmafAdmLayout *l,
                             int scale0, int w, int h, double gain, double cos2,
                             const VmafAdmScaleFactors *f)
{
    VmafAdmOp *op = add(p, scale0 ? VMAF_ADM_OP_DECOUPLE0 : VMAF_ADM_OP_DECOUPLE123,
                        scale0 ? "adm decouple0+csf0" : "adm decouple+csf");
    AdmDecoupleCudaArgs *a = &op->a.dec;
    hvd(a->ref, b, l, G_REF, !scale0);
    hvd(a->dis, b, l, G_DIS, !scale0);
    hvd(a->r, b, l, G_R, !scale0);
    hvd(a->a, b, l, G_A, !scale0);
    hvd(a->csf_dst, b, l, G_CSF, !scale0);
    hvd(a->csf_mask, b, l, G_MASK, !scale0);
    for (int t = 0; t < 3; t++)
        a->weight[t] = f->i_rfactor[t];
    a->csf = 1;
    a->stride = l->stride;
    const VmafAdmRegion r = vmaf_adm_region_outer(w, h);
    a->left = r.left;
    a->top = r.top;
    a->right = r.right;
    a->bottom = r.bottom;
    a->gain = gain;
    a->cos2 = cos2;
    grid2(op, r.right - r.left, r.bottom - r.top, 1);
    keep_if_nonempty(p);
}

static void add_csf(Planner *p, const VmafAdmDeviceBuffers *b, const VmafAdmLayout *l,
                    int scale0, int w, int h, int src, int dst, int mask,
                    const VmafAdmScaleFactors *f)
{
    VmafAdmOp *op = add(p, scale0 ? VMAF_ADM_OP_CSF0 : VMAF_ADM_OP_CSF123,
                        scale0 ? "adm csf0" : "adm csf");
    AdmCsfCudaArgs *a = &op->a.csf;
    hvd(a->src, b, l, src, !scale0);
    hvd(a->dst, b, l, dst, !scale0);
    hvd(a->mask, b, l, mask, !scale0);
    a->stride = l->stride;
    const VmafAdmRegion r = vmaf_adm_region_outer(w, h);
    a->left = r.left;
    a->top = r.top;
    a->right = r.right;
    a->bottom = r.bottom;
    for (int t = 0; t < 3; t++)
        a->weight[t] = f->i_rfactor[t];
    grid2(op, r.right - r.left, r.bottom - r.top, 3);
    keep_if_nonempty(p);
}

static void add_cm(Planner *p, const VmafAdmDeviceBuffers *b, const VmafAdmLayout *l,
                   unsigned scale, int w, int h, int src, int csf, int mask,
                   const VmafAdmScaleFactors *f, vmaf_devptr total)
{
    const int scale0 = scale == 0;
    VmafAdmOp *op = add(p, scale0 ? VMAF_ADM_OP_CM0 : VMAF_ADM_OP_CM123,
                        scale0 ? "adm cm0" : "adm cm");
    AdmCmCudaArgs *a = &op->a.cm;
    hvd(a->src, b, l, src, !scale0);
    hvd(a->csf, b, l, csf, !scale0);
    hvd(a->mask, b, l, mask, !scale0);
    a->stride = l->stride;
    a->w = w;
    a->h = h;
    VmafAdmCmParams prm;
    vmaf_adm_cm_params(w, h, scale, &prm);
    for (int t = 0; t < 3; t++) {
        a->weight[t] = f->i_rfactor[t];
        a->cub_shift[t] = prm.cub_shift[t];
        a->cub_round[t] = prm.cub_round[t];
    }
    a->row_shift = prm.row_shift;
    a->row_round = prm.row_round;
    a->total = total;
    const VmafAdmCmRows c = vmaf_adm_cm_rows(w, h);
    rows_grid(op, vmaf_adm_cm_slots(&c), 1);
}

static void add_den(Planner *p, const VmafAdmDeviceBuffers *b, const VmafAdmLayout *l,
                    unsigned scale, int w, int h, vmaf_devptr total)
{
    const int scale0 = scale == 0;
    VmafAdmOp *op = add(p, scale0 ? VMAF_ADM_OP_DEN0 : VMAF_ADM_OP_DEN123,
                        scale0 ? "adm den0" : "adm den");
    AdmDenCudaArgs *a = &op->a.den;
    hvd(a->band, b, l, G_REF, !scale0);
    a->stride = l->stride;
    const VmafAdmRegion r = vmaf_adm_region_inner(w, h);
    a->left = r.left;
    a->top = r.top;
    a->right = r.right;
    a->bottom = r.bottom;
    VmafAdmDenParams prm;
    vmaf_adm_den_params(w, h, scale, &prm);
    a->sq_shift = prm.sq_shift;
    a->cub_shift = prm.cub_shift;
    a->row_shift = prm.row_shift;
    a->sq_round = prm.sq_round;
    a->cub_round = prm.cub_round;
    a->row_round = prm.row_round;
    a->total = total;
    rows_grid(op, r.bottom - r.top, 3);
    keep_if_nonempty(p);
}

/* The scale-0 DWT of both pictures (w x h) into the bands of scale 0. */
static void add_dwt0(Planner *p, const VmafAdmDeviceBuffers *b, const VmafAdmLayout *l,
                     const VmafAdmState *s, vmaf_devptr ref, size_t ref_stride, vmaf_devptr dis,
                     size_t dis_stride, int w, int h)
{
    VmafAdmOp *op = add(p, VMAF_ADM_OP_DWT0, "adm dwt0");
    op->wide = s->bpc > 8;
    AdmDwt0CudaArgs *a = &op->a.dwt0;
    a->pic[0] = ref;
    a->pic[1] = dis;
    a->pic_stride[0] = ref_stride;
    a->pic_stride[1] = dis_stride;
    for (int n = 0; n < 2; n++) {
        const int g = n ? G_DIS : G_REF;
        a->a[n] = BAND32(b, l, g, K_A);
        a->h[n] = BAND16(b, l, g, K_H);
        a->v[n] = BAND16(b, l, g, K_V);
        a->d[n] = BAND16(b, l, g, K_D);
    }
    a->stride = l->stride;
    a->w = w;
    a->h_pic = h;
    a->lo_only = s->opt.skip_scale0;
    a->bpc = s->bpc;
    const int strips = (int)cdiv((w + 1) / 2, ADM_DWT0_STRIP);
    op->grid[0] = cdiv(strips, ADM_DWT0_WARPS);
    op->grid[1] = cdiv((h + 1) / 2, ADM_DWT0_ROWS);
    op->grid[2] = 2;
    op->block[0] = 32 * ADM_DWT0_WARPS;
    op->block[1] = 1;
}

/* The DWT of scale sc (1..3) of a w x h band A (h1: the height of scale 1's input), then
 * the copy of what went through temp into the bands. */
static void add_dwt123(Planner *p, const VmafAdmDeviceBuffers *b, const VmafAdmLayout *l,
                       unsigned sc, int w, int h, int h1, const int w_in[4])
{
    const int half_w = (w + 1) / 2, half_h = (h + 1) / 2;
    /* band A is computed in place on the CPU: it goes through temp; so do H, V, D when
     * the index rules read rows past band A (into the H bands) of a 1..3-row scale 1 */
    const int via_temp = h1 <= 3;
    const size_t tband = l->stride * sizeof(int32_t) * (size_t)((h1 + 1) / 2);
    VmafAdmOp *op = add(p, VMAF_ADM_OP_DWT123, "adm dwt");
    AdmDwt123CudaArgs *a = &op->a.dwt123;
    a->ref = BAND32(b, l, G_REF, K_A);
    a->dis = BAND32(b, l, G_DIS, K_A);
    static const int order[4] = { K_A, K_V, K_H, K_D };
    for (int n = 0; n < 8; n++) {
        const int g = n < 4 ? G_REF : G_DIS, k = order[n % 4];
        a->out[n] = (k == K_A || via_temp) ? b->temp + (size_t)n * tband
                                           : BAND32(b, l, g, k);
    }
    a->last[1] = b->last[1];
    a->last[2] = b->last[2];
    a->last_out = sc < 3 ? b->last[sc] : 0;
    a->stride = l->stride;
    a->w = w;
    a->h = h;
    a->scale = (int)sc;
    for (int t = 0; t < 4; t++)
        a->w_in[t] = w_in[t];
    grid2(op, half_w, half_h, 1);

    op = add(p, VMAF_ADM_OP_COPY, "adm copy");
    AdmCopyCudaArgs *c = &op->a.copy;
    c->n = 0;
    for (int n = 0; n < 8; n++) {
        const int g = n < 4 ? G_REF : G_DIS, k = order[n % 4];
        if (k != K_A && !via_temp)
            continue;
        c->src[c->n] = b->temp + (size_t)n * tband;
        c->dst[c->n] = BAND32(b, l, g, k);
        c->n++;
    }
    c->stride = l->stride;
    c->w = half_w;
    c->h = half_h;
    grid2(op, half_w, half_h, 1);
}

/* The stages after the DWT of scale sc (bands w x h): the denominator, the decoupling with
 * the CSF of the impairment, the masking of the restored part (the masked numerator) and,
 * unless skip_aim, the AIM sums (CSF of the restored part, masking of the impairment). The
 * CPU runs decouple, denominator, CSF, ...: the denominator only reads ref's bands and adds
 * integers, so running it first gives the same totals, and it must, as the last reader of
 * ref's and dis's H, V, D bands: in the compact layout (vmaf_adm_layout_compact()) csf and
 * mask take their memory, written element by element after the decoupling read them. */
static void add_scale_stages(Planner *p, const VmafAdmDeviceBuffers *b, const VmafAdmLayout *l,
                             unsigned sc, int w, int h, double gain, double cos2,
                             const VmafAdmScaleFactors *f, bool skip_aim, vmaf_devptr num,
                             vmaf_devptr aim, vmaf_devptr den)
{
    const int scale0 = sc == 0;
    add_den(p, b, l, sc, w, h, den);
    add_decouple_csf(p, b, l, scale0, w, h, gain, cos2, f);
    add_cm(p, b, l, sc, w, h, G_R, G_CSF, G_MASK, f, num);
    if (!skip_aim) {
        add_csf(p, b, l, scale0, w, h, G_R, G_MASK, G_CSF, f);
        add_cm(p, b, l, sc, w, h, G_A, G_MASK, G_CSF, f, aim);
    }
}

int vmaf_adm_plan(const VmafAdmState *s, const VmafAdmDeviceBuffers *b, vmaf_devptr ref,
                  size_t ref_stride, vmaf_devptr dis, size_t dis_stride, VmafAdmOp *ops)
{
    VmafAdmLayout l;
    int err = vmaf_adm_layout_compact(s->w, s->h, &l);
    if (err)
        return err;
    const VmafAdmOptions *opt = &s->opt;
    const VmafAdmScaleFactors *f = s->factors;
    const double cos2 = vmaf_adm_cos2_1deg();
    const double gain = opt->enhn_gain_limit;
    Planner pl = { ops, 0 };
    Planner *p = &pl;
    const vmaf_devptr tot = b->totals;
    const size_t per_scale = 3 * sizeof(uint64_t);
    const vmaf_devptr num = tot + offsetof(VmafAdmTotals, num);
    const vmaf_devptr aim = tot + offsetof(VmafAdmTotals, aim);
    const vmaf_devptr den = tot + offsetof(VmafAdmTotals, den);

    VmafAdmOp *op = add(p, VMAF_ADM_OP_CLEAR, "adm clear sums");
    op->clear_dst = tot;
    op->clear_bytes = sizeof(VmafAdmTotals);
    if (s->w <= 4 || s->h <= 4) {
        /* the CPU zeroes its buffers per frame for these sizes */
        op = add(p, VMAF_ADM_OP_CLEAR, "adm clear bands");
        op->clear_dst = b->block;
        op->clear_bytes = l.block_bytes;
    }

    int w = (int)s->w, h = (int)s->h;
    int w_in[4] = { 0, 0, 0, 0 };
    const int h1 = (h + 1) / 2;
    for (unsigned sc = 0; sc < VMAF_ADM_SCALES; sc++) {
        if (sc == 0) {
            add_dwt0(p, b, &l, s, ref, ref_stride, dis, dis_stride, w, h);
        } else {
            w_in[sc] = w;
            add_dwt123(p, b, &l, sc, w, h, h1, w_in);
        }
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        if (sc == 0 && opt->skip_scale0)
            continue;
        const size_t at = sc * per_scale;
        add_scale_stages(p, b, &l, sc, w, h, gain, cos2, &f[sc], opt->skip_aim, num + at,
                         aim + at, den + at);
    }
    return p->n;
}
