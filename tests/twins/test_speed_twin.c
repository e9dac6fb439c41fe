/*
 * The SpEED twins' arithmetic on the host: speed_device.h's functions run in the decomposition
 * of src/feature/cuda/speed.cu (one call per thread, the warp/block phases in order, the same
 * shared-memory hand-offs), compared bit for bit with the CPU engine's intermediates (centred
 * decimated image, window means, covariance, eigenvalues, regularity, solution, variances) and
 * final pair scores, on random frames with extremes, flat frames (singular), real clips, many
 * sizes from the smallest accepted, 8..16 bit, the golden runs' option sets and random ones.
 *
 * Built twice: as the CPU and CUDA compile speed_device.h (speed_twin), and with
 * -D VMAF_F64_SOFT_ON_HOST=1 (speed_twin_soft: its doubles in the software binary64 and its
 * fp32 forms, as the OpenCL program builds without fp64) against the same CPU engine in plain
 * double. The second also checks those fp32 forms against their double expressions directly:
 * the Givens 1/sqrt on every float of [1, 2] (the exhaustive part of its proof), the float
 * roots, halving, eps comparison and -(tau/2) wv on random and edge operands.
 *
 * usage: test_speed_twin [clips_dir]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/speed.h"
#include "feature/speed_device.h"
#include "test_util.h"

enum { N = VMAF_SPEED_DEV_N, NN = N * N };

typedef struct Emulated {
    float *image, *down, *centred;
    float means[N], cov[NN], eig[N], p[NN], r[NN];
    float *x, *var; /* x: N x nb (row k, column b), var: nb */
    int stalled, irregular, singular;
} Emulated;

static VmafSpeedDevSource dev_source(const VmafSpeedSource *s)
{
    return (VmafSpeedDevSource){ .a = s->a, .b = s->b, .a_stride = s->a_stride,
                                 .b_stride = s->b_stride, .wide = s->bpc > 8,
                                 .scale = (float)(1u << (s->bpc - 8)) };
}

/* vmaf_speed_decompose, blockIdx.y 0: one warp of 32 lanes; each phase runs its lanes in turn. */
static void emulate_eigen(const float *cov, Emulated *o)
{
    float m[NN], v[N], w[N], diag[N], sub[N];
    memcpy(m, cov, sizeof(m));
    for (int i = 0; i + 2 < N; i++) {
        const int s = i + 1;
        const float tau = vmaf_speed_householder_column(m, N, i, s); /* lane 0 */
        for (int lane = 0; lane < 32; lane++) {
            const int r = s + lane;
            if (r < N) v[r] = (r == s && tau != 0.0f) ? 1.0f : m[r * N + i];
        }
        if (tau == 0.0f) continue;
        for (int lane = 0; lane < 32; lane++) {
            const int r = s + lane;
            if (r < N) w[r] = vmaf_speed_tridiag_w(m, N, s, tau, v, r);
        }
        const float coef = vmaf_speed_tridiag_coef(tau, vmaf_speed_tridiag_wv(w, v, N, s));
        for (int lane = 0; lane < 32; lane++) {
            const int r = s + lane;
            if (r < N) w[r] += coef * v[r];
        }
        const int side = N - s;
        for (int lane = 0; lane < 32; lane++)
            for (int e = lane; e < side * side; e += 32) {
                const int rr = s + e / side, cc = s + e % side;
                m[rr * N + cc] = vmaf_speed_tridiag_update(m[rr * N + cc], w, v, rr, cc);
            }
    }
    for (int i = 0; i < N; i++)
        diag[i] = m[i * N + i];
    for (int i = 0; i + 1 < N; i++)
        sub[i] = m[(i + 1) * N + i];
    o->stalled = vmaf_speed_tridiagonal_eigenvalues(diag, sub, N, VMAF_SPEED_DEV_MAX_SWEEPS);
    o->irregular = 0;
    for (int i = 0; i < N; i++) {
        o->eig[i] = diag[i];
        if (vmaf_speed_below_eps(diag[i])) o->irregular = 1;
    }
}

