/*
 * CUDA errors become errors: a sweep that makes the n-th fallible driver call fail, for every
 * n up to the number of such calls in a whole run, against the mock driver
 * (tests/cuda/mock_cuda.c, as libcuda.so.1 through LD_LIBRARY_PATH). A run: a state, a context
 * with the default model (VIF, ADM and motion: twins), or with 13 more extractors that have
 * one, three frames through the backend (graphs, then VMAF_CUDA_NO_GRAPH=1), the flush,
 * the close. Whatever call fails, every API
 * call returns 0 or a negative errno, nothing crashes (under ASan, nothing leaks), and every
 * context, stream, event, graph, device buffer, pinned buffer and registration the library
 * obtained is given back, pushes match pops. The kernels do nothing here (device memory is
 * addresses only): what is checked is the host's handling, not the scores.
 * Usage: test_cuda_faults MOCK_LIBRARY [N] (N: only the runs failing the n-th call, to debug
 * one; built only with the CUDA backend)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/model.h"

#include "mock_cuda.h"
#include "test_util.h"

enum { FRAMES = 3 };

/* The configurations: the default model (VIF, ADM, motion), then 13 more extractors with a
 * twin (16 twins in all; test_twin_cap registers more; frames large enough for float_ms_ssim's
 * five scales). */
static const struct Config {
    const char *name;
    unsigned w, h;
    const char *features[16];
} configs[] = {
    { "default model", 176, 144, { NULL } },
    { "16 twins", 352, 288,
      { "psnr", "motion_v2", "psnr_hvs", "speed_chroma", "speed_temporal", "float_psnr",
        "float_motion", "float_vif", "float_adm", "float_ssim", "float_ms_ssim", "cambi",
        "ciede", NULL } },
};
static const struct Config *cfg = &configs[0];

static MockCuda mock;
static long failed_runs; /* runs in which an API call returned an error */

static bool is_errno(int err)
{
    return err <= 0 && err > -4096;
}

static int picture(VmafPicture *p, unsigned seed)
{
    int err = vmaf_picture_alloc(p, VMAF_PIX_FMT_YUV420P, 8, cfg->w, cfg->h);
    if (err) return err;
    test_picture_fill8(p, seed);
    return 0;
}

/* One whole run with the n-th fallible call failing; what the API returned is checked. */
static void run(long n, const char *mode)
{
    mock.fail_at(n);
    VmafCudaState *s = NULL;
    int err = vmaf_cuda_state_init(&s, (VmafCudaConfiguration){ 0 });
    CHECK(is_errno(err), "%s n=%ld: state init %d", mode, n, err);
    failed_runs += err != 0;
    if (err) return;
    VmafContext *v = NULL;
    err = vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_NONE });
    CHECK(!err, "%s n=%ld: vmaf_init %d", mode, n, err);
    VmafModel *m = NULL;
    if (!err) err = vmaf_cuda_import_state(v, s);
    CHECK(is_errno(err), "%s n=%ld: import %d", mode, n, err);
    if (!err) err = vmaf_model_load(&m, &(VmafModelConfig){ .name = "vmaf" }, "vmaf_v0.6.1");
    if (!err) err = vmaf_use_features_from_model(v, m);
    for (unsigned i = 0; !err && cfg->features[i]; i++)
        err = vmaf_use_feature(v, cfg->features[i], NULL);
    CHECK(!err || !m, "%s n=%ld: model %d", mode, n, err);
    for (unsigned k = 0; !err && k < FRAMES; k++) {
        VmafPicture ref, dis;
        if (picture(&ref, 2 * k) || picture(&dis, 2 * k + 1)) {
            CHECK(0, "picture alloc");
            return;
        }
        err = vmaf_read_pictures(v, &ref, &dis, k);
        CHECK(is_errno(err), "%s n=%ld: frame %u: %d", mode, n, k, err);
        if (ref.ref) vmaf_picture_unref(&ref); /* an extractor's failure leaves them here */
        if (dis.ref) vmaf_picture_unref(&dis);
    }
    if (!err) {
        err = vmaf_read_pictures(v, NULL, NULL, 0);
        CHECK(is_errno(err), "%s n=%ld: flush %d", mode, n, err);
    }
    failed_runs += err != 0;
    /* A failure injected before the close, on this thread, must have been returned, but for
     * the calls whose failure is an answer: a kernel looked up module by module, an event
     * queried (not done yet: the sync that follows reports a real error). The warm-up's
     * (another thread) are ignored by design; the close returns nothing. */
    const MockCudaStats st = mock.stats();
    const char *where = mock.injected_into();
    if (st.injected && !st.injected_elsewhere && !err)
        CHECK(!strcmp(where, "m_module_get_function") || !strcmp(where, "cuEventQuery"),
              "%s n=%ld: the failure of %s was not returned", mode, n, where);
    vmaf_close(v);
    vmaf_model_destroy(m);
    vmaf_cuda_state_free(s);
}

/* Everything obtained was given back. */
static void check_balance(long n, const char *mode)
{
    const MockCudaStats st = mock.stats();
    char tag[64];
    snprintf(tag, sizeof(tag), "%s n=%ld: ", mode, n);
    MOCK_CUDA_CHECK_BALANCE(st, tag);
}

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: test_cuda_faults MOCK_LIBRARY\n"), 2;
    if (mock_cuda_load(&mock, argv[1])) return 1;

    for (int c = 0; c < 4; c++) {
        const int graph = !(c & 1);
        cfg = &configs[c / 2];
        char mode[64];
        snprintf(mode, sizeof(mode), "%s, %s", cfg->name, graph ? "graphs" : "direct");
        if (graph) unsetenv("VMAF_CUDA_NO_GRAPH");
        else setenv("VMAF_CUDA_NO_GRAPH", "1", 1);
        run(0, mode); /* no failure: how many fallible calls a run makes */
        check_balance(0, mode);
        const long total = mock.stats().calls;
        CHECK(total > 50, "%s: only %ld fallible calls in a run", mode, total);
        CHECK(!failed_runs, "%s: a run without failures failed", mode);
        long injected = 0;
        failed_runs = 0;
        if (argc > 2) { /* one run (per mode), verbose */
            const long n = atol(argv[2]);
            run(n, mode);
            check_balance(n, mode);
            printf("%s n=%ld: failed %s; a call returned an error: %s\n", mode, n,
                   mock.injected_into(), failed_runs ? "yes" : "no");
            failed_runs = 0;
            continue;
        }
        for (long n = 1; n <= total; n++) {
            run(n, mode);
            check_balance(n, mode);
            injected += mock.stats().injected;
        }
        CHECK(injected == total, "%s: %ld of %ld failures injected", mode, injected, total);
        CHECK(failed_runs > total / 2, "%s: only %ld of %ld runs with a failing call failed",
              mode, failed_runs, total);
        printf("cuda_faults %s: %ld runs, each with one of the run's %ld fallible driver calls "
               "failing; %ld of them returned an error\n", mode, total, total, failed_runs);
        failed_runs = 0;
    }
    dlclose(mock.lib);
    printf("cuda_faults: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
