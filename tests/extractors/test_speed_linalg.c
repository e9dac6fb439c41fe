/*
 * Unit test of SpEED's numerical pieces (src/feature/speed_linalg.c, speed_scale.c,
 * speed_core.c) on inputs with known answers:
 *   - eigenvalues of diagonal, tridiagonal Toeplitz (closed form), Q diag(l) Q^T (25x25),
 *     1x1, 2x2, rank-1 (singular) and near-singular matrices, and the regularity decision;
 *     a NaN matrix must stop after the sweep limit and report it;
 *   - the QR solve: identity (exact), random regular systems against a known X, singular and
 *     near-singular pivots on both sides of the 1e-6 threshold;
 *   - the covariance sum against an independent evaluation of its lane order (exact) and a
 *     long double sum (close), the covariance matrix of constant and random images;
 *   - stage sizes, filters and resamplers, and whole-engine scores that must be 0.
 * Exit status 0 when every check passes; each failure prints what and where.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/speed.h"
#include "libvmaf/libvmaf.h"
#include "libvmaf/picture.h"
#include "test_util.h"

static uint64_t uniform_state = 0x2545f4914f6cdd1dull;

static double uniform(void) /* [0, 1) */
{
    uniform_state ^= uniform_state << 13;
    uniform_state ^= uniform_state >> 7;
    uniform_state ^= uniform_state << 17;
    return (double)(uniform_state >> 11) / 9007199254740992.0;
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { N = VMAF_SPEED_BLOCK_ELEMS };

static float eigen_scratch[VMAF_SPEED_EIGEN_SCRATCH(64)];

/* Eigenvalues of a (n x n), sorted ascending, compared with expected (sorted here too). */
static void expect_eigenvalues(const char *what, const float *a, int n, double *expected,
                               double tol)
{
    float eig[64];
    const int stalled = vmaf_speed_eigenvalues(a, n, eig, eigen_scratch);
    CHECK(!stalled, "%s: eigenvalue iteration did not converge", what);
    qsort(eig, (size_t)n, sizeof(float), cmp_float);
    qsort(expected, (size_t)n, sizeof(double), cmp_double);
    double worst = 0;
    int at = 0;
    for (int i = 0; i < n; i++) {
        const double err = fabs(eig[i] - expected[i]);
        if (err > worst) {
            worst = err;
            at = i;
        }
    }
    CHECK(worst <= tol, "%s: eigenvalue %d is %.9g, expected %.9g (tolerance %g)", what, at,
          eig[at], expected[at], tol);
}

/* Orthogonal Q = I - 2 u u^T / |u|^2 for a random u, in double. */
static void random_reflection(double *q, int n)
{
    double u[64], norm2 = 0;
    for (int i = 0; i < n; i++) {
        u[i] = uniform() - 0.5;
        norm2 += u[i] * u[i];
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            q[i * n + j] = (i == j) - 2 * u[i] * u[j] / norm2;
}

/* a = Q diag(l) Q^T rounded to float, symmetric by construction. */
static void spectral_matrix(float *a, const double *l, int n)
{
    double q[64 * 64];
    random_reflection(q, n);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += q[i * n + k] * l[k] * q[j * n + k];
            a[i * n + j] = a[j * n + i] = (float)s;
        }
    }
}

