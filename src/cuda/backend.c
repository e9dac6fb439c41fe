#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/backend.h"
#include "cuda/state.h"
#include "feature/twins/kernel_args.h"
#include "gpu/backend_util.h"
#include "gpu/ref_group.h"
#include "gpu/twin.h"
#include "log.h"
#include "picture.h"

/* Frames in flight. Motion reads the two frames before it, so at least 3; more keeps the
 * device busy while the host reads and collects. */
#define N_SLOTS 6
_Static_assert(N_SLOTS <= VMAF_GPU_REF_SHARE_MAX_SLOTS, "a ladder group's ring is too short");
/* bytes of one kernel argument struct (CUDA allows 4 KiB of parameters on every target) */
#define MAX_ARGS VMAF_CUDA_MAX_KERNEL_ARGS

enum OpKind { OP_UPLOAD, OP_EVENT, OP_KERNEL, OP_MEMSET, OP_DOWNLOAD };

/* Uploads: ref luma, ref chroma, dist luma, dist chroma. */
enum { UP_REF_LUMA, UP_REF_CHROMA, UP_DIST_LUMA, UP_DIST_CHROMA, N_UPLOADS };

typedef struct Op {
    enum OpKind kind;
    const char *label;
    CUfunction fn;
    VmafGpuLaunch launch;
    unsigned char args[MAX_ARGS];
    size_t args_size;
    CUdeviceptr dptr;
    void *host;
    size_t bytes;
    int upload;
    int branch;         /* the twin that recorded it (graph branch); -1: uploads, event */
    CUgraphNode node;
} Op;

/* One frame's device work as a list of operations, recorded once per slot and replayed: as a
 * CUDA graph (default) or launched one by one on the slot's stream (VMAF_CUDA_NO_GRAPH=1, and
 * always when profiling, so each operation can be timed). */
typedef struct Recorder {
    VmafGpuRecorder base; /* first: the twins' recorder calls find the list */
    Op *op;
    unsigned cnt, cap;
} Recorder;

/* A frame runs every twin, or (subsampling skips the frame) only the twins that must see
 * every frame: temporal ones and those reading the previous reference. */
typedef struct Variant {
    bool every_twin;
    Recorder rec;
    CUgraph graph;
    CUgraphExec exec;
    bool built;
} Variant;

typedef struct Slot {
    CUdeviceptr buf[2];
    VmafGpuPicture pic[2];
    CUstream stream;
    CUevent uploaded, done;
    Variant var[2];
    bool busy;
    unsigned index, variant;
    VmafPicture held[2];
    void *staging[2];
    CUevent *prof;
    unsigned prof_cnt;
    double submit_ms;
} Slot;

typedef struct Twin {
    const VmafGpuTwin *twin;
    void *priv;
    VmafFeatureInstance *inst;
    unsigned ext;
    bool subsampled;
    double init_ms;
} Twin;

typedef struct ProfileEntry {
    const char *label;
    double total_ms;
    unsigned n;
} ProfileEntry;

struct VmafCudaBackend {
    VmafGpuDevice dev; /* first: the twins' device calls find the backend (device_of) */
    VmafCudaState *s;
    VmafFeatureGeometry g;
    VmafFeatureCollector *fc;
    Twin *twin;          /* one per registered instance that has a twin */
    unsigned n_twins, n_every_frame, n_subsample;
    CUgraphNode *branch_tail; /* build_graph: each twin's last node so far (n_twins) */
    Slot slot[N_SLOTS];
    unsigned long long seq;
    bool chroma, use_graph, profile, profile_ops, twins_ready;
    enum VmafPictureMemory memory;
    bool memory_set;
    size_t pic_bytes, luma_bytes, chroma_bytes, chroma_offset;
    ProfileEntry *prof; /* one per operation label (twins of one kind share theirs) */
    unsigned prof_n, prof_cap;
    double host_ms[3]; /* submit, wait, collect */
    double create_ms;  /* vmaf_cuda_backend_create: slots, twin buffers */
    double slots_ms;   /* of which the slots */
    double warm_wait_ms; /* of which waiting for the state's warm-up */
    double first_submit_ms, first_done_ms; /* first frame: submitted, collected (since create) */
    double created_at_ms;
    unsigned long long frames;
    VmafCudaRefGroup *group; /* the ladder's shared reference frames; NULL: its own */
};


/*
 * A ladder's rungs on one state read the same reference picture every frame: the group holds
 * one ring of reference buffers for all of them (slot k of every member reads the group's
 * buffer k), and each frame's reference is uploaded once, by the first member to submit it,
 * on that member's slot stream, followed by the group's `uploaded` event for the slot; the
 * other members' slot streams wait for that event. The uploader's stream first waits for
 * every member's frames that still read the buffer (the slot's previous frame, and the two
 * after it, which read it as their previous references), as a member waits for its own.
 * Members advance in step (the same frames, in order, from one thread: the ladder's), so a
 * slot number means the same frame in every member; a member out of step is an error.
 */
struct VmafCudaRefGroup {
    VmafGpuRefShare share; /* references, lock, members (VmafCudaBackend), slots' frames */
    VmafCudaState *s;
    CUdeviceptr buf[N_SLOTS];
    CUevent uploaded[N_SLOTS];
};

static const VmafGpuDeviceOps device_ops; /* the twins' device: below */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* ---- recorder --------------------------------------------------------------------------- */

static Op *rec_push(Recorder *rec, enum OpKind kind, const char *label)
{
    if (rec->cnt == rec->cap) {
        const unsigned cap = rec->cap ? 2 * rec->cap : 16;
        Op *op = realloc(rec->op, cap * sizeof(*op));
        if (!op) return NULL;
        rec->op = op;
        rec->cap = cap;
    }
    Op *op = &rec->op[rec->cnt++];
    memset(op, 0, sizeof(*op));
    op->kind = kind;
    op->label = label;
    op->branch = -1;
    return op;
}

static int rec_kernel(VmafGpuRecorder *r, VmafGpuKernel k, VmafGpuLaunch launch, const void *args,
                      size_t args_size, const char *label)
{
    Recorder *rec = (Recorder *)r;
    if (args_size > MAX_ARGS) {
        vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_ERROR,
                 "cuda: %s: kernel arguments of %zu bytes, more than the %d a recorder holds\n",
                 label, args_size, MAX_ARGS);
        return -EINVAL;
    }
    Op *op = rec_push(rec, OP_KERNEL, label);
    if (!op) return -ENOMEM;
    op->fn = (CUfunction)k;
    op->launch = launch;
    memcpy(op->args, args, args_size);
    op->args_size = args_size;
    return 0;
}

