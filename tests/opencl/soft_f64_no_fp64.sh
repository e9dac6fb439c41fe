#!/bin/sh
# The software binary64 (src/feature/soft_f64.h, with the operations of tests/core/
# soft_f64_ops.h) compiles as OpenCL C 1.2 for a device WITHOUT cl_khr_fp64, 64-bit and 32-bit
# (clang: SPIR-V targets with the extension switched off), and with -D VMAF_SOFT_F64_NO_DOUBLE;
# a control program that names `double` must be refused under the same flags (else the flags
# prove nothing). Needs clang (skip 77 without it).
#   soft_f64_no_fp64.sh ROOT
set -u
root=$1
cc=
for c in clang clang-18 clang-17 clang-16 clang-15 clang-14; do
  if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
done
if [ -z "$cc" ]; then
  echo "SKIP: no clang"
  exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/soft.cl" <<'CL'
#pragma OPENCL FP_CONTRACT OFF
#include "soft_f64_ops.h"
__kernel void k(__global ulong *out, __global const SoftF64Case *cases)
{
    ulong r[SOFT_F64_OPS];
    soft_f64_apply(cases[get_global_id(0)], r);
    for (int i = 0; i < SOFT_F64_OPS; i++) out[get_global_id(0) * SOFT_F64_OPS + i] = r[i];
    out[0] ^= as_uint(vmaf_f64_to_float(vmaf_f64_from_float(1.5f)));
}
CL
printf '__kernel void k(__global ulong *o) { double x = o[0]; o[0] = (ulong)(x * 0.5); }\n' \
  >"$tmp/control.cl"
fail=0
for target in spirv64 spirv32; do
  flags="-x cl -cl-std=CL1.2 -target $target -Xclang -finclude-default-header -Xclang -cl-ext=-cl_khr_fp64 -fsyntax-only"
  # shellcheck disable=SC2086
  if $cc $flags -Werror -D VMAF_SOFT_F64_NO_DOUBLE -I "$root/src" -I "$root/tests/core" \
       "$tmp/soft.cl"; then
    echo "$target without fp64: soft_f64 builds"
  else
    echo "FAIL: $target without fp64: soft_f64 does not build"; fail=1
  fi
  # shellcheck disable=SC2086
  if $cc $flags "$tmp/control.cl" 2>/dev/null; then
    echo "FAIL: $target: the control program with a double builds: fp64 is not off"; fail=1
  else
    echo "$target without fp64: the control program with a double is refused"
  fi
done
exit $fail
