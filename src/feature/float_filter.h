/*
 * Twin VMAF — helpers shared by the float extractors (float_vif, float_motion, float_adm):
 * samples to float, reflection at the borders, and the pieces of a separable filter.
 *
 * Samples. Reference libvmaf converts a plane to float as (float)v / d + offset, with d = 1
 * for 8-bit samples and d = 4, 16, 256 for 10, 12 and 16 bits (offset -128 for the float
 * features). It has no case for 9, 11, 13, 14 or 15 bits (it would read those 16-bit samples
 * as bytes); Twin VMAF uses d = 2^(bpc-8) for every depth, which is the same d where the
 * reference defines one. Dividing by a power of two is exact.
 *
 * Filters. The float features filter with a symmetric kernel f of odd width, vertically
 * first, then horizontally:
 *   v(i, j) = 0 + f[0] x(r(i-R), j) + f[1] x(r(i-R+1), j) + ... (left to right, in float)
 *   y(i, j) = 0 + f[0] v(i, r(j-R)) + f[1] v(i, r(j-R+1)) + ...
 * where R = width/2 and r() reflects without repeating the edge sample (-1 -> 1, n -> n-2).
 * Every product and every partial sum is rounded to float, in exactly that order: that is
 * what the reference's scalar and AVX2 code both compute (the AVX2 code only changes which
 * lanes compute which sums). The helpers below keep that order per output sample while
 * looping over whole rows, so that the compiler can vectorize them.
 */
#ifndef VMAF_FEATURE_FLOAT_FILTER_H
#define VMAF_FEATURE_FLOAT_FILTER_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <errno.h>
#include <stddef.h>
#endif

#include "reflect.h"
#if !VMAF_DIALECT_OPENCL
#include "libvmaf/picture.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** What the float features add to every sample (after the depth scaling). */
#define VMAF_FLOAT_SAMPLE_OFFSET (-128.0f)

/** Bytes a float row is rounded up to, as the reference lays out its float planes. */
enum { VMAF_FLOAT_ROW_ALIGN = 32 };

/** Floats per row of a float plane of width w in the reference's layout. */
static inline size_t vmaf_float_stride(unsigned w)
{
    const size_t bytes = (size_t)w * sizeof(float);
    return (bytes + VMAF_FLOAT_ROW_ALIGN - 1) / VMAF_FLOAT_ROW_ALIGN * VMAF_FLOAT_ROW_ALIGN /
           sizeof(float);
}

/** The divisor that brings bpc-bit samples to the 8-bit range (see above). */
VMAF_DEVICE_FN float vmaf_float_sample_divisor(unsigned bpc)
{
    return (float)(1u << (bpc - 8));
}

/** One sample as a float: scale = 1 / vmaf_float_sample_divisor(bpc) (a power of two). */
VMAF_DEVICE_FN float vmaf_float_sample(unsigned v, float scale, float offset)
{
    return (float)v * scale + offset;
}

/**
 * One output of a filter pass: 0 + f[0] x[0] + f[1] x[1] + ... + f[fw-1] x[fw-1], in float,
 * in that order (x: the fw reflected inputs). This is what every output sample of the
 * passes below receives.
 */
VMAF_DEVICE_FN float vmaf_float_taps(const float *f, int fw, const float *x)
{
    float acc = 0.0f;
    for (int k = 0; k < fw; k++)
        acc += f[k] * x[k];
    return acc;
}

/*
 * The GPU's tiles of the separable filter. A tile of th x tw outputs with its corner at
 * (y0, x0) holds the (th + 2R) x (tw + 2R) converted samples around it, src[r][c] = x at row
 * reflect(y0 - R + r), column reflect(x0 - R + c); the vertical pass gives v[r][c] (th rows,
 * tw + 2R columns) and the horizontal pass the outputs. Each output gets exactly the
 * products and sums of the passes above, in their order.
 */
/** v[r][c] of a tile (stride: floats per tile row): vmaf_float_taps down a column. */
VMAF_DEVICE_FN float vmaf_float_tile_vertical(const float *f, int fw, const float *src, int stride,
                                              int r, int c)
{
    float acc = 0.0f;
    for (int k = 0; k < fw; k++)
        acc += f[k] * src[(r + k) * stride + c];
    return acc;
}

/** Output (r, c) of a tile from its vertical pass. */
VMAF_DEVICE_FN float vmaf_float_tile_horizontal(const float *f, int fw, const float *v, int stride,
                                                int r, int c)
{
    return vmaf_float_taps(f, fw, v + r * stride + c);
}

/*
 * One output of the resamplers of speed.h (speed_scale.c's arithmetic, term for term), for
 * the GPU: method as enum VmafSpeedScaleMethod (0 nearest, 1 bilinear, 2 bicubic,
 * 3 lanczos4: 9 taps), ri/rw the scaler's row entries of the output row (taps of them),
 * ci/cw its column entries of the output column; src with stride floats per row. The
 * pointers are to device-global memory in OpenCL C (VMAF_GLOBAL), where every twin keeps
 * the planes and the scaler's tables.
 */
