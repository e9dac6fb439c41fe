/*
 * What every device backend's ladder group does the same way (src/cuda/backend.c,
 * src/opencl/backend.c). A ladder's rungs on one device state read the same reference every
 * frame, and their group uploads it once per frame for all of them; VmafGpuRefShare, embedded
 * in each backend's group, is the part that is no device's: references, lock, members (the
 * backends that joined, as void *), and which frame each ring slot of the group holds, so
 * that a member knows whether to upload a frame or wait for another's upload. Members
 * advance in step, fed from one thread (the ladder's): slot si of every member holds the same
 * frame, numbered mine = 1 + the frames a member submitted before it; a member out of step
 * is an error. The buffers, events, waits and copies stay with the backend.
 */
#ifndef VMAF_GPU_REF_GROUP_H
#define VMAF_GPU_REF_GROUP_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "log.h"

/* The most ring slots a backend using VmafGpuRefShare may have (each asserts it fits). */
#define VMAF_GPU_REF_SHARE_MAX_SLOTS 8

typedef struct VmafGpuRefShare {
    atomic_uint refs;      /* the group's creator, and one per member */
    pthread_mutex_t lock;  /* guards everything below */
    bool ready, chroma;    /* ready: the first member made the group's buffers */
    size_t pic_bytes;      /* a picture of every member, as the first member set it */
    unsigned long long seq[VMAF_GPU_REF_SHARE_MAX_SLOTS]; /* 1 + the sequence number; 0: none */
    unsigned index[VMAF_GPU_REF_SHARE_MAX_SLOTS];
    const void *src[VMAF_GPU_REF_SHARE_MAX_SLOTS]; /* the samples it was uploaded from */
    void **member;
    unsigned n_members, cap;
    unsigned long long uploads; /* statistics: references uploaded */
} VmafGpuRefShare;

/** A group of one reference (its creator's) and no member: 0, or -ENOMEM. s is zeroed. */
static inline int vmaf_gpu_ref_share_init(VmafGpuRefShare *s)
{
    *s = (VmafGpuRefShare){ 0 };
    if (pthread_mutex_init(&s->lock, NULL)) return -ENOMEM;
    atomic_init(&s->refs, 1);
    return 0;
}

static inline void vmaf_gpu_ref_share_ref(VmafGpuRefShare *s)
{
    atomic_fetch_add(&s->refs, 1);
}

/** Drops a reference: true when it was the last (s is then finished with; the backend gives
 *  back its buffers and frees its group). */
static inline bool vmaf_gpu_ref_share_unref(VmafGpuRefShare *s)
{
    if (atomic_fetch_sub(&s->refs, 1) != 1) return false;
    free(s->member);
    pthread_mutex_destroy(&s->lock);
    return true;
}

/** member joins, its pictures pic_bytes each, with chroma or not; the first to join makes the
 *  group's device buffers with make_buffers(group, member) (lock held; 0 or -errno), later
 *  ones must match its pictures (-EINVAL). 0, and the member holds a reference; or -errno,
 *  and it is no member (a failed make_buffers is tried again by the next one to join). */
static inline int vmaf_gpu_ref_share_join(VmafGpuRefShare *s, void *member, size_t pic_bytes,
                                          bool chroma, int (*make_buffers)(void *, void *),
                                          void *group)
{
    pthread_mutex_lock(&s->lock);
    int err = 0;
    if (!s->ready) {
        err = make_buffers(group, member);
        s->ready = !err;
        s->pic_bytes = pic_bytes;
        s->chroma = chroma;
    } else if (s->pic_bytes != pic_bytes || s->chroma != chroma) {
        err = -EINVAL;
    }
    if (!err && s->n_members == s->cap) { /* the member list grows by doubling */
        const unsigned cap = s->cap ? 2 * s->cap : 8;
        void **m = realloc(s->member, cap * sizeof(*m));
        if (m) {
            s->member = m;
            s->cap = cap;
        } else {
            err = -ENOMEM;
        }
    }
    if (!err) {
        s->member[s->n_members++] = member;
        atomic_fetch_add(&s->refs, 1);
    }
    pthread_mutex_unlock(&s->lock);
    return err;
}

/** member leaves (its list entry goes, the last one taking its place); the caller then drops
 *  the member's reference. */
static inline void vmaf_gpu_ref_share_leave(VmafGpuRefShare *s, const void *member)
{
    pthread_mutex_lock(&s->lock);
    for (unsigned m = 0; m < s->n_members; m++)
        if (s->member[m] == member) s->member[m] = s->member[--s->n_members];
    pthread_mutex_unlock(&s->lock);
}

/** Whether the member at frame mine finds that frame (index, samples at src) in slot si
 *  already uploaded by another member (*uploaded true) or must upload it; lock held. A slot
 *  holding a later frame, or another frame under the same number: the members are out of
 *  step, -EINVAL, logged at level naming backend ("cuda", "opencl"). */
static inline int vmaf_gpu_ref_share_check_locked(const VmafGpuRefShare *s, unsigned si,
                                                  unsigned long long mine, unsigned index,
                                                  const void *src, const char *backend,
                                                  enum VmafLogLevel level, bool *uploaded)
{
    if (s->seq[si] > mine ||
        (s->seq[si] == mine && (s->index[si] != index || s->src[si] != src))) {
        vmaf_log(level, VMAF_LOG_LEVEL_ERROR,
                 "%s: the contexts sharing a reference are out of step at frame %u\n", backend,
                 index);
        return -EINVAL;
    }
    *uploaded = s->seq[si] == mine;
    return 0;
}

/** The member at frame mine uploaded that frame (index, samples at src) into the group's
 *  buffer for slot si; lock held. */
static inline void vmaf_gpu_ref_share_uploaded_locked(VmafGpuRefShare *s, unsigned si,
                                                      unsigned long long mine, unsigned index,
                                                      const void *src)
{
    s->seq[si] = mine;
    s->index[si] = index;
    s->src[si] = src;
    s->uploads++;
}

#endif /* VMAF_GPU_REF_GROUP_H */
