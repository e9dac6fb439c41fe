/*
 * Kernel arguments, shared by the host glue (C) and the kernels (CUDA, OpenCL). Every kernel takes
 * one of these structs by value; device addresses are plain 64-bit integers.
 */
#ifndef VMAF_FEATURE_TWINS_KERNEL_ARGS_H
#define VMAF_FEATURE_TWINS_KERNEL_ARGS_H

#include "feature/dialect.h" /* vmaf_devptr */
#include "feature/f64.h"     /* vmaf_double: double, or its bits where fp64 is not used */

typedef struct PsnrCudaArgs {
    vmaf_devptr ref[3], dist[3];
    vmaf_u64 stride[3]; /* bytes, same for ref and dist */
    unsigned w[3], h[3];
    unsigned n_planes;
    vmaf_devptr sse;              /* unsigned long long[3], zeroed before the launch */
} PsnrCudaArgs;

/* The motion SAD: a warp per strip of MOTION_CUDA_STRIP columns (32 lanes less the 2 mirrored
 * columns on either side) and MOTION_CUDA_ROWS rows; MOTION_CUDA_THREADS / 32 strips across
 * per block (motion.cu). */
enum { MOTION_CUDA_STRIP = 28, MOTION_CUDA_ROWS = 32, MOTION_CUDA_THREADS = 128 };

typedef struct MotionCudaArgs {
    vmaf_devptr prev, cur;
    vmaf_u64 stride;    /* bytes */
    unsigned w, h, bpc;
    vmaf_devptr sad;              /* unsigned long long, zeroed before the launch */
} MotionCudaArgs;

enum { PSNR_CUDA_THREADS = 256, PSNR_CUDA_ROW_BLOCKS = 512 };

/* psnr_hvs: one thread per 8x8 block writes the block's 64 terms in the CPU's serial order. */
enum { PSNR_HVS_CUDA_THREADS = 128 };

typedef struct PsnrHvsCudaArgs {
    vmaf_devptr ref, dist;        /* the plane */
    vmaf_u64 stride;    /* bytes */
    int nbx, nby;                 /* block corners across and down */
    unsigned wide;                /* uint16 samples */
    vmaf_devptr tables;           /* float csf[64], then float mask[64], of this plane */
    vmaf_devptr terms;            /* float[nbx * nby * 64] */
} PsnrHvsCudaArgs;

/* vif: VifCudaArgs, its tile and block shape (VIF_CUDA_*), beside the per-thread work that
 * reads them and the host plan that fills them. */
#include "feature/vif_device.h"

/* adm: one thread per output element (DWT, decouple, CSF: ADM_CUDA_TX x ADM_CUDA_TY blocks),
 * one block per band row for the sums (ADM_CUDA_ROW_THREADS). Bands live in a per-slot copy
 * of the CPU instance's band block (vmaf_adm_layout_compact()); see src/feature/adm_device.h. */
enum { ADM_CUDA_TX = 32, ADM_CUDA_TY = 8, ADM_CUDA_ROW_THREADS = 256 };
/* adm scale-0 DWT: a warp per strip of ADM_DWT0_STRIP output columns (lanes 1..30; lanes 0
 * and 31 hold the neighbours' vertical passes) and ADM_DWT0_ROWS output rows, each lane
 * keeping its two columns' last 4 picture rows in registers; ADM_DWT0_WARPS strips across
 * per block, grid z: the picture (adm.cu). */
enum { ADM_DWT0_STRIP = 30, ADM_DWT0_ROWS = 16, ADM_DWT0_WARPS = 4 };

typedef struct AdmDwt0CudaArgs {
    vmaf_devptr pic[2];                 /* ref, dis luma */
    vmaf_u64 pic_stride[2];   /* bytes */
    vmaf_devptr a[2];                   /* int32 band A (scale 1's input) */
    vmaf_devptr h[2], v[2], d[2];       /* int16 bands */
    vmaf_u64 stride;          /* band elements */
    int w, h_pic, lo_only;
    unsigned bpc;
} AdmDwt0CudaArgs;

