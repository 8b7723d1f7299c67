#!/usr/bin/env bash
# Integration: `pacer bench` on mul3/bn128, 6 proofs with 3 in flight. The summary JSON must count
# 6 proofs at a rate above zero with an entry for every stage; the trace must hold one stage event
# ("X", cat "stage") per stage task per proof (msm_g1: one per G1 basis, 4). `pacer report` on the
# trace prints proofs/s, stage percentiles, inflation and waits, and draws the waterfall SVG.
# --proofs 0 and --jobs 0 must exit 2 with one line.
# No snarkjs needed: correctness of the proofs is prove_verify.sh's job.
#   usage: bench_smoke.sh <path to pacer> <source dir> [case ...]
#   cases: run report zero_proofs zero_jobs
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer
command -v python3 >/dev/null || { echo "FAIL: python3 is not on PATH (it reads the JSON)" >&2; exit 1; }

MUL3=$(fixture mul3:bn128)
need_file "$MUL3/circuit.zkey"
STAGES="load synthesize compute_h msm_g1 msm_g2 assemble release"

# expect_usage_error CASE NEEDLE pacer-args...: exit 2, one stderr line "pacer: error: ..." naming NEEDLE.
expect_usage_error() {
  local name=$1 needle=$2; shift 2
  local out="$WORK/$name" rc=0
  run_pacer "$out" "$@" || rc=$?
  local nlines first
  nlines=$(awk 'END { print NR }' "$out/stderr")
  first=$(head -n 1 "$out/stderr")
  if [ $rc -eq 2 ] && [ "$nlines" -eq 1 ] && [[ "$first" == "pacer: error:"*"$needle"* ]]; then
    pass "$name: exit 2, $first"
  else
    fail "$name: exit $rc with $nlines stderr line(s); want exit 2 and one 'pacer: error: ...$needle...' line"
    show_output "$out"
  fi
}

mapfile -t todo < <(cases_or run report zero_proofs zero_jobs)
for c in "${todo[@]}"; do
  out="$WORK/$c"; mkdir -p "$out"
  bench=(bench --zkey "$MUL3/circuit.zkey" --witness "$MUL3/witness.wtns")
  case "$c" in
    run)
      rc=0
      run_pacer "$out" "${bench[@]}" --proofs 6 --jobs 3 --json "$out/s.json" --trace "$out/t.json" || rc=$?
      if [ $rc -ne 0 ]; then fail "run: pacer bench exited $rc"; show_output "$out"; continue; fi
      # stderr is not a terminal here: no progress bar may be drawn into it.
      if grep -q $'\r' "$out/stderr"; then fail "run: progress bar drawn although stderr is not a TTY"; fi
      if grep -q 'proofs/s' "$out/stdout"; then pass "run: the table reports proofs/s"
      else fail "run: no proofs/s in the table"; show_output "$out"; fi
      rc=0
      python3 - "$out/s.json" "$out/t.json" "$STAGES" <<'PY' || rc=$?
import json, sys
summary = json.load(open(sys.argv[1]))
trace = json.load(open(sys.argv[2]))
stages = sys.argv[3].split()
errors = []
def want(cond, what):
    if not cond: errors.append(what)

want(summary.get("proofs") == 6, f"summary proofs = {summary.get('proofs')}, want 6")
want(summary.get("jobs") == 3, f"summary jobs = {summary.get('jobs')}, want 3")
want(summary.get("proofs_per_second", 0) > 0, "proofs_per_second is not > 0")
want(summary.get("wall_seconds", 0) > 0, "wall_seconds is not > 0")
want("bench" in summary.get("command", ""), "command does not hold the argv")
want(summary.get("date", "").endswith("Z"), "date is not UTC ISO-8601")
lat = summary.get("latency_seconds", {})
want(0 < lat.get("p50", 0) <= lat.get("p95", 0) <= lat.get("max", 0), f"latency percentiles out of order: {lat}")
want(summary.get("memory", {}).get("peak_rss_bytes", 0) > 0, "peak_rss_bytes is not > 0")
# Pacing telemetry: every lane's busy share of the window, a proof's lane time, CPU seconds a proof.
lanes = summary.get("lanes", [])
want(len(lanes) >= 1, f"no lanes in the summary: {lanes}")
for lane in lanes:
    want(0 < lane.get("busy_fraction", 0) <= 1.0 + 1e-9, f"lane busy_fraction out of (0, 1]: {lane}")
    want("device" in lane and "lane" in lane, f"lane entry without device or lane: {lane}")
    want(abs(lane["busy_seconds"] - lane["busy_fraction"] * summary["wall_seconds"]) < 1e-6,
         f"busy_seconds is not busy_fraction x wall_seconds: {lane}")
