/*
 * Segments (libvmaf.h): a context that scores frames [first, last) of a title, and the
 * segment result it writes for vmaf_segment_merge() (segment_merge.c).
 *
 * The result is a JSON file: what the context was configured with (extractors and their
 * options in registration order, models by source, n_subsample, threading mode, geometry),
 * the library version, the caller's title fingerprint if any (vmaf_segment_set_fingerprint),
 * the frames it read, each extractor's flush counters, and every metric's kept values with
 * the order key its first kept store had (feature_collector.h), so that the merge rebuilds the
 * single run's collector exactly. Doubles are written as the hex of their 64 bits.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "file_write.h"
#include "log.h"
#include "segment.h"

#include "export.h"

/* ---- models registered with a context ---------------------------------------------- */

int vmaf_context_record_model(VmafContext *vmaf, const void *owner, bool collection,
                              const VmafModelSource *source)
{
    for (unsigned i = 0; i < vmaf->model_cnt; i++)
        if (vmaf->model[i].owner == owner) return 0; /* registered again */
    struct VmafContextModel *list = realloc(vmaf->model, (vmaf->model_cnt + 1) * sizeof(*list));
    if (!list) return -ENOMEM;
    vmaf->model = list;
    struct VmafContextModel *m = &list[vmaf->model_cnt];
    m->owner = owner;
    m->collection = collection;
    int err = vmaf_model_source_copy(source, &m->source);
    if (err) return err;
    vmaf->model_cnt++;
    return 0;
}

void vmaf_context_free_models(VmafContext *vmaf)
{
    for (unsigned i = 0; i < vmaf->model_cnt; i++) vmaf_model_source_clear(&vmaf->model[i].source);
    free(vmaf->model);
    vmaf->model = NULL;
    vmaf->model_cnt = 0;
}

/* ---- the segment's frames ---------------------------------------------------------- */

void vmaf_segment_context_of(VmafContext *vmaf, unsigned *before, unsigned *after)
{
    *before = *after = 0;
    for (unsigned i = 0; i < vmaf->inst_cnt; i++) {
        unsigned b, a;
        vmaf_feature_extractor_context(vmaf->inst[i]->fex, vmaf->inst[i]->priv, &b, &a);
        if (b > *before) *before = b;
        if (a > *after) *after = a;
    }
}

VMAF_EXPORT int vmaf_segment_context(VmafContext *vmaf, unsigned *frames_before,
                                     unsigned *frames_after)
{
    if (!vmaf || !frames_before || !frames_after) return -EINVAL;
    vmaf_segment_context_of(vmaf, frames_before, frames_after);
    return 0;
}

VMAF_EXPORT int vmaf_segment_set(VmafContext *vmaf, unsigned first, unsigned last)
{
    if (!vmaf) return -EINVAL;
    if (first >= last) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "segment %u:%u is empty: it needs first < last\n", first, last);
        return -EINVAL;
    }
    if (vmaf->geometry.set || vmaf->flushed || vmaf->segment.set) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "vmaf_segment_set: %s\n", vmaf->segment.set ? "the segment is already set"
                                                             : "called after the first picture");
        return -EINVAL;
    }
    vmaf->segment.set = true;
    vmaf->segment.first = first;
    vmaf->segment.last = last;
    vmaf_feature_collector_keep(vmaf->fc, first, last);
    return 0;
}

VMAF_EXPORT int vmaf_segment_set_prediction(VmafContext *vmaf, int predict)
{
    if (!vmaf) return -EINVAL;
    vmaf->segment.no_prediction = !predict;
    return 0;
}

VMAF_EXPORT int vmaf_segment_set_title_frames(VmafContext *vmaf, unsigned frames, int exact)
{
    if (!vmaf || !frames) return -EINVAL;
    vmaf->segment.title_frames = frames;
    vmaf->segment.title_exact = exact != 0;
    return 0;
}

bool vmaf_segment_fingerprint_ok(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (s[n] < 0x20 || s[n] > 0x7e || n == VMAF_SEGMENT_FINGERPRINT_MAX) return false;
    return n > 0;
}

VMAF_EXPORT int vmaf_segment_set_fingerprint(VmafContext *vmaf, const char *fingerprint)
{
    if (!vmaf) return -EINVAL;
    if (fingerprint && !vmaf_segment_fingerprint_ok(fingerprint)) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "vmaf_segment_set_fingerprint: a fingerprint is 1..%d printable ASCII "
                 "characters\n", VMAF_SEGMENT_FINGERPRINT_MAX);
        return -EINVAL;
    }
    snprintf(vmaf->segment.fingerprint, sizeof(vmaf->segment.fingerprint), "%s",
             fingerprint ? fingerprint : "");
    return 0;
}