typedef struct AdmDwt123CudaArgs {
    vmaf_devptr ref, dis;               /* int32 band A of the input */
    vmaf_devptr out[8];                 /* ref A, V, H, D, dis A, V, H, D */
    vmaf_devptr last[3];                /* [t]: row buffer scale t's last row left (t = 1, 2) */
    vmaf_devptr last_out;               /* this scale's (0: not needed) */
    vmaf_u64 stride;
    int w, h, scale;
    int w_in[4];                        /* input width of each scale */
} AdmDwt123CudaArgs;

typedef struct AdmCopyCudaArgs {
    vmaf_devptr src[8], dst[8];         /* int32 bands */
    vmaf_u64 stride;
    int n, w, h;
} AdmCopyCudaArgs;

/* decouple, and with `csf` set the CSF of the impairment a (into csf and mask) at the same
 * element: the first CSF of the scale, whose region is the decoupling's (adm_plan.c) */
typedef struct AdmDecoupleCudaArgs {
    vmaf_devptr ref[3], dis[3], r[3], a[3];
    vmaf_devptr csf_dst[3], csf_mask[3];
    vmaf_u64 stride;
    int left, top, right, bottom;       /* outer region */
    vmaf_double gain, cos2;
    unsigned weight[3];                 /* the CSF's */
    int csf;
} AdmDecoupleCudaArgs;

typedef struct AdmCsfCudaArgs {
    vmaf_devptr src[3], dst[3], mask[3];
    vmaf_u64 stride;
    int left, top, right, bottom;       /* outer region */
    unsigned weight[3];
} AdmCsfCudaArgs;

typedef struct AdmCmCudaArgs {
    vmaf_devptr src[3], csf[3], mask[3];
    vmaf_u64 stride;
    int w, h;
    unsigned weight[3];
    unsigned cub_shift[3], cub_round[3], row_shift, row_round;
    vmaf_devptr total;                  /* unsigned long long[3] */
} AdmCmCudaArgs;

typedef struct AdmDenCudaArgs {
    vmaf_devptr band[3];
    vmaf_u64 stride;
    int left, top, right, bottom;       /* inner region */
    unsigned sq_shift, cub_shift, row_shift;
    vmaf_u64 sq_round, cub_round, row_round;
    vmaf_devptr total;                  /* unsigned long long[3] */
} AdmDenCudaArgs;
/* SpEED (speed_chroma: 4 images u/v x ref/dis; speed_temporal: 2 frame differences). One
 * struct for every kernel of the chain; per-image buffers are base + image * *_elems. */
enum { SPEED_CUDA_MAX_IMAGES = 4, SPEED_CUDA_THREADS = 128, SPEED_CUDA_QR_THREADS = 640,
       SPEED_CUDA_MAX_FILTER = 128 };

typedef struct SpeedCudaArgs {
    vmaf_devptr a[SPEED_CUDA_MAX_IMAGES], b[SPEED_CUDA_MAX_IMAGES]; /* b 0: no difference */
    vmaf_u64 a_stride[SPEED_CUDA_MAX_IMAGES], b_stride[SPEED_CUDA_MAX_IMAGES];
    unsigned wide;                /* uint16 samples */
    float sample_scale;           /* 2^(bpc-8) */
    unsigned plane_w, plane_h, scaled_w, scaled_h, down_w, down_h, sub_w, sub_h;
    unsigned blocks_w, num_blocks;
    unsigned direct, resample, copy, method, n_rows;
    int aa_width, mean_width;
    vmaf_devptr filters;          /* float aa[128], mean[128] */
    vmaf_devptr rows;             /* int[n_rows]: image rows the anti-aliasing filter reads */
    vmaf_devptr col_index, row_index, col_weight, row_weight; /* the CPU scaler's tables */
    vmaf_devptr image, down, centred, small, result; /* this slot's buffers */
    vmaf_u64 image_elems, down_elems, small_elems, result_elems; /* per image */
} SpeedCudaArgs;

/* small: means[25] | cov[625] | P[625] | R[625], per image */
enum { SPEED_CUDA_SMALL_MEANS = 0, SPEED_CUDA_SMALL_COV = 32, SPEED_CUDA_SMALL_P = 32 + 625,
       SPEED_CUDA_SMALL_R = 32 + 2 * 625, SPEED_CUDA_SMALL_ELEMS = 32 + 3 * 625 };
