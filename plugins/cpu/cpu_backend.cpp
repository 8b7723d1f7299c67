// Backend "cpu": the reference every other backend is tested against, and what runs where there
// is no GPU. Points are decoded once per key (residency); all parallel work goes to the host pool.
// The kernels (pacer/cpu/kernels.hpp) are chosen by params: ifma = "auto" | "on" | "off",
// msm_window = 0 (cost model) or 2..15.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pacer/cpu/kernels.hpp"
#include "pacer/error.hpp"
#include "pacer/plugin.hpp"
#include "pacer/thread_pool.hpp"

namespace {

using namespace pacer;
using namespace pacer::math;

template <class Curve>
class CpuResidentKey final : public ResidentKey {
 public:
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  using Fr = typename Curve::Fr;

  CpuResidentKey(std::shared_ptr<const ProvingKey> key, ThreadPool* pool, const CpuKernels& kernels)
      : key_(std::move(key)),
        pool_(pool),
        rows_(built_rows()),
        domain_(key_->domain_size),
        a_(decoded<G1>(*key_, key_->a, pool, kernels, "5 (A)")),
        b1_(decoded<G1>(*key_, key_->b1, pool, kernels, "6 (B1)")),
        c_(decoded<G1>(*key_, key_->c, pool, kernels, "8 (C)")),
        h_(decoded<G1>(*key_, key_->h, pool, kernels, "9 (H)")),
        b2_(decoded<G2>(*key_, key_->b2, pool, kernels, "7 (B2)")) {}
  const ProvingKey& key() const override { return *key_; }
  // Held by the caller through its synthesis: release_rows() may run beside it.
  std::shared_ptr<const ConstraintRows> rows() {
    std::lock_guard lock(rows_mu_);
    if (!rows_) rows_ = built_rows();  // a proof after release_rows(): built again from the key
    return rows_;
  }
  void release_rows() {
    std::lock_guard lock(rows_mu_);
    rows_.reset();
  }
  const Radix2Domain<Fr>& domain() const { return domain_; }
  std::span<const Affine<G1>> basis(Basis b) const {
    switch (b) {
      case Basis::A: return a_.points();
      case Basis::B1: return b1_.points();
      case Basis::C: return c_.points();
      case Basis::H: break;
    }
    return h_.points();
  }
  std::span<const Affine<G2>> b2() const { return b2_.points(); }
  // The decoded points, and the constraint rows while they are held.
  uint64_t host_bytes() const {
    uint64_t bytes = (a_.points().size() + b1_.points().size() + c_.points().size() + h_.points().size()) *
                         sizeof(Affine<G1>) +
                     b2_.points().size() * sizeof(Affine<G2>);
    std::lock_guard lock(rows_mu_);
    return bytes + (rows_ ? rows_->bytes() : 0);
  }

 private:
  // A section's points, decoded; the file's pages of it are then given back, so that the key is
  // never held twice (mapped and decoded) beyond one section.
  template <class Group>
  static KeyPoints<Group> decoded(const ProvingKey& key, std::span<const std::byte> bytes, ThreadPool* pool,
                                  const CpuKernels& kernels, const char* section) {
    KeyPoints<Group> points(bytes, pool, kernels, key.path, section);
    if (key.file) key.file->drop_pages(bytes);
    return points;
  }

  // The rows hold the coefficients; the file's pages of them are given back once read.
  std::shared_ptr<const ConstraintRows> built_rows() const {
    auto rows = build_constraint_rows(*key_, pool_);
    if (key_->file) key_->file->drop_pages(key_->coeffs);
    return rows;
  }

