/*
 * cambi on the GPU (cambi.cu; the decomposition and the per-thread work in
 * src/feature/cambi_device.h). Per scored picture (distorted; reference too with full_ref):
 * preprocess, flat, mask, then per scale the decimation + mode filter + keys, the
 * sliding-window c-values and the radix-select pooling. Only each scale's top-k units, the
 * total units and a flag come back (24 bytes per picture and scale); collect() finishes with
 * cambi.c's own vmaf_cambi_units_mean / vmaf_cambi_combine / vmaf_cambi_store.
 *
 * Where the top-k sum is not exact in a double in every order (the k largest c-values of a
 * scale sum to 2^29 or more: 2^53 units; large, strongly banded frames), the CPU's result
 * depends on its quickselect's order, which the device does not reproduce: collect() then
 * downloads that scale's c-values (kept per slot) and pools them with the CPU's own
 * vmaf_cambi_spatial_pooling: the same bits, at the cost of a synchronous copy. (Below that
 * the device's integer sum equals the CPU's double sum in any order, also where the CPU
 * leaves its own integer path because all its nonzero c-values reach 2^29.) A value not
 * whole in units (impossible: every nonzero c-value is at least 0.5) also falls back.
 *
 * heatmaps_path has no twin (it writes files per frame from the c-values): refused with a
 * message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "feature/cambi.h"
#include "feature/cambi_device.h"
#include "gpu/twin.h"

enum {
    K_PRE,
    K_FLAT,
    K_MASK,
    K_SCALE,
    K_CV,
    K_HIST,
    K_SELECT,
    K_SUM,
    K_FINISH,
    K_COUNT
};

static const char *const kernel_names[K_COUNT] = {
    "vmaf_cambi_preprocess", "vmaf_cambi_flat",        "vmaf_cambi_mask",
    "vmaf_cambi_scale",      "vmaf_cambi_cvalues",    "vmaf_cambi_pool_hist",
    "vmaf_cambi_pool_select", "vmaf_cambi_pool_sum",   "vmaf_cambi_pool_finish",
};

#define SCALES VMAF_CAMBI_NUM_SCALES
#define ALIGN(x) (((x) + 255) & ~(size_t)255)

typedef struct CambiPicPlan {
    unsigned w, h, window, threshold;
    unsigned sw[SCALES], sh[SCALES], step[SCALES];
    int k[SCALES];
    size_t cv_off[SCALES]; /* floats, within the picture's c-values */
    size_t cv_floats;
    VmafGpuPtr pos;       /* unsigned pos_x[w], pos_y[h] */
} CambiPicPlan;

typedef struct CambiTwin {
    VmafGpuKernel fn[K_COUNT];
    CambiPicPlan pic[2];
    unsigned n_pics, n_slots, bpc;
    unsigned band_base, band_size;
    int anti_dither;
    double topk;
    size_t plane;                        /* alloc_w * alloc_h */
    size_t off_img[2], off_mask[2], off_flat, off_keys, work_bytes;
    size_t cv_slot_floats;               /* both pictures */
    VmafGpuPtr diffs, recip, work, cvals, pools, results;
    CambiDevResult *host;                /* pinned [slot][pic][scale] */
} CambiTwin;

static int upload(VmafGpuDevice *dev, VmafGpuPtr *dst, const void *src, size_t bytes)
{
    int err = vmaf_gpu_alloc(dev, bytes, dst);
    if (!err) err = vmaf_gpu_write(dev, *dst, src, bytes);
    return err;
}

static int plan_picture(VmafGpuDevice *dev, CambiPicPlan *p, unsigned in_w, unsigned in_h,
                        unsigned w, unsigned h, unsigned window, bool speedup, double topk)
{
    p->w = w;
    p->h = h;
    p->window = window;
    p->threshold = vmaf_cambi_mask_index(w, h, VMAF_CAMBI_MASK_FILTER_SIZE);
    cambi_dev_plan_scales(w, h, speedup, topk, p->sw, p->sh, p->step, p->k);
    p->cv_floats = 0;
    for (unsigned k = 0; k < SCALES; k++) {
        p->cv_off[k] = p->cv_floats;
        p->cv_floats += ALIGN((size_t)p->sw[k] * p->sh[k]);
    }
    unsigned *pos = malloc(((size_t)w + h) * sizeof(unsigned));
    if (!pos) return -ENOMEM;
    if (in_w == w && in_h == h) {
        for (unsigned j = 0; j < w; j++) pos[j] = j;
        for (unsigned i = 0; i < h; i++) pos[w + i] = i;
    } else {
        vmaf_cambi_resample_positions(in_w, w, pos);
        vmaf_cambi_resample_positions(in_h, h, pos + w);
    }
    const int err = upload(dev, &p->pos, pos, ((size_t)w + h) * sizeof(unsigned));
    free(pos);
    return err;
}

