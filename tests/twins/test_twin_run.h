/*
 * Twin VMAF tests: what the twins' host tests share — a frame of a shared clip, and a CPU
 * extractor driven through its vtable into its own collector (tests/test_*_twin.c).
 */
#ifndef VMAF_TESTS_TEST_TWIN_RUN_H
#define VMAF_TESTS_TEST_TWIN_RUN_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/feature_extractor.h"
#include "feature_collector.h"
#include "libvmaf/picture.h"
#include "opt.h"

/* Frame k of a clip file (DIR/NAME_ref.yuv or NAME_dis.yuv), in pic's geometry. */
static inline int test_read_clip(const char *dir, VmafPicture *pic, const char *name, bool dis,
                                 unsigned k)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s_%s.yuv", dir, name, dis ? "dis" : "ref");
    FILE *f = fopen(path, "rb");
    if (!f) return -ENOENT;
    const unsigned bps = pic->bpc > 8 ? 2 : 1;
    size_t frame = 0;
    for (unsigned p = 0; p < 3; p++) frame += (size_t)pic->w[p] * pic->h[p] * bps;
    int err = fseek(f, (long)(frame * k), SEEK_SET) ? -EIO : 0;
    for (unsigned p = 0; !err && p < 3; p++)
        for (unsigned i = 0; !err && i < pic->h[p]; i++)
            if (fread((uint8_t *)pic->data[p] + i * pic->stride[p], bps, pic->w[p], f) !=
                pic->w[p])
                err = -EIO;
    fclose(f);
    return err;
}

/* A CPU extractor (by name, options as name/value pairs) storing into its own collector. */
typedef struct Run {
    const VmafFeatureExtractor *fex;
    void *priv;
    VmafFeatureCollector *fc;
    VmafFeatureSink sink;
} Run;

static inline int run_open(Run *r, const char *name, const char *const *opts,
                           const VmafFeatureGeometry *g)
{
    memset(r, 0, sizeof(*r));
    r->fex = vmaf_feature_extractor_by_name(name);
    if (!r->fex) return -EINVAL;
    r->priv = calloc(1, r->fex->priv_size);
    int err = r->priv ? vmaf_feature_collector_init(&r->fc, VMAF_LOG_LEVEL_NONE, false) : -ENOMEM;
    for (const VmafOption *o = r->fex->options; !err && o->name; o++)
        err = vmaf_option_set(o, r->priv, NULL);
    for (unsigned k = 0; !err && opts && opts[k]; k += 2) {
        const VmafOption *o = r->fex->options;
        while (o->name && strcmp(o->name, opts[k])) o++;
        err = o->name ? vmaf_option_set(o, r->priv, opts[k + 1]) : -EINVAL;
    }
    if (!err) err = r->fex->init(r->priv, g);
    r->sink.fc = r->fc;
    r->sink.provided = r->fex->provided_features;
    r->sink.mapped = (char *const *)r->fex->provided_features;
    return err;
}

static inline void run_close(Run *r)
{
    if (r->fex && r->fex->close) r->fex->close(r->priv);
    free(r->priv);
    if (r->fc) vmaf_feature_collector_destroy(r->fc);
}

#endif /* VMAF_TESTS_TEST_TWIN_RUN_H */
