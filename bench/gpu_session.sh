#!/bin/bash
# One GPU-machine session: build, CPU tests, checktwin, golden parity with --backend cuda,
# the FFmpeg-style device-picture client, and the 4K benchmarks. Logs go to $OUT (or
# ./gpu-out); summary.txt collects the lines that matter. Run from the project root on the
# GPU machine, with ../shared present (see DEVELOPERS.md: .shared is carried and linked).
#   bench/gpu_session.sh [build|ctest|twin|golden|float|seeds|client|bench|ladder|clladder|opencl|nofp64|all|sanitize]...
# GOLDEN_RUNS / GOLDEN_THREADS narrow the golden runs repeated with --backend cuda;
# TWIN_ARGS is passed to checktwin (e.g. "--quick" or "--only vif"); CL_TWIN_ARGS to the OpenCL
# checktwin (default --quick), CL_GOLDEN_RUNS narrows its golden runs.
# nofp64 (after opencl, which registers NVIDIA's OpenCL): the fp64-free forms forced on the
# OpenCL GPU (VMAF_OPENCL_FP64=0): checktwin, golden runs, 4K rates beside native fp64, and the
# software binary64 as CUDA (cuda_soft_f64).
# sanitize (not part of all: it is slow): compute-sanitizer memcheck, racecheck, initcheck and
# synccheck over `checktwin --quick`, with graphs and without; each prints its ERROR SUMMARY.
set -u
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT"
JOBS=$(nproc)
step() { echo "== $1 ($(date +%T))" | tee -a "$OUT/summary.txt"; }
what=${*:-all}
has() { [[ " $what " == *" $1 "* || $what == all ]]; }

# NVIDIA's OpenCL through the carried ICD loader (.ocl/*.deb): unpacked, and the driver's
# library registered as an ICD
register_nvidia_opencl() {
  for f in .ocl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done; ldconfig 2>/dev/null
  NV_CL=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 2>/dev/null)
  { echo "ls /usr/local/nvidia/lib64 | grep -i opencl: $(ls /usr/local/nvidia/lib64 2>/dev/null | grep -i opencl | tr '\n' ' ')"
    echo "ICD loader: $(ldconfig -p | grep -c libOpenCL.so.1) libOpenCL.so.1 entries"; } | tee -a "$OUT/summary.txt"
  if [ -n "$NV_CL" ]; then
    mkdir -p /etc/OpenCL/vendors && echo "$NV_CL" > /etc/OpenCL/vendors/nvidia.icd
  fi
}

if has build; then
  step build
  { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j "$JOBS"; } > "$OUT/build.log" 2>&1 \
    || { tail -30 "$OUT/build.log" | tee -a "$OUT/summary.txt"; exit 1; }
fi
[ -d build/clips ] || tests/golden/prepare_clips.sh ../shared/data build/clips
if has ctest; then
  step "ctest (CPU tests; golden runs use --backend auto = CUDA here)"
  (cd build && ctest -j "$JOBS" --output-on-failure -E "checktwin|cuda_client") > "$OUT/ctest.log" 2>&1
  grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest.log" | head -20 | tee -a "$OUT/summary.txt"
fi
if has twin; then
  step "checktwin ${TWIN_ARGS:-}"
  build/tests/checktwin/checktwin --dir /tmp --clips build/clips ${TWIN_ARGS:-} > "$OUT/checktwin.log" 2>&1
  grep -E "^checktwin|^FAIL" "$OUT/checktwin.log" | head -60 | tee -a "$OUT/summary.txt"
  grep -E "^bench" "$OUT/checktwin.log" | tee -a "$OUT/summary.txt"
fi
if has golden; then
  step "golden with --backend cuda (graph, then VMAF_CUDA_NO_GRAPH=1)"
  for run in ${GOLDEN_RUNS:-psnr psnr_opts psnr_hvs motion motion_opts vmaf_v0.6.1 vmaf_v0.6.1neg \
             vmaf_4k_v0.6.1 vmaf_4k_v0.6.1neg vmaf_b_v0.6.3 vif_opts adm_opts two_models \
             vmaf_subsample vmaf_range}; do
    for t in ${GOLDEN_THREADS:-1 2}; do
      r1=$(VMAF_GOLDEN_EXTRA_ARGS="--backend cuda" build/tests/golden/golden_test build/tools/vmaf ../shared/data \
        ../shared/models build/clips /tmp/golden_cuda $run $t 2>&1 | tail -1)
      r2=$(VMAF_CUDA_NO_GRAPH=1 VMAF_GOLDEN_EXTRA_ARGS="--backend cuda" build/tests/golden/golden_test build/tools/vmaf \
        ../shared/data ../shared/models build/clips /tmp/golden_cuda_nograph $run $t 2>&1 | tail -1)
      echo "$run t$t graph: $r1 | nograph: $r2"
    done
  done 2>&1 | tee -a "$OUT/summary.txt"
