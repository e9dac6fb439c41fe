/*
 * Twin VMAF — integer ADM: work buffers, the per-frame pipeline and the "adm" extractor
 * (see adm.h for the arithmetic).
 */
#include <errno.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adm.h"
#include "adm_device.h"
#include "feature_extractor.h"
#include "picture.h"

/* ------------------------------------------------------------------------------------- */
/* Buffers                                                                               */

enum {
    BUFFER_ALIGN = 32,
    BANDS_16 = 20, /* ref A,H,V,D + dis A,H,V,D + 4 x (H,V,D) */
    BANDS_32 = 20,
};

static size_t align_up(size_t x)
{
    return (x + BUFFER_ALIGN - 1) / BUFFER_ALIGN * BUFFER_ALIGN;
}

/* The block: two guard rows (of the int32 stride) on each side keep the index rules' reads
 * inside the allocation; then the int16 bands, then the int32 bands, in the reference's
 * order. */
int vmaf_adm_layout(unsigned w, unsigned h, VmafAdmLayout *l)
{
    memset(l, 0, sizeof(*l));
    if (!w || !h || w > 32768 || h > 32768)
        return -EINVAL;
    const size_t half_w = (w + 1) / 2, half_h = (h + 1) / 2;
    const size_t row_bytes = align_up(half_w * sizeof(int32_t));
    l->stride = row_bytes / sizeof(int32_t);
    l->band_bytes = row_bytes * half_h;
    const size_t guard = 2 * row_bytes;
    const size_t bands = l->band_bytes / 2 * BANDS_16 + l->band_bytes * BANDS_32;
    l->block_bytes = guard + bands + guard;
    size_t top = guard;
    for (int pass = 0; pass < 2; pass++) {
        const size_t bytes = pass ? l->band_bytes : l->band_bytes / 2;
        size_t (*off)[4] = pass ? l->off32 : l->off16;
        for (int g = 0; g < 6; g++) {
            for (int k = 0; k < 4; k++) {
                if (k == 0 && g >= 2) {
                    off[g][k] = SIZE_MAX;
                    continue;
                }
                off[g][k] = top;
                top += bytes;
            }
        }
    }
    return 0;
}

static void bands16(VmafAdmBands16 *b, char *block, const size_t off[4])
{
    b->a = off[0] == SIZE_MAX ? NULL : (int16_t *)(void *)(block + off[0]);
    b->h = (int16_t *)(void *)(block + off[1]);
    b->v = (int16_t *)(void *)(block + off[2]);
    b->d = (int16_t *)(void *)(block + off[3]);
}

static void bands32(VmafAdmBands32 *b, char *block, const size_t off[4])
{
    b->a = off[0] == SIZE_MAX ? NULL : (int32_t *)(void *)(block + off[0]);
    b->h = (int32_t *)(void *)(block + off[1]);
    b->v = (int32_t *)(void *)(block + off[2]);
    b->d = (int32_t *)(void *)(block + off[3]);
}

/* The compact block of a worker instance (vmaf_adm_buffers_alloc_compact). Within a scale,
 * ref and dis H, V, D are last read by the denominators, before the CSF writes csf and
 * mask: so csf takes dis's bands and mask takes ref's. Scales 1..3 write their int32 bands
 * only ceil(h/4) rows deep, except A, which also holds scale 0's ceil(h/2)-row output; and
 * by then scale 0's int16 bands are dead: so the int32 H, V, D bands (ceil(ceil(h/2)/2)
 * rows of the same stride each) lie inside the int16 region, and only the two int32 A bands
 * come after it. Pictures this large make no read outside a band at any scale (the reads of
 * adm_device.h's note need bands of 1..4 rows), so what lies around a band is never seen,
 * and the totals equal the full layout's (tests/extractors/test_adm_compact.c, also with garbage in
 * the block before a frame). */
enum { COMPACT_MIN_SIZE = 64 };

