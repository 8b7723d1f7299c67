// Field self-test kernels and the multiplication throughput benchmark.
#include <algorithm>
#include <vector>

#include "internal.hpp"
#include "util/ldst.cuh"

namespace pacer::cuda::ff {

template <class F>
__global__ void ops_kernel(F* out, const F* a, const F* b, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const F x = ld_ro(a + i), y = ld_ro(b + i);
    st(out + 4 * i, x * y);
    st(out + 4 * i + 1, x + y);
    st(out + 4 * i + 2, x - y);
    st(out + 4 * i + 3, x.sqr());
  }
}

// Four independent product chains per thread: throughput, not latency.
template <class F>
__global__ void mul_rate_kernel(F* out, const F* in, int iters) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const F a = ld_ro(in + (i & 1023)), b = ld_ro(in + ((i + 1) & 1023));
  F x0 = a, x1 = b, x2 = a + b, x3 = a - b;
  for (int it = 0; it < iters; ++it) {
    x0 = x0 * a;
    x1 = x1 * b;
    x2 = x2 * a;
    x3 = x3 * b;
  }
  st(out + i, (x0 + x1) + (x2 + x3));
}

// Pseudo-random elements below p (the top word masked under every modulus' top word).
template <class P>
void fill_random(fp_t<P>& x, uint32_t& seed) {
  for (int w = 0; w < P::n; ++w) x.l[w] = (seed = seed * 1664525u + 1013904223u);
  x.l[P::n - 1] &= 0x0fffffffu;
}
template <class B>
void fill_random(fp2_t<B>& x, uint32_t& seed) {
  fill_random(x.c0, seed);
  fill_random(x.c1, seed);
}

template <class F>
class FieldOpsImpl final : public detail::FieldOps {
 public:
  explicit FieldOpsImpl(int device) : device_(device) {}
  size_t element_bytes() const override { return sizeof(F); }

  void ops(void* out, const void* a, const void* b, size_t count, cudaStream_t s) override {
    const unsigned grid = unsigned(std::min<size_t>((count + 255) / 256, 4096));
    ops_kernel<F><<<std::max(grid, 1u), 256, 0, s>>>(static_cast<F*>(out), static_cast<const F*>(a),
                                                     static_cast<const F*>(b), count);
    CUDA_CHECK_LAUNCH();
  }

  double mul_rate(int reps, cudaStream_t s) override {
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
    const unsigned threads = 256, blocks = unsigned(sms) * 16;
    const size_t total = size_t(threads) * blocks;
    const int iters = 256;
    std::vector<F> host(1024);
    uint32_t seed = 12345;
    for (auto& x : host) fill_random(x, seed);
    DeviceBuffer in(host.size() * sizeof(F), "field benchmark", device_), out(total * sizeof(F), "field benchmark", device_);
    CUDA_CHECK(cudaMemcpyAsync(in.get(), host.data(), host.size() * sizeof(F), cudaMemcpyHostToDevice, s));
    Event start, stop;
    std::vector<float> ms;
    for (int r = 0; r <= reps; ++r) {
      start.record(s);
      mul_rate_kernel<F><<<blocks, threads, 0, s>>>(out.get<F>(), in.get<F>(), iters);
      CUDA_CHECK_LAUNCH();
      stop.record(s);
      stop.sync();
      if (r > 0) ms.push_back(stop.since(start));  // the first run is the warm-up
    }
    std::sort(ms.begin(), ms.end());
    const double median_s = ms[ms.size() / 2] / 1e3;
    return double(total) * iters * 4 / median_s;
  }

 private:
  int device_;
};

}  // namespace pacer::cuda::ff

namespace pacer::cuda::detail {

std::unique_ptr<FieldOps> make_field_ops(Curve curve, int field_kind, int device) {
  using testing::Field;
  const auto f = Field(field_kind);
  if (curve == Curve::bn254) {
    if (f == Field::fq) return std::make_unique<ff::FieldOpsImpl<ff::bn254_fq>>(device);
    if (f == Field::fr) return std::make_unique<ff::FieldOpsImpl<ff::bn254_fr>>(device);
    return std::make_unique<ff::FieldOpsImpl<ff::fp2_t<ff::bn254_fq>>>(device);
  }
  if (f == Field::fq) return std::make_unique<ff::FieldOpsImpl<ff::bls12_381_fq>>(device);
  if (f == Field::fr) return std::make_unique<ff::FieldOpsImpl<ff::bls12_381_fr>>(device);
  return std::make_unique<ff::FieldOpsImpl<ff::fp2_t<ff::bls12_381_fq>>>(device);
}

}  // namespace pacer::cuda::detail
