// An out-of-tree allocator plugin "counting": malloc underneath, and it counts. It is the smallest
// complete plugin: one class implementing pacer::Allocator, one factory reading its params, and
// PACER_PLUGIN to export both. It includes only installed Pacer headers.
//
// params:
//   log_every (integer, default 0)  log a line every N allocations (0 = never)
#include <atomic>
#include <cstdlib>
#include <new>

#include <spdlog/spdlog.h>

#include <pacer/error.hpp>
#include <pacer/plugin.hpp>

namespace {

class CountingAllocator final : public pacer::Allocator {
 public:
  CountingAllocator(std::shared_ptr<spdlog::logger> log, int64_t log_every) : log_(std::move(log)), log_every_(log_every) {}

  pacer::Block allocate(size_t bytes, const pacer::AllocHints& hints) override {
    const size_t align = std::max(hints.align, alignof(std::max_align_t));
    const size_t rounded = (std::max<size_t>(bytes, 1) + align - 1) / align * align;  // aligned_alloc needs a multiple
    void* p = std::aligned_alloc(align, rounded);
    if (!p) throw pacer::FailedError("counting allocator: out of memory allocating " + std::to_string(bytes) + " bytes");
    if (hints.prefault)
      for (size_t off = 0; off < rounded; off += 4096) static_cast<volatile char*>(p)[off] = 0;

    const uint64_t live = live_.fetch_add(rounded) + rounded;
    uint64_t peak = peak_.load();
    while (live > peak && !peak_.compare_exchange_weak(peak, live)) {
    }
    const uint64_t n = ++allocations_;
    if (log_ && log_every_ > 0 && n % static_cast<uint64_t>(log_every_) == 0)
      log_->info("counting allocator: {} allocations, {} bytes live", n, live);
    return pacer::Block{static_cast<std::byte*>(p), rounded, 4096, false, nullptr};
  }

  void deallocate(pacer::Block block) noexcept override {
    if (!block.data) return;
    std::free(block.data);
    live_ -= block.bytes;
  }

  pacer::AllocStats stats() const override {
    pacer::AllocStats s;
    s.live_bytes = live_.load();
    s.peak_bytes = peak_.load();
    s.allocations = allocations_.load();
    return s;
  }

 private:
  std::shared_ptr<spdlog::logger> log_;
  int64_t log_every_;
  std::atomic<uint64_t> live_{0}, peak_{0}, allocations_{0};
};

std::unique_ptr<pacer::Allocator> make_counting_allocator(const pacer::Params& params, pacer::HostServices& host) {
  const int64_t log_every = params.get_int("log_every", 0);
  if (log_every < 0) throw pacer::InputError(params.where() + " log_every must be >= 0");
  return std::make_unique<CountingAllocator>(host.log, log_every);
}

}  // namespace

PACER_PLUGIN(allocator, "counting", "1.0.0", "example out-of-tree allocator: malloc, counted", make_counting_allocator)
