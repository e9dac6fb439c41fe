/*
 * A stand-in for the OpenCL ICD loader (built as mock_opencl/libmock_opencl.so, opened by the
 * library through VMAF_OPENCL_LIBRARY), so that the OpenCL state and backend run their error
 * paths without an OpenCL runtime: test_opencl_faults makes the n-th call of each entry point
 * fail, one at a time.
 *
 * It exports every entry point of VMAF_OPENCL_FUNCTIONS (src/opencl/loader.h) and no other:
 * one platform with one GPU device (fp64, 64-bit atomics, correctly rounded divide and sqrt),
 * contexts, in-order queues, programs (built at once; a binary is the source text behind a
 * tag, so the binary cache round-trips), kernels (found only when the program's text declares
 * them, as `__kernel void NAME(`, `VMAF_KERNEL(NAME` or `VMAF_KERNEL_SHARED(NAME`: a name no
 * program declares keeps the twin on the CPU, as on a real device), buffers in host memory
 * (writes, reads and fills do what they say; a mapping is the buffer's own memory, counted
 * until unmapped, and a buffer released while mapped is a misuse), launches that do nothing
 * (scores are garbage:
 * what is tested is the host's handling), events (with made-up profiling times), and
 * cl_khr_command_buffer (found with clGetExtensionFunctionAddressForPlatform, as from a real
 * ICD, not exported): recorded commands checked as they are recorded and again when replayed
 * (a kernel or buffer released meanwhile is a misuse), clears and copies done when replayed.
 * Its version ($MOCK_OPENCL_COMMAND_BUFFER_VERSION: 0.9.0 to 0.9.4, whose fill and copy take
 * no properties, or 0.9.5 on, whose do; "none": no extension; default 0.9.5) decides which
 * signature the mock's fill and copy have: a caller using the other one passes a buffer where
 * the mock reads another argument, a misuse.
 *
 * Every object is checked where it is used: a released or foreign handle, a range outside its
 * buffer, a kernel enqueued before its arguments are set, a query it does not know: each is
 * counted as a misuse (and refused as a driver would), so a test sees them. Objects are
 * counted as they are created and released; the releases (and unmaps) never fail.
 * Controls (dlsym, tests/opencl/mock_opencl.h): mock_opencl_reset(name, n, err) fails the n-th
 * call of entry point name with err.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOCK_EXPORT __attribute__((visibility("default")))

#include "mock_opencl.h"

#define ENTRIES(X)                                                                          \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)           \
    X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue)                          \
    X(clReleaseCommandQueue) X(clCreateProgramWithSource) X(clCreateProgramWithBinary)      \
    X(clBuildProgram) X(clGetProgramInfo) X(clGetProgramBuildInfo) X(clReleaseProgram)      \
    X(clCreateKernel) X(clReleaseKernel) X(clSetKernelArg) X(clCreateBuffer)                \
    X(clReleaseMemObject) X(clEnqueueWriteBuffer) X(clEnqueueReadBuffer)                    \
    X(clEnqueueNDRangeKernel) X(clFinish) X(clFlush) X(clWaitForEvents) X(clReleaseEvent)   \
    X(clEnqueueMarkerWithWaitList) X(clEnqueueFillBuffer) X(clGetKernelWorkGroupInfo)       \
    X(clEnqueueMapBuffer) X(clEnqueueUnmapMemObject) X(clGetEventProfilingInfo)             \
    X(clGetExtensionFunctionAddressForPlatform) X(clEnqueueCopyBuffer)

/* cl_khr_command_buffer's, handed out by clGetExtensionFunctionAddressForPlatform */
#define EXTENSION_ENTRIES(X)                                                                \
    X(clCreateCommandBufferKHR) X(clFinalizeCommandBufferKHR) X(clReleaseCommandBufferKHR)  \
    X(clEnqueueCommandBufferKHR) X(clCommandNDRangeKernelKHR) X(clCommandFillBufferKHR)     \
    X(clCommandCopyBufferKHR)

enum Entry {
#define ENTRY_ENUM(name) E_##name,
    ENTRIES(ENTRY_ENUM) EXTENSION_ENTRIES(ENTRY_ENUM)
#undef ENTRY_ENUM
    N_ENTRIES
};

static const char *const entry_name[N_ENTRIES + 1] = {
#define ENTRY_NAME(name) #name,
    ENTRIES(ENTRY_NAME) EXTENSION_ENTRIES(ENTRY_NAME)
#undef ENTRY_NAME
    NULL
};

#define BINARY_TAG "MOCK OPENCL BINARY\n"
#define MAX_GROUP 1024

/* Every object: a header first, kept in one list (until the next reset once released), so
 * that a handle is checked by looking it up, never by reading what it points to. */
typedef struct Obj {
    enum MockOpenCLKind kind;
    bool live;
    struct Obj *next;
} Obj;

struct _cl_platform_id { int unused; };
struct _cl_device_id { int unused; };
static struct _cl_platform_id the_platform;
static struct _cl_device_id the_device;

struct _cl_context { Obj o; };
struct _cl_command_queue { Obj o; cl_context ctx; };
struct _cl_program {
    Obj o;
    cl_context ctx;
    char *text;
    size_t len;
    bool built;
};
struct _cl_kernel {
    Obj o;
    cl_program program;
    unsigned n_args;
    unsigned set;      /* bit i: argument i set */
    cl_mem arg_mem[3]; /* the buffer arguments (arena: argument 0) */
};
struct _cl_mem {
    Obj o;
    cl_context ctx;
    size_t size;
    unsigned char *data;
    unsigned maps; /* mapped, not yet unmapped */
};
struct _cl_event { Obj o; };

/* a recorded command of a command buffer */
typedef struct Command {
    enum { COMMAND_KERNEL, COMMAND_FILL, COMMAND_COPY } kind;
    cl_kernel kernel;
    cl_mem src, dst;
    size_t src_offset, dst_offset, bytes;
    unsigned char pattern[128];
    size_t pattern_size;
} Command;

typedef struct MockCommandBuffer {
    Obj o;
    cl_command_queue queue;
    bool finalized;
    Command *command;
    unsigned n, cap;
} MockCommandBuffer;

static struct {
    pthread_mutex_t lock;
    Obj *all;
    MockOpenCLStats st;
    long calls[N_ENTRIES];
    int fail_entry; /* -1: none */
    long fail_at;
    cl_int fail_err;
    char injected[96];
    char misuse[160];
} mock = { .lock = PTHREAD_MUTEX_INITIALIZER, .fail_entry = -1 };

#define LOCK() pthread_mutex_lock(&mock.lock)
#define UNLOCK() pthread_mutex_unlock(&mock.lock)

/* ---- controls --------------------------------------------------------------------------- */

static void free_obj(Obj *o)
{
    switch (o->kind) {
    case MOCK_CL_PROGRAM: free(((cl_program)o)->text); break;
    case MOCK_CL_BUFFER: free(((cl_mem)o)->data); break;
    case MOCK_CL_COMMAND_BUFFER: free(((MockCommandBuffer *)o)->command); break;
    default: break;
    }
    free(o);
}

