/* bench_cli: whole-process timing of the `vmaf` command line, ours against a reference libvmaf.
 *
 * Every measured command is fork/exec'd with stdout/stderr sent to /dev/null and the wall time
 * from fork to reap taken with CLOCK_MONOTONIC; the median of --runs repetitions is reported.
 * Ours and the reference are interleaved (ours, ref, ours, ref, ...) so that slow drift in the
 * machine's state hits both alike.  Timings are informational only: this is not a test.
 *
 * usage: bench_cli --vmaf PATH [--ref-vmaf PATH] --ref FILE --dis FILE -w W -h H [-p 420] [-b 8]
 *                  [--frames N] [--runs R] [--warmup K] [--threads LIST] [--our-arg ARG]...
 *                  [--feature SPEC]... [SPEC...] [-v]
 *   SPEC is anything `vmaf --feature` accepts (psnr, psnr_hvs=..., motion_v2, ...) or `model`,
 *   which runs the default model (no -n, no --feature).  Default runs: psnr psnr_hvs motion
 *   motion_v2.  A thread count of 0 in LIST means "pass no --threads flag".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS 64
#define MAX_SPECS 64
#define MAX_THREADS 16
#define MAX_EXTRA 32
#define MAX_ARGV 64

typedef struct {
    const char *vmaf, *ref_vmaf, *ref, *dis, *w, *h, *p, *b;
    unsigned frames, runs, warmup;
    unsigned threads[MAX_THREADS];
    unsigned n_threads;
    const char *specs[MAX_SPECS];
    unsigned n_specs;
    const char *extra[MAX_EXTRA]; /* flags passed to our CLI only */
    unsigned n_extra;
    int verbose;
} Opts;

/* One measured series: median seconds, or a failure. */
typedef struct {
    int skipped;     /* nothing to measure (reference lacks the extractor, or no reference) */
    int failed;      /* a run exited non-zero or was killed */
    int status;      /* the failing wait status */
    double median, min, max;
} Series;

static void usage(const char *app, const char *why)
{
    if (why) fprintf(stderr, "%s: %s\n\n", app, why);
    fprintf(stderr,
            "usage: %s --vmaf PATH [--ref-vmaf PATH] --ref FILE --dis FILE -w W -h H\n"
            "          [-p 420|422|444] [-b 8|10|12|16] [--frames N] [--runs R] [--warmup K]\n"
            "          [--threads LIST] [--our-arg ARG]... [--feature SPEC]... [SPEC]... [-v]\n"
            "\n"
            "  --vmaf PATH       our vmaf CLI (e.g. build/tools/vmaf)\n"
            "  --ref-vmaf PATH   reference libvmaf vmaf CLI to compare against (optional)\n"
            "  --frames N        frame count for fps (default: from the --ref file size)\n"
            "  --runs R          repetitions per command, median reported (default 5)\n"
            "  --warmup K        unmeasured runs per command first (default 1; warms page cache)\n"
            "  --threads LIST    comma-separated thread counts (default 1,2; 0 = no --threads)\n"
            "  --our-arg ARG     extra argument for our CLI only (repeatable)\n"
            "  --feature SPEC    a run: any --feature spec, or `model` for the default model\n"
            "                    (repeatable; bare SPEC arguments work too).\n"
            "                    Default: psnr psnr_hvs motion motion_v2\n"
            "  -v                print every individual timing\n",
            app);
    exit(2);
}

static unsigned parse_uint(const char *app, const char *s, const char *what)
{
    char *end;
    errno = 0;
    const unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v > 100000000UL) {
        fprintf(stderr, "%s: bad %s \"%s\"\n", app, what, s);
        exit(2);
    }
    return (unsigned)v;
}

static void parse_threads(const char *app, const char *list, Opts *o)
{
    char buf[256];
    if (strlen(list) >= sizeof(buf)) usage(app, "--threads list too long");
    strcpy(buf, list);
    o->n_threads = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->n_threads == MAX_THREADS) usage(app, "too many thread counts");
        o->threads[o->n_threads++] = parse_uint(app, t, "thread count");
    }
    if (!o->n_threads) usage(app, "empty --threads list");
}

static void add_spec(const char *app, Opts *o, const char *spec)
{
    if (o->n_specs == MAX_SPECS) usage(app, "too many runs");
    o->specs[o->n_specs++] = spec;
}

