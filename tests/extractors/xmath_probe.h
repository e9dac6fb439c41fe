/*
 * Twin VMAF — the entry points of tests/extractors/xmath_probe.c, once per build of it
 * (plain_*: vmaf_double is double; soft_*: the software binary64). Doubles as bit patterns.
 */
#ifndef VMAF_TESTS_XMATH_PROBE_H
#define VMAF_TESTS_XMATH_PROBE_H

#include <stdint.h>

typedef struct XmProbeLab {
    float l, a, b;
} XmProbeLab;

#define XMATH_PROBE_DECLARE(p)                                                                 \
    uint64_t p##_exp(uint64_t x);                                                              \
    uint64_t p##_pow(uint64_t x, uint64_t y);                                                  \
    uint64_t p##_sin(uint64_t x);                                                              \
    uint64_t p##_cos(uint64_t x);                                                              \
    uint64_t p##_atan2(uint64_t y, uint64_t x);                                                \
    XmProbeLab p##_lab(uint64_t y, uint64_t u, uint64_t v, unsigned bpc);                      \
    float p##_ciede2000(XmProbeLab p_, XmProbeLab q_);                                         \
    float p##_hue(float b, float a);                                                           \
    float p##_delta_hue(float c1, float c2, float h1, float h2);                               \
    float p##_mean_hue(float h1, float h2);                                                    \
    float p##_t(float h);                                                                      \
    float p##_theta(float h);                                                                  \
    float p##_rotation(float c, float h);                                                      \
    int p##_is_soft(void);

XMATH_PROBE_DECLARE(plain)
XMATH_PROBE_DECLARE(soft)

#endif /* VMAF_TESTS_XMATH_PROBE_H */
