#include <errno.h>

#include "log.h"
#include "opencl/selftest.h"

extern const unsigned char vmaf_opencl_cl_selftest[]; /* selftest.cl, embedded by CMake */

const VmafOpenCLSource vmaf_opencl_selftest_source = {
    .name = "selftest.cl",
    .text = (const char *)vmaf_opencl_cl_selftest,
};

int vmaf_opencl_selftest(VmafOpenCLState *s, int kind, const void *a, const void *b,
                         const void *c, void *quotient, void *root, void *mad, size_t n)
{
    static const char *const kernel[] = { "selftest_f32", "selftest_f64", "selftest_fdiv" };
    if (!s || !a || !b || !c || !quotient || !root || !mad || !n || n > 0xffffffffu ||
        kind < VMAF_OPENCL_SELFTEST_FLOAT || kind > VMAF_OPENCL_SELFTEST_FDIV)
        return -EINVAL;
    const int fp64 = kind == VMAF_OPENCL_SELFTEST_DOUBLE;
    if (fp64 && !s->fp64) return -ENOTSUP; /* the device's double, when the state uses it */
    const VmafOpenCLApi *api = &s->api;
    cl_program program;
    int err = vmaf_opencl_program(s, &vmaf_opencl_selftest_source, &program);
    if (err) return err;
    cl_int res = CL_SUCCESS;
    cl_kernel k = api->clCreateKernel(program, kernel[kind], &res);
    if (res != CL_SUCCESS) return vmaf_opencl_result(res, "clCreateKernel");
    const size_t size = n * (fp64 ? sizeof(double) : sizeof(float));
    const void *in[3] = { a, b, c };
    void *out[3] = { quotient, root, mad };
    cl_mem buf[6] = { 0 };
    for (int i = 0; !err && i < 6; i++) {
        buf[i] = api->clCreateBuffer(s->ctx, i < 3 ? CL_MEM_READ_ONLY : CL_MEM_WRITE_ONLY, size,
                                     NULL, &res);
        err = vmaf_opencl_result(res, "clCreateBuffer");
    }
    for (int i = 0; !err && i < 3; i++)
        err = vmaf_opencl_result(api->clEnqueueWriteBuffer(s->queue, buf[i], CL_FALSE, 0, size,
                                                           in[i], 0, NULL, NULL),
                                 "clEnqueueWriteBuffer");
    const cl_uint count = (cl_uint)n;
    for (cl_uint i = 0; !err && i < 6; i++)
        err = vmaf_opencl_result(api->clSetKernelArg(k, i, sizeof(cl_mem), &buf[i]),
                                 "clSetKernelArg");
    if (!err)
        err = vmaf_opencl_result(api->clSetKernelArg(k, 6, sizeof(count), &count),
                                 "clSetKernelArg");
    const size_t global = n;
    if (!err)
        err = vmaf_opencl_result(api->clEnqueueNDRangeKernel(s->queue, k, 1, NULL, &global,
                                                             NULL, 0, NULL, NULL),
                                 "clEnqueueNDRangeKernel");
    /* the last read blocks; the queue is in order, so every earlier command is done then */
    for (int i = 0; !err && i < 3; i++)
        err = vmaf_opencl_result(api->clEnqueueReadBuffer(s->queue, buf[3 + i], i == 2, 0, size,
                                                          out[i], 0, NULL, NULL),
                                 "clEnqueueReadBuffer");
    if (err) api->clFinish(s->queue);
    for (int i = 0; i < 6; i++)
        if (buf[i]) api->clReleaseMemObject(buf[i]);
    api->clReleaseKernel(k);
    return err;
}
