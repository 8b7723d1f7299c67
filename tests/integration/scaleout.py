#!/usr/bin/env python3
"""Integration: fronts (`pacer serve` with [queue]) and workers (`pacer worker`) sharing a throwaway
PostgreSQL cluster (pg_cluster.py), on the cpu backend and the shipped poseidon3 (bn128) circuit.

  scenario  40 proofs through one front and two workers; meanwhile a worker is SIGKILLed while it
            holds a lease, PostgreSQL is restarted (pg_ctl restart -m fast; the front answers 503
            with Retry-After meanwhile) and the front is SIGKILLed and another started. Every job
            ends done, its result stored exactly once, every proof verifies; the connection string's
            password appears in no output; `pacer queue status` shows the live workers.
  prove_locally  a front with [queue] prove_locally = true proves its jobs in-process, no worker;
            a proof that fails its check is retried and ends failed after max_attempts.
  front_only  a front with no worker: reads key headers only, a job waits queued, is counted by
            `pacer queue status`, and DELETE cancels it; a long-poll whose wake-up the job's final
            NOTIFY takes while the poll reads the state still answers; a worker started while the database is
            down waits for it.
  lifecycle two fronts started at once create the schema once; a running job cancelled ends
            cancelled with its proof dropped; final jobs are deleted after retention_s; tables of
            a newer schema version are refused.
  bad_url   a connection string libpq cannot parse, and one the server refuses: exit 2 with a
            one-line reason and never the password, for `pacer worker` and `pacer serve`.

usage: scaleout.py <pacer> <source dir> [case ...]"""
import collections
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pg_cluster import Cluster  # noqa: E402

import serve_common  # noqa: E402  (ok/fail/check: the "ok: ..." / "FAIL: ..." lines of every daemon test)
from serve_common import check, fail, ok  # noqa: E402

PASSWORD = "hunter2-never-printed"
KEY = "poseidon3-bn128"


