/*
 * The adm GPU twin on the host: the frame's launches (vmaf_adm_plan()) run thread by thread
 * through the kernels' own bodies (src/feature/cuda/adm_kernels.h), in forward and in reverse
 * thread order (a read of what another thread of the same launch writes would show), on
 * a host copy of the band block; compared with the CPU extractor (vmaf_adm_score_totals()):
 * the whole band block (every band of every stage's last write: DWT bands of all scales,
 * decoupled r/a, CSF outputs, mask values) byte for byte, every integer total, the scores.
 * Random pictures with extremes, real clips (cropped / resampled), sizes 1x1 .. 1920x1080,
 * bit depths 8..16, the option sets that change the arithmetic, consecutive frames on two
 * twin slots (as the backend's ring reuses them).
 *
 * usage: test_adm_twin [clips dir]  (real-content cases are skipped without it)
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm.h"
#include "feature/adm_plan.h"
#include "feature/cuda/adm_kernels.h"
#include "test_util.h"

#include "extractors/adm_options.h"

static int reverse_order;

/* ------------------------------------------------------------------------------------- */
/* The launches on the host                                                              */

static void grid_loop(const VmafAdmOp *op, void (*body)(const VmafAdmOp *, int, int, int))
{
    const int gz = (int)op->grid[2], gy = (int)op->grid[1], gx = (int)op->grid[0];
    const int by = (int)op->block[1], bx = (int)op->block[0];
    const int ny = gy * by, nx = gx * bx;
    for (int z0 = 0; z0 < gz; z0++)
        for (int i0 = 0; i0 < ny; i0++)
            for (int j0 = 0; j0 < nx; j0++) {
                const int z = reverse_order ? gz - 1 - z0 : z0;
                const int i = reverse_order ? ny - 1 - i0 : i0;
                const int j = reverse_order ? nx - 1 - j0 : j0;
                body(op, z, i, j);
            }
}

/* The scale-0 DWT as the kernel runs it: per warp (a strip of columns, adm_kernels.h's
 * mapping) and output row, every lane's own vertical pass (the kernel keeps the picture rows
 * from one output row to the next; the values are the same), then the lanes that write
 * their column take the neighbours' values as the shuffles pass them. */
static void run_dwt0(const VmafAdmOp *op)
{
    const AdmDwt0CudaArgs *a = &op->a.dwt0;
    const int half_w = (a->w + 1) / 2, half_h = (a->h_pic + 1) / 2;
    CHECK(op->block[0] == 32 * ADM_DWT0_WARPS && op->block[1] == 1, "dwt0 block");
    const int strips = (int)op->grid[0] * ADM_DWT0_WARPS, runs = (int)op->grid[1];
    CHECK((strips - ADM_DWT0_WARPS) * ADM_DWT0_STRIP < half_w &&
              strips * ADM_DWT0_STRIP >= half_w && runs * ADM_DWT0_ROWS >= half_h &&
              (runs - 1) * ADM_DWT0_ROWS < half_h,
          "dwt0 grid");
    for (int z = 0; z < (int)op->grid[2]; z++)
        for (int i0 = 0; i0 < runs * ADM_DWT0_ROWS && i0 < half_h; i0++)
            for (int s0 = 0; s0 < strips; s0++) {
                const int i = reverse_order ? half_h - 1 - i0 : i0;
                const int strip = reverse_order ? strips - 1 - s0 : s0;
                if (strip * ADM_DWT0_STRIP >= half_w)
                    continue;
                int16_t lo[32][2], hi[32][2];
                for (int lane = 0; lane < 32; lane++)
                    vmaf_adm_k_dwt0_own(a, z, i, vmaf_adm_k_dwt0_lane_col(strip, lane), op->wide,
                                        lo[lane], hi[lane]);
                for (int l0 = 0; l0 < 32; l0++) {
                    const int lane = reverse_order ? 31 - l0 : l0;
                    if (!vmaf_adm_k_dwt0_lane_writes(lane))
                        continue;
                    const int16_t prev[2] = { lo[lane - 1][1], hi[lane - 1][1] };
                    const int16_t next[2] = { lo[lane + 1][0], hi[lane + 1][0] };
                    vmaf_adm_k_dwt0_finish(a, z, i, vmaf_adm_k_dwt0_lane_col(strip, lane),
                                           op->wide, prev, lo[lane], hi[lane], next);
                }
            }
}

