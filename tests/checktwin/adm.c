/* checktwin family: integer adm (every option set that changes the arithmetic). */
#include "checktwin.h"

void checktwin_adm(CheckEnv *env)
{
    static const char *const deflt[] = { "adm=debug=true", NULL };
    static const char *const opt_sets[][2] = {
        { "adm=adm_csf_mode=1:debug=true", NULL },
        { "adm=adm_csf_mode=1:adm_csf_scale=40:adm_csf_diag_scale=30", NULL },
        { "adm=adm_csf_mode=2", NULL },
        { "adm=adm_csf_mode=3:adm_ref_display_height=2160:adm_norm_view_dist=1.5", NULL },
        { "adm=adm_csf_mode=2:adm_ref_display_height=1200", NULL },
        { "adm=adm_enhn_gain_limit=1", NULL },
        { "adm=adm_enhn_gain_limit=1.2:adm_dlm_weight=0.2:adm_min_val=0.5", NULL },
        { "adm=adm_skip_scale0=true:debug=true", NULL },
        { "adm=adm_skip_aim=true", NULL },
        { "adm=adm_noise_weight=0", NULL },
        { "adm=adm_noise_weight=1000:adm_norm_view_dist=5:adm_ref_display_height=2160", NULL },
    };
    const unsigned n_sets = sizeof(opt_sets) / sizeof(opt_sets[0]);
    /* odd and tiny sizes; 66x40 and 130x70 reach the unmirrored last DWT columns */
    static const unsigned sizes[][2] = { { 1, 1 },   { 3, 3 },    { 4, 7 },   { 9, 9 },
                                         { 17, 17 }, { 33, 21 },  { 66, 40 }, { 130, 70 },
                                         { 257, 145 }, { 1025, 3 }, { 320, 181 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    const unsigned n_sizes = env->quick ? 5 : sizeof(sizes) / sizeof(sizes[0]);
    for (unsigned s = 0; s < n_sizes; s++) {
        for (unsigned d = 0; d < 6; d++) {
            for (unsigned v = 0; v < 2; v++) {
                const CheckCase c = {
                    .w = sizes[s][0], .h = sizes[s][1], .bpc = depths[d], .frames = 5,
                    .subsample = v ? 3 : 1, .fmt = fmts[(s + d) % 3], .graph = !v,
                    .features = v && s % 2 ? opt_sets[(s + d) % n_sets] : deflt,
                    .source = (enum CheckSource)((s + d + v) % SRC_COUNT),
                };
                checktwin_case(env, &c);
            }
        }
    }
    /* every option set at two sizes and depths */
    for (unsigned o = 0; o < (env->quick ? 3u : n_sets); o++) {
        for (unsigned k = 0; k < 2; k++) {
            const CheckCase c = { .w = k ? 131 : 67, .h = k ? 75 : 35, .bpc = k ? 10 : 8,
                                  .frames = 4, .subsample = 1, .fmt = VMAF_PIX_FMT_YUV420P,
                                  .graph = k == 0, .features = opt_sets[o],
                                  .source = (enum CheckSource)((o + k) % SRC_COUNT) };
            checktwin_case(env, &c);
        }
    }
    /* large frames */
    static const unsigned big[][3] = { { 1920, 1080, 8 }, { 1921, 1081, 10 }, { 3840, 2160, 8 },
                                       { 4096, 2160, 12 } };
    for (unsigned i = 0; i < (env->quick ? 1u : 4u); i++) {
        const CheckCase c = { .w = big[i][0], .h = big[i][1], .bpc = big[i][2], .frames = 3,
                              .subsample = 1, .fmt = VMAF_PIX_FMT_YUV420P, .graph = !(i & 1),
                              .features = deflt, .source = (enum CheckSource)(i % SRC_COUNT) };
        checktwin_case(env, &c);
    }
    /* real content: every clip at its size with its own distortion, and resampled with the
     * synthetic distortions; the default model once (vif/motion run wherever they run) */
    static const enum CheckDistortion dists[] = { DIST_BLUR, DIST_NOISE, DIST_QUANT };
    static const unsigned resized[][2] = { { 3840, 2160 }, { 131, 75 }, { 1280, 720 } };
    for (unsigned i = 0; i < checktwin_n_clips; i++) {
        const CheckClip *clip = &checktwin_clips[i];
        const CheckCase own = { .w = clip->w, .h = clip->h, .bpc = clip->bpc,
                                .frames = env->quick ? 2 : 4, .subsample = 1, .fmt = clip->fmt,
                                .graph = true, .features = deflt, .clip = clip,
                                .distortion = DIST_CODEC,
                                .source = (enum CheckSource)(i % SRC_COUNT), .threads = i & 1 };
        checktwin_case(env, &own);
        if (env->quick && i > 1) continue;
        const unsigned r = i % 3;
        const CheckCase other = { .w = resized[r][0], .h = resized[r][1], .bpc = clip->bpc,
                                  .frames = r == 0 ? 2 : 3, .subsample = 1, .fmt = clip->fmt,
                                  .graph = i & 1, .features = i & 2 ? opt_sets[i % n_sets] : deflt,
                                  .clip = clip, .distortion = dists[i % 3],
                                  .source = (enum CheckSource)((i + 1) % SRC_COUNT) };
        checktwin_case(env, &other);
    }
    const CheckClip *jetty = checktwin_clip("jetty_1920x1080_420p");
    if (jetty) {
        const CheckCase c = { .w = jetty->w, .h = jetty->h, .bpc = 8, .frames = 4,
                              .subsample = 1, .fmt = jetty->fmt, .graph = true,
                              .model = "vmaf_v0.6.1", .clip = jetty, .distortion = DIST_CODEC,
                              .source = SRC_PINNED };
        checktwin_case(env, &c);
    }
    checktwin_shared_state(env, deflt, NULL);
    if (env->bench) {
        static const char *const bench_features[] = { "adm", NULL };
        const CheckCase c = { .w = 3840, .h = 2160, .bpc = 8, .frames = 60, .subsample = 1,
                              .fmt = VMAF_PIX_FMT_YUV420P, .graph = true,
                              .features = bench_features, .source = SRC_PINNED };
        checktwin_bench(env, &c);
    }
}
