/*
 * Programs from embedded source, built on first use, and their binaries cached per device and
 * driver. A cache entry is a header (magic, key, payload length, payload checksum) and the
 * binary; anything that does not match is rebuilt from source and rewritten, never trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_write.h"
#include "log.h"
#include "opencl/state.h"

#define CONTRACT_PRAGMA "#pragma OPENCL FP_CONTRACT OFF"
/* the last byte is the entry format's version */
static const char cache_magic[8] = { 'T', 'V', 'M', 'A', 'F', 'C', 'L', 1 };
#define CACHE_MAX_BINARY (256u << 20)

typedef struct CacheHeader {
    char magic[8];
    uint64_t key, length, checksum;
} CacheHeader;

static uint64_t fnv1a64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ull

/* Each part with its terminating NUL, so that no two different lists hash alike by shifting
 * bytes from one part into the next. */
static uint64_t cache_key(const VmafOpenCLState *s, const char *source)
{
    const char *part[] = { source, s->build_options, s->info.platform, s->info.name,
                           s->info.vendor, s->info.device_version, s->info.driver_version };
    uint64_t h = fnv1a64(FNV_OFFSET, cache_magic, sizeof(cache_magic));
    for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++)
        h = fnv1a64(h, part[i], strlen(part[i]) + 1);
    return h;
}

/* mkdir -p; 0 when dir exists (as a folder) afterwards. */
static int make_dirs(char *dir)
{
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        const int bad = mkdir(dir, 0755) && errno != EEXIST;
        *p = '/';
        if (bad) return -errno;
    }
    if (mkdir(dir, 0755) && errno != EEXIST) return -errno;
    struct stat st;
    return !stat(dir, &st) && S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* The cache folder, created; 0 with dir[0] == '\0' when there is none. */
static void cache_dir(char *dir, size_t size)
{
    dir[0] = '\0';
    const char *off = getenv("VMAF_OPENCL_CACHE");
    if (off && !strcmp(off, "0")) return;
    const char *over = getenv("VMAF_OPENCL_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (over && *over) n = snprintf(dir, size, "%s", over);
    else if (xdg && xdg[0] == '/') n = snprintf(dir, size, "%s/twinvmaf/opencl", xdg);
    else if (home && home[0] == '/') n = snprintf(dir, size, "%s/.cache/twinvmaf/opencl", home);
    else return;
    if (n < 0 || (size_t)n >= size || make_dirs(dir)) {
        vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_DEBUG,
                 "opencl: no binary cache (cannot create %s)\n", dir);
        dir[0] = '\0';
    }
}

/* Read an entry: 0 with the binary, -ENOENT when absent, -EBADMSG when damaged or foreign. */
static int cache_read(const char *path, uint64_t key, unsigned char **bin, size_t *len)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -ENOENT;
    int err = -EBADMSG;
    struct stat st;
    CacheHeader h;
    unsigned char *buf = NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(h) ||
        read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
        goto done;
    if (memcmp(h.magic, cache_magic, sizeof(cache_magic)) || h.key != key || !h.length ||
        h.length > CACHE_MAX_BINARY || (uint64_t)st.st_size != sizeof(h) + h.length)
        goto done;
    if (!(buf = malloc(h.length))) {
        err = -ENOMEM;
        goto done;
    }
    size_t got = 0;
    while (got < h.length) {
        const ssize_t r = read(fd, buf + got, h.length - got);
        if (r <= 0) goto done;
        got += (size_t)r;
    }
    if (fnv1a64(FNV_OFFSET, buf, h.length) != h.checksum) goto done;
    *bin = buf;
    *len = h.length;
    buf = NULL;
    err = 0;
done:
    free(buf);
    close(fd);
    return err;
}

typedef struct CacheEntry {
    const CacheHeader *header;
    const unsigned char *bin;
} CacheEntry;

static int put_entry(FILE *f, void *arg)
{
    const CacheEntry *e = arg;
    if (fwrite(e->header, sizeof(*e->header), 1, f) != 1) return -EIO;
    if (e->header->length && fwrite(e->bin, e->header->length, 1, f) != 1) return -EIO;
    return 0;
}

/* Write an entry through the one file writer (atomic: the entry is the old one or the whole
 * new one); a failure only means no caching, so it logs nothing. */
static int cache_write(const char *path, uint64_t key, const unsigned char *bin, size_t len)
{
    CacheHeader h = { .key = key, .length = len, .checksum = fnv1a64(FNV_OFFSET, bin, len) };
    memcpy(h.magic, cache_magic, sizeof(cache_magic));
    CacheEntry e = { &h, bin };
    return vmaf_file_write(path, NULL, 0, put_entry, &e, VMAF_LOG_LEVEL_NONE);
}

