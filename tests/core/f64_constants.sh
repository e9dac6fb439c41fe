#!/bin/sh
# Every double constant written VMAF_DCONST(literal, bits) or VMAF_DCONST_INIT(literal, bits)
# in src/ (feature/f64.h: the literal in C, CUDA and native OpenCL; the bit pattern on the
# software double) names the bits the C compiler gives the literal, so both forms are the same
# value. Generates a C program with one check per pair, builds it with CC and runs it; a pair
# whose bits differ fails the test, naming its file and line. With --self-test, a deliberately
# wrong pair is added and the run must fail.
#   f64_constants.sh ROOT CC [--self-test]
set -u
root=$1 cc=$2 self=${3:-}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
gen=$work/check.c
{
  cat <<'HEAD'
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
static int fails, checks;
static void check(double v, uint64_t bits, const char *where, const char *text)
{
    uint64_t u;
    memcpy(&u, &v, sizeof(u));
    checks++;
    if (u != bits) {
        fails++;
        printf("FAIL: %s: %s is 0x%016" PRIx64 ", not 0x%016" PRIx64 "\n", where, text, u, bits);
    }
}
int main(void)
{
HEAD
  # one pair per match; the literal may not hold a comma or parenthesis (a plain constant)
  grep -rnoE 'VMAF_DCONST(_INIT)?\(\s*[^,()]+,\s*0[xX][0-9a-fA-F]+\s*\)' "$root/src" --include='*.h' \
       --include='*.c' --include='*.cl' --include='*.clh' --include='*.cu' --include='*.cuh' |
    grep -v 'define VMAF_DCONST' |
    sed -E 's@^([^:]+):([0-9]+):VMAF_DCONST(_INIT)?\(\s*([^,]+),\s*(0[xX][0-9a-fA-F]+)\s*\)$@    check((double)(\4), (uint64_t)\5u, "\1:\2", "\4");@' |
    sed "s@\"$root/@\"@"
  if [ "$self" = --self-test ]; then
    echo '    check((double)(0.1), (uint64_t)0x3fb999999999999bu, "self-test", "0.1 (one ulp off)");'
  fi
  printf '%s\n' '    printf("%d double constants checked, %d wrong\n", checks, fails);'
  echo '    return fails != 0;'
  echo '}'
} >"$gen"
# every use must have been understood: a literal the pattern does not take is an error
uses=$(grep -rnoE 'VMAF_DCONST(_INIT)?\(' "$root/src" --include='*.h' --include='*.c' --include='*.cl' \
       --include='*.clh' --include='*.cu' --include='*.cuh' | grep -v 'f64.h:' | wc -l)
taken=$(grep -c '^    check((double)' "$gen")
[ "$self" = --self-test ] && taken=$((taken - 1))
if [ "$uses" -ne "$taken" ]; then
  echo "FAIL: $uses VMAF_DCONST uses in src/, $taken of the form (plain-literal, 0xbits)"
  exit 1
fi
"$cc" -std=c11 -ffp-contract=off -o "$work/check" "$gen" || { echo "FAIL: the generated check does not build"; exit 1; }
"$work/check"
