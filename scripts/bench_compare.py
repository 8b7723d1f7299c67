#!/usr/bin/env python3
"""Times `pacer prove` against other provers on the same key and witness, alternating runs.

  scripts/bench_compare.py --zkey K.zkey --witness W.wtns --runs 7 \
      --other rapidsnark='/path/to/prover {zkey} {witness} {proof} {public}' \
      --other snarkjs='npx snarkjs groth16 prove {zkey} {witness} {proof} {public}'

Each round runs pacer, then every --other prover, so a machine whose speed drifts (shared VMs do)
affects all of them alike. Reports the median and minimum wall time and the median user+system
CPU time and the largest peak RSS of each prover, and each one's median wall time relative to pacer's. --vkey checks every
prover's last proof with snarkjs (tests/oracle), or with `pacer verify` where it is not installed. --json writes the same numbers with the command and date.
Thread counts: pacer takes [host] threads from --config; other provers take theirs from their
own environment (set it before calling, e.g. RAPIDSNARK_NTHREADS with a preload shim).
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd):
    """Runs cmd (a list); returns (wall seconds, cpu seconds, peak RSS in MB) of that one child, or
    exits on failure. wait4 gives the child's own rusage: RUSAGE_CHILDREN's maxrss would be the
    largest of every child so far."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stderr_text = []
    # stderr is read on a thread so that a chatty child cannot block on a full pipe before exiting.
    reader = threading.Thread(target=lambda: stderr_text.append(proc.stderr.read()))
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"bench_compare: {shlex.join(cmd)} failed (exit {proc.returncode}): {''.join(stderr_text).strip()[-400:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0  # ru_maxrss: KiB on Linux


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zkey", required=True)
    ap.add_argument("--witness", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pacer", default=os.path.join(ROOT, "build", "bin", "pacer"))
    ap.add_argument("--config", help="pacer TOML config (default: pacer's own default)")
    ap.add_argument("--other", action="append", default=[], metavar="NAME='CMD {zkey} {witness} {proof} {public}'")
    ap.add_argument("--vkey", help="verify each prover's proof once with snarkjs")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--keep", help="folder for the proofs (default: a fresh temporary folder)")
    args = ap.parse_args()
    if args.runs < 1:
        sys.exit("bench_compare: --runs must be at least 1")
    for path in (args.zkey, args.witness, args.pacer):
        if not os.path.exists(path):
            sys.exit(f"bench_compare: {path} does not exist")

    work = args.keep or tempfile.mkdtemp(prefix="bench_compare.")
    os.makedirs(work, exist_ok=True)
    provers = []
    pacer_cmd = [args.pacer, "prove", "--zkey", args.zkey, "--witness", args.witness, "--proof", "{proof}",
                 "--public", "{public}"]
    if args.config:
        pacer_cmd += ["--config", args.config]
    provers.append(("pacer", pacer_cmd))
    for spec in args.other:
        name, sep, template = spec.partition("=")
        if not sep or not template.strip():
            sys.exit(f"bench_compare: --other wants NAME='COMMAND', got {spec!r}")
        provers.append((name, shlex.split(template)))

    def command(name, template):
        subst = {"zkey": args.zkey, "witness": args.witness, "proof": os.path.join(work, f"{name}.proof.json"),
                 "public": os.path.join(work, f"{name}.public.json")}
        return [part.format(**subst) for part in template]

    samples = {name: [] for name, _ in provers}
    for r in range(args.runs):
        for name, template in provers:
            wall, cpu, rss = timed(command(name, template))
            samples[name].append((wall, cpu, rss))
            print(f"run {r + 1}/{args.runs} {name:<12} {wall:8.3f} s wall {cpu:8.3f} s cpu {rss:7.1f} MB peak RSS",
                  flush=True)

    if args.vkey:
        # snarkjs where the oracle is installed (an implementation independent of pacer's), else
        # `pacer verify` (pairing check as snarkjs does it).
        snarkjs = os.path.join(ROOT, "tests", "oracle", "node_modules", ".bin", "snarkjs")
        for name, _ in provers:
            public, proof = os.path.join(work, f"{name}.public.json"), os.path.join(work, f"{name}.proof.json")
            if os.path.exists(snarkjs):
                verifier = "snarkjs"
                ok = subprocess.run([snarkjs, "groth16", "verify", args.vkey, public, proof], capture_output=True,
                                    text=True)
                passed = ok.returncode == 0 and "OK" in ok.stdout
            else:
                verifier = "pacer verify"
                ok = subprocess.run([args.pacer, "verify", "--vkey", args.vkey, "--public", public, "--proof", proof],
                                    capture_output=True, text=True)
                passed = ok.returncode == 0
            verdict = "OK" if passed else "FAILED"
            print(f"{verifier} {name}: {verdict}")
            if verdict != "OK":
                sys.exit(f"bench_compare: the proof of {name} does not verify")

    base = statistics.median(w for w, _, _ in samples["pacer"])
    rows = []
    print(f"\n| prover | median wall | min wall | median cpu | max peak RSS | pacer / prover (median wall) |")
    print("|---|---|---|---|---|---|")
    for name, _ in provers:
        walls = [w for w, _, _ in samples[name]]
        cpus = [c for _, c, _ in samples[name]]
        row = {"prover": name, "median_wall_s": statistics.median(walls), "min_wall_s": min(walls),
               "median_cpu_s": statistics.median(cpus), "max_rss_mb": max(m for _, _, m in samples[name]),
               "runs": samples[name]}
        rows.append(row)
        ratio = base / row["median_wall_s"]
        print(f"| {name} | {row['median_wall_s']:.3f} s | {row['min_wall_s']:.3f} s | {row['median_cpu_s']:.3f} s "
              f"| {row['max_rss_mb']:.0f} MB | {ratio:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"command": shlex.join(sys.argv), "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                       "host": platform.node(), "cpus": os.cpu_count(), "provers": rows}, f, indent=1)


if __name__ == "__main__":
    main()
