#!/bin/sh
# Make sure an OpenCL CPU implementation is there for the OpenCL tests: installs Debian's
# PoCL (pocl-opencl-icd) with the ICD loader and the headers (ocl-icd-opencl-dev, which
# brings opencl-c-headers) with apt-get when run as root and they are missing. Called by
# .ci/run before the build (the headers decide whether the OpenCL runtime is built) and by
# the opencl_setup test; without root (or apt-get) it only reports, and the tests skip.
set -u
have() {
  [ -f /usr/include/CL/cl.h ] || return 1
  ls /etc/OpenCL/vendors/*pocl*.icd >/dev/null 2>&1 || return 1
  ldconfig -p 2>/dev/null | grep -q 'libOpenCL\.so\.1 '
}
if have; then echo "opencl setup: PoCL, the ICD loader and the OpenCL headers found"; exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "opencl setup: installing pocl-opencl-icd and ocl-icd-opencl-dev"
  pkgs="pocl-opencl-icd ocl-icd-opencl-dev"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkgs >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkgs >/dev/null; }
  have && { echo "opencl setup: done"; exit 0; }
fi
echo "opencl setup: no PoCL (pocl-opencl-icd, ocl-icd-opencl-dev); the OpenCL tests will be skipped"
exit 0
