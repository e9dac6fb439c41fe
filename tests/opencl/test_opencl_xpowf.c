/*
 * vmaf_xpowf (src/feature/xpowf.h) as OpenCL C on a device built without fp64 (its doubles the
 * software binary64, VMAF_OPENCL_SOFT_F64, with the backend's -cl-single-precision-constant),
 * against the same header's plain double steps on the host, bit for bit.
 *   test_opencl_xpowf ROOT [--platform S] [--chain | --native] [--pairs N] [--bench]
 *                          [--exhaustive Y...]
 * Default: for the ADM's exponents and CIEDE's 7, 4096 consecutive x at 16 places across the
 * bit patterns and the 2^17 x around 1; then --pairs random (x, y) bit patterns (default 2^20). --exhaustive: every one of the 2^32 x for each Y (a
 * float or "1/P", as test_xpowf; on a GPU). --chain: the device runs the double steps only
 * (VMAF_XPOWF_FIXED=0), --native: with the device's own fp64 (if it has it). --bench: the
 * kernel's time per call on 2^24 inputs of the ADM (x in [0, 8), y = 1/3) and CIEDE (x in
 * [0, 128), y = 7). ROOT is the source tree (the program includes its headers, so PoCL's
 * kernel cache must be off).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "opencl/state.h"

#include "cl_device.h"
#define TEST_MAX_PRINTED 20
#include "test_util.h"

#include "feature/xpowf.h"

#define CHUNK ((size_t)1 << 24)

/* mode 0: x = first + i (bits), y fixed; 1: (x, y) from mix(first + i); 2: x = (first + i) *
 * scale 2^-24 (the bench's ranges). mix(z) is test_util.h's test_splitmix64 of a copy of z. */
