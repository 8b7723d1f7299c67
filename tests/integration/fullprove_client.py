#!/usr/bin/env python3
"""HTTP clients of `pacer serve` proving input.json bodies (started by fullprove_serve.sh):

  fullprove_client.py --port P --src SRC --work DIR --snarkjs SNARKJS

Two keys with witness generators (mul3 on bn128, chain on bls12381) and one without (nopub):
8 concurrent JSON submissions over both, each long-polled and its proof checked by snarkjs; bad
JSON bodies refused at once with a 4xx; and rapidsnark's prover-server routes (POST /input/<id>,
GET /status, POST /cancel) giving a proof snarkjs accepts.
Prints "ok: ..." per check and "FAIL: ..." per failure; exit 1 on any failure."""
import argparse
import concurrent.futures
import http.client
import json
import os
import subprocess
import sys
import time

A = None
FAILED = False


def ok(msg):
    print(f"ok: {msg}", flush=True)


def fail(msg):
    global FAILED
    FAILED = True
    print(f"FAIL: {msg}", flush=True)


def request(method, path, body=None, content_type="application/json", timeout=120):
    conn = http.client.HTTPConnection("127.0.0.1", A.port, timeout=timeout)
    headers = {"Content-Type": content_type} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data


def fixture(name, curve):
    return os.path.join(A.src, "examples", "circuits", name, curve)


def snarkjs_accepts(curve_dir, proof, public, tag):
    proof_path = os.path.join(A.work, f"{tag}-proof.json")
    public_path = os.path.join(A.work, f"{tag}-public.json")
    with open(proof_path, "w") as f:
        json.dump(proof, f)
    with open(public_path, "w") as f:
        json.dump(public, f)
    r = subprocess.run([A.snarkjs, "groth16", "verify", os.path.join(curve_dir, "verification_key.json"), public_path,
                        proof_path], capture_output=True, text=True)
    return r.returncode == 0


def inputs_for(name, k):
    """input.json of the example with every number plus k (k = 0: the shipped input)."""
    with open(os.path.join(A.src, "examples", "circuits", name, "input.json")) as f:
        doc = json.load(f)
    return {key: str(int(v) + k) for key, v in doc.items()}


def prove_json(key, name, curve, k):
    status, body = request("POST", f"/v1/proofs?key={key}", json.dumps(inputs_for(name, k)))
    if status != 202:
        return f"{key}/{k}: POST answered {status}: {body[:200]!r}"
    job = json.loads(body)["id"]
    deadline = time.time() + 300
    while time.time() < deadline:
        status, body = request("GET", f"/v1/proofs/{job}?wait=30")
        doc = json.loads(body)
        if doc["state"] in ("done", "failed", "cancelled"):
            break
    if doc["state"] != "done":
        return f"{key}/{k}: job ended {doc['state']}: {doc.get('error')}"
    if "witness" not in doc["timings"].get("stages_s", {}):
        return f"{key}/{k}: no witness stage in the job's timings"
    if not snarkjs_accepts(fixture(name, curve), doc["proof"], doc["public"], f"{key}-{k}"):
        return f"{key}/{k}: snarkjs refused the proof"
    return None


def case_concurrent():
    work = [("mul3", "mul3", "bn128", k) for k in range(4)] + [("chain", "chain", "bls12381", k) for k in range(4)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        problems = [p for p in pool.map(lambda w: prove_json(*w), work) if p]
    if problems:
        for p in problems:
            fail(p)
    else:
        ok("8 concurrent input.json submissions over two circuits: every proof accepted by snarkjs")


def case_refusals():
    checks = [
        ("unknown signal", "/v1/proofs?key=mul3", '{"a": 3, "b": 11, "c": 5, "zz": 1}', 422, "'zz' is not an input"),
        ("missing signals", "/v1/proofs?key=mul3", '{"a": 3}', 422, "input values are missing"),
        ("malformed JSON", "/v1/proofs?key=mul3", '{"a": 3,', 400, "the request body: not valid JSON"),
        ("a key without a generator", "/v1/proofs?key=nopub", '{"a": 7, "b": 9}', 415, "has no witness generator"),
        ("an unknown rapidsnark circuit", "/input/nope", '{"a": 1}', 404, "unknown circuit 'nope'"),
    ]
    for what, path, body, want, fragment in checks:
        status, data = request("POST", path, body)
        try:
            error = json.loads(data).get("error", "")
        except ValueError:
            error = ""
        if status == want and fragment in error and "\n" not in error:
            ok(f"{what}: {status} {error[:120]}")
        else:
            fail(f"{what}: expected {want} with '{fragment}', got {status} {data[:200]!r}")


def case_rapidsnark():
    status, body = request("GET", "/status")
    if status != 200 or json.loads(body).get("status") != "ready":
        fail(f"rapidsnark: GET /status before any input: {status} {body!r}")
    status, body = request("POST", "/input/chain", json.dumps(inputs_for("chain", 0)))
    if status != 200 or json.loads(body).get("status") not in ("busy", "success"):
        return fail(f"rapidsnark: POST /input/chain: {status} {body!r}")
    deadline = time.time() + 300
    while time.time() < deadline:
        status, body = request("GET", "/status")
        doc = json.loads(body)
        if doc.get("status") != "busy":
            break
        time.sleep(0.05)
    if doc.get("status") != "success":
        return fail(f"rapidsnark: /status ended {doc}")
    proof, public = json.loads(doc["proof"]), json.loads(doc["pubData"])  # JSON text inside JSON, as rapidsnark
    if snarkjs_accepts(fixture("chain", "bls12381"), proof, public, "rapidsnark"):
        ok("rapidsnark routes: POST /input/<circuit>, GET /status -> success with a proof snarkjs accepts")
    else:
        fail("rapidsnark routes: snarkjs refused the proof from /status")
    status, body = request("POST", "/cancel", "")
    if status == 200 and json.loads(body).get("status") == "success":
        ok("rapidsnark: POST /cancel after the end leaves the result")
    else:
        fail(f"rapidsnark: POST /cancel: {status} {body!r}")


def main():
    global A
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--snarkjs", required=True)
    A = p.parse_args()
    case_refusals()
    case_concurrent()
    case_rapidsnark()
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
