#pragma once
// Synthetic benchmark circuits with a satisfying witness, at sizes no real circuit compiler would
// give us quickly (2^24 constraints and more). Shape, with P public inputs and m constraints:
//   wire 0 = 1, wires 1..P public inputs, 2 private inputs, then one internal wire per constraint;
//   constraint i: (A_i·w)(B_i·w) = w[first_internal + i], A_i and B_i with `density` random terms
//   over wires defined before it (half of them among the 64 most recent: real circuits are local).
// Deterministic in (curve, sizes, seed), whatever the number of threads.
#include <cstdint>
#include <string>
#include <vector>

#include "pacer/formats/r1cs.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/thread_pool.hpp"
#include "pacer/types.hpp"

namespace pacer::dev {

// Compact: fixed-width rows instead of one vector per linear combination, so 2^24 constraints of
// density 3 take 2^24 · 6 · 36 bytes ≈ 3.6 GB plus the witness.
struct SyntheticCircuit {
  CurveId curve = CurveId::bn254;
  uint32_t n_public = 0;          // public inputs, wires 1..n_public
  uint32_t n_private_inputs = 2;  // the next wires
  uint32_t n_constraints = 0;
  uint32_t density = 0;           // terms per A row and per B row
  // Row i: A terms at [2di, 2di + d), B terms at [2di + d, 2d(i+1)); C is {output_wire(i): 1}.
  std::vector<uint32_t> wires;
  std::vector<Fr256> coeffs;   // standard form, nonzero
  std::vector<Fr256> witness;  // standard form, n_wires() values, satisfies every constraint

  uint32_t first_internal() const { return 1 + n_public + n_private_inputs; }
  uint32_t output_wire(uint32_t constraint) const { return first_internal() + constraint; }
  uint32_t n_wires() const { return first_internal() + n_constraints; }
  R1csHeader header() const;
  // The general in-memory form (one vector per LC): for tests and small circuits.
  R1cs to_r1cs() const;
};

// What gen_circuit and the two writers below take, known before anything is generated: the
// circuit is held whole in memory (wires, coefficients and witness), then streamed to the files.
struct SyntheticSizes {
  uint64_t memory_bytes = 0;  // the SyntheticCircuit's vectors
  uint64_t r1cs_bytes = 0, wtns_bytes = 0;
};
SyntheticSizes synthetic_sizes(uint64_t constraints, unsigned density, unsigned n_public);

// Throws InputError when the sizes do not fit the formats (u32 wire and constraint counts) or
// density is 0 or above 64.
SyntheticCircuit gen_circuit(CurveId curve, uint64_t constraints, unsigned density, unsigned n_public,
                             uint64_t seed, ThreadPool& pool);

// The circuit as a circom-style .r1cs (sections 2, 1, 3) and its witness as a .wtns.
void write_circuit_r1cs(const std::string& path, const SyntheticCircuit& circuit);
void write_circuit_wtns(const std::string& path, const SyntheticCircuit& circuit);

}  // namespace pacer::dev
