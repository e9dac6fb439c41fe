// exact_sum on the GPU (feature/cuda/exact_sum.cuh) against the serial float loop, bit for
// bit, on the sequences of tests/core/test_exact_sum.c (--cases short ones, --long of 11M terms,
// and with --long two planes of 16.8M and 43.3M terms that span several pages of tiles);
// then the time of one reduction of 11M psnr_hvs-like terms, and of a 4:2:0 frame's three
// planes, replayed from CUDA graphs (--reps times).
//
//   exact_sum_gpu_test [--seed N] [--cases N] [--long N] [--reps N]
// Built by CMake where nvcc is found (tests/checktwin/CMakeLists.txt) and run by ctest as
// exact_sum_gpu (skipped without a device). By hand, from the repository root (add
// -DEXACT_SUM_PROFILE for a profile of the walk):
//   nvcc -O2 -std=c++17 -arch=sm_90 --fmad=false -Xcompiler -ffp-contract=off -Isrc -Iinclude \
//        -Itests -o exact_sum_gpu_test tests/checktwin/exact_sum_gpu_test.cu
//
// Cases go to the device one, two or three at a time (one launch pair reduces up to three
// arrays, as psnr_hvs's Y/Cb/Cr would). Exit 1 on any mismatch (printing the seed, case and
// size), 77 without a CUDA device.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXACT_SUM_TEST_NO_MAIN
#include "../core/test_exact_sum.c"
#include "feature/cuda/exact_sum.cuh"

