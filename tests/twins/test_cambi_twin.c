/*
 * Host test of the cambi twin (src/feature/cuda/cambi.cu, cambi_twin.c) without a GPU.
 *
 * The kernels are thin: thread mapping, barriers, shared memory and reductions around the
 * per-thread functions of src/feature/cambi_device.h. This test runs those functions in the
 * kernels' decomposition, with the twin's own plan (cambi_dev_plan_scales,
 * cambi_dev_diffs_fill): every per-pixel kernel over its threads; the c-value kernel block by
 * block (forward or reverse block order, threads forward or reverse within each phase, the
 * "shared" histogram filled with garbage before each block), the lanes' max in any order;
 * the pooling's three radix levels, selects, sum and finish. It compares with the CPU
 * extractor's building blocks stage by stage (the preprocessed image, the mask, every
 * scale's filtered image, decimated mask and c-values bit for bit, every scale's pooled
 * mean) and the final score with the extractor itself (through the API).
 *
 * Inputs: seeded synthetic frames (random, blocks of a few levels, ramps that band, stripes,
 * flat, extremes) at the smallest accepted sizes, odd sizes and up to 3840x2160, depths
 * 8..16, the options (window size, topk, tvi, vlt, max_log_contrast 0..5, pq, enc and src
 * sizes, enc_bitdepth, high-res speed-up, full_ref); real content from the shared clips
 * (argv[1]: the decompressed clips). Large striped frames take the pooling fallback, and
 * the path where only the CPU leaves its integer sums.
 *
 *   test_cambi_twin CLIPS_DIR [--quick]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/cambi.h"
#include "feature/cambi_device.h"
#include "libvmaf/libvmaf.h"

#include "test_util.h"

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static unsigned n_fallbacks, n_cpu_reference, n_cases, n_refused;
static bool reverse_order;

/* ---- the device, on the host ---- */

static void run_c_values(const CambiCvArgs *a, const CambiDevDiffs *df, const uint16_t *keys,
                         float *out, uint32_t *hist)
{
    const unsigned gx = (a->w + CAMBI_DEV_TW - 1) / CAMBI_DEV_TW;
    const unsigned gy = (a->h + CAMBI_DEV_SEG - 1) / CAMBI_DEV_SEG;
    const unsigned n = CAMBI_DEV_CV_THREADS;
    for (unsigned bi = 0; bi < gx * gy; bi++) {
        const unsigned b = reverse_order ? gx * gy - 1 - bi : bi;
        const CambiDevStrip s = cambi_dev_strip(a, b % gx, b / gx);
        for (size_t e = 0; e < (size_t)CAMBI_DEV_MAX_BAND * CAMBI_DEV_WORDS; e++)
            hist[e] = 0x5a5a5a5au ^ (uint32_t)(e * 2654435761u);
        for (unsigned tt = 0; tt < n; tt++) {
            const unsigned t = reverse_order ? n - 1 - tt : tt;
            cambi_dev_hist_clear(hist, df->size, t, n);
        }
        for (unsigned tt = 0; tt < n; tt++) {
            const unsigned t = reverse_order ? n - 1 - tt : tt;
            cambi_dev_hist_init(a, &s, keys, hist, t, n);
        }
        for (int i = s.r0; i < s.r1; i++) {
            if (i > s.r0)
                for (unsigned tt = 0; tt < n; tt++) {
                    const unsigned t = reverse_order ? n - 1 - tt : tt;
                    cambi_dev_hist_slide(a, &s, keys, hist, i, t, n);
                }
            float lanes[CAMBI_DEV_CV_THREADS];
            for (unsigned t = 0; t < n; t++)
                lanes[t] = cambi_dev_c_lane(a, &s, df, (const float *)vmaf_cambi_reciprocal,
                                            keys, hist, i, t);
            for (unsigned t = 0; t < n; t += CAMBI_DEV_DLANES) {
                const int j = s.c0 + (int)(t / CAMBI_DEV_DLANES);
                if (j >= s.c1) continue;
                float c = lanes[t];
                for (unsigned l = 1; l < CAMBI_DEV_DLANES; l++)
                    if (lanes[t + l] > c) c = lanes[t + l];
                out[(size_t)i * a->w + j] = c;
            }
        }
    }
}

