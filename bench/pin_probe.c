/*
 * Where pinned host memory's cost goes on this machine: the CUDA driver's start-up
 * steps, then N picture-sized buffers pinned several ways, each line "what: ms" (and GB/s
 * where it is a rate). Loads libcuda.so.1 at run time like the library; exit 77 without it.
 *   pin_probe [BYTES [N [release]]]   (default: one 4K 4:2:0 8-bit picture, 3840 x 2160 x 1.5;
 *                                     N = 24; release: release the context before exit, timed)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "driver_probe.h"

#define FNS(X)                                                                                \
    X(cuInit) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) X(cuCtxPushCurrent) X(cuCtxSetCurrent) \
    X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemHostRegister) X(cuMemHostUnregister)            \
    X(cuMemAlloc) X(cuMemcpyHtoD) X(cuCtxSynchronize) X(cuDevicePrimaryCtxRelease) X(cuMemFree)
FNS(PROBE_DECL)

static size_t bytes;
static unsigned n;
static CUcontext ctx;

static void *pin_part(void *arg)
{
    void **bufs = arg;
    p_cuCtxSetCurrent(ctx);
    for (unsigned i = 0; i < n / 4; i++)
        if (p_cuMemHostAlloc(&bufs[i], bytes, CU_MEMHOSTALLOC_PORTABLE)) bufs[i] = NULL;
    return NULL;
}

static double h2d_gbs(CUdeviceptr dev, void *host)
{
    p_cuMemcpyHtoD(dev, host, bytes);
    const double t0 = now_ms();
    for (int r = 0; r < 20; r++) p_cuMemcpyHtoD(dev, host, bytes);
    return 20.0 * bytes / ((now_ms() - t0) * 1e6);
}

int main(int argc, char **argv)
{
    bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)3840 * 2160 * 3 / 2;
    n = argc > 2 ? (unsigned)atoi(argv[2]) : 24;
    if (n < 4) n = 4;
    double t = now_ms();
    PROBE_LOAD(lib, FNS)
    printf("dlopen + resolve: %.1f ms\n", now_ms() - t);
    t = now_ms();
    if (p_cuInit(0)) return printf("cuInit failed\n"), 77;
    printf("cuInit: %.1f ms\n", now_ms() - t);
    CUdevice dev;
    t = now_ms();
    p_cuDeviceGet(&dev, 0);
    p_cuDevicePrimaryCtxRetain(&ctx, dev);
    p_cuCtxPushCurrent(ctx);
    printf("primary context retain + push: %.1f ms\n", now_ms() - t);
    CUdeviceptr dptr;
    t = now_ms();
    p_cuMemAlloc(&dptr, bytes);
    printf("first cuMemAlloc (%zu B): %.1f ms\n", bytes, now_ms() - t);
    const double mb = bytes / 1e6;
    printf("buffers: %u x %.2f MB\n", n, mb);

    void **a = calloc(n, sizeof(void *));
    t = now_ms();
    for (unsigned i = 0; i < n; i++) p_cuMemHostAlloc(&a[i], bytes, CU_MEMHOSTALLOC_PORTABLE);
    double dt = now_ms() - t;
    printf("cuMemHostAlloc each: %.2f ms per buffer (%.2f GB/s)\n", dt / n, n * mb / dt / 1e3);
    t = now_ms();
    for (unsigned i = 0; i < n; i++) memset(a[i], i, bytes);
    printf("  first write of them: %.2f ms per buffer\n", (now_ms() - t) / n);
    printf("  H2D from it: %.1f GB/s\n", h2d_gbs(dptr, a[0]));
    t = now_ms();
    for (unsigned i = 0; i < n; i++) p_cuMemFreeHost(a[i]);
    printf("  cuMemFreeHost: %.2f ms per buffer\n", (now_ms() - t) / n);

    void *slab;
    t = now_ms();
    p_cuMemHostAlloc(&slab, bytes * n, CU_MEMHOSTALLOC_PORTABLE);
    dt = now_ms() - t;
    printf("cuMemHostAlloc one slab of %u: %.2f ms per buffer (%.2f GB/s)\n", n, dt / n,
           n * mb / dt / 1e3);
    p_cuMemFreeHost(slab);

    for (int huge = 0; huge < 2; huge++) {
        const size_t align = (size_t)2 << 20, sz = (bytes + align - 1) / align * align;
        double t_fault = 0, t_reg = 0;
        for (unsigned i = 0; i < n; i++) {
            a[i] = aligned_alloc(align, sz);
            if (huge) madvise(a[i], sz, MADV_HUGEPAGE);
            t = now_ms();
            memset(a[i], i, sz);
            t_fault += now_ms() - t;
            t = now_ms();
            p_cuMemHostRegister(a[i], sz, CU_MEMHOSTREGISTER_PORTABLE);
            t_reg += now_ms() - t;
        }
        printf("aligned_alloc%s + write + cuMemHostRegister: write %.2f, register %.2f ms per buffer "
               "(register %.2f GB/s)\n", huge ? " + MADV_HUGEPAGE" : "", t_fault / n, t_reg / n,
               n * mb / t_reg / 1e3);
        printf("  H2D from it: %.1f GB/s\n", h2d_gbs(dptr, a[0]));
        t = now_ms();
        for (unsigned i = 0; i < n; i++) {
            p_cuMemHostUnregister(a[i]);
            free(a[i]);
        }
        printf("  unregister + free: %.2f ms per buffer\n", (now_ms() - t) / n);
    }

    /* 4 threads pinning a quarter each */
    pthread_t th[4];
    t = now_ms();
    for (int k = 0; k < 4; k++) pthread_create(&th[k], NULL, pin_part, a + k * (n / 4));
    for (int k = 0; k < 4; k++) pthread_join(th[k], NULL);
    dt = now_ms() - t;
    printf("cuMemHostAlloc in 4 threads: %.2f ms per buffer wall (%.2f GB/s)\n", dt / (4 * (n / 4)),
           4 * (n / 4) * mb / dt / 1e3);
    for (unsigned i = 0; i < 4 * (n / 4); i++)
        if (a[i]) p_cuMemFreeHost(a[i]);
    free(a);
    if (argc > 3 && !strcmp(argv[3], "release")) {
        p_cuMemFree(dptr);
        t = now_ms();
        p_cuDevicePrimaryCtxRelease(dev);
        printf("primary context release: %.1f ms\n", now_ms() - t);
        t = now_ms();
        dlclose(lib);
        printf("dlclose(libcuda): %.1f ms\n", now_ms() - t);
    }
    return 0;
}