static void compact_layout(unsigned h, VmafAdmLayout *l)
{
    const size_t row_bytes = l->stride * sizeof(int32_t);
    const size_t half_h = (h + 1) / 2;
    const size_t small = (half_h + 1) / 2 * row_bytes;
    const size_t guard = 2 * row_bytes;
    enum { REF, DIS, R, A, CSF, MASK };
    /* int16: H, V, D of ref, dis, r and a (no stage uses an int16 A band) */
    size_t top = guard;
    for (int g = REF; g <= A; g++)
        for (int k = 0; k < 4; k++) {
            l->off16[g][k] = k ? top : SIZE_MAX;
            top += k ? l->band_bytes / 2 : 0;
        }
    /* int32 H, V, D of ref, dis, r, a from the start of that region, which is as long as
     * the longer of the two sets */
    const size_t region = top > guard + 12 * small ? top : guard + 12 * small;
    top = guard;
    for (int g = REF; g <= A; g++) {
        l->off32[g][0] = SIZE_MAX;
        for (int k = 1; k < 4; k++) {
            l->off32[g][k] = top;
            top += small;
        }
    }
    l->off32[REF][0] = region;
    l->off32[DIS][0] = region + l->band_bytes;
    for (int k = 0; k < 4; k++) {
        l->off16[CSF][k] = k ? l->off16[DIS][k] : SIZE_MAX;
        l->off16[MASK][k] = k ? l->off16[REF][k] : SIZE_MAX;
        l->off32[CSF][k] = k ? l->off32[DIS][k] : SIZE_MAX;
        l->off32[MASK][k] = k ? l->off32[REF][k] : SIZE_MAX;
    }
    l->block_bytes = region + 2 * l->band_bytes + guard;
}

static int buffers_alloc(VmafAdmBuffers *b, unsigned w, unsigned h, bool compact)
{
    memset(b, 0, sizeof(*b));
    VmafAdmLayout l;
    int err = compact ? vmaf_adm_layout_compact(w, h, &l) : vmaf_adm_layout(w, h, &l);
    if (err)
        return err;
    const size_t half_w = (w + 1) / 2;
    b->w = w;
    b->h = h;
    b->simd = vmaf_adm_simd_available();
    b->stride = l.stride;
    b->band_bytes = l.band_bytes;
    b->block_bytes = l.block_bytes;
    b->block = calloc(1, l.block_bytes);
    /* row buffer: the reference's 4 lines of the picture width in int32, at least 4 lines of
     * the band stride (+2) then 8 of the scale-1 width for the degenerate-row copies
     * (adm_dwt.c), and a guard in front */
    const size_t lines = align_up(w * sizeof(int32_t)) * 4;
    const size_t copies = (4 * l.stride + 2 + 8 * half_w + 2) * sizeof(int32_t);
    b->row_bytes = lines > copies ? lines : copies;
    b->row_block = calloc(1, BUFFER_ALIGN + b->row_bytes);
    if (!b->block || !b->row_block) {
        vmaf_adm_buffers_free(b);
        return -ENOMEM;
    }
    b->rows = (int32_t *)((char *)b->row_block + BUFFER_ALIGN);

    char *block = b->block;
    VmafAdmBands16 *g16[6] = { &b->ref16, &b->dis16, &b->r16, &b->a16, &b->csf16, &b->mask16 };
    VmafAdmBands32 *g32[6] = { &b->ref32, &b->dis32, &b->r32, &b->a32, &b->csf32, &b->mask32 };
    for (int g = 0; g < 6; g++) {
        bands16(g16[g], block, l.off16[g]);
        bands32(g32[g], block, l.off32[g]);
    }
    return 0;
}

int vmaf_adm_buffers_alloc(VmafAdmBuffers *b, unsigned w, unsigned h)
{
    return buffers_alloc(b, w, h, false);
}

int vmaf_adm_buffers_alloc_compact(VmafAdmBuffers *b, unsigned w, unsigned h)
{
    return buffers_alloc(b, w, h, true);
}

void vmaf_adm_buffers_free(VmafAdmBuffers *b)
{
    free(b->block);
    free(b->row_block);
    memset(b, 0, sizeof(*b));
}

void vmaf_adm_buffers_clear(VmafAdmBuffers *b)
{
    memset(b->block, 0, b->block_bytes);
    memset(b->row_block, 0, BUFFER_ALIGN + b->row_bytes);
}

/* ------------------------------------------------------------------------------------- */
/* Pipeline                                                                              */

