/*
 * Twin VMAF — integer VIF: extractor "vif" (vif.h describes the arithmetic).
 *
 * Per scale, each output row is made in three steps: a vertical pass over the filter's rows
 * (mirrored row pointers; nothing is padded in memory) into row buffers with mirrored
 * margins, a horizontal pass from those into three sigma rows, and a scalar pass that
 * accumulates the log and non-log sums. Subsampling makes only the even rows and the even
 * columns that the decimation keeps. Every pass reads 16-bit samples: 8-bit input is first
 * widened into a scale-0 image.
 *
 * Integer ranges. The reference sums the squares in 64 bits; here the filters run in
 * uint32 lanes, which vectorize well. A square (or product) of two 16-bit values, and a
 * vertical square sum, is split into 2^16 hi + lo; the two halves are filtered separately
 * (each sum stays below 2^32 because the filters sum to 2^16) and recombined with the
 * rounding shift q <= 16:  (2^16 A + B + r) >> q = (A << (16 - q)) + ((B + r) >> q),
 * exact because 2^16 A is a multiple of 2^q. The vertical pass stores the squares already
 * split, for the horizontal one. Plain uint32 sums are used where they cannot wrap: the
 * means, and the 8-bit squares at scale 0 (below 2^16 * 255^2).
 *
 * Vectorization. gcc -O2 vectorizes loops with a constant trip count, so every pass works
 * on fixed blocks of columns (the rest of a row goes through the same code one column at a
 * time), keeps its accumulators in small local arrays (at most eight vectors), and stores
 * through restrict-qualified parameters. That is the plain build and VMAF_VIF_IMPL_AVX2; on
 * x86-64 most passes also have hand-written AVX2/AVX-512 forms with 16-bit multiply-adds
 * (see "Hand-written AVX2" below), which vmaf_vif_compute() uses where the CPU runs them.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "feature_extractor.h"
#include "libvmaf/picture.h"
#include "vif.h"

#if defined(__GNUC__)
#define VIF_INLINE static inline __attribute__((always_inline))
#else
#define VIF_INLINE static inline
#endif

/* Columns per block. 16 uint16 samples fill a 256-bit vector, so the vertical passes
 * (16-bit loads, uint32 sums in two vectors each) use 16 and hold at most four sums; the
 * horizontal passes load uint32 and use 8, with up to eight sums. */
enum {
    BLOCK_V = 16,
    BLOCK_H = 8,
    PAD = VMAF_VIF_MAX_FILTER_WIDTH / 2, /* margin of the row buffers */
    SUB_PAD = 2, /* margin of the split rows: the 9-tap filter reaches 2 columns out */
    LO16 = 0xffff,
    MARGIN16 = 16, /* margin of the 16-bit rows (the 17-tap AVX2 pass reads 9 beyond w) */
};

/* ------------------------------------------------------------------------------------- */
/* Log2 table                                                                            */

void vmaf_vif_log2_table_fill(uint16_t table[VMAF_VIF_LOG2_TABLE_LEN])
{
    for (unsigned n = 0; n < VMAF_VIF_LOG2_TABLE_LEN; n++) {
        const unsigned i = VMAF_VIF_LOG2_TABLE_FIRST + n;
        /* log2 rounded once to float (correctly rounded here; glibc's log2f is off by an
         * ulp for a few i, which changes no entry), scaled exactly, rounded half away */
        const float l = (float)log2((double)i);
        table[n] = (uint16_t)round(l * 2048.0f);
    }
}

static int bit_length(uint64_t v)
{
#if defined(__GNUC__)
    return 64 - __builtin_clzll(v);
#else
    int n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
#endif
}

/* L(v) of vif.h, for v >= 2^17 (so the shift b is at least 2). */
VIF_INLINE int32_t vif_log2(const uint16_t *table, uint64_t v)
{
    const int b = bit_length(v) - 16;
    return table[(v >> b) - VMAF_VIF_LOG2_TABLE_FIRST] + VMAF_VIF_LOG2_ONE * b;
}

static enum VmafVifImpl vif_best_impl(void);

/* ------------------------------------------------------------------------------------- */
/* Workspace                                                                             */

struct VmafVifWorkspace {
    unsigned w, h, bpc;
    void *block;
    /* 16-bit images of each scale, rows packed: scale 0 only for 8-bit input (the widened
     * planes); scales 1..3 are w >> s by h >> s */
    uint16_t *img_ref[VMAF_VIF_SCALES], *img_dis[VMAF_VIF_SCALES];
    /* statistic rows of the vertical pass, each with PAD columns of margin on both sides
     * (pointers are to column 0), and the sigma rows of the horizontal pass */
    uint32_t *mu1, *mu2;
    uint32_t *xx_hi, *xx_lo, *yy_hi, *yy_lo, *xy_hi, *xy_lo; /* 2^16 hi + lo of q */
    int32_t *sigma_xx, *sigma_yy, *sigma_xy;
    /* subsampling rows: vertical pass (margins PAD), and its even and odd columns
     * (margins SUB_PAD) */
    uint32_t *conv_ref, *conv_dis;
    uint32_t *even_ref, *odd_ref, *even_dis, *odd_dis;
    /* the hand-written AVX2 statistic (stat_scale_avx2): the eight vertical rows as
     * biased 16-bit values (v ^ 0x8000), each with MARGIN16 columns on both sides */
    void *block16;
    uint16_t *row16[8];
    enum VmafVifImpl best; /* the build vmaf_vif_compute() uses, chosen at allocation */
    /* 2 more entries: the AVX-512 gathers read 32 bits at an entry */
    uint16_t log2_table[VMAF_VIF_LOG2_TABLE_LEN + 2];
};

int vmaf_vif_workspace_alloc(VmafVifWorkspace **out, unsigned w, unsigned h, unsigned bpc)
{
    if (!out || !w || !h || bpc < 8 || bpc > 16 || w > (1u << 24) || h > (1u << 24))
        return -EINVAL;
    *out = NULL;

    VmafVifWorkspace *ws = calloc(1, sizeof(*ws));
    if (!ws)
        return -ENOMEM;
    ws->w = w;
    ws->h = h;
    ws->bpc = bpc;

    const size_t row = (size_t)w + 2 * PAD;
    const size_t split_row = (size_t)w / 2 + 1 + 2 * SUB_PAD;
    size_t img = 0;
    for (int s = bpc == 8 ? 0 : 1; s < VMAF_VIF_SCALES; s++)
        img += (size_t)(w >> s) * (h >> s);
    const size_t n32 = 10 * row + 4 * split_row + 3 * (size_t)w;
    ws->block = malloc(n32 * sizeof(uint32_t) + 2 * img * sizeof(uint16_t));
    if (!ws->block) {
        free(ws);
        return -ENOMEM;
    }

    uint32_t *p = ws->block;
    uint32_t **rows[] = { &ws->mu1,   &ws->mu2,   &ws->xx_hi,    &ws->xx_lo,   &ws->yy_hi,
                          &ws->yy_lo, &ws->xy_hi, &ws->xy_lo, &ws->conv_ref, &ws->conv_dis };
    for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++, p += row)
        *rows[r] = p + PAD;
    uint32_t **split_rows[] = { &ws->even_ref, &ws->odd_ref, &ws->even_dis, &ws->odd_dis };
    for (size_t r = 0; r < sizeof(split_rows) / sizeof(split_rows[0]); r++, p += split_row)
        *split_rows[r] = p + SUB_PAD;
    ws->sigma_xx = (int32_t *)p;
    ws->sigma_yy = (int32_t *)p + w;
    ws->sigma_xy = (int32_t *)p + 2 * (size_t)w;
    p += 3 * (size_t)w;

    uint16_t *q = (uint16_t *)p;
    for (int s = bpc == 8 ? 0 : 1; s < VMAF_VIF_SCALES; s++) {
        const size_t n = (size_t)(w >> s) * (h >> s);
        ws->img_ref[s] = q;
        ws->img_dis[s] = q + n;
        q += 2 * n;
    }
    {
        const size_t row16 = (size_t)w + 2 * MARGIN16;
        ws->block16 = calloc(8 * row16, sizeof(uint16_t));
        if (!ws->block16) {
            free(ws->block);
            free(ws);
            return -ENOMEM;
        }
        for (int r = 0; r < 8; r++)
            ws->row16[r] = (uint16_t *)ws->block16 + r * row16 + MARGIN16;
    }
    ws->best = vif_best_impl();
    vmaf_vif_log2_table_fill(ws->log2_table);
    *out = ws;
    return 0;
}

void vmaf_vif_workspace_free(VmafVifWorkspace **ws)
{
    if (!ws || !*ws)
        return;
    free((*ws)->block);
    free((*ws)->block16);
    free(*ws);
    *ws = NULL;
}

/* ------------------------------------------------------------------------------------- */
/* Kernels                                                                               */

/* A plane of one scale: 16-bit samples. */
typedef struct Plane {
    const uint16_t *data;
    ptrdiff_t stride; /* samples */
    int w, h;
} Plane;

/* Reflect-101 index into [0, n), periodic so that any offset is defined; n = 1 gives 0. */
static int mirror(int i, int n)
{
    if (n == 1)
        return 0;
    const int period = 2 * (n - 1);
    i %= period;
    if (i < 0)
        i += period;
    return i < n ? i : period - i;
}

/* Fill `margin` columns on both sides of a row of n >= 1 values by reflection. */
static void mirror_margins(uint32_t *row, int n, int margin)
{
    for (int k = 1; k <= margin; k++) {
        row[-k] = row[mirror(-k, n)];
        row[n - 1 + k] = row[mirror(n - 1 + k, n)];
    }
}

/* Row pointers of the fw rows centred on row i (mirrored). */
static void gather_rows(const Plane *p, int i, int fw, const uint16_t **rows)
{
    for (int k = 0; k < fw; k++)
        rows[k] = p->data + (ptrdiff_t)mirror(i - fw / 2 + k, p->h) * p->stride;
}

static const uint16_t *filter_of_width(int fw)
{
    return vmaf_vif_filter[fw == 17 ? 0 : fw == 9 ? 1 : fw == 5 ? 2 : 3];
}

/*
 * The filters are symmetric, so every pass sums over tap pairs: rows (or columns) k and
 * fw-1-k with coefficient f[k], for k = 0 .. half. The last pair is the centre with itself
 * at half its coefficient, exact because every centre coefficient is even. One loop shape
 * for all taps keeps the compiler from unrolling a separate centre step into scalar code.
 */
static uint32_t pair_coefficient(const uint16_t *f, int k, int half)
{
    return k < half ? f[k] : f[half] / 2u;
}

/* Widen an 8-bit plane into 16-bit rows. */
static void widen_plane(const uint8_t *src, ptrdiff_t stride, int w, int h,
                        uint16_t *restrict dst)
{
    for (int i = 0; i < h; i++, src += stride, dst += w) {
        int j = 0;
        for (; j + BLOCK_V <= w; j += BLOCK_V)
            for (int t = 0; t < BLOCK_V; t++)
                dst[j + t] = src[j + t];
        for (; j < w; j++)
            dst[j] = src[j];
    }
}

/* Rounding shift of n vertical sums into a row. */
VIF_INLINE void store_shifted(const uint32_t *sum, uint32_t *restrict out, int shift, int n)
{
    const uint32_t rnd = shift ? 1u << (shift - 1) : 0;
    for (int t = 0; t < n; t++)
        out[t] = (sum[t] + rnd) >> shift;
}

/* Store n uint32 values as their 16-bit halves, ready for the horizontal pass. */
VIF_INLINE void store_halves(const uint32_t *v, uint32_t *restrict out_hi,
                             uint32_t *restrict out_lo, int n)
{
    for (int t = 0; t < n; t++) {
        out_hi[t] = v[t] >> 16;
        out_lo[t] = v[t] & LO16;
    }
}

/* Recombine n split sums (hi, lo) with the rounding shift q (see the top of this file) and
 * store the result as its 16-bit halves. */
