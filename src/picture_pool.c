#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "picture.h"
#include "picture_pool.h"

/*
 * Buffers are allocated on first demand, up to pic_cnt: a short run allocates only the
 * pictures it has in flight, and a long run pays for the rest while its first frames are
 * already being scored. Pinned pools register a buffer after its first fill (prepare), the
 * whole buffer or, for consumers that read only luma, its first plane.
 */
typedef struct Prep {
    size_t len;  /* bytes from the buffer's start prepared (0: none) */
    bool busy;   /* a caller is preparing it (outside the lock) */
} Prep;

struct VmafPicturePool {
    VmafPicturePoolConfig cfg;
    size_t size;          /* bytes of one buffer */
    pthread_mutex_t lock;
    pthread_cond_t available;
    void **buf;           /* buffers allocated so far: buf[0 .. alloc_cnt) */
    void **free_list;     /* stack of allocated buffers not in use */
    Prep *prep;           /* [i]: buf[i]'s preparation */
    unsigned alloc_cnt;   /* buffers allocated, or being allocated by a fetch */
    unsigned free_cnt;
    unsigned out_cnt;     /* buffers held by pictures */
    unsigned prepared;    /* preparations done (statistics) */
    size_t prepared_bytes;
    bool closed;
};

#define HUGE_PAGE ((size_t)2 << 20)