/* The scales 1..3 DWT as the kernel runs it (warp-shared vertical passes, as run_dwt0). */
static void run_dwt123(const VmafAdmOp *op)
{
    const AdmDwt123CudaArgs *a = &op->a.dwt123;
    CHECK(op->block[0] == 32, "a warp is one row of a block");
    const int ny = (int)(op->grid[1] * op->block[1]), nw = (int)op->grid[0];
    for (int i0 = 0; i0 < ny; i0++)
        for (int w0 = 0; w0 < nw; w0++) {
            const int i = reverse_order ? ny - 1 - i0 : i0;
            const int wb = reverse_order ? nw - 1 - w0 : w0;
            int32_t own0[32][4], own1[32][4];
            for (int lane = 0; lane < 32; lane++) {
                vmaf_adm_k_dwt123_at(a, i, 2 * (wb * 32 + lane), own0[lane]);
                vmaf_adm_k_dwt123_at(a, i, 2 * (wb * 32 + lane) + 1, own1[lane]);
            }
            for (int l0 = 0; l0 < 32; l0++) {
                const int lane = reverse_order ? 31 - l0 : l0, j = wb * 32 + lane;
                int32_t prev[4], next[4];
                if (lane == 0) vmaf_adm_k_dwt123_at(a, i, 2 * j - 1, prev);
                else memcpy(prev, own1[lane - 1], sizeof(prev));
                if (lane == 31) vmaf_adm_k_dwt123_at(a, i, 2 * j + 2, next);
                else memcpy(next, own0[lane + 1], sizeof(next));
                vmaf_adm_k_dwt123_finish(a, i, j, prev, own0[lane], own1[lane], next);
            }
        }
}
static void b_copy(const VmafAdmOp *op, int z, int i, int j) { (void)z; vmaf_adm_k_copy(&op->a.copy, i, j); }
static void b_dec0(const VmafAdmOp *op, int z, int i, int j) { (void)z; vmaf_adm_k_decouple0(&op->a.dec, i, j); }
static void b_dec123(const VmafAdmOp *op, int z, int i, int j) { (void)z; vmaf_adm_k_decouple123(&op->a.dec, i, j); }
static void b_csf0(const VmafAdmOp *op, int z, int i, int j) { vmaf_adm_k_csf0(&op->a.csf, z, i, j); }
static void b_csf123(const VmafAdmOp *op, int z, int i, int j) { vmaf_adm_k_csf123(&op->a.csf, z, i, j); }

/* One block per row slot; thread t sums positions t, t + 256, ...; the block's sum, the
 * row total and the atomic add as the kernel does them. */
static void run_cm(const VmafAdmOp *op, int scale0)
{
    const AdmCmCudaArgs *a = &op->a.cm;
    const VmafAdmCmRows c = vmaf_adm_cm_rows(a->w, a->h);
    const int n = vmaf_adm_cm_positions(&c);
    const VmafAdmCmParams p = vmaf_adm_k_cm_params(a);
    uint64_t *total = (uint64_t *)(uintptr_t)a->total;
    for (unsigned s0 = 0; s0 < op->grid[0]; s0++) {
        const int slot = reverse_order ? (int)op->grid[0] - 1 - (int)s0 : (int)s0;
        uint64_t sum[3] = { 0, 0, 0 };
        for (int tid = 0; tid < ADM_CUDA_ROW_THREADS; tid++) {
            uint64_t acc[3] = { 0, 0, 0 };
            for (int q = tid; q < n; q += ADM_CUDA_ROW_THREADS)
                vmaf_adm_k_cm_pos(a, &c, &p, scale0, slot, q, acc);
            for (int t = 0; t < 3; t++)
                sum[t] += acc[t];
        }
        uint64_t row[3];
        vmaf_adm_k_cm_row(a, scale0, slot, sum, row);
        for (int t = 0; t < 3; t++)
            total[t] += row[t];
    }
}

