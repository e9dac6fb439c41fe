/*
 * Twin VMAF — SpEED: per-image model (filter, decimate, GSM parameters) and the score.
 *
 * The reference converts the whole plane to float, filters all of it and then keeps every
 * 16th sample. Here only the rows the anti-aliasing filter reaches are converted, and the
 * filter is evaluated only where decimation keeps it; each kept value is computed with the
 * same taps in the same order, so it is the same float.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "speed.h"

int vmaf_speed_dims_init(VmafSpeedDims *d, unsigned w, unsigned h, double prescale)
{
    memset(d, 0, sizeof(*d));
    d->plane_w = w;
    d->plane_h = h;
    d->scaled_w = (unsigned)(int)(w * prescale + 0.5);
    d->scaled_h = (unsigned)(int)(h * prescale + 0.5);
    d->resample = !(fabs(prescale - 1.0) < VMAF_SPEED_PRESCALE_TOLERANCE);
    d->down_w = d->scaled_w >> VMAF_SPEED_NUM_SCALES;
    d->down_h = d->scaled_h >> VMAF_SPEED_NUM_SCALES;
    d->trunc_w = d->down_w / VMAF_SPEED_BLOCK * VMAF_SPEED_BLOCK;
    d->trunc_h = d->down_h / VMAF_SPEED_BLOCK * VMAF_SPEED_BLOCK;
    d->blocks_w = d->trunc_w / VMAF_SPEED_BLOCK;
    d->blocks_h = d->trunc_h / VMAF_SPEED_BLOCK;
    d->num_blocks = d->blocks_w * d->blocks_h;
    if (!d->trunc_w || !d->trunc_h) return -EINVAL;
    d->sub_w = d->trunc_w - VMAF_SPEED_BLOCK + 1;
    d->sub_h = d->trunc_h - VMAF_SPEED_BLOCK + 1;
    return 0;
}

void vmaf_speed_engine_close(VmafSpeedEngine *e)
{
    vmaf_speed_scaler_close(&e->scaler);
    free(e->plane);
    free(e->image);
    free(e->rows_needed);
    free(e->row_tmp);
    free(e->down);
    free(e->mean);
    free(e->means);
    free(e->cov);
    free(e->eigenvalues);
    free(e->centered);
    free(e->indep);
    free(e->solution);
    free(e->scratch);
    free(e->ref.entropies);
    free(e->ref.variances);
    free(e->dis.entropies);
    free(e->dis.variances);
    memset(e, 0, sizeof(*e));
}

static float *alloc_floats(size_t n)
{
    return calloc(n ? n : 1, sizeof(float));
}

int vmaf_speed_engine_init(VmafSpeedEngine *e, const VmafSpeedOptions *opt, unsigned w,
                           unsigned h, const char *who, enum VmafLogLevel log_level)
{
    memset(e, 0, sizeof(*e));
    e->who = who;
    e->log_level = log_level;
    e->debug = getenv("VMAF_SPEED_TWIN_DEBUG") != NULL;

    VmafSpeedDims *d = &e->dims;
    if (vmaf_speed_dims_init(d, w, h, opt->prescale)) {
        vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR,
                 "%s: image too small, operating width or height is 0 (%ux%u plane, "
                 "speed_prescale %g: %ux%u after decimation by 16, 5x5 needed)\n",
                 who, w, h, opt->prescale, d->down_w, d->down_h);
        return -EINVAL;
    }
    const float kernelscale = (float)opt->kernelscale;
    if (vmaf_speed_check_kernelscale(kernelscale)) {
        vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR,
                 "%s: invalid speed_kernelscale %g (not one of the supported values)\n", who,
                 opt->kernelscale);
        return -EINVAL;
    }
    enum VmafSpeedScaleMethod method;
    if (vmaf_speed_scale_method(opt->prescale_method, &method)) {
        vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR,
                 "%s: invalid speed_prescale_method \"%s\" (supported: nearest, bilinear, "
                 "bicubic, lanczos4)\n",
                 who, opt->prescale_method ? opt->prescale_method : "");
        return -EINVAL;
    }
    e->sigma_nn = (float)opt->sigma_nn;
    e->nn_floor = (float)opt->nn_floor;
    e->weight_var_mode = opt->weight_var_mode;
    e->aa_width = vmaf_speed_filter_width(1, kernelscale);
    e->mean_width = vmaf_speed_filter_width(VMAF_SPEED_NUM_SCALES, kernelscale);
    if (e->aa_width > VMAF_SPEED_MAX_FILTER || e->mean_width > VMAF_SPEED_MAX_FILTER) {
        /* cannot happen for a supported kernelscale */
        vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR, "%s: filter of %d taps too long\n", who,
                 e->aa_width);
        return -EINVAL;
    }
    vmaf_speed_antialias_filter(e->aa_filter, kernelscale);
    vmaf_speed_mean_filter(e->mean_filter, kernelscale);

    const size_t nb = d->num_blocks, n = VMAF_SPEED_BLOCK_ELEMS;
    const size_t solve = VMAF_SPEED_SOLVE_SCRATCH(n, nb), eigen = VMAF_SPEED_EIGEN_SCRATCH(n);
    int err = 0;
    if (d->resample) {
        err = vmaf_speed_scaler_init(&e->scaler, method, w, h, d->scaled_w, d->scaled_h);
        if (!err && !(e->plane = alloc_floats((size_t)w * h))) err = -ENOMEM;
    }
    if (err) goto fail;
    e->direct = !d->resample && d->scaled_w == w && d->scaled_h == h;
    e->image = alloc_floats(e->direct ? 1 : (size_t)d->scaled_w * d->scaled_h);
    e->rows_needed = malloc(d->scaled_h);
    e->row_tmp = alloc_floats(d->scaled_w);
    e->down = alloc_floats((size_t)d->down_w * d->down_h);
    e->mean = alloc_floats((size_t)d->down_w * d->down_h);
    e->means = alloc_floats(n);
    e->cov = alloc_floats(n * n);
    e->eigenvalues = alloc_floats(n);
    e->centered = calloc(VMAF_SPEED_COV_WORK(d), sizeof(double));
    e->indep = alloc_floats(n * nb);
    e->solution = alloc_floats(n * nb);
    e->scratch = alloc_floats(solve > eigen ? solve : eigen);
    e->ref.entropies = alloc_floats(nb);
    e->ref.variances = alloc_floats(nb);
    e->dis.entropies = alloc_floats(nb);
    e->dis.variances = alloc_floats(nb);
    if (!e->image || !e->rows_needed || !e->row_tmp || !e->down || !e->mean || !e->means ||
        !e->centered || !e->cov || !e->eigenvalues || !e->indep || !e->solution || !e->scratch ||
        !e->ref.entropies || !e->ref.variances || !e->dis.entropies || !e->dis.variances) {
        err = -ENOMEM;
        goto fail;
    }
    vmaf_speed_rows_needed(e->rows_needed, d->scaled_h, VMAF_SPEED_DECIMATION, e->aa_width);
    return 0;

