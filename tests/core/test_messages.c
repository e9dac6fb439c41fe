/*
 * Library messages: they follow the configured log level (model loading included, which
 * takes no context: FFmpeg's -v quiet must silence it), an unknown extractor option is
 * warned about once per registered extractor, and a model that cannot be found is -EINVAL,
 * as in the reference.
 *
 * test_messages MODELS_DIR SCRATCH_DIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

#include "test_util.h"

static const char *scratch, *models;
static int saved_stderr = -1;
static char capture_path[1024];

/* Send stderr to a file until captured() returns its text. */
static void capture(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    FILE *f = fopen(capture_path, "w");
    if (!f) return;
    dup2(fileno(f), 2);
    fclose(f);
}

static const char *captured(void)
{
    static char text[1 << 14];
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    text[0] = '\0';
    FILE *f = fopen(capture_path, "r");
    if (f) {
        text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
        fclose(f);
    }
    return text;
}

static unsigned count(const char *text, const char *what)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

static VmafContext *context(enum VmafLogLevel level, unsigned threads)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = level, .n_threads = threads };
    CHECK(!vmaf_init(&v, cfg), "init");
    return v;
}

/* Missing models: -EINVAL; silent at NONE, one message at ERROR and above. */
static void test_missing_models(void)
{
    char nofile[1100];
    snprintf(nofile, sizeof(nofile), "%s/no_such_model.json", scratch);
    static const enum VmafLogLevel levels[] = { VMAF_LOG_LEVEL_NONE, VMAF_LOG_LEVEL_ERROR,
                                                VMAF_LOG_LEVEL_INFO };
    for (unsigned l = 0; l < 3; l++) {
        VmafContext *v = context(levels[l], 0);
        VmafModelConfig cfg = { .name = "vmaf" };
        VmafModel *m = NULL;
        VmafModelCollection *mc = NULL;
        capture();
        const int e_path = vmaf_model_load_from_path(&m, &cfg, nofile);
        const int e_version = vmaf_model_load(&m, &cfg, "vmaf_v9.9.9");
        const int e_cpath = vmaf_model_collection_load_from_path(&m, &mc, &cfg, nofile);
        const int e_cversion = vmaf_model_collection_load(&m, &mc, &cfg, "vmaf_v9.9.9");
        const char *text = captured();
        CHECK(e_path == -EINVAL && e_version == -EINVAL && e_cpath == -EINVAL &&
                  e_cversion == -EINVAL && !m && !mc,
              "level %d: %d %d %d %d", levels[l], e_path, e_version, e_cpath, e_cversion);
        const unsigned errors = count(text, "libvmaf ERROR");
        if (levels[l] == VMAF_LOG_LEVEL_NONE)
            CHECK(!*text, "level NONE printed:\n%s", text);
        else
            CHECK(errors == 4 && count(text, "\n") == 4, "level %d: %u errors:\n%s", levels[l],
                  errors, text);
        vmaf_close(v);
    }
}

/* A model file that does not parse: its error is silent at NONE, too. */
static void test_bad_model_quiet(void)
{
    char path[1100];
    snprintf(path, sizeof(path), "%s/not_a_model.json", scratch);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_na", f);
        fclose(f);
    }
    for (int quiet = 1; quiet >= 0; quiet--) {
        VmafContext *v = context(quiet ? VMAF_LOG_LEVEL_NONE : VMAF_LOG_LEVEL_INFO, 0);
        VmafModelConfig cfg = { 0 };
        VmafModel *m = NULL;
        capture();
        const int err = vmaf_model_load_from_path(&m, &cfg, path);
        const char *text = captured();
        CHECK(err == -EINVAL && !m, "truncated model: %d", err);
        CHECK(quiet ? !*text : count(text, "libvmaf ERROR") >= 1, "quiet %d:\n%s", quiet, text);
        vmaf_close(v);
    }
}