MOCK_EXPORT void mock_opencl_reset(const char *name, long n, cl_int err)
{
    LOCK();
    memset(&mock.st, 0, sizeof(mock.st));
    memset(mock.calls, 0, sizeof(mock.calls));
    mock.fail_entry = -1;
    for (int i = 0; name && i < N_ENTRIES; i++)
        if (!strcmp(name, entry_name[i])) mock.fail_entry = i;
    mock.fail_at = n;
    mock.fail_err = err;
    mock.injected[0] = mock.misuse[0] = '\0';
    /* the released objects go; live ones (leaked by an earlier run) stay valid handles */
    for (Obj **p = &mock.all; *p;) {
        Obj *o = *p;
        if (o->live) {
            p = &o->next;
            continue;
        }
        *p = o->next;
        free_obj(o);
    }
    UNLOCK();
}

MOCK_EXPORT MockOpenCLStats mock_opencl_stats(void)
{
    LOCK();
    const MockOpenCLStats s = mock.st;
    UNLOCK();
    return s;
}

MOCK_EXPORT const char *mock_opencl_entry(int i)
{
    return i >= 0 && i < N_ENTRIES ? entry_name[i] : NULL;
}

MOCK_EXPORT long mock_opencl_calls_of(const char *name)
{
    long n = 0;
    LOCK();
    for (int i = 0; i < N_ENTRIES; i++)
        if (!strcmp(name, entry_name[i])) n = mock.calls[i];
    UNLOCK();
    return n;
}

MOCK_EXPORT const char *mock_opencl_injected_into(void)
{
    return mock.injected;
}

MOCK_EXPORT const char *mock_opencl_misuse(void)
{
    return mock.misuse;
}

/* ---- helpers (called with the lock held) ------------------------------------------------ */

/* A call that can fail: counted, and the injected failure when its turn comes (0: go on).
 * what (may be 0) tells which query of the entry point it was. */
static cl_int fallible(enum Entry e, unsigned what)
{
    mock.calls[e]++;
    mock.st.calls++;
    if ((int)e != mock.fail_entry || mock.calls[e] != mock.fail_at) return CL_SUCCESS;
    mock.st.injected++;
    if (what) snprintf(mock.injected, sizeof(mock.injected), "%s(0x%x)", entry_name[e], what);
    else snprintf(mock.injected, sizeof(mock.injected), "%s", entry_name[e]);
    return mock.fail_err;
}

/* Count a misuse and return the error a driver would give. */
static cl_int misuse(cl_int err, enum Entry e, const char *why)
{
    mock.st.misuses++;
    snprintf(mock.misuse, sizeof(mock.misuse), "%s: %s", entry_name[e], why);
    return err;
}

static void *create(size_t size, enum MockOpenCLKind kind)
{
    Obj *o = calloc(1, size);
    if (!o) return NULL;
    o->kind = kind;
    o->live = true;
    o->next = mock.all;
    mock.all = o;
    mock.st.created[kind]++;
    return o;
}

/* Whether h is a live object of that kind. */
static bool valid(const void *h, enum MockOpenCLKind kind)
{
    for (const Obj *o = mock.all; o; o = o->next)
        if (o == h) return o->live && o->kind == kind;
    return false;
}

static cl_int release(void *h, enum MockOpenCLKind kind, enum Entry e, cl_int invalid)
{
    LOCK();
    mock.calls[e]++;
    cl_int r = CL_SUCCESS;
    if (!valid(h, kind)) {
        r = misuse(invalid, e, "a released or foreign object");
    } else if (kind == MOCK_CL_BUFFER && ((cl_mem)h)->maps) {
        r = misuse(CL_INVALID_OPERATION, e, "a buffer released while mapped");
    } else {
        ((Obj *)h)->live = false;
        mock.st.released[kind]++;
        if (kind == MOCK_CL_BUFFER) { /* its memory goes now; the header at the next reset */
            free(((cl_mem)h)->data);
            ((cl_mem)h)->data = NULL;
        }
    }
    UNLOCK();
    return r;
}

static void set_err(cl_int *errcode_ret, cl_int err)
{
    if (errcode_ret) *errcode_ret = err;
}

/* An info query's answer of n bytes at v. */
static cl_int answer(enum Entry e, const void *v, size_t n, size_t size, void *out, size_t *ret)
{
    if (out && size < n) return misuse(CL_INVALID_VALUE, e, "an answer larger than its buffer");
    if (out) memcpy(out, v, n);
    if (ret) *ret = n;
    return CL_SUCCESS;
}

static cl_int answer_string(enum Entry e, const char *s, size_t size, void *out, size_t *ret)
{
    return answer(e, s, strlen(s) + 1, size, out, ret);
}

static cl_int unknown_query(enum Entry e, unsigned what)
{
    char why[64];
    snprintf(why, sizeof(why), "a query the mock does not know (0x%x)", what);
    return misuse(CL_INVALID_VALUE, e, why);
}

/* The events a command waits for, and the one it makes. */
static cl_int events(enum Entry e, cl_uint n, const cl_event *wait, cl_event *out)
{
    if (!n != !wait) return misuse(CL_INVALID_EVENT_WAIT_LIST, e, "a malformed wait list");
    for (cl_uint i = 0; i < n; i++)
        if (!valid(wait[i], MOCK_CL_EVENT))
            return misuse(CL_INVALID_EVENT_WAIT_LIST, e, "a released event in the wait list");
    if (out) {
        *out = create(sizeof(**out), MOCK_CL_EVENT);
        if (!*out) return CL_OUT_OF_HOST_MEMORY;
    }
    return CL_SUCCESS;
}

/* A command on a buffer: the queue and the buffer of one context, the range inside it. */
static cl_int buffer_command(enum Entry e, cl_command_queue q, cl_mem m, size_t offset,
                             size_t bytes, const void *host)
{
    if (!valid(q, MOCK_CL_QUEUE)) return misuse(CL_INVALID_COMMAND_QUEUE, e, "a bad queue");
    if (!valid(m, MOCK_CL_BUFFER)) return misuse(CL_INVALID_MEM_OBJECT, e, "a bad buffer");
    if (m->ctx != q->ctx) return misuse(CL_INVALID_CONTEXT, e, "buffer and queue of two contexts");
    if (!bytes || offset > m->size || bytes > m->size - offset)
        return misuse(CL_INVALID_VALUE, e, "a range outside the buffer");
    if (!host) return misuse(CL_INVALID_VALUE, e, "no host memory");
    return CL_SUCCESS;
}

/* ---- cl_khr_command_buffer's version ------------------------------------------------------ */

#define MAKE_VERSION(major, minor, patch) ((cl_uint)(((major) << 22) | ((minor) << 12) | (patch)))
#define DEVICE_EXTENSIONS_WITH_VERSION 0x1060
#define DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES 0x12AA

typedef struct NameVersion { /* cl_name_version */
    cl_uint version;
    char name[64];
} NameVersion;

/* $MOCK_OPENCL_COMMAND_BUFFER_VERSION as a version; 0: none */
static cl_uint command_buffer_version(void)
{
    const char *v = getenv("MOCK_OPENCL_COMMAND_BUFFER_VERSION");
    unsigned major, minor, patch;
    if (!v || !*v) return MAKE_VERSION(0, 9, 5);
    if (sscanf(v, "%u.%u.%u", &major, &minor, &patch) != 3) return 0;
    return MAKE_VERSION(major, minor, patch);
}