class Run:
    def __init__(self, pacer, src, work):
        self.pacer, self.src, self.work = pacer, src, work
        self.procs = []
        self.port = None
        fixture = os.path.join(src, "examples/circuits/poseidon3/bn128")
        self.zkey = os.path.join(fixture, "circuit.zkey")
        self.vkey = os.path.join(fixture, "verification_key.json")
        with open(os.path.join(fixture, "witness.wtns"), "rb") as f:
            self.witness = f.read()

    def config(self, name, url, extra="", queue_extra="", attempts=5):
        path = os.path.join(self.work, name + ".toml")
        with open(path, "w") as f:
            f.write(f'[queue]\nurl = "{url}"\nlease_s = 3\nmax_attempts = {attempts}\n{queue_extra}'
                    f'[server]\nlisten = "127.0.0.1:0"\nshutdown_grace_s = 5\n{extra}\n'
                    f'[[keys]]\nid = "{KEY}"\nzkey = "{self.zkey}"\n')
        return path

    def start(self, name, args, ready, seconds=60):
        err = open(os.path.join(self.work, name + ".log"), "w")
        p = subprocess.Popen([self.pacer] + args, stdout=err, stderr=subprocess.STDOUT)
        p.name, p.log = name, err.name
        self.procs.append(p)
        deadline = time.time() + seconds
        while time.time() < deadline:
            if ready(p):
                return p
            if p.poll() is not None:
                raise RuntimeError(f"{name} exited {p.returncode}: {self.log(p)[-2000:]}")
            time.sleep(0.05)
        raise RuntimeError(f"{name} not ready in {seconds} s: {self.log(p)[-2000:]}")

    def log(self, p):
        with open(p.log, errors="replace") as f:
            return f.read()

    def start_front(self, name, config):
        port_file = os.path.join(self.work, name + ".port")
        self.start(name, ["serve", "--config", config, "--port-file", port_file],
                   lambda p: os.path.exists(port_file) and open(port_file).read().strip())
        self.port = int(open(port_file).read())

    def start_worker(self, name, config):
        return self.start(name, ["worker", "--config", config], lambda p: " ready: keys " in self.log(p))

    def request(self, method, path, body=None, timeout=40, seconds=60):
        """(status, headers, json) from the current front; a front that is down (killed, being
        replaced) is waited for, as a client behind a load balancer would retry."""
        deadline = time.time() + seconds
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
                conn.request(method, path, body=body)
                r = conn.getresponse()
                data = r.read()
                conn.close()
                try:
                    j = json.loads(data)
                except ValueError:
                    j = None
                return r.status, {k.lower(): v for k, v in r.getheaders()}, j
            except (ConnectionError, http.client.HTTPException, OSError):
                if time.time() > deadline:
                    raise
                time.sleep(0.1)

    def stop_all(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def lease_holders(cluster):
    rows = cluster.psql("SELECT id, lease_owner FROM pacer.jobs WHERE state = 'running' AND lease_until > now()")
    return [line.split("|") for line in rows.splitlines() if line]


def done_count(cluster):
    return int(cluster.psql("SELECT count(*) FROM pacer.jobs WHERE state = 'done'"))


def scenario(run, cluster):
    url = cluster.url(PASSWORD)
    slow = '[scheduler]\nplugin = "throttled"\nparams = { membw_mb_per_s = 4 }\n[pipeline]\njobs_in_flight = 2\n'
    front_cfg = run.config("front", url)
    worker_cfg = run.config("worker", url, slow)
    run.start_front("front1", front_cfg)
    a = run.start_worker("workerA", worker_cfg)
    run.start_worker("workerB", worker_cfg)
    ok(f"one front (port {run.port}) and two workers ready")

    n = 40
    ids = []
    for _ in range(n):
        status, _, j = run.request("POST", f"/v1/proofs?key={KEY}", run.witness)
        if status != 202:
            return fail(f"submission refused: {status} {j}")
        ids.append(j["id"])
    check(len(set(ids)) == n and all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids),
          f"{n} jobs accepted, ids of 128 random bits")

    # A worker SIGKILLed while it holds a lease: its jobs come back after lease_s.
    deadline = time.time() + 30
    held = []
    while time.time() < deadline and not held:
        held = [job for job, owner in lease_holders(cluster) if f"-{a.pid}-" in owner]
        time.sleep(0.02)
    a.send_signal(signal.SIGKILL)
    a.wait()
    progress = {"worker killed": done_count(cluster)}
    check(bool(held), f"worker A SIGKILLed while it held the leases of {len(held)} job(s) mid-proof")
    run.start_worker("workerC", worker_cfg)  # the replacement, as a supervisor would start

    # PostgreSQL restarted: the front answers 503 with Retry-After meanwhile; nothing exits.
    seen_503 = []
    restarting = threading.Event()

    def restart():
        restarting.set()
        cluster.restart()
        restarting.clear()

    progress["database restarted"] = done_count(cluster)
    t = threading.Thread(target=restart)
    t.start()
    restarting.wait()
    while t.is_alive():
        status, headers, j = run.request("GET", f"/v1/proofs/{ids[-1]}", timeout=5)
        if status == 503:
            seen_503.append(headers.get("retry-after"))
        time.sleep(0.01)
    t.join()
    check(bool(seen_503) and all(r for r in seen_503),
          f"while PostgreSQL restarted the front answered 503 with Retry-After ({len(seen_503)} times)")
    check(cluster.wait_ready(), "PostgreSQL restarted (pg_ctl restart -m fast)")

    # The front SIGKILLed and another started: it answers for the same ids.
    time.sleep(1)
    front1 = next(p for p in run.procs if p.name == "front1")
    progress["front killed"] = done_count(cluster)
    front1.send_signal(signal.SIGKILL)
    front1.wait()
    run.start_front("front2", front_cfg)
    ok(f"front SIGKILLed, a new one on port {run.port}")

    jobs = {}
    deadline = time.time() + 90
    for i in ids:
        while True:
            status, _, j = run.request("GET", f"/v1/proofs/{i}?wait=20")
            if status == 200 and j["state"] in ("done", "failed", "cancelled"):
                jobs[i] = j
                break
            if time.time() > deadline:
                jobs[i] = j
                break
            if status == 503:
                time.sleep(0.5)
    check(all(d < n for d in progress.values()),
          f"each failure struck while jobs were still unfinished (jobs done by then: {progress})")
    states = collections.Counter(j["state"] if j else "none" for j in jobs.values())
    check(states == {"done": n}, f"every job reached done ({dict(states)})")
    # Which worker's result each job holds (the database's word: a SIGKILL can take the log line of
    # a result that was committed just before it).
    owner = dict(line.split("|") for line in cluster.psql("SELECT id, result_owner FROM pacer.jobs").splitlines())
    a_id = re.search(r"worker (\S+) ready", run.log(a)).group(1)
    check(all(owner.get(i) == a_id or jobs[i].get("attempts", 1) >= 2 for i in held),
          "each job the killed worker held mid-proof ran again on another (attempts >= 2), unless it had stored it",
          str({i: (jobs[i].get("attempts"), owner.get(i)) for i in held}))

    # Exactly once: one stored result per job over every worker's log, the killed one's included.
    stored = collections.Counter()
    dropped = 0
    for p in run.procs:
        if p.name.startswith("worker"):
            text = run.log(p)
            stored.update(re.findall(r"job ([0-9a-f]{32}): result stored", text))
            dropped += len(re.findall(r"another result was stored first", text))
    unlogged = [i for i in ids if i not in stored]
    check(set(stored) <= set(ids) and all(c == 1 for c in stored.values())
          and all(owner.get(i) == a_id for i in unlogged),
          f"each job's result stored exactly once ({sum(stored.values())} logged stores for {n} jobs, "
          f"{len(unlogged)} stored by the killed worker as it died; {dropped} late duplicate(s) dropped)",
          str({k: v for k, v in stored.items() if v != 1}) + str([(i, owner.get(i)) for i in unlogged]))
    rows = cluster.psql("SELECT count(*), count(*) FILTER (WHERE state = 'done') FROM pacer.jobs")
    check(rows == f"{n}|{n}", f"the database holds {n} jobs, all done, none duplicated ({rows})")

    bad = 0
    for k, i in enumerate(ids):
        d = os.path.join(run.work, "proofs", str(k))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "proof.json"), "w") as f:
            json.dump(jobs[i]["proof"], f)
        with open(os.path.join(d, "public.json"), "w") as f:
            json.dump(jobs[i]["public"], f)
        r = subprocess.run([run.pacer, "verify", "--vkey", run.vkey, "--proof", os.path.join(d, "proof.json"),
                            "--public", os.path.join(d, "public.json")], capture_output=True)
        bad += r.returncode != 0
    check(bad == 0, f"all {n} proofs verify (pacer verify)", f"({bad} rejected)")

    logs = {p.name: run.log(p) for p in run.procs}
    reconnected = [name for name, text in logs.items()
                   if name.startswith("worker") and name != "workerA" and "lost the database" in text
                   and "reachable again" in text]
    check(len(reconnected) == 2, f"both live workers lost the database at the restart and reconnected with backoff "
          f"({', '.join(reconnected)})")
    check(all(p.poll() is None for p in run.procs if p.name in ("workerB", "workerC", "front2")),
          "no front or worker exited")

    status, _, j = run.request("GET", "/v1/status")
    q = (j or {}).get("queue_store", {})
    check(status == 200 and q.get("store") == "postgresql" and q.get("live_workers", 0) >= 2
          and PASSWORD not in json.dumps(j) and "***" in q.get("url", ""),
          f"/v1/status shows the queue, its masked url and {q.get('live_workers')} live workers")
    status, _, _ = run.request("GET", "/metrics")
    conn = http.client.HTTPConnection("127.0.0.1", run.port, timeout=10)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    check(re.search(r"^pacer_queue_live_workers [2-9]", text, re.M) and "pacer_queue_leases_lost_total" in text,
          "/metrics has the queue's depth, counters and live workers")
    r = subprocess.run([run.pacer, "queue", "status", "--config", front_cfg], capture_output=True, text=True)
    check(r.returncode == 0 and "depth by key and priority" in r.stdout and "live workers:" in r.stdout
          and "leases_lost" in r.stdout, "pacer queue status prints depth, counters and live workers",
          r.stdout + r.stderr)
    print(r.stdout, end="")
    r = subprocess.run([run.pacer, "queue", "status", "--config", front_cfg, "--json"], capture_output=True, text=True)
    counters = json.loads(r.stdout)["counters"] if r.returncode == 0 else {}
    check(counters.get("leases_lost", 0) >= 1 and counters.get("retries", 0) >= 1,
          f"the lost leases and retries are counted ({counters})")
    leaked = [name for name, text in logs.items() if PASSWORD in text] + (["queue status"] if PASSWORD in r.stdout else [])
    check(not leaked, "the password of the connection string is in no log or output", str(leaked))

    # SIGTERM: the daemons stop cleanly.
    for p in run.procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    codes = {p.name: p.wait(timeout=30) for p in run.procs if p.name in ("workerB", "workerC", "front2")}
    check(all(c == 0 for c in codes.values()), f"SIGTERM: the front and workers exit 0 ({codes})")


