#pragma once
// Standard G2 generators (the gamma2 of every snarkjs key) for tests.
#include "pacer/math/curves.hpp"

namespace pacer::test {
using namespace pacer::math;

template <class Curve>
Affine<typename Curve::G2> g2_generator();

template <>
inline Affine<Bn254::G2> g2_generator<Bn254>() {  // the gamma2 of every snarkjs key (spec §5.1)
  using Fq = Bn254::Fq;
  using Fq2 = Bn254::Fq2;
  return Affine<Bn254::G2>::of(
      Fq2(Fq::from_decimal("10857046999023057135944570762232829481370756359578518086990519993285655852781"),
          Fq::from_decimal("11559732032986387107991004021392285783925812861821192530917403151452391805634")),
      Fq2(Fq::from_decimal("8495653923123431417604973247489272438418190587263600148770280649306958101930"),
          Fq::from_decimal("4082367875863433681332203403145435568316851327593401208105741076214120093531")));
}

template <>
inline Affine<Bls12_381::G2> g2_generator<Bls12_381>() {
  using Fq = Bls12_381::Fq;
  using Fq2 = Bls12_381::Fq2;
  auto h = [](const char* s) { return Fq::from_std(limbs_from_hex<6>(s)); };
  return Affine<Bls12_381::G2>::of(
      Fq2(h("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
          h("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")),
      Fq2(h("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
          h("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")));
}

}  // namespace pacer::test
