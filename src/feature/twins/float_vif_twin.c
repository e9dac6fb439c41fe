/* float_vif on the GPU: the scales' per-pixel terms and their row sums on the device
 * (float_vif.cu); the row sums added in row order and the scores from float_vif.c's store
 * with the CPU instance's state. Filters, statistic constants and resampler tables are the
 * CPU instance's. */
#include <errno.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"
#include "feature/float_filter.h"
#include "feature/float_vif.h"

enum { SCALES = VMAF_FLOAT_VIF_SCALES };

typedef struct FloatVifTwin {
    VmafGpuKernel stats[2], decimate[2]; /* [0]: from the samples, [1]: from float planes */
    VmafGpuKernel rows, convert, resample;
    unsigned n_slots;
    size_t plane_floats[SCALES];      /* decimated planes (scales 1..3), prescaled scale 0 */
    size_t terms_floats;              /* num or den plane of scale 0 */
    size_t row_offset[SCALES], n_rows; /* floats: [num rows, den rows] per scale */
    VmafGpuPtr filters;              /* [scale][FLOAT_VIF_CUDA_FILTER] */
    VmafGpuPtr tables;               /* prescale: col_index, col_weight, row_index, row_weight */
    VmafGpuPtr planes[SCALES];       /* [slot][ref, dis]: scale s (s = 0: prescaled) */
    VmafGpuPtr converted;            /* prescale: [slot][ref, dis] converted samples */
    VmafGpuPtr terms;                /* [slot][num, den] */
    VmafGpuPtr rows_buf;             /* [slot][n_rows] */
    float *host;                      /* pinned [slot][n_rows] */
} FloatVifTwin;

static int upload(VmafGpuDevice *dev, VmafGpuPtr dst, const void *src, size_t bytes)
{
    return vmaf_gpu_write(dev, dst, src, bytes);
}

static int float_vif_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    FloatVifTwin *t = priv;
    const FloatVifState *v = cpu_priv;
    const VmafFloatVifWorkspace *ws = &v->ws;
    VmafGpuDevice *dev = setup->dev;
    const int wide = setup->geometry.bpc > 8;
    t->n_slots = setup->n_slots;
    int err = vmaf_gpu_kernel(dev, wide ? "vmaf_float_vif_stats_16" : "vmaf_float_vif_stats_8",
                              &t->stats[0]);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_vif_stats_f", &t->stats[1]);
    if (!err)
        err = vmaf_gpu_kernel(dev, wide ? "vmaf_float_vif_decimate_16" : "vmaf_float_vif_decimate_8",
                              &t->decimate[0]);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_vif_decimate_f", &t->decimate[1]);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_vif_rows", &t->rows);
    if (!err)
        err = vmaf_gpu_kernel(dev, wide ? "vmaf_float_vif_convert_16" : "vmaf_float_vif_convert_8",
                              &t->convert);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_vif_resample", &t->resample);
    if (err) return err;

    float filters[SCALES][FLOAT_VIF_CUDA_FILTER];
    memset(filters, 0, sizeof(filters));
    for (int k = 0; k < SCALES; k++) {
        if (ws->width[k] > FLOAT_VIF_CUDA_FILTER) return -EINVAL;
        memcpy(filters[k], ws->filter[k], (size_t)ws->width[k] * sizeof(float));
        t->plane_floats[k] = (size_t)ws->w[k] * ws->h[k];
        t->row_offset[k] = t->n_rows;
        t->n_rows += 2 * (size_t)ws->h[k];
    }
    t->terms_floats = (size_t)ws->w[0] * ws->h[0];
    err = vmaf_gpu_alloc(dev, sizeof(filters), &t->filters);
    if (!err) err = upload(dev, t->filters, filters, sizeof(filters));
    for (int k = v->resample ? 0 : 1; !err && k < SCALES; k++)
        err = vmaf_gpu_alloc(dev, t->n_slots * 2 * t->plane_floats[k] * sizeof(float),
                             &t->planes[k]);
    if (!err && v->resample) {
        const VmafSpeedScaler *sc = &v->scaler;
        const size_t cols = (size_t)sc->taps * sc->dst_w, rows = (size_t)sc->taps * sc->dst_h;
        err = vmaf_gpu_alloc(dev, t->n_slots * 2 * (size_t)v->w * v->h * sizeof(float),
                             &t->converted);
        if (!err) err = vmaf_gpu_alloc(dev, 2 * (cols + rows) * 4, &t->tables);
        if (!err) err = upload(dev, t->tables, sc->col_index, cols * 4);
        if (!err) err = upload(dev, t->tables + cols * 4, sc->col_weight, cols * 4);
        if (!err) err = upload(dev, t->tables + cols * 8, sc->row_index, rows * 4);
        if (!err) err = upload(dev, t->tables + cols * 8 + rows * 4, sc->row_weight, rows * 4);
    }
    if (!err)
        err = vmaf_gpu_alloc(dev, t->n_slots * 2 * t->terms_floats * sizeof(float), &t->terms);
    if (!err) err = vmaf_gpu_alloc(dev, t->n_slots * t->n_rows * sizeof(float), &t->rows_buf);
    if (!err)
        err = vmaf_gpu_host_alloc(dev, t->n_slots * t->n_rows * sizeof(float), (void **)&t->host);
    return err;
}

