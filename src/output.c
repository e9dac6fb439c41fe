#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "feature_instance.h"
#include "file_write.h"
#include "log.h"
#include "output.h"
#include "vcs_version.h"

#include "export.h"

typedef struct Writer {
    VmafContext *vmaf;
    FILE *f;
    enum VmafOutputFormat fmt;
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

/* ---- names: escaped per format, or refused where a format cannot hold them ---------- */

unsigned vmaf_utf8_decode(const unsigned char *s, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    unsigned n;
    uint32_t c;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, c = s[0] & 0x1f;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) n = 3, c = s[0] & 0x0f;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, c = s[0] & 0x07;
    else return 0;
    for (unsigned i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff))) return 0;
    if (c >= 0xd800 && c <= 0xdfff) return 0;
    *cp = c;
    return n;
}

/* XML 1.0 (5th edition) NameStartChar, and NameChar when `start` is false. */
static bool xml_name_char(uint32_t c, bool start)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':') return true;
    if (!start && ((c >= '0' && c <= '9') || c == '-' || c == '.' || c == 0xb7 ||
                   (c >= 0x300 && c <= 0x36f) || (c >= 0x203f && c <= 0x2040)))
        return true;
    return (c >= 0xc0 && c <= 0xd6) || (c >= 0xd8 && c <= 0xf6) || (c >= 0xf8 && c <= 0x2ff) ||
           (c >= 0x370 && c <= 0x37d) || (c >= 0x37f && c <= 0x1fff) ||
           (c >= 0x200c && c <= 0x200d) || (c >= 0x2070 && c <= 0x218f) ||
           (c >= 0x2c00 && c <= 0x2fef) || (c >= 0x3001 && c <= 0xd7ff) ||
           (c >= 0xf900 && c <= 0xfdcf) || (c >= 0xfdf0 && c <= 0xfffd) ||
           (c >= 0x10000 && c <= 0xeffff);
}

const char *vmaf_output_name_problem(const char *name, enum VmafOutputFormat fmt)
{
    const unsigned char *s = (const unsigned char *)name;
    if (!*s) return "is empty";
    if (fmt == VMAF_OUTPUT_FORMAT_XML && !strcmp(name, "frameNum"))
        return "is the frame number's attribute in XML";
    for (size_t i = 0; s[i];) {
        const unsigned char c = s[i];
        if (fmt == VMAF_OUTPUT_FORMAT_SUB && (c == '|' || c == '\n' || c == '\r'))
            return "holds '|' or a line break, which the subtitle format cannot separate";
        if (fmt != VMAF_OUTPUT_FORMAT_XML && fmt != VMAF_OUTPUT_FORMAT_JSON) {
            i++;
            continue;
        }
        uint32_t cp;
        const unsigned n = vmaf_utf8_decode(s + i, &cp);
        if (!n) return "is not valid UTF-8, which XML and JSON require";
        /* XML writes names as attribute names, which nothing can escape */
        if (fmt == VMAF_OUTPUT_FORMAT_XML && !xml_name_char(cp, i == 0))
            return "is not an XML name (letters, digits, '_', ':', '-', '.'; no digit, '-' or "
                   "'.' first), which XML attributes need: use --json or --csv, or rename";
        i += n;
    }
    return NULL;
}

/* The name for a message: what a terminal cannot show (or shows as another) becomes \xNN. */
static const char *printable(const char *name, char *buf, size_t sz)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && n + 5 < sz; p++) {
        if (*p >= 0x20 && *p < 0x7f) buf[n++] = (char)*p;
        else n += (size_t)snprintf(buf + n, sz - n, "\\x%02x", *p);
    }
    buf[n] = '\0';
    return buf;
}

static void put_xml_name(FILE *f, const char *name)
{
    for (const char *p = name; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\t': fputs("&#9;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\r': fputs("&#13;", f); break;
        default: fputc(*p, f); break;
        }
    }
}

static void put_json_name(FILE *f, const char *name)
{
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\r') fputs("\\r", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
}

/* RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
static void put_csv_name(FILE *f, const char *name)
{
    if (!strpbrk(name, ",\"\r\n")) {
        fputs(name, f);
        return;
    }
    fputc('"', f);
    for (const char *p = name; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static int check_names(VmafContext *vmaf, const Writer *w, enum VmafOutputFormat fmt)
{
    for (unsigned j = 0; j < w->cnt + w->agg_cnt; j++) {
        const char *name = j < w->cnt ? vmaf_feature_name_alias(w->vec[j]->name)
                                      : w->agg[j - w->cnt]->name;
        const char *why = vmaf_output_name_problem(name, fmt);
        if (!why) continue;
        char shown[256];
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "cannot write metric \"%s\": its name %s\n", printable(name, shown, sizeof(shown)),
                 why);
        return -EINVAL;
    }
    return 0;
}

int vmaf_output_check_names(VmafContext *vmaf, enum VmafOutputFormat fmt)
{
    if (!vmaf) return -EINVAL;
    for (unsigned i = 0; i < vmaf->inst_cnt + vmaf->score_name_cnt; i++) {
        const bool fex = i < vmaf->inst_cnt;
        char *const *names = fex ? vmaf->inst[i]->mapped : NULL;
        const char *single = fex ? NULL : vmaf->score_name[i - vmaf->inst_cnt].name;
        for (unsigned k = 0; fex ? names[k] != NULL : k < 1; k++) {
            const char *name = vmaf_feature_name_alias(fex ? names[k] : single);
            const char *why = vmaf_output_name_problem(name, fmt);
            if (!why) continue;
            char shown[256];
            vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR, "%s \"%s\" cannot be written: "
                     "its name %s\n", fex ? "feature" : "model score",
                     printable(name, shown, sizeof(shown)), why);
            return -EINVAL;
        }
    }
    return 0;
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
            put_xml_name(f, vmaf_feature_name_alias(w->vec[j]->name));
            fprintf(f, "=\"%s\" ", num);
        }
        fprintf(f, "/>\n");
    }
    fprintf(f, "  </frames>\n");
    fprintf(f, "  <pooled_metrics>\n");
    for (unsigned j = 0; j < w->cnt; j++) {
        fprintf(f, "    <metric name=\"");
        put_xml_name(f, vmaf_feature_name_alias(w->vec[j]->name));
        fprintf(f, "\" ");
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
        put_xml_name(f, w->agg[j]->name);
        fprintf(f, "=\"%s\" ", num);
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
            fprintf(f, "%s        \"", first ? "" : ",\n");
            put_json_name(f, vmaf_feature_name_alias(w->vec[j]->name));
            fprintf(f, "\": %s", num);
            first = false;
        }
        fprintf(f, "\n      }\n    }");
    }
    fprintf(f, "\n  ],\n");

    fprintf(f, "  \"pooled_metrics\": {");
    for (unsigned j = 0; j < w->cnt; j++) {
        fprintf(f, "%s    \"", j ? ",\n" : "\n");
        put_json_name(f, vmaf_feature_name_alias(w->vec[j]->name));
        fprintf(f, "\": {");
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
        fprintf(f, "%s\n    \"", j ? "," : "");
        put_json_name(f, w->agg[j]->name);
        fprintf(f, "\": %s", num);
    }
    fprintf(f, "\n  }\n}\n");
}

static void write_csv(Writer *w)
{
    FILE *f = w->f;
    char num[64];
    fprintf(f, "Frame,");
    for (unsigned j = 0; j < w->cnt; j++) {
        put_csv_name(f, vmaf_feature_name_alias(w->vec[j]->name));
        fputc(',', f);
    }
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

static int put_output(FILE *f, void *arg)
{
    Writer *w = arg;
    w->f = f;
    switch (w->fmt) {
    case VMAF_OUTPUT_FORMAT_XML: write_xml(w); break;
    case VMAF_OUTPUT_FORMAT_JSON: write_json(w); break;
    case VMAF_OUTPUT_FORMAT_CSV: write_csv(w); break;
    default: write_sub(w); break;
    }
    return 0;
}

int vmaf_output_write_keeping(VmafContext *vmaf, const char *output_path,
                              enum VmafOutputFormat fmt, int precision,
                              const char *const *keep, unsigned keep_cnt)
{
    if (!vmaf || !output_path) return -EINVAL;
    if (fmt <= VMAF_OUTPUT_FORMAT_NONE || fmt > VMAF_OUTPUT_FORMAT_SUB) return -EINVAL;
    if (precision > VMAF_OUTPUT_PRECISION_MAX) return -EINVAL;

    Writer w = { .vmaf = vmaf, .precision = precision, .fmt = fmt };
    int err = vmaf_feature_collector_sorted(vmaf->fc, &w.vec, &w.cnt, &w.agg, &w.agg_cnt);
    if (err) return err;
    for (unsigned j = 0; j < w.cnt; j++)
        for (unsigned i = w.vec[j]->capacity; i > w.n_index; i--)
            if (w.vec[j]->written[i - 1]) {
                w.n_index = i;
                break;
            }

    if (!w.cnt && !w.agg_cnt) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "nothing to write to %s: no score was stored\n", output_path);
        err = -EINVAL;
        goto done;
    }
    err = check_names(vmaf, &w, fmt);
    if (!err)
        err = vmaf_file_write(output_path, keep, keep_cnt, put_output, &w, vmaf->cfg.log_level);
done:
    free(w.vec);
    free(w.agg);
    return err;
}

int vmaf_write_output_with_precision(VmafContext *vmaf, const char *output_path,
                                     enum VmafOutputFormat fmt, int precision)
{
    return vmaf_output_write_keeping(vmaf, output_path, fmt, precision, NULL, 0);
}

VMAF_EXPORT int vmaf_write_output(VmafContext *vmaf, const char *output_path,
                                  enum VmafOutputFormat fmt)
{
    return vmaf_write_output_with_precision(vmaf, output_path, fmt,
                                            VMAF_OUTPUT_PRECISION_DEFAULT);
}
