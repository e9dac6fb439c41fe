/*
 * seq_sum: the parallel serial double sum (feature/seq_sum_device.h) against the loop
 * `double s = 0.; for (k...) s += x[k];`, bit for bit (memcmp), on seeded arrays built to break
 * it: zeros and -0, ciede-like values, magnitudes 2^-149..2^100, deliberate ties in the
 * running sum's binade (single and in runs, both parities), sums landing exactly on powers of
 * two and ties just below them, elements larger than the sum so far, a huge first element
 * then tiny ones, subnormals, NaN/inf/negative elements (the loop takes over), every length
 * around the thread segment and chunk sizes, and 8.3M-element arrays (random, ties, and the
 * real ciede differences of four jetty frames when argv[1] names the clips directory). And
 * the pieces: the integer rule of one element against a real double addition, the cheap
 * segment maps against the composed element maps, associativity of the composition. And
 * that the method is exercised (crossings, tie segments) rather than the fallback.
 *
 *   test_seq_sum [CLIPS_DIR] [--seed N]
 *
 * tests/checktwin/seq_sum_gpu_test.cu includes this file (SEQ_SUM_TEST_NO_MAIN) to feed the
 * GPU the same arrays. Built with -DSEQ_SUM_TEST_MUTANT=1 or 2 (ctest seq_sum_mutant*) the
 * header breaks the tie rule, and this test must fail. Built with -D VMAF_F64_SOFT_ON_HOST=1
 * (ctest seq_sum_soft) the header's doubles are the software binary64, as in an OpenCL program
 * without fp64: segment maps by the integer rule, the walk in software additions.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/seq_sum_device.h"

#define TEST_MAX_PRINTED 20
#include "test_util.h"

typedef struct SsRng {
    uint64_t s;
} SsRng;

static uint64_t ss_next(SsRng *r)
{
    return test_splitmix64(&r->s);
}

static uint32_t ss_below(SsRng *r, uint32_t n) /* n >= 1 */
{
    return (uint32_t)(ss_next(r) % n);
}

static double ss_uniform(SsRng *r) /* [0, 1) */
{
    return (double)(ss_next(r) >> 11) * (1. / 9007199254740992.);
}

/** A float with a random significand of magnitude 2^[lo, hi). */
static float ss_log_uniform(SsRng *r, int lo, int hi)
{
    const int e = lo + (int)ss_below(r, (uint32_t)(hi - lo));
    return ldexpf((float)(1. + ss_uniform(r)), e);
}

/** u / 2 of the running sum's binade (0 if s is 0). */
static double ss_half_unit(double s)
{
    if (s == 0.) return 0.;
    int e;
    frexp(s, &e); /* s in [2^(e-1), 2^e) */
    return ldexp(1., e - 1 - 53);
}

/** v rounded to a float, +-inf beyond the float range (never an out-of-range conversion). */
static float ss_narrow(double v)
{
    return fabs(v) <= 3.4028234663852886e38 ? (float)v : v > 0 ? INFINITY : -INFINITY;
}

/** v as a float if exactly representable and finite, else a fallback. */
static float ss_exact_or(double v, float fallback)
{
    const float f = ss_narrow(v);
    return (double)f == v && isfinite(f) ? f : fallback;
}

/** A tie in the binade of s: (2q + 1) u / 2, q random with a random bit length. */
static float ss_tie(SsRng *r, double s, float fallback)
{
    const double h = ss_half_unit(s);
    if (h == 0.) return fallback;
    const int bits = 1 + (int)ss_below(r, 23);
    const uint32_t m = ((uint32_t)ss_next(r) & ((1u << bits) - 1)) | 1u;
    return ss_exact_or((double)m * h, fallback);
}

