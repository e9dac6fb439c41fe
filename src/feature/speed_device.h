/*
 * Twin VMAF — SpEED arithmetic shared by the CPU extractor, its CUDA twin and the twin's host
 * test (valid C11 and CUDA).
 *
 * Each function computes one element of one stage (a filtered point, a window mean, one lane
 * of a covariance sum, one row of a Householder step, one entry of a matrix product, one
 * block's solve) exactly as speed_core.c / speed_scale.c / speed_linalg.c order it, so that a
 * kernel running them in parallel, and tests/twins/test_speed_twin.c running them in the kernels'
 * decomposition on the host, give the CPU's bits. The serial eigenvalue iteration (the
 * implicit QR sweeps) is here too and is the CPU's own code.
 *
 * No libm call here may differ between glibc and CUDA: only +-*, /, sqrt (correctly rounded
 * on both), fma (exact on both), fabs, floor-free integer index arithmetic.
 *
 * The doubles are f64.h's (the plain double on the CPU, in CUDA and in OpenCL with fp64; the
 * software binary64 in an OpenCL program built without it), written one f64.h function per C
 * operation. Where the doubles are software, the double expressions rounded to float from
 * float operands (square roots, 1/sqrt, halving, the eps comparisons) take fp32 forms instead,
 * each with its proof of equality at the site; the covariance sums stay in double.
 */
#ifndef VMAF_FEATURE_SPEED_DEVICE_H
#define VMAF_FEATURE_SPEED_DEVICE_H

#include "dialect.h"
#include "f64.h"
#if !VMAF_DIALECT_OPENCL
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#endif

#include "reflect.h"

enum {
    VMAF_SPEED_DEV_N = 25,     /* VMAF_SPEED_BLOCK_ELEMS */
    VMAF_SPEED_DEV_B = 5,      /* VMAF_SPEED_BLOCK */
    VMAF_SPEED_DEV_LANES = 16, /* lanes of a covariance sum */
    VMAF_SPEED_DEV_PAIRS = 325, /* (xi, yi) with yi <= xi */
    VMAF_SPEED_DEV_DECIMATION = 16, /* VMAF_SPEED_DECIMATION */
    VMAF_SPEED_DEV_MAX_SWEEPS = 500, /* VMAF_SPEED_EIGEN_MAX_ITERS */
};
/* VMAF_SPEED_EIGEN_EPS, a double (f64.h): compared with floats promoted to double */
#define VMAF_SPEED_DEV_EPS VMAF_DCONST(1e-6, 0x3eb0c6f7a0b5ed8d)

/*
 * (double)x < VMAF_SPEED_DEV_EPS for a float x. Where the doubles are software (f64.h), its
 * fp32 form x < 0x1.0c6f7cp-20f. The same answer: eps (0x3eb0c6f7a0b5ed8d) lies strictly
 * between the adjacent floats 0x358637bd and 0x358637be (= 0x1.0c6f7cp-20), so a float is
 * below eps exactly when it is at most 0x358637bd, i.e. below 0x358637be; a NaN is below
 * neither.
 */
VMAF_DEVICE_FN int vmaf_speed_below_eps(float x)
{
#if VMAF_DOUBLE_SOFT
    return x < 0x1.0c6f7cp-20f;
#else
    return x < VMAF_SPEED_DEV_EPS;
#endif
}

/* The address space of the matrices the kernels keep in shared memory (the covariance being
 * tridiagonalised, the QR factors, a block's samples): OpenCL C must name __local; in CUDA
 * (__shared__ is not part of a pointer's type) and on the host it is the one flat space. The
 * serial eigenvalue iteration runs on private copies, so it has neither qualifier. */
#if VMAF_DIALECT_OPENCL
#define VMAF_SPEED_LOCAL __local
#else
#define VMAF_SPEED_LOCAL
#endif

/* ---- samples ---------------------------------------------------------------------------- */

/** A plane, or the difference a - b of two planes, as the CPU's VmafSpeedSource. */
typedef struct VmafSpeedDevSource {
    const VMAF_GLOBAL uint8_t *a, *b; /* b NULL: no difference */
    ptrdiff_t a_stride, b_stride;
    int wide;             /* uint16 samples */
    float scale;          /* 2^(bpc-8) */
} VmafSpeedDevSource;

