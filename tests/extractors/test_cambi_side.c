/*
 * Unit test of cambi's reference side with full_ref (src/feature/cambi.c: the reference's
 * score at the source size, made once for the contexts that score one reference).
 *
 * Through the API: ladders of rungs scoring "cambi" with full_ref against single contexts of
 * the same pairs, every output byte for byte (tests/extractors/side_ladder.h), at 8, 10, 12
 * and 16 bits, odd sizes, n_threads 0, 1 and 2, pictures of several patterns per frame:
 *   - rungs alike, one with another cambi_max_val (not in the key: the same product), one
 *     with another tvi_threshold (another product): two products per reference picture;
 *   - rungs of different encoding sizes (enc_width, enc_height) and one with
 *     cambi_high_res_speedup: the outputs equal the single runs' however they share;
 *   - rungs without full_ref: no product.
 *
 * Exit status 0 when every check passes; the case is printed on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "side_ladder.h"

static VmafFeatureDictionary *alike(int k)
{
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "full_ref", "true");
    if (k == 2)
        vmaf_feature_dictionary_set(&d, "cambi_max_val", "3");
    if (k == 3)
        vmaf_feature_dictionary_set(&d, "tvi_threshold", "0.05");
    return d;
}

static unsigned enc_w, enc_h;

static VmafFeatureDictionary *sizes(int k)
{
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "full_ref", "true");
    char v[16];
    if (k == 1 || k == 2) {
        snprintf(v, sizeof(v), "%u", enc_w);
        vmaf_feature_dictionary_set(&d, "enc_width", v);
        snprintf(v, sizeof(v), "%u", enc_h);
        vmaf_feature_dictionary_set(&d, "enc_height", v);
    }
    if (k == 3)
        vmaf_feature_dictionary_set(&d, "cambi_high_res_speedup", "1");
    return d;
}

static VmafFeatureDictionary *plain(int k)
{
    (void)k;
    return NULL;
}

int main(void)
{
    static const unsigned cases[][3] = {
        { 217, 121, 8 }, { 240, 135, 10 }, { 301, 217, 12 }, { 216, 63, 16 }, { 255, 255, 10 },
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
        for (unsigned threads = 0; threads <= 2; threads++)
            side_ladder_case("cambi", alike, cases[c][0], cases[c][1], cases[c][2], threads, 2);
    enc_w = 400;
    enc_h = 230;
    for (unsigned threads = 0; threads <= 2; threads++) {
        side_ladder_case("cambi", sizes, 441, 251, 8, threads, -1);
        side_ladder_case("cambi", sizes, 441, 251, 10, threads, -1);
    }
    side_ladder_case("cambi", plain, 217, 121, 8, 1, 0);
    printf("cambi_side: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
