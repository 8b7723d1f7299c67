#!/usr/bin/env bash
# Regenerates the shipped example fixtures in examples/circuits/<name>/<curve>/ with the pinned
# snarkjs 0.7.6 + circom2 0.2.23 of tests/oracle (package-lock.json). Slow (powers of tau): run
# by hand when a circuit changes, never in CI. docs/formats.md §9.
#   usage: scripts/make_examples.sh [name:curve:power ...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
oracle="$root/tests/oracle"
work="$oracle/work"                  # circom2 (WASI) only sees the cwd tree: build inside tests/oracle
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(mul3:bn128:8 mul3:bls12381:8 chain:bn128:8 chain:bls12381:8
                                  nopub:bn128:8 poseidon3:bn128:10 poseidon3:bls12381:10)
cd "$oracle"
[ -d node_modules ] || npm ci --no-audit --no-fund
snarkjs() { npx --no-install snarkjs "$@"; }
step() { local t0=$SECONDS log="$work/last.log"; "$@" >"$log" 2>&1 || { cat "$log"; echo "FAILED: $*" >&2; exit 1; }
         echo "  $((SECONDS - t0))s  $*"; }
for spec in "${specs[@]}"; do
  IFS=: read -r name curve power <<<"$spec"
  src="$root/examples/circuits/$name"; out="$src/$curve"; tmp="work/$name-$curve"
  ptau="work/pot-$curve-$power.ptau"
  echo "== $name on $curve (ptau 2^$power)"
  mkdir -p "$tmp" "$out"
  cp "$src/circuit.circom" "work/$name.circom"
  step npx --no-install circom2 "work/$name.circom" --r1cs --wasm --sym --prime "$curve" -l node_modules -o "$tmp"
  if [ ! -f "$ptau" ]; then
    step snarkjs powersoftau new "$curve" "$power" "work/pot-$curve-$power-0.ptau"
    step snarkjs powersoftau contribute "work/pot-$curve-$power-0.ptau" "work/pot-$curve-$power-1.ptau" --name=first -e="pacer fixture entropy 1"
    step snarkjs powersoftau prepare phase2 "work/pot-$curve-$power-1.ptau" "$ptau"
  fi
  step snarkjs groth16 setup "$tmp/$name.r1cs" "$ptau" "$tmp/c0.zkey"
  step snarkjs zkey contribute "$tmp/c0.zkey" "$out/circuit.zkey" --name=second -e="pacer fixture entropy 2"
  step snarkjs zkey verify "$tmp/$name.r1cs" "$ptau" "$out/circuit.zkey"
  step snarkjs zkey export verificationkey "$out/circuit.zkey" "$out/verification_key.json"
  step snarkjs wtns calculate "$tmp/${name}_js/$name.wasm" "$src/input.json" "$out/witness.wtns"
  step snarkjs wtns check "$tmp/$name.r1cs" "$out/witness.wtns"
  cp "$tmp/$name.r1cs" "$out/circuit.r1cs"
  # The witness generator and its symbols, for `pacer witness` / `pacer prove --wasm` (docs/fullprove.md).
  cp "$tmp/${name}_js/$name.wasm" "$out/circuit.wasm"
  cp "$tmp/$name.sym" "$out/circuit.sym"
  step snarkjs groth16 prove "$out/circuit.zkey" "$out/witness.wtns" "$out/snarkjs_proof.json" "$out/public.json"
  step snarkjs groth16 verify "$out/verification_key.json" "$out/public.json" "$out/snarkjs_proof.json"
done
echo "fixtures written under examples/circuits/"
