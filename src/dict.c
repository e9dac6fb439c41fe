#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/feature.h"

#include "dict.h"
#include "export.h"

const VmafDictionaryEntry *vmaf_dictionary_get(const VmafDictionary *dict, const char *key)
{
    if (!dict || !key) return NULL;
    for (unsigned i = 0; i < dict->cnt; i++)
        if (!strcmp(dict->entry[i].key, key)) return &dict->entry[i];
    return NULL;
}

static int dictionary_create(VmafDictionary **dict)
{
    VmafDictionary *d = calloc(1, sizeof(*d));
    if (!d) return -ENOMEM;
    d->size = 8;
    d->entry = calloc(d->size, sizeof(*d->entry));
    if (!d->entry) {
        free(d);
        return -ENOMEM;
    }
    *dict = d;
    return 0;
}

int vmaf_dictionary_set(VmafDictionary **dict, const char *key, const char *val,
                        uint64_t flags)
{
    if (!dict || !key || !val) return -EINVAL;

    char normalized[64];
    if (flags & VMAF_DICT_NORMALIZE_NUMERICAL_VALUES) {
        char *end = NULL;
        const double d = strtof(val, &end);
        if (end != val) {
            snprintf(normalized, sizeof(normalized), "%g", d);
            val = normalized;
        }
    }

    if (!*dict) {
        int err = dictionary_create(dict);
        if (err) return err;
    }
    VmafDictionary *d = *dict;

    VmafDictionaryEntry *existing = (VmafDictionaryEntry *)vmaf_dictionary_get(d, key);
    if (existing) {
        if (flags & VMAF_DICT_DO_NOT_OVERWRITE)
            return strcmp(existing->val, val) ? -EINVAL : 0;
        char *copy = strdup(val);
        if (!copy) return -ENOMEM;
        free(existing->val);
        existing->val = copy;
        return 0;
    }

    if (d->cnt == d->size) {
        VmafDictionaryEntry *entry = realloc(d->entry, 2 * d->size * sizeof(*entry));
        if (!entry) return -ENOMEM;
        d->entry = entry;
        d->size *= 2;
    }
    char *key_copy = strdup(key);
    char *val_copy = strdup(val);
    if (!key_copy || !val_copy) {
        free(key_copy);
        free(val_copy);
        return -ENOMEM;
    }
    d->entry[d->cnt++] = (VmafDictionaryEntry){ .key = key_copy, .val = val_copy };
    return 0;
}

int vmaf_dictionary_copy(const VmafDictionary *src, VmafDictionary **dst)
{
    if (!dst) return -EINVAL;
    if (!src) return 0;
    for (unsigned i = 0; i < src->cnt; i++) {
        int err = vmaf_dictionary_set(dst, src->entry[i].key, src->entry[i].val, 0);
        if (err) return err;
    }
    return 0;
}

int vmaf_dictionary_free(VmafDictionary **dict)
{
    if (!dict) return -EINVAL;
    VmafDictionary *d = *dict;
    if (!d) return 0;
    for (unsigned i = 0; i < d->cnt; i++) {
        free(d->entry[i].key);
        free(d->entry[i].val);
    }
    free(d->entry);
    free(d);
    *dict = NULL;
    return 0;
}

/* "Fully numeric" as the reference decides it: one float and nothing after it. */
static int is_numeric(const char *s)
{
    float ignored;
    char c;
    return sscanf(s, "%f %c", &ignored, &c) == 1;
}

VMAF_EXPORT int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict, const char *key,
                                const char *val)
{
    if (!dict || !key || !val) return -EINVAL;
    const uint64_t flags = is_numeric(val) ? VMAF_DICT_NORMALIZE_NUMERICAL_VALUES : 0;
    return vmaf_dictionary_set(dict, key, val, flags);
}

VMAF_EXPORT int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict)
{
    return vmaf_dictionary_free(dict);
}
