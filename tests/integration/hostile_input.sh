#!/usr/bin/env bash
# Integration: hostile input, one case per class a hostile probe found. Each refusal must
# exit 2 within a few seconds (never hang, never >= 128: a crash), print exactly one line
# "pacer: error: ..." that names what is wrong, create no output (no temporary file either) and
# leave every input byte-for-byte as it was (sha256 before and after).
#   usage: hostile_input.sh <path to pacer> <source dir> [case ...]
#   cases: header_point fifo_input output_alias output_device lying_counts deep_config thread_limit
#          config_everywhere
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_config

source "$SRC/tests/integration/hostile_common.sh"

# damage_header_point SRC DST POINT MODE: POINT of section 2 flipped (MODE flip) or zeroed (zero).
damage_header_point() {
  python3 - "$@" <<'PY'
import struct, sys
src, dst, name, mode = sys.argv[1:5]
data = bytearray(open(src, "rb").read())
pos = 12
for _ in range(struct.unpack_from("<I", data, 8)[0]):
    sid, size = struct.unpack_from("<IQ", data, pos)
    if sid == 2:
        n8q = struct.unpack_from("<I", data, pos + 12)[0]
        at = pos + 12 + 4 + n8q + 4 + 32 + 12
        g1, g2 = 2 * n8q, 4 * n8q
        offsets = {"alpha1": (0, g1), "beta1": (g1, g1), "beta2": (2 * g1, g2), "gamma2": (2 * g1 + g2, g2),
                   "delta1": (2 * g1 + 2 * g2, g1), "delta2": (3 * g1 + 2 * g2, g2)}
        off, length = offsets[name]
        if mode == "zero":
            data[at + off:at + off + length] = bytes(length)
        else:
            data[at + off + 3] ^= 0x41
    pos += 12 + size
open(dst, "wb").write(data)
PY
}

mapfile -t todo < <(cases_or header_point fifo_input output_alias output_device lying_counts deep_config thread_limit \
                            config_everywhere)
