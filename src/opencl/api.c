/* The public OpenCL entry points that touch a VmafContext. */
#include <errno.h>
#include <string.h>

#include "libvmaf/libvmaf_opencl.h"

#include "context.h"
#include "export.h"
#include "opencl/pool.h"
#include "opencl/state.h"

VMAF_EXPORT int vmaf_opencl_import_state(VmafContext *vmaf, VmafOpenCLState *state)
{
    if (!vmaf || !state) return -EINVAL;
    vmaf_opencl_state_ref(state);
    const int err = vmaf_context_import_device(vmaf, &vmaf_opencl_device_kind, state);
    if (err) vmaf_opencl_state_unref(state);
    return err;
}

/* Pool pictures in pinned host memory: a buffer the device maps into host memory
 * (CL_MEM_ALLOC_HOST_PTR), mapped for the picture's life; its cl_mem sits in the page before
 * the picture's bytes. */
#define PINNED_HEADER 4096

static int pinned_alloc(void *cookie, size_t size, void **buf)
{
    VmafOpenCLState *s = cookie;
    const VmafOpenCLApi *api = &s->api;
    *buf = NULL;
    cl_int res;
    cl_mem m = api->clCreateBuffer(s->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                   size + PINNED_HEADER, NULL, &res);
    int err = vmaf_opencl_result(res, "clCreateBuffer(picture)");
    if (err) return err;
    unsigned char *p = api->clEnqueueMapBuffer(s->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                               0, size + PINNED_HEADER, 0, NULL, NULL, &res);
    err = vmaf_opencl_result(res, "clEnqueueMapBuffer(picture)");
    if (err) {
        api->clReleaseMemObject(m);
        return err;
    }
    memcpy(p, &m, sizeof(m));
    memset(p + PINNED_HEADER, 0, size);
    *buf = p + PINNED_HEADER;
    return 0;
}

static void pinned_free(void *cookie, void *buf, size_t size)
{
    (void)size;
    VmafOpenCLState *s = cookie;
    const VmafOpenCLApi *api = &s->api;
    unsigned char *p = (unsigned char *)buf - PINNED_HEADER;
    cl_mem m;
    memcpy(&m, p, sizeof(m));
    vmaf_opencl_result(api->clEnqueueUnmapMemObject(s->queue, m, p, 0, NULL, NULL),
                       "clEnqueueUnmapMemObject(picture)");
    vmaf_opencl_result(api->clFinish(s->queue), "clFinish");
    api->clReleaseMemObject(m);
}

static void pool_state_unref(void *cookie)
{
    vmaf_opencl_state_unref(cookie);
}

void vmaf_opencl_pool_config(VmafOpenCLState *s, VmafPicturePoolConfig *pc)
{
    pc->alloc = pinned_alloc;
    pc->free = pinned_free;
    pc->alloc_zeroes = true;
    pc->cookie = s;
    pc->memory = VMAF_PICTURE_MEMORY_HOST;
}

VMAF_EXPORT int vmaf_opencl_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg)
{
    if (!vmaf || vmaf->pic_pool || vmaf->device_kind != &vmaf_opencl_device_kind) return -EINVAL;
    VmafOpenCLState *s = vmaf->device_state;
    VmafPicturePoolConfig pc = {
        .pic_cnt = cfg.pic_cnt,
        .pix_fmt = cfg.pic_params.pix_fmt,
        .bpc = cfg.pic_params.bpc,
        .w = cfg.pic_params.w,
        .h = cfg.pic_params.h,
        .release_cookie = pool_state_unref,
    };
    vmaf_opencl_pool_config(s, &pc);
    vmaf_opencl_state_ref(s);
    const int err = vmaf_picture_pool_init(&vmaf->pic_pool, pc);
    if (err && !vmaf->pic_pool) vmaf_opencl_state_unref(s);
    return err;
}
