/* Library messages: "libvmaf LEVEL msg" on stderr, filtered by the context's level. */
#ifndef VMAF_SRC_LOG_H
#define VMAF_SRC_LOG_H

#include "libvmaf/libvmaf.h"

#if defined(__GNUC__)
#define VMAF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define VMAF_PRINTF(a, b)
#endif

/**
 * The log level of the latest vmaf_init() in the calling thread (INFO before any), for the
 * calls that take no context: model loading and vmaf_cuda_state_init(). The reference keeps
 * one process-wide level that vmaf_init() sets; FFmpeg calls vmaf_init() (with -v quiet: NONE)
 * and then loads its models in the same thread. Per thread, so contexts configured in
 * different threads do not affect each other.
 */
enum VmafLogLevel vmaf_log_thread_level(void);
void vmaf_log_set_thread_level(enum VmafLogLevel level);

/** Print when level <= threshold (the context's configured level). */
void vmaf_log(enum VmafLogLevel threshold, enum VmafLogLevel level, const char *fmt, ...)
    VMAF_PRINTF(3, 4);

#endif /* VMAF_SRC_LOG_H */