static void parse_opts(int argc, char **argv, Opts *o)
{
    enum { O_VMAF = 256, O_REF_VMAF, O_REF, O_DIS, O_FRAMES, O_RUNS, O_WARMUP, O_THREADS,
           O_FEATURE, O_OUR_ARG, O_HELP };
    static const struct option lo[] = {
        { "vmaf", 1, NULL, O_VMAF },       { "ref-vmaf", 1, NULL, O_REF_VMAF },
        { "ref", 1, NULL, O_REF },         { "dis", 1, NULL, O_DIS },
        { "frames", 1, NULL, O_FRAMES },   { "runs", 1, NULL, O_RUNS },
        { "warmup", 1, NULL, O_WARMUP },   { "threads", 1, NULL, O_THREADS },
        { "feature", 1, NULL, O_FEATURE }, { "our-arg", 1, NULL, O_OUR_ARG },
        { "width", 1, NULL, 'w' },         { "height", 1, NULL, 'h' },
        { "pixel_format", 1, NULL, 'p' },  { "bitdepth", 1, NULL, 'b' },
        { "help", 0, NULL, O_HELP },       { NULL, 0, NULL, 0 },
    };
    const char *app = argv[0];
    memset(o, 0, sizeof(*o));
    o->p = "420";
    o->b = "8";
    o->runs = 5;
    o->warmup = 1;
    parse_threads(app, "1,2", o);

    int c;
    while ((c = getopt_long(argc, argv, "w:h:p:b:v", lo, NULL)) >= 0) {
        switch (c) {
        case O_VMAF: o->vmaf = optarg; break;
        case O_REF_VMAF: o->ref_vmaf = optarg; break;
        case O_REF: o->ref = optarg; break;
        case O_DIS: o->dis = optarg; break;
        case O_FRAMES: o->frames = parse_uint(app, optarg, "--frames"); break;
        case O_RUNS: o->runs = parse_uint(app, optarg, "--runs"); break;
        case O_WARMUP: o->warmup = parse_uint(app, optarg, "--warmup"); break;
        case O_THREADS: parse_threads(app, optarg, o); break;
        case O_FEATURE: add_spec(app, o, optarg); break;
        case O_OUR_ARG:
            if (o->n_extra == MAX_EXTRA) usage(app, "too many --our-arg");
            o->extra[o->n_extra++] = optarg;
            break;
        case 'w': o->w = optarg; break;
        case 'h': o->h = optarg; break;
        case 'p': o->p = optarg; break;
        case 'b': o->b = optarg; break;
        case 'v': o->verbose = 1; break;
        case O_HELP: usage(app, NULL); break;
        default: usage(app, NULL);
        }
    }
    for (int i = optind; i < argc; i++) add_spec(app, o, argv[i]);
    if (!o->n_specs) {
        static const char *const def[] = { "psnr", "psnr_hvs", "motion", "motion_v2" };
        for (unsigned i = 0; i < sizeof(def) / sizeof(def[0]); i++) add_spec(app, o, def[i]);
    }
    if (!o->vmaf) usage(app, "--vmaf is required");
    if (!o->ref || !o->dis) usage(app, "--ref and --dis are required");
    if (!o->w || !o->h) usage(app, "-w and -h are required");
    if (o->runs < 1 || o->runs > MAX_RUNS) usage(app, "--runs must be 1..64");
}

/* Frames in the reference file, from its size, for raw .yuv input. 0 if unknown. */
static unsigned frames_from_size(const Opts *o)
{
    struct stat st;
    if (stat(o->ref, &st) || !S_ISREG(st.st_mode)) return 0;
    const unsigned long w = strtoul(o->w, NULL, 10), h = strtoul(o->h, NULL, 10);
    const unsigned long bpc = strtoul(o->b, NULL, 10) > 8 ? 2 : 1;
    unsigned long cw = (w + 1) / 2, ch = (h + 1) / 2;
    if (!strcmp(o->p, "422")) ch = h;
    else if (!strcmp(o->p, "444")) { cw = w; ch = h; }
    const unsigned long fsz = (w * h + 2 * cw * ch) * bpc;
    if (!fsz || st.st_size % (off_t)fsz) return 0;
    return (unsigned)(st.st_size / (off_t)fsz);
}

