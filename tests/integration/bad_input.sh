#!/usr/bin/env bash
# Integration (d): bad input on the command line. Each case must exit 2 (never >= 128: a crash),
# with exactly one line on stderr that starts "pacer: error:" and names the offending file or key.
#   usage: bad_input.sh <path to pacer> <source dir> [case ...]
#   cases: missing_zkey truncated_zkey wrong_magic curve_mismatch witness_size unknown_backend unknown_key
#          damaged_point allocator_param hugetlb_empty keep_freed_memory
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_config

MUL3_BN=$(fixture mul3:bn128); MUL3_BLS=$(fixture mul3:bls12381); CHAIN_BN=$(fixture chain:bn128)

# expect_error CASE NEEDLE pacer-args...: NEEDLE must appear in the one stderr line.
expect_error() {
  local name=$1 needle=$2; shift 2
  local out="$WORK/$name" rc=0
  run_pacer "$out" "$@" || rc=$?
  local nlines first ok=1
  # Log lines ("[time] [info] ...") may come first; the error is exactly one line, the last one.
  nlines=$(grep -vc '^\[[0-9:.]*\] \[' "$out/stderr" || true)
  first=$(tail -n 1 "$out/stderr")
  if [ $rc -ge 128 ]; then fail "$name: pacer crashed (exit $rc)"; ok=0
  elif [ $rc -ne 2 ]; then fail "$name: exit $rc, want 2"; ok=0; fi
  if [ "$nlines" -ne 1 ]; then fail "$name: $nlines lines on stderr, want exactly 1 besides log lines"; ok=0; fi
  case "$first" in "pacer: error:"*) ;; *) fail "$name: stderr does not start with 'pacer: error:'"; ok=0;; esac
  case "$first" in *"$needle"*) ;; *) fail "$name: the error does not name '$needle'"; ok=0;; esac
  if [ $ok -eq 1 ]; then pass "$name: exit 2, $first"
  else echo "    command: pacer $*"; show_output "$out"; fi
}

