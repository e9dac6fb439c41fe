/*
 * Per-frame prediction of a model and the bootstrap statistics of a collection
 * (CONTRACT.md §5). Everything is double precision, evaluated left to right in the order
 * reference libvmaf uses (the build has -ffp-contract=off, so no FMA); changing the order of
 * any sum or product changes the last bits of the scores.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "model.h"

static double normalize(const VmafModel *m, double slope, double intercept, double x)
{
    if (m->norm == VMAF_MODEL_NORMALIZATION_LINEAR_RESCALE) return slope * x + intercept;
    return x;
}

static double denormalize(const VmafModel *m, double slope, double intercept, double x)
{
    if (m->norm == VMAF_MODEL_NORMALIZATION_LINEAR_RESCALE) return (x - intercept) / slope;
    return x;
}

/*
 * Chroma from luma: when the (denormalized) speed_chroma feature is exactly 0, replace it
 * by c - c * adm3. The model file was checked to name exactly one feature of each kind.
 */
static void correct_chroma(const VmafModel *m, VmafSvmNode *node)
{
    double guiding = 0.;
    int guided = -1;
    for (unsigned i = 0; i < m->n_features; i++) {
        const VmafModelFeature *f = &m->feature[i];
        const double x = denormalize(m, f->slope, f->intercept, node[i].value);
        if (strstr(f->name, "adm3")) guiding = x;
        if (strstr(f->name, "speed_chroma")) {
            if (x != 0.) return;
            guided = (int)i;
        }
    }
    if (guided < 0) return;
    const double c = m->chroma.parameter;
    const double corrected = (-c * guiding) + c;
    const VmafModelFeature *g = &m->feature[guided];
    node[guided].value = normalize(m, g->slope, g->intercept, corrected);
}

/* The line through two knots; a segment starting at x = 0 takes its offset directly. */
static void segment_line(VmafModelKnot a, VmafModelKnot b, double *slope, double *offset)
{
    if (a.x == 0) {
        *offset = a.y;
        *slope = (b.y - *offset) / b.x;
    } else {
        *slope = (b.y - a.y) / (b.x - a.x);
        *offset = a.y - (a.x * *slope);
    }
}

/*
 * Piecewise-linear map through the knots (x strictly, y weakly increasing, checked at
 * load). Every segment containing x writes its value, so at a shared knot the later one
 * wins; below the first and above the last knot the end segments extrapolate. Fewer than
 * two knots leave y as it was.
 */
static double piecewise_linear(const VmafModelKnot *k, unsigned n, double x)
{
    if (n <= 1) return x;
    double y = 0.;
    for (unsigned i = 0; i + 1 < n; i++) {
        const bool inside = k[i].x <= x && x <= k[i + 1].x;
        const bool below = i == 0 && x < k[i].x;
        const bool above = i + 2 == n && x > k[i + 1].x;
        if (!(inside || below || above)) continue;
        if (k[i].y == k[i + 1].y) {
            y = k[i].y;
        } else {
            double slope, offset;
            segment_line(k[i], k[i + 1], &slope, &offset);
            y = slope * x + offset;
        }
    }
    return y;
}

static double transform(const VmafModel *m, double y_in)
{
    double y = y_in;
    if (m->transform.p0.set || m->transform.p1.set || m->transform.p2.set) {
        double t = 0.;
        if (m->transform.p0.set) t += m->transform.p0.value;
        if (m->transform.p1.set) t += m->transform.p1.value * y_in;
        if (m->transform.p2.set) t += m->transform.p2.value * y_in * y_in;
        y = t;
    }
    if (m->transform.knots_set) y = piecewise_linear(m->transform.knot, m->transform.n_knots, y);
    if (m->transform.out_lte_in) y = (y > y_in) ? y_in : y;
    if (m->transform.out_gte_in) y = (y < y_in) ? y_in : y;
    return y;
}

double vmaf_model_transform_and_clip(const VmafModel *m, double y, uint64_t flags)
{
    if (m->transform.enabled && !(flags & VMAF_MODEL_FLAG_DISABLE_TRANSFORM)) y = transform(m, y);
    if (m->clip.enabled && !(flags & VMAF_MODEL_FLAG_DISABLE_CLIP)) {
        y = (y < m->clip.min) ? m->clip.min : y;
        y = (y > m->clip.max) ? m->clip.max : y;
    }
    return y;
}

int vmaf_model_predict(const VmafModel *model, VmafFeatureCollector *fc, unsigned index,
                       uint64_t flags, double *score, bool *written,
                       enum VmafLogLevel log_level)
{
    VmafSvmNode node[VMAF_MODEL_MAX_FEATURES];
    *written = false;
    for (unsigned i = 0; i < model->n_features; i++) {
        const VmafModelFeature *f = &model->feature[i];
        double x;
        if (vmaf_feature_collector_get_score(fc, f->collector_name, &x, index)) {
            vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR,
                     "model %s: no feature \"%s\" at index %u\n", model->name,
                     f->collector_name, index);
            return -EINVAL;
        }
        node[i] = (VmafSvmNode){ .index = (int)i + 1,
                                 .value = normalize(model, f->slope, f->intercept, x) };
    }
    if (model->chroma.enabled) {
        /* a parameter of 0 makes the reference skip the prediction: no score at all */
        if (model->chroma.parameter == 0.) return 0;
        correct_chroma(model, node);
    }
    const double s = vmaf_svm_predict(model->svm, node, model->n_features);
    const double y = denormalize(model, model->slope, model->intercept, s);
    *score = vmaf_model_transform_and_clip(model, y, flags);
    *written = true;
    return 0;
}

static int compare_scores(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between the order statistics around p(n-1)/100. */
static double percentile(const double *sorted, unsigned n, double perc)
{
    const double p = perc * (n - 1) / 100.;
    const int lo = (int)floor(p), hi = (int)ceil(p);
    if (lo == hi) return sorted[lo];
    return sorted[lo] * (hi - p) + sorted[hi] * (p - lo);
}

void vmaf_model_bootstrap(const VmafModel *first, double *raw, unsigned n,
                          VmafModelCollectionScore *score)
{
    double sum = 0.;
    for (unsigned i = 0; i < n; i++) sum += raw[i];
    const double mean = sum / n;

    const double delta = 0.01;
    double plus = mean + delta, minus = mean - delta;

    double ssd = 0.;
    for (unsigned i = 0; i < n; i++) {
        const double d = raw[i] - mean;
        ssd += d * d; /* pow(d, 2) in the reference: the same correctly rounded square */
    }
    double stddev = sqrt(ssd / n);

    qsort(raw, n, sizeof(*raw), compare_scores);
    double lo = percentile(raw, n, 2.5);
    double hi = percentile(raw, n, 97.5);

    const double bagging = vmaf_model_transform_and_clip(first, mean, 0);
    lo = vmaf_model_transform_and_clip(first, lo, 0);
    hi = vmaf_model_transform_and_clip(first, hi, 0);
    plus = vmaf_model_transform_and_clip(first, plus, 0);
    minus = vmaf_model_transform_and_clip(first, minus, 0);
    /* the spread is mapped through the transform's local slope at the mean */
    const double slope = (plus - minus) / (2.0 * delta);
    stddev *= slope;

    score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
    score->bootstrap.bagging_score = bagging;
    score->bootstrap.stddev = stddev;
    score->bootstrap.ci.p95.lo = lo;
    score->bootstrap.ci.p95.hi = hi;
}
