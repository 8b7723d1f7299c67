# Sourced by the device scripts that run on the GPU machine: from the repository root, over the
# build that scripts/device/pack.sh carried to .devcarry/dist; logs under $OUT.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
dist=$root/.devcarry/dist
export LD_LIBRARY_PATH="$dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PACER_PLUGIN_PATH="$dist/lib/pacer"
OUT=${OUT:-/tmp/pacer-out}
mkdir -p "$OUT"
