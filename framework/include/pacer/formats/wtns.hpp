#pragma once
// Witness files (.wtns, docs/formats.md §4): values in standard form, wire 0 = 1.
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
// The same from bytes in memory (a request body); `name` stands for the path in messages.
Witness read_wtns_bytes(const std::string& name, std::string bytes, Allocator* allocator = nullptr);

// Mismatched curve or size between key and witness: InputError naming both files.
void check_witness_matches(const ProvingKey& key, const Witness& w);

}  // namespace pacer