/* The pooling kernels; returns whether the host must pool (the twin's fallback test). */
static bool run_pool(const float *c, unsigned n, unsigned k, CambiDevResult *r)
{
    CambiDevPool *p = calloc(1, sizeof(*p));
    if (!p) exit(2);
    const uint32_t *bits = (const uint32_t *)c;
    for (unsigned level = 0; level < 3; level++) {
        unsigned *dst = level == 2 ? p->hist2 : p->hist[level];
        for (unsigned e = 0; e < n; e++) {
            const int b = cambi_dev_bucket(bits[e], level, p->prefix);
            if (b < 0) continue;
            dst[b]++;
            if (level == 0) {
                unsigned long long u = 0;
                if (cambi_dev_units(bits[e], &u)) p->total_units += u;
                else p->bad = 1;
            }
        }
        const unsigned nb = level == 2 ? 256 : CAMBI_DEV_BINS, per = nb / CAMBI_DEV_POOL_THREADS;
        unsigned chunk[CAMBI_DEV_POOL_THREADS];
        for (unsigned t = 0; t < CAMBI_DEV_POOL_THREADS; t++) {
            chunk[t] = 0;
            for (unsigned b = 0; b < per; b++) chunk[t] += dst[t * per + b];
        }
        if (level == 0) p->remaining = k;
        cambi_dev_select_finish(dst, chunk, CAMBI_DEV_POOL_THREADS, per, level == 2 ? 8 : 12,
                                &p->prefix, &p->remaining);
    }
    for (unsigned e = 0; e < n; e++) {
        unsigned long long u = 0;
        if (bits[e] > p->prefix && cambi_dev_units(bits[e], &u)) p->gt_units += u;
    }
    unsigned long long u = 0;
    cambi_dev_units(p->prefix, &u);
    r->topk_units = p->gt_units + (unsigned long long)p->remaining * u;
    r->total_units = p->total_units;
    r->bad = p->bad;
    free(p);
    return r->bad || r->topk_units >= (1ull << 53);
}

/* ---- one picture: the twin's pipeline against the CPU's ---- */