for c in "${todo[@]}"; do
  dir="$WORK/$c"; inputs_in "$dir"
  OUTPUTS=("$dir/proof.json" "$dir/public.json")
  PREFIX=()
  prove=(prove --config "$dir/config.toml" --proof "$dir/proof.json" --public "$dir/public.json")
  # mul3 proved into PROOF and PUBLIC (paths under the case's folder)
  prove_into() { echo prove --config "$dir/config.toml" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" \
                      --proof "$dir/$1" --public "$dir/$2"; }
  case "$c" in
    header_point)
      # Each point of the groth16 header, damaged, on both curves; and a point at infinity.
      for curve in bn128 bls12381; do
        src=$(fixture "mul3:$curve")
        cp "$src/witness.wtns" "$dir/witness-$curve.wtns"
        for p in alpha1 beta1 beta2 gamma2 delta1 delta2; do
          damage_header_point "$src/circuit.zkey" "$dir/$p-$curve.zkey" "$p" flip
          INPUTS=("$dir/$p-$curve.zkey" "$dir/witness-$curve.wtns" "$dir/config.toml")
          refuse "$c $p $curve" "$p-$curve.zkey: section 2 (groth16 header), point $p is not a point of the curve" \
            "${prove[@]}" --zkey "$dir/$p-$curve.zkey" --witness "$dir/witness-$curve.wtns"
        done
      done
      damage_header_point "$MUL3_BN/circuit.zkey" "$dir/zero.zkey" delta1 zero
      INPUTS=("$dir/zero.zkey" "$dir/witness.wtns" "$dir/config.toml")
      refuse "$c delta1 at infinity" "zero.zkey: section 2 (groth16 header), point delta1 is the point at infinity" \
        "${prove[@]}" --zkey "$dir/zero.zkey" --witness "$dir/witness.wtns" ;;
    fifo_input)
      mkfifo "$dir/input.fifo"
      refuse "$c --zkey" "input.fifo: is a FIFO, not a regular file" "${prove[@]}" --zkey "$dir/input.fifo" --witness "$dir/witness.wtns"
      refuse "$c --witness" "input.fifo: is a FIFO" "${prove[@]}" --zkey "$dir/circuit.zkey" --witness "$dir/input.fifo"
      refuse "$c --config" "input.fifo: is a FIFO" prove --config "$dir/input.fifo" --zkey "$dir/circuit.zkey" \
        --witness "$dir/witness.wtns" --proof "$dir/proof.json" --public "$dir/public.json"
      refuse "$c inspect" "input.fifo: is a FIFO" inspect "$dir/input.fifo"
      OUTPUTS=("$dir/out.zkey" "$dir/out.json")
      refuse "$c setup --r1cs" "input.fifo: is a FIFO" setup --insecure --r1cs "$dir/input.fifo" --zkey "$dir/out.zkey" --vkey "$dir/out.json"
      OUTPUTS=("$dir/proof.json" "$dir/public.json")
      refuse "$c /dev/zero" "/dev/zero: is a character device" "${prove[@]}" --zkey "$dir/circuit.zkey" --witness /dev/zero ;;
    output_alias)
      refuse "$c --proof onto the zkey" "circuit.zkey: is the same file as the input --zkey" \
        prove --config "$dir/config.toml" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" \
        --proof "$dir/circuit.zkey" --public "$dir/public.json"
      refuse "$c --public onto the witness" "witness.wtns: is the same file as the input --witness" \
        $(prove_into proof.json witness.wtns)
      refuse "$c --proof onto the config" "config.toml: is the same file as the input --config" \
        $(prove_into config.toml public.json)
      ln "$dir/circuit.zkey" "$dir/hardlink.json"; ln -s "$dir/witness.wtns" "$dir/symlink.json"
      INPUTS+=("$dir/hardlink.json" "$dir/symlink.json")
      refuse "$c --proof a hard link of the zkey" "hardlink.json: is the same file as the input --zkey" \
        $(prove_into hardlink.json public.json)
      refuse "$c --public a symlink to the witness" "symlink.json: is the same file as the input --witness" \
        $(prove_into proof.json symlink.json)
      refuse "$c --proof and --public the same" "named by both --proof and --public" $(prove_into proof.json proof.json)
      OUTPUTS=("$dir/out.json")
      refuse "$c setup --zkey onto the r1cs" "circuit.r1cs: is the same file as the input --r1cs" \
        setup --insecure --r1cs "$dir/circuit.r1cs" --zkey "$dir/circuit.r1cs" --vkey "$dir/out.json"
      OUTPUTS=("$dir/out.zkey")
      refuse "$c setup --vkey onto the config" "config.toml: is the same file as the input --config" \
        setup --insecure --config "$dir/config.toml" --r1cs "$dir/circuit.r1cs" --zkey "$dir/out.zkey" --vkey "$dir/config.toml"
      OUTPUTS=()
      refuse "$c gen-circuit --witness onto the config" "config.toml: is the same file as the input --config" \
        gen-circuit --constraints 4 --config "$dir/config.toml" --r1cs "$dir/out.r1cs" --witness "$dir/config.toml"
      # The program's own files are inputs too: a plugin library, the executable (copies of both,
      # so that a regression would destroy only the copies).
      mkdir -p "$dir/plugins" "$dir/bin"
      cp "$(dirname "$(dirname "$PACER")")"/lib/pacer/lib*.so "$dir/plugins/"
      printf '[host]\nplugin_dirs = ["plugins"]\n' >"$dir/plugins.toml"
      INPUTS+=("$dir/plugins.toml" "$dir/plugins/libpacer_backend_cpu.so")
      OUTPUTS=("$dir/public.json")
      refuse "$c --proof onto a plugin" "libpacer_backend_cpu.so: is the same file as the input (a plugin library)" \
        prove --config "$dir/plugins.toml" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" \
        --proof "$dir/plugins/libpacer_backend_cpu.so" --public "$dir/public.json"
      cp "$PACER" "$dir/bin/pacer"; INPUTS+=("$dir/bin/pacer")
      saved=$PACER; PACER="$dir/bin/pacer"
      PREFIX=(env "LD_LIBRARY_PATH=$(dirname "$(dirname "$saved")")/lib")
      refuse "$c --proof onto the executable" "bin/pacer: is the same file as the input (the pacer executable)" \
        $(prove_into bin/pacer public.json)
      PACER=$saved; PREFIX=() ;;
    output_device)
      # A FIFO or a device must stay what it is: no write into it (that blocks) and no rename over it.
      mkfifo "$dir/out.fifo"; ln -s /dev/null "$dir/devnull.zkey"
      refuse "$c --proof a FIFO" "out.fifo: is a FIFO, not a regular file" $(prove_into out.fifo public.json)
      OUTPUTS=("$dir/out.json")
      refuse "$c setup --zkey a FIFO" "out.fifo: is a FIFO" \
        setup --insecure --r1cs "$dir/circuit.r1cs" --zkey "$dir/out.fifo" --vkey "$dir/out.json"
      refuse "$c setup --zkey a link to /dev/null" "devnull.zkey: is a character device" \
        setup --insecure --r1cs "$dir/circuit.r1cs" --zkey "$dir/devnull.zkey" --vkey "$dir/out.json"
      if [ -p "$dir/out.fifo" ] && [ "$(readlink "$dir/devnull.zkey")" = /dev/null ] && [ -c /dev/null ]; then
        pass "$c: the FIFO and the link to /dev/null are untouched"
      else fail "$c: the FIFO or the link to /dev/null was replaced"; fi ;;
    lying_counts)
      # Header counts that the sections cannot hold: refused before any allocation or output.
      python3 - "$dir/circuit.r1cs" "$dir/wires.r1cs" "$dir/witness.wtns" "$dir/values.wtns" <<'PY'
