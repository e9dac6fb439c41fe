#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "picture.h"

#define VMAF_MAX_DIMENSION (1u << 15)

int vmaf_picture_layout(VmafPictureLayout *layout, enum VmafPixelFormat pix_fmt,
                        unsigned bpc, unsigned w, unsigned h)
{
    if (!layout) return -EINVAL;
    if (bpc < 8 || bpc > 16) return -EINVAL;
    if (!w || !h || w > VMAF_MAX_DIMENSION || h > VMAF_MAX_DIMENSION) return -EINVAL;

    unsigned ss_x, ss_y, planes = 3;
    switch (pix_fmt) {
    case VMAF_PIX_FMT_YUV420P: ss_x = 1; ss_y = 1; break;
    case VMAF_PIX_FMT_YUV422P: ss_x = 1; ss_y = 0; break;
    case VMAF_PIX_FMT_YUV444P: ss_x = 0; ss_y = 0; break;
    case VMAF_PIX_FMT_YUV400P: ss_x = 0; ss_y = 0; planes = 1; break;
    default: return -EINVAL;
    }

    memset(layout, 0, sizeof(*layout));
    const unsigned bytes = bpc > 8 ? 2 : 1;
    size_t size = 0;
    for (unsigned p = 0; p < planes; p++) {
        layout->w[p] = p ? w >> ss_x : w;
        layout->h[p] = p ? h >> ss_y : h;
        layout->stride[p] = (ptrdiff_t)(((layout->w[p] + 31u) & ~31u) * bytes);
        layout->offset[p] = size;
        size += (size_t)layout->stride[p] * layout->h[p];
    }
    layout->size = size;
    return 0;
}

int vmaf_picture_wrap(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                      unsigned w, unsigned h, void *buf, enum VmafPictureMemory memory,
                      void (*release)(void *cookie, void *buf), void *cookie)
{
    if (!pic || !buf) return -EINVAL;
    VmafPictureLayout layout;
    int err = vmaf_picture_layout(&layout, pix_fmt, bpc, w, h);
    if (err) return err;

    VmafRef *ref = malloc(sizeof(*ref));
    VmafPicturePrivate *priv = malloc(sizeof(*priv));
    if (!ref || !priv) {
        free(ref);
        free(priv);
        return -ENOMEM;
    }
    atomic_init(&ref->cnt, 1);
    *priv = (VmafPicturePrivate){
        .buf = buf, .memory = memory, .release = release, .cookie = cookie,
    };

    memset(pic, 0, sizeof(*pic));
    pic->pix_fmt = pix_fmt;
    pic->bpc = bpc;
    for (unsigned p = 0; p < 3; p++) {
        pic->w[p] = layout.w[p];
        pic->h[p] = layout.h[p];
        pic->stride[p] = layout.stride[p];
        pic->data[p] = layout.h[p] ? (uint8_t *)buf + layout.offset[p] : NULL;
    }
    pic->ref = ref;
    pic->priv = priv;
    return 0;
}

VMAF_EXPORT int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                       unsigned w, unsigned h)
{
    if (!pic) return -EINVAL;
    VmafPictureLayout layout;
    int err = vmaf_picture_layout(&layout, pix_fmt, bpc, w, h);
    if (err) return err;

    const size_t size = (layout.size + 31) & ~(size_t)31;
    void *buf = aligned_alloc(32, size);
    if (!buf) return -ENOMEM;
    memset(buf, 0, size);
    err = vmaf_picture_wrap(pic, pix_fmt, bpc, w, h, buf, VMAF_PICTURE_MEMORY_HOST, NULL, NULL);
    if (err) free(buf);
    return err;
}

enum VmafPictureMemory vmaf_picture_memory(const VmafPicture *pic)
{
    return ((const VmafPicturePrivate *)pic->priv)->memory;
}

void vmaf_picture_mark_range_checked(VmafPicture *pic)
{
    if (pic && pic->priv) ((VmafPicturePrivate *)pic->priv)->range_checked = true;
}

bool vmaf_picture_range_checked(const VmafPicture *pic)
{
    return ((const VmafPicturePrivate *)pic->priv)->range_checked;
}

int vmaf_picture_prepare_planes(const VmafPicture *pic, bool luma_only)
{
    if (!pic || !pic->priv) return -EINVAL;
    const VmafPicturePrivate *priv = pic->priv;
    if (!priv->prepare) return 0;
    /* luma only: the bytes from the buffer's start to the end of plane 0 */
    const size_t len = !luma_only ? SIZE_MAX
                                  : (size_t)((const unsigned char *)pic->data[0] -
                                             (const unsigned char *)priv->buf) +
                                        (size_t)pic->stride[0] * pic->h[0];
    return priv->prepare(priv->cookie, priv->buf, len);
}

int vmaf_picture_prepare(const VmafPicture *pic)
{
    return vmaf_picture_prepare_planes(pic, false);
}

void vmaf_picture_ref(VmafPicture *dst, const VmafPicture *src)
{
    atomic_fetch_add(&src->ref->cnt, 1);
    *dst = *src;
}

VMAF_EXPORT int vmaf_picture_unref(VmafPicture *pic)
{
    if (!pic || !pic->ref || !pic->priv) return -EINVAL;
    if (atomic_fetch_sub(&pic->ref->cnt, 1) == 1) {
        VmafPicturePrivate *priv = pic->priv;
        if (priv->release) priv->release(priv->cookie, priv->buf);
        else free(priv->buf);
        free(priv);
        free(pic->ref);
    }
    memset(pic, 0, sizeof(*pic));
    return 0;
}
