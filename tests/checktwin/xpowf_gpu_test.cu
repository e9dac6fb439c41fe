// vmaf_xpowf (feature/xpowf.h) compiled for the GPU against the same header compiled for the
// host, bit for bit: every one of the 2^32 x for each exponent, then 2^30 random (x, y) bit
// patterns. With tests/extractors/test_xpowf.c (the host code against glibc's powf) this makes the
// device's bits glibc's.
//
//   xpowf_gpu_test [--threads N] [Y...]   (Y as test_xpowf: a float, or "1/P" for the ADM's
//                                           root (float)(1.0f / P); default: the ADM's set)
// Built by CMake where nvcc is found (tests/checktwin/CMakeLists.txt) and run by ctest as
// xpowf_gpu (skipped without a device). By hand, from the repository root:
//   nvcc -O2 -std=c++17 -arch=sm_90 --fmad=false -Isrc -Iinclude -Itests \
//        -Xcompiler -ffp-contract=off,-pthread -o xpowf_gpu_test tests/checktwin/xpowf_gpu_test.cu
//
// Exit 1 on any mismatch (printing the first ones), 77 without a CUDA device.
#include <cuda_runtime.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/xpowf.h"

#include "test_util.h"

#define CUDA_OK(call)                                                                    \
    do {                                                                                 \
        const cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                           \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

enum { CHUNK_BITS = 28 };
static const uint64_t CHUNK = 1ull << CHUNK_BITS;

// pairs == 0: x = first + i, y fixed; else x and y from splitmix64 seeded with first + i
__host__ __device__ static void operands(uint64_t first, uint64_t i, float y, int pairs,
                                         float *px, float *py)
{
    if (!pairs) {
        *px = vmaf_xpowf_from_bits((uint32_t)(first + i));
        *py = y;
        return;
    }
    uint64_t state = first + i;
    const uint64_t r = test_splitmix64(&state);
    *px = vmaf_xpowf_from_bits((uint32_t)r);
    *py = vmaf_xpowf_from_bits((uint32_t)(r >> 32));
}

__global__ void xpowf_chunk(uint64_t first, float y, int pairs, uint32_t *out)
{
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= CHUNK) return;
    float x, yy;
    operands(first, i, y, pairs, &x, &yy);
    out[i] = vmaf_xpowf_to_bits(vmaf_xpowf(x, yy));
}

typedef struct Slice {
    pthread_t thread;
    const uint32_t *device_bits;
    uint64_t first, begin, end;
    float y;
    int pairs;
    uint64_t failed;
} Slice;

static void *check_slice(void *arg)
{
    Slice *s = (Slice *)arg;
    for (uint64_t i = s->begin; i < s->end; i++) {
        float x, y;
        operands(s->first, i, s->y, s->pairs, &x, &y);
        const uint32_t want = vmaf_xpowf_to_bits(vmaf_xpowf(x, y)), got = s->device_bits[i];
        if (want != got && s->failed++ < 5)
            fprintf(stderr, "xpowf(%a [%08x], %a [%08x]): host %08x, device %08x\n", x,
                    vmaf_xpowf_to_bits(x), y, vmaf_xpowf_to_bits(y), want, got);
    }
    return NULL;
}

static uint64_t run_chunk(uint32_t *dev, uint32_t *host, uint64_t first, float y, int pairs,
                          unsigned threads)
{
    xpowf_chunk<<<(unsigned)(CHUNK / 256), 256>>>(first, y, pairs, dev);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(host, dev, CHUNK * 4, cudaMemcpyDeviceToHost));
    Slice s[64];
    const uint64_t per = CHUNK / threads;
    for (unsigned k = 0; k < threads; k++) {
        s[k] = Slice{ 0, host, first, per * k, k + 1 == threads ? CHUNK : per * (k + 1), y, pairs, 0 };
        if (pthread_create(&s[k].thread, NULL, check_slice, &s[k])) {
            fprintf(stderr, "cannot start a thread\n");
            exit(1);
        }
    }
    uint64_t failed = 0;
    for (unsigned k = 0; k < threads; k++) {
        pthread_join(s[k].thread, NULL);
        failed += s[k].failed;
    }
    return failed;
}

static int parse_exponent(const char *s, float *y)
{
    char *end;
    errno = 0;
    const int root = strncmp(s, "1/", 2) == 0;
    const double v = strtod(root ? s + 2 : s, &end);
    if (errno || end == s || *end || (root && v == 0)) return -EINVAL;
    *y = root ? (float)(1.0f / v) : (float)v;
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const adm[] = { "1/3", "3", "1", "2", "2.5", "4", "20", "1/2", "1/2.5",
                                       "1/4", "1/20", "1.5", "1/1.5" };
    unsigned threads = 16;
    int a = 1;
    if (argc >= 3 && !strcmp(argv[1], "--threads")) {
        threads = (unsigned)atoi(argv[2]);
        a = 3;
    }
    if (threads < 1 || threads > 64) {
        fprintf(stderr, "--threads: 1..64\n");
        return 2;
    }
    int n_dev = 0;
    if (cudaGetDeviceCount(&n_dev) != cudaSuccess || n_dev == 0) {
        printf("no CUDA device\n");
        return 77;
    }
    uint32_t *dev, *host;
    CUDA_OK(cudaMalloc(&dev, CHUNK * 4));
    CUDA_OK(cudaMallocHost(&host, CHUNK * 4));
    const int n_y = a < argc ? argc - a : (int)(sizeof(adm) / sizeof(adm[0]));
    uint64_t failed = 0;
    for (int k = 0; k < n_y; k++) {
        const char *text = a < argc ? argv[a + k] : adm[k];
        float y;
        if (parse_exponent(text, &y) < 0) {
            fprintf(stderr, "bad exponent '%s'\n", text);
            return 2;
        }
        uint64_t f = 0;
        for (uint64_t first = 0; first < (1ull << 32); first += CHUNK)
            f += run_chunk(dev, host, first, y, 0, threads);
        printf("y = %s (%a): all 2^32 x, %llu differ\n", text, y, (unsigned long long)f);
        fflush(stdout);
        failed += f;
    }
    uint64_t f = 0;
    for (uint64_t first = 0; first < 4 * CHUNK; first += CHUNK)
        f += run_chunk(dev, host, first, 0.0f, 1, threads);
    printf("2^30 random (x, y) bit patterns: %llu differ\n", (unsigned long long)f);
    failed += f;
    CUDA_OK(cudaFree(dev));
    CUDA_OK(cudaFreeHost(host));
    printf("xpowf_gpu_test: %s\n", failed ? "FAILED" : "device == host on every input");
    return failed ? 1 : 0;
}
