// Groth16 .zkey reader (docs/formats.md §5) and the curve constants the readers share (§1).
#include "pacer/formats/zkey.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <optional>
#include <string>

#include "pacer/error.hpp"
#include "math/host_curves.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer {

namespace {

struct CurveConstants {
  CurveId id;
  std::string_view json_name;
  uint32_t n8q;
  std::array<uint64_t, 6> q;  // little-endian limbs; bn254 uses the first 4
  Fr256 r;
};

// The readers' lookup table, built from curves.hpp, the one home of each curve's primes.
template <class Curve>
constexpr CurveConstants constants_of() {
  CurveConstants c{Curve::id, Curve::json_name, uint32_t(Curve::Fq::kBytes), {}, Curve::Fr::P};
  for (size_t i = 0; i < Curve::Fq::N; ++i) c.q[i] = Curve::Fq::P[i];
  return c;
}

constexpr CurveConstants kCurves[] = {constants_of<math::HostBn254>(), constants_of<math::HostBls12_381>()};

const CurveConstants& constants(CurveId c) {
  for (const auto& k : kCurves)
    if (k.id == c) return k;
  throw std::logic_error("unknown CurveId");
}

// Little-endian bytes printed as a big-endian hex number, for error messages.
std::string hex_number(std::span<const std::byte> le_bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (size_t i = le_bytes.size(); i-- > 0;) {
    const auto b = static_cast<unsigned>(le_bytes[i]);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  const auto first = out.find_first_not_of('0');
  return "0x" + (first == std::string::npos ? std::string("0") : out.substr(first));
}

std::string protocol_name(uint32_t protocol) {
  switch (protocol) {
    case kProtocolGroth16: return "groth16";
    case kProtocolPlonk: return "plonk";
    case kProtocolFflonk: return "fflonk";
    default: return "unknown protocol " + std::to_string(protocol);
  }
}

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw InputError(path + ": " + what); }

void check_protocol(const BinFile& bin) {
  SectionReader header(bin, 1, "header");
  const uint32_t protocol = header.u32();
  header.expect_end();
  if (protocol != kProtocolGroth16)
    fail(bin.path(), "the key is for " + protocol_name(protocol) + " (protocol " + std::to_string(protocol) +
                         "), Pacer proves groth16 only");
}

// Section 2: field sizes and primes, sizes of the circuit, then the six fixed points.
void read_groth16_header(const BinFile& bin, ProvingKey& key) {
  SectionReader header(bin, 2, "groth16 header");
  const std::string& path = bin.path();
  key.n8q = header.u32();
  const auto q = header.bytes(key.n8q);
  const CurveConstants* curve = nullptr;
  for (const auto& k : kCurves)
    if (k.n8q == key.n8q && std::memcmp(q.data(), k.q.data(), k.n8q) == 0) curve = &k;
  if (curve == nullptr) fail(path, "unknown curve (q = " + hex_number(q) + "); Pacer supports bn128 and bls12381");
  key.curve = curve->id;

  key.n8r = header.u32();
  const auto r = header.bytes(key.n8r);
  if (key.n8r != sizeof(Fr256) || std::memcmp(r.data(), curve->r.data(), sizeof(Fr256)) != 0)
    fail(path, "scalar prime r = " + hex_number(r) + " does not belong to curve " + std::string(curve->json_name) +
                   " (its q matches)");

  key.n_vars = header.u32();
  key.n_public = header.u32();
  key.domain_size = header.u32();
  if (key.n_public >= key.n_vars)
    fail(path, "nPublic (" + std::to_string(key.n_public) + ") must be less than nVars (" +
                   std::to_string(key.n_vars) + ")");
  if (!std::has_single_bit(key.domain_size))
    fail(path, "domainSize " + std::to_string(key.domain_size) + " is not a power of two");
  const unsigned two_adicity = math::with_host_curve(key.curve, [](auto c) { return decltype(c)::two_adicity; });
  if (unsigned(std::countr_zero(key.domain_size)) > two_adicity)
    fail(path, "domainSize " + std::to_string(key.domain_size) + " exceeds the 2^" + std::to_string(two_adicity) +
                   " roots of unity of " + std::string(curve->json_name));

  const uint64_t g1 = 2ull * key.n8q, g2 = 4ull * key.n8q;
  key.alpha1 = header.bytes(g1);
  key.beta1 = header.bytes(g1);
  key.beta2 = header.bytes(g2);
  key.gamma2 = header.bytes(g2);
  key.delta1 = header.bytes(g1);
  key.delta2 = header.bytes(g2);
  header.expect_end();
}

constexpr const char* kDamaged = ": the key is damaged; make or download it again";

// Section 2's points: canonical coordinates on the curve, as the backends check sections 5-9, and
// also never the identity and in the prime-order subgroup, as in every real key. They are six, so
// the subgroup check (one scalar multiplication each) costs nothing; a damaged one would give a
// proof that does not verify, with exit status 0.
template <class Curve, class Group>
void check_header_point(const std::string& path, std::span<const std::byte> bytes, const char* name) {
  const auto p = math::decode_point<Group>(bytes.data());
  const std::string at = std::string("section 2 (groth16 header), point ") + name + " ";
  if (!math::is_valid_key_point(p))
    fail(path, at + "is not a point of the curve (coordinates must be below q and satisfy the curve equation)" +
                   kDamaged);
  if (p.is_identity()) fail(path, at + "is the point at infinity" + kDamaged);
  if (!math::Jacobian<Group>::from(p).mul(Curve::Fr::P).is_identity())
    fail(path, at + "is not in the curve's prime-order subgroup" + kDamaged);
}

void check_header_points(const std::string& path, const ProvingKey& key) {
  math::with_host_curve(key.curve, [&](auto curve) {
    using Curve = decltype(curve);
    using G1 = typename Curve::G1;
    using G2 = typename Curve::G2;
    check_header_point<Curve, G1>(path, key.alpha1, "alpha1");
    check_header_point<Curve, G1>(path, key.beta1, "beta1");
    check_header_point<Curve, G2>(path, key.beta2, "beta2");
    check_header_point<Curve, G2>(path, key.gamma2, "gamma2");
    check_header_point<Curve, G1>(path, key.delta1, "delta1");
    check_header_point<Curve, G2>(path, key.delta2, "delta2");
  });
}

// IC (section 3) reaches the verification key only (`pacer setup` exports it), never a backend:
// checked here as the backends check their sections, canonical and on the curve.
void check_ic_points(const std::string& path, const ProvingKey& key) {
  math::with_host_curve(key.curve, [&](auto curve) {
    using G1 = typename decltype(curve)::G1;
    constexpr size_t bytes = math::point_bytes<G1>();
    for (size_t i = 0; i * bytes < key.ic.size(); ++i)
      if (!math::is_valid_key_point(math::decode_point<G1>(key.ic.data() + i * bytes)))
        fail(path, "section 3 (IC), point " + std::to_string(i) +
                       " is not a point of the curve (coordinates must be below q and satisfy the curve equation)" +
                       kDamaged);
  });
}

// A point section whose size follows from the header; anything else means a damaged key.
std::span<const std::byte> point_section(const BinFile& bin, uint32_t id, std::string_view name, uint64_t count,
                                         std::string_view count_formula, uint64_t point_bytes) {
  const auto data = bin.section(id, name);
  const uint64_t expected = count * point_bytes;
  if (data.size() != expected)
    fail(bin.path(), "section " + std::to_string(id) + " (" + std::string(name) + ") has " +
                         std::to_string(data.size()) + " bytes but " + std::string(count_formula) + " = " +
                         std::to_string(count) + " points of " + std::to_string(point_bytes) + " bytes need " +
                         std::to_string(expected));
  return data;
}

void read_point_sections(const BinFile& bin, ProvingKey& key) {
  const uint64_t g1 = 2ull * key.n8q, g2 = 4ull * key.n8q;
  const uint64_t n_vars = key.n_vars, n_public = key.n_public;
  key.ic = point_section(bin, 3, "IC", n_public + 1, "nPublic+1", g1);
  key.a = point_section(bin, 5, "A", n_vars, "nVars", g1);
  key.b1 = point_section(bin, 6, "B1", n_vars, "nVars", g1);
  key.b2 = point_section(bin, 7, "B2", n_vars, "nVars", g2);
  key.c = point_section(bin, 8, "C", n_vars - n_public - 1, "nVars-nPublic-1", g1);
  key.h = point_section(bin, 9, "H", key.domain_size, "domainSize", g1);
}

// Section 4: validated once here, so the MatVec can index a/b and the witness unchecked. A 2^24 key
// holds ~10^8 records: chunks on the pool find the first bad one, which is then named alone.
void read_coefficients(const BinFile& bin, ProvingKey& key, ThreadPool* pool) {
  SectionReader section(bin, 4, "coefficients");
  key.n_coeffs = section.u32();
  const uint64_t record_bytes = 12ull + key.n8r;
  const uint64_t expected = uint64_t{key.n_coeffs} * record_bytes;
  if (section.remaining() != expected)
    fail(bin.path(), "section 4 (coefficients) holds " + std::to_string(section.remaining()) + " bytes of records but " +
                         std::to_string(key.n_coeffs) + " records of " + std::to_string(record_bytes) +
                         " bytes need " + std::to_string(expected));
  key.coeffs = section.bytes(expected);
  const Fr256& r = constants(key.curve).r;
  const auto problem = [&](uint64_t i) -> std::optional<std::string> {
    const size_t at = i * record_bytes;
    const uint32_t matrix = le::u32(key.coeffs, at);
    const uint32_t constraint = le::u32(key.coeffs, at + 4);
    const uint32_t signal = le::u32(key.coeffs, at + 8);
    if (matrix > 1) return "matrix " + std::to_string(matrix) + " is not 0 (A) or 1 (B)";
    if (constraint >= key.domain_size)
      return "constraint " + std::to_string(constraint) + " is not below domainSize " + std::to_string(key.domain_size);
    if (signal >= key.n_vars) return "signal " + std::to_string(signal) + " is not below nVars " + std::to_string(key.n_vars);
    if (!fr256_less_than(le::fr256(key.coeffs, at + 12), r)) return std::string("value is not below r");
    return std::nullopt;
  };
  constexpr uint64_t kChunk = 1 << 16;
  std::atomic<uint64_t> first_bad{UINT64_MAX};
  run_tasks(pool, (key.n_coeffs + kChunk - 1) / kChunk, [&](size_t c) {
    const uint64_t end = std::min<uint64_t>(key.n_coeffs, (c + 1) * kChunk);
    for (uint64_t i = c * kChunk; i < end; ++i) {
      const size_t at = i * record_bytes;
      // The common case without building a message: this loop runs once per coefficient.
      if (le::u32(key.coeffs, at) <= 1 && le::u32(key.coeffs, at + 4) < key.domain_size &&
          le::u32(key.coeffs, at + 8) < key.n_vars && fr256_less_than(le::fr256(key.coeffs, at + 12), r))
        continue;
      uint64_t seen = first_bad.load();
      while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {
      }
      return;
    }
  });
  if (const uint64_t i = first_bad.load(); i != UINT64_MAX)
    fail(bin.path(), "coefficient record " + std::to_string(i) + ": " + problem(i).value_or("damaged"));
}

}  // namespace

std::string_view curve_json_name(CurveId c) { return constants(c).json_name; }

uint32_t curve_n8q(CurveId c) { return constants(c).n8q; }

const Fr256& curve_scalar_prime(CurveId c) { return constants(c).r; }

std::optional<CurveId> curve_from_scalar_prime(std::span<const std::byte> r_le) {
  for (const auto& k : kCurves)
    if (r_le.size() == sizeof(Fr256) && std::memcmp(r_le.data(), k.r.data(), sizeof(Fr256)) == 0) return k.id;
  return std::nullopt;
}

bool fr256_less_than(const Fr256& a, const Fr256& b) {
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i];
  return false;
}

std::shared_ptr<const ProvingKey> read_zkey(const std::string& path, ThreadPool* pool) {
  const BinFile bin(path, "zkey", kZkeyMaxVersion);
  auto key = std::make_shared<ProvingKey>();
  key->path = path;
  key->file = bin.file();
  check_protocol(bin);
  read_groth16_header(bin, *key);
  check_header_points(path, *key);
  read_point_sections(bin, *key);
  check_ic_points(path, *key);
  read_coefficients(bin, *key, pool);
  return key;
}

}  // namespace pacer
