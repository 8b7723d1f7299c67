// Synthetic circuits, the file writers and the insecure development setup: the witness satisfies
// every constraint (checked straight from the R1cs), files written here read back through the
// readers the prover uses, the fixed-base tables agree with double-and-add, and a key from
// setup_insecure has the sizes and fixed points snarkjs expects. (That snarkjs verifies proofs
// made with such keys is the integration test setup_verify.sh.)
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "generators.hpp"
#include "pacer/dev/fixed_base.hpp"
#include "pacer/dev/setup.hpp"
#include "pacer/dev/synthetic.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/r1cs.hpp"
#include "pacer/formats/writers.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/math/curves.hpp"

namespace fs = std::filesystem;
using namespace pacer;
using namespace pacer::math;

namespace {

// A fresh folder per test case, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "pacer-setup-test.XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

template <class Fr>
Fr lc_value(const std::vector<R1csTerm>& lc, const std::vector<Fr256>& w) {
  Fr sum;
  for (const auto& t : lc) sum += Fr::from_std(t.coeff) * Fr::from_std(w[t.wire]);
  return sum;
}

// Index of the first constraint that (A·w)(B·w) = C·w fails, or -1.
template <class Curve>
long first_unsatisfied(const R1cs& r1cs, const std::vector<Fr256>& w) {
  using Fr = typename Curve::Fr;
  for (size_t i = 0; i < r1cs.constraints.size(); ++i) {
    const auto& c = r1cs.constraints[i];
    if (lc_value<Fr>(c.a, w) * lc_value<Fr>(c.b, w) != lc_value<Fr>(c.c, w)) return long(i);
  }
  return -1;
}

bool same_terms(const std::vector<R1csTerm>& x, const std::vector<R1csTerm>& y) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i].wire != y[i].wire || x[i].coeff != y[i].coeff) return false;
  return true;
}

template <class Group>
std::vector<std::byte> encoded(const Affine<Group>& p) {
  std::vector<std::byte> out(point_bytes<Group>());
  encode_point(p, out.data());
  return out;
}

