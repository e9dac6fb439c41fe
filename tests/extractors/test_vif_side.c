/*
 * Unit test of VIF's reference side (src/feature/vif.c, vif_internal.h) and of the pictures'
 * side products it is kept in (src/picture.c).
 *
 * 1. Kernels: for every build this CPU runs, the sums from a reference side and a distorted
 *    plane equal vmaf_vif_compute_with()'s, all four integers of every scale: seeded frame
 *    pairs of every pattern at 8..16 bits, odd sizes and sizes that fill the hand-written
 *    blocks of 32 and 16 columns (with and without leftovers), every option (gain limits,
 *    skip_scale0, a scale-0 side read by a caller that skips it), three distorted planes
 *    against one side, side memory and workspace full of garbage first. A side of another
 *    build, geometry or without a needed scale 0 is refused.
 * 2. Side products: one computation however many threads ask at once, the others wait for
 *    it and read the same bytes; released after the readers' puts and computed again when
 *    asked for after that; a failing computation keeps nothing and the next caller computes;
 *    a store hands a released block to the next frame, and at most its limit of each key
 *    at once.
 * 3. Through the API: a ladder of rungs scoring "vif" with different options (debug on, so
 *    every output) against single contexts of the same pairs (tests/extractors/side_ladder.h),
 *    every output byte for byte and every score by name bit for bit, at n_threads 0, 1 and
 *    2; the reference pictures of rungs with the same key have one side product, computed
 *    once.
 *
 * Exit status 0 when every check passes; the case is printed on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/vif.h"
#include "libvmaf/libvmaf.h"
#include "picture.h"

#include "test_util.h"

#include "side_ladder.h"

/* ------------------------------------------------------------------------------------- */
/* 1. Kernels                                                                            */

static const enum VmafVifImpl impls[] = { VMAF_VIF_IMPL_PLAIN, VMAF_VIF_IMPL_AVX2,
                                           VMAF_VIF_IMPL_AVX2_MADD, VMAF_VIF_IMPL_AVX512,
                                           VMAF_VIF_IMPL_AVX512_VNNI, VMAF_VIF_IMPL_BEST };
static const char *const impl_name[] = { "best",      "plain",  "avx2",
                                         "avx2_madd", "avx512", "avx512_vnni" };

/* A plane of bpc-bit samples (pattern pat, ref or dis side) with `extra` samples of garbage
 * per row. */
static unsigned char *plane_new(int w, int h, unsigned bpc, ptrdiff_t *stride, int extra)
{
    const size_t bytes = bpc > 8 ? 2 : 1;
    *stride = (ptrdiff_t)((size_t)(w + extra) * bytes);
    unsigned char *p = malloc((size_t)*stride * (size_t)h + 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t k = 0; k < (size_t)*stride * (size_t)h; k++)
        p[k] = (unsigned char)rng();
    return p;
}

static void plane_set(unsigned char *p, ptrdiff_t stride, unsigned bpc, int i, int j,
                      int32_t v)
{
    unsigned char *row = p + (size_t)i * (size_t)stride;
    if (bpc == 8) {
        row[j] = (unsigned char)v;
    } else {
        const uint16_t s = (uint16_t)v;
        memcpy(row + 2 * (size_t)j, &s, sizeof(s));
    }
}

/* One ref plane and `n` dis planes of pattern pat (each dis a new draw of the pattern). */
static void make_planes(int w, int h, unsigned bpc, enum PairPattern pat, int n,
                        unsigned char **ref, ptrdiff_t *rs, unsigned char **dis, ptrdiff_t *ds)
{
    const int32_t max = (int32_t)((1u << bpc) - 1);
    *ref = plane_new(w, h, bpc, rs, (int)(rng() % 7));
    for (int k = 0; k < n; k++)
        dis[k] = plane_new(w, h, bpc, &ds[k], (int)(rng() % 7));
    /* the first draw fixes the ref; later draws keep it and give other dis planes */
    const uint64_t seed = rng_state;
    for (int k = 0; k < n; k++) {
        rng_state = seed + 0x9e3779b97f4a7c15ull * (uint64_t)k;
        const int32_t flat = (int32_t)(rng() % (uint32_t)(max + 1));
        for (int i = 0; i < h; i++)
            for (int j = 0; j < w; j++) {
                int32_t r, d;
                test_pattern_pair(pat, max, flat, (unsigned)i, (unsigned)j, &r, &d);
                if (!k)
                    plane_set(*ref, *rs, bpc, i, j, r);
                plane_set(dis[k], ds[k], bpc, i, j, d);
            }
    }
}

