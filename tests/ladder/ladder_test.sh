#!/bin/sh
# A ladder run (one reference, several distorted files in one process) writes for each
# distorted the file its single-pair run writes, byte for byte but the fps value.
#
#   ladder_test.sh VMAF MAKE_RENDITIONS DATA MODELS CLIPS WORK RUN THREADS FORMAT [CLIP...]
#   ladder_test.sh --compare SINGLE LADDER     (the comparison alone, to try it by hand)
#
# RUN is a run of DATA/golden/RUNS.tsv or aom_ctc_v7.0 (--aom_ctc v7.0); FORMAT is json, xml,
# csv or sub; the clips are DATA/clips/MANIFEST.tsv's (all of them without CLIP arguments).
# For each clip the distorted files are the clip's own and make_renditions' blur, noise and
# quant of it (made once into WORK/renditions). Each is scored alone, then all four by one
# ladder run with four -o, then by one with the template -o 'DIR/{n}_{name}.EXT'. Where the
# single runs fail (a run refused on a clip), the ladder must fail with one of their exit
# statuses and write nothing for them. At least one clip's four files must differ pairwise
# (LADDER_SAME_OK=1 waives it for a run whose files do not depend on the distorted).
set -u

# The file without its fps: JSON's "fps": line, XML's <fyi fps=... /> (CSV and SUB have none).
strip_fps() {
  sed -e 's/^  "fps": .*,$/  "fps": (fps),/' -e 's/^  <fyi fps="[^"]*" \/>$/  <fyi fps="(fps)" \/>/' "$1"
}

# same_output SINGLE LADDER: whether they are equal but the fps (their fps-less copies go to
# $NF/a and $NF/b); first_diff prints where they differ first.
same_output() {
  strip_fps "$1" > "$NF/a" && strip_fps "$2" > "$NF/b" && cmp -s "$NF/a" "$NF/b"
}
first_diff() {
  echo "     first difference (< $1, > $2):"
  diff "$NF/a" "$NF/b" | head -n 4 | cut -c 1-200 | sed 's/^/     /'
}

if [ "${1:-}" = --compare ] && [ $# -eq 3 ]; then
  NF=$(mktemp -d) || exit 2
  if same_output "$2" "$3"; then echo "same but the fps"; rc=0; else first_diff "$2" "$3"; rc=1; fi
  rm -rf "$NF"
  exit $rc
fi
if [ $# -lt 9 ]; then
  echo "usage: $0 VMAF MAKE_RENDITIONS DATA MODELS CLIPS WORK RUN THREADS FORMAT [CLIP...]" >&2
  exit 2
fi
VMAF=$1; MAKE=$2; DATA=$3; MODELS=$4; CLIPS=$5; WORK=$6; RUN=$7; T=$8; FMT=$9
shift 9
case $FMT in json|xml|csv|sub) ;; *) echo "unknown format $FMT" >&2; exit 2;; esac
if [ "$RUN" = aom_ctc_v7.0 ]; then
  ARGS="--aom_ctc v7.0"
else
  ARGS=$(awk -F '\t' -v r="$RUN" '$1 == r { print $2 }' "$DATA/golden/RUNS.tsv")
  [ -n "$ARGS" ] || { echo "run $RUN is not in RUNS.tsv" >&2; exit 2; }
  ARGS=$(printf '%s\n' "$ARGS" | sed "s|MODELS|$MODELS|g")
fi
set -f # the run's arguments are split on spaces, never globbed
CLIP_LIST=${*:-$(awk -F '\t' 'NR > 1 { print $1 }' "$DATA/clips/MANIFEST.tsv")}
TAG="run $RUN, --threads $T, --$FMT"
mkdir -p "$WORK/renditions" || exit 2
clips=0; failed=0; distinct=0

fail() { echo "FAIL $clip ($TAG): $*"; bad=1; }

# renditions CLIP W H P B FRAMES: WORK/renditions/CLIP_{blur,noise,quant}.yuv, made once
# and again when make_renditions is newer (tests running at once each write their own
# temporary names, then rename)
renditions() {
  r=$WORK/renditions/$1; fresh=1
  for k in blur noise quant; do
    [ -s "${r}_$k.yuv" ] && [ -z "$(find "$MAKE" -newer "${r}_$k.yuv")" ] || fresh=0
  done
  [ $fresh -eq 1 ] && return 0
  "$MAKE" "$CLIPS/$1_dis.yuv" "$2" "$3" "$4" "$5" "$6" \
    "${r}_blur.$$" "${r}_noise.$$" "${r}_quant.$$" || return 1
  for k in blur noise quant; do mv -f "${r}_$k.$$" "${r}_$k.yuv" || return 1; done
}
dis() { eval "printf '%s' \"\$dis_$1\""; }

# check_ladder KIND RC STDERR OUT_1..OUT_4: the ladder's outputs and exit status against the
# single runs' ($D/single/i.$FMT, $fail_rcs)
check_ladder() {
  kind=$1; lrc=$2; lerr=$3; shift 3
  i=0
  for out in "$@"; do
    i=$((i + 1))
    s=$D/single/$i.$FMT
    if [ -e "$s" ] && [ ! -e "$out" ]; then
      fail "$kind: no output for distorted $i ($(dis $i)), its single run wrote one"
    elif [ ! -e "$s" ] && [ -e "$out" ]; then
      fail "$kind: an output for distorted $i ($(dis $i)), its single run wrote none"
    elif [ -e "$s" ] && ! same_output "$s" "$out"; then
      fail "$kind: output $i ($(dis $i)) is not its single run's"
      first_diff "$s" "$out"
    fi
  done
  if [ -z "$fail_rcs" ] && [ "$lrc" -ne 0 ]; then
    fail "$kind: exit status $lrc, every single run 0; stderr: $(head -n 3 "$lerr")"
  elif [ -n "$fail_rcs" ] && ! echo " $fail_rcs " | grep -q " $lrc "; then
    fail "$kind: exit status $lrc, the failing single runs' $fail_rcs"
  fi
}

