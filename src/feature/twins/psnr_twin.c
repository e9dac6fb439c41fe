/* psnr on the GPU: per-plane SSE on the device, everything after it from psnr.c. */
#include <errno.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"
#include "feature/psnr.h"
#include "picture.h"

typedef struct PsnrTwin {
    VmafGpuKernel kernel;
    VmafGpuPtr sse;          /* [slot][3] */
    unsigned long long *host; /* pinned [slot][3] */
    unsigned n_slots;
    VmafPicture geometry;     /* plane sizes for vmaf_psnr_store */
} PsnrTwin;

static int psnr_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    PsnrTwin *t = priv;
    const PsnrState *s = cpu_priv;
    const VmafFeatureGeometry *g = &setup->geometry;
    VmafPictureLayout l;
    int err = vmaf_picture_layout(&l, g->pix_fmt, g->bpc, g->w, g->h);
    if (err) return err;
    for (int p = 0; p < 3; p++) {
        t->geometry.w[p] = l.w[p];
        t->geometry.h[p] = l.h[p];
    }
    t->n_slots = setup->n_slots;
    setup->needs_chroma = s->n_planes > 1;
    err = vmaf_gpu_kernel(setup->dev, g->bpc == 8 ? "vmaf_psnr_sse_8" : "vmaf_psnr_sse_16",
                          &t->kernel);
    if (!err) err = vmaf_gpu_alloc(setup->dev, t->n_slots * 3 * sizeof(*t->host), &t->sse);
    if (!err)
        err = vmaf_gpu_host_alloc(setup->dev, t->n_slots * 3 * sizeof(*t->host),
                                  (void **)&t->host);
    return err;
}

static int psnr_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                            const VmafGpuSlotView *view)
{
    PsnrTwin *t = priv;
    const PsnrState *s = cpu_priv;
    const size_t bytes = 3 * sizeof(*t->host);
    const VmafGpuPtr sse = t->sse + view->slot * bytes;
    PsnrCudaArgs a = { .n_planes = s->n_planes, .sse = sse };
    for (unsigned p = 0; p < 3; p++) {
        a.ref[p] = view->ref->data[p];
        a.dist[p] = view->dist->data[p];
        a.stride[p] = view->ref->stride[p];
        a.w[p] = view->ref->w[p];
        a.h[p] = view->ref->h[p];
    }
    const unsigned rows = view->ref->h[0] < PSNR_CUDA_ROW_BLOCKS ? view->ref->h[0]
                                                                : PSNR_CUDA_ROW_BLOCKS;
    const VmafGpuLaunch launch = {
        .grid = { rows, s->n_planes, 1 }, .block = { PSNR_CUDA_THREADS, 1, 1 },
    };
    int err = vmaf_gpu_rec_memset(rec, sse, bytes, "psnr clear");
    if (!err) err = vmaf_gpu_rec_kernel(rec, t->kernel, launch, &a, sizeof(a), "psnr sse");
    if (!err)
        err = vmaf_gpu_rec_download(rec, t->host + 3 * view->slot, sse, bytes, "psnr download");
    return err;
}

static int psnr_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                             const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    PsnrTwin *t = priv;
    uint64_t sse[3];
    for (int p = 0; p < 3; p++) sse[p] = t->host[3 * slot + p];
    return vmaf_psnr_store(cpu_priv, sse, &t->geometry, frame->index, sink);
}

static void psnr_twin_close(void *priv, VmafGpuDevice *dev)
{
    PsnrTwin *t = priv;
    vmaf_gpu_free(dev, t->sse);
    vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_psnr = {
    .name = "psnr",
    .priv_size = sizeof(PsnrTwin),
    .init = psnr_twin_init,
    .record = psnr_twin_record,
    .collect = psnr_twin_collect,
    .close = psnr_twin_close,
};
