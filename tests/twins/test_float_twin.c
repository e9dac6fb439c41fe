/*
 * Host test of the float twins (float_psnr, float_ansnr, float_moment, float_motion): the
 * functions the kernels call (float_filter.h, float_stats.h, float_motion.h) run here in the
 * kernels' decomposition — the same blocks, tiles with their reflected halos, per-thread
 * strides, per-row sums, the same finishing steps and the twins' collect() — and are
 * compared bit for bit with the CPU extractors:
 *   - intermediates: the blurred planes and half-size planes of float_motion and the
 *     filtered planes of float_ansnr against the CPU's own filter functions;
 *   - sums: float_psnr's and float_moment's double sums (integer units, the 2^53 finish)
 *     against the CPU's serial loops;
 *   - finals: every score the CPU extractor writes (run through its vtable, frames in order,
 *     flush included) against what the twins' collect() writes from the emulated sums.
 * Inputs: random, extremes (0 or max), flat max, flat zero, noise, real clips; sizes 1x1 to
 * 1920x1080 including odd ones and tile boundaries; 8..16 bits; 4:2:0, 4:2:2, 4:4:4; the
 * float_motion options. A bright 16-bit 2048x1100 plane takes the serial finish of the sums.
 *
 * Usage: test_float_twin [CLIPS_DIR]  (real content only when given)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/twins/kernel_args.h"
#include "feature/feature_extractor.h"
#include "feature/float_adm.h"
#include "feature/float_filter.h"
#include "feature/float_motion.h"
#include "feature/float_stats.h"
#include "feature/float_vif.h"
#include "feature/speed.h"
#include "feature_collector.h"
#include "libvmaf/picture.h"
#include "opt.h"

#include "test_twin_run.h"
#include "test_util.h"

static const char *clips_dir;

/* ---- pictures ----------------------------------------------------------------------------- */

enum Pattern { P_RANDOM, P_EXTREME, P_FLAT_MAX, P_FLAT_ZERO, P_NOISE, P_RAMP, P_COUNT };

static unsigned sample_at(const VmafPicture *pic, unsigned p, unsigned i, unsigned j)
{
    const uint8_t *row = (const uint8_t *)pic->data[p] + i * pic->stride[p];
    return pic->bpc > 8 ? ((const uint16_t *)row)[j] : row[j];
}

static void set_sample(VmafPicture *pic, unsigned p, unsigned i, unsigned j, unsigned v)
{
    uint8_t *row = (uint8_t *)pic->data[p] + i * pic->stride[p];
    if (pic->bpc > 8) ((uint16_t *)row)[j] = (uint16_t)v;
    else row[j] = (uint8_t)v;
}

static void fill(VmafPicture *pic, enum Pattern pat, unsigned frame)
{
    const unsigned max = (1u << pic->bpc) - 1;
    for (unsigned p = 0; p < 3; p++)
        for (unsigned i = 0; i < pic->h[p]; i++)
            for (unsigned j = 0; j < pic->w[p]; j++) {
                unsigned v = 0;
                switch (pat) {
                case P_RANDOM: v = rng() % (max + 1); break;
                case P_EXTREME: v = rng() & 1 ? max : 0; break;
                case P_FLAT_MAX: v = max; break;
                case P_FLAT_ZERO: v = 0; break;
                case P_NOISE: v = max / 2 + rng() % 9 - 4; break;
                default: v = ((i + j + 3 * frame) * (max / 61 + 1)) % (max + 1); break;
                }
                set_sample(pic, p, i, j, v);
            }
}

/* Frame k of a clip file (NAME_ref.yuv / NAME_dis.yuv), its own geometry. */
static int read_clip(VmafPicture *pic, const char *name, bool dis, unsigned k)
{
    return test_read_clip(clips_dir, pic, name, dis, k);
}

/* Every name the CPU wrote, every frame, equal in the twin's collector (and vice versa). */
static void compare_runs(Run *cpu, Run *twin, unsigned frames, const char *what)
{
    static const char *const names[] = {
        "float_psnr", "float_ansnr", "float_anpsnr", "float_moment_ref1st",
        "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd",
        "VMAF_feature_motion_score", "VMAF_feature_motion2_score",
        "VMAF_feature_motion3_score", "VMAF_feature_vif_scale0_score",
        "VMAF_feature_vif_scale1_score", "VMAF_feature_vif_scale2_score",
        "VMAF_feature_vif_scale3_score", "vif", "vif_num", "vif_den", "vif_num_scale0",
        "vif_den_scale0", "vif_num_scale1", "vif_den_scale1", "vif_num_scale2",
        "vif_den_scale2", "vif_num_scale3", "vif_den_scale3", "VMAF_feature_adm2_score",
        "VMAF_feature_aim_score", "VMAF_feature_adm3_score", "VMAF_feature_adm_scale0_score",
        "VMAF_feature_adm_scale1_score", "VMAF_feature_adm_scale2_score",
        "VMAF_feature_adm_scale3_score", "adm", "adm_num", "adm_den", "adm_num_scale0",
        "adm_den_scale0", "adm_num_scale1", "adm_den_scale1", "adm_num_scale2",
        "adm_den_scale2", "adm_num_scale3", "adm_den_scale3", NULL,
    };
    unsigned found = 0;
    for (unsigned n = 0; names[n]; n++)
        for (unsigned i = 0; i < frames; i++) {
            double a, b;
            const int ea = vmaf_feature_collector_get_score(cpu->fc, names[n], &a, i);
            const int eb = vmaf_feature_collector_get_score(twin->fc, names[n], &b, i);
            CHECK(!ea == !eb, "%s: %s[%u] written by %s only", what, names[n], i,
                  ea ? "the twin" : "the CPU");
            if (ea || eb) continue;
            found++;
            CHECK(a == b || (a != a && b != b), "%s: %s[%u] cpu %.17g twin %.17g", what, names[n], i, a, b);
        }
    CHECK(found > 0, "%s: no score compared", what);
}

/* ---- float_psnr / float_moment: the kernels' decomposition ----------------------------- */

static float term_at(const VmafPicture *ref, const VmafPicture *dis, int kind, unsigned m,
                     unsigned i, unsigned j)
{
    const float scale = 1.0f / vmaf_float_sample_divisor(ref->bpc);
    if (kind == FLOAT_STATS_PSNR)
        return vmaf_float_psnr_term(vmaf_float_sample(sample_at(ref, 0, i, j), scale, 0.0f),
                                    vmaf_float_sample(sample_at(dis, 0, i, j), scale, 0.0f));
    const float p = vmaf_float_sample(sample_at(m & 1 ? dis : ref, 0, i, j), scale, 0.0f);
    return m < 2 ? p : p * p;
}

static int unit_of(int kind, unsigned m, unsigned bpc)
{
    return kind == FLOAT_STATS_PSNR ? 2 * ((int)bpc - 8) : vmaf_float_moment_unit((int)m, bpc);
}

/* stats_rows (one block per row, threads striding) then stats_finish; *serial: it took the
 * serial finish */
static double twin_stats_sum(const VmafPicture *ref, const VmafPicture *dis, int kind,
                             unsigned m, bool *serial)
{
    const unsigned w = ref->w[0], h = ref->h[0];
    const int q = unit_of(kind, m, ref->bpc);
    uint64_t *rows = malloc(h * sizeof(*rows));
    uint64_t total = 0;
    for (unsigned i = 0; i < h; i++) {
        uint64_t thread[FLOAT_STATS_CUDA_THREADS] = { 0 }, units = 0;
        for (unsigned t = 0; t < FLOAT_STATS_CUDA_THREADS; t++)
            for (unsigned j = t; j < w; j += FLOAT_STATS_CUDA_THREADS)
                thread[t] += vmaf_float_stats_units(term_at(ref, dis, kind, m, i, j), q);
        for (unsigned t = FLOAT_STATS_CUDA_THREADS; t-- > 0;) units += thread[t];
        rows[i] = units;
    }
    for (unsigned i = h; i-- > 0;) total += rows[i];
    double sum;
    *serial = total >= VMAF_FLOAT_STATS_EXACT_UNITS;
    if (!*serial) {
        sum = vmaf_float_stats_from_units(total, q);
    } else {
        unsigned row;
        vmaf_float_stats_finish(rows, h, q, &sum, &row);
        for (unsigned i = row; i < h; i++)
            for (unsigned j = 0; j < w; j++) sum += term_at(ref, dis, kind, m, i, j);
    }
    free(rows);
    return sum;
}

