#pragma once
// Witness files (.wtns, docs/formats.md §4): values in standard form, wire 0 = 1.
#include <cstdint>
#include <functional>
#include <string>

#include "pacer/buffer.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/types.hpp"

namespace pacer {

// Move-only: the values live in memory of the allocator it was read with, which must outlive it.
struct Witness {
  std::string path;
  CurveId curve = CurveId::bn254;
  AllocatedArray<Fr256> values;  // standard form, < r
};

// Throws InputError naming the path: bad magic/version, unknown prime, truncated, value >= r.
// The values come from `allocator` (Usage::witness; null: operator new).
Witness read_wtns(const std::string& path, Allocator* allocator = nullptr);
// Called with a witness's curve and value count once its header and section sizes are checked,
// before anything is allocated for its values: it may throw to refuse the witness.
using WtnsHeaderCheck = std::function<void(CurveId curve, uint64_t n_values)>;
// The same from bytes in memory (a request body); `name` stands for the path in messages.
Witness read_wtns_bytes(const std::string& name, std::string bytes, Allocator* allocator = nullptr,
                        const WtnsHeaderCheck& check_header = {});

// Mismatched curve or size between key and witness: InputError naming both files.
void check_witness_matches(const ProvingKey& key, const Witness& w);

}  // namespace pacer
