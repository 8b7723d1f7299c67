#!/usr/bin/env bash
# Runs on the GPU machine (its CPUs only), from the repository root, over .devcarry/dist
# (scripts/device/pack.sh): where a one-shot `pacer prove` of a small key spends its wall time.
#   For each log size in SIZES (default "13"): a synthetic bn128 key (gen-circuit + setup --insecure),
#   then `pacer prove` with the defaults and a debug log (stage times, key residency), RUNS times
#   (default 5) under /usr/bin/time, for each pool size in THREADS (default "16 8 4 2"); `pacer
#   --version` (process start alone); pacer_bench_kernels at the same size with 16 and 2 threads;
#   lscpu (cores against hardware threads decides what 16 threads are worth).
# Everything goes to $OUT/small_proof.log.
set -uo pipefail
source "$(dirname "$0")/env.sh"
work=${WORK:-$(mktemp -d)}
P=$dist/bin/pacer
export XDG_CACHE_HOME=$work/cache
log() { echo "=== $(date -u +%H:%M:%S) $*"; }
{
  lscpu | grep -Ei "model name|^cpu\(s\)|thread|core|socket|mhz" 
  log "pacer --version x5 (process start, libraries, no plugins)"
  for i in 1 2 3 4 5; do /usr/bin/time -f "wall %e s cpu %U+%S s" "$P" --version 2>&1 >/dev/null; done
  for lg in ${SIZES:-13}; do
    k=$work/c$lg
    small_key "$lg" "$k"
    for t in ${THREADS:-16 8 4 2}; do
      printf '[host]\nthreads = %s\nlog_level = "debug"\n' "$t" >"$work/t$t.toml"
      log "2^$lg, threads = $t"
      for i in $(seq "${RUNS:-5}"); do
        /usr/bin/time -f "wall %e s cpu %U+%S s rss %M kB" "$P" prove --config "$work/t$t.toml" --zkey "$k.zkey" \
          --witness "$k.wtns" --proof "$work/p.json" --public "$work/u.json" 2>&1 |
          grep -E "resident|proof 1/1|wall" | sed -E 's/^\[[0-9:.]+\] //; s/\(record [^,]*, /(/'
      done
    done
    log "2^$lg defaults (no config), x${RUNS:-5}"
    for i in $(seq "${RUNS:-5}"); do
      /usr/bin/time -f "wall %e s cpu %U+%S s rss %M kB" "$P" prove --zkey "$k.zkey" --witness "$k.wtns" \
        --proof "$work/p.json" --public "$work/u.json" 2>&1 | grep wall
    done
    "$P" verify --vkey "$k.json" --proof "$work/p.json" --public "$work/u.json" && echo "pacer verify: OK"
    for t in 16 2; do
      log "pacer_bench_kernels $lg $t 5"
      "$dist/bin/pacer_bench_kernels" "$lg" "$t" 5 2>&1 | grep -E "bn254|threads"
    done
  done
  log done
} 2>&1 | tee "$OUT/small_proof.log"
