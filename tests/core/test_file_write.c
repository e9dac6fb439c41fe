/*
 * The library's one file writer (src/file_write.c) on its own: a failed write leaves the old
 * file and no temporary file (a put that fails, the file size limit as EFBIG), an output that
 * is an input is refused, a non-regular target is written in place, and a piecewise file
 * (cambi's heatmaps) refuses a symbolic or hard link at its name.
 * Usage: test_file_write SCRATCH_DIR
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_write.h"
#include "test_util.h"

static const char *dir;

static char *in_scratch(const char *name)
{
    static char buf[8][1024]; /* every name of the test keeps its own */
    static unsigned next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
    return p;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static bool file_is(const char *path, const char *text)
{
    char buf[256] = { 0 };
    FILE *f = fopen(path, "r");
    if (!f) return false;
    const size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    return n == strlen(text) && !memcmp(buf, text, n);
}

/* no "*.tmpXXXXXX" left in the scratch folder */
static bool no_temp(void)
{
    DIR *d = opendir(dir);
    bool none = true;
    for (struct dirent *e; d && (e = readdir(d));) none &= !strstr(e->d_name, ".tmp");
    if (d) closedir(d);
    return none;
}

static int put_text(FILE *f, void *arg)
{
    fputs(arg, f);
    return 0;
}

static int put_then_fail(FILE *f, void *arg)
{
    fputs(arg, f);
    return -EINVAL;
}

static int put_big(FILE *f, void *arg)
{
    (void)arg;
    for (unsigned i = 0; i < 100000; i++) fputs("0123456789", f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    dir = argv[1];
    mkdir(dir, 0755);
    const char *out = in_scratch("out.txt");
    const enum VmafLogLevel quiet = VMAF_LOG_LEVEL_NONE;

    put_file(out, "old");
    CHECK(vmaf_file_write(out, NULL, 0, put_text, "new", quiet) == 0, "write");
    CHECK(file_is(out, "new") && no_temp(), "replaced whole, no temporary file");

    CHECK(vmaf_file_write(out, NULL, 0, put_then_fail, "partial", quiet) == -EINVAL,
          "a put that fails is the error");
    CHECK(file_is(out, "new") && no_temp(), "a failed put leaves the old file and no temp");

    /* the file size limit: SIGXFSZ ignored, as the CLI does, the write fails with EFBIG */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old_limit, limit;
    getrlimit(RLIMIT_FSIZE, &old_limit);
    limit = old_limit;
    limit.rlim_cur = 4096;
    CHECK(!setrlimit(RLIMIT_FSIZE, &limit), "setrlimit");
    CHECK(vmaf_file_write(out, NULL, 0, put_big, NULL, quiet) == -EFBIG, "EFBIG");
    setrlimit(RLIMIT_FSIZE, &old_limit);
    CHECK(file_is(out, "new") && no_temp(), "EFBIG leaves the old file and no temp");

    /* an input (through a hard and a symbolic link) is refused, untouched */
    const char *input = in_scratch("input.yuv"), *hard = in_scratch("hard.txt"),
               *soft = in_scratch("soft.txt");
    put_file(input, "frames");
    unlink(hard);
    unlink(soft);
    CHECK(!link(input, hard) && !symlink("input.yuv", soft), "links"); /* beside it */
    const char *const keep[2] = { out, input };
    CHECK(vmaf_file_write(hard, keep, 2, put_text, "x", quiet) == -EINVAL, "hard link refused");
    CHECK(vmaf_file_write(soft, keep, 2, put_text, "x", quiet) == -EINVAL, "symlink refused");
    CHECK(file_is(input, "frames") && no_temp(), "the input is intact");
    CHECK(vmaf_file_find_same(soft, keep, 2) == 1 && vmaf_file_find_same(out, keep + 1, 1) == -1,
          "find_same");

    /* a FIFO (opened read-write here, so the write does not wait for a reader) is written in
     * place and stays a FIFO */
    const char *fifo = in_scratch("fifo");
    unlink(fifo);
    CHECK(!mkfifo(fifo, 0644), "mkfifo");
    FILE *reader = fopen(fifo, "r+");
    CHECK(reader != NULL, "open the FIFO");
    if (reader) {
        CHECK(vmaf_file_write(fifo, NULL, 0, put_text, "through", quiet) == 0, "FIFO write");
        char buf[16] = { 0 };
        CHECK(fread(buf, 1, 7, reader) == 7 && !strcmp(buf, "through"), "FIFO got %s", buf);
        fclose(reader);
    }
    struct stat st;
    CHECK(!stat(fifo, &st) && S_ISFIFO(st.st_mode) && no_temp(), "still a FIFO");
    bool beside = true;
    CHECK(vmaf_file_check_writable(fifo, &beside) == 0 && !beside, "FIFO writable, in place");
    CHECK(vmaf_file_check_writable(dir, &beside) == -EISDIR, "a folder is not writable");

    /* piecewise files: links and FIFOs at the name are refused, a plain file is emptied */
    FILE *f = NULL;
    CHECK(vmaf_file_open_in_dir(dir, "soft.txt", false, &f, quiet) == -ELOOP && !f,
          "symlink refused");
    CHECK(vmaf_file_open_in_dir(dir, "hard.txt", false, &f, quiet) == -EINVAL && !f,
          "hard link refused");
    CHECK(vmaf_file_open_in_dir(dir, "fifo", false, &f, quiet) == -EINVAL && !f, "FIFO refused");
    CHECK(file_is(input, "frames"), "the input is intact");
    CHECK(vmaf_file_open_in_dir(dir, "out.txt", false, &f, quiet) == 0 && f, "plain file");
    if (f) {
        fputs("piece", f);
        fclose(f);
    }
    CHECK(file_is(out, "piece"), "emptied, then written");
    CHECK(vmaf_file_open_in_dir(dir, "out.txt", true, &f, quiet) == 0 && f, "reopen");
    if (f) fclose(f);
    CHECK(file_is(out, "piece"), "a reopened file keeps its content");

    printf("%d/%d checks passed\n", checks - failures, checks);
    return failures != 0;
}
