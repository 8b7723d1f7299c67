// Test-only allocator "hugetlb_drained": the hugetlb allocator on a machine whose pool is emptied
// during the run (another process took the pages), which no test machine can be relied on to
// stage. Blocks come from plain 4 KiB pages, except the N-th allocation (fault_params.hpp:
// fail_at, usage), which the real hugetlb allocator must map from a pool of `page` pages ("1G" by
// default: almost never reserved; the integration test skips where some are free). The kernel
// refuses it, so that allocator's on_empty acts as in a real run: "error" fails the proof that
// asked, "thp" and "plain" serve the block with those pages and log the fallback.
//   params: fail_at, usage, page (default "1G"), on_empty (default "error")
#include <mutex>
#include <set>

#include "fault_params.hpp"
#include "pacer/alloc/mmap_allocator.hpp"
#include "pacer/plugin.hpp"

namespace {

using namespace pacer;
using namespace pacer::alloc;

class DrainedHugetlb final : public Allocator {
 public:
  DrainedHugetlb(const Params& params, HostServices& host)
      : nth_(params),
        plain_("hugetlb_drained allocator (plain pages)", PageOptions{}, host),
        huge_("hugetlb allocator", huge_options(params), host) {}

  Block allocate(size_t bytes, const AllocHints& hints) override {
    if (!nth_.is_nth(nth_.count(hints.usage))) return plain_.allocate(bytes, hints);
    const Block block = huge_.allocate(bytes, hints);
    std::lock_guard lock(mutex_);
    from_huge_.insert(block.data);
    return block;
  }

  void deallocate(Block block) noexcept override {
    {
      std::lock_guard lock(mutex_);
      if (from_huge_.erase(block.data) == 1) return huge_.deallocate(block);
    }
    plain_.deallocate(block);
  }

  AllocStats stats() const override {
    AllocStats s = plain_.stats();
    const AllocStats h = huge_.stats();
    s.live_bytes += h.live_bytes;
    s.allocations += h.allocations;
    s.fallbacks = h.fallbacks;
    return s;
  }

 private:
  static PageOptions huge_options(const Params& params) {
    PageOptions o = read_page_options(params, PageKind::hugetlb);
    if (!params.has("page")) o.huge_page_bytes = kHugePage1G;
    o.check_pool_at_start = false;  // the pool empties later: that is the point
    o.mmap_threshold = 1;           // the N-th block is mapped however small it is
    return o;
  }

  fault_params::NthCounter nth_;
  MmapAllocator plain_;
  MmapAllocator huge_;
  std::mutex mutex_;
  std::set<std::byte*> from_huge_;
};

std::unique_ptr<Allocator> make_hugetlb_drained(const Params& params, HostServices& host) {
  return std::make_unique<DrainedHugetlb>(params, host);
}

}  // namespace

PACER_PLUGIN(allocator, "hugetlb_drained", "0.1.0",
             "TEST ONLY: hugetlb whose pool is found empty at the N-th allocation (on_empty acts)", make_hugetlb_drained)
