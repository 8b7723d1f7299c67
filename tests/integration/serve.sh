#!/usr/bin/env bash
# Integration: `pacer serve` against real HTTP clients (serve_client.py) on an ephemeral loopback
# port (listen = "127.0.0.1:0", the port read from --port-file). Each case starts its own daemon
# with the config it needs, runs one client case, then stops the daemon with SIGTERM: it must exit
# 0, within its grace period, with no crash in its log.
# device_lost runs the daemon on the test-only faulty backend (tests/plugins) that loses one of two
# pretend devices: the proof on it runs again on the other, and the job and /metrics say so.
# The hostile cases (serve_hostile.py): fd_limit (under ulimit -n 128), client_gone, refused_memory,
# protocol, shipped_config (examples/configs/serve.toml as shipped), public_bind (0.0.0.0: refused
# without a token), shutdown_sighup.
#   usage: serve.sh <path to pacer> <source dir> [case ...] (the cases below)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_node; need_snarkjs

mapfile -t todo < <(cases_or roundtrip concurrent priority bad_requests token slow_client shutdown shutdown_without_grace \
                            expiry device_lost fd_limit client_gone refused_memory protocol shipped_config public_bind \
                            shutdown_sighup)
for c in "${todo[@]}"; do
  out="$WORK/$c"; mkdir -p "$out"
  pipeline="jobs_in_flight = 2"; server=""; token=""; host=""; backend=""; scheduler=""; listen="127.0.0.1:0"
  limit_fds=""; config="$out/serve.toml"; extra=()
  case "$c" in
    roundtrip|concurrent) ;;
    priority) pipeline="jobs_in_flight = 1"; server="max_queued = 4" ;;
    bad_requests) server="max_body_bytes = 100000" ;;
    token) token="s3cret-token"; server="token = \"$token\"" ;;
    slow_client) server="request_timeout_s = 2" ;;
    shutdown) pipeline="jobs_in_flight = 1"; server="shutdown_grace_s = 20" ;;
    shutdown_sighup)  # slow proofs: the one in flight still runs when the 503 comes
      pipeline="jobs_in_flight = 1"; server="shutdown_grace_s = 20"
      scheduler=$'[scheduler]\nplugin = "throttled"\nparams = { membw_mb_per_s = 1 }' ;;
    shutdown_without_grace) pipeline="jobs_in_flight = 1"; server="shutdown_grace_s = 0" ;;
    expiry) server="result_ttl_s = 1" ;;
    device_lost)  # only the fault plugins: the test-plugin folder also holds broken ones
      mkdir -p "$out/plugins"
      cp "$(dirname "$(dirname "$PACER")")"/lib/pacer-test-plugins/libpacer_test_fault_*.so "$out/plugins"/
      pipeline="jobs_in_flight = 1"; host="plugin_dirs = [\"$out/plugins\"]"
      backend=$'[backend]\nplugin = "faulty"\nparams = { fault = "device_lost", stage = "msm_g1", call = 2, devices = 2 }' ;;
    fd_limit)
      # UBSan's vptr check probes memory through a pipe: with no descriptor left the probe fails and
      # any virtual call on an error category is reported as "invalid vptr", which halts the daemon.
      # The sanitizer build cannot run this case; the Release build does.
      # grep reads all of ldd's output: with -q it may stop early, ldd then dies of SIGPIPE and
      # pipefail turns the match into a failure (a flake of the sanitizer job).
      if ldd "$PACER" | grep libubsan >/dev/null; then
        pass "$c: not run under UBSan (its vptr check needs a free descriptor); the Release build runs it"; continue
      fi
      limit_fds=128 ;;
    client_gone)  # about a second a proof: a queued one stays queued while clients come and go
      pipeline="jobs_in_flight = 1"; server="max_connections = 8"
      scheduler=$'[scheduler]\nplugin = "throttled"\nparams = { membw_mb_per_s = 1 }' ;;
    refused_memory) pipeline="jobs_in_flight = 1"; server="max_queued = 1" ;;
    protocol) ;;
    shipped_config) config="$SRC/examples/configs/serve.toml"; extra=(--listen 127.0.0.1:0) ;;
    public_bind)
      listen="0.0.0.0:0"
      # No token on a public address: refused at start, one line, exit 2; allowed when asked for.
      printf '[server]\nlisten = "0.0.0.0:0"\n[[keys]]\nid = "k"\nzkey = "%s"\n' "$CIRCUITS/mul3/bn128/circuit.zkey" \
        >"$out/open.toml"
      rc=0; timeout 20 "$PACER" serve --config "$out/open.toml" >"$out/open.out" 2>"$out/open.err" || rc=$?
      if [ $rc -eq 2 ] && [ "$(grep -c 'pacer: error' "$out/open.err")" -eq 1 ] && grep -q "without a token" "$out/open.err"
      then pass "$c: 0.0.0.0 without a token is refused: $(grep 'pacer: error' "$out/open.err" | cut -c1-120)..."
      else fail "$c: 0.0.0.0 without a token gave exit $rc"; cat "$out/open.err"; fi
      printf '[server]\nlisten = "0.0.0.0:0"\nallow_no_token = true\n[[keys]]\nid = "k"\nzkey = "%s"\n' \
        "$CIRCUITS/mul3/bn128/circuit.zkey" >"$out/open.toml"
      "$PACER" serve --config "$out/open.toml" --port-file "$out/open.port" >"$out/open.out" 2>"$out/open.err" &
      open_pid=$!
      for _ in $(seq 100); do [ -s "$out/open.port" ] || ! kill -0 $open_pid 2>/dev/null && break; sleep 0.1; done
      if [ -s "$out/open.port" ] && grep -q "with no token" "$out/open.err"
      then pass "$c: allow_no_token = true: it listens, with a warning"
      else fail "$c: allow_no_token = true did not start with a warning"; cat "$out/open.err"; fi
      kill -TERM $open_pid 2>/dev/null; wait $open_pid 2>/dev/null || true
      token="s3cret-token"; server="token = \"$token\"" ;;
    *) fail "unknown case '$c'"; continue ;;
  esac
  cat >"$out/serve.toml" <<TOML
