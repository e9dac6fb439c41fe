#!/bin/sh
# vmaf --merge refuses what it cannot trust or honour: tampered parts (bit depth 40 and 0, a bad
# width, a bad pixel format, a library version other than this one, even for a lone part), parts
# of another title with identical options (the title fingerprint), a part with a fingerprint
# beside one without, and every option --merge does not use (a usage error, exit 1). Each
# refusal: its exit status, a message naming the part and the field, no output file.
# Usage: cli_merge_checks.sh VMAF CLIPS_DIR SCRATCH_DIR
set -u
VMAF=$1; CLIPS=$2; T=$3
rm -rf "$T"; mkdir -p "$T"
REF=$CLIPS/boats_576x324_420p_ref.yuv
DIS=$CLIPS/boats_576x324_420p_dis.yuv
GEO="-w 576 -h 324 -p 420 -b 8"
FEAT="--feature psnr=enable_apsnr=true --feature motion -n"
fails=0; cases=0

ok() { cases=$((cases + 1)); echo "ok   $1"; }
fail() { cases=$((cases + 1)); fails=$((fails + 1)); echo "FAIL $1"; [ -f "$T/err" ] && sed 's/^/     /' "$T/err"; }

# refuse NAME STATUS PATTERN -- args: exit STATUS, a message matching PATTERN (grep -E),
# no output file
refuse() {
  name=$1; want=$2; pattern=$3; shift 4
  out=$T/merged.json
  rm -f "$out"
  "$VMAF" "$@" >/dev/null 2>"$T/err"
  rc=$?
  if [ $rc -eq "$want" ] && grep -Eq -- "$pattern" "$T/err" && [ ! -e "$out" ] &&
     ! ls "$out".tmp* >/dev/null 2>&1; then
    ok "$name (exit $rc): $(grep -E -- "$pattern" "$T/err" | head -n 1)"
  else
    fail "$name: exit $rc (want $want, a message matching '$pattern'), output $( [ -e "$out" ] && echo written || echo absent)"
  fi
}