/* result: stalled, irregular, singular, pad, eigenvalues[25], pad, variances[num_blocks] */
enum { SPEED_CUDA_RES_STALLED = 0, SPEED_CUDA_RES_IRREGULAR = 1, SPEED_CUDA_RES_SINGULAR = 2,
       SPEED_CUDA_RES_EIGEN = 4, SPEED_CUDA_RES_VAR = 32 };
/* float_psnr / float_moment: per-row unit sums, then one exact finish per sum; float_ansnr:
 * the filtered planes, then one thread per row (float_stats.h, float_stats.cu). */
enum { FLOAT_STATS_CUDA_THREADS = 256, FLOAT_STATS_PSNR = 0, FLOAT_STATS_MOMENT = 1 };

typedef struct FloatStatsCudaArgs {
    vmaf_devptr ref, dist;        /* luma */
    vmaf_u64 stride;    /* bytes */
    unsigned w, h, bpc, kind;     /* kind: FLOAT_STATS_PSNR (1 sum) or _MOMENT (4 sums) */
    vmaf_devptr row_units;        /* unsigned long long [sum][h] */
    vmaf_devptr sums;             /* double [sum] */
    vmaf_devptr filtered;         /* float_ansnr: float [2][h][w], ref then dist */
    vmaf_devptr rows;             /* float_ansnr: float [h][2], sig and noise per row */
    float ref_kernel[9], dis_kernel[25]; /* float_ansnr: float_stats.h's kernels */
} FloatStatsCudaArgs;

/* The float twins' row sums (feature/cuda/row_sums.cuh): blocks of FLOAT_ROW_SUM_THREADS
 * threads, FLOAT_ROW_SUM_ROWS rows each. */
enum { FLOAT_ROW_SUM_THREADS = 256, FLOAT_ROW_SUM_ROWS = 16 };

/* float_motion: per plane, the blur of the previous and the current reference in tiles
 * (float_filter.h), the rows' |prev - cur| sums (row_sums.cuh); with motion_add_scale1 the
 * half-size planes and their row sums (float_motion.h, float_motion.cu). */
enum { FLOAT_MOTION_CUDA_TILE_W = 64, FLOAT_MOTION_CUDA_TILE_H = 16, FLOAT_MOTION_CUDA_RADIUS = 2,
       FLOAT_MOTION_CUDA_THREADS = 256 };

typedef struct FloatMotionCudaArgs {
    vmaf_devptr src[2];           /* samples of this plane: previous, current reference */
    vmaf_u64 src_stride; /* bytes */
    vmaf_devptr blur[2];          /* float planes, `stride` floats per row (the CPU's layout) */
    vmaf_u64 stride;
    unsigned w, h, bpc;
    int fw;
    float f[5];                   /* float_motion.h's kernel */
    vmaf_devptr rows;             /* float [h] */
    /* motion_add_scale1 */
    vmaf_devptr scaled[2];        /* float [dst_h][scaled_stride] */
    vmaf_u64 scaled_stride, read_stride; /* floats; read_stride: the CPU's quirk */
    unsigned dst_w, dst_h, copy;
    vmaf_devptr col_index, col_weight, row_index, row_weight; /* the CPU scaler's tables */
    vmaf_devptr scaled_rows;      /* float [dst_h] */
} FloatMotionCudaArgs;

/* float_vif: per scale, tiles of outputs: the vertical pass of the five quantities (or, to
 * decimate, of each plane at the even rows) into shared memory, then the horizontal pass,
 * the per-pixel statistic and the rows' sums of num and den (row_sums.cuh; float_vif.h,
 * float_vif.cu). Shared memory: FLOAT_VIF_CUDA_FILTER floats of taps, then the pass. */
enum { FLOAT_VIF_CUDA_TILE_W = 32, FLOAT_VIF_CUDA_TILE_H = 8, FLOAT_VIF_CUDA_THREADS = 256,
       FLOAT_VIF_CUDA_FILTER = 128, FLOAT_VIF_CUDA_STAGE_MAX = 4096 };
