/*
 * The OpenCL entry points where OpenCL is missing: run with VMAF_OPENCL_LIBRARY naming a
 * library that is not there or lacks the entry points (argument "noloader"), or with the real
 * ICD loader and OCL_ICD_VENDORS pointing at an empty folder (argument "noplatform"). Every
 * call must come back with an error value (or zero devices), never crash; misuse is -EINVAL.
 */
#include <errno.h>

#include "libvmaf/libvmaf_opencl.h"

#include "test_util.h"

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "noloader") && strcmp(argv[1], "noplatform"))) {
        fprintf(stderr, "usage: %s noloader|noplatform\n", argv[0]);
        return 2;
    }
    const int noloader = !strcmp(argv[1], "noloader");
    int count = -1, err = vmaf_opencl_device_count(&count);
    if (err == -ENOSYS) {
        printf("SKIP: built without the OpenCL headers\n");
        return 77;
    }
    CHECK(err == (noloader ? -ENODEV : 0), "device_count: %d", err);
    CHECK(count == 0, "count %d", count);

    VmafOpenCLDeviceInfo info;
    memset(&info, 0x55, sizeof(info));
    err = vmaf_opencl_device_info(0, &info);
    CHECK(err == -ENODEV, "device_info(0): %d", err);
    CHECK(info.name[0] == '\0' && info.platform[0] == '\0', "info not cleared");

    VmafOpenCLState *s = (VmafOpenCLState *)&count;
    err = vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = 0 });
    CHECK(err == -ENODEV, "state_init: %d", err);
    CHECK(s == NULL, "state not cleared");
    CHECK(vmaf_opencl_state_free(NULL) == 0, "free(NULL)");

    /* misuse, whatever is installed */
    CHECK(vmaf_opencl_device_count(NULL) == -EINVAL, "device_count(NULL)");
    CHECK(vmaf_opencl_device_info(-1, &info) == -EINVAL, "device_info(-1)");
    CHECK(vmaf_opencl_device_info(0, NULL) == -EINVAL, "device_info(NULL)");
    CHECK(vmaf_opencl_state_init(NULL, (VmafOpenCLConfiguration){ 0 }) == -EINVAL, "init(NULL)");
    s = (VmafOpenCLState *)&count;
    CHECK(vmaf_opencl_state_init(&s, (VmafOpenCLConfiguration){ .device = -1 }) == -EINVAL &&
              s == NULL, "init(device -1)");
    printf("opencl %s: %d checks, %d failures\n", argv[1], checks, failures);
    return failures != 0;
}
