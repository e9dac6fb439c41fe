#pragma OPENCL FP_CONTRACT OFF
#define VMAF_OPENCL_FP64_FREE 1
// SpEED twins (speed_chroma, speed_temporal) in OpenCL C: the kernels of cuda/speed.cu, with
// the same names, arguments, launches and per-element functions (feature/speed_device.h), so
// the same bits. Only the thread mapping differs where OpenCL C 1.2 needs it:
//   - the filters are read from global memory (the values of the CUDA kernels' shared copies);
//   - the covariance's warp shuffles become a __local exchange and a barrier; lane 0 still
//     folds the 16 lanes and the tail in vmaf_speed_fold_lanes' order;
//   - decompose's eigen half keeps the CUDA warp's lane mapping (work-items 0..31 act, the
//     rest of the work-group only meets the barriers); the serial sweeps run on private copies
//     of the diagonals;
//   - a block's 25 samples sit in __local memory (the solve's functions read __local);
//   - decompose's QR half loops over the entries (one per CUDA thread), so its work-group may
//     be smaller than the CUDA block where the device takes fewer work-items per group.
//   - the doubles are f64.h's vmaf_double (the device's double, or the software binary64
//     where it is not used).

#include "feature/kernel.h"
#include "feature/twins/kernel_args.h"
#include "feature/speed_device.h"

#define SPEED_N VMAF_SPEED_DEV_N
#define SPEED_NN (VMAF_SPEED_DEV_N * VMAF_SPEED_DEV_N)

static VmafSpeedDevSource speed_image_source(VMAF_ARENA_PARAM const SpeedCudaArgs *a,
                                             unsigned img)
{
    VmafSpeedDevSource s;
    s.a = VMAF_PTR(const uchar, a->a[img]);
    s.b = a->b[img] ? VMAF_PTR(const uchar, a->b[img]) : (const __global uchar *)0;
    s.a_stride = (ptrdiff_t)a->a_stride[img];
    s.b_stride = (ptrdiff_t)a->b_stride[img];
    s.wide = (int)a->wide;
    s.scale = a->sample_scale;
    return s;
}

VMAF_KERNEL(vmaf_speed_image, SpeedCudaArgs)
{
    const unsigned img = vmaf_bid(2);
    const unsigned x = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0);
    if (x >= a.scaled_w) return;
    const unsigned y = (unsigned)VMAF_PTR(const int, a.rows)[vmaf_bid(1)];
    const VmafSpeedDevSource src = speed_image_source(VMAF_ARENA_ARG &a, img);
    float v;
    if (a.resample) {
        VmafSpeedDevScaler sc;
        sc.method = (int)a.method;
        sc.copy = (int)a.copy;
        sc.col_index = VMAF_PTR(const int, a.col_index);
        sc.row_index = VMAF_PTR(const int, a.row_index);
        sc.col_weight = VMAF_PTR(const float, a.col_weight);
        sc.row_weight = VMAF_PTR(const float, a.row_weight);
        v = vmaf_speed_dev_scale_point(&sc, &src, y, x);
    } else {
        // the part outside the plane is 0 (speed.h)
        v = (y < a.plane_h && x < a.plane_w) ? vmaf_speed_dev_sample(&src, y, x) : 0.0f;
    }
    VMAF_PTR(float, a.image)[img * a.image_elems + (size_t)y * a.scaled_w + x] = v;
}

VMAF_KERNEL(vmaf_speed_decimate, SpeedCudaArgs)
{
    const __global float *filter = VMAF_PTR(const float, a.filters);
    const unsigned img = vmaf_bid(2);
    const unsigned idx = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0);
    if (idx >= a.down_w * a.down_h) return;
    const unsigned oi = idx / a.down_w, oj = idx % a.down_w;
    float v;
    if (a.direct) {
        const VmafSpeedDevSource src = speed_image_source(VMAF_ARENA_ARG &a, img);
        v = vmaf_speed_dev_decimate_source(filter, a.aa_width, &src, a.plane_w, a.plane_h,
                                           VMAF_SPEED_DEV_DECIMATION, oi, oj);
    } else {
        const __global float *image = VMAF_PTR(const float, a.image) + img * a.image_elems;
        v = vmaf_speed_dev_filter_image(filter, a.aa_width, image, a.scaled_w, a.scaled_w,
                                        a.scaled_h, VMAF_SPEED_DEV_DECIMATION, oi, oj);
    }
    VMAF_PTR(float, a.down)[img * a.down_elems + idx] = v;
}

