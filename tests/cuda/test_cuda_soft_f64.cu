/*
 * The software binary64 (src/feature/soft_f64.h) compiled by nvcc and run on a CUDA device:
 * every operation of tests/core/soft_f64_ops.h on the operand records of
 * tests/core/soft_f64_cases.h, compared with the host's hardware double (the rule there) and
 * with the host's soft_f64 bit for bit; then the device's throughput of add, mul, div, sqrt
 * and fma (chains of dependent operations, printed only). Exit 77 without a device.
 *   test_cuda_soft_f64 [--count N] [--seed S]
 */
#include <inttypes.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#define TEST_MAX_PRINTED 40
#include "soft_f64_cases.h"

#define CHUNK (1u << 20)

__global__ void soft_f64_all(const SoftF64Case *cases, uint64_t *out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t r[SOFT_F64_OPS];
    soft_f64_apply(cases[i], r);
    for (int op = 0; op < SOFT_F64_OPS; op++) out[(size_t)i * SOFT_F64_OPS + op] = r[op];
}

/* `iters` dependent operations `op` per thread (x = x op b, sqrt(x), fma(x, b, c)) */
__global__ void soft_f64_chain(int op, const SoftF64Case *cases, uint64_t *out, unsigned n,
                               int iters)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vmaf_f64 x = vmaf_f64_from_bits(cases[i].a), b = vmaf_f64_from_bits(cases[i].b),
             c = vmaf_f64_from_bits(cases[i].c);
    for (int k = 0; k < iters; k++) {
        switch (op) {
        case 0: x = vmaf_f64_add(x, b); break;
        case 1: x = vmaf_f64_mul(x, b); break;
        case 2: x = vmaf_f64_div(x, b); break;
        case 3: x = vmaf_f64_sqrt(x); break;
        default: x = vmaf_f64_fma(x, b, c); break;
        }
    }
    out[i] = x.bits;
}

#define CUDA_OK(call)                                                                    \
    do {                                                                                 \
        const cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                         \
            printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_));                      \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

int main(int argc, char **argv)
{
    uint64_t count = 1u << 22;
    rng_state = 0x9e3779b97f4a7c15ull;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--count") && i + 1 < argc) count = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s [--count N] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    if (!rng_state) rng_state = 1;
    const uint64_t seed = rng_state;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || !devices) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s; seed %#" PRIx64 ", %" PRIu64 " cases x %d operations\n", prop.name, seed,
           count, SOFT_F64_OPS);
    CHECK(soft_f64_host_rounds_to_nearest(), "the host does not round to nearest");
    SoftF64Case *cases = (SoftF64Case *)malloc(CHUNK * sizeof(SoftF64Case)), *dcases = NULL;
    uint64_t *out = (uint64_t *)malloc((size_t)CHUNK * SOFT_F64_OPS * sizeof(uint64_t)), *dout;
    if (!cases || !out) return 1;
    CUDA_OK(cudaMalloc(&dcases, CHUNK * sizeof(SoftF64Case)));
    CUDA_OK(cudaMalloc(&dout, (size_t)CHUNK * SOFT_F64_OPS * sizeof(uint64_t)));
    uint64_t fails = 0, unlike_host = 0;
    for (uint64_t done = 0; done < count;) {
        const unsigned n = count - done < CHUNK ? (unsigned)(count - done) : CHUNK;
        for (unsigned j = 0; j < n; j++) soft_f64_case(done + j, &cases[j]);
        CUDA_OK(cudaMemcpy(dcases, cases, n * sizeof(SoftF64Case), cudaMemcpyHostToDevice));
        soft_f64_all<<<(n + 127) / 128, 128>>>(dcases, dout, n);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaMemcpy(out, dout, (size_t)n * SOFT_F64_OPS * sizeof(uint64_t),
                           cudaMemcpyDeviceToHost));
        for (unsigned j = 0; j < n; j++) {
            uint64_t host[SOFT_F64_OPS], want[SOFT_F64_OPS];
            const uint64_t *got = out + (size_t)j * SOFT_F64_OPS;
            soft_f64_apply(cases[j], host);
            soft_f64_reference(&cases[j], want);
            for (int op = 0; op < SOFT_F64_OPS; op++) {
                int payload;
                const int bad = soft_f64_differs(op, got[op], want[op], &payload);
                fails += bad;
                unlike_host += got[op] != host[op];
                if (bad || got[op] != host[op])
                    CHECK(0, "%s case %" PRIu64 ": a %#" PRIx64 " b %#" PRIx64 " c %#" PRIx64
                          ": device %#" PRIx64 ", host soft %#" PRIx64 ", hardware %#" PRIx64,
                          soft_f64_op_name[op], done + j, cases[j].a, cases[j].b, cases[j].c,
                          got[op], host[op], want[op]);
            }
        }
        done += n;
        checks++;
    }
    printf("%" PRIu64 " operations: %" PRIu64 " unlike the hardware, %" PRIu64
           " unlike the host's soft_f64\n", count * SOFT_F64_OPS, fails, unlike_host);

    /* throughput: normal operands near 1 (kind 1 of the cases) */
    static const char *const chain_name[5] = { "add", "mul", "div", "sqrt", "fma" };
    const unsigned n = CHUNK;
    for (unsigned j = 0; j < n; j++) soft_f64_case(1 + 12 * (uint64_t)j, &cases[j]);
    CUDA_OK(cudaMemcpy(dcases, cases, n * sizeof(SoftF64Case), cudaMemcpyHostToDevice));
    cudaEvent_t t0, t1;
    CUDA_OK(cudaEventCreate(&t0));
    CUDA_OK(cudaEventCreate(&t1));
    const int iters = 64;
    for (int op = 0; op < 5; op++) {
        soft_f64_chain<<<n / 128, 128>>>(op, dcases, dout, n, 4); /* warm-up */
        CUDA_OK(cudaEventRecord(t0));
        soft_f64_chain<<<n / 128, 128>>>(op, dcases, dout, n, iters);
        CUDA_OK(cudaEventRecord(t1));
        CUDA_OK(cudaEventSynchronize(t1));
        float ms = 0;
        CUDA_OK(cudaEventElapsedTime(&ms, t0, t1));
        printf("  %-5s %.2f Gop/s (%u threads x %d dependent operations in %.2f ms)\n",
               chain_name[op], (double)n * iters / (ms * 1e-3) / 1e9, n, iters, ms);
    }
    cudaFree(dcases);
    cudaFree(dout);
    free(cases);
    free(out);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