void vmaf_adm_score(VmafAdmBuffers *b, const VmafAdmOptions *opt,
                    const VmafAdmScaleFactors f[VMAF_ADM_SCALES],
                    const void *ref, ptrdiff_t ref_stride,
                    const void *dis, ptrdiff_t dis_stride, unsigned bpc,
                    VmafAdmScores *out)
{
    VmafAdmTotals t;
    vmaf_adm_score_totals(b, opt, f, ref, ref_stride, dis, dis_stride, bpc, &t);
    vmaf_adm_scores_from_totals(opt, f, b->w, b->h, &t, out);
}

/* The part of scale 0 after the DWT: decouple against ref (the buffers' bands, or a side's),
 * the denominator totals (computed, or den from a side), CSF and the masked sums. */
static void rest_scale0(VmafAdmBuffers *b, const VmafAdmOptions *opt, const VmafAdmScaleFactors *f,
                        const VmafAdmBands16 *ref, const uint64_t *den, int w, int h,
                        VmafAdmTotals *t)
{
    const size_t stride = b->stride;
    (b->simd ? vmaf_adm_decouple_scale0_simd : vmaf_adm_decouple_scale0)(
        ref, &b->dis16, &b->r16, &b->a16, w, h, stride, opt->enhn_gain_limit);
    if (den)
        memcpy(t->den[0], den, sizeof(t->den[0]));
    else
        vmaf_adm_den_totals_scale0(ref, w, h, stride, t->den[0]);
    vmaf_adm_csf_scale0(&b->a16, &b->csf16, &b->mask16, w, h, stride, f);
    vmaf_adm_masked_totals_scale0(&b->r16, &b->csf16, &b->mask16, w, h, stride, f, t->num[0]);
    if (!opt->skip_aim) {
        vmaf_adm_csf_scale0(&b->r16, &b->mask16, &b->csf16, w, h, stride, f);
        vmaf_adm_masked_totals_scale0(&b->a16, &b->mask16, &b->csf16, w, h, stride, f,
                                      t->aim[0]);
    }
}

/* The same for scale s of 1..3. */
static void rest_scale123(VmafAdmBuffers *b, const VmafAdmOptions *opt,
                          const VmafAdmScaleFactors *f, const VmafAdmBands32 *ref,
                          const uint64_t *den, int w, int h, unsigned s, VmafAdmTotals *t)
{
    const size_t stride = b->stride;
    (b->simd ? vmaf_adm_decouple_scale123_simd : vmaf_adm_decouple_scale123)(
        ref, &b->dis32, &b->r32, &b->a32, w, h, stride, opt->enhn_gain_limit);
    if (den)
        memcpy(t->den[s], den, sizeof(t->den[s]));
    else
        vmaf_adm_den_totals_scale123(ref, w, h, stride, s, t->den[s]);
    vmaf_adm_csf_scale123(&b->a32, &b->csf32, &b->mask32, w, h, stride, f);
    vmaf_adm_masked_totals_scale123(&b->r32, &b->csf32, &b->mask32, w, h, stride, f,
                                    t->num[s]);
    if (!opt->skip_aim) {
        vmaf_adm_csf_scale123(&b->r32, &b->mask32, &b->csf32, w, h, stride, f);
        vmaf_adm_masked_totals_scale123(&b->a32, &b->mask32, &b->csf32, w, h, stride, f,
                                        t->aim[s]);
    }
}

typedef void (*Dwt0Fn)(const void *, ptrdiff_t, unsigned, int, int, int16_t *,
                       const VmafAdmBands16 *, int32_t *, size_t, bool);
typedef void (*Dwt123Fn)(const VmafAdmBands32 *, const VmafAdmBands32 *, int32_t *, int, int,
                         size_t, unsigned);

