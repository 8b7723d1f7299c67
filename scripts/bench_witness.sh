#!/usr/bin/env bash
# Witness generation and fullprove against snarkjs (docs/benchmarks.md, "Witness generation and
# fullprove"). For each circuit, in one run and on one machine:
#   witness: wall time of `pacer witness --wasm` and `--circuit-cpp` (warm cache), of `snarkjs wtns
#            calculate`, of circom's own C++ witness binary (what rapidsnark users run), the time
#            of snarkjs's witness calculator inside one Node process with the module reused, and its
#            counterpart in Pacer: the witness stage inside one `pacer bench --wasm --input` process
#            (generator loaded once, p50 of 5 proofs after a warm-up), which is how the daemon runs it;
#   fullprove: wall time of `pacer prove --wasm --input` (the default config, which checks every key
#            point's subgroup at load, and with check_key_subgroups = false: keys trusted, as snarkjs
#            and rapidsnark trust them) against `snarkjs groth16 fullprove`, and
#            (with RAPIDSNARK=/path/to/prover, bn128 only) against circom's C++ witness binary
#            followed by rapidsnark's prover, as rapidsnark users run them.
# Medians of ROUNDS interleaved rounds (each round runs every tool once, in turn, starting one tool
# further on than the round before).
#   usage: scripts/bench_witness.sh [WORK_DIR] [circuit ...]
#   circuits: poseidon3:bn128 (shipped), chainN:CURVE (a chain of N Poseidon(2), built here with
#   circom2; keys from `pacer setup --insecure`)
# Needs a build (build/bin/pacer), tests/oracle/node_modules (scripts/install_deps.sh), make, g++.
# rapidsnark is built outside this repository (docs/benchmarks.md says how); RAPIDSNARK unset: no
# rapidsnark column.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(realpath -m "${1:-$root/build/bench-witness}"); shift || true
circuits=("$@")
[ ${#circuits[@]} -gt 0 ] || circuits=(poseidon3:bn128 chain40:bn128 chain590:bn128 chain40:bls12381)
ROUNDS=${ROUNDS:-5}
pacer="$root/build/bin/pacer"
oracle="$root/tests/oracle/node_modules"
snarkjs="$oracle/.bin/snarkjs"
cache="$work/cache"
mkdir -p "$work"
printf '[host]\ncheck_key_subgroups = false\n' >"$work/trusted-keys.toml"

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# time_ms CMD...: wall milliseconds of one run (output discarded; a failure stops the script)
time_ms() { local t0; t0=$(date +%s%N); "$@" >/dev/null 2>"$work/last.err" || { cat "$work/last.err" >&2; exit 1; }; ms_since "$t0"; }

# Makes $dir/{circuit.wasm, circuit_cpp/, circuit.zkey, input.json} for one circuit spec.
prepare() {
  local spec=$1 dir=$2 name=${1%%:*} curve=${1##*:}
  mkdir -p "$dir"
  [ -f "$dir/circuit.zkey" ] && return
  local tree="$root/tests/oracle/work/bench-$name-$curve"  # circom2 sees only the cwd tree
  mkdir -p "$tree"
  if [ "$name" = poseidon3 ]; then
    cp "$root/examples/circuits/poseidon3/circuit.circom" "$tree/circuit.circom"
    cp "$root/examples/circuits/poseidon3/input.json" "$dir/input.json"
  else
    { cat "$root/scripts/bench/poseidon_chain.circom"; echo "component main = PoseidonChain(${name#chain});"; } \
      >"$tree/circuit.circom"
    echo '{"x": ["1", "2"]}' >"$dir/input.json"
  fi
  echo "== $spec: circom2 --wasm --c" >&2
  (cd "$root/tests/oracle" && npx --no-install circom2 "work/bench-$name-$curve/circuit.circom" --r1cs --wasm --c --sym \
     --prime "$curve" -l node_modules -o "work/bench-$name-$curve" >"$tree/circom.log")
  cp "$tree/circuit_js/circuit.wasm" "$tree/circuit.sym" "$tree/circuit.r1cs" "$dir/"
  rm -rf "$dir/circuit_cpp"; cp -r "$tree/circuit_cpp" "$dir/"
  echo "== $spec: circom's C++ binary (make)" >&2
  (cd "$dir/circuit_cpp" && make -s >/dev/null 2>&1)
  echo "== $spec: pacer setup --insecure" >&2
  "$pacer" setup --insecure --r1cs "$dir/circuit.r1cs" --zkey "$dir/circuit.zkey" --vkey "$dir/vkey.json" 2>/dev/null
}

rapidsnark=${RAPIDSNARK:-}
# circom's C++ witness binary, then rapidsnark's prover: a rapidsnark user's fullprove.
rapidsnark_fullprove() {
  (cd "$1/circuit_cpp" && ./circuit "$1/input.json" "$1/rs.wtns") &&
    "$rapidsnark" "$1/circuit.zkey" "$1/rs.wtns" "$1/rp.json" "$1/ru.json"
}

echo "| circuit | constraints | wires | first compile wasm / C++ (s) | pacer witness --wasm (ms) | pacer witness --circuit-cpp (ms) | circom C++ binary (ms) | snarkjs wtns calculate (ms) | snarkjs in-process (ms) | pacer in-process witness stage (ms) | CLI / pacer --wasm | in-process: snarkjs / pacer | pacer prove --wasm --input (ms) | the same, keys trusted (ms) | snarkjs groth16 fullprove (ms) | snarkjs / pacer (trusted) | C++ binary + rapidsnark (ms) | rapidsnark / pacer (trusted) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for spec in "${circuits[@]}"; do
  dir="$work/${spec/:/-}"
  prepare "$spec" "$dir"
  constraints=$("$pacer" inspect "$dir/circuit.r1cs" | sed -n 's/^constraints: *//p')
  wires=$("$pacer" inspect "$dir/circuit.r1cs" | sed -n 's/^wires: *//p')
  # First compile into a fresh cache entry (timed), then everything below runs warm.
  rm -rf "$cache"
  first_wasm=$(time_ms "$pacer" witness --compile-only --wasm "$dir/circuit.wasm" --cache-dir "$cache")
  first_cpp=$(time_ms "$pacer" witness --compile-only --circuit-cpp "$dir/circuit_cpp" --cache-dir "$cache")
  "$snarkjs" wtns calculate "$dir/circuit.wasm" "$dir/input.json" "$dir/snarkjs.wtns" >/dev/null
  "$pacer" witness --wasm "$dir/circuit.wasm" --input "$dir/input.json" --out "$dir/pacer.wtns" --cache-dir "$cache" 2>/dev/null
  cmp -s "$dir/pacer.wtns" "$dir/snarkjs.wtns" || { echo "$spec: pacer's witness differs from snarkjs's" >&2; exit 1; }
  pw=() pc=() cb=() sc=() ip=() pi=() pp=() pt=() sf=() rs=()
  with_rapidsnark=; [ -n "$rapidsnark" ] && [ "${spec##*:}" = bn128 ] && with_rapidsnark=1
  # One function per tool; round r starts at tool r and goes round, so that every tool follows
  # every other equally often (a tool run right after a large prover, which leaves the caches cold
  # and frees a GB, ran up to 50 ms slower on the 2-core VM).
  step_pw() { pw+=("$(time_ms "$pacer" witness --wasm "$dir/circuit.wasm" --input "$dir/input.json" --out "$dir/w1.wtns" --cache-dir "$cache")"); }
  step_pc() { pc+=("$(time_ms "$pacer" witness --circuit-cpp "$dir/circuit_cpp" --input "$dir/input.json" --out "$dir/w2.wtns" --cache-dir "$cache")"); }
  step_cb() { cb+=("$(cd "$dir/circuit_cpp" && time_ms ./circuit "$dir/input.json" "$dir/w3.wtns")"); }
  step_sc() { sc+=("$(time_ms "$snarkjs" wtns calculate "$dir/circuit.wasm" "$dir/input.json" "$dir/w4.wtns")"); }
  step_ip() { ip+=("$(node "$root/scripts/bench/witness_inprocess.cjs" "$oracle/circom_runtime" "$dir/circuit.wasm" "$dir/input.json" 5)"); }
  step_pi() {
    "$pacer" bench --config "$work/trusted-keys.toml" --zkey "$dir/circuit.zkey" --wasm "$dir/circuit.wasm" \
      --input "$dir/input.json" --cache-dir "$cache" --proofs 5 --jobs 1 --warmup 1 --json "$dir/bench.json" >/dev/null 2>&1 ||
      { echo "$spec: pacer bench --wasm --input failed" >&2; exit 1; }
    pi+=("$(python3 -c 'import json,sys; w = json.load(open(sys.argv[1]))["stages"]["witness"]["wall_seconds"]["p50"]; print("%.2f" % (w * 1000))' "$dir/bench.json")")
  }
  step_pp() {
    pp+=("$(time_ms "$pacer" prove --zkey "$dir/circuit.zkey" --wasm "$dir/circuit.wasm" --input "$dir/input.json" \
            --proof "$dir/p.json" --public "$dir/u.json" --cache-dir "$cache")")
  }
  step_pt() {
    pt+=("$(time_ms "$pacer" prove --config "$work/trusted-keys.toml" --zkey "$dir/circuit.zkey" --wasm "$dir/circuit.wasm" \
            --input "$dir/input.json" --proof "$dir/p.json" --public "$dir/u.json" --cache-dir "$cache")")
  }
  step_sf() { sf+=("$(time_ms "$snarkjs" groth16 fullprove "$dir/input.json" "$dir/circuit.wasm" "$dir/circuit.zkey" "$dir/sp.json" "$dir/su.json")"); }
  step_rs() { rs+=("$(time_ms rapidsnark_fullprove "$dir")"); }
  steps=(pw pc cb sc ip pi pp pt sf)
  [ -z "$with_rapidsnark" ] || steps+=(rs)
  for ((round = 0; round < ROUNDS; ++round)); do
    for ((k = 0; k < ${#steps[@]}; ++k)); do "step_${steps[(round + k) % ${#steps[@]}]}"; done
  done
  if [ -n "$with_rapidsnark" ]; then
    "$snarkjs" groth16 verify "$dir/vkey.json" "$dir/ru.json" "$dir/rp.json" >/dev/null ||
      { echo "$spec: snarkjs refused rapidsnark's proof" >&2; exit 1; }
  fi
  "$snarkjs" groth16 verify "$dir/vkey.json" "$dir/u.json" "$dir/p.json" >/dev/null ||
    { echo "$spec: snarkjs refused pacer's proof" >&2; exit 1; }
  m_pw=$(median "${pw[@]}") m_pc=$(median "${pc[@]}") m_cb=$(median "${cb[@]}") m_sc=$(median "${sc[@]}")
  m_ip=$(median "${ip[@]}") m_pi=$(median "${pi[@]}") m_pp=$(median "${pp[@]}") m_pt=$(median "${pt[@]}") m_sf=$(median "${sf[@]}")
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f×", a / (b > 0 ? b : 1) }'; }
  rapid="–"; rapid_ratio="–"
  if [ -n "$with_rapidsnark" ]; then rapid=$(median "${rs[@]}"); rapid_ratio=$(ratio "$rapid" "$m_pt"); fi
  echo "| $spec | $constraints | $wires | $(awk -v a="$first_wasm" -v b="$first_cpp" 'BEGIN { printf "%.1f / %.1f", a/1000, b/1000 }') | $m_pw | $m_pc | $m_cb | $m_sc | $m_ip | $m_pi | $(ratio "$m_sc" "$m_pw") | $(ratio "$m_ip" "$m_pi") | $m_pp | $m_pt | $m_sf | $(ratio "$m_sf" "$m_pt") | $rapid | $rapid_ratio |"
done
