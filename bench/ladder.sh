#!/bin/bash
# Ladders and batches against separate runs, side by side in one run (whole processes, page
# cache, medians). Run from the project root after `make build`; ../shared present.
#   bench/ladder.sh cpu   1080p jetty x 60 frames, 4 distorted (the clip's + blur, noise, quant),
#                         default model, --backend cpu --threads 2: one ladder vs 4 runs
#   bench/ladder.sh gpu   4K jetty (make-4k.py) x 120 frames, 8 distorted, default model,
#                         --backend cuda: one ladder vs 8 runs of ours (vs 8 of reference CUDA
#                         3.1.0 when carried as .refbin/vmaf_ref_cuda_3.1.0)
#   bench/ladder.sh cpu-split  after cpu: the CPU time of ladders of 1, 2 and 4 of those rungs
#                         at one worker, split into the work done once and the work per rung
#   bench/ladder.sh gpu-floor  after gpu: where the 4K ladder's time goes: reading its 9
#                         inputs (cat, page cache), the ladder with the default model and with
#                         luma PSNR alone (the floor: reading and uploads), and one rung's
#                         device operations per frame (VMAF_CUDA_PROFILE=ops, 30 frames)
#   bench/ladder.sh batch --batch of 200 titles of 1080p x 24 frames vs 200 processes (CUDA)
# RUNS (default 5) repetitions; WORK (default /tmp/ladder-bench) holds the inputs.
set -u
mode=${1:-cpu}
RUNS=${RUNS:-5}
WORK=${WORK:-/tmp/ladder-bench}
VMAF=build/tools/vmaf
MAKE=build/tests/ladder/make_renditions
mkdir -p "$WORK"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# time_ms CMD...: the wall time of one run, in ms (its output discarded; a failure aborts)
time_ms() {
  local s e; s=$(now_ms)
  "$@" > /dev/null 2> "$WORK/last.err" || { echo "failed: $*" >&2; cat "$WORK/last.err" >&2; exit 1; }
  e=$(now_ms); echo $((e - s))
}

# compare NAME_A CMD_A NAME_B CMD_B: RUNS paired repetitions, medians and the ratio
compare() {
  local a b; : > "$WORK/a.ms"; : > "$WORK/b.ms"
  for _ in $(seq "$RUNS"); do
    eval "$2" >> "$WORK/a.ms"
    eval "$4" >> "$WORK/b.ms"
  done
  a=$(median < "$WORK/a.ms"); b=$(median < "$WORK/b.ms")
  echo "$1: $a ms; $3: $b ms; ratio $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", a / b}')x"
}

renditions() { # SRC W H N OUT_PREFIX: OUT_PREFIX_{blur,noise,quant}.yuv
  [ -f "$5_quant.yuv" ] || "$MAKE" "$1" "$2" "$3" 420 8 "$4" "$5_blur.yuv" "$5_noise.yuv" "$5_quant.yuv"
}

separate() { # GEO ARGS REF DIS...: one process per distorted input, in turn
  local geo=$1 args=$2 ref=$3 t=0; shift 3
  for d in "$@"; do t=$((t + $(time_ms $VMAF -r "$ref" -d "$d" $geo $args -q -o /dev/null))); done
  echo $t
}

ladder() { # GEO ARGS REF DIS...: one process, every distorted input
  local geo=$1 args=$2 ref=$3 ds=(); shift 3
  for d in "$@"; do ds+=(-d "$d"); done
  time_ms $VMAF -r "$ref" "${ds[@]}" $geo $args -q --json -o "$WORK/out/{n}.json"
}

mkdir -p "$WORK/out"
if [ "$mode" = cpu ]; then
  python3 ../shared/tools/pingpong.py ../shared/data/clips jetty_1920x1080_420p 60 "$WORK" > /dev/null
  R=$WORK/jetty_1920x1080_420p_60_ref.yuv; D=$WORK/jetty_1920x1080_420p_60_dis.yuv
  renditions "$D" 1920 1080 60 "$WORK/j60"
  DIS=("$D" "$WORK/j60_blur.yuv" "$WORK/j60_noise.yuv" "$WORK/j60_quant.yuv")
  GEO="-w 1920 -h 1080 -p 420 -b 8"; ARGS="--backend cpu --threads 2"
  echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  compare "4 separate runs" "separate '$GEO' '$ARGS' $R ${DIS[*]}" \
          "one ladder of 4" "ladder '$GEO' '$ARGS' $R ${DIS[*]}"
  exit 0
