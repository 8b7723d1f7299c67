#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over .devcarry/dist (scripts/device/pack.sh):
#   1. the kernels' self-test and benchmark (pacer_cuda_selftest)
#   2. the cuda backend against the cpu backend, 2^10..2^22, both curves (pacer_cuda_tests)
#   3. proofs of every shipped circuit with the cuda backend (checked back here with snarkjs:
#      scripts/device/verify_outputs.sh, since the GPU machine has no node)
#   4. a 2^N-constraint development key (default 20): cpu and cuda proofs, and pacer bench
# Everything goes to $OUT (logs) and $OUT/proofs.tar.gz.
#   STEPS="selftest equivalence shipped dev" DEV_LOG=20 scripts/device/cuda_check.sh
# CUDA_CONFIG (default examples/configs/cuda.toml), BENCH_JOBS ("1 2 4"), BENCH_PROOFS (20),
# CPU_BENCH_PROOFS (6; 0 = no cpu bench), CPU_PROVE (1; 0 = no cpu proof: at 2^24 it takes minutes)
# tune the dev step; each bench warms up with as many proofs as it keeps in flight (one warm-up
# left J = 4 at 2^24 faulting the pool's buffers during the timed proofs). The cuda proof checks
# the key's subgroups once; the benches after it load the same key with [host]
# check_key_subgroups = false (the check takes 15 s at 2^24, docs/verify.md).
set -uo pipefail
source "$(dirname "$0")/env.sh"
work=$(mktemp -d)
proofs="$work/proofs"
mkdir -p "$proofs"
steps=${STEPS:-selftest equivalence shipped dev}
dev_log=${DEV_LOG:-20}
cuda_config=${CUDA_CONFIG:-$root/examples/configs/cuda.toml}
P="$dist/bin/pacer"
has() { [[ " $steps " == *" $1 "* ]]; }
log() { echo "=== $(date -u +%H:%M:%S) $*"; }

nvidia-smi -L 2>&1 | tee "$OUT/gpu.txt"
nproc >>"$OUT/gpu.txt"

if has selftest; then
  log "selftest"
  "$dist/bin/pacer_cuda_selftest" 2>&1 | tee "$OUT/selftest.log"
fi

if has equivalence; then
  log "backend equivalence"
  "$dist/bin/pacer_cuda_tests" --durations yes 2>&1 | tee "$OUT/equivalence.log"
fi

if has shipped; then
  log "shipped circuits on the cuda backend"
  for dir in examples/circuits/*/*/; do
    name=$(basename "$(dirname "$dir")")-$(basename "$dir")
    "$P" prove --config examples/configs/cuda.toml --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" \
      --proof "$proofs/$name.proof.json" --public "$proofs/$name.public.json" 2>&1 | tail -n 2
    cp "$dir/verification_key.json" "$proofs/$name.vkey.json"
  done 2>&1 | tee "$OUT/shipped.log"
fi

if has dev; then
  n=$((1 << dev_log))
  log "development key 2^$dev_log ($n constraints)"
  (
    cd "$work"
    "$P" gen-circuit --constraints $((n - 100)) --r1cs dev.r1cs --witness dev.wtns
    "$P" setup --insecure --r1cs dev.r1cs --zkey dev.zkey --vkey "$proofs/dev$dev_log.vkey.json"
    if [ "${CPU_PROVE:-1}" != 0 ]; then
      "$P" prove --zkey dev.zkey --witness dev.wtns --proof "$proofs/dev$dev_log-cpu.proof.json" \
        --public "$proofs/dev$dev_log-cpu.public.json"
      cp "$proofs/dev$dev_log.vkey.json" "$proofs/dev$dev_log-cpu.vkey.json"
    fi
    "$P" prove --config "$cuda_config" --zkey dev.zkey --witness dev.wtns \
      --proof "$proofs/dev$dev_log-cuda.proof.json" --public "$proofs/dev$dev_log-cuda.public.json"
    cp "$proofs/dev$dev_log.vkey.json" "$proofs/dev$dev_log-cuda.vkey.json"
    rm "$proofs/dev$dev_log.vkey.json"
    { cat "$cuda_config"; printf '\n[host]\ncheck_key_subgroups = false  # checked by the cuda proof above\n'; } >bench.toml
    for jobs in ${BENCH_JOBS:-1 2 4}; do
      "$P" bench --config bench.toml --zkey dev.zkey --witness dev.wtns \
        --proofs ${BENCH_PROOFS:-20} --jobs "$jobs" --warmup "$jobs" --json "$OUT/bench-cuda-$dev_log-j$jobs.json" \
        --trace "$OUT/trace-cuda-$dev_log-j$jobs.json"
    done
    [ "${CPU_BENCH_PROOFS:-6}" = 0 ] || "$P" bench --zkey dev.zkey --witness dev.wtns --proofs ${CPU_BENCH_PROOFS:-6} --jobs 2 \
      --json "$OUT/bench-cpu-$dev_log-j2.json" --trace "$OUT/trace-cpu-$dev_log-j2.json"
  ) 2>&1 | tee "$OUT/dev$dev_log.log"
fi

tar -C "$work" -czf "$OUT/proofs.tar.gz" proofs
log "done"
