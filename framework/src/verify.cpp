// Groth16 verification (verify.hpp): snarkjs's JSON documents read into curve points, checked,
// and the pairing equation. Everything curve-specific is a template over the curve traits.
#include "pacer/verify.hpp"

#include <span>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pacer/error.hpp"
#include "pacer/formats/json_input.hpp"
#include "pacer/printable.hpp"
#include "math/host_curves.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/math/pairing.hpp"
#include "pacer/math/subgroup.hpp"

namespace pacer {
namespace {

using json = nlohmann::json;
using namespace pacer::math;

// A check of the proof or its public signals failed: becomes the Verdict's reason.
struct Refused {
  std::string reason;
};

// Whose document is being read: a key's field that is wrong is bad input (exit 2), a proof's
// field that is wrong is a refused proof (exit 1) once the document has the right shape.
enum class Role { key, proof };

constexpr size_t kMaxDigits = 160;

template <class Curve>
class Reader {
  using Fq = typename Curve::Fq;
  using Fq2 = typename Curve::Fq2;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;

 public:
  Reader(const JsonText& doc, Role role) : doc_(doc), role_(role) {}

  [[noreturn]] void bad_shape(const std::string& field, const std::string& what) const {
    throw InputError(doc_.name + ": " + field + " " + what);
  }
  // A value problem: bad input in a key, a refusal in a proof.
  [[noreturn]] void bad_value(const std::string& field, const std::string& what, const std::string& key_fix) const {
    if (role_ == Role::key) throw InputError(doc_.name + ": " + field + " " + what + "; " + key_fix);
    throw Refused{field + " " + what};
  }

  // A decimal string (or a non-negative JSON integer) below the prime of F.
  template <class F>
  F number(const json& j, const std::string& field) const {
    std::string digits;
    if (j.is_string()) digits = j.get<std::string>();
    else if (j.is_number_unsigned()) digits = std::to_string(j.get<uint64_t>());
    else bad_shape(field, "is not a decimal number in a string (as snarkjs writes them)");
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
      bad_shape(field, "is not a decimal number in a string (as snarkjs writes them)");
    // No field here has a prime of more than 116 digits; a longer number is not below it whatever
    // its leading zeros (and is not worth converting).
    if (digits.size() > kMaxDigits)
      bad_value(field, "is not below the field's prime", "export the verification key again");
    typename F::limbs_t limbs;
    try {
      limbs = limbs_from_decimal<F::N>(digits);
    } catch (const std::invalid_argument&) {
      bad_value(field, "is not below the field's prime", "export the verification key again");
    }
    if (limbs_geq(limbs, F::P)) bad_value(field, "is not below the field's prime", "export the verification key again");
    return F::from_std(limbs);
  }

  Fq fq(const json& j, const std::string& field) const { return number<Fq>(j, field); }
  Fq2 fq2(const json& j, const std::string& field) const {
    if (!j.is_array() || j.size() != 2) bad_shape(field, "is not an Fq2 element [c0, c1]");
    return Fq2(fq(j[0], field + "[0]"), fq(j[1], field + "[1]"));
  }

  // [x, y] or [x, y, z] with z the Jacobian Z, as snarkjs reads them (x = X/Z², y = Y/Z³, Z = 0
  // the point at infinity); then on the curve and in the prime-order subgroup.
  template <class Group>
  Affine<Group> point(const json& j, const std::string& field) const {
    constexpr bool g1 = std::is_same_v<Group, G1>;
    const char* group = g1 ? "G1" : "G2";
    if (!j.is_array() || (j.size() != 2 && j.size() != 3))
      bad_shape(field, std::string("is not a ") + group + " point [x, y, z]");
    auto coordinate = [&](size_t i, const char* name) {
      if constexpr (g1) return fq(j[i], field + "." + name);
      else return fq2(j[i], field + "." + name);
    };
    using F = typename Group::Field;
    const F x = coordinate(0, "x"), y = coordinate(1, "y");
    Affine<Group> p = Affine<Group>::of(x, y);
    if (j.size() == 3) {
      const F z = coordinate(2, "z");
      if (z.is_zero()) p = Affine<Group>::identity();
      else if (z != F::one()) {
        const F zi = z.inv(), zi2 = zi.sqr();
        p = Affine<Group>::of(x * zi2, y * zi2 * zi);
      }
    }
    const std::string fix = "export the verification key again";
    if (!p.on_curve()) bad_value(field, std::string("is not a point of the curve (") + group + ")", fix);
    if (!in_prime_subgroup<Curve>(p)) bad_value(field, std::string("is not in the prime-order subgroup ") + group, fix);
    return p;
  }

  const json& field(const json& object, const char* name) const {
    if (!object.is_object()) bad_shape("the document", "is not a JSON object");
    const auto it = object.find(name);
    if (it == object.end()) bad_shape(name, "is missing");
    return *it;
  }

