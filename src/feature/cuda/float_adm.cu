// float_adm twin. Per scale: the DWT level (one thread per band sample, its 4 x 4 window);
// decouple + CSF over the outer region (RCPSS emulated from the CPU's table); the terms of
// the masked sums (DLM, AIM) at the visited samples and of the denominator over the inner
// region; then one thread per (sum, band, visited row) adding the row's terms in float in
// the CPU's visiting order. The terms are raised to adm_p_norm as the CPU does (x * x * x
// for 3, else vmaf_xpowf: glibc's powf bits). The rows are added on the host, in the CPU's
// order, and the band values (powf of the sums) are the CPU's own (float_adm_tools.c).
#include <stdint.h>

#include "feature/twins/kernel_args.h"
#include "feature/float_adm.h"
#include "feature/cuda/float_src.cuh"

__device__ float *plane(const FloatAdmCudaArgs &a, int k)
{
    return (float *)a.planes + (size_t)k * a.plane_floats;
}

// grid: (columns / threads, rows, picture)
template <class Src>
__device__ void adm_dwt(const FloatAdmCudaArgs &a)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y, pic = blockIdx.z;
    if (j >= (int)a.w) return;
    const int w = (int)a.src_w, h = (int)a.src_h;
    float win[4][4];
    for (int k = 0; k < 4; k++) {
        const int y = vmaf_float_adm_dwt_index(2 * i - 1 + k, h);
        for (int u = 0; u < 4; u++)
            win[k][u] = Src::at(a, pic, y, vmaf_float_adm_dwt_index(2 * j - 1 + u, w));
    }
    float out[4];
    vmaf_float_adm_dwt_at(win, (int)a.lo_only, out);
    const size_t at = (size_t)i * a.w + j;
    plane(a, FLOAT_ADM_P_A + 2 * a.a_out + pic)[at] = out[0];
    if (a.lo_only) return;
    const int bands = pic ? FLOAT_ADM_P_DIS : FLOAT_ADM_P_REF;
    plane(a, bands + 0)[at] = out[2]; // H = L * hi
    plane(a, bands + 1)[at] = out[1]; // V = H * lo
    plane(a, bands + 2)[at] = out[3];
}

extern "C" __global__ void __launch_bounds__(FLOAT_ADM_CUDA_THREADS)
    vmaf_float_adm_dwt_8(FloatAdmCudaArgs a) { adm_dwt<SampleSrc<uint8_t>>(a); }
extern "C" __global__ void __launch_bounds__(FLOAT_ADM_CUDA_THREADS)
    vmaf_float_adm_dwt_16(FloatAdmCudaArgs a) { adm_dwt<SampleSrc<uint16_t>>(a); }
extern "C" __global__ void __launch_bounds__(FLOAT_ADM_CUDA_THREADS)
    vmaf_float_adm_dwt_f(FloatAdmCudaArgs a) { adm_dwt<FloatSrc>(a); }

