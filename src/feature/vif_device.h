/*
 * Twin VMAF — integer VIF on the GPU: the per-element arithmetic and the per-thread work of
 * every phase of the CUDA twin's kernels (src/feature/cuda/vif.cu), valid C11 and CUDA, so
 * that a host test (tests/twins/test_vif_twin.c) runs exactly this code in the kernels'
 * decomposition and compares it with the CPU extractor (vif.c).
 *
 * Decomposition. One kernel per scale s; one block per tile of VIF_CUDA_TILE_W x
 * VIF_CUDA_TILE_H pixels of I_s (below), VIF_CUDA_THREADS threads:
 *   1. load:       the tile with a margin of hf = fw/2 samples on every side (fw: filter
 *                  width of scale s), at mirrored coordinates, as 16-bit samples;
 *   2. vertical:   the five vertical sums of vif.h (m_x, m_y, q_xx, q_yy, q_xy) of every
 *                  tile row and every column of the margined tile, VIF_DEV_ROWS rows of a
 *                  column per thread (each sample read once for all of them); and, when
 *                  scale s+1 exists, the subsampling's vertical pass (filter s+1) at the
 *                  even rows;
 *   3. horizontal: the sigmas and the per-pixel sums of each pixel of the tile,
 *                  VIF_DEV_COLS pixels of a row per thread (per thread, then per block);
 *                  and the pixels of I_{s+1} whose source (even row, even column) lies in
 *                  the tile.
 * With the widest filter, each of the 256 threads has exactly one item in phases 2 and 3.
 * Thread 0 of each block adds the block's sums to the scale's (one 64-bit atomic add per
 * sum). All sums are integers (int64, added modulo 2^64), so any order gives the CPU's
 * values; the only floating point is the per-pixel double arithmetic of vif.h, written here
 * in the CPU's order (the kernels are compiled with --fmad=false, so nothing is contracted;
 * division is IEEE).
 *
 * Why the margined tile is exact: the CPU's vertical pass reads rows mirror(i - hf + k, h)
 * of column j, and its horizontal pass reads the vertical rows at columns
 * mirror(j - hf + k, w), which is the vertical pass at that mirrored column. The tile holds
 * the sample at (mirror(row), mirror(column)) for every row and column the block reaches,
 * so both passes read the same values as the CPU, also for planes narrower than the filter
 * (mirror() is periodic). The subsampling's filter is narrower than the statistic's (hn <=
 * hf), so its taps fall inside the same tile.
 *
 * Integer ranges (8..16-bit samples at scale 0, 16-bit values at scales 1..3): vertical mean
 * sums stay below 2^32; square sums below 2^48 (64-bit), except 8-bit samples at scale 0,
 * whose square sums stay below 2^32; the shifted vertical values fit 32 bits, the means 16.
 * The horizontal square sums (below 2^48) are formed in double precision, where every
 * partial sum of these integers is exact (in a program whose doubles are software, f64.h's
 * VMAF_DOUBLE_SOFT, in uint64: the same integers); the per-pixel log2 reads a packed 8 KiB
 * copy of the CPU's table (vif_dev_log2_pack), so that it stays in L1.
 *
 * Without the device's double (VMAF_DOUBLE_SOFT: an OpenCL device without fp64, or
 * VMAF_OPENCL_FP64=0) the per-pixel double operations of vif.h are decided in integers
 * (vif_dev_pixel_int below: every rounding of the CPU's doubles reproduced, proof there);
 * C, CUDA and OpenCL with fp64 keep the double form.
 */
#ifndef VMAF_FEATURE_VIF_DEVICE_H
#define VMAF_FEATURE_VIF_DEVICE_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#include "f64.h"
#include "feature/vif.h"
#include "reflect.h"

/*
 * Address spaces (OpenCL C names them; C and CUDA have one flat space, so these are empty
 * there and the code below is the same): VIF_DEV_SHARED qualifies pointers into a block's tile
 * (CUDA __shared__, OpenCL __local). The phases that turn a device address of the arguments
 * into a pointer take VIF_DEV_ARENA_PARAM first (called with VIF_DEV_ARENA_ARG): in OpenCL an
 * address is an offset into the backend's arena (feature/kernel.h's VMAF_PTR), in C and CUDA
 * the address itself.
 */
#if VMAF_DIALECT_OPENCL
#define VIF_DEV_SHARED __local
#define VIF_DEV_ARENA_PARAM __global uchar *vmaf_arena,
#define VIF_DEV_ARENA_ARG vmaf_arena,
#define VIF_DEV_PTR(T, addr) ((__global T *)(vmaf_arena + (addr)))
#else
#define VIF_DEV_SHARED
#define VIF_DEV_ARENA_PARAM
#define VIF_DEV_ARENA_ARG
#define VIF_DEV_PTR(T, addr) ((T *)(uintptr_t)(addr))
#endif

/* The tile and block shape of the decomposition above, and the kernels' argument struct: here,
 * not in kernel_args.h, because the host plan and the per-thread work below read them in every
 * dialect; kernel_args.h includes this header and checks that VifCudaArgs fits in
 * VMAF_CUDA_MAX_KERNEL_ARGS bytes (the recorder keeps it inline). */
enum { VIF_CUDA_TILE_W = 48, VIF_CUDA_TILE_H = 16, VIF_CUDA_THREADS = 256 };
/* Blocks resident per SM that the kernels' register budget must allow: 4 (64 registers
 * a thread; the tile's 45 KiB of shared memory allow 4 blocks on sm_90) instead of the 3 that
 * 72-80 registers left: scales 0 and 1 ran about 5-10% faster on 4K 8-bit (scale 1 spills 8
 * bytes). To re-measure: compile vif.cu with -DVIF_CUDA_MIN_BLOCKS=3 and compare
 * VMAF_CUDA_PROFILE=ops, or checktwin's --bench. */
#ifndef VIF_CUDA_MIN_BLOCKS
#define VIF_CUDA_MIN_BLOCKS 4
#endif

typedef struct VifCudaArgs {
    vmaf_devptr ref, dis;         /* the scale's planes */
    vmaf_u64 stride;              /* bytes, same for ref and dis */
    int w, h;                     /* the scale's size, both >= 1 */
    int mu_shift, q;              /* the statistic's vertical shifts (vif.h) */
    int sub_shift;                /* the subsampling's vertical shift */
    int stat;                     /* compute the statistic (0: skipped scale 0) */
    int sub;                      /* write the next scale, (w/2) x (h/2), rows packed */
    vmaf_double egl;              /* vif_enhn_gain_limit */
    vmaf_devptr sub_ref, sub_dis; /* uint16 images of the next scale */
    vmaf_devptr log2_table;       /* uint16[VIF_DEV_LOG2_PACKED_LEN] (below) */
    vmaf_devptr sums;             /* the scale's VmafVifSums, zeroed before the launch */
    unsigned filter[17];          /* the scale's filter (vmaf_vif_filter[s]) */
    unsigned sub_filter[9];       /* the next scale's filter */
    vmaf_double filter_d[9];      /* the scale's filter up to its centre, as doubles (the
                                   * filters are symmetric; unread where doubles are
                                   * software) */
} VifCudaArgs;

