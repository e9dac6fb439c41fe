#!/bin/sh
# vmaf --segment and --merge: segments of raw and Y4M input merged into the single run's
# output (every format, fps aside), and the refusals (bad A:B, B past the input, missing,
# overlapping and mixed parts), each with its exit status, a message and no output file.
# Usage: cli_segment.sh VMAF CLIPS_DIR SCRATCH_DIR
set -u
VMAF=$1; CLIPS=$2; T=$3
rm -rf "$T"; mkdir -p "$T"
REF=$CLIPS/boats_576x324_420p_ref.yuv
DIS=$CLIPS/boats_576x324_420p_dis.yuv
GEO="-w 576 -h 324 -p 420 -b 8"
FRAME=279936
fails=0; cases=0

. "$(dirname "$0")/cases.sh"


# same NAME A B: the files are equal apart from the fps
same() {
  grep -v 'fps' "$2" > "$T/same_a" 2>/dev/null; grep -v 'fps' "$3" > "$T/same_b" 2>/dev/null
  if [ -f "$2" ] && [ -f "$3" ] && [ -s "$T/same_a" ] && cmp -s "$T/same_a" "$T/same_b"; then
    ok "$1"
  else
    fail "$1: $2 and $3 differ"
  fi
}

FEAT="--feature psnr=enable_apsnr=true --feature float_motion --feature speed_temporal \
  --model version=vmaf_v0.6.1:name=vmaf --model version=vmaf_b_v0.6.3:name=boot"

# raw input, 24 frames, 4 segments, every output format
for fmt in json xml csv sub; do
  "$VMAF" -r "$REF" -d "$DIS" $GEO $FEAT --threads 2 --precision max --$fmt -o "$T/single.$fmt" 2>"$T/err" \
    || fail "single run ($fmt)"
done
parts=""
for seg in 0:5 5:12 12:13 13:24; do
  "$VMAF" -r "$REF" -d "$DIS" $GEO $FEAT --threads 2 --segment $seg -o "$T/part_$seg.json" 2>"$T/err" \
    || fail "segment $seg"
  parts="$T/part_$seg.json $parts"
done
for fmt in json xml csv sub; do
  "$VMAF" --merge $parts --precision max --$fmt -o "$T/merged.$fmt" 2>"$T/err" || fail "merge ($fmt)"
  same "raw input as 4 segments, merged, $fmt" "$T/single.$fmt" "$T/merged.$fmt"
done

# Y4M input (read in order: the CLI reads its way to the first context frame)
printf 'YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420jpeg\n' > "$T/ref.y4m"
printf 'YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420jpeg\n' > "$T/dis.y4m"
for i in 0 1 2 3 4 5 6 7 8 9; do
  printf 'FRAME\n' >> "$T/ref.y4m"; dd if="$REF" bs=$FRAME skip=$i count=1 2>/dev/null >> "$T/ref.y4m"
  printf 'FRAME\n' >> "$T/dis.y4m"; dd if="$DIS" bs=$FRAME skip=$i count=1 2>/dev/null >> "$T/dis.y4m"
done
Y4M="--feature motion=motion_five_frame_window=true --feature float_motion --feature psnr"
"$VMAF" -r "$T/ref.y4m" -d "$T/dis.y4m" $Y4M --json --precision max -o "$T/y4m_single.json" 2>"$T/err" || fail "y4m single"
"$VMAF" -r "$T/ref.y4m" -d "$T/dis.y4m" $Y4M --segment 3:10 -o "$T/y4m_b.json" 2>"$T/err" || fail "y4m 3:10"
"$VMAF" -r "$T/ref.y4m" -d "$T/dis.y4m" $Y4M --segment 0:3 -o "$T/y4m_a.json" 2>"$T/err" || fail "y4m 0:3"
"$VMAF" --merge "$T/y4m_b.json" "$T/y4m_a.json" --json --precision max -o "$T/y4m_merged.json" 2>"$T/err" || fail "y4m merge"
same "Y4M input as 2 segments, merged" "$T/y4m_single.json" "$T/y4m_merged.json"

