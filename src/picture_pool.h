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
    bool alloc_zeroes; /* alloc returns zeroed memory (fresh mappings): no memset here */
    void *cookie;
    void (*release_cookie)(void *cookie); /* optional: the pool is gone, after the last free */
    enum VmafPictureMemory memory; /* what alloc returns; device memory is not zeroed here */
    /** Buffers a background thread keeps allocated ahead of demand (0: none, a fetch that
     *  finds no free buffer allocates one itself). For slow allocators (pinning): a fetch
     *  then takes a ready buffer, and waits for that thread rather than allocating while
     *  its caller holds others up. The thread stops at the first failed allocation; later
     *  fetches allocate on demand again, so a failure still reaches a fetch. */
    unsigned alloc_ahead;
} VmafPicturePoolConfig;

int vmaf_picture_pool_init(VmafPicturePool **pool, VmafPicturePoolConfig cfg);

/** Blocks until a buffer is free. The picture is zero-initialised only on first use. */
int vmaf_picture_pool_fetch(VmafPicturePool *pool, VmafPicture *pic);

/** Release the pool; buffers still out are freed when their last picture is unref'd. */
void vmaf_picture_pool_close(VmafPicturePool *pool);

#endif /* VMAF_SRC_PICTURE_POOL_H */
