/*
 * Ownership at the public entry points, case by case as reference libvmaf's: each case is
 * written as a caller of the reference would write it (free what the call left, never what
 * it took), so that under the sanitizers a difference is a double free or a leak, and in
 * any build a picture's ref field says whether the call kept it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "test_util.h"

static VmafFeatureDictionary *dict(const char *key, const char *val)
{
    VmafFeatureDictionary *d = NULL;
    CHECK(!vmaf_feature_dictionary_set(&d, key, val), "set %s", key);
    return d;
}

static VmafContext *context(unsigned threads)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE, .n_threads = threads };
    CHECK(!vmaf_init(&v, cfg), "init");
    return v;
}

/* vmaf_model_feature_overload: NULL arguments leave the dictionary with the caller; a
 * refused value (which the reference accepts) and success take it. */
static void test_model_overload(void)
{
    VmafModel *m = NULL;
    CHECK(!vmaf_model_load(&m, &(VmafModelConfig){ .name = "vmaf" }, "vmaf_v0.6.1"), "load");
    if (!m) return;
    VmafFeatureDictionary *d = dict("motion_force_zero", "true");
    CHECK(vmaf_model_feature_overload(NULL, "motion", d) == -EINVAL, "NULL model");
    CHECK(!vmaf_feature_dictionary_free(&d), "the caller frees it (NULL model)");
    d = dict("motion_force_zero", "true");
    CHECK(vmaf_model_feature_overload(m, NULL, d) == -EINVAL, "NULL name");
    CHECK(!vmaf_feature_dictionary_free(&d), "the caller frees it (NULL name)");
    CHECK(vmaf_model_feature_overload(m, "motion", NULL) == -EINVAL, "NULL dictionary");
    d = dict("vif_enhn_gain_limit", "0.5"); /* below the option's range: refused here */
    CHECK(vmaf_model_feature_overload(m, "vif", d) == -EINVAL, "refused value");
    d = dict("motion_force_zero", "true"); /* the refused one was taken: not freed here */
    CHECK(!vmaf_model_feature_overload(m, "motion", d), "overload");
    d = dict("x", "1");
    CHECK(!vmaf_model_feature_overload(m, "cambi", d), "an extractor the model does not use");
    vmaf_model_destroy(m);
}

/* vmaf_model_collection_feature_overload: the same rule for entry "0" (model); a NULL
 * collection also leaves the dictionary with the caller. */
static void test_collection_overload(void)
{
    VmafModel *m = NULL;
    VmafModelCollection *mc = NULL;
    CHECK(!vmaf_model_collection_load(&m, &mc, &(VmafModelConfig){ .name = "b" },
                                      "vmaf_b_v0.6.3"),
          "load collection");
    if (!m || !mc) return;
    VmafFeatureDictionary *d = dict("motion_force_zero", "true");
    CHECK(vmaf_model_collection_feature_overload(m, NULL, "motion", d) == -EINVAL,
          "NULL collection");
    CHECK(!vmaf_feature_dictionary_free(&d), "the caller frees it (NULL collection)");
    VmafModelCollection *none = NULL;
    d = dict("motion_force_zero", "true");
    CHECK(vmaf_model_collection_feature_overload(m, &none, "motion", d) == -EINVAL,
          "NULL *collection");
    CHECK(!vmaf_feature_dictionary_free(&d), "the caller frees it (NULL *collection)");
    d = dict("motion_force_zero", "true");
    CHECK(vmaf_model_collection_feature_overload(NULL, &mc, "motion", d) == -EINVAL,
          "NULL model");
    CHECK(!vmaf_feature_dictionary_free(&d), "the caller frees it (NULL model)");
    d = dict("motion_force_zero", "true");
    CHECK(vmaf_model_collection_feature_overload(m, &mc, NULL, d) == -EINVAL, "NULL name");
    CHECK(!vmaf_feature_dictionary_free(&d), "the caller frees it (NULL name)");
    d = dict("motion_force_zero", "true");
    CHECK(!vmaf_model_collection_feature_overload(m, &mc, "motion", d), "overload");
    d = dict("vif_enhn_gain_limit", "0.5");
    CHECK(vmaf_model_collection_feature_overload(m, &mc, "vif", d) == -EINVAL, "refused value");
    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(m);
}

/* vmaf_use_feature: NULL arguments and an unknown name leave the dictionary with the
 * caller; a known extractor takes it, also when it refuses an option value. */
static void test_use_feature(void)
{
    VmafContext *v = context(0);
    VmafFeatureDictionary *d = dict("enable_chroma", "false");
    CHECK(vmaf_use_feature(NULL, "psnr", d) == -EINVAL, "NULL context");
    CHECK(vmaf_use_feature(v, NULL, d) == -EINVAL, "NULL name");
    CHECK(vmaf_use_feature(v, "nosuch", d) == -EINVAL, "unknown extractor");
    CHECK(!vmaf_feature_dictionary_free(&d), "the caller frees it");
    d = dict("motion_max_val", "-5"); /* out of range */
    CHECK(vmaf_use_feature(v, "motion", d) == -EINVAL, "refused value");
    d = dict("enable_chroma", "false");
    CHECK(!vmaf_use_feature(v, "psnr", d), "psnr");
    d = dict("enable_chroma", "false"); /* the same extractor and parameters: dropped */
    CHECK(!vmaf_use_feature(v, "psnr", d), "psnr again");
    vmaf_close(v);
}