static int sums_equal(const VmafVifSums *a, const VmafVifSums *b)
{
    return a->num_log == b->num_log && a->den_log == b->den_log &&
           a->num_non_log == b->num_non_log && a->den_non_log == b->den_non_log;
}

enum { NDIS = 3 };

static void kernel_case(int w, int h, unsigned bpc, enum PairPattern pat, double egl,
                        uint64_t seed)
{
    rng_state = seed;
    unsigned char *ref, *dis[NDIS];
    ptrdiff_t rs, ds[NDIS];
    make_planes(w, h, bpc, pat, NDIS, &ref, &rs, dis, ds);

    VmafVifWorkspace *ws = NULL, *ws2 = NULL;
    CHECK(!vmaf_vif_workspace_alloc(&ws, (unsigned)w, (unsigned)h, bpc), "alloc %dx%d", w, h);
    CHECK(!vmaf_vif_workspace_alloc(&ws2, (unsigned)w, (unsigned)h, bpc), "alloc %dx%d", w, h);
    const size_t size = vmaf_vif_ref_side_size((unsigned)w, (unsigned)h);
    unsigned char *side = malloc(size), *side0 = malloc(size);
    CHECK(side && side0, "side of %zu bytes", size);
    for (size_t k = 0; ws && ws2 && side && side0 && k < sizeof(impls) / sizeof(impls[0]);
         k++) {
        for (int skip0 = 0; skip0 <= 1; skip0++) {
            /* garbage where the side goes */
            for (size_t b = 0; b < size; b++)
                side[b] = (unsigned char)rng();
            int err = vmaf_vif_ref_side_compute_with(impls[k], ws, side, size, ref, rs,
                                                     (bool)skip0);
            if (err == -ENOTSUP)
                break;
            CHECK(!err, "side %s", impl_name[impls[k]]);
            for (int d = 0; !err && d < NDIS; d++) {
                VmafVifSums want[4], got[4];
                CHECK(!vmaf_vif_compute_with(impls[k], ws2, ref, rs, dis[d], ds[d], egl,
                                             (bool)skip0, want),
                      "fused");
                memset(got, 0x5a, sizeof(got));
                /* the workspace that made the side (as the extractor does), then another */
                for (int pass = 0; pass < 2; pass++) {
                    CHECK(!vmaf_vif_compute_from_side_with(impls[k], pass ? ws2 : ws, side,
                                                           ref, rs, dis[d], ds[d], egl,
                                                           (bool)skip0, got),
                          "from side");
                    for (int s = 0; s < 4; s++)
                        CHECK(sums_equal(&got[s], &want[s]),
                              "seed %" PRIu64 " %dx%d %u-bit %s egl %g skip %d %s dis %d "
                              "pass %d scale %d: got %" PRId64 " %" PRId64 " %" PRId64
                              " %" PRId64 ", want %" PRId64 " %" PRId64 " %" PRId64
                              " %" PRId64,
                              seed, w, h, bpc, pair_pattern_name[pat], egl, skip0,
                              impl_name[impls[k]], d, pass, s, got[s].num_log, got[s].den_log,
                              got[s].num_non_log, got[s].den_non_log, want[s].num_log,
                              want[s].den_log, want[s].num_non_log, want[s].den_non_log);
                }
                if (!skip0) { /* a side with scale 0, read by a caller that skips it */
                    CHECK(!vmaf_vif_compute_with(impls[k], ws2, ref, rs, dis[d], ds[d], egl,
                                                 true, want),
                          "fused, skip");
                    CHECK(!vmaf_vif_compute_from_side_with(impls[k], ws, side, ref, rs,
                                                           dis[d], ds[d], egl, true, got),
                          "from side, skip");
                    for (int s = 0; s < 4; s++)
                        CHECK(sums_equal(&got[s], &want[s]), "seed %" PRIu64 " %s skip "
                              "reading a full side, scale %d", seed, impl_name[impls[k]], s);
                }
            }
            if (skip0)
                CHECK(vmaf_vif_compute_from_side_with(impls[k], ws, side, ref, rs, dis[0],
                                                      ds[0], egl, false, NULL) == -EINVAL,
                      "a side without scale 0 refused for scale 0");
        }
    }
    /* a side of another build: refused (the plain build's column order is not AVX2's) */
    if (ws && side &&
        !vmaf_vif_ref_side_compute_with(VMAF_VIF_IMPL_PLAIN, ws, side, size, ref, rs, false)) {
        VmafVifSums got[4];
        const int err = vmaf_vif_compute_from_side_with(VMAF_VIF_IMPL_AVX2_MADD, ws, side, ref,
                                                        rs, dis[0], ds[0], egl, false, got);
        CHECK(err == -EINVAL || err == -ENOTSUP, "another build's side: %d", err);
    }
    CHECK(!ws || vmaf_vif_ref_side_compute_with(VMAF_VIF_IMPL_BEST, ws, side, size - 1, ref, rs,
                                                false) == -EINVAL,
          "a block too small refused");
    free(side);
    free(side0);
    vmaf_vif_workspace_free(&ws);
    vmaf_vif_workspace_free(&ws2);
    free(ref);
    for (int k = 0; k < NDIS; k++)
        free(dis[k]);
}