static unsigned blocks(unsigned n, unsigned per)
{
    return (n + per - 1) / per;
}

static int float_vif_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                                 const VmafGpuSlotView *view)
{
    FloatVifTwin *t = priv;
    const FloatVifState *v = cpu_priv;
    const VmafFloatVifWorkspace *ws = &v->ws;
    const unsigned slot = view->slot;
    const VmafGpuPtr rows = t->rows_buf + slot * t->n_rows * sizeof(float);
    const VmafGpuPtr terms = t->terms + slot * 2 * t->terms_floats * sizeof(float);
    FloatVifCudaArgs base = {
        .src = { view->ref->data[0], view->dist->data[0] }, .src_stride = view->ref->stride[0],
        .src_w = v->w, .src_h = v->h, .bpc = view->ref->bpc,
        .sigma_nsq = v->stat.sigma_nsq, .sigma_max_inv = v->stat.sigma_max_inv,
        .gain_limit = v->stat.gain_limit,
    };
    int from_float = 0, err = 0;
    if (v->resample) {
        const VmafSpeedScaler *sc = &v->scaler;
        const VmafGpuPtr conv = t->converted + slot * 2 * (size_t)v->w * v->h * sizeof(float);
        const VmafGpuPtr out = t->planes[0] + slot * 2 * t->plane_floats[0] * sizeof(float);
        FloatVifCudaArgs a = base;
        a.dst[0] = conv;
        a.dst[1] = conv + (size_t)v->w * v->h * sizeof(float);
        a.dst_stride = v->w;
        const VmafGpuLaunch lc = { .grid = { blocks(v->w, FLOAT_VIF_CUDA_THREADS), v->h, 2 },
                                    .block = { FLOAT_VIF_CUDA_THREADS, 1, 1 } };
        err = vmaf_gpu_rec_kernel(rec, t->convert, lc, &a, sizeof(a), "float_vif convert");
        const size_t cols = (size_t)sc->taps * sc->dst_w, nrows = (size_t)sc->taps * sc->dst_h;
        FloatVifCudaArgs r = base;
        r.src[0] = a.dst[0];
        r.src[1] = a.dst[1];
        r.src_stride = (unsigned long long)v->w * sizeof(float);
        r.dst[0] = out;
        r.dst[1] = out + t->plane_floats[0] * sizeof(float);
        r.dst_w = ws->w[0];
        r.dst_h = ws->h[0];
        r.dst_stride = ws->w[0];
        r.method = (int)sc->method;
        r.taps = sc->taps;
        r.col_index = t->tables;
        r.col_weight = t->tables + cols * 4;
        r.row_index = t->tables + cols * 8;
        r.row_weight = t->tables + cols * 8 + nrows * 4;
        const VmafGpuLaunch lr = { .grid = { blocks(r.dst_w, FLOAT_VIF_CUDA_THREADS), r.dst_h, 2 },
                                    .block = { FLOAT_VIF_CUDA_THREADS, 1, 1 } };
        if (!err) err = vmaf_gpu_rec_kernel(rec, t->resample, lr, &r, sizeof(r), "float_vif resample");
        base.src[0] = r.dst[0];
        base.src[1] = r.dst[1];
        base.src_stride = (unsigned long long)ws->w[0] * sizeof(float);
        base.src_w = ws->w[0];
        base.src_h = ws->h[0];
        from_float = 1;
    }
    for (int k = 0; !err && k < SCALES; k++) {
        const int fw = ws->width[k], R = fw / 2;
        const VmafGpuPtr filter = t->filters + (size_t)k * FLOAT_VIF_CUDA_FILTER * sizeof(float);
        if (k > 0) {
            if (!ws->w[k] || !ws->h[k]) break; /* this and every later scale are empty */
            const VmafGpuPtr out = t->planes[k] + slot * 2 * t->plane_floats[k] * sizeof(float);
            FloatVifCudaArgs d = base;
            d.fw = fw;
            d.filter = filter;
            d.dst[0] = out;
            d.dst[1] = out + t->plane_floats[k] * sizeof(float);
            d.dst_w = ws->w[k];
            d.dst_h = ws->h[k];
            d.dst_stride = ws->w[k];
            const VmafGpuLaunch ld = {
                .grid = { blocks(d.dst_w, FLOAT_VIF_CUDA_TILE_W), blocks(d.dst_h, FLOAT_VIF_CUDA_TILE_H), 1 },
                .block = { FLOAT_VIF_CUDA_THREADS, 1, 1 },
                .shared_bytes = (FLOAT_VIF_CUDA_FILTER +
                                 2 * FLOAT_VIF_CUDA_TILE_H * (2 * FLOAT_VIF_CUDA_TILE_W + 2 * R)) * 4,
            };
            err = vmaf_gpu_rec_kernel(rec, t->decimate[from_float], ld, &d, sizeof(d),
                                      "float_vif decimate");
            base.src[0] = d.dst[0];
            base.src[1] = d.dst[1];
            base.src_stride = (unsigned long long)ws->w[k] * sizeof(float);
            base.src_w = ws->w[k];
            base.src_h = ws->h[k];
            from_float = 1;
        } else if (v->opt.skip_scale0 || !ws->w[0] || !ws->h[0]) {
            continue;
        }
        FloatVifCudaArgs a = base;
        a.fw = fw;
        a.filter = filter;
        a.dst[0] = terms;
        a.dst[1] = terms + t->terms_floats * sizeof(float);
        a.dst_w = ws->w[k];
        a.dst_h = ws->h[k];
        a.dst_stride = ws->w[k];
        a.rows = rows + t->row_offset[k] * sizeof(float);
        const VmafGpuLaunch ls = {
            .grid = { blocks(a.dst_w, FLOAT_VIF_CUDA_TILE_W), blocks(a.dst_h, FLOAT_VIF_CUDA_TILE_H), 1 },
            .block = { FLOAT_VIF_CUDA_THREADS, 1, 1 },
            .shared_bytes = (FLOAT_VIF_CUDA_FILTER +
                             5 * FLOAT_VIF_CUDA_TILE_H * (FLOAT_VIF_CUDA_TILE_W + 2 * R) +
                             (FLOAT_VIF_CUDA_STAGED(R) ? FLOAT_VIF_CUDA_STAGE_FLOATS(R) : 0)) * 4,
        };
        const VmafGpuLaunch lr = { .grid = { blocks(a.dst_h, FLOAT_ROW_SUM_ROWS), 1, 1 },
                                    .block = { FLOAT_ROW_SUM_THREADS, 1, 1 } };
        if (!err)
            err = vmaf_gpu_rec_kernel(rec, t->stats[from_float], ls, &a, sizeof(a), "float_vif stats");
        if (!err) err = vmaf_gpu_rec_kernel(rec, t->rows, lr, &a, sizeof(a), "float_vif rows");
    }
    if (!err)
        err = vmaf_gpu_rec_download(rec, t->host + slot * t->n_rows, rows,
                                    t->n_rows * sizeof(float), "float_vif download");
    return err;
}

