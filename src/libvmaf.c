#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "log.h"
#include "picture.h"
#include "sample_range.h"
#include "vcs_version.h"

#include "export.h"

/* ---- context ---------------------------------------------------------------------- */

typedef struct FrameJob {
    VmafContext *vmaf;
    VmafPicture ref, dist, prev_ref, prev_prev_ref; /* references held by the job */
    unsigned index;
} FrameJob;

/* Per worker: its own instance of each registered extractor, created on first use. */
typedef struct WorkerData {
    VmafFeatureInstance **inst;
    uint64_t *deferred; /* extract_job: the instances put off to its second pass (a bit each) */
    unsigned cnt;
} WorkerData;

static void worker_data_free(WorkerData *wd)
{
    if (!wd) return;
    for (unsigned i = 0; i < wd->cnt; i++) vmaf_feature_instance_destroy(wd->inst[i]);
    free(wd->inst);
    free(wd->deferred);
    free(wd);
}

/* The per-worker instances of a context's pool (none made yet: before the first job). */
static int worker_slots(VmafContext *vmaf)
{
    const unsigned n = vmaf_thread_pool_size(vmaf->workers);
    vmaf->worker_data = calloc(n ? n : 1, sizeof(*vmaf->worker_data));
    if (!vmaf->worker_data) return -ENOMEM;
    vmaf->worker_data_cnt = n;
    return 0;
}

static void release_workers(VmafContext *vmaf)
{
    if (vmaf->workers) vmaf_thread_pool_wait(vmaf->workers, &vmaf->jobs);
    for (unsigned i = 0; vmaf->worker_data && i < vmaf->worker_data_cnt; i++)
        worker_data_free(vmaf->worker_data[i]);
    free(vmaf->worker_data);
    vmaf->worker_data = NULL;
    vmaf->worker_data_cnt = 0;
    vmaf_thread_pool_unref(vmaf->workers);
    vmaf->workers = NULL;
}

/* v runs its jobs on pool (a reference taken): before its first picture. */
static int use_workers(VmafContext *v, VmafThreadPool *pool)
{
    if (v->workers == pool) return 0;
    release_workers(v);
    v->workers = vmaf_thread_pool_ref(pool);
    return worker_slots(v);
}

int vmaf_context_use_workers(VmafContext *vmaf, VmafThreadPool *pool)
{
    if (!vmaf || !pool || vmaf->pic_cnt || vmaf->flushed) return -EINVAL;
    return vmaf->cfg.n_threads ? use_workers(vmaf, pool) : 0;
}

int vmaf_context_share_workers(VmafContext *const *ctx, unsigned n)
{
    unsigned threads = 0, depth = 0, users = 0;
    VmafThreadPool *common = NULL; /* the pool all that have one have, if one */
    bool one_pool = true;
    for (unsigned k = 0; k < n; k++) {
        const VmafContext *v = ctx[k];
        if (!v || !v->cfg.n_threads) continue;
        if (v->pic_cnt || v->flushed) return -EINVAL;
        if (v->workers && common && v->workers != common) one_pool = false;
        if (v->workers) common = v->workers;
        if (v->cfg.n_threads > threads) threads = v->cfg.n_threads;
        depth += 2 * v->cfg.n_threads;
        users++;
    }
    if (users < 2) return 0;
    VmafThreadPool *pool = NULL;
    int err = 0;
    if (common && one_pool) pool = vmaf_thread_pool_ref(common); /* given by the caller */
    else err = vmaf_thread_pool_create(&pool, threads, sizeof(FrameJob), depth);
    for (unsigned k = 0; !err && k < n; k++)
        if (ctx[k] && ctx[k]->cfg.n_threads) err = use_workers(ctx[k], pool);
    vmaf_thread_pool_unref(pool);
    return err;
}

int vmaf_context_create_workers(VmafThreadPool **pool, unsigned n_threads, unsigned depth)
{
    return vmaf_thread_pool_create(pool, n_threads, sizeof(FrameJob), depth);
}

