/*
 * Twin VMAF — the per-thread work of the SSIM / MS-SSIM twins (src/feature/cuda/ssim.cu), in
 * C11 and CUDA, shared by the CPU extractors (ssim.c) and run in the kernels' decomposition on
 * the host by tests/test_ssim_twin.c.
 *
 * The order of the mean sums. The reference sums the per-pixel terms of a plane serially in
 * one double, row-major; no parallel evaluation reproduces that serial double sum cheaply,
 * so Twin VMAF (CPU and GPU alike) sums in this fixed order instead, which gives the same
 * float means on every golden run (the sums differ from the serial ones by a few ulps of a
 * double; the means are rounded to float):
 *   - a row's terms are cut into segments of VMAF_SSIM_SEGMENT consecutive outputs; a
 *     segment's n terms v[0..n) are added by the tree of vmaf_ssim_tree() (the warp shuffle
 *     order: for off = 16, 8, 4, 2, 1: v[j] += v[j + off] for j < off, j + off < n);
 *   - a row's sum is 0.0 + seg_0 + seg_1 + ... (serial, in double);
 *   - lane j (0..31) sums the rows y = j, j + 32, ... serially from 0.0, and the plane's sum
 *     is the tree of the min(32, rows) lanes.
 * Four sums per plane: l c s (the product in double, (l c) s), l, c and s.
 *
 * The window pass on the GPU: a block owns a tile of VMAF_SSIM_TILE_W x VMAF_SSIM_TILE_H
 * outputs (corner (y0, x0)); it loads the (TILE_H + 10) x (TILE_W + 10) inputs of both planes
 * (0 outside the plane: they only reach outputs that are not summed), makes the horizontal
 * pass of the five quantities for the tile's input rows and TILE_W columns, then each warp
 * takes output rows (warp w: rows w, w + 8, ...): lane c makes output column x0 + c and the
 * warp adds the row's segment by the tree. Every output receives the products and sums of
 * ssim.h in its order, exactly as the CPU's row passes.
 */
#ifndef VMAF_FEATURE_SSIM_DEVICE_H
#define VMAF_FEATURE_SSIM_DEVICE_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stddef.h>
#include <stdint.h>
#endif

#include "ssim.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VMAF_SSIM_SEGMENT = 32, /**< outputs per tree-summed segment (one warp) */
    VMAF_SSIM_LANES = 32,   /**< row accumulators of the plane sum */
    VMAF_SSIM_SUMS = 4,     /**< l c s, l, c, s */
    VMAF_SSIM_TILE_W = 32,  /**< = VMAF_SSIM_SEGMENT: a tile row is one segment */
    VMAF_SSIM_TILE_H = 32,
    VMAF_SSIM_THREADS = 256,
    VMAF_SSIM_IN_W = VMAF_SSIM_TILE_W + VMAF_SSIM_WINDOW - 1,
    VMAF_SSIM_IN_H = VMAF_SSIM_TILE_H + VMAF_SSIM_WINDOW - 1,
    VMAF_SSIM_MAX_TAPS = VMAF_SSIM_MAX_FACTOR * VMAF_SSIM_MAX_FACTOR, /* >= 9 x 9 */
    VMAF_SSIM_DEC_TX = 32, VMAF_SSIM_DEC_TY = 8, /**< decimation: one thread per output */
    VMAF_SSIM_ROW_THREADS = 128,
};

/* The address space of what the kernels keep in shared memory (the tile, the window taps,
 * the decimation taps): OpenCL C must name __local; in CUDA (__shared__ is not part of a
 * pointer's type) and on the host it is the one flat space. */
#if VMAF_DIALECT_OPENCL
#define VMAF_SSIM_LOCAL __local
#else
#define VMAF_SSIM_LOCAL
#endif

/** Add the first n of v[0..32) by the tree (v[0] holds the result; n >= 1). */
VMAF_DEVICE_FN double vmaf_ssim_tree(double *v, int n)
{
    for (int off = VMAF_SSIM_SEGMENT / 2; off >= 1; off /= 2)
        for (int j = 0; j < off; j++)
            if (j + off < n) v[j] += v[j + off];
    return v[0];
}

/** The four summed terms of one output pixel (window outputs as in vmaf_ssim_pixel). */
VMAF_DEVICE_FN void vmaf_ssim_terms(const VmafSsimConst *k, float mu1, float mu2, float xx,
                                    float yy, float xy, double t[VMAF_SSIM_SUMS])
{
    double l, c, s;
    vmaf_ssim_pixel(k, mu1, mu2, xx, yy, xy, &l, &c, &s);
    t[0] = l * c * s;
    t[1] = l;
    t[2] = c;
    t[3] = s;
}

/** A plane the kernels read: samples (converted as float_filter.h does, offset 0) or floats. */
typedef struct VmafSsimSource {
    const VMAF_GLOBAL uint8_t *data;
    ptrdiff_t stride; /**< bytes */
    int kind;         /**< 0: 8-bit samples, 1: 16-bit samples, 2: floats */
    float scale;      /**< 1 / vmaf_float_sample_divisor(bpc) */
} VmafSsimSource;

VMAF_DEVICE_FN float vmaf_ssim_source_at(const VmafSsimSource *s, int y, int x)
{
    const VMAF_GLOBAL uint8_t *row = s->data + (ptrdiff_t)y * s->stride;
    if (s->kind == 2) return ((const VMAF_GLOBAL float *)row)[x];
    const unsigned v = s->kind ? ((const VMAF_GLOBAL uint16_t *)row)[x] : row[x];
    return vmaf_float_sample(v, s->scale, 0.0f);
}

