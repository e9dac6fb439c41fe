/*
 * One frame's device work as a list of operations, recorded once per slot and replayed: as a
 * CUDA graph (default) or launched one by one on the slot's stream (VMAF_CUDA_NO_GRAPH=1, and
 * always when profiling, so each operation can be timed).
 */
#ifndef VMAF_CUDA_RECORDER_H
#define VMAF_CUDA_RECORDER_H

#include <stddef.h>

#include "cuda/driver.h"

typedef struct VmafCudaRecorder VmafCudaRecorder;

typedef struct VmafCudaLaunch {
    unsigned grid[3], block[3];
    unsigned shared_bytes;
} VmafCudaLaunch;

/**
 * A kernel taking one struct argument by value (args, args_size bytes, copied now).
 * label names the operation in the profile.
 */
int vmaf_cuda_rec_kernel(VmafCudaRecorder *rec, CUfunction fn, VmafCudaLaunch launch,
                         const void *args, size_t args_size, const char *label);

/** Zero device memory. */
int vmaf_cuda_rec_memset(VmafCudaRecorder *rec, CUdeviceptr dst, size_t bytes, const char *label);

/** Copy results to pinned host memory. */
int vmaf_cuda_rec_download(VmafCudaRecorder *rec, void *host, CUdeviceptr src, size_t bytes,
                           const char *label);

#endif /* VMAF_CUDA_RECORDER_H */
