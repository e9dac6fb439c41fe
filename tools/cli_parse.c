#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dict.h"
#include "output.h"

enum {
    ARG_XML = 256,
    ARG_JSON,
    ARG_CSV,
    ARG_SUB,
    ARG_THREADS,
    ARG_FEATURE,
    ARG_SUBSAMPLE,
    ARG_CPUMASK,
    ARG_GPUMASK,
    ARG_AOM_CTC,
    ARG_NFLX_CTC,
    ARG_FRAME_CNT,
    ARG_FRAME_SKIP_REF,
    ARG_FRAME_SKIP_DIST,
    ARG_PRECISION,
    ARG_BACKEND,
    ARG_SEGMENT,
    ARG_MERGE,
    ARG_SPLIT,
    ARG_CUDA_DEVICES,
    ARG_OPENCL_LIST,
    ARG_OPENCL_DEVICE,
    ARG_BATCH,
    ARG_REPORT,
    ARG_REPORT_FROM,
    ARG_REPORT_FPS,
};

static const char short_opts[] = "r:d:w:h:p:b:m:o:nvq";

static const struct option long_opts[] = {
    { "reference", 1, NULL, 'r' },
    { "distorted", 1, NULL, 'd' },
    { "width", 1, NULL, 'w' },
    { "height", 1, NULL, 'h' },
    { "pixel_format", 1, NULL, 'p' },
    { "bitdepth", 1, NULL, 'b' },
    { "model", 1, NULL, 'm' },
    { "output", 1, NULL, 'o' },
    { "xml", 0, NULL, ARG_XML },
    { "json", 0, NULL, ARG_JSON },
    { "csv", 0, NULL, ARG_CSV },
    { "sub", 0, NULL, ARG_SUB },
    { "threads", 1, NULL, ARG_THREADS },
    { "feature", 1, NULL, ARG_FEATURE },
    { "subsample", 1, NULL, ARG_SUBSAMPLE },
    { "cpumask", 1, NULL, ARG_CPUMASK },
    { "gpumask", 1, NULL, ARG_GPUMASK },
    { "aom_ctc", 1, NULL, ARG_AOM_CTC },
    { "nflx_ctc", 1, NULL, ARG_NFLX_CTC },
    { "frame_cnt", 1, NULL, ARG_FRAME_CNT },
    { "frame_skip_ref", 1, NULL, ARG_FRAME_SKIP_REF },
    { "frame_skip_dist", 1, NULL, ARG_FRAME_SKIP_DIST },
    { "precision", 1, NULL, ARG_PRECISION },
    { "backend", 1, NULL, ARG_BACKEND },
    { "segment", 1, NULL, ARG_SEGMENT },
    { "merge", 0, NULL, ARG_MERGE },
    { "split", 1, NULL, ARG_SPLIT },
    { "cuda_devices", 1, NULL, ARG_CUDA_DEVICES },
    { "opencl_list", 0, NULL, ARG_OPENCL_LIST },
    { "opencl_device", 1, NULL, ARG_OPENCL_DEVICE },
    { "batch", 1, NULL, ARG_BATCH },
    { "report", 1, NULL, ARG_REPORT },
    { "report-from", 0, NULL, ARG_REPORT_FROM },
    { "report-fps", 1, NULL, ARG_REPORT_FPS },
    { "no_prediction", 0, NULL, 'n' },
    { "version", 0, NULL, 'v' },
    { "quiet", 0, NULL, 'q' },
    { NULL, 0, NULL, 0 },
};

