// Test-only backend "faulty": the real cpu backend (loaded from the plugin search path) with one
// injected fault, to check that a failing backend fails its proof, and only that proof.
// params:
//   fault = "throw" | "wrong_msm" | "device_lost"
//                                   throw a FailedError; return a wrong (but valid) MSM point; or
//                                   lose the device of the call's lane: DeviceFailedError now and
//                                   on every later call on that device's lanes (as the cuda
//                                   backend after a sticky CUDA error)
//   stage = "compute_h" | "msm_g1" | "msm_g2"   where (wrong_msm: msm_g1 or msm_g2)
//   call  = N (>= 1)                the N-th call of that stage's backend method; msm_g1 counts
//                                   its basis-A calls, one a proof
//   devices = D (>= 1)              the cpu backend's lanes dealt round-robin over D pretend devices
#include <atomic>
#include <memory>
#include <string>

#include "pacer/config.hpp"
#include "pacer/error.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/plugin.hpp"
#include "pacer/plugin_loader.hpp"

namespace {

using namespace pacer;

class FaultyBackend final : public Backend {
 public:
  FaultyBackend(std::unique_ptr<PluginRegistry> registry, std::shared_ptr<Backend> inner, std::string fault,
                std::string stage, int64_t call, unsigned devices)
      : registry_(std::move(registry)), inner_(std::move(inner)), fault_(std::move(fault)), stage_(std::move(stage)),
        call_(call), devices_(devices), lost_(std::make_unique<std::atomic<bool>[]>(devices)) {}

  BackendInfo info() const override {
    BackendInfo info = inner_->info();
    info.lane_devices.clear();
    for (Lane lane = 0; lane < info.lanes; ++lane) info.lane_devices.push_back(lane % devices_);
    return info;
  }
  ResourceClass resource(Stage stage, const ResidentKey& key) const override { return inner_->resource(stage, key); }
  VectorHome vectors(const ResidentKey& key) const override { return inner_->vectors(key); }
  void end_proof(Lane lane) noexcept override { inner_->end_proof(lane); }
  void release_synthesis(ResidentKey& key) override { inner_->release_synthesis(key); }
  std::unique_ptr<ResidentKey> load(std::shared_ptr<const ProvingKey> key) override { return inner_->load(std::move(key)); }

  void synthesize(ResidentKey& key, Lane lane, std::span<const Fr256> witness, std::span<Fr256> a, std::span<Fr256> b,
                  std::span<Fr256> c, const Checkpoint& checkpoint) override {
    inner_->synthesize(key, lane, witness, a, b, c, checkpoint);
  }
  void compute_h(ResidentKey& key, Lane lane, std::span<Fr256> a, std::span<Fr256> b, std::span<Fr256> c,
                 const Checkpoint& checkpoint) override {
    if (hit("compute_h", compute_h_calls_, lane)) throw_fault(lane);
    inner_->compute_h(key, lane, a, b, c, checkpoint);
  }

  PointBytes msm_g1(ResidentKey& key, Lane lane, Basis basis, std::span<const Fr256> scalars,
                    const Checkpoint& checkpoint) override {
    const bool faulty = hit("msm_g1", msm_g1_calls_, lane, basis == Basis::A);
    if (faulty && fault_ != "wrong_msm") throw_fault(lane);
    PointBytes out = inner_->msm_g1(key, lane, basis, scalars, checkpoint);
    if (faulty) out = shifted<false>(key.key().curve, out);
    return out;
  }

  PointBytes msm_g2(ResidentKey& key, Lane lane, std::span<const Fr256> scalars, const Checkpoint& checkpoint) override {
    const bool faulty = hit("msm_g2", msm_g2_calls_, lane);
    if (faulty && fault_ != "wrong_msm") throw_fault(lane);
    PointBytes out = inner_->msm_g2(key, lane, scalars, checkpoint);
    if (faulty) out = shifted<true>(key.key().curve, out);
    return out;
  }

