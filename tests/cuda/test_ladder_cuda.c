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
#include "test_util.h"

enum { W = 352, H = 288, FRAMES = 6, RUNGS = 3 };

static MockCuda mock;

typedef struct Case {
    const char *name;
    bool other_work;      /* the last rung scores motion alone: not in the group */
    bool device_pictures; /* the rungs' pools in device memory (FFmpeg's CUDA frames) */
    bool direct;          /* VMAF_CUDA_NO_GRAPH=1 */
} Case;

static int picture(VmafContext *v, bool device, VmafPicture *p, unsigned seed)
{
    if (device) return vmaf_cuda_fetch_preallocated_picture(v, p);
    int err = vmaf_picture_alloc(p, VMAF_PIX_FMT_YUV420P, 8, W, H);
    if (err) return err;
    rng_state = 0x9e3779b97f4a7c15ull ^ seed;
    for (unsigned pl = 0; pl < 3; pl++)
        for (unsigned y = 0; y < p->h[pl]; y++)
            for (unsigned x = 0; x < p->w[pl]; x++)
                ((uint8_t *)p->data[pl])[y * p->stride[pl] + x] = (uint8_t)(rng() >> 8);
    return 0;
}

static void run(VmafCudaState *s, const Case *c)
{
    if (c->direct) setenv("VMAF_CUDA_NO_GRAPH", "1", 1);
    else unsetenv("VMAF_CUDA_NO_GRAPH");
    VmafContext *v[RUNGS] = { NULL };
    VmafModel *model = NULL;
    VmafModelConfig mc = { .name = "vmaf" };
    int err = vmaf_model_load(&model, &mc, "vmaf_v0.6.1");
    CHECK(!err, "%s: model %d", c->name, err);
    for (unsigned k = 0; !err && k < RUNGS; k++) {
        err = vmaf_init(&v[k], (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR });
        if (!err) err = vmaf_cuda_import_state(v[k], s);
        if (!err && c->device_pictures) {
            const VmafCudaPictureConfiguration pool = {
                .pic_params = { .w = W, .h = H, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P },
                .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
            };
            err = vmaf_cuda_preallocate_pictures(v[k], pool);
        }
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
        err = picture(v[0], c->device_pictures, &ref, 100 * i);
        for (unsigned k = 0; !err && k < RUNGS; k++) {
            err = picture(v[k], c->device_pictures, &dist[k], 100 * i + k + 1);
            if (err) {
                vmaf_picture_unref(&ref);
                while (k--) vmaf_picture_unref(&dist[k]);
            }
        }
        CHECK(!err, "%s: pictures of frame %u: %d", c->name, i, err);
        if (err) break;
        luma = (size_t)ref.stride[0] * H;
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

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: test_ladder_cuda MOCK_LIBRARY\n"), 2;
    if (mock_cuda_load(&mock, argv[1])) return 1;
    mock.fail_at(0);
    static const Case cases[] = {
        { "host pictures, graphs", false, false, false },
        { "host pictures, direct", false, false, true },
        { "host pictures, a rung with other work", true, false, false },
        { "device pictures, graphs", false, true, false },
    };
    VmafCudaState *s = NULL;
    int err = vmaf_cuda_state_init(&s, (VmafCudaConfiguration){ 0 });
    CHECK(!err, "state init %d", err);
    for (unsigned i = 0; !err && i < sizeof(cases) / sizeof(cases[0]); i++) run(s, &cases[i]);
    vmaf_cuda_state_free(s);
    const MockCudaStats st = mock.stats();
    MOCK_CUDA_CHECK_BALANCE(st, "");
    dlclose(mock.lib);
    printf("ladder_cuda: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
