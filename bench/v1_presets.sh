#!/bin/bash
# VMAF v1.0.16 and the CTC presets on the GPU machine (one line per measurement): 4K jetty from pinned memory
# (bench_frames: ms per frame, CPU vs CUDA, pooled values compared there) for ciede, float_ssim,
# float_ms_ssim, cambi and VMAF v1.0.16; then whole CLI processes for --aom_ctc v7.0 and
# --nflx_ctc v1.0 (and v1.0.16) with --backend cuda and cpu, their outputs compared byte for
# byte; then the device profile of 20 frames of --aom_ctc v7.0.
#   bench/v1_presets.sh [THREADS]
set -u
T=${1:-$(nproc)}
K4=/tmp/4k; mkdir -p $K4; R=$K4/jetty_3840x2160_420p_ref.yuv; D=$K4/jetty_3840x2160_420p_dis.yuv
[ -f $R ] || python3 ../shared/tools/make-4k.py ../shared/data/clips $K4 120 > /dev/null
cat $R $D > /dev/null
for f in ciede float_ssim float_ms_ssim cambi; do
  build/bench/bench_frames $R $D 3840 2160 --frames 60 --threads $T --features $f --backend both 2>&1 \
    | sed "s/^/$f: /"
done
build/bench/bench_frames $R $D 3840 2160 --frames 240 --threads $T --features none \
  --model vmaf_v1.0.16_3d0h_2160 --backend cuda 2>&1 | sed "s/^/vmaf_v1.0.16_3d0h_2160: /"
W="-r $R -d $D -w 3840 -h 2160 -p 420 -b 8"
for preset in "--aom_ctc v7.0" "--nflx_ctc v1.0" "--model version=vmaf_v1.0.16_3d0h_2160"; do
  tag=$(echo "$preset" | tr -c 'a-z0-9._\n' '_')
  for n in 1 120; do
    for b in cuda cpu; do
      s=$(date +%s%N)
      build/tools/vmaf $W $preset --backend $b --threads $T --frame_cnt $n --json -q \
        -o /tmp/v1presets_${tag}_${b}_$n.json > /tmp/v1presets_${tag}_${b}_$n.log 2>&1
      rc=$?; e=$(date +%s%N)
      echo "CLI 4K $preset, $n frames, --backend $b --threads $T: $(( (e - s) / 1000000 )) ms (exit $rc)"
    done
    if build/tests/golden/json_compare /tmp/v1presets_${tag}_cuda_$n.json /tmp/v1presets_${tag}_cpu_$n.json > /tmp/v1presets_cmp.txt; then
      echo "CLI 4K $preset, $n frames: cuda and cpu outputs identical ($(tail -1 /tmp/v1presets_cmp.txt))"
    else
      echo "CLI 4K $preset, $n frames: cuda and cpu outputs DIFFER"; head -3 /tmp/v1presets_cmp.txt; tail -2 /tmp/v1presets_${tag}_cuda_$n.log
    fi
  done
done
VMAF_CUDA_PROFILE=ops build/tools/vmaf $W --aom_ctc v7.0 --backend cuda --frame_cnt 20 -q \
  -o /dev/null 2>&1 | tail -60