static void usage(const char *app, const char *reason, ...)
{
    if (reason) {
        va_list ap;
        va_start(ap, reason);
        vfprintf(stderr, reason, ap);
        va_end(ap);
        fprintf(stderr, "\n\n");
    }
    fprintf(stderr, "Usage: %s [options]\n\n", app);
    fprintf(stderr,
            "Supported options:\n"
            " --reference/-r $path:        path to reference .y4m or .yuv\n"
            " --distorted/-d $path:        path to distorted .y4m or .yuv; repeat it to score\n"
            "                              several against the reference in one pass\n"
            " --width/-w $unsigned:        width\n"
            " --height/-h $unsigned:       height\n"
            " --pixel_format/-p: $string   pixel format (420/422/444)\n"
            " --bitdepth/-b $unsigned:     bitdepth (8/10/12/16)\n"
            " --model/-m $params:          model parameters, colon \":\" delimited\n"
            "                              `path=` path to model file\n"
            "                              `version=` built-in model version\n"
            "                              `name=` name used in log (optional)\n"
            " --batch $path:               score the jobs of a file in this process, one a line:\n"
            "                              REFERENCE DISTORTED OUTPUT [OPTION...] (README)\n"
            " --output/-o $path:           output file; with several -d: one per -d, or one\n"
            "                              template with {n} (1, 2, ...) and/or {name}\n"
            " --xml:                       write output file as XML (default)\n"
            " --json:                      write output file as JSON\n"
            " --csv:                       write output file as CSV\n"
            " --sub:                       write output file as subtitle\n"
            " --precision max|$unsigned:   numbers as %%.17g (max) or %%.Ng (1..17);\n"
            "                              default %%.6f like reference libvmaf\n"
            " --report $path:              an HTML report of the run (or ladder), after -o\n"
            " --report-from JSON... -o OUT: the HTML report of JSON output files (a ladder's)\n"
            " --report-fps N[/D]:          the report's frame rate (default: a Y4M's F tag)\n"
            " --threads $unsigned:         number of threads to use\n"
            " --backend cpu|cuda|opencl|auto: where GPU twins run (default $VMAF_BACKEND, else\n"
            "                              auto: CUDA, else an OpenCL GPU); same scores\n"
            " --feature $string:           additional feature, NAME[=KEY=VAL[:KEY=VAL...]]\n"
            " --cpumask: $bitmask          restrict permitted CPU instruction sets\n"
            " --gpumask: $bitmask          restrict permitted GPU operations\n"
            " --frame_cnt $unsigned:       maximum number of frames to process\n"
            " --frame_skip_ref $unsigned:  skip the first N frames in reference\n"
            " --frame_skip_dist $unsigned: skip the first N frames in distorted\n"
            " --subsample: $unsigned       compute scores only every N frames\n"
            " --segment A:B:               score frames A..B-1 only; -o gets a segment result\n"
            " --merge PART... -o OUT:      merge segment results: the whole title's output\n"
            " --split N, --cuda_devices L: N segments at once, or one per CUDA device in L (0,1)\n"
            " --aom_ctc $version:          AOM common test conditions preset (v1.0..v7.0)\n"
            " --nflx_ctc $version:         Netflix common test conditions preset (v1.0)\n"
            " --quiet/-q:                  disable FPS meter when run in a TTY\n"
            " --no_prediction/-n:          no prediction, extract features only\n"
            " --version/-v:                print version and exit\n"
            " --opencl_list:               list the OpenCL devices and exit\n"
            " --opencl_device $unsigned:   --backend opencl's device (default $VMAF_OPENCL_DEVICE)\n");
    exit(1);
}

static const char *option_name(int val, char *buf, size_t sz)
{
    for (const struct option *o = long_opts; o->name; o++) {
        if (o->val != val) continue;
        if (val < 256) snprintf(buf, sz, "-%c/--%s", val, o->name);
        else snprintf(buf, sz, "--%s", o->name);
        return buf;
    }
    return "?";
}

static void bad_argument(const char *app, const char *arg, int option, const char *should_be)
{
    char name[64];
    usage(app, "Invalid argument \"%s\" for option %s; should be %s", arg,
          option_name(option, name, sizeof(name)), should_be);
}

/*
 * An unsigned integer: decimal, or hexadecimal with 0x (as the reference's strtoul(..., 0)
 * allows), never octal: "-w 01100" is 1100. No sign, no blank, nothing after the digits,
 * nothing that does not fit (ERANGE).
 */