VIF_INLINE void store_split(const uint32_t *hi, const uint32_t *lo, uint32_t *restrict out_hi,
                            uint32_t *restrict out_lo, int q, int n)
{
    const uint32_t rnd = 1u << (q - 1);
    for (int t = 0; t < n; t++) {
        const uint32_t v = (hi[t] << (16 - q)) + ((lo[t] + rnd) >> q);
        out_hi[t] = v >> 16;
        out_lo[t] = v & LO16;
    }
}

/* The uint32 product of two values that fit 16 bits, written so that the compiler sees
 * 16-bit operands. */
#define MUL16(a, b) ((uint32_t)(uint16_t)(a) * (uint16_t)(b))

/*
 * Statistic, vertical pass, 8-bit samples (q = 0), over columns [j0, j0 + n): the means
 * and the ref squares (part a) or the dis squares and the products (part b), as plain
 * uint32 sums. rr/dr are the fw ref/dis row pointers. Two parts of at most three sums each
 * stay within the vector registers.
 */
VIF_INLINE void stat_vertical_plain(const uint16_t *const *rr, const uint16_t *const *dr,
                                    const int fw, const int part_b, const int mu_shift,
                                    const VmafVifWorkspace *ws, const int j0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t s0[BLOCK_V] = { 0 }, s1[BLOCK_V] = { 0 }, s2[BLOCK_V] = { 0 };

    for (int k = 0; k <= half; k++) {
        /* 8-bit samples: pair sums and products fit 16 bits, so each term is a 16 x 16 ->
         * 32-bit multiply (cheaper than a 32-bit one); sums of two squares need 17 bits */
        const uint16_t fk = (uint16_t)pair_coefficient(f, k, half);
        const uint16_t *ra = rr[k] + j0, *rb = rr[fw - 1 - k] + j0;
        const uint16_t *da = dr[k] + j0, *db = dr[fw - 1 - k] + j0;
        for (int t = 0; t < n; t++) {
            const uint16_t xa = ra[t], xb = rb[t], ya = da[t], yb = db[t];
            if (part_b) {
                s0[t] += MUL16(fk, ya * ya) + MUL16(fk, yb * yb);
                s1[t] += MUL16(fk, xa * ya) + MUL16(fk, xb * yb);
            } else {
                s0[t] += MUL16(fk, xa + xb);
                s1[t] += MUL16(fk, ya + yb);
                s2[t] += MUL16(fk, xa * xa) + MUL16(fk, xb * xb);
            }
        }
    }
    if (part_b) {
        store_halves(s0, ws->yy_hi + j0, ws->yy_lo + j0, n);
        store_halves(s1, ws->xy_hi + j0, ws->xy_lo + j0, n);
    } else {
        store_shifted(s0, ws->mu1 + j0, mu_shift, n);
        store_shifted(s1, ws->mu2 + j0, mu_shift, n);
        store_halves(s2, ws->xx_hi + j0, ws->xx_lo + j0, n);
    }
}

/* Split sums of products a*b of 16-bit values: hi += f (a b >> 16), lo += f (a b & 0xffff);
 * for a pair of rows the halves of both products are added first. */
#define SPLIT_PRODUCT_PAIR(hi, lo, fk, a0, b0, a1, b1)                                   \
    do {                                                                                 \
        const uint32_t p0 = (a0) * (b0), p1 = (a1) * (b1);                               \
        hi += (fk) * ((p0 >> 16) + (p1 >> 16));                                          \
        lo += (fk) * ((p0 & LO16) + (p1 & LO16));                                        \
    } while (0)

/*
 * Statistic, vertical pass, 16-bit values, first half: the means and the ref squares.
 * Split into two passes of four sums each to stay within the vector registers.
 */
VIF_INLINE void stat_vertical_split_a(const uint16_t *const *rr, const uint16_t *const *dr,
                                      const int fw, const int mu_shift, const int q,
                                      const VmafVifWorkspace *ws, const int j0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t m1[BLOCK_V] = { 0 }, m2[BLOCK_V] = { 0 }, hi[BLOCK_V] = { 0 }, lo[BLOCK_V] = { 0 };

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const uint16_t *ra = rr[k] + j0, *rb = rr[fw - 1 - k] + j0;
        const uint16_t *da = dr[k] + j0, *db = dr[fw - 1 - k] + j0;
        for (int t = 0; t < n; t++) {
            const uint32_t xa = ra[t], xb = rb[t], ya = da[t], yb = db[t];
            m1[t] += fk * (xa + xb);
            m2[t] += fk * (ya + yb);
            SPLIT_PRODUCT_PAIR(hi[t], lo[t], fk, xa, xa, xb, xb);
        }
    }
    store_shifted(m1, ws->mu1 + j0, mu_shift, n);
    store_shifted(m2, ws->mu2 + j0, mu_shift, n);
    store_split(hi, lo, ws->xx_hi + j0, ws->xx_lo + j0, q, n);
}

/* Statistic, vertical pass, 16-bit values, second half: the dis squares and the products. */
VIF_INLINE void stat_vertical_split_b(const uint16_t *const *rr, const uint16_t *const *dr,
                                      const int fw, const int q, const VmafVifWorkspace *ws,
                                      const int j0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t yh[BLOCK_V] = { 0 }, yl[BLOCK_V] = { 0 }, ch[BLOCK_V] = { 0 }, cl[BLOCK_V] = { 0 };

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const uint16_t *ra = rr[k] + j0, *rb = rr[fw - 1 - k] + j0;
        const uint16_t *da = dr[k] + j0, *db = dr[fw - 1 - k] + j0;
        for (int t = 0; t < n; t++) {
            const uint32_t xa = ra[t], xb = rb[t], ya = da[t], yb = db[t];
            SPLIT_PRODUCT_PAIR(yh[t], yl[t], fk, ya, ya, yb, yb);
            SPLIT_PRODUCT_PAIR(ch[t], cl[t], fk, xa, ya, xb, yb);
        }
    }
    store_split(yh, yl, ws->yy_hi + j0, ws->yy_lo + j0, q, n);
    store_split(ch, cl, ws->xy_hi + j0, ws->xy_lo + j0, q, n);
}

/* The three sigmas of n columns from the horizontal sums (split ones for the squares). */
VIF_INLINE void store_sigmas(const uint32_t *m1, const uint32_t *m2, const uint32_t *xh,
                             const uint32_t *xl, const uint32_t *yh, const uint32_t *yl,
                             const uint32_t *ch, const uint32_t *cl,
                             int32_t *restrict sigma_xx, int32_t *restrict sigma_yy,
                             int32_t *restrict sigma_xy, int n)
{
    for (int t = 0; t < n; t++) {
        const uint32_t exx = xh[t] + ((xl[t] + 0x8000u) >> 16);
        const uint32_t eyy = yh[t] + ((yl[t] + 0x8000u) >> 16);
        const uint32_t exy = ch[t] + ((cl[t] + 0x8000u) >> 16);
        const uint32_t mu1_sq = (uint32_t)(((uint64_t)m1[t] * m1[t] + 0x80000000u) >> 32);
        const uint32_t mu2_sq = (uint32_t)(((uint64_t)m2[t] * m2[t] + 0x80000000u) >> 32);
        const uint32_t mu1_mu2 = (uint32_t)(((uint64_t)m1[t] * m2[t] + 0x80000000u) >> 32);
        const int32_t syy = (int32_t)(eyy - mu2_sq);
        sigma_xx[t] = (int32_t)(exx - mu1_sq);
        sigma_yy[t] = syy > 0 ? syy : 0;
        sigma_xy[t] = (int32_t)(exy - mu1_mu2);
    }
}

/*
 * Statistic, horizontal pass over columns [j0, j0 + n) of the vertical rows (margins
 * filled): the sigma rows. The squares arrive as 16-bit halves; each half is filtered on
 * its own (see the top of this file).
 */
VIF_INLINE void stat_horizontal(const int fw, const VmafVifWorkspace *ws, const int j0,
                                const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    const uint32_t *m1 = ws->mu1 + j0, *m2 = ws->mu2 + j0;
    const uint32_t *xh = ws->xx_hi + j0, *xl = ws->xx_lo + j0;
    const uint32_t *yh = ws->yy_hi + j0, *yl = ws->yy_lo + j0;
    const uint32_t *ch = ws->xy_hi + j0, *cl = ws->xy_lo + j0;
    uint32_t acc[8][BLOCK_H] = { { 0 } };

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const int a = k - half, b = half - k;
        for (int t = 0; t < n; t++) {
            acc[0][t] += fk * (m1[t + a] + m1[t + b]);
            acc[1][t] += fk * (m2[t + a] + m2[t + b]);
            acc[2][t] += fk * (xh[t + a] + xh[t + b]);
            acc[3][t] += fk * (xl[t + a] + xl[t + b]);
            acc[4][t] += fk * (yh[t + a] + yh[t + b]);
            acc[5][t] += fk * (yl[t + a] + yl[t + b]);
            acc[6][t] += fk * (ch[t + a] + ch[t + b]);
            acc[7][t] += fk * (cl[t + a] + cl[t + b]);
        }
    }
    store_sigmas(acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7],
                 ws->sigma_xx + j0, ws->sigma_yy + j0, ws->sigma_xy + j0, n);
}

/* The per-pixel sums of vif.h over one row of sigmas. */
static void stat_accumulate_part(const VmafVifWorkspace *ws, int j0, int w, double egl,
                                 VmafVifSums *sums)
{
    const uint16_t *table = ws->log2_table;
    const int32_t nsq = VMAF_VIF_SIGMA_NSQ;
    int64_t num_log = 0, den_log = 0, num_non_log = 0, den_non_log = 0;

    for (int j = j0; j < w; j++) {
        const int32_t sxx = ws->sigma_xx[j], syy = ws->sigma_yy[j], sxy = ws->sigma_xy[j];
        if (sxx < nsq) {
            num_non_log += syy;
            den_non_log++;
            continue;
        }
        den_log += vif_log2(table, (uint32_t)(nsq + sxx)) - 17 * VMAF_VIF_LOG2_ONE;
        if (sxy > 0 && syy > 0) {
            const double eps = 65536 * 1.0e-10;
            double g = sxy / (sxx + eps);
            /* the reference truncates to int32 and clamps at 0; the value is below
             * sigma_yy, so a positive one converts exactly and anything else gives 0 */
            const double sv_d = syy - g * sxy;
            const uint32_t sv = sv_d > 0 ? (uint32_t)(int32_t)sv_d : 0;
            g = g < egl ? g : egl;
            const uint32_t numer = sv + nsq;
            const int64_t gain = (int64_t)(g * g * sxx);
            num_log += vif_log2(table, (uint64_t)gain + numer) - vif_log2(table, numer);
        }
    }
    sums->num_log += num_log;
    sums->den_log += den_log;
    sums->num_non_log += num_non_log;
    sums->den_non_log += den_non_log;
}

static void stat_accumulate(const VmafVifWorkspace *ws, int w, double egl, VmafVifSums *sums)
{
    stat_accumulate_part(ws, 0, w, egl, sums);
}

/*
 * Statistic of one scale. fw: filter width; split: 16-bit values (else 8-bit samples, with
 * plain square sums); mu_shift and q: the vertical shifts of vif.h.
 */
