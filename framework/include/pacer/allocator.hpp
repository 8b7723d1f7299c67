#pragma once
// Memory allocator plugins: every large buffer of a proof comes from the configured allocator.
#include <cstddef>
#include <cstdint>

namespace pacer {

// What a buffer is for, so an allocator can choose pages, pinning or a pool per use.
enum class Usage : uint8_t { witness, abc, scratch, buckets, points, staging };

struct AllocHints {
  Usage usage = Usage::scratch;
  bool prefault = false;  // touch every page now, so faults do not land inside a timed stage
  size_t align = 64;      // at least alignof(std::max_align_t)
};

// What was really granted: callers and telemetry read this, not what they asked for.
struct Block {
  std::byte* data = nullptr;
  size_t bytes = 0;       // usable bytes (>= requested)
  size_t page_bytes = 0;  // page size backing the block (4 KiB, 2 MiB, 1 GiB)
  bool pinned = false;    // page-locked for DMA
  void* cookie = nullptr; // allocator-private
};

struct AllocStats {
  uint64_t live_bytes = 0;
  uint64_t peak_bytes = 0;
  uint64_t allocations = 0;
  uint64_t hugepage_bytes = 0;  // bytes verified to sit on huge pages
  uint64_t page_faults = 0;     // faults taken while prefaulting/allocating, where measured
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Throws pacer::Error on failure (never returns a null block).
  virtual Block allocate(size_t bytes, const AllocHints& hints) = 0;
  virtual void deallocate(Block block) noexcept = 0;
  virtual AllocStats stats() const = 0;
};

}  // namespace pacer
