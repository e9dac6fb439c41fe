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
 *
 * The doubles are f64.h's vmaf_double. Where that is the software binary64 (an OpenCL device
 * without fp64), the window and decimation sums of floats take the exact fixed-point form
 * of vmaf_ssim_fsum (fp32 work per term, the software double only where the terms span too
 * many bits), and the per-pixel terms and the reductions are the software double's
 * operations in the C order; the C and CUDA code is the same as with the plain double.
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
VMAF_DEVICE_FN vmaf_double vmaf_ssim_tree(vmaf_double *v, int n)
{
    for (int off = VMAF_SSIM_SEGMENT / 2; off >= 1; off /= 2)
        for (int j = 0; j < off; j++)
            if (j + off < n) v[j] = vmaf_dadd(v[j], v[j + off]); /* v[j] += v[j + off] */
    return v[0];
}

/** The four summed terms of one output pixel (window outputs as in vmaf_ssim_pixel). */
VMAF_DEVICE_FN void vmaf_ssim_terms(const VmafSsimConst *k, float mu1, float mu2, float xx,
                                    float yy, float xy, vmaf_double t[VMAF_SSIM_SUMS])
{
    vmaf_double l, c, s;
    vmaf_ssim_pixel(k, mu1, mu2, xx, yy, xy, &l, &c, &s);
    t[0] = vmaf_dmul(vmaf_dmul(l, c), s); /* l * c * s */
    t[1] = l;
    t[2] = c;
    t[3] = s;
}

#if VMAF_DOUBLE_SOFT
/*
 * Sums of float terms in double where the double is software (f64.h): the window and
 * decimation sums below, `acc = 0.0; acc += (double)t[i] for i = 0, 1, ...; (float)acc`.
 *
 * The fast form is a fixed-point sum. Let E be the largest exponent field of the terms,
 * E' = max(E, 23 + S) (S the caller's shift) and the unit 2^(E' - 150 - S). Every
 * |t| < 2^(E' - 126) = 2^(24 + S) units, so if every term is an integer number of units, the
 * partial sums of n terms are integers below n 2^(24 + S) <= 2^53 units (S = 25 for n <= 16,
 * 22 for n <= 127): each is a double exactly, so every double addition of the C form is
 * exact, its acc is the exact partial sum, and (float)acc is that sum rounded once to float,
 * which vmaf_ssim_fsum_float() does on the integer (round to nearest even at 24 bits, or at
 * 2^-149 for a float subnormal; a zero sum is +0, as the C form's: from +0.0, x + -x and
 * +0 + -0 are +0).
 *
 * The per-term work is fp32 only (full rate on GPUs without fp64, which emulate 64-bit
 * integers too), with neither compare nor branch: a term's count of units is
 * y = t 2^(150 + S - E'), exact (E' <= 150 + S below: the factor is a power of two in
 * [1, 2^127], and |y| < 2^(24 + S) <= 2^49 cannot overflow). y is cut into y32 + y16 + r16:
 * y32 = (y + C) - C with C = 1.5 2^55 is y rounded to a multiple of 2^32 (y + C lies in
 * (2^55, 2^56), whose ulp is 2^32; the subtraction is exact), and r32 = y - y32 is exact: y
 * itself when |y| <= 2^31 (y32 = 0), else a multiple of y's ulp (>= 2^8) of size <= 2^31.
 * Likewise y16 from r32 with 1.5 2^39 (a multiple of 2^16) and r16 = r32 - y16,
 * |r16| <= 2^15. y is an integer exactly when r16 is: d = ((r16 + 1.5 2^23) - 1.5 2^23) - r16
 * is r16's distance to the nearest integer, exactly, and the sum of the |d| is 0 exactly
 * when every d is (a sum of floats >= 0 is 0 only if all are). The parts are added in three
 * floats, each exactly: multiples of 2^32 below 2^54, of 2^16 below 2^38, integers below
 * 2^22 (n <= 127). (IEEE float, round to nearest even, no contraction or reassociation:
 * OpenCL's default without -cl-fast-relaxed-math or -cl-mad-enable, which the backend never
 * passes, and the project's C flags.)
 *
 * A term off the grid (the terms span more than 49 bits for a window, 46 for a
 * decimation), or a largest term of field E > 150 + S (2^49 or 2^46 and above: never an
 * SSIM quantity; inf and NaN), leaves the sum to the software double, addition by addition
 * in the C order.
 */