VIF_INLINE void stat_scale(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                           const int fw, const int split, const int mu_shift, const int q,
                           double egl, VmafVifSums *sums)
{
    const int w = ref->w, h = ref->h, half = fw / 2;
    const uint16_t *rr[VMAF_VIF_MAX_FILTER_WIDTH], *dr[VMAF_VIF_MAX_FILTER_WIDTH];

    for (int i = 0; i < h; i++) {
        gather_rows(ref, i, fw, rr);
        gather_rows(dis, i, fw, dr);
        int j = 0;
        if (split) {
            for (; j + BLOCK_V <= w; j += BLOCK_V) {
                stat_vertical_split_a(rr, dr, fw, mu_shift, q, ws, j, BLOCK_V);
                stat_vertical_split_b(rr, dr, fw, q, ws, j, BLOCK_V);
            }
            for (; j < w; j++) {
                stat_vertical_split_a(rr, dr, fw, mu_shift, q, ws, j, 1);
                stat_vertical_split_b(rr, dr, fw, q, ws, j, 1);
            }
        } else {
            for (; j + BLOCK_V <= w; j += BLOCK_V) {
                stat_vertical_plain(rr, dr, fw, 0, mu_shift, ws, j, BLOCK_V);
                stat_vertical_plain(rr, dr, fw, 1, mu_shift, ws, j, BLOCK_V);
            }
            for (; j < w; j++) {
                stat_vertical_plain(rr, dr, fw, 0, mu_shift, ws, j, 1);
                stat_vertical_plain(rr, dr, fw, 1, mu_shift, ws, j, 1);
            }
        }

        uint32_t *const rows[] = { ws->mu1,   ws->mu2,   ws->xx_hi, ws->xx_lo,
                                   ws->yy_hi, ws->yy_lo, ws->xy_hi, ws->xy_lo };
        for (int r = 0; r < 8; r++)
            mirror_margins(rows[r], w, half);

        for (j = 0; j + BLOCK_H <= w; j += BLOCK_H)
            stat_horizontal(fw, ws, j, BLOCK_H);
        for (; j < w; j++)
            stat_horizontal(fw, ws, j, 1);

        stat_accumulate(ws, w, egl, sums);
    }
}

/* Subsampling, vertical pass over columns [j0, j0 + n) of both planes. */
VIF_INLINE void sub_vertical(const uint16_t *const *rr, const uint16_t *const *dr,
                             const int fw, const int shift, const VmafVifWorkspace *ws,
                             const int j0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t ar[BLOCK_V] = { 0 }, ad[BLOCK_V] = { 0 };

    for (int k = 0; k <= half; k++) {
        const uint32_t fk = pair_coefficient(f, k, half);
        const uint16_t *ra = rr[k] + j0, *rb = rr[fw - 1 - k] + j0;
        const uint16_t *da = dr[k] + j0, *db = dr[fw - 1 - k] + j0;
        for (int t = 0; t < n; t++) {
            ar[t] += fk * ((uint32_t)ra[t] + rb[t]);
            ad[t] += fk * ((uint32_t)da[t] + db[t]);
        }
    }
    store_shifted(ar, ws->conv_ref + j0, shift, n);
    store_shifted(ad, ws->conv_dis + j0, shift, n);
}

VIF_INLINE void store_sub(const uint32_t *acc, uint16_t *restrict out, int n)
{
    for (int t = 0; t < n; t++)
        out[t] = (uint16_t)((acc[t] + 0x8000u) >> 16);
}

/*
 * Subsampling, horizontal pass: output columns [m0, m0 + n), i.e. input columns 2m. The
 * input row is split into its even and odd columns (ev[m] = v[2m], od[m] = v[2m + 1]), so
 * every tap is a contiguous load: offset 2e reads ev[m + e], offset 2e + 1 reads od[m + e].
 */
VIF_INLINE void sub_horizontal(const int fw, const uint32_t *ev, const uint32_t *od,
                               uint16_t *out, const int m0, const int n)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    uint32_t acc[BLOCK_H] = { 0 };

    for (int d = 0; d <= half; d++) {
        const uint32_t fk = pair_coefficient(f, half - d, half);
        /* offsets -d and +d */
        const uint32_t *lo = d & 1 ? od - (d + 1) / 2 : ev - d / 2;
        const uint32_t *hi = d & 1 ? od + (d - 1) / 2 : ev + d / 2;
        for (int t = 0; t < n; t++)
            acc[t] += fk * (lo[m0 + t] + hi[m0 + t]);
    }
    store_sub(acc, out + m0, n);
}

/* Split row[-2 SUB_PAD .. 2 (n + SUB_PAD)) into its even and odd columns. */
static void deinterleave(const uint32_t *row, uint32_t *restrict ev, uint32_t *restrict od,
                         int n)
{
    for (int m = -SUB_PAD; m < n + SUB_PAD; m++) {
        ev[m] = row[2 * m];
        od[m] = row[2 * m + 1];
    }
}

/* Subsample src (w x h) into dst images of (w/2) x (h/2); filter width fw, vertical shift. */
VIF_INLINE void subsample(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                          uint16_t *dst_ref, uint16_t *dst_dis, const int fw, const int shift)
{
    const int w = ref->w, h = ref->h;
    const int w2 = w / 2, h2 = h / 2;
    const uint16_t *rr[VMAF_VIF_MAX_FILTER_WIDTH], *dr[VMAF_VIF_MAX_FILTER_WIDTH];

    for (int i2 = 0; i2 < h2; i2++) {
        gather_rows(ref, 2 * i2, fw, rr);
        gather_rows(dis, 2 * i2, fw, dr);
        int j = 0;
        for (; j + BLOCK_V <= w; j += BLOCK_V)
            sub_vertical(rr, dr, fw, shift, ws, j, BLOCK_V);
        for (; j < w; j++)
            sub_vertical(rr, dr, fw, shift, ws, j, 1);
        /* full margins, so that the split rows are defined wherever they are read */
        mirror_margins(ws->conv_ref, w, PAD);
        mirror_margins(ws->conv_dis, w, PAD);
        deinterleave(ws->conv_ref, ws->even_ref, ws->odd_ref, w2);
        deinterleave(ws->conv_dis, ws->even_dis, ws->odd_dis, w2);

        uint16_t *const out_r = dst_ref + (size_t)i2 * w2;
        uint16_t *const out_d = dst_dis + (size_t)i2 * w2;
        int m = 0;
        for (; m + BLOCK_H <= w2; m += BLOCK_H) {
            sub_horizontal(fw, ws->even_ref, ws->odd_ref, out_r, m, BLOCK_H);
            sub_horizontal(fw, ws->even_dis, ws->odd_dis, out_d, m, BLOCK_H);
        }
        for (; m < w2; m++) {
            sub_horizontal(fw, ws->even_ref, ws->odd_ref, out_r, m, 1);
            sub_horizontal(fw, ws->even_dis, ws->odd_dis, out_d, m, 1);
        }
    }
}

/* ------------------------------------------------------------------------------------- */
/* Hand-written AVX2 and AVX-512 (VMAF_VIF_IMPL_AVX2_MADD, VMAF_VIF_IMPL_AVX512)          */

/*
 * Built on _mm256_madd_epi16 (two 16 x 16-bit products summed in 32 bits: one instruction
 * for what costs four with 32-bit multiplies). Its operands are signed, so every unsigned
 * 16-bit value v in [0, 65535] enters as v - 32768 (the bit pattern v ^ 0x8000). A filter
 * sum then comes out short by 32768 times the sum of the coefficients, 32768 * 2^16 = 2^31;
 * the sums are kept mod 2^32 (every true sum is below 2^32) and the 2^31 is added back
 * (flipping the top bit, or folded into the rounding constant). No madd can overflow: the
 * coefficients (and pairs of them) are below 2^15 except the 3-tap filter's centre, 43728,
 * so that filter (scale 3 and the subsampling into it, 1/64 of the pixels) stays with the
 * compiler-vectorized C; a pair of products stays below 2 * 26386 * 32768 < 2^31.
 *
 * Vertical passes, 16 columns: rows k and fw-1-k share coefficient f[k], so their values
 * are interleaved and multiplied by (f[k], f[k]); the centre row goes with (f[half], 0).
 * 8-bit samples (scale 0): squares and products x*y <= 255^2 fit 16 bits unsigned
 * (_mm256_mullo_epi16), and the means take the pair sums x_k + x_(16-k) (<= 510, no bias)
 * of two taps at a time. 16-bit values: a product is split into its 16-bit halves
 * (_mm256_mulhi_epu16, _mm256_mullo_epi16), each filtered on its own, and recombined with
 * the shift q as in the C passes. Interleaving works within 128-bit lanes, and
 * _mm256_packus_epi32 of the two halves restores the column order. A statistic's vertical
 * pass stores eight biased 16-bit rows: the two means and the 16-bit halves of the three
 * square sums.
 *
 * Horizontal passes, 16 output columns j .. j+15 as even and odd ones: a load at column p
 * multiplied by (f[t], f[t+1]) adds f[t] v[p+2i] + f[t+1] v[p+2i+1] to lane i, so the loads
 * at j-half+2u (u = 0..half, f[fw] = 0) make the even outputs and the loads one column
 * further the odd ones, with no shuffles. The sigma rows then hold a block's columns as its
 * eight even columns followed by its eight odd ones; the per-pixel sums do not depend on
 * the order. Subsampling needs only the even outputs: the same loads at 2m-half+2u.
 *
 * VMAF_VIF_IMPL_AVX512 runs the 8-bit scale 0 on 32 columns with the same arithmetic in
 * 512-bit vectors, and the per-pixel sums of every hand-written statistic 8 columns at a
 * time (stat_accumulate_avx512). Columns that do not fill a block go through scalar code
 * on the same rows.
 */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(VMAF_VIF_NO_AVX2)
#define VIF_HAVE_AVX2 1
#include <immintrin.h>

#define VIF_AVX2 __attribute__((target("avx2")))

/* The scalar form of the vertical pass for column c: the biased rows. */
static void s0_vertical_column(const uint16_t *const *rr, const uint16_t *const *dr,
                               uint16_t *const *row16, int c)
{
    const uint16_t *f = vmaf_vif_filter[0];
    uint32_t m1 = 0, m2 = 0, xx = 0, yy = 0, xy = 0;
    for (int k = 0; k < 17; k++) {
        const uint32_t x = rr[k][c], y = dr[k][c];
        m1 += f[k] * x;
        m2 += f[k] * y;
        xx += f[k] * (x * x);
        yy += f[k] * (y * y);
        xy += f[k] * (x * y);
    }
    row16[0][c] = (uint16_t)(((m1 + 128) >> 8) ^ 0x8000);
    row16[1][c] = (uint16_t)(((m2 + 128) >> 8) ^ 0x8000);
    row16[2][c] = (uint16_t)((xx >> 16) ^ 0x8000);
    row16[3][c] = (uint16_t)((xx & LO16) ^ 0x8000);
    row16[4][c] = (uint16_t)((yy >> 16) ^ 0x8000);
    row16[5][c] = (uint16_t)((yy & LO16) ^ 0x8000);
    row16[6][c] = (uint16_t)((xy >> 16) ^ 0x8000);
    row16[7][c] = (uint16_t)((xy & LO16) ^ 0x8000);
}

/* The sigmas of one column from the eight horizontal sums (see store_sigmas). */
static void s0_sigma(const uint32_t *a, int32_t *sxx, int32_t *syy, int32_t *sxy)
{
    const uint32_t exx = a[2] + ((a[3] + 0x8000u) >> 16);
    const uint32_t eyy = a[4] + ((a[5] + 0x8000u) >> 16);
    const uint32_t exy = a[6] + ((a[7] + 0x8000u) >> 16);
    const uint32_t mu1_sq = (uint32_t)(((uint64_t)a[0] * a[0] + 0x80000000u) >> 32);
    const uint32_t mu2_sq = (uint32_t)(((uint64_t)a[1] * a[1] + 0x80000000u) >> 32);
    const uint32_t mu1_mu2 = (uint32_t)(((uint64_t)a[0] * a[1] + 0x80000000u) >> 32);
    const int32_t y = (int32_t)(eyy - mu2_sq);
    *sxx = (int32_t)(exx - mu1_sq);
    *syy = y > 0 ? y : 0;
    *sxy = (int32_t)(exy - mu1_mu2);
}

/* The scalar form of the horizontal pass for column c. */
static void s0_horizontal_column(uint16_t *const *row16, int fw, VmafVifWorkspace *ws, int c)
{
    const uint16_t *f = filter_of_width(fw);
    const int half = fw / 2;
    uint32_t a[8];
    for (int r = 0; r < 8; r++) {
        uint32_t acc = 0;
        for (int t = 0; t < fw; t++)
            acc += f[t] * (uint32_t)(row16[r][c + t - half] ^ 0x8000);
        a[r] = acc;
    }
    s0_sigma(a, &ws->sigma_xx[c], &ws->sigma_yy[c], &ws->sigma_xy[c]);
}

