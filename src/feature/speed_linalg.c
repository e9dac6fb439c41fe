/*
 * Twin VMAF — SpEED linear algebra: the covariance matrix of the 25 shifted windows, the
 * eigenvalues of a symmetric matrix, and the least-squares solve K X = Y.
 *
 * All in float (the covariance sums in double), in the reference's operation order, which
 * is part of the metric's definition:
 *   - eigenvalues: Householder reduction to tridiagonal form (as GSL's symmtd), then
 *     implicit symmetric QR sweeps with Wilkinson shifts and Givens rotations (as GSL's
 *     eigen/symm), deflating off-diagonal entries below 1e-6 (|d_i| + |d_i+1|);
 *   - solve: Householder QR where every reflector is formed as a full matrix I - 2 v v^T
 *     and applied by a full matrix product; R = P A, then back substitution on P B.
 * Where the reference rounds a double expression to float (square roots, 1/sqrt in the
 * Givens rotation, halving), so do we.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "speed.h"
#include "speed_device.h"

/* The element functions (norms, Householder steps, the QR sweep, the QR reflectors) are in
 * speed_device.h, shared with the CUDA twin. */

#if defined(__GNUC__)
#define LINALG_INLINE static inline __attribute__((always_inline))
#else
#define LINALG_INLINE static inline
#endif

/* ---- eigenvalues ------------------------------------------------------------------------- */

/* Reduce the symmetric a (destroyed) to tridiagonal form: diagonal diag[n], subdiagonal
 * sub[n-1]. v and w are n-float work vectors. */
static void tridiagonalize(float *a, int n, float *diag, float *sub, float *v, float *w)
{
    for (int i = 0; i + 2 < n; i++) {
        const int s = i + 1; /* the trailing block [s, n) is transformed */
        const float tau = vmaf_speed_householder_column(a, n, i, s);
        for (int j = s; j < n; j++)
            v[j] = a[j * n + i];
        if (tau == 0.0f) continue;
        v[s] = 1.0f;

        /* w = tau A v; w -= (tau/2) (w . v) v; A -= w v^T + v w^T */
        for (int r = s; r < n; r++)
            w[r] = vmaf_speed_tridiag_w(a, n, s, tau, v, r);
        const float coef = vmaf_speed_tridiag_coef(tau, vmaf_speed_tridiag_wv(w, v, n, s));
        for (int r = s; r < n; r++)
            w[r] += coef * v[r];
        for (int r = s; r < n; r++)
            for (int c = s; c < n; c++)
                a[r * n + c] = vmaf_speed_tridiag_update(a[r * n + c], w, v, r, c);
    }
    for (int i = 0; i < n; i++)
        diag[i] = a[i * n + i];
    for (int i = 0; i + 1 < n; i++)
        sub[i] = a[(i + 1) * n + i];
}

int vmaf_speed_eigenvalues(const float *a, int n, float *eigenvalues, float *scratch)
{
    float *m = scratch;
    float *diag = m + (size_t)n * n;
    float *sub = diag + n;
    float *v = sub + n;
    float *w = v + n;

    if (n == 1) {
        eigenvalues[0] = a[0];
        return 0;
    }
    memcpy(m, a, (size_t)n * n * sizeof(float));
    tridiagonalize(m, n, diag, sub, v, w);
    const int stalled =
        vmaf_speed_tridiagonal_eigenvalues(diag, sub, n, VMAF_SPEED_EIGEN_MAX_ITERS);
    memcpy(eigenvalues, diag, (size_t)n * sizeof(float));
    return stalled;
}

bool vmaf_speed_is_regular(const float *eigenvalues, int n)
{
    for (int i = 0; i < n; i++)
        if (eigenvalues[i] < VMAF_SPEED_EIGEN_EPS) return false;
    return true;
}

/* ---- least squares ----------------------------------------------------------------------- */

/* dst (rows x cols) = x (rows x inner) * y (inner x cols); each entry sums its products in
 * ascending inner index starting from 0. dst must not alias x or y. */
LINALG_INLINE void matmul(float *dst, const float *x, const float *y, int rows, int inner, int cols)
{
    for (int i = 0; i < rows; i++) {
        float *d = dst + (size_t)i * cols;
        for (int j = 0; j < cols; j++)
            d[j] = 0.0f;
        for (int k = 0; k < inner; k++) {
            const float xik = x[(size_t)i * inner + k];
            const float *yk = y + (size_t)k * cols;
            for (int j = 0; j < cols; j++)
                d[j] += xik * yk[j];
        }
    }
}

/*
 * P (n x n) such that R = P A is upper triangular: P = H_{n-2} ... H_0, each H_k = I - 2 v v^T
 * built from column k of the partly reduced matrix (with its leading k rows and columns
 * replaced by the identity), the sign of v's pivot taken from A's own diagonal.
 */
