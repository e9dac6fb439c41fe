/*
 * vmaf_segment_merge(): segment results (segment.c) into the output of one run.
 *
 * Every field of every part is validated before anything uses it (check_part: a part is
 * untrusted input), the library version included, then the parts are checked against each
 * other (same title fingerprint, same configuration, segments that tile [0, N)
 * with the context they needed), then a context is rebuilt as the single run's would be after
 * its last frame: the same extractor instances in the same positions, every kept score stored
 * with the order key it had, the FLUSH_AT_MERGE extractors flushed over the whole title (with
 * the parts' counters added up), the models loaded again and scored as the CLI scores them.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "file_write.h"
#include "json.h"
#include "log.h"
#include "output.h"
#include "picture.h"
#include "segment.h"

#include "export.h"

#define LOG_LEVEL VMAF_LOG_LEVEL_INFO

typedef struct Part {
    const char *path;         /* the file, or the name of a part in memory */
    const char *data;         /* a part in memory (vmaf_segment_merge_buffers), or NULL */
    size_t size;
    VmafJson *root;
    unsigned first, last, read_first, read_end, before, after;
} Part;

typedef struct Merge {
    Part *part;
    unsigned n;
    VmafContext *vmaf;
    VmafModel *model[64];
    VmafModelCollection *collection[64];
    unsigned model_cnt;
} Merge;

static int refuse(const char *fmt, ...) VMAF_PRINTF(1, 2);

static int refuse(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    vmaf_log(LOG_LEVEL, VMAF_LOG_LEVEL_ERROR, "segment merge: %s\n", msg);
    return -EINVAL;
}

static int get_unsigned(const VmafJson *j, unsigned *out)
{
    if (!j || j->type != VMAF_JSON_NUMBER || j->number < 0 || j->number > 4294967295.0 ||
        j->number != floor(j->number))
        return -EINVAL;
    *out = (unsigned)j->number;
    return 0;
}

static int get_pair(const VmafJson *j, unsigned *a, unsigned *b)
{
    if (!j || j->type != VMAF_JSON_ARRAY || j->cnt != 2) return -EINVAL;
    if (get_unsigned(j->items[0], a) || get_unsigned(j->items[1], b)) return -EINVAL;
    return 0;
}

static int get_hex(const VmafJson *j, uint64_t *out)
{
    if (!j || j->type != VMAF_JSON_STRING || strlen(j->string) != 16) return -EINVAL;
    char *end;
    *out = strtoull(j->string, &end, 16);
    return *end ? -EINVAL : 0;
}

static int get_double(const VmafJson *j, double *out)
{
    uint64_t bits;
    if (get_hex(j, &bits)) return -EINVAL;
    memcpy(out, &bits, sizeof(*out));
    return 0;
}

static bool json_equal(const VmafJson *a, const VmafJson *b)
{
    if (!a || !b) return a == b;
    if (a->type != b->type || a->cnt != b->cnt) return false;
    switch (a->type) {
    case VMAF_JSON_NULL: return true;
    case VMAF_JSON_BOOL: return a->boolean == b->boolean;
    case VMAF_JSON_NUMBER: return a->number == b->number;
    case VMAF_JSON_STRING: return !strcmp(a->string, b->string);
    default: break;
    }
    for (unsigned i = 0; i < a->cnt; i++) {
        if (a->type == VMAF_JSON_OBJECT && strcmp(a->keys[i], b->keys[i])) return false;
        if (!json_equal(a->items[i], b->items[i])) return false;
    }
    return true;
}

static const VmafJson *typed(const VmafJson *root, const char *key, enum VmafJsonType type)
{
    const VmafJson *j = vmaf_json_get(root, key);
    return j && j->type == type ? j : NULL;
}

/* A refusal of one field of one part: "segment part P: field "F" ...". */
static int bad_field(const Part *p, const char *field, const char *fmt, ...) VMAF_PRINTF(3, 4);

static int bad_field(const Part *p, const char *field, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    return refuse("segment part %s: field \"%s\" %s", p->path, field, why);
}

#define PART_MAX_NAME 255  /* bytes of a metric, extractor, model or option name */
#define PART_MAX_CONTEXT 64 /* frames of context an extractor may declare on a side */
/* frames of a title: 2^26 is 31 days at 25 fps; the merge walks the title frame by frame */
#define PART_MAX_FRAMES (1u << 26)

/* A name as the library writes names: 1..255 bytes, no control character. */
static bool name_ok(const VmafJson *j)
{
    if (!j || j->type != VMAF_JSON_STRING) return false;
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)j->string; *c; c++, n++)
        if (*c < 0x20 || *c == 0x7f || n == PART_MAX_NAME) return false;
    return n > 0;
}

/* An option value or a model path: a string of at most 4095 bytes, no control character. */
static bool value_ok(const VmafJson *j)
{
    if (!j || j->type != VMAF_JSON_STRING) return false;
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)j->string; *c; c++, n++)
        if (*c < 0x20 || *c == 0x7f || n == 4095) return false;
    return true;
}

