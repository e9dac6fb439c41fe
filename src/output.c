#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "feature_instance.h"
#include "log.h"
#include "output.h"
#include "vcs_version.h"

#include "export.h"

typedef struct Writer {
    VmafContext *vmaf;
    FILE *f;
    int precision;
    VmafFeatureVector **vec;
    unsigned cnt;
    VmafAggregate **agg;
    unsigned agg_cnt;
    unsigned n_index; /* 1 + the highest index with any value */
} Writer;

static const char *const pool_name[VMAF_POOL_METHOD_NB] = {
    [VMAF_POOL_METHOD_MIN] = "min",
    [VMAF_POOL_METHOD_MAX] = "max",
    [VMAF_POOL_METHOD_MEAN] = "mean",
    [VMAF_POOL_METHOD_HARMONIC_MEAN] = "harmonic_mean",
};

/* How many times the fractional part must be multiplied by 10 to reach >= 1. */
static int fraction_leading_zeros(double x)
{
    double frac = fabs(x);
    frac -= trunc(frac);
    int n = 0;
    while (frac < 1.0 && frac != 0) {
        frac *= 10;
        n++;
    }
    return n;
}

static void format_number(char *buf, size_t sz, double x, int precision)
{
    if (precision > 0)
        snprintf(buf, sz, "%.*g", precision, x);
    else if (fraction_leading_zeros(x) <= 6)
        snprintf(buf, sz, "%.6f", x);
    else
        snprintf(buf, sz, "%.16f", x);
}

/* JSON has no nan or inf. */
static void format_json_number(char *buf, size_t sz, double x, int precision)
{
    if (!isfinite(x)) snprintf(buf, sz, "null");
    else format_number(buf, sz, x, precision);
}

static bool written_at(const VmafFeatureVector *v, unsigned i)
{
    return i < v->capacity && v->written[i];
}

static bool frame_listed(const Writer *w, unsigned i)
{
    const unsigned sub = w->vmaf->cfg.n_subsample;
    if (sub > 1 && i % sub) return false;
    for (unsigned j = 0; j < w->cnt; j++)
        if (written_at(w->vec[j], i)) return true;
    return false;
}

static int pooled(const Writer *w, const VmafFeatureVector *v, enum VmafPoolingMethod m,
                  double *score)
{
    if (!w->vmaf->pic_cnt) return -EINVAL;
    return vmaf_context_pool_feature(w->vmaf, v->name, m, score, 0, w->vmaf->pic_cnt - 1);
}

static double fps(const VmafContext *vmaf)
{
    return vmaf->pic_cnt / vmaf_feature_collector_cpu_seconds(vmaf->fc);
}

static void write_xml(Writer *w)
{
    FILE *f = w->f;
    char num[64];
    fprintf(f, "<VMAF version=\"%s\">\n", VMAF_LIBRARY_VERSION);
    fprintf(f, "  <params qualityWidth=\"%u\" qualityHeight=\"%u\" />\n", w->vmaf->geometry.w,
            w->vmaf->geometry.h);
    fprintf(f, "  <fyi fps=\"%.2f\" />\n", fps(w->vmaf));
    fprintf(f, "  <frames>\n");
    for (unsigned i = 0; i < w->n_index; i++) {
        if (!frame_listed(w, i)) continue;
        fprintf(f, "    <frame frameNum=\"%u\" ", i);
        for (unsigned j = 0; j < w->cnt; j++) {
            if (!written_at(w->vec[j], i)) continue;
            format_number(num, sizeof(num), w->vec[j]->value[i], w->precision);
            fprintf(f, "%s=\"%s\" ", vmaf_feature_name_alias(w->vec[j]->name), num);
        }
        fprintf(f, "/>\n");
    }
    fprintf(f, "  </frames>\n");
    fprintf(f, "  <pooled_metrics>\n");
    for (unsigned j = 0; j < w->cnt; j++) {
        fprintf(f, "    <metric name=\"%s\" ", vmaf_feature_name_alias(w->vec[j]->name));
        for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++) {
            double score;
            if (pooled(w, w->vec[j], m, &score)) continue;
            format_number(num, sizeof(num), score, w->precision);
            fprintf(f, "%s=\"%s\" ", pool_name[m], num);
        }
        fprintf(f, "/>\n");
    }
    fprintf(f, "  </pooled_metrics>\n");
    fprintf(f, "  <aggregate_metrics ");
    for (unsigned j = 0; j < w->agg_cnt; j++) {
        format_number(num, sizeof(num), w->agg[j]->value, w->precision);
        fprintf(f, "%s=\"%s\" ", w->agg[j]->name, num);
    }
    fprintf(f, "/>\n");
    fprintf(f, "</VMAF>\n");
}

