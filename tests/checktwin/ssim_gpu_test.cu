// The SSIM kernels (feature/cuda/ssim.cu) on the GPU against ssim_device.h's code run on the
// host in the same decomposition, bit for bit: the decimated planes, every segment partial,
// every row sum and the four plane sums. (tests/twins/test_ssim_twin.c shows that the host
// decomposition equals the CPU extractor's vmaf_ssim_sums bit for bit; checktwin compares the
// final scores, whose float rounding could hide a few ulps of a sum.)
//
//   ssim_gpu_test [--seed N] [--bench]
// Built by CMake where nvcc is found (tests/checktwin/CMakeLists.txt) and run by ctest as
// ssim_gpu (skipped without a device). By hand, from the repository root:
//   nvcc -O2 -std=c++17 -arch=sm_90 --fmad=false -Xcompiler -ffp-contract=off -Isrc -Iinclude \
//        -o ssim_gpu_test tests/checktwin/ssim_gpu_test.cu
//
// Exit 1 on any mismatch (printing the seed, case and where), 77 without a CUDA device.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/cuda/ssim.cu"

#define CUDA_OK(call)                                                                    \
    do {                                                                                 \
        const cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                           \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

static unsigned long long rng_state = 1;
static unsigned rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state >> 16);
}

static int failures;

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CUDA_OK(cudaMalloc(&p, bytes ? bytes : 8));
    return p;
}

// host: the kernels' decomposition (as tests/twins/test_ssim_twin.c)
static void host_sums(const VmafSsimSource *ref, const VmafSsimSource *cmp, int w, int h,
                      double *partials, double *rows, double sums[4])
{
    const int nw = w - 10, nh = h - 10, n_seg = (nw + 31) / 32;
    const int n_by = (nh + VMAF_SSIM_TILE_H - 1) / VMAF_SSIM_TILE_H;
    VmafSsimTile *tile = (VmafSsimTile *)malloc(sizeof(VmafSsimTile));
    float g[VMAF_SSIM_WINDOW];
    vmaf_ssim_window(g);
    const VmafSsimConst k = vmaf_ssim_const();
    for (int by = 0; by < n_by; by++)
        for (int bx = 0; bx < n_seg; bx++) {
            const int x0 = bx * 32, y0 = by * VMAF_SSIM_TILE_H;
            for (int i = 0; i < VMAF_SSIM_IN_H * VMAF_SSIM_IN_W; i++)
                vmaf_ssim_tile_load(tile, ref, cmp, w, h, y0, x0, i);
            for (int i = 0; i < VMAF_SSIM_IN_H * VMAF_SSIM_TILE_W; i++)
                vmaf_ssim_tile_horizontal(tile, g, i);
            const int n = nw - x0 < 32 ? nw - x0 : 32;
            for (int r = 0; r < VMAF_SSIM_TILE_H && y0 + r < nh; r++) {
                double t[32][4], v[32];
                for (int lane = 0; lane < 32; lane++) {
                    for (int q = 0; q < 4; q++) t[lane][q] = 0.0;
                    if (lane < n) vmaf_ssim_tile_terms(tile, g, &k, r, lane, t[lane]);
                }
                for (int q = 0; q < 4; q++) {
                    for (int lane = 0; lane < 32; lane++) v[lane] = t[lane][q];
                    partials[((size_t)q * nh + y0 + r) * n_seg + bx] = vmaf_ssim_tree(v, n);
                }
            }
        }
    for (int q = 0; q < 4; q++)
        for (int y = 0; y < nh; y++)
            rows[(size_t)q * nh + y] = vmaf_ssim_row_sum(partials, nh, n_seg, q, y);
    for (int q = 0; q < 4; q++) {
        double lanes[32];
        for (int j = 0; j < 32; j++) lanes[j] = vmaf_ssim_lane_sum(rows + (size_t)q * nh, nh, j);
        sums[q] = vmaf_ssim_tree(lanes, nh < 32 ? nh : 32);
    }
    free(tile);
}

static int first_diff(const void *a, const void *b, size_t n, size_t elem)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)a + i * elem, (const char *)b + i * elem, elem)) return (int)i;
    return -1;
}