static bool string_or_null_ok(const VmafJson *j)
{
    return j && (j->type == VMAF_JSON_NULL || name_ok(j));
}

static bool bool_ok(const VmafJson *j)
{
    return j && j->type == VMAF_JSON_BOOL;
}

/* [[key, value], ...] of well-formed names (values: any string without control bytes). */
static bool dictionary_ok(const VmafJson *list)
{
    if (!list || list->type != VMAF_JSON_ARRAY) return false;
    for (unsigned i = 0; i < list->cnt; i++) {
        const VmafJson *kv = list->items[i];
        if (kv->type != VMAF_JSON_ARRAY || kv->cnt != 2 || !name_ok(kv->items[0]) ||
            !value_ok(kv->items[1]))
            return false;
    }
    return true;
}

static int check_extractors(const Part *p)
{
    const VmafJson *ext = vmaf_json_get(p->root, "extractors");
    if (!ext->cnt) return bad_field(p, "extractors", "is empty: a segment runs extractors");
    for (unsigned i = 0; i < ext->cnt; i++) {
        const VmafJson *e = ext->items[i];
        const VmafJson *counters = typed(e, "counters", VMAF_JSON_ARRAY);
        if (e->type != VMAF_JSON_OBJECT || !name_ok(vmaf_json_get(e, "name")))
            return bad_field(p, "extractors", "entry %u has no well-formed \"name\"", i);
        if (!dictionary_ok(vmaf_json_get(e, "options")))
            return bad_field(p, "extractors", "entry %u (%s): bad \"options\" (a list of [key, "
                             "value] strings)", i, vmaf_json_get(e, "name")->string);
        bool ok = counters && counters->cnt <= VMAF_FEATURE_MAX_COUNTERS;
        uint64_t c;
        for (unsigned k = 0; ok && k < counters->cnt; k++) ok = !get_hex(counters->items[k], &c);
        if (!ok)
            return bad_field(p, "extractors", "entry %u (%s): bad \"counters\" (at most %d "
                             "64-bit hex strings)", i, vmaf_json_get(e, "name")->string,
                             VMAF_FEATURE_MAX_COUNTERS);
    }
    return 0;
}

static int check_models(const Part *p)
{
    const VmafJson *models = vmaf_json_get(p->root, "models");
    static const unsigned known_flags = VMAF_MODEL_FLAG_DISABLE_CLIP |
                                        VMAF_MODEL_FLAG_ENABLE_TRANSFORM |
                                        VMAF_MODEL_FLAG_DISABLE_TRANSFORM;
    for (unsigned i = 0; i < models->cnt; i++) {
        const VmafJson *e = models->items[i];
        const VmafJson *version = vmaf_json_get(e, "version"), *path = vmaf_json_get(e, "path");
        const VmafJson *overloads = typed(e, "overloads", VMAF_JSON_ARRAY);
        unsigned flags;
        if (e->type != VMAF_JSON_OBJECT || !bool_ok(vmaf_json_get(e, "collection")))
            return bad_field(p, "models", "entry %u: no \"collection\" (true or false)", i);
        if (!string_or_null_ok(version) || !path || (path->type != VMAF_JSON_NULL && !value_ok(path)) ||
            (version->type == VMAF_JSON_NULL && path->type == VMAF_JSON_NULL))
            return bad_field(p, "models", "entry %u: needs a well-formed \"version\" or \"path\"",
                             i);
        if (!string_or_null_ok(vmaf_json_get(e, "name")))
            return bad_field(p, "models", "entry %u: \"name\" is not a well-formed name (1..%d "
                             "bytes, no control character) or null", i, PART_MAX_NAME);
        if (get_unsigned(vmaf_json_get(e, "flags"), &flags) || (flags & ~known_flags))
            return bad_field(p, "models", "entry %u: \"flags\" are not model flags (0..%u)", i,
                             known_flags);
        for (unsigned k = 0; overloads && k < overloads->cnt; k++) {
            const VmafJson *o = overloads->items[k];
            if (o->type != VMAF_JSON_OBJECT || !name_ok(vmaf_json_get(o, "extractor")) ||
                !dictionary_ok(vmaf_json_get(o, "options")))
                overloads = NULL;
        }
        if (!overloads)
            return bad_field(p, "models", "entry %u: bad \"overloads\" (a list of {extractor, "
                             "options})", i);
    }
    return 0;
}