bool bytes_equal(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

TEMPLATE_TEST_CASE("gen_circuit: the witness satisfies every constraint; deterministic", "[setup]", Bn254, Bls12_381) {
  ThreadPool pool(2), single(1);
  const auto circuit = dev::gen_circuit(TestType::id, 300, 3, 2, 7, pool);
  CHECK(circuit.n_wires() == 1 + 2 + 2 + 300);
  CHECK(circuit.witness.size() == circuit.n_wires());
  CHECK(circuit.witness[0] == Fr256{1, 0, 0, 0});
  const R1cs r1cs = circuit.to_r1cs();
  CHECK(first_unsatisfied<TestType>(r1cs, circuit.witness) == -1);
  for (uint32_t i = 0; i < r1cs.n_constraints; ++i) {  // only earlier wires, distinct, sorted
    for (const auto* lc : {&r1cs.constraints[i].a, &r1cs.constraints[i].b}) {
      REQUIRE(lc->size() == 3);
      for (size_t k = 0; k < lc->size(); ++k) {
        CHECK((*lc)[k].wire < circuit.output_wire(i));
        if (k) CHECK((*lc)[k - 1].wire < (*lc)[k].wire);
      }
    }
  }

  // Same seed, other thread count: the same circuit; another seed: another one.
  const auto again = dev::gen_circuit(TestType::id, 300, 3, 2, 7, single);
  CHECK(again.wires == circuit.wires);
  CHECK(again.coeffs == circuit.coeffs);
  CHECK(again.witness == circuit.witness);
  CHECK(dev::gen_circuit(TestType::id, 300, 3, 2, 8, pool).coeffs != circuit.coeffs);

  // A tampered witness is caught by the same check (the check itself is not vacuous).
  auto bad = circuit.witness;
  bad[circuit.output_wire(123)][0] ^= 1;
  CHECK(first_unsatisfied<TestType>(r1cs, bad) == 123);
}

TEST_CASE("gen_circuit: sizes beyond the formats and bad densities are input errors", "[setup]") {
  ThreadPool pool(1);
  CHECK_THROWS_AS(dev::gen_circuit(CurveId::bn254, 0, 3, 1, 1, pool), InputError);
  CHECK_THROWS_AS(dev::gen_circuit(CurveId::bn254, 10, 0, 1, 1, pool), InputError);
  CHECK_THROWS_AS(dev::gen_circuit(CurveId::bn254, 10, 65, 1, 1, pool), InputError);
  CHECK_THROWS_AS(dev::gen_circuit(CurveId::bn254, uint64_t(1) << 32, 3, 1, 1, pool), InputError);
}

TEMPLATE_TEST_CASE("write_r1cs / write_wtns read back through the readers", "[setup]", Bn254, Bls12_381) {
  TempDir dir;
  ThreadPool pool(2);
  const auto circuit = dev::gen_circuit(TestType::id, 200, 4, 3, 11, pool);
  dev::write_circuit_r1cs(dir.file("c.r1cs"), circuit);
  dev::write_circuit_wtns(dir.file("w.wtns"), circuit);
  CHECK_FALSE(fs::exists(dir.file("c.r1cs.tmp")));

  const R1cs expected = circuit.to_r1cs();
  const R1cs r1cs = read_r1cs(dir.file("c.r1cs"));
  CHECK(r1cs.curve == TestType::id);
  CHECK(r1cs.n_wires == expected.n_wires);
  CHECK(r1cs.n_pub_out == 0);
  CHECK(r1cs.n_pub_in == 3);
  CHECK(r1cs.n_prv_in == 2);
  CHECK(r1cs.n_labels == expected.n_wires);
  REQUIRE(r1cs.n_constraints == 200);
  for (size_t i = 0; i < 200; ++i) {
    CHECK(same_terms(r1cs.constraints[i].a, expected.constraints[i].a));
    CHECK(same_terms(r1cs.constraints[i].b, expected.constraints[i].b));
    CHECK(same_terms(r1cs.constraints[i].c, expected.constraints[i].c));
  }
  const Witness w = read_wtns(dir.file("w.wtns"));
  CHECK(w.curve == TestType::id);
  CHECK(std::ranges::equal(w.values, circuit.witness));

  // The general R1cs writer gives the same bytes as the synthetic one.
  write_r1cs(dir.file("again.r1cs"), r1cs);
  std::ifstream a(dir.file("c.r1cs"), std::ios::binary), b(dir.file("again.r1cs"), std::ios::binary);
  CHECK(std::string(std::istreambuf_iterator<char>(a), {}) == std::string(std::istreambuf_iterator<char>(b), {}));
}

TEST_CASE("writers: nothing under the real name when a write fails; errors name the path", "[setup]") {
  TempDir dir;
  const std::string missing = dir.file("no/such/folder/w.wtns");
  const std::vector<Fr256> values{{1, 0, 0, 0}};
  CHECK_THROWS_AS(write_wtns(missing, CurveId::bn254, values), InputError);
  CHECK_THROWS_WITH(write_wtns(missing, CurveId::bn254, values), Catch::Contains(missing));

  const R1csHeader header{CurveId::bn254, 3, 0, 1, 1, 3, 2};
  CHECK_THROWS_AS(write_r1cs(dir.file("c.r1cs"), header,
                             [](uint32_t i, R1csLcWriter&) {
                               if (i == 1) throw std::runtime_error("generator failed");
                             }),
                  std::exception);
  CHECK(fs::is_empty(dir.path));  // neither c.r1cs nor c.r1cs.tmp
}

TEMPLATE_TEST_CASE("write_zkey and write_vkey_json reproduce a snarkjs key", "[setup]", Bn254, Bls12_381) {
  TempDir dir;
  const fs::path fixture = fs::path(PACER_SOURCE_DIR) / "examples/circuits/mul3" / std::string(TestType::json_name);
  const auto original = read_zkey((fixture / "circuit.zkey").string());
  write_zkey(dir.file("k.zkey"), *original);
  const auto copy = read_zkey(dir.file("k.zkey"));
  CHECK(copy->n_vars == original->n_vars);
  CHECK(copy->n_public == original->n_public);
  CHECK(copy->domain_size == original->domain_size);
  CHECK(copy->n_coeffs == original->n_coeffs);
  for (auto [x, y] : {std::pair{copy->alpha1, original->alpha1}, {copy->beta1, original->beta1},
                      {copy->beta2, original->beta2}, {copy->gamma2, original->gamma2},
                      {copy->delta1, original->delta1}, {copy->delta2, original->delta2}, {copy->ic, original->ic},
                      {copy->a, original->a}, {copy->b1, original->b1}, {copy->b2, original->b2},
                      {copy->c, original->c}, {copy->h, original->h}, {copy->coeffs, original->coeffs}})
    CHECK(bytes_equal(x, y));

  write_vkey_json(dir.file("vk.json"), *original);
  auto ours = nlohmann::json::parse(std::ifstream(dir.file("vk.json")));
  auto theirs = nlohmann::json::parse(std::ifstream(fixture / "verification_key.json"));
  CHECK(ours.contains("vk_alphabeta_12"));
  CHECK(ours == theirs);  // vk_alphabeta_12 included: the pairing agrees with snarkjs's
}

template <class Group>
void check_fixed_base(const Affine<Group>& generator, unsigned bits, unsigned window, const std::vector<Fr256>& k,
                      ThreadPool& pool) {
  const dev::FixedBaseTable<Group> table(generator, bits, window, &pool);
  std::vector<Affine<Group>> many(k.size());
  table.mul_many(k, many);
  for (size_t i = 0; i < k.size(); ++i) {
    const auto expected = Jacobian<Group>::from(generator).mul(k[i]).to_affine();
    INFO("window " << window << ", scalar " << i);
    CHECK(many[i] == expected);
    CHECK(table.mul(k[i]).to_affine() == expected);
  }
}

TEMPLATE_TEST_CASE("fixed-base tables agree with double-and-add", "[setup]", Bn254, Bls12_381) {
  using Fr = typename TestType::Fr;
  std::mt19937_64 rng(5);
  std::vector<Fr256> k = {Fr256{}, Fr256{1, 0, 0, 0}, Fr256{2, 0, 0, 0}, (-Fr::one()).to_std()};
  for (int i = 0; i < 40; ++i) k.push_back(Fr::from_std(Fr256{rng(), rng(), rng(), rng() >> 4}).to_std());
  const unsigned bits = unsigned(limbs_bit_length(Fr::P));
  ThreadPool pool(2);
  for (unsigned window : {1u, 5u, 8u, 13u}) check_fixed_base(TestType::g1_generator(), bits, window, k, pool);
  for (unsigned window : {4u, 8u}) check_fixed_base(TestType::g2_generator(), bits, window, k, pool);
  CHECK(dev::FixedBaseTable<typename TestType::G1>::best_window_bits(1 << 20, bits) >= 12);
}

TEST_CASE("setup_domain_size counts the public rows", "[setup]") {
  CHECK(dev::setup_domain_size(1000, 1) == 1024);
  CHECK(dev::setup_domain_size(1022, 1) == 1024);
  CHECK(dev::setup_domain_size(1023, 1) == 2048);
  CHECK(dev::setup_domain_size(3, 2) == 8);  // mul3, as snarkjs sized it
}

TEMPLATE_TEST_CASE("setup_insecure writes a key of the right shape", "[setup]", Bn254, Bls12_381) {
  TempDir dir;
  ThreadPool pool(2);
  const auto circuit = dev::gen_circuit(TestType::id, 100, 3, 2, 3, pool);
  dev::write_circuit_r1cs(dir.file("c.r1cs"), circuit);
  const R1cs r1cs = read_r1cs(dir.file("c.r1cs"));

  std::vector<std::string> phases;
  const auto report = dev::setup_insecure(r1cs, dir.file("k.zkey"), dir.file("vk.json"), pool,
                                          [&](std::string_view phase, uint64_t done, uint64_t total) {
                                            if (done == total) phases.emplace_back(phase);
                                          });
  CHECK(phases == std::vector<std::string>{"lagrange", "wires", "tables", "IC", "coefficients", "A", "B1", "B2", "C",
                                           "H", "vkey"});
  CHECK(report.domain_size == 128);

  const auto key = read_zkey(dir.file("k.zkey"));
  CHECK(key->curve == TestType::id);
  CHECK(key->n_vars == circuit.n_wires());
  CHECK(key->n_public == 2);
  CHECK(key->domain_size == 128);
  CHECK(key->n_coeffs == 100 * 6 + 3);
  CHECK(bytes_equal(key->gamma2, encoded(TestType::g2_generator())));
  // First record: constraint 0's first A term, value v·R² mod r (§5.3); last: public row (0, m+2, 2, 1).
  using Fr = typename TestType::Fr;
  CHECK(le::u32(key->coeffs, 0) == 0);
  CHECK(le::u32(key->coeffs, 4) == 0);
  CHECK(le::u32(key->coeffs, 8) == r1cs.constraints[0].a[0].wire);
  CHECK(Fr::from_mont(le::fr256(key->coeffs, 12)).to_std() == Fr::from_std(r1cs.constraints[0].a[0].coeff).v);
  const size_t last = (size_t(key->n_coeffs) - 1) * 44;
  CHECK(le::u32(key->coeffs, last + 4) == 102);
  CHECK(le::u32(key->coeffs, last + 8) == 2);
  CHECK(Fr::from_mont(le::fr256(key->coeffs, last + 12)) == Fr::from_mont(Fr::R1) * Fr::from_mont(Fr::R2));
  // Every point decodes onto its curve.
  for (size_t i = 0; i < key->n_vars; ++i) {
    CHECK(decode_point<typename TestType::G1>(key->a.data() + i * point_bytes<typename TestType::G1>()).on_curve());
    CHECK(decode_point<typename TestType::G2>(key->b2.data() + i * point_bytes<typename TestType::G2>()).on_curve());
  }

  const auto vk = nlohmann::json::parse(std::ifstream(dir.file("vk.json")));
  // Compared as std::string: json == "literal" trips a GCC 12 -Warray-bounds false positive at -O3.
  CHECK(vk["protocol"].get<std::string>() == std::string("groth16"));
  CHECK(vk["curve"].get<std::string>() == std::string(TestType::json_name));
  CHECK(vk["nPublic"] == 2);
  CHECK(vk["IC"].size() == 3);
  CHECK(vk["vk_alphabeta_12"].size() == 2);
}

TEST_CASE("setup_insecure refuses a domain without a 2n-th root of unity", "[setup]") {
  ThreadPool pool(1);
  R1cs huge;  // header only: the check comes before any work
  huge.path = "huge.r1cs";
  huge.curve = CurveId::bn254;
  huge.n_wires = 10;
  huge.n_pub_in = 1;
  huge.n_constraints = (1u << 27) - 1;  // + 1 public + 1 = 2^27 + 1 rows: domain 2^28
  CHECK_THROWS_AS(dev::setup_insecure(huge, "k.zkey", "vk.json", pool), InputError);
  CHECK_THROWS_WITH(dev::setup_insecure(huge, "k.zkey", "vk.json", pool),
                    Catch::Contains("huge.r1cs") && Catch::Contains("2^28") && Catch::Contains("2^27"));
  CHECK_FALSE(fs::exists("k.zkey"));
}