static void run_den(const VmafAdmOp *op, int scale0)
{
    const AdmDenCudaArgs *a = &op->a.den;
    uint64_t *total = (uint64_t *)(uintptr_t)a->total;
    const int n = a->right - a->left;
    for (unsigned t = 0; t < op->grid[1]; t++)
        for (unsigned i = 0; i < op->grid[0]; i++) {
            uint64_t sum = 0;
            for (int tid = 0; tid < ADM_CUDA_ROW_THREADS; tid++)
                for (int j = tid; j < n; j += ADM_CUDA_ROW_THREADS)
                    sum += vmaf_adm_k_den_term(a, scale0, (int)t, (int)i, j);
            total[t] += vmaf_adm_k_den_row(a, scale0, sum);
        }
}

static void run_ops(const VmafAdmOp *ops, int n)
{
    for (int k = 0; k < n; k++) {
        const VmafAdmOp *op = &ops[k];
        switch (op->kind) {
        case VMAF_ADM_OP_CLEAR: memset((void *)(uintptr_t)op->clear_dst, 0, op->clear_bytes); break;
        case VMAF_ADM_OP_DWT0: run_dwt0(op); break;
        case VMAF_ADM_OP_DWT123: run_dwt123(op); break;
        case VMAF_ADM_OP_COPY: grid_loop(op, b_copy); break;
        case VMAF_ADM_OP_DECOUPLE0: grid_loop(op, b_dec0); break;
        case VMAF_ADM_OP_DECOUPLE123: grid_loop(op, b_dec123); break;
        case VMAF_ADM_OP_CSF0: grid_loop(op, b_csf0); break;
        case VMAF_ADM_OP_CSF123: grid_loop(op, b_csf123); break;
        case VMAF_ADM_OP_CM0: run_cm(op, 1); break;
        case VMAF_ADM_OP_CM123: run_cm(op, 0); break;
        case VMAF_ADM_OP_DEN0: run_den(op, 1); break;
        case VMAF_ADM_OP_DEN123: run_den(op, 0); break;
        default: CHECK(0, "unknown op %d", op->kind);
        }
    }
}

/* One twin slot's buffers on the host. */
typedef struct Slot {
    VmafAdmLayout l;
    unsigned char *block, *temp;
    int32_t *last[3];
    VmafAdmTotals totals;
} Slot;

static int slot_alloc(Slot *s, unsigned w, unsigned h)
{
    memset(s, 0, sizeof(*s));
    if (vmaf_adm_layout_compact(w, h, &s->l)) return -1;
    s->block = calloc(1, s->l.block_bytes);
    const size_t tb = vmaf_adm_temp_bytes(w, h);
    s->temp = malloc(tb ? tb : 1);
    if (s->temp) memset(s->temp, 0xA5, tb); /* nothing may depend on it */
    for (unsigned t = 1; t < 3; t++) {
        const size_t lb = vmaf_adm_last_bytes(w, t);
        s->last[t] = malloc(lb);
        if (s->last[t]) memset(s->last[t], 0x5A, lb);
    }
    return s->block && s->temp && s->last[1] && s->last[2] ? 0 : -1;
}

static void slot_free(Slot *s)
{
    free(s->block);
    free(s->temp);
    free(s->last[1]);
    free(s->last[2]);
}

/* ------------------------------------------------------------------------------------- */
/* Pictures                                                                              */

typedef struct Pic {
    unsigned w, h, bpc;
    size_t stride; /* bytes */
    unsigned char *data;
} Pic;

static int pic_alloc(Pic *p, unsigned w, unsigned h, unsigned bpc)
{
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->stride = ((size_t)w + 7) * (bpc > 8 ? 2 : 1); /* an odd number of samples */
    p->data = calloc(p->stride, h);
    return p->data ? 0 : -1;
}

