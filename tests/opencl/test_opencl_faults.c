/*
 * OpenCL errors become errors: against the mock OpenCL library (tests/opencl/mock_opencl.c,
 * opened through VMAF_OPENCL_LIBRARY), every call of every entry point a run makes is made to
 * fail in turn: the 1st call of clCreateBuffer, its 2nd, ..., then the 1st of clCreateKernel,
 * and so on. A run: a state, a context that imports it with the default model (VIF, ADM,
 * motion) or with more extractors that have twins, a few small frames, the flush, the close.
 * Whatever call fails, every API call returns 0 or a negative errno and nothing crashes
 * (under ASan nothing leaks); a failure injected before the close is returned by some API
 * call, but for the calls whose failure is an answer (a device without fp64's query; the
 * binary cache's reads and writes, which only mean building from source or not caching);
 * after vmaf_close and vmaf_opencl_state_free every context, queue, program, kernel, buffer,
 * event and mapping created was released, and no released or foreign object was ever used. Two
 * cache modes: none (VMAF_OPENCL_CACHE=0: programs from source), and a filled cache
 * (programs from binaries); and with the default model a client that takes its pictures
 * from the pool in pinned memory (vmaf_opencl_preallocate_pictures) and goes on after a failed
 * frame (the later frames, then the flush: a failed frame's slot serves again), and a run
 * profiled (VMAF_OPENCL_PROFILE=1). Frames replay command buffers (the mock's
 * cl_khr_command_buffer, 0.9.5 with the default model, 0.9.0 with more twins) but profiled. The kernels do nothing (scores are garbage): what is checked is
 * the host's handling. Twins whose kernels no program declares run on the CPU: with no twin
 * programs in the build, only the state and the backend's creation are swept.
 * Usage: test_opencl_faults MOCK_LIBRARY SCRATCH_DIR [CONFIG] [ENTRY N] (CONFIG: only the
 * configuration of that index, 0 or 1; ENTRY N: only the runs failing that call, verbose, to
 * debug one)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_opencl.h"
#include "libvmaf/model.h"

#include "mock_opencl.h"
#include "test_util.h"

/* the library's own (src/log.h, src/opencl/state.h): the messages of a state opened without a
 * context, and the twins' programs, to say whether the backend can have run */
void vmaf_log_set_thread_level(enum VmafLogLevel level);
typedef struct TwinProgram {
    const char *name, *text;
} TwinProgram;
extern const TwinProgram vmaf_opencl_twin_programs[];

enum { W = 64, H = 48, FRAMES = 5 };

/* the default model's extractors, then others with a twin (small frames suit them all) */
static const struct Config {
    const char *name;
    const char *features[16];
} configs[] = {
    { "default model", { NULL } },
    { "more twins",
      { "psnr", "motion_v2", "float_psnr", "float_motion", "float_vif", "float_adm",
        "float_ssim", "ciede", NULL } },
};

static MockOpenCL mock;
static enum VmafLogLevel log_level = VMAF_LOG_LEVEL_NONE;
/* a client that goes on after a frame failed: the frames that follow (a failed frame's slot
 * is used again), then the flush */
static bool retry;

typedef struct Outcome {
    bool failed;             /* an API call returned an error */
    MockOpenCLStats before;  /* the mock's counts before the close */
    MockOpenCLStats after;   /* and after */
    char injected[96];       /* the call that failed before the close, "" when none */
} Outcome;

static bool is_errno(int err)
{
    return err <= 0 && err > -4096;
}

static int picture(VmafContext *v, VmafPicture *p, unsigned seed)
{
    int err = retry ? vmaf_fetch_preallocated_picture(v, p)
                    : vmaf_picture_alloc(p, VMAF_PIX_FMT_YUV420P, 8, W, H);
    if (err) return err;
    test_picture_fill8(p, seed);
    return 0;
}

/* One whole run with the n-th call of entry failing (NULL: none); what the API returned is
 * checked here, the balance by the caller. */
