#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over .devcarry/dist (scripts/device/pack.sh):
# the GPU-pacing measurement in one call, every comparison in the same call.
#   For each log size in SIZES (default "22 24"), a BN254 development key (gen-circuit + setup
#   --insecure), then with CONFIG (default examples/configs/cuda.toml, every proof verified by
#   [host] verify_proofs):
#     J = 1: one proof at a time; its lane seconds a proof give the GPU bound (bench prints it);
#     J = 2 with every proof reading its .wtns in its load stage (--read-witness);
#     J in JOBS (default "2 4"): alone, then beside the DRAM hog (pacer_membw_hog, HOG_THREADS = 8),
#     then alone and beside it again (alternating, so drift shows).
#   BLS12-381 at 2^BLS_LOG (default 22; "" = none): J = 1 and 2.
#   A proof per key for snarkjs (checked back here: scripts/device/verify_outputs.sh), and the CPU
#   synthesis against its 439283f anchor on each BN254 key (pacer_bench_synthesis).
# Logs, bench summaries and traces go to $OUT; proofs to $OUT/proofs.tar.gz.
# PROOFS (default 24) proofs a bench after J warm-up proofs.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
dist=$root/.devcarry/dist
export LD_LIBRARY_PATH="$dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PACER_PLUGIN_PATH="$dist/lib/pacer"
OUT=${OUT:-/tmp/pacer-out}
mkdir -p "$OUT"
work=$(mktemp -d)
mkdir -p "$work/proofs"
P="$dist/bin/pacer"
config=${CONFIG:-$root/examples/configs/cuda.toml}
log() { echo "=== $(date -u +%H:%M:%S) $*"; }
nvidia-smi -L 2>&1 | tee "$OUT/gpu.txt"
nproc >>"$OUT/gpu.txt"

# The key's subgroups are checked by the proof made first; the benches load it unchecked.
{ cat "$config"; printf '\n[host]\nverify_proofs = true\ncheck_key_subgroups = false\n'; } >"$work/bench.toml"

bench() {  # bench TAG KEY WTNS JOBS [bench options...]
  local tag=$1 zkey=$2 wtns=$3 jobs=$4
  shift 4
  "$P" bench --config "$work/bench.toml" --zkey "$zkey" --witness "$wtns" --proofs "${PROOFS:-24}" --jobs "$jobs" \
    --warmup "$jobs" --json "$OUT/$tag.json" --trace "$OUT/$tag.trace.json" "$@" 2>&1 |
    grep -E "wall|cpu|lanes|latency|memory|^synth|^compute|^msm|^load|error"
}

with_hog() {  # with_hog COMMAND...: runs it beside the hog
  "$dist/bin/pacer_membw_hog" "${HOG_THREADS:-8}" 512 >"$OUT/hog.log" 2>&1 &
  local hog=$!
  sleep 2
  "$@"
  kill -TERM $hog
  wait $hog 2>/dev/null
  tail -n 2 "$OUT/hog.log"
}

key() {  # key CURVE LOG: dev key and witness in $work/CURVE-LOG.*; one proof for snarkjs
  local curve=$1 lg=$2 base="$work/$1-$2"
  log "key $curve 2^$lg"
  "$P" gen-circuit --curve "$curve" --constraints $(((1 << lg) - 100)) --r1cs "$base.r1cs" --witness "$base.wtns"
  "$P" setup --insecure --r1cs "$base.r1cs" --zkey "$base.zkey" --vkey "$work/proofs/$curve-$lg.vkey.json"
  rm -f "$base.r1cs"
  "$P" prove --config "$config" --zkey "$base.zkey" --witness "$base.wtns" \
    --proof "$work/proofs/$curve-$lg.proof.json" --public "$work/proofs/$curve-$lg.public.json" 2>&1 | tail -n 3
}

for lg in ${SIZES:-22 24}; do
  (
    key bn128 "$lg"
    base="$work/bn128-$lg"
    log "2^$lg J=1 (the GPU bound)"
    bench "bn254-$lg-j1" "$base.zkey" "$base.wtns" 1
    log "2^$lg J=2, every proof reading its .wtns (--read-witness)"
    bench "bn254-$lg-j2-read" "$base.zkey" "$base.wtns" 2 --read-witness
    for j in ${JOBS:-2 4}; do
      for round in 1 2; do
        log "2^$lg J=$j alone ($round)"
        bench "bn254-$lg-j$j-alone$round" "$base.zkey" "$base.wtns" "$j"
        log "2^$lg J=$j beside the hog ($round)"
        with_hog bench "bn254-$lg-j$j-hog$round" "$base.zkey" "$base.wtns" "$j"
      done
    done
    log "2^$lg CPU synthesis against 439283f's (pacer_bench_synthesis, every core)"
    "$dist/bin/pacer_bench_synthesis" "$base.zkey" "$base.wtns" 5
    rm -f "$base.zkey" "$base.wtns"
  ) 2>&1 | tee "$OUT/bn254-$lg.log"
done

if [ -n "${BLS_LOG-22}" ]; then
  lg=${BLS_LOG:-22}
  (
    key bls12381 "$lg"
    base="$work/bls12381-$lg"
    for j in 1 2; do
      log "BLS12-381 2^$lg J=$j"
      bench "bls12381-$lg-j$j" "$base.zkey" "$base.wtns" "$j"
    done
  ) 2>&1 | tee "$OUT/bls12381.log"
fi

tar -C "$work" -czf "$OUT/proofs.tar.gz" proofs
log "done"