/* the CPU's serial loops (float_stats.c) over its converted planes */
static double cpu_stats_sum(const VmafPicture *ref, const VmafPicture *dis, int kind, unsigned m)
{
    const unsigned w = ref->w[0], h = ref->h[0];
    const size_t stride = vmaf_float_stride(w);
    float *r = malloc(stride * h * sizeof(float)), *d = malloc(stride * h * sizeof(float));
    vmaf_float_plane_from_picture(ref, 0, 0.0f, r, (ptrdiff_t)stride);
    vmaf_float_plane_from_picture(dis, 0, 0.0f, d, (ptrdiff_t)stride);
    double sum = 0;
    const float *pl = m & 1 ? d : r;
    for (unsigned i = 0; i < h; i++)
        for (unsigned j = 0; j < w; j++) {
            const size_t k = i * stride + j;
            if (kind == FLOAT_STATS_PSNR) sum += vmaf_float_psnr_term(r[k], d[k]);
            else sum += m < 2 ? pl[k] : pl[k] * pl[k];
        }
    free(r);
    free(d);
    return sum;
}

/* ---- float_ansnr ---------------------------------------------------------------------------- */

/* ansnr_filter (one thread per output, window gathered and converted) into f[2][h][w] */
static void twin_ansnr_filter(const VmafPicture *ref, const VmafPicture *dis, float *f)
{
    const int w = (int)ref->w[0], h = (int)ref->h[0];
    const float scale = 1.0f / vmaf_float_sample_divisor(ref->bpc);
    float win[25];
    for (int plane = 0; plane < 2; plane++) {
        const int kw = plane ? VMAF_FLOAT_ANSNR_DIS_WIDTH : VMAF_FLOAT_ANSNR_REF_WIDTH;
        const float *k = plane ? vmaf_float_ansnr_dis_kernel : vmaf_float_ansnr_ref_kernel;
        const VmafPicture *src = plane ? dis : ref;
        for (int i = 0; i < h; i++)
            for (int j = 0; j < w; j++) {
                for (int u = 0; u < kw; u++)
                    for (int v = 0; v < kw; v++) {
                        const int y = vmaf_float_ansnr_index(i - kw / 2 + u, h);
                        const int x = vmaf_float_ansnr_index(j - kw / 2 + v, w);
                        win[u * kw + v] = vmaf_float_sample(sample_at(src, 0, y, x), scale,
                                                            VMAF_FLOAT_SAMPLE_OFFSET);
                    }
                f[((size_t)plane * h + i) * w + j] = vmaf_float_ansnr_filter_window(k, kw, win);
            }
    }
}

static void check_ansnr_planes(const VmafPicture *ref, const VmafPicture *dis, const float *f,
                               const char *what)
{
    const unsigned w = ref->w[0], h = ref->h[0];
    const size_t stride = vmaf_float_stride(w);
    float *src = malloc(stride * h * sizeof(float)), *dst = malloc(stride * h * sizeof(float));
    float *scratch = malloc((3 * (size_t)w + 10) * sizeof(float));
    unsigned bad = 0;
    for (int plane = 0; plane < 2; plane++) {
        vmaf_float_plane_from_picture(plane ? dis : ref, 0, VMAF_FLOAT_SAMPLE_OFFSET, src,
                                      (ptrdiff_t)stride);
        vmaf_float_ansnr_filter(plane ? vmaf_float_ansnr_dis_kernel : vmaf_float_ansnr_ref_kernel,
                                plane ? 5 : 3, src, (ptrdiff_t)stride, (int)w, (int)h, dst,
                                (ptrdiff_t)stride, scratch);
        for (unsigned i = 0; i < h; i++)
            for (unsigned j = 0; j < w; j++)
                bad += memcmp(&dst[i * stride + j], &f[((size_t)plane * h + i) * w + j], 4) != 0;
    }
    CHECK(!bad, "%s: %u filtered samples differ", what, bad);
    free(src);
    free(dst);
    free(scratch);
}

/* ---- float_motion: blur tiles, rows, half-size planes ------------------------------------ */

typedef struct MotionTwinSim {
    float *blur[2][3]; /* [picture][plane], the CPU's layout */
    float *scaled[2];
    float *rows;       /* n_rows */
    size_t row_offset[3], scaled_row_offset[3], n_rows;
} MotionTwinSim;

/* motion_blur: every block (tile) of the grid, as the kernel's threads fill and pass it */
static void twin_blur(const FloatMotionState *m, const VmafPicture *pic, unsigned p, float *out)
{
    enum { TW = FLOAT_MOTION_CUDA_TILE_W, TH = FLOAT_MOTION_CUDA_TILE_H,
           SW = TW + 2 * FLOAT_MOTION_CUDA_RADIUS };
    float src[(TH + 2 * FLOAT_MOTION_CUDA_RADIUS) * SW], v[TH * SW];
    const int w = (int)m->w[p], h = (int)m->h[p], R = m->kernel_width / 2;
    const float scale = 1.0f / vmaf_float_sample_divisor(pic->bpc);
    for (int y0 = 0; y0 < h; y0 += TH)
        for (int x0 = 0; x0 < w; x0 += TW) {
            const int tw = w - x0 < TW ? w - x0 : TW, th = h - y0 < TH ? h - y0 : TH;
            const int cw = tw + 2 * R;
            for (int i = 0; i < (th + 2 * R) * cw; i++) {
                const int r = i / cw, c = i % cw;
                const int y = vmaf_reflect101(y0 - R + r, h), x = vmaf_reflect101(x0 - R + c, w);
                src[r * SW + c] = vmaf_float_sample(sample_at(pic, p, (unsigned)y, (unsigned)x),
                                                    scale, VMAF_FLOAT_SAMPLE_OFFSET);
            }
            for (int i = 0; i < th * cw; i++)
                v[(i / cw) * SW + i % cw] =
                    vmaf_float_tile_vertical(m->kernel, m->kernel_width, src, SW, i / cw, i % cw);
            for (int i = 0; i < th * tw; i++)
                out[(size_t)(y0 + i / tw) * m->stride + x0 + i % tw] =
                    vmaf_float_tile_horizontal(m->kernel, m->kernel_width, v, SW, i / tw, i % tw);
        }
}

/* motion_scale of one blurred plane, read with the chroma quirk's stride */
static void twin_scale(const FloatMotionState *m, unsigned p, const float *src, float *dst)
{
    const VmafSpeedScaler *sc = &m->scaler[p];
    const size_t rs = vmaf_float_stride(m->w[p]);
    for (unsigned y = 0; y < sc->dst_h; y++)
        for (unsigned x = 0; x < sc->dst_w; x++) {
            float *o = dst + y * m->scaled_stride + x;
            if (sc->copy) {
                *o = src[y * rs + x];
                continue;
            }
            *o = vmaf_float_motion_bilinear(src + sc->row_index[2 * y] * rs,
                                            src + sc->row_index[2 * y + 1] * rs,
                                            sc->col_index[2 * x], sc->col_index[2 * x + 1],
                                            sc->col_weight[2 * x], sc->row_weight[2 * y]);
        }
}

