/*
 * A stand-in for libcuda.so.1 (built as mock_cuda/libcuda.so.1, found through
 * LD_LIBRARY_PATH), so that the library's driver handling runs on machines without a GPU:
 * test_cuda_async drives the asynchronous state opening (vmaf_cuda_state_init_async) with it.
 * It exports only cuGetProcAddress_v2, as the library resolves every entry point through
 * it; the entry points below are the ones the state, the picture pools and the backend call
 * (copies, launches and graphs do nothing: device memory is addresses only), any other name
 * gets one that fails with CUDA_ERROR_NOT_SUPPORTED. One device; contexts are tracked per
 * thread, so that a call made without the context current fails as the driver's would.
 * test_cuda_faults makes its fallible calls fail one by one (mock_cuda_fail_at).
 * Controlled by the test through mock_cuda_control() (dlsym on the same library):
 *   gate:        cuDevicePrimaryCtxRetain blocks until mock_cuda_open_gate();
 *   retain_fail: it then fails with CUDA_ERROR_DEVICE_UNAVAILABLE (so does it whenever
 *                MOCK_CUDA_RETAIN_FAIL is set: the CLI's test, tests/cuda/cli_cuda_open.sh).
 */
#include <cuda.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOCK_EXPORT __attribute__((visibility("default")))

#include "mock_cuda.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool gate_closed, retain_fail;
    int primary_refs;
    MockCudaStats st;
    unsigned long long next_ptr;
    long fail_at; /* the fallible call that fails (1-based; 0: none) */
    pthread_t tester; /* the thread that set fail_at */
} mock = { .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER,
            .next_ptr = 1 << 20 };

static int primary_ctx; /* its address is the device's primary context */
static const char *injected_into; /* the entry point of the injected failure */
static _Thread_local int depth; /* contexts pushed on this thread */

MOCK_EXPORT void mock_cuda_control(bool close_gate, bool retain_fail)
{
    pthread_mutex_lock(&mock.lock);
    mock.gate_closed = close_gate;
    mock.retain_fail = retain_fail;
    pthread_cond_broadcast(&mock.changed);
    pthread_mutex_unlock(&mock.lock);
}

MOCK_EXPORT void mock_cuda_open_gate(void)
{
    pthread_mutex_lock(&mock.lock);
    mock.gate_closed = false;
    pthread_cond_broadcast(&mock.changed);
    pthread_mutex_unlock(&mock.lock);
}

/* Fail the n-th fallible call from now on (1-based; 0: none) and reset the statistics. */
MOCK_EXPORT void mock_cuda_fail_at(long n)
{
    pthread_mutex_lock(&mock.lock);
    mock.fail_at = n;
    mock.tester = pthread_self();
    mock.st = (MockCudaStats){ 0 };
    injected_into = NULL;
    pthread_mutex_unlock(&mock.lock);
}

MOCK_EXPORT MockCudaStats mock_cuda_stats(void)
{
    pthread_mutex_lock(&mock.lock);
    const MockCudaStats s = mock.st;
    pthread_mutex_unlock(&mock.lock);
    return s;
}

static CUresult count(int *field)
{
    pthread_mutex_lock(&mock.lock);
    (*field)++;
    pthread_mutex_unlock(&mock.lock);
    return CUDA_SUCCESS;
}

static CUresult need_context(void)
{
    if (depth > 0) return CUDA_SUCCESS;
    count(&mock.st.no_context);
    return CUDA_ERROR_INVALID_CONTEXT;
}

/* A call that can fail: in the context, and the injected failure when its turn comes. */
static CUresult fallible_named(const char *name)
{
    if (need_context()) return CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_lock(&mock.lock);
    const bool fail = ++mock.st.calls == mock.fail_at;
    mock.st.injected += fail;
    if (fail) {
        injected_into = name;
        mock.st.injected_elsewhere += !pthread_equal(pthread_self(), mock.tester);
    }
    pthread_mutex_unlock(&mock.lock);
    return fail ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}

#define fallible() fallible_named(__func__)

/* Which entry point the last injected failure hit (its mock's name). */
MOCK_EXPORT const char *mock_cuda_injected_into(void)
{
    pthread_mutex_lock(&mock.lock);
    const char *n = injected_into;
    pthread_mutex_unlock(&mock.lock);
    return n ? n : "";
}

/* A fresh handle (never dereferenced by the library) and its counter. */
static void *handle(int *created)
{
    pthread_mutex_lock(&mock.lock);
    void *h = (void *)(uintptr_t)mock.next_ptr;
    mock.next_ptr += 256;
    (*created)++;
    pthread_mutex_unlock(&mock.lock);
    return h;
}

