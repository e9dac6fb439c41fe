/*
 * CAMBI's per-scale building blocks (cambi.h): spatial mask, decimation, mode filter, the
 * sliding-window histograms and c-values, and the top-k pooling.
 *
 * The histograms: for the current row i, hist[v - band_base][c] counts the masked pixels of
 * value v in rows [i - pad, i + pad] and columns [c - pad, c + pad], both clipped to the
 * picture, for the values v of the band that can change a c-value (cambi.h). Moving to the
 * next row adds the row entering the window and removes the one leaving it, each pixel as
 * a +-1 over the 2 pad + 1 columns it covers. The counts are exact integers, so the order
 * of these updates is free.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cambi.h"
#include "cambi_device.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CAMBI_X86 1
#define CAMBI_AVX2 __attribute__((target("avx2")))
#else
#define CAMBI_X86 0
#endif

static size_t histogram_elems(unsigned max_w, unsigned band_size);

int vmaf_cambi_scratch_alloc(VmafCambiScratch *s, unsigned max_w, unsigned max_h,
                             unsigned band_size)
{
    memset(s, 0, sizeof(*s));
    /* 16 spare columns so vector loads near the right edge stay inside */
    const size_t cols = (size_t)max_w + 16;
    s->histograms = calloc(histogram_elems(max_w, band_size), sizeof(uint16_t));
    s->keys = calloc((size_t)max_w * max_h + 16, sizeof(uint16_t));
    s->mode_rows = calloc(3 * cols, sizeof(uint16_t));
    s->column_sums = calloc(cols + 2 * 3, sizeof(uint32_t));
    s->flat_row = calloc(cols, sizeof(uint16_t));
    if (!s->histograms || !s->keys || !s->mode_rows || !s->column_sums || !s->flat_row) {
        vmaf_cambi_scratch_free(s);
        return -ENOMEM;
    }
    s->max_w = max_w;
    s->band_size = band_size;
    return 0;
}

void vmaf_cambi_scratch_free(VmafCambiScratch *s)
{
    free(s->histograms);
    free(s->keys);
    free(s->mode_rows);
    free(s->column_sums);
    free(s->flat_row);
    memset(s, 0, sizeof(*s));
}

/* ---- spatial mask ------------------------------------------------------------------------ */

/* zero columns on each side of the mask's column sums (the 7x7 window's half width) */
#define MASK_SUM_PAD 3

static unsigned ceil_log2(uint32_t n)
{
    unsigned shift = 0;
    if (!n) return 0;
    for (uint32_t t = n - 1; t; t >>= 1) shift++;
    return shift;
}

unsigned vmaf_cambi_mask_index(unsigned w, unsigned h, unsigned filter_size)
{
    const uint32_t area = (w >> 6) * (h >> 6);
    /* int arithmetic, then the reference's uint16 result */
    const int idx = ((int)(filter_size * filter_size) + 3 * ((int)ceil_log2(area) - 11) - 1) >> 1;
    return (uint16_t)idx;
}

/* flat[c]: the pixel equals its right and lower neighbours (the edges count as equal) */
static void flat_row(const uint16_t *image, ptrdiff_t stride, unsigned w, unsigned h,
                     unsigned r, uint16_t *flat)
{
    const uint16_t *row = image + r * stride;
    if (r + 1 < h) {
        const uint16_t *below = row + stride;
        for (unsigned c = 0; c + 1 < w; c++)
            flat[c] = (row[c] == row[c + 1]) & (row[c] == below[c]);
        flat[w - 1] = row[w - 1] == below[w - 1];
    } else {
        for (unsigned c = 0; c + 1 < w; c++) flat[c] = row[c] == row[c + 1];
        flat[w - 1] = 1;
    }
}

static void add_flat_row(const uint16_t *image, ptrdiff_t stride, unsigned w, unsigned h,
                         unsigned r, uint32_t *sums, uint16_t *flat, int sign)
{
    flat_row(image, stride, w, h, r, flat);
    if (sign > 0)
        for (unsigned c = 0; c < w; c++) sums[c] += flat[c];
    else
        for (unsigned c = 0; c < w; c++) sums[c] -= flat[c];
}

