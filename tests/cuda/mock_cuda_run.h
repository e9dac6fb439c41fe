/*
 * Shared by the tests that score whole contexts against the mock driver (mock_cuda.c, as
 * libcuda.so.1 through LD_LIBRARY_PATH): test_twin_cap and test_ladder_cuda. Their pictures
 * are MOCK_W x MOCK_H, 4:2:0, 8 bits, on the host (seeded random samples) or from a context's
 * device pool; their contexts are made on the test's one state, with a device pool where a
 * case scores device pictures; and their main loads the mock, runs every case on one state,
 * then checks that everything the driver handed out was given back.
 */
#ifndef VMAF_TESTS_MOCK_CUDA_RUN_H
#define VMAF_TESTS_MOCK_CUDA_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "mock_cuda.h"
#include "test_util.h"

/* large enough for float_ms_ssim's five scales (test_twin_cap) */
enum { MOCK_W = 352, MOCK_H = 288 };

/* The contexts made after it launch graphs, or direct (VMAF_CUDA_NO_GRAPH=1). */
static inline void mock_cuda_direct(bool direct)
{
    if (direct) setenv("VMAF_CUDA_NO_GRAPH", "1", 1);
    else unsetenv("VMAF_CUDA_NO_GRAPH");
}

/* A picture from v's device pool (its contents as allocated) where device, else a host
 * picture whose samples rng() draws from seed: 0, or -errno. */
static inline int mock_cuda_picture(VmafContext *v, bool device, VmafPicture *p, uint64_t seed)
{
    if (device) return vmaf_cuda_fetch_preallocated_picture(v, p);
    const int err = vmaf_picture_alloc(p, VMAF_PIX_FMT_YUV420P, 8, MOCK_W, MOCK_H);
    if (err) return err;
    test_picture_fill8(p, seed);
    return 0;
}

/* A context configured as cfg on state s, with a pool of device pictures where device_pool:
 * 0, or -errno and *v NULL. */
static inline int mock_cuda_context(VmafContext **v, VmafCudaState *s, VmafConfiguration cfg,
                                    bool device_pool)
{
    int err = vmaf_init(v, cfg);
    if (err) {
        *v = NULL;
        return err;
    }
    err = vmaf_cuda_import_state(*v, s);
    if (!err && device_pool) {
        const VmafCudaPictureConfiguration pool = {
            .pic_params = { .w = MOCK_W, .h = MOCK_H, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P },
            .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
        };
        err = vmaf_cuda_preallocate_pictures(*v, pool);
    }
    if (err) {
        vmaf_close(*v);
        *v = NULL;
    }
    return err;
}

/* A test's main (usage: test_NAME MOCK_LIBRARY): the mock loaded into *mock, no failure
 * injected, run_cases on one state, everything given back (MOCK_CUDA_CHECK_BALANCE), and
 * "NAME: N checks, N failed". The exit status: 0, 1 on a failed check, 2 on bad usage. */
static inline int mock_cuda_main(int argc, char **argv, const char *name, MockCuda *mock,
                                 void (*run_cases)(VmafCudaState *s))
{
    if (argc < 2) return fprintf(stderr, "usage: test_%s MOCK_LIBRARY\n", name), 2;
    if (mock_cuda_load(mock, argv[1])) return 1;
    mock->fail_at(0);
    VmafCudaState *s = NULL;
    const int err = vmaf_cuda_state_init(&s, (VmafCudaConfiguration){ 0 });
    CHECK(!err, "state init %d", err);
    if (!err) run_cases(s);
    vmaf_cuda_state_free(s);
    const MockCudaStats st = mock->stats();
    MOCK_CUDA_CHECK_BALANCE(st, "");
    dlclose(mock->lib);
    printf("%s: %d checks, %d failed\n", name, checks, failures);
    return failures ? 1 : 0;
}

#endif /* VMAF_TESTS_MOCK_CUDA_RUN_H */
