/*
 * checktwin harness: seeding, frame sources (synthetic patterns and real clips), the CPU and
 * device runs of a case, the comparison of their complete outputs, and the benchmark. The
 * cases live in one file per family (see checktwin.h). Exit 77 (skipped) without the device.
 *
 *   checktwin [--backend cuda|opencl] [--opencl_device N] [--all-on-device] [--seed N]
 *             [--quick] [--bench] [--dir SCRATCH] [--clips DIR] [--only FAMILY[,FAMILY...]]
 *
 * On OpenCL, pictures are host pictures (the CUDA pinned and device sources run as pageable
 * ones). --all-on-device fails a case in which an extractor that has a twin ran on the CPU
 * (a twin whose OpenCL kernels are missing); without it such cases are counted and reported.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checktwin.h"
#include "context.h"
#if CHECKTWIN_CUDA
#include "cuda/state.h"
#endif
#include "gpu/twin.h"
#include "opencl/division.h"
#include "output.h"
#include "picture.h"

uint32_t checktwin_rand(CheckRng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 16);
}

const CheckClip checktwin_clips[] = {
    { "boats_576x324_420p", 576, 324, 8, 24, VMAF_PIX_FMT_YUV420P },
    { "forest_576x324_420p10", 576, 324, 10, 24, VMAF_PIX_FMT_YUV420P },
    { "leaf_480x270_422p12", 480, 270, 12, 16, VMAF_PIX_FMT_YUV422P },
    { "cups_352x288_444p", 352, 288, 8, 16, VMAF_PIX_FMT_YUV444P },
    { "jetty_1920x1080_420p", 1920, 1080, 8, 10, VMAF_PIX_FMT_YUV420P },
    { "kite_257x145_420p", 257, 145, 8, 12, VMAF_PIX_FMT_YUV420P },
    { "tiny_33x33_420p", 33, 33, 8, 8, VMAF_PIX_FMT_YUV420P },
    { "tiny_17x17_420p", 17, 17, 8, 8, VMAF_PIX_FMT_YUV420P },
    { "deep_320x180_420p16", 320, 180, 16, 8, VMAF_PIX_FMT_YUV420P },
};
const unsigned checktwin_n_clips = sizeof(checktwin_clips) / sizeof(checktwin_clips[0]);

const CheckClip *checktwin_clip(const char *name)
{
    for (unsigned i = 0; i < checktwin_n_clips; i++)
        if (!strcmp(checktwin_clips[i].name, name)) return &checktwin_clips[i];
    return NULL;
}

/* ------------------------------------------------------------------------------------- */
/* Samples                                                                               */

static unsigned get_sample(const VmafPicture *p, unsigned c, unsigned x, unsigned y)
{
    const uint8_t *row = (const uint8_t *)p->data[c] + (size_t)y * p->stride[c];
    return p->bpc == 8 ? row[x] : ((const uint16_t *)row)[x];
}

static void put_sample(VmafPicture *p, unsigned c, unsigned x, unsigned y, unsigned v)
{
    uint8_t *row = (uint8_t *)p->data[c] + (size_t)y * p->stride[c];
    if (p->bpc == 8) row[x] = (uint8_t)v;
    else ((uint16_t *)row)[x] = (uint16_t)v;
}

static void fill_pattern(VmafPicture *p, CheckRng *r, enum CheckPattern pat, int is_dist)
{
    const unsigned max = (1u << p->bpc) - 1;
    for (unsigned c = 0; c < 3; c++) {
        if (!p->data[c]) continue;
        for (unsigned y = 0; y < p->h[c]; y++) {
            for (unsigned x = 0; x < p->w[c]; x++) {
                unsigned v;
                switch (pat) {
                case PAT_RANDOM: v = checktwin_rand(r) % (max + 1); break;
                case PAT_EXTREME: v = is_dist ? max : 0; break;
                case PAT_CHECKER: v = ((x ^ y ^ (unsigned)is_dist) & 1) ? max : 0; break;
                case PAT_NOISE: v = (unsigned)((int)(max / 2) + (int)(checktwin_rand(r) % 9) - 4); break;
                default: v = (x * 7 + y * 3) % (max + 1); break;
                }
                put_sample(p, c, x, y, v);
            }
        }
    }
}

