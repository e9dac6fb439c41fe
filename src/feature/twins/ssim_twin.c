/* float_ssim and float_ms_ssim on the GPU (ssim.cu): per scored plane pair the window tiles,
 * the row sums and the plane sums of ssim_device.h's order on the device; only the four
 * double sums per plane come back, and collect() makes the means (vmaf_ssim_means_from_sums)
 * and writes the scores with the CPU extractor's store and instance state. Decimated planes
 * (float_ssim's scale, MS-SSIM's scales) are made on the device from the shared frame. */
#include <errno.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"
#include "feature/ssim.h"
#include "feature/ssim_device.h"

enum { MAX_PLANES = VMAF_SSIM_SCALES };

typedef struct SsimTwin {
    VmafGpuKernel fn_decimate, fn_tile, fn_rows, fn_plane;
    unsigned n_slots;
    int n_planes;                    /* scored plane pairs: 1 (float_ssim) or 5 */
    int w[MAX_PLANES], h[MAX_PLANES]; /* their sizes */
    int stored[MAX_PLANES];          /* the pair is a device float plane (else the samples) */
    int summed[MAX_PLANES];          /* it has window outputs (else its sums are 0) */
    int n_seg[MAX_PLANES];
    size_t plane_bytes[MAX_PLANES];  /* one float plane, rows of w floats */
    size_t partial_off[MAX_PLANES], row_off[MAX_PLANES], n_partials, n_rows; /* doubles */
    int factor, kw;                  /* decimation of the pair before each stored plane */
    float taps[VMAF_SSIM_MAX_TAPS];
    VmafGpuPtr planes[MAX_PLANES];  /* [slot][ref, cmp] */
    VmafGpuPtr partials, rows, sums; /* [slot][...] */
    double *host;                    /* pinned [slot][n_planes][4] */
} SsimTwin;

static int alloc_buffers(SsimTwin *t, VmafGpuDevice *dev)
{
    int err = 0;
    for (int p = 0; p < t->n_planes; p++) {
        const int nw = t->w[p] - (VMAF_SSIM_WINDOW - 1), nh = t->h[p] - (VMAF_SSIM_WINDOW - 1);
        t->summed[p] = nw > 0 && nh > 0;
        t->n_seg[p] = t->summed[p] ? (nw + VMAF_SSIM_SEGMENT - 1) / VMAF_SSIM_SEGMENT : 0;
        t->partial_off[p] = t->n_partials;
        t->row_off[p] = t->n_rows;
        if (t->summed[p]) {
            t->n_partials += (size_t)VMAF_SSIM_SUMS * nh * t->n_seg[p];
            t->n_rows += (size_t)VMAF_SSIM_SUMS * nh;
        }
        t->plane_bytes[p] = (size_t)t->w[p] * t->h[p] * sizeof(float);
        if (t->stored[p] && !err)
            err = vmaf_gpu_alloc(dev, t->n_slots * 2 * t->plane_bytes[p], &t->planes[p]);
    }
    const size_t n_sums = (size_t)t->n_planes * VMAF_SSIM_SUMS;
    if (!err && t->n_partials)
        err = vmaf_gpu_alloc(dev, t->n_slots * t->n_partials * sizeof(double), &t->partials);
    if (!err && t->n_rows)
        err = vmaf_gpu_alloc(dev, t->n_slots * t->n_rows * sizeof(double), &t->rows);
    if (!err) err = vmaf_gpu_alloc(dev, t->n_slots * n_sums * sizeof(double), &t->sums);
    if (!err)
        err = vmaf_gpu_host_alloc(dev, t->n_slots * n_sums * sizeof(double), (void **)&t->host);
    if (!err) memset(t->host, 0, t->n_slots * n_sums * sizeof(double));
    return err;
}

static int load_kernels(SsimTwin *t, VmafGpuDevice *dev)
{
    int err = vmaf_gpu_kernel(dev, "vmaf_ssim_decimate", &t->fn_decimate);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_ssim_tile", &t->fn_tile);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_ssim_rows", &t->fn_rows);
    if (!err) err = vmaf_gpu_kernel(dev, "vmaf_ssim_plane", &t->fn_plane);
    return err;
}

static unsigned blocks(int n, int per)
{
    return (unsigned)((n + per - 1) / per);
}

