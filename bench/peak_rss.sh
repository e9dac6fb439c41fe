#!/bin/bash
# Peak memory of the whole CLI process vs --threads: prints one line per run with the
# "Maximum resident set size" that /usr/bin/time -v reports, and the wall time.
# usage: bench/peak_rss.sh VMAF_BINARY REF.yuv DIS.yuv W H [THREADS...] (default 1 2 4 8 16)
# Extra CLI arguments go in VMAF_ARGS (default: the default model, raw 8-bit 4:2:0 input).
# Reference libvmaf's CLI takes the same arguments, so it can be measured the same way.
set -u
if [ $# -lt 5 ]; then
  echo "usage: $0 VMAF_BINARY REF.yuv DIS.yuv W H [THREADS...]" >&2
  exit 2
fi
BIN=$1 R=$2 D=$3 W=$4 H=$5; shift 5
THREADS=${*:-1 2 4 8 16}
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time is needed (GNU time)" >&2; exit 2; }
for th in $THREADS; do
  out=$(/usr/bin/time -v "$BIN" -r "$R" -d "$D" -w "$W" -h "$H" -p 420 -b 8 --threads "$th" \
        ${VMAF_ARGS:-} -q -o /dev/null 2>&1 > /dev/null)
  rc=$?
  kib=$(printf '%s\n' "$out" | sed -n 's/.*Maximum resident set size (kbytes): //p')
  wall=$(printf '%s\n' "$out" | sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p')
  if [ $rc -ne 0 ] || [ -z "$kib" ]; then
    echo "threads $th: failed (exit $rc)"
    continue
  fi
  printf 'threads %2s: peak RSS %6d MiB, wall %s  (%s %sx%s)\n' "$th" $((kib / 1024)) "$wall" \
    "$(basename "$BIN")" "$W" "$H"
done