enum {
    VIF_DEV_ROWS = 4, /* vertical sums per thread and item: rows of one column */
    VIF_DEV_COLS = 3, /* pixels per thread and item: consecutive columns of one row (an odd
                       * number: the lanes' stride in shared memory then hits every bank) */
    VIF_DEV_MAX_HALF = VMAF_VIF_MAX_FILTER_WIDTH / 2,
    /* the margined tile of the widest filter */
    VIF_DEV_TILE_ROWS = VIF_CUDA_TILE_H + 2 * VIF_DEV_MAX_HALF,
    VIF_DEV_TILE_COLS = VIF_CUDA_TILE_W + 2 * VIF_DEV_MAX_HALF,
};

/* The tiling must divide evenly: whole row groups and pixel groups, even tile origins (the
 * subsampling keeps even rows and columns). */
typedef char vif_dev_tiling_check[((VIF_CUDA_TILE_H % VIF_DEV_ROWS == 0) &
                                   (VIF_CUDA_TILE_W % VIF_DEV_COLS == 0) &
                                   (VIF_CUDA_TILE_W % 2 == 0) & (VIF_CUDA_TILE_H % 2 == 0))
                                      ? 1
                                      : -1];

/* A vertical square sum as the horizontal pass reads it (below). */
#if VMAF_DOUBLE_SOFT
typedef uint32_t vif_dev_sq;
#else
typedef double vif_dev_sq;
#endif

/* Shared memory of one block. Every array has the widest filter's pitch; narrower filters
 * use the top-left part. */
typedef struct VifDevTile {
    uint16_t x[VIF_DEV_TILE_ROWS][VIF_DEV_TILE_COLS], y[VIF_DEV_TILE_ROWS][VIF_DEV_TILE_COLS];
    /* vertical sums of the statistic: tile row r, margined column c */
    uint32_t mx[VIF_CUDA_TILE_H][VIF_DEV_TILE_COLS], my[VIF_CUDA_TILE_H][VIF_DEV_TILE_COLS];
    /* the square sums (integers below 2^32) as doubles: the horizontal pass sums them in
     * double precision, exactly (every partial sum is an integer below 2^48); where doubles
     * are software, as the integers */
    vif_dev_sq xx[VIF_CUDA_TILE_H][VIF_DEV_TILE_COLS], yy[VIF_CUDA_TILE_H][VIF_DEV_TILE_COLS];
    vif_dev_sq xy[VIF_CUDA_TILE_H][VIF_DEV_TILE_COLS];
    /* vertical pass of the subsampling at tile row 2k */
    uint32_t sx[VIF_CUDA_TILE_H / 2][VIF_DEV_TILE_COLS], sy[VIF_CUDA_TILE_H / 2][VIF_DEV_TILE_COLS];
} VifDevTile;

VMAF_DEVICE_FN_INLINE_DEVICE int vif_dev_bit_length(uint64_t v)
{
#if defined(__CUDA_ARCH__)
    return 64 - __clzll((long long)v);
#elif VMAF_DIALECT_OPENCL
    return 64 - (int)clz((ulong)v);
#else
    return 64 - __builtin_clzll(v);
#endif
}

/* The same of a 32-bit value (0 for 0). */
VMAF_DEVICE_FN_INLINE_DEVICE int vif_dev_bit_length32(uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return 32 - __clz((int)v);
#elif VMAF_DIALECT_OPENCL
    return 32 - (int)clz((uint)v);
#else
    return v ? 32 - __builtin_clz(v) : 0;
#endif
}

/*
 * The log2 table, packed. The CPU's table (vmaf_vif_log2_table_fill: round(2048 log2 i) for
 * i in [2^15, 2^16)) is a staircase whose steps are 1 high and more than 8 wide (its slope
 * is below 2048 / (2^15 ln 2) < 1/11), so each aligned group of 8 entries holds at most one
 * step: entry g of the packed table is (table[8g] - VIF_DEV_LOG2_BASE) << 4 | o, where o
 * (1..8) is the first offset in the group whose value is one higher (8: none). 8 KiB
 * instead of 64: the kernels' gathers stay in L1, next to the tiles in shared memory.
 */
enum {
    VIF_DEV_LOG2_BASE = 15 * VMAF_VIF_LOG2_ONE, /* table[0] */
    VIF_DEV_LOG2_PACKED_LEN = VMAF_VIF_LOG2_TABLE_LEN / 8,
};

/* Pack `table` into packed[VIF_DEV_LOG2_PACKED_LEN]; -EINVAL if it is not such a staircase. */
static inline int vif_dev_log2_pack(const uint16_t *table, uint16_t *packed)
{
    for (int g = 0; g < VIF_DEV_LOG2_PACKED_LEN; g++) {
        const int t0 = table[8 * g];
        int o = 8;
        for (int k = 1; k < 8; k++) {
            const int t = table[8 * g + k];
            if (t != t0 && t != t0 + 1) return -EINVAL;
            if (t == t0 + 1 && o == 8) o = k;
            if (t == t0 && o != 8) return -EINVAL; /* a step back */
        }
        if (t0 < VIF_DEV_LOG2_BASE || t0 - VIF_DEV_LOG2_BASE >= 1 << 12) return -EINVAL;
        packed[g] = (uint16_t)((t0 - VIF_DEV_LOG2_BASE) << 4 | o);
    }
    return 0;
}

/* L(v) of vif.h, for v >= 2^17, from the CPU's table. */
VMAF_DEVICE_FN_INLINE_DEVICE int32_t vif_dev_log2(const uint16_t *table, uint64_t v)
{
    const int b = vif_dev_bit_length(v) - 16;
    return (int32_t)table[(v >> b) - VMAF_VIF_LOG2_TABLE_FIRST] + VMAF_VIF_LOG2_ONE * b;
}

/* The same from the packed table (the kernels'). */
VMAF_DEVICE_FN_INLINE_DEVICE int32_t vif_dev_log2_packed(const VMAF_GLOBAL uint16_t *packed,
                                                         uint64_t v)
{
    const int b = vif_dev_bit_length(v) - 16;
    const unsigned i = (unsigned)(v >> b) - VMAF_VIF_LOG2_TABLE_FIRST;
#if defined(__CUDA_ARCH__)
    const unsigned e = __ldg(packed + (i >> 3));
#else
    const unsigned e = packed[i >> 3];
#endif
    const int32_t t = VIF_DEV_LOG2_BASE + (int32_t)(e >> 4) + ((i & 7) >= (e & 15));
    return t + VMAF_VIF_LOG2_ONE * b;
}

/* acc + a * b, the product in 64 bits. On the device one mad.wide.u32 (IMAD.WIDE.U32):
 * written out, nvcc may keep a coefficient zero-extended in a 64-bit register and then
 * multiply in 64 x 64 bits (several IMADs); the value is the same. */
VMAF_DEVICE_FN_INLINE_DEVICE uint64_t vif_dev_mad_wide(uint32_t a, uint32_t b, uint64_t acc)
{
#if defined(__CUDA_ARCH__)
    uint64_t r;
    asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(r) : "r"(a), "r"(b), "l"(acc));
    return r;
#else
    return acc + (uint64_t)a * b;
#endif
}

#if !VMAF_DOUBLE_SOFT
/* The integer v as a double: exact (one FP64 add on the device, not a conversion). */
VMAF_DEVICE_FN_INLINE_DEVICE double vif_dev_u32_to_double(uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return __hiloint2double(0x43300000, (int)v) - 4503599627370496.0; /* (2^52 + v) - 2^52 */
#else
    return (double)v;
#endif
}

