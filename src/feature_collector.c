#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "feature/feature_extractor.h"
#include "feature_collector.h"
#include "log.h"

struct VmafFeatureCollector {
    pthread_mutex_t lock;
    VmafFeatureVector **vec;
    unsigned cnt, cap;
    VmafAggregate *agg;
    unsigned agg_cnt, agg_cap;
    uint32_t late_seq;
    bool timer_started;
    clock_t begin, end;
    enum VmafLogLevel log_level;
    bool threaded;
    /* stores copied into other collectors (a ladder's shared extractors), see
     * vmaf_feature_collector_forward() */
    struct VmafCollectorForward {
        unsigned src_ext;
        VmafFeatureCollector *dst;
        unsigned dst_ext;
    } *fwd;
    unsigned fwd_cnt, fwd_cap;
    bool segment;                 /* stores outside [keep_first, keep_last) are dropped */
    unsigned keep_first, keep_last;
    bool cpu_set;                 /* cpu seconds given (a merge), not measured */
    double cpu_seconds;
};

/* The sort key of a store (see feature_collector.h): compared field by field. */
enum { KEY_PHASE, KEY_SLOT, KEY_RANK, KEY_INDEX, KEY_EXT, KEY_SEQ, KEY_LEN };

static void order_key(bool threaded, VmafStoreOrder o, uint32_t key[KEY_LEN])
{
    key[KEY_PHASE] = o.phase;
    key[KEY_SLOT] = o.index;
    key[KEY_RANK] = 0;
    key[KEY_INDEX] = o.index;
    key[KEY_EXT] = o.ext;
    key[KEY_SEQ] = o.seq;
    if (!threaded || o.phase == VMAF_STORE_PHASE_LATE) return;
    key[KEY_RANK] = o.temporal ? 0 : 1;
    if (o.phase == VMAF_STORE_PHASE_EXTRACT && o.temporal && o.index > 0)
        key[KEY_SLOT] = o.index - 1;
}

