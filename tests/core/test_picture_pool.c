/*
 * The picture pool, with a slow counting allocator standing in for pinning: buffers are
 * allocated on demand by the fetch that needs one, never more than pic_cnt, and recycled; an
 * allocation failure reaches that fetch as an error (and the pool keeps serving the buffers
 * it has); closing with pictures out frees the pool at their last unref; fetching threads
 * share it. The prepare step (pinning after the first fill): once per buffer whoever asks,
 * a failure leaves the buffer unprepared (asked again next time), every prepared buffer is
 * unprepared before it is freed, pictures of pools without it prepare as a no-op.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "picture.h"
#include "picture_pool.h"
#include "test_util.h"

typedef struct Alloc {
    atomic_uint calls, live, in_fetch_thread;
    unsigned fail_from; /* calls from this one on fail (0: never) */
    pthread_t fetcher;
    unsigned delay_us;
} Alloc;

static void sleep_us(unsigned us)
{
    struct timespec ts = { 0, (long)us * 1000 };
    nanosleep(&ts, NULL);
}

static int slow_alloc(void *cookie, size_t size, void **buf)
{
    Alloc *a = cookie;
    const unsigned n = atomic_fetch_add(&a->calls, 1) + 1;
    if (pthread_equal(pthread_self(), a->fetcher)) atomic_fetch_add(&a->in_fetch_thread, 1);
    sleep_us(a->delay_us);
    if (a->fail_from && n >= a->fail_from) return -ENOMEM;
    *buf = malloc(size);
    if (!*buf) return -ENOMEM;
    atomic_fetch_add(&a->live, 1);
    return 0;
}

static void slow_free(void *cookie, void *buf, size_t size)
{
    (void)size;
    Alloc *a = cookie;
    free(buf);
    atomic_fetch_sub(&a->live, 1);
}

static VmafPicturePoolConfig config(Alloc *a, unsigned pic_cnt)
{
    return (VmafPicturePoolConfig){
        .pic_cnt = pic_cnt, .pix_fmt = VMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36,
        .alloc = slow_alloc, .free = slow_free, .cookie = a,
        .memory = VMAF_PICTURE_MEMORY_HOST,
    };
}

static void init_alloc(Alloc *a, unsigned delay_us, unsigned fail_from)
{
    memset(a, 0, sizeof(*a));
    atomic_init(&a->calls, 0);
    atomic_init(&a->live, 0);
    atomic_init(&a->in_fetch_thread, 0);
    a->fetcher = pthread_self();
    a->delay_us = delay_us;
    a->fail_from = fail_from;
}

/* allocations happen in the fetching thread, one per new buffer (init makes the first);
 * each picture zeroed; returned buffers are served again without allocating */
static void test_on_demand(void)
{
    enum { N = 5 };
    Alloc a;
    init_alloc(&a, 0, 0);
    VmafPicturePool *pool = NULL;
    CHECK(!vmaf_picture_pool_init(&pool, config(&a, N)), "init");
    if (!pool) return;
    CHECK(atomic_load(&a.calls) == 1, "init allocates one buffer (%u)", atomic_load(&a.calls));
    VmafPicture pic[N];
    for (unsigned i = 0; i < N; i++) {
        const int err = vmaf_picture_pool_fetch(pool, &pic[i]);
        CHECK(!err, "fetch %u: %d", i, err);
        if (err) return;
        const unsigned char *p = pic[i].data[0];
        CHECK(p[0] == 0 && p[63] == 0, "fetch %u: zeroed", i);
        memset(pic[i].data[0], 0xab, 64);
    }
    CHECK(atomic_load(&a.calls) == N, "%u allocations for %u pictures", atomic_load(&a.calls), N);
    CHECK(atomic_load(&a.in_fetch_thread) == N, "on demand: %u of %u in the fetching thread",
          atomic_load(&a.in_fetch_thread), N);
    for (unsigned i = 0; i < N; i++) vmaf_picture_unref(&pic[i]);
    for (int round = 0; round < 3; round++) {
        VmafPicture p;
        CHECK(!vmaf_picture_pool_fetch(pool, &p), "refetch");
        vmaf_picture_unref(&p);
    }
    CHECK(atomic_load(&a.calls) == N, "no allocation when buffers are free");
    vmaf_picture_pool_close(pool);
    CHECK(atomic_load(&a.live) == 0, "%u buffers leaked", atomic_load(&a.live));
}

/* the third allocation fails: the fetch that needs a new buffer gets the error, the buffers
 * that exist keep being served */
