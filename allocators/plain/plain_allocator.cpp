// Allocator "plain": ordinary 4 KiB pages, the baseline every other allocator is compared with.
// Large blocks are their own anonymous mmap with transparent hugepages switched off
// (MADV_NOHUGEPAGE), so that "plain" really means 4 KiB pages even where THP is set to "always"
// (the thp allocator is the one that asks for hugepages: comparing the two must compare what the
// names say); small blocks come from aligned operator new. Freed blocks go back to the OS at once,
// or through the release thread with [pipeline] release = "bounded".
//
// params (docs/allocators.md):
//   prefault           (bool, default false)  touch every page at allocation, as if hints.prefault
//   mmap_threshold     (integer bytes, default 1 MiB) blocks at least this big are mmap'd
//   release_backlog_mb (integer, default 1024) bytes the release thread may have waiting
#include "pacer/alloc/mmap_allocator.hpp"
#include "pacer/plugin.hpp"

namespace {

std::unique_ptr<pacer::Allocator> make_plain_allocator(const pacer::Params& params, pacer::HostServices& host) {
  using namespace pacer::alloc;
  return std::make_unique<MmapAllocator>("plain allocator", read_page_options(params, PageKind::small), host);
}

}  // namespace

PACER_PLUGIN(allocator, "plain", "0.2.0", "ordinary 4 KiB pages (mmap without THP for large blocks)",
             make_plain_allocator)
