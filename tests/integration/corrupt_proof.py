#!/usr/bin/env python3
"""Writes a corrupted copy of a Groth16 proof or its public signals, for verify_agreement.sh.

usage: corrupt_proof.py KIND CURVE PROOF PUBLIC OUT_PROOF OUT_PUBLIC
KIND: coordinate   pi_a.x + 1 (mod q): a point off the curve, almost surely
      swap_fq2     pi_b.x as [c1, c0] instead of [c0, c1]
      public       the first public signal + 1 (mod r)
      off_curve    pi_c.y + 1 (mod q)
      off_subgroup pi_b replaced by a point of the twist outside the order-r subgroup
      too_few      the last public signal dropped
      too_many     a public signal "1" appended
Prints nothing; exits 3 when KIND does not apply (e.g. `public` without public signals).
"""
import json
import sys

CURVES = {
    "bn128": dict(
        q=0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47,
        r=0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001,
        b=3, xi=(9, 1), twist="d"),
    "bls12381": dict(
        q=0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB,
        r=0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
        b=4, xi=(1, 1), twist="m"),
}


class Fq2:
    """c0 + c1·u with u² = -1 (both curves)."""

    def __init__(self, q, c0, c1=0):
        self.q, self.c0, self.c1 = q, c0 % q, c1 % q

    def __add__(self, o): return Fq2(self.q, self.c0 + o.c0, self.c1 + o.c1)
    def __mul__(self, o):
        return Fq2(self.q, self.c0 * o.c0 - self.c1 * o.c1, self.c0 * o.c1 + self.c1 * o.c0)
    def __eq__(self, o): return (self.c0, self.c1) == (o.c0, o.c1)

    def pow(self, e):
        r, x = Fq2(self.q, 1), self
        while e:
            if e & 1: r = r * x
            x, e = x * x, e >> 1
        return r

    def inv(self):
        n = pow(self.c0 * self.c0 + self.c1 * self.c1, -1, self.q)
        return Fq2(self.q, self.c0 * n, -self.c1 * n)

    def sqrt(self):
        """q ≡ 3 mod 4: Adj and Rodríguez-Henríquez, alg. 9; None when not a square."""
        q = self.q
        a1 = self.pow((q - 3) // 4)
        alpha = a1 * a1 * self
        x0 = a1 * self
        if alpha == Fq2(q, -1):
            x = Fq2(q, -x0.c1, x0.c0)
        else:
            x = (Fq2(q, 1) + alpha).pow((q - 1) // 2) * x0
        return x if x * x == self else None


def twist_point_outside_subgroup(curve):
    """A point of G2's twist curve from a small x: its order is a multiple of a cofactor prime
    with overwhelming probability, so it is not in the order-r subgroup."""
    c = CURVES[curve]
    q = c["q"]
    xi = Fq2(q, *c["xi"])
    b = Fq2(q, c["b"]) * (xi.inv() if c["twist"] == "d" else xi)
    for k in range(1, 1000):
        x = Fq2(q, k, 1)
        y = (x * x * x + b).sqrt()
        if y is not None:
            return [[str(x.c0), str(x.c1)], [str(y.c0), str(y.c1)], ["1", "0"]]
    raise SystemExit("no twist point found")


def main():
    kind, curve, proof_in, public_in, proof_out, public_out = sys.argv[1:7]
    q, r = CURVES[curve]["q"], CURVES[curve]["r"]
    proof = json.load(open(proof_in))
    public = json.load(open(public_in))
    if kind == "coordinate":
        proof["pi_a"][0] = str((int(proof["pi_a"][0]) + 1) % q)
    elif kind == "swap_fq2":
        proof["pi_b"][0] = proof["pi_b"][0][::-1]
    elif kind == "public":
        if not public: sys.exit(3)
        public[0] = str((int(public[0]) + 1) % r)
    elif kind == "off_curve":
        proof["pi_c"][1] = str((int(proof["pi_c"][1]) + 1) % q)
    elif kind == "off_subgroup":
        proof["pi_b"] = twist_point_outside_subgroup(curve)
    elif kind == "too_few":
        if not public: sys.exit(3)
        public = public[:-1]
    elif kind == "too_many":
        public = public + ["1"]
    else:
        raise SystemExit(f"unknown corruption {kind}")
    json.dump(proof, open(proof_out, "w"), indent=1)
    json.dump(public, open(public_out, "w"), indent=1)


if __name__ == "__main__":
    main()
