# What the hostile-input scripts share (sourced after common.sh): refuse, which runs one
# command that must be refused, and the fixtures copied per case.
# shellcheck shell=bash

MUL3_BN=$(fixture mul3:bn128); MUL3_BLS=$(fixture mul3:bls12381)
# Sanitizer builds run several times slower: the time limit scales with them.
# (ldd's output is captured first: `ldd | grep -q` fails under pipefail when grep exits early.)
LIBS=$(ldd "$PACER" 2>/dev/null || true)
ASAN=0; case "$LIBS" in *libasan*) ASAN=1;; esac
LIMIT_S=4
if [ $ASAN -eq 1 ]; then LIMIT_S=12; fi
PREFIX=()      # a command that runs pacer (env, ulimit), empty for none
INPUTS=()      # files that must keep every byte
OUTPUTS=()     # paths that must not exist afterwards

# refuse CASE NEEDLE pacer-args...
refuse() {
  local name=$1 needle=$2; shift 2
  local out="$WORK/runs/$name" rc=0 before after t0 elapsed ok=1
  mkdir -p "$out"
  before=$(sha256sum "${INPUTS[@]}")
  t0=$(date +%s%N)
  # A hang is killed after 30 s and reported as one (exit 124).
  timeout -k 5 30 "${PREFIX[@]}" "$PACER" "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
  elapsed=$(( ($(date +%s%N) - t0) / 1000000 ))
  after=$(sha256sum "${INPUTS[@]}")
  local nlines last
  nlines=$(grep -vc '^\[[0-9:.]*\] \[' "$out/stderr" || true)
  last=$(tail -n 1 "$out/stderr")
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then fail "$name: pacer hung (killed after 30 s)"; ok=0
  elif [ $rc -ge 128 ]; then fail "$name: pacer crashed (exit $rc)"; ok=0
  elif [ $rc -ne 2 ]; then fail "$name: exit $rc, want 2"; ok=0; fi
  if [ "$nlines" -ne 1 ]; then fail "$name: $nlines lines on stderr, want exactly 1 besides log lines"; ok=0; fi
  if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$out/stderr"; then
    fail "$name: control bytes on stderr (an escape sequence would reach the terminal)"; ok=0
  fi
  case "$last" in "pacer: error: "*"$needle"*) ;; *) fail "$name: the error is not 'pacer: error: ...$needle...'"; ok=0;; esac
  if [ "$elapsed" -gt $((LIMIT_S * 1000)) ]; then fail "$name: took $elapsed ms, more than $LIMIT_S s"; ok=0; fi
  if [ "$before" != "$after" ]; then fail "$name: an input changed"; diff <(echo "$before") <(echo "$after") || true; ok=0; fi
  local o
  for o in "${OUTPUTS[@]}"; do
    if [ -e "$o" ]; then fail "$name: output $o was written"; ok=0; fi
    if compgen -G "$(dirname "$o")/.*.tmp" >/dev/null; then fail "$name: a temporary file was left in $(dirname "$o")"; ok=0; fi
  done
  if [ $ok -eq 1 ]; then pass "$name: exit 2 in $elapsed ms, $last"
  else echo "    command: ${PREFIX[*]} pacer $*"; show_output "$out"; fi
}

# Copies of the mul3 bn128 fixtures and the default config into folder $1 (inputs of a case).
inputs_in() {
  mkdir -p "$1"
  cp "$MUL3_BN/circuit.zkey" "$MUL3_BN/witness.wtns" "$MUL3_BN/circuit.r1cs" "$1/"
  cp "$CONFIG" "$1/config.toml"
  INPUTS=("$1/circuit.zkey" "$1/witness.wtns" "$1/circuit.r1cs" "$1/config.toml")
}