#define CUDA_OK(call)                                                                    \
    do {                                                                                 \
        const cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                           \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* What the host glue does through the recorder: two launches on one stream. */
static cudaError_t es_enqueue(const ExactSumCudaArgs *a, cudaStream_t stream)
{
    unsigned long long tiles = 0;
    for (unsigned i = 0; i < a->n_arrays; i++)
        if (exact_sum_tiles(a->n[i]) > tiles) tiles = exact_sum_tiles(a->n[i]);
    if (tiles)
        vmaf_exact_sum_tiles<<<dim3((unsigned)tiles, a->n_arrays), EXACT_SUM_TILES_THREADS, 0,
                               stream>>>(*a);
    vmaf_exact_sum_walk<<<a->n_arrays, EXACT_SUM_WALK_THREADS, 0, stream>>>(*a);
    return cudaGetLastError();
}

static size_t es_align(size_t v)
{
    return (v + 255) & ~(size_t)255;
}

typedef struct Device {
    float *terms[EXACT_SUM_MAX_ARRAYS];
    unsigned char *scratch[EXACT_SUM_MAX_ARRAYS];
    float *result;
    float *host_terms[EXACT_SUM_MAX_ARRAYS]; /* pinned */
    float *host_result;
} Device;

static int es_same_or_both_nan(float a, float b)
{
    /* NaN payloads are the hardware's (x86 and CUDA differ); only terms outside the contract
     * can produce a NaN. */
    return es_same(a, b) || (isnan(a) && isnan(b));
}

int main(int argc, char **argv)
{
    uint64_t seed = 20240611;
    unsigned cases = 3000, long_cases = 5, reps = 50;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--long") && i + 1 < argc) long_cases = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = (unsigned)atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--seed N] [--cases N] [--long N] [--reps N]\n", argv[0]);
            return 2;
        }
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("exact_sum gpu: no CUDA device, skipped\n");
        return 77;
    }

    /* 11M: a 4K luma plane of psnr_hvs terms; the huge ones span several pages of tiles
     * (more than EXACT_SUM_PAGE * EXACT_SUM_TILE = 16.8M terms; 43M is an 8K plane). */
    const size_t long_n = 11000000;
    const size_t huge_n[2] = { (size_t)EXACT_SUM_PAGE * EXACT_SUM_TILE + 12345, 43300000 };
    const size_t cap = huge_n[1];
    Device d;
    for (int i = 0; i < EXACT_SUM_MAX_ARRAYS; i++) {
        CUDA_OK(cudaMalloc((void **)&d.terms[i], cap * sizeof(float)));
        CUDA_OK(cudaMalloc((void **)&d.scratch[i], es_align(exact_sum_scratch_bytes(cap))));
        CUDA_OK(cudaMallocHost((void **)&d.host_terms[i], cap * sizeof(float)));
    }
    CUDA_OK(cudaMalloc((void **)&d.result, EXACT_SUM_MAX_ARRAYS * sizeof(float)));
    CUDA_OK(cudaMallocHost((void **)&d.host_result, EXACT_SUM_MAX_ARRAYS * sizeof(float)));
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    /* Scratch is never initialised by the kernels' contract: start from garbage. */
    for (int i = 0; i < EXACT_SUM_MAX_ARRAYS; i++)
        CUDA_OK(cudaMemset(d.scratch[i], 0xa5, es_align(exact_sum_scratch_bytes(cap))));

    unsigned sequences = 0, mismatches = 0;
    const unsigned total = cases + long_cases;
    for (unsigned i = 0; i < total;) {
        /* 1, 2 or 3 arrays per launch */
        const unsigned group = 1 + (i / 7) % 3;
        ExactSumCudaArgs a;
        memset(&a, 0, sizeof(a));
        ExactSumCase c[EXACT_SUM_MAX_ARRAYS];
        float want[EXACT_SUM_MAX_ARRAYS];
        unsigned index[EXACT_SUM_MAX_ARRAYS];
        while (a.n_arrays < group && i < total) {
            const unsigned k = a.n_arrays;
            index[k] = i;
            c[k] = i < cases ? es_case_make(seed, i) : es_case_long(seed, i - cases, long_n);
            es_case_fill(&c[k], d.host_terms[k]);
            want[k] = vmaf_exact_sum_serial(d.host_terms[k], c[k].n, c[k].acc0);
            CUDA_OK(cudaMemcpyAsync(d.terms[k], d.host_terms[k], c[k].n * sizeof(float),
                                    cudaMemcpyHostToDevice, stream));
            a.terms[k] = (unsigned long long)(uintptr_t)d.terms[k];
            a.n[k] = c[k].n;
            a.scratch[k] = (unsigned long long)(uintptr_t)d.scratch[k];
            a.acc0[k] = c[k].acc0;
            a.n_arrays++;
            i++;
        }
        a.result = (unsigned long long)(uintptr_t)d.result;
        CUDA_OK(cudaMemsetAsync(d.result, 0xff, EXACT_SUM_MAX_ARRAYS * sizeof(float), stream));
        CUDA_OK(es_enqueue(&a, stream));
        CUDA_OK(cudaMemcpyAsync(d.host_result, d.result, a.n_arrays * sizeof(float),
                                cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        for (unsigned k = 0; k < a.n_arrays; k++) {
            sequences++;
            const float got = d.host_result[k];
            if (!es_same_or_both_nan(want[k], got)) {
                if (mismatches++ < 20)
                    fprintf(stderr,
                            "MISMATCH base seed %llu case %u (seed %llu, %s, n %zu, acc0 %a, array "
                            "%u of %u): serial %a (0x%08x), gpu %a (0x%08x)\n",
                            (unsigned long long)seed, index[k], (unsigned long long)c[k].seed,
                            es_kind_name[c[k].kind], c[k].n, c[k].acc0, k, a.n_arrays, want[k],
                            vmaf_bits_of_float(want[k]), got, vmaf_bits_of_float(got));
            }
        }
    }
    for (unsigned h = 0; h < (long_cases ? 2u : 0u); h++) {
        ExactSumCase c = es_case_long(seed, 5 * (h + 1), huge_n[h]); /* psnr-like */
        es_case_fill(&c, d.host_terms[0]);
        const float want = vmaf_exact_sum_serial(d.host_terms[0], c.n, c.acc0);
        CUDA_OK(cudaMemcpyAsync(d.terms[0], d.host_terms[0], c.n * sizeof(float),
                                cudaMemcpyHostToDevice, stream));
        ExactSumCudaArgs a;
        memset(&a, 0, sizeof(a));
        a.terms[0] = (unsigned long long)(uintptr_t)d.terms[0];
        a.n[0] = c.n;
        a.scratch[0] = (unsigned long long)(uintptr_t)d.scratch[0];
        a.acc0[0] = c.acc0;
        a.n_arrays = 1;
        a.result = (unsigned long long)(uintptr_t)d.result;
        CUDA_OK(es_enqueue(&a, stream));
        CUDA_OK(cudaMemcpyAsync(d.host_result, d.result, sizeof(float), cudaMemcpyDeviceToHost,
                                stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        sequences++;
        if (!es_same_or_both_nan(want, d.host_result[0])) {
            mismatches++;
            fprintf(stderr, "MISMATCH base seed %llu huge case %u (seed %llu, %s, n %zu): serial "
                    "0x%08x, gpu 0x%08x\n", (unsigned long long)seed, h,
                    (unsigned long long)c.seed, es_kind_name[c.kind], c.n, vmaf_bits_of_float(want),
                    vmaf_bits_of_float(d.host_result[0]));
        }
    }
    printf("exact_sum gpu: %u sequences, %u mismatches\n", sequences, mismatches);

    /* Timing: one psnr_hvs-like plane of 11M terms, from a graph, and each kernel alone. */
    if (reps) {
        ExactSumCase c = es_case_long(seed, 0, long_n); /* ES_PSNR */
        es_case_fill(&c, d.host_terms[0]);
        const float want = vmaf_exact_sum_serial(d.host_terms[0], c.n, c.acc0);
        CUDA_OK(cudaMemcpy(d.terms[0], d.host_terms[0], c.n * sizeof(float),
                           cudaMemcpyHostToDevice));
        ExactSumCudaArgs a;
        memset(&a, 0, sizeof(a));
        a.terms[0] = (unsigned long long)(uintptr_t)d.terms[0];
        a.n[0] = c.n;
        a.scratch[0] = (unsigned long long)(uintptr_t)d.scratch[0];
        a.acc0[0] = c.acc0;
        a.n_arrays = 1;
        a.result = (unsigned long long)(uintptr_t)d.result;

        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        CUDA_OK(es_enqueue(&a, stream));
        CUDA_OK(cudaStreamEndCapture(stream, &graph));
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        cudaEvent_t e0, e1, e2;
        CUDA_OK(cudaEventCreate(&e0));
        CUDA_OK(cudaEventCreate(&e1));
        CUDA_OK(cudaEventCreate(&e2));
        CUDA_OK(cudaGraphLaunch(exec, stream)); /* warm up */
        CUDA_OK(cudaEventRecord(e0, stream));
        for (unsigned r = 0; r < reps; r++) CUDA_OK(cudaGraphLaunch(exec, stream));
        CUDA_OK(cudaEventRecord(e1, stream));
        CUDA_OK(cudaMemcpyAsync(d.host_result, d.result, sizeof(float), cudaMemcpyDeviceToHost,
                                stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        float graph_ms;
        CUDA_OK(cudaEventElapsedTime(&graph_ms, e0, e1));
        if (!es_same(want, d.host_result[0])) {
            mismatches++;
            fprintf(stderr, "MISMATCH (graph, %zu psnr-like terms): serial 0x%08x, gpu 0x%08x\n",
                    c.n, vmaf_bits_of_float(want), vmaf_bits_of_float(d.host_result[0]));
        }
        /* the two kernels separately */
        float tiles_ms = 0.f, walk_ms = 0.f;
        for (unsigned r = 0; r < reps; r++) {
            float ms;
            CUDA_OK(cudaEventRecord(e0, stream));
            vmaf_exact_sum_tiles<<<dim3((unsigned)exact_sum_tiles(c.n), 1),
                                   EXACT_SUM_TILES_THREADS, 0, stream>>>(a);
            CUDA_OK(cudaEventRecord(e1, stream));
            vmaf_exact_sum_walk<<<1, EXACT_SUM_WALK_THREADS, 0, stream>>>(a);
            CUDA_OK(cudaEventRecord(e2, stream));
            CUDA_OK(cudaEventSynchronize(e2));
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            tiles_ms += ms;
            CUDA_OK(cudaEventElapsedTime(&ms, e1, e2));
            walk_ms += ms;
        }
#ifdef EXACT_SUM_PROFILE
        {
            unsigned long long prof[12] = { 0 };
            CUDA_OK(cudaMemcpyToSymbol(exact_sum_profile, prof, sizeof(prof)));
            vmaf_exact_sum_walk<<<1, EXACT_SUM_WALK_THREADS, 0, stream>>>(a);
            CUDA_OK(cudaStreamSynchronize(stream));
            CUDA_OK(cudaMemcpyFromSymbol(prof, exact_sum_profile, sizeof(prof)));
            printf("exact_sum gpu profile: %llu page scans, %llu cycles (fetch+publish %llu, "
                   "combine+scan %llu, find %llu; %llu fetches); %llu tiles walked, %llu cycles "
                   "(%llu block rounds, %llu warp rounds)\n", prof[0], prof[1], prof[5], prof[7],
                   prof[8], prof[6], prof[2], prof[3], prof[4], prof[11]);
        }
#endif
        ExactSumStats st;
        vmaf_exact_sum_binade_stats(d.host_terms[0], c.n, c.acc0, &st);
        printf("exact_sum gpu: %zu psnr-like terms: %.1f us per reduction (graph of %u); "
               "tiles kernel %.1f us, walk kernel %.1f us; %llu of %llu tiles walked\n",
               c.n, 1000.f * graph_ms / reps, reps, 1000.f * tiles_ms / reps,
               1000.f * walk_ms / reps, (unsigned long long)st.tiles_walked,
               (unsigned long long)exact_sum_tiles(c.n));
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));

        /* A 4:2:0 frame's three planes in one launch pair (walks run side by side). */
        const size_t chroma_n = long_n / 4;
        float chroma_want[2];
        for (int k = 1; k < 3; k++) {
            ExactSumCase cc = es_case_long(seed, 0, chroma_n);
            cc.seed += (uint64_t)k;
            es_case_fill(&cc, d.host_terms[k]);
            chroma_want[k - 1] = vmaf_exact_sum_serial(d.host_terms[k], cc.n, cc.acc0);
            CUDA_OK(cudaMemcpy(d.terms[k], d.host_terms[k], cc.n * sizeof(float),
                               cudaMemcpyHostToDevice));
            a.terms[k] = (unsigned long long)(uintptr_t)d.terms[k];
            a.n[k] = cc.n;
            a.scratch[k] = (unsigned long long)(uintptr_t)d.scratch[k];
            a.acc0[k] = cc.acc0;
        }
        a.n_arrays = 3;
        CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        CUDA_OK(es_enqueue(&a, stream));
        CUDA_OK(cudaStreamEndCapture(stream, &graph));
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        CUDA_OK(cudaGraphLaunch(exec, stream));
        CUDA_OK(cudaEventRecord(e0, stream));
        for (unsigned r = 0; r < reps; r++) CUDA_OK(cudaGraphLaunch(exec, stream));
        CUDA_OK(cudaEventRecord(e1, stream));
        CUDA_OK(cudaMemcpyAsync(d.host_result, d.result, 3 * sizeof(float), cudaMemcpyDeviceToHost,
                                stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        CUDA_OK(cudaEventElapsedTime(&graph_ms, e0, e1));
        for (int k = 0; k < 3; k++) {
            const float w = k ? chroma_want[k - 1] : want;
            if (!es_same(w, d.host_result[k])) {
                mismatches++;
                fprintf(stderr, "MISMATCH (graph, 3 planes, plane %d): serial 0x%08x, gpu 0x%08x\n",
                        k, vmaf_bits_of_float(w), vmaf_bits_of_float(d.host_result[k]));
            }
        }
        printf("exact_sum gpu: 3 planes (%zu + 2 x %zu terms) in one launch pair: %.1f us\n", c.n,
               chroma_n, 1000.f * graph_ms / reps);
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
    }
    return mismatches ? 1 : 0;
}
