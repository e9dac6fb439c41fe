#!/bin/sh
# vmaf --opencl_list: one line per device and exit 0 (with PoCL), one line and exit 255
# without an ICD loader or without a platform. cli_opencl.sh VMAF EMPTY_DIR
set -u
vmaf=$1; empty=$2
mkdir -p "$empty"
fail=0
matches() { if [ -z "$1" ]; then [ ! -s "$2" ]; else grep -Eq "$1" "$2"; fi; }
# name, expected status, stdout pattern, stderr pattern ("" for nothing there), env...
check() {
  name=$1; want=$2; out_re=$3; err_re=$4; shift 4
  env "$@" "$vmaf" --opencl_list >"$empty.out" 2>"$empty.err"; rc=$?
  lines=$(cat "$empty.out" "$empty.err" | wc -l)
  if [ $rc != "$want" ] || ! matches "$out_re" "$empty.out" || ! matches "$err_re" "$empty.err" ||
     { [ "$want" != 0 ] && [ "$lines" != 1 ]; }; then
    echo "FAIL $name: exit $rc (want $want), $lines lines:"; cat "$empty.out" "$empty.err"; fail=1
  else
    echo "ok $name: exit $rc: $(cat "$empty.out" "$empty.err" | head -n 1)"
  fi
}
if "$vmaf" --opencl_list 2>&1 | grep -q 'built without'; then
  echo "SKIP: vmaf built without the OpenCL headers"; exit 77
fi
check "no loader" 255 '' 'ICD loader .*could not be loaded' VMAF_OPENCL_LIBRARY=/nonexistent/libOpenCL.so.1
check "a library without the entry points" 255 '' 'could not be loaded' VMAF_OPENCL_LIBRARY=libm.so.6
check "no platform" 255 '' 'no OpenCL device' OCL_ICD_VENDORS="$empty"
if "$vmaf" --opencl_list 2>/dev/null | grep -q 'Portable Computing Language'; then
  check "PoCL" 0 '^0: platform ".+", device ".+", (cpu|gpu|accelerator|other), driver ".+", OpenCL C [0-9.]+.*, fp64 (yes|no), fp32 divide/sqrt (correctly rounded \(device\)|via double \(exact\)|not exact: twins run on the CPU), command buffers (used|not used|off) \(.+\)$' ''
else
  echo "(no PoCL device: the listing itself not checked)"
fi
exit $fail
