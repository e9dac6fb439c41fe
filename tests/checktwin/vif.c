/*
 * checktwin family: integer vif. Every option set (the gain limit changes the per-pixel
 * arithmetic, skip scale 0 the kernels' work, debug adds every num/den, which says which
 * scale differs when one does), sizes 3x3 .. 4096x2160 with tiny and odd ones (empty scales
 * give NaN scores), every depth 8..16, the three chroma formats, graph on/off, n_subsample 1
 * and 3, the three picture sources, thread counts, two geometries on one state, and real
 * content: every shared clip at its size and resampled, with its codec and with blur, noise
 * and quantisation.
 */
#include "checktwin.h"

/* Two instances in one context where their names differ (P options), debug outputs on. */
static const char *const opts_debug[] = { "vif=debug=true",
                                          "vif=vif_enhn_gain_limit=1.0:debug=true", NULL };
static const char *const opts_skip[] = { "vif=vif_skip_scale0=true:debug=true",
                                         "vif=vif_enhn_gain_limit=1.5", NULL };
static const char *const opts_plain[] = { "vif", NULL };
static const char *const *const option_sets[] = { opts_debug, opts_skip, opts_plain };
enum { N_SETS = 3 };

void checktwin_vif(CheckEnv *env)
{
    static const unsigned sizes[][2] = { { 3, 3 },    { 4, 7 },    { 17, 17 }, { 33, 21 },
                                         { 64, 64 },  { 257, 145 }, { 1025, 3 }, { 3, 1025 },
                                         { 320, 181 }, { 100, 16 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    const unsigned n_sizes = env->quick ? 4 : sizeof(sizes) / sizeof(sizes[0]);
    const unsigned n_depths = sizeof(depths) / sizeof(depths[0]);
    unsigned v = 0;
    for (unsigned s = 0; s < n_sizes; s++) {
        for (unsigned d = 0; d < n_depths; d++) {
            if (env->quick && d % 3) continue;
            for (unsigned o = 0; o < N_SETS; o++, v++) {
                const CheckCase c = {
                    .w = sizes[s][0], .h = sizes[s][1], .bpc = depths[d], .frames = 7,
                    .subsample = (v & 1) ? 3 : 1, .fmt = fmts[v % 3], .graph = !(v & 2),
                    .features = option_sets[o],
                    .source = (enum CheckSource)((s + d + o) % SRC_COUNT),
                    .threads = (v / 4) % 3,
                };
                checktwin_case(env, &c);
            }
        }
    }
    /* large frames: several tiles at every scale, odd sizes, 4K */
    static const unsigned big[][3] = { { 1920, 1080, 8 }, { 1921, 1081, 10 }, { 3840, 2160, 8 },
                                       { 4096, 2160, 12 }, { 2001, 999, 16 } };
    for (unsigned i = 0; i < (env->quick ? 1u : 5u); i++) {
        const CheckCase c = { .w = big[i][0], .h = big[i][1], .bpc = big[i][2], .frames = 3,
                              .subsample = 1, .fmt = VMAF_PIX_FMT_YUV420P, .graph = i & 1,
                              .features = option_sets[i % N_SETS],
                              .source = (enum CheckSource)(i % SRC_COUNT), .threads = i & 1 };
        checktwin_case(env, &c);
    }
    /* real content: every clip at its own size (its codec), then resampled to other sizes
     * and depths with the synthetic distortions */
    static const unsigned resampled[][3] = { { 33, 19, 9 },   { 161, 97, 11 }, { 800, 450, 8 },
                                             { 70, 300, 14 }, { 513, 129, 16 }, { 1280, 720, 10 } };
    for (unsigned i = 0; i < checktwin_n_clips; i++) {
        const CheckClip *clip = &checktwin_clips[i];
        const CheckCase c = { .w = clip->w, .h = clip->h, .bpc = clip->bpc,
                              .frames = env->quick ? 3 : 6, .subsample = 1, .fmt = clip->fmt,
                              .graph = true, .features = option_sets[i % N_SETS], .clip = clip,
                              .distortion = DIST_CODEC,
                              .source = (enum CheckSource)(i % SRC_COUNT), .threads = i % 3 };
        checktwin_case(env, &c);
        if (env->quick) continue;
        for (unsigned d = DIST_BLUR; d <= DIST_QUANT; d++) {
            const unsigned *z = resampled[(i + d) % 6];
            const CheckCase r = { .w = z[0], .h = z[1], .bpc = z[2], .frames = 3,
                                  .subsample = 1, .fmt = clip->fmt, .graph = d & 1,
                                  .features = option_sets[(i + d) % N_SETS], .clip = clip,
                                  .distortion = (enum CheckDistortion)d,
                                  .source = (enum CheckSource)((i + d) % SRC_COUNT),
                                  .threads = d % 3 };
            checktwin_case(env, &r);
        }
    }
    checktwin_shared_state(env, opts_debug, NULL);
    if (env->bench) {
        const CheckCase c = { .w = 3840, .h = 2160, .bpc = 8, .frames = 60, .subsample = 1,
                              .fmt = VMAF_PIX_FMT_YUV420P, .graph = true,
                              .features = opts_plain, .source = SRC_PINNED };
        checktwin_bench(env, &c);
    }
}
