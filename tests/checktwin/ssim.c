/* checktwin family: the float_ssim and float_ms_ssim twins (every option, float_ssim's scale
 * 0..10 included), from 3x3 / the smallest MS-SSIM size (176x176) to 4K. */
#include <stddef.h>

#include "checktwin.h"

void checktwin_ssim(CheckEnv *env)
{
    static const char *const base[] = { "float_ssim", "float_ms_ssim", NULL };
    static const char *const opts[][3] = {
        { "float_ssim=enable_lcs=true:scale=1", "float_ms_ssim=enable_lcs=true", NULL },
        { "float_ssim=enable_lcs=true:enable_db=true:clip_db=true:scale=2",
          "float_ms_ssim=enable_lcs=true:enable_db=true:clip_db=true", NULL },
        { "float_ssim=scale=3:enable_db=true", "float_ms_ssim=enable_db=true", NULL },
        { "float_ssim=scale=4:enable_lcs=true", NULL },
        { "float_ssim=scale=5:enable_lcs=true", "float_ms_ssim", NULL },
        { "float_ssim=scale=7", NULL },
        { "float_ssim=scale=10:enable_lcs=true", NULL },
    };
    enum { N_OPTS = sizeof(opts) / sizeof(opts[0]) };
    /* float_ssim only below 176: MS-SSIM refuses those sizes */
    static const char *const small_base[] = { "float_ssim=enable_lcs=true", NULL };
    static const char *const small_opts[][2] = {
        { "float_ssim=scale=1:enable_lcs=true", NULL }, { "float_ssim=scale=2", NULL },
        { "float_ssim=scale=3:enable_lcs=true", NULL }, { "float_ssim=scale=10", NULL },
    };
    static const unsigned small[][2] = { { 3, 3 }, { 4, 7 }, { 10, 10 }, { 11, 11 }, { 12, 11 },
                                         { 43, 43 }, { 75, 44 }, { 97, 53 } };
    static const unsigned sizes[][2] = { { 176, 176 }, { 177, 183 }, { 257, 145 }, { 320, 181 },
                                         { 353, 289 }, { 1025, 177 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    const unsigned n_small = env->quick ? 4 : sizeof(small) / sizeof(small[0]);
    for (unsigned s = 0; s < n_small; s++)
        for (unsigned d = 0; d < 6; d++)
            for (unsigned v = 0; v < 2; v++) {
                const CheckCase c = {
                    .w = small[s][0], .h = small[s][1], .bpc = depths[d], .frames = 5,
                    .subsample = v ? 2 : 1, .fmt = fmts[(s + d) % 3], .graph = v == 0,
                    .features = v ? small_opts[(s + d) % 4] : small_base,
                    .source = (enum CheckSource)((s + d + v) % SRC_COUNT),
                };
                checktwin_case(env, &c);
            }
    const unsigned n_sizes = env->quick ? 2 : sizeof(sizes) / sizeof(sizes[0]);
    for (unsigned s = 0; s < n_sizes; s++)
        for (unsigned d = 0; d < 6; d++)
            for (unsigned f = 0; f < 3; f++)
                for (unsigned v = 0; v < 3; v++) {
                    const CheckCase c = {
                        .w = sizes[s][0], .h = sizes[s][1], .bpc = depths[d], .frames = 5,
                        .subsample = v == 1 ? 3 : 1, .fmt = fmts[f], .graph = v != 2,
                        .features = v ? opts[(s + d + f + v) % N_OPTS] : base,
                        .source = (enum CheckSource)((s + d + f + v) % SRC_COUNT),
                    };
                    checktwin_case(env, &c);
                }
    /* large frames: float_ssim's auto scale is 4 at 1080p, 8 at 4K */
    static const unsigned big[][3] = { { 1920, 1080, 8 }, { 1921, 1081, 10 }, { 3840, 2160, 8 },
                                       { 4096, 2160, 16 } };
    for (unsigned i = 0; i < (env->quick ? 1u : 4u); i++) {
        const CheckCase c = { .w = big[i][0], .h = big[i][1], .bpc = big[i][2], .frames = 3,
                              .subsample = 1, .fmt = VMAF_PIX_FMT_YUV420P, .graph = i & 1,
                              .features = i == 1 ? opts[0] : base,
                              .source = (enum CheckSource)(i % SRC_COUNT) };
        checktwin_case(env, &c);
    }
    /* real content: every clip at its own size with each distortion; a resampled size too */
    static const enum CheckDistortion dists[] = { DIST_CODEC, DIST_BLUR, DIST_NOISE, DIST_QUANT };
    for (unsigned i = 0; i < checktwin_n_clips; i++) {
        const CheckClip *clip = &checktwin_clips[i];
        for (unsigned k = 0; k < (env->quick ? 1u : 4u); k++) {
            const CheckCase c = { .w = k == 3 ? 333 : clip->w, .h = k == 3 ? 187 : clip->h,
                                  .bpc = clip->bpc, .frames = env->quick ? 3 : 5,
                                  .subsample = 1, .fmt = clip->fmt, .graph = true,
                                  .features = k ? opts[(i + k) % 3] : base,
                                  .clip = clip, .distortion = dists[k],
                                  .source = (enum CheckSource)((i + k) % SRC_COUNT),
                                  .threads = i & 1 };
            checktwin_case(env, &c);
        }
    }
    checktwin_shared_state(env, small_base, NULL); /* its sizes are below MS-SSIM's */
    if (env->bench) {
        const CheckCase c = { .w = 3840, .h = 2160, .bpc = 8, .frames = 60, .subsample = 1,
                              .fmt = VMAF_PIX_FMT_YUV420P, .graph = true, .features = base,
                              .source = SRC_PINNED };
        checktwin_bench(env, &c);
        static const char *const one[] = { "float_ssim=scale=1", NULL };
        const CheckCase s = { .w = 3840, .h = 2160, .bpc = 8, .frames = 60, .subsample = 1,
                              .fmt = VMAF_PIX_FMT_YUV420P, .graph = true, .features = one,
                              .source = SRC_PINNED };
        checktwin_bench(env, &s);
    }
}