static void test_failure(void)
{
    Alloc a;
    init_alloc(&a, 500, 3);
    VmafPicturePool *pool = NULL;
    CHECK(!vmaf_picture_pool_init(&pool, config(&a, 8)), "init");
    if (!pool) return;
    VmafPicture pic[8];
    unsigned got = 0;
    int err = 0;
    while (got < 8 && !(err = vmaf_picture_pool_fetch(pool, &pic[got]))) got++;
    CHECK(err == -ENOMEM, "fetch after the failure: %d, want -ENOMEM", err);
    CHECK(got == 2, "%u pictures before the failure, want 2", got);
    if (got) {
        vmaf_picture_unref(&pic[got - 1]);
        CHECK(!vmaf_picture_pool_fetch(pool, &pic[got - 1]), "a returned buffer is served");
    }
    for (unsigned i = 0; i < got; i++) vmaf_picture_unref(&pic[i]);
    vmaf_picture_pool_close(pool);
    CHECK(atomic_load(&a.live) == 0, "leak after a failure");
}

/* close with a picture out: the pool lives until that picture's last unref */
static void test_close_out(void)
{
    Alloc a;
    init_alloc(&a, 0, 0);
    VmafPicturePool *pool = NULL;
    CHECK(!vmaf_picture_pool_init(&pool, config(&a, 4)), "init");
    if (!pool) return;
    VmafPicture p, q;
    CHECK(!vmaf_picture_pool_fetch(pool, &p) && !vmaf_picture_pool_fetch(pool, &q), "fetch");
    vmaf_picture_unref(&q);
    vmaf_picture_pool_close(pool);
    CHECK(atomic_load(&a.live) == 2, "the picture out keeps the pool (%u buffers live)",
          atomic_load(&a.live));
    vmaf_picture_unref(&p);
    CHECK(atomic_load(&a.live) == 0, "the last unref frees the pool (%u left)",
          atomic_load(&a.live));
}

/* several fetching threads sharing a pool smaller than they could hold, pictures going round */
typedef struct Worker {
    VmafPicturePool *pool;
    int err;
} Worker;

static void *worker_main(void *arg)
{
    Worker *w = arg;
    for (int i = 0; i < 200 && !w->err; i++) {
        VmafPicture p[2];
        w->err = vmaf_picture_pool_fetch(w->pool, &p[0]);
        if (w->err) break;
        w->err = vmaf_picture_pool_fetch(w->pool, &p[1]);
        if (!w->err) vmaf_picture_unref(&p[1]);
        vmaf_picture_unref(&p[0]);
    }
    return NULL;
}

static void test_threads(void)
{
    enum { T = 4, N = 8 };
    Alloc a;
    init_alloc(&a, 300, 0);
    VmafPicturePool *pool = NULL;
    CHECK(!vmaf_picture_pool_init(&pool, config(&a, N)), "init");
    if (!pool) return;
    pthread_t th[T];
    Worker w[T];
    for (int i = 0; i < T; i++) {
        w[i] = (Worker){ pool, 0 };
        pthread_create(&th[i], NULL, worker_main, &w[i]);
    }
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK(!w[i].err, "worker %d: %d", i, w[i].err);
    }
    CHECK(atomic_load(&a.calls) <= N, "%u allocations, pool of %u", atomic_load(&a.calls), N);
    vmaf_picture_pool_close(pool);
    CHECK(atomic_load(&a.live) == 0, "leak");
}

typedef struct Prep {
    unsigned calls, undone, fail_next;
    size_t last_len;
} Prep;

static int prep_fn(void *cookie, void *buf, size_t size)
{
    (void)buf;
    Prep *p = cookie;
    p->calls++;
    p->last_len = size;
    if (p->fail_next) {
        p->fail_next--;
        return -EIO;
    }
    return 0;
}

static void unprep_fn(void *cookie, void *buf, size_t size)
{
    (void)buf, (void)size;
    ((Prep *)cookie)->undone++;
}

/* A small 4:2:0 pool of n buffers whose prepare steps are counted in *prep. */
static VmafPicturePoolConfig prep_config(Prep *prep, unsigned n)
{
    const VmafPicturePoolConfig c = {
        .pic_cnt = n, .pix_fmt = VMAF_PIX_FMT_YUV420P, .bpc = 8, .w = 64, .h = 36,
        .prepare = prep_fn, .unprepare = unprep_fn, .cookie = prep,
        .memory = VMAF_PICTURE_MEMORY_HOST,
    };
    return c;
}

