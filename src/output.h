/* Output files: XML, JSON, CSV and SUB (CONTRACT.md §3). */
#ifndef VMAF_SRC_OUTPUT_H
#define VMAF_SRC_OUTPUT_H

#include <stdint.h>

#include "libvmaf/libvmaf.h"

/** Number formats: the reference's %.6f (or %.16f for tiny fractions), or %.Ng. */
#define VMAF_OUTPUT_PRECISION_DEFAULT (-1)
#define VMAF_OUTPUT_PRECISION_MAX 17

/**
 * vmaf_write_output() with a choice of number format: precision < 0 is the reference
 * format, 1..17 prints "%.<precision>g" (17 round-trips every double).
 */
int vmaf_write_output_with_precision(VmafContext *vmaf, const char *output_path,
                                     enum VmafOutputFormat fmt, int precision);

/**
 * vmaf_write_output_with_precision() that refuses (-EINVAL, before anything is created) an
 * output_path that is the same file as one of keep[0..keep_cnt) (the inputs it was made
 * from, by device and inode). Written by vmaf_file_write() (file_write.h).
 */
int vmaf_output_write_keeping(VmafContext *vmaf, const char *output_path,
                              enum VmafOutputFormat fmt, int precision,
                              const char *const *keep, unsigned keep_cnt);

/**
 * Why `name` (an output name, after aliasing) cannot be written in fmt, or NULL when it can.
 * XML needs an XML name (names are attribute names there, which cannot be escaped); JSON
 * needs valid UTF-8 (and escapes quotes, backslashes and control characters); SUB cannot hold
 * '|' or line breaks; CSV holds anything (quoted as RFC 4180 says).
 */
const char *vmaf_output_name_problem(const char *name, enum VmafOutputFormat fmt);

/** The code point of the valid UTF-8 sequence at s and its length (1..4); length 0 if invalid
 *  (overlong, surrogate, above U+10FFFF, truncated). */
unsigned vmaf_utf8_decode(const unsigned char *s, uint32_t *cp);

/**
 * Check, before the first frame, that every output name the context will write (features of
 * the registered extractors and model scores) can be written in fmt: 0, or -EINVAL and a log
 * line naming the first that cannot.
 */
int vmaf_output_check_names(VmafContext *vmaf, enum VmafOutputFormat fmt);

#endif /* VMAF_SRC_OUTPUT_H */
