#!/bin/sh
# Every file the vmaf CLI writes goes through one writer (src/file_write.c): the score file of
# a run (-o), a segment result (--segment), a merged output (--merge) and cambi's heatmaps.
#  1. An output that is not a regular file (a character device, a FIFO) is written in place,
#     never replaced.
#  2. A signal during a write, or during the start-up check of -o, leaves no temporary file;
#     past the file size limit (ulimit -f) the run says so and exits 255, nothing left.
#  3. An output that is one of the inputs (through a symbolic or a hard link) is refused
#     before any frame; a merge output that is one of its parts likewise.
#  4. A cambi heatmap name that is a link (to an input or elsewhere) is refused, never
#     followed: the file it points to is intact.
# Usage: cli_writers.sh VMAF CLIPS_DIR SCRATCH_DIR [SIGNAL_SHIM]
set -u
VMAF=$1; CLIPS=$2; T=$3; SHIM=${4:-}
rm -rf "$T"; mkdir -p "$T"
GEO="-w 576 -h 324 -p 420 -b 8"
FRAME=279936
fails=0; cases=0

ok() { cases=$((cases + 1)); echo "ok   $1"; }
fail() { cases=$((cases + 1)); fails=$((fails + 1)); echo "FAIL $1"; [ -s "$T/err" ] && sed 's/^/     /' "$T/err"; }
no_temp() { ! ls "$1".tmp* >/dev/null 2>&1; }
# the content of a file without what differs from run to run (fps, a segment's CPU time)
stable() { grep -v -e fps -e cpu_seconds "$1"; }
same() { [ -s "$1" ] && [ -s "$2" ] && [ "$(stable "$1")" = "$(stable "$2")" ]; }

head -c $((FRAME * 3)) "$CLIPS/boats_576x324_420p_ref.yuv" > "$T/ref.yuv"
head -c $((FRAME * 3)) "$CLIPS/boats_576x324_420p_dis.yuv" > "$T/dis.yuv"
cp "$T/ref.yuv" "$T/ref.orig"
RUN="-r $T/ref.yuv -d $T/dis.yuv $GEO --feature psnr --json"

# what each writer writes to a regular file
"$VMAF" $RUN -o "$T/plain.json" 2>"$T/err" || fail "plain run"
"$VMAF" $RUN --segment 0:2 -o "$T/p0.json" 2>"$T/err" || fail "segment 0:2"
"$VMAF" $RUN --segment 2:3 -o "$T/p1.json" 2>"$T/err" || fail "segment 2:3"
"$VMAF" --merge "$T/p0.json" "$T/p1.json" --json -o "$T/merged.json" 2>"$T/err" || fail "merge"
same "$T/plain.json" "$T/merged.json" || fail "merge: not the plain run's output"
cp "$T/p0.json" "$T/p0.orig"

# write MODE OUT: the writer MODE (plain, segment, merge) to OUT
write() {
  case $1 in
    plain) "$VMAF" $RUN -o "$2" ;;
    segment) "$VMAF" $RUN --segment 0:2 -o "$2" ;;
    merge) "$VMAF" --merge "$T/p0.json" "$T/p1.json" --json -o "$2" ;;
  esac
}
expected() { case $1 in plain) echo "$T/plain.json" ;; segment) echo "$T/p0.json" ;; merge) echo "$T/merged.json" ;; esac; }

