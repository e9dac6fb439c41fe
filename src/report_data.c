/*
 * The report's rungs (report.h): from a context's collector, as its output file holds them,
 * or from a JSON output file; and vmaf_report_from_json(), the public entry.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature_instance.h"
#include "json.h"
#include "log.h"
#include "report.h"
#include "vcs_version.h"

#include "export.h"

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

int vmaf_report_add_param(VmafReport *r, const char *key, const char *value)
{
    char **p = realloc(r->param, 2 * (r->param_cnt + 1) * sizeof(*p));
    if (!p) return -ENOMEM;
    r->param = p;
    char *k = strdup(key), *v = strdup(value ? value : "");
    if (!k || !v) {
        free(k);
        free(v);
        return -ENOMEM;
    }
    p[2 * r->param_cnt] = k;
    p[2 * r->param_cnt + 1] = v;
    r->param_cnt++;
    return 0;
}

static void rung_free(VmafReportRung *g)
{
    free(g->name);
    free(g->source);
    free(g->output);
    free(g->version);
    free(g->frame);
    for (unsigned j = 0; j < g->metric_cnt; j++) {
        free(g->metric[j].name);
        free(g->metric[j].value);
    }
    free(g->metric);
    for (unsigned j = 0; j < g->agg_cnt; j++) free(g->agg_name[j]);
    free(g->agg_name);
    free(g->agg_value);
    memset(g, 0, sizeof(*g));
}

void vmaf_report_free(VmafReport *r)
{
    if (!r) return;
    for (unsigned k = 0; k < r->rung_cnt; k++) rung_free(&r->rung[k]);
    free(r->rung);
    for (unsigned i = 0; i < 2 * r->param_cnt; i++) free(r->param[i]);
    free(r->param);
    memset(r, 0, sizeof(*r));
}

/* The file name of path without its directory. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* A new rung at the end of r (zeroed, named after source), or NULL. */
static VmafReportRung *new_rung(VmafReport *r, const char *source, const char *output)
{
    VmafReportRung *g = realloc(r->rung, (r->rung_cnt + 1) * sizeof(*g));
    if (!g) return NULL;
    r->rung = g;
    g += r->rung_cnt;
    memset(g, 0, sizeof(*g));
    g->name = strdup(base_name(source));
    g->source = strdup(source);
    g->output = dup_or_null(output);
    if (!g->name || !g->source || (output && !g->output)) {
        rung_free(g);
        return NULL;
    }
    return g;
}

static int add_aggregate(VmafReportRung *g, const char *name, double value)
{
    char **n = realloc(g->agg_name, (g->agg_cnt + 1) * sizeof(*n));
    if (!n) return -ENOMEM;
    g->agg_name = n;
    double *v = realloc(g->agg_value, (g->agg_cnt + 1) * sizeof(*v));
    if (!v) return -ENOMEM;
    g->agg_value = v;
    if (!(n[g->agg_cnt] = strdup(name))) return -ENOMEM;
    v[g->agg_cnt++] = value;
    return 0;
}

static bool written_at(const VmafFeatureVector *v, unsigned i)
{
    return i < v->capacity && v->written[i];
}

static bool is_score_name(const VmafContext *vmaf, const char *name)
{
    for (unsigned i = 0; i < vmaf->score_name_cnt; i++)
        if (!strcmp(vmaf->score_name[i].name, name)) return true;
    return false;
}

/* The rung's frames and values from a sorted collector: the frames the output file lists
 * (an index with any value, every n_subsample-th). */
