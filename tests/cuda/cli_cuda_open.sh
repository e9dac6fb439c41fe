#!/bin/sh
# The CLI when the device is there but its context cannot be made, against the mock driver
# (tests/cuda/mock_cuda.c with MOCK_CUDA_RETAIN_FAIL): --backend cuda opens asynchronously and so
# fails at the first frame with the read error's status (-EIO: 251), saying why, leaving no
# output; --backend auto opens synchronously and falls back to the CPU path, whose output it
# writes unchanged (but for its fps line). Usage: cli_cuda_open.sh VMAF MOCK_DIR CLIPS_DIR SCRATCH_DIR
set -u
VMAF=$1; MOCK=$2; CLIPS=$3; T=$4
rm -rf "$T"; mkdir -p "$T"
ARGS="-r $CLIPS/boats_576x324_420p_ref.yuv -d $CLIPS/boats_576x324_420p_dis.yuv -w 576 -h 324 -p 420 -b 8 --json -q"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
# shellcheck disable=SC2086
"$VMAF" $ARGS --backend cpu -o "$T/cpu.json" 2> "$T/err" || fail "cpu run: $(cat "$T/err")"

MOCK_CUDA_RETAIN_FAIL=1 LD_LIBRARY_PATH=$MOCK "$VMAF" $ARGS --backend cuda -o "$T/cuda.json" 2> "$T/err"
rc=$?
[ $rc -eq 251 ] || fail "--backend cuda: exit $rc, not 251"
grep -q "could not open CUDA device 0" "$T/err" || fail "--backend cuda: no reason given: $(cat "$T/err")"
[ "$(wc -l < "$T/err")" -le 4 ] || fail "--backend cuda: $(wc -l < "$T/err") lines of messages"
[ "$(grep -c "could not pin" "$T/err")" -eq 1 ] || fail "--backend cuda: the pinning failure not said once"
[ ! -e "$T/cuda.json" ] || fail "--backend cuda: output left behind"

MOCK_CUDA_RETAIN_FAIL=1 LD_LIBRARY_PATH=$MOCK "$VMAF" $ARGS --backend auto -o "$T/auto.json" 2> "$T/err"
rc=$?
[ $rc -eq 0 ] || fail "--backend auto: exit $rc: $(cat "$T/err")"
grep -q "cuDevicePrimaryCtxRetain" "$T/err" || fail "--backend auto: the driver's error not shown"
grep -v '"fps"' "$T/cpu.json" > "$T/cpu.txt"
grep -v '"fps"' "$T/auto.json" > "$T/auto.txt" 2> /dev/null
[ -s "$T/cpu.txt" ] && cmp -s "$T/cpu.txt" "$T/auto.txt" || fail "--backend auto: output differs from the CPU path's"
[ $fails -eq 0 ] && echo "cli_cuda_open: 3 runs as expected"
exit $((fails != 0))