static double twin_vs_cpu(const VmafPicture *pic, const VmafCambiSetup *st, unsigned w,
                          unsigned h, unsigned window, const char *what)
{
    const size_t plane = (size_t)st->alloc_w * st->alloc_h;
    const ptrdiff_t stride = ((ptrdiff_t)st->alloc_w + 31) & ~(ptrdiff_t)31;
    uint16_t *image = calloc((size_t)stride * st->alloc_h, 2);
    uint16_t *mask = calloc((size_t)stride * st->alloc_h, 2);
    float *cv_cpu = xmalloc(plane * sizeof(float));
    unsigned *px = xmalloc(st->alloc_w * sizeof(unsigned)), *py = xmalloc(st->alloc_h * sizeof(unsigned));
    VmafCambiScratch scratch;
    if (!image || !mask || vmaf_cambi_scratch_alloc(&scratch, st->alloc_w, st->alloc_h,
                                                    st->params.band_size))
        exit(2);
    vmaf_cambi_preprocess(pic, image, stride, w, h, st->enc_bitdepth, px, py);

    /* the twin: positions as cambi_twin.c makes them */
    unsigned *pos = xmalloc(((size_t)w + h) * sizeof(unsigned));
    if (pic->w[0] == w && pic->h[0] == h) {
        for (unsigned j = 0; j < w; j++) pos[j] = j;
        for (unsigned i = 0; i < h; i++) pos[w + i] = i;
    } else {
        vmaf_cambi_resample_positions(pic->w[0], w, pos);
        vmaf_cambi_resample_positions(pic->h[0], h, pos + w);
    }
    uint16_t *img[2] = { xmalloc(plane * 2), xmalloc(plane * 2) };
    uint8_t *msk[2] = { xmalloc(plane), xmalloc(plane) };
    uint8_t *flat = xmalloc(plane);
    uint16_t *keys = xmalloc(plane * 2);
    float *cv = xmalloc(plane * sizeof(float));
    uint32_t *hist = xmalloc((size_t)CAMBI_DEV_MAX_BAND * CAMBI_DEV_WORDS * 4);
    memset(img[1], 0xa5, plane * 2);
    memset(msk[1], 0xa5, plane);
    const CambiPreArgs pre = { .stride = (unsigned long long)pic->stride[0], .bpc = pic->bpc,
                               .out_w = w, .out_h = h, .anti_dither = st->enc_bitdepth < 10 };
    for (unsigned t = 0; t < w * h; t++)
        cambi_dev_preprocess(&pre, pic->data[0], pos, pos + w, img[0], t);
    unsigned bad = 0;
    for (unsigned i = 0; i < h; i++)
        for (unsigned j = 0; j < w; j++) bad += img[0][i * w + j] != image[i * stride + j];
    CHECK(!bad, "%s: %u preprocessed samples differ", what, bad);

    vmaf_cambi_spatial_mask(image, mask, stride, w, h, &scratch);
    const CambiFlatArgs fa = { .w = w, .h = h,
                               .threshold = vmaf_cambi_mask_index(w, h, VMAF_CAMBI_MASK_FILTER_SIZE) };
    for (unsigned t = 0; t < w * h; t++) cambi_dev_flat(&fa, img[0], flat, t);
    for (unsigned t = 0; t < w * h; t++) cambi_dev_mask(&fa, flat, msk[0], t);
    bad = 0;
    for (unsigned i = 0; i < h; i++)
        for (unsigned j = 0; j < w; j++) bad += msk[0][i * w + j] != mask[i * stride + j];
    CHECK(!bad, "%s: %u mask samples differ", what, bad);

    unsigned sw[VMAF_CAMBI_NUM_SCALES], sh[VMAF_CAMBI_NUM_SCALES], step[VMAF_CAMBI_NUM_SCALES];
    int kk[VMAF_CAMBI_NUM_SCALES];
    cambi_dev_plan_scales(w, h, st->high_res_speedup, st->topk, sw, sh, step, kk);
    CambiDevDiffs df;
    cambi_dev_diffs_fill(&df, &st->params);
    double per_cpu[VMAF_CAMBI_NUM_SCALES], per_twin[VMAF_CAMBI_NUM_SCALES];
    unsigned cw = w, ch = h, cur = 0, src_w = w;
    for (unsigned s = 0; s < VMAF_CAMBI_NUM_SCALES; s++) {
        if (s > 0 || st->high_res_speedup) {
            cw = (cw + 1) >> 1;
            ch = (ch + 1) >> 1;
            vmaf_cambi_decimate(image, stride, cw, ch);
            vmaf_cambi_decimate(mask, stride, cw, ch);
        }
        CHECK(cw == sw[s] && ch == sh[s], "%s: scale %u size", what, s);
        vmaf_cambi_filter_mode(image, stride, cw, ch, &scratch);
        vmaf_cambi_c_values(image, mask, stride, cw, ch, window, &st->params, cv_cpu, &scratch);

        const CambiScaleArgs sa = { .src_w = src_w, .w = cw, .h = ch, .step = step[s],
                                    .base = df.base, .size = df.size };
        for (unsigned t = 0; t < cw * ch; t++)
            cambi_dev_scale(&sa, img[cur], msk[cur], img[cur ^ 1], msk[cur ^ 1], keys, t);
        cur ^= 1;
        src_w = cw;
        unsigned bi = 0, bm = 0;
        for (unsigned i = 0; i < ch; i++)
            for (unsigned j = 0; j < cw; j++) {
                bi += img[cur][i * cw + j] != image[i * stride + j];
                bm += msk[cur][i * cw + j] != mask[i * stride + j];
            }
        CHECK(!bi && !bm, "%s: scale %u: %u filtered samples, %u mask samples differ", what, s,
              bi, bm);

        const CambiCvArgs ca = { .w = cw, .h = ch, .pad = window >> 1 };
        memset(cv, 0xff, (size_t)cw * ch * sizeof(float));
        run_c_values(&ca, &df, keys, cv, hist);
        const unsigned n = cw * ch;
        unsigned bc = 0;
        for (unsigned e = 0; e < n; e++) bc += memcmp(&cv[e], &cv_cpu[e], 4) != 0;
        CHECK(!bc, "%s: scale %u: %u of %u c-values differ", what, s, bc, n);

        CambiDevResult r;
        const bool fallback = run_pool(cv, n, (unsigned)kk[s], &r);
        if (!fallback && r.total_units >= (1ull << 53)) n_cpu_reference++;
        per_cpu[s] = vmaf_cambi_spatial_pooling(cv_cpu, st->topk, n);
        if (fallback) {
            n_fallbacks++;
            per_twin[s] = vmaf_cambi_spatial_pooling(cv, st->topk, n);
        } else {
            per_twin[s] = vmaf_cambi_units_mean(r.topk_units, kk[s]);
        }
        CHECK(per_twin[s] == per_cpu[s], "%s: scale %u pooled %.17g vs CPU %.17g%s", what, s,
              per_twin[s], per_cpu[s], fallback ? " (fallback)" : "");
    }
    const double score_cpu = vmaf_cambi_combine(per_cpu, window);
    const double score_twin = vmaf_cambi_combine(per_twin, window);
    CHECK(score_twin == score_cpu, "%s: score %.17g vs %.17g", what, score_twin, score_cpu);
    vmaf_cambi_scratch_free(&scratch);
    free(image);
    free(mask);
    free(cv_cpu);
    free(px);
    free(py);
    free(pos);
    free(img[0]);
    free(img[1]);
    free(msk[0]);
    free(msk[1]);
    free(flat);
    free(keys);
    free(cv);
    free(hist);
    return score_cpu;
}