/* vmaf_speed_decompose, blockIdx.y 1: 625 threads, one entry each, barriers between the phases. */
static void emulate_qr(const float *cov, Emulated *o)
{
    float am[NN], reduced[NN], p[NN], reflector[NN], v[N], t1[NN], t2[NN];
    for (int tid = 0; tid < NN; tid++) {
        const int i = tid / N, j = tid % N;
        am[tid] = cov[tid];
        reduced[tid] = am[tid];
        p[tid] = (i == j) ? 1.0f : 0.0f;
    }
    for (int k = 0; k + 1 < N; k++) {
        for (int tid = 0; tid < NN; tid++)
            reduced[tid] = vmaf_speed_dev_reduced_mask(reduced[tid], tid / N, tid % N, k);
        vmaf_speed_dev_qr_vector(reduced, am, N, k, v);
        for (int tid = 0; tid < NN; tid++)
            reflector[tid] = vmaf_speed_dev_reflector_entry(v, tid / N, tid % N);
        for (int tid = 0; tid < NN; tid++) {
            t1[tid] = vmaf_speed_dev_matmul_entry(reflector, reduced, tid / N, tid % N, N, N);
            t2[tid] = vmaf_speed_dev_matmul_entry(reflector, p, tid / N, tid % N, N, N);
        }
        memcpy(reduced, t1, sizeof(t1));
        memcpy(p, t2, sizeof(t2));
    }
    for (int tid = 0; tid < NN; tid++)
        o->r[tid] = vmaf_speed_dev_matmul_entry(p, am, tid / N, tid % N, N, N);
    memcpy(o->p, p, sizeof(p));
}

