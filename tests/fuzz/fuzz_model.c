/*
 * libFuzzer: model files. The bytes are parsed as JSON, loaded as a single model and as a
 * collection (both flags sets), and every model that loads predicts once from feature values
 * taken from the input, so the SVM, transform, clip and bootstrap code run too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "feature_collector.h"
#include "json.h"
#include "model.h"

static void predict(const VmafModel *m, const uint8_t *data, size_t size, uint64_t flags)
{
    VmafFeatureCollector *fc;
    if (vmaf_feature_collector_init(&fc, VMAF_LOG_LEVEL_NONE, false)) return;
    for (unsigned i = 0; i < m->n_features; i++) {
        const double v = size ? (double)data[i % size] / 37.0 - 1.0 : 0.5;
        vmaf_feature_collector_append(fc, m->feature[i].collector_name, v, 0,
                                      (VmafStoreOrder){ 0 });
    }
    double s;
    bool written;
    vmaf_model_predict(m, fc, 0, flags, &s, &written, VMAF_LOG_LEVEL_NONE);
    vmaf_feature_collector_destroy(fc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VmafJson *root = NULL;
    char err[256];
    if (vmaf_json_parse(&root, (const char *)data, size, err, sizeof(err))) return 0;
    for (uint64_t flags = 0; flags < 3; flags += 2) {
        const VmafModelConfig cfg = { .name = "vmaf", .flags = flags };
        VmafModel *m = NULL;
        if (!vmaf_model_from_json(&m, &cfg, root, "fuzz")) {
            predict(m, data, size, 0);
            predict(m, data, size, VMAF_MODEL_FLAG_DISABLE_CLIP);
            vmaf_model_destroy(m);
        }
        VmafModel *first = NULL;
        VmafModelCollection *mc = NULL;
        if (!vmaf_model_collection_from_json(&first, &mc, &cfg, root, "fuzz")) {
            double *raw = calloc(mc->cnt, sizeof(*raw));
            for (unsigned i = 0; raw && i < mc->cnt; i++) {
                predict(mc->model[i], data, size, 0);
                raw[i] = (double)i * 1.5;
            }
            VmafModelCollectionScore score;
            if (raw) vmaf_model_bootstrap(mc->model[0], raw, mc->cnt, &score);
            free(raw);
            vmaf_model_destroy(first);
            vmaf_model_collection_destroy(mc);
        }
    }
    vmaf_json_free(root);
    return 0;
}