static int check_metrics(const Part *p)
{
    const VmafJson *metrics = vmaf_json_get(p->root, "metrics");
    const unsigned n_values = p->last - p->first;
    for (unsigned j = 0; j < metrics->cnt; j++) {
        const VmafJson *e = metrics->items[j];
        const VmafJson *name = vmaf_json_get(e, "name");
        const VmafJson *order = typed(e, "order", VMAF_JSON_ARRAY);
        const VmafJson *values = typed(e, "values", VMAF_JSON_ARRAY);
        if (e->type != VMAF_JSON_OBJECT || !name_ok(name))
            return bad_field(p, "metrics", "entry %u: \"name\" is not a well-formed name (1..%d "
                             "bytes, no control character)", j, PART_MAX_NAME);
        for (unsigned k = 0; k < j; k++)
            if (!strcmp(vmaf_json_get(metrics->items[k], "name")->string, name->string))
                return bad_field(p, "metrics", "names %s twice (entries %u and %u)",
                                 name->string, k, j);
        unsigned o[5];
        bool ok = order && order->cnt == 5;
        for (unsigned k = 0; ok && k < 5; k++) ok = !get_unsigned(order->items[k], &o[k]);
        if (!ok || o[0] > VMAF_STORE_PHASE_LATE || o[4] > 1)
            return bad_field(p, "metrics", "entry %u (%s): bad \"order\" (phase 0..2, frame, "
                             "extractor, sequence, temporal 0/1)", j, name->string);
        if (!values || values->cnt != n_values)
            return bad_field(p, "metrics", "entry %u (%s): \"values\" has %u entries; segment "
                             "%u:%u has %u frames", j, name->string, values ? values->cnt : 0,
                             p->first, p->last, n_values);
        for (unsigned k = 0; k < values->cnt; k++) {
            double v;
            if (values->items[k]->type != VMAF_JSON_NULL && get_double(values->items[k], &v))
                return bad_field(p, "metrics", "entry %u (%s): value %u is neither null nor the "
                                 "hex of a double", j, name->string, k);
        }
    }
    return 0;
}

/* Every field of one part, before anything uses it. */
static int check_part(Part *p)
{
    const VmafJson *version = typed(p->root, "version", VMAF_JSON_STRING);
    if (!version)
        return bad_field(p, "version", "is missing: the library version that wrote the part");
    if (strcmp(version->string, vmaf_version()))
        return bad_field(p, "version", "is \"%.64s\": the part was written by another library "
                         "version than this one (\"%s\"); merge it with the version that "
                         "wrote it", version->string, vmaf_version());
    static const char *const arrays[] = { "extractors", "models", "metrics" };
    for (unsigned i = 0; i < 3; i++)
        if (!typed(p->root, arrays[i], VMAF_JSON_ARRAY))
            return bad_field(p, arrays[i], "is missing or not a list");
    if (get_unsigned(vmaf_json_get(p->root, "first"), &p->first))
        return bad_field(p, "first", "is not a frame index");
    if (get_unsigned(vmaf_json_get(p->root, "last"), &p->last) || p->last <= p->first ||
        p->last > PART_MAX_FRAMES)
        return bad_field(p, "last", "is not a frame index after \"first\" (%u), at most %u",
                         p->first, PART_MAX_FRAMES);
    if (get_pair(vmaf_json_get(p->root, "frames_read"), &p->read_first, &p->read_end) ||
        p->read_first > p->first || p->read_end < p->last)
        return bad_field(p, "frames_read", "is not [first, end) of frames read around segment "
                         "%u:%u", p->first, p->last);
    if (get_pair(vmaf_json_get(p->root, "context"), &p->before, &p->after) ||
        p->before > PART_MAX_CONTEXT || p->after > PART_MAX_CONTEXT)
        return bad_field(p, "context", "is not [before, after], frames of context (0..%d)",
                         PART_MAX_CONTEXT);
    const VmafJson *title = vmaf_json_get(p->root, "title_frames");
    unsigned frames;
    if (title && (title->type != VMAF_JSON_ARRAY || title->cnt != 2 ||
                  get_unsigned(title->items[0], &frames) || !bool_ok(title->items[1]) ||
                  frames < p->last || frames > PART_MAX_FRAMES))
        return bad_field(p, "title_frames", "is not [frames, exact] with %u <= frames <= %u",
                         p->last, PART_MAX_FRAMES);
    unsigned subsample;
    if (get_unsigned(vmaf_json_get(p->root, "n_subsample"), &subsample) || !subsample)
        return bad_field(p, "n_subsample", "is not a frame step of 1 or more");
    if (!bool_ok(vmaf_json_get(p->root, "threaded")))
        return bad_field(p, "threaded", "is not true or false");
    if (!bool_ok(vmaf_json_get(p->root, "prediction")))
        return bad_field(p, "prediction", "is not true or false");

    const VmafJson *geometry = typed(p->root, "geometry", VMAF_JSON_ARRAY);
    unsigned geo[4];
    bool ok = geometry && geometry->cnt == 4;
    for (unsigned i = 0; ok && i < 4; i++) ok = !get_unsigned(geometry->items[i], &geo[i]);
    if (!ok)
        return bad_field(p, "geometry", "is not [pixel format, bit depth, width, height]");
    if (geo[0] < VMAF_PIX_FMT_YUV420P || geo[0] > VMAF_PIX_FMT_YUV400P)
        return bad_field(p, "geometry", "has pixel format %u, not one of 1..4 (4:2:0, 4:2:2, "
                         "4:4:4, 4:0:0)", geo[0]);
    if (geo[1] < 8 || geo[1] > 16)
        return bad_field(p, "geometry", "has bit depth %u, not 8..16", geo[1]);
    VmafPictureLayout layout;
    if (!geo[2] || !geo[3] ||
        vmaf_picture_layout(&layout, (enum VmafPixelFormat)geo[0], geo[1], geo[2], geo[3]))
        return bad_field(p, "geometry", "has size %ux%u, beyond the library's limits (1..32768 "
                         "a side)", geo[2], geo[3]);

    double cpu;
    if (get_double(vmaf_json_get(p->root, "cpu_seconds"), &cpu) || !isfinite(cpu) || cpu < 0)
        return bad_field(p, "cpu_seconds", "is not the hex of a finite, non-negative double");
    const VmafJson *fingerprint = vmaf_json_get(p->root, "fingerprint");
    if (fingerprint &&
        (fingerprint->type != VMAF_JSON_STRING || !vmaf_segment_fingerprint_ok(fingerprint->string)))
        return bad_field(p, "fingerprint", "is not 1..%d printable ASCII characters",
                         VMAF_SEGMENT_FINGERPRINT_MAX);
    /* a kept frame (a multiple of n_subsample) stores every extractor's metrics */
    const bool kept = p->first % subsample == 0 || p->last - 1 - (p->last - 1) % subsample > p->first;
    if (kept && !vmaf_json_get(p->root, "metrics")->cnt)
        return bad_field(p, "metrics", "is empty, yet segment %u:%u scores frames (every "
                         "%u)", p->first, p->last, subsample);
    int err = check_extractors(p);
    if (!err) err = check_models(p);
    if (!err) err = check_metrics(p);
    return err;
}

