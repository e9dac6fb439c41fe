/*
 * libFuzzer: the output writers with names made of any bytes. The input is split at NUL
 * bytes into up to 6 names, each imported as a score; every format is written, and a file
 * that was written is read back: JSON must parse with the names as keys, XML attributes must
 * be the names, CSV's header must split back into the names (RFC 4180), SUB must have one
 * field per name. A refused format must have a name that vmaf_output_name_problem() names.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

#include "feature_instance.h"
#include "json.h"
#include "output.h"

#define MAX_NAMES 6
#define MAX_INPUT 2048 /* bytes of an input this target reads; so the longest name */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

static void check_json(const char *text, size_t len, const char **names, unsigned cnt)
{
    VmafJson *root = NULL;
    char err[256];
    if (vmaf_json_parse(&root, text, len, err, sizeof(err))) abort();
    const VmafJson *frames = vmaf_json_get(root, "frames");
    if (!frames || frames->cnt != 1) abort();
    const VmafJson *metrics = vmaf_json_get(frames->items[0], "metrics");
    if (!metrics || metrics->cnt != cnt) abort();
    for (unsigned i = 0; i < cnt; i++)
        if (strcmp(metrics->keys[i], names[i])) abort();
    vmaf_json_free(root);
}

/* XML: attribute names of the frame element, verbatim (names are XML names, nothing escaped) */
static void check_xml(const char *text, const char **names, unsigned cnt)
{
    const char *p = strstr(text, "<frame frameNum=\"0\" ");
    if (!p) abort();
    p += strlen("<frame frameNum=\"0\" ");
    for (unsigned i = 0; i < cnt; i++) {
        const size_t n = strlen(names[i]);
        if (strncmp(p, names[i], n) || p[n] != '=' || p[n + 1] != '"') abort();
        p = strchr(p + n + 2, '"');
        if (!p || p[1] != ' ') abort();
        p += 2;
    }
    if (strncmp(p, "/>", 2)) abort();
}

/* CSV: the header line, split as RFC 4180 reads it */
static void check_csv(const char *text, const char **names, unsigned cnt)
{
    const char *p = text;
    if (strncmp(p, "Frame,", 6)) abort();
    p += 6;
    char field[MAX_INPUT + 1]; /* a whole name: a shorter buffer would cut a long one */
    for (unsigned i = 0; i < cnt; i++) {
        size_t n = 0;
        if (*p == '"') {
            for (p++;; p++) {
                if (!*p) abort();
                if (*p == '"') {
                    if (p[1] != '"') break;
                    p++;
                }
                if (n < sizeof(field) - 1) field[n++] = *p;
            }
            p++;
        } else {
            while (*p && *p != ',' && *p != '\n') {
                if (*p == '"' || *p == '\r') abort(); /* would need quoting */
                if (n < sizeof(field) - 1) field[n++] = *p;
                p++;
            }
        }
        field[n] = '\0';
        if (*p != ',' || strcmp(field, names[i])) abort();
        p++;
    }
    if (*p != '\n') abort();
}

/* SUB: "{0}{1}frame: 0|name: value|...|" */
static void check_sub(const char *text, const char **names, unsigned cnt)
{
    const char *p = strstr(text, "frame: 0|");
    if (!p) abort();
    p += strlen("frame: 0|");
    for (unsigned i = 0; i < cnt; i++) {
        const size_t n = strlen(names[i]);
        if (strncmp(p, names[i], n) || strncmp(p + n, ": ", 2)) abort();
        p = strchr(p + n, '|');
        if (!p) abort();
        p++;
    }
    if (*p != '\n') abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT) return 0;
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';

    VmafContext *vmaf = NULL;
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    if (vmaf_init(&vmaf, cfg)) {
        free(buf);
        return 0;
    }
    const char *printed[MAX_NAMES];
    unsigned cnt = 0;
    for (size_t i = 0; i <= size && cnt < MAX_NAMES; i += strlen(buf + i) + 1) {
        const char *name = buf + i;
        if (!*name) continue;
        const char *alias = vmaf_feature_name_alias(name);
        int dup = 0;
        for (unsigned k = 0; k < cnt; k++) dup |= !strcmp(printed[k], alias);
        if (dup) continue; /* two stored names printing alike: not what this target tests */
        if (vmaf_import_feature_score(vmaf, name, 0.5 + cnt, 0)) continue;
        printed[cnt++] = alias;
    }
    if (!cnt) {
        vmaf_close(vmaf);
        free(buf);
        return 0;
    }
    static const enum VmafOutputFormat fmts[4] = { VMAF_OUTPUT_FORMAT_XML, VMAF_OUTPUT_FORMAT_JSON,
                                                   VMAF_OUTPUT_FORMAT_CSV, VMAF_OUTPUT_FORMAT_SUB };
    char path[128];
    snprintf(path, sizeof(path), "/tmp/twin_vmaf_fuzz_output_%d", (int)getpid());
    for (unsigned f = 0; f < 4; f++) {
        unlink(path);
        const int err = vmaf_write_output(vmaf, path, fmts[f]);
        int refusable = 0;
        for (unsigned k = 0; k < cnt; k++) refusable |= vmaf_output_name_problem(printed[k], fmts[f]) != NULL;
        if (err) {
            if (!refusable || !access(path, F_OK)) abort(); /* refused a good name, or left a file */
            continue;
        }
        if (refusable) abort(); /* wrote a name the format cannot hold */
        size_t len;
        char *text = slurp(path, &len);
        if (!text) abort();
        switch (fmts[f]) {
        case VMAF_OUTPUT_FORMAT_XML: check_xml(text, printed, cnt); break;
        case VMAF_OUTPUT_FORMAT_JSON: check_json(text, len, printed, cnt); break;
        case VMAF_OUTPUT_FORMAT_CSV: check_csv(text, printed, cnt); break;
        default: check_sub(text, printed, cnt); break;
        }
        free(text);
    }
    unlink(path);
    vmaf_close(vmaf);
    free(buf);
    return 0;
}
