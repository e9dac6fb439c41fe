#!/bin/sh
# Ladder runs that must refuse, and a distorted that fails alone among good ones.
#   ladder_errors.sh VMAF MAKE_RENDITIONS CLIPS_DIR SCRATCH_DIR
# Refusals (another geometry, a raw file of no whole number of frames, -o not matching -d, a
# template without {n}/{name}, two outputs on one file, cambi heatmaps for several): non-zero
# exit, a short message, no output for anyone. A truncated Y4M among good ones: the good ones'
# outputs equal their single runs, none for it, the single run's exit status, stderr says how
# many were scored.
set -u
VMAF=$1; MAKE=$2; CLIPS=$3; T=$4
rm -rf "$T"; mkdir -p "$T/in" "$T/single" "$T/out" "$T/a" "$T/b" || exit 2
W=576; H=324; F=279936; N=6 # boats, 6 frames
GEO="-w $W -h $H -p 420 -b 8"
RUN="-n --feature psnr --feature float_ssim --json --precision max --threads 2"
fails=0; cases=0

fail() { echo "FAIL $case_name: $*"; ok=0; }
# strip the JSON fps line
nofps() { sed 's/^  "fps": .*,$/  "fps": (fps),/' "$1"; }
# y4m RAW OUT: RAW's N frames (the clip's geometry) as a Y4M file
y4m() {
  printf 'YUV4MPEG2 W%s H%s F25:1 Ip A1:1 C420jpeg\n' $W $H > "$2"
  i=0
  while [ $i -lt $N ]; do
    printf 'FRAME\n' >> "$2"; dd if="$1" bs=$F skip=$i count=1 status=none >> "$2"
    i=$((i + 1))
  done
}

# the inputs: raw and Y4M, the clip's distorted and three renditions of it
head -c $((F * N)) "$CLIPS/boats_576x324_420p_ref.yuv" > "$T/in/ref.yuv"
head -c $((F * N)) "$CLIPS/boats_576x324_420p_dis.yuv" > "$T/in/dis.yuv"
"$MAKE" "$T/in/dis.yuv" $W $H 420 8 $N "$T/in/blur.yuv" "$T/in/noise.yuv" "$T/in/quant.yuv" \
  || exit 2
for f in ref dis blur noise quant; do y4m "$T/in/$f.yuv" "$T/in/$f.y4m"; done
head -c $(($(wc -c < "$T/in/noise.y4m") / 2)) "$T/in/noise.y4m" > "$T/in/trunc.y4m" # mid-frame
head -c $((F * N - 100)) "$T/in/noise.yuv" > "$T/in/cut.yuv"   # no whole number of frames
head -c $((F * N / 2)) "$T/in/noise.yuv" > "$T/in/half.yuv"    # 3 whole frames: shorter
printf 'YUV4MPEG2 W288 H162 F25:1 Ip A1:1 C420jpeg\n' > "$T/in/small.y4m"
for i in 1 2 3; do printf 'FRAME\n' >> "$T/in/small.y4m"; head -c $((F / 4)) "$T/in/ref.yuv" >> "$T/in/small.y4m"; done
cp "$T/in/dis.yuv" "$T/a/dis.yuv"; cp "$T/in/blur.yuv" "$T/b/dis.yuv" # one base name, two files

# single D: the single-pair run of D against the reference of its kind, into single/NAME.json;
# sets src (its exit status)
single() {
  base=$(basename "$1"); geo=""
  case $1 in *.yuv) ref=$T/in/ref.yuv; geo=$GEO;; *) ref=$T/in/ref.y4m;; esac
  "$VMAF" -r "$ref" -d "$1" $geo $RUN -o "$T/single/$base.json" 2> "$T/single/$base.stderr"
  src=$?
}

# ladder ARGS...: the ladder run, outputs under out/ (emptied first); sets rc, err
ladder() {
  cases=$((cases + 1)); ok=1
  rm -rf "$T/out"; mkdir -p "$T/out"
  "$VMAF" $RUN "$@" > /dev/null 2> "$T/err"
  rc=$?; err=$T/err
  if [ $rc -gt 128 ] && [ $rc -le 192 ]; then fail "killed (exit $rc)"; fi
}

# refused MAX_LINES WANT_STATUS|nonzero [WORD]: exit status, at most MAX_LINES lines on stderr
# (naming WORD), nothing written
refused() {
  if [ "$2" = nonzero ]; then [ $rc -ne 0 ] || fail "exit 0, a refusal expected"
  else [ $rc -eq "$2" ] || fail "exit $rc, the single run's $2 expected"; fi
  lines=$(wc -l < "$err")
  [ -s "$err" ] && [ "$lines" -le "$1" ] || fail "$lines stderr lines, 1 to $1 expected"
  [ -z "${3:-}" ] || grep -q "$3" "$err" || fail "stderr does not name $3"
  [ -z "$(ls -A "$T/out")" ] || fail "written: $(ls -A "$T/out" | tr '\n' ' ')"
}

