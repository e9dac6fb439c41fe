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

/** An item of a streamed array (vmaf_json_parse_file_streaming): 0, or an error that stops
 * the parse. The item is freed on return. */
typedef int (*VmafJsonItemFn)(void *arg, unsigned index, const VmafJson *item);

/**
 * vmaf_json_parse_file(), except that the items of the array under `key` of the top-level
 * object are not kept: each goes to item() as soon as it is parsed, then is freed, and the
 * tree holds that array empty (the memory of a long array is one item's, not the array's).
 * When item() fails, its error is returned and err is left empty (item() says why).
 */
int vmaf_json_parse_file_streaming(VmafJson **root, const char *path, const char *key,
                                   VmafJsonItemFn item, void *arg, char *err, size_t err_sz);

void vmaf_json_free(VmafJson *root);

/** The value of key in an object, or NULL. */
const VmafJson *vmaf_json_get(const VmafJson *object, const char *key);

#endif /* VMAF_SRC_JSON_H */