/**
 * One decimated output (y, x) of a w x h source: factor f, kw x kw taps k (row-major),
 * v outer, u inner, reflected indices (ssim.h), each product in float, summed in double.
 */
VMAF_DEVICE_FN float vmaf_ssim_decimate_at(const VmafSsimSource *src, int w, int h, int f,
                                           const VMAF_SSIM_LOCAL float *k, int kw, int y,
                                           int x)
{
    const int radius = kw / 2, last = radius - (kw % 2 == 0 ? 1 : 0);
    const int cy = y * f, cx = x * f;
    double acc = 0.0;
    const VMAF_SSIM_LOCAL float *kv = k;
    if (cy - radius >= 0 && cy + last < h && cx - radius >= 0 && cx + last < w) {
        /* inside: no reflection (the same samples, products and sums) */
        for (int v = -radius; v <= last; v++)
            for (int u = -radius; u <= last; u++, kv++)
                acc += (double)(vmaf_ssim_source_at(src, cy + v, cx + u) * *kv);
        return (float)acc;
    }
    for (int v = -radius; v <= last; v++) {
        const int sy = vmaf_ssim_reflect(cy + v, h);
        for (int u = -radius; u <= last; u++, kv++)
            acc += (double)(vmaf_ssim_source_at(src, sy, vmaf_ssim_reflect(cx + u, w)) * *kv);
    }
    return (float)acc;
}

/* ---- the window tile ------------------------------------------------------------------ */

/** Shared memory of one tile (the kernel's __shared__ block; the host test's scratch). */
typedef struct VmafSsimTile {
    float in[2][VMAF_SSIM_IN_H][VMAF_SSIM_IN_W];              /**< ref, cmp */
    float hpass[5][VMAF_SSIM_IN_H][VMAF_SSIM_TILE_W];         /**< the five quantities */
} VmafSsimTile;

/** Load item i < IN_H * IN_W of the tile at (y0, x0) of a w x h plane pair (both planes). */
VMAF_DEVICE_FN void vmaf_ssim_tile_load(VMAF_SSIM_LOCAL VmafSsimTile *t,
                                        const VmafSsimSource *ref, const VmafSsimSource *cmp,
                                        int w, int h, int y0, int x0, int i)
{
    const int r = i / VMAF_SSIM_IN_W, c = i % VMAF_SSIM_IN_W;
    const int y = y0 + r, x = x0 + c;
    const int inside = y < h && x < w;
    t->in[0][r][c] = inside ? vmaf_ssim_source_at(ref, y, x) : 0.0f;
    t->in[1][r][c] = inside ? vmaf_ssim_source_at(cmp, y, x) : 0.0f;
}

/** Horizontal pass, item i < IN_H * TILE_W: the five quantities at tile row r, column c. */
VMAF_DEVICE_FN void vmaf_ssim_tile_horizontal(VMAF_SSIM_LOCAL VmafSsimTile *t,
                                              const VMAF_SSIM_LOCAL float *g, int i)
{
    const int r = i / VMAF_SSIM_TILE_W, c = i % VMAF_SSIM_TILE_W;
    const VMAF_SSIM_LOCAL float *a = &t->in[0][r][c], *b = &t->in[1][r][c];
    double acc[5] = { 0.0, 0.0, 0.0, 0.0, 0.0 };
    for (int u = 0; u < VMAF_SSIM_WINDOW; u++) {
        const float x = a[u], y = b[u];
        const float xx = x * x, yy = y * y, xy = x * y;
        acc[0] += (double)(x * g[u]);
        acc[1] += (double)(y * g[u]);
        acc[2] += (double)(xx * g[u]);
        acc[3] += (double)(yy * g[u]);
        acc[4] += (double)(xy * g[u]);
    }
    for (int q = 0; q < 5; q++) t->hpass[q][r][c] = (float)acc[q];
}

/** Vertical pass and terms of the output at tile row r, column c. */
VMAF_DEVICE_FN void vmaf_ssim_tile_terms(const VMAF_SSIM_LOCAL VmafSsimTile *t,
                                         const VMAF_SSIM_LOCAL float *g,
                                         const VmafSsimConst *k, int r, int c,
                                         double terms[VMAF_SSIM_SUMS])
{
    float o[5];
    for (int q = 0; q < 5; q++) {
        double acc = 0.0;
        for (int v = 0; v < VMAF_SSIM_WINDOW; v++)
            acc += (double)(t->hpass[q][r + v][c] * g[v]);
        o[q] = (float)acc;
    }
    vmaf_ssim_terms(k, o[0], o[1], o[2], o[3], o[4], terms);
}

/* ---- the reductions ------------------------------------------------------------------- */

/** Row y's sum of quantity q from its segments (partials[q][y][seg], n_seg per row). */
VMAF_DEVICE_FN double vmaf_ssim_row_sum(const VMAF_GLOBAL double *partials, int n_rows,
                                        int n_seg, int q, int y)
{
    const VMAF_GLOBAL double *p = partials + ((size_t)q * n_rows + y) * n_seg;
    double acc = 0.0;
    for (int s = 0; s < n_seg; s++)
        acc += p[s];
    return acc;
}

/** Lane j's serial sum of the rows j, j + 32, ... of rows[0..n_rows). */
VMAF_DEVICE_FN double vmaf_ssim_lane_sum(const VMAF_GLOBAL double *rows, int n_rows, int j)
{
    double acc = 0.0;
    for (int y = j; y < n_rows; y += VMAF_SSIM_LANES)
        acc += rows[y];
    return acc;
}

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_SSIM_DEVICE_H */