[host]
threads = 2
$host
$backend
$scheduler
[pipeline]
$pipeline
[server]
listen = "$listen"
$server
[[keys]]
id = "poseidon3-bn128"
zkey = "$CIRCUITS/poseidon3/bn128/circuit.zkey"
[[keys]]
id = "mul3-bn128"
zkey = "$CIRCUITS/mul3/bn128/circuit.zkey"
TOML
  if [ -n "$limit_fds" ]; then
    (ulimit -n "$limit_fds" && exec "$PACER" serve --config "$config" --port-file "$out/port" "${extra[@]}") \
      >"$out/stdout" 2>"$out/stderr" &
  else
    "$PACER" serve --config "$config" --port-file "$out/port" "${extra[@]}" >"$out/stdout" 2>"$out/stderr" &
  fi
  pid=$!
  for _ in $(seq 300); do [ -s "$out/port" ] || ! kill -0 $pid 2>/dev/null && break; sleep 0.1; done
  if [ ! -s "$out/port" ]; then
    fail "$c: the daemon wrote no port file"; kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null; show_output "$out"; continue
  fi
  port=$(cat "$out/port")
  grep -q "listening on http://${listen%:*}:$port" "$out/stderr" || fail "$c: no 'listening on' line naming port $port"
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
  # A case that stopped the daemon itself (SIGTERM, SIGHUP) is not signalled again: a second
  # signal during its teardown, after it let go of its handlers, would end it with 143.
  grep -Eq "SIG[A-Z]+: stopping" "$out/stderr" || kill -TERM $pid 2>/dev/null || true
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
