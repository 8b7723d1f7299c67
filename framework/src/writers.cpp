// Streaming writers for .r1cs, .wtns, .zkey and the verification key JSON (docs/formats.md).
#include "pacer/formats/writers.hpp"

#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "pacer/error.hpp"
#include "pacer/files.hpp"
#include "math/host_curves.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/verify.hpp"
#include "point_json.hpp"

namespace pacer {

// --- .r1cs ----------------------------------------------------------------------------------

R1csLcWriter::R1csLcWriter(BinFileWriter& out, const R1csHeader& header)
    : out_(out), header_(header), r_(curve_scalar_prime(header.curve)) {}

void R1csLcWriter::term(uint32_t wire, const Fr256& coeff) {
  if (wire >= header_.n_wires || !fr256_less_than(coeff, r_))
    throw std::logic_error(out_.path() + ": r1cs term with wire " + std::to_string(wire) +
                           " out of range or coefficient not below r");
  out_.u32(wire);
  out_.write(coeff.data(), sizeof coeff);
}

void R1csLcWriter::lc(std::span<const uint32_t> wires, std::span<const Fr256> coeffs) {
  if (wires.size() != coeffs.size()) throw std::logic_error("R1csLcWriter::lc: wires and coefficients differ in count");
  ++lcs_;
  out_.u32(uint32_t(wires.size()));
  for (size_t i = 0; i < wires.size(); ++i) term(wires[i], coeffs[i]);
}

void R1csLcWriter::lc(std::span<const R1csTerm> terms) {
  ++lcs_;
  out_.u32(uint32_t(terms.size()));
  for (const auto& t : terms) term(t.wire, t.coeff);
}

void write_r1cs(const std::string& path, const R1csHeader& header,
                const std::function<void(uint32_t, R1csLcWriter&)>& emit) {
  BinFileWriter out(path, "r1cs", 1, 3);
  const Fr256& r = curve_scalar_prime(header.curve);

  out.begin_section(2);  // constraints first, as circom does
  R1csLcWriter lcs(out, header);
  for (uint32_t i = 0; i < header.n_constraints; ++i) {
    emit(i, lcs);
    if (lcs.lcs_ != 3 * (uint64_t(i) + 1))
      throw std::logic_error(path + ": constraint " + std::to_string(i) + " was not written as exactly 3 LCs");
  }
  out.end_section();

  out.begin_section(1);
  out.u32(sizeof(Fr256));
  out.write(r.data(), sizeof r);
  out.u32(header.n_wires);
  out.u32(header.n_pub_out);
  out.u32(header.n_pub_in);
  out.u32(header.n_prv_in);
  out.u64(header.n_labels ? header.n_labels : header.n_wires);
  out.u32(header.n_constraints);
  out.end_section(64);

  out.begin_section(3);  // identity labels: wire i was signal i
  for (uint64_t i = 0; i < header.n_wires; ++i) out.u64(i);
  out.end_section(uint64_t(header.n_wires) * 8);
  out.commit();
}

void write_r1cs(const std::string& path, const R1cs& r1cs) {
  if (r1cs.constraints.size() != r1cs.n_constraints)
    throw std::logic_error("write_r1cs: the R1cs holds " + std::to_string(r1cs.constraints.size()) + " of " +
                           std::to_string(r1cs.n_constraints) + " constraints (read it with constraints)");
  const R1csHeader header{r1cs.curve,     r1cs.n_wires,  r1cs.n_pub_out,     r1cs.n_pub_in,
                          r1cs.n_prv_in,  r1cs.n_labels, r1cs.n_constraints};
  write_r1cs(path, header, [&](uint32_t i, R1csLcWriter& out) {
    out.lc(r1cs.constraints[i].a);
    out.lc(r1cs.constraints[i].b);
    out.lc(r1cs.constraints[i].c);
  });
}

// --- .wtns ----------------------------------------------------------------------------------

void write_wtns(const std::string& path, CurveId curve, std::span<const Fr256> values) {
  if (values.size() > UINT32_MAX) throw InputError(path + ": " + std::to_string(values.size()) + " witness values exceed the u32 count of the format");
  BinFileWriter out(path, "wtns", 2, 2);
  const Fr256& r = curve_scalar_prime(curve);
  out.begin_section(1);
  out.u32(sizeof(Fr256));
  out.write(r.data(), sizeof r);
  out.u32(uint32_t(values.size()));
  out.end_section(40);
  out.begin_section(2);
  out.write(values.data(), values.size_bytes());
  out.end_section(values.size_bytes());
  out.commit();
}

// --- .zkey ----------------------------------------------------------------------------------

ZkeyWriter::ZkeyWriter(std::string path, const ProvingKey& header)
    : out_(std::move(path), "zkey", 1, 10),
      n8q_(curve_n8q(header.curve)),
      n_vars_(header.n_vars),
      n_public_(header.n_public),
      domain_size_(header.domain_size) {
  if (n_public_ >= n_vars_) throw std::logic_error("ZkeyWriter: nPublic must be below nVars");
  const uint64_t g1 = 2ull * n8q_, g2 = 4ull * n8q_;
  if (header.alpha1.size() != g1 || header.beta1.size() != g1 || header.delta1.size() != g1 ||
      header.beta2.size() != g2 || header.gamma2.size() != g2 || header.delta2.size() != g2)
    throw std::logic_error("ZkeyWriter: header point of the wrong size");

  out_.begin_section(1);
  out_.u32(kProtocolGroth16);
  out_.end_section(4);

  out_.begin_section(2);
  math::with_host_curve(header.curve, [&](auto curve) {
    using Curve = decltype(curve);
    out_.u32(n8q_);
    out_.write(Curve::Fq::P.data(), n8q_);
    out_.u32(sizeof(Fr256));
    out_.write(Curve::Fr::P.data(), sizeof(Fr256));
  });
  out_.u32(n_vars_);
  out_.u32(n_public_);
  out_.u32(domain_size_);
  for (auto point : {header.alpha1, header.beta1, header.beta2, header.gamma2, header.delta1, header.delta2})
    out_.write(point);
  out_.end_section(20 + 19ull * n8q_ + sizeof(Fr256));
}

uint64_t ZkeyWriter::expected_size(uint32_t section) const {
  const uint64_t g1 = 2ull * n8q_, g2 = 4ull * n8q_;
  switch (section) {
    case 3: return (uint64_t(n_public_) + 1) * g1;
    case 4: return 4 + uint64_t(n_coeffs_) * (12 + sizeof(Fr256));
    case 5:
    case 6: return uint64_t(n_vars_) * g1;
    case 7: return uint64_t(n_vars_) * g2;
    case 8: return (uint64_t(n_vars_) - n_public_ - 1) * g1;
    case 9: return uint64_t(domain_size_) * g1;
    default: throw std::logic_error("ZkeyWriter: no section " + std::to_string(section));
  }
}

void ZkeyWriter::begin(uint32_t section) {
  if (open_ != 0 || section != next_)
    throw std::logic_error("ZkeyWriter: section " + std::to_string(section) + " out of order (next is " +
                           std::to_string(next_) + ")");
  out_.begin_section(section);
  open_ = section;
}

void ZkeyWriter::end() {
  if (open_ == 4 && coeffs_written_ != n_coeffs_)
    throw std::logic_error("ZkeyWriter: " + std::to_string(coeffs_written_) + " of " + std::to_string(n_coeffs_) +
                           " coefficients written");
  out_.end_section(expected_size(open_));
  open_ = 0;
  ++next_;
}

void ZkeyWriter::begin_coefficients(uint32_t n_coeffs) {
  begin(4);
  n_coeffs_ = n_coeffs;
  coeffs_written_ = 0;
  out_.u32(n_coeffs);
}

void ZkeyWriter::coefficient(uint32_t matrix, uint32_t constraint, uint32_t signal, const Fr256& stored) {
  if (open_ != 4 || matrix > 1 || constraint >= domain_size_ || signal >= n_vars_)
    throw std::logic_error("ZkeyWriter: bad coefficient record");
  const uint32_t head[3] = {matrix, constraint, signal};
  out_.write(head, sizeof head);
  out_.write(stored.data(), sizeof stored);
  ++coeffs_written_;
}

void ZkeyWriter::append_coefficient_records(std::span<const std::byte> records) {
  constexpr size_t kRecord = 12 + sizeof(Fr256);
  if (open_ != 4 || records.size() % kRecord != 0) throw std::logic_error("ZkeyWriter: bad coefficient records");
  for (size_t at = 0; at < records.size(); at += kRecord)
    if (le::u32(records, at) > 1 || le::u32(records, at + 4) >= domain_size_ || le::u32(records, at + 8) >= n_vars_)
      throw std::logic_error("ZkeyWriter: bad coefficient record");
  out_.write(records);
  coeffs_written_ += uint32_t(records.size() / kRecord);
}

void ZkeyWriter::close() {
  if (next_ == 11) return;  // closed before
  if (next_ != 10 || open_ != 0) throw std::logic_error("ZkeyWriter: sections 3..9 not all written");
  out_.begin_section(10);
  out_.zeros(64);  // csHash: informative only, no prover or verifier reads it
  out_.u32(0);     // no contributions
  out_.end_section(68);
  next_ = 11;
  out_.close();
}

void ZkeyWriter::commit() {
  close();
  out_.commit();
}

void ZkeyWriter::finish() { commit(); }

void write_zkey(const std::string& path, const ProvingKey& key) {
  ZkeyWriter out(path, key);
  const std::pair<uint32_t, std::span<const std::byte>> point_sections[] = {
      {5, key.a}, {6, key.b1}, {7, key.b2}, {8, key.c}, {9, key.h}};
  out.begin(3);
  out.append(key.ic);
  out.end();
  out.begin_coefficients(key.n_coeffs);
  const size_t record = 12 + sizeof(Fr256);
  if (key.coeffs.size() != size_t(key.n_coeffs) * record)
    throw std::logic_error("write_zkey: coefficient bytes do not match n_coeffs");
  out.append_coefficient_records(key.coeffs);
  out.end();
  for (const auto& [id, bytes] : point_sections) {
    out.begin(id);
    out.append(bytes);
    out.end();
  }
  out.finish();
}

// --- verification key JSON ------------------------------------------------------------------

namespace {

using json = nlohmann::ordered_json;

template <class Group>
json point_json(std::span<const std::byte> bytes) {
  return pacer::detail::point_json(math::decode_point<Group>(bytes.data()));
}

}  // namespace

std::string vkey_json(const ProvingKey& key) {
  std::string text = math::with_host_curve(key.curve, [&](auto curve) {
    using Curve = decltype(curve);
    constexpr size_t g1 = math::point_bytes<typename Curve::G1>();
    if (key.ic.size() != (size_t(key.n_public) + 1) * g1) throw std::logic_error("write_vkey_json: IC size");
    json ic = json::array();
    for (size_t i = 0; i <= key.n_public; ++i) ic.push_back(point_json<typename Curve::G1>(key.ic.subspan(i * g1, g1)));
    // e(alpha1, beta2) nested as snarkjs writes it: [c0, c1] of Fq6, each [c0, c1, c2] of Fq2.
    const auto ab = alphabeta_decimals(key);
    json alphabeta = json::array();
    for (size_t half = 0; half < 2; ++half) {
      json fq6 = json::array();
      for (size_t k = 0; k < 3; ++k) fq6.push_back(json::array({ab[6 * half + 2 * k], ab[6 * half + 2 * k + 1]}));
      alphabeta.push_back(std::move(fq6));
    }
    json vk;  // snarkjs's key order
    vk["protocol"] = "groth16";
    vk["curve"] = std::string(Curve::json_name);
    vk["nPublic"] = key.n_public;
    vk["vk_alpha_1"] = point_json<typename Curve::G1>(key.alpha1);
    vk["vk_beta_2"] = point_json<typename Curve::G2>(key.beta2);
    vk["vk_gamma_2"] = point_json<typename Curve::G2>(key.gamma2);
    vk["vk_delta_2"] = point_json<typename Curve::G2>(key.delta2);
    vk["vk_alphabeta_12"] = std::move(alphabeta);
    vk["IC"] = std::move(ic);
    return vk.dump(1);
  });
  return text + '\n';
}

void write_vkey_json(const std::string& path, const ProvingKey& key) {
  const std::string text = vkey_json(key);
  FileWriter out(path, text.size());
  out.write(text.data(), text.size());
  out.commit();
}

}  // namespace pacer