static void pictures(VmafPicture *r, VmafPicture *d, unsigned w, unsigned h,
                     enum VmafPixelFormat fmt)
{
    CHECK(!vmaf_picture_alloc(r, fmt, 8, w, h), "alloc ref");
    CHECK(!vmaf_picture_alloc(d, fmt, 8, w, h), "alloc dist");
}

/* vmaf_read_pictures: argument errors and pictures that do not match stay with the caller;
 * an extractor's failure leaves them with the caller where the reference runs extractors in
 * the caller's thread (n_threads 0) and takes them with worker threads; success takes them. */
static void test_read_pictures(void)
{
    for (unsigned threads = 0; threads <= 1; threads++) {
        VmafContext *v = context(threads);
        CHECK(!vmaf_use_feature(v, "psnr", NULL), "psnr");
        VmafPicture r, d;
        pictures(&r, &d, 16, 16, VMAF_PIX_FMT_YUV420P);
        CHECK(vmaf_read_pictures(v, &r, NULL, 0) == -EINVAL, "one NULL");
        CHECK(r.ref, "one NULL: kept");
        CHECK(vmaf_read_pictures(NULL, &r, &d, 0) == -EINVAL, "NULL context");
        CHECK(r.ref && d.ref, "NULL context: kept");
        vmaf_picture_unref(&d);
        CHECK(!vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 16, 18), "alloc");
        CHECK(vmaf_read_pictures(v, &r, &d, 0) == -EINVAL, "size mismatch");
        CHECK(r.ref && d.ref, "size mismatch: kept (threads %u)", threads);
        CHECK(!vmaf_picture_unref(&r) && !vmaf_picture_unref(&d), "the caller releases them");

        pictures(&r, &d, 16, 16, VMAF_PIX_FMT_YUV420P);
        CHECK(!vmaf_read_pictures(v, &r, &d, 0), "first");
        CHECK(!r.ref && !d.ref, "first: taken");
        pictures(&r, &d, 16, 16, VMAF_PIX_FMT_YUV444P);
        CHECK(vmaf_read_pictures(v, &r, &d, 1) == -EINVAL, "format changed");
        CHECK(r.ref && d.ref, "format changed: kept (threads %u)", threads);
        vmaf_picture_unref(&r);
        vmaf_picture_unref(&d);

        /* psnr (temporal) runs in the caller's thread in both modes: index 0 again fails in
         * the extractor, as it stores its score */
        pictures(&r, &d, 16, 16, VMAF_PIX_FMT_YUV420P);
        const int err = vmaf_read_pictures(v, &r, &d, 0);
        CHECK(err < 0, "index 0 twice: %d", err);
        if (threads) {
            CHECK(!r.ref && !d.ref, "extractor failure with threads: taken");
        } else {
            CHECK(r.ref && d.ref, "extractor failure without threads: kept");
            vmaf_picture_unref(&r);
            vmaf_picture_unref(&d);
        }
        CHECK(!vmaf_read_pictures(v, NULL, NULL, 0), "flush");
        pictures(&r, &d, 16, 16, VMAF_PIX_FMT_YUV420P);
        CHECK(vmaf_read_pictures(v, &r, &d, 2) == -EINVAL, "after the flush");
        CHECK(r.ref && d.ref, "after the flush: kept");
        vmaf_picture_unref(&r);
        vmaf_picture_unref(&d);
        vmaf_close(v);
    }
}

/* A model is only read by vmaf_use_features_from_model: it may go before the frames. */
static void test_model_destroyed_early(void)
{
    VmafContext *v = context(0);
    VmafModel *m = NULL;
    CHECK(!vmaf_model_load(&m, &(VmafModelConfig){ .name = "vmaf" }, "vmaf_v0.6.1"), "load");
    CHECK(!vmaf_use_features_from_model(v, m), "use");
    vmaf_model_destroy(m);
    for (unsigned i = 0; i < 2; i++) {
        VmafPicture r, d;
        pictures(&r, &d, 64, 64, VMAF_PIX_FMT_YUV420P);
        CHECK(!vmaf_read_pictures(v, &r, &d, i), "frame %u", i);
    }
    CHECK(!vmaf_read_pictures(v, NULL, NULL, 0), "flush");
    double s;
    CHECK(!vmaf_feature_score_at_index(v, "VMAF_integer_feature_vif_scale0_score", &s, 1),
          "a feature of the destroyed model");
    vmaf_close(v);
}

static void test_release_calls(void)
{
    CHECK(vmaf_feature_dictionary_free(NULL) == -EINVAL, "dictionary_free(NULL)");
    VmafFeatureDictionary *d = NULL;
    CHECK(!vmaf_feature_dictionary_free(&d), "dictionary_free(&NULL)");
    d = dict("a", "1");
    CHECK(!vmaf_feature_dictionary_free(&d) && !d, "freed and cleared");
    VmafPicture p;
    CHECK(!vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV420P, 8, 8, 8), "alloc");
    CHECK(!vmaf_picture_unref(&p), "unref");
    CHECK(vmaf_picture_unref(&p) == -EINVAL, "second unref refused");
    CHECK(vmaf_picture_unref(NULL) == -EINVAL, "unref(NULL)");
    vmaf_model_destroy(NULL);
    vmaf_model_collection_destroy(NULL);
    CHECK(vmaf_close(NULL) == -EINVAL, "close(NULL)");
}

int main(void)
{
    test_model_overload();
    test_collection_overload();
    test_use_feature();
    test_read_pictures();
    test_model_destroyed_early();
    test_release_calls();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
