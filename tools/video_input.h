/*
 * Twin VMAF — input readers of the `vmaf` CLI: raw planar YUV and YUV4MPEG2 (Y4M).
 *
 * Both readers deliver frames into a caller-allocated VmafPicture, which uses libvmaf's picture
 * convention: floor-sized chroma planes (w >> 1 for 4:2:x, h >> 1 for 4:2:0), strides in bytes,
 * samples above 8 bits as uint16 little-endian.
 *
 * Files store CEIL-sized chroma planes ((w + 1) >> 1, (h + 1) >> 1), as FFmpeg writes them. For odd
 * sizes the reader keeps the top-left floor-sized region of each chroma plane and skips the extra
 * column/row. Samples above 8 bits are uint16 little-endian in the file too.
 *
 * Error reporting: every function that can fail returns a negative errno and writes a one-line
 * human-readable message, prefixed with the path and without a trailing newline, into `err`
 * (truncated to err_sz; nothing is written when err is NULL or err_sz is 0).
 *
 * A VideoInput is not thread-safe; distinct VideoInputs are independent (no global state).
 */
#ifndef VMAF_TOOLS_VIDEO_INPUT_H
#define VMAF_TOOLS_VIDEO_INPUT_H

#include <stddef.h>

#include "libvmaf/picture.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VideoInput VideoInput;

/** Geometry of a stream: luma size, bits per sample (8..16) and chroma subsampling. */
typedef struct VideoInfo {
    unsigned w, h, bpc;
    enum VmafPixelFormat pix_fmt;
} VideoInfo;

/**
 * Open an input.
 *
 * raw != NULL: the file is raw planar YUV with that geometry (Y, then U, V; no headers). Accepted:
 *   w, h in 1..16384, bpc 8..16, pix_fmt 420/422/444 (and 400: luma only). For a regular file the
 *   size must be a nonzero multiple of the frame size (ceil-sized chroma); pipes and devices are
 *   not size-checked.
 *
 * raw == NULL: the file is Y4M. Header `YUV4MPEG2` followed by space-separated tags, then '\n':
 *   W<width> H<height> (both required, 1..16384), F<n:d>, A<n:d>, I<p|t|b|m|?>, C<colorspace>,
 *   X<anything>. Tags with another uppercase letter are ignored (forward compatibility); any other
 *   token is an error. Colorspaces (default 420jpeg):
 *     420jpeg, 420mpeg2, 420paldv, 420   -> 4:2:0 8-bit (chroma siting is ignored)
 *     422, 444                           -> 4:2:2 / 4:4:4 8-bit
 *     420pN, 422pN, 444pN (N = 9..16)    -> N-bit
 *     mono, monoN (N = 9..16)            -> VMAF_PIX_FMT_YUV400P
 *   Rejected with a message naming the reason: 411, 444alpha, anything else.
 *   Interlaced streams (I t/b/m) are accepted and read as progressive frames (each frame is both
 *   fields woven together, which is what the metrics see anyway).
 *   Each frame is `FRAME` + optional parameters + '\n', then the planes as for raw files.
 *
 * Open also checks that a first frame follows (reading, not consuming, one byte; on a pipe this
 * waits for the writer): an input without any frame is an error ("no frames").
 *
 * @param in      receives the new input on success (untouched on failure)
 * @param path    file path (any readable file: regular, FIFO, /dev/stdin, ...)
 * @param raw     raw geometry, or NULL for Y4M
 * @param err     message buffer for failures
 * @param err_sz  size of err
 * @return 0; -ENOENT/-EACCES/... (from open), -EINVAL (bad geometry, bad header, bad size),
 *         -ENOTSUP (valid but unsupported Y4M colorspace), -ENOMEM, -EIO
 */
int video_input_open(VideoInput **in, const char *path, const VideoInfo *raw,
                     char *err, size_t err_sz);

/** The stream's geometry (for Y4M, as parsed from the header). */
void video_input_info(const VideoInput *in, VideoInfo *info);

