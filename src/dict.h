/* An ordered string dictionary (feature options). */
#ifndef VMAF_SRC_DICT_H
#define VMAF_SRC_DICT_H

#include <stdint.h>

typedef struct VmafDictionaryEntry {
    char *key, *val;
} VmafDictionaryEntry;

struct VmafDictionary {
    VmafDictionaryEntry *entry;
    unsigned cnt, size;
};
typedef struct VmafDictionary VmafDictionary;

enum VmafDictionaryFlags {
    VMAF_DICT_DO_NOT_OVERWRITE = 1 << 0,      /**< an existing key with another value: -EINVAL */
    VMAF_DICT_NORMALIZE_NUMERICAL_VALUES = 1 << 1, /**< store "%g" of strtof(val) */
};

int vmaf_dictionary_set(VmafDictionary **dict, const char *key, const char *val,
                        uint64_t flags);
const VmafDictionaryEntry *vmaf_dictionary_get(const VmafDictionary *dict, const char *key);
int vmaf_dictionary_copy(const VmafDictionary *src, VmafDictionary **dst);
int vmaf_dictionary_free(VmafDictionary **dict);

#endif /* VMAF_SRC_DICT_H */
