/* Model files: the "model_dict" of a JSON model file into a VmafModel (CONTRACT.md §5). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "model.h"

static int refuse(const char *src, const char *fmt, ...) VMAF_PRINTF(2, 3);

static int refuse(const char *src, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_ERROR, "model %s: %s\n", src, msg);
    return -EINVAL;
}

static const char *kind(const VmafJson *j)
{
    switch (j->type) {
    case VMAF_JSON_NULL: return "null";
    case VMAF_JSON_BOOL: return "a boolean";
    case VMAF_JSON_NUMBER: return "a number";
    case VMAF_JSON_STRING: return "a string";
    case VMAF_JSON_ARRAY: return "an array";
    case VMAF_JSON_OBJECT: return "an object";
    }
    return "?";
}

static int expect(const VmafJson *j, enum VmafJsonType type, const char *what, const char *src)
{
    static const char *const wanted[] = {
        [VMAF_JSON_NULL] = "null", [VMAF_JSON_BOOL] = "a boolean",
        [VMAF_JSON_NUMBER] = "a number", [VMAF_JSON_STRING] = "a string",
        [VMAF_JSON_ARRAY] = "an array", [VMAF_JSON_OBJECT] = "an object",
    };
    if (j->type == type) return 0;
    return refuse(src, "%s is %s, expected %s", what, kind(j), wanted[type]);
}

/* A number that prediction can use: 1e999 parses as inf, which would poison every score. */
static int finite_number(const VmafJson *j, const char *what, const char *src, double *out)
{
    int err = expect(j, VMAF_JSON_NUMBER, what, src);
    if (err) return err;
    if (!isfinite(j->number)) return refuse(src, "%s is %.40s, not a finite number", what, j->string);
    *out = j->number;
    return 0;
}

/* Every object of the file, at any depth: a key given twice is refused (which one counts?). */
static int unique_keys(const VmafJson *j, const char *src)
{
    if (j->type != VMAF_JSON_ARRAY && j->type != VMAF_JSON_OBJECT) return 0;
    for (unsigned i = 0; i < j->cnt; i++) {
        if (j->type == VMAF_JSON_OBJECT)
            for (unsigned k = 0; k < i; k++)
                if (!strcmp(j->keys[k], j->keys[i]))
                    return refuse(src, "key \"%.64s\" is given twice in one object", j->keys[i]);
        int err = unique_keys(j->items[i], src);
        if (err) return err;
    }
    return 0;
}

static const VmafJson *required(const VmafJson *dict, const char *key, enum VmafJsonType type,
                                const char *src, int *err)
{
    const VmafJson *j = vmaf_json_get(dict, key);
    if (!j) {
        *err = refuse(src, "model_dict has no \"%s\"", key);
        return NULL;
    }
    char what[64];
    snprintf(what, sizeof(what), "model_dict.%s", key);
    *err = expect(j, type, what, src);
    return *err ? NULL : j;
}

static int parse_model_type(VmafModel *m, const VmafJson *dict, const char *src)
{
    int err;
    const VmafJson *j = required(dict, "model_type", VMAF_JSON_STRING, src, &err);
    if (!j) return err;
    if (!strcmp(j->string, "LIBSVMNUSVR")) m->type = VMAF_MODEL_TYPE_SVM_NUSVR;
    else if (!strcmp(j->string, "BOOTSTRAP_LIBSVMNUSVR")) m->type = VMAF_MODEL_TYPE_BOOTSTRAP_SVM_NUSVR;
    else if (!strcmp(j->string, "RESIDUEBOOTSTRAP_LIBSVMNUSVR"))
        m->type = VMAF_MODEL_TYPE_RESIDUE_BOOTSTRAP_SVM_NUSVR;
    else
        return refuse(src, "unknown model_type \"%.64s\" (LIBSVMNUSVR, BOOTSTRAP_LIBSVMNUSVR or "
                      "RESIDUEBOOTSTRAP_LIBSVMNUSVR)", j->string);
    return 0;
}

static int parse_norm_type(VmafModel *m, const VmafJson *dict, const char *src)
{
    int err;
    const VmafJson *j = required(dict, "norm_type", VMAF_JSON_STRING, src, &err);
    if (!j) return err;
    if (!strcmp(j->string, "linear_rescale")) m->norm = VMAF_MODEL_NORMALIZATION_LINEAR_RESCALE;
    else if (!strcmp(j->string, "none")) m->norm = VMAF_MODEL_NORMALIZATION_NONE;
    else return refuse(src, "unknown norm_type \"%.64s\" (linear_rescale or none)", j->string);
    return 0;
}

