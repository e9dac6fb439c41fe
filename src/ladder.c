/*
 * A ladder: one reference against several distorted streams, each scored by its own context
 * (a rung), the rungs fed together (libvmaf.h).
 *
 * Shared work: an extractor that reads only the reference (REF_ONLY) stores the same
 * per-frame scores in every rung. Where it also makes its remaining scores at flush from
 * those alone (FLUSH_AT_MERGE, no counters: motion, motion_v2) and two or more rungs register
 * it with equal options, its extract runs once, in the ladder's own reference context, whose
 * collector forwards each of its stores into every such rung's collector under the rung's
 * position of that extractor (feature_collector.h): the same values at the same place of the
 * rung's output order, as if the rung had run it. The rung's instance is marked shared: not
 * run per frame, but flushed by the rung as usual, over its own frames, so a rung whose
 * distorted ends early still gets what its single run gives. The sharing is planned at the
 * first picture (rungs may register extractors until then) among the rungs on the CPU path
 * (no device state: a rung's twins keep their own state on the device) with the first such
 * rung's n_subsample.
 *
 * Shared work inside extractors: the reference picture handed to the rungs is one picture
 * (one buffer, one private part); the ladder tells it how many rungs on the CPU read it, so
 * that an extractor computes what depends on the reference alone once, as a side product of
 * the picture (picture.h), and each rung's instance reads it (vif.c, adm.c, cambi.c with
 * full_ref, float_ssim.c, float_ms_ssim.c). float_motion reads only the reference but keeps
 * its blurred frames from one frame to the next (TEMPORAL, not FLUSH_AT_MERGE), so it does
 * not run once in the reference context as motion does: the blurred planes of each
 * reference frame are its side product, which every rung copies into its own slot before
 * scoring against its own earlier frames (float_motion.c). The products' memory comes from
 * the ladder's store, reused frame after frame (side_blocks below: how it grows with the
 * rungs).
 *
 * The reference context is fed the reference as both pictures (its extractors never read
 * the distorted one); it fails only where every sharing rung would have failed with it, so
 * its failure is theirs.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "log.h"
#include "picture.h"

#include "export.h"

/*
 * The most reference side products of one kind (one key: an extractor and the options that
 * change its product) of the ladder's frames in memory at once: 2 per rung and 2 more (a
 * 1080p ladder of 4 rungs at 2 threads each was seen to hold up to 6); a rung far behind the
 * others then computes without them. The cap is per kind, so one extractor's products never
 * crowd out another's. Memory therefore grows linearly with K rungs: at most (2K + 2) blocks
 * per key in use, each the size of that product for the reference's geometry: per pixel of
 * the reference about 11 bytes for VIF, 4.2 for ADM, 16 for float_ms_ssim and 12 for
 * float_ssim per pixel of the plane it scores (1.5 MB at 1080p, auto scale 4), 4 for
 * float_motion (6 with motion_add_uv at 4:2:0); cambi's (with full_ref) is 128 bytes in
 * all (the sizes in their extractors). At 1080p with the default model (VIF, ADM) and
 * K = 4: at most 10 x (23 + 8.7) MB, in practice about 6 x 32 MB in flight; float_ms_ssim
 * adds up to 10 x 33 MB, float_motion 8.3 MB per frame in flight (its rungs copy it in
 * turn, in the caller's thread).
 */
static unsigned side_blocks(unsigned rungs)
{
    return 2 * rungs + 2;
}

typedef struct Rung {
    VmafContext *vmaf;
    bool in;     /* still fed by the ladder */
    bool shares; /* some of its instances run in the reference context */
} Rung;

struct VmafLadder {
    Rung *rung;
    unsigned n;
    VmafContext *refctx; /* the shared reference-only extractors; NULL: none shared */
    VmafSideStore *store; /* the memory of the reference pictures' side products */
    bool planned;
    bool flushed;
};

static bool same_options(const VmafDictionary *a, const VmafDictionary *b)
{
    const unsigned na = a ? a->cnt : 0, nb = b ? b->cnt : 0;
    if (na != nb) return false;
    for (unsigned i = 0; i < na; i++) {
        const VmafDictionaryEntry *e = vmaf_dictionary_get(b, a->entry[i].key);
        if (!e || strcmp(e->val, a->entry[i].val)) return false;
    }
    return true;
}

