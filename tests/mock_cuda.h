/* What the mock driver (tests/mock_cuda.c) counts, shared with the tests that dlsym it. */
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
} MockCudaStats;

#endif /* VMAF_TESTS_MOCK_CUDA_H */