/* ---- platform and device ---------------------------------------------------------------- */

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms,
                                                 cl_uint *num_platforms)
{
    LOCK();
    cl_int r = fallible(E_clGetPlatformIDs, 0);
    if (!r && (!num_entries != !platforms || (!platforms && !num_platforms)))
        r = misuse(CL_INVALID_VALUE, E_clGetPlatformIDs, "bad arguments");
    if (!r) {
        if (platforms) platforms[0] = &the_platform;
        if (num_platforms) *num_platforms = 1;
    }
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform,
                                                  cl_platform_info param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret)
{
    const enum Entry e = E_clGetPlatformInfo;
    LOCK();
    cl_int r = fallible(e, param_name);
    if (!r && platform != &the_platform) r = misuse(CL_INVALID_PLATFORM, e, "a bad platform");
    if (!r) {
        const char *s = NULL;
        switch (param_name) {
        case CL_PLATFORM_NAME: s = "Mock OpenCL"; break;
        case CL_PLATFORM_VENDOR: s = "tests/opencl/mock_opencl.c"; break;
        case CL_PLATFORM_VERSION: s = "OpenCL 1.2 mock"; break;
        case CL_PLATFORM_PROFILE: s = "FULL_PROFILE"; break;
        case CL_PLATFORM_EXTENSIONS: s = ""; break;
        default: r = unknown_query(e, param_name);
        }
        if (s) r = answer_string(e, s, param_value_size, param_value, param_value_size_ret);
    }
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform, cl_device_type type,
                                               cl_uint num_entries, cl_device_id *devices,
                                               cl_uint *num_devices)
{
    const enum Entry e = E_clGetDeviceIDs;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && platform != &the_platform) r = misuse(CL_INVALID_PLATFORM, e, "a bad platform");
    if (!r && (!num_entries != !devices || (!devices && !num_devices)))
        r = misuse(CL_INVALID_VALUE, e, "bad arguments");
    if (!r && !(type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT))) r = CL_DEVICE_NOT_FOUND;
    if (!r) {
        if (devices) devices[0] = &the_device;
        if (num_devices) *num_devices = 1;
    }
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info param_name,
                                                size_t param_value_size, void *param_value,
                                                size_t *param_value_size_ret)
{
    const enum Entry e = E_clGetDeviceInfo;
    LOCK();
    cl_int r = fallible(e, param_name);
    if (!r && device != &the_device) r = misuse(CL_INVALID_DEVICE, e, "a bad device");
    if (r) {
        UNLOCK();
        return r;
    }
    const char *s = NULL;
    union {
        cl_device_type type;
        cl_device_fp_config fp;
        cl_ulong ul;
        cl_uint u;
        size_t sz;
        cl_bool b;
    } v;
    size_t n = 0;
    switch (param_name) {
    case CL_DEVICE_NAME: s = "Mock GPU"; break;
    case CL_DEVICE_VENDOR: s = "tests/opencl/mock_opencl.c"; break;
    case CL_DRIVER_VERSION: s = "1.0"; break;
    case CL_DEVICE_VERSION: s = "OpenCL 3.0 mock"; break;
    case CL_DEVICE_OPENCL_C_VERSION: s = "OpenCL C 1.2"; break;
    case CL_DEVICE_PROFILE: s = "FULL_PROFILE"; break;
    case CL_DEVICE_EXTENSIONS:
        s = command_buffer_version()
                ? "cl_khr_fp64 cl_khr_int64_base_atomics cl_khr_int64_extended_atomics "
                  "cl_khr_global_int32_base_atomics cl_khr_local_int32_base_atomics "
                  "cl_khr_command_buffer"
                : "cl_khr_fp64 cl_khr_int64_base_atomics cl_khr_int64_extended_atomics "
                  "cl_khr_global_int32_base_atomics cl_khr_local_int32_base_atomics";
        break;
    case DEVICE_EXTENSIONS_WITH_VERSION: {
        static const char *const names[] = { "cl_khr_fp64", "cl_khr_int64_base_atomics",
                                             "cl_khr_command_buffer" };
        NameVersion list[3];
        memset(list, 0, sizeof(list));
        const unsigned n_list = command_buffer_version() ? 3 : 2;
        for (unsigned i = 0; i < n_list; i++) {
            snprintf(list[i].name, sizeof(list[i].name), "%s", names[i]);
            list[i].version = i < 2 ? MAKE_VERSION(1, 0, 0) : command_buffer_version();
        }
        r = answer(e, list, n_list * sizeof(list[0]), param_value_size, param_value,
                   param_value_size_ret);
        UNLOCK();
        return r;
    }
    case DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES: v.ul = 0, n = sizeof(v.ul); break;
    case CL_DEVICE_TYPE: v.type = CL_DEVICE_TYPE_GPU, n = sizeof(v.type); break;
    case CL_DEVICE_SINGLE_FP_CONFIG:
        v.fp = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA |
               CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT;
        n = sizeof(v.fp);
        break;
    case CL_DEVICE_DOUBLE_FP_CONFIG:
        v.fp = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
               CL_FP_ROUND_TO_INF | CL_FP_FMA;
        n = sizeof(v.fp);
        break;
    case CL_DEVICE_LOCAL_MEM_SIZE: v.ul = 64 << 10, n = sizeof(v.ul); break;
    case CL_DEVICE_GLOBAL_MEM_SIZE: v.ul = 16ull << 30, n = sizeof(v.ul); break;
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: v.ul = 4ull << 30, n = sizeof(v.ul); break;
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: v.sz = MAX_GROUP, n = sizeof(v.sz); break;
    case CL_DEVICE_MAX_PARAMETER_SIZE: v.sz = 4096, n = sizeof(v.sz); break;
    case CL_DEVICE_MAX_COMPUTE_UNITS: v.u = 64, n = sizeof(v.u); break;
    case CL_DEVICE_AVAILABLE:
    case CL_DEVICE_COMPILER_AVAILABLE: v.b = CL_TRUE, n = sizeof(v.b); break;
    default: r = unknown_query(e, param_name);
    }
    if (s) r = answer_string(e, s, param_value_size, param_value, param_value_size_ret);
    else if (n) r = answer(e, &v, n, param_value_size, param_value, param_value_size_ret);
    UNLOCK();
    return r;
}

/* ---- contexts and queues ---------------------------------------------------------------- */

