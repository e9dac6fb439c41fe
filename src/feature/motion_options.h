/*
 * The options the motion extractors share ("motion", "motion_v2" and "float_motion"), defined
 * once: each extractor's option table places them at its own field offsets, so that a name,
 * alias, range or default cannot drift between the integer and the float extractor.
 */
#ifndef VMAF_FEATURE_MOTION_OPTIONS_H
#define VMAF_FEATURE_MOTION_OPTIONS_H

#include <stdbool.h>

#include "opt.h"

/** Default of motion_max_val, also its upper bound. */
#define VMAF_MOTION_DEFAULT_MAX_VAL 10000.0

/** debug: also write the per-frame motion score (the float extractor writes it by default). */
#define VMAF_MOTION_OPTION_DEBUG(field_offset, default_on)                                     \
    {                                                                                          \
        .name = "debug", .help = "also write the per-frame motion score",                      \
        .offset = (field_offset), .type = VMAF_OPT_TYPE_BOOL, .default_val.b = (default_on),   \
    }

#define VMAF_MOTION_OPTION_FORCE_ZERO(field_offset)                                            \
    {                                                                                          \
        .name = "motion_force_zero", .alias = "force_0",                                       \
        .help = "write a motion score of zero for every frame", .offset = (field_offset),      \
        .type = VMAF_OPT_TYPE_BOOL, .default_val.b = false,                                    \
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                                                  \
    }

#define VMAF_MOTION_OPTION_BLEND_FACTOR(field_offset)                                          \
    {                                                                                          \
        .name = "motion_blend_factor", .alias = "mbf",                                         \
        .help = "weight of the score against min(offset, score) in motion3",                   \
        .offset = (field_offset), .type = VMAF_OPT_TYPE_DOUBLE, .default_val.d = 1.0,          \
        .min = 0.0, .max = 1.0, .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                          \
    }

#define VMAF_MOTION_OPTION_BLEND_OFFSET(field_offset)                                          \
    {                                                                                          \
        .name = "motion_blend_offset", .alias = "mbo",                                         \
        .help = "score above which blending pulls motion3 down", .offset = (field_offset),     \
        .type = VMAF_OPT_TYPE_DOUBLE, .default_val.d = 40.0, .min = 0.0, .max = 1000.0,        \
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                                                  \
    }

#define VMAF_MOTION_OPTION_FPS_WEIGHT(field_offset)                                            \
    {                                                                                          \
        .name = "motion_fps_weight", .alias = "mfw",                                           \
        .help = "multiplier on the per-frame score (frame-rate correction)",                   \
        .offset = (field_offset), .type = VMAF_OPT_TYPE_DOUBLE, .default_val.d = 1.0,          \
        .min = 0.0, .max = 5.0, .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                          \
    }

#define VMAF_MOTION_OPTION_MAX_VAL(field_offset)                                               \
    {                                                                                          \
        .name = "motion_max_val", .alias = "mmxv", .help = "clip scores to at most this value", \
        .offset = (field_offset), .type = VMAF_OPT_TYPE_DOUBLE,                                \
        .default_val.d = VMAF_MOTION_DEFAULT_MAX_VAL, .min = 0.0,                              \
        .max = VMAF_MOTION_DEFAULT_MAX_VAL, .flags = VMAF_OPT_FLAG_FEATURE_PARAM,              \
    }

#endif /* VMAF_FEATURE_MOTION_OPTIONS_H */
