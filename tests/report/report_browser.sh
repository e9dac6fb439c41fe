#!/bin/sh
# A real browser renders the report: headless Chromium (Debian's chromium, installed here when
# missing and this runs as root with apt; else skipped, exit 77) loads a ladder report of four
# renditions, takes a screenshot that must not be blank (report_tool.py png: a PNG read with
# zlib), logs no console message (an error or an exception), and its script runs: the feature
# charts hidden by default, a worst-frame link (#w0-1) marked; with #selftest the page checks
# its own interactions (src/report.c: sorting, toggles, a worst-frame link) and writes PASS or
# FAIL:why into <pre id="selftest">, read from --dump-dom.
# Usage: report_browser.sh VMAF CLIPS_DIR SCRATCH_DIR [SCREENSHOT_COPY.png]
set -u
VMAF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); CLIPS=$2; T=$3; COPY=${4:-}
HERE=$(cd "$(dirname "$0")" && pwd)
TOOL="python3 $HERE/report_tool.py"
rm -rf "$T"; mkdir -p "$T"

find_browser() {
  for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null 2>&1 && { command -v "$b"; return 0; }
  done
  return 1
}
B=$(find_browser)
if [ -z "$B" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get install -y --no-install-recommends chromium >"$T/apt.log" 2>&1 ||
    { timeout 300 apt-get update >>"$T/apt.log" 2>&1 &&
      timeout 600 apt-get install -y --no-install-recommends chromium >>"$T/apt.log" 2>&1; }
  B=$(find_browser)
fi
if [ -z "$B" ]; then
  echo "SKIP report_browser: no chromium, and it could not be installed (apt-get install chromium as root)"
  [ -f "$T/apt.log" ] && tail -n 3 "$T/apt.log"
  exit 77
fi
echo "browser: $B ($("$B" --version 2>/dev/null | head -n 1))"

REF=$CLIPS/boats_576x324_420p_ref.yuv
DIS=$CLIPS/boats_576x324_420p_dis.yuv
$TOOL renditions "$REF" "$DIS" 576 324 24 "$T/r" || { echo "FAIL renditions"; exit 1; }
# from the renditions' folder: the page names them without a directory
(cd "$T/r" && "$VMAF" -r ref.y4m -d crf23.y4m -d noisy.y4m -d quant.y4m -d lines.y4m \
  --feature psnr --json -o "{name}.json" --report ../ladder.html -q) ||
  { echo "FAIL the ladder run exited $?"; exit 1; }

# headless: no sandbox as root, a profile of its own, no GPU
browse() {
  timeout 120 "$B" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$T/profile" --enable-logging=stderr --v=0 "$@"
}
fails=0; cases=0
ok() { cases=$((cases + 1)); echo "ok   $1"; }
fail() { cases=$((cases + 1)); fails=$((fails + 1)); echo "FAIL $1"; }

browse --window-size=1280,1400 --screenshot="$T/shot.png" "file://$T/ladder.html" 2>"$T/shot.log"
if [ -s "$T/shot.png" ] && $TOOL png "$T/shot.png" >"$T/png" 2>&1; then ok "screenshot: $(cat "$T/png")"
else fail "screenshot: $(cat "$T/png" 2>/dev/null)"; fi
browse --dump-dom "file://$T/ladder.html#w0-1" >"$T/dom.html" 2>"$T/dom.log"
browse --dump-dom "file://$T/ladder.html#selftest" >"$T/self.html" 2>"$T/self.log"
if grep ':CONSOLE' "$T/shot.log" "$T/dom.log" "$T/self.log"; then fail "console messages (above)"; else ok "no console message"; fi
verdict=$(grep -o '<pre id="selftest">[^<]*' "$T/self.html" | sed 's/.*>//')
case "$verdict" in
  PASS*) ok "#selftest: every sortable column sorted both ways, every toggle flipped, a worst-frame link to a hidden mark: $verdict" ;;
  *) fail "#selftest: ${verdict:-no verdict}" ;;
esac
grep -q 'id="selftest"' "$T/dom.html" && fail "the self-check ran without #selftest" || ok "no self-check without #selftest"
hidden=$(grep -o '<figure id="chart-[0-9]*"[^>]*style="display: none;"' "$T/dom.html" | wc -l)
shown=$(grep -o '<figure id="chart-[0-9]*"' "$T/dom.html" | wc -l)
[ "$hidden" -gt 0 ] && [ "$hidden" -lt "$shown" ] &&
  ok "the script ran: $hidden of $shown charts hidden (the features)" || fail "charts hidden: $hidden of $shown"
grep -q 'id="w0-1" class="worst hl"' "$T/dom.html" && ok "#w0-1 marks the worst frame of rung 0" ||
  fail "#w0-1 not marked"
[ -n "$COPY" ] && cp "$T/shot.png" "$COPY" && echo "screenshot copied to $COPY"
echo "$((cases - fails)) passed, $fails failed"
[ $fails -eq 0 ]
