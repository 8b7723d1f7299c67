// Backend "cpu": the reference every other backend is tested against, and what runs where there
// is no GPU. Points are decoded once per key (residency); all parallel work goes to the host pool.
#include <spdlog/spdlog.h>

#include <sys/mman.h>

#include <atomic>
#include <memory>
#include <new>
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

// Decoded key points in memory that nobody zeroed first: each pool thread first-touches (faults
// in) the part it fills, where a std::vector would have one thread zero all of it before the
// parallel copy (at 2^20 that serial pass was most of the key's load time). Transparent huge
// pages where the kernel allows them: 512 times fewer page faults.
template <class Group>
class PointBuffer {
 public:
  PointBuffer() = default;
  // Every point is checked once copied (is_valid_key_point: the MSM's equal-x test relies on
  // canonical coordinates). A damaged key fails here, naming the section and point, instead of
  // giving a wrong proof.
  PointBuffer(std::span<const std::byte> bytes, ThreadPool* pool, const std::string& path, const char* section)
      : size_(bytes.size() / point_bytes<Group>()) {
    if (size_ == 0) return;
    const size_t size_bytes = (size_ * sizeof(Affine<Group>) + kAlign - 1) / kAlign * kAlign;
    data_.reset(static_cast<Affine<Group>*>(::operator new(size_bytes, std::align_val_t(kAlign))));
#ifdef MADV_HUGEPAGE
    ::madvise(data_.get(), size_bytes, MADV_HUGEPAGE);  // advice only: fine to be refused
#endif
    std::atomic<size_t> first_bad{size_};
    constexpr size_t chunk = 1 << 14;
    pool->parallel_for((size_ + chunk - 1) / chunk, [&](size_t c) {
      const size_t begin = c * chunk, end = std::min(size_, begin + chunk);
      for (size_t i = begin; i < end; ++i)
        ::new (data_.get() + i) Affine<Group>(decode_point<Group>(bytes.data() + i * point_bytes<Group>()));
      const size_t bad = begin + first_invalid_key_point<Group>({data_.get() + begin, end - begin});
      if (bad == end) return;
      size_t seen = first_bad.load();
      while (bad < seen && !first_bad.compare_exchange_weak(seen, bad)) {
      }
    });
    if (first_bad.load() < size_)
      throw InputError(path + ": section " + section + ", point " + std::to_string(first_bad.load()) +
                       " is not a point of the curve (coordinates must be below p and satisfy the curve equation): "
                       "the key is damaged; make or download it again");
  }
  std::span<const Affine<Group>> points() const { return {data_.get(), size_}; }

 private:
  static constexpr size_t kAlign = size_t(2) << 20;  // a huge page
  static_assert(std::is_trivially_destructible_v<Affine<Group>>);
  struct Free {
    void operator()(Affine<Group>* p) const { ::operator delete(p, std::align_val_t(kAlign)); }
  };
  size_t size_ = 0;
  std::unique_ptr<Affine<Group>, Free> data_;
};

template <class Curve>
class CpuResidentKey final : public ResidentKey {
 public:
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  using Fr = typename Curve::Fr;

  CpuResidentKey(std::shared_ptr<const ProvingKey> key, ThreadPool* pool)
      : key_(std::move(key)),
        domain_(key_->domain_size, Curve::two_adicity),
        a_(key_->a, pool, key_->path, "5 (A)"),
        b1_(key_->b1, pool, key_->path, "6 (B1)"),
        c_(key_->c, pool, key_->path, "8 (C)"),
        h_(key_->h, pool, key_->path, "9 (H)"),
        b2_(key_->b2, pool, key_->path, "7 (B2)") {}
  const ProvingKey& key() const override { return *key_; }
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

 private:
  std::shared_ptr<const ProvingKey> key_;
  Radix2Domain<Fr> domain_;
  PointBuffer<G1> a_, b1_, c_, h_;
  PointBuffer<G2> b2_;
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
    // Which kernels run (chosen at start-up from the CPU's features) belongs in every report.
    const std::string kernels = std::string("; field products ") + (g_use_adx_field ? "mulx/adx" : "portable") +
                                "; MSM bucket additions " +
                                (g_use_ifma_msm ? "AVX-512 IFMA" : "scalar (no AVX-512 IFMA, or PACER_NO_IFMA set)");
    return {"cpu", {"cpu: " + std::to_string(host_.pool->size()) + " threads" + kernels}, 1,
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
      const auto bases = resident<Curve>(key).basis(basis);
      check_count(bases.size(), scalars.size(), "G1");
      return to_bytes(msm<typename Curve::G1>(bases, scalars, host_.pool, &checkpoint));
    });
  }

  PointBytes msm_g2(ResidentKey& key, Lane, std::span<const Fr256> scalars, const Checkpoint& checkpoint) override {
    return with_curve(key.key().curve, [&](auto curve) {
      using Curve = decltype(curve);
      const auto bases = resident<Curve>(key).b2();
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
