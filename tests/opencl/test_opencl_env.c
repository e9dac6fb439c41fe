/*
 * VMAF_BACKEND at vmaf_init, met as FFmpeg's libvmaf filter meets the library: vmaf_init,
 * vmaf_use_features_from_model with the default model, host pictures from
 * vmaf_picture_alloc, vmaf_read_pictures (then the NULL flush), vmaf_score_pooled,
 * vmaf_close. With VMAF_BACKEND=opencl (PoCL) the context gets a device and the per-frame
 * and pooled scores are the bits of the run without it; bad values fail vmaf_init; auto
 * attaches no CPU OpenCL device; a client's own import replaces the attached state once.
 *   test_opencl_env CLIPS_DIR
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/libvmaf_opencl.h"

#include "context.h"

#include "cl_device.h"
#include "test_util.h"

#define CLIP "boats_576x324_420p"
#define W 576
#define H 324
#define FRAMES 8

typedef struct Scores {
    double frame[FRAMES];
    double mean, min, harmonic;
} Scores;

static unsigned char *ref_yuv, *dis_yuv;

static unsigned char *read_clip(const char *dir, const char *which)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s_%s.yuv", dir, CLIP, which);
    const size_t n = (size_t)W * H * 3 / 2 * FRAMES;
    unsigned char *buf = malloc(n);
    FILE *f = fopen(path, "rb");
    if (!buf || !f || fread(buf, 1, n, f) != n) {
        printf("FAIL: cannot read %u frames of %s\n", FRAMES, path);
        free(buf);
        buf = NULL;
    }
    if (f) fclose(f);
    return buf;
}

static void set_env(const char *backend, const char *device)
{
    if (backend) setenv("VMAF_BACKEND", backend, 1);
    else unsetenv("VMAF_BACKEND");
    if (device) setenv("VMAF_OPENCL_DEVICE", device, 1);
    else unsetenv("VMAF_OPENCL_DEVICE");
}

static int init(VmafContext **vmaf, unsigned threads)
{
    *vmaf = NULL;
    return vmaf_init(vmaf, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR,
                                                .n_threads = threads });
}

static int fill(VmafPicture *pic, const unsigned char *clip, unsigned frame)
{
    int err = vmaf_picture_alloc(pic, VMAF_PIX_FMT_YUV420P, 8, W, H);
    if (err) return err;
    const unsigned char *src = clip + (size_t)W * H * 3 / 2 * frame;
    for (int p = 0; p < 3; p++) {
        for (unsigned y = 0; y < pic->h[p]; y++) {
            memcpy((unsigned char *)pic->data[p] + y * pic->stride[p], src, pic->w[p]);
            src += pic->w[p];
        }
    }
    return 0;
}

/* FFmpeg's sequence on a context made by init(); closes it. 0 or the first error. */
static int score(VmafContext *vmaf, Scores *out)
{
    VmafModel *model = NULL;
    VmafModelConfig cfg = { .name = "vmaf", .flags = VMAF_MODEL_FLAGS_DEFAULT };
    int err = vmaf_model_load(&model, &cfg, "vmaf_v0.6.1");
    if (!err) err = vmaf_use_features_from_model(vmaf, model);
    for (unsigned i = 0; !err && i < FRAMES; i++) {
        VmafPicture ref, dis;
        err = fill(&ref, ref_yuv, i);
        if (err) break;
        err = fill(&dis, dis_yuv, i);
        if (err) {
            vmaf_picture_unref(&ref);
            break;
        }
        err = read_pictures_or_release(vmaf, &ref, &dis, i);
    }
    if (!err) err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    for (unsigned i = 0; !err && i < FRAMES; i++)
        err = vmaf_score_at_index(vmaf, model, &out->frame[i], i);
    if (!err)
        err = vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &out->mean, 0, FRAMES - 1);
    if (!err)
        err = vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MIN, &out->min, 0, FRAMES - 1);
    if (!err)
        err = vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_HARMONIC_MEAN, &out->harmonic, 0,
                                FRAMES - 1);
    vmaf_close(vmaf);
    if (model) vmaf_model_destroy(model);
    return err;
}

