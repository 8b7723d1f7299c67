#!/usr/bin/env bash
# Integration: faults injected through the test-only plugins of tests/plugins (never installed).
# `pacer prove` proves three witnesses with a fault set for one proof: the run must exit 1 with an
# error that names the injected fault, the failed proof is not written, and the other two are
# written and verify (`pacer verify`). A wrong MSM
# result is caught by `[host] verify_proofs`; without it the wrong proof would go out (checked).
# A hugetlb pool found empty during the run fails one proof with on_empty = "error"; with "thp" or
# "plain" every proof is written and valid, and the fallback is logged.
# A backend device lost under a proof (two pretend devices) takes its lanes out and the proof runs
# again on the other: every proof written and valid, and `pacer bench` counts the retry and
# `pacer report` shows both devices; with one device lost and none left, the proofs after it fail
# with "no backend lane left".
#   usage: fault_injection.sh <path to pacer> <source dir> [case ...]
#   cases: allocator backend_throw_compute_h backend_throw_msm_g1 backend_throw_msm_g2 wrong_msm_g1 wrong_msm_g2
#          wrong_msm_unchecked scheduler hugetlb_empty hugetlb_fallback_thp hugetlb_fallback_plain
#          device_lost every_device_lost
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_config
TEST_PLUGINS="$(dirname "$(dirname "$PACER")")/lib/pacer-test-plugins"
[ -d "$TEST_PLUGINS" ] || { echo "FAIL: no test plugins at $TEST_PLUGINS (build the pacer_test_fault_* targets)" >&2; exit 1; }
FX=$(fixture mul3:bn128)
# Only the fault plugins: the folder also holds broken plugins made for the loader's tests (one
# registers a second "plain" whose factory aborts).
PLUGINS="$WORK/plugins"
mkdir -p "$PLUGINS"
cp "$TEST_PLUGINS"/libpacer_test_fault_*.so "$PLUGINS"/

# config OUT SECTION PLUGIN PARAMS [verify_proofs]: the default config with one plugin swapped.
config() {
  local out=$1 section=$2 plugin=$3 params=$4 verify=${5:-false}
  python3 - "$CONFIG" "$out" "$section" "$plugin" "$params" "$verify" "$PLUGINS" <<'PY'
import re, sys
src, out, section, plugin, params, verify, plugins = sys.argv[1:8]
text = open(src).read()
text = text.replace("plugin_dirs = []", f'plugin_dirs = ["{plugins}"]')
text = text.replace("verify_proofs = false", f"verify_proofs = {verify}")
text = text.replace("threads = 0", "threads = 2")  # the pretend devices need two cpu lanes
text = re.sub(rf'(\[{section}\]\n(?:#.*\n)*)plugin = "[a-z_]+"\n((?:#.*\n)*)params = \{{\}}',
              lambda m: f'{m.group(1)}plugin = "{plugin}"\n{m.group(2)}params = {{ {params} }}', text)
open(out, "w").write(text)
PY
}

# second_fails CASE CONFIG NEEDLE [FIXTURE]: three proofs go to the engine together; the fault hits
# one of them (the N-th call of a stage: which proof makes it depends on the engine's order). That
# proof fails, naming NEEDLE, and is not written; the other two are written and verify; exit 1.
second_fails() {
  local c=$1 cfg=$2 needle=$3 FX=${4:-$FX} out="$WORK/$1" rc=0 written=0 valid=0 i
  run_pacer "$out" prove --config "$cfg" --zkey "$FX/circuit.zkey" --witness "$FX/witness.wtns" \
    --witness "$FX/witness.wtns" --witness "$FX/witness.wtns" --proof "$out/proof.json" --public "$out/public.json" || rc=$?
  for i in 0 1 2; do
    [ -e "$out/proof-$i.json" ] || continue
    written=$((written + 1))
    run_pacer "$out/verify-$i" verify --vkey "$FX/verification_key.json" --proof "$out/proof-$i.json" \
      --public "$out/public-$i.json" && valid=$((valid + 1))
  done
  if [ $rc -eq 1 ] && grep -q "$needle" "$out/stderr" && [ $written -eq 2 ] && [ $valid -eq 2 ]; then
    pass "$c: one proof failed ($(grep -o "$needle.*" "$out/stderr" | head -1 | cut -c1-120)), the other two written and valid"
  else
    fail "$c: exit $rc (want 1), error naming '$needle', $written proofs written (want 2), $valid valid (want 2)"
    show_output "$out"; ls "$out"
  fi
}