void vmaf_adm_score_totals(VmafAdmBuffers *b, const VmafAdmOptions *opt,
                           const VmafAdmScaleFactors f[VMAF_ADM_SCALES],
                           const void *ref, ptrdiff_t ref_stride,
                           const void *dis, ptrdiff_t dis_stride, unsigned bpc,
                           VmafAdmTotals *totals)
{
    const size_t stride = b->stride;
    int w = (int)b->w, h = (int)b->h;
    VmafAdmTotals t;
    memset(&t, 0, sizeof(t));

    if (b->w <= 4 || b->h <= 4)
        vmaf_adm_buffers_clear(b);

    const Dwt0Fn dwt0 = b->simd ? vmaf_adm_dwt_scale0_simd : vmaf_adm_dwt_scale0;
    const Dwt123Fn dwt123 = b->simd ? vmaf_adm_dwt_scale123_simd : vmaf_adm_dwt_scale123;
    for (unsigned s = 0; s < VMAF_ADM_SCALES; s++) {
        if (s == 0) {
            int16_t *rows16 = (int16_t *)b->rows;
            const bool lo_only = opt->skip_scale0;
            dwt0(ref, ref_stride, bpc, w, h, rows16, &b->ref16, b->ref32.a, stride, lo_only);
            dwt0(dis, dis_stride, bpc, w, h, rows16, &b->dis16, b->dis32.a, stride, lo_only);
            w = (w + 1) / 2;
            h = (h + 1) / 2;
            if (!lo_only)
                rest_scale0(b, opt, &f[0], &b->ref16, NULL, w, h, &t);
        } else {
            dwt123(&b->ref32, &b->dis32, b->rows, w, h, stride, s);
            w = (w + 1) / 2;
            h = (h + 1) / 2;
            rest_scale123(b, opt, &f[s], &b->ref32, NULL, w, h, s, &t);
        }
    }
    *totals = t;
}

/* ------------------------------------------------------------------------------------- */
/* Reference side (adm.h)                                                                */

/* The side's header, then per scale its H, V, D bands (int16 at scale 0, int32 at 1..3) of
 * the band's rows at the buffers' stride, each followed by 64 spare bytes. */
typedef struct AdmRefSide {
    unsigned w, h, bpc;
    int simd, lo_only;
    uint64_t den[VMAF_ADM_SCALES][3];
    size_t off[VMAF_ADM_SCALES]; /* of the scale's H band; V and D follow, band[s] apart */
    size_t band[VMAF_ADM_SCALES];
} AdmRefSide;

static size_t align64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

/* The side's layout for w x h (side NULL: the size only). */
static size_t side_layout(AdmRefSide *side, unsigned w, unsigned h)
{
    VmafAdmLayout l;
    if (vmaf_adm_layout(w, h, &l))
        return 0;
    size_t at = align64(sizeof(AdmRefSide));
    unsigned bh = h;
    for (unsigned s = 0; s < VMAF_ADM_SCALES; s++) {
        bh = (bh + 1) / 2;
        const size_t band = align64((size_t)bh * l.stride * (s ? 4 : 2) + 64);
        if (side) {
            side->off[s] = at;
            side->band[s] = band;
        }
        at += 3 * band;
    }
    return at;
}

bool vmaf_adm_ref_side_applies(unsigned w, unsigned h)
{
    if (w < COMPACT_MIN_SIZE || h < COMPACT_MIN_SIZE || w > 32768 || h > 32768)
        return false;
    int bw = ((int)w + 1) / 2, bh = ((int)h + 1) / 2;
    for (unsigned s = 1; s < VMAF_ADM_SCALES; s++) {
        bw = (bw + 1) / 2;
        bh = (bh + 1) / 2;
        /* a straight last column (the reference's H, D there read the distorted lo line)
         * inside the region the later stages read */
        if (vmaf_adm_straight_last(bw, 8) && vmaf_adm_region_outer(bw, bh).right > bw - 1)
            return false;
    }
    return true;
}

size_t vmaf_adm_ref_side_size(unsigned w, unsigned h)
{
    return side_layout(NULL, w, h);
}

static VmafAdmBands16 side_bands16(const AdmRefSide *side)
{
    char *at = (char *)side + side->off[0];
    const size_t n = side->band[0];
    return (VmafAdmBands16){ NULL, (int16_t *)(void *)at, (int16_t *)(void *)(at + n),
                             (int16_t *)(void *)(at + 2 * n) };
}

static VmafAdmBands32 side_bands32(const AdmRefSide *side, unsigned s, int32_t *a)
{
    char *at = (char *)side + side->off[s];
    const size_t n = side->band[s];
    return (VmafAdmBands32){ a, (int32_t *)(void *)at, (int32_t *)(void *)(at + n),
                             (int32_t *)(void *)(at + 2 * n) };
}

