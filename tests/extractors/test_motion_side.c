/*
 * Unit test of float_motion's reference side (src/feature/float_motion.c: the blurred planes
 * of a reference frame made once for the contexts that score one reference, each copying
 * them into its own slots).
 *
 * 1. Through the API: ladders of rungs scoring "float_motion" with different options against
 *    single contexts of the same pairs, every output byte for byte and rung 0's scores by
 *    name (tests/extractors/side_ladder.h), at 8..16 bits, odd sizes, n_threads 0, 1 and 2;
 *    the number of products each reference picture made is the number of keys among the
 *    rungs that blur (motion_filter_size 0 and 5 pick one kernel; debug, motion_add_scale1,
 *    motion_fps_weight and the blend are not in the key; motion_add_uv and another kernel
 *    are; motion_force_zero blurs nothing), so each is made once per frame.
 * 2. side_nowait: an instance asked for a frame whose product another reader is making
 *    returns -EAGAIN having stored nothing and kept its state (asked again, its scores are
 *    a single instance's); a product that failed is made by the next reader.
 *
 * Exit status 0 when every check passes; the case is printed on failure.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/float_filter.h"

#define TEST_MAX_PRINTED 40
#include "test_util.h"

#include "side_ladder.h"
#include "twins/test_twin_run.h"

/* ------------------------------------------------------------------------------------- */
/* 1. Through the API                                                                    */

static void set(VmafFeatureDictionary **d, const char *key, const char *val)
{
    CHECK(!vmaf_feature_dictionary_set(d, key, val), "option %s=%s", key, val);
}

/* Three keys: rungs 0 and 1 (filter size 0 picks the 5-tap kernel; debug and add_scale1 are
 * not in the key), 2 (the 3-tap kernel), 3 (the chroma planes too, with the half-size term:
 * the stride quirk of float_motion.h). */
static VmafFeatureDictionary *three_keys(int k)
{
    VmafFeatureDictionary *d = NULL;
    if (k == 1) {
        set(&d, "debug", "false");
        set(&d, "motion_add_scale1", "true");
        set(&d, "motion_filter_size", "0");
    }
    if (k == 2) set(&d, "motion_filter_size", "3");
    if (k == 3) {
        set(&d, "motion_add_uv", "true");
        set(&d, "motion_add_scale1", "true");
    }
    return d;
}

/* One key: the pass-through kernel with options outside the key. */
static VmafFeatureDictionary *one_key(int k)
{
    VmafFeatureDictionary *d = NULL;
    set(&d, "motion_filter_size", "1");
    if (k == 1) set(&d, "debug", "false");
    if (k == 2) set(&d, "motion_add_scale1", "true");
    if (k == 3) {
        set(&d, "motion_fps_weight", "2.5");
        set(&d, "motion_blend_factor", "0.5");
        set(&d, "motion_blend_offset", "3");
    }
    return d;
}

/* Every rung with chroma: two keys (the 3-tap kernel), and one rung forced to zero. */
static VmafFeatureDictionary *with_uv(int k)
{
    VmafFeatureDictionary *d = NULL;
    set(&d, "motion_add_uv", "true");
    if (k == 1) set(&d, "motion_add_scale1", "true");
    if (k == 2) set(&d, "motion_filter_size", "3");
    if (k == 3) set(&d, "motion_force_zero", "true");
    return d;
}

static VmafFeatureDictionary *all_zero(int k)
{
    (void)k;
    VmafFeatureDictionary *d = NULL;
    set(&d, "motion_force_zero", "true");
    return d;
}

/* Rung 0's scores where its options leave the names unsuffixed (three_keys). */
static bool rung0_names(int k, unsigned n, char *name, size_t size)
{
    static const char *const names[] = { "VMAF_feature_motion_score",
                                         "VMAF_feature_motion2_score",
                                         "VMAF_feature_motion3_score" };
    if (k != 0 || n >= sizeof(names) / sizeof(names[0])) return false;
    snprintf(name, size, "%s", names[n]);
    return true;
}

static void test_api(void)
{
    static const unsigned cases[][3] = { { 64, 48, 8 },  { 37, 29, 10 }, { 131, 77, 12 },
                                         { 23, 19, 16 }, { 9, 7, 8 },    { 50, 22, 14 } };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
        for (unsigned threads = 0; threads <= 2; threads++) {
            const unsigned w = cases[c][0], h = cases[c][1], bpc = cases[c][2];
            side_ladder_run("float_motion", three_keys, rung0_names, w, h, bpc, threads, 3);
            side_ladder_case("float_motion", one_key, w, h, bpc, threads, 1);
            side_ladder_case("float_motion", with_uv, w, h, bpc, threads, 2);
        }
    side_ladder_case("float_motion", all_zero, 64, 48, 8, 1, 0);
}

