#pragma once
// Many scalar multiplications k·G of one fixed base G (the setup's millions of key points).
// Windowed table: T[w][d-1] = d·2^(c·w)·G in affine form, so k·G = Σ_w T[w][digit_w(k)] needs
// no doublings at all, only ceil(bits/c) additions. mul_many() adds into affine accumulators of a
// whole batch at once, sharing one field inversion per window among the batch (Montgomery's
// trick): about 6 multiplications per addition instead of 11 for a mixed Jacobian one, and the
// results come out affine, ready to encode.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "pacer/math/batch_affine.hpp"
#include "pacer/math/ec.hpp"
#include "pacer/thread_pool.hpp"
#include "pacer/types.hpp"

namespace pacer::dev {

using math::Affine;
using math::batch_to_affine;
using math::Jacobian;

template <class Group>
class FixedBaseTable {
 public:
  using A = Affine<Group>;
  using J = Jacobian<Group>;
  using F = typename Group::Field;

  // Window width for `count` multiplications: fewest field multiplications counting the table
  // (about 17 per entry) and the additions (about 6.5 each), within max_table_bytes.
  static unsigned best_window_bits(uint64_t count, unsigned scalar_bits, size_t max_table_bytes = size_t(512) << 20) {
    unsigned best = 1;
    double best_cost = 1e300;
    for (unsigned c = 1; c <= 16; ++c) {
      const double windows = std::ceil(double(scalar_bits) / c), entries = std::ldexp(1.0, int(c)) - 1;
      if (windows * entries * sizeof(A) > double(max_table_bytes)) break;
      const double cost = windows * (double(count) * 6.5 + entries * 17);
      if (cost < best_cost) best_cost = cost, best = c;
    }
    return best;
  }

  // Scalars must be standard form below 2^scalar_bits.
  FixedBaseTable(const A& base, unsigned scalar_bits, unsigned window_bits, ThreadPool* pool)
      : c_(window_bits), windows_((scalar_bits + window_bits - 1) / window_bits), stride_((size_t(1) << window_bits) - 1) {
    table_.resize(windows_ * stride_);
    std::vector<A> window_base(windows_);  // 2^(c·w)·G
    J b = J::from(base);
    for (size_t w = 0; w < windows_; ++w) {
      window_base[w] = b.to_affine();
      for (unsigned i = 0; i < c_; ++i) b = b.dbl();
    }
    // Segments of one window in parallel; each starts from its own first multiple.
    const size_t segment = std::min<size_t>(stride_, 4096), per_window = (stride_ + segment - 1) / segment;
    auto build = [&](size_t task) {
      const size_t w = task / per_window, first = (task % per_window) * segment;  // entry index: d - 1
      const size_t count = std::min(segment, stride_ - first);
      std::vector<J> row(count);
      J acc = J::from(window_base[w]).mul(Limbs1{uint64_t(first + 1)});
      for (size_t i = 0; i < count; ++i) {
        row[i] = acc;
        acc = acc.add_affine(window_base[w]);
      }
      batch_to_affine<Group>(row, std::span<A>(table_).subspan(w * stride_ + first, count));
    };
    if (pool) pool->parallel_for(windows_ * per_window, build);
    else for (size_t t = 0; t < windows_ * per_window; ++t) build(t);
  }

  unsigned window_bits() const { return c_; }
  size_t table_bytes() const { return table_.size() * sizeof(A); }

  J mul(const Fr256& k) const {
    J acc;
    for (size_t w = 0; w < windows_; ++w)
      if (const uint32_t d = fr256_window(k, w * c_, c_)) acc = acc.add_affine(table_[w * stride_ + d - 1]);
    return acc;
  }

  // out[i] = k[i]·G for a batch (a few hundred to a few thousand: one inversion per window).
  void mul_many(std::span<const Fr256> k, std::span<A> out) const {
    const size_t n = k.size();
    std::vector<F> prefix(n), dens(n);
    std::vector<uint32_t> index(n), digit(n);  // this window's batch: out[index[j]] += T[digit[j]]
    for (size_t i = 0; i < n; ++i) out[i] = A::identity();
    for (size_t w = 0; w < windows_; ++w) {
      const A* row = &table_[w * stride_];
      size_t batch = 0;
      for (size_t i = 0; i < n; ++i) {
        const uint32_t d = fr256_window(k[i], w * c_, c_);
        if (d == 0) continue;
        if (out[i].is_identity()) out[i] = row[d - 1];  // an empty accumulator just takes T
        else index[batch] = uint32_t(i), digit[batch++] = d;
      }
      math::add_affine_batch<Group>(
          batch, [&](size_t j) -> A& { return out[index[j]]; }, [&](size_t j) -> const A& { return row[digit[j] - 1]; },
          std::span<F>(prefix), std::span<F>(dens), [&](size_t j) {
            // Equal x (P = ±T) needs a scalar >= r: the complete formula then.
            A& p = out[index[j]];
            p = J::from(p).add_affine(row[digit[j] - 1]).to_affine();
          });
    }
  }

 private:
  using Limbs1 = math::Limbs<1>;
  unsigned c_;
  size_t windows_, stride_;
  std::vector<A> table_;
};

}  // namespace pacer::dev
