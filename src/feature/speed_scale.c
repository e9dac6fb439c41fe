/*
 * Twin VMAF — SpEED: the Gaussian filters, the separable filter with decimation, and the
 * prescale resamplers (nearest, bilinear, bicubic, lanczos4).
 *
 * Every value is computed with the reference's precision and operation order; where the
 * reference evaluates an expression in double (the Gaussian, lanczos' sines, the sample
 * positions) so do we, rounding to float where it stores a float.
 *
 * The resamplers compute, per output column and per output row, the source indices and
 * weights once (they depend only on the output coordinate) and then combine them per
 * sample in the reference's order; the values equal a per-sample evaluation.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "speed.h"
#include "speed_device.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- filters ------------------------------------------------------------------------- */

int vmaf_speed_check_kernelscale(float kernelscale)
{
    for (int i = 0; i < VMAF_SPEED_NUM_KERNELSCALES; i++)
        if (fabsf(kernelscale - vmaf_speed_kernelscales[i]) < VMAF_SPEED_KERNELSCALE_TOLERANCE)
            return 0;
    return -EINVAL;
}

int vmaf_speed_scale_method(const char *name, enum VmafSpeedScaleMethod *method)
{
    static const struct {
        const char *name;
        enum VmafSpeedScaleMethod method;
    } methods[] = {
        { "nearest", VMAF_SPEED_SCALE_NEAREST },
        { "bilinear", VMAF_SPEED_SCALE_BILINEAR },
        { "bicubic", VMAF_SPEED_SCALE_BICUBIC },
        { "lanczos4", VMAF_SPEED_SCALE_LANCZOS4 },
    };
    if (!name) return -EINVAL;
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        if (!strcmp(name, methods[i].name)) {
            *method = methods[i].method;
            return 0;
        }
    }
    return -EINVAL;
}

/* ceil, then up to the next odd integer */
static int odd_ceil(float x)
{
    const int c = (int)ceil(x);
    return (c % 2 == 0) ? c + 1 : c;
}

int vmaf_speed_filter_width(int scale, float kernelscale)
{
    const int base = (1 << (4 - scale)) + 1;
    const int width = odd_ceil(base * kernelscale);
    return width > 3 ? width : 3;
}

/* Normalised Gaussian of `width` taps centred on the middle one. Each tap is the density
 * exp(-x^2 / 2 sigma^2) divided by (float)(1 / (sigma sqrt(2 pi))), both rounded to float. */
static void gaussian(float *out, int width, float sigma)
{
    const float divisor = (float)(1 / (sigma * sqrt(2 * M_PI)));
    const int half = (width - 1) / 2;
    float total = 0;
    for (int i = 0; i < width; i++) {
        const float x = (float)(i - half);
        const float density = (float)exp(-0.5 * x / sigma * x / sigma);
        out[i] = density / divisor;
        total += out[i];
    }
    for (int i = 0; i < width; i++)
        out[i] /= total;
}

void vmaf_speed_mean_filter(float *out, float kernelscale)
{
    const int width = vmaf_speed_filter_width(VMAF_SPEED_NUM_SCALES, kernelscale);
    gaussian(out, width, width / 5.0f);
}

void vmaf_speed_antialias_filter(float *out, float kernelscale)
{
    /* the width of the scale-1 filter with the sigma of scale NUM_SCALES */
    const int width = vmaf_speed_filter_width(1, kernelscale);
    gaussian(out, width, (float)(sqrt(VMAF_SPEED_NUM_SCALES) * width / 5.0f));
}

/* Reflect-101 into [0, n): -1 -> 1, n -> n-2. Periodic, so defined for any i and n >= 1;
 * for |overshoot| < n it is the single reflection the reference uses. */
int vmaf_speed_reflect(int i, int n)
{
    return vmaf_reflect101(i, n);
}

/* acc[j] += f * row[j]; fixed-size blocks so that -O2 vectorizes the bulk */
static void accumulate(float *restrict acc, const float *restrict row, float f, unsigned n)
{
    enum { BLOCK = 16 };
    unsigned j = 0;
    for (; j + BLOCK <= n; j += BLOCK)
        for (unsigned t = 0; t < BLOCK; t++)
            acc[j + t] += f * row[j + t];
    for (; j < n; j++)
        acc[j] += f * row[j];
}

void vmaf_speed_rows_needed(uint8_t *needed, unsigned h, unsigned step, int width)
{
    const int radius = width / 2;
    memset(needed, 0, h);
    for (unsigned oi = 0; oi < h / step; oi++)
        for (int k = 0; k < width; k++)
            needed[vmaf_speed_reflect((int)(oi * step) - radius + k, (int)h)] = 1;
}

