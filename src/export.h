/* Only the public vmaf_* entry points are exported from libvmaf.so. */
#ifndef VMAF_SRC_EXPORT_H
#define VMAF_SRC_EXPORT_H
#define VMAF_EXPORT __attribute__((visibility("default")))
#endif