/* Pack two halves of 32-bit values (0 .. 65535, unpack lane order) into biased 16 bits. */
VIF_AVX2 static inline void s0_store16(uint16_t *out, __m256i lo, __m256i hi)
{
    const __m256i v = _mm256_packus_epi32(lo, hi);
    _mm256_storeu_si256((__m256i *)out, _mm256_xor_si256(v, _mm256_set1_epi16((short)0x8000)));
}

/* A square sum (biased by -2^31) as its two biased 16-bit halves. */
VIF_AVX2 static inline void s0_store_split(uint16_t *out_hi, uint16_t *out_lo, __m256i lo,
                                           __m256i hi)
{
    const __m256i top = _mm256_set1_epi32((int)0x80000000u), mask = _mm256_set1_epi32(LO16);
    lo = _mm256_xor_si256(lo, top);
    hi = _mm256_xor_si256(hi, top);
    s0_store16(out_hi, _mm256_srli_epi32(lo, 16), _mm256_srli_epi32(hi, 16));
    s0_store16(out_lo, _mm256_and_si256(lo, mask), _mm256_and_si256(hi, mask));
}

VIF_AVX2 static inline __m256i s0_load(const uint16_t *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

/* Vertical pass over columns j .. j+15, in two parts that each keep their sums in
 * registers: the means and the ref squares, then the dis squares and the products. */
VIF_AVX2 static inline void s0_vertical_block(const uint16_t *const *rr,
                                              const uint16_t *const *dr,
                                              uint16_t *const *row16, int j)
{
    const uint16_t *f = vmaf_vif_filter[0];
    const __m256i bias = _mm256_set1_epi16((short)0x8000);
    __m256i m1l = _mm256_setzero_si256(), m1h = m1l, m2l = m1l, m2h = m1l, xxl = m1l, xxh = m1l;
    __m256i sx_prev = m1l, sy_prev = m1l;

#pragma GCC unroll 9
    for (int k = 0; k <= 8; k++) {
        const __m256i xa = s0_load(rr[k] + j), xb = s0_load(rr[16 - k] + j);
        /* squares, pair (f[k], f[k]); the centre (f[8], 0) */
        const __m256i fk = k < 8 ? _mm256_set1_epi32(f[k] | (uint32_t)f[k] << 16)
                                 : _mm256_set1_epi32(f[8]);
        const __m256i xa2 = _mm256_xor_si256(_mm256_mullo_epi16(xa, xa), bias);
        const __m256i xb2 = _mm256_xor_si256(_mm256_mullo_epi16(xb, xb), bias);
        xxl = _mm256_add_epi32(xxl, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa2, xb2), fk));
        xxh = _mm256_add_epi32(xxh, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa2, xb2), fk));
        /* means: pair sums of taps k-1 and k, coefficients (f[k-1], f[k]); the centre
         * alone (its pair sum would count it twice), coefficients (f[8], 0) */
        const __m256i ya = s0_load(dr[k] + j), yb = s0_load(dr[16 - k] + j);
        const __m256i sx = k < 8 ? _mm256_add_epi16(xa, xb) : xa;
        const __m256i sy = k < 8 ? _mm256_add_epi16(ya, yb) : ya;
        if (k & 1) {
            const __m256i fp = _mm256_set1_epi32(f[k - 1] | (uint32_t)f[k] << 16);
            m1l = _mm256_add_epi32(m1l, _mm256_madd_epi16(_mm256_unpacklo_epi16(sx_prev, sx), fp));
            m1h = _mm256_add_epi32(m1h, _mm256_madd_epi16(_mm256_unpackhi_epi16(sx_prev, sx), fp));
            m2l = _mm256_add_epi32(m2l, _mm256_madd_epi16(_mm256_unpacklo_epi16(sy_prev, sy), fp));
            m2h = _mm256_add_epi32(m2h, _mm256_madd_epi16(_mm256_unpackhi_epi16(sy_prev, sy), fp));
        } else if (k == 8) {
            m1l = _mm256_add_epi32(m1l, _mm256_madd_epi16(_mm256_unpacklo_epi16(sx, sx), fk));
            m1h = _mm256_add_epi32(m1h, _mm256_madd_epi16(_mm256_unpackhi_epi16(sx, sx), fk));
            m2l = _mm256_add_epi32(m2l, _mm256_madd_epi16(_mm256_unpacklo_epi16(sy, sy), fk));
            m2h = _mm256_add_epi32(m2h, _mm256_madd_epi16(_mm256_unpackhi_epi16(sy, sy), fk));
        }
        sx_prev = sx;
        sy_prev = sy;
    }
    const __m256i rnd = _mm256_set1_epi32(128);
    s0_store16(row16[0] + j, _mm256_srli_epi32(_mm256_add_epi32(m1l, rnd), 8),
               _mm256_srli_epi32(_mm256_add_epi32(m1h, rnd), 8));
    s0_store16(row16[1] + j, _mm256_srli_epi32(_mm256_add_epi32(m2l, rnd), 8),
               _mm256_srli_epi32(_mm256_add_epi32(m2h, rnd), 8));
    s0_store_split(row16[2] + j, row16[3] + j, xxl, xxh);

    __m256i yyl = _mm256_setzero_si256(), yyh = yyl, xyl = yyl, xyh = yyl;
#pragma GCC unroll 9
    for (int k = 0; k <= 8; k++) {
        const __m256i xa = s0_load(rr[k] + j), xb = s0_load(rr[16 - k] + j);
        const __m256i ya = s0_load(dr[k] + j), yb = s0_load(dr[16 - k] + j);
        const __m256i fk = k < 8 ? _mm256_set1_epi32(f[k] | (uint32_t)f[k] << 16)
                                 : _mm256_set1_epi32(f[8]);
        const __m256i ya2 = _mm256_xor_si256(_mm256_mullo_epi16(ya, ya), bias);
        const __m256i yb2 = _mm256_xor_si256(_mm256_mullo_epi16(yb, yb), bias);
        const __m256i ca = _mm256_xor_si256(_mm256_mullo_epi16(xa, ya), bias);
        const __m256i cb = _mm256_xor_si256(_mm256_mullo_epi16(xb, yb), bias);
        yyl = _mm256_add_epi32(yyl, _mm256_madd_epi16(_mm256_unpacklo_epi16(ya2, yb2), fk));
        yyh = _mm256_add_epi32(yyh, _mm256_madd_epi16(_mm256_unpackhi_epi16(ya2, yb2), fk));
        xyl = _mm256_add_epi32(xyl, _mm256_madd_epi16(_mm256_unpacklo_epi16(ca, cb), fk));
        xyh = _mm256_add_epi32(xyh, _mm256_madd_epi16(_mm256_unpackhi_epi16(ca, cb), fk));
    }
    s0_store_split(row16[4] + j, row16[5] + j, yyl, yyh);
    s0_store_split(row16[6] + j, row16[7] + j, xyl, xyh);
}

/* Horizontal sums of one biased row at output columns j+2i (*ev) and j+2i+1 (*od), true
 * values (mod 2^32). */
VIF_AVX2 VIF_INLINE void s0_hsum(const uint16_t *row, const __m256i *cp, const int half,
                                 int j, __m256i *ev, __m256i *od)
{
    __m256i e = _mm256_setzero_si256(), o = e;
#pragma GCC unroll 9
    for (int u = 0; u <= half; u++) {
        e = _mm256_add_epi32(e, _mm256_madd_epi16(s0_load(row + j - half + 2 * u), cp[u]));
        o = _mm256_add_epi32(o, _mm256_madd_epi16(s0_load(row + j - half + 1 + 2 * u), cp[u]));
    }
    const __m256i top = _mm256_set1_epi32((int)0x80000000u);
    *ev = _mm256_xor_si256(e, top);
    *od = _mm256_xor_si256(o, top);
}

/* (a b + 2^31) >> 32 of the uint32 lanes. */
VIF_AVX2 static inline __m256i s0_mul_hi(__m256i a, __m256i b)
{
    const __m256i rnd = _mm256_set1_epi64x(0x80000000ll);
    const __m256i pe = _mm256_add_epi64(_mm256_mul_epu32(a, b), rnd);
    const __m256i po = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), rnd);
    return _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xaa);
}

/* e = hi + ((lo + 2^15) >> 16) */
VIF_AVX2 static inline __m256i s0_join(__m256i hi, __m256i lo)
{
    return _mm256_add_epi32(
        hi, _mm256_srli_epi32(_mm256_add_epi32(lo, _mm256_set1_epi32(0x8000)), 16));
}

VIF_AVX2 static inline void s0_sigmas(__m256i m1, __m256i m2, __m256i exx, __m256i eyy,
                                      __m256i exy, int32_t *sxx, int32_t *syy, int32_t *sxy)
{
    const __m256i vxx = _mm256_sub_epi32(exx, s0_mul_hi(m1, m1));
    const __m256i vyy = _mm256_sub_epi32(eyy, s0_mul_hi(m2, m2));
    const __m256i vxy = _mm256_sub_epi32(exy, s0_mul_hi(m1, m2));
    _mm256_storeu_si256((__m256i *)sxx, vxx);
    _mm256_storeu_si256((__m256i *)syy, _mm256_max_epi32(vyy, _mm256_setzero_si256()));
    _mm256_storeu_si256((__m256i *)sxy, vxy);
}

/* Horizontal pass over columns j .. j+15 (sigma rows: even columns, then odd ones). */
VIF_AVX2 VIF_INLINE void s0_horizontal_block(uint16_t *const *row16, const __m256i *cp,
                                             const int half, VmafVifWorkspace *ws, int j)
{
    __m256i m1e, m1o, m2e, m2o, he, ho, le, lo;
    s0_hsum(row16[0], cp, half, j, &m1e, &m1o);
    s0_hsum(row16[1], cp, half, j, &m2e, &m2o);
    s0_hsum(row16[2], cp, half, j, &he, &ho);
    s0_hsum(row16[3], cp, half, j, &le, &lo);
    const __m256i exx_e = s0_join(he, le), exx_o = s0_join(ho, lo);
    s0_hsum(row16[4], cp, half, j, &he, &ho);
    s0_hsum(row16[5], cp, half, j, &le, &lo);
    const __m256i eyy_e = s0_join(he, le), eyy_o = s0_join(ho, lo);
    s0_hsum(row16[6], cp, half, j, &he, &ho);
    s0_hsum(row16[7], cp, half, j, &le, &lo);
    const __m256i exy_e = s0_join(he, le), exy_o = s0_join(ho, lo);
    s0_sigmas(m1e, m2e, exx_e, eyy_e, exy_e, ws->sigma_xx + j, ws->sigma_yy + j,
              ws->sigma_xy + j);
    s0_sigmas(m1o, m2o, exx_o, eyy_o, exy_o, ws->sigma_xx + j + 8, ws->sigma_yy + j + 8,
              ws->sigma_xy + j + 8);
}

/* Fill the margins of a biased 16-bit row (MARGIN16 on both sides) from the mirrored
 * indices: left[k - 1] = mirror(-k), right[k - 1] = mirror(n - 1 + k). */
static void s0_mirror16(uint16_t *row, int n, const int *left, const int *right)
{
    for (int k = 1; k <= MARGIN16; k++) {
        row[-k] = row[left[k - 1]];
        row[n - 1 + k] = row[right[k - 1]];
    }
}