# all_written CASE CONFIG NEEDLE: three proofs, every one written and valid, exit 0, NEEDLE logged.
all_written() {
  local c=$1 cfg=$2 needle=$3 out="$WORK/$1" rc=0 valid=0 i
  run_pacer "$out" prove --config "$cfg" --zkey "$FX/circuit.zkey" --witness "$FX/witness.wtns" \
    --witness "$FX/witness.wtns" --witness "$FX/witness.wtns" --proof "$out/proof.json" --public "$out/public.json" || rc=$?
  for i in 0 1 2; do
    run_pacer "$out/verify-$i" verify --vkey "$FX/verification_key.json" --proof "$out/proof-$i.json" \
      --public "$out/public-$i.json" && valid=$((valid + 1))
  done
  if [ $rc -eq 0 ] && [ $valid -eq 3 ] && grep -q "$needle" "$out/stderr"; then
    pass "$c: all three proofs written and valid; logged: $(grep -o "$needle.*" "$out/stderr" | head -1 | cut -c1-100)"
  else
    fail "$c: exit $rc (want 0), $valid valid proofs (want 3), a log line naming '$needle'"
    show_output "$out"
  fi
}

# The hugetlb cases need a pool of 1 GiB pages with nothing free (nearly every machine).
free_1g=$(cat /sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages 2>/dev/null || echo 0)

mapfile -t todo < <(cases_or allocator backend_throw_compute_h backend_throw_msm_g1 backend_throw_msm_g2 wrong_msm_g1 \
                             wrong_msm_g2 wrong_msm_unchecked scheduler hugetlb_empty hugetlb_fallback_thp hugetlb_fallback_plain \
                             device_lost every_device_lost)
