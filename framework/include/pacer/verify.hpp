#pragma once
// Native Groth16 verification: `pacer verify` and the prover's self-check (`verify_proofs`).
// The equation is snarkjs's (docs/formats.md §8), checked with one shared Miller loop:
//   e(-A, B) · e(α, β) · e(vk_x, γ) · e(C, δ) = 1,   vk_x = IC[0] + Σ public[i]·IC[i+1].
// Stricter than snarkjs where snarkjs lets a malformed proof through to the equation: proof
// points must have coordinates below q and lie in the prime-order subgroups, and a proof point
// at infinity is refused. vk_alphabeta_12 is never read: α and β are paired afresh.
#include <string>
#include <string_view>
#include <vector>

#include "pacer/formats/zkey.hpp"

namespace pacer {

// The outcome of a verification of a well-formed proof.
struct Verdict {
  bool valid = false;
  std::string reason;  // one line saying why the proof is refused; empty when valid
};

// A JSON document and the name messages give it: its path, or e.g. "the proof just made".
struct JsonText {
  std::string_view text;
  std::string name;
};

// verification_key.json, proof.json and public.json as snarkjs writes them. A document that is
// not of its kind's shape (not JSON, a missing field, a number that is not a decimal, a key point
// off the curve or outside its subgroup) is bad input: InputError naming the document and the
// field (exit 2). A proof of the right shape that fails any check is an invalid Verdict (exit 1).
Verdict verify_groth16(const JsonText& vkey, const JsonText& proof, const JsonText& public_signals);

// The same against a proving key's own verification key (alpha1, beta2, gamma2, delta2, IC,
// already checked by read_zkey): the self-check of a proof just made from that key.
Verdict verify_groth16(const ProvingKey& key, const JsonText& proof, const JsonText& public_signals);

// e(alpha1, beta2) of a key as the 12 decimal strings of snarkjs's vk_alphabeta_12, in its
// nesting order: Fq12 = [c0, c1] of Fq6, each [c0, c1, c2] of Fq2, each [c0, c1].
std::vector<std::string> alphabeta_decimals(const ProvingKey& key);

}  // namespace pacer
