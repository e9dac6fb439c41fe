/*
 * Golden parity: runs the vmaf CLI over every shared clip for one run of
 * shared/data/golden/RUNS.tsv and requires every frame, pooled and aggregate value to equal
 * reference libvmaf's (parsed as doubles, compared with ==; null with null), metric names
 * and order included. Where the golden file is absent, the CLI must refuse: non-zero exit, a
 * message on stderr, no output file. Where golden/SKIP.tsv lists the clip and run (the
 * reference's own values are undefined there, e.g. ciede on odd-size 4:2:0 frames), the CLI
 * must succeed with every frame's values numbers, and give the same file on a second run.
 *
 * golden_test VMAF DATA_DIR MODELS_DIR CLIPS_DIR WORK_DIR RUN THREADS [--as motion_v2]
 *   CLIPS_DIR holds the decompressed NAME_ref.yuv / NAME_dis.yuv.
 *
 * VMAF_GOLDEN_SEGMENTS=K: each clip with a golden file is scored as K segments (fewer when
 * the title is shorter), `vmaf ... --segment A:B -o part`, merged with `vmaf --merge`, and the
 * merged file must equal the golden file in the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"

#define MAX_ARGS 64

typedef struct Ctx {
    const char *vmaf, *data, *models, *clips, *work, *run, *threads;
    /* VMAF_GOLDEN_IGNORE: comma-separated name prefixes not compared (a documented known gap);
     * VMAF_GOLDEN_UNORDERED=1: match metrics by name instead of position;
     * VMAF_GOLDEN_RACE: comma-separated name prefixes whose position the reference left to a
     * thread race: matched by name, their values compared, every other metric's order kept */
    const char *ignore, *race;
    int unordered;
    const char *as; /* a sibling extractor checked against this run's golden files */
    unsigned segments; /* VMAF_GOLDEN_SEGMENTS */
    unsigned values, clips_ok, refusals, skipped, failures;
} Ctx;

static int run_args(const Ctx *c, char *buf, size_t sz)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/golden/RUNS.tsv", c->data);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    char line[2048];
    int found = -1;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = '\0';
        if (strcmp(line, c->run)) continue;
        /* MODELS stands for the models folder */
        const char *src = tab + 1;
        size_t n = 0;
        while (*src && n + 1 < sz) {
            if (!strncmp(src, "MODELS", 6)) {
                n += (size_t)snprintf(buf + n, sz - n, "%s", c->models);
                src += 6;
            } else {
                buf[n++] = *src++;
            }
        }
        buf[n] = '\0';
        found = 0;
    }
    fclose(f);
    if (found) fprintf(stderr, "run %s is not in RUNS.tsv\n", c->run);
    return found;
}

/* "--feature motion=..." -> "--feature motion_v2=..." */
static void rename_extractor(char *args, size_t sz, const char *from, const char *to)
{
    char pattern[64], *p;
    snprintf(pattern, sizeof(pattern), "--feature %s", from);
    if (!(p = strstr(args, pattern))) return;
    char rest[2048];
    snprintf(rest, sizeof(rest), "%s", p + strlen(pattern));
    snprintf(p, sz - (size_t)(p - args), "--feature %s%s", to, rest);
}

/* Golden metric name -> the name the sibling extractor writes. */
static void expected_name(const Ctx *c, const char *golden, char *out, size_t sz)
{
    static const char *const map[][2] = {
        { "VMAF_integer_feature_motion_sad_score", "VMAF_integer_feature_motion_v2_sad_score" },
        { "VMAF_integer_feature_motion_score", "VMAF_integer_feature_motion_v2_score" },
        { "integer_motion2", "VMAF_integer_feature_motion2_v2_score" },
        { "integer_motion3", "VMAF_integer_feature_motion3_v2_score" },
    };
    snprintf(out, sz, "%s", golden);
    if (!c->as) return;
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        const size_t n = strlen(map[i][0]);
        if (strncmp(golden, map[i][0], n) || (golden[n] && golden[n] != '_')) continue;
        snprintf(out, sz, "%s%s", map[i][1], golden + n);
        return;
    }
}

static int exec_cli(char *const argv[], const char *err_path)
{
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (!pid) {
        if (!freopen(err_path, "w", stderr)) _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0) return -1;
    if (!WIFEXITED(status)) return 1000 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return WEXITSTATUS(status);
}

static int same_number(const VmafJson *a, const VmafJson *b)
{
    if (a->type == VMAF_JSON_NULL || b->type == VMAF_JSON_NULL) return a->type == b->type;
    return a->type == VMAF_JSON_NUMBER && b->type == VMAF_JSON_NUMBER && a->number == b->number;
}