LINALG_INLINE void householder_qr(const float *a, int n, float *p, float *r, float *reflector,
                           float *reduced, float *product)
{
    float *v = r; /* R is written last, so its storage serves as the vector */
    memcpy(reduced, a, (size_t)n * n * sizeof(float));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            p[i * n + j] = (i == j) ? 1.0f : 0.0f;

    for (int k = 0; k + 1 < n; k++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                reduced[i * n + j] = vmaf_speed_dev_reduced_mask(reduced[i * n + j], i, j, k);
        vmaf_speed_dev_qr_vector(reduced, a, n, k, v);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                reflector[i * n + j] = vmaf_speed_dev_reflector_entry(v, i, j);

        matmul(product, reflector, reduced, n, n, n);
        memcpy(reduced, product, (size_t)n * n * sizeof(float));
        matmul(product, reflector, p, n, n, n);
        memcpy(p, product, (size_t)n * n * sizeof(float));
    }
    matmul(r, p, a, n, n, n);
}

/* Back substitution R X = C for upper triangular R; -EINVAL on a pivot below eps. */
LINALG_INLINE int back_substitute(const float *r, int n, const float *c, int cols, float *x)
{
    for (int i = n - 1; i >= 0; i--) {
        const float pivot = r[i * n + i];
        if (fabsf(pivot) < VMAF_SPEED_EIGEN_EPS) return -EINVAL;
        float *xi = x + (size_t)i * cols;
        memcpy(xi, c + (size_t)i * cols, (size_t)cols * sizeof(float));
        for (int k = i + 1; k < n; k++) {
            const float rik = r[i * n + k];
            const float *xk = x + (size_t)k * cols;
            for (int j = 0; j < cols; j++)
                xi[j] -= xk[j] * rik;
        }
        for (int j = 0; j < cols; j++)
            xi[j] = xi[j] / pivot;
    }
    return 0;
}

LINALG_INLINE int solve_impl(const float *a, int n, const float *b, int b_cols, float *x,
                             float *scratch)
{
    const size_t nn = (size_t)n * n;
    float *p = scratch;
    float *r = p + nn;
    float *reflector = r + nn;
    float *reduced = reflector + nn;
    float *product = reduced + nn;
    float *rhs = product + nn;

    householder_qr(a, n, p, r, reflector, reduced, product);
    matmul(rhs, p, b, n, n, b_cols);
    return back_substitute(r, n, rhs, b_cols, x);
}

