// File formats (docs/formats.md §2-5): the shipped snarkjs fixtures parse and agree with the
// JSON snarkjs wrote next to them (GMP converts numbers independently), and damaged files are
// refused with one-line InputErrors that name the file.
#include <gmp.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "pacer/error.hpp"
#include "pacer/formats/binfile.hpp"
#include "pacer/formats/inspect.hpp"
#include "pacer/formats/r1cs.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"

namespace fs = std::filesystem;
using Bytes = std::vector<std::byte>;

// The call throws pacer::InputError whose single-line message names `path` and contains `fragment`.
#define CHECK_INPUT_ERROR(expr, path, fragment)                                                              \
  do {                                                                                                       \
    CHECK_THROWS_AS(expr, pacer::InputError);                                                                \
    CHECK_THROWS_WITH(expr, Catch::Contains(std::string(path)) && Catch::Contains(std::string(fragment)) && \
                                !Catch::Contains("\n"));                                                     \
  } while (0)

namespace {

const fs::path kCircuits = fs::path(PACER_SOURCE_DIR) / "examples" / "circuits";
const char* kBn254Q = "21888242871839275222246405745257275088696311157297823662689037894645226208583";
const char* kBls12381Q =
    "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787";
const char* kBn254R = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
const char* kBls12381R = "52435875175126190479447740508185965837690552500527637822603658699938581184513";

// A GMP integer that cleans up after itself (test-local: no dependency on other test helpers).
struct BigInt {
  mpz_t z;
  BigInt() { mpz_init(z); }
  explicit BigInt(const char* dec) { mpz_init_set_str(z, dec, 10); }
  BigInt(const BigInt&) = delete;
  BigInt& operator=(const BigInt&) = delete;
  ~BigInt() { mpz_clear(z); }
  std::string decimal() const {
    std::string out(mpz_sizeinbase(z, 10) + 2, '\0');
    mpz_get_str(out.data(), 10, z);
    out.resize(std::strlen(out.c_str()));
    return out;
  }
};

void set_le(BigInt& x, std::span<const std::byte> le) { mpz_import(x.z, le.size(), -1, 1, 0, 0, le.data()); }

std::string decimal(std::span<const std::byte> le) {
  BigInt x;
  set_le(x, le);
  return x.decimal();
}

std::string decimal(const pacer::Fr256& v) {
  return decimal(std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data()), sizeof v));
}

// A Montgomery-form coordinate (x·2^(8·width) mod q) as its standard decimal value.
std::string montgomery_decimal(std::span<const std::byte> le, const char* q_dec) {
  BigInt x, r_inv, q(q_dec);
  set_le(x, le);
  mpz_set_ui(r_inv.z, 1);
  mpz_mul_2exp(r_inv.z, r_inv.z, 8 * le.size());
  REQUIRE(mpz_invert(r_inv.z, r_inv.z, q.z) != 0);
  mpz_mul(x.z, x.z, r_inv.z);
  mpz_mod(x.z, x.z, q.z);
  return x.decimal();
}

bool all_zero(std::span<const std::byte> b) {
  return std::all_of(b.begin(), b.end(), [](std::byte x) { return x == std::byte{0}; });
}

// G1 point of the zkey against snarkjs's ["x", "y", "1"] (infinity is ["0", "1", "0"]).
void check_g1(std::span<const std::byte> point, const nlohmann::json& vk, const char* q) {
  const size_t n8q = point.size() / 2;
  if (all_zero(point)) {
    CHECK(vk[2] == "0");
    return;
  }
  CHECK(montgomery_decimal(point.subspan(0, n8q), q) == vk[0]);
  CHECK(montgomery_decimal(point.subspan(n8q, n8q), q) == vk[1]);
}