VMAF_EXPORT int vmaf_init(VmafContext **vmaf_out, VmafConfiguration cfg)
{
    if (!vmaf_out) return -EINVAL;
    VmafContext *vmaf = calloc(1, sizeof(*vmaf));
    if (!vmaf) return -ENOMEM;
    vmaf->cfg = cfg;
    vmaf_log_set_thread_level(cfg.log_level);
    atomic_init(&vmaf->worker_err, 0);
    int err = vmaf_feature_collector_init(&vmaf->fc, cfg.log_level, cfg.n_threads > 0);
    if (err) goto fail;
    /* the workers (n_threads > 0) come with the first picture, unless a pool was given
     * before it (a ladder's, a batch's): start() */
    err = vmaf_context_attach_from_env(vmaf);
    if (err) goto fail;
    *vmaf_out = vmaf;
    return 0;
fail:
    release_workers(vmaf);
    vmaf_feature_collector_destroy(vmaf->fc);
    free(vmaf);
    return err;
}

static void release_history(VmafContext *vmaf)
{
    if (vmaf->prev_ref.ref) vmaf_picture_unref(&vmaf->prev_ref);
    if (vmaf->prev_prev_ref.ref) vmaf_picture_unref(&vmaf->prev_prev_ref);
}

VMAF_EXPORT int vmaf_close(VmafContext *vmaf)
{
    if (!vmaf) return -EINVAL;
    if (vmaf->ladder) vmaf_ladder_detach(vmaf->ladder, vmaf);
    release_workers(vmaf);
    if (vmaf->device) vmaf->device_kind->destroy(vmaf->device);
    if (vmaf->ref_group) vmaf->device_kind->ref_group_unref(vmaf->ref_group);
    release_history(vmaf);
    for (unsigned i = 0; i < vmaf->inst_cnt; i++) vmaf_feature_instance_destroy(vmaf->inst[i]);
    free(vmaf->inst);
    vmaf_picture_pool_close(vmaf->pic_pool);
    vmaf_feature_collector_destroy(vmaf->fc);
    for (unsigned i = 0; i < vmaf->score_name_cnt; i++) free(vmaf->score_name[i].name);
    free(vmaf->score_name);
    vmaf_context_free_models(vmaf);
    if (vmaf->device_state) vmaf->device_kind->unref_state(vmaf->device_state);
    free(vmaf);
    return 0;
}

int vmaf_context_import_device(VmafContext *vmaf, const VmafDeviceKind *kind, void *state)
{
    if (vmaf->geometry.set) return -EINVAL;
    if (vmaf->device_state) {
        if (!vmaf->device_from_env) return -EINVAL;
        vmaf->device_kind->unref_state(vmaf->device_state); /* the client's choice wins */
    }
    vmaf->device_kind = kind;
    vmaf->device_state = state;
    vmaf->device_from_env = false;
    return 0;
}

void vmaf_context_print_device_profile(const VmafContext *vmaf)
{
    if (vmaf->device && vmaf->device_kind->print_profile)
        vmaf->device_kind->print_profile(vmaf->device);
}

VMAF_EXPORT const char *vmaf_version(void)
{
    return VMAF_VERSION;
}

/* ---- registration ----------------------------------------------------------------- */

/* Two stored names collide in the output when they are equal as stored or as printed. */
static bool same_output_name(const char *a, const char *b)
{
    return !strcmp(a, b) || !strcmp(vmaf_feature_name_alias(a), vmaf_feature_name_alias(b));
}

/* A new extractor's outputs against the claimed model score names. */
static int check_instance_names(VmafContext *vmaf, const VmafFeatureInstance *inst)
{
    for (unsigned k = 0; inst->mapped[k]; k++) {
        for (unsigned i = 0; i < vmaf->score_name_cnt; i++) {
            if (!same_output_name(inst->mapped[k], vmaf->score_name[i].name)) continue;
            vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                     "feature \"%s\" of extractor \"%s\" has the output name of model score "
                     "\"%s\"; rename the model (name=)\n", vmaf_feature_name_alias(inst->mapped[k]),
                     inst->fex->name, vmaf->score_name[i].name);
            return -EINVAL;
        }
    }
    return 0;
}