/* The whole chain of one image, kernel by kernel. */
static void emulate(const VmafSpeedEngine *e, const VmafSpeedSource *cpu_src, Emulated *o)
{
    const VmafSpeedDims *d = &e->dims;
    const VmafSpeedDevSource src = dev_source(cpu_src);
    const size_t points = (size_t)d->down_w * d->down_h, nb = d->num_blocks;
    if (!e->direct) {
        /* vmaf_speed_image: the needed rows, every column */
        const VmafSpeedDevScaler sc = {
            .method = (int)e->scaler.method, .copy = e->scaler.copy,
            .col_index = e->scaler.col_index, .row_index = e->scaler.row_index,
            .col_weight = e->scaler.col_weight, .row_weight = e->scaler.row_weight,
        };
        for (unsigned y = 0; y < d->scaled_h; y++) {
            if (!e->rows_needed[y]) continue;
            for (unsigned x = 0; x < d->scaled_w; x++) {
                float v;
                if (d->resample) v = vmaf_speed_dev_scale_point(&sc, &src, y, x);
                else v = (y < d->plane_h && x < d->plane_w) ? vmaf_speed_dev_sample(&src, y, x) : 0.0f;
                o->image[(size_t)y * d->scaled_w + x] = v;
            }
        }
    }
    /* vmaf_speed_decimate, vmaf_speed_local_mean: one thread per point */
    for (size_t idx = 0; idx < points; idx++) {
        const unsigned oi = (unsigned)(idx / d->down_w), oj = (unsigned)(idx % d->down_w);
        o->down[idx] = e->direct
                           ? vmaf_speed_dev_decimate_source(e->aa_filter, e->aa_width, &src,
                                                            d->plane_w, d->plane_h, 16, oi, oj)
                           : vmaf_speed_dev_filter_image(e->aa_filter, e->aa_width, o->image,
                                                         d->scaled_w, d->scaled_w, d->scaled_h,
                                                         16, oi, oj);
    }
    for (size_t idx = 0; idx < points; idx++) {
        const unsigned i = (unsigned)(idx / d->down_w), j = (unsigned)(idx % d->down_w);
        const float mean = vmaf_speed_dev_filter_image(e->mean_filter, e->mean_width, o->down,
                                                       d->down_w, d->down_w, d->down_h, 1, i, j);
        o->centred[idx] = o->down[idx] - mean;
    }
    /* vmaf_speed_means: 25 threads */
    for (int k = 0; k < N; k++)
        o->means[k] = vmaf_speed_dev_window_mean(o->centred, d->down_w, d->sub_w, d->sub_h, k);
    /* vmaf_speed_covariance: one warp per pair, lanes 0..16, lane 0 folds */
    for (int p = 0; p < VMAF_SPEED_DEV_PAIRS; p++) {
        int xi, yi;
        vmaf_speed_dev_pair(p, &xi, &yi);
        vmaf_double lane[17];
        for (int l = 0; l <= 16; l++)
            lane[l] = vmaf_speed_dev_cov_lane(o->centred, d->down_w, d->sub_w, d->sub_h, xi, yi,
                                              vmaf_dfrom_float(o->means[xi]),
                                              vmaf_dfrom_float(o->means[yi]), l);
        const vmaf_double count = vmaf_dfrom_u64((uint64_t)d->sub_w * d->sub_h);
        const float value = vmaf_dto_float(vmaf_ddiv(vmaf_speed_fold_lanes(lane, lane[16]), count));
        o->cov[xi * N + yi] = value;
        o->cov[yi * N + xi] = value;
    }
    /* vmaf_speed_decompose: the eigen warp and the QR block */
    emulate_eigen(o->cov, o);
    emulate_qr(o->cov, o);
    /* vmaf_speed_blocks: one thread per block; each decides singular from the eigen flag and R */
    o->singular = o->irregular || vmaf_speed_dev_bad_pivot(o->r);
    for (size_t b = 0; b < nb; b++) {
        const unsigned bi = (unsigned)(b / d->blocks_w), bj = (unsigned)(b % d->blocks_w);
        float y[N], x[N];
        for (int k = 0; k < N; k++)
            y[k] = o->centred[(size_t)(bi * 5 + k / 5) * d->down_w + bj * 5 + k % 5];
        o->var[b] = vmaf_speed_dev_block_variance(o->p, o->r, y, o->singular, x);
        for (int k = 0; k < N; k++)
            o->x[k * nb + b] = x[k];
    }
}

static int emulated_alloc(Emulated *o, const VmafSpeedDims *d)
{
    memset(o, 0, sizeof(*o));
    const size_t points = (size_t)d->down_w * d->down_h;
    o->image = calloc((size_t)d->scaled_w * d->scaled_h + 1, sizeof(float));
    o->down = calloc(points, sizeof(float));
    o->centred = calloc(points, sizeof(float));
    o->x = calloc((size_t)N * d->num_blocks, sizeof(float));
    o->var = calloc(d->num_blocks, sizeof(float));
    return o->image && o->down && o->centred && o->x && o->var ? 0 : -1;
}

static void emulated_free(Emulated *o)
{
    free(o->image);
    free(o->down);
    free(o->centred);
    free(o->x);
    free(o->var);
}

static int same(const void *a, const void *b, size_t bytes)
{
    return !memcmp(a, b, bytes);
}

static size_t first_diff(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(a + i, b + i, sizeof(float))) return i;
    return n;
}