void vmaf_speed_filter_kept_columns(const float *filter, int width, const float *tmp,
                                    unsigned w, unsigned step, float *out)
{
    const int radius = width / 2;
    for (unsigned oj = 0; oj < w / step; oj++) {
        const int j = (int)(oj * step) - radius;
        float acc = 0.0f;
        if (j >= 0 && j + width <= (int)w) {
            for (int k = 0; k < width; k++)
                acc += filter[k] * tmp[j + k];
        } else {
            for (int k = 0; k < width; k++)
                acc += filter[k] * tmp[vmaf_speed_reflect(j + k, (int)w)];
        }
        out[oj] = acc;
    }
}

void vmaf_speed_filter_decimate(const float *filter, int width, const float *src,
                                ptrdiff_t src_stride, unsigned w, unsigned h, unsigned step,
                                float *dst, ptrdiff_t dst_stride, float *tmp)
{
    const int radius = width / 2;
    for (unsigned oi = 0; oi < h / step; oi++) {
        /* vertical pass at row step*oi, every column: sum over taps in tap order */
        for (unsigned j = 0; j < w; j++)
            tmp[j] = 0.0f;
        for (int k = 0; k < width; k++) {
            const int y = vmaf_speed_reflect((int)(oi * step) - radius + k, (int)h);
            accumulate(tmp, src + y * src_stride, filter[k], w);
        }
        vmaf_speed_filter_kept_columns(filter, width, tmp, w, step, dst + oi * dst_stride);
    }
}

/* ---- resamplers ------------------------------------------------------------------------ */

static float cubic_weight(float t)
{
    const float a = -0.75f;
    if (t < 0) t = -t;
    if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
    return 0;
}

static float lanczos_weight(float x, float a)
{
    if (x == 0.0) return 1.0f;
    if (!(x > -a && x < a)) return 0.0f;
    const double px = M_PI * x;
    return (float)(a * sin(px) * sin(px / a) / (M_PI * M_PI * x * x));
}

/* Source position of output coordinate i for a size ratio, as the reference rounds it. */
static float center_position(unsigned i, float ratio)
{
    return (float)((i + 0.5) * ratio - 0.5);
}

/* Indices and weights of one output coordinate along one axis. */
static void axis_entry(enum VmafSpeedScaleMethod method, unsigned i, float ratio, int n,
                       int *index, float *weight)
{
    switch (method) {
    case VMAF_SPEED_SCALE_NEAREST:
        index[0] = (int)((float)i * ratio);
        break;
    case VMAF_SPEED_SCALE_BILINEAR: {
        const float pos = center_position(i, ratio);
        index[0] = vmaf_speed_reflect((int)floor(pos), n);
        index[1] = vmaf_speed_reflect((int)ceil(pos), n);
        weight[0] = pos - (float)index[0];
        break;
    }
    case VMAF_SPEED_SCALE_BICUBIC: {
        const float pos = center_position(i, ratio);
        const int base = (int)floor(pos);
        const float frac = pos - (float)base;
        for (int t = 0; t < 4; t++) {
            index[t] = vmaf_speed_reflect(base + t - 1, n);
            weight[t] = cubic_weight((float)(t - 1) - frac);
        }
        break;
    }
    case VMAF_SPEED_SCALE_LANCZOS4: {
        const int a = VMAF_SPEED_LANCZOS_A;
        const float pos = center_position(i, ratio);
        const int base = (int)floor(pos);
        const float frac = pos - (float)base;
        for (int t = 0; t < 2 * a + 1; t++) {
            index[t] = vmaf_speed_reflect(base + t - a, n);
            weight[t] = lanczos_weight((float)(t - a) - frac, (float)a);
        }
        break;
    }
    }
}

void vmaf_speed_scaler_close(VmafSpeedScaler *s)
{
    free(s->col_index);
    free(s->col_weight);
    free(s->row_index);
    free(s->row_weight);
    s->col_index = s->row_index = NULL;
    s->col_weight = s->row_weight = NULL;
}