int vmaf_context_claim_score_names(VmafContext *vmaf, const void *owner,
                                   const char *const *names, unsigned cnt)
{
    for (unsigned n = 0; n < cnt; n++) {
        for (unsigned i = 0; i < vmaf->inst_cnt; i++) {
            const VmafFeatureInstance *inst = vmaf->inst[i];
            for (unsigned k = 0; inst->mapped[k]; k++) {
                if (!same_output_name(names[n], inst->mapped[k])) continue;
                vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                         "model score \"%s\" has the output name of feature \"%s\" of "
                         "extractor \"%s\"; rename the model (name=)\n", names[n],
                         vmaf_feature_name_alias(inst->mapped[k]), inst->fex->name);
                return -EINVAL;
            }
        }
        for (unsigned i = 0; i < vmaf->score_name_cnt; i++) {
            if (!same_output_name(names[n], vmaf->score_name[i].name)) continue;
            if (vmaf->score_name[i].owner == owner && !strcmp(names[n], vmaf->score_name[i].name))
                continue; /* the same model registered again */
            vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                     "model score \"%s\" has the output name of another model's score \"%s\"; "
                     "each model needs its own name (name=)\n", names[n],
                     vmaf->score_name[i].name);
            return -EINVAL;
        }
    }
    for (unsigned n = 0; n < cnt; n++) {
        bool known = false;
        for (unsigned i = 0; i < vmaf->score_name_cnt; i++)
            known |= vmaf->score_name[i].owner == owner && !strcmp(names[n], vmaf->score_name[i].name);
        if (known) continue;
        if (vmaf->score_name_cnt == vmaf->score_name_cap) {
            const unsigned cap = vmaf->score_name_cap ? 2 * vmaf->score_name_cap : 8;
            struct VmafScoreName *list = realloc(vmaf->score_name, cap * sizeof(*list));
            if (!list) return -ENOMEM;
            vmaf->score_name = list;
            vmaf->score_name_cap = cap;
        }
        char *copy = strdup(names[n]);
        if (!copy) return -ENOMEM;
        vmaf->score_name[vmaf->score_name_cnt++] = (struct VmafScoreName){ copy, owner };
    }
    return 0;
}

int vmaf_context_append_instance(VmafContext *vmaf, VmafFeatureInstance *inst)
{
    if (vmaf->inst_cnt == vmaf->inst_cap) {
        const unsigned cap = vmaf->inst_cap ? 2 * vmaf->inst_cap : 8;
        VmafFeatureInstance **list = realloc(vmaf->inst, cap * sizeof(*list));
        if (!list) {
            vmaf_feature_instance_destroy(inst);
            return -ENOMEM;
        }
        vmaf->inst = list;
        vmaf->inst_cap = cap;
    }
    vmaf->inst[vmaf->inst_cnt++] = inst;
    return 0;
}

static int register_instance(VmafContext *vmaf, VmafFeatureInstance *inst)
{
    for (unsigned i = 0; i < vmaf->inst_cnt; i++) {
        if (strcmp(vmaf->inst[i]->ident, inst->ident)) continue;
        /* same extractor with the same feature parameters: silently dropped */
        vmaf_feature_instance_destroy(inst);
        return 0;
    }
    return vmaf_context_append_instance(vmaf, inst);
}

VMAF_EXPORT int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                                 VmafFeatureDictionary *opts_dict)
{
    if (!vmaf || !feature_name) return -EINVAL;
    const VmafFeatureExtractor *fex = vmaf_feature_extractor_by_name(feature_name);
    if (!fex) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "unknown feature extractor \"%s\"\n", feature_name);
        return -EINVAL;
    }
    /* Ownership as the reference's: a NULL argument or an unknown name leaves opts_dict with
     * the caller, and so does -ENOMEM while copying it (the reference's one failure before it
     * frees the dictionary); from there on it is the context's, on success and on failure. */
    VmafDictionary *opts = NULL;
    const int err = vmaf_dictionary_copy(opts_dict, &opts);
    if (err) {
        vmaf_dictionary_free(&opts);
        return err;
    }
    vmaf_dictionary_free(&opts_dict);
    return vmaf_context_use_extractor(vmaf, fex, opts);
}

