/*
 * A fixed set of worker threads with a bounded FIFO of jobs, shared by reference: several
 * contexts (a ladder's rungs) may enqueue into one pool, each waiting for its own jobs only
 * (a group), so that K contexts of n threads run on n threads, not K * n.
 */
#ifndef VMAF_SRC_THREAD_POOL_H
#define VMAF_SRC_THREAD_POOL_H

#include <stddef.h>

typedef struct VmafThreadPool VmafThreadPool;

/** fn(job, worker) runs on worker number `worker` (0 .. size - 1): a job may keep per-worker
 *  state indexed by it, since one worker runs one job at a time. */
typedef void (*VmafThreadPoolJobFn)(void *job, unsigned worker);

/** The jobs of one client of a pool; zero-initialised, guarded by the pool. */
typedef struct VmafThreadPoolGroup {
    unsigned pending; /* queued or running */
} VmafThreadPoolGroup;

/** A pool of n_threads workers, jobs of job_size bytes, at most queue_depth queued; one
 *  reference (the caller's). */
int vmaf_thread_pool_create(VmafThreadPool **pool, unsigned n_threads, size_t job_size,
                            unsigned queue_depth);

/** Another reference to pool. */
VmafThreadPool *vmaf_thread_pool_ref(VmafThreadPool *pool);

/** Drop a reference (NULL: nothing); the last waits for every job and joins the workers. */
void vmaf_thread_pool_unref(VmafThreadPool *pool);

/** The number of workers. */
unsigned vmaf_thread_pool_size(const VmafThreadPool *pool);

/** Copy job into the queue as one of group's (NULL: no group); blocks while the queue is
 *  full. */
int vmaf_thread_pool_enqueue(VmafThreadPool *pool, VmafThreadPoolGroup *group,
                             VmafThreadPoolJobFn fn, const void *job);

/** Block until group's jobs have all run (group NULL: until the queue is empty and no job is
 *  running). */
void vmaf_thread_pool_wait(VmafThreadPool *pool, VmafThreadPoolGroup *group);

#endif /* VMAF_SRC_THREAD_POOL_H */