static void pic_set(Pic *p, unsigned i, unsigned j, unsigned v)
{
    unsigned char *row = p->data + i * p->stride;
    if (p->bpc > 8) {
        const uint16_t x = (uint16_t)v;
        memcpy(row + 2 * j, &x, 2);
    } else {
        row[j] = (unsigned char)v;
    }
}

/* Patterns: 0 random full range, 1 extremes (blocks of 0 / max, random flips in dis),
 * 2 smooth gradient + texture with a mildly distorted dis, 3 identical, 4 dis flat. */
static void fill(Pic *ref, Pic *dis, int pattern)
{
    const unsigned max = (1u << ref->bpc) - 1;
    for (unsigned i = 0; i < ref->h; i++)
        for (unsigned j = 0; j < ref->w; j++) {
            unsigned r, d;
            switch (pattern) {
            case 0:
                r = rng() & max;
                d = rng() & max;
                break;
            case 1:
                r = ((i / 3 + j / 5) & 1) ? max : 0;
                d = (rng() % 7 == 0) ? max - r : r;
                break;
            case 2: {
                const double x = (double)j / (ref->w + 1), y = (double)i / (ref->h + 1);
                const double base = 0.5 + 0.3 * sin(9 * x + 4 * y) + 0.1 * cos(31 * x * y);
                const double tex = 0.05 * ((rng() & 255) / 255.0 - 0.5);
                const double v = (base + tex) * max;
                r = v < 0 ? 0 : (v > max ? max : (unsigned)v);
                const double dv = v * 0.97 + 0.02 * max * ((rng() & 255) / 255.0 - 0.5);
                d = dv < 0 ? 0 : (dv > max ? max : (unsigned)dv);
                break;
            }
            case 3:
                r = d = rng() & max;
                break;
            default:
                r = rng() & max;
                d = max / 2;
                break;
            }
            pic_set(ref, i, j, r);
            pic_set(dis, i, j, d);
        }
}

