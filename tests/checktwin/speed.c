/* checktwin family: speed_chroma and speed_temporal. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checktwin.h"
#include "feature/speed.h"

typedef struct SpeedSet {
    const char *chroma, *temporal;
    double chroma_ps, temporal_ps; /* their speed_prescale, for the smallest accepted size */
} SpeedSet;

static const SpeedSet golden_sets[] = {
    { "speed_chroma", "speed_temporal", 1.0, 1.0 },
    { "speed_chroma=speed_prescale=0.5:speed_prescale_method=bicubic:speed_weight_var_mode=5:"
      "speed_nn_floor=0.1:speed_sigma_nn=0.19",
      "speed_temporal=speed_prescale=0.5:speed_prescale_method=bilinear:speed_use_ref_diff=true",
      0.5, 0.5 },
    { "speed_chroma=speed_prescale=1.5:speed_prescale_method=lanczos4:speed_kernelscale=1.5",
      "speed_temporal=speed_prescale=2:speed_prescale_method=nearest:speed_kernelscale=0.5:"
      "speed_sigma_nn=1.3:speed_nn_floor=0.5",
      1.5, 2.0 },
    { "speed_chroma=speed_prescale=1.0005:speed_weight_var_mode=3:speed_max_val=2",
      "speed_temporal=speed_prescale=0.9995:speed_kernelscale=2", 1.0005, 0.9995 },
};

/* Luma size accepted by both extractors of a set for a pixel format. */
static int accepted(unsigned w, unsigned h, enum VmafPixelFormat fmt, const SpeedSet *s)
{
    const unsigned cw = fmt == VMAF_PIX_FMT_YUV444P ? w : w / 2;
    const unsigned ch = fmt == VMAF_PIX_FMT_YUV420P ? h / 2 : h;
    VmafSpeedDims d;
    return !vmaf_speed_dims_init(&d, cw, ch, s->chroma_ps) &&
           !vmaf_speed_dims_init(&d, w, h, s->temporal_ps);
}

/* The smallest accepted square-ish luma size for a format (searching up from 16). */
static void smallest(enum VmafPixelFormat fmt, const SpeedSet *s, unsigned *w, unsigned *h)
{
    unsigned n = 16;
    while (!accepted(n, n, fmt, s))
        n++;
    *w = *h = n;
}

static void set_case(CheckEnv *env, const SpeedSet *s, unsigned w, unsigned h, unsigned bpc,
                     enum VmafPixelFormat fmt, unsigned variant, unsigned frames)
{
    if (!accepted(w, h, fmt, s)) return;
    const char *const features[] = { s->chroma, s->temporal, NULL };
    const CheckCase c = {
        .w = w, .h = h, .bpc = bpc, .frames = frames, .subsample = (variant & 1) ? 3 : 1,
        .fmt = fmt, .graph = !(variant & 2), .features = features,
        .source = (enum CheckSource)(variant % SRC_COUNT), .threads = (variant >> 2) & 1,
    };
    checktwin_case(env, &c);
}

/* A frame too small for SpEED is refused by both back ends, at the first picture. */
static void refusal(CheckEnv *env, const char *feature, unsigned w, unsigned h,
                    enum VmafPixelFormat fmt)
{
    int result[2];
    for (int gpu = 0; gpu < 2; gpu++) {
        VmafContext *v = NULL;
        VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
        int err = vmaf_init(&v, cfg);
        /* the back end under test (a build without CUDA answers -ENOSYS to the CUDA one) */
        if (!err && gpu)
            err = env->backend == CHECK_OPENCL ? vmaf_opencl_import_state(v, env->cl_state)
                                               : vmaf_cuda_import_state(v, env->state);
        if (!err) err = vmaf_use_feature(v, feature, NULL);
        VmafPicture ref, dist;
        if (!err) err = vmaf_picture_alloc(&ref, fmt, 8, w, h);
        if (!err) {
            err = vmaf_picture_alloc(&dist, fmt, 8, w, h);
            if (err) vmaf_picture_unref(&ref);
        }
        if (!err) {
            err = vmaf_read_pictures(v, &ref, &dist, 0);
            /* as the reference, a refused frame may leave the pictures with the caller */
            if (err && ref.ref) vmaf_picture_unref(&ref);
            if (err && dist.ref) vmaf_picture_unref(&dist);
        }
        result[gpu] = err;
        if (v) vmaf_close(v);
    }
    env->n_cases++;
    if (result[0] != -EINVAL || result[1] != result[0]) {
        env->n_failed++;
        printf("FAIL %s at %ux%u: cpu %d cuda %d (both must refuse with -EINVAL)\n", feature, w,
               h, result[0], result[1]);
    }
}

