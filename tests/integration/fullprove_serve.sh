#!/usr/bin/env bash
# `pacer serve` proving input.json bodies (docs/daemon.md): one daemon with two circuits whose
# [[keys]] name their .wasm, 8 concurrent JSON submissions all accepted by snarkjs, bad JSON
# bodies refused at once, and rapidsnark's prover-server routes (fullprove_client.py). Then
# SIGTERM: exit 0, no crash in the log.
#   usage: fullprove_serve.sh <path to pacer> <source dir>
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_node; need_snarkjs

out="$WORK/serve"; mkdir -p "$out"
cat >"$out/serve.toml" <<TOML
[host]
threads = 2
[pipeline]
jobs_in_flight = 3
[server]
listen = "127.0.0.1:0"
[witness]
cache_dir = "$(dirname "$(dirname "$PACER")")/test-witness-cache"
[[keys]]
id = "mul3"
zkey = "$CIRCUITS/mul3/bn128/circuit.zkey"
wasm = "$CIRCUITS/mul3/bn128/circuit.wasm"
[[keys]]
id = "chain"
zkey = "$CIRCUITS/chain/bls12381/circuit.zkey"
wasm = "$CIRCUITS/chain/bls12381/circuit.wasm"
[[keys]]
id = "nopub"
zkey = "$CIRCUITS/nopub/bn128/circuit.zkey"
TOML
"$PACER" serve --config "$out/serve.toml" --port-file "$out/port" >"$out/stdout" 2>"$out/stderr" &
pid=$!
# The generators may compile first (a few seconds each, once per build folder).
for _ in $(seq 1200); do [ -s "$out/port" ] || ! kill -0 $pid 2>/dev/null && break; sleep 0.1; done
if [ ! -s "$out/port" ]; then
  fail "the daemon wrote no port file"; kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null; show_output "$out"; finish
fi
grep -q "key mul3: witness generator" "$out/stderr" && grep -q "key chain: witness generator" "$out/stderr" &&
  pass "the daemon loaded both keys' witness generators" || fail "no 'witness generator' line per key"
rc=0
python3 "$SRC/tests/integration/fullprove_client.py" --port "$(cat "$out/port")" --src "$SRC" --work "$out" \
  --snarkjs "$SNARKJS" || rc=$?
[ $rc -eq 0 ] || fail "client checks failed (exit $rc)"
kill -TERM $pid 2>/dev/null || true
for _ in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
rc=0; wait $pid || rc=$?
[ $rc -eq 0 ] && pass "SIGTERM: the daemon stopped, exit 0" || { fail "the daemon exited $rc"; show_output "$out"; }
if grep -Eiq "terminate called|segmentation|sanitizer" "$out/stderr"; then fail "crash in the log"; show_output "$out"; fi
finish
