#!/bin/sh
# Bad input to the vmaf CLI: each case must exit with the expected status, say why on stderr,
# and leave no output file. Usage: cli_errors.sh VMAF CLIPS_DIR SCRATCH_DIR
set -u
VMAF=$1; CLIPS=$2; T=$3
rm -rf "$T"; mkdir -p "$T"
REF=$CLIPS/boats_576x324_420p_ref.yuv
DIS=$CLIPS/boats_576x324_420p_dis.yuv
GEO="-w 576 -h 324 -p 420 -b 8"
FRAME=279936
fails=0; cases=0

# expect NAME STATUS LINES_MAX -- args...   (STATUS "nonzero" accepts any failure status)
expect() {
  name=$1; want=$2; maxlines=$3; shift 4
  cases=$((cases + 1))
  rm -f "$T/out.json"
  "$VMAF" -o "$T/out.json" --json "$@" >/dev/null 2>"$T/err"
  rc=$?
  lines=$(wc -l < "$T/err")
  ok=1
  if [ "$want" = nonzero ]; then [ $rc -ne 0 ] || ok=0; else [ $rc -eq "$want" ] || ok=0; fi
  [ $rc -lt 128 ] || [ $rc -eq 255 ] || ok=0        # never a crash
  if [ $rc -ne 0 ]; then
    [ -s "$T/err" ] || ok=0                            # a message
    [ "$lines" -le "$maxlines" ] || ok=0               # short and clear
    [ ! -e "$T/out.json" ] || ok=0                     # nothing half-written
    ls "$T"/out.json.tmp* >/dev/null 2>&1 && ok=0
  fi
  if [ $ok -eq 1 ]; then
    echo "ok   $name (exit $rc): $(head -n 1 "$T/err")"
  else
    echo "FAIL $name: exit $rc (want $want), $lines stderr lines:"; sed 's/^/     /' "$T/err"
    fails=$((fails + 1))
  fi
}

head -c $((FRAME * 3)) "$REF" > "$T/ref3.yuv"
head -c $((FRAME * 2)) "$DIS" > "$T/dis2.yuv"
head -c $((FRAME * 3 - 100)) "$DIS" > "$T/dis_trunc.yuv"
mkdir -p "$T/adir"
printf 'YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420jpeg\n' > "$T/a.y4m"
for i in 1 2 3; do printf 'FRAME\n' >> "$T/a.y4m"; head -c $FRAME "$REF" >> "$T/a.y4m"; done
head -c $(( $(wc -c < "$T/a.y4m") - 1000 )) "$T/a.y4m" > "$T/trunc.y4m"
printf 'YUV4MPEG2 W576 Hxx F25:1\nFRAME\n' > "$T/badhdr.y4m"
printf 'YUV4MPEG2 W288 H162 F25:1 C420jpeg\nFRAME\n' > "$T/small.y4m"
head -c $((FRAME / 4)) "$REF" >> "$T/small.y4m"
printf 'YUV4MPEG2 W576 H324 C411\nFRAME\n' > "$T/c411.y4m"

expect "missing reference file"      255 2 -- -r "$T/nope.yuv" -d "$DIS" $GEO -n --feature psnr
expect "directory as input"          255 2 -- -r "$T/adir" -d "$DIS" $GEO -n --feature psnr
expect "missing distorted flag"      1 60 -- -r "$REF" $GEO -n --feature psnr
expect "width without the rest"      1 60 -- -r "$REF" -d "$DIS" -w 576 -n --feature psnr
expect "zero width"                  1 60 -- -r "$REF" -d "$DIS" -w 0 -h 324 -p 420 -b 8 -n --feature psnr
expect "non-numeric height"          1 60 -- -r "$REF" -d "$DIS" -w 576 -h 32x -p 420 -b 8 -n --feature psnr
expect "bad pixel format"            1 60 -- -r "$REF" -d "$DIS" -w 576 -h 324 -p 411 -b 8 -n --feature psnr
expect "bad bit depth"               1 60 -- -r "$REF" -d "$DIS" -w 576 -h 324 -p 420 -b 9 -n --feature psnr
expect "huge width"                  255 2 -- -r "$REF" -d "$DIS" -w 100000 -h 324 -p 420 -b 8 -n --feature psnr
expect "size inconsistent with file" 255 2 -- -r "$REF" -d "$DIS" -w 577 -h 324 -p 420 -b 8 -n --feature psnr
expect "truncated last raw frame"    255 2 -- -r "$T/ref3.yuv" -d "$T/dis_trunc.yuv" $GEO -n --feature psnr
expect "truncated last y4m frame"    nonzero 2 -- -r "$T/a.y4m" -d "$T/trunc.y4m" -n --feature psnr
expect "malformed y4m header"        255 2 -- -r "$T/a.y4m" -d "$T/badhdr.y4m" -n --feature psnr
expect "unsupported y4m colorspace"  255 2 -- -r "$T/a.y4m" -d "$T/c411.y4m" -n --feature psnr
expect "y4m geometries differ"       255 2 -- -r "$T/a.y4m" -d "$T/small.y4m" -n --feature psnr
expect "unknown feature"             255 3 -- -r "$REF" -d "$DIS" $GEO -n --feature nosuch
expect "option out of range"         255 3 -- -r "$REF" -d "$DIS" $GEO -n --feature motion=motion_blend_factor=2
expect "bad bool option"             255 3 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr=enable_chroma=yes
expect "option without value"        1 60 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr=enable_chroma
expect "bad precision"               1 60 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --precision 0
expect "output not writable"         255 2 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr -o /nonexistent/dir/x.json
expect "psnr_hvs above 12 bits"      nonzero 3 -- -r "$CLIPS/deep_320x180_420p16_ref.yuv" -d "$CLIPS/deep_320x180_420p16_dis.yuv" -w 320 -h 180 -p 420 -b 16 -n --feature psnr_hvs
printf '{"model_dict": {"model_type": "LIBSVMNUSVR", "norm_type": "none", "feature_na' > "$T/trunc_model.json"
expect "unknown built-in model"      255 2 -- -r "$REF" -d "$DIS" $GEO -m version=nope
expect "missing model file"          255 2 -- -r "$REF" -d "$DIS" $GEO -m path=$T/nope.json
expect "model overload out of range" 255 3 -- -r "$REF" -d "$DIS" $GEO -m version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=0.5
expect "truncated model file"        255 3 -- -r "$REF" -d "$DIS" $GEO -m path=$T/trunc_model.json
expect "model key without value"     1 60 -- -r "$REF" -d "$DIS" $GEO -m version=vmaf_v0.6.1:bogus
expect "bad backend"                 1 60 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --backend gpu
if [ ! -e /dev/nvidiactl ]; then
  expect "--backend cuda without a GPU" 255 2 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --backend cuda