/* The scalar vertical pass of 16-bit values for column c (see stat_vertical_split_a). */
static void hbd_vertical_column(const uint16_t *const *rr, const uint16_t *const *dr, int fw,
                                int mu_shift, int q, uint16_t *const *row16, int c)
{
    const uint16_t *f = filter_of_width(fw);
    const uint32_t mrnd = 1u << (mu_shift - 1), qrnd = 1u << (q - 1);
    uint32_t m1 = 0, m2 = 0, h[3] = { 0 }, l[3] = { 0 };
    for (int k = 0; k < fw; k++) {
        const uint32_t x = rr[k][c], y = dr[k][c];
        const uint32_t p[3] = { x * x, y * y, x * y };
        m1 += f[k] * x;
        m2 += f[k] * y;
        for (int r = 0; r < 3; r++) {
            h[r] += f[k] * (p[r] >> 16);
            l[r] += f[k] * (p[r] & LO16);
        }
    }
    row16[0][c] = (uint16_t)(((m1 + mrnd) >> mu_shift) ^ 0x8000);
    row16[1][c] = (uint16_t)(((m2 + mrnd) >> mu_shift) ^ 0x8000);
    for (int r = 0; r < 3; r++) {
        const uint32_t v = (h[r] << (16 - q)) + ((l[r] + qrnd) >> q);
        row16[2 + 2 * r][c] = (uint16_t)((v >> 16) ^ 0x8000);
        row16[3 + 2 * r][c] = (uint16_t)((v & LO16) ^ 0x8000);
    }
}

/* Coefficient pair (f[k], f[fw-1-k]) = (f[k], f[k]) of the vertical pass, (f[half], 0) at
 * the centre. */
VIF_AVX2 VIF_INLINE __m256i hbd_pair(const uint16_t *f, int k, int half)
{
    return k < half ? _mm256_set1_epi32(f[k] | (uint32_t)f[k] << 16) : _mm256_set1_epi32(f[half]);
}

/* Vertical pass of 16-bit values over columns j .. j+15: the means (biased inputs). */
VIF_AVX2 VIF_INLINE void hbd_vertical_means(const uint16_t *const *rr, const uint16_t *const *dr,
                                            const int fw, const int mu_shift,
                                            uint16_t *const *row16, int j)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    const __m256i bias = _mm256_set1_epi16((short)0x8000);
    __m256i al = _mm256_setzero_si256(), ah = al, bl = al, bh = al;
#pragma GCC unroll 9
    for (int k = 0; k <= half; k++) {
        const __m256i fk = hbd_pair(f, k, half);
        const __m256i xa = _mm256_xor_si256(s0_load(rr[k] + j), bias);
        const __m256i xb = _mm256_xor_si256(s0_load(rr[fw - 1 - k] + j), bias);
        const __m256i ya = _mm256_xor_si256(s0_load(dr[k] + j), bias);
        const __m256i yb = _mm256_xor_si256(s0_load(dr[fw - 1 - k] + j), bias);
        al = _mm256_add_epi32(al, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb), fk));
        ah = _mm256_add_epi32(ah, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb), fk));
        bl = _mm256_add_epi32(bl, _mm256_madd_epi16(_mm256_unpacklo_epi16(ya, yb), fk));
        bh = _mm256_add_epi32(bh, _mm256_madd_epi16(_mm256_unpackhi_epi16(ya, yb), fk));
    }
    /* undo the bias (+2^31), round, shift */
    const __m256i rnd = _mm256_set1_epi32((int)(0x80000000u + (1u << (mu_shift - 1))));
    const __m128i sh = _mm_cvtsi32_si128(mu_shift);
    s0_store16(row16[0] + j, _mm256_srl_epi32(_mm256_add_epi32(al, rnd), sh),
               _mm256_srl_epi32(_mm256_add_epi32(ah, rnd), sh));
    s0_store16(row16[1] + j, _mm256_srl_epi32(_mm256_add_epi32(bl, rnd), sh),
               _mm256_srl_epi32(_mm256_add_epi32(bh, rnd), sh));
}

/* Vertical pass of 16-bit values over columns j .. j+15: the split sums of the products
 * a*b (a, b: rows of ref or dis), stored to rows out_hi, out_lo. */
VIF_AVX2 VIF_INLINE void hbd_vertical_products(const uint16_t *const *ar,
                                               const uint16_t *const *br, const int fw,
                                               const int q, uint16_t *out_hi,
                                               uint16_t *out_lo, int j)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    const __m256i bias = _mm256_set1_epi16((short)0x8000);
    __m256i hl = _mm256_setzero_si256(), hh = hl, ll = hl, lh = hl;
#pragma GCC unroll 9
    for (int k = 0; k <= half; k++) {
        const __m256i fk = hbd_pair(f, k, half);
        const __m256i a0 = s0_load(ar[k] + j), a1 = s0_load(ar[fw - 1 - k] + j);
        const __m256i b0 = s0_load(br[k] + j), b1 = s0_load(br[fw - 1 - k] + j);
        const __m256i h0 = _mm256_xor_si256(_mm256_mulhi_epu16(a0, b0), bias);
        const __m256i h1 = _mm256_xor_si256(_mm256_mulhi_epu16(a1, b1), bias);
        const __m256i l0 = _mm256_xor_si256(_mm256_mullo_epi16(a0, b0), bias);
        const __m256i l1 = _mm256_xor_si256(_mm256_mullo_epi16(a1, b1), bias);
        hl = _mm256_add_epi32(hl, _mm256_madd_epi16(_mm256_unpacklo_epi16(h0, h1), fk));
        hh = _mm256_add_epi32(hh, _mm256_madd_epi16(_mm256_unpackhi_epi16(h0, h1), fk));
        ll = _mm256_add_epi32(ll, _mm256_madd_epi16(_mm256_unpacklo_epi16(l0, l1), fk));
        lh = _mm256_add_epi32(lh, _mm256_madd_epi16(_mm256_unpackhi_epi16(l0, l1), fk));
    }
    /* v = (hi << (16 - q)) + ((lo + r) >> q), both sums with the bias undone */
    const __m256i top = _mm256_set1_epi32((int)0x80000000u);
    const __m256i rnd = _mm256_set1_epi32((int)(0x80000000u + (1u << (q - 1))));
    const __m128i shl = _mm_cvtsi32_si128(16 - q), shr = _mm_cvtsi32_si128(q);
    const __m256i vl = _mm256_add_epi32(_mm256_sll_epi32(_mm256_xor_si256(hl, top), shl),
                                        _mm256_srl_epi32(_mm256_add_epi32(ll, rnd), shr));
    const __m256i vh = _mm256_add_epi32(_mm256_sll_epi32(_mm256_xor_si256(hh, top), shl),
                                        _mm256_srl_epi32(_mm256_add_epi32(lh, rnd), shr));
    /* s0_store_split expects sums biased by -2^31 */
    s0_store_split(out_hi + j, out_lo + j, _mm256_xor_si256(vl, top), _mm256_xor_si256(vh, top));
}

/*
 * The statistic of one scale with the hand-written passes. eight: 8-bit samples (the
 * widened planes of scale 0, fw 17); else 16-bit values with the shifts mu_shift and
 * q >= 1 of vif.h. fw is 17, 9 or 5 (the 3-tap filter's centre coefficient does not fit
 * a signed 16-bit operand).
 */
static void stat_accumulate_avx512(const VmafVifWorkspace *ws, int w, double egl,
                                   VmafVifSums *sums);

/* acc512: sum with stat_accumulate_avx512() (the CPU has what VMAF_VIF_IMPL_AVX512 needs) */
VIF_AVX2 VIF_INLINE void stat_scale_avx2(VmafVifWorkspace *ws, const Plane *ref,
                                         const Plane *dis, const int fw, const int eight,
                                         const int mu_shift, const int q, const int acc512,
                                         double egl, VmafVifSums *sums)
{
    const int w = ref->w, h = ref->h, half = fw / 2;
    const int wb = w & ~15; /* columns in blocks of 16 */
    const uint16_t *f = filter_of_width(fw);
    const uint16_t *rr[VMAF_VIF_MAX_FILTER_WIDTH], *dr[VMAF_VIF_MAX_FILTER_WIDTH];
    uint16_t *const *row16 = ws->row16;
    __m256i cp[9];
    for (int u = 0; u <= half; u++)
        cp[u] = _mm256_set1_epi32(f[2 * u] | (u < half ? (uint32_t)f[2 * u + 1] << 16 : 0));
    int left[MARGIN16], right[MARGIN16];
    for (int k = 1; k <= MARGIN16; k++) {
        left[k - 1] = mirror(-k, w);
        right[k - 1] = mirror(w - 1 + k, w);
    }

    for (int i = 0; i < h; i++) {
        gather_rows(ref, i, fw, rr);
        gather_rows(dis, i, fw, dr);
        if (eight) {
            for (int j = 0; j < wb; j += 16)
                s0_vertical_block(rr, dr, row16, j);
            for (int j = wb; j < w; j++)
                s0_vertical_column(rr, dr, row16, j);
        } else {
            for (int j = 0; j < wb; j += 16) {
                hbd_vertical_means(rr, dr, fw, mu_shift, row16, j);
                hbd_vertical_products(rr, rr, fw, q, row16[2], row16[3], j);
                hbd_vertical_products(dr, dr, fw, q, row16[4], row16[5], j);
                hbd_vertical_products(rr, dr, fw, q, row16[6], row16[7], j);
            }
            for (int j = wb; j < w; j++)
                hbd_vertical_column(rr, dr, fw, mu_shift, q, row16, j);
        }
        for (int r = 0; r < 8; r++)
            s0_mirror16(row16[r], w, left, right);
        for (int j = 0; j < wb; j += 16)
            s0_horizontal_block(row16, cp, half, ws, j);
        for (int j = wb; j < w; j++)
            s0_horizontal_column(row16, fw, ws, j);
        if (acc512)
            stat_accumulate_avx512(ws, w, egl, sums);
        else
            stat_accumulate(ws, w, egl, sums);
    }
}

/* Subsampling, vertical pass of one plane over columns j .. j+15 into a biased row:
 * (sum F x + 2^(shift-1)) >> shift. eight: 8-bit samples, whose pair sums x_k + x_(fw-1-k)
 * fit 16 bits and go two taps to a madd; else biased 16-bit values, a pair of rows to a
 * madd. */
VIF_AVX2 VIF_INLINE void sub_vertical_block(const uint16_t *const *rows, const int fw,
                                            const int eight, const int shift, uint16_t *out,
                                            int j)
{
    const int half = fw / 2;
    const uint16_t *f = filter_of_width(fw);
    const __m256i bias = _mm256_set1_epi16((short)0x8000);
    __m256i al = _mm256_setzero_si256(), ah = al;
    if (eight) {
        __m256i prev = al;
#pragma GCC unroll 9
        for (int k = 0; k <= half; k++) {
            const __m256i xa = s0_load(rows[k] + j);
            const __m256i sk = k < half ? _mm256_add_epi16(xa, s0_load(rows[fw - 1 - k] + j)) : xa;
            if (k & 1) {
                const __m256i fp = _mm256_set1_epi32(f[k - 1] | (uint32_t)f[k] << 16);
                al = _mm256_add_epi32(al, _mm256_madd_epi16(_mm256_unpacklo_epi16(prev, sk), fp));
                ah = _mm256_add_epi32(ah, _mm256_madd_epi16(_mm256_unpackhi_epi16(prev, sk), fp));
            } else if (k == half) {
                const __m256i fp = _mm256_set1_epi32(f[k]);
                al = _mm256_add_epi32(al, _mm256_madd_epi16(_mm256_unpacklo_epi16(sk, sk), fp));
                ah = _mm256_add_epi32(ah, _mm256_madd_epi16(_mm256_unpackhi_epi16(sk, sk), fp));
            }
            prev = sk;
        }
    } else {
#pragma GCC unroll 9
        for (int k = 0; k <= half; k++) {
            const __m256i fk = hbd_pair(f, k, half);
            const __m256i xa = _mm256_xor_si256(s0_load(rows[k] + j), bias);
            const __m256i xb = _mm256_xor_si256(s0_load(rows[fw - 1 - k] + j), bias);
            al = _mm256_add_epi32(al, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb), fk));
            ah = _mm256_add_epi32(ah, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb), fk));
        }
    }
    const __m256i rnd = _mm256_set1_epi32(
        (int)((eight ? 0u : 0x80000000u) + (1u << (shift - 1))));
    const __m128i sh = _mm_cvtsi32_si128(shift);
    s0_store16(out + j, _mm256_srl_epi32(_mm256_add_epi32(al, rnd), sh),
               _mm256_srl_epi32(_mm256_add_epi32(ah, rnd), sh));
}