/* A creation that can fail: on success a fresh handle in *out, counted in *counter. */
#define MOCK_CREATE(out, counter)          \
    do {                                   \
        const CUresult r_ = fallible();    \
        if (r_) return r_;                 \
        *(out) = handle(counter);          \
        return CUDA_SUCCESS;               \
    } while (0)

static CUresult destroyed(const void *h, int *counter)
{
    if (need_context() || !h) return CUDA_ERROR_INVALID_HANDLE;
    return count(counter);
}

static CUresult m_unsupported(void)
{
    return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult m_init(unsigned flags)
{
    return flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

static CUresult m_device_get_count(int *n)
{
    *n = 1;
    return CUDA_SUCCESS;
}

static CUresult m_device_get(CUdevice *dev, int ordinal)
{
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
}

static CUresult m_retain(CUcontext *ctx, CUdevice dev)
{
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&mock.lock);
    while (mock.gate_closed) pthread_cond_wait(&mock.changed, &mock.lock);
    const bool fail = mock.retain_fail || getenv("MOCK_CUDA_RETAIN_FAIL");
    if (!fail) mock.st.retains++, mock.primary_refs++;
    pthread_mutex_unlock(&mock.lock);
    if (fail) return CUDA_ERROR_DEVICE_UNAVAILABLE;
    *ctx = (CUcontext)(void *)&primary_ctx;
    return CUDA_SUCCESS;
}

static CUresult m_release(CUdevice dev)
{
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&mock.lock);
    const bool held = mock.primary_refs > 0;
    if (held) mock.primary_refs--, mock.st.releases++;
    pthread_mutex_unlock(&mock.lock);
    return held ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static CUresult m_push(CUcontext ctx)
{
    if (ctx != (CUcontext)(void *)&primary_ctx) return CUDA_ERROR_INVALID_CONTEXT;
    depth++;
    return count(&mock.st.pushes);
}

static CUresult m_pop(CUcontext *prev)
{
    if (depth <= 0) return CUDA_ERROR_INVALID_CONTEXT;
    depth--;
    if (prev) *prev = (CUcontext)(void *)&primary_ctx;
    return count(&mock.st.pops);
}

static CUresult m_ctx_get_device(CUdevice *dev)
{
    if (need_context()) return CUDA_ERROR_INVALID_CONTEXT;
    *dev = 0;
    return CUDA_SUCCESS;
}

static CUresult m_mem_alloc(CUdeviceptr *p, size_t size)
{
    const CUresult r = fallible();
    if (r) return r;
    pthread_mutex_lock(&mock.lock);
    *p = (CUdeviceptr)mock.next_ptr;
    mock.next_ptr += (size + 0xfffff) & ~(unsigned long long)0xfffff;
    mock.st.allocs++;
    pthread_mutex_unlock(&mock.lock);
    return CUDA_SUCCESS;
}

static CUresult m_mem_free(CUdeviceptr p)
{
    if (need_context() || !p) return CUDA_ERROR_INVALID_VALUE;
    return count(&mock.st.frees);
}

/* copies, memsets, syncs, launches, event records and waits: nothing happens (device
 * memory is only addresses), but each can fail (one function each, named in the failure) */
#define MOCK_FALLIBLE(name) \
    static CUresult m_##name(void) { return fallible_named(#name); }
MOCK_FALLIBLE(cuMemsetD8Async)
MOCK_FALLIBLE(cuMemcpyDtoHAsync)

/* uploads and device copies are counted too (a ladder's reference crosses the bus once) */
static CUresult m_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
    (void)dst, (void)src, (void)s;
    const CUresult r = fallible_named("cuMemcpyHtoDAsync");
    if (r) return r;
    pthread_mutex_lock(&mock.lock);
    mock.st.uploads++;
    mock.st.upload_bytes += (long long)bytes;
    pthread_mutex_unlock(&mock.lock);
    return r;
}

static CUresult m_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    (void)dst, (void)src, (void)s;
    const CUresult r = fallible_named("cuMemcpyDtoDAsync");
    if (r) return r;
    pthread_mutex_lock(&mock.lock);
    mock.st.device_copies++;
    mock.st.device_copy_bytes += (long long)bytes;
    pthread_mutex_unlock(&mock.lock);
    return r;
}
MOCK_FALLIBLE(cuMemcpy2DAsync)
MOCK_FALLIBLE(cuMemcpy2D)
MOCK_FALLIBLE(cuStreamSynchronize)
MOCK_FALLIBLE(cuStreamWaitEvent)
MOCK_FALLIBLE(cuCtxSynchronize)
MOCK_FALLIBLE(cuEventRecord)
MOCK_FALLIBLE(cuEventQuery)
MOCK_FALLIBLE(cuEventSynchronize)
MOCK_FALLIBLE(cuLaunchKernel)
MOCK_FALLIBLE(cuGraphLaunch)


