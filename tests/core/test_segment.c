/*
 * Segments: the context each extractor declares, and that it is what the segment needs --
 * every extractor (and some option sets, n_subsample, threads) scored as segments with their
 * declared context and merged gives the single run's JSON output, byte for byte except fps;
 * with one frame of context fewer before, the first kept frame differs or is refused.
 * Then the refusals: missing, overlapping and mismatched parts, a bad segment, a short read;
 * the title fingerprint, and parts with one field tampered each refused.
 *
 * test_segment SCRATCH_DIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "output.h"
#include "test_util.h"

#define W 224 /* cambi needs a side of 216, float_ms_ssim 176x176 */
#define H 184
#define FRAMES 14

static const char *scratch;
static uint8_t clip[2][FRAMES][W * H * 3 / 2];

/* A moving, noisy pattern: motion and SSIM-like features see real differences. */
static void make_clip(void)
{
    /* uneven motion, so that motion2 = min(this, next) differs from this where it matters */
    static const unsigned step[FRAMES] = { 0, 2, 5, 1, 4, 6, 1, 3, 7, 2, 5, 1, 6, 3 };
    rng_state = 0x5e9e57u;
    unsigned shift = 0;
    for (unsigned f = 0; f < FRAMES; f++) {
        uint8_t *ref = clip[0][f], *dis = clip[1][f];
        shift += step[f];
        for (unsigned y = 0; y < H; y++)
            for (unsigned x = 0; x < W; x++)
                ref[y * W + x] = (uint8_t)(((x + shift) * 7 ^ (y * 5)) & 0xff);
        for (unsigned i = W * H; i < W * H * 3 / 2; i++) ref[i] = (uint8_t)(i * 13 + f * 3);
        for (unsigned i = 0; i < W * H * 3 / 2; i++) {
            const int v = ref[i] + (int)(rng() % 17) - 8;
            dis[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

static int picture(VmafPicture *pic, unsigned f, unsigned which)
{
    return test_i420_picture(pic, clip[which][f], W, H);
}

typedef struct Setup {
    const char *name;
    const char *feature[4]; /* "extractor" or "extractor=key=val:key=val" */
    unsigned before, after;  /* the context it must declare */
    unsigned threads, subsample;
    const char *model;       /* a built-in model version, or NULL */
} Setup;

static int use_feature(VmafContext *vmaf, const char *spec)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    char *opts = strchr(buf, '=');
    VmafFeatureDictionary *d = NULL;
    if (opts) {
        *opts++ = '\0';
        for (char *kv = strtok(opts, ":"); kv; kv = strtok(NULL, ":")) {
            char *eq = strchr(kv, '=');
            if (!eq) return -EINVAL;
            *eq = '\0';
            if (vmaf_feature_dictionary_set(&d, kv, eq + 1)) return -EINVAL;
        }
    }
    return vmaf_use_feature(vmaf, buf, d);
}

static int open_context(const Setup *s, VmafContext **vmaf, VmafModel **model)
{
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = s->threads,
                              .n_subsample = s->subsample };
    int err = vmaf_init(vmaf, cfg);
    *model = NULL;
    if (!err && s->model) {
        VmafModelConfig mc = { .name = "vmaf" };
        err = vmaf_model_load(model, &mc, s->model);
        if (!err) err = vmaf_use_features_from_model(*vmaf, *model);
    }
    for (unsigned i = 0; !err && i < 4 && s->feature[i]; i++) err = use_feature(*vmaf, s->feature[i]);
    return err;
}

static int feed(VmafContext *vmaf, unsigned from, unsigned to)
{
    for (unsigned f = from; f < to; f++) {
        VmafPicture ref, dis;
        int err = picture(&ref, f, 0);
        if (err) return err;
        err = picture(&dis, f, 1);
        if (err) {
            vmaf_picture_unref(&ref);
            return err;
        }
        err = read_pictures_or_release(vmaf, &ref, &dis, f);
        if (err) return err;
    }
    return vmaf_read_pictures(vmaf, NULL, NULL, 0);
}

static void close_context(VmafContext *vmaf, VmafModel *model)
{
    vmaf_close(vmaf);
    vmaf_model_destroy(model);
}

/*
 * Segment [a, b) fed with frames [from, to): 1 when a kept score differs from the single
 * run's (or the context refuses the frames), 0 when every kept score is the same.
 */
static int kept_differs(const Setup *s, unsigned a, unsigned b, unsigned from, unsigned to)
{
    VmafContext *whole, *seg;
    VmafModel *m1, *m2;
    int err = open_context(s, &whole, &m1);
    if (!err) err = feed(whole, 0, FRAMES);
    int differs = 0;
    if (!err) {
        err = open_context(s, &seg, &m2);
        if (!err) err = vmaf_segment_set(seg, a, b);
        if (!err && feed(seg, from, to)) differs = 1;
        VmafFeatureVector **vec;
        VmafAggregate **agg;
        unsigned cnt, agg_cnt;
        if (!err && !differs && !vmaf_feature_collector_sorted(seg->fc, &vec, &cnt, &agg, &agg_cnt)) {
            for (unsigned j = 0; j < cnt; j++)
                for (unsigned i = a; i < b && i < vec[j]->capacity; i++) {
                    double x;
                    if (!vec[j]->written[i]) continue;
                    if (vmaf_feature_collector_get_score(whole->fc, vec[j]->name, &x, i) ||
                        memcmp(&x, &vec[j]->value[i], sizeof(x)))
                        differs = 1;
                }
            free(vec);
            free(agg);
        }
        close_context(seg, m2);
    }
    close_context(whole, m1);
    return err ? -1 : differs;
}

/* The whole clip in one context, written as the CLI writes it (models pooled first). */
static int single_run(const Setup *s, const char *path)
{
    VmafContext *vmaf;
    VmafModel *model;
    int err = open_context(s, &vmaf, &model);
    if (!err) err = feed(vmaf, 0, FRAMES);
    double score;
    if (!err && model)
        err = vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &score, 0, FRAMES - 1);
    if (!err) err = vmaf_write_output_with_precision(vmaf, path, VMAF_OUTPUT_FORMAT_JSON, 17);
    vmaf_close(vmaf);
    vmaf_model_destroy(model);
    return err;
}

/* One segment [a, b), fed from a - before + fewer_before (never before 0). */
static int segment_run(const Setup *s, unsigned a, unsigned b, unsigned fewer_before,
                       const char *path, unsigned *before, unsigned *after)
{
    VmafContext *vmaf;
    VmafModel *model;
    int err = open_context(s, &vmaf, &model);
    if (!err) err = vmaf_segment_context(vmaf, before, after);
    if (!err) err = vmaf_segment_set(vmaf, a, b);
    if (!err) {
        const unsigned back = *before > fewer_before ? *before - fewer_before : 0;
        const unsigned from = a > back ? a - back : 0;
        const unsigned to = b + *after < FRAMES ? b + *after : FRAMES;
        err = feed(vmaf, from, to);
    }
    if (!err) err = vmaf_segment_write(vmaf, path);
    vmaf_close(vmaf);
    vmaf_model_destroy(model);
    return err;
}

/* The file's text without its fps line (CPU time: never reproducible). */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = calloc(1, 1 << 22), line[4096];
    size_t n = 0;
    while (text && fgets(line, sizeof(line), f)) {
        if (strstr(line, "\"fps\":")) continue;
        const size_t len = strlen(line);
        if (n + len + 1 >= (1 << 22)) break;
        memcpy(text + n, line, len);
        n += len;
    }
    fclose(f);
    return text;
}

