#!/usr/bin/env bash
# Integration: the command line against hostile input, past the classes of hostile_input.sh.
# Refusals are held to the same five checks (refuse, hostile_common.sh): exit 2, one line, quick,
# no output or temporary file, inputs unchanged.
#   usage: hostile_cli.sh <path to pacer> <source dir> [case ...]
#   cases: plugin_constructor verify_bounds report_svg config_text outputs interrupted gen_circuit_size
#          removed_flags thp_disabled cwd_libraries
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_config
source "$SRC/tests/integration/hostile_common.sh"

HOSTILE_PLUGINS="$(dirname "$(dirname "$PACER")")/lib/pacer-hostile-plugins"

# wait_for_temp DIR SECONDS: until a hidden temporary file appears in DIR (0), or not (1).
wait_for_temp() {
  local i
  for i in $(seq $(($2 * 20))); do
    compgen -G "$1/.*.tmp" >/dev/null && return 0
    sleep 0.05
  done
  return 1
}

mapfile -t todo < <(cases_or plugin_constructor verify_bounds report_svg config_text outputs interrupted \
                            gen_circuit_size removed_flags thp_disabled cwd_libraries)
for c in "${todo[@]}"; do
  dir="$WORK/$c"; inputs_in "$dir"
  OUTPUTS=("$dir/proof.json" "$dir/public.json")
  PREFIX=()
  case "$c" in
    plugin_constructor)
      # A library whose constructor ends the process with status 0, on the plugin path: verify
      # loads no plugin at all, so a proof that does not verify still gives exit 1; prove loads
      # only libraries that carry the entry symbols, so one without them never runs.
      need_file "$HOSTILE_PLUGINS/libpacer_hostile_constructor_entry.so" "the hostile test libraries (build the tests)"
      mkdir -p "$dir/entry" "$dir/plain"
      cp "$HOSTILE_PLUGINS/libpacer_hostile_constructor_entry.so" "$dir/entry/libexit.so"
      cp "$HOSTILE_PLUGINS/libpacer_hostile_constructor_plain.so" "$dir/plain/libexit.so"
      python3 - "$MUL3_BN/snarkjs_proof.json" "$dir/wrong_proof.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["pi_a"], p["pi_c"] = p["pi_c"], p["pi_a"]
json.dump(p, open(sys.argv[2], "w"))
PY
      rc=0
      PACER_PLUGIN_PATH="$dir/entry:$PACER_PLUGIN_PATH" PACER_TEST_CONSTRUCTOR_EXIT=1 \
        "$PACER" verify --vkey "$MUL3_BN/verification_key.json" --proof "$dir/wrong_proof.json" \
        --public "$MUL3_BN/public.json" >"$dir/verify.out" 2>"$dir/verify.err" || rc=$?
      if [ $rc -eq 1 ] && grep -q "invalid proof" "$dir/verify.err"; then pass "$c: verify loads no library: a wrong proof is still exit 1"
      else fail "$c: verify with an exiting library on the path gave exit $rc"; cat "$dir/verify.err"; fi
      rc=0
      PACER_PLUGIN_PATH="$dir/plain:$PACER_PLUGIN_PATH" PACER_TEST_CONSTRUCTOR_MARKER="$dir/ran" \
        "$PACER" prove --config "$dir/config.toml" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" \
        --proof "$dir/proof.json" --public "$dir/public.json" >"$dir/prove.out" 2>"$dir/prove.err" || rc=$?
      if [ $rc -eq 0 ] && [ ! -e "$dir/ran" ]; then pass "$c: prove never loads a library without the entry symbols"
      else fail "$c: prove gave exit $rc, constructor ran: $([ -e "$dir/ran" ] && echo yes || echo no)"; cat "$dir/prove.err"; fi
      rm -f "$dir/proof.json" "$dir/public.json"
      PACER_PLUGIN_PATH="$dir/plain:$PACER_PLUGIN_PATH" "$PACER" plugins >"$dir/plugins.out" 2>&1 || true
      if grep -q "libexit.so.*not a Pacer plugin, not loaded" "$dir/plugins.out"; then pass "$c: pacer plugins says why it was not loaded"
      else fail "$c: pacer plugins does not list the library as not loaded"; cat "$dir/plugins.out"; fi ;;
    verify_bounds)
      python3 - "$dir" "$MUL3_BN" <<'PY'
