#!/usr/bin/env bash
# Integration: plugins on the C ABI (pacer/plugin_abi.h) built by clang, from the source tree's
# headers alone, loaded by the gcc-built `pacer`:
#   load        pacer plugins lists the C allocator (examples/c_allocator) and the C++ scheduler on the
#               C ABI (examples/cabi_scheduler) as loaded, on ABI C/<major.minor>
#   prove       pacer prove with both on poseidon3/bn128 and chain/bls12381: pacer verify and snarkjs
#               accept the proofs, and the debug log shows both plugins at work; pacer bench runs 6
#               proofs, 3 in flight, through them
#   wrong_major a C99 plugin saying C ABI 99.0 is refused in pacer plugins with its reason, and a
#               config that selects it is refused (exit 2) with the same reason
# Exit 77 (ctest: skipped) when clang is not installed: scripts/install_deps.sh installs it.
#   usage: c_abi_clang.sh <path to pacer> <source dir> [case ...]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer

CLANG=${PACER_CLANG:-$(command -v clang || true)}
CLANGXX=${PACER_CLANGXX:-$(command -v clang++ || true)}
if [ ! -x "$CLANG" ] || [ ! -x "$CLANGXX" ]; then
  echo "SKIP: clang/clang++ not found (apt-get install clang, or scripts/install_deps.sh; or set PACER_CLANG, PACER_CLANGXX)"
  exit 77
fi
PLUGINS="$WORK/plugins"
mkdir -p "$PLUGINS"
INCLUDE="$SRC/framework/include"
# As a user outside the tree would: the header alone, hidden symbols but the plugin's exports.
CFLAGS=(-O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -I "$INCLUDE")

build_c_allocator() {
  "$CLANG" -std=c11 "${CFLAGS[@]}" -o "$PLUGINS/libpacer_c_counting_allocator.so" \
    "$SRC/examples/c_allocator/c_counting_allocator.c"
}
build_scheduler() {
  "$CLANGXX" -std=c++20 -fvisibility-inlines-hidden "${CFLAGS[@]}" -o "$PLUGINS/libpacer_slots_scheduler.so" \
    "$SRC/examples/cabi_scheduler/slots_scheduler.cpp"
}
build_wrong_major() {
  "$CLANG" -std=c99 -pedantic "${CFLAGS[@]}" -o "$PLUGINS/libpacer_c_wrong_major.so" "$SRC/tests/plugins/c_wrong_major.c"
}
# built_by_clang LIB: the .comment section names the compiler that made it.
built_by_clang() { readelf -p .comment "$1" 2>/dev/null | grep -q clang; }

# A config selecting the clang-built plugins, next to them ([host] plugin_dirs is relative to it).
write_config() {
  cat >"$WORK/c_abi.toml" <<EOF
[host]
plugin_dirs = ["plugins"]
log_level = "debug"
[allocator]
plugin = "${1:-c_counting}"
params = { log_every = 100000 }
[scheduler]
plugin = "slots"
params = { membw_slots = 1, yield_us = 50 }
[pipeline]
jobs_in_flight = 3
EOF
}

