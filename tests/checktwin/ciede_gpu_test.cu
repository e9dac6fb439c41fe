// ciede's building blocks (xmath.h, xpowf.h, ciede.h) on the device vs the host, bit for bit,
// on 2^20 random inputs each; exit 1 on any difference, 77 without a CUDA device. All of them
// agree (grid-edge triples and atan2 at signed zeros included), so a difference between the
// twin's and the CPU's ciede scores lies in the twin's plumbing (samples, chroma, arguments,
// sum), not in this arithmetic.
//
// Built by CMake where nvcc is found (tests/checktwin/CMakeLists.txt) and run by ctest as
// ciede_gpu (skipped without a device). By hand, from the repository root:
//   nvcc -O2 -std=c++17 -arch=sm_90 --fmad=false -Xcompiler -ffp-contract=off -Isrc \
//        -Isrc/feature -Iinclude -o ciede_gpu_test tests/checktwin/ciede_gpu_test.cu
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include "feature/ciede_device.h"

enum { F_EXP, F_POW24, F_POW13, F_SIN, F_COS, F_ATAN2, F_XPOWF7, F_LAB, F_DE2000, F_DE2000_SPECIAL, F_ATAN2_SPECIAL, F_N };
static const char *names[F_N] = { "xm_exp", "xm_pow(c,2.4)", "xm_pow(t,1/3)", "xm_sin", "xm_cos",
                                  "xm_atan2", "xpowf(x,7)", "ciede_lab 8-bit", "ciede2000",
                                  "ciede2000 edges", "xm_atan2 zeros" };

__host__ __device__ double eval(int f, double a, double b, double c, double d, double e, double g)
{
    switch (f) {
    case F_EXP: return vmaf_xm_exp(a);
    case F_POW24: return vmaf_xm_pow(a, 2.4);
    case F_POW13: return vmaf_xm_pow(a, 1.0 / 3.0);
    case F_SIN: return vmaf_xm_sin(a);
    case F_COS: return vmaf_xm_cos(a);
    case F_ATAN2: case F_ATAN2_SPECIAL: return vmaf_xm_atan2(a, b);
    case F_XPOWF7: return (double)vmaf_xpowf((float)a, 7.0f);
    case F_LAB: { VmafCiedeLab l = vmaf_ciede_lab(a, b, c, 8); return (double)l.l + 1e3 * l.a + 1e6 * l.b; }
    default: {
        VmafCiedeLab p = vmaf_ciede_lab(a, b, c, 8), q = vmaf_ciede_lab(d, e, g, 8);
        return (double)vmaf_ciede2000(p, q);
    }
    }
}

__global__ void kern(int f, const double *in, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = eval(f, in[6 * i], in[6 * i + 1], in[6 * i + 2], in[6 * i + 3], in[6 * i + 4], in[6 * i + 5]);
}

static double rnd(uint64_t *s) { *s = *s * 6364136223846793005ull + 1442695040888963407ull; return (double)(*s >> 11) * 0x1p-53; }

int main()
{
    int n_dev = 0;
    if (cudaGetDeviceCount(&n_dev) != cudaSuccess || n_dev == 0) {
        printf("ciede_gpu_test: no CUDA device, skipped\n");
        return 77;
    }
    const int n = 1 << 20;
    double *in = (double *)malloc(6 * n * sizeof(double)), *out = (double *)malloc(n * sizeof(double));
    double *din, *dout;
    cudaMalloc(&din, 6 * n * sizeof(double)); cudaMalloc(&dout, n * sizeof(double));
    uint64_t s = 12345;
    long total = 0;
    for (int f = 0; f < F_N; f++) {
        for (int i = 0; i < n; i++) {
            double *v = in + 6 * i;
            for (int k = 0; k < 6; k++) v[k] = rnd(&s);
            switch (f) {
            case F_EXP: v[0] = -10 + 11 * v[0]; break;
            case F_SIN: case F_COS: v[0] = 7 * v[0]; break;
            case F_ATAN2: v[0] = 256 * v[0] - 128; v[1] = 256 * v[1] - 128; break;
            case F_XPOWF7: v[0] = 128 * v[0]; break;
            case F_LAB: case F_DE2000: for (int k = 0; k < 6; k++) v[k] = (double)(int)(v[k] * 256); break;
            case F_DE2000_SPECIAL: {
                /* triples on the grid edges and the neutral axis, where atan2, the hue
                 * branches and the achromatic cases are taken */
                static const double q[] = { 0, 1, 16, 127, 128, 129, 235, 240, 254, 255 };
                for (int k = 0; k < 6; k++) v[k] = (k % 3 == 0) ? (double)(int)(v[k] * 256) : q[(int)(v[k] * 10)];
                break;
            }
            case F_ATAN2_SPECIAL: {
                static const double z[] = { 0.0, -0.0, 1e-30, -1e-30, 1.0, -1.0, 128.0, -128.0 };
                v[0] = z[(int)(v[0] * 8)]; v[1] = z[(int)(v[1] * 8)];
                if (v[2] < 0.5) v[0] = 256 * v[3] - 128;
                break;
            }
            default: break;
            }
        }
        cudaMemcpy(din, in, 6 * n * sizeof(double), cudaMemcpyHostToDevice);
        kern<<<(n + 255) / 256, 256>>>(f, din, dout, n);
        cudaError_t e = cudaMemcpy(out, dout, n * sizeof(double), cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) { printf("cuda error %s\n", cudaGetErrorString(e)); return 1; }
        int bad = 0, shown = 0;
        for (int i = 0; i < n; i++) {
            const double *v = in + 6 * i;
            double h = eval(f, v[0], v[1], v[2], v[3], v[4], v[5]);
            if (memcmp(&h, &out[i], 8)) {
                if (shown++ < 3) printf("  %s(%.17g, %.17g, %.17g | %.17g %.17g %.17g): host %.17g dev %.17g\n", names[f], v[0], v[1], v[2], v[3], v[4], v[5], h, out[i]);
                bad++;
            }
        }
        printf("%-18s %d of %d differ\n", names[f], bad, n);
        total += bad;
    }
    return total != 0;
}