/* Frame `frame` of a clip's luma, resampled (nearest) to w x h and scaled to bpc bits. */
static int load_clip(const char *dir, const char *name, unsigned cw, unsigned ch,
                     unsigned cbpc, unsigned chroma_div, unsigned frame, Pic *ref, Pic *dis)
{
    const char *suffix[2] = { "ref", "dis" };
    Pic *out[2] = { ref, dis };
    const size_t bps = cbpc > 8 ? 2 : 1;
    const size_t luma = (size_t)cw * ch * bps;
    const size_t frame_bytes = luma + 2 * (luma / chroma_div);
    unsigned char *buf = malloc(luma);
    if (!buf) return -1;
    for (int n = 0; n < 2; n++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s_%s.yuv", dir, name, suffix[n]);
        FILE *f = fopen(path, "rb");
        if (!f || fseek(f, (long)(frame_bytes * frame), SEEK_SET) || fread(buf, 1, luma, f) != luma) {
            if (f) fclose(f);
            free(buf);
            return -1;
        }
        fclose(f);
        Pic *p = out[n];
        for (unsigned i = 0; i < p->h; i++)
            for (unsigned j = 0; j < p->w; j++) {
                const size_t si = (size_t)i * ch / p->h, sj = (size_t)j * cw / p->w;
                unsigned v;
                if (bps == 2) {
                    uint16_t x;
                    memcpy(&x, buf + 2 * (si * cw + sj), 2);
                    v = x;
                } else {
                    v = buf[si * cw + sj];
                }
                /* to p->bpc bits */
                if (p->bpc > cbpc) v <<= p->bpc - cbpc;
                else v >>= cbpc - p->bpc;
                pic_set(p, i, j, v);
            }
    }
    free(buf);
    return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Comparison                                                                            */

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

/* Name of the band holding block offset off (for failure messages). */
static void where(const VmafAdmLayout *l, size_t off, char *out, size_t n)
{
    static const char *g[6] = { "ref", "dis", "r", "a", "csf", "mask" };
    static const char *k[4] = { "A", "H", "V", "D" };
    for (int p = 0; p < 2; p++)
        for (int gi = 0; gi < 6; gi++)
            for (int ki = 0; ki < 4; ki++) {
                const size_t o = p ? l->off32[gi][ki] : l->off16[gi][ki];
                const size_t bytes = p ? l->band_bytes : l->band_bytes / 2;
                if (o != SIZE_MAX && off >= o && off < o + bytes) {
                    const size_t e = (off - o) / (p ? 4 : 2);
                    snprintf(out, n, "%s%d.%s row %zu col %zu", g[gi], p ? 32 : 16, k[ki],
                             e / l->stride, e % l->stride);
                    return;
                }
            }
    snprintf(out, n, "guard +%zu", off);
}

typedef struct Case {
    const char *what;
    unsigned w, h, bpc;
    VmafAdmOptions opt;
    int frames;
} Case;

static int same_totals(const VmafAdmTotals *a, const VmafAdmTotals *b)
{
    return !memcmp(a, b, sizeof(*a));
}

/* The CPU's totals never depend on the frames its instance scored before (checked below). */
static int cpu_stale_totals(const Case *c)
{
    (void)c;
    return 0;
}

/* Run frames through the CPU (one instance) and the twin (frames alternating between two
 * slots, as the backend's ring would reuse them); fill(f) makes frame f. */
static void run_case(const Case *c, void (*make)(const Case *, int, Pic *, Pic *, void *),
                     void *ctx)
{
    VmafAdmState st;
    memset(&st, 0, sizeof(st));
    st.opt = c->opt;
    st.w = c->w;
    st.h = c->h;
    st.bpc = c->bpc;
    vmaf_adm_scale_factors(&st.opt, st.factors);
    VmafAdmBuffers cpu;
    Slot slots[2];
    Pic ref, dis;
    if (vmaf_adm_buffers_alloc(&cpu, c->w, c->h) || slot_alloc(&slots[0], c->w, c->h) ||
        slot_alloc(&slots[1], c->w, c->h) || pic_alloc(&ref, c->w, c->h, c->bpc) ||
        pic_alloc(&dis, c->w, c->h, c->bpc)) {
        CHECK(0, "%s: allocation", c->what);
        return;
    }
    for (int f = 0; f < c->frames; f++) {
        make(c, f, &ref, &dis, ctx);
        /* the CPU instance that scored the earlier frames, and a fresh one */
        VmafAdmTotals tc, tf;
        vmaf_adm_score_totals(&cpu, &st.opt, st.factors, ref.data, (ptrdiff_t)ref.stride,
                              dis.data, (ptrdiff_t)dis.stride, c->bpc, &tc);
        VmafAdmBuffers fresh;
        if (vmaf_adm_buffers_alloc_compact(&fresh, c->w, c->h)) {
            CHECK(0, "%s: allocation", c->what);
            break;
        }
        vmaf_adm_score_totals(&fresh, &st.opt, st.factors, ref.data, (ptrdiff_t)ref.stride,
                              dis.data, (ptrdiff_t)dis.stride, c->bpc, &tf);
        CHECK(cpu_stale_totals(c) || same_totals(&tc, &tf),
              "%s %ux%u %u-bit frame %d: the CPU's totals depend on its earlier frames",
              c->what, c->w, c->h, c->bpc, f);

        Slot *s = &slots[f & 1];
        VmafAdmDeviceBuffers b = {
            .block = (vmaf_devptr)(uintptr_t)s->block,
            .temp = (vmaf_devptr)(uintptr_t)s->temp,
            .last = { 0, (vmaf_devptr)(uintptr_t)s->last[1], (vmaf_devptr)(uintptr_t)s->last[2] },
            .totals = (vmaf_devptr)(uintptr_t)&s->totals,
        };
        VmafAdmOp ops[VMAF_ADM_MAX_OPS];
        const int n = vmaf_adm_plan(&st, &b, (vmaf_devptr)(uintptr_t)ref.data, ref.stride,
                                    (vmaf_devptr)(uintptr_t)dis.data, dis.stride, ops);
        CHECK(n > 0 && n <= VMAF_ADM_MAX_OPS, "%s: plan %d", c->what, n);
        if (n <= 0) {
            vmaf_adm_buffers_free(&fresh);
            break;
        }
        reverse_order = f % 2;
        run_ops(ops, n);

        const size_t bytes = s->l.block_bytes;
        const unsigned char *pc = fresh.block, *pt = s->block;
        size_t bad = SIZE_MAX;
        for (size_t k = 0; k < bytes; k++)
            if (pc[k] != pt[k]) {
                bad = k;
                break;
            }
        char loc[128] = "";
        if (bad != SIZE_MAX) where(&s->l, bad, loc, sizeof(loc));
        CHECK(bad == SIZE_MAX, "%s %ux%u %u-bit frame %d: band block differs at %s", c->what,
              c->w, c->h, c->bpc, f, loc);
        vmaf_adm_buffers_free(&fresh);
        int tot_ok = same_totals(&tf, &s->totals);
        if (!tot_ok)
            for (int sc = 0; sc < VMAF_ADM_SCALES; sc++)
                for (int t = 0; t < 3; t++)
                    if (tf.num[sc][t] != s->totals.num[sc][t] ||
                        tf.aim[sc][t] != s->totals.aim[sc][t] ||
                        tf.den[sc][t] != s->totals.den[sc][t])
                        printf("  scale %d orient %d: num %" PRIu64 "/%" PRIu64 " aim %" PRIu64
                               "/%" PRIu64 " den %" PRIu64 "/%" PRIu64 "\n",
                               sc, t, tf.num[sc][t], s->totals.num[sc][t], tf.aim[sc][t],
                               s->totals.aim[sc][t], tf.den[sc][t], s->totals.den[sc][t]);
        CHECK(tot_ok, "%s %ux%u %u-bit frame %d: totals differ", c->what, c->w, c->h, c->bpc, f);
        VmafAdmScores sc_cpu, sc_twin;
        vmaf_adm_scores_from_totals(&st.opt, st.factors, c->w, c->h, &tf, &sc_cpu);
        vmaf_adm_scores_from_totals(&st.opt, st.factors, c->w, c->h, &s->totals, &sc_twin);
        int ok = same_double(sc_cpu.adm2, sc_twin.adm2) && same_double(sc_cpu.aim, sc_twin.aim) &&
                 same_double(sc_cpu.adm3, sc_twin.adm3);
        for (int k = 0; k < VMAF_ADM_SCALES; k++)
            ok = ok && same_double(sc_cpu.num_scale[k], sc_twin.num_scale[k]) &&
                 same_double(sc_cpu.den_scale[k], sc_twin.den_scale[k]);
        CHECK(ok, "%s %ux%u %u-bit frame %d: scores differ (adm2 %.17g / %.17g)", c->what, c->w,
              c->h, c->bpc, f, sc_cpu.adm2, sc_twin.adm2);
        /* the CPU's one-call score is totals + finish */
        if (f == 0 && !cpu_stale_totals(c)) {
            VmafAdmBuffers again;
            if (!vmaf_adm_buffers_alloc(&again, c->w, c->h)) {
                VmafAdmScores direct;
                vmaf_adm_score(&again, &st.opt, st.factors, ref.data, (ptrdiff_t)ref.stride,
                               dis.data, (ptrdiff_t)dis.stride, c->bpc, &direct);
                CHECK(same_double(direct.adm2, sc_cpu.adm2) && same_double(direct.aim, sc_cpu.aim) &&
                      same_double(direct.adm3, sc_cpu.adm3),
                      "%s: vmaf_adm_score", c->what);
                vmaf_adm_buffers_free(&again);
            }
        }
    }
    vmaf_adm_buffers_free(&cpu);
    slot_free(&slots[0]);
    slot_free(&slots[1]);
    free(ref.data);
    free(dis.data);
}

static void make_pattern(const Case *c, int f, Pic *ref, Pic *dis, void *ctx)
{
    (void)c;
    const int *patterns = ctx;
    fill(ref, dis, patterns[f]);
}

typedef struct ClipCtx {
    const char *dir, *name;
    unsigned cw, ch, cbpc, chroma_div;
} ClipCtx;

static void make_clip(const Case *c, int f, Pic *ref, Pic *dis, void *ctx)
{
    const ClipCtx *k = ctx;
    (void)c;
    if (load_clip(k->dir, k->name, k->cw, k->ch, k->cbpc, k->chroma_div, (unsigned)f * 3, ref, dis))
        CHECK(0, "cannot read clip %s in %s", k->name, k->dir);
}

/* ------------------------------------------------------------------------------------- */

static void random_cases(void)
{
    static const unsigned sizes[][2] = {
        { 1, 1 },   { 2, 2 },   { 3, 3 },   { 4, 4 },    { 5, 5 },    { 1, 9 },    { 9, 1 },
        { 3, 7 },   { 7, 3 },   { 6, 6 },   { 8, 8 },    { 9, 9 },    { 11, 13 },  { 16, 16 },
        { 17, 17 }, { 18, 30 }, { 30, 18 }, { 33, 21 },  { 21, 33 },  { 34, 18 },  { 35, 40 },
        { 65, 9 },  { 66, 40 }, { 67, 35 }, { 68, 70 },  { 129, 33 }, { 130, 70 }, { 131, 131 },
        { 257, 145 }, { 130, 12 }, { 36, 12 },
    };
    int pats[3] = { 0, 1, 2 };
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        for (unsigned bpc = 8; bpc <= 16; bpc += 4) {
            Case c = { "random", sizes[k][0], sizes[k][1], bpc, adm_default_options(), 3 };
            run_case(&c, make_pattern, pats);
        }
    }
    /* every bit depth at a few sizes */
    static const unsigned depth_sizes[][2] = { { 67, 35 }, { 130, 70 }, { 17, 17 }, { 258, 66 } };
    for (unsigned bpc = 8; bpc <= 16; bpc++)
        for (size_t k = 0; k < 4; k++) {
            Case c = { "depth", depth_sizes[k][0], depth_sizes[k][1], bpc,
                       adm_default_options(), 3 };
            run_case(&c, make_pattern, pats);
        }
    /* small heights (degenerate rows at scales 1..3) with widths whose DWT groups reach the
     * last column at scale 0 (8-bit: 65, 66, 129, 130; 9..16-bit: 129, 130) or scale 1 */
    static const unsigned ws[] = { 33, 34, 35, 36, 65, 66, 67, 68, 129, 130 };
    static const unsigned hs[] = { 5, 6, 9, 12, 16, 17, 24, 32 };
    for (size_t a = 0; a < sizeof(ws) / sizeof(ws[0]); a++)
        for (size_t b = 0; b < sizeof(hs) / sizeof(hs[0]); b++) {
            Case c = { "edge columns", ws[a], hs[b], ws[a] >= 129 && b % 2 ? 10 : 8,
                       adm_default_options(), 3 };
            run_case(&c, make_pattern, pats);
            Case t = { "edge columns, transposed", hs[b], ws[a], 8, adm_default_options(), 2 };
            run_case(&t, make_pattern, pats);
        }
    /* identical and flat distorted pictures */
    int pats2[2] = { 3, 4 };
    Case c = { "identical/flat", 96, 54, 8, adm_default_options(), 2 };
    run_case(&c, make_pattern, pats2);
    Case c10 = { "identical/flat", 97, 55, 10, adm_default_options(), 2 };
    run_case(&c10, make_pattern, pats2);
}

