/*
 * Scoring with models through a context: registering a model's extractors, per-frame
 * predictions (stored in the collector, so they appear in the output after the features)
 * and pooling.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "log.h"
#include "model.h"

#include "export.h"

static int register_model_features(VmafContext *vmaf, const VmafModel *model)
{
    for (unsigned i = 0; i < model->n_features; i++) {
        const VmafModelFeature *f = &model->feature[i];
        VmafDictionary *opts = NULL;
        int err = vmaf_dictionary_copy(f->opts, &opts);
        if (err) {
            vmaf_dictionary_free(&opts);
            return err;
        }
        /* an extractor already registered with the same feature parameters is dropped */
        err = vmaf_context_use_extractor(vmaf, f->fex, opts);
        if (err) {
            vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                     "model %s: could not register extractor \"%s\" for feature \"%s\"\n",
                     model->name, f->fex->name, f->name);
            return err;
        }
    }
    return 0;
}

VMAF_EXPORT int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model)
{
    if (!vmaf || !model) return -EINVAL;
    /* the model's score must not share an output name with a feature or another score */
    const char *name = model->name;
    int err = vmaf_context_claim_score_names(vmaf, model, &name, 1);
    if (!err) err = register_model_features(vmaf, model);
    if (!err) err = vmaf_context_record_model(vmaf, model, false, &model->source);
    return err;
}

enum { BAGGING, STDDEV, CI_LO, CI_HI, BOOTSTRAP_OUTPUTS };

static void bootstrap_names(const VmafModelCollection *mc, char name[BOOTSTRAP_OUTPUTS][600]);

VMAF_EXPORT int vmaf_use_features_from_model_collection(VmafContext *vmaf,
                                                        VmafModelCollection *model_collection)
{
    if (!vmaf || !model_collection) return -EINVAL;
    /* the collection's own name (its entry "0"), its members and the bootstrap outputs */
    const VmafModelCollection *mc = model_collection;
    char boot[BOOTSTRAP_OUTPUTS][600];
    bootstrap_names(mc, boot);
    const char **names = malloc((1 + mc->cnt + BOOTSTRAP_OUTPUTS) * sizeof(*names));
    if (!names) return -ENOMEM;
    unsigned n = 0;
    names[n++] = mc->name;
    for (unsigned i = 0; i < mc->cnt; i++) names[n++] = mc->model[i]->name;
    for (unsigned i = 0; i < BOOTSTRAP_OUTPUTS; i++) names[n++] = boot[i];
    int err = vmaf_context_claim_score_names(vmaf, mc, names, n);
    free(names);
    for (unsigned i = 0; !err && i < mc->cnt; i++) err = register_model_features(vmaf, mc->model[i]);
    if (!err) err = vmaf_context_record_model(vmaf, mc, true, &mc->source);
    return err;
}

/* The stored score of `model` at index, or a new prediction, stored. */
static int model_score(VmafContext *vmaf, const VmafModel *model, unsigned index, double *score)
{
    if (!vmaf_feature_collector_get_score(vmaf->fc, model->name, score, index)) return 0;
    double s;
    bool written;
    int err = vmaf_model_predict(model, vmaf->fc, index, 0, &s, &written, vmaf->cfg.log_level);
    if (err || !written) return err;
    err = vmaf_feature_collector_append_late(vmaf->fc, model->name, s, index);
    if (err) return err;
    *score = s;
    return 0;
}

VMAF_EXPORT int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score,
                                    unsigned index)
{
    if (!vmaf || !model || !score) return -EINVAL;
    return model_score(vmaf, model, index, score);
}

static void bootstrap_names(const VmafModelCollection *mc, char name[BOOTSTRAP_OUTPUTS][600])
{
    static const char *const suffix[BOOTSTRAP_OUTPUTS] = { "_bagging", "_stddev", "_ci_p95_lo",
                                                           "_ci_p95_hi" };
    for (unsigned i = 0; i < BOOTSTRAP_OUTPUTS; i++)
        snprintf(name[i], sizeof(name[i]), "%.500s%s", mc->name, suffix[i]);
}

static double *bootstrap_field(VmafModelCollectionScore *score, unsigned i)
{
    switch (i) {
    case BAGGING: return &score->bootstrap.bagging_score;
    case STDDEV: return &score->bootstrap.stddev;
    case CI_LO: return &score->bootstrap.ci.p95.lo;
    default: return &score->bootstrap.ci.p95.hi;
    }
}