static void test_eigenvalues(void)
{
    float a[64 * 64];
    double expected[64];

    /* 1x1: the entry itself */
    a[0] = -3.5f;
    float one;
    CHECK(vmaf_speed_eigenvalues(a, 1, &one, eigen_scratch) == 0 && one == -3.5f,
          "1x1: got %g", one);

    /* 2x2 [[2,1],[1,2]]: 1 and 3 */
    const float two[4] = { 2, 1, 1, 2 };
    expected[0] = 1;
    expected[1] = 3;
    expect_eigenvalues("2x2", two, 2, expected, 1e-6);

    /* diagonal 25x25: the diagonal, exactly (no off-diagonal work to do) */
    memset(a, 0, sizeof(float) * N * N);
    for (int i = 0; i < N; i++) {
        a[i * N + i] = (float)(i * 3 - 20);
        expected[i] = i * 3 - 20;
    }
    expect_eigenvalues("diagonal", a, N, expected, 0);

    /* tridiagonal Toeplitz 2, -1: 2 - 2 cos(k pi / (n + 1)) */
    memset(a, 0, sizeof(float) * N * N);
    for (int i = 0; i < N; i++) {
        a[i * N + i] = 2;
        if (i + 1 < N) a[i * N + i + 1] = a[(i + 1) * N + i] = -1;
        expected[i] = 2 - 2 * cos((i + 1) * M_PI / (N + 1));
    }
    expect_eigenvalues("toeplitz", a, N, expected, 2e-6);

    /* dense 25x25 with known spectrum spread over six decades */
    for (int i = 0; i < N; i++)
        expected[i] = pow(10.0, -3 + 6.0 * i / (N - 1));
    double spectrum[N];
    memcpy(spectrum, expected, sizeof(spectrum));
    spectral_matrix(a, spectrum, N);
    expect_eigenvalues("Q diag Q^T", a, N, expected, 1e3 * 2e-6);

    /* rank 1 (singular): v v^T has |v|^2 once and 0 otherwise; not regular */
    float v[N], eig[N];
    double vv = 0;
    for (int i = 0; i < N; i++) {
        v[i] = (float)(i % 7) - 3;
        vv += (double)v[i] * v[i];
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i * N + j] = v[i] * v[j];
    for (int i = 0; i < N; i++)
        expected[i] = i == N - 1 ? vv : 0;
    expect_eigenvalues("rank 1", a, N, expected, vv * 1e-6);
    vmaf_speed_eigenvalues(a, N, eig, eigen_scratch);
    CHECK(!vmaf_speed_is_regular(eig, N), "rank 1: reported regular");

    /* near-singular: smallest eigenvalue 1e-8 (below the threshold) and 1e-3 (above) */
    for (int i = 0; i < N; i++)
        spectrum[i] = 1 + i;
    spectrum[7] = 1e-8;
    spectral_matrix(a, spectrum, N);
    vmaf_speed_eigenvalues(a, N, eig, eigen_scratch);
    CHECK(!vmaf_speed_is_regular(eig, N), "near-singular 1e-8: reported regular");
    spectrum[7] = 1e-3;
    for (int i = 0; i < N; i++) /* a diagonal keeps the tiny eigenvalue exact */
        for (int j = 0; j < N; j++)
            a[i * N + j] = i == j ? (float)spectrum[i] : 0.0f;
    vmaf_speed_eigenvalues(a, N, eig, eigen_scratch);
    CHECK(vmaf_speed_is_regular(eig, N), "eigenvalue 1e-3: reported singular");
    const float threshold[2] = { 1.0001e-6f, 0.999e-6f };
    CHECK(vmaf_speed_is_regular(threshold, 1) && !vmaf_speed_is_regular(threshold + 1, 1),
          "regularity threshold is not 1e-6 inclusive");

    /* NaN: must stop at the sweep limit and say so, not loop or crash */
    for (int i = 0; i < N * N; i++)
        a[i] = NAN;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (i != j && abs(i - j) != 1) a[i * N + j] = 0;
    CHECK(vmaf_speed_eigenvalues(a, N, eig, eigen_scratch) == 1,
          "NaN matrix: sweep limit not reported");
    CHECK(!vmaf_speed_is_regular(eig, N) || isnan(eig[0]), "NaN matrix: reported regular");
}

static float solve_scratch[VMAF_SPEED_SOLVE_SCRATCH(N, 64)];

