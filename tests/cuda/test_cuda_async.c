/*
 * vmaf_cuda_state_init_async() against the mock driver (tests/cuda/mock_cuda.c, loaded as
 * libcuda.so.1 through LD_LIBRARY_PATH): it returns while the context is still being made,
 * the first call that needs the device waits for it and then runs in it, a failed opening
 * fails every such call with its error, and freeing a state that is still opening neither
 * hangs nor leaks the context. The synchronous inits are checked against the same mock,
 * also on a caller's context (used, never released).
 * Usage: test_cuda_async MOCK_LIBRARY (built only with the CUDA backend)
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "mock_cuda.h"
#include "test_util.h"


static MockCuda mock;

/* the device pool of the cases: its first buffer is allocated when the pool is made */
static const VmafCudaPictureConfiguration device_pool = {
    .pic_params = { .w = 64, .h = 48, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P },
    .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
};

static void *open_gate_later(void *arg)
{
    (void)arg;
    nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
    mock.open_gate();
    return NULL;
}

/* A context on `state` with a device picture pool (its first buffer is allocated in the
 * state's context when the pool is made) and a picture from it; 0 or the first error. */
static int fetch_device_picture(VmafCudaState *state, VmafContext **v, VmafPicture *pic)
{
    int err = vmaf_init(v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_NONE });
    if (err) return err;
    err = vmaf_cuda_import_state(*v, state);
    if (!err) err = vmaf_cuda_preallocate_pictures(*v, device_pool);
    return err ? err : vmaf_cuda_fetch_preallocated_picture(*v, pic);
}

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: test_cuda_async MOCK_LIBRARY\n"), 2;
    VmafCudaState *s = NULL;
    if (mock_cuda_load(&mock, argv[1])) return 1;

    /* 1. the synchronous init holds the context when it returns */
    mock.control(false, false);
    CHECK(!vmaf_cuda_state_init_device(&s, 0) && s, "sync init");
    CHECK(mock.stats().retains == 1, "sync: retained at return (%d)", mock.stats().retains);
    vmaf_cuda_state_free(s);
    CHECK(mock.stats().releases == 1, "sync: released");

    /* 2. async: returns while the retain is blocked; a call that needs the device waits */
    mock.control(true, false);
    s = NULL;
    CHECK(!vmaf_cuda_state_init_async(&s, 0) && s, "async init");
    CHECK(mock.stats().retains == 1, "async: not yet retained at return (%d)",
          mock.stats().retains);
    pthread_t gate;
    CHECK(!pthread_create(&gate, NULL, open_gate_later, NULL), "thread");
    VmafContext *v = NULL;
    VmafPicture pic = { 0 };
    int err = fetch_device_picture(s, &v, &pic);
    CHECK(!err, "async: device picture after the opening: %d", err);
    const MockCudaStats opened = mock.stats();
    CHECK(opened.retains == 2, "async: retained before the picture (%d)", opened.retains);
    CHECK(opened.allocs >= 1 && !opened.no_context, "async: allocated in the context (allocs "
          "%d, calls without context %d)", opened.allocs, opened.no_context);
    pthread_join(gate, NULL);
    if (!err) vmaf_picture_unref(&pic);
    vmaf_close(v);
    vmaf_cuda_state_free(s);
    CHECK(mock.stats().releases == 2, "async: released (%d)", mock.stats().releases);

    /* 3. async, freed while still opening: the free waits for the opening, then releases */
    mock.control(true, false);
    CHECK(!vmaf_cuda_state_init_async(&s, 0) && s, "async init (freed at once)");
    CHECK(!pthread_create(&gate, NULL, open_gate_later, NULL), "thread");
    vmaf_cuda_state_free(s);
    pthread_join(gate, NULL);
    const MockCudaStats freed = mock.stats();
    CHECK(freed.retains == 3 && freed.releases == 3, "freed while opening: retains %d, "
          "releases %d", freed.retains, freed.releases);

    /* 4. async whose opening fails: init succeeds, every call that needs the device fails */
    mock.control(true, true);
    CHECK(!vmaf_cuda_state_init_async(&s, 0) && s, "async init (failing)");
    mock.open_gate();
    v = NULL;
    err = fetch_device_picture(s, &v, &pic);
    CHECK(err == -EIO, "failed opening: first call %d", err);
    err = vmaf_cuda_preallocate_pictures(v, device_pool);
    CHECK(err == -EIO, "failed opening: again %d", err);
    vmaf_close(v);
    vmaf_cuda_state_free(s);

    /* 5. the synchronous init reports the same failure at once */
    mock.control(false, true);
    s = (VmafCudaState *)&s;
    err = vmaf_cuda_state_init_device(&s, 0);
    CHECK(err == -EIO && !s, "sync failing: %d", err);
    s = (VmafCudaState *)&s;
    CHECK(vmaf_cuda_state_init_async(&s, 1) == -ENODEV && !s, "async: no device 1");

    /* 6. the caller's context (FFmpeg's way): the state uses it and leaves it to the caller;
     * here the mock's primary context, retained through the mock's own entry points */
    mock.control(false, false);
    int (*get)(const char *, void **, int, unsigned long long, int *);
    int (*retain)(void **, int), (*release)(int);
    *(void **)&get = dlsym(mock.lib, "cuGetProcAddress_v2");
    void *ctx = NULL;
    CHECK(get && !get("cuDevicePrimaryCtxRetain", (void **)&retain, 12000, 0, NULL) &&
          !get("cuDevicePrimaryCtxRelease", (void **)&release, 12000, 0, NULL) &&
          !retain(&ctx, 0) && ctx, "the caller's context");
    const MockCudaStats before = mock.stats();
    s = NULL;
    err = ctx ? vmaf_cuda_state_init(&s, (VmafCudaConfiguration){ .cu_ctx = ctx }) : -EINVAL;
    CHECK(!err && s, "init on the caller's context: %d", err);
    vmaf_cuda_state_free(s);
    const MockCudaStats after = mock.stats();
    CHECK(after.retains == before.retains && after.releases == before.releases,
          "the caller's context retained or released by the state");
    CHECK(after.modules > before.modules &&
              after.modules - before.modules == after.modules_unloaded - before.modules_unloaded,
          "modules in the caller's context: %d loaded, %d unloaded",
          after.modules - before.modules, after.modules_unloaded - before.modules_unloaded);
    if (ctx) release(0);

    const MockCudaStats st = mock.stats();
    CHECK(st.retains == 4, "contexts: %d retained", st.retains);
    MOCK_CUDA_CHECK_BALANCE(st, "");
    dlclose(mock.lib);
    printf("cuda_async: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
