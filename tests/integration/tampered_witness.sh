#!/usr/bin/env bash
# Integration (b): change one private witness value (the last wire: flip a low bit of its first,
# least significant, byte, keeping it < r) and prove; pacer does not check constraints, so it must
# still write a proof, and snarkjs must reject that proof.
#   usage: tampered_witness.sh <path to pacer> <source dir> [name:curve ...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_config; need_node; need_snarkjs

# tamper IN OUT NPUBLIC: walks the section table of the .wtns (docs/formats.md §2, §4).
tamper() {
  PYTHONPATH="$SRC/tests/integration" python3 - "$@" <<'PY'
import struct, sys
from binfile_sections import sections
src, dst, npub = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = bytearray(open(src, "rb").read())
sec = sections(data, b"wtns")
h = sec[1][0]
n8 = struct.unpack_from("<I", data, h)[0]
prime = int.from_bytes(data[h + 4:h + 4 + n8], "little")
nwit = struct.unpack_from("<I", data, h + 4 + n8)[0]
last = nwit - 1
assert last > npub, f"last wire {last} is public (nPublic={npub}): nothing private to tamper with"
off = sec[2][0] + last * n8
v = int.from_bytes(data[off:off + n8], "little")
for bit in (1, 2, 4):                    # flip a low bit of byte 0, staying < r
    w = v ^ bit
    if w < prime: break
data[off:off + n8] = w.to_bytes(n8, "little")
open(dst, "wb").write(data)
print(f"wire {last}: {v} -> {w}")
PY
}

mapfile -t todo < <(cases_or mul3:bn128 mul3:bls12381 poseidon3:bn128)
for c in "${todo[@]}"; do
  fx=$(fixture "$c"); out="$WORK/$c"; mkdir -p "$out"
  npub=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$fx/public.json")
  tamper "$fx/witness.wtns" "$out/tampered.wtns" "$npub" || { fail "$c: could not tamper the witness"; continue; }
  cmp -s "$fx/witness.wtns" "$out/tampered.wtns" && { fail "$c: tampered witness is unchanged"; continue; }
  rc=0
  run_pacer "$out" prove --config "$CONFIG" --zkey "$fx/circuit.zkey" --witness "$out/tampered.wtns" \
    --proof "$out/proof.json" --public "$out/public.json" || rc=$?
  if [ $rc -ne 0 ]; then fail "$c: pacer prove exited $rc on a well-formed (but unsatisfying) witness"; show_output "$out"; continue; fi
  rc=0
  snarkjs_verify "$fx/verification_key.json" "$out/public.json" "$out/proof.json" "$out/verify.log" || rc=$?
  if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q 'Invalid proof' "$out/verify.log"; then
    pass "$c: snarkjs rejected the proof of a tampered witness (exit $rc)"
  else
    fail "$c: snarkjs did not reject the tampered proof cleanly (exit $rc)"; cat "$out/verify.log"
  fi
done
finish