enum { VMAF_FLOAT_RESAMPLE_NEAREST, VMAF_FLOAT_RESAMPLE_BILINEAR, VMAF_FLOAT_RESAMPLE_BICUBIC,
       VMAF_FLOAT_RESAMPLE_LANCZOS4, VMAF_FLOAT_RESAMPLE_LANCZOS_TAPS = 9 };

/** Bilinear: r1/r2 the two source rows, x1/x2 the columns, dx/dy the fractions. */
VMAF_DEVICE_FN float vmaf_float_bilinear(const VMAF_GLOBAL float *r1, const VMAF_GLOBAL float *r2,
                                         int x1, int x2, float dx, float dy)
{
    const float top_left = (1 - dy) * (1 - dx) * r1[x1];
    const float top_right = (1 - dy) * dx * r1[x2];
    const float bottom_left = dy * (1 - dx) * r2[x1];
    const float bottom_right = dy * dx * r2[x2];
    return top_left + top_right + bottom_left + bottom_right;
}

VMAF_DEVICE_FN float vmaf_float_resample_at(int method, const VMAF_GLOBAL float *src,
                                            ptrdiff_t stride, const VMAF_GLOBAL int *ri,
                                            const VMAF_GLOBAL float *rw,
                                            const VMAF_GLOBAL int *ci,
                                            const VMAF_GLOBAL float *cw)
{
    if (method == VMAF_FLOAT_RESAMPLE_NEAREST) return src[ri[0] * stride + ci[0]];
    if (method == VMAF_FLOAT_RESAMPLE_BILINEAR)
        return vmaf_float_bilinear(src + ri[0] * stride, src + ri[1] * stride, ci[0], ci[1],
                                   cw[0], rw[0]);
    if (method == VMAF_FLOAT_RESAMPLE_BICUBIC) {
        float acc = 0.0f;
        for (int t = 0; t < 4; t++) {
            const VMAF_GLOBAL float *row = src + ri[t] * stride;
            for (int u = 0; u < 4; u++)
                acc += row[ci[u]] * (cw[u] * rw[t]);
        }
        return acc;
    }
    float acc = 0.0f, weights = 0.0f;
    for (int t = 0; t < VMAF_FLOAT_RESAMPLE_LANCZOS_TAPS; t++) {
        const VMAF_GLOBAL float *row = src + ri[t] * stride;
        for (int u = 0; u < VMAF_FLOAT_RESAMPLE_LANCZOS_TAPS; u++) {
            const float wgt = cw[u] * rw[t];
            weights += wgt;
            acc += row[ci[u]] * wgt;
        }
    }
    return vmaf_fdiv(acc, weights);
}

/* ---- host side (C, and nvcc's host pass): pictures, the CPU's filter kernels ---------- */
#if !VMAF_DIALECT_OPENCL

/**
 * Plane `plane` of pic as floats: (float)v / vmaf_float_sample_divisor(bpc) + offset, for
 * its w[plane] x h[plane] samples. dst_stride is in floats.
 */
void vmaf_float_plane_from_picture(const VmafPicture *pic, unsigned plane, float offset,
                                   float *dst, ptrdiff_t dst_stride);

/* ---- kernels -------------------------------------------------------------------------
 * Written once as always-inline bodies, so that each per-frame function inlines them into
 * its two builds, plain and AVX2 (target attribute), one chosen at run time by
 * vmaf_float_impl_resolve. AVX2 adds neither FMA nor reassociation (-ffp-contract=off), so
 * every build gives the same bits. */

#if defined(__GNUC__)
#define VMAF_FLOAT_INLINE static inline __attribute__((always_inline))
#else
#define VMAF_FLOAT_INLINE static inline
#endif
#define VMAF_FLOAT_RESTRICT __restrict

/** Which build of a kernel runs: the best for the CPU, or a given one (for the tests). */
enum VmafFloatImpl {
    VMAF_FLOAT_IMPL_BEST = 0,
    VMAF_FLOAT_IMPL_PLAIN,
    VMAF_FLOAT_IMPL_AVX2, /**< -ENOTSUP where the CPU or the compiler has none */
};

#if defined(__GNUC__) && defined(__x86_64__) && !defined(VMAF_FLOAT_NO_AVX2)
#define VMAF_FLOAT_HAVE_AVX2 1
#define VMAF_FLOAT_TARGET_AVX2 __attribute__((target("avx2")))
#endif

/** Whether the build `impl` can run here; BEST becomes the best one. -ENOTSUP if not. */
static inline int vmaf_float_impl_resolve(enum VmafFloatImpl *impl)
{
#ifdef VMAF_FLOAT_HAVE_AVX2
    const int avx2 = __builtin_cpu_supports("avx2");
#else
    const int avx2 = 0;
#endif
    if (*impl == VMAF_FLOAT_IMPL_BEST)
        *impl = avx2 ? VMAF_FLOAT_IMPL_AVX2 : VMAF_FLOAT_IMPL_PLAIN;
    if (*impl == VMAF_FLOAT_IMPL_AVX2 && !avx2) return -ENOTSUP;
    return *impl == VMAF_FLOAT_IMPL_PLAIN || *impl == VMAF_FLOAT_IMPL_AVX2 ? 0 : -EINVAL;
}

