#!/usr/bin/env bash
# Integration: `pacer verify` agrees with `snarkjs groth16 verify` on a shipped fixture. Both accept
# snarkjs's own proof and a proof from `pacer prove`; both reject each corruption of corrupt_proof.py
# (a changed coordinate, swapped Fq2 parts, a wrong public input, a point off the curve or outside
# the subgroup, too few or too many public signals), where pacer must exit 1 with one line
# "pacer: invalid proof: ...". Documents of the wrong shape exit 2.
#   usage: verify_agreement.sh <path to pacer> <source dir> [name:curve ...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_config; need_node; need_snarkjs
CORRUPT="$SRC/tests/integration/corrupt_proof.py"

# agree CASE LABEL EXPECT(valid|invalid) VKEY PROOF PUBLIC
agree() {
  local c=$1 label=$2 expect=$3 vk=$4 proof=$5 pub=$6 out="$WORK/$1/$2" rc=0 src=0
  run_pacer "$out" verify --vkey "$vk" --proof "$proof" --public "$pub" || rc=$?
  snarkjs_verify "$vk" "$pub" "$proof" "$out/snarkjs.log" || src=$?
  if [ "$expect" = valid ]; then
    if [ $rc -eq 0 ] && [ $src -eq 0 ]; then pass "$c: $label: both accept"
    else fail "$c: $label: pacer exit $rc, snarkjs exit $src (both should accept)"; show_output "$out"; cat "$out/snarkjs.log"; fi
  else
    local lines; lines=$(wc -l <"$out/stderr")
    if [ $rc -eq 1 ] && [ $src -ne 0 ] && [ "$lines" -eq 1 ] && grep -q '^pacer: invalid proof: ' "$out/stderr"; then
      pass "$c: $label: both reject ($(cat "$out/stderr"))"
    else fail "$c: $label: pacer exit $rc ($lines lines), snarkjs exit $src (both should reject, pacer with exit 1)"
         show_output "$out"; cat "$out/snarkjs.log"; fi
  fi
}

# bad_shape CASE LABEL VKEY PROOF PUBLIC: pacer exits 2 with one line.
bad_shape() {
  local c=$1 label=$2 out="$WORK/$1/$2" rc=0
  run_pacer "$out" verify --vkey "$3" --proof "$4" --public "$5" || rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$out/stderr")" -eq 1 ]; then pass "$c: $label: exit 2 ($(cat "$out/stderr"))"
  else fail "$c: $label: pacer exit $rc, expected 2 with one line"; show_output "$out"; fi
}

mapfile -t todo < <(cases_or "${ALL_CIRCUITS[@]}")
for c in "${todo[@]}"; do
  fx=$(fixture "$c"); curve=${c##*:}; out="$WORK/$c"; mkdir -p "$out"
  vk="$fx/verification_key.json"
  agree "$c" "snarkjs's proof" valid "$vk" "$fx/snarkjs_proof.json" "$fx/public.json"

  rc=0
  run_pacer "$out/prove" prove --config "$CONFIG" --zkey "$fx/circuit.zkey" --witness "$fx/witness.wtns" \
    --proof "$out/proof.json" --public "$out/public.json" || rc=$?
  if [ $rc -ne 0 ]; then fail "$c: pacer prove exited $rc"; show_output "$out/prove"
  else agree "$c" "pacer's proof" valid "$vk" "$out/proof.json" "$out/public.json"; fi

  for kind in coordinate swap_fq2 public off_curve off_subgroup too_few too_many; do
    rc=0
    python3 "$CORRUPT" "$kind" "$curve" "$fx/snarkjs_proof.json" "$fx/public.json" \
      "$out/$kind.proof.json" "$out/$kind.public.json" || rc=$?
    if [ $rc -eq 3 ]; then echo "-- $c: $kind does not apply (no public signals)"; continue; fi
    if [ $rc -ne 0 ]; then fail "$c: corrupt_proof.py $kind exited $rc"; continue; fi
    agree "$c" "$kind" invalid "$vk" "$out/$kind.proof.json" "$out/$kind.public.json"
  done

  echo '{"protocol": "groth16",' >"$out/truncated.json"
  bad_shape "$c" "a vkey that is not JSON" "$out/truncated.json" "$fx/snarkjs_proof.json" "$fx/public.json"
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); del p["pi_b"]; json.dump(p, open(sys.argv[2], "w"))' \
    "$fx/snarkjs_proof.json" "$out/no_pi_b.json"
  bad_shape "$c" "a proof without pi_b" "$vk" "$out/no_pi_b.json" "$fx/public.json"
  echo '{"0": "1"}' >"$out/object.json"
  bad_shape "$c" "public signals that are not an array" "$vk" "$fx/snarkjs_proof.json" "$out/object.json"
done
finish