/* One frame of a clip file (ceil-sized chroma in the file, as MANIFEST.tsv says). */
typedef struct ClipFrame {
    unsigned w[3], h[3], bpc;
    uint16_t *plane[3];
} ClipFrame;

static int read_clip_frame(const char *dir, const CheckClip *clip, const char *which,
                           unsigned index, ClipFrame *f)
{
    const unsigned sx = clip->fmt == VMAF_PIX_FMT_YUV444P ? 0 : 1;
    const unsigned sy = clip->fmt == VMAF_PIX_FMT_YUV420P ? 1 : 0;
    const unsigned bytes = clip->bpc > 8 ? 2 : 1;
    size_t frame_size = 0;
    for (unsigned c = 0; c < 3; c++) {
        f->w[c] = c ? (clip->w + sx) >> sx : clip->w;
        f->h[c] = c ? (clip->h + sy) >> sy : clip->h;
        frame_size += (size_t)f->w[c] * f->h[c] * bytes;
    }
    f->bpc = clip->bpc;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s_%s.yuv", dir, clip->name, which);
    FILE *in = fopen(path, "rb");
    if (!in) return -errno;
    int err = fseek(in, (long)(frame_size * (index % clip->frames)), SEEK_SET) ? -EIO : 0;
    for (unsigned c = 0; c < 3 && !err; c++) {
        const size_t n = (size_t)f->w[c] * f->h[c];
        f->plane[c] = malloc(n * sizeof(uint16_t));
        if (!f->plane[c]) { err = -ENOMEM; break; }
        if (bytes == 1) {
            uint8_t *tmp = malloc(n);
            if (!tmp || fread(tmp, 1, n, in) != n) err = tmp ? -EIO : -ENOMEM;
            for (size_t i = 0; !err && i < n; i++) f->plane[c][i] = tmp[i];
            free(tmp);
        } else if (fread(f->plane[c], 2, n, in) != n) {
            err = -EIO;
        }
    }
    fclose(in);
    return err;
}

static void free_clip_frame(ClipFrame *f)
{
    for (unsigned c = 0; c < 3; c++) free(f->plane[c]);
    memset(f, 0, sizeof(*f));
}

/* The clip frame resampled (nearest, cropping when the case is smaller in one direction and
 * repeating when larger) to the picture's size and bit depth. */
static void resample_into(const ClipFrame *f, VmafPicture *p)
{
    for (unsigned c = 0; c < 3; c++) {
        if (!p->data[c]) continue;
        const unsigned fc = c; /* chroma planes map to chroma planes */
        for (unsigned y = 0; y < p->h[c]; y++) {
            const unsigned sy = (unsigned)((uint64_t)y * f->h[fc] / p->h[c]);
            for (unsigned x = 0; x < p->w[c]; x++) {
                const unsigned sx = (unsigned)((uint64_t)x * f->w[fc] / p->w[c]);
                unsigned v = f->plane[fc][(size_t)sy * f->w[fc] + sx];
                if (p->bpc > f->bpc) v <<= p->bpc - f->bpc;
                else v >>= f->bpc - p->bpc;
                put_sample(p, c, x, y, v);
            }
        }
    }
}

/* A synthetic distortion of the reference picture into dist. */
static void distort(const VmafPicture *ref, VmafPicture *dist, enum CheckDistortion d, CheckRng *r)
{
    const unsigned max = (1u << ref->bpc) - 1;
    for (unsigned c = 0; c < 3; c++) {
        if (!ref->data[c]) continue;
        const unsigned w = ref->w[c], h = ref->h[c];
        for (unsigned y = 0; y < h; y++) {
            for (unsigned x = 0; x < w; x++) {
                const unsigned v = get_sample(ref, c, x, y);
                long out = v;
                if (d == DIST_BLUR) {
                    long sum = 0;
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            const int yy = (int)y + dy < 0 ? 0 : (int)y + dy >= (int)h ? (int)h - 1 : (int)y + dy;
                            const int xx = (int)x + dx < 0 ? 0 : (int)x + dx >= (int)w ? (int)w - 1 : (int)x + dx;
                            sum += get_sample(ref, c, (unsigned)xx, (unsigned)yy);
                        }
                    out = (sum + 4) / 9;
                } else if (d == DIST_NOISE) {
                    const long amp = (long)(max / 16) + 1;
                    out = (long)v + (long)(checktwin_rand(r) % (2 * amp + 1)) - amp;
                } else if (d == DIST_QUANT) {
                    const unsigned step = (max + 1) / 16;
                    out = (long)(v / step * step + step / 2);
                }
                out = out < 0 ? 0 : out > (long)max ? (long)max : out;
                put_sample(dist, c, x, y, (unsigned)out);
            }
        }
    }
}