static void test_kernels(void)
{
    static const int sizes[][2] = { { 1, 1 },   { 3, 3 },   { 2, 40 },  { 9, 15 },
                                    { 17, 17 }, { 33, 21 }, { 71, 64 }, { 120, 33 },
                                    { 96, 20 }, { 134, 18 }, { 257, 37 } };
    static const unsigned depths[] = { 8, 9, 10, 12, 14, 16 };
    uint64_t seed = 1;
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
        for (size_t b = 0; b < sizeof(depths) / sizeof(depths[0]); b++)
            for (int p = 0; p < PAIR_COUNT; p++, seed++) {
                const double egl = seed % 3 == 0 ? 1.0 : seed % 3 == 1 ? 100.0 : 2.5;
                kernel_case(sizes[z][0], sizes[z][1], depths[b], (enum PairPattern)p, egl,
                            seed * 0x9e3779b97f4a7c15ull);
            }
    for (unsigned bpc = 11; bpc <= 15; bpc += 2)
        kernel_case(67, 35, bpc, PAIR_NEAR, 100.0, seed++ * 0x9e3779b97f4a7c15ull);
}

/* ------------------------------------------------------------------------------------- */
/* 2. Side products                                                                      */

typedef struct Product {
    atomic_int computed;
    int fail; /* compute returns this */
    unsigned char fill;
} Product;

static int product_compute(void *data, size_t size, void *arg)
{
    Product *p = arg;
    atomic_fetch_add(&p->computed, 1);
    if (p->fail)
        return p->fail;
    for (volatile int spin = 0; spin < 200000; spin++) {} /* let the others arrive */
    memset(data, p->fill, size);
    return 0;
}

typedef struct Reader {
    const VmafPicture *pic;
    Product *product;
    int err;
    int ok; /* read every byte as filled */
} Reader;

static void *reader_run(void *arg)
{
    Reader *r = arg;
    const void *data = NULL;
    r->err = vmaf_picture_side_get(r->pic, "test/a", 4096, product_compute, r->product, &data);
    if (r->err)
        return NULL;
    r->ok = 1;
    for (size_t k = 0; k < 4096; k++)
        r->ok &= ((const unsigned char *)data)[k] == r->product->fill;
    vmaf_picture_side_put(r->pic, data);
    return NULL;
}

