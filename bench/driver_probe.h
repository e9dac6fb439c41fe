/* The driver probes' common part (bench/pin_probe.c, bench/ctx_probe.c): libcuda.so.1 loaded at
 * run time like the library, each function of the probe's FNS(X) list resolved by
 * cuGetProcAddress for the CUDA version built against, and a millisecond clock. */
#ifndef VMAF_BENCH_DRIVER_PROBE_H
#define VMAF_BENCH_DRIVER_PROBE_H

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

typedef CUresult (*ProbeGetProc)(const char *, void **, int, cuuint64_t,
                                 CUdriverProcAddressQueryResult *);

static inline double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define PROBE_DECL(name) static __typeof__(&name) p_##name;
#define PROBE_RESOLVE(name)                                                                  \
    if (!get || get(#name, (void **)&p_##name, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &q) || \
        !p_##name)                                                                           \
        return printf("cannot resolve %s\n", #name), 1;
/* In main: load the driver and resolve FNS (exit 77 without libcuda.so.1, 1 on a missing
 * function); lib receives the handle. */
#define PROBE_LOAD(lib, FNS)                                                                 \
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);                               \
    if (!lib) return printf("no libcuda.so.1\n"), 77;                                         \
    ProbeGetProc get = (ProbeGetProc)dlsym(lib, "cuGetProcAddress_v2");                      \
    CUdriverProcAddressQueryResult q;                                                        \
    FNS(PROBE_RESOLVE)

#endif /* VMAF_BENCH_DRIVER_PROBE_H */