static void test_prepare(void)
{
    Prep prep = { 0 };
    const VmafPicturePoolConfig c = prep_config(&prep, 3);
    VmafPicturePool *pool = NULL;
    CHECK(!vmaf_picture_pool_init(&pool, c), "init");
    if (!pool) return;
    VmafPicture a, b, a2;
    CHECK(!vmaf_picture_pool_fetch(pool, &a) && !vmaf_picture_pool_fetch(pool, &b), "fetch");
    prep.fail_next = 1;
    CHECK(vmaf_picture_prepare(&a) == -EIO, "a failed prepare is an error");
    CHECK(!vmaf_picture_prepare(&a) && prep.calls == 2, "then asked again");
    CHECK(!vmaf_picture_prepare(&a) && prep.calls == 2, "done once");
    vmaf_picture_ref(&a2, &a);
    CHECK(!vmaf_picture_prepare(&a2) && prep.calls == 2, "another reference: done already");
    vmaf_picture_unref(&a2);
    CHECK(!vmaf_picture_prepare(&b) && prep.calls == 3, "each buffer its own");
    vmaf_picture_unref(&a);
    CHECK(!vmaf_picture_pool_fetch(pool, &a) && !vmaf_picture_prepare(&a) && prep.calls == 3,
          "a recycled buffer stays prepared");
    vmaf_picture_unref(&a);
    vmaf_picture_unref(&b);
    vmaf_picture_pool_close(pool);
    CHECK(prep.undone == 2, "%u of 2 prepared buffers unprepared at close", prep.undone);
    VmafPicture plain;
    CHECK(!vmaf_picture_alloc(&plain, VMAF_PIX_FMT_YUV420P, 8, 16, 16), "alloc");
    CHECK(!vmaf_picture_prepare(&plain), "no prepare step: a no-op");
    CHECK(!vmaf_picture_prepare_planes(&plain, true), "no prepare step: a no-op (luma)");
    vmaf_picture_unref(&plain);
}

/* Luma-only preparation: the bytes up to the end of plane 0, once; a whole preparation of
 * the same buffer later unprepares and prepares it whole; failures leave it unprepared. */
static void test_prepare_luma(void)
{
    Prep prep = { 0 };
    const VmafPicturePoolConfig c = prep_config(&prep, 2);
    VmafPicturePool *pool = NULL;
    CHECK(!vmaf_picture_pool_init(&pool, c), "init");
    if (!pool) return;
    VmafPictureLayout l;
    CHECK(!vmaf_picture_layout(&l, c.pix_fmt, c.bpc, c.w, c.h), "layout");
    const size_t luma = l.offset[0] + (size_t)l.stride[0] * l.h[0];
    VmafPicture a, b;
    CHECK(!vmaf_picture_pool_fetch(pool, &a) && !vmaf_picture_pool_fetch(pool, &b), "fetch");
    CHECK(!vmaf_picture_prepare_planes(&a, true) && prep.calls == 1, "luma prepared");
    CHECK(prep.last_len == luma && luma < l.size, "%zu bytes prepared, the luma plane ends at %zu",
          prep.last_len, luma);
    CHECK(!vmaf_picture_prepare_planes(&a, true) && prep.calls == 1, "luma once");
    CHECK(!vmaf_picture_prepare(&a) && prep.calls == 2 && prep.undone == 1,
          "then whole: unprepared and prepared again");
    CHECK(prep.last_len >= l.size, "the whole buffer (%zu of %zu bytes)", prep.last_len, l.size);
    CHECK(!vmaf_picture_prepare_planes(&a, true) && !vmaf_picture_prepare(&a) && prep.calls == 2,
          "prepared whole: nothing more to do");
    prep.fail_next = 1;
    CHECK(vmaf_picture_prepare_planes(&b, true) == -EIO && prep.calls == 3, "a failed luma preparation");
    CHECK(!vmaf_picture_prepare(&b) && prep.calls == 4 && prep.undone == 1,
          "is not unprepared; the whole one then runs");
    vmaf_picture_unref(&a);
    vmaf_picture_unref(&b);
    unsigned allocated, prepared;
    size_t bytes;
    vmaf_picture_pool_stats(pool, &allocated, &prepared, &bytes);
    CHECK(allocated == 2 && prepared == 3 && bytes == luma + 2 * prep.last_len,
          "stats: %u allocated, %u prepared, %zu bytes", allocated, prepared, bytes);
    vmaf_picture_pool_close(pool);
    CHECK(prep.undone == 3, "%u unpreparations (1 upgrade + 2 at close)", prep.undone);
}

int main(void)
{
    test_prepare();
    test_prepare_luma();
    test_on_demand();
    test_failure();
    test_close_out();
    test_threads();
    printf("picture_pool: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
