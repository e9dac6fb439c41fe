#!/bin/bash
# The seeds' whole set (psnr, psnr_hvs, motion_v2, speed_chroma, speed_temporal + the default
# model) on every shared clip with --backend cuda and --backend cpu: the output files must be
# identical apart from fps (and the exit status equal where a clip is refused).
#   bench/seeds_check.sh CLIPS_DIR [THREADS]
set -u
C=$1; T=${2:-0}; W=$(mktemp -d); same=0; diff=0; refused=0
while IFS=$'\t' read -r name w h fmt bits frames _; do
  [ "$name" = clip ] && continue
  F="--feature psnr --feature motion_v2 --feature speed_chroma --feature speed_temporal"
  [ "$bits" -le 12 ] && F="$F --feature psnr_hvs"
  for b in cuda cpu; do
    build/tools/vmaf -r $C/${name}_ref.yuv -d $C/${name}_dis.yuv -w $w -h $h -p $fmt -b $bits $F \
      --backend $b --threads $T --json --precision max -q -o $W/$b.json > $W/$b.log 2>&1
    echo $? > $W/$b.rc
  done
  if ! cmp -s $W/cuda.rc $W/cpu.rc; then
    echo "DIFFER $name: exit cuda $(cat $W/cuda.rc) cpu $(cat $W/cpu.rc)"; diff=$((diff + 1))
  elif [ "$(cat $W/cpu.rc)" != 0 ]; then
    refused=$((refused + 1))
  elif cmp -s <(grep -v '"fps"' $W/cuda.json) <(grep -v '"fps"' $W/cpu.json); then
    same=$((same + 1))
  else
    echo "DIFFER $name"; diff <(grep -v '"fps"' $W/cpu.json) <(grep -v '"fps"' $W/cuda.json) | head -4
    diff=$((diff + 1))
  fi
done < ../shared/data/clips/MANIFEST.tsv
echo "seeds' set --threads $T: $same clips identical, $refused refused alike, $diff different"
rm -rf $W
[ $diff = 0 ]
