/* Extractor options: a table of typed fields inside the extractor's private state. */
#ifndef VMAF_SRC_OPT_H
#define VMAF_SRC_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum VmafOptionType {
    VMAF_OPT_TYPE_BOOL,
    VMAF_OPT_TYPE_INT,
    VMAF_OPT_TYPE_DOUBLE,
    VMAF_OPT_TYPE_STRING,
};

enum VmafOptionFlag {
    /** The option takes part in the output feature name when it differs from its default. */
    VMAF_OPT_FLAG_FEATURE_PARAM = 1 << 0,
};

typedef struct VmafOption {
    const char *name;
    const char *alias;   /**< short name used in suffixes, or NULL */
    const char *help;
    size_t offset;       /**< of the field in the extractor's private state */
    enum VmafOptionType type;
    union {
        bool b;
        int i;
        double d;
        const char *s;
    } default_val;
    double min, max;     /**< inclusive range for INT and DOUBLE */
    uint64_t flags;
} VmafOption;

/**
 * Store the option's value (val, or its default when val is NULL) into obj.
 * Bools accept only "true"/"false"; ints and doubles must be one whole decimal number
 * (ints integral, "%g" form accepted), range-checked; anything else is -EINVAL.
 * STRING fields point into val, which must outlive obj.
 * @return 0 or -EINVAL
 */
int vmaf_option_set(const VmafOption *opt, void *obj, const char *val);

/** 1 if the field in obj equals the option's default, 0 if not. */
int vmaf_option_is_default(const VmafOption *opt, const void *obj);

/** Print the field's value as the naming rule does (%d, %g, string, true/false). */
int vmaf_option_format(const VmafOption *opt, const void *obj, char *buf, size_t buf_sz);

#endif /* VMAF_SRC_OPT_H */
