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
    for (int bits = 0; bits < 8; bits++) {
        VmafOpenCLDeviceInfo info = { 0 };
        info.correctly_rounded_divide_sqrt = bits & 1;
        info.fp64 = bits >> 1 & 1;
        info.fp32_denormals = bits >> 2 & 1;
        const enum VmafOpenCLDivision want = bits & 1        ? VMAF_OPENCL_DIVISION_DEVICE
                                             : (bits & 6) == 6 ? VMAF_OPENCL_DIVISION_VIA_DOUBLE
                                                               : VMAF_OPENCL_DIVISION_INEXACT;
        const enum VmafOpenCLDivision got = vmaf_opencl_division(&info);
        CHECK(got == want, "correctly rounded %d, fp64 %d, denormals %d: division %d, want %d",
              bits & 1, bits >> 1 & 1, bits >> 2 & 1, got, want);
    }
    CHECK(!strcmp(vmaf_opencl_division_options(VMAF_OPENCL_DIVISION_DEVICE),
                  "-cl-fp32-correctly-rounded-divide-sqrt"), "device options");
    CHECK(!strcmp(vmaf_opencl_division_options(VMAF_OPENCL_DIVISION_VIA_DOUBLE),
                  "-D VMAF_OPENCL_DIV_VIA_DOUBLE=1"), "via double options");
    CHECK(!strcmp(vmaf_opencl_division_options(VMAF_OPENCL_DIVISION_INEXACT), ""),
          "inexact options");
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

/* float_ssim of one pair on device dev, the division forced to `inexact` or left alone;
 * on_device: whether some extractor ran there. stderr goes to log_path meanwhile. */
static int score(int dev, int inexact, const char *log_path, double *value, int *on_device)
{
    VmafOpenCLState *s = NULL;
    int err = vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = dev });
    if (err) return err;
    if (inexact) s->division = VMAF_OPENCL_DIVISION_INEXACT;
    VmafContext *v = NULL;
    err = vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_WARNING });
    if (!err) err = vmaf_use_feature(v, "float_ssim", NULL);
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
    if (!err) err = vmaf_feature_score_at_index(v, "float_ssim", value, 0);
    if (v) vmaf_close(v);
    return err;
}

/* The lines of a file, and whether one holds `needle`. */
static int lines_of(const char *path, const char *needle, int *found)
{
    FILE *f = fopen(path, "r");
    int n = 0;
    char line[1024];
    *found = 0;
    if (!f) return 0;
    while (fgets(line, sizeof(line), f)) {
        n++;
        if (strstr(line, needle)) *found = 1;
        printf("  stderr: %s", line);
    }
    fclose(f);
    return n;
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
           vmaf_opencl_division_name(vmaf_opencl_division(&info)));
    char log_path[] = "/tmp/test_opencl_division_XXXXXX";
    const int fd = mkstemp(log_path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return 1;
    close(fd);
    double control = 0, forced = 0;
    int control_on = 0, forced_on = 0, warned = 0;
    int err = score(dev, 0, log_path, &control, &control_on);
    CHECK(!err, "control: %d", err);
    printf("as it is: float_ssim %.17g, on the device %d\n", control, control_on);
    CHECK(control_on == (vmaf_opencl_division(&info) != VMAF_OPENCL_DIVISION_INEXACT &&
                         info.int64_atomics),
          "the control ran on the device: %d", control_on);
    err = score(dev, 1, log_path, &forced, &forced_on);
    CHECK(!err, "forced not exact: %d", err);
    const int lines = lines_of(log_path, "every feature runs on the CPU", &warned);
    printf("division forced to \"not exact\": float_ssim %.17g, on the device %d, %d stderr "
           "line%s\n", forced, forced_on, lines, lines == 1 ? "" : "s");
    CHECK(!forced_on, "an extractor ran on a device without exact division");
    CHECK(lines == 1 && warned, "one warning line: %d lines, warned %d", lines, warned);
    CHECK(!memcmp(&forced, &control, sizeof(forced)), "scores differ: %.17g vs %.17g", forced,
          control);
    unlink(log_path);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