want(summary.get("lane_seconds_per_proof", 0) > 0, "lane_seconds_per_proof is not > 0")
cpu = summary.get("cpu", {})
want(cpu.get("seconds_per_proof", 0) > 0, f"cpu.seconds_per_proof is not > 0: {cpu}")
want(abs(cpu["seconds_per_proof"] * 6 - (cpu["user_seconds"] + cpu["system_seconds"])) < 1e-6,
     f"cpu.seconds_per_proof is not (user + system) / proofs: {cpu}")
want(trace.get("otherData", {}).get("cpu_seconds_per_proof", 0) > 0, "the trace has no cpu_seconds_per_proof")
for s in stages:
    e = summary.get("stages", {}).get(s)
    if e is None:
        errors.append(f"summary has no entry for stage {s}"); continue
    per_proof = 4 if s == "msm_g1" else 1
    want(e.get("samples") == 6 * per_proof, f"stage {s}: {e.get('samples')} samples, want {6 * per_proof}")
    w, r = e["wall_seconds"], e["run_seconds"]
    want(0 <= w["p50"] <= w["p95"] <= w["max"], f"stage {s}: wall percentiles out of order: {w}")
    want(r["p50"] <= w["p50"] and r["p95"] <= w["p95"], f"stage {s}: run time above wall time: {r} vs {w}")

events = trace.get("traceEvents", [])
stage_events = [e for e in events if e.get("ph") == "X" and e.get("name") != "queued"]
want(len(stage_events) == 6 * (len(stages) + 3),
     f"trace has {len(stage_events)} stage events, want 6 x {len(stages) + 3}")
for s in stages:
    n = sum(1 for e in stage_events if e["name"] == s)
    want(n == 6 * (4 if s == "msm_g1" else 1), f"trace: {n} events for stage {s}")
want(len({e["args"]["job"] for e in stage_events}) == 6, "trace: stage events do not span 6 jobs")
for e in events:
    if e.get("ph") != "X": continue
    want(e["pid"] in (1, 2) and isinstance(e["tid"], int) and e["tid"] >= 1, f"trace: bad pid/tid in {e}")
    want(e["ts"] >= 0 and e["dur"] >= 0, f"trace: negative ts/dur in {e}")
    if e["name"] == "queued": want(e["dur"] > 0, f"trace: empty queued event {e}")
    else: want({"job", "queued_us", "paused_us", "bytes"} <= set(e["args"]), f"trace: args missing in {e}")
for line in errors[:20]: print("   ", line)
sys.exit(1 if errors else 0)
PY
      if [ $rc -eq 0 ]; then pass "run: summary (6 proofs, all stages) and trace (6 x stages events) check out"
      else fail "run: summary/trace checks failed"; show_output "$out"; fi ;;
    report)
      rc=0
      run_pacer "$out" "${bench[@]}" --proofs 4 --jobs 2 --trace "$out/t.json" || rc=$?
      if [ $rc -ne 0 ]; then fail "report: pacer bench exited $rc"; show_output "$out"; continue; fi
      rc=0
      run_pacer "$out/r" report "$out/t.json" --svg "$out/w.svg" || rc=$?
      if [ $rc -ne 0 ]; then fail "report: pacer report exited $rc"; show_output "$out/r"; continue; fi
      for needle in 'proofs/s' 'inflation' 'waited' 'page faults' 'synthesize' 'msm_g2' 'a stage on a lane' \
                    'CPU .* s per proof'; do
        grep -q "$needle" "$out/r/stdout" || fail "report: no '$needle' in the summary"
      done
      # Lane rows on top of the waterfall: the idle background, and a bar per stage that ran on a lane.
      idle=$(grep -c 'class="idle"' "$out/w.svg" || true)
      lane_bars=$(grep -c 'class="lane"' "$out/w.svg" || true)
      if [ "$idle" -ge 1 ] && [ "$lane_bars" -ge 4 ]; then pass "report: waterfall lane rows ($idle lanes, $lane_bars bars)"
      else fail "report: waterfall has $idle lane rows and $lane_bars lane bars"; fi
      bars=$(grep -c 'class="stage"' "$out/w.svg" || true)
      if head -c 200 "$out/w.svg" | grep -q '<svg' && [ "$bars" -eq $((4 * 10)) ]; then
        pass "report: summary printed; waterfall SVG with $bars stage bars"
      else
        fail "report: SVG missing or $bars stage bars (want 40)"; head -c 600 "$out/w.svg"; echo
      fi
      expect_usage_error report_bad_trace "not a JSON trace" report "$out/stdout" ;;
    zero_proofs) expect_usage_error "$c" --proofs "${bench[@]}" --proofs 0 --jobs 3 ;;
    zero_jobs) expect_usage_error "$c" --jobs "${bench[@]}" --proofs 6 --jobs 0 ;;
    *) fail "unknown case '$c'" ;;
  esac
done
finish