static int listed(const char *prefixes, const char *name)
{
    if (!prefixes || !*prefixes) return 0;
    char list[512];
    snprintf(list, sizeof(list), "%s", prefixes);
    for (char *rest = list, *p; (p = strsep(&rest, ","));)
        if (*p && !strncmp(name, p, strlen(p))) return 1;
    return 0;
}

static int ignored(const Ctx *c, const char *name)
{
    return listed(c->ignore, name);
}

static int raced(const Ctx *c, const char *name)
{
    return listed(c->race, name);
}

/* Compare two objects of numbers: same keys (after renaming), same order, equal values. */
static int compare_numbers(Ctx *c, const char *clip, const char *where, const VmafJson *golden,
                           const VmafJson *ours)
{
    if (!golden || !ours || golden->type != VMAF_JSON_OBJECT || ours->type != VMAF_JSON_OBJECT) {
        printf("FAIL %s %s: %s missing\n", c->run, clip, where);
        return -1;
    }
    if (golden->cnt != ours->cnt) {
        printf("FAIL %s %s: %s has %u values, golden %u\n", c->run, clip, where, ours->cnt,
               golden->cnt);
        return -1;
    }
    /* j walks our items in step with the golden ones, past the raced names */
    for (unsigned i = 0, j = 0; i < golden->cnt; i++) {
        char name[512];
        expected_name(c, golden->keys[i], name, sizeof(name));
        const VmafJson *g = golden->items[i], *o;
        if (c->unordered || raced(c, name)) {
            o = vmaf_json_get(ours, name);
            if (!o) {
                printf("FAIL %s %s: %s has no %s\n", c->run, clip, where, name);
                return -1;
            }
        } else {
            while (j < ours->cnt && raced(c, ours->keys[j])) j++;
            if (j == ours->cnt || strcmp(name, ours->keys[j])) {
                printf("FAIL %s %s: %s item %u is %s, expected %s\n", c->run, clip, where, i,
                       j < ours->cnt ? ours->keys[j] : "(none)", name);
                return -1;
            }
            o = ours->items[j++];
        }
        if (ignored(c, name)) continue;
        if (g->type == VMAF_JSON_OBJECT) {
            char sub[600];
            snprintf(sub, sizeof(sub), "%s.%s", where, name);
            if (compare_numbers(c, clip, sub, g, o)) return -1;
            continue;
        }
        if (!same_number(g, o)) {
            printf("FAIL %s %s: %s %s = %.17g, golden %.17g%s\n", c->run, clip, where, name,
                   o->type == VMAF_JSON_NUMBER ? o->number : 0.0,
                   g->type == VMAF_JSON_NUMBER ? g->number : 0.0,
                   g->type == VMAF_JSON_NULL ? " (null)" : "");
            return -1;
        }
        c->values++;
    }
    return 0;
}

static int compare_files(Ctx *c, const char *clip, const char *golden_path, const char *out_path)
{
    char err[512];
    VmafJson *g = NULL, *o = NULL;
    int ret = -1;
    if (vmaf_json_parse_file(&g, golden_path, err, sizeof(err)) ||
        vmaf_json_parse_file(&o, out_path, err, sizeof(err))) {
        printf("FAIL %s %s: %s\n", c->run, clip, err);
        goto done;
    }
    const VmafJson *gf = vmaf_json_get(g, "frames"), *of = vmaf_json_get(o, "frames");
    if (!gf || !of || gf->cnt != of->cnt) {
        printf("FAIL %s %s: %u frames, golden %u\n", c->run, clip, of ? of->cnt : 0,
               gf ? gf->cnt : 0);
        goto done;
    }
    for (unsigned i = 0; i < gf->cnt; i++) {
        const VmafJson *gn = vmaf_json_get(gf->items[i], "frameNum");
        const VmafJson *on = vmaf_json_get(of->items[i], "frameNum");
        char where[64];
        snprintf(where, sizeof(where), "frame %u", i);
        if (!gn || !on || !same_number(gn, on)) {
            printf("FAIL %s %s: %s has another frameNum\n", c->run, clip, where);
            goto done;
        }
        if (compare_numbers(c, clip, where, vmaf_json_get(gf->items[i], "metrics"),
                            vmaf_json_get(of->items[i], "metrics")))
            goto done;
    }
    if (compare_numbers(c, clip, "pooled", vmaf_json_get(g, "pooled_metrics"),
                        vmaf_json_get(o, "pooled_metrics")) ||
        compare_numbers(c, clip, "aggregate", vmaf_json_get(g, "aggregate_metrics"),
                        vmaf_json_get(o, "aggregate_metrics")))
        goto done;
    ret = 0;
done:
    vmaf_json_free(g);
    vmaf_json_free(o);
    return ret;
}

