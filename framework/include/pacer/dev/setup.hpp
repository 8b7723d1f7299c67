#pragma once
// Development Groth16 keys straight from an .r1cs (`pacer setup --insecure`), for benchmarks at
// sizes where a powers-of-tau ceremony is impractical. The toxic waste τ, α, β, δ is drawn from the
// OS CSPRNG and forgotten, but this process knew it: anyone who could read its memory could
// forge proofs. Never use these keys in production.
//
// The key is what snarkjs `groth16 setup` would make from a ptau with the same τ (docs/formats.md
// §5.4, γ = 1): snarkjs proves with it, verifies its proofs, and exports the same verification key.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pacer/formats/r1cs.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer::dev {

// Called on the calling thread at the start of each phase (done = 0) and as it advances, ending
// with done == total. Phases, in order: lagrange, wires, tables, IC, coefficients, A, B1, B2, C,
// H, vkey.
using SetupProgress = std::function<void(std::string_view phase, uint64_t done, uint64_t total)>;

struct SetupReport {
  uint32_t n_vars = 0, n_public = 0, domain_size = 0, n_coeffs = 0;
  std::vector<std::pair<std::string, double>> phase_seconds;  // in the order they ran
};

// Writes the proving key (zkey, groth16, sections 1..10) and its verification key JSON (§8,
// without vk_alphabeta_12: that needs a pairing). The r1cs must hold its constraints.
// Throws InputError for a circuit too large for the field's roots of unity: the domain may be at
// most 2^(two_adicity - 1), because the H points need ω_2n (2^27 on bn128, 2^31 on bls12381).
SetupReport setup_insecure(const R1cs& r1cs, const std::string& zkey_out, const std::string& vkey_out,
                           ThreadPool& pool, const SetupProgress& progress = {});

// The smallest power of two >= constraints + n_public + 1 (the extra rows of §5.4).
uint64_t setup_domain_size(uint64_t constraints, uint32_t n_public);

}  // namespace pacer::dev
