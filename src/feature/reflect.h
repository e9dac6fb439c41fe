/*
 * Twin VMAF — the reflect-101 index of every filter that mirrors at plane edges (motion,
 * integer VIF, the float extractors, SpEED), valid C11 and CUDA, so the CPU extractors and
 * their twins share one definition.
 */
#ifndef VMAF_FEATURE_REFLECT_H
#define VMAF_FEATURE_REFLECT_H

#include "dialect.h"

/**
 * Reflect index i into [0, n) without repeating the edge sample: ... 2 1 | 0 1 ... n-1 |
 * n-2 ... For |overshoot| < n this is the single reflection the reference uses; beyond it
 * (planes narrower than the filter, where the reference reads outside the plane) the
 * reflection repeats periodically, so every index is defined. n = 1 gives 0.
 */
VMAF_DEVICE_FN int vmaf_reflect101(int i, int n)
{
    if (i >= 0 && i < n)
        return i;
    if (n == 1)
        return 0;
    const int period = 2 * (n - 1);
    i %= period;
    if (i < 0)
        i += period;
    return i < n ? i : period - i;
}

#endif /* VMAF_FEATURE_REFLECT_H */
