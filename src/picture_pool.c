#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "picture.h"
#include "picture_pool.h"

struct VmafPicturePool {
    VmafPicturePoolConfig cfg;
    pthread_mutex_t lock;
    pthread_cond_t available;
    void **buf;           /* all buffers */
    void **free_list;     /* stack of buffers not in use */
    unsigned free_cnt;
    unsigned out_cnt;     /* buffers held by pictures */
    bool closed;
};

static void pool_destroy(VmafPicturePool *pool)
{
    /* also after a failed allocation of the buffer table itself */
    for (unsigned i = 0; pool->buf && i < pool->cfg.pic_cnt; i++) {
        if (!pool->buf[i]) continue;
        if (pool->cfg.free) pool->cfg.free(pool->cfg.cookie, pool->buf[i]);
        else free(pool->buf[i]);
    }
    if (pool->cfg.release_cookie) pool->cfg.release_cookie(pool->cfg.cookie);
    free(pool->buf);
    free(pool->free_list);
    pthread_cond_destroy(&pool->available);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

int vmaf_picture_pool_init(VmafPicturePool **pool_out, VmafPicturePoolConfig cfg)
{
    if (!pool_out || !cfg.pic_cnt || cfg.pic_cnt > VMAF_PICTURE_POOL_MAX) return -EINVAL;
    VmafPictureLayout layout;
    int err = vmaf_picture_layout(&layout, cfg.pix_fmt, cfg.bpc, cfg.w, cfg.h);
    if (err) return err;
    const size_t size = (layout.size + 31) & ~(size_t)31;

    VmafPicturePool *pool = calloc(1, sizeof(*pool));
    if (!pool) return -ENOMEM;
    pool->cfg = cfg;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->available, NULL);
    pool->buf = calloc(cfg.pic_cnt, sizeof(*pool->buf));
    pool->free_list = calloc(cfg.pic_cnt, sizeof(*pool->free_list));
    if (!pool->buf || !pool->free_list) {
        pool_destroy(pool);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < cfg.pic_cnt; i++) {
        void *buf = NULL;
        if (cfg.alloc) {
            err = cfg.alloc(cfg.cookie, size, &buf);
        } else {
            buf = aligned_alloc(32, size);
            err = buf ? 0 : -ENOMEM;
        }
        if (err) {
            pool_destroy(pool);
            return err;
        }
        if (cfg.memory != VMAF_PICTURE_MEMORY_DEVICE) memset(buf, 0, size);
        pool->buf[i] = buf;
        pool->free_list[pool->free_cnt++] = buf;
    }
    *pool_out = pool;
    return 0;
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
    while (!pool->free_cnt)
        pthread_cond_wait(&pool->available, &pool->lock);
    void *buf = pool->free_list[--pool->free_cnt];
    pool->out_cnt++;
    pthread_mutex_unlock(&pool->lock);

    const VmafPicturePoolConfig *c = &pool->cfg;
    int err = vmaf_picture_wrap(pic, c->pix_fmt, c->bpc, c->w, c->h, buf, c->memory, pool_release,
                                pool);
    if (err) pool_release(pool, buf);
    return err;
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
