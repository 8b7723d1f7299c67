#pragma once
// NttOps for one scalar field: root and coset tables shared per device, compute_h's steps.
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "internal.hpp"
#include "ntt/ntt.cuh"
#include "ntt/roots.hpp"
#include "synth/rows.cuh"

namespace pacer::cuda::ntt {

template <class F>
struct SharedTables {
  struct Roots {
    DeviceBuffer buf;
    uint32_t log_t = 0;
  };
  std::mutex mu;
  std::map<int, std::shared_ptr<Roots>> roots;                            // per device: the largest so far
  std::map<std::pair<int, uint32_t>, std::shared_ptr<DeviceBuffer>> coset;  // per device and L: g^j/n

  static SharedTables& get() {
    static SharedTables t;
    return t;
  }
};

template <class F>
class NttOpsImpl final : public detail::NttOps {
 public:
  NttOpsImpl(int device, const KernelConfig& kernels) : device_(device), kernels_(kernels) {}

  void prepare(uint32_t L, cudaStream_t s) override {
    if (L > two_adicity<F>()) throw std::invalid_argument("pacer::cuda: NTT domain exceeds the field's 2-adicity");
    auto& t = SharedTables<F>::get();
    std::lock_guard lock(t.mu);
    auto& r = t.roots[device_];
    if (!r || r->log_t < L) {
      auto fresh = std::make_shared<typename SharedTables<F>::Roots>();
      const size_t count = size_t(1) << L;
      fresh->buf.allocate(count * sizeof(F), "NTT root table", device_);
      fresh->log_t = L;
      build_power_table(fresh->buf.template get<F>(), count, root_of_unity<F>(L), F::one(), device_, s);
      r = fresh;  // lanes holding the old table keep it alive
    }
    roots_ = r;
    auto& c = t.coset[{device_, L}];
    if (!c) {
      const size_t n = size_t(1) << L;
      auto fresh = std::make_shared<DeviceBuffer>(n * sizeof(F), "NTT coset table", device_);
      build_power_table(fresh->template get<F>(), n, coset_generator<F>(L), inverse_of_pow2<F>(L), device_, s);
      c = fresh;
    }
    cosets_[L] = c;
  }

  void coset_eval(void* x, uint32_t L, cudaStream_t s) override {
    F* d = static_cast<F*>(x);
    const F* w = roots().buf.template get<F>();
    run_transform<F>(d, L, /*dit=*/false, /*inverse=*/true, w, roots().log_t, nullptr, s, kernels_);
    run_transform<F>(d, L, /*dit=*/true, /*inverse=*/false, w, roots().log_t, coset(L), s, kernels_);
  }

  void h(void* a, const void* b, const void* c, size_t n, cudaStream_t s) override {
    h_kernel<F><<<grid_for(n), 256, 0, s>>>(static_cast<F*>(a), static_cast<const F*>(b), static_cast<const F*>(c), n);
    CUDA_CHECK_LAUNCH();
  }

  void synthesize(void* a, void* b, const uint32_t* start, const uint32_t* wire, const void* coef, const void* w,
                  uint32_t n, cudaStream_t s) override {
    synth::rows_kernel<F><<<grid_for(2 * size_t(n)), 256, 0, s>>>(static_cast<F*>(a), static_cast<F*>(b), start, wire,
                                                                  static_cast<const F*>(coef),
                                                                  static_cast<const F*>(w), n);
    CUDA_CHECK_LAUNCH();
  }

  void hadamard(void* c, const void* a, const void* b, size_t n, cudaStream_t s) override {
    hadamard_kernel<F><<<grid_for(n), 256, 0, s>>>(static_cast<F*>(c), static_cast<const F*>(a), static_cast<const F*>(b), n);
    CUDA_CHECK_LAUNCH();
  }

  void ntt_natural(void* x, void* tmp, uint32_t L, bool inverse, cudaStream_t s) override {
    F* d = static_cast<F*>(x);
    const size_t n = size_t(1) << L;
    run_transform<F>(d, L, false, inverse, roots().buf.template get<F>(), roots().log_t, nullptr, s, kernels_);
    bit_reverse_kernel<F><<<grid_for(n), 256, 0, s>>>(static_cast<F*>(tmp), d, L);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(d, tmp, n * sizeof(F), cudaMemcpyDeviceToDevice, s));
    if (inverse) {
      scale_kernel<F><<<grid_for(n), 256, 0, s>>>(d, inverse_of_pow2<F>(L), n);
      CUDA_CHECK_LAUNCH();
    }
  }

  void dif(void* x, uint32_t L, bool inverse, cudaStream_t s) override {
    run_transform<F>(static_cast<F*>(x), L, false, inverse, roots().buf.template get<F>(), roots().log_t, nullptr, s,
                     kernels_);
  }

 private:
  const typename SharedTables<F>::Roots& roots() const {
    if (!roots_) throw std::logic_error("pacer::cuda: NTT tables not prepared");
    return *roots_;
  }
  const F* coset(uint32_t L) const {
    auto it = cosets_.find(L);
    if (it == cosets_.end()) throw std::logic_error("pacer::cuda: NTT tables not prepared for this domain");
    return it->second->template get<F>();
  }

  int device_;
  const KernelConfig kernels_;
  std::shared_ptr<typename SharedTables<F>::Roots> roots_;
  std::map<uint32_t, std::shared_ptr<DeviceBuffer>> cosets_;
};

}  // namespace pacer::cuda::ntt
