#!/usr/bin/env bash
# Proofs from input.json (docs/fullprove.md): circom's .wasm and --c folder compiled to native
# code, against snarkjs as the oracle.
#   fullprove.sh <pacer> <source dir> [case ...]
# Cases:
#   circuit:NAME:CURVE  pacer witness gives the shipped witness.wtns byte for byte, and for a
#                       second input the bytes `snarkjs wtns calculate` writes; pacer prove --wasm
#                       --input gives a proof snarkjs accepts and the shipped public.json;
#                       --witness-out is the witness again
#   cpp:CURVE           the same through a circom --c folder made here by circom2
#   bad_inputs          every kind of bad input.json, a failing circuit assert, a recursion too deep
#                       for the stack: exit 2, one line naming the file and signal (or template and
#                       line, or the trap), no proof or witness written
#   bad_generators      a truncated .wasm, a .wasm that is no circom generator, a C++ folder that
#                       does not compile, an unwritable cache dir: exit 2, one line, nothing cached
#   cache               warm runs do not compile, a file changed in place is compiled again, two
#                       processes compile once, an interrupted build leaves nothing that loads,
#                       and --compile-only leaves what a machine without compilers runs
#   stage               pacer bench --wasm --input: witness generation is a stage in the trace
#   rapidsnark_cli      rapidsnark's positional form: pacer prove K.zkey W.wtns proof.json public.json
# Generators of the shipped circuits compile once per build folder (<build>/test-witness-cache).
source "$(dirname "$0")/common.sh"
need_pacer
need_snarkjs
need_node

CIRCOM2="$ORACLE/node_modules/.bin/circom2"
SHARED_CACHE="$(dirname "$(dirname "$PACER")")/test-witness-cache"
export XDG_CACHE_HOME="$WORK/xdg"  # never the user's cache: every run names its cache dir

# circom2 (WASI) sees only its working tree: compile circuit $1 (a .circom path) for curve $2 into
# $3 with the flags after, inside a copy.
circom2_compile() {
  local src=$1 curve=$2 out=$3; shift 3
  local name tree; name=$(basename "$src" .circom); tree=$(mktemp -d "$WORK/circom.XXXXXX")
  mkdir -p "$tree/out"
  cp "$src" "$tree/$name.circom"
  (cd "$tree" && "$CIRCOM2" "$name.circom" --prime "$curve" -o out "$@" >"$name.log" 2>&1) ||
    { cat "$tree/$name.log"; return 1; }
  mkdir -p "$out"; cp -r "$tree/out/." "$out/"
}

# A second input: every number of input.json plus one.
second_input() {
  python3 - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
bump = lambda v: [bump(x) for x in v] if isinstance(v, list) else str(int(v) + 1)
json.dump({k: bump(v) for k, v in doc.items()}, open(sys.argv[2], "w"))
PY
}

# expect_refusal OUT FRAGMENT: pacer exited 2 with one "pacer: error:" line containing FRAGMENT.
expect_refusal() {
  local out=$1 fragment=$2 what=$3 rc=$4
  local errors; errors=$(grep -c '^pacer: error:' "$out/stderr" || true)
  if [ "$rc" -eq 2 ] && [ "$errors" -eq 1 ] && grep -q '^pacer: error:.*'"$fragment" "$out/stderr"; then
    pass "$what: exit 2, $(grep '^pacer: error:' "$out/stderr" | cut -c1-160)"
  else
    fail "$what: expected exit 2 and one error line with '$fragment', got exit $rc"; show_output "$out"
  fi
}