import json, sys
d, fx = sys.argv[1], sys.argv[2]
proof = open(fx + "/snarkjs_proof.json").read()
open(d + "/long_number.json", "w").write(proof.replace("[", "[" + "7" * 1_000_000 + ",", 1))
open(d + "/nested.json", "w").write("[" * 20_000_000)
vk = json.load(open(fx + "/verification_key.json"))
vk["curve"] = "bls12381"
open(d + "/other_curve.json", "w").write(json.dumps(vk))
PY
      INPUTS+=("$dir/long_number.json" "$dir/nested.json" "$dir/other_curve.json")
      OUTPUTS=()
      vk="$MUL3_BN/verification_key.json"; pub="$MUL3_BN/public.json"
      refuse "$c a number of a million digits" "long_number.json: not JSON" \
        verify --vkey "$vk" --proof "$dir/long_number.json" --public "$pub"
      if [ "$(tail -n 1 "$WORK/runs/$c a number of a million digits/stderr" | wc -c)" -lt 400 ]; then
        pass "$c: ... in a short line"; else fail "$c: the error echoes the number"; fi
      refuse "$c 20 MB of nested arrays" "nested.json: arrays and objects nested more than 8 deep" \
        verify --vkey "$dir/nested.json" --proof "$MUL3_BN/snarkjs_proof.json" --public "$pub"
      refuse "$c a key of the other curve" "proof.json: curve is not \"bls12381\"" \
        verify --vkey "$dir/other_curve.json" --proof "$MUL3_BN/snarkjs_proof.json" --public "$pub" ;;
    report_svg)
      # Text from a trace ends up in the SVG: escaped, so the picture is well-formed XML and holds
      # no element the trace wrote.
      python3 - "$dir/trace.json" <<'PY'
import json, sys
events = [{"ph": "X", "cat": "stage", "name": name, "ts": 10.0 * i, "dur": 5.0, "tid": 1,
           "args": {"job": i, "worker": 0, "lane": 0}}
          for i, name in enumerate(["<script>alert(1)</script>", "a&b\"c'd", "\u001b[31mred", "load"])]
json.dump({"traceEvents": events, "otherData": {"scheduler": "</text><script>x</script>", "allocator": "\u0007bell",
                                                "jobs": 1}}, open(sys.argv[1], "w"))
