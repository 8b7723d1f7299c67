#include "pacer/alloc/block_pool.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "pacer/error.hpp"

#include "pacer/alloc/pages.hpp"

namespace pacer::alloc {

namespace {
size_t size_class(size_t bytes) {
  const size_t top = size_t(1) << (63 - __builtin_clzll(uint64_t(std::max<size_t>(bytes, 1))));
  const size_t step = std::max(top / 8, kSmallPage);
  return (bytes + step - 1) / step * step;
}
}  // namespace

BlockPool::BlockPool(std::unique_ptr<Allocator> fresh, uint64_t max_cached_bytes, size_t min_pooled_bytes)
    : fresh_(std::move(fresh)), max_cached_(max_cached_bytes), min_pooled_(min_pooled_bytes) {}

BlockPool::~BlockPool() {
  for (auto& [cls, entries] : free_)
    for (Entry* e : entries) {
      fresh_->deallocate(e->inner);
      delete e;
    }
}

Block BlockPool::allocate(size_t bytes, const AllocHints& hints) {
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

void BlockPool::deallocate(Block block) noexcept {
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

AllocStats BlockPool::stats() const {
  AllocStats s = fresh_->stats();  // faults, fresh, released, unmaps, hugepages, fallbacks
  s.live_bytes = live_.load(std::memory_order_relaxed);
  s.peak_bytes = peak_.load(std::memory_order_relaxed);
  s.allocations = allocations_.load(std::memory_order_relaxed);
  s.reused_bytes = reused_.load(std::memory_order_relaxed);
  std::lock_guard lock(mu_);
  s.cached_bytes = cached_;
  return s;
}

BlockPool::Entry* BlockPool::take(size_t cls) {
  std::lock_guard lock(mu_);
  auto it = free_.find(cls);
  if (it == free_.end() || it->second.empty()) return nullptr;
  Entry* e = it->second.back();
  it->second.pop_back();
  cached_ -= e->inner.bytes;
  return e;
}

uint64_t max_cached_bytes(const Params& params) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const uint64_t quarter = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) / 4 : uint64_t(4) << 30;
  const int64_t mb = params.get_int("max_cached_mb", int64_t(quarter >> 20));
  if (mb < 1)
    throw InputError(fmt::format("{} max_cached_mb must be at least 1 (MiB of freed blocks kept for reuse), got {}",
                                 params.where(), mb));
  return uint64_t(mb) << 20;
}

}  // namespace pacer::alloc
