/*
 * checktwin family: integer vif. Every option set (the gain limit changes the per-pixel
 * arithmetic, skip scale 0 the kernels' work, debug adds every num/den, which says which
 * scale differs when one does), sizes 3x3 .. 4096x2160 with tiny and odd ones (empty scales
 * give NaN scores), every depth 8..16, the three chroma formats, graph on/off, n_subsample 1
 * and 3, the three picture sources, thread counts, two geometries on one state, and real
 * content: every shared clip at its size and resampled, with its codec and with blur, noise
 * and quantisation.
 *
 * Before the whole-output cases, the kernels alone (launched directly, as the twin's plan and
 * arguments say) against the CPU's intermediate buffers: the subsampled images of scales 1..3
 * sample for sample and each scale's four int64 sums. When the outputs differ, these say
 * which scale and which pass (subsampling or statistic), and where.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checktwin.h"
#if CHECKTWIN_CUDA
#include "cuda/state.h"
#endif
#include "feature/vif.h"
#include "feature/vif_device.h"
#include "feature/vif_internal.h"

/* Two instances in one context where their names differ (P options), debug outputs on. */
static const char *const opts_debug[] = { "vif=debug=true",
                                          "vif=vif_enhn_gain_limit=1.0:debug=true", NULL };
static const char *const opts_skip[] = { "vif=vif_skip_scale0=true:debug=true",
                                         "vif=vif_enhn_gain_limit=1.5", NULL };
static const char *const opts_plain[] = { "vif", NULL };
static const char *const *const option_sets[] = { opts_debug, opts_skip, opts_plain };
enum { N_SETS = 3 };

/* ------------------------------------------------------------------------------------- */
/* The kernels against the CPU's intermediate buffers                                    */

#if CHECKTWIN_CUDA
typedef struct KernelRun {
    VmafCudaState *s;
    CUdeviceptr ref, dis, images, sums, table;
} KernelRun;

static int kernel_alloc(KernelRun *k, CUdeviceptr *p, size_t bytes)
{
    return vmaf_cuda_result(&k->s->drv, k->s->drv.cuMemAlloc(p, bytes ? bytes : 16), "cuMemAlloc");
}

static void kernel_free(KernelRun *k)
{
    CUdeviceptr *p[] = { &k->ref, &k->dis, &k->images, &k->sums, &k->table };
    for (unsigned i = 0; i < sizeof(p) / sizeof(p[0]); i++)
        if (*p[i]) k->s->drv.cuMemFree(*p[i]);
}

static int kernel_launch(KernelRun *k, const char *name, unsigned gx, unsigned gy,
                         unsigned threads, void *args, size_t size)
{
    CUfunction fn;
    int err = vmaf_cuda_kernel(k->s, name, &fn);
    if (err) return err;
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      CU_LAUNCH_PARAM_END };
    return vmaf_cuda_result(&k->s->drv,
                            k->s->drv.cuLaunchKernel(fn, gx, gy, 1, threads, 1, 1, 0, NULL, NULL,
                                                     extra),
                            name);
}

