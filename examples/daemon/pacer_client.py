#!/usr/bin/env python3
"""A small client for `pacer serve` (docs/daemon.md), standard library only.

  prove   submit witnesses, wait for each proof, write proof-<i>.json / public-<i>.json
          pacer_client.py prove --key poseidon3-bn128 W.wtns [W2.wtns ...] [--out DIR]
  load    submit N proofs of one witness from C connections at once and report the throughput
          pacer_client.py load --key poseidon3-bn128 W.wtns --proofs 200 --connections 8
  status  print GET /v1/status

--url (default http://127.0.0.1:9820) and --token (or $PACER_TOKEN) for every command.
A 429 is retried after its Retry-After; any other refusal is printed with its one-line reason."""
import argparse
import concurrent.futures
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse


class Daemon:
    def __init__(self, url, token):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port or 80
        self.token = token
        self.local = threading.local()  # one keep-alive connection per thread

    def request(self, method, path, body=None):
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        for attempt in range(2):  # once more on a fresh connection if the kept one was closed
            conn = getattr(self.local, "conn", None) or http.client.HTTPConnection(self.host, self.port, timeout=600)
            self.local.conn = conn
            try:
                conn.request(method, path, body=body, headers=headers)
                r = conn.getresponse()
                data = r.read()
                if r.getheader("Connection", "").lower() == "close":
                    conn.close()
                    self.local.conn = None
                return r.status, r.getheader("Retry-After"), json.loads(data)
            except (http.client.HTTPException, ConnectionError):
                conn.close()
                self.local.conn = None
                if attempt:
                    raise

    def submit(self, key, witness, priority="normal"):
        while True:
            status, retry_after, body = self.request("POST", f"/v1/proofs?key={key}&priority={priority}", witness)
            if status == 202:
                return body["id"]
            if status == 429:
                time.sleep(float(retry_after or 1))
                continue
            raise RuntimeError(f"POST /v1/proofs: {status}: {body.get('error')}")

    def wait(self, job_id):
        while True:  # each long-poll returns at a final state or after `wait` seconds
            status, _, body = self.request("GET", f"/v1/proofs/{job_id}?wait=60")
            if status != 200:
                raise RuntimeError(f"GET /v1/proofs/{job_id}: {status}: {body.get('error')}")
            if body["state"] in ("done", "failed", "cancelled"):
                return body


def prove(d, args):
    os.makedirs(args.out, exist_ok=True)
    ids = [d.submit(args.key, open(w, "rb").read(), args.priority) for w in args.witness]
    failed = 0
    for i, job_id in enumerate(ids):
        job = d.wait(job_id)
        if job["state"] != "done":
            print(f"{args.witness[i]}: {job['state']}: {job.get('error')}", file=sys.stderr)
            failed += 1
            continue
        for name in ("proof", "public"):
            with open(os.path.join(args.out, f"{name}-{i}.json"), "w") as f:
                json.dump(job[name], f, indent=1)
        print(f"{args.witness[i]}: done in {job['timings']['running_s']:.3f} s "
              f"-> {args.out}/proof-{i}.json, {args.out}/public-{i}.json")
    return 1 if failed else 0


def load(d, args):
    witness = open(args.witness[0], "rb").read()
    t0 = time.time()

    def one(_):
        return d.wait(d.submit(args.key, witness, args.priority))

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.connections) as pool:
        jobs = list(pool.map(one, range(args.proofs)))
    wall = time.time() - t0
    done = [j for j in jobs if j["state"] == "done"]
    first = min(j["timings"]["submitted_at"] for j in jobs)
    last = max(j["timings"]["ended_at"] for j in jobs)
    summary = {"proofs": args.proofs, "done": len(done), "client_wall_seconds": wall,
               "client_proofs_per_second": args.proofs / wall,
               "server_span_seconds": last - first, "server_proofs_per_second": args.proofs / (last - first)}
    print(json.dumps(summary))
    return 0 if len(done) == args.proofs else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["prove", "load", "status"])
    p.add_argument("witness", nargs="*", help=".wtns files")
    p.add_argument("--url", default="http://127.0.0.1:9820")
    p.add_argument("--token", default=os.environ.get("PACER_TOKEN", ""))
    p.add_argument("--key", help="a [[keys]] id of the daemon's config")
    p.add_argument("--priority", default="normal", choices=["critical", "high", "normal", "low"])
    p.add_argument("--out", default=".", help="prove: where to write the proofs")
    p.add_argument("--proofs", type=int, default=100, help="load: how many proofs")
    p.add_argument("--connections", type=int, default=8, help="load: clients at once")
    args = p.parse_intermixed_args()
    d = Daemon(args.url, args.token)
    if args.command == "status":
        print(json.dumps(d.request("GET", "/v1/status")[2], indent=1))
        return 0
    if not args.key or not args.witness:
        p.error(f"{args.command} needs --key and at least one witness")
    return prove(d, args) if args.command == "prove" else load(d, args)


if __name__ == "__main__":
    sys.exit(main())