static void test_solve(void)
{
    float a[N * N], b[N * 64], x[N * 64];
    double xd[N * 64];

    /* identity: every reflector is +-1 on the diagonal, so X is B exactly */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i * N + j] = i == j;
    for (int i = 0; i < N * 3; i++)
        b[i] = (float)(uniform() * 200 - 100);
    CHECK(vmaf_speed_solve(a, N, b, 3, x, solve_scratch) == 0, "identity: refused");
    CHECK(!memcmp(x, b, sizeof(float) * N * 3), "identity: X differs from B");

    /* random symmetric positive definite systems with a known solution */
    for (int trial = 0; trial < 4; trial++) {
        double spectrum[N];
        for (int i = 0; i < N; i++)
            spectrum[i] = 1 + 9 * uniform();
        spectral_matrix(a, spectrum, N);
        const int cols = trial == 3 ? 64 : 1 + trial * 7;
        for (int i = 0; i < N * cols; i++)
            xd[i] = uniform() * 2 - 1;
        for (int i = 0; i < N; i++) {
            for (int c = 0; c < cols; c++) {
                double s = 0;
                for (int k = 0; k < N; k++)
                    s += (double)a[i * N + k] * xd[k * cols + c];
                b[i * cols + c] = (float)s;
            }
        }
        CHECK(vmaf_speed_solve(a, N, b, cols, x, solve_scratch) == 0, "SPD %d: refused", trial);
        double worst = 0;
        for (int i = 0; i < N * cols; i++)
            worst = fmax(worst, fabs(x[i] - xd[i]));
        CHECK(worst < 1e-4, "SPD %d (%d columns): max error %g", trial, cols, worst);
    }

    /* singular [[1,1],[1,1]]: the second pivot vanishes */
    const float sing[4] = { 1, 1, 1, 1 }, rhs[2] = { 1, 2 };
    float x2[2];
    CHECK(vmaf_speed_solve(sing, 2, rhs, 1, x2, solve_scratch) == -EINVAL,
          "singular 2x2: not refused");

    /* rank 1 25x25 */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i * N + j] = (float)((i % 5 + 1) * (j % 5 + 1));
    /* rank 1 25x25: exact zero columns appear after the first reflector and the reference's
     * normalisation divides 0 by 0, so the solve alone does not refuse it; it must never
     * claim a finite solution, and the eigenvalue check (which runs first) must reject it */
    {
        const int err = vmaf_speed_solve(a, N, b, 1, x, solve_scratch);
        int finite = 1;
        for (int i = 0; i < N; i++)
            finite &= isfinite(x[i]);
        CHECK(err == -EINVAL || !finite, "rank 1 25x25: a finite solution");
        float eig[N];
        vmaf_speed_eigenvalues(a, N, eig, eigen_scratch);
        CHECK(!vmaf_speed_is_regular(eig, N), "rank 1 25x25: regular");
    }

    /* pivots on both sides of the threshold */
    const float near_ok[4] = { 1, 0, 0, 1e-5f }, near_bad[4] = { 1, 0, 0, 1e-7f };
    CHECK(vmaf_speed_solve(near_ok, 2, rhs, 1, x2, solve_scratch) == 0 &&
              fabs(x2[1] - 2e5) < 2e5 * 1e-5 && fabs(x2[0] - 1) < 1e-6,
          "pivot 1e-5: got %g %g", x2[0], x2[1]);
    CHECK(vmaf_speed_solve(near_bad, 2, rhs, 1, x2, solve_scratch) == -EINVAL,
          "pivot 1e-7: not refused");
}

/* The lane order of vmaf_speed_cov_sum written out independently. */
static double lane_order_sum(const double *x, const double *y, int w, int h)
{
    double lanes[16] = { 0 }, tail = 0;
    const int full16 = w / 16 * 16, extra8 = (w - full16) >= 8 ? 8 : 0;
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
            const double p = x[i * w + j], q = y[i * w + j];
            if (j < full16) lanes[j % 16] = fma(p, q, lanes[j % 16]);
            else if (j < full16 + extra8) lanes[j - full16] = fma(p, q, lanes[j - full16]);
            else tail += p * q;
        }
    }
    double eight[8], four[4];
    for (int t = 0; t < 8; t++) eight[t] = lanes[t] + lanes[t + 8];
    for (int t = 0; t < 4; t++) four[t] = eight[t] + eight[t + 4];
    return (four[0] + four[2]) + (four[1] + four[3]) + tail;
}