CL_API_ENTRY cl_context CL_API_CALL clCreateContext(
    const cl_context_properties *properties, cl_uint num_devices, const cl_device_id *devices,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *), void *user_data,
    cl_int *errcode_ret)
{
    (void)pfn_notify, (void)user_data;
    const enum Entry e = E_clCreateContext;
    LOCK();
    cl_int r = fallible(e, 0);
    for (const cl_context_properties *p = properties; !r && p && p[0]; p += 2)
        if (p[0] == CL_CONTEXT_PLATFORM && (cl_platform_id)p[1] != &the_platform)
            r = misuse(CL_INVALID_PLATFORM, e, "a bad platform");
    if (!r && (num_devices != 1 || !devices || devices[0] != &the_device))
        r = misuse(CL_INVALID_DEVICE, e, "a bad device list");
    cl_context c = NULL;
    if (!r && !(c = create(sizeof(*c), MOCK_CL_CONTEXT))) r = CL_OUT_OF_HOST_MEMORY;
    UNLOCK();
    set_err(errcode_ret, r);
    return c;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseContext(cl_context context)
{
    return release(context, MOCK_CL_CONTEXT, E_clReleaseContext, CL_INVALID_CONTEXT);
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(
    cl_context context, cl_device_id device, cl_command_queue_properties properties,
    cl_int *errcode_ret)
{
    (void)properties;
    const enum Entry e = E_clCreateCommandQueue;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !valid(context, MOCK_CL_CONTEXT)) r = misuse(CL_INVALID_CONTEXT, e, "a bad context");
    if (!r && device != &the_device) r = misuse(CL_INVALID_DEVICE, e, "a bad device");
    cl_command_queue q = NULL;
    if (!r && !(q = create(sizeof(*q), MOCK_CL_QUEUE))) r = CL_OUT_OF_HOST_MEMORY;
    if (q) q->ctx = context;
    UNLOCK();
    set_err(errcode_ret, r);
    return q;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue queue)
{
    return release(queue, MOCK_CL_QUEUE, E_clReleaseCommandQueue, CL_INVALID_COMMAND_QUEUE);
}

/* ---- programs and kernels --------------------------------------------------------------- */

static cl_program new_program(cl_context ctx, const char *text, size_t len)
{
    cl_program p = create(sizeof(*p), MOCK_CL_PROGRAM);
    if (!p) return NULL;
    p->ctx = ctx;
    p->len = len;
    if (!(p->text = malloc(len + 1))) {
        p->o.live = false; /* never handed out */
        mock.st.created[MOCK_CL_PROGRAM]--;
        return NULL;
    }
    memcpy(p->text, text, len);
    p->text[len] = '\0';
    return p;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count,
                                                              const char **strings,
                                                              const size_t *lengths,
                                                              cl_int *errcode_ret)
{
    const enum Entry e = E_clCreateProgramWithSource;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !valid(context, MOCK_CL_CONTEXT)) r = misuse(CL_INVALID_CONTEXT, e, "a bad context");
    if (!r && (!count || !strings)) r = misuse(CL_INVALID_VALUE, e, "no source");
    size_t len = 0;
    for (cl_uint i = 0; !r && i < count; i++) {
        if (!strings[i]) r = misuse(CL_INVALID_VALUE, e, "a NULL string");
        else len += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    }
    char *text = r ? NULL : malloc(len + 1);
    if (!r && !text) r = CL_OUT_OF_HOST_MEMORY;
    cl_program p = NULL;
    if (!r) {
        size_t at = 0;
        for (cl_uint i = 0; i < count; i++) {
            const size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
            memcpy(text + at, strings[i], n);
            at += n;
        }
        if (!(p = new_program(context, text, len))) r = CL_OUT_OF_HOST_MEMORY;
    }
    free(text);
    UNLOCK();
    set_err(errcode_ret, r);
    return p;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list,
    const size_t *lengths, const unsigned char **binaries, cl_int *binary_status,
    cl_int *errcode_ret)
{
    const enum Entry e = E_clCreateProgramWithBinary;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !valid(context, MOCK_CL_CONTEXT)) r = misuse(CL_INVALID_CONTEXT, e, "a bad context");
    if (!r && (num_devices != 1 || !device_list || device_list[0] != &the_device))
        r = misuse(CL_INVALID_DEVICE, e, "a bad device list");
    if (!r && (!lengths || !binaries || !binaries[0] || !lengths[0]))
        r = misuse(CL_INVALID_VALUE, e, "no binary");
    const size_t tag = strlen(BINARY_TAG);
    cl_int status = CL_SUCCESS;
    if (!r && (lengths[0] < tag || memcmp(binaries[0], BINARY_TAG, tag)))
        status = r = CL_INVALID_BINARY; /* not ours: an answer, not a misuse */
    cl_program p = NULL;
    if (!r && !(p = new_program(context, (const char *)binaries[0] + tag, lengths[0] - tag)))
        r = CL_OUT_OF_HOST_MEMORY;
    if (binary_status && num_devices == 1) binary_status[0] = status;
    UNLOCK();
    set_err(errcode_ret, r);
    return p;
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(
    cl_program program, cl_uint num_devices, const cl_device_id *device_list, const char *options,
    void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data)
{
    (void)options, (void)user_data;
    const enum Entry e = E_clBuildProgram;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !valid(program, MOCK_CL_PROGRAM)) r = misuse(CL_INVALID_PROGRAM, e, "a bad program");
    if (!r && (!num_devices != !device_list || (device_list && device_list[0] != &the_device)))
        r = misuse(CL_INVALID_DEVICE, e, "a bad device list");
    if (!r && pfn_notify) r = misuse(CL_INVALID_VALUE, e, "a callback (the mock builds at once)");
    if (!r) program->built = true;
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramInfo(cl_program program, cl_program_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret)
{
    const enum Entry e = E_clGetProgramInfo;
    LOCK();
    cl_int r = fallible(e, param_name);
    if (!r && !valid(program, MOCK_CL_PROGRAM)) r = misuse(CL_INVALID_PROGRAM, e, "a bad program");
    if (!r) {
        const size_t tag = strlen(BINARY_TAG);
        const size_t len = tag + program->len;
        const cl_uint one = 1;
        switch (param_name) {
        case CL_PROGRAM_NUM_DEVICES:
            r = answer(e, &one, sizeof(one), param_value_size, param_value, param_value_size_ret);
            break;
        case CL_PROGRAM_BINARY_SIZES:
            r = answer(e, &len, sizeof(len), param_value_size, param_value, param_value_size_ret);
            break;
        case CL_PROGRAM_BINARIES:
            if (param_value && param_value_size < sizeof(unsigned char *)) {
                r = misuse(CL_INVALID_VALUE, e, "no room for the binary's pointer");
            } else if (param_value) {
                unsigned char *bin = *(unsigned char **)param_value;
                if (!bin) {
                    r = misuse(CL_INVALID_VALUE, e, "a NULL binary buffer");
                } else {
                    memcpy(bin, BINARY_TAG, tag);
                    memcpy(bin + tag, program->text, program->len);
                }
            }
            if (!r && param_value_size_ret) *param_value_size_ret = sizeof(unsigned char *);
            break;
        default: r = unknown_query(e, param_name);
        }
    }
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                                      cl_program_build_info param_name,
                                                      size_t param_value_size, void *param_value,
                                                      size_t *param_value_size_ret)
{
    const enum Entry e = E_clGetProgramBuildInfo;
    LOCK();
    cl_int r = fallible(e, param_name);
    if (!r && !valid(program, MOCK_CL_PROGRAM)) r = misuse(CL_INVALID_PROGRAM, e, "a bad program");
    if (!r && device != &the_device) r = misuse(CL_INVALID_DEVICE, e, "a bad device");
    if (!r) {
        if (param_name == CL_PROGRAM_BUILD_LOG)
            r = answer_string(e, "mock build log", param_value_size, param_value,
                              param_value_size_ret);
        else
            r = unknown_query(e, param_name);
    }
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseProgram(cl_program program)
{
    return release(program, MOCK_CL_PROGRAM, E_clReleaseProgram, CL_INVALID_PROGRAM);
}

static bool ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* How many arguments the kernel name declared in text takes: 2 for VMAF_KERNEL, 3 for
 * VMAF_KERNEL_SHARED, 2 for one spelt out (the arena and the arguments, as every kernel of the
 * backend); 0 when the text declares no such kernel. */
static unsigned declared(const char *text, const char *name)
{
    static const struct {
        const char *prefix;
        unsigned args;
    } form[] = { { "VMAF_KERNEL_SHARED(", 3 }, { "VMAF_KERNEL(", 2 }, { "__kernel void ", 2 } };
    const size_t n = strlen(name);
    for (size_t f = 0; f < sizeof(form) / sizeof(form[0]); f++) {
        const size_t pn = strlen(form[f].prefix);
        for (const char *p = text; (p = strstr(p, form[f].prefix)); p += pn) {
            const char *q = p + pn;
            while (*q == ' ') q++;
            if (strncmp(q, name, n) || ident(q[n])) continue;
            if (f == 2 && q[n] != '(') continue;
            return form[f].args;
        }
    }
    return 0;
}

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char *kernel_name,
                                                  cl_int *errcode_ret)
{
    const enum Entry e = E_clCreateKernel;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !valid(program, MOCK_CL_PROGRAM)) r = misuse(CL_INVALID_PROGRAM, e, "a bad program");
    if (!r && !kernel_name) r = misuse(CL_INVALID_VALUE, e, "no name");
    if (!r && !program->built)
        r = misuse(CL_INVALID_PROGRAM_EXECUTABLE, e, "a program not built");
    const unsigned n_args = r ? 0 : declared(program->text, kernel_name);
    if (!r && !n_args) r = CL_INVALID_KERNEL_NAME; /* an answer: not in this program */
    cl_kernel k = NULL;
    if (!r && !(k = create(sizeof(*k), MOCK_CL_KERNEL))) r = CL_OUT_OF_HOST_MEMORY;
    if (k) {
        k->program = program;
        k->n_args = n_args;
    }
    UNLOCK();
    set_err(errcode_ret, r);
    return k;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel)
{
    return release(kernel, MOCK_CL_KERNEL, E_clReleaseKernel, CL_INVALID_KERNEL);
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index,
                                               size_t arg_size, const void *arg_value)
{
    const enum Entry e = E_clSetKernelArg;
    LOCK();
    cl_int r = fallible(e, arg_index + 1);
    if (!r && !valid(kernel, MOCK_CL_KERNEL)) r = misuse(CL_INVALID_KERNEL, e, "a bad kernel");
    if (!r && arg_index >= kernel->n_args) r = misuse(CL_INVALID_ARG_INDEX, e, "no such argument");
    if (!r && !arg_size) r = misuse(CL_INVALID_ARG_SIZE, e, "an argument of no size");
    /* the arena (a buffer), the argument struct (a value), the __local memory (no value) */
    if (!r && arg_index == 0) {
        if (arg_size != sizeof(cl_mem) || !arg_value ||
            !valid(*(const cl_mem *)arg_value, MOCK_CL_BUFFER))
            r = misuse(CL_INVALID_MEM_OBJECT, e, "argument 0 is not a live buffer");
        else
            kernel->arg_mem[0] = *(const cl_mem *)arg_value;
    }
    if (!r && arg_index == 1 && !arg_value) r = misuse(CL_INVALID_ARG_VALUE, e, "no value");
    if (!r && arg_index == 2 && arg_value)
        r = misuse(CL_INVALID_ARG_VALUE, e, "a value for __local memory");
    if (!r) kernel->set |= 1u << arg_index;
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                                         cl_kernel_work_group_info param_name,
                                                         size_t param_value_size,
                                                         void *param_value,
                                                         size_t *param_value_size_ret)
{
    const enum Entry e = E_clGetKernelWorkGroupInfo;
    LOCK();
    cl_int r = fallible(e, param_name);
    if (!r && !valid(kernel, MOCK_CL_KERNEL)) r = misuse(CL_INVALID_KERNEL, e, "a bad kernel");
    if (!r && device != &the_device) r = misuse(CL_INVALID_DEVICE, e, "a bad device");
    if (!r) {
        const size_t group = MAX_GROUP;
        const cl_ulong local = 0;
        if (param_name == CL_KERNEL_WORK_GROUP_SIZE)
            r = answer(e, &group, sizeof(group), param_value_size, param_value,
                       param_value_size_ret);
        else if (param_name == CL_KERNEL_LOCAL_MEM_SIZE)
            r = answer(e, &local, sizeof(local), param_value_size, param_value,
                       param_value_size_ret);
        else
            r = unknown_query(e, param_name);
    }
    UNLOCK();
    return r;
}

