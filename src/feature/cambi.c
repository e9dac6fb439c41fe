/*
 * Twin VMAF — the CAMBI extractor "cambi" (see cambi.h for the metric).
 *
 * Per frame (per-frame state only, so worker threads each run their own instance): the
 * distorted luma is scored at the encoding size and written as Cambi_feature_cambi_score
 * (alias "cambi", option-suffixed); with full_ref the reference is scored at the source
 * size and cambi_source and cambi_full_reference = max(0, dist - src) follow (never
 * suffixed, as in the reference). All three are clipped to cambi_max_val.
 *
 * heatmaps_path writes, per scale, cambi_heatmap_scale_S_WxH_16b.gray under that folder
 * (created like mkdir -p): each frame's c-values scaled by 65535 / (max w_d * ws^2 / 4) as
 * native uint16, frame n at offset n * (scaled size), as the reference does (whose file
 * names keep the unhalved sizes under cambi_high_res_speedup). The registered instance
 * creates and truncates the files; worker copies reopen them and write their frames. A
 * symbolic link, a hard-linked file or anything but a regular file at a heatmap's name is
 * refused (vmaf_file_open_in_dir): emptying it could destroy an input.
 *
 * Decisions where reference libvmaf 3.2.0 is undefined or silent:
 *   - Refusals get a message (the reference returns -EINVAL silently): both encoding sides
 *     (or both source sides) below 216, source/encoding sizes scaled in opposite directions,
 *     an unknown EOTF, a window whose square reaches the reciprocal table, and frames in
 *     which half the adjusted window exceeds a side at some scale (cambi.h: the reference
 *     crashes there for heights and scores stale samples for widths).
 *   - cambi_vis_lum_threshold above the EOTF's peak luminance is refused (the reference
 *     loops forever looking for a sample that reaches it).
 *   - 10-bit input at the scored size is copied row by row (the reference copies it as one
 *     block, which misplaces rows when full_ref makes the work picture wider).
 *   - Samples above the bit depth's maximum are refused per frame with a message, as the
 *     reference does.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cambi.h"
#include "feature_extractor.h"
#include "file_write.h"
#include "picture.h"

const int vmaf_cambi_scale_weights[VMAF_CAMBI_NUM_SCALES] = { 16, 8, 4, 2, 1 };

const int vmaf_cambi_contrast_weights[VMAF_CAMBI_MAX_DIFFS] = {
    1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
};

#define HIGH_RES_1080P (1920 * 1080)
#define HIGH_RES_1440P (2560 * 1440)
#define HIGH_RES_2160P (3840 * 2160)

/* ---- luminance, visibility thresholds, window ---------------------------------------------- */

#define BT1886_GAMMA (2.4)
#define BT1886_LW (300.0)
#define BT1886_LB (0.01)

static double bt1886_eotf(double v)
{
    const double lw = pow(BT1886_LW, 1.0 / BT1886_GAMMA);
    const double lb = pow(BT1886_LB, 1.0 / BT1886_GAMMA);
    const double a = pow(lw - lb, BT1886_GAMMA);
    const double b = lb / (lw - lb);
    const double x = v + b;
    return a * pow(x > 0 ? x : 0, BT1886_GAMMA);
}

static double pq_eotf(double v)
{
    const double m1 = 0.1593017578125, m2 = 78.84375;
    const double c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
    const double num = pow(v, 1.0 / m2) - c1;
    const double den = c2 - c3 * pow(v, 1.0 / m2);
    return 10000 * pow((num > 0 ? num : 0) / den, 1.0 / m1);
}

double vmaf_cambi_luminance(int sample, enum VmafCambiEotf eotf)
{
    const int foot = VMAF_CAMBI_LUMA_FOOT, head = VMAF_CAMBI_LUMA_HEAD;
    const int s = sample < foot ? foot : sample > head ? head : sample;
    const double v = (double)(s - foot) / (head - foot);
    return eotf == VMAF_CAMBI_EOTF_PQ ? pq_eotf(v) : bt1886_eotf(v);
}

static bool step_visible(int sample, int diff, double tvi, enum VmafCambiEotf eotf)
{
    const double mean = vmaf_cambi_luminance(sample, eotf);
    const double step = vmaf_cambi_luminance(sample + diff, eotf);
    return step - mean > tvi * mean;
}

/* -1: threshold lies below sample, 0: sample is the threshold, 1: it lies above */
static int threshold_side(int sample, int diff, double tvi, enum VmafCambiEotf eotf)
{
    if (!step_visible(sample, diff, tvi, eotf)) return -1;
    if (step_visible(sample + 1, diff, tvi, eotf)) return 1;
    return 0;
}

