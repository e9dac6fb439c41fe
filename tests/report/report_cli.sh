#!/bin/sh
# vmaf --report and --report-from: the report of a single run (raw: no time codes; Y4M: the
# header's frame rate; --report-fps), of --subsample and --split runs and of a ladder of four
# renditions, each checked against the run's JSON output by report_tool.py (curves, points,
# pooled values, worst frames, every number exactly: --precision max; at the default precision
# every value formatted as the JSON writer does gives the file's text); the same report from
# those JSON files; a model renamed (name=) a model score in both; the refusals, each with its exit status, a message and no file.
# Usage: report_cli.sh VMAF CLIPS_DIR SCRATCH_DIR
set -u
VMAF=$1; CLIPS=$2; T=$3
HERE=$(cd "$(dirname "$0")" && pwd)
TOOL="python3 $HERE/report_tool.py"
rm -rf "$T"; mkdir -p "$T"
REF=$CLIPS/boats_576x324_420p_ref.yuv
DIS=$CLIPS/boats_576x324_420p_dis.yuv
GEO="-w 576 -h 324 -p 420 -b 8"
fails=0; cases=0

. "$(dirname "$0")/../cli/cases.sh"

# run NAME ARGS...: vmaf exits 0
run() {
  name=$1; shift
  if "$VMAF" "$@" >/dev/null 2>"$T/err"; then return 0; fi
  fail "$name: vmaf exited $?"
  return 1
}

# checked NAME REPORT [--fps N/D] JSON...: report_tool.py check passes
checked() {
  name=$1; shift
  if $TOOL check "$@" >"$T/check" 2>&1; then ok "$name: $(cat "$T/check")"
  else cp "$T/check" "$T/err"; fail "$name"; fi
}


# A single run, raw input: no frame rate, no time codes.
run single $GEO -r "$REF" -d "$DIS" --feature psnr --json --precision max -o "$T/one.json" \
    --report "$T/one.html" -q && checked "single run (raw)" "$T/one.html" "$T/one.json"
if grep -q '<th>Time</th>' "$T/one.html"; then fail "raw input: a time column"; else ok "raw input: no time codes"; fi

# The default precision: every value of the page, formatted as the JSON writer does, is the
# file's text.
run default $GEO -r "$REF" -d "$DIS" --feature psnr --json -o "$T/def.json" --report "$T/def.html" -q &&
  checked "default precision: the page's values write as the file's" "$T/def.html" --default-precision "$T/def.json"

# A model renamed (name=): a model score in the run's report and in that of its JSON file
# (named as the distorted input, the rung's name in both).
mkdir -p "$T/n"; N="$T/n/boats_576x324_420p_dis.json"
run named $GEO -r "$REF" -d "$DIS" --model version=vmaf_v0.6.1:name=foo --feature psnr --json \
    --precision max -o "$N" --report "$T/foo.html" -q &&
  checked "name=foo: the run's report" "$T/foo.html" --model foo "$N"
run named_from --report-from "$N" -o "$T/foo_from.html" &&
  checked "name=foo: --report-from its JSON file" "$T/foo_from.html" --model foo "$N"
sections() {
  sed -n '/<section id="pooled">/,/<\/section>/p; /<section id="curves">/,/<\/section>/p' "$1" |
    sed 's/ title="[^"]*"//g; s/\.json//g; s/\.yuv//g' | cksum
}
[ "$(sections "$T/foo.html")" = "$(sections "$T/foo_from.html")" ] &&
  grep -q 'data-name="foo"><figcaption>foo<span class="kind">model score' "$T/foo_from.html" &&
  ok "name=foo: the same pooled table and curves from the run and from its JSON file" ||
  fail "name=foo: the run's report and its JSON file's differ"

# The renditions as Y4M (F24:1): a ladder of four, and single runs with time codes.
$TOOL renditions "$REF" "$DIS" 576 324 24 "$T/r" || fail "renditions"
run y4m -r "$T/r/ref.y4m" -d "$T/r/noisy.y4m" --json --precision max -o "$T/y4m.json" \
    --report "$T/y4m.html" -q && checked "single run (Y4M F24:1)" "$T/y4m.html" --fps 24/1 "$T/y4m.json"