enum {
    VMAF_SSIM_FSUM_SHIFT_WINDOW = 25,   /**< S for at most 16 terms */
    VMAF_SSIM_FSUM_SHIFT_DECIMATE = 22, /**< S for at most 127 terms */
};

typedef struct VmafSsimFsum {
    float scale;       /**< 2^(150 + S - E'): a term times scale is its count of units */
    float s32, s16, s; /**< the sum in units: multiples of 2^32, of 2^16, and the rest */
    float off;         /**< the sum of the terms' distances to the grid (0: all on it) */
    int finite;        /**< E <= 150 + S (else the sum is left to the software double) */
    int shift;         /**< S - E': the unit is 2^(-150 - shift) */
} VmafSsimFsum;

/** |t|'s bits: their maximum over the terms is the largest term's (its field is E). */
VMAF_DEVICE_FN uint32_t vmaf_ssim_fsum_mag(float t)
{
    return vmaf_bits_of_float(t) & 0x7fffffffu;
}

VMAF_DEVICE_FN void vmaf_ssim_fsum_init(VmafSsimFsum *f, uint32_t max_mag, int s)
{
    const int e = (int)(max_mag >> 23), ep = e > 23 + s ? e : 23 + s;
    f->scale = vmaf_float_of_bits((uint32_t)(127 + 150 + s - ep) << 23);
    f->s32 = 0.0f;
    f->s16 = 0.0f;
    f->s = 0.0f;
    f->off = 0.0f;
    f->finite = e <= 150 + s;
    f->shift = s - ep;
}

/** t's count of units cut into p[0] + p[1] + p[2] (multiples of 2^32, of 2^16, and the
 * rest), and p[3] its distance to the nearest integer (>= 0). */
VMAF_DEVICE_FN void vmaf_ssim_fsum_split(const VmafSsimFsum *f, float t, float p[4])
{
    const float c32 = 54043195528445952.0f, c16 = 824633720832.0f, c0 = 12582912.0f;
    const float y = f->finite ? t * f->scale : 0.0f; /* inf and NaN are not used */
    const float y32 = (y + c32) - c32, r32 = y - y32;
    const float y16 = (r32 + c16) - c16, r16 = r32 - y16;
    p[0] = y32;
    p[1] = y16;
    p[2] = r16;
    p[3] = vmaf_fabsf(((r16 + c0) - c0) - r16);
}

VMAF_DEVICE_FN void vmaf_ssim_fsum_add(VmafSsimFsum *f, float t)
{
    float p[4];
    vmaf_ssim_fsum_split(f, t, p);
    f->s32 += p[0];
    f->s16 += p[1];
    f->s += p[2];
    f->off += p[3];
}

/** Whether the terms so far were all on the grid (and the sum is the fixed-point one's). */
VMAF_DEVICE_FN int vmaf_ssim_fsum_exact(const VmafSsimFsum *f)
{
    return f->finite && f->off == 0.0f;
}