static int solve_plain(const float *a, int n, const float *b, int b_cols, float *x,
                       float *scratch)
{
    return solve_impl(a, n, b, b_cols, x, scratch);
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(VMAF_SPEED_NO_SIMD)
#define LINALG_HAVE_AVX2 1
/* the same element-wise float operations, eight at a time */
__attribute__((target("avx2")))
static int solve_avx2(const float *a, int n, const float *b, int b_cols, float *x,
                      float *scratch)
{
    return solve_impl(a, n, b, b_cols, x, scratch);
}
#endif

int vmaf_speed_solve(const float *a, int n, const float *b, int b_cols, float *x,
                     float *scratch)
{
#ifdef LINALG_HAVE_AVX2
    if (__builtin_cpu_supports("avx2"))
        return solve_avx2(a, n, b, b_cols, x, scratch);
#endif
    return solve_plain(a, n, b, b_cols, x, scratch);
}

/* ---- covariance -------------------------------------------------------------------------- */

/*
 * The reference evaluates each covariance sum with 16 fused multiply-add lanes over the
 * centred values (double)x - mean of the two windows (AVX-512: two 8-lane accumulators).
 * Here the centred values are computed once per window (the same doubles), and one x
 * window is swept against up to VMAF_SPEED_COV_GROUP y windows at a time, which reads x
 * once for all of them; each sum keeps its own lanes, tail and order.
 */

#define fold_lanes vmaf_speed_fold_lanes

static void cov_sums_c(const double *x, const double *const *ys, unsigned n, unsigned w,
                       unsigned h, double *out)
{
    const unsigned w16 = w / 16 * 16, w8 = (w - w16) >= 8 ? w16 + 8 : w16;
    for (unsigned g = 0; g < n; g++) {
        double lane[16] = { 0 };
        double tail = 0.0;
        for (unsigned i = 0; i < h; i++) {
            const double *px = x + (size_t)i * w, *py = ys[g] + (size_t)i * w;
            for (unsigned j = 0; j < w16; j += 16)
                for (unsigned t = 0; t < 16; t++)
                    lane[t] = fma(px[j + t], py[j + t], lane[t]);
            for (unsigned t = 0; w16 + t < w8; t++)
                lane[t] = fma(px[w16 + t], py[w16 + t], lane[t]);
            for (unsigned j = w8; j < w; j++)
                tail += px[j] * py[j];
        }
        out[g] = fold_lanes(lane, tail);
    }
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(VMAF_SPEED_NO_SIMD)
#include <immintrin.h>
#define SPEED_HAVE_X86 1

/* 16 lanes per sum as four 4-wide registers (lanes 0-3, 4-7, 8-11, 12-15); G sums. */
#define COV_AVX2_GROUP(G)                                                                   \
    __attribute__((target("avx2,fma"))) static void cov_sums_avx2_##G(                      \
        const double *x, const double *const *ys, unsigned w, unsigned h, double *out)      \
    {                                                                                       \
        __m256d l[G][4];                                                                    \
        double tail[G];                                                                     \
        for (int g = 0; g < G; g++) {                                                       \
            tail[g] = 0.0;                                                                  \
            for (int q = 0; q < 4; q++)                                                     \
                l[g][q] = _mm256_setzero_pd();                                              \
        }                                                                                   \
        const unsigned w16 = w / 16 * 16, w8 = (w - w16) >= 8 ? w16 + 8 : w16;              \
        for (unsigned i = 0; i < h; i++) {                                                  \
            const double *px = x + (size_t)i * w;                                           \
            const size_t row = (size_t)i * w;                                               \
            for (unsigned j = 0; j < w16; j += 16) {                                        \
                for (int q = 0; q < 4; q++) {                                               \
                    const __m256d vx = _mm256_loadu_pd(px + j + 4 * q);                     \
                    for (int g = 0; g < G; g++)                                             \
                        l[g][q] = _mm256_fmadd_pd(                                          \
                            vx, _mm256_loadu_pd(ys[g] + row + j + 4 * q), l[g][q]);         \
                }                                                                           \
            }                                                                               \
            if (w8 > w16) {                                                                 \
                for (int q = 0; q < 2; q++) {                                               \
                    const __m256d vx = _mm256_loadu_pd(px + w16 + 4 * q);                   \
                    for (int g = 0; g < G; g++)                                             \
                        l[g][q] = _mm256_fmadd_pd(                                          \
                            vx, _mm256_loadu_pd(ys[g] + row + w16 + 4 * q), l[g][q]);       \
                }                                                                           \
            }                                                                               \
            for (int g = 0; g < G; g++)                                                     \
                for (unsigned j = w8; j < w; j++)                                           \
                    tail[g] += px[j] * ys[g][row + j];                                      \
        }                                                                                   \
        double lane[G][16];                                                                 \
        for (int g = 0; g < G; g++)                                                         \
            for (int q = 0; q < 4; q++)                                                     \
                _mm256_storeu_pd(lane[g] + 4 * q, l[g][q]);                                 \
        _mm256_zeroupper(); /* before the SSE code that follows */                          \
        for (int g = 0; g < G; g++)                                                         \
            out[g] = fold_lanes(lane[g], tail[g]);                                          \
    }
COV_AVX2_GROUP(1)
COV_AVX2_GROUP(2)

static void cov_sums_avx2(const double *x, const double *const *ys, unsigned n, unsigned w,
                          unsigned h, double *out)
{
    for (; n >= 2; n -= 2, ys += 2, out += 2)
        cov_sums_avx2_2(x, ys, w, h, out);
    if (n) cov_sums_avx2_1(x, ys, w, h, out);
}

/* 16 lanes per sum as two 8-wide registers (lanes 0-7, 8-15); G sums. */
#define COV_AVX512_GROUP(G)                                                                 \
    __attribute__((target("avx512f"))) static void cov_sums_avx512_##G(                     \
        const double *x, const double *const *ys, unsigned w, unsigned h, double *out)      \
    {                                                                                       \
        __m512d lo[G], hi[G];                                                               \
        double tail[G];                                                                     \
        for (int g = 0; g < G; g++) {                                                       \
            tail[g] = 0.0;                                                                  \
            lo[g] = hi[g] = _mm512_setzero_pd();                                            \
        }                                                                                   \
        const unsigned w16 = w / 16 * 16, w8 = (w - w16) >= 8 ? w16 + 8 : w16;              \
        for (unsigned i = 0; i < h; i++) {                                                  \
            const double *px = x + (size_t)i * w;                                           \
            const size_t row = (size_t)i * w;                                               \
            for (unsigned j = 0; j < w16; j += 16) {                                        \
                const __m512d x0 = _mm512_loadu_pd(px + j), x1 = _mm512_loadu_pd(px + j + 8); \
                for (int g = 0; g < G; g++) {                                               \
                    lo[g] = _mm512_fmadd_pd(x0, _mm512_loadu_pd(ys[g] + row + j), lo[g]);   \
                    hi[g] = _mm512_fmadd_pd(x1, _mm512_loadu_pd(ys[g] + row + j + 8), hi[g]); \
                }                                                                           \
            }                                                                               \
            if (w8 > w16) {                                                                 \
                const __m512d x0 = _mm512_loadu_pd(px + w16);                               \
                for (int g = 0; g < G; g++)                                                 \
                    lo[g] = _mm512_fmadd_pd(x0, _mm512_loadu_pd(ys[g] + row + w16), lo[g]); \
            }                                                                               \
            for (int g = 0; g < G; g++)                                                     \
                for (unsigned j = w8; j < w; j++)                                           \
                    tail[g] += px[j] * ys[g][row + j];                                      \
        }                                                                                   \
        double lane[G][16];                                                                 \
        for (int g = 0; g < G; g++) {                                                       \
            _mm512_storeu_pd(lane[g], lo[g]);                                               \
            _mm512_storeu_pd(lane[g] + 8, hi[g]);                                           \
        }                                                                                   \
        _mm256_zeroupper(); /* before the SSE code that follows */                          \
        for (int g = 0; g < G; g++)                                                         \
            out[g] = fold_lanes(lane[g], tail[g]);                                          \
    }
