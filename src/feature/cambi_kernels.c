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

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CAMBI_X86 1
#define CAMBI_AVX2 __attribute__((target("avx2")))
#else
#define CAMBI_X86 0
#endif

int vmaf_cambi_scratch_alloc(VmafCambiScratch *s, unsigned max_w, unsigned band_size)
{
    memset(s, 0, sizeof(*s));
    /* 16 spare columns so vector loads near the right edge stay inside */
    const size_t cols = (size_t)max_w + 16;
    s->histograms = calloc((size_t)band_size * max_w + 16, sizeof(uint16_t));
    s->mode_rows = calloc(3 * cols, sizeof(uint16_t));
    s->column_sums = calloc(cols, sizeof(uint32_t));
    s->flat_row = calloc(cols, sizeof(uint16_t));
    if (!s->histograms || !s->mode_rows || !s->column_sums || !s->flat_row) {
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
    free(s->mode_rows);
    free(s->column_sums);
    free(s->flat_row);
    memset(s, 0, sizeof(*s));
}

/* ---- spatial mask ------------------------------------------------------------------------ */

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
    uint32_t *sums = scratch->column_sums;
    uint16_t *flat = scratch->flat_row;
    memset(sums, 0, w * sizeof(*sums));
    for (int r = 0; r < pad && r < (int)h; r++)
        add_flat_row(image, stride, w, h, (unsigned)r, sums, flat, +1);
    for (int i = 0; i < (int)h; i++) {
        if (i + pad < (int)h) add_flat_row(image, stride, w, h, (unsigned)(i + pad), sums, flat, +1);
        if (i - pad - 1 >= 0) add_flat_row(image, stride, w, h, (unsigned)(i - pad - 1), sums, flat, -1);
        /* horizontal window sum over [c - pad, c + pad] clipped */
        uint32_t acc = 0;
        for (int c = 0; c < pad && c < (int)w; c++) acc += sums[c];
        uint16_t *out = mask + i * stride;
        for (int c = 0; c < (int)w; c++) {
            if (c + pad < (int)w) acc += sums[c + pad];
            if (c - pad - 1 >= 0) acc -= sums[c - pad - 1];
            out[c] = acc > threshold;
        }
    }
}

/* ---- decimation and mode filter ---------------------------------------------------------- */

void vmaf_cambi_decimate(uint16_t *plane, ptrdiff_t stride, unsigned w, unsigned h)
{
    /* reads (2i, 2j) always lie at or after the write (i, j), so in place is safe */
    for (unsigned i = 0; i < h; i++) {
        const uint16_t *src = plane + 2 * i * stride;
        uint16_t *dst = plane + i * stride;
        for (unsigned j = 0; j < w; j++) dst[j] = src[2 * j];
    }
}

/* the value shared by two of the three, else the smallest (symmetric in its arguments) */
static inline uint16_t mode3(uint16_t a, uint16_t b, uint16_t c)
{
    if (a == b || a == c) return a;
    if (b == c) return b;
    const uint16_t m = a < b ? a : b;
    return m < c ? m : c;
}

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

static inline void range_inc_c(uint16_t *row, int lo, int hi)
{
    for (int c = lo; c < hi; c++) row[c]++;
}

static inline void range_dec_c(uint16_t *row, int lo, int hi)
{
    for (int c = lo; c < hi; c++) row[c]--;
}

/* Add (sign > 0) or remove the masked in-band pixels of row r to/from the histograms. */
static void histogram_row_c(uint16_t *hist, const uint16_t *image, const uint16_t *mask,
                            int w, int pad, const VmafCambiParams *p, int sign)
{
    const uint16_t base = p->band_base, size = p->band_size;
    for (int j = 0; j < w; j++) {
        if (!mask[j]) continue;
        const uint16_t k = (uint16_t)(image[j] - base);
        if (k >= size) continue;
        const int lo = j - pad < 0 ? 0 : j - pad;
        const int hi = j + pad + 1 > w ? w : j + pad + 1;
        if (sign > 0) range_inc_c(hist + (size_t)k * w, lo, hi);
        else range_dec_c(hist + (size_t)k * w, lo, hi);
    }
}

/* One step of the window: remove row `out`, add row `in`; a pixel pair of the same in-band
 * value at one column cancels. */
