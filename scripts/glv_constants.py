#!/usr/bin/env python3
"""Derives the GLV endomorphism constants in framework/include/pacer/math/curves.hpp (used by plugins/cpu/kernels/include/pacer/cpu/glv.hpp).

Both curves have j-invariant 0, so (x, y) -> (beta*x, y), beta a cube root of unity in Fq, acts on
the prime-order subgroups of G1 and of the twist G2 as multiplication by a cube root of unity
lambda mod r. This script picks, per curve, the lambda and the betas of G1 and G2 that agree (checked
on the generators), and the short lattice basis of {(a, b): a + b*lambda = 0 mod r} that splits a
scalar k into k1 + k2*lambda with |k1|, |k2| about sqrt(r) (Guide to ECC, algorithm 3.74).
Run it to re-derive or re-check the constants; it prints them as C++.
"""
import math

CURVES = {
    "Bn254": dict(
        p=0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47,
        r=0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001,
        b1=3, b2=None,  # G2: y^2 = x^3 + 3/(9+u)
        g1=(1, 2),
        g2=((10857046999023057135944570762232829481370756359578518086990519993285655852781,
             11559732032986387107991004021392285783925812861821192530917403151452391805634),
            (8495653923123431417604973247489272438418190587263600148770280649306958101930,
             4082367875863433681332203403145435568316851327593401208105741076214120093531))),
    "Bls12_381": dict(
        p=0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB,
        r=0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
        b1=4, b2=(4, 4),
        g1=(0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
            0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1),
        g2=((0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
             0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
            (0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
             0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE))),
}


class Fq2:  # u^2 = -1 on both curves
    def __init__(self, p): self.p = p
    def add(self, a, b): return ((a[0] + b[0]) % self.p, (a[1] + b[1]) % self.p)
    def sub(self, a, b): return ((a[0] - b[0]) % self.p, (a[1] - b[1]) % self.p)
    def mul(self, a, b):
        return ((a[0] * b[0] - a[1] * b[1]) % self.p, (a[0] * b[1] + a[1] * b[0]) % self.p)
    def inv(self, a):
        n = pow(a[0] * a[0] + a[1] * a[1], -1, self.p)
        return (a[0] * n % self.p, -a[1] * n % self.p)
    def scale(self, k, a): return (k * a[0] % self.p, k * a[1] % self.p)


class Fq1:
    def __init__(self, p): self.p = p
    def add(self, a, b): return (a + b) % self.p
    def sub(self, a, b): return (a - b) % self.p
    def mul(self, a, b): return a * b % self.p
    def inv(self, a): return pow(a, -1, self.p)
    def scale(self, k, a): return k * a % self.p


def ec_add(f, P, Q):  # affine, None = infinity
    if P is None: return Q
    if Q is None: return P
    if P[0] == Q[0]:
        if f.add(P[1], Q[1]) == f.sub(P[1], P[1]): return None
        lam = f.mul(f.scale(3, f.mul(P[0], P[0])), f.inv(f.scale(2, P[1])))
    else:
        lam = f.mul(f.sub(Q[1], P[1]), f.inv(f.sub(Q[0], P[0])))
    x = f.sub(f.sub(f.mul(lam, lam), P[0]), Q[0])
    return (x, f.sub(f.mul(lam, f.sub(P[0], x)), P[1]))


def ec_mul(f, P, k):
    R = None
    for bit in bin(k)[2:]:
        R = ec_add(f, R, R)
        if bit == "1": R = ec_add(f, R, P)
    return R


def cube_roots_of_unity(m):
    for g in range(2, 1000):
        w = pow(g, (m - 1) // 3, m)
        if w != 1: return sorted([w, w * w % m])
    raise ValueError("no cube root of unity")


def short_basis(r, lam):
    """Algorithm 3.74: extended Euclid on (r, lambda) until the remainder drops below sqrt(r)."""
    s = math.isqrt(r)
    r0, r1, t0, t1 = r, lam, 0, 1
    while r1 >= s:
        q = r0 // r1
        r0, r1, t0, t1 = r1, r0 - q * r1, t1, t0 - q * t1
    # Now r0 >= sqrt(r) > r1: v1 = (r1, -t1); v2 is the shorter of (r0, -t0) and the next pair.
    q = r0 // r1
    r2, t2 = r0 - q * r1, t0 - q * t1
    v1 = (r1, -t1)
    v2 = (r0, -t0) if r0 * r0 + t0 * t0 <= r2 * r2 + t2 * t2 else (r2, -t2)
    return v1, v2


def derive(name, c):
    p, r = c["p"], c["r"]
    f1, f2 = Fq1(p), Fq2(p)
    lambdas, betas = cube_roots_of_unity(r), cube_roots_of_unity(p)
    out = {}
    for group, f, gen in (("G1", f1, c["g1"]), ("G2", f2, c["g2"])):
        for lam in lambdas:
            target = ec_mul(f, gen, lam)
            for beta in betas:
                if (f.scale(beta, gen[0]), gen[1]) == target: out[group] = (lam, beta)
    assert "G1" in out and "G2" in out, name
    lam = out["G1"][0]
    if out["G2"][0] != lam:  # use the other beta on G2 so both groups share lambda (and the split)
        beta2 = out["G2"][1] * out["G2"][1] % p
        assert (f2.scale(beta2, c["g2"][0]), c["g2"][1]) == ec_mul(f2, c["g2"], lam)
        out["G2"] = (lam, beta2)
    assert (lam * lam + lam + 1) % r == 0
    (a1, b1), (a2, b2) = short_basis(r, lam)
    assert (a1 + b1 * lam) % r == 0 and (a2 + b2 * lam) % r == 0
    # c1 = round(b2*k/r), c2 = round(-b1*k/r) from 2^256-scaled constants (error at most one).
    g1, g2 = (b2 << 256) // r, (-b1 << 256) // r
    bound = 0
    import random
    rng = random.Random(1)
    for k in [0, 1, 2, r - 1, r - 2, lam, r - lam] + [rng.randrange(r) for _ in range(20000)]:
        c1, c2 = (k * g1) >> 256, (k * g2) >> 256
        k1, k2 = k - c1 * a1 - c2 * a2, -c1 * b1 - c2 * b2
        assert (k1 + k2 * lam - k) % r == 0
        bound = max(bound, abs(k1).bit_length(), abs(k2).bit_length())
    return dict(lam=lam, beta_g1=out["G1"][1], beta_g2=out["G2"][1], a1=a1, b1=b1, a2=a2, b2=b2, g1=g1, g2=g2,
                bound=bound)


def hex256(v):  # two's complement, as limbs_from_hex<4> takes it
    return f'"{v % (1 << 256):064x}"'


if __name__ == "__main__":
    for name, c in CURVES.items():
        d = derive(name, c)
        n = 6 if name == "Bls12_381" else 4
        print(f"// {name}: lambda = {d['lam']}; |k1|, |k2| < 2^{d['bound']} over the sampled scalars")
        print(f'G1 beta: limbs_from_hex<{n}>("{d["beta_g1"]:x}")')
        print(f'G2 beta: limbs_from_hex<{n}>("{d["beta_g2"]:x}")')
        print("basis: " + ", ".join(f"limbs_from_hex<4>({hex256(d[k])})" for k in ("a1", "b1", "a2", "b2", "g1", "g2")))
