/*
 * Twin VMAF — extractor "ciede": mean CIEDE2000 difference as a score (ciede.h describes the
 * arithmetic and the chroma upsampling).
 *
 * Each row's chroma is upsampled into row buffers first, so the pixel loop reads the same
 * way for every pixel format. Two shortcuts keep the reference's bits: a pixel whose
 * reference and distorted triples are equal differs by exactly 0 (every term of CIEDE2000
 * is then 0; adding 0 leaves the sum unchanged), and CIELAB colours are kept in a
 * direct-mapped cache keyed by the sample triple (the colour is a pure function of the triple
 * and the depth), shared by both pictures and kept across frames.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ciede.h"
#include "ciede_device.h"
#include "feature_extractor.h"

/* A cached CIELAB colour: key = Y << 32 | U << 16 | V, LAB_EMPTY when unused. */
typedef struct LabEntry {
    uint64_t key;
    VmafCiedeLab lab;
} LabEntry;

enum { LAB_CACHE_BITS = 16 };
#define LAB_EMPTY UINT64_MAX

typedef struct CiedeState {
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
    float *rows; /* 4 rows of w: reference U, V, distorted U, V */
    LabEntry *cache; /* 2^LAB_CACHE_BITS entries */
} CiedeState;

static int ciede_init(void *priv, const VmafFeatureGeometry *g)
{
    CiedeState *s = priv;
    if (g->pix_fmt == VMAF_PIX_FMT_YUV400P) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR, "ciede: needs chroma (4:0:0 given)\n");
        return -EINVAL;
    }
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h || g->w > (1u << 20) || g->h > (1u << 20)) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "ciede: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    s->pix_fmt = g->pix_fmt;
    s->bpc = g->bpc;
    s->w = g->w;
    s->h = g->h;
    s->rows = malloc(4 * (size_t)g->w * sizeof(float));
    s->cache = malloc(sizeof(LabEntry) << LAB_CACHE_BITS);
    if (!s->rows || !s->cache) return -ENOMEM;
    for (size_t i = 0; i < (size_t)1 << LAB_CACHE_BITS; i++)
        s->cache[i].key = LAB_EMPTY;
    return 0;
}

static void ciede_close(void *priv)
{
    CiedeState *s = priv;
    free(s->rows);
    free(s->cache);
    s->rows = NULL;
    s->cache = NULL;
}

static inline unsigned sample(const VmafPicture *pic, unsigned p, unsigned r, unsigned c)
{
    const uint8_t *row = (const uint8_t *)pic->data[p] + (ptrdiff_t)r * pic->stride[p];
    return pic->bpc > 8 ? ((const uint16_t *)row)[c] : row[c];
}

/* Chroma plane p of pic upsampled to row i of the luma grid (ciede_device.h). */
static void chroma_row(const CiedeState *s, const VmafPicture *pic, unsigned p, unsigned i,
                       float *out)
{
    const VmafCiedePlanes planes = vmaf_ciede_planes_of(pic);
    const unsigned layout = vmaf_ciede_layout(s->pix_fmt);
    for (unsigned j = 0; j < s->w; j++)
        out[j] = vmaf_ciede_chroma_at(&planes, p, s->bpc, layout, i, j);
}

/* CIELAB of a triple, from the cache or computed (and cached). */
static inline VmafCiedeLab lab_of(LabEntry *cache, float y, float u, float v, unsigned bpc)
{
    const uint64_t key = (uint64_t)y << 32 | (uint64_t)u << 16 | (uint64_t)v;
    LabEntry *e = &cache[(key * 0x9E3779B97F4A7C15ull) >> (64 - LAB_CACHE_BITS)];
    if (e->key != key) {
        e->lab = vmaf_ciede_lab(y, u, v, bpc);
        e->key = key;
    }
    return e->lab;
}

static int ciede_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    CiedeState *s = priv;
    const VmafPicture *ref = frame->ref, *dis = frame->dist;
    if (!ref || !dis || ref->w[0] != s->w || ref->h[0] != s->h || dis->w[0] != s->w ||
        dis->h[0] != s->h || ref->pix_fmt != s->pix_fmt || dis->pix_fmt != s->pix_fmt ||
        ref->bpc != s->bpc || dis->bpc != s->bpc)
        return -EINVAL;

    float *ru = s->rows, *rv = ru + s->w, *du = rv + s->w, *dv = du + s->w;
    double sum = 0.;
    for (unsigned i = 0; i < s->h; i++) {
        chroma_row(s, ref, 1, i, ru);
        chroma_row(s, ref, 2, i, rv);
        chroma_row(s, dis, 1, i, du);
        chroma_row(s, dis, 2, i, dv);
        for (unsigned j = 0; j < s->w; j++) {
            const float ry = (float)sample(ref, 0, i, j), dy = (float)sample(dis, 0, i, j);
            if (ry == dy && ru[j] == du[j] && rv[j] == dv[j]) continue; /* exactly 0 */
            const VmafCiedeLab a = lab_of(s->cache, ry, ru[j], rv[j], s->bpc);
            const VmafCiedeLab b = lab_of(s->cache, dy, du[j], dv[j], s->bpc);
            sum += vmaf_ciede2000(a, b);
        }
    }
    return vmaf_ciede_store(s->w, s->h, sum, frame->index, sink);
}

int vmaf_ciede_store(unsigned w, unsigned h, double sum, unsigned index,
                     struct VmafFeatureSink *sink)
{
    return vmaf_feature_sink_append(sink, "ciede2000", vmaf_ciede_score(sum, (double)(w * h)),
                                    index);
}

static const char *const ciede_features[] = { "ciede2000", NULL };

const VmafFeatureExtractor vmaf_fex_ciede = {
    .name = "ciede",
    .priv_size = sizeof(CiedeState),
    .provided_features = ciede_features,
    .init = ciede_init,
    .extract = ciede_extract,
    .close = ciede_close,
};
