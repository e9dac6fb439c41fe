/* psnr: per-plane PSNR (and MSE), with aggregate PSNR over the sequence. */
#ifndef VMAF_FEATURE_PSNR_H
#define VMAF_FEATURE_PSNR_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stdbool.h>
#include <stdint.h>
#endif

typedef struct PsnrState {
    /* options */
    bool enable_chroma;
    bool enable_mse;
    bool enable_apsnr;
    bool reduced_hbd_peak;
    double min_sse;
    /* derived at init */
    unsigned n_planes;
    uint32_t peak;
    double psnr_max[3];
    /* sequence totals for apsnr */
    uint64_t total_sse[3];
    uint64_t total_pixels[3];
} PsnrState;

/** Sum of squared differences over one plane; exact in 64-bit for every depth 8..16. */
uint64_t vmaf_psnr_plane_sse(const void *ref, ptrdiff_t ref_stride, const void *dis,
                             ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc);

/** PSNR of one plane from its SSE, as reference libvmaf computes it. */
double vmaf_psnr_from_sse(const PsnrState *s, unsigned plane, uint64_t sse, unsigned w,
                          unsigned h);

#if VMAF_DIALECT_C
#include "feature_extractor.h"

/**
 * Write one frame's psnr (and mse) outputs from the per-plane SSEs, accumulating the apsnr
 * totals: the common tail of the CPU extractor and its CUDA twin.
 */
int vmaf_psnr_store(PsnrState *s, const uint64_t sse[3], const VmafPicture *geometry,
                    unsigned index, VmafFeatureSink *sink);
#endif

#endif /* VMAF_FEATURE_PSNR_H */