static void check_same(const Scores *a, const Scores *b, const char *what)
{
    for (unsigned i = 0; i < FRAMES; i++)
        CHECK(!memcmp(&a->frame[i], &b->frame[i], sizeof(double)),
              "%s: frame %u: %.17g vs %.17g on the CPU", what, i, a->frame[i], b->frame[i]);
    CHECK(!memcmp(&a->mean, &b->mean, sizeof(double)), "%s: mean %.17g vs %.17g", what, a->mean,
          b->mean);
    CHECK(!memcmp(&a->min, &b->min, sizeof(double)), "%s: min %.17g vs %.17g", what, a->min,
          b->min);
    CHECK(!memcmp(&a->harmonic, &b->harmonic, sizeof(double)), "%s: harmonic mean %.17g vs %.17g",
          what, a->harmonic, b->harmonic);
}

/* vmaf_init must fail with want (any negative errno when want is 0) and set no context. */
static void init_fails(const char *backend, const char *device, int want)
{
    set_env(backend, device);
    VmafContext *vmaf = NULL;
    const int err = init(&vmaf, 0);
    CHECK(want ? err == want : err < 0, "VMAF_BACKEND=%s VMAF_OPENCL_DEVICE=%s: vmaf_init "
          "returned %d, want %d", backend, device ? device : "(unset)", err, want);
    CHECK(!vmaf, "VMAF_BACKEND=%s: a context despite the failure", backend);
    if (!err) vmaf_close(vmaf);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: test_opencl_env CLIPS_DIR\n");
        return 2;
    }
    VmafOpenCLDeviceInfo info;
    const int pocl = test_opencl_device("Portable Computing Language", &info);
    if (pocl < 0) return 77;
    char pocl_index[16];
    snprintf(pocl_index, sizeof(pocl_index), "%d", pocl);
    printf("device %d: %s (%s)\n", pocl, info.name, info.platform);
    ref_yuv = read_clip(argv[1], "ref");
    dis_yuv = read_clip(argv[1], "dis");
    if (!ref_yuv || !dis_yuv) {
        free(ref_yuv);
        free(dis_yuv);
        return 1;
    }

    /* the CPU run, VMAF_BACKEND unset (and "cpu", "" the same) */
    Scores cpu, got;
    VmafContext *vmaf;
    set_env(NULL, NULL);
    CHECK(!init(&vmaf, 0) && !vmaf->device_state, "unset: a device attached");
    CHECK(!score(vmaf, &cpu), "the CPU run failed");
    const char *no_device[] = { "cpu", "" };
    for (unsigned i = 0; i < 2; i++) {
        set_env(no_device[i], pocl_index);
        CHECK(!init(&vmaf, 0) && !vmaf->device_state, "VMAF_BACKEND=\"%s\": a device attached",
              no_device[i]);
        vmaf_close(vmaf);
    }

    /* VMAF_BACKEND=opencl: a device attached at vmaf_init, the CPU's bits, threads or not */
    for (unsigned threads = 0; threads <= 2; threads += 2) {
        set_env("opencl", pocl_index);
        int err = init(&vmaf, threads);
        CHECK(!err, "VMAF_BACKEND=opencl: vmaf_init returned %d", err);
        if (err) continue;
        CHECK(vmaf->device_state && vmaf->device_from_env,
              "VMAF_BACKEND=opencl (threads %u): no device attached", threads);
        memset(&got, 0, sizeof(got));
        err = score(vmaf, &got);
        CHECK(!err, "VMAF_BACKEND=opencl (threads %u): scoring returned %d", threads, err);
        char what[64];
        snprintf(what, sizeof(what), "VMAF_BACKEND=opencl, %u threads", threads);
        if (!err) check_same(&got, &cpu, what);
    }

    /* refusals: vmaf_init fails, nothing attached or leaked */
    init_fails("bogus", NULL, -EINVAL);
    init_fails("OpenCL", NULL, -EINVAL);
    init_fails("opencl", "99", 0);
    init_fails("opencl", "x", -EINVAL);
    init_fails("opencl", "-1", -EINVAL);
    init_fails("auto", "x", -EINVAL);
    /* "cpu" changes nothing: VMAF_OPENCL_DEVICE is not read then */
    set_env("cpu", "x");
    CHECK(!init(&vmaf, 0) && !vmaf->device_state, "VMAF_BACKEND=cpu VMAF_OPENCL_DEVICE=x: "
          "vmaf_init failed or attached a device");
    vmaf_close(vmaf);

    /* auto: a CPU OpenCL device is never picked unless VMAF_OPENCL_DEVICE names it */
    int count = 0, gpus = 0;
    CHECK(!vmaf_opencl_device_count(&count), "vmaf_opencl_device_count failed");
    for (int i = 0; i < count; i++) {
        VmafOpenCLDeviceInfo d;
        if (!vmaf_opencl_device_info(i, &d) && d.type == VMAF_OPENCL_DEVICE_GPU) gpus++;
    }
    VmafCudaState *cs = NULL;
    const bool cuda = !vmaf_cuda_state_init(&cs, (VmafCudaConfiguration){ 0 });
    if (cuda) vmaf_cuda_state_free(cs);
    if (gpus || cuda) {
        printf("-- auto with no GPU: not checked (%d OpenCL GPU%s%s)\n", gpus,
               gpus == 1 ? "" : "s", cuda ? ", a CUDA device" : "");
    } else {
        set_env("auto", NULL);
        CHECK(!init(&vmaf, 0), "VMAF_BACKEND=auto: vmaf_init failed");
        CHECK(!vmaf->device_state, "VMAF_BACKEND=auto: the CPU device %d attached", pocl);
        memset(&got, 0, sizeof(got));
        CHECK(!score(vmaf, &got), "VMAF_BACKEND=auto: scoring failed");
        check_same(&got, &cpu, "VMAF_BACKEND=auto");
    }
    set_env("auto", pocl_index);
    CHECK(!init(&vmaf, 0) && vmaf->device_state && vmaf->device_from_env,
          "VMAF_BACKEND=auto VMAF_OPENCL_DEVICE=%d: the device named not attached", pocl);
    vmaf_close(vmaf);

    /* a client's own state replaces the attached one, once */
    set_env("opencl", pocl_index);
    CHECK(!init(&vmaf, 0), "VMAF_BACKEND=opencl: vmaf_init failed");
    VmafOpenCLState *mine = NULL, *again = NULL;
    CHECK(!vmaf_opencl_state_init(&mine, (VmafOpenCLConfiguration){ .device = pocl }),
          "vmaf_opencl_state_init failed");
    CHECK(!vmaf_opencl_state_init(&again, (VmafOpenCLConfiguration){ .device = pocl }),
          "vmaf_opencl_state_init failed");
    const void *attached = vmaf->device_state;
    int err = vmaf_opencl_import_state(vmaf, mine);
    CHECK(!err, "import after VMAF_BACKEND attached one: %d, want 0", err);
    CHECK(vmaf->device_state == (void *)mine && vmaf->device_state != attached &&
          !vmaf->device_from_env, "the client's state is not the context's");
    err = vmaf_opencl_import_state(vmaf, again);
    CHECK(err == -EINVAL, "a second import: %d, want -EINVAL", err);
    CHECK(vmaf->device_state == (void *)mine, "the second import replaced the first");
    vmaf_opencl_state_free(mine);
    vmaf_opencl_state_free(again);
    memset(&got, 0, sizeof(got));
    CHECK(!score(vmaf, &got), "scoring with the client's state failed");
    check_same(&got, &cpu, "the client's own state");

    set_env(NULL, NULL);
    free(ref_yuv);
    free(dis_yuv);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
