/* psnr_hvs on the GPU: per-block terms in parallel, in the CPU's order; then each plane's
 * serial float sum reproduced exactly by the parallel binade walk of exact_sum.h; the
 * normalisation and the scores come from psnr_hvs.c. */
#include <errno.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "feature/exact_sum.h"
#include "gpu/twin.h"
#include "feature/psnr_hvs.h"

typedef struct PsnrHvsTwin {
    VmafGpuKernel terms_kernel, tiles_kernel, walk_kernel;
    VmafGpuPtr tables;      /* [plane][csf 64, mask 64] */
    VmafGpuPtr terms[3];    /* [slot] * plane terms */
    VmafGpuPtr scratch[3];  /* [slot] * exact sum scratch of the plane */
    VmafGpuPtr sums;        /* float [slot][3] */
    float *host;             /* pinned [slot][3] */
    int nbx[3], nby[3], w[3], h[3];
    unsigned bpc;
} PsnrHvsTwin;

static size_t plane_terms(const PsnrHvsTwin *t, int p)
{
    return (size_t)t->nbx[p] * t->nby[p] * PSNR_HVS_COEFFS;
}

static int psnr_hvs_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    (void)cpu_priv; /* the CPU init already refused what it cannot score */
    PsnrHvsTwin *t = priv;
    VmafGpuDevice *dev = setup->dev;
    const VmafFeatureGeometry *g = &setup->geometry;
    setup->needs_chroma = true;
    t->bpc = g->bpc;
    const unsigned ssx = g->pix_fmt != VMAF_PIX_FMT_YUV444P;
    const unsigned ssy = g->pix_fmt == VMAF_PIX_FMT_YUV420P;
    for (int p = 0; p < 3; p++) {
        t->w[p] = (int)(p ? g->w >> ssx : g->w);
        t->h[p] = (int)(p ? g->h >> ssy : g->h);
        t->nbx[p] = vmaf_psnr_hvs_blocks(t->w[p]);
        t->nby[p] = vmaf_psnr_hvs_blocks(t->h[p]);
    }
    float tables[3][2][PSNR_HVS_COEFFS];
    for (int p = 0; p < 3; p++)
        for (int k = 0; k < PSNR_HVS_COEFFS; k++) {
            tables[p][0][k] = psnr_hvs_csf[p][k];
            tables[p][1][k] = psnr_hvs_mask_weight(psnr_hvs_csf[p][k]);
        }
    int err = vmaf_gpu_kernel(dev, "vmaf_psnr_hvs_terms", &t->terms_kernel);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_exact_sum_tiles", &t->tiles_kernel);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_exact_sum_walk", &t->walk_kernel);
    if (!err) err = vmaf_gpu_alloc(dev, sizeof(tables), &t->tables);
    if (!err)
        err = vmaf_gpu_write(dev, t->tables, tables, sizeof(tables));
    for (int p = 0; !err && p < 3; p++) {
        err = vmaf_gpu_alloc(dev, setup->n_slots * plane_terms(t, p) * sizeof(float), &t->terms[p]);
        if (!err)
            err = vmaf_gpu_alloc(dev, setup->n_slots * exact_sum_scratch_bytes(plane_terms(t, p)),
                                 &t->scratch[p]);
    }
    if (!err) err = vmaf_gpu_alloc(dev, setup->n_slots * 3 * sizeof(float), &t->sums);
    if (!err) err = vmaf_gpu_host_alloc(dev, setup->n_slots * 3 * sizeof(float), (void **)&t->host);
    return err;
}

static int psnr_hvs_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                                const VmafGpuSlotView *view)
{
    (void)cpu_priv;
    PsnrHvsTwin *t = priv;
    const VmafGpuPtr sums = t->sums + view->slot * 3 * sizeof(float);
    ExactSumCudaArgs sum = { .result = sums, .n_arrays = 3 };
    unsigned long long max_tiles = 0;
    for (int p = 0; p < 3; p++) {
        const size_t n = plane_terms(t, p);
        const VmafGpuPtr terms = t->terms[p] + view->slot * n * sizeof(float);
        sum.terms[p] = terms;
        sum.n[p] = n;
        sum.scratch[p] = t->scratch[p] + view->slot * exact_sum_scratch_bytes(n);
        if (exact_sum_tiles(n) > max_tiles) max_tiles = exact_sum_tiles(n);
        if (!n) continue; /* no block fits: the plane's sum is the CPU's 0 */
        const PsnrHvsCudaArgs a = {
            .ref = view->ref->data[p], .dist = view->dist->data[p],
            .stride = view->ref->stride[p], .nbx = t->nbx[p], .nby = t->nby[p],
            .wide = t->bpc > 8, .tables = t->tables + p * 2 * PSNR_HVS_COEFFS * sizeof(float),
            .terms = terms,
        };
        const unsigned blocks = (unsigned)((n / PSNR_HVS_COEFFS + PSNR_HVS_CUDA_THREADS - 1) /
                                           PSNR_HVS_CUDA_THREADS);
        const VmafGpuLaunch launch = { .grid = { blocks, 1, 1 },
                                        .block = { PSNR_HVS_CUDA_THREADS, 1, 1 } };
        int err = vmaf_gpu_rec_kernel(rec, t->terms_kernel, launch, &a, sizeof(a),
                                      "psnr_hvs terms");
        if (err) return err;
    }
    if (max_tiles) {
        /* the serial float sum of each plane, reproduced in parallel */
        const VmafGpuLaunch tiles = { .grid = { (unsigned)max_tiles, 3, 1 },
                                       .block = { EXACT_SUM_TILES_THREADS, 1, 1 } };
        const VmafGpuLaunch walk = { .grid = { 3, 1, 1 },
                                      .block = { EXACT_SUM_WALK_THREADS, 1, 1 } };
        int err = vmaf_gpu_rec_kernel(rec, t->tiles_kernel, tiles, &sum, sizeof(sum),
                                      "psnr_hvs sum tiles");
        if (!err)
            err = vmaf_gpu_rec_kernel(rec, t->walk_kernel, walk, &sum, sizeof(sum),
                                      "psnr_hvs sum walk");
        if (err) return err;
    }
    return vmaf_gpu_rec_download(rec, t->host + 3 * view->slot, sums, 3 * sizeof(float),
                                 "psnr_hvs download");
}

static int psnr_hvs_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                                 const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    (void)cpu_priv;
    PsnrHvsTwin *t = priv;
    double err[3];
    for (int p = 0; p < 3; p++) {
        const float sum = plane_terms(t, p) ? t->host[3 * slot + p] : 0.f;
        err[p] = vmaf_psnr_hvs_normalize(sum, t->w[p], t->h[p], t->bpc);
    }
    return vmaf_psnr_hvs_store(err, frame->index, sink);
}

static void psnr_hvs_twin_close(void *priv, VmafGpuDevice *dev)
{
    PsnrHvsTwin *t = priv;
    vmaf_gpu_free(dev, t->tables);
    for (int p = 0; p < 3; p++) {
        vmaf_gpu_free(dev, t->terms[p]);
        vmaf_gpu_free(dev, t->scratch[p]);
    }
    vmaf_gpu_free(dev, t->sums);
    vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_psnr_hvs = {
    .name = "psnr_hvs",
    .priv_size = sizeof(PsnrHvsTwin),
    .init = psnr_hvs_twin_init,
    .record = psnr_hvs_twin_record,
    .collect = psnr_hvs_twin_collect,
    .close = psnr_hvs_twin_close,
};