def prove_locally(run, cluster):
    run.start_front("front", run.config("local", cluster.url(), queue_extra="prove_locally = true\n", attempts=2))
    ids = [run.request("POST", f"/v1/proofs?key={KEY}", run.witness)[2]["id"] for _ in range(4)]
    states = [run.request("GET", f"/v1/proofs/{i}?wait=30")[2]["state"] for i in ids]
    check(states == ["done"] * 4, f"a front with prove_locally = true and no worker proves its jobs ({states})")
    status, _, j = run.request("GET", "/v1/status")
    check(j["queue_store"]["live_workers"] == 1, "its in-process worker shows in /v1/status")
    # A witness that does not satisfy the circuit: its proof fails the check before it is stored,
    # is tried again, and after max_attempts the job ends failed with the reason.
    bad = bytearray(run.witness)
    bad[-32] ^= 1
    status, _, j = run.request("POST", f"/v1/proofs?key={KEY}", bytes(bad))
    status, _, job = run.request("GET", f"/v1/proofs/{j['id']}?wait=30")
    check(job["state"] == "failed" and job.get("attempts") == 2 and job.get("error") and "proof" not in job,
          f"a proof that fails its check is retried, then failed after max_attempts = 2 ({job.get('error', '')[:100]})",
          str(job))


