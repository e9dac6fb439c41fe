/*
 * Twin VMAF — SSIM and MS-SSIM (extractors "float_ssim" and "float_ms_ssim"), as reference
 * libvmaf 3.2.0 computes them (its IQA-derived code: an 11-tap Gaussian window applied only
 * where it fits, the "zli-nflx" l/c/s means).
 *
 * Input: the luma planes as floats, v / 2^(bpc-8) (float_filter.h; no offset).
 *
 * Window. The separable 11-tap Gaussian G (sigma 1.5, the reference's rounded taps below),
 * applied where it fits entirely ("valid"): a w x h plane gives (w-10) x (h-10) outputs,
 * horizontal pass first, then vertical, each output sum in double from 0 in tap order with
 * every product rounded to float first, each pass's result rounded to float:
 *   H(y, x) = (float) sum_u (double)(float)(p(y, x+u) G[u])
 *   W(y, x) = (float) sum_v (double)(float)(H(y+v, x) G[v])
 * over the five planes ref, cmp, ref*ref, cmp*cmp, ref*cmp (products in float per sample).
 *
 * Per output pixel (vmaf_ssim_pixel), with m1 = W ref, m2 = W cmp; float unless marked:
 *   s1 = max(W(ref*ref) - m1 m1, 0), s2 = max(W(cmp*cmp) - m2 m2, 0), s12 = W(ref*cmp) - m1 m2
 *   r = (float) sqrt((double)(s1 s2))
 *   l = ((2.0 m1) m2 + C1) / (m1 m1 + m2 m2 + C1)               numerator and quotient double
 *   c = (2.0 r + C2) / (s1 + s2 + C2)                             numerator and quotient double
 *   s = (s12' + C3) / (r + C3)        s12' = 0 when s12 < 0 and r <= 0, else s12 (float)
 * C1 = (0.01f * 255)^2, C2 = (0.03f * 255)^2, C3 = C2 / 2 (float; 255 at every bit depth).
 * The means: sum in double (the reference: row-major and serially; here in the order of
 * ssim_device.h, see there) of l c s, of l, of c and of s, each divided by
 * (double)(n_w * n_h) and rounded to float (n = w - 10 as an int: for a plane narrower than
 * 11 nothing is summed and the quotient is 0/(n_w n_h), e.g. -0 or NaN, as the reference's).
 *
 * Decimation (vmaf_ssim_decimate): a w x h plane, factor f, an f_k x f_k kernel K centred at
 * index f_k/2 (taps -f_k/2 .. f_k/2 - (f_k even)), gives (w/f + (w&1)) x (h/f + (h&1)):
 *   D(y, x) = (float) sum_v sum_u (double)(float)(p(b(f y + v), b(f x + u)) K[v][u])
 * v outer, u inner; b() reflects half-sample symmetrically (-1 -> 0, n -> n-1). Where a plane
 * is smaller than half a kernel the reference reads outside it; Twin VMAF clamps the
 * reflected index into the plane (vmaf_ssim_reflect).
 *
 * float_ssim: scale = the option, or (0 = auto) max(1, round(min(w, h) / 256.0f)) with the
 * reference's rounding; scale > 1 decimates both planes first with K = 1.0f / (f*f) in every
 * tap (a decimated plane of 0 rows or columns is scored as empty, by the rule above). Output
 * ssim, l, c, s (each a float widened to double).
 *
 * float_ms_ssim: five scales; scale k+1 is scale k decimated by 2 with the 9x9 low-pass
 * kernel below. msssim = prod_k pow(l_k, a_k) pow(c_k, b_k) pow(s_k, g_k) in double (the
 * float exponents below), l_k, c_k, s_k the means of scale k. Planes where some scale
 * (floor halving) is narrower or lower than 11 are refused, as the reference refuses them.
 *
 * enable_db: -10 log10(1 - score), with clip_db at most ceil(10 log10(peak^2 / (0.5 / (w h))))
 * where peak = 2^bpc - 1.
 */
#ifndef VMAF_FEATURE_SSIM_H
#define VMAF_FEATURE_SSIM_H

#include "dialect.h"
#include "f64.h"
#if !VMAF_DIALECT_OPENCL
#include <math.h>
#include <stddef.h>
#endif

#include "float_filter.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VMAF_SSIM_WINDOW = 11,     /**< taps of the Gaussian window */
    VMAF_SSIM_LPF = 9,         /**< taps of the MS-SSIM low-pass kernel */
    VMAF_SSIM_SCALES = 5,      /**< MS-SSIM scales */
    VMAF_SSIM_MAX_FACTOR = 10, /**< largest float_ssim scale option */
    /** Floats of margin kept on each side of a plane row for decimation (>= max radius). */
    VMAF_SSIM_MARGIN = 8,
};

