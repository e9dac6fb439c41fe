/* motion and motion_v2 on the GPU: the SAD on the device, scores and flush from motion.c. */
#include <errno.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "gpu/twin.h"
#include "feature/motion.h"

typedef struct MotionTwin {
    VmafGpuKernel kernel;
    VmafGpuPtr sad;          /* [slot] */
    unsigned long long *host; /* pinned [slot] */
    const MotionNames *names;
} MotionTwin;

static int motion_twin_init_common(MotionTwin *t, VmafGpuTwinSetup *setup,
                                   const MotionNames *names)
{
    const VmafFeatureGeometry *g = &setup->geometry;
    t->names = names;
    const char *kernel = g->bpc == 8   ? "vmaf_motion_sad_8"
                         : g->bpc < 16 ? "vmaf_motion_sad_16"
                                       : "vmaf_motion_sad_16_wide";
    int err = vmaf_gpu_kernel(setup->dev, kernel, &t->kernel);
    if (!err) err = vmaf_gpu_alloc(setup->dev, setup->n_slots * sizeof(*t->host), &t->sad);
    if (!err)
        err = vmaf_gpu_host_alloc(setup->dev, setup->n_slots * sizeof(*t->host),
                                  (void **)&t->host);
    return err;
}

static int motion_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    (void)cpu_priv;
    return motion_twin_init_common(priv, setup, &vmaf_motion_names_v1);
}

static int motion_v2_twin_init(void *priv, const void *cpu_priv, VmafGpuTwinSetup *setup)
{
    (void)cpu_priv;
    return motion_twin_init_common(priv, setup, &vmaf_motion_names_v2);
}

static int motion_twin_record(void *priv, const void *cpu_priv, VmafGpuRecorder *rec,
                              const VmafGpuSlotView *view)
{
    MotionTwin *t = priv;
    const MotionState *s = cpu_priv;
    if (s->opt.force_zero) return 0;
    const VmafGpuPicture *prev = s->opt.five_frame_window ? view->prev_prev_ref : view->prev_ref;
    const VmafGpuPtr sad = t->sad + view->slot * sizeof(*t->host);
    const MotionCudaArgs a = {
        .prev = prev->data[0], .cur = view->ref->data[0], .stride = view->ref->stride[0],
        .w = view->ref->w[0], .h = view->ref->h[0], .bpc = view->ref->bpc, .sad = sad,
    };
    const unsigned strips = (a.w + MOTION_CUDA_STRIP - 1) / MOTION_CUDA_STRIP;
    const VmafGpuLaunch launch = {
        .grid = { (strips + MOTION_CUDA_THREADS / 32 - 1) / (MOTION_CUDA_THREADS / 32),
                  (a.h + MOTION_CUDA_ROWS - 1) / MOTION_CUDA_ROWS, 1 },
        .block = { MOTION_CUDA_THREADS, 1, 1 },
    };
    int err = vmaf_gpu_rec_memset(rec, sad, sizeof(*t->host), "motion clear");
    if (!err) err = vmaf_gpu_rec_kernel(rec, t->kernel, launch, &a, sizeof(a), "motion sad");
    if (!err)
        err = vmaf_gpu_rec_download(rec, t->host + view->slot, sad, sizeof(*t->host),
                                    "motion download");
    return err;
}

static int motion_twin_collect(void *priv, void *cpu_priv, VmafGpuDevice *dev, unsigned slot,
                               const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    (void)dev;
    MotionTwin *t = priv;
    const MotionState *s = cpu_priv;
    /* frames before the window's reach score 0: their device SAD compared stale slots */
    const uint64_t sad = vmaf_motion_needs_sad(s, frame->index) ? t->host[slot] : 0;
    return vmaf_motion_store(s, t->names, sad, frame->index, sink);
}

static void motion_twin_close(void *priv, VmafGpuDevice *dev)
{
    MotionTwin *t = priv;
    vmaf_gpu_free(dev, t->sad);
    vmaf_gpu_host_free(dev, t->host);
}

const VmafGpuTwin vmaf_twin_motion = {
    .name = "motion",
    .priv_size = sizeof(MotionTwin),
    .init = motion_twin_init,
    .record = motion_twin_record,
    .collect = motion_twin_collect,
    .close = motion_twin_close,
};

const VmafGpuTwin vmaf_twin_motion_v2 = {
    .name = "motion_v2",
    .priv_size = sizeof(MotionTwin),
    .init = motion_v2_twin_init,
    .record = motion_twin_record,
    .collect = motion_twin_collect,
    .close = motion_twin_close,
};
