#!/usr/bin/env bash
# Integration: many proofs through the engine. Six proofs of poseidon3 (bn128) with three in flight
# on two lanes ([host] threads = 2: the cpu backend has a lane per pool thread) under each
# scheduler; snarkjs must accept every proof. A config naming an unknown scheduler, or a bad
# scheduler parameter, is one line naming the key and exit 2.
#   usage: many_proofs.sh <path to pacer> <source dir> [greedy|throttled|throttled_rate|staggered|adaptive|bad_scheduler]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_pacer; need_node; need_snarkjs

FX="$CIRCUITS/poseidon3/bn128"
mapfile -t todo < <(cases_or greedy throttled throttled_rate staggered adaptive bad_scheduler)
for c in "${todo[@]}"; do
  out="$WORK/$c"; mkdir -p "$out"
  case "$c" in
    greedy) sched='plugin = "greedy"' ;;
    throttled) sched='plugin = "throttled"
params = { membw_tokens = 1 }' ;;
    throttled_rate) sched='plugin = "throttled"
params = { membw_mb_per_s = 20 }' ;;
    staggered) sched='plugin = "staggered"' ;;
    adaptive) sched='plugin = "adaptive"' ;;
    bad_scheduler)
      for bad in 'plugin = "throttle"' $'plugin = "throttled"\nparams = { membw_tokens = 0 }'; do
        printf '[scheduler]\n%s\n' "$bad" >"$out/bad.toml"
        rc=0
        run_pacer "$out" prove --config "$out/bad.toml" --zkey "$FX/circuit.zkey" --witness "$FX/witness.wtns" \
          --proof "$out/p.json" --public "$out/q.json" || rc=$?
        lines=$(wc -l <"$out/stderr")
        if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -Eq "scheduler|membw_tokens" "$out/stderr"; then
          pass "$c: '$(head -c 60 <<<"$bad" | tr '\n' ' ')' refused: $(cat "$out/stderr")"
        else
          fail "$c: '$bad' gave exit $rc with $lines lines"; show_output "$out"
        fi
      done
      continue ;;
    *) fail "unknown case '$c'"; continue ;;
  esac
  printf '[host]\nthreads = 2\n[scheduler]\n%s\n[pipeline]\njobs_in_flight = 3\n' "$sched" >"$out/cfg.toml"
  witnesses=()
  for i in 1 2 3 4 5 6; do witnesses+=(--witness "$FX/witness.wtns"); done
  rc=0
  run_pacer "$out" prove --config "$out/cfg.toml" --zkey "$FX/circuit.zkey" "${witnesses[@]}" \
    --proof "$out/proof.json" --public "$out/public.json" || rc=$?
  if [ $rc -ne 0 ]; then fail "$c: pacer prove exited $rc"; show_output "$out"; continue; fi
  ok=0
  for i in 0 1 2 3 4 5; do
    rc=0
    snarkjs_verify "$FX/verification_key.json" "$out/public-$i.json" "$out/proof-$i.json" "$out/verify-$i.log" || rc=$?
    if [ $rc -eq 0 ] && grep -q 'OK!' "$out/verify-$i.log"; then ok=$((ok + 1))
    else fail "$c: proof $i rejected by snarkjs"; cat "$out/verify-$i.log"; fi
  done
  [ $ok -eq 6 ] && pass "$c: 6 proofs, 3 in flight on 2 lanes, all accepted by snarkjs"
done
finish
