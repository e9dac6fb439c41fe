/* Picture internals: refcounting, buffer ownership and layout. */
#ifndef VMAF_SRC_PICTURE_H
#define VMAF_SRC_PICTURE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "libvmaf/picture.h"

struct VmafRef {
    atomic_int cnt;
};

/** Where a picture's samples live. */
enum VmafPictureMemory {
    VMAF_PICTURE_MEMORY_HOST = 0,
    VMAF_PICTURE_MEMORY_HOST_PINNED, /* page-locked: uploads straight from it */
    VMAF_PICTURE_MEMORY_DEVICE,      /* data[] are CUdeviceptr values */
};

/** Who owns the buffer, and how it goes back when the last reference drops. */
typedef struct VmafPicturePrivate {
    void *buf;
    enum VmafPictureMemory memory;
    void (*release)(void *cookie, void *buf); /**< NULL: free(buf) */
    /** Optional (pools with a prepare step): vmaf_picture_prepare() calls it with the bytes
     *  from buf's start that must be ready (the whole buffer, or its luma plane). */
    int (*prepare)(void *cookie, void *buf, size_t len);
    void *cookie;
    bool range_checked; /**< a reader of the CLI checked every sample against bpc */
    unsigned readers;   /**< contexts handed this picture together (vmaf_picture_set_readers) */
    struct VmafSideStore *store;          /**< where side products take memory; NULL: malloc */
    struct VmafPictureSide *_Atomic side; /**< side products, made on first use */
} VmafPicturePrivate;

/** Bytes one picture of this geometry needs, with the strides and plane offsets. */
typedef struct VmafPictureLayout {
    unsigned w[3], h[3];
    ptrdiff_t stride[3];
    size_t offset[3];
    size_t size;
} VmafPictureLayout;

int vmaf_picture_layout(VmafPictureLayout *layout, enum VmafPixelFormat pix_fmt,
                        unsigned bpc, unsigned w, unsigned h);

/**
 * Wrap buf (at least layout.size bytes, 32-byte aligned) into a picture with refcount 1;
 * release(cookie, buf) runs when the last reference drops.
 */
int vmaf_picture_wrap(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                      unsigned w, unsigned h, void *buf, enum VmafPictureMemory memory,
                      void (*release)(void *cookie, void *buf), void *cookie);

/** Where pic's samples live. */
enum VmafPictureMemory vmaf_picture_memory(const VmafPicture *pic);

/**
 * Internal (the CLI): every sample of pic was checked against its bit depth when it was
 * read, so vmaf_read_pictures need not scan it again. Reset whenever the buffer is reused.
 */
void vmaf_picture_mark_range_checked(VmafPicture *pic);

/** Was pic's sample range checked when it was read? */
bool vmaf_picture_range_checked(const VmafPicture *pic);

/**
 * Make pic's buffer ready for its consumer, once per buffer (a pinned pool registers its
 * mapping here, after the buffer was first filled): 0 when done or nothing to do.
 */
int vmaf_picture_prepare(const VmafPicture *pic);

/**
 * The same, for the luma plane only when luma_only (the bytes from the buffer's start to the
 * end of plane 0), for consumers that never read chroma: a pinned pool then registers ~2/3 of
 * a 4:2:0 buffer, which costs less to pin and to unpin. A later whole preparation of the same
 * buffer prepares the rest. vmaf_picture_prepare(pic) is (pic, false).
 */
int vmaf_picture_prepare_planes(const VmafPicture *pic, bool luma_only);

/** dst becomes another reference to src's buffer. */
void vmaf_picture_ref(VmafPicture *dst, const VmafPicture *src);

