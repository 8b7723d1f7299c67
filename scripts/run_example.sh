#!/usr/bin/env bash
# Sets up, builds the host and its plugins (not the tests), proves the shipped example (poseidon3
# on bn128) with the default config and verifies the proof with snarkjs.
#   BUILD_DIR as for scripts/build.sh (default: build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}

scripts/install_deps.sh
# Only the host and its plugins: the test suite is scripts/test.sh's business.
BUILD_TARGET=pacer_host_and_plugins scripts/build.sh

circuit=examples/circuits/poseidon3/bn128
out="$build_dir/example-out"
mkdir -p "$out"
echo "== pacer prove ($circuit, examples/configs/default.toml)"
"$build_dir/bin/pacer" prove --config examples/configs/default.toml \
  --zkey "$circuit/circuit.zkey" --witness "$circuit/witness.wtns" \
  --proof "$out/proof.json" --public "$out/public.json"
echo "proof:  $out/proof.json"
echo "public: $out/public.json = $(tr -d ' \n' <"$out/public.json")"

echo "== snarkjs groth16 verify"
[[ "$out" = /* ]] || out="$root/$out"
if (cd tests/oracle && npx --no-install snarkjs groth16 verify "$root/$circuit/verification_key.json" \
      "$out/public.json" "$out/proof.json"); then
  echo "RESULT: OK, snarkjs accepts the proof"
else
  echo "RESULT: FAILED, snarkjs rejected the proof" >&2
  exit 1
fi