static int load_part(Part *p)
{
    char err[600];
    if (p->data ? vmaf_json_parse(&p->root, p->data, p->size, err, sizeof(err))
                : vmaf_json_parse_file(&p->root, p->path, err, sizeof(err)))
        return refuse("cannot read segment part %s: %s", p->path, err);
    const VmafJson *magic = vmaf_json_get(p->root, VMAF_SEGMENT_MAGIC);
    unsigned format;
    if (p->root->type != VMAF_JSON_OBJECT || get_unsigned(magic, &format))
        return refuse("%s is not a segment result (vmaf --segment writes them)", p->path);
    if (format != VMAF_SEGMENT_FORMAT)
        return bad_field(p, VMAF_SEGMENT_MAGIC, "is format %u; this library reads format %d",
                         format, VMAF_SEGMENT_FORMAT);
    return check_part(p);
}

/* What every part must share: the title, the configuration, not the frames or the values. */
static int check_same(const Part *a, const Part *b)
{
    const VmafJson *fa = vmaf_json_get(a->root, "fingerprint");
    const VmafJson *fb = vmaf_json_get(b->root, "fingerprint");
    if (!fa != !fb)
        return refuse("segment part %s records a title fingerprint (field \"fingerprint\") and "
                      "%s none: parts of one title are recorded alike (the vmaf CLI and twinvmaf "
                      "record one; a library user who does not, none)", fa ? a->path : b->path,
                      fa ? b->path : a->path);
    if (fa && strcmp(fa->string, fb->string))
        return refuse("segment parts %s and %s are of other titles: their inputs differ (field "
                      "\"fingerprint\": %s, %s)", a->path, b->path, fa->string, fb->string);
    static const char *const keys[] = { "version", "context", "n_subsample", "threaded",
                                         "geometry", "prediction", "models" };
    static const char *const what[] = { "library version", "frames of context", "--subsample",
                                        "threading mode (--threads 0 or not)",
                                        "frame size or format", "prediction (-n or not)",
                                        "models" };
    for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (json_equal(vmaf_json_get(a->root, keys[i]), vmaf_json_get(b->root, keys[i])))
            continue;
        return refuse("segment parts %s and %s differ in their %s: they are not parts of one run",
                      a->path, b->path, what[i]);
    }
    const VmafJson *ea = vmaf_json_get(a->root, "extractors");
    const VmafJson *eb = vmaf_json_get(b->root, "extractors");
    bool same = ea->cnt == eb->cnt;
    for (unsigned i = 0; same && i < ea->cnt; i++)
        same = json_equal(vmaf_json_get(ea->items[i], "name"), vmaf_json_get(eb->items[i], "name")) &&
               json_equal(vmaf_json_get(ea->items[i], "options"),
                          vmaf_json_get(eb->items[i], "options"));
    if (!same)
        return refuse("segment parts %s and %s ran other features or feature options: they are "
                      "not parts of one run", a->path, b->path);
    return 0;
}

