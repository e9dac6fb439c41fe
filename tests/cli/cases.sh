# Sourced by the CLI test scripts (cli_segment.sh, cli_split.sh, report_cli.sh): counted cases
# and the common refusal check. Needs VMAF (the binary) and T (a scratch folder) set, and the
# counters cases=0 fails=0.

ok() { cases=$((cases + 1)); echo "ok   $1"; }
fail() { cases=$((cases + 1)); fails=$((fails + 1)); echo "FAIL $1"; [ -f "$T/err" ] && sed 's/^/     /' "$T/err"; }

# refuse NAME STATUS OUT -- ARGS: exit STATUS, a message, OUT not written (nor a temporary)
refuse() {
  name=$1; want=$2; out=$3; shift 4
  rm -f "$out"
  "$VMAF" "$@" >/dev/null 2>"$T/err"
  rc=$?
  if [ $rc -eq "$want" ] && [ -s "$T/err" ] && [ ! -e "$out" ] && ! ls "$out".tmp* >/dev/null 2>&1; then
    ok "$name (exit $rc): $(grep -v '^$' "$T/err" | head -n 1)"
  else
    fail "$name: exit $rc (want $want), output $out $( [ -e "$out" ] && echo written || echo absent)"
  fi
}