static void option_cases(void)
{
    int pats[2] = { 2, 1 };
    const unsigned sizes[][2] = { { 67, 35 }, { 130, 70 }, { 16, 16 }, { 9, 9 }, { 258, 146 } };
    for (int o = 0; o < 14; o++) {
        VmafAdmOptions opt = adm_default_options();
        const char *what = "";
        switch (o) {
        case 0: opt.csf_mode = 1; what = "barten"; break;
        case 1: opt.csf_mode = 1; opt.csf_scale = 40; opt.csf_diag_scale = 30; what = "barten saturating"; break;
        case 2: opt.csf_mode = 2; what = "blend 1080/3"; break;
        case 3: opt.csf_mode = 3; opt.ref_display_height = 2160; opt.norm_view_dist = 1.5; what = "blend mae 2160/1.5"; break;
        case 4: opt.csf_mode = 2; opt.ref_display_height = 1200; what = "blend missing geometry"; break;
        case 5: opt.enhn_gain_limit = 1.0; what = "egl 1"; break;
        case 6: opt.enhn_gain_limit = 1.2; what = "egl 1.2"; break;
        case 7: opt.skip_scale0 = true; what = "skip scale0"; break;
        case 8: opt.skip_aim = true; what = "skip aim"; break;
        case 9: opt.noise_weight = 0; what = "noise weight 0"; break;
        case 10: opt.noise_weight = 1000; opt.min_val = 0.5; opt.dlm_weight = 0.2; what = "noise 1000"; break;
        case 11: opt.norm_view_dist = 5.0; opt.ref_display_height = 2160; what = "nvd 5 rdh 2160"; break;
        case 12: opt.csf_mode = 1; opt.norm_view_dist = 24; opt.ref_display_height = 4320; what = "barten far"; break;
        default: opt.debug = true; opt.skip_scale0 = true; opt.skip_aim = true; what = "ssz + skip aim"; break;
        }
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            Case c = { what, sizes[k][0], sizes[k][1], k == 1 ? 10 : 8, opt, 2 };
            run_case(&c, make_pattern, pats);
        }
    }
}

