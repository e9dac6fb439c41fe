#!/bin/sh
# Configure and build the fuzz targets (tests/fuzz/CMakeLists.txt) with clang into BUILD_DIR.
# Exit 77 (ctest: skipped) when there is no clang with libFuzzer. Usage: build.sh BUILD_DIR
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=$1
mkdir -p "$B"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$B/probe.c"
CC_FUZZ=
for cc in clang clang-14; do
  command -v "$cc" >/dev/null 2>&1 || continue
  if "$cc" -fsanitize=fuzzer,address,undefined "$B/probe.c" -o "$B/probe" 2>/dev/null; then
    CC_FUZZ=$(command -v "$cc")
    break
  fi
done
if [ -z "$CC_FUZZ" ]; then
  echo "fuzz: skipped, no clang with libFuzzer (tests/fuzz/setup.sh installs it as root)"
  exit 77
fi
JOBS=$(nproc 2>/dev/null || echo 2)
cmake -S "$HERE" -B "$B" -DCMAKE_C_COMPILER="$CC_FUZZ" -DCMAKE_BUILD_TYPE=None >/dev/null || exit 1
cmake --build "$B" -j "$JOBS" >"$B/build.log" 2>&1 || { tail -n 30 "$B/build.log"; exit 1; }
grep -E "warning:" "$B/build.log" | head -n 20
echo "fuzz: targets built with $CC_FUZZ"