static bool same_instance(const VmafFeatureInstance *a, const VmafFeatureInstance *b)
{
    return a->fex == b->fex && same_options(a->opts, b->opts);
}

static bool shareable(const VmafFeatureInstance *inst)
{
    const uint64_t need = VMAF_FEATURE_EXTRACTOR_REF_ONLY | VMAF_FEATURE_EXTRACTOR_FLUSH_AT_MERGE;
    return (inst->fex->flags & need) == need && !inst->fex->n_counters;
}

static bool may_share(const VmafContext *rung, const VmafContext *first)
{
    return !rung->device_state && !rung->segment.set &&
           rung->cfg.n_subsample == first->cfg.n_subsample;
}

/* Rungs (other than k) that may share and register an instance equal to inst. */
static unsigned others_with(const VmafLadder *l, const VmafContext *first, unsigned k,
                            const VmafFeatureInstance *inst)
{
    unsigned n = 0;
    for (unsigned j = 0; j < l->n; j++) {
        const VmafContext *v = l->rung[j].vmaf;
        if (j == k || !l->rung[j].in || !may_share(v, first)) continue;
        for (unsigned i = 0; i < v->inst_cnt; i++)
            if (same_instance(v->inst[i], inst)) {
                n++;
                break;
            }
    }
    return n;
}

/* The reference context's instance equal to inst, created (a copy) if it has none. */
static int shared_instance(VmafLadder *l, const VmafContext *first,
                           const VmafFeatureInstance *inst, unsigned *pos)
{
    if (!l->refctx) {
        VmafConfiguration cfg = first->cfg;
        cfg.gpumask = 0;
        int err = vmaf_init(&l->refctx, cfg);
        if (err) return err;
        if (l->refctx->device_state) { /* VMAF_BACKEND's: this context stays on the CPU */
            l->refctx->device_kind->unref_state(l->refctx->device_state);
            l->refctx->device_state = NULL;
            l->refctx->device_kind = NULL;
        }
    }
    VmafContext *r = l->refctx;
    for (unsigned i = 0; i < r->inst_cnt; i++)
        if (same_instance(r->inst[i], inst)) {
            *pos = i;
            return 0;
        }
    VmafFeatureInstance *copy;
    int err = vmaf_feature_instance_clone(&copy, inst);
    if (err) return err;
    err = vmaf_context_append_instance(r, copy);
    if (err) return err;
    *pos = r->inst_cnt - 1;
    return 0;
}

static int plan_extractors(VmafLadder *l)
{
    const VmafContext *first = NULL;
    for (unsigned k = 0; k < l->n && !first; k++)
        if (l->rung[k].in && may_share(l->rung[k].vmaf, l->rung[k].vmaf))
            first = l->rung[k].vmaf;
    if (!first) return 0;
    for (unsigned k = 0; k < l->n; k++) {
        VmafContext *v = l->rung[k].vmaf;
        if (!l->rung[k].in || !may_share(v, first)) continue;
        for (unsigned i = 0; i < v->inst_cnt; i++) {
            VmafFeatureInstance *inst = v->inst[i];
            if (!shareable(inst)) continue;
            if (!others_with(l, first, k, inst)) continue;
            unsigned pos;
            int err = shared_instance(l, first, inst, &pos);
            if (!err) err = vmaf_feature_collector_forward(l->refctx->fc, pos, v->fc, i);
            if (err) return err;
            inst->shared = true;
            l->rung[k].shares = true;
        }
    }
    return 0;
}

/* The rungs and the reference context run on one pool of workers (context.h). */
static int share_workers(VmafLadder *l)
{
    VmafContext **ctx = calloc(l->n + 1, sizeof(*ctx));
    if (!ctx) return -ENOMEM;
    unsigned n = 0;
    for (unsigned k = 0; k < l->n; k++)
        if (l->rung[k].in) ctx[n++] = l->rung[k].vmaf;
    if (l->refctx) ctx[n++] = l->refctx;
    const int err = vmaf_context_share_workers(ctx, n);
    free(ctx);
    return err;
}

/* Can a and b (on a device) share their reference frames: the same device state, and the
 * same frames submitted in the same order (equal extractors, options and subsampling)? */
