/*
 * The through-the-API part of the side product tests (test_*_side.c): a ladder of RUNGS rungs
 * scoring one extractor with per-rung options against single contexts of the same pairs,
 * every score bit for bit (each context's whole CSV output, at 17 significant digits,
 * compared byte for byte; optionally named scores that must be there, compared as doubles),
 * and the number of side products the ladder's reference pictures made. The pictures are
 * 4:2:0 with chroma patterns that move from frame to frame (for extractors that read
 * chroma). Include after test_util.h.
 */
#ifndef VMAF_TESTS_SIDE_LADDER_H
#define VMAF_TESTS_SIDE_LADDER_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "output.h" /* vmaf_write_output_with_precision */
#include "picture.h"

enum { SIDE_RUNGS = 4, SIDE_FRAMES = 3 };

/* The options of rung k (NULL: the defaults). */
typedef VmafFeatureDictionary *(*SideRungOptions)(int k);

/* The n-th name of a score rung k must hold at every frame, written into name: false past
 * the last. */
typedef bool (*SideRungName)(int k, unsigned n, char *name, size_t size);

static VmafContext *side_context_new(const char *feature, SideRungOptions opts, int k,
                                     unsigned threads)
{
    VmafContext *v = NULL;
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE, .n_threads = threads };
    CHECK(!vmaf_init(&v, cfg), "init");
    CHECK(!vmaf_use_feature(v, feature, opts(k)), "use %s", feature);
    return v;
}

static void side_set(VmafPicture *pic, unsigned bpc, unsigned i, unsigned j, int32_t v)
{
    unsigned char *row = (unsigned char *)pic->data[0] + (size_t)i * (size_t)pic->stride[0];
    if (bpc == 8) {
        row[j] = (unsigned char)v;
    } else {
        const uint16_t s = (uint16_t)v;
        memcpy(row + 2 * (size_t)j, &s, sizeof(s));
    }
}

/* The luma of frame f: the reference (which < 0) or the distorted of rung which. */
static void side_frame(VmafPicture *pic, unsigned w, unsigned h, unsigned bpc, unsigned f,
                       int which)
{
    CHECK(!vmaf_picture_alloc(pic, VMAF_PIX_FMT_YUV420P, bpc, w, h), "alloc");
    const int32_t max = (int32_t)((1u << bpc) - 1);
    /* the reference: a banded ramp (frames 0, 2) or amplified (frame 1); the distorted a
     * pattern by rung and frame */
    const enum PairPattern pat = which < 0 ? (enum PairPattern)((f + 1) % PAIR_COUNT)
                                           : (enum PairPattern)((unsigned)(which + f) % PAIR_COUNT);
    rng_state = 77 + f * 1000 + (uint64_t)(which + 1) * 31 + bpc;
    const int32_t flat = (int32_t)(rng() % (uint32_t)(max + 1));
    for (unsigned i = 0; i < h; i++)
        for (unsigned j = 0; j < w; j++) {
            int32_t r, d;
            test_pattern_pair(pat, max, flat, i, j, &r, &d);
            if (which < 0 && f != 1) { /* a banded ramp (cambi's matter), a little noise */
                const unsigned levels = 20 + 12 * f;
                r = (int32_t)((i + 2 * j) * levels / (h + 2 * w) * ((unsigned)max / levels)) +
                    (int32_t)(rng() % 4 == 0);
            }
            side_set(pic, bpc, i, j, which < 0 ? r : d);
        }
    for (unsigned p = 1; p < 3; p++) /* chroma: ramps that move with the frame and rung */
        for (unsigned i = 0; i < pic->h[p]; i++)
            for (unsigned j = 0; j < pic->w[p]; j++) {
                const unsigned step = (i * (2 + p) + j * (6 - p) + 7 * f * p +
                                       11 * (unsigned)(which + 1)) % 64;
                const int32_t v = (int32_t)(step * (unsigned)max / 63);
                unsigned char *row = (unsigned char *)pic->data[p] + (size_t)i * pic->stride[p];
                if (bpc == 8) {
                    row[j] = (unsigned char)v;
                } else {
                    const uint16_t s = (uint16_t)v;
                    memcpy(row + 2 * (size_t)j, &s, sizeof(s));
                }
            }
}

