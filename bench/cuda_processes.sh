#!/bin/bash
# The headline figures on the GPU machine: whole CLI processes, one line each (files in the page
# cache), the median of REPS runs, ours next to reference CUDA 3.1.0 and reference CPU when
# carried (.refbin/vmaf_ref_cuda_3.1.0, .refbin/vmaf_ref_cpu; never committed):
# - 4K jetty (make-4k.py), 1 / 120 / 600 frames: default model and the 4 twins (psnr,
#   psnr_hvs, motion, motion_v2) with --backend cuda; steady state = (t(N) - t(1)) / (N - 1);
# - 1080p jetty (pingpong.py, 600 frames): the same, steady state over 599 frames;
# - the bare driver client (bench/ctx_probe) with 1/2/8 queues, and what our 1- and 120-frame
#   4K runs add to it on the same machine (the machine-independent part of a short run);
# - CPU path, 16 threads, default model, 4K 120 frames, ours vs reference CPU;
# - peak RSS at 16 threads (bench/peak_rss.sh), 1080p and 4K, ours (CPU path) vs reference CPU;
# - the phase profile (VMAF_CUDA_PROFILE=1) of a 1-frame and a 120-frame 4K run, and the
#   whole process split into before main / main / after main (its wall-clock line).
#   bench/cuda_processes.sh [REPS=5] (the 120-frame figures vary by ±30 ms from one run to the next)
set -u
REPS=${1:-5}
K4=/tmp/4k; K6=/tmp/4k600; J=/tmp/1080; mkdir -p $K4 $K6 $J
[ -f $K4/jetty_3840x2160_420p_ref.yuv ] || python3 ../shared/tools/make-4k.py ../shared/data/clips $K4 120 > /dev/null
[ -f $K6/jetty_3840x2160_420p_ref.yuv ] || python3 ../shared/tools/make-4k.py ../shared/data/clips $K6 600 > /dev/null
[ -f $J/jetty_1920x1080_420p_600_ref.yuv ] || python3 ../shared/tools/pingpong.py ../shared/data/clips jetty_1920x1080_420p 600 $J > /dev/null
R=$K4/jetty_3840x2160_420p_ref.yuv; D=$K4/jetty_3840x2160_420p_dis.yuv
R6=$K6/jetty_3840x2160_420p_ref.yuv; D6=$K6/jetty_3840x2160_420p_dis.yuv
JR=$J/jetty_1920x1080_420p_600_ref.yuv; JD=$J/jetty_1920x1080_420p_600_dis.yuv
cat $R $D $R6 $D6 $JR $JD > /dev/null
REF_CUDA=.refbin/vmaf_ref_cuda_3.1.0; REF_CPU=.refbin/vmaf_ref_cpu
declare -A ours_1 ours_120 # our 4K 1- and 120-frame medians, by case (default, twins)
TWINS="-n --feature psnr --feature psnr_hvs --feature motion --feature motion_v2"
# median wall ms of REPS runs of the command
med() {
  local ts=() k s e
  for ((k = 0; k < REPS; k++)); do
    s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N); ts+=($(( (e - s) / 1000000 )))
  done
  printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (REPS + 1) / 2 ))p"
}
# line: what, t(1), t(N), N
steady() {
  awk -v w="$1" -v a="$2" -v b="$3" -v n="$4" 'BEGIN { d = b - a;
    printf "%s: 1 frame %d ms, %d frames %d ms, steady state %s fps\n", w, a, n, b,
           (d > 0 ? sprintf("%.0f", (n - 1) * 1000 / d) : "n/a") }'
}
for what in default twins; do
  args=; [ $what = twins ] && args=$TWINS
  name=$([ $what = twins ] && echo "4 twins" || echo "default model")
  for bin in build/tools/vmaf $REF_CUDA; do
    [ -x $bin ] || continue
    [ $bin = $REF_CUDA ] && [ $what = twins ] && continue # the reference has no psnr_hvs twin
    extra=; [ $bin = build/tools/vmaf ] && extra="--backend cuda"
    who=$([ $bin = $REF_CUDA ] && echo "reference CUDA 3.1.0" || echo "ours cuda")
    t1=$(med $bin -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 $args $extra --frame_cnt 1 -q -o /dev/null)
    t120=$(med $bin -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 $args $extra --frame_cnt 120 -q -o /dev/null)
    steady "4K $name, $who" $t1 $t120 120
    [ $bin = build/tools/vmaf ] && ours_1[$what]=$t1 && ours_120[$what]=$t120
    if [ $bin = build/tools/vmaf ]; then
      t600=$(med $bin -r $R6 -d $D6 -w 3840 -h 2160 -p 420 -b 8 $args $extra -q -o /dev/null)
      steady "4K $name, $who, 600-frame title" $t1 $t600 600
    fi
    t1=$(med $bin -r $JR -d $JD -w 1920 -h 1080 -p 420 -b 8 $args $extra --frame_cnt 1 -q -o /dev/null)
    t600=$(med $bin -r $JR -d $JD -w 1920 -h 1080 -p 420 -b 8 $args $extra -q -o /dev/null)
    steady "1080p $name, $who" $t1 $t600 600
  done
done
# our CLI runs the driver with CUDA_DEVICE_MAX_CONNECTIONS=1 (tools/vmaf.c); the reference so
[ -x $REF_CUDA ] && for n in 1 120; do
  echo "4K default model, reference CUDA 3.1.0 with CUDA_DEVICE_MAX_CONNECTIONS=1: $n frames $(CUDA_DEVICE_MAX_CONNECTIONS=1 med $REF_CUDA -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --frame_cnt $n -q -o /dev/null) ms"
