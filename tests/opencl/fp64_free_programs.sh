#!/bin/sh
# Every twin program that declares an fp64-free form (`#define VMAF_OPENCL_FP64_FREE 1`,
# feature/f64.h) compiles as OpenCL C 1.2 for a device WITHOUT cl_khr_fp64 (clang, SPIR-V
# target with the extension off), with the options a state gives such a device: its
# doubles in software (-D VMAF_OPENCL_SOFT_F64=1), fp32 division through the software double
# or the device's. A program without the line (one that computes in double) must be refused
# under the same flags, else they prove nothing. Constants that clang narrows to float are
# listed (as a device without fp64 narrows them: -cl-single-precision-constant makes PoCL do
# the same in the forced runs). Needs clang (skip 77 without it).
#   fp64_free_programs.sh ROOT
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
flags="-x cl -cl-std=CL1.2 -target spirv64 -Xclang -finclude-default-header -Xclang -cl-ext=-cl_khr_fp64 -fsyntax-only -D VMAF_OPENCL_SOFT_F64=1 -I $root/src -I $root/include"
fail=0 free=0 control=
for cl in "$root"/src/feature/opencl/*.cl; do
  name=$(basename "$cl" .cl)
  if ! grep -qx '#define VMAF_OPENCL_FP64_FREE 1' "$cl"; then
    [ -z "$control" ] && control=$cl
    continue
  fi
  free=$((free + 1))
  for div in "" "-D VMAF_OPENCL_DIV_VIA_SOFT_F64=1"; do
    # shellcheck disable=SC2086
    if out=$($cc $flags $div "$cl" 2>&1); then
      narrowed=$(printf '%s\n' "$out" | grep -c 'casting to single precision')
      echo "$name without fp64${div:+ ($div)}: builds ($narrowed constants narrowed to float)"
    else
      printf '%s\n' "$out" | grep error | head -5
      echo "FAIL: $name declares an fp64-free form but does not build without fp64${div:+ ($div)}"
      fail=1
    fi
  done
done
if [ "$free" -eq 0 ]; then echo "FAIL: no program declares an fp64-free form"; fail=1; fi
if [ -n "$control" ]; then
  # shellcheck disable=SC2086
  if $cc $flags "$control" >/dev/null 2>&1; then
    echo "FAIL: $(basename "$control") (no fp64-free form) builds without fp64: the flags prove nothing"
    fail=1
  else
    echo "$(basename "$control") (no fp64-free form) is refused without fp64, as it must be"
  fi
fi
exit $fail
