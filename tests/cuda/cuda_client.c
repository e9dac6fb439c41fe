/*
 * cuda_client: drives libvmaf the way FFmpeg's libvmaf_cuda filter does, through the public
 * API only, and compares its output with the CPU path's (FFmpeg's libvmaf filter).
 *
 * The CUDA run: the client loads the CUDA driver itself, creates its own CUcontext
 * (cuCtxCreate, as FFmpeg's CUDA hwcontext does) and passes it to vmaf_cuda_state_init; it
 * loads the model and its features before importing the state; pictures come from
 * vmaf_cuda_preallocate_pictures(DEVICE) / vmaf_cuda_fetch_preallocated_picture and are filled
 * by device-to-device cuMemcpy2D from the client's own pitched device frames (FFmpeg's
 * hardware frames). The CPU run: vmaf_picture_alloc + plane copies. Both write JSON at full
 * precision; the files must be identical apart from the fps line.
 *
 *   cuda_client REF.yuv DIS.yuv W H 420|422|444 BPC OUTDIR [--model VERSION]... [--feature NAME]...
 *               [--also DIS2.yuv]... [--threads N] [--frames N]
 * With --also (up to 4), the CUDA run is a ladder (vmaf_ladder_*): REF against DIS and each
 * DIS2 in one pass, every rung's pictures device pictures from its own pool, the reference
 * picture from the first rung's; each rung's output must be identical to the CPU path's
 * single run of its pair.
 * Exit 0 identical, 1 different or failed, 77 no CUDA driver or device (skipped).
 */
#include <cuda.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

/* the one internal call: output at %.17g (the public vmaf_write_output prints %.6f, too
 * coarse for a strict comparison) */
#include "output.h"

enum { SKIP = 77, MAX_MODELS = 4, MAX_FEATURES = 8, MAX_DIS = 5 };

/* The driver entry points FFmpeg's loader resolves, by their exported (versioned) names. */
typedef struct Cu {
    void *lib;
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*CtxCreate)(CUcontext *, unsigned, CUdevice);
    CUresult (*CtxDestroy)(CUcontext);
    CUresult (*CtxPushCurrent)(CUcontext);
    CUresult (*CtxPopCurrent)(CUcontext *);
    CUresult (*MemAllocPitch)(CUdeviceptr *, size_t *, size_t, size_t, unsigned);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*Memcpy2D)(const CUDA_MEMCPY2D *);
} Cu;

static int cu_load(Cu *cu)
{
    cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cu->lib) return -ENODEV;
#define SYM(field, name) \
    if (!(*(void **)&cu->field = dlsym(cu->lib, name))) return -ENODEV;
    SYM(Init, "cuInit")
    SYM(DeviceGet, "cuDeviceGet")
    SYM(CtxCreate, "cuCtxCreate_v2")
    SYM(CtxDestroy, "cuCtxDestroy_v2")
    SYM(CtxPushCurrent, "cuCtxPushCurrent_v2")
    SYM(CtxPopCurrent, "cuCtxPopCurrent_v2")
    SYM(MemAllocPitch, "cuMemAllocPitch_v2")
    SYM(MemFree, "cuMemFree_v2")
    SYM(Memcpy2D, "cuMemcpy2D_v2")
#undef SYM
    return cu->Init(0) == CUDA_SUCCESS ? 0 : -ENODEV;
}

typedef struct Opts {
    const char *ref, *dis, *dir;
    unsigned w, h, bpc, threads, frames;
    enum VmafPixelFormat fmt;
    const char *model[MAX_MODELS];
    unsigned n_models;
    const char *feature[MAX_FEATURES]; /* extractors by name, default options */
    unsigned n_features;
    const char *also[MAX_DIS - 1]; /* --also: more distorted inputs, the CUDA run a ladder */
    unsigned n_also;
} Opts;

/* One frame of a raw file: planes of ceil-sized chroma, read whole. */
typedef struct Frame {
    uint8_t *data;
    size_t size, offset[3];
    unsigned w[3], h[3], bytes;
} Frame;

static void frame_geometry(const Opts *o, Frame *f)
{
    const unsigned sx = o->fmt == VMAF_PIX_FMT_YUV444P ? 0 : 1;
    const unsigned sy = o->fmt == VMAF_PIX_FMT_YUV420P ? 1 : 0;
    f->bytes = o->bpc > 8 ? 2 : 1;
    f->size = 0;
    for (unsigned c = 0; c < 3; c++) {
        f->w[c] = c ? (o->w + sx) >> sx : o->w;
        f->h[c] = c ? (o->h + sy) >> sy : o->h;
        f->offset[c] = f->size;
        f->size += (size_t)f->w[c] * f->h[c] * f->bytes;
    }
}