/* Sorted by first frame, they must tile [0, N), each with the context it needed. */
static int check_frames(Merge *m)
{
    for (unsigned i = 1; i < m->n; i++) {
        Part x = m->part[i];
        unsigned j = i;
        for (; j > 0 && m->part[j - 1].first > x.first; j--) m->part[j] = m->part[j - 1];
        m->part[j] = x;
    }
    const unsigned n_frames = m->part[m->n - 1].last;
    for (unsigned i = 0; i < m->n; i++) {
        const Part *p = &m->part[i];
        const unsigned expect = i ? m->part[i - 1].last : 0;
        if (p->first > expect)
            return refuse("no part scores frames %u..%u (missing segment %u:%u)", expect,
                          p->first - 1, expect, p->first);
        if (p->first < expect)
            return refuse("segment parts %s and %s both score frames %u..%u (overlapping "
                          "segments)", m->part[i - 1].path, p->path, p->first,
                          (expect < p->last ? expect : p->last) - 1);
        const VmafJson *title = typed(p->root, "title_frames", VMAF_JSON_ARRAY);
        unsigned frames;
        if (title && (title->cnt != 2 || get_unsigned(title->items[0], &frames) ||
                      title->items[1]->type != VMAF_JSON_BOOL))
            return refuse("segment part %s: bad title_frames", p->path);
        if (title && (title->items[1]->boolean ? frames != n_frames : frames > n_frames))
            return refuse("segment part %s is of a title of %s%u frames, the parts end at frame "
                          "%u: %s", p->path, title->items[1]->boolean ? "" : "at least ",
                          frames, n_frames - 1,
                          frames > n_frames ? "the last segments are missing"
                                            : "parts of another title");
        const unsigned need_first = p->first - (p->before < p->first ? p->before : p->first);
        const unsigned need_end = p->last + p->after < n_frames ? p->last + p->after : n_frames;
        /* (last <= PART_MAX_FRAMES and after <= PART_MAX_CONTEXT: no wrap) */
        if (p->read_first > need_first || p->read_end < need_end)
            return refuse("segment part %s (frames %u..%u) read frames %u..%u; its extractors "
                          "need %u..%u (%u before, %u after, title of %u frames)", p->path,
                          p->first, p->last - 1, p->read_first, p->read_end - 1, need_first,
                          need_end - 1, p->before, p->after, n_frames);
    }
    return 0;
}

static int dictionary_from(const VmafJson *list, VmafDictionary **dict)
{
    *dict = NULL;
    if (!list || list->type != VMAF_JSON_ARRAY) return -EINVAL;
    for (unsigned i = 0; i < list->cnt; i++) {
        const VmafJson *kv = list->items[i];
        if (kv->type != VMAF_JSON_ARRAY || kv->cnt != 2 || kv->items[0]->type != VMAF_JSON_STRING ||
            kv->items[1]->type != VMAF_JSON_STRING)
            return -EINVAL;
        int err = vmaf_dictionary_set(dict, kv->items[0]->string, kv->items[1]->string, 0);
        if (err) return err;
    }
    return 0;
}

static int add_instance(VmafContext *vmaf, const VmafJson *e, const char *path)
{
    const VmafJson *name = typed(e, "name", VMAF_JSON_STRING);
    const VmafFeatureExtractor *fex = name ? vmaf_feature_extractor_by_name(name->string) : NULL;
    if (!fex)
        return refuse("segment part %s names an extractor this library does not have (%s)",
                      path, name ? name->string : "no name");
    VmafDictionary *opts;
    int err = dictionary_from(vmaf_json_get(e, "options"), &opts);
    if (err) {
        vmaf_dictionary_free(&opts);
        return refuse("segment part %s: bad options of extractor %s", path, fex->name);
    }
    VmafFeatureInstance *inst;
    err = vmaf_feature_instance_create(&inst, fex, opts, LOG_LEVEL);
    if (err) return err;
    return vmaf_context_append_instance(vmaf, inst); /* every one, in the part's order */
}

static const char *string_or_null(const VmafJson *j, const char *key)
{
    const VmafJson *v = typed(j, key, VMAF_JSON_STRING);
    return v ? v->string : NULL;
}

