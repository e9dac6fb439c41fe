/*
 * Segment results in memory (vmaf_segment_write_buffer, vmaf_segment_merge_buffers): the
 * buffer holds exactly the bytes vmaf_segment_write() puts in its file, and merging buffers
 * writes exactly the file that merging the files writes (fps included: the same parts) and
 * the single run's (fps aside); the refusals: a missing part, bytes that are no result, bad
 * arguments, a write before the flush -- with nothing written.
 *
 * test_segment_buffers SCRATCH_DIR
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

#include "output.h" /* vmaf_write_output_with_precision */
#include "test_util.h"

#define W 96
#define H 64
#define FRAMES 10

static uint8_t clip[2][FRAMES][W * H * 3 / 2];

static void make_clip(void)
{
    rng_state = 0x51ce5u;
    for (unsigned f = 0; f < FRAMES; f++)
        for (unsigned i = 0; i < W * H * 3 / 2; i++) {
            const unsigned x = i % W, y = i / W;
            clip[0][f][i] = (uint8_t)(((x + 3 * f) * 5 ^ y * 3) & 0xff);
            const int v = clip[0][f][i] + (int)(rng() % 21) - 10;
            clip[1][f][i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
}

static int picture(VmafPicture *pic, unsigned f, unsigned which)
{
    return test_i420_picture(pic, clip[which][f], W, H);
}

/* psnr (apsnr: counters), motion (context before, flush at merge), float_motion (after). */
static int setup(VmafContext **vmaf, VmafModel **model)
{
    int err = vmaf_init(vmaf, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR,
                                                    .n_threads = 1 });
    if (err) return err;
    VmafFeatureDictionary *d = NULL;
    err = vmaf_feature_dictionary_set(&d, "enable_apsnr", "true");
    if (!err) err = vmaf_use_feature(*vmaf, "psnr", d);
    if (!err) err = vmaf_use_feature(*vmaf, "float_motion", NULL);
    VmafModelConfig cfg = { .name = "vmaf" };
    if (!err) err = vmaf_model_load(model, &cfg, "vmaf_v0.6.1");
    if (!err) err = vmaf_use_features_from_model(*vmaf, *model);
    return err;
}

/* Frames [from, to) into the context, then the flush. */
static int feed(VmafContext *vmaf, unsigned from, unsigned to)
{
    for (unsigned f = from; f < to; f++) {
        VmafPicture ref, dis;
        int err = picture(&ref, f, 0);
        if (err) return err;
        if ((err = picture(&dis, f, 1))) {
            vmaf_picture_unref(&ref);
            return err;
        }
        if ((err = read_pictures_or_release(vmaf, &ref, &dis, f))) return err;
    }
    return vmaf_read_pictures(vmaf, NULL, NULL, 0);
}

/* Lines without "fps". */
static char *without_fps(const char *text)
{
    char *out = calloc(1, strlen(text) + 1);
    if (!out) return NULL;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        const size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        bool fps = false;
        for (size_t k = 0; k + 3 <= n && !fps; k++) fps = !strncmp(p + k, "fps", 3);
        if (!fps) strncat(out, p, n);
        p += n;
    }
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    mkdir(dir, 0755);
    make_clip();
    char single[512], from_files[512], from_buffers[512], never[512], part_path[3][512];
    snprintf(single, sizeof(single), "%s/single.json", dir);
    snprintf(from_files, sizeof(from_files), "%s/files.json", dir);
    snprintf(from_buffers, sizeof(from_buffers), "%s/buffers.json", dir);
    snprintf(never, sizeof(never), "%s/never.json", dir);

    /* the single run */
    VmafContext *vmaf;
    VmafModel *model;
    int err = setup(&vmaf, &model);
    if (!err) err = feed(vmaf, 0, FRAMES);
    double score;
    if (!err) err = vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &score, 0, FRAMES - 1);
    if (!err) err = vmaf_write_output_with_precision(vmaf, single, VMAF_OUTPUT_FORMAT_JSON, 17);
    CHECK(!err, "single run: %d", err);
    vmaf_model_destroy(model);
    vmaf_close(vmaf);

    /* three segments: each written to a file and into memory */
    static const unsigned cut[4] = { 0, 3, 4, FRAMES };
    char *data[3] = { NULL, NULL, NULL };
    size_t size[3] = { 0, 0, 0 };
    for (unsigned i = 0; i < 3; i++) {
        snprintf(part_path[i], sizeof(part_path[i]), "%s/part%u.json", dir, i);
        err = setup(&vmaf, &model);
        unsigned before = 0, after = 0;
        if (!err) err = vmaf_segment_context(vmaf, &before, &after);
        CHECK(!err && before == 1 && after == 1, "context %u/%u (err %d)", before, after, err);
        if (!err) err = vmaf_segment_set(vmaf, cut[i], cut[i + 1]);
        if (i == 1) { /* before the flush: refused, nothing returned */
            char *early = (char *)1;
            size_t early_size = 7;
            CHECK(vmaf_segment_write_buffer(vmaf, &early, &early_size) == -EINVAL &&
                  !early && !early_size, "write_buffer before the flush");
        }
        const unsigned from = cut[i] ? cut[i] - 1 : 0;
        const unsigned to = cut[i + 1] + 1 < FRAMES ? cut[i + 1] + 1 : FRAMES;
        if (!err) err = feed(vmaf, from, to);
        if (!err) err = vmaf_segment_write(vmaf, part_path[i]);
        if (!err) err = vmaf_segment_write_buffer(vmaf, &data[i], &size[i]);
        CHECK(!err, "segment %u: %d", i, err);
        size_t file_len = 0;
        char *file = test_slurp(part_path[i], &file_len);
        CHECK(file && data[i] && file_len == size[i] && !memcmp(file, data[i], size[i]) &&
              data[i][size[i]] == '\0', "segment %u: the buffer is the file's bytes", i);
        free(file);
        vmaf_model_destroy(model);
        vmaf_close(vmaf);
    }
    CHECK(vmaf_segment_write_buffer(NULL, &data[0], &size[0]) == -EINVAL, "NULL context");

    /* merged from files and from buffers (in another order): the same file */
    const char *paths[3] = { part_path[2], part_path[0], part_path[1] };
    err = vmaf_segment_merge_with_precision(paths, 3, from_files, VMAF_OUTPUT_FORMAT_JSON, 17);
    CHECK(!err, "merge of the files: %d", err);
    const char *bufs[3] = { data[1], data[2], data[0] };
    const size_t sizes[3] = { size[1], size[2], size[0] };
    err = vmaf_segment_merge_buffers(bufs, sizes, NULL, 3, from_buffers, VMAF_OUTPUT_FORMAT_JSON,
                                     17);
    CHECK(!err, "merge of the buffers: %d", err);
    size_t la = 0, lb = 0, ls = 0;
    char *a = test_slurp(from_files, &la), *b = test_slurp(from_buffers, &lb), *s = test_slurp(single, &ls);
    CHECK(a && b && la == lb && !memcmp(a, b, la), "buffers merged = files merged, byte for byte");
    char *s_cmp = s ? without_fps(s) : NULL, *b_cmp = b ? without_fps(b) : NULL;
    CHECK(s_cmp && b_cmp && strlen(s_cmp) > 100 && !strcmp(s_cmp, b_cmp),
          "buffers merged = the single run, fps aside");
    free(a);
    free(b);
    free(s);
    free(s_cmp);
    free(b_cmp);

    /* refusals: nothing written */
    const char *names[3] = { "first", "second", "third" };
    unlink(never);
    CHECK(vmaf_segment_merge_buffers(bufs, sizes, names, 2, never, VMAF_OUTPUT_FORMAT_JSON, 17) ==
              -EINVAL, "a missing part");
    const char *junk[2] = { "{\"twin_vmaf_segment\": 1}", "not json" };
    const size_t junk_size[2] = { strlen(junk[0]), strlen(junk[1]) };
    CHECK(vmaf_segment_merge_buffers(junk, junk_size, names, 2, never, VMAF_OUTPUT_FORMAT_JSON,
                                     17) == -EINVAL, "bytes that are no segment result");
    CHECK(vmaf_segment_merge_buffers(bufs, sizes, NULL, 0, never, VMAF_OUTPUT_FORMAT_JSON, 17) ==
              -EINVAL, "no parts");
    CHECK(vmaf_segment_merge_buffers(bufs, NULL, NULL, 3, never, VMAF_OUTPUT_FORMAT_JSON, 17) ==
              -EINVAL, "no sizes");
    CHECK(vmaf_segment_merge_buffers(bufs, sizes, NULL, 3, NULL, VMAF_OUTPUT_FORMAT_JSON, 17) ==
              -EINVAL, "no output path");
    CHECK(vmaf_segment_merge_buffers(bufs, sizes, NULL, 3, never, VMAF_OUTPUT_FORMAT_NONE, 17) ==
              -EINVAL, "no format");
    struct stat st;
    CHECK(stat(never, &st) != 0, "nothing written by the refusals");
    for (unsigned i = 0; i < 3; i++) vmaf_segment_buffer_free(data[i]);
    vmaf_segment_buffer_free(NULL);

    printf("segment_buffers: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
