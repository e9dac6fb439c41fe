/*
 * Every registered instance that has a CUDA twin runs on the device, however many there are:
 * a context with two models (vmaf_v0.6.1 and vmaf_v0.6.1neg: VIF, ADM and motion twice, with
 * different options), all 18 extractors that have a twin, and more VIF and ADM instances with
 * other enhancement gain limits (over 32 instances: more than any fixed array or bit mask of
 * twins would hold). Checked against the mock driver (tests/mock_cuda.c, as libcuda.so.1
 * through LD_LIBRARY_PATH): after the first picture every instance is on the device
 * (VmafFeatureInstance.on_gpu, which only the backend sets), pictures in device memory (which
 * no CPU extractor can read) are accepted, and the run flushes; also with host pictures,
 * subsampling (two recorded sets of twins per slot) and direct launches. A context whose
 * twins are disabled (gpumask) refuses device pictures. Everything obtained from the driver
 * is given back. The kernels do nothing here: what is checked is where each instance runs,
 * not the scores.
 * Usage: test_twin_cap MOCK_LIBRARY (built only with the CUDA backend)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvmaf/feature.h"
#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/model.h"

#include "context.h"
#include "feature_instance.h"
#include "mock_cuda.h"
#include "mock_cuda_run.h"
#include "test_util.h"

enum { FRAMES = 5 };

/* every extractor that has a twin (src/feature/cuda/twins.c) */
static const char *const with_twin[] = {
    "psnr", "motion", "motion_v2", "psnr_hvs", "vif", "adm", "speed_chroma", "speed_temporal",
    "float_psnr", "float_ansnr", "float_moment", "float_motion", "float_vif", "float_adm",
    "float_ssim", "float_ms_ssim", "cambi", "ciede",
};
enum { N_WITH_TWIN = sizeof(with_twin) / sizeof(with_twin[0]) };

/* further instances of one extractor: another option value each */
static const struct {
    const char *extractor, *option;
} extra[] = {
    { "vif", "vif_enhn_gain_limit" },
    { "adm", "adm_enhn_gain_limit" },
    { "float_vif", "vif_enhn_gain_limit" },
    { "float_adm", "adm_enhn_gain_limit" },
};
static const char *const gain_limits[] = { "1.5", "2", "3", "4" };

static MockCuda mock;

typedef struct Case {
    const char *name;
    bool device_pictures, direct;
    unsigned n_subsample;
    uint64_t gpumask;
} Case;

static int use_models(VmafContext *v, VmafModel **m)
{
    VmafModelConfig cfg0 = { .name = "vmaf" }, cfg1 = { .name = "vmaf_neg" };
    int err = vmaf_model_load(&m[0], &cfg0, "vmaf_v0.6.1");
    if (!err) err = vmaf_use_features_from_model(v, m[0]);
    if (!err) err = vmaf_model_load(&m[1], &cfg1, "vmaf_v0.6.1neg");
    if (!err) err = vmaf_use_features_from_model(v, m[1]);
    return err;
}

static int use_extractors(VmafContext *v)
{
    int err = 0;
    for (unsigned i = 0; !err && i < N_WITH_TWIN; i++) err = vmaf_use_feature(v, with_twin[i], NULL);
    for (unsigned e = 0; !err && e < sizeof(extra) / sizeof(extra[0]); e++) {
        for (unsigned k = 0; !err && k < sizeof(gain_limits) / sizeof(gain_limits[0]); k++) {
            VmafFeatureDictionary *opts = NULL;
            err = vmaf_feature_dictionary_set(&opts, extra[e].option, gain_limits[k]);
            if (!err) err = vmaf_use_feature(v, extra[e].extractor, opts);
        }
    }
    return err;
}

/* A picture pair: from the device pool (contents left as allocated) or host pictures. */
static int pictures(VmafContext *v, const Case *c, VmafPicture *ref, VmafPicture *dis,
                    unsigned k)
{
    int err = mock_cuda_picture(v, c->device_pictures, ref, 2 * k);
    if (err) return err;
    err = mock_cuda_picture(v, c->device_pictures, dis, 2 * k + 1);
    if (err) vmaf_picture_unref(ref);
    return err;
}

