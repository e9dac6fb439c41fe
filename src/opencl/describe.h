/* What --opencl_list says of a device beyond its public description (VmafOpenCLDeviceInfo);
 * without the OpenCL headers too (stub.c). */
#ifndef VMAF_OPENCL_DESCRIBE_H
#define VMAF_OPENCL_DESCRIBE_H

#include <stdbool.h>
#include <stddef.h>

/**
 * Whether the backend replays command buffers on device index (cl_khr_command_buffer) as a
 * phrase: "command buffers used (cl_khr_command_buffer 0.9.0)", "command buffers not used
 * (no cl_khr_command_buffer)", "command buffers off (...; VMAF_OPENCL_COMMAND_BUFFER=0)".
 * 0; -EINVAL, -ENODEV (no loader, or fewer devices), -ENOSYS (built without OpenCL).
 */
int vmaf_opencl_command_buffer_text(int index, char *text, size_t size);

/** Not VMAF_OPENCL_COMMAND_BUFFER=0 (read when a backend is made). */
bool vmaf_opencl_command_buffer_wanted(void);

#endif /* VMAF_OPENCL_DESCRIBE_H */