/** (float) of the sum: acc 2^(-150 - shift) rounded to nearest even float. */
VMAF_DEVICE_FN float vmaf_ssim_fsum_float(const VmafSsimFsum *f)
{
    const int64_t acc = (int64_t)f->s32 + (int64_t)f->s16 + (int64_t)f->s; /* exact integers */
    const uint64_t neg = acc < 0 ? ~UINT64_C(0) : UINT64_C(0);
    const uint64_t a = ((uint64_t)acc ^ neg) - neg; /* |acc| */
    /* p: the lowest kept bit, for 24 significant bits but none below 2^-149 (bit 1 + shift);
     * a != 0 has at most 53 bits, so -24 < p <= 29 */
    const int lo = 1 + f->shift;
    int p = 40 - vmaf_f64_clz64(a);
    p = p > lo ? p : lo;
    /* rounded to nearest even at bit up = max(p, 0) of x = a 2^(up - p): the bias is half an
     * ulp less one, plus one when the kept part is odd (a tie then goes up, to even) */
    const int up = p > 0 ? p : 0;
    const uint64_t x = a << (up - p), hulp = (UINT64_C(1) << up) >> 1;
    const uint64_t q = (x + (hulp ? hulp - 1u + ((x >> up) & 1u) : 0u)) >> up;
    /* q <= 2^24 units of 2^(p - 150 - shift): field p - shift, less the 1 that a normal q's
     * leading bit carries into the field; a subnormal's q < 2^23 has field 0, and a carry to
     * 2^23 or 2^24 gives the next field with a zero fraction */
    const uint32_t bits = ((uint32_t)(p - 1 - f->shift) << 23) + (uint32_t)q;
    return vmaf_float_of_bits(a ? bits | ((uint32_t)neg & 0x80000000u) : 0u);
}

/** (float) of the double sum from 0.0 of t[0..n) (n <= 16), in index order. */
VMAF_DEVICE_FN float vmaf_ssim_fsum_window(const float *t, int n)
{
    enum { N = 16 };
    uint32_t mx = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t m = vmaf_ssim_fsum_mag(t[i]);
        mx = m > mx ? m : mx;
    }
    VmafSsimFsum f;
    vmaf_ssim_fsum_init(&f, mx, VMAF_SSIM_FSUM_SHIFT_WINDOW);
    /* the terms' parts side by side (independent work per term), then added (exact) */
    float p[4][N];
    for (int i = 0; i < N; i++) { /* zeros past n: whole vectors where the compiler makes them */
        float q[4];
        vmaf_ssim_fsum_split(&f, i < n ? t[i] : 0.0f, q);
        p[0][i] = q[0];
        p[1][i] = q[1];
        p[2][i] = q[2];
        p[3][i] = q[3];
    }
    for (int i = 0; i < N; i++) {
        f.s32 += p[0][i];
        f.s16 += p[1][i];
        f.s += p[2][i];
        f.off += p[3][i];
    }
    if (vmaf_ssim_fsum_exact(&f)) return vmaf_ssim_fsum_float(&f);
    vmaf_double acc = VMAF_DCONST(0.0, 0x0);
    for (int i = 0; i < n; i++)
        acc = vmaf_dadd(acc, vmaf_dfrom_float(t[i]));
    return vmaf_dto_float(acc);
}
#endif

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
#if VMAF_DOUBLE_SOFT
    /* the same products, sum and rounding by vmaf_ssim_fsum: the largest term, the
     * fixed-point sum, else the software double (inside the plane the reflection is the
     * identity, and is skipped as above) */
    const int inside = cy - radius >= 0 && cy + last < h && cx - radius >= 0 && cx + last < w;
    uint32_t mx = 0;
    const VMAF_SSIM_LOCAL float *kv = k;
    for (int v = -radius; v <= last; v++) {
        const int sy = inside ? cy + v : vmaf_ssim_reflect(cy + v, h);
        for (int u = -radius; u <= last; u++, kv++) {
            const int sx = inside ? cx + u : vmaf_ssim_reflect(cx + u, w);
            const uint32_t m = vmaf_ssim_fsum_mag(vmaf_ssim_source_at(src, sy, sx) * *kv);
            mx = m > mx ? m : mx;
        }
    }
    VmafSsimFsum fs;
    vmaf_ssim_fsum_init(&fs, mx, VMAF_SSIM_FSUM_SHIFT_DECIMATE);
    kv = k;
    for (int v = -radius; v <= last; v++) {
        const int sy = inside ? cy + v : vmaf_ssim_reflect(cy + v, h);
        for (int u = -radius; u <= last; u++, kv++) {
            const int sx = inside ? cx + u : vmaf_ssim_reflect(cx + u, w);
            vmaf_ssim_fsum_add(&fs, vmaf_ssim_source_at(src, sy, sx) * *kv);
        }
    }
    if (vmaf_ssim_fsum_exact(&fs)) return vmaf_ssim_fsum_float(&fs);
    vmaf_double acc = VMAF_DCONST(0.0, 0x0);
    kv = k;
    for (int v = -radius; v <= last; v++) {
        const int sy = vmaf_ssim_reflect(cy + v, h);
        for (int u = -radius; u <= last; u++, kv++)
            acc = vmaf_dadd(acc, vmaf_dfrom_float(
                                     vmaf_ssim_source_at(src, sy, vmaf_ssim_reflect(cx + u, w)) * *kv));
    }
    return vmaf_dto_float(acc);
