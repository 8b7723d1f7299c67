// The engine's key checks (framework/src/keys/key_checks.hpp) and its critical path: a key with a
// point outside its subgroup is refused on its first proof, naming the point, and no record may let
// it through but its own; a key that passed once is not checked again; compute_h runs beside the A,
// B1 and C MSMs on a backend whose lane calls may overlap.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <future>
#include <random>

#include "curve_points.hpp"
#include "engine_rig.hpp"
#include "keys/check_records.hpp"
#include "keys/key_digest.hpp"
#include "pacer/error.hpp"
#include "pacer/formats/binfile.hpp"
#include "temp_dir.hpp"

using namespace engine_rig;
using Catch::Matchers::Contains;
using test_files::TempDir;
namespace fs = std::filesystem;

namespace {

constexpr size_t kBadPoint = 300;  // of poseidon3's 609 B2 points

// poseidon3's bn128 key with its B2 point kBadPoint moved off the subgroup by a point of order
// 10069 (the smallest factor of G2's cofactor: the hardest case for a batched check).
std::string key_with_bad_b2_point(const TempDir& tmp) {
  const std::string good = kCircuit + "/circuit.zkey";
  auto bytes = test_files::read_bytes(good);
  const pacer::BinFile bin(good, "zkey", 2);
  using G2 = pacer::math::Bn254::G2;
  std::byte* at = bytes.data() + bin.sections().at(7).first + kBadPoint * pacer::math::point_bytes<G2>();
  std::mt19937_64 rng(11);
  const auto bad =
      pacer::test::point_with_small_order_part<pacer::math::Bn254>(pacer::math::decode_point<G2>(at), rng);
  pacer::math::encode_point(bad, at);
  const std::string path = tmp.file("bad.zkey");
  test_files::write_bytes(path, bytes);
  return path;
}

std::string digest_of(const std::string& path) {
  const pacer::MappedFile file(path);
  return pacer::key_content_digest(file.bytes(), nullptr);
}

void expect_refused(pacer::EngineParts parts, const std::string& zkey) {
  pacer::Prover prover(parts);
  auto key = prover.load_key(zkey);
  auto proofs = submit_all(prover, key, 2);
  const std::string named = "section 7 (B2), point " + std::to_string(kBadPoint) +
                            " is not in the curve's prime-order subgroup";
  for (auto& proof : proofs) {
    try {
      proof.get();
      FAIL("a proof on a key with a point outside the subgroup was handed out");
    } catch (const pacer::InputError& e) {
      CHECK_THAT(e.what(), Contains(named));
    }
  }
}

}  // namespace

TEST_CASE("engine: a key with one point outside its subgroup is refused on its first proof, naming the point",
          "[engine][key_check]") {
  TempDir tmp;
  const std::string bad = key_with_bad_b2_point(tmp);
  Rig rig;
  rig.parts.key_check_records = tmp.path / "key-checks";
  expect_refused(rig.parts, bad);
  CHECK_FALSE(pacer::KeyCheckRecords(rig.parts.key_check_records).passed(digest_of(bad)));
  CHECK_FALSE(fs::exists(pacer::KeyCheckRecords(rig.parts.key_check_records).record_path(digest_of(bad))));
}

TEST_CASE("engine: a good key is checked once and recorded; a valid record is what skips the check",
          "[engine][key_check]") {
  TempDir tmp;
  const pacer::KeyCheckRecords records(tmp.path / "key-checks");
  const std::string good = kCircuit + "/circuit.zkey";
  const std::string expected = one_proof_alone();
  {
    Rig rig;
    rig.parts.key_check_records = records.dir();
    pacer::Prover prover(rig.parts);
    CHECK(submit_all(prover, prover.load_key(good), 1)[0].get().proof_json == expected);
  }
  CHECK(records.passed(digest_of(good)));
  // A record is what lets a key skip its check: one made (with this user's secret) for the bad key
  // lets it through, which no run of Pacer would ever write.
  const std::string bad = key_with_bad_b2_point(tmp);
  REQUIRE(records.remember(digest_of(bad)));
  Rig rig;
  rig.parts.key_check_records = records.dir();
  pacer::Prover prover(rig.parts);
  CHECK_NOTHROW(submit_all(prover, prover.load_key(bad), 1)[0].get());
}

TEST_CASE("engine: a record copied from another key, or edited, does not let a bad key through",
          "[engine][key_check]") {
  TempDir tmp;
  const pacer::KeyCheckRecords records(tmp.path / "key-checks");
  const std::string good = kCircuit + "/circuit.zkey";
  const std::string bad = key_with_bad_b2_point(tmp);
  REQUIRE(records.remember(digest_of(good)));
  const fs::path good_record = records.record_path(digest_of(good)), bad_record = records.record_path(digest_of(bad));
  Rig rig;
  rig.parts.key_check_records = records.dir();
  SECTION("copied") { fs::copy_file(good_record, bad_record); }
  SECTION("edited: the bad key's digest written over the good one's") {
    std::string text = test_files::read_text(good_record);
    const std::string from = digest_of(good), to = digest_of(bad);
    text.replace(text.find(from), from.size(), to);
    test_files::write_text(bad_record, text);
  }
  fs::permissions(bad_record, fs::perms::owner_read | fs::perms::owner_write);
  expect_refused(rig.parts, bad);
}

TEST_CASE("engine: with lane calls that may overlap, compute_h runs while the A MSM is still running",
          "[engine]") {
  Rig rig;
  REQUIRE(rig.parts.backend->info().lane_calls_overlap);
  std::promise<void> compute_h_started;
  auto started = compute_h_started.get_future().share();
  bool overlapped = false;
  pacer::EngineOptions options;
  options.before_stage = [&](pacer::JobId, pacer::Stage stage, uint8_t part) {
    if (stage == pacer::Stage::compute_h) compute_h_started.set_value();
    // The A MSM holds the lane's strand until compute_h has started (or 20 s have passed: the
    // strand would have queued compute_h behind it).
    if (stage == pacer::Stage::msm_g1 && part == 0)
      overlapped = started.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  };
  pacer::Prover prover(rig.parts, options);
  auto key = prover.load_key(kCircuit + "/circuit.zkey");
  CHECK(submit_all(prover, key, 1)[0].get().proof_json == one_proof_alone());
  CHECK(overlapped);
}