size_t vmaf_picture_map_len(size_t size)
{
    return (size + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

int vmaf_picture_map(size_t size, void **buf)
{
    *buf = NULL;
    if (!size || size > SIZE_MAX - 2 * HUGE_PAGE) return -EINVAL;
    const size_t len = vmaf_picture_map_len(size);
    unsigned char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return -ENOMEM;
    /* keep the 2 MiB-aligned len bytes inside, return the rest */
    unsigned char *p = (unsigned char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (p > raw) munmap(raw, (size_t)(p - raw));
    if (raw + len + HUGE_PAGE > p + len) munmap(p + len, (size_t)(raw + len + HUGE_PAGE - (p + len)));
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE); /* advice only: without THP the pages are small */
#endif
    *buf = p;
    return 0;
}

void vmaf_picture_unmap(void *buf, size_t size)
{
    if (buf) munmap(buf, vmaf_picture_map_len(size));
}

static void pool_destroy(VmafPicturePool *pool)
{
    for (unsigned i = 0; pool->buf && i < pool->alloc_cnt; i++) {
        if (!pool->buf[i]) continue;
        if (pool->prep && pool->prep[i].len && pool->cfg.unprepare)
            pool->cfg.unprepare(pool->cfg.cookie, pool->buf[i], pool->size);
        if (pool->cfg.free) pool->cfg.free(pool->cfg.cookie, pool->buf[i], pool->size);
        else free(pool->buf[i]);
    }
    if (pool->cfg.release_cookie) pool->cfg.release_cookie(pool->cfg.cookie);
    free(pool->buf);
    free(pool->free_list);
    free(pool->prep);
    pthread_cond_destroy(&pool->available);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

static int pool_alloc_buffer(VmafPicturePool *pool, void **out)
{
    const VmafPicturePoolConfig *cfg = &pool->cfg;
    void *buf = NULL;
    int err = 0;
    if (cfg->alloc) {
        err = cfg->alloc(cfg->cookie, pool->size, &buf);
    } else {
        buf = aligned_alloc(32, pool->size);
        err = buf ? 0 : -ENOMEM;
    }
    if (err) return err;
    if (cfg->memory != VMAF_PICTURE_MEMORY_DEVICE && !(cfg->alloc && cfg->alloc_zeroes))
        memset(buf, 0, pool->size);
    *out = buf;
    return 0;
}

int vmaf_picture_pool_init(VmafPicturePool **pool_out, VmafPicturePoolConfig cfg)
{
    if (!pool_out || !cfg.pic_cnt || cfg.pic_cnt > VMAF_PICTURE_POOL_MAX) return -EINVAL;
    VmafPictureLayout layout;
    int err = vmaf_picture_layout(&layout, cfg.pix_fmt, cfg.bpc, cfg.w, cfg.h);
    if (err) return err;

    VmafPicturePool *pool = calloc(1, sizeof(*pool));
    if (!pool) return -ENOMEM;
    pool->cfg = cfg;
    pool->size = (layout.size + 31) & ~(size_t)31;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->available, NULL);
    pool->buf = calloc(cfg.pic_cnt, sizeof(*pool->buf));
    pool->free_list = calloc(cfg.pic_cnt, sizeof(*pool->free_list));
    pool->prep = calloc(cfg.pic_cnt, sizeof(*pool->prep));
    /* the first buffer now, so that an allocator that cannot work fails here */
    err = !pool->buf || !pool->free_list || !pool->prep ? -ENOMEM
                                                         : pool_alloc_buffer(pool, &pool->buf[0]);
    if (err) {
        pool->cfg.release_cookie = NULL; /* a failed init leaves the cookie to the caller */
        pool_destroy(pool);
        return err;
    }
    pool->alloc_cnt = 1;
    pool->free_list[pool->free_cnt++] = pool->buf[0];
    *pool_out = pool;
    return 0;
}

/* vmaf_picture_prepare() of a pool picture: cfg.prepare once per buffer and extent (len bytes
 * from its start, at most the buffer), outside the lock (a registration takes a while); a
 * second caller for the same buffer waits for the first. A buffer prepared for less than is
 * asked now (its luma plane, now the whole) is unprepared and prepared again, whole. */
static int pool_prepare(void *cookie, void *buf, size_t len)
{
    VmafPicturePool *pool = cookie;
    if (len > pool->size) len = pool->size;
    pthread_mutex_lock(&pool->lock);
    unsigned i = 0;
    while (i < pool->alloc_cnt && pool->buf[i] != buf) i++;
    if (i == pool->alloc_cnt) {
        pthread_mutex_unlock(&pool->lock);
        return -EINVAL;
    }
    Prep *p = &pool->prep[i];
    while (p->busy) pthread_cond_wait(&pool->available, &pool->lock);
    if (p->len >= len) {
        pthread_mutex_unlock(&pool->lock);
        return 0;
    }
    const size_t had = p->len;
    p->busy = true;
    pthread_mutex_unlock(&pool->lock);
    if (had) {
        len = pool->size;
        if (pool->cfg.unprepare) pool->cfg.unprepare(pool->cfg.cookie, buf, pool->size);
    }
    const int err = pool->cfg.prepare(pool->cfg.cookie, buf, len);
    pthread_mutex_lock(&pool->lock);
    p->len = err ? 0 : len;
    p->busy = false;
    if (!err) pool->prepared++, pool->prepared_bytes += len;
    pthread_cond_broadcast(&pool->available);
    pthread_mutex_unlock(&pool->lock);
    return err;
}

static void pool_release(void *cookie, void *buf)
{
    VmafPicturePool *pool = cookie;
    pthread_mutex_lock(&pool->lock);
    pool->free_list[pool->free_cnt++] = buf;
    pool->out_cnt--;
    const bool last = pool->closed && !pool->out_cnt;
    pthread_cond_signal(&pool->available);
    pthread_mutex_unlock(&pool->lock);
    if (last) pool_destroy(pool);
}

int vmaf_picture_pool_fetch(VmafPicturePool *pool, VmafPicture *pic)
{
    if (!pool || !pic) return -EINVAL;
    pthread_mutex_lock(&pool->lock);
    /* wait while nothing is free, nothing may be allocated, and buffers are out (or being
     * allocated by another fetch) */
    while (!pool->free_cnt && pool->alloc_cnt == pool->cfg.pic_cnt && pool->out_cnt)
        pthread_cond_wait(&pool->available, &pool->lock);
    void *buf;
    if (pool->free_cnt) {
        buf = pool->free_list[--pool->free_cnt];
        pool->out_cnt++;
        pthread_mutex_unlock(&pool->lock);
    } else if (pool->alloc_cnt < pool->cfg.pic_cnt) {
        /* a new buffer, allocated outside the lock (pinning takes a while); a slot whose
         * allocation failed stays empty, so the pool then holds one buffer fewer */
        const unsigned slot = pool->alloc_cnt++;
        pool->out_cnt++;
        pthread_mutex_unlock(&pool->lock);
        const int err = pool_alloc_buffer(pool, &buf);
        pthread_mutex_lock(&pool->lock);
        bool last = false;
        if (err) {
            pool->out_cnt--;
            last = pool->closed && !pool->out_cnt;
            pthread_cond_broadcast(&pool->available);
        } else {
            pool->buf[slot] = buf;
        }
        pthread_mutex_unlock(&pool->lock);
        if (last) pool_destroy(pool);
        if (err) return err;
    } else {
        /* every allocation failed and nothing is out: waiting would never end */
        pthread_mutex_unlock(&pool->lock);
        return -ENOMEM;
    }
    const VmafPicturePoolConfig *c = &pool->cfg;
    int err = vmaf_picture_wrap(pic, c->pix_fmt, c->bpc, c->w, c->h, buf, c->memory, pool_release,
                                pool);
    if (err) {
        pool_release(pool, buf);
        return err;
    }
    if (c->prepare) ((VmafPicturePrivate *)pic->priv)->prepare = pool_prepare;
    return 0;
}

void vmaf_picture_pool_stats(VmafPicturePool *pool, unsigned *allocated, unsigned *prepared,
                             size_t *prepared_bytes)
{
    pthread_mutex_lock(&pool->lock);
    *allocated = pool->alloc_cnt;
    *prepared = pool->prepared;
    *prepared_bytes = pool->prepared_bytes;
    pthread_mutex_unlock(&pool->lock);
}

void vmaf_picture_pool_close(VmafPicturePool *pool)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->closed = true;
    const bool idle = !pool->out_cnt;
    pthread_mutex_unlock(&pool->lock);
    if (idle) pool_destroy(pool);
}