void vmaf_cambi_spatial_mask(const uint16_t *image, uint16_t *mask, ptrdiff_t stride,
                             unsigned w, unsigned h, VmafCambiScratch *scratch)
{
    const int pad = VMAF_CAMBI_MASK_FILTER_SIZE >> 1;
    const uint32_t threshold = vmaf_cambi_mask_index(w, h, VMAF_CAMBI_MASK_FILTER_SIZE);
    /* column sums over the rows of the window, with pad zero columns on each side */
    uint32_t *sums = scratch->column_sums + MASK_SUM_PAD;
    uint16_t *flat = scratch->flat_row;
    memset(scratch->column_sums, 0, (w + 2 * MASK_SUM_PAD) * sizeof(*sums));
    for (int r = 0; r < pad && r < (int)h; r++)
        add_flat_row(image, stride, w, h, (unsigned)r, sums, flat, +1);
    for (int i = 0; i < (int)h; i++) {
        if (i + pad < (int)h) add_flat_row(image, stride, w, h, (unsigned)(i + pad), sums, flat, +1);
        if (i - pad - 1 >= 0) add_flat_row(image, stride, w, h, (unsigned)(i - pad - 1), sums, flat, -1);
        uint16_t *out = mask + i * stride;
        for (int c = 0; c < (int)w; c++) {
            const uint32_t acc = sums[c - 3] + sums[c - 2] + sums[c - 1] + sums[c] + sums[c + 1] +
                                 sums[c + 2] + sums[c + 3];
            out[c] = acc > threshold;
        }
    }
}

/* ---- decimation and mode filter ---------------------------------------------------------- */

static void decimate_rows_c(uint16_t *plane, ptrdiff_t stride, unsigned w, unsigned h)
{
    /* reads (2i, 2j) always lie at or after the write (i, j), so in place is safe */
    for (unsigned i = 0; i < h; i++) {
        const uint16_t *src = plane + 2 * i * stride;
        uint16_t *dst = plane + i * stride;
        for (unsigned j = 0; j < w; j++) dst[j] = src[2 * j];
    }
}

#if CAMBI_X86
CAMBI_AVX2 static void decimate_rows_avx2(uint16_t *plane, ptrdiff_t stride, unsigned w,
                                          unsigned h)
{
    const __m256i low = _mm256_set1_epi32(0xffff);
    for (unsigned i = 0; i < h; i++) {
        const uint16_t *src = plane + 2 * i * stride;
        uint16_t *dst = plane + i * stride;
        unsigned j = 0;
        /* the loads of a block end before its store begins for every row but the first,
         * where src == dst and each store covers only samples already loaded */
        for (; j + 16 <= w; j += 16) {
            const __m256i a = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(src + 2 * j)), low);
            const __m256i b =
                _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(src + 2 * j + 16)), low);
            const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
            _mm256_storeu_si256((__m256i *)(dst + j), packed);
        }
        for (; j < w; j++) dst[j] = src[2 * j];
    }
}
#endif

void vmaf_cambi_decimate(uint16_t *plane, ptrdiff_t stride, unsigned w, unsigned h)
{
#if CAMBI_X86
    if (__builtin_cpu_supports("avx2")) {
        decimate_rows_avx2(plane, stride, w, h);
        return;
    }
#endif
    decimate_rows_c(plane, stride, w, h);
}

/* the value shared by two of the three, else the smallest (symmetric in its arguments) */
#define mode3 cambi_dev_mode3

static void mode_row_c(const uint16_t *src, uint16_t *dst, unsigned w)
{
    dst[0] = src[0];
    for (unsigned j = 1; j + 1 < w; j++) dst[j] = mode3(src[j - 1], src[j], src[j + 1]);
    dst[w - 1] = src[w - 1];
}

static void mode_vertical_c(const uint16_t *a, const uint16_t *b, const uint16_t *c,
                            uint16_t *dst, unsigned w)
{
    for (unsigned j = 0; j < w; j++) dst[j] = mode3(a[j], b[j], c[j]);
}

#if CAMBI_X86
CAMBI_AVX2 static inline __m256i mode3_avx2(__m256i a, __m256i b, __m256i c)
{
    const __m256i a_dup = _mm256_or_si256(_mm256_cmpeq_epi16(a, b), _mm256_cmpeq_epi16(a, c));
    const __m256i bc = _mm256_cmpeq_epi16(b, c);
    const __m256i lo = _mm256_min_epu16(_mm256_min_epu16(a, b), c);
    return _mm256_blendv_epi8(_mm256_blendv_epi8(lo, b, bc), a, a_dup);
}

