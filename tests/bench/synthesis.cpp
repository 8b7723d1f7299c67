// Synthesis benchmark (a program, not a test): the cpu backend's synthesis against its named
// anchor, 439283f's, on one key and witness in the same run, alternating, with every result checked
// equal to the anchor's.
//   pacer_bench_synthesis ZKEY WTNS [repeats = 5] [threads = all]
// Prints, per method: median wall time and CPU seconds (user + system of the process) per run.
//   anchor "439283f": a row index over section 4's records (an index read, then the 44-byte
//          record it names), the witness prefetched 8 terms ahead, the framework's portable product.
//   current: the key's constraint rows (ConstraintRows: wires and coefficients in row order),
//          the witness prefetched kSynthesisPrefetch terms ahead, the cpu kernels' product: scalar
//          (mulx/adx), and eight at a time on AVX-512 IFMA where the CPU has it (the default there).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pacer/cpu/kernels.hpp"
#include "pacer/formats/constraint_rows.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/thread_pool.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

uint32_t read_u32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// --- the anchor: 439283f's synthesis, as it was (framework/src/proof_stages.cpp there) ---------
struct RowIndex {
  std::vector<uint32_t> row_start, records;
};

RowIndex build_row_index(const ProvingKey& key) {
  RowIndex index;
  const size_t rows = 2 * size_t(key.domain_size), record = 12 + key.n8r;
  index.row_start.assign(rows + 1, 0);
  const std::byte* p = key.coeffs.data();
  auto slot = [&](uint32_t i) {
    const std::byte* r = p + size_t(i) * record;
    return size_t(read_u32(r)) * key.domain_size + read_u32(r + 4);
  };
  for (uint32_t i = 0; i < key.n_coeffs; ++i) ++index.row_start[slot(i) + 1];
  for (size_t r = 0; r < rows; ++r) index.row_start[r + 1] += index.row_start[r];
  index.records.resize(key.n_coeffs);
  std::vector<uint32_t> fill(index.row_start.begin(), index.row_start.end() - 1);
  for (uint32_t i = 0; i < key.n_coeffs; ++i) index.records[fill[slot(i)]++] = i;
  return index;
}

template <class Fr>
void anchor_synthesize(const ProvingKey& key, const RowIndex& index, const Witness& w, std::span<Fr256> a,
                       std::span<Fr256> b, std::span<Fr256> c, ThreadPool& pool) {
  const size_t n = key.domain_size, record = 12 + key.n8r;
  auto* fa = reinterpret_cast<Fr*>(a.data());
  auto* fb = reinterpret_cast<Fr*>(b.data());
  auto* fc = reinterpret_cast<Fr*>(c.data());
  const std::byte* base = key.coeffs.data();
  constexpr size_t chunk = 1 << 13;
  constexpr uint32_t kAhead = 8;
  const size_t records = index.records.size();
  pool.parallel_for((n + chunk - 1) / chunk, [&](size_t ch) {
    for (size_t row = ch * chunk, end = std::min(n, row + chunk); row < end; ++row) {
      Fr sums[2];
      for (int m = 0; m < 2; ++m) {
        const size_t slot = m * n + row;
        for (uint32_t k = index.row_start[slot]; k < index.row_start[slot + 1]; ++k) {
          if (k + 2 * kAhead < records) __builtin_prefetch(base + size_t(index.records[k + 2 * kAhead]) * record);
          if (k + kAhead < records)
            __builtin_prefetch(&w.values[read_u32(base + size_t(index.records[k + kAhead]) * record + 8)]);
          const std::byte* r = base + size_t(index.records[k]) * record;
          Fr coef;
          std::memcpy(coef.v.data(), r + 12, sizeof(Fr256));
          sums[m] += coef * Fr::from_mont(w.values[read_u32(r + 8)]);
        }
      }
      fa[row] = sums[0];
      fb[row] = sums[1];
      fc[row] = sums[0] * sums[1];
    }
  });
}

double cpu_seconds() {
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

struct Times {
  std::vector<double> wall, cpu;
  static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
};

template <class Fn>
void measure(Times& t, Fn&& fn) {
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  t.wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  t.cpu.push_back(cpu_seconds() - c0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ZKEY WTNS [repeats = 5] [threads = all]\n", argv[0]);
    return 2;
  }
  const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  ThreadPool pool(argc > 4 ? unsigned(std::atoi(argv[4])) : 0);
  try {
    const auto key = read_zkey(argv[1]);
    const Witness w = read_wtns(argv[2], nullptr);
    check_witness_matches(*key, w);
    const size_t n = key->domain_size;
    std::vector<Fr256> a(n), b(n), c(n), ra(n), rb(n), rc(n);
    const auto t_index = std::chrono::steady_clock::now();
    const RowIndex index = build_row_index(*key);
    const double index_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_index).count();
    const auto t_rows = std::chrono::steady_clock::now();
    const auto rows = build_constraint_rows(*key, &pool);
    const double rows_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_rows).count();
    Times anchor, scalar, ifma;
    bool same = true;
    const CpuKernels scalar_kernels{false, 0, nullptr}, ifma_kernels = CpuKernels::detect();
    with_curve(key->curve, [&](auto portable) {
      using PortableFr = typename decltype(portable)::Fr;
      with_cpu_curve(key->curve, [&](auto fast) {
        using FastFr = typename decltype(fast)::Fr;
        for (int r = 0; r <= repeats; ++r) {  // run 0 warms the caches and pages, not counted
          Times scratch;
          measure(r ? anchor : scratch, [&] { anchor_synthesize<PortableFr>(*key, index, w, ra, rb, rc, pool); });
          measure(r ? scalar : scratch,
                  [&] { synthesize_rows<FastFr>(*rows, w.values, a, b, c, &pool, nullptr, scalar_kernels); });
          same &= a == ra && b == rb && c == rc;
          if (!ifma_kernels.ifma) continue;
          measure(r ? ifma : scratch,
                  [&] { synthesize_rows<FastFr>(*rows, w.values, a, b, c, &pool, nullptr, ifma_kernels); });
          same &= a == ra && b == rb && c == rc;
        }
      });
    });
    std::printf("key %s: domain %zu, %u terms; witness %s; %u threads; %d runs each, alternating\n", argv[1], n,
                key->n_coeffs, argv[2], pool.size(), repeats);
    std::printf("  build: row index %.3f s (anchor), constraint rows %.3f s (%.1f MB)\n", index_s, rows_s,
                double(rows->bytes()) / 1e6);
    std::printf("  anchor 439283f : median %.3f s wall, %.3f CPU-s\n", Times::median(anchor.wall),
                Times::median(anchor.cpu));
    auto line = [&](const char* name, const Times& t) {
      std::printf("  %-15s: median %.3f s wall, %.3f CPU-s; %.2fx wall, %.2fx CPU-seconds against the anchor\n", name,
                  Times::median(t.wall), Times::median(t.cpu), Times::median(anchor.wall) / Times::median(t.wall),
                  Times::median(anchor.cpu) / Times::median(t.cpu));
    };
    line("current, scalar", scalar);
    if (ifma_kernels.ifma) line("current, IFMA", ifma);
    else std::printf("  current, IFMA  : not run (no AVX-512 IFMA on this CPU)\n");
    std::printf("  results %s\n", same ? "identical to the anchor's" : "DIFFERENT from the anchor's");
    return same ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 2;
  }
}
