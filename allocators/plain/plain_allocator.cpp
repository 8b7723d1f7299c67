// Allocator "plain": ordinary 4 KiB pages. Small blocks come from aligned operator new; large
// blocks are their own anonymous mmap with transparent hugepages switched off, so that "plain"
// really means 4 KiB pages even where THP is set to "always" (the thp allocator is the one that
// asks for hugepages; comparing the two must compare what the names say).
//
// params:
//   prefault      (bool, default false)  touch every page at allocation, as if hints.prefault
//   mmap_threshold (integer bytes, default 1 MiB) blocks at least this big are mmap'd
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/plugin.hpp"

namespace {

constexpr size_t kPageBytes = 4096;

uint64_t minor_faults_of_this_thread() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<uint64_t>(usage.ru_minflt);
}

class PlainAllocator final : public pacer::Allocator {
 public:
  PlainAllocator(bool prefault, size_t mmap_threshold) : prefault_(prefault), mmap_threshold_(mmap_threshold) {}

  pacer::Block allocate(size_t bytes, const pacer::AllocHints& hints) override {
    const size_t align = std::max<size_t>(hints.align, alignof(std::max_align_t));
    if ((align & (align - 1)) != 0)
      throw pacer::InputError(fmt::format("plain allocator: alignment {} is not a power of two", align));
    pacer::Block block;
    block.page_bytes = kPageBytes;
    if (bytes >= mmap_threshold_ && align <= kPageBytes) {
      block.bytes = round_up(bytes, kPageBytes);
      void* p = mmap(nullptr, block.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        throw pacer::FailedError(fmt::format("plain allocator: mmap of {} bytes failed: {}", block.bytes,
                                             std::strerror(errno)));
#ifdef MADV_NOHUGEPAGE
      madvise(p, block.bytes, MADV_NOHUGEPAGE);  // best effort: a kernel without THP has nothing to undo
#endif
      block.data = static_cast<std::byte*>(p);
      block.cookie = nullptr;  // nullptr: mmap'd, unmap block.bytes
    } else {
      block.bytes = round_up(std::max<size_t>(bytes, 1), align);
      void* p = ::operator new(block.bytes, std::align_val_t(align), std::nothrow);
      if (!p)
        throw pacer::FailedError(fmt::format("plain allocator: cannot allocate {} bytes", block.bytes));
      block.data = static_cast<std::byte*>(p);
      // Non-null cookie: from operator new; it carries the alignment that operator delete needs.
      block.cookie = reinterpret_cast<void*>(align);
    }
    if (prefault_ || hints.prefault) touch(block);

    const uint64_t live = live_bytes_.fetch_add(block.bytes, std::memory_order_relaxed) + block.bytes;
    uint64_t peak = peak_bytes_.load(std::memory_order_relaxed);
    while (live > peak && !peak_bytes_.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
    }
    allocations_.fetch_add(1, std::memory_order_relaxed);
    return block;
  }

  void deallocate(pacer::Block block) noexcept override {
    if (!block.data) return;
    if (block.cookie == nullptr) {
      munmap(block.data, block.bytes);
    } else {
      ::operator delete(block.data, std::align_val_t(reinterpret_cast<size_t>(block.cookie)));
    }
    live_bytes_.fetch_sub(block.bytes, std::memory_order_relaxed);
  }

  pacer::AllocStats stats() const override {
    pacer::AllocStats s;
    s.live_bytes = live_bytes_.load(std::memory_order_relaxed);
    s.peak_bytes = peak_bytes_.load(std::memory_order_relaxed);
    s.allocations = allocations_.load(std::memory_order_relaxed);
    s.page_faults = faults_.load(std::memory_order_relaxed);
    return s;
  }

 private:
  static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

  // One write per page makes the kernel back it now, so the faults are not paid inside a timed stage.
  void touch(const pacer::Block& block) {
    const uint64_t before = minor_faults_of_this_thread();
    volatile std::byte* p = block.data;
    for (size_t off = 0; off < block.bytes; off += kPageBytes) p[off] = std::byte{0};
    faults_.fetch_add(minor_faults_of_this_thread() - before, std::memory_order_relaxed);
  }

  const bool prefault_;
  const size_t mmap_threshold_;
  std::atomic<uint64_t> live_bytes_{0}, peak_bytes_{0}, allocations_{0}, faults_{0};
};

std::unique_ptr<pacer::Allocator> make_plain_allocator(const pacer::Params& params, pacer::HostServices&) {
  const bool prefault = params.get_bool("prefault", false);
  const int64_t threshold = params.get_int("mmap_threshold", 1 << 20);
  if (threshold < static_cast<int64_t>(kPageBytes))
    throw pacer::InputError(fmt::format("{} mmap_threshold must be at least {} bytes, got {}", params.where(),
                                        kPageBytes, threshold));
  return std::make_unique<PlainAllocator>(prefault, static_cast<size_t>(threshold));
}

}  // namespace

PACER_PLUGIN(allocator, "plain", "0.1.0", "ordinary 4 KiB pages (new/delete; mmap without THP for large blocks)",
             make_plain_allocator)
