/* Models: loading (built-in or from a path), feature names, overloads, destruction. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/model.h"

#include "feature_instance.h"
#include "log.h"
#include "model.h"

#include "export.h"

int vmaf_model_builtin(const char *version, const char **data, size_t *len)
{
    if (!version) return -EINVAL;
    for (const VmafBuiltinModel *b = vmaf_builtin_models; b->version; b++) {
        if (strcmp(b->version, version)) continue;
        *data = (const char *)b->data;
        *len = b->len;
        return 0;
    }
    return -EINVAL;
}

const char *const *vmaf_model_builtin_versions(void)
{
    return vmaf_builtin_model_versions;
}

int vmaf_model_alloc(VmafModel **model, const char *name)
{
    VmafModel *m = calloc(1, sizeof(*m));
    if (!m) return -ENOMEM;
    m->name = strdup(name);
    if (!m->name) {
        free(m);
        return -ENOMEM;
    }
    *model = m;
    return 0;
}

VMAF_EXPORT void vmaf_model_destroy(VmafModel *model)
{
    if (!model) return;
    for (unsigned i = 0; i < model->n_features; i++) {
        free(model->feature[i].name);
        free(model->feature[i].collector_name);
        vmaf_dictionary_free(&model->feature[i].opts);
    }
    free(model->feature);
    vmaf_model_source_clear(&model->source);
    vmaf_svm_free(model->svm);
    free(model->name);
    free(model);
}

/*
 * The name an extractor stores `feature` under with `opts`: the naming rule applied by a
 * throwaway instance of the extractor, so that the model looks scores up exactly where the
 * registered instance writes them. Bad option values are reported here.
 */
static int collector_name(const VmafFeatureExtractor *fex, const char *feature,
                          const VmafDictionary *opts, char **out)
{
    VmafDictionary *copy = NULL;
    int err = vmaf_dictionary_copy(opts, &copy);
    if (err) {
        vmaf_dictionary_free(&copy);
        return err;
    }
    VmafFeatureInstance *inst;
    /* unknown options are warned about when the extractor is registered */
    err = vmaf_feature_instance_create(&inst, fex, copy, VMAF_MODEL_LOG_LEVEL);
    if (err) return err;
    err = -EINVAL;
    for (unsigned i = 0; fex->provided_features[i]; i++) {
        if (strcmp(fex->provided_features[i], feature)) continue;
        *out = strdup(inst->mapped[i]);
        err = *out ? 0 : -ENOMEM;
        break;
    }
    vmaf_feature_instance_destroy(inst);
    return err;
}

int vmaf_model_resolve_features(VmafModel *model, const char *src)
{
    for (unsigned i = 0; i < model->n_features; i++) {
        VmafModelFeature *f = &model->feature[i];
        f->fex = vmaf_feature_extractor_by_feature_name(f->name);
        if (!f->fex) {
            vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_ERROR,
                     "model %s: no feature extractor provides feature \"%s\"\n", src, f->name);
            return -EINVAL;
        }
        char *name = NULL;
        int err = collector_name(f->fex, f->name, f->opts, &name);
        if (err) {
            if (err == -EINVAL)
                vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_ERROR,
                         "model %s: extractor \"%s\" refuses the options of feature \"%s\"\n",
                         src, f->fex->name, f->name);
            return err;
        }
        free(f->collector_name);
        f->collector_name = name;
    }
    return 0;
}

static void log_unknown_version(const char *version, const char *what)
{
    char list[1024];
    size_t n = 0;
    list[0] = '\0';
    for (const char *const *v = vmaf_builtin_model_versions; *v && n < sizeof(list); v++) {
        const int w = snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", *v);
        if (w < 0) break;
        n += (size_t)w;
    }
    vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_ERROR,
             "no built-in %s \"%s\"; this build has: %s\n", what, version,
             n ? list : "none (no model files were found at build time)");
}

/* The parsed document of a built-in model (by version) or of a model file (by path). */
static int parse_document(VmafJson **root, const char *version, const char *path,
                          const char *what, char *src, size_t src_sz)
{
    char msg[768];
    int err;
    if (version) {
        const char *data;
        size_t len;
        if (vmaf_model_builtin(version, &data, &len)) {
            log_unknown_version(version, what);
            return -EINVAL; /* as the reference */
        }
        snprintf(src, src_sz, "%s", version);
        err = vmaf_json_parse(root, data, len, msg, sizeof(msg));
    } else {
        snprintf(src, src_sz, "%s", path);
        err = vmaf_json_parse_file(root, path, msg, sizeof(msg));
    }
    if (err) {
        /* a file's messages start with its path */
        if (version)
            vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_ERROR, "%s %s: %s\n", what, src, msg);
        else
            vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_ERROR, "%s %s\n", what, msg);
        const char *ext = path ? strrchr(path, '.') : NULL;
        if (ext && !strcmp(ext, ".pkl"))
            vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_ERROR,
                     "pkl model files are not supported; use the json model file\n");
        /* the reference's error for a file it cannot open or read, too */
        if (err != -ENOMEM) err = -EINVAL;
    }
    return err;
}

