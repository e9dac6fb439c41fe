#!/bin/sh
# Bad input to the vmaf CLI: each case must exit with the expected status, say why on stderr,
# and leave no output file. Usage: cli_errors.sh VMAF CLIPS_DIR SCRATCH_DIR [SIGNAL_SHIM]
set -u
VMAF=$1; CLIPS=$2; T=$3; SHIM=${4:-}
rm -rf "$T"; mkdir -p "$T"
REF=$CLIPS/boats_576x324_420p_ref.yuv
DIS=$CLIPS/boats_576x324_420p_dis.yuv
GEO="-w 576 -h 324 -p 420 -b 8"
FRAME=279936
fails=0; cases=0

# expect NAME STATUS LINES_MAX -- args...   (STATUS "nonzero" accepts any failure status)
# A read or scoring error exits (-errno) & 0xff as the reference's main returns it
# (CONTRACT.md section 2): -EINVAL 234, -EIO 251.
EINVAL_EXIT=234; EIO_EXIT=251
expect() {
  name=$1; want=$2; maxlines=$3; shift 4
  cases=$((cases + 1))
  rm -f "$T/out.json"
  "$VMAF" -o "$T/out.json" --json "$@" >/dev/null 2>"$T/err"
  rc=$?
  lines=$(wc -l < "$T/err")
  ok=1
  if [ "$want" = nonzero ]; then [ $rc -ne 0 ] || ok=0; else [ $rc -eq "$want" ] || ok=0; fi
  [ $rc -le 128 ] || [ $rc -gt 192 ] || ok=0        # never a crash (128 + signal)
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
expect "truncated last y4m frame"    $EIO_EXIT 2 -- -r "$T/a.y4m" -d "$T/trunc.y4m" -n --feature psnr
expect "malformed y4m header"        255 2 -- -r "$T/a.y4m" -d "$T/badhdr.y4m" -n --feature psnr
expect "unsupported y4m colorspace"  255 2 -- -r "$T/a.y4m" -d "$T/c411.y4m" -n --feature psnr
expect "y4m geometries differ"       255 2 -- -r "$T/a.y4m" -d "$T/small.y4m" -n --feature psnr
expect "unknown feature"             255 3 -- -r "$REF" -d "$DIS" $GEO -n --feature nosuch
expect "option out of range"         255 3 -- -r "$REF" -d "$DIS" $GEO -n --feature motion=motion_blend_factor=2
expect "bad bool option"             255 3 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr=enable_chroma=yes
expect "option without value"        1 60 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr=enable_chroma
expect "bad precision"               1 60 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --precision 0
expect "output not writable"         255 2 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr -o /nonexistent/dir/x.json
expect "psnr_hvs above 12 bits"      $EINVAL_EXIT 3 -- -r "$CLIPS/deep_320x180_420p16_ref.yuv" -d "$CLIPS/deep_320x180_420p16_dis.yuv" -w 320 -h 180 -p 420 -b 16 -n --feature psnr_hvs
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
expect "cambi on a tiny frame"       $EINVAL_EXIT 3 -- -r "$CLIPS/tiny_33x33_420p_ref.yuv" -d "$CLIPS/tiny_33x33_420p_dis.yuv" -w 33 -h 33 -p 420 -b 8 -n --feature cambi
grep -q 'cambi: frame too small' "$T/err" || { echo "FAIL cambi on a tiny frame: no reason given"; fails=$((fails + 1)); }
expect "cambi unknown eotf"          $EINVAL_EXIT 3 -- -r "$T/ref3.yuv" -d "$T/ref3.yuv" $GEO -n --feature cambi=eotf=srgb
expect "cambi heatmaps not writable" $EINVAL_EXIT 3 -- -r "$T/ref3.yuv" -d "$T/ref3.yuv" $GEO -n --feature cambi=heatmaps_path=/proc/no/such
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

# ---- misuse: no wrong score with exit 0, no lost input -----------------------------------
# check NAME COMMAND...: a plain assertion counted as a case
check() {
  name=$1; shift
  cases=$((cases + 1))
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; sed 's/^/     /' "$T/err"; fails=$((fails + 1)); fi
}
has() { grep -q -- "$1" "$T/err"; }

# 2: samples above the bit depth's maximum are refused, naming file, frame and plane
F10=$((576 * 324 * 3))          # bytes of one 576x324 4:2:0 10-bit frame
head -c $((F10 * 2)) "$CLIPS/forest_576x324_420p10_ref.yuv" > "$T/hi10.yuv"
# frame 1, U plane, first sample := 0xffff
printf '\377\377' | dd of="$T/hi10.yuv" bs=1 seek=$((F10 + 576 * 324 * 2)) conv=notrunc 2>/dev/null
head -c $((F10 * 2)) "$CLIPS/forest_576x324_420p10_dis.yuv" > "$T/lo10.yuv"
expect "10-bit sample 0xffff"        $EINVAL_EXIT 2 -- -r "$T/lo10.yuv" -d "$T/hi10.yuv" -w 576 -h 324 -p 420 -b 10 -n --feature psnr --feature psnr_hvs
check "  ... names file, frame and plane" has "hi10.yuv: frame 1, plane 1 (U): sample 65535"

# 3: -o naming an input, directly or through a link, is refused before reading; input intact
cp "$T/ref3.yuv" "$T/keep.yuv"; ln -sf keep.yuv "$T/keep_link.yuv"; sum0=$(cksum < "$T/keep.yuv")
expect "-o is the reference"         255 2 -- -r "$T/keep.yuv" -d "$T/ref3.yuv" $GEO -n --feature psnr -o "$T/keep.yuv"
check "  ... says so" has "is the reference input"
expect "-o is a link to the distorted" 255 2 -- -r "$T/ref3.yuv" -d "$T/keep.yuv" $GEO -n --feature psnr -o "$T/keep_link.yuv"
check "  ... input unchanged" [ "$(cksum < "$T/keep.yuv")" = "$sum0" ]

# 4: names are escaped per format (or refused where a format cannot hold them)
expect "model name not an XML name"  255 3 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -m 'version=vmaf_v0.6.1:name=a"b<c>&' --xml
check "  ... says so" has "is not an XML name"
expect "model name with specials (JSON)" 0 2 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -m 'version=vmaf_v0.6.1:name=a"b<c>&\' -o "$T/names.json" --json
check "  ... escaped in JSON" grep -q '"a\\"b<c>&\\\\": ' "$T/names.json"
expect "non-ASCII XML name"          0 2 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -m 'version=vmaf_v0.6.1:name=qualité.v-1' -o "$T/names.xml" --xml
check "  ... written" grep -q '<metric name="qualité.v-1" ' "$T/names.xml"
expect "model name with a comma (CSV)" 0 2 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -m 'version=vmaf_v0.6.1:name=a,b' -o "$T/names.csv" --csv
check "  ... quoted in CSV" grep -q '^Frame,.*,"a,b",$' "$T/names.csv"
nl='
'
expect "model name with a newline (JSON)" 0 2 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -m "version=vmaf_v0.6.1:name=a${nl}b\"" -o "$T/names2.json" --json
check "  ... escaped in JSON" grep -q '"a\\nb\\"": ' "$T/names2.json"
expect "model name with '|' (SUB)"  255 3 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -m 'version=vmaf_v0.6.1:name=a|b' --sub
expect "model name with a control byte (XML)" 255 3 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -m "version=vmaf_v0.6.1:name=a$(printf '\001')b" --xml
check "  ... shown as \\x01" has "a\\\\x01b"
expect "model name not UTF-8 (JSON)" 255 3 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -m "version=vmaf_v0.6.1:name=a$(printf '\377')b"

# 5: a model score named like a feature or another model's score is refused at set-up
expect "model named like a feature"  255 3 -- -r "$REF" -d "$DIS" $GEO -m version=vmaf_v0.6.1:name=integer_adm2
expect "model named psnr_y + psnr"   255 3 -- -r "$REF" -d "$DIS" $GEO -m version=vmaf_v0.6.1:name=psnr_y --feature psnr
expect "model named like a member"   255 3 -- -r "$REF" -d "$DIS" $GEO -m version=vmaf_b_v0.6.3:name=b -m version=vmaf_v0.6.1:name=b_0001
# before the first frame: a truncated input would fail with its read error (5) if frames were read
expect "model named NAME_bagging"    255 3 -- -r "$T/a.y4m" -d "$T/trunc.y4m" -m version=vmaf_b_v0.6.3 -m version=vmaf_v0.6.1:name=vmaf_bagging

# 7: a preset replacing a --model with overloads (LeakSanitizer catches the leak in CI)
expect "preset after a same-named --model with overloads: usage error, as the reference (nothing leaks)" 1 49 -- -r "$REF" -d "$DIS" $GEO -m version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0 --aom_ctc v1.0 --frame_cnt 1

# 8: SIGINT while the output is renamed into place: no temporary file left, file whole
if [ -n "$SHIM" ] && [ -f "$SHIM" ]; then
  cases=$((cases + 1))
  rm -f "$T"/sig.json*
  LD_PRELOAD="$SHIM" VMAF_TEST_SIGNAL_IN_RENAME=2 ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
    "$VMAF" -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -n --feature psnr --json -o "$T/sig.json" 2>"$T/err"
  rc=$?
  if [ $rc -eq 130 ] && ! ls "$T"/sig.json.tmp* >/dev/null 2>&1 && [ "$(tail -n 1 "$T/sig.json")" = "}" ]; then
    echo "ok   SIGINT during the write (exit $rc): output whole, no temporary file"
  else
    echo "FAIL SIGINT during the write: exit $rc, files: $(ls "$T" | grep sig.json | tr '\n' ' ')"; fails=$((fails + 1))
  fi
fi

# 9: integers are integers: no float round trip, no garbage, no octal, no overflow
expect "--gpumask above 2^64"        1 60 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --gpumask 0x1ffffffffffffffff
expect "--threads 2x"                1 60 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr --threads 2x
expect "int option 4294967299"       255 3 -- -r "$REF" -d "$DIS" $GEO -n --feature float_motion=motion_filter_size=4294967299
expect "int option 3abc"             255 3 -- -r "$REF" -d "$DIS" $GEO -n --feature float_motion=motion_filter_size=3abc
expect "double option 2x"            255 3 -- -r "$REF" -d "$DIS" $GEO -n --feature motion=motion_blend_factor=0.5x
expect "-w 0576 is decimal 576"      0 2 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" -w 0576 -h 0324 -p 420 -b 8 -n --feature psnr
check "  ... scored 2 frames" [ "$(grep -c '"frameNum"' "$T/out.json")" -eq 2 ]

# 10: messages name the real problem
expect "-o a file in /proc"          255 2 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr -o /proc/version
check "  ... cannot create a file beside it" has "cannot create a file beside it"
expect "-o empty"                    1 60 -- -r "$REF" -d "$DIS" $GEO -n --feature psnr -o ""
check "  ... names -o" has "for option -o/--output"
printf 'YUV4MPEG2 W576 H324 F25:1 C420jpeg\r\nFRAME\n' > "$T/crlf.y4m"; head -c $FRAME "$REF" >> "$T/crlf.y4m"
expect "y4m header with CR LF"       255 2 -- -r "$T/a.y4m" -d "$T/crlf.y4m" -n --feature psnr
check "  ... says CR LF" has "CR LF"
printf 'YUV4MPEG2 W576 H324 F25:1\000 C420jpeg\nFRAME\n' > "$T/nul.y4m"; head -c $FRAME "$REF" >> "$T/nul.y4m"
expect "y4m header with a NUL"       255 2 -- -r "$T/a.y4m" -d "$T/nul.y4m" -n --feature psnr
check "  ... says NUL" has "NUL byte"
# 4x64 frames: VIF scale 3 has no samples; the reference prints NaN silently, we warn
head -c $(( (4 * 64 + 2 * 2 * 32) * 3 )) "$REF" > "$T/thin_ref.yuv"
head -c $(( (4 * 64 + 2 * 2 * 32) * 3 )) "$DIS" > "$T/thin_dis.yuv"
expect "4x64 frames: NaN scores"     0 2 -- -r "$T/thin_ref.yuv" -d "$T/thin_dis.yuv" -w 4 -h 64 -p 420 -b 8
check "  ... warned" has "not a number in up to 3 of 3 frames (integer_vif_scale3"

# 11: model files that would load silently wrong
model() { # model FILE EXTRA_KEYS SVM_LINES: a one-feature model with the given variations
  printf '{"model_dict": {"model_type": "LIBSVMNUSVR", "norm_type": "none", "feature_names": ["psnr_y"], %s "model": "svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv %s\\nrho 0.25\\nSV\\n%s"}}' "$2" "$3" "$4" > "$T/$1"
}
model good.json '"score_clip": [0, 100],' 1 '2 1:0.25\n'
expect "valid hand-made model"       0 2 -- -r "$T/ref3.yuv" -d "$T/dis2.yuv" $GEO -m path=$T/good.json
model inf.json '"score_clip": [0, 1e999],' 1 '2 1:0.25\n'
expect "model number 1e999"          255 3 -- -r "$REF" -d "$DIS" $GEO -m path=$T/inf.json
check "  ... names the key" has "score_clip\[1\] is 1e999"
model inverted.json '"score_clip": [100, 0],' 1 '2 1:0.25\n'
expect "model score_clip inverted"   255 3 -- -r "$REF" -d "$DIS" $GEO -m path=$T/inverted.json
check "  ... names the key" has "score_clip"
model nosv.json '' 0 ''
expect "model without support vectors" 255 3 -- -r "$REF" -d "$DIS" $GEO -m path=$T/nosv.json
check "  ... says total_sv" has "total_sv is 0"
model index.json '' 1 '2 1:0.25 2:0.5\n'
expect "model SV index past features" 255 3 -- -r "$REF" -d "$DIS" $GEO -m path=$T/index.json
check "  ... names the index" has "has index 2"
model dup.json '"norm_type": "linear_rescale",' 1 '2 1:0.25\n'
expect "model with a duplicated key" 255 3 -- -r "$REF" -d "$DIS" $GEO -m path=$T/dup.json
check "  ... names the key" has 'key "norm_type" is given twice'

echo "cli errors: $cases cases, $fails failed"
[ $fails -eq 0 ]
