/* psnr_hvs on the GPU: per-block terms in parallel, in the CPU's order; then each plane's
 * serial float sum reproduced exactly by the parallel binade walk of exact_sum.h; the
 * normalisation and the scores come from psnr_hvs.c. */
#include <errno.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "feature/exact_sum.h"
#include "feature/cuda/twin.h"
#include "feature/psnr_hvs.h"

typedef struct PsnrHvsTwin {
    CUfunction terms_kernel, tiles_kernel, walk_kernel;
    CUdeviceptr tables;      /* [plane][csf 64, mask 64] */
    CUdeviceptr terms[3];    /* [slot] * plane terms */
    CUdeviceptr scratch[3];  /* [slot] * exact sum scratch of the plane */
    CUdeviceptr sums;        /* float [slot][3] */
    float *host;             /* pinned [slot][3] */
    int nbx[3], nby[3], w[3], h[3];
    unsigned bpc;
} PsnrHvsTwin;

static size_t plane_terms(const PsnrHvsTwin *t, int p)
{
    return (size_t)t->nbx[p] * t->nby[p] * PSNR_HVS_COEFFS;
}

static int psnr_hvs_twin_init(void *priv, const void *cpu_priv, VmafCudaTwinSetup *setup)
{
    (void)cpu_priv; /* the CPU init already refused what it cannot score */
    PsnrHvsTwin *t = priv;
    VmafCudaState *s = setup->state;
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
    int err = vmaf_cuda_kernel(s, "vmaf_psnr_hvs_terms", &t->terms_kernel);
    if (!err) err = vmaf_cuda_kernel(s, "vmaf_exact_sum_tiles", &t->tiles_kernel);
    if (!err) err = vmaf_cuda_kernel(s, "vmaf_exact_sum_walk", &t->walk_kernel);
    if (!err) err = vmaf_cuda_twin_alloc(s, sizeof(tables), &t->tables);
    if (!err)
        err = vmaf_cuda_result(&s->drv, s->drv.cuMemcpyHtoDAsync(t->tables, tables, sizeof(tables), NULL),
                               "cuMemcpyHtoD");
    for (int p = 0; !err && p < 3; p++) {
        err = vmaf_cuda_twin_alloc(s, setup->n_slots * plane_terms(t, p) * sizeof(float), &t->terms[p]);
        if (!err)
            err = vmaf_cuda_twin_alloc(s, setup->n_slots * exact_sum_scratch_bytes(plane_terms(t, p)),
                                       &t->scratch[p]);
    }
    if (!err) err = vmaf_cuda_twin_alloc(s, setup->n_slots * 3 * sizeof(float), &t->sums);
    if (!err) err = vmaf_cuda_host_alloc(s, setup->n_slots * 3 * sizeof(float), (void **)&t->host);
    if (!err) err = vmaf_cuda_result(&s->drv, s->drv.cuCtxSynchronize(), "cuCtxSynchronize");
    return err;
}

static int psnr_hvs_twin_record(void *priv, const void *cpu_priv, VmafCudaRecorder *rec,
                                const VmafCudaSlotView *view)
{
    (void)cpu_priv;
    PsnrHvsTwin *t = priv;
    const CUdeviceptr sums = t->sums + view->slot * 3 * sizeof(float);
    ExactSumCudaArgs sum = { .result = sums, .n_arrays = 3 };
    unsigned long long max_tiles = 0;
    for (int p = 0; p < 3; p++) {
        const size_t n = plane_terms(t, p);
        const CUdeviceptr terms = t->terms[p] + view->slot * n * sizeof(float);
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
        const VmafCudaLaunch launch = { .grid = { blocks, 1, 1 },
                                        .block = { PSNR_HVS_CUDA_THREADS, 1, 1 } };
        int err = vmaf_cuda_rec_kernel(rec, t->terms_kernel, launch, &a, sizeof(a),
                                       "psnr_hvs terms");
        if (err) return err;
    }
    if (max_tiles) {
        /* the serial float sum of each plane, reproduced in parallel */
        const VmafCudaLaunch tiles = { .grid = { (unsigned)max_tiles, 3, 1 },
                                       .block = { EXACT_SUM_TILES_THREADS, 1, 1 } };
        const VmafCudaLaunch walk = { .grid = { 3, 1, 1 },
                                      .block = { EXACT_SUM_WALK_THREADS, 1, 1 } };
        int err = vmaf_cuda_rec_kernel(rec, t->tiles_kernel, tiles, &sum, sizeof(sum),
                                       "psnr_hvs sum tiles");
        if (!err)
            err = vmaf_cuda_rec_kernel(rec, t->walk_kernel, walk, &sum, sizeof(sum),
                                       "psnr_hvs sum walk");
        if (err) return err;
    }
    return vmaf_cuda_rec_download(rec, t->host + 3 * view->slot, sums, 3 * sizeof(float),
                                  "psnr_hvs download");
}

static int psnr_hvs_twin_collect(void *priv, void *cpu_priv, unsigned slot,
                                 const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)cpu_priv;
    PsnrHvsTwin *t = priv;
    double err[3];
    for (int p = 0; p < 3; p++) {
        const float sum = plane_terms(t, p) ? t->host[3 * slot + p] : 0.f;
        err[p] = vmaf_psnr_hvs_normalize(sum, t->w[p], t->h[p], t->bpc);
    }
    return vmaf_psnr_hvs_store(err, frame->index, sink);
}

static void psnr_hvs_twin_close(void *priv, VmafCudaState *state)
{
    PsnrHvsTwin *t = priv;
    vmaf_cuda_twin_free(state, t->tables);
    for (int p = 0; p < 3; p++) {
        vmaf_cuda_twin_free(state, t->terms[p]);
        vmaf_cuda_twin_free(state, t->scratch[p]);
    }
    vmaf_cuda_twin_free(state, t->sums);
    vmaf_cuda_host_free(state, t->host);
}

const VmafCudaTwin vmaf_twin_psnr_hvs = {
    .name = "psnr_hvs",
    .priv_size = sizeof(PsnrHvsTwin),
    .init = psnr_hvs_twin_init,
    .record = psnr_hvs_twin_record,
    .collect = psnr_hvs_twin_collect,
    .close = psnr_hvs_twin_close,
};