static void test_covariance(void)
{
    enum { W = 61, H = 23 };
    static double x[W * H], y[W * H], tiny[W * H];
    for (int i = 0; i < W * H; i++) {
        x[i] = uniform() * 255 - 128;
        y[i] = uniform() * 255 - 128;
        tiny[i] = (uniform() - 0.5) * 2e-3;
    }
    for (int w = 1; w <= W; w++) {
        const double got = vmaf_speed_cov_sum(x, y, (unsigned)w, H);
        const double want = lane_order_sum(x, y, w, H);
        long double exact = 0;
        for (int i = 0; i < w * H; i++)
            exact += (long double)x[i] * y[i];
        CHECK(got == want, "cov_sum w=%d: %.17g, lane order gives %.17g", w, got, want);
        CHECK(fabsl(got - exact) <= 1e-12L * fabsl(exact) + 1e-9L, "cov_sum w=%d: far from exact", w);
    }

    /* every implementation this CPU runs, grouped 1..7 y windows, equals the lane order */
    VmafSpeedCovSumsFn fns[8];
    const char *names[8];
    const int n_impl = vmaf_speed_cov_sums_impls(fns, names, 8);
    CHECK(n_impl >= 1, "no cov_sums implementation");
    const double *ys[7] = { y, tiny, x, y + 3, tiny + 5, x + 1, y + 7 };
    for (int f = 0; f < n_impl; f++) {
        for (int w = 1; w <= W - 7; w++) {
            for (unsigned n = 1; n <= 7; n++) {
                double out[7];
                fns[f](x, ys, n, (unsigned)w, H - 1, out);
                for (unsigned g = 0; g < n; g++) {
                    const double want = lane_order_sum(x, ys[g], w, H - 1);
                    CHECK(out[g] == want, "cov_sums %s w=%d group %u/%u: %.17g, want %.17g",
                          names[f], w, g, n, out[g], want);
                }
            }
        }
    }

    /* the lanes must really be fused: lane 0 gets -1 * 1, then (1 + 2^-30)(1 - 2^-30) =
     * 1 - 2^-60, which rounds to 1 on its own; fused, the sum is -2^-60, unfused 0 */
    {
        double xs[32] = { 0 }, yv[32] = { 0 };
        xs[0] = -1;
        yv[0] = 1;
        xs[16] = 1 + 0x1p-30;
        yv[16] = 1 - 0x1p-30;
        for (int f = 0; f < n_impl; f++) {
            const double *yp = yv;
            double got;
            fns[f](xs, &yp, 1, 16, 2, &got);
            CHECK(got == -0x1p-60, "cov_sums %s: lanes not fused: %a", names[f], got);
        }
        /* the serial tail (w = 3) is not fused */
        double xt[6] = { -1, 0, 0, 1 + 0x1p-30, 0, 0 }, yt[6] = { 1, 0, 0, 1 - 0x1p-30, 0, 0 };
        CHECK(vmaf_speed_cov_sum(xt, yt, 3, 2) == 0.0, "cov_sum tail fused");
    }

    /* covariance matrix: zero for a constant image, symmetric, variances on the diagonal */
    VmafSpeedDims d;
    CHECK(vmaf_speed_dims_init(&d, 16 * 20, 16 * 11, 1.0) == 0, "dims 320x176");
    const ptrdiff_t stride = 24;
    static float down[24 * 12];
    float means[N], cov[N * N], eig[N];
    static double work[N * 20 * 8];
    CHECK(VMAF_SPEED_COV_WORK(&d) <= sizeof(work) / sizeof(work[0]), "work size");
    for (int i = 0; i < 24 * 12; i++)
        down[i] = 7.0f;
    vmaf_speed_covariance(&d, down, stride, means, cov, work);
    int zero = 1;
    for (int i = 0; i < N * N; i++)
        zero &= cov[i] == 0.0f;
    CHECK(zero && means[0] == 7.0f, "constant image: covariance not 0");
    vmaf_speed_eigenvalues(cov, N, eig, eigen_scratch);
    CHECK(!vmaf_speed_is_regular(eig, N), "constant image: covariance regular");

    for (int i = 0; i < 24 * 12; i++)
        down[i] = (float)(uniform() * 100);
    vmaf_speed_covariance(&d, down, stride, means, cov, work);
    int symmetric = 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            symmetric &= cov[i * N + j] == cov[j * N + i];
    CHECK(symmetric, "covariance not symmetric");
    for (int k = 0; k < N; k++) {
        const int r = k / 5, c = k % 5;
        double mean = 0, var = 0;
        for (unsigned i = 0; i < d.sub_h; i++)
            for (unsigned j = 0; j < d.sub_w; j++)
                mean += down[(r + i) * stride + c + j];
        mean /= d.sub_w * d.sub_h;
        for (unsigned i = 0; i < d.sub_h; i++)
            for (unsigned j = 0; j < d.sub_w; j++)
                var += pow(down[(r + i) * stride + c + j] - mean, 2);
        var /= d.sub_w * d.sub_h;
        CHECK(fabs(means[k] - mean) < 1e-4 && fabs(cov[k * N + k] - var) < 1e-3 * var,
              "window %d: mean %g/%g variance %g/%g", k, means[k], mean, cov[k * N + k], var);
    }
}