int vmaf_context_use_extractor(VmafContext *vmaf, const VmafFeatureExtractor *fex,
                               VmafDictionary *opts)
{
    if (vmaf->geometry.set || vmaf->flushed) {
        vmaf_dictionary_free(&opts);
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "feature extractor \"%s\" registered after the first picture\n", fex->name);
        return -EINVAL;
    }
    VmafFeatureInstance *inst;
    int err = vmaf_feature_instance_create(&inst, fex, opts, vmaf->cfg.log_level);
    if (err) return err;
    err = check_instance_names(vmaf, inst);
    if (err) {
        vmaf_feature_instance_destroy(inst);
        return err;
    }
    return register_instance(vmaf, inst);
}

VMAF_EXPORT int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name,
                                          double value, unsigned index)
{
    if (!vmaf || !feature_name) return -EINVAL;
    return vmaf_feature_collector_append_late(vmaf->fc, feature_name, value, index);
}

/* ---- pictures ---------------------------------------------------------------------- */

VMAF_EXPORT int vmaf_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg)
{
    if (!vmaf || !cfg.pic_cnt) return -EINVAL;
    if (vmaf->pic_pool) return -EINVAL;
    if (cfg.pic_cnt > VMAF_PICTURE_POOL_MAX) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "vmaf_preallocate_pictures: pic_cnt %u is above the limit of %u pictures\n",
                 cfg.pic_cnt, VMAF_PICTURE_POOL_MAX);
        return -EINVAL;
    }
    VmafPicturePoolConfig pc = {
        .pic_cnt = cfg.pic_cnt,
        .pix_fmt = cfg.pic_params.pix_fmt,
        .bpc = cfg.pic_params.bpc,
        .w = cfg.pic_params.w,
        .h = cfg.pic_params.h,
    };
    return vmaf_picture_pool_init(&vmaf->pic_pool, pc);
}

VMAF_EXPORT int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    if (!vmaf || !pic || !vmaf->pic_pool) return -EINVAL;
    return vmaf_picture_pool_fetch(vmaf->pic_pool, pic);
}

/* ---- extraction -------------------------------------------------------------------- */

static bool runs_at(const VmafContext *vmaf, const VmafFeatureExtractor *fex, unsigned index)
{
    if (fex->flags & (VMAF_FEATURE_EXTRACTOR_TEMPORAL | VMAF_FEATURE_EXTRACTOR_PREV_REF))
        return true;
    return vmaf->cfg.n_subsample <= 1 || index % vmaf->cfg.n_subsample == 0;
}

static VmafFeatureGeometry context_geometry(const VmafContext *vmaf)
{
    return (VmafFeatureGeometry){
        .pix_fmt = vmaf->geometry.pix_fmt,
        .bpc = vmaf->geometry.bpc,
        .w = vmaf->geometry.w,
        .h = vmaf->geometry.h,
        .log_level = vmaf->cfg.log_level,
    };
}

static int run_instance(VmafContext *vmaf, VmafFeatureInstance *inst, unsigned ext,
                        const VmafFeatureFrame *frame)
{
    VmafFeatureSink sink = {
        .fc = vmaf->fc,
        .provided = inst->fex->provided_features,
        .mapped = inst->mapped,
        .order = vmaf_store_order(VMAF_STORE_PHASE_EXTRACT, inst->fex, ext, frame->index),
    };
    VmafFeatureFrame f = *frame;
    if (!(inst->fex->flags & VMAF_FEATURE_EXTRACTOR_PREV_REF))
        f.prev_ref = f.prev_prev_ref = NULL;
    int err = inst->fex->extract(inst->priv, &f, &sink);
    if (err == -EAGAIN && f.side_nowait) return err; /* called again (extract_job) */
    if (err)
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "%s: extraction failed at frame %u (%s)\n", inst->fex->name, frame->index,
                 strerror(-err));
    return err;
}

static void release_job(FrameJob *job)
{
    vmaf_picture_unref(&job->ref);
    vmaf_picture_unref(&job->dist);
    if (job->prev_ref.ref) vmaf_picture_unref(&job->prev_ref);
    if (job->prev_prev_ref.ref) vmaf_picture_unref(&job->prev_prev_ref);
}

