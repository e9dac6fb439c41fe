/* Unit tests of the public API and the framework under it. Each check can fail. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/version.h"

#include "dict.h"

#include "test_util.h"

static void fill(VmafPicture *p, unsigned value_or_random, int random)
{
    const unsigned max = (1u << p->bpc) - 1;
    for (unsigned c = 0; c < 3; c++) {
        if (!p->data[c]) continue;
        for (unsigned y = 0; y < p->h[c]; y++) {
            for (unsigned x = 0; x < p->w[c]; x++) {
                const unsigned v = random ? rng() % (max + 1) : value_or_random;
                if (p->bpc == 8) ((uint8_t *)p->data[c])[y * p->stride[c] + x] = (uint8_t)v;
                else ((uint16_t *)((uint8_t *)p->data[c] + y * p->stride[c]))[x] = (uint16_t)v;
            }
        }
    }
}

static void test_picture_alloc(void)
{
    static const struct { enum VmafPixelFormat fmt; unsigned cw, ch; } cases[] = {
        { VMAF_PIX_FMT_YUV420P, 128, 72 }, { VMAF_PIX_FMT_YUV422P, 128, 145 },
        { VMAF_PIX_FMT_YUV444P, 257, 145 }, { VMAF_PIX_FMT_YUV400P, 0, 0 },
    };
    for (unsigned i = 0; i < 4; i++) {
        for (unsigned bpc = 8; bpc <= 16; bpc++) {
            VmafPicture p;
            CHECK(!vmaf_picture_alloc(&p, cases[i].fmt, bpc, 257, 145), "alloc");
            const unsigned bytes = bpc > 8 ? 2 : 1;
            CHECK(p.w[0] == 257 && p.h[0] == 145, "luma");
            CHECK(p.w[1] == cases[i].cw && p.h[1] == cases[i].ch, "chroma %ux%u", p.w[1], p.h[1]);
            CHECK(p.stride[0] == (ptrdiff_t)(288 * bytes), "stride %td", p.stride[0]);
            CHECK(((uintptr_t)p.data[0] & 31) == 0, "aligned");
            if (cases[i].fmt == VMAF_PIX_FMT_YUV400P) {
                CHECK(!p.data[1] && !p.data[2], "400 has no chroma");
            } else {
                CHECK(p.stride[1] == (ptrdiff_t)(((cases[i].cw + 31) & ~31u) * bytes), "cstride");
                CHECK((uint8_t *)p.data[1] == (uint8_t *)p.data[0] + p.stride[0] * 145, "U follows Y");
                const uint8_t *u = p.data[2];
                int zero = 1;
                for (unsigned k = 0; k < p.w[2] * bytes; k++) zero &= !u[k];
                CHECK(zero, "zeroed");
            }
            CHECK(!vmaf_picture_unref(&p), "unref");
            CHECK(vmaf_picture_unref(&p) == -EINVAL, "second unref refused");
        }
    }
    VmafPicture p;
    CHECK(vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV420P, 7, 16, 16) == -EINVAL, "bpc 7");
    CHECK(vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV420P, 17, 16, 16) == -EINVAL, "bpc 17");
    CHECK(vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV420P, 8, 0, 16) == -EINVAL, "w 0");
    CHECK(vmaf_picture_alloc(&p, VMAF_PIX_FMT_UNKNOWN, 8, 16, 16) == -EINVAL, "fmt");
    CHECK(vmaf_picture_alloc(NULL, VMAF_PIX_FMT_YUV420P, 8, 16, 16) == -EINVAL, "NULL");
}

static void test_dictionary(void)
{
    VmafFeatureDictionary *d = NULL;
    CHECK(!vmaf_feature_dictionary_set(&d, "a", "18.0"), "set");
    CHECK(!vmaf_feature_dictionary_set(&d, "b", "0.50"), "set");
    CHECK(!vmaf_feature_dictionary_set(&d, "c", "bicubic"), "set");
    CHECK(!vmaf_feature_dictionary_set(&d, "d", "1.2x"), "set");
    CHECK(!vmaf_feature_dictionary_set(&d, "e", "3.14159265"), "set");
    CHECK(!strcmp(vmaf_dictionary_get(d, "a")->val, "18"), "%s", vmaf_dictionary_get(d, "a")->val);
    CHECK(!strcmp(vmaf_dictionary_get(d, "b")->val, "0.5"), "0.5");
    CHECK(!strcmp(vmaf_dictionary_get(d, "c")->val, "bicubic"), "string kept");
    CHECK(!strcmp(vmaf_dictionary_get(d, "d")->val, "1.2x"), "not fully numeric: kept");
    CHECK(!strcmp(vmaf_dictionary_get(d, "e")->val, "3.14159"), "6 significant digits");
    CHECK(!vmaf_feature_dictionary_set(&d, "a", "2"), "overwrite");
    CHECK(!strcmp(vmaf_dictionary_get(d, "a")->val, "2") && d->cnt == 5, "overwritten");
    CHECK(vmaf_feature_dictionary_set(&d, NULL, "2") == -EINVAL, "NULL key");
    CHECK(!vmaf_feature_dictionary_free(&d) && !d, "free");
    CHECK(!vmaf_feature_dictionary_free(&d), "free NULL");
}

static VmafContext *context(unsigned threads, unsigned subsample)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .n_threads = threads, .n_subsample = subsample };
    CHECK(!vmaf_init(&v, cfg), "init");
    return v;
}

static void use(VmafContext *v, const char *name, const char *k1, const char *v1,
                const char *k2, const char *v2)
{
    VmafFeatureDictionary *d = NULL;
    if (k1) vmaf_feature_dictionary_set(&d, k1, v1);
    if (k2) vmaf_feature_dictionary_set(&d, k2, v2);
    CHECK(!vmaf_use_feature(v, name, d), "use %s", name);
}

static int feed(VmafContext *v, unsigned n, unsigned bpc, enum VmafPixelFormat fmt, unsigned w,
                unsigned h, uint64_t seed)
{
    rng_state = seed;
    for (unsigned i = 0; i < n; i++) {
        VmafPicture r, d;
        if (vmaf_picture_alloc(&r, fmt, bpc, w, h) || vmaf_picture_alloc(&d, fmt, bpc, w, h))
            return -ENOMEM;
        fill(&r, 0, 1);
        fill(&d, 0, 1);
        int err = vmaf_read_pictures(v, &r, &d, i);
        if (err) return err;
    }
    return vmaf_read_pictures(v, NULL, NULL, 0);
}

static void test_feature_names_and_dedup(void)
{
    VmafContext *v = context(0, 0);
    use(v, "motion", "motion_max_val", "18", "motion_force_zero", "true");
    use(v, "psnr", NULL, NULL, NULL, NULL);
    use(v, "psnr", "enable_mse", "true", NULL, NULL); /* same name, no feature params: dropped */
    CHECK(vmaf_use_feature(v, "nosuch", NULL) == -EINVAL, "unknown");
    VmafFeatureDictionary *bad = NULL;
    vmaf_feature_dictionary_set(&bad, "motion_blend_factor", "1.5");
    CHECK(vmaf_use_feature(v, "motion", bad) == -EINVAL, "out of range");
    CHECK(!feed(v, 3, 8, VMAF_PIX_FMT_YUV420P, 33, 17, 1), "feed");
    double s;
    CHECK(!vmaf_feature_score_at_index(v, "VMAF_integer_feature_motion_sad_score_force_0_mmxv_18",
                                       &s, 2) && s == 0.0, "suffixed name, forced zero");
    CHECK(!vmaf_feature_score_at_index(v, "integer_motion2_force_0_mmxv_18", &s, 1), "alias base");
    CHECK(vmaf_feature_score_at_index(v, "mse_y", &s, 0) == -EINVAL, "duplicate psnr dropped");
    CHECK(!vmaf_feature_score_at_index(v, "psnr_y", &s, 0), "psnr_y");
    VmafPicture r, d;
    vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 33, 17);
    vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 33, 17);
    CHECK(vmaf_read_pictures(v, &r, &d, 3) == -EINVAL, "read after flush");
    vmaf_picture_unref(&r);
    vmaf_picture_unref(&d);
    vmaf_close(v);
}

