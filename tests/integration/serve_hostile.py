"""Hostile clients against a running `pacer serve` (serve.sh starts it; serve_client.py runs the
case): descriptors run out, clients that leave mid long-poll, refused witnesses that must not
take memory, HTTP semantics (HEAD, transfer-codings), the shipped config's self-check. Each case
says what serve.sh configures for it."""
import concurrent.futures
import http.client
import json
import os
import resource
import socket
import struct
import time

from serve_common import (A, as_json, auth_header, check, daemon_log, fail, fixture, ok, one_line_error, raw_request,
                          request, still_serving, submit, wait_final, witness)


def cpu_seconds(pid):
    """User + system CPU seconds the process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def status_json():
    status, _, data = request("GET", "/v1/status")
    return as_json(data) if status == 200 else None


def wtns(values, curve_prime):
    """A .wtns (version 2) holding `values` (ints) of the scalar field with this prime."""
    n8 = 32
    header = struct.pack("<I", n8) + curve_prime.to_bytes(n8, "little") + struct.pack("<I", len(values))
    body = b"".join(v.to_bytes(n8, "little") for v in values)
    out = b"wtns" + struct.pack("<II", 2, 2)
    out += struct.pack("<IQ", 1, len(header)) + header
    out += struct.pack("<IQ", 2, len(body)) + body
    return out


BN254_R = 21888242871839275222246405745257275088548364400416034343698204186575808495617


def case_fd_limit():
    # serve.sh: the daemon starts under `ulimit -n 128` with max_connections = 1024.
    log = daemon_log()
    check("max_connections 1024 lowered to" in log, "at start, max_connections is lowered to what ulimit -n allows",
          f"({[l for l in log.splitlines() if 'max_connections' in l][:1]})")
    # Descriptors run out for real: the soft limit drops to just above what is open now, and many
    # clients connect. The accept loop must back off, not spin.
    pid = A.pid
    before = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (open_fds(pid) + 2, before[1]))
    socks = []
    try:
        for _ in range(60):
            s = socket.socket()
            s.settimeout(5)
            s.connect(("127.0.0.1", A.port))
            socks.append(s)
        time.sleep(0.5)
        c0, t0 = cpu_seconds(pid), time.time()
        time.sleep(3)
        used = (cpu_seconds(pid) - c0) / (time.time() - t0)
        check(used < 0.25, f"with no descriptor left, 60 waiting connections cost the daemon {used:.0%} of a core")
        log = daemon_log()
        check("accept failed" in log and "accepting again in" in log,
              "the failed accepts are logged, with the back-off")
        check(log.count("accept failed") <= 10, f"... at most once a second ({log.count('accept failed')} lines)")
    finally:
        for s in socks:
            s.close()
        resource.prlimit(pid, resource.RLIMIT_NOFILE, before)
    time.sleep(1.5)  # the back-off ends; the backlog's closed connections are accepted and dropped
    still_serving("descriptors ran out")


def long_poll_and_leave(job_id):
    s = socket.create_connection(("127.0.0.1", A.port), timeout=10)
    s.sendall(f"GET /v1/proofs/{job_id}?wait=60 HTTP/1.1\r\nHost: x\r\n".encode() + auth_header() + b"\r\n")
    time.sleep(0.02)
    s.close()


def case_client_gone():
    # serve.sh: jobs_in_flight = 1, max_connections = 8, a throttled scheduler that makes a proof
    # take about a second. A queued proof is long-polled by clients that hang up at once; their
    # connections must not keep the slots.
    ids = [submit()[1]["id"] for _ in range(12)]
    last = ids[-1]
    for _ in range(24):
        long_poll_and_leave(last)
    status, _, data = request("GET", f"/v1/proofs/{last}")
    check(status == 200 and as_json(data)["state"] in ("queued", "running"),
          "the proof they polled is still pending after them", f"({data[:200]!r})")
    time.sleep(0.5)
    st = status_json()
    check(st is not None and st["connections"] <= 2, "24 long-polls whose clients left hold no connection",
          f"({st and st['connections']} open)")
    check('" 499 ' in daemon_log(), "the access log says the clients went away (499)")
    for i in ids:
        status, job = wait_final(i, 120)
        if job["state"] != "done":
            fail(f"proof {i}: {job['state']} {job.get('error')}")
    ok(f"all {len(ids)} proofs done")


def case_refused_memory():
    # serve.sh: jobs_in_flight = 1, max_queued = 1. Refused submissions (wrong size, wrong curve,
    # a full queue) must not take memory from the allocator: its allocation count and the bytes it
    # keeps stay where they were.
    before = status_json()["allocator"]
    big = wtns([1] + [0] * 199_999, BN254_R)  # 6.4 MB, not poseidon3's 609 wires
    for _ in range(10):
        status, _, data = request("POST", "/v1/proofs?key=poseidon3-bn128", body=big)
        if status != 422:
            return fail(f"a witness of the wrong size got {status} {data[:200]!r}")
    bls = witness("poseidon3", "bls12381")
    for _ in range(10):
        status, _, data = request("POST", "/v1/proofs?key=poseidon3-bn128", body=bls)
        if status != 422:
            return fail(f"a witness of the wrong curve got {status} {data[:200]!r}")
    after = status_json()["allocator"]
    check(after["allocations"] == before["allocations"] and after["cached_bytes"] == before["cached_bytes"],
          "20 refused witnesses (422) took nothing from the allocator",
          f"(allocations {before['allocations']} -> {after['allocations']}, "
          f"cached {before['cached_bytes']} -> {after['cached_bytes']})")
    # One proof's allocations, then a burst where most get 429.
    status, j, _ = submit(retry=False)
    wait_final(j["id"])
    one = status_json()["allocator"]["allocations"] - after["allocations"]
    start = status_json()["allocator"]["allocations"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=40) as pool:
        results = list(pool.map(lambda _: submit(retry=False), range(40)))
    accepted = [j["id"] for status, j, _ in results if status == 202]
    refused = sum(1 for status, _, _ in results if status == 429)
    for i in accepted:
        wait_final(i)
    grown = status_json()["allocator"]["allocations"] - start
    check(refused > 0 and grown <= (len(accepted) + 2) * one,
          f"a burst of 40: {len(accepted)} accepted, {refused} refused (429); the allocator made {grown} allocations "
          f"({one} per proof)")


def case_protocol():
    # HEAD is answered as GET is, without a body; where GET is not allowed, 405 without a body.
    conn = http.client.HTTPConnection("127.0.0.1", A.port, timeout=10)
    conn.request("HEAD", "/v1/status")
    r = conn.getresponse()
    body = r.read()
    check(r.status == 200 and int(r.getheader("content-length", "0")) > 0 and body == b"",
          f"HEAD /v1/status: 200, Content-Length {r.getheader('content-length')}, no body")
    conn.request("GET", "/v1/status")  # the connection is still in step: the header had no body after it
    r = conn.getresponse()
    check(r.status == 200 and as_json(r.read()) is not None, "a GET on the same connection after HEAD")
    conn.request("HEAD", "/v1/proofs")
    r = conn.getresponse()
    check(r.status == 405 and r.read() == b"" and "POST" in r.getheader("allow", ""), "HEAD /v1/proofs: 405, no body")
    conn.close()
    status, j, _ = submit(key="mul3-bn128", body=witness("mul3"))
    wait_final(j["id"])
    status, head, body = raw_request(f"HEAD /v1/proofs/{j['id']} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                                     .encode())
    check(status == 200 and body == b"", f"HEAD of a proof: 200 without a body ({status})")
    # Transfer-codings other than chunked cannot be read: 501, never a body taken as something else.
    bn = witness()
    for coding, want in (("gzip", 501), ("gzip, chunked", 501), ("x-made-up", 501), ("chunked, chunked", 400)):
        chunked = b"%x\r\n" % len(bn) + bn + b"\r\n0\r\n\r\n"
        status, _, body = raw_request(
            f"POST /v1/proofs?key=poseidon3-bn128 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: {coding}\r\n".encode() +
            b"Connection: close\r\n\r\n" + chunked)
        one_line_error(status, body, want, f"Transfer-Encoding: {coding}")
    status, _, body = raw_request(b"POST /v1/proofs?key=poseidon3-bn128 HTTP/1.1\r\nHost: x\r\n"
                                  b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\nConnection: close\r\n\r\n"
                                  b"0\r\n\r\n")
    one_line_error(status, body, 400, "Content-Length and Transfer-Encoding together")
    # A witness that does not fit its key: 422 naming the key by id, never the server's path.
    for body, what in ((witness("poseidon3", "bls12381"), "the wrong curve"), (witness("mul3"), "the wrong size")):
        status, _, data = request("POST", "/v1/proofs?key=poseidon3-bn128", body=body)
        err = (as_json(data) or {}).get("error", "")
        check(status == 422 and "poseidon3-bn128" in err and ".zkey" not in err and "/" not in err,
              f"422 for {what} names the key by id, not by path ({err})")
    still_serving("HEAD and transfer-codings")


def case_shipped_config():
    # serve.sh: examples/configs/serve.toml as shipped (on an ephemeral port). Its self-check must
    # turn a witness that does not satisfy the circuit into a failed job, never a "done" proof.
    fx = fixture("mul3", "bn128")
    good = witness("mul3")
    data = bytearray(good)
    # The last wire is private: flip a low bit of its first byte (staying below r).
    data[-32] ^= 1
    status, j, _ = submit(key="mul3-bn128", body=bytes(data))
    check(status == 202, "the tampered witness is accepted (it is a well-formed .wtns)", f"({status} {j})")
    status, job = wait_final(j["id"])
    check(job["state"] == "failed" and "verif" in job.get("error", ""),
          f"its proof fails the self-check: {job['state']} ({job.get('error', '')[:120]})")
    check("proof" not in job, "no proof is returned")
    status, j, _ = submit(key="mul3-bn128", body=good)
    status, job = wait_final(j["id"])
    check(job["state"] == "done", "a good witness is still proved")
    with open(os.path.join(fx, "public.json")) as f:
        check(job["public"] == json.load(f), "... with the right public signals")


def case_public_bind():
    # serve.sh: listen = "0.0.0.0:0" with a token (it refused the same without one, before this).
    still_serving("listening on 0.0.0.0 with a token")