/* acc + a * b for integer-valued doubles whose every partial result is an integer below
 * 2^53: exact, so fused (one DFMA on the device) or not, the value is the same. */
VMAF_DEVICE_FN_INLINE_DEVICE double vif_dev_dmad(double a, double b, double acc)
{
#if defined(__CUDA_ARCH__)
    return __fma_rn(a, b, acc);
#else
    return acc + a * b;
#endif
}

#define vif_dev_sq_of_u32 vif_dev_u32_to_double
#else
#define vif_dev_sq_of_u32(v) (v)
#endif

/* ------------------------------------------------------------------------------------- */
/* Per element                                                                           */

typedef struct VifDevColumn {
    uint32_t mu_x, mu_y, xx, yy, xy;
} VifDevColumn;

/*
 * The statistic's vertical sums at VIF_DEV_ROWS consecutive rows of one column: x[k * pitch]
 * and y[k * pitch], k < fw + VIF_DEV_ROWS - 1, are the ref and dis samples from the first
 * row's top tap down; output r uses taps k = r .. r + fw - 1. Each sample is read once for
 * all rows (register blocking). The wide case: 64-bit square sums, rounded and shifted by q
 * (8-bit samples take vif_dev_stat_vertical_folded()).
 */
VMAF_DEVICE_FN_INLINE_DEVICE void vif_dev_stat_vertical_wide(const VIF_DEV_SHARED uint16_t *x,
                                                             const VIF_DEV_SHARED uint16_t *y,
                                                             int pitch, const uint32_t *f, int fw,
                                                             int q, uint32_t mx[VIF_DEV_ROWS],
                                                             uint32_t my[VIF_DEV_ROWS],
                                                             VifDevColumn out[VIF_DEV_ROWS])
{
    uint64_t xx[VIF_DEV_ROWS], yy[VIF_DEV_ROWS], xy[VIF_DEV_ROWS];
    VMAF_UNROLL
    for (int r = 0; r < VIF_DEV_ROWS; r++)
        mx[r] = my[r] = 0, xx[r] = yy[r] = xy[r] = 0;
    VMAF_UNROLL
    for (int k = 0; k < fw + VIF_DEV_ROWS - 1; k++) {
        const uint32_t a = x[k * pitch], b = y[k * pitch];
        const uint32_t aa = a * a, bb = b * b, ab = a * b;
        VMAF_UNROLL
        for (int r = 0; r < VIF_DEV_ROWS; r++) {
            if (k - r < 0 || k - r >= fw)
                continue;
            const uint32_t fk = f[k - r];
            mx[r] += fk * a;
            my[r] += fk * b;
            xx[r] = vif_dev_mad_wide(fk, aa, xx[r]);
            yy[r] = vif_dev_mad_wide(fk, bb, yy[r]);
            xy[r] = vif_dev_mad_wide(fk, ab, xy[r]);
        }
    }
    const uint64_t rq = q ? 1ull << (q - 1) : 0;
    VMAF_UNROLL
    for (int r = 0; r < VIF_DEV_ROWS; r++) {
        out[r].xx = (uint32_t)((xx[r] + rq) >> q);
        out[r].yy = (uint32_t)((yy[r] + rq) >> q);
        out[r].xy = (uint32_t)((xy[r] + rq) >> q);
    }
}

/*
 * The narrow case (8-bit samples, q = 0) with the filter's symmetry: taps k and fw-1-k share
 * a coefficient, so each pair costs one add and one multiply-add, not two multiply-adds
 * (on the device the adds and the multiplies run on different pipes). Output r takes the
 * pairs (r + j, r + fw-1-j), j < fw/2, then the centre r + fw/2; a low window of samples
 * r + j and a high window of samples r + fw-1-j (r < VIF_DEV_ROWS) slide towards the centre
 * as j grows, each sample and its three products read or formed once. All sums stay below
 * 2^32 (each partial sum is at most the full one, sum(f) * 255^2 < 2^32).
 */
VMAF_DEVICE_FN_INLINE_DEVICE void vif_dev_stat_vertical_folded(const VIF_DEV_SHARED uint16_t *x,
                                                               const VIF_DEV_SHARED uint16_t *y,
                                                               int pitch, const uint32_t *f, int fw,
                                                               uint32_t mx[VIF_DEV_ROWS],
                                                               uint32_t my[VIF_DEV_ROWS],
                                                               VifDevColumn out[VIF_DEV_ROWS])
{
    enum { R = VIF_DEV_ROWS };
    const int hf = fw / 2;
    uint32_t la[R], lb[R], laa[R], lbb[R], lab[R]; /* low window: samples, products */
    uint32_t ha[R], hb[R], haa[R], hbb[R], hab[R]; /* high window */
    uint32_t xx[R], yy[R], xy[R];
    VMAF_UNROLL
    for (int r = 0; r < R; r++) {
        la[r] = x[r * pitch], lb[r] = y[r * pitch];
        ha[r] = x[(fw - 1 + r) * pitch], hb[r] = y[(fw - 1 + r) * pitch];
        laa[r] = la[r] * la[r], lbb[r] = lb[r] * lb[r], lab[r] = la[r] * lb[r];
        haa[r] = ha[r] * ha[r], hbb[r] = hb[r] * hb[r], hab[r] = ha[r] * hb[r];
        mx[r] = my[r] = xx[r] = yy[r] = xy[r] = 0;
    }
    VMAF_UNROLL
    for (int j = 0; j < hf; j++) {
        const uint32_t fk = f[j];
        VMAF_UNROLL
        for (int r = 0; r < R; r++) {
            mx[r] += fk * (la[r] + ha[r]);
            my[r] += fk * (lb[r] + hb[r]);
            xx[r] += fk * (laa[r] + haa[r]);
            yy[r] += fk * (lbb[r] + hbb[r]);
            xy[r] += fk * (lab[r] + hab[r]);
        }
        /* the low window moves down to j + 1 (its new sample: j + R) */
        VMAF_UNROLL
        for (int r = 0; r + 1 < R; r++)
            la[r] = la[r + 1], lb[r] = lb[r + 1], laa[r] = laa[r + 1], lbb[r] = lbb[r + 1],
            lab[r] = lab[r + 1];
        la[R - 1] = x[(j + R) * pitch], lb[R - 1] = y[(j + R) * pitch];
        laa[R - 1] = la[R - 1] * la[R - 1], lbb[R - 1] = lb[R - 1] * lb[R - 1];
        lab[R - 1] = la[R - 1] * lb[R - 1];
        if (j + 1 == hf) /* the high window would meet the low one at the centre */
            break;
        /* the high window moves up to fw-2-j (its new sample: fw-2-j) */
        VMAF_UNROLL
        for (int r = R - 1; r > 0; r--)
            ha[r] = ha[r - 1], hb[r] = hb[r - 1], haa[r] = haa[r - 1], hbb[r] = hbb[r - 1],
            hab[r] = hab[r - 1];
        ha[0] = x[(fw - 2 - j) * pitch], hb[0] = y[(fw - 2 - j) * pitch];
        haa[0] = ha[0] * ha[0], hbb[0] = hb[0] * hb[0], hab[0] = ha[0] * hb[0];
    }
    const uint32_t fc = f[hf];
    VMAF_UNROLL
    for (int r = 0; r < R; r++) {
        mx[r] += fc * la[r];
        my[r] += fc * lb[r];
        out[r].xx = xx[r] + fc * laa[r];
        out[r].yy = yy[r] + fc * lbb[r];
        out[r].xy = xy[r] + fc * lab[r];
    }
}

