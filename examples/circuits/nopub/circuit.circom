pragma circom 2.0.0;

// No public signals at all (nPublic = 0): IC holds only IC[0] and public.json is [].
template NoPub() {
    signal input a;
    signal input b;
    signal t;
    signal u;
    t <== a * b;
    u <== t * t + a;
}

component main = NoPub();
