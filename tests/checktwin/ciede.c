/* checktwin family: the ciede twin (every format, 8..16 bits, odd and the smallest sizes,
 * graph on/off, n_subsample, synthetic sources and real content, 4K and 8K real frames for the
 * frame sum; with other twins beside it). */
#include <stddef.h>

#include "checktwin.h"

void checktwin_ciede(CheckEnv *env)
{
    static const char *const alone[] = { "ciede", NULL };
    static const char *const mixed[] = { "ciede", "psnr", "float_psnr", NULL };
    static const unsigned sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 7 }, { 17, 17 },
                                         { 33, 21 }, { 65, 1 }, { 257, 145 }, { 1025, 3 },
                                         { 320, 181 } };
    static const unsigned depths[] = { 8, 9, 10, 12, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    const unsigned n_sizes = env->quick ? 4 : sizeof(sizes) / sizeof(sizes[0]);
    for (unsigned s = 0; s < n_sizes; s++)
        for (unsigned d = 0; d < 5; d++)
            for (unsigned f = 0; f < 3; f++)
                for (unsigned v = 0; v < 2; v++) {
                    const CheckCase c = {
                        .w = sizes[s][0], .h = sizes[s][1], .bpc = depths[d], .frames = 5,
                        .subsample = v ? 2 : 1, .fmt = fmts[f], .graph = v == 0,
                        .features = (s + d + f) % 3 ? alone : mixed,
                        .source = (enum CheckSource)((s + d + f + v) % SRC_COUNT),
                    };
                    checktwin_case(env, &c);
                }
    /* large frames */
    static const unsigned big[][3] = { { 1920, 1080, 8 }, { 1921, 1081, 10 }, { 3840, 2160, 8 },
                                       { 4096, 2160, 16 } };
    for (unsigned i = 0; i < (env->quick ? 1u : 4u); i++) {
        const CheckCase c = { .w = big[i][0], .h = big[i][1], .bpc = big[i][2], .frames = 3,
                              .subsample = 1,
                              .fmt = i == 1 ? VMAF_PIX_FMT_YUV422P : VMAF_PIX_FMT_YUV420P,
                              .graph = i & 1, .features = alone,
                              .source = (enum CheckSource)(i % SRC_COUNT) };
        checktwin_case(env, &c);
    }
    /* the frame sum (cuda/seq_sum.cuh) on large real frames: 4K and 8K resampled clips, with
     * the codec's distortion, quantisation (many zero and repeated differences), blur and
     * noise (few equal pixels), 8 and 10 bits; a 1-ulp error of the sum shows in the score */
    static const struct {
        const char *clip;
        unsigned w, h;
        enum CheckDistortion distortion;
    } sums[] = { { "jetty_1920x1080_420p", 3840, 2160, DIST_CODEC },
                 { "jetty_1920x1080_420p", 3840, 2160, DIST_QUANT },
                 { "forest_576x324_420p10", 3840, 2160, DIST_NOISE },
                 { "jetty_1920x1080_420p", 3841, 2161, DIST_BLUR },
                 { "jetty_1920x1080_420p", 7680, 4320, DIST_CODEC } };
    for (unsigned i = 0; i < (env->quick ? 1u : sizeof(sums) / sizeof(sums[0])); i++) {
        const CheckClip *clip = checktwin_clip(sums[i].clip);
        if (!clip) continue;
        const CheckCase c = { .w = sums[i].w, .h = sums[i].h, .bpc = clip->bpc,
                              .frames = env->quick ? 1 : 2, .subsample = 1, .fmt = clip->fmt,
                              .graph = i != 3, .features = alone, .clip = clip,
                              .distortion = sums[i].distortion,
                              .source = (enum CheckSource)(i % SRC_COUNT) };
        checktwin_case(env, &c);
    }
    /* real content: every clip at its own size with each distortion */
    static const enum CheckDistortion dists[] = { DIST_CODEC, DIST_BLUR, DIST_NOISE, DIST_QUANT };
    for (unsigned i = 0; i < checktwin_n_clips; i++) {
        const CheckClip *clip = &checktwin_clips[i];
        for (unsigned k = 0; k < (env->quick ? 1u : 4u); k++) {
            const CheckCase c = { .w = clip->w, .h = clip->h, .bpc = clip->bpc,
                                  .frames = env->quick ? 2 : 4, .subsample = 1, .fmt = clip->fmt,
                                  .graph = true, .features = k & 1 ? mixed : alone, .clip = clip,
                                  .distortion = dists[k],
                                  .source = (enum CheckSource)((i + k) % SRC_COUNT),
                                  .threads = i & 1 };
            checktwin_case(env, &c);
        }
    }
    /* the rate: real 1080p frames with the codec's distortion (few equal pixels, whose
     * difference is skipped), 8 frames: small enough for a CPU OpenCL device computing its
     * doubles in software */
    const CheckClip *jetty = checktwin_clip("jetty_1920x1080_420p");
    if (env->bench && jetty) {
        const CheckCase c = { .w = jetty->w, .h = jetty->h, .bpc = jetty->bpc, .frames = 8,
                              .subsample = 1, .fmt = jetty->fmt, .graph = true,
                              .features = alone, .clip = jetty, .distortion = DIST_CODEC,
                              .source = SRC_PINNED };
        checktwin_bench(env, &c);
    }
}
