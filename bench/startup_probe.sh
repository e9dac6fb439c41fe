#!/bin/bash
# The start-up floor of a CUDA process on this machine: bench/ctx_probe as whole
# processes, REPS each, with the wall time of the process next to its own phase line: the
# primary context (what the library uses) vs cuCtxCreate with scheduling flags, released or
# left to process exit, and CUDA_DEVICE_MAX_CONNECTIONS 1 (the CLI's) / 2 / 4 / 8 (the
# driver's default) / 32 (the number of hardware queues the context creates).   bench/startup_probe.sh [REPS=3]
set -u
REPS=${1:-3}
P=build/bench/ctx_probe
[ -x $P ] || { echo "$P not built (needs nvcc)"; exit 2; }
run() {
  local s e line
  s=$(date +%s%N); line=$("$@" 2>&1); e=$(date +%s%N)
  echo "process $(( (e - s) / 1000000 )) ms | $line"
}
for k in $(seq $REPS); do
  for how in primary create create_spin create_blocking; do run $P $how release; done
  run $P primary exit
  echo -n "_exit: "; run $P primary release _exit
  echo -n "_exit: "; run $P primary exit _exit
  for c in 1 2 4 32; do echo -n "CUDA_DEVICE_MAX_CONNECTIONS=$c: "; CUDA_DEVICE_MAX_CONNECTIONS=$c run $P primary release; done
done
