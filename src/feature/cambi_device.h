/*
 * cambi on the GPU: the per-pixel arithmetic and each kernel's per-thread work, as C11 / CUDA
 * functions shared by the kernels (src/feature/cuda/cambi.cu), the CPU extractor (mode3,
 * the c-value term, the 10-bit conversion) and the host test (tests/twins/test_cambi_twin.c), which
 * runs them in the kernels' grid and thread order against the CPU extractor.
 *
 * The decomposition (per scored picture: the distorted one, and the reference with full_ref):
 *   preprocess  one thread per pixel of the scored size: nearest resampling through the CPU's
 *               position tables (uploaded once), the 10-bit conversion and, below 10 bits of
 *               encoding depth, the 2x2 anti-dithering mean (each thread recomputes the four
 *               converted samples it reads, so no sample is read after another thread wrote it)
 *   flat        one thread per pixel: equal to its right and lower neighbours (edges equal)
 *   mask        one thread per pixel: flat pixels in the clipped 7x7 window > threshold
 *   scale       one thread per pixel of a scale: the decimation (top-left samples of the
 *               previous scale, or none), the 3x3 separable mode filter of the decimated
 *               image recomputed from its 3x3 neighbourhood, the decimated mask and the
 *               pixel's histogram key (value - band base, or NO_KEY)
 *   c_values    one block per strip of CAMBI_DEV_TW columns and segment of CAMBI_DEV_SEG rows.
 *               The block keeps, in shared memory, the CPU's horizontally summed window
 *               histogram restricted to its columns (hist[key][column], two 16-bit counts per
 *               32-bit word), builds it for the segment's first row from the window's rows and
 *               then slides it down one row at a time: each column of the strip's extended
 *               range whose leaving and entering keys differ is an atomic -1 / +1 over the
 *               words its 2 pad + 1 columns cover (counts are integers: any order is exact;
 *               a removal always finds the pixel counted, so no half borrows or carries).
 *               Then 8 threads per output pixel evaluate the contrasts d (a max of floats:
 *               any order is exact). The CPU's histograms hold the same counts.
 *   pooling     the mean of the top k c-values as the CPU's exact path takes it: every
 *               nonzero c-value is a whole number of 2^-24 units (checked), the k-th largest
 *               is found by a three-level radix select on the float bits (12, 12, 8 bits;
 *               histograms with integer atomics), and the top-k sum is the units above it
 *               plus the remaining count times its units, all in uint64. Where that sum
 *               reaches 2^53 units (a double sum of the top k then depends on its order) the
 *               host pools that scale's c-values with the CPU's own function (a download of
 *               that scale; documented in cambi_twin.c).
 */
#ifndef VMAF_FEATURE_CAMBI_DEVICE_H
#define VMAF_FEATURE_CAMBI_DEVICE_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stdbool.h>
#include <stdint.h>
#endif

#include "feature/cambi.h"

/* 64-bit fields: vmaf_u64 is C's and CUDA's unsigned long long, OpenCL C's ulong (its
 * long long is 128 bits wide). */
typedef vmaf_u64 cambi_devptr;

/* The address space of what the c-value and pooling kernels keep in shared memory (the
 * window histogram, the select's bins): OpenCL C must name __local; in CUDA (__shared__ is not
 * part of a pointer's type) and on the host it is the one flat space. */
#if VMAF_DIALECT_OPENCL
#define CAMBI_DEV_LOCAL __local
#else
#define CAMBI_DEV_LOCAL
#endif

