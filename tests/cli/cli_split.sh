#!/bin/sh
# vmaf --split N and --cuda_devices LIST: the title scored as N segments at once in one
# process, merged in memory; the output must be the single run's (every format and
# precision, fps aside), and so must stderr and the exit status: raw and Y4M input (sizes
# known, and Y4M whose FRAME lines must be read), inputs of different lengths, --frame_skip /
# --frame_cnt / --subsample, more segments than frames, failures in the middle of the title
# (the single run's status and message, no output file), and the refusals. --cuda_devices
# without a CUDA device must fail with one clear line; with a device, 0,0 must equal the
# single --backend cuda run.
# Usage: cli_split.sh VMAF CLIPS_DIR SCRATCH_DIR
set -u
VMAF=$1; CLIPS=$2; T=$3
rm -rf "$T"; mkdir -p "$T"
REF=$CLIPS/boats_576x324_420p_ref.yuv
DIS=$CLIPS/boats_576x324_420p_dis.yuv
GEO="-w 576 -h 324 -p 420 -b 8"
FRAME=279936
fails=0; cases=0

. "$(dirname "$0")/cases.sh"


# same_run NAME SPLIT_ARGS -- ARGS: `vmaf ARGS -o single` and `vmaf ARGS SPLIT_ARGS -o split`
# give the same exit status, the same stderr and the same file (fps aside; both absent
# when the single run writes none)
same_run() {
  name=$1; split=$2; shift 3
  rm -f "$T/a.out" "$T/b.out"
  "$VMAF" "$@" -o "$T/a.out" >/dev/null 2>"$T/a.err"; rc_a=$?
  "$VMAF" "$@" $split -o "$T/b.out" >/dev/null 2>"$T/b.err"; rc_b=$?
  grep -v 'fps' "$T/a.out" > "$T/a.cmp" 2>/dev/null; grep -v 'fps' "$T/b.out" > "$T/b.cmp" 2>/dev/null
  cp "$T/b.err" "$T/err"
  if [ $rc_a -ne $rc_b ]; then
    fail "$name: exit $rc_b, the single run $rc_a"
  elif ! cmp -s "$T/a.err" "$T/b.err"; then
    fail "$name: stderr differs from the single run's: $(head -n 1 "$T/a.err")"
  elif [ -e "$T/a.out" ] && { [ ! -s "$T/a.cmp" ] || ! cmp -s "$T/a.cmp" "$T/b.cmp"; }; then
    fail "$name: the output differs from the single run's"
  elif [ ! -e "$T/a.out" ] && [ -e "$T/b.out" ]; then
    fail "$name: an output file where the single run writes none"
  elif [ -e "$T/a.out" ] || [ $rc_a -eq 0 ]; then
    ok "$name (exit $rc_a$( [ -s "$T/a.err" ] && echo ", $(head -n 1 "$T/a.err")"))"
  else
    ok "$name (exit $rc_a, no output file: $(head -n 1 "$T/a.err"))"
  fi
}

FEAT="--feature psnr=enable_apsnr=true --feature float_motion --feature speed_temporal \
  --feature motion=motion_five_frame_window=true \
  --model version=vmaf_v0.6.1:name=vmaf --model version=vmaf_b_v0.6.3:name=boot"

# raw input, 24 frames: every format, precisions, segment counts (more than frames too)
for fmt in json xml csv sub; do
  same_run "raw, --split 4, $fmt" "--split 4" -- -r "$REF" -d "$DIS" $GEO $FEAT --threads 2 --precision max --$fmt
done
same_run "raw, --split 3, default precision (xml)" "--split 3" -- -r "$REF" -d "$DIS" $GEO $FEAT --threads 1
same_run "raw, --split 5, --precision 4" "--split 5" -- -r "$REF" -d "$DIS" $GEO $FEAT --threads 1 --precision 4 --json
for n in 1 2 23 24 64; do
  same_run "raw, --split $n (24 frames), --threads 0" "--split $n" -- -r "$REF" -d "$DIS" $GEO $FEAT --threads 0 --json --precision max