/* ---- buffers ---------------------------------------------------------------------------- */

CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags,
                                               size_t size, void *host_ptr, cl_int *errcode_ret)
{
    const enum Entry e = E_clCreateBuffer;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !valid(context, MOCK_CL_CONTEXT)) r = misuse(CL_INVALID_CONTEXT, e, "a bad context");
    if (!r && (host_ptr || (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR))))
        r = misuse(CL_INVALID_HOST_PTR, e, "host memory (the mock has none of that)");
    if (!r && (!size || size > (4ull << 30))) r = CL_INVALID_BUFFER_SIZE;
    cl_mem m = NULL;
    unsigned char *data = r ? NULL : malloc(size); /* uninitialised, as device memory */
    if (!r && !data) r = CL_OUT_OF_HOST_MEMORY;
    if (!r && !(m = create(sizeof(*m), MOCK_CL_BUFFER))) r = CL_OUT_OF_HOST_MEMORY;
    if (m) {
        m->ctx = context;
        m->size = size;
        m->data = data;
    } else {
        free(data);
    }
    UNLOCK();
    set_err(errcode_ret, r);
    return m;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj)
{
    return release(memobj, MOCK_CL_BUFFER, E_clReleaseMemObject, CL_INVALID_MEM_OBJECT);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer,
                                                     cl_bool blocking, size_t offset, size_t size,
                                                     const void *ptr, cl_uint num_events,
                                                     const cl_event *wait, cl_event *event)
{
    (void)blocking; /* every command completes at once */
    const enum Entry e = E_clEnqueueWriteBuffer;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r) r = buffer_command(e, queue, buffer, offset, size, ptr);
    if (!r) r = events(e, num_events, wait, event);
    if (!r) memcpy(buffer->data + offset, ptr, size);
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer,
                                                    cl_bool blocking, size_t offset, size_t size,
                                                    void *ptr, cl_uint num_events,
                                                    const cl_event *wait, cl_event *event)
{
    (void)blocking;
    const enum Entry e = E_clEnqueueReadBuffer;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r) r = buffer_command(e, queue, buffer, offset, size, ptr);
    if (!r) r = events(e, num_events, wait, event);
    if (!r) memcpy(ptr, buffer->data + offset, size);
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src,
                                                    cl_mem dst, size_t src_offset,
                                                    size_t dst_offset, size_t size,
                                                    cl_uint num_events, const cl_event *wait,
                                                    cl_event *event)
{
    const enum Entry e = E_clEnqueueCopyBuffer;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r) r = buffer_command(e, queue, src, src_offset, size, src);
    if (!r) r = buffer_command(e, queue, dst, dst_offset, size, dst);
    if (!r && src == dst && src_offset < dst_offset + size && dst_offset < src_offset + size)
        r = misuse(CL_MEM_COPY_OVERLAP, e, "overlapping ranges of one buffer");
    if (!r) r = events(e, num_events, wait, event);
    if (!r) memcpy(dst->data + dst_offset, src->data + src_offset, size);
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer,
                                                    const void *pattern, size_t pattern_size,
                                                    size_t offset, size_t size,
                                                    cl_uint num_events, const cl_event *wait,
                                                    cl_event *event)
{
    const enum Entry e = E_clEnqueueFillBuffer;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r) r = buffer_command(e, queue, buffer, offset, size, pattern);
    if (!r && (!pattern_size || pattern_size > 128 || (pattern_size & (pattern_size - 1)) ||
               offset % pattern_size || size % pattern_size))
        r = misuse(CL_INVALID_VALUE, e, "a bad pattern size");
    if (!r) r = events(e, num_events, wait, event);
    for (size_t i = 0; !r && i < size; i += pattern_size)
        memcpy(buffer->data + offset + i, pattern, pattern_size);
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel,
                                                       cl_uint work_dim,
                                                       const size_t *global_work_offset,
                                                       const size_t *global_work_size,
                                                       const size_t *local_work_size,
                                                       cl_uint num_events, const cl_event *wait,
                                                       cl_event *event)
{
    const enum Entry e = E_clEnqueueNDRangeKernel;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !valid(queue, MOCK_CL_QUEUE)) r = misuse(CL_INVALID_COMMAND_QUEUE, e, "a bad queue");
    if (!r && !valid(kernel, MOCK_CL_KERNEL)) r = misuse(CL_INVALID_KERNEL, e, "a bad kernel");
    if (!r && kernel->program->ctx != queue->ctx)
        r = misuse(CL_INVALID_CONTEXT, e, "kernel and queue of two contexts");
    if (!r && kernel->set != (1u << kernel->n_args) - 1)
        r = misuse(CL_INVALID_KERNEL_ARGS, e, "arguments not set");
    if (!r && !valid(kernel->arg_mem[0], MOCK_CL_BUFFER))
        r = misuse(CL_INVALID_MEM_OBJECT, e, "the arena was released");
    if (!r && (work_dim < 1 || work_dim > 3 || !global_work_size))
        r = misuse(CL_INVALID_WORK_DIMENSION, e, "bad dimensions");
    if (!r && global_work_offset) r = misuse(CL_INVALID_GLOBAL_OFFSET, e, "an offset");
    size_t group = 1;
    for (cl_uint d = 0; !r && d < work_dim; d++) {
        if (!global_work_size[d]) r = misuse(CL_INVALID_GLOBAL_WORK_SIZE, e, "an empty range");
        else if (local_work_size && (!local_work_size[d] ||
                                     global_work_size[d] % local_work_size[d]))
            r = misuse(CL_INVALID_WORK_GROUP_SIZE, e, "a range not a multiple of its groups");
        else if (local_work_size)
            group *= local_work_size[d];
    }
    if (!r && group > MAX_GROUP) r = misuse(CL_INVALID_WORK_GROUP_SIZE, e, "a group too large");
    if (!r) r = events(e, num_events, wait, event);
    if (!r) mock.st.launches++; /* nothing runs: the scores are not what is tested */
    UNLOCK();
    return r;
}