static int is_model(const char *spec) { return !strcmp(spec, "model"); }

/* The reference has no motion_v2 extractor. */
static int ref_lacks(const char *spec)
{
    const size_t n = strlen("motion_v2");
    return !strncmp(spec, "motion_v2", n) && (spec[n] == '\0' || spec[n] == '=');
}

/* Build argv for one command. `ours` adds the --our-arg flags. */
static void build_argv(const Opts *o, const char *bin, const char *spec, unsigned threads,
                       int ours, const char **av, char *thread_buf, size_t thread_buf_sz)
{
    unsigned n = 0;
    av[n++] = bin;
    av[n++] = "-r"; av[n++] = o->ref;
    av[n++] = "-d"; av[n++] = o->dis;
    av[n++] = "-w"; av[n++] = o->w;
    av[n++] = "-h"; av[n++] = o->h;
    av[n++] = "-p"; av[n++] = o->p;
    av[n++] = "-b"; av[n++] = o->b;
    av[n++] = "-q";
    av[n++] = "-o"; av[n++] = "/dev/null";
    if (threads) {
        snprintf(thread_buf, thread_buf_sz, "%u", threads);
        av[n++] = "--threads"; av[n++] = thread_buf;
    }
    if (!is_model(spec)) {
        av[n++] = "--no_prediction";
        av[n++] = "--feature"; av[n++] = spec;
    }
    if (ours)
        for (unsigned i = 0; i < o->n_extra; i++) av[n++] = o->extra[i];
    av[n] = NULL;
}

