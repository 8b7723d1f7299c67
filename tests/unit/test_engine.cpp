// The proof engine (pacer::Prover) with the real cpu backend and plain allocator: many proofs
// through few lanes give the same proofs as one at a time, under every scheduler; a stage that
// throws fails its own proof only, whichever stage it is (run this file under ASan too:
// scripts/sanitize.sh). Proofs use r = s = 0, so equal proofs are equal bytes.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "engine_rig.hpp"
#include "pacer/error.hpp"

using Catch::Matchers::Contains;
using namespace engine_rig;

TEST_CASE("engine: twelve proofs, four in flight on two lanes, equal the proof made alone, under every scheduler",
          "[engine]") {
  const std::string expected = one_proof_alone();
  for (const auto& [name, params] : std::vector<std::pair<std::string, std::string>>{
           {"greedy", ""}, {"throttled", "membw_tokens = 1"}, {"throttled", "membw_mb_per_s = 50"},
           {"staggered", ""}, {"adaptive", ""}}) {
    INFO("scheduler " << name << " " << params);
    Rig rig(name, params);
    pacer::EngineOptions options;
    options.jobs_in_flight = 4;
    pacer::Prover prover(rig.parts, options);
    auto key = prover.load_key(kCircuit + "/circuit.zkey");
    auto proofs = submit_all(prover, key, 12);
    std::set<int> lanes;
    for (auto& f : proofs) {
      const pacer::ProofOutput out = f.get();
      CHECK(out.proof_json == expected);
      size_t g1 = 0;
      for (const auto& r : out.stages) {
        CHECK_FALSE(r.failed);
        g1 += r.stage == pacer::Stage::msm_g1;
        if (r.lane >= 0) lanes.insert(r.lane);
      }
      CHECK(g1 == 4);  // one task per G1 basis
      CHECK(out.stages.size() == 10);
    }
    CHECK(lanes.size() <= 2);
  }
}

TEST_CASE("engine: a stage that throws fails its own proof only, whichever stage it is", "[engine]") {
  const std::string expected = one_proof_alone();
  const std::vector<std::pair<pacer::Stage, uint8_t>> where = {
      {pacer::Stage::load, 0},      {pacer::Stage::synthesize, 0}, {pacer::Stage::compute_h, 0},
      {pacer::Stage::msm_g1, 0},    {pacer::Stage::msm_g1, 2},     {pacer::Stage::msm_g1, 3},
      {pacer::Stage::msm_g2, 0},    {pacer::Stage::assemble, 0},   {pacer::Stage::release, 0}};
  for (const auto& [stage, part] : where) {
    INFO("failing stage " << pacer::stage_name(stage) << " part " << int(part));
    Rig rig("throttled", "membw_tokens = 1");
    pacer::EngineOptions options;
    options.jobs_in_flight = 3;
    const pacer::JobId doomed = 2;  // the second proof submitted
    options.before_stage = [&, stage = stage, part = part](pacer::JobId job, pacer::Stage s, uint8_t p) {
      if (job == doomed && s == stage && p == part) throw pacer::FailedError("injected failure");
    };
    pacer::Prover prover(rig.parts, options);
    auto key = prover.load_key(kCircuit + "/circuit.zkey");
    auto proofs = submit_all(prover, key, 5);
    for (size_t i = 0; i < proofs.size(); ++i) {
      if (i + 1 == doomed) {
        const std::string needle = "proof 2: stage " + std::string(pacer::stage_name(stage));
        CHECK_THROWS_WITH(proofs[i].get(), Contains(needle) && Contains("injected failure"));
      } else {
        CHECK(proofs[i].get().proof_json == expected);
      }
    }
  }
}

TEST_CASE("engine: a witness that does not match the key fails that proof as bad input", "[engine]") {
  Rig rig;
  pacer::Prover prover(rig.parts);
  auto key = prover.load_key(kCircuit + "/circuit.zkey");
  auto good = submit_all(prover, key, 1);
  auto wrong = prover.submit(key, [] {
    auto w = std::make_shared<pacer::Witness>(pacer::read_wtns(kCircuit + "/witness.wtns"));
    pacer::AllocatedArray<pacer::Fr256> fewer(nullptr, w->values.size() - 1, pacer::Usage::witness);
    std::copy_n(w->values.data(), fewer.size(), fewer.data());
    w->values = std::move(fewer);  // one value short
    return std::shared_ptr<const pacer::Witness>(w);
  });
  CHECK_THROWS_AS(wrong.get(), pacer::InputError);
  CHECK_NOTHROW(good[0].get());
}

TEST_CASE("engine: the memory budget keeps proofs in flight within it, and one proof always runs", "[engine]") {
  Rig rig;
  pacer::EngineOptions options;
  options.jobs_in_flight = 8;
  options.memory_budget_bytes = 1;  // smaller than any proof: one at a time
  pacer::Prover prover(rig.parts, options);
  auto key = prover.load_key(kCircuit + "/circuit.zkey");
  CHECK(prover.proof_bytes(*key) > 1);
  auto proofs = submit_all(prover, key, 4);
  std::vector<pacer::ProofOutput> outs;
  for (auto& f : proofs) outs.push_back(f.get());
  for (size_t i = 1; i < outs.size(); ++i) CHECK(outs[i].started_at >= outs[i - 1].ended_at);
}

TEST_CASE("engine: a proof's admission bytes are its witness, its a/b/c and the scratch its backend reports", "[engine]") {
  Rig rig;
  pacer::Prover prover(rig.parts, pacer::EngineOptions{});
  auto key = prover.load_key(kCircuit + "/circuit.zkey");
  const pacer::ProvingKey& pk = key->key();
  const pacer::MemoryNeeds needs = rig.parts.backend->memory_needs(*key);
  CHECK(needs.host_per_proof > 0);  // the cpu backend's five MSMs
  CHECK(needs.host_per_key > 0);    // its decoded points
  CHECK(needs.device_per_key == 0);
  CHECK(prover.proof_bytes(*key) ==
        (uint64_t(pk.n_vars) + 3 * uint64_t(pk.domain_size)) * sizeof(pacer::Fr256) + needs.host_per_proof);
}