fi

if [ "$mode" = cpu-split ]; then
  # The CPU time (user + sys, one worker) of ladders of 1, 2 and 4 rungs of the cpu mode's
  # inputs, medians of RUNS: a ladder of K costs about S + K P (S: the work done once for
  # every rung, P: the work of one rung), fitted by least squares; a ladder of 4 can then be
  # at most 4 (S + P) / (S + 4 P) times faster than 4 runs, however the work is spread.
  R=$WORK/jetty_1920x1080_420p_60_ref.yuv; D=$WORK/jetty_1920x1080_420p_60_dis.yuv
  [ -f "$WORK/j60_quant.yuv" ] || { echo "run bench/ladder.sh cpu first (it makes the inputs)" >&2; exit 2; }
  DIS=("$D" "$WORK/j60_blur.yuv" "$WORK/j60_noise.yuv" "$WORK/j60_quant.yuv")
  GEO="-w 1920 -h 1080 -p 420 -b 8"
  cpu_s() { # the CPU seconds of a ladder of the first $1 inputs
    local ds=() k
    for k in $(seq 0 $(($1 - 1))); do ds+=(-d "${DIS[$k]}"); done
    /usr/bin/time -f "%U %S" -o "$WORK/cpu.txt" $VMAF -r "$R" "${ds[@]}" $GEO --backend cpu \
      --threads 1 -q --json -o "$WORK/out/{n}.json" > /dev/null 2>&1 || { echo "failed" >&2; exit 1; }
    awk '{printf "%.2f\n", $1 + $2}' "$WORK/cpu.txt"
  }
  pts=""
  for k in 1 2 4; do
    : > "$WORK/k.s"; for _ in $(seq "$RUNS"); do cpu_s $k >> "$WORK/k.s"; done
    m=$(median < "$WORK/k.s"); pts="$pts $k $m"; echo "ladder of $k: $m CPU-s"
  done
  echo "$pts" | awk '{n = 0; for (i = 1; i <= NF; i += 2) {x[n] = $i; y[n] = $(i + 1); n++}
    for (i = 0; i < n; i++) {sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i]}
    p = (n * sxy - sx * sy) / (n * sxx - sx * sx); s = (sy - p * sx) / n
    printf "shared S = %.2f CPU-s, per rung P = %.2f CPU-s (S is %.0f %% of one run): a ladder of 4 at most %.2fx 4 runs; measured %.2fx\n",
           s, p, 100 * s / (s + p), 4 * (s + p) / (s + 4 * p), 4 * y[0] / y[n - 1]}'
  exit 0
fi

if [ "$mode" = gpu-floor ]; then
  K4=$WORK/4k; R=$K4/jetty_3840x2160_420p_ref.yuv; D=$K4/jetty_3840x2160_420p_dis.yuv
  [ -f "$K4/b_quant.yuv" ] || { echo "run bench/ladder.sh gpu first (it makes the inputs)" >&2; exit 2; }
  DIS=("$D" "$K4/a_blur.yuv" "$K4/a_noise.yuv" "$K4/a_quant.yuv" "$K4/b_blur.yuv" "$K4/b_noise.yuv"
       "$K4/b_quant.yuv" "$R")
  GEO="-w 3840 -h 2160 -p 420 -b 8"
  A="--backend cuda --threads $(nproc)"
  : > "$WORK/c.ms"; : > "$WORK/l.ms"; : > "$WORK/p.ms"
  for _ in $(seq "$RUNS"); do
    time_ms cat "$R" "${DIS[@]}" >> "$WORK/c.ms"
    ladder "$GEO" "$A" "$R" "${DIS[@]}" >> "$WORK/l.ms"
    ladder "$GEO" "$A --no_prediction --feature psnr=enable_chroma=false" "$R" "${DIS[@]}" >> "$WORK/p.ms"
  done
  echo "reading the 9 inputs (cat > /dev/null): $(median < "$WORK/c.ms") ms; the ladder of 8, default model: $(median < "$WORK/l.ms") ms; luma PSNR alone (reading, uploads, a trivial kernel): $(median < "$WORK/p.ms") ms"
  VMAF_CUDA_PROFILE=ops $VMAF -r "$R" -d "$D" $GEO --backend cuda --frame_cnt 30 -q -o /dev/null \
    2> "$WORK/ops.txt" > /dev/null || { cat "$WORK/ops.txt" >&2; exit 1; }
  grep -E "^  (device|host)" "$WORK/ops.txt"
  awk '$1 == "device" {t += $(NF - 1)} END {printf "one rung: %.3f ms of device operations a frame (x 8 rungs x 120 frames = %.0f ms)\n", t, t * 960}' "$WORK/ops.txt"
  exit 0