static int load_model(VmafModel **model, const VmafModelConfig *cfg, const char *version,
                      const char *path)
{
    if (!model || (!version && !path)) return -EINVAL;
    VmafJson *root;
    char src[600];
    int err = parse_document(&root, version, path, "model", src, sizeof(src));
    if (err) return err;
    err = vmaf_model_from_json(model, cfg, root, src);
    vmaf_json_free(root);
    if (!err) err = vmaf_model_source_set(&(*model)->source, cfg, version, path);
    if (err && *model) {
        vmaf_model_destroy(*model);
        *model = NULL;
    }
    return err;
}

VMAF_EXPORT int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg, const char *version)
{
    if (!version) return -EINVAL;
    return load_model(model, cfg, version, NULL);
}

VMAF_EXPORT int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg,
                                          const char *path)
{
    if (!path) return -EINVAL;
    return load_model(model, cfg, NULL, path);
}

static int load_collection(VmafModel **model, VmafModelCollection **collection,
                           const VmafModelConfig *cfg, const char *version, const char *path)
{
    if (!model || !collection || (!version && !path)) return -EINVAL;
    VmafJson *root;
    char src[600];
    int err = parse_document(&root, version, path, "model collection", src, sizeof(src));
    if (err) return err;
    err = vmaf_model_collection_from_json(model, collection, cfg, root, src);
    vmaf_json_free(root);
    if (!err) err = vmaf_model_source_set(&(*collection)->source, cfg, version, path);
    if (!err) err = vmaf_model_source_set(&(*model)->source, cfg, version, path);
    if (err) {
        vmaf_model_destroy(*model);
        vmaf_model_collection_destroy(*collection);
        *model = NULL;
        *collection = NULL;
    }
    return err;
}

VMAF_EXPORT int vmaf_model_collection_load(VmafModel **model,
                                           VmafModelCollection **model_collection,
                                           VmafModelConfig *cfg, const char *version)
{
    if (!version) return -EINVAL;
    return load_collection(model, model_collection, cfg, version, NULL);
}

VMAF_EXPORT int vmaf_model_collection_load_from_path(VmafModel **model,
                                                     VmafModelCollection **model_collection,
                                                     VmafModelConfig *cfg, const char *path)
{
    if (!path) return -EINVAL;
    return load_collection(model, model_collection, cfg, NULL, path);
}

VMAF_EXPORT void vmaf_model_collection_destroy(VmafModelCollection *model_collection)
{
    if (!model_collection) return;
    for (unsigned i = 0; i < model_collection->cnt; i++)
        vmaf_model_destroy(model_collection->model[i]);
    free(model_collection->model);
    vmaf_model_source_clear(&model_collection->source);
    free(model_collection->name);
    free(model_collection);
}

/* ---- overloads ------------------------------------------------------------------------ */

/*
 * Merge `opts` over the options of every feature of `fex_name`. All new names are computed
 * before anything changes, so a refused option leaves the model as it was.
 */
static int overload(VmafModel *model, const char *fex_name, const VmafDictionary *opts,
                    unsigned *matched)
{
    VmafDictionary *merged[VMAF_MODEL_MAX_FEATURES] = { 0 };
    char *name[VMAF_MODEL_MAX_FEATURES] = { 0 };
    bool hit[VMAF_MODEL_MAX_FEATURES] = { 0 };
    int err = 0;
    *matched = 0;
    for (unsigned i = 0; !err && i < model->n_features; i++) {
        const VmafModelFeature *f = &model->feature[i];
        if (strcmp(f->fex->name, fex_name)) continue;
        hit[i] = true;
        (*matched)++;
        err = vmaf_dictionary_copy(f->opts, &merged[i]);
        if (!err) err = vmaf_dictionary_copy(opts, &merged[i]);
        if (!err) err = collector_name(f->fex, f->name, merged[i], &name[i]);
        if (err == -EINVAL)
            vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_ERROR,
                     "model %s: extractor \"%s\" refuses the overloaded options\n", model->name,
                     fex_name);
    }
    for (unsigned i = 0; i < model->n_features; i++) {
        if (!hit[i]) continue;
        VmafModelFeature *f = &model->feature[i];
        if (err) {
            vmaf_dictionary_free(&merged[i]);
            free(name[i]);
            continue;
        }
        vmaf_dictionary_free(&f->opts);
        f->opts = merged[i];
        free(f->collector_name);
        f->collector_name = name[i];
    }
    return err;
}

