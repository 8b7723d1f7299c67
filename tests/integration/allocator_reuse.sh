#!/usr/bin/env bash
# Integration: real proofs (a synthetic 2^14 bn128 circuit, gen-circuit + setup --insecure), timed
# by `pacer bench` after a warm-up proof. With allocator pooled the timed proofs must map no fresh
# memory and call no munmap (the allocator's own counters), and take under a tenth of plain's
# minor page faults (getrusage ru_minflt over the timed proofs); plain (every block mmap'd) must
# show the faults and munmaps that pooled saves, or the comparison proves nothing.
#   usage: allocator_reuse.sh <path to pacer> <source dir>
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer
command -v python3 >/dev/null || { echo "FAIL: python3 is not on PATH (it reads the JSON)" >&2; exit 1; }

out="$WORK/circuit"; mkdir -p "$out"
run_pacer "$out" gen-circuit --constraints 16000 --r1cs c.r1cs --witness w.wtns || { fail "gen-circuit"; show_output "$out"; }
run_pacer "$out" setup --insecure --r1cs c.r1cs --zkey k.zkey --vkey vk.json || { fail "setup"; show_output "$out"; }
[ "$FAILED" -eq 0 ] || finish

printf '[allocator]\nplugin = "pooled"\nparams = { fresh = "plain" }\n' >pooled.toml
printf '[allocator]\nplugin = "plain"\nparams = { mmap_threshold = 65536 }\n' >plain.toml
for a in pooled plain; do
  rc=0
  run_pacer "$WORK/$a" bench --config "$a.toml" --zkey k.zkey --witness w.wtns --proofs 3 --jobs 1 --warmup 1 \
    --json "$a.json" || rc=$?
  [ $rc -eq 0 ] || { fail "$a: pacer bench exited $rc"; show_output "$WORK/$a"; finish; }
done

# Under ASan the process-wide fault count is the sanitizer's own allocator and quarantine as much as
# ours: the fault comparison is made in the Release job only (the allocator's counters still are here).
LIBS=$(ldd "$PACER" 2>/dev/null || true)
ASAN=0; case "$LIBS" in *libasan*) ASAN=1;; esac
ASAN=$ASAN python3 - pooled.json plain.json <<'PY' || FAILED=1
import json, sys
pooled, plain = (json.load(open(p)) for p in sys.argv[1:3])
def per_proof(r, *path):
    v = r
    for k in path: v = v[k]
    return v / r["proofs"]
ok = True
def check(cond, what):
    global ok
    print(("ok: " if cond else "FAIL: ") + what, file=sys.stdout if cond else sys.stderr)
    ok &= cond
pa, la = pooled["allocator"], plain["allocator"]
check(pa["unmaps"] == 0, f"pooled: no munmap in the timed proofs (got {pa['unmaps']})")
check(pa["fresh_bytes"] == 0, f"pooled: no fresh memory mapped in the timed proofs (got {pa['fresh_bytes']} bytes)")
check(pa["reused_bytes"] > 0, f"pooled: the timed proofs ran on reused blocks ({pa['reused_bytes']} bytes)")
check(la["unmaps"] > 0 and la["fresh_bytes"] > 0,
      f"plain: maps and unmaps every proof ({la['unmaps']} munmaps, {la['fresh_bytes']} fresh bytes)")
fp, fl = per_proof(pooled, "cpu", "minor_faults"), per_proof(plain, "cpu", "minor_faults")
import os
if os.environ.get("ASAN") == "1":
    print(f"skip: page faults under ASan (pooled {fp:.0f}, plain {fl:.0f} per proof): the sanitizer's allocator faults too")
else:
    check(fp * 10 < fl, f"pooled takes under a tenth of plain's page faults per proof ({fp:.0f} vs {fl:.0f})")
sys.exit(0 if ok else 1)
PY
finish
