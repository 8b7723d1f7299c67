#pragma once
// Memory allocator plugins: every large buffer of a proof comes from the configured allocator
// (docs/allocators.md), so that page size, pre-faulting, pooling and release are one TOML choice.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pacer {

// What a buffer is for, so an allocator can choose pages, pinning or a pool per use, and
// telemetry can say where the bytes went.
enum class Usage : uint8_t {
  witness,     // the witness values of one proof
  abc,         // a, b, c = A·w, B·w, A·w∘B·w (then H)
  scratch,     // anything else transient
  buckets,     // MSM bucket arrays (one set per MSM task)
  digits,      // MSM signed window digits of the scalars
  glv_images,  // MSM: φ(P) of every base (GLV endomorphism), for small MSMs
  ntt,         // NTT working buffers
  key_points,  // resident key points: loaded once, used by every proof
  staging,     // buffers copied to or from a device
};
inline constexpr int kUsageCount = 9;

constexpr std::string_view usage_name(Usage u) {
  constexpr std::string_view names[] = {"witness", "abc", "scratch", "buckets", "digits",
                                        "glv_images", "ntt", "key_points", "staging"};
  return names[static_cast<int>(u)];
}

// When freed memory goes back to the OS ([pipeline] release): `immediate` unmaps on the freeing
// thread; `bounded` hands the munmap (and its TLB shootdowns) to one background thread, with a
// bounded backlog so that memory held for release cannot grow without limit.
enum class ReleasePolicy : uint8_t { immediate, bounded };

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

// Cumulative since the allocator was made, except live/cached (now) and peak (high-water mark).
// Counters an allocator cannot measure stay 0.
struct AllocStats {
  uint64_t live_bytes = 0;      // handed out and not yet returned
  uint64_t peak_bytes = 0;
  uint64_t allocations = 0;
  uint64_t hugepage_bytes = 0;  // bytes verified to sit on huge pages (smaps, or MAP_HUGETLB)
  uint64_t page_faults = 0;     // minor faults measured while pre-faulting fresh memory
  uint64_t fresh_bytes = 0;     // bytes newly mapped from the OS: each page costs a fault on first touch
  uint64_t reused_bytes = 0;    // bytes served from memory kept from earlier frees (no fault, no zeroing)
  uint64_t cached_bytes = 0;    // freed bytes kept for reuse now (pooled)
  uint64_t released_bytes = 0;  // bytes given back to the OS (munmap)
  uint64_t unmaps = 0;          // munmap calls, on any thread
  uint64_t fallbacks = 0;       // allocations served by a fallback (hugetlb's on_empty)
};

// Calls fn(name, value) for every field of `s`, in declaration order: what a trace or /metrics
// writes, without each of them listing the fields again.
template <class Fn>
void for_each_stat(const AllocStats& s, Fn&& fn) {
  fn("live_bytes", s.live_bytes);
  fn("peak_bytes", s.peak_bytes);
  fn("allocations", s.allocations);
  fn("hugepage_bytes", s.hugepage_bytes);
  fn("page_faults", s.page_faults);
  fn("fresh_bytes", s.fresh_bytes);
  fn("reused_bytes", s.reused_bytes);
  fn("cached_bytes", s.cached_bytes);
  fn("released_bytes", s.released_bytes);
  fn("unmaps", s.unmaps);
  fn("fallbacks", s.fallbacks);
}

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Throws pacer::Error on failure (never returns a null block). Memory is NOT zeroed: callers
  // write before they read (a pooled block holds what its last user left).
  virtual Block allocate(size_t bytes, const AllocHints& hints) = 0;
  virtual void deallocate(Block block) noexcept = 0;
  virtual AllocStats stats() const = 0;
};

}  // namespace pacer
