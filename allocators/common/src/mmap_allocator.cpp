#include "pacer/alloc/mmap_allocator.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <new>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/host_services.hpp"

namespace pacer::alloc {
namespace {

// Block::cookie: the kind of block, so deallocate knows how to give it back. Heap blocks carry
// their alignment (a power of two >= 16) plus kHeapTag (odd); mappings an even tag.
constexpr uintptr_t kHeapTag = 1;
constexpr uintptr_t kSmallMapping = 2, kThpMapping = 4, kThpVerified = 6, kHugetlbMapping = 8;
uintptr_t mapping_cookie(PageKind kind) {
  return kind == PageKind::small ? kSmallMapping : kind == PageKind::thp ? kThpMapping : kHugetlbMapping;
}
PageKind kind_of_cookie(uintptr_t cookie) {
  return cookie == kSmallMapping ? PageKind::small : cookie == kHugetlbMapping ? PageKind::hugetlb : PageKind::thp;
}

std::string hugetlb_fix(size_t page_bytes) {
  if (page_bytes == kHugePage1G)
    return "reserve 1 GiB pages (kernel command line hugepagesz=1G hugepages=N, or echo N > "
           "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages as root)";
  return "reserve 2 MiB pages (sysctl vm.nr_hugepages=N as root)";
}

}  // namespace

PageOptions read_page_options(const Params& params, PageKind kind, bool prefault_default) {
  PageOptions o;
  o.kind = kind;
  o.prefault = params.get_bool("prefault", prefault_default);
  const int64_t threshold = params.get_int("mmap_threshold", int64_t(o.mmap_threshold));
  if (threshold < int64_t(kSmallPage))
    throw InputError(fmt::format("{} mmap_threshold must be at least {} bytes, got {}", params.where(), kSmallPage,
                                 threshold));
  o.mmap_threshold = size_t(threshold);
  const int64_t backlog_mb = params.get_int("release_backlog_mb", int64_t(o.release_backlog_bytes >> 20));
  if (backlog_mb < 1)
    throw InputError(fmt::format("{} release_backlog_mb must be at least 1 (MiB waiting for the release thread), "
                                 "got {}",
                                 params.where(), backlog_mb));
  o.release_backlog_bytes = uint64_t(backlog_mb) << 20;
  if (kind == PageKind::thp) o.verify = params.get_bool("verify", true);
  if (kind == PageKind::hugetlb) {
    const std::string page = params.get_string("page", "2M");
    if (page == "2M") o.huge_page_bytes = kHugePage2M;
    else if (page == "1G") o.huge_page_bytes = kHugePage1G;
    else throw InputError(fmt::format("{} page must be \"2M\" or \"1G\", got \"{}\"", params.where(), page));
    const std::string on_empty = params.get_string("on_empty", "error");
    if (on_empty == "error") o.on_empty = OnEmpty::error;
    else if (on_empty == "thp") o.on_empty = OnEmpty::thp;
    else if (on_empty == "plain") o.on_empty = OnEmpty::plain;
    else
      throw InputError(fmt::format("{} on_empty must be \"error\", \"thp\" or \"plain\", got \"{}\"", params.where(),
                                   on_empty));
  }
  return o;
}

MmapAllocator::MmapAllocator(std::string name, const PageOptions& options, ReleasePolicy release,
                             std::shared_ptr<spdlog::logger> log)
    : name_(std::move(name)),
      options_(options),
      log_(std::move(log)),
      releaser_(release, options.release_backlog_bytes) {
  if (options_.kind != PageKind::hugetlb) return;
  // An empty pool is found now, where the config is checked, and not at the first proof.
  const HugetlbPool pool = hugetlb_pool(options_.huge_page_bytes);
  const std::string state =
      pool.exists ? fmt::format("{} of {} pages free", pool.free, pool.total) : "this kernel has no such pool";
  if (options_.on_empty == OnEmpty::error && options_.check_pool_at_start && (!pool.exists || pool.free == 0))
    throw InputError(fmt::format("{}: no free {} huge pages ({}); {}, or set [allocator.params] on_empty = \"thp\" "
                                 "or \"plain\"",
                                 name_, human_bytes(options_.huge_page_bytes), state, hugetlb_fix(options_.huge_page_bytes)));
  if (log_)
    log_->debug("{}: {} pool: {}; on_empty = {}", name_, human_bytes(options_.huge_page_bytes), state,
                options_.on_empty == OnEmpty::error ? "error" : options_.on_empty == OnEmpty::thp ? "thp" : "plain");
}

MmapAllocator::MmapAllocator(std::string name, const PageOptions& options, const HostServices& host)
    : MmapAllocator(std::move(name), options, host.release, host.log) {}

void MmapAllocator::note_live(uint64_t bytes) {
  const uint64_t live = live_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (live > peak && !peak_.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
  allocations_.fetch_add(1, std::memory_order_relaxed);
}

Block MmapAllocator::from_heap(size_t bytes, size_t align) {
  Block block;
  block.bytes = (std::max<size_t>(bytes, 1) + align - 1) / align * align;
  void* p = ::operator new(block.bytes, std::align_val_t(align), std::nothrow);
  if (!p) throw FailedError(fmt::format("{}: cannot allocate {}", name_, human_bytes(block.bytes)));
  block.data = static_cast<std::byte*>(p);
  block.page_bytes = kSmallPage;
  block.cookie = reinterpret_cast<void*>(align | kHeapTag);
  return block;
}

Mapping MmapAllocator::map_fresh(size_t bytes) {
  if (std::optional<Mapping> m = map_block(bytes, options_.kind, options_.huge_page_bytes)) return *m;
  // Only hugetlb returns nothing: its pool has too few free pages for this block.
  const HugetlbPool pool = hugetlb_pool(options_.huge_page_bytes);
  const std::string what = fmt::format("{}: the {} pool cannot back a block of {} ({} of {} pages free)", name_,
                                        human_bytes(options_.huge_page_bytes), human_bytes(bytes), pool.free,
                                        pool.total);
  // During a run this fails the proof that asked (the pool was drained since the start), not the
  // config: the other proofs go on.
  if (options_.on_empty == OnEmpty::error)
    throw FailedError(fmt::format("{}; {}, or set [allocator.params] on_empty = \"thp\" or \"plain\"", what,
                                  hugetlb_fix(options_.huge_page_bytes)));
  const PageKind instead = options_.on_empty == OnEmpty::thp ? PageKind::thp : PageKind::small;
  fallbacks_.fetch_add(1, std::memory_order_relaxed);
  if (log_) {
    // Once as a warning (the run is not what the config asked for), then quietly.
    const bool first = !warned_fallback_.exchange(true);
    log_->log(first ? spdlog::level::warn : spdlog::level::debug, "{}; on_empty = \"{}\": {} pages instead ({})",
              what, page_kind_name(instead), page_kind_name(instead), hugetlb_fix(options_.huge_page_bytes));
  }
  return *map_block(bytes, instead);
}

Block MmapAllocator::allocate(size_t bytes, const AllocHints& hints) {
  const size_t align = std::max<size_t>(hints.align, alignof(std::max_align_t));
  if ((align & (align - 1)) != 0)
    throw InputError(fmt::format("{}: alignment {} is not a power of two", name_, align));
  Block block;
  // Mappings are aligned to 4 KiB at least (thp and hugetlb to their page): a larger alignment,
  // never asked for by Pacer's own callers, is served from the heap.
  if (bytes < options_.mmap_threshold || align > kSmallPage) {
    block = from_heap(bytes, align);
    if (options_.prefault || hints.prefault)
      faults_.fetch_add(touch_pages(block.data, block.bytes, kSmallPage), std::memory_order_relaxed);
  } else {
    const Mapping m = map_fresh(bytes);
    // A fallback mapping is 4 KiB-based (thp or small); a hugetlb one has the pool's page.
    const PageKind kind = m.page_bytes > kSmallPage ? PageKind::hugetlb
                          : (options_.kind == PageKind::thp || options_.on_empty == OnEmpty::thp) ? PageKind::thp
                                                                                                  : PageKind::small;
    block = Block{m.data, m.bytes, m.page_bytes, false, reinterpret_cast<void*>(mapping_cookie(kind))};
    fresh_.fetch_add(m.bytes, std::memory_order_relaxed);
    if (kind == PageKind::hugetlb) hugepage_bytes_.fetch_add(m.bytes, std::memory_order_relaxed);
    if (options_.prefault || hints.prefault) {
      faults_.fetch_add(touch_pages(m.data, m.bytes, m.page_bytes), std::memory_order_relaxed);
      if (kind == PageKind::thp && options_.verify) {  // touched now: smaps can tell already
        if (verify_pages(m) == m.bytes) block.page_bytes = kHugePage2M;
        block.cookie = reinterpret_cast<void*>(kThpVerified);
      }
    }
  }
  note_live(block.bytes);
  return block;
}

uint64_t MmapAllocator::verify_pages(const Mapping& m) noexcept {
  try {
    if (const std::optional<VmaPages> v = smaps_of(m.data)) {
      const uint64_t huge = std::min<uint64_t>(v->anon_huge_bytes, m.bytes);
      hugepage_bytes_.fetch_add(huge, std::memory_order_relaxed);
      return huge;
    }
  } catch (...) {  // telemetry only: a proof never fails for it
  }
  return 0;
}

void MmapAllocator::deallocate(Block block) noexcept {
  if (!block.data) return;
  const auto cookie = reinterpret_cast<uintptr_t>(block.cookie);
  live_.fetch_sub(block.bytes, std::memory_order_relaxed);
  if (cookie & kHeapTag) {
    ::operator delete(block.data, std::align_val_t(cookie & ~kHeapTag));
    return;
  }
  const PageKind kind = kind_of_cookie(cookie);
  const Mapping m = mapping_of(block.data, block.bytes, kind, block.page_bytes);
  if (cookie == kThpMapping && options_.verify) verify_pages(m);  // what the pages became while in use
  releaser_.release(m);
}

AllocStats MmapAllocator::stats() const {
  AllocStats s;
  s.live_bytes = live_.load(std::memory_order_relaxed);
  s.peak_bytes = peak_.load(std::memory_order_relaxed);
  s.allocations = allocations_.load(std::memory_order_relaxed);
  s.hugepage_bytes = hugepage_bytes_.load(std::memory_order_relaxed);
  s.page_faults = faults_.load(std::memory_order_relaxed);
  s.fresh_bytes = fresh_.load(std::memory_order_relaxed);
  s.released_bytes = releaser_.released_bytes();
  s.unmaps = releaser_.unmaps();
  s.fallbacks = fallbacks_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace pacer::alloc