static int rec_memset(VmafGpuRecorder *r, VmafGpuPtr dst, size_t bytes, const char *label)
{
    Recorder *rec = (Recorder *)r;
    Op *op = rec_push(rec, OP_MEMSET, label);
    if (!op) return -ENOMEM;
    op->dptr = dst;
    op->bytes = bytes;
    return 0;
}

static int rec_download(VmafGpuRecorder *r, void *host, VmafGpuPtr src, size_t bytes,
                        const char *label)
{
    Recorder *rec = (Recorder *)r;
    Op *op = rec_push(rec, OP_DOWNLOAD, label);
    if (!op) return -ENOMEM;
    op->host = host;
    op->dptr = src;
    op->bytes = bytes;
    return 0;
}

static const VmafGpuRecorderOps recorder_ops = {
    .kernel = rec_kernel,
    .memset = rec_memset,
    .download = rec_download,
};

/* ---- slots ------------------------------------------------------------------------------- */

static void upload_source(const VmafCudaBackend *b, int upload, const VmafPicture *pic,
                          const void *staging, const void **src)
{
    const unsigned char *base = staging ? staging : pic->data[0];
    const bool chroma = upload == UP_REF_CHROMA || upload == UP_DIST_CHROMA;
    *src = chroma ? base + b->chroma_offset : base;
}

static void memcpy_params(const VmafCudaBackend *b, const Op *op, const void *src,
                          CUDA_MEMCPY3D *c)
{
    memset(c, 0, sizeof(*c));
    if (op->kind == OP_DOWNLOAD) {
        c->srcMemoryType = CU_MEMORYTYPE_DEVICE;
        c->srcDevice = op->dptr;
        c->dstMemoryType = CU_MEMORYTYPE_HOST;
        c->dstHost = op->host;
    } else {
        if (b->memory == VMAF_PICTURE_MEMORY_DEVICE) {
            c->srcMemoryType = CU_MEMORYTYPE_DEVICE;
            c->srcDevice = (CUdeviceptr)(uintptr_t)src;
        } else {
            c->srcMemoryType = CU_MEMORYTYPE_HOST;
            c->srcHost = src;
        }
        c->dstMemoryType = CU_MEMORYTYPE_DEVICE;
        c->dstDevice = op->dptr;
    }
    c->WidthInBytes = op->bytes;
    c->Height = 1;
    c->Depth = 1;
}

/* Whether twin t runs in a frame of variant every_twin. */
static bool twin_runs(const VmafCudaBackend *b, unsigned t, bool every_twin)
{
    return every_twin || !b->twin[t].subsampled;
}

static int record_variant(VmafCudaBackend *b, Slot *sl, unsigned si, Variant *v, bool every_twin)
{
    Recorder *rec = &v->rec;
    rec->base.ops = &recorder_ops;
    v->every_twin = every_twin;
    for (int pic = b->group ? 1 : 0; pic < 2; pic++) { /* a group uploads the reference */
        Op *op = rec_push(rec, OP_UPLOAD, pic ? "upload dist luma" : "upload ref luma");
        if (!op) return -ENOMEM;
        op->upload = pic ? UP_DIST_LUMA : UP_REF_LUMA;
        op->dptr = sl->buf[pic];
        op->bytes = b->luma_bytes;
        if (!b->chroma) continue;
        op = rec_push(rec, OP_UPLOAD, pic ? "upload dist chroma" : "upload ref chroma");
        if (!op) return -ENOMEM;
        op->upload = pic ? UP_DIST_CHROMA : UP_REF_CHROMA;
        op->dptr = sl->buf[pic] + b->chroma_offset;
        op->bytes = b->chroma_bytes;
    }
    if (!rec_push(rec, OP_EVENT, "uploaded")) return -ENOMEM;

    const Slot *p1 = &b->slot[(si + N_SLOTS - 1) % N_SLOTS];
    const Slot *p2 = &b->slot[(si + N_SLOTS - 2) % N_SLOTS];
    const VmafGpuSlotView view = {
        .slot = si, .ref = &sl->pic[0], .dist = &sl->pic[1],
        .prev_ref = &p1->pic[0], .prev_prev_ref = &p2->pic[0],
        .prev_dist = &p1->pic[1],
    };
    for (unsigned t = 0; t < b->n_twins; t++) {
        if (!twin_runs(b, t, every_twin)) continue;
        const unsigned first = rec->cnt;
        int err = b->twin[t].twin->record(b->twin[t].priv, b->twin[t].inst->priv, &rec->base,
                                          &view);
        if (err) return err;
        for (unsigned i = first; i < rec->cnt; i++) rec->op[i].branch = (int)t;
    }
    return 0;
}

static int build_graph(VmafCudaBackend *b, Variant *v)
{
    const VmafCudaDriver *d = &b->s->drv;
    VMAF_CUDA_TRY(d, d->cuGraphCreate(&v->graph, 0));
    /* one branch per twin: a twin's operations in their recorded order, twins independent of
     * each other (each reads the slot's frames and writes its own buffers), so the device
     * may run them side by side */
    CUgraphNode *last = b->branch_tail;
    for (unsigned t = 0; t < b->n_twins; t++) last[t] = NULL;
    for (unsigned i = 0; i < v->rec.cnt; i++) {
        Op *op = &v->rec.op[i];
        if (op->kind == OP_UPLOAD || op->kind == OP_EVENT) continue; /* outside (launch_graph) */
        CUgraphNode prev = last[op->branch];
        const unsigned ndeps = prev ? 1 : 0;
        CUresult r = CUDA_SUCCESS;
        switch (op->kind) {
        case OP_UPLOAD:
        case OP_EVENT:
            break;
        case OP_DOWNLOAD: {
            CUDA_MEMCPY3D c;
            memcpy_params(b, op, NULL, &c);
            r = d->cuGraphAddMemcpyNode(&op->node, v->graph, &prev, ndeps, &c, b->s->ctx);
            break;
        }
        case OP_MEMSET: {
            CUDA_MEMSET_NODE_PARAMS m = {
                .dst = op->dptr, .pitch = op->bytes, .value = 0, .elementSize = 1,
                .width = op->bytes, .height = 1,
            };
            r = d->cuGraphAddMemsetNode(&op->node, v->graph, &prev, ndeps, &m, b->s->ctx);
            break;
        }
        case OP_KERNEL: {
            size_t size = op->args_size;
            void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, op->args,
                              CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END };
            CUDA_KERNEL_NODE_PARAMS k = {
                .func = op->fn,
                .gridDimX = op->launch.grid[0], .gridDimY = op->launch.grid[1],
                .gridDimZ = op->launch.grid[2],
                .blockDimX = op->launch.block[0], .blockDimY = op->launch.block[1],
                .blockDimZ = op->launch.block[2],
                .sharedMemBytes = op->launch.shared_bytes,
                .extra = extra,
            };
            r = d->cuGraphAddKernelNode(&op->node, v->graph, &prev, ndeps, &k);
            break;
        }
        }
        VMAF_CUDA_TRY(d, r);
        last[op->branch] = op->node;
    }
    VMAF_CUDA_TRY(d, d->cuGraphInstantiateWithFlags(&v->exec, v->graph, 0));
    v->built = true;
    return 0;
}

