#!/bin/sh
# The CLI's parallel reader stopping on a bad frame must give back every pool picture its
# workers fetched ahead (frames whose tasks the stop cut short, some already failed), on
# every run: the race shows only now and then, so the case runs RUNS times (ASan build: a
# leak is LeakSanitizer's report and its exit status).
# Usage: cli_reader_leak.sh VMAF SCRATCH_DIR [RUNS]
set -u
VMAF=$1; T=$2; RUNS=${3:-50}
rm -rf "$T"; mkdir -p "$T"
# 1280x720 10-bit 4:2:0, 10 frames: 0..2 in range, from frame 3 on a luma sample of 65535
# (above 1023) in the first row, so each later frame fails in its first task while the
# workers are still reading the rest of it, ahead of the scorer
python3 - "$T/in.yuv" <<'PY' || exit 1
import sys
w, h = 1280, 720
frame = bytearray(2 * (w * h + 2 * (w // 2) * (h // 2)))
with open(sys.argv[1], "wb") as f:
    for k in range(10):
        bad = bytearray(frame)
        if k >= 3:
            bad[0:2] = b"\xff\xff"
        f.write(bad)
PY
EINVAL_EXIT=234
fails=0
i=0
while [ $i -lt "$RUNS" ]; do
  i=$((i + 1))
  VMAF_READ_WORKERS=4 VMAF_READ_DEPTH=4 "$VMAF" -r "$T/in.yuv" -d "$T/in.yuv" \
    -w 1280 -h 720 -p 420 -b 10 -n --feature psnr >/dev/null 2>"$T/err"
  rc=$?
  if [ $rc -ne $EINVAL_EXIT ] || grep -q 'Sanitizer' "$T/err"; then
    fails=$((fails + 1))
    echo "FAIL run $i: exit $rc (want $EINVAL_EXIT)"
    grep -m 8 -E 'Sanitizer|SUMMARY|Direct leak|Indirect leak' "$T/err" | sed 's/^/     /'
  fi
done
echo "$((RUNS - fails)) of $RUNS runs clean (exit $EINVAL_EXIT: $(head -n 1 "$T/err"))"
[ $fails -eq 0 ]
