/* The OpenCL backend's per-operation profile (see profile.h). */
#include <stdlib.h>
#include <string.h>

#include "opencl/profile.h"

double vmaf_opencl_event_ms(const VmafOpenCLApi *api, cl_event event)
{
    cl_ulong start = 0, end = 0;
    if (!event ||
        api->clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start,
                                     NULL) != CL_SUCCESS ||
        api->clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL) !=
            CL_SUCCESS ||
        end < start)
        return -1;
    return (end - start) / 1e6;
}

void vmaf_opencl_profile_add(VmafOpenCLProfile *p, const char *label, double ms)
{
    unsigned i = 0;
    while (i < p->n && strcmp(p->op[i].label, label)) i++;
    if (i == p->n) {
        if (p->n == p->cap) {
            const unsigned cap = p->cap ? 2 * p->cap : 64;
            VmafOpenCLProfileEntry *op = realloc(p->op, cap * sizeof(*op));
            if (!op) return;
            p->op = op;
            p->cap = cap;
        }
        p->op[p->n++] = (VmafOpenCLProfileEntry){ .label = label };
    }
    p->op[i].count++;
    p->op[i].total_ms += ms;
}

static int by_total(const void *a, const void *b)
{
    const double x = ((const VmafOpenCLProfileEntry *)a)->total_ms;
    const double y = ((const VmafOpenCLProfileEntry *)b)->total_ms;
    return (x < y) - (x > y);
}

static void row(FILE *f, const char *kind, const char *label, unsigned long long count,
                double total_ms)
{
    fprintf(f, "  %-6s %-28s %8llu %12.3f %10.4f\n", kind, label, count, total_ms,
            count ? total_ms / count : 0.0);
}

void vmaf_opencl_profile_print(const VmafOpenCLProfile *p, FILE *f, const char *mode)
{
    if (!p->frames) return;
    VmafOpenCLProfileEntry *sorted = malloc((p->n ? p->n : 1) * sizeof(*sorted));
    if (!sorted) return;
    if (p->n) memcpy(sorted, p->op, p->n * sizeof(*sorted));
    qsort(sorted, p->n, sizeof(*sorted), by_total);
    double device_ms = 0;
    for (unsigned i = 0; i < p->n; i++) device_ms += sorted[i].total_ms;
    flockfile(f); /* one table, whatever else writes */
    fprintf(f, "opencl profile: %llu frames, %s; device operations by total time:\n", p->frames,
            mode);
    fprintf(f, "  %-6s %-28s %8s %12s %10s\n", "", "operation", "count", "total ms", "mean ms");
    for (unsigned i = 0; i < p->n; i++)
        row(f, "device", sorted[i].label, sorted[i].count, sorted[i].total_ms);
    row(f, "device", "(all operations, per frame)", p->frames, device_ms);
    row(f, "upload", "pictures", p->upload.count, p->upload.total_ms);
    static const char *const phase[VMAF_OPENCL_HOST_PHASES] = { "submit", "wait", "collect" };
    for (int i = 0; i < VMAF_OPENCL_HOST_PHASES; i++)
        row(f, "host", phase[i], p->frames, p->host_ms[i]);
    funlockfile(f);
    free(sorted);
}

void vmaf_opencl_profile_free(VmafOpenCLProfile *p)
{
    free(p->op);
    memset(p, 0, sizeof(*p));
}