/* One recorded op issued on the slot's stream (no graph). */
static int issue_op(const VmafCudaBackend *b, const Slot *sl, const Op *op,
                    const void *src[N_UPLOADS])
{
    const VmafCudaDriver *d = &b->s->drv;
    switch (op->kind) {
    case OP_UPLOAD:
        if (b->memory == VMAF_PICTURE_MEMORY_DEVICE)
            VMAF_CUDA_TRY(d, d->cuMemcpyDtoDAsync(op->dptr, (CUdeviceptr)(uintptr_t)src[op->upload],
                                                  op->bytes, sl->stream));
        else
            VMAF_CUDA_TRY(d, d->cuMemcpyHtoDAsync(op->dptr, src[op->upload], op->bytes,
                                                  sl->stream));
        break;
    case OP_EVENT: VMAF_CUDA_TRY(d, d->cuEventRecord(sl->uploaded, sl->stream)); break;
    case OP_MEMSET: VMAF_CUDA_TRY(d, d->cuMemsetD8Async(op->dptr, 0, op->bytes, sl->stream)); break;
    case OP_DOWNLOAD:
        VMAF_CUDA_TRY(d, d->cuMemcpyDtoHAsync(op->host, op->dptr, op->bytes, sl->stream));
        break;
    case OP_KERNEL: {
        size_t size = op->args_size;
        void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, (void *)op->args,
                          CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END };
        VMAF_CUDA_TRY(d, d->cuLaunchKernel(op->fn, op->launch.grid[0], op->launch.grid[1],
                                           op->launch.grid[2], op->launch.block[0],
                                           op->launch.block[1], op->launch.block[2],
                                           op->launch.shared_bytes, sl->stream, NULL, extra));
        break;
    }
    }
    return 0;
}

static int launch_direct(VmafCudaBackend *b, Slot *sl, Variant *v, const void *src[N_UPLOADS])
{
    const VmafCudaDriver *d = &b->s->drv;
    if (b->profile_ops && sl->prof_cnt < v->rec.cnt + 1) {
        CUevent *ev = realloc(sl->prof, (v->rec.cnt + 1) * sizeof(*ev));
        if (!ev) return -ENOMEM;
        sl->prof = ev;
        for (unsigned i = sl->prof_cnt; i < v->rec.cnt + 1; i++)
            VMAF_CUDA_TRY(d, d->cuEventCreate(&sl->prof[i], CU_EVENT_DEFAULT));
        sl->prof_cnt = v->rec.cnt + 1;
    }
    if (b->profile_ops) VMAF_CUDA_TRY(d, d->cuEventRecord(sl->prof[0], sl->stream));
    for (unsigned i = 0; i < v->rec.cnt; i++) {
        const int err = issue_op(b, sl, &v->rec.op[i], src);
        if (err) return err;
        if (b->profile_ops) VMAF_CUDA_TRY(d, d->cuEventRecord(sl->prof[i + 1], sl->stream));
    }
    return 0;
}

static int launch_graph(VmafCudaBackend *b, Slot *sl, Variant *v, const void *src[N_UPLOADS])
{
    const VmafCudaDriver *d = &b->s->drv;
    if (!v->built) {
        int err = build_graph(b, v);
        if (err) return err;
    }
    /* Uploads and the `uploaded` event go on the stream directly, before the graph: other
     * slots' streams wait on that event (cuStreamWaitEvent) and the event must be recorded by
     * cuEventRecord for that wait to capture this frame's uploads at once; an event node
     * inside the graph would only be recorded when the graph reaches it. */
    for (unsigned i = 0; i < v->rec.cnt; i++) {
        const Op *op = &v->rec.op[i];
        if (op->kind != OP_UPLOAD && op->kind != OP_EVENT) continue;
        const int err = issue_op(b, sl, op, src);
        if (err) return err;
    }
    VMAF_CUDA_TRY(d, d->cuGraphLaunch(v->exec, sl->stream));
    return 0;
}

/* ---- collection ---------------------------------------------------------------------------- */

static void profile_add(VmafCudaBackend *b, const char *label, double ms)
{
    unsigned i = 0;
    while (i < b->prof_n && strcmp(b->prof[i].label, label)) i++;
    if (i == b->prof_n) {
        if (b->prof_n == b->prof_cap) {
            const unsigned cap = b->prof_cap ? 2 * b->prof_cap : 64;
            ProfileEntry *prof = realloc(b->prof, cap * sizeof(*prof));
            if (!prof) return; /* the profile only: the label goes unreported */
            b->prof = prof;
            b->prof_cap = cap;
        }
        b->prof[b->prof_n++] = (ProfileEntry){ .label = label };
    }
    b->prof[i].total_ms += ms;
    b->prof[i].n++;
}

static void profile_frame(VmafCudaBackend *b, Slot *sl, double wait_ms, double collect_ms)
{
    const VmafCudaDriver *d = &b->s->drv;
    const Variant *v = &sl->var[sl->variant];
    flockfile(stderr); /* one line, however many operations */
    fprintf(stderr, "cuda profile frame %u:", sl->index);
    for (unsigned i = 0; i < v->rec.cnt && i + 1 < sl->prof_cnt; i++) {
        float ms = 0;
        if (d->cuEventElapsedTime(&ms, sl->prof[i], sl->prof[i + 1]) != CUDA_SUCCESS) continue;
        profile_add(b, v->rec.op[i].label, ms);
        fprintf(stderr, " [%s %.3f ms]", v->rec.op[i].label, ms);
    }
    fprintf(stderr, " host: submit %.3f wait %.3f collect %.3f ms\n", sl->submit_ms, wait_ms,
            collect_ms);
    funlockfile(stderr);
}

