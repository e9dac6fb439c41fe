/*
 * PSNR-HVS: constants shared by the CPU extractor (psnr_hvs.c) and any accelerated twin.
 *
 * The metric (Xiph/Daala flavour of PSNR-HVS-M, as libvmaf computes it):
 *   - 8x8 blocks whose top-left corners step by 7 samples in both directions (neighbouring
 *     blocks overlap by one row/column); a block is used only where it fits entirely.
 *   - each block of both pictures goes through Daala's integer 8x8 forward DCT;
 *   - a masking threshold per block comes from the weighted AC energy and a ratio of the
 *     quadrant variances to the whole-block variance (all in float);
 *   - DCT differences above the threshold, weighted by a contrast-sensitivity table, are
 *     squared and summed into one float accumulator per plane: block after block (corners
 *     in raster order), each block's 64 terms in raster order. That serial float sum is
 *     part of the result; an implementation may compute the terms in any order but must
 *     add them in exactly this one.
 *
 * Everything here is plain C so that a CUDA translation unit can include it: the inline
 * helpers carry VMAF_DEVICE_FN_INLINE_HOST, which adds __host__ __device__ under nvcc.
 */
#ifndef VMAF_FEATURE_PSNR_HVS_H
#define VMAF_FEATURE_PSNR_HVS_H

#include "dialect.h"
#if !VMAF_DIALECT_OPENCL
#include <stdint.h>
#endif

enum {
    PSNR_HVS_BLOCK = 8,     /**< transform size */
    PSNR_HVS_STEP = 7,      /**< distance between the corners of neighbouring blocks */
    PSNR_HVS_COEFFS = 64,   /**< samples (and coefficients) per block */
    PSNR_HVS_MAX_BPC = 12,  /**< deepest input the integer path is defined for */
};

/** Block corners along a side of n samples: 0, 7, 14, ... while corner < n - 7. */
VMAF_DEVICE_FN_INLINE_HOST int vmaf_psnr_hvs_blocks(int n)
{
    return n >= PSNR_HVS_BLOCK ? (n - 1) / PSNR_HVS_STEP : 0;
}

/* Host and CUDA only to the end of psnr_hvs_mask_weight: the tables reach the OpenCL kernels
 * through their arguments (the host fills them from these), and a program built without fp64
 * names no double (the decimals below would be read as floats there). */
#if !VMAF_DIALECT_OPENCL
/** Scale applied (in double) to a CSF entry before squaring it into the masking weight. */
#define PSNR_HVS_MASK_SCALE 0.3885746225901003

/*
 * Contrast-sensitivity weights, row = vertical frequency, column = horizontal frequency.
 * Index 0 is luma, 1 is Cb, 2 is Cr; the chroma tables were derived for 4:2:0 but are used
 * for every chroma subsampling, as the reference does. The decimals carry no f suffix on
 * purpose: each is read as a double and then narrowed to float, exactly as the reference's
 * table is, which can differ from reading the decimal straight into a float.
 */
static VMAF_CONSTANT const float psnr_hvs_csf[3][PSNR_HVS_COEFFS] = {
    { /* Y */
        1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411,
        1.00227514334, 0.678296995242, 0.466224900598, 0.3265091542,
        2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984,
        1.2305666963, 0.868920337363, 0.61280991668, 0.436405793551,
        2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862,
        0.875748795257, 0.670882927016, 0.501731932449, 0.372504254596,
        1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575,
        0.605636379554, 0.48309405692, 0.380429446972, 0.295774038565,
        1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554,
        0.448996256676, 0.352889268808, 0.283006984131, 0.226951348204,
        0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692,
        0.352889268808, 0.27032073436, 0.215017739696, 0.17408067321,
        0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972,
        0.283006984131, 0.215017739696, 0.168869545842, 0.136153931001,
        0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565,
        0.226951348204, 0.17408067321, 0.136153931001, 0.109083846276,
    },
    { /* Cb */
        1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193,
        1.05017074788, 0.898018824055, 0.74725392039, 0.615105596242,
        2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285,
        1.33100189972, 1.17428548929, 0.996404342439, 0.830890433625,
        1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078,
        1.03145147362, 0.960060382087, 0.849823426169, 0.731221236837,
        1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629,
        0.801821139099, 0.751437590932, 0.685398513368, 0.608694761374,
        1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099,
        0.676555426187, 0.605503172737, 0.55002013668, 0.495804539034,
        0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932,
        0.605503172737, 0.514674450957, 0.454353482512, 0.407050308965,
        0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368,
        0.55002013668, 0.454353482512, 0.389234902883, 0.342353999733,
        0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374,
        0.495804539034, 0.407050308965, 0.342353999733, 0.295530605237,
    },
    { /* Cr */
        2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803,
        1.01397751469, 0.867069376285, 0.721500455585, 0.593906509971,
        2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857,
        1.28513006198, 1.13381474809, 0.962064122248, 0.802254508198,
        1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848,
        0.995903384143, 0.926972725286, 0.820534991409, 0.706020324706,
        1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426,
        0.77418706195, 0.725539939514, 0.661776842059, 0.587716619023,
        1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195,
        0.653238524286, 0.584635025748, 0.531064164893, 0.478717061273,
        0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514,
        0.584635025748, 0.496936637883, 0.438694579826, 0.393021669543,
        0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059,
        0.531064164893, 0.438694579826, 0.375820256136, 0.330555063063,
        0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023,
        0.478717061273, 0.393021669543, 0.330555063063, 0.285345396658,
    },
};