static int worker_instances(VmafContext *vmaf, unsigned worker, WorkerData **out)
{
    if (worker >= vmaf->worker_data_cnt) return -EINVAL;
    WorkerData *wd = vmaf->worker_data[worker];
    if (!wd) {
        wd = calloc(1, sizeof(*wd));
        if (!wd) return -ENOMEM;
        wd->inst = calloc(vmaf->inst_cnt, sizeof(*wd->inst));
        wd->deferred = calloc(vmaf->inst_cnt / 64 + 1, sizeof(*wd->deferred));
        if (!wd->inst || !wd->deferred) {
            free(wd->inst);
            free(wd->deferred);
            free(wd);
            return -ENOMEM;
        }
        wd->cnt = vmaf->inst_cnt;
        vmaf->worker_data[worker] = wd;
    }
    *out = wd;
    return 0;
}

static void extract_job(void *job_mem, unsigned worker)
{
    FrameJob *job = job_mem;
    VmafContext *vmaf = job->vmaf;
    const VmafFeatureFrame frame = {
        .ref = &job->ref,
        .dist = &job->dist,
        .prev_ref = job->prev_ref.ref ? &job->prev_ref : NULL,
        .prev_prev_ref = job->prev_prev_ref.ref ? &job->prev_prev_ref : NULL,
        .index = job->index,
    };
    WorkerData *wd = NULL;
    int err = worker_instances(vmaf, worker, &wd);
    VmafFeatureGeometry geo = context_geometry(vmaf);
    geo.worker_copy = true;
    /* A picture scored by several contexts (a ladder's reference) may carry side products
     * another worker is computing: the instances that would wait for one go last, after the
     * others (the order of their stores is kept by the collector's order keys). */
    VmafFeatureFrame f = frame;
    f.side_nowait = vmaf_picture_readers(&job->ref) >= 2;
    bool deferred = false;
    if (!err) memset(wd->deferred, 0, (wd->cnt / 64 + 1) * sizeof(*wd->deferred));
    for (int pass = 0; pass < 1 + deferred && !err; pass++) {
        if (pass) f.side_nowait = false;
        for (unsigned i = 0; !err && i < vmaf->inst_cnt; i++) {
            const VmafFeatureInstance *reg = vmaf->inst[i];
            if (reg->fex->flags & VMAF_FEATURE_EXTRACTOR_TEMPORAL || reg->on_gpu || reg->shared)
                continue;
            if (!runs_at(vmaf, reg->fex, job->index)) continue;
            if (pass && !(wd->deferred[i / 64] >> (i % 64) & 1)) continue;
            if (!wd->inst[i]) {
                err = vmaf_feature_instance_clone(&wd->inst[i], reg);
                if (err) break;
            }
            err = vmaf_feature_instance_init(wd->inst[i], &geo);
            if (!err) err = run_instance(vmaf, wd->inst[i], i, &f);
            if (err == -EAGAIN && f.side_nowait) {
                wd->deferred[i / 64] |= 1ull << (i % 64);
                deferred = true;
                err = 0;
            }
        }
    }
    if (err) {
        int expected = 0;
        atomic_compare_exchange_strong(&vmaf->worker_err, &expected, err);
    }
    release_job(job);
}

static int validate_pictures(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist)
{
    if (!ref->ref || !ref->priv || !dist->ref || !dist->priv || !ref->data[0] || !dist->data[0])
        return -EINVAL;
    if (ref->w[0] != dist->w[0] || ref->h[0] != dist->h[0] || ref->pix_fmt != dist->pix_fmt ||
        ref->bpc != dist->bpc)
        return -EINVAL;
    if (ref->bpc < 8 || ref->bpc > 16) return -EINVAL;
    if (!vmaf->geometry.set) return 0;
    if (ref->w[0] != vmaf->geometry.w || ref->h[0] != vmaf->geometry.h ||
        ref->pix_fmt != vmaf->geometry.pix_fmt || ref->bpc != vmaf->geometry.bpc)
        return -EINVAL;
    return 0;
}

/*
 * Samples above (1 << bpc) - 1 give wrong scores (and overflow in psnr_hvs): refused. Device
 * pictures are not scanned here (their data[] are device addresses; the host must not read
 * them): a CUDA caller is trusted to hand in-range samples.
 */