static int collect_slot(VmafCudaBackend *b, Slot *sl)
{
    if (!sl->busy) return 0;
    const VmafCudaDriver *d = &b->s->drv;
    const double t0 = now_ms();
    int err = vmaf_cuda_result(d, d->cuEventSynchronize(sl->done), "cuEventSynchronize");
    const double t1 = now_ms();
    const bool every_twin = sl->var[sl->variant].every_twin;
    for (unsigned t = 0; !err && t < b->n_twins; t++) {
        if (!twin_runs(b, t, every_twin)) continue;
        Twin *tw = &b->twin[t];
        err = vmaf_gpu_collect_twin(tw->twin, tw->priv, tw->inst, tw->ext, &b->dev,
                                    (unsigned)(sl - b->slot), sl->index, b->fc, b->g.log_level);
    }
    const double t2 = now_ms();
    if (b->profile) {
        if (!b->frames) b->first_done_ms = t2 - b->created_at_ms - b->first_submit_ms;
        if (b->profile_ops) profile_frame(b, sl, t1 - t0, t2 - t1);
        b->host_ms[0] += sl->submit_ms;
        b->host_ms[1] += t1 - t0;
        b->host_ms[2] += t2 - t1;
        b->frames++;
    }
    vmaf_picture_unref(&sl->held[0]);
    vmaf_picture_unref(&sl->held[1]);
    sl->busy = false;
    return err;
}

int vmaf_cuda_backend_flush(VmafCudaBackend *b)
{
    if (!b) return 0;
    int err = vmaf_cuda_push(b->s);
    if (err) return err;
    /* in submission order */
    for (unsigned k = 0; k < N_SLOTS; k++) {
        const int e = collect_slot(b, &b->slot[(b->seq + k) % N_SLOTS]);
        if (!err) err = e;
    }
    vmaf_cuda_pop(b->s);
    return err;
}

/* ---- submission ------------------------------------------------------------------------------ */

/* Whether the frame at index runs every twin (else only those that see every frame). With
 * no subsampled twin both sets are one: one variant then serves every frame. */
static bool runs_every_twin(const VmafCudaBackend *b, unsigned index)
{
    return vmaf_gpu_runs_every_twin(b->n_subsample, index, b->n_every_frame, b->n_twins);
}

/* Host pictures go back to their pool as soon as the frame's uploads have completed (the
 * slot's `uploaded` event), not when its results are collected N_SLOTS frames later: the
 * reader then refills them sooner, so a run keeps (and pins) fewer pictures. The uploads and
 * `uploaded` are issued on the stream by cuEventRecord before the frame's graph (issue_op), so
 * a completed query means this frame's uploads are done; nothing else on the device reads the
 * host pictures. (An event node inside the graph would not do: a query between the launch and
 * the node's execution sees the previous frame's record.) */
static void release_uploaded(VmafCudaBackend *b)
{
    const VmafCudaDriver *d = &b->s->drv;
    for (unsigned k = 0; k < N_SLOTS; k++) {
        Slot *sl = &b->slot[k];
        if (!sl->busy || !sl->held[0].ref) continue;
        if (d->cuEventQuery(sl->uploaded) != CUDA_SUCCESS) continue; /* not yet (or an error,
                                                                       * which collect reports) */
        vmaf_picture_unref(&sl->held[0]);
        vmaf_picture_unref(&sl->held[1]);
    }
}

/* ---- a ladder's shared reference (VmafCudaRefGroup) ----------------------------------------- */

int vmaf_cuda_ref_group_create(VmafCudaRefGroup **out, VmafCudaState *state)
{
    if (!out || !state) return -EINVAL;
    VmafCudaRefGroup *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    const int err = vmaf_gpu_ref_share_init(&g->share);
    if (err) {
        free(g);
        return err;
    }
    vmaf_cuda_state_ref(state);
    g->s = state;
    *out = g;
    return 0;
}

void vmaf_cuda_ref_group_ref(VmafCudaRefGroup *g)
{
    vmaf_gpu_ref_share_ref(&g->share);
}

void vmaf_cuda_ref_group_unref(VmafCudaRefGroup *g)
{
    if (!g || !vmaf_gpu_ref_share_unref(&g->share)) return;
    const VmafCudaDriver *d = &g->s->drv;
    /* no member is left: nothing reads the buffers */
    if (g->share.ready && !vmaf_cuda_push(g->s)) {
        for (unsigned k = 0; k < N_SLOTS; k++) {
            if (g->uploaded[k]) d->cuEventDestroy(g->uploaded[k]);
            if (g->buf[k]) d->cuMemFree(g->buf[k]);
        }
        vmaf_cuda_pop(g->s);
    }
    vmaf_cuda_state_unref(g->s);
    free(g);
}

unsigned long long vmaf_cuda_ref_group_uploads(const VmafCudaRefGroup *g)
{
    return g ? g->share.uploads : 0;
}

/* The group's ring, made by its first member (context pushed; the group's lock held). */
static int group_alloc(void *group, void *member)
{
    VmafCudaRefGroup *g = group;
    const VmafCudaBackend *b = member;
    const VmafCudaDriver *d = &b->s->drv;
    for (unsigned k = 0; k < N_SLOTS; k++) {
        VMAF_CUDA_TRY(d, d->cuMemAlloc(&g->buf[k], b->pic_bytes));
        VMAF_CUDA_TRY(d, d->cuEventCreate(&g->uploaded[k], CU_EVENT_DISABLE_TIMING));
        /* zeroed: the first frames' temporal twins read slots no frame has filled yet */
        VMAF_CUDA_TRY(d, d->cuMemsetD8Async(g->buf[k], 0, b->pic_bytes, NULL));
    }
    VMAF_CUDA_TRY(d, d->cuCtxSynchronize());
    return 0;
}

/* b joins g (0), or not (an error: b keeps its own reference buffers). Context pushed. */
static int group_join(VmafCudaBackend *b, VmafCudaRefGroup *g)
{
    if (g->s != b->s) return -EINVAL;
    const int err = vmaf_gpu_ref_share_join(&g->share, b, b->pic_bytes, b->chroma, group_alloc, g);
    if (!err) b->group = g;
    return err;
}