/* vmaf_read_pictures with what it logs (stderr) caught in said. */
static int read_logged(VmafContext *v, VmafPicture *ref, VmafPicture *dis, unsigned k,
                       char *said, size_t size)
{
    said[0] = 0;
    fflush(stderr);
    FILE *log = tmpfile();
    const int saved = dup(2);
    if (!log || saved < 0 || dup2(fileno(log), 2) < 0) {
        CHECK(0, "cannot catch stderr");
        if (log) fclose(log);
        if (saved >= 0) close(saved);
        return read_pictures_or_release(v, ref, dis, k);
    }
    const int err = read_pictures_or_release(v, ref, dis, k);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(log);
    const size_t n = fread(said, 1, size - 1, log);
    said[n] = 0;
    fclose(log);
    return err;
}

static void run(VmafCudaState *s, const Case *c)
{
    mock_cuda_direct(c->direct);
    VmafContext *v = NULL;
    VmafModel *m[2] = { NULL, NULL };
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR,
                                    .n_subsample = c->n_subsample, .gpumask = c->gpumask };
    int err = mock_cuda_context(&v, s, cfg, c->device_pictures);
    CHECK(!err, "%s: context (init, import, device pool) %d", c->name, err);
    if (err) return;
    err = use_models(v, m);
    CHECK(!err, "%s: models %d", c->name, err);
    if (!err) err = use_extractors(v);
    CHECK(!err, "%s: extractors %d", c->name, err);
    const unsigned registered = v->inst_cnt;
    CHECK(registered > 32, "%s: only %u instances registered", c->name, registered);

    for (unsigned k = 0; !err && k < FRAMES; k++) {
        VmafPicture ref, dis;
        err = pictures(v, c, &ref, &dis, k);
        CHECK(!err, "%s: pictures %u: %d", c->name, k, err);
        if (err) break;
        if (c->gpumask) {
            /* the twins are off: device pictures are refused, with that reason (not that
             * some extractor has no twin) */
            char said[512];
            err = read_logged(v, &ref, &dis, k, said, sizeof(said));
            CHECK(err == -ENOTSUP, "%s: device pictures with the twins off: %d", c->name, err);
            CHECK(strstr(said, "gpumask") && !strstr(said, "no CUDA twin"),
                  "%s: the refusal says \"%s\"", c->name, said);
            printf("twin_cap %s: refused: %s", c->name, said);
            err = -ENOTSUP;
            break;
        }
        err = read_pictures_or_release(v, &ref, &dis, k);
        CHECK(!err, "%s: frame %u: %d", c->name, k, err);
        if (k) continue;
        unsigned on_device = 0;
        for (unsigned i = 0; i < v->inst_cnt; i++) {
            on_device += v->inst[i]->on_gpu;
            CHECK(v->inst[i]->on_gpu, "%s: instance %u of %u (%s) runs on the CPU", c->name, i,
                  v->inst_cnt, v->inst[i]->fex->name);
        }
        printf("twin_cap %s: %u of %u instances on the device\n", c->name, on_device,
               v->inst_cnt);
    }
    if (!err) {
        err = vmaf_read_pictures(v, NULL, NULL, 0);
        CHECK(!err, "%s: flush %d", c->name, err);
    }
    if (!err) {
        double score = 0;
        err = vmaf_score_pooled(v, m[1], VMAF_POOL_METHOD_MEAN, &score, 0, FRAMES - 1);
        CHECK(!err, "%s: the second model's score %d", c->name, err);
    }
    vmaf_close(v);
    vmaf_model_destroy(m[0]);
    vmaf_model_destroy(m[1]);
}

static void run_cases(VmafCudaState *s)
{
    static const Case cases[] = {
        { "device pictures, graphs", true, false, 1, 0 },
        { "device pictures, direct", true, true, 1, 0 },
        { "host pictures, subsample 2, graphs", false, false, 2, 0 },
        { "host pictures, subsample 3, direct", false, true, 3, 0 },
        { "device pictures, gpumask", true, false, 1, 1 },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) run(s, &cases[i]);
}

int main(int argc, char **argv)
{
    return mock_cuda_main(argc, argv, "twin_cap", &mock, run_cases);
}
