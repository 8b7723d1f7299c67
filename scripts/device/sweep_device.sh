#!/usr/bin/env bash
# On the device machine (the cpu backend unless SWEEP_EXTRA_TOML names another), from the repository root with
# .devcarry/dist carried (scripts/device/pack.sh build-dir): makes a synthetic circuit and an
# insecure key per size, then runs scripts/sweep.sh on each, all within DEADLINE seconds (one
# device call is at most 10 minutes). Results go to $OUT/sweep.tar.gz (summaries, traces, tables).
#   scripts/device/sweep_device.sh "18 20" "greedy throttled staggered adaptive" "plain" "1 4 16" [proofs] [deadline s]
# SWEEP_RUN_TIMEOUT (default 90 s, capped by the time left) bounds one run.
# SWEEP_EXTRA_TOML is appended to every config (scripts/sweep.sh --extra-toml), e.g. the cuda backend;
# SWEEP_VERIFY=1 checks every proof with the native verifier. SWEEP_BENCH_ARGS are more options for every bench (scripts/sweep.sh --bench-args), e.g. --read-witness.
set -euo pipefail
sizes=${1:-18} schedulers=${2:-"greedy throttled staggered adaptive"} allocators=${3:-plain} jobs=${4:-"1 4 16"}
proofs=${5:-24} deadline=${6:-560}
start=$(date +%s)
pacer=$PWD/.devcarry/dist/bin/pacer
export LD_LIBRARY_PATH="$PWD/.devcarry/dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PACER_PLUGIN_PATH=${PACER_PLUGIN_PATH:-$PWD/.devcarry/dist/lib/pacer}
out=${OUT:-/tmp/out}/sweep
mkdir -p "$out"
nproc > "$out/nproc.txt"; lscpu > "$out/lscpu.txt" 2>&1 || true
for k in $sizes; do
  dir=/tmp/circuit-$k
  mkdir -p "$dir"
  constraints=$(( (1 << k) * 3 / 4 ))
  t0=$(date +%s)
  if [ -s "$dir/c.zkey" ] && [ -s "$dir/w.wtns" ]; then  # an earlier invocation in this call made them
    echo "2^$k: reusing $dir/c.zkey" | tee -a "$out/log.txt"
  else
    rm -f "$dir/c.zkey" "$dir/w.wtns"
    "$pacer" gen-circuit --constraints "$constraints" --r1cs "$dir/c.r1cs" --witness "$dir/w.wtns" >/dev/null
    "$pacer" setup --insecure --r1cs "$dir/c.r1cs" --zkey "$dir/c.zkey.tmp" --vkey "$dir/vk.json" >/dev/null
    mv "$dir/c.zkey.tmp" "$dir/c.zkey"
    echo "2^$k: $constraints constraints, circuit and key in $(( $(date +%s) - t0 )) s" | tee -a "$out/log.txt"
  fi
  left=$(( deadline - ($(date +%s) - start) ))
  [ "$left" -gt 15 ] || { echo "no time left for 2^$k (${left} s)" | tee -a "$out/log.txt"; break; }
  # One run may take SWEEP_RUN_TIMEOUT seconds (default 90), never more than the time left.
  run_timeout=${SWEEP_RUN_TIMEOUT:-90}
  [ "$run_timeout" -le "$left" ] || run_timeout=$left
  rc=0
  scripts/sweep.sh --pacer "$pacer" --zkey "$dir/c.zkey" --witness "$dir/w.wtns" --out "$out/2^$k" \
    --schedulers "$schedulers" --allocators "$allocators" --jobs "$jobs" --proofs "$proofs" \
    --run-timeout "$run_timeout" --budget "$left" --extra-toml "${SWEEP_EXTRA_TOML:-}" --bench-args "${SWEEP_BENCH_ARGS:-}" --verify "${SWEEP_VERIFY:-0}" >"$out/2^$k.table.md" 2>&1 || rc=$?
  echo "2^$k: sweep exit $rc after $(( $(date +%s) - start )) s" | tee -a "$out/log.txt"
done
tar -C "$(dirname "$out")" -czf "${OUT:-/tmp/out}/sweep.tar.gz" sweep
cat "$out"/*.table.md
