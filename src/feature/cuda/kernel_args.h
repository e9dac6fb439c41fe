/*
 * Kernel arguments, shared by the host glue (C) and the kernels (CUDA). Every kernel takes
 * one of these structs by value; device addresses are plain 64-bit integers.
 */
#ifndef VMAF_FEATURE_CUDA_KERNEL_ARGS_H
#define VMAF_FEATURE_CUDA_KERNEL_ARGS_H

typedef unsigned long long vmaf_devptr;

typedef struct PsnrCudaArgs {
    vmaf_devptr ref[3], dist[3];
    unsigned long long stride[3]; /* bytes, same for ref and dist */
    unsigned w[3], h[3];
    unsigned n_planes;
    vmaf_devptr sse;              /* unsigned long long[3], zeroed before the launch */
} PsnrCudaArgs;

/* The motion SAD: one block per (tile of columns, row). */
enum { MOTION_CUDA_TILE = 1024, MOTION_CUDA_THREADS = 256 };

typedef struct MotionCudaArgs {
    vmaf_devptr prev, cur;
    unsigned long long stride;    /* bytes */
    unsigned w, h, bpc;
    vmaf_devptr sad;              /* unsigned long long, zeroed before the launch */
} MotionCudaArgs;

enum { PSNR_CUDA_THREADS = 256, PSNR_CUDA_ROW_BLOCKS = 512 };

/* psnr_hvs: one thread per 8x8 block writes the block's 64 terms in the CPU's serial order. */
enum { PSNR_HVS_CUDA_THREADS = 128 };

typedef struct PsnrHvsCudaArgs {
    vmaf_devptr ref, dist;        /* the plane */
    unsigned long long stride;    /* bytes */
    int nbx, nby;                 /* block corners across and down */
    unsigned wide;                /* uint16 samples */
    vmaf_devptr tables;           /* float csf[64], then float mask[64], of this plane */
    vmaf_devptr terms;            /* float[nbx * nby * 64] */
} PsnrHvsCudaArgs;

/* float_psnr / float_moment: per-row unit sums, then one exact finish per sum; float_ansnr:
 * the filtered planes, then one thread per row (float_stats.h, float_stats.cu). */
enum { FLOAT_STATS_CUDA_THREADS = 256, FLOAT_STATS_PSNR = 0, FLOAT_STATS_MOMENT = 1 };

typedef struct FloatStatsCudaArgs {
    vmaf_devptr ref, dist;        /* luma */
    unsigned long long stride;    /* bytes */
    unsigned w, h, bpc, kind;     /* kind: FLOAT_STATS_PSNR (1 sum) or _MOMENT (4 sums) */
    vmaf_devptr row_units;        /* unsigned long long [sum][h] */
    vmaf_devptr sums;             /* double [sum] */
    vmaf_devptr filtered;         /* float_ansnr: float [2][h][w], ref then dist */
    vmaf_devptr rows;             /* float_ansnr: float [h][2], sig and noise per row */
    float ref_kernel[9], dis_kernel[25]; /* float_ansnr: float_stats.h's kernels */
} FloatStatsCudaArgs;

/* float_motion: per plane, the blur of the previous and the current reference in tiles
 * (float_filter.h), one thread per row of |prev - cur| sums; with motion_add_scale1 the
 * half-size planes and their row sums (float_motion.h, float_motion.cu). */
enum { FLOAT_MOTION_CUDA_TILE_W = 64, FLOAT_MOTION_CUDA_TILE_H = 16, FLOAT_MOTION_CUDA_RADIUS = 2,
       FLOAT_MOTION_CUDA_THREADS = 256, FLOAT_MOTION_CUDA_ROW_THREADS = 64 };

typedef struct FloatMotionCudaArgs {
    vmaf_devptr src[2];           /* samples of this plane: previous, current reference */
    unsigned long long src_stride; /* bytes */
    vmaf_devptr blur[2];          /* float planes, `stride` floats per row (the CPU's layout) */
    unsigned long long stride;
    unsigned w, h, bpc;
    int fw;
    float f[5];                   /* float_motion.h's kernel */
    vmaf_devptr rows;             /* float [h] */
    /* motion_add_scale1 */
    vmaf_devptr scaled[2];        /* float [dst_h][scaled_stride] */
    unsigned long long scaled_stride, read_stride; /* floats; read_stride: the CPU's quirk */
    unsigned dst_w, dst_h, copy;
    vmaf_devptr col_index, col_weight, row_index, row_weight; /* the CPU scaler's tables */
    vmaf_devptr scaled_rows;      /* float [dst_h] */
} FloatMotionCudaArgs;

/* float_vif: per scale, tiles of outputs: the vertical pass of the five quantities (or, to
 * decimate, of each plane at the even rows) into shared memory, then the horizontal pass,
 * the per-pixel statistic and one thread per row summing num and den (float_vif.h,
 * float_vif.cu). Shared memory: FLOAT_VIF_CUDA_FILTER floats of taps, then the pass. */
enum { FLOAT_VIF_CUDA_TILE_W = 32, FLOAT_VIF_CUDA_TILE_H = 8, FLOAT_VIF_CUDA_THREADS = 256,
       FLOAT_VIF_CUDA_ROW_THREADS = 64, FLOAT_VIF_CUDA_FILTER = 128 };

typedef struct FloatVifCudaArgs {
    vmaf_devptr src[2];            /* ref, dis: samples or float planes */
    unsigned long long src_stride; /* bytes */
    unsigned src_w, src_h, bpc;
    int fw;
    vmaf_devptr filter;            /* fw taps (the CPU workspace's) */
    vmaf_devptr dst[2];            /* decimate/resample: planes ref, dis; stats: num, den */
    unsigned long long dst_stride; /* floats */
    unsigned dst_w, dst_h;
    double sigma_nsq;              /* VmafFloatVifStatConst */
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
    unsigned long long src_stride; /* bytes */
    unsigned src_w, src_h, bpc, lo_only;
    int a_out;                     /* the A pair this scale's DWT writes */
    unsigned w, h;                 /* the scale's bands (stride w) */
    vmaf_devptr planes;            /* float [FLOAT_ADM_PLANES][plane_floats] */
    unsigned long long plane_floats;
    int outer[4], inner[4];        /* regions: left, top, right, bottom */
    float rfactor[3];
    float cos_1deg_sq;
    double gain_limit;
    unsigned bypass;
    vmaf_devptr rcp;               /* the CPU workspace's RCPSS table */
    vmaf_devptr terms;             /* float [FLOAT_ADM_SUMS][3][term_floats] */
    unsigned long long term_floats;
    vmaf_devptr rows;              /* float [FLOAT_ADM_SUMS][3][row_cap] of this scale */
    unsigned row_cap;
} FloatAdmCudaArgs;

#endif /* VMAF_FEATURE_CUDA_KERNEL_ARGS_H */
