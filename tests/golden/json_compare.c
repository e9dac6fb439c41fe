/*
 * Two VMAF JSON score files must hold the same document: the same keys in the same order
 * (metric order included), numbers equal as doubles (null with null), equal strings, except
 * the top-level "fps" (a CPU-time measurement). Used to compare FFmpeg's libvmaf filter log
 * with the vmaf CLI's output for the same options.
 *
 * json_compare A.json B.json   -> prints the number of values compared; exit 0 if equal
 */
#include <stdio.h>
#include <string.h>

#include "json.h"

static unsigned values;

static int same(const VmafJson *a, const VmafJson *b, const char *where, int top)
{
    if (a->type != b->type) {
        printf("%s: different types\n", where);
        return 0;
    }
    char sub[1024];
    switch (a->type) {
    case VMAF_JSON_NULL: values++; return 1;
    case VMAF_JSON_BOOL: values++; return a->boolean == b->boolean;
    case VMAF_JSON_NUMBER:
        values++;
        if (a->number == b->number) return 1;
        printf("%s: %.17g vs %.17g\n", where, a->number, b->number);
        return 0;
    case VMAF_JSON_STRING:
        if (!strcmp(a->string, b->string)) return 1;
        printf("%s: \"%s\" vs \"%s\"\n", where, a->string, b->string);
        return 0;
    case VMAF_JSON_ARRAY:
    case VMAF_JSON_OBJECT:
        if (a->cnt != b->cnt) {
            printf("%s: %u vs %u items\n", where, a->cnt, b->cnt);
            return 0;
        }
        for (unsigned i = 0; i < a->cnt; i++) {
            if (a->type == VMAF_JSON_OBJECT) {
                if (strcmp(a->keys[i], b->keys[i])) {
                    printf("%s: item %u is %s vs %s\n", where, i, a->keys[i], b->keys[i]);
                    return 0;
                }
                if (top && !strcmp(a->keys[i], "fps")) continue;
                snprintf(sub, sizeof(sub), "%.500s.%.500s", where, a->keys[i]);
            } else {
                snprintf(sub, sizeof(sub), "%.1000s[%u]", where, i);
            }
            if (!same(a->items[i], b->items[i], sub, 0)) return 0;
        }
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s A.json B.json\n", argv[0]);
        return 2;
    }
    VmafJson *a = NULL, *b = NULL;
    char err[512];
    int ok = 0;
    if (vmaf_json_parse_file(&a, argv[1], err, sizeof(err)) ||
        vmaf_json_parse_file(&b, argv[2], err, sizeof(err))) {
        printf("%s\n", err);
    } else {
        const VmafJson *frames = vmaf_json_get(a, "frames");
        ok = same(a, b, "$", 1);
        if (ok && (!frames || !frames->cnt)) {
            printf("no frames\n");
            ok = 0;
        }
    }
    if (ok) printf("equal: %u values\n", values);
    vmaf_json_free(a);
    vmaf_json_free(b);
    return ok ? 0 : 1;
}