/** Masking weight of one coefficient: (csf * scale)^2 evaluated in double, kept as float. */
VMAF_DEVICE_FN_INLINE_HOST float psnr_hvs_mask_weight(float csf)
{
    const double scaled = (double)csf * PSNR_HVS_MASK_SCALE;
    return (float)(scaled * scaled);
}
#endif

/** Halve, rounding toward zero (add the sign bit before the arithmetic shift). */
VMAF_DEVICE_FN_INLINE_HOST int32_t psnr_hvs_half(int32_t v)
{
    return (v + (int32_t)((uint32_t)v >> 31)) >> 1;
}

/** v * num / 2^shift, rounded half up (integer lifting step of the Daala DCT). */
#define PSNR_HVS_LIFT(v, num, shift) \
    (((v) * (num) + (1 << ((shift) - 1))) >> (shift))

/**
 * Daala's 8-point integer forward DCT (lifting structure, orthonormal scaling).
 * in[k * in_stride] are the 8 inputs; out[k * out_stride] receives coefficient k, DC first.
 * Inputs must be small enough that no product overflows int32 (true for <= 12-bit
 * samples and their first-pass coefficients).
 */
VMAF_DEVICE_FN_INLINE_HOST void psnr_hvs_fdct8(int32_t *out, int out_stride, const int32_t *in,
                                               int in_stride)
{
    /* Each c_k ends up holding coefficient k; the start assignment is the bit-reversal-like
     * input permutation of the lifting network. */
    int32_t c0 = in[0 * in_stride], c4 = in[1 * in_stride], c2 = in[2 * in_stride];
    int32_t c6 = in[3 * in_stride], c7 = in[4 * in_stride], c3 = in[5 * in_stride];
    int32_t c5 = in[6 * in_stride], c1 = in[7 * in_stride];
    int32_t c1_half, c4_half, c6_half;

    /* Stage 1: sum/difference butterflies, differences kept at half scale. */
    c1 = c0 - c1;
    c1_half = psnr_hvs_half(c1);
    c0 -= c1_half;
    c4 += c5;
    c4_half = psnr_hvs_half(c4);
    c5 -= c4_half;
    c3 = c2 - c3;
    c2 -= psnr_hvs_half(c3);
    c6 += c7;
    c6_half = psnr_hvs_half(c6);
    c7 = c6_half - c7;

    /* Even half: a 4-point DCT built from a 2-point DCT and a 2-point DST-IV. */
    c0 += c6_half;
    c6 = c0 - c6;
    c2 = c4_half - c2;
    c4 = c2 - c4;
    c0 -= PSNR_HVS_LIFT(c4, 13573, 15);
    c4 += PSNR_HVS_LIFT(c0, 11585, 14);
    c0 -= PSNR_HVS_LIFT(c4, 13573, 15);
    c6 -= PSNR_HVS_LIFT(c2, 21895, 15);
    c2 += PSNR_HVS_LIFT(c6, 15137, 14);
    c6 -= PSNR_HVS_LIFT(c2, 21895, 15);

    /* Odd half: a 4-point DST-IV. */
    c3 += PSNR_HVS_LIFT(c5, 19195, 15);
    c5 += PSNR_HVS_LIFT(c3, 11585, 14);
    c3 -= PSNR_HVS_LIFT(c5, 7489, 13);
    c7 = psnr_hvs_half(c5) - c7;
    c5 -= c7;
    c3 = c1_half - c3;
    c1 -= c3;
    c7 += PSNR_HVS_LIFT(c1, 3227, 15);
    c1 -= PSNR_HVS_LIFT(c7, 6393, 15);
    c7 += PSNR_HVS_LIFT(c1, 3227, 15);
    c5 += PSNR_HVS_LIFT(c3, 2485, 13);
    c3 -= PSNR_HVS_LIFT(c5, 18205, 15);
    c5 += PSNR_HVS_LIFT(c3, 2485, 13);

    out[0 * out_stride] = c0;
    out[1 * out_stride] = c1;
    out[2 * out_stride] = c2;
    out[3 * out_stride] = c3;
    out[4 * out_stride] = c4;
    out[5 * out_stride] = c5;
    out[6 * out_stride] = c6;
    out[7 * out_stride] = c7;
}

#if VMAF_DIALECT_C
#include "feature_extractor.h"


/** A plane's error from its serial sum of terms: over the term count, over the peak^2. */
float vmaf_psnr_hvs_normalize(float sum, int w, int h, unsigned bpc);

/** Write psnr_hvs_y/cb/cr and psnr_hvs from the three plane errors. */
int vmaf_psnr_hvs_store(const double err[3], unsigned index, VmafFeatureSink *sink);
#endif

#endif /* VMAF_FEATURE_PSNR_HVS_H */
