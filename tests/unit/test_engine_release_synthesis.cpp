// Prover::last_submission: once every proof submitted on a key has synthesised, the backend is
// told it may drop what only synthesis reads (the cpu backend's constraint rows), so that a
// one-shot `pacer prove` does not hold them through its MSMs; a proof submitted afterwards still
// proves (the backend builds them again). The backend is the real cpu backend behind a wrapper that
// records the order of synthesize and release_synthesis calls. Proofs use r = s = 0.
#include <catch2/catch.hpp>
#include <mutex>
#include <string>
#include <vector>

#include "engine_rig.hpp"

using namespace engine_rig;

namespace {

class RecordingBackend final : public pacer::Backend {
 public:
  explicit RecordingBackend(std::shared_ptr<pacer::Backend> inner) : inner_(std::move(inner)) {}

  pacer::BackendInfo info() const override { return inner_->info(); }
  std::unique_ptr<pacer::ResidentKey> load(std::shared_ptr<const pacer::ProvingKey> key) override {
    return inner_->load(std::move(key));
  }
  void synthesize(pacer::ResidentKey& key, pacer::Lane lane, std::span<const pacer::Fr256> witness,
                  std::span<pacer::Fr256> a, std::span<pacer::Fr256> b, std::span<pacer::Fr256> c,
                  const pacer::Checkpoint& checkpoint) override {
    inner_->synthesize(key, lane, witness, a, b, c, checkpoint);
    note('s');
  }
  void compute_h(pacer::ResidentKey& key, pacer::Lane lane, std::span<pacer::Fr256> a, std::span<pacer::Fr256> b,
                 std::span<pacer::Fr256> c, const pacer::Checkpoint& checkpoint) override {
    inner_->compute_h(key, lane, a, b, c, checkpoint);
  }
  pacer::PointBytes msm_g1(pacer::ResidentKey& key, pacer::Lane lane, pacer::Basis basis,
                           std::span<const pacer::Fr256> scalars, const pacer::Checkpoint& checkpoint) override {
    return inner_->msm_g1(key, lane, basis, scalars, checkpoint);
  }
  pacer::PointBytes msm_g2(pacer::ResidentKey& key, pacer::Lane lane, std::span<const pacer::Fr256> scalars,
                           const pacer::Checkpoint& checkpoint) override {
    return inner_->msm_g2(key, lane, scalars, checkpoint);
  }
  void release_synthesis(pacer::ResidentKey& key) override {
    inner_->release_synthesis(key);
    note('R');
  }

  // 's' for each synthesis ended, 'R' for each release, in order.
  std::string calls() {
    std::lock_guard lock(mu_);
    return calls_;
  }

 private:
  void note(char c) {
    std::lock_guard lock(mu_);
    calls_ += c;
  }
  std::shared_ptr<pacer::Backend> inner_;
  std::mutex mu_;
  std::string calls_;
};

struct RecordingRig : Rig {
  std::shared_ptr<RecordingBackend> recording;
  RecordingRig() : Rig("greedy", "", 2) {
    recording = std::make_shared<RecordingBackend>(parts.backend);
    parts.backend = recording;
  }
};

}  // namespace

TEST_CASE("engine: after the last submission the key's synthesis data is released once, after every synthesis",
          "[engine]") {
  const std::string expected = one_proof_alone();
  RecordingRig rig;
  pacer::EngineOptions options;
  options.jobs_in_flight = 2;
  pacer::Prover prover(rig.parts, options);
  auto key = prover.load_key(kCircuit + "/circuit.zkey");
  auto proofs = submit_all(prover, key, 4);
  prover.last_submission(key);
  for (auto& f : proofs) CHECK(f.get().proof_json == expected);
  CHECK(rig.recording->calls() == "ssssR");
  SECTION("a proof submitted after the release still proves: the rows are built again") {
    for (auto& f : submit_all(prover, key, 1)) CHECK(f.get().proof_json == expected);
    CHECK(rig.recording->calls() == "ssssRs");  // not sealed again: nothing more released
  }
  SECTION("sealing a key with no proof pending releases at once") {
    prover.last_submission(key);
    CHECK(rig.recording->calls() == "ssssRR");
  }
}

TEST_CASE("engine: without a last submission a key's synthesis data is never released", "[engine]") {
  RecordingRig rig;
  pacer::Prover prover(rig.parts);
  auto key = prover.load_key(kCircuit + "/circuit.zkey");
  for (auto& f : submit_all(prover, key, 3)) f.get();
  CHECK(rig.recording->calls() == "sss");
}

TEST_CASE("engine: a proof that fails before its synthesis still lets the key's synthesis data go", "[engine]") {
  RecordingRig rig;
  {
    pacer::Prover prover(rig.parts);
    auto key = prover.load_key(kCircuit + "/circuit.zkey");
    auto failing = prover.submit(key, []() -> std::shared_ptr<const pacer::Witness> {
      throw pacer::InputError("no such witness");
    });
    prover.last_submission(key);
    CHECK_THROWS(failing.get());
  }  // the engine has wound down: the failed proof has ended
  CHECK(rig.recording->calls() == "R");
}
