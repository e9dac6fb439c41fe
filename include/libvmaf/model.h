/*
 * Twin VMAF — VMAF models: loading, feature overloads and model collections.
 *
 * A model is a libsvm nu-SVR regression over a list of features, read from a JSON model
 * file (the `model_dict` of the files Netflix ships) or from one of the models built into
 * the library. Scoring with a model goes through the context: see
 * vmaf_use_features_from_model(), vmaf_score_at_index() and vmaf_score_pooled() in
 * libvmaf.h.
 *
 * A model collection (bootstrap model, e.g. vmaf_b_v0.6.3) is a JSON file whose top-level
 * keys "0", "1", ... each hold a model. Entry "0" is returned as a plain model; entries
 * "1".."N" form the collection, whose per-frame scores add a bagging score, a standard
 * deviation and a 95% confidence interval.
 *
 * Every function returns 0 on success or a negative errno; problems with a model file are
 * explained on stderr ("libvmaf ERROR ...").
 */
#ifndef VMAF_MODEL_H
#define VMAF_MODEL_H

#include <stdint.h>

#include "feature.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded model (opaque). */
typedef struct VmafModel VmafModel;

enum VmafModelFlags {
    VMAF_MODEL_FLAGS_DEFAULT = 0,
    /** At load: ignore the model's score_clip, so predictions are not clipped. */
    VMAF_MODEL_FLAG_DISABLE_CLIP = (1 << 0),
    /** At load: apply the model's score_transform even where it lacks "enabled": true. */
    VMAF_MODEL_FLAG_ENABLE_TRANSFORM = (1 << 1),
    /** Accepted for compatibility; has no effect in a VmafModelConfig. */
    VMAF_MODEL_FLAG_DISABLE_TRANSFORM = (1 << 2),
};

typedef struct VmafModelConfig {
    /**
     * Name the model's scores are stored and written under; NULL means "vmaf". Two models
     * used with one context need different names.
     */
    const char *name;
    uint64_t flags; /**< enum VmafModelFlags, OR-ed */
} VmafModelConfig;

/**
 * Load a model built into the library, by version: "vmaf_v0.6.1", "vmaf_v0.6.1neg",
 * "vmaf_b_v0.6.3" (a collection: use vmaf_model_collection_load), "vmaf_4k_v0.6.1",
 * "vmaf_v1.0.16_3d0h", ... The set depends on the model files present when the library was
 * built; an unknown version gives -ENOENT and a message listing the built-in ones.
 *
 * @param model   receives the model; free it with vmaf_model_destroy()
 * @param cfg     name and flags
 * @param version built-in model version
 * @return 0, -ENOENT (unknown version), -EINVAL (not a single model, or a bad one), -ENOMEM
 */
int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg, const char *version);

/**
 * Load a model from a JSON model file. Only the top-level "model_dict" is read; a file
 * without one (e.g. a model collection) is refused. Missing keys, values of the wrong type,
 * malformed JSON or libsvm text, more than 64 features and feature names that no feature
 * extractor provides are refused with -EINVAL and a message naming the problem.
 *
 * @param model receives the model; free it with vmaf_model_destroy()
 * @param cfg   name and flags
 * @param path  the JSON file
 * @return 0, -EINVAL, -ENOMEM, or the negative errno of opening/reading the file (-ENOENT)
 */
int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg, const char *path);

/**
 * Override options of one feature extractor for this model, e.g. fex_name "vif" with
 * {"vif_enhn_gain_limit": "1.0"}. The options are merged over the model's own options for
 * every model feature that extractor provides, and those features are then looked up under
 * their new option-suffixed names (e.g. integer_vif_scale0_egl_1). An extractor the model
 * does not use is ignored (with a warning). Call before vmaf_use_features_from_model().
 *
 * @param model    the model
 * @param fex_name extractor name ("vif", "adm", "motion", ...)
 * @param opts_dict options; always taken over (freed by the library), also on failure
 * @return 0, -EINVAL (NULL argument, or an option value the extractor refuses), -ENOMEM
 */
int vmaf_model_feature_overload(VmafModel *model, const char *fex_name,
                                VmafFeatureDictionary *opts_dict);

/** Free a model. NULL is fine. */
void vmaf_model_destroy(VmafModel *model);

/** A set of bootstrap models (opaque). */
typedef struct VmafModelCollection VmafModelCollection;

enum VmafModelCollectionScoreType {
    VMAF_MODEL_COLLECTION_SCORE_UNKNOWN = 0,
    VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP,
};

typedef struct VmafModelCollectionScore {
    enum VmafModelCollectionScoreType type;
    struct {
        double bagging_score; /**< mean of the members' scores, transformed and clipped */
        double stddev;        /**< their standard deviation, scaled by the transform's slope */
        struct {
            struct {
                double lo, hi; /**< 2.5th and 97.5th percentiles, transformed and clipped */
            } p95;
        } ci;
    } bootstrap;
} VmafModelCollectionScore;

/**
 * Load a built-in model collection by version (e.g. "vmaf_b_v0.6.3").
 *
 * @param model            receives entry "0" as a plain model named cfg->name
 *                         (free with vmaf_model_destroy())
 * @param model_collection receives entries "1".."N", named "<name>_0001"...
 *                         (free with vmaf_model_collection_destroy())
 * @param cfg              name and flags, applied to every entry
 * @param version          built-in model version
 * @return 0, -ENOENT (unknown version), -EINVAL (fewer than two entries, a bad entry),
 *         -ENOMEM
 */
int vmaf_model_collection_load(VmafModel **model, VmafModelCollection **model_collection,
                               VmafModelConfig *cfg, const char *version);

/**
 * Load a model collection from a JSON file whose top-level keys "0", "1", ... (in this
 * order) each hold an object with a "model_dict". At least two entries are required.
 * Arguments and results as vmaf_model_collection_load().
 */
int vmaf_model_collection_load_from_path(VmafModel **model,
                                         VmafModelCollection **model_collection,
                                         VmafModelConfig *cfg, const char *path);

/**
 * vmaf_model_feature_overload() for entry "0" and every member of the collection.
 * opts_dict is always taken over.
 */
int vmaf_model_collection_feature_overload(VmafModel *model,
                                           VmafModelCollection **model_collection,
                                           const char *fex_name,
                                           VmafFeatureDictionary *opts_dict);

/** Free a collection and its members. NULL is fine. */
void vmaf_model_collection_destroy(VmafModelCollection *model_collection);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_MODEL_H */