/* Load one recorded model (or collection) again, with its overloads, and register it. */
static int load_model(Merge *m, const VmafJson *e, const char *path)
{
    const char *version = string_or_null(e, "version"), *file = string_or_null(e, "path");
    const VmafJson *coll = typed(e, "collection", VMAF_JSON_BOOL);
    const VmafJson *overloads = typed(e, "overloads", VMAF_JSON_ARRAY);
    unsigned flags;
    if ((!version && !file) || !coll || !overloads || get_unsigned(vmaf_json_get(e, "flags"), &flags) ||
        m->model_cnt >= sizeof(m->model) / sizeof(m->model[0]))
        return refuse("segment part %s: bad model entry", path);
    VmafModelConfig cfg = { .name = string_or_null(e, "name"), .flags = flags };
    const unsigned k = m->model_cnt++;
    const char *label = version ? version : file;
    int err;
    if (coll->boolean)
        err = version ? vmaf_model_collection_load(&m->model[k], &m->collection[k], &cfg, version)
                      : vmaf_model_collection_load_from_path(&m->model[k], &m->collection[k],
                                                             &cfg, file);
    else
        err = version ? vmaf_model_load(&m->model[k], &cfg, version)
                      : vmaf_model_load_from_path(&m->model[k], &cfg, file);
    if (err) return refuse("cannot load model %s again (recorded in %s)", label, path);
    for (unsigned i = 0; i < overloads->cnt; i++) {
        const char *fex = string_or_null(overloads->items[i], "extractor");
        VmafDictionary *opts;
        err = dictionary_from(vmaf_json_get(overloads->items[i], "options"), &opts);
        if (err || !fex) {
            vmaf_dictionary_free(&opts);
            return refuse("segment part %s: bad overload of model %s", path, label);
        }
        err = coll->boolean
                  ? vmaf_model_collection_feature_overload(m->model[k], &m->collection[k], fex, opts)
                  : vmaf_model_feature_overload(m->model[k], fex, opts);
        if (err) return refuse("model %s refuses its recorded overload of %s", label, fex);
    }
    err = coll->boolean ? vmaf_use_features_from_model_collection(m->vmaf, m->collection[k])
                        : vmaf_use_features_from_model(m->vmaf, m->model[k]);
    if (err) return refuse("model %s: cannot register it again", label);
    return 0;
}

static int build_context(Merge *m, enum VmafOutputFormat fmt)
{
    const Part *p0 = &m->part[0];
    unsigned subsample, geo[4];
    const VmafJson *geometry = typed(p0->root, "geometry", VMAF_JSON_ARRAY);
    const VmafJson *threaded = typed(p0->root, "threaded", VMAF_JSON_BOOL);
    if (get_unsigned(vmaf_json_get(p0->root, "n_subsample"), &subsample) || !threaded ||
        !geometry || geometry->cnt != 4)
        return refuse("segment part %s: bad configuration", p0->path);
    for (unsigned i = 0; i < 4; i++)
        if (get_unsigned(geometry->items[i], &geo[i]))
            return refuse("segment part %s: bad geometry", p0->path);

    const VmafConfiguration cfg = { .log_level = LOG_LEVEL, .n_subsample = subsample };
    int err = vmaf_init(&m->vmaf, cfg);
    if (err) return err;
    VmafContext *vmaf = m->vmaf;
    /* the single run's store order depends on its threading mode */
    vmaf_feature_collector_destroy(vmaf->fc);
    vmaf->fc = NULL;
    err = vmaf_feature_collector_init(&vmaf->fc, LOG_LEVEL, threaded->boolean);
    if (err) return err;

    const VmafJson *ext = vmaf_json_get(p0->root, "extractors");
    for (unsigned i = 0; i < ext->cnt; i++) {
        err = add_instance(vmaf, ext->items[i], p0->path);
        if (err) return err;
    }
    const VmafJson *models = vmaf_json_get(p0->root, "models");
    for (unsigned i = 0; i < models->cnt; i++) {
        err = load_model(m, models->items[i], p0->path);
        if (err) return err;
    }
    if (vmaf->inst_cnt != ext->cnt)
        return refuse("segment part %s: its models need extractors it did not run", p0->path);
    unsigned before, after;
    vmaf_segment_context_of(vmaf, &before, &after);
    if (before != p0->before || after != p0->after)
        return bad_field(p0, "context", "is [%u, %u]; its extractors need [%u, %u] frames "
                         "before and after a segment", p0->before, p0->after, before, after);
    err = vmaf_output_check_names(vmaf, fmt);
    if (err) return err;

    vmaf->geometry.set = true;
    vmaf->geometry.pix_fmt = (enum VmafPixelFormat)geo[0];
    vmaf->geometry.bpc = geo[1];
    vmaf->geometry.w = geo[2];
    vmaf->geometry.h = geo[3];
    vmaf->pic_cnt = m->part[m->n - 1].last;
    return 0;
}