VMAF_DEVICE_FN_INLINE_DEVICE void vif_dev_stat_vertical(const VIF_DEV_SHARED uint16_t *x,
                                                        const VIF_DEV_SHARED uint16_t *y,
                                                        int pitch, const uint32_t *f, int fw,
                                                        int narrow, int mu_shift, int q,
                                                        VifDevColumn out[VIF_DEV_ROWS])
{
    uint32_t mx[VIF_DEV_ROWS], my[VIF_DEV_ROWS];
    if (narrow) /* q is 0: the sums are the values */
        vif_dev_stat_vertical_folded(x, y, pitch, f, fw, mx, my, out);
    else
        vif_dev_stat_vertical_wide(x, y, pitch, f, fw, q, mx, my, out);
    const uint32_t rnd = 1u << (mu_shift - 1);
    VMAF_UNROLL
    for (int r = 0; r < VIF_DEV_ROWS; r++) {
        out[r].mu_x = (mx[r] + rnd) >> mu_shift;
        out[r].mu_y = (my[r] + rnd) >> mu_shift;
    }
}

typedef struct VifDevSigma {
    int32_t xx, yy, xy;
} VifDevSigma;

/* The sigmas of one pixel from its horizontal sums (vif.h). */
VMAF_DEVICE_FN_INLINE_DEVICE VifDevSigma vif_dev_sigma(uint32_t mu_x, uint32_t mu_y, uint64_t exx,
                                                       uint64_t eyy, uint64_t exy)
{
    const uint32_t e_xx = (uint32_t)((exx + 0x8000u) >> 16);
    const uint32_t e_yy = (uint32_t)((eyy + 0x8000u) >> 16);
    const uint32_t e_xy = (uint32_t)((exy + 0x8000u) >> 16);
    const uint32_t mu_xx = (uint32_t)(((uint64_t)mu_x * mu_x + 0x80000000u) >> 32);
    const uint32_t mu_yy = (uint32_t)(((uint64_t)mu_y * mu_y + 0x80000000u) >> 32);
    const uint32_t mu_xy = (uint32_t)(((uint64_t)mu_x * mu_y + 0x80000000u) >> 32);
    VifDevSigma s;
    s.xx = (int32_t)(e_xx - mu_xx);
    const int32_t syy = (int32_t)(e_yy - mu_yy);
    s.yy = syy > 0 ? syy : 0;
    s.xy = (int32_t)(e_xy - mu_xy);
    return s;
}

/*
 * The sigmas of VIF_DEV_COLS consecutive pixels of a row from the vertical sums at columns
 * k < fw + VIF_DEV_COLS - 1 (pixel c uses k = c .. c + fw - 1); each value read once.
 */
VMAF_DEVICE_FN_INLINE_DEVICE void vif_dev_stat_horizontal(const VIF_DEV_SHARED uint32_t *mx,
                                                          const VIF_DEV_SHARED uint32_t *my,
                                                          const VIF_DEV_SHARED vif_dev_sq *xx,
                                                          const VIF_DEV_SHARED vif_dev_sq *yy,
                                                          const VIF_DEV_SHARED vif_dev_sq *xy,
                                                          const uint32_t *f,
                                                          const vmaf_double *fd, int fw,
                                                          VifDevSigma out[VIF_DEV_COLS])
{
    uint32_t mu_x[VIF_DEV_COLS], mu_y[VIF_DEV_COLS];
    /* the square sums in double precision: integers below 2^48 at every step, so exact (on
     * the device this moves them from the integer pipes to the FP64 one); where doubles are
     * software, the same integers in uint64 (the coefficients are fd's, as integers) */
#if VMAF_DOUBLE_SOFT
    uint64_t exx[VIF_DEV_COLS], eyy[VIF_DEV_COLS], exy[VIF_DEV_COLS];
    (void)fd;
#else
    double exx[VIF_DEV_COLS], eyy[VIF_DEV_COLS], exy[VIF_DEV_COLS];
#endif
    VMAF_UNROLL
    for (int c = 0; c < VIF_DEV_COLS; c++)
        mu_x[c] = mu_y[c] = 0, exx[c] = eyy[c] = exy[c] = 0;
    VMAF_UNROLL
    for (int k = 0; k < fw + VIF_DEV_COLS - 1; k++) {
        const uint32_t m1 = mx[k], m2 = my[k];
        const vif_dev_sq v1 = xx[k], v2 = yy[k], v3 = xy[k];
        VMAF_UNROLL
        for (int c = 0; c < VIF_DEV_COLS; c++) {
            if (k - c < 0 || k - c >= fw)
                continue;
            const uint32_t fk = f[k - c];
            mu_x[c] += fk * m1;
            mu_y[c] += fk * m2;
#if VMAF_DOUBLE_SOFT
            exx[c] = vif_dev_mad_wide(fk, v1, exx[c]);
            eyy[c] = vif_dev_mad_wide(fk, v2, eyy[c]);
            exy[c] = vif_dev_mad_wide(fk, v3, exy[c]);
#else
            const double fdk = fd[k - c < fw - 1 - (k - c) ? k - c : fw - 1 - (k - c)];
            exx[c] = vif_dev_dmad(fdk, v1, exx[c]);
            eyy[c] = vif_dev_dmad(fdk, v2, eyy[c]);
            exy[c] = vif_dev_dmad(fdk, v3, exy[c]);
#endif
        }
    }
    VMAF_UNROLL
    for (int c = 0; c < VIF_DEV_COLS; c++)
        out[c] = vif_dev_sigma(mu_x[c], mu_y[c], (uint64_t)exx[c], (uint64_t)eyy[c],
                               (uint64_t)exy[c]);
}