static void group_leave(VmafCudaBackend *b)
{
    VmafCudaRefGroup *g = b->group;
    if (!g) return;
    vmaf_gpu_ref_share_leave(&g->share, b);
    b->group = NULL;
    vmaf_cuda_ref_group_unref(g);
}

static int group_reference_locked(VmafCudaBackend *b, Slot *sl, unsigned si,
                                  const VmafPicture *ref, unsigned index,
                                  enum VmafPictureMemory mem)
{
    VmafCudaRefGroup *g = b->group;
    const VmafCudaDriver *d = &b->s->drv;
    const unsigned long long mine = b->seq + 1;
    bool uploaded = false;
    int err = vmaf_gpu_ref_share_check_locked(&g->share, si, mine, index, ref->data[0], "cuda",
                                              b->g.log_level, &uploaded);
    if (err) return err;
    if (uploaded) { /* by another member */
        VMAF_CUDA_TRY(d, d->cuStreamWaitEvent(sl->stream, g->uploaded[si], 0));
        return 0;
    }
    /* the members' frames that still read this buffer */
    for (unsigned m = 0; m < g->share.n_members; m++) {
        const VmafCudaBackend *o = g->share.member[m];
        if (o == b) continue;
        for (unsigned k = 0; k <= 2; k++) {
            const Slot *r = &o->slot[(si + k) % N_SLOTS];
            if (r->busy) VMAF_CUDA_TRY(d, d->cuStreamWaitEvent(sl->stream, r->done, 0));
        }
    }
    const size_t bytes = g->share.chroma ? g->share.pic_bytes : b->luma_bytes;
    const void *src = ref->data[0];
    if (mem == VMAF_PICTURE_MEMORY_HOST_PINNED) {
        err = vmaf_picture_prepare_planes(ref, !g->share.chroma);
        if (err) return err;
    } else if (mem == VMAF_PICTURE_MEMORY_HOST) { /* pageable: through this slot's staging */
        if (!sl->staging[0]) {
            err = vmaf_cuda_host_alloc(b->s, b->pic_bytes, &sl->staging[0]);
            if (err) return err;
        }
        memcpy(sl->staging[0], ref->data[0], bytes);
        src = sl->staging[0];
    }
    if (mem == VMAF_PICTURE_MEMORY_DEVICE)
        VMAF_CUDA_TRY(d, d->cuMemcpyDtoDAsync(g->buf[si], (CUdeviceptr)(uintptr_t)src, bytes,
                                              sl->stream));
    else
        VMAF_CUDA_TRY(d, d->cuMemcpyHtoDAsync(g->buf[si], src, bytes, sl->stream));
    VMAF_CUDA_TRY(d, d->cuEventRecord(g->uploaded[si], sl->stream));
    vmaf_gpu_ref_share_uploaded_locked(&g->share, si, mine, index, ref->data[0]);
    return 0;
}

/* The frame's reference in the group's buffer for slot si: uploaded here (the first member
 * to submit the frame) or waited for on the slot's stream. */
static int group_reference(VmafCudaBackend *b, Slot *sl, unsigned si, const VmafPicture *ref,
                           unsigned index, enum VmafPictureMemory mem)
{
    pthread_mutex_lock(&b->group->share.lock);
    const int err = group_reference_locked(b, sl, si, ref, index, mem);
    pthread_mutex_unlock(&b->group->share.lock);
    return err;
}

static int submit_locked(VmafCudaBackend *b, const VmafPicture *ref, const VmafPicture *dist,
                         unsigned index)
{
    const VmafCudaDriver *d = &b->s->drv;
    const bool every_twin = runs_every_twin(b, index);
    if (!every_twin && !b->n_every_frame) return 0;

    const enum VmafPictureMemory mem = vmaf_picture_memory(ref);
    if (vmaf_picture_memory(dist) != mem || (b->memory_set && mem != b->memory)) {
        vmaf_log(b->g.log_level, VMAF_LOG_LEVEL_ERROR,
                 "cuda: pictures of one context must all live in the same kind of memory\n");
        return -EINVAL;
    }
    b->memory = mem;
    b->memory_set = true;

    release_uploaded(b);
    const unsigned si = (unsigned)(b->seq % N_SLOTS);
    Slot *sl = &b->slot[si];
    int err = collect_slot(b, sl);
    if (err) return err;
    const double t0 = now_ms();

    /* the frames that still read this slot's previous contents (as their prev/prev-prev) */
    for (unsigned k = 1; k <= 2; k++) {
        const Slot *reader = &b->slot[(si + k) % N_SLOTS];
        if (reader->busy) VMAF_CUDA_TRY(d, d->cuStreamWaitEvent(sl->stream, reader->done, 0));
    }
    /* the frames this one reads */
    for (unsigned k = 1; k <= 2; k++) {
        const Slot *earlier = &b->slot[(si + N_SLOTS - k) % N_SLOTS];
        if (earlier->busy) VMAF_CUDA_TRY(d, d->cuStreamWaitEvent(sl->stream, earlier->uploaded, 0));
    }

    vmaf_picture_ref(&sl->held[0], ref);
    vmaf_picture_ref(&sl->held[1], dist);
    sl->busy = true;
    sl->index = index;

    const VmafPicture *pics[2] = { ref, dist };
    const void *staging[2] = { NULL, NULL };
    for (int p = b->group ? 1 : 0; p < 2; p++) {
        if (mem == VMAF_PICTURE_MEMORY_HOST_PINNED) {
            /* a pinned pool's buffer is registered once, after it was first filled: the
             * CLI's reader has done it; other clients' pictures get it here. Twins that read
             * no chroma need the luma plane only (less to pin, and to unpin) */
            err = vmaf_picture_prepare_planes(pics[p], !b->chroma);
            if (err) return err;
        }
        if (mem != VMAF_PICTURE_MEMORY_HOST) continue;
        /* pageable memory: one host copy into this slot's pinned staging buffer */
        if (!sl->staging[p]) {
            err = vmaf_cuda_host_alloc(b->s, b->pic_bytes, &sl->staging[p]);
            if (err) return err;
        }
        memcpy(sl->staging[p], pics[p]->data[0], b->pic_bytes);
        staging[p] = sl->staging[p];
    }
    const void *src[N_UPLOADS];
    upload_source(b, UP_REF_LUMA, ref, staging[0], &src[UP_REF_LUMA]);
    upload_source(b, UP_REF_CHROMA, ref, staging[0], &src[UP_REF_CHROMA]);
    upload_source(b, UP_DIST_LUMA, dist, staging[1], &src[UP_DIST_LUMA]);
    upload_source(b, UP_DIST_CHROMA, dist, staging[1], &src[UP_DIST_CHROMA]);

    if (b->group) {
        err = group_reference(b, sl, si, ref, index, mem);
        if (err) return err;
    }

    unsigned vi = sl->var[0].every_twin == every_twin || !sl->var[0].rec.cnt ? 0 : 1;
    Variant *v = &sl->var[vi];
    if (!v->rec.cnt) {
        err = record_variant(b, sl, si, v, every_twin);
        if (err) return err;
    } else if (v->every_twin != every_twin) {
        return -EINVAL;
    }
    sl->variant = vi;
    err = (b->use_graph && !b->profile_ops) ? launch_graph(b, sl, v, src)
                                            : launch_direct(b, sl, v, src);
    if (err) return err;
    VMAF_CUDA_TRY(d, d->cuEventRecord(sl->done, sl->stream));
    sl->submit_ms = now_ms() - t0;
    if (!b->seq) b->first_submit_ms = now_ms() - b->created_at_ms;
    b->seq++;
    return 0;
}

