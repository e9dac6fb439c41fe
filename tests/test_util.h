/* Shared by the standalone unit tests of every folder: a counting CHECK, the bit patterns of
 * floats and doubles, a seeded xorshift generator and splitmix64, a reference reflection and
 * the synthetic frame patterns. Also compiles as C++ (nvcc builds test files that include it
 * into the device tests; test_splitmix64 runs in their kernels too). */
#ifndef VMAF_TESTS_TEST_UTIL_H
#define VMAF_TESTS_TEST_UTIL_H

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/picture.h"

/* The type of the counts below: int, or a wider one that a test defines before including this
 * header where a run can pass 2^31 checks (the exhaustive modes). */
#ifndef TEST_COUNT
#define TEST_COUNT int
#endif

static TEST_COUNT failures, checks;

/* How many failures CHECK prints; later ones are only counted. A test where one broken
 * stage fails thousands of checks defines a lower cap before including this header. */
#ifndef TEST_MAX_PRINTED
#define TEST_MAX_PRINTED INT_MAX
#endif

/* Count a check; on failure print where, what, and a printf-style explanation. */
#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        checks++;                                                                        \
        if (!(cond) && failures++ < TEST_MAX_PRINTED) {                                  \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                       \
            printf(__VA_ARGS__);                                                         \
            printf("\n");                                                                \
        }                                                                                \
    } while (0)

/* vmaf_read_pictures(), and after a failure the release of the pictures it left with the
 * caller: as in reference libvmaf, a failed read may leave them there (their ref still set). */
static inline int read_pictures_or_release(VmafContext *v, VmafPicture *ref, VmafPicture *dist,
                                     unsigned index)
{
    const int err = vmaf_read_pictures(v, ref, dist, index);
    if (err && ref && ref->ref) vmaf_picture_unref(ref);
    if (err && dist && dist->ref) vmaf_picture_unref(dist);
    return err;
}

/* The bit pattern of a double or a float, and back (memcpy: no aliasing, the same in C and
 * C++; the library's vmaf_bits_of_float etc. live in src/feature/bitcast.h, which not every
 * test's include path reaches). */
static inline uint64_t test_bits_of_double(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    return u;
}

static inline double test_double_of_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof(d));
    return d;
}

static inline uint32_t test_bits_of_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float test_float_of_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static uint64_t rng_state;

/* xorshift64; seed by assigning rng_state (nonzero) */
static inline uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* Every sample of an 8-bit picture's planes drawn by rng() from seed (rng_state reseeded:
 * the same seed, the same picture). */
static inline void test_picture_fill8(VmafPicture *p, uint64_t seed)
{
    rng_state = 0x9e3779b97f4a7c15ull ^ seed;
    for (unsigned c = 0; c < 3; c++)
        for (unsigned y = 0; y < p->h[c]; y++)
            for (unsigned x = 0; x < p->w[c]; x++)
                ((uint8_t *)p->data[c])[y * p->stride[c] + x] = (uint8_t)(rng() >> 8);
}

/* 64 random bits: two rng() draws, the first one the high half */
static inline uint64_t rng64(void)
{
    const uint64_t hi = rng();
    return hi << 32 | rng();
}

#if defined(__CUDACC__)
#define TEST_HOST_DEVICE __host__ __device__
#else
#define TEST_HOST_DEVICE
#endif

/* splitmix64: steps *state (any seed) and returns its next output. Besides the tests that
 * keep a generator state, the device tests draw the i-th operand as test_splitmix64 of a
 * local copy of first + i, the same on the host and in their kernels. */
TEST_HOST_DEVICE static inline uint64_t test_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Reflect until inside [0, n), without repeating the edge sample; n = 1 gives 0. Written as
 * a loop, apart from the library's periodic formula (src/feature/reflect.h), to check it. */
static inline int test_reflect(int i, int n)
{
    if (n == 1)
        return 0;
    while (i < 0 || i >= n) {
        if (i < 0)
            i = -i;
        if (i >= n)
            i = 2 * (n - 1) - i;
    }
    return i;
}

/* Synthetic ref/dis pairs of the VIF tests (and their twins). */
enum PairPattern {
    PAIR_RANDOM,    /* both uniform over the full range */
    PAIR_NEAR,      /* dis = ref + small noise, ref smooth with texture */
    PAIR_AMPLIFIED, /* dis = ref with doubled contrast: gains above 1 */
    PAIR_EXTREME,   /* each sample 0 or max */
    PAIR_SAME,      /* identical textured frames */
    PAIR_FLAT,      /* identical flat frames */
    PAIR_MAX,       /* ref all max, dis max or one below: the largest sums */
    PAIR_COUNT,
};

static const char *const pair_pattern_name[PAIR_COUNT] = {
    "random", "near", "amplified", "extreme", "same", "flat", "max",
};

/* The ref and dis samples at (i, j) of pattern pat for samples up to max, clamped to
 * [0, max]; flat is the frame's flat value (drawn by the caller before the first sample).
 * Draws from rng() in the same order for every sample. */
static inline void test_pattern_pair(enum PairPattern pat, int32_t max, int32_t flat, unsigned i,
                                     unsigned j, int32_t *ref, int32_t *dis)
{
    /* a smooth wave plus texture, in [0, max] */
    const int32_t wave = (int32_t)((max / 2) * (1 + sin(j * 0.37 + i * 0.11)) / 2) +
                         (int32_t)(rng() % (uint32_t)(max / 2 + 1));
    int32_t r, d;
    switch (pat) {
    case PAIR_RANDOM:
        r = (int32_t)(rng() % (uint32_t)(max + 1));
        d = (int32_t)(rng() % (uint32_t)(max + 1));
        break;
    case PAIR_NEAR:
        r = wave;
        d = wave + (int32_t)(rng() % (uint32_t)(max / 16 + 1)) - max / 32;
        break;
    case PAIR_AMPLIFIED:
        r = max / 4 + wave / 2;
        d = 2 * (r - max / 2) + max / 2;
        break;
    case PAIR_EXTREME:
        r = rng() & 1 ? max : 0;
        d = rng() & 1 ? max : 0;
        break;
    case PAIR_SAME:
        r = d = wave;
        break;
    case PAIR_MAX:
        r = max;
        d = max - (int32_t)(rng() & 1);
        break;
    default:
        r = d = flat;
        break;
    }
    *ref = r < 0 ? 0 : r > max ? max : r;
    *dis = d < 0 ? 0 : d > max ? max : d;
}

/* An 8-bit 4:2:0 picture of w x h (even) from packed I420 bytes. */
static inline int test_i420_picture(VmafPicture *pic, const uint8_t *src, unsigned w, unsigned h)
{
    int err = vmaf_picture_alloc(pic, VMAF_PIX_FMT_YUV420P, 8, w, h);
    if (err) return err;
    for (unsigned p = 0; p < 3; p++) {
        const unsigned pw = p ? w / 2 : w, ph = p ? h / 2 : h;
        const uint8_t *plane = src + (p ? w * h + (p - 1) * (w / 2) * (h / 2) : 0);
        for (unsigned y = 0; y < ph; y++)
            memcpy((uint8_t *)pic->data[p] + y * pic->stride[p], plane + y * pw, pw);
    }
    return 0;
}

/* A whole file, NUL-terminated (length in *len); NULL when it cannot be read. */
static inline char *test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? (char *)malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    *len = n >= 0 ? (size_t)n : 0;
    return buf;
}

#endif /* VMAF_TESTS_TEST_UTIL_H */