  std::shared_ptr<const ProvingKey> key_;
  ThreadPool* pool_;
  mutable std::mutex rows_mu_;
  // Built first, so that the coefficient section's pages are given back before any points are
  // decoded: the file's pages and the decoded copy never pile up. Null after release_rows().
  std::shared_ptr<const ConstraintRows> rows_;
  Radix2Domain<Fr> domain_;
  KeyPoints<G1> a_, b1_, c_, h_;
  KeyPoints<G2> b2_;
};

template <class Group>
PointBytes to_bytes(const Jacobian<Group>& p) {
  PointBytes out;
  out.size = point_bytes<Group>();
  encode_point(p.to_affine(), out.data.data());
  return out;
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(HostServices& host, const CpuKernels& kernels) : host_(host), kernels_(kernels) {
    if (!host_.pool) throw FailedError("cpu backend needs the host thread pool");
  }

  BackendInfo info() const override {
    // Which kernels run belongs in every report.
    const std::string kernels =
        std::string("; field products ") + (kCpuHasAdx ? "mulx/adx" : "portable") + "; MSM, NTT and key check " +
        (kernels_.ifma ? "AVX-512 IFMA" : cpu_has_ifma() ? "scalar (ifma = \"off\")" : "scalar (no AVX-512 IFMA)") +
        (kernels_.msm_window ? "; MSM window " + std::to_string(kernels_.msm_window) + " bits" : "");
    // Lanes: proofs share the pool, so any number can be in flight; one per pool thread is more
    // than ever pays (jobs_in_flight bounds them anyway).
    const unsigned threads = host_.pool->size();
    return {"cpu", {fmt::format("cpu: {} thread{}{}", threads, threads == 1 ? "" : "s", kernels)}, threads,
            {CurveId::bn254, CurveId::bls12_381}, 0, {}, /*lane_calls_overlap=*/true};
  }

  // Per proof: the scratch of all five MSMs, as if they all ran at once (the engine may run them
  // side by side); synthesis and compute_h work in the engine's a, b, c.
  MemoryNeeds memory_needs(const ResidentKey& key) const override {
    return with_cpu_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      const auto& rk = resident<Curve>(key);
      const unsigned threads = host_.pool->size();
      MemoryNeeds needs;
      needs.host_per_key = rk.host_bytes();
      for (const Basis b : {Basis::A, Basis::B1, Basis::C, Basis::H})
        needs.host_per_proof += msm_scratch_bytes<typename Curve::G1>(rk.basis(b).size(), threads, kernels_);
      needs.host_per_proof += msm_scratch_bytes<typename Curve::G2>(rk.b2().size(), threads, kernels_);
      return needs;
    });
  }

  std::unique_ptr<ResidentKey> load(std::shared_ptr<const ProvingKey> key) override {
    return with_cpu_curve(key->curve, [&](auto curve) -> std::unique_ptr<ResidentKey> {
      return std::make_unique<CpuResidentKey<decltype(curve)>>(std::move(key), host_.pool, kernels_);
    });
  }

  void synthesize(ResidentKey& key, Lane, std::span<const Fr256> witness, std::span<Fr256> a, std::span<Fr256> b,
                  std::span<Fr256> c, const Checkpoint& checkpoint) override {
    with_cpu_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      const auto rows = resident<Curve>(key).rows();
      synthesize_rows<typename Curve::Fr>(*rows, witness, a, b, c, host_.pool, checkpoint, kernels_);
    });
  }

  // The rows are as big as the key's coefficient section (59 MB at 2^18): a one-shot proof gives
  // them back before its MSMs' scratch peaks.
  void release_synthesis(ResidentKey& key) override {
    with_cpu_curve(key.key().curve, [&](auto curve) { resident<decltype(curve)>(key).release_rows(); });
  }

  void compute_h(ResidentKey& key, Lane, std::span<Fr256> a, std::span<Fr256> b, std::span<Fr256> c,
                 const Checkpoint& checkpoint) override {
    with_cpu_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      using Fr = typename Curve::Fr;
      auto& k = resident<Curve>(key);
      auto fa = as_field<Fr>(a), fb = as_field<Fr>(b), fc = as_field<Fr>(c);
      const auto& d = k.domain();
      d.to_odd_coset(fa, host_.pool, kernels_);
      if (checkpoint) checkpoint();
      d.to_odd_coset(fb, host_.pool, kernels_);
      if (checkpoint) checkpoint();
      d.to_odd_coset(fc, host_.pool, kernels_);
      // h = A·B − C, then out of Montgomery form: MSM scalars are standard integers.
      constexpr size_t chunk = 1 << 14;
      host_.pool->parallel_for((fa.size() + chunk - 1) / chunk, [&](size_t ch) {
        for (size_t i = ch * chunk, e = std::min(fa.size(), i + chunk); i < e; ++i)
          a[i] = (fa[i] * fb[i] - fc[i]).to_std();
      });
    });
  }

  PointBytes msm_g1(ResidentKey& key, Lane, Basis basis, std::span<const Fr256> scalars,
                    const Checkpoint& checkpoint) override {
    return with_cpu_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      const auto bases = resident<Curve>(key).basis(basis);
      check_count(bases.size(), scalars.size(), "G1");
      return to_bytes(msm<typename Curve::G1>(bases, scalars, host_.pool, kernels_, &checkpoint));
    });
  }

  PointBytes msm_g2(ResidentKey& key, Lane, std::span<const Fr256> scalars, const Checkpoint& checkpoint) override {
    // The proof's longest stage (a G2 addition costs ~3 G1 ones), the critical path where the G1
    // MSMs run beside it: its loops go ahead of theirs, which fill the threads it leaves. Its tasks
    // are long, so this orders the queue rather than preempting (docs/benchmarks.md: one-shot
    // proofs 2-4% faster with the parallel assembly, two in flight no slower).
    const ThreadPool::Urgent urgent;
    return with_cpu_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      const auto bases = resident<Curve>(key).b2();
      check_count(bases.size(), scalars.size(), "G2");
      return to_bytes(msm<typename Curve::G2>(bases, scalars, host_.pool, kernels_, &checkpoint));
    });
  }

 private:
  template <class Curve>
  static CpuResidentKey<Curve>& resident(ResidentKey& key) {
    auto* k = dynamic_cast<CpuResidentKey<Curve>*>(&key);
    if (!k) throw FailedError("cpu backend was handed a key made resident by another backend");
    return *k;
  }
  template <class Curve>
  static const CpuResidentKey<Curve>& resident(const ResidentKey& key) {
    return resident<Curve>(const_cast<ResidentKey&>(key));  // the same check; nothing is written
  }
  // Fr is a standard-layout wrapper of the same four limbs: the buffers are viewed in place.
  template <class Fr>
  static std::span<Fr> as_field(std::span<Fr256> v) {
    static_assert(sizeof(Fr) == sizeof(Fr256) && std::is_standard_layout_v<Fr>);
    return {reinterpret_cast<Fr*>(v.data()), v.size()};
  }
  static void check_count(size_t bases, size_t scalars, const char* what) {
    if (bases != scalars)
      throw FailedError(std::string("cpu backend: ") + what + " MSM got " + std::to_string(scalars) +
                        " scalars for " + std::to_string(bases) + " bases");
  }

  HostServices& host_;
  const CpuKernels kernels_;
};