int vmaf_cuda_backend_submit(VmafCudaBackend *b, const VmafPicture *ref, const VmafPicture *dist,
                             unsigned index)
{
    int err = vmaf_cuda_push(b->s);
    if (err) return err;
    err = submit_locked(b, ref, dist, index);
    vmaf_cuda_pop(b->s);
    return err;
}

/* ---- lifetime -------------------------------------------------------------------------------- */

static int create_locked(VmafCudaBackend *b, VmafFeatureInstance **inst, unsigned inst_cnt,
                         VmafCudaRefGroup *group)
{
    const VmafCudaDriver *d = &b->s->drv;
    /* sized by the instances: every one that has a twin runs on the device */
    unsigned with_twin = 0;
    for (unsigned i = 0; i < inst_cnt; i++) with_twin += !!vmaf_gpu_twin_for(inst[i]->fex->name);
    if (with_twin) {
        b->twin = calloc(with_twin, sizeof(*b->twin));
        b->branch_tail = calloc(with_twin, sizeof(*b->branch_tail));
        if (!b->twin || !b->branch_tail) return -ENOMEM;
    }
    for (unsigned i = 0; i < inst_cnt; i++) {
        const VmafGpuTwin *twin = vmaf_gpu_twin_for(inst[i]->fex->name);
        if (!twin) continue;
        Twin *t = &b->twin[b->n_twins++];
        t->twin = twin;
        t->inst = inst[i];
        t->ext = i;
        t->subsampled = vmaf_gpu_twin_subsampled(inst[i]);
        b->n_every_frame += !t->subsampled;
        t->priv = calloc(1, twin->priv_size ? twin->priv_size : 1);
        if (!t->priv) return -ENOMEM;
        VmafGpuTwinSetup setup = { .dev = &b->dev, .geometry = b->g, .n_slots = N_SLOTS };
        const double t0 = now_ms();
        int err = twin->init(t->priv, inst[i]->priv, &setup);
        t->init_ms = now_ms() - t0;
        if (err) return err;
        b->chroma |= setup.needs_chroma;
    }
    /* the twins' set-up writes and clears (and the zeroing of their buffers) were issued on
     * the null stream, which the slots' non-blocking streams do not wait for: complete them
     * before the first frame */
    if (b->n_twins) VMAF_CUDA_TRY(d, d->cuCtxSynchronize());
    b->twins_ready = true;
    if (!b->n_twins) return 0;

    VmafPictureLayout l;
    int err = vmaf_picture_layout(&l, b->g.pix_fmt, b->g.bpc, b->g.w, b->g.h);
    if (err) return err;
    b->pic_bytes = l.size;
    b->luma_bytes = (size_t)l.stride[0] * l.h[0];
    b->chroma_offset = l.offset[1];
    b->chroma_bytes = l.h[1] ? l.size - l.offset[1] : 0;
    if (!b->chroma_bytes) b->chroma = false;

    const double t0 = now_ms();
    if (group) (void)group_join(b, group); /* or not: its own reference buffers then */
    for (unsigned s = 0; s < N_SLOTS; s++) {
        Slot *sl = &b->slot[s];
        for (int p = 0; p < 2; p++) {
            if (!p && b->group) {
                vmaf_gpu_set_picture(&sl->pic[p], b->group->buf[s], &l, b->g.bpc);
                continue;
            }
            VMAF_CUDA_TRY(d, d->cuMemAlloc(&sl->buf[p], l.size));
            vmaf_gpu_set_picture(&sl->pic[p], sl->buf[p], &l, b->g.bpc);
        }
        VMAF_CUDA_TRY(d, d->cuStreamCreate(&sl->stream, CU_STREAM_NON_BLOCKING));
        VMAF_CUDA_TRY(d, d->cuEventCreate(&sl->uploaded, CU_EVENT_DISABLE_TIMING));
        VMAF_CUDA_TRY(d, d->cuEventCreate(&sl->done, CU_EVENT_DISABLE_TIMING));
        /* Zeroed once: the first frames' temporal twins read slots no frame has filled yet
         * (motion's previous reference at frame 0), results they discard, but never
         * uninitialised memory (compute-sanitizer initcheck). */
        for (int p = 0; p < 2; p++)
            if (sl->buf[p]) VMAF_CUDA_TRY(d, d->cuMemsetD8Async(sl->buf[p], 0, l.size, sl->stream));
    }
    for (unsigned s = 0; s < N_SLOTS; s++) VMAF_CUDA_TRY(d, d->cuStreamSynchronize(b->slot[s].stream));
    b->slots_ms = now_ms() - t0;
    return 0;
}

