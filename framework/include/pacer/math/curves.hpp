#pragma once
// The two supported pairing curves, declared by their constants alone; all arithmetic comes from
// the field/extension/curve templates. Constants: docs/formats.md §1; the moduli from primes.hpp,
// which the CUDA kernels read too. Each curve is a template
// over the field product's implementation (field.hpp's Mul policies): Bn254 and Bls12_381 are the
// portable ones; the cpu kernels instantiate the same curves with their x86-64 product.
#include <cstring>
#include <span>
#include <string_view>

#include "pacer/math/ec.hpp"
#include "pacer/math/field.hpp"
#include "pacer/math/fp2.hpp"
#include "pacer/math/primes.hpp"
#include "pacer/math/roots.hpp"
#include "pacer/types.hpp"

namespace pacer::math {

// GLV data of a curve (the algorithm is the cpu kernels' glv.hpp): the short basis (a1, b1),
// (a2, b2) of {(a, b) : a + b·λ ≡ 0 mod r} as 256-bit two's complement, and g1 = ⌊b2·2^256 / r⌋,
// g2 = ⌊-b1·2^256 / r⌋ (both non-negative on our curves), which give the rounding coefficients
// c1 = ⌊k·g1 / 2^256⌋, c2 = ⌊k·g2 / 2^256⌋ without a division.
struct GlvBasis {
  Fr256 a1, b1, a2, b2, g1, g2;
};

template <int kWords>
constexpr Limbs<kWords> limbs_of(const primes::Words<kWords>& words) {
  Limbs<kWords> out{};
  for (int i = 0; i < kWords; ++i) out[i] = words.w[i];
  return out;
}

// What a pairing (pairing.hpp) needs to know of a curve beyond its fields, in each curve's
// `Pairing` member: the family fixes the shape of the Miller loop and of the final
// exponentiation; z is the family's parameter (q and r are polynomials in it); ξ, the
// non-residue of the Fq6/Fq12 tower (tower.hpp), also defines the sextic twist that G2 lives on:
// y² = x³ + b/ξ (D-type) or y² = x³ + b·ξ (M-type).
enum class PairingFamily { bn, bls12 };
enum class TwistType { d_type, m_type };

template <class Mul = PortableMul>
struct Bn254Curve {
  struct FqParams {
    static constexpr size_t N = 4;
    static constexpr Limbs<N> modulus = limbs_of(primes::bn254_fq());
  };
  struct FrParams {
    static constexpr size_t N = 4;
    static constexpr Limbs<N> modulus = limbs_of(primes::bn254_fr());
  };
  using Fq = Fp<FqParams, Mul>;
  using Fr = Fp<FrParams, Mul>;
  using Fq2 = Fp2<Fq>;
  // GLV (glv.hpp), from scripts/glv_constants.py: λ = 0x30644e72e131a029048b6e193fd84104cc37a73fec2bc5e9b8ca0b2d36636f23.
  static const GlvBasis& glv_basis() {
    static constexpr GlvBasis basis = {
        limbs_from_hex<4>("6f4d8248eeb859fc8211bbeb7d4f1128"),
        limbs_from_hex<4>("ffffffffffffffffffffffffffffffffffffffffffffffff762cda976b2dec1d"),
        limbs_from_hex<4>("89d3256894d213e3"),
        limbs_from_hex<4>("6f4d8248eeb859fd0be4e1541221250b"),
        limbs_from_hex<4>("24ccef014a773d2d25398fd0300ff6565"),
        limbs_from_hex<4>("2d91d232ec7e0b3d7")};
    return basis;
  }
  struct G1 {
    using Field = Fq;
    static Field b() { return Fq::from_u64(3); }
    static Fq glv_beta() { return Fq::from_std(limbs_from_hex<4>("30644e72e131a0295e6dd9e7e0acccb0c28f069fbb966e3de4bd44e5607cfd48")); }
    static const GlvBasis& glv_basis() { return Bn254Curve::glv_basis(); }
  };
  struct Pairing {
    static constexpr PairingFamily family = PairingFamily::bn;
    static constexpr TwistType twist = TwistType::d_type;
    static constexpr uint64_t z_abs = 4965661367192848881ull;  // z = 0x44e992b44a6909f1
    static constexpr bool z_negative = false;
    static Fq2 nonresidue() { return Fq2(Fq::from_u64(9), Fq::one()); }  // ξ = 9 + u
  };
  struct G2 {
    using Field = Fq2;
    static Field b() {  // 3/ξ, the D-type twist
      static const Fq2 value = Fq2(Fq::from_u64(3), Fq::zero()) * Pairing::nonresidue().inv();
      return value;
    }
    static Fq glv_beta() { return Fq::from_std(limbs_from_hex<4>("59e26bcea0d48bacd4f263f1acdb5c4f5763473177fffffe")); }
    static const GlvBasis& glv_basis() { return Bn254Curve::glv_basis(); }
  };
  static constexpr CurveId id = CurveId::bn254;
  static constexpr std::string_view json_name = "bn128";
  static constexpr uint32_t two_adicity = two_adicity_of<Fr>();  // 28
  static Affine<G1> g1_generator() { return Affine<G1>::of(Fq::from_u64(1), Fq::from_u64(2)); }
  // The gamma2 of every snarkjs key (docs/formats.md §5.1).
  static Affine<G2> g2_generator() {
    return Affine<G2>::of(
        Fq2(Fq::from_decimal("10857046999023057135944570762232829481370756359578518086990519993285655852781"),
            Fq::from_decimal("11559732032986387107991004021392285783925812861821192530917403151452391805634")),
        Fq2(Fq::from_decimal("8495653923123431417604973247489272438418190587263600148770280649306958101930"),
            Fq::from_decimal("4082367875863433681332203403145435568316851327593401208105741076214120093531")));
  }
};

template <class Mul = PortableMul>
struct Bls12_381Curve {
  struct FqParams {
    static constexpr size_t N = 6;
    static constexpr Limbs<N> modulus = limbs_of(primes::bls12_381_fq());
  };
  struct FrParams {
    static constexpr size_t N = 4;
    static constexpr Limbs<N> modulus = limbs_of(primes::bls12_381_fr());
  };
  using Fq = Fp<FqParams, Mul>;
  using Fr = Fp<FrParams, Mul>;
  using Fq2 = Fp2<Fq>;
  // GLV (glv.hpp), from scripts/glv_constants.py: λ = 0x73eda753299d7d483339d80809a1d804a7780001fffcb7fcfffffffe00000001 = -z^2 mod r (r = z^4 - z^2 + 1 = λ^2 + λ + 1).
  static const GlvBasis& glv_basis() {
    static constexpr GlvBasis basis = {
        limbs_from_hex<4>("1"),
        limbs_from_hex<4>("ffffffffffffffffffffffffffffffff53ba5bfefffe5bfdffffffff00000001"),
        limbs_from_hex<4>("ac45a4010001a4020000000100000000"),
        limbs_from_hex<4>("1"),
        limbs_from_hex<4>("2"),
        limbs_from_hex<4>("17c6becf1e01faadd63f6e522f6cfee2e")};
    return basis;
  }
  struct G1 {
    using Field = Fq;
    static Field b() { return Fq::from_u64(4); }
    static Fq glv_beta() {
      return Fq::from_std(limbs_from_hex<6>("5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe"));
    }
    static const GlvBasis& glv_basis() { return Bls12_381Curve::glv_basis(); }
  };
  struct Pairing {
    static constexpr PairingFamily family = PairingFamily::bls12;
    static constexpr TwistType twist = TwistType::m_type;
    static constexpr uint64_t z_abs = 0xd201000000010000ull;  // z = -0xd201000000010000
    static constexpr bool z_negative = true;
    static Fq2 nonresidue() { return Fq2(Fq::one(), Fq::one()); }  // ξ = 1 + u
  };
  struct G2 {
    using Field = Fq2;
    static Field b() {  // 4ξ = 4(1 + u), the M-type twist
      static const Fq2 value = Fq2(Fq::from_u64(4), Fq::zero()) * Pairing::nonresidue();
      return value;
    }
    static Fq glv_beta() {
      return Fq::from_std(limbs_from_hex<6>(
          "1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaac"));
    }
    static const GlvBasis& glv_basis() { return Bls12_381Curve::glv_basis(); }
  };
  static constexpr CurveId id = CurveId::bls12_381;
  static constexpr std::string_view json_name = "bls12381";
  static constexpr uint32_t two_adicity = two_adicity_of<Fr>();  // 32
  static Affine<G1> g1_generator() {
    return Affine<G1>::of(
        Fq::from_std(limbs_from_hex<6>("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")),
        Fq::from_std(limbs_from_hex<6>("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")));
  }
  // The standard generator (x.c0 and x.c1 as in docs/formats.md §5.1), gamma2 of every snarkjs key.
  static Affine<G2> g2_generator() {
    auto h = [](const char* s) { return Fq::from_std(limbs_from_hex<6>(s)); };
    return Affine<G2>::of(
        Fq2(h("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
            h("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")),
        Fq2(h("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
            h("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")));
  }
};

using Bn254 = Bn254Curve<>;
using Bls12_381 = Bls12_381Curve<>;

// Runs f(Curve{}) with the curve type that id names, its fields computing products with Mul.
template <class Mul = PortableMul, class Fn>
decltype(auto) with_curve(CurveId id, Fn&& f) {
  switch (id) {
    case CurveId::bn254: return f(Bn254Curve<Mul>{});
    case CurveId::bls12_381: break;
  }
  return f(Bls12_381Curve<Mul>{});
}

// --- the zkey's point encoding: Montgomery limbs, little-endian, all-zero = infinity ---------

template <class F>
constexpr size_t field_bytes() {
  if constexpr (requires { typename F::Base; }) return 2 * F::Base::kBytes;
  else return F::kBytes;
}

template <class F>
F decode_field(const std::byte* p) {
  if constexpr (requires { typename F::Base; }) {
    return F(decode_field<typename F::Base>(p), decode_field<typename F::Base>(p + F::Base::kBytes));
  } else {
    F f;
    std::memcpy(f.v.data(), p, F::kBytes);  // already Montgomery: used as stored
    return f;
  }
}

template <class F>
void encode_field(const F& f, std::byte* p) {
  if constexpr (requires { typename F::Base; }) {
    encode_field(f.c0, p);
    encode_field(f.c1, p + F::Base::kBytes);
  } else {
    std::memcpy(p, f.v.data(), F::kBytes);
  }
}

template <class Group>
constexpr size_t point_bytes() { return 2 * field_bytes<typename Group::Field>(); }

// All-zero bytes decode to (0, 0), which is Affine's infinity, and infinity encodes back to
// zeros: no special case either way.
template <class Group>
Affine<Group> decode_point(const std::byte* p) {
  using F = typename Group::Field;
  constexpr size_t n = point_bytes<Group>();
  return Affine<Group>::of(decode_field<F>(p), decode_field<F>(p + n / 2));
}

// A coordinate as a key file may hold it: every Fq limb array below p (Montgomery form of a
// residue). Arithmetic assumes it; a damaged file can break it.
template <class F>
bool is_canonical(const F& f) {
  if constexpr (requires { typename F::Base; }) return is_canonical(f.c0) && is_canonical(f.c1);
  else return !limbs_geq(f.v, F::P);
}

// What every backend checks of a key point it loads: canonical coordinates on the curve (the
// identity (0, 0) included). Subgroup membership is not checked: it costs a scalar multiplication.
// (The cpu kernels' first_invalid_key_point runs it eight points at a time.)
template <class Group>
bool is_valid_key_point(const Affine<Group>& p) {
  return is_canonical(p.x) && is_canonical(p.y) && p.on_curve();
}

template <class Group>
void encode_point(const Affine<Group>& a, std::byte* p) {
  constexpr size_t n = point_bytes<Group>();
  encode_field(a.x, p);
  encode_field(a.y, p + n / 2);
}

}  // namespace pacer::math
