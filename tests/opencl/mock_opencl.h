/* What the mock OpenCL library (tests/opencl/mock_opencl.c) counts, shared with the tests that
 * dlsym it. */
#ifndef VMAF_TESTS_MOCK_OPENCL_H
#define VMAF_TESTS_MOCK_OPENCL_H

/* The objects a run creates and must release, kind by kind. */
enum MockOpenCLKind {
    MOCK_CL_CONTEXT,
    MOCK_CL_QUEUE,
    MOCK_CL_PROGRAM,
    MOCK_CL_KERNEL,
    MOCK_CL_BUFFER,
    MOCK_CL_EVENT,
    MOCK_CL_MAPPING, /* a buffer mapped into host memory, until unmapped */
    MOCK_CL_COMMAND_BUFFER, /* cl_khr_command_buffer's */
    MOCK_CL_KINDS
};

typedef struct MockOpenCLStats {
    int created[MOCK_CL_KINDS], released[MOCK_CL_KINDS];
    /* calls with a released or foreign object, a buffer range outside its buffer, a kernel
     * enqueued without its arguments, an unknown query: what a real driver would refuse or
     * crash on */
    int misuses;
    long calls;     /* calls that can fail (every entry point but the releases and unmaps) */
    int injected;   /* failures injected (0 or 1) */
    long launches;  /* kernels enqueued */
} MockOpenCLStats;

#ifndef MOCK_EXPORT /* the tests' side: the mock's controls, found with dlsym */
#include <dlfcn.h>
#include <stdio.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

typedef struct MockOpenCL {
    void *lib;
    /* forget every count; from now on the n-th call (1-based; 0: none) of entry point name
     * (NULL: none) fails with err */
    void (*reset)(const char *name, long n, cl_int err);
    MockOpenCLStats (*stats)(void);
    /* the entry points, i = 0, 1, ... until NULL, and how many calls each had since reset */
    const char *(*entry)(int i);
    long (*calls_of)(const char *name);
    /* the injected failure ("clGetDeviceInfo(0x1032)": entry point and what it was asked),
     * "" when none; the last misuse, "" when none */
    const char *(*injected_into)(void);
    const char *(*misuse)(void);
} MockOpenCL;

static const char *const mock_opencl_kind_name[MOCK_CL_KINDS] = {
    "contexts", "command queues", "programs", "kernels", "buffers", "events", "mappings",
    "command buffers",
};

/* Load the mock at path: the same file the library opens through VMAF_OPENCL_LIBRARY (its
 * dlopen finds this instance), so both see one library. 0, or -1 with a message. */
static inline int mock_opencl_load(MockOpenCL *m, const char *path)
{
    m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!m->lib) return fprintf(stderr, "cannot load %s: %s\n", path, dlerror()), -1;
    *(void **)&m->reset = dlsym(m->lib, "mock_opencl_reset");
    *(void **)&m->stats = dlsym(m->lib, "mock_opencl_stats");
    *(void **)&m->entry = dlsym(m->lib, "mock_opencl_entry");
    *(void **)&m->calls_of = dlsym(m->lib, "mock_opencl_calls_of");
    *(void **)&m->injected_into = dlsym(m->lib, "mock_opencl_injected_into");
    *(void **)&m->misuse = dlsym(m->lib, "mock_opencl_misuse");
    if (m->reset && m->stats && m->entry && m->calls_of && m->injected_into && m->misuse)
        return 0;
    fprintf(stderr, "%s is not the mock OpenCL library\n", path);
    dlclose(m->lib);
    return -1;
}

/* CHECK (test_util.h) that every object created was released and that nothing was misused;
 * tag (a string) starts every message. */
#define MOCK_OPENCL_CHECK_BALANCE(st, tag, misuse_text)                                   \
    do {                                                                                  \
        for (int k_ = 0; k_ < MOCK_CL_KINDS; k_++)                                        \
            CHECK((st).created[k_] == (st).released[k_], "%s%s: %d created, %d released", \
                  (tag), mock_opencl_kind_name[k_], (st).created[k_], (st).released[k_]); \
        CHECK(!(st).misuses, "%s%d misuses, the last: %s", (tag), (st).misuses,           \
              (misuse_text));                                                             \
    } while (0)
#endif

#endif /* VMAF_TESTS_MOCK_OPENCL_H */
