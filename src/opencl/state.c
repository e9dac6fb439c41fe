/* Device enumeration and the public device-state entry points. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "log.h"
#include "opencl/describe.h"
#include "opencl/state.h"

/* Platforms, with their device counts; CL_PLATFORM_NOT_FOUND_KHR (no ICD installed) counts as
 * no platform, not as a failure. */
static int list_platforms(const VmafOpenCLApi *api, cl_platform_id **platform, cl_uint *count)
{
    *platform = NULL;
    *count = 0;
    cl_uint n = 0;
    cl_int err = api->clGetPlatformIDs(0, NULL, &n);
    if (err == -1001 || (err == CL_SUCCESS && !n)) return 0;
    if (err != CL_SUCCESS) return vmaf_opencl_result(err, "clGetPlatformIDs");
    cl_platform_id *p = calloc(n, sizeof(*p));
    if (!p) return -ENOMEM;
    err = vmaf_opencl_result(api->clGetPlatformIDs(n, p, &n), "clGetPlatformIDs");
    if (err) {
        free(p);
        return err;
    }
    *platform = p;
    *count = n;
    return 0;
}

static cl_uint devices_of(const VmafOpenCLApi *api, cl_platform_id platform)
{
    cl_uint n = 0;
    /* a platform without devices answers CL_DEVICE_NOT_FOUND: zero devices */
    if (api->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n) != CL_SUCCESS) return 0;
    return n;
}

/* Enumerating and describing devices, and making a context, hold this lock: some OpenCL
 * implementations answer device queries from several threads at once wrongly (PoCL 3.1's
 * clGetDeviceInfo crashed with --split's segments opening their states together). A lock,
 * not state: nothing is kept under it. */
static pthread_mutex_t query_lock = PTHREAD_MUTEX_INITIALIZER;

static int device_count(const VmafOpenCLApi *api, int *count)
{
    cl_platform_id *platform;
    cl_uint platforms;
    const int err = list_platforms(api, &platform, &platforms);
    if (err) return err;
    long total = 0;
    for (cl_uint i = 0; i < platforms; i++) total += devices_of(api, platform[i]);
    free(platform);
    *count = total > 0x7fffffff ? 0x7fffffff : (int)total;
    return 0;
}

int vmaf_opencl_find_device(const VmafOpenCLApi *api, int index, cl_platform_id *platform_out,
                            cl_device_id *device)
{
    cl_platform_id *platform;
    cl_uint platforms;
    int err = list_platforms(api, &platform, &platforms);
    if (err) return err;
    long first = 0;
    for (cl_uint i = 0; i < platforms; i++) {
        const cl_uint n = devices_of(api, platform[i]);
        if (index >= first + n) {
            first += n;
            continue;
        }
        cl_device_id *dev = calloc(n, sizeof(*dev));
        if (!dev) {
            free(platform);
            return -ENOMEM;
        }
        err = vmaf_opencl_result(api->clGetDeviceIDs(platform[i], CL_DEVICE_TYPE_ALL, n, dev, NULL),
                                 "clGetDeviceIDs");
        if (!err) {
            *platform_out = platform[i];
            *device = dev[index - first];
        }
        free(dev);
        free(platform);
        return err;
    }
    free(platform);
    vmaf_log(vmaf_log_thread_level(), VMAF_LOG_LEVEL_ERROR,
             "opencl: no device %d (%ld device%s found)\n", index, first, first == 1 ? "" : "s");
    return -ENODEV;
}

static int device_string(const VmafOpenCLApi *api, cl_device_id dev, cl_device_info what,
                         char *buf, size_t size, const char *name)
{
    size_t len = 0;
    const int err = vmaf_opencl_result(api->clGetDeviceInfo(dev, what, 0, NULL, &len), name);
    if (err) return err;
    char *tmp = malloc(len + 1);
    if (!tmp) return -ENOMEM;
    const int got = vmaf_opencl_result(api->clGetDeviceInfo(dev, what, len, tmp, NULL), name);
    tmp[len] = '\0';
    if (!got) snprintf(buf, size, "%s", tmp);
    free(tmp);
    return got;
}

