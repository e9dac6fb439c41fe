/*
 * The software binary64 (src/feature/soft_f64.h) as OpenCL C on a device, as an fp64-less GPU
 * would run it: a program built without cl_khr_fp64 and with -D VMAF_SOFT_F64_NO_DOUBLE (the
 * header then cannot name `double`), whose kernel computes every operation of
 * tests/core/soft_f64_ops.h on a batch of operand records (tests/core/soft_f64_cases.h:
 * random, ranges, edges, ties, near-ties, cancellations). Each result must equal the host's
 * hardware double by the rule of soft_f64_cases.h, and the host's own soft_f64 result bit for
 * bit (NaN payloads included: the library's are deterministic).
 *   test_opencl_soft_f64 ROOT [--platform SUBSTRING] [--count N] [--seed S] [--mutant-ties]
 * --mutant-ties builds the device's program with VMAF_SOFT_F64_MUTANT_TIES (ties away from
 * zero): the test must then fail (ctest: WILL_FAIL), which shows that it sees the device's
 * rounding.
 * ROOT is the source tree (its src/ and tests/core/ are the program's include paths: the
 * program is built from text that includes them, so PoCL's kernel cache must be off).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "opencl/state.h"

#include "cl_device.h"
#define TEST_MAX_PRINTED 40
#include "core/soft_f64_cases.h"

#define CHUNK (1u << 16)

static const char program_text[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#include \"soft_f64_ops.h\"\n"
    "__kernel void soft_f64_all(__global const SoftF64Case *cases, __global ulong *out,\n"
    "                           uint n)\n"
    "{\n"
    "    const uint i = (uint)get_global_id(0);\n"
    "    if (i >= n) return;\n"
    "    ulong r[SOFT_F64_OPS];\n"
    "    soft_f64_apply(cases[i], r);\n"
    "    for (int op = 0; op < SOFT_F64_OPS; op++) out[(size_t)i * SOFT_F64_OPS + op] = r[op];\n"
    "}\n";

typedef struct Device {
    VmafOpenCLState *s;
    cl_program program;
    cl_kernel kernel;
    cl_mem in, out;
} Device;

static int device_open(Device *d, int index, const char *root, int mutant)
{
    int err = vmaf_opencl_state_init(&d->s, (VmafOpenCLConfiguration){ .device = index });
    if (err) return err;
    const VmafOpenCLApi *api = &d->s->api;
    char options[4096];
    snprintf(options, sizeof(options),
             "-cl-std=CL1.2 -D VMAF_SOFT_F64_NO_DOUBLE%s -I %s/src -I %s/tests/core",
             mutant ? " -D VMAF_SOFT_F64_MUTANT_TIES" : "", root, root);
    const char *t = program_text;
    const size_t len = strlen(program_text);
    cl_int res;
    d->program = api->clCreateProgramWithSource(d->s->ctx, 1, &t, &len, &res);
    if (res != CL_SUCCESS) return vmaf_opencl_result(res, "clCreateProgramWithSource");
    res = api->clBuildProgram(d->program, 1, &d->s->device, options, NULL, NULL);
    if (res != CL_SUCCESS) {
        static char log[65536];
        api->clGetProgramBuildInfo(d->program, d->s->device, CL_PROGRAM_BUILD_LOG, sizeof(log),
                                   log, NULL);
        log[sizeof(log) - 1] = 0;
        printf("build failed (%d), options \"%s\":\n%s\n", (int)res, options, log);
        return -EIO;
    }
    d->kernel = api->clCreateKernel(d->program, "soft_f64_all", &res);
    if (res != CL_SUCCESS) return vmaf_opencl_result(res, "clCreateKernel");
    d->in = api->clCreateBuffer(d->s->ctx, CL_MEM_READ_ONLY, CHUNK * sizeof(SoftF64Case), NULL,
                                &res);
    if (res != CL_SUCCESS) return vmaf_opencl_result(res, "clCreateBuffer");
    d->out = api->clCreateBuffer(d->s->ctx, CL_MEM_WRITE_ONLY,
                                 (size_t)CHUNK * SOFT_F64_OPS * sizeof(uint64_t), NULL, &res);
    return vmaf_opencl_result(res, "clCreateBuffer");
}

static void device_close(Device *d)
{
    if (!d->s) return;
    const VmafOpenCLApi *api = &d->s->api;
    if (d->in) api->clReleaseMemObject(d->in);
    if (d->out) api->clReleaseMemObject(d->out);
    if (d->kernel) api->clReleaseKernel(d->kernel);
    if (d->program) api->clReleaseProgram(d->program);
    vmaf_opencl_state_free(d->s);
}

/* the kernel on n cases; out[j * SOFT_F64_OPS + op] */
static int device_run(Device *d, const SoftF64Case *cases, uint64_t *out, size_t n)
{
    const VmafOpenCLApi *api = &d->s->api;
    const cl_uint count = (cl_uint)n;
    int err = vmaf_opencl_result(api->clEnqueueWriteBuffer(d->s->queue, d->in, CL_FALSE, 0,
                                                           n * sizeof(SoftF64Case), cases, 0,
                                                           NULL, NULL),
                                 "clEnqueueWriteBuffer");
    if (!err)
        err = vmaf_opencl_result(api->clSetKernelArg(d->kernel, 0, sizeof(cl_mem), &d->in),
                                 "clSetKernelArg");
    if (!err)
        err = vmaf_opencl_result(api->clSetKernelArg(d->kernel, 1, sizeof(cl_mem), &d->out),
                                 "clSetKernelArg");
    if (!err)
        err = vmaf_opencl_result(api->clSetKernelArg(d->kernel, 2, sizeof(count), &count),
                                 "clSetKernelArg");
    const size_t global = n;
    if (!err)
        err = vmaf_opencl_result(api->clEnqueueNDRangeKernel(d->s->queue, d->kernel, 1, NULL,
                                                             &global, NULL, 0, NULL, NULL),
                                 "clEnqueueNDRangeKernel");
    if (!err)
        err = vmaf_opencl_result(api->clEnqueueReadBuffer(d->s->queue, d->out, CL_TRUE, 0,
                                                          n * SOFT_F64_OPS * sizeof(uint64_t),
                                                          out, 0, NULL, NULL),
                                 "clEnqueueReadBuffer");
    if (err) api->clFinish(d->s->queue);
    return err;
}

