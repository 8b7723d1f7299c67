#!/usr/bin/env bash
# Checks here, with snarkjs, the proofs a GPU run brought back (scripts/device/cuda_check.sh):
# every <name>.proof.json with its <name>.public.json against <name>.vkey.json, from
# proofs.tar.gz (cuda_check.sh) or results.tgz (pacing.sh).
#   scripts/device/verify_outputs.sh path/to/proofs.tar.gz
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
snarkjs="$root/tests/oracle/node_modules/.bin/snarkjs"
[ -x "$snarkjs" ] || { echo "snarkjs missing: run scripts/install_deps.sh" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xzf "$1"
failed=0
for proof in "$work"/proofs/*.proof.json; do
  name=$(basename "$proof" .proof.json)
  if "$snarkjs" groth16 verify "$work/proofs/$name.vkey.json" "$work/proofs/$name.public.json" "$proof" >/dev/null 2>&1; then
    echo "ok: $name"
  else
    echo "FAIL: $name: snarkjs rejects the proof" >&2
    failed=1
  fi
done
exit $failed