/* Whether golden/SKIP.tsv lists "CLIP.RUN". */
static int in_skip_list(const Ctx *c, const char *clip)
{
    char path[1024], want[512], line[1024];
    snprintf(path, sizeof(path), "%s/golden/SKIP.tsv", c->data);
    snprintf(want, sizeof(want), "%s.%s", clip, c->run);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\t\r\n")] = '\0';
        found = !strcmp(line, want);
    }
    fclose(f);
    return found;
}

/* A SKIP.tsv pair: our defined output, with `frames` frames of numbers, stable over runs. */
static int check_defined(Ctx *c, const char *clip, const char *out, const char *again,
                         unsigned frames)
{
    char err[512];
    VmafJson *o = NULL;
    int ret = -1;
    if (vmaf_json_parse_file(&o, out, err, sizeof(err))) {
        printf("FAIL %s %s (SKIP.tsv): %s\n", c->run, clip, err);
        return -1;
    }
    const VmafJson *of = vmaf_json_get(o, "frames");
    if (!of || of->cnt != frames) {
        printf("FAIL %s %s (SKIP.tsv): %u frames, expected %u\n", c->run, clip,
               of ? of->cnt : 0, frames);
        goto done;
    }
    for (unsigned i = 0; i < of->cnt; i++) {
        const VmafJson *m = vmaf_json_get(of->items[i], "metrics");
        if (!m || m->type != VMAF_JSON_OBJECT || !m->cnt) {
            printf("FAIL %s %s (SKIP.tsv): frame %u has no metrics\n", c->run, clip, i);
            goto done;
        }
        for (unsigned k = 0; k < m->cnt; k++) {
            if (m->items[k]->type != VMAF_JSON_NUMBER) {
                printf("FAIL %s %s (SKIP.tsv): frame %u %s is not a number\n", c->run, clip,
                       i, m->keys[k]);
                goto done;
            }
        }
    }
    const unsigned values = c->values; /* not golden values: not counted */
    const int differ = compare_files(c, clip, out, again);
    c->values = values;
    if (differ) {
        printf("FAIL %s %s (SKIP.tsv): a second run wrote other values\n", c->run, clip);
        goto done;
    }
    ret = 0;
done:
    vmaf_json_free(o);
    return ret;
}

/* The value of "--NAME N" in the run's arguments, or 0. */
static unsigned run_option(const char *args, const char *name)
{
    char pattern[64];
    snprintf(pattern, sizeof(pattern), "--%s ", name);
    const char *p = strstr(args, pattern);
    return p ? (unsigned)strtoul(p + strlen(pattern), NULL, 0) : 0;
}

/*
 * The run as segments: argv (ending in NULL, with "-o out" in it) once per segment with
 * "--segment A:B" and the part as output, then `vmaf --merge` of the parts into out.
 */
static int run_segments(const Ctx *c, char **argv, const char *out, const char *errp,
                        unsigned frames, const char *args)
{
    const unsigned skip_ref = run_option(args, "frame_skip_ref");
    const unsigned skip_dist = run_option(args, "frame_skip_dist");
    const unsigned skip = skip_ref > skip_dist ? skip_ref : skip_dist;
    unsigned n = frames > skip ? frames - skip : 0;
    const unsigned cnt = run_option(args, "frame_cnt");
    if (cnt && cnt < n) n = cnt;
    const unsigned k = c->segments < n ? c->segments : n;
    if (!k) return 1;

    char part[64][1100], range[64][32];
    char *merge_argv[MAX_ARGS + 64];
    unsigned m = 0;
    merge_argv[m++] = argv[0];
    merge_argv[m++] = "--merge";
    int argc = 0;
    while (argv[argc]) argc++;
    char *seg_argv[MAX_ARGS + 3];
    for (unsigned i = 0; i < k && i < 64; i++) {
        const unsigned a = (unsigned)((unsigned long long)i * n / k);
        const unsigned b = (unsigned)((unsigned long long)(i + 1) * n / k);
        snprintf(part[i], sizeof(part[i]), "%.1000s.part%u", out, i);
        snprintf(range[i], sizeof(range[i]), "%u:%u", a, b);
        unlink(part[i]);
        for (int j = 0; j < argc; j++) seg_argv[j] = !strcmp(argv[j], out) ? part[i] : argv[j];
        seg_argv[argc] = "--segment";
        seg_argv[argc + 1] = range[i];
        seg_argv[argc + 2] = NULL;
        const int rc = exec_cli(seg_argv, errp);
        if (rc) {
            printf("segment %s of %u frames: exit status %d\n", range[i], n, rc);
            return rc;
        }
        merge_argv[m++] = part[i];
    }
    /* the parts in reverse order: the merge must not depend on it */
    for (unsigned i = 0; i < k / 2; i++) {
        char *t = merge_argv[2 + i];
        merge_argv[2 + i] = merge_argv[2 + k - 1 - i];
        merge_argv[2 + k - 1 - i] = t;
    }
    const char *tail[] = { "--json", "--precision", "max", "-o", out };
    for (unsigned i = 0; i < 5; i++) merge_argv[m++] = (char *)tail[i];
    merge_argv[m] = NULL;
    const int rc = exec_cli(merge_argv, errp);
    if (rc) printf("merge of %u segments: exit status %d\n", k, rc);
    return rc;
}

