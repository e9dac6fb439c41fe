/* The public CUDA entry points that touch a VmafContext. */
#include <errno.h>
#include <stdlib.h>

#include "libvmaf/libvmaf_cuda.h"

#include "context.h"
#include "cuda/state.h"
#include "export.h"
#include "log.h"

/* Pictures the device frame ring may hold (2 per slot), the history, and the frames a reader
 * keeps in flight. The pool allocates them on demand, so a client that has few pictures out at
 * a time allocates (and pins) few: pinned buffers are mappings that the first fill faults in
 * and vmaf_picture_prepare() then registers. */
#define CUDA_POOL_PICTURES 56

VMAF_EXPORT int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *state)
{
    if (!vmaf || !state) return -EINVAL;
    if (vmaf->geometry.set || vmaf->cuda_state) return -EINVAL;
    vmaf_cuda_state_ref(state);
    vmaf->cuda_state = state;
    return 0;
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
        if (!vmaf->cuda_state) {
            vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                     "cuda: picture preallocation needs an imported CUDA state\n");
            return -EINVAL;
        }
        const int device = cfg.pic_prealloc_method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
        vmaf_cuda_pool_config(vmaf->cuda_state, device, &pc);
        pc.cookie = vmaf->cuda_state;
        pc.release_cookie = pool_state_unref;
        pc.memory = device ? VMAF_PICTURE_MEMORY_DEVICE : VMAF_PICTURE_MEMORY_HOST_PINNED;
        vmaf_cuda_state_ref(vmaf->cuda_state);
        int err = vmaf_picture_pool_init(&vmaf->pic_pool, pc);
        if (err && !vmaf->pic_pool) vmaf_cuda_state_unref(vmaf->cuda_state);
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