static int same_text(const char *a, const char *b)
{
    char *x = read_text(a), *y = read_text(b);
    const int same = x && y && !strcmp(x, y);
    free(x);
    free(y);
    return same;
}

static void check_setup(const Setup *s)
{
    char single[512], part[3][512], merged[512];
    snprintf(single, sizeof(single), "%s/%s.single.json", scratch, s->name);
    snprintf(merged, sizeof(merged), "%s/%s.merged.json", scratch, s->name);
    int err = single_run(s, single);
    CHECK(!err, "%s: single run failed (%d)", s->name, err);
    if (err) return;

    static const unsigned cut[4] = { 0, 5, 6, FRAMES }; /* a one-frame segment in the middle */
    const char *parts[3];
    unsigned before = 99, after = 99;
    for (unsigned i = 0; i < 3; i++) {
        snprintf(part[i], sizeof(part[i]), "%s/%s.part%u.json", scratch, s->name, i);
        err = segment_run(s, cut[i], cut[i + 1], 0, part[i], &before, &after);
        CHECK(!err, "%s: segment %u:%u failed (%d)", s->name, cut[i], cut[i + 1], err);
        if (err) return;
        parts[2 - i] = part[i]; /* in reverse order */
    }
    CHECK(before == s->before && after == s->after, "%s declares %u before, %u after; expected "
          "%u, %u", s->name, before, after, s->before, s->after);
    err = vmaf_segment_merge_with_precision(parts, 3, merged, VMAF_OUTPUT_FORMAT_JSON, 17);
    CHECK(!err, "%s: merge failed (%d)", s->name, err);
    CHECK(!err && same_text(single, merged), "%s: merged output differs from the single run "
          "(%s, %s)", s->name, single, merged);

    /* the declared context is needed: with a frame fewer on either side, a kept score of
     * segment 5:6 differs from the single run's (or the frames are refused) */
    const unsigned a = cut[1], b = cut[2];
    CHECK(kept_differs(s, a, b, a - s->before, b + s->after) == 0,
          "%s: segment %u:%u with its context differs from the single run", s->name, a, b);
    if (s->before)
        CHECK(kept_differs(s, a, b, a - s->before + 1, b + s->after) == 1,
              "%s: segment %u:%u is the same with %u frames of context before", s->name, a, b,
              s->before - 1);
    if (s->after)
        CHECK(kept_differs(s, a, b, a - s->before, b + s->after - 1) == 1,
              "%s: segment %u:%u is the same with %u frames of context after", s->name, a, b,
              s->after - 1);
}

