/* A fixed set of worker threads with a bounded FIFO of jobs. */
#ifndef VMAF_SRC_THREAD_POOL_H
#define VMAF_SRC_THREAD_POOL_H

#include <stddef.h>

typedef struct VmafThreadPool VmafThreadPool;

/**
 * fn(job, worker_data) runs on a worker; *worker_data starts NULL and persists per worker;
 * worker_data_free(worker_data) runs when the pool is destroyed.
 */
typedef void (*VmafThreadPoolJobFn)(void *job, void **worker_data);

int vmaf_thread_pool_create(VmafThreadPool **pool, unsigned n_threads, size_t job_size,
                            unsigned queue_depth, void (*worker_data_free)(void *));

/** Copy job into the queue; blocks while the queue is full. */
int vmaf_thread_pool_enqueue(VmafThreadPool *pool, VmafThreadPoolJobFn fn, const void *job);

/** Block until the queue is empty and no job is running. */
void vmaf_thread_pool_wait(VmafThreadPool *pool);

void vmaf_thread_pool_destroy(VmafThreadPool *pool);

#endif /* VMAF_SRC_THREAD_POOL_H */
