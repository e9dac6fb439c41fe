/* speed_chroma and speed_temporal on the GPU: the whole per-image chain (conversion and
 * frame difference, prescale, filters, means, covariance, eigenvalues, QR solve, variances)
 * on the device (speed.cu); per image only the status, the 25 eigenvalues and the block
 * variances come back, and collect() finishes with the CPU's own code (entropies: log2 of
 * data, in double, as glibc computes it; the pair score; the stores) on the CPU engine. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"
#include "feature/speed.h"
#include "feature/speed_device.h"

_Static_assert((int)VMAF_SPEED_DEV_N == (int)VMAF_SPEED_BLOCK_ELEMS, "block size");
_Static_assert((int)VMAF_SPEED_DEV_DECIMATION == (int)VMAF_SPEED_DECIMATION, "decimation");
_Static_assert((int)VMAF_SPEED_DEV_MAX_SWEEPS == (int)VMAF_SPEED_EIGEN_MAX_ITERS, "sweep limit");
_Static_assert((int)SPEED_CUDA_MAX_FILTER == (int)VMAF_SPEED_MAX_FILTER, "filter room");
_Static_assert((int)SPEED_CUDA_RES_VAR >= (int)SPEED_CUDA_RES_EIGEN + (int)VMAF_SPEED_BLOCK_ELEMS, "layout");

enum { N_KERNELS = 7 };
static const char *const kernel_names[N_KERNELS] = {
    "vmaf_speed_image", "vmaf_speed_decimate", "vmaf_speed_local_mean", "vmaf_speed_means",
    "vmaf_speed_covariance", "vmaf_speed_decompose", "vmaf_speed_blocks",
};
enum { K_IMAGE, K_DECIMATE, K_LOCAL_MEAN, K_MEANS, K_COV, K_DECOMPOSE, K_BLOCKS };

typedef struct SpeedTwin {
    VmafGpuKernel kernel[N_KERNELS];
    unsigned qr_block;             /* SPEED_CUDA_QR_THREADS, or fewer (>= 32) where the device
                                    * takes fewer per group */
    SpeedCudaArgs base;            /* geometry and tables; per-frame fields set in record */
    unsigned n_images;
    bool temporal;
    VmafGpuPtr tables;            /* filters | rows | col_index | row_index | col_weight | row_weight */
    VmafGpuPtr image, down, centred, small, result; /* [slot][image][elems] */
    float *host;                   /* pinned [slot][image][result_elems] */
    bool debug;                    /* VMAF_SPEED_TWIN_DEBUG: also download the intermediates */
    const char *backend;           /* the device's name, for the debug lines */
    float *debug_small, *debug_centred; /* pinned [slot][image][small_elems / down_elems] */
} SpeedTwin;

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

static int upload(VmafGpuDevice *dev, VmafGpuPtr dst, const void *src, size_t bytes)
{
    if (!bytes) return 0;
    return vmaf_gpu_write(dev, dst, src, bytes);
}

