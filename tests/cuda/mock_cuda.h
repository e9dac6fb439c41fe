/* What the mock driver (tests/cuda/mock_cuda.c) counts, shared with the tests that dlsym it. */
#ifndef VMAF_TESTS_MOCK_CUDA_H
#define VMAF_TESTS_MOCK_CUDA_H

typedef struct MockCudaStats {
    int retains, releases;  /* successful primary-context retains and releases */
    int pushes, pops;       /* successful pushes and pops */
    int allocs, frees;      /* device allocations and frees */
    int no_context;         /* calls that needed a current context and had none */
    int host_allocs, host_frees, registers, unregisters;
    int streams, streams_destroyed, events, events_destroyed;
    int graphs, graphs_destroyed, execs, execs_destroyed;
    int modules, modules_unloaded;
    long calls;             /* calls that can fail (mock_cuda_fail_at counts these) */
    int injected;           /* failures injected */
    int injected_elsewhere; /* of which on another thread than mock_cuda_fail_at's caller's */
    long uploads, device_copies;  /* cuMemcpyHtoDAsync, cuMemcpyDtoDAsync that succeeded */
    long long upload_bytes, device_copy_bytes;
} MockCudaStats;

#ifndef MOCK_EXPORT /* the tests' side: the mock's controls, found with dlsym */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

typedef struct MockCuda {
    void *lib;
    void (*control)(bool close_gate, bool retain_fail);
    void (*open_gate)(void);
    void (*fail_at)(long n);
    MockCudaStats (*stats)(void);
    const char *(*injected_into)(void);
} MockCuda;

/* Load the mock at path: the same file the library's dlopen("libcuda.so.1") finds through
 * LD_LIBRARY_PATH, so both see one driver. 0, or -1 with a message. */
static inline int mock_cuda_load(MockCuda *m, const char *path)
{
    m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!m->lib) return fprintf(stderr, "cannot load %s: %s\n", path, dlerror()), -1;
    *(void **)&m->control = dlsym(m->lib, "mock_cuda_control");
    *(void **)&m->open_gate = dlsym(m->lib, "mock_cuda_open_gate");
    *(void **)&m->fail_at = dlsym(m->lib, "mock_cuda_fail_at");
    *(void **)&m->stats = dlsym(m->lib, "mock_cuda_stats");
    *(void **)&m->injected_into = dlsym(m->lib, "mock_cuda_injected_into");
    if (m->control && m->open_gate && m->fail_at && m->stats && m->injected_into) return 0;
    fprintf(stderr, "%s is not the mock driver\n", path);
    dlclose(m->lib);
    return -1;
}

/* What a run obtains and must give back, pair by pair. */
typedef struct MockCudaPair {
    const char *what;
    int obtained, returned;
} MockCudaPair;

enum { MOCK_CUDA_PAIRS = 10 };

static inline void mock_cuda_pairs(const MockCudaStats *st, MockCudaPair p[MOCK_CUDA_PAIRS])
{
    const MockCudaPair all[MOCK_CUDA_PAIRS] = {
        { "primary contexts (retained, released)", st->retains, st->releases },
        { "context pushes (pushed, popped)", st->pushes, st->pops },
        { "device buffers", st->allocs, st->frees },
        { "pinned buffers", st->host_allocs, st->host_frees },
        { "host registrations", st->registers, st->unregisters },
        { "streams", st->streams, st->streams_destroyed },
        { "events", st->events, st->events_destroyed },
        { "graphs", st->graphs, st->graphs_destroyed },
        { "graph execs", st->execs, st->execs_destroyed },
        { "modules", st->modules, st->modules_unloaded },
    };
    for (int i = 0; i < MOCK_CUDA_PAIRS; i++) p[i] = all[i];
}

/* CHECK (test_util.h) that everything a run obtained was given back and that no call ran
 * without a current context; tag (a string) starts every message. */
#define MOCK_CUDA_CHECK_BALANCE(st, tag)                                                 \
    do {                                                                                 \
        MockCudaPair pair_[MOCK_CUDA_PAIRS];                                             \
        mock_cuda_pairs(&(st), pair_);                                                   \
        for (int i_ = 0; i_ < MOCK_CUDA_PAIRS; i_++)                                     \
            CHECK(pair_[i_].obtained == pair_[i_].returned, "%s%s: %d obtained, %d given back", \
                  (tag), pair_[i_].what, pair_[i_].obtained, pair_[i_].returned);        \
        CHECK(!(st).no_context, "%s%d calls without a current context", (tag),           \
              (st).no_context);                                                          \
    } while (0)
#endif

#endif /* VMAF_TESTS_MOCK_CUDA_H */