static const Setup setups[] = {
    { "psnr", { "psnr" }, 0, 0, 0, 0, NULL },
    { "psnr_apsnr", { "psnr=enable_apsnr=true:enable_mse=true" }, 0, 0, 0, 0, NULL },
    { "psnr_hvs", { "psnr_hvs" }, 0, 0, 0, 0, NULL },
    { "motion", { "motion" }, 1, 0, 0, 0, NULL },
    { "motion_opts", { "motion=motion_five_frame_window=true:motion_moving_average=true" }, 2, 0,
      0, 0, NULL },
    { "motion_force_zero", { "motion=motion_force_zero=true" }, 0, 0, 0, 0, NULL },
    { "motion_v2", { "motion_v2=motion_moving_average=true" }, 1, 0, 0, 0, NULL },
    { "vif", { "vif" }, 0, 0, 0, 0, NULL },
    { "adm", { "adm" }, 0, 0, 0, 0, NULL },
    { "speed_chroma", { "speed_chroma" }, 0, 0, 0, 0, NULL },
    { "speed_temporal", { "speed_temporal" }, 1, 0, 0, 0, NULL },
    { "float_motion", { "float_motion=debug=true" }, 1, 1, 0, 0, NULL },
    { "float_motion_force_zero", { "float_motion=motion_force_zero=true" }, 0, 0, 0, 0, NULL },
    { "float_vif", { "float_vif" }, 0, 0, 0, 0, NULL },
    { "float_adm", { "float_adm" }, 0, 0, 0, 0, NULL },
    { "float_psnr", { "float_psnr" }, 0, 0, 0, 0, NULL },
    { "float_ansnr", { "float_ansnr" }, 0, 0, 0, 0, NULL },
    { "float_moment", { "float_moment" }, 0, 0, 0, 0, NULL },
    { "float_ssim", { "float_ssim" }, 0, 0, 0, 0, NULL },
    { "float_ms_ssim", { "float_ms_ssim" }, 0, 0, 0, 0, NULL },
    { "ciede", { "ciede" }, 0, 0, 0, 0, NULL },
    { "cambi", { "cambi" }, 0, 0, 0, 0, NULL },
    /* together: the largest context of each side; threads, subsample, a model */
    { "mixed", { "motion=motion_five_frame_window=true", "float_motion", "psnr=enable_apsnr=true",
                 "speed_temporal" }, 2, 1, 0, 0, NULL },
    { "mixed_threads", { "motion", "float_motion", "psnr=enable_apsnr=true", "float_ssim" }, 1, 1,
      2, 0, NULL },
    { "model_subsample", { "psnr" }, 1, 0, 1, 3, "vmaf_v0.6.1" },
};

/* ---- refusals -------------------------------------------------------------------------- */

static int exists(const char *path)
{
    struct stat st;
    return !stat(path, &st);
}

