#!/bin/bash
# One GPU-machine session: build, CPU tests, checktwin, golden parity with --backend cuda,
# and the 4K benchmarks. Logs go to $OUT (or ./gpu-out). Run from the project root on the
# GPU machine, with ../shared present (see DEVELOPERS.md: .shared is carried and linked).
#   bench/gpu_session.sh [build|ctest|twin|bench|all|sanitize]...
# sanitize (not part of all: it is slow): compute-sanitizer memcheck, racecheck, initcheck and
# synccheck over `checktwin --quick`, with graphs and without; each prints its ERROR SUMMARY.
# GOLDEN_RUNS / GOLDEN_THREADS narrow the golden runs repeated with --backend cuda.
set -u
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT"
JOBS=$(nproc)
step() { echo "== $1 ($(date +%T))" | tee -a "$OUT/summary.txt"; }
what=${*:-all}

if [[ $what == *build* || $what == all ]]; then
  step build
  { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j "$JOBS"; } > "$OUT/build.log" 2>&1 \
    || { tail -30 "$OUT/build.log" | tee -a "$OUT/summary.txt"; exit 1; }
fi
if [[ $what == *ctest* || $what == all ]]; then
  step "ctest (CPU tests)"
  (cd build && ctest -j "$JOBS" --output-on-failure -E checktwin) > "$OUT/ctest.log" 2>&1
  tail -5 "$OUT/ctest.log" | tee -a "$OUT/summary.txt"
fi
if [[ $what == *twin* || $what == all ]]; then
  step "checktwin --bench"
  build/tests/checktwin --dir /tmp --bench > "$OUT/checktwin.log" 2>&1
  grep -E "^checktwin|^FAIL" "$OUT/checktwin.log" | head -40 | tee -a "$OUT/summary.txt"
  grep -A30 "cuda profile:" "$OUT/checktwin.log" | tee -a "$OUT/summary.txt"
  step "golden with --backend cuda"
  [ -d build/clips ] || tests/prepare_clips.sh ../shared/data build/clips
  for run in ${GOLDEN_RUNS:-psnr psnr_opts psnr_hvs motion motion_opts}; do
    for t in ${GOLDEN_THREADS:-1 2}; do
      VMAF_GOLDEN_EXTRA_ARGS="--backend cuda" build/tests/golden_test build/tools/vmaf ../shared/data \
        ../shared/models build/clips /tmp/golden_cuda $run $t | tail -1
      VMAF_CUDA_NO_GRAPH=1 VMAF_GOLDEN_EXTRA_ARGS="--backend cuda" build/tests/golden_test build/tools/vmaf \
        ../shared/data ../shared/models build/clips /tmp/golden_cuda_nograph $run $t | tail -1
    done
  done 2>&1 | tee -a "$OUT/summary.txt"
fi
if [[ $what == *bench* || $what == all ]]; then
  step "4K benchmark"
  K4=/tmp/4k; mkdir -p $K4
  [ -f $K4/jetty_3840x2160_420p_ref.yuv ] || python3 ../shared/tools/make-4k.py ../shared/data/clips $K4 120 > "$OUT/make4k.log" 2>&1
  R=$K4/jetty_3840x2160_420p_ref.yuv; D=$K4/jetty_3840x2160_420p_dis.yuv
  for f in psnr,motion,motion_v2 psnr_hvs psnr,motion,motion_v2,psnr_hvs; do
    build/bench/bench_frames $R $D 3840 2160 --frames 120 --threads "$JOBS" --features $f
  done 2>&1 | tee -a "$OUT/summary.txt"
  FEAT="--feature psnr --feature motion --feature motion_v2 --feature psnr_hvs"
  for b in cuda cpu; do
    s=$(date +%s%N)
    build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 -n $FEAT --backend $b --threads "$JOBS" -q -o /dev/null
    e=$(date +%s%N)
    echo "CLI end to end, 120 4K frames, psnr+motion+motion_v2+psnr_hvs, --backend $b --threads $JOBS: $(( (e - s) / 1000000 )) ms, $(( 120000000000 / (e - s + 1) )) fps"
  done 2>&1 | tee -a "$OUT/summary.txt"
  VMAF_CUDA_PROFILE=1 build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 -n --feature psnr \
    --feature motion --feature motion_v2 --backend cuda --frame_cnt 20 -q -o /dev/null 2> "$OUT/profile.log"
  tail -15 "$OUT/profile.log" | tee -a "$OUT/summary.txt"
fi
if [[ $what == *sanitize* ]]; then
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck initcheck synccheck; do
    extra=; [ $tool = memcheck ] && extra="--leak-check full"
    for graph in 0 1; do
      step "compute-sanitizer --tool $tool, checktwin --quick, VMAF_CUDA_NO_GRAPH=$graph"
      VMAF_CUDA_NO_GRAPH=$graph "$CS" --tool $tool $extra --error-exitcode 99 \
        build/tests/checktwin --dir /tmp --quick > "$OUT/sanitize_${tool}_nograph$graph.log" 2>&1
      rc=$?
      { grep -E "^checktwin|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize_${tool}_nograph$graph.log" | tail -3
        echo "exit $rc"; } | tee -a "$OUT/summary.txt"
    done
  done
fi
