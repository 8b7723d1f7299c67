#pragma once
// Synthesis on the CPU: a = A·w, b = B·w, c = a∘b over a key's constraint rows (docs/formats.md
// §6.2). Coefficients are stored as v·R² and the witness is standard, so one Montgomery product
// yields v·w in Montgomery form. The work is a stream over the rows (wires and coefficients read
// in order) and a gather from the witness; the gather is what costs, so each term prefetches the
// witness value a fixed distance ahead (its wire index is a cheap sequential read).
#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <stdexcept>

#include "pacer/cpu/kernel_config.hpp"
#include "pacer/cpu/synthesis_ifma.hpp"
#include "pacer/formats/constraint_rows.hpp"
#include "pacer/thread_pool.hpp"
#include "pacer/types.hpp"

namespace pacer::math {

// Terms between a prefetch and the read it serves: enough in flight to cover DRAM latency at a
// few ns a term, few enough that the lines are still cached when read.
inline constexpr size_t kSynthesisPrefetch = 24;

namespace detail {

// out[r] = Σ coef[k]·w[wire[k]] over row first_slot + r's terms, for r < count.
template <class Fr>
void sum_rows(const ConstraintRows& rows, size_t first_slot, size_t count, const Fr256* w, Fr* out) {
  const uint32_t* start = rows.start.data() + first_slot;
  const uint32_t* wire = rows.wire.data();
  const Fr256* coef = rows.coef.data();
  const size_t terms = rows.wire.size();
  size_t k = start[0];
  for (size_t p = k; p < std::min(terms, k + kSynthesisPrefetch); ++p) __builtin_prefetch(&w[wire[p]]);
  for (size_t r = 0; r < count; ++r) {
    Fr sum;
    for (const size_t row_end = start[r + 1]; k < row_end; ++k) {
      if (k + kSynthesisPrefetch < terms) __builtin_prefetch(&w[wire[k + kSynthesisPrefetch]]);
      sum += Fr::from_mont(coef[k]) * Fr::from_mont(w[wire[k]]);
    }
    out[r] = sum;
  }
}

}  // namespace detail

// a, b, c: domain values each (Montgomery out). `w`: standard form, every wire the rows read.
// Checkpoint before each chunk of rows, on whichever pool thread runs it. kernels.ifma: the
// products eight at a time (synthesis_ifma.hpp).
template <class Fr>
void synthesize_rows(const ConstraintRows& rows, std::span<const Fr256> w, std::span<Fr256> a, std::span<Fr256> b,
                     std::span<Fr256> c, ThreadPool* pool, const std::function<void()>& checkpoint,
                     const CpuKernels& kernels) {
  static_assert(sizeof(Fr) == sizeof(Fr256));
  (void)kernels;  // only the IFMA build reads it
  const size_t n = rows.domain;
  if (a.size() != n || b.size() != n || c.size() != n)
    throw std::invalid_argument("synthesis: a, b and c must have the domain's size");
  auto* fa = reinterpret_cast<Fr*>(a.data());
  auto* fb = reinterpret_cast<Fr*>(b.data());
  auto* fc = reinterpret_cast<Fr*>(c.data());
  constexpr size_t kChunk = size_t(1) << 13;  // rows per task
  run_tasks(pool, (n + kChunk - 1) / kChunk, [&](size_t ch) {
    if (checkpoint) checkpoint();
    const size_t row = ch * kChunk, count = std::min(n, row + kChunk) - row;
    // A's rows of the chunk, then B's: each a contiguous run of terms.
#if defined(PACER_HAVE_IFMA_CODE)
    if constexpr (ifma::synthesis_supported<Fr>()) {
      if (kernels.ifma) {
        ifma::sum_rows_ifma<Fr>(rows, row, count, w.data(), fa + row, kSynthesisPrefetch);
        ifma::sum_rows_ifma<Fr>(rows, n + row, count, w.data(), fb + row, kSynthesisPrefetch);
        for (size_t i = row; i < row + count; ++i) fc[i] = fa[i] * fb[i];
        return;
      }
    }
#endif
    detail::sum_rows<Fr>(rows, row, count, w.data(), fa + row);
    detail::sum_rows<Fr>(rows, n + row, count, w.data(), fb + row);
    for (size_t i = row; i < row + count; ++i) fc[i] = fa[i] * fb[i];
  });
}

}  // namespace pacer::math