run fps -r "$T/r/ref.y4m" -d "$T/r/noisy.y4m" --json --precision max -o "$T/fps.json" \
    --report "$T/fps.html" --report-fps 30000/1001 -q &&
  checked "--report-fps 30000/1001 over the header's" "$T/fps.html" --fps 30000/1001 "$T/fps.json"
run threads -r "$T/r/ref.y4m" -d "$T/r/lines.y4m" --threads 2 --subsample 3 --feature psnr \
    --json --precision max -o "$T/sub.json" --report "$T/sub.html" -q &&
  checked "--threads 2 --subsample 3" "$T/sub.html" --fps 24/1 "$T/sub.json"
run split $GEO -r "$REF" -d "$DIS" --split 3 --json --precision max -o "$T/split.json" \
    --report "$T/split.html" -q && checked "--split 3" "$T/split.html" "$T/split.json"
run xml $GEO -r "$REF" -d "$DIS" --xml -o "$T/one.xml" --report "$T/xml.html" -q &&
  [ -s "$T/xml.html" ] && ok "an XML run's report" || fail "an XML run's report"
run none $GEO -r "$REF" -d "$DIS" --report "$T/only.html" -q &&
  [ -s "$T/only.html" ] && ok "a report without -o" || fail "a report without -o"

L="$T/r"
run ladder -r "$L/ref.y4m" -d "$L/crf23.y4m" -d "$L/noisy.y4m" -d "$L/quant.y4m" -d "$L/lines.y4m" \
    --feature psnr --json --precision max -o "$L/{name}.json" --report "$T/ladder.html" -q &&
  checked "ladder of 4" "$T/ladder.html" --fps 24/1 "$L/crf23.json" "$L/noisy.json" "$L/quant.json" "$L/lines.json"
run from --report-from "$L/crf23.json" "$L/noisy.json" "$L/quant.json" "$L/lines.json" \
    -o "$T/from.html" --report-fps 24 &&
  checked "--report-from the ladder's JSON files" "$T/from.html" --fps 24/1 "$L/crf23.json" "$L/noisy.json" "$L/quant.json" "$L/lines.json"
run ladder_default -r "$L/ref.y4m" -d "$L/crf23.y4m" -d "$L/noisy.y4m" -d "$L/quant.y4m" \
    -d "$L/lines.y4m" --feature psnr=enable_apsnr=true --json -o "$L/{name}.d.json" --report "$T/ladder_d.html" -q &&
  checked "ladder of 4, default precision" "$T/ladder_d.html" --fps 24/1 --default-precision \
    "$L/crf23.d.json" "$L/noisy.d.json" "$L/quant.d.json" "$L/lines.d.json"
# the same curves, pooled lines and tables from the collector and from the JSON files
a=$(sed -n '/<section id="curves">/,/<\/section>/p' "$T/ladder.html" | sed 's/\.y4m//g; s/\.json//g' | cksum)
b=$(sed -n '/<section id="curves">/,/<\/section>/p' "$T/from.html" | sed 's/\.y4m//g; s/\.json//g' | cksum)
[ "$a" = "$b" ] && ok "the run's curves == those of its JSON files" || fail "the run's curves differ from those of its JSON files"

# A rendition that fails alone (cut mid-frame): the report holds the others and names it.
head -c 3000000 "$L/noisy.y4m" > "$L/cut.y4m"
"$VMAF" -r "$L/ref.y4m" -d "$L/crf23.y4m" -d "$L/cut.y4m" -d "$L/quant.y4m" --json --precision max \
  -o "$L/{name}.f.json" --report "$T/failed.html" -q >/dev/null 2>"$T/err"; rc=$?
if [ $rc -ne 0 ] && [ ! -e "$L/cut.f.json" ] && grep -q '<th>Failed</th><td>.*cut.y4m' "$T/failed.html"; then
  checked "a ladder with a failed rendition (exit $rc)" "$T/failed.html" --fps 24/1 "$L/crf23.f.json" "$L/quant.f.json"
