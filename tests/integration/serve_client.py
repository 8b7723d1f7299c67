#!/usr/bin/env python3
"""Real HTTP clients against a running `pacer serve` (started by serve.sh). One case per run:

  serve_client.py CASE --port P --pid PID --src SRC --pacer PACER --work DIR [--token T]

Cases: roundtrip, concurrent, priority, bad_requests, token, slow_client, shutdown,
shutdown_without_grace, expiry, device_lost; and the hostile ones of serve_hostile.py.
Prints "ok: ..." per check and "FAIL: ..." per failure; exit 1 on any failure."""
import argparse
import concurrent.futures
import json
import os
import re
import signal
import socket
import threading
import time

import serve_common
import serve_hostile
from serve_common import (A, as_json, check, daemon_log, fail, fixture, metric, ok, one_line_error, pacer_verify,
                          request, snarkjs_verify, still_serving, submit, wait_final, witness, write_outputs)


# --- cases

def case_roundtrip():
    status, j, headers = submit(retry=False)
    check(status == 202 and j and re.fullmatch(r"[0-9a-f]{32}", j.get("id", "")),
          "POST /v1/proofs answers 202 with a 128-bit id (32 hex digits)", f"({status} {j})")
    ids = set()
    for _ in range(20):
        s2, j2, _ = submit(key="mul3-bn128", body=witness("mul3"), retry=True)
        ids.add(j2["id"] if s2 == 202 else None)
    # Ids from a seeded PRNG share structure across a run; from the OS CSPRNG every one is new and
    # their hex digits are spread evenly (a weak check, but it catches counters and constants).
    digits = "".join(i for i in ids if i)
    check(len(ids) == 20 and None not in ids and len(set(digits)) == 16, "20 more ids: all distinct, every hex digit used")
    check(headers.get("location") == f"/v1/proofs/{j['id']}", "202 carries Location: /v1/proofs/{id}")
    t0 = time.time()
    status, _, data = request("GET", f"/v1/proofs/{j['id']}?wait=30", timeout=40)
    job = as_json(data)
    check(status == 200 and job["state"] == "done", f"long-poll returns the final state ({time.time() - t0:.2f} s)",
          f"({status} {job})")
    fx = fixture("poseidon3", "bn128")
    proof, public = write_outputs(job, os.path.join(A.work, "roundtrip"))
    vkey = os.path.join(fx, "verification_key.json")
    check(snarkjs_verify(vkey, proof, public), "snarkjs groth16 verify accepts the daemon's proof")
    check(pacer_verify(vkey, proof, public), "pacer verify accepts the daemon's proof")
    with open(os.path.join(fx, "public.json")) as f:
        check(json.load(f) == job["public"], "public equals the shipped public.json")
    t = job.get("timings", {})
    check(all(k in t for k in ("submitted_at", "started_at", "ended_at", "queued_s", "running_s", "stages_s")),
          "timings name the queue, run and stage times", f"({t})")
    status, _, data = request("DELETE", f"/v1/proofs/{j['id']}")
    one_line_error(status, data, 409, "DELETE of a finished proof")
    status, _, data = request("GET", "/v1/status")
    st = as_json(data)
    check(status == 200 and st["state"] == "serving" and any(k["id"] == "poseidon3-bn128" for k in st["keys"])
          and "allocator" in st and "memory" in st and "devices" in st["backend"], "GET /v1/status", f"({st})")
    # The access log: one line per request, with method, target, status, bytes and time.
    time.sleep(0.2)
    lines = [line for line in daemon_log().splitlines() if "access: 127.0.0.1:" in line]
    submitted = [line for line in lines if '"POST /v1/proofs?key=poseidon3-bn128" 202 ' in line]
    check(len(submitted) == 1 and re.search(r" 202 \d+ B [\d.]+ ms", submitted[0]),
          "the access log has the submission: method, target, status, bytes, ms", f"({submitted[:1]})")
    check(len(lines) >= 24, f"... and a line for each of the {len(lines)} requests")


