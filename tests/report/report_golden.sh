#!/bin/sh
# vmaf --report-from on reference libvmaf's own JSON files (the golden outputs, %.17g): one
# report each of a model run, scores that are not numbers (null), aggregates (apsnr), two
# models, a 1080p clip, a ladder report of three files with different metrics (a chart
# per metric of any file, a curve per file that has it), one of feature files only (every
# chart a feature: suffixed, raw and debug names); each checked by report_tool.py.
# Usage: report_golden.sh VMAF GOLDEN_DIR SCRATCH_DIR
set -u
VMAF=$1; G=$2; T=$3
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$T"; mkdir -p "$T"
fails=0; cases=0
report() {
  name=$1; shift
  cases=$((cases + 1))
  if "$VMAF" --report-from "$@" -o "$T/$name.html" 2>"$T/err" &&
     python3 "$HERE/report_tool.py" check "$T/$name.html" "$@" >"$T/check" 2>&1; then
    echo "ok   $name: $(cat "$T/check")"
  else
    fails=$((fails + 1)); echo "FAIL $name"; cat "$T/err" "$T/check" 2>/dev/null | sed 's/^/     /'
  fi
}
B=$G/boats_576x324_420p
report vmaf "$B.vmaf_v0.6.1.json"
report nulls "$B.adm_opts.json"
report aggregates "$B.psnr_opts.json"
report two_models "$B.two_models.json"
report jetty "$G/jetty_1920x1080_420p.vmaf_v0.6.1.json"
report ladder "$B.vmaf_v0.6.1.json" "$B.vmaf_b_v0.6.3.json" "$B.psnr.json"
# features with options (suffixed names), raw motion names, debug outputs: features all
report features "$B.cambi_opts.json" "$B.speed_chroma_opts.json" "$B.float_ms_ssim_opts.json" \
  "$B.motion_opts.json" "$B.vif_opts.json" "$B.ciede.json" "$B.psnr_hvs.json" "$B.speed_temporal_opts.json"
echo "$((cases - fails)) passed, $fails failed"
[ $fails -eq 0 ]
