/* ciede on the GPU: the per-pixel differences and their row-major double sum on the device
 * (the kernels, with ciede_device.h's functions; the sum by one block in seq_sum_device.h's
 * order, with the serial loop's bits), the score from ciede.c's vmaf_ciede_store. */
#include <errno.h>
#include <string.h>

#include "feature/ciede_device.h"
#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"
#include "feature/seq_sum_device.h"

typedef struct CiedeTwin {
    VmafGpuKernel diff_kernel, sum_kernel;
    unsigned sum_block; /* SEQ_SUM_THREADS, or fewer where the device takes fewer per group */
    unsigned w, h, bpc, layout;
    size_t slot_floats; /* w h rounded up to 64: each slot's diff 256-byte aligned (float4 loads) */
    VmafGpuPtr diff;   /* float [slot][slot_floats], [h][w] used */
    VmafGpuPtr sums; /* double [slot] */
    void *host;       /* pinned: double [slot] */
} CiedeTwin;

static int ciede_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    (void)cpu_priv;
    CiedeTwin *t = priv;
    const VmafFeatureGeometry *g = &setup->geometry;
    VmafGpuDevice *dev = setup->dev;
    if (g->pix_fmt == VMAF_PIX_FMT_YUV400P || g->bpc < 8 || g->bpc > 16 || !g->w || !g->h)
        return -EINVAL; /* the CPU extractor's init has refused it already */
    t->w = g->w;
    t->h = g->h;
    t->bpc = g->bpc;
    t->slot_floats = ((size_t)g->w * g->h + 63) & ~(size_t)63;
    t->layout = vmaf_ciede_layout(g->pix_fmt);
    setup->needs_chroma = true;
    int err = vmaf_gpu_kernel(dev, "vmaf_ciede_diff", &t->diff_kernel);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_ciede_sum", &t->sum_kernel);
    if (!err) err = vmaf_gpu_fit_block(dev, t->sum_kernel, SEQ_SUM_THREADS, 32, &t->sum_block);
    if (!err)
        err = vmaf_gpu_alloc(dev, (size_t)setup->n_slots * t->slot_floats * sizeof(float),
                             &t->diff);
    if (!err) err = vmaf_gpu_alloc(dev, (size_t)setup->n_slots * sizeof(double), &t->sums);
    if (!err) err = vmaf_gpu_host_alloc(dev, (size_t)setup->n_slots * sizeof(double), &t->host);
    return err;
}

static int ciede_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                             const VmafGpuSlotView *view)
{
    (void)cpu_priv;
    CiedeTwin *t = priv;
    CiedeCudaArgs a = {
        .w = t->w, .h = t->h, .bpc = t->bpc, .layout = t->layout,
        .diff = t->diff + (size_t)view->slot * t->slot_floats * sizeof(float),
        .sum = t->sums + (size_t)view->slot * sizeof(double),
    };
    for (int k = 0; k < 3; k++) {
        a.ref[k] = view->ref->data[k];
        a.dist[k] = view->dist->data[k];
        a.stride[k] = view->ref->stride[k];
        a.pw[k] = view->ref->w[k];
        a.ph[k] = view->ref->h[k];
    }
    const VmafGpuLaunch diff = {
        .grid = { (t->w + CIEDE_CUDA_THREADS - 1) / CIEDE_CUDA_THREADS, t->h, 1 },
        .block = { CIEDE_CUDA_THREADS, 1, 1 },
    };
    const VmafGpuLaunch sum = { .grid = { 1, 1, 1 }, .block = { t->sum_block, 1, 1 } };
    double *host = (double *)t->host + view->slot;
    int err = vmaf_gpu_rec_kernel(rec, t->diff_kernel, diff, &a, sizeof(a), "ciede diff");
    if (!err) err = vmaf_gpu_rec_kernel(rec, t->sum_kernel, sum, &a, sizeof(a), "ciede sum");
    if (!err) err = vmaf_gpu_rec_download(rec, host, a.sum, sizeof(double), "ciede download");
    return err;
}

static int ciede_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                              const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    (void)cpu_priv;
    CiedeTwin *t = priv;
    return vmaf_ciede_store(t->w, t->h, ((const double *)t->host)[slot], frame->index, sink);
}

static void ciede_twin_close(void *priv, VmafGpuDevice *dev)
{
    CiedeTwin *t = priv;
    vmaf_gpu_free(dev, t->diff);
    vmaf_gpu_free(dev, t->sums);
    vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_ciede = {
    .name = "ciede",
    .priv_size = sizeof(CiedeTwin),
    .init = ciede_twin_init,
    .record = ciede_twin_record,
    .collect = ciede_twin_collect,
    .close = ciede_twin_close,
};