for c in "${todo[@]}"; do
  mkdir -p "$WORK/$c"; cfg="$WORK/$c/config.toml"
  case "$c" in
    allocator)  # a proof allocates three a/b/c buffers: the 4th is another proof's first
      config "$cfg" allocator fail_nth 'fail_at = 4, usage = "abc"'
      second_fails "$c" "$cfg" "injected fault: allocation 4" ;;
    backend_throw_compute_h)  # while the proof's G2 MSM runs on the pool (it crashed the host once)
      config "$cfg" backend faulty 'fault = "throw", stage = "compute_h", call = 2'
      # poseidon3/bls12381: its G2 MSM is still running when compute_h throws (mul3's is done)
      second_fails "$c" "$cfg" "injected fault in compute_h" "$(fixture poseidon3:bls12381)" ;;
    backend_throw_msm_g1)
      config "$cfg" backend faulty 'fault = "throw", stage = "msm_g1", call = 2'
      second_fails "$c" "$cfg" "injected fault in msm_g1" ;;
    backend_throw_msm_g2)
      config "$cfg" backend faulty 'fault = "throw", stage = "msm_g2", call = 2'
      second_fails "$c" "$cfg" "injected fault in msm_g2" ;;
    wrong_msm_g1)
      config "$cfg" backend faulty 'fault = "wrong_msm", stage = "msm_g1", call = 2' true
      second_fails "$c" "$cfg" "failed its self-check" ;;
    wrong_msm_g2)
      config "$cfg" backend faulty 'fault = "wrong_msm", stage = "msm_g2", call = 2' true
      second_fails "$c" "$cfg" "failed its self-check" ;;
    wrong_msm_unchecked)  # the hazard verify_proofs closes: exit 0 and a wrong proof-1.json
      config "$cfg" backend faulty 'fault = "wrong_msm", stage = "msm_g1", call = 2'
      out="$WORK/$c"; rc=0; vrc=0
      run_pacer "$out" prove --config "$cfg" --zkey "$FX/circuit.zkey" --witness "$FX/witness.wtns" \
        --witness "$FX/witness.wtns" --proof "$out/proof.json" --public "$out/public.json" || rc=$?
      run_pacer "$out/verify" verify --vkey "$FX/verification_key.json" --proof "$out/proof-1.json" \
        --public "$out/public-1.json" || vrc=$?
      if [ $rc -eq 0 ] && [ $vrc -eq 1 ]; then pass "$c: without verify_proofs the wrong proof is written (pacer verify rejects it)"
      else fail "$c: prove exit $rc (want 0), verify of proof-1 exit $vrc (want 1)"; show_output "$out"; fi ;;
    device_lost)  # the 2nd proof's device goes; it runs again on the other device
      config "$cfg" backend faulty 'fault = "device_lost", stage = "msm_g1", call = 2, devices = 2'
      all_written "$c" "$cfg" "running proof 2 again on another device"
      out="$WORK/$c/bench"; rc=0
      run_pacer "$out" bench --config "$cfg" --zkey "$FX/circuit.zkey" --witness "$FX/witness.wtns" --proofs 4 \
        --jobs 2 --warmup 0 --json "$out/s.json" --trace "$out/t.json" || rc=$?
      run_pacer "$out/r" report "$out/t.json" --svg "$out/w.svg" || rc=$((rc + 10))
      retried=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["retried_proofs"])' "$out/s.json" 2>/dev/null)
      if [ $rc -eq 0 ] && [ "$retried" = 1 ] && grep -q "retried" "$out/stdout" && \
         grep -q "a stage on the device: device 0 .*, device 1 " "$out/r/stdout" && grep -q ">device 1</text>" "$out/w.svg"; then
        pass "$c: bench: 4 proofs, $retried retried; report: $(grep -o 'a stage on the device.*' "$out/r/stdout")"
      else
        fail "$c: bench/report exit $rc (want 0), retried_proofs $retried (want 1), a retried line, a devices line and device rows"
        show_output "$out"; show_output "$out/r"
      fi ;;
    every_device_lost)  # one device, lost under the 2nd proof: it fails, and the 3rd finds no lane. A small
      # key's A, B1 and C MSMs run side by side, so the proof may report its sibling call's "device 0 was
      # lost earlier" before the injected loss itself: either names the loss.
      config "$cfg" backend faulty 'fault = "device_lost", stage = "msm_g1", call = 2, devices = 1'
      out="$WORK/$c"; rc=0; valid=0
      run_pacer "$out" prove --config "$cfg" --zkey "$FX/circuit.zkey" --witness "$FX/witness.wtns" \
        --witness "$FX/witness.wtns" --witness "$FX/witness.wtns" --proof "$out/proof.json" --public "$out/public.json" || rc=$?
      run_pacer "$out/verify" verify --vkey "$FX/verification_key.json" --proof "$out/proof-0.json" \
        --public "$out/public-0.json" && valid=1
      if [ $rc -eq 1 ] && [ $valid -eq 1 ] && [ ! -e "$out/proof-1.json" ] && [ ! -e "$out/proof-2.json" ] && \
         grep -Eq "injected loss of device 0|device 0 was lost" "$out/stderr" && grep -q "no backend lane left" "$out/stderr"; then
        pass "$c: proof 0 written and valid, proofs 1 and 2 failed: $(grep -o 'no backend lane left[^(]*' "$out/stderr" | head -1)"
      else
        fail "$c: exit $rc (want 1), proof-0 valid $valid (want 1), proofs 1 and 2 not written, errors naming the loss and 'no backend lane left'"
        show_output "$out"; ls "$out"
      fi ;;
    scheduler)
      config "$cfg" scheduler throwing 'stage = "assemble", at = 2'
      second_fails "$c" "$cfg" "injected fault at admission 2 of assemble" ;;
    hugetlb_*)
      if [ "$free_1g" != 0 ]; then
        pass "$c: skipped, this machine has $free_1g free 1 GiB hugetlb pages, so the pool is not empty"; continue
      fi
      policy=${c#hugetlb_fallback_}; [ "$c" = hugetlb_empty ] && policy=error
      # the 4th a/b/c buffer is another proof's first (three per proof)
      config "$cfg" allocator hugetlb_drained "fail_at = 4, usage = \"abc\", page = \"1G\", on_empty = \"$policy\""
      if [ "$policy" = error ]; then second_fails "$c" "$cfg" "the 1 GiB pool cannot back a block"
      else all_written "$c" "$cfg" "on_empty = \"$policy\": $policy pages instead"; fi ;;
    *) fail "unknown case '$c'" ;;
  esac
  grep -q "plugin = \"\(fail_nth\|faulty\|throwing\|hugetlb_drained\)\"" "$cfg" || fail "$c: the config does not select the test plugin"
done
finish
