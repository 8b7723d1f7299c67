#!/usr/bin/env bash
# One command for the CLI comparison against rapidsnark that docs/benchmarks.md tabulates: for each
# domain size, a synthetic bn128 circuit and key (pacer gen-circuit, pacer setup --insecure; made
# once and kept in $WORK), then scripts/bench_compare.py (alternating runs, medians, the last proof
# of each prover verified, peak RSS of each run), and one Markdown table of all sizes.
#
#   RAPIDSNARK=/path/to/rapidsnark/prover scripts/bench_rapidsnark.sh [sizes...]   (default: 13 15 18 20)
#
# Environment: RAPIDSNARK (required: rapidsnark's `prover` binary, built outside this repository),
# PACER (default build/bin/pacer), WORK (keys and proofs; default /tmp/pacer-vs-rapidsnark),
# RUNS (default 5; 3 at 2^20 and above), OUT (the table; default $WORK/table.md).
# Pacer runs with its defaults (no config file), as a user's first command would. Its key-check
# records go to a cache folder of this run ($WORK/cache), made fresh, so the first run of each size
# pays the key's subgroup check and the later ones use its record.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${RAPIDSNARK:?set RAPIDSNARK to the path of the rapidsnark prover binary}"
PACER=${PACER:-$ROOT/build/bin/pacer}
WORK=${WORK:-/tmp/pacer-vs-rapidsnark}
OUT=${OUT:-$WORK/table.md}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(13 15 18 20)
mkdir -p "$WORK"
rm -rf "$WORK/cache"
export XDG_CACHE_HOME=$WORK/cache

{
  echo "| size | runs | pacer median (min) | rapidsnark median (min) | pacer / rapidsnark | pacer peak RSS | rapidsnark peak RSS | CPU time pacer / rapidsnark |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$OUT.rows"
for log in "${SIZES[@]}"; do
  c=$WORK/c$log
  # Constraints a little under the domain: the domain is the next power of two above constraints +
  # public inputs.
  constraints=$(( (1 << log) - (1 << log) / 64 ))
  if [ ! -s "$c.zkey" ]; then
    "$PACER" gen-circuit --constraints "$constraints" --r1cs "$c.r1cs" --witness "$c.wtns" >/dev/null
    "$PACER" setup --insecure --r1cs "$c.r1cs" --zkey "$c.zkey" --vkey "$c.json" >/dev/null
  fi
  runs=${RUNS:-$([ "$log" -ge 20 ] && echo 3 || echo 5)}
  python3 "$ROOT/scripts/bench_compare.py" --pacer "$PACER" --zkey "$c.zkey" --witness "$c.wtns" --vkey "$c.json" \
    --runs "$runs" --json "$c.result.json" --keep "$WORK/proofs$log" \
    --other rapidsnark="$RAPIDSNARK {zkey} {witness} {proof} {public}"
  python3 - "$c.result.json" "$log" "$runs" >>"$OUT.rows" <<'EOF'
import json, sys
r = {p["prover"]: p for p in json.load(open(sys.argv[1]))["provers"]}
p, o = r["pacer"], r["rapidsnark"]
print(f"| 2^{sys.argv[2]} | {sys.argv[3]} | {p['median_wall_s']:.3f} s ({p['min_wall_s']:.3f}) "
      f"| {o['median_wall_s']:.3f} s ({o['min_wall_s']:.3f}) | **{p['median_wall_s'] / o['median_wall_s']:.2f}** "
      f"| {p['max_rss_mb']:.0f} MB | {o['max_rss_mb']:.0f} MB | {p['median_cpu_s']:.2f} s / {o['median_cpu_s']:.2f} s |")
EOF
done
{
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), pacer $(git -C "$ROOT" rev-parse --short HEAD)"
  echo
  cat "$OUT.rows"
} >"$OUT"
rm -f "$OUT.rows"
cat "$OUT"