enum SsKind {
    SS_ZEROS,      /* +0 and -0 only */
    SS_CIEDE,      /* 30% zeros, else [0, 60): what ciede writes */
    SS_RANGE,      /* magnitudes 2^-149 .. 2^100, 20% zeros */
    SS_TIES,       /* ties of the running sum (runs of them), between ciede-like values */
    SS_FEW_BITS,   /* odd * 2^k: ties in many binades, for both parities */
    SS_BOUNDARY,   /* sums driven onto powers of two, ties and half units around them */
    SS_GROWTH,     /* elements larger than the sum so far */
    SS_HUGE_FIRST, /* 2^100 or FLT_MAX first, then tiny ones and ties of that scale */
    SS_SUBNORMAL,  /* subnormal floats, a few small normals, and their ties */
    SS_BAD,        /* ciede-like with a NaN, an inf or a negative somewhere: the loop's case */
    SS_KINDS
};

static const char *const ss_kind_name[SS_KINDS] = { "zeros",  "ciede",  "range",    "ties",
                                                     "few_bits", "boundary", "growth",
                                                     "huge_first", "subnormal", "bad" };

/** Fill x[0..n) with an array of the given kind (the serial sum is followed to aim ties). */
static void ss_fill(SsRng *r, int kind, float *x, size_t n)
{
    double s = 0.;
    const size_t bad_at = n ? ss_below(r, (uint32_t)n) : 0;
    for (size_t k = 0; k < n; k++) {
        const float ciede = ss_below(r, 10) < 3 ? 0.f : (float)(ss_uniform(r) * 60.);
        float v = 0.f;
        switch (kind) {
        case SS_ZEROS: v = ss_below(r, 2) ? 0.f : -0.f; break;
        case SS_CIEDE: v = ciede; break;
        case SS_RANGE: v = ss_below(r, 5) ? ss_log_uniform(r, -149, 100) : 0.f; break;
        case SS_TIES: {
            const uint32_t c = ss_below(r, 16);
            v = c < 9 ? ss_tie(r, s, ciede) : c < 11 ? 0.f : ciede;
            break;
        }
        case SS_FEW_BITS: {
            const uint32_t m = ((uint32_t)ss_next(r) & ((1u << (1 + ss_below(r, 6))) - 1)) | 1u;
            v = ss_below(r, 8) ? ss_exact_or(ldexp((double)m, (int)ss_below(r, 60) - 40), 1.f)
                               : ss_tie(r, s, 0.f);
            break;
        }
        case SS_BOUNDARY: {
            /* the gap to the binade's top, then hits on it, just below it, half units */
            const double h = ss_half_unit(s), top = s == 0. ? 1. : 2. * ldexp(1., ilogb(s));
            const double gap = top - s;
            const uint32_t c = ss_below(r, 8);
            if (s == 0.) v = ss_log_uniform(r, -10, 10);
            else if (c == 0) v = ss_exact_or(gap, ss_narrow(gap));               /* exactly onto it */
            else if (c == 1) v = ss_exact_or(gap - h, 0.f);                 /* tie: rounds up */
            else if (c == 2) v = ss_exact_or(gap - 3. * h, 0.f);            /* tie below */
            else if (c == 3) v = ss_exact_or(gap + h, 0.f);                 /* past it */
            else if (c == 4) v = ss_exact_or(h, 0.f);                       /* half a unit */
            else if (c == 5) v = ss_narrow(gap * (1. - ldexp(1., -30)));      /* almost */
            else v = ss_tie(r, s, ciede);
            break;
        }
        case SS_GROWTH: {
            const double g = s == 0. ? 1. : s * (1. + ss_uniform(r) * ldexp(1., (int)ss_below(r, 20)));
            v = ss_below(r, 4) ? (g < 1e38 ? (float)g : 1e38f) : ss_tie(r, s, ciede);
            break;
        }
        case SS_HUGE_FIRST:
            if (k == 0) v = ss_below(r, 2) ? ldexpf(1.f, 100) : 3.40282347e38f;
            else v = ss_below(r, 4) ? ss_log_uniform(r, -100, 20) : ss_tie(r, s, 1.f);
            break;
        case SS_SUBNORMAL: {
            /* ties of subnormal size need a sum in [2^-96, 2^-95): start there half the time */
            const uint32_t c = k == 0 && ss_below(r, 2) ? 8 : ss_below(r, 8);
            v = c == 8  ? ss_log_uniform(r, -96, -95)
                : c < 5 ? vmaf_float_of_bits(1u + ss_below(r, 0x7fffffu))
                : c < 6 ? ss_log_uniform(r, -126, -120)
                : c < 7 ? ss_tie(r, s, 0.f)
                        : 0.f;
            break;
        }
        case SS_BAD:
            v = ciede;
            if (k == bad_at) {
                const uint32_t c = ss_below(r, 4);
                v = c == 0 ? vmaf_float_of_bits(0x7fc00000u) : c == 1 ? vmaf_float_of_bits(0x7f800000u)
                    : c == 2 ? -1.5f : vmaf_float_of_bits(0xff800000u);
            }
            break;
        }
        if (kind != SS_BAD && (v != v || isinf(v))) v = 0.f; /* gaps beyond the float range */
        x[k] = v;
        s += (double)v;
    }
}