CAMBI_AVX2 static void mode_row_avx2(const uint16_t *src, uint16_t *dst, unsigned w)
{
    dst[0] = src[0];
    unsigned j = 1;
    for (; j + 16 < w; j += 16) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(src + j - 1));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(src + j));
        const __m256i c = _mm256_loadu_si256((const __m256i *)(src + j + 1));
        _mm256_storeu_si256((__m256i *)(dst + j), mode3_avx2(a, b, c));
    }
    for (; j + 1 < w; j++) dst[j] = mode3(src[j - 1], src[j], src[j + 1]);
    dst[w - 1] = src[w - 1];
}

CAMBI_AVX2 static void mode_vertical_avx2(const uint16_t *a, const uint16_t *b,
                                          const uint16_t *c, uint16_t *dst, unsigned w)
{
    unsigned j = 0;
    for (; j + 16 <= w; j += 16) {
        const __m256i va = _mm256_loadu_si256((const __m256i *)(a + j));
        const __m256i vb = _mm256_loadu_si256((const __m256i *)(b + j));
        const __m256i vc = _mm256_loadu_si256((const __m256i *)(c + j));
        _mm256_storeu_si256((__m256i *)(dst + j), mode3_avx2(va, vb, vc));
    }
    for (; j < w; j++) dst[j] = mode3(a[j], b[j], c[j]);
}
#endif

void vmaf_cambi_filter_mode(uint16_t *image, ptrdiff_t stride, unsigned w, unsigned h,
                            VmafCambiScratch *scratch)
{
    void (*row_fn)(const uint16_t *, uint16_t *, unsigned) = mode_row_c;
    void (*vert_fn)(const uint16_t *, const uint16_t *, const uint16_t *, uint16_t *,
                    unsigned) = mode_vertical_c;
#if CAMBI_X86
    if (__builtin_cpu_supports("avx2")) {
        row_fn = mode_row_avx2;
        vert_fn = mode_vertical_avx2;
    }
#endif
    if (h < 3) return; /* only the first and last rows: nothing changes */
    const size_t cols = (size_t)scratch->max_w + 16;
    uint16_t *rows[3] = { scratch->mode_rows, scratch->mode_rows + cols,
                          scratch->mode_rows + 2 * cols };
    /* rows[k] holds the horizontally filtered row (i - 1 + k) of the original picture */
    row_fn(image, rows[0], w);
    row_fn(image + stride, rows[1], w);
    for (unsigned i = 1; i + 1 < h; i++) {
        row_fn(image + (i + 1) * stride, rows[2], w);
        vert_fn(rows[0], rows[1], rows[2], image + i * stride, w);
        uint16_t *t = rows[0];
        rows[0] = rows[1];
        rows[1] = rows[2];
        rows[2] = t;
    }
}

/* ---- histograms and c-values ------------------------------------------------------------- */

/*
 * Layout: HIST_GUARD zero rows, the band_size value rows, HIST_GUARD zero rows, each row w
 * (the scale's width) counts long. The guard rows are never updated, so the counts of v - d
 * below the band and v + d above it read as 0 without a test.
 */
#define HIST_GUARD VMAF_CAMBI_MAX_DIFFS
#define NO_KEY 0xffffu

static size_t histogram_elems(unsigned max_w, unsigned band_size)
{
    return ((size_t)band_size + 2 * HIST_GUARD) * max_w + 16;
}

/* key[j]: the pixel's histogram row (value - band_base), NO_KEY when unmasked or outside */
static void row_keys_c(const uint16_t *image, const uint16_t *mask, int w, uint16_t base,
                       uint16_t size, uint16_t *key)
{
    for (int j = 0; j < w; j++) {
        const uint16_t k = (uint16_t)(image[j] - base);
        key[j] = (mask[j] && k < size) ? k : NO_KEY;
    }
}

