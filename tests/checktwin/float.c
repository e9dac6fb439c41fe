/* checktwin family: the float extractors' twins (float_vif, float_adm, float_motion,
 * float_psnr, float_ansnr, float_moment) and the vmaf_float_* models. */
#include <stddef.h>

#include "checktwin.h"

void checktwin_float(CheckEnv *env)
{
    static const char *const base[] = { "float_psnr", "float_ansnr", "float_moment",
                                        "float_motion", "float_vif=debug=true",
                                        "float_adm=debug=true", NULL };
    static const char *const vif_adm_opts[][3] = {
        { "float_vif=vif_kernelscale=0.5:vif_enhn_gain_limit=1",
          "float_adm=adm_enhn_gain_limit=1:adm_csf_mode=1", NULL },
        { "float_vif=vif_kernelscale=4:debug=true", "float_adm=adm_bypass_cm=1:adm_min_val=0.3", NULL },
        { "float_vif=vif_skip_scale0=true:vif_sigma_nsq=0.5:debug=true",
          "float_adm=adm_skip_scale0=true:adm_csf_mode=2:adm_adm3_apply_hm=true:debug=true", NULL },
        { "float_vif=vif_prescale=0.5:vif_prescale_method=bilinear",
          "float_adm=adm_norm_view_dist=1.5:adm_noise_weight=0.5:adm_f1s1=0.7", NULL },
        { "float_vif=vif_prescale=1.5:vif_prescale_method=bicubic:vif_scale1_min_val=0.5",
          "float_adm=adm_skip_aim_scale=2:adm_dlm_weight=0.2:adm_f2s3=3", NULL },
        { "float_vif=vif_prescale=0.7:vif_prescale_method=lanczos4", NULL },
    };
    enum { N_VA = sizeof(vif_adm_opts) / sizeof(vif_adm_opts[0]) };
    static const char *const motion_opts[][3] = {
        { "float_motion=motion_filter_size=3:motion_add_uv=true", "float_psnr", NULL },
        { "float_motion=motion_add_scale1=true:motion_fps_weight=2", "float_moment", NULL },
        { "float_motion=motion_add_uv=true:motion_add_scale1=true:motion_max_val=3",
          "float_ansnr", NULL },
        { "float_motion=motion_force_zero=true", "float_psnr", NULL },
        { "float_motion=motion_filter_size=1:motion_blend_factor=0.5:motion_blend_offset=2",
          NULL },
    };
    enum { N_OPTS = sizeof(motion_opts) / sizeof(motion_opts[0]) };
    static const unsigned sizes[][2] = { { 3, 3 }, { 4, 7 }, { 17, 17 }, { 33, 21 }, { 65, 17 },
                                         { 257, 145 }, { 1025, 3 }, { 320, 181 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    const unsigned n_sizes = env->quick ? 4 : sizeof(sizes) / sizeof(sizes[0]);
    for (unsigned s = 0; s < n_sizes; s++)
        for (unsigned d = 0; d < 6; d++)
            for (unsigned f = 0; f < 3; f++)
                for (unsigned v = 0; v < 4; v++) {
                    const char *const *features = v == 2   ? motion_opts[(s + d + f) % N_OPTS]
                                                  : v == 3 ? vif_adm_opts[(s + d + f) % N_VA]
                                                           : base;
                    const CheckCase c = {
                        .w = sizes[s][0], .h = sizes[s][1], .bpc = depths[d], .frames = 7,
                        .subsample = (v & 1) ? 3 : 1, .fmt = fmts[f], .graph = v != 2,
                        .features = features,
                        .source = (enum CheckSource)((s + d + f + v) % SRC_COUNT),
                    };
                    checktwin_case(env, &c);
                }
    /* large frames; the 16-bit 4K one takes the serial finish of the double sums */
    static const unsigned big[][3] = { { 1920, 1080, 8 }, { 1921, 1081, 10 }, { 3840, 2160, 8 },
                                       { 4096, 2160, 16 } };
    for (unsigned i = 0; i < (env->quick ? 1u : 4u); i++) {
        const CheckCase c = { .w = big[i][0], .h = big[i][1], .bpc = big[i][2], .frames = 4,
                              .subsample = 1, .fmt = VMAF_PIX_FMT_YUV420P, .graph = i & 1,
                              .features = i == 1 ? motion_opts[2] : base,
                              .source = (enum CheckSource)(i % SRC_COUNT) };
        checktwin_case(env, &c);
    }
    /* real content: every clip at its own size with each distortion; resampled sizes too */
    static const enum CheckDistortion dists[] = { DIST_CODEC, DIST_BLUR, DIST_NOISE, DIST_QUANT };
    for (unsigned i = 0; i < checktwin_n_clips; i++) {
        const CheckClip *clip = &checktwin_clips[i];
        for (unsigned k = 0; k < (env->quick ? 1u : 4u); k++) {
            const CheckCase c = { .w = k == 3 ? 333 : clip->w, .h = k == 3 ? 187 : clip->h,
                                  .bpc = clip->bpc, .frames = env->quick ? 3 : 5,
                                  .subsample = 1, .fmt = clip->fmt, .graph = true,
                                  .features = k == 2   ? motion_opts[i % N_OPTS]
                                              : k == 1 ? vif_adm_opts[i % N_VA]
                                                       : base,
                                  .clip = clip, .distortion = dists[k],
                                  .source = (enum CheckSource)((i + k) % SRC_COUNT),
                                  .threads = i & 1 };
            checktwin_case(env, &c);
        }
    }
    /* adm_p_norm != 3: every masked and denominator term through vmaf_xpowf on the device
     * (3.00000001 rounds to 3.0f but is not the x * x * x case); a gain limit that is no float
     * (1.1: the enhancement's double steps where doubles are software, float_adm.h) */
    static const char *const pnorm_opts[][2] = {
        { "float_adm=adm_p_norm=1:debug=true", NULL },
        { "float_adm=adm_p_norm=1.5:adm_skip_scale0=true", NULL },
        { "float_adm=adm_p_norm=2:debug=true", NULL },
        { "float_adm=adm_p_norm=2.5:adm_bypass_cm=1:debug=true", NULL },
        { "float_adm=adm_p_norm=4:adm_noise_weight=0.5", NULL },
        { "float_adm=adm_p_norm=20:adm_csf_mode=2:debug=true", NULL },
        { "float_adm=adm_p_norm=3.00000001:debug=true", NULL },
        { "float_adm=adm_enhn_gain_limit=1.1:adm_p_norm=2:debug=true", NULL },
    };
    enum { N_PNORM = sizeof(pnorm_opts) / sizeof(pnorm_opts[0]) };
    for (unsigned p = 0; p < N_PNORM; p++) {
        for (unsigned k = 0; k < (env->quick ? 1u : 3u); k++) {
            const CheckClip *clip = k == 1 ? &checktwin_clips[p % checktwin_n_clips] : NULL;
            const unsigned *size = sizes[(p + 2 * k) % (sizeof(sizes) / sizeof(sizes[0]))];
            CheckCase c = { .w = clip ? clip->w : size[0], .h = clip ? clip->h : size[1],
                            .bpc = clip ? clip->bpc : depths[(p + k) % 6], .frames = 4,
                            .subsample = k == 2 ? 2 : 1, .fmt = clip ? clip->fmt : fmts[p % 3],
                            .graph = (p + k) & 1, .features = pnorm_opts[p], .clip = clip,
                            .distortion = DIST_CODEC,
                            .source = (enum CheckSource)((p + k) % SRC_COUNT) };
            if (k == 2 && p % 3 == 0) { /* and a full-HD frame now and then */
                c.w = 1920;
                c.h = 1080;
            }
            checktwin_case(env, &c);
        }
    }
    /* the models: every feature on the GPU, pictures from every source */
    static const char *const models[] = { "vmaf_float_v0.6.1", "vmaf_float_v0.6.1neg",
                                          "vmaf_float_b_v0.6.3", "vmaf_float_4k_v0.6.1" };
    for (unsigned m = 0; m < (env->quick ? 1u : 4u); m++) {
        const CheckClip *clip = &checktwin_clips[m % checktwin_n_clips];
        const CheckCase c = { .w = clip->w, .h = clip->h, .bpc = clip->bpc, .frames = 4,
                              .subsample = m == 1 ? 3 : 1, .fmt = clip->fmt, .graph = m != 2,
                              .model = models[m], .clip = clip, .distortion = DIST_CODEC,
                              .source = (enum CheckSource)(m % SRC_COUNT) };
        checktwin_case(env, &c);
    }
    if (!env->quick) { /* a model at 4K, 10 bits, device pictures */
        const CheckCase c = { .w = 3840, .h = 2160, .bpc = 10, .frames = 3, .subsample = 1,
                              .fmt = VMAF_PIX_FMT_YUV420P, .graph = true,
                              .model = "vmaf_float_4k_v0.6.1", .source = SRC_DEVICE };
        checktwin_case(env, &c);
    }
    checktwin_shared_state(env, base, NULL);
    checktwin_shared_state(env, NULL, "vmaf_float_v0.6.1");
    if (env->bench) {
        const CheckCase c = { .w = 3840, .h = 2160, .bpc = 8, .frames = 60, .subsample = 1,
                              .fmt = VMAF_PIX_FMT_YUV420P, .graph = true,
                              .model = "vmaf_float_v0.6.1", .source = SRC_PINNED };
        checktwin_bench(env, &c);
        static const char *const stats[] = { "float_psnr", "float_ansnr", "float_moment", NULL };
        const CheckCase s = { .w = 3840, .h = 2160, .bpc = 8, .frames = 60, .subsample = 1,
                              .fmt = VMAF_PIX_FMT_YUV420P, .graph = true, .features = stats,
                              .source = SRC_PINNED };
        checktwin_bench(env, &s);
    }
}
