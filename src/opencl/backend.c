/*
 * The OpenCL side of a VmafContext: the twins (src/feature/twins/, the same host glue as
 * CUDA's) on an OpenCL device, with the kernels of src/feature/opencl/.
 *
 * Memory: one device buffer, the arena, holds every twin buffer and the device frame ring;
 * a device address (VmafGpuPtr) is a byte offset into it (never 0), and every kernel takes the
 * arena first. Twins allocate while they initialise (offsets handed out at once), their
 * set-up writes are kept until the arena exists, then written before the first frame.
 *
 * Frames: a ring of N_SLOTS slots, each a reference and a distorted picture in the host
 * picture layout. A frame's planes are written into its slot on the upload queue (luma, and
 * chroma when a twin reads it: each plane crosses the bus once), after the frames that still
 * read that slot's previous contents (the two after it, motion's previous slots) are done; its
 * `uploaded` event gates the slot's own compute queue, where every twin's recorded operations
 * follow, then a marker event `done`. Every queue is in order: the next frame's planes cross
 * the bus while this one computes, frames in different slots compute at once where the device
 * allows (twins keep their buffers per slot), and a frame's work follows the uploads of the
 * frames it reads. The host waits once per frame, on the marker of the frame whose slot it reuses, then collects that
 * frame through the CPU extractors' own store functions. Operations are recorded once per slot
 * (one kernel object per launch, its arguments set once) and enqueued per frame; where the
 * device offers cl_khr_command_buffer in a version whose signatures command_buffer.c calls, a
 * slot's operations are recorded once more into a command buffer, replayed per frame with
 * one enqueue (its downloads as device copies into a staging buffer, read back with one
 * read). VMAF_OPENCL_COMMAND_BUFFER=0 keeps the direct enqueues; VMAF_OPENCL_PROFILE=1 times
 * each operation with its event (profile.h), on direct enqueues.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device.h"
#include "gpu/backend_util.h"
#include "gpu/ref_group.h"
#include "gpu/twin.h"
#include "log.h"
#include "opencl/describe.h"
#include "opencl/profile.h"
#include "opencl/state.h"
#include "picture.h"

#define N_SLOTS 4
_Static_assert(N_SLOTS <= VMAF_GPU_REF_SHARE_MAX_SLOTS, "a ladder group's ring is too short");
#define ARENA_ALIGN 256
#define MAX_ARGS 1024 /* bytes of one argument struct a recorder keeps */

extern const VmafOpenCLSource vmaf_opencl_twin_programs[]; /* generated: feature/opencl/ */

/* a kernel: its program and name; kernel objects are made per recorded launch */
struct VmafGpuKernelHandle {
    cl_program program;
    char name[64];
    struct VmafGpuKernelHandle *next;
};

enum OpKind { OP_KERNEL, OP_MEMSET, OP_DOWNLOAD };

typedef struct Op {
    enum OpKind kind;
    const char *label;
    cl_kernel kernel;
    size_t global[3], local[3];
    VmafGpuPtr dptr;
    void *host;
    size_t bytes;
    size_t staged_at; /* a download replayed from a command buffer: where in the staging */
} Op;

typedef struct VmafOpenCLBackend VmafOpenCLBackend;

typedef struct Recorder {
    VmafGpuRecorder base;
    VmafOpenCLBackend *b;
    bool trial; /* only check that every launch fits the device; record nothing */
    Op *op;
    unsigned cnt, cap;
} Recorder;

typedef struct Slot {
    VmafGpuPtr buf[2];
    VmafGpuPicture pic[2];
    Recorder var[2];    /* [0]: every twin; [1]: only those that see every frame */
    bool recorded[2];
    bool busy;
    unsigned index, variant;
    VmafPicture held[2];
    cl_event uploaded, done;
    cl_command_queue queue; /* this slot's frames' operations */
    /* cl_khr_command_buffer: var[v] recorded once more, for replay (NULL: enqueued op by op);
     * its downloads copied on the device into staging[v], read back with one read into
     * staging_host[v] and handed to the twins' host buffers when the frame is collected */
    VmafClCommandBuffer command_buffer[2];
    cl_mem staging[2];
    void *staging_host[2];
    size_t staging_bytes[2];
    bool replayed; /* the frame in the slot replayed its command buffer */
    /* VMAF_OPENCL_PROFILE: the frame's events, one per operation (op_events of them), and
     * its first picture's write (the second's is `uploaded`) */
    cl_event *op_event, upload_event;
    unsigned op_events, op_event_cap;
    double submit_ms;
} Slot;

typedef struct Twin {
    const VmafGpuTwin *twin;
    void *priv;
    VmafFeatureInstance *inst;
    unsigned ext;
    bool subsampled;
} Twin;

typedef struct PendingWrite {
    VmafGpuPtr dst;
    size_t bytes;
    void *data; /* NULL: zeros */
} PendingWrite;

struct VmafOpenCLBackend {
    VmafGpuDevice dev; /* first: the twins' device */
    VmafOpenCLState *s;
    const VmafOpenCLApi *api;
    cl_command_queue queue, upload; /* set-up writes and reads; picture uploads */
    cl_mem arena;
    size_t arena_size;
    PendingWrite *pending;
    unsigned pending_cnt, pending_cap;
    struct VmafGpuKernelHandle *kernels;
    VmafFeatureGeometry g;
    VmafFeatureCollector *fc;
    Twin *twin;
    unsigned n_twins, n_every_frame, n_subsample;
    Slot slot[N_SLOTS];
    unsigned long long seq;
    bool chroma;
    bool sync_each; /* VMAF_OPENCL_SYNC=1: wait after every operation, naming one that fails */
    size_t max_group; /* VMAF_OPENCL_MAX_WORK_GROUP, 0: none (opencl_create) */
    bool needs_fp64; /* a twin's own program was passed over for want of fp64 (find_kernel) */
    size_t pic_bytes, luma_bytes;
    bool use_command_buffer; /* a slot's work replays a command buffer (command_buffer.h) */
    bool profile;            /* VMAF_OPENCL_PROFILE=1 (profile.h) */
    VmafOpenCLProfile prof;
    struct RefGroup *group;  /* a ladder's shared reference uploads; NULL: its own */
};

/*
 * A ladder's rungs on one state read the same reference picture every frame: it crosses the
 * bus once, written by the first member to submit the frame into the group's buffer for the
 * slot (its `uploaded` event), and every member copies it on the device into its own slot
 * (each member's kernels read its own arena). The write waits for the members' copies of the
 * slot's previous frame (their `uploaded` events, which follow the copies on their in-order
 * upload queues). Members advance in step, fed from one thread (the ladder's): a slot number
 * means the same frame in every member; a member out of step is an error.
 */
typedef struct RefGroup {
    VmafGpuRefShare share; /* references, lock, members (VmafOpenCLBackend), slots' frames;
                            * its pic_bytes: a slot's stride in mem */
    VmafOpenCLState *s;
    size_t bytes; /* the bytes written */
    cl_mem mem;
    cl_event uploaded[N_SLOTS];
} RefGroup;

static VmafOpenCLBackend *backend_of(VmafGpuDevice *d)
{
    return (VmafOpenCLBackend *)d;
}

static enum VmafLogLevel log_level(const VmafOpenCLBackend *b)
{
    return b->g.log_level;
}

