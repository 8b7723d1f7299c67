#include "pacer/alloc/pages.hpp"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "pacer/error.hpp"

namespace pacer::alloc {
namespace {

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

unsigned log2_of(size_t power_of_two) {
  unsigned log = 0;
  while ((size_t(1) << log) < power_of_two) ++log;
  return log;
}

// Reserves length + alignment, keeps [data - guard, data + bytes + guard) and gives back the rest,
// then seals the guards. A fresh VMA per block: see Mapping.
Mapping map_guarded(size_t bytes, size_t align) {
  const size_t guard = kSmallPage;
  const size_t reserve = bytes + align + 2 * guard;
  void* p = mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw FailedError(fmt::format("allocator: mmap of {} failed: {}", human_bytes(reserve), std::strerror(errno)));
  auto* start = static_cast<std::byte*>(p);
  const uintptr_t first = reinterpret_cast<uintptr_t>(start) + guard;
  auto* data = reinterpret_cast<std::byte*>(round_up(first, align));
  Mapping m{data, bytes, kSmallPage, data - guard, bytes + 2 * guard};
  if (m.base > start) munmap(start, size_t(m.base - start));
  std::byte* end = m.base + m.length;
  if (end < start + reserve) munmap(end, size_t(start + reserve - end));
  mprotect(m.base, guard, PROT_NONE);
  mprotect(data + bytes, guard, PROT_NONE);
  return m;
}

}  // namespace

std::string_view page_kind_name(PageKind kind) {
  switch (kind) {
    case PageKind::small: return "plain";
    case PageKind::thp: return "thp";
    case PageKind::hugetlb: break;
  }
  return "hugetlb";
}

std::optional<Mapping> map_block(size_t bytes, PageKind kind, size_t huge_page_bytes) {
  bytes = std::max<size_t>(bytes, 1);
  switch (kind) {
    case PageKind::small: {
      Mapping m = map_guarded(round_up(bytes, kSmallPage), kSmallPage);
#ifdef MADV_NOHUGEPAGE
      madvise(m.data, m.bytes, MADV_NOHUGEPAGE);  // "always" THP must not turn plain into thp
#endif
      return m;
    }
    case PageKind::thp: {
      Mapping m = map_guarded(round_up(bytes, kHugePage2M), kHugePage2M);
#ifdef MADV_HUGEPAGE
      madvise(m.data, m.bytes, MADV_HUGEPAGE);  // advice: smaps says what the kernel did with it
#endif
      return m;
    }
    case PageKind::hugetlb: break;
  }
  const size_t length = round_up(bytes, huge_page_bytes);
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | int(log2_of(huge_page_bytes) << MAP_HUGE_SHIFT);
  // Without MAP_NORESERVE the kernel reserves the pages now: an empty pool fails here with
  // ENOMEM, not later with SIGBUS at first touch.
  void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    if (err == ENOMEM || err == EINVAL) return std::nullopt;  // EINVAL: no pool of this page size
    throw FailedError(fmt::format("hugetlb allocator: mmap of {} in {} pages failed: {}", human_bytes(length),
                                  human_bytes(huge_page_bytes), std::strerror(err)));
  }
  auto* data = static_cast<std::byte*>(p);
  return Mapping{data, length, huge_page_bytes, data, length};
}

Mapping mapping_of(std::byte* data, size_t bytes, PageKind kind, size_t page_bytes) {
  if (kind == PageKind::hugetlb) return Mapping{data, bytes, page_bytes, data, bytes};
  return Mapping{data, bytes, page_bytes, data - kSmallPage, bytes + 2 * kSmallPage};
}

int unmap(const Mapping& m) noexcept {
  if (!m.base) return 0;
  return munmap(m.base, m.length) == 0 ? 0 : errno;
}

uint64_t thread_minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<uint64_t>(usage.ru_minflt);
}

uint64_t touch_pages(std::byte* data, size_t bytes, size_t page_bytes) {
  const uint64_t before = thread_minor_faults();
  volatile std::byte* p = data;
  // 4 KiB steps even on huge pages: one write per huge page would do, but a thp block may be
  // backed by small pages anywhere.
  const size_t step = std::min(page_bytes, kSmallPage);
  for (size_t off = 0; off < bytes; off += step) p[off] = std::byte{0};
  return thread_minor_faults() - before;
}

std::optional<VmaPages> smaps_of(const void* start) {
  std::ifstream in("/proc/self/smaps");
  if (!in) return std::nullopt;
  const uintptr_t want = reinterpret_cast<uintptr_t>(start);
  std::string line;
  bool inside = false;
  VmaPages v;
  while (std::getline(in, line)) {
    uintptr_t lo = 0, hi = 0;
    // A VMA header: "lo-hi perms offset dev inode [path]"; field lines start with a capital.
    const bool header = !line.empty() && line[0] != ' ' && !(line[0] >= 'A' && line[0] <= 'Z') &&
                        std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) == 2;
    if (header) {
      if (inside) return v;
      inside = lo == want;
      if (inside) v.size_bytes = hi - lo;
      continue;
    }
    if (!inside) continue;
    uint64_t kb = 0;
    if (std::sscanf(line.c_str(), "Rss: %" SCNu64 " kB", &kb) == 1) v.rss_bytes = kb << 10;
    else if (std::sscanf(line.c_str(), "AnonHugePages: %" SCNu64 " kB", &kb) == 1) v.anon_huge_bytes = kb << 10;
    else if (std::sscanf(line.c_str(), "KernelPageSize: %" SCNu64 " kB", &kb) == 1) v.kernel_page_bytes = kb << 10;
  }
  if (inside) return v;
  return std::nullopt;
}

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  if (!in || !std::getline(in, text)) return "";
  const size_t open = text.find('['), close = text.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return text.substr(open + 1, close - open - 1);
}

bool thp_disabled_for_process() { return ::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1; }

std::string why_no_thp() {
  if (thp_disabled_for_process())
    return "transparent huge pages are disabled for this process (prctl PR_SET_THP_DISABLE, inherited from the "
           "process that started it: a parent, a container runtime or a systemd unit); blocks get 4 KiB pages";
  const std::string mode = thp_mode();
  if (mode == "always" || mode == "madvise") return "";
  return fmt::format("transparent huge pages are {} on this kernel; blocks get 4 KiB pages (echo madvise > "
                     "/sys/kernel/mm/transparent_hugepage/enabled as root)",
                     mode.empty() ? "not available" : "\"" + mode + "\"");
}

HugetlbPool hugetlb_pool(size_t page_bytes) {
  const std::string dir = fmt::format("/sys/kernel/mm/hugepages/hugepages-{}kB/", page_bytes >> 10);
  auto read = [&](const char* name, uint64_t& out) {
    std::ifstream in(dir + name);
    return bool(in >> out);
  };
  HugetlbPool pool;
  pool.exists = read("nr_hugepages", pool.total);
  if (pool.exists) {
    read("free_hugepages", pool.free);
    read("resv_hugepages", pool.reserved);
  }
  return pool;
}

std::string human_bytes(uint64_t bytes) {
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  if (v == double(uint64_t(v))) return fmt::format("{} {}", uint64_t(v), units[u]);
  return fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace pacer::alloc
