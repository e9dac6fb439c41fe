/*
 * The ladder API (libvmaf.h) as a client like FFmpeg's filter would use it: several
 * contexts, each set up as for one pair, fed together through vmaf_ladder_read_pictures().
 * Each rung's output must be the file its single-pair run writes (fps aside), at every
 * threading mode, with the reference-only extractors shared; a rung that leaves early keeps
 * the single run's scores up to there; the ladder refuses misuse.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "test_util.h"

enum { W = 176, H = 104, FRAMES = 9, RUNGS = 3 };

static const char *dir;

/* Frame i of the reference (k < 0) or of rendition k: a moving textured wave, the
 * renditions with noise of growing strength (rendition 0 equal to the reference). */
static int make_picture(VmafPicture *p, int k, unsigned i)
{
    int err = vmaf_picture_alloc(p, VMAF_PIX_FMT_YUV420P, 8, W, H);
    if (err) return err;
    uint64_t state = 0x9e3779b97f4a7c15ull * (i + 1) + (uint64_t)(k + 2) * 0x2545f4914f6cdd1dull;
    for (unsigned c = 0; c < 3; c++) {
        for (unsigned y = 0; y < p->h[c]; y++) {
            uint8_t *row = (uint8_t *)p->data[c] + y * p->stride[c];
            for (unsigned x = 0; x < p->w[c]; x++) {
                int v = 128 + (int)(60 * sin(0.21 * x + 0.13 * y + 0.4 * i)) +
                        (int)((x * 7 + y * 13 + c * 31) % 23);
                if (k > 0) {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    v += (int)(state % (unsigned)(8 * k + 1)) - 4 * k;
                }
                row[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
    }
    return 0;
}

static VmafModel *model;

static VmafContext *new_context(unsigned threads)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = threads };
    if (vmaf_init(&v, cfg)) return NULL;
    int err = vmaf_use_features_from_model(v, model);
    if (!err) err = vmaf_use_feature(v, "psnr", NULL);
    if (!err) err = vmaf_use_feature(v, "float_motion", NULL);
    VmafFeatureDictionary *opts = NULL;
    if (!err) err = vmaf_feature_dictionary_set(&opts, "motion_force_zero", "false");
    if (!err) err = vmaf_use_feature(v, "motion_v2", opts);
    if (err) {
        vmaf_close(v);
        return NULL;
    }
    return v;
}

/* The JSON output without its fps line, after predicting the model's scores. */
static char *finish(VmafContext *v, const char *name, unsigned frames)
{
    double score;
    if (vmaf_score_pooled(v, model, VMAF_POOL_METHOD_MEAN, &score, 0, frames - 1)) return NULL;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.json", dir, name);
    if (vmaf_write_output(v, path, VMAF_OUTPUT_FORMAT_JSON)) return NULL;
    size_t len;
    char *text = test_slurp(path, &len);
    unlink(path);
    if (!text) return NULL;
    char *fps = strstr(text, "\"fps\"");
    if (fps) {
        char *eol = strchr(fps, '\n');
        if (eol) memmove(fps, eol + 1, strlen(eol + 1) + 1);
    }
    return text;
}

static char *single_run(int k, unsigned threads, unsigned frames)
{
    VmafContext *v = new_context(threads);
    if (!v) return NULL;
    int err = 0;
    for (unsigned i = 0; !err && i < frames; i++) {
        VmafPicture r, d;
        err = make_picture(&r, -1, i);
        if (!err) err = make_picture(&d, k, i);
        if (!err) err = read_pictures_or_release(v, &r, &d, i);
    }
    if (!err) err = vmaf_read_pictures(v, NULL, NULL, 0);
    char name[64];
    snprintf(name, sizeof(name), "single%d_t%u", k, threads);
    char *out = err ? NULL : finish(v, name, frames);
    vmaf_close(v);
    return out;
}

/* The ladder of RUNGS renditions; rung `leaver` (or none: -1) has no picture from frame
 * `leave_at` on (its distorted ends there). */
static void ladder_run(unsigned threads, int leaver, unsigned leave_at, char **out)
{
    VmafContext *rung[RUNGS];
    for (unsigned k = 0; k < RUNGS; k++) {
        rung[k] = new_context(threads);
        CHECK(rung[k], "context %u", k);
        if (!rung[k]) return;
    }
    VmafLadder *ladder;
    CHECK(!vmaf_ladder_init(&ladder, rung, RUNGS), "ladder init");
    int err = 0;
    for (unsigned i = 0; !err && i < FRAMES; i++) {
        VmafPicture r, d[RUNGS];
        err = make_picture(&r, -1, i);
        for (unsigned k = 0; k < RUNGS; k++) {
            memset(&d[k], 0, sizeof(d[k]));
            if ((int)k == leaver && i >= leave_at) continue;
            if (!err) err = make_picture(&d[k], (int)k, i);
        }
        int status[RUNGS];
        if (!err) err = vmaf_ladder_read_pictures(ladder, &r, d, status, i);
        CHECK(!err, "ladder frame %u: %d", i, err);
        for (unsigned k = 0; k < RUNGS; k++)
            CHECK(status[k] == ((int)k == leaver && i > leave_at ? -ENOENT : 0),
                  "status of rung %u at frame %u: %d", k, i, status[k]);
    }
    CHECK(vmaf_ladder_rungs_left(ladder) == (leaver >= 0 ? RUNGS - 1 : RUNGS), "rungs left");
    VmafPicture r, d[RUNGS];
    CHECK(vmaf_read_pictures(rung[0], NULL, NULL, 0) == -EINVAL, "a rung reads through the ladder");
    int status[RUNGS];
    CHECK(!vmaf_ladder_read_pictures(ladder, NULL, NULL, status, 0), "ladder flush");
    CHECK(!make_picture(&r, -1, 0), "picture");
    memset(d, 0, sizeof(d));
    CHECK(vmaf_ladder_read_pictures(ladder, &r, d, NULL, FRAMES) == -EINVAL, "after the flush");
    CHECK(!vmaf_ladder_close(ladder), "ladder close");
    for (unsigned k = 0; k < RUNGS; k++) {
        char name[64];
        snprintf(name, sizeof(name), "rung%u_t%u", k, threads);
        out[k] = finish(rung[k], name, (int)k == leaver ? leave_at : FRAMES);
        vmaf_close(rung[k]);
    }
}

static void test_equal_to_single_runs(unsigned threads)
{
    char *single[RUNGS], *ladder[RUNGS];
    for (unsigned k = 0; k < RUNGS; k++) single[k] = single_run((int)k, threads, FRAMES);
    ladder_run(threads, -1, 0, ladder);
    for (unsigned k = 0; k < RUNGS; k++) {
        CHECK(single[k] && ladder[k], "outputs of rung %u, threads %u", k, threads);
        CHECK(single[k] && ladder[k] && !strcmp(single[k], ladder[k]),
              "rung %u at threads %u: the ladder's output differs from the single run's", k,
              threads);
        CHECK(single[k] && strstr(single[k], "\"motion2\"") &&
                  strstr(single[k], "\"integer_motion2\"") &&
                  strstr(single[k], "\"VMAF_integer_feature_motion2_v2_score\""),
              "the shared extractors' scores are there");
    }
    /* the renditions differ (else equal outputs would prove little) */
    CHECK(single[1] && single[2] && strcmp(single[1], single[2]), "renditions differ");
    for (unsigned k = 0; k < RUNGS; k++) free(ladder[k]);
    /* rung 1's distorted ends after 5 frames: its output is its 5-frame single run's */
    char *short1 = single_run(1, threads, 5);
    ladder_run(threads, 1, 5, ladder);
    for (unsigned k = 0; k < RUNGS; k++) {
        const char *want = k == 1 ? short1 : single[k];
        CHECK(want && ladder[k] && !strcmp(want, ladder[k]),
              "rung %u at threads %u, rung 1 ending at frame 5: differs from the single run", k,
              threads);
    }
    CHECK(short1 && single[1] && strcmp(short1, single[1]), "the shorter run differs");
    free(short1);
    for (unsigned k = 0; k < RUNGS; k++) {
        free(single[k]);
        free(ladder[k]);
    }
}

static void test_misuse(void)
{
    VmafContext *a = new_context(0), *b = new_context(0);
    VmafLadder *l;
    VmafContext *twice[2] = { a, a }, *pair[2] = { a, b };
    CHECK(vmaf_ladder_init(&l, twice, 2) == -EINVAL, "one context twice");
    CHECK(vmaf_ladder_init(&l, pair, 0) == -EINVAL, "no rung");
    CHECK(!vmaf_ladder_init(&l, pair, 2), "init");
    VmafLadder *l2;
    CHECK(vmaf_ladder_init(&l2, pair, 1) == -EINVAL, "a rung of two ladders");
    /* a rung closed before the ladder leaves it; the other rung goes on */
    vmaf_close(a);
    CHECK(vmaf_ladder_rungs_left(l) == 1, "closed rung left the ladder");
    VmafPicture r, d[2];
    CHECK(!make_picture(&r, -1, 0) && !make_picture(&d[0], 0, 0) && !make_picture(&d[1], 1, 0),
          "pictures");
    int status[2];
    CHECK(!vmaf_ladder_read_pictures(l, &r, d, status, 0), "read with a closed rung");
    CHECK(status[0] == -ENOENT && status[1] == 0, "statuses %d %d", status[0], status[1]);
    CHECK(!make_picture(&r, -1, 1), "picture");
    CHECK(vmaf_ladder_read_pictures(l, &r, NULL, NULL, 1) == -EINVAL, "ref without dist");
    CHECK(!vmaf_ladder_close(l), "close");
    vmaf_close(b);
}

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : ".";
    VmafModelConfig mcfg = { .name = "vmaf" };
    if (vmaf_model_load(&model, &mcfg, "vmaf_v0.6.1")) {
        printf("FAIL: built-in model vmaf_v0.6.1 not found\n");
        return 1;
    }
    test_misuse();
    for (unsigned t = 0; t <= 2; t++) test_equal_to_single_runs(t);
    vmaf_model_destroy(model);
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