static int cambi_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    CambiTwin *t = priv;
    const VmafCambiState *cs = cpu_priv;
    const VmafCambiSetup *st = &cs->setup;
    VmafGpuDevice *dev = setup->dev;
    const VmafFeatureGeometry *g = &setup->geometry;
    if (cs->opt.heatmaps_path) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "cambi (%s): heatmaps_path is not supported on the GPU (use the CPU)\n",
                 dev->ops->name);
        return -ENOTSUP;
    }
    t->n_slots = setup->n_slots;
    t->bpc = g->bpc;
    t->anti_dither = st->enc_bitdepth < 10;
    t->topk = st->topk;
    t->n_pics = cs->opt.full_ref ? 2 : 1;
    int err = 0;
    for (int k = 0; !err && k < K_COUNT; k++) err = vmaf_gpu_kernel(dev, kernel_names[k], &t->fn[k]);
    if (!err)
        err = plan_picture(dev, &t->pic[0], g->w, g->h, st->enc_w, st->enc_h, st->window,
                           st->high_res_speedup, t->topk);
    if (!err && t->n_pics == 2)
        err = plan_picture(dev, &t->pic[1], g->w, g->h, st->src_w, st->src_h, st->src_window,
                           st->high_res_speedup, t->topk);
    if (err) return err;

    /* the contrasts' tests (cambi_kernels.c's diff_ranges) and the reciprocal table */
    CambiDevDiffs df;
    cambi_dev_diffs_fill(&df, &st->params);
    t->band_base = df.base;
    t->band_size = df.size;
    if (df.size > CAMBI_DEV_MAX_BAND) return -EINVAL; /* cannot happen: tvi <= 1023 */
    err = upload(dev, &t->diffs, &df, sizeof(df));
    if (!err)
        err = upload(dev, &t->recip, vmaf_cambi_reciprocal, sizeof(vmaf_cambi_reciprocal));
    if (err) return err;

    /* per slot: two image and mask levels, flat, keys (shared by the pictures, which run in
     * order on the slot's stream); c-values of every scale of both pictures (kept until
     * collect, for the fallback); the pooling states and results */
    t->plane = (size_t)st->alloc_w * st->alloc_h;
    size_t o = 0;
    for (int i = 0; i < 2; i++) {
        t->off_img[i] = o;
        o += ALIGN(t->plane * 2);
    }
    for (int i = 0; i < 2; i++) {
        t->off_mask[i] = o;
        o += ALIGN(t->plane);
    }
    t->off_flat = o;
    o += ALIGN(t->plane);
    t->off_keys = o;
    o += ALIGN(t->plane * 2);
    t->work_bytes = o;
    t->cv_slot_floats = t->pic[0].cv_floats + (t->n_pics == 2 ? t->pic[1].cv_floats : 0);
    const size_t per_slot = (size_t)t->n_pics * SCALES;
    err = vmaf_gpu_alloc(dev, t->n_slots * t->work_bytes, &t->work);
    if (!err) err = vmaf_gpu_alloc(dev, t->n_slots * t->cv_slot_floats * 4, &t->cvals);
    if (!err)
        err = vmaf_gpu_alloc(dev, t->n_slots * per_slot * sizeof(CambiDevPool), &t->pools);
    if (!err)
        err = vmaf_gpu_alloc(dev, t->n_slots * per_slot * sizeof(CambiDevResult),
                             &t->results);
    if (!err)
        err = vmaf_gpu_host_alloc(dev, t->n_slots * per_slot * sizeof(CambiDevResult),
                                  (void **)&t->host);
    return err;
}

/* per-scale labels, so that the profile shows where the time goes */
static const char *const scale_labels[SCALES] = { "cambi scale 0", "cambi scale 1",
                                                  "cambi scale 2", "cambi scale 3",
                                                  "cambi scale 4" };
static const char *const cv_labels[SCALES] = { "cambi c-values 0", "cambi c-values 1",
                                               "cambi c-values 2", "cambi c-values 3",
                                               "cambi c-values 4" };