/* One image: CPU intermediates vs the emulation. Returns the emulation's singular flag. */
static void check_image(VmafSpeedEngine *e, const VmafSpeedSource *src, VmafSpeedResult *cpu_out,
                        Emulated *o, const char *what)
{
    const VmafSpeedDims *d = &e->dims;
    const size_t points = (size_t)d->down_w * d->down_h, nb = d->num_blocks;
    const int cpu_singular = vmaf_speed_model_image(e, src, cpu_out);
    emulate(e, src, o);
    if (!e->direct) {
        int rows_ok = 1;
        for (unsigned y = 0; y < d->scaled_h && rows_ok; y++)
            if (e->rows_needed[y])
                rows_ok = same(e->image + (size_t)y * d->scaled_w, o->image + (size_t)y * d->scaled_w,
                               d->scaled_w * sizeof(float));
        CHECK(rows_ok, "%s: scaled image rows differ", what);
    }
    CHECK(same(e->down, o->centred, points * sizeof(float)), "%s: centred image differs at %zu",
          what, first_diff(e->down, o->centred, points));
    CHECK(same(e->means, o->means, sizeof(o->means)), "%s: means differ at %zu", what,
          first_diff(e->means, o->means, N));
    CHECK(same(e->cov, o->cov, sizeof(o->cov)), "%s: covariance differs at %zu", what,
          first_diff(e->cov, o->cov, NN));
    CHECK(same(e->eigenvalues, o->eig, sizeof(o->eig)), "%s: eigenvalues differ at %zu", what,
          first_diff(e->eigenvalues, o->eig, N));
    CHECK(cpu_singular == o->singular, "%s: singular cpu %d twin %d", what, cpu_singular,
          o->singular);
    CHECK(same(e->solution, o->x, (size_t)N * nb * sizeof(float)), "%s: solution differs at %zu",
          what, first_diff(e->solution, o->x, (size_t)N * nb));
    CHECK(same(cpu_out->variances, o->var, nb * sizeof(float)), "%s: variances differ at %zu",
          what, first_diff(cpu_out->variances, o->var, nb));
}

/* A pair: the CPU's score vs the twin's collect() path (entropies and pair from the
 * emulated eigenvalues and variances, on a second engine of the same options). */
static void check_pair(VmafSpeedEngine *e, VmafSpeedEngine *twin_e, const VmafSpeedSource *ref,
                       const VmafSpeedSource *dis, const char *what)
{
    const VmafSpeedDims *d = &e->dims;
    Emulated o[2];
    if (emulated_alloc(&o[0], d) || emulated_alloc(&o[1], d)) {
        CHECK(0, "out of memory");
        return;
    }
    VmafSpeedResult cpu_ref, cpu_dis;
    cpu_ref.variances = calloc(d->num_blocks, sizeof(float));
    cpu_ref.entropies = calloc(d->num_blocks, sizeof(float));
    cpu_dis.variances = calloc(d->num_blocks, sizeof(float));
    cpu_dis.entropies = calloc(d->num_blocks, sizeof(float));
    check_image(e, ref, &cpu_ref, &o[0], what);
    check_image(e, dis, &cpu_dis, &o[1], what);

    float cpu_score, twin_score;
    const int cpu_ret = vmaf_speed_score(e, ref, dis, &cpu_score);
    VmafSpeedResult *out[2] = { &twin_e->ref, &twin_e->dis };
    for (int i = 0; i < 2; i++) {
        vmaf_speed_report(twin_e, o[i].stalled, o[i].singular);
        memcpy(out[i]->variances, o[i].var, d->num_blocks * sizeof(float));
        vmaf_speed_entropies(twin_e, o[i].eig, out[i]);
    }
    const int twin_ret = vmaf_speed_pair(twin_e, o[0].singular, o[1].singular, &twin_score);
    CHECK(cpu_ret == twin_ret && same(&cpu_score, &twin_score, sizeof(float)),
          "%s: score cpu %.9g (%d) twin %.9g (%d)", what, cpu_score, cpu_ret, twin_score, twin_ret);
    free(cpu_ref.variances);
    free(cpu_ref.entropies);
    free(cpu_dis.variances);
    free(cpu_dis.entropies);
    emulated_free(&o[0]);
    emulated_free(&o[1]);
}

/* ---- frames ------------------------------------------------------------------------------ */

enum Pattern { PAT_RANDOM, PAT_EXTREME, PAT_NOISE, PAT_FLAT, PAT_COUNT };

