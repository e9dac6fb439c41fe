/*
 * vmaf_cuda_state_init_async() against the mock driver (tests/mock_cuda.c, loaded as
 * libcuda.so.1 through LD_LIBRARY_PATH): it returns while the context is still being made,
 * the first call that needs the device waits for it and then runs in it, a failed opening
 * fails every such call with its error, and freeing a state that is still opening neither
 * hangs nor leaks the context. The synchronous inits are checked against the same mock.
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


static void (*control)(bool close_gate, bool retain_fail);
static void (*open_gate)(void);
static MockCudaStats (*stats)(void);

static void *open_gate_later(void *arg)
{
    (void)arg;
    nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
    open_gate();
    return NULL;
}

/* A context on `state` with a device picture pool (its first buffer is allocated in the
 * state's context when the pool is made) and a picture from it; 0 or the first error. */
static int fetch_device_picture(VmafCudaState *state, VmafContext **v, VmafPicture *pic)
{
    int err = vmaf_init(v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_NONE });
    if (err) return err;
    err = vmaf_cuda_import_state(*v, state);
    if (!err)
        err = vmaf_cuda_preallocate_pictures(*v, (VmafCudaPictureConfiguration){
            .pic_params = { .w = 64, .h = 48, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P },
            .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
        });
    return err ? err : vmaf_cuda_fetch_preallocated_picture(*v, pic);
}

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: test_cuda_async MOCK_LIBRARY\n"), 2;
    VmafCudaState *s = NULL;
    /* the library's dlopen("libcuda.so.1") finds this same file (LD_LIBRARY_PATH) */
    void *mock = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!mock) return fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror()), 1;
    *(void **)&control = dlsym(mock, "mock_cuda_control");
    *(void **)&open_gate = dlsym(mock, "mock_cuda_open_gate");
    *(void **)&stats = dlsym(mock, "mock_cuda_stats");
    if (!control || !open_gate || !stats) return fprintf(stderr, "not the mock driver\n"), 1;

    /* 1. the synchronous init holds the context when it returns */
    control(false, false);
    CHECK(!vmaf_cuda_state_init_device(&s, 0) && s, "sync init");
    CHECK(stats().retains == 1, "sync: retained at return (%d)", stats().retains);
    vmaf_cuda_state_free(s);
    CHECK(stats().releases == 1, "sync: released");

    /* 2. async: returns while the retain is blocked; a call that needs the device waits */
    control(true, false);
    s = NULL;
    CHECK(!vmaf_cuda_state_init_async(&s, 0) && s, "async init");
    CHECK(stats().retains == 1, "async: not yet retained at return (%d)", stats().retains);
    pthread_t gate;
    CHECK(!pthread_create(&gate, NULL, open_gate_later, NULL), "thread");
    VmafContext *v = NULL;
    VmafPicture pic = { 0 };
    int err = fetch_device_picture(s, &v, &pic);
    CHECK(!err, "async: device picture after the opening: %d", err);
    CHECK(stats().retains == 2, "async: retained before the picture (%d)", stats().retains);
    CHECK(stats().allocs >= 1 && !stats().no_context, "async: allocated in the context "
          "(allocs %d, calls without context %d)", stats().allocs, stats().no_context);
    pthread_join(gate, NULL);
    if (!err) vmaf_picture_unref(&pic);
    vmaf_close(v);
    vmaf_cuda_state_free(s);
    CHECK(stats().releases == 2, "async: released (%d)", stats().releases);

    /* 3. async, freed while still opening: the free waits for the opening, then releases */
    control(true, false);
    CHECK(!vmaf_cuda_state_init_async(&s, 0) && s, "async init (freed at once)");
    CHECK(!pthread_create(&gate, NULL, open_gate_later, NULL), "thread");
    vmaf_cuda_state_free(s);
    pthread_join(gate, NULL);
    CHECK(stats().retains == 3 && stats().releases == 3, "freed while opening: retains %d, "
          "releases %d", stats().retains, stats().releases);

    /* 4. async whose opening fails: init succeeds, every call that needs the device fails */
    control(true, true);
    CHECK(!vmaf_cuda_state_init_async(&s, 0) && s, "async init (failing)");
    open_gate();
    v = NULL;
    err = fetch_device_picture(s, &v, &pic);
    CHECK(err == -EIO, "failed opening: first call %d", err);
    err = vmaf_cuda_preallocate_pictures(v, (VmafCudaPictureConfiguration){
        .pic_params = { .w = 64, .h = 48, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P },
        .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
    });
    CHECK(err == -EIO, "failed opening: again %d", err);
    vmaf_close(v);
    vmaf_cuda_state_free(s);

    /* 5. the synchronous init reports the same failure at once */
    control(false, true);
    s = (VmafCudaState *)&s;
    err = vmaf_cuda_state_init_device(&s, 0);
    CHECK(err == -EIO && !s, "sync failing: %d", err);
    s = (VmafCudaState *)&s;
    CHECK(vmaf_cuda_state_init_async(&s, 1) == -ENODEV && !s, "async: no device 1");

    const MockCudaStats st = stats();
    CHECK(st.retains == 3 && st.releases == 3, "contexts: %d retained, %d released", st.retains,
          st.releases);
    CHECK(st.pushes == st.pops, "pushes %d, pops %d", st.pushes, st.pops);
    CHECK(st.allocs == st.frees, "device buffers: %d allocated, %d freed", st.allocs, st.frees);
    CHECK(!st.no_context, "%d calls without a current context", st.no_context);
    dlclose(mock);
    printf("cuda_async: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