static int sim_open(MotionTwinSim *t, const FloatMotionState *m)
{
    memset(t, 0, sizeof(*t));
    for (unsigned p = 0; p < m->n_planes; p++) {
        for (int k = 0; k < 2; k++)
            if (!(t->blur[k][p] = calloc(m->stride * m->h[p], sizeof(float)))) return -ENOMEM;
        t->row_offset[p] = t->n_rows;
        t->n_rows += m->h[p];
        if (!m->opt.add_scale1) continue;
        t->scaled_row_offset[p] = t->n_rows;
        t->n_rows += m->scaler[p].dst_h;
    }
    if (m->opt.add_scale1) {
        const size_t n = m->scaled_stride * m->scaler[0].dst_h;
        t->scaled[0] = calloc(n, sizeof(float));
        t->scaled[1] = calloc(n, sizeof(float));
    }
    t->rows = calloc(t->n_rows, sizeof(float));
    return t->rows ? 0 : -ENOMEM;
}

static void sim_close(MotionTwinSim *t)
{
    for (int k = 0; k < 2; k++) {
        for (int p = 0; p < 3; p++) free(t->blur[k][p]);
        free(t->scaled[k]);
    }
    free(t->rows);
}

/* One frame of the twin: record() (blur prev and cur, rows, scale, scaled rows), then
 * collect(); checks the blurred and half-size planes against the CPU's functions. */
static int twin_motion_frame(FloatMotionState *m, MotionTwinSim *t, const VmafPicture *prev,
                             const VmafPicture *cur, unsigned index, VmafFeatureSink *sink,
                             const char *what)
{
    if (!m->opt.force_zero && index) {
        for (unsigned p = 0; p < m->n_planes; p++) {
            twin_blur(m, prev, p, t->blur[0][p]);
            twin_blur(m, cur, p, t->blur[1][p]);
            /* intermediate: the CPU's conversion + filter of the current picture */
            float *plane = malloc(m->stride * m->h[p] * sizeof(float));
            float *blur = calloc(m->stride * m->h[p], sizeof(float));
            float *row = malloc((m->w[0] + m->kernel_width) * sizeof(float));
            vmaf_float_plane_from_picture(cur, p, VMAF_FLOAT_SAMPLE_OFFSET, plane, m->stride);
            vmaf_float_filter_plane(VMAF_FLOAT_IMPL_BEST, m->kernel, m->kernel_width, plane,
                                    m->stride, m->w[p], m->h[p], 1, blur, m->stride, row);
            CHECK(!memcmp(blur, t->blur[1][p], m->stride * m->h[p] * sizeof(float)),
                  "%s: frame %u plane %u: blurred plane differs", what, index, p);
            for (unsigned i = 0; i < m->h[p]; i++)
                t->rows[t->row_offset[p] + i] = vmaf_float_motion_row_sum(
                    t->blur[0][p] + i * m->stride, t->blur[1][p] + i * m->stride, m->w[p]);
            if (m->opt.add_scale1) {
                const VmafSpeedScaler *sc = &m->scaler[p];
                twin_scale(m, p, t->blur[0][p], t->scaled[0]);
                twin_scale(m, p, t->blur[1][p], t->scaled[1]);
                /* intermediate: the CPU's resampler on the same plane */
                float *ref_row = malloc(sc->dst_w * sizeof(float));
                unsigned bad = 0;
                for (unsigned y = 0; y < sc->dst_h; y++) {
                    vmaf_speed_scale_row(sc, blur, (ptrdiff_t)vmaf_float_stride(m->w[p]), y, ref_row);
                    bad += memcmp(ref_row, t->scaled[1] + y * m->scaled_stride,
                                  sc->dst_w * sizeof(float)) != 0;
                }
                CHECK(!bad, "%s: frame %u plane %u: %u half-size rows differ", what, index, p, bad);
                free(ref_row);
                for (unsigned i = 0; i < sc->dst_h; i++)
                    t->rows[t->scaled_row_offset[p] + i] = vmaf_float_motion_row_sum(
                        t->scaled[0] + i * m->scaled_stride, t->scaled[1] + i * m->scaled_stride,
                        sc->dst_w);
            }
            free(plane);
            free(blur);
            free(row);
        }
    }
    /* collect(), as float_motion_twin.c */
    double score = 0.;
    if (!m->opt.force_zero && index)
        for (unsigned p = 0; p < m->n_planes; p++) {
            float plane = vmaf_float_motion_mean_from_rows(t->rows + t->row_offset[p], m->w[p], m->h[p]);
            if (m->opt.add_scale1)
                plane += vmaf_float_motion_mean_from_rows(t->rows + t->scaled_row_offset[p],
                                                          m->scaler[p].dst_w, m->scaler[p].dst_h);
            score += plane;
        }
    return vmaf_float_motion_store(m, score, index, sink);
}


typedef struct Case {
    unsigned w, h, bpc, frames;
    enum VmafPixelFormat fmt;
    enum Pattern pat;
    const char *clip; /* real content (its own geometry) instead of the pattern */
} Case;

/* ---- float_vif: decimate and stats tiles, rows ---------------------------------------------- */

/* A plane the kernels read: samples (pic, scale 0 without prescale) or floats. */
typedef struct VifSrc {
    const VmafPicture *pic[2];
    const float *plane[2];
    size_t stride;
} VifSrc;

static float vif_at(const VifSrc *s, int k, int y, int x)
{
    if (s->plane[k]) return s->plane[k][(size_t)y * s->stride + x];
    const VmafPicture *p = s->pic[k];
    return vmaf_float_sample(sample_at(p, 0, (unsigned)y, (unsigned)x),
                             1.0f / vmaf_float_sample_divisor(p->bpc), VMAF_FLOAT_SAMPLE_OFFSET);
}

/* vif_decimate: every tile of the output grid (dst w x h, stride dw) */
static void twin_vif_decimate(const VifSrc *src, int w, int h, const float *f, int fw,
                              float *dst[2], int dw, int dh)
{
    enum { TW = FLOAT_VIF_CUDA_TILE_W, TH = FLOAT_VIF_CUDA_TILE_H };
    const int R = fw / 2;
    float *v = malloc(2 * TH * (2 * TW + 2 * R) * sizeof(float));
    for (int y0 = 0; y0 < dh; y0 += TH)
        for (int x0 = 0; x0 < dw; x0 += TW) {
            const int tw = dw - x0 < TW ? dw - x0 : TW, th = dh - y0 < TH ? dh - y0 : TH;
            const int cw = 2 * tw + 2 * R;
            for (int i = 0; i < 2 * th * cw; i++) {
                const int pic = i / (th * cw), r = (i / cw) % th, c = i % cw;
                const int x = vmaf_reflect101(2 * x0 - R + c, w);
                float acc = 0.0f;
                for (int k = 0; k < fw; k++)
                    acc += f[k] * vif_at(src, pic, vmaf_reflect101(2 * (y0 + r) - R + k, h), x);
                v[(pic * TH + r) * cw + c] = acc;
            }
            for (int i = 0; i < 2 * th * tw; i++) {
                const int pic = i / (th * tw), r = (i / tw) % th, c = i % tw;
                dst[pic][(size_t)(y0 + r) * dw + x0 + c] =
                    vmaf_float_taps(f, fw, v + (pic * TH + r) * cw + 2 * c);
            }
        }
    free(v);
}