PY
      rc=0; "$PACER" report "$dir/trace.json" --svg "$dir/w.svg" >"$dir/report.out" 2>"$dir/report.err" || rc=$?
      if [ $rc -eq 0 ] && python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$dir/w.svg" &&
         ! grep -q "<script" "$dir/w.svg" && ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f]' "$dir/w.svg" "$dir/report.out"
      then pass "$c: the SVG parses as XML and holds no <script>; no control bytes in the SVG or the summary"
      else fail "$c: report --svg gave exit $rc, or the SVG is not clean"; cat "$dir/report.err"; head -c 2000 "$dir/w.svg"; fi ;;
    config_text)
      # TOML's \u escapes put the control bytes into the key and the value.
      printf '[host]\n"\\u001b[2J\\u001b[31m" = 1\n' >"$dir/esc.toml"
      printf '[host]\nlog_level = "\\u001b]0;owned\\u0007"\n' >"$dir/level.toml"
      printf '[host]\nthreads = 99999999999999999999\n' >"$dir/big.toml"
      printf '[allocator]\nplugin = "plain"\nparams = { mmap_threshold = 18446744073709551617 }\n' >"$dir/param.toml"
      printf '[scheduler]\nplugin = "throttled"\nparams = { membw_tokens = 2, burst_mb = 64 }\n' >"$dir/burst.toml"
      for f in esc level big param burst; do INPUTS+=("$dir/$f.toml"); done
      OUTPUTS=()
      refuse "$c an escape sequence in a key" "unknown key '\\x1b[2J\\x1b[31m'" plugins --config "$dir/esc.toml"
      refuse "$c an escape sequence in a value" "got \"\\x1b]0;owned\\x07\"" plugins --config "$dir/level.toml"
      refuse "$c an integer beyond 64 bits" "big.toml:2: the integer 99999999999999999999 does not fit in 64 bits" \
        plugins --config "$dir/big.toml"
      refuse "$c ... in a plugin's params" "param.toml:3: the integer 18446744073709551617 does not fit" \
        plugins --config "$dir/param.toml"
      refuse "$c burst_mb alone" "burst_mb goes with membw_mb_per_s" plugins --config "$dir/burst.toml" ;;
    outputs)
      prove=(prove --config "$dir/config.toml" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns")
      refuse "$c a folder nobody can write in" "cannot write in folder /proc/self" \
        "${prove[@]}" --proof /proc/self/proof.json --public "$dir/public.json"
      refuse "$c an empty output path" "--proof: an empty path" "${prove[@]}" --proof "" --public "$dir/public.json"
      long=$(printf 'p%.0s' $(seq 256))
      refuse "$c a name of 256 bytes" "a file name of 256 bytes" "${prove[@]}" --proof "$dir/$long" --public "$dir/public.json"
      OUTPUTS=("$dir/out.r1cs" "$dir/out.wtns")
      refuse "$c gen-circuit into /proc" "cannot write in folder /proc/self" \
        gen-circuit --constraints 16 --r1cs /proc/self/out.r1cs --witness "$dir/out.wtns"
      # The longest name a file system takes is written (its temporary name is cut to fit).
      name=$(printf 'q%.0s' $(seq 255))
      rc=0; run_pacer "$dir/long" "${prove[@]}" --proof "$dir/$name" --public "$dir/public.json" || rc=$?
      if [ $rc -eq 0 ] && [ -s "$dir/$name" ]; then pass "$c: a proof named with 255 bytes is written"
      else fail "$c: a 255-byte output name gave exit $rc"; show_output "$dir/long"; fi
      rm -f "$dir/$name" "$dir/public.json" ;;
    interrupted)
      # SIGINT (and SIGTERM) while setup or gen-circuit write their outputs: no hidden temporary
      # file stays behind (they once left 17-125 MB).
      # (Job control on: a background job of a script would otherwise start with SIGINT ignored.)
      for sig in INT TERM; do
        out="$dir/$sig"; mkdir -p "$out"
        set -m
        "$PACER" gen-circuit --constraints 1000000 --r1cs "$out/c.r1cs" --witness "$out/c.wtns" >"$out/gen.log" 2>&1 &
        pid=$!
        set +m
        if wait_for_temp "$out" 60; then
          kill -$sig $pid; rc=0; wait $pid || rc=$?
          if [ $rc -ge 128 ] && ! compgen -G "$out/.*.tmp" >/dev/null && [ ! -e "$out/c.r1cs" ]; then
            pass "$c: SIG$sig during gen-circuit: killed by it ($rc), no temporary file left"
          else fail "$c: SIG$sig during gen-circuit: exit $rc, left: $(ls -A "$out" | tr '\n' ' ')"; fi
        else kill $pid 2>/dev/null; wait $pid 2>/dev/null; fail "$c: gen-circuit wrote no temporary file within 60 s"; fi
      done
      out="$dir/setup"; mkdir -p "$out"
      run_pacer "$out/gen" gen-circuit --constraints 65536 --r1cs "$out/c.r1cs" --witness "$out/c.wtns" ||
        fail "$c: gen-circuit for setup failed"
      set -m
      "$PACER" setup --insecure --r1cs "$out/c.r1cs" --zkey "$out/k.zkey" --vkey "$out/k.json" >"$out/setup.log" 2>&1 &
      pid=$!
      set +m
      if wait_for_temp "$out" 60; then
        kill -INT $pid; rc=0; wait $pid || rc=$?
        if [ $rc -ge 128 ] && ! compgen -G "$out/.*.tmp" >/dev/null && [ ! -e "$out/k.zkey" ]; then
          pass "$c: SIGINT during setup: no temporary file left"
        else fail "$c: SIGINT during setup: exit $rc, left: $(ls -A "$out" | tr '\n' ' ')"; fi
      else kill $pid 2>/dev/null; wait $pid 2>/dev/null; fail "$c: setup wrote no temporary file within 60 s"; fi ;;
    gen_circuit_size)
      OUTPUTS=("$dir/out.r1cs" "$dir/out.wtns")
      refuse "$c terabytes of circuit" "need about" \
        gen-circuit --constraints 4000000000 --density 64 --r1cs "$dir/out.r1cs" --witness "$dir/out.wtns"
      grep -q "GB of memory" "$WORK/runs/$c terabytes of circuit/stderr" && pass "$c: ... with the estimate" ||
        fail "$c: the refusal gives no estimate" ;;
    removed_flags)
      refuse "$c prove --insecure-zero-blinding" "insecure-zero-blinding" \
        prove --config "$dir/config.toml" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" \
        --insecure-zero-blinding --proof "$dir/proof.json" --public "$dir/public.json"
      "$PACER" setup --help >"$dir/help.txt" 2>&1 || true
      if grep -q "vk_alphabeta_12" "$dir/help.txt" && ! grep -q "omitted" "$dir/help.txt"; then
        pass "$c: setup --help says vk_alphabeta_12 is written"
      else fail "$c: setup --help is wrong about vk_alphabeta_12"; cat "$dir/help.txt"; fi ;;
    thp_disabled)
      # THP switched off for the process (prctl, as a parent or a service manager may do): the
      # thp allocator says so instead of silently handing out 4 KiB pages.
      printf '[allocator]\nplugin = "thp"\n' >"$dir/thp.toml"
      rc=0
      python3 - "$PACER" prove --config "$dir/thp.toml" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" \
        --proof "$dir/proof.json" --public "$dir/public.json" >"$dir/thp.out" 2>"$dir/thp.err" <<'PY' || rc=$?