# 1. non-regular outputs: a character device (a null device node of our own as root, else
# /dev/null itself) and a FIFO with a reader
if [ "$(id -u)" = 0 ] && mknod "$T/null" c 1 3 2>/dev/null; then NULLDEV=$T/null; else NULLDEV=/dev/null; fi
for mode in plain segment merge; do
  write $mode "$NULLDEV" 2>"$T/err"; rc=$?
  if [ $rc -eq 0 ] && [ -c "$NULLDEV" ] && no_temp "$NULLDEV"; then
    ok "$mode -o $NULLDEV (a character device): written, still the device"
  else
    fail "$mode -o $NULLDEV: exit $rc, now $(ls -l "$NULLDEV" 2>&1)"
  fi
  rm -f "$T/fifo" "$T/fifo.out"; mkfifo "$T/fifo"
  cat "$T/fifo" > "$T/fifo.out" & reader=$!
  write $mode "$T/fifo" 2>"$T/err"; rc=$?
  if [ -p "$T/fifo" ] && [ $rc -eq 0 ]; then wait $reader; else kill $reader 2>/dev/null; wait $reader 2>/dev/null; fi
  if [ $rc -eq 0 ] && [ -p "$T/fifo" ] && no_temp "$T/fifo" && same "$T/fifo.out" "$(expected $mode)"; then
    ok "$mode -o FIFO: the reader got the whole output, still a FIFO"
  else
    fail "$mode -o FIFO: exit $rc, $(ls -l "$T/fifo" 2>&1), reader got $(wc -c < "$T/fifo.out") bytes"
  fi
done

