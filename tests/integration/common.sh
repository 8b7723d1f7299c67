# Shared helpers for the integration tests (sourced, not run). Every test script takes
#   <path to pacer> <source dir> [case ...]
# so it runs the same from ctest and by hand, e.g.
#   tests/integration/prove_verify.sh build/bin/pacer . mul3:bn128
# With no case it runs every case it knows. Exit 0 = all passed, 1 = a failure (never "skipped").

set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 <path to pacer> <source dir> [case ...]" >&2; exit 1; }
PACER=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
shift 2
CASES=("$@")

ORACLE="$SRC/tests/oracle"
SNARKJS="$ORACLE/node_modules/.bin/snarkjs"
# PACER_IT_CONFIG: another config to run the same checks with (e.g. each allocator).
CONFIG="${PACER_IT_CONFIG:-$SRC/examples/configs/default.toml}"
CIRCUITS="$SRC/examples/circuits"
# Every shipped fixture, as name:curve.
ALL_CIRCUITS=(mul3:bn128 mul3:bls12381 chain:bn128 chain:bls12381 nopub:bn128 poseidon3:bn128 poseidon3:bls12381)

# Plugins of *this* build (bin/pacer -> lib/pacer), so a test never picks up another build's.
export PACER_PLUGIN_PATH="$(dirname "$(dirname "$PACER")")/lib/pacer${PACER_PLUGIN_PATH:+:$PACER_PLUGIN_PATH}"

# A scratch dir per run; also the cwd, so relative paths in a config never reach into the
# source tree's own build/ folder.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pacer-it.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

FAILED=0
fail() { echo "FAIL: $*" >&2; FAILED=1; }
pass() { echo "ok: $*"; }
finish() { if [ "$FAILED" -ne 0 ]; then echo "SOME CHECKS FAILED" >&2; exit 1; fi; echo "all checks passed"; }

need_file() { [ -e "$1" ] || { echo "FAIL: missing $1${2:+ ($2)}" >&2; exit 1; }; }
need_pacer() { [ -x "$PACER" ] || { echo "FAIL: pacer binary not found at $PACER (build first: scripts/build.sh)" >&2; exit 1; }; }
need_config() { need_file "$CONFIG" "the default config"; }
need_snarkjs() {
  [ -x "$SNARKJS" ] || {
    echo "FAIL: snarkjs is not installed ($SNARKJS missing)." >&2
    echo "      Run scripts/install_deps.sh (or: cd tests/oracle && npm ci --no-audit --no-fund)." >&2
    exit 1; }
}
# Node is found via PATH; fail clearly if it is not there.
need_node() { command -v node >/dev/null || { echo "FAIL: node is not on PATH (scripts/install_deps.sh)" >&2; exit 1; }; }

# fixture dir of name:curve
fixture() { echo "$CIRCUITS/${1%%:*}/${1##*:}"; }

# run_pacer OUTDIR args...: runs pacer, keeps stdout/stderr in OUTDIR, returns its exit code.
run_pacer() {
  local out=$1; shift
  mkdir -p "$out"
  local rc=0
  "$PACER" "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
  return $rc
}
show_output() { local out=$1; echo "--- pacer stdout"; cat "$out/stdout" 2>/dev/null || true
                echo "--- pacer stderr"; cat "$out/stderr" 2>/dev/null || true; echo "---"; }

# snarkjs_verify VKEY PUBLIC PROOF LOG: exit code of `snarkjs groth16 verify`, output in LOG.
snarkjs_verify() {
  local rc=0
  "$SNARKJS" groth16 verify "$1" "$2" "$3" >"$4" 2>&1 || rc=$?
  return $rc
}

# json_equal A B: same JSON value (formatting aside).
json_equal() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY
}

cases_or() { if [ ${#CASES[@]} -gt 0 ]; then printf '%s\n' "${CASES[@]}"; else printf '%s\n' "$@"; fi; }