int vmaf_cambi_tvi_for_diff(int diff, double tvi_threshold, enum VmafCambiEotf eotf)
{
    int foot = VMAF_CAMBI_LUMA_FOOT;
    int head = VMAF_CAMBI_LUMA_HEAD - diff - 1;
    int side = threshold_side(foot, diff, tvi_threshold, eotf);
    if (side < 0) return 0;
    if (side == 0) return foot;
    side = threshold_side(head, diff, tvi_threshold, eotf);
    if (side > 0) return (1 << 10) - 1;
    if (side == 0) return head;
    /* bisection: foot lies below the threshold, head above */
    while (head - foot > 1) {
        const int mid = foot + (head - foot) / 2;
        side = threshold_side(mid, diff, tvi_threshold, eotf);
        if (side == 0) return mid;
        if (side < 0) head = mid;
        else foot = mid;
    }
    return foot; /* unreachable for a monotonic EOTF (the reference would loop forever) */
}

int vmaf_cambi_vlt_luma(double threshold, enum VmafCambiEotf eotf)
{
    int sample = VMAF_CAMBI_LUMA_FOOT;
    while (vmaf_cambi_luminance(sample, eotf) < threshold) {
        if (sample > VMAF_CAMBI_LUMA_HEAD) return -ERANGE; /* the luminance no longer grows */
        sample++;
    }
    return sample == VMAF_CAMBI_LUMA_FOOT ? 0 : sample;
}

unsigned vmaf_cambi_adjust_window(unsigned window_size, unsigned w, unsigned h,
                                  bool high_res_speedup)
{
    /* scaled by (w + h) / (3840 + 2160), in the reference's integer steps and uint16 */
    uint16_t ws = (uint16_t)(((window_size * (w + h)) / 375) >> 4);
    if (high_res_speedup) ws = (uint16_t)((ws + 1) >> 1);
    return ws | 1;
}

void vmaf_cambi_params_finish(VmafCambiParams *p)
{
    const int lo = (int)p->vlt_luma - 3 * (int)p->num_diffs + 1;
    p->band_base = lo > 0 ? (uint16_t)lo : 0;
    const int size = (int)p->tvi_for_diff[p->num_diffs - 1] + 1 - (int)p->band_base;
    /* an empty band: no sample passes both the tvi and the vlt test */
    p->band_size = size > 0 ? (uint16_t)size : 0;
}

/* The sides of each scale; -EINVAL when half the window does not fit in one of them. */
static int check_scales(unsigned w, unsigned h, unsigned window, bool speedup, const char *what,
                        char *msg, size_t msg_size)
{
    const unsigned pad = window >> 1;
    for (unsigned scale = 0; scale < VMAF_CAMBI_NUM_SCALES; scale++) {
        if (scale > 0 || speedup) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
        }
        if (pad > w || pad > h) {
            snprintf(msg, msg_size,
                     "cambi: %s too small: %ux%u at scale %u for a window of %u", what, w, h,
                     scale, window);
            return -EINVAL;
        }
    }
    return 0;
}