/* Whether a space-separated extension list names ext exactly. */
static int has_extension(const char *list, const char *ext)
{
    const size_t n = strlen(ext);
    for (const char *p = list; (p = strstr(p, ext)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

int vmaf_opencl_describe(const VmafOpenCLApi *api, cl_platform_id platform, cl_device_id dev,
                         VmafOpenCLDeviceInfo *info)
{
    memset(info, 0, sizeof(*info));
    size_t len = 0;
    VMAF_OPENCL_TRY(api->clGetPlatformInfo(platform, CL_PLATFORM_NAME, 0, NULL, &len));
    char *name = malloc(len + 1);
    if (!name) return -ENOMEM;
    int err = vmaf_opencl_result(api->clGetPlatformInfo(platform, CL_PLATFORM_NAME, len, name, NULL),
                                 "clGetPlatformInfo(CL_PLATFORM_NAME)");
    name[len] = '\0';
    if (!err) snprintf(info->platform, sizeof(info->platform), "%s", name);
    free(name);
    if (err) return err;
#define STRING(field, what) \
    if ((err = device_string(api, dev, what, info->field, sizeof(info->field), \
                             "clGetDeviceInfo(" #what ")"))) return err;
    STRING(name, CL_DEVICE_NAME)
    STRING(vendor, CL_DEVICE_VENDOR)
    STRING(driver_version, CL_DRIVER_VERSION)
    STRING(device_version, CL_DEVICE_VERSION)
    STRING(opencl_c_version, CL_DEVICE_OPENCL_C_VERSION)
#undef STRING
#define VALUE(var, what) \
    if ((err = vmaf_opencl_result(api->clGetDeviceInfo(dev, what, sizeof(var), &var, NULL), \
                                  "clGetDeviceInfo(" #what ")"))) return err;
    cl_device_type type = 0;
    cl_device_fp_config single = 0, dbl = 0;
    cl_ulong local = 0, global = 0;
    size_t group = 0;
    VALUE(type, CL_DEVICE_TYPE)
    VALUE(single, CL_DEVICE_SINGLE_FP_CONFIG)
    VALUE(local, CL_DEVICE_LOCAL_MEM_SIZE)
    VALUE(global, CL_DEVICE_GLOBAL_MEM_SIZE)
    VALUE(group, CL_DEVICE_MAX_WORK_GROUP_SIZE)
#undef VALUE
    /* CL_DEVICE_DOUBLE_FP_CONFIG is an error on some devices without fp64: then 0 */
    if (api->clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(dbl), &dbl, NULL) != CL_SUCCESS)
        dbl = 0;
    VMAF_OPENCL_TRY(api->clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &len));
    char *ext = malloc(len + 1);
    if (!ext) return -ENOMEM;
    err = vmaf_opencl_result(api->clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, len, ext, NULL),
                             "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)");
    ext[len] = '\0';
    if (!err) {
        info->fp64 = has_extension(ext, "cl_khr_fp64") || dbl != 0;
        info->int64_atomics = has_extension(ext, "cl_khr_int64_base_atomics");
    }
    free(ext);
    if (err) return err;
    info->type = type & CL_DEVICE_TYPE_GPU           ? VMAF_OPENCL_DEVICE_GPU
                 : type & CL_DEVICE_TYPE_CPU         ? VMAF_OPENCL_DEVICE_CPU
                 : type & CL_DEVICE_TYPE_ACCELERATOR ? VMAF_OPENCL_DEVICE_ACCELERATOR
                                                     : VMAF_OPENCL_DEVICE_OTHER;
    info->correctly_rounded_divide_sqrt = !!(single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
    info->fp32_denormals = !!(single & CL_FP_DENORM);
    info->max_work_group_size = group;
    info->local_mem_size = local;
    info->global_mem_size = global;
    return 0;
}

VMAF_EXPORT int vmaf_opencl_device_count(int *count)
{
    if (!count) return -EINVAL;
    *count = 0;
    VmafOpenCLApi api;
    int err = vmaf_opencl_api_load(&api);
    if (err) return err;
    pthread_mutex_lock(&query_lock);
    err = device_count(&api, count);
    pthread_mutex_unlock(&query_lock);
    vmaf_opencl_api_unload(&api);
    return err;
}

VMAF_EXPORT int vmaf_opencl_device_info(int index, VmafOpenCLDeviceInfo *info)
{
    if (!info || index < 0) return -EINVAL;
    memset(info, 0, sizeof(*info));
    VmafOpenCLApi api;
    int err = vmaf_opencl_api_load(&api);
    if (err) return err;
    cl_platform_id platform;
    cl_device_id dev;
    pthread_mutex_lock(&query_lock);
    err = vmaf_opencl_find_device(&api, index, &platform, &dev);
    if (!err) err = vmaf_opencl_describe(&api, platform, dev, info);
    pthread_mutex_unlock(&query_lock);
    vmaf_opencl_api_unload(&api);
    return err;
}

int vmaf_opencl_command_buffer_text(int index, char *text, size_t size)
{
    if (!text || !size || index < 0) return -EINVAL;
    *text = '\0';
    VmafOpenCLApi api;
    int err = vmaf_opencl_api_load(&api);
    if (err) return err;
    cl_platform_id platform;
    cl_device_id dev;
    VmafOpenCLCommandBufferApi cb;
    char why[160];
    pthread_mutex_lock(&query_lock);
    err = vmaf_opencl_find_device(&api, index, &platform, &dev);
    if (!err) err = vmaf_opencl_command_buffer_probe(&api, platform, dev, &cb, why, sizeof(why));
    pthread_mutex_unlock(&query_lock);
    vmaf_opencl_api_unload(&api);
    if (err) return err;
    if (!cb.version)
        snprintf(text, size, "command buffers not used (%s)", why);
    else if (!vmaf_opencl_command_buffer_wanted())
        snprintf(text, size, "command buffers off (%s; VMAF_OPENCL_COMMAND_BUFFER=0)", why);
    else
        snprintf(text, size, "command buffers used (%s)", why);
    return 0;
}

VMAF_EXPORT int vmaf_opencl_state_init(VmafOpenCLState **out, VmafOpenCLConfiguration cfg)
{
    if (!out) return -EINVAL;
    *out = NULL;
    if (cfg.device < 0) return -EINVAL;
    VmafOpenCLState *s = calloc(1, sizeof(*s));
    if (!s) return -ENOMEM;
    int err = vmaf_opencl_api_load(&s->api);
    if (err) {
        free(s);
        return err;
    }
    pthread_mutex_init(&s->lock, NULL);
    atomic_init(&s->refs, 1);
    s->index = cfg.device;
    const VmafOpenCLApi *api = &s->api;
    pthread_mutex_lock(&query_lock);
    err = vmaf_opencl_find_device(api, cfg.device, &s->platform, &s->device);
    if (!err) err = vmaf_opencl_describe(api, s->platform, s->device, &s->info);
    if (!err) {
        const cl_context_properties props[] = {
            CL_CONTEXT_PLATFORM, (cl_context_properties)s->platform, 0,
        };
        cl_int res = CL_SUCCESS;
        s->ctx = api->clCreateContext(props, 1, &s->device, NULL, NULL, &res);
        err = vmaf_opencl_result(res, "clCreateContext");
        if (!err) {
            s->queue = api->clCreateCommandQueue(s->ctx, s->device, 0, &res); /* in order */
            err = vmaf_opencl_result(res, "clCreateCommandQueue");
        }
        if (!err)
            err = vmaf_opencl_result(api->clGetDeviceInfo(s->device, CL_DEVICE_MAX_PARAMETER_SIZE,
                                                          sizeof(s->max_parameter_size),
                                                          &s->max_parameter_size, NULL),
                                     "clGetDeviceInfo(CL_DEVICE_MAX_PARAMETER_SIZE)");
        if (!err)
            err = vmaf_opencl_command_buffer_probe(api, s->platform, s->device,
                                                   &s->command_buffer, s->command_buffer_why,
                                                   sizeof(s->command_buffer_why));
    }
    pthread_mutex_unlock(&query_lock);
    /* correctly rounded fp32 division and sqrt: the device's own where it has them, else
     * through double, the device's or the software one (vmaf_fdiv in feature/dialect.h);
     * never a relaxed-math option. Doubles in the device's fp64, or in the software binary64
     * (feature/f64.h). One string for every program, and part of the binary cache's key. */
    s->fp64 = vmaf_opencl_uses_fp64(&s->info);
    s->division = vmaf_opencl_division(&s->info, s->fp64);
    snprintf(s->build_options, sizeof(s->build_options), "%s%s",
             vmaf_opencl_division_options(s->division),
             s->fp64 ? "" : " " VMAF_OPENCL_SOFT_F64_OPTIONS);
    if (err) {
        vmaf_opencl_state_free(s);
        return err;
    }
    *out = s;
    return 0;
}

VMAF_EXPORT int vmaf_opencl_state_free(VmafOpenCLState *s)
{
    vmaf_opencl_state_unref(s);
    return 0;
}

void vmaf_opencl_state_ref(VmafOpenCLState *s)
{
    atomic_fetch_add(&s->refs, 1);
}

void vmaf_opencl_state_unref(VmafOpenCLState *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
    const VmafOpenCLApi *api = &s->api;
    for (unsigned i = 0; i < s->program_cnt; i++)
        if (s->program[i].program)
            vmaf_opencl_result(api->clReleaseProgram(s->program[i].program), "clReleaseProgram");
    if (s->queue) {
        vmaf_opencl_result(api->clFinish(s->queue), "clFinish");
        vmaf_opencl_result(api->clReleaseCommandQueue(s->queue), "clReleaseCommandQueue");
    }
    if (s->ctx) vmaf_opencl_result(api->clReleaseContext(s->ctx), "clReleaseContext");
    pthread_mutex_destroy(&s->lock);
    vmaf_opencl_api_unload(&s->api);
    free(s);
}
