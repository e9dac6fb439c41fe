/* Pool pictures in an OpenCL device's pinned host memory (for pools outside a context). */
#ifndef VMAF_OPENCL_POOL_H
#define VMAF_OPENCL_POOL_H

#include "libvmaf/libvmaf_opencl.h"

#include "picture_pool.h"

/** Set pc's alloc, free, alloc_zeroes, cookie (the state, not referenced) and memory. */
void vmaf_opencl_pool_config(VmafOpenCLState *s, VmafPicturePoolConfig *pc);

#endif /* VMAF_OPENCL_POOL_H */