/** Lengths around the segment and chunk sizes, then random ones. */
static size_t ss_length(SsRng *r, unsigned i)
{
    const size_t fixed[] = { 0, 1, 2, 3, SEQ_SUM_K - 1, SEQ_SUM_K, SEQ_SUM_K + 1,
                             32 * SEQ_SUM_K - 1, 32 * SEQ_SUM_K + 1, SEQ_SUM_CHUNK - 1,
                             SEQ_SUM_CHUNK, SEQ_SUM_CHUNK + 1, 2 * SEQ_SUM_CHUNK + 7,
                             3 * SEQ_SUM_CHUNK - SEQ_SUM_K };
    const unsigned n_fixed = sizeof(fixed) / sizeof(fixed[0]);
    if (i < n_fixed) return fixed[i];
    return ss_below(r, 4 * SEQ_SUM_CHUNK) + 1;
}

#ifndef SEQ_SUM_TEST_NO_MAIN
#include "feature/ciede_device.h"
#include "libvmaf/picture.h"

#include "test_twin_run.h"

/* The host's doubles in and out of the header's vmaf_double (the software binary64 in the
 * build with VMAF_F64_SOFT_ON_HOST, f64.h). */
static vmaf_double ss_vd(double d)
{
    return vmaf_dof_bits(test_bits_of_double(d));
}

static double ss_hd(vmaf_double d)
{
    return vmaf_double_of_bits(vmaf_dbits(d));
}

/* A random state: a positive normal double of exponent field 1023 + [-180, 180). */
static double ss_state_value(SsRng *r)
{
    const uint64_t exp = (uint64_t)(1023 - 180 + (int)ss_below(r, 360));
    const uint64_t frac = ss_next(r) & ((UINT64_C(1) << 52) - 1);
    const uint64_t b = exp << 52 | (ss_below(r, 4) ? frac : ss_below(r, 3) ? (UINT64_C(1) << 52) - 1 - ss_below(r, 8) : ss_below(r, 8));
    return test_double_of_bits(b);
}

/* An element to try against a state s: ties of s, gaps to its top, random magnitudes. */
static float ss_probe(SsRng *r, double s)
{
    const double h = ss_half_unit(s), gap = 2. * ldexp(1., ilogb(s)) - s;
    switch (ss_below(r, 8)) {
    case 0: return ss_tie(r, s, 0.f);
    case 1: return ss_exact_or(gap - h, ss_narrow(gap));
    case 2: return ss_exact_or(gap, ss_narrow(gap));
    case 3: return ss_exact_or(gap + h, ss_narrow(gap));
    case 4: return vmaf_float_of_bits(ss_below(r, 0x7f800000u));
    case 5: return vmaf_float_of_bits(ss_below(r, 0x7fffffu));
    case 6: return ss_exact_or(h * (double)ss_below(r, 5), 0.f);
    default: return ss_exact_or(s * ldexp(ss_uniform(r), -(int)ss_below(r, 60)), ss_narrow(h));
    }
}

