#!/bin/sh
# Make sure clang with its libFuzzer runtime is there for the fuzz targets: installs Debian's
# clang-14 + libclang-rt-14-dev with apt-get when run as root and they are missing. Called by
# .ci/run and `make fuzz`; without root (or apt-get) it only reports, and the fuzz tests skip.
set -u
have_fuzzer() {
  for cc in clang clang-14; do
    command -v "$cc" >/dev/null 2>&1 || continue
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > /tmp/twin_vmaf_fuzz_probe.c
    if "$cc" -fsanitize=fuzzer,address,undefined /tmp/twin_vmaf_fuzz_probe.c -o /tmp/twin_vmaf_fuzz_probe 2>/dev/null; then
      rm -f /tmp/twin_vmaf_fuzz_probe /tmp/twin_vmaf_fuzz_probe.c
      return 0
    fi
  done
  rm -f /tmp/twin_vmaf_fuzz_probe.c
  return 1
}
if have_fuzzer; then echo "fuzz setup: clang with libFuzzer found"; exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "fuzz setup: installing clang-14 and libclang-rt-14-dev"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang-14 libclang-rt-14-dev >/dev/null ||
    { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang-14 libclang-rt-14-dev >/dev/null; }
  have_fuzzer && { echo "fuzz setup: done"; exit 0; }
fi
echo "fuzz setup: no clang with libFuzzer; the fuzz tests will be skipped"
exit 0
