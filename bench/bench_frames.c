/*
 * bench_frames: scores frames that are already in memory (no file reading), CPU path vs CUDA
 * vs OpenCL, and prints ms per frame and fps for each.
 *
 *   bench_frames REF.yuv DIS.yuv W H [--frames N] [--threads T] [--features a,b,...]
 *                [--model VERSION] [--backend cpu|cuda|opencl|both|all] [--opencl_device N]
 *
 * both: cpu and cuda; all: cpu, cuda and opencl. OpenCL reads the same pinned pictures (pinned
 * for CUDA; the OpenCL driver sees pageable memory unless it is NVIDIA's own pinned pool, so
 * "opencl (host pictures)" is a lower bound where CUDA is also present).
 *
 * --model adds a built-in model's features (and its per-frame prediction); --features none
 * leaves only the model's.
 *
 * Up to 16 frame pairs are loaded once into pinned host pictures (the CUDA picture pool's
 * memory) and fed round-robin, so the CUDA number is the "from pinned frames in memory" rate.
 * 8-bit 4:2:0 input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/libvmaf_opencl.h"

#include "context.h"
#include "cuda/backend.h"
#include "opencl/pool.h"
#include "picture.h"
#include "picture_pool.h"

#define MAX_LOADED 16

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int load(const char *path, VmafPicture *pics, unsigned n, VmafPicturePool *pool)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        if (vmaf_picture_pool_fetch(pool, &pics[i])) return -1;
        for (int p = 0; p < 3; p++)
            for (unsigned y = 0; y < pics[i].h[p]; y++)
                if (fread((char *)pics[i].data[p] + y * pics[i].stride[p], 1, pics[i].w[p], f) !=
                    pics[i].w[p]) {
                    fprintf(stderr, "%s: short file\n", path);
                    return -1;
                }
        /* pinned pools register a buffer after its first fill (the CLI's reader does too) */
        if (vmaf_picture_prepare(&pics[i])) {
            fprintf(stderr, "%s: could not pin picture %u\n", path, i);
            return -1;
        }
    }
    fclose(f);
    return 0;
}

