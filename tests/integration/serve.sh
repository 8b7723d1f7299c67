#!/usr/bin/env bash
# Integration: `pacer serve` against real HTTP clients (serve_client.py) on an ephemeral loopback
# port (listen = "127.0.0.1:0", the port read from --port-file). Each case starts its own daemon
# with the config it needs, runs one client case, then stops the daemon with SIGTERM: it must exit
# 0, within its grace period, with no crash in its log.
# device_lost runs the daemon on the test-only faulty backend (tests/plugins) that loses one of two
# pretend devices: the proof on it runs again on the other, and the job and /metrics say so.
#   usage: serve.sh <path to pacer> <source dir> [roundtrip|concurrent|priority|bad_requests|token|slow_client|shutdown|shutdown_without_grace|expiry|device_lost]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_node; need_snarkjs

mapfile -t todo < <(cases_or roundtrip concurrent priority bad_requests token slow_client shutdown shutdown_without_grace expiry device_lost)
for c in "${todo[@]}"; do
  out="$WORK/$c"; mkdir -p "$out"
  pipeline="jobs_in_flight = 2"; server=""; token=""; host=""; backend=""
  case "$c" in
    roundtrip|concurrent) ;;
    priority) pipeline="jobs_in_flight = 1"; server="max_queued = 4" ;;
    bad_requests) server="max_body_bytes = 100000" ;;
    token) token="s3cret-token"; server="token = \"$token\"" ;;
    slow_client) server="request_timeout_s = 2" ;;
    shutdown) pipeline="jobs_in_flight = 1"; server="shutdown_grace_s = 20" ;;
    shutdown_without_grace) pipeline="jobs_in_flight = 1"; server="shutdown_grace_s = 0" ;;
    expiry) server="result_ttl_s = 1" ;;
    device_lost)  # only the fault plugins: the test-plugin folder also holds broken ones
      mkdir -p "$out/plugins"
      cp "$(dirname "$(dirname "$PACER")")"/lib/pacer-test-plugins/libpacer_test_fault_*.so "$out/plugins"/
      pipeline="jobs_in_flight = 1"; host="plugin_dirs = [\"$out/plugins\"]"
      backend=$'[backend]\nplugin = "faulty"\nparams = { fault = "device_lost", stage = "msm_g1", call = 2, devices = 2 }' ;;
    *) fail "unknown case '$c'"; continue ;;
  esac
  cat >"$out/serve.toml" <<TOML
[host]
threads = 2
$host
$backend
[pipeline]
$pipeline
[server]
listen = "127.0.0.1:0"
$server
[[keys]]
id = "poseidon3-bn128"
zkey = "$CIRCUITS/poseidon3/bn128/circuit.zkey"
[[keys]]
id = "mul3-bn128"
zkey = "$CIRCUITS/mul3/bn128/circuit.zkey"
TOML
  "$PACER" serve --config "$out/serve.toml" --port-file "$out/port" >"$out/stdout" 2>"$out/stderr" &
  pid=$!
  for _ in $(seq 300); do [ -s "$out/port" ] || ! kill -0 $pid 2>/dev/null && break; sleep 0.1; done
  if [ ! -s "$out/port" ]; then
    fail "$c: the daemon wrote no port file"; kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null; show_output "$out"; continue
  fi
  port=$(cat "$out/port")
  grep -q "listening on http://127.0.0.1:$port" "$out/stderr" || fail "$c: no 'listening on' line naming port $port"
  if [ "$c" = roundtrip ]; then
    # A second daemon on the same port, and a --listen that is no address: exit 2, one line each.
    for listen in "127.0.0.1:$port" "1.2.3"; do
      rc=0; "$PACER" serve --config "$out/serve.toml" --listen "$listen" >"$out/second.out" 2>"$out/second.err" || rc=$?
      if [ $rc -eq 2 ] && [ "$(grep -c 'pacer: error' "$out/second.err")" -eq 1 ]; then
        pass "$c: --listen $listen refused: $(grep 'pacer: error' "$out/second.err")"
      else fail "$c: --listen $listen gave exit $rc"; cat "$out/second.err"; fi
    done
  fi
  rc=0
  python3 "$SRC/tests/integration/serve_client.py" "$c" --port "$port" --pid $pid --src "$SRC" --pacer "$PACER" \
    --work "$out" --token "$token" || rc=$?
  [ $rc -eq 0 ] || fail "$c: client checks failed (exit $rc)"
  kill -TERM $pid 2>/dev/null || true
  stopped=0
  for _ in $(seq 300); do kill -0 $pid 2>/dev/null || { stopped=1; break; }; sleep 0.1; done
  if [ $stopped -eq 0 ]; then fail "$c: the daemon did not stop within 30 s of SIGTERM"; kill -KILL $pid; fi
  rc=0; wait $pid || rc=$?
  if [ $rc -eq 0 ] && grep -q "stopped: " "$out/stderr"; then pass "$c: SIGTERM: the daemon stopped, exit 0"
  else fail "$c: the daemon exited $rc"; show_output "$out"; fi
  if grep -Eiq "terminate called|segmentation|sanitizer|assert" "$out/stderr"; then fail "$c: crash in the log"; show_output "$out"; fi
  [ $rc -eq 0 ] && [ "$FAILED" -eq 0 ] || { echo "--- daemon log (last 30 lines)"; tail -30 "$out/stderr"; }
done
finish