// G2 point (x.c0 x.c1 y.c0 y.c1) against [["x.c0","x.c1"],["y.c0","y.c1"],["1","0"]].
void check_g2(std::span<const std::byte> point, const nlohmann::json& vk, const char* q) {
  const size_t n8q = point.size() / 4;
  for (size_t coord = 0; coord < 2; ++coord)
    for (size_t part = 0; part < 2; ++part)
      CHECK(montgomery_decimal(point.subspan((2 * coord + part) * n8q, n8q), q) == vk[coord][part]);
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

Bytes read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Bytes out(chars.size());
  std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

void write_bytes(const fs::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  REQUIRE(out.good());
}

void put_u32(Bytes& b, size_t offset, uint32_t v) { std::memcpy(b.data() + offset, &v, 4); }
uint32_t get_u32(const Bytes& b, size_t offset) {
  uint32_t v;
  std::memcpy(&v, b.data() + offset, 4);
  return v;
}

// A scratch folder for damaged copies of the fixtures, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("pacer_formats_" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  // Writes `bytes` under `name` and returns the path as a string.
  std::string write(const std::string& name, const Bytes& bytes) const {
    write_bytes(path / name, bytes);
    return (path / name).string();
  }
};

// Payload offset of a section in a fixture, from the reader under test (checked by the fixture tests).
uint64_t section_offset(const fs::path& file, std::string_view magic, uint32_t id) {
  const pacer::BinFile bin(file.string(), magic, 2);
  return bin.sections().at(id).first;
}

std::vector<fs::path> fixture_dirs() {
  std::vector<fs::path> dirs;
  for (const auto& circuit : fs::directory_iterator(kCircuits))
    for (const char* curve : {"bn128", "bls12381"})
      if (fs::exists(circuit.path() / curve / "circuit.zkey")) dirs.push_back(circuit.path() / curve);
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

const fs::path kMul3Bn = kCircuits / "mul3" / "bn128";
const fs::path kMul3Bls = kCircuits / "mul3" / "bls12381";

}  // namespace