# A copy of the default config with one change (awk: stays valid TOML whatever the layout).
config_with_backend() {   # [backend] plugin = $1
  awk -v p="$1" '
    /^\[/ { if (inb && !done) { print "plugin = \"" p "\""; done = 1 } inb = ($0 ~ /^\[backend\][ \t]*(#.*)?$/) }
    inb && /^[ \t]*plugin[ \t]*=/ { if (!done) print "plugin = \"" p "\""; done = 1; next }
    { print }
    END { if (inb && !done) print "plugin = \"" p "\""; else if (!done) print "[backend]\nplugin = \"" p "\"" }
  ' "$CONFIG"
}
config_with_unknown_key() {   # [pipeline] $1 = 1
  awk -v k="$1" '
    { print }
    /^\[pipeline\][ \t]*(#.*)?$/ && !done { print k " = 1"; done = 1 }
    END { if (!done) print "[pipeline]\n" k " = 1" }
  ' "$CONFIG"
}

# A copy of zkey $1 at $2 whose first point in section 5 (A) has its x coordinate's top byte
# flipped: off the curve (or not below p), while every size and header still checks out.
damage_first_a_point() {
  python3 - "$1" "$2" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
pos = 12
for _ in range(struct.unpack_from("<I", data, 8)[0]):
    sid, size = struct.unpack_from("<IQ", data, pos)
    if sid == 2:
        n8q = struct.unpack_from("<I", data, pos + 12)[0]
    if sid == 5:
        data[pos + 12 + n8q - 1] ^= 0x3F
    pos += 12 + size
open(sys.argv[2], "wb").write(data)
PY
}

mapfile -t todo < <(cases_or missing_zkey truncated_zkey wrong_magic curve_mismatch witness_size unknown_backend unknown_key damaged_point \
                              allocator_param hugetlb_empty keep_freed_memory)
for c in "${todo[@]}"; do
  out="$WORK/$c"; mkdir -p "$out"
  prove=(prove --config "$CONFIG" --proof "$out/proof.json" --public "$out/public.json")
  case "$c" in
    missing_zkey)
      expect_error "$c" no_such_key_file.zkey "${prove[@]}" --zkey "$out/no_such_key_file.zkey" --witness "$MUL3_BN/witness.wtns" ;;
    truncated_zkey)
      head -c 1000 "$MUL3_BN/circuit.zkey" >"$out/truncated.zkey"
      expect_error "$c" truncated.zkey "${prove[@]}" --zkey "$out/truncated.zkey" --witness "$MUL3_BN/witness.wtns" ;;
    wrong_magic)
      cp "$MUL3_BN/witness.wtns" "$out/a_witness_not_a_key.wtns"
      expect_error "$c" a_witness_not_a_key.wtns "${prove[@]}" --zkey "$out/a_witness_not_a_key.wtns" --witness "$MUL3_BN/witness.wtns" ;;
    curve_mismatch)
      cp "$MUL3_BLS/witness.wtns" "$out/bls12381_witness.wtns"
      expect_error "$c" bls12381_witness.wtns "${prove[@]}" --zkey "$MUL3_BN/circuit.zkey" --witness "$out/bls12381_witness.wtns" ;;
    witness_size)
      cp "$CHAIN_BN/witness.wtns" "$out/chain_witness.wtns"
      expect_error "$c" chain_witness.wtns "${prove[@]}" --zkey "$MUL3_BN/circuit.zkey" --witness "$out/chain_witness.wtns" ;;
    unknown_backend)
      config_with_backend no_such_backend >"$out/config.toml"
      expect_error "$c" no_such_backend prove --config "$out/config.toml" --zkey "$MUL3_BN/circuit.zkey" \
        --witness "$MUL3_BN/witness.wtns" --proof "$out/proof.json" --public "$out/public.json" ;;
    unknown_key)
      config_with_unknown_key no_such_key >"$out/config.toml"
      expect_error "$c" no_such_key prove --config "$out/config.toml" --zkey "$MUL3_BN/circuit.zkey" \
        --witness "$MUL3_BN/witness.wtns" --proof "$out/proof.json" --public "$out/public.json" ;;
    damaged_point)
      damage_first_a_point "$MUL3_BN/circuit.zkey" "$out/damaged.zkey"
      expect_error "$c" "damaged.zkey: section 5 (A), point 0" "${prove[@]}" --zkey "$out/damaged.zkey" --witness "$MUL3_BN/witness.wtns" ;;
    allocator_param)
      printf '[allocator]\nplugin = "hugetlb"\nparams = { page = "3M", on_empty = "plain" }\n' >"$out/config.toml"
      expect_error "$c" 'page must be "2M" or "1G"' "${prove[@]/$CONFIG/$out/config.toml}" \
        --zkey "$MUL3_BN/circuit.zkey" --witness "$MUL3_BN/witness.wtns" ;;
    hugetlb_empty)  # 1 GiB pages are (almost) never reserved: the default on_empty = "error" names the fix
      if [ "$(cat /sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages 2>/dev/null || echo 0)" != 0 ]; then
        pass "$c: skipped, this machine has free 1 GiB hugetlb pages"; continue
      fi
      printf '[allocator]\nplugin = "hugetlb"\nparams = { page = "1G" }\n' >"$out/config.toml"
      expect_error "$c" 'hugepages=N' "${prove[@]/$CONFIG/$out/config.toml}" \
        --zkey "$MUL3_BN/circuit.zkey" --witness "$MUL3_BN/witness.wtns" ;;
    keep_freed_memory)
      printf '[host]\nkeep_freed_memory = true\n' >"$out/config.toml"
      expect_error "$c" 'plugin = "pooled"' "${prove[@]/$CONFIG/$out/config.toml}" \
        --zkey "$MUL3_BN/circuit.zkey" --witness "$MUL3_BN/witness.wtns" ;;
    *) fail "unknown case '$c'" ;;
  esac
done
finish
