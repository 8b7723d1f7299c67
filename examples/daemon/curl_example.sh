#!/usr/bin/env bash
# The daemon's API with curl (docs/daemon.md). Start the daemon first, from the repository root:
#   build/bin/pacer serve --config examples/configs/serve.toml
# then run this script from the repository root. PACER_URL and PACER_TOKEN as the daemon's config says.
set -euo pipefail
url=${PACER_URL:-http://127.0.0.1:9820}
auth=(); [ -n "${PACER_TOKEN:-}" ] && auth=(-H "Authorization: Bearer $PACER_TOKEN")
circuit=examples/circuits/poseidon3/bn128

# Submit: the body is the .wtns file as it is; the answer is 202 and the job's id.
id=$(curl -sS --fail-with-body "${auth[@]}" --data-binary @"$circuit/witness.wtns" \
       "$url/v1/proofs?key=poseidon3-bn128&priority=normal" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
echo "submitted: $id"

# Long-poll: returns as soon as the proof is done (or failed, or cancelled), at most 30 s later.
curl -sS --fail-with-body "${auth[@]}" "$url/v1/proofs/$id?wait=30" >job.json
python3 - <<'PY'
import json
job = json.load(open("job.json"))
print("state:", job["state"], "| running:", round(job["timings"].get("running_s", 0), 3), "s")
json.dump(job["proof"], open("proof.json", "w"), indent=1)
json.dump(job["public"], open("public.json", "w"), indent=1)
PY

# The proof is snarkjs's proof.json; check it (the native verifier, or snarkjs groth16 verify).
build/bin/pacer verify --vkey "$circuit/verification_key.json" --proof proof.json --public public.json

# Queue, engine, keys, allocator; Prometheus metrics; cancelling (409 here: it is done already).
curl -sS "${auth[@]}" "$url/v1/status"; echo
curl -sS "${auth[@]}" "$url/metrics" | grep '^pacer_proofs_total'
curl -sS "${auth[@]}" -X DELETE "$url/v1/proofs/$id"; echo

# From input.json instead of a witness: a key whose [[keys]] entry names its .wasm (mul3-bn128 in
# serve.toml) takes the circuit's input as a JSON body, and computes the witness itself.
id=$(curl -sS --fail-with-body "${auth[@]}" -H 'Content-Type: application/json' \
       --data-binary @examples/circuits/mul3/input.json "$url/v1/proofs?key=mul3-bn128" |
     python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
curl -sS --fail-with-body "${auth[@]}" "$url/v1/proofs/$id?wait=30" |
  python3 -c 'import json,sys; j=json.load(sys.stdin); print("from input.json:", j["state"], j["public"])'

# rapidsnark's prover-server routes: POST /input/<key id>, then GET /status until "success".
curl -sS "${auth[@]}" -H 'Content-Type: application/json' --data-binary @examples/circuits/mul3/input.json \
     "$url/input/mul3-bn128"; echo
sleep 1; curl -sS "${auth[@]}" "$url/status"; echo
