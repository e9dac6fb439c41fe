/* float_adm on the GPU: the scales' band work, the terms (raised to adm_p_norm with
 * vmaf_xpowf, glibc's powf bits) and the row sums on the device (float_adm.cu); the rows
 * added in the CPU's order, the band values (powf of the sums) and the scores from
 * float_adm_tools.c / float_adm.c with the CPU instance's state. The reciprocal is the CPU
 * workspace's RCPSS table (Intel's estimate), so every CPU and the GPU give one score. */
#include <errno.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"
#include "feature/float_adm.h"

enum { SCALES = VMAF_FLOAT_ADM_SCALES };

typedef struct FloatAdmTwin {
    VmafGpuKernel dwt[2], decouple, terms_kernel, rows; /* dwt[0]: samples, dwt[1]: float A */
    unsigned n_slots;
    int w[SCALES], h[SCALES];                 /* bands of each scale */
    VmafFloatAdmRegion outer[SCALES], inner[SCALES];
    int nr[SCALES], nc[SCALES];               /* visited rows and columns */
    size_t plane_floats, term_floats, row_cap, n_rows;
    VmafGpuPtr rcp, planes, terms, rows_buf; /* planes/terms/rows: [slot] */
    float *host;                              /* pinned [slot][SCALES][3][3][row_cap] */
    float cos_1deg_sq;
} FloatAdmTwin;

static int float_adm_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    FloatAdmTwin *t = priv;
    const FloatAdmState *a = cpu_priv;
    VmafGpuDevice *dev = setup->dev;
    t->n_slots = setup->n_slots;
    t->cos_1deg_sq = vmaf_float_adm_cos_1deg_sq();
    int w = (int)a->w, h = (int)a->h;
    for (int k = 0; k < SCALES; k++) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        t->w[k] = w;
        t->h[k] = h;
        t->outer[k] = vmaf_float_adm_region_outer(w, h);
        t->inner[k] = vmaf_float_adm_region_inner(w, h);
        const VmafFloatAdmRegion *in = &t->inner[k];
        t->nr[k] = vmaf_float_adm_visit_count(vmaf_float_adm_visit(in->top, in->bottom, h));
        t->nc[k] = vmaf_float_adm_visit_count(vmaf_float_adm_visit(in->left, in->right, w));
        const int dw = in->right - in->left > 0 ? in->right - in->left : 0;
        const int dh = in->bottom - in->top > 0 ? in->bottom - in->top : 0;
        const size_t tf = (size_t)t->nr[k] * t->nc[k] > (size_t)dw * dh
                              ? (size_t)t->nr[k] * t->nc[k] : (size_t)dw * dh;
        if (tf > t->term_floats) t->term_floats = tf;
        const size_t rc = (size_t)(t->nr[k] > dh ? t->nr[k] : dh);
        if (rc > t->row_cap) t->row_cap = rc;
    }
    t->plane_floats = (size_t)t->w[0] * t->h[0];
    t->n_rows = (size_t)SCALES * FLOAT_ADM_SUMS * 3 * t->row_cap;
    const int wide = setup->geometry.bpc > 8;
    int err = vmaf_gpu_kernel(dev, wide ? "vmaf_float_adm_dwt_16" : "vmaf_float_adm_dwt_8", &t->dwt[0]);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_adm_dwt_f", &t->dwt[1]);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_adm_decouple", &t->decouple);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_adm_terms", &t->terms_kernel);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_adm_rows", &t->rows);
    if (!err) err = vmaf_gpu_alloc(dev, sizeof(a->ws.rcp), &t->rcp);
    if (!err)
        err = vmaf_gpu_write(dev, t->rcp, a->ws.rcp, sizeof(a->ws.rcp));
    if (!err)
        err = vmaf_gpu_alloc(dev, t->n_slots * FLOAT_ADM_PLANES * t->plane_floats * 4,
                             &t->planes);
    if (!err)
        err = vmaf_gpu_alloc(dev, t->n_slots * FLOAT_ADM_SUMS * 3 * (t->term_floats + 1) * 4,
                             &t->terms);
    if (!err) err = vmaf_gpu_alloc(dev, t->n_slots * t->n_rows * 4, &t->rows_buf);
    if (!err) err = vmaf_gpu_host_alloc(dev, t->n_slots * t->n_rows * 4, (void **)&t->host);
    return err;
}

static unsigned blocks(int n, unsigned per)
{
    return n > 0 ? ((unsigned)n + per - 1) / per : 0;
}

