#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "feature_extractor.h"
#include "psnr.h"

static const VmafOption psnr_options[] = {
    { .name = "enable_chroma", .help = "also score the chroma planes",
      .offset = offsetof(PsnrState, enable_chroma), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = true },
    { .name = "enable_mse", .help = "also write mse_y/cb/cr",
      .offset = offsetof(PsnrState, enable_mse), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false },
    { .name = "enable_apsnr", .help = "write aggregate PSNR over the sequence at flush",
      .offset = offsetof(PsnrState, enable_apsnr), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false },
    { .name = "reduced_hbd_peak", .help = "peak 255 << (bpc - 8) instead of (1 << bpc) - 1",
      .offset = offsetof(PsnrState, reduced_hbd_peak), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false },
    { .name = "min_sse", .help = "smallest SSE assumed, which caps the PSNR",
      .offset = offsetof(PsnrState, min_sse), .type = VMAF_OPT_TYPE_DOUBLE,
      .default_val.d = 0.0, .min = 0.0, .max = DBL_MAX },
    { 0 },
};

static int psnr_init(void *priv, const VmafFeatureGeometry *g)
{
    PsnrState *s = priv;
    s->peak = s->reduced_hbd_peak ? 255u << (g->bpc - 8) : (1u << g->bpc) - 1;
    s->n_planes = (s->enable_chroma && g->pix_fmt != VMAF_PIX_FMT_YUV400P) ? 3 : 1;

    const int ss_hor = g->pix_fmt != VMAF_PIX_FMT_YUV444P;
    const int ss_ver = g->pix_fmt == VMAF_PIX_FMT_YUV420P;
    for (unsigned p = 0; p < 3; p++) {
        if (s->min_sse != 0.0) {
            const unsigned pw = (p && ss_hor) ? g->w / 2 : g->w;
            const unsigned ph = (p && ss_ver) ? g->h / 2 : g->h;
            const double mse = s->min_sse / (pw * ph);
            s->psnr_max[p] = ceil(10. * log10(s->peak * s->peak / mse));
        } else {
            s->psnr_max[p] = (6 * g->bpc) + 12;
        }
    }
    return 0;
}

uint64_t vmaf_psnr_plane_sse(const void *ref, ptrdiff_t ref_stride, const void *dis,
                             ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc)
{
    uint64_t sse = 0;
    if (bpc == 8) {
        for (unsigned i = 0; i < h; i++) {
            const uint8_t *r = (const uint8_t *)ref + i * ref_stride;
            const uint8_t *d = (const uint8_t *)dis + i * dis_stride;
            uint32_t row = 0; /* w * 255^2 < 2^32 for w <= 2^15 */
            for (unsigned j = 0; j < w; j++) {
                const int32_t e = (int32_t)r[j] - (int32_t)d[j];
                row += (uint32_t)(e * e);
            }
            sse += row;
        }
    } else {
        for (unsigned i = 0; i < h; i++) {
            const uint16_t *r = (const uint16_t *)((const uint8_t *)ref + i * ref_stride);
            const uint16_t *d = (const uint16_t *)((const uint8_t *)dis + i * dis_stride);
            uint64_t row = 0;
            for (unsigned j = 0; j < w; j++) {
                const int32_t e = (int32_t)r[j] - (int32_t)d[j];
                row += (uint32_t)e * (uint32_t)e;
            }
            sse += row;
        }
    }
    return sse;
}

double vmaf_psnr_from_sse(const PsnrState *s, unsigned plane, uint64_t sse, unsigned w,
                          unsigned h)
{
    const double mse = (double)sse / (w * h);
    const double floor_mse = mse > 1e-16 ? mse : 1e-16;
    const double psnr = 10. * log10(s->peak * s->peak / floor_mse);
    return psnr < s->psnr_max[plane] ? psnr : s->psnr_max[plane];
}

