#!/usr/bin/env bash
# Runs on the GPU machine (its CPUs only), from the repository root, over .devcarry/dist
# (scripts/device/pack.sh): the CPU side of a change in one command, alternating wherever two
# builds are compared, every proof verified (bench_compare.py prints its table only then).
#   1. pacer_bench_kernels: G1 and G2 MSMs of 2^KERNEL_LG points on all threads and on 2, each
#      build in turn, ROUNDS times (best of 5 per run);
#   2. one-shot `pacer prove` with the defaults at each of SIZES: this build, the OTHER build
#      (when given) and rapidsnark (RAPIDSNARK, default .devcarry/rapidsnark), RUNS each;
#   3. the same on two cores of this host (`taskset -c 0,1`; Pacer's pool follows the affinity
#      mask), this build against rapidsnark, TWO_CORE_RUNS each (0: skipped).
# OTHER is a folder laid out as dist (bin/, lib/, lib/pacer/): an older build to compare with.
#   OTHER=.devcarry/old SIZES="13 15 18" RUNS=7 scripts/device/cpu_ab.sh
# Everything goes to $OUT/cpu_ab.log.
set -uo pipefail
source "$(dirname "$0")/env.sh"
P=$dist/bin/pacer
other=${OTHER:-}
[ -n "$other" ] && other=$(cd "$other" && pwd)
rapidsnark=${RAPIDSNARK:-$root/.devcarry/rapidsnark}
work=${WORK:-$(mktemp -d)}
export XDG_CACHE_HOME=$work/cache
curve=${CURVE:-bn254}

kernels() {  # kernels BUILD_DIR THREADS
  LD_LIBRARY_PATH="$1/lib" PACER_BENCH_ONLY=g1,g2 PACER_BENCH_CURVE=$curve \
    "$1/bin/pacer_bench_kernels" "${KERNEL_LG:-13}" "$2" 5 2>&1 | grep MSM
}
{
  lscpu | grep -E "Model name|^CPU\(s\)"
  grep -o -m1 avx512ifma /proc/cpuinfo || echo "no avx512ifma"
  for r in $(seq "${ROUNDS:-3}"); do
    for build in ${other:+"$other"} "$dist"; do
      for t in $(printf '%s\n' "$(nproc)" 2 | sort -un); do echo "--- kernels round $r, $t threads, $build"; kernels "$build" "$t"; done
    done
  done
  for lg in ${SIZES:-13 15 18}; do
    k=$work/c$lg
    small_key "$lg" "$k"
    others=()
    [ -n "$other" ] && others+=(--other "other=env LD_LIBRARY_PATH=$other/lib PACER_PLUGIN_PATH=$other/lib/pacer $other/bin/pacer prove --zkey {zkey} --witness {witness} --proof {proof} --public {public}")
    [ -x "$rapidsnark" ] && others+=(--other "rapidsnark=$rapidsnark {zkey} {witness} {proof} {public}")
    echo "=== one-shot 2^$lg, all cores $(date -u +%H:%M:%S)"
    python3 "$root/scripts/bench_compare.py" --pacer "$P" --zkey "$k.zkey" --witness "$k.wtns" --vkey "$k.json" \
      --runs "${RUNS:-7}" "${others[@]}" 2>&1 | sed -n '/: OK$\|FAILED\|^|/p'
    if [ "${TWO_CORE_RUNS:-3}" -gt 0 ] && [ -x "$rapidsnark" ]; then
      echo "=== one-shot 2^$lg, taskset -c 0,1 $(date -u +%H:%M:%S)"
      taskset -c 0,1 python3 "$root/scripts/bench_compare.py" --pacer "$P" --zkey "$k.zkey" --witness "$k.wtns" \
        --vkey "$k.json" --runs "${TWO_CORE_RUNS:-3}" --other "rapidsnark=$rapidsnark {zkey} {witness} {proof} {public}" 2>&1 |
        sed -n '/: OK$\|FAILED\|^|/p'
    fi
  done
} 2>&1 | tee "$OUT/cpu_ab.log"