static void check_refusals(void)
{
    const Setup base = { "ref", { "motion", "psnr" }, 1, 0, 0, 0, NULL };
    const Setup other = { "ref_other", { "motion", "psnr=enable_chroma=false" }, 1, 0, 0, 0, NULL };
    const Setup sub = { "ref_sub", { "motion", "psnr" }, 1, 0, 0, 2, NULL };
    char p[5][512], out[512];
    unsigned b, a;
    static const unsigned cut[5] = { 0, 4, 8, FRAMES, 0 };
    for (unsigned i = 0; i < 3; i++) {
        snprintf(p[i], sizeof(p[i]), "%s/refuse%u.json", scratch, i);
        CHECK(!segment_run(&base, cut[i], cut[i + 1], 0, p[i], &b, &a), "part %u", i);
    }
    snprintf(p[3], sizeof(p[3]), "%s/refuse_overlap.json", scratch);
    CHECK(!segment_run(&base, 3, 8, 0, p[3], &b, &a), "overlapping part");
    snprintf(out, sizeof(out), "%s/refused.json", scratch);
    unlink(out);

    const char *missing[2] = { p[0], p[2] };
    CHECK(vmaf_segment_merge(missing, 2, out, VMAF_OUTPUT_FORMAT_JSON) == -EINVAL && !exists(out),
          "a missing part was not refused");
    const char *missing_end[2] = { p[1], p[2] };
    CHECK(vmaf_segment_merge(missing_end, 2, out, VMAF_OUTPUT_FORMAT_JSON) == -EINVAL &&
          !exists(out), "a title without its first frames was not refused");
    const char *overlap[4] = { p[0], p[3], p[1], p[2] };
    CHECK(vmaf_segment_merge(overlap, 4, out, VMAF_OUTPUT_FORMAT_JSON) == -EINVAL && !exists(out),
          "overlapping parts were not refused");
    const char *twice[4] = { p[0], p[1], p[1], p[2] };
    CHECK(vmaf_segment_merge(twice, 4, out, VMAF_OUTPUT_FORMAT_JSON) == -EINVAL && !exists(out),
          "a part given twice was not refused");

    snprintf(p[4], sizeof(p[4]), "%s/refuse_other.json", scratch);
    CHECK(!segment_run(&other, 4, 8, 0, p[4], &b, &a), "other part");
    const char *mixed[3] = { p[0], p[4], p[2] };
    CHECK(vmaf_segment_merge(mixed, 3, out, VMAF_OUTPUT_FORMAT_JSON) == -EINVAL && !exists(out),
          "a part with other feature options was not refused");
    CHECK(!segment_run(&sub, 4, 8, 0, p[4], &b, &a), "subsampled part");
    CHECK(vmaf_segment_merge(mixed, 3, out, VMAF_OUTPUT_FORMAT_JSON) == -EINVAL && !exists(out),
          "a part with another --subsample was not refused");
    const char *not_part[2] = { p[0], out };
    FILE *f = fopen(out, "w");
    if (f) {
        fputs("{\"frames\": []}\n", f);
        fclose(f);
    }
    CHECK(vmaf_segment_merge(not_part, 2, p[4], VMAF_OUTPUT_FORMAT_JSON) == -EINVAL,
          "a file that is no segment result was not refused");
    unlink(out);
    const char *all[3] = { p[2], p[0], p[1] };
    CHECK(!vmaf_segment_merge(all, 3, out, VMAF_OUTPUT_FORMAT_XML) && exists(out),
          "the complete parts in any order did not merge");

    unlink(out);
    /* the context's own checks */
    VmafContext *vmaf;
    VmafModel *model;
    CHECK(!open_context(&base, &vmaf, &model), "context");
    CHECK(vmaf_segment_set(vmaf, 5, 5) == -EINVAL, "an empty segment was accepted");
    CHECK(vmaf_segment_set(vmaf, 6, 2) == -EINVAL, "a reversed segment was accepted");
    CHECK(!vmaf_segment_set(vmaf, 4, 8), "segment 4:8");
    CHECK(vmaf_segment_set(vmaf, 4, 8) == -EINVAL, "a second segment was accepted");
    CHECK(feed(vmaf, 4, 9) == -EINVAL, "motion scored frame 4 of segment 4:8 without frame 3");
    CHECK(vmaf_segment_write(vmaf, out) == -EINVAL, "a segment without its context was written");
    close_context(vmaf, model);

    const Setup fm = { "ref_fm", { "float_motion" }, 1, 1, 0, 0, NULL };
    CHECK(!open_context(&fm, &vmaf, &model), "context");
    CHECK(!vmaf_segment_set(vmaf, 4, 8), "segment 4:8");
    CHECK(feed(vmaf, 4, 9) == 0, "frames 4..8");
    CHECK(vmaf_segment_write(vmaf, out) == -EINVAL && !exists(out),
          "a float_motion segment without its frame before was written");
    close_context(vmaf, model);

    CHECK(!open_context(&base, &vmaf, &model), "context");
    CHECK(!vmaf_segment_set(vmaf, 4, 8), "segment 4:8");
    CHECK(feed(vmaf, 3, 6) == 0, "frames 3..5");
    CHECK(vmaf_segment_write(vmaf, out) == -EINVAL, "a segment missing its last frames was written");
    close_context(vmaf, model);

    CHECK(!open_context(&base, &vmaf, &model), "context");
    CHECK(!vmaf_segment_set(vmaf, 4, 8), "segment 4:8");
    VmafPicture r, d;
    CHECK(!picture(&r, 3, 0) && !picture(&d, 3, 1), "pictures");
    CHECK(!read_pictures_or_release(vmaf, &r, &d, 3), "frame 3");
    CHECK(!picture(&r, 5, 0) && !picture(&d, 5, 1), "pictures");
    CHECK(read_pictures_or_release(vmaf, &r, &d, 5) == -EINVAL, "a skipped frame index was accepted");
    close_context(vmaf, model);

    CHECK(!open_context(&base, &vmaf, &model), "context");
    CHECK(vmaf_segment_write(vmaf, out) == -EINVAL, "a context without a segment was written");
    CHECK(feed(vmaf, 0, 2) == 0, "frames 0..1");
    CHECK(vmaf_segment_set(vmaf, 0, 2) == -EINVAL, "a segment set after the frames was accepted");
    close_context(vmaf, model);
}