// [backend.params] of the cpu backend; an impossible request is an error, never a quiet fallback.
CpuKernels kernels_from(const Params& params) {
  CpuKernels k = CpuKernels::detect();
  const std::string ifma = params.get_string("ifma", "auto");
  if (ifma == "off") {
    k.ifma = false;
  } else if (ifma == "on") {
    if (!k.ifma)
      throw InputError(params.where() + " ifma = \"on\": this CPU has no AVX-512 IFMA; use \"auto\" or \"off\"");
  } else if (ifma != "auto") {
    throw InputError(params.where() + " ifma must be \"auto\", \"on\" or \"off\", got \"" + ifma + "\"");
  }
  const int64_t window = params.get_int("msm_window", 0);
  if (window != 0 && (window < 2 || window > 15))
    throw InputError(params.where() + " msm_window must be 0 (the cost model's choice) or 2..15, got " +
                     std::to_string(window));
  k.msm_window = unsigned(window);
  return k;
}

std::unique_ptr<Backend> make_cpu_backend(const Params& params, HostServices& host) {
  CpuKernels kernels = kernels_from(params);
  kernels.allocator = host.allocator;  // MSM and NTT scratch, key points: the configured allocator
  return std::make_unique<CpuBackend>(host, kernels);
}

}  // namespace

PACER_PLUGIN(backend, "cpu", "0.1.0", "reference CPU backend (BN254, BLS12-381)", make_cpu_backend)
