#!/usr/bin/env bash
# Sets up, builds and runs every test (unit, plugin and integration tests, through ctest).
# Builds the target pacer_tests (the host, its plugins and everything ctest runs; not the benchmark
# programs); BUILD_TARGET=all builds everything.
#   BUILD_DIR as for scripts/build.sh (default: build). Extra arguments go to ctest,
#   e.g. scripts/test.sh -L integration   or   scripts/test.sh -R 'unit: '
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}

scripts/install_deps.sh
t0=$SECONDS
BUILD_TARGET=${BUILD_TARGET:-pacer_tests} scripts/build.sh
echo "::: build took $((SECONDS - t0)) s"
cd "$build_dir"
ctest --output-on-failure -j2 --timeout 600 "$@"