int vmaf_context_segment_picture(VmafContext *vmaf, unsigned index)
{
    if (vmaf->segment.any && index != vmaf->segment.read_end) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "segment %u:%u: picture index %u after %u; a segment's pictures come in "
                 "order with consecutive title frame indices\n", vmaf->segment.first,
                 vmaf->segment.last, index, vmaf->segment.read_end - 1);
        return -EINVAL;
    }
    if (!vmaf->segment.any) {
        vmaf->segment.any = true;
        vmaf->segment.read_first = index;
        vmaf->segment.read_end = index;
    }
    vmaf->segment.read_end++;
    return 0;
}

/* ---- writing the result ------------------------------------------------------------ */

void vmaf_segment_put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static void put_string_or_null(FILE *f, const char *s)
{
    if (s) vmaf_segment_put_string(f, s);
    else fputs("null", f);
}

static void put_double(FILE *f, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    fprintf(f, "\"%016" PRIx64 "\"", bits);
}

static void put_dictionary(FILE *f, const VmafDictionary *d)
{
    fputc('[', f);
    for (unsigned i = 0; d && i < d->cnt; i++) {
        fputs(i ? ", [" : "[", f);
        vmaf_segment_put_string(f, d->entry[i].key);
        fputs(", ", f);
        vmaf_segment_put_string(f, d->entry[i].val);
        fputc(']', f);
    }
    fputc(']', f);
}

static void put_models(FILE *f, const VmafContext *vmaf)
{
    fputs("  \"models\": [", f);
    for (unsigned i = 0; i < vmaf->model_cnt; i++) {
        const struct VmafContextModel *m = &vmaf->model[i];
        fprintf(f, "%s\n    {\"collection\": %s, \"version\": ", i ? "," : "",
                m->collection ? "true" : "false");
        put_string_or_null(f, m->source.version);
        fputs(", \"path\": ", f);
        put_string_or_null(f, m->source.path);
        fputs(", \"name\": ", f);
        put_string_or_null(f, m->source.cfg_name);
        fprintf(f, ", \"flags\": %" PRIu64 ", \"overloads\": [", m->source.cfg_flags);
        for (unsigned k = 0; k < m->source.overload_cnt; k++) {
            fputs(k ? ", {\"extractor\": " : "{\"extractor\": ", f);
            vmaf_segment_put_string(f, m->source.overload[k].fex_name);
            fputs(", \"options\": ", f);
            put_dictionary(f, m->source.overload[k].opts);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs("\n  ],\n", f);
}

static void put_extractors(FILE *f, const VmafContext *vmaf)
{
    fputs("  \"extractors\": [", f);
    for (unsigned i = 0; i < vmaf->inst_cnt; i++) {
        const VmafFeatureInstance *inst = vmaf->inst[i];
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        vmaf_segment_put_string(f, inst->fex->name);
        fputs(", \"options\": ", f);
        put_dictionary(f, inst->opts);
        fputs(", \"counters\": [", f);
        uint64_t c[VMAF_FEATURE_MAX_COUNTERS] = { 0 };
        const unsigned n = inst->fex->get_counters ? inst->fex->n_counters : 0;
        if (n) inst->fex->get_counters(inst->priv, c);
        for (unsigned k = 0; k < n; k++) fprintf(f, "%s\"%016" PRIx64 "\"", k ? ", " : "", c[k]);
        fputs("]}", f);
    }
    fputs("\n  ],\n", f);
}

static int put_metrics(FILE *f, VmafContext *vmaf)
{
    VmafFeatureVector **vec;
    VmafAggregate **agg;
    unsigned cnt, agg_cnt;
    int err = vmaf_feature_collector_sorted(vmaf->fc, &vec, &cnt, &agg, &agg_cnt);
    if (err) return err;
    fputs("  \"metrics\": [", f);
    for (unsigned j = 0; j < cnt; j++) {
        const VmafFeatureVector *v = vec[j];
        fprintf(f, "%s\n    {\"name\": ", j ? "," : "");
        vmaf_segment_put_string(f, v->name);
        fprintf(f, ", \"order\": [%u, %u, %u, %u, %u], \"values\": [", (unsigned)v->order.phase,
                (unsigned)v->order.index, (unsigned)v->order.ext, (unsigned)v->order.seq,
                (unsigned)v->order.temporal);
        for (unsigned i = vmaf->segment.first; i < vmaf->segment.last; i++) {
            if (i > vmaf->segment.first) fputs(", ", f);
            if (i < v->capacity && v->written[i]) put_double(f, v->value[i]);
            else fputs("null", f);
        }
        fputs("]}", f);
    }
    fputs("\n  ]\n", f);
    free(vec);
    free(agg);
    return 0;
}

static int check_written(VmafContext *vmaf)
{
    const unsigned first = vmaf->segment.first, last = vmaf->segment.last;
    if (!vmaf->segment.set) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "vmaf_segment_write: no segment was set (vmaf_segment_set)\n");
        return -EINVAL;
    }
    if (!vmaf->flushed) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "vmaf_segment_write: flush the context first (vmaf_read_pictures with NULL)\n");
        return -EINVAL;
    }
    unsigned before, after;
    vmaf_segment_context_of(vmaf, &before, &after);
    const unsigned need = first - (before < first ? before : first);
    if (!vmaf->segment.any || vmaf->segment.read_first > need || vmaf->segment.read_end < last) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "segment %u:%u needs frames %u..%u at least; it got %s%u..%u\n", first, last,
                 need, last - 1, vmaf->segment.any ? "" : "none, not ",
                 vmaf->segment.read_first, vmaf->segment.read_end ? vmaf->segment.read_end - 1 : 0);
        return -EINVAL;
    }
    const unsigned title = vmaf->segment.title_frames;
    if (title && (vmaf->segment.title_exact ? title < last : false)) {
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "segment %u:%u ends after the title's %u frames\n", first, last, title);
        return -EINVAL;
    }
    for (unsigned i = 0; i < vmaf->model_cnt; i++) {
        const VmafModelSource *s = &vmaf->model[i].source;
        if (s->version || s->path) continue;
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "vmaf_segment_write: model %u was not loaded by version or path, so a merge "
                 "cannot load it again\n", i);
        return -EINVAL;
    }
    return 0;
}

