pragma circom 2.0.0;

// A circuit whose witness code recurses as deep as its input says: with a large input the
// compiled generator must stop with an error (its stack guard), never crash the process.
function depth(n) {
    if (n == 0) {
        return 0;
    }
    return depth(n - 1) + 1;
}

template DeepRecursion() {
    signal input a;
    signal output b;
    b <-- depth(a);
    b === a;
}

component main = DeepRecursion();
