#!/usr/bin/env bash
# The scheduler x allocator x jobs sweep: `pacer bench` once per combination, each run
# under `timeout`, results as summary JSON + trace per run, then one table (scripts/sweep_table.py).
# Resumable, so a long sweep runs as several device calls of at most 10 minutes each: a run whose
# summary exists is skipped, and no run starts that could end past --budget seconds.
#
#   scripts/sweep.sh --zkey K.zkey --witness W.wtns [--pacer build/bin/pacer] [--out sweep-out]
#       [--schedulers "greedy throttled staggered adaptive"] [--allocators "plain thp hugetlb pooled"]
#       [--jobs "1 4 16"] [--proofs 32] [--run-timeout 120] [--budget 540] [--threads 0]
#       [--bench-args '--read-witness']   more options for every `pacer bench`
#       [--verify 1]   every proof checked by the native verifier ([host] verify_proofs)
#       [--extra-toml 'TOML']   appended to every config, e.g. a [backend] and [staging] for cuda:
#       --extra-toml $'[backend]\nplugin = "cuda"\nparams = { g2 = "gpu" }\n[staging]\nplugin = "cuda_pinned"'
#
# The keys a sweep uses come from `pacer setup`: configs set [host] check_key_subgroups = false so
# that every run's key load is not dominated by the subgroup check (seconds at 2^20, docs/verify.md).
#
# An allocator or scheduler this build lacks (pacer plugins) is skipped with a note. A run that
# times out leaves no summary and is retried by the next call. Every config written is kept in
# --out beside its results, so a figure can be reproduced with the command in its summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pacer="$root/build/bin/pacer" out=sweep-out zkey= witness=
schedulers="greedy throttled staggered adaptive" allocators="plain thp hugetlb pooled" jobs="1 4 16"
proofs=32 run_timeout=120 budget=540 threads=0 extra_toml= bench_args= verify=0
while [ $# -gt 0 ]; do
  case "$1" in
    --pacer) pacer=$2 ;; --out) out=$2 ;; --zkey) zkey=$2 ;; --witness) witness=$2 ;;
    --schedulers) schedulers=$2 ;; --allocators) allocators=$2 ;; --jobs) jobs=$2 ;; --proofs) proofs=$2 ;;
    --run-timeout) run_timeout=$2 ;; --budget) budget=$2 ;; --threads) threads=$2 ;; --extra-toml) extra_toml=$2 ;;
    --bench-args) bench_args=$2 ;; --verify) verify=$2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "sweep.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift 2
done
[ -n "$zkey" ] && [ -n "$witness" ] || { echo "sweep.sh: give --zkey and --witness (see --help)" >&2; exit 2; }
[ -x "$pacer" ] || { echo "sweep.sh: no pacer at $pacer (build first, or --pacer PATH)" >&2; exit 2; }
mkdir -p "$out"
available=$("$pacer" plugins 2>/dev/null | awk '$NF == "loaded" { print $1 ":" $2 }')

# The scheduler's params for the sweep: one static setting each; adaptive takes none.
sched_params() {
  case "$1" in
    throttled) echo 'params = { membw_tokens = 2 }' ;;
    *) echo 'params = {}' ;;
  esac
}

start=$(date +%s) pending=0
for s in $schedulers; do
  grep -qx "scheduler:$s" <<<"$available" || { echo "skip: scheduler $s is not in this build"; continue; }
  for a in $allocators; do
    grep -qx "allocator:$a" <<<"$available" || { echo "skip: allocator $a is not in this build"; continue; }
    for j in $jobs; do
      name="$s-$a-j$j"
      [ -s "$out/$name.json" ] && continue
      if [ $(( $(date +%s) - start + run_timeout )) -gt "$budget" ]; then pending=$((pending + 1)); continue; fi
      printf '[host]\nthreads = %s\nlog_level = "warn"\ncheck_key_subgroups = false\nverify_proofs = %s\n[allocator]\nplugin = "%s"\n[scheduler]\nplugin = "%s"\n%s\n%s\n' \
        "$threads" "$( [ "$verify" = 1 ] && echo true || echo false)" "$a" "$s" "$(sched_params "$s")" "$extra_toml" >"$out/$name.toml"
      echo "run: $name"
      rc=0
      timeout --kill-after=10 "$run_timeout" "$pacer" bench --config "$out/$name.toml" --zkey "$zkey" \
        --witness "$witness" --proofs "$proofs" --jobs "$j" --warmup "$j" --json "$out/$name.json.tmp" \
        --trace "$out/$name.trace.json" $bench_args >"$out/$name.txt" 2>"$out/$name.err" || rc=$?
      if [ $rc -eq 0 ]; then mv "$out/$name.json.tmp" "$out/$name.json"
      else echo "  failed (exit $rc; $( [ $rc -eq 124 ] && echo "over --run-timeout $run_timeout s" || head -c 200 "$out/$name.err"))"; fi
    done
  done
done
python3 "$root/scripts/sweep_table.py" "$out"
if [ "$pending" -gt 0 ]; then echo "$pending runs left for the next call (same command)"; exit 3; fi
