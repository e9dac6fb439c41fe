/*
 * Twin VMAF — pictures.
 *
 * A VmafPicture is a plain struct over one refcounted buffer holding all planes (Y, U, V).
 * Pictures come only from vmaf_picture_alloc() or a preallocated pool
 * (vmaf_fetch_preallocated_picture()); `ref` and `priv` belong to the library.
 */
#ifndef VMAF_PICTURE_H
#define VMAF_PICTURE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum VmafPixelFormat {
    VMAF_PIX_FMT_UNKNOWN,
    VMAF_PIX_FMT_YUV420P,
    VMAF_PIX_FMT_YUV422P,
    VMAF_PIX_FMT_YUV444P,
    VMAF_PIX_FMT_YUV400P,
};

typedef struct VmafRef VmafRef;

typedef struct VmafPicture {
    enum VmafPixelFormat pix_fmt;
    unsigned bpc;            /**< bits per sample, 8..16; above 8, samples are uint16 LE */
    unsigned w[3], h[3];     /**< plane sizes; chroma is floor-sized (w >> 1 for 4:2:x) */
    ptrdiff_t stride[3];     /**< bytes per row */
    void *data[3];           /**< plane pointers; NULL for 4:0:0 chroma */
    VmafRef *ref;            /**< reference count, owned by the library */
    void *priv;              /**< library-private */
} VmafPicture;

/**
 * Allocate a picture: one zeroed, 32-byte-aligned buffer, strides rounded up to 32 samples.
 *
 * @param pic     picture to fill
 * @param pix_fmt one of VMAF_PIX_FMT_YUV4{20,22,44,00}P
 * @param bpc     bits per sample, 8..16
 * @param w, h    luma size, both nonzero
 * @return 0, -EINVAL on bad arguments, -ENOMEM
 */
int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                       unsigned bpc, unsigned w, unsigned h);

/**
 * Drop one reference. The buffer is freed (or returned to its pool) with the last one.
 * The struct is zeroed.
 *
 * @return 0, or -EINVAL if pic holds no reference
 */
int vmaf_picture_unref(VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_PICTURE_H */