static void check_clip(Ctx *c, const char *clip, const char *w, const char *h, const char *fmt,
                       const char *bits, unsigned frames, const char *run_args_text)
{
    char ref[1024], dis[1024], out[1024], errp[1024], golden[1024];
    snprintf(ref, sizeof(ref), "%s/%s_ref.yuv", c->clips, clip);
    snprintf(dis, sizeof(dis), "%s/%s_dis.yuv", c->clips, clip);
    char seg[64] = "";
    if (c->segments) snprintf(seg, sizeof(seg), ".seg%u", c->segments);
    /* VMAF_GOLDEN_EXTRA_ARGS (e.g. "--split 3") and VMAF_OPENCL_FP64 in the file name: tests
     * running at once with different extra arguments or fp64 settings write different files */
    static const char *const vars[][2] = { { "VMAF_GOLDEN_EXTRA_ARGS", "x" },
                                           { "VMAF_OPENCL_FP64", "fp64_" } };
    for (size_t v = 0; v < sizeof(vars) / sizeof(vars[0]); v++) {
        const char *x = getenv(vars[v][0]);
        if (!x || !*x) continue;
        size_t len = strlen(seg);
        for (const char *p = "."; *p && len + 1 < sizeof(seg); p++) seg[len++] = *p;
        for (const char *p = vars[v][1]; *p && len + 1 < sizeof(seg); p++) seg[len++] = *p;
        for (; *x && len + 1 < sizeof(seg); x++)
            if ((*x >= 'a' && *x <= 'z') || (*x >= '0' && *x <= '9')) seg[len++] = *x;
        seg[len] = '\0';
    }
    snprintf(out, sizeof(out), "%s/%s.%s%s.t%s%s.json", c->work, clip, c->run,
             c->as ? "_v2" : "", c->threads, seg);
    snprintf(errp, sizeof(errp), "%.1000s.stderr", out);
    snprintf(golden, sizeof(golden), "%s/golden/%s.%s.json", c->data, clip, c->run);
    unlink(out);

    char args[2048];
    snprintf(args, sizeof(args), "%s", run_args_text);
    char *argv[MAX_ARGS];
    int n = 0;
    argv[n++] = (char *)c->vmaf;
    const char *fixed[] = { "-r", ref, "-d", dis, "-w", w, "-h", h, "-p", fmt, "-b", bits,
                            "--json", "--precision", "max", "--threads", c->threads, "-o", out };
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) argv[n++] = (char *)fixed[i];
    for (char *tok = strtok(args, " "); tok && n < MAX_ARGS - 1; tok = strtok(NULL, " "))
        argv[n++] = tok;
    /* e.g. VMAF_GOLDEN_EXTRA_ARGS="--backend cuda" on the GPU machine */
    char extra[256];
    snprintf(extra, sizeof(extra), "%s", getenv("VMAF_GOLDEN_EXTRA_ARGS") ? getenv("VMAF_GOLDEN_EXTRA_ARGS") : "");
    for (char *tok = strtok(extra, " "); tok && n < MAX_ARGS - 1; tok = strtok(NULL, " "))
        argv[n++] = tok;
    argv[n] = NULL;

    struct stat st;
    const int have_golden = !stat(golden, &st);
    const int rc = c->segments && have_golden
                       ? run_segments(c, argv, out, errp, frames, run_args_text)
                       : exec_cli(argv, errp);
    if (!have_golden && in_skip_list(c, clip)) {
        /* the same command again, into a second file */
        char again[1100];
        snprintf(again, sizeof(again), "%.1000s.again", out);
        unlink(again);
        for (int i = 0; argv[i]; i++)
            if (argv[i] == out) argv[i] = again;
        const int rc2 = rc ? rc : exec_cli(argv, errp);
        if (rc || rc2) {
            printf("FAIL %s %s (SKIP.tsv): exit status %d (see %s)\n", c->run, clip,
                   rc ? rc : rc2, errp);
            c->failures++;
        } else if (check_defined(c, clip, out, again, frames)) {
            c->failures++;
        } else {
            c->skipped++;
        }
        return;
    }
    if (have_golden) {
        if (rc) {
            printf("FAIL %s %s: exit status %d (see %s)\n", c->run, clip, rc, errp);
            c->failures++;
        } else if (compare_files(c, clip, golden, out)) {
            c->failures++;
        } else {
            c->clips_ok++;
        }
        return;
    }
    const int has_message = !stat(errp, &st) && st.st_size > 0;
    const int wrote = !stat(out, &st);
    if (rc == 0 || rc >= 1000 || !has_message || wrote) {
        printf("FAIL %s %s: no golden file, so a refusal is expected; got exit %d, %s, %s\n",
               c->run, clip, rc, has_message ? "a message" : "no message",
               wrote ? "an output file" : "no output file");
        c->failures++;
    } else {
        c->refusals++;
    }
}

