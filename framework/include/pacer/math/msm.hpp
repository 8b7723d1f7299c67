#pragma once
// Multi-scalar multiplication Σ k_i·P_i by Pippenger's bucket method, parallel over
// (window, chunk of points) tasks. Scalars are standard-form 256-bit integers.
#include <algorithm>
#include <cmath>
#include <functional>
#include <span>
#include <vector>

#include "pacer/math/ec.hpp"
#include "pacer/thread_pool.hpp"
#include "pacer/types.hpp"

namespace pacer::math {

namespace detail {
// c-bit digit of a 256-bit scalar starting at bit `pos`.
inline uint32_t scalar_digit(const Fr256& k, size_t pos, unsigned c) {
  size_t limb = pos / 64, off = pos % 64;
  uint64_t v = k[limb] >> off;
  if (off + c > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
  return uint32_t(v & ((uint64_t(1) << c) - 1));
}
}  // namespace detail

// Window width minimising (bits/c)·(n + 2^(c+1)) additions.
inline unsigned msm_window_bits(size_t n) {
  unsigned best = 1;
  double best_cost = 1e300;
  for (unsigned c = 1; c <= 20; ++c) {
    double cost = std::ceil(256.0 / c) * (double(n) + std::ldexp(1.0, int(c) + 1));
    if (cost < best_cost) best_cost = cost, best = c;
  }
  return best;
}

template <class Group>
Jacobian<Group> msm(std::span<const Affine<Group>> bases, std::span<const Fr256> scalars, ThreadPool* pool,
                    const std::function<void()>* checkpoint = nullptr) {
  using J = Jacobian<Group>;
  const size_t n = std::min(bases.size(), scalars.size());
  if (n == 0) return J::identity();
  size_t bits = 0;
  for (size_t i = 0; i < n; ++i) {  // skip top windows that are zero in every scalar
    for (size_t l = 4; l-- > 0;)
      if (scalars[i][l]) {
        bits = std::max(bits, l * 64 + 64 - size_t(__builtin_clzll(scalars[i][l])));
        break;
      }
  }
  if (bits == 0) return J::identity();
  const unsigned c = msm_window_bits(n);
  const size_t windows = (bits + c - 1) / c;
  const size_t threads = pool ? pool->size() : 1;
  // Enough chunks that every thread has work, but each chunk long enough to amortise its buckets.
  size_t chunks = std::max<size_t>(1, std::min((2 * threads + windows - 1) / windows, n / (size_t(1) << c) + 1));
  const size_t chunk_len = (n + chunks - 1) / chunks;
  chunks = (n + chunk_len - 1) / chunk_len;

  std::vector<J> partial(windows * chunks);
  auto task = [&](size_t t) {
    if (checkpoint && *checkpoint) (*checkpoint)();
    const size_t w = t / chunks, ch = t % chunks;
    const size_t begin = ch * chunk_len, end = std::min(n, begin + chunk_len);
    std::vector<J> buckets((size_t(1) << c) - 1);
    for (size_t i = begin; i < end; ++i) {
      if (bases[i].infinity) continue;
      uint32_t d = detail::scalar_digit(scalars[i], w * c, c);
      if (d) buckets[d - 1] = buckets[d - 1].add_affine(bases[i]);
    }
    // Σ d·B_d as a running sum from the top bucket down.
    J running, sum;
    for (size_t d = buckets.size(); d-- > 0;) {
      running += buckets[d];
      sum += running;
    }
    partial[t] = sum;
  };
  if (pool) pool->parallel_for(windows * chunks, task);
  else for (size_t t = 0; t < windows * chunks; ++t) task(t);

  J acc;
  for (size_t w = windows; w-- > 0;) {
    for (unsigned i = 0; i < c; ++i) acc = acc.dbl();
    for (size_t ch = 0; ch < chunks; ++ch) acc += partial[w * chunks + ch];
  }
  return acc;
}

}  // namespace pacer::math
