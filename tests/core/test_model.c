/*
 * Unit tests of model loading, prediction, transforms, bootstrap and the built-in models.
 * Each check can fail.
 *
 * test_model MODELS_DIR SCRATCH_DIR
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libvmaf/libvmaf.h"

#include "model.h"
#include "test_util.h"

static const char *scratch;

/* ---- model files ------------------------------------------------------------------- */

/* The JSON text of each model_dict key, or NULL to leave the key out. */
typedef struct Parts {
    const char *model_type, *norm_type, *feature_names, *slopes, *intercepts, *svm;
    const char *extra; /* more "key": value pairs, or NULL */
} Parts;

/* Two features, two support vectors (the second one sparse): see expected_tiny(). */
static const Parts tiny = {
    .model_type = "\"LIBSVMNUSVR\"",
    .norm_type = "\"linear_rescale\"",
    .feature_names = "[\"psnr_y\", \"psnr_cb\"]",
    .slopes = "[0.5, 0.02, 0.03]",
    .intercepts = "[-0.25, -0.1, 0.05]",
    .svm = "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 2\\n"
           "rho 0.25\\nSV\\n1.5 1:0.2 2:0.4 \\n-0.75 1:0.1 \\n\"",
};

static void append(char *buf, size_t sz, const char *fmt, ...)
{
    const size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, sz - n, fmt, ap);
    va_end(ap);
}

static void model_dict_text(char *buf, size_t sz, const Parts *p)
{
    const char *keys[] = { "model_type", "norm_type", "feature_names", "slopes", "intercepts",
                           "model" };
    const char *vals[] = { p->model_type, p->norm_type, p->feature_names, p->slopes,
                           p->intercepts, p->svm };
    buf[0] = '\0';
    append(buf, sz, "{");
    int first = 1;
    for (unsigned i = 0; i < 6; i++) {
        if (!vals[i]) continue;
        append(buf, sz, "%s\"%s\": %s", first ? "" : ", ", keys[i], vals[i]);
        first = 0;
    }
    if (p->extra) append(buf, sz, "%s%s", first ? "" : ", ", p->extra);
    append(buf, sz, "}");
}