def front_only(run, cluster):
    cfg = run.config("front-only", cluster.url())
    run.start_front("front", cfg)
    log = run.log(run.procs[0])
    check("header read (workers prove)" in log and "resident" not in log,
          "a front without prove_locally reads only its keys' headers")
    status, _, j = run.request("POST", f"/v1/proofs?key={KEY}", run.witness)
    status, _, job = run.request("GET", f"/v1/proofs/{j['id']}?wait=1")
    check(status == 200 and job["state"] == "queued", "with no worker the job waits, queued (a long-poll times out)")
    r = subprocess.run([run.pacer, "queue", "status", "--config", cfg, "--json"], capture_output=True, text=True)
    depth = json.loads(r.stdout)["depth"] if r.returncode == 0 else []
    check(depth == [{"key": KEY, "priority": "normal", "queued": 1, "running": 0}],
          f"pacer queue status counts it by key and priority ({depth})")
    status, _, job = run.request("DELETE", f"/v1/proofs/{j['id']}")
    check(status == 200 and job["state"] == "cancelled", f"DELETE cancels the queued job ({status} {job.get('state')})")
    status, _, job = run.request("DELETE", f"/v1/proofs/{j['id']}")
    check(status == 409, f"a second DELETE: 409, final already ({status})")
    status, _, job = run.request("GET", "/v1/proofs/" + "0" * 32)
    check(status == 404, "an id never issued: 404")
    long_poll_meets_notify(run, cluster)

    # A worker started while the database is down waits (backoff) instead of exiting, and starts
    # once the database is back.
    cluster.stop()
    err = open(os.path.join(run.work, "late-worker.log"), "w")
    p = subprocess.Popen([run.pacer, "worker", "--config", cfg], stdout=err, stderr=subprocess.STDOUT)
    p.name, p.log = "late-worker", err.name
    run.procs.append(p)
    time.sleep(2)
    check(p.poll() is None and "cannot reach the database" in run.log(p),
          "a worker started while the database is down waits for it")
    cluster.start()
    deadline = time.time() + 20
    while time.time() < deadline and " ready: keys " not in run.log(p):
        time.sleep(0.1)
    check(" ready: keys " in run.log(p) and "reachable again" in run.log(p), "and starts once the database is back")