static int read_frame(FILE *in, Frame *f)
{
    return fread(f->data, 1, f->size, in) == f->size ? 0 : -EIO;
}

/* FFmpeg's hardware frame: the client's own pitched device planes. */
typedef struct DeviceFrame {
    CUdeviceptr plane[3];
    size_t pitch[3];
} DeviceFrame;

static int cu_check(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS) return 0;
    fprintf(stderr, "cuda_client: %s failed (%d)\n", what, (int)r);
    return -EIO;
}

/* Host frame -> the client's device frame -> a device picture of the library (D2D). */
static int upload_and_copy(Cu *cu, CUcontext ctx, const Frame *f, DeviceFrame *df,
                           VmafPicture *pic)
{
    int err = cu_check(cu->CtxPushCurrent(ctx), "cuCtxPushCurrent");
    for (unsigned c = 0; c < 3 && !err; c++) {
        if (!pic->data[c]) continue;
        const CUDA_MEMCPY2D up = {
            .srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = f->data + f->offset[c],
            .srcPitch = (size_t)f->w[c] * f->bytes,
            .dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = df->plane[c],
            .dstPitch = df->pitch[c],
            .WidthInBytes = (size_t)f->w[c] * f->bytes, .Height = f->h[c],
        };
        err = cu_check(cu->Memcpy2D(&up), "upload");
        /* the picture keeps the top-left floor-sized region, as FFmpeg's frames hold it */
        const CUDA_MEMCPY2D d2d = {
            .srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = df->plane[c],
            .srcPitch = df->pitch[c],
            .dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = (CUdeviceptr)(uintptr_t)pic->data[c],
            .dstPitch = (size_t)pic->stride[c],
            .WidthInBytes = (size_t)pic->w[c] * f->bytes, .Height = pic->h[c],
        };
        if (!err) err = cu_check(cu->Memcpy2D(&d2d), "device-to-device copy");
    }
    CUcontext dummy;
    cu->CtxPopCurrent(&dummy);
    return err;
}

static void copy_host(const Frame *f, VmafPicture *pic)
{
    for (unsigned c = 0; c < 3; c++) {
        if (!pic->data[c]) continue;
        for (unsigned y = 0; y < pic->h[c]; y++)
            memcpy((uint8_t *)pic->data[c] + (size_t)y * pic->stride[c],
                   f->data + f->offset[c] + (size_t)y * f->w[c] * f->bytes,
                   (size_t)pic->w[c] * f->bytes);
    }
}

/* The pictures of one frame (ref, then each distorted) from the k-th context's pool. */
static int next_picture(Cu *cu, CUcontext ctx, const Opts *o, VmafContext *vmaf, FILE *in,
                        Frame *f, DeviceFrame *df, VmafPicture *pic)
{
    if (read_frame(in, f)) return 1; /* the end of that input */
    int err;
    if (cu) {
        err = vmaf_cuda_fetch_preallocated_picture(vmaf, pic);
        if (!err) {
            err = upload_and_copy(cu, ctx, f, df, pic);
            if (err) vmaf_picture_unref(pic);
        }
    } else {
        err = vmaf_picture_alloc(pic, o->fmt, o->bpc, o->w, o->h);
        if (!err) copy_host(f, pic);
    }
    return err;
}

/* Score REF against dis[0..n): one context (n = 1) or a ladder of n rungs (vmaf_ladder_*),
 * each rung's output at out[k]. cu NULL: the CPU path with host pictures; else the CUDA
 * state on the client's own context, device pictures from each rung's pool. */