static bool same_device_frames(const VmafContext *a, const VmafContext *b)
{
    if (a->device_kind != b->device_kind || a->device_state != b->device_state ||
        a->cfg.gpumask || b->cfg.gpumask || a->cfg.n_subsample != b->cfg.n_subsample ||
        a->inst_cnt != b->inst_cnt || a->segment.set || b->segment.set)
        return false;
    for (unsigned i = 0; i < a->inst_cnt; i++)
        if (!same_instance(a->inst[i], b->inst[i])) return false;
    return true;
}

/* Rungs on one device state with the same work upload each frame's reference once, into the
 * device's shared reference frames (device.h's ref_group), where the device supports it. */
static int share_device_reference(VmafLadder *l)
{
    for (unsigned k = 0; k < l->n; k++) {
        VmafContext *v = l->rung[k].vmaf;
        if (!l->rung[k].in || !v->device_state || !v->device_kind->ref_group_create ||
            v->ref_group)
            continue;
        unsigned peers = 0;
        for (unsigned j = k + 1; j < l->n; j++)
            peers += l->rung[j].in && !l->rung[j].vmaf->ref_group &&
                     same_device_frames(v, l->rung[j].vmaf);
        if (!peers) continue;
        void *group;
        const int err = v->device_kind->ref_group_create(&group, v->device_state);
        if (err == -ENOSYS) continue;
        if (err) return err;
        v->ref_group = group; /* the creator's reference */
        for (unsigned j = k + 1; j < l->n; j++) {
            VmafContext *w = l->rung[j].vmaf;
            if (!l->rung[j].in || w->ref_group || !same_device_frames(v, w)) continue;
            w->ref_group = group;
            v->device_kind->ref_group_ref(group);
        }
    }
    return 0;
}

static int plan_sharing(VmafLadder *l)
{
    l->planned = true;
    int err = plan_extractors(l);
    if (!err) err = share_workers(l);
    if (!err) err = share_device_reference(l);
    return err;
}

VMAF_EXPORT int vmaf_ladder_init(VmafLadder **ladder, VmafContext *const *rung, unsigned n)
{
    if (!ladder || !rung || !n) return -EINVAL;
    for (unsigned k = 0; k < n; k++) {
        const VmafContext *v = rung[k];
        if (!v || v->ladder || v->geometry.set || v->flushed || v->pic_cnt) return -EINVAL;
        for (unsigned j = 0; j < k; j++)
            if (rung[j] == v) return -EINVAL;
    }
    VmafLadder *l = calloc(1, sizeof(*l));
    if (!l) return -ENOMEM;
    l->rung = calloc(n, sizeof(*l->rung));
    if (!l->rung) {
        free(l);
        return -ENOMEM;
    }
    l->n = n;
    const int err = vmaf_side_store_create(&l->store, side_blocks(n));
    if (err) {
        free(l->rung);
        free(l);
        return err;
    }
    for (unsigned k = 0; k < n; k++) {
        l->rung[k] = (Rung){ .vmaf = rung[k], .in = true };
        rung[k]->ladder = l;
    }
    *ladder = l;
    return 0;
}

/* Rung k leaves: no more pictures, no more forwarded stores (those of the frames it read
 * arrive first: the reference context's frames in flight are waited for). */
static void leave(VmafLadder *l, unsigned k)
{
    Rung *r = &l->rung[k];
    if (!r->in) return;
    r->in = false;
    if (!r->shares || !l->refctx) return;
    vmaf_thread_pool_wait(l->refctx->workers, &l->refctx->jobs);
    vmaf_feature_collector_unforward(l->refctx->fc, r->vmaf->fc);
}

/* The stores forwarded to rung k failed where the reference context did. */
static int shared_status(const VmafLadder *l, unsigned k)
{
    return l->rung[k].shares && l->refctx ? atomic_load(&l->refctx->worker_err) : 0;
}

/* A context's read as vmaf_read_pictures(), the pictures released whatever happens. */
static int read_and_release(VmafContext *v, VmafPicture *ref, VmafPicture *dist, unsigned index)
{
    const int err = vmaf_context_read_pictures(v, ref, dist, index);
    if (err && ref->ref) vmaf_picture_unref(ref);
    if (err && dist->ref) vmaf_picture_unref(dist);
    return err;
}

/* Rung k's distorted ended: it leaves and is flushed, as a single run ends there. */
static int finish(VmafLadder *l, unsigned k)
{
    leave(l, k);
    const int err = shared_status(l, k);
    return err ? err : vmaf_context_read_pictures(l->rung[k].vmaf, NULL, NULL, 0);
}

