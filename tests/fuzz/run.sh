#!/bin/sh
# Run one libFuzzer target: first every committed regression input (each must pass), then a
# campaign of SECONDS on the committed seed corpus (+ EXTRA_SEEDS, read only). New inputs go
# to WORK_DIR, never into the repository. A crash fails and leaves its input in WORK_DIR.
# Exit 77 (ctest: skipped) when the target was not built (no clang).
# Usage: run.sh FUZZER SEEDS_DIR REGRESSIONS_DIR SECONDS WORK_DIR MAX_LEN [EXTRA_SEEDS...]
set -u
FUZZER=$1; SEEDS=$2; REGR=$3; SECONDS_BUDGET=$4; WORK=$5; MAX_LEN=$6; shift 6
name=$(basename "$FUZZER")
if [ ! -x "$FUZZER" ]; then echo "$name: skipped (not built: no clang with libFuzzer)"; exit 77; fi
mkdir -p "$WORK/corpus" "$WORK/artifacts"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:print_stacktrace=1:halt_on_error=1"
n_regr=0
if [ -d "$REGR" ] && [ -n "$(ls "$REGR")" ]; then
  n_regr=$(ls "$REGR" | wc -l)
  "$FUZZER" -runs=0 "$REGR"/* >"$WORK/regressions.log" 2>&1 ||
    { echo "$name: a regression input fails again:"; tail -n 40 "$WORK/regressions.log"; exit 1; }
fi
extra=
for d in "$@"; do [ -d "$d" ] && extra="$extra $d"; done
# shellcheck disable=SC2086
"$FUZZER" -max_total_time="$SECONDS_BUDGET" -max_len="$MAX_LEN" -timeout=20 -rss_limit_mb=2048 \
  -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$WORK/artifacts/" \
  "$WORK/corpus" "$SEEDS" $extra >"$WORK/fuzz.log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$WORK/fuzz.log" | tail -n 1)
corpus=$(ls "$WORK/corpus" | wc -l)
seeds=$(ls "$SEEDS" | wc -l)
crashes=$(ls "$WORK/artifacts" | wc -l)
echo "fuzz $name: ${runs:-?} executions in ${SECONDS_BUDGET} s, corpus $seeds seeds + $corpus new, $n_regr regression inputs, $crashes crashes"
if [ $rc -ne 0 ] || [ "$crashes" -ne 0 ]; then
  grep -E "ERROR|SUMMARY|runtime error|deadly signal|Test unit written" "$WORK/fuzz.log" | head -n 20
  tail -n 40 "$WORK/fuzz.log"
  exit 1
fi