for clip in $CLIP_LIST; do
  line=$(awk -F '\t' -v c="$clip" '$1 == c' "$DATA/clips/MANIFEST.tsv")
  [ -n "$line" ] || { echo "clip $clip is not in MANIFEST.tsv" >&2; exit 2; }
  set -- $line
  W=$2; H=$3; P=$4; B=$5; N=$6
  clips=$((clips + 1)); bad=0
  D=$WORK/$RUN.t$T.$FMT/$clip; NF=$D
  rm -rf "$D"; mkdir -p "$D/single" "$D/ladder" "$D/tmpl"
  if ! renditions "$clip" "$W" "$H" "$P" "$B" "$N"; then
    fail "make_renditions failed"; failed=$((failed + 1)); continue
  fi
  REF=$CLIPS/${clip}_ref.yuv
  dis_1=$CLIPS/${clip}_dis.yuv
  dis_2=$WORK/renditions/${clip}_blur.yuv
  dis_3=$WORK/renditions/${clip}_noise.yuv
  dis_4=$WORK/renditions/${clip}_quant.yuv
  COMMON="-w $W -h $H -p $P -b $B --threads $T --$FMT --precision max $ARGS"

  # the single runs
  fail_rcs=""
  for i in 1 2 3 4; do
    "$VMAF" -r "$REF" -d "$(dis $i)" $COMMON -o "$D/single/$i.$FMT" \
      2> "$D/single/$i.stderr"
    rc=$?
    [ $rc -eq 0 ] || fail_rcs="$fail_rcs $rc"
    if [ $rc -gt 128 ] && [ $rc -le 192 ]; then fail "single run $i: killed (exit $rc)"; fi
  done
  # whether the four files differ pairwise (a ladder that mixed the distorted up would be
  # seen); some runs give equal files on some clips (speed_* and cambi all 0 there, motion
  # reads only the reference), so the test asks this of one clip at least
  same=""; nd=0
  for i in 1 2 3; do
    for j in 2 3 4; do
      [ $j -gt $i ] || continue
      [ -e "$D/single/$i.$FMT" ] && [ -e "$D/single/$j.$FMT" ] || { nd=1; continue; }
      same_output "$D/single/$i.$FMT" "$D/single/$j.$FMT" && { same="$same $i=$j"; nd=1; }
    done
  done
  [ $nd -eq 1 ] || distinct=$((distinct + 1))

  # the ladder, one -o each
  "$VMAF" -r "$REF" -d "$dis_1" -d "$dis_2" -d "$dis_3" -d "$dis_4" $COMMON \
    -o "$D/ladder/1.$FMT" -o "$D/ladder/2.$FMT" -o "$D/ladder/3.$FMT" -o "$D/ladder/4.$FMT" \
    2> "$D/ladder/stderr"
  check_ladder "ladder with 4 -o" $? "$D/ladder/stderr" \
    "$D/ladder/1.$FMT" "$D/ladder/2.$FMT" "$D/ladder/3.$FMT" "$D/ladder/4.$FMT"

  # the ladder, one template -o: {n} is the position, {name} the base name without extension
  "$VMAF" -r "$REF" -d "$dis_1" -d "$dis_2" -d "$dis_3" -d "$dis_4" $COMMON \
    -o "$D/tmpl/{n}_{name}.$FMT" 2> "$D/ladder/tmpl.stderr"
  lrc=$?
  extra=$(ls "$D/tmpl" | grep -v -e "^1_${clip}_dis\.$FMT\$" -e "^2_${clip}_blur\.$FMT\$" \
    -e "^3_${clip}_noise\.$FMT\$" -e "^4_${clip}_quant\.$FMT\$" | tr '\n' ' ')
  [ -z "$extra" ] || fail "ladder with -o {n}_{name}: other files written: $extra"
  check_ladder "ladder with -o {n}_{name}" $lrc "$D/ladder/tmpl.stderr" \
    "$D/tmpl/1_${clip}_dis.$FMT" "$D/tmpl/2_${clip}_blur.$FMT" \
    "$D/tmpl/3_${clip}_noise.$FMT" "$D/tmpl/4_${clip}_quant.$FMT"

  if [ $bad -eq 0 ]; then
    echo "ok   $clip: ladder == single runs${fail_rcs:+, the single runs fail (exit$fail_rcs)}${same:+, equal files$same}"
    rm -rf "$D" # kept where something failed
  else
    failed=$((failed + 1))
  fi
done
echo "ladder $TAG: $clips clips, $((clips - failed)) ok, $failed failed; the 4 files distinct on $distinct"
if [ $distinct -eq 0 ] && [ -z "${LADDER_SAME_OK:-}" ]; then
  echo "FAIL: no clip gave 4 distinct files, so a mix-up would not be seen (LADDER_SAME_OK=1"
  echo "     for a run whose files do not depend on the distorted, as motion's)"
  failed=$((failed + 1))
fi
[ $failed -eq 0 ] && [ $clips -gt 0 ]
