/* checktwin family: the ciede twin (every format, 8..16 bits, odd and the smallest sizes,
 * graph on/off, n_subsample, synthetic sources and real content; with other twins beside it). */
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
}
