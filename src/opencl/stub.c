/* Built without the OpenCL headers: the OpenCL entry points exist and say so. */
#include <errno.h>
#include <string.h>

#include "libvmaf/libvmaf_opencl.h"

#include "export.h"
#include "opencl/describe.h"
#include "opencl/pool.h"

VMAF_EXPORT int vmaf_opencl_device_count(int *count)
{
    if (!count) return -EINVAL;
    *count = 0;
    return -ENOSYS;
}

VMAF_EXPORT int vmaf_opencl_device_info(int index, VmafOpenCLDeviceInfo *info)
{
    if (!info || index < 0) return -EINVAL;
    memset(info, 0, sizeof(*info));
    return -ENOSYS;
}

VMAF_EXPORT int vmaf_opencl_state_init(VmafOpenCLState **s, VmafOpenCLConfiguration cfg)
{
    if (!s) return -EINVAL;
    *s = NULL;
    return cfg.device < 0 ? -EINVAL : -ENOSYS;
}

VMAF_EXPORT int vmaf_opencl_state_free(VmafOpenCLState *s)
{
    (void)s;
    return 0;
}

VMAF_EXPORT int vmaf_opencl_import_state(VmafContext *vmaf, VmafOpenCLState *s)
{
    return !vmaf || !s ? -EINVAL : -ENOSYS;
}

VMAF_EXPORT int vmaf_opencl_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg)
{
    (void)cfg;
    return !vmaf ? -EINVAL : -ENOSYS;
}

void vmaf_opencl_pool_config(VmafOpenCLState *s, VmafPicturePoolConfig *pc)
{
    (void)s;
    (void)pc; /* never reached: no state exists without OpenCL */
}

int vmaf_opencl_command_buffer_text(int index, char *text, size_t size)
{
    if (!text || !size || index < 0) return -EINVAL;
    *text = '\0';
    return -ENOSYS;
}

bool vmaf_opencl_command_buffer_wanted(void)
{
    return false;
}