/* ---- frames ---- */

enum Pattern { P_RANDOM, P_BLOCKS, P_RAMP, P_STRIPES, P_FLAT, P_EXTREME, P_COUNT };

static void fill(VmafPicture *pic, enum Pattern pat, uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    const unsigned w = pic->w[0], h = pic->h[0], bpc = pic->bpc;
    const unsigned max = (1u << bpc) - 1;
    const unsigned level = 1u << (bpc > 8 ? bpc - 8 : 0); /* one 8-bit step */
    const unsigned base = (rng() % 200 + 20) * level;
    const unsigned bs = 2 + rng() % 9;
    for (unsigned i = 0; i < h; i++)
        for (unsigned j = 0; j < w; j++) {
            unsigned v;
            switch (pat) {
            case P_RANDOM: v = rng() & max; break;
            case P_BLOCKS: v = base + (((i / bs) * 7919u + (j / bs) * 104729u + (unsigned)seed) % 4) * (level > 1 ? level / 2 : 1); break;
            case P_RAMP: v = base / 2 + (unsigned)(((uint64_t)(i + j) * 40 * level) / (w + h)); break;
            case P_STRIPES: /* dark (visible steps), one 10-bit level apart from 10 bits on */
                v = base / 5 + ((i / 8) & 1) * (level > 2 ? level / 4 : 1);
                break;
            case P_FLAT: v = base; break;
            default: v = (rng() & 1) ? max : 0; break;
            }
            if (v > max) v = max;
            if (bpc > 8) ((uint16_t *)((uint8_t *)pic->data[0] + i * pic->stride[0]))[j] = (uint16_t)v;
            else ((uint8_t *)pic->data[0] + i * pic->stride[0])[j] = (uint8_t)v;
        }
}

/* The name the extractor's score is stored under (CONTRACT.md's naming rule): alias(base) and
 * _alias_value for each feature-parameter option given, sorted by option name. */
static void score_name(const char *opts, char *name, size_t size)
{
    static const struct { const char *name, *alias; char type; } params[] = {
        { "cambi_eotf", "ceot", 's' }, { "cambi_high_res_speedup", "hrs", 'i' },
        { "cambi_max_val", "cmxv", 'd' }, { "cambi_topk", "ctpk", 'd' },
        { "cambi_vis_lum_threshold", "vlt", 'd' }, { "enc_bitdepth", "encbd", 'i' },
        { "enc_height", "ench", 'i' }, { "enc_width", "encw", 'i' }, { "eotf", "eotf", 's' },
        { "max_log_contrast", "mlc", 'i' }, { "src_height", "srch", 'i' },
        { "src_width", "srcw", 'i' }, { "topk", "topk", 'd' }, { "tvi_threshold", "tvit", 'd' },
        { "window_size", "ws", 'i' },
    }; /* sorted by name */
    size_t n = (size_t)snprintf(name, size, "cambi");
    bool any = false;
    for (unsigned i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
        char key[64];
        snprintf(key, sizeof(key), "%s=", params[i].name);
        const char *at = strstr(opts, key);
        while (at && at != opts && at[-1] != ':') at = strstr(at + 1, key);
        if (!at) continue;
        const char *v = at + strlen(key);
        char val[64];
        size_t len = strcspn(v, ":");
        snprintf(val, sizeof(val), "%.*s", (int)len, v);
        any = true;
        if (params[i].type == 'd')
            n += (size_t)snprintf(name + n, size - n, "_%s_%g", params[i].alias, atof(val));
        else if (params[i].type == 'i')
            n += (size_t)snprintf(name + n, size - n, "_%s_%d", params[i].alias, atoi(val));
        else
            n += (size_t)snprintf(name + n, size - n, "_%s_%s", params[i].alias, val);
    }
    if (!any) snprintf(name, size, "Cambi_feature_cambi_score");
}