COV_AVX512_GROUP(1)
COV_AVX512_GROUP(2)
COV_AVX512_GROUP(4)

static void cov_sums_avx512(const double *x, const double *const *ys, unsigned n, unsigned w,
                            unsigned h, double *out)
{
    for (; n >= 4; n -= 4, ys += 4, out += 4)
        cov_sums_avx512_4(x, ys, w, h, out);
    if (n >= 2) {
        cov_sums_avx512_2(x, ys, w, h, out);
        n -= 2, ys += 2, out += 2;
    }
    if (n) cov_sums_avx512_1(x, ys, w, h, out);
}
#endif

int vmaf_speed_cov_sums_impls(VmafSpeedCovSumsFn *fns, const char **names, int max)
{
    int n = 0;
    if (n < max) fns[n] = cov_sums_c, names[n++] = "c";
#ifdef SPEED_HAVE_X86
    if (n < max && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        fns[n] = cov_sums_avx2, names[n++] = "avx2";
    if (n < max && __builtin_cpu_supports("avx512f"))
        fns[n] = cov_sums_avx512, names[n++] = "avx512";
#endif
    return n;
}

static VmafSpeedCovSumsFn cov_sums_best(void)
{
    VmafSpeedCovSumsFn fns[4];
    const char *names[4];
    return fns[vmaf_speed_cov_sums_impls(fns, names, 4) - 1];
}

double vmaf_speed_cov_sum(const double *x, const double *y, unsigned w, unsigned h)
{
    double out;
    cov_sums_best()(x, &y, 1, w, h, &out);
    return out;
}

void vmaf_speed_covariance(const VmafSpeedDims *d, const float *img, ptrdiff_t stride,
                           float *means, float *cov, double *centered)
{
    enum { B = VMAF_SPEED_BLOCK, N = VMAF_SPEED_BLOCK_ELEMS };
    const unsigned sw = d->sub_w, sh = d->sub_h;
    const size_t count = (size_t)sw * sh;
    const VmafSpeedCovSumsFn cov_sums = cov_sums_best();

    /* window means: one float sum per window in row-major order; the 25 independent sums
     * advance together (each keeps its own order) */
    float sum[N] = { 0 };
    for (unsigned i = 0; i < sh; i++) {
        for (unsigned j = 0; j < sw; j++) {
            for (int r = 0; r < B; r++) {
                const float *p = img + (r + i) * stride + j;
                for (int c = 0; c < B; c++)
                    sum[r * B + c] += p[c];
            }
        }
    }
    for (int k = 0; k < N; k++)
        means[k] = sum[k] / (float)count;

    for (int k = 0; k < N; k++) {
        const double mean = means[k];
        double *dst = centered + k * count;
        for (unsigned i = 0; i < sh; i++) {
            const float *src = img + (k / B + i) * stride + k % B;
            for (unsigned j = 0; j < sw; j++)
                dst[(size_t)i * sw + j] = (double)src[j] - mean;
        }
    }
    for (int xi = 0; xi < N; xi++) {
        const double *ys[N];
        double sums[N];
        for (int yi = 0; yi <= xi; yi++)
            ys[yi] = centered + yi * count;
        cov_sums(centered + xi * count, ys, (unsigned)xi + 1, sw, sh, sums);
        for (int yi = 0; yi <= xi; yi++) {
            const float value = (float)(sums[yi] / (double)count);
            cov[xi * N + yi] = value;
            cov[yi * N + xi] = value;
        }
    }
}
