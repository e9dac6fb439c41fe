/*
 * Misuse of the API: each case failed (crash, UBSan report, wrong value with
 * success, or a silently broken file) before its fix. Usage: test_hardening SCRATCH_DIR
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "json.h"

#include "test_util.h"

static char scratch[4096];

static const char *path_of(const char *name)
{
    static char buf[4200];
    snprintf(buf, sizeof(buf), "%s/%s", scratch, name);
    return buf;
}

static VmafContext *context(unsigned threads, unsigned subsample)
{
    VmafContext *v = NULL;
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE, .n_threads = threads,
                                    .n_subsample = subsample };
    CHECK(!vmaf_init(&v, cfg), "init");
    return v;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 20);
    if (buf) (void)!fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    return buf;
}

static int exists(const char *path)
{
    struct stat st;
    return !stat(path, &st);
}

/* 1: a pool of absurd size is refused; it used to crash in the cleanup of the failed
 * allocation (a NULL buffer table walked). */
static void test_huge_pool(void)
{
    VmafContext *v = context(0, 0);
    const VmafPictureConfiguration cfg = {
        .pic_params = { .w = 16, .h = 16, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P },
        .pic_cnt = UINT_MAX,
    };
    CHECK(vmaf_preallocate_pictures(v, cfg) < 0, "pic_cnt UINT_MAX refused");
    VmafPictureConfiguration ok = cfg;
    ok.pic_cnt = 4;
    CHECK(!vmaf_preallocate_pictures(v, ok), "a sane pool after the refusal");
    VmafPicture p;
    CHECK(!vmaf_fetch_preallocated_picture(v, &p), "fetch");
    vmaf_picture_unref(&p);
    vmaf_close(v);
}

static void fill(VmafPicture *p, unsigned value)
{
    for (unsigned c = 0; c < 3; c++) {
        if (!p->data[c]) continue;
        for (unsigned y = 0; y < p->h[c]; y++) {
            uint8_t *row = (uint8_t *)p->data[c] + y * p->stride[c];
            for (unsigned x = 0; x < p->w[c]; x++) {
                if (p->bpc == 8) row[x] = (uint8_t)value;
                else ((uint16_t *)row)[x] = (uint16_t)value;
            }
        }
    }
}

/* Feed one pair; `poke` sets dist's sample (x, y) of plane `plane` to `value` first. */
static int feed_pair(VmafContext *v, unsigned bpc, unsigned index, int plane, unsigned x,
                     unsigned y, unsigned value)
{
    VmafPicture ref, dist;
    if (vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, bpc, 32, 32)) return -ENOMEM;
    if (vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, bpc, 32, 32)) {
        vmaf_picture_unref(&ref);
        return -ENOMEM;
    }
    fill(&ref, 100);
    fill(&dist, 90);
    if (plane >= 0) {
        uint8_t *row = (uint8_t *)dist.data[plane] + y * dist.stride[plane];
        if (bpc == 8) row[x] = (uint8_t)value;
        else ((uint16_t *)row)[x] = (uint16_t)value;
    }
    return read_pictures_or_release(v, &ref, &dist, index);
}

/* 2: samples above (1 << bpc) - 1 gave psnr -31 dB with success (and signed overflow in
 * psnr_hvs); now -EINVAL. Depths whose type cannot overflow are accepted as they are. */
static void test_sample_range(void)
{
    static const struct { unsigned bpc, value; int want; } cases[] = {
        { 10, 0xffff, -EINVAL }, { 10, 1024, -EINVAL }, { 10, 1023, 0 }, { 9, 512, -EINVAL },
        { 9, 511, 0 }, { 12, 4096, -EINVAL }, { 15, 0x8000, -EINVAL }, { 16, 0xffff, 0 },
        { 8, 255, 0 },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        VmafContext *v = context(0, 0);
        VmafFeatureDictionary *d = NULL;
        CHECK(!vmaf_use_feature(v, "psnr", d), "psnr");
        if (cases[i].bpc <= 12) CHECK(!vmaf_use_feature(v, "psnr_hvs", NULL), "psnr_hvs");
        CHECK(!feed_pair(v, cases[i].bpc, 0, -1, 0, 0, 0), "a clean first pair");
        const int err = feed_pair(v, cases[i].bpc, 1, 2, 5, 3, cases[i].value);
        CHECK(err == cases[i].want, "%u-bit sample %u in V: %d (want %d)", cases[i].bpc,
              cases[i].value, err, cases[i].want);
        CHECK(!feed_pair(v, cases[i].bpc, 2, -1, 0, 0, 0), "scoring goes on after a refusal");
        vmaf_close(v);
    }
}

