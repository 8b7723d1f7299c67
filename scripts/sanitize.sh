#!/usr/bin/env bash
# The ASan/UBSan job: builds with -DPACER_SANITIZE=ON into build-asan (override with BUILD_DIR)
# what the tests run (target pacer_tests: no benchmark programs, no CUDA) and runs the tests there.
# Extra arguments go to ctest (default: every test), e.g.
#   scripts/sanitize.sh -R 'unit: '
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export BUILD_DIR=${BUILD_DIR:-build-asan}
export BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}

scripts/install_deps.sh
# -O1 -g1: line numbers in reports, asserts kept (no NDEBUG), and a much cheaper compile than -O2
# under ASan.
# No CUDA here: the CUDA runtime and ASan's shadow memory do not mix, CI has no GPU to run it on,
# and the Release job already compiles the CUDA code.
t0=$SECONDS
BUILD_TARGET=${BUILD_TARGET:-pacer_tests} \
  scripts/build.sh -DPACER_SANITIZE=ON -DPACER_CUDA=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1"
echo "::: build took $((SECONDS - t0)) s"
# Any report fails the test; print stacks for UBSan too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$BUILD_DIR"
ctest --output-on-failure -j2 --timeout 900 "$@"