typedef struct Plane {
    uint8_t *data;
    ptrdiff_t stride;
    unsigned w, h, bpc;
} Plane;

static int plane_alloc(Plane *p, unsigned w, unsigned h, unsigned bpc)
{
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->stride = (ptrdiff_t)(w + 7) * (bpc > 8 ? 2 : 1); /* padding: strides are not widths */
    p->data = calloc((size_t)p->stride * h, 1);
    return p->data ? 0 : -1;
}

static void plane_set(Plane *p, unsigned y, unsigned x, unsigned v)
{
    if (p->bpc > 8) ((uint16_t *)(p->data + y * p->stride))[x] = (uint16_t)v;
    else p->data[y * p->stride + x] = (uint8_t)v;
}

static void plane_fill(Plane *p, enum Pattern pat)
{
    const unsigned max = (1u << p->bpc) - 1;
    const unsigned flat = rng() & max;
    for (unsigned y = 0; y < p->h; y++)
        for (unsigned x = 0; x < p->w; x++) {
            unsigned v;
            switch (pat) {
            case PAT_RANDOM: v = rng() & max; break;
            case PAT_EXTREME: v = (((x / 3) ^ (y / 5)) & 1) ^ (rng() % 17 == 0) ? max : 0; break;
            case PAT_NOISE: {
                const int n = (int)(max / 2) + (int)(rng() % 33) - 16;
                v = (unsigned)(n < 0 ? 0 : n > (int)max ? (int)max : n);
                break;
            }
            default: v = flat; break;
            }
            plane_set(p, y, x, v);
        }
}

static VmafSpeedSource source_of(const Plane *a, const Plane *b)
{
    return (VmafSpeedSource){ .a = a->data, .a_stride = a->stride, .b = b ? b->data : NULL,
                              .b_stride = b ? b->stride : 0, .bpc = a->bpc };
}

/* ---- cases ------------------------------------------------------------------------------- */

typedef struct Options {
    double ks, ps, snn, nnf;
    const char *psm;
    int wvm;
} Options;

static void options_of(const Options *o, VmafSpeedOptions *opt)
{
    *opt = (VmafSpeedOptions){ .kernelscale = o->ks, .prescale = o->ps,
                               .prescale_method = o->psm, .sigma_nn = o->snn,
                               .nn_floor = o->nnf, .max_val = 1000.0, .weight_var_mode = o->wvm };
}

static unsigned n_cases;

/* Two pairs on planes a0..a3 of w x h: chroma-style (a0 vs a1) and temporal-style
 * (a0 - a2 vs a1 - a3). */
static void run_case(const Options *o, const Plane pl[4], const char *label)
{
    VmafSpeedOptions opt;
    options_of(o, &opt);
    VmafSpeedEngine e, twin_e;
    if (vmaf_speed_engine_init(&e, &opt, pl[0].w, pl[0].h, "test", VMAF_LOG_LEVEL_NONE)) {
        CHECK(0, "%s: engine init failed", label);
        return;
    }
    if (vmaf_speed_engine_init(&twin_e, &opt, pl[0].w, pl[0].h, "test", VMAF_LOG_LEVEL_NONE)) {
        vmaf_speed_engine_close(&e);
        CHECK(0, "%s: engine init failed", label);
        return;
    }
    char what[256];
    const VmafSpeedSource r = source_of(&pl[0], NULL), d = source_of(&pl[1], NULL);
    snprintf(what, sizeof(what), "%s plain", label);
    check_pair(&e, &twin_e, &r, &d, what);
    const VmafSpeedSource rd = source_of(&pl[0], &pl[2]), dd = source_of(&pl[1], &pl[3]);
    snprintf(what, sizeof(what), "%s diff", label);
    check_pair(&e, &twin_e, &rd, &dd, what);
    vmaf_speed_engine_close(&e);
    vmaf_speed_engine_close(&twin_e);
    n_cases++;
}