int vmaf_adm_ref_side_compute(VmafAdmBuffers *b, bool lo_only, void *mem, size_t size,
                              const void *ref, ptrdiff_t ref_stride, unsigned bpc)
{
    if (!b || !b->block || !mem || !ref || !vmaf_adm_ref_side_applies(b->w, b->h) ||
        size < vmaf_adm_ref_side_size(b->w, b->h))
        return -EINVAL;
    AdmRefSide *side = mem;
    memset(side, 0, sizeof(*side));
    side_layout(side, b->w, b->h);
    side->w = b->w;
    side->h = b->h;
    side->bpc = bpc;
    side->simd = b->simd;
    side->lo_only = lo_only;

    const size_t stride = b->stride;
    int w = (int)b->w, h = (int)b->h;
    const Dwt0Fn dwt0 = b->simd ? vmaf_adm_dwt_scale0_simd : vmaf_adm_dwt_scale0;
    const Dwt123Fn dwt123 = b->simd ? vmaf_adm_dwt_scale123_simd : vmaf_adm_dwt_scale123;
    const VmafAdmBands16 r16 = side_bands16(side);
    dwt0(ref, ref_stride, bpc, w, h, (int16_t *)b->rows, &r16, b->ref32.a, stride, lo_only);
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    if (!lo_only)
        vmaf_adm_den_totals_scale0(&r16, w, h, stride, side->den[0]);
    for (unsigned s = 1; s < VMAF_ADM_SCALES; s++) {
        const VmafAdmBands32 r32 = side_bands32(side, s, b->ref32.a);
        dwt123(&r32, NULL, b->rows, w, h, stride, s);
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        vmaf_adm_den_totals_scale123(&r32, w, h, stride, s, side->den[s]);
    }
    return 0;
}

int vmaf_adm_score_totals_from_side(VmafAdmBuffers *b, const VmafAdmOptions *opt,
                                    const VmafAdmScaleFactors f[VMAF_ADM_SCALES],
                                    const void *mem, const void *dis, ptrdiff_t dis_stride,
                                    unsigned bpc, VmafAdmTotals *totals)
{
    const AdmRefSide *side = mem;
    if (!b || !b->block || !side || !dis || side->w != b->w || side->h != b->h ||
        side->bpc != bpc || side->simd != (int)b->simd || side->lo_only != opt->skip_scale0)
        return -EINVAL;
    const size_t stride = b->stride;
    int w = (int)b->w, h = (int)b->h;
    VmafAdmTotals t;
    memset(&t, 0, sizeof(t));
    const Dwt0Fn dwt0 = b->simd ? vmaf_adm_dwt_scale0_simd : vmaf_adm_dwt_scale0;
    const Dwt123Fn dwt123 = b->simd ? vmaf_adm_dwt_scale123_simd : vmaf_adm_dwt_scale123;
    dwt0(dis, dis_stride, bpc, w, h, (int16_t *)b->rows, &b->dis16, b->dis32.a, stride,
         opt->skip_scale0);
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    if (!opt->skip_scale0) {
        const VmafAdmBands16 r16 = side_bands16(side);
        rest_scale0(b, opt, &f[0], &r16, side->den[0], w, h, &t);
    }
    for (unsigned s = 1; s < VMAF_ADM_SCALES; s++) {
        dwt123(NULL, &b->dis32, b->rows, w, h, stride, s);
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        const VmafAdmBands32 r32 = side_bands32(side, s, NULL);
        rest_scale123(b, opt, &f[s], &r32, side->den[s], w, h, s, &t);
    }
    *totals = t;
    return 0;
}