static Outcome run(const struct Config *cfg, const char *entry, long n, const char *tag)
{
    Outcome o = { 0 };
    mock.reset(entry, n, CL_OUT_OF_RESOURCES);
    vmaf_log_set_thread_level(log_level);
    VmafOpenCLState *s = NULL;
    VmafContext *v = NULL;
    VmafModel *m = NULL;
    int err = vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = 0 });
    CHECK(is_errno(err), "%s: state init %d", tag, err);
    CHECK(!err == !!s, "%s: state init %d with state %p", tag, err, (void *)s);
    if (!err) {
        err = vmaf_init(&v, (VmafConfiguration){ .log_level = log_level });
        CHECK(!err, "%s: vmaf_init %d", tag, err);
    }
    if (!err) {
        err = vmaf_opencl_import_state(v, s);
        CHECK(is_errno(err), "%s: import %d", tag, err);
    }
    if (!err) err = vmaf_model_load(&m, &(VmafModelConfig){ .name = "vmaf" }, "vmaf_v0.6.1");
    if (!err) err = vmaf_use_features_from_model(v, m);
    for (unsigned i = 0; !err && cfg->features[i]; i++)
        err = vmaf_use_feature(v, cfg->features[i], NULL);
    CHECK(!err || !v, "%s: model and features %d", tag, err);
    if (!err && retry) { /* every picture of the run at once: the backend holds 4 frames' */
        const VmafPictureConfiguration pc = {
            .pic_params = { .w = W, .h = H, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P },
            .pic_cnt = 2 * FRAMES,
        };
        err = vmaf_opencl_preallocate_pictures(v, pc);
        CHECK(is_errno(err), "%s: pinned pictures %d", tag, err);
    }
    bool frame_failed = false;
    for (unsigned k = 0; !err && k < FRAMES; k++) {
        VmafPicture ref, dis;
        int e = picture(v, &ref, 2 * k);
        if (!e && (e = picture(v, &dis, 2 * k + 1))) vmaf_picture_unref(&ref);
        CHECK(retry ? is_errno(e) : !e, "%s: picture %u: %d", tag, k, e);
        if (!e) e = read_pictures_or_release(v, &ref, &dis, k);
        CHECK(is_errno(e), "%s: frame %u: %d", tag, k, e);
        frame_failed |= e != 0;
        if (!retry) err = e;
    }
    if (!err && v) {
        err = vmaf_read_pictures(v, NULL, NULL, 0);
        CHECK(is_errno(err), "%s: flush %d", tag, err);
        if (!err && !frame_failed) {
            double score = 0;
            err = vmaf_score_pooled(v, m, VMAF_POOL_METHOD_MEAN, &score, 0, FRAMES - 1);
            CHECK(!err, "%s: pooled score %d", tag, err);
        }
    }
    o.failed = err != 0 || frame_failed;
    o.before = mock.stats();
    snprintf(o.injected, sizeof(o.injected), "%s", mock.injected_into());
    if (v) vmaf_close(v);
    vmaf_model_destroy(m);
    vmaf_opencl_state_free(s);
    o.after = mock.stats();
    return o;
}

/* Whether the failure of this call (as the mock names it) is an answer, not an error. */
static bool failure_is_answer(const char *call, bool cached)
{
    static const char *const answers[] = {
        "clGetDeviceInfo(0x1032)", /* CL_DEVICE_DOUBLE_FP_CONFIG: a device without fp64 */
        "clGetProgramInfo",        /* a binary not had: not cached */
        "clGetProgramBuildInfo",   /* the build log of a failed build */
        /* cl_khr_command_buffer: its version, the queue properties it needs, an entry point
         * not found, a command it does not record: frames are enqueued op by op */
        "clGetDeviceInfo(0x1060)", "clGetDeviceInfo(0x12aa)",
        "clGetExtensionFunctionAddressForPlatform", "clCreateCommandBufferKHR",
        "clCommandNDRangeKernelKHR", "clCommandFillBufferKHR", "clCommandCopyBufferKHR",
        "clFinalizeCommandBufferKHR",
        "clGetEventProfilingInfo", /* a profile without that operation's time */
    };
    for (size_t i = 0; i < sizeof(answers) / sizeof(answers[0]); i++)
        if (!strncmp(call, answers[i], strlen(answers[i]))) return true;
    /* a cached binary the device refuses: built from source again */
    return cached && (!strncmp(call, "clCreateProgramWithBinary", 25) ||
                      !strncmp(call, "clBuildProgram", 14));
}