#if CAMBI_X86
CAMBI_AVX2 static void row_keys_avx2(const uint16_t *image, const uint16_t *mask, int w,
                                     uint16_t base, uint16_t size, uint16_t *key)
{
    int j = 0;
    if (size) {
        const __m256i vbase = _mm256_set1_epi16((short)base);
        const __m256i top = _mm256_set1_epi16((short)(size - 1));
        const __m256i zero = _mm256_setzero_si256();
        for (; j + 16 <= w; j += 16) {
            const __m256i k = _mm256_sub_epi16(_mm256_loadu_si256((const __m256i *)(image + j)), vbase);
            const __m256i in_band = _mm256_cmpeq_epi16(_mm256_min_epu16(k, top), k);
            const __m256i masked =
                _mm256_cmpeq_epi16(_mm256_loadu_si256((const __m256i *)(mask + j)), zero);
            const __m256i valid = _mm256_andnot_si256(masked, in_band);
            /* invalid lanes: all ones = NO_KEY */
            _mm256_storeu_si256((__m256i *)(key + j), _mm256_or_si256(_mm256_and_si256(valid, k),
                                                                      _mm256_andnot_si256(valid, _mm256_set1_epi16(-1))));
        }
    }
    row_keys_c(image + j, mask + j, w - j, base, size, key + j);
}
#endif

static inline void range_add_c(uint16_t *row, int lo, int hi, uint16_t delta)
{
    for (int c = lo; c < hi; c++) row[c] = (uint16_t)(row[c] + delta);
}

static void histogram_keys_c(uint16_t *hist, const uint16_t *key, int w, int pad, uint16_t delta)
{
    for (int j = 0; j < w; j++) {
        if (key[j] == NO_KEY) continue;
        const int lo = j - pad < 0 ? 0 : j - pad;
        const int hi = j + pad + 1 > w ? w : j + pad + 1;
        range_add_c(hist + (size_t)key[j] * w, lo, hi, delta);
    }
}

/* remove the pixels of key_out, add those of key_in; equal keys cancel */
static void histogram_slide_c(uint16_t *hist, const uint16_t *key_out, const uint16_t *key_in,
                              int w, int pad)
{
    for (int j = 0; j < w; j++) {
        const uint16_t ko = key_out[j], ki = key_in[j];
        if (ko == ki) continue;
        const int lo = j - pad < 0 ? 0 : j - pad;
        const int hi = j + pad + 1 > w ? w : j + pad + 1;
        if (ko != NO_KEY) range_add_c(hist + (size_t)ko * w, lo, hi, 0xffff);
        if (ki != NO_KEY) range_add_c(hist + (size_t)ki * w, lo, hi, 1);
    }
}

#if CAMBI_X86
/* +delta on [lo, hi): whole vectors, then one vector with the lanes past hi adding 0 (the
 * histogram has 16 spare elements at its end for it) */
CAMBI_AVX2 static inline void range_add_avx2(uint16_t *row, int lo, int hi, __m256i delta)
{
    int c = lo;
    for (; c + 16 <= hi; c += 16) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(row + c));
        _mm256_storeu_si256((__m256i *)(row + c), _mm256_add_epi16(v, delta));
    }
    if (c < hi) {
        const __m256i iota = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        const __m256i lanes = _mm256_cmpgt_epi16(_mm256_set1_epi16((short)(hi - c)), iota);
        const __m256i v = _mm256_loadu_si256((const __m256i *)(row + c));
        _mm256_storeu_si256((__m256i *)(row + c),
                            _mm256_add_epi16(v, _mm256_and_si256(delta, lanes)));
    }
}

CAMBI_AVX2 static void histogram_keys_avx2(uint16_t *hist, const uint16_t *key, int w, int pad,
                                           uint16_t delta)
{
    const __m256i d = _mm256_set1_epi16((short)delta);
    for (int j = 0; j < w; j++) {
        if (key[j] == NO_KEY) continue;
        const int lo = j - pad < 0 ? 0 : j - pad;
        const int hi = j + pad + 1 > w ? w : j + pad + 1;
        range_add_avx2(hist + (size_t)key[j] * w, lo, hi, d);
    }
}

