/*
 * adm twin: the body of every kernel for one thread (or one band row), valid C11 and CUDA.
 * The .cu kernels map threads onto these; tests/twins/test_adm_twin.c runs them on the host over
 * the same thread grid (src/feature/adm_plan.c makes the launches for both).
 */
#ifndef VMAF_FEATURE_CUDA_ADM_KERNELS_H
#define VMAF_FEATURE_CUDA_ADM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "feature/adm_device.h"
#include "feature/twins/kernel_args.h"

#define ADM_I16(p) ((int16_t *)(uintptr_t)(p))
#define ADM_I32(p) ((int32_t *)(uintptr_t)(p))

/** Scale-0 DWT, picture `pic` (0 ref, 1 dis), output (i, j). */
VMAF_DEVICE_FN void vmaf_adm_k_dwt0(const AdmDwt0CudaArgs *a, int pic, int i, int j, int wide)
{
    const int half_w = (a->w + 1) / 2, half_h = (a->h_pic + 1) / 2;
    if (i >= half_h || j >= half_w)
        return;
    int32_t va;
    int16_t vv = 0, vh = 0, vd = 0;
    vmaf_adm_dwt0_output((const unsigned char *)(uintptr_t)a->pic[pic],
                         (ptrdiff_t)a->pic_stride[pic], wide, a->bpc, a->w, a->h_pic, i, j,
                         a->lo_only, &va, &vv, &vh, &vd);
    const size_t off = (size_t)i * a->stride + (size_t)j;
    ADM_I32(a->a[pic])[off] = va;
    if (a->lo_only)
        return;
    ADM_I16(a->v[pic])[off] = vv;
    ADM_I16(a->h[pic])[off] = vh;
    ADM_I16(a->d[pic])[off] = vd;
}

/*
 * The kernel's faster path for columns that are neither the first nor the last (and not
 * lo_only, whose mirrored last column is the same rule): each lane computes the vertical
 * pass at its own two positions 2j, 2j+1 (`own`, 0 outside the picture), takes 2j-1 from the
 * lane before and 2j+2 from the lane after, and filters. The vertical pass at a position is
 * the same function wherever it is computed, so this equals vmaf_adm_k_dwt0().
 */
VMAF_DEVICE_FN void vmaf_adm_k_dwt0_own(const AdmDwt0CudaArgs *a, int pic, int i, int j, int wide,
                                        int16_t lo[2], int16_t hi[2])
{
    const int half_h = (a->h_pic + 1) / 2;
    for (int e = 0; e < 2; e++) {
        const int col = 2 * j + e;
        lo[e] = hi[e] = 0;
        if (i < half_h && col >= 0 && col < a->w)
            vmaf_adm_vpass0_at((const unsigned char *)(uintptr_t)a->pic[pic],
                               (ptrdiff_t)a->pic_stride[pic], wide, a->bpc, a->h_pic, i, col,
                               &lo[e], &hi[e]);
    }
}

/*
 * The kernel's mapping: lane `lane` of strip `strip` stands at output column
 * strip * ADM_DWT0_STRIP - 1 + lane and computes the vertical pass at its two positions
 * (vmaf_adm_k_dwt0_own's values, its picture rows kept from one output row to the next);
 * lanes 1..ADM_DWT0_STRIP write their column from their own values and the neighbours'.
 */
VMAF_DEVICE_FN int vmaf_adm_k_dwt0_lane_col(int strip, int lane)
{
    return strip * ADM_DWT0_STRIP - 1 + lane;
}

VMAF_DEVICE_FN int vmaf_adm_k_dwt0_lane_writes(int lane)
{
    return lane >= 1 && lane <= ADM_DWT0_STRIP;
}

/** Output (i, j) given the lo/hi values at 2j-1 (prev), 2j, 2j+1 (own), 2j+2 (next). */
VMAF_DEVICE_FN void vmaf_adm_k_dwt0_finish(const AdmDwt0CudaArgs *a, int pic, int i, int j,
                                           int wide, const int16_t prev[2], const int16_t own_lo[2],
                                           const int16_t own_hi[2], const int16_t next[2])
{
    const int half_w = (a->w + 1) / 2, half_h = (a->h_pic + 1) / 2;
    if (i >= half_h || j >= half_w)
        return;
    if (!vmaf_adm_dwt0_plain_col(j, a->w)) {
        vmaf_adm_k_dwt0(a, pic, i, j, wide);
        return;
    }
    const int16_t lo[4] = { prev[0], own_lo[0], own_lo[1], next[0] };
    const int16_t hi[4] = { prev[1], own_hi[0], own_hi[1], next[1] };
    int32_t va;
    int16_t vv, vh, vd;
    vmaf_adm_dwt0_plain(lo, hi, &va, &vv, &vh, &vd);
    const size_t off = (size_t)i * a->stride + (size_t)j;
    ADM_I32(a->a[pic])[off] = va;
    if (a->lo_only)
        return;
    ADM_I16(a->v[pic])[off] = vv;
    ADM_I16(a->h[pic])[off] = vh;
    ADM_I16(a->d[pic])[off] = vd;
}