/* Subsampling, horizontal pass: outputs m0 .. m0+15 (input columns 2m) from a biased row.
 * A load at 2 m0 - half + 2u times (f[2u], f[2u+1]) adds both taps to the outputs of its
 * lanes, so no shuffles are needed. */
VIF_AVX2 VIF_INLINE void sub_horizontal_block(const uint16_t *row, const __m256i *cp,
                                              const int half, uint16_t *out, int m0)
{
    __m256i a = _mm256_setzero_si256(), b = a;
    const uint16_t *p = row + 2 * m0 - half;
#pragma GCC unroll 9
    for (int u = 0; u <= half; u++) {
        a = _mm256_add_epi32(a, _mm256_madd_epi16(s0_load(p + 2 * u), cp[u]));
        b = _mm256_add_epi32(b, _mm256_madd_epi16(s0_load(p + 16 + 2 * u), cp[u]));
    }
    const __m256i rnd = _mm256_set1_epi32((int)(0x80000000u + 0x8000u));
    a = _mm256_srli_epi32(_mm256_add_epi32(a, rnd), 16);
    b = _mm256_srli_epi32(_mm256_add_epi32(b, rnd), 16);
    const __m256i v = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    _mm256_storeu_si256((__m256i *)(out + m0), v);
}

/* Subsample src (w x h) into (w/2) x (h/2) images with the hand-written passes; fw 9 or 5
 * (see stat_scale_avx2), eight: 8-bit samples. */
VIF_AVX2 VIF_INLINE void subsample_avx2(VmafVifWorkspace *ws, const Plane *ref,
                                        const Plane *dis, uint16_t *dst_ref,
                                        uint16_t *dst_dis, const int fw, const int eight,
                                        const int shift)
{
    const int w = ref->w, h = ref->h, half = fw / 2;
    const int w2 = w / 2, h2 = h / 2;
    const int wb = w & ~15, w2b = w2 & ~15;
    const uint16_t *f = filter_of_width(fw);
    const uint16_t *rows[2][VMAF_VIF_MAX_FILTER_WIDTH];
    const Plane *planes[2] = { ref, dis };
    uint16_t *dst[2] = { dst_ref, dst_dis };
    uint16_t *const *row16 = ws->row16;
    const uint32_t rnd = 1u << (shift - 1);
    __m256i cp[9];
    for (int u = 0; u <= half; u++)
        cp[u] = _mm256_set1_epi32(f[2 * u] | (u < half ? (uint32_t)f[2 * u + 1] << 16 : 0));
    int left[MARGIN16], right[MARGIN16];
    for (int k = 1; k <= MARGIN16; k++) {
        left[k - 1] = mirror(-k, w);
        right[k - 1] = mirror(w - 1 + k, w);
    }

    for (int i2 = 0; i2 < h2; i2++) {
        for (int pl = 0; pl < 2; pl++) {
            const uint16_t **rr = rows[pl];
            uint16_t *row = row16[pl];
            gather_rows(planes[pl], 2 * i2, fw, rr);
            for (int j = 0; j < wb; j += 16)
                sub_vertical_block(rr, fw, eight, shift, row, j);
            for (int j = wb; j < w; j++) {
                uint32_t acc = 0;
                for (int k = 0; k < fw; k++)
                    acc += f[k] * (uint32_t)rr[k][j];
                row[j] = (uint16_t)(((acc + rnd) >> shift) ^ 0x8000);
            }
            s0_mirror16(row, w, left, right);
            uint16_t *out = dst[pl] + (size_t)i2 * w2;
            for (int m = 0; m < w2b; m += 16)
                sub_horizontal_block(row, cp, half, out, m);
            for (int m = w2b; m < w2; m++) {
                uint32_t acc = 0;
                for (int t = 0; t < fw; t++)
                    acc += f[t] * (uint32_t)(row[2 * m + t - half] ^ 0x8000);
                out[m] = (uint16_t)((acc + 0x8000u) >> 16);
            }
        }
    }
}

/* fw 9 (into scale 1; eight: 8-bit input) or 5 (into scale 2). */
VIF_AVX2 __attribute__((noinline)) static void
subsample_avx2_any(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis, uint16_t *dst_ref,
                   uint16_t *dst_dis, int fw, int eight, int shift)
{
    if (fw == 9 && eight)
        subsample_avx2(ws, ref, dis, dst_ref, dst_dis, 9, 1, shift);
    else if (fw == 9)
        subsample_avx2(ws, ref, dis, dst_ref, dst_dis, 9, 0, shift);
    else
        subsample_avx2(ws, ref, dis, dst_ref, dst_dis, 5, 0, shift);
}

VIF_AVX2 __attribute__((noinline)) static void
stat_scale0_8_avx2(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis, double egl,
                   VmafVifSums *sums)
{
    stat_scale_avx2(ws, ref, dis, 17, 1, 8, 0, 0, egl, sums);
}

/* fw 17 (scale 0 above 8 bits), 9 or 5. */
VIF_AVX2 __attribute__((noinline)) static void
stat_scale16_avx2(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis, int fw,
                  int mu_shift, int q, int acc512, double egl, VmafVifSums *sums)
{
    if (fw == 17)
        stat_scale_avx2(ws, ref, dis, 17, 0, mu_shift, q, acc512, egl, sums);
    else if (fw == 9)
        stat_scale_avx2(ws, ref, dis, 9, 0, mu_shift, q, acc512, egl, sums);
    else
        stat_scale_avx2(ws, ref, dis, 5, 0, mu_shift, q, acc512, egl, sums);
}

/* ------------------------------------------------------------------------------------- */
/* Hand-written AVX-512 (BW): the statistic of scale 0 at 8 bits                         */

/* The AVX2 passes above on 32 columns: the same arithmetic in 512-bit vectors (unpack and
 * pack work within 128-bit lanes here too). Blocks of 16 left over go through the AVX2
 * passes, the rest through the scalar ones. */
#define VIF_AVX512 __attribute__((target("avx2,avx512f,avx512bw")))

VIF_AVX512 static inline __m512i z_load(const uint16_t *p)
{
    return _mm512_loadu_si512((const void *)p);
}

VIF_AVX512 static inline void z_store16(uint16_t *out, __m512i lo, __m512i hi)
{
    const __m512i v = _mm512_packus_epi32(lo, hi);
    _mm512_storeu_si512((void *)out, _mm512_xor_si512(v, _mm512_set1_epi16((short)0x8000)));
}

VIF_AVX512 static inline void z_store_split(uint16_t *out_hi, uint16_t *out_lo, __m512i lo,
                                            __m512i hi)
{
    const __m512i top = _mm512_set1_epi32((int)0x80000000u), mask = _mm512_set1_epi32(LO16);
    lo = _mm512_xor_si512(lo, top);
    hi = _mm512_xor_si512(hi, top);
    z_store16(out_hi, _mm512_srli_epi32(lo, 16), _mm512_srli_epi32(hi, 16));
    z_store16(out_lo, _mm512_and_si512(lo, mask), _mm512_and_si512(hi, mask));
}

#define Z_MADD_ACC(acc, a, b) acc = _mm512_add_epi32(acc, _mm512_madd_epi16(a, b))

/* Vertical pass over columns j .. j+31 (see s0_vertical_block). */
VIF_AVX512 VIF_INLINE void z_vertical_block(const uint16_t *const *rr, const uint16_t *const *dr,
                                            uint16_t *const *row16, int j)
{
    const uint16_t *f = vmaf_vif_filter[0];
    const __m512i bias = _mm512_set1_epi16((short)0x8000);
    __m512i m1l = _mm512_setzero_si512(), m1h = m1l, m2l = m1l, m2h = m1l, xxl = m1l, xxh = m1l;
    __m512i sx_prev = m1l, sy_prev = m1l;

#pragma GCC unroll 9
    for (int k = 0; k <= 8; k++) {
        const __m512i xa = z_load(rr[k] + j), xb = z_load(rr[16 - k] + j);
        const __m512i fk = k < 8 ? _mm512_set1_epi32(f[k] | (uint32_t)f[k] << 16)
                                 : _mm512_set1_epi32(f[8]);
        const __m512i xa2 = _mm512_xor_si512(_mm512_mullo_epi16(xa, xa), bias);
        const __m512i xb2 = _mm512_xor_si512(_mm512_mullo_epi16(xb, xb), bias);
        Z_MADD_ACC(xxl, _mm512_unpacklo_epi16(xa2, xb2), fk);
        Z_MADD_ACC(xxh, _mm512_unpackhi_epi16(xa2, xb2), fk);
        const __m512i ya = z_load(dr[k] + j), yb = z_load(dr[16 - k] + j);
        const __m512i sx = k < 8 ? _mm512_add_epi16(xa, xb) : xa;
        const __m512i sy = k < 8 ? _mm512_add_epi16(ya, yb) : ya;
        if (k & 1) {
            const __m512i fp = _mm512_set1_epi32(f[k - 1] | (uint32_t)f[k] << 16);
            Z_MADD_ACC(m1l, _mm512_unpacklo_epi16(sx_prev, sx), fp);
            Z_MADD_ACC(m1h, _mm512_unpackhi_epi16(sx_prev, sx), fp);
            Z_MADD_ACC(m2l, _mm512_unpacklo_epi16(sy_prev, sy), fp);
            Z_MADD_ACC(m2h, _mm512_unpackhi_epi16(sy_prev, sy), fp);
        } else if (k == 8) {
            Z_MADD_ACC(m1l, _mm512_unpacklo_epi16(sx, sx), fk);
            Z_MADD_ACC(m1h, _mm512_unpackhi_epi16(sx, sx), fk);
            Z_MADD_ACC(m2l, _mm512_unpacklo_epi16(sy, sy), fk);
            Z_MADD_ACC(m2h, _mm512_unpackhi_epi16(sy, sy), fk);
        }
        sx_prev = sx;
        sy_prev = sy;
    }
    const __m512i rnd = _mm512_set1_epi32(128);
    z_store16(row16[0] + j, _mm512_srli_epi32(_mm512_add_epi32(m1l, rnd), 8),
              _mm512_srli_epi32(_mm512_add_epi32(m1h, rnd), 8));
    z_store16(row16[1] + j, _mm512_srli_epi32(_mm512_add_epi32(m2l, rnd), 8),
              _mm512_srli_epi32(_mm512_add_epi32(m2h, rnd), 8));
    z_store_split(row16[2] + j, row16[3] + j, xxl, xxh);

    __m512i yyl = _mm512_setzero_si512(), yyh = yyl, xyl = yyl, xyh = yyl;
#pragma GCC unroll 9
    for (int k = 0; k <= 8; k++) {
        const __m512i xa = z_load(rr[k] + j), xb = z_load(rr[16 - k] + j);
        const __m512i ya = z_load(dr[k] + j), yb = z_load(dr[16 - k] + j);
        const __m512i fk = k < 8 ? _mm512_set1_epi32(f[k] | (uint32_t)f[k] << 16)
                                 : _mm512_set1_epi32(f[8]);
        const __m512i ya2 = _mm512_xor_si512(_mm512_mullo_epi16(ya, ya), bias);
        const __m512i yb2 = _mm512_xor_si512(_mm512_mullo_epi16(yb, yb), bias);
        const __m512i ca = _mm512_xor_si512(_mm512_mullo_epi16(xa, ya), bias);
        const __m512i cb = _mm512_xor_si512(_mm512_mullo_epi16(xb, yb), bias);
        Z_MADD_ACC(yyl, _mm512_unpacklo_epi16(ya2, yb2), fk);
        Z_MADD_ACC(yyh, _mm512_unpackhi_epi16(ya2, yb2), fk);
        Z_MADD_ACC(xyl, _mm512_unpacklo_epi16(ca, cb), fk);
        Z_MADD_ACC(xyh, _mm512_unpackhi_epi16(ca, cb), fk);
    }
    z_store_split(row16[4] + j, row16[5] + j, yyl, yyh);
    z_store_split(row16[6] + j, row16[7] + j, xyl, xyh);
}

