/*
 * --batch FILE: many jobs in one process.
 *
 * A line is one job, `REFERENCE DISTORTED OUTPUT [OPTION...]`, its words separated by blanks;
 * '...' and "..." group words with blanks (a backslash escapes the next character, except
 * inside '...'); '#' starts a comment outside quotes; blank lines are skipped. A job runs as
 *   vmaf OPTIONS-OF-THE-COMMAND-LINE -r REFERENCE -d DISTORTED -o OUTPUT OPTIONS-OF-THE-LINE
 * would, and writes that run's file. Jobs with the same reference and the same options are
 * scored as one ladder (the reference read once, cli_ladder.c), in the order of the file; the
 * device state is made once for the whole batch. A bad job (unreadable line, bad option,
 * input that cannot be scored) fails alone with a message naming its line; the exit status
 * is the number of jobs that failed (at most 255), 0 when every job was scored.
 *
 * The options of a line are checked by the CLI's own parser in a child process first (the
 * parser ends its process on a usage error, with the usage text), so that a bad line costs
 * one message and nothing else; the parser then runs here for the lines that passed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_run.h"
#include "thread_pool.h"

enum { MAX_SHARES = 4 };

typedef struct Job {
    unsigned line;
    char **word;       /* the line's words (owned) */
    unsigned n_words;
    char **argv;       /* the job's command line: pointers into the run's and the words */
    int argc;
    char *key;         /* the argv without -d and -o: equal keys share a ladder */
    bool failed;
    bool done;
} Job;

/* Split a line into words; 0, -EINVAL (why says) or -ENOMEM. */
static int split_words(const char *line, char ***out, unsigned *n_out, const char **why)
{
    char **word = NULL;
    unsigned n = 0;
    const size_t len = strlen(line);
    char *buf = malloc(len + 1);
    if (!buf) return -ENOMEM;
    const char *p = line;
    int err = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p || *p == '#') break;
        size_t k = 0;
        char quote = 0;
        for (; *p; p++) {
            if (quote == '\'') {
                if (*p == '\'') quote = 0;
                else buf[k++] = *p;
            } else if (*p == '\\' && p[1]) {
                buf[k++] = *++p;
            } else if (quote == '"') {
                if (*p == '"') quote = 0;
                else buf[k++] = *p;
            } else if (*p == '\'' || *p == '"') {
                quote = *p;
            } else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
                break;
            } else {
                buf[k++] = *p;
            }
        }
        if (quote) {
            *why = "unterminated quote";
            err = -EINVAL;
            break;
        }
        char **w = realloc(word, (n + 1) * sizeof(*w));
        char *copy = w ? malloc(k + 1) : NULL;
        if (w) word = w;
        if (!copy) {
            err = -ENOMEM;
            break;
        }
        memcpy(copy, buf, k);
        copy[k] = '\0';
        word[n++] = copy;
    }
    free(buf);
    if (err) {
        for (unsigned i = 0; i < n; i++) free(word[i]);
        free(word);
        return err;
    }
    *out = word;
    *n_out = n;
    return 0;
}

/* The command line's arguments but --batch FILE (and the program name). */
static int base_args(int argc, char *const *argv, char ***out, int *n_out)
{
    char **a = calloc((size_t)argc + 4, sizeof(*a));
    if (!a) return -ENOMEM;
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--batch")) {
            i++;
            continue;
        }
        if (!strncmp(argv[i], "--batch=", 8)) continue;
        a[n++] = argv[i];
    }
    *out = a;
    *n_out = n;
    return 0;
}

static int make_argv(Job *j, const char *app, char *const *base, int n_base,
                     const char *backend, char *device)
{
    j->argv = calloc((size_t)n_base + j->n_words + 12, sizeof(*j->argv));
    if (!j->argv) return -ENOMEM;
    int n = 0;
    j->argv[n++] = (char *)app;
    /* the environment's VMAF_BACKEND / VMAF_OPENCL_DEVICE, which the first parse consumed */
    if (backend) {
        j->argv[n++] = (char *)"--backend";
        j->argv[n++] = (char *)backend;
    }
    if (device) {
        j->argv[n++] = (char *)"--opencl_device";
        j->argv[n++] = device;
    }
    for (int i = 0; i < n_base; i++) j->argv[n++] = base[i];
    j->argv[n++] = (char *)"-r";
    j->argv[n++] = j->word[0];
    j->argv[n++] = (char *)"-d";
    j->argv[n++] = j->word[1];
    j->argv[n++] = (char *)"-o";
    j->argv[n++] = j->word[2];
    for (unsigned i = 3; i < j->n_words; i++) j->argv[n++] = j->word[i];
    j->argc = n;
    /* the key: every argument but the -d and -o values, each followed by a NUL */
    size_t len = 1;
    for (int i = 0; i < n; i++) len += strlen(j->argv[i]) + 1;
    j->key = malloc(len);
    if (!j->key) return -ENOMEM;
    size_t k = 0;
    for (int i = 1; i < n; i++) {
        if (j->argv[i] == j->word[1] || j->argv[i] == j->word[2]) continue;
        const size_t w = strlen(j->argv[i]) + 1;
        memcpy(j->key + k, j->argv[i], w);
        k += w;
    }
    j->key[k] = '\0';
    return 0;
}