done
same_run "raw, --split 3, -n" "--split 3" -- -r "$REF" -d "$DIS" $GEO $FEAT -n --json --precision max
same_run "raw, --split 3, --subsample 3" "--split 3" -- -r "$REF" -d "$DIS" $GEO $FEAT --subsample 3 --threads 1 --json --precision max
same_run "raw, --split 4, --frame_skip_ref 2 --frame_skip_dist 1 --frame_cnt 9" "--split 4" -- \
  -r "$REF" -d "$DIS" $GEO $FEAT --frame_skip_ref 2 --frame_skip_dist 1 --frame_cnt 9 --json --precision max
same_run "raw, --split 4, --frame_skip_ref 5 (distorted longer)" "--split 4" -- \
  -r "$REF" -d "$DIS" $GEO $FEAT --frame_skip_ref 5 --threads 1 --json --precision max
same_run "raw, --split 2, --frame_skip_dist 30 (no frames)" "--split 2" -- \
  -r "$REF" -d "$DIS" $GEO $FEAT --frame_skip_dist 30 --json

# inputs of different lengths: the single run stops at the shorter one and says so
dd if="$DIS" of="$T/short.yuv" bs=$FRAME count=17 2>/dev/null
same_run "raw, distorted 17 of 24 frames, --split 3" "--split 3" -- -r "$REF" -d "$T/short.yuv" $GEO $FEAT --threads 1 --json --precision max
same_run "raw, reference 17 of 24 frames, --split 5" "--split 5" -- -r "$T/short.yuv" -d "$DIS" $GEO $FEAT --json --precision max
same_run "raw, 17 of 24 frames, --frame_cnt 17 (no message)" "--split 3" -- -r "$REF" -d "$T/short.yuv" $GEO $FEAT --frame_cnt 17 --json --precision max
same_run "raw, 17 of 24 frames, --frame_cnt 20" "--split 3" -- -r "$REF" -d "$T/short.yuv" $GEO $FEAT --frame_cnt 20 --json --precision max

# Y4M: bare FRAME lines (frames at known offsets) and FRAME lines with parameters (read)
printf 'YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420jpeg\n' > "$T/ref.y4m"
printf 'YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420jpeg\n' > "$T/dis.y4m"
printf 'YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420jpeg\n' > "$T/dis_p.y4m"
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
  printf 'FRAME\n' >> "$T/ref.y4m"; dd if="$REF" bs=$FRAME skip=$i count=1 2>/dev/null >> "$T/ref.y4m"
  printf 'FRAME\n' >> "$T/dis.y4m"; dd if="$DIS" bs=$FRAME skip=$i count=1 2>/dev/null >> "$T/dis.y4m"
  [ $i -lt 10 ] && { printf 'FRAME Ip\n' >> "$T/dis_p.y4m"; dd if="$DIS" bs=$FRAME skip=$i count=1 2>/dev/null >> "$T/dis_p.y4m"; }
done
Y4M="--feature motion=motion_five_frame_window=true --feature float_motion --feature psnr"
same_run "Y4M, --split 3" "--split 3" -- -r "$T/ref.y4m" -d "$T/dis.y4m" $Y4M --json --precision max
same_run "Y4M with FRAME parameters (10 of 12 frames), --split 4" "--split 4" -- -r "$T/ref.y4m" -d "$T/dis_p.y4m" $Y4M --json --precision max
same_run "Y4M with FRAME parameters, --frame_skip_dist 3, --split 2" "--split 2" -- -r "$T/ref.y4m" -d "$T/dis_p.y4m" $Y4M --frame_skip_dist 3 --csv

# failures in the middle: the single run's status and message, no output file
cp "$T/dis.y4m" "$T/bad.y4m"
printf 'FRAMX' | dd of="$T/bad.y4m" bs=1 seek=$((44 + 6 * (6 + FRAME))) conv=notrunc 2>/dev/null
same_run "Y4M, bad FRAME line of frame 6, --split 3" "--split 3" -- -r "$T/ref.y4m" -d "$T/bad.y4m" $Y4M --json
cp "$T/dis_p.y4m" "$T/bad_p.y4m"
printf 'FRAMX' | dd of="$T/bad_p.y4m" bs=1 seek=$((44 + 5 * (9 + FRAME))) conv=notrunc 2>/dev/null
same_run "Y4M read in order, bad FRAME line of frame 5, --split 4" "--split 4" -- -r "$T/ref.y4m" -d "$T/bad_p.y4m" $Y4M --json
R10=$CLIPS/forest_576x324_420p10_ref.yuv; D10=$CLIPS/forest_576x324_420p10_dis.yuv
cp "$D10" "$T/bad10.yuv"
printf '\377\377' | dd of="$T/bad10.yuv" bs=1 seek=$((14 * FRAME * 2 + 1000)) conv=notrunc 2>/dev/null
same_run "10-bit raw, a sample above 1023 in frame 14, --split 5" "--split 5" -- \
  -r "$R10" -d "$T/bad10.yuv" -w 576 -h 324 -p 420 -b 10 --feature psnr --threads 1 --json