/*
 * Ownership of opts_dict follows reference libvmaf's, case by case, so that a caller written
 * for it neither leaks nor frees twice: a NULL argument leaves the dictionary with the
 * caller; so does -ENOMEM while merging it into the model's options (the reference's only
 * failure before it frees); every other outcome (success, a refused option value, which the
 * reference accepts, or bookkeeping that fails later) frees it.
 */
VMAF_EXPORT int vmaf_model_feature_overload(VmafModel *model, const char *fex_name,
                                            VmafFeatureDictionary *opts_dict)
{
    if (!model || !fex_name || !opts_dict) return -EINVAL;
    unsigned matched = 0;
    int err = overload(model, fex_name, opts_dict, &matched);
    if (err == -ENOMEM) return err;
    if (!err) err = vmaf_model_source_add_overload(&model->source, fex_name, opts_dict);
    if (!err && !matched)
        vmaf_log(VMAF_MODEL_LOG_LEVEL, VMAF_LOG_LEVEL_WARNING,
                 "model %s: uses no feature of extractor \"%s\"; its options are ignored\n",
                 model->name, fex_name);
    vmaf_dictionary_free(&opts_dict);
    return err;
}

/*
 * As the reference: the members get copies, entry "0" (model) the dictionary itself, under
 * vmaf_model_feature_overload's rule; a NULL collection leaves it with the caller (the
 * reference reads through a NULL *model_collection; here that is -EINVAL, also leaving it).
 */
VMAF_EXPORT int vmaf_model_collection_feature_overload(VmafModel *model,
                                                       VmafModelCollection **model_collection,
                                                       const char *fex_name,
                                                       VmafFeatureDictionary *opts_dict)
{
    if (!model_collection || !*model_collection) return -EINVAL;
    if (!model || !fex_name || !opts_dict) return -EINVAL;
    int err = 0;
    const VmafModelCollection *mc = *model_collection;
    for (unsigned i = 0; !err && i < mc->cnt; i++) {
        unsigned matched;
        err = overload(mc->model[i], fex_name, opts_dict, &matched);
    }
    if (!err)
        err = vmaf_model_source_add_overload(&(*model_collection)->source, fex_name, opts_dict);
    if (err) {
        vmaf_dictionary_free(&opts_dict);
        return err;
    }
    /* entry "0" takes the dictionary, and warns if nothing matched */
    return vmaf_model_feature_overload(model, fex_name, opts_dict);
}

/* ---- sources (for the segment merge) -------------------------------------------------- */

void vmaf_model_source_clear(VmafModelSource *src)
{
    free(src->version);
    free(src->path);
    free(src->cfg_name);
    for (unsigned i = 0; i < src->overload_cnt; i++) {
        free(src->overload[i].fex_name);
        vmaf_dictionary_free(&src->overload[i].opts);
    }
    free(src->overload);
    memset(src, 0, sizeof(*src));
}

static int dup_or_null(const char *s, char **out)
{
    *out = NULL;
    if (!s) return 0;
    *out = strdup(s);
    return *out ? 0 : -ENOMEM;
}

int vmaf_model_source_set(VmafModelSource *src, const VmafModelConfig *cfg,
                          const char *version, const char *path)
{
    vmaf_model_source_clear(src);
    char *abs = path ? realpath(path, NULL) : NULL;
    int err = dup_or_null(version, &src->version);
    if (!err) err = dup_or_null(abs ? abs : path, &src->path);
    free(abs);
    if (!err && cfg) err = dup_or_null(cfg->name, &src->cfg_name);
    if (cfg) src->cfg_flags = cfg->flags;
    if (err) vmaf_model_source_clear(src);
    return err;
}

int vmaf_model_source_add_overload(VmafModelSource *src, const char *fex_name,
                                   const VmafDictionary *opts)
{
    VmafModelOverload *list = realloc(src->overload, (src->overload_cnt + 1) * sizeof(*list));
    if (!list) return -ENOMEM;
    src->overload = list;
    VmafModelOverload *o = &list[src->overload_cnt];
    *o = (VmafModelOverload){ 0 };
    int err = dup_or_null(fex_name, &o->fex_name);
    if (!err) err = vmaf_dictionary_copy(opts, &o->opts);
    if (err) {
        free(o->fex_name);
        vmaf_dictionary_free(&o->opts);
        return err;
    }
    src->overload_cnt++;
    return 0;
}

int vmaf_model_source_copy(const VmafModelSource *from, VmafModelSource *to)
{
    *to = (VmafModelSource){ .cfg_flags = from->cfg_flags };
    int err = dup_or_null(from->version, &to->version);
    if (!err) err = dup_or_null(from->path, &to->path);
    if (!err) err = dup_or_null(from->cfg_name, &to->cfg_name);
    for (unsigned i = 0; !err && i < from->overload_cnt; i++)
        err = vmaf_model_source_add_overload(to, from->overload[i].fex_name,
                                             from->overload[i].opts);
    if (err) vmaf_model_source_clear(to);
    return err;
}
