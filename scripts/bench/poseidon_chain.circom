pragma circom 2.0.0;
include "circomlib/circuits/poseidon.circom";

// N Poseidon(2) hashes in a chain (about 240 constraints each), for witness benchmarks
// (scripts/bench_witness.sh writes the main component with the N it is asked for).
template PoseidonChain(N) {
    signal input x[2];
    signal output out;
    component h[N];
    for (var i = 0; i < N; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== i == 0 ? x[0] : h[i - 1].out;
        h[i].inputs[1] <== x[1];
    }
    out <== h[N - 1].out;
}