VIF_AVX512 VIF_INLINE void z_hsum(const uint16_t *row, const __m512i *cp, int j, __m512i *ev,
                                  __m512i *od)
{
    __m512i e = _mm512_setzero_si512(), o = e;
#pragma GCC unroll 9
    for (int u = 0; u <= 8; u++) {
        Z_MADD_ACC(e, z_load(row + j - 8 + 2 * u), cp[u]);
        Z_MADD_ACC(o, z_load(row + j - 7 + 2 * u), cp[u]);
    }
    const __m512i top = _mm512_set1_epi32((int)0x80000000u);
    *ev = _mm512_xor_si512(e, top);
    *od = _mm512_xor_si512(o, top);
}

VIF_AVX512 static inline __m512i z_mul_hi(__m512i a, __m512i b)
{
    const __m512i rnd = _mm512_set1_epi64(0x80000000ll);
    const __m512i pe = _mm512_add_epi64(_mm512_mul_epu32(a, b), rnd);
    const __m512i po = _mm512_add_epi64(
        _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), rnd);
    return _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(pe, 32), po);
}

VIF_AVX512 static inline __m512i z_join(__m512i hi, __m512i lo)
{
    return _mm512_add_epi32(
        hi, _mm512_srli_epi32(_mm512_add_epi32(lo, _mm512_set1_epi32(0x8000)), 16));
}

VIF_AVX512 static inline void z_sigmas(__m512i m1, __m512i m2, __m512i exx, __m512i eyy,
                                       __m512i exy, int32_t *sxx, int32_t *syy, int32_t *sxy)
{
    _mm512_storeu_si512((void *)sxx, _mm512_sub_epi32(exx, z_mul_hi(m1, m1)));
    _mm512_storeu_si512((void *)syy, _mm512_max_epi32(_mm512_sub_epi32(eyy, z_mul_hi(m2, m2)),
                                                      _mm512_setzero_si512()));
    _mm512_storeu_si512((void *)sxy, _mm512_sub_epi32(exy, z_mul_hi(m1, m2)));
}

/* Horizontal pass over columns j .. j+31 (sigma rows: 16 even columns, then 16 odd). */
VIF_AVX512 VIF_INLINE void z_horizontal_block(uint16_t *const *row16, const __m512i *cp,
                                              VmafVifWorkspace *ws, int j)
{
    __m512i m1e, m1o, m2e, m2o, he, ho, le, lo;
    z_hsum(row16[0], cp, j, &m1e, &m1o);
    z_hsum(row16[1], cp, j, &m2e, &m2o);
    z_hsum(row16[2], cp, j, &he, &ho);
    z_hsum(row16[3], cp, j, &le, &lo);
    const __m512i exx_e = z_join(he, le), exx_o = z_join(ho, lo);
    z_hsum(row16[4], cp, j, &he, &ho);
    z_hsum(row16[5], cp, j, &le, &lo);
    const __m512i eyy_e = z_join(he, le), eyy_o = z_join(ho, lo);
    z_hsum(row16[6], cp, j, &he, &ho);
    z_hsum(row16[7], cp, j, &le, &lo);
    const __m512i exy_e = z_join(he, le), exy_o = z_join(ho, lo);
    z_sigmas(m1e, m2e, exx_e, eyy_e, exy_e, ws->sigma_xx + j, ws->sigma_yy + j,
             ws->sigma_xy + j);
    z_sigmas(m1o, m2o, exx_o, eyy_o, exy_o, ws->sigma_xx + j + 16, ws->sigma_yy + j + 16,
             ws->sigma_xy + j + 16);
}

/* stat_accumulate() on 8 columns at a time (AVX-512 F, DQ, CD, VL): the same integer and
 * double operations per pixel, lanes outside a branch masked off (gathers too), sums in
 * 64-bit lanes. The 32-bit gathers read two bytes past a table entry; log2_table has
 * room for that. */
#define VIF_AVX512_ACC                                                                     \
    __attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512cd,avx512vl")))

/* L(v) of 32-bit lanes v >= 2^17 (lanes in m only). */
VIF_AVX512_ACC static inline __m256i z_log2_32(const uint16_t *table, __mmask8 m, __m256i v)
{
    const __m256i b = _mm256_sub_epi32(_mm256_set1_epi32(16), _mm256_lzcnt_epi32(v));
    const __m256i idx =
        _mm256_sub_epi32(_mm256_srlv_epi32(v, b), _mm256_set1_epi32(VMAF_VIF_LOG2_TABLE_FIRST));
    const __m256i t = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), m, idx, table, 2);
    return _mm256_add_epi32(_mm256_and_si256(t, _mm256_set1_epi32(LO16)),
                            _mm256_slli_epi32(b, 11));
}

/* L(v) of 64-bit lanes v >= 2^17 (lanes in m only), as 32-bit lanes. */
VIF_AVX512_ACC static inline __m256i z_log2_64(const uint16_t *table, __mmask8 m, __m512i v)
{
    const __m512i b = _mm512_sub_epi64(_mm512_set1_epi64(48), _mm512_lzcnt_epi64(v));
    const __m512i idx =
        _mm512_sub_epi64(_mm512_srlv_epi64(v, b), _mm512_set1_epi64(VMAF_VIF_LOG2_TABLE_FIRST));
    const __m256i t = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), m, idx, table, 2);
    return _mm256_add_epi32(_mm256_and_si256(t, _mm256_set1_epi32(LO16)),
                            _mm256_slli_epi32(_mm512_cvtepi64_epi32(b), 11));
}

VIF_AVX512_ACC __attribute__((noinline)) static void
stat_accumulate_avx512(const VmafVifWorkspace *ws, int w, double egl, VmafVifSums *sums)
{
    const uint16_t *table = ws->log2_table;
    const __m256i nsq = _mm256_set1_epi32(VMAF_VIF_SIGMA_NSQ), zero = _mm256_setzero_si256();
    const __m512d eps = _mm512_set1_pd(65536 * 1.0e-10), egl_v = _mm512_set1_pd(egl);
    __m512i num_log = _mm512_setzero_si512(), den_log = num_log, num_non_log = num_log;
    int64_t den_non_log = 0;
    int j = 0;
    for (; j + 8 <= w; j += 8) {
        const __m256i sxx = _mm256_loadu_si256((const __m256i *)(ws->sigma_xx + j));
        const __m256i syy = _mm256_loadu_si256((const __m256i *)(ws->sigma_yy + j));
        const __m256i sxy = _mm256_loadu_si256((const __m256i *)(ws->sigma_xy + j));
        const __mmask8 lg = _mm256_cmpge_epi32_mask(sxx, nsq);
        /* non-log lanes */
        num_non_log = _mm512_mask_add_epi64(num_non_log, (__mmask8)~lg, num_non_log,
                                            _mm512_cvtepi32_epi64(syy));
        den_non_log += 8 - __builtin_popcount(lg);
        if (!lg)
            continue;
        /* den_log: L(N + sxx) - 17 * 2048 */
        const __m256i dl = _mm256_sub_epi32(z_log2_32(table, lg, _mm256_add_epi32(nsq, sxx)),
                                            _mm256_set1_epi32(17 * VMAF_VIF_LOG2_ONE));
        den_log = _mm512_mask_add_epi64(den_log, lg, den_log, _mm512_cvtepi32_epi64(dl));
        const __mmask8 nl = lg & _mm256_cmpgt_epi32_mask(sxy, zero) &
                            _mm256_cmpgt_epi32_mask(syy, zero);
        if (!nl)
            continue;
        const __m512d dxx = _mm512_cvtepi32_pd(sxx), dyy = _mm512_cvtepi32_pd(syy);
        const __m512d dxy = _mm512_cvtepi32_pd(sxy);
        __m512d g = _mm512_div_pd(dxy, _mm512_add_pd(dxx, eps));
        const __m512d sv_d = _mm512_sub_pd(dyy, _mm512_mul_pd(g, dxy));
        /* truncated; anything not positive gives 0 */
        const __m256i sv = _mm256_max_epi32(_mm512_cvttpd_epi32(sv_d), zero);
        g = _mm512_min_pd(g, egl_v);
        const __m512i gain = _mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_mul_pd(g, g), dxx));
        const __m256i numer = _mm256_add_epi32(sv, nsq);
        const __m512i sum = _mm512_add_epi64(gain, _mm512_cvtepu32_epi64(numer));
        const __m256i d = _mm256_sub_epi32(z_log2_64(table, nl, sum),
                                           z_log2_32(table, nl, numer));
        num_log = _mm512_mask_add_epi64(num_log, nl, num_log, _mm512_cvtepi32_epi64(d));
    }
    sums->num_log += _mm512_reduce_add_epi64(num_log);
    sums->den_log += _mm512_reduce_add_epi64(den_log);
    sums->num_non_log += _mm512_reduce_add_epi64(num_non_log);
    sums->den_non_log += den_non_log;
    if (j < w) {
        /* the leftover columns, through the scalar code */
        VmafVifSums rest = { 0 };
        stat_accumulate_part(ws, j, w, egl, &rest);
        sums->num_log += rest.num_log;
        sums->den_log += rest.den_log;
        sums->num_non_log += rest.num_non_log;
        sums->den_non_log += rest.den_non_log;
    }
}

VIF_AVX512_ACC __attribute__((noinline)) static void
stat_scale0_8_avx512(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis, double egl,
                     VmafVifSums *sums)
{
    const int w = ref->w, h = ref->h;
    const int wz = w & ~31, wb = w & ~15;
    const uint16_t *f = vmaf_vif_filter[0];
    const uint16_t *rr[VMAF_VIF_MAX_FILTER_WIDTH], *dr[VMAF_VIF_MAX_FILTER_WIDTH];
    uint16_t *const *row16 = ws->row16;
    __m512i zp[9];
    __m256i cp[9];
    for (int u = 0; u <= 8; u++) {
        const uint32_t c = f[2 * u] | (u < 8 ? (uint32_t)f[2 * u + 1] << 16 : 0);
        zp[u] = _mm512_set1_epi32((int)c);
        cp[u] = _mm256_set1_epi32((int)c);
    }
    int left[MARGIN16], right[MARGIN16];
    for (int k = 1; k <= MARGIN16; k++) {
        left[k - 1] = mirror(-k, w);
        right[k - 1] = mirror(w - 1 + k, w);
    }

    for (int i = 0; i < h; i++) {
        gather_rows(ref, i, 17, rr);
        gather_rows(dis, i, 17, dr);
        for (int j = 0; j < wz; j += 32)
            z_vertical_block(rr, dr, row16, j);
        for (int j = wz; j < wb; j += 16)
            s0_vertical_block(rr, dr, row16, j);
        for (int j = wb; j < w; j++)
            s0_vertical_column(rr, dr, row16, j);
        for (int r = 0; r < 8; r++)
            s0_mirror16(row16[r], w, left, right);
        for (int j = 0; j < wz; j += 32)
            z_horizontal_block(row16, zp, ws, j);
        for (int j = wz; j < wb; j += 16)
            s0_horizontal_block(row16, cp, 8, ws, j);
        for (int j = wb; j < w; j++)
            s0_horizontal_column(row16, 17, ws, j);
        stat_accumulate_avx512(ws, w, egl, sums);
    }
}
#endif

