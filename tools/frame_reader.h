/*
 * Reads the reference and the distorted input ahead straight into pictures from the
 * context's pool. Pool pictures are taken in frame order (ref k, dist k, ref k+1, ...), so
 * readers running ahead can never starve the frame the caller waits for.
 *
 * Two modes: when both inputs can be read at an index (raw regular files, Y4M files of bare
 * FRAME lines) and workers > 1, `workers` threads share each frame (bands of rows of each
 * plane of both inputs) and read it with pread at computed offsets, up to `depth` frames
 * ahead of the caller, then prepare (pin) its pictures; otherwise one thread per input reads
 * in order (other Y4M files, pipes).
 */
#ifndef VMAF_TOOLS_FRAME_READER_H
#define VMAF_TOOLS_FRAME_READER_H

#include <stdbool.h>
#include <stdio.h>

#include "libvmaf/libvmaf.h"

#include "video_input.h"

typedef struct FrameReader FrameReader;

/** max_frames 0: until an input ends. depth: frames read ahead (>= 1). workers: reader threads
 *  of the parallel mode (<= 1: the in-order mode). luma_only (every extractor reads luma only): the
 *  parallel mode leaves the chroma planes of 8-bit inputs unread, and a pinned pool's
 *  pictures are prepared (pinned) for their luma plane only. The pool must hold
 *  at least 2 * depth pictures beyond those the context keeps. Read errors are printed to msg
 *  (NULL: stderr): in the parallel mode when the caller reaches the frame. */
int frame_reader_start(FrameReader **reader, VmafContext *vmaf, VideoInput *ref,
                       VideoInput *dist, unsigned max_frames, unsigned depth, unsigned workers,
                       bool luma_only, FILE *msg);

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
    double fetch_ms;   /* workers getting pool pictures (includes allocating them) */
    double read_ms;    /* workers reading frames */
    double prepare_ms; /* workers preparing (pinning) pictures after their first fill */
    unsigned tasks;    /* tasks (bands of rows) per frame */
    bool luma_only;    /* chroma left unread */
    double wait_ms;  /* the caller waiting for the next frame */
} FrameReaderStats;

void frame_reader_stats(FrameReader *reader, FrameReaderStats *stats);

/** Stop both threads and release every picture read but not taken. */
void frame_reader_stop(FrameReader *reader);

#endif /* VMAF_TOOLS_FRAME_READER_H */
