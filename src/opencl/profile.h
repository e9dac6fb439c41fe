/*
 * VMAF_OPENCL_PROFILE=1: the OpenCL backend's per-operation profile. Every operation of a frame
 * is enqueued with an event on queues made with CL_QUEUE_PROFILING_ENABLE; once the frame is
 * collected, each event's device time (CL_PROFILING_COMMAND_END - START) is added to its
 * operation's label (the twins' labels: one entry per kind, whichever slot or twin instance),
 * the pictures' upload to its own line, and the host's time in submit, in waiting for the
 * frame and in collecting it to three more. Printed at the backend's end as a table, device
 * operations by total time.
 */
#ifndef VMAF_OPENCL_PROFILE_H
#define VMAF_OPENCL_PROFILE_H

#include <stdio.h>

#include "opencl/loader.h"

typedef struct VmafOpenCLProfileEntry {
    const char *label; /* the twin's string: lives as long as the backend */
    unsigned long long count;
    double total_ms;
} VmafOpenCLProfileEntry;

enum VmafOpenCLProfileHost { VMAF_OPENCL_HOST_SUBMIT, VMAF_OPENCL_HOST_WAIT,
                             VMAF_OPENCL_HOST_COLLECT, VMAF_OPENCL_HOST_PHASES };

typedef struct VmafOpenCLProfile {
    VmafOpenCLProfileEntry *op;
    unsigned n, cap;
    VmafOpenCLProfileEntry upload;
    double host_ms[VMAF_OPENCL_HOST_PHASES];
    unsigned long long frames;
} VmafOpenCLProfile;

/** The device time of a completed event of a profiling queue, in ms; < 0 when not had. */
double vmaf_opencl_event_ms(const VmafOpenCLApi *api, cl_event event);

/** Add one operation's time to its label's entry (an entry that cannot be made is dropped:
 *  the profile only). */
void vmaf_opencl_profile_add(VmafOpenCLProfile *p, const char *label, double ms);

/** The table, to f; nothing before the first frame. mode: how the frames ran. */
void vmaf_opencl_profile_print(const VmafOpenCLProfile *p, FILE *f, const char *mode);

void vmaf_opencl_profile_free(VmafOpenCLProfile *p);

#endif /* VMAF_OPENCL_PROFILE_H */
