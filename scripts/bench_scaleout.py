#!/usr/bin/env python3
"""Scale-out figures for docs/scale-out.md: proofs/s through one front and 1, 2 and 4 workers sharing
a throwaway PostgreSQL cluster (tests/integration/pg_cluster.py), and the same work through the
in-memory daemon and through a front with one worker of the same engine settings (the queue's
overhead). A synthetic circuit with a development key; the cpu backend; the client is
examples/daemon/pacer_client.py load, throughput from the first submission to the last proof's end.
  usage: scripts/bench_scaleout.py [constraints (4096)] [proofs (60)] [rounds (2)]
  BUILD_DIR as for scripts/build.sh (default: build)."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "tests/integration"))
from pg_cluster import Cluster  # noqa: E402

build = os.path.join(root, os.environ.get("BUILD_DIR", "build"))
pacer = os.path.join(build, "bin/pacer")
constraints = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
proofs = int(sys.argv[2]) if len(sys.argv) > 2 else 60
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
work = os.path.join(build, "bench-scaleout", str(constraints))
os.makedirs(work, exist_ok=True)
zkey, wtns = os.path.join(work, "circuit.zkey"), os.path.join(work, "witness.wtns")
if not os.path.exists(zkey):
    subprocess.run([pacer, "gen-circuit", "--constraints", str(constraints), "--r1cs", work + "/circuit.r1cs",
                    "--witness", wtns], check=True)
    subprocess.run([pacer, "setup", "--insecure", "--r1cs", work + "/circuit.r1cs", "--zkey", zkey, "--vkey",
                    work + "/verification_key.json"], check=True)

tmp = tempfile.mkdtemp(prefix="pacer-bench-scaleout-")
cluster = Cluster(tmp)
cluster.start()
procs = []


def config(name, queue, jobs, threads):
    path = os.path.join(work, name + ".toml")
    with open(path, "w") as f:
        # verify_proofs everywhere: a worker verifies each proof before storing it ([queue] verify_proofs),
        # so the in-memory daemon does the same work.
        f.write(f"[host]\nthreads = {threads}\nverify_proofs = true\n[pipeline]\njobs_in_flight = {jobs}\n"
                f'[server]\nlisten = "127.0.0.1:0"\nmax_queued = 100000\naccess_log = false\n'
                + (f'[queue]\nurl = "{cluster.url()}"\n' if queue else "")
                + f'[[keys]]\nid = "bench"\nzkey = "{zkey}"\n')
    return path


def start(args, ready_text, log):
    out = open(os.path.join(work, log), "w")
    p = subprocess.Popen([pacer] + args, stdout=out, stderr=subprocess.STDOUT)
    procs.append(p)
    for _ in range(600):
        if ready_text in open(out.name, errors="replace").read():
            return p
        time.sleep(0.1)
    raise SystemExit(f"{log}: not ready")


def stop_all():
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        p.wait()
    procs.clear()


HZ = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / HZ
    except (OSError, IndexError):
        return 0.0


def postgres_cpu():
    """CPU seconds of every live postgres process (the cluster's backends included)."""
    total = 0.0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if open(f"/proc/{pid}/comm").read().strip() == "postgres":
                    total += cpu_seconds(pid)
            except OSError:
                pass
    return total


def load(port, n):
    r = subprocess.run([sys.executable, os.path.join(root, "examples/daemon/pacer_client.py"), "load", "--url",
                        f"http://127.0.0.1:{port}", "--key", "bench", wtns, "--proofs", str(n), "--connections", "8"],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["server_proofs_per_second"]


def measure(name, queue, workers, jobs, threads):
    cluster.psql("DROP SCHEMA IF EXISTS pacer CASCADE")
    front_cfg = config(name + "-front", queue, jobs, threads)
    port_file = os.path.join(work, name + ".port")
    if os.path.exists(port_file):
        os.remove(port_file)
    start(["serve", "--config", front_cfg, "--port-file", port_file], "listening on", name + "-front.log")
    for w in range(workers):
        start(["worker", "--config", config(name + "-worker", True, jobs, threads)], " ready: keys ",
              f"{name}-worker{w}.log")
    port = int(open(port_file).read())
    load(port, 4)  # warm-up
    before = [cpu_seconds(p.pid) for p in procs], postgres_cpu()
    rate = load(port, proofs)
    pacer_cpu = sum(cpu_seconds(p.pid) for p in procs) - sum(before[0])
    pg_cpu = postgres_cpu() - before[1]  # backends that ended during the run are missed: a lower bound
    stop_all()
    return rate, pacer_cpu / proofs, pg_cpu / proofs


setups = [("in-memory daemon, jobs_in_flight 2", False, 0, 2, 0),
          ("front + 1 worker, jobs_in_flight 2", True, 1, 2, 0),
          ("front + 1 worker (1 thread, 1 in flight)", True, 1, 1, 1),
          ("front + 2 workers (1 thread, 1 in flight each)", True, 2, 1, 1),
          ("front + 4 workers (1 thread, 1 in flight each)", True, 4, 1, 1)]
results = {s[0]: [] for s in setups}
try:
    for r in range(rounds):
        print(f"== round {r + 1}/{rounds}: {constraints} constraints, {proofs} proofs, "
              f"load {open('/proc/loadavg').read().split()[0]}", flush=True)
        for name, queue, workers, jobs, threads in setups:
            rate, cpu, pg = measure(name.split(",")[0].split(" (")[0].replace(" ", "-").replace("+", ""), queue,
                                    workers, jobs, threads)
            results[name].append((rate, cpu, pg))
            print(f"   {name}: {rate:.3f} proofs/s, CPU s/proof: pacer {cpu:.4f}, postgres {pg:.4f}", flush=True)
finally:
    stop_all()
    cluster.destroy()
    subprocess.run(["rm", "-rf", tmp])
def median(values):
    return sorted(values)[len(values) // 2]


print("== median over rounds (overhead: against the in-memory daemon; CPU: pacer processes + postgres)")
base = median([r[0] for r in results[setups[0][0]]])
base_cpu = median([r[1] + r[2] for r in results[setups[0][0]]])
for name, runs in results.items():
    rate, cpu = median([r[0] for r in runs]), median([r[1] + r[2] for r in runs])
    print(f"   {name}: {rate:.3f} proofs/s ({100 * (base - rate) / base:+.1f}%), "
          f"{cpu:.4f} CPU s/proof ({100 * (cpu - base_cpu) / base_cpu:+.1f}%)")
