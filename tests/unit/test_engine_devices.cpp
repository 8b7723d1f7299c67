// The engine over a backend with several devices: proofs spread over the devices' lanes; a device
// that fails (DeviceFailedError, as the cuda backend throws after a sticky CUDA error) takes its
// lanes out of service and the proofs on it run once more on another device; with no device left,
// proofs fail with a clear error and nothing hangs. The devices are the real cpu backend behind a
// wrapper that declares lanes on two devices and injects the failures. Proofs use r = s = 0.
#include <atomic>
#include <catch2/catch.hpp>
#include <functional>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine_rig.hpp"
#include "pacer/error.hpp"

using Catch::Matchers::Contains;
using namespace engine_rig;

namespace {

// The cpu backend presented as lanes on several devices. `fails(device, call, lost)` decides
// whether a device's call (1, 2, ... on that device) is the one that breaks it; from then on every
// call on its lanes throws DeviceFailedError, as the cuda backend does.
class DevicesBackend final : public pacer::Backend {
 public:
  using FailsAt = std::function<bool(unsigned device, uint64_t call, const std::vector<bool>& lost)>;

  DevicesBackend(std::shared_ptr<pacer::Backend> inner, std::vector<unsigned> lane_devices, FailsAt fails)
      : inner_(std::move(inner)), lane_devices_(std::move(lane_devices)), fails_(std::move(fails)) {
    unsigned devices = 0;
    for (unsigned d : lane_devices_) devices = std::max(devices, d + 1);
    lost_.assign(devices, false);
    calls_.assign(devices, 0);
  }

  pacer::BackendInfo info() const override {
    pacer::BackendInfo info = inner_->info();
    info.name = "devices";
    info.lanes = unsigned(lane_devices_.size());
    info.lane_devices = lane_devices_;
    return info;
  }
  pacer::ResourceClass resource(pacer::Stage stage, const pacer::ResidentKey& key) const override {
    return inner_->resource(stage, key);
  }
  std::unique_ptr<pacer::ResidentKey> load(std::shared_ptr<const pacer::ProvingKey> key) override {
    return inner_->load(std::move(key));
  }
  void synthesize(pacer::ResidentKey& key, pacer::Lane lane, std::span<const pacer::Fr256> witness,
                  std::span<pacer::Fr256> a, std::span<pacer::Fr256> b, std::span<pacer::Fr256> c,
                  const pacer::Checkpoint& checkpoint) override {
    (void)lane;  // host work: not counted as a call on the lane's device
    inner_->synthesize(key, 0, witness, a, b, c, checkpoint);
  }
  void compute_h(pacer::ResidentKey& key, pacer::Lane lane, std::span<pacer::Fr256> a, std::span<pacer::Fr256> b,
                 std::span<pacer::Fr256> c, const pacer::Checkpoint& checkpoint) override {
    enter(lane);
    inner_->compute_h(key, 0, a, b, c, checkpoint);
  }
  pacer::PointBytes msm_g1(pacer::ResidentKey& key, pacer::Lane lane, pacer::Basis basis,
                           std::span<const pacer::Fr256> scalars, const pacer::Checkpoint& checkpoint) override {
    enter(lane);
    return inner_->msm_g1(key, 0, basis, scalars, checkpoint);
  }
  pacer::PointBytes msm_g2(pacer::ResidentKey& key, pacer::Lane lane, std::span<const pacer::Fr256> scalars,
                           const pacer::Checkpoint& checkpoint) override {
    enter(lane);
    return inner_->msm_g2(key, 0, scalars, checkpoint);
  }

  unsigned device_of(int lane) const { return lane_devices_.at(size_t(lane)); }
  bool lost(unsigned device) {
    std::lock_guard lock(mu_);
    return lost_[device];
  }

 private:
  void enter(pacer::Lane lane) {
    std::lock_guard lock(mu_);
    const unsigned device = lane_devices_.at(lane);
    if (!lost_[device] && fails_(device, ++calls_[device], lost_)) lost_[device] = true;
    if (lost_[device])
      throw pacer::DeviceFailedError("injected device fault: device " + std::to_string(device) + " is gone", device);
  }

  std::shared_ptr<pacer::Backend> inner_;
  const std::vector<unsigned> lane_devices_;
  const FailsAt fails_;
  std::mutex mu_;
  std::vector<bool> lost_;
  std::vector<uint64_t> calls_;
};

struct DevicesRig : Rig {
  std::shared_ptr<DevicesBackend> devices;
  DevicesRig(std::vector<unsigned> lane_devices, DevicesBackend::FailsAt fails) : Rig("greedy", "", 4) {
    devices = std::make_shared<DevicesBackend>(parts.backend, std::move(lane_devices), std::move(fails));
    parts.backend = devices;
    // The key's subgroup check runs MSMs on a lane too; off, so that the calls counted (and failed)
    // on each device are the proofs' alone. test_engine_key_check.cpp tests the checks.
    parts.check_key_subgroups = false;
  }
};

}  // namespace