/** s / 2^(bpc-8) - 128, or the difference of two such values (speed_core.c's EACH_SAMPLE). */
VMAF_DEVICE_FN float vmaf_speed_dev_sample(const VmafSpeedDevSource *s, unsigned y, unsigned x)
{
    if (!s->wide) {
        const float va = (float)s->a[(size_t)y * s->a_stride + x] - 128.0f;
        if (!s->b) return va;
        return va - ((float)s->b[(size_t)y * s->b_stride + x] - 128.0f);
    }
    const VMAF_GLOBAL uint16_t *ra =
        (const VMAF_GLOBAL uint16_t *)(const VMAF_GLOBAL void *)(s->a + (size_t)y * s->a_stride);
    const float va = vmaf_fdiv((float)ra[x], s->scale) - 128.0f;
    if (!s->b) return va;
    const VMAF_GLOBAL uint16_t *rb =
        (const VMAF_GLOBAL uint16_t *)(const VMAF_GLOBAL void *)(s->b + (size_t)y * s->b_stride);
    return va - (vmaf_fdiv((float)rb[x], s->scale) - 128.0f);
}

/* ---- separable filter at one point -------------------------------------------------------- */

/*
 * Output (oi, oj) of vmaf_speed_filter_decimate at `step` over a w x h image: for each
 * horizontal tap k, the vertical sum (from 0, in tap order) at column reflect(step*oj - r + k),
 * then the horizontal sum of filter[k] * that (from 0, in tap order). LOAD(y, x) is the image.
 */
#define VMAF_SPEED_FILTER_POINT(RESULT, FILTER, WIDTH, W, H, STEP, OI, OJ, LOAD)              \
    do {                                                                                    \
        const int radius_ = (WIDTH) / 2;                                                    \
        const int row0_ = (int)((OI) * (STEP)) - radius_;                                   \
        const int col0_ = (int)((OJ) * (STEP)) - radius_;                                   \
        float acc_ = 0.0f;                                                                  \
        for (int k_ = 0; k_ < (WIDTH); k_++) {                                              \
            const unsigned x_ = (unsigned)vmaf_reflect101(col0_ + k_, (int)(W));   \
            float v_ = 0.0f;                                                                \
            for (int t_ = 0; t_ < (WIDTH); t_++) {                                          \
                const unsigned y_ = (unsigned)vmaf_reflect101(row0_ + t_, (int)(H)); \
                v_ += (FILTER)[t_] * (LOAD(y_, x_));                                        \
            }                                                                               \
            acc_ += (FILTER)[k_] * v_;                                                      \
        }                                                                                   \
        (RESULT) = acc_;                                                                    \
    } while (0)

#define VMAF_SPEED_LOAD_SOURCE(y, x) vmaf_speed_dev_sample(src, (y), (x))
#define VMAF_SPEED_LOAD_IMAGE(y, x) img[(size_t)(y) * stride + (x)]

/** The anti-aliasing filter and decimation at (oi, oj), straight from the samples. */
VMAF_DEVICE_FN float vmaf_speed_dev_decimate_source(const VMAF_GLOBAL float *filter, int width,
                                                    const VmafSpeedDevSource *src, unsigned w,
                                                    unsigned h, unsigned step, unsigned oi,
                                                    unsigned oj)
{
    float r;
    VMAF_SPEED_FILTER_POINT(r, filter, width, w, h, step, oi, oj, VMAF_SPEED_LOAD_SOURCE);
    return r;
}

/** The same over a float image (stride in floats). */
VMAF_DEVICE_FN float vmaf_speed_dev_filter_image(const VMAF_GLOBAL float *filter, int width,
                                                 const VMAF_GLOBAL float *img, size_t stride,
                                                 unsigned w, unsigned h,
                                                 unsigned step, unsigned oi, unsigned oj)
{
    float r;
    VMAF_SPEED_FILTER_POINT(r, filter, width, w, h, step, oi, oj, VMAF_SPEED_LOAD_IMAGE);
    return r;
}

/* ---- resampling: one destination sample (speed_scale.c's scale_row_*) ---------------------- */