int vmaf_cuda_backend_create(VmafCudaBackend **out, VmafCudaState *state,
                             const VmafFeatureGeometry *geometry, VmafFeatureInstance **inst,
                             unsigned inst_cnt, unsigned n_subsample,
                             VmafFeatureCollector *fc, VmafCudaRefGroup *group)
{
    *out = NULL;
    VmafCudaBackend *b = calloc(1, sizeof(*b));
    if (!b) return -ENOMEM;
    b->dev.ops = &device_ops;
    b->s = state;
    b->g = *geometry;
    b->fc = fc;
    b->n_subsample = n_subsample;
    const char *no_graph = getenv("VMAF_CUDA_NO_GRAPH");
    const char *profile = getenv("VMAF_CUDA_PROFILE");
    b->use_graph = !(no_graph && *no_graph && strcmp(no_graph, "0"));
    b->profile = profile && *profile && strcmp(profile, "0");
    b->profile_ops = b->profile && !strcmp(profile, "ops");

    const double t0 = vmaf_cuda_now_ms();
    vmaf_cuda_state_warm(state); /* its one-time costs are paid (or being paid) there */
    b->warm_wait_ms = vmaf_cuda_now_ms() - t0;
    int err = vmaf_cuda_push(state);
    if (err) {
        free(b);
        return err;
    }
    err = create_locked(b, inst, inst_cnt, group);
    vmaf_cuda_pop(state);
    b->created_at_ms = vmaf_cuda_now_ms();
    b->create_ms = b->created_at_ms - t0;
    if (err || !b->n_twins) {
        vmaf_cuda_backend_destroy(b);
        return err;
    }
    for (unsigned t = 0; t < b->n_twins; t++) b->twin[t].inst->on_gpu = true;
    *out = b;
    return 0;
}

void vmaf_cuda_backend_print_profile(const VmafCudaBackend *b)
{
    if (!b || !b->profile || !b->frames) return;
    const VmafCudaState *s = b->s;
    char opened[96] = "";
    if (s->opened_async)
        snprintf(opened, sizeof(opened), " (both on the state's thread; callers waited %.1f ms "
                 "for them, summed)", atomic_load(&s->open_wait_us) / 1e3);
    fprintf(stderr, "cuda start-up: driver load %.1f ms, context %.1f ms, modules %.1f ms (%u)%s, "
            "backend (slots, twin buffers) %.1f ms; first frame submitted %.1f ms and collected "
            "%.1f ms after that; %u picture buffers pinned so far in %.1f ms\n",
            s->init_driver_ms, s->init_context_ms, s->init_modules_ms, s->module_cnt, opened,
            b->create_ms, b->first_submit_ms, b->first_done_ms, atomic_load(&s->pinned_allocs),
            atomic_load(&s->pinned_alloc_us) / 1e3);
    flockfile(stderr); /* one line, however many twins */
    fprintf(stderr, "cuda backend: warm-up %.1f ms (waited %.1f ms for it), twins' buffers (ms) ",
            s->warm_ms, b->warm_wait_ms);
    for (unsigned t = 0; t < b->n_twins; t++)
        fprintf(stderr, "%s%s %.1f", t ? ", " : "", b->twin[t].twin->name, b->twin[t].init_ms);
    fprintf(stderr, "; slots %.1f ms\n", b->slots_ms);
    funlockfile(stderr);
    if (b->group)
        fprintf(stderr, "cuda shared reference: %llu frames uploaded for the group so far\n",
                vmaf_cuda_ref_group_uploads(b->group));
    fprintf(stderr, "cuda profile: %llu frames, %s; average per frame:\n", b->frames,
            b->profile_ops ? "direct launches (VMAF_CUDA_PROFILE=ops times each operation)"
            : b->use_graph ? "graphs" : "direct launches");
    for (unsigned i = 0; i < b->prof_n; i++)
        fprintf(stderr, "  device %-24s %8.4f ms\n", b->prof[i].label,
                b->prof[i].total_ms / b->prof[i].n);
    static const char *const phase[3] = { "submit", "wait", "collect" };
    for (int i = 0; i < 3; i++)
        fprintf(stderr, "  host   %-24s %8.4f ms\n", phase[i], b->host_ms[i] / b->frames);
}

void vmaf_cuda_backend_destroy(VmafCudaBackend *b)
{
    if (!b) return;
    const double t0 = now_ms();
    VmafCudaState *state = b->s;
    const VmafCudaDriver *d = &b->s->drv;
    if (vmaf_cuda_push(b->s)) {
        group_leave(b);
        free(b->twin);
        free(b->branch_tail);
        free(b->prof);
        free(b);
        return;
    }
    for (unsigned s = 0; s < N_SLOTS; s++) {
        Slot *sl = &b->slot[s];
        if (sl->stream) d->cuStreamSynchronize(sl->stream);
        if (sl->busy) {
            vmaf_picture_unref(&sl->held[0]);
            vmaf_picture_unref(&sl->held[1]);
        }
    }
    vmaf_cuda_backend_print_profile(b);
    group_leave(b); /* its streams are idle: no wait of another member's on them pends */
    for (unsigned t = 0; t < b->n_twins; t++) {
        if (b->twin[t].priv) b->twin[t].twin->close(b->twin[t].priv, &b->dev);
        free(b->twin[t].priv);
    }
    for (unsigned s = 0; s < N_SLOTS; s++) {
        Slot *sl = &b->slot[s];
        for (int v = 0; v < 2; v++) {
            if (sl->var[v].exec) d->cuGraphExecDestroy(sl->var[v].exec);
            if (sl->var[v].graph) d->cuGraphDestroy(sl->var[v].graph);
            free(sl->var[v].rec.op);
        }
        for (unsigned i = 0; i < sl->prof_cnt; i++) d->cuEventDestroy(sl->prof[i]);
        free(sl->prof);
        for (int p = 0; p < 2; p++) {
            if (sl->buf[p]) d->cuMemFree(sl->buf[p]);
            vmaf_cuda_host_free(b->s, sl->staging[p]);
        }
        if (sl->uploaded) d->cuEventDestroy(sl->uploaded);
        if (sl->done) d->cuEventDestroy(sl->done);
        if (sl->stream) d->cuStreamDestroy(sl->stream);
    }
    vmaf_cuda_pop(b->s);
    free(b->twin);
    free(b->branch_tail);
    free(b->prof);
    free(b);
    atomic_fetch_add(&state->backend_close_us, (unsigned long long)((now_ms() - t0) * 1e3));
}

/* ---- picture pools ---------------------------------------------------------------------------- */

/* Pinned pools: the mapping at allocation (no driver call), the registration once the buffer
 * was first filled (vmaf_picture_prepare: by the CLI's reader, or at the latest by submit). */
static int pinned_alloc(void *cookie, size_t size, void **buf)
{
    (void)cookie;
    return vmaf_picture_map(size, buf);
}