/* The extractor's own score through the API (dist score, and cambi_source with full_ref). */
static int api_scores(const VmafPicture *ref, const VmafPicture *dist, const char *opts,
                      double *d, double *s)
{
    VmafContext *ctx;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    if (vmaf_init(&ctx, cfg)) return -1;
    VmafFeatureDictionary *dict = NULL;
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", opts);
    for (char *kv = strtok(buf, ":"); kv; kv = strtok(NULL, ":")) {
        char *eq = strchr(kv, '=');
        if (!eq) continue;
        *eq = 0;
        vmaf_feature_dictionary_set(&dict, kv, eq + 1);
    }
    int err = vmaf_use_feature(ctx, "cambi", dict);
    VmafPicture r, q;
    if (!err) err = vmaf_picture_alloc(&r, ref->pix_fmt, ref->bpc, ref->w[0], ref->h[0]);
    if (!err) err = vmaf_picture_alloc(&q, dist->pix_fmt, dist->bpc, dist->w[0], dist->h[0]);
    if (!err) {
        for (unsigned i = 0; i < ref->h[0]; i++) {
            memcpy((uint8_t *)r.data[0] + i * r.stride[0], (uint8_t *)ref->data[0] + i * ref->stride[0],
                   ref->w[0] * (ref->bpc > 8 ? 2 : 1));
            memcpy((uint8_t *)q.data[0] + i * q.stride[0], (uint8_t *)dist->data[0] + i * dist->stride[0],
                   dist->w[0] * (dist->bpc > 8 ? 2 : 1));
        }
        err = read_pictures_or_release(ctx, &r, &q, 0);
    }
    if (!err) err = vmaf_read_pictures(ctx, NULL, NULL, 0);
    char name[256];
    score_name(opts, name, sizeof(name));
    if (!err) err = vmaf_feature_score_at_index(ctx, name, d, 0);
    *s = -1;
    if (!err && strstr(opts, "full_ref=true"))
        err = vmaf_feature_score_at_index(ctx, "cambi_source", s, 0);
    vmaf_close(ctx);
    return err;
}

typedef struct Opt {
    const char *dict; /* the API's options */
    VmafCambiOptions o;
} Opt;

static VmafCambiOptions defaults(void)
{
    VmafCambiOptions o = {
        .max_val = VMAF_CAMBI_DEFAULT_MAX_VAL, .window_size = VMAF_CAMBI_DEFAULT_WINDOW_SIZE,
        .topk = VMAF_CAMBI_DEFAULT_TOPK, .cambi_topk = VMAF_CAMBI_DEFAULT_TOPK,
        .tvi_threshold = VMAF_CAMBI_DEFAULT_TVI, .vis_lum_threshold = VMAF_CAMBI_DEFAULT_VLT,
        .max_log_contrast = VMAF_CAMBI_DEFAULT_MAX_LOG_CONTRAST,
        .eotf = VMAF_CAMBI_DEFAULT_EOTF, .cambi_eotf = VMAF_CAMBI_DEFAULT_EOTF,
    };
    return o;
}

static void run_case(VmafPicture *ref, VmafPicture *dist, const char *dict,
                     const VmafCambiOptions *o, const char *label)
{
    VmafCambiSetup st;
    char msg[256], what[320];
    if (vmaf_cambi_setup(&st, o, dist->w[0], dist->h[0], dist->bpc, msg, sizeof(msg))) {
        n_refused++;
        return;
    }
    n_cases++;
    reverse_order = n_cases & 1;
    snprintf(what, sizeof(what), "%s %ux%u %u-bit [%s] dist", label, dist->w[0], dist->h[0],
             dist->bpc, dict);
    const double d = twin_vs_cpu(dist, &st, st.enc_w, st.enc_h, st.window, what);
    double s = -1;
    if (o->full_ref) {
        what[strlen(what) - 4] = 0;
        strcat(what, "src");
        s = twin_vs_cpu(ref, &st, st.src_w, st.src_h, st.src_window, what);
    }
    double ad, as;
    const int err = api_scores(ref, dist, dict, &ad, &as);
    CHECK(!err, "%s: the API run failed (%d)", what, err);
    const double clip_d = d < o->max_val ? d : o->max_val;
    CHECK(err || ad == clip_d, "%s: extractor %.17g vs the test's CPU %.17g", what, ad, clip_d);
    if (o->full_ref) {
        const double clip_s = s < o->max_val ? s : o->max_val;
        CHECK(err || as == clip_s, "%s: extractor source %.17g vs %.17g", what, as, clip_s);
    }
}