/* The checks of one run with a failure. */
static void check_run(const Outcome *o, bool cached, const char *tag)
{
    char t[160];
    snprintf(t, sizeof(t), "%s: ", tag);
    MOCK_OPENCL_CHECK_BALANCE(o->after, t, mock.misuse());
    if (o->before.injected && !o->failed)
        CHECK(failure_is_answer(o->injected, cached), "%sthe failure of %s was not returned",
              t, o->injected);
}

static long calls_named(const long *calls, const char *name)
{
    for (int e = 0; mock.entry(e) && e < 64; e++)
        if (!strcmp(mock.entry(e), name)) return calls[e];
    return 0;
}

/* Every call of every entry point of a run, failed one at a time. */
static Outcome sweep(const struct Config *cfg, bool cached, const char *mode, const char *only,
                     long only_n)
{
    char tag[160];
    const Outcome base = run(cfg, NULL, 0, mode);
    snprintf(tag, sizeof(tag), "%s, no failure", mode);
    CHECK(!base.failed, "%s: the run failed", tag);
    CHECK(!base.before.injected, "%s: a failure injected", tag);
    MOCK_OPENCL_CHECK_BALANCE(base.after, tag, mock.misuse());
    long calls[64] = { 0 };
    for (int e = 0; mock.entry(e) && e < 64; e++) calls[e] = mock.calls_of(mock.entry(e));
    if (cached && calls_named(calls, "clBuildProgram"))
        CHECK(!calls_named(calls, "clCreateProgramWithSource"),
              "%s: programs built from source with a filled cache", tag);
    printf("opencl_faults %s: a run without failures makes %ld calls, launches %ld kernels; "
           "creates", mode, base.after.calls, base.after.launches);
    for (int k = 0; k < MOCK_CL_KINDS; k++)
        printf(" %d %s%s", base.after.created[k], mock_opencl_kind_name[k],
               k + 1 < MOCK_CL_KINDS ? "," : "\n");
    if (only) {
        snprintf(tag, sizeof(tag), "%s, %s #%ld", mode, only, only_n);
        const Outcome o = run(cfg, only, only_n, tag);
        check_run(&o, cached, tag);
        printf("%s: failed %s; an API call returned an error: %s\n", tag,
               *o.injected ? o.injected : "nothing (fewer calls)", o.failed ? "yes" : "no");
        return base;
    }
    long runs = 0, failed = 0, injected = 0;
    for (int e = 0; mock.entry(e) && e < 64; e++) {
        if (!strncmp(mock.entry(e), "clRelease", 9) || strstr(mock.entry(e), "Unmap"))
            continue; /* never fail */
        for (long n = 1; n <= calls[e]; n++) {
            snprintf(tag, sizeof(tag), "%s, %s #%ld", mode, mock.entry(e), n);
            const int before = failures;
            const Outcome o = run(cfg, mock.entry(e), n, tag);
            check_run(&o, cached, tag);
            runs++;
            failed += o.failed;
            injected += o.after.injected;
            if (failures > before && failures > 50) {
                printf("opencl_faults: stopping after 50 failures\n");
                return base;
            }
        }
    }
    CHECK(injected == runs, "%s: %ld of %ld failures injected", mode, injected, runs);
    CHECK(failed > runs / 2, "%s: only %ld of %ld runs with a failing call failed", mode,
          failed, runs);
    printf("opencl_faults %s: %ld runs, each failing one call of the run's; %ld of them "
           "returned an error\n", mode, runs, failed);
    return base;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 6) {
        fprintf(stderr, "usage: test_opencl_faults MOCK_LIBRARY SCRATCH_DIR [CONFIG] [ENTRY N]\n");
        return 2;
    }
    /* CONFIG: only configs[CONFIG] (ctest runs them side by side) */
    unsigned c0 = 0, c1 = sizeof(configs) / sizeof(configs[0]);
    if (argc == 4 || argc == 6) {
        c0 = (unsigned)atoi(argv[3]);
        if (c0 >= c1) return fprintf(stderr, "no config %s\n", argv[3]), 2;
        c1 = c0 + 1;
    }
    if (mock_opencl_load(&mock, argv[1])) return 1;
    /* the library opens the same file, so both see one mock */
    setenv("VMAF_OPENCL_LIBRARY", argv[1], 1);
    const char *only = argc >= 5 ? argv[argc - 2] : NULL;
    const long only_n = argc >= 5 ? atol(argv[argc - 1]) : 0;
    if (only) log_level = VMAF_LOG_LEVEL_DEBUG;

    unsigned programs = 0;
    while (vmaf_opencl_twin_programs[programs].name) programs++;
    char cache[4096];
    snprintf(cache, sizeof(cache), "%s/opencl_faults_cache", argv[2]);
    mkdir(argv[2], 0755);
    mkdir(cache, 0755);

    long launches = 0;
    for (unsigned c = c0; c < c1; c++) {
        /* command buffers of the mock's two signatures: the properties of 0.9.5 on (the
         * default model), those before (more twins) */
        setenv("MOCK_OPENCL_COMMAND_BUFFER_VERSION", c ? "0.9.0" : "0.9.5", 1);
        for (int pass = 0; pass < 2 + 2 * !c; pass++) {
            /* the default model, from source, a third time: pinned pictures, going on after a
             * failed frame; a fourth: profiled (VMAF_OPENCL_PROFILE=1: every operation's event,
             * no command buffers) */
            const int cached = pass == 1;
            retry = pass == 2;
            const bool profiled = pass == 3;
            if (profiled) setenv("VMAF_OPENCL_PROFILE", "1", 1);
            else unsetenv("VMAF_OPENCL_PROFILE");
            /* every profiled run's table (stderr) but one: the checks' messages are stdout */
            int saved_stderr = -1;
            if (profiled && !only) {
                fflush(stderr);
                saved_stderr = dup(2);
                const int null = open("/dev/null", O_WRONLY);
                if (null >= 0) dup2(null, 2), close(null);
            }
            char mode[96];
            snprintf(mode, sizeof(mode), "%s, %s%s%s", configs[c].name,
                     cached ? "programs from the binary cache" : "programs from source",
                     retry ? ", pinned pictures, going on after a failed frame" : "",
                     profiled ? ", profiled" : "");
            if (cached) {
                unsetenv("VMAF_OPENCL_CACHE");
                setenv("VMAF_OPENCL_CACHE_DIR", cache, 1);
                run(&configs[c], NULL, 0, mode); /* fills the cache */
            } else {
                setenv("VMAF_OPENCL_CACHE", "0", 1);
            }
            const Outcome base = sweep(&configs[c], cached, mode, only, only_n);
            launches += base.after.launches;
            if (saved_stderr >= 0) {
                fflush(stderr);
                dup2(saved_stderr, 2);
                close(saved_stderr);
            }
        }
    }
    /* with twin programs, some twins ran on the device */
    if (programs && !only)
        CHECK(launches > 0, "no kernel launched (%u twin programs)", programs);
    printf("opencl_faults: %u twin programs; %d checks, %d failed\n", programs, checks, failures);
    dlclose(mock.lib);
    return failures ? 1 : 0;
}