#if VMAF_DOUBLE_SOFT
/*
 * The per-pixel doubles of vif.h decided in integers, where the device's double is not used.
 * For x = sigma_xx in [2^17, 2^31), y = sigma_yy and c = sigma_xy in [1, 2^31), and the gain
 * limit egl (a positive normal double, [1, 100] by the option's range), the CPU computes
 *     D = x + eps,  g = c / D,  t = g * c,  u = y - t,  sv = u > 0 ? (int32)u : 0,
 *     g' = g < egl ? g : egl,  p = g' * g',  q = p * x,  gain = (int64)q,
 * each operation a binary64 one rounded to nearest even. Every result below is the exact
 * value of the same operation on the same operands, rounded the same way; all values stay
 * positive and normal, far from overflow, so only the rounding of a significand matters.
 * A double is written S 2^e with an integer S of at most 54 bits.
 *
 * D. eps = 65536 * 1.0e-10 = Me 2^-70 with the odd 53-bit Me below (bits 0x3edb7cdfd9d7bdbb).
 *   With k = bitlen(x) - 1 (17..30), x = (x 2^(52-k)) 2^(k-52), an even integer multiple of
 *   ulp(x) = 2^(k-52), and x + eps < 2^(k+1) - 1/2 stays in x's binade, so D = M 2^(k-52),
 *   M = x 2^(52-k) + n_k, n_k = RNE(eps 2^(52-k)) = RNE(Me / 2^(18+k)) (x's part even: the
 *   rounding of the sum is that of eps's part). Me is odd, so the shifted-out part is never
 *   exactly half: n_k = ((Me >> (17 + k)) + 1) >> 1 (Me >> (17 + k) = (Me >> 34) >> (k - 17),
 *   a 19-bit constant shifted), from 225180 (k = 17) to 27 (k = 30);
 *   n_k < 2^18 <= 2^(52-k), so M in [2^52, 2^53).
 * g. With l = bitlen(c), a = c 2^(53-l) in [2^52, 2^53) and c / D = (a / M) 2^(l-k-1); a != M
 *   (a has at least 22 trailing zeros, M's lowest set bit is n_k's, below bit 18); if a < M,
 *   a is doubled and the exponent lowered, so that rho = a / M is in (1, 2) and
 *   g = RNE(rho 2^52) 2^(eg-52). Let Q = floor(rho 2^53) in [2^53, 2^54). rho 2^53 is never an
 *   integer: a 2^53 = Q M would need odd(M) | c, but odd(M) >= M / n_k > 2^34 > c. Hence
 *   rho 2^52 is never a tie, and RNE(rho 2^52) = (Q + 1) >> 1 (Q odd: the fraction of
 *   rho 2^52 is above a half; even: below). Q is found by long division in three digits of
 *   17, 18 and 18 bits: each digit d ~ v = r 2^b / M estimated in fp32 (below), the
 *   remainder r' = r 2^b - d M formed exactly in 64-bit two's complement (it is small,
 *   below), the digits' errors left in the remainders and so absorbed by the next digit; the
 *   last remainder R = a 2^53 - Q' M fixes Q' to Q. The estimate: mf = floor(M / 2^29) 2^-23
 *   in [1, 2) (relative error below 2^-23), y0 = 24/17 - 8/17 mf (|1 - mf y0| <= 1/17 +
 *   2^-23), three Newton steps y += y (1 - mf y) in fp32 (1 - mf y exact by Sterbenz; each
 *   step e -> e^2 + 2^-23 + O(e 2^-24): 0.059, 0.0035, 1.3e-5, 1.2e-7), so y 2^-34 is
 *   2^18 / M within a relative 2^-22. The remainder's top bits rr = floor(r / 2^31) (a / 2^32
 *   for the first digit; |rr| < 2^22) are exact in fp32, and drop less than 2^31 2^18 / M
 *   <= 1/8 of v; the product's rounding adds 2^-24. Rounded to the nearest integer,
 *   |v - d| <= 1/2 + 1/8 + 1.3 2^-22 |v|: for the first digit (v < 2^18) below 0.71, so
 *   |r1| < 0.71 M; then |v| < 0.71 2^18 and |r2|, |r3| < 0.69 M, far inside int64, and one
 *   step (Q' - 1 where R < 0) makes R in [0, M) (the loops repeat it; never needed). None of
 *   this fp32 arithmetic reaches a result: it only chooses digits that the exact remainders
 *   then check; no conversion instruction either (vif_dev_float_of_i22, vif_dev_rint_f22:
 *   float additions that round as the proof needs, round to nearest). (vif_dev_quot)
 * t, q. A product S v of S <= 2^53 and v < 2^31 (< 2^84) in two 32 x 32 -> 64-bit products,
 *   as H 2^32 + L (H < 2^53, L < 2^32), rounded to its top 53 bits: shift
 *   s = bitlen(S v) - 53 (0..32; l - 1 or l for v of l bits), T = floor(S v / 2^s) rounded
 *   up when the rest rem = L mod 2^s has 2 rem + (T & 1) > 2^s (above half, or a tie with T
 *   odd: RNE). (vif_dev_mul_round)
 * u, sv. t = T 2^f with f <= -7 (t < 2^45 and T >= 2^52). With ti = floor(t) and
 *   fr = t's fraction in units of 2^f: u > 0 iff y > t iff y > ti. Then if fr = 0, u = y - ti
 *   exactly; else u = RNE(y - t) with y - t in (n, n + 1), n = y - ti - 1 < 2^31, whose
 *   doubles just below n + 1 are 2^(E-52) apart (E = bitlen(n) - 1, or -1 for n = 0: the
 *   rounding to n + 1 is possible only above 1/2); RNE(y - t) is n + 1 (even significand,
 *   so ties go there) iff n + 1 - (y - t) = fr 2^f <= 2^(E-53), and otherwise in [n, n + 1);
 *   so (int32)u = n + (fr <= 2^(E-53-f)).
 * g'. g and egl positive: g < egl iff g's bit pattern is below egl's.
 * p. G'^2 (G' = g' significand) through (G' 2^11)^2 = hi 2^64 + lo: the top 53 bits of hi
 *   (shift 10 or 11) rounded to nearest even with lo != 0 (2^21 does not divide G') as
 *   sticky. (vif_dev_sq_round)
 * gain. q = S 2^f' with q < 2^45 (g' <= egl <= 100, x < 2^31): (int64)q = floor(q).
 * tests/twins/test_vif_twin.c, built with VMAF_F64_SOFT_ON_HOST (where this form is the
 * host's), compares each step with the double operation (quotients, products with exact
 * ties, squares) and sv and gain with the CPU's doubles on random and constructed operands
 * (y at the rounding threshold of u, limits equal to g and beside it), then runs the whole
 * twin so against the CPU extractor.
 *
 * Cost: no integer division and no conversion instruction. Compiled for sm_90 (nvcc, as a
 * measure of the work), vif_dev_pixel_int is about 270 instructions, 24 of them fp32 and
 * about 100 in vif_dev_quot; the double form about 35, 20 of them on the FP64 pipe.
 */
#define VIF_DEV_EPS_SIG UINT64_C(0x1b7cdfd9d7bdbb) /* eps = VIF_DEV_EPS_SIG 2^-70 */
#define VIF_DEV_EPS_TOP 0x6df37u /* VIF_DEV_EPS_SIG >> 34: Me >> (17 + k) = this >> (k - 17) */
typedef char vif_dev_eps_check[(VIF_DEV_EPS_SIG >> 34) == VIF_DEV_EPS_TOP ? 1 : -1];

/* The float of an integer |i| < 2^22, exactly: 1.5 2^23 + i has the bit pattern
 * 0x4b400000 + i (floats in [2^23, 2^24) are the integers, one apart), then 1.5 2^23 off
 * (exact). No conversion instruction (a quarter-rate unit on GPUs). */
VMAF_DEVICE_FN_INLINE_DEVICE float vif_dev_float_of_i22(int32_t i)
{
    return vmaf_float_of_bits((uint32_t)(0x4b400000 + i)) - 12582912.0f;
}

/* RNE(v) for |v| < 2^22: v + 1.5 2^23 rounded to an integer by the float addition. */
VMAF_DEVICE_FN_INLINE_DEVICE int32_t vif_dev_rint_f22(float v)
{
    return (int32_t)vmaf_bits_of_float(v + 12582912.0f) - 0x4b400000;
}