/*
 * Side products: what an extractor computes from one picture alone, kept with the picture
 * for the other contexts that score it. A ladder hands one reference picture to n rungs and
 * says so with vmaf_picture_set_readers(pic, n) before any of them reads it; an extractor
 * whose work splits exactly into a part of the reference alone and a part of the pair may
 * then take the first part from vmaf_picture_side_get(): the first caller of a key computes
 * it (the others wait for it, not holding any lock the computation needs), the later ones
 * reuse it. Every get that succeeded is matched by a put once the caller is done reading;
 * when n puts of a key have come and no reader is left, its memory is released (a later get
 * would compute it again), and whatever is left goes with the picture's last reference.
 * So a frame's products live while its rungs read them, at most as long as the picture.
 *
 * Memory: a store (one per ladder) keeps the blocks its pictures released for the next
 * frames' products, so that frame after frame reuses the same few blocks: no page faults,
 * and no large block freed to the C library (glibc would then raise its mmap threshold
 * and serve every later large allocation of the process from its heaps, which grow). A
 * store hands out at most max_blocks blocks of each kind of product (each key) at once (a
 * get beyond that fails with -ENOMEM and its caller computes without the product), so a
 * rung far behind the others costs time, not memory, and one kind of product never takes
 * the room of another; it holds at most max_blocks times the number of keys asked for,
 * out and free together (a free block of another size is dropped to make room). It is
 * reference counted, each picture given it holding a reference, and freed with the last.
 */
typedef struct VmafSideStore VmafSideStore;

/** A store of at most max_blocks blocks per key (0: no limit) with one reference (the
 *  caller's).
 *  @return 0, -EINVAL or -ENOMEM */
int vmaf_side_store_create(VmafSideStore **store, unsigned max_blocks);

/** Drop a reference (NULL: nothing). */
void vmaf_side_store_unref(VmafSideStore *store);

/**
 * n contexts read pic together (n >= 2 makes side products worth their memory); its side
 * products take their memory from store (NULL: malloc and free), which pic then holds.
 * Before any side product of pic is made.
 */
void vmaf_picture_set_readers(VmafPicture *pic, unsigned n, VmafSideStore *store);

/** The number set by vmaf_picture_set_readers() (0: never set, a picture of one context). */
unsigned vmaf_picture_readers(const VmafPicture *pic);

/**
 * Does pic keep side products (two or more readers)? vmaf_picture_side_acquire() answers
 * -ENOENT when not; an extractor asks this first, so that a picture of one context (a
 * single run) costs it no key built per frame.
 */
static inline bool vmaf_picture_side_shared(const VmafPicture *pic)
{
    return vmaf_picture_readers(pic) >= 2;
}

/** Computes a side product into data (size bytes, 64-byte aligned, uninitialised). */
typedef int (*VmafPictureSideFn)(void *data, size_t size, void *arg);

/**
 * The side product of pic under key (at most 63 characters; it names the extractor and
 * everything that changes the product): computed by compute(data, size, arg) if no other
 * caller did, else the one computed, waited for if still in progress. *data is read-only.
 * @return 0, compute's error or -ENOMEM (then nothing was kept: the caller computes
 *         without it)
 */
int vmaf_picture_side_get(const VmafPicture *pic, const char *key, size_t size,
                          VmafPictureSideFn compute, void *arg, const void **data);

/** Is another caller computing pic's product under key right now? (A get would wait.) */
bool vmaf_picture_side_busy(const VmafPicture *pic, const char *key);

/**
 * An extractor's way to its side product (the steps every one takes): -ENOENT when pic has
 * fewer than two readers (a picture of one context keeps none: the caller computes without
 * it); -EAGAIN when nowait (VmafFeatureFrame.side_nowait) and another caller computes the
 * product now (nothing done: the caller returns -EAGAIN and is asked again later); else
 * vmaf_picture_side_get()'s result, a success to be matched by vmaf_picture_side_put().
 */
int vmaf_picture_side_acquire(const VmafPicture *pic, const char *key, size_t size,
                              VmafPictureSideFn compute, void *arg, bool nowait,
                              const void **data);

/** The caller of a successful get is done with data. */
void vmaf_picture_side_put(const VmafPicture *pic, const void *data);

/** How many side products of pic were computed so far, all keys (tests, statistics). */
unsigned vmaf_picture_side_made(const VmafPicture *pic);

#endif /* VMAF_SRC_PICTURE_H */
