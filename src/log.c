#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static _Thread_local enum VmafLogLevel thread_level = VMAF_LOG_LEVEL_INFO;

enum VmafLogLevel vmaf_log_thread_level(void)
{
    return thread_level;
}

void vmaf_log_set_thread_level(enum VmafLogLevel level)
{
    thread_level = level;
}

static const char *level_name(enum VmafLogLevel level)
{
    switch (level) {
    case VMAF_LOG_LEVEL_ERROR: return "ERROR";
    case VMAF_LOG_LEVEL_WARNING: return "WARNING";
    case VMAF_LOG_LEVEL_INFO: return "INFO";
    case VMAF_LOG_LEVEL_DEBUG: return "DEBUG";
    default: return "";
    }
}

void vmaf_log(enum VmafLogLevel threshold, enum VmafLogLevel level, const char *fmt, ...)
{
    if (level == VMAF_LOG_LEVEL_NONE || level > threshold) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* one fprintf so lines from several threads do not interleave */
    fprintf(stderr, "libvmaf %s %s", level_name(level), msg);
}