CAMBI_AVX2 static void histogram_slide_avx2(uint16_t *hist, const uint16_t *key_out,
                                            const uint16_t *key_in, int w, int pad)
{
    const __m256i plus = _mm256_set1_epi16(1), minus = _mm256_set1_epi16(-1);
    int j0 = 0;
    for (; j0 < w; j0 += 16) {
        uint32_t todo;
        if (j0 + 16 <= w) {
            const __m256i a = _mm256_loadu_si256((const __m256i *)(key_out + j0));
            const __m256i b = _mm256_loadu_si256((const __m256i *)(key_in + j0));
            const uint32_t eq = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi16(a, b));
            if (eq == 0xffffffffu) continue;
            todo = ~eq & 0x55555555u; /* one bit per 16-bit lane */
        } else {
            todo = 0;
            for (int j = j0; j < w; j++)
                if (key_out[j] != key_in[j]) todo |= 1u << (2 * (j - j0));
        }
        while (todo) {
            const int j = j0 + (__builtin_ctz(todo) >> 1);
            todo &= todo - 1;
            const uint16_t ko = key_out[j], ki = key_in[j];
            const int lo = j - pad < 0 ? 0 : j - pad;
            const int hi = j + pad + 1 > w ? w : j + pad + 1;
            if (ko != NO_KEY) range_add_avx2(hist + (size_t)ko * w, lo, hi, minus);
            if (ki != NO_KEY) range_add_avx2(hist + (size_t)ki * w, lo, hi, plus);
        }
    }
}
#endif

/* The reference's tests per contrast d (index d - 1) as a range of raw samples:
 * v + num_diffs <= tvi[d] and v + num_diffs + d > vlt. */
typedef struct DiffRange {
    int lo[VMAF_CAMBI_MAX_DIFFS], hi[VMAF_CAMBI_MAX_DIFFS];
} DiffRange;

static void diff_ranges(const VmafCambiParams *p, DiffRange *r)
{
    const int nd = (int)p->num_diffs;
    for (int d = 0; d < nd; d++) {
        r->hi[d] = (int)p->tvi_for_diff[d] - nd;
        r->lo[d] = (int)p->vlt_luma - nd - d;
    }
}

static void c_values_row_c(const uint16_t *hist, const uint16_t *key, int w,
                           const VmafCambiParams *p, const DiffRange *r, float *out)
{
    const int nd = (int)p->num_diffs, base = p->band_base;
    for (int j = 0; j < w; j++) {
        float c = 0.0f;
        if (key[j] != NO_KEY) {
            const int v = key[j] + base;
            const uint16_t *col = hist + (size_t)key[j] * w + j;
            const uint32_t p0 = col[0];
            for (int d = 0; d < nd; d++) {
                if (v > r->hi[d] || v < r->lo[d]) continue;
                const ptrdiff_t off = (ptrdiff_t)(d + 1) * w;
                const float val = cambi_dev_c_term((uint32_t)vmaf_cambi_contrast_weights[d], p0,
                                                   col[off], col[-off], vmaf_cambi_reciprocal);
                if (val > c) c = val;
            }
        }
        out[j] = c;
    }
}

void vmaf_cambi_c_values(const uint16_t *image, const uint16_t *mask, ptrdiff_t stride,
                         unsigned w, unsigned h, unsigned window_size,
                         const VmafCambiParams *p, float *c_values,
                         VmafCambiScratch *scratch)
{
    void (*add_fn)(uint16_t *, const uint16_t *, int, int, uint16_t) = histogram_keys_c;
    void (*slide_fn)(uint16_t *, const uint16_t *, const uint16_t *, int, int) = histogram_slide_c;
    void (*keys_fn)(const uint16_t *, const uint16_t *, int, uint16_t, uint16_t, uint16_t *) =
        row_keys_c;
#if CAMBI_X86
    if (__builtin_cpu_supports("avx2")) {
        keys_fn = row_keys_avx2;
        add_fn = histogram_keys_avx2;
        slide_fn = histogram_slide_avx2;
    }
#endif
    const int pad = (int)(window_size >> 1);
    const int W = (int)w, H = (int)h;
    const uint16_t base = p->band_base, size = p->band_size;
    uint16_t *hist = scratch->histograms + (size_t)HIST_GUARD * scratch->max_w;
    memset(hist, 0, ((size_t)size + HIST_GUARD) * w * sizeof(*hist));
    DiffRange ranges;
    diff_ranges(p, &ranges);

    /* the keys of every row once (packed, w per row) */
    uint16_t *keys = scratch->keys;
    for (int r = 0; r < H; r++)
        keys_fn(image + r * stride, mask + r * stride, W, base, size, keys + (size_t)r * w);
    for (int r = 0; r < pad && r < H; r++) add_fn(hist, keys + (size_t)r * w, W, pad, 1);
    for (int i = 0; i < H; i++) {
        const int in = i + pad, out = i - pad - 1;
        const uint16_t *key_in = in < H ? keys + (size_t)in * w : NULL;
        const uint16_t *key_out = out >= 0 ? keys + (size_t)out * w : NULL;
        if (key_in && key_out) slide_fn(hist, key_out, key_in, W, pad);
        else if (key_in) add_fn(hist, key_in, W, pad, 1);
        else if (key_out) add_fn(hist, key_out, W, pad, 0xffff);
        c_values_row_c(hist, keys + (size_t)i * w, W, p, &ranges, c_values + (size_t)i * w);
    }
}