static const char *write_file(const char *name, const char *text)
{
    static char path[1024];
    snprintf(path, sizeof(path), "%s/%s", scratch, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("cannot write %s\n", path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    return path;
}

static const char *write_model(const char *name, const Parts *p)
{
    static char text[1 << 16];
    char dict[1 << 15];
    model_dict_text(dict, sizeof(dict), p);
    snprintf(text, sizeof(text), "{\"param_dict\": {\"C\": 4.0}, \"model_dict\": %s}", dict);
    return write_file(name, text);
}

static int load(VmafModel **m, const char *name, const Parts *p, uint64_t flags)
{
    VmafModelConfig cfg = { .name = "vmaf", .flags = flags };
    *m = NULL;
    return vmaf_model_load_from_path(m, &cfg, write_model(name, p));
}

/* ---- prediction ---------------------------------------------------------------------- */

/* The tiny model by hand, for psnr_y = y, psnr_cb = cb and the given rho. */
static double expected_tiny(double y, double cb, double rho)
{
    const double x1 = 0.02 * y + -0.1, x2 = 0.03 * cb + 0.05;
    const double d11 = x1 - 0.2, d12 = x2 - 0.4, d21 = x1 - 0.1;
    const double k1 = exp(-0.5 * (0. + d11 * d11 + d12 * d12));
    const double k2 = exp(-0.5 * (0. + d21 * d21 + x2 * x2)); /* SV 2 has no index 2 */
    const double s = 0. + 1.5 * k1 + -0.75 * k2 - rho;
    return (s - -0.25) / 0.5;
}

static VmafContext *context_with(double y, double cb)
{
    VmafContext *v;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR };
    if (vmaf_init(&v, cfg)) exit(1);
    CHECK(!vmaf_import_feature_score(v, "psnr_y", y, 0), "import");
    CHECK(!vmaf_import_feature_score(v, "psnr_cb", cb, 0), "import");
    return v;
}

static void test_prediction(void)
{
    VmafModel *m;
    CHECK(!load(&m, "tiny.json", &tiny, 0), "tiny model loads");
    if (!m) return;
    VmafContext *v = context_with(30., 40.);
    double s = 0., again = 0., stored = 0.;
    CHECK(!vmaf_score_at_index(v, m, &s, 0), "score");
    CHECK(s == expected_tiny(30., 40., 0.25), "%.17g vs %.17g", s, expected_tiny(30., 40., 0.25));
    CHECK(fabs(s - 1.3644806418516784) < 1e-12, "%.17g (independent value)", s);
    CHECK(!vmaf_feature_score_at_index(v, "vmaf", &stored, 0) && stored == s, "stored as vmaf");
    CHECK(!vmaf_score_at_index(v, m, &again, 0) && again == s, "second call: the stored score");
    CHECK(vmaf_score_at_index(v, m, &again, 1) == -EINVAL, "no features at index 1");
    double pooled;
    CHECK(!vmaf_score_pooled(v, m, VMAF_POOL_METHOD_MEAN, &pooled, 0, 0) && pooled == s, "pooled");
    CHECK(vmaf_score_pooled(v, m, VMAF_POOL_METHOD_UNKNOWN, &pooled, 0, 0) == -EINVAL, "method");
    CHECK(vmaf_score_at_index(NULL, m, &s, 0) == -EINVAL, "NULL context");
    vmaf_close(v);

    /* an SV index past the features is refused (accepted, it would compare a feature that
     * does not exist); a sparse SV (index 1 missing) counts the feature's own square */
    Parts p = tiny;
    p.norm_type = "\"none\"";
    p.svm = "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\n"
            "rho 0.25\\nSV\\n2 1:0.25 3:0.75\\n\"";
    VmafModel *m2 = NULL;
    CHECK(load(&m2, "sparse_past.json", &p, 0) == -EINVAL, "SV index 3 of 2 features refused");
    vmaf_model_destroy(m2);
    m2 = NULL;
    p.svm = "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\n"
            "rho 0.25\\nSV\\n2 2:0.75\\n\"";
    CHECK(!load(&m2, "sparse.json", &p, 0), "loads");
    if (m2) {
        v = context_with(0.5, 1.5);
        CHECK(!vmaf_score_at_index(v, m2, &s, 0), "score");
        const double d2 = 1.5 - 0.75;
        const double want = 0. + 2 * exp(-0.5 * (0. + 0.5 * 0.5 + d2 * d2)) - 0.25;
        CHECK(s == want, "%.17g vs %.17g", s, want);
        vmaf_close(v);
    }
    vmaf_model_destroy(m2);
    vmaf_model_destroy(m);
}

/* ---- transform and clip ------------------------------------------------------------- */

static double transformed(const char *extra, uint64_t load_flags, double y, uint64_t flags)
{
    Parts p = tiny;
    p.extra = extra;
    VmafModel *m;
    if (load(&m, "transform.json", &p, load_flags)) {
        CHECK(0, "model with %s does not load", extra);
        return NAN;
    }
    const double t = vmaf_model_transform_and_clip(m, y, flags);
    vmaf_model_destroy(m);
    return t;
}

static void test_transform(void)
{
    const char *knots = "\"score_transform\": {\"enabled\": true, "
                        "\"knots\": [[0, 0], [50, 60], [100, 100]]}";
    /* first segment starts at x = 0: offset 0, slope 60/50 */
    CHECK(transformed(knots, 0, 25., 0) == 25. * (60. / 50.) + 0., "inside the first segment");
    const double slope2 = (100. - 60.) / (100. - 50.), offset2 = 60. - 50. * slope2;
    CHECK(transformed(knots, 0, 75., 0) == slope2 * 75. + offset2, "second segment");
    CHECK(transformed(knots, 0, 50., 0) == slope2 * 50. + offset2, "a shared knot: later wins");
    CHECK(transformed(knots, 0, -10., 0) == -10. * (60. / 50.) + 0., "extrapolated below");
    CHECK(transformed(knots, 0, 110., 0) == slope2 * 110. + offset2, "extrapolated above");
    CHECK(transformed(knots, 0, 75., VMAF_MODEL_FLAG_DISABLE_TRANSFORM) == 75., "disabled");

    const char *flat = "\"score_transform\": {\"enabled\": true, "
                       "\"knots\": [[10, 10], [50, 10], [100, 20]]}";
    CHECK(transformed(flat, 0, 25., 0) == 10., "flat segment");
    CHECK(transformed(flat, 0, -5., 0) == 10., "flat first segment below the knots");
    const double s = (20. - 10.) / (100. - 50.), o = 10. - 50. * s;
    CHECK(transformed(flat, 0, 150., 0) == s * 150. + o, "last segment above the knots");

    const char *poly = "\"score_transform\": {\"enabled\": true, \"p0\": 1, \"p1\": 2, \"p2\": 0.5}";
    CHECK(transformed(poly, 0, 3., 0) == 0. + 1. + 2. * 3. + 0.5 * 3. * 3., "polynomial");
    const char *p02 = "\"score_transform\": {\"enabled\": true, \"p0\": 1, \"p1\": null, \"p2\": 0.5}";
    CHECK(transformed(p02, 0, 3., 0) == 0. + 1. + 0.5 * 3. * 3., "p1 null");
    const char *lte = "\"score_transform\": {\"enabled\": true, \"p0\": 1, \"p1\": 2, "
                      "\"out_lte_in\": \"true\"}";
    CHECK(transformed(lte, 0, 3., 0) == 3., "out_lte_in keeps the input");
    CHECK(transformed(lte, 0, -3., 0) == 0. + 1. + 2. * -3., "out_lte_in, output below");
    const char *gte = "\"score_transform\": {\"enabled\": true, \"p1\": 0.5, \"out_gte_in\": \"true\"}";
    CHECK(transformed(gte, 0, 4., 0) == 4., "out_gte_in keeps the input");
    CHECK(transformed(gte, 0, -4., 0) == -2., "out_gte_in, output above");
    const char *both = "\"score_transform\": {\"enabled\": true, \"p1\": 2, \"knots\": "
                       "[[0, 0], [10, 5]]}";
    CHECK(transformed(both, 0, 3., 0) == (5. - 0.) / 10. * (0. + 2. * 3.) + 0.,
          "polynomial, then knots");

    /* v0.6.1 style: no "enabled" key, so only VMAF_MODEL_FLAG_ENABLE_TRANSFORM turns it on */
    const char *off = "\"score_transform\": {\"p0\": 1, \"p1\": 2}";
    CHECK(transformed(off, 0, 3., 0) == 3., "not enabled");
    CHECK(transformed(off, VMAF_MODEL_FLAG_ENABLE_TRANSFORM, 3., 0) == 7., "enabled by flag");

    const char *clip = "\"score_clip\": [0.0, 100.0]";
    CHECK(transformed(clip, 0, 150., 0) == 100., "clipped above");
    CHECK(transformed(clip, 0, -3., 0) == 0., "clipped below");
    CHECK(transformed(clip, 0, 42., 0) == 42., "inside");
    CHECK(transformed(clip, 0, 150., VMAF_MODEL_FLAG_DISABLE_CLIP) == 150., "clip off per call");
    CHECK(transformed(clip, VMAF_MODEL_FLAG_DISABLE_CLIP, 150., 0) == 150., "clip off at load");
}

/* ---- bootstrap ----------------------------------------------------------------------- */

static double clip01(double x)
{
    x = x < 0. ? 0. : x;
    return x > 1. ? 1. : x;
}

static void test_bootstrap_math(void)
{
    VmafModel *m;
    CHECK(!load(&m, "plain.json", &tiny, 0), "loads");
    if (!m) return;
    double raw[4] = { 4., 1., 3., 2. };
    VmafModelCollectionScore sc;
    vmaf_model_bootstrap(m, raw, 4, &sc);
    const double mean = (0. + 4. + 1. + 3. + 2.) / 4;
    double ssd = 0.;
    const double v[4] = { 4., 1., 3., 2. };
    for (int i = 0; i < 4; i++) ssd += (v[i] - mean) * (v[i] - mean);
    const double slope = ((mean + 0.01) - (mean - 0.01)) / (2.0 * 0.01);
    CHECK(sc.type == VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP, "type");
    CHECK(sc.bootstrap.bagging_score == 2.5, "mean %.17g", sc.bootstrap.bagging_score);
    CHECK(sc.bootstrap.stddev == sqrt(ssd / 4) * slope, "stddev %.17g", sc.bootstrap.stddev);
    /* p = 2.5 * 3 / 100 = 0.075 between sorted[0] = 1 and sorted[1] = 2 */
    CHECK(sc.bootstrap.ci.p95.lo == 1. * (1 - 0.075) + 2. * (0.075 - 0), "lo %.17g",
          sc.bootstrap.ci.p95.lo);
    CHECK(fabs(sc.bootstrap.ci.p95.lo - 1.075) < 1e-15, "lo");
    /* p = 97.5 * 3 / 100 = 2.925 between sorted[2] = 3 and sorted[3] = 4 */
    CHECK(sc.bootstrap.ci.p95.hi == 3. * (3 - 2.925) + 4. * (2.925 - 2), "hi %.17g",
          sc.bootstrap.ci.p95.hi);
    CHECK(raw[0] == 1. && raw[3] == 4., "sorted in place");
    double one[1] = { 7. };
    vmaf_model_bootstrap(m, one, 1, &sc);
    CHECK(sc.bootstrap.ci.p95.lo == 7. && sc.bootstrap.ci.p95.hi == 7. &&
          sc.bootstrap.stddev == 0., "one member");
    vmaf_model_destroy(m);

    /* the transform of member 1 maps mean, bounds and the stddev's slope */
    Parts p = tiny;
    p.extra = "\"score_transform\": {\"enabled\": true, \"p1\": 2}";
    CHECK(!load(&m, "doubling.json", &p, 0), "loads");
    if (!m) return;
    double r2[3] = { 1., 2., 6. };
    vmaf_model_bootstrap(m, r2, 3, &sc);
    const double mu = (0. + 1. + 2. + 6.) / 3;
    CHECK(sc.bootstrap.bagging_score == 0. + 2. * mu, "bagging transformed");
    CHECK(sc.bootstrap.ci.p95.hi == 0. + 2. * (2. * (2 - 1.95) + 6. * (1.95 - 1)), "hi");
    const double sd = sqrt((0. + (1. - mu) * (1. - mu) + (2. - mu) * (2. - mu) +
                            (6. - mu) * (6. - mu)) / 3);
    const double sl = ((0. + 2. * (mu + 0.01)) - (0. + 2. * (mu - 0.01))) / (2.0 * 0.01);
    CHECK(sc.bootstrap.stddev == sd * sl, "%.17g vs %.17g", sc.bootstrap.stddev, sd * sl);
    vmaf_model_destroy(m);
}

/* A collection: entry "0" and three members differing in rho, clipped to [0, 1]. */
static void test_collection(void)
{
    static const double rho[4] = { 0.25, 0.25, 0.5, 0.75 };
    char text[1 << 16] = "{";
    for (int i = 0; i < 4; i++) {
        char svm[256], dict[8192];
        snprintf(svm, sizeof(svm),
                 "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 2\\n"
                 "rho %g\\nSV\\n1.5 1:0.2 2:0.4 \\n-0.75 1:0.1 \\n\"", rho[i]);
        Parts p = tiny;
        p.model_type = "\"BOOTSTRAP_LIBSVMNUSVR\"";
        p.svm = svm;
        p.extra = "\"score_clip\": [0.0, 1.0]";
        model_dict_text(dict, sizeof(dict), &p);
        append(text, sizeof(text), "%s\"%d\": {\"model_dict\": %s}", i ? ", " : "", i, dict);
    }
    append(text, sizeof(text), "}");
    const char *path = write_file("collection.json", text);

    VmafModelConfig cfg = { .name = "bs" };
    VmafModel *m = NULL;
    VmafModelCollection *mc = NULL;
    CHECK(vmaf_model_load_from_path(&m, &cfg, path) == -EINVAL, "not a single model");
    CHECK(!vmaf_model_collection_load_from_path(&m, &mc, &cfg, path), "collection loads");
    if (!mc) return;
    CHECK(!strcmp(m->name, "bs") && !strcmp(mc->name, "bs") && mc->cnt == 3 &&
          !strcmp(mc->model[0]->name, "bs_0001") && !strcmp(mc->model[2]->name, "bs_0003"),
          "names");

    VmafContext *v = context_with(30., 40.);
    VmafModelCollectionScore sc;
    CHECK(!vmaf_score_at_index_model_collection(v, mc, &sc, 0), "score");
    double r[3], sorted[3];
    for (int i = 0; i < 3; i++) r[i] = expected_tiny(30., 40., rho[i + 1]);
    /* r[0] > 1 > r[1] > r[2] > 0: sorted is the reverse */
    for (int i = 0; i < 3; i++) sorted[i] = r[2 - i];
    const double mean = (0. + r[0] + r[1] + r[2]) / 3;
    const double ssd = 0. + (r[0] - mean) * (r[0] - mean) + (r[1] - mean) * (r[1] - mean) +
                       (r[2] - mean) * (r[2] - mean);
    const double lo = sorted[0] * (1 - 0.05) + sorted[1] * (0.05 - 0);
    const double hi = sorted[1] * (2 - 1.95) + sorted[2] * (1.95 - 1);
    const double slope = (clip01(mean + 0.01) - clip01(mean - 0.01)) / (2.0 * 0.01);
    CHECK(r[0] > 1. && hi > 1., "the test needs clipping: %g %g", r[0], hi);
    CHECK(sc.bootstrap.bagging_score == clip01(mean), "bagging %.17g", sc.bootstrap.bagging_score);
    CHECK(sc.bootstrap.stddev == sqrt(ssd / 3) * slope, "stddev %.17g", sc.bootstrap.stddev);
    CHECK(sc.bootstrap.ci.p95.lo == clip01(lo), "lo %.17g vs %.17g", sc.bootstrap.ci.p95.lo, lo);
    CHECK(sc.bootstrap.ci.p95.hi == 1., "hi clipped: %.17g", sc.bootstrap.ci.p95.hi);

    double x;
    CHECK(!vmaf_feature_score_at_index(v, "bs_0001", &x, 0) && x == 1., "member 1 clipped");
    CHECK(!vmaf_feature_score_at_index(v, "bs_0003", &x, 0) && x == r[2], "member 3");
    CHECK(!vmaf_feature_score_at_index(v, "bs_bagging", &x, 0) && x == clip01(mean), "bagging");
    CHECK(!vmaf_feature_score_at_index(v, "bs_ci_p95_hi", &x, 0) && x == 1., "hi stored");
    VmafModelCollectionScore again;
    CHECK(!vmaf_score_at_index_model_collection(v, mc, &again, 0) &&
          !memcmp(&again.bootstrap, &sc.bootstrap, sizeof(sc.bootstrap)), "asked again");
    VmafModelCollectionScore pooled;
    CHECK(!vmaf_score_pooled_model_collection(v, mc, VMAF_POOL_METHOD_MEAN, &pooled, 0, 0) &&
          pooled.bootstrap.stddev == sc.bootstrap.stddev, "pooled");
    double single;
    CHECK(!vmaf_score_at_index(v, m, &single, 0) && single == 1., "entry 0 as a model");
    vmaf_close(v);

    /* an overload reaches entry 0 and every member */
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "enable_chroma", "false");
    CHECK(!vmaf_model_collection_feature_overload(m, &mc, "psnr", d), "overload");
    CHECK(!strcmp(mc->model[1]->feature[0].collector_name, "psnr_y"), "psnr has no P options");
    CHECK(vmaf_dictionary_get(mc->model[2]->feature[1].opts, "enable_chroma") &&
          vmaf_dictionary_get(m->feature[0].opts, "enable_chroma"), "options everywhere");
    vmaf_model_destroy(m);
    vmaf_model_collection_destroy(mc);

    /* one entry is not a collection; plain LIBSVMNUSVR members are not bootstrap models */
    char dict[8192];
    model_dict_text(dict, sizeof(dict), &tiny);
    snprintf(text, sizeof(text), "{\"0\": {\"model_dict\": %s}}", dict);
    m = NULL;
    mc = NULL;
    CHECK(vmaf_model_collection_load_from_path(&m, &mc, &cfg, write_file("one.json", text)) ==
          -EINVAL && !m && !mc, "one entry");
    snprintf(text, sizeof(text), "{\"0\": {\"model_dict\": %s}, \"1\": {\"model_dict\": %s}}", dict,
             dict);
    CHECK(vmaf_model_collection_load_from_path(&m, &mc, &cfg, write_file("plain2.json", text)) ==
          -EINVAL && !m && !mc, "LIBSVMNUSVR members");
}

