#pragma OPENCL FP_CONTRACT OFF
#define VMAF_OPENCL_FP64_FREE 1
// float_adm twin, OpenCL C (feature/cuda/float_adm.cu, the same kernels and arguments). Per
// scale: the DWT level (one work-item per band sample, its 4 x 4 window); decouple + CSF over
// the outer region (RCPSS emulated from the CPU's table); the terms of the masked sums (DLM,
// AIM) at the visited samples and of the denominator over the inner region; then one
// work-item per (sum, band, visited row) adding the row's terms in float in the CPU's
// visiting order. The rows are added on the host, in the CPU's order.
#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/float_adm.h"
#include "feature/opencl/float_src.clh"

static inline __global float *plane(VMAF_ARENA_PARAM const FloatAdmCudaArgs *a, int k)
{
    return VMAF_PTR(float, a->planes) + (vmaf_u64)k * a->plane_floats;
}

// grid: (columns / threads, rows, picture); kind: float_src.clh's
static inline void adm_dwt(VMAF_ARENA_PARAM const FloatAdmCudaArgs *a, int kind)
{
    const int j = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0), i = vmaf_bid(1), pic = vmaf_bid(2);
    if (j >= (int)a->w) return;
    const int w = (int)a->src_w, h = (int)a->src_h;
    float win[4][4];
    for (int k = 0; k < 4; k++) {
        const int y = vmaf_float_adm_dwt_index(2 * i - 1 + k, h);
        for (int u = 0; u < 4; u++)
            win[k][u] = VMAF_FLOAT_SRC_AT(kind, *a, pic, y,
                                          vmaf_float_adm_dwt_index(2 * j - 1 + u, w));
    }
    float out[4];
    vmaf_float_adm_dwt_at((const __private float(*)[4])win, (int)a->lo_only, out);
    const vmaf_u64 at = (vmaf_u64)i * a->w + j;
    plane(VMAF_ARENA_ARG a, FLOAT_ADM_P_A + 2 * a->a_out + pic)[at] = out[0];
    if (a->lo_only) return;
    const int bands = pic ? FLOAT_ADM_P_DIS : FLOAT_ADM_P_REF;
    plane(VMAF_ARENA_ARG a, bands + 0)[at] = out[2]; // H = L * hi
    plane(VMAF_ARENA_ARG a, bands + 1)[at] = out[1]; // V = H * lo
    plane(VMAF_ARENA_ARG a, bands + 2)[at] = out[3];
}

VMAF_KERNEL(vmaf_float_adm_dwt_8, FloatAdmCudaArgs) { adm_dwt(VMAF_ARENA_ARG &a, FLOAT_SRC_U8); }
VMAF_KERNEL(vmaf_float_adm_dwt_16, FloatAdmCudaArgs) { adm_dwt(VMAF_ARENA_ARG &a, FLOAT_SRC_U16); }
VMAF_KERNEL(vmaf_float_adm_dwt_f, FloatAdmCudaArgs) { adm_dwt(VMAF_ARENA_ARG &a, FLOAT_SRC_FLOAT); }

// grid: (outer columns / threads, outer rows)
VMAF_KERNEL(vmaf_float_adm_decouple, FloatAdmCudaArgs)
{
    const int j = a.outer[0] + (int)(vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0));
    const int i = a.outer[1] + (int)vmaf_bid(1);
    if (j >= a.outer[2]) return;
    const vmaf_u64 x = (vmaf_u64)i * a.w + j;
    __global const uint32_t *rcp = VMAF_PTR(const uint32_t, a.rcp);
    float o[3], t[3];
    for (int b = 0; b < 3; b++) {
        o[b] = plane(VMAF_ARENA_ARG &a, FLOAT_ADM_P_REF + b)[x];
        t[b] = plane(VMAF_ARENA_ARG &a, FLOAT_ADM_P_DIS + b)[x];
    }
    const bool angle = vmaf_float_adm_angle_flag(o[0], o[1], t[0], t[1], a.cos_1deg_sq);
    for (int b = 0; b < 3; b++) {
        const float r = vmaf_float_adm_restore(rcp, o[b], t[b], angle, a.gain_limit);
        const float add = t[b] - r;
        const float cr = a.rfactor[b] * r, ca = a.rfactor[b] * add;
        plane(VMAF_ARENA_ARG &a, FLOAT_ADM_P_CSF_R + b)[x] = cr;
        plane(VMAF_ARENA_ARG &a, FLOAT_ADM_P_CSF_A + b)[x] = ca;
        plane(VMAF_ARENA_ARG &a, FLOAT_ADM_P_MASK_R + b)[x] = vmaf_float_adm_mask_value(cr);
        plane(VMAF_ARENA_ARG &a, FLOAT_ADM_P_MASK_A + b)[x] = vmaf_float_adm_mask_value(ca);
    }
}