/* One frame through the kernels; images (plan layout) and sums come back. */
static int kernel_frame(KernelRun *k, const VifDevPlan *p, const void *ref, const void *dis,
                        size_t plane_bytes, size_t stride, unsigned bpc,
                        const VmafVifOptions *o, const uint16_t *table, unsigned char *images,
                        VmafVifSums sums[VMAF_VIF_SCALES])
{
    const VmafCudaDriver *d = &k->s->drv;
    const size_t table_bytes = VIF_DEV_LOG2_PACKED_LEN * sizeof(uint16_t); /* packed */
    int err = kernel_alloc(k, &k->ref, plane_bytes);
    if (!err) err = kernel_alloc(k, &k->dis, plane_bytes);
    if (!err) err = kernel_alloc(k, &k->images, p->image_bytes);
    if (!err) err = kernel_alloc(k, &k->sums, VMAF_VIF_SCALES * sizeof(VmafVifSums));
    if (!err) err = kernel_alloc(k, &k->table, table_bytes);
    if (!err) err = vmaf_cuda_result(d, d->cuMemcpyHtoDAsync(k->ref, ref, plane_bytes, NULL), "up");
    if (!err) err = vmaf_cuda_result(d, d->cuMemcpyHtoDAsync(k->dis, dis, plane_bytes, NULL), "up");
    if (!err) err = vmaf_cuda_result(d, d->cuMemcpyHtoDAsync(k->table, table, table_bytes, NULL), "up");
    if (!err && p->image_bytes) /* garbage: every sample the kernels should write */
        err = vmaf_cuda_result(d, d->cuMemsetD8Async(k->images, 0xa5, p->image_bytes, NULL), "set");
    if (!err)
        err = vmaf_cuda_result(d, d->cuMemsetD8Async(k->sums, 0,
                                                     VMAF_VIF_SCALES * sizeof(VmafVifSums), NULL),
                               "set");
    for (int s = 0; !err && s < VMAF_VIF_SCALES && p->w[s]; s++) {
        VifCudaArgs a;
        if (vif_dev_scale_args(&a, p, s, bpc, o, k->ref, k->dis, stride, k->images, k->sums,
                               k->table))
            err = kernel_launch(k, vif_dev_kernel_name(s, bpc), p->grid_x[s], p->grid_y[s],
                                VIF_CUDA_THREADS, &a, sizeof(a));
    }
    if (!err && p->image_bytes)
        err = vmaf_cuda_result(d, d->cuMemcpyDtoHAsync(images, k->images, p->image_bytes, NULL),
                               "down");
    if (!err)
        err = vmaf_cuda_result(d, d->cuMemcpyDtoHAsync(sums, k->sums,
                                                       VMAF_VIF_SCALES * sizeof(VmafVifSums), NULL),
                               "down");
    if (!err) err = vmaf_cuda_result(d, d->cuCtxSynchronize(), "sync");
    return err;
}

/* A seeded frame pair (smooth texture, dis = ref + noise, or random) through the kernels and
 * the CPU's plain build; reports the first differing image sample or scale sum. */