VMAF_KERNEL(vmaf_speed_local_mean, SpeedCudaArgs)
{
    const __global float *filter = VMAF_PTR(const float, a.filters) + SPEED_CUDA_MAX_FILTER;
    const unsigned img = vmaf_bid(2);
    const unsigned idx = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0);
    if (idx >= a.down_w * a.down_h) return;
    const unsigned i = idx / a.down_w, j = idx % a.down_w;
    const __global float *down = VMAF_PTR(const float, a.down) + img * a.down_elems;
    const float mean = vmaf_speed_dev_filter_image(filter, a.mean_width, down, a.down_w, a.down_w,
                                                   a.down_h, 1, i, j);
    VMAF_PTR(float, a.centred)[img * a.down_elems + idx] = down[idx] - mean;
}

VMAF_KERNEL(vmaf_speed_means, SpeedCudaArgs)
{
    const unsigned img = vmaf_bid(2);
    const int k = (int)vmaf_tid(0);
    if (k >= SPEED_N) return;
    const __global float *centred = VMAF_PTR(const float, a.centred) + img * a.down_elems;
    __global float *small = VMAF_PTR(float, a.small) + img * a.small_elems;
    small[SPEED_CUDA_SMALL_MEANS + k] =
        vmaf_speed_dev_window_mean(centred, a.down_w, a.sub_w, a.sub_h, k);
}

// One group of 32 work-items per (xi, yi), as the CUDA warp: lanes 0..15 and the tail (16)
// compute, lane 0 folds them after a barrier.
VMAF_KERNEL(vmaf_speed_covariance, SpeedCudaArgs)
{
    VMAF_LOCAL vmaf_double lane_values[SPEED_CUDA_THREADS];
    const unsigned img = vmaf_bid(2);
    const int t = (int)vmaf_tid(0);
    const int warp = t / 32, lane = t % 32;
    const int p = (int)vmaf_bid(0) * (SPEED_CUDA_THREADS / 32) + warp;
    const bool active = p < VMAF_SPEED_DEV_PAIRS;
    const __global float *centred = VMAF_PTR(const float, a.centred) + img * a.down_elems;
    __global float *small = VMAF_PTR(float, a.small) + img * a.small_elems;
    int xi = 0, yi = 0;
    vmaf_double v = VMAF_DCONST(0.0, 0x0);
    if (active) {
        vmaf_speed_dev_pair(p, &xi, &yi);
        const vmaf_double mean_x = vmaf_dfrom_float(small[SPEED_CUDA_SMALL_MEANS + xi]);
        const vmaf_double mean_y = vmaf_dfrom_float(small[SPEED_CUDA_SMALL_MEANS + yi]);
        if (lane <= VMAF_SPEED_DEV_LANES)
            v = vmaf_speed_dev_cov_lane(centred, a.down_w, a.sub_w, a.sub_h, xi, yi, mean_x,
                                        mean_y, lane);
    }
    lane_values[t] = v;
    VMAF_BARRIER();
    if (active && lane == 0) {
        vmaf_double lanes[VMAF_SPEED_DEV_LANES];
        for (int k = 0; k < VMAF_SPEED_DEV_LANES; k++)
            lanes[k] = lane_values[t + k];
        const vmaf_double tail = lane_values[t + VMAF_SPEED_DEV_LANES];
        // (float)(fold / (double)count), the count an integer below 2^32
        const vmaf_double count = vmaf_dfrom_u64((ulong)a.sub_w * a.sub_h);
        const float value = vmaf_dto_float(vmaf_ddiv(vmaf_speed_fold_lanes(lanes, tail), count));
        small[SPEED_CUDA_SMALL_COV + xi * SPEED_N + yi] = value;
        small[SPEED_CUDA_SMALL_COV + yi * SPEED_N + xi] = value;
    }
}