static int parse_u64(const char *arg, uint64_t max, uint64_t *out)
{
    const int hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
    const char *digits = hex ? arg + 2 : arg;
    if (!*digits || strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789") != strlen(digits))
        return -1;
    errno = 0;
    const unsigned long long v = strtoull(digits, NULL, hex ? 16 : 10);
    if (errno == ERANGE || v > max) return -1;
    *out = v;
    return 0;
}

static unsigned parse_unsigned(const char *app, const char *arg, int option)
{
    uint64_t v;
    if (parse_u64(arg, 0xffffffffu, &v))
        bad_argument(app, arg, option, "an integer (decimal, or hexadecimal with 0x) below 2^32");
    return (unsigned)v;
}

static uint64_t parse_mask(const char *app, const char *arg, int option)
{
    uint64_t v;
    if (parse_u64(arg, UINT64_MAX, &v))
        bad_argument(app, arg, option, "an integer (decimal, or hexadecimal with 0x) below 2^64");
    return v;
}

static enum VmafPixelFormat parse_pix_fmt(const char *app, const char *arg)
{
    if (!strcmp(arg, "420")) return VMAF_PIX_FMT_YUV420P;
    if (!strcmp(arg, "422")) return VMAF_PIX_FMT_YUV422P;
    if (!strcmp(arg, "444")) return VMAF_PIX_FMT_YUV444P;
    bad_argument(app, arg, 'p', "a valid pixel format (420/422/444)");
    return VMAF_PIX_FMT_UNKNOWN;
}

static unsigned parse_bitdepth(const char *app, const char *arg)
{
    const unsigned b = parse_unsigned(app, arg, 'b');
    if (b != 8 && b != 10 && b != 12 && b != 16)
        bad_argument(app, arg, 'b', "a valid bitdepth (8/10/12/16)");
    return b;
}

static int parse_precision(const char *app, const char *arg)
{
    if (!strcmp(arg, "max")) return VMAF_OUTPUT_PRECISION_MAX;
    char *end;
    const long v = strtol(arg, &end, 10);
    if (end == arg || *end || v < 1 || v > VMAF_OUTPUT_PRECISION_MAX)
        bad_argument(app, arg, ARG_PRECISION, "max or an integer 1..17");
    return (int)v;
}

static char *copy_arg(const char *app, const char *arg)
{
    char *s = strdup(arg);
    if (!s) usage(app, "out of memory");
    return s;
}

/* NAME[=KEY=VAL[:KEY=VAL...]] */
static CliFeature parse_feature(const char *app, const char *arg)
{
    CliFeature f = { .buf = copy_arg(app, arg) };
    char *rest = f.buf;
    f.name = strsep(&rest, "=");
    if (!*f.name) usage(app, "Problem parsing feature \"%s\": empty name.", arg);
    char *kv;
    while (rest && (kv = strsep(&rest, ":"))) {
        const char *key = strsep(&kv, "=");
        const char *val = kv;
        if (!*key || !val || !*val)
            usage(app, "Problem parsing feature \"%s\", bad option string \"%s\".", f.name, key);
        if (vmaf_feature_dictionary_set(&f.opts, key, val))
            usage(app, "Problem parsing feature \"%s\"", arg);
    }
    return f;
}

static CliModel parse_model(const char *app, const char *arg)
{
    CliModel m = { .name = "vmaf", .buf = copy_arg(app, arg) };
    char *rest = m.buf, *kv;
    while ((kv = strsep(&rest, ":"))) {
        char *key = strsep(&kv, "=");
        const char *val = kv;
        if (!val) {
            if (strcmp(key, "disable_clip") && strcmp(key, "enable_transform"))
                usage(app, "Problem parsing model, bad option string \"%s\".", key);
            val = "true";
        }
        if (!strcmp(key, "path")) {
            m.path = val;
        } else if (!strcmp(key, "version")) {
            m.version = val;
        } else if (!strcmp(key, "name")) {
            m.name = val;
        } else if (!strcmp(key, "disable_clip")) {
            m.disable_clip = !strcmp(val, "true");
        } else if (!strcmp(key, "enable_transform")) {
            m.enable_transform = !strcmp(val, "true");
        } else {
            char *dot = strchr(key, '.');
            if (!dot || dot == key || !dot[1])
                usage(app, "Problem parsing model, bad option string \"%s\".", key);
            if (m.overload_cnt == CLI_MAX_ENTRIES)
                usage(app, "A maximum of %d feature overloads per model are supported",
                      CLI_MAX_ENTRIES);
            *dot = '\0';
            CliOverload *o = &m.overload[m.overload_cnt++];
            o->feature = key;
            if (vmaf_feature_dictionary_set(&o->opts, dot + 1, val))
                usage(app, "Problem parsing model: \"%s\"", key);
        }
    }
    if (!m.path && !m.version)
        usage(app, "Problem parsing model \"%s\": path= or version= is required.", arg);
    return m;
}

static void add_model(const char *app, CliSettings *s, CliModel m)
{
    if (s->model_cnt == CLI_MAX_ENTRIES)
        usage(app, "A maximum of %d models are supported", CLI_MAX_ENTRIES);
    s->model[s->model_cnt++] = m;
}

static void add_feature(const char *app, CliSettings *s, CliFeature f)
{
    if (s->feature_cnt == CLI_MAX_ENTRIES)
        usage(app, "A maximum of %d features are supported", CLI_MAX_ENTRIES);
    s->feature[s->feature_cnt++] = f;
}

/* Presets append, as the reference does (a feature requested twice is dropped at
 * registration when its name with options is the same; a model named twice is a usage
 * error); only aom_ctc v7.0 replaces the float_ssim it added. */
static void preset_feature(const char *app, CliSettings *s, const char *spec)
{
    add_feature(app, s, parse_feature(app, spec));
}

static void preset_model(const char *app, CliSettings *s, const char *spec)
{
    add_model(app, s, parse_model(app, spec));
}

static void replace_feature(const char *app, CliSettings *s, const char *spec)
{
    CliFeature f = parse_feature(app, spec);
    for (unsigned i = 0; i < s->feature_cnt; i++) {
        if (strcmp(s->feature[i].name, f.name)) continue;
        free(s->feature[i].buf);
        vmaf_feature_dictionary_free(&s->feature[i].opts);
        s->feature[i] = f;
        return;
    }
    add_feature(app, s, f);
}

/* --aom_ctc vN.0: v1.0 and v2.0 are the same; v3.0 adds cambi; v6.0 allows the two inputs
 * different bit depths; v7.0 scores float_ssim at scale 1. */
static void parse_aom_ctc(const char *app, CliSettings *s, const char *v)
{
    static const char *const versions[] = { "v1.0", "v2.0", "v3.0", "v4.0", "v5.0", "v6.0", "v7.0" };
    int n = -1;
    for (int i = 0; i < 7; i++)
        if (!strcmp(v, versions[i])) n = i + 1;
    if (!strcmp(v, "proposed")) usage(app, "`--aom_ctc proposed` is deprecated.");
    if (n < 0) usage(app, "bad aom_ctc version \"%s\"", v);

    preset_model(app, s, "version=vmaf_v0.6.1:name=vmaf");
    preset_model(app, s, "version=vmaf_v0.6.1neg:name=vmaf_neg");
    preset_feature(app, s, "psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5");
    preset_feature(app, s, "ciede");
    preset_feature(app, s, "float_ssim=enable_db=true:clip_db=true");
    preset_feature(app, s, "float_ms_ssim=enable_db=true:clip_db=true");
    preset_feature(app, s, "psnr_hvs");
    if (n >= 3) preset_feature(app, s, "cambi");
    if (n >= 6) s->common_bitdepth = true;
    if (n >= 7) replace_feature(app, s, "float_ssim=scale=1:enable_db=true:clip_db=true");
}

static void parse_nflx_ctc(const char *app, CliSettings *s, const char *v)
{
    if (strcmp(v, "v1.0")) usage(app, "bad nflx_ctc version \"%s\"", v);
    preset_model(app, s, "version=vmaf_4k_v0.6.1:name=vmaf");
    preset_model(app, s, "version=vmaf_4k_v0.6.1neg:name=vmaf_neg");
    preset_feature(app, s, "psnr=enable_chroma=true:enable_apsnr=true");
    preset_feature(app, s, "float_ssim=enable_db=true:clip_db=true");
    preset_feature(app, s, "cambi");
}

/* --segment A:B, A < B, both unsigned (decimal or 0x hex). */
static void parse_segment(const char *app, CliSettings *s, const char *arg)
{
    const char *colon = strchr(arg, ':');
    char first[32];
    const size_t n = colon ? (size_t)(colon - arg) : 0;
    if (!colon || !n || n >= sizeof(first) || !colon[1] || strchr(colon + 1, ':'))
        bad_argument(app, arg, ARG_SEGMENT, "A:B, the frames A..B-1 (A < B)");
    memcpy(first, arg, n);
    first[n] = '\0';
    s->segment_first = parse_unsigned(app, first, ARG_SEGMENT);
    s->segment_last = parse_unsigned(app, colon + 1, ARG_SEGMENT);
    if (s->segment_first >= s->segment_last)
        bad_argument(app, arg, ARG_SEGMENT, "A:B with A < B (the frames A..B-1)");
    s->segment = true;
}

/* --split N: 1..CLI_MAX_SEGMENTS segments. */
static unsigned parse_split(const char *app, const char *arg)
{
    uint64_t v;
    if (parse_u64(arg, 0xffffffffu, &v) || !v || v > CLI_MAX_SEGMENTS)
        bad_argument(app, arg, ARG_SPLIT, "the number of segments, 1..64");
    return (unsigned)v;
}

/* --cuda_devices D[,D...]: device ordinals, repeats allowed (two segments on one device). */
static void parse_cuda_devices(const char *app, CliSettings *s, const char *arg)
{
    static const char *const should_be =
        "a comma-separated list of 1..64 CUDA device ordinals, e.g. 0,1 or 0,0";
    char *buf = copy_arg(app, arg), *rest = buf, *item;
    s->cuda_device_cnt = 0;
    bool bad = !*arg;
    while (!bad && (item = strsep(&rest, ","))) {
        uint64_t v;
        bad = s->cuda_device_cnt == CLI_MAX_SEGMENTS || parse_u64(item, 0x7fffffff, &v);
        if (!bad) s->cuda_device[s->cuda_device_cnt++] = (int)v;
    }
    free(buf);
    if (bad) bad_argument(app, arg, ARG_CUDA_DEVICES, should_be);
}

/* What --merge uses: the parts recorded everything else (inputs, models, features, threads,
 * subsampling, frame ranges, prediction); given with --merge, any other option would be
 * silently without effect, so it is a usage error. */
static bool report_from_takes(int option)
{
    return option == 'o' || option == 'q' || option == ARG_REPORT_FROM || option == ARG_REPORT_FPS;
}

static bool merge_takes(int option)
{
    switch (option) {
    case 'o': case 'q': case ARG_XML: case ARG_JSON: case ARG_CSV: case ARG_SUB:
    case ARG_PRECISION: case ARG_MERGE:
        return true;
    default:
        return false;
    }
}

/* --report-fps: N, N/D, N:D or a decimal number (29.97), positive, as num/den. */
static void parse_report_fps(const char *app, CliSettings *s, const char *arg)
{
    static const char *const should_be = "a frame rate: N, N/D or a decimal number (29.97)";
    char buf[64];
    uint64_t num, den = 1;
    const size_t sep = strcspn(arg, "/:.");
    if (!*arg || sep >= sizeof(buf) || strlen(arg) >= sizeof(buf))
        bad_argument(app, arg, ARG_REPORT_FPS, should_be);
    memcpy(buf, arg, sep);
    buf[sep] = '\0';
    if (parse_u64(buf, 0xffffffffu, &num)) bad_argument(app, arg, ARG_REPORT_FPS, should_be);
    if (arg[sep] == '.') { /* the decimals as a fraction of 10^k */
        const char *frac = arg + sep + 1;
        const size_t k = strlen(frac);
        if (!k || k > 9 || strspn(frac, "0123456789") != k)
            bad_argument(app, arg, ARG_REPORT_FPS, should_be);
        for (size_t i = 0; i < k; i++) {
            num = num * 10 + (uint64_t)(frac[i] - '0');
            den *= 10;
        }
        while (den > 1 && num % 10 == 0) num /= 10, den /= 10;
    } else if (arg[sep] && parse_u64(arg + sep + 1, 0xffffffffu, &den)) {
        bad_argument(app, arg, ARG_REPORT_FPS, should_be);
    }
    if (!num || !den || num > 0xffffffffu) bad_argument(app, arg, ARG_REPORT_FPS, should_be);
    s->report_fps_num = (unsigned)num;
    s->report_fps_den = (unsigned)den;
}

/* Several -d (a ladder): -o once per -d, or once as a template; no segments. */
static void check_ladder(const char *app, CliSettings *s)
{
    if (s->segment || s->split || s->cuda_device_cnt)
        usage(app, "Several distorted inputs (-d) are scored in one pass: not with --segment, "
                   "--split or --cuda_devices");
    if (s->output_cnt == 1 && !strstr(s->output_path, "{n}") && !strstr(s->output_path, "{name}"))
        usage(app, "One -o/--output for %u distorted inputs must be a template with {n} (the "
                   "input's position, from 1) or {name} (its file name without directory and "
                   "extension)", s->dist_cnt);
    if (s->output_cnt > 1 && s->output_cnt != s->dist_cnt)
        usage(app, "%u -o/--output for %u -d/--distorted: give one per distorted input, in the "
                   "same order, or one template with {n} or {name}", s->output_cnt, s->dist_cnt);
}

void cli_parse(int argc, char *const *argv, CliSettings *s)
{
    const char *app = argv[0];
    memset(s, 0, sizeof(*s));
    s->precision = VMAF_OUTPUT_PRECISION_DEFAULT;
    s->opencl_device = -1;
    bool backend_cpu = false, backend_given = false, device_given = false;
    /* VMAF_BACKEND / VMAF_OPENCL_DEVICE are the defaults of --backend / --opencl_device; the
     * CLI attaches the backend itself, so the library must not attach one again at vmaf_init */
    const char *env_backend = getenv("VMAF_BACKEND");
    const char *env_device = getenv("VMAF_OPENCL_DEVICE");
    if (env_backend && *env_backend) {
        if (!strcmp(env_backend, "auto")) s->backend = CLI_BACKEND_AUTO;
        else if (!strcmp(env_backend, "cpu")) s->backend = CLI_BACKEND_CPU;
        else if (!strcmp(env_backend, "cuda")) s->backend = CLI_BACKEND_CUDA;
        else if (!strcmp(env_backend, "opencl")) s->backend = CLI_BACKEND_OPENCL;
        else usage(app, "VMAF_BACKEND=%s: expected cpu, cuda, opencl or auto", env_backend);
    }
    if (env_device && *env_device) {
        uint64_t v;
        if (parse_u64(env_device, 0x7fffffff, &v))
            usage(app, "VMAF_OPENCL_DEVICE=%s: expected a device index (0, 1, ...)", env_device);
        s->opencl_device = (int)v;
    }
    unsetenv("VMAF_BACKEND");
    int o, not_for_merge = 0;        /* the first option --merge cannot honour */
    int not_for_report = 0;          /* ... --report-from cannot honour */
    const char *unknown = NULL;      /* the first unknown long option */
    while ((o = getopt_long(argc, argv, short_opts, long_opts, NULL)) >= 0) {
        if (o != '?' && !not_for_merge && !merge_takes(o)) not_for_merge = o;
        if (o != '?' && !not_for_report && !report_from_takes(o)) not_for_report = o;
        if (o == '?' && !optopt && !unknown) unknown = argv[optind - 1];
        switch (o) {
        case 'r': s->path_ref = optarg; break;
        case 'd':
            if (s->dist_cnt == CLI_MAX_DISTORTED)
                usage(app, "At most %d distorted inputs (-d) in one run", CLI_MAX_DISTORTED);
            if (!s->dist_cnt) s->path_dist = optarg;
            s->dist_path[s->dist_cnt++] = optarg;
            break;
        case 'w': s->width = parse_unsigned(app, optarg, 'w'); s->use_yuv = true; break;
        case 'h': s->height = parse_unsigned(app, optarg, 'h'); s->use_yuv = true; break;
        case 'p': s->pix_fmt = parse_pix_fmt(app, optarg); s->use_yuv = true; break;
        case 'b': s->bitdepth = parse_bitdepth(app, optarg); s->use_yuv = true; break;
        case 'o':
            if (!*optarg) usage(app, "Invalid argument \"\" for option -o/--output; should be a path");
            s->output_path = optarg;
            if (s->output_cnt < CLI_MAX_DISTORTED) s->output_list[s->output_cnt] = optarg;
            s->output_cnt++;
            break;
        case ARG_XML: s->output_fmt = VMAF_OUTPUT_FORMAT_XML; break;
        case ARG_JSON: s->output_fmt = VMAF_OUTPUT_FORMAT_JSON; break;
        case ARG_CSV: s->output_fmt = VMAF_OUTPUT_FORMAT_CSV; break;
        case ARG_SUB: s->output_fmt = VMAF_OUTPUT_FORMAT_SUB; break;
        case ARG_PRECISION: s->precision = parse_precision(app, optarg); break;
        case ARG_BACKEND:
            if (!strcmp(optarg, "auto")) s->backend = CLI_BACKEND_AUTO;
            else if (!strcmp(optarg, "cpu")) s->backend = CLI_BACKEND_CPU;
            else if (!strcmp(optarg, "cuda")) s->backend = CLI_BACKEND_CUDA;
            else if (!strcmp(optarg, "opencl")) s->backend = CLI_BACKEND_OPENCL;
            else bad_argument(app, optarg, ARG_BACKEND, "cpu, cuda, opencl or auto");
            backend_cpu = s->backend == CLI_BACKEND_CPU;
            backend_given = true;
            break;
        case 'm': add_model(app, s, parse_model(app, optarg)); break;
        case ARG_FEATURE: add_feature(app, s, parse_feature(app, optarg)); break;
        case ARG_THREADS: s->threads = parse_unsigned(app, optarg, ARG_THREADS); break;
        case ARG_SUBSAMPLE: s->subsample = parse_unsigned(app, optarg, ARG_SUBSAMPLE); break;
        case ARG_CPUMASK: s->cpumask = parse_mask(app, optarg, ARG_CPUMASK); break;
        case ARG_GPUMASK: s->gpumask = parse_mask(app, optarg, ARG_GPUMASK); break;
        case ARG_AOM_CTC: parse_aom_ctc(app, s, optarg); break;
        case ARG_NFLX_CTC: parse_nflx_ctc(app, s, optarg); break;
        case ARG_FRAME_CNT: s->frame_cnt = parse_unsigned(app, optarg, ARG_FRAME_CNT); break;
        case ARG_FRAME_SKIP_REF:
            s->frame_skip_ref = parse_unsigned(app, optarg, ARG_FRAME_SKIP_REF);
            break;
        case ARG_FRAME_SKIP_DIST:
            s->frame_skip_dist = parse_unsigned(app, optarg, ARG_FRAME_SKIP_DIST);
            break;
        case ARG_SEGMENT: parse_segment(app, s, optarg); break;
        case ARG_MERGE: s->merge = true; break;
        case ARG_SPLIT: s->split = parse_split(app, optarg); break;
        case ARG_CUDA_DEVICES: parse_cuda_devices(app, s, optarg); break;
        case ARG_OPENCL_LIST: s->opencl_list = true; break;
        case ARG_BATCH:
            if (!*optarg) usage(app, "Invalid argument \"\" for option --batch; should be a path");
            s->batch = optarg;
            break;
        case ARG_REPORT:
            if (!*optarg) usage(app, "Invalid argument \"\" for option --report; should be a path");
            s->report = optarg;
            break;
        case ARG_REPORT_FROM: s->report_from = true; break;
        case ARG_REPORT_FPS: parse_report_fps(app, s, optarg); break;
        case ARG_OPENCL_DEVICE:
            s->opencl_device = (int)parse_unsigned(app, optarg, ARG_OPENCL_DEVICE);
            if (s->opencl_device < 0) bad_argument(app, optarg, ARG_OPENCL_DEVICE, "below 2^31");
            device_given = true;
            break;
        case 'n': s->no_prediction = true; break;
        case 'q': s->quiet = true; break;
        case 'v':
            fprintf(stderr, "%s\n", vmaf_version());
            exit(0);
        case '?':
            /* getopt printed why; a bad short option or missing argument is a usage error,
             * an unknown long option is only warned about, as the reference does */
            if (optopt) usage(app, NULL);
            break;
        default: break;
        }
    }
    if (s->report_from) {
        char name[64];
        if (s->merge || not_for_report || unknown)
            usage(app, "--report-from does not take %s: it takes the JSON output files, "
                       "-o/--output (the report), --report-fps and -q/--quiet",
                  s->merge ? "--merge" : not_for_report ? option_name(not_for_report, name,
                  sizeof(name)) : unknown);
        if (optind == argc) usage(app, "--report-from needs the JSON output files to report");
        if (!s->output_path || s->output_cnt > 1)
            usage(app, "--report-from needs one output file (-o/--output): the report");
        if ((unsigned)(argc - optind) > CLI_MAX_DISTORTED)
            usage(app, "--report-from takes at most %d JSON files", CLI_MAX_DISTORTED);
        s->report_json = argv + optind;
        s->report_json_cnt = (unsigned)(argc - optind);
        return;
    }
    if (s->report_fps_den && !s->report)
        usage(app, "--report-fps gives the frame rate of a report: with --report or --report-from");
    if (s->report && (s->merge || s->batch || s->segment || s->opencl_list))
        usage(app, "--report writes the report of a run or a ladder: not with --merge, "
                   "--batch, --segment or --opencl_list (--report-from makes one of JSON "
                   "output files)");
    if (s->report && s->output_path) {
        for (unsigned k = 0; k < s->output_cnt && k < CLI_MAX_DISTORTED; k++)
            if (!strcmp(s->report, s->output_list[k]))
                usage(app, "--report %s is also an output file (-o/--output)", s->report);
    }
    if (s->merge) {
        if (optind == argc) usage(app, "--merge needs the segment results to merge");
        if (!s->output_path) usage(app, "--merge needs an output file (-o/--output)");
        char name[64];
        if (not_for_merge || unknown)
            usage(app, "--merge does not take %s: the parts recorded everything else (--merge "
                       "takes the segment results, -o/--output, --xml/--json/--csv/--sub, "
                       "--precision and -q/--quiet)",
                  not_for_merge ? option_name(not_for_merge, name, sizeof(name)) : unknown);
        s->merge_part = argv + optind;
        s->merge_cnt = (unsigned)(argc - optind);
        if (!s->output_fmt) s->output_fmt = VMAF_OUTPUT_FORMAT_XML;
        return;
    }
    if (optind < argc) usage(app, "Unexpected argument \"%s\"", argv[optind]);
    if (s->opencl_list) return; /* lists and exits: no input needed */
    if (s->batch) { /* every job's line names its inputs and output */
        if (s->path_ref || s->dist_cnt || s->output_cnt)
            usage(app, "--batch takes each job's reference, distorted and output from its file: "
                       "not with -r, -d or -o");
        if (s->segment || s->split || s->cuda_device_cnt)
            usage(app, "--batch scores whole titles: not with --segment, --split or --cuda_devices");
        return;
    }
    if (s->segment && !s->output_path)
        usage(app, "--segment needs an output file (-o/--output) for its segment result");
    if (device_given && s->backend != CLI_BACKEND_OPENCL && s->backend != CLI_BACKEND_AUTO)
        usage(app, "--opencl_device picks the device of --backend opencl (or auto)");
    if (s->cuda_device_cnt) {
        if (backend_cpu) usage(app, "--cuda_devices runs on CUDA devices: not with --backend cpu");
        if (s->backend == CLI_BACKEND_OPENCL && backend_given)
            usage(app, "--cuda_devices runs on CUDA devices: not with --backend opencl");
        if (s->gpumask) usage(app, "--cuda_devices needs CUDA, which a nonzero --gpumask disables");
        if (s->split && s->split != s->cuda_device_cnt)
            usage(app, "--split %u with %u --cuda_devices: the device list gives the segments "
                       "(one per entry)", s->split, s->cuda_device_cnt);
        s->backend = CLI_BACKEND_CUDA;
        s->split = s->cuda_device_cnt;
    }
    if (s->split && s->segment)
        usage(app, "--split scores the whole title in segments: not with --segment");

    if (s->dist_cnt > 1) check_ladder(app, s);

    if (!s->output_fmt) s->output_fmt = VMAF_OUTPUT_FORMAT_XML;
    if (!s->path_ref) usage(app, "Reference .y4m or .yuv (-r/--reference) is required");
    if (!s->path_dist) usage(app, "Distorted .y4m or .yuv (-d/--distorted) is required");
    if (s->use_yuv && !(s->width && s->height && s->pix_fmt && s->bitdepth))
        usage(app, "The following options are required for .yuv input:\n"
                   "  --width/-w\n  --height/-h\n  --pixel_format/-p\n  --bitdepth/-b\n");
    if (!s->model_cnt && !s->no_prediction)
        add_model(app, s, parse_model(app, "version=vmaf_v0.6.1"));
    for (unsigned i = 0; i < s->model_cnt; i++)
        for (unsigned j = i + 1; j < s->model_cnt; j++)
            if (!strcmp(s->model[i].name, s->model[j].name))
                usage(app, "Each model should be uniquely named. "
                           "Set using `--model` via the `name=...` param.");
}

void cli_free(CliSettings *s)
{
    for (unsigned i = 0; i < s->model_cnt; i++) {
        for (unsigned j = 0; j < s->model[i].overload_cnt; j++)
            vmaf_feature_dictionary_free(&s->model[i].overload[j].opts);
        free(s->model[i].buf);
    }
    for (unsigned i = 0; i < s->feature_cnt; i++) {
        vmaf_feature_dictionary_free(&s->feature[i].opts);
        free(s->feature[i].buf);
    }
}

void cli_copy_free(CliSettings *copy)
{
    for (unsigned i = 0; i < copy->model_cnt; i++)
        for (unsigned j = 0; j < copy->model[i].overload_cnt; j++)
            vmaf_feature_dictionary_free(&copy->model[i].overload[j].opts);
    for (unsigned i = 0; i < copy->feature_cnt; i++)
        vmaf_feature_dictionary_free(&copy->feature[i].opts);
}

int cli_copy(const CliSettings *s, CliSettings *copy)
{
    *copy = *s;
    int err = 0;
    for (unsigned i = 0; i < copy->model_cnt; i++)
        for (unsigned j = 0; j < copy->model[i].overload_cnt; j++) {
            VmafDictionary **d = &copy->model[i].overload[j].opts;
            const VmafDictionary *src = *d;
            *d = NULL;
            if (src && !err) err = vmaf_dictionary_copy(src, d);
        }
    for (unsigned i = 0; i < copy->feature_cnt; i++) {
        VmafDictionary **d = &copy->feature[i].opts;
        const VmafDictionary *src = *d;
        *d = NULL;
        if (src && !err) err = vmaf_dictionary_copy(src, d);
    }
    if (err) cli_copy_free(copy);
    return err;
}
