/* The title fingerprint a segment result records (vmaf_segment_set_fingerprint). */
#ifndef VMAF_TOOLS_TITLE_FINGERPRINT_H
#define VMAF_TOOLS_TITLE_FINGERPRINT_H

#include <stddef.h>

#define TITLE_FINGERPRINT_WINDOW 65536 /* bytes sampled at each of three places of a file */

/**
 * "ref=SIZE:CRC,dist=SIZE:CRC,skip=A:B" into out: each input's size in bytes and the CRC-32
 * (zlib's) of three windows of min(size, 64 KiB) bytes at offsets 0, (size - n) / 2 and
 * size - n, in that order, as 8 lower-case hex digits; A and B the frames skipped in each
 * (--frame_skip_ref/--frame_skip_dist). Cheap (384 KiB read), the same in every process that
 * scores a segment of the title, and what twinvmaf's score_segment() records (score.py).
 * 1 when an input is not a regular file (a pipe: no fingerprint), 0 when written, a negative
 * errno when a file cannot be read (a message in why).
 */
int title_fingerprint(const char *reference, const char *distorted, unsigned skip_ref,
                      unsigned skip_dist, char *out, size_t size, char *why, size_t why_size);

#endif /* VMAF_TOOLS_TITLE_FINGERPRINT_H */