static int speed_twin_init(SpeedTwin *t, const VmafSpeedEngine *e, VmafGpuTwinSetup *setup)
{
    VmafGpuDevice *dev = setup->dev;
    const VmafSpeedDims *d = &e->dims;
    const unsigned bpc = setup->geometry.bpc;
    SpeedCudaArgs *a = &t->base;
    a->wide = bpc > 8;
    a->sample_scale = (float)(1u << (bpc - 8));
    a->plane_w = d->plane_w;
    a->plane_h = d->plane_h;
    a->scaled_w = d->scaled_w;
    a->scaled_h = d->scaled_h;
    a->down_w = d->down_w;
    a->down_h = d->down_h;
    a->sub_w = d->sub_w;
    a->sub_h = d->sub_h;
    a->blocks_w = d->blocks_w;
    a->num_blocks = d->num_blocks;
    a->direct = e->direct;
    a->resample = d->resample;
    a->copy = d->resample ? e->scaler.copy : 0;
    a->method = d->resample ? (unsigned)e->scaler.method : 0;
    a->aa_width = e->aa_width;
    a->mean_width = e->mean_width;

    /* the rows the anti-aliasing filter reads, and the CPU scaler's tables (its own sin()) */
    unsigned n_rows = 0;
    if (!e->direct)
        for (unsigned y = 0; y < d->scaled_h; y++)
            n_rows += e->rows_needed[y] != 0;
    a->n_rows = n_rows;
    const bool tables = d->resample && !e->scaler.copy;
    const size_t taps = tables ? (size_t)e->scaler.taps : 0;
    const size_t filter_bytes = 2 * VMAF_SPEED_MAX_FILTER * sizeof(float);
    const size_t rows_bytes = round_up(n_rows * sizeof(int), 16);
    const size_t col_bytes = round_up(d->scaled_w * taps * sizeof(int), 16);
    const size_t row_bytes = round_up(d->scaled_h * taps * sizeof(int), 16);
    const size_t total = filter_bytes + rows_bytes + 2 * col_bytes + 2 * row_bytes;

    for (int k = 0; k < N_KERNELS; k++) {
        const int err = vmaf_gpu_kernel(dev, kernel_names[k], &t->kernel[k]);
        if (err) return err;
    }
    int err = vmaf_gpu_fit_block(dev, t->kernel[K_DECOMPOSE], SPEED_CUDA_QR_THREADS, 32,
                                 &t->qr_block);
    if (err) return err;
    err = vmaf_gpu_alloc(dev, total, &t->tables);
    if (err) return err;
    a->filters = t->tables;
    a->rows = a->filters + filter_bytes;
    a->col_index = a->rows + rows_bytes;
    a->row_index = a->col_index + col_bytes;
    a->col_weight = a->row_index + row_bytes;
    a->row_weight = a->col_weight + col_bytes;

    float filters[2 * VMAF_SPEED_MAX_FILTER] = { 0 };
    memcpy(filters, e->aa_filter, (size_t)e->aa_width * sizeof(float));
    memcpy(filters + VMAF_SPEED_MAX_FILTER, e->mean_filter, (size_t)e->mean_width * sizeof(float));
    err = upload(dev, a->filters, filters, sizeof(filters));
    if (!err && n_rows) {
        int *list = malloc(n_rows * sizeof(int));
        if (!list) return -ENOMEM;
        unsigned n = 0;
        for (unsigned y = 0; y < d->scaled_h; y++)
            if (e->rows_needed[y]) list[n++] = (int)y;
        err = upload(dev, a->rows, list, n_rows * sizeof(int));
        free(list);
    }
    if (!err && tables) {
        err = upload(dev, a->col_index, e->scaler.col_index, d->scaled_w * taps * sizeof(int));
        if (!err) err = upload(dev, a->row_index, e->scaler.row_index, d->scaled_h * taps * sizeof(int));
        if (!err)
            err = upload(dev, a->col_weight, e->scaler.col_weight, d->scaled_w * taps * sizeof(float));
        if (!err)
            err = upload(dev, a->row_weight, e->scaler.row_weight, d->scaled_h * taps * sizeof(float));
    }
    if (err) return err;

    const size_t images = (size_t)setup->n_slots * t->n_images;
    a->image_elems = e->direct ? 0 : (size_t)d->scaled_w * d->scaled_h;
    a->down_elems = round_up((size_t)d->down_w * d->down_h, 32);
    a->small_elems = SPEED_CUDA_SMALL_ELEMS;
    a->result_elems = round_up(SPEED_CUDA_RES_VAR + (size_t)d->num_blocks, 32);
    if (a->image_elems)
        err = vmaf_gpu_alloc(dev, images * a->image_elems * sizeof(float), &t->image);
    if (!err) err = vmaf_gpu_alloc(dev, images * a->down_elems * sizeof(float), &t->down);
    if (!err) err = vmaf_gpu_alloc(dev, images * a->down_elems * sizeof(float), &t->centred);
    if (!err) err = vmaf_gpu_alloc(dev, images * a->small_elems * sizeof(float), &t->small);
    if (!err) err = vmaf_gpu_alloc(dev, images * a->result_elems * sizeof(float), &t->result);
    if (!err)
        err = vmaf_gpu_host_alloc(dev, images * a->result_elems * sizeof(float), (void **)&t->host);
    t->debug = e->debug;
    t->backend = dev->ops->name;
    if (!err && t->debug)
        err = vmaf_gpu_host_alloc(dev, images * a->small_elems * sizeof(float),
                                  (void **)&t->debug_small);
    if (!err && t->debug)
        err = vmaf_gpu_host_alloc(dev, images * a->down_elems * sizeof(float),
                                  (void **)&t->debug_centred);
    return err;
}

