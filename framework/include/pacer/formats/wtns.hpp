#pragma once
// Witness files (.wtns, SNARKJS_FORMATS.md §4): values in standard form, wire 0 = 1.
#include <string>
#include <vector>

#include "pacer/formats/zkey.hpp"
#include "pacer/types.hpp"

namespace pacer {

struct Witness {
  std::string path;
  CurveId curve = CurveId::bn254;
  std::vector<Fr256> values;  // standard form, < r
};

// Throws InputError naming the path: bad magic/version, unknown prime, truncated, value >= r.
Witness read_wtns(const std::string& path);

// Mismatched curve or size between key and witness: InputError naming both files.
void check_witness_matches(const ProvingKey& key, const Witness& w);

}  // namespace pacer
