/*
 * Reads the reference and the distorted input ahead straight into pictures from the
 * context's pool. Pool pictures are taken in frame order (ref k, dist k, ref k+1, ...), so
 * readers running ahead can never starve the frame the caller waits for.
 *
 * Two modes: when both inputs are raw regular files and workers > 1, `workers` threads each
 * take whole frames (both inputs) and read them with pread at computed offsets, up to `depth`
 * frames ahead of the caller; otherwise one thread per input reads in order (Y4M, pipes).
 */
#ifndef VMAF_TOOLS_FRAME_READER_H
#define VMAF_TOOLS_FRAME_READER_H

#include <stdio.h>

#include "libvmaf/libvmaf.h"

#include "video_input.h"

typedef struct FrameReader FrameReader;

/** max_frames 0: until an input ends. depth: frames read ahead (>= 1). workers: reader threads
 *  of the parallel mode (<= 1: the in-order mode). The pool must hold at least 2 * depth
 *  pictures beyond those the context keeps. Read errors are printed to msg (NULL: stderr). */
int frame_reader_start(FrameReader **reader, VmafContext *vmaf, VideoInput *ref,
                       VideoInput *dist, unsigned max_frames, unsigned depth, unsigned workers,
                       FILE *msg);

/**
 * The next pair, in order. *ref_status / *dist_status: 1 a picture was read (the caller owns
 * it), 0 that input ended (or max_frames was reached), negative errno: read error (the reader
 * printed the message).
 */
void frame_reader_next(FrameReader *reader, VmafPicture *ref, int *ref_status, VmafPicture *dist,
                       int *dist_status);

/** Where the time went (parallel mode; milliseconds summed over the threads). */
typedef struct FrameReaderStats {
    unsigned workers, depth;
    double fetch_ms; /* workers getting pool pictures (includes allocating and pinning them) */
    double read_ms;  /* workers reading frames */
    double wait_ms;  /* the caller waiting for the next frame */
} FrameReaderStats;

void frame_reader_stats(FrameReader *reader, FrameReaderStats *stats);

/** Stop both threads and release every picture read but not taken. */
void frame_reader_stop(FrameReader *reader);

#endif /* VMAF_TOOLS_FRAME_READER_H */