fi
if has float; then
  step "golden float models with --backend cuda (motion3's raced position not compared, as on the CPU)"
  GOLDEN_RUNS="vmaf_float_v0.6.1 vmaf_float_v0.6.1neg vmaf_float_b_v0.6.3 vmaf_float_4k_v0.6.1" \
    VMAF_GOLDEN_RACE=motion3 "$0" golden > /dev/null
fi
if has seeds; then
  step "the seeds' whole set, --backend cuda vs cpu, every clip"
  for t in 0 2; do bench/seeds_check.sh build/clips $t; done 2>&1 | tee -a "$OUT/summary.txt"
fi
if has client; then
  step "cuda_client (FFmpeg libvmaf_cuda-style: own CUcontext, device pictures, default model)"
  (cd build && ctest --output-on-failure -R cuda_client) > "$OUT/client.log" 2>&1
  grep -E "identical|differs|tests passed|Failed|\*\*\*" "$OUT/client.log" | tee -a "$OUT/summary.txt"
fi
if has bench; then
  step "4K benchmark"
  K4=/tmp/4k; mkdir -p $K4
  [ -f $K4/jetty_3840x2160_420p_ref.yuv ] || python3 ../shared/tools/make-4k.py ../shared/data/clips $K4 120 > "$OUT/make4k.log" 2>&1
  R=$K4/jetty_3840x2160_420p_ref.yuv; D=$K4/jetty_3840x2160_420p_dis.yuv
  build/bench/bench_frames $R $D 3840 2160 --frames 120 --threads "$JOBS" --features none \
    --model vmaf_v0.6.1 2>&1 | tee -a "$OUT/summary.txt"
  build/bench/bench_frames $R $D 3840 2160 --frames 240 --threads "$JOBS" --features none \
    --model vmaf_v0.6.1 --backend cuda 2>&1 | tee -a "$OUT/summary.txt"
  build/bench/bench_frames $R $D 3840 2160 --frames 120 --threads "$JOBS" \
    --features psnr,motion,motion_v2,psnr_hvs --backend cuda 2>&1 | tee -a "$OUT/summary.txt"
  # the float model from memory: CPU, then CUDA
  build/bench/bench_frames $R $D 3840 2160 --frames 30 --threads "$JOBS" --features none \
    --model vmaf_float_v0.6.1 --backend cpu 2>&1 | tee -a "$OUT/summary.txt"
  build/bench/bench_frames $R $D 3840 2160 --frames 240 --threads "$JOBS" --features none \
    --model vmaf_float_v0.6.1 --backend cuda 2>&1 | tee -a "$OUT/summary.txt"
  for args in "-n --feature psnr --feature motion --feature motion_v2 --feature psnr_hvs" "" \
              "--model version=vmaf_float_v0.6.1"; do
    for b in cuda cpu; do
      for n in 1 120; do
        s=$(date +%s%N)
        build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 $args --backend $b --threads "$JOBS" \
          --frame_cnt $n -q -o /dev/null
        e=$(date +%s%N)
        echo "CLI 4K, $n frames, ${args:-default model}, --backend $b --threads $JOBS: $(( (e - s) / 1000000 )) ms"
      done
    done
  done 2>&1 | tee -a "$OUT/summary.txt"
  # reference CUDA 3.1.0 side by side, when carried as .refbin/vmaf_ref_cuda_3.1.0 (never committed)
  REF_CUDA=.refbin/vmaf_ref_cuda_3.1.0
  if [ -x $REF_CUDA ]; then
    for n in 1 120; do
      s=$(date +%s%N)
      $REF_CUDA -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --frame_cnt $n -q -o /dev/null > /dev/null 2>&1
      e=$(date +%s%N)
      echo "reference CUDA 3.1.0, CLI 4K, $n frames, default model: $(( (e - s) / 1000000 )) ms"
    done 2>&1 | tee -a "$OUT/summary.txt"
  fi
  # reference CPU (libvmaf 3.1.0, static, CPU only), when carried as .refbin/vmaf_ref_cpu
  # (never committed): next to ours on the CPU path, same threads, same run
  REF_CPU=.refbin/vmaf_ref_cpu
  if [ -x $REF_CPU ]; then
    for bin in build/tools/vmaf $REF_CPU; do
      extra=; [ $bin = build/tools/vmaf ] && extra="--backend cpu"
      for n in 1 120; do
        s=$(date +%s%N)
        $bin -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 $extra --threads "$JOBS" --frame_cnt $n -q \
          -o /dev/null > /dev/null 2>&1
        e=$(date +%s%N)
        echo "CPU side by side: $bin, CLI 4K, $n frames, default model, --threads $JOBS: $(( (e - s) / 1000000 )) ms"
      done
    done 2>&1 | tee -a "$OUT/summary.txt"
    # peak memory vs threads, ours and the reference (bench/peak_rss.sh), 4K
    for bin in build/tools/vmaf $REF_CPU; do
      VMAF_ARGS="--frame_cnt 48 $([ $bin = build/tools/vmaf ] && echo --backend cpu)" \
        bench/peak_rss.sh $bin $R $D 3840 2160 1 4 16
    done 2>&1 | tee -a "$OUT/summary.txt"
  fi
  # the whole CLI with its phases (readers, pinning, start-up)
  s=$(date +%s%N)
  VMAF_CUDA_PROFILE=1 build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cuda \
    --frame_cnt 120 -q -o /dev/null 2> "$OUT/profile_cli.log"
  e=$(date +%s%N)
  { echo "CLI 4K, 120 frames, default model, cuda, profiled: $(( (e - s) / 1000000 )) ms"
    grep -E "^cli|start-up" "$OUT/profile_cli.log"; } | tee -a "$OUT/summary.txt"
  VMAF_CUDA_PROFILE=ops build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cuda \
    --frame_cnt 20 -q -o /dev/null 2> "$OUT/profile.log"
  tail -40 "$OUT/profile.log" | tee -a "$OUT/summary.txt"
