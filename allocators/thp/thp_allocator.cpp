// Allocator "thp": transparent huge pages. Large blocks are 2 MiB-aligned mappings of whole 2 MiB
// pages with MADV_HUGEPAGE, so the kernel can back them with huge pages (512 times fewer page
// faults and TLB entries) where /sys/kernel/mm/transparent_hugepage/enabled is "always" or
// "madvise". The kernel may still hand out 4 KiB pages (fragmented memory, defrag settings): each
// block's /proc/self/smaps entry says what it really got, summed in AllocStats::hugepage_bytes.
//
// params (docs/allocators.md):
//   prefault           (bool, default false)  touch every page at allocation (then verify at once)
//   verify             (bool, default true)   read smaps for each block (at prefault, or when freed)
//   mmap_threshold     (integer bytes, default 1 MiB) smaller blocks come from operator new
//   release_backlog_mb (integer, default 1024) bytes the release thread may have waiting
#include <spdlog/spdlog.h>

#include "pacer/alloc/mmap_allocator.hpp"
#include "pacer/host_services.hpp"
#include "pacer/plugin.hpp"

namespace {

std::unique_ptr<pacer::Allocator> make_thp_allocator(const pacer::Params& params, pacer::HostServices& host) {
  using namespace pacer::alloc;
  const PageOptions options = read_page_options(params, PageKind::thp);
  // Not an error: the advice is harmless, and smaps will show 0 huge bytes.
  if (const std::string why = why_no_thp(); host.log && !why.empty()) host.log->warn("thp allocator: {}", why);
  return std::make_unique<MmapAllocator>("thp allocator", options, host);
}

}  // namespace

PACER_PLUGIN(allocator, "thp", "0.1.0", "transparent huge pages (2 MiB aligned, MADV_HUGEPAGE, checked in smaps)",
             make_thp_allocator)