/* ------------------------------------------------------------------------------------- */
/* Runs                                                                                  */

typedef struct Run {
    VmafContext *v;
    VmafModel *model;
    VmafModelCollection *collection;
    CheckRng rng;
    unsigned index;
    enum CheckSource source;
    VmafCudaState *state;       /* CUDA runs */
    const CheckEnv *device;     /* device runs (CUDA or OpenCL); NULL: the CPU run */
    const char *clips;
} Run;

static int use_features(VmafContext *v, const char *const *features)
{
    for (unsigned i = 0; features && features[i]; i++) {
        char spec[256];
        snprintf(spec, sizeof(spec), "%s", features[i]);
        char *rest = spec, *name = strsep(&rest, "=");
        VmafFeatureDictionary *d = NULL;
        char *kv;
        while (rest && (kv = strsep(&rest, ":"))) {
            char *k = strsep(&kv, "=");
            vmaf_feature_dictionary_set(&d, k, kv);
        }
        int err = vmaf_use_feature(v, name, d);
        if (err) return err;
    }
    return 0;
}

static int use_model(Run *run, const char *version)
{
    if (!version) return 0;
    VmafModelConfig cfg = { .name = "vmaf" };
    int err = vmaf_model_load(&run->model, &cfg, version);
    if (err == -EINVAL) {
        err = vmaf_model_collection_load(&run->model, &run->collection, &cfg, version);
        if (!err) err = vmaf_use_features_from_model_collection(run->v, run->collection);
        return err;
    }
    if (!err) err = vmaf_use_features_from_model(run->v, run->model);
    return err;
}

static int open_run(Run *run, const CheckCase *c, const CheckEnv *device, uint64_t seed,
                    const char *clips)
{
    VmafConfiguration cfg = { .n_subsample = c->subsample, .n_threads = c->threads,
                              .log_level = VMAF_LOG_LEVEL_ERROR };
    int err = vmaf_init(&run->v, cfg);
    if (err) return err;
    VmafCudaState *state = device && device->backend == CHECK_CUDA ? device->state : NULL;
    run->state = state;
    run->device = device;
    run->clips = clips;
    if (device && device->backend == CHECK_OPENCL) {
        run->source = SRC_PAGEABLE;
        err = vmaf_opencl_import_state(run->v, device->cl_state);
        if (err) return err;
    }
    if (state) {
        err = vmaf_cuda_import_state(run->v, state);
        if (err) return err;
    }
    if (state && run->source != SRC_PAGEABLE) {
        const VmafCudaPictureConfiguration pc = {
            .pic_params = { c->w, c->h, c->bpc, c->fmt },
            .pic_prealloc_method = run->source == SRC_DEVICE
                                       ? VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE
                                       : VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
        };
        err = vmaf_cuda_preallocate_pictures(run->v, pc);
        if (err) return err;
    }
    run->rng.s = seed;
    run->index = 0;
    err = use_model(run, c->model);
    return err ? err : use_features(run->v, c->features);
}

/* A device picture gets the samples of a host one (same layout). */
static int to_device(Run *run, const CheckCase *c, VmafPicture *host, VmafPicture *dev)
{
    VmafPictureLayout l;
    int err = vmaf_picture_layout(&l, c->fmt, c->bpc, c->w, c->h);
    if (!err) err = vmaf_cuda_fetch_preallocated_picture(run->v, dev);
    if (err) {
        vmaf_picture_unref(host);
        return err;
    }
#if CHECKTWIN_CUDA
    VmafCudaState *s = run->state;
    err = vmaf_cuda_push(s);
    if (!err) {
        err = vmaf_cuda_result(&s->drv,
                               s->drv.cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dev->data[0],
                                                        host->data[0], l.size, NULL),
                               "upload test picture");
        if (!err) err = vmaf_cuda_result(&s->drv, s->drv.cuCtxSynchronize(), "sync");
        vmaf_cuda_pop(s);
    }