int main(int argc, char **argv)
{
    const char *platform = "Portable Computing Language", *root = NULL;
    uint64_t count = 1u << 18;
    int mutant = 0;
    rng_state = 0x61c8864680b583ebull;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        errno = 0;
        if (!strcmp(argv[i], "--platform") && i + 1 < argc) platform = argv[++i];
        else if (!strcmp(argv[i], "--count") && i + 1 < argc)
            count = strtoull(argv[++i], &end, 0);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], &end, 0);
        else if (!strcmp(argv[i], "--mutant-ties")) mutant = 1;
        else if (argv[i][0] != '-' && !root) root = argv[i];
        else root = NULL, i = argc;
        if (errno || (end && *end)) {
            fprintf(stderr, "%s: not a number: %s\n", argv[0], argv[i]);
            return 2;
        }
    }
    if (!root) {
        fprintf(stderr, "usage: %s ROOT [--platform S] [--count N] [--seed S] [--mutant-ties]\n",
                argv[0]);
        return 2;
    }
    if (!rng_state) rng_state = 1;
    const uint64_t seed = rng_state;
    VmafOpenCLDeviceInfo info;
    const int index = test_opencl_device(platform, &info);
    if (index < 0) return 77;
    printf("device %d: %s / %s, driver %s (fp64 %d: not used); seed %#" PRIx64 ", %" PRIu64
           " cases x %d operations\n", index, info.platform, info.name, info.driver_version,
           info.fp64, seed, count, SOFT_F64_OPS);
    CHECK(soft_f64_host_rounds_to_nearest(), "the host does not round to nearest");
    Device d = { 0 };
    if (mutant) printf("the device's program breaks the tie rule: this run must fail\n");
    int err = device_open(&d, index, root, mutant);
    CHECK(!err, "the soft_f64 program: %d", err);
    SoftF64Case *cases = malloc(CHUNK * sizeof(*cases));
    uint64_t *dev = malloc((size_t)CHUNK * SOFT_F64_OPS * sizeof(uint64_t));
    uint64_t fails[SOFT_F64_OPS] = { 0 }, unlike_host[SOFT_F64_OPS] = { 0 };
    CHECK(cases && dev, "out of memory");
    for (uint64_t done = 0; !err && cases && dev && done < count;) {
        const size_t n = count - done < CHUNK ? (size_t)(count - done) : CHUNK;
        for (size_t j = 0; j < n; j++) soft_f64_case(done + j, &cases[j]);
        err = device_run(&d, cases, dev, n);
        CHECK(!err, "kernel run: %d", err);
        for (size_t j = 0; !err && j < n; j++) {
            uint64_t host[SOFT_F64_OPS], want[SOFT_F64_OPS];
            const uint64_t *got = dev + j * SOFT_F64_OPS;
            const SoftF64Case *k = &cases[j];
            soft_f64_apply(*k, host);
            soft_f64_reference(k, want);
            for (int op = 0; op < SOFT_F64_OPS; op++) {
                int payload;
                const int bad = soft_f64_differs(op, got[op], want[op], &payload);
                fails[op] += bad;
                unlike_host[op] += got[op] != host[op];
                CHECK(!bad && got[op] == host[op],
                      "%s case %" PRIu64 ": a %#" PRIx64 " b %#" PRIx64 " c %#" PRIx64
                      " i %#" PRIx64 " f %#x n %d: device %#" PRIx64 ", host soft %#" PRIx64
                      ", hardware %#" PRIx64, soft_f64_op_name[op], done + j, k->a, k->b, k->c,
                      k->i, k->f, k->n, got[op], host[op], want[op]);
            }
        }
        done += n;
    }
    uint64_t total = 0, total_host = 0;
    for (int op = 0; op < SOFT_F64_OPS; op++) {
        total += fails[op];
        total_host += unlike_host[op];
        if (fails[op] || unlike_host[op])
            printf("  %-10s %" PRIu64 " unlike the hardware, %" PRIu64 " unlike the host's\n",
                   soft_f64_op_name[op], fails[op], unlike_host[op]);
    }
    printf("%s: %" PRIu64 " operations (seed %#" PRIx64 "): %" PRIu64 " unlike the hardware, %"
           PRIu64 " unlike the host's soft_f64; %d checks, %d failures\n", info.name,
           err ? 0 : count * SOFT_F64_OPS, seed, total, total_host, checks, failures);
    free(cases);
    free(dev);
    device_close(&d);
    return failures != 0;
}