TEST_CASE("engine: proofs go to the least busy device, so two proofs in flight run on two devices", "[engine]") {
  DevicesRig rig({0, 0, 1, 1}, [](unsigned, uint64_t, const std::vector<bool>&) { return false; });
  pacer::EngineOptions options;
  options.jobs_in_flight = 2;
  pacer::Prover prover(rig.parts, options);
  auto key = prover.load_key(kCircuit + "/circuit.zkey");
  auto proofs = submit_all(prover, key, 2);
  std::set<unsigned> devices;
  for (auto& f : proofs) {
    const pacer::ProofOutput out = f.get();
    std::set<unsigned> mine;
    for (const auto& r : out.stages)
      if (r.lane >= 0) mine.insert(rig.devices->device_of(r.lane));
    REQUIRE(mine.size() == 1);  // one lane per proof
    devices.insert(*mine.begin());
  }
  CHECK(devices == std::set<unsigned>{0, 1});
}

TEST_CASE("engine: a device that fails is taken out of service and its proofs run again on the other, and all verify",
          "[engine]") {
  const std::string expected = one_proof_alone();
  // Device 0 breaks at its third backend call: the proof on it has started its device work.
  DevicesRig rig({0, 1, 0, 1}, [](unsigned device, uint64_t call, const std::vector<bool>&) {
    return device == 0 && call == 3;
  });
  pacer::EngineOptions options;
  options.jobs_in_flight = 4;
  pacer::Prover prover(rig.parts, options);
  auto key = prover.load_key(kCircuit + "/circuit.zkey");
  auto proofs = submit_all(prover, key, 8);
  size_t retried = 0;
  for (auto& f : proofs) {
    const pacer::ProofOutput out = f.get();
    CHECK(out.proof_json == expected);
    retried += out.attempts == 2;
    for (const auto& r : out.stages) {
      if (r.attempt == 2 && r.lane >= 0) CHECK(rig.devices->device_of(r.lane) == 1);  // never back on device 0
      if (r.attempt == out.attempts) CHECK_FALSE(r.failed);                            // the last attempt is clean
    }
  }
  CHECK(rig.devices->lost(0));
  CHECK_FALSE(rig.devices->lost(1));
  CHECK(retried >= 1);
  // The engine goes on with device 1 alone.
  for (auto& f : submit_all(prover, key, 3)) {
    const pacer::ProofOutput out = f.get();
    CHECK(out.attempts == 1);
    for (const auto& r : out.stages)
      if (r.lane >= 0) CHECK(rig.devices->device_of(r.lane) == 1);
  }
}

TEST_CASE("engine: when every device has failed, each proof fails once with a clear error and none hangs",
          "[engine]") {
  // Device 0 breaks at its first call; device 1 at its first call after that, so the proof that
  // is retried on device 1 fails there too, and is not retried a second time.
  DevicesRig rig({0, 1}, [](unsigned device, uint64_t call, const std::vector<bool>& lost) {
    return device == 0 ? call == 1 : lost[0];
  });
  pacer::EngineOptions options;
  options.jobs_in_flight = 2;
  pacer::Prover prover(rig.parts, options);
  auto key = prover.load_key(kCircuit + "/circuit.zkey");
  auto proofs = submit_all(prover, key, 5);
  size_t no_lane = 0;
  for (auto& f : proofs) {
    try {
      f.get();
      FAIL("a proof succeeded with every device failed");
    } catch (const pacer::FailedError& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK((Contains("injected device fault").match(what) || Contains("no backend lane left").match(what)));
      no_lane += what.find("no backend lane left") != std::string::npos;
    }
  }
  CHECK(no_lane >= 1);  // the proofs that came after both devices failed
  CHECK(rig.devices->lost(0));
  CHECK(rig.devices->lost(1));
}

TEST_CASE("engine: a backend whose lane devices do not match its lanes is refused", "[engine]") {
  DevicesRig rig({0, 1}, [](unsigned, uint64_t, const std::vector<bool>&) { return false; });
  struct Mismatched final : pacer::Backend {
    std::shared_ptr<pacer::Backend> inner;
    explicit Mismatched(std::shared_ptr<pacer::Backend> b) : inner(std::move(b)) {}
    pacer::BackendInfo info() const override {
      pacer::BackendInfo i = inner->info();
      i.lanes = 3;  // two lane devices for three lanes
      return i;
    }
    std::unique_ptr<pacer::ResidentKey> load(std::shared_ptr<const pacer::ProvingKey> k) override {
      return inner->load(std::move(k));
    }
    void synthesize(pacer::ResidentKey&, pacer::Lane, std::span<const pacer::Fr256>, std::span<pacer::Fr256>,
                    std::span<pacer::Fr256>, std::span<pacer::Fr256>, const pacer::Checkpoint&) override {}
    void compute_h(pacer::ResidentKey&, pacer::Lane, std::span<pacer::Fr256>, std::span<pacer::Fr256>,
                   std::span<pacer::Fr256>, const pacer::Checkpoint&) override {}
    pacer::PointBytes msm_g1(pacer::ResidentKey&, pacer::Lane, pacer::Basis, std::span<const pacer::Fr256>,
                             const pacer::Checkpoint&) override {
      return {};
    }
    pacer::PointBytes msm_g2(pacer::ResidentKey&, pacer::Lane, std::span<const pacer::Fr256>,
                             const pacer::Checkpoint&) override {
      return {};
    }
  };
  rig.parts.backend = std::make_shared<Mismatched>(rig.devices);
  CHECK_THROWS_WITH(pacer::Prover(rig.parts), Contains("declares 3 lanes"));
}