static int fill_from_vectors(VmafReportRung *g, VmafContext *vmaf, VmafFeatureVector **vec,
                             unsigned cnt)
{
    unsigned n_index = 0;
    for (unsigned j = 0; j < cnt; j++)
        for (unsigned i = vec[j]->capacity; i > n_index; i--)
            if (vec[j]->written[i - 1]) {
                n_index = i;
                break;
            }
    const unsigned sub = vmaf->cfg.n_subsample;
    g->frame = malloc((n_index ? n_index : 1) * sizeof(*g->frame));
    g->metric = calloc(cnt ? cnt : 1, sizeof(*g->metric));
    if (!g->frame || !g->metric) return -ENOMEM;
    for (unsigned i = 0; i < n_index; i++) {
        if (sub > 1 && i % sub) continue;
        bool any = false;
        for (unsigned j = 0; j < cnt && !any; j++) any = written_at(vec[j], i);
        if (any) g->frame[g->frame_cnt++] = i;
    }
    for (unsigned j = 0; j < cnt; j++) {
        VmafReportMetric *m = &g->metric[g->metric_cnt++];
        m->name = strdup(vmaf_feature_name_alias(vec[j]->name));
        m->model = is_score_name(vmaf, vec[j]->name);
        m->value = malloc((g->frame_cnt ? g->frame_cnt : 1) * sizeof(*m->value));
        if (!m->name || !m->value) return -ENOMEM;
        for (unsigned f = 0; f < g->frame_cnt; f++)
            m->value[f] = written_at(vec[j], g->frame[f]) ? vec[j]->value[g->frame[f]] : NAN;
        for (int p = VMAF_POOL_METHOD_MIN; p < VMAF_POOL_METHOD_NB; p++)
            m->pooled[p] = vmaf->pic_cnt &&
                           !vmaf_context_pool_feature(vmaf, vec[j]->name, p, &m->pool[p], 0,
                                                      vmaf->pic_cnt - 1);
    }
    return 0;
}

int vmaf_report_add_context(VmafReport *r, VmafContext *vmaf, const char *source,
                            const char *output)
{
    if (!r || !vmaf || !source) return -EINVAL;
    VmafFeatureVector **vec;
    VmafAggregate **agg;
    unsigned cnt, agg_cnt;
    int err = vmaf_feature_collector_sorted(vmaf->fc, &vec, &cnt, &agg, &agg_cnt);
    if (err) return err;
    VmafReportRung *g = new_rung(r, source, output);
    err = g ? 0 : -ENOMEM;
    if (!err && !(g->version = strdup(VMAF_LIBRARY_VERSION))) err = -ENOMEM;
    if (!err) err = fill_from_vectors(g, vmaf, vec, cnt);
    for (unsigned j = 0; !err && j < agg_cnt; j++) err = add_aggregate(g, agg[j]->name, agg[j]->value);
    free(vec);
    free(agg);
    if (err) {
        if (g) rung_free(g);
        return err;
    }
    r->rung_cnt++;
    return 0;
}

/* ---- JSON output files ------------------------------------------------------------------ */

