#!/usr/bin/env bash
# The multi-GPU measurement, on a machine with several GPUs (device kinds nvidia-h200-x2/-x4), from
# the repository root with .devcarry/dist carried (scripts/device/pack.sh build-dir): per size, a
# synthetic circuit and an insecure key, then `pacer bench` with the cuda backend on the first 1,
# 2, ... N GPUs (J = 2 lanes per GPU, G2 on the GPU), each run's summary, trace, `pacer report`
# and waterfall (a row per GPU), and a table of proofs/s with the scaling against one GPU
# (target: N GPUs >= 0.9 N times one). The cuda proof of each key is kept for snarkjs here
# (scripts/device/verify_outputs.sh $OUT/proofs.tar.gz); the rest goes to $OUT/multi_gpu.tar.gz.
# Everything within DEADLINE seconds.
#   scripts/device/multi_gpu.sh ["20 22"] [proofs per GPU = 12] [deadline s = 560]
set -euo pipefail
sizes=${1:-"20 22"} proofs_per_gpu=${2:-12} deadline=${3:-560}
start=$(date +%s)
root=$PWD
dist=$root/.devcarry/dist
export LD_LIBRARY_PATH="$dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PACER_PLUGIN_PATH="$dist/lib/pacer"
pacer=$dist/bin/pacer
out=${OUT:-/tmp/out}/multi_gpu
mkdir -p "$out/proofs"
gpus=$(nvidia-smi -L | tee "$out/gpus.txt" | grep -c '^GPU ' || true)
[ "$gpus" -ge 1 ] || { echo "no GPU here" | tee -a "$out/log.txt"; exit 1; }
echo "$gpus GPUs, $(nproc) cores" | tee -a "$out/log.txt"
left() { echo $(( deadline - ($(date +%s) - start) )); }

# config DEVICES CHECK: examples/configs/cuda.toml on GPUs DEVICES ("0, 1"), key check on or off.
config() {
  sed "s/^params = { lanes_per_device = 2, g2 = \"gpu\" }/params = { lanes_per_device = 2, g2 = \"gpu\", devices = [$1] }/" \
    "$root/examples/configs/cuda.toml"
  printf '\n[host]\ncheck_key_subgroups = %s\n' "$2"
}

printf '| size | GPUs | J | proofs | proofs/s | vs one GPU | per GPU |\n|---|---:|---:|---:|---:|---:|---:|\n' >"$out/table.md"
for k in $sizes; do
  dir=/tmp/mgpu-$k
  mkdir -p "$dir"
  t0=$(date +%s)
  "$pacer" gen-circuit --constraints $(( (1 << k) - 100 )) --r1cs "$dir/c.r1cs" --witness "$dir/w.wtns" >/dev/null
  "$pacer" setup --insecure --r1cs "$dir/c.r1cs" --zkey "$dir/c.zkey" --vkey "$out/proofs/dev$k.vkey.json" >/dev/null
  echo "2^$k: circuit and key in $(( $(date +%s) - t0 )) s" | tee -a "$out/log.txt"
  # One proof on every GPU, the key checked: what snarkjs verifies back home.
  all=$(seq -s ', ' 0 $((gpus - 1)))
  config "$all" true >"$dir/check.toml"
  "$pacer" prove --config "$dir/check.toml" --zkey "$dir/c.zkey" --witness "$dir/w.wtns" \
    --proof "$out/proofs/dev$k.proof.json" --public "$out/proofs/dev$k.public.json" 2>&1 | tail -n 3 | tee -a "$out/log.txt"
  base=""
  for n in $(seq 1 "$gpus"); do
    [ "$(left)" -gt 30 ] || { echo "no time left for 2^$k on $n GPUs" | tee -a "$out/log.txt"; break; }
    devices=$(seq -s ', ' 0 $((n - 1)))
    config "$devices" false >"$dir/bench-$n.toml"
    jobs=$((2 * n)) proofs=$((proofs_per_gpu * n)) tag="2e$k-gpus$n"
    timeout "$(left)" "$pacer" bench --config "$dir/bench-$n.toml" --zkey "$dir/c.zkey" --witness "$dir/w.wtns" \
      --proofs "$proofs" --jobs "$jobs" --json "$out/$tag.json" --trace "$out/$tag.trace.json" \
      >"$out/$tag.txt" 2>&1 || { echo "2^$k on $n GPUs: bench failed or timed out" | tee -a "$out/log.txt"; continue; }
    "$pacer" report "$out/$tag.trace.json" --svg "$out/$tag.svg" >"$out/$tag.report.txt" 2>&1 || true
    rate=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["proofs_per_second"])' "$out/$tag.json")
    [ -n "$base" ] || base=$rate
    python3 - "$k" "$n" "$jobs" "$proofs" "$rate" "$base" >>"$out/table.md" <<'PY'
import sys
k, n, jobs, proofs, rate, base = sys.argv[1:7]
n, rate, base = int(n), float(rate), float(base)
print(f"| 2^{k} | {n} | {jobs} | {proofs} | {rate:.2f} | {rate / base:.2f}x ({rate / base / n:.0%} of {n}x) | {rate / n:.2f} |")
PY
    grep -h "devices\|lanes " "$out/$tag.report.txt" | tee -a "$out/log.txt" || true
  done
done
cat "$out/table.md" | tee -a "$out/log.txt"
tar -C "$out" -czf "${OUT:-/tmp/out}/proofs.tar.gz" proofs && rm -rf "$out/proofs"
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/multi_gpu.tar.gz" multi_gpu && rm -rf "$out"
