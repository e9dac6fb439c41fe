#!/bin/bash
# Issue 9 probes on the GPU machine: where the CLI's time goes at 4K and 1080p (whole
# process, files in the page cache), next to the in-memory rate. Prints one line per run.
set -u
K4=/tmp/4k; mkdir -p $K4; R=$K4/jetty_3840x2160_420p_ref.yuv; D=$K4/jetty_3840x2160_420p_dis.yuv
[ -f $R ] || python3 ../shared/tools/make-4k.py ../shared/data/clips $K4 120 > /dev/null
J=/tmp/1080; mkdir -p $J
[ -f $J/jetty_1920x1080_420p_600_ref.yuv ] || python3 ../shared/tools/pingpong.py ../shared/data/clips jetty_1920x1080_420p 600 $J > /dev/null
JR=$J/jetty_1920x1080_420p_600_ref.yuv; JD=$J/jetty_1920x1080_420p_600_dis.yuv
cat $R $D $JR $JD > /dev/null
t() { local s=$(date +%s%N); "$@" > /dev/null 2>&1; local e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
for th in 0 16; do
  for n in 1 120; do
    echo "4K default model, --threads $th, $n frames: $(t build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cuda --threads $th --frame_cnt $n -q -o /dev/null) ms"
  done
done
for n in 1 600; do
  echo "1080p default model, $n frames: $(t build/tools/vmaf -r $JR -d $JD -w 1920 -h 1080 -p 420 -b 8 --backend cuda --frame_cnt $n -q -o /dev/null) ms"
  echo "1080p 4 twins, $n frames: $(t build/tools/vmaf -r $JR -d $JD -w 1920 -h 1080 -p 420 -b 8 --backend cuda -n --feature psnr --feature psnr_hvs --feature motion --feature motion_v2 --frame_cnt $n -q -o /dev/null) ms"
done
# pinning ahead (picture pool thread): 0 = on demand in the fetch (before), 16 = default, 56 = all
for ahead in 0 16 56; do
  for n in 1 120; do
    echo "4K default model, VMAF_CUDA_PIN_AHEAD=$ahead, $n frames: $(VMAF_CUDA_PIN_AHEAD=$ahead t build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cuda --frame_cnt $n -q -o /dev/null) ms"
  done
  VMAF_CUDA_PIN_AHEAD=$ahead VMAF_CUDA_PROFILE=1 build/tools/vmaf -r $R -d $D -w 3840 -h 2160 -p 420 -b 8 --backend cuda --frame_cnt 120 -q -o /dev/null 2>&1 | grep -E "^cli|start-up" | sed "s/^/[ahead $ahead] /"
done
python3 - <<'PY'
import time
try:
    import cupy
    for mb in (12.44, 124.4):
        n = 8 if mb < 100 else 2
        t = time.time()
        bufs = [cupy.cuda.alloc_pinned_memory(int(mb * 1e6)) for _ in range(n)]
        print(f"pinned alloc of {mb} MB: {(time.time() - t) / n * 1e3:.2f} ms each")
except Exception as e:
    print("pinning probe failed:", e)
PY
