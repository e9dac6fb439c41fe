/*
 * Twin VMAF — float extractor helpers (float_filter.h): conversion and the separable filter.
 *
 * The passes loop over whole rows with the tap loop outside, so each output sample still
 * receives its products in tap order (the reference's order) while the inner loop is a
 * plain vectorizable row operation. The kernels themselves are in float_filter.h.
 */
#include <stdint.h>
#include <string.h>

#include "float_filter.h"

void vmaf_float_plane_from_picture(const VmafPicture *pic, unsigned plane, float offset,
                                   float *dst, ptrdiff_t dst_stride)
{
    const unsigned w = pic->w[plane], h = pic->h[plane];
    /* the divisor is a power of two: multiplying by its inverse is the same division */
    const float scale = 1.0f / vmaf_float_sample_divisor(pic->bpc);
    if (pic->bpc == 8) {
        for (unsigned i = 0; i < h; i++) {
            const uint8_t *src = (const uint8_t *)pic->data[plane] + i * pic->stride[plane];
            float *out = dst + i * dst_stride;
            for (unsigned j = 0; j < w; j++)
                out[j] = vmaf_float_sample(src[j], scale, offset);
        }
        return;
    }
    for (unsigned i = 0; i < h; i++) {
        const uint16_t *src =
            (const uint16_t *)((const uint8_t *)pic->data[plane] + i * pic->stride[plane]);
        float *out = dst + i * dst_stride;
        for (unsigned j = 0; j < w; j++)
            out[j] = vmaf_float_sample(src[j], scale, offset);
    }
}

static void filter_plane_plain(const float *f, int fw, const float *src, ptrdiff_t src_stride,
                               unsigned w, unsigned h, unsigned step, float *dst,
                               ptrdiff_t dst_stride, float *row)
{
    vmaf_float_filter_plane_kernel(f, fw, src, src_stride, w, h, step, dst, dst_stride, row);
}

#ifdef VMAF_FLOAT_HAVE_AVX2
VMAF_FLOAT_TARGET_AVX2
static void filter_plane_avx2(const float *f, int fw, const float *src, ptrdiff_t src_stride,
                              unsigned w, unsigned h, unsigned step, float *dst,
                              ptrdiff_t dst_stride, float *row)
{
    vmaf_float_filter_plane_kernel(f, fw, src, src_stride, w, h, step, dst, dst_stride, row);
}
#endif

int vmaf_float_filter_plane(enum VmafFloatImpl impl, const float *f, int fw, const float *src,
                            ptrdiff_t src_stride, unsigned w, unsigned h, unsigned step,
                            float *dst, ptrdiff_t dst_stride, float *row)
{
    const int err = vmaf_float_impl_resolve(&impl);
    if (err) return err;
#ifdef VMAF_FLOAT_HAVE_AVX2
    if (impl == VMAF_FLOAT_IMPL_AVX2) {
        filter_plane_avx2(f, fw, src, src_stride, w, h, step, dst, dst_stride, row);
        return 0;
    }
#endif
    filter_plane_plain(f, fw, src, src_stride, w, h, step, dst, dst_stride, row);
    return 0;
}
