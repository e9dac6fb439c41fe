/*
 * Reads N inputs (a reference and its distorted versions) ahead, straight into pictures from
 * the pools of the contexts that will score them: input i's pictures come from pool_ctx[i]'s
 * pool. Pool pictures are taken in frame order (input 0, 1, ..., N - 1 of frame k, then those
 * of frame k + 1), so readers running ahead can never starve the frame the caller waits for.
 *
 * Two modes: when every input can be read at an index (raw regular files, Y4M files of bare
 * FRAME lines) and workers > 1, `workers` threads share each frame (bands of rows of each
 * plane of every input) and read it with pread at computed offsets, up to `depth` frames
 * ahead of the caller, then prepare (pin) its pictures; otherwise one thread per input reads
 * in order (other Y4M files, pipes).
 *
 * Each input ends on its own: once input i has given 0 (it ended, or max_frames was reached)
 * or an error at frame k, every later frame gives status 0 for it, while the other inputs go
 * on to their own end.
 */
#ifndef VMAF_TOOLS_FRAME_READER_H
#define VMAF_TOOLS_FRAME_READER_H

#include <stdbool.h>
#include <stdio.h>

#include "libvmaf/libvmaf.h"

#include "video_input.h"

typedef struct FrameReader FrameReader;

/**
 * Start reading n >= 2 inputs: in[0] the reference, in[1..n-1] the distorted ones; input i's
 * pictures come from pool_ctx[i]'s pool (vmaf_fetch_preallocated_picture; contexts may repeat).
 *
 * max_frames 0: until every input ends. depth: frames read ahead (>= 1). workers: reader threads
 * of the parallel mode (<= 1: the in-order mode). luma_only (every extractor reads luma only):
 * the parallel mode leaves the chroma planes unread when every input is 8-bit, and a pinned
 * pool's pictures are prepared (pinned) for their luma plane only. Read errors are printed to
 * msg (NULL: stderr): in the parallel mode when the caller reaches the frame, in the in-order
 * mode when the input's thread meets them.
 *
 * Pools: the reader holds at most `depth` pictures of each input at once (frames read ahead of
 * the one the caller took last), so each context's pool must hold
 * frame_reader_pool_pictures(pool_ctx, n, depth, ctx) pictures (depth per input it serves)
 * beyond those the contexts keep and the caller holds (tools/vmaf.c, setup_backend: what the
 * context keeps, 2 (threads + 1) + 1 or 4 without threads, plus 2 * depth for its pair; the
 * CUDA pinned pool's count is the library's). A picture shared by several contexts
 * (the reference, scored by every rung) goes back to its pool when the last of them releases
 * it: its pool must also cover every picture of it that some context still keeps. A pool too
 * small does not fail: a fetch waits until a picture comes back, which never happens if the
 * ones out wait for the frame being fetched.
 *
 * 0, or a negative errno (-EINVAL: n < 2 or an argument NULL; -ENOMEM).
 */
int frame_reader_start_multi(FrameReader **reader, VmafContext *const *pool_ctx,
                             VideoInput *const *in, unsigned n, unsigned max_frames,
                             unsigned depth, unsigned workers, bool luma_only, FILE *msg);

/**
 * The next frame of every input, in order. pics[i] / status[i] (n of each): 1 a picture was
 * read (the caller owns it), 0 that input ended (or max_frames was reached, or it ended or
 * failed at an earlier frame), negative errno: read error at this frame (the reader printed
 * the message; in the parallel mode once where several inputs fail with the same message in
 * one frame).
 */
void frame_reader_next_multi(FrameReader *reader, VmafPicture *pics, int *status);

/** Pictures the reader may hold at once from ctx's pool: depth for each input i with
 *  pool_ctx[i] == ctx (the reference and rung 0's distorted: 2 * depth; another rung's:
 *  depth), 0 for a context no input uses. */
unsigned frame_reader_pool_pictures(VmafContext *const *pool_ctx, unsigned n, unsigned depth,
                                    const VmafContext *ctx);

/** Two inputs, both from vmaf's pool (frame_reader_start_multi with n = 2): the pool must hold
 *  at least 2 * depth pictures beyond those the context keeps. */
int frame_reader_start(FrameReader **reader, VmafContext *vmaf, VideoInput *ref,
                       VideoInput *dist, unsigned max_frames, unsigned depth, unsigned workers,
                       bool luma_only, FILE *msg);

/** The next pair (frame_reader_next_multi with n = 2). */
void frame_reader_next(FrameReader *reader, VmafPicture *ref, int *ref_status, VmafPicture *dist,
                       int *dist_status);

/** Where the time went (parallel mode; milliseconds summed over the threads and inputs). */
typedef struct FrameReaderStats {
    unsigned workers, depth;
    double fetch_ms;   /* workers getting pool pictures (includes allocating them) */
    double read_ms;    /* workers reading frames */
    double prepare_ms; /* workers preparing (pinning) pictures after their first fill */
    unsigned tasks;    /* tasks (bands of rows) per frame, over every input */
    bool luma_only;    /* chroma left unread */
    double wait_ms;  /* the caller waiting for the next frame */
} FrameReaderStats;

void frame_reader_stats(FrameReader *reader, FrameReaderStats *stats);

/** Stop every thread and release every picture read but not taken. */
void frame_reader_stop(FrameReader *reader);

#endif /* VMAF_TOOLS_FRAME_READER_H */
