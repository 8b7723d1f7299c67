// Backend "cpu": the reference every other backend is tested against, and what runs where there
// is no GPU. Points are decoded once per key (residency); all parallel work goes to the host pool.
#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <vector>

#include "pacer/error.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/math/msm.hpp"
#include "pacer/math/ntt.hpp"
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

  CpuResidentKey(std::shared_ptr<const ProvingKey> key, ThreadPool* pool)
      : key_(std::move(key)), domain_(key_->domain_size, Curve::two_adicity) {
    decode_all<G1>(key_->a, a_, pool);
    decode_all<G1>(key_->b1, b1_, pool);
    decode_all<G1>(key_->c, c_, pool);
    decode_all<G1>(key_->h, h_, pool);
    decode_all<G2>(key_->b2, b2_, pool);
  }
  const ProvingKey& key() const override { return *key_; }
  const Radix2Domain<Fr>& domain() const { return domain_; }
  const std::vector<Affine<G1>>& basis(Basis b) const {
    switch (b) {
      case Basis::A: return a_;
      case Basis::B1: return b1_;
      case Basis::C: return c_;
      case Basis::H: break;
    }
    return h_;
  }
  const std::vector<Affine<G2>>& b2() const { return b2_; }

 private:
  template <class Group>
  static void decode_all(std::span<const std::byte> bytes, std::vector<Affine<Group>>& out, ThreadPool* pool) {
    constexpr size_t stride = point_bytes<Group>();
    out.resize(bytes.size() / stride);
    constexpr size_t chunk = 1 << 14;
    pool->parallel_for((out.size() + chunk - 1) / chunk, [&](size_t c) {
      for (size_t i = c * chunk, e = std::min(out.size(), i + chunk); i < e; ++i)
        out[i] = decode_point<Group>(bytes.data() + i * stride);
    });
  }

  std::shared_ptr<const ProvingKey> key_;
  Radix2Domain<Fr> domain_;
  std::vector<Affine<G1>> a_, b1_, c_, h_;
  std::vector<Affine<G2>> b2_;
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
  explicit CpuBackend(HostServices& host) : host_(host) {
    if (!host_.pool) throw FailedError("cpu backend needs the host thread pool");
  }

  BackendInfo info() const override {
    return {"cpu", {"cpu: " + std::to_string(host_.pool->size()) + " threads"}, 1,
            {CurveId::bn254, CurveId::bls12_381}};
  }

  std::unique_ptr<ResidentKey> load(std::shared_ptr<const ProvingKey> key) override {
    return with_curve(key->curve, [&](auto curve) -> std::unique_ptr<ResidentKey> {
      return std::make_unique<CpuResidentKey<decltype(curve)>>(std::move(key), host_.pool);
    });
  }

  void compute_h(ResidentKey& key, Lane, std::span<Fr256> a, std::span<Fr256> b, std::span<Fr256> c,
                 const Checkpoint& checkpoint) override {
    with_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      using Fr = typename Curve::Fr;
      auto& k = resident<Curve>(key);
      auto fa = as_field<Fr>(a), fb = as_field<Fr>(b), fc = as_field<Fr>(c);
      const auto& d = k.domain();
      d.to_odd_coset(fa, host_.pool);
      if (checkpoint) checkpoint();
      d.to_odd_coset(fb, host_.pool);
      if (checkpoint) checkpoint();
      d.to_odd_coset(fc, host_.pool);
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
    return with_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      const auto& bases = resident<Curve>(key).basis(basis);
      check_count(bases.size(), scalars.size(), "G1");
      return to_bytes(msm<typename Curve::G1>(bases, scalars, host_.pool, &checkpoint));
    });
  }

  PointBytes msm_g2(ResidentKey& key, Lane, std::span<const Fr256> scalars, const Checkpoint& checkpoint) override {
    return with_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      const auto& bases = resident<Curve>(key).b2();
      check_count(bases.size(), scalars.size(), "G2");
      return to_bytes(msm<typename Curve::G2>(bases, scalars, host_.pool, &checkpoint));
    });
  }

 private:
  template <class Curve>
  static CpuResidentKey<Curve>& resident(ResidentKey& key) {
    auto* k = dynamic_cast<CpuResidentKey<Curve>*>(&key);
    if (!k) throw FailedError("cpu backend was handed a key made resident by another backend");
    return *k;
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
};

std::unique_ptr<Backend> make_cpu_backend(const Params&, HostServices& host) {
  return std::make_unique<CpuBackend>(host);
}

}  // namespace

PACER_PLUGIN(backend, "cpu", "0.1.0", "reference CPU backend (BN254, BLS12-381)", make_cpu_backend)