static int collection_score(VmafContext *vmaf, const VmafModelCollection *mc, unsigned index,
                            VmafModelCollectionScore *score)
{
    char name[BOOTSTRAP_OUTPUTS][600];
    bootstrap_names(mc, name);

    /* scored before: the stored values */
    unsigned stored = 0;
    for (unsigned i = 0; i < BOOTSTRAP_OUTPUTS; i++)
        stored += !vmaf_feature_collector_get_score(vmaf->fc, name[i],
                                                    bootstrap_field(score, i), index);
    if (stored == BOOTSTRAP_OUTPUTS) {
        score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
        return 0;
    }

    double *raw = malloc(mc->cnt * sizeof(*raw));
    if (!raw) return -ENOMEM;
    int err = 0;
    for (unsigned i = 0; !err && i < mc->cnt; i++) {
        /* the statistics use each member's prediction before transform and clip; the
         * member's own score (transformed, clipped) is stored under its name */
        const uint64_t raw_flags = VMAF_MODEL_FLAG_DISABLE_CLIP | VMAF_MODEL_FLAG_DISABLE_TRANSFORM;
        bool written;
        err = vmaf_model_predict(mc->model[i], vmaf->fc, index, raw_flags, &raw[i], &written,
                                 vmaf->cfg.log_level);
        if (!err && !written) {
            vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                     "model %s: chroma_correction_parameter 0 gives no score\n",
                     mc->model[i]->name);
            err = -EINVAL;
        }
        double s;
        if (!err) err = model_score(vmaf, mc->model[i], index, &s);
    }
    if (!err) {
        vmaf_model_bootstrap(mc->model[0], raw, mc->cnt, score);
        for (unsigned i = 0; !err && i < BOOTSTRAP_OUTPUTS; i++)
            err = vmaf_feature_collector_append_late(vmaf->fc, name[i], *bootstrap_field(score, i),
                                                     index);
    }
    free(raw);
    return err;
}

VMAF_EXPORT int vmaf_score_at_index_model_collection(VmafContext *vmaf,
                                                     VmafModelCollection *model_collection,
                                                     VmafModelCollectionScore *score,
                                                     unsigned index)
{
    if (!vmaf || !model_collection || !score || !model_collection->cnt) return -EINVAL;
    return collection_score(vmaf, model_collection, index, score);
}

static bool valid_range(enum VmafPoolingMethod method, unsigned lo, unsigned hi)
{
    return method > VMAF_POOL_METHOD_UNKNOWN && method < VMAF_POOL_METHOD_NB && lo <= hi;
}

static bool skipped(const VmafContext *vmaf, unsigned index)
{
    return vmaf->cfg.n_subsample > 1 && index % vmaf->cfg.n_subsample;
}

VMAF_EXPORT int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model,
                                  enum VmafPoolingMethod pool_method, double *score,
                                  unsigned index_low, unsigned index_high)
{
    if (!vmaf || !model || !score || !valid_range(pool_method, index_low, index_high))
        return -EINVAL;
    for (unsigned i = index_low;; i++) {
        if (!skipped(vmaf, i)) {
            double s;
            int err = model_score(vmaf, model, i, &s);
            if (err) return err;
        }
        if (i == index_high) break;
    }
    return vmaf_context_pool_feature(vmaf, model->name, pool_method, score, index_low,
                                     index_high);
}

VMAF_EXPORT int vmaf_score_pooled_model_collection(VmafContext *vmaf,
                                                   VmafModelCollection *model_collection,
                                                   enum VmafPoolingMethod pool_method,
                                                   VmafModelCollectionScore *score,
                                                   unsigned index_low, unsigned index_high)
{
    if (!vmaf || !model_collection || !score || !model_collection->cnt ||
        !valid_range(pool_method, index_low, index_high))
        return -EINVAL;
    for (unsigned i = index_low;; i++) {
        if (!skipped(vmaf, i)) {
            VmafModelCollectionScore s;
            int err = collection_score(vmaf, model_collection, i, &s);
            if (err) return err;
        }
        if (i == index_high) break;
    }
    char name[BOOTSTRAP_OUTPUTS][600];
    bootstrap_names(model_collection, name);
    for (unsigned i = 0; i < BOOTSTRAP_OUTPUTS; i++) {
        int err = vmaf_context_pool_feature(vmaf, name[i], pool_method, bootstrap_field(score, i),
                                            index_low, index_high);
        if (err) return err;
    }
    score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
    return 0;
}
