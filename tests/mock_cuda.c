/*
 * A stand-in for libcuda.so.1 (built as mock_cuda/libcuda.so.1, found through
 * LD_LIBRARY_PATH), so that the library's driver handling runs on machines without a GPU:
 * test_cuda_async drives the asynchronous state opening (vmaf_cuda_state_init_async) with it.
 * It exports only cuGetProcAddress_v2, as the library resolves every entry point through
 * it; the entry points below are the ones the state and a device picture pool call, any other
 * name gets one that fails with CUDA_ERROR_NOT_SUPPORTED. One device; contexts are tracked
 * per thread, so that a call made without the context current fails as the driver's would.
 * Controlled by the test through mock_cuda_control() (dlsym on the same library):
 *   gate:        cuDevicePrimaryCtxRetain blocks until mock_cuda_open_gate();
 *   retain_fail: it then fails with CUDA_ERROR_DEVICE_UNAVAILABLE (so does it whenever
 *                MOCK_CUDA_RETAIN_FAIL is set: the CLI's test, tests/cli_cuda_open.sh).
 */
#include <cuda.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MOCK_EXPORT __attribute__((visibility("default")))

typedef struct MockCudaStats {
    int retains, releases;  /* successful primary-context retains and releases */
    int pushes, pops;       /* successful pushes and pops */
    int allocs, frees;      /* device allocations and frees */
    int no_context;         /* calls that needed a current context and had none */
} MockCudaStats;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool gate_closed, retain_fail;
    int primary_refs;
    MockCudaStats st;
    unsigned long long next_ptr;
} mock = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, 0, { 0 }, 1 << 20 };

static int primary_ctx; /* its address is the device's primary context */
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
    if (need_context()) return CUDA_ERROR_INVALID_CONTEXT;
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

static CUresult m_in_context(void)
{
    return need_context();
}

static CUresult m_host_alloc(void **p, size_t size, unsigned flags)
{
    (void)flags;
    if (need_context()) return CUDA_ERROR_INVALID_CONTEXT;
    *p = malloc(size ? size : 1);
    return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult m_host_free(void *p)
{
    if (need_context()) return CUDA_ERROR_INVALID_CONTEXT;
    free(p);
    return CUDA_SUCCESS;
}

static CUresult m_module_load(CUmodule *m, const void *image)
{
    (void)image;
    if (need_context()) return CUDA_ERROR_INVALID_CONTEXT;
    *m = (CUmodule)(void *)&primary_ctx;
    return CUDA_SUCCESS;
}

static CUresult m_error_name(CUresult r, const char **name)
{
    *name = r == CUDA_ERROR_DEVICE_UNAVAILABLE ? "CUDA_ERROR_DEVICE_UNAVAILABLE" : "CUDA_ERROR_MOCK";
    return CUDA_SUCCESS;
}

static CUresult m_error_string(CUresult r, const char **text)
{
    (void)r;
    *text = "mock driver (tests/mock_cuda.c)";
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
    { "cuMemsetD8Async", (void *)m_in_context },
    { "cuStreamSynchronize", (void *)m_in_context },
    { "cuCtxSynchronize", (void *)m_in_context },
    { "cuMemHostAlloc", (void *)m_host_alloc },
    { "cuMemFreeHost", (void *)m_host_free },
    { "cuModuleLoadData", (void *)m_module_load },
    { "cuModuleUnload", (void *)m_in_context },
    { "cuGetErrorName", (void *)m_error_name },
    { "cuGetErrorString", (void *)m_error_string },
};

MOCK_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version,
                                         cuuint64_t flags, CUdriverProcAddressQueryResult *found)
{
    (void)version, (void)flags;
    /* the optional entry points (kernel listing) are absent, as in drivers before 12.4 */
    if (!strcmp(symbol, "cuModuleGetFunctionCount") || !strcmp(symbol, "cuModuleEnumerateFunctions") ||
        !strcmp(symbol, "cuFuncGetName")) {
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