static void synthetic_case(const Options *o, unsigned w, unsigned h, unsigned bpc,
                           enum Pattern pat)
{
    Plane pl[4];
    for (int i = 0; i < 4; i++)
        if (plane_alloc(&pl[i], w, h, bpc)) {
            CHECK(0, "out of memory");
            return;
        }
    for (int i = 0; i < 4; i++)
        plane_fill(&pl[i], i == 1 && pat == PAT_RANDOM ? PAT_NOISE : pat);
    if (pat == PAT_NOISE) memcpy(pl[3].data, pl[1].data, (size_t)pl[1].stride * h); /* one zero diff */
    char label[200];
    snprintf(label, sizeof(label), "%ux%u %u-bit pattern %d ks %g ps %g %s snn %g nnf %g wvm %d",
             w, h, bpc, (int)pat, o->ks, o->ps, o->psm, o->snn, o->nnf, o->wvm);
    run_case(o, pl, label);
    for (int i = 0; i < 4; i++)
        free(pl[i].data);
}

/* Real content: luma (or the U plane) of frames 0 and 1 of a clip's ref and dis files. */
typedef struct Clip {
    const char *name;
    unsigned w, h, bpc, ssx, ssy;
} Clip;

static int read_plane(const char *path, const Clip *c, unsigned frame, int chroma, Plane *p)
{
    const unsigned bps = c->bpc > 8 ? 2 : 1;
    const unsigned cw = (c->w + c->ssx) >> c->ssx, ch = (c->h + c->ssy) >> c->ssy;
    const size_t frame_bytes = ((size_t)c->w * c->h + 2 * (size_t)cw * ch) * bps;
    const unsigned w = chroma ? cw : c->w, h = chroma ? ch : c->h;
    if (plane_alloc(p, w, h, c->bpc)) return -1;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    int err = fseek(f, (long)(frame * frame_bytes + (chroma ? (size_t)c->w * c->h * bps : 0)),
                    SEEK_SET);
    for (unsigned y = 0; !err && y < h; y++)
        if (fread(p->data + y * p->stride, bps, w, f) != w) err = -1;
    fclose(f);
    return err;
}

static void clip_cases(const char *dir)
{
    static const Clip clips[] = {
        { "boats_576x324_420p", 576, 324, 8, 1, 1 },
        { "forest_576x324_420p10", 576, 324, 10, 1, 1 },
        { "leaf_480x270_422p12", 480, 270, 12, 1, 0 },
        { "deep_320x180_420p16", 320, 180, 16, 1, 1 },
        { "cups_352x288_444p", 352, 288, 8, 0, 0 },
        { "jetty_1920x1080_420p", 1920, 1080, 8, 1, 1 },
    };
    static const Options opts[] = {
        { 1.0, 1.0, 0.29, 0.0, "nearest", 0 },
        { 1.0, 0.5, 0.19, 0.1, "bicubic", 5 },
        { 1.5, 1.5, 0.29, 0.0, "lanczos4", 0 },
        { 1.0, 0.5, 0.29, 0.0, "bilinear", 0 },
    };
    for (size_t i = 0; i < sizeof(clips) / sizeof(clips[0]); i++) {
        const Clip *c = &clips[i];
        char ref_path[1024], dis_path[1024];
        snprintf(ref_path, sizeof(ref_path), "%s/%s_ref.yuv", dir, c->name);
        snprintf(dis_path, sizeof(dis_path), "%s/%s_dis.yuv", dir, c->name);
        for (int chroma = 0; chroma < 2; chroma++) {
            Plane pl[4];
            /* a0 ref[1], a1 dis[1], a2 ref[0], a3 dis[0]: the temporal difference is prev - cur */
            int err = read_plane(ref_path, c, 1, chroma, &pl[0]);
            if (!err) err = read_plane(dis_path, c, 1, chroma, &pl[1]);
            if (!err) err = read_plane(ref_path, c, 0, chroma, &pl[2]);
            if (!err) err = read_plane(dis_path, c, 0, chroma, &pl[3]);
            CHECK(!err, "cannot read %s", ref_path);
            if (!err) {
                for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
                    if (c->w > 1000 && k == 2) continue; /* lanczos at 1080p: slow on the host */
                    VmafSpeedDims dims;
                    if (vmaf_speed_dims_init(&dims, pl[0].w, pl[0].h, opts[k].ps)) continue;
                    char label[300];
                    snprintf(label, sizeof(label), "%s %s opts %zu", c->name,
                             chroma ? "U" : "Y", k);
                    run_case(&opts[k], pl, label);
                }
            }
            for (int k = 0; k < 4; k++)
                free(pl[k].data);
        }
    }
}