static int parse_feature_names(VmafModel *m, const VmafJson *dict, const char *src)
{
    int err;
    const VmafJson *j = required(dict, "feature_names", VMAF_JSON_ARRAY, src, &err);
    if (!j) return err;
    if (!j->cnt) return refuse(src, "feature_names is empty");
    if (j->cnt > VMAF_MODEL_MAX_FEATURES)
        return refuse(src, "%u feature_names; at most %d are supported", j->cnt,
                      VMAF_MODEL_MAX_FEATURES);
    m->feature = calloc(j->cnt, sizeof(*m->feature));
    if (!m->feature) return -ENOMEM;
    for (unsigned i = 0; i < j->cnt; i++) {
        char what[48];
        snprintf(what, sizeof(what), "feature_names[%u]", i);
        err = expect(j->items[i], VMAF_JSON_STRING, what, src);
        if (err) return err;
        m->feature[i].name = strdup(j->items[i]->string);
        if (!m->feature[i].name) return -ENOMEM;
        m->n_features = i + 1;
    }
    return 0;
}

/* slopes / intercepts: entry 0 for the score, entry k+1 for feature k. */
static int parse_rescale(VmafModel *m, const VmafJson *dict, const char *key, bool slopes,
                         const char *src)
{
    const VmafJson *j = vmaf_json_get(dict, key);
    if (!j) {
        if (m->norm == VMAF_MODEL_NORMALIZATION_NONE) return 0;
        return refuse(src, "model_dict has no \"%s\" (norm_type is linear_rescale)", key);
    }
    char what[48];
    snprintf(what, sizeof(what), "model_dict.%s", key);
    int err = expect(j, VMAF_JSON_ARRAY, what, src);
    if (err) return err;
    if (j->cnt < m->n_features + 1)
        return refuse(src, "%s has %u numbers; %u features need %u", key, j->cnt, m->n_features,
                      m->n_features + 1);
    if (j->cnt > VMAF_MODEL_MAX_FEATURES + 1)
        return refuse(src, "%s has %u numbers; at most %d are supported", key, j->cnt,
                      VMAF_MODEL_MAX_FEATURES + 1);
    for (unsigned i = 0; i < j->cnt; i++) {
        snprintf(what, sizeof(what), "%s[%u]", key, i);
        double v = 0;
        err = finite_number(j->items[i], what, src, &v);
        if (err) return err;
        if (i > m->n_features) continue; /* extra entries are allowed and unused */
        if (!i) *(slopes ? &m->slope : &m->intercept) = v;
        else if (slopes) m->feature[i - 1].slope = v;
        else m->feature[i - 1].intercept = v;
    }
    return 0;
}

static int parse_score_clip(VmafModel *m, const VmafJson *dict, uint64_t flags, const char *src)
{
    const VmafJson *j = vmaf_json_get(dict, "score_clip");
    if (!j) return 0;
    int err = expect(j, VMAF_JSON_ARRAY, "model_dict.score_clip", src);
    if (err) return err;
    if (j->cnt != 2) return refuse(src, "score_clip has %u entries, expected [min, max]", j->cnt);
    if ((err = finite_number(j->items[0], "score_clip[0]", src, &m->clip.min)) ||
        (err = finite_number(j->items[1], "score_clip[1]", src, &m->clip.max)))
        return err;
    if (m->clip.min > m->clip.max)
        return refuse(src, "score_clip [%g, %g] is inverted: min must not exceed max", m->clip.min,
                      m->clip.max);
    m->clip.enabled = !(flags & VMAF_MODEL_FLAG_DISABLE_CLIP);
    return 0;
}

static int parse_term(VmafModelTerm *t, const VmafJson *transform, const char *key,
                      const char *src)
{
    const VmafJson *j = vmaf_json_get(transform, key);
    if (!j || j->type == VMAF_JSON_NULL) return 0;
    char what[48];
    snprintf(what, sizeof(what), "score_transform.%s", key);
    int err = finite_number(j, what, src, &t->value);
    if (err) return err;
    t->set = true;
    return 0;
}