/** The tables of a VmafSpeedScaler (method as enum VmafSpeedScaleMethod). */
typedef struct VmafSpeedDevScaler {
    int method, copy;
    const VMAF_GLOBAL int *col_index, *row_index;
    const VMAF_GLOBAL float *col_weight, *row_weight;
} VmafSpeedDevScaler;

VMAF_DEVICE_FN float vmaf_speed_dev_scale_point(const VmafSpeedDevScaler *s,
                                                const VmafSpeedDevSource *src, unsigned y,
                                                unsigned x)
{
    if (s->copy) return vmaf_speed_dev_sample(src, y, x);
    switch (s->method) {
    case 0: /* nearest */
        return vmaf_speed_dev_sample(src, (unsigned)s->row_index[y], (unsigned)s->col_index[x]);
    case 1: { /* bilinear */
        const unsigned r1 = (unsigned)s->row_index[2 * y], r2 = (unsigned)s->row_index[2 * y + 1];
        const unsigned x1 = (unsigned)s->col_index[2 * x], x2 = (unsigned)s->col_index[2 * x + 1];
        const float dy = s->row_weight[2 * y], dx = s->col_weight[2 * x];
        const float top_left = (1 - dy) * (1 - dx) * vmaf_speed_dev_sample(src, r1, x1);
        const float top_right = (1 - dy) * dx * vmaf_speed_dev_sample(src, r1, x2);
        const float bottom_left = dy * (1 - dx) * vmaf_speed_dev_sample(src, r2, x1);
        const float bottom_right = dy * dx * vmaf_speed_dev_sample(src, r2, x2);
        return top_left + top_right + bottom_left + bottom_right;
    }
    case 2: { /* bicubic */
        const VMAF_GLOBAL int *ri = s->row_index + 4 * y, *ci = s->col_index + 4 * x;
        const VMAF_GLOBAL float *rw = s->row_weight + 4 * y, *cw = s->col_weight + 4 * x;
        float acc = 0.0f;
        for (int t = 0; t < 4; t++)
            for (int u = 0; u < 4; u++)
                acc += vmaf_speed_dev_sample(src, (unsigned)ri[t], (unsigned)ci[u]) *
                       (cw[u] * rw[t]);
        return acc;
    }
    default: { /* lanczos4: 9 taps */
        const VMAF_GLOBAL int *ri = s->row_index + 9 * y, *ci = s->col_index + 9 * x;
        const VMAF_GLOBAL float *rw = s->row_weight + 9 * y, *cw = s->col_weight + 9 * x;
        float acc = 0.0f, weights = 0.0f;
        for (int t = 0; t < 9; t++)
            for (int u = 0; u < 9; u++) {
                const float wgt = cw[u] * rw[t];
                weights += wgt;
                acc += vmaf_speed_dev_sample(src, (unsigned)ri[t], (unsigned)ci[u]) * wgt;
            }
        return vmaf_fdiv(acc, weights);
    }
    }
}

/* ---- window means and covariance lanes (speed_linalg.c's vmaf_speed_covariance) ---------- */

/** Mean of window k (rows k/5 .., columns k%5 ..; sub_w x sub_h): a float sum in row-major
 *  order divided by the count. */
VMAF_DEVICE_FN float vmaf_speed_dev_window_mean(const VMAF_GLOBAL float *img, size_t stride,
                                                unsigned sw, unsigned sh, int k)
{
    const VMAF_GLOBAL float *base =
        img + (size_t)(k / VMAF_SPEED_DEV_B) * stride + k % VMAF_SPEED_DEV_B;
    float sum = 0.0f;
    for (unsigned i = 0; i < sh; i++)
        for (unsigned j = 0; j < sw; j++)
            sum += base[(size_t)i * stride + j];
    return vmaf_fdiv(sum, (float)((size_t)sw * sh));
}

/** The pair (xi, yi), yi <= xi, of pair index p in 0..324 (row-major lower triangle). */
VMAF_DEVICE_FN void vmaf_speed_dev_pair(int p, int *xi, int *yi)
{
    int x = 0;
    while ((x + 1) * (x + 2) / 2 <= p)
        x++;
    *xi = x;
    *yi = p - x * (x + 1) / 2;
}

