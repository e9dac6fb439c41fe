#!/bin/sh
# --batch FILE: good and bad jobs in one process. Each good job's output equals its single run
# (but the fps), jobs sharing a reference and options scored as one ladder, each bad job fails
# alone with a message naming its line, the exit status counts the failed jobs.
#   batch_test.sh VMAF MAKE_RENDITIONS CLIPS_DIR SCRATCH_DIR
set -u
VMAF=$1; MAKE=$2; CLIPS=$3; T=$4
rm -rf "$T"; mkdir -p "$T/in" "$T/single" "$T/out" || exit 2
F=279936; N=5 # boats, 5 frames
FC=101376; NC=5 # cups 4:4:4 (a plane), 5 frames
head -c $((F * N)) "$CLIPS/boats_576x324_420p_ref.yuv" > "$T/in/ref.yuv"
head -c $((F * N)) "$CLIPS/boats_576x324_420p_dis.yuv" > "$T/in/dis.yuv"
head -c $((FC * 3 * NC)) "$CLIPS/cups_352x288_444p_ref.yuv" > "$T/in/cref.yuv"
head -c $((FC * 3 * NC)) "$CLIPS/cups_352x288_444p_dis.yuv" > "$T/in/cdis.yuv"
"$MAKE" "$T/in/dis.yuv" 576 324 420 8 $N "$T/in/blur.yuv" "$T/in/noise.yuv" "$T/in/quant.yuv" \
  || exit 2
mkdir -p "$T/in/with space" && cp "$T/in/quant.yuv" "$T/in/with space/q.yuv"
B="-w 576 -h 324 -p 420 -b 8"
C="-w 352 -h 288 -p 444 -b 8"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
nofps() { sed 's/^  "fps": .*,$/  "fps": (fps),/' "$1"; }

cat > "$T/jobs.txt" << EOF
# boats: three renditions with the default model (one ladder), one with psnr (alone)
$T/in/ref.yuv $T/in/dis.yuv $T/out/dis.json $B
$T/in/ref.yuv $T/in/blur.yuv $T/out/blur.json $B
$T/in/ref.yuv $T/in/nosuch.yuv $T/out/nosuch.json $B

$T/in/ref.yuv $T/in/noise.yuv $T/out/noise_psnr.json $B --feature psnr
$T/in/ref.yuv '$T/in/with space/q.yuv' "$T/out/q s.json" $B   # quoted words
$T/in/cref.yuv $T/in/cdis.yuv $T/out/cups.json $C --feature psnr --threads 2
$T/in/cref.yuv $T/in/cdis.yuv $T/out/bad_option.json $C --feature psnr=nosuch_value:x
$T/in/cref.yuv $T/in/dis.yuv $T/out/bad_geometry.json $C
just two
'unterminated quote
EOF
"$VMAF" --batch "$T/jobs.txt" --json --precision max -q > "$T/stdout" 2> "$T/stderr"
rc=$?
[ $rc -eq 5 ] || fail "exit $rc, 5 (the failed jobs) expected"
for line in 4 9 10 11 12; do
  grep -q "line $line" "$T/stderr" || fail "no message naming line $line"
done
grep -q "5 jobs failed, 5 scored" "$T/stderr" || fail "no summary: $(tail -n 1 "$T/stderr")"
for bad in nosuch bad_option bad_geometry; do
  [ ! -e "$T/out/$bad.json" ] || fail "$bad.json written for a failed job"
done

# the good ones: as their single runs
single() { # REF DIS OUT ARGS...
  r=$1; d=$2; o=$3; shift 3
  "$VMAF" -r "$r" -d "$d" "$@" --json --precision max -q -o "$T/single/$o" 2>/dev/null \
    || fail "single run $o failed"
  if [ ! -e "$T/out/$o" ]; then fail "no batch output $o"; return; fi
  nofps "$T/out/$o" > "$T/a"; nofps "$T/single/$o" > "$T/b"
  cmp -s "$T/a" "$T/b" || { fail "$o differs from its single run"; diff "$T/a" "$T/b" | head -5; }
}
single "$T/in/ref.yuv" "$T/in/dis.yuv" dis.json $B
single "$T/in/ref.yuv" "$T/in/blur.yuv" blur.json $B
single "$T/in/ref.yuv" "$T/in/noise.yuv" noise_psnr.json $B --feature psnr
single "$T/in/ref.yuv" "$T/in/with space/q.yuv" "q s.json" $B
single "$T/in/cref.yuv" "$T/in/cdis.yuv" cups.json $C --feature psnr --threads 2
cmp -s "$T/out/dis.json" "$T/out/blur.json" && fail "two renditions gave one file"

# a batch file that cannot be read: one message, the setup status
"$VMAF" --batch "$T/none.txt" -q 2> "$T/stderr"; rc=$?
[ $rc -eq 255 ] || fail "missing batch file: exit $rc, 255 expected"
# --batch with -r: a usage error
"$VMAF" --batch "$T/jobs.txt" -r "$T/in/ref.yuv" 2> "$T/stderr"; rc=$?
[ $rc -eq 1 ] || fail "--batch with -r: exit $rc, 1 expected"

if [ $fails -ne 0 ]; then echo "batch: $fails failed"; cat "$T/stderr"; exit 1; fi
echo "batch: every check passed"
