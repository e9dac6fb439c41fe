/*
 * checktwin: every GPU twin against its CPU extractor, like dav1d's checkasm.
 *
 * For each case (size, bit depth, pixel format, graph on/off, n_subsample, extractor set) the
 * same seeded frames (random, extremes, flat, identical) go through a CPU context and a CUDA
 * context; both write their complete output (%.17g, every metric, frame, pooled value and
 * aggregate) and the two files must be identical apart from the fps line. Also: two CUDA
 * contexts of different geometry interleaved on one state, and a state reused with another
 * geometry. Exit 77 (skipped) without a CUDA device.
 *
 *   checktwin [--seed N] [--quick] [--bench]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "cuda/state.h"
#include "output.h"
#include "picture.h"

typedef struct Rng {
    uint64_t s;
} Rng;

static uint32_t rnd(Rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 16);
}

enum Pattern { RANDOM, EXTREME, CHECKER, NOISE, FLAT, N_PATTERNS };

static void fill(VmafPicture *p, Rng *r, enum Pattern pat, int is_dist)
{
    const unsigned max = (1u << p->bpc) - 1;
    for (unsigned c = 0; c < 3; c++) {
        if (!p->data[c]) continue;
        for (unsigned y = 0; y < p->h[c]; y++) {
            for (unsigned x = 0; x < p->w[c]; x++) {
                unsigned v;
                switch (pat) {
                case RANDOM: v = rnd(r) % (max + 1); break;
                case EXTREME: v = is_dist ? max : 0; break;
                case CHECKER: v = ((x ^ y ^ (unsigned)is_dist) & 1) ? max : 0; break;
                case NOISE: {
                    const int n = (int)(max / 2) + (int)(rnd(r) % 9) - 4;
                    v = (unsigned)n;
                    break;
                }
                default: v = (x * 7 + y * 3) % (max + 1); break;
                }
                if (p->bpc == 8) ((uint8_t *)p->data[c])[y * p->stride[c] + x] = (uint8_t)v;
                else ((uint16_t *)((uint8_t *)p->data[c] + y * p->stride[c]))[x] = (uint16_t)v;
            }
        }
    }
}

typedef struct Case {
    unsigned w, h, bpc, frames, subsample;
    enum VmafPixelFormat fmt;
    int graph;
    const char *const *features; /* NULL-terminated "name[=k=v:...]" */
} Case;