static double run(const char *features, const char *model_version, unsigned threads,
                  VmafCudaState *state, VmafOpenCLState *cl, VmafPicture *ref, VmafPicture *dis,
                  unsigned loaded, unsigned frames, double *pooled)
{
    VmafContext *v;
    VmafModel *model = NULL;
    VmafConfiguration cfg = { .n_threads = threads };
    if (vmaf_init(&v, cfg)) return -1;
    if (state && vmaf_cuda_import_state(v, state)) return -1;
    if (cl && vmaf_opencl_import_state(v, cl)) return -1;
    if (model_version) {
        VmafModelConfig mc = { .name = "vmaf" };
        if (vmaf_model_load(&model, &mc, model_version) ||
            vmaf_use_features_from_model(v, model)) {
            fprintf(stderr, "cannot use model %s\n", model_version);
            return -1;
        }
    }
    char list[512];
    snprintf(list, sizeof(list), "%s", features);
    for (char *rest = list, *name; strcmp(features, "none") && (name = strsep(&rest, ","));)
        if (vmaf_use_feature(v, name, NULL)) return -1;
    /* BENCH_FRAMES_BLOCK=N: the submission rate of each block of N frames, from the first
     * (a device that starts slow and speeds up shows here; the total hides it) */
    const char *blk = getenv("BENCH_FRAMES_BLOCK");
    const unsigned block = blk ? (unsigned)atoi(blk) : 0;
    const double t0 = now_s();
    double tb = t0;
    for (unsigned i = 0; i < frames; i++) {
        VmafPicture r, d;
        vmaf_picture_ref(&r, &ref[i % loaded]);
        vmaf_picture_ref(&d, &dis[i % loaded]);
        if (vmaf_read_pictures(v, &r, &d, i)) return -1;
        if (block && (i + 1) % block == 0) {
            const double t = now_s();
            fprintf(stderr, "%s frames %u-%u: %.3f ms each\n",
                    state ? "cuda" : cl ? "opencl" : "cpu",
                    i + 1 - block, i, 1e3 * (t - tb) / block);
            tb = t;
        }
    }
    if (vmaf_read_pictures(v, NULL, NULL, 0)) return -1;
    /* the model's per-frame predictions are part of the work */
    if (model && vmaf_score_pooled(v, model, VMAF_POOL_METHOD_MEAN, pooled, 0, frames - 1))
        return -1;
    const double t = now_s() - t0;
    vmaf_close(v);
    vmaf_model_destroy(model);
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s REF DIS W H [--frames N] [--threads T] [--features a,b] "
                        "[--backend cpu|cuda|opencl|both|all] [--opencl_device N]\n", argv[0]);
        return 2;
    }
    const unsigned w = (unsigned)atoi(argv[3]), h = (unsigned)atoi(argv[4]);
    unsigned frames = 120, threads = 16;
    int cl_device = 0;
    const char *features = "psnr,motion,motion_v2,psnr_hvs", *backend = "both", *model = NULL;
    for (int i = 5; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--frames")) frames = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--features")) features = argv[i + 1];
        else if (!strcmp(argv[i], "--backend")) backend = argv[i + 1];
        else if (!strcmp(argv[i], "--model")) model = argv[i + 1];
        else if (!strcmp(argv[i], "--opencl_device")) cl_device = atoi(argv[i + 1]);
    }
    const bool all = !strcmp(backend, "all");
    const bool want_cpu = all || !strcmp(backend, "cpu") || !strcmp(backend, "both");
    const bool want_opencl = all || !strcmp(backend, "opencl");
    VmafOpenCLState *cl = NULL;
    if (want_opencl &&
        vmaf_opencl_state_init(&cl, (VmafOpenCLConfiguration){ .device = cl_device })) {
        fprintf(stderr, "no OpenCL device %d\n", cl_device);
        return 1;
    }
    VmafCudaState *state = NULL;
    const int want_cuda = all || !strcmp(backend, "cuda") || !strcmp(backend, "both");
    if (want_cuda && vmaf_cuda_state_init(&state, (VmafCudaConfiguration){ 0 })) {
        fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    VmafPicturePoolConfig pc = { .pic_cnt = 2 * MAX_LOADED, .pix_fmt = VMAF_PIX_FMT_YUV420P,
                                 .bpc = 8, .w = w, .h = h };
    if (state) {
        vmaf_cuda_pool_config(state, 0, &pc);
        pc.cookie = state;
        pc.memory = VMAF_PICTURE_MEMORY_HOST_PINNED;
    } else if (cl) {
        vmaf_opencl_pool_config(cl, &pc); /* the OpenCL device's pinned host memory */
    }
    VmafPicturePool *pool;
    if (vmaf_picture_pool_init(&pool, pc)) return 1;
    VmafPicture ref[MAX_LOADED], dis[MAX_LOADED];
    const unsigned loaded = frames < MAX_LOADED ? frames : MAX_LOADED;
    if (load(argv[1], ref, loaded, pool) || load(argv[2], dis, loaded, pool)) return 1;

    printf("bench_frames %ux%u, %u frames from memory, features %s, model %s\n", w, h, frames,
           features, model ? model : "none");
    printf("%-28s %10s %10s %20s\n", "path", "ms/frame", "fps", "pooled model score");
    double pooled_cpu = 0, pooled_cuda = 0, pooled_cl = 0;
    if (want_cpu) {
        const double t = run(features, model, threads, NULL, NULL, ref, dis, loaded, frames,
                             &pooled_cpu);
        char label[64];
        snprintf(label, sizeof(label), "cpu (%u threads)", threads);
        printf("%-28s %10.3f %10.1f %20.17g\n", label, 1e3 * t / frames, frames / t, pooled_cpu);
    }
    if (state) {
        const double t = run(features, model, 0, state, NULL, ref, dis, loaded, frames,
                             &pooled_cuda);
        printf("%-28s %10.3f %10.1f %20.17g\n", "cuda (pinned, in memory)", 1e3 * t / frames,
               frames / t, pooled_cuda);
    }
    if (cl) {
        const double t = run(features, model, 0, NULL, cl, ref, dis, loaded, frames, &pooled_cl);
        printf("%-28s %10.3f %10.1f %20.17g\n", state ? "opencl (host pictures)"
                                                       : "opencl (in memory)",
               1e3 * t / frames, frames / t, pooled_cl);
    }
    if (model && state && want_cpu)
        printf("pooled scores cuda %s\n", pooled_cpu == pooled_cuda ? "equal" : "DIFFER");
    if (model && cl && want_cpu)
        printf("pooled scores opencl %s\n", pooled_cpu == pooled_cl ? "equal" : "DIFFER");
    for (unsigned i = 0; i < loaded; i++) {
        vmaf_picture_unref(&ref[i]);
        vmaf_picture_unref(&dis[i]);
    }
    vmaf_picture_pool_close(pool);
    if (state) vmaf_cuda_state_free(state);
    if (cl) vmaf_opencl_state_free(cl);
    return 0;
}
