// Fuzz target: the .wtns reader, the key/witness pairing check against the shipped mul3 keys of
// both curves, and `pacer inspect`.
#include <memory>
#include <string>

#include "fuzz_input.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/inspect.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string circuits = std::string(PACER_SOURCE_DIR) + "/examples/circuits/mul3/";
  static const auto bn128 = pacer::read_zkey(circuits + "bn128/circuit.zkey");
  static const auto bls12381 = pacer::read_zkey(circuits + "bls12381/circuit.zkey");
  const pacer::fuzz::MemFile file(data, size);
  try {
    const pacer::Witness witness = pacer::read_wtns(file.path());
    for (const auto& key : {bn128, bls12381}) {
      try {
        pacer::check_witness_matches(*key, witness);
      } catch (const pacer::InputError&) {
      }
    }
    (void)pacer::inspect_file(file.path());
  } catch (const pacer::InputError&) {
  }
  return 0;
}