/*
 * Lane `lane` (0..15) of the covariance sum of windows xi and yi over centred values
 * (double)img - (double)mean: fused multiply-adds over the 16-column groups of each row (and
 * the group of 8 after them, lanes 0..7), rows in order. lane 16 is the serial unfused tail.
 */
VMAF_DEVICE_FN vmaf_double vmaf_speed_dev_cov_lane(const VMAF_GLOBAL float *img, size_t stride,
                                                   unsigned sw, unsigned sh, int xi, int yi,
                                                   vmaf_double mean_x, vmaf_double mean_y,
                                                   int lane)
{
    const VMAF_GLOBAL float *px =
        img + (size_t)(xi / VMAF_SPEED_DEV_B) * stride + xi % VMAF_SPEED_DEV_B;
    const VMAF_GLOBAL float *py =
        img + (size_t)(yi / VMAF_SPEED_DEV_B) * stride + yi % VMAF_SPEED_DEV_B;
    const unsigned w16 = sw / 16 * 16, w8 = (sw - w16) >= 8 ? w16 + 8 : w16;
    /* acc = fma((double)x - mean_x, (double)y - mean_y, acc) and, in the tail,
     * acc += ((double)x - mean_x) * ((double)y - mean_y) (f64.h) */
    vmaf_double acc = VMAF_DCONST(0.0, 0x0);
    if (lane < VMAF_SPEED_DEV_LANES) {
        for (unsigned i = 0; i < sh; i++) {
            const VMAF_GLOBAL float *rx = px + (size_t)i * stride, *ry = py + (size_t)i * stride;
            for (unsigned j = (unsigned)lane; j < w16; j += 16)
                acc = vmaf_dfma(vmaf_dsub(vmaf_dfrom_float(rx[j]), mean_x),
                                vmaf_dsub(vmaf_dfrom_float(ry[j]), mean_y), acc);
            if (w16 + (unsigned)lane < w8)
                acc = vmaf_dfma(vmaf_dsub(vmaf_dfrom_float(rx[w16 + lane]), mean_x),
                                vmaf_dsub(vmaf_dfrom_float(ry[w16 + lane]), mean_y), acc);
        }
    } else {
        for (unsigned i = 0; i < sh; i++) {
            const VMAF_GLOBAL float *rx = px + (size_t)i * stride, *ry = py + (size_t)i * stride;
            for (unsigned j = w8; j < sw; j++)
                acc = vmaf_dadd(acc, vmaf_dmul(vmaf_dsub(vmaf_dfrom_float(rx[j]), mean_x),
                                               vmaf_dsub(vmaf_dfrom_float(ry[j]), mean_y)));
        }
    }
    return acc;
}

/** Fold the 16 lanes as the reference's reduction does (8+8, 4+4, 2+2, 1+1), add the tail. */
VMAF_DEVICE_FN vmaf_double vmaf_speed_fold_lanes(const vmaf_double *lane, vmaf_double tail)
{
    vmaf_double halves[8], quarter[4], pair[2];
    for (unsigned t = 0; t < 8; t++)
        halves[t] = vmaf_dadd(lane[t], lane[t + 8]);
    for (unsigned t = 0; t < 4; t++)
        quarter[t] = vmaf_dadd(halves[t + 4], halves[t]);
    for (unsigned t = 0; t < 2; t++)
        pair[t] = vmaf_dadd(quarter[t + 2], quarter[t]);
    return vmaf_dadd(vmaf_dadd(pair[0], pair[1]), tail);
}

/* ---- eigenvalues (speed_linalg.c; the CPU runs these same functions) ---------------------- */

VMAF_DEVICE_FN int vmaf_speed_sign(float x)
{
    return x >= 0 ? 1 : -1;
}

/*
 * (float)sqrt((double)x) of a float x. Where the doubles are software (f64.h), its fp32 form
 * vmaf_fsqrt(x), the square root correctly rounded to binary32 (dialect.h, in every dialect
 * and division mode). Bit for bit the same: x is exact in double; sqrt rounds the exact root
 * once to 53 bits, the conversion rounds that to 24; for the square root of a p-bit operand
 * rounded first to q >= 2p + 2 bits (53 >= 50) the second rounding is the exact root's
 * correct rounding to p bits (Figueroa, "When is double rounding innocuous?", SIGNUM 1995:
 * the argument of dialect.h's division via double). The root of a nonzero float is at least
 * 2^-74.5, a normal float and a normal double, so no subnormal rounding enters. The special
 * operands agree: +-0 and +inf are their own roots, a negative x or a NaN gives a NaN (quiet
 * in both; NaN payloads are not compared, soft_f64.h).
 */