static void test_side_products(void)
{
    enum { READERS = 6 };
    VmafSideStore *store = NULL;
    CHECK(!vmaf_side_store_create(&store, 0), "store");
    VmafPicture pic;
    CHECK(!vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV400P, 8, 16, 16), "alloc");
    vmaf_picture_set_readers(&pic, READERS, store);
    CHECK(vmaf_picture_readers(&pic) == READERS, "readers");

    /* READERS threads at once: one computation */
    Product a = { .fill = 0xa5 };
    pthread_t t[READERS];
    Reader r[READERS];
    for (int k = 0; k < READERS; k++) {
        r[k] = (Reader){ .pic = &pic, .product = &a };
        CHECK(!pthread_create(&t[k], NULL, reader_run, &r[k]), "thread");
    }
    for (int k = 0; k < READERS; k++) {
        pthread_join(t[k], NULL);
        CHECK(!r[k].err && r[k].ok, "reader %d: %d %d", k, r[k].err, r[k].ok);
    }
    CHECK(atomic_load(&a.computed) == 1, "computed %d times", atomic_load(&a.computed));
    CHECK(vmaf_picture_side_made(&pic) == 1, "made");

    /* every reader put it: released, so a later get computes it again */
    const void *data = NULL;
    CHECK(!vmaf_picture_side_get(&pic, "test/a", 4096, product_compute, &a, &data), "again");
    CHECK(atomic_load(&a.computed) == 2, "computed again after the release");
    const void *first = data;

    /* a failing computation keeps nothing; the next caller computes */
    Product b = { .fail = -EIO, .fill = 0x11 };
    const void *bd = NULL;
    CHECK(vmaf_picture_side_get(&pic, "test/b", 100, product_compute, &b, &bd) == -EIO,
          "failure returned");
    b.fail = 0;
    CHECK(!vmaf_picture_side_get(&pic, "test/b", 100, product_compute, &b, &bd) && bd,
          "computed after a failure");
    CHECK(atomic_load(&b.computed) == 2, "b computed %d times", atomic_load(&b.computed));
    CHECK(vmaf_picture_side_get(&pic, "x", 0, product_compute, &b, &bd) == -EINVAL, "size 0");
    char long_key[80];
    memset(long_key, 'k', sizeof(long_key) - 1);
    long_key[sizeof(long_key) - 1] = 0;
    CHECK(vmaf_picture_side_get(&pic, long_key, 8, product_compute, &b, &bd) == -EINVAL,
          "key too long");
    vmaf_picture_side_put(&pic, bd);

    /* READERS - 1 more puts of "test/a" release it into the store: the next picture's
     * product of that size takes the same block */
    vmaf_picture_side_put(&pic, data);
    VmafPicture next;
    CHECK(!vmaf_picture_alloc(&next, VMAF_PIX_FMT_YUV400P, 8, 16, 16), "alloc");
    vmaf_picture_set_readers(&next, 2, store);
    for (int k = 1; k < READERS; k++) { /* the entry is still in use until these */
        const void *d2 = NULL;
        CHECK(!vmaf_picture_side_get(&pic, "test/a", 4096, product_compute, &a, &d2), "get");
        vmaf_picture_side_put(&pic, d2);
    }
    Product c = { .fill = 0x3c };
    const void *cd = NULL;
    CHECK(!vmaf_picture_side_get(&next, "test/a", 4096, product_compute, &c, &cd), "next");
    CHECK(cd == first || atomic_load(&a.computed) > 2, "a released block reused");
    vmaf_side_store_unref(store); /* the pictures hold it */
    vmaf_picture_unref(&pic);
    vmaf_picture_side_put(&next, cd); /* one of two puts: freed with the picture */
    vmaf_picture_unref(&next);

    /* a store of one block: a second product waits for none, it fails until the first is
     * released */
    CHECK(!vmaf_side_store_create(&store, 1), "store of 1");
    VmafPicture p1, p2;
    CHECK(!vmaf_picture_alloc(&p1, VMAF_PIX_FMT_YUV400P, 8, 16, 16), "alloc");
    CHECK(!vmaf_picture_alloc(&p2, VMAF_PIX_FMT_YUV400P, 8, 16, 16), "alloc");
    vmaf_picture_set_readers(&p1, 1, store);
    vmaf_picture_set_readers(&p2, 1, store);
    vmaf_side_store_unref(store);
    Product e = { .fill = 0x77 };
    const void *d1 = NULL, *d2 = NULL;
    CHECK(!vmaf_picture_side_get(&p1, "test/e", 1000, product_compute, &e, &d1), "first");
    CHECK(vmaf_picture_side_get(&p2, "test/e", 1000, product_compute, &e, &d2) == -ENOMEM,
          "no second block");
    vmaf_picture_side_put(&p1, d1); /* its one reader is done: the block goes back */
    CHECK(!vmaf_picture_side_get(&p2, "test/e", 1000, product_compute, &e, &d2) && d2 == d1,
          "the block again");
    /* the limit is per key: another key has its own block, and one only */
    const void *f1 = NULL, *f2 = NULL;
    CHECK(!vmaf_picture_side_get(&p1, "test/f", 64, product_compute, &e, &f1) && f1,
          "another key: its own block");
    CHECK(vmaf_picture_side_get(&p2, "test/f", 64, product_compute, &e, &f2) == -ENOMEM,
          "another key: one block");
    vmaf_picture_side_put(&p1, f1);
    CHECK(!vmaf_picture_side_get(&p2, "test/f", 64, product_compute, &e, &f2) && f2,
          "another key: the block again");
    vmaf_picture_side_put(&p2, f2);
    vmaf_picture_side_put(&p2, d2);
    vmaf_picture_unref(&p1);
    vmaf_picture_unref(&p2);
}

