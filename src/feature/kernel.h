/*
 * The kernels' dialect: what a twin's kernel source needs beyond the per-element headers,
 * spelled once for CUDA C++ and OpenCL C (the language is chosen in dialect.h). A kernel
 * source written with these macros builds for either backend.
 *
 * Device addresses: a kernel's argument struct carries vmaf_devptr values (see
 * src/gpu/twin.h). In CUDA they are addresses; in OpenCL byte offsets into the backend's arena,
 * the kernel's first parameter. VMAF_PTR(T, addr) turns one into a pointer to T in global
 * memory; a function that turns addresses into pointers itself takes VMAF_ARENA_PARAM first and
 * is called with VMAF_ARENA_ARG first (both empty in CUDA).
 *
 * Kernels: VMAF_KERNEL(name, Args) declares one taking `Args a`; VMAF_KERNEL_SHARED(name, Args)
 * one that also gets dynamic shared/__local memory as `vmaf_shared` (unsigned char *; its size
 * is the launch's shared_bytes), once its body starts with VMAF_SHARED_DECL. Static shared arrays: declare them at kernel scope with
 * VMAF_LOCAL (OpenCL allows __local variables only there) and pass them down.
 *
 * Ids: vmaf_tid(d) (thread in block), vmaf_bid(d) (block in grid), vmaf_bdim(d) (threads per
 * block), vmaf_gdim(d) (blocks per grid), d = 0, 1, 2 for x, y, z. VMAF_BARRIER(): every thread
 * of the block, and its shared/__local writes visible. There is no warp-synchronous code in a
 * portable kernel: a reduction across threads goes through VMAF_LOCAL memory and barriers in
 * a fixed order (the order of the CUDA form it replaces, where that order decides the bits).
 *
 * 64-bit integer atomics: vmaf_atomic_add_u64(p, v) on a VMAF_GLOBAL uint64_t *p (OpenCL:
 * cl_khr_int64_base_atomics, which the backend requires of a device).
 */
#ifndef VMAF_FEATURE_KERNEL_H
#define VMAF_FEATURE_KERNEL_H

#include "feature/dialect.h"

#if VMAF_DIALECT_OPENCL
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define VMAF_KERNEL(name, Args) __kernel void name(__global uchar *vmaf_arena, Args a)
/* The dynamic __local argument is declared as ulong, so that its buffer is aligned for any
 * type the kernel stores through it: declared as `__local uchar *`, NVIDIA's OpenCL faulted
 * on the float stores of float_vif (its buffer is aligned for the declared type only). */
#define VMAF_KERNEL_SHARED(name, Args)                                                         \
    __kernel void name(__global uchar *vmaf_arena, Args a, __local ulong *vmaf_shared_words)
#define VMAF_SHARED_DECL __local uchar *vmaf_shared = (__local uchar *)vmaf_shared_words;
#define VMAF_ARENA_PARAM __global uchar *vmaf_arena,
#define VMAF_ARENA_ARG vmaf_arena,
#define VMAF_PTR(T, addr) ((__global T *)(vmaf_arena + (addr)))
#define VMAF_LOCAL __local
#define vmaf_tid(d) ((unsigned)get_local_id(d))
#define vmaf_bid(d) ((unsigned)get_group_id(d))
#define vmaf_bdim(d) ((unsigned)get_local_size(d))
#define vmaf_gdim(d) ((unsigned)get_num_groups(d))
#define VMAF_BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define vmaf_atomic_add_u64(p, v) atom_add((volatile __global ulong *)(p), (ulong)(v))
#elif VMAF_DIALECT_CUDA
#define VMAF_KERNEL(name, Args) extern "C" __global__ void name(Args a)
#define VMAF_KERNEL_SHARED(name, Args) extern "C" __global__ void name(Args a)
#define VMAF_SHARED_DECL extern __shared__ unsigned char vmaf_shared[];
#define VMAF_ARENA_PARAM
#define VMAF_ARENA_ARG
#define VMAF_PTR(T, addr) ((T *)(addr))
#define VMAF_LOCAL __shared__
#define vmaf_tid(d) ((d) == 0 ? threadIdx.x : (d) == 1 ? threadIdx.y : threadIdx.z)
#define vmaf_bid(d) ((d) == 0 ? blockIdx.x : (d) == 1 ? blockIdx.y : blockIdx.z)
#define vmaf_bdim(d) ((d) == 0 ? blockDim.x : (d) == 1 ? blockDim.y : blockDim.z)
#define vmaf_gdim(d) ((d) == 0 ? gridDim.x : (d) == 1 ? gridDim.y : gridDim.z)
#define VMAF_BARRIER() __syncthreads()
#define vmaf_atomic_add_u64(p, v) \
    atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
#endif

#endif /* VMAF_FEATURE_KERNEL_H */