/* 1. The integer rule of one element against the real double addition. */
static void test_elements(SsRng *r, unsigned cases)
{
    unsigned ties = 0, crossings = 0;
    for (unsigned i = 0; i < cases; i++) {
        const double s = ss_state_value(r);
        const float x = ss_probe(r, s);
        SeqSumState st;
        if (!seq_sum_state_of(ss_vd(s), &st) || x != x || x < 0.f || isinf(x)) continue;
        const SeqSumMap m = seq_sum_elem(vmaf_bits_of_float(x), st.exp);
        const uint64_t end = seq_sum_apply(m, st.units);
        const double real = s + (double)x;
        const int stays = test_bits_of_double(real) < seq_sum_top_bits(st.exp);
        ties += m.r[0] != m.r[1];
        crossings += !stays;
        CHECK(stays == (end < SEQ_SUM_TOP), "s %a x %a: units %llu + %llu", s, (double)x,
                 (unsigned long long)st.units, (unsigned long long)m.r[st.units & 1]);
        if (stays && end < SEQ_SUM_TOP) {
            SeqSumState after = { end, st.exp };
            CHECK(test_bits_of_double(ss_hd(seq_sum_value(after))) == test_bits_of_double(real),
                  "s %a x %a: %a, not %a", s, (double)x, ss_hd(seq_sum_value(after)), real);
        }
    }
    /* s = +0: nonzero elements cross, zeros stay */
    const SeqSumState z = seq_sum_zero();
    CHECK(seq_sum_apply(seq_sum_elem(vmaf_bits_of_float(1e-45f), z.exp), 0) >= SEQ_SUM_TOP, "zero");
    CHECK(seq_sum_apply(seq_sum_elem(vmaf_bits_of_float(-0.f), z.exp), 0) == 0, "zero");
    CHECK(ties > cases / 20 && crossings > cases / 20, "%u ties, %u crossings: probes too tame",
             ties, crossings);
    printf("elements: %u cases (%u ties, %u crossings)\n", cases, ties, crossings);
}

/* 2. Segment maps by double chains against the composed element maps; associativity. */
static void test_segments(SsRng *r, unsigned cases)
{
    SeqSumMap prev[2] = { seq_sum_identity(), seq_sum_identity() };
    unsigned ties = 0, saturated = 0;
    for (unsigned i = 0; i < cases; i++) {
        float v[SEQ_SUM_K];
        const int kind = (int)ss_below(r, SS_BAD); /* valid kinds */
        double s = ss_below(r, 16) ? ss_state_value(r) : 0.;
        SeqSumState st = seq_sum_zero();
        seq_sum_state_of(ss_vd(s), &st);
        if (ss_below(r, 2)) {
            for (int j = 0; j < SEQ_SUM_K; j++) v[j] = ss_probe(r, s != 0. ? s : 1.);
        } else {
            ss_fill(r, kind, v, SEQ_SUM_K);
            if (kind == SS_TIES || kind == SS_BOUNDARY) /* aim at this state instead */
                for (int j = 0; j < SEQ_SUM_K; j++)
                    if (ss_below(r, 2)) v[j] = ss_tie(r, s, v[j]);
        }
        for (int j = 0; j < SEQ_SUM_K; j++)
            if (!(v[j] >= 0.f) || isinf(v[j])) v[j] = 0.f;
        const int first = (int)ss_below(r, SEQ_SUM_K + 2) - 1, count = (int)ss_below(r, SEQ_SUM_K + 1);
        int bad;
        const SeqSumMap sim = seq_sum_segment_map(v, first, count, st.exp, &bad);
        const SeqSumMap exact = seq_sum_segment_map_exact(v, first, count, st.exp);
        CHECK(!bad, "segment %u flagged bad", i);
        for (int p = 0; p < 2; p++) {
            const uint64_t want = exact.r[p] < (UINT64_C(1) << 52) - (uint64_t)p ? exact.r[p] : SEQ_SUM_TOP;
            CHECK(sim.r[p] == want, "segment %u (exp %d) parity %d: %llu, composed %llu", i,
                     st.exp, p, (unsigned long long)sim.r[p], (unsigned long long)exact.r[p]);
        }
        ties += exact.r[0] != exact.r[1];
        saturated += sim.r[0] == SEQ_SUM_TOP;
        /* associativity, on maps of one exponent (as the kernel combines them) */
        const SeqSumMap a = seq_sum_combine(seq_sum_combine(prev[0], prev[1]), sim);
        const SeqSumMap b = seq_sum_combine(prev[0], seq_sum_combine(prev[1], sim));
        CHECK(!memcmp(&a, &b, sizeof a), "segment %u: not associative", i);
        const SeqSumMap c = seq_sum_combine(seq_sum_combine(exact, prev[1]), prev[0]);
        const SeqSumMap d = seq_sum_combine(exact, seq_sum_combine(prev[1], prev[0]));
        CHECK(!memcmp(&c, &d, sizeof c), "segment %u: not associative", i);
        prev[0] = prev[1];
        prev[1] = ss_below(r, 2) ? sim : exact;
    }
    CHECK(ties > cases / 50 && saturated > cases / 50, "%u ties, %u saturated: too tame", ties,
             saturated);
    printf("segments: %u cases (%u with ties, %u saturated)\n", cases, ties, saturated);
}