/**
 * Read the following frames into pictures of depth bpc (the stream's depth up to 16; e.g. the
 * common depth of two inputs of different depths under --aom_ctc v6.0+): samples are shifted
 * left by the difference. -EINVAL for a depth below the stream's or above 16.
 */
int video_input_set_picture_depth(VideoInput *in, unsigned bpc);

/**
 * Read the next frame into pic.
 *
 * pic must already be allocated with the stream's pix_fmt, bpc (or the one set above) and w/h (floor-sized chroma, any
 * stride at least the row size in bytes), e.g. by vmaf_picture_alloc() or a preallocated pool.
 * Only the w[p] x h[p] samples of each plane are written; stride padding is left untouched.
 *
 * @return 1 when a frame was read, 0 at a clean end of file (no byte of a further frame),
 *         negative errno with a message: -EINVAL (picture does not match the stream, bad Y4M
 *         FRAME header, a sample above (1 << bpc) - 1: the message names frame, plane and
 *         position), -EIO (truncated frame, read error; errno of the read when known).
 *         After an error the input stays in an unspecified position; close it.
 */
int video_input_read(VideoInput *in, VmafPicture *pic, char *err, size_t err_sz);

/**
 * Skip up to n frames (seeking where the file allows it, reading otherwise).
 *
 * @return the number of frames actually skipped (less than n when the end of file came first),
 *         or a negative errno with a message (truncated frame, read error, bad FRAME header).
 */
int video_input_skip(VideoInput *in, unsigned n, char *err, size_t err_sz);

/**
 * Whether frames can be read at any index, by several threads at once (video_input_read_at):
 * raw regular files, and Y4M regular files made of whole frames that each start with a bare
 * "FRAME" line (FFmpeg writes them so). Other Y4M files and pipes are read in order with
 * video_input_read only.
 */
int video_input_can_read_at(const VideoInput *in);

/**
 * Whether the number of frames in the file is known without reading it: raw regular files
 * (from the size) and Y4M regular files that can be read at an index. 1 and *frames set
 * (frames from the start of the file, skips included), or 0.
 */
int video_input_frames_known(const VideoInput *in, unsigned long long *frames);

/** Index of the next frame video_input_read() would return (after skips). */
unsigned long long video_input_next_index(const VideoInput *in);

/**
 * Read frame `index` (counted from the start of the file) into pic with pread(), leaving the
 * sequential position alone. Thread-safe against other video_input_read_at() calls on the
 * same input (and nothing else). Only where video_input_can_read_at().
 *
 * @return 1 when a frame was read, 0 when index is past the last frame, negative errno with a
 *         message as for video_input_read().
 */
int video_input_read_at(VideoInput *in, unsigned long long index, VmafPicture *pic, char *err,
                        size_t err_sz);

/**
 * Rows [y0, y1) of plane p of frame `index` (video_input_read_at's rules, for readers that
 * split a frame among threads): 1 read, 0 index past the last frame, negative errno with a
 * message (positions in the message are the plane's). The rows at y0 = 0 of plane 0 check a
 * Y4M frame's FRAME line.
 */
int video_input_read_rows_at(VideoInput *in, unsigned long long index, VmafPicture *pic,
                             unsigned p, unsigned y0, unsigned y1, char *err, size_t err_sz);

/** Planes of a frame (1 or 3); rows[p] kept in the picture and the bytes of one such row in
 *  the file (0 and 0 for a plane with nothing to keep). */
unsigned video_input_plane_rows(const VideoInput *in, unsigned rows[3], size_t row_bytes[3]);

/**
 * The frame rate of a Y4M header's F tag: 1 with *num / *den frames per second, or 0 when it
 * is not known (raw input, no F tag, or a zero numerator or denominator).
 */
int video_input_frame_rate(const VideoInput *in, unsigned *num, unsigned *den);

/** The path the input was opened with. */
const char *video_input_path(const VideoInput *in);

/** Close the input and free it. NULL is a no-op. */
void video_input_close(VideoInput *in);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_TOOLS_VIDEO_INPUT_H */
