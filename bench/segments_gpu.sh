#!/bin/bash
# Segments on one GPU: 4K jetty scored as one stream, then as K segments by K
# vmaf processes at once on the same GPU (--backend cuda, one CUDA context each), merged with
# vmaf --merge; the merged file must equal the single run's (fps aside). Prints both
# throughputs. Run from the project root on the GPU machine after a build, ../shared present.
#   bench/segments_gpu.sh [FRAMES=120] [SEGMENTS=8]
# MODEL (default version=vmaf_4k_v0.6.1), THREADS (default 0: --threads for every process),
# W (scratch folder, default /tmp/seg4k), BACKEND (default cuda) can be set in the environment.
set -u
N=${1:-120}; K=${2:-8}
W=${W:-/tmp/seg4k}; VMAF=${VMAF:-build/tools/vmaf}
MODEL=${MODEL:-version=vmaf_4k_v0.6.1}; THREADS=${THREADS:-0}; BACKEND=${BACKEND:-cuda}
mkdir -p "$W"
REF=$W/jetty_3840x2160_420p_ref.yuv; DIS=$W/jetty_3840x2160_420p_dis.yuv
FRAME=$((3840 * 2160 * 3 / 2))
if [ ! -f "$REF" ] || [ $(( $(stat -c %s "$REF") / FRAME )) -ne "$N" ]; then
  python3 ../shared/tools/make-4k.py ../shared/data/clips "$W" "$N" || { echo "FAIL make-4k.py"; exit 1; }
fi
ARGS=(-r "$REF" -d "$DIS" -w 3840 -h 2160 -p 420 -b 8 --backend "$BACKEND" --threads "$THREADS"
      -m "$MODEL" -q)
now() { date +%s.%N; }
cat "$REF" "$DIS" > /dev/null # page cache: both runs read from memory

t0=$(now)
"$VMAF" "${ARGS[@]}" --json --precision max -o "$W/single.json" 2> "$W/single.err" \
  || { echo "FAIL single run"; cat "$W/single.err"; exit 1; }
t1=$(now)

pids=(); parts=()
for ((i = 0; i < K; i++)); do
  a=$((i * N / K)); b=$(((i + 1) * N / K))
  "$VMAF" "${ARGS[@]}" --segment $a:$b -o "$W/part$i.json" 2> "$W/part$i.err" &
  pids+=($!); parts+=("$W/part$i.json")
done
bad=0
for ((i = 0; i < K; i++)); do wait ${pids[$i]} || { bad=1; echo "FAIL segment $i"; cat "$W/part$i.err"; }; done
t2=$(now)
[ $bad -eq 0 ] || exit 1
"$VMAF" --merge "${parts[@]}" --json --precision max -o "$W/merged.json" 2> "$W/merge.err" \
  || { echo "FAIL merge"; cat "$W/merge.err"; exit 1; }
t3=$(now)

if cmp -s <(grep -v '"fps"' "$W/single.json") <(grep -v '"fps"' "$W/merged.json"); then
  verdict="identical"
else
  verdict="DIFFERENT"; diff <(grep -v '"fps"' "$W/single.json") <(grep -v '"fps"' "$W/merged.json") | head -6
fi
awk -v n="$N" -v k="$K" -v s="$t0" -v e1="$t1" -v e2="$t2" -v e3="$t3" -v v="$verdict" 'BEGIN {
  one = e1 - s; par = e2 - e1; mrg = e3 - e2;
  printf "segments_gpu: 4K jetty, %d frames: 1 stream %.2f s = %.1f fps; %d segments in parallel %.2f s + merge %.2f s = %.1f fps (%.2fx); merged vs single: %s\n",
         n, one, n / one, k, par, mrg, n / (par + mrg), one / (par + mrg), v }'
[ "$verdict" = identical ]
