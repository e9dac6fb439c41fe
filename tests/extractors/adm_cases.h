/*
 * What the integer ADM tests that compare two ways of computing the totals share
 * (test_adm_compact.c: compact against full buffers; test_adm_side.c: from the reference's
 * side against fused): pictures at strides with a little padding, the contents and
 * distortions, the option sets, and the walk over sizes, bit depths, stages, contents and
 * options that each test runs its own comparison on. Include after test_util.h.
 */
#ifndef VMAF_TESTS_ADM_CASES_H
#define VMAF_TESTS_ADM_CASES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm.h"

#include "adm_options.h"

typedef struct AdmPic {
    unsigned w, h, bpc;
    size_t stride; /* bytes: the samples and 0 to 4 more (drawn) */
    void *data;
} AdmPic;

static void adm_pic_alloc(AdmPic *p, unsigned w, unsigned h, unsigned bpc)
{
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->stride = (size_t)w * (bpc > 8 ? 2 : 1) + (rng() % 5) * 2;
    p->data = malloc(p->stride * h + 64);
    if (!p->data) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
}

static void adm_put(AdmPic *p, unsigned x, unsigned y, unsigned v)
{
    const unsigned max = (1u << p->bpc) - 1;
    if (v > max) v = max;
    if (p->bpc > 8) {
        const uint16_t s = (uint16_t)v;
        memcpy((char *)p->data + y * p->stride + 2 * x, &s, 2);
    } else {
        ((uint8_t *)p->data + y * p->stride)[x] = (uint8_t)v;
    }
}

static unsigned adm_get(const AdmPic *p, unsigned x, unsigned y)
{
    if (p->bpc > 8) {
        uint16_t s;
        memcpy(&s, (const char *)p->data + y * p->stride + 2 * x, 2);
        return s;
    }
    return ((const uint8_t *)p->data + y * p->stride)[x];
}

/* Reference contents (kind): noise, a smooth pattern with edges, extremes, bands; each
 * moves with the frame. */
static void adm_make_ref(AdmPic *ref, int kind, int frame)
{
    const unsigned max = (1u << ref->bpc) - 1;
    for (unsigned y = 0; y < ref->h; y++)
        for (unsigned x = 0; x < ref->w; x++) {
            unsigned r;
            switch (kind) {
            case 0: r = rng() % (max + 1); break;
            case 1: r = ((x + 3 * (unsigned)frame) * 7 + y * 3) % (max + 1); break;
            case 2: r = ((x / 5 + y / 3 + (unsigned)frame) & 1) ? max : 0; break;
            default: {
                const unsigned band = (x * 13 + y * 5 + (unsigned)frame * 11) % 97;
                r = (band * max / 96 + (x > ref->w / 2 ? max / 4 : 0)) % (max + 1);
            }
            }
            adm_put(ref, x, y, r);
        }
}

/* Distortions of ref (kind % 4): noise, quantisation, identical, a blur. */
static void adm_make_dis(const AdmPic *ref, AdmPic *dis, int kind)
{
    const unsigned max = (1u << ref->bpc) - 1;
    for (unsigned y = 0; y < ref->h; y++)
        for (unsigned x = 0; x < ref->w; x++) {
            const unsigned r = adm_get(ref, x, y);
            unsigned d;
            switch (kind % 4) {
            case 0: d = r + rng() % (max / 8 + 1); break;
            case 1: d = r / (max / 16 + 1) * (max / 16 + 1); break;
            case 2: d = r; break;
            default: d = (r + adm_get(ref, x ? x - 1 : x, y) + 1) / 2; break;
            }
            adm_put(dis, x, y, d);
        }
}

enum { ADM_OPTION_SETS = 5 };

/* Option set k: the defaults, a gain limit of 1, skip_aim, skip_scale0, Barten's CSF. */
static VmafAdmOptions adm_option_set(int k)
{
    VmafAdmOptions o = adm_default_options();
    if (k == 1) o.enhn_gain_limit = 1.0;
    if (k == 2) o.skip_aim = true;
    if (k == 3) o.skip_scale0 = true;
    if (k == 4) o.csf_mode = VMAF_ADM_CSF_BARTEN;
    return o;
}

typedef struct AdmCase {
    unsigned w, h, bpc;
    int kind;   /* adm_make_ref's content */
    int opt;    /* adm_option_set's set */
    bool simd;  /* the hand-written stages (where this CPU has them) */
    bool drawn; /* a size drawn at random, not one of the list */
} AdmCase;

/*
 * run() on: every size of the list with the plain and the hand-written stages at 8, 10, ..,
 * 16 bits, the content and option set turning with them; n_drawn sizes of 64 + [0, draw_w)
 * by 64 + [0, draw_h) at 8 or 10 bits; then 1920x1080.
 */
static void adm_each_case(const unsigned (*sizes)[2], size_t n_sizes, unsigned n_drawn,
                          unsigned draw_w, unsigned draw_h, void (*run)(const AdmCase *))
{
    for (size_t i = 0; i < n_sizes; i++)
        for (int simd = 0; simd < 2; simd++)
            for (unsigned bpc = 8; bpc <= 16; bpc += 2) {
                const AdmCase c = { sizes[i][0], sizes[i][1], bpc,
                                    (int)((i + bpc + (unsigned)simd) % 4),
                                    (int)((i + bpc / 2 + (unsigned)simd) % ADM_OPTION_SETS),
                                    simd != 0, false };
                run(&c);
            }
    for (unsigned k = 0; k < n_drawn; k++) {
        const unsigned w = 64 + rng() % draw_w, h = 64 + rng() % draw_h;
        const AdmCase c = { w, h, k % 3 ? 8 : 10, (int)(k % 4), (int)(k % ADM_OPTION_SETS),
                            k % 2 != 0, true };
        run(&c);
    }
    const AdmCase hd = { 1920, 1080, 8, 3, 0, true, false };
    run(&hd);
}

#endif /* VMAF_TESTS_ADM_CASES_H */