/* ---- synchronisation -------------------------------------------------------------------- */

static cl_int queue_call(enum Entry e, cl_command_queue queue)
{
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !valid(queue, MOCK_CL_QUEUE)) r = misuse(CL_INVALID_COMMAND_QUEUE, e, "a bad queue");
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clFinish(cl_command_queue queue)
{
    return queue_call(E_clFinish, queue);
}

CL_API_ENTRY cl_int CL_API_CALL clFlush(cl_command_queue queue)
{
    return queue_call(E_clFlush, queue);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue queue,
                                                            cl_uint num_events,
                                                            const cl_event *wait,
                                                            cl_event *event)
{
    const enum Entry e = E_clEnqueueMarkerWithWaitList;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !valid(queue, MOCK_CL_QUEUE)) r = misuse(CL_INVALID_COMMAND_QUEUE, e, "a bad queue");
    if (!r) r = events(e, num_events, wait, event);
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint num_events, const cl_event *event_list)
{
    const enum Entry e = E_clWaitForEvents;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && (!num_events || !event_list)) r = misuse(CL_INVALID_VALUE, e, "no events");
    for (cl_uint i = 0; !r && i < num_events; i++)
        if (!valid(event_list[i], MOCK_CL_EVENT))
            r = misuse(CL_INVALID_EVENT, e, "a released or foreign event");
    UNLOCK();
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseEvent(cl_event event)
{
    return release(event, MOCK_CL_EVENT, E_clReleaseEvent, CL_INVALID_EVENT);
}

/* ---- mappings --------------------------------------------------------------------------- */

CL_API_ENTRY void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer,
                                                  cl_bool blocking_map, cl_map_flags map_flags,
                                                  size_t offset, size_t size, cl_uint num_events,
                                                  const cl_event *wait, cl_event *event,
                                                  cl_int *errcode_ret)
{
    (void)map_flags;
    const enum Entry e = E_clEnqueueMapBuffer;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !blocking_map) r = misuse(CL_INVALID_VALUE, e, "a mapping not waited for");
    if (!r) r = buffer_command(e, queue, buffer, offset, size, buffer);
    if (!r) r = events(e, num_events, wait, event);
    void *p = NULL;
    if (!r) {
        buffer->maps++;
        mock.st.created[MOCK_CL_MAPPING]++;
        p = buffer->data + offset;
    }
    UNLOCK();
    set_err(errcode_ret, r);
    return p;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem memobj,
                                                        void *mapped_ptr, cl_uint num_events,
                                                        const cl_event *wait, cl_event *event)
{
    const enum Entry e = E_clEnqueueUnmapMemObject;
    LOCK();
    mock.calls[e]++; /* a release: never fails */
    cl_int r = CL_SUCCESS;
    if (!r && !valid(queue, MOCK_CL_QUEUE)) r = misuse(CL_INVALID_COMMAND_QUEUE, e, "a bad queue");
    if (!r && !valid(memobj, MOCK_CL_BUFFER)) r = misuse(CL_INVALID_MEM_OBJECT, e, "a bad buffer");
    if (!r && (!memobj->maps || (unsigned char *)mapped_ptr < memobj->data ||
               (unsigned char *)mapped_ptr >= memobj->data + memobj->size))
        r = misuse(CL_INVALID_VALUE, e, "a pointer the buffer did not map");
    if (!r) r = events(e, num_events, wait, event);
    if (!r) {
        memobj->maps--;
        mock.st.released[MOCK_CL_MAPPING]++;
    }
    UNLOCK();
    return r;
}

/* ---- profiling ---------------------------------------------------------------------------- */

CL_API_ENTRY cl_int CL_API_CALL clGetEventProfilingInfo(cl_event event,
                                                        cl_profiling_info param_name,
                                                        size_t param_value_size,
                                                        void *param_value,
                                                        size_t *param_value_size_ret)
{
    const enum Entry e = E_clGetEventProfilingInfo;
    LOCK();
    cl_int r = fallible(e, param_name);
    if (!r && !valid(event, MOCK_CL_EVENT)) r = misuse(CL_INVALID_EVENT, e, "a bad event");
    if (!r) {
        /* every command takes a microsecond, after being queued and submitted at once */
        const cl_ulong t = param_name == CL_PROFILING_COMMAND_END ? 1000 : 0;
        if (param_name == CL_PROFILING_COMMAND_QUEUED || param_name == CL_PROFILING_COMMAND_SUBMIT ||
            param_name == CL_PROFILING_COMMAND_START || param_name == CL_PROFILING_COMMAND_END)
            r = answer(e, &t, sizeof(t), param_value_size, param_value, param_value_size_ret);
        else
            r = unknown_query(e, param_name);
    }
    UNLOCK();
    return r;
}