int vmaf_cambi_setup(VmafCambiSetup *st, const VmafCambiOptions *opt, unsigned w, unsigned h,
                     unsigned bpc, char *msg, size_t msg_size)
{
    memset(st, 0, sizeof(*st));
    st->enc_bitdepth = opt->enc_bitdepth ? (unsigned)opt->enc_bitdepth : bpc;
    st->enc_w = (unsigned)opt->enc_width;
    st->enc_h = (unsigned)opt->enc_height;
    if (!st->enc_w || !st->enc_h) {
        st->enc_w = w;
        st->enc_h = h;
    }
    st->src_w = (unsigned)opt->src_width;
    st->src_h = (unsigned)opt->src_height;
    if (!st->src_w || !st->src_h) {
        st->src_w = w;
        st->src_h = h;
    }
    /* a downscaled encode is not scaled back up */
    if (st->enc_h > h || st->enc_w > w) {
        st->enc_w = w;
        st->enc_h = h;
    }
    if (st->enc_w < VMAF_CAMBI_MIN_WIDTH_HEIGHT && st->enc_h < VMAF_CAMBI_MIN_WIDTH_HEIGHT) {
        snprintf(msg, msg_size, "cambi: frame too small: %ux%u (one side must be at least %d)",
                 st->enc_w, st->enc_h, VMAF_CAMBI_MIN_WIDTH_HEIGHT);
        return -EINVAL;
    }
    if (st->src_w < VMAF_CAMBI_MIN_WIDTH_HEIGHT && st->src_h < VMAF_CAMBI_MIN_WIDTH_HEIGHT) {
        snprintf(msg, msg_size, "cambi: source too small: %ux%u (one side must be at least %d)",
                 st->src_w, st->src_h, VMAF_CAMBI_MIN_WIDTH_HEIGHT);
        return -EINVAL;
    }
    if ((st->src_w > st->enc_w && st->src_h < st->enc_h) ||
        (st->src_w < st->enc_w && st->src_h > st->enc_h)) {
        snprintf(msg, msg_size, "cambi: source %ux%u and encode %ux%u are scaled in opposite "
                 "directions", st->src_w, st->src_h, st->enc_w, st->enc_h);
        return -EINVAL;
    }

    const unsigned enc_pix = st->enc_w * st->enc_h;
    switch (opt->high_res_speedup) {
    case 1080: st->high_res_speedup = enc_pix >= HIGH_RES_1080P; break;
    case 1440: st->high_res_speedup = enc_pix >= HIGH_RES_1440P; break;
    case 2160: st->high_res_speedup = enc_pix >= HIGH_RES_2160P; break;
    default: st->high_res_speedup = false; break;
    }

    st->alloc_w = st->enc_w;
    st->alloc_h = st->enc_h;
    if (opt->full_ref) {
        if (st->src_w > st->alloc_w) st->alloc_w = st->src_w;
        if (st->src_h > st->alloc_h) st->alloc_h = st->src_h;
    }

    /* cambi_eotf when it is not the default, else eotf */
    const char *eotf_name = strcmp(opt->cambi_eotf, VMAF_CAMBI_DEFAULT_EOTF) ? opt->cambi_eotf
                                                                            : opt->eotf;
    enum VmafCambiEotf eotf;
    if (!strcmp(eotf_name, "bt1886")) {
        eotf = VMAF_CAMBI_EOTF_BT1886;
    } else if (!strcmp(eotf_name, "pq")) {
        eotf = VMAF_CAMBI_EOTF_PQ;
    } else {
        snprintf(msg, msg_size, "cambi: unknown EOTF \"%s\" (bt1886 or pq)", eotf_name);
        return -EINVAL;
    }

    VmafCambiParams *p = &st->params;
    p->num_diffs = 1u << opt->max_log_contrast;
    for (unsigned d = 0; d < p->num_diffs; d++)
        p->tvi_for_diff[d] = (uint16_t)(vmaf_cambi_tvi_for_diff((int)d + 1, opt->tvi_threshold,
                                                                eotf) + (int)p->num_diffs);
    const int vlt = vmaf_cambi_vlt_luma(opt->vis_lum_threshold, eotf);
    if (vlt < 0) {
        snprintf(msg, msg_size, "cambi: cambi_vis_lum_threshold %g is above the peak "
                 "luminance of the EOTF", opt->vis_lum_threshold);
        return -EINVAL;
    }
    p->vlt_luma = (uint16_t)vlt;
    vmaf_cambi_params_finish(p);

    st->window = vmaf_cambi_adjust_window((unsigned)opt->window_size, st->enc_w, st->enc_h,
                                          st->high_res_speedup);
    st->src_window = vmaf_cambi_adjust_window((unsigned)opt->window_size, st->src_w, st->src_h,
                                              st->high_res_speedup);
    const unsigned max_window = st->window > st->src_window ? st->window : st->src_window;
    if (max_window * max_window >= VMAF_CAMBI_RECIPROCAL_LUT_SIZE) {
        snprintf(msg, msg_size, "cambi: window_size %u too large for the reciprocal table",
                 max_window);
        return -EINVAL;
    }
    int err = check_scales(st->enc_w, st->enc_h, st->window, st->high_res_speedup, "frame",
                           msg, msg_size);
    if (!err && opt->full_ref)
        err = check_scales(st->src_w, st->src_h, st->src_window, st->high_res_speedup,
                           "source", msg, msg_size);
    if (err) return err;

    st->topk = opt->topk != VMAF_CAMBI_DEFAULT_TOPK ? opt->topk : opt->cambi_topk;
    return 0;
}

/* ---- preprocessing ------------------------------------------------------------------------ */

static int validate_luma(const VmafPicture *pic, enum VmafLogLevel log_level)
{
    if (pic->bpc == 8 || pic->bpc == 16) return 0;
    const unsigned max = (1u << pic->bpc) - 1;
    for (unsigned i = 0; i < pic->h[0]; i++) {
        const uint16_t *row = (const uint16_t *)((const uint8_t *)pic->data[0] + i * pic->stride[0]);
        for (unsigned j = 0; j < pic->w[0]; j++) {
            if (row[j] <= max) continue;
            vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR,
                     "cambi: invalid input: a sample exceeds %u, the maximum of %u-bit video\n",
                     max, pic->bpc);
            return -EINVAL;
        }
    }
    return 0;
}

