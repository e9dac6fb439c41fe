/* vif (integer) on the GPU: the four scales' statistics and the subsampling on the device
 * (vif.cu, arithmetic in vif_device.h), the per-scale int64 sums added up there and
 * downloaded (128 bytes a frame); the scores come from vif.c's vmaf_vif_store(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"
#include "feature/vif.h"
#include "feature/vif_device.h"

/* the recorder copies at most 256 bytes of kernel arguments */

typedef struct VifTwin {
    VmafGpuKernel scale_kernel[VMAF_VIF_SCALES];
    VmafGpuPtr log2_table;
    VmafGpuPtr images;   /* [slot] plan.image_bytes (+16) */
    VmafGpuPtr sums;     /* [slot] VmafVifSums[4] */
    VmafVifSums *host;    /* pinned [slot][4] */
    VifDevPlan plan;
    unsigned bpc;
} VifTwin;

/* A slot's images, at least 16 bytes so that slots never share an address. */
static size_t slot_image_bytes(const VifTwin *t)
{
    return t->plan.image_bytes + 16;
}

static int vif_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    (void)cpu_priv; /* the CPU init already refused what it cannot score */
    VifTwin *t = priv;
    VmafGpuDevice *dev = setup->dev;
    const VmafFeatureGeometry *g = &setup->geometry;
    t->bpc = g->bpc;
    vif_dev_plan(&t->plan, g->w, g->h);
    int err = 0;
    for (int k = 0; !err && k < VMAF_VIF_SCALES; k++)
        err = vmaf_gpu_kernel(dev, vif_dev_kernel_name(k, g->bpc), &t->scale_kernel[k]);

    /* the CPU's log2 table, packed (vif_device.h); the upload reads the packed copy */
    const size_t table_bytes = VMAF_VIF_LOG2_TABLE_LEN * sizeof(uint16_t);
    const size_t packed_bytes = VIF_DEV_LOG2_PACKED_LEN * sizeof(uint16_t);
    uint16_t *table = err ? NULL : malloc(table_bytes + packed_bytes);
    uint16_t *packed = table ? table + VMAF_VIF_LOG2_TABLE_LEN : NULL;
    if (!err && !table) err = -ENOMEM;
    if (!err) {
        vmaf_vif_log2_table_fill(table);
        err = vif_dev_log2_pack(table, packed);
    }
    if (!err) err = vmaf_gpu_alloc(dev, packed_bytes, &t->log2_table);
    if (!err)
        err = vmaf_gpu_write(dev, t->log2_table, packed, packed_bytes);
    if (!err) err = vmaf_gpu_alloc(dev, setup->n_slots * slot_image_bytes(t), &t->images);
    const size_t sums = VMAF_VIF_SCALES * sizeof(VmafVifSums);
    if (!err) err = vmaf_gpu_alloc(dev, setup->n_slots * sums, &t->sums);
    if (!err) err = vmaf_gpu_host_alloc(dev, setup->n_slots * sums, (void **)&t->host);
    free(table);
    return err;
}

static int vif_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                           const VmafGpuSlotView *view)
{
    VifTwin *t = priv;
    const VifState *st = cpu_priv;
    const VifDevPlan *p = &t->plan;
    const VmafGpuPtr images = t->images + view->slot * slot_image_bytes(t);
    const size_t sums_bytes = VMAF_VIF_SCALES * sizeof(VmafVifSums);
    const VmafGpuPtr sums = t->sums + view->slot * sums_bytes;
    static const char *const labels[VMAF_VIF_SCALES] = { "vif scale 0", "vif scale 1",
                                                         "vif scale 2", "vif scale 3" };
    /* empty or skipped scales keep these zeros */
    int err = vmaf_gpu_rec_memset(rec, sums, sums_bytes, "vif clear");
    /* the scales in order: each kernel writes the next scale's images */
    for (int k = 0; !err && k < VMAF_VIF_SCALES && p->w[k]; k++) {
        VifCudaArgs a;
        if (!vif_dev_scale_args(&a, p, k, t->bpc, &st->opt, view->ref->data[0],
                                view->dist->data[0], view->ref->stride[0], images, sums,
                                t->log2_table))
            continue;
        const VmafGpuLaunch launch = { .grid = { p->grid_x[k], p->grid_y[k], 1 },
                                        .block = { VIF_CUDA_THREADS, 1, 1 } };
        err = vmaf_gpu_rec_kernel(rec, t->scale_kernel[k], launch, &a, sizeof(a), labels[k]);
    }
    if (!err)
        err = vmaf_gpu_rec_download(rec, t->host + VMAF_VIF_SCALES * view->slot, sums,
                                    sums_bytes, "vif download");
    return err;
}

static int vif_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                            const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    VifTwin *t = priv;
    const VifState *st = cpu_priv;
    return vmaf_vif_store(&st->opt, t->host + VMAF_VIF_SCALES * slot, frame->index, sink);
}

static void vif_twin_close(void *priv, VmafGpuDevice *dev)
{
    VifTwin *t = priv;
    vmaf_gpu_free(dev, t->log2_table);
    vmaf_gpu_free(dev, t->images);
    vmaf_gpu_free(dev, t->sums);
    vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_vif = {
    .name = "vif",
    .priv_size = sizeof(VifTwin),
    .init = vif_twin_init,
    .record = vif_twin_record,
    .collect = vif_twin_collect,
    .close = vif_twin_close,
};
