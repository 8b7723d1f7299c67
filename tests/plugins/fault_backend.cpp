// Test-only backend "faulty": the real cpu backend (loaded from the plugin search path) with one
// injected fault, to check that a failing backend fails its proof, and only that proof.
// params:
//   fault = "throw" | "wrong_msm"   throw a FailedError, or return a wrong (but valid) MSM point
//   stage = "compute_h" | "msm_g1" | "msm_g2"   where (wrong_msm: msm_g1 or msm_g2)
//   call  = N (>= 1)                the N-th call of that stage's backend method; msm_g1 counts
//                                   its basis-A calls, one a proof
#include <atomic>
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
                std::string stage, int64_t call)
      : registry_(std::move(registry)), inner_(std::move(inner)), fault_(std::move(fault)), stage_(std::move(stage)),
        call_(call) {}

  BackendInfo info() const override { return inner_->info(); }
  ResourceClass resource(Stage stage) const override { return inner_->resource(stage); }
  std::unique_ptr<ResidentKey> load(std::shared_ptr<const ProvingKey> key) override { return inner_->load(std::move(key)); }

  void compute_h(ResidentKey& key, Lane lane, std::span<Fr256> a, std::span<Fr256> b, std::span<Fr256> c,
                 const Checkpoint& checkpoint) override {
    if (hit("compute_h", compute_h_calls_)) throw_fault();
    inner_->compute_h(key, lane, a, b, c, checkpoint);
  }

  PointBytes msm_g1(ResidentKey& key, Lane lane, Basis basis, std::span<const Fr256> scalars,
                    const Checkpoint& checkpoint) override {
    const bool faulty = basis == Basis::A && hit("msm_g1", msm_g1_calls_);
    if (faulty && fault_ == "throw") throw_fault();
    PointBytes out = inner_->msm_g1(key, lane, basis, scalars, checkpoint);
    if (faulty) out = shifted<false>(key.key().curve, out);
    return out;
  }

  PointBytes msm_g2(ResidentKey& key, Lane lane, std::span<const Fr256> scalars, const Checkpoint& checkpoint) override {
    const bool faulty = hit("msm_g2", msm_g2_calls_);
    if (faulty && fault_ == "throw") throw_fault();
    PointBytes out = inner_->msm_g2(key, lane, scalars, checkpoint);
    if (faulty) out = shifted<true>(key.key().curve, out);
    return out;
  }

 private:
  bool hit(const char* stage, std::atomic<int64_t>& calls) const { return stage_ == stage && ++calls == call_; }
  [[noreturn]] void throw_fault() const {
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
  std::atomic<int64_t> compute_h_calls_{0}, msm_g1_calls_{0}, msm_g2_calls_{0};
};

std::unique_ptr<Backend> make_faulty_backend(const Params& params, HostServices& host) {
  const std::string fault = params.get_string("fault", "throw");
  const std::string stage = params.get_string("stage", "msm_g1");
  const int64_t call = params.get_int("call", 1);
  if (fault != "throw" && fault != "wrong_msm")
    throw InputError(params.where() + " fault must be \"throw\" or \"wrong_msm\", got \"" + fault + "\"");
  if (stage != "compute_h" && stage != "msm_g1" && stage != "msm_g2")
    throw InputError(params.where() + " stage must be compute_h, msm_g1 or msm_g2, got \"" + stage + "\"");
  if (fault == "wrong_msm" && stage == "compute_h")
    throw InputError(params.where() + " wrong_msm needs stage msm_g1 or msm_g2");
  if (call < 1) throw InputError(params.where() + " call must be at least 1");
  // The cpu backend from the standard search path ($PACER_PLUGIN_PATH, the build's lib/pacer).
  auto registry = std::make_unique<PluginRegistry>(PluginRegistry::search_path_for(default_config()));
  auto inner = registry->create_backend("cpu", Params(toml::table{}, "[backend.params] (faulty's inner cpu)"), host);
  return std::make_unique<FaultyBackend>(std::move(registry), std::move(inner), fault, stage, call);
}

}  // namespace

PACER_PLUGIN(backend, "faulty", "0.1.0", "TEST ONLY: the cpu backend with one injected fault", make_faulty_backend)