/* Nearest-neighbour resampling positions, in the reference's float arithmetic. */
void vmaf_cambi_resample_positions(unsigned in, unsigned out, unsigned *pos)
{
    const float ratio = (float)in / out;
    float x = ratio / 2 - 0.5;
    for (unsigned j = 0; j < out; j++) {
        int p = (int)(x + 0.5);
        if (p < 0) p = 0;
        if ((unsigned)p >= in) p = (int)in - 1;
        pos[j] = (unsigned)p;
        x += ratio;
    }
}

/* Luma resampled to out_w x out_h and brought to 10 bits, then anti-dithered below 10. */
void vmaf_cambi_preprocess(const VmafPicture *pic, uint16_t *out, ptrdiff_t stride,
                           unsigned out_w, unsigned out_h, unsigned enc_bitdepth,
                           unsigned *pos_x, unsigned *pos_y)
{
    const unsigned in_w = pic->w[0], in_h = pic->h[0], bpc = pic->bpc;
    const bool same = in_w == out_w && in_h == out_h;
    if (!same) {
        vmaf_cambi_resample_positions(in_w, out_w, pos_x);
        vmaf_cambi_resample_positions(in_h, out_h, pos_y);
    }
    if (same && bpc == 8 && enc_bitdepth < 10) {
        /* conversion and anti-dithering at once: ((4a + 4b + 4c + 4d) >> 2) = a + b + c + d,
         * ((4a + 4b) >> 1) = 2 (a + b) */
        for (unsigned i = 0; i < out_h; i++) {
            const uint8_t *r0 = (const uint8_t *)pic->data[0] + i * pic->stride[0];
            uint16_t *o = out + i * stride;
            if (i + 1 < out_h) {
                const uint8_t *r1 = r0 + pic->stride[0];
                for (unsigned j = 0; j + 1 < out_w; j++)
                    o[j] = (uint16_t)(r0[j] + r0[j + 1] + r1[j] + r1[j + 1]);
                o[out_w - 1] = (uint16_t)(2 * (r0[out_w - 1] + r1[out_w - 1]));
            } else {
                for (unsigned j = 0; j + 1 < out_w; j++) o[j] = (uint16_t)(2 * (r0[j] + r0[j + 1]));
                o[out_w - 1] = (uint16_t)(4 * r0[out_w - 1]);
            }
        }
        return;
    }
    const int up = bpc <= 8 ? 10 - (int)bpc : bpc == 9 ? 1 : 0;
    const int down = bpc >= 10 ? (int)bpc - 10 : 0;
    const unsigned round = down ? 1u << (down - 1) : 0;
    for (unsigned i = 0; i < out_h; i++) {
        uint16_t *o = out + i * stride;
        const unsigned y = same ? i : pos_y[i];
        if (bpc <= 8) {
            const uint8_t *row = (const uint8_t *)pic->data[0] + y * pic->stride[0];
            if (same)
                for (unsigned j = 0; j < out_w; j++) o[j] = (uint16_t)(row[j] << up);
            else
                for (unsigned j = 0; j < out_w; j++) o[j] = (uint16_t)(row[pos_x[j]] << up);
        } else {
            const uint16_t *row =
                (const uint16_t *)((const uint8_t *)pic->data[0] + y * pic->stride[0]);
            if (same)
                for (unsigned j = 0; j < out_w; j++)
                    o[j] = (uint16_t)(((row[j] + round) >> down) << up);
            else
                for (unsigned j = 0; j < out_w; j++)
                    o[j] = (uint16_t)(((row[pos_x[j]] + round) >> down) << up);
        }
    }
    if (enc_bitdepth >= 10) return;
    /* anti-dithering: 2x2 mean; reads only samples not yet rewritten */
    for (unsigned i = 0; i + 1 < out_h; i++) {
        uint16_t *r0 = out + i * stride, *r1 = r0 + stride;
        for (unsigned j = 0; j + 1 < out_w; j++)
            r0[j] = (uint16_t)((r0[j] + r0[j + 1] + r1[j] + r1[j + 1]) >> 2);
        r0[out_w - 1] = (uint16_t)((r0[out_w - 1] + r1[out_w - 1]) >> 1);
    }
    uint16_t *last = out + (out_h - 1) * stride;
    for (unsigned j = 0; j + 1 < out_w; j++) last[j] = (uint16_t)((last[j] + last[j + 1]) >> 1);
}

/* ---- the extractor ------------------------------------------------------------------------ */

typedef VmafCambiState CambiState;