/* 6: no frame, no extractor, or a range without a scored index. */
static void test_empty_output_and_pooling(void)
{
    VmafContext *v = context(0, 0);
    const char *out = path_of("empty.json");
    unlink(out);
    CHECK(vmaf_write_output(v, out, VMAF_OUTPUT_FORMAT_JSON) == -EINVAL, "write before a frame");
    CHECK(!exists(out), "no file written");
    CHECK(!vmaf_use_feature(v, "psnr", NULL), "psnr");
    CHECK(vmaf_write_output(v, out, VMAF_OUTPUT_FORMAT_XML) == -EINVAL, "write before a frame");
    CHECK(!exists(out), "no file written");
    vmaf_close(v);

    v = context(0, 2);
    CHECK(!vmaf_use_feature(v, "psnr", NULL), "psnr");
    for (unsigned i = 0; i < 3; i++) CHECK(!feed_pair(v, 8, i, -1, 0, 0, 0), "frame %u", i);
    CHECK(!vmaf_read_pictures(v, NULL, NULL, 0), "flush");
    double s = 1234.;
    CHECK(vmaf_feature_score_pooled(v, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 1, 1) == -EINVAL,
          "[1, 1] with n_subsample 2 has no scored frame (got %g)", s);
    CHECK(!vmaf_feature_score_pooled(v, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 0, 2), "[0, 2]");
    VmafModel *m = NULL;
    VmafModelConfig mc = { .name = "vmaf" };
    if (!vmaf_model_load(&m, &mc, "vmaf_v0.6.1")) {
        CHECK(vmaf_score_pooled(v, m, VMAF_POOL_METHOD_MEAN, &s, 1, 1) == -EINVAL,
              "model pooled over no scored frame");
        vmaf_model_destroy(m);
    }
    vmaf_close(v);
}

/* 5: a model score may not take the output name of a feature or of another score. */
static void test_name_collisions(void)
{
    VmafModelConfig cfg = { .name = "psnr_y" };
    VmafModel *m = NULL;
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_v0.6.1"), "load vmaf_v0.6.1 (built in)");
    if (!m) return;
    VmafContext *v = context(0, 0);
    CHECK(!vmaf_use_features_from_model(v, m), "model named psnr_y");
    CHECK(!vmaf_use_features_from_model(v, m), "the same model again");
    CHECK(vmaf_use_feature(v, "psnr", NULL) == -EINVAL, "psnr after a model named psnr_y");
    vmaf_close(v);
    vmaf_model_destroy(m);

    v = context(0, 0);
    CHECK(!vmaf_use_feature(v, "psnr", NULL), "psnr first");
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_v0.6.1"), "load");
    CHECK(vmaf_use_features_from_model(v, m) == -EINVAL, "model named psnr_y after psnr");
    vmaf_model_destroy(m);
    cfg.name = "integer_adm2"; /* the alias of the adm2 feature the model itself uses */
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_v0.6.1"), "load");
    CHECK(vmaf_use_features_from_model(v, m) == -EINVAL, "model named integer_adm2");
    vmaf_model_destroy(m);
    vmaf_close(v);

    VmafModel *first = NULL, *other = NULL;
    VmafModelCollection *mc = NULL;
    VmafModelConfig bc = { .name = "b" };
    if (vmaf_model_collection_load(&first, &mc, &bc, "vmaf_b_v0.6.3")) return;
    v = context(0, 0);
    CHECK(!vmaf_use_features_from_model_collection(v, mc), "collection b");
    static const char *const taken[] = { "b", "b_0001", "b_bagging", "b_ci_p95_hi" };
    for (unsigned i = 0; i < 4; i++) {
        VmafModelConfig oc = { .name = taken[i] };
        CHECK(!vmaf_model_load(&other, &oc, "vmaf_v0.6.1"), "load");
        CHECK(vmaf_use_features_from_model(v, other) == -EINVAL, "model named %s beside b",
              taken[i]);
        vmaf_model_destroy(other);
    }
    VmafModelConfig oc = { .name = "b_other" };
    CHECK(!vmaf_model_load(&other, &oc, "vmaf_v0.6.1"), "load");
    CHECK(!vmaf_use_features_from_model(v, other), "b_other is free");
    vmaf_model_destroy(other);
    vmaf_close(v);
    vmaf_model_destroy(first);
    vmaf_model_collection_destroy(mc);
}