// One pair: samples of bpc bits (w x h), optionally decimated by factor (kw taps) first.
static void run_case(int w, int h, int bpc, int factor, int kw, const float *taps, int pattern,
                     bool bench)
{
    const int bytes = bpc > 8 ? 2 : 1;
    const size_t plane = (size_t)w * h * bytes;
    unsigned char *host[2];
    const unsigned max = (1u << bpc) - 1;
    for (int p = 0; p < 2; p++) host[p] = (unsigned char *)malloc(plane);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        const unsigned a = pattern == 0 ? rnd() % (max + 1)
                         : pattern == 1 ? (rnd() & 1 ? max : 0)
                                        : (unsigned)((i % w + i / w) * 7 % (max + 1));
        int d = (int)a + (int)(rnd() % 33) - 16;
        const unsigned b = pattern == 0 ? rnd() % (max + 1) : d < 0 ? 0 : d > (int)max ? max : d;
        if (bytes == 2) {
            ((uint16_t *)host[0])[i] = (uint16_t)a;
            ((uint16_t *)host[1])[i] = (uint16_t)b;
        } else {
            host[0][i] = (unsigned char)a;
            host[1][i] = (unsigned char)b;
        }
    }
    char what[160];
    snprintf(what, sizeof(what), "%dx%d %d-bit factor %d kw %d pattern %d (seed %llu)", w, h,
             bpc, factor, kw, pattern, (unsigned long long)rng_state);
    SsimCudaArgs a;
    memset(&a, 0, sizeof(a));
    void *dsrc[2];
    for (int p = 0; p < 2; p++) {
        dsrc[p] = dev_alloc(plane);
        CUDA_OK(cudaMemcpy(dsrc[p], host[p], plane, cudaMemcpyHostToDevice));
        a.src[p] = (vmaf_devptr)dsrc[p];
    }
    a.src_stride = (unsigned long long)w * bytes;
    a.src_kind = bpc > 8 ? 1 : 0;
    a.src_scale = 1.0f / vmaf_float_sample_divisor(bpc);
    a.w = w;
    a.h = h;
    VmafSsimSource hs[2];
    for (int p = 0; p < 2; p++) {
        hs[p].data = host[p];
        hs[p].stride = (ptrdiff_t)w * bytes;
        hs[p].kind = a.src_kind;
        hs[p].scale = a.src_scale;
    }
    int pw = w, ph = h;
    float *hdec[2] = { NULL, NULL };
    void *ddec[2] = { NULL, NULL };
    if (factor > 1) {
        pw = w / factor + (w & 1); /* vmaf_ssim_decimated */
        ph = h / factor + (h & 1);
        SsimCudaArgs d = a;
        for (int p = 0; p < 2; p++) {
            ddec[p] = dev_alloc((size_t)pw * ph * 4);
            d.dst[p] = (vmaf_devptr)ddec[p];
            hdec[p] = (float *)malloc((size_t)pw * ph * 4);
        }
        d.dst_stride = (unsigned long long)pw * 4;
        d.dst_w = pw;
        d.dst_h = ph;
        d.factor = factor;
        d.kw = kw;
        memcpy(d.taps, taps, (size_t)kw * kw * 4);
        vmaf_ssim_decimate<<<dim3((pw + 31) / 32, (ph + 7) / 8), dim3(32, 8)>>>(d);
        CUDA_OK(cudaGetLastError());
        float *got = (float *)malloc((size_t)pw * ph * 4);
        for (int p = 0; p < 2; p++) {
            for (int y = 0; y < ph; y++)
                for (int x = 0; x < pw; x++)
                    hdec[p][(size_t)y * pw + x] =
                        vmaf_ssim_decimate_at(&hs[p], w, h, factor, taps, kw, y, x);
            CUDA_OK(cudaMemcpy(got, ddec[p], (size_t)pw * ph * 4, cudaMemcpyDeviceToHost));
            const int at = first_diff(got, hdec[p], (size_t)pw * ph, 4);
            if (at >= 0) {
                failures++;
                printf("FAIL %s: decimated plane %d differs at (%d, %d): gpu %.9g host %.9g\n",
                       what, p, at / pw, at % pw, got[at], hdec[p][at]);
            }
        }
        free(got);
        for (int p = 0; p < 2; p++) {
            a.src[p] = (vmaf_devptr)ddec[p];
            hs[p].data = (const uint8_t *)hdec[p];
            hs[p].stride = (ptrdiff_t)pw * 4;
            hs[p].kind = 2;
            hs[p].scale = 1.0f;
        }
        a.src_stride = (unsigned long long)pw * 4;
        a.src_kind = 2;
        a.src_scale = 1.0f;
        a.w = pw;
        a.h = ph;
    }
    const int nw = pw - 10, nh = ph - 10;
    if (nw > 0 && nh > 0) {
        a.n_seg = (nw + 31) / 32;
        const size_t n_part = (size_t)4 * nh * a.n_seg, n_rows = (size_t)4 * nh;
        void *dpart = dev_alloc(n_part * 8), *drows = dev_alloc(n_rows * 8), *dsums = dev_alloc(32);
        CUDA_OK(cudaMemset(dpart, 0xff, n_part * 8));
        a.partials = (vmaf_devptr)dpart;
        a.rows = (vmaf_devptr)drows;
        a.sums = (vmaf_devptr)dsums;
        cudaEvent_t e0, e1;
        CUDA_OK(cudaEventCreate(&e0));
        CUDA_OK(cudaEventCreate(&e1));
        const int reps = bench ? 20 : 1;
        CUDA_OK(cudaEventRecord(e0));
        for (int r = 0; r < reps; r++) {
            vmaf_ssim_tile<<<dim3(a.n_seg, (nh + VMAF_SSIM_TILE_H - 1) / VMAF_SSIM_TILE_H),
                             VMAF_SSIM_THREADS>>>(a);
            vmaf_ssim_rows<<<dim3((nh + VMAF_SSIM_ROW_THREADS - 1) / VMAF_SSIM_ROW_THREADS, 4),
                             VMAF_SSIM_ROW_THREADS>>>(a);
            vmaf_ssim_plane<<<1, 128>>>(a);
        }
        CUDA_OK(cudaEventRecord(e1));
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaEventSynchronize(e1));
        float ms = 0;
        CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
        if (bench) printf("bench %s: window + sums %.1f us per pair\n", what, 1000.0f * ms / reps);
        double *gp = (double *)malloc(n_part * 8), *gr = (double *)malloc(n_rows * 8), gs[4];
        double *hp = (double *)malloc(n_part * 8), *hr = (double *)malloc(n_rows * 8), hsum[4];
        CUDA_OK(cudaMemcpy(gp, dpart, n_part * 8, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(gr, drows, n_rows * 8, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(gs, dsums, 32, cudaMemcpyDeviceToHost));
        host_sums(&hs[0], &hs[1], pw, ph, hp, hr, hsum);
        int at = first_diff(gp, hp, n_part, 8);
        if (at >= 0) {
            failures++;
            const int q = at / (nh * a.n_seg), y = (at / a.n_seg) % nh, s = at % a.n_seg;
            printf("FAIL %s: partial sum %d row %d segment %d: gpu %.17g host %.17g\n", what, q,
                   y, s, gp[at], hp[at]);
        }
        at = first_diff(gr, hr, n_rows, 8);
        if (at >= 0) {
            failures++;
            printf("FAIL %s: row sum %d row %d: gpu %.17g host %.17g\n", what, at / nh, at % nh,
                   gr[at], hr[at]);
        }
        at = first_diff(gs, hsum, 4, 8);
        if (at >= 0) {
            failures++;
            printf("FAIL %s: sum %d: gpu %.17g host %.17g\n", what, at, gs[at], hsum[at]);
        }
        free(gp); free(gr); free(hp); free(hr);
        cudaFree(dpart); cudaFree(drows); cudaFree(dsums);
        cudaEventDestroy(e0); cudaEventDestroy(e1);
    }
    for (int p = 0; p < 2; p++) {
        free(host[p]);
        free(hdec[p]);
        cudaFree(dsrc[p]);
        if (ddec[p]) cudaFree(ddec[p]);
    }
}

