/* checktwin family: cambi (every option but heatmaps_path, which the twin refuses). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checktwin.h"

static const char *const option_sets[] = {
    "cambi",
    "cambi=enc_width=480:enc_height=270:window_size=31:topk=0.2:tvi_threshold=0.012:"
    "max_log_contrast=3:full_ref=true",
    "cambi=cambi_high_res_speedup=1080:cambi_max_val=17:cambi_vis_lum_threshold=0.06",
    "cambi=max_log_contrast=5:tvi_threshold=0.5:window_size=127",
    "cambi=max_log_contrast=0:cambi_topk=1",
    "cambi=cambi_eotf=pq:cambi_vis_lum_threshold=0.5:topk=0.0001",
    "cambi=eotf=pq:max_log_contrast=4:full_ref=true:src_width=320:src_height=200",
    "cambi=enc_bitdepth=8:window_size=15",
    "cambi=enc_width=200:enc_height=150:enc_bitdepth=10:cambi_max_val=0.5",
    "cambi=full_ref=true:cambi_high_res_speedup=2160:tvi_threshold=0.05",
};
enum { N_SETS = sizeof(option_sets) / sizeof(option_sets[0]) };

static void one(CheckEnv *env, unsigned w, unsigned h, unsigned bpc, enum VmafPixelFormat fmt,
                const char *opts, unsigned variant, unsigned frames, const CheckClip *clip,
                enum CheckDistortion dist)
{
    const char *const features[] = { opts, NULL };
    const CheckCase c = {
        .w = w, .h = h, .bpc = bpc, .frames = frames, .subsample = (variant & 1) ? 3 : 1,
        .fmt = fmt, .graph = !(variant & 2), .features = features, .clip = clip,
        .distortion = dist, .source = (enum CheckSource)(variant % SRC_COUNT),
        .threads = (variant >> 2) & 1,
    };
    checktwin_case(env, &c);
}

/* heatmaps_path has no twin: the CPU path scores it, the CUDA context refuses it. */
static void heatmaps(CheckEnv *env)
{
    char opt[600];
    snprintf(opt, sizeof(opt), "%s/checktwin_cambi_heatmaps", env->dir);
    int result[2];
    for (int gpu = 0; gpu < 2; gpu++) {
        VmafContext *v = NULL;
        VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
        int err = vmaf_init(&v, cfg);
        if (!err && gpu) err = vmaf_cuda_import_state(v, env->state);
        VmafFeatureDictionary *d = NULL;
        if (!err) err = vmaf_feature_dictionary_set(&d, "heatmaps_path", opt);
        if (!err) err = vmaf_use_feature(v, "cambi", d);
        VmafPicture ref, dist;
        if (!err) err = vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 320, 240);
        if (!err) {
            err = vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, 320, 240);
            if (err) vmaf_picture_unref(&ref);
        }
        if (!err) {
            err = vmaf_read_pictures(v, &ref, &dist, 0);
            /* as the reference, a refused frame may leave the pictures with the caller */
            if (err && ref.ref) vmaf_picture_unref(&ref);
            if (err && dist.ref) vmaf_picture_unref(&dist);
        }
        if (!err) err = vmaf_read_pictures(v, NULL, NULL, 0);
        result[gpu] = err;
        if (v) vmaf_close(v);
    }
    env->n_cases++;
    if (result[0] != 0 || result[1] == 0) {
        env->n_failed++;
        printf("FAIL cambi heatmaps_path: cpu %d (must score) cuda %d (must refuse)\n",
               result[0], result[1]);
    }
}

