#!/bin/sh
# VMAF_CUDA_PROFILE=1 on the CLI: the phase line (phases and a total), the wall clock line, the
# frames line (each of the first 16 frames after the first, then the steady rate over the
# rest), the readers' line;
# and the same output file as without it (profiling must not change what is scored). Runs on
# whatever backend the machine has (the CPU path here and in CI).
# Usage: cli_profile.sh VMAF CLIPS_DIR SCRATCH_DIR
set -u
VMAF=$1; CLIPS=$2; T=$3
rm -rf "$T"; mkdir -p "$T"
ARGS="-r $CLIPS/boats_576x324_420p_ref.yuv -d $CLIPS/boats_576x324_420p_dis.yuv -w 576 -h 324
      -p 420 -b 8 --model version=vmaf_v0.6.1 --threads 2 -q --json"
fails=0
check() { # NAME CONDITION...
  name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
# shellcheck disable=SC2086
"$VMAF" $ARGS -o "$T/plain.json" 2> "$T/plain.err"
check "plain run exits 0" [ $? -eq 0 ]
t0=$(date +%s.%N)
# shellcheck disable=SC2086
VMAF_CUDA_PROFILE=1 "$VMAF" $ARGS -o "$T/profiled.json" 2> "$T/profiled.err"
check "profiled run exits 0" [ $? -eq 0 ]
t1=$(date +%s.%N)
# the same output but for the measured speed
grep -v '"fps"' "$T/plain.json" > "$T/plain.nofps"
grep -v '"fps"' "$T/profiled.json" > "$T/profiled.nofps"
check "same output with and without the profile (but fps)" cmp -s "$T/plain.nofps" "$T/profiled.nofps"
check "the output has scores" grep -q '"vmaf"' "$T/plain.nofps"
check "no profile lines without VMAF_CUDA_PROFILE" sh -c "! grep -q '^cli ' '$T/plain.err'"
check "phase line with a total" grep -Eq '^cli phases .*first frame read [0-9.]+.*; total [0-9.]+ ms$' "$T/profiled.err"
# 24 frames: 15 intervals after the first frame, then frames 16-23
frames=$(grep '^cli frames' "$T/profiled.err")
n=$(echo "$frames" | sed 's/;.*//; s/^[^:]*://' | wc -w)
check "15 early frame times (got $n)" [ "$n" -eq 15 ]
check "steady rate over frames 16-23" sh -c "echo '$frames' | grep -Eq 'frames 16-23: [0-9.]+ ms each$'"
# the wall clock line: main entered and the phases printed within the process's lifetime
num='\([0-9.]*\)'
clock=$(sed -n "s/^cli clock (CLOCK_REALTIME, s): main entered $num, phases printed $num\$/\\1 \\2/p" \
        "$T/profiled.err")
in_order='NF == 4 && $1 <= $2 && $2 <= $3 && $3 <= $4 { ok = 1 } END { exit !ok }'
check "clock line inside the process's run ($t0 <= $clock <= $t1)" \
  sh -c "echo '$t0 $clock $t1' | awk '$in_order'"
check "readers line" grep -Eq '^cli readers: [0-9]+ workers, [0-9]+ frames ahead' "$T/profiled.err"
# a single frame: no frames line (nothing to time between frames)
# shellcheck disable=SC2086
VMAF_CUDA_PROFILE=1 "$VMAF" $ARGS --frame_cnt 1 -o "$T/one.json" 2> "$T/one.err"
check "one frame: exits 0" [ $? -eq 0 ]
check "one frame: no frames line" sh -c "! grep -q '^cli frames' '$T/one.err'"
[ $fails -eq 0 ] && echo "cli_profile: all passed" || echo "cli_profile: $fails failed"
[ $fails -eq 0 ]