static int speed_chroma_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    SpeedTwin *t = priv;
    const SpeedChromaState *s = cpu_priv; /* its init refused 4:0:0 and too small planes */
    setup->needs_chroma = true;
    t->n_images = 4;
    return speed_twin_init(t, &s->engine, setup);
}

static int speed_temporal_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    SpeedTwin *t = priv;
    const SpeedTemporalState *s = cpu_priv;
    t->temporal = true;
    t->n_images = 2;
    return speed_twin_init(t, &s->engine, setup);
}

static void set_image(SpeedCudaArgs *a, unsigned img, const VmafGpuPicture *pa,
                      const VmafGpuPicture *pb, unsigned plane)
{
    a->a[img] = pa->data[plane];
    a->a_stride[img] = pa->stride[plane];
    a->b[img] = pb ? pb->data[plane] : 0;
    a->b_stride[img] = pb ? pb->stride[plane] : 0;
}

static unsigned blocks_of(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

static int speed_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                             const VmafGpuSlotView *view)
{
    SpeedTwin *t = priv;
    SpeedCudaArgs a = t->base;
    const size_t images = (size_t)view->slot * t->n_images;
    if (t->temporal) {
        const SpeedTemporalState *s = cpu_priv;
        const VmafGpuPicture *dis_now = s->opt.use_ref_diff ? view->ref : view->dist;
        set_image(&a, 0, view->prev_ref, view->ref, 0);
        set_image(&a, 1, view->prev_dist, dis_now, 0);
    } else {
        for (unsigned c = 0; c < 2; c++) {
            set_image(&a, 2 * c, view->ref, NULL, c + 1);
            set_image(&a, 2 * c + 1, view->dist, NULL, c + 1);
        }
    }
    a.image = t->image + images * a.image_elems * sizeof(float);
    a.down = t->down + images * a.down_elems * sizeof(float);
    a.centred = t->centred + images * a.down_elems * sizeof(float);
    a.small = t->small + images * a.small_elems * sizeof(float);
    a.result = t->result + images * a.result_elems * sizeof(float);

    const unsigned z = t->n_images, T = SPEED_CUDA_THREADS;
    const size_t points = (size_t)a.down_w * a.down_h;
    const VmafGpuLaunch launches[N_KERNELS] = {
        [K_IMAGE] = { .grid = { blocks_of(a.scaled_w, T), a.n_rows, z }, .block = { T, 1, 1 } },
        [K_DECIMATE] = { .grid = { blocks_of(points, T), 1, z }, .block = { T, 1, 1 } },
        [K_LOCAL_MEAN] = { .grid = { blocks_of(points, T), 1, z }, .block = { T, 1, 1 } },
        [K_MEANS] = { .grid = { 1, 1, z }, .block = { 32, 1, 1 } },
        [K_COV] = { .grid = { blocks_of(VMAF_SPEED_DEV_PAIRS, T / 32), 1, z },
                    .block = { T, 1, 1 } },
        [K_DECOMPOSE] = { .grid = { 1, 2, z }, .block = { t->qr_block, 1, 1 } },
        [K_BLOCKS] = { .grid = { blocks_of(a.num_blocks, T), 1, z }, .block = { T, 1, 1 } },
    };
    static const char *const labels[N_KERNELS] = {
        "speed image", "speed decimate", "speed local mean", "speed means",
        "speed covariance", "speed eigen+qr", "speed blocks",
    };
    for (int k = a.direct ? K_DECIMATE : K_IMAGE; k < N_KERNELS; k++) {
        const int err = vmaf_gpu_rec_kernel(rec, t->kernel[k], launches[k], &a, sizeof(a),
                                            labels[k]);
        if (err) return err;
    }
    if (t->debug) {
        int err = vmaf_gpu_rec_download(rec, t->debug_small + images * a.small_elems, a.small,
                                        t->n_images * a.small_elems * sizeof(float),
                                        "speed debug download");
        if (!err)
            err = vmaf_gpu_rec_download(rec, t->debug_centred + images * a.down_elems,
                                        a.centred, t->n_images * a.down_elems * sizeof(float),
                                        "speed debug download");
        if (err) return err;
    }
    return vmaf_gpu_rec_download(rec, t->host + images * a.result_elems, a.result,
                                 t->n_images * a.result_elems * sizeof(float),
                                 "speed download");
}

