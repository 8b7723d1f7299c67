#pragma once
// Constraint systems as circom writes them (.r1cs, docs/formats.md §3). Used by
// `pacer setup`, `pacer inspect` and witness checks; the prover itself needs only the zkey.
#include <cstdint>
#include <string>
#include <vector>

#include "pacer/types.hpp"

namespace pacer {

struct R1csTerm {
  uint32_t wire = 0;
  Fr256 coeff{};  // standard form, < r
};

// (A·w) * (B·w) - (C·w) = 0
struct R1csConstraint {
  std::vector<R1csTerm> a, b, c;
};

struct R1cs {
  std::string path;
  CurveId curve = CurveId::bn254;
  uint32_t n_wires = 0;  // witness length, wire 0 = "1" included (snarkjs: nVars)
  uint32_t n_pub_out = 0, n_pub_in = 0, n_prv_in = 0;
  uint64_t n_labels = 0;
  uint32_t n_constraints = 0;
  std::vector<R1csConstraint> constraints;  // empty unless read with_constraints

  // Public signals (wires 1..n_public), as snarkjs counts them in the zkey.
  uint32_t n_public() const { return n_pub_out + n_pub_in; }
};

// Reads and validates the header and, with_constraints, every constraint (wire < nWires,
// coefficient < r, section 2 exactly as long as its constraints). Without constraints only
// the header is read, which is quick on any size. Throws InputError "<path>: <what is wrong>".
R1cs read_r1cs(const std::string& path, bool with_constraints = true);

}  // namespace pacer
