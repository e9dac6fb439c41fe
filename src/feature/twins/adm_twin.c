/* adm (integer) on the GPU: the stages of vmaf_adm_score() as the launches of adm_plan.c on a
 * per-slot copy of the CPU's band block; the integer totals come back and adm.c finishes them
 * (vmaf_adm_scores_from_totals) and stores the scores (vmaf_adm_store). */
#include <errno.h>
#include <string.h>

#include "feature/adm.h"
#include "feature/adm_plan.h"
#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"

typedef struct AdmTwin {
    VmafGpuKernel fn[VMAF_ADM_OP_DEN123 + 1][2]; /* [kind][wide] */
    unsigned n_slots;
    VmafGpuPtr block, temp, last[3], totals; /* each [slot] */
    size_t block_bytes, temp_bytes, last_bytes[3];
    VmafAdmTotals *host;                      /* pinned [slot] */
} AdmTwin;

static const char *const kernel_names[VMAF_ADM_OP_DEN123 + 1][2] = {
    [VMAF_ADM_OP_DWT0] = { "vmaf_adm_dwt0_8", "vmaf_adm_dwt0_16" },
    [VMAF_ADM_OP_DWT123] = { "vmaf_adm_dwt123", "vmaf_adm_dwt123" },
    [VMAF_ADM_OP_COPY] = { "vmaf_adm_copy", "vmaf_adm_copy" },
    [VMAF_ADM_OP_DECOUPLE0] = { "vmaf_adm_decouple0", "vmaf_adm_decouple0" },
    [VMAF_ADM_OP_DECOUPLE123] = { "vmaf_adm_decouple123", "vmaf_adm_decouple123" },
    [VMAF_ADM_OP_CSF0] = { "vmaf_adm_csf0", "vmaf_adm_csf0" },
    [VMAF_ADM_OP_CSF123] = { "vmaf_adm_csf123", "vmaf_adm_csf123" },
    [VMAF_ADM_OP_CM0] = { "vmaf_adm_cm0", "vmaf_adm_cm0" },
    [VMAF_ADM_OP_CM123] = { "vmaf_adm_cm123", "vmaf_adm_cm123" },
    [VMAF_ADM_OP_DEN0] = { "vmaf_adm_den0", "vmaf_adm_den0" },
    [VMAF_ADM_OP_DEN123] = { "vmaf_adm_den123", "vmaf_adm_den123" },
};

static size_t args_size(int kind)
{
    switch (kind) {
    case VMAF_ADM_OP_DWT0: return sizeof(AdmDwt0CudaArgs);
    case VMAF_ADM_OP_DWT123: return sizeof(AdmDwt123CudaArgs);
    case VMAF_ADM_OP_COPY: return sizeof(AdmCopyCudaArgs);
    case VMAF_ADM_OP_DECOUPLE0:
    case VMAF_ADM_OP_DECOUPLE123: return sizeof(AdmDecoupleCudaArgs);
    case VMAF_ADM_OP_CSF0:
    case VMAF_ADM_OP_CSF123: return sizeof(AdmCsfCudaArgs);
    case VMAF_ADM_OP_CM0:
    case VMAF_ADM_OP_CM123: return sizeof(AdmCmCudaArgs);
    default: return sizeof(AdmDenCudaArgs);
    }
}

