#include <errno.h>
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

static int set_int(int *dst, const char *val, double min, double max)
{
    const int n = atoi(val);
    if (n == 0 && val[0] != '0') return -EINVAL;
    if (n < min || n > max) return -EINVAL;
    *dst = n;
    return 0;
}

static int set_double(double *dst, const char *val, double min, double max)
{
    const double n = atof(val);
    if (n == 0 && val[0] != '0') return -EINVAL;
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
