#pragma once
// Radix-2 NTT over a scalar field with snarkjs's roots of unity (ω_n = 5^((r-1)/n), docs/formats.md §1.1),
// natural-order input and output, and the odd-coset H evaluation of docs/formats.md §6.3.
// to_odd_coset takes the AVX-512 IFMA path of ntt_ifma.hpp when CpuKernels::ifma says so; the
// scalar transform here is its fallback and the tests' reference.
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "pacer/cpu/kernel_config.hpp"
#include "pacer/cpu/ntt_ifma.hpp"
#include "pacer/math/field.hpp"
#include "pacer/math/roots.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer::math {

template <class Fr>
class Radix2Domain {
 public:
  explicit Radix2Domain(size_t n) : n_(n) {
    constexpr uint32_t two_adicity = two_adicity_of<Fr>();
    if (n == 0 || (n & (n - 1))) throw std::invalid_argument("domain size " + std::to_string(n) + " is not a power of two");
    while ((size_t(1) << log_n_) < n) ++log_n_;
    if (log_n_ > two_adicity)
      throw std::invalid_argument("domain 2^" + std::to_string(log_n_) + " exceeds the field's 2-adicity " +
                                  std::to_string(two_adicity));
    omega_ = math::root_of_unity<Fr>(log_n_);
    omega_inv_ = omega_.inv();
    n_inv_ = Fr::from_u64(n).inv();
    coset_ = math::coset_generator<Fr>(log_n_);
    roots_ = powers(omega_, n / 2 > 0 ? n / 2 : 1);
    inv_roots_ = powers(omega_inv_, n / 2 > 0 ? n / 2 : 1);
    if (ifma::ntt_supported<Fr>() && n >= kIfmaMin) {
      // Position l·(n/8) + q of the bit-reversed coefficients is scaled by n^-1·g^rev(..) =
      // (g^8)^rev(q) · n^-1·g^rev3(l) (ntt_ifma.hpp).
      const unsigned log_m = log_n_ - 3;
      const auto g8_powers = powers(coset_.pow(Limbs<1>{8}), n / 8);
      block_scale_.resize(n / 8);
      for (size_t q = 0; q < n / 8; ++q) block_scale_[q] = g8_powers[reverse_bits(q, log_m)];
      lane_scale_.resize(8);
      for (size_t l = 0; l < 8; ++l) lane_scale_[l] = n_inv_ * coset_.pow(Limbs<1>{reverse_bits(l, 3)});
    }
  }

  size_t size() const { return n_; }
  unsigned log_size() const { return log_n_; }
  const Fr& omega() const { return omega_; }
  const Fr& coset_generator() const { return coset_; }

  // y_i = Σ_j a_j ω^(ij)
  void ntt(std::span<Fr> a, ThreadPool* pool) const { transform(a, roots_, pool); }
  // a_j = n^-1 Σ_i y_i ω^(-ij)
  void intt(std::span<Fr> a, ThreadPool* pool) const {
    transform(a, inv_roots_, pool);
    for_chunks(pool, [&](size_t i) { a[i] *= n_inv_; });
  }

  // In place: evaluations at ω^i -> evaluations at g·ω^i (g = coset generator).
  void to_odd_coset(std::span<Fr> a, ThreadPool* pool, const CpuKernels& kernels) const {
    if constexpr (ifma::ntt_supported<Fr>()) {
      if (kernels.ifma && n_ >= kIfmaMin) {
        if (a.size() != n_) throw std::invalid_argument("NTT input size does not match the domain");
        ifma::odd_coset<Fr>(a, coset_tables(), pool, ifma::kLocalBlocks, kernels.allocator);
        return;
      }
    }
    intt(a, pool);
    const size_t chunk = kChunk;
    auto body = [&](size_t c) {
      size_t begin = c * chunk, end = std::min(n_, begin + chunk);
      Fr g = coset_.pow(Limbs<1>{begin});
      for (size_t j = begin; j < end; ++j) {
        a[j] *= g;
        g *= coset_;
      }
    };
    run_tasks(pool, (n_ + chunk - 1) / chunk, body);
    ntt(a, pool);
  }

  // The IFMA odd-coset path's tables (n >= kIfmaMin on a field it supports); public for tests.
  ifma::CosetTables<Fr> coset_tables() const {
    return {n_, roots_.data(), inv_roots_.data(), block_scale_.data(), lane_scale_.data()};
  }
  static constexpr size_t kIfmaMin = 64;  // eight blocks of eight: one transposed tile

 private:
  static constexpr size_t kChunk = 1 << 12;  // butterflies per task: amortises scheduling

  static size_t reverse_bits(size_t x, unsigned bits) {
    size_t r = 0;
    for (unsigned b = 0; b < bits; ++b, x >>= 1) r = (r << 1) | (x & 1);
    return r;
  }

  static std::vector<Fr> powers(const Fr& x, size_t count) {
    std::vector<Fr> v(count);
    Fr acc = Fr::one();
    for (auto& e : v) {
      e = acc;
      acc *= x;
    }
    return v;
  }

  template <class Elem>
  void for_chunks(ThreadPool* pool, Elem&& elem) const {
    run_tasks(pool, (n_ + kChunk - 1) / kChunk, [&](size_t c) {
      for (size_t i = c * kChunk, e = std::min(n_, i + kChunk); i < e; ++i) elem(i);
    });
  }

  // Iterative decimation-in-time: bit-reversal, then log n butterfly passes.
  void transform(std::span<Fr> a, const std::vector<Fr>& roots, ThreadPool* pool) const {
    if (a.size() != n_) throw std::invalid_argument("NTT input size does not match the domain");
    for (size_t i = 1, j = 0; i < n_; ++i) {
      size_t bit = n_ >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j |= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    const size_t half_n = n_ / 2;
    for (size_t len = 2; len <= n_; len <<= 1) {
      const size_t half = len / 2, stride = n_ / len;
      run_tasks(pool, (half_n + kChunk - 1) / kChunk, [&](size_t c) {
        for (size_t t = c * kChunk, e = std::min(half_n, t + kChunk); t < e; ++t) {
          size_t group = t / half, j = t % half;
          size_t i0 = group * len + j, i1 = i0 + half;
          Fr v = a[i1] * roots[j * stride];
          a[i1] = a[i0] - v;
          a[i0] = a[i0] + v;
        }
      });
    }
  }

  size_t n_;
  unsigned log_n_ = 0;
  Fr omega_, omega_inv_, n_inv_, coset_;
  std::vector<Fr> roots_, inv_roots_;
  std::vector<Fr> block_scale_, lane_scale_;  // IFMA path only
};

}  // namespace pacer::math
