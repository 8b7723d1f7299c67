#!/usr/bin/env bash
# Page faults, system time and munmaps per proof for each allocator (docs/allocators.md).
#   scripts/bench_allocators.sh [constraints (default 65000: domain 2^16)] [proofs (10)] [jobs (1 2)]
# Env: BUILD_DIR (default build), WORK (default a temporary folder, kept). hugetlb needs free 2 MiB
# pages (sysctl vm.nr_hugepages=N as root); without them its row falls back to thp and says so.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pacer="$root/${BUILD_DIR:-build}/bin/pacer"
constraints=${1:-65000}; proofs=${2:-10}; jobs=${3:-"1 2"}
work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/pacer-alloc.XXXXXX")}
mkdir -p "$work"; cd "$work"
[ -s k.zkey ] || { "$pacer" gen-circuit --constraints "$constraints" --r1cs c.r1cs --witness w.wtns >/dev/null 2>&1
                   "$pacer" setup --insecure --r1cs c.r1cs --zkey k.zkey --vkey vk.json >/dev/null 2>&1; }
declare -A params=([plain]='plugin = "plain"' [plain_bounded]='plugin = "plain"'
                   [thp]='plugin = "thp"' [hugetlb]='plugin = "hugetlb"
params = { on_empty = "thp" }'
                   [pooled_plain]='plugin = "pooled"
params = { fresh = "plain" }' [pooled_thp]='plugin = "pooled"
params = { fresh = "thp" }')
names=(plain plain_bounded thp hugetlb pooled_plain pooled_thp)
for a in "${names[@]}"; do
  printf '[allocator]\n%s\n' "${params[$a]}" >"$a.toml"
  [ "$a" = plain_bounded ] && printf '[pipeline]\nrelease = "bounded"\n' >>"$a.toml"
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(uname -sr);" \
     "THP $(cat /sys/kernel/mm/transparent_hugepage/enabled); 2 MiB hugetlb pages free:" \
     "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages); $(date -u +%FT%TZ)"
printf '%-3s %-14s %9s %12s %12s %10s %12s %10s %10s\n' J allocator proofs/s "faults/proof" "sys ms/proof" \
       "user s/pr" "fresh MiB/pr" unmaps/pr fallbacks
for j in $jobs; do
  for a in "${names[@]}"; do
    "$pacer" bench --config "$a.toml" --zkey k.zkey --witness w.wtns --proofs "$proofs" --jobs "$j" --warmup 2 \
      --json "r_${a}_j$j.json" >/dev/null 2>"r_${a}_j$j.err"
    python3 - "r_${a}_j$j.json" "$j" "$a" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); n = r["proofs"]; c = r["cpu"]; a = r["allocator"]
print(f"{sys.argv[2]:<3} {sys.argv[3]:<14} {r['proofs_per_second']:9.3f} {c['minor_faults']/n:12.0f} "
      f"{c['system_seconds']/n*1e3:12.1f} {c['user_seconds']/n:10.3f} {a['fresh_bytes']/n/2**20:12.1f} "
      f"{a['unmaps']/n:10.1f} {a['fallbacks']:10d}")
PY
  done
done
echo "results and configs in $work"
