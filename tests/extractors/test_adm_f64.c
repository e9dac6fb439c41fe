/*
 * The integer ADM's per-element forms without fp64 (adm.h, adm_device.h under
 * VMAF_DOUBLE_SOFT) against the double forms the CPU and CUDA compile, bit for bit: the same
 * source built twice (adm_f64_side.c: plain_* with the double, soft_* with
 * VMAF_F64_SOFT_ON_HOST), on random inputs of every range and on constructed edge cases:
 * angle tests close to the 1-degree boundary (where the float filter defers to the software
 * double), gains with short and full significands, rint ties, the int32 clamp, every divisor
 * of the reciprocal and every band size up to 2^20 for the regions.
 *   test_adm_f64 [--count N]   (N random cases per function, default 2^21)
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_MAX_PRINTED 20
#define TEST_COUNT long long /* a large --count passes 2^31 checks */
#include "test_util.h"

#define SIDE_DECLS(side)                                                                       \
    int side##_angle(int32_t oh, int32_t ov, int32_t th, int32_t tv, int vector,               \
                     uint64_t cos2);                                                           \
    int32_t side##_enhanced(int32_t o, int32_t r, int32_t t, uint64_t gain, int vector);        \
    int32_t side##_explained0(int32_t o, int32_t t, int close, uint64_t gain, int vector);      \
    int32_t side##_explained123(int32_t o, int32_t t, int close, uint64_t gain, int vector);    \
    int32_t side##_reciprocal(int32_t d);                                                      \
    void side##_regions(int w, int h, int out[8]);
SIDE_DECLS(plain)
SIDE_DECLS(soft)

static double unit(void) { return (double)(rng64() >> 11) / 9007199254740992.0; }

/* got (soft) == want (double), both printed on failure */
#define SAME(what, got, want, fmt, ...)                                                        \
    do {                                                                                       \
        const long long got_ = (got), want_ = (want);                                          \
        CHECK(got_ == want_, what ": soft %lld, double %lld: " fmt, got_, want_, __VA_ARGS__); \
    } while (0)

/* a value of up to `bits` bits (magnitude 2^(0..bits)), either sign */
static int32_t value(int bits)
{
    const int b = (int)(rng64() % (uint64_t)(bits + 1));
    const int64_t m = b ? (int64_t)(rng64() & ((1ull << b) - 1)) : 0;
    const int64_t v = rng64() & 1 ? -m : m;
    return (int32_t)(v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v);
}

static int32_t clamp_to(double x, int bits)
{
    const double lim = ldexp(1.0, bits) - 1;
    return (int32_t)(x > lim ? lim : x < -lim - 1 ? -lim - 1 : x);
}

/* The float filter of vmaf_adm_angle_close_f() (adm_device.h): whether this case is decided
 * by the software double (counted, so that the test shows it reaches that path). */
static int deferred(int32_t oh, int32_t ov, int32_t th, int32_t tv, int vector, float c)
{
    float fd, fa, fb;
    if (vector) {
        fd = (float)(int32_t)((uint32_t)(oh * th) + (uint32_t)(ov * tv));
        fa = (float)(int32_t)((uint32_t)(oh * oh) + (uint32_t)(ov * ov));
        fb = (float)(int32_t)((uint32_t)(th * th) + (uint32_t)(tv * tv));
    } else {
        fd = (float)((int64_t)oh * th + (int64_t)ov * tv);
        fa = (float)((int64_t)oh * oh + (int64_t)ov * ov);
        fb = (float)((int64_t)th * th + (int64_t)tv * tv);
    }
    const float lf = fd * fd, rf = c * fa * fb;
    if (!(fd >= 0.0f) || !(rf > 0.0f)) return 0;
    const int32_t lb = (int32_t)test_bits_of_float(lf), rb = (int32_t)test_bits_of_float(rf);
    return lb - rb < 4 && rb - lb < 4;
}