/* g = c / (x + eps) = G 2^(*eg - 52), G in [2^52, 2^53) (above); l = bitlen(c). */
VMAF_DEVICE_FN_INLINE_DEVICE uint64_t vif_dev_quot(uint32_t x, uint32_t c, int l, int *eg)
{
    /* D = m 2^(k-52) */
    const int k = vif_dev_bit_length32(x) - 1;
    const uint32_t n = ((VIF_DEV_EPS_TOP >> (k - 17)) + 1) >> 1; /* n_k */
    const uint64_t m = ((uint64_t)x << (52 - k)) + n;
    /* rho = a / m in (1, 2) */
    uint64_t a = (uint64_t)c << (53 - l);
    int e = l - k - 1;
    if (a < m)
        a <<= 1, e--;
    /* y ~ 1 / mf, mf = floor(m / 2^29) 2^-23 in [1, 2) (its bit pattern: m's top 24 bits
     * under the exponent of 1) */
    const float mf = vmaf_float_of_bits((uint32_t)(m >> 29) + 0x3f000000u);
    float y = 1.4117647f - 0.47058824f * mf;
    VMAF_UNROLL
    for (int i = 0; i < 3; i++)
        y = y + y * (1.0f - mf * y);
    /* Q = floor(a 2^53 / m) in digits of 17, 18, 18 bits, each from the top bits of the
     * remainder (r >> 31 times ~2^18 2^31 / m = y 2^-3; a >> 32 times 2^17 2^32 / m, the
     * same); the remainders modulo 2^64 */
    const float w = y * 0.125f;
    const int32_t d1 = vif_dev_rint_f22(vif_dev_float_of_i22((int32_t)(a >> 32)) * w);
    uint64_t r = (a << 17) - (uint64_t)(int64_t)d1 * m;
    const int32_t d2 = vif_dev_rint_f22(vif_dev_float_of_i22((int32_t)((int64_t)r >> 31)) * w);
    r = (r << 18) - (uint64_t)(int64_t)d2 * m;
    const int32_t d3 = vif_dev_rint_f22(vif_dev_float_of_i22((int32_t)((int64_t)r >> 31)) * w);
    r = (r << 18) - (uint64_t)(int64_t)d3 * m;
    uint64_t q = ((uint64_t)(int64_t)d1 << 36) + ((uint64_t)(int64_t)d2 << 18) +
                 (uint64_t)(int64_t)d3;
    while ((int64_t)r < 0)
        q--, r += m;
    while (r >= m)
        q++, r -= m;
    uint64_t g = (q + 1) >> 1;
    if (g >> 53)
        g >>= 1, e++;
    *eg = e;
    return g;
}

/* RNE(s v) = T 2^*shift for s in [2^52, 2^53], v in [2^(l-1), 2^l), l <= 31 (above). */
VMAF_DEVICE_FN_INLINE_DEVICE uint64_t vif_dev_mul_round(uint64_t s, uint32_t v, int l,
                                                        int *shift)
{
    const uint64_t lo = (s & 0xffffffffu) * v;
    const uint64_t hi = (s >> 32) * v + (lo >> 32);
    const uint64_t l32 = lo & 0xffffffffu;
    /* s v in [2^(51+l), 2^(53+l)]: bitlen(s v) - 53 is l - 1, or l from 2^(52+l) on */
    const int sh = l - 1 + (int)((hi >> (20 + l)) != 0);
    const uint64_t t = hi << (32 - sh) | l32 >> sh;
    const uint64_t rem = l32 & ((UINT64_C(1) << sh) - 1);
    *shift = sh;
    return t + (2 * rem + (t & 1) > (UINT64_C(1) << sh));
}

/* RNE(g^2) = P 2^*shift for g in [2^52, 2^53) (above). */
VMAF_DEVICE_FN_INLINE_DEVICE uint64_t vif_dev_sq_round(uint64_t g, int *shift)
{
    const uint64_t gs = g << 11;
    const uint64_t hi = vmaf_f64_mul_hi(gs, gs);
    /* the low half, g^2 2^22 mod 2^64, is 0 iff 2^21 divides g */
    const uint64_t sticky = (g & 0x1fffff) != 0;
    const int sh = 10 + (int)(hi >> 63);
    const uint64_t p = hi >> sh, rem = hi & ((UINT64_C(1) << sh) - 1);
    *shift = sh + 42; /* g^2 = (hi 2^64 + lo) 2^-22 */
    return p + (2 * rem + ((p & 1) | sticky) > (UINT64_C(1) << sh));
}

/* sv and gain of a pixel with x >= 2^17, y > 0, c > 0 (above); egl: the limit's bits. */
VMAF_DEVICE_FN_INLINE_DEVICE void vif_dev_pixel_int(uint32_t x, uint32_t y, uint32_t c,
                                                    uint64_t egl, uint32_t *sv, int64_t *gain)
{
    const int l = vif_dev_bit_length32(c);
    int eg;
    uint64_t g = vif_dev_quot(x, c, l, &eg);
    /* t = tt 2^f, -f = nf >= 7 */
    int s;
    const uint64_t tt = vif_dev_mul_round(g, c, l, &s);
    const int nf = 52 - eg - s;
    const int sh = nf < 63 ? nf : 63;
    const uint64_t ti = tt >> sh, fr = tt & ((UINT64_C(1) << sh) - 1);
    uint32_t v = 0;
    if (y > ti) {
        if (!fr) {
            v = y - (uint32_t)ti;
        } else {
            const uint32_t n = y - (uint32_t)ti - 1;
            const int z = vif_dev_bit_length32(n) - 54 + nf; /* E - 53 - f, E = bitlen(n) - 1 */
            v = n + (z >= 0 && fr <= (UINT64_C(1) << z));
        }
    }
    *sv = v;
    /* g' = min(g, egl) */
    if (((uint64_t)(eg + 1022) << 52) + g >= egl) {
        g = (egl & UINT64_C(0x000fffffffffffff)) | UINT64_C(1) << 52;
        eg = (int)(egl >> 52) - 1023;
    }
    /* p = ps 2^(sp + 2 eg - 104), q = qs 2^fq, gain = floor(q) */
    int sp, sq;
    const uint64_t ps = vif_dev_sq_round(g, &sp);
    const uint64_t qs = vif_dev_mul_round(ps, x, vif_dev_bit_length32(x), &sq);
    const int fq = sp + 2 * eg - 104 + sq;
    *gain = (int64_t)(fq >= 0 ? qs << fq : qs >> (-fq < 63 ? -fq : 63));
}
#endif

/* The per-pixel sums of vif.h (the double operations in the CPU's order, or where doubles
 * are software their integer form above); table: the packed log2 table. */
