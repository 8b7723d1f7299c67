#!/usr/bin/env bash
# The service layer's overhead: the same proofs through `pacer bench` (the engine alone) and through
# `pacer serve` (HTTP, queue, JSON; examples/daemon/pacer_client.py load), on one synthetic circuit
# with a development key, the same config and the same proofs in flight. Prints both throughputs
# and the overhead; the figures in docs/daemon.md come from it.
#   usage: scripts/bench_daemon.sh [constraints (default 32768)] [proofs (default 40)] [jobs in flight (default 2)]
#   BUILD_DIR as for scripts/build.sh (default: build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}
pacer="$root/$build_dir/bin/pacer"
constraints=${1:-32768} proofs=${2:-40} jobs=${3:-2}
work="$root/$build_dir/bench-daemon/$constraints"
mkdir -p "$work"

if [ ! -s "$work/circuit.zkey" ]; then
  echo "== circuit: $constraints constraints (gen-circuit + setup --insecure)"
  "$pacer" gen-circuit --constraints "$constraints" --r1cs "$work/circuit.r1cs" --witness "$work/witness.wtns"
  "$pacer" setup --insecure --r1cs "$work/circuit.r1cs" --zkey "$work/circuit.zkey" --vkey "$work/verification_key.json"
fi
cat >"$work/serve.toml" <<TOML
[pipeline]
jobs_in_flight = $jobs
[server]
listen = "127.0.0.1:0"
max_queued = 100000
[[keys]]
id = "bench"
zkey = "circuit.zkey"
TOML
printf '[pipeline]\njobs_in_flight = %s\n' "$jobs" >"$work/bench.toml"

echo "== pacer bench: $proofs proofs, $jobs in flight"
"$pacer" bench --config "$work/bench.toml" --zkey "$work/circuit.zkey" --witness "$work/witness.wtns" \
  --proofs "$proofs" --jobs "$jobs" --warmup 2 --json "$work/bench.json" >/dev/null
bench=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["proofs_per_second"])' "$work/bench.json")

echo "== pacer serve: the same $proofs proofs over HTTP, $((2 * jobs)) clients"
rm -f "$work/port"
"$pacer" serve --config "$work/serve.toml" --port-file "$work/port" 2>"$work/serve.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")"
client=(python3 examples/daemon/pacer_client.py load --url "$url" --key bench "$work/witness.wtns")
"${client[@]}" --proofs 2 --connections "$jobs" >/dev/null  # warm-up, as bench's
"${client[@]}" --proofs "$proofs" --connections $((2 * jobs)) >"$work/serve.json"
kill -TERM $pid; wait $pid; trap - EXIT

python3 - "$bench" "$work/serve.json" <<'PY'
import json, sys
bench = float(sys.argv[1])
s = json.load(open(sys.argv[2]))
for name, rate in (("server side (first submit to last end)", s["server_proofs_per_second"]),
                   ("client side (wall time of the client)", s["client_proofs_per_second"])):
    print(f"daemon, {name}: {rate:.3f} proofs/s, {100 * (bench - rate) / bench:+.1f}% vs bench")
print(f"pacer bench: {bench:.3f} proofs/s")
PY