/* vif_stats: num/den planes (w x h, stride w) */
static void twin_vif_stats(const VifSrc *src, int w, int h, const float *f, int fw,
                           const VmafFloatVifStatConst *sc, float *num, float *den)
{
    enum { TW = FLOAT_VIF_CUDA_TILE_W, TH = FLOAT_VIF_CUDA_TILE_H };
    const int R = fw / 2;
    float *v = malloc(5 * TH * (TW + 2 * R) * sizeof(float));
    /* the staged samples (filters up to 17 taps), NaN where the kernel writes nothing */
    const bool staged = FLOAT_VIF_CUDA_STAGED(R);
    float *stage = malloc(FLOAT_VIF_CUDA_STAGE_FLOATS(R) * sizeof(float));
    for (int y0 = 0; y0 < h; y0 += TH)
        for (int x0 = 0; x0 < w; x0 += TW) {
            const int tw = w - x0 < TW ? w - x0 : TW, th = h - y0 < TH ? h - y0 : TH;
            const int cw = tw + 2 * R, sr = th + 2 * R;
            if (staged) {
                for (int i = 0; i < FLOAT_VIF_CUDA_STAGE_FLOATS(R); i++) stage[i] = 0.0f / 0.0f;
                for (int i = 0; i < 2 * sr * cw; i++) {
                    const int pic = i / (sr * cw), rr = (i / cw) % sr, c = i % cw;
                    stage[i] = vif_at(src, pic, vmaf_reflect101(y0 - R + rr, h),
                                      vmaf_reflect101(x0 - R + c, w));
                }
            }
            for (int i = 0; i < th * cw; i++) {
                const int r = i / cw, c = i % cw;
                float acc[5] = { 0 };
                if (staged) {
                    const float *ref = stage + r * cw + c, *dis = ref + sr * cw;
                    for (int k = 0; k < fw; k++)
                        vmaf_float_vif_tap(f[k], ref[k * cw], dis[k * cw], acc);
                } else {
                    const int x = vmaf_reflect101(x0 - R + c, w);
                    for (int k = 0; k < fw; k++) {
                        const int y = vmaf_reflect101(y0 + r - R + k, h);
                        vmaf_float_vif_tap(f[k], vif_at(src, 0, y, x), vif_at(src, 1, y, x), acc);
                    }
                }
                for (int q = 0; q < 5; q++) v[(q * TH + r) * cw + c] = acc[q];
            }
            for (int i = 0; i < th * tw; i++) {
                const int r = i / tw, c = i % tw;
                float o[5];
                for (int q = 0; q < 5; q++) o[q] = vmaf_float_taps(f, fw, v + (q * TH + r) * cw + c);
                const size_t at = (size_t)(y0 + r) * w + x0 + c;
                vmaf_float_vif_pixel(sc, o[0], o[1], o[2], o[3], o[4], &num[at], &den[at]);
            }
        }
    free(stage);
    free(v);
}

/* The CPU's num/den planes of a scale from its own filter (the squares and the product
 * planes filtered take the same products in the same order as its row loops). */
static void cpu_vif_terms(const VifSrc *src, int w, int h, const float *f, int fw,
                          const VmafFloatVifStatConst *sc, float *num, float *den)
{
    const size_t n = (size_t)w * h;
    float *in = malloc(5 * n * sizeof(float)), *out = malloc(5 * n * sizeof(float));
    float *row = malloc(((size_t)w + fw) * sizeof(float));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const float a = vif_at(src, 0, y, x), b = vif_at(src, 1, y, x);
            const size_t k = (size_t)y * w + x;
            in[k] = a;
            in[n + k] = b;
            in[2 * n + k] = a * a;
            in[3 * n + k] = b * b;
            in[4 * n + k] = a * b;
        }
    for (int q = 0; q < 5; q++)
        vmaf_float_filter_plane(VMAF_FLOAT_IMPL_BEST, f, fw, in + q * n, w, (unsigned)w,
                                (unsigned)h, 1, out + q * n, w, row);
    for (size_t k = 0; k < n; k++)
        vmaf_float_vif_pixel(sc, out[k], out[n + k], out[2 * n + k], out[3 * n + k],
                             out[4 * n + k], &num[k], &den[k]);
    free(in);
    free(out);
    free(row);
}

/* One frame of the float_vif twin (record + collect) with its intermediates checked. */
static int twin_vif_frame(const FloatVifState *v, const VmafPicture *ref, const VmafPicture *dis,
                          unsigned index, VmafFeatureSink *sink, const char *what)
{
    const VmafFloatVifWorkspace *ws = &v->ws;
    VifSrc src = { .pic = { ref, dis } };
    float *planes[VMAF_FLOAT_VIF_SCALES][2] = { { NULL } };
    float *conv[2] = { NULL, NULL };
    if (v->resample) { /* convert + resample */
        const VmafSpeedScaler *sc = &v->scaler;
        const size_t cstride = vmaf_float_stride(v->w);
        float *cpu_row = malloc(sc->dst_w * sizeof(float));
        unsigned bad = 0;
        for (int k = 0; k < 2; k++) {
            conv[k] = malloc(cstride * v->h * sizeof(float));
            vmaf_float_plane_from_picture(k ? dis : ref, 0, VMAF_FLOAT_SAMPLE_OFFSET, conv[k],
                                          (ptrdiff_t)cstride);
            planes[0][k] = malloc((size_t)ws->w[0] * ws->h[0] * sizeof(float));
            for (unsigned y = 0; y < sc->dst_h; y++) {
                for (unsigned x = 0; x < sc->dst_w; x++)
                    planes[0][k][(size_t)y * ws->w[0] + x] = vmaf_float_resample_at(
                        (int)sc->method, conv[k], (ptrdiff_t)cstride, sc->row_index + sc->taps * y,
                        sc->row_weight + sc->taps * y, sc->col_index + sc->taps * x,
                        sc->col_weight + sc->taps * x);
                vmaf_speed_scale_row(sc, conv[k], (ptrdiff_t)cstride, y, cpu_row);
                bad += memcmp(cpu_row, planes[0][k] + (size_t)y * ws->w[0], sc->dst_w * 4) != 0;
            }
        }
        CHECK(!bad, "%s: frame %u: %u prescaled rows differ", what, index, bad);
        free(cpu_row);
        src.plane[0] = planes[0][0];
        src.plane[1] = planes[0][1];
        src.stride = ws->w[0];
    }
    float num[VMAF_FLOAT_VIF_SCALES] = { 0 }, den[VMAF_FLOAT_VIF_SCALES] = { 0 };
    const size_t n0 = (size_t)ws->w[0] * ws->h[0];
    float *tn = malloc(n0 * sizeof(float) + 4), *td = malloc(n0 * sizeof(float) + 4);
    float *cn = malloc(n0 * sizeof(float) + 4), *cd = malloc(n0 * sizeof(float) + 4);
    float *row = malloc(((size_t)ws->w[0] + VMAF_FLOAT_VIF_MAX_FILTER) * sizeof(float));
    int w = (int)ws->w[0], h = (int)ws->h[0];
    for (int k = 0; k < VMAF_FLOAT_VIF_SCALES; k++) {
        const int fw = ws->width[k];
        if (k > 0) {
            if (!ws->w[k] || !ws->h[k]) break;
            const int dw = (int)ws->w[k], dh = (int)ws->h[k];
            for (int q = 0; q < 2; q++) planes[k][q] = malloc((size_t)dw * dh * sizeof(float));
            twin_vif_decimate(&src, w, h, ws->filter[k], fw, planes[k], dw, dh);
            /* intermediate: the CPU's filter with step 2 on the same input */
            unsigned bad = 0;
            float *in = malloc((size_t)w * h * sizeof(float)), *out = malloc((size_t)dw * dh * 4);
            for (int q = 0; q < 2; q++) {
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) in[(size_t)y * w + x] = vif_at(&src, q, y, x);
                vmaf_float_filter_plane(VMAF_FLOAT_IMPL_BEST, ws->filter[k], fw, in, w,
                                        (unsigned)w, (unsigned)h, 2, out, dw, row);
                bad += memcmp(out, planes[k][q], (size_t)dw * dh * 4) != 0;
            }
            CHECK(!bad, "%s: frame %u: decimated scale %d differs", what, index, k);
            free(in);
            free(out);
            src.pic[0] = src.pic[1] = NULL;
            src.plane[0] = planes[k][0];
            src.plane[1] = planes[k][1];
            src.stride = (size_t)dw;
            w = dw;
            h = dh;
        } else if (v->opt.skip_scale0 || !w || !h) {
            continue;
        }
        twin_vif_stats(&src, w, h, ws->filter[k], fw, &v->stat, tn, td);
        cpu_vif_terms(&src, w, h, ws->filter[k], fw, &v->stat, cn, cd);
        CHECK(!memcmp(tn, cn, (size_t)w * h * 4) && !memcmp(td, cd, (size_t)w * h * 4),
              "%s: frame %u: num/den planes of scale %d differ", what, index, k);
        for (int i = 0; i < h; i++) { /* vif_rows, then collect() */
            float ln, ld;
            vmaf_float_vif_row_sums(tn + (size_t)i * w, td + (size_t)i * w, (unsigned)w, &ln, &ld);
            num[k] += ln;
            den[k] += ld;
        }
    }
    /* the sums against the CPU's own function on the CPU's planes */
    float cpu_num[VMAF_FLOAT_VIF_SCALES] = { 0 }, cpu_den[VMAF_FLOAT_VIF_SCALES] = { 0 };
    VmafFloatVifWorkspace cws;
    const size_t stride = vmaf_float_stride(v->w);
    float *pr = malloc(stride * v->h * 4), *pd = malloc(stride * v->h * 4);
    vmaf_float_plane_from_picture(ref, 0, VMAF_FLOAT_SAMPLE_OFFSET, pr, (ptrdiff_t)stride);
    vmaf_float_plane_from_picture(dis, 0, VMAF_FLOAT_SAMPLE_OFFSET, pd, (ptrdiff_t)stride);
    int err = vmaf_float_vif_workspace_init(&cws, ws->w[0], ws->h[0], (float)v->opt.kernelscale);
    if (!err) {
        const float *a = pr, *b = pd;
        ptrdiff_t st = (ptrdiff_t)stride;
        if (v->resample) {
            a = planes[0][0];
            b = planes[0][1];
            st = ws->w[0];
        }
        err = vmaf_float_vif_scales(VMAF_FLOAT_IMPL_BEST, &cws, &v->stat, a, b, st,
                                    v->opt.skip_scale0, cpu_num, cpu_den);
        vmaf_float_vif_workspace_close(&cws);
    }
    for (int k = 0; !err && k < VMAF_FLOAT_VIF_SCALES; k++)
        CHECK(!memcmp(&num[k], &cpu_num[k], 4) && !memcmp(&den[k], &cpu_den[k], 4),
              "%s: frame %u scale %d: twin %.9g/%.9g cpu %.9g/%.9g", what, index, k, num[k],
              den[k], cpu_num[k], cpu_den[k]);
    free(pr);
    free(pd);
    for (int k = 0; k < VMAF_FLOAT_VIF_SCALES; k++) {
        free(planes[k][0]);
        free(planes[k][1]);
    }
    free(conv[0]);
    free(conv[1]);
    free(tn);
    free(td);
    free(cn);
    free(cd);
    free(row);
    if (err) return err;
    return vmaf_float_vif_store(v, num, den, index, sink);
}