int vmaf_speed_scaler_init(VmafSpeedScaler *s, enum VmafSpeedScaleMethod method,
                           unsigned src_w, unsigned src_h, unsigned dst_w, unsigned dst_h)
{
    static const int taps_of[] = {
        [VMAF_SPEED_SCALE_NEAREST] = 1,
        [VMAF_SPEED_SCALE_BILINEAR] = 2,
        [VMAF_SPEED_SCALE_BICUBIC] = 4,
        [VMAF_SPEED_SCALE_LANCZOS4] = 2 * VMAF_SPEED_LANCZOS_A + 1,
    };
    memset(s, 0, sizeof(*s));
    s->method = method;
    s->src_w = src_w;
    s->src_h = src_h;
    s->dst_w = dst_w;
    s->dst_h = dst_h;
    s->copy = src_w == dst_w && src_h == dst_h;
    s->taps = taps_of[method];
    if (s->copy) return 0;

    const size_t taps = (size_t)s->taps;
    s->col_index = calloc((size_t)dst_w * taps, sizeof(int));
    s->col_weight = calloc((size_t)dst_w * taps, sizeof(float));
    s->row_index = calloc((size_t)dst_h * taps, sizeof(int));
    s->row_weight = calloc((size_t)dst_h * taps, sizeof(float));
    if (!s->col_index || !s->col_weight || !s->row_index || !s->row_weight) {
        vmaf_speed_scaler_close(s);
        return -ENOMEM;
    }
    const float ratio_x = (float)src_w / (float)dst_w;
    const float ratio_y = (float)src_h / (float)dst_h;
    for (unsigned x = 0; x < dst_w; x++)
        axis_entry(method, x, ratio_x, (int)src_w, s->col_index + x * taps,
                   s->col_weight + x * taps);
    for (unsigned y = 0; y < dst_h; y++)
        axis_entry(method, y, ratio_y, (int)src_h, s->row_index + y * taps,
                   s->row_weight + y * taps);
    return 0;
}

static void scale_row_nearest(const VmafSpeedScaler *s, const float *src,
                              ptrdiff_t stride, unsigned y, float *dst)
{
    const float *row = src + s->row_index[y] * stride;
    for (unsigned x = 0; x < s->dst_w; x++)
        dst[x] = row[s->col_index[x]];
}

static void scale_row_bilinear(const VmafSpeedScaler *s, const float *src,
                               ptrdiff_t stride, unsigned y, float *dst)
{
    const float *r1 = src + s->row_index[2 * y] * stride;
    const float *r2 = src + s->row_index[2 * y + 1] * stride;
    const float dy = s->row_weight[2 * y];
    for (unsigned x = 0; x < s->dst_w; x++) {
        const int x1 = s->col_index[2 * x], x2 = s->col_index[2 * x + 1];
        const float dx = s->col_weight[2 * x];
        const float top_left = (1 - dy) * (1 - dx) * r1[x1];
        const float top_right = (1 - dy) * dx * r1[x2];
        const float bottom_left = dy * (1 - dx) * r2[x1];
        const float bottom_right = dy * dx * r2[x2];
        dst[x] = top_left + top_right + bottom_left + bottom_right;
    }
}

static void scale_row_bicubic(const VmafSpeedScaler *s, const float *src,
                              ptrdiff_t stride, unsigned y, float *dst)
{
    const int *ri = s->row_index + 4 * y;
    const float *rw = s->row_weight + 4 * y;
    for (unsigned x = 0; x < s->dst_w; x++) {
        const int *ci = s->col_index + 4 * x;
        const float *cw = s->col_weight + 4 * x;
        float acc = 0.0f;
        for (int t = 0; t < 4; t++) {
            const float *row = src + ri[t] * stride;
            for (int u = 0; u < 4; u++)
                acc += row[ci[u]] * (cw[u] * rw[t]);
        }
        dst[x] = acc;
    }
}

static void scale_row_lanczos(const VmafSpeedScaler *s, const float *src,
                              ptrdiff_t stride, unsigned y, float *dst)
{
    enum { TAPS = 2 * VMAF_SPEED_LANCZOS_A + 1 };
    const int *ri = s->row_index + TAPS * y;
    const float *rw = s->row_weight + TAPS * y;
    for (unsigned x = 0; x < s->dst_w; x++) {
        const int *ci = s->col_index + TAPS * x;
        const float *cw = s->col_weight + TAPS * x;
        float acc = 0.0f, weights = 0.0f;
        for (int t = 0; t < TAPS; t++) {
            const float *row = src + ri[t] * stride;
            for (int u = 0; u < TAPS; u++) {
                const float wgt = cw[u] * rw[t];
                weights += wgt;
                acc += row[ci[u]] * wgt;
            }
        }
        dst[x] = acc / weights;
    }
}

void vmaf_speed_scale_row(const VmafSpeedScaler *s, const float *src, ptrdiff_t src_stride,
                          unsigned y, float *dst)
{
    if (s->copy) {
        memcpy(dst, src + y * src_stride, s->dst_w * sizeof(float));
        return;
    }
    switch (s->method) {
    case VMAF_SPEED_SCALE_NEAREST: scale_row_nearest(s, src, src_stride, y, dst); break;
    case VMAF_SPEED_SCALE_BILINEAR: scale_row_bilinear(s, src, src_stride, y, dst); break;
    case VMAF_SPEED_SCALE_BICUBIC: scale_row_bicubic(s, src, src_stride, y, dst); break;
    case VMAF_SPEED_SCALE_LANCZOS4: scale_row_lanczos(s, src, src_stride, y, dst); break;
    }
}
