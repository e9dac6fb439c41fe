/*
 * cl_flatten OUT.c SYMBOL IN.cl ROOT...: an OpenCL program's source made whole and embedded.
 * Each `#include "path"` line is replaced by that file's text, found in the including file's
 * folder or else under the first ROOT that has it (each file once: include guards would drop
 * the repeats anyway), so that a runtime
 * compiler needs no file system. Includes in <> and quoted ones found nowhere stay as they are:
 * they sit in branches OpenCL C never takes (dialect.h's VMAF_DIALECT_C), and a program that
 * does take one fails to build, naming it. OUT.c holds `const unsigned char SYMBOL[]`: the
 * text, then a NUL. A build-time tool; exits 1 with a message on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 256

typedef struct Flat {
    char *seen[MAX_FILES];
    unsigned n_seen;
    char **roots;
    int n_roots;
    FILE *out;
    unsigned long bytes;
} Flat;

static int emit(Flat *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (fprintf(f->out, "0x%02x,%s", (unsigned char)s[i], ++f->bytes % 24 ? "" : "\n") < 0)
            return -1;
    }
    return 0;
}

static int flatten(Flat *f, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "cl_flatten: cannot open %s\n", path);
        return -1;
    }
    char line[4096];
    int err = 0;
    while (!err && fgets(line, sizeof(line), in)) {
        char inc[1024];
        const char *p = line + strspn(line, " \t");
        if (sscanf(p, "#%*[ \t]include \"%1023[^\"]\"", inc) != 1 &&
            sscanf(p, "#include \"%1023[^\"]\"", inc) != 1) {
            err = emit(f, line, strlen(line));
            continue;
        }
        /* as the C preprocessor does: the including file's folder first (the shared headers
         * include their siblings so), then the roots */
        char found[2048] = "";
        const char *slash = strrchr(path, '/');
        if (slash) {
            snprintf(found, sizeof(found), "%.*s/%s", (int)(slash - path), path, inc);
            FILE *t = fopen(found, "r");
            if (t) fclose(t);
            else found[0] = 0;
        }
        for (int r = 0; r < f->n_roots && !found[0]; r++) {
            snprintf(found, sizeof(found), "%s/%s", f->roots[r], inc);
            FILE *t = fopen(found, "r");
            if (t) fclose(t);
            else found[0] = 0;
        }
        if (!found[0]) {
            err = emit(f, line, strlen(line));
            continue;
        }
        unsigned i = 0;
        while (i < f->n_seen && strcmp(f->seen[i], found)) i++;
        if (i < f->n_seen) continue;
        if (f->n_seen == MAX_FILES || !(f->seen[f->n_seen] = strdup(found))) {
            fprintf(stderr, "cl_flatten: too many files under %s\n", path);
            err = -1;
            break;
        }
        f->n_seen++;
        char mark[1200];
        snprintf(mark, sizeof(mark), "/* ---- %s */\n", inc);
        err = emit(f, mark, strlen(mark));
        if (!err) err = flatten(f, found);
        if (!err) err = emit(f, "\n", 1);
    }
    if (ferror(in)) err = -1;
    fclose(in);
    return err;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: cl_flatten OUT.c SYMBOL IN.cl ROOT...\n");
        return 1;
    }
    Flat f = { .roots = argv + 4, .n_roots = argc - 4 };
    f.out = fopen(argv[1], "w");
    if (!f.out) {
        fprintf(stderr, "cl_flatten: cannot write %s\n", argv[1]);
        return 1;
    }
    fprintf(f.out, "/* generated from %s and its includes; do not edit */\n"
                   "__attribute__((aligned(16))) const unsigned char %s[] = {\n", argv[3], argv[2]);
    int err = flatten(&f, argv[3]);
    if (!err && fprintf(f.out, "0x00\n};\n") < 0) err = -1;
    if (fclose(f.out)) err = -1;
    for (unsigned i = 0; i < f.n_seen; i++) free(f.seen[i]);
    if (err) {
        remove(argv[1]);
        return 1;
    }
    return 0;
}