def long_poll_meets_notify(run, cluster):
    """A long-poll registers its wake-up, then reads the job's state; the job's "final" NOTIFY can
    reach the front's listener between the two, and the listener then takes the wake-up. Made to
    happen every time: the read is held up by a lock on the jobs table while the NOTIFY is sent."""
    status, _, j = run.request("POST", f"/v1/proofs?key={KEY}", run.witness)
    job_id = j["id"]
    cluster.psql(f"UPDATE pacer.jobs SET state = 'done', proof_json = '{{}}', public_json = '[]', ended_at = now() "
                 f"WHERE id = '{job_id}'")  # as a worker would end it
    time.sleep(0.5)  # its own NOTIFY has come and gone: no wake-up was waiting
    locker = cluster.psql_session()
    locker.stdin.write("BEGIN; LOCK TABLE pacer.jobs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(3); ROLLBACK;\n")
    locker.stdin.flush()
    time.sleep(0.5)
    answer = {}

    def long_poll():
        try:
            answer["r"] = run.request("GET", f"/v1/proofs/{job_id}?wait=10", seconds=5)
        except OSError as e:  # the front went away: checked below
            answer["error"] = str(e)
    poll = threading.Thread(target=long_poll)
    poll.start()
    time.sleep(0.5)  # the wake-up is registered and the read waits for the lock
    cluster.psql(f"SELECT pg_notify('pacer_final', '{job_id}')")
    locker.stdin.close()
    locker.wait()
    poll.join(30)
    front = run.procs[0]
    status, _, job = answer.get("r", (None, None, {}))
    check(status == 200 and job.get("state") == "done" and front.poll() is None
          and run.request("GET", "/v1/status", seconds=5)[0] == 200,
          f"a job's final NOTIFY that takes a long-poll's wake-up while the poll reads the state: the poll answers "
          f"({status} {job.get('state')}{answer.get('error', '')}) and the front goes on", run.log(front)[-1500:])


def lifecycle(run, cluster):
    # Schema: two fronts started at once on an empty database both come up (one creates the
    # tables under the advisory lock, the other finds them current), at version 1.
    cfg = run.config("life", cluster.url(), queue_extra="retention_s = 2\n")
    slow = '[scheduler]\nplugin = "throttled"\nparams = { membw_mb_per_s = 1 }\n'
    procs = []
    for name in ("frontA", "frontB"):
        port_file = os.path.join(run.work, name + ".port")
        err = open(os.path.join(run.work, name + ".log"), "w")
        p = subprocess.Popen([run.pacer, "serve", "--config", cfg, "--port-file", port_file], stdout=err,
                             stderr=subprocess.STDOUT)
        p.name, p.log = name, err.name
        run.procs.append(p)
        procs.append((p, port_file))
    deadline = time.time() + 60
    while time.time() < deadline and not all(os.path.exists(f) and open(f).read().strip() for _, f in procs):
        if any(p.poll() is not None for p, _ in procs):
            break
        time.sleep(0.05)
    up = [p.poll() is None and os.path.exists(f) for p, f in procs]
    versions = cluster.psql("SELECT version FROM pacer.schema_version ORDER BY version").split()
    check(all(up) and versions == ["1"], f"two fronts started at once on an empty database both serve; schema at "
          f"version {versions}", "; ".join(run.log(p)[-400:] for p, _ in procs))
    run.port = int(open(procs[0][1]).read())
    run.start_worker("worker", run.config("life-worker", cluster.url(), slow, "retention_s = 2\n"))

    # A running job cancelled: 202 at once, then final as cancelled once its worker lets the proof
    # go; its proof is never stored.
    status, _, j = run.request("POST", f"/v1/proofs?key={KEY}", run.witness)
    running_id = j["id"]
    deadline = time.time() + 30
    state = None
    while time.time() < deadline:
        state = run.request("GET", f"/v1/proofs/{running_id}")[2]["state"]
        if state != "queued":
            break
        time.sleep(0.02)
    status, _, job = run.request("DELETE", f"/v1/proofs/{running_id}")
    check(state == "running" and status == 202, f"DELETE of a running job: 202 ({state}, {status})")
    status, _, job = run.request("GET", f"/v1/proofs/{running_id}?wait=30")
    stored = cluster.psql(f"SELECT proof_json IS NULL FROM pacer.jobs WHERE id = '{running_id}'").strip()
    check(job["state"] == "cancelled" and "proof" not in job and stored == "t",
          f"it ends cancelled and its proof is dropped ({job['state']}: {job.get('error', '')[:80]})", str(job))

    # Retention: a final job is deleted retention_s after it ended (fronts purge every 10 s).
    status, _, j = run.request("POST", f"/v1/proofs?key={KEY}", run.witness)
    done = run.request("GET", f"/v1/proofs/{j['id']}?wait=30")[2]
    deadline = time.time() + 30
    while time.time() < deadline and run.request("GET", f"/v1/proofs/{j['id']}")[0] != 404:
        time.sleep(0.5)
    gone = run.request("GET", f"/v1/proofs/{j['id']}")[0]
    rows = cluster.psql(f"SELECT count(*) FROM pacer.jobs WHERE id IN ('{j['id']}', '{running_id}')").strip()
    check(done["state"] == "done" and gone == 404 and rows == "0",
          f"with retention_s = 2, final jobs are deleted after it: GET gives 404, no row left ({done['state']}, "
          f"{gone}, {rows} rows)")

    # A database whose queue tables are newer than this pacer knows is refused with the reason.
    cluster.psql("INSERT INTO pacer.schema_version (version) VALUES (99)")
    r = subprocess.run([run.pacer, "worker", "--config", cfg], capture_output=True, text=True, timeout=60)
    check(r.returncode != 0 and "newer than this pacer knows" in r.stderr,
          f"tables of a newer schema version are refused: exit {r.returncode}",
          r.stderr[-400:])


