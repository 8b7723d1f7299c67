// Allocator "pooled": keeps freed blocks, pre-faulted, for the next proof. A prover that keeps
// proving asks for the same buffers proof after proof (a, b, c, MSM digits, GLV images, buckets,
// NTT scratch); plain memory costs a page fault per 4 KiB page (the kernel zeroes each) and a
// munmap with its TLB shootdowns per buffer, every proof. Pooled pays them once: blocks are kept
// by size class (steps of 1/8 of a power of two) and handed out again as they are, so the hot path
// takes no fault and no munmap. Fresh memory comes from the page kind `fresh` names (the plain,
// thp or hugetlb allocator's code), pre-faulted at allocation unless prefault = false. Cached
// bytes are capped: a block freed over the cap goes back to the OS (the [pipeline] release
// policy applies).
//
// params (docs/allocators.md):
//   fresh            ("plain" | "thp" | "hugetlb", default "thp")  where new blocks come from
//   max_cached_mb    (integer, default a quarter of physical memory) cap on freed bytes kept
//   min_pooled_bytes (integer, default 64 KiB) smaller blocks are not kept
//   prefault         (bool, default true)  touch every page of a fresh block at allocation
//   and the keys of the fresh kind: mmap_threshold, release_backlog_mb, verify (thp), page and
//   on_empty (hugetlb)
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "pacer/alloc/mmap_allocator.hpp"
#include "pacer/error.hpp"
#include "pacer/host_services.hpp"
#include "pacer/plugin.hpp"

namespace {

using namespace pacer;
using namespace pacer::alloc;

// The class of a request: rounded up to 1/8 of its power of two (at most 12.5% more), in pages.
size_t size_class(size_t bytes) {
  size_t top = size_t(1) << (63 - __builtin_clzll(uint64_t(std::max<size_t>(bytes, 1))));
  const size_t step = std::max(top / 8, kSmallPage);
  return (bytes + step - 1) / step * step;
}

class PooledAllocator final : public Allocator {
 public:
  PooledAllocator(std::unique_ptr<MmapAllocator> fresh, uint64_t max_cached, size_t min_pooled)
      : fresh_(std::move(fresh)), max_cached_(max_cached), min_pooled_(min_pooled) {}

  ~PooledAllocator() override {
    for (auto& [cls, entries] : free_)
      for (Entry* e : entries) {
        fresh_->deallocate(e->inner);
        delete e;
      }
  }

  Block allocate(size_t bytes, const AllocHints& hints) override {
    // Classes are page multiples, and fresh blocks page-aligned: one cached block fits any request
    // of its class up to that alignment. Larger alignments, and small blocks, pass through.
    const bool pooled = bytes >= min_pooled_ && hints.align <= kSmallPage;
    const size_t cls = pooled ? size_class(bytes) : 0;
    Entry* e = pooled ? take(cls) : nullptr;
    if (!e) {
      AllocHints h = hints;
      if (pooled) h.align = kSmallPage;
      auto entry = std::make_unique<Entry>(Entry{fresh_->allocate(pooled ? cls : bytes, h), cls});
      e = entry.release();
    } else {
      reused_.fetch_add(e->inner.bytes, std::memory_order_relaxed);
    }
    const uint64_t live = live_.fetch_add(e->inner.bytes, std::memory_order_relaxed) + e->inner.bytes;
    uint64_t peak = peak_.load(std::memory_order_relaxed);
    while (live > peak && !peak_.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
    }
    allocations_.fetch_add(1, std::memory_order_relaxed);
    Block out = e->inner;
    out.cookie = e;
    return out;
  }

  void deallocate(Block block) noexcept override {
    if (!block.data) return;
    auto* e = static_cast<Entry*>(block.cookie);
    live_.fetch_sub(e->inner.bytes, std::memory_order_relaxed);
    if (e->cls != 0) {
      std::lock_guard lock(mu_);
      if (cached_ + e->inner.bytes <= max_cached_) {
        try {
          free_[e->cls].push_back(e);
          cached_ += e->inner.bytes;
          return;
        } catch (...) {  // no memory for the list entry: give the block back instead
        }
      }
    }
    fresh_->deallocate(e->inner);
    delete e;
  }

  AllocStats stats() const override {
    AllocStats s = fresh_->stats();  // faults, fresh, released, unmaps, hugepages, fallbacks
    s.live_bytes = live_.load(std::memory_order_relaxed);
    s.peak_bytes = peak_.load(std::memory_order_relaxed);
    s.allocations = allocations_.load(std::memory_order_relaxed);
    s.reused_bytes = reused_.load(std::memory_order_relaxed);
    std::lock_guard lock(mu_);
    s.cached_bytes = cached_;
    return s;
  }

 private:
  struct Entry {
    Block inner;  // as the fresh allocator granted it
    size_t cls;   // 0: not pooled
  };

  Entry* take(size_t cls) {
    std::lock_guard lock(mu_);
    auto it = free_.find(cls);
    if (it == free_.end() || it->second.empty()) return nullptr;
    Entry* e = it->second.back();
    it->second.pop_back();
    cached_ -= e->inner.bytes;
    return e;
  }

  std::unique_ptr<MmapAllocator> fresh_;
  const uint64_t max_cached_;
  const size_t min_pooled_;
  mutable std::mutex mu_;
  std::unordered_map<size_t, std::vector<Entry*>> free_;  // by class, most recently freed last
  uint64_t cached_ = 0;
  std::atomic<uint64_t> live_{0}, peak_{0}, allocations_{0}, reused_{0};
};

uint64_t quarter_of_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return uint64_t(4) << 30;
  return uint64_t(pages) * uint64_t(page) / 4;
}

std::unique_ptr<Allocator> make_pooled_allocator(const Params& params, HostServices& host) {
  const std::string fresh = params.get_string("fresh", "thp");
  PageKind kind;
  if (fresh == "plain") kind = PageKind::small;
  else if (fresh == "thp") kind = PageKind::thp;
  else if (fresh == "hugetlb") kind = PageKind::hugetlb;
  else
    throw InputError(fmt::format("{} fresh must be \"plain\", \"thp\" or \"hugetlb\", got \"{}\"", params.where(),
                                 fresh));
  const int64_t default_mb = int64_t(quarter_of_memory() >> 20);
  const int64_t max_mb = params.get_int("max_cached_mb", default_mb);
  if (max_mb < 1)
    throw InputError(fmt::format("{} max_cached_mb must be at least 1 (MiB of freed blocks kept for reuse), got {}",
                                 params.where(), max_mb));
  const int64_t min_pooled = params.get_int("min_pooled_bytes", 64 << 10);
  if (min_pooled < int64_t(kSmallPage))
    throw InputError(fmt::format("{} min_pooled_bytes must be at least {}, got {}", params.where(), kSmallPage,
                                 min_pooled));
  const PageOptions options = read_page_options(params, kind, /*prefault_default=*/true);
  auto source = std::make_unique<MmapAllocator>(fmt::format("pooled allocator ({} pages)", fresh), options, host);
  if (host.log)
    host.log->debug("pooled allocator: fresh {} pages{}, keeps up to {} MiB of freed blocks of {} bytes or more",
                    fresh, options.prefault ? " (pre-faulted)" : "", max_mb, min_pooled);
  return std::make_unique<PooledAllocator>(std::move(source), uint64_t(max_mb) << 20, size_t(min_pooled));
}

}  // namespace

PACER_PLUGIN(allocator, "pooled", "0.1.0",
             "keeps pre-faulted blocks across proofs by size class (no fault, no munmap on the hot path)",
             make_pooled_allocator)