def case_concurrent(n=200):
    t0 = time.time()

    def one(i):
        status, j, _ = submit()
        if status != 202:
            return i, None, f"submit {status} {j}"
        status, job = wait_final(j["id"], 300)
        return i, job, None if status == 200 else f"get {status}"

    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(one, range(n)))
    elapsed = time.time() - t0
    done = [job for _, job, err in results if job and job["state"] == "done"]
    errors = [err or job.get("error") for _, job, err in results if not job or job["state"] != "done"]
    check(len(done) == n, f"{n} concurrent submissions: {len(done)} done in {elapsed:.1f} s", f"({errors[:3]})")
    check(len({job["id"] for job in done}) == len(done), "every job has its own id")
    fx = fixture("poseidon3", "bn128")
    vkey = os.path.join(fx, "verification_key.json")
    t1 = time.time()

    def verified(k):
        return pacer_verify(vkey, *write_outputs(done[k], os.path.join(A.work, f"concurrent-{k}")))
    # One `pacer verify` process a proof, as many at once as there are cores (under ASan, one after
    # another took a minute of CI).
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        bad = sum(not ok for ok in pool.map(verified, range(len(done))))
    check(bad == 0, f"pacer verify accepts all {len(done)} proofs ({time.time() - t1:.1f} s)", f"({bad} rejected)")
    sample = [0, len(done) // 2, len(done) - 1] if done else []
    check(all(snarkjs_verify(vkey, *write_outputs(done[k], os.path.join(A.work, f"concurrent-{k}"))) for k in sample),
          f"snarkjs accepts a sample of {len(sample)}")
    _, _, data = request("GET", "/metrics")
    text = data.decode()
    counted = metric(text, 'pacer_proofs_total{outcome="done"}')
    check(counted == n, f"/metrics counts {n} done", f"(counted {counted})")
    check(metric(text, "pacer_proofs_submitted_total") == n, f"/metrics counts {n} submitted")
    check(metric(text, 'pacer_proofs_total{outcome="failed"}') == 0 and
          metric(text, 'pacer_proofs_total{outcome="cancelled"}') == 0, "none failed or cancelled")
    check(metric(text, "pacer_queue_depth") == 0 and metric(text, "pacer_proofs_in_flight") == 0, "the queue is empty")
    check(metric(text, 'pacer_stage_duration_seconds_count{stage="msm_g1"}') == 4 * n and
          metric(text, "pacer_proof_duration_seconds_count") == n, "stage and proof histograms count every proof")
    for name in ('pacer_allocator_bytes{kind="peak"}', 'pacer_allocator_bytes{kind="hugepage"}',
                 "pacer_scheduler_wait_seconds_count", "pacer_queue_wait_seconds_count"):
        check(metric(text, name) is not None, f"/metrics has {name}")


def case_priority():
    # jobs_in_flight = 1, max_queued = 4 (serve.sh): fill the queue with normal proofs until 429.
    normal, refused = [], None
    for _ in range(2000):
        status, j, headers = submit(retry=False)
        if status == 202:
            normal.append(j["id"])
        elif status == 429:
            refused = (headers, j)
            break
        else:
            return fail(f"submit answered {status} {j}")
    if not check(refused is not None, f"a full queue answers 429 (after {len(normal)} accepted)"):
        return
    headers, j = refused
    check(headers.get("retry-after", "").isdigit() and int(headers["retry-after"]) >= 1,
          f"429 carries Retry-After: {headers.get('retry-after')}")
    check(isinstance(j, dict) and "\n" not in j.get("error", "\n"), f"429 has a one-line reason ({j})")
    status, crit, _ = submit(priority="critical", retry=False)
    check(status == 202, "a critical proof is accepted behind the full queue", f"({status} {crit})")
    jobs = {i: wait_final(i)[1] for i in normal}
    _, c = wait_final(crit["id"])
    check(c["state"] == "done", "the critical proof is done")
    waiting = [jobs[i] for i in normal if jobs[i]["timings"]["started_at"] > c["timings"]["submitted_at"]]
    check(len(waiting) >= 1, f"{len(waiting)} normal proofs were still queued when it came")
    check(all(j["timings"]["ended_at"] > c["timings"]["ended_at"] for j in waiting),
          "the critical proof finished before every normal proof queued ahead of it")
    check(all(j["state"] == "done" for j in jobs.values()), f"all {len(normal)} normal proofs are done")
    # Cancel: a queued proof is cancelled at once; its final state says so.
    ids = []
    for _ in range(3):
        status, j, _ = submit(priority="low", retry=True)
        ids.append(j["id"])
    status, _, data = request("DELETE", f"/v1/proofs/{ids[-1]}")
    j = as_json(data)
    check(status in (200, 202, 409), f"DELETE answers {status}", f"({data[:200]!r})")
    _, final = wait_final(ids[-1])
    check(final["state"] == ("cancelled" if status in (200, 202) else "done"),
          f"after DELETE ({status}) the proof is {final['state']}")


def case_bad_requests():
    bn, bls = witness("poseidon3", "bn128"), witness("poseidon3", "bls12381")
    cases = [
        ("PUT", "/v1/proofs?key=poseidon3-bn128", bn, 405, "wrong method"),
        ("GET", "/v2/nothing", None, 404, "unknown endpoint"),
        ("POST", "/v1/proofs", bn, 400, "missing ?key"),
        ("POST", "/v1/proofs?key=nope", bn, 404, "unknown key"),
        ("POST", "/v1/proofs?key=poseidon3-bn128&priority=urgent", bn, 400, "unknown priority"),
        ("POST", "/v1/proofs?key=poseidon3-bn128&colour=red", bn, 400, "unknown query parameter"),
        ("POST", "/v1/proofs?key=poseidon3-bn128", b"", 400, "empty body"),
        ("POST", "/v1/proofs?key=poseidon3-bn128", b"not a witness at all", 400, "a body that is no .wtns"),
        ("POST", "/v1/proofs?key=poseidon3-bn128", bn[:len(bn) // 2], 400, "a truncated .wtns"),
        ("POST", "/v1/proofs?key=poseidon3-bn128", bls, 422, "a witness for the wrong curve"),
        ("POST", "/v1/proofs?key=poseidon3-bn128", witness("mul3", "bn128"), 422, "a witness of the wrong size"),
        ("POST", "/v1/proofs?key=poseidon3-bn128%", bn, 400, "a broken percent-escape"),
        ("GET", "/v1/proofs/0123456789abcdef", None, 404, "an unknown id"),
        ("GET", "/v1/proofs/0123456789abcdef?wait=soon", None, 400, "a bad wait"),
        ("DELETE", "/v1/proofs/0123456789abcdef", None, 404, "DELETE of an unknown id"),
    ]
    for method, path, body, want, what in cases:
        status, _, data = request(method, path, body=body)
        one_line_error(status, data, want, what)
    # Bytes that are not UTF-8, in the query (raw or percent-escaped) and in the path: a 400, and the
    # daemon serves on (such a request once ended the process from the JSON encoder). A long-poll of
    # an unknown id answers its 404 from a timer: that must not end the process either.
    raw_targets = [
        (b"GET /v1/proofs/abc?wait=%ff%fe", 400, "a percent-escaped non-UTF-8 query value"),
        (b"POST /v1/proofs?key=%c3%28", 400, "a non-UTF-8 key name"),
        (b"GET /v1/proofs/abc?\xff\xfe=1", 400, "raw non-UTF-8 bytes in the query"),
        (b"GET /v1/proofs/\xff\xfe\xfd", 400, "raw non-UTF-8 bytes in the path"),
        (b"GET /v1/proofs/\xc3\xa9t\xc3\xa9?wait=0.2", 404, "a long-poll of an unknown UTF-8 id"),
        (b"GET /nowhere/\xc3\xa9", 404, "an unknown endpoint named in UTF-8"),
    ]
    for target, want, what in raw_targets:
        with socket.create_connection(("127.0.0.1", A.port), timeout=10) as s:
            auth = f"Authorization: Bearer {A.token}\r\n".encode() if A.token else b""
            s.sendall(target + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n" + auth + b"Connection: close\r\n\r\n")
            reply = b""
            while True:
                part = s.recv(65536)
                if not part:
                    break
                reply += part
        text = reply.decode(errors="replace")
        status = int(text.split()[1]) if text.startswith("HTTP/1.1") else 0
        one_line_error(status, reply.split(b"\r\n\r\n", 1)[-1], want, what)
        check(as_json(reply.split(b"\r\n\r\n", 1)[-1]) is not None, f"{what}: the body is valid JSON")
    still_serving("non-UTF-8 requests")
    # Over the limit (serve.sh: max_body_bytes = 100000): refused from the header, before the body.
    with socket.create_connection(("127.0.0.1", A.port), timeout=10) as s:
        s.sendall(b"POST /v1/proofs?key=poseidon3-bn128 HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\n\r\n" +
                  b"\0" * 1000)
        t0 = time.time()
        reply = s.recv(65536).decode(errors="replace")
        status = int(reply.split()[1]) if reply.startswith("HTTP/1.1") else 0
        body = reply.split("\r\n\r\n", 1)[-1]
        one_line_error(status, body.encode(), 413, f"a 50 MB body, {1000} bytes sent ({time.time() - t0:.2f} s)")
    # Chunked bodies are counted as they arrive.
    with socket.create_connection(("127.0.0.1", A.port), timeout=10) as s:
        s.sendall(b"POST /v1/proofs?key=poseidon3-bn128 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"\0" * 65536
        reply = b""
        try:
            for _ in range(4):
                s.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        except OSError:
            pass
        reply = s.recv(65536).decode(errors="replace")
        status = int(reply.split()[1]) if reply.startswith("HTTP/1.1") else 0
        one_line_error(status, reply.split("\r\n\r\n", 1)[-1].encode(), 413, "a chunked body over the limit")
    # Not HTTP at all.
    with socket.create_connection(("127.0.0.1", A.port), timeout=10) as s:
        s.sendall(b"\x16\x03\x01 this is not HTTP\r\n\r\n")
        reply = s.recv(65536).decode(errors="replace")
        status = int(reply.split()[1]) if reply.startswith("HTTP/1.1") else 0
        one_line_error(status, reply.split("\r\n\r\n", 1)[-1].encode(), 400, "bytes that are not HTTP")
    still_serving("the bad requests")


def case_token():
    for token, what in (("", "a missing token"), ("wrong", "a wrong token")):
        status, _, data = request("POST", "/v1/proofs?key=poseidon3-bn128", body=witness(), token=token)
        one_line_error(status, data, 401, what)
    status, _, data = request("GET", "/metrics")
    check(status == 200, "the right token is let in")
    # The scheme is case-insensitive (RFC 9110), and one or more spaces may follow it.
    for header in (f"bearer {A.token}", f"BEARER   {A.token}", f"BeArEr {A.token}"):
        status, _, data = request("GET", "/v1/status", headers={"Authorization": header})
        check(status == 200, f"Authorization: {header.split()[0]} ... is let in ({status})")
    for header, what in ((f"Basic {A.token}", "another scheme"), (f"Bearer{A.token}", "no space after the scheme"),
                         (f"Bearer {A.token}x", "a longer token"), (f"Bearer {A.token[:-1]}", "a prefix of it")):
        status, _, data = request("GET", "/v1/status", headers={"Authorization": header})
        one_line_error(status, data, 401, what)
    still_serving("refused tokens")


def case_slow_client():
    # serve.sh: request_timeout_s = 2. Headers, half a body, then nothing.
    s = socket.create_connection(("127.0.0.1", A.port), timeout=20)
    body = witness()
    auth = f"Authorization: Bearer {A.token}\r\n".encode() if A.token else b""
    s.sendall(b"POST /v1/proofs?key=poseidon3-bn128 HTTP/1.1\r\nHost: x\r\n" + auth +
              b"Content-Length: %d\r\n\r\n" % len(body) + body[:len(body) // 2])
    t0 = time.time()
    still_serving("a client that stalls mid-body (while it stalls)")
    reply = s.recv(65536).decode(errors="replace")
    waited = time.time() - t0
    status = int(reply.split()[1]) if reply.startswith("HTTP/1.1") else 0
    one_line_error(status, reply.split("\r\n\r\n", 1)[-1].encode(), 408, f"a stalled body, after {waited:.1f} s")
    check(s.recv(100) == b"", "the stalled connection is closed")
    s.close()


def case_shutdown(sig=signal.SIGTERM):
    # serve.sh: jobs_in_flight = 1. Many proofs, a long-poll on each, then SIGTERM (or SIGHUP).
    ids = [submit()[1]["id"] for _ in range(40)]
    results = {}

    def poll(i):
        results[i] = wait_final(i, 60)

    threads = [threading.Thread(target=poll, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    time.sleep(0.2)
    os.kill(A.pid, sig)
    time.sleep(0.1)
    name = signal.Signals(sig).name
    try:
        status, j, _ = submit(retry=False)
        check(status == 503, f"a submission after {name} is refused ({status})")
        time.sleep(0.3)
        check(any(" 503 " in line and "shutting down" in line and "error" in line for line in daemon_log().splitlines()),
              "the 503 is logged as an error, with its reason")
    except OSError as e:
        ok(f"a submission after {name} finds the daemon gone ({e.__class__.__name__})")
    for t in threads:
        t.join(70)
    states = [results.get(i, (0, None))[1] for i in ids]
    final = [s["state"] for s in states if s]
    check(len(final) == len(ids) and all(s in ("done", "cancelled") for s in final),
          f"every accepted proof reached a final state: {final.count('done')} done, "
          f"{final.count('cancelled')} cancelled", f"({len(final)} of {len(ids)}: {set(final)})")
    check(all(s.get("error") for s in states if s and s["state"] == "cancelled"), "each cancelled one says why")


# serve.sh: shutdown_grace_s = 0: the proof in flight is reported cancelled at once and the
# daemon leaves without waiting for it.
case_shutdown_without_grace = case_shutdown


def case_shutdown_sighup():
    # A closed terminal or a supervisor's reload: SIGHUP drains as SIGTERM does.
    case_shutdown(signal.SIGHUP)


def case_expiry():
    # serve.sh: result_ttl_s = 1
    status, j, _ = submit()
    _, job = wait_final(j["id"])
    check(job["state"] == "done", "the proof is done")
    time.sleep(3)
    status, _, data = request("GET", f"/v1/proofs/{j['id']}")
    one_line_error(status, data, 404, "its result, after result_ttl_s")


def case_device_lost(n=4):
    # The faulty test backend over two pretend devices loses one under the 2nd proof's first G1 MSM:
    # that proof runs again on the other device; every proof is done and valid.
    ids = []
    for _ in range(n):
        status, j, _ = submit(key="mul3-bn128", body=witness("mul3"))
        check(status == 202, "a proof accepted", f"({status} {j})")
        ids.append(j["id"])
    jobs = [wait_final(i)[1] for i in ids]
    check(all(job["state"] == "done" for job in jobs), f"all {n} proofs done although a device was lost",
          f"({[job.get('error') for job in jobs]})")
    retried = [job for job in jobs if job.get("attempts") == 2]
    check(len(retried) == 1, "exactly one proof says attempts: 2", f"({[job.get('attempts') for job in jobs]})")
    fx = fixture("mul3", "bn128")
    vkey = os.path.join(fx, "verification_key.json")
    for k, job in enumerate(jobs):
        proof, public = write_outputs(job, os.path.join(A.work, f"device_lost-{k}"))
        check(pacer_verify(vkey, proof, public), f"proof {k} verifies")
    status, _, data = request("GET", "/metrics")
    check(metric(data.decode(), "pacer_proofs_retried_total") == 1, "/metrics counts the retried proof")
    check(metric(data.decode(), "pacer_backend_lanes_in_service") == 1, "/metrics: one of the two lanes in service",
          f"({metric(data.decode(), 'pacer_backend_lanes_in_service')})")
    status, _, data = request("GET", "/v1/status")
    backend = as_json(data)["backend"]
    check(backend["lanes"] == 2 and backend["lanes_in_service"] == 1 and backend["failed_devices"] == [0],
          "/v1/status: device 0 failed, one lane left", f"({backend})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--pacer", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--token", default="")
    vars(A).update(vars(p.parse_args()))
    case = globals().get("case_" + A.case) or getattr(serve_hostile, "case_" + A.case)
    case()
    raise SystemExit(1 if serve_common.FAILED else 0)


if __name__ == "__main__":
    main()
