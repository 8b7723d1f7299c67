#!/usr/bin/env bash
# Integration (a): prove every shipped circuit/curve with the default config; snarkjs must accept
# the proof ("OK!", exit 0) and pacer's public.json must equal the shipped public.json.
#   usage: prove_verify.sh <path to pacer> <source dir> [name:curve ...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_config; need_node; need_snarkjs

mapfile -t todo < <(cases_or "${ALL_CIRCUITS[@]}")
for c in "${todo[@]}"; do
  fx=$(fixture "$c"); out="$WORK/$c"
  need_file "$fx/circuit.zkey"
  rc=0
  run_pacer "$out" prove --config "$CONFIG" --zkey "$fx/circuit.zkey" --witness "$fx/witness.wtns" \
    --proof "$out/proof.json" --public "$out/public.json" || rc=$?
  if [ $rc -ne 0 ]; then fail "$c: pacer prove exited $rc"; show_output "$out"; continue; fi
  for f in proof.json public.json; do [ -s "$out/$f" ] || fail "$c: pacer wrote no $f"; done
  [ -s "$out/proof.json" ] && [ -s "$out/public.json" ] || { show_output "$out"; continue; }

  rc=0
  snarkjs_verify "$fx/verification_key.json" "$out/public.json" "$out/proof.json" "$out/verify.log" || rc=$?
  if [ $rc -eq 0 ] && grep -q 'OK!' "$out/verify.log"; then
    pass "$c: snarkjs groth16 verify accepted pacer's proof"
  else
    fail "$c: snarkjs groth16 verify rejected pacer's proof (exit $rc)"
    cat "$out/verify.log"; echo "--- proof.json"; cat "$out/proof.json"; echo
  fi

  if json_equal "$out/public.json" "$fx/public.json"; then
    pass "$c: public.json equals the shipped one"
    cmp -s "$out/public.json" "$fx/public.json" || echo "   (same values; formatting differs from snarkjs's file)"
  else
    fail "$c: public.json differs from the shipped $fx/public.json"
    echo "--- pacer";   cat "$out/public.json"; echo
    echo "--- shipped"; cat "$fx/public.json"; echo
  fi
done
finish