/* ---- bad model files ----------------------------------------------------------------- */

static void refused(const char *what, const Parts *p, uint64_t flags)
{
    VmafModel *m = NULL;
    const int err = load(&m, "bad.json", p, flags);
    CHECK(err == -EINVAL && !m, "%s: got %d", what, err);
    vmaf_model_destroy(m);
}

static void test_bad_files(void)
{
    Parts p;
#define BAD(field, value, what)  \
    do {                         \
        p = tiny;                \
        p.field = value;         \
        refused(what, &p, 0);    \
    } while (0)
    BAD(norm_type, NULL, "missing norm_type");
    BAD(model_type, NULL, "missing model_type");
    BAD(feature_names, NULL, "missing feature_names");
    BAD(svm, NULL, "missing model");
    BAD(slopes, NULL, "missing slopes");
    BAD(intercepts, NULL, "missing intercepts");
    BAD(norm_type, "\"log\"", "unknown norm_type");
    BAD(model_type, "3", "model_type a number");
    BAD(feature_names, "\"psnr_y\"", "feature_names a string");
    BAD(feature_names, "[\"psnr_y\", 3]", "a feature name a number");
    BAD(feature_names, "[]", "no features");
    BAD(slopes, "[0.5, \"0.02\", 0.03]", "a slope a string");
    BAD(intercepts, "[-0.25, -0.1]", "too few intercepts");
    BAD(svm, "[1, 2]", "model an array");
    BAD(feature_names, "[\"psnr_y\", \"VMAF_feature_nonexistent_score\"]", "unknown feature");
    BAD(extra, "\"score_clip\": [0, \"100\"]", "score_clip with a string");
    BAD(extra, "\"score_clip\": 100", "score_clip a number");
    BAD(extra, "\"score_transform\": {\"enabled\": \"yes\"}", "enabled a string");
    BAD(extra, "\"score_transform\": {\"enabled\": true, \"p0\": \"1\"}", "p0 a string");
    BAD(extra, "\"score_transform\": {\"out_lte_in\": true}", "out_lte_in a boolean");
    BAD(extra, "\"score_transform\": {\"enabled\": true, \"knots\": [[0, 0], [1]]}", "short knot");
    BAD(extra, "\"score_transform\": {\"enabled\": true, \"knots\": [[0, 5], [1, 2]]}",
        "decreasing knots");
    BAD(extra, "\"score_transform\": {\"enabled\": true, \"knots\": [[0,0],[1,1],[2,2],[3,3],"
               "[4,4],[5,5],[6,6],[7,7],[8,8],[9,9],[10,10]]}", "11 knots");
    BAD(extra, "\"chroma_correction_parameter\": 120", "chroma correction without its features");
    BAD(extra, "\"chroma_correction_parameter\": \"120\"", "chroma correction a string");
    BAD(extra, "\"feature_opts_dicts\": [{\"enable_chroma\": [1]}, {}]", "option an array");
    BAD(extra, "\"feature_opts_dicts\": {}", "feature_opts_dicts an object");
    p = tiny;
    p.feature_names = "[\"VMAF_integer_feature_motion2_score\", \"psnr_y\"]";
    p.extra = "\"feature_opts_dicts\": [{\"motion_force_zero\": \"maybe\"}]";
    refused("an option value the extractor refuses", &p, 0);

    /* libsvm text */
    static const char *const svms[] = {
        "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0.25\\n\"",
        "\"svm_type nu_svr\\nkernel_type linear\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 1:1\\n\"",
        "\"svm_type c_svc\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 1:1\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\ngamma abc\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 1:1\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 2\\nrho 0\\nSV\\n1 1:1\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 1=1\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 1:x\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\nx 1:1\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 1:1\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 1:1\\n2 1:1\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 3\\ntotal_sv 1\\nrho 0 0 0\\nSV\\n1 1:1\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\nbogus 1\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 1:1\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 -1:1\\n\"",
        "\"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho nan\\nSV\\n1 1:1\\n\"",
        "\"\"",
    };
    for (unsigned i = 0; i < sizeof(svms) / sizeof(svms[0]); i++) {
        char what[32];
        snprintf(what, sizeof(what), "libsvm text %u", i);
        p = tiny;
        p.svm = svms[i];
        refused(what, &p, 0);
    }

    /* 65 features */
    char names[8192] = "[", values[2048] = "[0";
    for (int i = 0; i < 65; i++) {
        append(names, sizeof(names), "%s\"psnr_y\"", i ? ", " : "");
        append(values, sizeof(values), ", 1");
    }
    append(names, sizeof(names), "]");
    append(values, sizeof(values), "]");
    p = tiny;
    p.feature_names = names;
    p.slopes = p.intercepts = values;
    refused("65 features", &p, 0);

    /* not a model file at all, and truncated JSON */
    VmafModelConfig cfg = { 0 };
    VmafModel *m = NULL;
    CHECK(vmaf_model_load_from_path(&m, &cfg, write_file("nodict.json", "{\"param_dict\": {}}")) ==
          -EINVAL && !m, "missing model_dict");
    CHECK(vmaf_model_load_from_path(&m, &cfg, write_file("array.json", "[1, 2]")) == -EINVAL &&
          !m, "an array");
    char full[1 << 15], dict[1 << 14];
    model_dict_text(dict, sizeof(dict), &tiny);
    snprintf(full, sizeof(full), "{\"model_dict\": %s}", dict);
    for (size_t cut = 1; cut < strlen(full); cut += 7) {
        char part[1 << 15];
        snprintf(part, sizeof(part), "%.*s", (int)cut, full);
        const int err = vmaf_model_load_from_path(&m, &cfg, write_file("cut.json", part));
        CHECK(err == -EINVAL && !m, "truncated at %zu: %d", cut, err);
        vmaf_model_destroy(m);
        m = NULL;
    }
    char nofile[1024];
    snprintf(nofile, sizeof(nofile), "%s/does_not_exist.json", scratch);
    CHECK(vmaf_model_load_from_path(&m, &cfg, nofile) == -EINVAL, "no such file");
    CHECK(vmaf_model_load(&m, &cfg, "vmaf_v9.9.9") == -EINVAL, "no such version");
    CHECK(vmaf_model_load(&m, &cfg, NULL) == -EINVAL, "NULL version");
    CHECK(vmaf_model_load_from_path(NULL, &cfg, nofile) == -EINVAL, "NULL model");
}