static void run_vif_case(const Case *c, VmafPicture *ref, VmafPicture *dis,
                         const char *const *opts, const char *what)
{
    const VmafFeatureGeometry g = { .pix_fmt = c->fmt, .bpc = c->bpc, .w = c->w, .h = c->h,
                                    .log_level = VMAF_LOG_LEVEL_NONE };
    Run cpu, twin;
    if (run_open(&cpu, "float_vif", opts, &g)) { /* refused: no twin either */
        run_close(&cpu);
        return;
    }
    int err = run_open(&twin, "float_vif", opts, &g);
    CHECK(!err, "%s: float_vif init %d", what, err);
    for (unsigned k = 0; !err && k < c->frames; k++) {
        const VmafFeatureFrame frame = { .ref = &ref[k], .dist = &dis[k], .index = k };
        CHECK(!cpu.fex->extract(cpu.priv, &frame, &cpu.sink), "%s: cpu extract", what);
        err = twin_vif_frame(twin.priv, &ref[k], &dis[k], k, &twin.sink, what);
        CHECK(!err, "%s: twin frame %u: %d", what, k, err);
    }
    if (!err) compare_runs(&cpu, &twin, c->frames, what);
    run_close(&cpu);
    run_close(&twin);
}

static const char *const vif_opts[][9] = {
    { "debug", "true", NULL },
    { "vif_kernelscale", "0.5", "vif_enhn_gain_limit", "1", NULL },
    { "vif_kernelscale", "4", "debug", "true", NULL },
    { "vif_skip_scale0", "true", "vif_sigma_nsq", "0.5", "debug", "true", NULL },
    { "vif_prescale", "0.5", "vif_prescale_method", "bilinear", "debug", "true", NULL },
    { "vif_prescale", "1.5", "vif_prescale_method", "bicubic", NULL },
    { "vif_prescale", "0.7", "vif_prescale_method", "lanczos4", "vif_scale1_min_val", "0.5", NULL },
    { "vif_prescale", "2", "vif_scale2_min_val", "0.9", "vif_scale3_min_val", "1", NULL },
    { "vif_kernelscale", "1.5", "vif_skip_scale0", "true", NULL },
};
enum { N_VIF_OPTS = sizeof(vif_opts) / sizeof(vif_opts[0]) };

/* ---- float_adm: DWT, decouple + CSF, terms, rows ------------------------------------------------ */

typedef struct AdmSim {
    float *p[FLOAT_ADM_PLANES]; /* compact planes (stride = the scale's band width), NaN-filled */
    float *terms[FLOAT_ADM_SUMS][3];
    float *rows[FLOAT_ADM_SUMS][3];
} AdmSim;

