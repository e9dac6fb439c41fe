/* Built without CUDA: the CUDA entry points exist and say so. */
#include <errno.h>

#include "libvmaf/libvmaf_cuda.h"

#include "cuda/backend.h"
#include "export.h"

VMAF_EXPORT int vmaf_cuda_state_init(VmafCudaState **s, VmafCudaConfiguration cfg)
{
    (void)s;
    (void)cfg;
    return -ENOSYS;
}

VMAF_EXPORT int vmaf_cuda_state_init_device(VmafCudaState **s, int device)
{
    if (!s || device < 0) return -EINVAL;
    *s = NULL;
    return -ENOSYS;
}

VMAF_EXPORT int vmaf_cuda_state_init_async(VmafCudaState **s, int device)
{
    return vmaf_cuda_state_init_device(s, device);
}

VMAF_EXPORT int vmaf_cuda_device_count(int *count)
{
    if (!count) return -EINVAL;
    *count = 0;
    return -ENOSYS;
}

VMAF_EXPORT int vmaf_cuda_import_state(VmafContext *v, VmafCudaState *s)
{
    (void)v;
    (void)s;
    return -ENOSYS;
}

VMAF_EXPORT int vmaf_cuda_state_free(VmafCudaState *s)
{
    (void)s;
    return -ENOSYS;
}

VMAF_EXPORT int vmaf_cuda_preallocate_pictures(VmafContext *v, VmafCudaPictureConfiguration c)
{
    (void)v;
    (void)c;
    return -ENOSYS;
}

VMAF_EXPORT int vmaf_cuda_fetch_preallocated_picture(VmafContext *v, VmafPicture *p)
{
    (void)v;
    (void)p;
    return -ENOSYS;
}

int vmaf_cuda_backend_create(VmafCudaBackend **b, VmafCudaState *s, const VmafFeatureGeometry *g,
                             VmafFeatureInstance **inst, unsigned n, unsigned sub,
                             VmafFeatureCollector *fc, VmafCudaRefGroup *group)
{
    (void)s, (void)g, (void)inst, (void)n, (void)sub, (void)fc, (void)group;
    *b = NULL;
    return 0;
}

int vmaf_cuda_ref_group_create(VmafCudaRefGroup **group, VmafCudaState *s)
{
    (void)group, (void)s;
    return -ENOSYS;
}

void vmaf_cuda_ref_group_ref(VmafCudaRefGroup *group)
{
    (void)group;
}

void vmaf_cuda_ref_group_unref(VmafCudaRefGroup *group)
{
    (void)group;
}

unsigned long long vmaf_cuda_ref_group_uploads(const VmafCudaRefGroup *group)
{
    (void)group;
    return 0;
}

int vmaf_cuda_backend_submit(VmafCudaBackend *b, const VmafPicture *r, const VmafPicture *d,
                             unsigned index)
{
    (void)b, (void)r, (void)d, (void)index;
    return -ENOSYS;
}

int vmaf_cuda_backend_flush(VmafCudaBackend *b)
{
    (void)b;
    return 0;
}

void vmaf_cuda_backend_destroy(VmafCudaBackend *b)
{
    (void)b;
}

void vmaf_cuda_backend_print_profile(const VmafCudaBackend *b)
{
    (void)b;
}

void vmaf_cuda_state_ref(VmafCudaState *s)
{
    (void)s;
}

void vmaf_cuda_state_unref(VmafCudaState *s)
{
    (void)s;
}

int vmaf_cuda_pool_config(VmafCudaState *s, int device, VmafPicturePoolConfig *pc)
{
    (void)s, (void)device, (void)pc;
    return -ENOSYS;
}
