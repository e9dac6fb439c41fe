#!/bin/bash
# Several CUDA devices in one process: the 4K jetty scored by one vmaf process with
# --backend cuda (one device state, one stream of frames), then with --cuda_devices LIST (the
# title cut into one segment per entry, each with its own thread, readers and device state,
# merged in memory). Every --cuda_devices output must equal the single run's byte for byte
# (cmp, the fps line aside: it is CPU time, different in every run). Prints the fps of each.
# Two configurations: the default model, and the default model with psnr, psnr_hvs, motion,
# motion_v2, speed_chroma and speed_temporal.
# Run from the project root on the GPU machine after a build, ../shared present:
#   bench/multidev_gpu.sh [FRAMES=120]
# LISTS (space-separated device lists) overrides the lists tried: by default 0,0 and 0,0,0,0
# (two and four states on device 0) and, when nvidia-smi -L shows G > 1 GPUs, 0,1,..,G-1 and
# that list twice (two segments per GPU). THREADS (default 0: --threads of every run), W
# (scratch folder, default /tmp/multidev4k), VMAF (default build/tools/vmaf) can be set.
set -u
N=${1:-120}
W=${W:-/tmp/multidev4k}; VMAF=${VMAF:-build/tools/vmaf}; THREADS=${THREADS:-0}
mkdir -p "$W"
REF=$W/jetty_3840x2160_420p_ref.yuv; DIS=$W/jetty_3840x2160_420p_dis.yuv
FRAME=$((3840 * 2160 * 3 / 2))
if [ ! -f "$REF" ] || [ $(( $(stat -c %s "$REF") / FRAME )) -ne "$N" ]; then
  python3 ../shared/tools/make-4k.py ../shared/data/clips "$W" "$N" || { echo "FAIL make-4k.py"; exit 1; }
fi
G=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$G" -ge 1 ] 2>/dev/null || G=1
if [ -z "${LISTS:-}" ]; then
  LISTS="0,0 0,0,0,0"
  if [ "$G" -gt 1 ]; then
    all=$(seq -s, 0 $((G - 1)))
    LISTS="$LISTS $all $all,$all"
  fi
fi
echo "multidev_gpu: $G GPU(s) seen by nvidia-smi; device lists: $LISTS; $N frames of 4K jetty"

BASE=(-r "$REF" -d "$DIS" -w 3840 -h 2160 -p 420 -b 8 --threads "$THREADS" -q --json
      --precision max)
CONFIGS=("default model|"
         "default model + psnr psnr_hvs motion motion_v2 speed_chroma speed_temporal|--feature psnr --feature psnr_hvs --feature motion --feature motion_v2 --feature speed_chroma --feature speed_temporal")
now() { date +%s.%N; }
cat "$REF" "$DIS" > /dev/null # page cache: every run reads from memory

bad=0
# run NAME OUT ARGS...: one timed run; prints its fps; 1 when it failed
run() {
  local name=$1 out=$2; shift 2
  local t0 t1
  t0=$(now)
  if ! "$VMAF" "${BASE[@]}" "$@" -o "$out" 2> "$out.err"; then
    echo "FAIL $name"; sed 's/^/     /' "$out.err" | head -n 20; return 1
  fi
  t1=$(now)
  awk -v n="$N" -v s="$t0" -v e="$t1" -v name="$name" \
    'BEGIN { printf "  %-44s %7.2f s  %7.1f fps\n", name, e - s, n / (e - s) }'
}

for cfg in "${CONFIGS[@]}"; do
  label=${cfg%%|*}; read -r -a extra <<< "${cfg#*|}"
  echo "$label:"
  tag=$(echo "$label" | tr -c 'a-z0-9' '_')
  single=$W/single_$tag.json
  run "--backend cuda (one device state)" "$single" --backend cuda "${extra[@]}" || { bad=1; continue; }
  for list in $LISTS; do
    out=$W/multi_${tag}_$(echo "$list" | tr ',' '_').json
    run "--cuda_devices $list" "$out" --cuda_devices "$list" "${extra[@]}" || { bad=1; continue; }
    if cmp -s <(grep -v '"fps"' "$single") <(grep -v '"fps"' "$out"); then
      echo "    identical to the single run (cmp, fps line aside)"
    else
      echo "    DIFFERENT from the single run:"; bad=1
      diff <(grep -v '"fps"' "$single") <(grep -v '"fps"' "$out") | head -n 6
    fi
  done
done
[ $bad -eq 0 ] && echo "multidev_gpu: all outputs identical" || echo "multidev_gpu: FAILED"
[ $bad -eq 0 ]