// grid: (visited columns / threads, visited rows): DLM and AIM terms; and the denominator's
// over the inner region at the same (row, column) offsets where they fall inside it
VMAF_KERNEL(vmaf_float_adm_terms, FloatAdmCudaArgs)
{
    const int w = (int)a.w, h = (int)a.h;
    const VmafFloatAdmVisit vr = vmaf_float_adm_visit(a.inner[1], a.inner[3], h);
    const VmafFloatAdmVisit vc = vmaf_float_adm_visit(a.inner[0], a.inner[2], w);
    const int nc = vmaf_float_adm_visit_count(vc);
    const int kc = (int)(vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0)), kr = (int)vmaf_bid(1);
    __global float *terms = VMAF_PTR(float, a.terms);
    const vmaf_u64 n = a.term_floats;
    if (kc < nc && kr < vmaf_float_adm_visit_count(vr)) {
        const int i = vmaf_float_adm_visit_at(vr, kr), j = vmaf_float_adm_visit_at(vc, kc);
        for (int q = 0; q < 2; q++) { // DLM: r against the masks of a; AIM: the other way
            const int scored = q ? FLOAT_ADM_P_CSF_A : FLOAT_ADM_P_CSF_R;
            const int other = q ? FLOAT_ADM_P_CSF_R : FLOAT_ADM_P_CSF_A;
            const int mask = q ? FLOAT_ADM_P_MASK_R : FLOAT_ADM_P_MASK_A;
            __global const float *const om[3] = { plane(VMAF_ARENA_ARG &a, mask),
                                                  plane(VMAF_ARENA_ARG &a, mask + 1),
                                                  plane(VMAF_ARENA_ARG &a, mask + 2) };
            __global const float *const oc[3] = { plane(VMAF_ARENA_ARG &a, other),
                                                  plane(VMAF_ARENA_ARG &a, other + 1),
                                                  plane(VMAF_ARENA_ARG &a, other + 2) };
            const float thr = a.bypass ? 0.0f : vmaf_float_adm_threshold(om, oc, w, w, h, i, j);
            for (int b = 0; b < 3; b++)
                terms[((vmaf_u64)q * 3 + b) * n + (vmaf_u64)kr * nc + kc] = vmaf_float_adm_term(
                    plane(VMAF_ARENA_ARG &a, scored + b)[(vmaf_u64)i * w + j], thr, a.cube,
                    a.p_norm);
        }
    }
    const int dw = a.inner[2] - a.inner[0], dh = a.inner[3] - a.inner[1];
    if (kc < dw && kr < dh) {
        const vmaf_u64 x = (vmaf_u64)(a.inner[1] + kr) * w + a.inner[0] + kc;
        for (int b = 0; b < 3; b++)
            terms[((vmaf_u64)2 * 3 + b) * n + (vmaf_u64)kr * dw + kc] = vmaf_float_adm_term(
                a.rfactor[b] * plane(VMAF_ARENA_ARG &a, FLOAT_ADM_P_REF + b)[x], 0.0f, a.cube,
                a.p_norm);
    }
}

// one work-item per (sum, band, row): the row's float sum left to right
VMAF_KERNEL(vmaf_float_adm_rows, FloatAdmCudaArgs)
{
    const int kr = (int)(vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0)), q = vmaf_bid(1);
    const int b = vmaf_bid(2);
    const VmafFloatAdmVisit vr = vmaf_float_adm_visit(a.inner[1], a.inner[3], (int)a.h);
    const VmafFloatAdmVisit vc = vmaf_float_adm_visit(a.inner[0], a.inner[2], (int)a.w);
    const int nr = q < 2 ? vmaf_float_adm_visit_count(vr) : a.inner[3] - a.inner[1];
    const int nc = q < 2 ? vmaf_float_adm_visit_count(vc) : a.inner[2] - a.inner[0];
    if (kr >= nr) return;
    __global const float *t = VMAF_PTR(const float, a.terms) +
                              ((vmaf_u64)q * 3 + b) * a.term_floats + (vmaf_u64)kr * nc;
    float acc = 0.0f;
    for (int k = 0; k < nc; k++) acc += t[k];
    VMAF_PTR(float, a.rows)[((vmaf_u64)q * 3 + b) * a.row_cap + kr] = acc;
}