static void test_dims_and_filters(void)
{
    VmafSpeedDims d;
    CHECK(vmaf_speed_dims_init(&d, 1920, 1080, 1.0) == 0 && d.down_w == 120 && d.down_h == 67 &&
              d.trunc_w == 120 && d.trunc_h == 65 && d.num_blocks == 24 * 13 &&
              d.sub_w == 116 && d.sub_h == 61 && !d.resample,
          "dims 1920x1080");
    CHECK(vmaf_speed_dims_init(&d, 128, 72, 1.0) == -EINVAL, "dims 128x72 accepted");
    CHECK(vmaf_speed_dims_init(&d, 160, 90, 0.5) == -EINVAL, "dims 160x90 at 0.5 accepted");
    CHECK(vmaf_speed_dims_init(&d, 1001, 901, 0.5) == 0 && d.scaled_w == 501 &&
              d.scaled_h == 451 && d.resample && d.down_w == 31 && d.down_h == 28,
          "dims rounding (int)(x * ps + 0.5)");
    CHECK(vmaf_speed_dims_init(&d, 257, 145, 0.5) == -EINVAL && d.scaled_w == 129 &&
              d.scaled_h == 73, "dims 257x145 at 0.5 (kite, refused by the reference)");
    CHECK(vmaf_speed_dims_init(&d, 576, 324, 1.0009) == 0 && !d.resample && d.scaled_w == 577,
          "dims prescale within tolerance");

    static const struct { int scale; float ks; int width; } widths[] = {
        { 1, 1.0f, 9 }, { 4, 1.0f, 3 }, { 1, 1.5f, 15 }, { 4, 1.5f, 3 }, { 1, 2.0f, 19 },
        { 4, 2.0f, 5 }, { 1, 360.0f / 97.0f, 35 }, { 4, 360.0f / 97.0f, 9 }, { 1, 0.5f, 5 },
    };
    for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
        CHECK(vmaf_speed_filter_width(widths[i].scale, widths[i].ks) == widths[i].width,
              "filter width scale %d ks %g: %d", widths[i].scale, widths[i].ks,
              vmaf_speed_filter_width(widths[i].scale, widths[i].ks));
    CHECK(vmaf_speed_check_kernelscale(1.5f) == 0 && vmaf_speed_check_kernelscale(0.9f) < 0,
          "kernelscale validation");
    enum VmafSpeedScaleMethod m;
    CHECK(vmaf_speed_scale_method("lanczos4", &m) == 0 && m == VMAF_SPEED_SCALE_LANCZOS4 &&
              vmaf_speed_scale_method("area", &m) < 0 && vmaf_speed_scale_method(NULL, &m) < 0,
          "scale method names");

    float f[VMAF_SPEED_MAX_FILTER];
    for (int which = 0; which < 2; which++) {
        const int width = vmaf_speed_filter_width(which ? 4 : 1, 1.5f);
        if (which) vmaf_speed_mean_filter(f, 1.5f);
        else vmaf_speed_antialias_filter(f, 1.5f);
        double sum = 0;
        int sym = 1, peak = 1;
        for (int i = 0; i < width; i++) {
            sum += f[i];
            sym &= f[i] == f[width - 1 - i];
            peak &= i == width / 2 || f[i] < f[width / 2];
        }
        CHECK(fabs(sum - 1) < 1e-6 && sym && peak, "filter %d: sum %g, symmetric %d", which,
              sum, sym);
    }

    /* filter_decimate: a constant image stays constant (to rounding) at every kept sample */
    enum { IW = 100, IH = 90 };
    static float src[IW * IH], dst[(IW / 16) * (IH / 16)], tmp[IW];
    for (int i = 0; i < IW * IH; i++)
        src[i] = 3.0f;
    vmaf_speed_antialias_filter(f, 1.0f);
    vmaf_speed_filter_decimate(f, 9, src, IW, IW, IH, 16, dst, IW / 16, tmp);
    int flat = 1;
    for (int i = 0; i < (IW / 16) * (IH / 16); i++)
        flat &= fabsf(dst[i] - 3.0f) < 1e-5f;
    CHECK(flat, "filter_decimate of a constant");

    /* resamplers: constants stay constant, nearest 2x repeats, same size copies */
    static float up[2 * IW];
    for (int method = 0; method < 4; method++) {
        VmafSpeedScaler s;
        CHECK(vmaf_speed_scaler_init(&s, (enum VmafSpeedScaleMethod)method, IW, IH, 2 * IW,
                                     2 * IH) == 0, "scaler %d init", method);
        int ok = 1;
        for (unsigned y = 0; y < 2 * IH; y += 7) {
            vmaf_speed_scale_row(&s, src, IW, y, up);
            for (int x = 0; x < 2 * IW; x++)
                ok &= fabsf(up[x] - 3.0f) < 1e-5f;
        }
        CHECK(ok, "scaler %d: constant not preserved", method);
        vmaf_speed_scaler_close(&s);
    }
    for (int i = 0; i < IW * IH; i++)
        src[i] = (float)i;
    VmafSpeedScaler s;
    vmaf_speed_scaler_init(&s, VMAF_SPEED_SCALE_NEAREST, IW, IH, 2 * IW, 2 * IH);
    vmaf_speed_scale_row(&s, src, IW, 11, up);
    CHECK(up[0] == src[5 * IW] && up[1] == src[5 * IW] && up[2 * IW - 1] == src[6 * IW - 1],
          "nearest 2x");
    vmaf_speed_scaler_close(&s);
    vmaf_speed_scaler_init(&s, VMAF_SPEED_SCALE_BICUBIC, IW, IH, IW, IH);
    vmaf_speed_scale_row(&s, src, IW, 4, up);
    CHECK(s.copy && !memcmp(up, src + 4 * IW, IW * sizeof(float)), "same size: not a copy");
    vmaf_speed_scaler_close(&s);
}