static void kernels_case(CheckEnv *env, unsigned w, unsigned h, unsigned bpc,
                         const VmafVifOptions *o)
{
    const uint64_t seed = env->seed + env->n_cases;
    CheckRng rng = { seed | 1 };
    const unsigned bytes = bpc > 8 ? 2 : 1, max = (1u << bpc) - 1;
    const size_t stride = (size_t)w * bytes, plane = stride * h;
    unsigned char *ref = malloc(plane), *dis = malloc(plane);
    /* the CPU's log2 table, then the kernels' packed copy */
    uint16_t *table = malloc((VMAF_VIF_LOG2_TABLE_LEN + VIF_DEV_LOG2_PACKED_LEN) * sizeof(uint16_t));
    VifDevPlan p;
    vif_dev_plan(&p, w, h);
    unsigned char *images = malloc(p.image_bytes + 16);
    char why[512] = "";
    int err = ref && dis && table && images ? 0 : -ENOMEM;
    const int random = checktwin_rand(&rng) % 3 == 0;
    for (size_t i = 0; !err && i < (size_t)w * h; i++) {
        const unsigned x = (unsigned)(i % w), y = (unsigned)(i / w);
        const unsigned base = (unsigned)(((x * 5 + y * 3) % 64) * (max / 64)) +
                              checktwin_rand(&rng) % (max / 4 + 1);
        unsigned r = random ? checktwin_rand(&rng) % (max + 1) : base > max ? max : base;
        int dv = (int)r + (int)(checktwin_rand(&rng) % (max / 8 + 1)) - (int)(max / 16);
        unsigned dd = random ? checktwin_rand(&rng) % (max + 1)
                             : dv < 0 ? 0 : dv > (int)max ? max : (unsigned)dv;
        if (bytes == 1) {
            ref[i] = (unsigned char)r;
            dis[i] = (unsigned char)dd;
        } else {
            ((uint16_t *)ref)[i] = (uint16_t)r;
            ((uint16_t *)dis)[i] = (uint16_t)dd;
        }
    }
    VmafVifSums want[VMAF_VIF_SCALES], got[VMAF_VIF_SCALES];
    VmafVifWorkspace *ws = NULL;
    if (!err) err = vmaf_vif_workspace_alloc(&ws, w, h, bpc);
    if (!err)
        err = vmaf_vif_compute_with(VMAF_VIF_IMPL_PLAIN, ws, ref, (ptrdiff_t)stride, dis,
                                    (ptrdiff_t)stride, o->enhn_gain_limit, o->skip_scale0, want);
    if (!err) {
        vmaf_vif_log2_table_fill(table);
        err = vif_dev_log2_pack(table, table + VMAF_VIF_LOG2_TABLE_LEN);
    }
    if (!err) {
        KernelRun k = { .s = env->state };
        err = vmaf_cuda_push(k.s);
        if (!err) {
            err = kernel_frame(&k, &p, ref, dis, plane, stride, bpc, o,
                               table + VMAF_VIF_LOG2_TABLE_LEN, images, got);
            kernel_free(&k);
            vmaf_cuda_pop(k.s);
        }
    }
    for (int s = 1; !err && !why[0] && s < VMAF_VIF_SCALES && p.w[s]; s++) {
        const size_t n = (size_t)p.w[s] * p.h[s];
        const uint16_t *r = (const uint16_t *)(images + p.image_offset[s]), *d = r + n;
        for (size_t i = 0; i < n && !why[0]; i++)
            if (r[i] != ws->img_ref[s][i] || d[i] != ws->img_dis[s][i])
                snprintf(why, sizeof(why),
                         "scale %d image (subsampling) differs at row %zu column %zu: ref %u "
                         "(cpu %u) dis %u (cpu %u)", s, i / p.w[s], i % p.w[s], r[i],
                         ws->img_ref[s][i], d[i], ws->img_dis[s][i]);
    }
    for (int s = 0; !err && !why[0] && s < VMAF_VIF_SCALES; s++)
        if (memcmp(&got[s], &want[s], sizeof(got[s])))
            snprintf(why, sizeof(why),
                     "scale %d sums (statistic) differ: gpu %" PRId64 " %" PRId64 " %" PRId64
                     " %" PRId64 ", cpu %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64, s,
                     got[s].num_log, got[s].den_log, got[s].num_non_log, got[s].den_non_log,
                     want[s].num_log, want[s].den_log, want[s].num_non_log, want[s].den_non_log);
    env->n_cases++;
    if (err || why[0]) {
        env->n_failed++;
        printf("FAIL vif kernels %ux%u %u-bit egl %g skip0 %d%s: %s%s (seed %llu)\n", w, h, bpc,
               o->enhn_gain_limit, o->skip_scale0, random ? " random" : "",
               err ? "error " : "", err ? strerror(-err) : why, (unsigned long long)seed);
        fflush(stdout);
    }
    vmaf_vif_workspace_free(&ws);
    free(ref);
    free(dis);
    free(table);
    free(images);
}

#endif /* CHECKTWIN_CUDA */