static int pinned_prepare(void *cookie, void *buf, size_t len)
{
    VmafCudaState *s = cookie;
    const double t0 = now_ms();
    int err = vmaf_cuda_push(s);
    if (err) return err;
    err = vmaf_cuda_host_register(s, buf, len);
    vmaf_cuda_pop(s);
    atomic_fetch_add(&s->pinned_allocs, 1);
    atomic_fetch_add(&s->pinned_alloc_us, (unsigned long long)((now_ms() - t0) * 1e3));
    return err;
}

static void pinned_unprepare(void *cookie, void *buf, size_t size)
{
    (void)size;
    VmafCudaState *s = cookie;
    const double t0 = now_ms();
    if (vmaf_cuda_push(s)) return;
    vmaf_cuda_host_unregister(s, buf);
    vmaf_cuda_pop(s);
    atomic_fetch_add(&s->unpinned, 1);
    atomic_fetch_add(&s->unpinned_us, (unsigned long long)((now_ms() - t0) * 1e3));
}

static void pinned_free(void *cookie, void *buf, size_t size)
{
    (void)cookie;
    vmaf_picture_unmap(buf, size);
}

static int device_alloc(void *cookie, size_t size, void **buf)
{
    VmafCudaState *s = cookie;
    int err = vmaf_cuda_push(s);
    if (err) return err;
    CUdeviceptr p = 0;
    err = vmaf_cuda_result(&s->drv, s->drv.cuMemAlloc(&p, size), "cuMemAlloc");
    if (!err) err = vmaf_cuda_result(&s->drv, s->drv.cuMemsetD8Async(p, 0, size, NULL), "cuMemsetD8");
    vmaf_cuda_pop(s);
    *buf = (void *)(uintptr_t)p;
    return err;
}

static void device_free(void *cookie, void *buf, size_t size)
{
    (void)size;
    VmafCudaState *s = cookie;
    if (vmaf_cuda_push(s)) return;
    s->drv.cuMemFree((CUdeviceptr)(uintptr_t)buf);
    vmaf_cuda_pop(s);
}

int vmaf_cuda_pool_config(VmafCudaState *s, int device_memory, VmafPicturePoolConfig *pc)
{
    (void)s;
    pc->alloc = device_memory ? device_alloc : pinned_alloc;
    pc->free = device_memory ? device_free : pinned_free;
    pc->prepare = device_memory ? NULL : pinned_prepare;
    pc->unprepare = device_memory ? NULL : pinned_unprepare;
    pc->alloc_zeroes = !device_memory; /* fresh anonymous mappings (device memory: not zeroed here) */
    return 0;
}

/* ---- the twins' device (VmafGpuDeviceOps) ------------------------------------------------------ */

/* Every operation runs with the state's context current: twins call them from init (create),
 * collect (submit, flush) and close (destroy), each of which holds the context. */
static VmafCudaState *state_of(VmafGpuDevice *dev)
{
    return ((VmafCudaBackend *)dev)->s;
}

static int dev_kernel(VmafGpuDevice *dev, const char *name, VmafGpuKernel *k)
{
    CUfunction fn = NULL;
    const int err = vmaf_cuda_kernel(state_of(dev), name, &fn);
    *k = (VmafGpuKernel)fn;
    return err;
}

static int dev_alloc(VmafGpuDevice *dev, size_t bytes, VmafGpuPtr *p)
{
    VmafCudaState *s = state_of(dev);
    CUdeviceptr ptr = 0;
    if (!bytes) bytes = 1;
    int err = vmaf_cuda_result(&s->drv, s->drv.cuMemAlloc(&ptr, bytes), "cuMemAlloc");
    /* zeroed, so that no kernel ever reads uninitialised memory (initcheck); complete before
     * the first frame, like the set-up writes (create_locked) */
    if (!err)
        err = vmaf_cuda_result(&s->drv, s->drv.cuMemsetD8Async(ptr, 0, bytes, NULL), "cuMemsetD8");
    if (err && ptr) s->drv.cuMemFree(ptr);
    *p = err ? 0 : ptr;
    return err;
}

static void dev_free(VmafGpuDevice *dev, VmafGpuPtr p)
{
    state_of(dev)->drv.cuMemFree(p);
}

static int dev_host_alloc(VmafGpuDevice *dev, size_t bytes, void **p)
{
    return vmaf_cuda_host_alloc(state_of(dev), bytes, p);
}

static void dev_host_free(VmafGpuDevice *dev, void *p)
{
    vmaf_cuda_host_free(state_of(dev), p);
}

/* An asynchronous copy on the null stream: from pageable memory (the twins' tables) the driver
 * has staged the source when it returns, so the caller may free it; create_locked's
 * synchronisation completes it before the first frame. */
static int dev_write(VmafGpuDevice *dev, VmafGpuPtr dst, const void *src, size_t bytes)
{
    VmafCudaState *s = state_of(dev);
    return vmaf_cuda_result(&s->drv, s->drv.cuMemcpyHtoDAsync(dst, src, bytes, NULL),
                            "cuMemcpyHtoD");
}

static int dev_clear(VmafGpuDevice *dev, VmafGpuPtr dst, size_t bytes)
{
    VmafCudaState *s = state_of(dev);
    return vmaf_cuda_result(&s->drv, s->drv.cuMemsetD8Async(dst, 0, bytes, NULL), "cuMemsetD8");
}

/* From collect(): the slot's frame has completed (collect_slot waited for its `done` event),
 * so a copy on the null stream, waited for, reads that frame's results. */
static int dev_read(VmafGpuDevice *dev, void *dst, VmafGpuPtr src, size_t bytes)
{
    VmafCudaState *s = state_of(dev);
    int err = vmaf_cuda_result(&s->drv, s->drv.cuMemcpyDtoHAsync(dst, src, bytes, NULL),
                               "cuMemcpyDtoH");
    const int sync = vmaf_cuda_result(&s->drv, s->drv.cuStreamSynchronize(NULL),
                                      "cuStreamSynchronize");
    return err ? err : sync;
}

static const VmafGpuDeviceOps device_ops = {
    .name = "cuda",
    .kernel = dev_kernel,
    .alloc = dev_alloc,
    .free = dev_free,
    .host_alloc = dev_host_alloc,
    .host_free = dev_host_free,
    .write = dev_write,
    .clear = dev_clear,
    .read = dev_read,
};
