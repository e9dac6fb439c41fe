/* Shared by the standalone unit tests: a counting CHECK and a seeded xorshift generator. */
#ifndef VMAF_TESTS_TEST_UTIL_H
#define VMAF_TESTS_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>

static int failures, checks;

/* Count a check; on failure print where, what, and a printf-style explanation. */
#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        checks++;                                                                        \
        if (!(cond)) {                                                                   \
            failures++;                                                                  \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                       \
            printf(__VA_ARGS__);                                                         \
            printf("\n");                                                                \
        }                                                                                \
    } while (0)

static uint64_t rng_state;

/* xorshift64; seed by assigning rng_state (nonzero) */
static inline uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

#endif /* VMAF_TESTS_TEST_UTIL_H */