static int parse_knots(VmafModel *m, const VmafJson *j, const char *src)
{
    if (j->type == VMAF_JSON_NULL) return 0;
    int err = expect(j, VMAF_JSON_ARRAY, "score_transform.knots", src);
    if (err) return err;
    if (j->cnt > VMAF_MODEL_MAX_KNOTS)
        return refuse(src, "score_transform.knots has %u knots; at most %d are supported", j->cnt,
                      VMAF_MODEL_MAX_KNOTS);
    for (unsigned i = 0; i < j->cnt; i++) {
        const VmafJson *k = j->items[i];
        char what[48];
        snprintf(what, sizeof(what), "score_transform.knots[%u]", i);
        err = expect(k, VMAF_JSON_ARRAY, what, src);
        if (err) return err;
        if (k->cnt != 2) return refuse(src, "%s has %u numbers, expected [x, y]", what, k->cnt);
        VmafModelKnot knot;
        if ((err = finite_number(k->items[0], what, src, &knot.x)) ||
            (err = finite_number(k->items[1], what, src, &knot.y)))
            return err;
        m->transform.knot[i] = knot;
    }
    m->transform.knots_set = true;
    m->transform.n_knots = j->cnt;
    return 0;
}

static int parse_rectify(bool *flag, const VmafJson *transform, const char *key, const char *src)
{
    const VmafJson *j = vmaf_json_get(transform, key);
    if (!j) return 0;
    char what[48];
    snprintf(what, sizeof(what), "score_transform.%s", key);
    int err = expect(j, VMAF_JSON_STRING, what, src);
    if (err) return err;
    *flag = !strcmp(j->string, "true");
    return 0;
}

static int parse_score_transform(VmafModel *m, const VmafJson *dict, uint64_t flags,
                                 const char *src)
{
    const VmafJson *t = vmaf_json_get(dict, "score_transform");
    if (!t) return 0; /* no transform to enable, even with VMAF_MODEL_FLAG_ENABLE_TRANSFORM */
    int err = expect(t, VMAF_JSON_OBJECT, "model_dict.score_transform", src);
    if (err) return err;
    bool enabled = false;
    const VmafJson *e = vmaf_json_get(t, "enabled");
    if (e) {
        err = expect(e, VMAF_JSON_BOOL, "score_transform.enabled", src);
        if (err) return err;
        enabled = e->boolean;
    }
    const VmafJson *knots = vmaf_json_get(t, "knots");
    if ((err = parse_term(&m->transform.p0, t, "p0", src)) ||
        (err = parse_term(&m->transform.p1, t, "p1", src)) ||
        (err = parse_term(&m->transform.p2, t, "p2", src)) ||
        (knots && (err = parse_knots(m, knots, src))) ||
        (err = parse_rectify(&m->transform.out_lte_in, t, "out_lte_in", src)) ||
        (err = parse_rectify(&m->transform.out_gte_in, t, "out_gte_in", src)))
        return err;
    m->transform.enabled = enabled || (flags & VMAF_MODEL_FLAG_ENABLE_TRANSFORM);

    /* The piecewise-linear map is defined for x strictly and y weakly increasing knots;
     * the reference computes garbage for others, so a transform in use must have them. */
    if (m->transform.enabled && m->transform.knots_set && m->transform.n_knots > 1) {
        for (unsigned i = 0; i + 1 < m->transform.n_knots; i++) {
            const VmafModelKnot a = m->transform.knot[i], b = m->transform.knot[i + 1];
            if (!(a.x < b.x && a.y <= b.y))
                return refuse(src, "score_transform.knots[%u] and [%u]: x must increase and y "
                              "must not decrease", i, i + 1);
        }
    }
    return 0;
}

static int parse_chroma(VmafModel *m, const VmafJson *dict, const char *src)
{
    const VmafJson *j = vmaf_json_get(dict, "chroma_correction_parameter");
    if (!j) return 0;
    int err = finite_number(j, "model_dict.chroma_correction_parameter", src, &m->chroma.parameter);
    if (err) return err;
    m->chroma.enabled = true;
    if (m->chroma.parameter == 0.) return 0; /* no correction, and no score (see predict) */
    /* the correction guides the speed_chroma feature by the adm3 one: exactly one each */
    unsigned guiding = 0, guided = 0;
    for (unsigned i = 0; i < m->n_features; i++) {
        guiding += strstr(m->feature[i].name, "adm3") != NULL;
        guided += strstr(m->feature[i].name, "speed_chroma") != NULL;
    }
    if (guiding != 1 || guided != 1)
        return refuse(src, "chroma_correction_parameter needs exactly one feature named *adm3* "
                      "and one named *speed_chroma* (found %u and %u)", guiding, guided);
    return 0;
}