static int run(const Opts *o, Cu *cu, const char *const *dis_path, unsigned n,
               char (*out)[1024])
{
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = o->threads,
                              .n_subsample = 1 };
    VmafContext *vmaf[MAX_DIS] = { 0 };
    VmafLadder *ladder = NULL;
    VmafModel *model[MAX_MODELS] = { 0 };
    VmafCudaState *state = NULL;
    CUcontext ctx = NULL;
    DeviceFrame df = { 0 };
    Frame f = { 0 };
    FILE *ref = NULL, *dis[MAX_DIS] = { 0 };
    unsigned frames = 0;
    int err = 0;
    for (unsigned i = 0; !err && i < o->n_models; i++) {
        char name[32];
        snprintf(name, sizeof(name), i ? "vmaf_%u" : "vmaf", i);
        VmafModelConfig mc = { .name = name };
        err = vmaf_model_load(&model[i], &mc, o->model[i]);
    }
    if (!err && cu) {
        CUdevice dev;
        err = cu_check(cu->DeviceGet(&dev, 0), "cuDeviceGet");
        if (!err) err = cu_check(cu->CtxCreate(&ctx, CU_CTX_SCHED_BLOCKING_SYNC, dev), "cuCtxCreate");
        CUcontext dummy;
        if (!err) cu->CtxPopCurrent(&dummy);
        if (!err) err = vmaf_cuda_state_init(&state, (VmafCudaConfiguration){ .cu_ctx = ctx });
    }
    for (unsigned k = 0; !err && k < n; k++) {
        err = vmaf_init(&vmaf[k], cfg);
        for (unsigned i = 0; !err && i < o->n_models; i++)
            err = vmaf_use_features_from_model(vmaf[k], model[i]);
        for (unsigned i = 0; !err && i < o->n_features; i++)
            err = vmaf_use_feature(vmaf[k], o->feature[i], NULL);
        if (!err && cu) err = vmaf_cuda_import_state(vmaf[k], state);
        const VmafCudaPictureConfiguration pc = {
            .pic_params = { o->w, o->h, o->bpc, o->fmt },
            .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
        };
        if (!err && cu) err = vmaf_cuda_preallocate_pictures(vmaf[k], pc);
    }
    if (!err && n > 1) err = vmaf_ladder_init(&ladder, vmaf, n);
    frame_geometry(o, &f);
    if (!err) err = (f.data = malloc(f.size)) ? 0 : -ENOMEM;
    if (!err && cu) {
        err = cu_check(cu->CtxPushCurrent(ctx), "cuCtxPushCurrent");
        for (unsigned c = 0; c < 3 && !err; c++)
            err = cu_check(cu->MemAllocPitch(&df.plane[c], &df.pitch[c], (size_t)f.w[c] * f.bytes,
                                             f.h[c], 16), "cuMemAllocPitch");
        CUcontext dummy;
        cu->CtxPopCurrent(&dummy);
    }
    if (!err && !(ref = fopen(o->ref, "rb"))) err = -errno;
    for (unsigned k = 0; !err && k < n; k++)
        if (!(dis[k] = fopen(dis_path[k], "rb"))) err = -errno;
    /* every input as long as the shortest (the test's inputs are equally long) */
    while (!err && (!o->frames || frames < o->frames)) {
        VmafPicture pr, pd[MAX_DIS];
        int r = next_picture(cu, ctx, o, vmaf[0], ref, &f, &df, &pr);
        if (r) { /* the reference ended (1) or failed */
            err = r < 0 ? r : 0;
            break;
        }
        unsigned got = 0;
        while (!r && got < n) {
            r = next_picture(cu, ctx, o, vmaf[got], dis[got], &f, &df, &pd[got]);
            if (!r) got++;
        }
        if (r) { /* a distorted input ended or failed: give back what this frame holds */
            vmaf_picture_unref(&pr);
            while (got--) vmaf_picture_unref(&pd[got]);
            err = r < 0 ? r : 0;
            break;
        }
        if (ladder) {
            int status[MAX_DIS];
            err = vmaf_ladder_read_pictures(ladder, &pr, pd, status, frames++);
        } else {
            err = vmaf_read_pictures(vmaf[0], &pr, &pd[0], frames++);
            if (err && pr.ref) vmaf_picture_unref(&pr); /* as the reference, some failures */
            if (err && pd[0].ref) vmaf_picture_unref(&pd[0]); /* leave them with the caller */
        }
    }
    if (!err && !frames) err = -EIO;
    if (!err) {
        int status[MAX_DIS];
        err = ladder ? vmaf_ladder_read_pictures(ladder, NULL, NULL, status, 0)
                     : vmaf_read_pictures(vmaf[0], NULL, NULL, 0);
    }
    for (unsigned k = 0; !err && k < n; k++) {
        for (unsigned i = 0; !err && i < o->n_models; i++) {
            double score;
            err = vmaf_score_pooled(vmaf[k], model[i], VMAF_POOL_METHOD_MEAN, &score, 0,
                                    frames - 1);
            if (!err) printf("%s%s %s %s: %u frames, mean %.17g\n", cu ? "cuda" : "cpu ",
                             ladder ? " ladder" : "", dis_path[k], o->model[i], frames, score);
        }
        if (!err) err = vmaf_write_output_with_precision(vmaf[k], out[k], VMAF_OUTPUT_FORMAT_JSON, 17);
    }
    if (err) fprintf(stderr, "cuda_client: %s run failed: %s\n", cu ? "cuda" : "cpu", strerror(-err));
    if (ref) fclose(ref);
    for (unsigned k = 0; k < n; k++)
        if (dis[k]) fclose(dis[k]);
    if (ladder) vmaf_ladder_close(ladder);
    for (unsigned k = 0; k < n; k++) vmaf_close(vmaf[k]);
    for (unsigned i = 0; i < o->n_models; i++) vmaf_model_destroy(model[i]);
    if (state) vmaf_cuda_state_free(state);
    if (ctx) {
        cu->CtxPushCurrent(ctx);
        for (unsigned c = 0; c < 3; c++)
            if (df.plane[c]) cu->MemFree(df.plane[c]);
        CUcontext dummy;
        cu->CtxPopCurrent(&dummy);
        cu->CtxDestroy(ctx);
    }
    free(f.data);
    return err;
}