static const char program_text[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#include \"feature/xpowf.h\"\n"
    "static ulong mix(ulong z)\n"
    "{\n"
    "    z += 0x9e3779b97f4a7c15UL;\n"
    "    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;\n"
    "    z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;\n"
    "    return z ^ (z >> 31);\n"
    "}\n"
    "__kernel void xpowf_chunk(ulong first, float y, int mode, float scale, __global uint *out)\n"
    "{\n"
    "    const ulong i = get_global_id(0);\n"
    "    float x = as_float((uint)(first + i));\n"
    "    if (mode == 1) {\n"
    "        const ulong r = mix(first + i);\n"
    "        x = as_float((uint)r);\n"
    "        y = as_float((uint)(r >> 32));\n"
    "    } else if (mode == 2) {\n"
    "        x = (float)(uint)(first + i) * scale;\n"
    "    }\n"
    "    out[i] = as_uint(vmaf_xpowf(x, y));\n"
    "}\n";

static void operands(uint64_t first, uint64_t i, float y, int mode, float scale, float *px,
                     float *py)
{
    *px = vmaf_xpowf_from_bits((uint32_t)(first + i));
    *py = y;
    if (mode == 1) {
        uint64_t state = first + i;
        const uint64_t r = test_splitmix64(&state); /* the program's mix(first + i) */
        *px = vmaf_xpowf_from_bits((uint32_t)r);
        *py = vmaf_xpowf_from_bits((uint32_t)(r >> 32));
    } else if (mode == 2) {
        *px = (float)(uint32_t)(first + i) * scale;
    }
}

typedef struct Device {
    VmafOpenCLState *s;
    cl_program program;
    cl_kernel kernel;
    cl_mem out;
} Device;

static int device_open(Device *d, int index, const char *root, const char *defines)
{
    int err = vmaf_opencl_state_init(&d->s, (VmafOpenCLConfiguration){ .device = index });
    if (err) return err;
    const VmafOpenCLApi *api = &d->s->api;
    char options[4096];
    snprintf(options, sizeof(options), "-cl-std=CL1.2 %s -I %s/src -I %s/include", defines, root,
             root);
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
    d->kernel = api->clCreateKernel(d->program, "xpowf_chunk", &res);
    if (res != CL_SUCCESS) return vmaf_opencl_result(res, "clCreateKernel");
    d->out = api->clCreateBuffer(d->s->ctx, CL_MEM_WRITE_ONLY, CHUNK * 4, NULL, &res);
    return vmaf_opencl_result(res, "clCreateBuffer");
}

static void device_close(Device *d)
{
    if (!d->s) return;
    const VmafOpenCLApi *api = &d->s->api;
    if (d->out) api->clReleaseMemObject(d->out);
    if (d->kernel) api->clReleaseKernel(d->kernel);
    if (d->program) api->clReleaseProgram(d->program);
    vmaf_opencl_state_free(d->s);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* n results of the kernel into host (NULL: none read back); *seconds: the kernel's time */
static int device_run(Device *d, uint64_t first, float y, int mode, float scale, size_t n,
                      uint32_t *host, double *seconds)
{
    const VmafOpenCLApi *api = &d->s->api;
    const cl_ulong f = first;
    const cl_int m = mode;
    int err = 0;
    err |= api->clSetKernelArg(d->kernel, 0, sizeof(f), &f);
    err |= api->clSetKernelArg(d->kernel, 1, sizeof(y), &y);
    err |= api->clSetKernelArg(d->kernel, 2, sizeof(m), &m);
    err |= api->clSetKernelArg(d->kernel, 3, sizeof(scale), &scale);
    err |= api->clSetKernelArg(d->kernel, 4, sizeof(cl_mem), &d->out);
    if (err) return vmaf_opencl_result(CL_INVALID_KERNEL_ARGS, "clSetKernelArg");
    const double t0 = now();
    err = vmaf_opencl_result(api->clEnqueueNDRangeKernel(d->s->queue, d->kernel, 1, NULL, &n,
                                                         NULL, 0, NULL, NULL),
                             "clEnqueueNDRangeKernel");
    if (!err) err = vmaf_opencl_result(api->clFinish(d->s->queue), "clFinish");
    if (seconds) *seconds = now() - t0;
    if (!err && host)
        err = vmaf_opencl_result(api->clEnqueueReadBuffer(d->s->queue, d->out, CL_TRUE, 0, n * 4,
                                                          host, 0, NULL, NULL),
                                 "clEnqueueReadBuffer");
    return err;
}

typedef struct Slice {
    pthread_t thread;
    const uint32_t *got;
    uint64_t first, begin, end;
    float y, scale;
    int mode;
    uint64_t failed;
} Slice;

static void *check_slice(void *arg)
{
    Slice *s = arg;
    for (uint64_t i = s->begin; i < s->end; i++) {
        float x, y;
        operands(s->first, i, s->y, s->mode, s->scale, &x, &y);
        const uint32_t want = vmaf_xpowf_to_bits(vmaf_xpowf(x, y));
        if (want != s->got[i] && s->failed++ < 5)
            fprintf(stderr, "xpowf(%a [%08x], %a [%08x]): host %08x, device %08x\n", x,
                    vmaf_xpowf_to_bits(x), y, vmaf_xpowf_to_bits(y), want, s->got[i]);
    }
    return NULL;
}

/* the device's n results against the host's, on `threads` threads; the count that differ */
static uint64_t compare(const uint32_t *got, uint64_t first, float y, int mode, float scale,
                        size_t n, unsigned threads)
{
    Slice s[64];
    unsigned started = 0;
    for (unsigned k = 0; k < threads; k++) {
        s[k] = (Slice){ .got = got, .first = first, .begin = n * k / threads,
                        .end = n * (k + 1) / threads, .y = y, .scale = scale, .mode = mode };
        if (pthread_create(&s[k].thread, NULL, check_slice, &s[k])) break;
        started++;
    }
    uint64_t failed = started == threads ? 0 : 1;
    if (started < threads) fprintf(stderr, "cannot start %u threads\n", threads);
    for (unsigned k = 0; k < started; k++) {
        pthread_join(s[k].thread, NULL);
        failed += s[k].failed;
    }
    return failed;
}

static int parse_exponent(const char *s, float *y)
{
    char *end;
    errno = 0;
    const int root = strncmp(s, "1/", 2) == 0;
    const double v = strtod(root ? s + 2 : s, &end);
    if (errno || end == s || *end || (root && v == 0)) return -EINVAL;
    *y = root ? (float)(1.0f / v) : (float)v;
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const exps[] = { "1/3", "3", "1", "2", "2.5", "4", "20", "1/2", "1/2.5",
                                        "1/4", "1/20", "1.5", "1/1.5", "7" };
    const char *platform = "Portable Computing Language", *root = NULL;
    const char *defines = "-D VMAF_OPENCL_SOFT_F64=1 -cl-single-precision-constant";
    uint64_t pairs = 1u << 20;
    int bench = 0, ex = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--platform") && i + 1 < argc) platform = argv[++i];
        else if (!strcmp(argv[i], "--pairs") && i + 1 < argc) pairs = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--chain"))
            defines = "-D VMAF_OPENCL_SOFT_F64=1 -cl-single-precision-constant -D VMAF_XPOWF_FIXED=0";
        else if (!strcmp(argv[i], "--native")) defines = "";
        else if (!strcmp(argv[i], "--bench")) bench = 1;
        else if (!strcmp(argv[i], "--exhaustive")) ex = i + 1, i = argc;
        else if (argv[i][0] != '-' && !root) root = argv[i];
        else root = NULL, i = argc;
    }
    if (!root) {
        fprintf(stderr, "usage: %s ROOT [--platform S] [--chain | --native] [--pairs N] "
                        "[--bench] [--exhaustive Y...]\n", argv[0]);
        return 2;
    }
    VmafOpenCLDeviceInfo info;
    const int index = test_opencl_device(platform, &info);
    if (index < 0) return 77;
    printf("device %d: %s / %s, driver %s (fp64 %d); program options \"%s\"\n", index,
           info.platform, info.name, info.driver_version, info.fp64, defines);
    Device d = { 0 };
    int err = device_open(&d, index, root, defines);
    CHECK(!err, "the xpowf program: %d", err);
    uint32_t *got = malloc(CHUNK * 4);
    CHECK(got != NULL, "out of memory");
    const unsigned threads = 16;
    uint64_t differ = 0;
    if (!err && got && bench) {
        const struct { const char *name; float y, range; } b[] = {
            { "ADM (x in [0, 8), y = 1/3)", vmaf_fdiv(1.0f, 3.0f), 8.0f },
            { "CIEDE (x in [0, 128), y = 7)", 7.0f, 128.0f },
        };
        for (int k = 0; !err && k < 2; k++) {
            const float scale = b[k].range * 0x1p-24f;
            double s = 0, best = 1e30;
            for (int rep = 0; !err && rep < 4; rep++) {
                err = device_run(&d, 0, b[k].y, 2, scale, CHUNK, rep ? NULL : got, &s);
                if (s < best) best = s;
            }
            if (!err) differ += compare(got, 0, b[k].y, 2, scale, CHUNK, threads);
            printf("bench %s: %.3f ns per call (best of 4, 2^24 calls)\n", b[k].name,
                   best * 1e9 / (double)CHUNK);
        }
    } else if (!err && got && ex) {
        for (int k = ex; !err && k < argc; k++) {
            float y;
            CHECK(parse_exponent(argv[k], &y) == 0, "bad exponent '%s'", argv[k]);
            uint64_t f = 0;
            for (uint64_t first = 0; !err && first < (1ull << 32); first += CHUNK) {
                err = device_run(&d, first, y, 0, 0.0f, CHUNK, got, NULL);
                if (!err) f += compare(got, first, y, 0, 0.0f, CHUNK, threads);
            }
            printf("y = %s (%a): all 2^32 x, %" PRIu64 " differ\n", argv[k], y, f);
            fflush(stdout);
            differ += f;
        }
    } else if (!err && got) {
        for (size_t k = 0; !err && k < sizeof(exps) / sizeof(exps[0]); k++) {
            float y;
            parse_exponent(exps[k], &y);
            for (uint64_t first = k * 4099; !err && first < (1ull << 32); first += 65537 * 4096) {
                err = device_run(&d, first, y, 0, 0.0f, 4096, got, NULL);
                if (!err) differ += compare(got, first, y, 0, 0.0f, 4096, threads);
            }
            err = err ? err : device_run(&d, 0x3f7f0000, y, 0, 0.0f, 0x20000, got, NULL);
            if (!err) differ += compare(got, 0x3f7f0000, y, 0, 0.0f, 0x20000, threads);
        }
        for (uint64_t first = 0; !err && first < pairs; first += CHUNK) {
            const size_t n = pairs - first < CHUNK ? (size_t)(pairs - first) : CHUNK;
            err = device_run(&d, first, 0.0f, 1, 0.0f, n, got, NULL);
            if (!err) differ += compare(got, first, 0.0f, 1, 0.0f, n, threads);
        }
    }
    CHECK(!err, "kernel run: %d", err);
    CHECK(differ == 0, "%" PRIu64 " results differ from the host's", differ);
    printf("%s: %" PRIu64 " differ; %d checks, %d failures\n", info.name, differ, checks,
           failures);
    free(got);
    device_close(&d);
    return failures != 0;
}
