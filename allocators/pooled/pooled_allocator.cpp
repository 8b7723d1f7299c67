// Allocator "pooled": keeps freed blocks, pre-faulted, for the next proof (alloc::BlockPool). A
// prover that keeps proving asks for the same buffers proof after proof (a, b, c, MSM digits, GLV
// images, buckets, NTT scratch); plain memory costs a page fault per 4 KiB page (the kernel zeroes
// each) and a munmap with its TLB shootdowns per buffer, every proof. Pooled pays them once:
// blocks are kept by size class (steps of 1/8 of a power of two) and handed out again as they
// are, so the hot path takes no fault and no munmap. Fresh memory comes from the page kind `fresh`
// names (the plain, thp or hugetlb allocator's code), pre-faulted at allocation unless prefault =
// false. Cached bytes are capped: a block freed over the cap goes back to the OS (the [pipeline]
// release policy applies).
//
// params (docs/allocators.md):
//   fresh            ("plain" | "thp" | "hugetlb", default "thp")  where new blocks come from
//   max_cached_mb    (integer, default a quarter of physical memory) cap on freed bytes kept
//   min_pooled_bytes (integer, default 64 KiB) smaller blocks are not kept
//   prefault         (bool, default true)  touch every page of a fresh block at allocation
//   and the keys of the fresh kind: mmap_threshold, release_backlog_mb, verify (thp), page and
//   on_empty (hugetlb)
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/alloc/block_pool.hpp"
#include "pacer/alloc/mmap_allocator.hpp"
#include "pacer/error.hpp"
#include "pacer/host_services.hpp"
#include "pacer/plugin.hpp"

namespace {

using namespace pacer;
using namespace pacer::alloc;

std::unique_ptr<Allocator> make_pooled_allocator(const Params& params, HostServices& host) {
  const std::string fresh = params.get_string("fresh", "thp");
  PageKind kind;
  if (fresh == "plain") kind = PageKind::small;
  else if (fresh == "thp") kind = PageKind::thp;
  else if (fresh == "hugetlb") kind = PageKind::hugetlb;
  else
    throw InputError(fmt::format("{} fresh must be \"plain\", \"thp\" or \"hugetlb\", got \"{}\"", params.where(),
                                 fresh));
  const uint64_t max_cached = max_cached_bytes(params);
  const int64_t min_pooled = params.get_int("min_pooled_bytes", 64 << 10);
  if (min_pooled < int64_t(kSmallPage))
    throw InputError(fmt::format("{} min_pooled_bytes must be at least {}, got {}", params.where(), kSmallPage,
                                 min_pooled));
  const PageOptions options = read_page_options(params, kind, /*prefault_default=*/true);
  auto source = std::make_unique<MmapAllocator>(fmt::format("pooled allocator ({} pages)", fresh), options, host);
  if (const std::string why = kind == PageKind::thp ? why_no_thp() : ""; host.log && !why.empty())
    host.log->info("pooled allocator (fresh = \"thp\"): {}", why);
  if (host.log)
    host.log->debug("pooled allocator: fresh {} pages{}, keeps up to {} MiB of freed blocks of {} bytes or more",
                    fresh, options.prefault ? " (pre-faulted)" : "", max_cached >> 20, min_pooled);
  return std::make_unique<BlockPool>(std::move(source), max_cached, size_t(min_pooled));
}

}  // namespace

PACER_PLUGIN(allocator, "pooled", "0.1.0",
             "keeps pre-faulted blocks across proofs by size class (no fault, no munmap on the hot path)",
             make_pooled_allocator)
