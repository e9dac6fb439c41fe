/* float_psnr, float_ansnr and float_moment on the GPU: the sums on the device (float_stats.cu),
 * the scores from float_stats.c's store functions. */
#include <errno.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"
#include "feature/float_stats.h"

typedef struct FloatStatsTwin {
    VmafGpuKernel rows_kernel, finish_kernel;
    unsigned kind, n_sums;     /* psnr/moment */
    unsigned w, h, bpc;
    VmafGpuPtr row_units;     /* [slot][sum][h] */
    VmafGpuPtr sums;          /* double [slot][sum] */
    VmafGpuPtr filtered;      /* ansnr: float [slot][2][h][w] */
    VmafGpuPtr rows;          /* ansnr: float [slot][h][2] */
    void *host;                /* pinned: double [slot][sum], ansnr: float [slot][h][2] */
} FloatStatsTwin;

static int stats_init_common(FloatStatsTwin *t, VmafGpuTwinSetup *setup, unsigned kind,
                             unsigned n_sums)
{
    const VmafFeatureGeometry *g = &setup->geometry;
    VmafGpuDevice *dev = setup->dev;
    t->kind = kind;
    t->n_sums = n_sums;
    t->w = g->w;
    t->h = g->h;
    t->bpc = g->bpc;
    const int wide = g->bpc > 8;
    int err = vmaf_gpu_kernel(dev, wide ? "vmaf_float_stats_rows_16" : "vmaf_float_stats_rows_8",
                              &t->rows_kernel);
    if (!err)
        err = vmaf_gpu_kernel(dev, wide ? "vmaf_float_stats_finish_16" : "vmaf_float_stats_finish_8",
                              &t->finish_kernel);
    if (!err)
        err = vmaf_gpu_alloc(dev, (size_t)setup->n_slots * n_sums * g->h * sizeof(uint64_t),
                             &t->row_units);
    if (!err)
        err = vmaf_gpu_alloc(dev, (size_t)setup->n_slots * n_sums * sizeof(double), &t->sums);
    if (!err)
        err = vmaf_gpu_host_alloc(dev, (size_t)setup->n_slots * n_sums * sizeof(double), &t->host);
    return err;
}

static int float_psnr_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    (void)cpu_priv;
    return stats_init_common(priv, setup, FLOAT_STATS_PSNR, 1);
}

static int float_moment_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    (void)cpu_priv;
    return stats_init_common(priv, setup, FLOAT_STATS_MOMENT, 4);
}

static FloatStatsCudaArgs stats_args(const FloatStatsTwin *t, const VmafGpuSlotView *view)
{
    const FloatStatsCudaArgs a = {
        .ref = view->ref->data[0], .dist = view->dist->data[0], .stride = view->ref->stride[0],
        .w = t->w, .h = t->h, .bpc = t->bpc, .kind = t->kind,
        .row_units = t->row_units + (size_t)view->slot * t->n_sums * t->h * sizeof(uint64_t),
        .sums = t->sums + (size_t)view->slot * t->n_sums * sizeof(double),
    };
    return a;
}

static int stats_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                        const VmafGpuSlotView *view)
{
    (void)cpu_priv;
    FloatStatsTwin *t = priv;
    const FloatStatsCudaArgs a = stats_args(t, view);
    const VmafGpuLaunch rows = { .grid = { t->h, t->n_sums, 1 },
                                  .block = { FLOAT_STATS_CUDA_THREADS, 1, 1 } };
    const VmafGpuLaunch finish = { .grid = { t->n_sums, 1, 1 },
                                    .block = { FLOAT_STATS_CUDA_THREADS, 1, 1 } };
    double *host = (double *)t->host + (size_t)view->slot * t->n_sums;
    int err = vmaf_gpu_rec_kernel(rec, t->rows_kernel, rows, &a, sizeof(a), "float_stats rows");
    if (!err)
        err = vmaf_gpu_rec_kernel(rec, t->finish_kernel, finish, &a, sizeof(a),
                                  "float_stats finish");
    if (!err)
        err = vmaf_gpu_rec_download(rec, host, a.sums, t->n_sums * sizeof(double),
                                    "float_stats download");
    return err;
}

static int float_psnr_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                                   const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    (void)cpu_priv;
    FloatStatsTwin *t = priv;
    const double *sums = (const double *)t->host + slot;
    return vmaf_float_psnr_store(t->w, t->h, t->bpc, sums[0], frame->index, sink);
}

static int float_moment_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                                     const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    (void)cpu_priv;
    FloatStatsTwin *t = priv;
    const double *sums = (const double *)t->host + 4 * (size_t)slot;
    return vmaf_float_moment_store(t->w, t->h, sums, frame->index, sink);
}

/* ---- float_ansnr ------------------------------------------------------------------------- */