VMAF_DEVICE_FN_INLINE_DEVICE void vif_dev_stat_pixel(const VMAF_GLOBAL uint16_t *table,
                                                     VifDevSigma s, vmaf_double egl,
                                                     VmafVifSums *acc)
{
    const int32_t nsq = VMAF_VIF_SIGMA_NSQ;
    if (s.xx < nsq) {
        acc->num_non_log += s.yy;
        acc->den_non_log++;
        return;
    }
    acc->den_log += vif_dev_log2_packed(table, (uint32_t)(nsq + s.xx)) - 17 * VMAF_VIF_LOG2_ONE;
    if (s.xy > 0 && s.yy > 0) {
#if VMAF_DOUBLE_SOFT
        uint32_t sv;
        int64_t gain;
        vif_dev_pixel_int((uint32_t)s.xx, (uint32_t)s.yy, (uint32_t)s.xy, vmaf_dbits(egl), &sv,
                          &gain);
#else
        const double eps = 65536 * 1.0e-10;
        double g = s.xy / (s.xx + eps);
        const double sv_d = s.yy - g * s.xy;
        const uint32_t sv = sv_d > 0 ? (uint32_t)(int32_t)sv_d : 0;
        g = g < egl ? g : egl;
        const int64_t gain = (int64_t)(g * g * s.xx);
#endif
        const uint32_t numer = sv + nsq;
        acc->num_log += vif_dev_log2_packed(table, (uint64_t)gain + numer) -
                        vif_dev_log2_packed(table, numer);
    }
}

/* Subsampling, vertical pass at one position (taps x[k * pitch], k < fw). */
VMAF_DEVICE_FN_INLINE_DEVICE uint32_t vif_dev_sub_vertical(const VIF_DEV_SHARED uint16_t *x,
                                                           int pitch, const uint32_t *f, int fw,
                                                           int shift)
{
    uint32_t sum = 0;
    VMAF_UNROLL
    for (int k = 0; k < fw; k++)
        sum += f[k] * x[k * pitch];
    return (sum + (1u << (shift - 1))) >> shift;
}

/* Subsampling, horizontal pass at one position (taps v[k], k < fw). */
VMAF_DEVICE_FN_INLINE_DEVICE uint16_t vif_dev_sub_horizontal(const VIF_DEV_SHARED uint32_t *v,
                                                             const uint32_t *f, int fw)
{
    uint32_t sum = 0;
    VMAF_UNROLL
    for (int k = 0; k < fw; k++)
        sum += f[k] * v[k];
    return (uint16_t)((sum + 0x8000u) >> 16);
}

/* ------------------------------------------------------------------------------------- */
/* Per thread, per phase (thread `tid` of block (bx, by)); fw and sub_fw are the widths of   */
/* filters a->filter and a->sub_filter, f and sub_f their coefficients; wide: uint16 input */

/* Phase 1: the margined tile. A thread keeps one column (VIF_DEV_LOAD_COLS column lanes,
 * at least the widest margined tile) and walks down the rows, so that the column's mirrored
 * index and offset are formed once. */
enum { VIF_DEV_LOAD_COLS = 64, VIF_DEV_LOAD_ROW_STEP = VIF_CUDA_THREADS / VIF_DEV_LOAD_COLS };
typedef char vif_dev_load_check[(((int)VIF_DEV_TILE_COLS <= (int)VIF_DEV_LOAD_COLS) &
                                 (VIF_CUDA_THREADS % VIF_DEV_LOAD_COLS == 0))
                                    ? 1
                                    : -1];

VMAF_DEVICE_FN_INLINE_DEVICE void vif_dev_phase_load(VIF_DEV_ARENA_PARAM
                                                     VIF_DEV_SHARED VifDevTile *t,
                                                     const VifCudaArgs *a, int fw, int wide,
                                                     int bx, int by, int tid)
{
    const int hf = fw / 2, cols = VIF_CUDA_TILE_W + 2 * hf, rows = VIF_CUDA_TILE_H + 2 * hf;
    const int i0 = by * VIF_CUDA_TILE_H - hf, j0 = bx * VIF_CUDA_TILE_W - hf;
    const int c = tid % VIF_DEV_LOAD_COLS;
    if (c >= cols)
        return;
    const size_t jo = (size_t)vmaf_reflect101(j0 + c, a->w) << (wide ? 1 : 0);
    const VMAF_GLOBAL unsigned char *ref = VIF_DEV_PTR(const unsigned char, a->ref) + jo;
    const VMAF_GLOBAL unsigned char *dis = VIF_DEV_PTR(const unsigned char, a->dis) + jo;
    for (int r = tid / VIF_DEV_LOAD_COLS; r < rows; r += VIF_DEV_LOAD_ROW_STEP) {
        const size_t o = (size_t)vmaf_reflect101(i0 + r, a->h) * a->stride;
        t->x[r][c] = wide ? *(const VMAF_GLOBAL uint16_t *)(const VMAF_GLOBAL void *)(ref + o)
                          : ref[o];
        t->y[r][c] = wide ? *(const VMAF_GLOBAL uint16_t *)(const VMAF_GLOBAL void *)(dis + o)
                          : dis[o];
    }
}

/* Phase 2: the vertical sums (statistic: VIF_DEV_ROWS rows of one column per item;
 * subsampling: one even tile row of one column). */
VMAF_DEVICE_FN_INLINE_DEVICE void vif_dev_phase_vertical(VIF_DEV_SHARED VifDevTile *t,
                                                         const VifCudaArgs *a, const uint32_t *f,
                                                         int fw,
                                                         const uint32_t *sub_f, int sub_fw,
                                                         int narrow, int tid)
{
    const int hf = fw / 2, cols = VIF_CUDA_TILE_W + 2 * hf;
    if (a->stat) {
        const int groups = VIF_CUDA_TILE_H / VIF_DEV_ROWS;
        for (int e = tid; e < groups * cols; e += VIF_CUDA_THREADS) {
            const int r0 = e / cols * VIF_DEV_ROWS, c = e % cols;
            VifDevColumn v[VIF_DEV_ROWS];
            vif_dev_stat_vertical(&t->x[r0][c], &t->y[r0][c], VIF_DEV_TILE_COLS, f, fw, narrow,
                                  a->mu_shift, a->q, v);
            VMAF_UNROLL
            for (int r = 0; r < VIF_DEV_ROWS; r++) {
                t->mx[r0 + r][c] = v[r].mu_x;
                t->my[r0 + r][c] = v[r].mu_y;
                t->xx[r0 + r][c] = vif_dev_sq_of_u32(v[r].xx);
                t->yy[r0 + r][c] = vif_dev_sq_of_u32(v[r].yy);
                t->xy[r0 + r][c] = vif_dev_sq_of_u32(v[r].xy);
            }
        }
    }
    if (a->sub) {
        /* tile row 2k (its samples at tile row 2k + hf), columns of the horizontal taps:
         * [hf - hn, hf + TILE_W + hn) */
        const int hn = sub_fw / 2, sub_cols = VIF_CUDA_TILE_W + 2 * hn;
        for (int e = tid; e < VIF_CUDA_TILE_H / 2 * sub_cols; e += VIF_CUDA_THREADS) {
            const int k = e / sub_cols, c = hf - hn + e % sub_cols;
            const int r = 2 * k + hf - hn;
            t->sx[k][c] = vif_dev_sub_vertical(&t->x[r][c], VIF_DEV_TILE_COLS, sub_f, sub_fw,
                                               a->sub_shift);
            t->sy[k][c] = vif_dev_sub_vertical(&t->y[r][c], VIF_DEV_TILE_COLS, sub_f, sub_fw,
                                               a->sub_shift);
        }
    }
}

/* Phase 3: the tile's pixels (VIF_DEV_COLS of a row per item; sums into *acc) and its part
 * of the next scale. */
