/*
 * Twin VMAF — feature option dictionaries.
 */
#ifndef VMAF_FEATURE_H
#define VMAF_FEATURE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VmafDictionary VmafFeatureDictionary;

/**
 * Set key=val in *dict, creating the dictionary when *dict is NULL and overwriting an
 * existing key. A fully numeric value is stored as "%g" of strtof(val) (so "18.0" is "18").
 *
 * @return 0, -EINVAL on NULL arguments, -ENOMEM
 */
int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict, const char *key,
                                const char *val);

/**
 * Free *dict and set it to NULL. A NULL *dict is fine.
 */
int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_FEATURE_H */
