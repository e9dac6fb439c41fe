/* checktwin family: psnr, psnr_hvs, motion and motion_v2. */
#include "checktwin.h"

void checktwin_psnr_motion(CheckEnv *env)
{
    static const char *const all8[] = { "psnr=enable_mse=true:enable_apsnr=true", "motion",
                                        "motion_v2=motion_five_frame_window=true:motion_moving_average=true",
                                        "psnr_hvs", NULL };
    static const char *const hbd[] = { "psnr=enable_mse=true:enable_apsnr=true:reduced_hbd_peak=true",
                                       "motion", "motion_v2=motion_five_frame_window=true", NULL };
    static const char *const opts[] = { "psnr=enable_chroma=false:min_sse=0.5",
                                        "motion=motion_force_zero=true",
                                        "motion_v2=motion_fps_weight=2:motion_max_val=3", NULL };
    static const unsigned sizes[][2] = { { 3, 3 }, { 4, 7 }, { 17, 17 }, { 33, 21 }, { 64, 64 },
                                         { 257, 145 }, { 1025, 3 }, { 320, 181 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    const unsigned n_sizes = env->quick ? 4 : sizeof(sizes) / sizeof(sizes[0]);
    for (unsigned s = 0; s < n_sizes; s++) {
        for (unsigned d = 0; d < 6; d++) {
            for (unsigned f = 0; f < 3; f++) {
                for (unsigned v = 0; v < 4; v++) {
                    const unsigned bpc = depths[d];
                    const CheckCase c = {
                        .w = sizes[s][0], .h = sizes[s][1], .bpc = bpc, .frames = 7,
                        .subsample = (v & 1) ? 3 : 1, .fmt = fmts[f], .graph = !(v & 2),
                        .features = v == 3 ? opts : bpc <= 12 ? all8 : hbd,
                        .source = (enum CheckSource)((s + d + f + v) % SRC_COUNT),
                    };
                    checktwin_case(env, &c);
                }
            }
        }
    }
    /* large frames: a few combinations */
    static const unsigned big[][3] = { { 1920, 1080, 8 }, { 1921, 1081, 10 }, { 3840, 2160, 8 },
                                       { 4096, 2160, 12 } };
    for (unsigned i = 0; i < (env->quick ? 1u : 4u); i++) {
        const CheckCase c = { .w = big[i][0], .h = big[i][1], .bpc = big[i][2], .frames = 4,
                              .subsample = 1, .fmt = VMAF_PIX_FMT_YUV420P, .graph = i & 1,
                              .features = big[i][2] <= 12 ? all8 : hbd,
                              .source = (enum CheckSource)(i % SRC_COUNT) };
        checktwin_case(env, &c);
    }
    /* real content: every shared clip at its own size, threads 2 on the GPU context too */
    for (unsigned i = 0; i < checktwin_n_clips; i++) {
        const CheckClip *clip = &checktwin_clips[i];
        const CheckCase c = { .w = clip->w, .h = clip->h, .bpc = clip->bpc,
                              .frames = env->quick ? 3 : 6, .subsample = 1, .fmt = clip->fmt,
                              .graph = true, .features = clip->bpc <= 12 ? all8 : hbd,
                              .clip = clip, .distortion = DIST_CODEC,
                              .source = (enum CheckSource)(i % SRC_COUNT), .threads = i & 1 };
        checktwin_case(env, &c);
    }
    checktwin_shared_state(env, all8, NULL);
    if (env->bench) {
        static const char *const bench_features[] = { "psnr", "motion", "motion_v2", "psnr_hvs",
                                                      NULL };
        const CheckCase c = { .w = 3840, .h = 2160, .bpc = 8, .frames = 60, .subsample = 1,
                              .fmt = VMAF_PIX_FMT_YUV420P, .graph = true,
                              .features = bench_features, .source = SRC_PINNED };
        checktwin_bench(env, &c);
    }
}
