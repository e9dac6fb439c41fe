#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "thread_pool.h"

typedef struct Worker {
    pthread_t thread;
    VmafThreadPool *pool;
    void *data;
    unsigned char *job; /* the running job's copy */
    bool started;
} Worker;

struct VmafThreadPool {
    pthread_mutex_t lock;
    pthread_cond_t has_job, has_room, idle;
    Worker *workers;
    unsigned n_workers;
    size_t job_size;
    unsigned depth, head, cnt, running;
    unsigned char *jobs;
    VmafThreadPoolJobFn *fns;
    bool stop;
    void (*worker_data_free)(void *);
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
        memcpy(job, pool->jobs + (size_t)pool->head * pool->job_size, pool->job_size);
        pool->head = (pool->head + 1) % pool->depth;
        pool->cnt--;
        pool->running++;
        pthread_cond_signal(&pool->has_room);
        pthread_mutex_unlock(&pool->lock);

        fn(job, &w->data);

        pthread_mutex_lock(&pool->lock);
        pool->running--;
        if (!pool->cnt && !pool->running) pthread_cond_broadcast(&pool->idle);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

int vmaf_thread_pool_create(VmafThreadPool **pool_out, unsigned n_threads, size_t job_size,
                            unsigned queue_depth, void (*worker_data_free)(void *))
{
    if (!pool_out || !n_threads || !job_size || !queue_depth) return -EINVAL;
    VmafThreadPool *pool = calloc(1, sizeof(*pool));
    if (!pool) return -ENOMEM;
    pool->job_size = job_size;
    pool->depth = queue_depth;
    pool->worker_data_free = worker_data_free;
    pool->jobs = malloc((size_t)queue_depth * job_size);
    pool->fns = malloc(queue_depth * sizeof(*pool->fns));
    pool->workers = calloc(n_threads, sizeof(*pool->workers));
    if (!pool->jobs || !pool->fns || !pool->workers) {
        free(pool->jobs);
        free(pool->fns);
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
        pool->workers[i].job = malloc(job_size);
        if (!pool->workers[i].job ||
            pthread_create(&pool->workers[i].thread, NULL, worker_main, &pool->workers[i])) {
            pool->n_workers = i + 1;
            vmaf_thread_pool_destroy(pool);
            return -ENOMEM;
        }
        pool->workers[i].started = true;
    }
    pool->n_workers = n_threads;
    *pool_out = pool;
    return 0;
}

int vmaf_thread_pool_enqueue(VmafThreadPool *pool, VmafThreadPoolJobFn fn, const void *job)
{
    if (!pool || !fn || !job) return -EINVAL;
    pthread_mutex_lock(&pool->lock);
    while (pool->cnt == pool->depth) pthread_cond_wait(&pool->has_room, &pool->lock);
    const unsigned slot = (pool->head + pool->cnt) % pool->depth;
    memcpy(pool->jobs + (size_t)slot * pool->job_size, job, pool->job_size);
    pool->fns[slot] = fn;
    pool->cnt++;
    pthread_cond_signal(&pool->has_job);
    pthread_mutex_unlock(&pool->lock);
    return 0;
}

void vmaf_thread_pool_wait(VmafThreadPool *pool)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    while (pool->cnt || pool->running) pthread_cond_wait(&pool->idle, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}

void vmaf_thread_pool_destroy(VmafThreadPool *pool)
{
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->stop = true;
    pthread_cond_broadcast(&pool->has_job);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < pool->n_workers; i++) {
        if (pool->workers[i].started) pthread_join(pool->workers[i].thread, NULL);
        if (pool->workers[i].data && pool->worker_data_free)
            pool->worker_data_free(pool->workers[i].data);
        free(pool->workers[i].job);
    }
    pthread_cond_destroy(&pool->idle);
    pthread_cond_destroy(&pool->has_room);
    pthread_cond_destroy(&pool->has_job);
    pthread_mutex_destroy(&pool->lock);
    free(pool->jobs);
    free(pool->fns);
    free(pool->workers);
    free(pool);
}