/* the same float, NaN as any NaN */
static int same_float(float got, float want)
{
    return test_bits_of_float(got) == test_bits_of_float(want) || (isnan(got) && isnan(want));
}

/* a float operand: any bit pattern, near 1, subnormal, or a special */
static float operand(void)
{
    static const uint32_t special[] = { 0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                        0x7fc00000u, 0x00000001u, 0x007fffffu, 0x00800000u,
                                        0x7f7fffffu, 0x3f800000u, 0x358637bdu, 0x358637beu };
    switch (rng() % 5) {
    case 0: return test_float_of_bits(rng() << 16 ^ rng());
    case 1: return test_float_of_bits((rng() & 0x807fffffu) | (uint32_t)(120 + rng() % 16) << 23);
    case 2: return test_float_of_bits((rng() & 0x807fffffu) | (uint32_t)(rng() % 2) << 23);
    case 3: return test_float_of_bits(special[rng() % (sizeof(special) / sizeof(special[0]))]);
    default: return (float)((int)(rng() % 2001) - 1000) / 64.0f;
    }
}

/* speed_device.h's per-value forms against the double expressions they stand for (in the
 * plain build, the same expressions; in the soft build, the fp32 forms and the software
 * double). */
static void value_checks(void)
{
    /* 1/sqrt of every float of [1, 2], then random ones (the other path) */
    for (uint32_t u = 0x3f800000u; u <= 0x40000000u; u++) {
        const float x = test_float_of_bits(u);
        const float want = (float)(1.0 / sqrt((double)x));
        CHECK(same_float(vmaf_speed_rsqrt_via_double(x), want), "rsqrt %a: %a, not %a", x,
              vmaf_speed_rsqrt_via_double(x), want);
    }
    for (int i = 0; i < 200000; i++) {
        const float x = operand();
        const float want = (float)(1.0 / sqrt((double)x));
        CHECK(same_float(vmaf_speed_rsqrt_via_double(x), want), "rsqrt %a", x);
    }
    /* eps: every float within 2^16 of the threshold's, both signs, then random ones */
    for (uint32_t u = 0x358637bdu - 65536; u <= 0x358637bdu + 65536; u++)
        for (uint32_t sign = 0; sign < 2; sign++) {
            const float x = test_float_of_bits(u | sign << 31);
            CHECK(vmaf_speed_below_eps(x) == (x < 1e-6), "eps %a", x);
        }
    for (int i = 0; i < 2000000; i++) {
        const float x = operand(), y = operand();
        CHECK(vmaf_speed_below_eps(x) == (x < 1e-6), "eps %a", x);
        CHECK(same_float(vmaf_speed_sqrt_via_double(x), (float)sqrt((double)x)), "sqrt %a", x);
        CHECK(same_float(vmaf_speed_half_via_double(x), (float)(x / 2.0)), "half %a", x);
        CHECK(same_float(vmaf_speed_tridiag_coef(x, y), (float)(-0.5 * x * y)), "coef %a %a",
              x, y);
        CHECK(same_float(vmaf_speed_hypot(x, y), (float)sqrt((double)(x * x + y * y))),
              "hypot %a %a", x, y);
    }
}

