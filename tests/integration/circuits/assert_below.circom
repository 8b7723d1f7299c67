pragma circom 2.0.0;

// A circuit that refuses inputs: its subcomponent asserts a < 100 (line 9), and it logs.
// tests/integration/fullprove.sh compiles it with circom2 (--wasm) and expects the template and
// line of the failing assert in Pacer's error.
template Inner() {
    signal input a;
    signal output b;
    assert(a < 100);
    b <== a * a;
}

template AssertBelow() {
    signal input a;
    signal input c[2];
    signal output out;
    component inner = Inner();
    inner.a <== a;
    log("a is", a, "c0", c[0]);
    out <== inner.b * c[0] + c[1];
}

component main {public [a]} = AssertBelow();
