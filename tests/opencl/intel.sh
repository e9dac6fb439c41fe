#!/bin/sh
# The arithmetic self-test on Intel's CPU OpenCL runtime (a device whose fp32 division and
# sqrt are not correctly rounded): intel.sh BUILD_DIR [--bare] TEST_BINARY [ARGS...]. Installs
# intel-opencl-rt with pip (once) into a virtual environment in BUILD_DIR/opencl-env and runs
# the test with its ICD (OCL_ICD_FILENAMES=libintelocl.so: the loader lists it first, device 0),
# with --platform Intel before ARGS unless --bare (a program without that option: checktwin).
# Exit 77 (skipped) with a message when it cannot be installed or its platform does not come up.
set -u
build=$(cd "$1" && pwd); shift
platform_arg=1
if [ "$1" = --bare ]; then platform_arg=0; shift; fi
test=$1; shift
env=$build/opencl-env
(
  flock 9
  if [ -z "$(find "$env/lib" -maxdepth 1 -name 'libintelocl.so' 2>/dev/null)" ]; then
    { [ -x "$env/bin/python" ] || python3 -m venv "$env"; } >"$build/opencl-env.log" 2>&1 &&
      "$env/bin/python" -m pip install -q --disable-pip-version-check intel-opencl-rt \
        intel-cmplr-lib-rt >>"$build/opencl-env.log" 2>&1 || exit 77
  fi
) 9>"$build/opencl-env.lock"
lib=$(find "$env/lib" -maxdepth 1 -name 'libintelocl.so' 2>/dev/null | head -n 1)
if [ -z "$lib" ]; then
  echo "SKIP: Intel's CPU OpenCL runtime could not be installed (pip install intel-opencl-rt" \
       "intel-cmplr-lib-rt; see $build/opencl-env.log)"
  exit 77
fi
# its own libraries (TBB, the compiler runtime) sit beside it
export LD_LIBRARY_PATH="$env/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OCL_ICD_FILENAMES="$lib"
if [ $platform_arg = 1 ]; then exec "$test" --platform Intel "$@"; fi
exec "$test" "$@"