else
  fail "a ladder with a failed rendition: exit $rc"
fi

# A name that needs escaping reaches the page as text.
cp "$L/quant.json" "$T/a<b>&\"c'.json"
run escape --report-from "$T/a<b>&\"c'.json" -o "$T/esc.html" &&
  checked "a file name with markup" "$T/esc.html" "$T/a<b>&\"c'.json"
grep -q 'a&lt;b&gt;&amp;&quot;c&#39;' "$T/esc.html" && ok "the name escaped" || fail "the name not escaped"

# Refusals.
refuse "--report = -o" 1 "$T/same.json" -- $GEO -r "$REF" -d "$DIS" -o "$T/same.json" --report "$T/same.json"
cp "$DIS" "$T/dis.yuv"
before=$(cksum < "$T/dis.yuv")
"$VMAF" $GEO -r "$REF" -d "$T/dis.yuv" --report "$T/dis.yuv" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 255 ] && [ "$(cksum < "$T/dis.yuv")" = "$before" ] &&
  ok "--report naming the distorted input (exit 255): $(head -n 1 "$T/err")" || fail "--report naming an input: exit $rc"
refuse "--report in a missing folder, before scoring" 255 "$T/o.json" -- $GEO -r "$REF" -d "$DIS" --json \
    -o "$T/o.json" --report "$T/missing/r.html"
refuse "--report-from without files" 1 "$T/x.html" -- --report-from -o "$T/x.html"
refuse "--report-from without -o" 1 "$T/x.html" -- --report-from "$L/crf23.json"
refuse "--report-from with --feature" 1 "$T/x.html" -- --report-from "$L/crf23.json" --feature psnr -o "$T/x.html"
refuse "--report-from: not JSON" 255 "$T/x.html" -- --report-from "$HERE/report_cli.sh" -o "$T/x.html"
printf '{"version": "x", "frames": [{"frameNum": 1, "metrics": {"a": 1}}, {"frameNum": 0, "metrics": {"a": 2}}]}' > "$T/order.json"
refuse "--report-from: frames out of order" 255 "$T/x.html" -- --report-from "$T/order.json" -o "$T/x.html"
printf '{"version": "x", "frames": []}' > "$T/empty.json"
refuse "--report-from: no frames" 255 "$T/x.html" -- --report-from "$T/empty.json" -o "$T/x.html"
refuse "--report-from: missing file" 255 "$T/x.html" -- --report-from "$T/none.json" -o "$T/x.html"
before=$(cksum < "$L/crf23.json")
"$VMAF" --report-from "$L/crf23.json" -o "$L/crf23.json" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 255 ] && [ "$(cksum < "$L/crf23.json")" = "$before" ] &&
  ok "--report-from -o one of its files (exit 255): $(head -n 1 "$T/err")" || fail "--report-from over its input: exit $rc"
refuse "--report-fps 0" 1 "$T/x.html" -- --report-from "$L/crf23.json" --report-fps 0 -o "$T/x.html"
refuse "--report-fps 24/0" 1 "$T/x.html" -- --report-from "$L/crf23.json" --report-fps 24/0 -o "$T/x.html"
refuse "--report-fps without a report" 1 "$T/x.json" -- $GEO -r "$REF" -d "$DIS" -o "$T/x.json" --report-fps 24
refuse "--report with --segment" 1 "$T/x.html" -- $GEO -r "$REF" -d "$DIS" -o "$T/part" --segment 0:4 --report "$T/x.html"
printf '%s %s %s --report %s\n' "$REF" "$DIS" "$T/job.json" "$T/x.html" > "$T/batch.txt"
"$VMAF" $GEO --batch "$T/batch.txt" >/dev/null 2>"$T/err"; rc=$?
[ $rc -ne 0 ] && [ ! -e "$T/x.html" ] && grep -q -- '--report' "$T/err" &&
  ok "--report in a --batch job refused (exit $rc)" || fail "--report in a --batch job: exit $rc"

echo "$((cases - fails)) passed, $fails failed"
[ $fails -eq 0 ]