int main(int argc, char **argv)
{
    if (argc != 8 && !(argc == 10 && !strcmp(argv[8], "--as"))) {
        fprintf(stderr, "usage: %s VMAF DATA MODELS CLIPS WORK RUN THREADS [--as EXTRACTOR]\n",
                argv[0]);
        return 2;
    }
    Ctx c = { .vmaf = argv[1], .data = argv[2], .models = argv[3], .clips = argv[4],
              .work = argv[5], .run = argv[6], .threads = argv[7],
              .as = argc == 10 ? argv[9] : NULL };
    c.ignore = getenv("VMAF_GOLDEN_IGNORE");
    c.unordered = getenv("VMAF_GOLDEN_UNORDERED") && atoi(getenv("VMAF_GOLDEN_UNORDERED"));
    c.race = getenv("VMAF_GOLDEN_RACE");
    c.segments = getenv("VMAF_GOLDEN_SEGMENTS") ? (unsigned)atoi(getenv("VMAF_GOLDEN_SEGMENTS")) : 0;
    if (c.segments > 64) c.segments = 64;
    mkdir(c.work, 0755);
    char args[2048];
    if (run_args(&c, args, sizeof(args))) return 2;
    if (c.as) rename_extractor(args, sizeof(args), "motion", c.as);
    /* a run that fixes its thread count (order_v0: --threads 0) is tested with that count */
    const char *fixed_threads = strstr(args, "--threads ");
    if (fixed_threads && strtoul(fixed_threads + 10, NULL, 10) != strtoul(c.threads, NULL, 10)) {
        fprintf(stderr, "run %s fixes --threads %lu; test it with THREADS %lu\n", c.run,
                strtoul(fixed_threads + 10, NULL, 10), strtoul(fixed_threads + 10, NULL, 10));
        return 2;
    }

    char manifest[1024];
    snprintf(manifest, sizeof(manifest), "%s/clips/MANIFEST.tsv", c.data);
    FILE *f = fopen(manifest, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s: %s\n", manifest, strerror(errno));
        return 2;
    }
    char line[1024];
    unsigned clips = 0;
    while (fgets(line, sizeof(line), f)) {
        char clip[256], w[16], h[16], fmt[16], bits[16];
        unsigned frames = 0;
        if (sscanf(line, "%255s %15s %15s %15s %15s %u", clip, w, h, fmt, bits, &frames) != 6)
            continue;
        if (!strcmp(clip, "clip")) continue;
        clips++;
        check_clip(&c, clip, w, h, fmt, bits, frames, args);
    }
    fclose(f);
    if (c.segments) printf("as %u segments, merged: ", c.segments);
    if (getenv("VMAF_GOLDEN_EXTRA_ARGS") && *getenv("VMAF_GOLDEN_EXTRA_ARGS"))
        printf("with %s: ", getenv("VMAF_GOLDEN_EXTRA_ARGS"));
    printf("golden %s%s%s --threads %s: %u clips, %u matched exactly (%u values), %u refused as "
           "expected, %u defined where the reference is not (SKIP.tsv), %u failed%s%s%s%s%s\n",
           c.run, c.as ? " as " : "", c.as ? c.as : "", c.threads, clips, c.clips_ok, c.values,
           c.refusals, c.skipped, c.failures, c.ignore ? "; not compared: " : "",
           c.ignore ? c.ignore : "", c.unordered ? "; order not compared" : "",
           c.race ? "; position not compared: " : "", c.race ? c.race : "");
    return c.failures || !clips ? 1 : 0;
}