segment() { # segment OUT A:B [REF DIS [extra...]]
  out=$1; seg=$2; r=${3:-$REF}; d=${4:-$DIS}; shift 2; [ $# -ge 2 ] && shift 2
  "$VMAF" -r "$r" -d "$d" $GEO $FEAT "$@" --segment "$seg" -o "$out" 2>"$T/err" || fail "segment $seg of $r"
}

segment "$T/a.json" 0:10
segment "$T/b.json" 10:24
"$VMAF" --merge "$T/a.json" "$T/b.json" --json -o "$T/good.json" 2>"$T/err" && [ -s "$T/good.json" ] &&
  ok "the untampered parts merge" || fail "the untampered parts did not merge"
grep -q '"fingerprint": "ref=[0-9]*:[0-9a-f]\{8\},dist=[0-9]*:[0-9a-f]\{8\},skip=0:0"' "$T/a.json" &&
  ok "a part records the title fingerprint: $(grep '"fingerprint"' "$T/a.json" | tr -d ' ')" ||
  fail "no title fingerprint in $T/a.json"

# tamper NAME SED-EXPRESSION: b.json edited into NAME.json
tamper() { sed "$2" "$T/b.json" > "$T/$1.json"; cmp -s "$T/b.json" "$T/$1.json" && fail "$1: sed changed nothing"; }
tamper depth40 's/"geometry": \[1, 8,/"geometry": [1, 40,/'
tamper depth0 's/"geometry": \[1, 8,/"geometry": [1, 0,/'
tamper width0 's/"geometry": \[1, 8, 576,/"geometry": [1, 8, 0,/'
tamper width_huge 's/"geometry": \[1, 8, 576,/"geometry": [1, 8, 40000,/'
tamper pixfmt 's/"geometry": \[1, 8,/"geometry": [9, 8,/'
tamper version 's/^  "version": ".*",$/  "version": "0.0.0-another",/'
tamper no_fingerprint '/^  "fingerprint": /d'
tamper frames 's/"last": 24,/"last": 25,/; s/"frames_read": \[9, 24\]/"frames_read": [9, 25]/; s/"title_frames": \[24,/"title_frames": [25,/'
tamper metric_name 's/"name": "psnr_y"/"name": "psnr\\u0001y"/'
for part in depth40 depth0 width0 width_huge pixfmt; do
  refuse "a part with tampered geometry ($part)" 255 "part $T/$part.json: field \"geometry\"" -- \
    --merge "$T/a.json" "$T/$part.json" --json -o "$T/merged.json"
done
refuse "a part of another library version" 255 "part $T/version.json: field \"version\"" -- \
  --merge "$T/a.json" "$T/version.json" --json -o "$T/merged.json"
"$VMAF" -r "$REF" -d "$DIS" $GEO $FEAT --segment 0:24 -o "$T/lone.json" 2>"$T/err" || fail "segment 0:24"
sed 's/^  "version": ".*",$/  "version": "0.0.0-another",/' "$T/lone.json" > "$T/lone_version.json"
refuse "a lone part of another library version" 255 "part $T/lone_version.json: field \"version\"" -- \
  --merge "$T/lone_version.json" --json -o "$T/merged.json"
refuse "a part without a fingerprint beside one with" 255 "field \"fingerprint\"" -- \
  --merge "$T/a.json" "$T/no_fingerprint.json" --json -o "$T/merged.json"
sed 's/"context": \[1, 0\]/"context": [0, 0]/' "$T/lone.json" > "$T/lone_context.json"
refuse "a part recording less context than its extractors need" 255 "part $T/lone_context.json: field \"context\"" -- \
  --merge "$T/lone_context.json" --json -o "$T/merged.json"
refuse "a part whose values do not cover its frames" 255 "part $T/frames.json: field \"metrics\"" -- \
  --merge "$T/a.json" "$T/frames.json" --json -o "$T/merged.json"
refuse "a part with a control character in a metric name" 255 "part $T/metric_name.json: field \"metrics\"" -- \
  --merge "$T/a.json" "$T/metric_name.json" --json -o "$T/merged.json"

# another title with identical options: the reference and distorted inputs swapped, and the
# same inputs with another --frame_skip
segment "$T/swapped.json" 10:24 "$DIS" "$REF"
refuse "a part of another title (inputs swapped), identical options" 255 "are of other titles" -- \
  --merge "$T/a.json" "$T/swapped.json" --json -o "$T/merged.json"
segment "$T/skipped.json" 10:23 "$REF" "$DIS" --frame_skip_ref 1 --frame_skip_dist 1
refuse "a part of the same files with another --frame_skip" 255 "are of other titles" -- \
  --merge "$T/a.json" "$T/skipped.json" --json -o "$T/merged.json"
cp "$DIS" "$T/dis_copy.yuv"
segment "$T/copy.json" 10:24 "$REF" "$T/dis_copy.yuv"
"$VMAF" --merge "$T/a.json" "$T/copy.json" --json -o "$T/copy_merged.json" 2>"$T/err" &&
  grep -v '"fps"' "$T/good.json" > "$T/good.nofps" && grep -v '"fps"' "$T/copy_merged.json" > "$T/copy.nofps" &&
  cmp -s "$T/good.nofps" "$T/copy.nofps" && ok "a copy of an input at another path is the same title" ||
  fail "a copy of an input at another path was refused or merged differently"

# options --merge cannot honour: a usage error (exit 1), nothing written
for opt in "--frame_cnt 10" "-n" "--no_prediction" "--threads 2" "--threads 0" "--subsample 2" \
           "--backend cpu" "-r $REF" "-d $DIS" "-w 576" "-h 324" "-p 420" "-b 8" \
           "--feature psnr" "-m version=vmaf_v0.6.1" "--segment 0:5" "--split 2" \
           "--cuda_devices 0" "--cpumask 1" "--gpumask 1" "--frame_skip_ref 1" \
           "--frame_skip_dist 1" "--aom_ctc v1.0" "--nflx_ctc v1.0" "--no_such_option"; do
  # shellcheck disable=SC2086
  refuse "--merge with $opt" 1 "--merge does not take" -- \
    --merge "$T/a.json" "$T/b.json" $opt --json -o "$T/merged.json"
done
# ... before --merge too
refuse "--threads 2 before --merge" 1 "--merge does not take --threads" -- \
  --threads 2 --merge "$T/a.json" "$T/b.json" --json -o "$T/merged.json"
# what it takes: -o, the format, --precision, -q
"$VMAF" -q --merge "$T/a.json" "$T/b.json" --csv --precision max -o "$T/takes.csv" 2>"$T/err" &&
  [ -s "$T/takes.csv" ] && ok "--merge takes -q, --csv, --precision max, -o" ||
  fail "--merge refused -q, --csv, --precision or -o"

echo "cli_merge_checks: $cases cases, $fails failed"
[ "$fails" -eq 0 ]