static unsigned blocks_for(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

/* A picture's c-values in a slot (device address). */
static VmafGpuPtr c_values_at(const CambiTwin *t, unsigned slot, unsigned p)
{
    return t->cvals + (slot * t->cv_slot_floats + (p ? t->pic[0].cv_floats : 0)) * 4;
}

/* The pooling of one scale: three radix levels (histogram + select), the sum, the result. */
static int record_pool(const CambiTwin *t, VmafGpuRecorder *rec, VmafGpuPtr c_values,
                       size_t n, unsigned k, size_t idx)
{
    CambiPoolArgs pa = { .c_values = c_values, .pool = t->pools + idx * sizeof(CambiDevPool),
                         .result = t->results + idx * sizeof(CambiDevResult),
                         .n = (unsigned)n, .k = k, .level = 0 };
    unsigned hb = blocks_for(n, CAMBI_DEV_POOL_THREADS);
    if (hb > CAMBI_DEV_POOL_BLOCKS) hb = CAMBI_DEV_POOL_BLOCKS;
    const VmafGpuLaunch grid = { .grid = { hb, 1, 1 }, .block = { CAMBI_DEV_POOL_THREADS, 1, 1 } };
    const VmafGpuLaunch block = { .grid = { 1, 1, 1 }, .block = { CAMBI_DEV_POOL_THREADS, 1, 1 } };
    const VmafGpuLaunch single = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
    int err = 0;
    for (unsigned level = 0; !err && level < 3; level++) {
        pa.level = level;
        err = vmaf_gpu_rec_kernel(rec, t->fn[K_HIST], grid, &pa, sizeof(pa), "cambi pool hist");
        if (!err)
            err = vmaf_gpu_rec_kernel(rec, t->fn[K_SELECT], block, &pa, sizeof(pa),
                                      "cambi pool select");
    }
    if (!err)
        err = vmaf_gpu_rec_kernel(rec, t->fn[K_SUM], grid, &pa, sizeof(pa), "cambi pool sum");
    if (!err)
        err = vmaf_gpu_rec_kernel(rec, t->fn[K_FINISH], single, &pa, sizeof(pa),
                                  "cambi pool finish");
    return err;
}

static int record_picture(CambiTwin *t, VmafGpuRecorder *rec, const VmafGpuPicture *pic,
                          unsigned p, unsigned slot)
{
    const CambiPicPlan *pl = &t->pic[p];
    const VmafGpuPtr work = t->work + slot * t->work_bytes;
    const VmafGpuPtr img[2] = { work + t->off_img[0], work + t->off_img[1] };
    const VmafGpuPtr mask[2] = { work + t->off_mask[0], work + t->off_mask[1] };
    const VmafGpuPtr flat = work + t->off_flat, keys = work + t->off_keys;
    const VmafGpuPtr cv = c_values_at(t, slot, p);
    const size_t n0 = (size_t)pl->w * pl->h;
    const VmafGpuLaunch px = { .grid = { blocks_for(n0, CAMBI_DEV_THREADS), 1, 1 },
                                .block = { CAMBI_DEV_THREADS, 1, 1 } };

    const CambiPreArgs pre = { .luma = pic->data[0], .stride = pic->stride[0],
                               .pos_x = pl->pos, .pos_y = pl->pos + pl->w * sizeof(unsigned),
                               .image = img[0], .bpc = t->bpc, .out_w = pl->w, .out_h = pl->h,
                               .anti_dither = t->anti_dither };
    int err = vmaf_gpu_rec_kernel(rec, t->fn[K_PRE], px, &pre, sizeof(pre), "cambi preprocess");
    const CambiFlatArgs fa = { .image = img[0], .flat = flat, .mask = mask[0], .w = pl->w,
                               .h = pl->h, .threshold = pl->threshold };
    if (!err) err = vmaf_gpu_rec_kernel(rec, t->fn[K_FLAT], px, &fa, sizeof(fa), "cambi flat");
    if (!err) err = vmaf_gpu_rec_kernel(rec, t->fn[K_MASK], px, &fa, sizeof(fa), "cambi mask");

    /* the levels alternate between the two image/mask buffers */
    unsigned cur = 0, src_w = pl->w;
    for (unsigned k = 0; !err && k < SCALES; k++) {
        const unsigned w = pl->sw[k], h = pl->sh[k];
        const size_t n = (size_t)w * h;
        const VmafGpuLaunch spx = { .grid = { blocks_for(n, CAMBI_DEV_THREADS), 1, 1 },
                                     .block = { CAMBI_DEV_THREADS, 1, 1 } };
        const CambiScaleArgs args = { .src_image = img[cur], .src_mask = mask[cur],
                                      .image = img[cur ^ 1], .mask = mask[cur ^ 1],
                                      .keys = keys, .src_w = src_w, .w = w, .h = h,
                                      .step = pl->step[k], .base = t->band_base,
                                      .size = t->band_size };
        err = vmaf_gpu_rec_kernel(rec, t->fn[K_SCALE], spx, &args, sizeof(args),
                                  scale_labels[k]);
        cur ^= 1;
        src_w = w;

        const CambiCvArgs ca = { .keys = keys, .diffs = t->diffs, .recip = t->recip,
                                 .c_values = cv + pl->cv_off[k] * 4, .w = w, .h = h,
                                 .pad = pl->window >> 1 };
        const VmafGpuLaunch cl = { .grid = { blocks_for(w, CAMBI_DEV_TW),
                                              blocks_for(h, CAMBI_DEV_SEG), 1 },
                                    .block = { CAMBI_DEV_CV_THREADS, 1, 1 } };
        if (!err)
            err = vmaf_gpu_rec_kernel(rec, t->fn[K_CV], cl, &ca, sizeof(ca), cv_labels[k]);
        const size_t idx = ((size_t)slot * t->n_pics + p) * SCALES + k;
        if (!err) err = record_pool(t, rec, ca.c_values, n, (unsigned)pl->k[k], idx);
    }
    return err;
}

static int cambi_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                             const VmafGpuSlotView *view)
{
    (void)cpu_priv;
    CambiTwin *t = priv;
    const size_t per_slot = (size_t)t->n_pics * SCALES;
    const size_t first = (size_t)view->slot * per_slot;
    int err = vmaf_gpu_rec_memset(rec, t->pools + first * sizeof(CambiDevPool),
                                  per_slot * sizeof(CambiDevPool), "cambi clear");
    if (!err) err = record_picture(t, rec, view->dist, 0, view->slot);
    if (!err && t->n_pics == 2) err = record_picture(t, rec, view->ref, 1, view->slot);
    if (!err)
        err = vmaf_gpu_rec_download(rec, t->host + first,
                                    t->results + first * sizeof(CambiDevResult),
                                    per_slot * sizeof(CambiDevResult), "cambi download");
    return err;
}

