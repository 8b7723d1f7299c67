#pragma once
// An Allocator that keeps freed blocks of another (the "fresh" one) for reuse, by size class:
// the core of the `pooled` allocator (over plain/thp/hugetlb pages) and of `cuda_pinned` (over
// cudaHostAlloc). A prover asks for the same buffers proof after proof; each fresh block costs
// page faults and an unmap (or, pinned, the kernel locking every page), so keeping them makes the
// hot path free of both. Classes round a request up to 1/8 of its power of two (at most 12.5%
// more), in pages; cached bytes are capped, and a block freed over the cap goes back to `fresh`.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "pacer/allocator.hpp"
#include "pacer/params.hpp"

namespace pacer::alloc {

class BlockPool final : public Allocator {
 public:
  // Blocks under min_pooled bytes, or asking for more than page alignment, pass through.
  BlockPool(std::unique_ptr<Allocator> fresh, uint64_t max_cached_bytes, size_t min_pooled_bytes);
  ~BlockPool() override;  // gives every cached block back to `fresh`

  Block allocate(size_t bytes, const AllocHints& hints) override;
  void deallocate(Block block) noexcept override;
  AllocStats stats() const override;  // fresh's counters, with this pool's live/peak/reused/cached

 private:
  struct Entry {
    Block inner;  // as the fresh allocator granted it
    size_t cls;   // 0: not pooled
  };
  Entry* take(size_t cls);

  std::unique_ptr<Allocator> fresh_;
  const uint64_t max_cached_;
  const size_t min_pooled_;
  mutable std::mutex mu_;
  std::unordered_map<size_t, std::vector<Entry*>> free_;  // by class, most recently freed last
  uint64_t cached_ = 0;
  std::atomic<uint64_t> live_{0}, peak_{0}, allocations_{0}, reused_{0};
};

// The `max_cached_mb` param of an allocator that pools (default: a quarter of physical memory,
// 4 GiB where it cannot be read), in bytes; InputError naming the param when under 1.
uint64_t max_cached_bytes(const Params& params);

}  // namespace pacer::alloc
