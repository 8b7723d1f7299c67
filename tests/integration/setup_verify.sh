#!/usr/bin/env bash
# Integration: `pacer gen-circuit` -> `pacer setup --insecure` -> `pacer prove` -> snarkjs.
# snarkjs must accept our files (r1cs info, wtns check, zkey export json), export from our zkey the
# same verification key that pacer wrote (vk_alphabeta_12 included), verify the
# proof with both keys and reject it against a tampered public input. Case `refuse`: setup without --insecure exits 2 and writes nothing.
#   usage: setup_verify.sh <path to pacer> <source dir> [bn128|bls12381|refuse ...]
# PACER_IT_SETUP_CONSTRAINTS overrides the circuit size (default 1000).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_config; need_node; need_snarkjs
CONSTRAINTS=${PACER_IT_SETUP_CONSTRAINTS:-1000}

# snarkjs_ok NAME LOG GREP args...: runs snarkjs, passes when it exits 0 and LOG matches GREP
# (any output when GREP is empty).
snarkjs_ok() {
  local name=$1 log=$2 pattern=$3; shift 3
  local rc=0
  "$SNARKJS" "$@" >"$log" 2>&1 || rc=$?
  if [ $rc -eq 0 ] && { [ -z "$pattern" ] || grep -q -- "$pattern" "$log"; }; then
    pass "$name"
  else
    fail "$name (snarkjs $1 $2 exited $rc)"; cat "$log"
  fi
}

refuse() {
  local out="$WORK/refuse" rc=0
  run_pacer "$out" setup --r1cs "$(fixture mul3:bn128)/circuit.r1cs" --zkey "$out/k.zkey" --vkey "$out/vk.json" || rc=$?
  if [ $rc -eq 2 ] && grep -q -- "pass --insecure to confirm" "$out/stderr" && [ "$(wc -l <"$out/stderr")" -eq 1 ]; then
    pass "refuse: setup without --insecure exits 2 with a one-line reason"
  else
    fail "refuse: setup without --insecure exited $rc"; show_output "$out"
  fi
  if [ -e "$out/k.zkey" ] || [ -e "$out/vk.json" ]; then fail "refuse: files were written anyway"; fi
}

setup_and_verify() {
  local curve=$1 out="$WORK/$1" rc=0
  mkdir -p "$out"
  run_pacer "$out/gen" gen-circuit --config "$CONFIG" --constraints "$CONSTRAINTS" --curve "$curve" --public 2 \
    --r1cs "$out/c.r1cs" --witness "$out/w.wtns" || rc=$?
  if [ $rc -ne 0 ]; then fail "$curve: pacer gen-circuit exited $rc"; show_output "$out/gen"; return; fi

  snarkjs_ok "$curve: snarkjs r1cs info reads our r1cs" "$out/info.log" "# of Constraints: $CONSTRAINTS" \
    r1cs info "$out/c.r1cs"
  snarkjs_ok "$curve: snarkjs wtns check: our witness satisfies our r1cs" "$out/check.log" "WITNESS IS CORRECT" \
    wtns check "$out/c.r1cs" "$out/w.wtns"

  run_pacer "$out/setup" setup --insecure --config "$CONFIG" --r1cs "$out/c.r1cs" --zkey "$out/k.zkey" \
    --vkey "$out/vk.json" || rc=$?
  if [ $rc -ne 0 ]; then fail "$curve: pacer setup --insecure exited $rc"; show_output "$out/setup"; return; fi
  pass "$curve: pacer setup --insecure ($(grep -o 'in [0-9.]* [a-z]* total' "$out/setup/stderr" || true))"

  snarkjs_ok "$curve: snarkjs zkey export json reads our zkey" "$out/export_json.log" "" \
    zkey export json "$out/k.zkey" "$out/k.json"
  snarkjs_ok "$curve: snarkjs zkey export verificationkey reads our zkey" "$out/export_vk.log" "" \
    zkey export verificationkey "$out/k.zkey" "$out/vk_snarkjs.json"
  if python3 - "$out/vk.json" "$out/vk_snarkjs.json" <<'PY'
import json, sys
ours, theirs = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if ours == theirs else 1)
PY
  then pass "$curve: pacer's vkey equals snarkjs's export (vk_alphabeta_12 included)"
  else fail "$curve: pacer's vkey differs from snarkjs's export"; diff <(python3 -m json.tool "$out/vk.json") \
         <(python3 -m json.tool "$out/vk_snarkjs.json") | head -20
  fi

  run_pacer "$out/prove" prove --config "$CONFIG" --zkey "$out/k.zkey" --witness "$out/w.wtns" \
    --proof "$out/proof.json" --public "$out/public.json" || rc=$?
  if [ $rc -ne 0 ]; then fail "$curve: pacer prove exited $rc"; show_output "$out/prove"; return; fi
  for vk in vk.json vk_snarkjs.json; do
    rc=0
    snarkjs_verify "$out/$vk" "$out/public.json" "$out/proof.json" "$out/verify_$vk.log" || rc=$?
    if [ $rc -eq 0 ] && grep -q 'OK!' "$out/verify_$vk.log"; then
      pass "$curve: snarkjs groth16 verify accepted the proof with $vk"
    else
      fail "$curve: snarkjs groth16 verify rejected the proof with $vk (exit $rc)"; cat "$out/verify_$vk.log"
    fi
  done
  # Negative control: the key must not accept anything (public input + 1).
  python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); p[0] = str(int(p[0]) + 1); json.dump(p, open(sys.argv[2], "w"))' \
    "$out/public.json" "$out/tampered.json"
  rc=0
  snarkjs_verify "$out/vk.json" "$out/tampered.json" "$out/proof.json" "$out/verify_tampered.log" || rc=$?
  if [ $rc -eq 1 ]; then pass "$curve: snarkjs rejects the proof against a tampered public input"
  else fail "$curve: snarkjs verify of a tampered public input exited $rc (expected 1)"; cat "$out/verify_tampered.log"; fi
}

mapfile -t todo < <(cases_or bn128 bls12381 refuse)
for c in "${todo[@]}"; do
  case "$c" in
    refuse) refuse ;;
    bn128|bls12381) setup_and_verify "$c" ;;
    *) fail "unknown case '$c' (use bn128, bls12381 or refuse)" ;;
  esac
done
finish