/* A refused overload value: -EINVAL; silent at NONE, named at INFO. */
static void test_bad_overload_quiet(void)
{
    char path[1100];
    snprintf(path, sizeof(path), "%s/vmaf_v0.6.1.json", models);
    for (int quiet = 1; quiet >= 0; quiet--) {
        VmafContext *v = context(quiet ? VMAF_LOG_LEVEL_NONE : VMAF_LOG_LEVEL_INFO, 0);
        VmafModelConfig cfg = { 0 };
        VmafModel *m = NULL;
        CHECK(!vmaf_model_load_from_path(&m, &cfg, path), "load %s", path);
        VmafFeatureDictionary *d = NULL;
        vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "0.5"); /* below its range */
        capture();
        const int err = m ? vmaf_model_feature_overload(m, "vif", d) : -EINVAL;
        const char *text = captured();
        CHECK(err == -EINVAL, "overload out of range: %d", err);
        CHECK(quiet ? !*text : count(text, "vif_enhn_gain_limit") >= 1, "quiet %d:\n%s", quiet,
              text);
        vmaf_model_destroy(m);
        vmaf_close(v);
    }
}

static int feed(VmafContext *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        VmafPicture r, d;
        if (vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 48)) return -ENOMEM;
        if (vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 64, 48)) {
            vmaf_picture_unref(&r);
            return -ENOMEM;
        }
        for (unsigned y = 0; y < 48; y++)
            for (unsigned x = 0; x < 64; x++) {
                ((unsigned char *)r.data[0])[y * r.stride[0] + x] = (unsigned char)(x * 3 + y + i);
                ((unsigned char *)d.data[0])[y * d.stride[0] + x] = (unsigned char)(x * 3 + y);
            }
        int err = read_pictures_or_release(v, &r, &d, i);
        if (err) return err;
    }
    return vmaf_read_pictures(v, NULL, NULL, 0);
}

/* One warning per extractor the request registers, when scoring starts: not per thread, not
 * per model feature, none from a context that scores nothing (FFmpeg's probe of its graph). */
static void test_unknown_option_once(void)
{
    static const unsigned threads[] = { 0, 1, 3 };
    for (unsigned t = 0; t < 3; t++) {
        /* vmaf_use_feature, then frames on the worker threads */
        VmafContext *v = context(VMAF_LOG_LEVEL_WARNING, threads[t]);
        VmafFeatureDictionary *d = NULL;
        vmaf_feature_dictionary_set(&d, "bogus", "1");
        capture();
        int err = vmaf_use_feature(v, "psnr", d);
        if (!err) err = feed(v, 4);
        const char *text = captured();
        CHECK(!err, "psnr with an unknown option: %d", err);
        CHECK(count(text, "unknown option \"bogus\"") == 1 && count(text, "\n") == 1,
              "psnr, %u threads:\n%s", threads[t], text);
        vmaf_close(v);

        /* a model overload reaches the extractor of four model features: one warning */
        v = context(VMAF_LOG_LEVEL_WARNING, threads[t]);
        char path[1100];
        snprintf(path, sizeof(path), "%s/vmaf_v0.6.1.json", models);
        VmafModelConfig cfg = { 0 };
        VmafModel *m = NULL;
        CHECK(!vmaf_model_load_from_path(&m, &cfg, path), "load %s", path);
        if (m) {
            d = NULL;
            vmaf_feature_dictionary_set(&d, "bogus", "1");
            capture();
            err = vmaf_model_feature_overload(m, "vif", d);
            if (!err) err = vmaf_use_features_from_model(v, m);
            const char *before = captured();
            CHECK(!*before, "warned before scoring:\n%s", before);
            capture();
            if (!err) err = feed(v, 3);
            text = captured();
            CHECK(!err, "overload vif.bogus: %d", err);
            CHECK(count(text, "vif: unknown option \"bogus\"") == 1 && count(text, "\n") == 1,
                  "model overload, %u threads:\n%s", threads[t], text);
            vmaf_model_destroy(m);
        }
        vmaf_close(v);

        /* below WARNING: nothing */
        v = context(VMAF_LOG_LEVEL_ERROR, threads[t]);
        d = NULL;
        vmaf_feature_dictionary_set(&d, "bogus", "1");
        capture();
        err = vmaf_use_feature(v, "psnr", d);
        if (!err) err = feed(v, 2);
        text = captured();
        CHECK(!err && !*text, "level ERROR printed:\n%s", text);
        vmaf_close(v);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s MODELS_DIR SCRATCH_DIR\n", argv[0]);
        return 2;
    }
    models = argv[1];
    scratch = argv[2];
    mkdir(scratch, 0755);
    snprintf(capture_path, sizeof(capture_path), "%s/stderr.txt", scratch);
    test_missing_models();
    test_bad_model_quiet();
    test_bad_overload_quiet();
    test_unknown_option_once();
    printf("messages: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
