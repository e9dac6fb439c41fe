/*
 * How fp32 division and sqrt are made exact on an OpenCL device (opencl/division.h), and what
 * the backend does where they cannot be: the rule for every combination of the device's
 * correctly rounded divide/sqrt, fp64 and fp32 denormals, with its build options; then, on a
 * PoCL device, float_ssim scored twice on one picture pair: with the state as it is (the twin
 * runs on the device: the control) and with the state's division forced to "not exact",
 * where every extractor must run on the CPU, one warning line must say so, and the score
 * must be the same bits.
 *   test_opencl_division [PLATFORM_SUBSTRING]
 */
#include <stdlib.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_opencl.h"

#include "context.h"
#include "gpu/twin.h"
#include "opencl/state.h"

#include "cl_device.h"
#include "test_util.h"

static void check_rule(void)
{
    for (int bits = 0; bits < 16; bits++) {
        VmafOpenCLDeviceInfo info = { 0 };
        info.correctly_rounded_divide_sqrt = bits & 1;
        info.fp64 = bits >> 1 & 1;
        info.fp32_denormals = bits >> 2 & 1;
        const int use_fp64 = info.fp64 && !(bits & 8); /* bit 3: VMAF_OPENCL_FP64=0 */
        const enum VmafOpenCLDivision want =
            bits & 1                        ? VMAF_OPENCL_DIVISION_DEVICE
            : use_fp64 && info.fp32_denormals ? VMAF_OPENCL_DIVISION_VIA_DOUBLE
                                              : VMAF_OPENCL_DIVISION_VIA_SOFT_F64;
        const enum VmafOpenCLDivision got = vmaf_opencl_division(&info, use_fp64);
        CHECK(got == want,
              "correctly rounded %d, fp64 %d (used %d), denormals %d: division %d, want %d",
              bits & 1, bits >> 1 & 1, use_fp64, bits >> 2 & 1, got, want);
    }
    CHECK(!strcmp(vmaf_opencl_division_options(VMAF_OPENCL_DIVISION_DEVICE),
                  "-cl-fp32-correctly-rounded-divide-sqrt"), "device options");
    CHECK(!strcmp(vmaf_opencl_division_options(VMAF_OPENCL_DIVISION_VIA_DOUBLE),
                  "-D VMAF_OPENCL_DIV_VIA_DOUBLE=1"), "via double options");
    CHECK(!strcmp(vmaf_opencl_division_options(VMAF_OPENCL_DIVISION_VIA_SOFT_F64),
                  "-D VMAF_OPENCL_DIV_VIA_SOFT_F64=1"), "via software double options");
    /* the environment's switch, read where the state is made */
    VmafOpenCLDeviceInfo with = { .fp64 = 1 }, without = { .fp64 = 0 };
    setenv("VMAF_OPENCL_FP64", "0", 1);
    CHECK(!vmaf_opencl_uses_fp64(&with), "VMAF_OPENCL_FP64=0 leaves fp64 on");
    setenv("VMAF_OPENCL_FP64", "1", 1);
    CHECK(vmaf_opencl_uses_fp64(&with), "VMAF_OPENCL_FP64=1 turns fp64 off");
    CHECK(!vmaf_opencl_uses_fp64(&without), "fp64 used on a device without it");
    unsetenv("VMAF_OPENCL_FP64");
    CHECK(vmaf_opencl_uses_fp64(&with), "fp64 off without VMAF_OPENCL_FP64");
}

static int fill(VmafPicture *pic, unsigned seed)
{
    int err = vmaf_picture_alloc(pic, VMAF_PIX_FMT_YUV420P, 8, 176, 144);
    if (err) return err;
    rng_state = seed;
    for (int p = 0; p < 3; p++) {
        uint8_t *row = pic->data[p];
        for (unsigned y = 0; y < pic->h[p]; y++, row += pic->stride[p])
            for (unsigned x = 0; x < pic->w[p]; x++)
                row[x] = (uint8_t)(x * 3 + y * 5 + rng() % 32);
    }
    return 0;
}

/* feature of extractor of one pair on device dev, with the state as it is (soft 0) or built as for a
 * device with neither correctly rounded division nor fp64 (soft 1: fp32 division and sqrt
 * through the software double, every double in software); on_device: whether some
 * extractor ran there. stderr goes to log_path meanwhile. */