static void synthetic(unsigned w, unsigned h, unsigned bpc, enum Pattern pat, uint64_t seed,
                      const Opt *opt)
{
    VmafPicture ref, dist;
    if (vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, bpc, w, h) ||
        vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, bpc, w, h))
        exit(2);
    fill(&dist, pat, seed);
    fill(&ref, (enum Pattern)((pat + 1) % P_COUNT), seed + 1);
    char label[64];
    snprintf(label, sizeof(label), "pattern %d seed %" PRIu64, (int)pat, seed);
    run_case(&ref, &dist, opt->dict, &opt->o, label);
    vmaf_picture_unref(&ref);
    vmaf_picture_unref(&dist);
}

static bool load_clip(const char *dir, const char *name, const char *side, unsigned w,
                      unsigned h, unsigned bpc, unsigned frame, VmafPicture *pic)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s_%s.yuv", dir, name, side);
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    const unsigned bps = bpc > 8 ? 2 : 1;
    const unsigned cw = (w + 1) / 2, chh = (h + 1) / 2; /* 4:2:0 clips only */
    const long frame_bytes = (long)bps * ((long)w * h + 2L * cw * chh);
    bool ok = !fseek(f, frame_bytes * frame, SEEK_SET) &&
              !vmaf_picture_alloc(pic, VMAF_PIX_FMT_YUV420P, bpc, w, h);
    for (unsigned i = 0; ok && i < h; i++)
        ok = fread((uint8_t *)pic->data[0] + i * pic->stride[0], bps, w, f) == w;
    fclose(f);
    return ok;
}