static void test_angle(unsigned long n)
{
    const float c = (float)(cos(M_PI / 180.0) * cos(M_PI / 180.0)); /* vmaf_adm_cos2_1deg() */
    const uint64_t cos2[2] = { test_bits_of_double((double)c),
                               test_bits_of_double(0.99969541350954794) /* no float */ };
    const double theta = acos(sqrt((double)c));
    unsigned long near = 0, defer = 0;
    for (unsigned long i = 0; i < n; i++) {
        const int vector = (int)(i & 1), scale0 = vector || (i & 2);
        const int bits = scale0 ? 15 : 31;
        const uint64_t cb = cos2[(i & 12) == 12];
        int32_t v[4];
        if (i % 3) { /* near the boundary: t is o turned by about 1 degree */
            const double r1 = ldexp(1.0 + unit(), (int)(rng64() % (uint64_t)bits));
            const double r2 = ldexp(1.0 + unit(), (int)(rng64() % (uint64_t)bits));
            const double phi = 2 * M_PI * unit();
            const double jitter = ldexp(unit() - 0.5, -(int)(4 + rng64() % 40));
            const double turn = (rng64() & 1 ? 1 : -1) * theta * (1 + jitter);
            v[0] = clamp_to(nearbyint(r1 * cos(phi)), bits);
            v[1] = clamp_to(nearbyint(r1 * sin(phi)), bits);
            v[2] = clamp_to(nearbyint(r2 * cos(phi + turn)), bits);
            v[3] = clamp_to(nearbyint(r2 * sin(phi + turn)), bits);
            near++;
        } else {
            for (int k = 0; k < 4; k++) v[k] = value(bits);
        }
        defer += cb == cos2[0] && deferred(v[0], v[1], v[2], v[3], vector, c);
        SAME("angle", soft_angle(v[0], v[1], v[2], v[3], vector, cb),
             plain_angle(v[0], v[1], v[2], v[3], vector, cb),
             "o (%d, %d) t (%d, %d) vector %d cos2 %a", v[0], v[1], v[2], v[3], vector,
             test_double_of_bits(cb));
    }
    /* the extremes: int16 and int32 limits (wrapping dot products); not INT32_MIN, whose
     * square twice overflows the int64 sums of both forms (ADM's coefficients stay far
     * inside the int32 range) */
    static const int32_t ext[] = { 0, 1, -1, 32767, -32768, 32766, INT32_MAX, -INT32_MAX, 46341 };
    const unsigned ne = sizeof(ext) / sizeof(ext[0]);
    for (unsigned a = 0; a < ne; a++)
        for (unsigned b = 0; b < ne; b++)
            for (unsigned d = 0; d < ne; d++)
                for (unsigned e = 0; e < ne; e++)
                    for (int vector = 0; vector < 2; vector++) {
                        const int32_t o_h = ext[a], o_v = ext[b], t_h = ext[d], t_v = ext[e];
                        if (vector && (o_h != (int16_t)o_h || o_v != (int16_t)o_v ||
                                       t_h != (int16_t)t_h || t_v != (int16_t)t_v))
                            continue;
                        SAME("angle (extreme)", soft_angle(o_h, o_v, t_h, t_v, vector, cos2[0]),
                             plain_angle(o_h, o_v, t_h, t_v, vector, cos2[0]),
                             "o (%d, %d) t (%d, %d) vector %d", o_h, o_v, t_h, t_v, vector);
                    }
    printf("angle: %lu cases (%lu near the boundary, %lu deferred to the software double)\n",
           n, near, defer);
}

/* gains: the models' (100, 1), short decimals, full significands, powers of two and the
 * edges of the integer form's range (2^-42, 2^20) and beyond */
static double gain_of(unsigned long i)
{
    static const double fixed[] = { 100.0, 1.0, 1.2, 1.5, 2.75, 3.0, 99.99, 7.0 / 3.0, 0.5,
                                    0x1p-42, 0x1.fffffp-43, 0x1.fffffp19, 0x1p20, 1e6, 1e-13,
                                    0x1.000002p0, 0x1.00001p0, 0x1.fffffp6, 64.0, 0.1 };
    const unsigned nf = sizeof(fixed) / sizeof(fixed[0]);
    switch (i % 4) {
    case 0: return fixed[(i / 4) % nf];
    case 1: return 1.0 + 99.0 * unit(); /* a full significand */
    case 2: return ldexp((double)(1 + rng64() % (1u << 21)), -(int)(rng64() % 24)); /* short */
    default: return ldexp(1.0 + unit(), (int)(rng64() % 70) - 45);
    }
}