static int same_output(const char *a, const char *b)
{
    FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
    int same = fa && fb;
    char la[8192], lb[8192];
    unsigned line = 0, values = 0;
    while (same) {
        char *ra = fgets(la, sizeof(la), fa), *rb = fgets(lb, sizeof(lb), fb);
        line++;
        if (!ra || !rb) {
            same = !ra && !rb;
            break;
        }
        if (strstr(la, "\"fps\"") && strstr(lb, "\"fps\"")) continue;
        if (strcmp(la, lb)) {
            fprintf(stderr, "line %u differs:\n  cpu  %s  cuda %s", line, la, lb);
            same = 0;
        }
        values += strchr(la, ':') != NULL;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    if (same) printf("identical: %u lines, %u keyed values\n", line - 1, values);
    return same;
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: cuda_client REF DIS W H 420|422|444 BPC OUTDIR [--model V]... "
                        "[--feature NAME]... [--also DIS2]... [--threads N] [--frames N]\n");
        return 2;
    }
    Opts o = { .ref = argv[1], .dis = argv[2], .w = (unsigned)atoi(argv[3]),
               .h = (unsigned)atoi(argv[4]), .bpc = (unsigned)atoi(argv[6]), .dir = argv[7] };
    o.fmt = !strcmp(argv[5], "420") ? VMAF_PIX_FMT_YUV420P
            : !strcmp(argv[5], "422") ? VMAF_PIX_FMT_YUV422P
            : !strcmp(argv[5], "444") ? VMAF_PIX_FMT_YUV444P : VMAF_PIX_FMT_UNKNOWN;
    for (int i = 8; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--model") && o.n_models < MAX_MODELS) o.model[o.n_models++] = argv[i + 1];
        else if (!strcmp(argv[i], "--feature") && o.n_features < MAX_FEATURES)
            o.feature[o.n_features++] = argv[i + 1];
        else if (!strcmp(argv[i], "--also") && o.n_also < MAX_DIS - 1) o.also[o.n_also++] = argv[i + 1];
        else if (!strcmp(argv[i], "--threads")) o.threads = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames")) o.frames = (unsigned)atoi(argv[i + 1]);
        else {
            fprintf(stderr, "cuda_client: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!o.n_models) o.model[o.n_models++] = "vmaf_v0.6.1";
    if (!o.w || !o.h || o.fmt == VMAF_PIX_FMT_UNKNOWN || o.bpc < 8 || o.bpc > 16) {
        fprintf(stderr, "cuda_client: bad geometry\n");
        return 2;
    }
    Cu cu = { 0 };
    if (cu_load(&cu)) {
        printf("cuda_client: no CUDA driver or device, skipped\n");
        return SKIP;
    }
    /* the CPU: one single run per distorted input; CUDA: one run, or one ladder of them */
    const char *dis_path[MAX_DIS] = { o.dis };
    for (unsigned k = 0; k < o.n_also; k++) dis_path[1 + k] = o.also[k];
    const unsigned n = 1 + o.n_also;
    char cpu_path[MAX_DIS][1024], cuda_path[MAX_DIS][1024];
    const char *base = strrchr(o.ref, '/') ? strrchr(o.ref, '/') + 1 : o.ref;
    for (unsigned k = 0; k < n; k++) {
        snprintf(cpu_path[k], sizeof(cpu_path[k]), "%s/cuda_client_%s_%u_cpu.json", o.dir, base, k);
        snprintf(cuda_path[k], sizeof(cuda_path[k]), "%s/cuda_client_%s_%u_cuda.json", o.dir,
                 base, k);
        if (run(&o, NULL, &dis_path[k], 1, &cpu_path[k])) return 1;
    }
    if (run(&o, &cu, dis_path, n, cuda_path)) return 1;
    int same = 1;
    for (unsigned k = 0; k < n; k++) same &= same_output(cpu_path[k], cuda_path[k]);
    return same ? 0 : 1;
}