static int check_sample_range(VmafContext *vmaf, const VmafPicture *pic, const char *which,
                              unsigned index)
{
    if (!vmaf_sample_range_needs_check(pic->bpc)) return 0;
    if (vmaf_picture_memory(pic) == VMAF_PICTURE_MEMORY_DEVICE) return 0;
    if (vmaf_picture_range_checked(pic)) return 0; /* the CLI's reader did, on hot rows */
    static const char *const plane_name[3] = { "Y", "U", "V" };
    for (unsigned p = 0; p < 3; p++) {
        if (!pic->data[p]) continue;
        VmafSampleRangeError e;
        if (!vmaf_sample_range_scan(pic->data[p], pic->stride[p], pic->w[p], pic->h[p], pic->bpc,
                                    &e))
            continue;
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "%s picture at index %u, plane %u (%s): sample %u at x=%u, y=%u is above the "
                 "%u-bit maximum %u\n", which, index, p, plane_name[p], e.value, e.x, e.y,
                 pic->bpc, (1u << pic->bpc) - 1);
        return -EINVAL;
    }
    return 0;
}

/* First picture: fix the geometry and initialise every registered extractor, so that
 * unsupported input is refused here, synchronously, with the extractor's message. */
static int start(VmafContext *vmaf, const VmafPicture *ref)
{
    /* like the reference, one thread already means a worker: the caller reads the next
     * frame while it extracts */
    if (vmaf->cfg.n_threads && !vmaf->workers) {
        int err = vmaf_thread_pool_create(&vmaf->workers, vmaf->cfg.n_threads, sizeof(FrameJob),
                                          2 * vmaf->cfg.n_threads);
        if (!err) err = worker_slots(vmaf);
        if (err) {
            release_workers(vmaf);
            return err;
        }
    }
    vmaf->geometry.set = true;
    vmaf->geometry.pix_fmt = ref->pix_fmt;
    vmaf->geometry.bpc = ref->bpc;
    vmaf->geometry.w = ref->w[0];
    vmaf->geometry.h = ref->h[0];
    const VmafFeatureGeometry geo = context_geometry(vmaf);
    for (unsigned i = 0; i < vmaf->inst_cnt; i++) {
        /* here, not at registration: FFmpeg builds its filter graph twice, the first time
         * only to inspect it, so a context that never scores stays quiet */
        vmaf_feature_instance_warn_unknown(vmaf->inst[i], vmaf->cfg.log_level);
        int err = vmaf_feature_instance_init(vmaf->inst[i], &geo);
        if (err) return err;
    }
    int err = 0;
    if (vmaf->device_state && !vmaf->cfg.gpumask)
        err = vmaf->device_kind->create(&vmaf->device, vmaf->device_state, &geo, vmaf->inst,
                                        vmaf->inst_cnt, vmaf->cfg.n_subsample, vmaf->fc,
                                        vmaf->ref_group);
    /* the previous references are kept for CPU extractors that read them (twins keep
     * theirs on the device), so that no pool picture is held for nothing */
    for (unsigned i = 0; i < vmaf->inst_cnt; i++)
        vmaf->keep_history |= !vmaf->inst[i]->on_gpu && !vmaf->inst[i]->shared &&
                              (vmaf->inst[i]->fex->flags & VMAF_FEATURE_EXTRACTOR_PREV_REF);
    return err;
}

bool vmaf_context_luma_only(const VmafContext *vmaf)
{
    for (unsigned i = 0; i < vmaf->inst_cnt; i++)
        if (!vmaf_feature_extractor_luma_only(vmaf->inst[i]->fex, vmaf->inst[i]->priv))
            return false;
    return vmaf->inst_cnt > 0;
}

static void push_history(VmafContext *vmaf, const VmafPicture *ref)
{
    if (vmaf->prev_prev_ref.ref) vmaf_picture_unref(&vmaf->prev_prev_ref);
    vmaf->prev_prev_ref = vmaf->prev_ref;
    vmaf_picture_ref(&vmaf->prev_ref, ref);
}