 private:
  const JsonText& doc_;
  Role role_;
};

// A verification key nests 4 deep (IC: [[x, y, z], ...]; vk_alphabeta_12 4), a proof 3.
json parse(const JsonText& doc) { return parse_json_input(doc.text, doc.name, {.max_depth = 8}); }

template <class Curve>
struct VerifyingKey {
  Affine<typename Curve::G1> alpha;
  Affine<typename Curve::G2> beta, gamma, delta;
  std::vector<Affine<typename Curve::G1>> ic;
};

template <class Curve>
VerifyingKey<Curve> key_from_json(const JsonText& doc, const json& vk) {
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  const Reader<Curve> read(doc, Role::key);
  VerifyingKey<Curve> key;
  key.alpha = read.template point<G1>(read.field(vk, "vk_alpha_1"), "vk_alpha_1");
  key.beta = read.template point<G2>(read.field(vk, "vk_beta_2"), "vk_beta_2");
  key.gamma = read.template point<G2>(read.field(vk, "vk_gamma_2"), "vk_gamma_2");
  key.delta = read.template point<G2>(read.field(vk, "vk_delta_2"), "vk_delta_2");
  for (const auto& [name, p] : {std::pair{"vk_alpha_1", key.alpha.is_identity()}, {"vk_beta_2", key.beta.is_identity()},
                                {"vk_gamma_2", key.gamma.is_identity()}, {"vk_delta_2", key.delta.is_identity()}})
    if (p) throw InputError(doc.name + ": " + name + " is the point at infinity; export the verification key again");
  const json& ic = read.field(vk, "IC");
  if (!ic.is_array() || ic.empty()) read.bad_shape("IC", "is not a non-empty array of G1 points");
  for (size_t i = 0; i < ic.size(); ++i) key.ic.push_back(read.template point<G1>(ic[i], "IC[" + std::to_string(i) + "]"));
  const json& n_public = read.field(vk, "nPublic");
  if (!n_public.is_number_unsigned() || n_public.get<uint64_t>() + 1 != ic.size())
    read.bad_shape("nPublic", "is not the number of IC points minus one (" + std::to_string(ic.size() - 1) + ")");
  return key;
}

template <class Curve>
VerifyingKey<Curve> key_from_zkey(const ProvingKey& pk) {
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  VerifyingKey<Curve> key;
  key.alpha = decode_point<G1>(pk.alpha1.data());
  key.beta = decode_point<G2>(pk.beta2.data());
  key.gamma = decode_point<G2>(pk.gamma2.data());
  key.delta = decode_point<G2>(pk.delta2.data());
  constexpr size_t bytes = point_bytes<G1>();
  for (size_t at = 0; at + bytes <= pk.ic.size(); at += bytes) key.ic.push_back(decode_point<G1>(pk.ic.data() + at));
  return key;
}

std::string_view curve_field(const Reader<HostBn254>& read, const json& doc) {
  const json& curve = read.field(doc, "curve");
  if (!curve.is_string()) read.bad_shape("curve", "is not a string");
  return curve.get_ref<const std::string&>();
}

// The proof's and the public signals' shape against the key's curve: cheap, so checked before
// any point is.
template <class Curve>
void check_proof_shape(const JsonText& proof_doc, const json& proof, const JsonText& public_doc, const json& publics) {
  const Reader<Curve> read(proof_doc, Role::proof);
  const Reader<Curve> read_public(public_doc, Role::proof);
  if (proof.is_object() && proof.contains("protocol") && proof.at("protocol") != "groth16")
    read.bad_shape("protocol", "is not \"groth16\"");
  if (proof.is_object() && proof.contains("curve") && proof.at("curve") != std::string(Curve::json_name))
    read.bad_shape("curve", "is not \"" + std::string(Curve::json_name) + "\", the curve of the verification key");
  if (!publics.is_array()) read_public.bad_shape("the document", "is not a JSON array of public signals");
}

Refused wrong_public_count(const JsonText& public_doc, size_t given, size_t key_has) {
  return Refused{public_doc.name + " has " + std::to_string(given) + " public signals but the key has " +
                 std::to_string(key_has)};
}

template <class Curve>
Verdict check_proof(const VerifyingKey<Curve>& key, const JsonText& proof_doc, const json& proof,
                    const JsonText& public_doc, const json& publics) {
  using Fr = typename Curve::Fr;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  using J1 = Jacobian<G1>;
  check_proof_shape<Curve>(proof_doc, proof, public_doc, publics);
  const Reader<Curve> read(proof_doc, Role::proof);
  const Reader<Curve> read_public(public_doc, Role::proof);
  try {
    if (publics.size() + 1 != key.ic.size()) throw wrong_public_count(public_doc, publics.size(), key.ic.size() - 1);
    const auto a = read.template point<G1>(read.field(proof, "pi_a"), "pi_a");
    const auto b = read.template point<G2>(read.field(proof, "pi_b"), "pi_b");
    const auto c = read.template point<G1>(read.field(proof, "pi_c"), "pi_c");
    for (const auto& [name, infinite] : {std::pair{"pi_a", a.is_identity()}, {"pi_b", b.is_identity()},
                                         {"pi_c", c.is_identity()}})
      if (infinite) throw Refused{std::string(name) + " is the point at infinity"};
    std::vector<Fr256> values;
    for (size_t i = 0; i < publics.size(); ++i)
      values.push_back(read_public.template number<Fr>(publics[i], "public signal " + std::to_string(i)).to_std());
    J1 vk_x = J1::from(key.ic[0]);
    for (size_t i = 0; i < values.size(); ++i) vk_x += J1::from(key.ic[i + 1]).mul(values[i]);
    const PairingInput<Curve> pairs[] = {{-a, b}, {key.alpha, key.beta}, {vk_x.to_affine(), key.gamma}, {c, key.delta}};
    if (!pairing_product_is_one<Curve>(pairs))
      throw Refused{"the pairing equation does not hold: the proof does not match this key and these public signals"};
  } catch (const Refused& refused) {
    return {false, refused.reason};
  }
  return {true, ""};
}

template <class Curve>
std::vector<std::string> alphabeta_of(const ProvingKey& pk) {
  const auto e = pairing<Curve>(decode_point<typename Curve::G1>(pk.alpha1.data()),
                                decode_point<typename Curve::G2>(pk.beta2.data()));
  std::vector<std::string> out;
  for (const auto* half : {&e.c0, &e.c1})
    for (const auto* c : {&half->c0, &half->c1, &half->c2}) {
      out.push_back(c->c0.to_decimal());
      out.push_back(c->c1.to_decimal());
    }
  return out;
}

}  // namespace

// Everything cheap first: all three documents parsed, the curve, protocol and shape of each, the
// key's nPublic against its IC and the public signals' count; only then the points (the key's IC
// alone may be thousands of subgroup checks), then the pairing.
template <class Curve>
Verdict verify_with_json_key(const JsonText& vkey, const json& vk, const JsonText& proof_doc, const json& proof,
                             const JsonText& public_doc, const json& publics) {
  check_proof_shape<Curve>(proof_doc, proof, public_doc, publics);
  const Reader<Curve> read(vkey, Role::key);
  const json& ic = read.field(vk, "IC");
  if (!ic.is_array() || ic.empty()) read.bad_shape("IC", "is not a non-empty array of G1 points");
  const json& n_public = read.field(vk, "nPublic");
  if (!n_public.is_number_unsigned() || n_public.get<uint64_t>() + 1 != ic.size())
    read.bad_shape("nPublic", "is not the number of IC points minus one (" + std::to_string(ic.size() - 1) + ")");
  if (publics.size() + 1 != ic.size())
    return {false, wrong_public_count(public_doc, publics.size(), ic.size() - 1).reason};
  return check_proof<Curve>(key_from_json<Curve>(vkey, vk), proof_doc, proof, public_doc, publics);
}

Verdict verify_groth16(const JsonText& vkey, const JsonText& proof, const JsonText& public_signals) {
  const json vk = parse(vkey), proof_json = parse(proof), publics = parse(public_signals);
  const Reader<HostBn254> read(vkey, Role::key);  // only the curve-independent fields through this one
  if (vk.is_object() && vk.contains("protocol") && vk.at("protocol") != "groth16")
    read.bad_shape("protocol", "is not \"groth16\" (Pacer verifies Groth16 proofs only)");
  const std::string_view curve = curve_field(read, vk);
  if (curve == HostBn254::json_name)
    return verify_with_json_key<HostBn254>(vkey, vk, proof, proof_json, public_signals, publics);
  if (curve == HostBls12_381::json_name)
    return verify_with_json_key<HostBls12_381>(vkey, vk, proof, proof_json, public_signals, publics);
  read.bad_shape("curve", fmt::format("\"{}\" is not a supported curve (bn128 or bls12381)", printable(curve, 40)));
}

Verdict verify_groth16(const ProvingKey& key, const JsonText& proof, const JsonText& public_signals) {
  const json proof_json = parse(proof), publics = parse(public_signals);
  return with_host_curve(key.curve, [&](auto curve) {
    using Curve = decltype(curve);
    return check_proof<Curve>(key_from_zkey<Curve>(key), proof, proof_json, public_signals, publics);
  });
}

std::vector<std::string> alphabeta_decimals(const ProvingKey& key) {
  return with_host_curve(key.curve, [&](auto curve) { return alphabeta_of<decltype(curve)>(key); });
}

}  // namespace pacer