/** MS-SSIM exponents of l, c and s per scale (host side: the product is taken there). */
static VMAF_CONSTANT const float vmaf_ms_ssim_alpha[VMAF_SSIM_SCALES] = {
    0.0f, 0.0f, 0.0f, 0.0f, 0.1333f
};
static VMAF_CONSTANT const float vmaf_ms_ssim_beta[VMAF_SSIM_SCALES] = {
    0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f
};
static VMAF_CONSTANT const float vmaf_ms_ssim_gamma[VMAF_SSIM_SCALES] = {
    0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f
};

/** The window, all 11 taps (the reference's rounded Gaussian; by distance from the centre). */
VMAF_DEVICE_FN void vmaf_ssim_window(float g[VMAF_SSIM_WINDOW])
{
    const float by_distance[6] = { 0.266012f, 0.213006f, 0.109361f,
                                   0.036001f, 0.007599f, 0.001028f };
    for (int i = 0; i < VMAF_SSIM_WINDOW; i++)
        g[i] = by_distance[i < 5 ? 5 - i : i - 5];
}

/** The 9x9 low-pass kernel, row-major: K[4 +- i][4 +- j] = q[i][j] below. */
VMAF_DEVICE_FN void vmaf_ssim_lpf(float k[VMAF_SSIM_LPF * VMAF_SSIM_LPF])
{
    const float q[5][5] = {
        { 0.363505f, 0.160885f, -0.047149f, -0.010146f, 0.016114f },
        { 0.160885f, 0.071207f, -0.020867f, -0.004490f, 0.007132f },
        { -0.047149f, -0.020867f, 0.006115f, 0.001316f, -0.002090f },
        { -0.010146f, -0.004490f, 0.001316f, 0.000283f, -0.000450f },
        { 0.016114f, 0.007132f, -0.002090f, -0.000450f, 0.000714f },
    };
    for (int i = 0; i < VMAF_SSIM_LPF; i++)
        for (int j = 0; j < VMAF_SSIM_LPF; j++)
            k[i * VMAF_SSIM_LPF + j] = q[i < 4 ? 4 - i : i - 4][j < 4 ? 4 - j : j - 4];
}

/**
 * Half-sample symmetric reflection into [0, n): -1 -> 0, -2 -> 1, n -> n-1, n+1 -> n-2 (the
 * reference's single reflection), then clamped into the plane, which matters only where
 * the overshoot exceeds n (there the reference reads outside the plane).
 */