import ctypes, os, sys
PR_SET_THP_DISABLE = 41
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
    sys.exit(99)
os.execv(sys.argv[1], sys.argv[1:])
PY
      if [ $rc -eq 0 ] && grep -q "disabled for this process" "$dir/thp.err"; then
        pass "$c: the thp allocator warns that THP is disabled for the process"
      elif [ $rc -eq 99 ]; then pass "$c: (prctl PR_SET_THP_DISABLE not available here: not checked)"
      else fail "$c: exit $rc, no warning"; cat "$dir/thp.err"; fi
      rm -f "$dir/proof.json" "$dir/public.json" ;;
    cwd_libraries)
      # Libraries named like the ones pacer loads, in the folder it runs in: the dynamic loader
      # searches only the install's own folders (an empty RUNPATH entry would mean this folder).
      mkdir -p "$dir/cwd"
      for lib in libc.so.6 libstdc++.so.6 libm.so.6 libgcc_s.so.1 libcrypto.so.3 libpacer_framework.so.0; do
        echo "not a library" >"$dir/cwd/$lib"
      done
      rc=0
      (cd "$dir/cwd" && "$PACER" prove --zkey ../circuit.zkey --witness ../witness.wtns --proof ../proof.json \
         --public ../public.json) >"$dir/cwd.out" 2>"$dir/cwd.err" || rc=$?
      if [ $rc -eq 0 ] && [ -s "$dir/proof.json" ]; then pass "$c: libraries in the working folder are never loaded"
      else fail "$c: exit $rc"; cat "$dir/cwd.err"; fi
      rm -f "$dir/proof.json" "$dir/public.json" ;;
    *) fail "unknown case '$c'" ;;
  esac
done
finish