/* One frame of the float_adm twin, its bands checked against the CPU's DWT. */
static int twin_adm_frame(const FloatAdmState *st, const VmafPicture *ref, const VmafPicture *dis,
                          unsigned index, VmafFeatureSink *sink, const char *what)
{
    const VmafFloatAdmParams *p = &st->params;
    const int bw0 = ((int)st->w + 1) / 2, bh0 = ((int)st->h + 1) / 2;
    const size_t n = (size_t)bw0 * bh0, tn = (size_t)(bw0 + 2) * (bh0 + 2);
    AdmSim sim;
    const float nan = 0.0f / 0.0f;
    for (int k = 0; k < FLOAT_ADM_PLANES; k++) {
        sim.p[k] = malloc(n * sizeof(float));
        for (size_t x = 0; x < n; x++) sim.p[k][x] = nan;
    }
    for (int q = 0; q < FLOAT_ADM_SUMS; q++)
        for (int b = 0; b < 3; b++) {
            sim.terms[q][b] = malloc(tn * sizeof(float));
            sim.rows[q][b] = malloc(((size_t)bh0 + 2) * sizeof(float));
        }
    /* the CPU's planes and DWT, for the intermediates */
    const size_t stride = vmaf_float_stride(st->w);
    float *cpu_in[2] = { malloc(stride * st->h * 4), malloc(stride * st->h * 4) };
    vmaf_float_plane_from_picture(ref, 0, VMAF_FLOAT_SAMPLE_OFFSET, cpu_in[0], (ptrdiff_t)stride);
    vmaf_float_plane_from_picture(dis, 0, VMAF_FLOAT_SAMPLE_OFFSET, cpu_in[1], (ptrdiff_t)stride);
    float *cpu_band = malloc(4 * n * sizeof(float) + 16), *lo = malloc(2 * (st->w + 1) * 4);
    const float *src[2] = { NULL, NULL };
    int sw = (int)st->w, sh = (int)st->h;
    VmafFloatAdmScale out[VMAF_FLOAT_ADM_SCALES];
    const uint32_t *rcp = st->ws.rcp;
    const float cos1 = vmaf_float_adm_cos_1deg_sq();
    const bool cube = p->p_norm == 3.0; /* as float_adm_twin.c passes them */
    const float pf = (float)p->p_norm;
    for (int k = 0; k < VMAF_FLOAT_ADM_SCALES; k++) {
        const int w = (sw + 1) / 2, h = (sh + 1) / 2, lo_only = k == 0 && p->skip_scale0;
        const int a_out = k & 1;
        for (int pic = 0; pic < 2; pic++) { /* adm_dwt: one thread per band sample */
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++) {
                    float win[4][4], o[4];
                    for (int r = 0; r < 4; r++) {
                        const int y = vmaf_float_adm_dwt_index(2 * i - 1 + r, sh);
                        for (int u = 0; u < 4; u++) {
                            const int x = vmaf_float_adm_dwt_index(2 * j - 1 + u, sw);
                            win[r][u] = src[pic] ? src[pic][(size_t)y * sw + x]
                                                 : vmaf_float_sample(sample_at(pic ? dis : ref, 0, y, x),
                                                                     1.0f / vmaf_float_sample_divisor(ref->bpc),
                                                                     VMAF_FLOAT_SAMPLE_OFFSET);
                        }
                    }
                    vmaf_float_adm_dwt_at(win, lo_only, o);
                    const size_t at = (size_t)i * w + j;
                    sim.p[FLOAT_ADM_P_A + 2 * a_out + pic][at] = o[0];
                    if (lo_only) continue;
                    const int bands = pic ? FLOAT_ADM_P_DIS : FLOAT_ADM_P_REF;
                    sim.p[bands][at] = o[2];
                    sim.p[bands + 1][at] = o[1];
                    sim.p[bands + 2][at] = o[3];
                }
            /* intermediate: the CPU's DWT of the same input */
            const VmafFloatAdmBands cb = { cpu_band, cpu_band + n, cpu_band + 2 * n, cpu_band + 3 * n };
            if (src[pic]) vmaf_float_adm_dwt(src[pic], sw, sw, sh, &cb, w, lo_only, lo, lo + st->w + 1);
            else vmaf_float_adm_dwt(cpu_in[pic], (ptrdiff_t)stride, sw, sh, &cb, w, lo_only, lo, lo + st->w + 1);
            const float *tw[4] = { sim.p[FLOAT_ADM_P_A + 2 * a_out + pic],
                                   sim.p[(pic ? FLOAT_ADM_P_DIS : FLOAT_ADM_P_REF)],
                                   sim.p[(pic ? FLOAT_ADM_P_DIS : FLOAT_ADM_P_REF) + 1],
                                   sim.p[(pic ? FLOAT_ADM_P_DIS : FLOAT_ADM_P_REF) + 2] };
            const float *cw[4] = { cb.a, cb.h, cb.v, cb.d };
            unsigned bad = 0;
            for (int b = 0; b < (lo_only ? 1 : 4); b++) bad += memcmp(tw[b], cw[b], (size_t)w * h * 4) != 0;
            CHECK(!bad, "%s: frame %u scale %d pic %d: %u DWT bands differ", what, index, k, pic, bad);
        }
        src[0] = sim.p[FLOAT_ADM_P_A + 2 * a_out];
        src[1] = sim.p[FLOAT_ADM_P_A + 2 * a_out + 1];
        sw = w;
        sh = h;
        if (lo_only) {
            out[k] = (VmafFloatAdmScale){ .num = 0.0f, .den = 1e-10f, .aim_num = 0.0f };
            continue;
        }
        const VmafFloatAdmRegion o = vmaf_float_adm_region_outer(w, h);
        const VmafFloatAdmRegion in = vmaf_float_adm_region_inner(w, h);
        const float *rf = p->rfactor[k];
        for (int i = o.top; i < o.bottom; i++) /* adm_decouple */
            for (int j = o.left; j < o.right; j++) {
                const size_t x = (size_t)i * w + j;
                float ov[3], tv[3];
                for (int b = 0; b < 3; b++) {
                    ov[b] = sim.p[FLOAT_ADM_P_REF + b][x];
                    tv[b] = sim.p[FLOAT_ADM_P_DIS + b][x];
                }
                const bool angle = vmaf_float_adm_angle_flag(ov[0], ov[1], tv[0], tv[1], cos1);
                for (int b = 0; b < 3; b++) {
                    const float r = vmaf_float_adm_restore(rcp, ov[b], tv[b], angle, p->enhn_gain_limit);
                    const float cr = rf[b] * r, ca = rf[b] * (tv[b] - r);
                    sim.p[FLOAT_ADM_P_CSF_R + b][x] = cr;
                    sim.p[FLOAT_ADM_P_CSF_A + b][x] = ca;
                    sim.p[FLOAT_ADM_P_MASK_R + b][x] = vmaf_float_adm_mask_value(cr);
                    sim.p[FLOAT_ADM_P_MASK_A + b][x] = vmaf_float_adm_mask_value(ca);
                }
            }
        const VmafFloatAdmVisit vr = vmaf_float_adm_visit(in.top, in.bottom, h);
        const VmafFloatAdmVisit vc = vmaf_float_adm_visit(in.left, in.right, w);
        const int nr = vmaf_float_adm_visit_count(vr), nc = vmaf_float_adm_visit_count(vc);
        const int dw = in.right - in.left, dh = in.bottom - in.top;
        for (int kr = 0; kr < nr; kr++) /* adm_terms */
            for (int kc = 0; kc < nc; kc++) {
                const int i = vmaf_float_adm_visit_at(vr, kr), j = vmaf_float_adm_visit_at(vc, kc);
                for (int q = 0; q < 2; q++) {
                    const int sc = q ? FLOAT_ADM_P_CSF_A : FLOAT_ADM_P_CSF_R;
                    const int ot = q ? FLOAT_ADM_P_CSF_R : FLOAT_ADM_P_CSF_A;
                    const int mk = q ? FLOAT_ADM_P_MASK_R : FLOAT_ADM_P_MASK_A;
                    const float *const om[3] = { sim.p[mk], sim.p[mk + 1], sim.p[mk + 2] };
                    const float *const oc[3] = { sim.p[ot], sim.p[ot + 1], sim.p[ot + 2] };
                    const float thr = p->bypass_cm ? 0.0f : vmaf_float_adm_threshold(om, oc, w, w, h, i, j);
                    for (int b = 0; b < 3; b++)
                        sim.terms[q][b][(size_t)kr * nc + kc] =
                            vmaf_float_adm_term(sim.p[sc + b][(size_t)i * w + j], thr, cube, pf);
                }
            }
        for (int kr = 0; kr < dh; kr++)
            for (int kc = 0; kc < dw; kc++)
                for (int b = 0; b < 3; b++)
                    sim.terms[2][b][(size_t)kr * dw + kc] = vmaf_float_adm_term(
                        rf[b] * sim.p[FLOAT_ADM_P_REF + b][(size_t)(in.top + kr) * w + in.left + kc], 0.0f,
                        cube, pf);
        float value[FLOAT_ADM_SUMS];
        for (int q = 0; q < FLOAT_ADM_SUMS; q++) { /* adm_rows, then collect() */
            const int rn = q < 2 ? nr : (dh > 0 ? dh : 0), cn = q < 2 ? nc : dw;
            float total[3] = { 0.0f, 0.0f, 0.0f };
            for (int r = 0; r < rn; r++)
                for (int b = 0; b < 3; b++) {
                    float acc = 0.0f;
                    for (int c = 0; c < cn; c++) acc += sim.terms[q][b][(size_t)r * cn + c];
                    sim.rows[q][b][r] = acc;
                }
            for (int r = 0; r < rn; r++)
                for (int b = 0; b < 3; b++) total[b] += sim.rows[q][b][r];
            value[q] = vmaf_float_adm_band_value(total, dw, dh, q == 1 ? 0.0 : p->noise_weight, p->p_norm);
        }
        out[k] = (VmafFloatAdmScale){ .num = value[0], .den = value[2], .aim_num = value[1] };
    }
    /* the scales against the CPU's own function */
    VmafFloatAdmWorkspace ws;
    VmafFloatAdmScale cpu[VMAF_FLOAT_ADM_SCALES];
    int err = vmaf_float_adm_workspace_init(&ws, st->w, st->h);
    if (!err) err = vmaf_float_adm_scales(VMAF_FLOAT_IMPL_BEST, &ws, p, cpu_in[0], cpu_in[1],
                                          (ptrdiff_t)stride, cpu);
    vmaf_float_adm_workspace_close(&ws);
    for (int k = 0; !err && k < VMAF_FLOAT_ADM_SCALES; k++)
        CHECK(!memcmp(&out[k], &cpu[k], sizeof(out[k])), "%s: frame %u scale %d: twin %.9g %.9g %.9g "
              "cpu %.9g %.9g %.9g", what, index, k, out[k].num, out[k].den, out[k].aim_num,
              cpu[k].num, cpu[k].den, cpu[k].aim_num);
    for (int k = 0; k < FLOAT_ADM_PLANES; k++) free(sim.p[k]);
    for (int q = 0; q < FLOAT_ADM_SUMS; q++)
        for (int b = 0; b < 3; b++) {
            free(sim.terms[q][b]);
            free(sim.rows[q][b]);
        }
    free(cpu_in[0]);
    free(cpu_in[1]);
    free(cpu_band);
    free(lo);
    if (err) return err;
    return vmaf_float_adm_store(st, out, index, sink);
}

