/*
 * Twin VMAF — integer ADM on the GPU: the frame's launches (kernel, grid and arguments) in
 * the CPU's stage order (vmaf_adm_score()). The CUDA twin records them; tests/twins/test_adm_twin.c
 * runs the same launches on the host through src/feature/cuda/adm_kernels.h.
 */
#ifndef VMAF_FEATURE_ADM_PLAN_H
#define VMAF_FEATURE_ADM_PLAN_H

#include <stddef.h>

#include "feature/adm.h"
#include "feature/twins/kernel_args.h"

enum VmafAdmOpKind {
    VMAF_ADM_OP_CLEAR,      /* zero clear_bytes at clear_dst */
    VMAF_ADM_OP_DWT0,       /* grid z: picture; wide: uint16 samples */
    VMAF_ADM_OP_DWT123,
    VMAF_ADM_OP_COPY,
    VMAF_ADM_OP_DECOUPLE0,
    VMAF_ADM_OP_DECOUPLE123,
    VMAF_ADM_OP_CSF0,       /* grid z: orientation */
    VMAF_ADM_OP_CSF123,
    VMAF_ADM_OP_CM0,        /* grid x: row slot */
    VMAF_ADM_OP_CM123,
    VMAF_ADM_OP_DEN0,       /* grid x: row, y: orientation */
    VMAF_ADM_OP_DEN123,
};

typedef struct VmafAdmOp {
    int kind;
    int wide;
    unsigned grid[3], block[3];
    const char *label;
    vmaf_devptr clear_dst;
    unsigned long long clear_bytes;
    union {
        AdmDwt0CudaArgs dwt0;
        AdmDwt123CudaArgs dwt123;
        AdmCopyCudaArgs copy;
        AdmDecoupleCudaArgs dec;
        AdmCsfCudaArgs csf;
        AdmCmCudaArgs cm;
        AdmDenCudaArgs den;
    } a;
} VmafAdmOp;

/** A slot's device buffers (addresses; host addresses in the host test). */
typedef struct VmafAdmDeviceBuffers {
    vmaf_devptr block;    /* vmaf_adm_layout_compact() block */
    vmaf_devptr temp;     /* vmaf_adm_temp_bytes() */
    vmaf_devptr last[3];  /* [1], [2]: vmaf_adm_last_bytes() */
    vmaf_devptr totals;   /* VmafAdmTotals */
} VmafAdmDeviceBuffers;

enum { VMAF_ADM_MAX_OPS = 48 };

/** Sizes of the temporary bands and of scale t's (1, 2) kept last row for a w x h picture. */
size_t vmaf_adm_temp_bytes(unsigned w, unsigned h);
size_t vmaf_adm_last_bytes(unsigned w, unsigned scale);

/**
 * The launches of one frame (ref and dis luma at the given addresses, strides in bytes) for
 * the state's options and geometry into ops[VMAF_ADM_MAX_OPS]; returns their number, or a
 * negative errno.
 */
int vmaf_adm_plan(const VmafAdmState *s, const VmafAdmDeviceBuffers *b, vmaf_devptr ref,
                  size_t ref_stride, vmaf_devptr dis, size_t dis_stride, VmafAdmOp *ops);

#endif /* VMAF_FEATURE_ADM_PLAN_H */