fi
expect "bad aom_ctc version"         1 60 -- -r "$REF" -d "$DIS" $GEO --aom_ctc v8.0
expect "deprecated aom_ctc proposed" 1 60 -- -r "$REF" -d "$DIS" $GEO --aom_ctc proposed
expect "bad nflx_ctc version"        1 60 -- -r "$REF" -d "$DIS" $GEO --nflx_ctc v2.0
expect "preset model name taken"     1 60 -- -r "$REF" -d "$DIS" $GEO -m version=vmaf_v0.6.1 --aom_ctc v1.0
expect "cambi on a tiny frame"       nonzero 3 -- -r "$CLIPS/tiny_33x33_420p_ref.yuv" -d "$CLIPS/tiny_33x33_420p_dis.yuv" -w 33 -h 33 -p 420 -b 8 -n --feature cambi
grep -q 'cambi: frame too small' "$T/err" || { echo "FAIL cambi on a tiny frame: no reason given"; fails=$((fails + 1)); }
expect "cambi unknown eotf"          nonzero 3 -- -r "$T/ref3.yuv" -d "$T/ref3.yuv" $GEO -n --feature cambi=eotf=srgb
expect "cambi heatmaps not writable" nonzero 3 -- -r "$T/ref3.yuv" -d "$T/ref3.yuv" $GEO -n --feature cambi=heatmaps_path=/proc/no/such
# heatmaps: one file per scale, every frame, the same bytes with 1 and 2 threads
for t in 1 2; do
  "$VMAF" -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -n --feature cambi=heatmaps_path=$T/hm$t --threads $t -o "$T/hm$t.json" --json 2>/dev/null
done
hm_ok=1
for sc in "0_576x324" "1_288x162" "2_144x81" "3_72x41" "4_36x21"; do
  f=cambi_heatmap_scale_${sc}_16b.gray
  wh=${sc#*_}; size=$(( ${wh%x*} * ${wh#*x} * 2 * 2 ))
  [ -f "$T/hm1/$f" ] && [ "$(wc -c < "$T/hm1/$f")" -eq $size ] && cmp -s "$T/hm1/$f" "$T/hm2/$f" || hm_ok=0
done
cases=$((cases + 1))
if [ $hm_ok -eq 1 ]; then echo "ok   cambi heatmaps: 5 files, 2 frames, identical at 1 and 2 threads"
else echo "FAIL cambi heatmaps"; ls -l "$T/hm1" "$T/hm2"; fails=$((fails + 1)); fi
expect "shorter distorted file"      0 2 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -n --feature psnr
# the common frames were scored
if [ -f "$T/out.json" ] && [ "$(grep -c '"frameNum"' "$T/out.json")" -eq 2 ] && grep -q 'ended before' "$T/err"; then
  echo "ok   shorter file: 2 common frames scored, warned"
else
  echo "FAIL shorter file: expected 2 frames and a warning"; fails=$((fails + 1))
fi
expect "unknown option warns"        0 2 -- -r "$T/ref3.yuv" -d "$T/ref3.yuv" $GEO -n --feature psnr=enable_chrome=false
grep -q 'unknown option "enable_chrome"' "$T/err" || { echo "FAIL unknown option: no warning"; fails=$((fails + 1)); }
expect "unknown long option warns"   0 2 -- -r "$T/ref3.yuv" -d "$T/ref3.yuv" $GEO -n --feature psnr --no-such-flag

echo "cli errors: $cases cases, $fails failed"
[ $fails -eq 0 ]
