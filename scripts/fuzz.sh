#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan, -DPACER_FUZZ=ON) into their own
# folder and runs each for a while, one after another, with corpora seeded from the shipped
# fixtures and configs. A crash, a hang (-timeout), an out-of-memory (-rss_limit_mb, and
# -malloc_limit_mb for a single huge allocation) or a sanitizer report stops that target and fails
# the script; the input that did it is kept in <build>/artifacts/<target>/.
#   scripts/fuzz.sh [SECONDS] [TARGET ...]     SECONDS per target (default 600); targets: zkey wtns
#                                              r1cs config serve elf (default: all)
#   FUZZ_BUILD_DIR  build folder (default build-fuzz); the corpora grow in <build>/corpus/<target>
#   FUZZ_NICE       nice level of the fuzzers (default 10: other people use these cores)
# Prints each target's final libFuzzer stats (executions, cov, ft, corpus) and keeps the whole
# log in <build>/logs/<target>.log: docs/reliability.md records them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-600}
shift $(( $# > 0 ? 1 : 0 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(zkey wtns r1cs config serve elf)
build=${FUZZ_BUILD_DIR:-build-fuzz}

command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (Debian: apt-get install clang libclang-rt-dev)" >&2; exit 1; }
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DPACER_FUZZ=ON -DPACER_CUDA=OFF \
  -DPACER_BUILD_TESTS=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]/#/fuzz_}"

declare -A seeds=([zkey]="examples/circuits/*/*/circuit.zkey" [wtns]="examples/circuits/*/*/witness.wtns"
                  [r1cs]="examples/circuits/*/*/circuit.r1cs" [config]="examples/configs/*.toml"
                  [serve]="tests/fuzz/seeds/serve/*" [elf]="tests/fuzz/seeds/elf/*")
# Inputs up to these sizes: the small fixtures whole, the large ones cut (a prefix is still a
# valid start of a file), so that each run tries many inputs; configs up to past their limit.
# Requests: a header up to its 16 KiB limit and a small witness body, or a few pipelined requests.
declare -A max_len=([zkey]=16384 [wtns]=32768 [r1cs]=32768 [config]=70000 [serve]=20000 [elf]=65536)

failed=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"; artifacts="$build/artifacts/$t"; log="$build/logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  # shellcheck disable=SC2086
  cp -n ${seeds[$t]} "$corpus/" 2>/dev/null || true
  for f in tests/fuzz/regressions/"$t"/*; do [ -f "$f" ] && cp -n "$f" "$corpus/"; done
  dict=(); [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  echo "=== fuzz_$t: ${seconds} s, corpus $corpus ($(ls "$corpus" | wc -l) inputs)"
  rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  nice -n "${FUZZ_NICE:-10}" "$build/bin/fuzz_$t" "$corpus" "${dict[@]}" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len="${max_len[$t]}" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" >"$log" 2>&1 || rc=$?
  grep -E '^(stat::|Done )|#[0-9]+.*DONE' "$log" | tail -n 12 || true
  if [ $rc -ne 0 ]; then
    echo "fuzz_$t FAILED (exit $rc): see $log and $artifacts/" >&2
    grep -E 'ERROR|SUMMARY|deadly|timeout|out-of-memory' "$log" | head -n 5 >&2 || true
    failed=1
  fi
done
exit $failed