#else
    err = -ENOSYS; /* device pictures: CUDA only */
#endif
    vmaf_picture_unref(host);
    return err;
}

static int get_picture(Run *run, const CheckCase *c, VmafPicture *pic)
{
    if (run->state && run->source == SRC_PINNED)
        return vmaf_cuda_fetch_preallocated_picture(run->v, pic);
    return vmaf_picture_alloc(pic, c->fmt, c->bpc, c->w, c->h);
}

static int fill_frame(Run *run, const CheckCase *c, VmafPicture *ref, VmafPicture *dist)
{
    if (c->clip) {
        ClipFrame f = { 0 };
        int err = read_clip_frame(run->clips, c->clip, "ref", run->index, &f);
        if (!err) resample_into(&f, ref);
        free_clip_frame(&f);
        if (err) return err;
        if (c->distortion == DIST_CODEC) {
            err = read_clip_frame(run->clips, c->clip, "dis", run->index, &f);
            if (!err) resample_into(&f, dist);
            free_clip_frame(&f);
            return err;
        }
        distort(ref, dist, c->distortion, &run->rng);
        return 0;
    }
    const enum CheckPattern pat =
        (enum CheckPattern)((run->index + (checktwin_rand(&run->rng) & 1)) % PAT_COUNT);
    fill_pattern(ref, &run->rng, pat == PAT_FLAT ? PAT_RANDOM : pat, 0);
    if (run->index % 7 == 3) {
        for (unsigned p = 0; p < 3; p++)
            if (ref->data[p])
                memcpy(dist->data[p], ref->data[p], (size_t)ref->stride[p] * ref->h[p]);
    } else {
        fill_pattern(dist, &run->rng, pat, 1);
    }
    return 0;
}

static int feed(Run *run, const CheckCase *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++, run->index++) {
        VmafPicture ref, dist;
        int err = get_picture(run, c, &ref);
        if (err) return err;
        err = get_picture(run, c, &dist);
        if (err) {
            vmaf_picture_unref(&ref);
            return err;
        }
        err = fill_frame(run, c, &ref, &dist);
        if (!err && run->state && run->source == SRC_DEVICE) {
            VmafPicture dref, ddist;
            err = to_device(run, c, &ref, &dref);
            if (!err) err = to_device(run, c, &dist, &ddist);
            else vmaf_picture_unref(&dist);
            if (err) return err;
            ref = dref;
            dist = ddist;
        }
        if (err) {
            vmaf_picture_unref(&ref);
            vmaf_picture_unref(&dist);
            return err;
        }
        err = vmaf_read_pictures(run->v, &ref, &dist, run->index);
        if (err) {
            /* as the reference, a refused frame may leave the pictures with the caller */
            if (ref.ref) vmaf_picture_unref(&ref);
            if (dist.ref) vmaf_picture_unref(&dist);
            return err;
        }
    }
    return 0;
}

static int finish(Run *run, const char *path)
{
    int err = vmaf_read_pictures(run->v, NULL, NULL, 0);
    if (!err && run->model && run->index) {
        double score;
        err = vmaf_score_pooled(run->v, run->model, VMAF_POOL_METHOD_MEAN, &score, 0,
                                run->index - 1);
    }
    if (!err && run->collection && run->index) {
        VmafModelCollectionScore score = { 0 };
        err = vmaf_score_pooled_model_collection(run->v, run->collection, VMAF_POOL_METHOD_MEAN,
                                                 &score, 0, run->index - 1);
    }
    if (!err) err = vmaf_write_output_with_precision(run->v, path, VMAF_OUTPUT_FORMAT_JSON, 17);
    vmaf_close(run->v);
    if (run->collection) vmaf_model_collection_destroy(run->collection);
    else if (run->model) vmaf_model_destroy(run->model);
    run->v = NULL;
    run->model = NULL;
    run->collection = NULL;
    return err;
}

/* A run that failed before its output: close its context and free its models. */
static int finish_failed(Run *run)
{
    if (run->v) vmaf_close(run->v);
    run->v = NULL;
    if (run->collection) vmaf_model_collection_destroy(run->collection);
    else if (run->model) vmaf_model_destroy(run->model);
    run->model = NULL;
    run->collection = NULL;
    return 0;
}

