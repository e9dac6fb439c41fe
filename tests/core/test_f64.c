/*
 * feature/f64.h names the right operation: each vmaf_d* function against the C operation it
 * stands for, bit for bit, on random operands of every magnitude (normal, subnormal, huge,
 * zero, infinity, NaN). Built twice: with the plain double (what the CPU and CUDA compile) and
 * with -D VMAF_F64_SOFT_ON_HOST=1 (vmaf_double is the software binary64, as in an OpenCL
 * program built without fp64), so that a wrong mapping in either half fails. NaN results
 * compare as "is NaN" (payloads are the hardware's business; soft_f64 tests them).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "feature/f64.h"

#define TEST_MAX_PRINTED 20
#include "test_util.h"

/* an operand: exponent anywhere, near 1, or a small integer */
static double operand(void)
{
    switch (rng64() % 4) {
    case 0: return test_double_of_bits(rng64());
    case 1:
        return test_double_of_bits((rng64() & 0x800fffffffffffffull) |
                                   (uint64_t)(1013 + rng64() % 20) << 52);
    case 2: return (double)(int64_t)(rng64() % 2001) - 1000.0;
    default:
        return test_double_of_bits((rng64() & 0x800fffffffffffffull) |
                                   (uint64_t)(rng64() % 3) << 52);
    }
}

static vmaf_double in(double d) { return vmaf_dof_bits(test_bits_of_double(d)); }

static void same(const char *op, double a, double b, vmaf_double got, double want)
{
    const uint64_t g = vmaf_dbits(got), w = test_bits_of_double(want);
    CHECK(g == w || (isnan(want) && isnan(test_double_of_bits(g))),
          "%s(%a, %a) = 0x%016" PRIx64 ", not 0x%016" PRIx64, op, a, b, g, w);
}

static void same_int(const char *op, double a, long long got, long long want)
{
    CHECK(got == want, "%s(%a) = %lld, not %lld", op, a, got, want);
}

int main(void)
{
    rng_state = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 200000; i++) {
        const double a = operand(), b = operand(), c = operand();
        same("add", a, b, vmaf_dadd(in(a), in(b)), a + b);
        same("sub", a, b, vmaf_dsub(in(a), in(b)), a - b);
        same("mul", a, b, vmaf_dmul(in(a), in(b)), a * b);
        same("div", a, b, vmaf_ddiv(in(a), in(b)), a / b);
        same("sqrt", a, 0, vmaf_dsqrt(in(a)), sqrt(a));
        same("neg", a, 0, vmaf_dneg(in(a)), -a);
        same("abs", a, 0, vmaf_dabs(in(a)), fabs(a));
        same("fma", a, b, vmaf_dfma(in(a), in(b), in(c)), fma(a, b, c));
        same("rint", a, 0, vmaf_drint(in(a)), rint(a));
        same("trunc", a, 0, vmaf_dtrunc(in(a)), trunc(a));
        same("floor", a, 0, vmaf_dfloor(in(a)), floor(a));
        same("ceil", a, 0, vmaf_dceil(in(a)), ceil(a));
        const int n = (int)(rng64() % 200) - 100;
        same("ldexp", a, n, vmaf_dldexp(in(a), n), ldexp(a, n));
        int e1 = 0, e2 = 0;
        same("frexp", a, 0, vmaf_dfrexp(in(a), &e1), frexp(a, &e2));
        if (isfinite(a)) same_int("frexp exponent", a, e1, e2);
        same_int("lt", a, vmaf_dlt(in(a), in(b)), a < b);
        same_int("le", a, vmaf_dle(in(a), in(b)), a <= b);
        same_int("eq", a, vmaf_deq(in(a), in(b)), a == b);
        same_int("isnan", a, vmaf_disnan(in(a)), isnan(a) != 0);
        const float f = (float)a;
        same("from_float", f, 0, vmaf_dfrom_float(f), (double)f);
        const float got_f = vmaf_dto_float(in(a));
        same_int("to_float", a, (long long)test_bits_of_double((double)got_f) * !isnan(f),
                 (long long)test_bits_of_double((double)f) * !isnan(f));
        const int32_t i32 = (int32_t)rng64();
        const int64_t i64 = (int64_t)(rng64() >> (rng64() % 64));
        same("from_i32", i32, 0, vmaf_dfrom_i32(i32), (double)i32);
        same("from_u32", (uint32_t)i32, 0, vmaf_dfrom_u32((uint32_t)i32), (double)(uint32_t)i32);
        same("from_i64", (double)i64, 0, vmaf_dfrom_i64(i64), (double)i64);
        same("from_u64", (double)(uint64_t)i64, 0, vmaf_dfrom_u64((uint64_t)i64),
             (double)(uint64_t)i64);
        if (fabs(a) < 2147483647.0) same_int("to_i32", a, vmaf_dto_i32(in(a)), (int32_t)a);
        if (fabs(a) < 9.2e18) same_int("to_i64", a, vmaf_dto_i64(in(a)), (long long)(int64_t)a);
    }
    /* constants: the literal (plain double) or the bit pattern (software double) */
    same("VMAF_DCONST", 0.1, 0, VMAF_DCONST(0.1, 0x3fb999999999999a), 0.1);
    same("VMAF_DCONST", -2.5e-300, 0, VMAF_DCONST(-2.5e-300, 0x81bac9a7b3b7302f), -2.5e-300);
    printf("f64.h (%s double): %d checks, %d failed\n", VMAF_DOUBLE_SOFT ? "software" : "plain",
           checks, failures);
    return failures != 0;
}
