# Sourced by the device scripts that run on the GPU machine: from the repository root, over the
# build that scripts/device/pack.sh carried to .devcarry/dist; logs under $OUT.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
dist=$root/.devcarry/dist
export LD_LIBRARY_PATH="$dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PACER_PLUGIN_PATH="$dist/lib/pacer"
OUT=${OUT:-/tmp/pacer-out}
mkdir -p "$OUT"

# small_key LG BASE: a synthetic bn128 key whose domain is 2^LG, nearly full (BASE.r1cs, .wtns,
# .zkey, .json), and one proof with it, so that the timed runs after it find the key's check
# record (what a user's second run finds).
small_key() {
  local lg=$1 base=$2
  "$dist/bin/pacer" gen-circuit --constraints $(((1 << lg) - (1 << lg) / 64)) --r1cs "$base.r1cs" --witness "$base.wtns" >/dev/null 2>&1
  "$dist/bin/pacer" setup --insecure --r1cs "$base.r1cs" --zkey "$base.zkey" --vkey "$base.json" >/dev/null 2>&1
  "$dist/bin/pacer" prove --zkey "$base.zkey" --witness "$base.wtns" --proof "$base.p.json" --public "$base.u.json" >/dev/null 2>&1
}
