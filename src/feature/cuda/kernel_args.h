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

/* vif: one block per tile of VIF_CUDA_TILE_W x VIF_CUDA_TILE_H pixels of a scale computes the
 * tile's statistic (its block sums, added to the scale's sums with one 64-bit atomic add per
 * sum and block) and the tile's part of the next scale (vif_device.h describes the
 * decomposition). At most 256 bytes (the recorder's limit). */
enum { VIF_CUDA_TILE_W = 48, VIF_CUDA_TILE_H = 16, VIF_CUDA_THREADS = 256 };

typedef struct VifCudaArgs {
    vmaf_devptr ref, dis;         /* the scale's planes */
    unsigned long long stride;    /* bytes, same for ref and dis */
    int w, h;                     /* the scale's size, both >= 1 */
    int mu_shift, q;              /* the statistic's vertical shifts (vif.h) */
    int sub_shift;                /* the subsampling's vertical shift */
    int stat;                     /* compute the statistic (0: skipped scale 0) */
    int sub;                      /* write the next scale, (w/2) x (h/2), rows packed */
    double egl;                   /* vif_enhn_gain_limit */
    vmaf_devptr sub_ref, sub_dis; /* uint16 images of the next scale */
    vmaf_devptr log2_table;       /* uint16[VMAF_VIF_LOG2_TABLE_LEN] */
    vmaf_devptr sums;             /* the scale's VmafVifSums, zeroed before the launch */
    unsigned filter[17];          /* the scale's filter (vmaf_vif_filter[s]) */
    unsigned sub_filter[9];       /* the next scale's filter */
} VifCudaArgs;

#endif /* VMAF_FEATURE_CUDA_KERNEL_ARGS_H */
