/*
 * A ladder's rungs on one CUDA state share the reference's upload (device.h's ref_group):
 * against the mock driver (tests/cuda/mock_cuda.c as libcuda.so.1), frames after the first
 * (which also uploads the twins' tables) cost one reference upload for all the rungs with the
 * same work plus each rung's distorted one; a rung with other work uploads its own; with host
 * and device pictures (device-to-device copies then), graphs and direct launches; everything
 * the group obtained is given back. The kernels do nothing here: what is checked is what
 * crosses the bus, not the scores (the GPU machine's `ctest -L ladder` checks those).
 * Usage: test_ladder_cuda MOCK_LIBRARY (built only with the CUDA backend)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/model.h"

#include "mock_cuda.h"
#include "mock_cuda_run.h"
#include "test_util.h"

enum { FRAMES = 6, RUNGS = 3 };

static MockCuda mock;

typedef struct Case {
    const char *name;
    bool other_work;      /* the last rung scores motion alone: not in the group */
    bool device_pictures; /* the rungs' pools in device memory (FFmpeg's CUDA frames) */
    bool direct;          /* VMAF_CUDA_NO_GRAPH=1 */
} Case;

static void run(VmafCudaState *s, const Case *c)
{
    mock_cuda_direct(c->direct);
    VmafContext *v[RUNGS] = { NULL };
    VmafModel *model = NULL;
    VmafModelConfig mc = { .name = "vmaf" };
    int err = vmaf_model_load(&model, &mc, "vmaf_v0.6.1");
    CHECK(!err, "%s: model %d", c->name, err);
    for (unsigned k = 0; !err && k < RUNGS; k++) {
        err = mock_cuda_context(&v[k], s, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR },
                                c->device_pictures);
        const bool other = c->other_work && k == RUNGS - 1;
        if (!err) err = other ? vmaf_use_feature(v[k], "motion", NULL)
                              : vmaf_use_features_from_model(v[k], model);
        CHECK(!err, "%s: rung %u set up: %d", c->name, k, err);
    }
    VmafLadder *ladder = NULL;
    if (!err) err = vmaf_ladder_init(&ladder, v, RUNGS);
    CHECK(!err, "%s: ladder %d", c->name, err);

    MockCudaStats before = { 0 };
    size_t luma = 0;
    for (unsigned i = 0; !err && i < FRAMES; i++) {
        VmafPicture ref, dist[RUNGS];
        err = mock_cuda_picture(v[0], c->device_pictures, &ref, 100 * i);
        for (unsigned k = 0; !err && k < RUNGS; k++) {
            err = mock_cuda_picture(v[k], c->device_pictures, &dist[k], 100 * i + k + 1);
            if (err) {
                vmaf_picture_unref(&ref);
                while (k--) vmaf_picture_unref(&dist[k]);
            }
        }
        CHECK(!err, "%s: pictures of frame %u: %d", c->name, i, err);
        if (err) break;
        luma = (size_t)ref.stride[0] * MOCK_H;
        int status[RUNGS];
        err = vmaf_ladder_read_pictures(ladder, &ref, dist, status, i);
        CHECK(!err, "%s: frame %u: %d (%d %d %d)", c->name, i, err, status[0], status[1],
              status[2]);
        if (!i) before = mock.stats(); /* the backends exist from here on */
    }
    int status[RUNGS];
    if (!err) err = vmaf_ladder_read_pictures(ladder, NULL, NULL, status, 0);
    CHECK(!err, "%s: flush %d", c->name, err);
    if (!err) {
        const MockCudaStats after = mock.stats();
        /* per frame: the group's reference, each rung's distorted, and the other rung's
         * reference (luma only: the default model and motion read no chroma) */
        const long want = (FRAMES - 1) * (1 + RUNGS + (c->other_work ? 1 : 0));
        const long got = c->device_pictures ? after.device_copies - before.device_copies
                                            : after.uploads - before.uploads;
        const long long bytes = c->device_pictures
                                    ? after.device_copy_bytes - before.device_copy_bytes
                                    : after.upload_bytes - before.upload_bytes;
        CHECK(got == want, "%s: %ld picture copies for %d frames, %ld expected (%ld without "
              "the shared reference)", c->name, got, FRAMES - 1, want,
              (long)(FRAMES - 1) * 2 * RUNGS);
        CHECK(bytes == (long long)want * (long long)luma, "%s: %lld bytes copied, %lld expected",
              c->name, bytes, (long long)want * (long long)luma);
        printf("ladder_cuda %s: %ld copies of a luma plane for %d frames of %d rungs\n", c->name,
               got, FRAMES - 1, RUNGS);
    }
    if (ladder) vmaf_ladder_close(ladder);
    for (unsigned k = 0; k < RUNGS; k++)
        if (v[k]) vmaf_close(v[k]);
    vmaf_model_destroy(model);
}

static void run_cases(VmafCudaState *s)
{
    static const Case cases[] = {
        { "host pictures, graphs", false, false, false },
        { "host pictures, direct", false, false, true },
        { "host pictures, a rung with other work", true, false, false },
        { "device pictures, graphs", false, true, false },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) run(s, &cases[i]);
}

int main(int argc, char **argv)
{
    return mock_cuda_main(argc, argv, "ladder_cuda", &mock, run_cases);
}