static CUresult m_host_alloc(void **p, size_t size, unsigned flags)
{
    (void)flags;
    const CUresult r = fallible();
    if (r) return r;
    *p = calloc(1, size ? size : 1); /* zeroed: the downloads into it write nothing */
    if (!*p) return CUDA_ERROR_OUT_OF_MEMORY;
    return count(&mock.st.host_allocs);
}

static CUresult m_host_free(void *p)
{
    if (need_context()) return CUDA_ERROR_INVALID_CONTEXT;
    free(p);
    return count(&mock.st.host_frees);
}

static CUresult m_host_register(void *p, size_t size, unsigned flags)
{
    (void)p, (void)size, (void)flags;
    const CUresult r = fallible();
    return r ? r : count(&mock.st.registers);
}

static CUresult m_host_unregister(void *p)
{
    return destroyed(p, &mock.st.unregisters);
}

static CUresult m_module_load(CUmodule *m, const void *image)
{
    (void)image;
    MOCK_CREATE(m, &mock.st.modules);
}

static CUresult m_module_unload(CUmodule m)
{
    return destroyed(m, &mock.st.modules_unloaded);
}

static CUresult m_module_get_function(CUfunction *f, CUmodule m, const char *name)
{
    (void)m, (void)name;
    const CUresult r = fallible();
    if (r) return r;
    *f = (CUfunction)(void *)&primary_ctx;
    return CUDA_SUCCESS;
}

static CUresult m_stream_create(CUstream *st, unsigned flags)
{
    (void)flags;
    MOCK_CREATE(st, &mock.st.streams);
}

static CUresult m_stream_destroy(CUstream st)
{
    return destroyed(st, &mock.st.streams_destroyed);
}

static CUresult m_event_create(CUevent *ev, unsigned flags)
{
    (void)flags;
    MOCK_CREATE(ev, &mock.st.events);
}

static CUresult m_event_destroy(CUevent ev)
{
    return destroyed(ev, &mock.st.events_destroyed);
}

static CUresult m_event_elapsed(float *ms, CUevent a, CUevent b)
{
    (void)a, (void)b;
    *ms = 0.f;
    return fallible();
}

static CUresult m_graph_create(CUgraph *g, unsigned flags)
{
    (void)flags;
    MOCK_CREATE(g, &mock.st.graphs);
}

static CUresult m_graph_destroy(CUgraph g)
{
    return destroyed(g, &mock.st.graphs_destroyed);
}

static CUresult m_graph_add_node(CUgraphNode *node)
{
    const CUresult r = fallible();
    if (r) return r;
    *node = (CUgraphNode)(void *)&primary_ctx;
    return CUDA_SUCCESS;
}

static CUresult m_graph_add_kernel(CUgraphNode *node, CUgraph g, const CUgraphNode *deps, size_t n,
                                   const CUDA_KERNEL_NODE_PARAMS *p)
{
    (void)g, (void)deps, (void)n, (void)p;
    return m_graph_add_node(node);
}

static CUresult m_graph_add_memcpy(CUgraphNode *node, CUgraph g, const CUgraphNode *deps, size_t n,
                                   const CUDA_MEMCPY3D *p, CUcontext ctx)
{
    (void)g, (void)deps, (void)n, (void)p, (void)ctx;
    return m_graph_add_node(node);
}

static CUresult m_graph_add_memset(CUgraphNode *node, CUgraph g, const CUgraphNode *deps, size_t n,
                                   const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
    (void)g, (void)deps, (void)n, (void)p, (void)ctx;
    return m_graph_add_node(node);
}

static CUresult m_graph_instantiate(CUgraphExec *e, CUgraph g, unsigned long long flags)
{
    (void)g, (void)flags;
    MOCK_CREATE(e, &mock.st.execs);
}

static CUresult m_graph_exec_destroy(CUgraphExec e)
{
    return destroyed(e, &mock.st.execs_destroyed);
}

static CUresult m_device_name(char *name, int len, CUdevice dev)
{
    (void)dev;
    if (len > 0) snprintf(name, (size_t)len, "mock");
    return CUDA_SUCCESS;
}

