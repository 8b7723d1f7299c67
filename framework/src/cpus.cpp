#include "pacer/cpus.hpp"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace pacer {

namespace {

std::optional<uint64_t> parse_u64(std::string_view s) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<unsigned> affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return std::nullopt;  // > 1024 CPUs: EINVAL
  const int n = CPU_COUNT(&set);
  return n > 0 ? std::optional<unsigned>(unsigned(n)) : std::nullopt;
}

std::optional<std::string> first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  if (f && std::getline(f, line)) return line;
  return std::nullopt;
}

// The tightest quota on the way from this process's cgroup up to the root (cgroup v2: its path
// from /proc/self/cgroup, under the mount; a parent's limit binds its children, and a container
// sees its own cgroup as the root); cgroup v1's cpu.cfs_quota_us (-1: none) and cpu.cfs_period_us
// where no v2 file can be read.
std::optional<unsigned> cgroup_quota_cpus() {
  std::string own;
  std::ifstream self("/proc/self/cgroup");
  for (std::string line; std::getline(self, line);)
    if (line.rfind("0::/", 0) == 0 && line.find("..") == std::string::npos) own = line.substr(3);
  bool v2 = false;
  std::optional<unsigned> tightest;
  for (std::string dir = own;; dir.resize(dir.rfind('/'))) {
    if (const auto line = first_line("/sys/fs/cgroup" + dir + "/cpu.max")) {
      v2 = true;
      if (const auto cpus = cpus_from_cgroup_cpu_max(*line)) tightest = std::min(tightest.value_or(*cpus), *cpus);
    }
    if (dir.empty() || dir == "/") break;
  }
  if (v2) return tightest;
  const auto quota = first_line("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
  const auto period = first_line("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  if (quota && period) return cpus_from_cgroup_cpu_max(*quota + " " + *period);
  return std::nullopt;
}

}  // namespace

std::optional<unsigned> cpus_from_cgroup_cpu_max(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.remove_suffix(1);
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto quota = parse_u64(line.substr(0, space)), period = parse_u64(line.substr(space + 1));
  if (!quota || !period || *period == 0 || *quota == 0) return std::nullopt;  // "max": no quota
  const uint64_t cpus = (*quota + *period - 1) / *period;
  return unsigned(std::min<uint64_t>(cpus, 1u << 20));
}

unsigned available_cpus() {
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  if (const auto a = affinity_cpus()) n = std::min(n, *a);
  if (const auto q = cgroup_quota_cpus()) n = std::min(n, *q);
  return std::max(1u, n);
}

}  // namespace pacer