/* The slot's luma pair (the shared frame's samples). */
static SsimCudaArgs samples_args(const VmafGpuSlotView *view)
{
    SsimCudaArgs a;
    memset(&a, 0, sizeof(a));
    a.w = (int)view->ref->w[0];
    a.h = (int)view->ref->h[0];
    a.src[0] = view->ref->data[0];
    a.src[1] = view->dist->data[0];
    a.src_stride = view->ref->stride[0];
    a.src_kind = view->ref->bpc > 8 ? 1 : 0;
    a.src_scale = 1.0f / vmaf_float_sample_divisor(view->ref->bpc);
    return a;
}

/* The source of plane pair p in this slot: the samples or a stored float pair. */
static SsimCudaArgs source_args(const SsimTwin *t, const VmafGpuSlotView *view, int p)
{
    if (!t->stored[p]) return samples_args(view);
    SsimCudaArgs a;
    memset(&a, 0, sizeof(a));
    a.w = t->w[p];
    a.h = t->h[p];
    const VmafGpuPtr pair = t->planes[p] + view->slot * 2 * t->plane_bytes[p];
    a.src[0] = pair;
    a.src[1] = pair + t->plane_bytes[p];
    a.src_stride = (unsigned long long)t->w[p] * sizeof(float);
    a.src_kind = 2;
    a.src_scale = 1.0f;
    return a;
}

static int ssim_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                            const VmafGpuSlotView *view)
{
    SsimTwin *t = priv;
    (void)cpu_priv;
    const unsigned slot = view->slot;
    const VmafGpuPtr sums = t->sums + slot * (size_t)t->n_planes * VMAF_SSIM_SUMS * sizeof(double);
    int err = 0, any = 0;
    for (int p = 0; !err && p < t->n_planes; p++) {
        if (t->stored[p]) { /* decimate the previous pair (or the samples) into this one */
            SsimCudaArgs d = p > 0 ? source_args(t, view, p - 1) : samples_args(view);
            const VmafGpuPtr pair = t->planes[p] + slot * 2 * t->plane_bytes[p];
            d.dst[0] = pair;
            d.dst[1] = pair + t->plane_bytes[p];
            d.dst_stride = (unsigned long long)t->w[p] * sizeof(float);
            d.dst_w = t->w[p];
            d.dst_h = t->h[p];
            d.factor = t->factor;
            d.kw = t->kw;
            memcpy(d.taps, t->taps, sizeof(d.taps));
            const VmafGpuLaunch ld = {
                .grid = { blocks(d.dst_w, VMAF_SSIM_DEC_TX), blocks(d.dst_h, VMAF_SSIM_DEC_TY), 1 },
                .block = { VMAF_SSIM_DEC_TX, VMAF_SSIM_DEC_TY, 1 },
            };
            err = vmaf_gpu_rec_kernel(rec, t->fn_decimate, ld, &d, sizeof(d), "ssim decimate");
        }
        if (err || !t->summed[p]) continue;
        any = 1;
        SsimCudaArgs a = source_args(t, view, p);
        const int nh = t->h[p] - (VMAF_SSIM_WINDOW - 1);
        a.n_seg = t->n_seg[p];
        a.partials = t->partials + (slot * t->n_partials + t->partial_off[p]) * sizeof(double);
        a.rows = t->rows + (slot * t->n_rows + t->row_off[p]) * sizeof(double);
        a.sums = sums + (size_t)p * VMAF_SSIM_SUMS * sizeof(double);
        const VmafGpuLaunch lt = { .grid = { (unsigned)a.n_seg, blocks(nh, VMAF_SSIM_TILE_H), 1 },
                                    .block = { VMAF_SSIM_THREADS, 1, 1 } };
        const VmafGpuLaunch lr = { .grid = { blocks(nh, VMAF_SSIM_ROW_THREADS), VMAF_SSIM_SUMS, 1 },
                                    .block = { VMAF_SSIM_ROW_THREADS, 1, 1 } };
        const VmafGpuLaunch lp = { .grid = { 1, 1, 1 }, .block = { 32 * VMAF_SSIM_SUMS, 1, 1 } };
        err = vmaf_gpu_rec_kernel(rec, t->fn_tile, lt, &a, sizeof(a), "ssim tile");
        if (!err) err = vmaf_gpu_rec_kernel(rec, t->fn_rows, lr, &a, sizeof(a), "ssim rows");
        if (!err) err = vmaf_gpu_rec_kernel(rec, t->fn_plane, lp, &a, sizeof(a), "ssim plane");
    }
    /* planes without window outputs keep the zero sums the host buffer starts with */
    if (!err && any)
        err = vmaf_gpu_rec_download(rec, t->host + slot * (size_t)t->n_planes * VMAF_SSIM_SUMS,
                                    sums, (size_t)t->n_planes * VMAF_SSIM_SUMS * sizeof(double),
                                    "ssim download");
    return err;
}

