#pragma once
// The allocator behind plain, thp and hugetlb (and the fresh memory of pooled): large blocks are
// one anonymous mapping each, of the page kind chosen; small blocks come from aligned operator
// new. Counts what it did (AllocStats) and gives memory back through a Releaser.
#include <atomic>
#include <memory>
#include <string>

#include "pacer/alloc/pages.hpp"
#include "pacer/alloc/releaser.hpp"
#include "pacer/allocator.hpp"
#include "pacer/params.hpp"

namespace spdlog { class logger; }

namespace pacer {
struct HostServices;
}

namespace pacer::alloc {

// What a hugetlb allocator does when its pool cannot back a block.
enum class OnEmpty : uint8_t { error, thp, plain };

struct PageOptions {
  PageKind kind = PageKind::small;
  size_t huge_page_bytes = kHugePage2M;  // hugetlb only
  OnEmpty on_empty = OnEmpty::error;     // hugetlb only
  bool prefault = false;                 // touch every page of a fresh block at allocation
  size_t mmap_threshold = size_t(1) << 20;  // smaller blocks: operator new
  bool verify = true;                    // thp: read smaps for what each block really got
  uint64_t release_backlog_bytes = uint64_t(1) << 30;  // [pipeline] release = "bounded"
  // hugetlb with on_empty = "error": an empty pool is an InputError when the allocator is made.
  // Off only in tests/plugins, which model a pool that empties later, during the run.
  bool check_pool_at_start = true;
};

// Reads the [allocator.params] keys of one page kind: prefault, mmap_threshold,
// release_backlog_mb, and verify (thp) or page and on_empty (hugetlb). Bad values throw
// InputError naming the key and the fix. `prefault_default`: pooled pre-faults unless told not to.
PageOptions read_page_options(const Params& params, PageKind kind, bool prefault_default = false);

class MmapAllocator final : public Allocator {
 public:
  // `name` prefixes messages ("hugetlb allocator: ...").
  MmapAllocator(std::string name, const PageOptions& options, ReleasePolicy release,
                std::shared_ptr<spdlog::logger> log);
  MmapAllocator(std::string name, const PageOptions& options, const HostServices& host);

  Block allocate(size_t bytes, const AllocHints& hints) override;
  void deallocate(Block block) noexcept override;
  AllocStats stats() const override;

  const PageOptions& options() const { return options_; }
  // Waits until the bounded release thread has unmapped everything handed to it.
  void drain_releases() noexcept { releaser_.drain(); }

 private:
  Block from_heap(size_t bytes, size_t align);
  Mapping map_fresh(size_t bytes);  // applies on_empty
  // Adds to hugepage_bytes what smaps says of a thp block; returns it.
  uint64_t verify_pages(const Mapping& m) noexcept;
  void note_live(uint64_t bytes);

  const std::string name_;
  const PageOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  Releaser releaser_;
  std::atomic<uint64_t> live_{0}, peak_{0}, allocations_{0}, hugepage_bytes_{0}, faults_{0}, fresh_{0},
      fallbacks_{0};
  std::atomic<bool> warned_fallback_{false};
};

}  // namespace pacer::alloc
