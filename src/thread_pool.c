#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "thread_pool.h"

typedef struct Worker {
    pthread_t thread;
    VmafThreadPool *pool;
    unsigned index;
    unsigned char *job; /* the running job's copy */
    bool started;
} Worker;

struct VmafThreadPool {
    atomic_uint refs;
    pthread_mutex_t lock;
    pthread_cond_t has_job, has_room, idle;
    Worker *workers;
    unsigned n_workers;
    size_t job_size;
    unsigned depth, head, cnt, running;
    unsigned char *jobs;
    VmafThreadPoolJobFn *fns;
    VmafThreadPoolGroup **groups;
    bool stop;
};

static void *worker_main(void *arg)
{
    Worker *w = arg;
    VmafThreadPool *pool = w->pool;
    unsigned char *job = w->job;

    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->cnt && !pool->stop) pthread_cond_wait(&pool->has_job, &pool->lock);
        if (!pool->cnt && pool->stop) break;
        VmafThreadPoolJobFn fn = pool->fns[pool->head];
        VmafThreadPoolGroup *group = pool->groups[pool->head];
        memcpy(job, pool->jobs + (size_t)pool->head * pool->job_size, pool->job_size);
        pool->head = (pool->head + 1) % pool->depth;
        pool->cnt--;
        pool->running++;
        pthread_cond_signal(&pool->has_room);
        pthread_mutex_unlock(&pool->lock);

        fn(job, w->index);

        pthread_mutex_lock(&pool->lock);
        pool->running--;
        const bool group_done = group && !--group->pending;
        if (group_done || (!pool->cnt && !pool->running)) pthread_cond_broadcast(&pool->idle);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

static void destroy(VmafThreadPool *pool)
{
    pthread_mutex_lock(&pool->lock);
    pool->stop = true;
    pthread_cond_broadcast(&pool->has_job);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < pool->n_workers; i++) {
        if (pool->workers[i].started) pthread_join(pool->workers[i].thread, NULL);
        free(pool->workers[i].job);
    }
    pthread_cond_destroy(&pool->idle);
    pthread_cond_destroy(&pool->has_room);
    pthread_cond_destroy(&pool->has_job);
    pthread_mutex_destroy(&pool->lock);
    free(pool->jobs);
    free(pool->fns);
    free(pool->groups);
    free(pool->workers);
    free(pool);
}

int vmaf_thread_pool_create(VmafThreadPool **pool_out, unsigned n_threads, size_t job_size,
                            unsigned queue_depth)
{
    if (!pool_out || !n_threads || !job_size || !queue_depth) return -EINVAL;
    VmafThreadPool *pool = calloc(1, sizeof(*pool));
    if (!pool) return -ENOMEM;
    atomic_init(&pool->refs, 1);
    pool->job_size = job_size;
    pool->depth = queue_depth;
    pool->jobs = malloc((size_t)queue_depth * job_size);
    pool->fns = malloc(queue_depth * sizeof(*pool->fns));
    pool->groups = malloc(queue_depth * sizeof(*pool->groups));
    pool->workers = calloc(n_threads, sizeof(*pool->workers));
    if (!pool->jobs || !pool->fns || !pool->groups || !pool->workers) {
        free(pool->jobs);
        free(pool->fns);
        free(pool->groups);
        free(pool->workers);
        free(pool);
        return -ENOMEM;
    }
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->has_job, NULL);
    pthread_cond_init(&pool->has_room, NULL);
    pthread_cond_init(&pool->idle, NULL);
    for (unsigned i = 0; i < n_threads; i++) {
        pool->workers[i].pool = pool;
        pool->workers[i].index = i;
        pool->workers[i].job = malloc(job_size);
        if (!pool->workers[i].job ||
            pthread_create(&pool->workers[i].thread, NULL, worker_main, &pool->workers[i])) {
            pool->n_workers = i + 1;
            destroy(pool);
            return -ENOMEM;
        }
        pool->workers[i].started = true;
    }
    pool->n_workers = n_threads;
    *pool_out = pool;
    return 0;
}

VmafThreadPool *vmaf_thread_pool_ref(VmafThreadPool *pool)
{
    atomic_fetch_add(&pool->refs, 1);
    return pool;
}

void vmaf_thread_pool_unref(VmafThreadPool *pool)
{
    if (!pool || atomic_fetch_sub(&pool->refs, 1) != 1) return;
    destroy(pool);
}

unsigned vmaf_thread_pool_size(const VmafThreadPool *pool)
{
    return pool ? pool->n_workers : 0;
}

int vmaf_thread_pool_enqueue(VmafThreadPool *pool, VmafThreadPoolGroup *group,
                             VmafThreadPoolJobFn fn, const void *job)
{
    if (!pool || !fn || !job) return -EINVAL;
    pthread_mutex_lock(&pool->lock);
    while (pool->cnt == pool->depth) pthread_cond_wait(&pool->has_room, &pool->lock);
    const unsigned slot = (pool->head + pool->cnt) % pool->depth;
    memcpy(pool->jobs + (size_t)slot * pool->job_size, job, pool->job_size);
    pool->fns[slot] = fn;
    pool->groups[slot] = group;
    if (group) group->pending++;
    pool->cnt++;
    pthread_cond_signal(&pool->has_job);
    pthread_mutex_unlock(&pool->lock);
    return 0;
}

void vmaf_thread_pool_wait(VmafThreadPool *pool, VmafThreadPoolGroup *group)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    if (group)
        while (group->pending) pthread_cond_wait(&pool->idle, &pool->lock);
    else
        while (pool->cnt || pool->running) pthread_cond_wait(&pool->idle, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}
