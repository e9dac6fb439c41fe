/*
 * Twin VMAF — integer VIF: what vif.c (plain kernels, dispatch, extractor) and vif_simd.c
 * (hand-written AVX2/AVX-512 passes) share. Private to those two files.
 */
#ifndef VMAF_FEATURE_VIF_INTERNAL_H
#define VMAF_FEATURE_VIF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vif.h"
#include "vif_device.h"

#if defined(__GNUC__)
#define VIF_INLINE static inline __attribute__((always_inline))
#else
#define VIF_INLINE static inline
#endif

/* Columns per block. 16 uint16 samples fill a 256-bit vector, so the vertical passes
 * (16-bit loads, uint32 sums in two vectors each) use 16 and hold at most four sums; the
 * horizontal passes load uint32 and use 8, with up to eight sums. */
enum {
    BLOCK_V = 16,
    BLOCK_H = 8,
    PAD = VMAF_VIF_MAX_FILTER_WIDTH / 2, /* margin of the row buffers */
    SUB_PAD = 2, /* margin of the split rows: the 9-tap filter reaches 2 columns out */
    LO16 = 0xffff,
    MARGIN16 = 16, /* margin of the 16-bit rows (the 17-tap AVX2 pass reads 9 beyond w) */
};

/* ------------------------------------------------------------------------------------- */
/* Log2                                                                                  */

/* L(v) of vif.h, for v >= 2^17 (so the shift b is at least 2): the one definition, shared
 * with the CUDA twin (vif_device.h). */
VIF_INLINE int32_t vif_log2(const uint16_t *table, uint64_t v)
{
    return vif_dev_log2(table, v);
}

/* ------------------------------------------------------------------------------------- */
/* Workspace                                                                             */

/* 8-bit input is widened row by row as the passes reach it (gather_rows), into a ring of
 * VIF_RING_ROWS rows per plane, instead of into a whole 16-bit scale-0 image: a window of
 * rows that a pass asks for lies within 17 consecutive rows (or inside a plane of fewer
 * rows), so with slot = row % VIF_RING_ROWS >= 17 its rows never share a slot, and a pass
 * reads each row's 16-bit samples exactly as the image held them. */
enum { VIF_RING_ROWS = 32 };

typedef struct VifRowRing {
    const uint8_t *src;
    ptrdiff_t stride;          /* bytes */
    uint16_t *rows;            /* VIF_RING_ROWS rows of `pitch` samples */
    size_t pitch;
    int row_of[VIF_RING_ROWS]; /* the source row a slot holds; -1: none */
} VifRowRing;

struct VmafVifWorkspace {
    unsigned w, h, bpc;
    void *block;
    /* 16-bit images of scales 1..3, w >> s by h >> s, rows packed ([0] unused); 8-bit
     * scale 0 is read through the rings */
    uint16_t *img_ref[VMAF_VIF_SCALES], *img_dis[VMAF_VIF_SCALES];
    VifRowRing ring_ref, ring_dis;
    void *ring_block;
    /* statistic rows of the vertical pass, each with PAD columns of margin on both sides
     * (pointers are to column 0), and the sigma rows of the horizontal pass */
    uint32_t *mu1, *mu2;
    uint32_t *xx_hi, *xx_lo, *yy_hi, *yy_lo, *xy_hi, *xy_lo; /* 2^16 hi + lo of q */
    int32_t *sigma_xx, *sigma_yy, *sigma_xy;
    /* subsampling rows: vertical pass (margins PAD), and its even and odd columns
     * (margins SUB_PAD) */
    uint32_t *conv_ref, *conv_dis;
    uint32_t *even_ref, *odd_ref, *even_dis, *odd_dis;
    /* the hand-written AVX2 statistic (stat_scale_avx2): the eight vertical rows as
     * biased 16-bit values (v ^ 0x8000), each with MARGIN16 columns on both sides */
    void *block16;
    uint16_t *row16[8];
    enum VmafVifImpl best; /* the build vmaf_vif_compute() uses, chosen at allocation */
    /* 2 more entries: the AVX-512 gathers read 32 bits at an entry */
    uint16_t log2_table[VMAF_VIF_LOG2_TABLE_LEN + 2];
};

/* ------------------------------------------------------------------------------------- */
/* The reference side                                                                    */