void checktwin_vif(CheckEnv *env)
{
    static const unsigned kernel_sizes[][2] = { { 1, 1 },   { 3, 3 },     { 2, 9 },
                                                { 17, 17 }, { 47, 15 },   { 49, 17 },
                                                { 96, 32 }, { 257, 145 }, { 1921, 1081 } };
    static const VmafVifOptions kernel_opts[] = { { 100.0, false, false },
                                                  { 1.0, false, false },
                                                  { 1.5, true, false } };
    const unsigned n_kernel_sizes = sizeof(kernel_sizes) / sizeof(kernel_sizes[0]);
    /* the CUDA kernels alone against the CPU's intermediate buffers (the whole twin, on any
     * backend, is checked by the cases below) */
#if CHECKTWIN_CUDA
    for (unsigned z = 0; env->backend == CHECK_CUDA && z < n_kernel_sizes; z++)
        for (unsigned bpc = 8; bpc <= 16; bpc++) {
            if (env->quick && bpc % 4) continue;
            kernels_case(env, kernel_sizes[z][0], kernel_sizes[z][1], bpc,
                         &kernel_opts[(z + bpc) % 3]);
        }
#else
    (void)n_kernel_sizes;
    (void)kernel_opts;
#endif

    static const unsigned sizes[][2] = { { 3, 3 },    { 4, 7 },    { 17, 17 }, { 33, 21 },
                                         { 64, 64 },  { 257, 145 }, { 1025, 3 }, { 3, 1025 },
                                         { 320, 181 }, { 100, 16 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    const unsigned n_sizes = env->quick ? 4 : sizeof(sizes) / sizeof(sizes[0]);
    const unsigned n_depths = sizeof(depths) / sizeof(depths[0]);
    unsigned v = 0;
    for (unsigned s = 0; s < n_sizes; s++) {
        for (unsigned d = 0; d < n_depths; d++) {
            if (env->quick && d % 3) continue;
            for (unsigned o = 0; o < N_SETS; o++, v++) {
                const CheckCase c = {
                    .w = sizes[s][0], .h = sizes[s][1], .bpc = depths[d], .frames = 7,
                    .subsample = (v & 1) ? 3 : 1, .fmt = fmts[v % 3], .graph = !(v & 2),
                    .features = option_sets[o],
                    .source = (enum CheckSource)((s + d + o) % SRC_COUNT),
                    .threads = (v / 4) % 3,
                };
                checktwin_case(env, &c);
            }
        }
    }
    /* large frames: several tiles at every scale, odd sizes, 4K */
    static const unsigned big[][3] = { { 1920, 1080, 8 }, { 1921, 1081, 10 }, { 3840, 2160, 8 },
                                       { 4096, 2160, 12 }, { 2001, 999, 16 } };
    for (unsigned i = 0; i < (env->quick ? 1u : 5u); i++) {
        const CheckCase c = { .w = big[i][0], .h = big[i][1], .bpc = big[i][2], .frames = 3,
                              .subsample = 1, .fmt = VMAF_PIX_FMT_YUV420P, .graph = i & 1,
                              .features = option_sets[i % N_SETS],
                              .source = (enum CheckSource)(i % SRC_COUNT), .threads = i & 1 };
        checktwin_case(env, &c);
    }
    /* real content: every clip at its own size (its codec), then resampled to other sizes
     * and depths with the synthetic distortions */
    static const unsigned resampled[][3] = { { 33, 19, 9 },   { 161, 97, 11 }, { 800, 450, 8 },
                                             { 70, 300, 14 }, { 513, 129, 16 }, { 1280, 720, 10 } };
    for (unsigned i = 0; i < checktwin_n_clips; i++) {
        const CheckClip *clip = &checktwin_clips[i];
        const CheckCase c = { .w = clip->w, .h = clip->h, .bpc = clip->bpc,
                              .frames = env->quick ? 3 : 6, .subsample = 1, .fmt = clip->fmt,
                              .graph = true, .features = option_sets[i % N_SETS], .clip = clip,
                              .distortion = DIST_CODEC,
                              .source = (enum CheckSource)(i % SRC_COUNT), .threads = i % 3 };
        checktwin_case(env, &c);
        if (env->quick) continue;
        for (unsigned d = DIST_BLUR; d <= DIST_QUANT; d++) {
            const unsigned *z = resampled[(i + d) % 6];
            const CheckCase r = { .w = z[0], .h = z[1], .bpc = z[2], .frames = 3,
                                  .subsample = 1, .fmt = clip->fmt, .graph = d & 1,
                                  .features = option_sets[(i + d) % N_SETS], .clip = clip,
                                  .distortion = (enum CheckDistortion)d,
                                  .source = (enum CheckSource)((i + d) % SRC_COUNT),
                                  .threads = d % 3 };
            checktwin_case(env, &r);
        }
    }
    /* the default model (its vif on the GPU, whatever else has a twin too) on real content */
    const CheckClip *boats = checktwin_clip("boats_576x324_420p");
    if (boats) {
        const CheckCase c = { .w = boats->w, .h = boats->h, .bpc = boats->bpc, .frames = 4,
                              .subsample = 1, .fmt = boats->fmt, .graph = true,
                              .model = "vmaf_v0.6.1", .clip = boats, .distortion = DIST_CODEC,
                              .source = SRC_PINNED, .threads = 1 };
        checktwin_case(env, &c);
    }
    checktwin_shared_state(env, opts_debug, NULL);
    if (env->bench) {
        const CheckCase c = { .w = 3840, .h = 2160, .bpc = 8, .frames = 60, .subsample = 1,
                              .fmt = VMAF_PIX_FMT_YUV420P, .graph = true,
                              .features = opts_plain, .source = SRC_PINNED };
        checktwin_bench(env, &c);
    }
}