static const VmafOption cambi_options[] = {
    { .name = "cambi_max_val", .alias = "cmxv",
      .help = "maximum value allowed; larger values are clipped to it",
      .offset = offsetof(CambiState, opt.max_val), .type = VMAF_OPT_TYPE_DOUBLE,
      .default_val.d = VMAF_CAMBI_DEFAULT_MAX_VAL, .min = 0.0, .max = 1000.0,
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "enc_width", .alias = "encw", .help = "encoding width",
      .offset = offsetof(CambiState, opt.enc_width), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = 0, .min = 180, .max = 7680, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "enc_height", .alias = "ench", .help = "encoding height",
      .offset = offsetof(CambiState, opt.enc_height), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = 0, .min = 150, .max = 7680, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "enc_bitdepth", .alias = "encbd", .help = "encoding bit depth",
      .offset = offsetof(CambiState, opt.enc_bitdepth), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = 0, .min = 6, .max = 16, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "src_width", .alias = "srcw", .help = "source width (full_ref only)",
      .offset = offsetof(CambiState, opt.src_width), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = 0, .min = 320, .max = 7680, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "src_height", .alias = "srch", .help = "source height (full_ref only)",
      .offset = offsetof(CambiState, opt.src_height), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = 0, .min = 200, .max = 4320, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "window_size", .alias = "ws",
      .help = "window size at 4K (65 is about one degree), scaled with the frame",
      .offset = offsetof(CambiState, opt.window_size), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = VMAF_CAMBI_DEFAULT_WINDOW_SIZE, .min = 15, .max = 127,
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "topk", .help = "fraction of the c-values pooled per scale, 0 < topk <= 1",
      .offset = offsetof(CambiState, opt.topk), .type = VMAF_OPT_TYPE_DOUBLE,
      .default_val.d = VMAF_CAMBI_DEFAULT_TOPK, .min = 0.0001, .max = 1.0,
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "cambi_topk", .alias = "ctpk",
      .help = "fraction of the c-values pooled per scale (topk wins when not default)",
      .offset = offsetof(CambiState, opt.cambi_topk), .type = VMAF_OPT_TYPE_DOUBLE,
      .default_val.d = VMAF_CAMBI_DEFAULT_TOPK, .min = 0.0001, .max = 1.0,
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "tvi_threshold", .alias = "tvit",
      .help = "visibility threshold: a step dL is visible when dL > tvi_threshold * L",
      .offset = offsetof(CambiState, opt.tvi_threshold), .type = VMAF_OPT_TYPE_DOUBLE,
      .default_val.d = VMAF_CAMBI_DEFAULT_TVI, .min = 0.0001, .max = 1.0,
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "cambi_vis_lum_threshold", .alias = "vlt",
      .help = "luminance below which banding is taken as invisible",
      .offset = offsetof(CambiState, opt.vis_lum_threshold), .type = VMAF_OPT_TYPE_DOUBLE,
      .default_val.d = VMAF_CAMBI_DEFAULT_VLT, .min = 0.0, .max = 300.0,
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "max_log_contrast", .alias = "mlc",
      .help = "largest contrast considered, log2 of 10-bit levels (0..5)",
      .offset = offsetof(CambiState, opt.max_log_contrast), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = VMAF_CAMBI_DEFAULT_MAX_LOG_CONTRAST, .min = 0, .max = 5,
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "heatmaps_path", .help = "folder for the per-scale c-value heatmaps",
      .offset = offsetof(CambiState, opt.heatmaps_path), .type = VMAF_OPT_TYPE_STRING,
      .default_val.s = NULL },
    { .name = "full_ref", .help = "also score the reference and write the difference",
      .offset = offsetof(CambiState, opt.full_ref), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = false },
    { .name = "eotf", .help = "EOTF of the visibility thresholds: bt1886 or pq",
      .offset = offsetof(CambiState, opt.eotf), .type = VMAF_OPT_TYPE_STRING,
      .default_val.s = VMAF_CAMBI_DEFAULT_EOTF, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "cambi_eotf", .alias = "ceot",
      .help = "EOTF of the visibility thresholds (wins over eotf when not default)",
      .offset = offsetof(CambiState, opt.cambi_eotf), .type = VMAF_OPT_TYPE_STRING,
      .default_val.s = VMAF_CAMBI_DEFAULT_EOTF, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "cambi_high_res_speedup", .alias = "hrs",
      .help = "from this height class (1080, 1440, 2160) on, decimate before the first scale",
      .offset = offsetof(CambiState, opt.high_res_speedup), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = 0, .min = 0, .max = VMAF_CAMBI_4K_HEIGHT,
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { 0 },
};

static int make_dirs(const char *path)
{
    char buf[1024];
    const size_t n = strlen(path);
    if (!n || n >= sizeof(buf)) return -EINVAL;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        const char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0770) && errno != EEXIST) return -errno;
        buf[i] = c;
    }
    struct stat st;
    if (stat(path, &st) || !S_ISDIR(st.st_mode)) return -ENOTDIR;
    return 0;
}