static void test_engine(void)
{
    enum { W = 240, H = 176 };
    static uint16_t a[W * H], b[W * H], flat[W * H];
    for (int i = 0; i < W * H; i++) {
        a[i] = (uint16_t)(uniform() * 1024);
        b[i] = (uint16_t)(a[i] ^ (uniform() < 0.2 ? 7 : 0));
        flat[i] = 512;
    }
    const VmafSpeedOptions opt = {
        .kernelscale = 1.0, .prescale = 1.0, .prescale_method = "nearest",
        .sigma_nn = 0.29, .nn_floor = 0.0, .max_val = 1000.0,
    };
    VmafSpeedEngine e;
    CHECK(vmaf_speed_engine_init(&e, &opt, W, H, "test", VMAF_LOG_LEVEL_NONE) == 0, "engine init");
    const VmafSpeedSource sa = { .a = a, .a_stride = W * 2, .bpc = 10 };
    const VmafSpeedSource sb = { .a = b, .a_stride = W * 2, .bpc = 10 };
    const VmafSpeedSource sf = { .a = flat, .a_stride = W * 2, .bpc = 10 };
    const VmafSpeedSource zero_diff = { .a = a, .a_stride = W * 2, .b = a, .b_stride = W * 2,
                                        .bpc = 10 };
    float score = -1;
    CHECK(vmaf_speed_score(&e, &sa, &sa, &score) == 0 && score == 0.0f,
          "same image: score %g", score);
    CHECK(vmaf_speed_score(&e, &sa, &sb, &score) == 0 && score > 0.0f && isfinite(score),
          "different images: score %g", score);
    CHECK(vmaf_speed_score(&e, &sa, &sf, &score) == 1 && score == 0.0f,
          "one flat image: score %g (the reference's 0)", score);
    CHECK(vmaf_speed_score(&e, &zero_diff, &sf, &score) == 1 && score == 0.0f,
          "both singular: score %g", score);
    vmaf_speed_engine_close(&e);

    VmafSpeedOptions bad = opt;
    bad.kernelscale = 0.9;
    CHECK(vmaf_speed_engine_init(&e, &bad, W, H, "test", VMAF_LOG_LEVEL_NONE) == -EINVAL,
          "kernelscale 0.9 accepted");
    bad = opt;
    bad.prescale_method = "area";
    CHECK(vmaf_speed_engine_init(&e, &bad, W, H, "test", VMAF_LOG_LEVEL_NONE) == -EINVAL,
          "method area accepted");
    CHECK(vmaf_speed_engine_init(&e, &opt, 79, H, "test", VMAF_LOG_LEVEL_NONE) == -EINVAL,
          "79 wide accepted");
    vmaf_speed_engine_close(&e);
}