static void test_read_pictures_errors(void)
{
    VmafContext *v = context(0, 0);
    use(v, "psnr", NULL, NULL, NULL, NULL);
    VmafPicture r, d;
    vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 16, 16);
    CHECK(vmaf_read_pictures(v, &r, NULL, 0) == -EINVAL, "one NULL");
    vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 16, 18);
    CHECK(vmaf_read_pictures(v, &r, &d, 0) == -EINVAL, "size mismatch");
    /* refused pictures stay with the caller (the reference's rule; tests/test_ownership.c) */
    vmaf_picture_unref(&r);
    vmaf_picture_unref(&d);
    vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 16, 16);
    vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 16, 16);
    CHECK(!vmaf_read_pictures(v, &r, &d, 0), "first");
    vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 16, 16);
    vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 16, 16);
    CHECK(vmaf_read_pictures(v, &r, &d, 0) < 0, "index 0 twice");
    vmaf_picture_unref(&r);
    vmaf_picture_unref(&d);
    vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV444P, 8, 16, 16);
    vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV444P, 8, 16, 16);
    CHECK(vmaf_read_pictures(v, &r, &d, 1) == -EINVAL, "format changed");
    vmaf_picture_unref(&r);
    vmaf_picture_unref(&d);
    vmaf_close(v);
}

