#pragma once
// A curve point as snarkjs writes it in proof.json and verification_key.json (docs/formats.md
// §7): projective [x, y, z] with z = 1, or [0, 1, 0] for the point at infinity; a coordinate is a
// decimal string, or [c0, c1] for one of Fq2 (G2). One encoder for the prover and the key writer.
#include <nlohmann/json.hpp>

#include "pacer/math/ec.hpp"

namespace pacer::detail {

template <class F>
nlohmann::ordered_json coordinate_json(const F& f) {
  if constexpr (requires { f.c1; }) {
    // ordered_json::array: a brace list of two strings alone would become a JSON object.
    return nlohmann::ordered_json::array({f.c0.to_decimal(), f.c1.to_decimal()});
  } else {
    return f.to_decimal();
  }
}

template <class Group>
nlohmann::ordered_json point_json(const math::Affine<Group>& p) {
  using F = typename Group::Field;
  if (p.is_identity())
    return nlohmann::ordered_json::array({coordinate_json(F::zero()), coordinate_json(F::one()), coordinate_json(F::zero())});
  return nlohmann::ordered_json::array({coordinate_json(p.x), coordinate_json(p.y), coordinate_json(F::one())});
}

}  // namespace pacer::detail