/* ---- cl_khr_command_buffer ---------------------------------------------------------------- */

typedef cl_uint SyncPoint;

/* What every recording command checks: a live command buffer still recording, no queue (the
 * extension's base version records to the buffer's own), no properties, no sync points. */
static cl_int recordable(enum Entry e, MockCommandBuffer *cb, cl_command_queue queue,
                         const cl_ulong *properties, cl_uint n_sync, const SyncPoint *sync,
                         void *mutable_handle)
{
    if (!valid(cb, MOCK_CL_COMMAND_BUFFER)) return misuse(-1138, e, "a bad command buffer");
    if (cb->finalized) return misuse(CL_INVALID_OPERATION, e, "a finalized command buffer");
    if (queue) return misuse(CL_INVALID_COMMAND_QUEUE, e, "a queue (must be NULL)");
    if (properties && properties[0]) return misuse(CL_INVALID_VALUE, e, "properties");
    if (n_sync || sync || mutable_handle) return misuse(CL_INVALID_VALUE, e, "sync points");
    return CL_SUCCESS;
}

static Command *push(MockCommandBuffer *cb)
{
    if (cb->n == cb->cap) {
        const unsigned cap = cb->cap ? 2 * cb->cap : 16;
        Command *c = realloc(cb->command, cap * sizeof(*c));
        if (!c) return NULL;
        cb->command = c;
        cb->cap = cap;
    }
    Command *c = &cb->command[cb->n++];
    memset(c, 0, sizeof(*c));
    return c;
}

/* A range of a live buffer of the command buffer's context. */
static cl_int in_buffer(enum Entry e, const MockCommandBuffer *cb, cl_mem m, size_t offset,
                        size_t bytes)
{
    if (!valid(m, MOCK_CL_BUFFER))
        return misuse(CL_INVALID_MEM_OBJECT, e, "not a live buffer (another version's signature?)");
    if (m->ctx != cb->queue->ctx) return misuse(CL_INVALID_CONTEXT, e, "a buffer of another context");
    if (!bytes || offset > m->size || bytes > m->size - offset)
        return misuse(CL_INVALID_VALUE, e, "a range outside the buffer");
    return CL_SUCCESS;
}

static void *CL_API_CALL create_command_buffer(cl_uint num_queues, const cl_command_queue *queues,
                                               const cl_ulong *properties, cl_int *errcode_ret)
{
    const enum Entry e = E_clCreateCommandBufferKHR;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && (num_queues != 1 || !queues || !valid(queues[0], MOCK_CL_QUEUE)))
        r = misuse(CL_INVALID_COMMAND_QUEUE, e, "not one live queue");
    if (!r && properties && properties[0]) r = misuse(CL_INVALID_VALUE, e, "properties");
    MockCommandBuffer *cb = NULL;
    if (!r && !(cb = create(sizeof(*cb), MOCK_CL_COMMAND_BUFFER))) r = CL_OUT_OF_HOST_MEMORY;
    if (cb) cb->queue = queues[0];
    UNLOCK();
    set_err(errcode_ret, r);
    return cb;
}

static cl_int CL_API_CALL finalize_command_buffer(MockCommandBuffer *cb)
{
    const enum Entry e = E_clFinalizeCommandBufferKHR;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r) r = recordable(e, cb, NULL, NULL, 0, NULL, NULL);
    if (!r) cb->finalized = true;
    UNLOCK();
    return r;
}

static cl_int CL_API_CALL release_command_buffer(MockCommandBuffer *cb)
{
    return release(cb, MOCK_CL_COMMAND_BUFFER, E_clReleaseCommandBufferKHR, -1138);
}

static cl_int CL_API_CALL enqueue_command_buffer(cl_uint num_queues, cl_command_queue *queues,
                                                 MockCommandBuffer *cb, cl_uint num_events,
                                                 const cl_event *wait, cl_event *event)
{
    const enum Entry e = E_clEnqueueCommandBufferKHR;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && !valid(cb, MOCK_CL_COMMAND_BUFFER)) r = misuse(-1138, e, "a bad command buffer");
    if (!r && !cb->finalized) r = misuse(CL_INVALID_OPERATION, e, "not finalized");
    if (!r && (!num_queues != !queues || num_queues > 1 || (queues && queues[0] != cb->queue)))
        r = misuse(CL_INVALID_COMMAND_QUEUE, e, "queues other than the command buffer's");
    if (!r && !valid(cb->queue, MOCK_CL_QUEUE)) r = misuse(CL_INVALID_COMMAND_QUEUE, e, "its queue released");
    /* every recorded command's objects still live, before anything runs */
    for (unsigned i = 0; !r && i < cb->n; i++) {
        const Command *c = &cb->command[i];
        if (c->kind == COMMAND_KERNEL && (!valid(c->kernel, MOCK_CL_KERNEL) ||
                                          !valid(c->kernel->arg_mem[0], MOCK_CL_BUFFER)))
            r = misuse(CL_INVALID_KERNEL, e, "a recorded kernel or its arena released");
        if (c->kind != COMMAND_KERNEL && (!valid(c->dst, MOCK_CL_BUFFER) ||
                                          (c->src && !valid(c->src, MOCK_CL_BUFFER))))
            r = misuse(CL_INVALID_MEM_OBJECT, e, "a recorded buffer released");
    }
    if (!r) r = events(e, num_events, wait, event);
    for (unsigned i = 0; !r && i < cb->n; i++) {
        const Command *c = &cb->command[i];
        switch (c->kind) {
        case COMMAND_KERNEL: mock.st.launches++; break;
        case COMMAND_FILL:
            for (size_t k = 0; k < c->bytes; k += c->pattern_size)
                memcpy(c->dst->data + c->dst_offset + k, c->pattern, c->pattern_size);
            break;
        case COMMAND_COPY:
            memmove(c->dst->data + c->dst_offset, c->src->data + c->src_offset, c->bytes);
            break;
        }
    }
    UNLOCK();
    return r;
}