static char *side_csv(VmafContext *v, const char *tag, int k, size_t *len)
{
    char path[128];
    snprintf(path, sizeof(path), "/tmp/side_ladder_%d_%s_%d.csv", (int)getpid(), tag, k);
    CHECK(!vmaf_write_output_with_precision(v, path, VMAF_OUTPUT_FORMAT_CSV, 17), "write %s",
          path);
    char *text = test_slurp(path, len);
    remove(path);
    return text;
}

/* The ladder against single runs; `made` side products expected per reference picture
 * (negative: at least one); names (NULL: none) the scores every rung must hold. */
static void side_ladder_run(const char *feature, SideRungOptions opts, SideRungName names,
                            unsigned w, unsigned h, unsigned bpc, unsigned threads, int made)
{
    VmafContext *rung[SIDE_RUNGS], *alone[SIDE_RUNGS];
    for (int k = 0; k < SIDE_RUNGS; k++) {
        rung[k] = side_context_new(feature, opts, k, threads);
        alone[k] = side_context_new(feature, opts, k, threads);
    }
    VmafLadder *ladder = NULL;
    CHECK(!vmaf_ladder_init(&ladder, rung, SIDE_RUNGS), "ladder");
    VmafPicture kept[SIDE_FRAMES];
    for (unsigned f = 0; f < SIDE_FRAMES; f++) {
        VmafPicture ref, dis[SIDE_RUNGS];
        side_frame(&ref, w, h, bpc, f, -1);
        vmaf_picture_ref(&kept[f], &ref);
        for (int k = 0; k < SIDE_RUNGS; k++) {
            VmafPicture r1, d1;
            side_frame(&dis[k], w, h, bpc, f, k);
            side_frame(&r1, w, h, bpc, f, -1);
            side_frame(&d1, w, h, bpc, f, k);
            CHECK(!read_pictures_or_release(alone[k], &r1, &d1, f), "alone %d", k);
        }
        int status[SIDE_RUNGS];
        CHECK(!vmaf_ladder_read_pictures(ladder, &ref, dis, status, f), "ladder read %u", f);
    }
    CHECK(!vmaf_ladder_read_pictures(ladder, NULL, NULL, NULL, 0), "ladder flush");
    for (int k = 0; k < SIDE_RUNGS; k++)
        CHECK(!vmaf_read_pictures(alone[k], NULL, NULL, 0), "flush %d", k);
    for (unsigned f = 0; f < SIDE_FRAMES; f++) {
        const unsigned n = vmaf_picture_side_made(&kept[f]);
        CHECK(made < 0 ? n > 0 : n == (unsigned)made,
              "%s %ux%u %u-bit threads %u frame %u: %u side products made, %d expected",
              feature, w, h, bpc, threads, f, n, made);
        vmaf_picture_unref(&kept[f]);
    }
    char name[96];
    for (int k = 0; names && k < SIDE_RUNGS; k++)
        for (unsigned n = 0; names(k, n, name, sizeof(name)); n++)
            for (unsigned f = 0; f < SIDE_FRAMES; f++) {
                double a = -7, b = -8;
                const int ea = vmaf_feature_score_at_index(rung[k], name, &a, f);
                const int eb = vmaf_feature_score_at_index(alone[k], name, &b, f);
                CHECK(!ea && !eb && test_bits_of_double(a) == test_bits_of_double(b),
                      "%s %ux%u %u-bit threads %u rung %d %s frame %u: %d %.17g vs %d %.17g",
                      feature, w, h, bpc, threads, k, name, f, ea, a, eb, b);
            }
    for (int k = 0; k < SIDE_RUNGS; k++) {
        size_t la = 0, lb = 0;
        char *a = side_csv(rung[k], "rung", k, &la);
        char *b = side_csv(alone[k], "alone", k, &lb);
        CHECK(a && b && la == lb && !memcmp(a, b, la) && la > 0,
              "%s %ux%u %u-bit threads %u rung %d: the ladder's output differs from the "
              "single run's (%zu and %zu bytes)", feature, w, h, bpc, threads, k, la, lb);
        free(a);
        free(b);
    }
    vmaf_ladder_close(ladder);
    for (int k = 0; k < SIDE_RUNGS; k++) {
        vmaf_close(rung[k]);
        vmaf_close(alone[k]);
    }
}

/* The same without named scores. */
static inline void side_ladder_case(const char *feature, SideRungOptions opts, unsigned w,
                                    unsigned h, unsigned bpc, unsigned threads, int made)
{
    side_ladder_run(feature, opts, NULL, w, h, bpc, threads, made);
}

#endif /* VMAF_TESTS_SIDE_LADDER_H */
