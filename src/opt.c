#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

static int set_bool(bool *dst, const char *val)
{
    if (!strcmp(val, "true")) *dst = true;
    else if (!strcmp(val, "false")) *dst = false;
    else return -EINVAL;
    return 0;
}

/* The whole text is one decimal number: no blank, no trailing garbage ("3abc"). */
static int parse_number(const char *val, double *out)
{
    if (!*val || strspn(val, "0123456789+-.eE") != strlen(val)) return -EINVAL; /* no inf, nan, hex */
    char *end;
    const double n = strtod(val, &end);
    if (*end || end == val) return -EINVAL;
    *out = n;
    return 0;
}

/*
 * Integers are read as integers, not through atoi of a float's text: the dictionary stores
 * numbers as "%g" (4294967299 becomes "4.29497e+09"), so an integral value in %g form is
 * accepted, a fraction or anything out of range is refused.
 */
static int set_int(int *dst, const char *val, double min, double max)
{
    double n;
    if (parse_number(val, &n)) return -EINVAL;
    if (!(n >= min && n <= max) || n != floor(n) || n < INT_MIN || n > INT_MAX) return -EINVAL;
    *dst = (int)n;
    return 0;
}

static int set_double(double *dst, const char *val, double min, double max)
{
    double n;
    if (parse_number(val, &n)) return -EINVAL;
    if (!(n >= min && n <= max)) return -EINVAL;
    *dst = n;
    return 0;
}

int vmaf_option_set(const VmafOption *opt, void *obj, const char *val)
{
    if (!opt || !obj) return -EINVAL;
    void *dst = (char *)obj + opt->offset;

    switch (opt->type) {
    case VMAF_OPT_TYPE_BOOL:
        *(bool *)dst = opt->default_val.b;
        return val ? set_bool(dst, val) : 0;
    case VMAF_OPT_TYPE_INT:
        *(int *)dst = opt->default_val.i;
        return val ? set_int(dst, val, opt->min, opt->max) : 0;
    case VMAF_OPT_TYPE_DOUBLE:
        *(double *)dst = opt->default_val.d;
        return val ? set_double(dst, val, opt->min, opt->max) : 0;
    case VMAF_OPT_TYPE_STRING:
        *(const char **)dst = val ? val : opt->default_val.s;
        return 0;
    }
    return -EINVAL;
}

int vmaf_option_is_default(const VmafOption *opt, const void *obj)
{
    const void *src = (const char *)obj + opt->offset;
    switch (opt->type) {
    case VMAF_OPT_TYPE_BOOL: return *(const bool *)src == opt->default_val.b;
    case VMAF_OPT_TYPE_INT: return *(const int *)src == opt->default_val.i;
    case VMAF_OPT_TYPE_DOUBLE: return *(const double *)src == opt->default_val.d;
    case VMAF_OPT_TYPE_STRING: {
        const char *s = *(const char *const *)src;
        return s && opt->default_val.s && !strcmp(s, opt->default_val.s);
    }
    }
    return 0;
}

int vmaf_option_format(const VmafOption *opt, const void *obj, char *buf, size_t buf_sz)
{
    const void *src = (const char *)obj + opt->offset;
    int n = -1;
    switch (opt->type) {
    case VMAF_OPT_TYPE_BOOL: n = snprintf(buf, buf_sz, "%s", *(const bool *)src ? "true" : "false"); break;
    case VMAF_OPT_TYPE_INT: n = snprintf(buf, buf_sz, "%d", *(const int *)src); break;
    case VMAF_OPT_TYPE_DOUBLE: n = snprintf(buf, buf_sz, "%g", *(const double *)src); break;
    case VMAF_OPT_TYPE_STRING: n = snprintf(buf, buf_sz, "%s", *(const char *const *)src); break;
    }
    return (n < 0 || (size_t)n >= buf_sz) ? -EINVAL : 0;
}
