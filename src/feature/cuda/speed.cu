// SpEED twins (speed_chroma, speed_temporal): the per-image chain of speed_core.c on the
// device, one launch per stage over all images of the frame (gridDim.z = image). Every value is
// computed by the functions of feature/speed_device.h, which the CPU's order defines (and
// tests/twins/test_speed_twin.c checks in this decomposition); here is only the thread mapping.
// --fmad=false: no contraction; the covariance lanes use fma() exactly where the CPU does.
//
//   image        (non-direct only) the image rows the anti-aliasing filter reads: resampled
//                (the CPU scaler's tables), or the plane cropped/padded with 0
//   decimate     the anti-aliasing filter at the kept points (every 16th row and column)
//   local_mean   the local-mean filter and its removal
//   means        the 25 window means, one serial float sum each
//   covariance   one warp per (xi, yi): 16 fma lanes + the tail, folded by lane 0
//   decompose    blockIdx.y 0, eigen: one warp per image: Householder tridiagonalisation
//                (rows over lanes), then the implicit QR sweeps on lane 0, in shared memory;
//                blockIdx.y 1, qr: one block per image: the reflectors as full matrices,
//                products entry-wise (the two are independent: one launch, concurrently)
//   blocks       one thread per 5x5 block: the singular decision, P y, back substitution,
//                variance
#include <stdint.h>

#include "feature/twins/kernel_args.h"
#include "feature/speed_device.h"

#define FULL_MASK 0xffffffffu

enum { N = VMAF_SPEED_DEV_N, NN = VMAF_SPEED_DEV_N * VMAF_SPEED_DEV_N };

__device__ static VmafSpeedDevSource image_source(const SpeedCudaArgs &a, unsigned img)
{
    VmafSpeedDevSource s;
    s.a = (const uint8_t *)a.a[img];
    s.b = a.b[img] ? (const uint8_t *)a.b[img] : (const uint8_t *)0;
    s.a_stride = (ptrdiff_t)a.a_stride[img];
    s.b_stride = (ptrdiff_t)a.b_stride[img];
    s.wide = (int)a.wide;
    s.scale = a.sample_scale;
    return s;
}

// The source arrays are indexed with the block's image: pick without dynamic indexing of the
// parameter block.
__device__ static unsigned image_index()
{
    return blockIdx.z;
}

extern "C" __global__ void __launch_bounds__(SPEED_CUDA_THREADS) vmaf_speed_image(SpeedCudaArgs a)
{
    const unsigned img = image_index();
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= a.scaled_w) return;
    const unsigned y = (unsigned)((const int *)a.rows)[blockIdx.y];
    const VmafSpeedDevSource src = image_source(a, img);
    float v;
    if (a.resample) {
        VmafSpeedDevScaler sc;
        sc.method = (int)a.method;
        sc.copy = (int)a.copy;
        sc.col_index = (const int *)a.col_index;
        sc.row_index = (const int *)a.row_index;
        sc.col_weight = (const float *)a.col_weight;
        sc.row_weight = (const float *)a.row_weight;
        v = vmaf_speed_dev_scale_point(&sc, &src, y, x);
    } else {
        // the part outside the plane is 0 (speed.h)
        v = (y < a.plane_h && x < a.plane_w) ? vmaf_speed_dev_sample(&src, y, x) : 0.0f;
    }
    ((float *)a.image)[img * a.image_elems + (size_t)y * a.scaled_w + x] = v;
}

extern "C" __global__ void __launch_bounds__(SPEED_CUDA_THREADS) vmaf_speed_decimate(SpeedCudaArgs a)
{
    __shared__ float filter[SPEED_CUDA_MAX_FILTER];
    for (int i = threadIdx.x; i < a.aa_width; i += blockDim.x)
        filter[i] = ((const float *)a.filters)[i];
    __syncthreads();
    const unsigned img = image_index();
    const unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= a.down_w * a.down_h) return;
    const unsigned oi = idx / a.down_w, oj = idx % a.down_w;
    float v;
    if (a.direct) {
        const VmafSpeedDevSource src = image_source(a, img);
        v = vmaf_speed_dev_decimate_source(filter, a.aa_width, &src, a.plane_w, a.plane_h,
                                           VMAF_SPEED_DEV_DECIMATION, oi, oj);
    } else {
        const float *image = (const float *)a.image + img * a.image_elems;
        v = vmaf_speed_dev_filter_image(filter, a.aa_width, image, a.scaled_w, a.scaled_w,
                                        a.scaled_h, VMAF_SPEED_DEV_DECIMATION, oi, oj);
    }
    ((float *)a.down)[img * a.down_elems + idx] = v;
}