// grid: (outer columns / threads, outer rows)
extern "C" __global__ void __launch_bounds__(FLOAT_ADM_CUDA_THREADS)
    vmaf_float_adm_decouple(FloatAdmCudaArgs a)
{
    const int j = a.outer[0] + (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = a.outer[1] + (int)blockIdx.y;
    if (j >= a.outer[2]) return;
    const size_t x = (size_t)i * a.w + j;
    const uint32_t *rcp = (const uint32_t *)a.rcp;
    float o[3], t[3];
    for (int b = 0; b < 3; b++) {
        o[b] = plane(a, FLOAT_ADM_P_REF + b)[x];
        t[b] = plane(a, FLOAT_ADM_P_DIS + b)[x];
    }
    const bool angle = vmaf_float_adm_angle_flag(o[0], o[1], t[0], t[1], a.cos_1deg_sq);
    for (int b = 0; b < 3; b++) {
        const float r = vmaf_float_adm_restore(rcp, o[b], t[b], angle, a.gain_limit);
        const float add = t[b] - r;
        const float cr = a.rfactor[b] * r, ca = a.rfactor[b] * add;
        plane(a, FLOAT_ADM_P_CSF_R + b)[x] = cr;
        plane(a, FLOAT_ADM_P_CSF_A + b)[x] = ca;
        plane(a, FLOAT_ADM_P_MASK_R + b)[x] = vmaf_float_adm_mask_value(cr);
        plane(a, FLOAT_ADM_P_MASK_A + b)[x] = vmaf_float_adm_mask_value(ca);
    }
}

// grid: (visited columns / threads, visited rows): DLM and AIM terms; and the denominator's
// over the inner region at the same (row, column) offsets where they fall inside it
extern "C" __global__ void __launch_bounds__(FLOAT_ADM_CUDA_THREADS)
    vmaf_float_adm_terms(FloatAdmCudaArgs a)
{
    const int w = (int)a.w, h = (int)a.h;
    const VmafFloatAdmVisit vr = vmaf_float_adm_visit(a.inner[1], a.inner[3], h);
    const VmafFloatAdmVisit vc = vmaf_float_adm_visit(a.inner[0], a.inner[2], w);
    const int nc = vmaf_float_adm_visit_count(vc);
    const int kc = (int)(blockIdx.x * blockDim.x + threadIdx.x), kr = (int)blockIdx.y;
    float *terms = (float *)a.terms;
    const size_t n = a.term_floats;
    if (kc < nc && kr < vmaf_float_adm_visit_count(vr)) {
        const int i = vmaf_float_adm_visit_at(vr, kr), j = vmaf_float_adm_visit_at(vc, kc);
        for (int q = 0; q < 2; q++) { // DLM: r against the masks of a; AIM: the other way
            const int scored = q ? FLOAT_ADM_P_CSF_A : FLOAT_ADM_P_CSF_R;
            const int other = q ? FLOAT_ADM_P_CSF_R : FLOAT_ADM_P_CSF_A;
            const int mask = q ? FLOAT_ADM_P_MASK_R : FLOAT_ADM_P_MASK_A;
            const float *const om[3] = { plane(a, mask), plane(a, mask + 1), plane(a, mask + 2) };
            const float *const oc[3] = { plane(a, other), plane(a, other + 1), plane(a, other + 2) };
            const float thr = a.bypass ? 0.0f : vmaf_float_adm_threshold(om, oc, w, w, h, i, j);
            for (int b = 0; b < 3; b++)
                terms[((size_t)q * 3 + b) * n + (size_t)kr * nc + kc] =
                    vmaf_float_adm_term(plane(a, scored + b)[(size_t)i * w + j], thr, a.cube,
                                        a.p_norm);
        }
    }
    const int dw = a.inner[2] - a.inner[0], dh = a.inner[3] - a.inner[1];
    if (kc < dw && kr < dh) {
        const size_t x = (size_t)(a.inner[1] + kr) * w + a.inner[0] + kc;
        for (int b = 0; b < 3; b++)
            terms[((size_t)2 * 3 + b) * n + (size_t)kr * dw + kc] =
                vmaf_float_adm_term(a.rfactor[b] * plane(a, FLOAT_ADM_P_REF + b)[x], 0.0f, a.cube,
                                    a.p_norm);
    }
}

// one thread per (sum, band, row): the row's float sum left to right
extern "C" __global__ void __launch_bounds__(FLOAT_ADM_CUDA_THREADS)
    vmaf_float_adm_rows(FloatAdmCudaArgs a)
{
    const int kr = (int)(blockIdx.x * blockDim.x + threadIdx.x), q = blockIdx.y, b = blockIdx.z;
    const VmafFloatAdmVisit vr = vmaf_float_adm_visit(a.inner[1], a.inner[3], (int)a.h);
    const VmafFloatAdmVisit vc = vmaf_float_adm_visit(a.inner[0], a.inner[2], (int)a.w);
    const int nr = q < 2 ? vmaf_float_adm_visit_count(vr) : a.inner[3] - a.inner[1];
    const int nc = q < 2 ? vmaf_float_adm_visit_count(vc) : a.inner[2] - a.inner[0];
    if (kr >= nr) return;
    const float *t = (const float *)a.terms + ((size_t)q * 3 + b) * a.term_floats + (size_t)kr * nc;
    float acc = 0.0f;
    for (int k = 0; k < nc; k++) acc += t[k];
    ((float *)a.rows)[((size_t)q * 3 + b) * a.row_cap + kr] = acc;
}
