/* The VmafContext, shared by the API entry points (libvmaf.c) and output (output.c). */
#ifndef VMAF_SRC_CONTEXT_H
#define VMAF_SRC_CONTEXT_H

#include <stdatomic.h>
#include <stdbool.h>

#include "libvmaf/libvmaf.h"

#include "feature_collector.h"
#include "feature_instance.h"
#include "picture_pool.h"
#include "thread_pool.h"
#include "device.h"
#include "model.h"

struct VmafContext {
    VmafConfiguration cfg;
    VmafFeatureCollector *fc;

    VmafFeatureInstance **inst; /* registered extractors, in registration order */
    unsigned inst_cnt, inst_cap;

    VmafThreadPool *workers;    /* n_threads >= 1: its own (made with the first picture), or
                                 * a ladder's or a batch's shared pool */
    VmafThreadPoolGroup jobs;   /* this context's jobs in it */
    struct WorkerData **worker_data; /* per worker of the pool: its copies of the instances */
    unsigned worker_data_cnt;
    atomic_int worker_err;      /* first error a worker hit */

    VmafPicturePool *pic_pool;

    const VmafDeviceKind *device_kind; /* the imported state's backend; NULL: the CPU */
    void *device_state;         /* imported (or attached by VMAF_BACKEND): a reference held */
    VmafDeviceBackend *device;  /* twins + device frames, created with the first picture */
    bool device_from_env;       /* device_state came from VMAF_BACKEND (device_env.c) */
    void *ref_group;            /* a ladder's shared reference frames (device.h), a reference
                                 * held; handed to the backend at its creation */

    struct {
        bool set;
        enum VmafPixelFormat pix_fmt;
        unsigned bpc, w, h;
    } geometry;

    /* Names model scores are stored under (model names, collection outputs), claimed when a
     * model is registered, so that no score can hide or replace another. */
    struct VmafScoreName {
        char *name;
        const void *owner; /* the model or collection */
    } *score_name;
    unsigned score_name_cnt, score_name_cap;

    struct VmafLadder *ladder;  /* the ladder this context is a rung of (ladder.c) */

    VmafPicture prev_ref, prev_prev_ref;
    bool keep_history;          /* some CPU instance reads prev_ref (PREV_REF) */
    unsigned pic_cnt;
    bool flushed;

    /* models registered, in order, where they came from (for segment results) */
    struct VmafContextModel {
        const void *owner;  /* the model or collection */
        bool collection;
        VmafModelSource source;
    } *model;
    unsigned model_cnt;

    struct {
        bool set;           /* vmaf_segment_set() was called */
        unsigned first, last;
        bool no_prediction;
        bool any;           /* a picture came: [read_first, read_end) */
        unsigned read_first, read_end;
        unsigned title_frames; /* 0: unknown */
        bool title_exact;      /* exactly title_frames, else at least */
        char fingerprint[256]; /* vmaf_segment_set_fingerprint(); "" when none */
    } segment;
};

/**
 * Contexts that will be fed together (a ladder's rungs) share one pool of workers, as many
 * as the most any of them has, instead of one pool each: their frames' jobs queue in one
 * FIFO, so K contexts of n threads run on n threads. Before any picture; contexts without
 * workers (n_threads 0) stay so; nothing changes unless two or more have workers.
 */
int vmaf_context_share_workers(VmafContext *const *ctx, unsigned n);

/** A context with workers (n_threads > 0) runs its jobs on pool instead of its own, before its
 *  first picture (a caller that keeps one pool across many contexts: --batch). Contexts
 *  without workers stay so. Where every context given to vmaf_context_share_workers already
 *  runs on one pool, that pool is kept. */
int vmaf_context_use_workers(VmafContext *vmaf, VmafThreadPool *pool);

/** A pool for vmaf_context_use_workers (one reference, the caller's: vmaf_thread_pool_unref). */
int vmaf_context_create_workers(VmafThreadPool **pool, unsigned n_threads, unsigned depth);

/**
 * Attach a device state (a reference is taken by the caller for the context): before the
 * first picture only. A state attached by VMAF_BACKEND at vmaf_init gives way to one the
 * client imports.
 */
int vmaf_context_import_device(VmafContext *vmaf, const VmafDeviceKind *kind, void *state);

/** vmaf_read_pictures() without the ladder check: what a ladder calls for each rung. */
int vmaf_context_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                               unsigned index);

/** A rung closed before its ladder: the ladder stops feeding it (ladder.c). */
void vmaf_ladder_detach(struct VmafLadder *ladder, VmafContext *rung);

/** VMAF_BACKEND / VMAF_OPENCL_DEVICE at vmaf_init (device_env.c): 0 or a negative errno. */
int vmaf_context_attach_from_env(VmafContext *vmaf);

/** The device backend's profile, where it keeps one (the CLI's VMAF_CUDA_PROFILE). */
void vmaf_context_print_device_profile(const VmafContext *vmaf);

/** Remember a model or collection registered with the context (segment.c). */
int vmaf_context_record_model(VmafContext *vmaf, const void *owner, bool collection,
                              const VmafModelSource *source);
void vmaf_context_free_models(VmafContext *vmaf);

/** The segment's rule for a picture at index (in order, consecutive): 0 or -EINVAL. */
int vmaf_context_segment_picture(VmafContext *vmaf, unsigned index);

/** Append an instance to the context (taking it; destroyed on failure). No duplicate check. */
int vmaf_context_append_instance(VmafContext *vmaf, VmafFeatureInstance *inst);

/**
 * Register an extractor instance with options (takes ownership of opts, also on failure);
 * the path under vmaf_use_feature() and vmaf_use_features_from_model().
 */
int vmaf_context_use_extractor(VmafContext *vmaf, const VmafFeatureExtractor *fex,
                               VmafDictionary *opts);

/**
 * Claim output names for the scores of `owner` (a model or collection), before its
 * extractors are registered: -EINVAL with a log line if any equals (as stored or as printed)
 * an output of a registered extractor or a name another owner claimed.
 */
int vmaf_context_claim_score_names(VmafContext *vmaf, const void *owner,
                                   const char *const *names, unsigned cnt);

/** Pool one feature over [lo, hi] as vmaf_feature_score_pooled does. */
int vmaf_context_pool_feature(VmafContext *vmaf, const char *name,
                              enum VmafPoolingMethod method, double *score, unsigned lo,
                              unsigned hi);

/**
 * Whether every registered extractor reads only the luma plane (with its options): pictures'
 * chroma planes may then hold anything (the CLI's readers skip them). False with none.
 */
bool vmaf_context_luma_only(const VmafContext *vmaf);

#endif /* VMAF_SRC_CONTEXT_H */