static int float_ansnr_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    (void)cpu_priv;
    FloatStatsTwin *t = priv;
    const VmafFeatureGeometry *g = &setup->geometry;
    VmafGpuDevice *dev = setup->dev;
    t->w = g->w;
    t->h = g->h;
    t->bpc = g->bpc;
    const size_t plane = (size_t)g->w * g->h * sizeof(float);
    int err = vmaf_gpu_kernel(dev, g->bpc > 8 ? "vmaf_float_ansnr_filter_16"
                              : "vmaf_float_ansnr_filter_8", &t->rows_kernel);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_float_ansnr_rows", &t->finish_kernel);
    if (!err) err = vmaf_gpu_alloc(dev, setup->n_slots * 2 * plane, &t->filtered);
    if (!err)
        err = vmaf_gpu_alloc(dev, (size_t)setup->n_slots * g->h * 2 * sizeof(float), &t->rows);
    if (!err)
        err = vmaf_gpu_host_alloc(dev, (size_t)setup->n_slots * g->h * 2 * sizeof(float), &t->host);
    return err;
}

static int float_ansnr_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                                   const VmafGpuSlotView *view)
{
    (void)cpu_priv;
    FloatStatsTwin *t = priv;
    const size_t row_bytes = (size_t)t->h * 2 * sizeof(float);
    FloatStatsCudaArgs a = {
        .ref = view->ref->data[0], .dist = view->dist->data[0], .stride = view->ref->stride[0],
        .w = t->w, .h = t->h, .bpc = t->bpc,
        .filtered = t->filtered + (size_t)view->slot * 2 * t->w * t->h * sizeof(float),
        .rows = t->rows + view->slot * row_bytes,
    };
    memcpy(a.ref_kernel, vmaf_float_ansnr_ref_kernel, sizeof(a.ref_kernel));
    memcpy(a.dis_kernel, vmaf_float_ansnr_dis_kernel, sizeof(a.dis_kernel));
    enum { FILTER_THREADS = 128 };
    const VmafGpuLaunch filter = { .grid = { (t->w + FILTER_THREADS - 1) / FILTER_THREADS, t->h, 1 },
                                    .block = { FILTER_THREADS, 1, 1 } };
    const VmafGpuLaunch rows = {
        .grid = { (t->h + FLOAT_STATS_CUDA_THREADS - 1) / FLOAT_STATS_CUDA_THREADS, 1, 1 },
        .block = { FLOAT_STATS_CUDA_THREADS, 1, 1 },
    };
    float *host = (float *)t->host + (size_t)view->slot * t->h * 2;
    int err = vmaf_gpu_rec_kernel(rec, t->rows_kernel, filter, &a, sizeof(a), "float_ansnr filter");
    if (!err)
        err = vmaf_gpu_rec_kernel(rec, t->finish_kernel, rows, &a, sizeof(a), "float_ansnr rows");
    if (!err) err = vmaf_gpu_rec_download(rec, host, a.rows, row_bytes, "float_ansnr download");
    return err;
}

static int float_ansnr_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                                    const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    (void)cpu_priv;
    FloatStatsTwin *t = priv;
    const float *rows = (const float *)t->host + (size_t)slot * t->h * 2;
    float sig = 0, noise = 0; /* the rows in row order, as float_stats.c adds them */
    for (unsigned i = 0; i < t->h; i++) {
        sig += rows[2 * i];
        noise += rows[2 * i + 1];
    }
    return vmaf_float_ansnr_store(t->w, t->h, t->bpc, sig, noise, frame->index, sink);
}

static void stats_close(void *priv, VmafGpuDevice *dev)
{
    FloatStatsTwin *t = priv;
    vmaf_gpu_free(dev, t->row_units);
    vmaf_gpu_free(dev, t->sums);
    vmaf_gpu_free(dev, t->filtered);
    vmaf_gpu_free(dev, t->rows);
    vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_float_psnr = {
    .name = "float_psnr",
    .priv_size = sizeof(FloatStatsTwin),
    .init = float_psnr_twin_init,
    .record = stats_record,
    .collect = float_psnr_twin_collect,
    .close = stats_close,
};

const VmafGpuTwin vmaf_twin_float_moment = {
    .name = "float_moment",
    .priv_size = sizeof(FloatStatsTwin),
    .init = float_moment_twin_init,
    .record = stats_record,
    .collect = float_moment_twin_collect,
    .close = stats_close,
};

const VmafGpuTwin vmaf_twin_float_ansnr = {
    .name = "float_ansnr",
    .priv_size = sizeof(FloatStatsTwin),
    .init = float_ansnr_twin_init,
    .record = float_ansnr_twin_record,
    .collect = float_ansnr_twin_collect,
    .close = stats_close,
};
