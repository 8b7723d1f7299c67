#!/usr/bin/env python3
"""The table of a scripts/sweep.sh folder: one row per scheduler x allocator x jobs, from the
`pacer bench --json` summaries in it (markdown, for docs/benchmarks.md).

  scripts/sweep_table.py sweep-out

Columns: proofs/s; CPU seconds per proof (user + system over the timed proofs); latency p95;
time per proof in the membw stages (synthesize + msm_g2 run p50; on the cuda backend they run on
the GPU); the GPU lanes' busy fractions (lowest-highest, "-" without lanes); the ratio of proofs/s to greedy's
with the same allocator and jobs, and to the same setting at jobs = 1.
"""
import glob
import json
import os
import sys


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "sweep-out"
    rows = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        if path.endswith(".trace.json"):
            continue
        try:
            s = json.load(open(path))
        except (OSError, ValueError):
            continue
        c = s.get("config", {})
        key = (c.get("scheduler", "?"), c.get("allocator", "?"), int(s.get("jobs", 0)))
        cpu = s.get("cpu", {})
        stages = s.get("stages", {})
        membw = sum(stages.get(n, {}).get("run_seconds", {}).get("p50", 0) for n in ("synthesize", "msm_g2"))
        rows[key] = {
            "pps": s.get("proofs_per_second", 0),
            "cpu": cpu.get("seconds_per_proof",
                           (cpu.get("user_seconds", 0) + cpu.get("system_seconds", 0)) / max(1, s.get("proofs", 1))),
            "p95": s.get("latency_seconds", {}).get("p95", 0),
            "membw": membw,
            "domain": s.get("key", {}).get("domain_size", 0),
            "lanes": [l.get("busy_fraction", 0) for l in s.get("lanes", [])],
        }
    if not rows:
        print(f"no summaries in {folder}")
        return
    print("| scheduler | allocator | jobs | proofs/s | CPU s/proof | latency p95 s | membw p50 s | lanes busy | vs greedy | vs jobs=1 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (sched, alloc, jobs), r in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
        greedy = rows.get(("greedy", alloc, jobs))
        alone = rows.get((sched, alloc, 1))
        vs_greedy = f"{r['pps'] / greedy['pps']:.2f}x" if greedy and greedy["pps"] else "-"
        vs_alone = f"{r['pps'] / alone['pps']:.2f}x" if alone and alone["pps"] else "-"
        lanes = (f"{100 * min(r['lanes']):.0f}-{100 * max(r['lanes']):.0f} %" if r["lanes"] else "-")
        print(f"| {sched} | {alloc} | {jobs} | {r['pps']:.3f} | {r['cpu']:.3f} | {r['p95']:.3f} | {r['membw']:.3f} "
              f"| {lanes} | {vs_greedy} | {vs_alone} |")


if __name__ == "__main__":
    main()