VMAF_DEVICE_FN float vmaf_speed_sqrt_via_double(float x)
{
#if VMAF_DOUBLE_SOFT
    return vmaf_fsqrt(x);
#else
    return (float)sqrt((double)x);
#endif
}

/** sqrt(x^2 + y^2) with the sum in float and the root rounded from double. */
VMAF_DEVICE_FN float vmaf_speed_hypot(float x, float y)
{
    return vmaf_speed_sqrt_via_double(x * x + y * y);
}

/** Euclidean norm of v[from, to) (stride) with the sum in float. */
VMAF_DEVICE_FN float vmaf_speed_norm(const VMAF_SPEED_LOCAL float *v, int from, int to, int stride)
{
    float sum = 0;
    for (int i = from; i < to; i++)
        sum += v[i * stride] * v[i * stride];
    return vmaf_speed_sqrt_via_double(sum);
}

/*
 * Householder vector annihilating a[start+1 .. n) of column col (row-major n x n, in place):
 * on return a[start][col] holds beta, a[start+1 .. n) the tail of v scaled so that its
 * implicit head is 1; returns tau (0: nothing to do).
 */
VMAF_DEVICE_FN float vmaf_speed_householder_column(VMAF_SPEED_LOCAL float *a, int n, int col,
                                                   int start)
{
    if (n - start == 1) return 0.0f;
    const float tail_norm = vmaf_speed_norm(a + col, start + 1, n, n);
    if (tail_norm == 0.0f) return 0.0f;

    const float alpha = a[start * n + col];
    const float beta = -vmaf_speed_sign(alpha) * vmaf_speed_hypot(alpha, tail_norm);
    const float tau = vmaf_fdiv(beta - alpha, beta);
    const float scale = alpha - beta;
    if (scale != 0.0f) {
        for (int i = start + 1; i < n; i++)
            a[i * n + col] = vmaf_fdiv(a[i * n + col], scale);
        a[start * n + col] = beta;
    }
    return tau;
}

/** Row r of w = tau A v over the trailing block [s, n). */
VMAF_DEVICE_FN float vmaf_speed_tridiag_w(const VMAF_SPEED_LOCAL float *a, int n, int s,
                                          float tau, const VMAF_SPEED_LOCAL float *v, int r)
{
    float w = 0.0f;
    for (int c = s; c < n; c++)
        w += tau * a[r * n + c] * v[c];
    return w;
}

/** (w . v) over [s, n), in order. */
VMAF_DEVICE_FN float vmaf_speed_tridiag_wv(const VMAF_SPEED_LOCAL float *w,
                                           const VMAF_SPEED_LOCAL float *v, int n, int s)
{
    float wv = 0;
    for (int r = s; r < n; r++)
        wv += w[r] * v[r];
    return wv;
}

/** -(tau/2) (w . v), in double: (float)(-0.5 * tau * wv) (f64.h). */
VMAF_DEVICE_FN float vmaf_speed_tridiag_coef(float tau, float wv)
{
    return vmaf_dto_float(vmaf_dmul(vmaf_dmul(VMAF_DCONST(-0.5, 0xbfe0000000000000),
                                              vmaf_dfrom_float(tau)),
                                    vmaf_dfrom_float(wv)));
}

/** A[r][c] -= w[r] v[c] + v[r] w[c]. */
VMAF_DEVICE_FN float vmaf_speed_tridiag_update(float arc, const VMAF_SPEED_LOCAL float *w,
                                               const VMAF_SPEED_LOCAL float *v, int r, int c)
{
    return arc - (w[r] * v[c] + v[r] * w[c]);
}

