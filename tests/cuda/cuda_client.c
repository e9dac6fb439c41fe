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
 *               [--threads N] [--frames N]
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

enum { SKIP = 77, MAX_MODELS = 4, MAX_FEATURES = 8 };

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

static int run(const Opts *o, Cu *cu, const char *out_path)
{
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = o->threads,
                              .n_subsample = 1 };
    VmafContext *vmaf = NULL;
    VmafModel *model[MAX_MODELS] = { 0 };
    VmafCudaState *state = NULL;
    CUcontext ctx = NULL;
    DeviceFrame df = { 0 };
    Frame f = { 0 };
    FILE *ref = NULL, *dis = NULL;
    unsigned n = 0;
    int err = vmaf_init(&vmaf, cfg);
    for (unsigned i = 0; !err && i < o->n_models; i++) {
        char name[32];
        snprintf(name, sizeof(name), i ? "vmaf_%u" : "vmaf", i);
        VmafModelConfig mc = { .name = name };
        err = vmaf_model_load(&model[i], &mc, o->model[i]);
        if (!err) err = vmaf_use_features_from_model(vmaf, model[i]);
    }
    for (unsigned i = 0; !err && i < o->n_features; i++)
        err = vmaf_use_feature(vmaf, o->feature[i], NULL);
    if (!err && cu) {
        CUdevice dev;
        err = cu_check(cu->DeviceGet(&dev, 0), "cuDeviceGet");
        if (!err) err = cu_check(cu->CtxCreate(&ctx, CU_CTX_SCHED_BLOCKING_SYNC, dev), "cuCtxCreate");
        CUcontext dummy;
        if (!err) cu->CtxPopCurrent(&dummy);
        if (!err) err = vmaf_cuda_state_init(&state, (VmafCudaConfiguration){ .cu_ctx = ctx });
        if (!err) err = vmaf_cuda_import_state(vmaf, state);
        const VmafCudaPictureConfiguration pc = {
            .pic_params = { o->w, o->h, o->bpc, o->fmt },
            .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
        };
        if (!err) err = vmaf_cuda_preallocate_pictures(vmaf, pc);
    }
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
    if (!err) {
        ref = fopen(o->ref, "rb");
        dis = fopen(o->dis, "rb");
        if (!ref || !dis) err = -errno;
    }
    while (!err && (!o->frames || n < o->frames)) {
        VmafPicture pr, pd;
        if (read_frame(ref, &f)) break;
        if (cu) {
            err = vmaf_cuda_fetch_preallocated_picture(vmaf, &pr);
            if (!err) err = upload_and_copy(cu, ctx, &f, &df, &pr);
        } else {
            err = vmaf_picture_alloc(&pr, o->fmt, o->bpc, o->w, o->h);
            if (!err) copy_host(&f, &pr);
        }
        if (err) break;
        if (read_frame(dis, &f)) {
            vmaf_picture_unref(&pr);
            break;
        }
        if (cu) {
            err = vmaf_cuda_fetch_preallocated_picture(vmaf, &pd);
            if (!err) err = upload_and_copy(cu, ctx, &f, &df, &pd);
        } else {
            err = vmaf_picture_alloc(&pd, o->fmt, o->bpc, o->w, o->h);
            if (!err) copy_host(&f, &pd);
        }
        if (err) {
            vmaf_picture_unref(&pr);
            break;
        }
        err = vmaf_read_pictures(vmaf, &pr, &pd, n++);
        if (err && pr.ref) vmaf_picture_unref(&pr); /* as the reference, some failures */
        if (err && pd.ref) vmaf_picture_unref(&pd);  /* leave the pictures with the caller */
    }
    if (!err && !n) err = -EIO;
    if (!err) err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    for (unsigned i = 0; !err && i < o->n_models; i++) {
        double score;
        err = vmaf_score_pooled(vmaf, model[i], VMAF_POOL_METHOD_MEAN, &score, 0, n - 1);
        if (!err) printf("%s %s: %u frames, %s pooled %.17g\n", cu ? "cuda" : "cpu ",
                         o->model[i], n, "mean", score);
    }
    if (!err) err = vmaf_write_output_with_precision(vmaf, out_path, VMAF_OUTPUT_FORMAT_JSON, 17);
    if (err) fprintf(stderr, "cuda_client: %s run failed: %s\n", cu ? "cuda" : "cpu", strerror(-err));
    if (ref) fclose(ref);
    if (dis) fclose(dis);
    for (unsigned i = 0; i < o->n_models; i++) vmaf_model_destroy(model[i]);
    vmaf_close(vmaf);
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
                        "[--feature NAME]... [--threads N] [--frames N]\n");
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
    char cpu_path[1024], cuda_path[1024];
    const char *base = strrchr(o.ref, '/') ? strrchr(o.ref, '/') + 1 : o.ref;
    snprintf(cpu_path, sizeof(cpu_path), "%s/cuda_client_%s_cpu.json", o.dir, base);
    snprintf(cuda_path, sizeof(cuda_path), "%s/cuda_client_%s_cuda.json", o.dir, base);
    if (run(&o, NULL, cpu_path) || run(&o, &cu, cuda_path)) return 1;
    return same_output(cpu_path, cuda_path) ? 0 : 1;
}
