#!/bin/sh
# Every float division and square root that OpenCL kernel code evaluates goes through
# vmaf_fdiv / vmaf_fsqrt (feature/dialect.h), so that a device without correctly rounded fp32
# division and sqrt computes them exactly through double. Checked on clang's AST, not by
# reading: each shared header of src/feature/ and src/feature/twins/ that builds as OpenCL C,
# and each program src/feature/opencl/*.cl (with the headers and .clh it includes, and the
# macros it expands), is parsed as OpenCL C 1.2 with -D VMAF_OPENCL_DIV_VIA_DOUBLE=1; then no
# `/` or `/=` of a float type, and no sqrt (or native_/half_ division, root or reciprocal) of
# one, may remain. Integer and double divisions are not matched. Needs clang-query (skip 77
# without it).
#   fdiv_sites.sh SRC_DIR INCLUDE_DIR
set -u
src=$1
inc=$2
query=
for q in clang-query clang-query-18 clang-query-17 clang-query-16 clang-query-15 clang-query-14; do
  if command -v "$q" >/dev/null 2>&1; then query=$q; break; fi
done
if [ -z "$query" ]; then
  echo "SKIP: no clang-query (apt-get install clang-tools)"
  exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/queries" <<'EOF'
set output diag
match binaryOperator(hasOperatorName("/"), unless(hasType(isInteger())), unless(hasType(hasCanonicalType(asString("double")))))
match binaryOperator(hasOperatorName("/="), unless(hasType(isInteger())), unless(hasType(hasCanonicalType(asString("double")))))
match callExpr(callee(functionDecl(hasAnyName("sqrt", "sqrtf", "rsqrt", "native_sqrt", "half_sqrt", "native_rsqrt", "half_rsqrt", "native_divide", "half_divide", "native_recip", "half_recip"))), unless(hasType(hasCanonicalType(asString("double")))))
EOF
flags="-x cl -cl-std=CL1.2 -Xclang -finclude-default-header -Xclang -cl-ext=+cl_khr_fp64
       -D VMAF_OPENCL_DIV_VIA_DOUBLE=1 -I $src -I $inc"
# a canary: the check must see a float division where there is one
printf '#include "feature/dialect.h"\nfloat canary(float a, float b) { return a / b; }\n' \
  >"$tmp/canary.cl"
# shellcheck disable=SC2086
if ! "$query" -f "$tmp/queries" "$tmp/canary.cl" -- $flags 2>&1 | grep -q 'binds here'; then
  echo "FAIL: $query does not see the canary's float division"
  exit 1
fi
units=0
bad=0
for h in "$src"/feature/*.h "$src"/feature/twins/*.h "$src"/feature/opencl/*.cl; do
  [ -e "$h" ] || continue
  rel=${h#"$src"/}
  case $rel in
    *.cl) unit=$h ;;
    *)
      unit=$tmp/unit.cl
      printf '#pragma OPENCL FP_CONTRACT OFF\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#include "%s"\n' \
        "$rel" >"$unit"
      ;;
  esac
  # shellcheck disable=SC2086
  "$query" -f "$tmp/queries" "$unit" -- $flags >"$tmp/out" 2>&1
  if grep -q 'error:' "$tmp/out"; then
    case $rel in
      *.cl)
        echo "FAIL: $rel does not parse as OpenCL C:"
        grep -m 5 'error:' "$tmp/out"
        bad=1
        ;;
      # the host's headers (x86 intrinsics, extractor states) are no kernel code
      *) ;;
    esac
    continue
  fi
  units=$((units + 1))
  # each match with its source line, and the macro it was expanded from
  grep -A 1 -E 'binds here|expanded from macro' "$tmp/out" | grep -v '^--$' >>"$tmp/found"
done
if [ -s "$tmp/found" ]; then
  echo "FAIL: float division or sqrt outside vmaf_fdiv / vmaf_fsqrt (feature/dialect.h):"
  # one line per location and its source line, each once
  sed "s|$src/||; s|: note: \"root\" binds here||; s|: note: expanded from macro|: in macro|" \
    "$tmp/found" | paste -d ' ' - - | awk '!seen[$0]++'
  bad=1
fi
echo "$units units parsed as OpenCL C with $query; $([ -s "$tmp/found" ] && echo "float divisions or roots found" || echo "no float division or sqrt outside vmaf_fdiv / vmaf_fsqrt")"
exit $bad