static cl_int CL_API_CALL command_kernel(MockCommandBuffer *cb, cl_command_queue queue,
                                         const cl_ulong *properties, cl_kernel kernel,
                                         cl_uint work_dim, const size_t *global_work_offset,
                                         const size_t *global_work_size,
                                         const size_t *local_work_size, cl_uint n_sync,
                                         const SyncPoint *sync, SyncPoint *sync_point,
                                         void *mutable_handle)
{
    const enum Entry e = E_clCommandNDRangeKernelKHR;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r) r = recordable(e, cb, queue, properties, n_sync, sync, mutable_handle);
    (void)sync_point;
    if (!r && !valid(kernel, MOCK_CL_KERNEL)) r = misuse(CL_INVALID_KERNEL, e, "a bad kernel");
    if (!r && kernel->program->ctx != cb->queue->ctx)
        r = misuse(CL_INVALID_CONTEXT, e, "kernel and command buffer of two contexts");
    if (!r && kernel->set != (1u << kernel->n_args) - 1)
        r = misuse(CL_INVALID_KERNEL_ARGS, e, "arguments not set");
    if (!r && (work_dim < 1 || work_dim > 3 || !global_work_size))
        r = misuse(CL_INVALID_WORK_DIMENSION, e, "bad dimensions");
    if (!r && global_work_offset) r = misuse(CL_INVALID_GLOBAL_OFFSET, e, "an offset");
    size_t group = 1;
    for (cl_uint d = 0; !r && d < work_dim; d++) {
        if (!global_work_size[d]) r = misuse(CL_INVALID_GLOBAL_WORK_SIZE, e, "an empty range");
        else if (local_work_size && (!local_work_size[d] ||
                                     global_work_size[d] % local_work_size[d]))
            r = misuse(CL_INVALID_WORK_GROUP_SIZE, e, "a range not a multiple of its groups");
        else if (local_work_size)
            group *= local_work_size[d];
    }
    if (!r && group > MAX_GROUP) r = misuse(CL_INVALID_WORK_GROUP_SIZE, e, "a group too large");
    Command *c = NULL;
    if (!r && !(c = push(cb))) r = CL_OUT_OF_HOST_MEMORY;
    if (c) {
        c->kind = COMMAND_KERNEL;
        c->kernel = kernel;
    }
    UNLOCK();
    return r;
}

static cl_int fill(MockCommandBuffer *cb, cl_command_queue queue, const cl_ulong *properties,
                   cl_mem buffer, const void *pattern, size_t pattern_size, size_t offset,
                   size_t size, cl_uint n_sync, const SyncPoint *sync, void *mutable_handle)
{
    const enum Entry e = E_clCommandFillBufferKHR;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r) r = recordable(e, cb, queue, properties, n_sync, sync, mutable_handle);
    if (!r) r = in_buffer(e, cb, buffer, offset, size);
    if (!r && (!pattern || !pattern_size || pattern_size > 128 ||
               (pattern_size & (pattern_size - 1)) || offset % pattern_size || size % pattern_size))
        r = misuse(CL_INVALID_VALUE, e, "a bad pattern");
    Command *c = NULL;
    if (!r && !(c = push(cb))) r = CL_OUT_OF_HOST_MEMORY;
    if (c) {
        c->kind = COMMAND_FILL;
        c->dst = buffer;
        c->dst_offset = offset;
        c->bytes = size;
        memcpy(c->pattern, pattern, pattern_size);
        c->pattern_size = pattern_size;
    }
    UNLOCK();
    return r;
}

static cl_int copy(MockCommandBuffer *cb, cl_command_queue queue, const cl_ulong *properties,
                   cl_mem src, cl_mem dst, size_t src_offset, size_t dst_offset, size_t size,
                   cl_uint n_sync, const SyncPoint *sync, void *mutable_handle)
{
    const enum Entry e = E_clCommandCopyBufferKHR;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r) r = recordable(e, cb, queue, properties, n_sync, sync, mutable_handle);
    if (!r) r = in_buffer(e, cb, src, src_offset, size);
    if (!r) r = in_buffer(e, cb, dst, dst_offset, size);
    if (!r && src == dst && src_offset < dst_offset + size && dst_offset < src_offset + size)
        r = misuse(CL_MEM_COPY_OVERLAP, e, "overlapping ranges");
    Command *c = NULL;
    if (!r && !(c = push(cb))) r = CL_OUT_OF_HOST_MEMORY;
    if (c) {
        c->kind = COMMAND_COPY;
        c->src = src;
        c->dst = dst;
        c->src_offset = src_offset;
        c->dst_offset = dst_offset;
        c->bytes = size;
    }
    UNLOCK();
    return r;
}

/* 0.9.0 to 0.9.4: no properties */
static cl_int CL_API_CALL command_fill(MockCommandBuffer *cb, cl_command_queue queue,
                                       cl_mem buffer, const void *pattern, size_t pattern_size,
                                       size_t offset, size_t size, cl_uint n_sync,
                                       const SyncPoint *sync, SyncPoint *sync_point,
                                       void *mutable_handle)
{
    (void)sync_point;
    return fill(cb, queue, NULL, buffer, pattern, pattern_size, offset, size, n_sync, sync,
                mutable_handle);
}

static cl_int CL_API_CALL command_copy(MockCommandBuffer *cb, cl_command_queue queue,
                                       cl_mem src, cl_mem dst, size_t src_offset,
                                       size_t dst_offset, size_t size, cl_uint n_sync,
                                       const SyncPoint *sync, SyncPoint *sync_point,
                                       void *mutable_handle)
{
    (void)sync_point;
    return copy(cb, queue, NULL, src, dst, src_offset, dst_offset, size, n_sync, sync,
                mutable_handle);
}

/* 0.9.5 on: properties after the queue */
static cl_int CL_API_CALL command_fill_properties(MockCommandBuffer *cb, cl_command_queue queue,
                                                  const cl_ulong *properties, cl_mem buffer,
                                                  const void *pattern, size_t pattern_size,
                                                  size_t offset, size_t size, cl_uint n_sync,
                                                  const SyncPoint *sync, SyncPoint *sync_point,
                                                  void *mutable_handle)
{
    (void)sync_point;
    return fill(cb, queue, properties, buffer, pattern, pattern_size, offset, size, n_sync, sync,
                mutable_handle);
}

static cl_int CL_API_CALL command_copy_properties(MockCommandBuffer *cb, cl_command_queue queue,
                                                  const cl_ulong *properties, cl_mem src,
                                                  cl_mem dst, size_t src_offset,
                                                  size_t dst_offset, size_t size, cl_uint n_sync,
                                                  const SyncPoint *sync, SyncPoint *sync_point,
                                                  void *mutable_handle)
{
    (void)sync_point;
    return copy(cb, queue, properties, src, dst, src_offset, dst_offset, size, n_sync, sync,
                mutable_handle);
}

CL_API_ENTRY void *CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                        const char *func_name)
{
    const enum Entry e = E_clGetExtensionFunctionAddressForPlatform;
    LOCK();
    cl_int r = fallible(e, 0);
    if (!r && platform != &the_platform) r = misuse(CL_INVALID_PLATFORM, e, "a bad platform");
    if (!r && !func_name) r = misuse(CL_INVALID_VALUE, e, "no name");
    const cl_uint version = command_buffer_version();
    const bool properties = version >= MAKE_VERSION(0, 9, 5);
    void *fn = NULL;
    if (!r && version) {
        const struct {
            const char *name;
            void *fn;
        } table[] = {
            { "clCreateCommandBufferKHR", (void *)create_command_buffer },
            { "clFinalizeCommandBufferKHR", (void *)finalize_command_buffer },
            { "clReleaseCommandBufferKHR", (void *)release_command_buffer },
            { "clEnqueueCommandBufferKHR", (void *)enqueue_command_buffer },
            { "clCommandNDRangeKernelKHR", (void *)command_kernel },
            { "clCommandFillBufferKHR",
              properties ? (void *)command_fill_properties : (void *)command_fill },
            { "clCommandCopyBufferKHR",
              properties ? (void *)command_copy_properties : (void *)command_copy },
        };
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
            if (!strcmp(func_name, table[i].name)) fn = table[i].fn;
    }
    UNLOCK();
    return fn;
}