static int score(int dev, const char *extractor, const char *feature, int soft, const char *log_path, double *value,
                 int *on_device)
{
    VmafOpenCLState *s = NULL;
    int err = vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = dev });
    if (err) return err;
    if (soft) {
        s->fp64 = 0;
        s->division = VMAF_OPENCL_DIVISION_VIA_SOFT_F64;
        snprintf(s->build_options, sizeof(s->build_options), "%s %s",
                 vmaf_opencl_division_options(s->division), VMAF_OPENCL_SOFT_F64_OPTIONS);
    }
    VmafContext *v = NULL;
    err = vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_WARNING });
    if (!err) err = vmaf_use_feature(v, extractor, NULL);
    if (!err) err = vmaf_opencl_import_state(v, s);
    vmaf_opencl_state_free(s);
    VmafPicture ref, dist;
    if (!err) err = fill(&ref, 1);
    if (!err) err = fill(&dist, 2);
    fflush(stderr);
    const int saved = dup(2);
    FILE *log = fopen(log_path, "w");
    if (log) dup2(fileno(log), 2);
    if (!err) err = read_pictures_or_release(v, &ref, &dist, 0);
    if (!err) err = vmaf_read_pictures(v, NULL, NULL, 0);
    fflush(stderr);
    if (log) {
        dup2(saved, 2);
        fclose(log);
    }
    close(saved);
    *on_device = 0;
    for (unsigned i = 0; !err && i < v->inst_cnt; i++) *on_device |= v->inst[i]->on_gpu;
    if (!err) err = vmaf_feature_score_at_index(v, feature, value, 0);
    if (v) vmaf_close(v);
    return err;
}

/* The library's lines in a file (a compiler's own chatter aside: PoCL prints "N warnings
 * generated." when it builds), and whether one holds `needle`. */
static int lines_of(const char *path, const char *needle, int *found)
{
    FILE *f = fopen(path, "r");
    int n = 0;
    char line[1024];
    *found = 0;
    if (!f) return 0;
    while (fgets(line, sizeof(line), f)) {
        if (!strstr(line, "libvmaf")) continue;
        n++;
        if (strstr(line, needle)) *found = 1;
        printf("  stderr: %s", line);
    }
    fclose(f);
    return n;
}

/* A feature of extractor scored as the state is and as built for a device with neither correctly rounded
 * division nor fp64: the same bits; on the device in the second run iff converted (an
 * fp64-free program), else on the CPU with one warning line naming it. */
static void compare(int dev, const VmafOpenCLDeviceInfo *info, const char *extractor,
                    const char *feature, int converted, const char *log_path)
{
    double control = 0, soft = 0;
    int control_on = 0, soft_on = 0, warned = 0;
    int err = score(dev, extractor, feature, 0, log_path, &control, &control_on);
    CHECK(!err, "%s control: %d", feature, err);
    printf("%s as it is: %.17g, on the device %d\n", feature, control, control_on);
    CHECK(control_on == info->int64_atomics, "%s: the control ran on the device: %d", feature,
          control_on);
    err = score(dev, extractor, feature, 1, log_path, &soft, &soft_on);
    CHECK(!err, "%s in software double: %d", feature, err);
    const int lines = lines_of(log_path, extractor, &warned);
    printf("%s with division and doubles in software: %.17g, on the device %d, %d stderr "
           "line%s\n", feature, soft, soft_on, lines, lines == 1 ? "" : "s");
    if (converted) {
        CHECK(soft_on == info->int64_atomics, "%s: not on the device in software double",
              feature);
        CHECK(lines == 0, "%s: %d stderr lines", feature, lines);
    } else {
        CHECK(!soft_on, "%s ran on the device without its double", feature);
        CHECK(lines == 1 && warned, "%s: one warning line naming it: %d lines, named %d",
              feature, lines, warned);
    }
    CHECK(!memcmp(&soft, &control, sizeof(soft)), "%s: scores differ: %.17g vs %.17g", feature,
          soft, control);
}

int main(int argc, char **argv)
{
    check_rule();
    const char *platform = argc > 1 ? argv[1] : "Portable Computing Language";
    VmafOpenCLDeviceInfo info;
    const int dev = test_opencl_device(platform, &info);
    if (dev < 0) {
        printf("the rule: %d checks, %d failures\n", checks, failures);
        return failures ? 1 : 77;
    }
    printf("device %d: %s / %s, fp32 divide/sqrt %s\n", dev, info.platform, info.name,
           vmaf_opencl_division_name(vmaf_opencl_division(&info, vmaf_opencl_uses_fp64(&info))));
    char log_path[] = "/tmp/test_opencl_division_XXXXXX";
    const int fd = mkstemp(log_path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return 1;
    close(fd);
    /* float_vif divides in float and in double per pixel; float_ssim's sums and terms are
     * doubles (both programs have fp64-free forms, as every program does) */
    compare(dev, &info, "float_vif", "VMAF_feature_vif_scale0_score", 1, log_path);
    compare(dev, &info, "float_ssim", "float_ssim", 1, log_path);
    unlink(log_path);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
