#!/bin/sh
# A report of 100,000 frames: made by vmaf --report-from from a synthetic JSON output file
# (five metrics, a few deep drops) in under 2 s and under 2 MB, every curve decimated by the
# documented rule with every worst frame kept (report_tool.py check); its peak memory beyond
# that of a 10-frame report under MEM_FACTOR times the JSON file's size (the frames are read
# as the file is parsed, never held as a tree, which took about 6 times).
# Usage: report_large.sh VMAF SCRATCH_DIR [LIMIT_MS [MEM_FACTOR]] (2000 and 2; the sanitized
# build's time is larger, and its memory not checked: MEM_FACTOR 0)
set -u
VMAF=$1; T=$2; LIMIT=${3:-2000}; MEM=${4:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$T"; mkdir -p "$T"
python3 "$HERE/report_tool.py" synth "$T/big.json" 100000 || { echo "FAIL synth"; exit 1; }
t0=$(date +%s%N)
"$VMAF" --report-from "$T/big.json" -o "$T/big.html" --report-fps 25 || { echo "FAIL vmaf exited $?"; exit 1; }
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 )); bytes=$(wc -c < "$T/big.html")
echo "100000 frames ($(wc -c < "$T/big.json") bytes of JSON): report in $ms ms, $bytes bytes"
fails=0
[ "$ms" -lt "$LIMIT" ] || { echo "FAIL slower than $LIMIT ms"; fails=1; }
[ "$bytes" -lt 2000000 ] || { echo "FAIL larger than 2 MB"; fails=1; }
python3 "$HERE/report_tool.py" check "$T/big.html" --fps 25/1 "$T/big.json" || fails=1
if [ "$MEM" -gt 0 ]; then
  python3 "$HERE/report_tool.py" synth "$T/small.json" 10
  small=$(python3 "$HERE/report_tool.py" peak "$VMAF" --report-from "$T/small.json" -o "$T/small.html" | tail -n 1)
  big=$(python3 "$HERE/report_tool.py" peak "$VMAF" --report-from "$T/big.json" -o "$T/big2.html" | tail -n 1)
  json_kib=$(( $(wc -c < "$T/big.json") / 1024 ))
  echo "peak memory: $big KiB (10 frames: $small KiB), the JSON file $json_kib KiB"
  [ $((big - small)) -lt $((MEM * json_kib)) ] ||
    { echo "FAIL the report took $((big - small)) KiB more than a 10-frame one, over $MEM times the file"; fails=1; }
fi
[ $fails -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fails