/*
 * Through the public API: speed_chroma and speed_temporal on the same content stored at
 * every depth 8..16 (samples v << (bpc-8)) must give the same scores, since the model sees
 * v - 128 at every depth; 4:0:0 is refused for speed_chroma; a prescale > 1 with
 * speed_temporal works (the reference overruns its buffers there).
 */
static void fill_plane(VmafPicture *p, int plane, unsigned frame, unsigned seed)
{
    for (unsigned i = 0; i < p->h[plane]; i++) {
        for (unsigned j = 0; j < p->w[plane]; j++) {
            /* smooth content plus a little noise, per frame and plane */
            const unsigned v8 = (unsigned)(128 + 60 * sin(0.05 * (i + 3 * frame) + 0.03 * j * (plane + 1)) +
                                           ((i * 7 + j * 13 + seed * 31 + frame * 17) % 9));
            const unsigned v = (v8 > 255 ? 255 : v8) << (p->bpc - 8);
            if (p->bpc == 8)
                ((uint8_t *)p->data[plane])[i * p->stride[plane] + j] = (uint8_t)v;
            else
                ((uint16_t *)((uint8_t *)p->data[plane] + i * p->stride[plane]))[j] = (uint16_t)v;
        }
    }
}

/* Score `frames` frames; out[frame * 4 + k]: speed_chroma u, v, uv, speed_temporal. */
static int run_api(enum VmafPixelFormat fmt, unsigned bpc, const char *temporal_opts,
                   unsigned frames, double *out)
{
    enum { W = 640, H = 480 };
    VmafContext *v;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    if (vmaf_init(&v, cfg)) return -1;
    VmafFeatureDictionary *d = NULL;
    if (temporal_opts) {
        char key[64], val[64];
        if (sscanf(temporal_opts, "%63[^=]=%63s", key, val) == 2)
            vmaf_feature_dictionary_set(&d, key, val);
    }
    int err = vmaf_use_feature(v, "speed_chroma", NULL);
    err = err ? err : vmaf_use_feature(v, "speed_temporal", d);
    for (unsigned f = 0; !err && f < frames; f++) {
        VmafPicture r, s;
        if (vmaf_picture_alloc(&r, fmt, bpc, W, H)) return -1;
        if (vmaf_picture_alloc(&s, fmt, bpc, W, H)) return -1;
        for (int p = 0; p < (fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3); p++) {
            fill_plane(&r, p, f, 1);
            fill_plane(&s, p, f, 2 + (f % 2));
        }
        err = read_pictures_or_release(v, &r, &s, f);
    }
    if (!err) err = vmaf_read_pictures(v, NULL, NULL, 0);
    static const char *const names[4] = { "speed_chroma_u", "speed_chroma_v", "speed_chroma_uv",
                                          "speed_temporal" };
    for (unsigned f = 0; !err && f < frames; f++)
        for (int k = 0; k < 4 && !err; k++) {
            char name[128];
            if (k == 3 && temporal_opts)
                snprintf(name, sizeof(name), "speed_temporal_ps_2"); /* suffixed: the alias */
            else if (k == 3)
                snprintf(name, sizeof(name), "Speed_temporal_feature_speed_temporal_score");
            else
                snprintf(name, sizeof(name), "Speed_chroma_feature_%s_score", names[k]);
            err = vmaf_feature_score_at_index(v, name, &out[f * 4 + k], f);
        }
    vmaf_close(v);
    return err;
}