static int float_vif_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                                  const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    FloatVifTwin *t = priv;
    const FloatVifState *v = cpu_priv;
    const VmafFloatVifWorkspace *ws = &v->ws;
    const float *rows = t->host + slot * t->n_rows;
    float num[SCALES] = { 0 }, den[SCALES] = { 0 };
    for (int k = 0; k < SCALES; k++) {
        if ((k == 0 && v->opt.skip_scale0) || !ws->w[k]) continue; /* empty: 0, as the CPU */
        const float *rn = rows + t->row_offset[k], *rd = rn + ws->h[k];
        for (unsigned i = 0; i < ws->h[k]; i++) { /* float_vif.c's order */
            num[k] += rn[i];
            den[k] += rd[i];
        }
    }
    return vmaf_float_vif_store(v, num, den, frame->index, sink);
}

static void float_vif_twin_close(void *priv, VmafGpuDevice *dev)
{
    FloatVifTwin *t = priv;
    vmaf_gpu_free(dev, t->filters);
    vmaf_gpu_free(dev, t->tables);
    for (int k = 0; k < SCALES; k++) vmaf_gpu_free(dev, t->planes[k]);
    vmaf_gpu_free(dev, t->converted);
    vmaf_gpu_free(dev, t->terms);
    vmaf_gpu_free(dev, t->rows_buf);
    vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_float_vif = {
    .name = "float_vif",
    .priv_size = sizeof(FloatVifTwin),
    .init = float_vif_twin_init,
    .record = float_vif_twin_record,
    .collect = float_vif_twin_collect,
    .close = float_vif_twin_close,
};
