/* The one file writer (file_write.h). */
#define _GNU_SOURCE /* fopencookie, mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "file_write.h"
#include "log.h"

#define TMP_SUFFIX ".tmpXXXXXX"

/*
 * stdio on top of write(2) with the first error's errno kept: ferror() alone says that a
 * write failed, not why (a full disk, the file size limit, a reader gone).
 */
typedef struct Sink {
    int fd;
    bool retry_interrupted; /* a temporary file: EINTR is a handled signal, not a failure */
    int err;                /* first failure, negative errno */
} Sink;

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
    Sink *s = cookie;
    if (s->err) return 0;
    size_t done = 0;
    while (done < size) {
        const ssize_t n = write(s->fd, buf + done, size - done);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR && s->retry_interrupted) continue;
        s->err = n < 0 ? -errno : -EIO;
        return 0; /* stdio's "failed" */
    }
    return (ssize_t)size;
}

/* put(f, arg) into fd: 0 or the first error, put's own or the write's. */
static int put_to_fd(int fd, bool retry_interrupted, VmafFilePutFn put, void *arg)
{
    Sink sink = { .fd = fd, .retry_interrupted = retry_interrupted };
    FILE *f = fopencookie(&sink, "w", (cookie_io_functions_t){ .write = sink_write });
    if (!f) return -ENOMEM;
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    int err = put(f, arg);
    const bool failed = fflush(f) != 0 || ferror(f);
    fclose(f); /* the fd is the caller's */
    if (!err && sink.err) err = sink.err;
    if (!err && failed) err = -EIO;
    return err;
}

static int fsync_retrying(int fd)
{
    while (fsync(fd))
        if (errno != EINTR) return -errno;
    return 0;
}

/* The folder's entry for the new name is made durable too; a folder that cannot be synced
 * (some network file systems) still holds a whole file, so failure is not an error. */
static void sync_folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir) return;
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

static void log_failure(enum VmafLogLevel log_level, const char *path, int err)
{
    vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR, "could not write %s: %s%s\n", path, strerror(-err),
             err == -EFBIG ? " (beyond the file size limit, ulimit -f)" : "");
}

static char *temp_name(const char *path)
{
    const size_t n = strlen(path) + sizeof(TMP_SUFFIX);
    char *tmp = malloc(n);
    if (tmp) snprintf(tmp, n, "%s" TMP_SUFFIX, path);
    return tmp;
}

static int write_replacing(const char *path, const struct stat *old, VmafFilePutFn put,
                           void *arg, enum VmafLogLevel log_level)
{
    char *tmp = temp_name(path);
    if (!tmp) return -ENOMEM;
    const int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        const int err = -errno;
        vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR,
                 "could not write %s: cannot create a temporary file beside it (%s)\n", path,
                 strerror(-err));
        free(tmp);
        return err;
    }
    /* mkstemp's 0600 would hide a new file from other users; a replaced one keeps its mode */
    (void)fchmod(fd, old ? old->st_mode & 0777 : 0644);
    int err = put_to_fd(fd, true, put, arg);
    if (!err) err = fsync_retrying(fd);
    if (close(fd) && !err && errno != EINTR) err = -errno;
    if (!err && rename(tmp, path)) err = -errno;
    if (err) {
        unlink(tmp);
        log_failure(log_level, path, err);
    } else {
        sync_folder_of(path);
    }
    free(tmp);
    return err;
}

int vmaf_file_find_same(const char *path, const char *const *paths, unsigned n)
{
    struct stat out, in;
    if (!path || stat(path, &out)) return -1;
    for (unsigned i = 0; i < n; i++)
        if (paths[i] && !stat(paths[i], &in) && in.st_dev == out.st_dev &&
            in.st_ino == out.st_ino)
            return (int)i;
    return -1;
}

int vmaf_file_write(const char *path, const char *const *keep, unsigned keep_cnt,
                    VmafFilePutFn put, void *arg, enum VmafLogLevel log_level)
{
    if (!path || !*path || !put || (keep_cnt && !keep)) return -EINVAL;
    const int same = vmaf_file_find_same(path, keep, keep_cnt);
    if (same >= 0) {
        vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR,
                 "refusing to write %s: it is the input %s\n", path, keep[same]);
        return -EINVAL;
    }
    struct stat st;
    if (stat(path, &st)) {
        if (errno != ENOENT) {
            const int err = -errno;
            log_failure(log_level, path, err);
            return err;
        }
        return write_replacing(path, NULL, put, arg, log_level);
    }
    if (S_ISDIR(st.st_mode)) {
        log_failure(log_level, path, -EISDIR);
        return -EISDIR;
    }
    if (S_ISREG(st.st_mode)) return write_replacing(path, &st, put, arg, log_level);

    /* a device, FIFO, terminal or socket: written as it is, never replaced. No O_TRUNC (a
     * regular file put there since the stat() is checked below, untouched). */
    const int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        const int err = -errno;
        log_failure(log_level, path, err);
        return err;
    }
    int err = fstat(fd, &st) ? -errno : 0;
    if (!err && S_ISREG(st.st_mode)) {
        close(fd);
        return write_replacing(path, &st, put, arg, log_level);
    }
    if (!err) err = put_to_fd(fd, false, put, arg);
    if (close(fd) && !err && errno != EINTR) err = -errno;
    if (err) log_failure(log_level, path, err);
    return err;
}

int vmaf_file_check_writable(const char *path, bool *beside)
{
    if (!path || !*path || !beside) return -EINVAL;
    struct stat st;
    *beside = false;
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) return -EISDIR;
        return access(path, W_OK) ? -errno : 0;
    }
    *beside = true;
    char *tmp = temp_name(path);
    if (!tmp) return -ENOMEM;
    const int fd = mkostemp(tmp, O_CLOEXEC);
    const int err = fd < 0 ? -errno : 0;
    if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    free(tmp);
    return err;
}

int vmaf_file_open_in_dir(const char *dir, const char *name, bool reopen, FILE **f,
                          enum VmafLogLevel log_level)
{
    if (!dir || !name || !f) return -EINVAL;
    *f = NULL;
    const char *why = NULL;
    int err = 0, fd = -1;
    const int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) {
        err = -errno;
        goto fail;
    }
    /* O_NONBLOCK: a FIFO put at name must be refused, not waited on */
    fd = openat(dir_fd, name,
                O_RDWR | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | (reopen ? 0 : O_CREAT),
                0666);
    if (fd < 0) {
        err = -errno;
        if (err == -ELOOP) why = "it is a symbolic link";
        goto fail;
    }
    struct stat st;
    if (fstat(fd, &st)) {
        err = -errno;
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        err = -EINVAL;
        why = "it is not a regular file";
        goto fail;
    }
    if (st.st_nlink > 1) {
        err = -EINVAL;
        why = "it has other hard links (it may be an input)";
        goto fail;
    }
    if (!reopen && ftruncate(fd, 0)) {
        err = -errno;
        goto fail;
    }
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    *f = fdopen(fd, "r+b");
    if (!*f) {
        err = -errno;
        goto fail;
    }
    close(dir_fd);
    return 0;
fail:
    vmaf_log(log_level, VMAF_LOG_LEVEL_ERROR, "could not open %s/%s for writing: %s\n", dir,
             name, why ? why : strerror(-err));
    if (fd >= 0) close(fd);
    if (dir_fd >= 0) close(dir_fd);
    return err;
}
