#!/bin/bash
# On the GPU machine, after device_run.sh: the kernel tuning knobs (cuda::KernelConfig, the
# self-test's --msm-* and --ntt-* options) swept over the largest sizes, one process per setting;
# and the SASS instruction mix of the field product. 0 = the automatic choice.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$HERE/pacer_cuda_selftest
OUT=${OUT:-/tmp/pacer_cuda_out}
LOG=$OUT/tune.log
for v in "8 0" "8 3" "9 3" "10 3" "11 2" "12 1"; do
  set -- $v
  echo "== NTT pass bits $1, log cols knob $2" >> "$LOG"
  timeout 60 "$BIN" --bench-only --only tune-ntt --ntt-pass-bits "$1" --ntt-log-cols "$2" >> "$LOG" 2>&1
done
for v in "0 0" "18 0" "19 0" "21 0" "0 32" "0 128"; do
  set -- $v
  echo "== MSM c $1, chunk $2" >> "$LOG"
  timeout 60 "$BIN" --bench-only --only tune-msm --msm-window-bits "$1" --msm-chunk "$2" >> "$LOG" 2>&1
done
grep -E "^==|tune BN254|MSM 2\^24 (total|  on device|    bucket|    sort)" "$LOG"
if command -v cuobjdump > /dev/null && [ -f "$HERE/field_ops.cu.o" ]; then
  cuobjdump -sass "$HERE/field_ops.cu.o" > "$OUT/field_ops.sass" 2>&1
  # instruction mix of the BN254 Fq throughput kernel
  awk '/Function : .*mul_rate_kernel.*Bn254FqParams/{f=1} /Function : /{if(!/mul_rate_kernel.*Bn254FqParams/)f=0} f' \
    "$OUT/field_ops.sass" | grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z0-9_.]+' | awk '{print $2}' | sort | uniq -c | sort -rn | head -15
fi