int main(int argc, char **argv)
{
    unsigned long long seed = 0x55117a1bull;
    bool bench = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--bench")) bench = true;
    }
    int n_dev = 0;
    if (cudaGetDeviceCount(&n_dev) != cudaSuccess || n_dev == 0) {
        printf("ssim_gpu_test: no CUDA device, skipped\n");
        return 77;
    }
    rng_state = seed ? seed : 1;
    float lpf[81], box[VMAF_SSIM_MAX_TAPS];
    vmaf_ssim_lpf(lpf);
    static const int sizes[][2] = { { 11, 11 }, { 12, 13 }, { 42, 42 }, { 43, 43 }, { 75, 44 },
                                    { 176, 177 }, { 353, 289 }, { 1921, 1081 }, { 3840, 2160 } };
    static const int depths[] = { 8, 10, 12, 16 };
    unsigned n = 0;
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (unsigned d = 0; d < 4; d++)
            for (int f = 1; f <= 10; f++) {
                if (sizes[s][0] > 1000 && f > 3 && f != 8) continue;
                const float tap = 1.0f / (f * f);
                for (int i = 0; i < f * f; i++) box[i] = tap;
                run_case(sizes[s][0], sizes[s][1], depths[d], f, f, box, (int)(s + d + f) % 3,
                         false);
                n++;
                if (f == 2) { /* MS-SSIM's low-pass */
                    run_case(sizes[s][0], sizes[s][1], depths[d], 2, 9, lpf, (int)(s + d) % 3,
                             false);
                    n++;
                }
            }
    if (bench) {
        run_case(3840, 2160, 8, 1, 1, box, 0, true);
        run_case(3840, 2160, 8, 2, 9, lpf, 2, true);
    }
    printf("ssim_gpu_test: %u cases, %d failures (seed %llu)\n", n, failures, seed);
    return failures ? 1 : 0;
}
