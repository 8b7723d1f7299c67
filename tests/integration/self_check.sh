#!/usr/bin/env bash
# Integration: `[host] verify_proofs = true`. A proof from a sound key passes its self-check; a key
# with one A point replaced by another point of the curve (the zkey reader cannot tell: it is on the
# curve and in the subgroup) makes a wrong proof, which without the option is written with exit 0
# (and snarkjs rejects it), and with the option fails its job: exit 1, an error that names the
# self-check and the stage timings, and no proof or public file written.
#   usage: self_check.sh <path to pacer> <source dir> [name:curve ...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_config; need_node; need_snarkjs

# swap_a_point IN OUT: A[i] := A[j] for the first wires i != j with different points (section 5).
swap_a_point() {
  PYTHONPATH="$SRC/tests/integration" python3 - "$@" <<'PY'
import struct, sys
from binfile_sections import sections
src, dst = sys.argv[1:3]
data = bytearray(open(src, "rb").read())
sec = sections(data, b"zkey")
h = sec[2][0]
n8q = struct.unpack_from("<I", data, h)[0]
n8r = struct.unpack_from("<I", data, h + 4 + n8q)[0]
n_vars = struct.unpack_from("<I", data, h + 8 + n8q + n8r)[0]
a, g1 = sec[5][0], 2 * n8q
points = [bytes(data[a + i * g1:a + (i + 1) * g1]) for i in range(n_vars)]
zero = bytes(g1)
for i in range(n_vars):          # wire 0 is the constant 1: never zero in the witness
    for j in range(n_vars):
        if i != j and points[j] != zero and points[i] != points[j]:
            data[a + i * g1:a + (i + 1) * g1] = points[j]
            open(dst, "wb").write(data)
            print(f"A[{i}] := A[{j}]")
            sys.exit(0)
sys.exit("no two different A points")
PY
}

mapfile -t todo < <(cases_or mul3:bn128 mul3:bls12381)
for c in "${todo[@]}"; do
  fx=$(fixture "$c"); out="$WORK/$c"; mkdir -p "$out"
  sed 's/^verify_proofs = false/verify_proofs = true/' "$CONFIG" >"$out/verify.toml"
  grep -q '^verify_proofs = true' "$out/verify.toml" || { fail "$c: could not turn verify_proofs on"; continue; }

  rc=0
  run_pacer "$out/good" prove --config "$out/verify.toml" --zkey "$fx/circuit.zkey" --witness "$fx/witness.wtns" \
    --proof "$out/good.proof.json" --public "$out/good.public.json" || rc=$?
  if [ $rc -eq 0 ] && [ -s "$out/good.proof.json" ]; then pass "$c: a sound proof passes its self-check"
  else fail "$c: pacer prove with verify_proofs exited $rc"; show_output "$out/good"; fi

  swap_a_point "$fx/circuit.zkey" "$out/wrong.zkey" >/dev/null || { fail "$c: could not damage the key"; continue; }
  rc=0
  run_pacer "$out/plain" prove --config "$CONFIG" --zkey "$out/wrong.zkey" --witness "$fx/witness.wtns" \
    --proof "$out/plain.proof.json" --public "$out/plain.public.json" || rc=$?
  src=0
  snarkjs_verify "$fx/verification_key.json" "$out/plain.public.json" "$out/plain.proof.json" "$out/plain.log" || src=$?
  if [ $rc -eq 0 ] && [ $src -ne 0 ]; then pass "$c: without verify_proofs the damaged key's wrong proof is written (snarkjs rejects it)"
  else fail "$c: without verify_proofs: pacer exit $rc, snarkjs exit $src (expected 0 and a rejection)"; fi

  rc=0
  run_pacer "$out/checked" prove --config "$out/verify.toml" --zkey "$out/wrong.zkey" --witness "$fx/witness.wtns" \
    --proof "$out/checked.proof.json" --public "$out/checked.public.json" || rc=$?
  if [ $rc -eq 1 ] && grep -q 'failed its self-check' "$out/checked/stderr" && grep -q 'stages: .*msm_g1' "$out/checked/stderr" \
     && [ ! -e "$out/checked.proof.json" ] && [ ! -e "$out/checked.public.json" ]; then
    pass "$c: with verify_proofs the wrong proof fails its job (exit 1) and nothing is written"
  else fail "$c: with verify_proofs: exit $rc (expected 1, a self-check error with stage timings, no output)"
       show_output "$out/checked"; ls "$out"; fi
done
finish
