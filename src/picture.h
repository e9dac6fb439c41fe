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

#endif /* VMAF_SRC_PICTURE_H */