/*
 * A statistic's sums split exactly into a part of the reference alone and a part of the
 * pair: sigma_xx and mu_x (vif.h) are made from the reference's samples by the same integer
 * operations wherever they are computed, the distorted pass makes mu_y, e_yy and e_xy as
 * before and combines them with the stored mu_x, and den_log, den_non_log depend on sigma_xx
 * alone. Integer sums (mod 2^32 where they wrap in the fused passes too) do not depend on
 * which pass adds them, so every sum, and every score, is bit for bit the fused pass's.
 *
 * Passes: VIF_FUSED computes both sides (vmaf_vif_compute), VIF_REF only the reference side
 * into a VifRefSide, VIF_DIS the rest from one. The kernels take the mode as a constant.
 */
enum { VIF_FUSED = 0, VIF_REF = 1, VIF_DIS = 2 };

/* One scale's rows of the reference side (NULL in VIF_FUSED): w x h values, row i at
 * i * w, in the column order of the statistic pass that made them (its sigma rows'). */
typedef struct VifSideRows {
    uint32_t *mu1; /* mu_x */
    int32_t *sxx;  /* sigma_xx */
} VifSideRows;

/* A frame's reference side (vmaf_vif_ref_side_compute_with), at the start of its block. */
typedef struct VifRefSide {
    unsigned w, h, bpc;
    int impl; /* the resolved VmafVifImpl that made it: it fixes the column order */
    bool skip_scale0; /* scale 0's rows were not made */
    VifSideRows rows[VMAF_VIF_SCALES];
    uint16_t *img[VMAF_VIF_SCALES]; /* the reference images of scales 1..3 ([0] unused) */
    VmafVifSums den[VMAF_VIF_SCALES]; /* den_log and den_non_log of each scale */
} VifRefSide;

/* ------------------------------------------------------------------------------------- */
/* Kernels                                                                               */

/* A plane of one scale: 16-bit samples. */
typedef struct Plane {
    const uint16_t *data;
    ptrdiff_t stride; /* samples */
    int w, h;
    VifRowRing *ring; /* set: 8-bit rows widened through this ring (data unused) */
} Plane;

/* Reflect-101 index into [0, n), periodic so that any offset is defined; n = 1 gives 0
 * (vif_device.h's, which the twin uses too). */
static inline int mirror(int i, int n)
{
    return vmaf_reflect101(i, n);
}

/* Row `row` of a ring's 8-bit plane as 16-bit samples, widened if its slot holds another. */
static inline const uint16_t *ring_row(VifRowRing *r, int row, int w)
{
    const int slot = row % VIF_RING_ROWS;
    uint16_t *dst = r->rows + (size_t)slot * r->pitch;
    if (r->row_of[slot] != row) {
        const uint8_t *src = r->src + (ptrdiff_t)row * r->stride;
        for (int j = 0; j < w; j++)
            dst[j] = src[j];
        r->row_of[slot] = row;
    }
    return dst;
}

/* Row pointers of the fw rows centred on row i (mirrored). */
static inline void gather_rows(const Plane *p, int i, int fw, const uint16_t **rows)
{
    if (p->ring) {
        for (int k = 0; k < fw; k++)
            rows[k] = ring_row(p->ring, mirror(i - fw / 2 + k, p->h), p->w);
        return;
    }
    for (int k = 0; k < fw; k++)
        rows[k] = p->data + (ptrdiff_t)mirror(i - fw / 2 + k, p->h) * p->stride;
}

static inline const uint16_t *filter_of_width(int fw)
{
    return vmaf_vif_filter[fw == 17 ? 0 : fw == 9 ? 1 : fw == 5 ? 2 : 3];
}

/* The per-pixel sums of vif.h over columns [j0, w) of one row of sigmas: all of them
 * (VIF_FUSED), those of sigma_xx alone (VIF_REF: den_log, den_non_log; syy, sxy unread) or
 * the others (VIF_DIS). */
