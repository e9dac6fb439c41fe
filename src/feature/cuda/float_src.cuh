// The sample sources of the float twins' kernels (float_adm.cu, float_vif.cu): a picture
// plane read as the CPU's float samples (SampleSrc<T>, T the sample type), or a float plane
// (FloatSrc). Args is the kernel's argument struct: src[] (device pointers), src_stride
// (bytes) and, for SampleSrc, bpc.
#ifndef VMAF_FEATURE_CUDA_FLOAT_SRC_CUH
#define VMAF_FEATURE_CUDA_FLOAT_SRC_CUH

#include "feature/float_filter.h"

template <typename T>
struct SampleSrc {
    template <class Args>
    __device__ static float at(const Args &a, int pic, int y, int x)
    {
        const T *row = (const T *)(a.src[pic] + (unsigned long long)y * a.src_stride);
        return vmaf_float_sample(row[x], 1.0f / vmaf_float_sample_divisor(a.bpc),
                                 VMAF_FLOAT_SAMPLE_OFFSET);
    }
};

struct FloatSrc {
    template <class Args>
    __device__ static float at(const Args &a, int pic, int y, int x)
    {
        return ((const float *)(a.src[pic] + (unsigned long long)y * a.src_stride))[x];
    }
};

#endif // VMAF_FEATURE_CUDA_FLOAT_SRC_CUH