fi

if [ "$mode" = gpu ]; then
K4=$WORK/4k
[ -f "$K4/jetty_3840x2160_420p_ref.yuv" ] ||
  python3 ../shared/tools/make-4k.py ../shared/data/clips "$K4" 120 > /dev/null
R=$K4/jetty_3840x2160_420p_ref.yuv; D=$K4/jetty_3840x2160_420p_dis.yuv
renditions "$D" 3840 2160 120 "$K4/a"
renditions "$K4/a_blur.yuv" 3840 2160 120 "$K4/b"
DIS=("$D" "$K4/a_blur.yuv" "$K4/a_noise.yuv" "$K4/a_quant.yuv" "$K4/b_blur.yuv" "$K4/b_noise.yuv"
     "$K4/b_quant.yuv" "$R")
GEO="-w 3840 -h 2160 -p 420 -b 8"; ARGS="--backend cuda --threads $(nproc)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
compare "8 separate runs (ours)" "separate '$GEO' '$ARGS' $R ${DIS[*]}" \
        "one ladder of 8" "ladder '$GEO' '$ARGS' $R ${DIS[*]}"
REF_CUDA=.refbin/vmaf_ref_cuda_3.1.0
if [ -x $REF_CUDA ]; then
  : > "$WORK/r.ms"
  for _ in $(seq "$RUNS"); do VMAF=$REF_CUDA separate "$GEO" "" "$R" "${DIS[@]}" >> "$WORK/r.ms"; done
  echo "8 separate runs (reference CUDA 3.1.0): $(median < "$WORK/r.ms") ms"
else
  echo "reference CUDA 3.1.0 not carried (.refbin/vmaf_ref_cuda_3.1.0): not compared"
fi

exit 0
fi

# batch (GPU machine): --batch of 200 titles of 1080p x 24 frames (one clip under 200 names:
# each its own title) vs 200 processes
python3 ../shared/tools/pingpong.py ../shared/data/clips jetty_1920x1080_420p 24 "$WORK" > /dev/null
T=$WORK/titles; mkdir -p "$T"; : > "$WORK/batch.txt"
for i in $(seq 200); do
  ln -sf "$WORK/jetty_1920x1080_420p_24_ref.yuv" "$T/t${i}_ref.yuv"
  ln -sf "$WORK/jetty_1920x1080_420p_24_dis.yuv" "$T/t${i}_dis.yuv"
  echo "$T/t${i}_ref.yuv $T/t${i}_dis.yuv $WORK/out/t$i.json" >> "$WORK/batch.txt"
done
G="-w 1920 -h 1080 -p 420 -b 8"
processes() {
  local s e; s=$(now_ms)
  for i in $(seq 200); do
    $VMAF -r "$T/t${i}_ref.yuv" -d "$T/t${i}_dis.yuv" $G --backend cuda -q -o /dev/null || exit 1
  done
  e=$(now_ms); echo $((e - s))
}
RUNS=$(( RUNS < 3 ? RUNS : 3 ))
compare "200 processes" "processes" \
        "--batch of 200" "time_ms $VMAF --batch $WORK/batch.txt $G --backend cuda -q"
