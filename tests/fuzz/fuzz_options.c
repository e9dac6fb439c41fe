/*
 * libFuzzer: feature options, as the CLI's --feature gives them: NAME[=KEY=VAL[:KEY=VAL...]].
 * An extractor that accepts its options also scores three small frames (depth and content
 * from the input) and flushes, so options reach init, extract and flush.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "feature/feature_extractor.h"

static void fill(VmafPicture *p, const uint8_t *data, size_t size, unsigned salt)
{
    const unsigned max = (1u << p->bpc) - 1;
    unsigned k = salt;
    for (unsigned c = 0; c < 3; c++)
        for (unsigned y = 0; p->data[c] && y < p->h[c]; y++)
            for (unsigned x = 0; x < p->w[c]; x++, k++) {
                const unsigned v = (data[k % size] * 2654435761u + k * 40503u) % (max + 1);
                uint8_t *row = (uint8_t *)p->data[c] + y * p->stride[c];
                if (p->bpc == 8) row[x] = (uint8_t)v;
                else ((uint16_t *)row)[x] = (uint16_t)v;
            }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size || size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    char *rest = text;
    const char *name = strsep(&rest, "=");
    VmafFeatureDictionary *opts = NULL;
    char *kv;
    while (rest && (kv = strsep(&rest, ":"))) {
        const char *key = strsep(&kv, "=");
        if (*key && kv && *kv) vmaf_feature_dictionary_set(&opts, key, kv);
    }
    VmafContext *vmaf = NULL;
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE, .n_subsample = 1 + data[0] % 2 };
    if (vmaf_init(&vmaf, cfg)) {
        vmaf_feature_dictionary_free(&opts);
        free(text);
        return 0;
    }
    /* the context owns the options unless it does not know the extractor */
    const int known = vmaf_feature_extractor_by_name(name) != NULL;
    const int err = vmaf_use_feature(vmaf, name, opts);
    if (!known) vmaf_feature_dictionary_free(&opts);
    if (!err) {
        static const unsigned depth[4] = { 8, 10, 12, 16 };
        const unsigned bpc = depth[data[size - 1] % 4];
        const enum VmafPixelFormat fmt = (enum VmafPixelFormat)(1 + data[size - 1] / 4 % 3);
        const unsigned w = 16 + data[size - 1] % 23, h = 16 + data[0] % 19;
        for (unsigned i = 0; i < 3; i++) {
            VmafPicture ref, dist;
            if (vmaf_picture_alloc(&ref, fmt, bpc, w, h)) break;
            if (vmaf_picture_alloc(&dist, fmt, bpc, w, h)) {
                vmaf_picture_unref(&ref);
                break;
            }
            fill(&ref, data, size, i);
            fill(&dist, data, size, 7 * i + 3);
            if (vmaf_read_pictures(vmaf, &ref, &dist, i)) {
                /* as the reference, a failed read may leave the pictures with the caller */
                if (ref.ref) vmaf_picture_unref(&ref);
                if (dist.ref) vmaf_picture_unref(&dist);
                break;
            }
        }
        vmaf_read_pictures(vmaf, NULL, NULL, 0);
    }
    vmaf_close(vmaf);
    free(text);
    return 0;
}
