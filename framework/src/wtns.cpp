// Witness reader (docs/formats.md §4) and the key/witness pairing check (§6.1).
#include "pacer/formats/wtns.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <string>

#include "pacer/error.hpp"

namespace pacer {

namespace {

Witness read_wtns(const BinFile& bin, Allocator* allocator, const WtnsHeaderCheck& check_header) {
  const std::string& path = bin.path();
  Witness w;
  w.path = path;

  SectionReader header(bin, 1, "header");
  const uint32_t n8 = header.u32();
  if (n8 != sizeof(Fr256))
    throw InputError(path + ": field elements of " + std::to_string(n8) + " bytes; expected 32 (bn128, bls12381)");
  const auto prime = header.bytes(n8);
  const auto curve = curve_from_scalar_prime(prime);
  if (!curve) throw InputError(path + ": unknown scalar prime; Pacer supports bn128 and bls12381");
  w.curve = *curve;
  const uint32_t n_witness = header.u32();
  header.expect_end();

  const auto values = bin.section(2, "values");
  const uint64_t expected = uint64_t{n_witness} * n8;
  if (values.size() != expected)
    throw InputError(path + ": section 2 (values) has " + std::to_string(values.size()) + " bytes but " +
                     std::to_string(n_witness) + " values of " + std::to_string(n8) + " bytes need " +
                     std::to_string(expected));
  if (check_header) check_header(w.curve, n_witness);
  const Fr256& r = curve_scalar_prime(w.curve);
  w.values = AllocatedArray<Fr256>(allocator, n_witness, Usage::witness);  // every value written below
  // The file's little-endian limbs are the memory layout: copied in blocks (file-read speed, no
  // per-element decoding), each block checked below r while it is still in cache.
  static_assert(std::endian::native == std::endian::little && sizeof(Fr256) == 32);
  constexpr size_t kBlock = size_t(1) << 15;  // values: 1 MiB
  for (size_t begin = 0; begin < n_witness; begin += kBlock) {
    const size_t count = std::min<size_t>(kBlock, n_witness - begin);
    bin.file()->copy_out(values.subspan(begin * n8, count * n8), &w.values[begin]);
    for (size_t i = begin; i < begin + count; ++i)
      if (!fr256_less_than(w.values[i], r))
        throw InputError(path + ": witness value " + std::to_string(i) + " is not below the scalar prime r");
  }
  return w;
}

}  // namespace

Witness read_wtns(const std::string& path, Allocator* allocator) {
  return read_wtns(BinFile(path, "wtns", kWtnsMaxVersion), allocator, {});
}

Witness read_wtns_bytes(const std::string& name, std::string bytes, Allocator* allocator,
                        const WtnsHeaderCheck& check_header) {
  return read_wtns(BinFile(std::make_shared<const MappedFile>(name, std::move(bytes)), "wtns", kWtnsMaxVersion),
                   allocator, check_header);
}

void check_witness_matches(const ProvingKey& key, const Witness& w) {
  if (key.curve != w.curve)
    throw InputError("witness " + w.path + " is for " + std::string(curve_json_name(w.curve)) + " but key " + key.path +
                     " is for " + std::string(curve_json_name(key.curve)));
  if (w.values.size() != key.n_vars)
    throw InputError("witness " + w.path + " has " + std::to_string(w.values.size()) + " values but key " + key.path +
                     " expects " + std::to_string(key.n_vars) + " (nVars): was it computed for this circuit?");
}

}  // namespace pacer