static SeqSumMap *scan_scratch;
static SeqSumStats totals;
static unsigned arrays_differ;

/* 3. One whole array: the emulation against the loop. */
static int check_array(const float *x, size_t n, const char *what, unsigned i, uint64_t seed)
{
    SeqSumStats st;
    const double want = vmaf_seq_sum_serial(x, 0, n, 0.);
    const double got = vmaf_seq_sum_emulate(x, n, scan_scratch, &st);
    const int ok = !memcmp(&want, &got, sizeof want) && !st.errors;
    arrays_differ += !ok;
    CHECK(ok, "%s case %u (seed %llu, n %zu): loop %a, parallel %a (%llu errors)", what, i,
             (unsigned long long)seed, n, want, got, (unsigned long long)st.errors);
    totals.chunks += st.chunks;
    totals.passes += st.passes;
    totals.crossings += st.crossings;
    totals.fallbacks += st.fallbacks;
    totals.tie_segments += st.tie_segments;
    return ok;
}

static void test_arrays(uint64_t seed, unsigned per_kind)
{
    float *x = malloc(4 * SEQ_SUM_CHUNK * sizeof(float));
    if (!x) exit(2);
    unsigned cases = 0;
    for (int kind = 0; kind < SS_KINDS; kind++) {
        const SeqSumStats before = totals;
        for (unsigned i = 0; i < per_kind; i++) {
            SsRng r = { seed ^ ((uint64_t)kind << 40) ^ i };
            const size_t n = ss_length(&r, i);
            ss_fill(&r, kind, x, n);
            check_array(x, n, ss_kind_name[kind], i, seed);
            cases++;
        }
        const uint64_t fb = totals.fallbacks - before.fallbacks;
        if (kind == SS_BAD) CHECK(fb > per_kind / 2, "bad: %llu fallbacks", (unsigned long long)fb);
        else CHECK(fb == 0, "%s: %llu fallbacks", ss_kind_name[kind], (unsigned long long)fb);
        if (kind == SS_TIES || kind == SS_FEW_BITS || kind == SS_BOUNDARY || kind == SS_SUBNORMAL)
            CHECK(totals.tie_segments > before.tie_segments, "%s: no tie segments", ss_kind_name[kind]);
        if (kind != SS_ZEROS)
            CHECK(totals.crossings > before.crossings, "%s: no crossings", ss_kind_name[kind]);
    }
    free(x);
    printf("arrays: %u cases (%u differ), %llu chunks, %llu passes, %llu crossings, %llu tie "
           "segments, %llu fallbacks\n",
           cases, arrays_differ, (unsigned long long)totals.chunks, (unsigned long long)totals.passes,
           (unsigned long long)totals.crossings, (unsigned long long)totals.tie_segments,
           (unsigned long long)totals.fallbacks);
}