static int parse_opts_dict(VmafDictionary **opts, const VmafJson *j, unsigned k, const char *src)
{
    char what[64];
    snprintf(what, sizeof(what), "feature_opts_dicts[%u]", k);
    int err = expect(j, VMAF_JSON_OBJECT, what, src);
    if (err) return err;
    for (unsigned i = 0; i < j->cnt; i++) {
        const VmafJson *v = j->items[i];
        const char *key = j->keys[i];
        uint64_t flags = VMAF_DICT_DO_NOT_OVERWRITE;
        const char *val;
        switch (v->type) {
        case VMAF_JSON_NUMBER:
            if (!isfinite(v->number))
                return refuse(src, "%s.%.64s is %.40s, not a finite number", what, key, v->string);
            /* the number as written, normalized as strtof + "%g" */
            flags |= VMAF_DICT_NORMALIZE_NUMERICAL_VALUES;
            val = v->string;
            break;
        case VMAF_JSON_BOOL: val = v->boolean ? "true" : "false"; break;
        case VMAF_JSON_STRING: val = v->string; break;
        default:
            return refuse(src, "%s.%.64s is %s, expected a number, boolean or string", what, key,
                          kind(v));
        }
        err = vmaf_dictionary_set(opts, key, val, flags);
        if (err == -EINVAL)
            return refuse(src, "%s.%.64s is given twice with different values", what, key);
        if (err) return err;
    }
    return 0;
}

static int parse_feature_opts(VmafModel *m, const VmafJson *dict, const char *src)
{
    const VmafJson *j = vmaf_json_get(dict, "feature_opts_dicts");
    if (!j) return 0;
    int err = expect(j, VMAF_JSON_ARRAY, "model_dict.feature_opts_dicts", src);
    if (err) return err;
    if (j->cnt > VMAF_MODEL_MAX_FEATURES)
        return refuse(src, "feature_opts_dicts has %u entries; at most %d are supported", j->cnt,
                      VMAF_MODEL_MAX_FEATURES);
    for (unsigned k = 0; k < j->cnt; k++) {
        /* entries past the last feature are checked, then dropped */
        VmafDictionary *unused = NULL;
        err = parse_opts_dict(k < m->n_features ? &m->feature[k].opts : &unused, j->items[k], k,
                              src);
        vmaf_dictionary_free(&unused);
        if (err) return err;
    }
    return 0;
}

static int parse_svm(VmafModel *m, const VmafJson *dict, const char *src)
{
    int err;
    const VmafJson *j = required(dict, "model", VMAF_JSON_STRING, src, &err);
    if (!j) return err;
    char msg[256];
    msg[0] = '\0';
    err = vmaf_svm_parse(&m->svm, j->string, strlen(j->string), msg, sizeof(msg));
    if (err == -EINVAL) return refuse(src, "model_dict.model: %s", msg);
    if (err) return err;
    if (!m->svm->sv_cnt) return refuse(src, "model_dict.model: total_sv is 0 (no support vectors)");
    /* libsvm indices are 1-based feature numbers: any other would compare a feature that
     * does not exist (its value taken as 0) */
    for (unsigned sv = 0; sv < m->svm->sv_cnt; sv++)
        for (size_t k = m->svm->sv_start[sv]; k < m->svm->sv_start[sv + 1]; k++) {
            const int index = m->svm->node[k].index;
            if (index < 1 || (unsigned)index > m->n_features)
                return refuse(src, "model_dict.model: support vector %u has index %d; the %u "
                              "feature_names allow 1..%u", sv + 1, index, m->n_features,
                              m->n_features);
        }
    return 0;
}

static int parse_model_dict(VmafModel *m, const VmafJson *dict, uint64_t flags, const char *src)
{
    int err = expect(dict, VMAF_JSON_OBJECT, "model_dict", src);
    if (err) return err;
    if ((err = parse_model_type(m, dict, src)) || (err = parse_norm_type(m, dict, src)) ||
        (err = parse_feature_names(m, dict, src)) ||
        (err = parse_rescale(m, dict, "slopes", true, src)) ||
        (err = parse_rescale(m, dict, "intercepts", false, src)) ||
        (err = parse_score_clip(m, dict, flags, src)) ||
        (err = parse_score_transform(m, dict, flags, src)) ||
        (err = parse_chroma(m, dict, src)) || (err = parse_feature_opts(m, dict, src)) ||
        (err = parse_svm(m, dict, src)))
        return err;
    return vmaf_model_resolve_features(m, src);
}

static int model_from_dict(VmafModel **model, const char *name, uint64_t flags,
                           const VmafJson *dict, const char *src)
{
    VmafModel *m;
    int err = vmaf_model_alloc(&m, name);
    if (err) return err;
    err = parse_model_dict(m, dict, flags, src);
    if (err) {
        if (err == -ENOMEM) refuse(src, "out of memory");
        vmaf_model_destroy(m);
        return err;
    }
    *model = m;
    return 0;
}