VIF_INLINE void stat_accumulate_part(const uint16_t *table, const int32_t *sigma_xx,
                                     const int32_t *sigma_yy, const int32_t *sigma_xy,
                                     int j0, int w, double egl, const int mode,
                                     VmafVifSums *sums)
{
    const int32_t nsq = VMAF_VIF_SIGMA_NSQ;
    int64_t num_log = 0, den_log = 0, num_non_log = 0, den_non_log = 0;

    for (int j = j0; j < w; j++) {
        const int32_t sxx = sigma_xx[j];
        if (sxx < nsq) {
            if (mode != VIF_REF)
                num_non_log += sigma_yy[j];
            if (mode != VIF_DIS)
                den_non_log++;
            continue;
        }
        if (mode != VIF_DIS)
            den_log += vif_log2(table, (uint32_t)(nsq + sxx)) - 17 * VMAF_VIF_LOG2_ONE;
        if (mode == VIF_REF)
            continue;
        const int32_t syy = sigma_yy[j], sxy = sigma_xy[j];
        if (sxy > 0 && syy > 0) {
            const double eps = 65536 * 1.0e-10;
            double g = sxy / (sxx + eps);
            /* the reference truncates to int32 and clamps at 0; the value is below
             * sigma_yy, so a positive one converts exactly and anything else gives 0 */
            const double sv_d = syy - g * sxy;
            const uint32_t sv = sv_d > 0 ? (uint32_t)(int32_t)sv_d : 0;
            g = g < egl ? g : egl;
            const uint32_t numer = sv + nsq;
            const int64_t gain = (int64_t)(g * g * sxx);
            num_log += vif_log2(table, (uint64_t)gain + numer) - vif_log2(table, numer);
        }
    }
    sums->num_log += num_log;
    sums->den_log += den_log;
    sums->num_non_log += num_non_log;
    sums->den_non_log += den_non_log;
}

/* The sigma rows of a pass: the workspace's, except sigma_xx from the side in VIF_DIS
 * (VIF_REF writes its sigma_xx to the side, and accumulates it from there). */
VIF_INLINE void stat_accumulate(const VmafVifWorkspace *ws, int w, double egl, const int mode,
                                const int32_t *side_sxx, VmafVifSums *sums)
{
    const int32_t *sxx = mode == VIF_FUSED ? ws->sigma_xx : side_sxx;
    stat_accumulate_part(ws->log2_table, sxx, ws->sigma_yy, ws->sigma_xy, 0, w, egl, mode,
                         sums);
}

/* ------------------------------------------------------------------------------------- */
/* Hand-written AVX2 and AVX-512 (vif_simd.c)                                            */

#if defined(__GNUC__) && defined(__x86_64__) && !defined(VMAF_VIF_NO_AVX2)
#define VIF_HAVE_AVX2 1
#include <immintrin.h>

#define VIF_AVX2 __attribute__((target("avx2")))

/* stat_accumulate() on 8 columns at a time (AVX-512 F, DQ, CD, VL): the same integer and
 * double operations per pixel, lanes outside a branch masked off (gathers too), sums in
 * 64-bit lanes. The 32-bit gathers read two bytes past a table entry; log2_table has
 * room for that. */
#define VIF_AVX512_ACC                                                                     \
    __attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512cd,avx512vl")))
/* The same with AVX-512 VNNI (VMAF_VIF_IMPL_AVX512_VNNI's scale 0). */
#define VIF_AVX512_ACC_VNNI                                                                \
    __attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512cd,avx512vl,avx512vnni")))

/* Entry points of vif_simd.c, used by vif_compute_kernels() in vif.c. mode: VIF_FUSED,
 * VIF_REF (dis and dst_dis unused) or VIF_DIS; side: the scale's side rows (VIF_REF, VIF_DIS). */
VIF_AVX2 __attribute__((noinline)) void
vmaf_vif_subsample_avx2_any(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                            uint16_t *dst_ref, uint16_t *dst_dis, int fw, int eight,
                            int shift, int mode);
VIF_AVX2 __attribute__((noinline)) void
vmaf_vif_stat_scale0_8_avx2(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                            double egl, VmafVifSums *sums, int mode, VifSideRows side);
VIF_AVX2 __attribute__((noinline)) void
vmaf_vif_stat_scale16_avx2(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis, int fw,
                           int mu_shift, int q, int acc512, double egl, VmafVifSums *sums,
                           int mode, VifSideRows side);
VIF_AVX512_ACC __attribute__((noinline)) void
vmaf_vif_stat_scale0_8_avx512(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                              double egl, VmafVifSums *sums, int mode, VifSideRows side);
VIF_AVX512_ACC_VNNI __attribute__((noinline)) void
vmaf_vif_stat_scale0_8_avx512_vnni(VmafVifWorkspace *ws, const Plane *ref, const Plane *dis,
                                   double egl, VmafVifSums *sums, int mode, VifSideRows side);
#endif

#endif /* VMAF_FEATURE_VIF_INTERNAL_H */