extern "C" __global__ void __launch_bounds__(SPEED_CUDA_THREADS) vmaf_speed_local_mean(SpeedCudaArgs a)
{
    __shared__ float filter[SPEED_CUDA_MAX_FILTER];
    for (int i = threadIdx.x; i < a.mean_width; i += blockDim.x)
        filter[i] = ((const float *)a.filters)[SPEED_CUDA_MAX_FILTER + i];
    __syncthreads();
    const unsigned img = image_index();
    const unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= a.down_w * a.down_h) return;
    const unsigned i = idx / a.down_w, j = idx % a.down_w;
    const float *down = (const float *)a.down + img * a.down_elems;
    const float mean = vmaf_speed_dev_filter_image(filter, a.mean_width, down, a.down_w, a.down_w,
                                                   a.down_h, 1, i, j);
    ((float *)a.centred)[img * a.down_elems + idx] = down[idx] - mean;
}

extern "C" __global__ void __launch_bounds__(32) vmaf_speed_means(SpeedCudaArgs a)
{
    const unsigned img = image_index();
    const int k = threadIdx.x;
    if (k >= N) return;
    const float *centred = (const float *)a.centred + img * a.down_elems;
    float *small = (float *)a.small + img * a.small_elems;
    small[SPEED_CUDA_SMALL_MEANS + k] =
        vmaf_speed_dev_window_mean(centred, a.down_w, a.sub_w, a.sub_h, k);
}

extern "C" __global__ void __launch_bounds__(SPEED_CUDA_THREADS) vmaf_speed_covariance(SpeedCudaArgs a)
{
    const unsigned img = image_index();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int p = blockIdx.x * (SPEED_CUDA_THREADS / 32) + warp;
    if (p >= VMAF_SPEED_DEV_PAIRS) return; // the whole warp
    int xi, yi;
    vmaf_speed_dev_pair(p, &xi, &yi);
    const float *centred = (const float *)a.centred + img * a.down_elems;
    float *small = (float *)a.small + img * a.small_elems;
    const double mean_x = small[SPEED_CUDA_SMALL_MEANS + xi];
    const double mean_y = small[SPEED_CUDA_SMALL_MEANS + yi];
    double v = 0.0;
    if (lane <= VMAF_SPEED_DEV_LANES)
        v = vmaf_speed_dev_cov_lane(centred, a.down_w, a.sub_w, a.sub_h, xi, yi, mean_x, mean_y,
                                    lane);
    double lanes[VMAF_SPEED_DEV_LANES];
#pragma unroll
    for (int t = 0; t < VMAF_SPEED_DEV_LANES; t++)
        lanes[t] = __shfl_sync(FULL_MASK, v, t);
    const double tail = __shfl_sync(FULL_MASK, v, VMAF_SPEED_DEV_LANES);
    if (lane == 0) {
        const double count = (double)((size_t)a.sub_w * a.sub_h);
        const float value = (float)(vmaf_speed_fold_lanes(lanes, tail) / count);
        small[SPEED_CUDA_SMALL_COV + xi * N + yi] = value;
        small[SPEED_CUDA_SMALL_COV + yi * N + xi] = value;
    }
}

// The eigenvalues (one warp) and the Householder QR (one block) depend only on the covariance:
// one launch runs both, blockIdx.y choosing.
__device__ static void eigen_warp(const SpeedCudaArgs &a)
{
    __shared__ float m[NN];
    __shared__ float v[N], w[N], diag[N], sub[N];
    __shared__ float tau_shared;
    const unsigned img = image_index();
    const int lane = threadIdx.x;
    const float *cov = (const float *)a.small + img * a.small_elems + SPEED_CUDA_SMALL_COV;
    float *result = (float *)a.result + img * a.result_elems;
    for (int i = lane; i < NN; i += 32)
        m[i] = cov[i];
    __syncwarp();
    for (int i = 0; i + 2 < N; i++) {
        const int s = i + 1;
        if (lane == 0) tau_shared = vmaf_speed_householder_column(m, N, i, s);
        __syncwarp();
        const float tau = tau_shared;
        const int r = s + lane;
        if (r < N) v[r] = (r == s && tau != 0.0f) ? 1.0f : m[r * N + i];
        __syncwarp();
        if (tau == 0.0f) continue; // uniform over the warp
        if (r < N) w[r] = vmaf_speed_tridiag_w(m, N, s, tau, v, r);
        __syncwarp();
        const float coef = vmaf_speed_tridiag_coef(tau, vmaf_speed_tridiag_wv(w, v, N, s));
        __syncwarp();
        if (r < N) w[r] += coef * v[r];
        __syncwarp();
        const int side = N - s;
        for (int e = lane; e < side * side; e += 32) {
            const int rr = s + e / side, cc = s + e % side;
            m[rr * N + cc] = vmaf_speed_tridiag_update(m[rr * N + cc], w, v, rr, cc);
        }
        __syncwarp();
    }
    if (lane == 0) {
        for (int i = 0; i < N; i++)
            diag[i] = m[i * N + i];
        for (int i = 0; i + 1 < N; i++)
            sub[i] = m[(i + 1) * N + i];
        const int stalled =
            vmaf_speed_tridiagonal_eigenvalues(diag, sub, N, VMAF_SPEED_DEV_MAX_SWEEPS);
        int irregular = 0;
        for (int i = 0; i < N; i++) {
            result[SPEED_CUDA_RES_EIGEN + i] = diag[i];
            if (diag[i] < VMAF_SPEED_DEV_EPS) irregular = 1;
        }
        result[SPEED_CUDA_RES_STALLED] = (float)stalled;
        result[SPEED_CUDA_RES_IRREGULAR] = (float)irregular;
    }
}

