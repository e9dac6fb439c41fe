// The ciede twin's frame sum on the GPU (feature/cuda/seq_sum.cuh, one block) against the
// serial double loop on the host, bit for bit: the arrays of tests/twins/test_seq_sum.c
// (every kind, every length around the segment and chunk sizes, 4K-sized random ones) at two
// alignments, and with a clips directory the real differences of jetty frames as
// vmaf_ciede_diff writes them, summed by vmaf_ciede_sum itself. Then the time per 4K frame
// (cudaEvent, --reps replays) of the block sum against the former one-thread kernel, alone and
// four at a time on four streams (the twin's slots).
//
//   seq_sum_gpu_test [CLIPS_DIR] [--seed N] [--reps N]
// Built by CMake where nvcc is found (tests/checktwin/CMakeLists.txt) and run by ctest as
// seq_sum_gpu (skipped without a device). By hand, from the repository root (other block
// shapes: add -DSEQ_SUM_THREADS=256 -DSEQ_SUM_K=32, etc.):
//   nvcc -O3 -std=c++17 -arch=sm_90 --fmad=false -Xcompiler -ffp-contract=off -Isrc -Iinclude \
//        -Itests -o seq_sum_gpu_test tests/checktwin/seq_sum_gpu_test.cu
//
// CLIPS_DIR holds jetty_1920x1080_420p_{ref,dis}.yuv (tests/golden/prepare_clips.sh unpacks
// them).
// Exit 1 on any mismatch (printing the seed, kind, case and length), 77 without a CUDA device.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEQ_SUM_TEST_NO_MAIN
#include "../twins/test_seq_sum.c"
#include "feature/cuda/ciede.cu"