 private:
  // Whether this call is the faulty one; first, a call on a lost device's lane fails as on a GPU
  // whose context is gone.
  bool hit(const char* stage, std::atomic<int64_t>& calls, Lane lane, bool counted = true) const {
    const unsigned device = lane % devices_;
    if (lost_[device])
      throw DeviceFailedError("faulty backend: device " + std::to_string(device) + " was lost earlier", device);
    return counted && stage_ == stage && ++calls == call_;
  }
  [[noreturn]] void throw_fault(Lane lane) const {
    if (fault_ == "device_lost") {
      const unsigned device = lane % devices_;
      lost_[device] = true;
      throw DeviceFailedError("faulty backend: injected loss of device " + std::to_string(device) + " in " + stage_ +
                                  " (call " + std::to_string(call_) + ")",
                              device);
    }
    throw FailedError("faulty backend: injected fault in " + stage_ + " (call " + std::to_string(call_) + ")");
  }
  // The result plus the generator: a point of the curve, so only a verification can tell.
  template <bool kG2>
  static PointBytes shifted(CurveId curve, const PointBytes& in) {
    return math::with_curve(curve, [&](auto c) {
      using Curve = decltype(c);
      using Group = std::conditional_t<kG2, typename Curve::G2, typename Curve::G1>;
      math::Jacobian<Group> generator;
      if constexpr (kG2) generator = math::Jacobian<Group>::from(Curve::g2_generator());
      else generator = math::Jacobian<Group>::from(Curve::g1_generator());
      PointBytes out = in;
      const auto p = math::Jacobian<Group>::from(math::decode_point<Group>(in.data.data())) + generator;
      math::encode_point(p.to_affine(), out.data.data());
      return out;
    });
  }

  std::unique_ptr<PluginRegistry> registry_;  // before inner_: the library outlives the object
  std::shared_ptr<Backend> inner_;
  std::string fault_, stage_;
  int64_t call_;
  unsigned devices_;
  std::unique_ptr<std::atomic<bool>[]> lost_;  // per pretend device
  std::atomic<int64_t> compute_h_calls_{0}, msm_g1_calls_{0}, msm_g2_calls_{0};
};

std::unique_ptr<Backend> make_faulty_backend(const Params& params, HostServices& host) {
  const std::string fault = params.get_string("fault", "throw");
  const std::string stage = params.get_string("stage", "msm_g1");
  const int64_t call = params.get_int("call", 1);
  const int64_t devices = params.get_int("devices", 1);
  if (fault != "throw" && fault != "wrong_msm" && fault != "device_lost")
    throw InputError(params.where() + " fault must be \"throw\", \"wrong_msm\" or \"device_lost\", got \"" + fault +
                     "\"");
  if (devices < 1 || devices > 64) throw InputError(params.where() + " devices must be 1..64");
  if (stage != "compute_h" && stage != "msm_g1" && stage != "msm_g2")
    throw InputError(params.where() + " stage must be compute_h, msm_g1 or msm_g2, got \"" + stage + "\"");
  if (fault == "wrong_msm" && stage == "compute_h")
    throw InputError(params.where() + " wrong_msm needs stage msm_g1 or msm_g2");
  if (call < 1) throw InputError(params.where() + " call must be at least 1");
  // The cpu backend from the standard search path ($PACER_PLUGIN_PATH, the build's lib/pacer).
  auto registry = std::make_unique<PluginRegistry>(PluginRegistry::search_path_for(default_config()));
  auto inner = registry->create_backend("cpu", Params(toml::table{}, "[backend.params] (faulty's inner cpu)"), host);
  return std::make_unique<FaultyBackend>(std::move(registry), std::move(inner), fault, stage, call, unsigned(devices));
}

}  // namespace

PACER_PLUGIN(backend, "faulty", "0.1.0", "TEST ONLY: the cpu backend with one injected fault", make_faulty_backend)