static int open_heatmaps(CambiState *s, bool reopen)
{
    const char *dir = s->opt.heatmaps_path;
    int err = reopen ? 0 : make_dirs(dir);
    if (err) {
        vmaf_log(s->log_level, VMAF_LOG_LEVEL_ERROR, "cambi: cannot create heatmaps_path %s\n",
                 dir);
        return -EINVAL;
    }
    unsigned w = s->setup.enc_w, h = s->setup.enc_h;
    for (unsigned scale = 0; scale < VMAF_CAMBI_NUM_SCALES; scale++) {
        char path[1024];
        const int n = snprintf(path, sizeof(path), "cambi_heatmap_scale_%u_%ux%u_16b.gray",
                               scale, w, h);
        if (n < 0 || (size_t)n >= sizeof(path)) return -EINVAL;
        /* a symbolic or hard link put at a heatmap's name (to an input, say) is refused,
         * never followed and emptied */
        err = vmaf_file_open_in_dir(dir, path, reopen, &s->heatmaps[scale], s->log_level);
        if (err) {
            vmaf_log(s->log_level, VMAF_LOG_LEVEL_ERROR,
                     "cambi: could not open a heatmap in heatmaps_path %s\n", dir);
            return -EINVAL;
        }
        w = (w + 1) >> 1;
        h = (h + 1) >> 1;
    }
    return 0;
}

static int cambi_init(void *priv, const VmafFeatureGeometry *g)
{
    CambiState *s = priv;
    s->log_level = g->log_level;
    char msg[256];
    int err = vmaf_cambi_setup(&s->setup, &s->opt, g->w, g->h, g->bpc, msg, sizeof(msg));
    if (err) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR, "%s\n", msg);
        return err;
    }
    const VmafCambiSetup *st = &s->setup;
    s->stride = ((ptrdiff_t)st->alloc_w + 31) & ~(ptrdiff_t)31;
    const size_t plane = (size_t)s->stride * st->alloc_h;
    s->image = calloc(plane, sizeof(uint16_t));
    s->mask = calloc(plane, sizeof(uint16_t));
    s->c_values = malloc((size_t)st->alloc_w * st->alloc_h * sizeof(float));
    s->pos_x = malloc(st->alloc_w * sizeof(unsigned));
    s->pos_y = malloc(st->alloc_h * sizeof(unsigned));
    if (!s->image || !s->mask || !s->c_values || !s->pos_x || !s->pos_y) return -ENOMEM;
    err = vmaf_cambi_scratch_alloc(&s->scratch, st->alloc_w, st->alloc_h, st->params.band_size);
    if (err) return err;
    if (s->opt.heatmaps_path) return open_heatmaps(s, g->worker_copy);
    return 0;
}

static int write_heatmap(CambiState *s, unsigned scale, unsigned w, unsigned h, unsigned window,
                         unsigned index)
{
    int max_weight = vmaf_cambi_contrast_weights[0];
    for (unsigned d = 0; d < s->setup.params.num_diffs; d++)
        if (vmaf_cambi_contrast_weights[d] > max_weight) max_weight = vmaf_cambi_contrast_weights[d];
    const int max_c = max_weight * (int)window * (int)window / 4;
    const double scaling = (double)((1 << 16) - 1) / max_c;
    uint16_t *row = malloc(w * sizeof(uint16_t));
    if (!row) return -ENOMEM;
    FILE *f = s->heatmaps[scale];
    int err = 0;
    for (unsigned i = 0; i < h && !err; i++) {
        for (unsigned j = 0; j < w; j++)
            row[j] = (uint16_t)(int32_t)(scaling * s->c_values[(size_t)i * w + j]);
        const long offset = (long)(((size_t)index * h + i) * w * sizeof(uint16_t));
        if (fseek(f, offset, SEEK_SET) || fwrite(row, sizeof(uint16_t), w, f) != w) err = -EIO;
    }
    free(row);
    if (err) vmaf_log(s->log_level, VMAF_LOG_LEVEL_ERROR, "cambi: cannot write a heatmap\n");
    return err;
}

/* The score of the picture now in s->image (w x h, 10-bit). */
static int score_picture(CambiState *s, unsigned w, unsigned h, unsigned window,
                         bool heatmaps, unsigned index, double *score)
{
    const VmafCambiSetup *st = &s->setup;
    double per_scale[VMAF_CAMBI_NUM_SCALES];
    vmaf_cambi_spatial_mask(s->image, s->mask, s->stride, w, h, &s->scratch);
    for (unsigned scale = 0; scale < VMAF_CAMBI_NUM_SCALES; scale++) {
        if (scale > 0 || st->high_res_speedup) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
            vmaf_cambi_decimate(s->image, s->stride, w, h);
            vmaf_cambi_decimate(s->mask, s->stride, w, h);
        }
        vmaf_cambi_filter_mode(s->image, s->stride, w, h, &s->scratch);
        vmaf_cambi_c_values(s->image, s->mask, s->stride, w, h, window, &st->params,
                            s->c_values, &s->scratch);
        if (heatmaps) {
            int err = write_heatmap(s, scale, w, h, window, index);
            if (err) return err;
        }
        per_scale[scale] = vmaf_cambi_spatial_pooling(s->c_values, st->topk, w * h);
    }
    *score = vmaf_cambi_combine(per_scale, window);
    return 0;
}