fail:
    vmaf_speed_engine_close(e);
    return err;
}

/* ---- loading and the first filter --------------------------------------------------------- */

#if defined(__GNUC__)
#define SPEED_INLINE static inline __attribute__((always_inline))
#else
#define SPEED_INLINE static inline
#endif

/*
 * Sample values: s / 2^(bpc-8) - 128 (exact), or the difference of two such values (exact).
 * EACH_SAMPLE(STMT) runs STMT for k in [0, n) with `v` the value of column k of row y.
 */
#define EACH_SAMPLE(STMT)                                                                   \
    do {                                                                                    \
        if (src->bpc == 8) {                                                                \
            const uint8_t *restrict a = (const uint8_t *)src->a + y * src->a_stride;        \
            if (!src->b) {                                                                  \
                for (unsigned k = 0; k < n; k++) {                                          \
                    const float v = (float)a[k] - 128.0f;                                   \
                    STMT;                                                                   \
                }                                                                           \
            } else {                                                                        \
                const uint8_t *restrict b = (const uint8_t *)src->b + y * src->b_stride;    \
                for (unsigned k = 0; k < n; k++) {                                          \
                    const float v = ((float)a[k] - 128.0f) - ((float)b[k] - 128.0f);        \
                    STMT;                                                                   \
                }                                                                           \
            }                                                                               \
        } else {                                                                            \
            const float scale = (float)(1u << (src->bpc - 8));                              \
            const uint16_t *restrict a =                                                    \
                (const uint16_t *)((const uint8_t *)src->a + y * src->a_stride);            \
            if (!src->b) {                                                                  \
                for (unsigned k = 0; k < n; k++) {                                          \
                    const float v = (float)a[k] / scale - 128.0f;                           \
                    STMT;                                                                   \
                }                                                                           \
            } else {                                                                        \
                const uint16_t *restrict b =                                                \
                    (const uint16_t *)((const uint8_t *)src->b + y * src->b_stride);        \
                for (unsigned k = 0; k < n; k++) {                                          \
                    const float v =                                                         \
                        ((float)a[k] / scale - 128.0f) - ((float)b[k] / scale - 128.0f);    \
                    STMT;                                                                   \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
    } while (0)

/* Row y of the source as floats, n columns. */
static void load_row(const VmafSpeedSource *src, unsigned y, unsigned n, float *restrict out)
{
    EACH_SAMPLE(out[k] = v);
}

/*
 * The anti-aliasing filter and decimation straight from the samples (no resampling, image
 * size = plane size): per kept row, tmp = sum over taps of f[t] * (row as floats), then the
 * kept columns. The same products and sums as filtering the converted image.
 */
SPEED_INLINE void decimate_source_impl(VmafSpeedEngine *e, const VmafSpeedSource *src)
{
    const VmafSpeedDims *d = &e->dims;
    const unsigned n = d->plane_w, step = VMAF_SPEED_DECIMATION;
    const int radius = e->aa_width / 2;
    float *restrict tmp = e->row_tmp;
    for (unsigned oi = 0; oi < d->down_h; oi++) {
        for (unsigned k = 0; k < n; k++)
            tmp[k] = 0.0f;
        for (int t = 0; t < e->aa_width; t++) {
            const unsigned y =
                (unsigned)vmaf_speed_reflect((int)(oi * step) - radius + t, (int)d->plane_h);
            const float f = e->aa_filter[t];
            EACH_SAMPLE(tmp[k] += f * v);
        }
        vmaf_speed_filter_kept_columns(e->aa_filter, e->aa_width, tmp, n, step,
                                       e->down + oi * d->down_w);
    }
}

static void decimate_source_plain(VmafSpeedEngine *e, const VmafSpeedSource *src)
{
    decimate_source_impl(e, src);
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(VMAF_SPEED_NO_SIMD)
#define SPEED_HAVE_AVX2 1
__attribute__((target("avx2")))
static void decimate_source_avx2(VmafSpeedEngine *e, const VmafSpeedSource *src)
{
    decimate_source_impl(e, src);
}
#endif

/* Resampled (or, at a prescale within the tolerance of 1, re-sized) image: fill the rows of
 * e->image that the anti-aliasing filter reads, then filter and decimate it. */
static void decimate_image(VmafSpeedEngine *e, const VmafSpeedSource *src)
{
    const VmafSpeedDims *d = &e->dims;
    const size_t stride = d->scaled_w;
    if (d->resample) {
        for (unsigned y = 0; y < d->plane_h; y++)
            load_row(src, y, d->plane_w, e->plane + (size_t)y * d->plane_w);
        for (unsigned y = 0; y < d->scaled_h; y++)
            if (e->rows_needed[y])
                vmaf_speed_scale_row(&e->scaler, e->plane, d->plane_w, y,
                                     e->image + y * stride);
    } else {
        /* the part outside the plane stays 0 (see speed.h) */
        const unsigned rows = d->plane_h < d->scaled_h ? d->plane_h : d->scaled_h;
        const unsigned cols = d->plane_w < d->scaled_w ? d->plane_w : d->scaled_w;
        for (unsigned y = 0; y < rows; y++)
            if (e->rows_needed[y]) load_row(src, y, cols, e->image + y * stride);
    }
    vmaf_speed_filter_decimate(e->aa_filter, e->aa_width, e->image, d->scaled_w, d->scaled_w,
                               d->scaled_h, VMAF_SPEED_DECIMATION, e->down, d->down_w,
                               e->row_tmp);
}

static void decimate(VmafSpeedEngine *e, const VmafSpeedSource *src)
{
    if (!e->direct) {
        decimate_image(e, src);
        return;
    }
#ifdef SPEED_HAVE_AVX2
    if (__builtin_cpu_supports("avx2")) {
        decimate_source_avx2(e, src);
        return;
    }
#endif
    decimate_source_plain(e, src);
}

/* ---- the GSM model ---------------------------------------------------------------------- */

static void warn_once(VmafSpeedEngine *e, unsigned *count, const char *what)
{
    if ((*count)++ == 0)
        vmaf_log(e->log_level, VMAF_LOG_LEVEL_WARNING, "%s: %s (reported once)\n", e->who,
                 what);
}

/* The reference's est_params on the mean-removed decimated image. 1: singular. */
static int estimate(VmafSpeedEngine *e, const float *img, ptrdiff_t stride,
                    VmafSpeedResult *out)
{
    enum { B = VMAF_SPEED_BLOCK, N = VMAF_SPEED_BLOCK_ELEMS };
    const VmafSpeedDims *d = &e->dims;
    const size_t nb = d->num_blocks;

    vmaf_speed_covariance(d, img, stride, e->means, e->cov, e->centered);
    const int stalled = vmaf_speed_eigenvalues(e->cov, N, e->eigenvalues, e->scratch);

    /* right-hand sides: column b holds block b (raster order), row k its k-th sample */
    for (int k = 0; k < N; k++) {
        float *row = e->indep + k * nb;
        for (unsigned bi = 0; bi < d->blocks_h; bi++) {
            const float *src = img + (size_t)(bi * B + k / B) * stride + k % B;
            for (unsigned bj = 0; bj < d->blocks_w; bj++)
                row[bi * d->blocks_w + bj] = src[bj * B];
        }
    }

    int singular = !vmaf_speed_is_regular(e->eigenvalues, N);
    if (!singular)
        singular = vmaf_speed_solve(e->cov, N, e->indep, (int)nb, e->solution, e->scratch) != 0;
    vmaf_speed_report(e, stalled, singular);
    if (singular) memset(e->solution, 0, N * nb * sizeof(float));

    /* variance per block: sum over k of X*Y/25, accumulated in k order */
    float *var = out->variances;
    for (size_t b = 0; b < nb; b++)
        var[b] = (e->solution[b] * e->indep[b]) / (float)N;
    for (int k = 1; k < N; k++) {
        const float *x = e->solution + k * nb, *y = e->indep + k * nb;
        for (size_t b = 0; b < nb; b++)
            var[b] += (x[b] * y[b]) / (float)N;
    }

    vmaf_speed_entropies(e, e->eigenvalues, out);
    return singular;
}

void vmaf_speed_report(VmafSpeedEngine *e, int stalled, int singular)
{
    if (stalled) warn_once(e, &e->stalled, "eigenvalue iteration did not converge");
    if (singular) warn_once(e, &e->singular, "covariance matrix is singular");
}

void vmaf_speed_entropies(const VmafSpeedEngine *e, const float *eigenvalues,
                          VmafSpeedResult *out)
{
    const size_t nb = e->dims.num_blocks;
    const double log2_2pie = log2(2 * M_PI * M_E);
    const float *var = out->variances;
    float *ent = out->entropies;
    for (size_t b = 0; b < nb; b++)
        ent[b] = 0.0f;
    for (int k = 0; k < VMAF_SPEED_BLOCK_ELEMS; k++) {
        const float lambda = eigenvalues[k] < 0 ? 0 : eigenvalues[k];
        for (size_t b = 0; b < nb; b++)
            ent[b] = (float)(ent[b] + (log2(lambda * var[b] + e->sigma_nn) + log2_2pie));
    }
}

int vmaf_speed_model_image(VmafSpeedEngine *e, const VmafSpeedSource *src,
                           VmafSpeedResult *out)
{
    const VmafSpeedDims *d = &e->dims;
    decimate(e, src);
    vmaf_speed_filter_decimate(e->mean_filter, e->mean_width, e->down, d->down_w, d->down_w,
                               d->down_h, 1, e->mean, d->down_w, e->row_tmp);
    const size_t n = (size_t)d->down_w * d->down_h;
    for (size_t i = 0; i < n; i++)
        e->down[i] -= e->mean[i];
    const int singular = estimate(e, e->down, d->down_w, out);
    if (e->debug)
        vmaf_speed_debug_line("cpu", e->who, e->debug_seq++, e->down, n, e->means, e->cov,
                              e->eigenvalues, singular, out->variances, d->num_blocks);
    return singular;
}

static uint32_t fnv1a(const float *v, size_t n)
{
    const uint8_t *p = (const uint8_t *)v;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n * sizeof(float); i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

void vmaf_speed_debug_line(const char *backend, const char *who, unsigned seq,
                           const float *centred, size_t n_centred, const float *means,
                           const float *cov, const float *eigenvalues, int singular,
                           const float *variances, size_t num_blocks)
{
    fprintf(stderr,
            "speed debug %s #%u: centred %08x means %08x cov %08x eigen %08x singular %d "
            "var %08x (%s)\n",
            who, seq, fnv1a(centred, n_centred), fnv1a(means, VMAF_SPEED_BLOCK_ELEMS),
            fnv1a(cov, VMAF_SPEED_BLOCK_ELEMS * VMAF_SPEED_BLOCK_ELEMS),
            fnv1a(eigenvalues, VMAF_SPEED_BLOCK_ELEMS), singular, fnv1a(variances, num_blocks),
            backend);
}

/* ---- the score ------------------------------------------------------------------------- */

static float pair_score(const VmafSpeedEngine *e)
{
    const VmafSpeedResult *r = &e->ref, *s = &e->dis;
    const size_t nb = e->dims.num_blocks;
    const double log2_2pie = log2(2 * M_PI * M_E);
    const float base = (float)(VMAF_SPEED_BLOCK_ELEMS *
                               (log2((1 + e->nn_floor) * e->sigma_nn) + log2_2pie));
    float score = 0;
    for (size_t b = 0; b < nb; b++) {
        const float er = r->entropies[b], ed = s->entropies[b];
        if (er < base && ed < base) continue; /* no visible difference */
        const float vr = r->variances[b], vd = s->variances[b];
        float spatial_ref, spatial_dis;
        switch (e->weight_var_mode) {
        case 1:
            spatial_ref = (float)(er * log2(1 + vr));
            spatial_dis = (float)(ed * log2(1 + vr));
            break;
        case 2:
            spatial_ref = (float)(er * log2(1 + vd));
            spatial_dis = (float)(ed * log2(1 + vd));
            break;
        case 3:
            spatial_ref = (float)(er * log2(1 + (vr + vd) / 2.0));
            spatial_dis = (float)(ed * log2(1 + (vr + vd) / 2.0));
            break;
        case 4:
            spatial_ref = (float)(er * log2(1 + vr));
            spatial_dis = (float)(ed * log2(1 + (vr + vd) / 2.0));
            break;
        case 5:
            spatial_ref = (float)(er * log2(1 + vr));
            spatial_dis = (float)(ed * log2(1 + (0.75 * vr + 0.25 * vd)));
            break;
        case 6:
            spatial_ref = (float)(er * log2(1 + vr));
            spatial_dis = (float)(ed * log2(1 + (0.25 * vr + 0.75 * vd)));
            break;
        default:
            spatial_ref = (float)(er * log2(1 + vr));
            spatial_dis = (float)(ed * log2(1 + vd));
            break;
        }
        score += fabsf(spatial_ref - spatial_dis);
    }
    return score / (float)nb;
}

int vmaf_speed_score(VmafSpeedEngine *e, const VmafSpeedSource *ref,
                     const VmafSpeedSource *dis, float *score)
{
    const int err_ref = vmaf_speed_model_image(e, ref, &e->ref);
    const int err_dis = vmaf_speed_model_image(e, dis, &e->dis);
    return vmaf_speed_pair(e, err_ref, err_dis, score);
}

int vmaf_speed_pair(const VmafSpeedEngine *e, int singular_ref, int singular_dis, float *score)
{
    /* one image singular and not the other: 0 rather than an inflated score */
    *score = (singular_ref != singular_dis) ? 0.0f : pair_score(e);
    return singular_ref || singular_dis;
}