void checktwin_cambi(CheckEnv *env)
{
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    /* the smallest accepted sizes (one side 216, the other down to 1 or 2), odd ones, and
     * sizes around the c-value kernel's strips (16 columns) and segments (128 rows) */
    static const unsigned sizes[][2] = { { 216, 2 }, { 2, 216 }, { 216, 3 }, { 217, 9 },
                                         { 257, 145 }, { 320, 200 }, { 333, 187 },
                                         { 576, 324 }, { 640, 97 }, { 255, 257 }, { 400, 250 } };
    const unsigned n_sizes = env->quick ? 5 : sizeof(sizes) / sizeof(sizes[0]);
    unsigned k = 0;
    for (unsigned s = 0; s < n_sizes; s++)
        for (unsigned d = 0; d < 6; d++)
            for (unsigned v = 0; v < (env->quick ? 1u : 2u); v++, k++)
                one(env, sizes[s][0], sizes[s][1], depths[d], fmts[k % 3],
                    option_sets[k % N_SETS], k % 8, env->quick ? 3 : 5, NULL, DIST_CODEC);
    /* every option set at one size and depth, each graph / subsample / source variant */
    for (unsigned i = 0; i < N_SETS; i++)
        for (unsigned v = 0; v < (env->quick ? 2u : 8u); v++)
            one(env, 480, 272, depths[(i + v) % 6], fmts[(i + v) % 3], option_sets[i], v, 4,
                NULL, DIST_CODEC);
    /* large frames: 1080p (the speed-up applies), 4K */
    static const unsigned big[][3] = { { 1920, 1080, 8 }, { 1921, 1081, 10 }, { 3840, 2160, 10 },
                                       { 3840, 2160, 8 } };
    for (unsigned i = 0; i < (env->quick ? 1u : 4u); i++)
        one(env, big[i][0], big[i][1], big[i][2], VMAF_PIX_FMT_YUV420P,
            option_sets[i == 0 ? 2 : i == 3 ? 9 : 0], i, 3, NULL, DIST_CODEC);
    /* real content: every clip with each distortion, at its size and resampled (4K too) */
    static const enum CheckDistortion dists[] = { DIST_CODEC, DIST_BLUR, DIST_NOISE, DIST_QUANT };
    for (unsigned i = 0; i < checktwin_n_clips; i++) {
        const CheckClip *clip = &checktwin_clips[i];
        for (unsigned j = 0; j < (env->quick ? 1u : 4u); j++) {
            unsigned w = clip->w, h = clip->h;
            if (j == 3) {
                w = 333;
                h = 217;
            }
            one(env, w, h, clip->bpc, clip->fmt, option_sets[(i + j) % N_SETS], i + j,
                env->quick ? 3 : 5, clip, dists[j]);
        }
    }
    const CheckClip *jetty = checktwin_clip("jetty_1920x1080_420p");
    if (jetty && !env->quick) {
        one(env, 3840, 2160, 10, VMAF_PIX_FMT_YUV420P, option_sets[0], 0, 3, jetty, DIST_CODEC);
        one(env, 3840, 2160, 8, VMAF_PIX_FMT_YUV420P, option_sets[2], 2, 3, jetty, DIST_QUANT);
    }
    /* the v1.0.16 models (cambi with the models' options, beside the other twins) */
    static const char *const models[] = { "vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_hfr_3d0h" };
    for (unsigned i = 0; i < 2; i++) {
        const CheckCase c = { .w = 576, .h = 324, .bpc = 8 + 2 * i, .frames = 4, .subsample = 1,
                              .fmt = VMAF_PIX_FMT_YUV420P, .graph = true, .model = models[i],
                              .source = (enum CheckSource)i };
        checktwin_case(env, &c);
    }
    heatmaps(env);
    if (env->bench) {
        /* 4K real content (the device profile per kernel and scale) */
        static const char *const plain[] = { "cambi", NULL };
        static const char *const full[] = { "cambi=full_ref=true", NULL };
        for (int i = 0; i < 2; i++) {
            const CheckCase c = { .w = 3840, .h = 2160, .bpc = 10, .frames = 20, .subsample = 1,
                                  .fmt = VMAF_PIX_FMT_YUV420P, .graph = true,
                                  .features = i ? full : plain, .clip = jetty,
                                  .distortion = DIST_CODEC, .source = SRC_PINNED };
            checktwin_bench(env, &c);
        }
    }
}