static int flush_all(VmafLadder *l, int *status)
{
    int first_err = 0;
    /* its frames finished and its reference history released; its own flush stores stay in
     * its collector (only per-frame stores are forwarded), so its result is not the rungs' */
    if (l->refctx) (void)vmaf_context_read_pictures(l->refctx, NULL, NULL, 0);
    for (unsigned k = 0; k < l->n; k++) {
        const int err = l->rung[k].in ? finish(l, k) : -ENOENT;
        if (status) status[k] = err;
        if (err && err != -ENOENT && !first_err) first_err = err;
    }
    l->flushed = true;
    return first_err;
}

VMAF_EXPORT int vmaf_ladder_read_pictures(VmafLadder *l, VmafPicture *ref, VmafPicture *dist,
                                          int *status, unsigned index)
{
    if (!l) return -EINVAL;
    if (!ref != !dist || l->flushed) {
        if (ref && ref->ref) vmaf_picture_unref(ref);
        for (unsigned k = 0; dist && k < l->n; k++)
            if (dist[k].ref) vmaf_picture_unref(&dist[k]);
        return -EINVAL;
    }
    if (!ref) return flush_all(l, status);

    const int plan_err = l->planned ? 0 : plan_sharing(l);
    int first_err = 0;
    /* rungs whose distorted ended leave before the reference context reads this frame */
    for (unsigned k = 0; k < l->n; k++) {
        if (dist[k].ref) continue;
        const int e = l->rung[k].in ? finish(l, k) : -ENOENT;
        if (status) status[k] = e;
        if (e && e != -ENOENT && !first_err) first_err = e;
    }
    /* the rungs that score this reference on the CPU: its side products (picture.h) are
     * worth keeping for them when there are two or more */
    unsigned readers = 0;
    for (unsigned k = 0; k < l->n; k++) {
        const VmafContext *v = l->rung[k].vmaf;
        readers += dist[k].ref && l->rung[k].in && !(v->device_state && !v->cfg.gpumask);
    }
    vmaf_picture_set_readers(ref, readers, l->store);
    /* the shared extractors: the reference as both pictures */
    int shared_err = plan_err;
    if (!shared_err && l->refctx) {
        VmafPicture a, b;
        vmaf_picture_ref(&a, ref);
        vmaf_picture_ref(&b, ref);
        shared_err = read_and_release(l->refctx, &a, &b, index);
    }
    for (unsigned k = 0; k < l->n; k++) {
        Rung *r = &l->rung[k];
        if (!dist[k].ref) continue;
        if (!r->in) {
            vmaf_picture_unref(&dist[k]);
            if (status) status[k] = -ENOENT;
            continue;
        }
        int e = plan_err ? plan_err : r->shares ? shared_err : 0;
        if (e) {
            vmaf_picture_unref(&dist[k]);
        } else {
            VmafPicture rr;
            vmaf_picture_ref(&rr, ref);
            e = read_and_release(r->vmaf, &rr, &dist[k], index);
        }
        if (status) status[k] = e;
        if (e) {
            if (!first_err) first_err = e;
            leave(l, k);
        }
    }
    vmaf_picture_unref(ref);
    return first_err;
}

VMAF_EXPORT unsigned vmaf_ladder_rungs_left(const VmafLadder *l)
{
    unsigned n = 0;
    for (unsigned k = 0; l && k < l->n; k++) n += l->rung[k].in;
    return n;
}

void vmaf_ladder_detach(VmafLadder *l, VmafContext *rung)
{
    for (unsigned k = 0; k < l->n; k++) {
        if (l->rung[k].vmaf != rung) continue;
        leave(l, k);
        l->rung[k].vmaf = NULL;
        rung->ladder = NULL;
    }
}

VMAF_EXPORT int vmaf_ladder_close(VmafLadder *l)
{
    if (!l) return -EINVAL;
    for (unsigned k = 0; k < l->n; k++) {
        leave(l, k);
        if (l->rung[k].vmaf) l->rung[k].vmaf->ladder = NULL;
    }
    if (l->refctx) vmaf_close(l->refctx);
    vmaf_side_store_unref(l->store); /* pictures still held keep it */
    free(l->rung);
    free(l);
    return 0;
}