# usage_refused WORD: a usage error (exit 1, as every usage error of the CLI): its reason on
# the first stderr line, naming WORD, then the usage text; nothing written
usage_refused() {
  [ $rc -eq 1 ] || fail "exit $rc, a usage error (1) expected"
  head -n 1 "$err" | grep -q -- "$1" || fail "first stderr line does not name $1: $(head -n 1 "$err")"
  grep -q "^Usage:" "$err" || fail "no usage text"
  [ -z "$(ls -A "$T/out")" ] || fail "written: $(ls -A "$T/out" | tr '\n' ' ')"
}

# same_as_single N D: out/N.json equals D's single-run file but the fps
same_as_single() {
  s=$T/single/$(basename "$2").json
  if [ ! -e "$T/out/$1.json" ]; then fail "no output $1 ($2)"; return; fi
  nofps "$s" > "$T/s"; nofps "$T/out/$1.json" > "$T/o"
  cmp -s "$T/s" "$T/o" || { fail "output $1 ($2) is not its single run's:"; diff "$T/s" "$T/o" | head -n 4; }
}

report() {
  if [ $ok -eq 1 ]; then echo "ok   $case_name (exit $rc): $(head -n 1 "$err")"
  else fails=$((fails + 1)); sed 's/^/     /' "$err" | head -n 5; fi
}

O4="-o $T/out/1.json -o $T/out/2.json -o $T/out/3.json -o $T/out/4.json"
I=$T/in

case_name="another geometry (Y4M), third of four: refused before any frame"
single "$I/small.y4m"
ladder -r "$I/ref.y4m" -d "$I/dis.y4m" -d "$I/blur.y4m" -d "$I/small.y4m" -d "$I/quant.y4m" $O4
refused 2 $src small.y4m; report

case_name="raw distorted of no whole number of frames, second of four: refused before any frame"
single "$I/cut.yuv"
ladder -r "$I/ref.yuv" -d "$I/dis.yuv" -d "$I/cut.yuv" -d "$I/blur.yuv" -d "$I/quant.yuv" $GEO $O4
refused 2 $src cut.yuv; report

case_name="truncated Y4M among good ones: fails alone"
for f in dis blur quant trunc; do single "$I/$f.y4m"; done # src: the truncated file's
ladder -r "$I/ref.y4m" -d "$I/dis.y4m" -d "$I/blur.y4m" -d "$I/trunc.y4m" -d "$I/quant.y4m" $O4
[ $src -ne 0 ] || fail "the single run of the truncated file succeeds"
[ $rc -eq $src ] || fail "exit $rc, the single run's $src expected"
same_as_single 1 "$I/dis.y4m"; same_as_single 2 "$I/blur.y4m"; same_as_single 4 "$I/quant.y4m"
[ ! -e "$T/out/3.json" ] || fail "an output for the truncated file"
[ "$(ls -A "$T/out" | wc -l)" -eq 3 ] || fail "other files written: $(ls -A "$T/out" | tr '\n' ' ')"
grep -Eq '(^|[^0-9])3[^0-9]+4([^0-9]|$)' "$err" || fail "stderr does not say 3 of the 4 were scored"
report

case_name="shorter raw distorted (whole frames) among good ones: scored as its single run"
for f in dis blur quant half; do single "$I/$f.yuv"; done # src: the shorter file's
ladder -r "$I/ref.yuv" -d "$I/dis.yuv" -d "$I/half.yuv" -d "$I/blur.yuv" -d "$I/quant.yuv" $GEO $O4
[ $rc -eq $src ] || fail "exit $rc, the single run's $src expected"
same_as_single 1 "$I/dis.yuv"; same_as_single 2 "$I/half.yuv"
same_as_single 3 "$I/blur.yuv"; same_as_single 4 "$I/quant.yuv"
report

D3="-r $I/ref.yuv -d $I/dis.yuv -d $I/blur.yuv -d $I/quant.yuv $GEO"
case_name="two -o for three -d"
ladder $D3 -o "$T/out/1.json" -o "$T/out/2.json"; usage_refused -o/--output; report
case_name="four -o for three -d"
ladder $D3 -o "$T/out/1.json" -o "$T/out/2.json" -o "$T/out/3.json" -o "$T/out/4.json"
usage_refused -o/--output; report
case_name="one -o without {n} or {name} for three -d"
ladder $D3 -o "$T/out/all.json"; usage_refused -o/--output; report
case_name="one output file named twice"
ladder $D3 -o "$T/out/1.json" -o "$T/out/2.json" -o "$T/out/1.json"; refused 1 nonzero; report
case_name="one output file spelled twice (dir/./name)"
ladder $D3 -o "$T/out/1.json" -o "$T/out/2.json" -o "$T/out/./1.json"; refused 1 nonzero; report
case_name="template {name} of two distorted of one base name"
ladder -r "$I/ref.yuv" -d "$T/a/dis.yuv" -d "$T/b/dis.yuv" $GEO -o "$T/out/{name}.json"
refused 1 nonzero; report

case_name="cambi heatmaps_path with three -d (every rung would write the same files)"
mkdir -p "$T/heat"
ladder $D3 -o "$T/out/{n}.json" --feature cambi=heatmaps_path="$T/heat"
refused 1 nonzero heatmaps_path
[ -z "$(ls -A "$T/heat")" ] || fail "heatmaps written: $(ls -A "$T/heat" | tr '\n' ' ')"
report

echo "ladder_errors: $cases cases, $((cases - fails)) ok, $fails failed"
[ $fails -eq 0 ]