/* ---- feature names, options and overloads --------------------------------------------- */

static void test_options_and_overloads(void)
{
    Parts p = tiny;
    p.feature_names = "[\"VMAF_integer_feature_motion2_score\", \"psnr_y\"]";
    p.extra = "\"feature_opts_dicts\": [{\"motion_max_val\": 18.00000001, "
              "\"motion_force_zero\": false}, {}, {\"unused\": 1}]";
    VmafModel *m;
    CHECK(!load(&m, "opts.json", &p, 0), "loads");
    if (!m) return;
    /* numbers go through strtof and "%g": 18.00000001 is "18" */
    const VmafDictionaryEntry *e = vmaf_dictionary_get(m->feature[0].opts, "motion_max_val");
    CHECK(e && !strcmp(e->val, "18"), "normalized: %s", e ? e->val : "(none)");
    CHECK(!strcmp(m->feature[0].collector_name, "integer_motion2_mmxv_18"), "name %s",
          m->feature[0].collector_name);
    CHECK(!strcmp(m->feature[1].collector_name, "psnr_y"), "plain name");

    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "motion_force_zero", "maybe");
    CHECK(vmaf_model_feature_overload(m, "motion", d) == -EINVAL, "refused value");
    CHECK(!strcmp(m->feature[0].collector_name, "integer_motion2_mmxv_18"), "unchanged");

    d = NULL;
    vmaf_feature_dictionary_set(&d, "motion_force_zero", "true");
    vmaf_feature_dictionary_set(&d, "motion_max_val", "20.0");
    CHECK(!vmaf_model_feature_overload(m, "motion", d), "overload");
    CHECK(!strcmp(m->feature[0].collector_name, "integer_motion2_force_0_mmxv_20"), "renamed: %s",
          m->feature[0].collector_name);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "x", "1");
    CHECK(!vmaf_model_feature_overload(m, "vif_not_used", d), "unused extractor: ignored");
    CHECK(vmaf_model_feature_overload(m, "motion", NULL) == -EINVAL, "NULL options");
    d = NULL;
    vmaf_feature_dictionary_set(&d, "x", "1");
    CHECK(vmaf_model_feature_overload(NULL, "motion", d) == -EINVAL, "NULL model");
    vmaf_feature_dictionary_free(&d); /* left with the caller, as the reference leaves it */

    /* the prediction reads the renamed feature */
    VmafContext *v;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    vmaf_init(&v, cfg);
    vmaf_import_feature_score(v, "VMAF_integer_feature_motion2_score", 1., 0);
    vmaf_import_feature_score(v, "psnr_y", 30., 0);
    double s;
    CHECK(vmaf_score_at_index(v, m, &s, 0) == -EINVAL, "old name not used");
    vmaf_import_feature_score(v, "integer_motion2_force_0_mmxv_20", 1., 0);
    CHECK(!vmaf_score_at_index(v, m, &s, 0), "new name used");
    /* registering the model's extractors uses its options */
    CHECK(!vmaf_use_features_from_model(v, m), "use features");
    CHECK(vmaf_use_features_from_model(v, NULL) == -EINVAL, "NULL model");
    vmaf_close(v);

    p.extra = "\"feature_opts_dicts\": [{\"motion_max_val\": 18, \"motion_max_val\": 19}]";
    refused("an option given twice with different values", &p, 0);
    vmaf_model_destroy(m);
}