fi
if has ladder; then
  step "ladders: ctest -L ladder (rungs on CUDA: --backend auto), the shared reference's uploads, bench/ladder.sh gpu and batch"
  (cd build && ctest -j "$JOBS" -L ladder --output-on-failure) > "$OUT/ladder_ctest.log" 2>&1
  grep -E "tests passed|Failed|\*\*\*" "$OUT/ladder_ctest.log" | head -20 | tee -a "$OUT/summary.txt"
  RUNS=${LADDER_RUNS:-3} bench/ladder.sh gpu > "$OUT/ladder_gpu.log" 2>&1
  tail -4 "$OUT/ladder_gpu.log" | tee -a "$OUT/summary.txt"
  RUNS=${LADDER_RUNS:-3} bench/ladder.sh gpu-floor > "$OUT/ladder_floor.log" 2>&1
  grep -E "^reading|^one rung|^  device" "$OUT/ladder_floor.log" | tee -a "$OUT/summary.txt"
  K4=${WORK:-/tmp/ladder-bench}/4k
  VMAF_CUDA_PROFILE=1 build/tools/vmaf -r "$K4/jetty_3840x2160_420p_ref.yuv" -d "$K4/a_blur.yuv" \
    -d "$K4/a_noise.yuv" -d "$K4/a_quant.yuv" -d "$K4/b_blur.yuv" -w 3840 -h 2160 -p 420 -b 8 \
    --backend cuda -q --json -o "/tmp/ladder-profile-{n}.json" > "$OUT/ladder_profile.log" 2>&1
  echo "4 rungs x 120 frames: $(grep -c 'cuda profile' "$OUT/ladder_profile.log") CUDA backends; $(grep 'cuda shared reference' "$OUT/ladder_profile.log" | tail -1)" | tee -a "$OUT/summary.txt"
  RUNS=1 bench/ladder.sh batch > "$OUT/ladder_batch.log" 2>&1
  tail -2 "$OUT/ladder_batch.log" | tee -a "$OUT/summary.txt"