int main(int argc, char **argv)
{
    rng_state = 0x5eed5eedull;
    if (argc > 2) rng_state = strtoull(argv[2], NULL, 0);
    printf("seed 0x%llx\n", (unsigned long long)rng_state);
    value_checks();

    /* the golden runs' option sets, and paths of the image kernel: crop, pad, copy */
    static const Options golden[] = {
        { 1.0, 1.0, 0.29, 0.0, "nearest", 0 },   /* speed_chroma, speed_temporal */
        { 1.0, 0.5, 0.19, 0.1, "bicubic", 5 },   /* speed_chroma_opts */
        { 1.5, 1.5, 0.29, 0.0, "lanczos4", 0 },  /* speed_chroma_up */
        { 1.0, 0.5, 0.29, 0.0, "bilinear", 0 },  /* speed_temporal_opts */
        { 1.0, 2.0, 0.29, 0.0, "nearest", 1 },
        { 2.0, 1.0005, 0.5, 0.3, "nearest", 2 }, /* no resampling, one padded column/row */
        { 0.5, 0.9995, 0.29, 0.0, "nearest", 3 }, /* no resampling, cropped */
        { 1.0, 1.004, 0.29, 0.0, "bicubic", 6 },  /* resampling to the same size: a copy */
    };
    static const unsigned sizes[][2] = { { 80, 80 }, { 81, 97 }, { 95, 83 }, { 160, 90 },
                                         { 257, 145 }, { 333, 211 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    unsigned di = 0;
    for (size_t o = 0; o < sizeof(golden) / sizeof(golden[0]); o++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            VmafSpeedDims dims;
            const unsigned w = sizes[s][0], h = sizes[s][1];
            if (vmaf_speed_dims_init(&dims, w, h, golden[o].ps)) continue;
            const unsigned bpc = depths[di++ % 9];
            synthetic_case(&golden[o], w, h, bpc, (enum Pattern)((o + s) % PAT_COUNT));
        }
    /* every pattern at the golden default, and 8/16 bit extremes */
    for (int pat = 0; pat < PAT_COUNT; pat++)
        for (int b = 0; b < 2; b++)
            synthetic_case(&golden[0], 131, 117, b ? 16 : 8, (enum Pattern)pat);
    /* random option sets */
    static const char *const methods[] = { "nearest", "bilinear", "bicubic", "lanczos4" };
    for (int i = 0; i < 24; i++) {
        const Options o = {
            .ks = vmaf_speed_kernelscales[rng() % VMAF_SPEED_NUM_KERNELSCALES],
            .ps = 0.5 + (rng() % 1500) / 1000.0,
            .snn = 0.1 + (rng() % 190) / 100.0,
            .nnf = (rng() % 100) / 100.0,
            .psm = methods[rng() % 4],
            .wvm = (int)(rng() % 7),
        };
        const unsigned w = 80 + rng() % 300, h = 80 + rng() % 200;
        VmafSpeedDims dims;
        if (vmaf_speed_dims_init(&dims, w, h, o.ps)) continue;
        synthetic_case(&o, w, h, 8 + rng() % 9, (enum Pattern)(rng() % PAT_COUNT));
    }
    /* large: 1080p and 4K at the default */
    synthetic_case(&golden[0], 1920, 1080, 10, PAT_RANDOM);
    synthetic_case(&golden[0], 4096, 2160, 8, PAT_NOISE);
    synthetic_case(&golden[0], 3841, 2161, 12, PAT_EXTREME);
    /* padding and cropping without resampling need a side above 1000 */
    synthetic_case(&golden[5], 1003, 1001, 9, PAT_RANDOM);
    synthetic_case(&golden[6], 1201, 1100, 14, PAT_NOISE);

    if (argc > 1) clip_cases(argv[1]);
    printf("%u cases, %d checks, %d failures\n", n_cases, checks, failures);
    return failures ? 1 : 0;
}