int vmaf_model_from_json(VmafModel **model, const VmafModelConfig *cfg, const VmafJson *root,
                         const char *src)
{
    if (root->type != VMAF_JSON_OBJECT)
        return refuse(src, "the document is %s, expected an object", kind(root));
    int err = unique_keys(root, src);
    if (err) return err;
    const VmafJson *dict = vmaf_json_get(root, "model_dict");
    if (!dict) {
        /* quiet when it is a collection: callers (the CLI) try that next */
        if (vmaf_json_get(root, "0")) {
            vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_DEBUG,
                     "model %s: a model collection, not a single model\n", src);
            return -EINVAL;
        }
        return refuse(src, "no top-level \"model_dict\"");
    }
    return model_from_dict(model, cfg && cfg->name ? cfg->name : "vmaf", cfg ? cfg->flags : 0,
                           dict, src);
}

static int collection_append(VmafModelCollection *mc, VmafModel *m, const char *src)
{
    if (!mc->cnt) {
        mc->type = m->type;
        if (m->type != VMAF_MODEL_TYPE_BOOTSTRAP_SVM_NUSVR &&
            m->type != VMAF_MODEL_TYPE_RESIDUE_BOOTSTRAP_SVM_NUSVR)
            return refuse(src, "entry \"1\" of a model collection has model_type %s; expected "
                          "BOOTSTRAP_LIBSVMNUSVR or RESIDUEBOOTSTRAP_LIBSVMNUSVR",
                          m->type == VMAF_MODEL_TYPE_SVM_NUSVR ? "LIBSVMNUSVR" : "?");
    } else if (m->type != mc->type) {
        return refuse(src, "entry \"%u\" has another model_type than entry \"1\"", mc->cnt + 1);
    }
    if (!(mc->cnt & (mc->cnt - 1))) { /* 0, 1, 2, 4, ...: grow */
        VmafModel **list = realloc(mc->model, (mc->cnt ? 2 * mc->cnt : 1) * sizeof(*list));
        if (!list) return -ENOMEM;
        mc->model = list;
    }
    mc->model[mc->cnt++] = m;
    return 0;
}

int vmaf_model_collection_from_json(VmafModel **model, VmafModelCollection **collection,
                                    const VmafModelConfig *cfg, const VmafJson *root,
                                    const char *src)
{
    if (root->type != VMAF_JSON_OBJECT)
        return refuse(src, "the document is %s, expected an object", kind(root));
    int dup = unique_keys(root, src);
    if (dup) return dup;
    if (!vmaf_json_get(root, "0")) {
        if (vmaf_json_get(root, "model_dict")) {
            vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_DEBUG,
                     "model %s: a single model, not a model collection\n", src);
            return -EINVAL;
        }
        return refuse(src, "no top-level \"0\": not a model collection");
    }
    const char *name = cfg && cfg->name ? cfg->name : "vmaf";
    const uint64_t flags = cfg ? cfg->flags : 0;
    VmafModelCollection *mc = calloc(1, sizeof(*mc));
    if (!mc) return -ENOMEM;
    mc->name = strdup(name);
    if (!mc->name) {
        free(mc);
        return -ENOMEM;
    }
    VmafModel *first = NULL;
    int err = 0;
    /* entries are taken in key order while they count up from "0", as the reference does */
    unsigned next = 0;
    for (unsigned i = 0; !err && i < root->cnt; i++) {
        char key[16];
        snprintf(key, sizeof(key), "%u", next);
        if (strcmp(root->keys[i], key)) continue;
        const VmafJson *entry = root->items[i];
        char entry_src[600];
        snprintf(entry_src, sizeof(entry_src), "%.512s, entry \"%u\"", src, next);
        if (entry->type != VMAF_JSON_OBJECT) {
            err = refuse(entry_src, "is %s, expected an object", kind(entry));
            break;
        }
        const VmafJson *dict = vmaf_json_get(entry, "model_dict");
        if (!dict) {
            err = refuse(entry_src, "no \"model_dict\"");
            break;
        }
        char member_name[512];
        snprintf(member_name, sizeof(member_name), "%.490s_%04u", name, next);
        VmafModel *m;
        err = model_from_dict(&m, next ? member_name : name, flags, dict, entry_src);
        if (err) break;
        if (!next) {
            first = m;
        } else {
            err = collection_append(mc, m, src);
            if (err) vmaf_model_destroy(m);
        }
        next++;
    }
    if (!err && mc->cnt < 1)
        err = refuse(src, "a model collection needs entries \"0\" and \"1\" at least");
    if (err) {
        vmaf_model_destroy(first);
        vmaf_model_collection_destroy(mc);
        return err;
    }
    *model = first;
    *collection = mc;
    return 0;
}
