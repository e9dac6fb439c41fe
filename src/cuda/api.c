/* The public CUDA entry points that touch a VmafContext. */
#include <errno.h>
#include <stdlib.h>

#include "libvmaf/libvmaf_cuda.h"

#include "context.h"
#include "cuda/state.h"
#include "export.h"
#include "log.h"

/* Pictures the device frame ring may hold (2 per slot), the history, and up to 18 frames a
 * reader keeps in flight (the CLI's pread workers). The pool allocates them on demand, so a
 * client that has few pictures out at a time allocates (and pins) few. */
#define CUDA_POOL_PICTURES 56

/* Pinned pictures a background thread keeps ready beyond demand (VMAF_CUDA_PIN_AHEAD=N; the
 * default 0 pins on demand in the fetch). Measured on an H200, 4K, default model, whole CLI:
 * N=16 took 453 ms for 1 frame and 713 ms for 120 (N=0: 382 and 770), since pinning costs
 * per byte (48 buffers, 358 ms) wherever it runs and the thread competes with start-up: off
 * by default until the pool pins fewer buffers. */
#define CUDA_PIN_AHEAD 0

static unsigned pin_ahead(void)
{
    const char *env = getenv("VMAF_CUDA_PIN_AHEAD");
    if (!env || !*env) return CUDA_PIN_AHEAD;
    char *end;
    const unsigned long n = strtoul(env, &end, 10);
    return *end || n > CUDA_POOL_PICTURES ? CUDA_PIN_AHEAD : (unsigned)n;
}

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
        vmaf_cuda_pool_config(vmaf->cuda_state, device, &pc.alloc, &pc.free, &pc.alloc_zeroes);
        pc.cookie = vmaf->cuda_state;
        pc.release_cookie = pool_state_unref;
        pc.memory = device ? VMAF_PICTURE_MEMORY_DEVICE : VMAF_PICTURE_MEMORY_HOST_PINNED;
        pc.alloc_ahead = device ? 0 : pin_ahead();
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