/* The stats tile's converted samples of both pictures, (TILE_H + 2R) x (TILE_W + 2R) each:
 * staged in shared memory after the pass when they take at most FLOAT_VIF_CUDA_STAGE_MAX
 * floats (filters up to 17 taps: every scale of the default options); wider filters read the
 * samples from global memory in the vertical pass. */
#define FLOAT_VIF_CUDA_STAGE_FLOATS(R)                                                        \
    (2 * (FLOAT_VIF_CUDA_TILE_H + 2 * (R)) * (FLOAT_VIF_CUDA_TILE_W + 2 * (R)))
#define FLOAT_VIF_CUDA_STAGED(R) (FLOAT_VIF_CUDA_STAGE_FLOATS(R) <= FLOAT_VIF_CUDA_STAGE_MAX)

typedef struct FloatVifCudaArgs {
    vmaf_devptr src[2];            /* ref, dis: samples or float planes */
    vmaf_u64 src_stride; /* bytes */
    unsigned src_w, src_h, bpc;
    int fw;
    vmaf_devptr filter;            /* fw taps (the CPU workspace's) */
    vmaf_devptr dst[2];            /* decimate/resample: planes ref, dis; stats: num, den */
    vmaf_u64 dst_stride; /* floats */
    unsigned dst_w, dst_h;
    vmaf_double sigma_nsq;         /* VmafFloatVifStatConst */
    float sigma_max_inv, gain_limit;
    vmaf_devptr rows;              /* float [2][dst_h]: num, den per row */
    int method;                    /* resample: enum VmafSpeedScaleMethod, taps per entry */
    int taps;
    vmaf_devptr col_index, col_weight, row_index, row_weight; /* the CPU scaler's tables */
} FloatVifCudaArgs;

/* float_adm: per scale, the DWT (one thread per output), decouple + CSF over the outer
 * region, the masked (DLM, AIM) and denominator terms at the visited samples, then one
 * thread per (sum, band, visited row) adding them in float in the CPU's order
 * (float_adm.h, float_adm.cu). The slot's band planes: */
enum {
    FLOAT_ADM_P_A = 0,       /* A of a scale: [pair 0/1][ref, dis], pairs alternate by scale */
    FLOAT_ADM_P_REF = 4,     /* H, V, D of the reference */
    FLOAT_ADM_P_DIS = 7,     /* H, V, D of the distorted */
    FLOAT_ADM_P_CSF_R = 10,  /* CSF of the restored part, H V D */
    FLOAT_ADM_P_CSF_A = 13,  /* CSF of the additive part */
    FLOAT_ADM_P_MASK_R = 16, /* their masking values */
    FLOAT_ADM_P_MASK_A = 19,
    FLOAT_ADM_PLANES = 22,
    FLOAT_ADM_SUMS = 3,      /* DLM (num), AIM, den: FLOAT_ADM_SUMS x 3 bands of terms */
    FLOAT_ADM_CUDA_THREADS = 128,
};

typedef struct FloatAdmCudaArgs {
    vmaf_devptr src[2];            /* DWT input: samples (scale 0) or the previous A planes */
    vmaf_u64 src_stride; /* bytes */
    unsigned src_w, src_h, bpc, lo_only;
    int a_out;                     /* the A pair this scale's DWT writes */
    unsigned w, h;                 /* the scale's bands (stride w) */
    vmaf_devptr planes;            /* float [FLOAT_ADM_PLANES][plane_floats] */
    vmaf_u64 plane_floats;
    int outer[4], inner[4];        /* regions: left, top, right, bottom */
    float rfactor[3];
    float cos_1deg_sq;
    vmaf_double gain_limit;
    unsigned bypass;
    unsigned cube;                 /* adm_p_norm == 3.0: terms as x * x * x */
    float p_norm;                  /* (float)adm_p_norm, the powf exponent otherwise */
    vmaf_devptr rcp;               /* the CPU workspace's RCPSS table */
    vmaf_devptr terms;             /* float [FLOAT_ADM_SUMS][3][term_floats] */
    vmaf_u64 term_floats;
    vmaf_devptr rows;              /* float [FLOAT_ADM_SUMS][3][row_cap] of this scale */
    unsigned row_cap;
} FloatAdmCudaArgs;