static int store_part(VmafContext *vmaf, const Part *p)
{
    const VmafJson *metrics = vmaf_json_get(p->root, "metrics");
    for (unsigned j = 0; j < metrics->cnt; j++) {
        const VmafJson *e = metrics->items[j];
        const VmafJson *name = typed(e, "name", VMAF_JSON_STRING);
        const VmafJson *order = typed(e, "order", VMAF_JSON_ARRAY);
        const VmafJson *values = typed(e, "values", VMAF_JSON_ARRAY);
        unsigned o[5];
        bool ok = name && order && order->cnt == 5 && values && values->cnt == p->last - p->first;
        for (unsigned k = 0; ok && k < 5; k++) ok = !get_unsigned(order->items[k], &o[k]);
        if (!ok) return refuse("segment part %s: bad metric entry %u", p->path, j);
        if (o[0] != VMAF_STORE_PHASE_LATE && o[2] >= vmaf->inst_cnt)
            return bad_field(p, "metrics", "entry %u (%s): \"order\" names extractor %u of %u",
                             j, name->string, o[2], vmaf->inst_cnt);
        for (unsigned k = 0; k < vmaf->score_name_cnt; k++)
            if (!strcmp(vmaf->score_name[k].name, name->string))
                return bad_field(p, "metrics", "entry %u: %s is the name of a model score, "
                                 "which the merge computes", j, name->string);
        const VmafStoreOrder key = { .phase = o[0], .index = o[1], .ext = o[2], .seq = o[3],
                                     .temporal = o[4] != 0 };
        for (unsigned k = 0; k < values->cnt; k++) {
            if (values->items[k]->type == VMAF_JSON_NULL) continue;
            double v;
            if (get_double(values->items[k], &v))
                return refuse("segment part %s: bad value of %s", p->path, name->string);
            int err = vmaf_feature_collector_append(vmaf->fc, name->string, v, p->first + k, key);
            if (err) return err;
        }
    }
    return 0;
}

/* The flush of each FLUSH_AT_MERGE extractor, over the title, with the parts' counters. */
static int flush_merged(Merge *m)
{
    VmafContext *vmaf = m->vmaf;
    const VmafFeatureGeometry geo = {
        .pix_fmt = vmaf->geometry.pix_fmt, .bpc = vmaf->geometry.bpc,
        .w = vmaf->geometry.w, .h = vmaf->geometry.h, .log_level = LOG_LEVEL,
    };
    for (unsigned i = 0; i < vmaf->inst_cnt; i++) {
        VmafFeatureInstance *inst = vmaf->inst[i];
        if (!(inst->fex->flags & VMAF_FEATURE_EXTRACTOR_FLUSH_AT_MERGE) || !inst->fex->flush)
            continue;
        int err = vmaf_feature_instance_init(inst, &geo);
        if (err) return err;
        const unsigned n = inst->fex->add_counters ? inst->fex->n_counters : 0;
        for (unsigned k = 0; n && k < m->n; k++) {
            const VmafJson *ext = vmaf_json_get(m->part[k].root, "extractors");
            const VmafJson *c = typed(ext->items[i], "counters", VMAF_JSON_ARRAY);
            uint64_t counter[VMAF_FEATURE_MAX_COUNTERS];
            bool ok = c && c->cnt == n && n <= VMAF_FEATURE_MAX_COUNTERS;
            for (unsigned t = 0; ok && t < n; t++) ok = !get_hex(c->items[t], &counter[t]);
            if (!ok)
                return refuse("segment part %s: bad counters of %s", m->part[k].path,
                              inst->fex->name);
            inst->fex->add_counters(inst->priv, counter);
        }
        VmafFeatureSink sink = {
            .fc = vmaf->fc,
            .provided = inst->fex->provided_features,
            .mapped = inst->mapped,
            .order = vmaf_store_order(VMAF_STORE_PHASE_FLUSH, inst->fex, i, 0),
        };
        err = inst->fex->flush(inst->priv, &sink);
        if (err) return refuse("%s: flush over the merged frames failed (%s)", inst->fex->name,
                               strerror(-err));
    }
    vmaf->flushed = true;
    return 0;
}

/* As the CLI does: every model pooled over all frames, then every collection. */
static int score_models(Merge *m)
{
    const unsigned last = m->vmaf->pic_cnt - 1;
    for (unsigned i = 0; i < m->model_cnt; i++) {
        double score;
        int err = vmaf_score_pooled(m->vmaf, m->model[i], VMAF_POOL_METHOD_MEAN, &score, 0, last);
        if (err) return refuse("cannot score model %s over the merged frames", m->model[i]->name);
    }
    for (unsigned i = 0; i < m->model_cnt; i++) {
        if (!m->collection[i]) continue;
        VmafModelCollectionScore score = { 0 };
        int err = vmaf_score_pooled_model_collection(m->vmaf, m->collection[i],
                                                     VMAF_POOL_METHOD_MEAN, &score, 0, last);
        if (err)
            return refuse("cannot score model collection %s over the merged frames",
                          m->collection[i]->name);
    }
    return 0;
}

static int merge(Merge *m, enum VmafOutputFormat fmt, VmafSegmentMergedFn merged, void *arg)
{
    for (unsigned i = 0; i < m->n; i++) {
        int err = load_part(&m->part[i]);
        if (err) return err;
        if (i && (err = check_same(&m->part[0], &m->part[i]))) return err;
    }
    int err = check_frames(m);
    if (!err) err = build_context(m, fmt);
    double cpu = 0.;
    for (unsigned i = 0; !err && i < m->n; i++) {
        err = store_part(m->vmaf, &m->part[i]);
        double s;
        if (!get_double(vmaf_json_get(m->part[i].root, "cpu_seconds"), &s)) cpu += s;
    }
    if (err) return err;
    vmaf_feature_collector_set_cpu_seconds(m->vmaf->fc, cpu);
    err = flush_merged(m);
    if (err) return err;
    const VmafJson *prediction = typed(m->part[0].root, "prediction", VMAF_JSON_BOOL);
    if (!prediction || prediction->boolean) {
        err = score_models(m);
        if (err) return err;
    }
    return merged(arg, m->vmaf, m->model, m->collection, m->model_cnt);
}