static bool same_key(const Job *a, const Job *b)
{
    const char *x = a->key, *y = b->key;
    while (*x || *y) {
        if (strcmp(x, y)) return false;
        x += strlen(x) + 1;
        y += strlen(y) + 1;
    }
    return true;
}

/* The CLI's parser on the job's arguments in a child process: 0 when they are a run the
 * batch can score, else -EINVAL with the first line the parser printed in why. */
static int check_args(Job *j, char *why, size_t size)
{
    int fd[2];
    if (pipe(fd)) return -errno;
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        const int err = -errno;
        close(fd[0]);
        close(fd[1]);
        return err;
    }
    if (!pid) {
        close(fd[0]);
        dup2(fd[1], STDERR_FILENO);
        CliSettings s;
        optind = 0;
        cli_parse(j->argc, j->argv, &s);
        if (s.batch || s.merge || s.opencl_list || s.report || s.report_from) {
            fprintf(stderr, "--batch, --merge, --opencl_list, --report and --report-from "
                    "cannot be given in a job\n");
            _exit(3);
        }
        _exit(42); /* the parser's own exits are 0 (-v) and 1 (usage) */
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    char buf[1024];
    while ((r = read(fd[0], buf + got, sizeof(buf) - 1 - got)) > 0 && got < sizeof(buf) - 1)
        got += (size_t)r;
    while (r > 0) { /* drain what does not fit */
        char sink[256];
        r = read(fd[0], sink, sizeof(sink));
    }
    close(fd[0]);
    buf[got] = '\0';
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(st) && WEXITSTATUS(st) == 42) return 0;
    char *eol = strchr(buf, '\n');
    if (eol) *eol = '\0';
    snprintf(why, size, "%s", *buf ? buf : "not a valid run");
    return -EINVAL;
}

/* The device states kept across ladders, one per backend choice. */
typedef struct Shares {
    struct {
        enum CliBackend backend;
        int opencl_device;
        bool gpumask;
        CliDeviceShare share;
    } e[MAX_SHARES];
    unsigned n;
} Shares;

static CliDeviceShare *share_for(Shares *sh, const CliSettings *s)
{
    for (unsigned i = 0; i < sh->n; i++)
        if (sh->e[i].backend == s->backend && sh->e[i].opencl_device == s->opencl_device &&
            sh->e[i].gpumask == (s->gpumask != 0))
            return &sh->e[i].share;
    if (sh->n == MAX_SHARES) return NULL; /* more backend choices: each ladder its own */
    sh->e[sh->n].backend = s->backend;
    sh->e[sh->n].opencl_device = s->opencl_device;
    sh->e[sh->n].gpumask = s->gpumask != 0;
    sh->e[sh->n].share = (CliDeviceShare){ .decided = false };
    return &sh->e[sh->n++].share;
}

/* Jobs from index first on with first's key, at most CLI_MAX_DISTORTED: one ladder. */
static void run_group(const CliSettings *c, Job *job, unsigned n_jobs, unsigned first,
                      Shares *sh, int istty, unsigned *failed)
{
    unsigned member[CLI_MAX_DISTORTED], n = 0;
    for (unsigned i = first; i < n_jobs && n < CLI_MAX_DISTORTED; i++)
        if (!job[i].done && !job[i].failed && same_key(&job[first], &job[i])) member[n++] = i;
    CliSettings s;
    optind = 0;
    cli_parse(job[first].argc, job[first].argv, &s); /* checked: returns */
    s.opencl_gpu = c->opencl_gpu; /* --backend auto's OpenCL GPU, found once (main) */
    s.dist_cnt = s.output_cnt = n;
    for (unsigned k = 0; k < n; k++) {
        s.dist_path[k] = job[member[k]].word[1];
        s.output_list[k] = job[member[k]].word[2];
    }
    s.path_dist = s.dist_path[0];
    s.output_path = s.output_list[0];
    int status[CLI_MAX_DISTORTED];
    cli_ladder_run(&s, istty, share_for(sh, &s), status);
    cli_free(&s);
    for (unsigned k = 0; k < n; k++) {
        Job *j = &job[member[k]];
        j->done = true;
        if (!status[k]) continue;
        j->failed = true;
        (*failed)++;
        fprintf(stderr, "job at line %u (%s) failed (exit status %d)\n", j->line, j->word[1],
                status[k]);
    }
}

