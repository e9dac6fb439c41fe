/*
 * The CUDA driver's fixed cost per process (the floor under a short run's start-up): load, cuInit, a
 * context made one of several ways, a first allocation, and its teardown, each line "what: ms".
 * Loads libcuda.so.1 at run time like the library; exit 77 without a device. Run it as whole
 * processes (bench/startup_probe.sh) to see what a bare driver client costs end to end.
 *   ctx_probe [primary|create|create_spin|create_blocking] [release|exit] [_exit]
 *   (default primary release: what the library does; exit: leave the context to process exit;
 *   _exit: end with _exit(), skipping the driver's exit handlers, instead of returning)
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "driver_probe.h"

#define FNS(X)                                                                               \
    X(cuInit) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)        \
    X(cuCtxPushCurrent) X(cuCtxCreate) X(cuCtxDestroy) X(cuMemAlloc) X(cuMemFree)            \
    X(cuStreamCreate) X(cuStreamDestroy)
FNS(PROBE_DECL)

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "primary";
    const int release = !(argc > 2 && !strcmp(argv[2], "exit"));
    double t = now_ms();
    PROBE_LOAD(lib, FNS)
    printf("%s: dlopen + resolve %.1f ms", how, now_ms() - t);
    t = now_ms();
    if (p_cuInit(0)) return printf("\ncuInit failed\n"), 77;
    printf(", cuInit %.1f ms", now_ms() - t);
    CUdevice dev;
    CUcontext ctx = NULL;
    t = now_ms();
    p_cuDeviceGet(&dev, 0);
    CUresult r;
    if (!strcmp(how, "primary")) {
        r = p_cuDevicePrimaryCtxRetain(&ctx, dev);
        if (!r) r = p_cuCtxPushCurrent(ctx);
    } else {
        const unsigned flags = !strcmp(how, "create_spin")       ? CU_CTX_SCHED_SPIN
                               : !strcmp(how, "create_blocking") ? CU_CTX_SCHED_BLOCKING_SYNC
                                                                 : CU_CTX_SCHED_AUTO;
        r = p_cuCtxCreate(&ctx, NULL, flags, dev); /* CUDA 13: cuCtxCreate_v4 */
    }
    if (r) return printf("\ncontext: error %d\n", (int)r), 1;
    printf(", context %.1f ms", now_ms() - t);
    CUdeviceptr d;
    CUstream s;
    t = now_ms();
    p_cuMemAlloc(&d, (size_t)3840 * 2160 * 3 / 2);
    p_cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    printf(", first alloc + stream %.1f ms", now_ms() - t);
    if (release) {
        t = now_ms();
        p_cuStreamDestroy(s);
        p_cuMemFree(d);
        if (!strcmp(how, "primary")) p_cuDevicePrimaryCtxRelease(dev);
        else p_cuCtxDestroy(ctx);
        printf(", release %.1f ms", now_ms() - t);
    }
    printf("\n");
    if (argc > 3 && !strcmp(argv[3], "_exit")) {
        fflush(stdout);
        _exit(0);
    }
    return 0;
}