/** Scales 1..3 DWT of both pictures: the outputs (i, j), any column. */
VMAF_DEVICE_FN void vmaf_adm_k_dwt123_out(const AdmDwt123CudaArgs *a, int i, int j)
{
    const int32_t *ref = ADM_I32(a->ref), *dis = ADM_I32(a->dis);
    const ptrdiff_t stride = (ptrdiff_t)a->stride;
    const int32_t *const last[3] = { 0, ADM_I32(a->last[1]), ADM_I32(a->last[2]) };
    int32_t out[8];
    vmaf_adm_dwt123_output(ref, dis, stride, a->w, a->h, i, j, (unsigned)a->scale, last,
                           a->w_in, out);
    const size_t off = (size_t)i * a->stride + (size_t)j;
    for (int n = 0; n < 8; n++)
        ADM_I32(a->out[n])[off] = out[n];
}

/** The vertical pass of both pictures at column col of row i (4 lines; 0 outside). */
VMAF_DEVICE_FN void vmaf_adm_k_dwt123_at(const AdmDwt123CudaArgs *a, int i, int col, int32_t v4[4])
{
    const int half_h = (a->h + 1) / 2;
    v4[0] = v4[1] = v4[2] = v4[3] = 0;
    if (i < half_h && col >= 0 && col < a->w)
        vmaf_adm_vpass123(ADM_I32(a->ref), ADM_I32(a->dis), (ptrdiff_t)a->stride, a->h, i, col,
                          (unsigned)a->scale, v4);
}

/*
 * Output (i, j) given the vertical pass at 2j-1 (prev), 2j, 2j+1 (own) and 2j+2 (next),
 * which the kernel shares between the lanes of a warp as for scale 0; columns other than
 * the first and last filter them directly. The last row also keeps its vertical pass
 * (positions 2j, 2j+1) for the next scales' row-buffer reads.
 */
VMAF_DEVICE_FN void vmaf_adm_k_dwt123_finish(const AdmDwt123CudaArgs *a, int i, int j,
                                             const int32_t prev[4], const int32_t own0[4],
                                             const int32_t own1[4], const int32_t next[4])
{
    const int half_w = (a->w + 1) / 2, half_h = (a->h + 1) / 2;
    if (i >= half_h || j >= half_w)
        return;
    if (j >= 1 && j < half_w - 1) {
        int32_t rv, rh;
        int sv, sh;
        vmaf_adm_dwt123_rounding((unsigned)a->scale, &rv, &sv, &rh, &sh);
        const size_t off = (size_t)i * a->stride + (size_t)j;
        for (int n = 0; n < 2; n++) {
            const int l = 2 * n, g = 2 * n + 1;
            ADM_I32(a->out[4 * n + 0])[off] = vmaf_adm_taps32(0, prev[l], own0[l], own1[l], next[l], rh, sh);
            ADM_I32(a->out[4 * n + 1])[off] = vmaf_adm_taps32(1, prev[l], own0[l], own1[l], next[l], rh, sh);
            ADM_I32(a->out[4 * n + 2])[off] = vmaf_adm_taps32(0, prev[g], own0[g], own1[g], next[g], rh, sh);
            ADM_I32(a->out[4 * n + 3])[off] = vmaf_adm_taps32(1, prev[g], own0[g], own1[g], next[g], rh, sh);
        }
    } else {
        vmaf_adm_k_dwt123_out(a, i, j);
    }
    if (a->last_out && i == half_h - 1) {
        int32_t *lo = ADM_I32(a->last_out);
        for (int l = 0; l < 4; l++) {
            lo[l * a->w + 2 * j] = own0[l];
            if (2 * j + 1 < a->w)
                lo[l * a->w + 2 * j + 1] = own1[l];
        }
    }
}

VMAF_DEVICE_FN void vmaf_adm_k_copy(const AdmCopyCudaArgs *a, int i, int j)
{
    if (i >= a->h || j >= a->w)
        return;
    const size_t off = (size_t)i * a->stride + (size_t)j;
    for (int n = 0; n < a->n; n++)
        ADM_I32(a->dst[n])[off] = ADM_I32(a->src[n])[off];
}