/* Decode the XML attribute names of the first <frame ...> element (entities resolved). */
static unsigned xml_frame_names(const char *xml, char names[][64], unsigned max)
{
    const char *p = strstr(xml, "<frame frameNum=\"0\" ");
    if (!p) return 0;
    p += strlen("<frame frameNum=\"0\" ");
    unsigned n = 0;
    while (*p && *p != '/' && n < max) {
        size_t len = 0;
        while (*p && *p != '=' && len < 63) {
            if (*p == '&') {
                static const struct { const char *ref; char c; } ent[] = {
                    { "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' },
                    { "&apos;", '\'' }, { "&#9;", '\t' }, { "&#10;", '\n' }, { "&#13;", '\r' },
                };
                unsigned k = 0;
                while (k < 8 && strncmp(p, ent[k].ref, strlen(ent[k].ref))) k++;
                if (k == 8) return 0; /* not well-formed */
                names[n][len++] = ent[k].c;
                p += strlen(ent[k].ref);
                continue;
            }
            if (*p == '<' || *p == '"' || *p == '>') return 0; /* would break the markup */
            names[n][len++] = *p++;
        }
        names[n++][len] = '\0';
        p = strchr(p, '"');
        if (!p || !(p = strchr(p + 1, '"'))) return n;
        p += 2; /* '"' and ' ' */
    }
    return n;
}

/* 4: names with markup, quotes, commas and line breaks come back unchanged from each format;
 * names a format cannot hold are refused, with no file. */
static void test_output_names(void)
{
    static const char *const names[] = { "a\"b<c>&'d", "x,y", "line\nbreak", "tab\there", "plain" };
    const unsigned cnt = sizeof(names) / sizeof(names[0]);
    VmafContext *v = context(0, 0);
    for (unsigned i = 0; i < cnt; i++)
        CHECK(!vmaf_import_feature_score(v, names[i], 1.0 + i, 0), "import %u", i);

    const char *json_path = path_of("names.json");
    CHECK(!vmaf_write_output(v, json_path, VMAF_OUTPUT_FORMAT_JSON), "json");
    char *text = read_text(json_path);
    VmafJson *root = NULL;
    char err[256] = "";
    CHECK(text && !vmaf_json_parse(&root, text, strlen(text), err, sizeof(err)), "JSON parses: %s",
          err);
    if (root) {
        const VmafJson *frames = vmaf_json_get(root, "frames");
        const VmafJson *metrics = frames && frames->cnt ? vmaf_json_get(frames->items[0], "metrics")
                                                        : NULL;
        CHECK(metrics && metrics->cnt == cnt, "metrics of frame 0");
        for (unsigned i = 0; metrics && i < cnt && i < metrics->cnt; i++)
            CHECK(!strcmp(metrics->keys[i], names[i]), "JSON key %u: \"%s\"", i, metrics->keys[i]);
        vmaf_json_free(root);
    }
    free(text);

    /* XML writes names as attribute names, which cannot be escaped: refused, no file */
    const char *xml_path = path_of("names.xml");
    unlink(xml_path);
    CHECK(vmaf_write_output(v, xml_path, VMAF_OUTPUT_FORMAT_XML) == -EINVAL, "XML: not names");
    CHECK(!exists(xml_path), "no XML file");

    const char *csv_path = path_of("names.csv");
    CHECK(!vmaf_write_output(v, csv_path, VMAF_OUTPUT_FORMAT_CSV), "csv");
    text = read_text(csv_path);
    CHECK(text && !strncmp(text, "Frame,\"a\"\"b<c>&'d\",\"x,y\",\"line\nbreak\",tab\there,plain,\n",
                           strlen("Frame,\"a\"\"b<c>&'d\",\"x,y\",\"line\nbreak\",tab\there,plain,\n")),
          "CSV header quoted: %.80s", text ? text : "");
    free(text);

    const char *sub_path = path_of("names.sub");
    unlink(sub_path);
    CHECK(vmaf_write_output(v, sub_path, VMAF_OUTPUT_FORMAT_SUB) == -EINVAL,
          "SUB refuses a name with a line break");
    CHECK(!exists(sub_path), "no SUB file");
    vmaf_close(v);

    /* XML names (non-ASCII included) come back as written */
    static const char *const xml_names[] = { "qualit\xc3\xa9", "a.b-c", "_x:y", "integer_adm2" };
    v = context(0, 0);
    for (unsigned i = 0; i < 4; i++)
        CHECK(!vmaf_import_feature_score(v, xml_names[i], 1.0 + i, 0), "import %u", i);
    CHECK(!vmaf_write_output(v, xml_path, VMAF_OUTPUT_FORMAT_XML), "xml");
    text = read_text(xml_path);
    char got[8][64];
    const unsigned n = text ? xml_frame_names(text, got, 8) : 0;
    CHECK(n == 4, "XML frame attributes: %u of 4", n);
    for (unsigned i = 0; i < n && i < 4; i++)
        CHECK(!strcmp(got[i], xml_names[i]), "XML name %u: \"%s\"", i, got[i]);
    free(text);
    vmaf_close(v);

    v = context(0, 0);
    CHECK(!vmaf_import_feature_score(v, "bad\001ctl", 1.0, 0), "import");
    CHECK(!vmaf_import_feature_score(v, "bad\377utf8", 1.0, 0), "import");
    unlink(xml_path);
    unlink(json_path);
    CHECK(vmaf_write_output(v, xml_path, VMAF_OUTPUT_FORMAT_XML) == -EINVAL, "XML: control byte");
    CHECK(vmaf_write_output(v, json_path, VMAF_OUTPUT_FORMAT_JSON) == -EINVAL, "JSON: not UTF-8");
    CHECK(!exists(xml_path) && !exists(json_path), "no file");
    CHECK(!vmaf_write_output(v, csv_path, VMAF_OUTPUT_FORMAT_CSV), "CSV holds any byte");
    vmaf_close(v);
}

/* 9: integer options are integers; no float round trip, no trailing garbage. */
static void test_option_numbers(void)
{
    static const struct { const char *fex, *key, *val; int ok; } cases[] = {
        { "float_motion", "motion_filter_size", "4294967299", 0 },
        { "float_motion", "motion_filter_size", "3abc", 0 },
        { "float_motion", "motion_filter_size", "3.5", 0 },
        { "float_motion", "motion_filter_size", "3", 1 },
        { "motion", "motion_blend_factor", "0.5x", 0 },
        { "motion", "motion_blend_factor", "nan", 0 },
        { "motion", "motion_blend_factor", "0.5", 1 },
        { "adm", "adm_csf_mode", "1e0", 1 },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        VmafContext *v = context(0, 0);
        VmafFeatureDictionary *d = NULL;
        CHECK(!vmaf_feature_dictionary_set(&d, cases[i].key, cases[i].val), "set");
        const int err = vmaf_use_feature(v, cases[i].fex, d);
        CHECK(cases[i].ok ? !err : err == -EINVAL, "%s=%s: %d", cases[i].key, cases[i].val, err);
        vmaf_close(v);
    }
}

/* 11: model files that loaded silently: every case names the key in its message. */
static void test_model_files(void)
{
    static const struct { const char *extra, *svm; int ok; } cases[] = {
        { "\"score_clip\": [0, 100],", "total_sv 1\\nrho 0.25\\nSV\\n2 1:0.25\\n", 1 },
        { "\"score_clip\": [0, 1e999],", "total_sv 1\\nrho 0.25\\nSV\\n2 1:0.25\\n", 0 },
        { "\"slopes\": [1, -1e400],", "total_sv 1\\nrho 0.25\\nSV\\n2 1:0.25\\n", 0 },
        { "\"score_clip\": [100, 0],", "total_sv 1\\nrho 0.25\\nSV\\n2 1:0.25\\n", 0 },
        { "", "total_sv 0\\nrho 0.25\\nSV\\n", 0 },
        { "", "total_sv 1\\nrho 0.25\\nSV\\n2 2:0.25\\n", 0 },
        { "", "total_sv 1\\nrho 0.25\\nSV\\n2 0:0.25\\n", 0 },
        { "\"norm_type\": \"none\",", "total_sv 1\\nrho 0.25\\nSV\\n2 1:0.25\\n", 0 },
        { "\"score_transform\": {\"p0\": 1, \"p0\": 2},", "total_sv 1\\nrho 0.25\\nSV\\n2 1:0.25\\n", 0 },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *path = path_of("model.json");
        FILE *f = fopen(path, "w");
        if (!f) {
            CHECK(0, "cannot write %s", path);
            return;
        }
        fprintf(f, "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"norm_type\": \"none\", "
                   "\"feature_names\": [\"psnr_y\"], %s \"model\": \"svm_type nu_svr\\nkernel_type "
                   "rbf\\ngamma 0.5\\nnr_class 2\\n%s\"}}", cases[i].extra, cases[i].svm);
        fclose(f);
        VmafModel *m = NULL;
        VmafModelConfig cfg = { 0 };
        const int err = vmaf_model_load_from_path(&m, &cfg, path);
        CHECK(cases[i].ok ? !err : err == -EINVAL, "case %u (%s %s): %d", i, cases[i].extra,
              cases[i].svm, err);
        vmaf_model_destroy(m);
    }
}

/* Device selection (Twin VMAF extension): bad arguments are errors, a device beyond the
 * driver's count is -ENODEV, and the count agrees with what a state can be made on. */
static void test_cuda_devices(void)
{
    VmafCudaState *s = (VmafCudaState *)&s;
    CHECK(vmaf_cuda_device_count(NULL) == -EINVAL, "NULL count");
    int n = -1;
    const int err = vmaf_cuda_device_count(&n);
    CHECK(err == 0 || err == -ENODEV || err == -ENOSYS, "count: %d", err);
    CHECK(err ? n == 0 : n >= 0, "count %d", n);
    /* the synchronous init and the asynchronous one (which checks the same before it
     * returns) */
    int (*const init[2])(VmafCudaState **, int) = { vmaf_cuda_state_init_device,
                                                    vmaf_cuda_state_init_async };
    for (int a = 0; a < 2; a++) {
        s = (VmafCudaState *)&s;
        CHECK(init[a](&s, -1) == -EINVAL, "negative device (%d)", a);
        CHECK(init[a](NULL, 0) == -EINVAL, "NULL state (%d)", a);
        s = (VmafCudaState *)&s;
        CHECK(init[a](&s, n + 1000) == (err == -ENOSYS ? -ENOSYS : -ENODEV),
              "device beyond the count (%d)", a);
        CHECK(s == NULL, "no state left behind (%d)", a);
        if (n > 0) { /* freed at once: the async state is still opening (freeing joins it) */
            CHECK(!init[a](&s, n - 1), "last device (%d)", a);
            if (s) vmaf_cuda_state_free(s);
        }
    }
}

int main(int argc, char **argv)
{
    snprintf(scratch, sizeof(scratch), "%s", argc > 1 ? argv[1] : ".");
    mkdir(scratch, 0755);
    test_huge_pool();
    test_sample_range();
    test_empty_output_and_pooling();
    test_name_collisions();
    test_output_names();
    test_option_numbers();
    test_model_files();
    test_cuda_devices();
    printf("hardening: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
