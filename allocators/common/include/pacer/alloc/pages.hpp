#pragma once
// Pages from the kernel for the allocator plugins (plain, thp, hugetlb, pooled): one anonymous
// mapping per block, what the kernel really backed it with (/proc/self/smaps), the state of the
// THP setting and of the hugetlb pools, and the faults a thread takes. Linux only.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pacer::alloc {

inline constexpr size_t kSmallPage = size_t(4) << 10;
inline constexpr size_t kHugePage2M = size_t(2) << 20;
inline constexpr size_t kHugePage1G = size_t(1) << 30;

// small: 4 KiB pages with THP switched off (MADV_NOHUGEPAGE); thp: 2 MiB aligned, MADV_HUGEPAGE
// (the kernel may still hand out 4 KiB pages: check with smaps); hugetlb: MAP_HUGETLB pages of a
// reserved pool (2 MiB or 1 GiB), guaranteed once mapped.
enum class PageKind : uint8_t { small, thp, hugetlb };
std::string_view page_kind_name(PageKind kind);

// One block of memory as the kernel mapped it. small and thp blocks sit between two PROT_NONE
// guard pages, so that the block is a VMA of its own (adjacent blocks with equal flags would be
// merged into one VMA, and smaps could no longer say which block got huge pages).
struct Mapping {
  std::byte* data = nullptr;  // the block: aligned to its page size
  size_t bytes = 0;           // usable, a multiple of page_bytes
  size_t page_bytes = 0;      // 4 KiB (small, thp until verified) or the hugetlb page size
  std::byte* base = nullptr;  // what munmap gets: data minus the front guard
  size_t length = 0;
};

// Maps at least `bytes` (rounded up to the page, 2 MiB for thp). Throws pacer::FailedError when
// the kernel refuses, except for hugetlb when the pool has too few free pages: std::nullopt then,
// and the caller applies its on_empty policy.
std::optional<Mapping> map_block(size_t bytes, PageKind kind, size_t huge_page_bytes = kHugePage2M);
// Rebuilds what map_block returned from the block alone (for deallocate, which gets a Block).
Mapping mapping_of(std::byte* data, size_t bytes, PageKind kind, size_t page_bytes);
// 0 or errno.
int unmap(const Mapping& m) noexcept;

// One write per page: the kernel backs the block now (and zeroes it). Returns the minor faults
// this thread took meanwhile.
uint64_t touch_pages(std::byte* data, size_t bytes, size_t page_bytes);
uint64_t thread_minor_faults();

// The smaps entry of the VMA that starts at `start` (a block of map_block). nullopt when there is
// no such VMA or /proc is not readable.
struct VmaPages {
  uint64_t size_bytes = 0;
  uint64_t rss_bytes = 0;
  uint64_t anon_huge_bytes = 0;    // AnonHugePages: transparent huge pages
  uint64_t kernel_page_bytes = 0;  // KernelPageSize: 4 KiB, or the hugetlb page size
};
std::optional<VmaPages> smaps_of(const void* start);

// /sys/kernel/mm/transparent_hugepage/enabled: "always", "madvise" or "never"; "" when absent.
std::string thp_mode();
// Whether THP is switched off for this process (prctl PR_SET_THP_DISABLE, inherited across fork
// and exec: a parent, a container runtime or a systemd unit may have set it). MADV_HUGEPAGE then
// does nothing, whatever thp_mode() says.
bool thp_disabled_for_process();
// Why THP blocks will get 4 KiB pages here ("" when they may get huge pages): for a warning.
std::string why_no_thp();

// A hugetlb pool (/sys/kernel/mm/hugepages/hugepages-<N>kB): exists = the kernel has this size.
struct HugetlbPool {
  bool exists = false;
  uint64_t total = 0, free = 0, reserved = 0;  // pages
};
HugetlbPool hugetlb_pool(size_t page_bytes);

// "2 MiB", "1 GiB", "4 KiB", "12.5 MiB": sizes for messages.
std::string human_bytes(uint64_t bytes);

}  // namespace pacer::alloc