static void write_json(Writer *w)
{
    FILE *f = w->f;
    char num[64];
    fprintf(f, "{\n");
    fprintf(f, "  \"version\": \"%s\",\n", VMAF_LIBRARY_VERSION);
    const double rate = fps(w->vmaf);
    if (isfinite(rate)) fprintf(f, "  \"fps\": %.2f,\n", rate);
    else fprintf(f, "  \"fps\": null,\n");

    fprintf(f, "  \"frames\": [");
    bool first_frame = true;
    for (unsigned i = 0; i < w->n_index; i++) {
        if (!frame_listed(w, i)) continue;
        fprintf(f, "%s", first_frame ? "\n" : ",\n");
        first_frame = false;
        fprintf(f, "    {\n      \"frameNum\": %u,\n      \"metrics\": {\n", i);
        bool first = true;
        for (unsigned j = 0; j < w->cnt; j++) {
            if (!written_at(w->vec[j], i)) continue;
            format_json_number(num, sizeof(num), w->vec[j]->value[i], w->precision);
            fprintf(f, "%s        \"%s\": %s", first ? "" : ",\n",
                    vmaf_feature_name_alias(w->vec[j]->name), num);
            first = false;
        }
        fprintf(f, "\n      }\n    }");
    }
    fprintf(f, "\n  ],\n");

    fprintf(f, "  \"pooled_metrics\": {");
    for (unsigned j = 0; j < w->cnt; j++) {
        fprintf(f, "%s    \"%s\": {", j ? ",\n" : "\n", vmaf_feature_name_alias(w->vec[j]->name));
        bool first = true;
        for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++) {
            double score;
            if (pooled(w, w->vec[j], m, &score)) continue;
            format_json_number(num, sizeof(num), score, w->precision);
            fprintf(f, "%s      \"%s\": %s", first ? "\n" : ",\n", pool_name[m], num);
            first = false;
        }
        fprintf(f, "\n    }");
    }
    fprintf(f, "\n  },\n");

    fprintf(f, "  \"aggregate_metrics\": {");
    for (unsigned j = 0; j < w->agg_cnt; j++) {
        format_json_number(num, sizeof(num), w->agg[j]->value, w->precision);
        fprintf(f, "%s\n    \"%s\": %s", j ? "," : "", w->agg[j]->name, num);
    }
    fprintf(f, "\n  }\n}\n");
}

static void write_csv(Writer *w)
{
    FILE *f = w->f;
    char num[64];
    fprintf(f, "Frame,");
    for (unsigned j = 0; j < w->cnt; j++)
        fprintf(f, "%s,", vmaf_feature_name_alias(w->vec[j]->name));
    fprintf(f, "\n");
    for (unsigned i = 0; i < w->n_index; i++) {
        if (!frame_listed(w, i)) continue;
        fprintf(f, "%u,", i);
        for (unsigned j = 0; j < w->cnt; j++) {
            if (!written_at(w->vec[j], i)) continue;
            format_number(num, sizeof(num), w->vec[j]->value[i], w->precision);
            fprintf(f, "%s,", num);
        }
        fprintf(f, "\n");
    }
}

static void write_sub(Writer *w)
{
    FILE *f = w->f;
    char num[64];
    for (unsigned i = 0; i < w->n_index; i++) {
        if (!frame_listed(w, i)) continue;
        fprintf(f, "{%u}{%u}frame: %u|", i, i + 1, i);
        for (unsigned j = 0; j < w->cnt; j++) {
            if (!written_at(w->vec[j], i)) continue;
            format_number(num, sizeof(num), w->vec[j]->value[i], w->precision);
            fprintf(f, "%s: %s|", vmaf_feature_name_alias(w->vec[j]->name), num);
        }
        fprintf(f, "\n");
    }
}

/* A regular file (or a new one) is written beside its final name and renamed into place,
 * so a failure never leaves half a file; devices and pipes are written directly. */
static int open_output(const char *path, char **tmp_path, FILE **f)
{
    struct stat st;
    *tmp_path = NULL;
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
        *f = fopen(path, "w");
        return *f ? 0 : -errno;
    }
    const size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp) return -ENOMEM;
    snprintf(tmp, n, "%s.tmpXXXXXX", path);
    const int fd = mkstemp(tmp);
    if (fd < 0) {
        const int err = -errno;
        free(tmp);
        return err;
    }
    fchmod(fd, 0644);
    *f = fdopen(fd, "w");
    if (!*f) {
        const int err = -errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return err;
    }
    *tmp_path = tmp;
    return 0;
}

int vmaf_write_output_with_precision(VmafContext *vmaf, const char *output_path,
                                     enum VmafOutputFormat fmt, int precision)
{
    if (!vmaf || !output_path) return -EINVAL;
    if (fmt <= VMAF_OUTPUT_FORMAT_NONE || fmt > VMAF_OUTPUT_FORMAT_SUB) return -EINVAL;
    if (precision > VMAF_OUTPUT_PRECISION_MAX) return -EINVAL;

    Writer w = { .vmaf = vmaf, .precision = precision };
    int err = vmaf_feature_collector_sorted(vmaf->fc, &w.vec, &w.cnt, &w.agg, &w.agg_cnt);
    if (err) return err;
    for (unsigned j = 0; j < w.cnt; j++)
        for (unsigned i = w.vec[j]->capacity; i > w.n_index; i--)
            if (w.vec[j]->written[i - 1]) {
                w.n_index = i;
                break;
            }

    char *tmp_path;
    err = open_output(output_path, &tmp_path, &w.f);
    if (err) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR, "could not open %s: %s\n",
                 output_path, strerror(-err));
        goto done;
    }
    switch (fmt) {
    case VMAF_OUTPUT_FORMAT_XML: write_xml(&w); break;
    case VMAF_OUTPUT_FORMAT_JSON: write_json(&w); break;
    case VMAF_OUTPUT_FORMAT_CSV: write_csv(&w); break;
    default: write_sub(&w); break;
    }
    const bool failed = ferror(w.f) != 0;
    if (fclose(w.f) || failed) {
        err = -EIO;
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR, "could not write %s\n", output_path);
        if (tmp_path) unlink(tmp_path);
    } else if (tmp_path && rename(tmp_path, output_path)) {
        err = -errno;
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR, "could not write %s: %s\n",
                 output_path, strerror(-err));
        unlink(tmp_path);
    }
    free(tmp_path);
done:
    free(w.vec);
    free(w.agg);
    return err;
}

VMAF_EXPORT int vmaf_write_output(VmafContext *vmaf, const char *output_path,
                                  enum VmafOutputFormat fmt)
{
    return vmaf_write_output_with_precision(vmaf, output_path, fmt,
                                            VMAF_OUTPUT_PRECISION_DEFAULT);
}
