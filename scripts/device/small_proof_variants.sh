#!/usr/bin/env bash
# Runs on the GPU machine (its CPUs only), from the repository root, over .devcarry/dist
# (scripts/device/pack.sh): one-shot `pacer prove` of small keys with the defaults against
# variants that may shorten it on many threads, alternating in one bench_compare.py run each,
# with rapidsnark (RAPIDSNARK, default .devcarry/rapidsnark) as the anchor:
#   wC       [backend.params] msm_window = C (narrower windows: more, shorter MSM tasks)
#   pooled   the pooled allocator, which `pacer prove` of one proof replaces by plain pages
#   tunables glibc's malloc keeping freed scratch (GLIBC_TUNABLES mmap and trim thresholds)
# then `pacer_bench_kernels` G1/G2 MSMs per window width on all threads.
#   SIZES="13 15" RUNS=11 WINDOWS_13="9 10 11" WINDOWS_15="10 11 12 13" scripts/device/small_proof_variants.sh
# Everything goes to $OUT/small_proof_variants.log.
set -uo pipefail
source "$(dirname "$0")/env.sh"
P=$dist/bin/pacer
work=${WORK:-$(mktemp -d)}
rapidsnark=${RAPIDSNARK:-$root/.devcarry/rapidsnark}
export XDG_CACHE_HOME=$work/cache
tunables="glibc.malloc.mmap_threshold=8388608:glibc.malloc.trim_threshold=268435456"
printf '[allocator]\nplugin = "pooled"\n' >"$work/pooled.toml"
prove_with() { echo "$1=$2 $P prove $3 --zkey {zkey} --witness {witness} --proof {proof} --public {public}"; }
{
  lscpu | grep -E "Model name|^CPU\(s\)"
  for lg in ${SIZES:-13 15}; do
    k=$work/c$lg
    small_key "$lg" "$k"
    windows_var=WINDOWS_$lg
    others=()
    for c in ${!windows_var:-}; do
      printf '[backend]\nplugin = "cpu"\n[backend.params]\nmsm_window = %s\n' "$c" >"$work/w$c.toml"
      others+=(--other "$(prove_with "w$c" "" "--config $work/w$c.toml")")
    done
    others+=(--other "$(prove_with pooled "" "--config $work/pooled.toml")")
    others+=(--other "$(prove_with tunables "env GLIBC_TUNABLES=$tunables" "")")
    [ -x "$rapidsnark" ] && others+=(--other "rapidsnark=$rapidsnark {zkey} {witness} {proof} {public}")
    echo "=== 2^$lg $(date -u +%H:%M:%S)"
    python3 "$root/scripts/bench_compare.py" --pacer "$P" --zkey "$k.zkey" --witness "$k.wtns" --vkey "$k.json" \
      --runs "${RUNS:-11}" "${others[@]}" 2>&1 | sed -n '/^| prover/,$p'
    for c in 0 ${!windows_var:-}; do
      echo "--- pacer_bench_kernels $lg, all threads, window ${c/#0/by the cost model}"
      PACER_BENCH_MSM_WINDOW=$c PACER_BENCH_ONLY=g1,g2 PACER_BENCH_CURVE=bn254 "$dist/bin/pacer_bench_kernels" "$lg" "$(nproc)" 5 |
        grep MSM
    done
  done
} 2>&1 | tee "$OUT/small_proof_variants.log"