/* ------------------------------------------------------------------------------------- */
/* 3. Through the API                                                                    */

/* The options of rung k: two rungs alike (one side product for them), the others not. */
static VmafFeatureDictionary *rung_options(int k)
{
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "debug", "true");
    if (k == 2)
        vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "1.5");
    if (k == 3)
        vmaf_feature_dictionary_set(&d, "vif_skip_scale0", "true");
    return d;
}

/* Every output of rung k: the option-suffixed names of the debug outputs; the four scores
 * keep theirs only without options. */
static bool rung_name(int k, unsigned n, char *name, size_t size)
{
    static const char *const names[] = {
        "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
        "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
        "integer_vif", "integer_vif_num", "integer_vif_den",
        "integer_vif_num_scale0", "integer_vif_den_scale0",
        "integer_vif_num_scale3", "integer_vif_den_scale3",
    };
    static const char *const suffix[SIDE_RUNGS] = { "", "", "_egl_1.5", "_ssclz" };
    if (n >= sizeof(names) / sizeof(names[0]))
        return false;
    if (n < 4 && k >= 2)
        snprintf(name, size, "integer_vif_scale%u%s", n, suffix[k]);
    else
        snprintf(name, size, "%s%s", names[n], n < 4 ? "" : suffix[k]);
    return true;
}

static void test_api(void)
{
    static const unsigned cases[][3] = { { 64, 48, 8 }, { 37, 29, 10 }, { 130, 34, 8 },
                                         { 33, 18, 12 }, { 50, 22, 16 } };
    /* rungs 0 and 1 share a key, 2 too (the gain limit is not in it), 3 skips scale 0 */
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
        for (unsigned threads = 0; threads <= 2; threads++)
            side_ladder_run("vif", rung_options, rung_name, cases[c][0], cases[c][1],
                            cases[c][2], threads, 2);
}

int main(void)
{
    test_kernels();
    test_side_products();
    test_api();
    printf("vif_side: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