fi
if has clladder; then
  # ladders on NVIDIA's OpenCL: the rungs' shared reference (one write, device copies) on a GPU
  step "OpenCL ladders on NVIDIA's driver (ctest ladder_opencl, cli_opencl_profile)"
  register_nvidia_opencl
  CLDEV=$(build/tools/vmaf --opencl_list 2>/dev/null | awk -F: '/, gpu, /{print $1; exit}')
  (cd build && VMAF_OPENCL_DEVICE=${CLDEV:-0} VMAF_OPENCL_CACHE_DIR=/tmp/twinvmaf-cl-cache \
     ctest -FS opencl --output-on-failure -R "ladder_opencl|cli_opencl_profile") \
    > "$OUT/clladder.log" 2>&1
  grep -E "tests passed|Failed|\*\*\*|^ok|FAIL" "$OUT/clladder.log" | head -20 | tee -a "$OUT/summary.txt"
fi
if has opencl; then
  # NVIDIA's OpenCL through the carried ICD loader (.ocl/*.deb, see DEVELOPERS.md); every
  # extractor with an OpenCL twin on the device must give the CPU path's bits
  step "OpenCL: NVIDIA's driver, checktwin --backend opencl, golden runs, 4K side by side"
  register_nvidia_opencl
  export VMAF_OPENCL_CACHE_DIR=/tmp/twinvmaf-cl-cache
  build/tools/vmaf --opencl_list 2>&1 | tee -a "$OUT/summary.txt"
  # the first OpenCL GPU (PoCL may be installed there too, as device 0)
  CLDEV=$(build/tools/vmaf --opencl_list 2>/dev/null | awk -F: '/, gpu, /{print $1; exit}')
  export VMAF_OPENCL_DEVICE=${CLDEV:-0}
  echo "OpenCL device for the runs below: $VMAF_OPENCL_DEVICE" | tee -a "$OUT/summary.txt"
  # one process per family: a kernel that faults spoils its OpenCL context, not the next family's
  for fam in ${CL_FAMILIES:-psnr_motion vif adm speed float ssim cambi ciede}; do
    build/tests/checktwin/checktwin --backend opencl --opencl_device $VMAF_OPENCL_DEVICE \
      --all-on-device --dir /tmp --clips build/clips --only $fam \
      ${CL_TWIN_ARGS:---quick} > "$OUT/checktwin_opencl_$fam.log" 2>&1
    grep -E "^checktwin: [a-z_]+ " "$OUT/checktwin_opencl_$fam.log" | tee -a "$OUT/summary.txt"
    grep -E "^FAIL" "$OUT/checktwin_opencl_$fam.log" | head -3 | cut -c1-220 | tee -a "$OUT/summary.txt"
    grep -E "ERROR" "$OUT/checktwin_opencl_$fam.log" | sort | uniq -c | sort -rn | head -3 | cut -c1-220 \
      | tee -a "$OUT/summary.txt"
  done
  # each twin alone on a real clip: which one fails, with its first message
  BR=build/clips/boats_576x324_420p_ref.yuv; BD=build/clips/boats_576x324_420p_dis.yuv
  for f in ${CL_PROBE:-}; do
    VMAF_OPENCL_SYNC=1 build/tools/vmaf -r $BR -d $BD -w 576 -h 324 -p 420 -b 8 --backend opencl \
      -n --feature $f -o /tmp/probe_cl.json --json > /tmp/probe.log 2>&1; rc=$?
    build/tools/vmaf -r $BR -d $BD -w 576 -h 324 -p 420 -b 8 --backend cpu -n --feature $f \
      -o /tmp/probe_cpu.json --json > /dev/null 2>&1
    same=$(cmp -s <(grep -v '"fps"' /tmp/probe_cl.json) <(grep -v '"fps"' /tmp/probe_cpu.json) \
           && echo "same bits as cpu" || echo "differs")
    echo "probe $f --backend opencl: exit $rc, $same; $(grep ERROR /tmp/probe.log | head -3 | cut -c1-160 | tr '\n' '|')"
  done 2>&1 | tee -a "$OUT/summary.txt"
  for run in ${CL_GOLDEN_RUNS:-psnr psnr_opts psnr_hvs motion motion_opts vmaf_v0.6.1 vmaf_v0.6.1neg \
             vmaf_4k_v0.6.1 vmaf_b_v0.6.3 two_models vmaf_subsample speed_chroma speed_temporal \
             vif_opts adm_opts float_ssim float_ms_ssim ciede cambi vmaf_v1.0.16_3d0h \
             vmaf_float_v0.6.1}; do
    r=$(VMAF_GOLDEN_RACE=motion3 VMAF_GOLDEN_EXTRA_ARGS="--backend opencl" build/tests/golden/golden_test \
        build/tools/vmaf ../shared/data ../shared/models build/clips /tmp/golden_opencl $run 1 2>&1 | tail -1)
    echo "golden $run --backend opencl t1: $r"
  done 2>&1 | tee -a "$OUT/summary.txt"
  K4=/tmp/4k; mkdir -p $K4
  [ -f $K4/jetty_3840x2160_420p_ref.yuv ] || python3 ../shared/tools/make-4k.py ../shared/data/clips $K4 120 > "$OUT/make4k.log" 2>&1
  R=$K4/jetty_3840x2160_420p_ref.yuv; D=$K4/jetty_3840x2160_420p_dis.yuv
  for model in vmaf_v0.6.1 vmaf_v1.0.16_3d0h_2160; do
    build/bench/bench_frames $R $D 3840 2160 --frames 120 --threads "$JOBS" --features none \
      --model $model --backend cpu 2>&1 | tail -2
    build/bench/bench_frames $R $D 3840 2160 --frames 240 --features none --model $model \
      --backend cuda 2>&1 | tail -1
    build/bench/bench_frames $R $D 3840 2160 --frames 240 --features none --model $model \
      --backend opencl --opencl_device $VMAF_OPENCL_DEVICE 2>&1 | tail -1
  done 2>&1 | tee -a "$OUT/summary.txt"
  for b in opencl cuda cpu; do
    s=$(date +%s%N)
    build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend $b --threads "$JOBS" \
      --frame_cnt 120 -q -o /tmp/cli_$b.json --json
    e=$(date +%s%N)
    echo "CLI 4K, 120 frames, default model, --backend $b --threads $JOBS: $(( (e - s) / 1000000 )) ms"
  done 2>&1 | tee -a "$OUT/summary.txt"
  for b in opencl cuda; do
    cmp <(grep -v '"fps"' /tmp/cli_$b.json) <(grep -v '"fps"' /tmp/cli_cpu.json) > /dev/null \
      && echo "CLI 4K --backend $b: same bits as cpu" || echo "CLI 4K --backend $b: DIFFERS from cpu"
  done 2>&1 | tee -a "$OUT/summary.txt"