static void run_adm_case(const Case *c, VmafPicture *ref, VmafPicture *dis,
                         const char *const *opts, const char *what)
{
    const VmafFeatureGeometry g = { .pix_fmt = c->fmt, .bpc = c->bpc, .w = c->w, .h = c->h,
                                    .log_level = VMAF_LOG_LEVEL_NONE };
    Run cpu, twin;
    if (run_open(&cpu, "float_adm", opts, &g)) {
        run_close(&cpu);
        return;
    }
    int err = run_open(&twin, "float_adm", opts, &g);
    CHECK(!err, "%s: float_adm init %d", what, err);
    for (unsigned k = 0; !err && k < c->frames; k++) {
        const VmafFeatureFrame frame = { .ref = &ref[k], .dist = &dis[k], .index = k };
        CHECK(!cpu.fex->extract(cpu.priv, &frame, &cpu.sink), "%s: cpu extract", what);
        err = twin_adm_frame(twin.priv, &ref[k], &dis[k], k, &twin.sink, what);
        CHECK(!err, "%s: twin frame %u: %d", what, k, err);
    }
    if (!err) compare_runs(&cpu, &twin, c->frames, what);
    run_close(&cpu);
    run_close(&twin);
}

static const char *const adm_opts[][11] = {
    { "debug", "true", NULL },
    { "adm_enhn_gain_limit", "1", "adm_csf_mode", "1", "debug", "true", NULL },
    { "adm_bypass_cm", "1", "adm_skip_aim_scale", "2", "adm_min_val", "0.3", NULL },
    { "adm_skip_scale0", "true", "adm_csf_mode", "2", "adm_adm3_apply_hm", "true", "debug", "true", NULL },
    { "adm_norm_view_dist", "1.5", "adm_ref_display_height", "2160", "adm_noise_weight", "0.5",
      "adm_f1s1", "0.7", NULL },
    { "adm_csf_scale", "2", "adm_csf_diag_scale", "0.5", "adm_dlm_weight", "0.2", "adm_f2s3", "3", NULL },
    /* adm_p_norm != 3: every term through vmaf_xpowf (3.00000001 is 3.0f, but not x * x * x) */
    { "adm_p_norm", "2.5", "debug", "true", NULL },
    { "adm_p_norm", "1", "adm_noise_weight", "0.5", NULL },
    { "adm_p_norm", "4", "adm_bypass_cm", "1", "debug", "true", NULL },
    { "adm_p_norm", "20", "adm_csf_mode", "2", NULL },
    { "adm_p_norm", "1.5", "adm_skip_scale0", "true", "debug", "true", NULL },
    { "adm_p_norm", "2", "adm_enhn_gain_limit", "1.2", NULL },
    { "adm_p_norm", "3.00000001", "debug", "true", NULL },
};
enum { N_ADM_OPTS = sizeof(adm_opts) / sizeof(adm_opts[0]) };

/* ---- cases ------------------------------------------------------------------------------------ */

static int alloc_frames(const Case *c, VmafPicture *ref, VmafPicture *dis)
{
    for (unsigned k = 0; k < c->frames; k++) {
        if (vmaf_picture_alloc(&ref[k], c->fmt, c->bpc, c->w, c->h) ||
            vmaf_picture_alloc(&dis[k], c->fmt, c->bpc, c->w, c->h))
            return -ENOMEM;
        if (c->clip) {
            if (read_clip(&ref[k], c->clip, false, k) || read_clip(&dis[k], c->clip, true, k))
                return -ENOENT;
            continue;
        }
        fill(&ref[k], c->pat, k);
        if (k % 3 == 2) { /* identical frames now and then */
            for (unsigned p = 0; p < 3; p++)
                if (ref[k].data[p] && ref[k].h[p])
                    memcpy(dis[k].data[p], ref[k].data[p], ref[k].stride[p] * ref[k].h[p]);
        } else {
            fill(&dis[k], c->pat == P_FLAT_MAX ? P_FLAT_ZERO : c->pat, k + 7);
        }
    }
    return 0;
}

static void run_stats_case(const Case *c, VmafPicture *ref, VmafPicture *dis, const char *what)
{
    const VmafFeatureGeometry g = { .pix_fmt = c->fmt, .bpc = c->bpc, .w = c->w, .h = c->h,
                                    .log_level = VMAF_LOG_LEVEL_NONE };
    static const char *const names[3] = { "float_psnr", "float_moment", "float_ansnr" };
    for (int e = 0; e < 3; e++) {
        Run cpu, twin;
        int err = run_open(&cpu, names[e], NULL, &g);
        if (!err) err = run_open(&twin, names[e], NULL, &g);
        CHECK(!err, "%s: %s init %d", what, names[e], err);
        if (err) return;
        float *filtered = e == 2 ? malloc(2 * sizeof(float) * c->w * c->h) : NULL;
        float *rows = e == 2 ? malloc(2 * sizeof(float) * c->h) : NULL;
        for (unsigned k = 0; k < c->frames; k++) {
            const VmafFeatureFrame frame = { .ref = &ref[k], .dist = &dis[k], .index = k };
            CHECK(!cpu.fex->extract(cpu.priv, &frame, &cpu.sink), "%s: cpu extract", what);
            if (e == 0 || e == 1) {
                const int kind = e ? FLOAT_STATS_MOMENT : FLOAT_STATS_PSNR;
                double sums[4];
                for (unsigned m = 0; m < (e ? 4u : 1u); m++) {
                    bool serial;
                    sums[m] = twin_stats_sum(&ref[k], &dis[k], kind, m, &serial);
                    const double want = cpu_stats_sum(&ref[k], &dis[k], kind, m);
                    CHECK(sums[m] == want, "%s: %s sum %u: twin %.17g cpu %.17g%s", what,
                          names[e], m, sums[m], want, serial ? " (serial finish)" : "");
                }
                err = e ? vmaf_float_moment_store(c->w, c->h, sums, k, &twin.sink)
                        : vmaf_float_psnr_store(c->w, c->h, c->bpc, sums[0], k, &twin.sink);
            } else {
                twin_ansnr_filter(&ref[k], &dis[k], filtered);
                check_ansnr_planes(&ref[k], &dis[k], filtered, what);
                for (unsigned i = 0; i < c->h; i++) /* ansnr_rows: one thread per row */
                    vmaf_float_ansnr_row_sums(filtered + (size_t)i * c->w,
                                              filtered + ((size_t)c->h + i) * c->w, c->w,
                                              &rows[2 * i], &rows[2 * i + 1]);
                float sig = 0, noise = 0; /* collect() */
                for (unsigned i = 0; i < c->h; i++) {
                    sig += rows[2 * i];
                    noise += rows[2 * i + 1];
                }
                err = vmaf_float_ansnr_store(c->w, c->h, c->bpc, sig, noise, k, &twin.sink);
            }
            CHECK(!err, "%s: twin store %d", what, err);
        }
        char label[256];
        snprintf(label, sizeof(label), "%s %s", what, names[e]);
        compare_runs(&cpu, &twin, c->frames, label);
        free(filtered);
        free(rows);
        run_close(&cpu);
        run_close(&twin);
    }
}