/* float_ssim / float_ms_ssim: (decimate) one thread per output of the decimated planes;
 * (tile) one block per tile of window outputs: the five quantities' passes, the terms and one
 * tree-summed segment per tile row; (rows) one thread per (sum, row) adding its segments;
 * (plane) one warp per sum: 32 lanes of rows, then the tree (ssim_device.h, ssim.cu). */
typedef struct SsimCudaArgs {
    vmaf_devptr src[2];            /* ref, cmp: samples or float planes */
    vmaf_u64 src_stride; /* bytes */
    int src_kind;                  /* VmafSsimSource's kind */
    float src_scale;               /* 1 / vmaf_float_sample_divisor(bpc) */
    int w, h;                      /* the source planes */
    vmaf_devptr dst[2];            /* decimate: float planes, dst_stride bytes per row */
    vmaf_u64 dst_stride;
    int dst_w, dst_h, factor, kw;
    int n_seg;                     /* segments per row of window outputs */
    vmaf_devptr partials;          /* double [4][h - 10][n_seg] */
    vmaf_devptr rows;              /* double [4][h - 10] */
    vmaf_devptr sums;              /* double [4] */
    float taps[100];               /* decimate: kw x kw, row-major */
} SsimCudaArgs;
/* ciede: one thread per pixel writes its CIEDE2000 difference (ciede_device.h); one block of
 * SEQ_SUM_THREADS sums them with the bits of the CPU's serial row-major double sum
 * (ciede.cu, seq_sum.cuh; seq_sum_device.h says why that is exact). */
enum { CIEDE_CUDA_THREADS = 128 };

typedef struct CiedeCudaArgs {
    vmaf_devptr ref[3], dist[3];
    vmaf_u64 stride[3]; /* bytes, same for ref and dist */
    unsigned pw[3], ph[3];        /* plane sizes */
    unsigned w, h, bpc, layout;   /* layout: VMAF_CIEDE_444/420/422 */
    vmaf_devptr diff;             /* float [h][w], 16-byte aligned */
    vmaf_devptr sum;              /* double */
} CiedeCudaArgs;

/* The recorder keeps each launch's argument struct inline (VMAF_CUDA_MAX_KERNEL_ARGS bytes). */
#define VMAF_CUDA_MAX_KERNEL_ARGS 1024
#ifndef __cplusplus
_Static_assert(sizeof(PsnrCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "PsnrCudaArgs too large");
_Static_assert(sizeof(MotionCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "MotionCudaArgs too large");
_Static_assert(sizeof(PsnrHvsCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "PsnrHvsCudaArgs too large");
_Static_assert(sizeof(VifCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "VifCudaArgs too large");
_Static_assert(sizeof(AdmDwt0CudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "AdmDwt0CudaArgs too large");
_Static_assert(sizeof(AdmDwt123CudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "AdmDwt123CudaArgs too large");
_Static_assert(sizeof(AdmCopyCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "AdmCopyCudaArgs too large");
_Static_assert(sizeof(AdmDecoupleCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "AdmDecoupleCudaArgs too large");
_Static_assert(sizeof(AdmCsfCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "AdmCsfCudaArgs too large");
_Static_assert(sizeof(AdmCmCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "AdmCmCudaArgs too large");
_Static_assert(sizeof(AdmDenCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "AdmDenCudaArgs too large");
_Static_assert(sizeof(SpeedCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "SpeedCudaArgs too large");
_Static_assert(sizeof(CiedeCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "CiedeCudaArgs too large");
_Static_assert(sizeof(FloatStatsCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "FloatStatsCudaArgs too large");
_Static_assert(sizeof(FloatMotionCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "FloatMotionCudaArgs too large");
_Static_assert(sizeof(FloatVifCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "FloatVifCudaArgs too large");
_Static_assert(sizeof(FloatAdmCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "FloatAdmCudaArgs too large");
_Static_assert(sizeof(SsimCudaArgs) <= VMAF_CUDA_MAX_KERNEL_ARGS, "SsimCudaArgs too large");
#endif

#endif /* VMAF_FEATURE_TWINS_KERNEL_ARGS_H */