import struct, sys
def patch(src, dst, magic_sid, field, value):
    data = bytearray(open(src, "rb").read())
    pos = 12
    for _ in range(struct.unpack_from("<I", data, 8)[0]):
        sid, size = struct.unpack_from("<IQ", data, pos)
        if sid == magic_sid:
            struct.pack_into("<I", data, pos + 12 + field, value)
        pos += 12 + size
    open(dst, "wb").write(data)
patch(sys.argv[1], sys.argv[2], 1, 4 + 32, 1 << 24)       # r1cs nWires = 2^24
patch(sys.argv[3], sys.argv[4], 1, 4 + 32, 0xffffffff)    # wtns nWitness = 2^32 - 1
PY
      INPUTS+=("$dir/wires.r1cs" "$dir/values.wtns")
      OUTPUTS=("$dir/out.zkey" "$dir/out.json")
      refuse "$c setup, r1cs of 2^24 wires" "wires.r1cs: section 3 (wire to label map) has 56 bytes but nWires = 16777216" \
        setup --insecure --r1cs "$dir/wires.r1cs" --zkey "$dir/out.zkey" --vkey "$dir/out.json"
      OUTPUTS=("$dir/proof.json" "$dir/public.json")
      refuse "$c prove, witness of 2^32-1 values" "values.wtns: section 2 (values) has 224 bytes but 4294967295 values" \
        "${prove[@]}" --zkey "$dir/circuit.zkey" --witness "$dir/values.wtns" ;;
    deep_config)
      python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
