#!/usr/bin/env bash
# Builds the sppark anchor (sppark_bench.cu) against sppark and blst checkouts that stay outside
# this repository (issue 10: sppark is built outside it, never committed):
#   scripts/anchor/build.sh SPPARK_DIR BLST_DIR OUT_DIR   -> OUT_DIR/sppark_bench_{bn254,bls12_381}
# Measured with sppark 17278d7 and blst dece82e. Flags as sppark's poc/msm-cuda builds its MSM:
# FEATURE_<curve>, util/all_gpus.cpp as its own unit, blst's server.c and assembly for sppark's
# host field code (run-time mulx/adx dispatch: no -D__ADX__). cudart is linked statically, so the
# binaries run on the GPU machine beside .devcarry/dist (carry OUT_DIR).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 SPPARK_DIR BLST_DIR OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
sppark=$(cd "$1" && pwd) blst=$(cd "$2" && pwd)
mkdir -p "$3"
out=$(cd "$3" && pwd)
[ -f "$sppark/msm/pippenger.cuh" ] || { echo "$0: $sppark is not a sppark checkout (no msm/pippenger.cuh)" >&2; exit 1; }
[ -f "$blst/src/blst_t.hpp" ] || { echo "$0: $blst is not a blst checkout (no src/blst_t.hpp)" >&2; exit 1; }
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
obj=$(mktemp -d)
trap 'rm -rf "$obj"' EXIT
cc=${CC:-gcc}
"$cc" -O2 -fno-builtin -fPIC -mno-avx -c "$blst/src/server.c" -o "$obj/blst_server.o"
"$cc" -O2 -fno-builtin -fPIC -mno-avx -c "$blst/build/assembly.S" -o "$obj/blst_assembly.o"
flags=(-arch=sm_90 -O3 -std=c++17 -DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE -I"$sppark" -I"$blst/src"
       -Xcompiler -Wno-unused-function)
"$nvcc" "${flags[@]}" -c "$sppark/util/all_gpus.cpp" -o "$obj/all_gpus.o"
for curve in bn254 bls12_381; do
  "$nvcc" "${flags[@]}" -DFEATURE_${curve^^} -c "$here/sppark_bench.cu" -o "$obj/bench_$curve.o"
  "$nvcc" -arch=sm_90 -o "$out/sppark_bench_$curve" "$obj/bench_$curve.o" "$obj/all_gpus.o" \
    "$obj/blst_server.o" "$obj/blst_assembly.o" -cudart static -lpthread
done
ls -l "$out"/sppark_bench_*