void vmaf_adm_scores_from_totals(const VmafAdmOptions *opt,
                                 const VmafAdmScaleFactors f[VMAF_ADM_SCALES], unsigned pic_w,
                                 unsigned pic_h, const VmafAdmTotals *t, VmafAdmScores *out)
{
    const int full_w = (int)pic_w, full_h = (int)pic_h;
    int w = full_w, h = full_h;
    double num = 0.0, den = 0.0, aim_num = 0.0;

    for (unsigned s = 0; s < VMAF_ADM_SCALES; s++) {
        float num_s = 0.0f, den_s = 0.0f, aim_s = 0.0f;
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        if (s == 0) {
            if (opt->skip_scale0) {
                den_s = 1e-10f; /* keeps the scale-0 ratio finite */
            } else {
                den_s = vmaf_adm_den_finish_scale0(t->den[0], w, h, &f[0], opt->noise_weight);
                num_s = vmaf_adm_masked_finish_scale0(t->num[0], w, h, opt->noise_weight);
                if (!opt->skip_aim)
                    aim_s = vmaf_adm_masked_finish_scale0(t->aim[0], w, h, 0.0);
            }
        } else {
            den_s = vmaf_adm_den_finish_scale123(t->den[s], w, h, &f[s], s, opt->noise_weight);
            num_s = vmaf_adm_masked_finish_scale123(t->num[s], w, h, s, opt->noise_weight);
            if (!opt->skip_aim)
                aim_s = vmaf_adm_masked_finish_scale123(t->aim[s], w, h, s, 0.0);
        }
        num += num_s;
        den += den_s;
        aim_num += aim_s;
        out->num_scale[s] = num_s;
        out->den_scale[s] = den_s;
    }

    const double limit = 1e-10 * (full_w * full_h) / (1920.0 * 1080.0);
    num = num < limit ? 0.0 : num;
    den = den < limit ? 0.0 : den;
    if (den == 0.0) {
        /* the reference leaves aim unset here; Twin VMAF writes 0 */
        out->adm2 = 1.0;
        out->aim = 0.0;
    } else {
        out->adm2 = num / den;
        out->aim = aim_num / den;
    }
    out->num = num;
    out->den = den;
    const double adm3 =
        out->adm2 * opt->dlm_weight + (1 - out->aim) * (1 - opt->dlm_weight);
    out->adm3 = adm3 > opt->min_val ? adm3 : opt->min_val; /* a NaN adm3 gives min_val */
}

/* ------------------------------------------------------------------------------------- */
/* Extractor                                                                             */

typedef VmafAdmState AdmState;

#define OPT_AT(field) (offsetof(AdmState, opt) + offsetof(VmafAdmOptions, field))