/* 9 and 11 bits through the API: a constant error e gives psnr = 10 log10(peak^2 / e^2). */
static void test_odd_depths(void)
{
    for (unsigned bpc = 9; bpc <= 11; bpc += 2) {
        VmafContext *v = context(0, 0);
        use(v, "psnr", NULL, NULL, NULL, NULL);
        VmafPicture r, d;
        vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV422P, bpc, 23, 9);
        vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV422P, bpc, 23, 9);
        fill(&r, 100, 0);
        fill(&d, 103, 0);
        CHECK(!vmaf_read_pictures(v, &r, &d, 0), "read %u-bit", bpc);
        CHECK(!vmaf_read_pictures(v, NULL, NULL, 0), "flush");
        double s;
        const uint32_t peak = (1u << bpc) - 1;
        const double want = 10. * log10(peak * peak / 9.0);
        CHECK(!vmaf_feature_score_at_index(v, "psnr_cb", &s, 0) && s == want, "%u-bit: %.17g vs %.17g",
              bpc, s, want);
        vmaf_close(v);
    }
}

/* Frames in parallel give the same bits as one thread, and subsampling skips frames. */
static void test_threads_and_subsample(void)
{
    static const char *const names[] = { "psnr_y", "psnr_hvs", "VMAF_integer_feature_motion_sad_score",
                                         "VMAF_integer_feature_motion2_score",
                                         "VMAF_integer_feature_motion3_v2_score_mffw" };
    const unsigned n = 13;
    for (unsigned sub = 1; sub <= 3; sub += 2) {
        VmafContext *ctx[2] = { context(0, sub), context(3, sub) };
        for (int k = 0; k < 2; k++) {
            use(ctx[k], "psnr", NULL, NULL, NULL, NULL);
            use(ctx[k], "psnr_hvs", NULL, NULL, NULL, NULL);
            use(ctx[k], "motion", NULL, NULL, NULL, NULL);
            use(ctx[k], "motion_v2", "motion_five_frame_window", "true", NULL, NULL);
            CHECK(!feed(ctx[k], n, 10, VMAF_PIX_FMT_YUV420P, 67, 35, 42), "feed");
        }
        for (unsigned f = 0; f < 5; f++) {
            const char *name = names[f];
            for (unsigned i = 0; i < n; i++) {
                double a, b;
                const int ea = vmaf_feature_score_at_index(ctx[0], name, &a, i);
                const int eb = vmaf_feature_score_at_index(ctx[1], name, &b, i);
                CHECK(ea == eb && (ea || a == b), "%s[%u] sub %u: %.17g vs %.17g", name, i, sub, a, b);
                const int expect_present = !(f == 1 && sub > 1 && i % sub);
                CHECK((!ea) == expect_present, "%s[%u] presence with subsample %u", name, i, sub);
            }
        }
        double p;
        CHECK(!vmaf_feature_score_pooled(ctx[0], "psnr_hvs", VMAF_POOL_METHOD_MEAN, &p, 0, n - 1),
              "pooled over subsampled frames");
        vmaf_close(ctx[0]);
        vmaf_close(ctx[1]);
    }
}