static CUresult m_error_name(CUresult r, const char **name)
{
    *name = r == CUDA_ERROR_DEVICE_UNAVAILABLE ? "CUDA_ERROR_DEVICE_UNAVAILABLE"
                                                : "CUDA_ERROR_MOCK";
    return CUDA_SUCCESS;
}

static CUresult m_error_string(CUresult r, const char **text)
{
    (void)r;
    *text = "mock driver (tests/cuda/mock_cuda.c)";
    return CUDA_SUCCESS;
}

static const struct {
    const char *name;
    void *fn;
} entries[] = {
    { "cuInit", (void *)m_init },
    { "cuDeviceGetCount", (void *)m_device_get_count },
    { "cuDeviceGet", (void *)m_device_get },
    { "cuDevicePrimaryCtxRetain", (void *)m_retain },
    { "cuDevicePrimaryCtxRelease", (void *)m_release },
    { "cuCtxPushCurrent", (void *)m_push },
    { "cuCtxPopCurrent", (void *)m_pop },
    { "cuCtxGetDevice", (void *)m_ctx_get_device },
    { "cuMemAlloc", (void *)m_mem_alloc },
    { "cuMemFree", (void *)m_mem_free },
    { "cuMemsetD8Async", (void *)m_cuMemsetD8Async },
    { "cuMemcpyHtoDAsync", (void *)m_cuMemcpyHtoDAsync },
    { "cuMemcpyDtoHAsync", (void *)m_cuMemcpyDtoHAsync },
    { "cuMemcpyDtoDAsync", (void *)m_cuMemcpyDtoDAsync },
    { "cuMemcpy2DAsync", (void *)m_cuMemcpy2DAsync },
    { "cuMemcpy2D", (void *)m_cuMemcpy2D },
    { "cuStreamSynchronize", (void *)m_cuStreamSynchronize },
    { "cuStreamWaitEvent", (void *)m_cuStreamWaitEvent },
    { "cuCtxSynchronize", (void *)m_cuCtxSynchronize },
    { "cuEventRecord", (void *)m_cuEventRecord },
    { "cuEventQuery", (void *)m_cuEventQuery },
    { "cuEventSynchronize", (void *)m_cuEventSynchronize },
    { "cuLaunchKernel", (void *)m_cuLaunchKernel },
    { "cuGraphLaunch", (void *)m_cuGraphLaunch },
    { "cuMemHostAlloc", (void *)m_host_alloc },
    { "cuMemFreeHost", (void *)m_host_free },
    { "cuMemHostRegister", (void *)m_host_register },
    { "cuMemHostUnregister", (void *)m_host_unregister },
    { "cuModuleLoadData", (void *)m_module_load },
    { "cuModuleUnload", (void *)m_module_unload },
    { "cuModuleGetFunction", (void *)m_module_get_function },
    { "cuStreamCreate", (void *)m_stream_create },
    { "cuStreamDestroy", (void *)m_stream_destroy },
    { "cuEventCreate", (void *)m_event_create },
    { "cuEventDestroy", (void *)m_event_destroy },
    { "cuEventElapsedTime", (void *)m_event_elapsed },
    { "cuGraphCreate", (void *)m_graph_create },
    { "cuGraphDestroy", (void *)m_graph_destroy },
    { "cuGraphAddKernelNode", (void *)m_graph_add_kernel },
    { "cuGraphAddMemcpyNode", (void *)m_graph_add_memcpy },
    { "cuGraphAddMemsetNode", (void *)m_graph_add_memset },
    { "cuGraphInstantiateWithFlags", (void *)m_graph_instantiate },
    { "cuGraphExecDestroy", (void *)m_graph_exec_destroy },
    { "cuDeviceGetName", (void *)m_device_name },
    { "cuGetErrorName", (void *)m_error_name },
    { "cuGetErrorString", (void *)m_error_string },
};

MOCK_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version,
                                         cuuint64_t flags, CUdriverProcAddressQueryResult *found)
{
    (void)version, (void)flags;
    /* the optional entry points (kernel listing) are absent, as in drivers before 12.4 */
    if (!strcmp(symbol, "cuModuleGetFunctionCount") ||
        !strcmp(symbol, "cuModuleEnumerateFunctions") || !strcmp(symbol, "cuFuncGetName")) {
        *fn = NULL;
        if (found) *found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    *fn = (void *)m_unsupported;
    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
        if (!strcmp(symbol, entries[i].name)) *fn = entries[i].fn;
    if (found) *found = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}