case_circuit() {
  local spec=$1 name=${1#*:}; name=${name%%:*}; local curve=${1##*:}
  local dir; dir=$(fixture "$name:$curve"); local out="$WORK/$name-$curve"; mkdir -p "$out"
  need_file "$dir/circuit.wasm" "the shipped generator"
  local rc=0
  run_pacer "$out/w1" witness --wasm "$dir/circuit.wasm" --input "$CIRCUITS/$name/input.json" \
    --out "$out/w1.wtns" --cache-dir "$SHARED_CACHE" || rc=$?
  if [ $rc -eq 0 ] && cmp -s "$out/w1.wtns" "$dir/witness.wtns"; then pass "$name/$curve: pacer witness = snarkjs's witness.wtns"
  else fail "$name/$curve: pacer witness (exit $rc) differs from witness.wtns"; show_output "$out/w1"; fi

  second_input "$CIRCUITS/$name/input.json" "$out/input2.json"
  "$SNARKJS" wtns calculate "$dir/circuit.wasm" "$out/input2.json" "$out/snarkjs2.wtns" >"$out/snarkjs2.log" 2>&1 ||
    { fail "$name/$curve: snarkjs wtns calculate on the second input"; cat "$out/snarkjs2.log"; }
  rc=0
  run_pacer "$out/w2" witness --wasm "$dir/circuit.wasm" --input "$out/input2.json" --out "$out/w2.wtns" \
    --cache-dir "$SHARED_CACHE" || rc=$?
  if [ $rc -eq 0 ] && cmp -s "$out/w2.wtns" "$out/snarkjs2.wtns" && ! cmp -s "$out/w1.wtns" "$out/w2.wtns"; then
    pass "$name/$curve: a second input gives snarkjs's second witness"
  else fail "$name/$curve: second input (exit $rc): not snarkjs's bytes"; show_output "$out/w2"; fi

  rc=0
  run_pacer "$out/p" prove --config "$CONFIG" --zkey "$dir/circuit.zkey" --wasm "$dir/circuit.wasm" \
    --input "$CIRCUITS/$name/input.json" --proof "$out/proof.json" --public "$out/public.json" \
    --witness-out "$out/p.wtns" --cache-dir "$SHARED_CACHE" || rc=$?
  if [ $rc -eq 0 ] && snarkjs_verify "$dir/verification_key.json" "$out/public.json" "$out/proof.json" "$out/verify.log" &&
     json_equal "$out/public.json" "$dir/public.json" && cmp -s "$out/p.wtns" "$dir/witness.wtns"; then
    pass "$name/$curve: pacer prove --wasm --input: snarkjs accepts the proof; public.json and --witness-out as snarkjs's"
  else fail "$name/$curve: fullprove (exit $rc) not accepted or not snarkjs's public/witness"; show_output "$out/p"
    cat "$out/verify.log" 2>/dev/null || true; fi
}

case_cpp() {
  # circom's generated C++ (its calcwit runtime, not Pacer's code) leaves allocations behind that
  # LeakSanitizer reports at exit in sanitizer builds; the leak check is off for these cases only
  # (a separate process per case, so nothing else loses it). Memory errors are still reported.
  local ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export ASAN_OPTIONS
  local curve=$1; local out="$WORK/cpp-$curve"
  circom2_compile "$CIRCUITS/chain/circuit.circom" "$curve" "$out" --c --r1cs --sym ||
    { fail "cpp/$curve: circom2 --c"; return; }
  local dir; dir=$(fixture "chain:$curve"); local rc=0
  cmp -s "$out/circuit.r1cs" "$dir/circuit.r1cs" || fail "cpp/$curve: circom2 made another circuit than the shipped one"
  run_pacer "$out/w" witness --circuit-cpp "$out/circuit_cpp" --input "$CIRCUITS/chain/input.json" \
    --out "$out/w.wtns" --cache-dir "$SHARED_CACHE" || rc=$?
  if [ $rc -eq 0 ] && cmp -s "$out/w.wtns" "$dir/witness.wtns"; then pass "cpp/$curve: --circuit-cpp witness = snarkjs's"
  else fail "cpp/$curve: --circuit-cpp witness (exit $rc) differs"; show_output "$out/w"; fi
  rc=0
  run_pacer "$out/p" prove --config "$CONFIG" --zkey "$dir/circuit.zkey" --circuit-cpp "$out/circuit_cpp" \
    --input "$CIRCUITS/chain/input.json" --proof "$out/proof.json" --public "$out/public.json" \
    --cache-dir "$SHARED_CACHE" || rc=$?
  if [ $rc -eq 0 ] && snarkjs_verify "$dir/verification_key.json" "$out/public.json" "$out/proof.json" "$out/verify.log"; then
    pass "cpp/$curve: pacer prove --circuit-cpp: snarkjs accepts the proof"
  else fail "cpp/$curve: prove --circuit-cpp (exit $rc)"; show_output "$out/p"; fi
}

case_bad_inputs() {
  local dir; dir=$(fixture mul3:bn128); local out="$WORK/bad-inputs"; mkdir -p "$out"
  # refuse NAME FRAGMENT INPUT-TEXT [wasm]: prove refuses it, writes no proof.
  refuse() {
    local what=$1 fragment=$2 text=$3 wasm=${4:-$dir/circuit.wasm} rc=0
    printf '%s' "$text" >"$out/$what.json"
    run_pacer "$out/$what" prove --config "$CONFIG" --zkey "$dir/circuit.zkey" --wasm "$wasm" --input "$out/$what.json" \
      --proof "$out/$what-proof.json" --public "$out/$what-public.json" --cache-dir "$SHARED_CACHE" || rc=$?
    expect_refusal "$out/$what" "$fragment" "$what" $rc
    [ ! -e "$out/$what-proof.json" ] && [ ! -e "$out/$what-public.json" ] || fail "$what: a proof file was written"
  }
  refuse unknown_signal "unknown_signal.json: 'zz' is not an input signal" '{"a": 3, "b": 11, "c": 5, "zz": 1}'
  refuse wrong_count "signal 'b' takes 1 value, not 2" '{"a": 3, "b": [11, 12], "c": 5}'
  refuse not_a_number "signal 'c': value 0 \"five\" is not a number" '{"a": 3, "b": 11, "c": "five"}'
  refuse missing_named "2 of the circuit's 3 input values are missing: c, b" '{"a": 3}'
  refuse malformed "malformed.json: not valid JSON" '{"a": 3,'
  cp "$dir/circuit.wasm" "$out/nosym.wasm"  # no circuit.sym beside it: counted, not named
  refuse missing_counted "2 of the circuit's 3 input values are missing (put circom's .sym" '{"a": 3}' "$out/nosym.wasm"
  # --strict-inputs refuses what snarkjs would reduce mod p
  local rc=0
  printf '{"a": -3, "b": 11, "c": 5}' >"$out/negative.json"
  run_pacer "$out/strict" witness --wasm "$dir/circuit.wasm" --input "$out/negative.json" --out "$out/strict.wtns" \
    --strict-inputs --cache-dir "$SHARED_CACHE" || rc=$?
  expect_refusal "$out/strict" "signal 'a': value 0 (-3) is outside \[0, p)" "strict inputs" $rc
  [ ! -e "$out/strict.wtns" ] || fail "strict inputs: a witness was written"
  # Without it, -3 is p - 3, as snarkjs reads it.
  "$SNARKJS" wtns calculate "$dir/circuit.wasm" "$out/negative.json" "$out/negative-snarkjs.wtns" >/dev/null 2>&1
  run_pacer "$out/negative" witness --wasm "$dir/circuit.wasm" --input "$out/negative.json" --out "$out/negative.wtns" \
    --cache-dir "$SHARED_CACHE" && cmp -s "$out/negative.wtns" "$out/negative-snarkjs.wtns" &&
    pass "negative input: reduced mod p, snarkjs's bytes" || fail "negative input: not snarkjs's witness"

  # A circuit whose assert fails for the input: the template and line, and no proof.
  circom2_compile "$SRC/tests/integration/circuits/assert_below.circom" bn128 "$out/assert" --wasm ||
    { fail "circom2 --wasm of assert_below.circom"; return; }
  printf '{"a": 500, "c": [1, 2]}' >"$out/assert.json"
  rc=0
  run_pacer "$out/assert-run" witness --wasm "$out/assert/assert_below_js/assert_below.wasm" --input "$out/assert.json" \
    --out "$out/assert.wtns" --cache-dir "$SHARED_CACHE" || rc=$?
  expect_refusal "$out/assert-run" "the circuit refused this input .*assert failed: Error in template Inner_0 line: 9" \
    "failing circuit assert" $rc
  [ ! -e "$out/assert.wtns" ] || fail "failing assert: a witness was written"

  # Recursion as deep as the input says: on a 256 KiB stack the stack guard stops it (an error,
  # not a crash); deeper still, circom's own stack in the module's memory runs out (a trap).
  circom2_compile "$SRC/tests/integration/circuits/deep_recursion.circom" bn128 "$out/deep" --wasm ||
    { fail "circom2 --wasm of deep_recursion.circom"; return; }
  local deep="$out/deep/deep_recursion_js/deep_recursion.wasm"
  for depth in 3000 1000000; do
    printf '{"a": %s}' $depth >"$out/deep-$depth.json"
    rc=0
    mkdir -p "$out/deep-$depth"
    (ulimit -s 256; "$PACER" witness --wasm "$deep" --input "$out/deep-$depth.json" --out "$out/deep.wtns" \
       --cache-dir "$SHARED_CACHE" >"$out/deep-$depth/stdout" 2>"$out/deep-$depth/stderr") || rc=$?
    local why="call stack exhausted"; [ $depth -gt 3000 ] && why="the generator trapped"
    expect_refusal "$out/deep-$depth" "$why" "recursion of depth $depth" $rc
  done
  printf '{"a": 100}' >"$out/deep-100.json"
  run_pacer "$out/deep-100" witness --wasm "$deep" --input "$out/deep-100.json" --out "$out/deep.wtns" \
    --cache-dir "$SHARED_CACHE" && pass "recursion of depth 100: a witness" || fail "recursion of depth 100"
}

case_bad_generators() {
  local out="$WORK/bad-generators" input="$CIRCUITS/mul3/input.json"; mkdir -p "$out"
  local dir; dir=$(fixture mul3:bn128)
  local cache="$out/cache"
  head -c 20000 "$dir/circuit.wasm" >"$out/truncated.wasm"
  printf '\0asm\1\0\0\0' >"$out/empty.wasm"
  local rc=0
  run_pacer "$out/truncated" witness --wasm "$out/truncated.wasm" --input "$input" --out "$out/t.wtns" --cache-dir "$cache" || rc=$?
  expect_refusal "$out/truncated" "truncated.wasm: not a valid WebAssembly file (unexpected end" "truncated .wasm" $rc
  rc=0
  run_pacer "$out/foreign" witness --wasm "$out/empty.wasm" --input "$input" --out "$out/f.wtns" --cache-dir "$cache" || rc=$?
  expect_refusal "$out/foreign" "empty.wasm: not a circom 2 witness generator" "a .wasm that is no circom generator" $rc
  # A C++ folder with a syntax error in the circuit's file.
  circom2_compile "$CIRCUITS/mul3/circuit.circom" bn128 "$out/cpp" --c || { fail "circom2 --c of mul3"; return; }
  printf 'this is not C++;\n' >>"$out/cpp/circuit_cpp/circuit.cpp"
  rc=0
  run_pacer "$out/cpp-run" witness --circuit-cpp "$out/cpp/circuit_cpp" --input "$input" --out "$out/c.wtns" \
    --cache-dir "$cache" || rc=$?
  expect_refusal "$out/cpp-run" "circuit_cpp: the C++ generator does not compile (.* failed on src/circuit.cpp): .*error" \
    "a C++ folder that does not compile" $rc
  if [ -z "$(find "$cache" -name 'generator.so' 2>/dev/null)" ] && [ -z "$(find "$cache" -name '*.build-*' 2>/dev/null)" ]
  then pass "nothing half-built is left in the cache"; else fail "the cache holds an entry or a build folder"; find "$cache"; fi
  # A cache dir that cannot be made (under a file: refused for root too), from --cache-dir and from the config.
  printf 'x' >"$out/a-file"
  rc=0
  run_pacer "$out/unwritable" witness --wasm "$dir/circuit.wasm" --input "$input" --out "$out/u.wtns" \
    --cache-dir "$out/a-file/cache" || rc=$?
  expect_refusal "$out/unwritable" "witness generator cache $out/a-file/cache: cannot write .*choose another folder with --cache-dir DIR" \
    "unwritable cache dir (--cache-dir)" $rc
  printf '[witness]\ncache_dir = "a-file/cache"\n' >"$out/witness.toml"
  rc=0
  run_pacer "$out/unwritable-config" witness --config "$out/witness.toml" --wasm "$dir/circuit.wasm" --input "$input" \
    --out "$out/u.wtns" || rc=$?
  expect_refusal "$out/unwritable-config" "a-file/cache: cannot write .*\[witness\] cache_dir in .*witness.toml" \
    "unwritable cache dir ([witness] cache_dir)" $rc
  [ ! -e "$out/u.wtns" ] || fail "unwritable cache: a witness was written"
}

compiles_in() { grep -c 'compiling .* to native code' "$1" || true; }

case_cache() {
  local out="$WORK/cache" input="$CIRCUITS/nopub/input.json"; mkdir -p "$out"
  local dir; dir=$(fixture nopub:bn128)
  local cache="$out/c" wasm="$out/circuit.wasm"
  cp "$dir/circuit.wasm" "$dir/circuit.sym" "$out/"
  run_pacer "$out/first" witness --wasm "$wasm" --input "$input" --out "$out/1.wtns" --cache-dir "$cache" ||
    fail "cache: first run"
  run_pacer "$out/warm" witness --wasm "$wasm" --input "$input" --out "$out/2.wtns" --cache-dir "$cache" ||
    fail "cache: warm run"
  [ "$(compiles_in "$out/first/stderr")" -eq 1 ] && [ "$(compiles_in "$out/warm/stderr")" -eq 0 ] &&
    cmp -s "$out/1.wtns" "$out/2.wtns" && pass "cache: compiled on first use, not again" ||
    fail "cache: expected one compile then none"
  # The same path and modification time, other content (mul3's generator): compiled again.
  cp "$(fixture mul3:bn128)/circuit.wasm" "$out/other.wasm"; touch -r "$wasm" "$out/other.wasm"
  cp "$out/other.wasm" "$wasm"; touch -r "$out/other.wasm" "$wasm"
  local rc=0
  run_pacer "$out/changed" witness --wasm "$wasm" --input "$CIRCUITS/mul3/input.json" --out "$out/3.wtns" \
    --cache-dir "$cache" || rc=$?
  [ $rc -eq 0 ] && [ "$(compiles_in "$out/changed/stderr")" -eq 1 ] &&
    cmp -s "$out/3.wtns" "$(fixture mul3:bn128)/witness.wtns" &&
    pass "cache: a file changed in place (same path and mtime) is compiled again" || fail "cache: changed file not rebuilt"

  # Two processes, one new generator: one compiles, the other waits and uses it.
  local fresh="$out/fresh"
  (run_pacer "$out/racer1" witness --wasm "$dir/circuit.wasm" --input "$input" --out "$out/r1.wtns" --cache-dir "$fresh") &
  local pid=$!
  run_pacer "$out/racer2" witness --wasm "$dir/circuit.wasm" --input "$input" --out "$out/r2.wtns" --cache-dir "$fresh" ||
    fail "cache: second racer"
  wait $pid || fail "cache: first racer"
  local total=$(( $(compiles_in "$out/racer1/stderr") + $(compiles_in "$out/racer2/stderr") ))
  [ $total -eq 1 ] && cmp -s "$out/r1.wtns" "$out/r2.wtns" && cmp -s "$out/r1.wtns" "$dir/witness.wtns" &&
    pass "cache: two processes at once compile once" || fail "cache: $total compiles by two racing processes"

  # A build killed midway leaves nothing that is loaded; the next run builds and cleans up.
  local killed="$out/killed"
  "$PACER" witness --wasm "$dir/circuit.wasm" --input "$input" --out "$out/k.wtns" --cache-dir "$killed" \
    >"$out/killed.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do [ -n "$(find "$killed" -name '*.build-*' 2>/dev/null)" ] && break; sleep 0.05; done
  kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null || true
  sleep 0.5  # the killed process's compiler may still finish into the abandoned folder
  if [ -z "$(find "$killed" -path '*.build-*' -prune -o -name generator.so -print 2>/dev/null)" ]; then
    pass "cache: an interrupted build leaves no entry"
  else fail "cache: an interrupted build left an entry"; find "$killed"; fi
  run_pacer "$out/after-kill" witness --wasm "$dir/circuit.wasm" --input "$input" --out "$out/k.wtns" --cache-dir "$killed" &&
    cmp -s "$out/k.wtns" "$dir/witness.wtns" && [ -z "$(find "$killed" -name '*.build-*')" ] &&
    pass "cache: the next run builds it and removes the abandoned folder" || fail "cache: run after an interrupted build"

  # --compile-only on a machine with compilers; then a run with no compiler on PATH uses it.
  local prebuilt="$out/prebuilt" chain; chain=$(fixture chain:bn128)
  run_pacer "$out/compile-only" witness --compile-only --wasm "$chain/circuit.wasm" --cache-dir "$prebuilt" ||
    fail "cache: --compile-only"
  rc=0
  mkdir -p "$out/no-compiler"
  env PATH=/nonexistent "$PACER" witness --wasm "$chain/circuit.wasm" --input "$CIRCUITS/chain/input.json" \
    --out "$out/nc.wtns" --cache-dir "$prebuilt" >"$out/no-compiler/stdout" 2>"$out/no-compiler/stderr" || rc=$?
  [ $rc -eq 0 ] && cmp -s "$out/nc.wtns" "$chain/witness.wtns" &&
    pass "cache: --compile-only prepares a cache that runs with no compiler on PATH" ||
    { fail "cache: no-compiler run after --compile-only (exit $rc)"; show_output "$out/no-compiler"; }
  rc=0
  mkdir -p "$out/no-compiler-new"
  env PATH=/nonexistent "$PACER" witness --wasm "$dir/circuit.wasm" --input "$input" --out "$out/nc2.wtns" \
    --cache-dir "$prebuilt" >"$out/no-compiler-new/stdout" 2>"$out/no-compiler-new/stderr" || rc=$?
  expect_refusal "$out/no-compiler-new" "wasm2c was not found on PATH" "no compiler and nothing prebuilt" $rc

  # A cached library another user could have put there is never run: its entry folder opened to
  # every user, then (as root, where files can be given away) the library owned by another user.
  local entry; entry=$(dirname "$(find "$prebuilt/generators" -name generator.so | head -n 1)")
  chmod o+w "$entry"
  rc=0
  run_pacer "$out/open-entry" witness --wasm "$chain/circuit.wasm" --input "$CIRCUITS/chain/input.json" \
    --out "$out/open.wtns" --cache-dir "$prebuilt" || rc=$?
  expect_refusal "$out/open-entry" "is writable by every user" "a cache entry writable by every user" $rc
  [ ! -e "$out/open.wtns" ] || fail "cache: a witness was written from an entry writable by every user"
  chmod o-w "$entry"
  if [ "$(id -u)" -eq 0 ]; then
    chown 65534 "$entry/generator.so"
    rc=0
    run_pacer "$out/foreign" witness --wasm "$chain/circuit.wasm" --input "$CIRCUITS/chain/input.json" \
      --out "$out/foreign.wtns" --cache-dir "$prebuilt" || rc=$?
    expect_refusal "$out/foreign" "belongs to user 65534" "a cached library owned by another user" $rc
    chown 0 "$entry/generator.so"
  else pass "cache: (not root: a library owned by another user cannot be made here, not checked)"; fi
  run_pacer "$out/restored" witness --wasm "$chain/circuit.wasm" --input "$CIRCUITS/chain/input.json" \
    --out "$out/restored.wtns" --cache-dir "$prebuilt" && cmp -s "$out/restored.wtns" "$chain/witness.wtns" &&
    pass "cache: the same entry made private again is used" || fail "cache: the restored entry"
}

case_stage() {
  local out="$WORK/stage" dir; dir=$(fixture mul3:bn128); mkdir -p "$out"
  local rc=0
  run_pacer "$out/bench" bench --config "$CONFIG" --zkey "$dir/circuit.zkey" --wasm "$dir/circuit.wasm" \
    --input "$CIRCUITS/mul3/input.json" --proofs 4 --jobs 2 --warmup 1 --trace "$out/trace.json" \
    --cache-dir "$SHARED_CACHE" || rc=$?
  if [ $rc -eq 0 ] && python3 - "$out/trace.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
witness = [e for e in events if e.get("name") == "witness" and e.get("ph") in ("X", "B")]
sys.exit(0 if len(witness) >= 4 else 1)
PY
  then pass "stage: pacer bench --wasm runs witness generation as a traced stage of every proof"
  else fail "stage: no witness stage in the trace (exit $rc)"; show_output "$out/bench"; fi
  # A [[keys]] entry that names its generator: --key and --input are enough; two inputs, two proofs.
  cat >"$out/keys.toml" <<TOML
[pipeline]
jobs_in_flight = 2
[witness]
cache_dir = "$SHARED_CACHE"
[[keys]]
id = "mul3"
zkey = "$dir/circuit.zkey"
wasm = "$dir/circuit.wasm"
TOML
  second_input "$CIRCUITS/mul3/input.json" "$out/input2.json"
  rc=0
  run_pacer "$out/key" prove --config "$out/keys.toml" --key mul3 --input "$CIRCUITS/mul3/input.json" \
    --input "$out/input2.json" --proof "$out/proof.json" --public "$out/public.json" || rc=$?
  if [ $rc -eq 0 ] && snarkjs_verify "$dir/verification_key.json" "$out/public-0.json" "$out/proof-0.json" "$out/v0.log" &&
     snarkjs_verify "$dir/verification_key.json" "$out/public-1.json" "$out/proof-1.json" "$out/v1.log" &&
     grep -q 'witness' "$out/key/stderr"; then
    pass "stage: --key with a [[keys]] wasm and two --input: two proofs, both accepted, witness stage logged"
  else fail "stage: --key with a [[keys]] wasm (exit $rc)"; show_output "$out/key"; fi
}

case_rapidsnark_cli() {
  local out="$WORK/rapidsnark" dir; dir=$(fixture poseidon3:bn128); mkdir -p "$out"
  local rc=0
  (cd "$out" && "$PACER" prove "$dir/circuit.zkey" "$dir/witness.wtns" proof.json public.json >log 2>&1) || rc=$?
  if [ $rc -eq 0 ] && snarkjs_verify "$dir/verification_key.json" "$out/public.json" "$out/proof.json" "$out/verify.log"; then
    pass "rapidsnark form: pacer prove circuit.zkey witness.wtns proof.json public.json, accepted by snarkjs"
  else fail "rapidsnark form (exit $rc)"; cat "$out/log"; fi
  rc=0
  run_pacer "$out/three" prove "$dir/circuit.zkey" "$dir/witness.wtns" proof.json || rc=$?
  expect_refusal "$out/three" "3 positional arguments; the positional form is rapidsnark's" "three positional arguments" $rc
}

for c in $(cases_or circuit:mul3:bn128 circuit:mul3:bls12381 circuit:chain:bn128 circuit:chain:bls12381 \
             circuit:nopub:bn128 circuit:poseidon3:bn128 circuit:poseidon3:bls12381 cpp:bn128 cpp:bls12381 \
             bad_inputs bad_generators cache stage rapidsnark_cli); do
  case "$c" in
    circuit:*) case_circuit "$c" ;;
    cpp:*) case_cpp "${c#cpp:}" ;;
    bad_inputs) case_bad_inputs ;;
    bad_generators) case_bad_generators ;;
    cache) case_cache ;;
    stage) case_stage ;;
    rapidsnark_cli) case_rapidsnark_cli ;;
    *) fail "unknown case $c" ;;
  esac
done
finish