static int build(VmafOpenCLState *s, cl_program program, const char *name)
{
    const VmafOpenCLApi *api = &s->api;
    const char *options = s->build_options;
    const cl_int res = api->clBuildProgram(program, 1, &s->device, options, NULL, NULL);
    if (res == CL_SUCCESS) return 0;
    size_t len = 0;
    char *log = NULL;
    if (api->clGetProgramBuildInfo(program, s->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) ==
            CL_SUCCESS && (log = malloc(len + 1)) &&
        api->clGetProgramBuildInfo(program, s->device, CL_PROGRAM_BUILD_LOG, len, log, NULL) ==
            CL_SUCCESS)
        log[len] = '\0';
    else if (log)
        log[0] = '\0';
    vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_ERROR,
             "opencl: clBuildProgram(%s, \"%s\"): %s (%d)%s%s\n", name, options,
             vmaf_opencl_error_name(res), (int)res, log && *log ? ":\n" : "", log ? log : "");
    free(log);
    return res == CL_BUILD_PROGRAM_FAILURE ? -EIO : vmaf_opencl_result(res, "clBuildProgram");
}

/* Load a cached binary; NULL (and the entry counted as rejected) when the device refuses it. */
static cl_program from_binary(VmafOpenCLState *s, const unsigned char *bin, size_t len)
{
    const VmafOpenCLApi *api = &s->api;
    cl_int res = CL_SUCCESS, status = CL_SUCCESS;
    cl_program p = api->clCreateProgramWithBinary(s->ctx, 1, &s->device, &len, &bin, &status, &res);
    if (res != CL_SUCCESS || status != CL_SUCCESS) {
        if (p) api->clReleaseProgram(p);
        return NULL;
    }
    if (api->clBuildProgram(p, 1, &s->device, s->build_options, NULL, NULL) != CL_SUCCESS) {
        api->clReleaseProgram(p);
        return NULL;
    }
    return p;
}

static int program_binary(VmafOpenCLState *s, cl_program p, unsigned char **bin, size_t *len)
{
    const VmafOpenCLApi *api = &s->api;
    VMAF_OPENCL_TRY(api->clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(*len), len, NULL));
    if (!*len || *len > CACHE_MAX_BINARY) return -EINVAL;
    if (!(*bin = malloc(*len))) return -ENOMEM;
    const int err = vmaf_opencl_result(
        api->clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(*bin), bin, NULL),
        "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    if (err) {
        free(*bin);
        *bin = NULL;
    }
    return err;
}

static int create(VmafOpenCLState *s, const VmafOpenCLSource *src, cl_program *out)
{
    const VmafOpenCLApi *api = &s->api;
    char dir[4096], path[4200] = "";
    cache_dir(dir, sizeof(dir));
    const uint64_t key = cache_key(s, src->text);
    if (dir[0]) {
        snprintf(path, sizeof(path), "%s/%016llx.clbin", dir, (unsigned long long)key);
        unsigned char *bin = NULL;
        size_t len = 0;
        const int err = cache_read(path, key, &bin, &len);
        cl_program p = err ? NULL : from_binary(s, bin, len);
        free(bin);
        if (p) {
            atomic_fetch_add(&s->cache_loads, 1);
            vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_DEBUG,
                     "opencl: %s loaded from %s\n", src->name, path);
            *out = p;
            return 0;
        }
        if (err != -ENOENT) {
            atomic_fetch_add(&s->cache_rejects, 1);
            vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_INFO,
                     "opencl: cache entry %s is damaged or foreign: building %s again\n", path,
                     src->name);
        }
    }
    cl_int res = CL_SUCCESS;
    const char *text = src->text;
    const size_t text_len = strlen(text);
    cl_program p = api->clCreateProgramWithSource(s->ctx, 1, &text, &text_len, &res);
    if (res != CL_SUCCESS) return vmaf_opencl_result(res, "clCreateProgramWithSource");
    int err = build(s, p, src->name);
    if (err) {
        api->clReleaseProgram(p);
        return err;
    }
    atomic_fetch_add(&s->source_builds, 1);
    if (path[0]) {
        unsigned char *bin = NULL;
        size_t len = 0;
        /* a binary that cannot be had or written only means no caching */
        if (!program_binary(s, p, &bin, &len) && !cache_write(path, key, bin, len))
            atomic_fetch_add(&s->cache_writes, 1);
        else
            vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_DEBUG,
                     "opencl: %s not cached in %s\n", src->name, dir);
        free(bin);
    }
    *out = p;
    return 0;
}

int vmaf_opencl_program(VmafOpenCLState *s, const VmafOpenCLSource *src, cl_program *program)
{
    if (!s || !src || !src->text || !src->name || !program) return -EINVAL;
    if (strncmp(src->text, CONTRACT_PRAGMA, strlen(CONTRACT_PRAGMA))) {
        vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_ERROR,
                 "opencl: program %s does not start with \"" CONTRACT_PRAGMA "\"\n", src->name);
        return -EINVAL;
    }
    pthread_mutex_lock(&s->lock);
    int err = 0;
    for (unsigned i = 0; i < s->program_cnt; i++)
        if (s->program[i].source == src) {
            *program = s->program[i].program;
            err = s->program[i].err; /* a build that failed, logged once */
            goto done;
        }
    if (s->program_cnt == VMAF_OPENCL_MAX_PROGRAMS) {
        err = -ENOSPC;
        goto done;
    }
    err = create(s, src, program);
    if (!err || err == -EIO) { /* a build failure is the device's answer: kept */
        s->program[s->program_cnt].source = src;
        s->program[s->program_cnt].err = err;
        s->program[s->program_cnt++].program = err ? NULL : *program;
    }
done:
    pthread_mutex_unlock(&s->lock);
    return err;
}
