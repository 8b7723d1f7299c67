#!/usr/bin/env bash
# Configures (Ninja, Release) and builds Pacer with all cores.
#   BUILD_DIR   build folder, relative to the repository root (default: build)
#   BUILD_TYPE  CMake build type (default: Release)
# Extra arguments go to the CMake configure step, e.g. scripts/build.sh -DPACER_CUDA=OFF
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@"
cmake --build "$build_dir" --parallel "$(nproc)"
