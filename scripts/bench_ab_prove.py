#!/usr/bin/env python3
"""One-shot `pacer prove` of two builds against each other on one key, alternating runs, medians
(docs/benchmarks.md: "Where a 2^13 proof waits on 16 cores"). A build is a folder laid out as
scripts/device/pack.sh makes it: bin/pacer, lib/ (the framework library), lib/pacer/ (plugins).
The last proof of each build is checked with its own `pacer verify` when --vkey is given.

  scripts/bench_ab_prove.py OLD_DIST NEW_DIST KEY.zkey WITNESS.wtns [--runs N] [--vkey VK.json]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("zkey")
    ap.add_argument("witness")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--vkey")
    args = ap.parse_args()
    out = tempfile.mkdtemp(prefix="pacer-ab-")
    builds = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    times = {name: [] for name in builds}

    def run(name, *command):
        dist = builds[name]
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(dist, "lib"), PACER_PLUGIN_PATH=os.path.join(dist, "lib/pacer"))
        return subprocess.run([os.path.join(dist, "bin/pacer"), *command], env=env, capture_output=True, text=True)

    for i in range(args.runs + 1):  # the first round warms the page cache and the key-check records
        for name in builds:
            start = time.perf_counter()
            r = run(name, "prove", "--zkey", args.zkey, "--witness", args.witness, "--proof", f"{out}/{name}.json",
                    "--public", f"{out}/{name}-public.json")
            elapsed = time.perf_counter() - start
            if r.returncode != 0:
                sys.exit(f"{name}: pacer prove failed: {r.stderr[-400:]}")
            if i:
                times[name].append(elapsed)
    for name, t in times.items():
        print(f"{name}: median {statistics.median(t) * 1000:.1f} ms, min {min(t) * 1000:.1f} ms, {len(t)} runs")
    print(f"new / old: {statistics.median(times['new']) / statistics.median(times['old']):.3f}")
    if args.vkey:
        for name in builds:
            r = run(name, "verify", "--vkey", args.vkey, "--proof", f"{out}/{name}.json", "--public", f"{out}/{name}-public.json")
            print(f"{name}: {r.stdout.strip() or r.stderr.strip()}")
            if r.returncode != 0:
                sys.exit(1)


if __name__ == "__main__":
    main()