VIF_INLINE void vif_compute_kernels(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                                 const void *dis, ptrdiff_t dis_stride, double egl,
                                 bool skip_scale0, VmafVifSums *sums, const int fast)
{
    const int bpc = (int)ws->bpc, w = (int)ws->w, h = (int)ws->h;
    Plane pr, pd;

    if (bpc == 8) {
        widen_plane(ref, ref_stride, w, h, ws->img_ref[0]);
        widen_plane(dis, dis_stride, w, h, ws->img_dis[0]);
        pr = (Plane){ ws->img_ref[0], w, w, h };
        pd = (Plane){ ws->img_dis[0], w, w, h };
    } else {
        pr = (Plane){ ref, ref_stride / 2, w, h };
        pd = (Plane){ dis, dis_stride / 2, w, h };
    }

    memset(sums, 0, VMAF_VIF_SCALES * sizeof(*sums));
    if (!skip_scale0) {
        if (bpc == 8 && fast) {
#ifdef VIF_HAVE_AVX2
            if (fast == 2)
                stat_scale0_8_avx512(ws, &pr, &pd, egl, &sums[0]);
            else
                stat_scale0_8_avx2(ws, &pr, &pd, egl, &sums[0]);
#endif
        } else if (bpc == 8) {
            stat_scale(ws, &pr, &pd, 17, 0, 8, 0, egl, &sums[0]);
        } else if (fast) {
#ifdef VIF_HAVE_AVX2
            stat_scale16_avx2(ws, &pr, &pd, 17, bpc, 2 * (bpc - 8), fast == 2, egl, &sums[0]);
#endif
        } else {
            stat_scale(ws, &pr, &pd, 17, 1, bpc, 2 * (bpc - 8), egl, &sums[0]);
        }
    }

    for (int s = 1; s < VMAF_VIF_SCALES; s++) {
        const int w2 = pr.w / 2, h2 = pr.h / 2;
        if (w2 <= 0 || h2 <= 0)
            break; /* an empty scale, and all after it: their sums stay zero */
        const int fw = vmaf_vif_filter_width[s];
        const int shift = s == 1 ? bpc : 16;
        if (fast && fw != 3) {
#ifdef VIF_HAVE_AVX2
            subsample_avx2_any(ws, &pr, &pd, ws->img_ref[s], ws->img_dis[s], fw,
                               s == 1 && bpc == 8, shift);
#endif
        } else if (fw == 9)
            subsample(ws, &pr, &pd, ws->img_ref[s], ws->img_dis[s], 9, shift);
        else if (fw == 5)
            subsample(ws, &pr, &pd, ws->img_ref[s], ws->img_dis[s], 5, shift);
        else
            subsample(ws, &pr, &pd, ws->img_ref[s], ws->img_dis[s], 3, shift);
        pr = (Plane){ ws->img_ref[s], w2, w2, h2 };
        pd = (Plane){ ws->img_dis[s], w2, w2, h2 };

        if (fast && fw != 3) {
#ifdef VIF_HAVE_AVX2
            stat_scale16_avx2(ws, &pr, &pd, fw, 16, 16, fast == 2, egl, &sums[s]);
#endif
        } else if (fw == 9)
            stat_scale(ws, &pr, &pd, 9, 1, 16, 16, egl, &sums[s]);
        else if (fw == 5)
            stat_scale(ws, &pr, &pd, 5, 1, 16, 16, egl, &sums[s]);
        else
            stat_scale(ws, &pr, &pd, 3, 1, 16, 16, egl, &sums[s]);
    }
}

/* One plain build of the kernels, and on x86-64 with GCC/Clang a second one for AVX2,
 * chosen at run time. Both compute the same integers and doubles (no contraction).
 * gcc -O3 would unroll-and-jam pairs of tap iterations into the lane loops, which then run
 * out of vector registers (30 % slower), so the builds opt out of that one transformation. */
#if defined(__GNUC__) && !defined(__clang__)
#define VIF_NO_UNROLL_JAM __attribute__((optimize("no-loop-unroll-and-jam")))
#else
#define VIF_NO_UNROLL_JAM
#endif

VIF_NO_UNROLL_JAM
static void vif_compute_plain(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                              const void *dis, ptrdiff_t dis_stride, double egl,
                              bool skip_scale0, VmafVifSums *sums)
{
    vif_compute_kernels(ws, ref, ref_stride, dis, dis_stride, egl, skip_scale0, sums, 0);
}

#ifdef VIF_HAVE_AVX2
/* fast: the hand-written scale 0 of 8-bit input (VMAF_VIF_IMPL_AVX2_MADD) */
__attribute__((target("avx2"))) VIF_NO_UNROLL_JAM
static void vif_compute_avx2(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                             const void *dis, ptrdiff_t dis_stride, double egl,
                             bool skip_scale0, VmafVifSums *sums, int fast)
{
    if (fast == 2)
        vif_compute_kernels(ws, ref, ref_stride, dis, dis_stride, egl, skip_scale0, sums, 2);
    else if (fast)
        vif_compute_kernels(ws, ref, ref_stride, dis, dis_stride, egl, skip_scale0, sums, 1);
    else
        vif_compute_kernels(ws, ref, ref_stride, dis, dis_stride, egl, skip_scale0, sums, 0);
}
#endif

static bool vif_cpu_has_avx2(void)
{
#ifdef VIF_HAVE_AVX2
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

static bool vif_cpu_has_avx512(void)
{
#ifdef VIF_HAVE_AVX2
    return vif_cpu_has_avx2() && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
}

static enum VmafVifImpl vif_best_impl(void)
{
    return vif_cpu_has_avx512() ? VMAF_VIF_IMPL_AVX512
           : vif_cpu_has_avx2() ? VMAF_VIF_IMPL_AVX2_MADD
                                : VMAF_VIF_IMPL_PLAIN;
}

int vmaf_vif_compute_with(enum VmafVifImpl impl, VmafVifWorkspace *ws, const void *ref,
                          ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride,
                          double enhn_gain_limit, bool skip_scale0,
                          VmafVifSums sums[VMAF_VIF_SCALES])
{
    if (impl == VMAF_VIF_IMPL_BEST)
        impl = ws->best; /* chosen once, when the workspace was allocated */
    switch (impl) {
    case VMAF_VIF_IMPL_PLAIN:
        vif_compute_plain(ws, ref, ref_stride, dis, dis_stride, enhn_gain_limit, skip_scale0,
                          sums);
        return 0;
    case VMAF_VIF_IMPL_AVX2:
    case VMAF_VIF_IMPL_AVX2_MADD:
#ifdef VIF_HAVE_AVX2
        if (vif_cpu_has_avx2()) {
            vif_compute_avx2(ws, ref, ref_stride, dis, dis_stride, enhn_gain_limit,
                             skip_scale0, sums, impl == VMAF_VIF_IMPL_AVX2_MADD);
            return 0;
        }
#endif
        return -ENOTSUP;
    case VMAF_VIF_IMPL_AVX512:
#ifdef VIF_HAVE_AVX2
        if (vif_cpu_has_avx512()) {
            vif_compute_avx2(ws, ref, ref_stride, dis, dis_stride, enhn_gain_limit,
                             skip_scale0, sums, 2);
            return 0;
        }
#endif
        return -ENOTSUP;
    default:
        return -EINVAL;
    }
}

void vmaf_vif_compute(VmafVifWorkspace *ws, const void *ref, ptrdiff_t ref_stride,
                      const void *dis, ptrdiff_t dis_stride, double enhn_gain_limit,
                      bool skip_scale0, VmafVifSums sums[VMAF_VIF_SCALES])
{
    (void)vmaf_vif_compute_with(VMAF_VIF_IMPL_BEST, ws, ref, ref_stride, dis, dis_stride,
                                enhn_gain_limit, skip_scale0, sums);
}

/* ------------------------------------------------------------------------------------- */
/* Extractor                                                                             */

typedef struct VifState {
    VmafVifOptions opt;
    VmafVifWorkspace *ws;
    unsigned w, h, bpc;
    enum VmafLogLevel log_level;
} VifState;

#define OPT_AT(field) (offsetof(VifState, opt) + offsetof(VmafVifOptions, field))

static const VmafOption vif_options[] = {
    {
        .name = "debug",
        .help = "also write integer_vif and the numerators and denominators",
        .offset = OPT_AT(debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "vif_enhn_gain_limit",
        .alias = "egl",
        .help = "largest enhancement gain credited to the distorted signal "
                "(1.0 credits none)",
        .offset = OPT_AT(enhn_gain_limit),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_VIF_DEFAULT_ENHN_GAIN_LIMIT,
        .min = 1.0,
        .max = VMAF_VIF_DEFAULT_ENHN_GAIN_LIMIT,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "vif_skip_scale0",
        .alias = "ssclz",
        .help = "skip scale 0 and write 0 as its score",
        .offset = OPT_AT(skip_scale0),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 },
};

static const char *const vif_features[] = {
    "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score",
    "integer_vif", "integer_vif_num", "integer_vif_den",
    "integer_vif_num_scale0", "integer_vif_den_scale0",
    "integer_vif_num_scale1", "integer_vif_den_scale1",
    "integer_vif_num_scale2", "integer_vif_den_scale2",
    "integer_vif_num_scale3", "integer_vif_den_scale3",
    NULL,
};

static int vif_init(void *priv, const VmafFeatureGeometry *g)
{
    VifState *s = priv;
    s->log_level = g->log_level;
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "vif: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    s->w = g->w;
    s->h = g->h;
    s->bpc = g->bpc;
    const int err = vmaf_vif_workspace_alloc(&s->ws, g->w, g->h, g->bpc);
    if (err)
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR, "vif: cannot allocate buffers\n");
    return err;
}

static void vif_close(void *priv)
{
    VifState *s = priv;
    vmaf_vif_workspace_free(&s->ws);
}

static int append(VmafFeatureSink *sink, const char *name, double v, unsigned index, int err)
{
    return err ? err : vmaf_feature_sink_append(sink, name, v, index);
}

static int vif_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    VifState *s = priv;
    const VmafVifOptions *o = &s->opt;
    const VmafPicture *ref = frame->ref, *dis = frame->dist;
    if (!s->ws || !ref || !dis || !ref->data[0] || !dis->data[0] || ref->bpc != s->bpc ||
        dis->bpc != s->bpc || ref->w[0] != s->w || ref->h[0] != s->h || dis->w[0] != s->w ||
        dis->h[0] != s->h) {
        vmaf_log(s->log_level, VMAF_LOG_LEVEL_ERROR,
                 "vif: pictures do not match the initialised geometry\n");
        return -EINVAL;
    }

    VmafVifSums sums[VMAF_VIF_SCALES];
    vmaf_vif_compute(s->ws, ref->data[0], ref->stride[0], dis->data[0], dis->stride[0],
                     o->enhn_gain_limit, o->skip_scale0, sums);

    float num[VMAF_VIF_SCALES], den[VMAF_VIF_SCALES];
    for (int k = 0; k < VMAF_VIF_SCALES; k++) {
        num[k] = vmaf_vif_num(&sums[k]);
        den[k] = vmaf_vif_den(&sums[k]);
    }
    if (o->skip_scale0) { /* what the reference reports for the skipped scale */
        num[0] = 0.0f;
        den[0] = -1.0f;
    }

    const unsigned idx = frame->index;
    int err = 0;
    err = append(sink, vif_features[0], o->skip_scale0 ? 0.0f : num[0] / den[0], idx, err);
    for (int k = 1; k < VMAF_VIF_SCALES; k++)
        err = append(sink, vif_features[k], num[k] / den[k], idx, err);
    if (err || !o->debug)
        return err;

    /* the totals leave the skipped scale out */
    double score_num = 0., score_den = 0.;
    for (int k = o->skip_scale0 ? 1 : 0; k < VMAF_VIF_SCALES; k++) {
        score_num += (double)num[k];
        score_den += (double)den[k];
    }
    const double score = score_den == 0.0 ? 1.0 : score_num / score_den;
    err = append(sink, "integer_vif", score, idx, err);
    err = append(sink, "integer_vif_num", score_num, idx, err);
    err = append(sink, "integer_vif_den", score_den, idx, err);
    for (int k = 0; k < VMAF_VIF_SCALES; k++) {
        err = append(sink, vif_features[7 + 2 * k], num[k], idx, err);
        err = append(sink, vif_features[8 + 2 * k], den[k], idx, err);
    }
    return err;
}

const VmafFeatureExtractor vmaf_fex_vif = {
    .name = "vif",
    .priv_size = sizeof(VifState),
    .options = vif_options,
    .provided_features = vif_features,
    .init = vif_init,
    .extract = vif_extract,
    .close = vif_close,
};