/* Zero the subdiagonal entries that are negligible next to their diagonal neighbours. */
VMAF_DEVICE_FN void vmaf_speed_deflate(const float *diag, float *sub, int n)
{
    /* |sub[i]| < eps * (|diag[i]| + |diag[i + 1]|), in double (the sum in float; f64.h) */
    for (int i = 0; i + 1 < n; i++)
        if (vmaf_dlt(vmaf_dfrom_float(vmaf_fabsf(sub[i])),
                     vmaf_dmul(VMAF_SPEED_DEV_EPS,
                               vmaf_dfrom_float(vmaf_fabsf(diag[i]) + vmaf_fabsf(diag[i + 1])))))
            sub[i] = 0.0f;
}

/*
 * (float)((d) / 2.0) of a float d. Where the doubles are software (f64.h), its fp32 form
 * d * 0.5f. The same bits: d / 2 is exact in double (a float halved is far above double's
 * subnormal range), so the C form is d / 2 rounded once to float, which is what the float
 * product d * 0.5f is (IEEE multiplication, subnormal results rounded, not flushed, as every
 * float operation of this header assumes); +-0, infinities and NaN halve alike.
 */
VMAF_DEVICE_FN float vmaf_speed_half_via_double(float d)
{
#if VMAF_DOUBLE_SOFT
    return d * 0.5f;
#else
    return (float)(d / 2.0);
#endif
}

/* Eigenvalue of the trailing 2x2 block closer to its last diagonal entry (Wilkinson). */
VMAF_DEVICE_FN float vmaf_speed_wilkinson_shift(const float *diag, const float *sub, int n)
{
    const float p = diag[n - 2], q = diag[n - 1], r = sub[n - 2];
    const float half_gap = vmaf_speed_half_via_double(p - q);
    if (half_gap > 0)
        return q - r * vmaf_fdiv(r, half_gap + vmaf_speed_hypot(half_gap, r));
    if (half_gap == 0)
        return q - vmaf_fabsf(r);
    return q + r * vmaf_fdiv(r, -half_gap + vmaf_speed_hypot(half_gap, r));
}

/** Whether 1/sqrt(u) > m 2^-25, u = u_units 2^-23 (m odd, at most 2^25 + 1): U m^2 < 2^73. */
VMAF_DEVICE_FN int vmaf_speed_rsqrt_above(uint32_t u_units, uint64_t m)
{
    const uint64_t m2 = m * m;
    const uint64_t lo = (uint64_t)u_units * (m2 & 0xffffffffu);
    const uint64_t hi = (uint64_t)u_units * (m2 >> 32) + (lo >> 32); /* U m^2 >> 32 */
    return hi < (UINT64_C(1) << 41);
}

/*
 * (float)(1.0 / sqrt((double)u)) of a float u (the Givens rotations' u = 1 + t^2, t in
 * [-1, 1], so u in [1, 2] or a NaN). Where the doubles are software (f64.h), u in [1, 2]
 * takes an fp32 form with an integer check, the rest the double expression on f64.h:
 *   - the claim: for every float u in [1, 2] the double expression (two roundings to 53 bits,
 *     one to 24) is 1/sqrt(u) correctly rounded to float. Checked exhaustively, all 2^23 + 1
 *     floats of [1, 2], by tests/twins/test_speed_twin.c, whose speed_twin_soft build runs
 *     this function with the software double against the host's double on every one;
 *   - the form: u = U 2^-23 with U an integer in [2^23, 2^24]; the result lies in
 *     [2^-0.5, 1], a float R 2^-24 with R an integer in [2^23, 2^24]. An estimate
 *     R = 2^24 / vmaf_fsqrt(u) (within 2 units: two correctly rounded fp32 operations) is
 *     moved by one unit while 1/sqrt(u) is not between the midpoints (2R -+ 1) 2^-25 of R's
 *     neighbours. 1/sqrt(u) > M 2^-25 exactly when U M^2 < 2^73, an integer comparison:
 *     M^2 < 2^51 (M <= 2^25 + 1), U M^2 split at 2^32 so that every part fits 64 bits.
 *     U M^2 = 2^73 is impossible (M is odd and above 1), so no midpoint is hit: the R found is
 *     the correct rounding. (R = 2^24, the result 1, is only reached by u = 1, whose root is
 *     exact; the midpoint above 1 is then never passed because 1/sqrt(u) <= 1.)
 */
