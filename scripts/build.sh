#!/usr/bin/env bash
# Configures (Ninja, Release) and builds Pacer with all cores.
#   BUILD_DIR   build folder, relative to the repository root (default: build)
#   BUILD_TYPE  CMake build type (default: Release)
#   BUILD_TARGET  one target to build instead of everything (run_example.sh: pacer_host_and_plugins)
# Extra arguments go to the CMake configure step, e.g. scripts/build.sh -DPACER_CUDA=OFF
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@"
cmake --build "$build_dir" --parallel "$(nproc)" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