/**
 * Fill the margins of a row of n samples (row[0..n-1]) with its reflection: row[-q] and
 * row[n-1+q] for q = 1..radius. The row must have radius floats of room on each side.
 */
VMAF_FLOAT_INLINE void vmaf_float_reflect_margins(float *row, unsigned n, int radius)
{
    for (int q = 1; q <= radius; q++) {
        row[-q] = row[vmaf_reflect101(-q, (int)n)];
        row[(int)n - 1 + q] = row[vmaf_reflect101((int)n - 1 + q, (int)n)];
    }
}

/** acc[j] += fk * row[j] for j < n (one tap of a vertical pass). */
VMAF_FLOAT_INLINE void vmaf_float_accumulate(float *VMAF_FLOAT_RESTRICT acc,
                                             const float *VMAF_FLOAT_RESTRICT row, float fk,
                                             unsigned n)
{
    for (unsigned j = 0; j < n; j++)
        acc[j] += fk * row[j];
}

/** acc[j] += fk * (row[j] * row[j]): a tap of a vertical pass over squared samples. */
VMAF_FLOAT_INLINE void vmaf_float_accumulate_square(float *VMAF_FLOAT_RESTRICT acc,
                                                    const float *VMAF_FLOAT_RESTRICT row,
                                                    float fk, unsigned n)
{
    for (unsigned j = 0; j < n; j++)
        acc[j] += fk * (row[j] * row[j]);
}

/** acc[j] += fk * (a[j] * b[j]): a tap of a vertical pass over products of two planes. */
VMAF_FLOAT_INLINE void vmaf_float_accumulate_product(float *VMAF_FLOAT_RESTRICT acc,
                                                     const float *VMAF_FLOAT_RESTRICT a,
                                                     const float *VMAF_FLOAT_RESTRICT b,
                                                     float fk, unsigned n)
{
    for (unsigned j = 0; j < n; j++)
        acc[j] += fk * (a[j] * b[j]);
}

/**
 * Horizontal pass of one row: out[o] = 0 + f[0] row[s o - R] + ... + f[fw-1] row[s o + R]
 * for o < n_out, with s = step (1, or 2 when only every other column is kept). The row
 * must have its margins filled (vmaf_float_reflect_margins). out and row must not overlap.
 */
VMAF_FLOAT_INLINE void vmaf_float_filter_row(const float *f, int fw,
                                             const float *VMAF_FLOAT_RESTRICT row,
                                             unsigned n_out, unsigned step,
                                             float *VMAF_FLOAT_RESTRICT out)
{
    const int radius = fw / 2;
    for (unsigned o = 0; o < n_out; o++)
        out[o] = 0.0f;
    if (step == 1) {
        for (int k = 0; k < fw; k++) {
            const float fk = f[k];
            const float *src = row - radius + k;
            for (unsigned o = 0; o < n_out; o++)
                out[o] += fk * src[o];
        }
        return;
    }
    for (int k = 0; k < fw; k++) {
        const float fk = f[k];
        const float *src = row - radius + k;
        for (unsigned o = 0; o < n_out; o++)
            out[o] += fk * src[2 * o];
    }
}

/**
 * The separable filter of a w x h float plane (strides in floats) with reflected borders,
 * evaluated at rows and columns step*o (step 1, or 2 for a filter followed by keeping the
 * even rows and columns): floor(w/step) x floor(h/step) outputs. `row` is scratch of
 * w + 2 * (fw / 2) floats. dst must not overlap src.
 */
VMAF_FLOAT_INLINE void vmaf_float_filter_plane_kernel(const float *f, int fw, const float *src,
                                                      ptrdiff_t src_stride, unsigned w,
                                                      unsigned h, unsigned step, float *dst,
                                                      ptrdiff_t dst_stride, float *row)
{
    const int radius = fw / 2;
    float *line = row + radius;
    if (w / step == 0) return; /* no column kept: nothing to write */
    for (unsigned o = 0; o < h / step; o++) {
        const int i = (int)(o * step);
        for (unsigned j = 0; j < w; j++)
            line[j] = 0.0f;
        for (int k = 0; k < fw; k++) {
            const int y = vmaf_reflect101(i - radius + k, (int)h);
            vmaf_float_accumulate(line, src + y * src_stride, f[k], w);
        }
        vmaf_float_reflect_margins(line, w, radius);
        vmaf_float_filter_row(f, fw, line, w / step, step, dst + o * dst_stride);
    }
}

/** vmaf_float_filter_plane_kernel in the build `impl`; 0, or -ENOTSUP / -EINVAL. */
int vmaf_float_filter_plane(enum VmafFloatImpl impl, const float *f, int fw, const float *src,
                            ptrdiff_t src_stride, unsigned w, unsigned h, unsigned step,
                            float *dst, ptrdiff_t dst_stride, float *row);

#endif /* !VMAF_DIALECT_OPENCL */

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_FLOAT_FILTER_H */