/* ---- pooling ------------------------------------------------------------------------------ */

/* Hoare-style selection, descending: afterwards the k largest values occupy [0, k). The
 * exact sequence of swaps is the reference's, because the pooled sum depends on the order. */
static void quick_select_desc(float *a, int n, int k)
{
    if (n == k) return;
    int left = 0, right = n - 1;
    while (left < right) {
        const float pivot = a[k];
        int i = left, j = right;
        do {
            while (a[i] > pivot) i++;
            while (a[j] < pivot) j--;
            if (i <= j) {
                const float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < k) left = i;
        if (k < i) right = j;
    }
}

/*
 * Fast path. Every nonzero c-value is at least 0.5 (p0 pmax / (p0 + pmax) with counts >= 1),
 * so it is a whole multiple of 2^-24. While the top-k sum stays below 2^53 * 2^-24, every
 * partial sum the reference forms is exact, so the sum does not depend on the order and can be
 * taken in integers: the selection is free to differ from the reference's. The values are
 * checked, not assumed; anything else goes through the reference's quickselect.
 */
#define UNIT_LIMIT (1ull << 53)

/* c as a whole number of 2^-24 units; false when it is not one, or too large (negative
 * values have e >= 256) */
static inline bool to_units(float c, uint64_t *units)
{
    uint32_t b;
    memcpy(&b, &c, sizeof(b));
    unsigned long long u = 0;
    if (!cambi_dev_units(b, &u)) return false;
    *units = u;
    return true;
}

static bool pool_exact(float *c, int n, int k, double *mean)
{
    uint64_t total = 0;
    int nonzero = 0;
    for (int i = 0; i < n; i++) {
        if (!(i & 15) && i + 16 <= n) {
            /* mostly zeros: skip whole blocks (bits of +0.0f are 0) */
            uint32_t any = 0;
            for (int t = 0; t < 16; t++) {
                uint32_t b;
                memcpy(&b, &c[i + t], sizeof(b));
                any |= b;
            }
            if (!any) {
                i += 15;
                continue;
            }
        }
        if (c[i] == 0.0f) continue;
        uint64_t u;
        if (!to_units(c[i], &u)) return false;
        total += u;
        if (total >= UNIT_LIMIT) return false;
        nonzero++;
    }
    if (nonzero > k) {
        /* the k largest are among the nonzero values: select among those only */
        int m = 0;
        for (int i = 0; i < n; i++)
            if (c[i] != 0.0f) c[m++] = c[i];
        quick_select_desc(c, m, k);
        total = 0;
        for (int i = 0; i < k; i++) {
            uint64_t u = 0;
            to_units(c[i], &u);
            total += u;
        }
    }
    *mean = vmaf_cambi_units_mean(total, k);
    return true;
}

double vmaf_cambi_units_mean(uint64_t units, int k)
{
    return (double)units * 0x1p-24 / k;
}

int vmaf_cambi_topk_count(double topk, unsigned n)
{
    const int num = (int)n;
    int k = (int)(topk * num);
    if (k < 1) k = 1;
    if (k > num) k = num;
    return k;
}

double vmaf_cambi_spatial_pooling(float *c_values, double topk, unsigned n)
{
    const int num = (int)n;
    const int k = vmaf_cambi_topk_count(topk, n);
    double mean;
    if (pool_exact(c_values, num, k, &mean)) return mean;
    return vmaf_cambi_spatial_pooling_reference(c_values, k, n);
}

double vmaf_cambi_spatial_pooling_reference(float *c_values, int k, unsigned n)
{
    quick_select_desc(c_values, (int)n, k);
    double sum = 0;
    for (int i = 0; i < k; i++) sum += c_values[i];
    return sum / k;
}