/** Decouple of pixel (top + i, left + j) of the outer region. */
VMAF_DEVICE_FN void vmaf_adm_k_decouple0(const AdmDecoupleCudaArgs *a, int i, int j)
{
    const int y = a->top + i, x = a->left + j;
    if (y >= a->bottom || x >= a->right)
        return;
    const int16_t *const ref[3] = { ADM_I16(a->ref[0]), ADM_I16(a->ref[1]), ADM_I16(a->ref[2]) };
    const int16_t *const dis[3] = { ADM_I16(a->dis[0]), ADM_I16(a->dis[1]), ADM_I16(a->dis[2]) };
    const size_t off = (size_t)y * a->stride + (size_t)x;
    int16_t r[3], d[3];
    const int vector = vmaf_adm_vector_col(x, a->left, a->right, 16);
    vmaf_adm_decouple0_pixel(ref, dis, off, vector, a->gain, a->cos2, r, d);
    for (int t = 0; t < 3; t++) {
        ADM_I16(a->r[t])[off] = r[t];
        ADM_I16(a->a[t])[off] = d[t];
    }
    if (!a->csf)
        return;
    /* after this element's reads of ref and dis: csf and mask may take their memory */
    for (int t = 0; t < 3; t++) {
        int16_t dst, mask;
        vmaf_adm_csf0(d[t], t, (uint16_t)a->weight[t], vector, &dst, &mask);
        ADM_I16(a->csf_dst[t])[off] = dst;
        ADM_I16(a->csf_mask[t])[off] = mask;
    }
}

VMAF_DEVICE_FN void vmaf_adm_k_decouple123(const AdmDecoupleCudaArgs *a, int i, int j)
{
    const int y = a->top + i, x = a->left + j;
    if (y >= a->bottom || x >= a->right)
        return;
    const int32_t *const ref[3] = { ADM_I32(a->ref[0]), ADM_I32(a->ref[1]), ADM_I32(a->ref[2]) };
    const int32_t *const dis[3] = { ADM_I32(a->dis[0]), ADM_I32(a->dis[1]), ADM_I32(a->dis[2]) };
    const size_t off = (size_t)y * a->stride + (size_t)x;
    int32_t r[3], d[3];
    const int vector = vmaf_adm_vector_col(x, a->left, a->right, 16);
    vmaf_adm_decouple123_pixel(ref, dis, off, vector, a->gain, a->cos2, r, d);
    for (int t = 0; t < 3; t++) {
        ADM_I32(a->r[t])[off] = r[t];
        ADM_I32(a->a[t])[off] = d[t];
    }
    if (!a->csf)
        return;
    for (int t = 0; t < 3; t++) {
        int32_t dst, mask;
        vmaf_adm_csf123(d[t], a->weight[t], vector, &dst, &mask);
        ADM_I32(a->csf_dst[t])[off] = dst;
        ADM_I32(a->csf_mask[t])[off] = mask;
    }
}

/** CSF of orientation t at (top + i, left + j). */
VMAF_DEVICE_FN void vmaf_adm_k_csf0(const AdmCsfCudaArgs *a, int t, int i, int j)
{
    const int y = a->top + i, x = a->left + j;
    if (y >= a->bottom || x >= a->right)
        return;
    const size_t off = (size_t)y * a->stride + (size_t)x;
    int16_t dst, mask;
    vmaf_adm_csf0(ADM_I16(a->src[t])[off], t, (uint16_t)a->weight[t],
                  vmaf_adm_vector_col(x, a->left, a->right, 16), &dst, &mask);
    ADM_I16(a->dst[t])[off] = dst;
    ADM_I16(a->mask[t])[off] = mask;
}

VMAF_DEVICE_FN void vmaf_adm_k_csf123(const AdmCsfCudaArgs *a, int t, int i, int j)
{
    const int y = a->top + i, x = a->left + j;
    if (y >= a->bottom || x >= a->right)
        return;
    const size_t off = (size_t)y * a->stride + (size_t)x;
    int32_t dst, mask;
    vmaf_adm_csf123(ADM_I32(a->src[t])[off], a->weight[t],
                    vmaf_adm_vector_col(x, a->left, a->right, 16), &dst, &mask);
    ADM_I32(a->dst[t])[off] = dst;
    ADM_I32(a->mask[t])[off] = mask;
}

VMAF_DEVICE_FN VmafAdmCmParams vmaf_adm_k_cm_params(const AdmCmCudaArgs *a)
{
    VmafAdmCmParams p;
    for (int t = 0; t < 3; t++) {
        p.cub_shift[t] = a->cub_shift[t];
        p.cub_round[t] = a->cub_round[t];
    }
    p.row_shift = a->row_shift;
    p.row_round = a->row_round;
    return p;
}

