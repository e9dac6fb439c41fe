/* Output files: XML, JSON, CSV and SUB (CONTRACT.md §3). */
#ifndef VMAF_SRC_OUTPUT_H
#define VMAF_SRC_OUTPUT_H

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

#endif /* VMAF_SRC_OUTPUT_H */
