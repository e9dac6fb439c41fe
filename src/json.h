/*
 * A small JSON reader: the whole document into a tree. Used for model files and by the tests.
 * Numbers are parsed with strtod (exact round trip of %.17g output); objects keep key order.
 */
#ifndef VMAF_SRC_JSON_H
#define VMAF_SRC_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum VmafJsonType {
    VMAF_JSON_NULL,
    VMAF_JSON_BOOL,
    VMAF_JSON_NUMBER,
    VMAF_JSON_STRING,
    VMAF_JSON_ARRAY,
    VMAF_JSON_OBJECT,
};

typedef struct VmafJson VmafJson;
struct VmafJson {
    enum VmafJsonType type;
    bool boolean;
    double number;
    char *string;         /* STRING: the value; NUMBER: its text as written */
    char **keys;          /* OBJECT: key of each item */
    VmafJson **items;     /* ARRAY, OBJECT */
    unsigned cnt;
};

/**
 * Parse text[0..len). On failure returns -EINVAL and writes "line L, column C: reason" into err.
 * Nesting deeper than 64 levels is refused.
 */
int vmaf_json_parse(VmafJson **root, const char *text, size_t len, char *err, size_t err_sz);

/** Read and parse a file; messages are prefixed with the path. */
int vmaf_json_parse_file(VmafJson **root, const char *path, char *err, size_t err_sz);

void vmaf_json_free(VmafJson *root);

/** The value of key in an object, or NULL. */
const VmafJson *vmaf_json_get(const VmafJson *object, const char *key);

#endif /* VMAF_SRC_JSON_H */