/* Every part is a file (data NULL) or in memory (data[i], size[i]; names[i] in messages). */
static int merge_parts(const char *const *paths, const char *const *data, const size_t *size,
                       const char *const *names, unsigned n_parts, enum VmafOutputFormat fmt,
                       VmafSegmentMergedFn merged, void *arg)
{
    if (!n_parts || (!paths && !data) || !merged) return -EINVAL;
    if (fmt <= VMAF_OUTPUT_FORMAT_NONE || fmt > VMAF_OUTPUT_FORMAT_SUB) return -EINVAL;
    for (unsigned i = 0; i < n_parts; i++)
        if (paths ? !paths[i] : !data[i] || !size) return -EINVAL;
    Merge m = { .n = n_parts };
    m.part = calloc(n_parts, sizeof(*m.part));
    char (*label)[32] = data ? calloc(n_parts, sizeof(*label)) : NULL;
    int err = -ENOMEM;
    if (m.part && (!data || label)) {
        for (unsigned i = 0; i < n_parts; i++) {
            if (paths) {
                m.part[i].path = paths[i];
                continue;
            }
            snprintf(label[i], sizeof(label[i]), "(part %u in memory)", i);
            m.part[i].path = names && names[i] ? names[i] : label[i];
            m.part[i].data = data[i];
            m.part[i].size = size[i];
        }
        err = merge(&m, fmt, merged, arg);
    }
    for (unsigned i = 0; i < m.model_cnt; i++) {
        vmaf_model_destroy(m.model[i]);
        vmaf_model_collection_destroy(m.collection[i]);
    }
    if (m.vmaf) vmaf_close(m.vmaf);
    for (unsigned i = 0; m.part && i < n_parts; i++) vmaf_json_free(m.part[i].root);
    free(m.part);
    free(label);
    return err;
}

typedef struct WriteTo {
    const char *path;
    enum VmafOutputFormat fmt;
    int precision;
    const char *const *keep; /* the parts: never overwritten */
    unsigned keep_cnt;
} WriteTo;

static int write_merged(void *arg, VmafContext *merged, VmafModel *const *models,
                        VmafModelCollection *const *collections, unsigned model_cnt)
{
    (void)models;
    (void)collections;
    (void)model_cnt;
    const WriteTo *w = arg;
    return vmaf_output_write_keeping(merged, w->path, w->fmt, w->precision, w->keep,
                                     w->keep_cnt);
}

int vmaf_segment_merge_memory(const char *const *data, const size_t *size,
                              const char *const *names, unsigned n_parts,
                              enum VmafOutputFormat fmt, VmafSegmentMergedFn merged, void *arg)
{
    if (!data || !size) return -EINVAL;
    return merge_parts(NULL, data, size, names, n_parts, fmt, merged, arg);
}

VMAF_EXPORT int vmaf_segment_merge_buffers(const char *const *data, const size_t *size,
                                           const char *const *names, unsigned n_parts,
                                           const char *output_path, enum VmafOutputFormat fmt,
                                           int precision)
{
    if (!data || !size || !output_path) return -EINVAL;
    WriteTo w = { .path = output_path, .fmt = fmt, .precision = precision };
    return merge_parts(NULL, data, size, names, n_parts, fmt, write_merged, &w);
}

VMAF_EXPORT int vmaf_segment_merge_with_precision(const char *const *parts, unsigned n_parts,
                                                  const char *output_path,
                                                  enum VmafOutputFormat fmt, int precision)
{
    if (!parts || !n_parts || !output_path) return -EINVAL;
    /* an output that is one of the parts is refused before they are read (and again when
     * written, in case one is put there meanwhile) */
    const int same = vmaf_file_find_same(output_path, parts, n_parts);
    if (same >= 0) {
        vmaf_log(LOG_LEVEL, VMAF_LOG_LEVEL_ERROR,
                 "refusing to write %s: it is the segment result %s\n", output_path, parts[same]);
        return -EINVAL;
    }
    WriteTo w = { .path = output_path, .fmt = fmt, .precision = precision, .keep = parts,
                  .keep_cnt = n_parts };
    return merge_parts(parts, NULL, NULL, NULL, n_parts, fmt, write_merged, &w);
}

VMAF_EXPORT int vmaf_segment_merge(const char *const *parts, unsigned n_parts,
                                   const char *output_path, enum VmafOutputFormat fmt)
{
    return vmaf_segment_merge_with_precision(parts, n_parts, output_path, fmt,
                                             VMAF_OUTPUT_PRECISION_DEFAULT);
}
