"""What the daemon's test clients share (serve_client.py, serve_hostile.py): the arguments of the
run, checks that print "ok: ..." or "FAIL: ...", and HTTP helpers."""
import http.client
import json
import os
import re
import socket
import subprocess
import time
import types

# The run's arguments (serve_client.py fills it in): port, pid, src, pacer, work, token.
A = types.SimpleNamespace()
FAILED = False


def ok(msg):
    print(f"ok: {msg}", flush=True)


def fail(msg):
    global FAILED
    FAILED = True
    print(f"FAIL: {msg}", flush=True)


def check(cond, msg, detail=""):
    if cond:
        ok(msg)
    else:
        fail(f"{msg} {detail}".strip())
    return cond


def fixture(name, curve):
    return os.path.join(A.src, "examples/circuits", name, curve)


def witness(name="poseidon3", curve="bn128"):
    with open(os.path.join(fixture(name, curve), "witness.wtns"), "rb") as f:
        return f.read()


def request(method, path, body=None, headers=None, timeout=60, token=None):
    """(status, headers dict (lowercase), body bytes) on a fresh connection."""
    h = dict(headers or {})
    token = A.token if token is None else token
    if token:
        h.setdefault("Authorization", f"Bearer {token}")
    conn = http.client.HTTPConnection("127.0.0.1", A.port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=h)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def as_json(body):
    try:
        return json.loads(body)
    except ValueError:
        return None


def submit(key="poseidon3-bn128", priority=None, body=None, retry=True):
    """Submits; on 429 waits Retry-After and tries again when `retry`. Returns (status, json)."""
    q = f"/v1/proofs?key={key}" + (f"&priority={priority}" if priority else "")
    while True:
        status, headers, data = request("POST", q, body=witness() if body is None else body)
        if status == 429 and retry:
            time.sleep(float(headers.get("retry-after", "1")))
            continue
        return status, as_json(data), headers


def wait_final(job_id, seconds=60):
    deadline = time.time() + seconds
    while True:
        status, _, data = request("GET", f"/v1/proofs/{job_id}?wait=30", timeout=40)
        j = as_json(data)
        if status != 200 or j["state"] in ("done", "failed", "cancelled") or time.time() > deadline:
            return status, j


def write_outputs(job, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    proof, public = os.path.join(out_dir, "proof.json"), os.path.join(out_dir, "public.json")
    with open(proof, "w") as f:
        json.dump(job["proof"], f, indent=1)
    with open(public, "w") as f:
        json.dump(job["public"], f, indent=1)
    return proof, public


def pacer_verify(vkey, proof, public):
    return subprocess.run([A.pacer, "verify", "--vkey", vkey, "--proof", proof, "--public", public],
                          capture_output=True, text=True).returncode == 0


def snarkjs_verify(vkey, proof, public):
    snarkjs = os.path.join(A.src, "tests/oracle/node_modules/.bin/snarkjs")
    r = subprocess.run([snarkjs, "groth16", "verify", vkey, public, proof], capture_output=True, text=True)
    return r.returncode == 0 and "OK!" in r.stdout


def one_line_error(status, data, want_status, what):
    j = as_json(data)
    good = (status == want_status and isinstance(j, dict) and isinstance(j.get("error"), str)
            and "\n" not in j["error"] and j["error"])
    check(good, f"{what}: {want_status} with a one-line reason" + (f" ({j['error']})" if good else ""),
          f"(got {status}: {data[:300]!r})")


def metric(text, name):
    m = re.search(r"^" + re.escape(name) + r" (\S+)$", text, re.M)
    return float(m.group(1)) if m else None


def still_serving(what):
    status, j, _ = submit(key="mul3-bn128", body=witness("mul3"))
    if status != 202:
        return fail(f"after {what}: a good proof was refused ({status} {j})")
    status, job = wait_final(j["id"])
    check(status == 200 and job["state"] == "done", f"after {what}: the daemon still proves", f"({status} {job})")


def raw_request(data, timeout=10):
    """Sends raw bytes on a fresh connection; returns (status, headers bytes, body bytes) of the
    answer read until the server closes (0 when it is not HTTP)."""
    with socket.create_connection(("127.0.0.1", A.port), timeout=timeout) as s:
        s.sendall(data)
        reply = b""
        while True:
            try:
                part = s.recv(65536)
            except ConnectionResetError:
                break
            if not part:
                break
            reply += part
    head, _, body = reply.partition(b"\r\n\r\n")
    text = head.decode(errors="replace")
    status = int(text.split()[1]) if text.startswith("HTTP/1.1") and len(text.split()) > 1 else 0
    return status, head, body


def auth_header():
    return f"Authorization: Bearer {A.token}\r\n".encode() if A.token else b""


def daemon_log():
    with open(os.path.join(A.work, "stderr"), errors="replace") as f:
        return f.read()