static int use_features(VmafContext *v, const char *const *features)
{
    for (unsigned i = 0; features[i]; i++) {
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

/* Where the pictures come from: vmaf_picture_alloc (pageable), or the context's CUDA pool. */
enum Source { PAGEABLE, POOL_PINNED, POOL_DEVICE };

typedef struct Run {
    VmafContext *v;
    Rng rng;
    unsigned index;
    enum Source source;
    VmafCudaState *state;
} Run;

static int open_run(Run *run, const Case *c, VmafCudaState *state, uint64_t seed)
{
    VmafConfiguration cfg = { .n_subsample = c->subsample };
    int err = vmaf_init(&run->v, cfg);
    if (err) return err;
    run->state = state;
    if (state) {
        err = vmaf_cuda_import_state(run->v, state);
        if (err) return err;
    }
    if (run->source != PAGEABLE) {
        const VmafCudaPictureConfiguration pc = {
            .pic_params = { c->w, c->h, c->bpc, c->fmt },
            .pic_prealloc_method = run->source == POOL_DEVICE
                                       ? VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE
                                       : VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
        };
        err = vmaf_cuda_preallocate_pictures(run->v, pc);
        if (err) return err;
    }
    run->rng.s = seed;
    run->index = 0;
    return use_features(run->v, c->features);
}

/* A device picture gets the samples of a host one (same layout). */
static int to_device(Run *run, const Case *c, VmafPicture *host, VmafPicture *dev)
{
    VmafPictureLayout l;
    int err = vmaf_picture_layout(&l, c->fmt, c->bpc, c->w, c->h);
    if (!err) err = vmaf_cuda_fetch_preallocated_picture(run->v, dev);
    if (err) return err;
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
    vmaf_picture_unref(host);
    return err;
}

static int get_picture(Run *run, const Case *c, VmafPicture *pic)
{
    if (run->source == POOL_PINNED) return vmaf_cuda_fetch_preallocated_picture(run->v, pic);
    return vmaf_picture_alloc(pic, c->fmt, c->bpc, c->w, c->h);
}

static int feed(Run *run, const Case *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++, run->index++) {
        VmafPicture ref, dist;
        int err = get_picture(run, c, &ref);
        if (err) return err;
        err = get_picture(run, c, &dist);
        if (err) return err;
        const enum Pattern pat = (enum Pattern)((run->index + (rnd(&run->rng) & 1)) % N_PATTERNS);
        fill(&ref, &run->rng, pat == FLAT ? RANDOM : pat, 0);
        if (run->index % 7 == 3) {
            /* identical pictures */
            memcpy(dist.data[0], ref.data[0], (size_t)ref.stride[0] * ref.h[0] +
                   (ref.data[1] ? 2 * (size_t)ref.stride[1] * ref.h[1] : 0));
        } else {
            fill(&dist, &run->rng, pat, 1);
        }
        if (run->source == POOL_DEVICE) {
            VmafPicture dref, ddist;
            err = to_device(run, c, &ref, &dref);
            if (!err) err = to_device(run, c, &dist, &ddist);
            if (err) return err;
            ref = dref;
            dist = ddist;
        }
        err = vmaf_read_pictures(run->v, &ref, &dist, run->index);
        if (err) return err;
    }
    return 0;
}

static int finish(Run *run, const char *path)
{
    int err = vmaf_read_pictures(run->v, NULL, NULL, 0);
    if (!err) err = vmaf_write_output_with_precision(run->v, path, VMAF_OUTPUT_FORMAT_JSON, 17);
    vmaf_close(run->v);
    run->v = NULL;
    return err;
}

/* Both outputs equal, ignoring the "fps" line. */
static int same_output(const char *a, const char *b, char *why, size_t why_sz)
{
    FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
    int same = fa && fb;
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

static unsigned n_cases, n_failed;

static void check_case(VmafCudaState *state, const Case *c, uint64_t seed, const char *dir,
                       enum Source source)
{
    char cpu_path[512], gpu_path[512], why[8300] = "";
    snprintf(cpu_path, sizeof(cpu_path), "%s/checktwin_cpu.json", dir);
    snprintf(gpu_path, sizeof(gpu_path), "%s/checktwin_cuda.json", dir);
    if (c->graph) unsetenv("VMAF_CUDA_NO_GRAPH");
    else setenv("VMAF_CUDA_NO_GRAPH", "1", 1);
    Run cpu = { 0 }, gpu = { .source = source };
    int err = open_run(&cpu, c, NULL, seed);
    if (!err) err = open_run(&gpu, c, state, seed);
    if (!err) err = feed(&cpu, c, c->frames);
    if (!err) err = feed(&gpu, c, c->frames);
    const int e1 = cpu.v ? finish(&cpu, cpu_path) : err;
    const int e2 = gpu.v ? finish(&gpu, gpu_path) : err;
    n_cases++;
    if (err || e1 || e2 || !same_output(cpu_path, gpu_path, why, sizeof(why))) {
        n_failed++;
        printf("FAIL %ux%u %s %u-bit subsample %u graph %d source %d features %s...: %s%s (seed %llu)\n",
               c->w, c->h, fmt_name(c->fmt), c->bpc, c->subsample, c->graph, source, c->features[0],
               err || e1 || e2 ? "error " : "", why, (unsigned long long)seed);
        if (err || e1 || e2) printf("     errors %d %d %d\n", err, e1, e2);
    }
}

/* Two CUDA contexts of different geometry interleaved on one state, each against the CPU. */
static void check_shared_state(VmafCudaState *state, const char *const *features, uint64_t seed,
                               const char *dir)
{
    const Case a = { 67, 35, 10, 6, 1, VMAF_PIX_FMT_YUV420P, 1, features };
    const Case b = { 40, 52, 8, 6, 1, VMAF_PIX_FMT_YUV444P, 1, features };
    Run ga = { 0 }, gb = { 0 }, ca = { 0 }, cb = { 0 };
    int err = open_run(&ga, &a, state, seed) | open_run(&gb, &b, state, seed + 1) |
              open_run(&ca, &a, NULL, seed) | open_run(&cb, &b, NULL, seed + 1);
    for (unsigned i = 0; !err && i < a.frames; i++)
        err = feed(&ga, &a, 1) | feed(&gb, &b, 1) | feed(&ca, &a, 1) | feed(&cb, &b, 1);
    char p[4][512], why[8300] = "";
    for (int i = 0; i < 4; i++) snprintf(p[i], sizeof(p[i]), "%s/checktwin_shared%d.json", dir, i);
    err |= finish(&ga, p[0]) | finish(&gb, p[1]) | finish(&ca, p[2]) | finish(&cb, p[3]);
    n_cases++;
    if (err || !same_output(p[2], p[0], why, sizeof(why)) || !same_output(p[3], p[1], why, sizeof(why))) {
        n_failed++;
        printf("FAIL two contexts on one state: %s (err %d, seed %llu)\n", why, err,
               (unsigned long long)seed);
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    int quick = 0, bench = 0;
    const char *dir = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--bench")) bench = 1;
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    }
    VmafCudaState *state;
    int err = vmaf_cuda_state_init(&state, (VmafCudaConfiguration){ 0 });
    if (err) {
        printf("checktwin: no CUDA device (%s), skipped\n", strerror(-err));
        return 77;
    }
    printf("checktwin: seed %llu\n", (unsigned long long)seed);

    static const char *const all8[] = { "psnr=enable_mse=true:enable_apsnr=true", "motion",
                                        "motion_v2=motion_five_frame_window=true:motion_moving_average=true",
                                        "psnr_hvs", NULL };
    static const char *const hbd[] = { "psnr=enable_mse=true:enable_apsnr=true:reduced_hbd_peak=true",
                                       "motion", "motion_v2=motion_five_frame_window=true", NULL };
    static const char *const opts[] = { "psnr=enable_chroma=false:min_sse=0.5",
                                        "motion=motion_force_zero=true",
                                        "motion_v2=motion_fps_weight=2:motion_max_val=3", NULL };
    static const unsigned sizes[][2] = { { 3, 3 }, { 4, 7 }, { 17, 17 }, { 33, 21 }, { 64, 64 },
                                         { 257, 145 }, { 1025, 3 }, { 320, 181 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    const double t0 = now_s();
    const unsigned n_sizes = quick ? 4 : sizeof(sizes) / sizeof(sizes[0]);
    for (unsigned s = 0; s < n_sizes; s++) {
        for (unsigned d = 0; d < 6; d++) {
            for (unsigned f = 0; f < 3; f++) {
                for (unsigned v = 0; v < 4; v++) {
                    const unsigned bpc = depths[d];
                    const char *const *features = v == 3 ? opts : bpc <= 12 ? all8 : hbd;
                    const Case c = { sizes[s][0], sizes[s][1], bpc, 7, (v & 1) ? 3 : 1, fmts[f],
                                     !(v & 2), features };
                    check_case(state, &c, seed + n_cases, dir, (enum Source)((s + d + f + v) % 3));
                }
            }
        }
    }
    /* large frames: a few combinations */
    static const unsigned big[][3] = { { 1920, 1080, 8 }, { 1921, 1081, 10 }, { 3840, 2160, 8 },
                                       { 4096, 2160, 12 } };
    for (unsigned i = 0; i < (quick ? 1u : 4u); i++) {
        const Case c = { big[i][0], big[i][1], big[i][2], 4, 1, VMAF_PIX_FMT_YUV420P, i & 1,
                         big[i][2] <= 12 ? all8 : hbd };
        check_case(state, &c, seed + n_cases, dir, (enum Source)(i % 3));
    }
    check_shared_state(state, all8, seed + n_cases, dir);
    printf("checktwin: %u cases, %u failed (%.1f s)\n", n_cases, n_failed, now_s() - t0);

    if (bench) {
        static const char *const bench_features[] = { "psnr", "motion", "motion_v2", "psnr_hvs", NULL };
        const Case c = { 3840, 2160, 8, 60, 1, VMAF_PIX_FMT_YUV420P, 1, bench_features };
        setenv("VMAF_CUDA_PROFILE", "1", 1);
        Run gpu = { 0 };
        char path[512];
        snprintf(path, sizeof(path), "%s/checktwin_bench.json", dir);
        if (!open_run(&gpu, &c, state, seed) && !feed(&gpu, &c, c.frames)) finish(&gpu, path);
        unsetenv("VMAF_CUDA_PROFILE");
    }
    vmaf_cuda_state_free(state);
    return n_failed ? 1 : 0;
}