static int order_cmp(bool threaded, VmafStoreOrder a, VmafStoreOrder b)
{
    uint32_t ka[KEY_LEN], kb[KEY_LEN];
    order_key(threaded, a, ka);
    order_key(threaded, b, kb);
    for (int i = 0; i < KEY_LEN; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

int vmaf_feature_collector_init(VmafFeatureCollector **fc_out, enum VmafLogLevel log_level,
                                bool threaded)
{
    if (!fc_out) return -EINVAL;
    VmafFeatureCollector *fc = calloc(1, sizeof(*fc));
    if (!fc) return -ENOMEM;
    pthread_mutex_init(&fc->lock, NULL);
    fc->log_level = log_level;
    fc->threaded = threaded;
    *fc_out = fc;
    return 0;
}

void vmaf_feature_collector_destroy(VmafFeatureCollector *fc)
{
    if (!fc) return;
    for (unsigned i = 0; i < fc->cnt; i++) {
        free(fc->vec[i]->name);
        free(fc->vec[i]->value);
        free(fc->vec[i]->written);
        free(fc->vec[i]);
    }
    free(fc->vec);
    for (unsigned i = 0; i < fc->agg_cnt; i++) free(fc->agg[i].name);
    free(fc->agg);
    free(fc->fwd);
    pthread_mutex_destroy(&fc->lock);
    free(fc);
}

static VmafFeatureVector *find_vector(VmafFeatureCollector *fc, const char *name)
{
    for (unsigned i = 0; i < fc->cnt; i++)
        if (!strcmp(fc->vec[i]->name, name)) return fc->vec[i];
    return NULL;
}

static VmafFeatureVector *create_vector(VmafFeatureCollector *fc, const char *name,
                                        VmafStoreOrder order)
{
    if (fc->cnt == fc->cap) {
        const unsigned cap = fc->cap ? 2 * fc->cap : 16;
        VmafFeatureVector **vec = realloc(fc->vec, cap * sizeof(*vec));
        if (!vec) return NULL;
        fc->vec = vec;
        fc->cap = cap;
    }
    VmafFeatureVector *v = calloc(1, sizeof(*v));
    if (!v) return NULL;
    v->name = strdup(name);
    if (!v->name) {
        free(v);
        return NULL;
    }
    v->order = order;
    fc->vec[fc->cnt++] = v;
    return v;
}

static int grow_vector(VmafFeatureVector *v, unsigned index)
{
    if (index < v->capacity) return 0;
    if (index >= (1u << 30)) return -EINVAL;
    unsigned cap = v->capacity ? v->capacity : 64;
    while (cap <= index) cap *= 2;
    double *value = realloc(v->value, cap * sizeof(*value));
    if (!value) return -ENOMEM;
    v->value = value;
    uint8_t *written = realloc(v->written, cap);
    if (!written) return -ENOMEM;
    memset(written + v->capacity, 0, cap - v->capacity);
    v->written = written;
    v->capacity = cap;
    return 0;
}

static bool keeps(const VmafFeatureCollector *fc, unsigned index)
{
    return !fc->segment || (index >= fc->keep_first && index < fc->keep_last);
}

static int append_locked(VmafFeatureCollector *fc, const char *name, double value,
                         unsigned index, VmafStoreOrder order)
{
    /* a context frame's score: dropped before it can create a vector or set its order */
    if (!keeps(fc, index)) return 0;
    VmafFeatureVector *v = find_vector(fc, name);
    if (!v) {
        v = create_vector(fc, name, order);
        if (!v) return -ENOMEM;
    } else if (order_cmp(fc->threaded, order, v->order) < 0) {
        v->order = order;
    }
    int err = grow_vector(v, index);
    if (err) return err;
    if (v->written[index]) {
        vmaf_log(fc->log_level, VMAF_LOG_LEVEL_ERROR,
                 "feature \"%s\" cannot be overwritten at index %u\n", name, index);
        return -EINVAL;
    }
    v->value[index] = value;
    v->written[index] = 1;

    const clock_t now = clock();
    if (!fc->timer_started) {
        fc->begin = now;
        fc->timer_started = true;
    }
    fc->end = now;
    return 0;
}

int vmaf_feature_collector_append(VmafFeatureCollector *fc, const char *name, double value,
                                  unsigned index, VmafStoreOrder order)
{
    if (!fc || !name) return -EINVAL;
    pthread_mutex_lock(&fc->lock);
    int err = append_locked(fc, name, value, index, order);
    /* under this lock: a forward is never removed while a store is copied through it; the
     * destinations forward nothing, so locks are only ever taken source first */
    for (unsigned i = 0; !err && i < fc->fwd_cnt; i++) {
        if (fc->fwd[i].src_ext != order.ext || order.phase != VMAF_STORE_PHASE_EXTRACT) continue;
        VmafStoreOrder o = order;
        o.ext = fc->fwd[i].dst_ext;
        err = vmaf_feature_collector_append(fc->fwd[i].dst, name, value, index, o);
    }
    pthread_mutex_unlock(&fc->lock);
    return err;
}

int vmaf_feature_collector_forward(VmafFeatureCollector *fc, unsigned src_ext,
                                   VmafFeatureCollector *dst, unsigned dst_ext)
{
    if (!fc || !dst || fc == dst || dst->fwd_cnt) return -EINVAL;
    int err = 0;
    pthread_mutex_lock(&fc->lock);
    if (fc->fwd_cnt == fc->fwd_cap) {
        const unsigned cap = fc->fwd_cap ? 2 * fc->fwd_cap : 8;
        struct VmafCollectorForward *f = realloc(fc->fwd, cap * sizeof(*f));
        if (!f) {
            err = -ENOMEM;
            goto unlock;
        }
        fc->fwd = f;
        fc->fwd_cap = cap;
    }
    fc->fwd[fc->fwd_cnt++] = (struct VmafCollectorForward){ src_ext, dst, dst_ext };
unlock:
    pthread_mutex_unlock(&fc->lock);
    return err;
}

void vmaf_feature_collector_unforward(VmafFeatureCollector *fc, const VmafFeatureCollector *dst)
{
    if (!fc) return;
    pthread_mutex_lock(&fc->lock);
    unsigned n = 0;
    for (unsigned i = 0; i < fc->fwd_cnt; i++)
        if (fc->fwd[i].dst != dst) fc->fwd[n++] = fc->fwd[i];
    fc->fwd_cnt = n;
    pthread_mutex_unlock(&fc->lock);
}

int vmaf_feature_collector_append_late(VmafFeatureCollector *fc, const char *name,
                                       double value, unsigned index)
{
    if (!fc || !name) return -EINVAL;
    pthread_mutex_lock(&fc->lock);
    const VmafStoreOrder order = { .phase = VMAF_STORE_PHASE_LATE, .seq = fc->late_seq++ };
    int err = append_locked(fc, name, value, index, order);
    pthread_mutex_unlock(&fc->lock);
    return err;
}

int vmaf_feature_collector_get_score(VmafFeatureCollector *fc, const char *name,
                                     double *value, unsigned index)
{
    if (!fc || !name || !value) return -EINVAL;
    int err = -EINVAL;
    pthread_mutex_lock(&fc->lock);
    const VmafFeatureVector *v = find_vector(fc, name);
    if (v && index < v->capacity && v->written[index]) {
        *value = v->value[index];
        err = 0;
    }
    pthread_mutex_unlock(&fc->lock);
    return err;
}

int vmaf_feature_collector_set_aggregate(VmafFeatureCollector *fc, const char *name,
                                         double value, VmafStoreOrder order)
{
    if (!fc || !name) return -EINVAL;
    if (fc->segment) return 0; /* a segment's aggregate covers part of the title: the merge's */
    int err = 0;
    pthread_mutex_lock(&fc->lock);
    for (unsigned i = 0; i < fc->agg_cnt; i++) {
        if (strcmp(fc->agg[i].name, name)) continue;
        fc->agg[i].value = value;
        goto unlock;
    }
    if (fc->agg_cnt == fc->agg_cap) {
        const unsigned cap = fc->agg_cap ? 2 * fc->agg_cap : 8;
        VmafAggregate *agg = realloc(fc->agg, cap * sizeof(*agg));
        if (!agg) {
            err = -ENOMEM;
            goto unlock;
        }
        fc->agg = agg;
        fc->agg_cap = cap;
    }
    char *copy = strdup(name);
    if (!copy) {
        err = -ENOMEM;
        goto unlock;
    }
    fc->agg[fc->agg_cnt++] = (VmafAggregate){ .name = copy, .value = value, .order = order };
unlock:
    pthread_mutex_unlock(&fc->lock);
    return err;
}

/* Insertion sorts by order key (tens of metrics; names are unique per key). */
static void sort_vectors(bool threaded, VmafFeatureVector **v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        VmafFeatureVector *x = v[i];
        unsigned j = i;
        for (; j > 0 && order_cmp(threaded, x->order, v[j - 1]->order) < 0; j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

static void sort_aggregates(bool threaded, VmafAggregate **a, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        VmafAggregate *x = a[i];
        unsigned j = i;
        for (; j > 0 && order_cmp(threaded, x->order, a[j - 1]->order) < 0; j--) a[j] = a[j - 1];
        a[j] = x;
    }
}

int vmaf_feature_collector_sorted(VmafFeatureCollector *fc, VmafFeatureVector ***vec_out,
                                  unsigned *cnt, VmafAggregate ***agg_out, unsigned *agg_cnt)
{
    if (!fc || !vec_out || !cnt || !agg_out || !agg_cnt) return -EINVAL;
    pthread_mutex_lock(&fc->lock);
    VmafFeatureVector **vec = malloc((fc->cnt + 1) * sizeof(*vec));
    VmafAggregate **agg = malloc((fc->agg_cnt + 1) * sizeof(*agg));
    if (!vec || !agg) {
        pthread_mutex_unlock(&fc->lock);
        free(vec);
        free(agg);
        return -ENOMEM;
    }
    if (fc->cnt) memcpy(vec, fc->vec, fc->cnt * sizeof(*vec)); /* fc->vec is NULL before any store */
    for (unsigned i = 0; i < fc->agg_cnt; i++) agg[i] = &fc->agg[i];
    *cnt = fc->cnt;
    *agg_cnt = fc->agg_cnt;
    sort_vectors(fc->threaded, vec, *cnt);
    sort_aggregates(fc->threaded, agg, *agg_cnt);
    pthread_mutex_unlock(&fc->lock);
    *vec_out = vec;
    *agg_out = agg;
    return 0;
}

void vmaf_feature_collector_keep(VmafFeatureCollector *fc, unsigned first, unsigned last)
{
    pthread_mutex_lock(&fc->lock);
    fc->segment = true;
    fc->keep_first = first;
    fc->keep_last = last;
    pthread_mutex_unlock(&fc->lock);
}

bool vmaf_feature_collector_keeps(VmafFeatureCollector *fc, unsigned index)
{
    pthread_mutex_lock(&fc->lock);
    const bool k = keeps(fc, index);
    pthread_mutex_unlock(&fc->lock);
    return k;
}

bool vmaf_feature_collector_threaded(const VmafFeatureCollector *fc)
{
    return fc->threaded;
}

void vmaf_feature_collector_set_cpu_seconds(VmafFeatureCollector *fc, double seconds)
{
    pthread_mutex_lock(&fc->lock);
    fc->cpu_set = true;
    fc->cpu_seconds = seconds;
    pthread_mutex_unlock(&fc->lock);
}

double vmaf_feature_collector_cpu_seconds(VmafFeatureCollector *fc)
{
    pthread_mutex_lock(&fc->lock);
    const double s = fc->cpu_set ? fc->cpu_seconds : (double)(fc->end - fc->begin) / CLOCKS_PER_SEC;
    pthread_mutex_unlock(&fc->lock);
    return s;
}

/* The sink: name mapping for one extractor call. */

static const char *sink_name(const VmafFeatureSink *sink, const char *name)
{
    if (!sink->provided) return name;
    for (unsigned i = 0; sink->provided[i]; i++)
        if (sink->provided[i] == name || !strcmp(sink->provided[i], name))
            return sink->mapped[i];
    return name;
}

int vmaf_feature_sink_append(VmafFeatureSink *sink, const char *name, double value,
                             unsigned index)
{
    if (!sink || !name) return -EINVAL;
    VmafStoreOrder order = sink->order;
    sink->order.seq++;
    return vmaf_feature_collector_append(sink->fc, sink_name(sink, name), value, index, order);
}

int vmaf_feature_sink_get(VmafFeatureSink *sink, const char *name, double *value,
                          unsigned index)
{
    if (!sink || !name) return -EINVAL;
    return vmaf_feature_collector_get_score(sink->fc, sink_name(sink, name), value, index);
}

bool vmaf_feature_sink_keeps(const VmafFeatureSink *sink, unsigned index)
{
    return sink && vmaf_feature_collector_keeps(sink->fc, index);
}

int vmaf_feature_sink_set_aggregate(VmafFeatureSink *sink, const char *name, double value)
{
    if (!sink || !name) return -EINVAL;
    VmafStoreOrder order = sink->order;
    sink->order.seq++;
    return vmaf_feature_collector_set_aggregate(sink->fc, name, value, order);
}