#define CUDA_OK(call)                                                                    \
    do {                                                                                 \
        const cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                           \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

extern "C" __global__ void __launch_bounds__(SEQ_SUM_THREADS)
    test_block_sum(const float *x, unsigned long long n, double *out)
{
    vmaf_seq_sum_block(x, n, out);
}

// the kernel this replaces: one thread, the loop
extern "C" __global__ void test_one_thread_sum(const float *x, unsigned long long n, double *out)
{
    if (threadIdx.x || blockIdx.x) return;
    double s = 0.;
    for (unsigned long long k = 0; k < n; k++) s += (double)x[k];
    *out = s;
}

static unsigned mismatches, compared;

static void compare(const char *what, unsigned i, unsigned long long seed, size_t n, double want,
                    double got)
{
    compared++;
    if (!memcmp(&want, &got, sizeof want)) return;
    if (mismatches++ < 20)
        printf("MISMATCH %s case %u (seed %llu, n %zu): loop %a, GPU %a\n", what, i, seed, n,
               want, got);
}

// x[0..n) on the device at `offset` floats (a multiple of 4) into a fresh buffer, summed there.
static double gpu_sum(const float *x, size_t n, size_t offset, float *dev, double *dev_out)
{
    if (n) CUDA_OK(cudaMemcpy(dev + offset, x, n * sizeof(float), cudaMemcpyHostToDevice));
    test_block_sum<<<1, SEQ_SUM_THREADS>>>(dev + offset, n, dev_out);
    CUDA_OK(cudaGetLastError());
    double s;
    CUDA_OK(cudaMemcpy(&s, dev_out, sizeof s, cudaMemcpyDeviceToHost));
    return s;
}

static int read_frame(const char *dir, const char *name, int dis, unsigned k, unsigned char *buf,
                      size_t bytes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s_%s.yuv", dir, name, dis ? "dis" : "ref");
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    const int ok = !fseek(f, (long)(bytes * k), SEEK_SET) && fread(buf, 1, bytes, f) == bytes;
    fclose(f);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *clips = NULL;
    unsigned long long seed = 20261201;
    int reps = 50;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else clips = argv[i];
    }
    int n_dev = 0;
    if (cudaGetDeviceCount(&n_dev) != cudaSuccess || !n_dev) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    const size_t big = (size_t)3840 * 2160, cap = big + 64;
    float *x = (float *)malloc(cap * sizeof(float)), *dev[4];
    double *dev_out;
    if (!x) return 2;
    for (int s = 0; s < 4; s++) CUDA_OK(cudaMalloc(&dev[s], cap * sizeof(float)));
    CUDA_OK(cudaMalloc(&dev_out, 8 * sizeof(double)));

    // 1. the arrays of test_seq_sum.c, at offsets 0 and 4 floats
    unsigned cases = 0;
    for (int kind = 0; kind < SS_KINDS; kind++)
        for (unsigned i = 0; i < 40; i++) {
            SsRng r = { seed ^ ((uint64_t)kind << 40) ^ i };
            const size_t n = ss_length(&r, i);
            ss_fill(&r, kind, x, n);
            const double want = vmaf_seq_sum_serial(x, 0, n, 0.);
            compare(ss_kind_name[kind], i, seed, n, want, gpu_sum(x, n, (i & 1) * 4, dev[0], dev_out));
            cases++;
        }
    static const int kinds[] = { SS_CIEDE, SS_TIES, SS_RANGE, SS_FEW_BITS, SS_BAD };
    for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        SsRng r = { seed ^ 0x4b4b ^ i };
        ss_fill(&r, kinds[i], x, big);
        const double want = vmaf_seq_sum_serial(x, 0, big, 0.);
        compare(ss_kind_name[kinds[i]], 1000 + i, seed, big, want, gpu_sum(x, big, 0, dev[0], dev_out));
        cases++;
    }
    printf("arrays: %u cases, %u differ\n", cases, mismatches);

    // 2. real differences: jetty frames through vmaf_ciede_diff, summed by vmaf_ciede_sum
    unsigned real = 0;
    if (clips) {
        const unsigned w = 1920, h = 1080;
        const size_t luma = (size_t)w * h, chroma = luma / 4, bytes = luma + 2 * chroma;
        unsigned char *frame = (unsigned char *)malloc(2 * bytes), *dev_frame;
        CUDA_OK(cudaMalloc(&dev_frame, 2 * bytes));
        for (unsigned f = 0; frame && f < 4; f++) {
            if (read_frame(clips, "jetty_1920x1080_420p", 0, f, frame, bytes) ||
                read_frame(clips, "jetty_1920x1080_420p", 1, f, frame + bytes, bytes)) {
                printf("MISMATCH cannot read jetty frame %u from %s\n", f, clips);
                mismatches++;
                break;
            }
            CUDA_OK(cudaMemcpy(dev_frame, frame, 2 * bytes, cudaMemcpyHostToDevice));
            CiedeCudaArgs a;
            memset(&a, 0, sizeof a);
            const size_t off[3] = { 0, luma, luma + chroma };
            for (int k = 0; k < 3; k++) {
                a.ref[k] = (vmaf_devptr)(uintptr_t)(dev_frame + off[k]);
                a.dist[k] = (vmaf_devptr)(uintptr_t)(dev_frame + bytes + off[k]);
                a.stride[k] = k ? w / 2 : w;
                a.pw[k] = k ? w / 2 : w;
                a.ph[k] = k ? h / 2 : h;
            }
            a.w = w;
            a.h = h;
            a.bpc = 8;
            a.layout = VMAF_CIEDE_420;
            a.diff = (vmaf_devptr)(uintptr_t)(dev[1] + (size_t)f * luma); // luma % 4 == 0
            a.sum = (vmaf_devptr)(uintptr_t)(dev_out + f);
            vmaf_ciede_diff<<<dim3((w + CIEDE_CUDA_THREADS - 1) / CIEDE_CUDA_THREADS, h),
                              CIEDE_CUDA_THREADS>>>(a);
            vmaf_ciede_sum<<<1, SEQ_SUM_THREADS>>>(a);
            CUDA_OK(cudaGetLastError());
            double got;
            CUDA_OK(cudaMemcpy(&got, dev_out + f, sizeof got, cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(x + (size_t)f * luma, dev[1] + (size_t)f * luma, luma * sizeof(float),
                               cudaMemcpyDeviceToHost));
            compare("jetty frame (vmaf_ciede_sum)", f, 0, luma, vmaf_seq_sum_serial(x + (size_t)f * luma, 0, luma, 0.), got);
            real++;
        }
        if (real == 4) { // the four frames as one 4K-sized array
            test_block_sum<<<1, SEQ_SUM_THREADS>>>(dev[1], big, dev_out + 4);
            CUDA_OK(cudaGetLastError());
            double got;
            CUDA_OK(cudaMemcpy(&got, dev_out + 4, sizeof got, cudaMemcpyDeviceToHost));
            compare("jetty x4 (4K)", 0, 0, big, vmaf_seq_sum_serial(x, 0, big, 0.), got);
            real++;
        }
        free(frame);
        CUDA_OK(cudaFree(dev_frame));
    }
    printf("real differences: %u arrays%s\n", real, clips ? "" : " (no clips directory given)");

    // 3. time per 4K frame: ciede-like content (or the jetty frames), block sum vs one thread
    if (real < 5) {
        SsRng r = { seed };
        ss_fill(&r, SS_CIEDE, x, big);
        CUDA_OK(cudaMemcpy(dev[1], x, big * sizeof(float), cudaMemcpyHostToDevice));
    }
    for (int s = 0; s < 4; s++)
        if (s != 1) CUDA_OK(cudaMemcpy(dev[s], dev[1], big * sizeof(float), cudaMemcpyDeviceToDevice));
    cudaStream_t st[4];
    for (int s = 0; s < 4; s++) CUDA_OK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    float ms_block, ms_one, ms_four;
    test_block_sum<<<1, SEQ_SUM_THREADS, 0, st[0]>>>(dev[0], big, dev_out); // warm up
    CUDA_OK(cudaEventRecord(e0, st[0]));
    for (int i = 0; i < reps; i++) test_block_sum<<<1, SEQ_SUM_THREADS, 0, st[0]>>>(dev[0], big, dev_out);
    CUDA_OK(cudaEventRecord(e1, st[0]));
    CUDA_OK(cudaEventSynchronize(e1));
    CUDA_OK(cudaEventElapsedTime(&ms_block, e0, e1));
    CUDA_OK(cudaEventRecord(e0, st[0]));
    for (int i = 0; i < 3; i++) test_one_thread_sum<<<1, 32, 0, st[0]>>>(dev[0], big, dev_out + 1);
    CUDA_OK(cudaEventRecord(e1, st[0]));
    CUDA_OK(cudaEventSynchronize(e1));
    CUDA_OK(cudaEventElapsedTime(&ms_one, e0, e1));
    // four slots at once: each stream sums its own copy
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaEventRecord(e0, 0));
    for (int s = 1; s < 4; s++) CUDA_OK(cudaStreamWaitEvent(st[s], e0, 0));
    CUDA_OK(cudaStreamWaitEvent(st[0], e0, 0));
    for (int i = 0; i < reps; i++)
        for (int s = 0; s < 4; s++)
            test_block_sum<<<1, SEQ_SUM_THREADS, 0, st[s]>>>(dev[s], big, dev_out + 4 + s);
    for (int s = 0; s < 4; s++) {
        cudaEvent_t done;
        CUDA_OK(cudaEventCreate(&done));
        CUDA_OK(cudaEventRecord(done, st[s]));
        CUDA_OK(cudaStreamWaitEvent(0, done, 0));
        CUDA_OK(cudaEventDestroy(done));
    }
    CUDA_OK(cudaEventRecord(e1, 0));
    CUDA_OK(cudaEventSynchronize(e1));
    CUDA_OK(cudaEventElapsedTime(&ms_four, e0, e1));
    double sums[8];
    CUDA_OK(cudaMemcpy(sums, dev_out, sizeof sums, cudaMemcpyDeviceToHost));
    const double want = vmaf_seq_sum_serial(x, 0, big, 0.);
    compare("timed block sum", 0, seed, big, want, sums[0]);
    compare("timed one-thread sum", 0, seed, big, want, sums[1]);
    for (int s = 0; s < 4; s++) compare("timed concurrent sum", (unsigned)s, seed, big, want, sums[4 + s]);
    printf("4K frame (%s, %d x %d threads x %d, L2 prefetch %d): block sum %.3f ms, one thread %.3f ms, "
           "four streams %.3f ms per frame\n",
           real == 5 ? "jetty x4" : "ciede-like", 1, SEQ_SUM_THREADS, SEQ_SUM_K, SEQ_SUM_PREFETCH, ms_block / reps,
           ms_one / 3, ms_four / (4. * reps));
    printf("seq_sum_gpu_test (seed %llu): %u sums compared, %u differ\n", seed, compared, mismatches);
    return mismatches ? 1 : 0;
}