static int flush_context(VmafContext *vmaf);

/* Device pictures feed twins only (a CPU extractor cannot read them): every instance must run
 * on its twin. The backend takes every instance that has one, so an instance left on the CPU
 * has none, unless the twins do not run at all. */
static int check_device_pictures(const VmafContext *vmaf)
{
    if (vmaf->cfg.gpumask || !vmaf->device_state || !vmaf->device_kind->device_pictures) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "pictures in device memory need the extractors' CUDA twins, which %s\n",
                 vmaf->cfg.gpumask ? "a nonzero gpumask disables"
                                   : "run only with an imported CUDA state");
        return -ENOTSUP;
    }
    int err = 0;
    for (unsigned i = 0; i < vmaf->inst_cnt; i++) {
        if (vmaf->inst[i]->on_gpu) continue;
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "%s has no CUDA twin, so it cannot score pictures in device memory\n",
                 vmaf->inst[i]->fex->name);
        err = -ENOTSUP;
    }
    return err;
}

VMAF_EXPORT int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                                   unsigned index)
{
    if (!vmaf) return -EINVAL;
    if (vmaf->ladder) { /* its pictures come through vmaf_ladder_read_pictures() */
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "this context is a rung of a ladder: read its pictures through the ladder\n");
        return -EINVAL;
    }
    return vmaf_context_read_pictures(vmaf, ref, dist, index);
}

int vmaf_context_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                               unsigned index)
{
    if (!vmaf) return -EINVAL;
    if (vmaf->flushed) return -EINVAL;
    if (!ref != !dist) return -EINVAL;
    if (!ref) return flush_context(vmaf);

    /* Ownership as the reference's: pictures that do not match stay with the caller; so do
     * both pictures when an extractor fails (also at its start) and the reference would
     * have run it in the caller's thread: n_threads 0, or a CUDA state (its CUDA builds
     * never use the worker threads). Anything else takes them, on success and on failure. */
    const bool keep_on_extract_error =
        !vmaf->cfg.n_threads || (vmaf->device_state && !vmaf->cfg.gpumask);
    int err = validate_pictures(vmaf, ref, dist);
    if (err) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "pictures at index %u do not match each other or the first pair\n", index);
        return err;
    }
    err = check_sample_range(vmaf, ref, "reference", index);
    if (!err) err = check_sample_range(vmaf, dist, "distorted", index);
    if (err) goto unref;
    err = atomic_load(&vmaf->worker_err);
    if (err) goto unref;
    if (vmaf->segment.set) {
        err = vmaf_context_segment_picture(vmaf, index);
        if (err) goto unref;
    }
    if (!vmaf->geometry.set) {
        err = start(vmaf, ref);
        if (err) goto extract_failed;
    }
    if (vmaf_picture_memory(ref) == VMAF_PICTURE_MEMORY_DEVICE) {
        err = check_device_pictures(vmaf);
        if (err) goto unref;
    }
    vmaf->pic_cnt++;

    const VmafFeatureFrame frame = {
        .ref = ref,
        .dist = dist,
        .prev_ref = vmaf->prev_ref.ref ? &vmaf->prev_ref : NULL,
        .prev_prev_ref = vmaf->prev_prev_ref.ref ? &vmaf->prev_prev_ref : NULL,
        .index = index,
    };
    for (unsigned i = 0; i < vmaf->inst_cnt; i++) {
        VmafFeatureInstance *inst = vmaf->inst[i];
        if (inst->on_gpu || inst->shared) continue;
        if (vmaf->workers && !(inst->fex->flags & VMAF_FEATURE_EXTRACTOR_TEMPORAL)) continue;
        if (!runs_at(vmaf, inst->fex, index)) continue;
        err = run_instance(vmaf, inst, i, &frame);
        if (err) goto extract_failed;
    }
    if (vmaf->device) {
        err = vmaf->device_kind->submit(vmaf->device, ref, dist, index);
        if (err) goto extract_failed;
    }

    if (vmaf->workers) {
        FrameJob job = { .vmaf = vmaf, .index = index };
        vmaf_picture_ref(&job.ref, ref);
        vmaf_picture_ref(&job.dist, dist);
        if (vmaf->prev_ref.ref) vmaf_picture_ref(&job.prev_ref, &vmaf->prev_ref);
        if (vmaf->prev_prev_ref.ref) vmaf_picture_ref(&job.prev_prev_ref, &vmaf->prev_prev_ref);
        err = vmaf_thread_pool_enqueue(vmaf->workers, &vmaf->jobs, extract_job, &job);
        if (err) {
            release_job(&job);
            goto unref;
        }
    }
    if (vmaf->keep_history) push_history(vmaf, ref);
    goto unref;