#else
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
#endif
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
#if VMAF_DOUBLE_SOFT
    /* the same float products, each quantity's sum by vmaf_ssim_fsum_window */
    for (int q = 0; q < 5; q++) {
        float p[VMAF_SSIM_WINDOW];
        for (int u = 0; u < VMAF_SSIM_WINDOW; u++) {
            const float x = a[u], y = b[u];
            const float v = q == 0 ? x : q == 1 ? y : q == 2 ? x * x : q == 3 ? y * y : x * y;
            p[u] = v * g[u];
        }
        t->hpass[q][r][c] = vmaf_ssim_fsum_window(p, VMAF_SSIM_WINDOW);
    }
#else
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
#endif
}

/** Vertical pass and terms of the output at tile row r, column c. */
VMAF_DEVICE_FN void vmaf_ssim_tile_terms(const VMAF_SSIM_LOCAL VmafSsimTile *t,
                                         const VMAF_SSIM_LOCAL float *g,
                                         const VmafSsimConst *k, int r, int c,
                                         vmaf_double terms[VMAF_SSIM_SUMS])
{
    float o[5];
    for (int q = 0; q < 5; q++) {
#if VMAF_DOUBLE_SOFT
        float p[VMAF_SSIM_WINDOW];
        for (int v = 0; v < VMAF_SSIM_WINDOW; v++)
            p[v] = t->hpass[q][r + v][c] * g[v];
        o[q] = vmaf_ssim_fsum_window(p, VMAF_SSIM_WINDOW);
#else
        double acc = 0.0;
        for (int v = 0; v < VMAF_SSIM_WINDOW; v++)
            acc += (double)(t->hpass[q][r + v][c] * g[v]);
        o[q] = (float)acc;
#endif
    }
    vmaf_ssim_terms(k, o[0], o[1], o[2], o[3], o[4], terms);
}

/* ---- the reductions ------------------------------------------------------------------- */

/** Row y's sum of quantity q from its segments (partials[q][y][seg], n_seg per row). */
VMAF_DEVICE_FN vmaf_double vmaf_ssim_row_sum(const VMAF_GLOBAL vmaf_double *partials,
                                             int n_rows, int n_seg, int q, int y)
{
    const VMAF_GLOBAL vmaf_double *p = partials + ((size_t)q * n_rows + y) * n_seg;
    vmaf_double acc = VMAF_DCONST(0.0, 0x0);
    for (int s = 0; s < n_seg; s++)
        acc = vmaf_dadd(acc, p[s]);
    return acc;
}

/** Lane j's serial sum of the rows j, j + 32, ... of rows[0..n_rows). */
VMAF_DEVICE_FN vmaf_double vmaf_ssim_lane_sum(const VMAF_GLOBAL vmaf_double *rows, int n_rows,
                                              int j)
{
    vmaf_double acc = VMAF_DCONST(0.0, 0x0);
    for (int y = j; y < n_rows; y += VMAF_SSIM_LANES)
        acc = vmaf_dadd(acc, rows[y]);
    return acc;
}

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_SSIM_DEVICE_H */