static int float_adm_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                                 const VmafGpuSlotView *view)
{
    FloatAdmTwin *t = priv;
    const FloatAdmState *st = cpu_priv;
    const VmafFloatAdmParams *p = &st->params;
    const unsigned slot = view->slot;
    const VmafGpuPtr planes = t->planes + slot * FLOAT_ADM_PLANES * t->plane_floats * 4;
    const VmafGpuPtr rows = t->rows_buf + slot * t->n_rows * 4;
    FloatAdmCudaArgs a = {
        .src = { view->ref->data[0], view->dist->data[0] }, .src_stride = view->ref->stride[0],
        .src_w = st->w, .src_h = st->h, .bpc = view->ref->bpc,
        .planes = planes, .plane_floats = t->plane_floats,
        .cos_1deg_sq = t->cos_1deg_sq, .gain_limit = p->enhn_gain_limit,
        .bypass = p->bypass_cm, .cube = p->p_norm == 3.0, .p_norm = (float)p->p_norm,
        .rcp = t->rcp,
        .terms = t->terms + slot * FLOAT_ADM_SUMS * 3 * (t->term_floats + 1) * 4,
        .term_floats = t->term_floats, .row_cap = (unsigned)t->row_cap,
    };
    int err = 0;
    for (int k = 0; !err && k < SCALES; k++) {
        a.lo_only = k == 0 && p->skip_scale0;
        a.a_out = k & 1;
        a.w = (unsigned)t->w[k];
        a.h = (unsigned)t->h[k];
        const VmafGpuLaunch ld = { .grid = { blocks(t->w[k], FLOAT_ADM_CUDA_THREADS), a.h, 2 },
                                    .block = { FLOAT_ADM_CUDA_THREADS, 1, 1 } };
        err = vmaf_gpu_rec_kernel(rec, t->dwt[k > 0], ld, &a, sizeof(a), "float_adm dwt");
        /* the next scale reads this one's A */
        const VmafGpuPtr a_ref = planes + (FLOAT_ADM_P_A + 2 * a.a_out) * t->plane_floats * 4;
        FloatAdmCudaArgs next_src = a;
        next_src.src[0] = a_ref;
        next_src.src[1] = a_ref + t->plane_floats * 4;
        next_src.src_stride = (unsigned long long)t->w[k] * 4;
        next_src.src_w = a.w;
        next_src.src_h = a.h;
        if (a.lo_only || err) {
            a = next_src;
            continue;
        }
        const VmafFloatAdmRegion *o = &t->outer[k], *in = &t->inner[k];
        memcpy(a.outer, (int[4]){ o->left, o->top, o->right, o->bottom }, sizeof(a.outer));
        memcpy(a.inner, (int[4]){ in->left, in->top, in->right, in->bottom }, sizeof(a.inner));
        memcpy(a.rfactor, p->rfactor[k], sizeof(a.rfactor));
        a.rows = rows + (size_t)k * FLOAT_ADM_SUMS * 3 * t->row_cap * 4;
        const VmafGpuLaunch lc = {
            .grid = { blocks(o->right - o->left, FLOAT_ADM_CUDA_THREADS),
                      (unsigned)(o->bottom > o->top ? o->bottom - o->top : 0), 1 },
            .block = { FLOAT_ADM_CUDA_THREADS, 1, 1 },
        };
        const int dw = in->right - in->left, dh = in->bottom - in->top;
        const int gx = t->nc[k] > dw ? t->nc[k] : dw, gy = t->nr[k] > dh ? t->nr[k] : dh;
        const VmafGpuLaunch lt = { .grid = { blocks(gx, FLOAT_ADM_CUDA_THREADS), (unsigned)gy, 1 },
                                    .block = { FLOAT_ADM_CUDA_THREADS, 1, 1 } };
        const VmafGpuLaunch lr = { .grid = { blocks(gy, FLOAT_ADM_CUDA_THREADS), FLOAT_ADM_SUMS, 3 },
                                    .block = { FLOAT_ADM_CUDA_THREADS, 1, 1 } };
        if (lc.grid[0] && lc.grid[1])
            err = vmaf_gpu_rec_kernel(rec, t->decouple, lc, &a, sizeof(a), "float_adm decouple");
        if (!err && lt.grid[0] && lt.grid[1])
            err = vmaf_gpu_rec_kernel(rec, t->terms_kernel, lt, &a, sizeof(a), "float_adm terms");
        if (!err && lr.grid[0])
            err = vmaf_gpu_rec_kernel(rec, t->rows, lr, &a, sizeof(a), "float_adm rows");
        const VmafGpuPtr keep_rows = a.rows;
        a = next_src;
        a.rows = keep_rows;
    }
    if (!err)
        err = vmaf_gpu_rec_download(rec, t->host + slot * t->n_rows, rows, t->n_rows * 4,
                                    "float_adm download");
    return err;
}

static int float_adm_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                                  const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    FloatAdmTwin *t = priv;
    const FloatAdmState *st = cpu_priv;
    const VmafFloatAdmParams *p = &st->params;
    VmafFloatAdmScale out[SCALES];
    for (int k = 0; k < SCALES; k++) {
        if (k == 0 && p->skip_scale0) {
            out[k] = (VmafFloatAdmScale){ .num = 0.0f, .den = 1e-10f, .aim_num = 0.0f };
            continue;
        }
        const VmafFloatAdmRegion *in = &t->inner[k];
        const int aw = in->right - in->left, ah = in->bottom - in->top;
        const float *rows = t->host + slot * t->n_rows + (size_t)k * FLOAT_ADM_SUMS * 3 * t->row_cap;
        float value[FLOAT_ADM_SUMS];
        for (int q = 0; q < FLOAT_ADM_SUMS; q++) {
            const int nr = q < 2 ? t->nr[k] : (ah > 0 ? ah : 0);
            float total[3] = { 0.0f, 0.0f, 0.0f };
            for (int r = 0; r < nr; r++) /* float_adm_tools.c's row order */
                for (int b = 0; b < 3; b++) total[b] += rows[((size_t)q * 3 + b) * t->row_cap + r];
            value[q] = vmaf_float_adm_band_value(total, aw, ah, q == 1 ? 0.0 : p->noise_weight,
                                                 p->p_norm);
        }
        out[k] = (VmafFloatAdmScale){ .num = value[0], .den = value[2], .aim_num = value[1] };
    }
    return vmaf_float_adm_store(st, out, frame->index, sink);
}

static void float_adm_twin_close(void *priv, VmafGpuDevice *dev)
{
    FloatAdmTwin *t = priv;
    vmaf_gpu_free(dev, t->rcp);
    vmaf_gpu_free(dev, t->planes);
    vmaf_gpu_free(dev, t->terms);
    vmaf_gpu_free(dev, t->rows_buf);
    vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_float_adm = {
    .name = "float_adm",
    .priv_size = sizeof(FloatAdmTwin),
    .init = float_adm_twin_init,
    .record = float_adm_twin_record,
    .collect = float_adm_twin_collect,
    .close = float_adm_twin_close,
};