done
# the bare driver client's process (bench/ctx_probe: load, cuInit, context, release, exit)
[ -x build/bench/ctx_probe ] && for c in 1 2 8; do
  bare=$(CUDA_DEVICE_MAX_CONNECTIONS=$c med build/bench/ctx_probe)
  echo "bare driver client, CUDA_DEVICE_MAX_CONNECTIONS=$c: process $bare ms"
  # what our runs add to the driver's fixed cost on this machine (the CLI runs with 1 queue)
  [ $c = 1 ] && for what in default twins; do
    [ -n "${ours_1[$what]:-}" ] && echo "4K $what, ours cuda, above the bare client:" \
      "1 frame +$((ours_1[$what] - bare)) ms, 120 frames +$((ours_120[$what] - bare)) ms"
  done
done
for bin in build/tools/vmaf $REF_CPU; do
  [ -x $bin ] || continue
  extra=; [ $bin = build/tools/vmaf ] && extra="--backend cpu"
  echo "CPU path 4K default model 120 frames --threads 16, $bin: $(med $bin -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 $extra --threads 16 --frame_cnt 120 -q -o /dev/null) ms"
done
for bin in build/tools/vmaf $REF_CPU; do
  [ -x $bin ] || continue
  extra=; [ $bin = build/tools/vmaf ] && extra="--backend cpu"
  VMAF_ARGS="$extra" bench/peak_rss.sh $bin $JR $JD 1920 1080 16
  VMAF_ARGS="--frame_cnt 48 $extra" bench/peak_rss.sh $bin $R $D 3840 2160 16
done
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
# where a whole process's time goes, from the profile's wall-clock line (medians of REPS):
# before main (exec, loading), main, after main (exit: the driver's teardown of the process)
split() {
  local what=$1 k s e c
  shift
  for ((k = 0; k < REPS; k++)); do
    s=$(date +%s.%N)
    c=$(VMAF_CUDA_PROFILE=1 "$@" 2>&1 > /dev/null | sed -n 's/^cli clock (CLOCK_REALTIME, s): main entered \([0-9.]*\), phases printed \([0-9.]*\)$/\1 \2/p')
    e=$(date +%s.%N)
    echo "$s $c $e"
  done | awk -v w="$what" 'NF == 4 { n++; p[n] = ($4 - $1) * 1e3; b[n] = ($2 - $1) * 1e3;
      m[n] = ($3 - $2) * 1e3; a[n] = ($4 - $3) * 1e3 }
    function med(x,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
      if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t } return x[int((n + 1) / 2)] }
    END { if (n) printf "%s, profiled, medians of %d: process %.1f ms = before main %.1f + main %.1f + after main (exit) %.1f\n",
      w, n, med(p), med(b), med(m), med(a) }'
}
split "4K default model cuda 120 frames" build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cuda --frame_cnt 120 -q -o /dev/null
split "4K default model cuda 1 frame" build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cuda --frame_cnt 1 -q -o /dev/null
for n in 1 120; do
  VMAF_CUDA_PROFILE=1 build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cuda \
    --frame_cnt $n -q -o /dev/null 2>&1 | grep -E "^cli|start-up|teardown" | sed "s/^/[profile, $n frames] /"
  VMAF_CUDA_PROFILE=1 build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cuda \
    $TWINS --frame_cnt $n -q -o /dev/null 2>&1 | grep -E "^cli|start-up|teardown" | sed "s/^/[profile, 4 twins, $n frames] /"
done
# read workers with CUDA (default 12, sharing each frame): 4K default model, 120 frames
for w in 4 8 12 16; do
  echo "4K default model cuda 120 frames, VMAF_READ_WORKERS=$w: $(VMAF_READ_WORKERS=$w med build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cuda --frame_cnt 120 -q -o /dev/null) ms"
done
# frames read ahead (default 4; each is 2 pinned pictures) and workers, 4 twins and default model
for what in default twins; do
  args=; [ $what = twins ] && args=$TWINS
  for d in 2 3 4 6; do
    echo "4K $what cuda 120 frames, VMAF_READ_DEPTH=$d: $(VMAF_READ_DEPTH=$d med build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 $args --backend cuda --frame_cnt 120 -q -o /dev/null) ms"
  done
  [ $what = twins ] && for w in 8 16; do
    echo "4K twins cuda 120 frames, VMAF_READ_WORKERS=$w: $(VMAF_READ_WORKERS=$w med build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 $args --backend cuda --frame_cnt 120 -q -o /dev/null) ms"
  done
done
# the same scores through the new readers: 4K 120 frames, cuda vs the CPU path (json_compare)
for what in default twins; do
  args=; [ $what = twins ] && args=$TWINS
  for b in cuda cpu; do
    build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 $args --backend $b --threads 16 \
      --frame_cnt 120 -q -o /tmp/cudaproc_${what}_$b.json --json > /dev/null 2>&1
  done
  if build/tests/golden/json_compare /tmp/cudaproc_${what}_cuda.json /tmp/cudaproc_${what}_cpu.json > /tmp/cudaproc_cmp.txt; then
    echo "4K $what 120 frames: cuda and cpu outputs identical ($(tail -1 /tmp/cudaproc_cmp.txt))"
  else
    echo "4K $what 120 frames: cuda and cpu outputs DIFFER"; head -3 /tmp/cudaproc_cmp.txt
  fi
done