static void test_api(void)
{
    enum { FRAMES = 3 };
    double base[FRAMES * 4], other[FRAMES * 4];
    CHECK(run_api(VMAF_PIX_FMT_YUV420P, 8, NULL, FRAMES, base) == 0, "8-bit run failed");
    CHECK(base[3] == 0.0 && base[7] > 0.0 && base[2] > 0.0, "8-bit scores: temporal %g %g uv %g",
          base[3], base[7], base[2]);
    for (unsigned bpc = 9; bpc <= 16; bpc++) {
        memset(other, 0, sizeof(other));
        CHECK(run_api(VMAF_PIX_FMT_YUV420P, bpc, NULL, FRAMES, other) == 0, "%u-bit run", bpc);
        CHECK(!memcmp(base, other, sizeof(base)), "%u-bit scores differ from 8-bit", bpc);
    }
    CHECK(run_api(VMAF_PIX_FMT_YUV400P, 8, NULL, 1, other) != 0, "4:0:0 speed_chroma accepted");
    CHECK(run_api(VMAF_PIX_FMT_YUV444P, 10, "speed_prescale=2", FRAMES, other) == 0 &&
              other[3] == 0.0 && other[7] > 0.0 && isfinite(other[11]) && other[7] != base[7],
          "speed_temporal prescale 2: %g %g %g", other[3], other[7], other[11]);
}

int main(void)
{
    test_eigenvalues();
    test_solve();
    test_covariance();
    test_dims_and_filters();
    test_engine();
    test_api();
    if (failures) {
        fprintf(stderr, "test_speed_linalg: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_speed_linalg: %d checks passed\n", checks);
    return 0;
}
