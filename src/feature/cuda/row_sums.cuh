// Serial float sums of the rows of a plane (acc = 0; acc += term(i, j) for j = 0 .. w-1), as
// one thread per row computes them, but with coalesced loads: a block of
// FLOAT_ROW_SUM_THREADS threads takes FLOAT_ROW_SUM_ROWS rows; for each chunk of
// FLOAT_ROW_SUM_THREADS columns, thread t computes the terms of column t of every row of the
// group into shared memory, then thread r adds row r's terms of the chunk in column order.
// The additions, their order and their operands are those of the one-thread-per-row loop, so
// the sums keep their bits; the loads become whole rows per warp instead of one sample of 32
// rows, and the terms are computed by the whole block.
#ifndef VMAF_FEATURE_CUDA_ROW_SUMS_CUH
#define VMAF_FEATURE_CUDA_ROW_SUMS_CUH

#include "feature/twins/kernel_args.h"

// Terms: void operator()(unsigned i, unsigned j, float out[N]) const, the N terms of (i, j).
// Grid: ceil(h / FLOAT_ROW_SUM_ROWS) blocks of FLOAT_ROW_SUM_THREADS; out[q][i] = sum q of row i.
template <int N, class Terms>
__device__ void vmaf_row_sums(unsigned w, unsigned h, const Terms &terms, float *const out[N])
{
    __shared__ float tile[N][FLOAT_ROW_SUM_ROWS][FLOAT_ROW_SUM_THREADS + 1];
    const unsigned t = threadIdx.x, row0 = blockIdx.x * FLOAT_ROW_SUM_ROWS;
    if (row0 >= h) return;
    const unsigned rows = min((unsigned)FLOAT_ROW_SUM_ROWS, h - row0);
    float acc[N];
    for (int q = 0; q < N; q++) acc[q] = 0.0f;
    for (unsigned c0 = 0; c0 < w; c0 += FLOAT_ROW_SUM_THREADS) {
        const unsigned n = min((unsigned)FLOAT_ROW_SUM_THREADS, w - c0);
        if (t < n) {
            for (unsigned r = 0; r < rows; r++) {
                float v[N];
                terms(row0 + r, c0 + t, v);
                for (int q = 0; q < N; q++) tile[q][r][t] = v[q];
            }
        }
        __syncthreads();
        if (t < rows) {
            for (unsigned k = 0; k < n; k++)
                for (int q = 0; q < N; q++) acc[q] += tile[q][t][k];
        }
        __syncthreads();
    }
    if (t < rows)
        for (int q = 0; q < N; q++) out[q][row0 + t] = acc[q];
}

#endif
