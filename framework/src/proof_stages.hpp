#pragma once
// The work of the engine's own stages (the backend does compute_h and the MSMs): the row index
// and synthesis (sparse MatVec), and assembly with blinding (docs/formats.md §6.2, §6.6). Curve dispatch
// happens here, so the engine (prover.cpp) is curve-agnostic.
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

// Record numbers of section 4 bucketed by row: A rows [0, n), B rows [n, 2n). Built once per key
// with a counting sort, so a thread owns whole rows and never races on a[row] or b[row].
struct RowIndex {
  std::vector<uint32_t> row_start;  // 2n + 1 offsets into records
  std::vector<uint32_t> records;
};
std::shared_ptr<RowIndex> build_row_index(const ProvingKey& key);

// a = A·w, b = B·w, c = a∘b (Montgomery form); checkpoint before each chunk of rows.
void synthesize(const ProvingKey& key, const RowIndex& index, const Witness& w, std::span<Fr256> a,
                std::span<Fr256> b, std::span<Fr256> c, ThreadPool& pool, const Checkpoint& checkpoint);

// The MSM results of one proof, in the order the engine computes them.
struct ProofPoints {
  PointBytes a, b1, c, h, b2;
};
struct ProofJson {
  std::string proof, public_signals;
};
// Blinding r, s from the OS CSPRNG (or zero: TEST ONLY) and the snarkjs JSON (docs/formats.md §6.6, §7).
ProofJson assemble(const ProvingKey& key, const ProofPoints& points, const Witness& w, bool zero_blinding);

}  // namespace pacer
