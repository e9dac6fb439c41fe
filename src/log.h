/* Library messages: "libvmaf LEVEL msg" on stderr, filtered by the context's level. */
#ifndef VMAF_SRC_LOG_H
#define VMAF_SRC_LOG_H

#include "libvmaf/libvmaf.h"

#if defined(__GNUC__)
#define VMAF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define VMAF_PRINTF(a, b)
#endif

/** Print when level <= threshold (the context's configured level). */
void vmaf_log(enum VmafLogLevel threshold, enum VmafLogLevel level, const char *fmt, ...)
    VMAF_PRINTF(3, 4);

#endif /* VMAF_SRC_LOG_H */