/* Both outputs equal, ignoring the "fps" line. */
static int same_output(const char *a, const char *b, char *why, size_t why_sz)
{
    FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
    int same = fa && fb;
    if (!same) snprintf(why, why_sz, "no output file");
    char la[4096], lb[4096];
    unsigned line = 0;
    while (same) {
        char *ra = fgets(la, sizeof(la), fa), *rb = fgets(lb, sizeof(lb), fb);
        line++;
        if (!ra || !rb) {
            same = !ra && !rb;
            if (!same) snprintf(why, why_sz, "lengths differ at line %u", line);
            break;
        }
        if (strstr(la, "\"fps\"") && strstr(lb, "\"fps\"")) continue;
        if (strcmp(la, lb)) {
            la[strcspn(la, "\n")] = lb[strcspn(lb, "\n")] = '\0';
            snprintf(why, why_sz, "line %u: cpu {%s} cuda {%s}", line, la, lb);
            same = 0;
        }
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

static const char *fmt_name(enum VmafPixelFormat f)
{
    return f == VMAF_PIX_FMT_YUV420P ? "420" : f == VMAF_PIX_FMT_YUV422P ? "422" : "444";
}

static const char *dist_name(enum CheckDistortion d)
{
    static const char *const names[] = { "codec", "blur", "noise", "quant" };
    return names[d];
}

/* --only's list: FAMILY[,FAMILY...] (and --allow-cpu's, of extractors) */
static bool family_selected(const char *only, const char *name)
{
    if (!only) return true;
    const size_t n = strlen(name);
    for (const char *p = only; *p;) {
        const size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, name, n)) return true;
        p += len + (p[len] == ',');
    }
    return false;
}

/* The first extractor of a started context that has a twin but ran on the CPU, or NULL;
 * those of allow_cpu (EXTRACTOR[,...], or NULL) do not count. */
static const char *extractor_off_device(const VmafContext *v, const char *allow_cpu)
{
    if (!v->geometry.set) return NULL;
    for (unsigned i = 0; i < v->inst_cnt; i++)
        if (!v->inst[i]->on_gpu && vmaf_gpu_twin_for(v->inst[i]->fex->name) &&
            !(allow_cpu && family_selected(allow_cpu, v->inst[i]->fex->name)))
            return v->inst[i]->fex->name;
    return NULL;
}

void checktwin_case(CheckEnv *env, const CheckCase *c)
{
    if (c->clip && !env->clips) return; /* real content needs --clips */
    const uint64_t seed = env->seed + env->n_cases;
    char cpu_path[512], gpu_path[512], why[8300] = "";
    snprintf(cpu_path, sizeof(cpu_path), "%s/checktwin_cpu.json", env->dir);
    snprintf(gpu_path, sizeof(gpu_path), "%s/checktwin_cuda.json", env->dir);
    if (c->graph) unsetenv("VMAF_CUDA_NO_GRAPH");
    else setenv("VMAF_CUDA_NO_GRAPH", "1", 1);
    Run cpu = { .source = SRC_PAGEABLE }, gpu = { .source = c->source };
    /* each side on its own: a case the CPU refuses (e.g. options invalid for a tiny frame)
     * must be refused by the CUDA context at the same step with the same error */
    int cpu_stage = 1, gpu_stage = 1;
    int cpu_err = open_run(&cpu, c, NULL, seed, env->clips);
    if (!cpu_err) cpu_stage = 2, cpu_err = feed(&cpu, c, c->frames);
    int gpu_err = open_run(&gpu, c, env, seed, env->clips);
    if (!gpu_err) gpu_stage = 2, gpu_err = feed(&gpu, c, c->frames);
    /* (a context that refused its input at the start made no backend: nothing to say) */
    const char *off_device = gpu.v && !gpu_err ? extractor_off_device(gpu.v, env->allow_cpu)
                                               : NULL;
    const int e1 = cpu_err ? finish_failed(&cpu) : finish(&cpu, cpu_path);
    const int e2 = gpu_err ? finish_failed(&gpu) : finish(&gpu, gpu_path);
    env->n_cases++;
    if (off_device) env->n_off_device++;
    if (off_device && env->all_on_device) {
        env->n_failed++;
        printf("FAIL %ux%u %u-bit model %s features %s: %s ran on the CPU (seed %llu)\n", c->w,
               c->h, c->bpc, c->model ? c->model : "-",
               c->features && c->features[0] ? c->features[0] : "-", off_device,
               (unsigned long long)seed);
        return;
    }
    if (cpu_err && cpu_err == gpu_err && cpu_stage == gpu_stage) {
        env->n_refused++; /* refused alike: what the CPU path does, the twin does */
        return;
    }
    const int err = cpu_err ? cpu_err : gpu_err;
    if (err || e1 || e2 || !same_output(cpu_path, gpu_path, why, sizeof(why))) {
        env->n_failed++;
        printf("FAIL %ux%u %s %u-bit frames %u subsample %u threads %u graph %d source %d "
               "model %s features %s%s clip %s/%s: %s%s (seed %llu)\n",
               c->w, c->h, fmt_name(c->fmt), c->bpc, c->frames, c->subsample, c->threads,
               c->graph, c->source, c->model ? c->model : "-",
               c->features && c->features[0] ? c->features[0] : "-",
               c->features && c->features[0] && c->features[1] ? ",..." : "",
               c->clip ? c->clip->name : "-", c->clip ? dist_name(c->distortion) : "-",
               err || e1 || e2 ? "error " : "", why, (unsigned long long)seed);
        if (err || e1 || e2)
            printf("     errors: cpu %d (step %d) cuda %d (step %d), finish %d %d\n", cpu_err,
                   cpu_stage, gpu_err, gpu_stage, e1, e2);
        fflush(stdout);
    }
}