/* ---- validation of parts and the title fingerprint --------------------------------------- */

/* Segment [a, b) of the base setup with fingerprint fp (NULL: none), in memory. */
static char *part_in_memory(unsigned a, unsigned b, const char *fp, size_t *size)
{
    const Setup base = { "val", { "motion", "psnr=enable_apsnr=true" }, 1, 0, 0, 0, NULL };
    VmafContext *vmaf;
    VmafModel *model;
    unsigned before, after;
    char *data = NULL;
    int err = open_context(&base, &vmaf, &model);
    if (!err) err = vmaf_segment_context(vmaf, &before, &after);
    if (!err) err = vmaf_segment_set(vmaf, a, b);
    if (!err && fp) err = vmaf_segment_set_fingerprint(vmaf, fp);
    if (!err) err = feed(vmaf, a > before ? a - before : 0, b);
    if (!err) err = vmaf_segment_set_title_frames(vmaf, FRAMES, 1);
    if (!err) err = vmaf_segment_write_buffer(vmaf, &data, size);
    close_context(vmaf, model);
    return err ? NULL : data;
}

/* Replace the first `from` in text by `to` (same length or shorter): 1 when found. */
static int tamper(char *text, const char *from, const char *to)
{
    char *at = strstr(text, from);
    if (!at) return 0;
    const size_t n = strlen(from), m = strlen(to);
    memmove(at + m, at + n, strlen(at + n) + 1);
    memcpy(at, to, m);
    return 1;
}

static int merge_two(const char *x, const char *y, const char *out)
{
    const char *data[2] = { x, y };
    const size_t size[2] = { strlen(x), y ? strlen(y) : 0 };
    return vmaf_segment_merge_buffers(data, size, NULL, y ? 2 : 1, out, VMAF_OUTPUT_FORMAT_JSON, 17);
}