# 2. signals (raised by the shim at the exact moment) and the file size limit
if [ -n "$SHIM" ] && [ -f "$SHIM" ]; then
  for sig in 2 15 1; do
    for mode in segment merge plain; do
      rm -f "$T"/sig.json*
      (export LD_PRELOAD="$SHIM" VMAF_TEST_SIGNAL_IN_RENAME=$sig \
         ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"; write $mode "$T/sig.json") 2>"$T/err"; rc=$?
      if [ $rc -eq $((128 + sig)) ] && no_temp "$T/sig.json" && same "$T/sig.json" "$(expected $mode)"; then
        ok "$mode: signal $sig while the output is put in place (exit $rc): output whole, no temporary file"
      else
        fail "$mode: signal $sig while the output is put in place: exit $rc, files: $(ls "$T" | grep sig.json | tr '\n' ' ')"
      fi
    done
  done
  for mode in plain segment merge; do
    rm -f "$T"/sig.json*
    (export LD_PRELOAD="$SHIM" VMAF_TEST_SIGNAL_IN_UNLINK=2 \
     ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"; write $mode "$T/sig.json") 2>"$T/err"; rc=$?
    if [ $rc -eq 130 ] && no_temp "$T/sig.json" && [ ! -e "$T/sig.json" ]; then
      ok "$mode: SIGINT during the start-up check of -o (exit $rc): nothing left"
    else
      fail "$mode: SIGINT during the start-up check of -o: exit $rc, files: $(ls "$T" | grep sig.json | tr '\n' ' ')"
    fi
  done
else
  echo "skip signals: no signal shim given"
fi
# ulimit -f counts 512-byte blocks in sh (dash) and 1024 in bash: every output here is larger
for mode in plain segment merge; do
  rm -f "$T"/big.json*
  (ulimit -f 1 && write $mode "$T/big.json") 2>"$T/err"; rc=$?
  if [ $rc -eq 255 ] && grep -q 'File too large' "$T/err" && [ ! -e "$T/big.json" ] && no_temp "$T/big.json"; then
    ok "$mode under ulimit -f 1 (exit $rc): $(head -n 1 "$T/err")"
  else
    fail "$mode under ulimit -f 1: exit $rc (want 255 and a message), files: $(ls "$T" | grep big.json | tr '\n' ' ')"
  fi
done

# 3. an output that is an input. A distorted input whose first frame cannot be read shows
# the refusal comes before any frame (else its read error would).
Y4M_HEADER='YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420jpeg'
echo "$Y4M_HEADER" > "$T/ref.y4m"
for i in 0 1 2; do printf 'FRAME\n' >> "$T/ref.y4m"; dd if="$T/ref.yuv" bs=$FRAME skip=$i count=1 2>/dev/null >> "$T/ref.y4m"; done
{ echo "$Y4M_HEADER"; echo FRAMX; } > "$T/bad.y4m"; head -c $FRAME "$T/dis.yuv" >> "$T/bad.y4m"
cp "$T/ref.y4m" "$T/ref.y4m.orig"
ln -s "$T/ref.y4m" "$T/ref_symlink.json"
ln "$T/ref.y4m" "$T/ref_hardlink.json"
ln -s "$T/p0.json" "$T/p0_symlink.json"
ln "$T/p0.json" "$T/p0_hardlink.json"
"$VMAF" -r "$T/ref.y4m" -d "$T/bad.y4m" -n --feature psnr -o "$T/x.json" >/dev/null 2>&1; bad_rc=$?
[ $bad_rc -ne 0 ] && [ $bad_rc -ne 255 ] || fail "the unreadable first frame exits $bad_rc, not a read error"
for link in symlink hardlink; do
  for mode in plain segment; do
    seg=""; [ $mode = segment ] && seg="--segment 0:2"
    "$VMAF" -r "$T/ref.y4m" -d "$T/bad.y4m" -n --feature psnr $seg --json -o "$T/ref_$link.json" 2>"$T/err"; rc=$?
    if [ $rc -eq 255 ] && grep -q 'refusing' "$T/err" && cmp -s "$T/ref.y4m" "$T/ref.y4m.orig" && no_temp "$T/ref_$link.json"; then
      ok "$mode -o the reference through a $link: refused before any frame (exit $rc)"
    else
      fail "$mode -o the reference through a $link: exit $rc, reference $(cmp -s "$T/ref.y4m" "$T/ref.y4m.orig" && echo intact || echo CHANGED)"
    fi
  done
  "$VMAF" --merge "$T/p0.json" "$T/p1.json" --json -o "$T/p0_$link.json" 2>"$T/err"; rc=$?
  if [ $rc -eq 255 ] && grep -q 'refusing' "$T/err" && cmp -s "$T/p0.json" "$T/p0.orig" && no_temp "$T/p0_$link.json"; then
    ok "merge -o a part through a $link: refused (exit $rc)"
  else
    fail "merge -o a part through a $link: exit $rc, part $(cmp -s "$T/p0.json" "$T/p0.orig" && echo intact || echo CHANGED)"
  fi
done

# 4. cambi heatmaps: a symbolic link to the reference, a hard link to it (the CLI names the
# input), a symbolic or hard link elsewhere (the library refuses them without knowing the
# inputs), a FIFO (a timeout: one
# opened as a heatmap would wait for a reader for ever)
HM=cambi_heatmap_scale_0_576x324_16b.gray
echo "not a heatmap" > "$T/victim"
for kind in symlink hardlink symlink_elsewhere hardlink_elsewhere fifo; do
  rm -rf "$T/hm"; mkdir "$T/hm"
  case $kind in
    symlink) ln -s "$T/ref.yuv" "$T/hm/$HM" ;;
    hardlink) ln "$T/ref.yuv" "$T/hm/$HM" ;;
    symlink_elsewhere) ln -s "$T/victim" "$T/hm/$HM" ;;
    hardlink_elsewhere) ln "$T/victim" "$T/hm/$HM" ;;
    fifo) mkfifo "$T/hm/$HM" ;;
  esac
  rm -f "$T/hm.json"
  timeout 20 "$VMAF" -r "$T/ref.yuv" -d "$T/dis.yuv" $GEO -n --feature cambi=heatmaps_path=$T/hm -o "$T/hm.json" 2>"$T/err"; rc=$?
  if [ $rc -ne 0 ] && [ -s "$T/err" ] && [ ! -e "$T/hm.json" ] && cmp -s "$T/ref.yuv" "$T/ref.orig" &&
     [ "$(cat "$T/victim")" = "not a heatmap" ]; then
    ok "cambi heatmap name that is a $kind: refused (exit $rc): $(head -n 1 "$T/err")"
  else
    fail "cambi heatmap name that is a $kind: exit $rc, reference $(cmp -s "$T/ref.yuv" "$T/ref.orig" && echo intact || echo CHANGED)"
    cp "$T/ref.orig" "$T/ref.yuv"
  fi
done

echo "$((cases - fails))/$cases passed"
[ $fails -eq 0 ]
