/*
 * --report FILE and --report-from JSON... (src/report.h): the run's parameters, the rungs
 * from the contexts (after -o was written, from the same collected scores), the start-up
 * checks of the report's path.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "cli.h"
#include "cli_run.h"
#include "context.h"
#include "dict.h"
#include "file_write.h"
#include "output.h"
#include "report.h"
#include "video_input.h"

void cli_report_frame_rate(CliSettings *c, const VideoInput *ref, const VideoInput *dist)
{
    if (!c->report || c->report_fps_den) return;
    if (!video_input_frame_rate(ref, &c->report_fps_num, &c->report_fps_den) && dist)
        video_input_frame_rate(dist, &c->report_fps_num, &c->report_fps_den);
}

int cli_report_check(const CliSettings *c, const char *const *inputs, unsigned input_cnt,
                     const char *const *outputs, unsigned output_cnt)
{
    if (!c->report) return 0;
    const int in = vmaf_file_find_same(c->report, inputs, input_cnt);
    if (in >= 0) {
        fprintf(stderr, "report file %s is the %s input %s: refusing to overwrite it\n",
                c->report, in ? "distorted" : "reference", inputs[in]);
        return EXIT_SETUP;
    }
    for (unsigned k = 0; k < output_cnt; k++)
        if (outputs[k] && (!strcmp(outputs[k], c->report) ||
                           vmaf_file_find_same(c->report, &outputs[k], 1) == 0)) {
            fprintf(stderr, "report file %s is also the output file %s\n", c->report,
                    outputs[k]);
            return EXIT_SETUP;
        }
    return cli_check_output_writable(c->report) ? EXIT_SETUP : 0;
}

/* A growing string for a parameter's value; NULL after a failed append. */
typedef struct Text {
    char *s;
    size_t len, cap;
    bool failed;
} Text;