static void test_pooling_and_output(const char *dir)
{
    VmafContext *v = context(0, 0);
    const double a[3] = { 1.5, 3.0, 0.25 };
    for (unsigned i = 0; i < 3; i++) CHECK(!vmaf_import_feature_score(v, "a", a[i], i), "import");
    CHECK(!vmaf_import_feature_score(v, "b", 1e-7, 1), "import");
    CHECK(vmaf_import_feature_score(v, "a", 1, 1) == -EINVAL, "no overwrite");
    double s;
    CHECK(!vmaf_feature_score_pooled(v, "a", VMAF_POOL_METHOD_MEAN, &s, 0, 2) &&
          s == (1.5 + 3.0 + 0.25) / 3, "mean %.17g", s);
    CHECK(!vmaf_feature_score_pooled(v, "a", VMAF_POOL_METHOD_HARMONIC_MEAN, &s, 0, 2) &&
          s == 3 / (1. / 2.5 + 1. / 4.0 + 1. / 1.25) - 1.0, "harmonic mean %.17g", s);
    CHECK(!vmaf_feature_score_pooled(v, "a", VMAF_POOL_METHOD_MIN, &s, 0, 2) && s == 0.25, "min");
    CHECK(!vmaf_feature_score_pooled(v, "a", VMAF_POOL_METHOD_MAX, &s, 0, 2) && s == 3.0, "max");
    CHECK(vmaf_feature_score_pooled(v, "b", VMAF_POOL_METHOD_MAX, &s, 0, 2) == -EINVAL, "missing");
    CHECK(vmaf_feature_score_pooled(v, "a", VMAF_POOL_METHOD_NB, &s, 0, 2) == -EINVAL, "method");

    static const struct { enum VmafOutputFormat fmt; const char *ext, *want; } out[] = {
        { VMAF_OUTPUT_FORMAT_CSV, "csv",
          "Frame,a,b,\n0,1.500000,\n1,3.000000,0.0000001000000000,\n2,0.250000,\n" },
        { VMAF_OUTPUT_FORMAT_SUB, "sub",
          "{0}{1}frame: 0|a: 1.500000|\n{1}{2}frame: 1|a: 3.000000|b: 0.0000001000000000|\n"
          "{2}{3}frame: 2|a: 0.250000|\n" },
    };
    for (unsigned i = 0; i < 2; i++) {
        char path[1024], text[1024] = { 0 };
        snprintf(path, sizeof(path), "%s/out.%s", dir, out[i].ext);
        CHECK(!vmaf_write_output(v, path, out[i].fmt), "write %s", out[i].ext);
        FILE *f = fopen(path, "r");
        if (f) {
            (void)!fread(text, 1, sizeof(text) - 1, f);
            fclose(f);
        }
        CHECK(!strcmp(text, out[i].want), "%s output:\n%s", out[i].ext, text);
    }
    /* files carry the library's version number; the git description is vmaf_version()'s */
    char version[32];
    snprintf(version, sizeof(version), "%d.%d.%d", VMAF_API_VERSION_MAJOR,
             VMAF_API_VERSION_MINOR, VMAF_API_VERSION_PATCH);
    static const struct { enum VmafOutputFormat fmt; const char *ext, *line; } head[] = {
        { VMAF_OUTPUT_FORMAT_XML, "xml", "<VMAF version=\"%s\">\n" },
        { VMAF_OUTPUT_FORMAT_JSON, "json", "  \"version\": \"%s\",\n" },
    };
    for (unsigned i = 0; i < 2; i++) {
        char path[1024], want[128], line[256] = { 0 };
        snprintf(path, sizeof(path), "%s/out.%s", dir, head[i].ext);
        snprintf(want, sizeof(want), head[i].line, version);
        CHECK(!vmaf_write_output(v, path, head[i].fmt), "write %s", head[i].ext);
        FILE *f = fopen(path, "r");
        if (f) {
            if (head[i].fmt == VMAF_OUTPUT_FORMAT_JSON) (void)!fgets(line, sizeof(line), f);
            (void)!fgets(line, sizeof(line), f);
            fclose(f);
        }
        CHECK(!strcmp(line, want), "%s version line: %s", head[i].ext, line);
    }
    CHECK(!strcmp(version, "3.2.0"), "library version %s", version);
    CHECK(vmaf_write_output(v, "/nonexistent-dir/x.xml", VMAF_OUTPUT_FORMAT_XML) < 0, "unwritable");
    vmaf_close(v);
}

typedef struct { VmafPicture pic; } Held;
static void *release_later(void *arg)
{
    usleep(50000);
    vmaf_picture_unref(&((Held *)arg)->pic);
    return NULL;
}

static void test_picture_pool(void)
{
    VmafContext *v = context(0, 0);
    VmafPictureConfiguration cfg = { .pic_params = { 31, 17, 10, VMAF_PIX_FMT_YUV420P }, .pic_cnt = 2 };
    VmafPicture p;
    CHECK(vmaf_fetch_preallocated_picture(v, &p) == -EINVAL, "no pool yet");
    CHECK(!vmaf_preallocate_pictures(v, cfg), "prealloc");
    Held a, b;
    CHECK(!vmaf_fetch_preallocated_picture(v, &a.pic), "fetch 1");
    CHECK(!vmaf_fetch_preallocated_picture(v, &b.pic), "fetch 2");
    CHECK(a.pic.bpc == 10 && a.pic.w[1] == 15 && a.pic.h[1] == 8, "geometry");
    pthread_t t;
    pthread_create(&t, NULL, release_later, &a);
    CHECK(!vmaf_fetch_preallocated_picture(v, &p), "fetch 3 waits for a release");
    pthread_join(t, NULL);
    CHECK(p.data[0] != b.pic.data[0], "a distinct buffer");
    vmaf_picture_unref(&b.pic);
    vmaf_close(v); /* p still out: the pool lives until it comes back */
    fill(&p, 5, 0);
    vmaf_picture_unref(&p);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    test_picture_alloc();
    test_dictionary();
    test_feature_names_and_dedup();
    test_read_pictures_errors();
    test_odd_depths();
    test_threads_and_subsample();
    test_pooling_and_output(dir);
    test_picture_pool();
    printf("api: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