static void print_cmd(FILE *f, const char *const *av)
{
    for (unsigned i = 0; av[i]; i++) fprintf(f, "%s%s", i ? " " : "", av[i]);
    fputc('\n', f);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run once; returns the wait status (or -1 if fork failed), wall seconds in *secs. */
static int run_once(const char *const *av, double *secs)
{
    fflush(NULL);
    const double t0 = now_s();
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        const int fd = open("/dev/null", O_RDWR);
        if (fd >= 0) {
            dup2(fd, STDIN_FILENO);
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            if (fd > STDERR_FILENO) close(fd);
        }
        execv(av[0], (char *const *)av);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    *secs = now_s() - t0;
    return status;
}

static void describe_status(char *buf, size_t sz, int status)
{
    if (status == -1) snprintf(buf, sz, "fork/wait failed");
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) snprintf(buf, sz, "exit 127 (exec failed?)");
    else if (WIFEXITED(status)) snprintf(buf, sz, "exit %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status)) snprintf(buf, sz, "signal %d", WTERMSIG(status));
    else snprintf(buf, sz, "status 0x%x", status);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void finish(Series *s, double *t, unsigned n)
{
    qsort(t, n, sizeof(*t), cmp_double);
    s->min = t[0];
    s->max = t[n - 1];
    s->median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Report a failing command once, then stop measuring that series. */
static void record_failure(Series *s, int status, const char *who, const char *const *av)
{
    char why[64];
    s->failed = 1;
    s->status = status;
    describe_status(why, sizeof(why), status);
    fprintf(stderr, "FAILED (%s, %s): ", who, why);
    print_cmd(stderr, av);
}

static void fmt_series(char *buf, size_t sz, const Series *s, unsigned frames)
{
    if (s->skipped) snprintf(buf, sz, "-");
    else if (s->failed) {
        char why[48];
        describe_status(why, sizeof(why), s->status);
        snprintf(buf, sz, "FAILED (%s)", why);
    } else if (frames) snprintf(buf, sz, "%.3f s (%.0f fps)", s->median, frames / s->median);
    else snprintf(buf, sz, "%.3f s", s->median);
}

static void measure(const Opts *o, const char *spec, unsigned threads, unsigned frames)
{
    const char *av_ours[MAX_ARGV], *av_ref[MAX_ARGV];
    char tb_ours[16], tb_ref[16];
    build_argv(o, o->vmaf, spec, threads, 1, av_ours, tb_ours, sizeof(tb_ours));
    Series ours = { 0 }, ref = { 0 };
    ref.skipped = !o->ref_vmaf || ref_lacks(spec);
    if (!ref.skipped) build_argv(o, o->ref_vmaf, spec, threads, 0, av_ref, tb_ref, sizeof(tb_ref));

    double t_ours[MAX_RUNS], t_ref[MAX_RUNS], t;
    int st;
    for (unsigned i = 0; i < o->warmup; i++) {
        if (!ours.failed && (st = run_once(av_ours, &t)) != 0)
            record_failure(&ours, st, "ours", av_ours);
        if (!ref.skipped && !ref.failed && (st = run_once(av_ref, &t)) != 0)
            record_failure(&ref, st, "reference", av_ref);
    }
    for (unsigned i = 0; i < o->runs; i++) {
        if (!ours.failed) {
            if ((st = run_once(av_ours, &t_ours[i])) != 0) record_failure(&ours, st, "ours", av_ours);
            else if (o->verbose)
                fprintf(stderr, "  %s t=%u ours run %u: %.4f s\n", spec, threads, i + 1, t_ours[i]);
        }
        if (!ref.skipped && !ref.failed) {
            if ((st = run_once(av_ref, &t_ref[i])) != 0) record_failure(&ref, st, "reference", av_ref);
            else if (o->verbose)
                fprintf(stderr, "  %s t=%u ref  run %u: %.4f s\n", spec, threads, i + 1, t_ref[i]);
        }
    }
    if (!ours.failed) finish(&ours, t_ours, o->runs);
    if (!ref.skipped && !ref.failed) finish(&ref, t_ref, o->runs);

    char c_ours[64], c_ref[64], c_ratio[32], c_thr[16];
    fmt_series(c_ours, sizeof(c_ours), &ours, frames);
    fmt_series(c_ref, sizeof(c_ref), &ref, frames);
    if (!ours.failed && !ref.skipped && !ref.failed)
        snprintf(c_ratio, sizeof(c_ratio), "%.2f", ref.median / ours.median);
    else snprintf(c_ratio, sizeof(c_ratio), "-");
    if (threads) snprintf(c_thr, sizeof(c_thr), "%u", threads);
    else snprintf(c_thr, sizeof(c_thr), "(none)");

    /* Spread (max/min) over 15 % marks a noisy series. */
    const char *noisy = "";
    if ((!ours.failed && ours.max > 1.15 * ours.min) ||
        (!ref.skipped && !ref.failed && ref.max > 1.15 * ref.min))
        noisy = "  (noisy: max/min > 1.15)";
    if (o->ref_vmaf)
        printf("| %-24s | %7s | %-22s | %-22s | %6s |%s\n", spec, c_thr, c_ours, c_ref, c_ratio,
               noisy);
    else
        printf("| %-24s | %7s | %-22s |%s\n", spec, c_thr, c_ours, noisy);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    Opts o;
    parse_opts(argc, argv, &o);
    if (access(o.vmaf, X_OK)) {
        fprintf(stderr, "%s: %s is not executable\n", argv[0], o.vmaf);
        return 2;
    }
    if (o.ref_vmaf && access(o.ref_vmaf, X_OK)) {
        fprintf(stderr, "%s: %s is not executable\n", argv[0], o.ref_vmaf);
        return 2;
    }
    const unsigned frames = o.frames ? o.frames : frames_from_size(&o);

    printf("# %s vs %s; %s x %s %sp %s-bit, %u frames; median of %u runs (+%u warm-up)\n",
           o.vmaf, o.ref_vmaf ? o.ref_vmaf : "(no reference)", o.w, o.h, o.p, o.b, frames,
           o.runs, o.warmup);
    if (o.ref_vmaf) {
        printf("| %-24s | %7s | %-22s | %-22s | %6s |\n", "run", "threads", "ours", "reference",
               "ratio");
        printf("|%s|%s|%s|%s|%s|\n", "--------------------------", "---------",
               "------------------------", "------------------------", "--------");
    } else {
        printf("| %-24s | %7s | %-22s |\n", "run", "threads", "ours");
        printf("|%s|%s|%s|\n", "--------------------------", "---------",
               "------------------------");
    }
    for (unsigned s = 0; s < o.n_specs; s++)
        for (unsigned t = 0; t < o.n_threads; t++) measure(&o, o.specs[s], o.threads[t], frames);
    if (o.ref_vmaf) printf("# ratio = reference time / our time; > 1 means ours is faster\n");
    return 0;
}
