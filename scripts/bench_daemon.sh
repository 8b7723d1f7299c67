#!/usr/bin/env bash
# The service layer's overhead: the same proofs through `pacer bench` (the engine alone) and through
# `pacer serve` (HTTP, queue, JSON; examples/daemon/pacer_client.py load), on one synthetic circuit
# with a development key, the same config and the same proofs in flight. Prints both throughputs
# and the overhead; the figures in docs/daemon.md come from it.
#   usage: scripts/bench_daemon.sh [constraints (default 32768)] [proofs (default 40)] [jobs in flight (default 2)]
#                                  [rounds (default 3)]
# Each round runs bench, then the same proofs through the daemon (started once, warmed up), and
# prints both throughputs and both CPU times per proof (the daemon's from /proc: HTTP, JSON and
# queue included); CPU time is the steadier figure on a machine shared with other work.
#   BUILD_DIR as for scripts/build.sh (default: build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}
pacer="$root/$build_dir/bin/pacer"
constraints=${1:-32768} proofs=${2:-40} jobs=${3:-2} repeats=${4:-3}
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

# CPU seconds of a process so far (utime + stime from /proc/PID/stat).
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"; }

rm -f "$work/port"
"$pacer" serve --config "$work/serve.toml" --port-file "$work/port" 2>"$work/serve.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")"
client=(python3 examples/daemon/pacer_client.py load --url "$url" --key bench "$work/witness.wtns")
"${client[@]}" --proofs 2 --connections "$jobs" >/dev/null  # warm-up, as bench's --warmup 2

# Alternating, so that a change in the machine's load falls on both alike.
for r in $(seq "$repeats"); do
  echo "== round $r/$repeats: pacer bench, then pacer serve; $proofs proofs, $jobs in flight, load $(cut -d' ' -f1 /proc/loadavg)"
  "$pacer" bench --config "$work/bench.toml" --zkey "$work/circuit.zkey" --witness "$work/witness.wtns" \
    --proofs "$proofs" --jobs "$jobs" --warmup 2 --json "$work/bench-$r.json" >/dev/null
  before=$(cpu_seconds $pid)
  "${client[@]}" --proofs "$proofs" --connections $((2 * jobs)) >"$work/serve-$r.json"
  after=$(cpu_seconds $pid)
  python3 - "$work/bench-$r.json" "$work/serve-$r.json" "$before" "$after" "$proofs" <<'PY'
import json, sys
b, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
proofs = int(sys.argv[5])
b_cpu = (b["cpu"]["user_seconds"] + b["cpu"]["system_seconds"]) / proofs
s_cpu = (float(sys.argv[4]) - float(sys.argv[3])) / proofs
b_rate, s_rate = b["proofs_per_second"], s["server_proofs_per_second"]
print(f"   bench {b_rate:.3f} proofs/s, {b_cpu:.3f} CPU s/proof | daemon {s_rate:.3f} proofs/s "
      f"(client wall {s['client_proofs_per_second']:.3f}), {s_cpu:.3f} CPU s/proof | "
      f"overhead: throughput {100 * (b_rate - s_rate) / b_rate:+.1f}%, CPU {100 * (s_cpu - b_cpu) / b_cpu:+.1f}%")
PY
done
kill -TERM $pid; wait $pid; trap - EXIT