static int fail(char *err, size_t err_sz, const char *fmt, ...) VMAF_PRINTF(3, 4);
static int fail(char *err, size_t err_sz, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_sz, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* The first len bytes of name name a feature: an extractor, a feature it provides (its
 * internal name or its output alias), or one of the outputs no provided name covers. */
static bool feature_base(const char *name, size_t len)
{
    static const char *const unlisted[] = { "mse" }; /* psnr's enable_mse: mse_y, ... */
    char base[128], internal[160];
    if (len >= sizeof(base)) return false;
    memcpy(base, name, len);
    base[len] = '\0';
    if (vmaf_feature_extractor_by_name(base) || vmaf_feature_extractor_by_feature_name(base))
        return true;
    for (size_t i = 0; i < sizeof(unlisted) / sizeof(unlisted[0]); i++)
        if (!strcmp(base, unlisted[i])) return true;
    /* an output alias (alias.c): the internal names it can stand for */
    const bool integer = !strncmp(base, "integer_", 8);
    snprintf(internal, sizeof(internal), integer ? "VMAF_integer_feature_%s_score"
             : "VMAF_feature_%s_score", integer ? base + 8 : base);
    return !strcmp(vmaf_feature_name_alias(internal), base) &&
           vmaf_feature_extractor_by_feature_name(internal);
}

/* A JSON file says nothing of which metrics are model scores (--model ...:name= gives a score
 * any name): one is "vmaf" or "vmaf_..." or a name no feature extractor writes, that is, no
 * feature base (feature_base) alone or followed by '_' and more (the option suffixes of the
 * naming rule, an extractor's further outputs). */
static bool json_model_name(const char *name)
{
    if (!strcmp(name, "vmaf") || !strncmp(name, "vmaf_", 5)) return true;
    for (size_t i = 0;; i++) {
        if ((name[i] == '_' || !name[i]) && i && feature_base(name, i)) return false;
        if (!name[i]) return true;
    }
}

/* A JSON number or null (NAN); false for anything else. */
static bool json_value(const VmafJson *v, double *out)
{
    if (v->type == VMAF_JSON_NULL) *out = NAN;
    else if (v->type == VMAF_JSON_NUMBER) *out = v->number;
    else return false;
    return true;
}

/* A rung read from a JSON file frame by frame: its frame and value arrays hold cap frames;
 * err: why a frame was refused. */
typedef struct JsonRung {
    VmafReportRung *g;
    unsigned cap;
    char *err;
    size_t err_sz;
} JsonRung;

/* Room for frame i in the rung's arrays (doubling). 0 or -ENOMEM. */
static int json_room(JsonRung *jr, unsigned i)
{
    if (i < jr->cap) return 0;
    if (jr->cap > UINT_MAX / 2) return -ENOMEM;
    const unsigned cap = jr->cap ? 2 * jr->cap : 1024;
    VmafReportRung *g = jr->g;
    unsigned *f = realloc(g->frame, cap * sizeof(*f));
    if (!f) return -ENOMEM;
    g->frame = f;
    for (unsigned j = 0; j < g->metric_cnt; j++) {
        double *v = realloc(g->metric[j].value, cap * sizeof(*v));
        if (!v) return -ENOMEM;
        g->metric[j].value = v;
    }
    jr->cap = cap;
    return 0;
}

/* The metric named name in g (hint: the position it had in the previous frame), added with
 * frames [0, frames] NAN when new (room for cap); its index or a negative errno. */
static int json_metric(VmafReportRung *g, const char *name, unsigned hint, unsigned cap,
                       unsigned frames)
{
    if (hint < g->metric_cnt && !strcmp(g->metric[hint].name, name)) return (int)hint;
    for (unsigned j = 0; j < g->metric_cnt; j++)
        if (!strcmp(g->metric[j].name, name)) return (int)j;
    if (g->metric_cnt >= VMAF_REPORT_MAX_METRICS) return -E2BIG;
    VmafReportMetric *m = realloc(g->metric, (g->metric_cnt + 1) * sizeof(*m));
    if (!m) return -ENOMEM;
    g->metric = m;
    m += g->metric_cnt;
    memset(m, 0, sizeof(*m));
    m->name = strdup(name);
    m->value = malloc((cap ? cap : 1) * sizeof(*m->value));
    if (!m->name || !m->value) {
        free(m->name);
        free(m->value);
        return -ENOMEM;
    }
    for (unsigned f = 0; f <= frames && f < cap; f++) m->value[f] = NAN;
    m->model = json_model_name(name);
    return (int)g->metric_cnt++;
}

/* Frame i of the "frames" array (VmafJsonItemFn): appended to the rung, or refused. */
static int json_frame(void *arg, unsigned i, const VmafJson *fr)
{
    JsonRung *jr = arg;
    VmafReportRung *g = jr->g;
    char *err = jr->err;
    const size_t err_sz = jr->err_sz;
    if (i != g->frame_cnt) return fail(err, err_sz, "a second \"frames\" array");
    const VmafJson *num = fr->type == VMAF_JSON_OBJECT ? vmaf_json_get(fr, "frameNum") : NULL;
    const VmafJson *met = fr->type == VMAF_JSON_OBJECT ? vmaf_json_get(fr, "metrics") : NULL;
    if (!num || num->type != VMAF_JSON_NUMBER || !met || met->type != VMAF_JSON_OBJECT)
        return fail(err, err_sz, "frame %u: not an object with frameNum and metrics", i);
    const double fn = num->number;
    if (!(fn >= 0 && fn <= 4294967295.0) || fn != floor(fn))
        return fail(err, err_sz, "frame %u: frameNum %s is not a frame number", i,
                    num->string ? num->string : "?");
    if (i && (unsigned)fn <= g->frame[i - 1])
        return fail(err, err_sz, "frame %u: frameNum %u after %u (frames must be in "
                    "ascending order)", i, (unsigned)fn, g->frame[i - 1]);
    const int e = json_room(jr, i);
    if (e) return e;
    g->frame[i] = (unsigned)fn;
    for (unsigned j = 0; j < g->metric_cnt; j++) g->metric[j].value[i] = NAN;
    for (unsigned k = 0; k < met->cnt; k++) {
        double v;
        if (!json_value(met->items[k], &v))
            return fail(err, err_sz, "frame %u: metric \"%.100s\" is not a number", i,
                        met->keys[k]);
        const int j = json_metric(g, met->keys[k], k, jr->cap, i);
        if (j == -E2BIG) return fail(err, err_sz, "more than %d metrics", VMAF_REPORT_MAX_METRICS);
        if (j < 0) return j;
        g->metric[j].value[i] = v;
    }
    g->frame_cnt = i + 1;
    return 0;
}

static const char *const pool_key[VMAF_POOL_METHOD_NB] = {
    [VMAF_POOL_METHOD_MIN] = "min",
    [VMAF_POOL_METHOD_MAX] = "max",
    [VMAF_POOL_METHOD_MEAN] = "mean",
    [VMAF_POOL_METHOD_HARMONIC_MEAN] = "harmonic_mean",
};

static int json_pooled_and_aggregates(VmafReportRung *g, const VmafJson *root, char *err,
                                      size_t err_sz)
{
    const VmafJson *pooled = vmaf_json_get(root, "pooled_metrics");
    if (pooled && pooled->type == VMAF_JSON_OBJECT) {
        for (unsigned k = 0; k < pooled->cnt; k++) {
            VmafReportMetric *m = NULL;
            for (unsigned j = 0; j < g->metric_cnt && !m; j++)
                if (!strcmp(g->metric[j].name, pooled->keys[k])) m = &g->metric[j];
            const VmafJson *o = pooled->items[k];
            if (!m || o->type != VMAF_JSON_OBJECT) continue; /* pooled only: nothing to draw */
            for (int p = VMAF_POOL_METHOD_MIN; p < VMAF_POOL_METHOD_NB; p++) {
                const VmafJson *v = vmaf_json_get(o, pool_key[p]);
                if (v && !json_value(v, &m->pool[p]))
                    return fail(err, err_sz, "pooled %s of \"%.100s\" is not a number",
                                pool_key[p], pooled->keys[k]);
                m->pooled[p] = v != NULL;
            }
        }
    }
    const VmafJson *agg = vmaf_json_get(root, "aggregate_metrics");
    if (agg && agg->type == VMAF_JSON_OBJECT) {
        for (unsigned k = 0; k < agg->cnt; k++) {
            double v;
            if (!json_value(agg->items[k], &v))
                return fail(err, err_sz, "aggregate \"%.100s\" is not a number", agg->keys[k]);
            const int e = add_aggregate(g, agg->keys[k], v);
            if (e) return e;
        }
    }
    return 0;
}

/* The rest of a rung once its frames are read: the checks, the version, the pooled values
 * and aggregates. */
static int json_finish(VmafReportRung *g, const VmafJson *root, char *err, size_t err_sz)
{
    const VmafJson *frames = root->type == VMAF_JSON_OBJECT ? vmaf_json_get(root, "frames") : NULL;
    if (!frames || frames->type != VMAF_JSON_ARRAY)
        return fail(err, err_sz, "not a VMAF JSON output (no \"frames\" array)");
    if (!g->frame_cnt) return fail(err, err_sz, "no frames");
    const VmafJson *version = vmaf_json_get(root, "version");
    if (version && version->type == VMAF_JSON_STRING && !(g->version = strdup(version->string)))
        return -ENOMEM;
    const int e = json_pooled_and_aggregates(g, root, err, err_sz);
    if (e) return e;
    if (!g->metric_cnt) return fail(err, err_sz, "no metric in any frame");
    return 0;
}

int vmaf_report_add_json(VmafReport *r, const VmafJson *root, const char *source, char *err,
                         size_t err_sz)
{
    if (!r || !root || !source) return -EINVAL;
    const VmafJson *frames = root->type == VMAF_JSON_OBJECT ? vmaf_json_get(root, "frames") : NULL;
    if (!frames || frames->type != VMAF_JSON_ARRAY)
        return fail(err, err_sz, "not a VMAF JSON output (no \"frames\" array)");
    VmafReportRung *g = new_rung(r, source, NULL);
    if (!g) return -ENOMEM;
    JsonRung jr = { .g = g, .err = err, .err_sz = err_sz };
    int e = 0;
    for (unsigned i = 0; !e && i < frames->cnt; i++) e = json_frame(&jr, i, frames->items[i]);
    if (!e) e = json_finish(g, root, err, err_sz);
    if (e) {
        if (e == -ENOMEM) snprintf(err, err_sz, "out of memory");
        rung_free(g);
        return e;
    }
    r->rung_cnt++;
    return 0;
}

/* A rung from the JSON file at path, its frames read as the file is parsed (the tree never
 * holds them: a long file needs the memory of its text and of the rung's values only). 0 or
 * a negative errno, the reason (prefixed with the path) in msg. */
static int add_json_file(VmafReport *r, const char *path, char *msg, size_t msg_sz)
{
    msg[0] = '\0';
    VmafReportRung *g = new_rung(r, path, NULL);
    if (!g) {
        snprintf(msg, msg_sz, "%s: out of memory", path);
        return -ENOMEM;
    }
    char why[400] = "";
    JsonRung jr = { .g = g, .err = why, .err_sz = sizeof(why) };
    VmafJson *root = NULL;
    int e = vmaf_json_parse_file_streaming(&root, path, "frames", json_frame, &jr, msg, msg_sz);
    if (!e) e = json_finish(g, root, why, sizeof(why));
    vmaf_json_free(root);
    if (e && !msg[0])
        snprintf(msg, msg_sz, "%s: %s", path, e == -ENOMEM ? "out of memory" : why);
    if (e) {
        rung_free(g);
        return e;
    }
    r->rung_cnt++;
    return 0;
}

int vmaf_report_json_files(const char *const *json_path, unsigned n, const char *path,
                           unsigned fps_num, unsigned fps_den, enum VmafLogLevel log_level)
{
    if (!json_path || !n || !path) return -EINVAL;
    VmafReport r = { .fps_num = fps_num, .fps_den = fps_num ? fps_den : 0 };
    int err = 0;
    char msg[512];
    for (unsigned k = 0; !err && k < n; k++) {
        msg[0] = '\0';
        err = json_path[k] ? add_json_file(&r, json_path[k], msg, sizeof(msg)) : -EINVAL;
        if (err)
            vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR, "report: %s\n",
                     msg[0] ? msg : "a JSON file's path is NULL");
    }
    if (!err && n == 1) err = vmaf_report_add_param(&r, "JSON output", json_path[0]);
    for (unsigned k = 0; !err && n > 1 && k < n; k++) {
        char key[32];
        snprintf(key, sizeof(key), "JSON output %u", k + 1);
        err = vmaf_report_add_param(&r, key, json_path[k]);
    }
    if (!err) {
        const char *v = r.rung[0].version;
        bool same = true;
        for (unsigned k = 1; k < n; k++)
            same = same && v && r.rung[k].version && !strcmp(v, r.rung[k].version);
        err = vmaf_report_add_param(&r, "Scored by", !v ? "unknown" : same ? v : "several "
                                    "versions (the table's Version column)");
    }
    if (!err) err = vmaf_report_add_param(&r, "Report by", VMAF_LIBRARY_VERSION);
    if (!err) err = vmaf_report_write(&r, path, json_path, n, log_level);
    vmaf_report_free(&r);
    return err;
}

VMAF_EXPORT int vmaf_report_from_json(const char *const *json_path, unsigned n,
                                      const char *report_path, unsigned fps_num,
                                      unsigned fps_den)
{
    return vmaf_report_json_files(json_path, n, report_path, fps_num, fps_den,
                                  vmaf_log_thread_level());
}