enum {
    CAMBI_DEV_NO_KEY = 0xffff,
    CAMBI_DEV_THREADS = 256,   /* per-pixel kernels: 256 threads, 1D grid */
    CAMBI_DEV_TW = 16,         /* c-value strip width (columns) */
    CAMBI_DEV_WORDS = CAMBI_DEV_TW / 2,
    CAMBI_DEV_SEG = 128,       /* c-value segment height (rows) */
    CAMBI_DEV_CV_THREADS = 128,
    CAMBI_DEV_DLANES = CAMBI_DEV_CV_THREADS / CAMBI_DEV_TW, /* threads per output pixel */
    /* the largest band: tvi + num_diffs <= 1023 + 32, base >= 0 */
    CAMBI_DEV_MAX_BAND = 1024 + VMAF_CAMBI_MAX_DIFFS,
    CAMBI_DEV_POOL_THREADS = 256,
    CAMBI_DEV_POOL_BLOCKS = 264,
    CAMBI_DEV_BINS = 4096,     /* radix levels 0 and 1: 12 bits; level 2: 8 bits */
};

/* What the c-value tests need (filled on the host from VmafCambiParams, uploaded once). */
typedef struct CambiDevDiffs {
    int num_diffs;
    int lo[VMAF_CAMBI_MAX_DIFFS], hi[VMAF_CAMBI_MAX_DIFFS]; /* v + nd <= tvi, v + nd + d > vlt */
    unsigned weight[VMAF_CAMBI_MAX_DIFFS];
    unsigned base, size;
} CambiDevDiffs;

/* One (picture, scale)'s pooling state on the device; zeroed before each frame. */
typedef struct CambiDevPool {
    vmaf_u64 total_units; /* all nonzero c-values, in 2^-24 units */
    vmaf_u64 gt_units;    /* the values above the k-th largest */
    vmaf_u64 topk_units;  /* the result */
    unsigned bad;                   /* a nonzero value not a whole number of units */
    unsigned prefix;                /* the k-th largest's bits selected so far */
    unsigned remaining;             /* how many of the top k lie in the selected bucket */
    unsigned pad;
    unsigned hist[2][CAMBI_DEV_BINS];
    unsigned hist2[256];
} CambiDevPool;

/* What the host downloads per (picture, scale). */
typedef struct CambiDevResult {
    vmaf_u64 topk_units, total_units;
    unsigned bad, pad;
} CambiDevResult;

/* ---- kernel arguments (at most 256 bytes) ---- */

typedef struct CambiPreArgs {
    cambi_devptr luma;          /* the shared frame's luma */
    vmaf_u64 stride;            /* bytes */
    cambi_devptr pos_x, pos_y;  /* unsigned[out_w], unsigned[out_h] */
    cambi_devptr image;         /* uint16 out, out_w per row */
    unsigned bpc, out_w, out_h;
    int anti_dither;
} CambiPreArgs;

typedef struct CambiFlatArgs {
    cambi_devptr image; /* uint16, w per row */
    cambi_devptr flat;  /* uint8 out */
    cambi_devptr mask;  /* uint8 out (mask kernel) */
    unsigned w, h, threshold;
} CambiFlatArgs;

typedef struct CambiScaleArgs {
    cambi_devptr src_image, src_mask; /* the previous level, src_w per row */
    cambi_devptr image, mask, keys;   /* this scale, w per row */
    unsigned src_w, w, h, step;       /* step 2: decimate, 1: not */
    unsigned base, size;
} CambiScaleArgs;

typedef struct CambiCvArgs {
    cambi_devptr keys;     /* uint16, w per row */
    cambi_devptr diffs;    /* CambiDevDiffs */
    cambi_devptr recip;    /* float[VMAF_CAMBI_RECIPROCAL_LUT_SIZE] */
    cambi_devptr c_values; /* float out, w per row */
    unsigned w, h, pad;
} CambiCvArgs;

typedef struct CambiPoolArgs {
    cambi_devptr c_values, pool, result;
    unsigned n, k, level;
} CambiPoolArgs;

/* ---- per-pixel arithmetic ---- */

/* The CPU's conversion to 10 bits (shift up below 10, round down above). */
VMAF_DEVICE_FN_INLINE_DEVICE unsigned cambi_dev_to10(unsigned s, unsigned bpc)
{
    const unsigned up = bpc <= 8 ? 10 - bpc : bpc == 9 ? 1 : 0;
    const unsigned down = bpc >= 10 ? bpc - 10 : 0;
    const unsigned round = down ? 1u << (down - 1) : 0;
    return (uint16_t)(((s + round) >> down) << up);
}