static void run_motion_case(const Case *c, VmafPicture *ref, const char *const *opts,
                            const char *what)
{
    const VmafFeatureGeometry g = { .pix_fmt = c->fmt, .bpc = c->bpc, .w = c->w, .h = c->h,
                                    .log_level = VMAF_LOG_LEVEL_NONE };
    Run cpu, twin;
    int err = run_open(&cpu, "float_motion", opts, &g);
    if (err) { /* refused (e.g. empty chroma planes): the twin is never created */
        run_close(&cpu);
        return;
    }
    err = run_open(&twin, "float_motion", opts, &g);
    CHECK(!err, "%s: float_motion init %d", what, err);
    if (err) return;
    MotionTwinSim sim;
    err = sim_open(&sim, twin.priv);
    CHECK(!err, "%s: sim %d", what, err);
    for (unsigned k = 0; !err && k < c->frames; k++) {
        const VmafFeatureFrame frame = { .ref = &ref[k], .dist = &ref[k], .index = k };
        CHECK(!cpu.fex->extract(cpu.priv, &frame, &cpu.sink), "%s: cpu extract", what);
        err = twin_motion_frame(twin.priv, &sim, k ? &ref[k - 1] : NULL, &ref[k], k, &twin.sink,
                                what);
        CHECK(!err, "%s: twin frame %u: %d", what, k, err);
    }
    CHECK(!cpu.fex->flush(cpu.priv, &cpu.sink), "%s: cpu flush", what);
    CHECK(!twin.fex->flush(twin.priv, &twin.sink), "%s: twin flush", what);
    compare_runs(&cpu, &twin, c->frames, what);
    sim_close(&sim);
    run_close(&cpu);
    run_close(&twin);
}

static const char *const motion_opts[][7] = {
    { NULL },
    { "motion_filter_size", "3", NULL },
    { "motion_filter_size", "1", "motion_fps_weight", "2", "motion_max_val", "3", NULL },
    { "motion_add_uv", "true", NULL },
    { "motion_add_scale1", "true", NULL },
    { "motion_add_uv", "true", "motion_add_scale1", "true", NULL },
    { "motion_force_zero", "true", NULL },
    { "motion_blend_factor", "0.5", "motion_blend_offset", "3", "debug", "false", NULL },
};
enum { N_MOTION_OPTS = sizeof(motion_opts) / sizeof(motion_opts[0]) };

static void run_case(const Case *c, bool all_motion_opts)
{
    VmafPicture ref[8], dis[8];
    memset(ref, 0, sizeof(ref));
    memset(dis, 0, sizeof(dis));
    char what[160];
    snprintf(what, sizeof(what), "%ux%u %u-bit fmt %d %s%s (seed %llu)", c->w, c->h, c->bpc,
             (int)c->fmt, c->clip ? "clip " : "pattern", c->clip ? c->clip : "",
             (unsigned long long)rng_state);
    if (!c->clip) snprintf(what + strlen(what), sizeof(what) - strlen(what), " %d", (int)c->pat);
    int err = alloc_frames(c, ref, dis);
    CHECK(!err, "%s: frames %d", what, err);
    if (!err) {
        const bool big = c->w * c->h > 1000000; /* one option set each: keeps the test fast */
        run_stats_case(c, ref, dis, what);
        for (unsigned o = 0; o < N_MOTION_OPTS; o++) {
            if (!all_motion_opts && o != 0 && (big || o != (c->w % N_MOTION_OPTS))) continue;
            char label[256];
            snprintf(label, sizeof(label), "%s float_motion opts %u", what, o);
            run_motion_case(c, ref, motion_opts[o], label);
        }
        for (unsigned o = 0; o < N_VIF_OPTS; o++) {
            if (!all_motion_opts && o != 0 && (big || o != (c->h % N_VIF_OPTS))) continue;
            char label[256];
            snprintf(label, sizeof(label), "%s float_vif opts %u", what, o);
            run_vif_case(c, ref, dis, vif_opts[o], label);
        }
        for (unsigned o = 0; o < N_ADM_OPTS; o++) {
            if (!all_motion_opts && o != 0 && (big || o != ((c->w + c->h) % N_ADM_OPTS))) continue;
            char label[256];
            snprintf(label, sizeof(label), "%s float_adm opts %u", what, o);
            run_adm_case(c, ref, dis, adm_opts[o], label);
        }
    }
    for (unsigned k = 0; k < c->frames; k++) {
        if (ref[k].ref) vmaf_picture_unref(&ref[k]);
        if (dis[k].ref) vmaf_picture_unref(&dis[k]);
    }
}

int main(int argc, char **argv)
{
    clips_dir = argc > 1 ? argv[1] : NULL;
    rng_state = 0x5eed2026ull;
    static const unsigned sizes[][2] = { { 1, 1 }, { 2, 3 }, { 3, 3 }, { 4, 7 }, { 17, 17 },
                                         { 33, 21 }, { 64, 16 }, { 65, 17 }, { 130, 33 },
                                         { 257, 145 } };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    unsigned n = 0;
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (unsigned bpc = 8; bpc <= 16; bpc++) {
            const Case c = { .w = sizes[s][0], .h = sizes[s][1], .bpc = bpc, .frames = 4,
                             .fmt = fmts[(s + bpc) % 3], .pat = (enum Pattern)((s + bpc) % P_COUNT) };
            run_case(&c, s == 5 || s == 7 || (bpc & 3) == 0);
            n++;
        }
    /* every pattern at one odd size and three depths */
    for (int p = 0; p < P_COUNT; p++)
        for (unsigned bpc = 8; bpc <= 16; bpc += 4) {
            const Case c = { .w = 67, .h = 35, .bpc = bpc, .frames = 4,
                             .fmt = VMAF_PIX_FMT_YUV420P, .pat = (enum Pattern)p };
            run_case(&c, true);
            n++;
        }
    /* the serial finish of the double sums: bright 16-bit planes of 2^21+ samples */
    {
        const Case c = { .w = 2048, .h = 1100, .bpc = 16, .frames = 1,
                         .fmt = VMAF_PIX_FMT_YUV420P, .pat = P_EXTREME };
        VmafPicture ref, dis;
        CHECK(!vmaf_picture_alloc(&ref, c.fmt, 16, c.w, c.h), "alloc");
        CHECK(!vmaf_picture_alloc(&dis, c.fmt, 16, c.w, c.h), "alloc");
        fill(&ref, P_FLAT_MAX, 0);
        fill(&dis, P_FLAT_ZERO, 0);
        set_sample(&dis, 0, 1099, 2047, 12345); /* a last term after the crossing */
        bool serial_psnr, serial_moment;
        const double psnr = twin_stats_sum(&ref, &dis, FLOAT_STATS_PSNR, 0, &serial_psnr);
        const double m2 = twin_stats_sum(&ref, &dis, FLOAT_STATS_MOMENT, 2, &serial_moment);
        CHECK(serial_psnr && serial_moment, "the bright plane did not reach 2^53 units");
        CHECK(psnr == cpu_stats_sum(&ref, &dis, FLOAT_STATS_PSNR, 0), "psnr serial finish");
        CHECK(m2 == cpu_stats_sum(&ref, &dis, FLOAT_STATS_MOMENT, 2), "moment serial finish");
        vmaf_picture_unref(&ref);
        vmaf_picture_unref(&dis);
        n++;
    }
    /* real content at the clips' own geometry */
    if (clips_dir) {
        static const Case clips[] = {
            { 576, 324, 8, 3, VMAF_PIX_FMT_YUV420P, 0, "boats_576x324_420p" },
            { 352, 288, 8, 3, VMAF_PIX_FMT_YUV444P, 0, "cups_352x288_444p" },
            { 320, 180, 16, 3, VMAF_PIX_FMT_YUV420P, 0, "deep_320x180_420p16" },
            { 576, 324, 10, 3, VMAF_PIX_FMT_YUV420P, 0, "forest_576x324_420p10" },
            { 1920, 1080, 8, 2, VMAF_PIX_FMT_YUV420P, 0, "jetty_1920x1080_420p" },
        };
        for (unsigned i = 0; i < sizeof(clips) / sizeof(clips[0]); i++) {
            run_case(&clips[i], i == 0);
            n++;
        }
    }
    printf("float_twin: %u cases, %d checks, %d failures\n", n, checks, failures);
    return failures ? 1 : 0;
}