/* ---- built-in models ------------------------------------------------------------------ */

static void test_builtin(const char *models_dir)
{
    unsigned n = 0;
    for (const char *const *v = vmaf_model_builtin_versions(); *v; v++, n++) {
        const char *data;
        size_t len;
        CHECK(!vmaf_model_builtin(*v, &data, &len), "%s listed but absent", *v);
        /* byte for byte the model file */
        static const char *const sub[] = { "", "vmaf_v1.0.16/", "vmaf_v1.0.16_hfr/" };
        FILE *f = NULL;
        for (unsigned i = 0; !f && i < 3; i++) {
            char path[1024];
            snprintf(path, sizeof(path), "%s/%s%s.json", models_dir, sub[i], *v);
            f = fopen(path, "rb");
        }
        CHECK(f, "%s: no model file", *v);
        if (!f) continue;
        char *file = malloc(len + 2);
        const size_t got = fread(file, 1, len + 1, f);
        fclose(f);
        CHECK(got == len && !memcmp(file, data, len), "%s: embedded bytes differ", *v);
        free(file);
    }
    CHECK(n >= 1, "no built-in models");

    /* version= and path= give the same bits, where the extractors exist */
    static const struct {
        const char *version, *file;
        bool collection;
    } pairs[] = {
        { "vmaf_v0.6.1", "vmaf_v0.6.1.json", false },
        { "vmaf_v0.6.1neg", "vmaf_v0.6.1neg.json", false },
        { "vmaf_4k_v0.6.1", "vmaf_4k_v0.6.1.json", false },
        { "vmaf_b_v0.6.3", "vmaf_b_v0.6.3.json", true },
    };
    const bool extractors = vmaf_feature_extractor_by_name("vif") &&
                            vmaf_feature_extractor_by_name("adm") &&
                            vmaf_feature_extractor_by_name("motion");
    if (!extractors) printf("note: vif/adm not built yet; version= vs path= not compared\n");
    for (unsigned k = 0; extractors && k < sizeof(pairs) / sizeof(pairs[0]); k++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", models_dir, pairs[k].file);
        VmafModelConfig cfg = { .name = "vmaf" };
        VmafModel *a = NULL, *b = NULL;
        VmafModelCollection *ca = NULL, *cb = NULL;
        int ea, eb;
        if (pairs[k].collection) {
            ea = vmaf_model_collection_load(&a, &ca, &cfg, pairs[k].version);
            eb = vmaf_model_collection_load_from_path(&b, &cb, &cfg, path);
        } else {
            ea = vmaf_model_load(&a, &cfg, pairs[k].version);
            eb = vmaf_model_load_from_path(&b, &cfg, path);
        }
        CHECK(!ea && !eb, "%s: %d %d", pairs[k].version, ea, eb);
        if (!ea && !eb) {
            VmafContext *va, *vb;
            VmafConfiguration c = { .log_level = VMAF_LOG_LEVEL_ERROR };
            vmaf_init(&va, c);
            vmaf_init(&vb, c);
            for (unsigned i = 0; i < a->n_features; i++) {
                CHECK(!strcmp(a->feature[i].collector_name, b->feature[i].collector_name), "name");
                const double x = 0.3 + 0.11 * i;
                vmaf_import_feature_score(va, a->feature[i].collector_name, x, 0);
                vmaf_import_feature_score(vb, b->feature[i].collector_name, x, 0);
            }
            double sa, sb;
            CHECK(!vmaf_score_at_index(va, a, &sa, 0) && !vmaf_score_at_index(vb, b, &sb, 0) &&
                  !memcmp(&sa, &sb, sizeof(sa)), "%s: %.17g vs %.17g", pairs[k].version, sa, sb);
            if (ca && cb) {
                VmafModelCollectionScore qa, qb;
                CHECK(!vmaf_score_at_index_model_collection(va, ca, &qa, 0) &&
                      !vmaf_score_at_index_model_collection(vb, cb, &qb, 0) &&
                      !memcmp(&qa.bootstrap, &qb.bootstrap, sizeof(qa.bootstrap)), "%s: bootstrap", pairs[k].version);
            }
            vmaf_close(va);
            vmaf_close(vb);
        }
        vmaf_model_destroy(a);
        vmaf_model_destroy(b);
        vmaf_model_collection_destroy(ca);
        vmaf_model_collection_destroy(cb);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s MODELS_DIR SCRATCH_DIR\n", argv[0]);
        return 2;
    }
    scratch = argv[2];
    mkdir(scratch, 0755);
    test_prediction();
    test_transform();
    test_bootstrap_math();
    test_collection();
    test_bad_files();
    test_options_and_overloads();
    test_builtin(argv[1]);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