/* One pair (images ref_img, dis_img of the slot) through the CPU's last steps. */
static int pair_score(const SpeedTwin *t, VmafSpeedEngine *e, unsigned slot, unsigned ref_img,
                      unsigned dis_img, float *score)
{
    const SpeedCudaArgs *a = &t->base;
    const size_t first = (size_t)slot * t->n_images;
    const float *res = t->host + first * a->result_elems;
    const size_t nb = e->dims.num_blocks;
    int singular[2];
    VmafSpeedResult *out[2] = { &e->ref, &e->dis };
    const unsigned img[2] = { ref_img, dis_img };
    for (int i = 0; i < 2; i++) {
        const float *r = res + img[i] * t->base.result_elems;
        singular[i] = r[SPEED_CUDA_RES_SINGULAR] != 0.0f;
        vmaf_speed_report(e, r[SPEED_CUDA_RES_STALLED] != 0.0f, singular[i]);
        memcpy(out[i]->variances, r + SPEED_CUDA_RES_VAR, nb * sizeof(float));
        vmaf_speed_entropies(e, r + SPEED_CUDA_RES_EIGEN, out[i]);
        if (t->debug) {
            const float *small = t->debug_small + (first + img[i]) * a->small_elems;
            vmaf_speed_debug_line(t->backend, e->who, e->debug_seq++,
                                  t->debug_centred + (first + img[i]) * a->down_elems,
                                  (size_t)a->down_w * a->down_h, small + SPEED_CUDA_SMALL_MEANS,
                                  small + SPEED_CUDA_SMALL_COV, r + SPEED_CUDA_RES_EIGEN,
                                  singular[i], r + SPEED_CUDA_RES_VAR, nb);
        }
    }
    return vmaf_speed_pair(e, singular[0], singular[1], score);
}

static int speed_chroma_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                                     const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    SpeedTwin *t = priv;
    SpeedChromaState *s = cpu_priv;
    float score[2];
    int singular[2];
    for (unsigned c = 0; c < 2; c++)
        singular[c] = pair_score(t, &s->engine, slot, 2 * c, 2 * c + 1, &score[c]);
    return vmaf_speed_chroma_store(s, score, singular, frame->index, sink);
}

static int speed_temporal_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev,
                                       unsigned slot, const VmafFeatureFrame *frame,
                                       VmafFeatureSink *sink)
{
    (void)dev;
    SpeedTwin *t = priv;
    SpeedTemporalState *s = cpu_priv; /* have_prev: the CPU's own flag, set as its extract does */
    double value = 0.0;
    if (frame->index != 0 && s->have_prev) {
        float score;
        pair_score(t, &s->engine, slot, 0, 1, &score);
        value = score;
    }
    s->have_prev = true;
    return vmaf_speed_temporal_store(value, frame->index, sink);
}

static void speed_twin_close(void *priv, VmafGpuDevice *dev)
{
    SpeedTwin *t = priv;
    vmaf_gpu_free(dev, t->tables);
    vmaf_gpu_free(dev, t->image);
    vmaf_gpu_free(dev, t->down);
    vmaf_gpu_free(dev, t->centred);
    vmaf_gpu_free(dev, t->small);
    vmaf_gpu_free(dev, t->result);
    vmaf_gpu_host_free(dev, t->host);
    vmaf_gpu_host_free(dev, t->debug_small);
    vmaf_gpu_host_free(dev, t->debug_centred);
}

const VmafGpuTwin vmaf_twin_speed_chroma = {
    .name = "speed_chroma",
    .priv_size = sizeof(SpeedTwin),
    .init = speed_chroma_twin_init,
    .record = speed_twin_record,
    .collect = speed_chroma_twin_collect,
    .close = speed_twin_close,
};

const VmafGpuTwin vmaf_twin_speed_temporal = {
    .name = "speed_temporal",
    .priv_size = sizeof(SpeedTwin),
    .init = speed_temporal_twin_init,
    .record = speed_twin_record,
    .collect = speed_temporal_twin_collect,
    .close = speed_twin_close,
};
