#!/bin/bash
# On the GPU machine: every self-test phase in its own process (a kernel fault poisons its CUDA
# context, so it must not take the other phases with it), logs under $OUT. Used as
#   .devcarry/cuda/device_run.sh [phases...]      (binary next to this script)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$HERE/pacer_cuda_selftest
OUT=${OUT:-/tmp/pacer_cuda_out}
mkdir -p "$OUT"
CHECKS=${CHECKS:-"field ntt msm-bn254-g1 msm-bls-g1 msm-bn254-g2 msm-bls-g2 lanes errors"}
BENCHES=${BENCHES:-"bench-field bench-ntt bench-msm-bn254 bench-msm-bls bench-g2"}
SANITIZE=${SANITIZE:-"field,ntt,msm-bn254-g1,msm-bls-g2"}
{
  date -u; uname -r; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
} > "$OUT/machine.txt" 2>&1
for p in $CHECKS; do
  timeout ${CHECK_TIMEOUT:-150} "$BIN" --no-host --quick --only "$p" >> "$OUT/checks.log" 2>&1
  echo "phase $p: exit $?" | tee -a "$OUT/checks.log"
done
grep -E "FAIL|exception" "$OUT/checks.log"
for p in $BENCHES; do
  timeout ${BENCH_TIMEOUT:-150} "$BIN" --bench-only --only "$p" >> "$OUT/bench.log" 2>&1
  echo "phase $p: exit $?" | tee -a "$OUT/bench.log"
done
grep -E "^\|" "$OUT/bench.log"
grep -E "FAIL|exception" "$OUT/bench.log"
if [ -n "$SANITIZE" ] && command -v compute-sanitizer > /dev/null; then
  timeout ${SANITIZE_TIMEOUT:-120} compute-sanitizer --tool memcheck --print-limit 20 "$BIN" --no-host --quick --small --only "$SANITIZE" \
    > "$OUT/memcheck.log" 2>&1
  echo "memcheck: exit $?"; tail -4 "$OUT/memcheck.log"
fi