static void check_validation(void)
{
    char out[512];
    snprintf(out, sizeof(out), "%s/validated.json", scratch);
    unlink(out);

    VmafContext *vmaf;
    CHECK(!vmaf_init(&vmaf, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_NONE }), "init");
    char long_fp[300];
    memset(long_fp, 'x', sizeof(long_fp) - 1);
    long_fp[sizeof(long_fp) - 1] = '\0';
    CHECK(vmaf_segment_set_fingerprint(NULL, "a") == -EINVAL, "a NULL context was accepted");
    CHECK(vmaf_segment_set_fingerprint(vmaf, "") == -EINVAL, "an empty fingerprint was accepted");
    CHECK(vmaf_segment_set_fingerprint(vmaf, "a\nb") == -EINVAL,
          "a fingerprint with a line break was accepted");
    CHECK(vmaf_segment_set_fingerprint(vmaf, long_fp) == -EINVAL,
          "a fingerprint of 299 characters was accepted");
    long_fp[255] = '\0';
    CHECK(!vmaf_segment_set_fingerprint(vmaf, long_fp), "a fingerprint of 255 characters");
    CHECK(!vmaf_segment_set_fingerprint(vmaf, NULL), "removing the fingerprint");
    vmaf_close(vmaf);

    size_t n;
    char *a = part_in_memory(0, 6, "title-a", &n), *b = part_in_memory(6, FRAMES, "title-a", &n);
    char *other = part_in_memory(6, FRAMES, "title-b", &n), *none = part_in_memory(6, FRAMES, NULL, &n);
    char *lone = part_in_memory(0, FRAMES, NULL, &n);
    CHECK(a && b && other && none && lone, "parts in memory");
    if (!a || !b || !other || !none || !lone) goto done;
    CHECK(strstr(a, "\"fingerprint\": \"title-a\"") && !strstr(none, "fingerprint"),
          "the fingerprint is recorded when set, only then");
    CHECK(!merge_two(a, b, out) && exists(out), "parts of one fingerprint did not merge");
    unlink(out);
    CHECK(merge_two(a, other, out) == -EINVAL && !exists(out),
          "parts of two fingerprints (another title) were merged");
    CHECK(merge_two(a, none, out) == -EINVAL && !exists(out),
          "a part with a fingerprint and one without were merged");
    CHECK(!merge_two(lone, NULL, out) && exists(out), "a lone part did not merge");
    unlink(out);

    /* one field tampered at a time, in a lone part: each refused, nothing written */
    static const char *const tampered[][2] = {
        { "\"geometry\": [1, 8,", "\"geometry\": [1, 40," },
        { "\"geometry\": [1, 8,", "\"geometry\": [1, 0," },
        { "\"geometry\": [1, 8,", "\"geometry\": [7, 8," },
        { "\"geometry\": [1, 8,", "\"geometry\": [0, 8," },
        { "\"geometry\": [1, 8, 224,", "\"geometry\": [1, 8, 0," },
        { "\"geometry\": [1, 8, 224,", "\"geometry\": [1, 8, 99999," },
        { "\"version\": \"", "\"version\": \"x" },
        { "\"context\": [1, 0]", "\"context\": [0, 0]" },
        { "\"context\": [1, 0]", "\"context\": [1, 999]" },
        { "\"n_subsample\": 1", "\"n_subsample\": 0" },
        { "\"frames_read\": [0,", "\"frames_read\": [1," },
        { "\"title_frames\": [14,", "\"title_frames\": [4," },
        { "\"name\": \"psnr_y\"", "\"name\": \"psnr_cb\"" },
        { "\"name\": \"psnr_y\"", "\"name\": \"\"" },
        { "\"order\": [0,", "\"order\": [3," },
        { "\"threaded\": false", "\"threaded\": 0" },
        { "\"cpu_seconds\": \"", "\"cpu_seconds\": \"f" },
    };
    for (size_t i = 0; i < sizeof(tampered) / sizeof(tampered[0]); i++) {
        char *t = malloc(strlen(lone) + 64);
        if (!t) break;
        strcpy(t, lone);
        const int found = tamper(t, tampered[i][0], tampered[i][1]);
        CHECK(found, "field \"%s\" not in the part", tampered[i][0]);
        CHECK(found && merge_two(t, NULL, out) == -EINVAL && !exists(out),
              "a part with %s instead of %s was merged", tampered[i][1], tampered[i][0]);
        unlink(out);
        free(t);
    }
done:
    vmaf_segment_buffer_free(a);
    vmaf_segment_buffer_free(b);
    vmaf_segment_buffer_free(other);
    vmaf_segment_buffer_free(none);
    vmaf_segment_buffer_free(lone);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
        return 2;
    }
    scratch = argv[1];
    mkdir(scratch, 0755);
    make_clip();
    for (size_t i = 0; i < sizeof(setups) / sizeof(setups[0]); i++) check_setup(&setups[i]);
    check_refusals();
    check_validation();
    printf("segment: %d checks, %d failed (%zu setups as 3 segments merged)\n", checks, failures,
           sizeof(setups) / sizeof(setups[0]));
    return failures ? 1 : 0;
}