/* ---- the twins' device ---------------------------------------------------------------------- */

/* The programs most likely to hold a kernel first: those whose name follows "vmaf_" in it,
 * longest first (psnr_hvs before psnr); then the rest. Each is built (or loaded from the
 * binary cache) the first time it is searched. */
static int program_rank(const char *program, const char *kernel)
{
    const size_t n = strlen(program);
    if (!strncmp(kernel, "vmaf_", 5) && !strncmp(kernel + 5, program, n)) return (int)n;
    return -1;
}

static int find_kernel(VmafOpenCLBackend *b, const char *name, cl_program *out)
{
    unsigned n = 0;
    while (vmaf_opencl_twin_programs[n].name) n++;
    bool tried[64] = { false };
    if (n > 64) n = 64;
    for (unsigned round = 0; round < n; round++) {
        int best = -1, best_rank = -2;
        for (unsigned i = 0; i < n; i++) {
            if (tried[i]) continue;
            const int r = program_rank(vmaf_opencl_twin_programs[i].name, name);
            if (r > best_rank) best = i, best_rank = r;
        }
        tried[best] = true;
        /* where the device's double is not used, only the programs with an fp64-free form
         * (feature/f64.h) are built; the others' twins stay on the CPU (never scored
         * inexactly), and a twin whose own program that is says why (add_twin) */
        if (!b->s->fp64 && !vmaf_opencl_twin_programs[best].fp64_free) {
            b->needs_fp64 |= best_rank >= 0;
            continue;
        }
        cl_program p;
        int err = vmaf_opencl_program(b->s, &vmaf_opencl_twin_programs[best], &p);
        if (err) return err;
        cl_int res;
        cl_kernel k = b->api->clCreateKernel(p, name, &res);
        if (res == CL_SUCCESS) {
            b->api->clReleaseKernel(k);
            *out = p;
            return 0;
        }
        if (res != CL_INVALID_KERNEL_NAME) return vmaf_opencl_result(res, name);
    }
    return -ENOENT;
}

/* The most work-items a group of kernel k may have: the device's word, capped by
 * VMAF_OPENCL_MAX_WORK_GROUP. */
static int kernel_max_group(const VmafOpenCLBackend *b, cl_kernel k, size_t *most)
{
    *most = 0;
    int err = vmaf_opencl_result(b->api->clGetKernelWorkGroupInfo(k, b->s->device,
                                                                  CL_KERNEL_WORK_GROUP_SIZE,
                                                                  sizeof(*most), most, NULL),
                                 "clGetKernelWorkGroupInfo");
    if (!err && b->max_group && b->max_group < *most) *most = b->max_group;
    return err;
}

static int dev_kernel(VmafGpuDevice *d, const char *name, VmafGpuKernel *k)
{
    VmafOpenCLBackend *b = backend_of(d);
    for (struct VmafGpuKernelHandle *h = b->kernels; h; h = h->next) {
        if (!strcmp(h->name, name)) {
            *k = h;
            return 0;
        }
    }
    if (strlen(name) >= sizeof(b->kernels->name)) return -EINVAL;
    cl_program p = NULL;
    int err = find_kernel(b, name, &p);
    if (err) return err;
    struct VmafGpuKernelHandle *h = calloc(1, sizeof(*h));
    if (!h) return -ENOMEM;
    h->program = p;
    snprintf(h->name, sizeof(h->name), "%s", name);
    h->next = b->kernels;
    b->kernels = h;
    *k = h;
    return 0;
}

static int dev_max_block(VmafGpuDevice *d, VmafGpuKernel k, unsigned *threads)
{
    VmafOpenCLBackend *b = backend_of(d);
    *threads = 0;
    cl_int res;
    cl_kernel kernel = b->api->clCreateKernel(k->program, k->name, &res);
    int err = vmaf_opencl_result(res, k->name);
    if (err) return err;
    size_t most = 0;
    err = kernel_max_group(b, kernel, &most);
    b->api->clReleaseKernel(kernel);
    if (!err) *threads = most < UINT_MAX ? (unsigned)most : UINT_MAX;
    return err;
}

