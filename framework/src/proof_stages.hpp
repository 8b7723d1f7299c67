#pragma once
// The work of the engine's own stage (the backend does synthesis, compute_h and the MSMs): assembly
// with blinding (docs/formats.md §6.6). Curve dispatch happens here, so the engine (prover.cpp) is
// curve-agnostic.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pacer/backend.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"

namespace pacer {

class ThreadPool;


// The MSM results of one proof, in the order the engine computes them.
struct ProofPoints {
  PointBytes a, b1, c, h, b2;
};
struct ProofJson {
  std::string proof, public_signals;
};
// Blinding r, s from the OS CSPRNG (or zero: TEST ONLY) and the snarkjs JSON (docs/formats.md §6.6, §7).
// The scalar multiplications run on `pool` (null: on this thread).
ProofJson assemble(const ProvingKey& key, const ProofPoints& points, const Witness& w, bool zero_blinding,
                   ThreadPool* pool);

}  // namespace pacer