double vmaf_cambi_combine(const double per_scale[VMAF_CAMBI_NUM_SCALES], unsigned window)
{
    const uint16_t side = (uint16_t)(2 * (window >> 1) + 1);
    const uint16_t pixels_in_window = (uint16_t)(side * side);
    double sum = 0.0;
    for (unsigned scale = 0; scale < VMAF_CAMBI_NUM_SCALES; scale++)
        sum += per_scale[scale] * vmaf_cambi_scale_weights[scale];
    return sum / pixels_in_window;
}

/* pic's score (is_src: the reference's, at the source size), its samples checked before. */
static int score_checked(CambiState *s, const VmafPicture *pic, bool is_src, unsigned index,
                         double *score)
{
    const VmafCambiSetup *st = &s->setup;
    const unsigned w = is_src ? st->src_w : st->enc_w;
    const unsigned h = is_src ? st->src_h : st->enc_h;
    vmaf_cambi_preprocess(pic, s->image, s->stride, w, h, st->enc_bitdepth, s->pos_x, s->pos_y);
    return score_picture(s, w, h, is_src ? st->src_window : st->window,
                         s->opt.heatmaps_path && !is_src, index, score);
}

/* The same, checking pic's samples first (validate_luma). */
static int score_input(CambiState *s, const VmafPicture *pic, bool is_src, unsigned index,
                       double *score)
{
    const int err = validate_luma(pic, s->log_level);
    return err ? err : score_checked(s, pic, is_src, index, score);
}

int vmaf_cambi_store(const VmafCambiOptions *opt, double dist, const double *src,
                     unsigned index, VmafFeatureSink *sink)
{
    const double max_val = opt->max_val;
    int err = vmaf_feature_sink_append(sink, "Cambi_feature_cambi_score",
                                       dist < max_val ? dist : max_val, index);
    if (err || !src) return err;
    err = vmaf_feature_sink_append(sink, "cambi_source", *src < max_val ? *src : max_val, index);
    if (err) return err;
    const double diff = dist - *src;
    const double combined = 0 > diff ? 0 : diff;
    return vmaf_feature_sink_append(sink, "cambi_full_reference",
                                    combined < max_val ? combined : max_val, index);
}

/*
 * With full_ref, the reference's score at the source size depends on the reference picture
 * and the setup alone (no state is kept from one picture to the next: every buffer is
 * rewritten before it is read), so a reference scored by several contexts (a ladder's rungs,
 * picture.h) is scored once, as a side product of the picture, by the first instance that
 * needs it (with its own buffers), and the others read the score. The product holds the
 * setup it was scored with, and a reader whose setup differs (a hash collision of the key)
 * scores the reference itself. A reference that fails validation keeps no product: every
 * instance then fails on it itself, with its message, as a single run does.
 */
typedef struct CambiSrcSide {
    unsigned src_w, src_h, src_window, enc_bitdepth;
    bool high_res_speedup;
    double topk;
    unsigned num_diffs;
    uint16_t tvi_for_diff[VMAF_CAMBI_MAX_DIFFS];
    uint16_t vlt_luma, band_base, band_size;
    double score;
} CambiSrcSide;

static void src_side_setup(const VmafCambiSetup *st, CambiSrcSide *p)
{
    memset(p, 0, sizeof(*p));
    p->src_w = st->src_w;
    p->src_h = st->src_h;
    p->src_window = st->src_window;
    p->enc_bitdepth = st->enc_bitdepth;
    p->high_res_speedup = st->high_res_speedup;
    p->topk = st->topk;
    p->num_diffs = st->params.num_diffs;
    memcpy(p->tvi_for_diff, st->params.tvi_for_diff, sizeof(p->tvi_for_diff));
    p->vlt_luma = st->params.vlt_luma;
    p->band_base = st->params.band_base;
    p->band_size = st->params.band_size;
}

