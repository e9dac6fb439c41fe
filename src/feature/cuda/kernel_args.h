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

/* SpEED (speed_chroma: 4 images u/v x ref/dis; speed_temporal: 2 frame differences). One
 * struct for every kernel of the chain; per-image buffers are base + image * *_elems. */
enum { SPEED_CUDA_MAX_IMAGES = 4, SPEED_CUDA_THREADS = 128, SPEED_CUDA_QR_THREADS = 640,
       SPEED_CUDA_MAX_FILTER = 128 };

typedef struct SpeedCudaArgs {
    vmaf_devptr a[SPEED_CUDA_MAX_IMAGES], b[SPEED_CUDA_MAX_IMAGES]; /* b 0: no difference */
    unsigned long long a_stride[SPEED_CUDA_MAX_IMAGES], b_stride[SPEED_CUDA_MAX_IMAGES];
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
    unsigned long long image_elems, down_elems, small_elems, result_elems; /* per image */
} SpeedCudaArgs;

/* small: means[25] | cov[625] | P[625] | R[625], per image */
enum { SPEED_CUDA_SMALL_MEANS = 0, SPEED_CUDA_SMALL_COV = 32, SPEED_CUDA_SMALL_P = 32 + 625,
       SPEED_CUDA_SMALL_R = 32 + 2 * 625, SPEED_CUDA_SMALL_ELEMS = 32 + 3 * 625 };
/* result: stalled, irregular, singular, pad, eigenvalues[25], pad, variances[num_blocks] */
enum { SPEED_CUDA_RES_STALLED = 0, SPEED_CUDA_RES_IRREGULAR = 1, SPEED_CUDA_RES_SINGULAR = 2,
       SPEED_CUDA_RES_EIGEN = 4, SPEED_CUDA_RES_VAR = 32 };

#endif /* VMAF_FEATURE_CUDA_KERNEL_ARGS_H */
