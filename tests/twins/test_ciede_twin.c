/*
 * Twin VMAF — the ciede twin's computation run on the host in its kernels' order, against the
 * CPU extractor through the API, bit for bit.
 *
 * vmaf_ciede_diff: grid (ceil(w / CIEDE_CUDA_THREADS), h) of CIEDE_CUDA_THREADS threads, thread
 * (bx, x) of row y writes vmaf_ciede_pixel(y, bx * CIEDE_CUDA_THREADS + x); vmaf_ciede_sum:
 * the floats' row-major double sum from 0 (one block, seq_sum_device.h, which gives the serial
 * loop's bits; tests/twins/test_seq_sum.c checks that order against the loop, so the loop stands in
 * for it here); the score is
 * vmaf_ciede_score(sum, w h) (vmaf_ciede_store). Inputs: random frames (all formats, 8..16
 * bits, odd and tiny sizes, distorted = reference + noise with equal pixels among them, and
 * independent ones) and the real clips (argv[1], the clips directory; skipped without it).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/ciede_device.h"
#include "feature/twins/kernel_args.h"
#include "libvmaf/libvmaf.h"

#include "test_twin_run.h"
#include "test_util.h"

static const char *clips_dir;

/* The twin's score of one frame, in its kernels' order. */
static double twin_score(const VmafPicture *ref, const VmafPicture *dis, float *diff)
{
    const unsigned w = ref->w[0], h = ref->h[0], bpc = ref->bpc;
    const VmafCiedePlanes r = vmaf_ciede_planes_of(ref), d = vmaf_ciede_planes_of(dis);
    const unsigned layout = vmaf_ciede_layout(ref->pix_fmt);
    const unsigned blocks = (w + CIEDE_CUDA_THREADS - 1) / CIEDE_CUDA_THREADS;
    for (unsigned by = 0; by < h; by++)
        for (unsigned bx = 0; bx < blocks; bx++)
            for (unsigned x = 0; x < CIEDE_CUDA_THREADS; x++) {
                const unsigned j = bx * CIEDE_CUDA_THREADS + x;
                if (j >= w) continue;
                diff[(size_t)by * w + j] = vmaf_ciede_pixel(&r, &d, bpc, layout, by, j);
            }
    double sum = 0.;
    for (size_t k = 0; k < (size_t)w * h; k++) sum += diff[k];
    return vmaf_ciede_score(sum, (double)(w * h));
}

static void put(VmafPicture *pic, unsigned p, unsigned i, unsigned j, unsigned v)
{
    uint8_t *row = (uint8_t *)pic->data[p] + (size_t)i * pic->stride[p];
    if (pic->bpc > 8)
        ((uint16_t *)row)[j] = (uint16_t)v;
    else
        row[j] = (uint8_t)v;
}

static unsigned get(const VmafPicture *pic, unsigned p, unsigned i, unsigned j)
{
    const uint8_t *row = (const uint8_t *)pic->data[p] + (size_t)i * pic->stride[p];
    return pic->bpc > 8 ? ((const uint16_t *)row)[j] : row[j];
}

/* kind 0: independent random samples; 1: dist = ref + noise of +-3 on half the samples */
static void fill_random(VmafPicture *r, VmafPicture *d, int kind)
{
    const unsigned max = (1u << r->bpc) - 1;
    for (unsigned p = 0; p < 3; p++)
        for (unsigned i = 0; i < r->h[p]; i++)
            for (unsigned j = 0; j < r->w[p]; j++) {
                const unsigned a = rng() & max;
                put(r, p, i, j, a);
                unsigned b = rng() & max;
                if (kind == 1) {
                    const int n = (rng() & 1) ? (int)(rng() % 7) - 3 : 0;
                    const int v = (int)a + n;
                    b = v < 0 ? 0 : v > (int)max ? max : (unsigned)v;
                }
                put(d, p, i, j, b);
            }
}

static int read_clip(VmafPicture *pic, const char *name, bool dis, unsigned k)
{
    return test_read_clip(clips_dir, pic, name, dis, k);
}

