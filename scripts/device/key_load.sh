#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over .devcarry/dist (scripts/device/pack.sh):
# the GPU tests, then loading a large key with and without its subgroup check, in one call.
#   pacer_cuda_tests and pacer_cuda_selftest --quick (logs in $OUT);
#   a BN254 development key of 2^LOG − 100 constraints (LOG default 24; gen-circuit + setup
#   --insecure) and, with CONFIG (default examples/configs/cuda.toml; its [host] table, if any, must
#   come last: it is replaced) and a fresh cache dir:
#     `pacer prove` with the check on and no record (the check runs beside the proof),
#     again (the record is found), and with check_key_subgroups = false, each under /usr/bin/time;
#     every proof through `pacer verify`;
#     `pacer bench` J = 2 with every proof reading its .wtns, and J = 1 (verify_proofs = true).
# Proofs and bench JSON go to $OUT/results.tgz (check them back here with snarkjs groth16 verify).
set -uo pipefail
source "$(dirname "$0")/env.sh"
work=${WORK:-$(mktemp -d)}
mkdir -p "$work/runs" "$work/proofs"
export XDG_CACHE_HOME=$work/cache
rm -rf "$XDG_CACHE_HOME"
trap 'tar -C "$work" -czf "$OUT/results.tgz" runs proofs 2>/dev/null' EXIT
trap 'exit 143' TERM INT
P=$dist/bin/pacer
config=${CONFIG:-$root/examples/configs/cuda.toml}
lg=${LOG:-24}
log() { echo "=== $(date -u +%H:%M:%S) $*"; }
timed() { /usr/bin/time -f "wall %e s, cpu %U+%S s, maxrss %M kB" "$@"; }
{ nvidia-smi -L; nproc; } 2>&1 | tee "$OUT/gpu.txt"
log "pacer_cuda_tests"
timeout 300 "$dist/bin/pacer_cuda_tests" >"$OUT/cuda_tests.log" 2>&1; echo "rc=$?"; tail -n 2 "$OUT/cuda_tests.log"
log "pacer_cuda_selftest --quick"
timeout 300 "$dist/bin/pacer_cuda_selftest" --quick >"$OUT/selftest.log" 2>&1; echo "rc=$?"; tail -n 1 "$OUT/selftest.log"

with_host() {  # with_host LINES...: the config with a [host] table of these lines
  sed -E '/^\[host\]/,$d' "$config"
  printf '\n[host]\n'
  printf '%s\n' "$@"
}
(
  log "key 2^$lg"
  "$P" gen-circuit --curve bn128 --constraints $(((1 << lg) - 100)) --r1cs "$work/k.r1cs" --witness "$work/k.wtns"
  "$P" setup --insecure --r1cs "$work/k.r1cs" --zkey "$work/k.zkey" --vkey "$work/proofs/vkey.json"
  rm -f "$work/k.r1cs"
  with_host 'log_level = "debug"' >"$work/check.toml"
  with_host 'check_key_subgroups = false' >"$work/nocheck.toml"
  with_host 'verify_proofs = true' 'check_key_subgroups = false' >"$work/bench.toml"
  for run in first-checks second-record; do
    log "prove 2^$lg, check on, $run"
    timed "$P" prove --config "$work/check.toml" --zkey "$work/k.zkey" --witness "$work/k.wtns" \
      --proof "$work/proofs/proof-$run.json" --public "$work/proofs/public.json" 2>&1 |
      grep -Ei "resident|subgroup|record|wall|error|proof 1"
  done
  log "prove 2^$lg, check off"
  timed "$P" prove --config "$work/nocheck.toml" --zkey "$work/k.zkey" --witness "$work/k.wtns" \
    --proof "$work/proofs/proof-nocheck.json" --public "$work/proofs/public.json" 2>&1 | grep -Ei "resident|wall|error"
  for f in "$work"/proofs/proof-*.json; do
    if "$P" verify --vkey "$work/proofs/vkey.json" --proof "$f" --public "$work/proofs/public.json" >/dev/null 2>&1
    then echo "pacer verify $(basename "$f"): OK"; else echo "pacer verify $(basename "$f"): FAILED"; fi
  done
  log "bench 2^$lg J=2, every proof reading its .wtns"
  "$P" bench --config "$work/bench.toml" --zkey "$work/k.zkey" --witness "$work/k.wtns" --proofs 16 --jobs 2 --warmup 2 \
    --read-witness --json "$work/runs/j2-read.json" 2>&1 | grep -E "wall|cpu|lanes|latency|error"
  log "bench 2^$lg J=1"
  "$P" bench --config "$work/bench.toml" --zkey "$work/k.zkey" --witness "$work/k.wtns" --proofs 8 --jobs 1 --warmup 1 \
    --json "$work/runs/j1.json" 2>&1 | grep -E "wall|cpu|lanes|latency|error"
  rm -f "$work/k.zkey" "$work/k.wtns"
  log done
) 2>&1 | tee "$OUT/key-$lg.log"