void checktwin_speed(CheckEnv *env)
{
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    const unsigned n_sets = sizeof(golden_sets) / sizeof(golden_sets[0]);
    unsigned k = 0;

    /* every set at the smallest accepted size, one more (odd), and larger odd sizes */
    for (unsigned si = 0; si < n_sets; si++) {
        const SpeedSet *s = &golden_sets[si];
        for (unsigned f = 0; f < 3; f++) {
            unsigned w, h;
            smallest(fmts[f], s, &w, &h);
            const unsigned sizes[][2] = { { w, h }, { w + 1, h + 3 }, { 2 * w + 33, h + 61 },
                                          { 3 * w + 7, 2 * h + 1 } };
            const unsigned n_sizes = env->quick ? 2 : 4;
            for (unsigned z = 0; z < n_sizes; z++, k++)
                set_case(env, s, sizes[z][0], sizes[z][1], depths[k % 6], fmts[f], k % 8,
                         env->quick ? 3 : 5);
        }
    }

    /* random option sets (seeded by the run) */
    static const char *const methods[] = { "nearest", "bilinear", "bicubic", "lanczos4" };
    CheckRng rng = { .s = env->seed ^ 0x5bee5bee5ull };
    for (unsigned i = 0; i < (env->quick ? 2u : 8u); i++) {
        char chroma[256], temporal[256];
        const double ks = vmaf_speed_kernelscales[checktwin_rand(&rng) % VMAF_SPEED_NUM_KERNELSCALES];
        const double ps_c = 0.5 + (checktwin_rand(&rng) % 1500) / 1000.0;
        const double ps_t = 0.5 + (checktwin_rand(&rng) % 1500) / 1000.0;
        snprintf(chroma, sizeof(chroma),
                 "speed_chroma=speed_kernelscale=%.6g:speed_prescale=%g:speed_prescale_method=%s:"
                 "speed_sigma_nn=%g:speed_nn_floor=%g:speed_weight_var_mode=%u:speed_max_val=%g",
                 ks, ps_c, methods[checktwin_rand(&rng) % 4],
                 0.1 + (checktwin_rand(&rng) % 190) / 100.0, (checktwin_rand(&rng) % 100) / 100.0,
                 checktwin_rand(&rng) % 7, (double)(1 + checktwin_rand(&rng) % 1000));
        snprintf(temporal, sizeof(temporal),
                 "speed_temporal=speed_kernelscale=%.6g:speed_prescale=%g:"
                 "speed_prescale_method=%s:speed_sigma_nn=%g:speed_use_ref_diff=%s",
                 ks, ps_t, methods[checktwin_rand(&rng) % 4],
                 0.1 + (checktwin_rand(&rng) % 190) / 100.0,
                 (checktwin_rand(&rng) & 1) ? "true" : "false");
        const SpeedSet s = { chroma, temporal, ps_c, ps_t };
        const enum VmafPixelFormat fmt = fmts[i % 3];
        unsigned w, h;
        smallest(fmt, &s, &w, &h);
        w += checktwin_rand(&rng) % 200;
        h += checktwin_rand(&rng) % 120;
        set_case(env, &s, w, h, depths[i % 6], fmt, i, 4);
    }

    /* large frames */
    static const struct { unsigned w, h, bpc, set; } big[] = {
        { 1920, 1080, 8, 0 }, { 1921, 1081, 10, 1 }, { 3840, 2160, 8, 0 }, { 4096, 2160, 12, 2 },
        { 3841, 2161, 16, 3 },
    };
    for (unsigned i = 0; i < (env->quick ? 1u : 5u); i++)
        set_case(env, &golden_sets[big[i].set], big[i].w, big[i].h, big[i].bpc,
                 VMAF_PIX_FMT_YUV420P, i & 2, 3);

    /* real content: each clip at its size (codec), and resampled with synthetic distortions */
    for (unsigned i = 0; i < checktwin_n_clips; i++) {
        const CheckClip *clip = &checktwin_clips[i];
        for (unsigned si = 0; si < 2; si++) {
            const SpeedSet *s = &golden_sets[si];
            const char *const features[] = { s->chroma, s->temporal, NULL };
            if (!accepted(clip->w, clip->h, clip->fmt, s)) continue;
            const CheckCase c = { .w = clip->w, .h = clip->h, .bpc = clip->bpc,
                                  .frames = env->quick ? 3 : 6, .subsample = si ? 3 : 1,
                                  .fmt = clip->fmt, .graph = true, .features = features,
                                  .clip = clip, .distortion = DIST_CODEC,
                                  .source = (enum CheckSource)(i % SRC_COUNT), .threads = i & 1 };
            checktwin_case(env, &c);
        }
        if (env->quick) continue;
        const CheckCase r = { .w = 643, .h = 359, .bpc = 8 + i % 9, .frames = 4,
                              .subsample = 1, .fmt = VMAF_PIX_FMT_YUV420P, .graph = i & 1,
                              .features = (const char *const[]){ golden_sets[2].chroma,
                                                                 golden_sets[1].temporal, NULL },
                              .clip = clip, .distortion = (enum CheckDistortion)(1 + i % 3),
                              .source = (enum CheckSource)((i + 1) % SRC_COUNT) };
        checktwin_case(env, &r);
    }

    /* the seeds' whole set with the default model */
    static const char *const seeds[] = { "psnr", "psnr_hvs", "motion", "motion_v2",
                                         "speed_chroma", "speed_temporal", NULL };
    const CheckCase all = { .w = 1280, .h = 720, .bpc = 8, .frames = 4, .subsample = 1,
                            .fmt = VMAF_PIX_FMT_YUV420P, .graph = true, .features = seeds,
                            .model = "vmaf_v0.6.1", .source = SRC_PINNED };
    checktwin_case(env, &all);

    /* too small: refused by both */
    refusal(env, "speed_chroma", 158, 200, VMAF_PIX_FMT_YUV420P);
    refusal(env, "speed_temporal", 79, 300, VMAF_PIX_FMT_YUV444P);

    if (env->bench) {
        for (unsigned i = 0; i < 3; i++) {
            static const char *const chroma[] = { "speed_chroma", NULL };
            static const char *const temporal[] = { "speed_temporal", NULL };
            const CheckCase c = { .w = 3840, .h = 2160, .bpc = 8, .frames = 60, .subsample = 1,
                                  .fmt = VMAF_PIX_FMT_YUV420P, .graph = true,
                                  .features = i == 0 ? chroma : i == 1 ? temporal : seeds,
                                  .model = i == 2 ? "vmaf_v0.6.1" : NULL,
                                  .source = SRC_PINNED };
            checktwin_bench(env, &c);
        }
    }
}