fi
if has nofp64; then
  step "OpenCL with the fp64-free forms forced (VMAF_OPENCL_FP64=0) beside native fp64"
  register_nvidia_opencl
  export VMAF_OPENCL_CACHE_DIR=/tmp/twinvmaf-cl-cache
  CLDEV=$(build/tools/vmaf --opencl_list 2>/dev/null | awk -F: '/, gpu, /{print $1; exit}')
  export VMAF_OPENCL_DEVICE=${CLDEV:-0}
  VMAF_OPENCL_FP64=0 build/tools/vmaf --opencl_list 2>&1 | grep -i "fp64\|double" | tee -a "$OUT/summary.txt"
  (cd build && ctest --output-on-failure -R cuda_soft_f64) > "$OUT/cuda_soft_f64.log" 2>&1
  grep -E "cases|failed|differ|tests passed|Failed|\*\*\*" "$OUT/cuda_soft_f64.log" | head -20 | tee -a "$OUT/summary.txt"
  for fam in ${CL_FAMILIES:-psnr_motion vif adm speed float ssim cambi ciede}; do
    VMAF_OPENCL_FP64=0 build/tests/checktwin/checktwin --backend opencl --opencl_device $VMAF_OPENCL_DEVICE \
      --all-on-device --dir /tmp --clips build/clips --only $fam \
      ${CL_TWIN_ARGS:---quick} > "$OUT/checktwin_nofp64_$fam.log" 2>&1
    { echo "fp64-free forms:"; grep -E "^checktwin: [a-z_]+ " "$OUT/checktwin_nofp64_$fam.log"
      grep -E "^FAIL|on the CPU" "$OUT/checktwin_nofp64_$fam.log" | head -3 | cut -c1-220; } | tee -a "$OUT/summary.txt"
  done
  for run in ${CL_GOLDEN_RUNS:-psnr psnr_hvs motion vmaf_v0.6.1 vmaf_v0.6.1neg vmaf_4k_v0.6.1 \
             speed_chroma speed_temporal vif_opts adm_opts float_ssim float_ms_ssim ciede cambi \
             vmaf_v1.0.16_3d0h vmaf_float_v0.6.1}; do
    r=$(VMAF_OPENCL_FP64=0 VMAF_GOLDEN_RACE=motion3 VMAF_GOLDEN_EXTRA_ARGS="--backend opencl" \
        build/tests/golden/golden_test build/tools/vmaf ../shared/data ../shared/models build/clips \
        /tmp/golden_nofp64 $run 1 2>&1 | tail -1)
    echo "golden $run --backend opencl VMAF_OPENCL_FP64=0 t1: $r"
  done 2>&1 | tee -a "$OUT/summary.txt"
  K4=/tmp/4k; mkdir -p $K4
  [ -f $K4/jetty_3840x2160_420p_ref.yuv ] || python3 ../shared/tools/make-4k.py ../shared/data/clips $K4 120 > "$OUT/make4k.log" 2>&1
  R=$K4/jetty_3840x2160_420p_ref.yuv; D=$K4/jetty_3840x2160_420p_dis.yuv
  # the aom_ctc v7.0 set from memory: its two models' features and its extra features
  AOM=psnr,ciede,float_ssim,float_ms_ssim,psnr_hvs,cambi
  for spec in "vmaf_v0.6.1 none" "vmaf_v1.0.16_3d0h_2160 none" "vmaf_v0.6.1neg $AOM"; do
    set -- $spec
    for fp in 1 0; do
      VMAF_OPENCL_FP64=$fp build/bench/bench_frames $R $D 3840 2160 --frames ${NOFP64_FRAMES:-120} \
        --features $2 --model $1 --backend opencl --opencl_device $VMAF_OPENCL_DEVICE 2>&1 | tail -1 \
        | sed "s/^/VMAF_OPENCL_FP64=$fp model $1 features $2: /"
    done
  done 2>&1 | tee -a "$OUT/summary.txt"
  for fp in 1 0; do
    s=$(date +%s%N)
    VMAF_OPENCL_FP64=$fp build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend opencl \
      --threads "$JOBS" --aom_ctc v7.0 --frame_cnt 60 -q -o /tmp/aom_$fp.json --json 2> "$OUT/aom_$fp.log"
    e=$(date +%s%N)
    echo "CLI 4K, 60 frames, --aom_ctc v7.0, --backend opencl, VMAF_OPENCL_FP64=$fp: $(( (e - s) / 1000000 )) ms"
    grep -i "cpu" "$OUT/aom_$fp.log" | head -3
  done 2>&1 | tee -a "$OUT/summary.txt"
  build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cpu --threads "$JOBS" \
    --aom_ctc v7.0 --frame_cnt 60 -q -o /tmp/aom_cpu.json --json 2>/dev/null
  for fp in 1 0; do
    cmp <(grep -v '"fps"' /tmp/aom_$fp.json) <(grep -v '"fps"' /tmp/aom_cpu.json) > /dev/null \
      && echo "CLI 4K --aom_ctc v7.0 opencl FP64=$fp: same bits as cpu" \
      || echo "CLI 4K --aom_ctc v7.0 opencl FP64=$fp: DIFFERS from cpu"
  done 2>&1 | tee -a "$OUT/summary.txt"
fi
if [[ $what == *sanitize* ]]; then
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck initcheck synccheck; do
    extra=; [ $tool = memcheck ] && extra="--leak-check full"
    for graph in 0 1; do
      step "compute-sanitizer --tool $tool, checktwin --quick, VMAF_CUDA_NO_GRAPH=$graph"
      VMAF_CUDA_NO_GRAPH=$graph "$CS" --tool $tool $extra --error-exitcode 99 \
        build/tests/checktwin/checktwin --dir /tmp --quick > "$OUT/sanitize_${tool}_nograph$graph.log" 2>&1
      rc=$?
      { grep -E "^checktwin|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize_${tool}_nograph$graph.log" | tail -3
        echo "exit $rc"; } | tee -a "$OUT/summary.txt"
    done
  done
fi
