#pragma once
// Standard G2 generators (the gamma2 of every snarkjs key) for tests; they live in curves.hpp.
#include "pacer/math/curves.hpp"

namespace pacer::test {
using namespace pacer::math;

template <class Curve>
Affine<typename Curve::G2> g2_generator() {
  return Curve::g2_generator();
}

}  // namespace pacer::test