/* 4. 4K-sized arrays: random kinds, and real ciede differences (four jetty frames). */
static void test_large(uint64_t seed, const char *clips)
{
    const size_t n = (size_t)3840 * 2160;
    float *x = malloc(n * sizeof(float));
    if (!x) exit(2);
    static const int kinds[] = { SS_CIEDE, SS_TIES, SS_RANGE, SS_FEW_BITS };
    for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        SsRng r = { seed ^ 0x4b4b ^ i };
        ss_fill(&r, kinds[i], x, n);
        check_array(x, n, ss_kind_name[kinds[i]], 1000 + i, seed);
    }
    unsigned real = 0;
    if (clips) {
        VmafPicture ref, dis;
        int err = vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 1920, 1080);
        if (!err && vmaf_picture_alloc(&dis, VMAF_PIX_FMT_YUV420P, 8, 1920, 1080)) {
            vmaf_picture_unref(&ref);
            err = -1;
        }
        CHECK(!err, "picture alloc");
        for (unsigned f = 0; !err && f < 4; f++) {
            err = test_read_clip(clips, &ref, "jetty_1920x1080_420p", false, f) ||
                  test_read_clip(clips, &dis, "jetty_1920x1080_420p", true, f);
            CHECK(!err, "jetty frame %u", f);
            VmafCiedePlanes pr, pd;
            for (int k = 0; k < 3; k++) {
                pr.data[k] = ref.data[k];
                pd.data[k] = dis.data[k];
                pr.stride[k] = pd.stride[k] = (size_t)ref.stride[k];
                pr.w[k] = pd.w[k] = ref.w[k];
                pr.h[k] = pd.h[k] = ref.h[k];
            }
            float *d = x + (size_t)f * 1920 * 1080;
            for (unsigned i = 0; !err && i < 1080; i++)
                for (unsigned j = 0; j < 1920; j++)
                    d[(size_t)i * 1920 + j] = vmaf_ciede_pixel(&pr, &pd, 8, VMAF_CIEDE_420, i, j);
            if (!err) { /* each frame alone, as the twin sums it */
                check_array(d, (size_t)1920 * 1080, "jetty frame", f, 0);
                real++;
            }
        }
        if (!err) {
            const SeqSumStats before = totals;
            check_array(x, n, "jetty x4 (4K)", 0, 0);
            printf("jetty x4 (4K): %llu chunks, %llu passes, %llu crossings\n",
                   (unsigned long long)(totals.chunks - before.chunks),
                   (unsigned long long)(totals.passes - before.passes),
                   (unsigned long long)(totals.crossings - before.crossings));
            real++;
            vmaf_picture_unref(&ref);
            vmaf_picture_unref(&dis);
        }
    }
    free(x);
    printf("large: 4 random arrays of %zu, %u of real differences%s; %u arrays differ in all\n",
           n, real, clips ? "" : " (no clips directory given)", arrays_differ);
}

int main(int argc, char **argv)
{
    const char *clips = NULL;
    uint64_t seed = 20261201;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else clips = argv[i];
    }
    scan_scratch = malloc(2 * SEQ_SUM_THREADS * sizeof(SeqSumMap));
    if (!scan_scratch) return 2;
    SsRng r = { seed };
    test_elements(&r, 400000);
    test_segments(&r, 200000);
    test_arrays(seed, 40);
    test_large(seed, clips);
    free(scan_scratch);
    printf("seq_sum (seed %llu): %d checks, %d failures\n", (unsigned long long)seed, checks, failures);
    return failures != 0;
}
#endif /* SEQ_SUM_TEST_NO_MAIN */