int main(int argc, char **argv)
{
    const char *clips = argc > 1 ? argv[1] : NULL;
    const bool quick = argc > 2 && !strcmp(argv[2], "--quick");
    Opt opts[16];
    unsigned n_opts = 0;
    VmafCambiOptions o = defaults();
    opts[n_opts++] = (Opt){ "", o };
    o = defaults(); o.window_size = 127; o.topk = 0.1;
    opts[n_opts++] = (Opt){ "window_size=127:topk=0.1", o };
    o = defaults(); o.max_log_contrast = 5; o.tvi_threshold = 0.5;
    opts[n_opts++] = (Opt){ "max_log_contrast=5:tvi_threshold=0.5", o };
    o = defaults(); o.max_log_contrast = 0; o.cambi_topk = 1.0;
    opts[n_opts++] = (Opt){ "max_log_contrast=0:cambi_topk=1", o };
    o = defaults(); o.cambi_eotf = "pq"; o.vis_lum_threshold = 0.5;
    opts[n_opts++] = (Opt){ "cambi_eotf=pq:cambi_vis_lum_threshold=0.5", o };
    o = defaults(); o.eotf = "pq"; o.max_log_contrast = 3; o.topk = 0.0001;
    opts[n_opts++] = (Opt){ "eotf=pq:max_log_contrast=3:topk=0.0001", o };
    o = defaults(); o.enc_bitdepth = 8; o.window_size = 15;
    opts[n_opts++] = (Opt){ "enc_bitdepth=8:window_size=15", o };
    o = defaults(); o.enc_width = 200; o.enc_height = 150; o.enc_bitdepth = 10;
    opts[n_opts++] = (Opt){ "enc_width=200:enc_height=150:enc_bitdepth=10", o };
    o = defaults(); o.full_ref = true; o.src_width = 320; o.src_height = 200;
    opts[n_opts++] = (Opt){ "full_ref=true:src_width=320:src_height=200", o };
    o = defaults(); o.full_ref = true; o.max_val = 0.5;
    opts[n_opts++] = (Opt){ "full_ref=true:cambi_max_val=0.5", o };
    o = defaults(); o.high_res_speedup = 1080; o.vis_lum_threshold = 0.06; o.max_val = 17;
    opts[n_opts++] = (Opt){ "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17", o };
    o = defaults(); o.topk = 0.01;
    opts[n_opts++] = (Opt){ "topk=0.01", o };
    o = defaults(); o.window_size = 127;
    opts[n_opts++] = (Opt){ "window_size=127", o }; /* the last one */

    static const unsigned sizes[][2] = { { 216, 1 }, { 1, 216 }, { 216, 3 }, { 217, 9 },
                                         { 257, 145 }, { 320, 200 }, { 333, 187 }, { 576, 324 },
                                         { 640, 97 } };
    static const unsigned depths[] = { 8, 9, 10, 11, 12, 16 };
    const unsigned n_sizes = sizeof(sizes) / sizeof(sizes[0]);
    uint64_t seed = 1;
    for (unsigned s = 0; s < n_sizes; s++)
        for (unsigned d = 0; d < 6; d++)
            for (unsigned p = 0; p < P_COUNT; p++) {
                if (quick && (p + d + s) % 3) continue;
                const Opt *op = &opts[(s * 7 + d * 3 + p) % n_opts];
                synthetic(sizes[s][0], sizes[s][1], depths[d], (enum Pattern)p, seed++, op);
            }
    /* every option on one banding size */
    for (unsigned i = 0; i < n_opts; i++)
        for (unsigned p = 0; p < P_COUNT; p += 1)
            synthetic(400, 250, 10, (enum Pattern)p, seed++, &opts[i]);
    /* large frames: 1080p with the speed-up, 4K stripes (the pooling's fallback) */
    if (!quick) {
        synthetic(1920, 1080, 8, P_BLOCKS, seed++, &opts[10]);
        /* stripes with a window of 63: the top 60% of the c-values sum past 2^29 (the
         * twin's fallback); then the top 10%, below 2^29 while all nonzero c-values reach it
         * (the CPU leaves its integer path, the twin's integer sum must equal its
         * quickselect-order double sum) */
        synthetic(2000, 1000, 10, P_STRIPES, seed++, &opts[n_opts - 1]);
        synthetic(2000, 1000, 10, P_STRIPES, seed++, &opts[1]);
        synthetic(2001, 999, 8, P_STRIPES, seed++, &opts[n_opts - 1]);
    }
    /* real content */
    static const struct { const char *name; unsigned w, h, bpc; } real[] = {
        { "boats_576x324_420p", 576, 324, 8 }, { "forest_576x324_420p10", 576, 324, 10 },
        { "kite_257x145_420p", 257, 145, 8 },  { "deep_320x180_420p16", 320, 180, 16 },
        { "jetty_1920x1080_420p", 1920, 1080, 8 },
    };
    unsigned n_real = 0;
    for (unsigned c = 0; clips && c < sizeof(real) / sizeof(real[0]); c++) {
        if (quick && real[c].w > 1000) continue;
        for (unsigned fr = 0; fr < 2; fr++) {
            VmafPicture ref, dist;
            if (!load_clip(clips, real[c].name, "ref", real[c].w, real[c].h, real[c].bpc, fr * 3,
                           &ref))
                break;
            if (!load_clip(clips, real[c].name, "dis", real[c].w, real[c].h, real[c].bpc, fr * 3,
                           &dist)) {
                vmaf_picture_unref(&ref);
                break;
            }
            const Opt *op = &opts[(c * 2 + fr) % n_opts];
            run_case(&ref, &dist, op->dict, &op->o, real[c].name);
            if (fr == 0) run_case(&ref, &dist, opts[8].dict, &opts[8].o, real[c].name);
            n_real++;
            vmaf_picture_unref(&ref);
            vmaf_picture_unref(&dist);
        }
    }
    CHECK(!clips || n_real >= 8, "real content: only %u frames found under %s", n_real, clips);
    CHECK(n_cases > 100, "only %u cases ran", n_cases);
    CHECK(quick || n_fallbacks > 0, "the stripes did not take the pooling fallback");
    CHECK(quick || n_cpu_reference > 0, "no scale where only the CPU left its integer path");
    printf("cambi twin (host): %u cases (%u refused by the CPU too), %u pooling fallbacks, "
           "%u scales pooled by the CPU's quickselect and the twin's integers, %u real frames, "
           "%d checks, %d failures\n",
           n_cases, n_refused, n_fallbacks, n_cpu_reference, n_real, checks, failures);
    return failures ? 1 : 0;
}