VMAF_DEVICE_FN int vmaf_ssim_reflect(int i, int n)
{
    if (i < 0) i = -1 - i;
    else if (i >= n) i = 2 * n - 1 - i;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* float_ssim's scale: host only (its init chooses it; no kernel reads these). */
#if !VMAF_DIALECT_OPENCL
/** The reference's _round: half away from zero on the fraction, via int truncation. */
VMAF_DEVICE_FN int vmaf_ssim_round(float a)
{
    const int sign = a > 0.0f ? 1 : -1;
    return a - (int)a >= 0.5 ? (int)a + sign : (int)a;
}

/** float_ssim's scale for a w x h plane and the option value (0 = auto). */
VMAF_DEVICE_FN int vmaf_ssim_scale(int option, int w, int h)
{
    if (option > 0) return option;
    const int r = vmaf_ssim_round(vmaf_fdiv((float)(w < h ? w : h), 256.0f));
    return r > 1 ? r : 1;
}
#endif

/** The stabilising constants (float, as the reference folds them). */
typedef struct VmafSsimConst {
    float c1, c2, c3;
} VmafSsimConst;

VMAF_DEVICE_FN VmafSsimConst vmaf_ssim_const(void)
{
    const float k1 = 0.01f, k2 = 0.03f;
    const int range = 255;
    VmafSsimConst c;
    c.c1 = (k1 * range) * (k1 * range);
    c.c2 = (k2 * range) * (k2 * range);
    c.c3 = vmaf_fdiv(c.c2, 2.0f);
    return c;
}

/**
 * The SSIM terms of one pixel from its five window outputs (see the top of this file).
 * xx, yy and xy are the filtered squares and product before the means are removed.
 *
 * The doubles are f64.h's (the C/CUDA expressions unchanged, one function per operation),
 * except for two sites with a cheaper form that is provably the same:
 *   - the clamps `0.0 > s1` compare a float widened to double (exact) with 0: the same
 *     comparison as `0.0f > s1` for every float (-0 and NaN compare false either way);
 *   - where doubles are software, (float)sqrt((double)p) of the float p = s1 s2 is
 *     vmaf_fsqrt(p): the double square root of a float rounded again to float is the
 *     correctly rounded float root (dialect.h, Figueroa's double-rounding theorem: 53 >=
 *     2 * 24 + 2), which vmaf_fsqrt gives in every division mode.
 */
VMAF_DEVICE_FN void vmaf_ssim_pixel(const VmafSsimConst *k, float mu1, float mu2, float xx,
                                    float yy, float xy, vmaf_double *l, vmaf_double *c,
                                    vmaf_double *s)
{
    float s1 = xx - mu1 * mu1;
    float s2 = yy - mu2 * mu2;
    s1 = 0.0f > s1 ? 0.0f : s1; /* the reference's MAX(0.0, x): keeps -0 and NaN */
    s2 = 0.0f > s2 ? 0.0f : s2;
    const float s12 = xy - mu1 * mu2;
#if VMAF_DOUBLE_SOFT
    const float root = vmaf_fsqrt(s1 * s2);
#else
    const float root = (float)sqrt((double)(s1 * s2));
#endif
    const vmaf_double two = VMAF_DCONST(2.0, 0x4000000000000000);
    const float l_den = mu1 * mu1 + mu2 * mu2 + k->c1;
    /* (2.0 * mu1 * mu2 + c1) / l_den */
    *l = vmaf_ddiv(vmaf_dadd(vmaf_dmul(vmaf_dmul(two, vmaf_dfrom_float(mu1)), vmaf_dfrom_float(mu2)),
                             vmaf_dfrom_float(k->c1)),
                   vmaf_dfrom_float(l_den));
    const float c_den = s1 + s2 + k->c2;
    /* (2.0 * root + c2) / c_den */
    *c = vmaf_ddiv(vmaf_dadd(vmaf_dmul(two, vmaf_dfrom_float(root)), vmaf_dfrom_float(k->c2)),
                   vmaf_dfrom_float(c_den));
    const float s12c = (s12 < 0.0f && root <= 0.0f) ? 0.0f : s12;
    *s = vmaf_dfrom_float(vmaf_fdiv(s12c + k->c3, root + k->c3));
}

/* The dB form and its limit: host only (the scores are written there). */
#if !VMAF_DIALECT_OPENCL
/** -10 log10(1 - score), at most max_db (min as the reference writes it). */
VMAF_DEVICE_FN double vmaf_ssim_to_db(double score, double max_db)
{
    const double db = -10. * log10(1 - score);
    return db < max_db ? db : max_db;
}

/** The clip_db limit for w x h pictures of bpc bits (INFINITY without clip_db). */
VMAF_DEVICE_FN double vmaf_ssim_max_db(int clip_db, unsigned bpc, unsigned w, unsigned h)
{
    if (!clip_db) return INFINITY;
    const unsigned peak = (1u << bpc) - 1;
    const double mse = 0.5 / (w * h);
    return ceil(10. * log10(peak * peak / mse));
}
#endif

#if VMAF_DIALECT_C
#include <stdbool.h>

#include "feature_extractor.h"

/** The four means of one SSIM evaluation (floats, as the reference returns them). */
typedef struct VmafSsimMeans {
    float ssim, l, c, s;
} VmafSsimMeans;

/**
 * A plane with VMAF_SSIM_MARGIN floats of room on each side of every row: data points at
 * sample (0, 0); stride in floats.
 */
typedef struct VmafSsimPlane {
    float *buf, *data;
    int w, h;
    ptrdiff_t stride;
} VmafSsimPlane;

/** Allocate a plane of w x h (both > 0). 0 or -ENOMEM. */
int vmaf_ssim_plane_alloc(VmafSsimPlane *p, int w, int h);
void vmaf_ssim_plane_free(VmafSsimPlane *p);

/** Fill the row margins of p with the reflection (vmaf_ssim_reflect) of its samples. */
void vmaf_ssim_plane_fill_margins(VmafSsimPlane *p);

/** Scratch for vmaf_ssim_means and vmaf_ssim_decimate, for planes up to max_w wide. */
typedef struct VmafSsimWorkspace {
    int max_w;
    double *acc;    /**< one row of double sums */
    float *ring;    /**< 5 quantities x 11 horizontally filtered rows */
    float *prod;    /**< 3 rows: ref*ref, cmp*cmp, ref*cmp of one input row */
    float *win;     /**< 5 rows: the window outputs of one output row */
    double *terms;  /**< 3 rows: l, c, s of one output row */
} VmafSsimWorkspace;

int vmaf_ssim_workspace_init(VmafSsimWorkspace *ws, int max_w);
void vmaf_ssim_workspace_close(VmafSsimWorkspace *ws);

/**
 * The SSIM means of two w x h planes (row strides in floats) with the Gaussian window, in
 * the build `impl` (float_filter.h). w or h may be 0 (nothing is read). 0, or -ENOTSUP /
 * -EINVAL.
 */
int vmaf_ssim_means(enum VmafFloatImpl impl, VmafSsimWorkspace *ws, const float *ref,
                    const float *cmp, ptrdiff_t stride, int w, int h, VmafSsimMeans *out);

/**
 * Decimate src (margins filled) by factor with the kx x kx kernel k (row-major) into dst,
 * which must be (w/f + (w&1)) x (h/f + (h&1)); dst's margins are filled afterwards.
 */
int vmaf_ssim_decimate(enum VmafFloatImpl impl, VmafSsimWorkspace *ws, const VmafSsimPlane *src,
                       int factor, const float *k, int kw, VmafSsimPlane *dst);

/** The four sums of vmaf_ssim_means (l c s, l, c, s; ssim_device.h's order); 0 if empty. */
int vmaf_ssim_sums(enum VmafFloatImpl impl, VmafSsimWorkspace *ws, const float *ref,
                   const float *cmp, ptrdiff_t stride, int w, int h, double sums[4]);

/*
 * The reference's part of vmaf_ssim_sums: its window outputs mu1 = W ref and xx = W(ref*ref)
 * (nw x nh, nw = w - 10, nh = h - 10; rows side_stride floats apart, side_stride >= nw), which
 * depend on the reference plane alone; and the sums from them with the distorted plane
 * (ref still read, for ref*cmp): the same window functions on the same values and the same
 * order of summation as vmaf_ssim_sums in the same build, so the same bits. 0, or -ENOTSUP /
 * -EINVAL.
 */
int vmaf_ssim_ref_windows(enum VmafFloatImpl impl, VmafSsimWorkspace *ws, const float *ref,
                          ptrdiff_t stride, int w, int h, float *mu, float *xx,
                          ptrdiff_t side_stride);
int vmaf_ssim_sums_from_windows(enum VmafFloatImpl impl, VmafSsimWorkspace *ws,
                                const float *ref, ptrdiff_t ref_stride, const float *cmp,
                                ptrdiff_t cmp_stride, int w, int h, const float *mu,
                                const float *xx, ptrdiff_t side_stride, double sums[4]);

/** The means from the four sums of a plane whose window outputs are nw x nh. */
void vmaf_ssim_means_from_sums(const double sums[4], int nw, int nh, VmafSsimMeans *out);

/** float_ssim's instance (float_ssim.c; its GPU twin reads it). */
typedef struct FloatSsimState {
    /* options */
    bool enable_lcs, enable_db, clip_db;
    int scale_option;
    /* from init */
    int w, h, scale;
    int dec_w, dec_h; /* size after decimation; 0 rows or columns is an empty plane */
    double max_db;
    VmafSsimPlane ref, cmp;         /* the converted luma */
    VmafSsimPlane ref_dec, cmp_dec; /* decimated, when scale > 1 */
    /* scale x scale taps of 1 / scale^2 */
    float kernel_taps[VMAF_SSIM_MAX_FACTOR * VMAF_SSIM_MAX_FACTOR];
    VmafSsimWorkspace ws;
} FloatSsimState;

/** float_ms_ssim's instance (float_ms_ssim.c; its GPU twin reads it). */
typedef struct FloatMsSsimState {
    /* options */
    bool enable_lcs, enable_db, clip_db;
    /* from init */
    int w, h;
    enum VmafLogLevel log_level;
    double max_db;
    VmafSsimPlane ref[VMAF_SSIM_SCALES], cmp[VMAF_SSIM_SCALES];
    float lpf[VMAF_SSIM_LPF * VMAF_SSIM_LPF];
    VmafSsimWorkspace ws;
} FloatMsSsimState;

/** Write float_ssim's outputs of one frame from its means (CPU path and twin). */
int vmaf_float_ssim_store(const FloatSsimState *s, const VmafSsimMeans *m, unsigned index,
                          VmafFeatureSink *sink);

/** Write float_ms_ssim's outputs of one frame from the means of its five scales. */
int vmaf_float_ms_ssim_store(const FloatMsSsimState *s, const VmafSsimMeans m[VMAF_SSIM_SCALES],
                             unsigned index, VmafFeatureSink *sink);

/** Size of one side after decimation by factor (the reference's w/f + (w&1)). */
static inline int vmaf_ssim_decimated(int n, int factor)
{
    return n / factor + (n & 1);
}

#endif /* VMAF_DIALECT_C */

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_SSIM_H */