static bool src_side_same(const CambiSrcSide *a, const CambiSrcSide *b)
{
    return a->src_w == b->src_w && a->src_h == b->src_h && a->src_window == b->src_window &&
           a->enc_bitdepth == b->enc_bitdepth && a->high_res_speedup == b->high_res_speedup &&
           !memcmp(&a->topk, &b->topk, sizeof(a->topk)) && a->num_diffs == b->num_diffs &&
           !memcmp(a->tvi_for_diff, b->tvi_for_diff, sizeof(a->tvi_for_diff)) &&
           a->vlt_luma == b->vlt_luma && a->band_base == b->band_base &&
           a->band_size == b->band_size;
}

/* FNV-1a of the setup's fields (their values, not the struct's padding). */
static uint64_t src_side_hash(const CambiSrcSide *p)
{
    uint64_t h = 0xcbf29ce484222325ull;
    unsigned char bytes[sizeof(*p)];
    size_t n = 0;
#define ADD(x) (memcpy(bytes + n, &(x), sizeof(x)), n += sizeof(x))
    ADD(p->src_w);
    ADD(p->src_h);
    ADD(p->src_window);
    ADD(p->enc_bitdepth);
    ADD(p->high_res_speedup);
    ADD(p->topk);
    ADD(p->num_diffs);
    ADD(p->tvi_for_diff);
    ADD(p->vlt_luma);
    ADD(p->band_base);
    ADD(p->band_size);
#undef ADD
    for (size_t k = 0; k < n; k++) h = (h ^ bytes[k]) * 0x100000001b3ull;
    return h;
}

typedef struct CambiSideArgs {
    CambiState *s;
    const VmafPicture *ref;
    unsigned index;
} CambiSideArgs;

static int cambi_side_compute(void *data, size_t size, void *arg)
{
    const CambiSideArgs *a = arg;
    CambiSrcSide *p = data;
    if (size < sizeof(*p)) return -EINVAL;
    src_side_setup(&a->s->setup, p);
    return score_input(a->s, a->ref, true, a->index, &p->score);
}

static void src_side_key(const CambiSrcSide *want, char key[40])
{
    snprintf(key, 40, "cambi/src/%016llx", (unsigned long long)src_side_hash(want));
}

/* The reference's side product (*side, put by the caller once read): -EAGAIN when another
 * reader scores it now and nowait (nothing done), another error when there is none to read
 * (score the reference here). */
static int src_side_acquire(CambiState *s, const VmafFeatureFrame *f, const CambiSrcSide **side)
{
    if (!vmaf_picture_side_shared(f->ref)) return -ENOENT;
    CambiSrcSide want;
    src_side_setup(&s->setup, &want);
    char key[40];
    src_side_key(&want, key);
    CambiSideArgs args = { s, f->ref, f->index };
    const void *data;
    const int err = vmaf_picture_side_acquire(f->ref, key, sizeof(CambiSrcSide),
                                              cambi_side_compute, &args, f->side_nowait, &data);
    if (err) return err;
    if (!src_side_same(data, &want)) {
        vmaf_picture_side_put(f->ref, data);
        return -ENOENT;
    }
    *side = data;
    return 0;
}

static int cambi_extract(void *priv, const VmafFeatureFrame *f, VmafFeatureSink *sink)
{
    CambiState *s = priv;
    double dist, src;
    /* the distorted picture checked first (a single run's first message), then the
     * reference's side product taken before any work, so that -EAGAIN leaves none done */
    int err = validate_luma(f->dist, s->log_level);
    if (err) return err;
    const CambiSrcSide *side = NULL;
    if (s->opt.full_ref && src_side_acquire(s, f, &side) == -EAGAIN)
        return -EAGAIN; /* asked again later (VmafFeatureFrame.side_nowait) */
    err = score_checked(s, f->dist, false, f->index, &dist);
    if (!err && s->opt.full_ref) {
        if (side) src = side->score;
        else err = score_input(s, f->ref, true, f->index, &src);
    }
    if (side) vmaf_picture_side_put(f->ref, side);
    if (err) return err;
    return vmaf_cambi_store(&s->opt, dist, s->opt.full_ref ? &src : NULL, f->index, sink);
}

static void cambi_close(void *priv)
{
    CambiState *s = priv;
    free(s->image);
    free(s->mask);
    free(s->c_values);
    free(s->pos_x);
    free(s->pos_y);
    vmaf_cambi_scratch_free(&s->scratch);
    for (unsigned i = 0; i < VMAF_CAMBI_NUM_SCALES; i++)
        if (s->heatmaps[i]) fclose(s->heatmaps[i]);
}

static const char *const cambi_features[] = { "Cambi_feature_cambi_score", NULL };

const VmafFeatureExtractor vmaf_fex_cambi = {
    .name = "cambi",
    .priv_size = sizeof(CambiState),
    .options = cambi_options,
    .provided_features = cambi_features,
    .flags = VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = cambi_init,
    .extract = cambi_extract,
    .close = cambi_close,
};