__device__ static void qr_block(const SpeedCudaArgs &a)
{
    __shared__ float am[NN], reduced[NN], p[NN], reflector[NN];
    __shared__ float v[N];
    const unsigned img = image_index();
    const int tid = threadIdx.x;
    const int i = tid / N, j = tid % N;
    const bool entry = tid < NN;
    float *small = (float *)a.small + img * a.small_elems;
    if (entry) {
        am[tid] = small[SPEED_CUDA_SMALL_COV + tid];
        reduced[tid] = am[tid];
        p[tid] = (i == j) ? 1.0f : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k + 1 < N; k++) {
        if (entry) reduced[tid] = vmaf_speed_dev_reduced_mask(reduced[tid], i, j, k);
        __syncthreads();
        if (tid == 0) vmaf_speed_dev_qr_vector(reduced, am, N, k, v);
        __syncthreads();
        if (entry) reflector[tid] = vmaf_speed_dev_reflector_entry(v, i, j);
        __syncthreads();
        float t1 = 0.0f, t2 = 0.0f;
        if (entry) {
            t1 = vmaf_speed_dev_matmul_entry(reflector, reduced, i, j, N, N);
            t2 = vmaf_speed_dev_matmul_entry(reflector, p, i, j, N, N);
        }
        __syncthreads();
        if (entry) {
            reduced[tid] = t1;
            p[tid] = t2;
        }
        __syncthreads();
    }
    if (entry) {
        small[SPEED_CUDA_SMALL_P + tid] = p[tid];
        small[SPEED_CUDA_SMALL_R + tid] = vmaf_speed_dev_matmul_entry(p, am, i, j, N, N);
    }
}

extern "C" __global__ void __launch_bounds__(SPEED_CUDA_QR_THREADS) vmaf_speed_decompose(SpeedCudaArgs a)
{
    if (blockIdx.y == 0) {
        if (threadIdx.x < 32) eigen_warp(a);
    } else {
        qr_block(a);
    }
}

extern "C" __global__ void __launch_bounds__(SPEED_CUDA_THREADS) vmaf_speed_blocks(SpeedCudaArgs a)
{
    __shared__ float p[NN], r[NN];
    const unsigned img = image_index();
    const float *small = (const float *)a.small + img * a.small_elems;
    float *result = (float *)a.result + img * a.result_elems;
    for (int e = threadIdx.x; e < NN; e += blockDim.x) {
        p[e] = small[SPEED_CUDA_SMALL_P + e];
        r[e] = small[SPEED_CUDA_SMALL_R + e];
    }
    __syncthreads();
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= a.num_blocks) return;
    // singular: an eigenvalue below eps, or a pivot of R below eps (the CPU's solve refusal)
    const int singular = result[SPEED_CUDA_RES_IRREGULAR] != 0.0f || vmaf_speed_dev_bad_pivot(r);
    if (b == 0) result[SPEED_CUDA_RES_SINGULAR] = (float)singular;
    const unsigned bi = b / a.blocks_w, bj = b % a.blocks_w;
    const float *centred = (const float *)a.centred + img * a.down_elems;
    float y[N], x[N];
    for (int k = 0; k < N; k++)
        y[k] = centred[(size_t)(bi * VMAF_SPEED_DEV_B + k / VMAF_SPEED_DEV_B) * a.down_w +
                       bj * VMAF_SPEED_DEV_B + k % VMAF_SPEED_DEV_B];
    result[SPEED_CUDA_RES_VAR + b] = vmaf_speed_dev_block_variance(p, r, y, singular, x);
}