static const char *const psnr_name[3] = { "psnr_y", "psnr_cb", "psnr_cr" };
static const char *const mse_name[3] = { "mse_y", "mse_cb", "mse_cr" };

int vmaf_psnr_store(PsnrState *s, const uint64_t sse[3], const VmafPicture *geometry,
                    unsigned index, VmafFeatureSink *sink)
{
    for (unsigned p = 0; p < s->n_planes; p++) {
        const unsigned w = geometry->w[p], h = geometry->h[p];
        if (s->enable_apsnr && vmaf_feature_sink_keeps(sink, index)) {
            s->total_sse[p] += sse[p];
            s->total_pixels[p] += (uint64_t)w * h;
        }
        int err = vmaf_feature_sink_append(sink, psnr_name[p],
                                           vmaf_psnr_from_sse(s, p, sse[p], w, h), index);
        if (err) return err;
        if (s->enable_mse) {
            err = vmaf_feature_sink_append(sink, mse_name[p], (double)sse[p] / (w * h), index);
            if (err) return err;
        }
    }
    return 0;
}

static int psnr_extract(void *priv, const VmafFeatureFrame *f, VmafFeatureSink *sink)
{
    PsnrState *s = priv;
    const VmafPicture *ref = f->ref, *dis = f->dist;
    uint64_t sse[3] = { 0 };
    for (unsigned p = 0; p < s->n_planes; p++)
        sse[p] = vmaf_psnr_plane_sse(ref->data[p], ref->stride[p], dis->data[p], dis->stride[p],
                                     ref->w[p], ref->h[p], ref->bpc);
    return vmaf_psnr_store(s, sse, ref, f->index, sink);
}

static int psnr_flush(void *priv, VmafFeatureSink *sink)
{
    static const char *const apsnr_name[3] = { "apsnr_y", "apsnr_cb", "apsnr_cr" };
    PsnrState *s = priv;
    if (!s->enable_apsnr) return 0;

    /* all three planes, as the reference writes them even without chroma */
    for (unsigned p = 0; p < 3; p++) {
        const double apsnr = 10 * (log10(s->peak * s->peak) + log10(s->total_pixels[p]) -
                                   log10(s->total_sse[p]));
        const double max_apsnr =
            ceil(10 * log10(s->peak * s->peak * s->total_pixels[p] * 2));
        int err = vmaf_feature_sink_set_aggregate(sink, apsnr_name[p],
                                                  apsnr < max_apsnr ? apsnr : max_apsnr);
        if (err) return err;
    }
    return 0;
}

/* apsnr sums SSE and pixel counts over the title: a segment's sums are added at the merge. */
static void psnr_get_counters(const void *priv, uint64_t *c)
{
    const PsnrState *s = priv;
    for (unsigned p = 0; p < 3; p++) {
        c[p] = s->total_sse[p];
        c[3 + p] = s->total_pixels[p];
    }
}

static void psnr_add_counters(void *priv, const uint64_t *c)
{
    PsnrState *s = priv;
    for (unsigned p = 0; p < 3; p++) {
        s->total_sse[p] += c[p];
        s->total_pixels[p] += c[3 + p];
    }
}

static const char *const psnr_features[] = { "psnr_y", "psnr_cb", "psnr_cr", NULL };

static bool psnr_luma_only(const void *priv)
{
    return !((const PsnrState *)priv)->enable_chroma;
}

const VmafFeatureExtractor vmaf_fex_psnr = {
    .name = "psnr",
    .priv_size = sizeof(PsnrState),
    .options = psnr_options,
    .provided_features = psnr_features,
    .flags = VMAF_FEATURE_EXTRACTOR_TEMPORAL | VMAF_FEATURE_EXTRACTOR_FLUSH_AT_MERGE,
    .init = psnr_init,
    .extract = psnr_extract,
    .flush = psnr_flush,
    .n_counters = 6,
    .get_counters = psnr_get_counters,
    .add_counters = psnr_add_counters,
    .luma_only = psnr_luma_only,
};
