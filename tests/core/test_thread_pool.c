/*
 * The shared thread pool: one group's wait returns when that group's jobs have run, while
 * another group's jobs are still held back (a wait for the whole pool there would never
 * return: the test would hang and time out); each worker runs one job at a time and jobs see
 * their worker's index below the pool's size; a pool lives while a reference is held, and
 * its last unref runs every queued job first.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "thread_pool.h"
#include "test_util.h"

#define WORKERS 3

typedef struct Shared {
    pthread_mutex_t lock;
    pthread_cond_t open;
    bool gate_open;       /* group B's jobs block until it opens */
    atomic_uint busy[WORKERS]; /* jobs running on each worker */
    atomic_uint ran_a, ran_b, bad_worker, overlap;
} Shared;

typedef struct Job {
    Shared *sh;
    bool gated;
} Job;

static void job_fn(void *mem, unsigned worker)
{
    const Job *job = mem;
    Shared *sh = job->sh;
    if (worker >= WORKERS) {
        atomic_fetch_add(&sh->bad_worker, 1);
        return;
    }
    if (atomic_fetch_add(&sh->busy[worker], 1)) atomic_fetch_add(&sh->overlap, 1);
    if (job->gated) {
        pthread_mutex_lock(&sh->lock);
        while (!sh->gate_open) pthread_cond_wait(&sh->open, &sh->lock);
        pthread_mutex_unlock(&sh->lock);
        atomic_fetch_add(&sh->ran_b, 1);
    } else {
        const struct timespec ts = { 0, 200000 };
        nanosleep(&ts, NULL);
        atomic_fetch_add(&sh->ran_a, 1);
    }
    atomic_fetch_sub(&sh->busy[worker], 1);
}

int main(void)
{
    Shared sh = { .gate_open = false };
    pthread_mutex_init(&sh.lock, NULL);
    pthread_cond_init(&sh.open, NULL);

    VmafThreadPool *pool = NULL;
    CHECK(vmaf_thread_pool_create(&pool, 0, sizeof(Job), 4) < 0, "0 threads accepted");
    CHECK(vmaf_thread_pool_create(&pool, WORKERS, sizeof(Job), 4) == 0, "create failed");
    if (!pool) return 1;
    CHECK(vmaf_thread_pool_size(pool) == WORKERS, "size %u", vmaf_thread_pool_size(pool));

    VmafThreadPoolGroup a = { 0 }, b = { 0 };
    /* one gated job of B holds a worker; A's 40 jobs run on the others */
    Job gated = { &sh, true }, plain = { &sh, false };
    CHECK(vmaf_thread_pool_enqueue(pool, &b, job_fn, &gated) == 0, "enqueue B");
    for (int i = 0; i < 40; i++)
        CHECK(vmaf_thread_pool_enqueue(pool, &a, job_fn, &plain) == 0, "enqueue A %d", i);
    vmaf_thread_pool_wait(pool, &a);
    CHECK(atomic_load(&sh.ran_a) == 40, "A's wait returned after %u of 40",
          atomic_load(&sh.ran_a));
    CHECK(atomic_load(&sh.ran_b) == 0, "B ran before its gate opened");

    /* a second reference keeps the pool; B's job is still queued or running */
    VmafThreadPool *again = vmaf_thread_pool_ref(pool);
    CHECK(again == pool, "ref returned another pool");
    vmaf_thread_pool_unref(pool);
    pthread_mutex_lock(&sh.lock);
    sh.gate_open = true;
    pthread_cond_broadcast(&sh.open);
    pthread_mutex_unlock(&sh.lock);
    vmaf_thread_pool_wait(again, &b);
    CHECK(atomic_load(&sh.ran_b) == 1, "B's wait returned before its job ran");

    /* the last unref runs what is queued */
    for (int i = 0; i < 10; i++) vmaf_thread_pool_enqueue(again, NULL, job_fn, &plain);
    vmaf_thread_pool_unref(again);
    CHECK(atomic_load(&sh.ran_a) == 50, "unref dropped queued jobs: %u of 50 ran",
          atomic_load(&sh.ran_a));
    CHECK(!atomic_load(&sh.bad_worker), "a worker index beyond the pool's size");
    CHECK(!atomic_load(&sh.overlap), "a worker ran two jobs at once");

    pthread_cond_destroy(&sh.open);
    pthread_mutex_destroy(&sh.lock);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
