#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature_instance.h"

#define NAME_MAX_LEN 512

/* Options that take part in the name, sorted by option name (strcmp). */
static unsigned sorted_param_options(const VmafOption *options, const VmafOption **out,
                                     unsigned max)
{
    unsigned n = 0;
    for (const VmafOption *o = options; o && o->name && n < max; o++)
        if (o->flags & VMAF_OPT_FLAG_FEATURE_PARAM) out[n++] = o;
    for (unsigned i = 1; i < n; i++) {
        const VmafOption *o = out[i];
        unsigned j = i;
        for (; j > 0 && strcmp(out[j - 1]->name, o->name) > 0; j--) out[j] = out[j - 1];
        out[j] = o;
    }
    return n;
}

/* The naming rule (CONTRACT.md §4): alias(base) + _key[_value] for each non-default
 * feature parameter; the raw base when all are default. */
static char *name_with_options(const char *base, const VmafOption *options, const void *priv)
{
    const VmafOption *sorted[64];
    const unsigned n = sorted_param_options(options, sorted, 64);

    char buf[NAME_MAX_LEN];
    size_t len = 0;
    bool any = false;
    buf[0] = '\0';
    for (unsigned i = 0; i < n; i++) {
        const VmafOption *o = sorted[i];
        if (vmaf_option_is_default(o, priv)) continue;
        if (!any) {
            len = (size_t)snprintf(buf, sizeof(buf), "%s", vmaf_feature_name_alias(base));
            any = true;
        }
        const char *key = o->alias ? o->alias : o->name;
        char val[128];
        if (vmaf_option_format(o, priv, val, sizeof(val))) return NULL;
        int w = o->type == VMAF_OPT_TYPE_BOOL
                    ? snprintf(buf + len, sizeof(buf) - len, "_%s", key)
                    : snprintf(buf + len, sizeof(buf) - len, "_%s_%s", key, val);
        if (w < 0 || (size_t)w >= sizeof(buf) - len) return NULL;
        len += (size_t)w;
    }
    return strdup(any ? buf : base);
}

void vmaf_feature_instance_warn_unknown(const VmafFeatureInstance *inst,
                                        enum VmafLogLevel log_level)
{
    /* unknown keys are ignored, as the reference does, but not silently */
    for (unsigned i = 0; inst->opts && i < inst->opts->cnt; i++) {
        const VmafOption *o = inst->fex->options;
        while (o && o->name && strcmp(o->name, inst->opts->entry[i].key)) o++;
        if (!o || !o->name)
            vmaf_log(log_level, VMAF_LOG_LEVEL_WARNING, "%s: unknown option \"%s\" ignored\n",
                     inst->fex->name, inst->opts->entry[i].key);
    }
}

static int parse_options(VmafFeatureInstance *inst, enum VmafLogLevel log_level)
{
    for (const VmafOption *o = inst->fex->options; o && o->name; o++) {
        const VmafDictionaryEntry *e = vmaf_dictionary_get(inst->opts, o->name);
        if (vmaf_option_set(o, inst->priv, e ? e->val : NULL)) {
            vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR,
                     "%s: invalid value \"%s\" for option %s\n", inst->fex->name,
                     e ? e->val : "", o->name);
            return -EINVAL;
        }
    }
    return 0;
}

int vmaf_feature_instance_create(VmafFeatureInstance **inst_out, const VmafFeatureExtractor *fex,
                                 VmafDictionary *opts, enum VmafLogLevel log_level)
{
    if (!inst_out || !fex) {
        vmaf_dictionary_free(&opts);
        return -EINVAL;
    }
    VmafFeatureInstance *inst = calloc(1, sizeof(*inst));
    if (!inst) {
        vmaf_dictionary_free(&opts);
        return -ENOMEM;
    }
    inst->fex = fex;
    inst->opts = opts;
    int err = -ENOMEM;
    inst->priv = calloc(1, fex->priv_size ? fex->priv_size : 1);
    if (!inst->priv) goto fail;
    err = parse_options(inst, log_level);
    if (err) goto fail;

    err = -ENOMEM;
    unsigned n = 0;
    while (fex->provided_features && fex->provided_features[n]) n++;
    inst->mapped = calloc(n + 1, sizeof(*inst->mapped));
    if (!inst->mapped) goto fail;
    for (unsigned i = 0; i < n; i++) {
        inst->mapped[i] = name_with_options(fex->provided_features[i], fex->options, inst->priv);
        if (!inst->mapped[i]) goto fail;
    }
    inst->ident = name_with_options(fex->name, fex->options, inst->priv);
    if (!inst->ident) goto fail;

    *inst_out = inst;
    return 0;
fail:
    vmaf_feature_instance_destroy(inst);
    return err;
}

int vmaf_feature_instance_clone(VmafFeatureInstance **inst, const VmafFeatureInstance *src)
{
    VmafDictionary *opts = NULL;
    int err = vmaf_dictionary_copy(src->opts, &opts);
    if (err) {
        vmaf_dictionary_free(&opts);
        return err;
    }
    return vmaf_feature_instance_create(inst, src->fex, opts, VMAF_LOG_LEVEL_NONE);
}

int vmaf_feature_instance_init(VmafFeatureInstance *inst, const VmafFeatureGeometry *geo)
{
    if (inst->init_failed) return -EINVAL;
    if (inst->initialized) return 0;
    if (inst->fex->init) {
        int err = inst->fex->init(inst->priv, geo);
        if (err) {
            inst->init_failed = true;
            return err;
        }
    }
    inst->initialized = true;
    return 0;
}

void vmaf_feature_instance_destroy(VmafFeatureInstance *inst)
{
    if (!inst) return;
    if (inst->fex->close && inst->priv) inst->fex->close(inst->priv);
    if (inst->mapped)
        for (unsigned i = 0; inst->mapped[i]; i++) free(inst->mapped[i]);
    free(inst->mapped);
    free(inst->ident);
    free(inst->priv);
    vmaf_dictionary_free(&inst->opts);
    free(inst);
}
