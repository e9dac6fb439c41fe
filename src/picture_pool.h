/* A fixed set of picture buffers handed out and returned on last unref. */
#ifndef VMAF_SRC_PICTURE_POOL_H
#define VMAF_SRC_PICTURE_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "libvmaf/picture.h"

#include "picture.h"

typedef struct VmafPicturePool VmafPicturePool;

/* A pool bounds memory; more pictures than this is a caller's mistake, not a request. */
#define VMAF_PICTURE_POOL_MAX 4096u

typedef struct VmafPicturePoolConfig {
    unsigned pic_cnt;
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
    /** Optional allocator (e.g. pinned host or device memory); NULL: aligned_alloc/free. */
    int (*alloc)(void *cookie, size_t size, void **buf);
    void (*free)(void *cookie, void *buf, size_t size); /* size: as given to alloc */
    /** Optional: make a buffer ready for its consumer after it was filled (pinning: the
     *  registration of an already faulted-in mapping), once per buffer, through
     *  vmaf_picture_prepare(). len: the bytes from buf's start to prepare, the buffer's
     *  size or its luma plane's end (vmaf_picture_prepare_planes; a later whole preparation
     *  unprepares and prepares again). unprepare undoes it before free. A failure leaves the
     *  buffer unprepared: the next vmaf_picture_prepare() of it tries again. */
    int (*prepare)(void *cookie, void *buf, size_t len);
    void (*unprepare)(void *cookie, void *buf, size_t size);
    bool alloc_zeroes; /* alloc returns zeroed memory (fresh mappings): no memset here */
    void *cookie;
    /* optional: the pool is gone, after the last free (not called when vmaf_picture_pool_init
     * fails: the caller still owns the cookie then) */
    void (*release_cookie)(void *cookie);
    enum VmafPictureMemory memory; /* what alloc returns; device memory is not zeroed here */
} VmafPicturePoolConfig;

/**
 * A picture buffer of at least size bytes: a fresh anonymous mapping, 2 MiB-aligned and a
 * multiple of 2 MiB (vmaf_picture_map_len), advised for transparent huge pages, zeroed and not
 * yet touched, so that whoever fills it first faults its pages in (the CLI's readers, in
 * parallel). A pinned pool's buffers are made so and registered after their first fill.
 */
int vmaf_picture_map(size_t size, void **buf);
void vmaf_picture_unmap(void *buf, size_t size);
size_t vmaf_picture_map_len(size_t size);

int vmaf_picture_pool_init(VmafPicturePool **pool, VmafPicturePoolConfig cfg);

/** Blocks until a buffer is free. The picture is zero-initialised only on first use. */
int vmaf_picture_pool_fetch(VmafPicturePool *pool, VmafPicture *pic);

/** Release the pool; buffers still out are freed when their last picture is unref'd. */
void vmaf_picture_pool_close(VmafPicturePool *pool);

/** Buffers allocated so far, preparations done and the bytes they covered (a buffer prepared
 *  for its luma plane and later whole counts twice). */
void vmaf_picture_pool_stats(VmafPicturePool *pool, unsigned *allocated, unsigned *prepared,
                             size_t *prepared_bytes);

#endif /* VMAF_SRC_PICTURE_POOL_H */