# --frame_skip and --frame_cnt: segments count title frames
RANGE="--frame_skip_ref 2 --frame_skip_dist 1 --frame_cnt 9 --feature motion --feature psnr -n"
"$VMAF" -r "$REF" -d "$DIS" $GEO $RANGE --json --precision max -o "$T/range_single.json" 2>"$T/err" || fail "range single"
"$VMAF" -r "$REF" -d "$DIS" $GEO $RANGE --segment 0:4 -o "$T/range_a.json" 2>"$T/err" || fail "range 0:4"
"$VMAF" -r "$REF" -d "$DIS" $GEO $RANGE --segment 4:9 -o "$T/range_b.json" 2>"$T/err" || fail "range 4:9"
"$VMAF" --merge "$T/range_a.json" "$T/range_b.json" --json --precision max -o "$T/range_merged.json" 2>"$T/err" || fail "range merge"
same "--frame_skip/--frame_cnt as 2 segments, merged" "$T/range_single.json" "$T/range_merged.json"

# refusals
O=$T/out.json
for bad in 5:5 7:3 abc 3 3: :3 -1:3 1:2:3 0x:4; do
  refuse "--segment $bad" 1 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --segment "$bad" -o "$O"
done
refuse "--segment without -o" 1 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --segment 0:4
refuse "--segment B past the input" 255 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --segment 20:30 -o "$O"
refuse "--segment A past the input" 255 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --segment 30:40 -o "$O"
refuse "--segment B past --frame_cnt" 255 "$O" -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --frame_cnt 5 --segment 3:7 -o "$O"
refuse "--merge without parts" 1 "$O" -- --merge -o "$O"
refuse "--merge without -o" 1 "$O" -- --merge "$T/part_0:5.json"
refuse "--merge with inputs" 1 "$O" -- --merge "$T/part_0:5.json" -r "$REF" -o "$O"
refuse "--merge, a part missing" 255 "$O" -- --merge "$T/part_0:5.json" "$T/part_12:13.json" "$T/part_13:24.json" -o "$O"
refuse "--merge, the last part missing" 255 "$O" -- --merge "$T/part_0:5.json" "$T/part_5:12.json" -o "$O" --json
"$VMAF" -r "$REF" -d "$DIS" $GEO $FEAT --threads 2 --segment 3:12 -o "$T/part_3:12.json" 2>"$T/err" || fail "segment 3:12"
refuse "--merge, overlapping parts" 255 "$O" -- --merge "$T/part_0:5.json" "$T/part_3:12.json" "$T/part_12:13.json" "$T/part_13:24.json" -o "$O"
"$VMAF" -r "$REF" -d "$DIS" $GEO $FEAT --threads 0 --segment 5:12 -o "$T/t0_5:12.json" 2>"$T/err" || fail "segment 5:12 t0"
refuse "--merge, a part of another --threads mode" 255 "$O" -- --merge "$T/part_0:5.json" "$T/t0_5:12.json" "$T/part_12:13.json" "$T/part_13:24.json" -o "$O"
"$VMAF" -r "$REF" -d "$DIS" $GEO --feature psnr --threads 2 -n --segment 5:12 -o "$T/psnr_5:12.json" 2>"$T/err" || fail "segment 5:12 psnr"
refuse "--merge, a part of other features" 255 "$O" -- --merge "$T/part_0:5.json" "$T/psnr_5:12.json" "$T/part_12:13.json" "$T/part_13:24.json" -o "$O"
refuse "--merge, a part that does not exist" 255 "$O" -- --merge "$T/part_0:5.json" "$T/nope.json" -o "$O"
refuse "--merge, a part that is an output file" 255 "$O" -- --merge "$T/single.json" -o "$O"
cp "$T/part_0:5.json" "$T/keep.json"
refuse "--merge onto one of its parts" 255 "$T/never" -- --merge "$T/keep.json" "$T/part_5:12.json" -o "$T/keep.json"
cmp -s "$T/keep.json" "$T/part_0:5.json" && ok "the part was left as it was" || fail "the part was overwritten"

echo "cli_segment: $cases cases, $fails failed"
[ $fails -eq 0 ]