void checktwin_shared_state(CheckEnv *env, const char *const *features, const char *model)
{
    const uint64_t seed = env->seed + env->n_cases;
    const CheckCase a = { .w = 67, .h = 35, .bpc = 10, .frames = 6, .subsample = 1,
                          .fmt = VMAF_PIX_FMT_YUV420P, .graph = true, .features = features,
                          .model = model };
    const CheckCase b = { .w = 40, .h = 52, .bpc = 8, .frames = 6, .subsample = 1,
                          .fmt = VMAF_PIX_FMT_YUV444P, .graph = true, .features = features,
                          .model = model };
    unsetenv("VMAF_CUDA_NO_GRAPH");
    Run ga = { 0 }, gb = { 0 }, ca = { 0 }, cb = { 0 };
    int err = open_run(&ga, &a, env, seed, NULL);
    if (!err) err = open_run(&gb, &b, env, seed + 1, NULL);
    if (!err) err = open_run(&ca, &a, NULL, seed, NULL);
    if (!err) err = open_run(&cb, &b, NULL, seed + 1, NULL);
    for (unsigned i = 0; !err && i < a.frames; i++) {
        err = feed(&ga, &a, 1);
        if (!err) err = feed(&gb, &b, 1);
        if (!err) err = feed(&ca, &a, 1);
        if (!err) err = feed(&cb, &b, 1);
    }
    char p[4][512], why[8300] = "";
    for (int i = 0; i < 4; i++)
        snprintf(p[i], sizeof(p[i]), "%s/checktwin_shared%d.json", env->dir, i);
    Run *runs[4] = { &ga, &gb, &ca, &cb };
    for (int i = 0; i < 4; i++) {
        const int e = runs[i]->v ? finish(runs[i], p[i]) : 0;
        if (!err) err = e;
    }
    env->n_cases++;
    if (err || !same_output(p[2], p[0], why, sizeof(why)) ||
        !same_output(p[3], p[1], why, sizeof(why))) {
        env->n_failed++;
        printf("FAIL two contexts on one state (model %s): %s (err %d, seed %llu)\n",
               model ? model : "-", why, err, (unsigned long long)seed);
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

void checktwin_bench(CheckEnv *env, const CheckCase *c)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/checktwin_bench.json", env->dir);
    setenv("VMAF_CUDA_PROFILE", "ops", 1);
    unsetenv("VMAF_CUDA_NO_GRAPH");
    Run gpu = { .source = c->source };
    const double t0 = now_s();
    int err = open_run(&gpu, c, env, env->seed, env->clips);
    if (!err) err = feed(&gpu, c, c->frames);
    if (gpu.v) {
        const int e = finish(&gpu, path);
        if (!err) err = e;
    }
    printf("bench %ux%u %u-bit %u frames model %s features %s: %s (%.2f s incl. frame synthesis)\n",
           c->w, c->h, c->bpc, c->frames, c->model ? c->model : "-",
           c->features && c->features[0] ? c->features[0] : "-", err ? strerror(-err) : "ok",
           now_s() - t0);
    unsetenv("VMAF_CUDA_PROFILE");
}

typedef struct Family {
    const char *name;
    void (*run)(CheckEnv *env);
} Family;

static const Family families[] = {
    { "psnr_motion", checktwin_psnr_motion },
    { "vif", checktwin_vif },
    { "adm", checktwin_adm },
    { "speed", checktwin_speed },
    { "float", checktwin_float },
    { "ssim", checktwin_ssim },
    { "cambi", checktwin_cambi },
    { "ciede", checktwin_ciede },
};

int main(int argc, char **argv)
{
    CheckEnv env = { .seed = (uint64_t)time(NULL), .dir = "/tmp" };
    const char *only = NULL;
    int cl_device = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) env.seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick")) env.quick = true;
        else if (!strcmp(argv[i], "--bench")) env.bench = true;
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc) env.dir = argv[++i];
        else if (!strcmp(argv[i], "--clips") && i + 1 < argc) env.clips = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--all-on-device")) env.all_on_device = true;
        else if (!strcmp(argv[i], "--allow-cpu") && i + 1 < argc) env.allow_cpu = argv[++i];
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc && !strcmp(argv[i + 1], "cuda"))
            env.backend = CHECK_CUDA, i++;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc && !strcmp(argv[i + 1], "opencl"))
            env.backend = CHECK_OPENCL, i++;
        else if (!strcmp(argv[i], "--opencl_device") && i + 1 < argc)
            cl_device = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: checktwin [--backend cuda|opencl] [--opencl_device N] "
                            "[--all-on-device [--allow-cpu EXTRACTOR[,...]]] [--seed N] [--quick] [--bench] [--dir DIR] "
                            "[--clips DIR] [--only FAMILY[,FAMILY...]]\n");
            return 2;
        }
    }
    int err;
    if (env.backend == CHECK_OPENCL) {
        err = vmaf_opencl_state_init(&env.cl_state, (VmafOpenCLConfiguration){ .device = cl_device });
        if (err) {
            printf("checktwin: no OpenCL device %d (%s), skipped\n", cl_device, strerror(-err));
            return 77;
        }
        VmafOpenCLDeviceInfo info;
        if (!vmaf_opencl_device_info(cl_device, &info))
            printf("checktwin: OpenCL device %d: %s (%s, %s)%s\n", cl_device, info.name,
                   info.platform, info.driver_version,
                   vmaf_opencl_uses_fp64(&info) ? "" : ", doubles in software (no fp64 used)");
    } else {
        err = vmaf_cuda_state_init(&env.state, (VmafCudaConfiguration){ 0 });
        if (err) {
            printf("checktwin: no CUDA device (%s), skipped\n", strerror(-err));
            return 77;
        }
    }
    printf("checktwin: seed %llu%s\n", (unsigned long long)env.seed,
           env.clips ? "" : " (no --clips: real-content cases skipped)");
    const double t0 = now_s();
    for (unsigned i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
        if (!family_selected(only, families[i].name)) continue;
        const unsigned cases = env.n_cases, failed = env.n_failed, refused = env.n_refused;
        const unsigned off = env.n_off_device;
        const double t = now_s();
        families[i].run(&env);
        printf("checktwin: %-12s %4u cases, %u failed, %u refused alike, %u partly on the CPU "
               "(%.1f s)\n", families[i].name, env.n_cases - cases, env.n_failed - failed,
               env.n_refused - refused, env.n_off_device - off, now_s() - t);
        fflush(stdout);
    }
    printf("checktwin: %u cases, %u failed (%.1f s)\n", env.n_cases, env.n_failed, now_s() - t0);
    if (env.state) vmaf_cuda_state_free(env.state);
    if (env.cl_state) vmaf_opencl_state_free(env.cl_state);
    return env.n_failed ? 1 : 0;
}