static void clip_cases(const char *dir)
{
    static const ClipCtx clips[] = {
        { NULL, "boats_576x324_420p", 576, 324, 8, 4 },
        { NULL, "forest_576x324_420p10", 576, 324, 10, 4 },
        { NULL, "leaf_480x270_422p12", 480, 270, 12, 2 },
        { NULL, "kite_257x145_420p", 257, 145, 8, 4 },
        { NULL, "tiny_17x17_420p", 17, 17, 8, 4 },
        { NULL, "tiny_33x33_420p", 33, 33, 8, 4 },
        { NULL, "deep_320x180_420p16", 320, 180, 16, 4 },
        { NULL, "cups_352x288_444p", 352, 288, 8, 1 },
        { NULL, "jetty_1920x1080_420p", 1920, 1080, 8, 4 },
    };
    for (size_t k = 0; k < sizeof(clips) / sizeof(clips[0]); k++) {
        ClipCtx ctx = clips[k];
        ctx.dir = dir;
        /* the clip's own size, a resampled odd size and a crop-like small size */
        const unsigned sz[3][2] = { { ctx.cw, ctx.ch }, { 131, 75 }, { 66, 40 } };
        for (int n = 0; n < 3; n++) {
            if (k == 8 && n == 0) {
                Case c = { ctx.name, sz[n][0], sz[n][1], ctx.cbpc, adm_default_options(), 1 };
                run_case(&c, make_clip, &ctx);
                continue;
            }
            Case c = { ctx.name, sz[n][0], sz[n][1], ctx.cbpc, adm_default_options(), 2 };
            run_case(&c, make_clip, &ctx);
        }
        if (k == 8) {
            /* 4K from the 1080p clip, and 4096x2160 at 12 bits */
            Case c4 = { "jetty at 4K", 3840, 2160, 8, adm_default_options(), 1 };
            run_case(&c4, make_clip, &ctx);
            ClipCtx deep = ctx;
            deep.cbpc = 8;
            Case c12 = { "jetty at 4096x2160, 12-bit", 4096, 2160, 12, adm_default_options(),
                         1 };
            run_case(&c12, make_clip, &deep);
        }
        VmafAdmOptions opt = adm_default_options();
        opt.csf_mode = 3;
        opt.enhn_gain_limit = 1.0;
        Case c = { "clip, mae + egl 1", 200, 113, ctx.cbpc, opt, 2 };
        run_case(&c, make_clip, &ctx);
    }
}

int main(int argc, char **argv)
{
    rng_state = 0x9E3779B97F4A7C15ull;
    random_cases();
    option_cases();
    if (argc > 1)
        clip_cases(argv[1]);
    else
        printf("no clips dir: real-content cases skipped\n");
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