/* The segment result's JSON text. */
static int put_result(FILE *f, VmafContext *vmaf)
{
    unsigned before, after;
    vmaf_segment_context_of(vmaf, &before, &after);
    fprintf(f, "{\n  \"%s\": %d,\n  \"version\": ", VMAF_SEGMENT_MAGIC, VMAF_SEGMENT_FORMAT);
    vmaf_segment_put_string(f, vmaf_version());
    fprintf(f, ",\n  \"first\": %u,\n  \"last\": %u,\n  \"frames_read\": [%u, %u],\n",
            vmaf->segment.first, vmaf->segment.last, vmaf->segment.read_first,
            vmaf->segment.read_end);
    if (vmaf->segment.title_frames)
        fprintf(f, "  \"title_frames\": [%u, %s],\n", vmaf->segment.title_frames,
                vmaf->segment.title_exact ? "true" : "false");
    if (vmaf->segment.fingerprint[0]) {
        fputs("  \"fingerprint\": ", f);
        vmaf_segment_put_string(f, vmaf->segment.fingerprint);
        fputs(",\n", f);
    }
    fprintf(f, "  \"context\": [%u, %u],\n  \"n_subsample\": %u,\n  \"threaded\": %s,\n", before,
            after, vmaf->cfg.n_subsample > 1 ? vmaf->cfg.n_subsample : 1,
            vmaf_feature_collector_threaded(vmaf->fc) ? "true" : "false");
    fprintf(f, "  \"geometry\": [%u, %u, %u, %u],\n  \"prediction\": %s,\n  \"cpu_seconds\": ",
            (unsigned)vmaf->geometry.pix_fmt, vmaf->geometry.bpc, vmaf->geometry.w,
            vmaf->geometry.h, vmaf->segment.no_prediction ? "false" : "true");
    put_double(f, vmaf_feature_collector_cpu_seconds(vmaf->fc));
    fputs(",\n", f);
    put_extractors(f, vmaf);
    put_models(f, vmaf);
    const int err = put_metrics(f, vmaf);
    fputs("}\n", f);
    return err;
}

static int put_result_to(FILE *f, void *vmaf)
{
    return put_result(f, vmaf);
}

VMAF_EXPORT int vmaf_segment_write(VmafContext *vmaf, const char *path)
{
    if (!vmaf || !path) return -EINVAL;
    const int err = check_written(vmaf);
    if (err) return err;
    return vmaf_file_write(path, NULL, 0, put_result_to, vmaf, vmaf->cfg.log_level);
}

VMAF_EXPORT int vmaf_segment_write_buffer(VmafContext *vmaf, char **data, size_t *size)
{
    if (!vmaf || !data || !size) return -EINVAL;
    *data = NULL;
    *size = 0;
    int err = check_written(vmaf);
    if (err) return err;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return -ENOMEM;
    err = put_result(f, vmaf);
    if (ferror(f) && !err) err = -ENOMEM;
    if (fclose(f) && !err) err = -ENOMEM;
    if (err) {
        free(buf);
        vmaf_log(vmaf->cfg.log_level, VMAF_LOG_LEVEL_ERROR,
                 "could not write the segment result into memory: %s\n", strerror(-err));
        return err;
    }
    *data = buf;
    *size = len;
    return 0;
}

VMAF_EXPORT void vmaf_segment_buffer_free(char *data)
{
    free(data);
}