static void add(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(Text *t, const char *fmt, ...)
{
    if (t->failed) return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = true;
        return;
    }
    if (t->len + (size_t)n + 1 > t->cap) {
        const size_t cap = 2 * (t->len + (size_t)n + 1);
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static void add_options(Text *t, const VmafDictionary *d, const char *first_sep)
{
    for (unsigned i = 0; d && i < d->cnt; i++)
        add(t, "%s%s=%s", i ? ":" : first_sep, d->entry[i].key, d->entry[i].val);
}

/* key: the text's value; the text is reset. 0 or -ENOMEM. */
static int param(VmafReport *r, const char *key, Text *t)
{
    const int err = t->failed ? -ENOMEM : vmaf_report_add_param(r, key, t->s ? t->s : "");
    free(t->s);
    *t = (Text){ .s = NULL };
    return err;
}

static const char *pix_fmt_text(enum VmafPixelFormat f)
{
    switch (f) {
    case VMAF_PIX_FMT_YUV420P: return "4:2:0";
    case VMAF_PIX_FMT_YUV422P: return "4:2:2";
    case VMAF_PIX_FMT_YUV444P: return "4:4:4";
    case VMAF_PIX_FMT_YUV400P: return "4:0:0";
    default: return "?";
    }
}

static const char *backend_text(enum CliBackend b)
{
    return b == CLI_BACKEND_CPU ? "cpu" : b == CLI_BACKEND_CUDA ? "cuda"
                                : b == CLI_BACKEND_OPENCL ? "opencl" : "auto";
}

static const char *format_text(enum VmafOutputFormat f)
{
    return f == VMAF_OUTPUT_FORMAT_JSON ? "JSON" : f == VMAF_OUTPUT_FORMAT_CSV ? "CSV"
                                       : f == VMAF_OUTPUT_FORMAT_SUB ? "subtitles" : "XML";
}

static int run_params(VmafReport *r, const CliSettings *c, VmafContext *const *ctx,
                      const char *const *dist, const char *const *output, unsigned n,
                      const VideoInfo *info, const char *const *failed, unsigned failed_cnt)
{
    Text t = { .s = NULL };
    int err = 0;
    add(&t, "%s", c->path_ref);
    err = param(r, "Reference", &t);
    for (unsigned k = 0; !err && k < n; k++) {
        char key[48];
        if (n == 1) {
            add(&t, "%s", dist[k]);
            err = param(r, "Distorted", &t);
            add(&t, "%s", output[k] ? output[k] : "none");
            if (!err) err = param(r, "Output", &t);
            continue;
        }
        add(&t, "%s", dist[k]);
        if (output[k]) add(&t, " \xe2\x86\x92 %s", output[k]); /* an arrow to its output */
        snprintf(key, sizeof(key), "Distorted %u", k + 1);
        err = param(r, key, &t);
    }
    for (unsigned k = 0; !err && k < failed_cnt; k++) {
        add(&t, "%s (not in this report)", failed[k]);
        err = param(r, "Failed", &t);
    }
    add(&t, "%ux%u, %s, %u-bit, %s", info->w, info->h, pix_fmt_text(info->pix_fmt), info->bpc,
        c->use_yuv ? "raw YUV" : "Y4M");
    if (!err) err = param(r, "Geometry", &t);
    for (unsigned i = 0; i < c->model_cnt; i++) {
        const CliModel *m = &c->model[i];
        add(&t, "%s%s (%s=%s", i ? "; " : "", m->name, m->path ? "path" : "version",
            m->path ? m->path : m->version);
        if (m->disable_clip) add(&t, ", disable_clip");
        if (m->enable_transform) add(&t, ", enable_transform");
        for (unsigned j = 0; j < m->overload_cnt; j++) {
            add(&t, ", %s.", m->overload[j].feature);
            add_options(&t, m->overload[j].opts, "");
        }
        add(&t, ")");
    }
    if (!c->model_cnt) add(&t, "none (--no_prediction)");
    if (!err) err = param(r, "Models", &t);
    for (unsigned i = 0; i < c->feature_cnt; i++) {
        add(&t, "%s%s", i ? "; " : "", c->feature[i].name);
        add_options(&t, c->feature[i].opts, "=");
    }
    if (!c->feature_cnt) add(&t, "the models' only");
    if (!err) err = param(r, "Features", &t);
    const VmafDeviceKind *kind = n ? ctx[0]->device_kind : NULL;
    add(&t, "%s (scored on %s)", backend_text(c->backend), kind ? kind->name : "the CPU");
    if (!err) err = param(r, "Backend", &t);
    add(&t, "%u", c->threads);
    if (!err) err = param(r, "Threads", &t);
    if (c->subsample > 1 || c->frame_cnt || c->frame_skip_ref || c->frame_skip_dist) {
        if (c->subsample > 1) add(&t, "subsample %u; ", c->subsample);
        if (c->frame_cnt) add(&t, "frame_cnt %u; ", c->frame_cnt);
        add(&t, "frame_skip_ref %u, frame_skip_dist %u", c->frame_skip_ref, c->frame_skip_dist);
        if (!err) err = param(r, "Frames", &t);
    }
    add(&t, "%s, ", format_text(c->output_fmt));
    if (c->precision < 0) add(&t, "%%.6f (reference format)");
    else add(&t, "%%.%dg", c->precision);
    if (!err) err = param(r, "Output format", &t);
    add(&t, "%s", vmaf_version());
    if (!err) err = param(r, "Version", &t);
    free(t.s);
    return err;
}

typedef struct Put {
    const VmafReport *r;
    const char *path;
    const char *const *keep;
    unsigned keep_cnt;
} Put;

static int put(void *arg)
{
    const Put *p = arg;
    return vmaf_report_write(p->r, p->path, p->keep, p->keep_cnt, VMAF_LOG_LEVEL_INFO);
}

int cli_write_report(const CliSettings *c, VmafContext *const *ctx, const char *const *dist,
                     const char *const *output, unsigned n, const VideoInfo *info,
                     const char *const *failed, unsigned failed_cnt)
{
    if (!c->report) return 0;
    VmafReport r = { .fps_num = c->report_fps_num, .fps_den = c->report_fps_den };
    int err = run_params(&r, c, ctx, dist, output, n, info, failed, failed_cnt);
    for (unsigned k = 0; !err && k < n; k++) err = vmaf_report_add_context(&r, ctx[k], dist[k], output[k]);
    if (!err && !n) err = -EINVAL;
    /* never over an input or an output (checked at start-up; a link made since is refused) */
    const char **keep = err ? NULL : malloc((1 + 2 * (size_t)n) * sizeof(*keep));
    unsigned keep_cnt = 0;
    if (!err && !keep) err = -ENOMEM;
    if (!err) {
        keep[keep_cnt++] = c->path_ref;
        for (unsigned k = 0; k < n; k++) {
            keep[keep_cnt++] = dist[k];
            if (output[k]) keep[keep_cnt++] = output[k];
        }
        const Put p = { .r = &r, .path = c->report, .keep = keep, .keep_cnt = keep_cnt };
        err = cli_held(put, (void *)&p);
    }
    if (err) fprintf(stderr, "problem writing report %s: %s\n", c->report, strerror(-err));
    free(keep);
    vmaf_report_free(&r);
    return err ? EXIT_SETUP : 0;
}

typedef struct From {
    const CliSettings *c;
} From;

static int put_from(void *arg)
{
    const CliSettings *c = ((const From *)arg)->c;
    return vmaf_report_json_files((const char *const *)c->report_json, c->report_json_cnt,
                                  c->output_path, c->report_fps_num, c->report_fps_den,
                                  VMAF_LOG_LEVEL_INFO);
}

int cli_report_from(const CliSettings *c)
{
    const int same = vmaf_file_find_same(c->output_path, (const char *const *)c->report_json,
                                         c->report_json_cnt);
    if (same >= 0) {
        fprintf(stderr, "report file %s is the JSON file %s: refusing to overwrite it\n",
                c->output_path, c->report_json[same]);
        return EXIT_SETUP;
    }
    if (cli_check_output_writable(c->output_path)) return EXIT_SETUP;
    From f = { .c = c };
    const int err = cli_held(put_from, &f);
    if (err)
        fprintf(stderr, "could not make the report %s of %u JSON file%s: %s\n", c->output_path,
                c->report_json_cnt, c->report_json_cnt > 1 ? "s" : "", strerror(-err));
    return err ? EXIT_SETUP : 0;
}