/* `frames` frames through the CPU extractor and the twin's order; returns 0 or an error. */
static int run_case(enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h, int kind,
                    const char *clip, unsigned frames)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    if (vmaf_init(&v, cfg)) return -1;
    int err = vmaf_use_feature(v, "ciede", NULL);
    float *diff = malloc((size_t)w * h * sizeof(float));
    double twin[8];
    if (!diff) err = -ENOMEM;
    for (unsigned f = 0; !err && f < frames; f++) {
        VmafPicture r, d;
        if (vmaf_picture_alloc(&r, fmt, bpc, w, h)) {
            err = -ENOMEM;
            break;
        }
        if (vmaf_picture_alloc(&d, fmt, bpc, w, h)) {
            vmaf_picture_unref(&r);
            err = -ENOMEM;
            break;
        }
        if (clip)
            err = read_clip(&r, clip, false, f) || read_clip(&d, clip, true, f) ? -EIO : 0;
        else
            fill_random(&r, &d, kind);
        if (!err && !clip && f == 1) /* an identical frame: +inf on both sides */
            for (unsigned p = 0; p < 3; p++)
                for (unsigned i = 0; i < r.h[p]; i++)
                    for (unsigned j = 0; j < r.w[p]; j++) put(&d, p, i, j, get(&r, p, i, j));
        if (!err) twin[f] = twin_score(&r, &d, diff);
        if (err) {
            vmaf_picture_unref(&r);
            vmaf_picture_unref(&d);
            break;
        }
        err = read_pictures_or_release(v, &r, &d, f);
    }
    if (!err) err = vmaf_read_pictures(v, NULL, NULL, 0);
    for (unsigned f = 0; !err && f < frames; f++) {
        double cpu;
        err = vmaf_feature_score_at_index(v, "ciede2000", &cpu, f);
        if (!err)
            CHECK(!memcmp(&cpu, &twin[f], sizeof cpu),
                  "%s %ux%u %u-bit fmt %d frame %u: cpu %.17g twin %.17g",
                  clip ? clip : "random", w, h, bpc, (int)fmt, f, cpu, twin[f]);
    }
    free(diff);
    vmaf_close(v);
    return err;
}

int main(int argc, char **argv)
{
    clips_dir = argc > 1 ? argv[1] : NULL;
    rng_state = 0x2545F4914F6CDD1Dull;
    static const unsigned sizes[][2] = { { 1, 1 }, { 2, 1 }, { 3, 3 }, { 64, 1 }, { 33, 19 },
                                         { 130, 17 }, { 257, 5 } };
    static const unsigned depths[] = { 8, 10, 12, 16 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P };
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (unsigned d = 0; d < 4; d++)
            for (unsigned f = 0; f < 3; f++)
                for (int kind = 0; kind < 2; kind++)
                    CHECK(!run_case(fmts[f], depths[d], sizes[s][0], sizes[s][1], kind, NULL, 3),
                          "random case %ux%u %u-bit", sizes[s][0], sizes[s][1], depths[d]);
    if (clips_dir) {
        static const struct {
            unsigned w, h, bpc, frames;
            enum VmafPixelFormat fmt;
            const char *name;
        } clips[] = {
            { 576, 324, 8, 3, VMAF_PIX_FMT_YUV420P, "boats_576x324_420p" },
            { 352, 288, 8, 3, VMAF_PIX_FMT_YUV444P, "cups_352x288_444p" },
            { 320, 180, 16, 3, VMAF_PIX_FMT_YUV420P, "deep_320x180_420p16" },
            { 576, 324, 10, 3, VMAF_PIX_FMT_YUV420P, "forest_576x324_420p10" },
            { 1920, 1080, 8, 1, VMAF_PIX_FMT_YUV420P, "jetty_1920x1080_420p" },
        };
        for (unsigned i = 0; i < sizeof(clips) / sizeof(clips[0]); i++)
            CHECK(!run_case(clips[i].fmt, clips[i].bpc, clips[i].w, clips[i].h, 0, clips[i].name,
                            clips[i].frames),
                  "clip %s", clips[i].name);
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