/* ------------------------------------------------------------------------------------- */
/* 2. side_nowait                                                                        */

/* A product under float_motion's key that another reader is making: its computation waits
 * until released, then fails (so that the extractor makes the real one itself). */
typedef struct Blocker {
    const VmafPicture *pic;
    const char *key;
    atomic_int release;
    int err;
} Blocker;

static int blocked_compute(void *data, size_t size, void *arg)
{
    (void)data;
    (void)size;
    Blocker *b = arg;
    while (!atomic_load(&b->release)) {}
    return -EIO;
}

static void *blocker_run(void *arg)
{
    Blocker *b = arg;
    const void *data = NULL;
    b->err = vmaf_picture_side_get(b->pic, b->key, 64, blocked_compute, b, &data);
    return NULL;
}

static void test_nowait(void)
{
    enum { W = 45, H = 27, BPC = 10, FRAMES = 3 };
    const VmafFeatureGeometry g = { .pix_fmt = VMAF_PIX_FMT_YUV420P, .bpc = BPC, .w = W, .h = H,
                                    .log_level = VMAF_LOG_LEVEL_NONE };
    Run alone, rung;
    CHECK(!run_open(&alone, "float_motion", NULL, &g), "alone");
    CHECK(!run_open(&rung, "float_motion", NULL, &g), "rung");
    enum VmafFloatImpl impl = VMAF_FLOAT_IMPL_BEST;
    CHECK(!vmaf_float_impl_resolve(&impl), "impl");
    char key[48];
    snprintf(key, sizeof(key), "float_motion/5/1/%d", (int)impl);
    for (unsigned f = 0; f < FRAMES; f++) {
        VmafPicture ref;
        side_frame(&ref, W, H, BPC, f, -1);
        const VmafFeatureFrame plain = { .ref = &ref, .dist = &ref, .index = f };
        CHECK(!alone.fex->extract(alone.priv, &plain, &alone.sink), "alone frame %u", f);
        vmaf_picture_set_readers(&ref, 2, NULL);
        VmafFeatureFrame frame = { .ref = &ref, .dist = &ref, .index = f, .side_nowait = true };
        if (f == 1) { /* another reader is making the product */
            Blocker b = { .pic = &ref, .key = key };
            pthread_t t;
            CHECK(!pthread_create(&t, NULL, blocker_run, &b), "thread");
            while (!vmaf_picture_side_busy(&ref, key)) {}
            const int err = rung.fex->extract(rung.priv, &frame, &rung.sink);
            CHECK(err == -EAGAIN, "frame %u while busy: %d", f, err);
            double v;
            CHECK(vmaf_feature_collector_get_score(rung.fc, "VMAF_feature_motion_score", &v,
                                                   f) != 0,
                  "frame %u: nothing stored before -EAGAIN", f);
            atomic_store(&b.release, 1);
            pthread_join(t, NULL);
            CHECK(b.err == -EIO, "the blocker's product failed: %d", b.err);
            CHECK(vmaf_picture_side_made(&ref) == 0, "nothing made yet");
            frame.side_nowait = false; /* asked again, as extract_job does */
        }
        CHECK(!rung.fex->extract(rung.priv, &frame, &rung.sink), "rung frame %u", f);
        CHECK(vmaf_picture_side_made(&ref) == 1, "frame %u: %u products made", f,
              vmaf_picture_side_made(&ref));
        vmaf_picture_unref(&ref);
    }
    CHECK(!alone.fex->flush(alone.priv, &alone.sink), "alone flush");
    CHECK(!rung.fex->flush(rung.priv, &rung.sink), "rung flush");
    static const char *const names[] = { "VMAF_feature_motion_score",
                                         "VMAF_feature_motion2_score",
                                         "VMAF_feature_motion3_score" };
    for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++)
        for (unsigned f = 0; f < FRAMES; f++) {
            double a = -7, b = -8;
            const int ea = vmaf_feature_collector_get_score(alone.fc, names[n], &a, f);
            const int eb = vmaf_feature_collector_get_score(rung.fc, names[n], &b, f);
            CHECK(!ea && !eb && test_bits_of_double(a) == test_bits_of_double(b),
                  "%s frame %u: %d %.17g vs %d %.17g", names[n], f, ea, a, eb, b);
        }
    run_close(&alone);
    run_close(&rung);
}

int main(void)
{
    test_api();
    test_nowait();
    printf("motion_side: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