same_run "10-bit raw, a sample above 1023 in frame 14, --split 5, --frame_cnt 14" "--split 5" -- \
  -r "$R10" -d "$T/bad10.yuv" -w 576 -h 324 -p 420 -b 10 --feature psnr --frame_cnt 14 --json
same_run "10-bit raw, a sample above 1023 in skipped frame 14, --split 3" "--split 3" -- \
  -r "$R10" -d "$T/bad10.yuv" -w 576 -h 324 -p 420 -b 10 --feature psnr --frame_skip_dist 15 --json
same_run "frame too small for cambi, --split 4" "--split 4" -- \
  -r "$CLIPS/tiny_17x17_420p_ref.yuv" -d "$CLIPS/tiny_17x17_420p_dis.yuv" -w 17 -h 17 -p 420 -b 8 --feature cambi -n --threads 2 --json
same_run "an unknown model, --split 3" "--split 3" -- -r "$REF" -d "$DIS" $GEO -m version=nope --json

# refusals
O=$T/out.json
for bad in 0 65 -1 abc 2x ""; do
  refuse "--split '$bad'" 1 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --split "$bad" -o "$O"
done
for bad in "" , 0, ,0 0,,1 a -1 "0 1" 0x 99999999999; do
  refuse "--cuda_devices '$bad'" 1 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --cuda_devices "$bad" -o "$O"
done
refuse "--cuda_devices with 65 entries" 1 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr -o "$O" \
  --cuda_devices 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
refuse "--cuda_devices with --backend cpu" 1 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --backend cpu --cuda_devices 0 -o "$O"
refuse "--cuda_devices with --gpumask" 1 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --gpumask 1 --cuda_devices 0 -o "$O"
refuse "--cuda_devices 0,0 with --split 3" 1 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --split 3 --cuda_devices 0,0 -o "$O"
refuse "--split with --segment" 1 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --split 2 --segment 0:4 -o "$O"
refuse "--split with --merge" 1 "$O" -- --merge "$T/a.out" --split 2 -o "$O"
refuse "--split with cambi's heatmaps_path" 255 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature cambi=heatmaps_path=$T/hm --split 2 -o "$O"
mkfifo "$T/pipe"
(cat "$DIS" > "$T/pipe") 2>/dev/null &
refuse "--split with a pipe as input" 255 "$O" -- -r "$REF" -d "$T/pipe" $GEO -n --feature psnr --split 2 -o "$O"
wait

# CUDA: with a device, --cuda_devices 0,0 equals --backend cuda; without, one clear line
if "$VMAF" -r "$REF" -d "$DIS" $GEO -n --feature psnr --frame_cnt 1 --backend cuda >/dev/null 2>&1; then
  same_run "--cuda_devices 0,0 vs --backend cuda" "--cuda_devices 0,0" -- -r "$REF" -d "$DIS" $GEO $FEAT --backend cuda --threads 1 --json --precision max
  refuse "--cuda_devices 0,99 (no device 99)" 255 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --cuda_devices 0,99 -o "$O"
else
  for list in 0 0,0 1,0; do
    refuse "--cuda_devices $list without a CUDA device" 255 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --cuda_devices $list -o "$O"
    lines=$(grep -c . "$T/err"); grep -q "no usable CUDA device" "$T/err" && [ "$lines" -eq 1 ] \
      && ok "--cuda_devices $list: one line, naming the reason" || fail "--cuda_devices $list: $lines lines"
  done
  refuse "--backend cuda --split 2 without a CUDA device" 255 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --backend cuda --split 2 -o "$O"
fi

echo "cli_split: $cases cases, $fails failed"
[ $fails -eq 0 ]