VMAF_DEVICE_FN float vmaf_speed_rsqrt_via_double(float u)
{
#if VMAF_DOUBLE_SOFT
    if (u >= 1.0f && u <= 2.0f) {
        const uint32_t units = (uint32_t)(u * 8388608.0f); /* u 2^23, exact */
        uint64_t r = (uint64_t)(vmaf_fdiv(1.0f, vmaf_fsqrt(u)) * 16777216.0f); /* 2^24 */
        while (r > (UINT64_C(1) << 23) && !vmaf_speed_rsqrt_above(units, 2 * r - 1))
            r--;
        while (r < (UINT64_C(1) << 24) && vmaf_speed_rsqrt_above(units, 2 * r + 1))
            r++;
        return (float)r * 5.9604644775390625e-8f; /* 2^-24, exact */
    }
#endif
    return vmaf_dto_float(
        vmaf_ddiv(VMAF_DCONST(1.0, 0x3ff0000000000000), vmaf_dsqrt(vmaf_dfrom_float(u))));
}

/* Rotation (c, s) with [c s; -s c]^T applied to (a, b) zeroing b. */
VMAF_DEVICE_FN void vmaf_speed_givens(float a, float b, float *c, float *s)
{
    if (b == 0) {
        *c = 1;
        *s = 0;
    } else if (vmaf_fabsf(b) > vmaf_fabsf(a)) {
        const float t = vmaf_fdiv(-a, b);
        const float inv = vmaf_speed_rsqrt_via_double(1 + t * t);
        *s = inv;
        *c = inv * t;
    } else {
        const float t = vmaf_fdiv(-b, a);
        const float inv = vmaf_speed_rsqrt_via_double(1 + t * t);
        *c = inv;
        *s = inv * t;
    }
}

/* One implicit shifted QR sweep over an unreduced tridiagonal block of size n >= 2. */
VMAF_DEVICE_FN void vmaf_speed_qr_sweep(float *diag, float *sub, int n)
{
    float mu = vmaf_speed_wilkinson_shift(diag, sub, n);
    /* eps * |mu| > |diag[0]| + |sub[0]|, in double (the sum in float; f64.h) */
    const vmaf_double scaled_mu = vmaf_dmul(VMAF_SPEED_DEV_EPS, vmaf_dfrom_float(vmaf_fabsf(mu)));
    if (vmaf_dlt(vmaf_dfrom_float(vmaf_fabsf(diag[0]) + vmaf_fabsf(sub[0])), scaled_mu)) mu = 0;

    float x = diag[0] - mu;
    float z = sub[0];
    float ap = diag[0], bp = sub[0], aq = diag[1];

    if (n == 2) {
        float c, s;
        vmaf_speed_givens(x, z, &c, &s);
        const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        diag[0] = ap1;
        sub[0] = bp1;
        diag[1] = aq1;
        return;
    }

    float bq = sub[1];
    float bk = 0, zk = 0; /* the previous rotation's subdiagonal entry and bulge */
    for (int k = 0; k < n - 1; k++) {
        float c, s;
        vmaf_speed_givens(x, z, &c, &s);

        const float bk_prev = c * bk - s * zk;
        const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        const float zp1 = -s * bq;
        const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        const float bq1 = c * bq;

        bk = bp1;
        zk = zp1;
        ap = aq1;
        bp = bq1;
        if (k < n - 2) aq = diag[k + 2];
        if (k < n - 3) bq = sub[k + 2];

        diag[k] = ap1;
        if (k > 0) sub[k - 1] = bk_prev;
        if (k < n - 2) sub[k + 1] = bp;

        x = bk;
        z = zk;
    }
    diag[n - 1] = ap;
    sub[n - 2] = bk;
}

/* Diagonalise the tridiagonal (diag, sub) in place; 1 if max_sweeps was reached. */
VMAF_DEVICE_FN int vmaf_speed_tridiagonal_eigenvalues(float *diag, float *sub, int n,
                                                      int max_sweeps)
{
    vmaf_speed_deflate(diag, sub, n);
    int hi = n - 1, sweeps = 0;
    while (hi > 0 && sweeps < max_sweeps) {
        if (sub[hi - 1] == 0.0f) {
            hi--;
            continue;
        }
        int lo = hi - 1;
        while (lo > 0 && sub[lo - 1] != 0.0f)
            lo--;
        vmaf_speed_qr_sweep(diag + lo, sub + lo, hi - lo + 1);
        vmaf_speed_deflate(diag + lo, sub + lo, hi - lo + 1);
        sweeps++;
    }
    return sweeps == max_sweeps;
}

