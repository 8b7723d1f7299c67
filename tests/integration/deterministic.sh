#!/usr/bin/env bash
# Integration (c): with r = s = 0 a proof is deterministic; the engine (through the test tool
# pacer_test_prove_zero_blinding, beside pacer in the build tree: `pacer prove` has no way to skip
# the blinding) must write exactly the bytes that the Python oracle (tests/oracle/reference_prover.py,
# PROVE_R=0 PROVE_S=0) writes: proof.json byte-identical, public.json byte-identical.
# One known formatting exception: for a circuit with no public signals the oracle (Python
# json.dump) writes "[]" while snarkjs writes "[\n]"; either is accepted there.
#   usage: deterministic.sh <path to pacer> <source dir> [name:curve ...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_config
need_file "$ORACLE/reference_prover.py" "the Python oracle"
ZERO_BLINDING="$(dirname "$PACER")/pacer_test_prove_zero_blinding"
need_file "$ZERO_BLINDING" "the test tool (build the tests)"

mapfile -t todo < <(cases_or "${ALL_CIRCUITS[@]}")
for c in "${todo[@]}"; do
  fx=$(fixture "$c"); out="$WORK/$c"; mkdir -p "$out/ref"
  rc=0
  PROVE_R=0 PROVE_S=0 python3 "$ORACLE/reference_prover.py" "$fx/circuit.zkey" "$fx/witness.wtns" \
    "$out/ref/proof.json" "$out/ref/public.json" >"$out/ref/log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then fail "$c: reference prover exited $rc"; cat "$out/ref/log"; continue; fi
  rc=0
  "$ZERO_BLINDING" "$CONFIG" "$fx/circuit.zkey" "$fx/witness.wtns" "$out/proof.json" "$out/public.json" \
    >"$out/stdout" 2>"$out/stderr" || rc=$?
  if [ $rc -ne 0 ]; then fail "$c: pacer_test_prove_zero_blinding exited $rc"; show_output "$out"; continue; fi

  if cmp "$out/proof.json" "$out/ref/proof.json"; then
    pass "$c: proof.json byte-identical to the reference prover's"
  else
    fail "$c: proof.json differs from the reference prover's"
    diff "$out/proof.json" "$out/ref/proof.json" || true
  fi
  if cmp -s "$out/public.json" "$out/ref/public.json"; then
    pass "$c: public.json byte-identical to the reference prover's"
  elif [ "$(cat "$out/ref/public.json")" = "[]" ] && [ "$(cat "$out/public.json")" = $'[\n]' ]; then
    pass "$c: public.json is snarkjs's empty array \"[\\n]\" (the oracle writes \"[]\")"
  else
    fail "$c: public.json differs from the reference prover's"
    cmp "$out/public.json" "$out/ref/public.json" || true
    diff "$out/public.json" "$out/ref/public.json" || true
  fi
done
finish
