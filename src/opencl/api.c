/* The public OpenCL entry points that touch a VmafContext. */
#include <errno.h>

#include "libvmaf/libvmaf_opencl.h"

#include "context.h"
#include "export.h"
#include "opencl/state.h"

VMAF_EXPORT int vmaf_opencl_import_state(VmafContext *vmaf, VmafOpenCLState *state)
{
    if (!vmaf || !state) return -EINVAL;
    vmaf_opencl_state_ref(state);
    const int err = vmaf_context_import_device(vmaf, &vmaf_opencl_device_kind, state);
    if (err) vmaf_opencl_state_unref(state);
    return err;
}