/* The CPU's pooling of one scale's c-values, downloaded (the fallback, see the top). */
static int pool_on_host(CambiTwin *t, VmafGpuDevice *dev, unsigned slot, unsigned p, unsigned k,
                        double *mean)
{
    const CambiPicPlan *pl = &t->pic[p];
    const size_t n = (size_t)pl->sw[k] * pl->sh[k];
    float *c = malloc(n * sizeof(float));
    if (!c) return -ENOMEM;
    const VmafGpuPtr src = c_values_at(t, slot, p) + pl->cv_off[k] * 4;
    int err = vmaf_gpu_read(dev, c, src, n * sizeof(float));
    if (!err) *mean = vmaf_cambi_spatial_pooling(c, t->topk, (unsigned)n);
    free(c);
    return err;
}

static int picture_score(CambiTwin *t, VmafGpuDevice *dev, unsigned slot, unsigned p, double *score)
{
    const CambiPicPlan *pl = &t->pic[p];
    const CambiDevResult *r = t->host + ((size_t)slot * t->n_pics + p) * SCALES;
    double per_scale[SCALES];
    for (unsigned k = 0; k < SCALES; k++) {
        /* below 2^53 units every partial sum of the top k is exact in a double, in any
         * order: the CPU's quickselect order gives these bits too (the CPU itself takes
         * that path whenever all its nonzero units reach 2^53) */
        if (!r[k].bad && r[k].topk_units < (1ull << 53)) {
            per_scale[k] = vmaf_cambi_units_mean(r[k].topk_units, pl->k[k]);
            continue;
        }
        const int err = pool_on_host(t, dev, slot, p, k, &per_scale[k]);
        if (err) return err;
    }
    *score = vmaf_cambi_combine(per_scale, pl->window);
    return 0;
}

static int cambi_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                              const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    CambiTwin *t = priv;
    const VmafCambiState *cs = cpu_priv;
    double dist, src;
    int err = picture_score(t, dev, slot, 0, &dist);
    if (!err && t->n_pics == 2) err = picture_score(t, dev, slot, 1, &src);
    if (err) return err;
    return vmaf_cambi_store(&cs->opt, dist, t->n_pics == 2 ? &src : NULL, frame->index, sink);
}

static void cambi_twin_close(void *priv, VmafGpuDevice *dev)
{
    CambiTwin *t = priv;
    for (int p = 0; p < 2; p++) vmaf_gpu_free(dev, t->pic[p].pos);
    vmaf_gpu_free(dev, t->diffs);
    vmaf_gpu_free(dev, t->recip);
    vmaf_gpu_free(dev, t->work);
    vmaf_gpu_free(dev, t->cvals);
    vmaf_gpu_free(dev, t->pools);
    vmaf_gpu_free(dev, t->results);
    vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_cambi = {
    .name = "cambi",
    .priv_size = sizeof(CambiTwin),
    .init = cambi_twin_init,
    .record = cambi_twin_record,
    .collect = cambi_twin_collect,
    .close = cambi_twin_close,
};