open(d + "/arrays.toml", "w").write("[host]\nplugin_dirs = " + "[" * 30000 + "]" * 30000 + "\n")
open(d + "/inline.toml", "w").write("[backend]\nparams = " + "{a = " * 12000 + "\n")
open(d + "/dotted.toml", "w").write("a" + ".a" * 30000 + " = 1\n")
open(d + "/header.toml", "w").write("[a" + ".a" * 30000 + "]\n")
open(d + "/line.toml", "w").write("[host]\nplugin_dirs = [" + "'x'," * 5000 + "]\n")
open(d + "/big.toml", "w").write("# padding\n" * 200000)
PY
      for f in arrays inline dotted header line big; do INPUTS+=("$dir/$f.toml"); done
      refuse "$c nested arrays" "arrays.toml:2: arrays and tables nested more than 32 deep" \
        prove --config "$dir/arrays.toml" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" --proof "$dir/proof.json" --public "$dir/public.json"
      refuse "$c nested inline tables" "inline.toml:2: arrays and tables nested more than 32 deep" plugins --config "$dir/inline.toml"
      refuse "$c long dotted key" "dotted.toml:1: a dotted key of more than 32 parts" inspect --config "$dir/dotted.toml" "$dir/circuit.zkey"
      refuse "$c long table header" "header.toml:1: a dotted key of more than 32 parts" plugins --config "$dir/header.toml"
      refuse "$c long line" "line.toml:2: line longer than 4096 bytes" plugins --config "$dir/line.toml"
      refuse "$c 2 MB file" "big.toml: 2000000 bytes, more than the 65536 a config file may have" plugins --config "$dir/big.toml" ;;
    thread_limit)
      printf '[host]\nthreads = 64\n' >"$dir/threads.toml"; INPUTS+=("$dir/threads.toml")
      # pthread_create fails after five threads of the process (tests/tools/refuse_threads.c, preloaded;
      # under ASan ahead of its runtime, which then does not insist on coming first).
      [ -n "${PACER_IT_REFUSE_THREADS:-}" ] || { echo "PACER_IT_REFUSE_THREADS (the preload shim) is not set"; exit 1; }
      PREFIX=(env "LD_PRELOAD=$PACER_IT_REFUSE_THREADS" PACER_REFUSE_THREADS_AFTER=5
              "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0")
      refuse "$c prove (threads refused)" "[host] threads: the system refused to start thread" \
        prove --config "$dir/threads.toml" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" --proof "$dir/proof.json" --public "$dir/public.json"
      OUTPUTS=("$dir/out.zkey" "$dir/out.json")
      refuse "$c setup (threads refused)" "[host] threads: the system refused" \
        setup --insecure --config "$dir/threads.toml" --r1cs "$dir/circuit.r1cs" --zkey "$dir/out.zkey" --vkey "$dir/out.json"
      # A real limit where one applies: address space for 4096 thread stacks of 8 MiB is not there
      # under a 2 GB RLIMIT_AS (AddressSanitizer needs terabytes of it, so not in that build).
      if [ $ASAN -eq 0 ]; then
        printf '[host]\nthreads = 4096\n' >"$dir/many.toml"; INPUTS+=("$dir/many.toml")
        OUTPUTS=("$dir/proof.json" "$dir/public.json")
        PREFIX=(bash -c 'ulimit -s 8192 && ulimit -v 2000000 && exec "$0" "$@"')
        refuse "$c prove (RLIMIT_AS)" "[host] threads: the system refused to start thread" \
          prove --config "$dir/many.toml" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" --proof "$dir/proof.json" --public "$dir/public.json"
      fi ;;
    config_everywhere)
      # A config that `prove` refuses is refused by every subcommand, the same way.
      printf '[backend]\nplugin = "cpu"\nparams = { bogus_param = 1 }\n' >"$dir/params.toml"
      printf '[scheduler]\nplugin = "no_such_scheduler"\n' >"$dir/plugin.toml"
      INPUTS+=("$dir/params.toml" "$dir/plugin.toml")
      for cfg in params:"unknown key 'bogus_param' in [backend.params]" plugin:"no scheduler plugin named 'no_such_scheduler'"; do
        f=${cfg%%:*}; needle=${cfg#*:}; cf="$dir/$f.toml"
        OUTPUTS=("$dir/proof.json" "$dir/public.json" "$dir/out.zkey" "$dir/out.json" "$dir/out.r1cs" "$dir/out.wtns")
        refuse "$c $f: prove" "$needle" prove --config "$cf" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" \
          --proof "$dir/proof.json" --public "$dir/public.json"
        refuse "$c $f: plugins" "$needle" plugins --config "$cf"
        refuse "$c $f: inspect" "$needle" inspect --config "$cf" "$dir/circuit.zkey"
        refuse "$c $f: setup" "$needle" setup --insecure --config "$cf" --r1cs "$dir/circuit.r1cs" --zkey "$dir/out.zkey" --vkey "$dir/out.json"
        refuse "$c $f: gen-circuit" "$needle" gen-circuit --constraints 4 --config "$cf" --r1cs "$dir/out.r1cs" --witness "$dir/out.wtns"
        refuse "$c $f: bench" "$needle" bench --config "$cf" --zkey "$dir/circuit.zkey" --witness "$dir/witness.wtns" --proofs 1 --jobs 1 \
          --json "$dir/out.json"
      done ;;
    *) fail "unknown case '$c'" ;;
  esac
done
finish