static const VmafOption adm_options[] = {
    {
        .name = "debug",
        .help = "also write adm, num, den and num/den per scale",
        .offset = OPT_AT(debug),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "adm_csf_scale",
        .alias = "scf",
        .help = "scale of the horizontal and vertical CSF terms (Barten)",
        .offset = OPT_AT(csf_scale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_CSF_SCALE,
        .min = 0.0,
        .max = 50.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_diag_scale",
        .alias = "scfd",
        .help = "scale of the diagonal CSF term (Barten)",
        .offset = OPT_AT(csf_diag_scale),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_CSF_DIAG_SCALE,
        .min = 0.0,
        .max = 50.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_dlm_weight",
        .alias = "dlmw",
        .help = "weight of DLM against AIM in adm3; 1 is DLM only",
        .offset = OPT_AT(dlm_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_DLM_WEIGHT,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_enhn_gain_limit",
        .alias = "egl",
        .help = "largest enhancement gain credited; 1 disables enhancement",
        .offset = OPT_AT(enhn_gain_limit),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_ENHN_GAIN_LIMIT,
        .min = 1.0,
        .max = VMAF_ADM_DEFAULT_ENHN_GAIN_LIMIT,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_norm_view_dist",
        .alias = "nvd",
        .help = "viewing distance over the display's physical height",
        .offset = OPT_AT(norm_view_dist),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_NORM_VIEW_DIST,
        .min = 0.75,
        .max = 24.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_ref_display_height",
        .alias = "rdh",
        .help = "height of the reference display in pixels",
        .offset = OPT_AT(ref_display_height),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = VMAF_ADM_DEFAULT_REF_DISPLAY_HEIGHT,
        .min = 1,
        .max = 4320,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_csf_mode",
        .alias = "csf",
        .help = "contrast sensitivity function: 0 Watson, 1 Barten, 2 blend, 3 blend (MAE)",
        .offset = OPT_AT(csf_mode),
        .type = VMAF_OPT_TYPE_INT,
        .default_val.i = VMAF_ADM_CSF_WATSON97,
        .min = 0,
        .max = 3,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_noise_weight",
        .alias = "nw",
        .help = "weight of the noise floor added to numerator and denominator",
        .offset = OPT_AT(noise_weight),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_NOISE_WEIGHT,
        .min = 0.0,
        .max = 1500.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_skip_aim",
        .help = "do not compute AIM (aim is written as 0)",
        .offset = OPT_AT(skip_aim),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "adm_skip_scale0",
        .alias = "ssz",
        .help = "leave scale 0 out of the scores",
        .offset = OPT_AT(skip_scale0),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    {
        .name = "adm_min_val",
        .alias = "min",
        .help = "smallest adm3 written; lower values are raised to it",
        .offset = OPT_AT(min_val),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = VMAF_ADM_DEFAULT_MIN_VAL,
        .min = 0.0,
        .max = 1.0,
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,
    },
    { 0 },
};

static int adm_init(void *priv, const VmafFeatureGeometry *g)
{
    AdmState *s = priv;
    if (g->bpc < 8 || g->bpc > 16 || !g->w || !g->h || g->w > 32768 || g->h > 32768) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "adm: unsupported picture (%ux%u, %u bits)\n", g->w, g->h, g->bpc);
        return -EINVAL;
    }
    /* the 16-bit data path cannot represent angular frequencies below 1080 lines at 3 H */
    const double view = s->opt.norm_view_dist * s->opt.ref_display_height;
    if (view < VMAF_ADM_DEFAULT_NORM_VIEW_DIST * VMAF_ADM_DEFAULT_REF_DISPLAY_HEIGHT) {
        vmaf_log(g->log_level, VMAF_LOG_LEVEL_ERROR,
                 "adm: adm_norm_view_dist * adm_ref_display_height is %g, must be at least "
                 "%d\n", view, VMAF_ADM_MIN_VIEW_PRODUCT);
        return -EINVAL;
    }
    s->w = g->w;
    s->h = g->h;
    s->bpc = g->bpc;
    vmaf_adm_scale_factors(&s->opt, s->factors);
    return vmaf_adm_buffers_alloc_compact(&s->buf, g->w, g->h);
}

static void adm_close(void *priv)
{
    AdmState *s = priv;
    vmaf_adm_buffers_free(&s->buf);
}

static int luma_matches(const AdmState *s, const VmafPicture *p)
{
    return p && p->data[0] && p->w[0] == s->w && p->h[0] == s->h && p->bpc == s->bpc;
}

static const char *const debug_names[2 * VMAF_ADM_SCALES] = {
    "integer_adm_num_scale0", "integer_adm_den_scale0", "integer_adm_num_scale1",
    "integer_adm_den_scale1", "integer_adm_num_scale2", "integer_adm_den_scale2",
    "integer_adm_num_scale3", "integer_adm_den_scale3",
};

static const char *const scale_names[VMAF_ADM_SCALES] = {
    "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3",
};

/*
 * A reference scored by several contexts (a ladder's rungs, picture.h): its side (adm.h) is
 * computed once, as a side product of the picture, by the first instance that needs it
 * (with its own buffers), and every instance computes the rest from it: the same totals as
 * the fused pipeline, bit for bit. The key holds what changes the side: the stages (plain or
 * hand-written) and skip_scale0 (mirrored scale-0 taps); the geometry and bit depth are the
 * picture's. A picture of one context never gets here (the side costs memory and a write
 * and read of the bands), and pictures the split does not apply to (vmaf_adm_ref_side_applies)
 * are scored fused. The side is about 4.2 bytes per pixel (8.7 MB at 1080p).
 */
typedef struct AdmSideArgs {
    AdmState *s;
    const VmafPicture *ref;
} AdmSideArgs;

static int adm_side_compute(void *data, size_t size, void *arg)
{
    const AdmSideArgs *a = arg;
    return vmaf_adm_ref_side_compute(&a->s->buf, a->s->opt.skip_scale0, data, size,
                                     a->ref->data[0], a->ref->stride[0], a->s->bpc);
}

/* The totals from the reference's side: 0, or an error (nothing written: score fused). */
static int adm_from_side(AdmState *s, const VmafPicture *ref, const VmafPicture *dis,
                         bool nowait, VmafAdmTotals *t)
{
    if (!vmaf_picture_side_shared(ref) || !vmaf_adm_ref_side_applies(s->w, s->h))
        return -ENOENT;
    char key[32];
    snprintf(key, sizeof(key), "adm/%d/%d", (int)s->buf.simd, (int)s->opt.skip_scale0);
    AdmSideArgs args = { s, ref };
    const void *side;
    int err = vmaf_picture_side_acquire(ref, key, vmaf_adm_ref_side_size(s->w, s->h),
                                        adm_side_compute, &args, nowait, &side);
    if (err)
        return err;
    err = vmaf_adm_score_totals_from_side(&s->buf, &s->opt, s->factors, side, dis->data[0],
                                          dis->stride[0], s->bpc, t);
    vmaf_picture_side_put(ref, side);
    return err;
}

static int adm_extract(void *priv, const VmafFeatureFrame *frame, VmafFeatureSink *sink)
{
    AdmState *s = priv;
    if (!s->buf.block || !luma_matches(s, frame->ref) || !luma_matches(s, frame->dist))
        return -EINVAL;

    VmafAdmScores sc;
    VmafAdmTotals t;
    const int side_err = adm_from_side(s, frame->ref, frame->dist, frame->side_nowait, &t);
    if (!side_err) {
        vmaf_adm_scores_from_totals(&s->opt, s->factors, s->w, s->h, &t, &sc);
        return vmaf_adm_store(s, &sc, frame->index, sink);
    }
    if (side_err == -EAGAIN)
        return side_err;
    vmaf_adm_score(&s->buf, &s->opt, s->factors, frame->ref->data[0], frame->ref->stride[0],
                   frame->dist->data[0], frame->dist->stride[0], s->bpc, &sc);
    return vmaf_adm_store(s, &sc, frame->index, sink);
}

int vmaf_adm_store(const VmafAdmState *s, const VmafAdmScores *scores, unsigned index,
                   VmafFeatureSink *sink)
{
    const VmafAdmScores sc = *scores;
    const unsigned idx = index;
    int err = vmaf_feature_sink_append(sink, "VMAF_integer_feature_adm2_score", sc.adm2, idx);
    if (!err)
        err = vmaf_feature_sink_append(sink, "VMAF_integer_feature_aim_score", sc.aim, idx);
    if (!err)
        err = vmaf_feature_sink_append(sink, "VMAF_integer_feature_adm3_score", sc.adm3, idx);
    for (unsigned k = 0; !err && k < VMAF_ADM_SCALES; k++)
        err = vmaf_feature_sink_append(sink, scale_names[k],
                                       sc.num_scale[k] / sc.den_scale[k], idx);
    if (err || !s->opt.debug)
        return err;

    err = vmaf_feature_sink_append(sink, "integer_adm", sc.adm2, idx);
    if (!err)
        err = vmaf_feature_sink_append(sink, "integer_adm_num", sc.num, idx);
    if (!err)
        err = vmaf_feature_sink_append(sink, "integer_adm_den", sc.den, idx);
    for (unsigned k = 0; !err && k < VMAF_ADM_SCALES; k++) {
        err = vmaf_feature_sink_append(sink, debug_names[2 * k], sc.num_scale[k], idx);
        if (!err)
            err = vmaf_feature_sink_append(sink, debug_names[2 * k + 1], sc.den_scale[k], idx);
    }
    return err;
}

static const char *const adm_features[] = {
    "VMAF_integer_feature_adm2_score",
    "VMAF_integer_feature_aim_score",
    "VMAF_integer_feature_adm3_score",
    "integer_adm_scale0",
    "integer_adm_scale1",
    "integer_adm_scale2",
    "integer_adm_scale3",
    "integer_adm",
    "integer_adm_num",
    "integer_adm_den",
    "integer_adm_num_scale0",
    "integer_adm_den_scale0",
    "integer_adm_num_scale1",
    "integer_adm_den_scale1",
    "integer_adm_num_scale2",
    "integer_adm_den_scale2",
    "integer_adm_num_scale3",
    "integer_adm_den_scale3",
    NULL,
};

const VmafFeatureExtractor vmaf_fex_adm = {
    .name = "adm",
    .priv_size = sizeof(AdmState),
    .options = adm_options,
    .provided_features = adm_features,
    .flags = VMAF_FEATURE_EXTRACTOR_LUMA_ONLY,
    .init = adm_init,
    .extract = adm_extract,
    .close = adm_close,
};

int vmaf_adm_layout_compact(unsigned w, unsigned h, VmafAdmLayout *l)
{
    int err = vmaf_adm_layout(w, h, l);
    if (!err && w >= COMPACT_MIN_SIZE && h >= COMPACT_MIN_SIZE)
        compact_layout(h, l);
    return err;
}
