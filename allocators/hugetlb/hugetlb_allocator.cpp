// Allocator "hugetlb": explicit huge pages (MAP_HUGETLB) from the kernel's reserved pool, 2 MiB or
// 1 GiB. Once mapped they are guaranteed (no fragmentation lottery as with thp) and never faulted
// in 4 KiB steps; but the pool must be reserved by root beforehand (vm.nr_hugepages). A block the
// pool cannot back follows on_empty: "error" (a one-line error naming the fix), or "thp" / "plain"
// pages instead, logged once as a warning and counted in AllocStats::fallbacks.
//
// params (docs/allocators.md):
//   page               ("2M" | "1G", default "2M")
//   on_empty           ("error" | "thp" | "plain", default "error")
//   prefault           (bool, default false)
//   mmap_threshold     (integer bytes, default 1 MiB) smaller blocks come from operator new
//   release_backlog_mb (integer, default 1024) bytes the release thread may have waiting
#include "pacer/alloc/mmap_allocator.hpp"
#include "pacer/plugin.hpp"

namespace {

std::unique_ptr<pacer::Allocator> make_hugetlb_allocator(const pacer::Params& params, pacer::HostServices& host) {
  using namespace pacer::alloc;
  return std::make_unique<MmapAllocator>("hugetlb allocator", read_page_options(params, PageKind::hugetlb), host);
}

}  // namespace

PACER_PLUGIN(allocator, "hugetlb", "0.1.0", "explicit huge pages (MAP_HUGETLB, 2 MiB or 1 GiB; on_empty fallback)",
             make_hugetlb_allocator)
