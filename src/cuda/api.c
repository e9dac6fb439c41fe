/* The public CUDA entry points that touch a VmafContext. */
#include <errno.h>
#include <stdlib.h>

#include "libvmaf/libvmaf_cuda.h"

#include "context.h"
#include "cuda/backend.h"
#include "cuda/state.h"
#include "export.h"
#include "log.h"

/* Pictures the device frame ring may hold (2 per slot), the history, and the frames a reader
 * keeps in flight. The pool allocates them on demand, so a client that has few pictures out at
 * a time allocates (and pins) few: pinned buffers are mappings that the first fill faults in
 * and vmaf_picture_prepare() then registers. */
#define CUDA_POOL_PICTURES 56

static int kind_create(VmafDeviceBackend **b, void *state, const VmafFeatureGeometry *g,
                       VmafFeatureInstance **inst, unsigned inst_cnt, unsigned n_subsample,
                       VmafFeatureCollector *fc, void *ref_group)
{
    return vmaf_cuda_backend_create((VmafCudaBackend **)b, state, g, inst, inst_cnt, n_subsample,
                                    fc, ref_group);
}

static int kind_ref_group_create(void **group, void *state)
{
    return vmaf_cuda_ref_group_create((VmafCudaRefGroup **)group, state);
}

static void kind_ref_group_ref(void *group)
{
    vmaf_cuda_ref_group_ref(group);
}

static void kind_ref_group_unref(void *group)
{
    vmaf_cuda_ref_group_unref(group);
}

static int kind_submit(VmafDeviceBackend *b, const VmafPicture *ref, const VmafPicture *dist,
                       unsigned index)
{
    return vmaf_cuda_backend_submit((VmafCudaBackend *)b, ref, dist, index);
}

static int kind_flush(VmafDeviceBackend *b)
{
    return vmaf_cuda_backend_flush((VmafCudaBackend *)b);
}

static void kind_destroy(VmafDeviceBackend *b)
{
    vmaf_cuda_backend_destroy((VmafCudaBackend *)b);
}

static void kind_print_profile(const VmafDeviceBackend *b)
{
    vmaf_cuda_backend_print_profile((const VmafCudaBackend *)b);
}

static void kind_unref_state(void *state)
{
    vmaf_cuda_state_unref(state);
}

const VmafDeviceKind vmaf_cuda_device_kind = {
    .name = "CUDA",
    .create = kind_create,
    .submit = kind_submit,
    .flush = kind_flush,
    .destroy = kind_destroy,
    .print_profile = kind_print_profile,
    .unref_state = kind_unref_state,
    .ref_group_create = kind_ref_group_create,
    .ref_group_ref = kind_ref_group_ref,
    .ref_group_unref = kind_ref_group_unref,
    .device_pictures = true,
};

/* the context's CUDA state, or NULL */
static VmafCudaState *cuda_state(const VmafContext *vmaf)
{
    return vmaf->device_kind == &vmaf_cuda_device_kind ? vmaf->device_state : NULL;
}

VMAF_EXPORT int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *state)
{
    if (!vmaf || !state) return -EINVAL;
    vmaf_cuda_state_ref(state);
    const int err = vmaf_context_import_device(vmaf, &vmaf_cuda_device_kind, state);
    if (err) vmaf_cuda_state_unref(state);
    return err;
}

static void pool_state_unref(void *cookie)
{
    vmaf_cuda_state_unref(cookie);
}

VMAF_EXPORT int vmaf_cuda_preallocate_pictures(VmafContext *vmaf, VmafCudaPictureConfiguration cfg)
{
    if (!vmaf || vmaf->pic_pool) return -EINVAL;
    VmafPicturePoolConfig pc = {
        .pic_cnt = CUDA_POOL_PICTURES + 2 * vmaf->cfg.n_threads,
        .pix_fmt = cfg.pic_params.pix_fmt,
        .bpc = cfg.pic_params.bpc,
        .w = cfg.pic_params.w,
        .h = cfg.pic_params.h,
    };
    switch (cfg.pic_prealloc_method) {
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE:
        return 0;
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST:
        return vmaf_picture_pool_init(&vmaf->pic_pool, pc);
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED:
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE: {
        VmafCudaState *state = cuda_state(vmaf);
        if (!state) {
            vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                     "cuda: picture preallocation needs an imported CUDA state\n");
            return -EINVAL;
        }
        const int device = cfg.pic_prealloc_method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
        vmaf_cuda_pool_config(state, device, &pc);
        pc.cookie = state;
        pc.release_cookie = pool_state_unref;
        pc.memory = device ? VMAF_PICTURE_MEMORY_DEVICE : VMAF_PICTURE_MEMORY_HOST_PINNED;
        vmaf_cuda_state_ref(state);
        int err = vmaf_picture_pool_init(&vmaf->pic_pool, pc);
        if (err && !vmaf->pic_pool) vmaf_cuda_state_unref(state);
        return err;
    }
    default:
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "cuda: unknown picture preallocation method %d\n", cfg.pic_prealloc_method);
        return -EINVAL;
    }
}

VMAF_EXPORT int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    if (!vmaf || !pic || !vmaf->pic_pool) return -EINVAL;
    return vmaf_picture_pool_fetch(vmaf->pic_pool, pic);
}