extract_failed:
    if (keep_on_extract_error) return err;
unref:
    vmaf_picture_unref(ref);
    vmaf_picture_unref(dist);
    return err;
}

static int flush_context(VmafContext *vmaf)
{
    vmaf_thread_pool_wait(vmaf->workers, &vmaf->jobs);
    int err = atomic_load(&vmaf->worker_err);
    if (!err && vmaf->device) err = vmaf->device_kind->flush(vmaf->device);
    release_history(vmaf);
    for (unsigned i = 0; !err && i < vmaf->inst_cnt; i++) {
        VmafFeatureInstance *inst = vmaf->inst[i];
        if (!inst->fex->flush) continue;
        /* over part of a title it would be wrong: the segment merge runs it over all */
        if (vmaf->segment.set && inst->fex->flags & VMAF_FEATURE_EXTRACTOR_FLUSH_AT_MERGE)
            continue;
        VmafFeatureSink sink = {
            .fc = vmaf->fc,
            .provided = inst->fex->provided_features,
            .mapped = inst->mapped,
            .order = vmaf_store_order(VMAF_STORE_PHASE_FLUSH, inst->fex, i, 0),
        };
        err = inst->fex->flush(inst->priv, &sink);
        if (err)
            vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR, "%s: flush failed (%s)\n",
                     inst->fex->name, strerror(-err));
    }
    if (!err) vmaf->flushed = true;
    return err;
}

/* ---- scores ------------------------------------------------------------------------- */

VMAF_EXPORT int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name,
                                            double *score, unsigned index)
{
    if (!vmaf || !feature_name || !score) return -EINVAL;
    return vmaf_feature_collector_get_score(vmaf->fc, feature_name, score, index);
}

int vmaf_context_pool_feature(VmafContext *vmaf, const char *name,
                              enum VmafPoolingMethod method, double *score, unsigned lo,
                              unsigned hi)
{
    unsigned n = 0;
    double min = 0., max = 0., sum = 0., inv_sum = 0.;
    for (unsigned i = lo; i <= hi; i++) {
        if (vmaf->cfg.n_subsample > 1 && i % vmaf->cfg.n_subsample) continue;
        double s;
        int err = vmaf_feature_collector_get_score(vmaf->fc, name, &s, i);
        if (err) return err;
        n++;
        sum += s;
        inv_sum += 1. / (s + 1.);
        if (n == 1 || s < min) min = s;
        if (n == 1 || s > max) max = s;
        if (i == hi) break; /* hi may be UINT_MAX */
    }
    if (!n) return -EINVAL; /* only subsampled-out indices: no frame to pool, not a NaN */
    switch (method) {
    case VMAF_POOL_METHOD_MIN: *score = min; return 0;
    case VMAF_POOL_METHOD_MAX: *score = max; return 0;
    case VMAF_POOL_METHOD_MEAN: *score = sum / n; return 0;
    case VMAF_POOL_METHOD_HARMONIC_MEAN: *score = n / inv_sum - 1.0; return 0;
    default: return -EINVAL;
    }
}

VMAF_EXPORT int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                                          enum VmafPoolingMethod pool_method, double *score,
                                          unsigned index_low, unsigned index_high)
{
    if (!vmaf || !feature_name || !score) return -EINVAL;
    if (index_low > index_high) return -EINVAL;
    if (pool_method <= VMAF_POOL_METHOD_UNKNOWN || pool_method >= VMAF_POOL_METHOD_NB)
        return -EINVAL;
    return vmaf_context_pool_feature(vmaf, feature_name, pool_method, score, index_low,
                                     index_high);
}