VMAF_DEVICE_FN_INLINE_DEVICE void vif_dev_phase_horizontal(VIF_DEV_ARENA_PARAM
                                                           const VIF_DEV_SHARED VifDevTile *t,
                                                           const VifCudaArgs *a, const uint32_t *f,
                                                           int fw, const uint32_t *sub_f,
                                                           int sub_fw, int bx, int by, int tid,
                                                           VmafVifSums *acc)
{
    const int hf = fw / 2;
    const int i0 = by * VIF_CUDA_TILE_H, j0 = bx * VIF_CUDA_TILE_W;
    if (a->stat) {
        const VMAF_GLOBAL uint16_t *table = VIF_DEV_PTR(const uint16_t, a->log2_table);
        const int per_row = VIF_CUDA_TILE_W / VIF_DEV_COLS;
        for (int e = tid; e < VIF_CUDA_TILE_H * per_row; e += VIF_CUDA_THREADS) {
            const int r = e / per_row, c0 = e % per_row * VIF_DEV_COLS;
            if (i0 + r >= a->h || j0 + c0 >= a->w)
                continue;
            VifDevSigma s[VIF_DEV_COLS];
            vif_dev_stat_horizontal(&t->mx[r][c0], &t->my[r][c0], &t->xx[r][c0], &t->yy[r][c0],
                                    &t->xy[r][c0], f, a->filter_d, fw, s);
            VMAF_UNROLL
            for (int c = 0; c < VIF_DEV_COLS; c++)
                if (j0 + c0 + c < a->w)
                    vif_dev_stat_pixel(table, s[c], a->egl, acc);
        }
    }
    if (a->sub) {
        const int hn = sub_fw / 2, w2 = a->w / 2, h2 = a->h / 2;
        const int half_w = VIF_CUDA_TILE_W / 2, half_h = VIF_CUDA_TILE_H / 2;
        for (int e = tid; e < half_h * half_w; e += VIF_CUDA_THREADS) {
            const int k = e / half_w, m = e % half_w;
            const int i2 = i0 / 2 + k, j2 = j0 / 2 + m;
            if (i2 >= h2 || j2 >= w2)
                continue;
            const int c = 2 * m + hf - hn;
            const size_t o = (size_t)i2 * w2 + j2;
            VIF_DEV_PTR(uint16_t, a->sub_ref)[o] = vif_dev_sub_horizontal(&t->sx[k][c], sub_f,
                                                                          sub_fw);
            VIF_DEV_PTR(uint16_t, a->sub_dis)[o] = vif_dev_sub_horizontal(&t->sy[k][c], sub_f,
                                                                          sub_fw);
        }
    }
}

/* ------------------------------------------------------------------------------------- */
/* Host side: the launch plan and each scale's kernel arguments (vif_twin.c, the test)     */
#if !VMAF_DIALECT_OPENCL

/* Scale s is w >> s by h >> s; once one is empty, so are those after it (vif.c). */
typedef struct VifDevPlan {
    unsigned w[VMAF_VIF_SCALES], h[VMAF_VIF_SCALES]; /* 0 x 0: an empty scale */
    unsigned grid_x[VMAF_VIF_SCALES], grid_y[VMAF_VIF_SCALES];
    /* per slot: the images of scales 1..3 (ref then dis, uint16, rows packed) */
    size_t image_offset[VMAF_VIF_SCALES], image_bytes;
} VifDevPlan;

static inline void vif_dev_plan(VifDevPlan *p, unsigned w, unsigned h)
{
    p->image_bytes = 0;
    for (int k = 0; k < VMAF_VIF_SCALES; k++) {
        const int empty = !(w >> k) || !(h >> k) || (k && !p->w[k - 1]);
        p->w[k] = empty ? 0 : w >> k;
        p->h[k] = empty ? 0 : h >> k;
        p->grid_x[k] = (p->w[k] + VIF_CUDA_TILE_W - 1) / VIF_CUDA_TILE_W;
        p->grid_y[k] = (p->h[k] + VIF_CUDA_TILE_H - 1) / VIF_CUDA_TILE_H;
        p->image_offset[k] = p->image_bytes;
        if (k)
            p->image_bytes += 2 * (size_t)p->w[k] * p->h[k] * sizeof(uint16_t);
    }
}

/* The extern "C" name of scale k's kernel in vif.cu. */
static inline const char *vif_dev_kernel_name(int k, unsigned bpc)
{
    static const char *const names[VMAF_VIF_SCALES] = { "vmaf_vif_scale0_16", "vmaf_vif_scale1",
                                                        "vmaf_vif_scale2", "vmaf_vif_scale3" };
    return k == 0 && bpc == 8 ? "vmaf_vif_scale0_8" : names[k];
}

/*
 * The arguments of scale k's kernel (k non-empty). in_ref/in_dis/in_stride: the input
 * plane (scale 0); images: the slot's images (the plan's layout); sums: the slot's
 * VmafVifSums[4], zeroed before the frame. Returns whether the kernel has anything to do
 * (not: a skipped scale 0 with no scale 1).
 */
static inline int vif_dev_scale_args(VifCudaArgs *a, const VifDevPlan *p, int k, unsigned bpc,
                                     const VmafVifOptions *o, vmaf_devptr in_ref,
                                     vmaf_devptr in_dis, vmaf_u64 in_stride,
                                     vmaf_devptr images, vmaf_devptr sums,
                                     vmaf_devptr log2_table)
{
    const int next = k + 1 < VMAF_VIF_SCALES && p->w[k + 1];
    memset(a, 0, sizeof(*a));
    a->w = (int)p->w[k];
    a->h = (int)p->h[k];
    a->mu_shift = k ? 16 : (int)bpc;
    a->q = k ? 16 : 2 * ((int)bpc - 8);
    a->sub_shift = k ? 16 : (int)bpc;
    a->stat = !(k == 0 && o->skip_scale0);
    a->sub = next;
#if VMAF_DOUBLE_SOFT /* host tests only (VMAF_F64_SOFT_ON_HOST) */
    a->egl = vmaf_dof_bits(vmaf_bits_of_double(o->enhn_gain_limit));
#else
    a->egl = o->enhn_gain_limit;
#endif
    if (k == 0) {
        a->ref = in_ref;
        a->dis = in_dis;
        a->stride = in_stride;
    } else {
        a->ref = images + p->image_offset[k];
        a->dis = a->ref + (size_t)p->w[k] * p->h[k] * sizeof(uint16_t);
        a->stride = p->w[k] * sizeof(uint16_t);
    }
    if (next) {
        a->sub_ref = images + p->image_offset[k + 1];
        a->sub_dis = a->sub_ref + (size_t)p->w[k + 1] * p->h[k + 1] * sizeof(uint16_t);
        for (int i = 0; i < vmaf_vif_filter_width[k + 1]; i++)
            a->sub_filter[i] = vmaf_vif_filter[k + 1][i];
    }
    for (int i = 0; i < vmaf_vif_filter_width[k]; i++)
        a->filter[i] = vmaf_vif_filter[k][i];
    for (int i = 0; i <= vmaf_vif_filter_width[k] / 2; i++)
        a->filter_d[i] = vmaf_dfrom_u32(vmaf_vif_filter[k][i]);
    a->log2_table = log2_table;
    a->sums = sums + (size_t)k * sizeof(VmafVifSums);
    return a->stat || a->sub;
}

#endif /* !VMAF_DIALECT_OPENCL */

#endif /* VMAF_FEATURE_VIF_DEVICE_H */