static void free_jobs(Job *job, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        for (unsigned w = 0; w < job[i].n_words; w++) free(job[i].word[w]);
        free(job[i].word);
        free(job[i].argv);
        free(job[i].key);
    }
    free(job);
}

static const char *backend_name(enum CliBackend b)
{
    return b == CLI_BACKEND_CPU ? "cpu" : b == CLI_BACKEND_CUDA ? "cuda"
                                : b == CLI_BACKEND_OPENCL ? "opencl" : NULL;
}

int cli_batch_run(int argc, char *const *argv, const CliSettings *c, int istty)
{
    FILE *f = fopen(c->batch, "r");
    if (!f) {
        fprintf(stderr, "--batch %s: %s\n", c->batch, strerror(errno));
        return EXIT_SETUP;
    }
    char **base;
    int n_base;
    if (base_args(argc, argv, &base, &n_base)) {
        fclose(f);
        fprintf(stderr, "out of memory\n");
        return EXIT_SETUP;
    }
    char device[16];
    snprintf(device, sizeof(device), "%d", c->opencl_device);
    /* the whole file first: the parser's child process must not share an open stream (its
     * exit would move the file offset under ours) */
    char *text = NULL;
    size_t text_size = 0;
    FILE *mem = open_memstream(&text, &text_size);
    int status = 0;
    if (mem) {
        char chunk[65536];
        size_t got;
        while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
            if (fwrite(chunk, 1, got, mem) != got) break;
    }
    const bool read_error = !mem || ferror(f);
    fclose(f);
    if (mem) fclose(mem);
    if (read_error) {
        fprintf(stderr, "--batch %s: could not read the file\n", c->batch);
        free(text);
        free(base);
        return EXIT_SETUP;
    }
    Job *job = NULL;
    unsigned n_jobs = 0, failed = 0, line_no = 0;
    int err = 0;
    for (char *next = text, *line; !err && next && *next;) {
        line = next;
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        line_no++;
        char **word;
        unsigned n_words;
        const char *why = NULL;
        err = split_words(line, &word, &n_words, &why);
        if (err == -ENOMEM) break;
        if (!err && !n_words) {
            free(word);
            continue;
        }
        if (!err && n_words < 3) why = "a job needs a reference, a distorted input and an output";
        if (err || why) {
            fprintf(stderr, "--batch %s, line %u: %s\n", c->batch, line_no, why);
            failed++;
            for (unsigned i = 0; !err && i < n_words; i++) free(word[i]);
            if (!err) free(word);
            err = 0;
            continue;
        }
        Job *grown = realloc(job, (n_jobs + 1) * sizeof(*job));
        if (!grown) {
            for (unsigned i = 0; i < n_words; i++) free(word[i]);
            free(word);
            err = -ENOMEM;
            break;
        }
        job = grown;
        Job *j = &job[n_jobs++];
        *j = (Job){ .line = line_no, .word = word, .n_words = n_words };
        if (make_argv(j, argv[0], base, n_base, backend_name(c->backend),
                      c->opencl_device >= 0 ? device : NULL)) {
            err = -ENOMEM;
            break;
        }
        char msg[1024];
        err = check_args(j, msg, sizeof(msg));
        if (err) {
            fprintf(stderr, "--batch %s, line %u: %s\n", c->batch, line_no,
                    err == -EINVAL ? msg : strerror(-err));
            j->failed = true;
            failed++;
            err = 0;
        }
    }
    free(text);
    if (err == -ENOMEM) {
        fprintf(stderr, "--batch %s: out of memory at line %u\n", c->batch, line_no);
        status = EXIT_SETUP;
    }
    Shares shares = { .n = 0 };
    for (unsigned i = 0; !status && i < n_jobs; i++)
        if (!job[i].done && !job[i].failed) run_group(c, job, n_jobs, i, &shares, istty, &failed);
    for (unsigned i = 0; i < shares.n; i++) {
        if (shares.e[i].share.cuda) vmaf_cuda_state_free(shares.e[i].share.cuda);
        if (shares.e[i].share.opencl) vmaf_opencl_state_free(shares.e[i].share.opencl);
        vmaf_thread_pool_unref(shares.e[i].share.pool);
    }
    if (!status) {
        unsigned scored = 0;
        for (unsigned i = 0; i < n_jobs; i++) scored += job[i].done && !job[i].failed;
        if (failed)
            fprintf(stderr, "--batch %s: %u job%s failed, %u scored\n", c->batch, failed,
                    failed > 1 ? "s" : "", scored);
        status = failed > 255 ? 255 : (int)failed;
    }
    free_jobs(job, n_jobs);
    free(base);
    return status;
}
