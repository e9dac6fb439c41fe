#!/bin/bash
# SpEED twins on the GPU machine: ms per 4K frame of each SpEED twin from pinned memory
# (bench_frames, cpu vs cuda, pooled values compared there), the seeds' whole set (psnr,
# psnr_hvs, motion, motion_v2, speed_chroma, speed_temporal + the default model) from pinned
# memory and as whole CLI processes next to the CPU path, and the device profile of a frame.
#   bench/speed_twins.sh [THREADS]     (prints one line per measurement)
set -u
T=${1:-$(nproc)}
K4=/tmp/4k; mkdir -p $K4; R=$K4/jetty_3840x2160_420p_ref.yuv; D=$K4/jetty_3840x2160_420p_dis.yuv
[ -f $R ] || python3 ../shared/tools/make-4k.py ../shared/data/clips $K4 120 > /dev/null
cat $R $D > /dev/null
for f in speed_chroma speed_temporal; do
  build/bench/bench_frames $R $D 3840 2160 --frames 120 --threads $T --features $f --backend both 2>&1 \
    | sed "s/^/$f: /"
done
SEEDS=psnr,psnr_hvs,motion,motion_v2,speed_chroma,speed_temporal
build/bench/bench_frames $R $D 3840 2160 --frames 120 --threads $T --features $SEEDS --model vmaf_v0.6.1 \
  --backend both 2>&1 | sed "s/^/seeds' set + vmaf_v0.6.1: /"
F="--feature psnr --feature psnr_hvs --feature motion --feature motion_v2 --feature speed_chroma --feature speed_temporal"
for b in cuda cpu; do
  for n in 1 120; do
    s=$(date +%s%N)
    build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 $F --backend $b --threads $T --frame_cnt $n \
      --json -q -o /tmp/seeds_${b}_$n.json > /dev/null 2>&1
    rc=$?; e=$(date +%s%N)
    echo "CLI 4K seeds' set + default model, $n frames, --backend $b --threads $T: $(( (e - s) / 1000000 )) ms (exit $rc)"
  done
done
VMAF_CUDA_PROFILE=ops build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 $F --backend cuda \
  --frame_cnt 20 -q -o /dev/null 2>&1 | tail -60
