/*
 * The shared per-element headers of src/feature/ as OpenCL C: each is included, alone, in a
 * program built on PoCL (FP_CONTRACT OFF, cl_khr_fp64 enabled, the state's build options plus
 * -cl-std=CL1.2, the oldest OpenCL C the backend targets, and -I SRC_DIR, since a runtime
 * compiler reads the includes from the file system). Two lists:
 * the headers that must build (a failure fails the test, with the build log), and those that
 * do not build yet (one that builds fails the test too, until it is moved to the first list),
 * so that the second list can only shrink.
 *   test_opencl_headers SRC_DIR [PLATFORM_SUBSTRING]
 * The programs are built directly through the state's API, not vmaf_opencl_program(): its
 * binary cache is keyed by the program text, which here names the headers without their text.
 */
#include <errno.h>
#include <stdlib.h>

#include "opencl/state.h"

#include "cl_device.h"
#include "test_util.h"

/* The shared headers: each extractor's header with its constants and per-element functions,
 * and the device headers of the twins. Not here, being the host's only: feature_extractor.h,
 * speed.h, vif_internal.h, adm_plan.h, adm_simd.h, motion_options.h. */
static const char *const must_build[] = {
    "dialect.h",
    "adm.h",
    "adm_device.h",
    "bitcast.h",
    "cambi.h",
    "cambi_device.h",
    "ciede.h",
    "ciede_device.h",
    "exact_sum.h",
    "float_adm.h",
    "float_filter.h",
    "float_motion.h",
    "float_stats.h",
    "float_vif.h",
    "motion.h",
    "psnr.h",
    "psnr_hvs.h",
    "reflect.h",
    "seq_sum_device.h",
    "speed_device.h",
    "ssim.h",
    "ssim_device.h",
    "vif.h",
    "vif_device.h",
    "xmath.h",
    "xmath_tables.h",
    "xpowf.h",
    "xpowf_tables.h",
    NULL,
};

/* Add a header here only while it is new and does not build yet. */
static const char *const not_yet[] = {
    NULL,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Build the one-header program: 0 when it builds, -EIO with the log in log (truncated). */
static int build(VmafOpenCLState *s, const char *src_dir, const char *header, char *log,
                 size_t log_size)
{
    const VmafOpenCLApi *api = &s->api;
    char text[512], options[4096];
    snprintf(text, sizeof(text),
             "#pragma OPENCL FP_CONTRACT OFF\n"
             "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
             "#include \"feature/%s\"\n"
             "__kernel void vmaf_header_probe(__global int *out) { out[0] = 1; }\n",
             header);
    snprintf(options, sizeof(options), "%s -cl-std=CL1.2 -I %s", s->build_options, src_dir);
    const char *t = text;
    const size_t len = strlen(text);
    cl_int res;
    cl_program p = api->clCreateProgramWithSource(s->ctx, 1, &t, &len, &res);
    if (res != CL_SUCCESS) {
        snprintf(log, log_size, "clCreateProgramWithSource: %d", (int)res);
        return -EIO;
    }
    res = api->clBuildProgram(p, 1, &s->device, options, NULL, NULL);
    log[0] = 0;
    if (res != CL_SUCCESS)
        api->clGetProgramBuildInfo(p, s->device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
    log[log_size - 1] = 0;
    api->clReleaseProgram(p);
    return res == CL_SUCCESS ? 0 : -EIO;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SRC_DIR [PLATFORM_SUBSTRING]\n", argv[0]);
        return 2;
    }
    const char *src_dir = argv[1], *platform = argc > 2 ? argv[2] : "Portable";
    VmafOpenCLDeviceInfo info;
    const int dev = test_opencl_device(platform, &info);
    if (dev < 0) return 77;
    if (!info.fp64) {
        printf("SKIP: %s has no fp64\n", info.name);
        return 77;
    }
    VmafOpenCLState *s = NULL;
    int err = vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = dev });
    CHECK(!err, "state_init: %d", err);
    if (err) return 1;
    static char log[16384];
    unsigned built = 0;
    for (size_t i = 0; must_build[i]; i++) {
        err = build(s, src_dir, must_build[i], log, sizeof(log));
        printf("%-18s %s\n", must_build[i], err ? "FAILS" : "builds");
        CHECK(!err, "%s must build as OpenCL C; build log:\n%s", must_build[i], log);
        built += !err;
    }
    for (size_t i = 0; not_yet[i]; i++) {
        err = build(s, src_dir, not_yet[i], log, sizeof(log));
        printf("%-18s %s\n", not_yet[i], err ? "does not build yet" : "builds");
        CHECK(err, "%s now builds as OpenCL C: move it to must_build in %s", not_yet[i],
              __FILE__);
        built += !err;
    }
    vmaf_opencl_state_free(s);
    printf("%s: %u of %zu headers build; %d checks, %d failures\n", info.name, built,
           COUNT(must_build) + COUNT(not_yet) - 2, checks, failures);
    return failures != 0;
}