static void histogram_slide_c(uint16_t *hist, const uint16_t *img_out, const uint16_t *mask_out,
                              const uint16_t *img_in, const uint16_t *mask_in, int w, int pad,
                              const VmafCambiParams *p)
{
    const uint16_t base = p->band_base, size = p->band_size;
    for (int j = 0; j < w; j++) {
        const uint16_t ko = (uint16_t)(img_out[j] - base);
        const uint16_t ki = (uint16_t)(img_in[j] - base);
        const bool out = mask_out[j] && ko < size;
        const bool in = mask_in[j] && ki < size;
        if (!out && !in) continue;
        if (out && in && ko == ki) continue;
        const int lo = j - pad < 0 ? 0 : j - pad;
        const int hi = j + pad + 1 > w ? w : j + pad + 1;
        if (out) range_dec_c(hist + (size_t)ko * w, lo, hi);
        if (in) range_inc_c(hist + (size_t)ki * w, lo, hi);
    }
}

static inline float c_value_pixel(const uint16_t *hist, int w, int col, uint16_t sample,
                                  const VmafCambiParams *p)
{
    const int k = (int)sample - (int)p->band_base;
    if ((unsigned)k >= p->band_size) return 0.0f;
    const int value = sample + (int)p->num_diffs;
    const uint32_t p0 = hist[(size_t)k * w + col];
    const int top = (int)p->band_size - 1;
    float c = 0.0f;
    for (int d = 0; d < (int)p->num_diffs; d++) {
        if (value > p->tvi_for_diff[d] || value + d + 1 <= p->vlt_luma) continue;
        int up = k + d + 1;
        if (up > top) up = top; /* never taken when tvi grows with d; keeps reads inside */
        const int down = k - d - 1;
        const uint32_t p1 = hist[(size_t)up * w + col];
        const uint32_t p2 = down >= 0 ? hist[(size_t)down * w + col] : 0;
        const uint32_t pm = p1 > p2 ? p1 : p2;
        const float val = (float)(int32_t)((uint32_t)vmaf_cambi_contrast_weights[d] * p0 * pm) *
                          vmaf_cambi_reciprocal[pm + p0];
        if (val > c) c = val;
    }
    return c;
}

static void c_values_row_c(const uint16_t *hist, const uint16_t *image, const uint16_t *mask,
                           int w, const VmafCambiParams *p, float *out)
{
    for (int j = 0; j < w; j++)
        out[j] = mask[j] ? c_value_pixel(hist, w, j, image[j], p) : 0.0f;
}

void vmaf_cambi_c_values(const uint16_t *image, const uint16_t *mask, ptrdiff_t stride,
                         unsigned w, unsigned h, unsigned window_size,
                         const VmafCambiParams *p, float *c_values,
                         VmafCambiScratch *scratch)
{
    const int pad = (int)(window_size >> 1);
    const int W = (int)w, H = (int)h;
    uint16_t *hist = scratch->histograms;
    memset(hist, 0, (size_t)p->band_size * w * sizeof(*hist));

    for (int r = 0; r < pad && r < H; r++)
        histogram_row_c(hist, image + r * stride, mask + r * stride, W, pad, p, +1);
    for (int i = 0; i < H; i++) {
        const int in = i + pad, out = i - pad - 1;
        if (in < H && out >= 0)
            histogram_slide_c(hist, image + out * stride, mask + out * stride,
                              image + in * stride, mask + in * stride, W, pad, p);
        else if (in < H)
            histogram_row_c(hist, image + in * stride, mask + in * stride, W, pad, p, +1);
        else if (out >= 0)
            histogram_row_c(hist, image + out * stride, mask + out * stride, W, pad, p, -1);
        c_values_row_c(hist, image + i * stride, mask + i * stride, W, p, c_values + (size_t)i * w);
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

double vmaf_cambi_spatial_pooling(float *c_values, double topk, unsigned n)
{
    const int num = (int)n;
    int k = (int)(topk * num);
    if (k < 1) k = 1;
    if (k > num) k = num;
    quick_select_desc(c_values, num, k);
    double sum = 0;
    for (int i = 0; i < k; i++) sum += c_values[i];
    return sum / k;
}