/* ---- the least-squares solve (speed_linalg.c's householder_qr, back_substitute) ----------- */

/** Entry (i, j) of x (rows x inner) * y (inner x cols): the sum from 0 in ascending k. */
VMAF_DEVICE_FN float vmaf_speed_dev_matmul_entry(const VMAF_SPEED_LOCAL float *x,
                                                 const VMAF_SPEED_LOCAL float *y, int i, int j,
                                                 int inner, int cols)
{
    float d = 0.0f;
    for (int k = 0; k < inner; k++)
        d += x[i * inner + k] * y[k * cols + j];
    return d;
}

/** Reflector k's vector from the reduced matrix (n x n): v = column k, v[k] += sign * norm,
 *  then v / |v| (serial, norms in float). */
VMAF_DEVICE_FN void vmaf_speed_dev_qr_vector(const VMAF_SPEED_LOCAL float *reduced,
                                             const VMAF_SPEED_LOCAL float *a, int n, int k,
                                             VMAF_SPEED_LOCAL float *v)
{
    for (int i = 0; i < n; i++)
        v[i] = reduced[i * n + k];
    const float norm = vmaf_speed_norm(v, 0, n, 1);
    v[k] += vmaf_speed_sign(a[k * n + k]) * norm;
    const float v_norm = vmaf_speed_norm(v, 0, n, 1);
    for (int i = 0; i < n; i++)
        v[i] = vmaf_fdiv(v[i], v_norm);
}

/** Entry (i, j) of I - 2 v v^T. */
VMAF_DEVICE_FN float vmaf_speed_dev_reflector_entry(const VMAF_SPEED_LOCAL float *v, int i, int j)
{
    float r = -2 * v[i] * v[j];
    if (i == j) r += 1;
    return r;
}

/** Entry (i, j) of the reduced matrix before step k: the identity in the leading k rows and
 *  columns. */
VMAF_DEVICE_FN float vmaf_speed_dev_reduced_mask(float value, int i, int j, int k)
{
    return (i < k || j < k) ? ((i == j) ? 1.0f : 0.0f) : value;
}

/**
 * One block's solve and variance: y[25] its samples (raster order in the 5x5 block); rhs = P y,
 * back substitution on R (pivots already checked), variance sum_k x[k] y[k] / 25 in k order.
 * singular: x = 0.
 */
VMAF_DEVICE_FN float vmaf_speed_dev_block_variance(const VMAF_SPEED_LOCAL float *p,
                                                   const VMAF_SPEED_LOCAL float *r,
                                                   const VMAF_SPEED_LOCAL float *y, int singular,
                                                   float *x)
{
    enum { N = VMAF_SPEED_DEV_N };
    if (singular) {
        for (int i = 0; i < N; i++)
            x[i] = 0.0f;
    } else {
        float rhs[N];
        for (int i = 0; i < N; i++)
            rhs[i] = vmaf_speed_dev_matmul_entry(p, y, i, 0, N, 1);
        for (int i = N - 1; i >= 0; i--) {
            float xi = rhs[i];
            for (int k = i + 1; k < N; k++)
                xi -= x[k] * r[i * N + k];
            x[i] = vmaf_fdiv(xi, r[i * N + i]);
        }
    }
    float var = vmaf_fdiv(x[0] * y[0], (float)N);
    for (int k = 1; k < N; k++)
        var += vmaf_fdiv(x[k] * y[k], (float)N);
    return var;
}

/** Any pivot of R below eps in magnitude. */
VMAF_DEVICE_FN int vmaf_speed_dev_bad_pivot(const VMAF_SPEED_LOCAL float *r)
{
    for (int i = 0; i < VMAF_SPEED_DEV_N; i++)
        if (vmaf_speed_below_eps(vmaf_fabsf(r[i * VMAF_SPEED_DEV_N + i]))) return 1;
    return 0;
}

#endif /* VMAF_FEATURE_SPEED_DEVICE_H */
