#!/bin/sh
# VMAF_OPENCL_PROFILE=1 on PoCL: the CLI scores a clip on OpenCL with the default model and
# psnr, and at the close prints the per-operation table: it names the twins' operations, the
# pictures' upload and the host's wait, counts each frame's operations, and the scores are
# those of the same run unprofiled (and with command buffers: PoCL offers them).
# cli_profile.sh VMAF CLIPS_DIR SCRATCH_DIR
set -u
vmaf=$1; clips=$2; dir=$3
mkdir -p "$dir"
if ! "$vmaf" --opencl_list 2>/dev/null | grep -q 'Portable Computing Language'; then
  echo "SKIP: no PoCL device"; exit 77
fi
frames=6
run() { # output, env...
  out=$1; shift
  env "$@" "$vmaf" -r "$clips/boats_576x324_420p_ref.yuv" -d "$clips/boats_576x324_420p_dis.yuv" \
    -w 576 -h 324 -p 420 -b 8 --threads 1 --frame_cnt $frames --feature psnr --backend opencl \
    --json --precision max -o "$dir/$out.json" 2>"$dir/$out.err"
}
fail=0
check() { # condition text, command...
  what=$1; shift
  if "$@"; then echo "ok $what"; else echo "FAIL $what"; fail=1; fi
}
run plain VMAF_OPENCL_PROFILE=0 || { echo "FAIL the unprofiled run"; cat "$dir/plain.err"; exit 1; }
run profiled VMAF_OPENCL_PROFILE=1 || { echo "FAIL the profiled run"; cat "$dir/profiled.err"; exit 1; }
err=$dir/profiled.err
check "the unprofiled run prints no profile" sh -c "! grep -q 'opencl profile' '$dir/plain.err'"
check "the table's title counts $frames frames" grep -q "^opencl profile: $frames frames, enqueued op by op" "$err"
for op in 'vif scale 0' 'vif download' 'adm dwt0' 'adm download' 'motion sad' 'psnr sse'; do
  check "device operation '$op', once a frame" grep -Eq "^  device $op +$frames " "$err"
done
check "the upload line" grep -Eq "^  upload pictures +$frames " "$err"
for phase in submit wait collect; do
  check "the host's $phase" grep -Eq "^  host +$phase +$frames " "$err"
done
# device operations by total time: each row's total no more than the one above it
check "rows by total time" sh -c "grep '^  device ' '$err' | grep -v '(all operations' |
  awk '{ t = \$(NF - 1) + 0; if (NR > 1 && t > prev) bad = 1; prev = t } END { exit bad }'"
check "the same scores" sh -c "grep -v '\"fps\"' '$dir/plain.json' > '$dir/plain.scores' &&
  grep -v '\"fps\"' '$dir/profiled.json' > '$dir/profiled.scores' &&
  cmp '$dir/plain.scores' '$dir/profiled.scores'"
# a ladder of three rungs on the one state: the reference crosses the bus once a frame
ladder_err=$dir/ladder.err
VMAF_OPENCL_PROFILE=1 "$vmaf" -r "$clips/boats_576x324_420p_ref.yuv" \
  -d "$clips/boats_576x324_420p_dis.yuv" -d "$clips/boats_576x324_420p_ref.yuv" \
  -d "$clips/boats_576x324_420p_dis.yuv" -w 576 -h 324 -p 420 -b 8 --threads 1 \
  --frame_cnt $frames --feature psnr --backend opencl --json --precision max \
  -o "$dir/ladder_{n}.json" 2>"$ladder_err" || { echo "FAIL the ladder run"; cat "$ladder_err"; exit 1; }
check "the ladder's three backends share one reference" \
  grep -q "^opencl shared reference: $frames frames written for 3 contexts" "$ladder_err"
check "the ladder's first rung scores as the single run" sh -c "grep -v '\"fps\"' '$dir/ladder_1.json' |
  cmp - '$dir/plain.scores'"
if [ $fail != 0 ]; then cat "$err" "$ladder_err"; fi
exit $fail