/** Row slots (grid size) and positions per slot of a masked sum. */
VMAF_DEVICE_FN int vmaf_adm_k_cm_slots(int w, int h)
{
    const VmafAdmCmRows c = vmaf_adm_cm_rows(w, h);
    return vmaf_adm_cm_slots(&c);
}

/** Terms of position q of row slot `slot` added to acc (scale0: the int16 bands); c is
 *  vmaf_adm_cm_rows(a->w, a->h) and p vmaf_adm_k_cm_params(a), computed once per block. */
VMAF_DEVICE_FN void vmaf_adm_k_cm_pos(const AdmCmCudaArgs *a, const VmafAdmCmRows *rows,
                                      const VmafAdmCmParams *prm, int scale0, int slot, int q,
                                      uint64_t acc[3])
{
    const VmafAdmCmRows c = *rows;
    int up, mid, down, middle;
    if (!vmaf_adm_cm_slot_rows(&c, a->h, slot, &up, &mid, &down, &middle))
        return;
    if (q >= vmaf_adm_cm_positions(&c))
        return;
    int jl, jr, edge;
    const int jc = vmaf_adm_cm_position(&c, a->w, q, &jl, &jr, &edge);
    const int vector = vmaf_adm_cm_vector(&c, middle, edge, jc, scale0);
    const VmafAdmCmParams p = *prm;
    const ptrdiff_t s = (ptrdiff_t)a->stride;
    if (scale0) {
        const int16_t *const src[3] = { ADM_I16(a->src[0]), ADM_I16(a->src[1]), ADM_I16(a->src[2]) };
        const int16_t *const csf[3] = { ADM_I16(a->csf[0]), ADM_I16(a->csf[1]), ADM_I16(a->csf[2]) };
        const int16_t *const msk[3] = { ADM_I16(a->mask[0]), ADM_I16(a->mask[1]), ADM_I16(a->mask[2]) };
        vmaf_adm_cm0_position(src, csf, msk, up * s, mid * s, down * s, jl, jc, jr, vector,
                              a->weight, &p, acc);
    } else {
        const int32_t *const src[3] = { ADM_I32(a->src[0]), ADM_I32(a->src[1]), ADM_I32(a->src[2]) };
        const int32_t *const csf[3] = { ADM_I32(a->csf[0]), ADM_I32(a->csf[1]), ADM_I32(a->csf[2]) };
        const int32_t *const msk[3] = { ADM_I32(a->mask[0]), ADM_I32(a->mask[1]), ADM_I32(a->mask[2]) };
        vmaf_adm_cm123_position(src, csf, msk, up * s, mid * s, down * s, jl, jc, jr, vector,
                                a->weight, &p, acc);
    }
}

/** A slot's row total per orientation from its summed terms (spare lanes included). */
VMAF_DEVICE_FN void vmaf_adm_k_cm_row(const AdmCmCudaArgs *a, int scale0, int slot,
                                      const uint64_t acc[3], uint64_t out[3])
{
    const VmafAdmCmRows c = vmaf_adm_cm_rows(a->w, a->h);
    int up, mid, down, middle;
    const int visited = vmaf_adm_cm_slot_rows(&c, a->h, slot, &up, &mid, &down, &middle);
    for (int t = 0; t < 3; t++) {
        uint64_t v = acc[t];
        if (visited)
            v += vmaf_adm_cm_spare(&c, middle, scale0, a->cub_round[t], a->cub_shift[t]);
        out[t] = vmaf_adm_cm_row_total(v, a->row_round, a->row_shift);
    }
}

/** Denominator term of orientation t at (top + i, left + j). */
VMAF_DEVICE_FN uint64_t vmaf_adm_k_den_term(const AdmDenCudaArgs *a, int scale0, int t, int i,
                                            int j)
{
    const int y = a->top + i, x = a->left + j;
    if (y >= a->bottom || x >= a->right)
        return 0;
    const size_t off = (size_t)y * a->stride + (size_t)x;
    if (scale0)
        return vmaf_adm_den0_term(ADM_I16(a->band[t])[off]);
    return vmaf_adm_den123_term(ADM_I32(a->band[t])[off], a->sq_shift, a->sq_round,
                                a->cub_round, a->cub_shift);
}

VMAF_DEVICE_FN uint64_t vmaf_adm_k_den_row(const AdmDenCudaArgs *a, int scale0, uint64_t row)
{
    if (scale0)
        return (row + a->row_round) >> a->row_shift;
    return (row + a->row_round) >> (a->row_shift & 63);
}

#endif /* VMAF_FEATURE_CUDA_ADM_KERNELS_H */