/* the value shared by two of the three, else the smallest */
VMAF_DEVICE_FN_INLINE_DEVICE uint16_t cambi_dev_mode3(uint16_t a, uint16_t b, uint16_t c)
{
    if (a == b || a == c) return a;
    if (b == c) return b;
    const uint16_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* One contrast's term of a c-value (index d = contrast - 1), 0 where the tests exclude it.
 * p0: count of v, p1 / p2: of v + d + 1 / v - d - 1. */
VMAF_DEVICE_FN_INLINE_DEVICE float cambi_dev_c_term(unsigned weight, uint32_t p0, uint32_t p1,
                                                    uint32_t p2, const VMAF_GLOBAL float *recip)
{
    const uint32_t pm = p1 > p2 ? p1 : p2;
    return (float)(int32_t)(weight * p0 * pm) * recip[pm + p0];
}

/* c as a whole number of 2^-24 units (cambi_kernels.c's to_units); 0 when it is not one */
VMAF_DEVICE_FN_INLINE_DEVICE int cambi_dev_units(uint32_t bits, vmaf_u64 *units)
{
    const uint32_t e = bits >> 23;
    if (e < 126 || e > 126 + 29) return 0;
    *units = (vmaf_u64)((bits & 0x7fffffu) | 0x800000u) << (e - 126);
    return 1;
}

/* ---- preprocess ---- */

VMAF_DEVICE_FN_INLINE_DEVICE unsigned cambi_dev_sample(const VMAF_GLOBAL uint8_t *luma,
                                                       vmaf_u64 stride, unsigned bpc,
                                                       const VMAF_GLOBAL unsigned *pos_x,
                                                       const VMAF_GLOBAL unsigned *pos_y,
                                                       unsigned i, unsigned j)
{
    const VMAF_GLOBAL uint8_t *row = luma + (size_t)pos_y[i] * stride;
    const unsigned s =
        bpc <= 8 ? row[pos_x[j]] : ((const VMAF_GLOBAL uint16_t *)row)[pos_x[j]];
    return cambi_dev_to10(s, bpc);
}

VMAF_DEVICE_FN_INLINE_DEVICE void cambi_dev_preprocess(const CambiPreArgs *a,
                                                       const VMAF_GLOBAL uint8_t *luma,
                                                       const VMAF_GLOBAL unsigned *pos_x,
                                                       const VMAF_GLOBAL unsigned *pos_y,
                                                       VMAF_GLOBAL uint16_t *image, unsigned t)
{
    const unsigned w = a->out_w, h = a->out_h;
    if (t >= w * h) return;
    const unsigned i = t / w, j = t % w;
#define CAMBI_DEV_S(r, c) cambi_dev_sample(luma, a->stride, a->bpc, pos_x, pos_y, (r), (c))
    unsigned v = CAMBI_DEV_S(i, j);
    if (a->anti_dither) {
        if (i + 1 < h) {
            if (j + 1 < w)
                v = (v + CAMBI_DEV_S(i, j + 1) + CAMBI_DEV_S(i + 1, j) +
                     CAMBI_DEV_S(i + 1, j + 1)) >> 2;
            else
                v = (v + CAMBI_DEV_S(i + 1, j)) >> 1;
        } else if (j + 1 < w) {
            v = (v + CAMBI_DEV_S(i, j + 1)) >> 1;
        }
    }
#undef CAMBI_DEV_S
    image[t] = (uint16_t)v;
}

/* ---- spatial mask ---- */

VMAF_DEVICE_FN_INLINE_DEVICE void cambi_dev_flat(const CambiFlatArgs *a,
                                                 const VMAF_GLOBAL uint16_t *img,
                                                 VMAF_GLOBAL uint8_t *flat, unsigned t)
{
    const unsigned w = a->w, h = a->h;
    if (t >= w * h) return;
    const unsigned i = t / w, j = t % w;
    const uint16_t v = img[t];
    unsigned f = j + 1 < w ? v == img[t + 1] : 1;
    if (i + 1 < h) f &= v == img[t + w];
    flat[t] = (uint8_t)f;
}

VMAF_DEVICE_FN_INLINE_DEVICE void cambi_dev_mask(const CambiFlatArgs *a,
                                                 const VMAF_GLOBAL uint8_t *flat,
                                                 VMAF_GLOBAL uint8_t *mask, unsigned t)
{
    const int w = (int)a->w, h = (int)a->h, pad = VMAF_CAMBI_MASK_FILTER_SIZE >> 1;
    if (t >= a->w * a->h) return;
    const int i = (int)(t / a->w), j = (int)(t % a->w);
    const int r0 = i - pad < 0 ? 0 : i - pad, r1 = i + pad >= h ? h - 1 : i + pad;
    const int c0 = j - pad < 0 ? 0 : j - pad, c1 = j + pad >= w ? w - 1 : j + pad;
    unsigned acc = 0;
    for (int r = r0; r <= r1; r++)
        for (int c = c0; c <= c1; c++) acc += flat[(size_t)r * w + c];
    mask[t] = acc > a->threshold;
}

/* ---- one scale: decimation, mode filter, keys ---- */

VMAF_DEVICE_FN_INLINE_DEVICE uint16_t cambi_dev_dec(const CambiScaleArgs *a,
                                                    const VMAF_GLOBAL uint16_t *src, unsigned r,
                                                    unsigned c)
{
    return src[(size_t)(a->step * r) * a->src_w + a->step * c];
}

VMAF_DEVICE_FN_INLINE_DEVICE uint16_t cambi_dev_row_mode(const CambiScaleArgs *a,
                                                         const VMAF_GLOBAL uint16_t *src,
                                                         unsigned r, unsigned c)
{
    if (c == 0 || c + 1 == a->w) return cambi_dev_dec(a, src, r, c);
    return cambi_dev_mode3(cambi_dev_dec(a, src, r, c - 1), cambi_dev_dec(a, src, r, c),
                           cambi_dev_dec(a, src, r, c + 1));
}

VMAF_DEVICE_FN_INLINE_DEVICE void cambi_dev_scale(const CambiScaleArgs *a,
                                                  const VMAF_GLOBAL uint16_t *src_image,
                                                  const VMAF_GLOBAL uint8_t *src_mask,
                                                  VMAF_GLOBAL uint16_t *image,
                                                  VMAF_GLOBAL uint8_t *mask,
                                                  VMAF_GLOBAL uint16_t *keys, unsigned t)
{
    const unsigned w = a->w, h = a->h;
    if (t >= w * h) return;
    const unsigned i = t / w, j = t % w;
    uint16_t v;
    if (h < 3 || i == 0 || i + 1 == h)
        v = cambi_dev_dec(a, src_image, i, j);
    else
        v = cambi_dev_mode3(cambi_dev_row_mode(a, src_image, i - 1, j),
                            cambi_dev_row_mode(a, src_image, i, j),
                            cambi_dev_row_mode(a, src_image, i + 1, j));
    const uint8_t m = src_mask[(size_t)(a->step * i) * a->src_w + a->step * j];
    image[t] = v;
    mask[t] = m;
    const uint16_t k = (uint16_t)(v - a->base);
    keys[t] = (uint16_t)((m && k < a->size) ? k : CAMBI_DEV_NO_KEY);
}

/* ---- c-values: one block's strip and segment ---- */

typedef struct CambiDevStrip {
    int c0, c1, r0, r1; /* output columns [c0, c1), rows [r0, r1) */
    int x0, x1;         /* the extended column range [x0, x1) */
} CambiDevStrip;

VMAF_DEVICE_FN_INLINE_DEVICE CambiDevStrip cambi_dev_strip(const CambiCvArgs *a, unsigned bx,
                                                           unsigned by)
{
    CambiDevStrip s;
    const int w = (int)a->w, h = (int)a->h, pad = (int)a->pad;
    s.c0 = (int)bx * CAMBI_DEV_TW;
    s.c1 = s.c0 + CAMBI_DEV_TW < w ? s.c0 + CAMBI_DEV_TW : w;
    s.r0 = (int)by * CAMBI_DEV_SEG;
    s.r1 = s.r0 + CAMBI_DEV_SEG < h ? s.r0 + CAMBI_DEV_SEG : h;
    s.x0 = s.c0 - pad < 0 ? 0 : s.c0 - pad;
    s.x1 = s.c1 + pad > w ? w : s.c1 + pad;
    return s;
}

/* The increment a pixel at column x adds to word q (columns c0 + 2q, c0 + 2q + 1): one per
 * strip column within pad of x, the second column in the high half. */
VMAF_DEVICE_FN_INLINE_DEVICE uint32_t cambi_dev_word_inc(const CambiDevStrip *s, int pad, int x,
                                                         int q)
{
    const int c = s->c0 + 2 * q;
    uint32_t inc = 0;
    if (c < s->c1 && c >= x - pad && c <= x + pad) inc |= 1u;
    if (c + 1 < s->c1 && c + 1 >= x - pad && c + 1 <= x + pad) inc |= 1u << 16;
    return inc;
}

#if defined(__CUDA_ARCH__)
#define CAMBI_DEV_ADD(p, v) atomicAdd((p), (v))
#define CAMBI_DEV_SUB(p, v) atomicSub((p), (v))
#elif VMAF_DIALECT_OPENCL
#define CAMBI_DEV_ADD(p, v) atomic_add((p), (v))
#define CAMBI_DEV_SUB(p, v) atomic_sub((p), (v))
#else
#define CAMBI_DEV_ADD(p, v) (*(p) += (v))
#define CAMBI_DEV_SUB(p, v) (*(p) -= (v))
#endif

/* Zero the histogram rows of the band (thread t of n). */
VMAF_DEVICE_FN_INLINE_DEVICE void cambi_dev_hist_clear(CAMBI_DEV_LOCAL uint32_t *hist,
                                                       unsigned size, unsigned t, unsigned n)
{
    for (unsigned e = t; e < size * CAMBI_DEV_WORDS; e += n) hist[e] = 0;
}

/* The window of the segment's first row: rows [r0 - pad, r0 + pad], items (pixel, word). */
VMAF_DEVICE_FN_INLINE_DEVICE void cambi_dev_hist_init(const CambiCvArgs *a, const CambiDevStrip *s,
                                                      const VMAF_GLOBAL uint16_t *keys,
                                                      CAMBI_DEV_LOCAL uint32_t *hist, unsigned t,
                                                      unsigned n)
{
    const int pad = (int)a->pad, w = (int)a->w;
    const int ra = s->r0 - pad < 0 ? 0 : s->r0 - pad;
    const int rb = s->r0 + pad >= (int)a->h ? (int)a->h - 1 : s->r0 + pad;
    const int cols = s->x1 - s->x0;
    const unsigned items = (unsigned)((rb - ra + 1) * cols) * CAMBI_DEV_WORDS;
    for (unsigned e = t; e < items; e += n) {
        const int q = (int)(e % CAMBI_DEV_WORDS), p = (int)(e / CAMBI_DEV_WORDS);
        const int r = ra + p / cols, x = s->x0 + p % cols;
        const uint16_t k = keys[(size_t)r * w + x];
        if (k == CAMBI_DEV_NO_KEY) continue;
        const uint32_t inc = cambi_dev_word_inc(s, pad, x, q);
        if (inc) CAMBI_DEV_ADD(&hist[k * CAMBI_DEV_WORDS + q], inc);
    }
}

/* Slide the window from row i - 1 to row i (i > r0). */
VMAF_DEVICE_FN_INLINE_DEVICE void cambi_dev_hist_slide(const CambiCvArgs *a, const CambiDevStrip *s,
                                                       const VMAF_GLOBAL uint16_t *keys,
                                                       CAMBI_DEV_LOCAL uint32_t *hist, int i,
                                                       unsigned t, unsigned n)
{
    const int pad = (int)a->pad, w = (int)a->w;
    const int in = i + pad, out = i - pad - 1;
    const int cols = s->x1 - s->x0;
    const unsigned items = (unsigned)cols * CAMBI_DEV_WORDS;
    for (unsigned e = t; e < items; e += n) {
        const int q = (int)(e % CAMBI_DEV_WORDS), x = s->x0 + (int)(e / CAMBI_DEV_WORDS);
        const uint16_t ki = in < (int)a->h ? keys[(size_t)in * w + x] : CAMBI_DEV_NO_KEY;
        const uint16_t ko = out >= 0 ? keys[(size_t)out * w + x] : CAMBI_DEV_NO_KEY;
        if (ki == ko) continue;
        const uint32_t inc = cambi_dev_word_inc(s, pad, x, q);
        if (!inc) continue;
        if (ko != CAMBI_DEV_NO_KEY) CAMBI_DEV_SUB(&hist[ko * CAMBI_DEV_WORDS + q], inc);
        if (ki != CAMBI_DEV_NO_KEY) CAMBI_DEV_ADD(&hist[ki * CAMBI_DEV_WORDS + q], inc);
    }
}

VMAF_DEVICE_FN_INLINE_DEVICE uint32_t cambi_dev_count(const CAMBI_DEV_LOCAL uint32_t *hist,
                                                     unsigned key, int col)
{
    return (hist[key * CAMBI_DEV_WORDS + (col >> 1)] >> (16 * (col & 1))) & 0xffffu;
}

/* Thread t's part of row i's c-values: output column c0 + t / DLANES, contrasts
 * d = t % DLANES, + DLANES, ... The c-value is the max of the lanes' results. */
VMAF_DEVICE_FN_INLINE_DEVICE float cambi_dev_c_lane(const CambiCvArgs *a, const CambiDevStrip *s,
                                                    const VMAF_GLOBAL CambiDevDiffs *df,
                                                    const VMAF_GLOBAL float *recip,
                                                    const VMAF_GLOBAL uint16_t *keys,
                                                    const CAMBI_DEV_LOCAL uint32_t *hist, int i,
                                                    unsigned t)
{
    const int col = (int)(t / CAMBI_DEV_DLANES), lane = (int)(t % CAMBI_DEV_DLANES);
    const int j = s->c0 + col;
    if (j >= s->c1) return 0.0f;
    const uint16_t key = keys[(size_t)i * a->w + j];
    if (key == CAMBI_DEV_NO_KEY) return 0.0f;
    const int v = key + (int)df->base;
    const uint32_t p0 = cambi_dev_count(hist, key, col);
    float c = 0.0f;
    for (int d = lane; d < df->num_diffs; d += CAMBI_DEV_DLANES) {
        if (v > df->hi[d] || v < df->lo[d]) continue;
        const unsigned up = key + (unsigned)d + 1;
        const uint32_t p1 = up < df->size ? cambi_dev_count(hist, up, col) : 0;
        const uint32_t p2 = key >= (unsigned)d + 1 ? cambi_dev_count(hist, key - d - 1, col) : 0;
        const float val = cambi_dev_c_term(df->weight[d], p0, p1, p2, recip);
        if (val > c) c = val;
    }
    return c;
}

/* ---- pooling: radix select of the k-th largest ---- */

/* The bucket of c's bits at a level, or -1 when c is not in the selected bucket. */
VMAF_DEVICE_FN_INLINE_DEVICE int cambi_dev_bucket(uint32_t bits, unsigned level, unsigned prefix)
{
    if (!bits) return -1; /* zeros are never counted: they lie below every nonzero value */
    if (level == 0) return (int)(bits >> 20);
    if (level == 1) return (bits >> 20) == prefix ? (int)((bits >> 8) & 0xfff) : -1;
    return (bits >> 8) == prefix ? (int)(bits & 0xff) : -1;
}

/* Select the bin holding the remaining-th largest: bins[nb] counts, from the top. Returns
 * the bin (-1 when the bins hold fewer values) and the count of values above it. */
VMAF_DEVICE_FN_INLINE_DEVICE int cambi_dev_select(const CAMBI_DEV_LOCAL unsigned *bins, unsigned nb,
                                                  unsigned remaining, unsigned *above)
{
    unsigned acc = 0;
    for (unsigned b = nb; b-- > 0;) {
        if (acc + bins[b] >= remaining) {
            *above = acc;
            return (int)b;
        }
        acc += bins[b];
    }
    *above = acc;
    return -1;
}

/* The select kernel's two steps: chunk sums (chunk c = bins [c * per, (c + 1) * per), summed
 * by one thread each), then the chunk, then the bin in it. Bin 0 with everything above when
 * the bins hold fewer values than remaining (the k-th largest is then 0). Updates *prefix
 * (appends the bin's bits) and *remaining. */
VMAF_DEVICE_FN_INLINE_DEVICE void
cambi_dev_select_finish(const CAMBI_DEV_LOCAL unsigned *bins,
                        const CAMBI_DEV_LOCAL unsigned *chunk_sums, unsigned nchunks,
                        unsigned per, unsigned bits, unsigned *prefix, unsigned *remaining)
{
    unsigned above_chunk, above_bin;
    const int c = cambi_dev_select(chunk_sums, nchunks, *remaining, &above_chunk);
    unsigned bin = 0;
    if (c < 0) {
        *remaining -= above_chunk;
    } else {
        const int b = cambi_dev_select(bins + (unsigned)c * per, per, *remaining - above_chunk,
                                       &above_bin);
        bin = (unsigned)c * per + (unsigned)b; /* b >= 0: the chunk holds enough */
        *remaining -= above_chunk + above_bin;
    }
    *prefix = (*prefix << bits) | bin;
}

#if VMAF_DIALECT_C
#include <string.h>

/* ---- host side: the plan (the twin and the host test) ---- */

/* The sizes and decimation steps of the five scales of a w x h picture, and their k. */
static inline void cambi_dev_plan_scales(unsigned w, unsigned h, bool speedup, double topk,
                                         unsigned sw[VMAF_CAMBI_NUM_SCALES],
                                         unsigned sh[VMAF_CAMBI_NUM_SCALES],
                                         unsigned step[VMAF_CAMBI_NUM_SCALES],
                                         int k[VMAF_CAMBI_NUM_SCALES])
{
    for (unsigned s = 0; s < VMAF_CAMBI_NUM_SCALES; s++) {
        step[s] = (s > 0 || speedup) ? 2 : 1;
        if (step[s] == 2) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
        }
        sw[s] = w;
        sh[s] = h;
        k[s] = vmaf_cambi_topk_count(topk, w * h);
    }
}

/* The contrasts' tests (cambi_kernels.c's diff_ranges), weights and band. */
static inline void cambi_dev_diffs_fill(CambiDevDiffs *df, const VmafCambiParams *p)
{
    memset(df, 0, sizeof(*df));
    df->num_diffs = (int)p->num_diffs;
    for (int d = 0; d < df->num_diffs; d++) {
        df->hi[d] = (int)p->tvi_for_diff[d] - df->num_diffs;
        df->lo[d] = (int)p->vlt_luma - df->num_diffs - d;
        df->weight[d] = (unsigned)vmaf_cambi_contrast_weights[d];
    }
    df->base = p->band_base;
    df->size = p->band_size;
}
#endif

#endif /* VMAF_FEATURE_CAMBI_DEVICE_H */