// The eigenvalues (in the group where mine): work-items 0..31 do what the CUDA warp's lanes
// do; every work-item of every group meets every barrier (none sits in a branch or after a
// continue).
static void speed_eigen(VMAF_ARENA_PARAM const SpeedCudaArgs *a, bool mine, __local float *m,
                        __local float *v, __local float *w, __local float *tau_shared)
{
    const unsigned img = vmaf_bid(2);
    const int lane = (int)vmaf_tid(0);
    const bool in_warp = mine && lane < 32, lead = mine && lane == 0;
    const __global float *cov =
        VMAF_PTR(const float, a->small) + img * a->small_elems + SPEED_CUDA_SMALL_COV;
    __global float *result = VMAF_PTR(float, a->result) + img * a->result_elems;
    if (in_warp)
        for (int i = lane; i < SPEED_NN; i += 32)
            m[i] = cov[i];
    VMAF_BARRIER();
    for (int i = 0; i + 2 < SPEED_N; i++) {
        const int s = i + 1;
        if (lead) *tau_shared = vmaf_speed_householder_column(m, SPEED_N, i, s);
        VMAF_BARRIER();
        const float tau = mine ? *tau_shared : 0.0f;
        const int r = s + lane;
        const bool row = in_warp && r < SPEED_N;
        if (row) v[r] = (r == s && tau != 0.0f) ? 1.0f : m[r * SPEED_N + i];
        VMAF_BARRIER();
        // tau 0: nothing to do (the CUDA warp's `continue`); every work-item still meets
        // every barrier of the iteration
        const bool step = tau != 0.0f;
        if (step && row) w[r] = vmaf_speed_tridiag_w(m, SPEED_N, s, tau, v, r);
        VMAF_BARRIER();
        float coef = 0.0f;
        if (step) coef = vmaf_speed_tridiag_coef(tau, vmaf_speed_tridiag_wv(w, v, SPEED_N, s));
        VMAF_BARRIER();
        if (step && row) w[r] += coef * v[r];
        VMAF_BARRIER();
        const int side = SPEED_N - s;
        if (step && in_warp)
            for (int e = lane; e < side * side; e += 32) {
                const int rr = s + e / side, cc = s + e % side;
                m[rr * SPEED_N + cc] =
                    vmaf_speed_tridiag_update(m[rr * SPEED_N + cc], w, v, rr, cc);
            }
        VMAF_BARRIER();
    }
    if (lead) {
        float diag[SPEED_N], sub[SPEED_N];
        for (int i = 0; i < SPEED_N; i++)
            diag[i] = m[i * SPEED_N + i];
        for (int i = 0; i + 1 < SPEED_N; i++)
            sub[i] = m[(i + 1) * SPEED_N + i];
        const int stalled =
            vmaf_speed_tridiagonal_eigenvalues(diag, sub, SPEED_N, VMAF_SPEED_DEV_MAX_SWEEPS);
        int irregular = 0;
        for (int i = 0; i < SPEED_N; i++) {
            result[SPEED_CUDA_RES_EIGEN + i] = diag[i];
            if (vmaf_speed_below_eps(diag[i])) irregular = 1;
        }
        result[SPEED_CUDA_RES_STALLED] = (float)stalled;
        result[SPEED_CUDA_RES_IRREGULAR] = (float)irregular;
    }
}

// The Householder QR (in the group where mine), every barrier met by every group. The CUDA
// form has one thread per entry (SPEED_NN of its SPEED_CUDA_QR_THREADS); here each work-item
// plays the entries tid, tid + T, ... (T: the work-group's size, which may be below SPEED_NN
// where the device takes fewer work-items per group), each entry's arithmetic unchanged and
// between the same barriers. The CUDA threads' private t1, t2 (read after a barrier) become
// next_reduced, next_p.
static void speed_qr(VMAF_ARENA_PARAM const SpeedCudaArgs *a, bool mine, __local float *am,
                     __local float *reduced, __local float *p, __local float *reflector,
                     __local float *v, __local float *next_reduced, __local float *next_p)
{
    const unsigned img = vmaf_bid(2);
    const int tid = (int)vmaf_tid(0), nt = (int)vmaf_bdim(0);
    const int first = mine ? tid : SPEED_NN; /* the other group only meets the barriers */
    __global float *small = VMAF_PTR(float, a->small) + img * a->small_elems;
    for (int e = first; e < SPEED_NN; e += nt) {
        am[e] = small[SPEED_CUDA_SMALL_COV + e];
        reduced[e] = am[e];
        p[e] = (e / SPEED_N == e % SPEED_N) ? 1.0f : 0.0f;
    }
    VMAF_BARRIER();
    for (int k = 0; k + 1 < SPEED_N; k++) {
        for (int e = first; e < SPEED_NN; e += nt)
            reduced[e] = vmaf_speed_dev_reduced_mask(reduced[e], e / SPEED_N, e % SPEED_N, k);
        VMAF_BARRIER();
        if (mine && tid == 0) vmaf_speed_dev_qr_vector(reduced, am, SPEED_N, k, v);
        VMAF_BARRIER();
        for (int e = first; e < SPEED_NN; e += nt)
            reflector[e] = vmaf_speed_dev_reflector_entry(v, e / SPEED_N, e % SPEED_N);
        VMAF_BARRIER();
        for (int e = first; e < SPEED_NN; e += nt) {
            const int i = e / SPEED_N, j = e % SPEED_N;
            next_reduced[e] =
                vmaf_speed_dev_matmul_entry(reflector, reduced, i, j, SPEED_N, SPEED_N);
            next_p[e] = vmaf_speed_dev_matmul_entry(reflector, p, i, j, SPEED_N, SPEED_N);
        }
        VMAF_BARRIER();
        for (int e = first; e < SPEED_NN; e += nt) {
            reduced[e] = next_reduced[e];
            p[e] = next_p[e];
        }
        VMAF_BARRIER();
    }
    for (int e = first; e < SPEED_NN; e += nt) {
        small[SPEED_CUDA_SMALL_P + e] = p[e];
        small[SPEED_CUDA_SMALL_R + e] =
            vmaf_speed_dev_matmul_entry(p, am, e / SPEED_N, e % SPEED_N, SPEED_N, SPEED_N);
    }
}

