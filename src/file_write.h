/*
 * The one way the library (and the CLI) writes a file: score files (vmaf_write_output*),
 * segment results (vmaf_segment_write), merged outputs (vmaf_segment_merge*) and cambi's
 * heatmaps all go through here.
 *
 * Signals: the library never changes a signal's disposition. Two things are the caller's:
 * - SIGXFSZ: past the process's file size limit (RLIMIT_FSIZE) the kernel sends it, and its
 *   default action ends the process with the temporary file left behind. A caller that ignores
 *   it (the CLI does) gets -EFBIG from the write instead, and nothing left.
 * - Signals that end the process (SIGINT, SIGTERM, ...) while vmaf_file_write() holds its
 *   temporary file leave that file. The CLI holds them around every write and delivers them
 *   afterwards (tools/vmaf.c). The writer retries a temporary file's writes interrupted by a
 *   handled signal (EINTR), but not those of a file written directly (a FIFO or terminal that
 *   may block for ever): there EINTR fails the write, so a held signal can still end it.
 */
#ifndef VMAF_SRC_FILE_WRITE_H
#define VMAF_SRC_FILE_WRITE_H

#include <stdbool.h>
#include <stdio.h>

#include "libvmaf/libvmaf.h"

/** Writes a file's whole content to f: 0 or a negative errno. */
typedef int (*VmafFilePutFn)(FILE *f, void *arg);

/**
 * Write path with put(f, arg).
 * - A regular file, or a new one: written to "PATH.tmpXXXXXX" beside it, synced to disk and
 *   renamed over path, so path is the old file or the whole new one, never a part. On any
 *   failure the temporary file is removed. A replaced file keeps its permission bits (a new
 *   one gets 0644). A symbolic link at path is replaced, not followed.
 * - An existing file that is not regular (a character device such as /dev/null, a FIFO, a
 *   terminal, a socket): written in place, never replaced, removed or truncated.
 * - A directory: -EISDIR.
 * - A path that is the same file (device and inode, through any symbolic or hard link) as
 *   one of keep[0..keep_cnt) (the inputs): -EINVAL, before anything is created.
 * Errors are logged at log_level with the path and the reason (-EFBIG: the file size limit).
 */
int vmaf_file_write(const char *path, const char *const *keep, unsigned keep_cnt,
                    VmafFilePutFn put, void *arg, enum VmafLogLevel log_level);

/**
 * Whether vmaf_file_write(path) can be expected to succeed, checked the way it writes:
 * 0; -EISDIR; for an existing non-regular file, -errno of opening it for writing (access());
 * otherwise -errno of creating (and at once removing) a temporary file beside it. *beside is
 * set when the error is the temporary file's. Logs nothing.
 */
int vmaf_file_check_writable(const char *path, bool *beside);

/**
 * The index of the first of paths[0..n) that is the same file as path (device and inode:
 * through symbolic and hard links), or -1 (also when path does not exist).
 */
int vmaf_file_find_same(const char *path, const char *const *paths, unsigned n);

/**
 * Open name in the folder dir for writing a file piece by piece (cambi's heatmaps), without
 * following a symbolic link at name: created (mode 0644) and emptied, or with reopen (a
 * worker's copy of an extractor) opened as it is, read-write, never created. Refused with
 * -ELOOP for a symbolic link, -EINVAL for anything but a regular file and for a file with
 * other hard links (it may be an input: emptying it would destroy that). Logs the reason.
 */
int vmaf_file_open_in_dir(const char *dir, const char *name, bool reopen, FILE **f,
                          enum VmafLogLevel log_level);

#endif /* VMAF_SRC_FILE_WRITE_H */