TEST_CASE("shipped fixtures parse and agree with snarkjs's JSON", "[formats]") {
  const auto dirs = fixture_dirs();
  REQUIRE(dirs.size() >= 7);
  for (const auto& dir : dirs) {
    INFO("fixture " << dir.string());
    const auto key = pacer::read_zkey((dir / "circuit.zkey").string());
    const auto witness = pacer::read_wtns((dir / "witness.wtns").string());
    const auto r1cs = pacer::read_r1cs((dir / "circuit.r1cs").string());
    const auto vk = read_json(dir / "verification_key.json");
    const auto pub = read_json(dir / "public.json");
    const char* q = key->curve == pacer::CurveId::bn254 ? kBn254Q : kBls12381Q;

    CHECK(pacer::curve_json_name(key->curve) == vk["curve"].get<std::string>());
    CHECK(dir.filename() == std::string(pacer::curve_json_name(key->curve)));
    CHECK(witness.curve == key->curve);
    CHECK(r1cs.curve == key->curve);
    CHECK(key->n8q == pacer::curve_n8q(key->curve));
    CHECK(key->n8r == 32);
    CHECK(decimal(pacer::curve_scalar_prime(key->curve)) ==
          (key->curve == pacer::CurveId::bn254 ? kBn254R : kBls12381R));

    // Sizes agree across the three files.
    CHECK(key->n_public == vk["nPublic"].get<uint32_t>());
    CHECK(key->n_public == r1cs.n_public());
    if (dir.parent_path().filename() == "nopub") CHECK(key->n_public == 0);  // IC = {IC[0]}, public.json = []
    CHECK(key->n_vars == witness.values.size());
    CHECK(key->n_vars == r1cs.n_wires);
    CHECK(r1cs.constraints.size() == r1cs.n_constraints);
    uint32_t domain = 1;
    while (domain < r1cs.n_constraints + key->n_public + 1) domain *= 2;
    CHECK(key->domain_size == domain);
    CHECK_NOTHROW(pacer::check_witness_matches(*key, witness));

    // Witness: wire 0 is 1, wires 1..nPublic are public.json.
    REQUIRE(pub.size() == key->n_public);
    CHECK(decimal(witness.values[0]) == "1");
    for (uint32_t i = 0; i < key->n_public; ++i) CHECK(decimal(witness.values[i + 1]) == pub[i]);

    // Points, decoded from Montgomery form, match the verification key.
    check_g1(key->alpha1, vk["vk_alpha_1"], q);
    check_g2(key->beta2, vk["vk_beta_2"], q);
    check_g2(key->gamma2, vk["vk_gamma_2"], q);
    check_g2(key->delta2, vk["vk_delta_2"], q);
    REQUIRE(vk["IC"].size() == key->n_public + 1);
    const size_t g1 = 2 * key->n8q;
    for (uint32_t i = 0; i <= key->n_public; ++i) check_g1(key->ic.subspan(i * g1, g1), vk["IC"][i], q);
    CHECK(key->a.size() == key->n_vars * g1);
    CHECK(key->b2.size() == key->n_vars * 2 * g1);
    CHECK(key->c.size() == (key->n_vars - key->n_public - 1) * g1);
    CHECK(key->h.size() == key->domain_size * g1);

    // Coefficients: A and B terms of every constraint, stored as v·R² mod r, then the public rows.
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, const pacer::Fr256*> terms;
    size_t n_ab_terms = 0;
    for (uint32_t c = 0; c < r1cs.n_constraints; ++c) {
      for (const auto& t : r1cs.constraints[c].a) terms[{0, c, t.wire}] = &t.coeff;
      for (const auto& t : r1cs.constraints[c].b) terms[{1, c, t.wire}] = &t.coeff;
      n_ab_terms += r1cs.constraints[c].a.size() + r1cs.constraints[c].b.size();
    }
    CHECK(key->n_coeffs == n_ab_terms + key->n_public + 1);
    CHECK(key->coeffs.size() == key->n_coeffs * 44ull);
    BigInt r(key->curve == pacer::CurveId::bn254 ? kBn254R : kBls12381R), r2, expected;
    mpz_set_ui(r2.z, 1);
    mpz_mul_2exp(r2.z, r2.z, 512);
    mpz_mod(r2.z, r2.z, r.z);
    size_t mismatches = 0;
    for (uint32_t i = 0; i < key->n_coeffs; ++i) {
      const auto record = key->coeffs.subspan(i * 44ull, 44);
      const uint32_t matrix = pacer::le::u32(record, 0), constraint = pacer::le::u32(record, 4),
                     signal = pacer::le::u32(record, 8);
      if (constraint >= r1cs.n_constraints) {  // the extra row of public wire `signal`, coefficient 1
        CHECK(matrix == 0);
        CHECK(constraint == r1cs.n_constraints + signal);
        mpz_set(expected.z, r2.z);
      } else {
        const auto it = terms.find({matrix, constraint, signal});
        REQUIRE(it != terms.end());
        set_le(expected, std::span<const std::byte>(reinterpret_cast<const std::byte*>(it->second->data()), 32));
        mpz_mul(expected.z, expected.z, r2.z);
        mpz_mod(expected.z, expected.z, r.z);
      }
      if (decimal(record.subspan(12)) != expected.decimal()) ++mismatches;
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("mul3 fixtures hold the values the spec states", "[formats]") {
  for (const auto& dir : {kMul3Bn, kMul3Bls}) {
    INFO("fixture " << dir.string());
    const auto witness = pacer::read_wtns((dir / "witness.wtns").string());
    std::vector<std::string> values;
    for (const auto& v : witness.values) values.push_back(decimal(v));
    CHECK(values == std::vector<std::string>{"1", "990", "5", "3", "11", "33", "165"});

    const auto r1cs = pacer::read_r1cs((dir / "circuit.r1cs").string());
    CHECK(r1cs.n_wires == 7);
    CHECK(r1cs.n_pub_out == 1);
    CHECK(r1cs.n_pub_in == 1);
    CHECK(r1cs.n_prv_in == 2);
    CHECK(r1cs.n_labels == 7);
    REQUIRE(r1cs.n_constraints == 3);
    // Constraint 0: (-a)·b = -t1, i.e. A = {w3: -1}, B = {w4: 1}, C = {w5: -1}.
    BigInt minus_one(dir == kMul3Bn ? kBn254R : kBls12381R);
    mpz_sub_ui(minus_one.z, minus_one.z, 1);
    const auto& c0 = r1cs.constraints[0];
    REQUIRE(c0.a.size() == 1);
    REQUIRE(c0.b.size() == 1);
    REQUIRE(c0.c.size() == 1);
    CHECK(c0.a[0].wire == 3);
    CHECK(decimal(c0.a[0].coeff) == minus_one.decimal());
    CHECK(c0.b[0].wire == 4);
    CHECK(decimal(c0.b[0].coeff) == "1");
    CHECK(c0.c[0].wire == 5);
    CHECK(decimal(c0.c[0].coeff) == minus_one.decimal());

    // circom writes the constraints section first: the reader must not assume the header leads.
    CHECK(get_u32(read_bytes(dir / "circuit.r1cs"), 12) == 2);
  }

  // bn128: a coefficient 1 (the public rows 3..5 of wires 0..2) is stored as R² mod r.
  const auto key = pacer::read_zkey((kMul3Bn / "circuit.zkey").string());
  CHECK(key->n_vars == 7);
  CHECK(key->n_public == 2);
  CHECK(key->domain_size == 8);
  const unsigned char r2[32] = {0xa7, 0x6d, 0x21, 0xae, 0x45, 0xe6, 0xb8, 0x1b, 0xe3, 0x59, 0x5c,
                                0xe3, 0xb1, 0x3a, 0xfe, 0x53, 0x85, 0x80, 0xbb, 0x53, 0x3d, 0x83,
                                0x49, 0x8c, 0xa5, 0x44, 0x4e, 0x7f, 0xb1, 0xd0, 0x16, 0x02};
  int public_rows = 0;
  for (uint32_t i = 0; i < key->n_coeffs; ++i) {
    const auto record = key->coeffs.subspan(i * 44ull, 44);
    if (pacer::le::u32(record, 4) < 3) continue;
    ++public_rows;
    CHECK(pacer::le::u32(record, 0) == 0);
    CHECK(pacer::le::u32(record, 4) == 3 + pacer::le::u32(record, 8));
    CHECK(std::memcmp(record.data() + 12, r2, 32) == 0);
  }
  CHECK(public_rows == 3);
  // The key keeps its mapping alive on its own.
  CHECK(key->file.use_count() >= 1);
  CHECK(key->h.data() >= key->file->bytes().data());
}

TEST_CASE("zkey: damaged or foreign keys are InputErrors naming the file", "[formats]") {
  TempDir tmp;
  const fs::path original = kMul3Bn / "circuit.zkey";
  const Bytes good = read_bytes(original);
  const uint64_t header = section_offset(original, "zkey", 2);
  const uint64_t n_vars_at = header + 4 + 32 + 4 + 32;

  SECTION("missing and empty files") {
    const std::string missing = (tmp.path / "missing.zkey").string();
    CHECK_INPUT_ERROR(pacer::read_zkey(missing), missing, "cannot open");
    const std::string empty = tmp.write("empty.zkey", {});
    CHECK_INPUT_ERROR(pacer::read_zkey(empty), empty, "empty");
  }
  SECTION("truncated at several offsets") {
    for (size_t cut : {size_t{3}, size_t{8}, size_t{12}, size_t{20}, size_t{header + 10}, good.size() / 2,
                       good.size() - 1}) {
      INFO("cut at " << cut);
      const std::string p = tmp.write("cut.zkey", Bytes(good.begin(), good.begin() + cut));
      CHECK_INPUT_ERROR(pacer::read_zkey(p), p, cut < 4 ? "not a zkey file" : "truncated");
    }
    const std::string p = tmp.write("cut.zkey", Bytes(good.begin(), good.end() - 1));
    CHECK_THROWS_WITH(pacer::read_zkey(p), Catch::Contains("but the file has " + std::to_string(good.size() - 1)));
  }
  SECTION("wrong magic") {
    Bytes bad = good;
    bad[3] = std::byte{'z'};
    const std::string p = tmp.write("magic.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "not a zkey file (magic 'zkez')");
  }
  SECTION("version above what Pacer reads") {
    Bytes bad = good;
    put_u32(bad, 4, pacer::kZkeyMaxVersion + 1);
    const std::string p = tmp.write("version.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "version 3");
  }
  SECTION("duplicate section") {
    Bytes bad = good;
    put_u32(bad, 8, get_u32(bad, 8) + 1);
    const Bytes record = {std::byte{1}, {}, {}, {}, std::byte{4}, {}, {}, {}, {}, {}, {}, {}, std::byte{1}, {}, {}, {}};
    bad.insert(bad.end(), record.begin(), record.end());
    const std::string p = tmp.write("dup.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "section 1 appears twice");
  }
  SECTION("protocol other than groth16") {
    Bytes bad = good;
    put_u32(bad, section_offset(original, "zkey", 1), 2);
    const std::string p = tmp.write("plonk.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "plonk");
    put_u32(bad, section_offset(original, "zkey", 1), 10);
    tmp.write("plonk.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "fflonk");
  }
  SECTION("unknown q") {
    Bytes bad = good;
    bad[header + 4] ^= std::byte{1};
    const std::string p = tmp.write("q.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "unknown curve (q = 0x30644e72e131a029");
    CHECK_THROWS_WITH(pacer::read_zkey(p), Catch::Contains("Pacer supports bn128 and bls12381"));
  }
  SECTION("r of another curve") {
    Bytes bad = good;
    bad[header + 4 + 32 + 4 + 31] = std::byte{0x73};  // top byte of the bls12-381 r
    const std::string p = tmp.write("r.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "does not belong to curve bn128");
  }
  SECTION("header sizes that contradict the sections") {
    Bytes bad = good;
    put_u32(bad, n_vars_at + 4, get_u32(bad, n_vars_at + 4) + 1);  // nPublic
    std::string p = tmp.write("npublic.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "section 3 (IC) has 192 bytes but nPublic+1 = 4 points");
    bad = good;
    put_u32(bad, n_vars_at + 4, 7);  // nPublic = nVars
    p = tmp.write("npublic.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "nPublic (7) must be less than nVars (7)");
    bad = good;
    put_u32(bad, n_vars_at + 8, 12);  // domainSize
    p = tmp.write("domain.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "domainSize 12 is not a power of two");
    bad = good;
    put_u32(bad, n_vars_at + 8, 16);
    p = tmp.write("domain.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "section 9 (H)");
  }
  SECTION("coefficient records out of range") {
    const uint64_t records = section_offset(original, "zkey", 4) + 4;
    const auto bad_record = [&](size_t index, size_t field, uint32_t value, const std::string& fragment) {
      Bytes bad = good;
      put_u32(bad, records + index * 44 + field, value);
      const std::string p = tmp.write("coef.zkey", bad);
      CHECK_INPUT_ERROR(pacer::read_zkey(p), p, fragment);
    };
    bad_record(0, 0, 2, "coefficient record 0: matrix 2");
    bad_record(1, 4, 8, "coefficient record 1: constraint 8 is not below domainSize 8");
    bad_record(2, 8, 7, "coefficient record 2: signal 7 is not below nVars 7");
    bad_record(3, 12 + 28, 0xffffffff, "coefficient record 3: value is not below r");
    Bytes bad = good;
    put_u32(bad, records - 4, get_u32(bad, records - 4) - 1);  // count one short of the records
    const std::string p = tmp.write("coef.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "section 4 (coefficients)");
  }
  SECTION("missing section") {
    Bytes bad = good;
    put_u32(bad, section_offset(original, "zkey", 9) - 12, 11);  // H renamed to an unknown id
    const std::string p = tmp.write("noh.zkey", bad);
    CHECK_INPUT_ERROR(pacer::read_zkey(p), p, "missing section 9 (H)");
  }
}

TEST_CASE("wtns: damaged witnesses and mismatched pairs are InputErrors", "[formats]") {
  TempDir tmp;
  const fs::path original = kMul3Bn / "witness.wtns";
  const Bytes good = read_bytes(original);
  const uint64_t header = section_offset(original, "wtns", 1);
  const uint64_t values = section_offset(original, "wtns", 2);

  SECTION("witness of the other curve") {
    const auto key = pacer::read_zkey((kMul3Bn / "circuit.zkey").string());
    const auto witness = pacer::read_wtns((kMul3Bls / "witness.wtns").string());
    CHECK_INPUT_ERROR(pacer::check_witness_matches(*key, witness), witness.path,
                      "is for bls12381 but key " + key->path + " is for bn128");
  }
  SECTION("witness of another circuit") {
    const auto key = pacer::read_zkey((kMul3Bn / "circuit.zkey").string());
    const auto witness = pacer::read_wtns((kCircuits / "chain" / "bn128" / "witness.wtns").string());
    CHECK_INPUT_ERROR(pacer::check_witness_matches(*key, witness), witness.path,
                      "values but key " + key->path + " expects 7 (nVars): was it computed for this circuit?");
  }
  SECTION("value not below r") {
    Bytes bad = good;
    const Bytes r(bad.begin() + header + 4, bad.begin() + header + 36);  // the prime itself
    std::copy(r.begin(), r.end(), bad.begin() + values + 3 * 32);
    const std::string p = tmp.write("big.wtns", bad);
    CHECK_INPUT_ERROR(pacer::read_wtns(p), p, "witness value 3 is not below");
  }
  SECTION("damaged headers and sizes") {
    Bytes bad = good;
    put_u32(bad, 4, 3);
    std::string p = tmp.write("bad.wtns", bad);
    CHECK_INPUT_ERROR(pacer::read_wtns(p), p, "wtns version 3");
    bad = good;
    put_u32(bad, header, 48);
    p = tmp.write("bad.wtns", bad);
    CHECK_INPUT_ERROR(pacer::read_wtns(p), p, "field elements of 48 bytes");
    bad = good;
    bad[header + 4] ^= std::byte{2};
    p = tmp.write("bad.wtns", bad);
    CHECK_INPUT_ERROR(pacer::read_wtns(p), p, "unknown scalar prime");
    bad = good;
    put_u32(bad, header + 36, 8);
    p = tmp.write("bad.wtns", bad);
    CHECK_INPUT_ERROR(pacer::read_wtns(p), p, "section 2 (values) has 224 bytes but 8 values");
    p = tmp.write("bad.wtns", Bytes(good.begin(), good.end() - 5));
    CHECK_INPUT_ERROR(pacer::read_wtns(p), p, "truncated: section 2");
    p = tmp.write("bad.wtns", Bytes(good.begin(), good.begin() + 40));
    CHECK_INPUT_ERROR(pacer::read_wtns(p), p, "truncated: section 1");
  }
}

TEST_CASE("r1cs: damaged constraint systems are InputErrors", "[formats]") {
  TempDir tmp;
  const fs::path original = kMul3Bn / "circuit.r1cs";
  const Bytes good = read_bytes(original);
  const uint64_t header = section_offset(original, "r1cs", 1);
  const uint64_t constraints = section_offset(original, "r1cs", 2);  // constraint 0, A: 1 term (w3, -1)

  Bytes bad = good;
  put_u32(bad, constraints + 4, 7);
  std::string p = tmp.write("bad.r1cs", bad);
  CHECK_INPUT_ERROR(pacer::read_r1cs(p), p, "constraint 0 A: wire 7 is not below nWires 7");
  CHECK_NOTHROW(pacer::read_r1cs(p, /*with_constraints=*/false));

  bad = good;
  std::fill(bad.begin() + constraints + 8, bad.begin() + constraints + 40, std::byte{0xff});
  p = tmp.write("bad.r1cs", bad);
  CHECK_INPUT_ERROR(pacer::read_r1cs(p), p, "constraint 0 A: coefficient of wire 3 is not below");

  bad = good;
  put_u32(bad, header + 4 + 32 + 4 * 4 + 8, 2);  // mConstraints one short: section 2 has bytes left over
  p = tmp.write("bad.r1cs", bad);
  CHECK_INPUT_ERROR(pacer::read_r1cs(p), p, "section 2 (constraints) has");

  bad = good;
  put_u32(bad, header + 4 + 32 + 4 * 4 + 8, 4);  // one too many: runs off the end
  p = tmp.write("bad.r1cs", bad);
  CHECK_INPUT_ERROR(pacer::read_r1cs(p), p, "section 2 (constraints) is too short");

  bad = good;
  put_u32(bad, header + 4 + 32, 3);  // nWires below 1 + the four inputs
  p = tmp.write("bad.r1cs", bad);
  CHECK_INPUT_ERROR(pacer::read_r1cs(p), p, "exceeds nWires 3");

  p = tmp.write("bad.r1cs", Bytes(good.begin(), good.begin() + static_cast<long>(good.size()) - 100));
  CHECK_INPUT_ERROR(pacer::read_r1cs(p), p, "truncated");

  bad = good;
  put_u32(bad, 4, 2);
  p = tmp.write("bad.r1cs", bad);
  CHECK_INPUT_ERROR(pacer::read_r1cs(p), p, "r1cs version 2");
}

TEST_CASE("inspect summarises each kind and refuses others", "[formats]") {
  const std::string zkey = pacer::inspect_file((kMul3Bn / "circuit.zkey").string());
  CHECK_THAT(zkey, Catch::Contains("zkey") && Catch::Contains("curve:      bn128") &&
                       Catch::Contains("nVars:      7") && Catch::Contains("nPublic:    2") &&
                       Catch::Contains("domainSize: 8") && Catch::Contains("nCoefs:") && Catch::Contains("     9          3468           512  H") &&
                       Catch::Contains("coefficients") && Catch::Contains("contributions"));
  const std::string wtns = pacer::inspect_file((kMul3Bls / "witness.wtns").string());
  CHECK_THAT(wtns, Catch::Contains("wtns") && Catch::Contains("bls12381") && Catch::Contains("values:     7"));
  const std::string r1cs = pacer::inspect_file((kMul3Bn / "circuit.r1cs").string());
  CHECK_THAT(r1cs, Catch::Contains("r1cs") && Catch::Contains("wires:      7") && Catch::Contains("constraints: 3") &&
                       Catch::Contains("wire to label map"));

  TempDir tmp;
  const std::string p = tmp.write("x.bin", Bytes{std::byte{'a'}, std::byte{'b'}, std::byte{'c'}, std::byte{0}});
  CHECK_INPUT_ERROR(pacer::inspect_file(p), p, "not a zkey, wtns or r1cs file (magic 'abc\\x00')");
}

TEST_CASE("inspect summarises PLONK and fflonk keys (protocol, curve, sizes) and proving them is refused", "[formats]") {
  const fs::path dir = fs::path(PACER_SOURCE_DIR) / "tests/fixtures/other_protocols";
  struct Case {
    const char* file;
    const char* kind;
    const char* curve;
    const char* section;
  };
  for (const Case c : {Case{"mul3-bn128-plonk.zkey", "plonk proving key", "bn128", "sigma"},
                       Case{"mul3-bls12381-plonk.zkey", "plonk proving key", "bls12381", "lagrange polynomials"},
                       Case{"mul3-bn128-fflonk.zkey", "fflonk proving key", "bn128", "C0 polynomial"}}) {
    INFO(c.file);
    const std::string path = (dir / c.file).string();
    const std::string text = pacer::inspect_file(path);
    CHECK_THAT(text, Catch::Contains(c.kind) && Catch::Contains("Pacer proves groth16 only") &&
                         Catch::Contains(std::string("curve:      ") + c.curve) && Catch::Contains("nVars:      7") &&
                         Catch::Contains("nPublic:    2") && Catch::Contains("domainSize: 8") &&
                         Catch::Contains("nConstraints: 5") && Catch::Contains(c.section));
    CHECK_INPUT_ERROR(pacer::read_zkey(path), path, "Pacer proves groth16 only");
  }
}