// The eigenvalues (group y 0) and the Householder QR (group y 1) depend only on the
// covariance: one launch runs both, group y 0 the first, 1 the second. Both run their
// barriers in every group (no barrier in a branch). The work-group: SPEED_CUDA_QR_THREADS
// work-items, or fewer (at least 32, the eigen half's warp) where the device takes fewer.
VMAF_KERNEL(vmaf_speed_decompose, SpeedCudaArgs)
{
    VMAF_LOCAL float m[SPEED_NN], v[SPEED_N], w[SPEED_N], tau_shared;
    VMAF_LOCAL float am[SPEED_NN], reduced[SPEED_NN], p[SPEED_NN], reflector[SPEED_NN];
    VMAF_LOCAL float next_reduced[SPEED_NN], next_p[SPEED_NN];
    VMAF_LOCAL float qr_v[SPEED_N];
    speed_eigen(VMAF_ARENA_ARG &a, vmaf_bid(1) == 0, m, v, w, &tau_shared);
    speed_qr(VMAF_ARENA_ARG &a, vmaf_bid(1) != 0, am, reduced, p, reflector, qr_v, next_reduced,
             next_p);
}

VMAF_KERNEL(vmaf_speed_blocks, SpeedCudaArgs)
{
    VMAF_LOCAL float p[SPEED_NN], r[SPEED_NN];
    VMAF_LOCAL float samples[SPEED_CUDA_THREADS * SPEED_N];
    const unsigned img = vmaf_bid(2);
    const __global float *small = VMAF_PTR(const float, a.small) + img * a.small_elems;
    __global float *result = VMAF_PTR(float, a.result) + img * a.result_elems;
    for (unsigned e = vmaf_tid(0); e < SPEED_NN; e += vmaf_bdim(0)) {
        p[e] = small[SPEED_CUDA_SMALL_P + e];
        r[e] = small[SPEED_CUDA_SMALL_R + e];
    }
    VMAF_BARRIER();
    const unsigned b = vmaf_bid(0) * vmaf_bdim(0) + vmaf_tid(0);
    if (b >= a.num_blocks) return;
    // singular: an eigenvalue below eps, or a pivot of R below eps (the CPU's solve refusal)
    const int singular = result[SPEED_CUDA_RES_IRREGULAR] != 0.0f || vmaf_speed_dev_bad_pivot(r);
    if (b == 0) result[SPEED_CUDA_RES_SINGULAR] = (float)singular;
    const unsigned bi = b / a.blocks_w, bj = b % a.blocks_w;
    const __global float *centred = VMAF_PTR(const float, a.centred) + img * a.down_elems;
    __local float *y = samples + vmaf_tid(0) * SPEED_N;
    float x[SPEED_N];
    for (int k = 0; k < SPEED_N; k++)
        y[k] = centred[(size_t)(bi * VMAF_SPEED_DEV_B + k / VMAF_SPEED_DEV_B) * a.down_w +
                       bj * VMAF_SPEED_DEV_B + k % VMAF_SPEED_DEV_B];
    result[SPEED_CUDA_RES_VAR + b] = vmaf_speed_dev_block_variance(p, r, y, singular, x);
}
