/*
 * The OpenCL runtime on a CPU implementation (PoCL by default): enumeration, a state opened
 * and freed, the self-test program built from its embedded source, and the binary cache:
 * the first build writes an entry, a second state loads it, a damaged, truncated or foreign
 * entry is rebuilt and rewritten, a folder that cannot be written only means no caching.
 *   test_opencl_runtime SCRATCH_DIR [PLATFORM_SUBSTRING]
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opencl/selftest.h"
#include "opencl/state.h"

#include "cl_device.h"
#include "test_util.h"

static char entry[8192];

/* The one cache entry in dir (its path in entry); the number of entries. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t len = strlen(e->d_name);
        if (len > 6 && !strcmp(e->d_name + len - 6, ".clbin")) {
            snprintf(entry, sizeof(entry), "%s/%s", dir, e->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

static int run_selftest(VmafOpenCLState *s)
{
    float a[4] = { 1, 2, 3, 4 }, b[4] = { 3, 3, 3, 3 }, c[4] = { 0 }, q[4], r[4], m[4];
    const int err = vmaf_opencl_selftest(s, 0, a, b, c, q, r, m, 4);
    if (err) return err;
    return q[0] == 1.0f / 3.0f && r[3] == 2.0f && m[1] == 6.0f ? 0 : -EIO;
}

typedef struct Counts {
    unsigned builds, loads, rejects, writes;
} Counts;

/* A fresh state runs the self-test; what its cache did. */
static int one_state(int dev, Counts *n)
{
    VmafOpenCLState *s = NULL;
    int err = vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = dev });
    if (err) return err;
    err = run_selftest(s);
    /* a second use of the same state builds nothing */
    if (!err) err = run_selftest(s);
    *n = (Counts){ atomic_load(&s->source_builds), atomic_load(&s->cache_loads),
                   atomic_load(&s->cache_rejects), atomic_load(&s->cache_writes) };
    vmaf_opencl_state_free(s);
    return err;
}

#define EXPECT(what, err, n, b, l, r, w)                                                     \
    CHECK(!(err) && (n).builds == (b) && (n).loads == (l) && (n).rejects == (r) &&            \
              (n).writes == (w),                                                              \
          "%s: err %d, built %u loaded %u rejected %u written %u (want %u %u %u %u)", what, \
          err, (n).builds, (n).loads, (n).rejects, (n).writes, b, l, r, w)