static void test_enhanced(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        const double gain = gain_of(i);
        const uint64_t g = test_bits_of_double(gain);
        const int vector = (int)((i >> 2) & 1);
        int32_t r = value(i & 8 ? 16 : 31), t = value(31), o = value(31);
        if ((i & 48) == 16) { /* a rint tie: r odd, gain k + 1/2 */
            r |= 1;
        } else if ((i & 48) == 32) { /* t near gain * r */
            const double gr = gain * r;
            if (fabs(gr) < 2147483647.0) t = (int32_t)gr + (int32_t)(rng64() % 3) - 1;
        }
        SAME("enhanced", soft_enhanced(o, r, t, g, vector), plain_enhanced(o, r, t, g, vector),
             "o %d r %d t %d gain %a vector %d", o, r, t, gain, vector);
        const int close = (int)((i >> 6) & 1) | ((i & 3) != 0);
        const int32_t o16 = value(15), t16 = value(15);
        SAME("explained0", soft_explained0(o16, t16, close, g, vector),
             plain_explained0(o16, t16, close, g, vector), "o %d t %d gain %a vector %d", o16,
             t16, gain, vector);
        SAME("explained123", soft_explained123(o, t, close, g, vector),
             plain_explained123(o, t, close, g, vector), "o %d t %d gain %a vector %d", o, t,
             gain, vector);
    }
    /* rint ties and the clamp for the models' gains, r around the int32 limits */
    static const double gains[] = { 100.0, 1.0, 1.5, 2.5, 0.5 };
    static const int32_t rs[] = { 1, -1, 3, -3, 5, -5, 21474836, -21474837, 21474837,
                                  INT32_MAX, INT32_MIN, 1431655765, -1431655765 };
    static const int32_t ts[] = { 0, 1, -1, 150, -150, INT32_MAX, INT32_MIN, 2147483600 };
    for (unsigned a = 0; a < sizeof(gains) / sizeof(gains[0]); a++)
        for (unsigned b = 0; b < sizeof(rs) / sizeof(rs[0]); b++)
            for (unsigned c = 0; c < sizeof(ts) / sizeof(ts[0]); c++)
                for (int vector = 0; vector < 2; vector++)
                    for (int so = -1; so <= 1; so += 2) {
                        const uint64_t g = test_bits_of_double(gains[a]);
                        SAME("enhanced (edge)", soft_enhanced(so, rs[b], ts[c], g, vector),
                             plain_enhanced(so, rs[b], ts[c], g, vector),
                             "o %d r %d t %d gain %g vector %d", so, rs[b], ts[c], gains[a],
                             vector);
                    }
    printf("enhanced, explained0, explained123: %lu cases each\n", n);
}

static void test_reciprocal_regions(void)
{
    for (int32_t d = 1; d <= 32768; d++) {
        SAME("reciprocal", soft_reciprocal(d), plain_reciprocal(d), "d %d", d);
        SAME("reciprocal", soft_reciprocal(-d), plain_reciprocal(-d), "d %d", -d);
    }
    unsigned long sizes = 0;
    for (int w = 0; w <= (1 << 20); w++) {
        const int h = (int)(rng64() % (1u << 20));
        int a[8], b[8];
        soft_regions(w, h, a);
        plain_regions(w, h, b);
        for (int k = 0; k < 8; k++)
            SAME("regions", a[k], b[k], "w %d h %d value %d", w, h, k);
        sizes++;
    }
    for (int i = 0; i < 100000; i++) { /* up to 2^31 - 1 */
        const int w = (int)(rng64() >> 33), h = (int)(rng64() % 10 * 10 + 5 + (rng64() >> 40));
        int a[8], b[8];
        soft_regions(w, h, a);
        plain_regions(w, h, b);
        for (int k = 0; k < 8; k++)
            SAME("regions", a[k], b[k], "w %d h %d value %d", w, h, k);
        sizes++;
    }
    printf("reciprocal: every divisor 1..32768 of both signs; regions: %lu sizes\n", sizes);
}

int main(int argc, char **argv)
{
    unsigned long n = 1ul << 21;
    if (argc == 3 && !strcmp(argv[1], "--count")) n = strtoul(argv[2], NULL, 10);
    rng_state = 0x2545f4914f6cdd1dull;
    test_angle(n);
    test_enhanced(n);
    test_reciprocal_regions();
    printf("%lld checks, %lld failed\n", checks, failures);
    return failures != 0;
}