static int dev_alloc(VmafGpuDevice *d, size_t bytes, VmafGpuPtr *p)
{
    VmafOpenCLBackend *b = backend_of(d);
    if (b->arena) return -EINVAL; /* only while the twins initialise */
    const size_t at = (b->arena_size + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    if (bytes > SIZE_MAX - at - ARENA_ALIGN) return -ENOMEM;
    *p = at;
    b->arena_size = at + (bytes ? bytes : 1);
    return 0;
}

static void dev_free(VmafGpuDevice *d, VmafGpuPtr p)
{
    (void)d; /* the arena goes as a whole */
    (void)p;
}

static int dev_host_alloc(VmafGpuDevice *d, size_t bytes, void **p)
{
    (void)d;
    *p = NULL;
    void *m = NULL;
    if (posix_memalign(&m, 64, bytes ? bytes : 1)) return -ENOMEM;
    memset(m, 0, bytes);
    *p = m;
    return 0;
}

static void dev_host_free(VmafGpuDevice *d, void *p)
{
    (void)d;
    free(p);
}

static int pend(VmafOpenCLBackend *b, VmafGpuPtr dst, const void *src, size_t bytes)
{
    if (!dst || dst + bytes > b->arena_size) return -EINVAL;
    if (b->pending_cnt == b->pending_cap) {
        const unsigned cap = b->pending_cap ? 2 * b->pending_cap : 16;
        PendingWrite *w = realloc(b->pending, cap * sizeof(*w));
        if (!w) return -ENOMEM;
        b->pending = w;
        b->pending_cap = cap;
    }
    PendingWrite *w = &b->pending[b->pending_cnt];
    w->dst = dst;
    w->bytes = bytes;
    w->data = NULL;
    if (src) {
        w->data = malloc(bytes ? bytes : 1);
        if (!w->data) return -ENOMEM;
        memcpy(w->data, src, bytes);
    }
    b->pending_cnt++;
    return 0;
}

static int dev_write(VmafGpuDevice *d, VmafGpuPtr dst, const void *src, size_t bytes)
{
    VmafOpenCLBackend *b = backend_of(d);
    if (!b->arena) return pend(b, dst, src, bytes);
    return vmaf_opencl_result(b->api->clEnqueueWriteBuffer(b->queue, b->arena, CL_TRUE, dst,
                                                           bytes, src, 0, NULL, NULL),
                              "clEnqueueWriteBuffer");
}

static int fill_zero_event(VmafOpenCLBackend *b, cl_command_queue q, VmafGpuPtr dst,
                           size_t bytes, cl_event *event)
{
    const cl_uchar zero = 0;
    return vmaf_opencl_result(b->api->clEnqueueFillBuffer(q, b->arena, &zero, 1, dst,
                                                          bytes, 0, NULL, event),
                              "clEnqueueFillBuffer");
}

static int fill_zero(VmafOpenCLBackend *b, cl_command_queue q, VmafGpuPtr dst, size_t bytes)
{
    return fill_zero_event(b, q, dst, bytes, NULL);
}

static int dev_clear(VmafGpuDevice *d, VmafGpuPtr dst, size_t bytes)
{
    VmafOpenCLBackend *b = backend_of(d);
    if (!b->arena) return pend(b, dst, NULL, bytes);
    int err = fill_zero(b, b->queue, dst, bytes);
    if (!err) err = vmaf_opencl_result(b->api->clFinish(b->queue), "clFinish");
    return err;
}

static int dev_read(VmafGpuDevice *d, void *dst, VmafGpuPtr src, size_t bytes)
{
    VmafOpenCLBackend *b = backend_of(d);
    if (!b->arena) return -EINVAL;
    return vmaf_opencl_result(b->api->clEnqueueReadBuffer(b->queue, b->arena, CL_TRUE, src,
                                                          bytes, dst, 0, NULL, NULL),
                              "clEnqueueReadBuffer");
}

static const VmafGpuDeviceOps device_ops = {
    .name = "opencl",
    .kernel = dev_kernel,
    .alloc = dev_alloc,
    .free = dev_free,
    .host_alloc = dev_host_alloc,
    .host_free = dev_host_free,
    .write = dev_write,
    .clear = dev_clear,
    .read = dev_read,
    .max_block = dev_max_block,
};

/* ---- recorder ------------------------------------------------------------------------------- */

static Op *rec_push(Recorder *r, enum OpKind kind, const char *label)
{
    if (r->cnt == r->cap) {
        const unsigned cap = r->cap ? 2 * r->cap : 16;
        Op *op = realloc(r->op, cap * sizeof(*op));
        if (!op) return NULL;
        r->op = op;
        r->cap = cap;
    }
    Op *op = &r->op[r->cnt++];
    memset(op, 0, sizeof(*op));
    op->kind = kind;
    op->label = label;
    return op;
}

static int rec_kernel(VmafGpuRecorder *rec, VmafGpuKernel k, VmafGpuLaunch launch,
                      const void *args, size_t args_size, const char *label)
{
    Recorder *r = (Recorder *)rec;
    VmafOpenCLBackend *b = r->b;
    const VmafOpenCLApi *api = b->api;
    if (args_size > MAX_ARGS || args_size + sizeof(cl_mem) + sizeof(cl_mem) >
                                    b->s->max_parameter_size) {
        vmaf_log(log_level(b), r->trial ? VMAF_LOG_LEVEL_WARNING : VMAF_LOG_LEVEL_ERROR,
                 "opencl: %s: kernel arguments of %zu bytes, more than the device takes (%zu)\n",
                 label, args_size, b->s->max_parameter_size);
        return -ENOTSUP;
    }
    Op *op = rec_push(r, OP_KERNEL, label);
    if (!op) return -ENOMEM;
    cl_int res;
    op->kernel = api->clCreateKernel(k->program, k->name, &res);
    int err = vmaf_opencl_result(res, k->name);
    if (err) {
        op->kernel = NULL;
        return err;
    }
    size_t threads = 1;
    for (int i = 0; i < 3; i++) {
        op->local[i] = launch.block[i] ? launch.block[i] : 1;
        op->global[i] = (size_t)(launch.grid[i] ? launch.grid[i] : 1) * op->local[i];
        threads *= op->local[i];
    }
    size_t max_wg = 0;
    err = kernel_max_group(b, op->kernel, &max_wg);
    if (!err && threads > max_wg) {
        vmaf_log(log_level(b), r->trial ? VMAF_LOG_LEVEL_WARNING : VMAF_LOG_LEVEL_ERROR,
                 "opencl: %s: %s needs work-groups of %zu, the device allows %zu\n", label,
                 k->name, threads, max_wg);
        return -ENOTSUP;
    }
    if (r->trial) return err; /* the kernel object goes with the recorder */
    if (!err)
        err = vmaf_opencl_result(api->clSetKernelArg(op->kernel, 0, sizeof(cl_mem), &b->arena),
                                 "clSetKernelArg(arena)");
    if (!err)
        err = vmaf_opencl_result(api->clSetKernelArg(op->kernel, 1, args_size, args),
                                 "clSetKernelArg(arguments)");
    if (!err && launch.shared_bytes)
        err = vmaf_opencl_result(api->clSetKernelArg(op->kernel, 2, launch.shared_bytes, NULL),
                                 "clSetKernelArg(__local)");
    return err;
}

static int rec_memset(VmafGpuRecorder *rec, VmafGpuPtr dst, size_t bytes, const char *label)
{
    Recorder *r = (Recorder *)rec;
    if (!dst || dst + bytes > r->b->arena_size) return -EINVAL;
    Op *op = rec_push(r, OP_MEMSET, label);
    if (!op) return -ENOMEM;
    op->dptr = dst;
    op->bytes = bytes;
    return 0;
}

static int rec_download(VmafGpuRecorder *rec, void *host, VmafGpuPtr src, size_t bytes,
                        const char *label)
{
    Recorder *r = (Recorder *)rec;
    if (!src || src + bytes > r->b->arena_size) return -EINVAL;
    Op *op = rec_push(r, OP_DOWNLOAD, label);
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

static void recorder_free(const VmafOpenCLApi *api, Recorder *r)
{
    for (unsigned i = 0; i < r->cnt; i++)
        if (r->op[i].kernel) api->clReleaseKernel(r->op[i].kernel);
    free(r->op);
    memset(r, 0, sizeof(*r));
}

/* ---- frames --------------------------------------------------------------------------------- */

static bool twin_runs(const VmafOpenCLBackend *b, unsigned t, bool every_twin)
{
    return every_twin || !b->twin[t].subsampled;
}

static bool runs_every_twin(const VmafOpenCLBackend *b, unsigned index)
{
    return vmaf_gpu_runs_every_twin(b->n_subsample, index, b->n_every_frame, b->n_twins);
}

static int record_variant(VmafOpenCLBackend *b, unsigned si, unsigned vi, bool every_twin)
{
    Slot *sl = &b->slot[si];
    Recorder *r = &sl->var[vi];
    r->base.ops = &recorder_ops;
    r->b = b;
    const Slot *prev = &b->slot[(si + N_SLOTS - 1) % N_SLOTS];
    const Slot *prev2 = &b->slot[(si + N_SLOTS - 2) % N_SLOTS];
    const VmafGpuSlotView view = {
        .slot = si,
        .ref = &sl->pic[0],
        .dist = &sl->pic[1],
        .prev_ref = &prev->pic[0],
        .prev_prev_ref = &prev2->pic[0],
        .prev_dist = &prev->pic[1],
    };
    for (unsigned t = 0; t < b->n_twins; t++) {
        if (!twin_runs(b, t, every_twin)) continue;
        const Twin *tw = &b->twin[t];
        const int err = tw->twin->record(tw->priv, tw->inst->priv, &r->base, &view);
        if (err) { /* recorded again from the start by the next frame that needs it */
            recorder_free(b->api, r);
            return err;
        }
    }
    sl->recorded[vi] = true;
    return 0;
}

/* event: NULL, or one per operation (VMAF_OPENCL_PROFILE) */
static int enqueue_ops(VmafOpenCLBackend *b, cl_command_queue q, const Recorder *r,
                       cl_event *event)
{
    const VmafOpenCLApi *api = b->api;
    for (unsigned i = 0; i < r->cnt; i++) {
        const Op *op = &r->op[i];
        cl_event *ev = event ? &event[i] : NULL;
        int err = 0;
        switch (op->kind) {
        case OP_KERNEL:
            err = vmaf_opencl_result(api->clEnqueueNDRangeKernel(q, op->kernel, 3, NULL,
                                                                 op->global, op->local, 0, NULL,
                                                                 ev),
                                     op->label);
            break;
        case OP_MEMSET:
            err = fill_zero_event(b, q, op->dptr, op->bytes, ev);
            break;
        case OP_DOWNLOAD:
            err = vmaf_opencl_result(api->clEnqueueReadBuffer(q, b->arena, CL_FALSE,
                                                              op->dptr, op->bytes, op->host, 0,
                                                              NULL, ev),
                                     op->label);
            break;
        }
        if (!err && b->sync_each) {
            err = vmaf_opencl_result(api->clFinish(q), op->label);
            if (err)
                vmaf_log(log_level(b), VMAF_LOG_LEVEL_ERROR,
                         "opencl: %s failed on the device (VMAF_OPENCL_SYNC)\n", op->label);
        }
        if (err) return err;
    }
    return 0;
}

/* ---- command buffers (cl_khr_command_buffer, command_buffer.h) ------------------------------ */

static void release_command_buffer(VmafOpenCLBackend *b, Slot *sl, unsigned v)
{
    vmaf_opencl_command_buffer_release(&b->s->command_buffer, sl->command_buffer[v]);
    sl->command_buffer[v] = NULL;
    if (sl->staging[v]) b->api->clReleaseMemObject(sl->staging[v]);
    sl->staging[v] = NULL;
    free(sl->staging_host[v]);
    sl->staging_host[v] = NULL;
    sl->staging_bytes[v] = 0;
}

/* A slot's recorded operations once more, into a command buffer: kernels and clears as they
 * are; a download (a host read, which a command buffer cannot hold) as a device copy into the
 * slot's staging buffer, in its place among the kernels, so that what it copies is what the
 * direct read would have read; the staging is read back after the replay with one read. A
 * command-buffer call that fails leaves the frames enqueued op by op (a warning): the extension
 * is provisional, and a driver that records some command differently is no reason to fail the
 * run. Errors: the staging's memory. */
static int build_command_buffer(VmafOpenCLBackend *b, Slot *sl, unsigned v)
{
    const VmafOpenCLCommandBufferApi *cb = &b->s->command_buffer;
    const VmafOpenCLApi *api = b->api;
    Recorder *r = &sl->var[v];
    size_t staged = 0;
    for (unsigned i = 0; i < r->cnt; i++) {
        Op *op = &r->op[i];
        if (op->kind != OP_DOWNLOAD) continue;
        op->staged_at = staged;
        staged += (op->bytes + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    }
    int err = 0;
    if (staged) {
        cl_int res = CL_SUCCESS;
        sl->staging[v] = api->clCreateBuffer(b->s->ctx, CL_MEM_READ_WRITE, staged, NULL, &res);
        err = vmaf_opencl_result(res, "clCreateBuffer(staging)");
        if (err) sl->staging[v] = NULL;
        if (!err && !(sl->staging_host[v] = malloc(staged))) err = -ENOMEM;
        sl->staging_bytes[v] = staged;
    }
    if (err) {
        release_command_buffer(b, sl, v);
        return err;
    }
    const char *what = "clCreateCommandBufferKHR", *label = "";
    cl_int res = vmaf_opencl_command_buffer_create(cb, sl->queue, &sl->command_buffer[v]);
    for (unsigned i = 0; res == CL_SUCCESS && i < r->cnt; i++) {
        const Op *op = &r->op[i];
        label = op->label;
        switch (op->kind) {
        case OP_KERNEL:
            what = "clCommandNDRangeKernelKHR";
            res = vmaf_opencl_command_buffer_kernel(cb, sl->command_buffer[v], op->kernel,
                                                    op->global, op->local);
            break;
        case OP_MEMSET:
            what = "clCommandFillBufferKHR";
            res = vmaf_opencl_command_buffer_fill_zero(cb, sl->command_buffer[v], b->arena,
                                                       op->dptr, op->bytes);
            break;
        case OP_DOWNLOAD:
            what = "clCommandCopyBufferKHR";
            res = vmaf_opencl_command_buffer_copy(cb, sl->command_buffer[v], b->arena,
                                                  sl->staging[v], op->dptr, op->staged_at,
                                                  op->bytes);
            break;
        }
    }
    if (res == CL_SUCCESS) {
        what = "clFinalizeCommandBufferKHR";
        label = "";
        res = vmaf_opencl_command_buffer_finalize(cb, sl->command_buffer[v]);
    }
    if (res != CL_SUCCESS) {
        release_command_buffer(b, sl, v);
        b->use_command_buffer = false; /* those already built serve no new frame */
        vmaf_log(log_level(b), VMAF_LOG_LEVEL_WARNING,
                 "opencl: %s%s%s: %s (%d): command buffers not used, frames enqueued op by op\n",
                 what, *label ? " " : "", label, vmaf_opencl_error_name(res), (int)res);
    }
    return 0;
}

/* The frame's work: its command buffer after its upload, then its results' one read. */
static int replay_frame(VmafOpenCLBackend *b, Slot *sl, unsigned v)
{
    const VmafOpenCLApi *api = b->api;
    int err = vmaf_opencl_result(vmaf_opencl_command_buffer_enqueue(&b->s->command_buffer,
                                                                    sl->command_buffer[v], 1,
                                                                    &sl->uploaded, NULL),
                                 "clEnqueueCommandBufferKHR");
    if (!err && sl->staging_bytes[v])
        err = vmaf_opencl_result(api->clEnqueueReadBuffer(sl->queue, sl->staging[v], CL_FALSE, 0,
                                                          sl->staging_bytes[v],
                                                          sl->staging_host[v], 0, NULL,
                                                          &sl->done),
                                 "clEnqueueReadBuffer(results)");
    else if (!err)
        err = vmaf_opencl_result(api->clEnqueueMarkerWithWaitList(sl->queue, 0, NULL, &sl->done),
                                 "clEnqueueMarkerWithWaitList");
    return err;
}

/* The replayed frame's results, from the staging to where each twin downloads them. */
static void unstage(Slot *sl)
{
    const Recorder *r = &sl->var[sl->variant];
    const unsigned char *staging = sl->staging_host[sl->variant];
    for (unsigned i = 0; i < r->cnt; i++)
        if (r->op[i].kind == OP_DOWNLOAD)
            memcpy(r->op[i].host, staging + r->op[i].staged_at, r->op[i].bytes);
}

/* ---- profile (VMAF_OPENCL_PROFILE, profile.h) ---------------------------------------------- */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The frame's work op by op, each operation with its event when profiling. */
static int enqueue_frame(VmafOpenCLBackend *b, Slot *sl, unsigned v)
{
    const VmafOpenCLApi *api = b->api;
    const Recorder *r = &sl->var[v];
    /* on an in-order queue, what follows a marker waits for it, and it for the upload */
    int err = vmaf_opencl_result(api->clEnqueueMarkerWithWaitList(sl->queue, 1, &sl->uploaded,
                                                                  NULL),
                                 "clEnqueueMarkerWithWaitList(uploaded)");
    cl_event *event = NULL;
    if (!err && b->profile) {
        if (sl->op_event_cap < r->cnt) {
            cl_event *e = realloc(sl->op_event, r->cnt * sizeof(*e));
            if (!e) return -ENOMEM;
            sl->op_event = e;
            sl->op_event_cap = r->cnt;
        }
        event = sl->op_event;
        memset(event, 0, r->cnt * sizeof(*event));
        sl->op_events = r->cnt;
    }
    if (!err) err = enqueue_ops(b, sl->queue, r, event);
    if (!err)
        err = vmaf_opencl_result(api->clEnqueueMarkerWithWaitList(sl->queue, 0, NULL, &sl->done),
                                 "clEnqueueMarkerWithWaitList");
    return err;
}

static void release_frame_events(VmafOpenCLBackend *b, Slot *sl)
{
    for (unsigned i = 0; i < sl->op_events; i++)
        if (sl->op_event[i]) b->api->clReleaseEvent(sl->op_event[i]);
    sl->op_events = 0;
    if (sl->upload_event) b->api->clReleaseEvent(sl->upload_event);
    sl->upload_event = NULL;
}

/* A completed frame's device times, by label. */
static void profile_frame(VmafOpenCLBackend *b, const Slot *sl)
{
    const Recorder *r = &sl->var[sl->variant];
    for (unsigned i = 0; i < sl->op_events && i < r->cnt; i++) {
        const double ms = vmaf_opencl_event_ms(b->api, sl->op_event[i]);
        if (ms >= 0) vmaf_opencl_profile_add(&b->prof, r->op[i].label, ms);
    }
    const double up0 = vmaf_opencl_event_ms(b->api, sl->upload_event);
    const double up1 = vmaf_opencl_event_ms(b->api, sl->uploaded);
    if (up0 >= 0 && up1 >= 0) {
        b->prof.upload.count++;
        b->prof.upload.total_ms += up0 + up1;
    }
}

static void opencl_print_profile(const VmafDeviceBackend *backend)
{
    const VmafOpenCLBackend *b = (const VmafOpenCLBackend *)backend;
    if (!b || !b->profile) return;
    if (b->group)
        fprintf(stderr, "opencl shared reference: %llu frames written for %u contexts\n",
                b->group->share.uploads, b->group->share.n_members);
    vmaf_opencl_profile_print(&b->prof, stderr,
                              "enqueued op by op (VMAF_OPENCL_PROFILE=1 times each operation)");
}

static int collect_slot(VmafOpenCLBackend *b, Slot *sl)
{
    if (!sl->busy) return 0;
    const double t0 = b->profile ? now_ms() : 0;
    int err = vmaf_opencl_result(b->api->clWaitForEvents(1, &sl->done), "clWaitForEvents");
    const double t1 = b->profile ? now_ms() : 0;
    /* the frame's pictures may still be read by its writes: released only once nothing runs */
    if (err) {
        b->api->clFinish(b->upload);
        b->api->clFinish(sl->queue);
    }
    if (!err && b->profile) profile_frame(b, sl);
    release_frame_events(b, sl);
    if (!err && sl->replayed) unstage(sl);
    b->api->clReleaseEvent(sl->done);
    sl->done = NULL;
    if (sl->uploaded) b->api->clReleaseEvent(sl->uploaded); /* complete before done */
    sl->uploaded = NULL;
    const bool every_twin = sl->variant == 0;
    for (unsigned t = 0; !err && t < b->n_twins; t++) {
        if (!twin_runs(b, t, every_twin)) continue;
        Twin *tw = &b->twin[t];
        err = vmaf_gpu_collect_twin(tw->twin, tw->priv, tw->inst, tw->ext, &b->dev,
                                    (unsigned)(sl - b->slot), sl->index, b->fc, log_level(b));
    }
    if (!err && b->profile) {
        b->prof.host_ms[VMAF_OPENCL_HOST_SUBMIT] += sl->submit_ms;
        b->prof.host_ms[VMAF_OPENCL_HOST_WAIT] += t1 - t0;
        b->prof.host_ms[VMAF_OPENCL_HOST_COLLECT] += now_ms() - t1;
        b->prof.frames++;
    }
    if (sl->held[0].ref) vmaf_picture_unref(&sl->held[0]); /* unless released at upload */
    if (sl->held[1].ref) vmaf_picture_unref(&sl->held[1]);
    sl->busy = false;
    return err;
}

static int opencl_flush(VmafDeviceBackend *backend)
{
    VmafOpenCLBackend *b = (VmafOpenCLBackend *)backend;
    if (!b) return 0;
    int err = 0;
    for (unsigned k = 0; k < N_SLOTS; k++) { /* in submission order */
        const int e = collect_slot(b, &b->slot[(b->seq + k) % N_SLOTS]);
        if (!err) err = e;
    }
    return err;
}

/* ---- a ladder's shared reference (RefGroup) ------------------------------------------------ */

static int opencl_ref_group_create(void **out, void *state)
{
    RefGroup *g = calloc(1, sizeof(*g));
    if (!g) return -ENOMEM;
    const int err = vmaf_gpu_ref_share_init(&g->share);
    if (err) {
        free(g);
        return err;
    }
    vmaf_opencl_state_ref(state);
    g->s = state;
    *out = g;
    return 0;
}

static void opencl_ref_group_ref(void *group)
{
    vmaf_gpu_ref_share_ref(&((RefGroup *)group)->share);
}

static void opencl_ref_group_unref(void *group)
{
    RefGroup *g = group;
    if (!g || !vmaf_gpu_ref_share_unref(&g->share)) return;
    const VmafOpenCLApi *api = &g->s->api;
    for (unsigned k = 0; k < N_SLOTS; k++)
        if (g->uploaded[k]) api->clReleaseEvent(g->uploaded[k]);
    if (g->mem) api->clReleaseMemObject(g->mem);
    vmaf_opencl_state_unref(g->s);
    free(g);
}

/* The group's buffer, made by its first member (the group's lock held). */
static int group_alloc(void *group, void *member)
{
    RefGroup *g = group;
    const VmafOpenCLBackend *b = member;
    cl_int res = CL_SUCCESS;
    g->mem = b->api->clCreateBuffer(b->s->ctx, CL_MEM_READ_ONLY, N_SLOTS * b->pic_bytes, NULL,
                                    &res);
    const int err = vmaf_opencl_result(res, "clCreateBuffer(shared reference)");
    if (err) g->mem = NULL;
    g->bytes = b->chroma ? b->pic_bytes : b->luma_bytes;
    return err;
}

/* b joins g, or not (an error: b then writes its own reference). */
static int group_join(VmafOpenCLBackend *b, RefGroup *g)
{
    if (g->s != b->s) return -EINVAL;
    const int err = vmaf_gpu_ref_share_join(&g->share, b, b->pic_bytes, b->chroma, group_alloc, g);
    if (!err) b->group = g;
    return err;
}

static void group_leave(VmafOpenCLBackend *b)
{
    RefGroup *g = b->group;
    if (!g) return;
    vmaf_gpu_ref_share_leave(&g->share, b);
    b->group = NULL;
    opencl_ref_group_unref(g);
}

/* The frame's reference into the group's buffer for slot si (once, by the first member to
 * submit the frame), then copied into b's slot on its upload queue after waits[]. */
static int group_reference_locked(VmafOpenCLBackend *b, Slot *sl, unsigned si,
                                  const VmafPicture *ref, unsigned index, cl_uint n_waits,
                                  const cl_event *waits)
{
    RefGroup *g = b->group;
    const VmafOpenCLApi *api = b->api;
    const unsigned long long mine = b->seq + 1;
    bool uploaded = false;
    const int err_step = vmaf_gpu_ref_share_check_locked(&g->share, si, mine, index, ref->data[0],
                                                         "opencl", log_level(b), &uploaded);
    if (err_step) return err_step;
    if (!uploaded) { /* not yet by another member: this one writes it */
        /* the members' copies of the slot's previous frame */
        cl_event before[64];
        cl_uint n_before = 0;
        for (unsigned m = 0; m < g->share.n_members; m++) {
            const VmafOpenCLBackend *member = g->share.member[m];
            const Slot *o = &member->slot[si];
            if (member == b || !o->busy || !o->uploaded) continue;
            if (n_before == 64) {
                const int err = vmaf_opencl_result(api->clWaitForEvents(n_before, before),
                                                   "clWaitForEvents(shared reference)");
                if (err) return err;
                n_before = 0;
            }
            before[n_before++] = o->uploaded;
        }
        cl_event ev = NULL;
        const int err = vmaf_opencl_result(
            api->clEnqueueWriteBuffer(b->upload, g->mem, CL_FALSE, si * g->share.pic_bytes,
                                      g->bytes, ref->data[0], n_before, n_before ? before : NULL,
                                      &ev),
            "clEnqueueWriteBuffer(shared reference)");
        if (err) return err;
        if (g->uploaded[si]) api->clReleaseEvent(g->uploaded[si]);
        g->uploaded[si] = ev;
        vmaf_gpu_ref_share_uploaded_locked(&g->share, si, mine, index, ref->data[0]);
    }
    cl_event wait[3] = { g->uploaded[si] };
    for (cl_uint i = 0; i < n_waits && i < 2; i++) wait[1 + i] = waits[i];
    return vmaf_opencl_result(
        api->clEnqueueCopyBuffer(b->upload, g->mem, b->arena, si * g->share.pic_bytes, sl->buf[0],
                                 g->bytes, 1 + (n_waits < 2 ? n_waits : 2), wait,
                                 b->profile ? &sl->upload_event : NULL),
        "clEnqueueCopyBuffer(shared reference)");
}

static int group_reference(VmafOpenCLBackend *b, Slot *sl, unsigned si, const VmafPicture *ref,
                           unsigned index, cl_uint n_waits, const cl_event *waits)
{
    pthread_mutex_lock(&b->group->share.lock);
    const int err = group_reference_locked(b, sl, si, ref, index, n_waits, waits);
    pthread_mutex_unlock(&b->group->share.lock);
    return err;
}

static int opencl_submit(VmafDeviceBackend *backend, const VmafPicture *ref,
                         const VmafPicture *dist, unsigned index)
{
    VmafOpenCLBackend *b = (VmafOpenCLBackend *)backend;
    const VmafOpenCLApi *api = b->api;
    const bool every_twin = runs_every_twin(b, index);
    if (!every_twin && !b->n_every_frame) return 0;
    if (vmaf_picture_memory(ref) == VMAF_PICTURE_MEMORY_DEVICE ||
        vmaf_picture_memory(dist) == VMAF_PICTURE_MEMORY_DEVICE) {
        vmaf_log(log_level(b), VMAF_LOG_LEVEL_ERROR,
                 "opencl: pictures in CUDA device memory cannot be scored on OpenCL\n");
        return -EINVAL;
    }
    const unsigned si = (unsigned)(b->seq % N_SLOTS);
    Slot *sl = &b->slot[si];
    int err = collect_slot(b, sl);
    if (err) return err;

    const double t0 = b->profile ? now_ms() : 0;
    const unsigned vi = every_twin ? 0 : 1;
    if (!sl->recorded[vi]) {
        err = record_variant(b, si, vi, every_twin);
        if (err) return err;
    }
    if (b->use_command_buffer && !sl->command_buffer[vi]) {
        err = build_command_buffer(b, sl, vi);
        if (err) return err;
    }
    /* the pictures are read by the writes below until the frame completes */
    vmaf_picture_ref(&sl->held[0], ref);
    vmaf_picture_ref(&sl->held[1], dist);
    sl->busy = true;
    sl->index = index;
    sl->variant = vi;
    const size_t bytes = b->chroma ? b->pic_bytes : b->luma_bytes;
    const VmafPicture *pics[2] = { ref, dist };
    /* the frames that still read this slot (as their previous and the one before) */
    cl_event readers[2];
    cl_uint n_readers = 0;
    for (unsigned k = 1; k <= 2; k++) {
        const Slot *r = &b->slot[(si + k) % N_SLOTS];
        if (r->busy && r->done) readers[n_readers++] = r->done;
    }
    if (b->group) err = group_reference(b, sl, si, ref, index, n_readers, readers);
    for (int p = b->group ? 1 : 0; !err && p < 2; p++)
        err = vmaf_opencl_result(api->clEnqueueWriteBuffer(b->upload, b->arena, CL_FALSE,
                                                           sl->buf[p], bytes, pics[p]->data[0],
                                                           p ? 0 : n_readers,
                                                           p || !n_readers ? NULL : readers,
                                                           p ? &sl->uploaded
                                                             : b->profile ? &sl->upload_event
                                                                          : NULL),
                                 "clEnqueueWriteBuffer(picture)");
    if (!err) err = vmaf_opencl_result(api->clFlush(b->upload), "clFlush(upload)");
    sl->replayed = b->use_command_buffer && sl->command_buffer[vi];
    if (!err) err = sl->replayed ? replay_frame(b, sl, vi) : enqueue_frame(b, sl, vi);
    if (!err) err = vmaf_opencl_result(api->clFlush(sl->queue), "clFlush");
    if (err) {
        /* nothing of this frame is collected: wait until the device stops reading it */
        api->clFinish(b->upload);
        api->clFinish(sl->queue);
        release_frame_events(b, sl);
        if (sl->done) api->clReleaseEvent(sl->done);
        if (sl->uploaded) api->clReleaseEvent(sl->uploaded);
        sl->done = sl->uploaded = NULL;
        vmaf_picture_unref(&sl->held[0]);
        vmaf_picture_unref(&sl->held[1]);
        sl->busy = false;
        return err;
    }
    b->seq++;
    /* The previous frame's pictures go back to their owner once its upload is done (issued a
     * frame ago, on its own queue: seldom a wait), not when its results are collected
     * N_SLOTS frames later: a client with a small picture pool must not wait for pictures the
     * device no longer reads. A failed wait is the device's error (collect_slot releases them
     * once the queues are finished). */
    Slot *prev = &b->slot[(si + N_SLOTS - 1) % N_SLOTS];
    if (prev->busy && prev->held[0].ref && prev->uploaded) {
        const int err_up = vmaf_opencl_result(api->clWaitForEvents(1, &prev->uploaded),
                                              "clWaitForEvents(uploaded)");
        if (err_up) return err_up;
        vmaf_picture_unref(&prev->held[0]);
        vmaf_picture_unref(&prev->held[1]);
    }
    if (b->profile) sl->submit_ms = now_ms() - t0;
    return 0;
}

/* ---- lifetime ------------------------------------------------------------------------------- */

static void opencl_destroy(VmafDeviceBackend *backend)
{
    VmafOpenCLBackend *b = (VmafOpenCLBackend *)backend;
    if (!b) return;
    const VmafOpenCLApi *api = b->api;
    if (b->upload) api->clFinish(b->upload);
    if (b->queue) api->clFinish(b->queue);
    for (unsigned s = 0; s < N_SLOTS; s++)
        if (b->slot[s].queue) api->clFinish(b->slot[s].queue);
    opencl_print_profile(backend);
    group_leave(b); /* its queues are idle: another member's write waits on nothing of it */
    vmaf_opencl_profile_free(&b->prof);
    for (unsigned s = 0; s < N_SLOTS; s++) {
        Slot *sl = &b->slot[s];
        release_frame_events(b, sl);
        free(sl->op_event);
        /* before the kernels and the arena they name */
        for (unsigned v = 0; v < 2; v++) release_command_buffer(b, sl, v);
        if (sl->done) api->clReleaseEvent(sl->done);
        if (sl->uploaded) api->clReleaseEvent(sl->uploaded);
        if (sl->held[0].ref) vmaf_picture_unref(&sl->held[0]);
        if (sl->held[1].ref) vmaf_picture_unref(&sl->held[1]);
        for (int v = 0; v < 2; v++) recorder_free(api, &sl->var[v]);
    }
    for (unsigned t = 0; t < b->n_twins; t++) {
        if (b->twin[t].priv) b->twin[t].twin->close(b->twin[t].priv, &b->dev);
        free(b->twin[t].priv);
    }
    free(b->twin);
    for (unsigned i = 0; i < b->pending_cnt; i++) free(b->pending[i].data);
    free(b->pending);
    while (b->kernels) {
        struct VmafGpuKernelHandle *h = b->kernels;
        b->kernels = h->next;
        free(h);
    }
    if (b->arena) api->clReleaseMemObject(b->arena);
    if (b->queue) api->clReleaseCommandQueue(b->queue);
    if (b->upload) api->clReleaseCommandQueue(b->upload);
    for (unsigned s = 0; s < N_SLOTS; s++)
        if (b->slot[s].queue) api->clReleaseCommandQueue(b->slot[s].queue);
    free(b);
}

/* Initialise the twin of inst[i] if this device has its kernels: 1 when it runs here, 0 when
 * it stays on the CPU (a kernel the OpenCL programs lack), else an error. */
static int add_twin(VmafOpenCLBackend *b, const VmafGpuTwin *twin, VmafFeatureInstance *inst,
                    unsigned ext)
{
    Twin *t = &b->twin[b->n_twins];
    memset(t, 0, sizeof(*t));
    t->twin = twin;
    t->inst = inst;
    t->ext = ext;
    t->subsampled = vmaf_gpu_twin_subsampled(inst);
    t->priv = calloc(1, twin->priv_size ? twin->priv_size : 1);
    if (!t->priv) return -ENOMEM;
    const size_t arena_before = b->arena_size;
    const unsigned pending_before = b->pending_cnt;
    VmafGpuTwinSetup setup = { .dev = &b->dev, .geometry = b->g, .n_slots = N_SLOTS };
    b->needs_fp64 = false;
    int err = twin->init(t->priv, inst->priv, &setup);
    if (err == -ENOENT) { /* no OpenCL kernel of this twin: the CPU extractor runs */
        twin->close(t->priv, &b->dev);
        free(t->priv);
        t->priv = NULL;
        b->arena_size = arena_before;
        while (b->pending_cnt > pending_before) free(b->pending[--b->pending_cnt].data);
        if (b->needs_fp64)
            vmaf_log(log_level(b), VMAF_LOG_LEVEL_WARNING,
                     "opencl: %s computes in double and has no fp64-free form yet; %s: it "
                     "runs on the CPU\n", inst->fex->name,
                     b->s->info.fp64 ? "VMAF_OPENCL_FP64=0 turns the device's fp64 off"
                                     : "the device has no fp64");
        else
            vmaf_log(log_level(b), VMAF_LOG_LEVEL_INFO,
                     "opencl: %s has no OpenCL kernels yet: it runs on the CPU\n",
                     inst->fex->name);
        return 0;
    }
    if (!err) {
        /* every launch of a frame must fit the device (work-group size, argument bytes):
         * recorded once, for slot 0, now; a twin that does not fit stays on the CPU */
        Recorder trial = { .base.ops = &recorder_ops, .b = b, .trial = true };
        const VmafGpuSlotView view = {
            .slot = 0, .ref = &b->slot[0].pic[0], .dist = &b->slot[0].pic[1],
            .prev_ref = &b->slot[N_SLOTS - 1].pic[0], .prev_prev_ref = &b->slot[N_SLOTS - 2].pic[0],
            .prev_dist = &b->slot[N_SLOTS - 1].pic[1],
        };
        err = twin->record(t->priv, inst->priv, &trial.base, &view);
        recorder_free(b->api, &trial);
        if (err == -ENOTSUP) {
            twin->close(t->priv, &b->dev);
            free(t->priv);
            t->priv = NULL;
            b->arena_size = arena_before;
            while (b->pending_cnt > pending_before) free(b->pending[--b->pending_cnt].data);
            vmaf_log(log_level(b), VMAF_LOG_LEVEL_WARNING,
                     "opencl: %s does not fit %s: it runs on the CPU\n", inst->fex->name,
                     b->s->info.name);
            return 0;
        }
    }
    b->n_twins++; /* closed by destroy, also when init failed */
    if (err) return err;
    b->chroma |= setup.needs_chroma;
    b->n_every_frame += !t->subsampled;
    return 1;
}

static int create_arena(VmafOpenCLBackend *b)
{
    const VmafOpenCLApi *api = b->api;
    cl_int res;
    b->arena = api->clCreateBuffer(b->s->ctx, CL_MEM_READ_WRITE, b->arena_size, NULL, &res);
    int err = vmaf_opencl_result(res, "clCreateBuffer(arena)");
    if (err) {
        b->arena = NULL;
        vmaf_log(log_level(b), VMAF_LOG_LEVEL_ERROR,
                 "opencl: the device gave no buffer of %zu bytes for this geometry\n",
                 b->arena_size);
        return err;
    }
    /* zeroed once: the first frames' temporal twins read slots no frame has filled yet, and
     * discard what they read, but never uninitialised memory */
    err = fill_zero(b, b->queue, 0, b->arena_size);
    for (unsigned i = 0; !err && i < b->pending_cnt; i++) {
        const PendingWrite *w = &b->pending[i];
        err = w->data ? vmaf_opencl_result(api->clEnqueueWriteBuffer(b->queue, b->arena, CL_FALSE,
                                                                     w->dst, w->bytes, w->data,
                                                                     0, NULL, NULL),
                                           "clEnqueueWriteBuffer(set-up)")
                      : fill_zero(b, b->queue, w->dst, w->bytes);
    }
    const int fin = vmaf_opencl_result(api->clFinish(b->queue), "clFinish");
    if (!err) err = fin;
    for (unsigned i = 0; i < b->pending_cnt; i++) free(b->pending[i].data);
    b->pending_cnt = 0;
    return err;
}

static cl_command_queue_properties queue_properties(const VmafOpenCLBackend *b)
{
    return b->profile ? CL_QUEUE_PROFILING_ENABLE : 0;
}

/* Whether the slots' work replays command buffers; one line says which, and why not. */
static void choose_command_buffers(VmafOpenCLBackend *b)
{
    const VmafOpenCLState *s = b->s;
    const char *off = !s->command_buffer.version              ? ""
                      : !vmaf_opencl_command_buffer_wanted() ? "VMAF_OPENCL_COMMAND_BUFFER=0"
                      : b->profile ? "VMAF_OPENCL_PROFILE times each operation"
                      : b->sync_each ? "VMAF_OPENCL_SYNC waits after each operation"
                                     : NULL;
    b->use_command_buffer = !off;
    if (!off)
        vmaf_log(log_level(b), VMAF_LOG_LEVEL_INFO,
                 "opencl: each frame replays a command buffer (%s)\n", s->command_buffer_why);
    else
        vmaf_log(log_level(b), VMAF_LOG_LEVEL_INFO,
                 "opencl: frames enqueued op by op: command buffers not used (%s%s%s)\n",
                 s->command_buffer_why, *off ? ": " : "", off);
}

static int opencl_create(VmafDeviceBackend **out, void *state, const VmafFeatureGeometry *geometry,
                         VmafFeatureInstance **inst, unsigned inst_cnt, unsigned n_subsample,
                         VmafFeatureCollector *fc, void *ref_group)
{
    *out = NULL;
    VmafOpenCLState *s = state;
    unsigned with_twin = 0;
    for (unsigned i = 0; i < inst_cnt; i++) with_twin += !!vmaf_gpu_twin_for(inst[i]->fex->name);
    if (!with_twin) return 0;
    if (!s->info.int64_atomics) {
        vmaf_log(geometry->log_level, VMAF_LOG_LEVEL_WARNING,
                 "opencl: %s lacks 64-bit atomics (cl_khr_int64_base_atomics): every feature "
                 "runs on the CPU\n", s->info.name);
        return 0;
    }
    /* VMAF_OPENCL_MAX_WORK_GROUP=N (a test knob): kernels' work-groups may hold at most N
     * work-items (or fewer where the device says so), as on devices that allow 256 (NVIDIA
     * for some kernels, AMD by default): twins must then launch within it or stay on the CPU */
    size_t max_group = 0;
    const char *cap = getenv("VMAF_OPENCL_MAX_WORK_GROUP");
    if (cap && *cap) {
        char *end = NULL;
        errno = 0;
        const unsigned long v = strtoul(cap, &end, 10);
        if (errno || *end || !v || cap[0] < '0' || cap[0] > '9') {
            vmaf_log(geometry->log_level, VMAF_LOG_LEVEL_ERROR,
                     "opencl: VMAF_OPENCL_MAX_WORK_GROUP=%s is not a positive integer\n", cap);
            return -EINVAL;
        }
        max_group = (size_t)v;
    }
    VmafOpenCLBackend *b = calloc(1, sizeof(*b));
    if (!b) return -ENOMEM;
    b->dev.ops = &device_ops;
    b->max_group = max_group;
    b->s = s;
    b->api = &s->api;
    b->g = *geometry;
    b->fc = fc;
    b->n_subsample = n_subsample;
    const char *sync = getenv("VMAF_OPENCL_SYNC");
    b->sync_each = sync && *sync && strcmp(sync, "0");
    const char *profile = getenv("VMAF_OPENCL_PROFILE");
    b->profile = profile && *profile && strcmp(profile, "0");
    b->arena_size = ARENA_ALIGN; /* offset 0 is never handed out */
    b->twin = calloc(with_twin, sizeof(*b->twin));
    int err = b->twin ? 0 : -ENOMEM;
    /* the slots first: a twin's trial recording (add_twin) reads them */
    VmafPictureLayout l;
    if (!err) err = vmaf_picture_layout(&l, b->g.pix_fmt, b->g.bpc, b->g.w, b->g.h);
    for (unsigned si = 0; !err && si < N_SLOTS; si++) {
        for (int p = 0; !err && p < 2; p++) {
            err = dev_alloc(&b->dev, l.size, &b->slot[si].buf[p]);
            if (!err) vmaf_gpu_set_picture(&b->slot[si].pic[p], b->slot[si].buf[p], &l, b->g.bpc);
        }
    }
    unsigned on_device = 0;
    for (unsigned i = 0; !err && i < inst_cnt; i++) {
        const VmafGpuTwin *twin = vmaf_gpu_twin_for(inst[i]->fex->name);
        if (!twin) continue;
        const int r = add_twin(b, twin, inst[i], i);
        if (r < 0) err = r;
        else on_device += r;
    }
    if (!err && !on_device) {
        opencl_destroy((VmafDeviceBackend *)b);
        return 0;
    }
    /* the queue only once a twin runs here: the twins' set-up waits for the arena, and a
     * context whose twins all stay on the CPU needs none (nor fails for want of one) */
    if (!err) {
        cl_int res = CL_SUCCESS;
        b->queue = b->api->clCreateCommandQueue(s->ctx, s->device, queue_properties(b), &res);
        err = vmaf_opencl_result(res, "clCreateCommandQueue");
        if (err) b->queue = NULL;
    }
    if (!err) {
        cl_int res = CL_SUCCESS;
        b->upload = b->api->clCreateCommandQueue(s->ctx, s->device, queue_properties(b), &res);
        err = vmaf_opencl_result(res, "clCreateCommandQueue(upload)");
        if (err) b->upload = NULL;
    }
    for (unsigned si = 0; !err && si < N_SLOTS; si++) {
        cl_int res = CL_SUCCESS;
        b->slot[si].queue = b->api->clCreateCommandQueue(s->ctx, s->device, queue_properties(b),
                                                         &res);
        err = vmaf_opencl_result(res, "clCreateCommandQueue(slot)");
        if (err) b->slot[si].queue = NULL;
    }
    if (!err) {
        b->pic_bytes = l.size;
        b->luma_bytes = (size_t)l.stride[0] * l.h[0];
        if (!l.h[1]) b->chroma = false;
    }
    if (!err) err = create_arena(b);
    if (err) {
        opencl_destroy((VmafDeviceBackend *)b);
        return err;
    }
    choose_command_buffers(b);
    if (ref_group) (void)group_join(b, ref_group); /* or not: it writes its own reference */
    for (unsigned t = 0; t < b->n_twins; t++) b->twin[t].inst->on_gpu = true;
    *out = (VmafDeviceBackend *)b;
    return 0;
}

static void opencl_unref_state(void *state)
{
    vmaf_opencl_state_unref(state);
}

const VmafDeviceKind vmaf_opencl_device_kind = {
    .name = "OpenCL",
    .create = opencl_create,
    .submit = opencl_submit,
    .flush = opencl_flush,
    .destroy = opencl_destroy,
    .print_profile = opencl_print_profile,
    .unref_state = opencl_unref_state,
    .ref_group_create = opencl_ref_group_create,
    .ref_group_ref = opencl_ref_group_ref,
    .ref_group_unref = opencl_ref_group_unref,
    .device_pictures = false,
};