static void means(const SsimTwin *t, unsigned slot, int p, VmafSsimMeans *m)
{
    const double *sums = t->host + ((size_t)slot * t->n_planes + p) * VMAF_SSIM_SUMS;
    const double zero[VMAF_SSIM_SUMS] = { 0.0, 0.0, 0.0, 0.0 };
    vmaf_ssim_means_from_sums(t->summed[p] ? sums : zero, t->w[p] - (VMAF_SSIM_WINDOW - 1),
                              t->h[p] - (VMAF_SSIM_WINDOW - 1), m);
}

static void ssim_twin_close(void *priv, VmafGpuDevice *dev)
{
    SsimTwin *t = priv;
    for (int p = 0; p < MAX_PLANES; p++) vmaf_gpu_free(dev, t->planes[p]);
    vmaf_gpu_free(dev, t->partials);
    vmaf_gpu_free(dev, t->rows);
    vmaf_gpu_free(dev, t->sums);
    vmaf_gpu_host_free(dev, t->host);
}

/* ---- float_ssim ---------------------------------------------------------------------- */

static int float_ssim_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    SsimTwin *t = priv;
    const FloatSsimState *c = cpu_priv;
    VmafGpuDevice *dev = setup->dev;
    t->n_slots = setup->n_slots;
    t->n_planes = 1;
    if (c->scale > 1) {
        t->w[0] = c->dec_w;
        t->h[0] = c->dec_h;
        t->stored[0] = c->dec_w >= VMAF_SSIM_WINDOW && c->dec_h >= VMAF_SSIM_WINDOW;
        t->factor = c->scale;
        t->kw = c->scale;
        memcpy(t->taps, c->kernel_taps, sizeof(t->taps));
    } else {
        t->w[0] = c->w;
        t->h[0] = c->h;
    }
    int err = load_kernels(t, dev);
    if (!err) err = alloc_buffers(t, dev);
    return err;
}

static int float_ssim_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                                   const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    const SsimTwin *t = priv;
    VmafSsimMeans m;
    means(t, slot, 0, &m);
    return vmaf_float_ssim_store(cpu_priv, &m, frame->index, sink);
}

const VmafGpuTwin vmaf_twin_float_ssim = {
    .name = "float_ssim",
    .priv_size = sizeof(SsimTwin),
    .init = float_ssim_twin_init,
    .record = ssim_twin_record,
    .collect = float_ssim_twin_collect,
    .close = ssim_twin_close,
};

/* ---- float_ms_ssim ------------------------------------------------------------------- */

static int float_ms_ssim_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    SsimTwin *t = priv;
    const FloatMsSsimState *c = cpu_priv;
    VmafGpuDevice *dev = setup->dev;
    t->n_slots = setup->n_slots;
    t->n_planes = VMAF_SSIM_SCALES;
    for (int p = 0; p < VMAF_SSIM_SCALES; p++) {
        t->w[p] = c->ref[p].w;
        t->h[p] = c->ref[p].h;
        t->stored[p] = p > 0;
    }
    t->factor = 2;
    t->kw = VMAF_SSIM_LPF;
    memcpy(t->taps, c->lpf, sizeof(c->lpf));
    int err = load_kernels(t, dev);
    if (!err) err = alloc_buffers(t, dev);
    return err;
}

static int float_ms_ssim_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                                      const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    const SsimTwin *t = priv;
    VmafSsimMeans m[VMAF_SSIM_SCALES];
    for (int p = 0; p < VMAF_SSIM_SCALES; p++) means(t, slot, p, &m[p]);
    return vmaf_float_ms_ssim_store(cpu_priv, m, frame->index, sink);
}

const VmafGpuTwin vmaf_twin_float_ms_ssim = {
    .name = "float_ms_ssim",
    .priv_size = sizeof(SsimTwin),
    .init = float_ms_ssim_twin_init,
    .record = ssim_twin_record,
    .collect = float_ms_ssim_twin_collect,
    .close = ssim_twin_close,
};