/* Change the entry: flip a payload byte, cut it, or rewrite its key. */
static void damage(const char *path, int how)
{
    FILE *f = fopen(path, "r+b");
    if (!f) return;
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    if (how == 0) { /* a byte of the binary */
        fseek(f, size - size / 3, SEEK_SET);
        const int c = fgetc(f);
        fseek(f, size - size / 3, SEEK_SET);
        fputc(c ^ 0x20, f);
    } else if (how == 2) { /* the key of another entry */
        fseek(f, 8, SEEK_SET);
        fputc(0x5a, f);
    } else if (how == 3) { /* not ours at all */
        fseek(f, 0, SEEK_SET);
        fputs("\177ELF", f);
    }
    fclose(f);
    if (how == 1 && truncate(path, size - 100)) perror("truncate");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SCRATCH_DIR [PLATFORM]\n", argv[0]);
        return 2;
    }
    const char *platform = argc > 2 ? argv[2] : "Portable Computing Language";
    VmafOpenCLDeviceInfo info;
    const int dev = test_opencl_device(platform, &info);
    if (dev < 0) return 77;
    printf("device %d: %s / %s (%s), driver %s, %s, fp64 %d, correctly rounded div/sqrt %d, "
           "fp32 denormals %d, int64 atomics %d, work-group %zu, local %llu, global %llu\n",
           dev, info.platform, info.name, info.device_version, info.driver_version,
           info.opencl_c_version, info.fp64, info.correctly_rounded_divide_sqrt,
           info.fp32_denormals, info.int64_atomics, info.max_work_group_size,
           (unsigned long long)info.local_mem_size, (unsigned long long)info.global_mem_size);
    CHECK(info.name[0] && info.driver_version[0] && !strncmp(info.opencl_c_version, "OpenCL C ", 9),
          "device strings");
    CHECK(info.max_work_group_size > 0 && info.local_mem_size > 0 && info.global_mem_size > 0,
          "device sizes");
    VmafOpenCLDeviceInfo none;
    CHECK(vmaf_opencl_device_info(dev + 1000, &none) == -ENODEV, "device beyond the count");

    VmafOpenCLState *s = NULL;
    CHECK(vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = dev + 1000 }) == -ENODEV
              && !s, "state on a device beyond the count");

    /* sources the runtime refuses, in a state with no cache */
    setenv("VMAF_OPENCL_CACHE", "0", 1);
    int err = vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = dev });
    CHECK(!err && s, "state_init: %d", err);
    if (!s) return 1;
    char want[256];
    const int fp64 = vmaf_opencl_uses_fp64(&info);
    snprintf(want, sizeof(want), "%s%s",
             vmaf_opencl_division_options(vmaf_opencl_division(&info, fp64)),
             fp64 ? "" : " " VMAF_OPENCL_SOFT_F64_OPTIONS);
    CHECK(!strcmp(s->build_options, want), "build options \"%s\", want \"%s\"",
          s->build_options, want);
    cl_program p;
    const VmafOpenCLSource contracted = { "contracted", "__kernel void k(void) {}\n", 0 };
    CHECK(vmaf_opencl_program(s, &contracted, &p) == -EINVAL, "a source without FP_CONTRACT OFF");
    const VmafOpenCLSource broken = { "broken",
                                      "#pragma OPENCL FP_CONTRACT OFF\n__kernel void k( {}\n", 0 };
    printf("(a build error and its log are expected next)\n");
    CHECK(vmaf_opencl_program(s, &broken, &p) == -EIO, "a source that does not build");
    CHECK(run_selftest(s) == 0, "self-test without a cache");
    CHECK(atomic_load(&s->source_builds) == 1 && atomic_load(&s->cache_writes) == 0,
          "VMAF_OPENCL_CACHE=0 wrote an entry");
    vmaf_opencl_state_free(s);
    unsetenv("VMAF_OPENCL_CACHE");

    /* the cache, in a folder of its own (created by the runtime, two levels deep), emptied
     * first: what an earlier run left must not count */
    char dir[4096], clean[4200];
    snprintf(dir, sizeof(dir), "%s/runtime/opencl", argv[1]);
    snprintf(clean, sizeof(clean), "rm -rf '%s/runtime'", argv[1]);
    if (system(clean)) printf("(could not empty %s/runtime)\n", argv[1]);
    setenv("VMAF_OPENCL_CACHE_DIR", dir, 1);
    Counts n;
    err = one_state(dev, &n);
    EXPECT("first build", err, n, 1u, 0u, 0u, 1u);
    CHECK(entries(dir) == 1, "%d entries after the first build", entries(dir));
    err = one_state(dev, &n);
    EXPECT("from the cache", err, n, 0u, 1u, 0u, 0u);
    const char *harm[] = { "a flipped byte", "a truncated entry", "another key", "a foreign file" };
    for (int how = 0; how < 4; how++) {
        damage(entry, how);
        err = one_state(dev, &n);
        EXPECT(harm[how], err, n, 1u, 0u, 1u, 1u);
        err = one_state(dev, &n);
        EXPECT(harm[how], err, n, 0u, 1u, 0u, 0u);
        CHECK(entries(dir) == 1, "%s: %d entries", harm[how], entries(dir));
    }

    /* a cache folder that cannot be made: built, not cached, no error */
    char file[4200];
    snprintf(file, sizeof(file), "%s/not_a_folder", dir);
    FILE *f = fopen(file, "w");
    if (f) fclose(f);
    setenv("VMAF_OPENCL_CACHE_DIR", file, 1);
    err = one_state(dev, &n);
    EXPECT("unwritable folder", err, n, 1u, 0u, 0u, 0u);
    /* XDG_CACHE_HOME decides without the override */
    unsetenv("VMAF_OPENCL_CACHE_DIR");
    char xdg[4200], xdg_dir[4300];
    snprintf(xdg, sizeof(xdg), "%s/runtime/xdg", argv[1]);
    snprintf(xdg_dir, sizeof(xdg_dir), "%s/twinvmaf/opencl", xdg);
    setenv("XDG_CACHE_HOME", xdg, 1);
    err = one_state(dev, &n);
    CHECK(!err && n.writes == 1 && entries(xdg_dir) == 1, "XDG_CACHE_HOME: %d written %u", err,
          n.writes);

    printf("opencl runtime on %s: %d checks, %d failures\n", info.name, checks, failures);
    return failures != 0;
}