def bad_url(run, cluster):
    cases = {
        "unparseable": f"host=/nowhere password={PASSWORD} nosuchoption=1",
        "malformed": f"host=/nowhere password={PASSWORD} bogus",
        "refused": cluster.url(PASSWORD).replace("/postgres?", "/nosuchdb?"),
    }
    for name, url in cases.items():
        cfg = run.config("bad-" + name, url)
        for cmd in (["worker"], ["serve"]):
            r = subprocess.run([run.pacer] + cmd + ["--config", cfg], capture_output=True, text=True, timeout=60)
            lines = [line for line in r.stderr.splitlines() if "pacer: error" in line]
            check(r.returncode == 2 and len(lines) == 1 and PASSWORD not in r.stderr + r.stdout,
                  f"{cmd[0]} with a {name} connection string: exit 2, one line, no password"
                  + (f" ({lines[0][:160]})" if lines else ""), f"(exit {r.returncode}: {r.stderr[-600:]})")


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    pacer, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.environ["PACER_PLUGIN_PATH"] = os.path.join(os.path.dirname(os.path.dirname(pacer)), "lib/pacer")
    todo = sys.argv[3:] or ["scenario", "bad_url", "prove_locally", "front_only", "lifecycle"]
    for case in todo:
        work = tempfile.mkdtemp(prefix="pacer-scaleout-")
        cluster = Cluster(work)
        cluster.start()
        run = Run(pacer, src, work)
        started = time.time()
        try:
            {"scenario": scenario, "bad_url": bad_url, "prove_locally": prove_locally,
             "front_only": front_only, "lifecycle": lifecycle}[case](run, cluster)
        except Exception as e:  # a daemon that would not start: the case fails, with its log
            fail(f"{case}: {e}")
        finally:
            run.stop_all()
            if serve_common.FAILED:
                for p in run.procs:
                    lines = run.log(p).splitlines(True)
                    # A sanitizer's report is what explains the failure: from its first line, not the tail.
                    report = next((i for i, line in enumerate(lines) if "ERROR: AddressSanitizer" in line
                                   or "runtime error:" in line), None)
                    shown = lines[report:report + 80] if report is not None else lines[-30:]
                    print(f"--- {p.name} log ({'sanitizer report' if report is not None else 'last lines'})\n" + "".join(shown))
            cluster.destroy()
            subprocess.run(["rm", "-rf", work])
        ok(f"{case}: {time.time() - started:.1f} s")
    if serve_common.FAILED:
        print("SOME CHECKS FAILED", file=sys.stderr)
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