static int adm_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    AdmTwin *t = priv;
    const VmafAdmState *cpu = cpu_priv;
    VmafGpuDevice *dev = setup->dev;
    VmafAdmLayout l;
    int err = vmaf_adm_layout_compact(cpu->w, cpu->h, &l);
    if (err)
        return err;
    t->n_slots = setup->n_slots;
    t->block_bytes = l.block_bytes;
    t->temp_bytes = vmaf_adm_temp_bytes(cpu->w, cpu->h);
    for (unsigned sc = 1; sc < 3; sc++)
        t->last_bytes[sc] = vmaf_adm_last_bytes(cpu->w, sc);
    for (int k = VMAF_ADM_OP_DWT0; !err && k <= VMAF_ADM_OP_DEN123; k++)
        for (int wide = 0; !err && wide < 2; wide++)
            err = vmaf_gpu_kernel(dev, kernel_names[k][wide], &t->fn[k][wide]);
    const size_t n = t->n_slots;
    if (!err) err = vmaf_gpu_alloc(dev, n * t->block_bytes, &t->block);
    if (!err) err = vmaf_gpu_alloc(dev, n * t->temp_bytes, &t->temp);
    for (unsigned sc = 1; !err && sc < 3; sc++)
        err = vmaf_gpu_alloc(dev, n * t->last_bytes[sc], &t->last[sc]);
    if (!err) err = vmaf_gpu_alloc(dev, n * sizeof(VmafAdmTotals), &t->totals);
    if (!err) err = vmaf_gpu_host_alloc(dev, n * sizeof(VmafAdmTotals), (void **)&t->host);
    /* the CPU's buffers start zeroed; so do the slots' blocks */
    if (!err)
        err = vmaf_gpu_clear(dev, t->block, n * t->block_bytes);
    return err;
}

static int adm_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                           const VmafGpuSlotView *view)
{
    AdmTwin *t = priv;
    const VmafAdmState *cpu = cpu_priv;
    const unsigned slot = view->slot;
    VmafAdmDeviceBuffers b = {
        .block = t->block + slot * t->block_bytes,
        .temp = t->temp + slot * t->temp_bytes,
        .last = { 0, t->last[1] + slot * t->last_bytes[1], t->last[2] + slot * t->last_bytes[2] },
        .totals = t->totals + slot * sizeof(VmafAdmTotals),
    };
    VmafAdmOp ops[VMAF_ADM_MAX_OPS];
    const int n = vmaf_adm_plan(cpu, &b, view->ref->data[0], view->ref->stride[0],
                                view->dist->data[0], view->dist->stride[0], ops);
    if (n < 0)
        return n;
    int err = 0;
    for (int i = 0; !err && i < n; i++) {
        const VmafAdmOp *op = &ops[i];
        if (op->kind == VMAF_ADM_OP_CLEAR) {
            err = vmaf_gpu_rec_memset(rec, op->clear_dst, op->clear_bytes, op->label);
            continue;
        }
        const VmafGpuLaunch launch = {
            .grid = { op->grid[0], op->grid[1], op->grid[2] },
            .block = { op->block[0], op->block[1], op->block[2] },
        };
        err = vmaf_gpu_rec_kernel(rec, t->fn[op->kind][op->wide], launch, &op->a,
                                  args_size(op->kind), op->label);
    }
    if (!err)
        err = vmaf_gpu_rec_download(rec, t->host + slot, b.totals, sizeof(VmafAdmTotals),
                                    "adm download");
    return err;
}

static int adm_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                            const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    AdmTwin *t = priv;
    const VmafAdmState *cpu = cpu_priv;
    VmafAdmScores sc;
    vmaf_adm_scores_from_totals(&cpu->opt, cpu->factors, cpu->w, cpu->h, t->host + slot, &sc);
    return vmaf_adm_store(cpu, &sc, frame->index, sink);
}

static void adm_twin_close(void *priv, VmafGpuDevice *dev)
{
    AdmTwin *t = priv;
    vmaf_gpu_free(dev, t->block);
    vmaf_gpu_free(dev, t->temp);
    vmaf_gpu_free(dev, t->last[1]);
    vmaf_gpu_free(dev, t->last[2]);
    vmaf_gpu_free(dev, t->totals);
    if (t->host) vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_adm = {
    .name = "adm",
    .priv_size = sizeof(AdmTwin),
    .init = adm_twin_init,
    .record = adm_twin_record,
    .collect = adm_twin_collect,
    .close = adm_twin_close,
};
