#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over .devcarry/dist (scripts/device/pack.sh):
# the GPU-pacing measurement in one call, every comparison in the same call.
#   For each log size in SIZES (default "22 24"), a BN254 development key (gen-circuit + setup
#   --insecure), then with CONFIG (default examples/configs/cuda.toml, every proof verified by
#   [host] verify_proofs):
#     J = 1: one proof at a time; its lane seconds a proof give the GPU bound (bench prints it);
#     J = 2 with every proof reading its .wtns in its load stage (--read-witness);
#     J in JOBS (default "2 4"): alone, then beside the DRAM hog (pacer_membw_hog, HOG_THREADS = 8),
#     ROUNDS times (default 2: alone, hog, alone, hog, so drift shows).
#   BLS12-381 at 2^BLS_LOG (default 22; "" = none): J = 1 and 2.
#   A proof per key for snarkjs (checked back here: scripts/device/verify_outputs.sh), and the CPU
#   synthesis against its 439283f anchor on each BN254 key (pacer_bench_synthesis).
# Logs go to $OUT; bench summaries, traces and the proofs to $OUT/results.tgz (written also when the
# script is stopped midway: the device tool brings back at most 8 files).
# PROOFS (default 24) proofs a bench after J warm-up proofs.
set -uo pipefail
source "$(dirname "$0")/env.sh"
work=${WORK:-$(mktemp -d)}  # WORK: a folder to tar by hand if this script is killed midway
mkdir -p "$work/proofs" "$work/runs"
runs="$work/runs"
trap 'tar -C "$work" -czf "$OUT/results.tgz" proofs runs 2>/dev/null' EXIT
trap 'exit 143' TERM INT
P="$dist/bin/pacer"
config=${CONFIG:-$root/examples/configs/cuda.toml}
log() { echo "=== $(date -u +%H:%M:%S) $*"; }
nvidia-smi -L 2>&1 | tee "$OUT/gpu.txt"
nproc >>"$OUT/gpu.txt"

# The key's subgroups are checked by the proof made first; the benches load it unchecked.
host_keys='verify_proofs = true\ncheck_key_subgroups = false'
sed -E '/^(verify_proofs|check_key_subgroups)[[:space:]]*=/d' "$config" >"$work/bench.toml.in"
if grep -q '^\[host\]' "$work/bench.toml.in"; then sed "s/^\[host\]\$/[host]\n$host_keys/" "$work/bench.toml.in" >"$work/bench.toml"
else { cat "$work/bench.toml.in"; printf '\n[host]\n%b\n' "$host_keys"; } >"$work/bench.toml"; fi

sed -E '/^log_level[[:space:]]*=/d' "$config" >"$work/debug.toml.in"
if grep -q '^\[host\]' "$work/debug.toml.in"; then sed 's/^\[host\]$/[host]\nlog_level = "debug"/' "$work/debug.toml.in" >"$work/debug.toml"
else { cat "$work/debug.toml.in"; printf '\n[host]\nlog_level = "debug"\n'; } >"$work/debug.toml"; fi

bench() {  # bench TAG KEY WTNS JOBS [bench options...]
  local tag=$1 zkey=$2 wtns=$3 jobs=$4
  shift 4
  "$P" bench --config "$work/bench.toml" --zkey "$zkey" --witness "$wtns" --proofs "${PROOFS:-24}" --jobs "$jobs" \
    --warmup "$jobs" --json "$runs/$tag.json" --trace "$runs/$tag.trace.json" "$@" 2>&1 |
    grep -E "wall|cpu|lanes|latency|memory|^synth|^compute|^msm|^load|error"
}

with_hog() {  # with_hog COMMAND...: runs it beside the hog
  "$dist/bin/pacer_membw_hog" "${HOG_THREADS:-8}" 512 >"$runs/hog.log" 2>&1 &
  local hog=$!
  sleep 2
  "$@"
  kill -TERM $hog
  wait $hog 2>/dev/null
  tail -n 2 "$runs/hog.log"
}

key() {  # key CURVE LOG: dev key and witness in $work/CURVE-LOG.*; one proof for snarkjs
  local curve=$1 lg=$2 base="$work/$1-$2"
  log "key $curve 2^$lg"
  "$P" gen-circuit --curve "$curve" --constraints $(((1 << lg) - 100)) --r1cs "$base.r1cs" --witness "$base.wtns"
  "$P" setup --insecure --r1cs "$base.r1cs" --zkey "$base.zkey" --vkey "$work/proofs/$curve-$lg.vkey.json"
  rm -f "$base.r1cs"
  # The default checks (subgroups on), at debug level: the key's load broken down by step.
  /usr/bin/time -f "wall %e s, cpu %U+%S s, maxrss %M kB" \
    "$P" prove --config "$work/debug.toml" --zkey "$base.zkey" --witness "$base.wtns" \
    --proof "$work/proofs/$curve-$lg.proof.json" --public "$work/proofs/$curve-$lg.public.json" 2>&1 |
    grep -Ei "resident|read and validated|subgroup|record|proof 1|wall|error"
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
      for round in $(seq "${ROUNDS:-2}"); do
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

log "done"