mapfile -t todo < <(cases_or load prove wrong_major)
for c in "${todo[@]}"; do
  out="$WORK/$c"
  case "$c" in
    load)
      build_c_allocator && build_scheduler || { fail "load: clang could not build the examples"; continue; }
      for lib in libpacer_c_counting_allocator.so libpacer_slots_scheduler.so; do
        built_by_clang "$PLUGINS/$lib" && pass "load: $lib was built by clang" || fail "load: $lib has no clang mark"
      done
      rc=0; PACER_PLUGIN_PATH="$PLUGINS:$PACER_PLUGIN_PATH" run_pacer "$out" plugins || rc=$?
      [ $rc -eq 0 ] || { fail "load: pacer plugins exited $rc"; show_output "$out"; continue; }
      for row in "allocator +c_counting +1\.0\.0 +C/1\.[0-9]+ +[^ ]*libpacer_c_counting_allocator\.so +loaded" \
                 "scheduler +slots +1\.0\.0 +C/1\.[0-9]+ +[^ ]*libpacer_slots_scheduler\.so +loaded"; do
        if grep -Eq "^$row\$" "$out/stdout"; then pass "load: pacer plugins: $row"
        else fail "load: no row '$row'"; show_output "$out"; fi
      done ;;
    prove)
      build_c_allocator && build_scheduler || { fail "prove: clang could not build the examples"; continue; }
      need_node; need_snarkjs
      write_config
      for fx_name in poseidon3:bn128 chain:bls12381; do
        fx=$(fixture "$fx_name"); o="$out/$fx_name"
        rc=0
        run_pacer "$o" prove --config "$WORK/c_abi.toml" --zkey "$fx/circuit.zkey" --witness "$fx/witness.wtns" \
          --proof "$o/proof.json" --public "$o/public.json" || rc=$?
        if [ $rc -ne 0 ]; then fail "prove: $fx_name: pacer prove exited $rc"; show_output "$o"; continue; fi
        # Debug lines from each plugin's destroy: both were made and used (not a default stand-in).
        if grep -Eq "c_counting allocator: [1-9][0-9]* allocations" "$o/stderr" &&
           grep -q "slots scheduler: .* membw stages waited" "$o/stderr"; then
          pass "prove: $fx_name: the proof went through the c_counting allocator and the slots scheduler"
        else fail "prove: $fx_name: the log does not show both C ABI plugins at work"; show_output "$o"; fi
        rc=0
        run_pacer "$o/verify" verify --vkey "$fx/verification_key.json" --proof "$o/proof.json" \
          --public "$o/public.json" || rc=$?
        [ $rc -eq 0 ] && pass "prove: $fx_name: pacer verify accepts the proof" \
          || { fail "prove: $fx_name: pacer verify exited $rc"; show_output "$o/verify"; }
        rc=0
        snarkjs_verify "$fx/verification_key.json" "$o/public.json" "$o/proof.json" "$o/snarkjs.log" || rc=$?
        if [ $rc -eq 0 ] && grep -q 'OK!' "$o/snarkjs.log"; then pass "prove: $fx_name: snarkjs accepts the proof"
        else fail "prove: $fx_name: snarkjs groth16 verify rejected it (exit $rc)"; cat "$o/snarkjs.log"; fi
      done
      # Several proofs at once through both plugins. Whether a membw stage meets a busy slot here is
      # a matter of timing (mul3's stages take microseconds): the queueing and the yields are
      # checked deterministically by the unit tests' simulation (tests/unit/test_c_plugins.cpp).
      fx=$(fixture mul3:bn128)
      rc=0
      run_pacer "$out/bench" bench --config "$WORK/c_abi.toml" --zkey "$fx/circuit.zkey" --witness "$fx/witness.wtns" \
        --proofs 6 --jobs 3 || rc=$?
      if [ $rc -eq 0 ] && grep -Eq "slots scheduler: [0-9]+ of [1-9][0-9]* membw stages waited" "$out/bench/stderr" &&
         grep -Eq "^run +6 proofs" "$out/bench/stdout"; then
        pass "prove: pacer bench, 6 proofs 3 in flight, through both plugins: $(grep -o 'slots scheduler: .*' "$out/bench/stderr")"
      else fail "prove: pacer bench exited $rc, or the slots scheduler admitted no membw stage"; show_output "$out/bench"; fi ;;
    wrong_major)
      build_wrong_major || { fail "wrong_major: clang -std=c99 could not build the plugin"; continue; }
      reason="C plugin ABI 99.0 but this host speaks 1."
      rc=0; PACER_PLUGIN_PATH="$PLUGINS:$PACER_PLUGIN_PATH" run_pacer "$out" plugins || rc=$?
      if [ $rc -eq 0 ] && grep -Eq "^allocator +c_wrong_major +- +C/99\.0 +[^ ]*libpacer_c_wrong_major\.so +refused: $reason" \
           "$out/stdout"; then
        pass "wrong_major: pacer plugins refuses it: $(grep -o "refused: .*" "$out/stdout" | head -n 1)"
      else fail "wrong_major: pacer plugins does not refuse it with its reason (exit $rc)"; show_output "$out"; fi
      write_config c_wrong_major
      rc=0
      run_pacer "$out/prove" prove --config "$WORK/c_abi.toml" --zkey "$(fixture mul3:bn128)/circuit.zkey" \
        --witness "$(fixture mul3:bn128)/witness.wtns" --proof "$out/proof.json" --public "$out/public.json" || rc=$?
      if [ $rc -eq 2 ] && grep -q "allocator plugin 'c_wrong_major' was refused: .*$reason" "$out/prove/stderr" &&
         [ ! -e "$out/proof.json" ]; then
        pass "wrong_major: a config selecting it is refused, exit 2, with the reason"
      else fail "wrong_major: pacer prove exited $rc (want 2 with the reason, no proof)"; show_output "$out/prove"; fi ;;
    *) fail "unknown case $c" ;;
  esac
done
finish
