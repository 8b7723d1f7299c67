// Fuzz target: the .zkey reader, then what a backend does with a key it accepts (every point of
// sections 5-9 checked as at residency) and the verification key export. (`pacer inspect` reads a
// key with the same read_zkey; the other targets run it for their kinds.)
#include <span>

#include "fuzz_input.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/math/curves.hpp"

namespace {

template <class Group>
size_t invalid_points(std::span<const std::byte> bytes) {
  constexpr size_t point_bytes = pacer::math::point_bytes<Group>();
  size_t bad = 0;
  for (size_t at = 0; at + point_bytes <= bytes.size(); at += point_bytes)
    bad += !pacer::math::is_valid_key_point(pacer::math::decode_point<Group>(bytes.data() + at));
  return bad;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pacer::fuzz::MemFile file(data, size);
  try {
    const auto key = pacer::read_zkey(file.path());
    (void)pacer::math::with_curve(key->curve, [&](auto curve) {
      using Curve = decltype(curve);
      return invalid_points<typename Curve::G1>(key->a) + invalid_points<typename Curve::G1>(key->b1) +
             invalid_points<typename Curve::G2>(key->b2) + invalid_points<typename Curve::G1>(key->c) +
             invalid_points<typename Curve::G1>(key->h);
    });
    (void)pacer::vkey_json(*key);
  } catch (const pacer::InputError&) {
  }
  return 0;
}
