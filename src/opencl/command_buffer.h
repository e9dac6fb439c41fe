/*
 * cl_khr_command_buffer: a slot's frame work (kernels, clears, device-side copies) recorded
 * once and replayed per frame with one enqueue, where the device offers a version of the
 * extension whose entry points are called here with their signatures.
 *
 * The extension is provisional and its entry points changed between versions (Khronos's
 * OpenCL-Headers, CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION):
 *   0.9.0 to 0.9.4  clCommandFillBufferKHR and clCommandCopyBufferKHR take no properties;
 *   0.9.5 to 0.9.8  every command takes a properties list after its queue (NULL here).
 * clCreateCommandBufferKHR, clFinalizeCommandBufferKHR, clReleaseCommandBufferKHR,
 * clEnqueueCommandBufferKHR and clCommandNDRangeKernelKHR (whose properties type was renamed,
 * the same cl_properties) are the same in all of them. Any other version (a later 0.9.x, 1.0)
 * is not used: frames are then enqueued directly. The types are declared here, not taken
 * from the system's CL/cl_ext.h, whose version (if it has the extension at all) says nothing
 * of the driver's.
 */
#ifndef VMAF_OPENCL_COMMAND_BUFFER_H
#define VMAF_OPENCL_COMMAND_BUFFER_H

#include <stdbool.h>
#include <stddef.h>

#include "opencl/loader.h"

/* CL_MAKE_VERSION (OpenCL 3.0): major 10 bits, minor 10 bits, patch 12 bits */
#define VMAF_CL_MAKE_VERSION(major, minor, patch) \
    ((cl_uint)(((major) << 22) | ((minor) << 12) | (patch)))
#define VMAF_CL_VERSION_MAJOR(v) ((unsigned)((v) >> 22))
#define VMAF_CL_VERSION_MINOR(v) ((unsigned)(((v) >> 12) & 0x3ff))
#define VMAF_CL_VERSION_PATCH(v) ((unsigned)((v) & 0xfff))

/* the versions whose signatures are implemented, and the first with properties everywhere */
#define VMAF_CL_COMMAND_BUFFER_FIRST VMAF_CL_MAKE_VERSION(0, 9, 0)
#define VMAF_CL_COMMAND_BUFFER_PROPERTIES VMAF_CL_MAKE_VERSION(0, 9, 5)
#define VMAF_CL_COMMAND_BUFFER_LAST VMAF_CL_MAKE_VERSION(0, 9, 8)

typedef struct VmafClCommandBuffer *VmafClCommandBuffer; /* cl_command_buffer_khr */

/** The entry points of one device's extension, or version 0 (not used). */
typedef struct VmafOpenCLCommandBufferApi {
    cl_uint version; /* the device's, within FIRST..LAST; 0: command buffers are not used */
    void *create, *finalize, *release, *enqueue, *ndrange, *fill, *copy;
} VmafOpenCLCommandBufferApi;

/**
 * Whether the device offers command buffers this code can use: cl_khr_command_buffer in
 * its extensions, its version (CL_DEVICE_EXTENSIONS_WITH_VERSION) one of those above, no
 * queue properties required, every entry point found for the platform. *cb is filled, or
 * zeroed with why (a phrase: "no cl_khr_command_buffer", ...) saying why not. A failed
 * query of the version or the queue properties, or an entry point not found, only means no
 * command buffers; a failed query of the extension list is an error (a negative errno, logged),
 * as where the device is described.
 */
int vmaf_opencl_command_buffer_probe(const VmafOpenCLApi *api, cl_platform_id platform,
                                     cl_device_id device, VmafOpenCLCommandBufferApi *cb,
                                     char *why, size_t why_size);

/* Recording, replay and release; each returns the cl_int of the call (CL_SUCCESS). */
cl_int vmaf_opencl_command_buffer_create(const VmafOpenCLCommandBufferApi *cb,
                                         cl_command_queue queue, VmafClCommandBuffer *out);
cl_int vmaf_opencl_command_buffer_kernel(const VmafOpenCLCommandBufferApi *cb,
                                         VmafClCommandBuffer buf, cl_kernel kernel,
                                         const size_t global[3], const size_t local[3]);
cl_int vmaf_opencl_command_buffer_fill_zero(const VmafOpenCLCommandBufferApi *cb,
                                            VmafClCommandBuffer buf, cl_mem mem, size_t offset,
                                            size_t bytes);
cl_int vmaf_opencl_command_buffer_copy(const VmafOpenCLCommandBufferApi *cb,
                                       VmafClCommandBuffer buf, cl_mem src, cl_mem dst,
                                       size_t src_offset, size_t dst_offset, size_t bytes);
cl_int vmaf_opencl_command_buffer_finalize(const VmafOpenCLCommandBufferApi *cb,
                                           VmafClCommandBuffer buf);
/** On the queue it was recorded for, after the events of wait. */
cl_int vmaf_opencl_command_buffer_enqueue(const VmafOpenCLCommandBufferApi *cb,
                                          VmafClCommandBuffer buf, cl_uint n_wait,
                                          const cl_event *wait, cl_event *event);
void vmaf_opencl_command_buffer_release(const VmafOpenCLCommandBufferApi *cb,
                                        VmafClCommandBuffer buf);

#endif /* VMAF_OPENCL_COMMAND_BUFFER_H */
